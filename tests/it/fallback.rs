//! io_uring denied to the process, as a container's seccomp profile denies it: what ran
//! (psync, one I/O at a time) is what every output says, in fio's normal, JSON and terse
//! reports, bench's summary and record, a sweep, where a point that fell back is never the
//! best, and mark. The filter is the child's own ([`deny_io_uring`]); nothing machine-wide changes.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::record::{RECORD, record_in};
use crate::support::seccomp::deny_io_uring;
use crate::support::*;

/// `diskdash CMD ARGS --no-tui` in `dir` with io_uring_setup answering EPERM.
fn denied(dir: &Path, cmd: &str, args: &[&str]) -> Output {
    let mut command = Command::new(BIN);
    command
        .arg(cmd)
        .args(args)
        .arg("--no-tui")
        .current_dir(dir)
        .env_remove("DISKDASH_URING_DISABLED");
    deny_io_uring(&mut command)
        .output()
        .expect("running diskdash")
}

/// A 16 MiB random-read job asked for io_uring at depth 16, for about half a second.
const FIO_JOB: [&str; 9] = [
    "--name=r",
    "--filename=data",
    "--size=16m",
    "--rw=randread",
    "--bs=4k",
    "--direct=1",
    "--ioengine=io_uring",
    "--iodepth=16",
    "--runtime=500ms",
];

/// The stderr line every run says the fallback with.
const FELL_BACK: &str = "WARNING: io_uring unavailable (EPERM: permission denied); fell back to \
    psync: the jobs that asked for io_uring ran on psync at iodepth 1";

#[test]
fn fio_s_normal_json_and_terse_reports_say_psync_at_depth_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = denied(dir.path(), "fio", &FIO_JOB);
    assert_success(&out);
    assert_stderr_has(&out, FELL_BACK);
    let text = stdout(&out);
    assert!(
        text.contains("  ran psync at iodepth 1, not io_uring at iodepth 16: io_uring unavailable"),
        "{text}"
    );
    assert!(!text.contains("io_uring at iodepth 16\n"), "{text}");

    let out = denied(
        dir.path(),
        "fio",
        &[&FIO_JOB[..], &["--output-format=json"]].concat(),
    );
    assert_success(&out);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let job = &doc["jobs"][0];
    assert_eq!(job["job options"]["ioengine"], "psync", "{job}");
    assert_eq!(job["job options"]["iodepth"], "1", "{job}");
    assert_eq!(job["iodepth_level"]["1"], 100.0, "{job}");
    assert_eq!(job["iodepth_level"]["16"], 0.0, "{job}");
    let fallback = &job["diskdash"]["fallback"];
    assert_eq!(
        (&fallback["ioengine"], &fallback["iodepth"]),
        (&"io_uring".into(), &16.into()),
        "{job}"
    );
    assert_eq!(
        (&fallback["ran_ioengine"], &fallback["ran_iodepth"]),
        (&"psync".into(), &1.into()),
        "{job}"
    );
    assert!(
        fallback["why"].as_str().unwrap().contains("EPERM"),
        "{fallback}"
    );
    let warnings = doc["diskdash"]["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("ran on psync at iodepth 1")),
        "{warnings:?}"
    );

    let out = denied(dir.path(), "fio", &[&FIO_JOB[..], &["--minimal"]].concat());
    assert_success(&out);
    let terse = stdout(&out);
    let fields: Vec<&str> = terse.lines().next().unwrap().split(';').collect();
    // Terse v3: 5 fields, 41 per direction (read, write), 5 of CPU, then the depths 1, 2, 4,
    // 8, 16, 32, >=64.
    let depths = &fields[92..99];
    assert_eq!(
        depths,
        ["100.0%", "0.0%", "0.0%", "0.0%", "0.0%", "0.0%", "0.0%"],
        "{terse}"
    );
}

