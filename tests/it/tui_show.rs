//! `diskdash show RUN.json`: a real recorded run opened in the dashboard (tmux), and the
//! errors for files that are not records.

use std::process::Command;
use std::time::Duration;

use crate::support::BIN;
use crate::support::tmux::{self, Tmux};

const WAIT: Duration = Duration::from_secs(20);

#[test]
#[ignore = "needs tmux"]
fn a_recorded_run_opens_with_its_charts_latency_and_device() {
    tmux::require();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args(["bench", "--no-tui", "--size", "16M", "--runtime", "2s"])
        .args(["--interval", "250ms", "--json"])
        .arg(&record)
        .output()
        .unwrap();
    crate::support::assert_success(&out);

    let t = Tmux::start("show", &["show", &record.to_string_lossy()], &[], 120, 40);
    let screen = t.wait_for("the recorded run", WAIT, |s| s.contains("RECORDED"));
    for text in [
        "throughput and IOPS",
        "latency, submit to completion",
        "p99.9",
        "randread bs=4k",
        "(completed)",
    ] {
        assert!(screen.contains(text), "no {text:?} in:\n{screen}");
    }
    // Latency over time by default, from the record's per-interval histograms.
    assert!(screen.contains("read latency over time"), "{screen}");
    t.send(&["h"]);
    let screen = t.wait_for("the histogram", WAIT, |s| s.contains("whole run"));
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    // The histogram as recorded: every read counted in the run's buckets, and the panel draws
    // them (last step beside the whole run) instead of saying there are none.
    let histogram = &recorded["read"]["lat_ns"]["histogram"];
    let counted: u64 = histogram["count"]
        .as_array()
        .expect("the run's read histogram")
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(counted, recorded["read"]["total_ios"].as_u64().unwrap());
    assert!(
        screen.contains("last segment") && screen.contains("whole run"),
        "{screen}"
    );
    assert!(!screen.contains("no histogram"), "{screen}");
    let bars = screen
        .lines()
        .filter(|l| l.contains("<=") && l.contains('%'))
        .count();
    assert!(bars >= 2, "histogram rows in:\n{screen}");
    // The device panel appears when the record has the device (not on tmpfs, say).
    if recorded["device"].is_object() {
        assert!(
            screen.contains("(iostat -x)") && screen.contains("device/app"),
            "{screen}"
        );
    }
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
}

