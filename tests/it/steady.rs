//! Steady state and the sustained-write curve on real runs: a stable read attains its criterion
//! and stops before its runtime, `--ss-keep-going` runs to the end, fio's job-file keys do the
//! same, and bad settings are one-line usage errors (exit 2) from bench, fio and sweep alike.

use std::process::{Command, Output};

use serde_json::Value;

use crate::fio_run::fio;
use crate::support::record::{RECORD, args, bench, bench_ok, record_in};
use crate::support::*;

/// A loose criterion a steady read on any disk meets: every 1 s sample within 60% of the mean.
const LOOSE: &str = "iops:60%";

fn only_job(record: &Value) -> &Value {
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "one segment");
    &steps[0]["jobs"][0]
}

fn secs(ns: &Value) -> f64 {
    ns.as_u64().unwrap() as f64 / 1e9
}

#[test]
fn a_stable_read_attains_steady_state_and_stops_before_its_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let opts = format!(
        "--rw randread --bs 4k -q 4 --size 16M --runtime 30s --ss {LOOSE} --ss-dur 3s --no-tui"
    );
    let (out, record) = bench_ok(dir.path(), &args(dir.path(), &opts));
    let step = &record["segments"][0];
    assert_eq!(step["stop_reason"], "steady_state", "{step:#}");
    assert_eq!(record["status"], "completed");
    let elapsed = secs(&record["elapsed_ns"]);
    assert!(elapsed < 30.0, "stopped before the runtime: {elapsed}s");
    let ss = &only_job(&record)["steadystate"];
    assert_eq!(ss["attained"], 1, "{ss:#}");
    assert_eq!(ss["stopped_run"], true);
    assert_eq!(ss["ss"], "iops:60.000000%");
    assert_eq!(ss["duration"], 3);
    // The window: three one-second samples, ending when it was attained.
    let iops = ss["data"]["iops"].as_array().unwrap();
    let t_ns = ss["data"]["t_ns"].as_array().unwrap();
    assert_eq!(iops.len(), 3);
    assert_eq!(t_ns.last(), Some(&ss["attained_at_ns"]));
    let attained_at = secs(&ss["attained_at_ns"]);
    assert!(
        attained_at >= 3.0 - 0.01,
        "a full window first: {attained_at}"
    );
    // The run ended within a sample (plus the drain) of attaining it.
    assert!(elapsed < attained_at + 1.5, "{elapsed} vs {attained_at}");
    // The criterion is what the samples say: max deviation from their mean, in percent.
    let values: Vec<f64> = iops.iter().map(|v| v.as_f64().unwrap()).collect();
    let mean = values.iter().sum::<f64>() / 3.0;
    let dev = values.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max);
    let criterion: f64 = ss["criterion"]
        .as_str()
        .unwrap()
        .trim_end_matches('%')
        .parse()
        .unwrap();
    assert!(
        (criterion - 100.0 * dev / mean).abs() < 0.5,
        "{criterion} vs {dev}/{mean}"
    );
    assert!(criterion < 60.0);
    assert_eq!(ss["data"]["iops_mean"].as_u64().unwrap(), mean as u64);
    // Said at the time the record holds (3.0s on a quiet disk; later when it is busy).
    let at = format!("{attained_at:.1}s");
    assert!(
        stderr(&out).contains(&format!("steady state attained at {at}: iops")),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains(&format!("  steady  iops:60% over 3 s: attained at {at}")));
    assert!(stdout(&out).contains("the run stopped"));
    // A read writes nothing: no sustained-write curve.
    assert!(only_job(&record).get("sustained_write").is_none());
}

#[test]
fn keep_going_runs_to_the_runtime_and_flags_what_leaves_it() {
    let dir = tempfile::tempdir().unwrap();
    let opts = format!(
        "--rw randwrite --bs 4k -q 4 --size 16M --runtime 4s --ss {LOOSE} --ss-dur 2s \
         --ss-keep-going --no-tui"
    );
    let (out, record) = bench_ok(dir.path(), &args(dir.path(), &opts));
    assert_eq!(record["segments"][0]["stop_reason"], "runtime");
    let elapsed = secs(&record["elapsed_ns"]);
    assert!(elapsed >= 3.9, "ran to its runtime: {elapsed}");
    let job = only_job(&record);
    let ss = &job["steadystate"];
    assert_eq!(ss["attained"], 1, "{ss:#}");
    assert_eq!(ss["stopped_run"], false);
    assert_eq!(ss["keep_going"], true);
    // Every flagged sample is out of the criterion, after it was attained.
    let departures = ss["departures"].as_array().unwrap();
    assert_eq!(
        ss["departure_count"].as_u64().unwrap(),
        departures.len() as u64
    );
    for d in departures {
        assert!(
            d["criterion"].as_f64().unwrap_or(f64::INFINITY) >= 60.0,
            "{d}"
        );
        assert!(d["t_ns"].as_u64() > ss["attained_at_ns"].as_u64());
    }
    let flagged = stderr(&out).matches("steady state left at").count();
    assert_eq!(flagged, departures.len(), "{}", stderr(&out));
    assert!(stderr(&out).contains("keeping going to the runtime"));
    // The writes: one point per interval, GiB written rising to what the run wrote.
    let writes = &job["sustained_write"];
    let points = writes["points"].as_array().unwrap();
    assert!(points.len() >= 4, "{writes:#}");
    let gib: Vec<f64> = points.iter().map(|p| p[0].as_f64().unwrap()).collect();
    assert!(gib.windows(2).all(|w| w[0] < w[1]), "{gib:?}");
    let written = writes["written_bytes"].as_u64().unwrap();
    assert_eq!(written, job["write"]["io_bytes"].as_u64().unwrap());
    assert!((gib.last().unwrap() - written as f64 / f64::from(1u32 << 30)).abs() < 1e-9);
    assert_eq!(writes["threshold_pct"], 30.0);
    assert!(stdout(&out).contains("  writes  "), "{}", stdout(&out));
}

