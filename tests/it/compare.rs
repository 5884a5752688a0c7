//! `diskdash compare BASE.json NEW.json` on records of real short runs: the table, the JSON
//! object, the exit codes of `--max-regression` (a regression made by editing a copy of a real
//! record) and the errors for files that are not records.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::compare::{compare, cut, edited, s};
use crate::support::record::{assert_valid_compare, assert_valid_record, bench};
use crate::support::{BIN, assert_success, read_json, stderr, stdout};
use serde_json::Value;

/// Records a short run in `dir` as `name`: 32 MiB, 300 ms.
fn record(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut all = vec!["--no-tui", "--size", "32M", "--runtime", "300ms", "--json"];
    let shown = path.to_string_lossy().into_owned();
    all.push(&shown);
    all.extend_from_slice(args);
    assert_success(&bench(dir, &all));
    path
}

#[test]
fn a_pair_of_null_runs_is_one_job_compared_per_metric() {
    let dir = tempfile::tempdir().unwrap();
    let a = record(dir.path(), "a.json", &["--ioengine", "null"]);
    let b = record(dir.path(), "b.json", &["--ioengine", "null"]);
    let out = compare(&[s(&a), s(&b)]);
    assert_success(&out);
    let text = stdout(&out);
    let (ra, rb) = (read_json(&a), read_json(&b));
    for want in [
        format!("diskdash compare: base {}, new {}", s(&a), s(&b)),
        "  base    randread bs=4k iodepth=32 numjobs=1 null direct".into(),
        "  job     the same\n".into(),
        format!(
            "read ({} -> {} I/Os)",
            ra["read"]["total_ios"], rb["read"]["total_ios"]
        ),
    ] {
        assert!(text.contains(&want), "no {want:?} in:\n{text}");
    }
    for label in [
        "IOPS",
        "bandwidth",
        "lat mean",
        "lat p50",
        "lat p90",
        "lat p99",
        "lat p99.9",
        "lat max",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("  {label:<12}")))
            .unwrap_or_else(|| panic!("no {label} row in:\n{text}"));
        assert!(line.contains('%'), "{line}");
    }
    assert!(!text.contains("write ("), "{text}");

    let out = compare(&["--json", s(&a), s(&b)]);
    assert_success(&out);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["format"], "diskdash-compare");
    assert_eq!(json["same_job"], true);
    assert_eq!(json["base"]["engine"], "null");
    assert_eq!(json["directions"].as_array().unwrap().len(), 1);
    let iops = &json["directions"][0]["metrics"][0];
    assert_eq!(iops["metric"], "iops");
    assert_eq!(iops["base"], ra["read"]["iops"]);
    assert_eq!(iops["new"], rb["read"]["iops"]);
    let (base, new) = (
        iops["base"].as_f64().unwrap(),
        iops["new"].as_f64().unwrap(),
    );
    let change = iops["change_pct"].as_f64().unwrap();
    assert!(
        (change - (new - base) / base * 100.0).abs() < 1e-9,
        "{iops}"
    );
    assert_eq!(json["regressions"], serde_json::json!([]));
    assert_valid_compare(&json);
    // 300 ms at the default 1 s interval: too few intervals for a verdict either way.
    assert_eq!(iops["verdict"], "insufficient_data", "{iops}");
    assert_eq!(iops["interval"], Value::Null);
    assert_eq!(json["jobs"][0]["name"], "bench");
    assert!(
        text.contains("insufficient data (1 -> 1 intervals)"),
        "{text}"
    );
    assert!(
        !text.contains("better") && !text.contains("WORSE"),
        "{text}"
    );
}