#[test]
fn bench_s_summary_and_record_say_what_ran() {
    let dir = tempfile::tempdir().unwrap();
    let out = denied(
        dir.path(),
        "bench",
        &[
            "--iodepth",
            "32",
            "--size",
            "16M",
            "--runtime",
            "500ms",
            "--json",
            RECORD,
        ],
    );
    assert_success(&out);
    assert_stderr_has(&out, FELL_BACK);
    let text = stdout(&out);
    assert!(
        text.starts_with("diskdash bench: randread bs=4k iodepth=1 numjobs=1 psync direct\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  asked   randread bs=4k iodepth=32 numjobs=1 io_uring direct\n"),
        "{text}"
    );
    assert!(text.contains("\n  engine  psync\n"), "{text}");
    let record = record_in(dir.path());
    assert_eq!(record["engine"]["used"], "psync");
    assert_eq!(
        record["job"]["ran_description"],
        "randread bs=4k iodepth=1 numjobs=1 psync direct"
    );
    assert_eq!(record["job"]["iodepth"], 32, "what was asked stays");
    assert_eq!(
        record["segments"][0]["job"]["ran_description"],
        record["job"]["ran_description"]
    );
    let typed = record["typed_warnings"].as_array().unwrap();
    let fallback = typed
        .iter()
        .find(|w| w["kind"] == "engine_fallback")
        .unwrap_or_else(|| panic!("no engine_fallback in {typed:?}"));
    assert_eq!(
        (
            &fallback["requested"],
            &fallback["used"],
            &fallback["iodepth"]
        ),
        (&"io_uring".into(), &"psync".into(), &1.into())
    );
}

#[test]
fn a_sweep_s_points_that_fell_back_are_never_best_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let mut sweep = vec![
        "--iodepth",
        "1,32",
        "--size",
        "8M",
        "--runtime",
        "200ms",
        "--ramp",
        "0s",
    ];
    // What the rows say of the fallback alone: no other mark.
    sweep.extend(TRUST_NOTHING);
    let out = denied(dir.path(), "sweep", &sweep);
    assert_success(&out);
    assert_stderr_has(&out, FELL_BACK);
    let text = stdout(&out);
    assert!(
        !text.contains("best read") && !text.contains("best write"),
        "{text}"
    );
    assert!(!text.contains("peaks at"), "{text}");
    let row = |first: &str| {
        text.lines()
            .find(|l| l.starts_with(first))
            .unwrap_or_else(|| panic!("no row {first:?} in:\n{text}"))
    };
    assert!(
        row("1 ").ends_with("  fell back to psync (io_uring unavailable)"),
        "{text}"
    );
    assert!(
        row("32 ").ends_with("  fell back to psync (io_uring unavailable), ran at iodepth 1"),
        "{text}"
    );
    assert!(
        text.contains("a point that fell back is never the best, a peak or a knee"),
        "{text}"
    );
    let out = denied(
        dir.path(),
        "sweep",
        &[&sweep[..], &["--format", "json"]].concat(),
    );
    assert_success(&out);
    let table: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(table["best_read"], Value::Null, "{table}");
    for row in table["rows"].as_array().unwrap() {
        assert_eq!(
            (&row["engine"], &row["iodepth"], &row["fell_back"]),
            (&"psync".into(), &1.into(), &true.into()),
            "{row}"
        );
    }
}

#[test]
fn mark_s_table_and_record_say_psync() {
    let dir = tempfile::tempdir().unwrap();
    let out = denied(
        dir.path(),
        "mark",
        &[
            "--profile",
            "peak",
            "--size",
            "16M",
            "--runtime",
            "200ms",
            "--loops",
            "1",
            "--json",
            RECORD,
        ],
    );
    assert_success(&out);
    assert_stderr_has(&out, FELL_BACK);
    let text = stdout(&out);
    assert!(
        text.contains("16 MiB working set, psync, O_DIRECT"),
        "{text}"
    );
    assert!(!text.contains("io_uring, O_DIRECT"), "{text}");
    let q32 = text
        .lines()
        .find(|l| l.starts_with("RND4K Q32T1"))
        .unwrap_or_else(|| panic!("no RND4K Q32T1 row in:\n{text}"));
    assert!(q32.ends_with("ran psync at Q1T1"), "{text}");
    let record = record_in(dir.path());
    assert_eq!(record["engine"]["used"], "psync");
    for step in record["segments"].as_array().unwrap() {
        assert_eq!(step["engine"], "psync", "{step}");
        assert!(
            step["job"]["ran_description"]
                .as_str()
                .is_some_and(|d| d.contains(" iodepth=1 ") && d.contains(" psync ")),
            "{}",
            step["job"]
        );
    }
    assert!(
        record["typed_warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["kind"] == "engine_fallback"),
        "{}",
        record["typed_warnings"]
    );
}