#[test]
fn bad_settings_are_one_line_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "--ss iops",
            r#"--ss "iops" is not a criterion; use iops, iops_slope, bw, bw_slope, lat or lat_slope"#,
        ),
        (
            "--ss iops:-2% --ss-dur 5s",
            r#"--ss "iops:-2%": the limit must be a number above 0"#,
        ),
        ("--ss lat:50 --ss-dur 5s", "a time for lat (lat:50us)"),
        (
            "--ss iops:2%",
            r#"--ss "iops:2%" needs a steady-state window; add --ss-dur 30s"#,
        ),
        (
            "--ss-keep-going",
            "--ss-keep-going needs a steady-state window; add --ss-dur 30s",
        ),
        (
            "--ss iops:2% --ss-dur 1s",
            r#"--ss-dur "1s" must be whole seconds, at least 2"#,
        ),
        (
            "--ss iops:2% --ss-dur 2500ms",
            r#"--ss-dur "2500ms" must be whole seconds"#,
        ),
        (
            "--ss iops:2% --ss-dur soon",
            r#"--ss-dur "soon" is not a duration"#,
        ),
        (
            "--ss iops:2% --ss-dur 5s --ss-ramp later",
            r#"--ss-ramp "later" is not a duration"#,
        ),
        (
            "--ss iops:2% --ss-dur 5s --runtime 8760h",
            "--ss-dur needs a runtime cap to stop at when steady state is not reached; add --runtime 10m",
        ),
        ("--cliff 0", r#"--cliff "0" is not a drop in percent"#),
        ("--cliff 120%", r#"--cliff "120%" is not a drop in percent"#),
    ];
    // In this process (`support::inproc`): exit 2 and the one line.
    for (opts, want) in cases {
        let opts_tui = format!("{opts} --no-tui");
        let err = inproc::usage_error(&[&["bench"][..], &args(dir.path(), &opts_tui)].concat());
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{opts}: {err}");
        assert!(lines[0].starts_with("error: "), "{opts}: {err}");
        assert!(lines[0].contains(want), "{opts}: {err}\nwant: {want}");
    }
    // End to end once, by the binary.
    let (opts, want) = cases[0];
    let out = bench(dir.path(), &args(dir.path(), &format!("{opts} --no-tui")));
    assert_one_line(&out, want, opts);
    // Nothing ran: no scratch file, no record.
    assert!(!dir.path().join(RECORD).exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Exit 2 and one `error: ` line holding `want`.
fn assert_one_line(out: &Output, want: &str, what: &str) {
    assert_usage_error(out);
    let err = stderr(out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: {err}");
    assert!(lines[0].starts_with("error: "), "{what}: {err}");
    assert!(lines[0].contains(want), "{what}: {err}\nwant: {want}");
}

const JOB_FILE: &str = "\
[global]
ioengine=io_uring
direct=1
time_based
runtime=30
size=16M

[steady]
filename=ss-data
rw=randread
bs=4k
iodepth=4
steadystate=iops:60%
ss_dur=3
ss_ramp=1
";

#[test]
fn a_job_file_s_steadystate_keys_stop_the_job_and_fio_json_carries_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ss.fio"), JOB_FILE).unwrap();
    let out = fio(
        dir.path(),
        &["ss.fio", "--output-format=json", "--json", RECORD],
    );
    assert_success(&out);
    let record = record_in(dir.path());
    assert_eq!(record["segments"][0]["stop_reason"], "steady_state");
    let job = only_job(&record);
    assert_eq!(job["job"]["steadystate"]["criterion"], "iops:60%");
    assert_eq!(job["job"]["steadystate"]["ramp_ns"], 1_000_000_000u64);
    let ss = &job["steadystate"];
    assert_eq!(ss["attained"], 1);
    // The ramp: the first sample starts after a second, so attaining takes 1 + 3 s.
    assert!(secs(&ss["attained_at_ns"]) >= 4.0 - 0.01, "{ss:#}");
    assert!(secs(&ss["data"]["t_ns"][0]) >= 2.0 - 0.01, "{ss:#}");
    assert!(secs(&record["elapsed_ns"]) < 30.0);
    // fio's JSON: the same object where fio puts it.
    let doc: Value = serde_json::from_slice(&out.stdout).expect("fio's JSON on stdout");
    let fio_ss = &doc["jobs"][0]["steadystate"];
    for key in [
        "ss",
        "duration",
        "attained",
        "criterion",
        "max_deviation",
        "slope",
    ] {
        assert_eq!(fio_ss[key], ss[key], "{key}");
    }
    for key in ["bw_mean", "iops_mean", "iops", "bw"] {
        assert_eq!(fio_ss["data"][key], ss["data"][key], "{key}");
    }
}

#[test]
fn job_files_and_sweeps_refuse_what_bench_refuses() {
    let dir = tempfile::tempdir().unwrap();
    // fio's ss_dur defaults to off; without runtime a time-less job has no cap.
    let file = JOB_FILE.replace("time_based\nruntime=30\n", "");
    std::fs::write(dir.path().join("nocap.fio"), file).unwrap();
    let out = fio(dir.path(), &["nocap.fio"]);
    assert_one_line(
        &out,
        // Named as the line gives it (ss_dur, fio's alias of steadystate_duration).
        "nocap.fio:12: ss_dur needs a runtime cap to stop at when steady state is not reached; \
         add runtime=10m",
        "no runtime",
    );
    let file = JOB_FILE.replace("ss_dur=3\n", "");
    std::fs::write(dir.path().join("nodur.fio"), file).unwrap();
    let out = fio(dir.path(), &["nodur.fio"]);
    assert_one_line(
        &out,
        r#"nodur.fio:13: steadystate "iops:60%" needs a steady-state window; add steadystate_duration=30s"#,
        "no ss_dur",
    );
    let out = fio(
        dir.path(),
        &["--name=x", "--size=16M", "--ss=bogus:1", "--ss_dur=3"],
    );
    assert_one_line(
        &out,
        // Named as given (--ss, fio's alias of --steadystate).
        r#"--ss "bogus:1" is not a criterion"#,
        "fio line",
    );
    let out = Command::new(BIN)
        .args(["sweep", "--bs", "4k,8k", "--ss", "iops:1%", "--points"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_one_line(
        &out,
        r#"--ss "iops:1%" needs a steady-state window"#,
        "sweep",
    );
}

#[test]
fn each_sweep_point_runs_until_steady() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args([
            "sweep",
            "--bs",
            "4k,16k",
            "--size",
            "16M",
            "-q",
            "4",
            "--runtime",
            "30s",
            // No 2 s warm-up per point: the criterion is judged from the point's start.
            "--ramp",
            "0s",
        ])
        .args(["--ss", LOOSE, "--ss-dur", "2s", "--json", RECORD])
        .output()
        .unwrap();
    assert_success(&out);
    let record = record_in(dir.path());
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    for step in steps {
        assert_eq!(step["stop_reason"], "steady_state", "{step:#}");
        assert_eq!(step["jobs"][0]["steadystate"]["attained"], 1);
        assert!(secs(&step["elapsed_ns"]) < 30.0);
    }
    assert_eq!(stderr(&out).matches("steady state attained at").count(), 2);
}

/// A step of two jobs, one with a criterion: it is judged on its own I/O, and the step stops
/// when it attains; the other job has no steady-state object.
#[test]
fn in_a_step_of_two_jobs_the_one_with_a_criterion_ends_the_step() {
    let dir = tempfile::tempdir().unwrap();
    let file = "\
[global]
ioengine=io_uring
direct=1
time_based
runtime=30
size=16M
bs=4k
iodepth=4

[judged]
filename=judged-data
rw=randread
ss=iops:60%
ss_dur=3

[along]
filename=along-data
rw=randwrite
";
    std::fs::write(dir.path().join("two.fio"), file).unwrap();
    let out = fio(dir.path(), &["two.fio", "--json", RECORD]);
    assert_success(&out);
    let record = record_in(dir.path());
    let step = &record["segments"][0];
    assert_eq!(step["stop_reason"], "steady_state");
    let jobs = step["jobs"].as_array().unwrap();
    assert_eq!(jobs[0]["name"], "judged");
    assert_eq!(jobs[0]["steadystate"]["attained"], 1);
    assert!(jobs[0].get("sustained_write").is_none(), "it only reads");
    assert!(jobs[1].get("steadystate").is_none());
    assert!(
        jobs[1]["sustained_write"]["written_bytes"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(
        stderr(&out).contains("judged: steady state attained at "),
        "{}",
        stderr(&out)
    );
}