#[test]
fn a_short_run_is_insufficient_data_and_the_gate_says_what_it_could_not_judge() {
    let dir = tempfile::tempdir().unwrap();
    let base = record(dir.path(), "base.json", &["--ioengine", "null"]);
    let cut = cut(&base, "cut.json", "read", 10);
    let out = compare(&["--max-regression", "5", s(&base), s(&cut)]);
    assert_success(&out);
    let err = stderr(&out);
    assert!(
        err.starts_with("note: --max-regression could not judge 7 metrics (insufficient data"),
        "{err}"
    );
    assert!(
        err.contains("read IOPS, read bandwidth, read lat mean, read lat p50, read lat p90"),
        "{err}"
    );
    assert!(
        stdout(&out).contains("insufficient data"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn different_jobs_are_flagged_and_every_direction_is_compared() {
    let dir = tempfile::tempdir().unwrap();
    let base = record(
        dir.path(),
        "null.json",
        &["--ioengine", "null", "--rw", "randrw"],
    );
    let new = record(
        dir.path(),
        "sync.json",
        &["--rw", "randrw", "--fdatasync", "8"],
    );
    let out = compare(&[s(&base), s(&new)]);
    assert_success(&out);
    let text = stdout(&out);
    for want in [
        "  job     DIFFERENT: ioengine null -> io_uring, fdatasync off -> 8\n",
        "  WARNING DIFFERENT JOBS (ioengine, fdatasync): the table compares two workloads",
        "  note    the runs used different engines: null -> io_uring\n",
        "\nread (",
        "\nwrite (",
        // The first run made nothing durable: no durable latency, no sync calls compared.
        "only the new run made writes durable, so no durable latency is compared",
        "only in new: durable mean (writes made durable) (listed, not compared)\n",
        "only in new: sync calls (listed, not compared)\n",
    ] {
        assert!(text.contains(want), "no {want:?} in:\n{text}");
    }
    assert!(!text.contains("\n  durable mean"), "{text}");
    assert!(!text.contains("\nsync ("), "{text}");
    let json: Value =
        serde_json::from_str(&stdout(&compare(&["--json", s(&base), s(&new)]))).unwrap();
    assert_eq!(json["same_job"], false);
    let keys: Vec<&str> = json["job_differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["ioengine", "fdatasync"]);
    assert_eq!(json["job_differences"][1]["new"], 8);
}

#[test]
fn files_that_are_not_records_and_bad_percentages_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let good = record(dir.path(), "good.json", &["--ioengine", "null"]);
    let missing = dir.path().join("missing.json");
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not json\n").unwrap();
    let future = edited(&good, "future.json", |r| r["format_version"] = 99.into());
    let interval = edited(&good, "interval.json", |r| {
        r["format"] = "diskdash-bench-interval".into();
    });
    let cases: [(Vec<&str>, String); 7] = [
        (
            vec![s(&good), s(&missing)],
            format!("error: cannot read {}: ", s(&missing)),
        ),
        (
            vec![s(&text), s(&good)],
            format!("error: {} is not a diskdash run record (not JSON", s(&text)),
        ),
        (
            vec![s(&good), s(&interval)],
            format!(
                "error: {} is not a diskdash run record (its format is \"diskdash-bench-interval\"",
                s(&interval)
            ),
        ),
        (
            vec![s(&future), s(&good)],
            format!(
                "error: {} has record format_version 99, this diskdash reads versions 2 to 7; ",
                s(&future)
            ),
        ),
        (
            vec!["--max-regression", "ten", s(&good), s(&good)],
            "error: --max-regression \"ten\" is not a percentage; use a number of 0 or more".into(),
        ),
        (
            vec!["--max-regression", "-5", s(&good), s(&good)],
            "error: --max-regression \"-5\" is not a percentage; use a number of 0 or more".into(),
        ),
        (
            vec!["--noise-floor", "lots", s(&good), s(&good)],
            "error: --noise-floor \"lots\" is not a percentage; use a number of 0 or more".into(),
        ),
    ];
    // In this process (`support::inproc`): exit 2 and the one line.
    for (args, want) in &cases {
        let err = crate::support::inproc::usage_error(&[&["compare"][..], args].concat());
        assert!(err.starts_with(want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // End to end once: the binary's stderr, its exit code, nothing on stdout.
    let (args, want) = &cases[0];
    let out = compare(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    let err = stderr(&out);
    assert!(err.starts_with(want), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(stdout(&out).is_empty());
}

/// Two jobs at once on the null engine, 300 ms, intervals of 10 ms.
const TWO_JOBS: &str = "[global]\nioengine=null\nsize=16m\nbs=4k\ntime_based\nruntime=300ms\n\
                        [a]\nrw=randread\n[b]\nrw=randwrite\n";

#[test]
fn a_two_job_record_is_compared_job_by_job_with_fio_group_totals() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("two.fio"), TWO_JOBS).unwrap();
    let run = |name: &str| {
        let out = Command::new(BIN)
            .args([
                "fio",
                "two.fio",
                "--status-interval",
                "10ms",
                "--no-tui",
                "--json",
                name,
            ])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_success(&out);
        dir.path().join(name)
    };
    let (base, new) = (run("a.json"), run("b.json"));
    let record = read_json(&base);
    assert_valid_record(&record);
    let jobs = record["segments"][0]["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert!(
        jobs.iter()
            .all(|j| j["series"].as_array().unwrap().len() >= 20),
        "{jobs:?}"
    );

    let out = compare(&["--json", s(&base), s(&new)]);
    assert_success(&out);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_valid_compare(&json);
    assert_eq!(json["directions"], serde_json::json!([]));
    let names: Vec<&str> = json["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"]);
    // Job a read only, job b wrote only: each compared in its own direction.
    assert_eq!(json["jobs"][0]["directions"][0]["direction"], "read");
    assert_eq!(json["jobs"][1]["directions"][0]["direction"], "write");
    let a_iops = &json["jobs"][0]["directions"][0]["metrics"][0];
    assert_eq!(a_iops["base"], jobs[0]["read"]["iops"]);
    assert_eq!(a_iops["samples"]["unit"], "batch_means");
    assert!(a_iops["interval"]["low_pct"].is_number(), "{a_iops}");
    // Jobs sharing a step keep no histograms of their own: their percentiles are shown only.
    let a_p99 = json["jobs"][0]["directions"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "lat_p99_ns")
        .unwrap();
    assert_eq!(a_p99["verdict"], "not_judged", "{a_p99}");
    assert_eq!(a_p99["why_not_judged"], "no histograms", "{a_p99}");
    // And the comparison says exactly why, once, naming the jobs.
    assert!(
        json["notices"].as_array().unwrap().iter().any(|n| n["text"]
            .as_str()
            .unwrap()
            .starts_with(
                "percentiles of a, b are shown, not judged (no histograms): each shared its step"
            )),
        "{}",
        json["notices"]
    );
    // The group: fio's READ line, the jobs' bytes over the longest job.
    let group = &json["groups"][0];
    assert_eq!(group["jobs"], serde_json::json!(["a", "b"]));
    let read_bw = &group["directions"][0]["metrics"][1];
    // Over the jobs that read (fio's group line is per direction): job a alone here.
    let longest = jobs
        .iter()
        .filter(|j| j["read"]["total_ios"].as_u64().unwrap() > 0)
        .map(|j| {
            j["read"]["runtime_ns"]
                .as_u64()
                .unwrap_or(j["elapsed_ns"].as_u64().unwrap())
        })
        .max()
        .unwrap();
    let bytes = jobs[0]["read"]["io_bytes"].as_f64().unwrap();
    let want = (bytes * 1e9 / longest as f64).round();
    assert_eq!(read_bw["base"].as_f64().unwrap(), want, "{group}");

    let text = stdout(&compare(&[s(&base), s(&new)]));
    for want in [
        "job a (group 0):\n",
        "job b (group 0):\n",
        "group 0 totals (a, b; fio's group line: the jobs' bytes over the longest job):\n",
        "compared job by job, matched by name",
    ] {
        assert!(text.contains(want), "no {want:?} in:\n{text}");
    }

    // A job renamed in the new run is listed, not compared.
    let renamed = edited(&new, "renamed.json", |r| {
        r["segments"][0]["jobs"][1]["name"] = "c".into()
    });
    let json: Value =
        serde_json::from_str(&stdout(&compare(&["--json", s(&base), s(&renamed)]))).unwrap();
    assert_valid_compare(&json);
    assert_eq!(
        json["unmatched_jobs"],
        serde_json::json!(["b (base only)", "c (new only)"])
    );
    assert_eq!(json["jobs"].as_array().unwrap().len(), 1);
}

/// A real fleet run (hosts `n1` and `n2`, both this machine through a local ssh) of a job
/// file of null-engine jobs, `rest` after its `[global]` section's common lines, and its
/// record compared with itself as JSON (checked against the schema).
fn fleet_compared_with_itself(d: &Path, name: &str, rest: &str) -> (PathBuf, Value) {
    let jobs = d.join(name);
    let text = format!("[global]\nioengine=null\nsize=4m\nbs=4k\ntime_based\n{rest}");
    std::fs::write(&jobs, text).unwrap();
    let record = crate::report::fleet(
        d,
        "fleet.json",
        &["fio", s(&jobs), "--status-interval", "10ms"],
    );
    let out = compare(&["--json", s(&record), s(&record)]);
    assert_success(&out);
    let cmp: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_valid_compare(&cmp);
    (record, cmp)
}

/// A fleet whose hosts each ran a job file of two jobs (hosts `n1` and `n2`, both this
/// machine through a local ssh), compared with itself: `compare` matches it per host and job
/// (`n1: a`...), each judged on its own interval series (before: per host, with no series to
/// judge), as the report's comparison of the same records does.
#[test]
fn fleet_records_of_several_jobs_compare_per_host_and_job() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (record, cmp) = fleet_compared_with_itself(
        d,
        "two.fio",
        "runtime=600ms\n[a]\nrw=randread\n[b]\nrw=randwrite\n",
    );
    let names: Vec<&str> = cmp["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["n1: a", "n1: b", "n2: a", "n2: b"], "{cmp}");
    for (job, direction) in cmp["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(["read", "write", "read", "write"])
    {
        let dirs = job["directions"].as_array().unwrap();
        assert_eq!(dirs.len(), 1, "{job}");
        assert_eq!(dirs[0]["direction"], direction, "{job}");
        let iops = &dirs[0]["metrics"][0];
        assert_eq!(iops["metric"], "iops", "{job}");
        assert!(
            iops["samples"]["base"].as_u64().unwrap() >= 2 && iops["interval"].is_object(),
            "judged on the job's own series: {job}"
        );
        // A host's jobs shared its step: the record keeps no histogram of each.
        let p99 = metric(job, "lat_p99_ns");
        assert_eq!(p99["why_not_judged"], "no histograms", "{job}");
    }
    let why = cmp["notices"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["text"].as_str())
        .find(|t| t.contains("not judged"))
        .unwrap_or_else(|| panic!("{}", cmp["notices"]));
    assert!(
        why.starts_with("percentiles of n1: a, n1: b, n2: a, n2: b are shown, not judged"),
        "{why}"
    );

    let html = d.join("compare.html");
    let run = Command::new(BIN)
        .args(["report", s(&record), s(&record), "-o", s(&html)])
        .output()
        .unwrap();
    assert_success(&run);
    let page = std::fs::read_to_string(&html).unwrap();
    for row in ["#2 n1: a read IOPS", "#2 n2: b write IOPS"] {
        let at = page
            .find(&format!("<tr><td>{row}</td>"))
            .unwrap_or_else(|| panic!("{row}: {page:.3000}"));
        let line = page[at..].lines().next().unwrap();
        assert!(
            line.contains(" .. "),
            "{row}: judged, with its interval: {line}"
        );
    }
}

/// The metric `metric` of the first direction of `job` in a `compare --json` object.
fn metric<'v>(job: &'v Value, metric: &str) -> &'v Value {
    job["directions"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == metric)
        .unwrap_or_else(|| panic!("no {metric} in {job}"))
}

/// A fleet whose hosts each ran a stonewalled job file (`a`, then `b` alone in its step),
/// compared with itself: every step's jobs are compared, named `HOST: JOB` as a plain
/// record's jobs are named by theirs (before: each host's jobs were named by the host in
/// every step, and only the first step's were compared), each judged on its own series, its
/// percentiles too (the host's step series keeps their histograms; before: "no histograms"),
/// in the text, the JSON and the report's comparison.
#[test]
fn a_stonewalled_fleet_compares_every_steps_jobs_with_their_percentiles() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (record, cmp) = fleet_compared_with_itself(
        d,
        "steps.fio",
        "runtime=400ms\n[a]\nrw=randread\n[b]\nstonewall\nrw=randwrite\n",
    );
    let all = cmp["jobs"].as_array().unwrap();
    let names: Vec<&str> = all.iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["n1: a", "n2: a", "n1: b", "n2: b"], "{cmp}");
    assert_eq!(cmp["unmatched_jobs"], Value::Null, "{cmp}");
    for (job, direction) in all.iter().zip(["read", "read", "write", "write"]) {
        let dirs = job["directions"].as_array().unwrap();
        assert_eq!(dirs.len(), 1, "{job}");
        assert_eq!(dirs[0]["direction"], direction, "{job}");
        let iops = metric(job, "iops");
        assert!(
            iops["samples"]["base"].as_u64().unwrap() >= 2 && iops["interval"].is_object(),
            "judged on the job's own series: {job}"
        );
        let p99 = metric(job, "lat_p99_ns");
        assert_eq!(p99["samples"]["unit"], "batch_percentiles", "{job}");
        assert!(p99["interval"].is_object(), "{job}");
        assert_eq!(p99["verdict"], "no_change", "{job}");
        assert_eq!(p99.get("why_not_judged"), None, "{job}");
    }
    assert!(
        !cmp["notices"].to_string().contains("not judged"),
        "{}",
        cmp["notices"]
    );

    let text = stdout(&compare(&[s(&record), s(&record)]));
    for want in ["job n1: b (group 1):\n", "job n2: b (group 1):\n"] {
        assert!(text.contains(want), "no {want:?} in:\n{text}");
    }
    assert!(!text.contains("not judged: no histograms"), "{text}");

    let html = d.join("compare.html");
    let run = Command::new(BIN)
        .args(["report", s(&record), s(&record), "-o", s(&html)])
        .output()
        .unwrap();
    assert_success(&run);
    let page = std::fs::read_to_string(&html).unwrap();
    for row in [
        "#2 n1: b write IOPS",
        "#2 n2: b write lat p99",
        "#2 n1: a read lat p99",
    ] {
        let at = page
            .find(&format!("<tr><td>{row}</td>"))
            .unwrap_or_else(|| panic!("{row}: {page:.3000}"));
        let line = page[at..].lines().next().unwrap();
        assert!(
            line.contains(" .. "),
            "{row}: judged, with its interval: {line}"
        );
    }
}