#[test]
fn files_that_are_not_records_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let not_record = dir.path().join("other.json");
    std::fs::write(&not_record, "{\"hello\": 1}").unwrap();
    let cases = [
        (&missing, "cannot read"),
        (&not_record, "is not a diskdash run record"),
    ];
    // In this process (`support::inproc`): exit 2 and the one line.
    for (path, says) in cases {
        let err = crate::support::inproc::usage_error(&["show", path.to_str().unwrap()]);
        assert!(
            err.contains(says) && err.contains("diskdash bench --json"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // End to end once, by the binary.
    let (path, says) = cases[0];
    let out = Command::new(BIN).arg("show").arg(path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(says) && err.contains("diskdash bench --json"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A record of four jobs at once (`diskdash fio`) opens with its jobs table: one row per job
/// over its run, and the step's total.
#[test]
#[ignore = "needs tmux"]
fn a_recorded_plan_opens_with_its_jobs() {
    tmux::require();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("plan.json");
    let mut args: Vec<String> = ["fio", "--no-tui", "--size=4M", "--direct=1"]
        .map(String::from)
        .to_vec();
    for (name, rw, bs) in [
        ("write128", "write", "128k"),
        ("randread128", "randread", "128k"),
        ("write256", "write", "256k"),
        ("randread256", "randread", "256k"),
    ] {
        args.extend([
            format!("--name={name}"),
            format!("--rw={rw}"),
            format!("--bs={bs}"),
            format!("--filename={name}"),
        ]);
    }
    args.extend(["--json".to_string(), record.to_string_lossy().into_owned()]);
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args(&args)
        .output()
        .unwrap();
    crate::support::assert_success(&out);

    let t = Tmux::start(
        "show-plan",
        &["show", &record.to_string_lossy()],
        &[],
        120,
        40,
    );
    let screen = t.wait_for("the recorded plan", WAIT, |s| s.contains("RECORDED"));
    assert!(
        screen.contains("jobs of the last step, each over its run"),
        "{screen}"
    );
    for name in ["write128", "randread128", "write256", "randread256"] {
        assert!(
            screen.lines().any(|l| l.contains(&format!("│ {name} "))),
            "no row {name:?} in:\n{screen}"
        );
    }
    assert!(screen.contains("step total"), "{screen}");
    assert!(screen.contains("4 jobs: write128, randread128"), "{screen}");
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0);
}

/// A recorded sweep opens with its results panel: every point as it ended.
#[test]
#[ignore = "needs tmux"]
fn a_recorded_sweep_opens_with_its_results() {
    tmux::require();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("sweep.json");
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args([
            "sweep",
            "--no-tui",
            "--ioengine",
            "null",
            "--bs",
            "4k,16k,64k",
        ])
        .args([
            "--size",
            "8M",
            "--runtime",
            "200ms",
            "--ramp",
            "0s",
            "--json",
        ])
        .arg(&record)
        .output()
        .unwrap();
    crate::support::assert_success(&out);
    let t = Tmux::start(
        "show-sweep",
        &["show", &record.to_string_lossy()],
        &[],
        160,
        50,
    );
    let screen = t.wait_for("the recorded sweep", WAIT, |s| s.contains("RECORDED"));
    assert!(screen.contains("sweep over: 3 of 3 points"), "{screen}");
    for bs in ["4k", "16k", "64k"] {
        assert!(
            screen
                .lines()
                .any(|l| l.contains(&format!("│ {bs} ")) || l.contains(&format!("│  {bs} "))),
            "no row {bs} in:\n{screen}"
        );
    }
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0);
}

/// A recorded run with steady state and writes: `show` redraws the steady-state line as it
/// ended and the sustained-write chart from the record. The writes are paced (500 IOPS), so
/// the shortest window (2 s) attains whatever else the machine or its disk is doing.
#[test]
#[ignore = "needs tmux"]
fn a_recorded_steady_state_run_shows_its_line_and_write_curve() {
    tmux::require();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args([
            "bench",
            "--no-tui",
            "--rw",
            "randwrite",
            "--size",
            "16M",
            "-q",
            "4",
        ])
        .args([
            "--rate-iops",
            "500",
            "--runtime",
            "30s",
            "--ss",
            "iops:60%",
            "--ss-dur",
            "2s",
            "--json",
        ])
        .arg(&record)
        .output()
        .unwrap();
    crate::support::assert_success(&out);
    let t = Tmux::start(
        "show-ss",
        &["show", &record.to_string_lossy()],
        &[],
        160,
        50,
    );
    let screen = t.wait_for("the recorded run", WAIT, |s| s.contains("RECORDED"));
    assert!(
        // When it attains depends on the machine: at the end of the 2 s window or later.
        screen.contains("steady state iops:60% over 2s")
            && screen.contains("ATTAINED at ")
            && screen.contains("s, stopping"),
        "{screen}"
    );
    assert!(
        screen.contains("sustained writes: MiB/s against GiB written"),
        "{screen}"
    );
}

/// fio's group line's bandwidth in MiB/s (`   READ: bw=125MiB/s (131MB/s), ...`), from the
/// report's text; `None` when the report has no such line.
fn group_line_mib(report: &str, dir: &str) -> Option<f64> {
    let line = report
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{dir}: bw=")))?;
    let bw = line.split("bw=").nth(1)?.split_whitespace().next()?;
    let (number, unit) = bw.split_at(bw.find(|c: char| c.is_ascii_alphabetic())?);
    let scale = match unit {
        "KiB/s" => 1.0 / 1024.0,
        "MiB/s" => 1.0,
        "GiB/s" => 1024.0,
        _ => return None,
    };
    Some(number.parse::<f64>().ok()? * scale)
}

/// `show` of a real step of three jobs, the writer running twice as long as the readers: the
/// step total is fio's group lines (each direction's bytes over its longest job), so it agrees
/// with the job rows above it and with the run's own `READ:`/`WRITE:` lines, instead of the
/// readers' bytes spread over the writer's time.
#[test]
fn a_recorded_step_s_total_agrees_with_its_jobs_and_fio_s_group_lines() {
    let dir = tempfile::tempdir().unwrap();
    let jobfile = dir.path().join("three.fio");
    std::fs::write(
        &jobfile,
        "[global]\nsize=4M\nbs=64k\nioengine=psync\ntime_based\n\
         [r1]\nrw=read\nruntime=1\nrate=8m\n[r2]\nrw=read\nruntime=1\nrate=4m\n\
         [w]\nrw=write\nruntime=2\nrate=4m\n",
    )
    .unwrap();
    let record = dir.path().join("three.json");
    let report = dir.path().join("three.txt");
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .arg("fio")
        .arg(&jobfile)
        .arg(format!("--output={}", report.display()))
        .arg("--json")
        .arg(&record)
        .output()
        .unwrap();
    crate::support::assert_success(&out);
    let report = std::fs::read_to_string(&report).unwrap();

    let diskdash::testing::record::Loaded::Run(run) =
        diskdash::testing::record::load_any(&record).unwrap()
    else {
        panic!("a run record");
    };
    let view =
        diskdash::testing::tui::view_of_job(&run, diskdash::testing::tui::UiState::default(), None);
    let jobs = view.jobs.expect("the step's jobs table");
    assert_eq!(jobs.rows.len(), 3);
    let mib = |bytes_per_s: f64| bytes_per_s / 1_048_576.0;
    let rows: f64 = jobs.rows.iter().map(|r| mib(r.bytes_per_s)).sum();
    let total = mib(jobs.total.bytes_per_s);
    // Each row is over its own job's time, the total over each direction's longest job: equal
    // but for the readers' few milliseconds apart.
    assert!(
        (total - rows).abs() <= 0.05 * rows,
        "step total {total:.2} MiB/s beside rows adding up to {rows:.2} MiB/s"
    );
    let read = group_line_mib(&report, "READ").expect("a READ: line");
    let write = group_line_mib(&report, "WRITE").expect("a WRITE: line");
    // fio's lines keep three significant digits.
    assert!(
        (total - (read + write)).abs() <= 0.02 * (read + write),
        "step total {total:.2} MiB/s; fio's group lines: READ {read} + WRITE {write}\n{report}"
    );
}
