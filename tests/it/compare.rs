//! `diskdash compare BASE.json NEW.json` on records of real short runs: the table, the JSON
//! object, the exit codes of `--max-regression` (a regression made by editing a copy of a real
//! record) and the errors for files that are not records.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::record::bench;
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

fn compare(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("compare")
        .args(args)
        .output()
        .expect("running diskdash")
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A copy of `from` as `name` in the same directory, edited by `edit`.
fn edited(from: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut json = read_json(from);
    edit(&mut json);
    let path = from.with_file_name(name);
    std::fs::write(&path, serde_json::to_string(&json).unwrap()).unwrap();
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
}

#[test]
fn max_regression_gates_on_a_halved_copy_of_a_real_io_uring_record() {
    let dir = tempfile::tempdir().unwrap();
    let base = record(dir.path(), "base.json", &["--rw", "randread"]);
    let recorded = read_json(&base);
    assert_eq!(recorded["engine"]["used"], "io_uring");

    // The same record against itself: no change at all passes even a 0% gate.
    let out = compare(&["--max-regression", "0", s(&base), s(&base)]);
    assert_success(&out);
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("max regression 0%: passed\n"),
        "{}",
        stdout(&out)
    );

    let halved = edited(&base, "halved.json", |r| {
        let read = &mut r["read"];
        read["iops"] = (read["iops"].as_f64().unwrap() / 2.0).into();
        read["bw_bytes"] = (read["bw_bytes"].as_u64().unwrap() / 2).into();
        let p99 = &mut read["lat_ns"]["percentile"]["99.000000"];
        *p99 = (p99.as_u64().unwrap() * 3).into();
    });
    let out = compare(&["--max-regression", "10", s(&base), s(&halved)]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(
        lines[0].starts_with("regression: read IOPS fell 50.0% ("),
        "{err}"
    );
    assert!(
        lines[1].starts_with("regression: read bandwidth fell 50.0% ("),
        "{err}"
    );
    assert!(
        lines[2].starts_with("regression: read lat p99 rose 200.0% ("),
        "{err}"
    );
    assert!(
        lines
            .iter()
            .all(|l| l.ends_with("more than the 10% allowed")),
        "{err}"
    );
    let text = stdout(&out);
    assert!(text.contains("-50.0%  WORSE"), "{text}");
    assert!(text.contains("+200.0%  WORSE"), "{text}");

    // Within a wider gate, and as JSON the regressions are listed the same.
    let out = compare(&["--max-regression", "250", s(&base), s(&halved)]);
    assert_success(&out);
    let out = compare(&["--json", "--max-regression", "60", s(&base), s(&halved)]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["max_regression_pct"], 60.0);
    let regressions = json["regressions"].as_array().unwrap();
    assert_eq!(regressions.len(), 1, "{json}");
    assert_eq!(regressions[0]["metric"], "lat_p99_ns");
    assert_eq!(regressions[0]["change_pct"], 200.0);

    // In the other direction the same numbers are improvements.
    let out = compare(&["--max-regression", "10", s(&halved), s(&base)]);
    assert_success(&out);
    assert!(stdout(&out).contains("+100.0%  better"), "{}", stdout(&out));
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
        "\nsync (0 -> ",
    ] {
        assert!(text.contains(want), "no {want:?} in:\n{text}");
    }
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
    let cases: [(Vec<&str>, String); 6] = [
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
    ];
    for (args, want) in cases {
        let out = compare(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.starts_with(&want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(stdout(&out).is_empty());
    }
}

#[test]
fn trims_are_compared_and_gated_like_reads_and_writes() {
    let dir = tempfile::tempdir().unwrap();
    let base = record(dir.path(), "base.json", &["--rw", "randtrim"]);
    assert!(read_json(&base)["trim"]["total_ios"].as_u64().unwrap() > 0);
    let out = compare(&[s(&base), s(&base)]);
    assert_success(&out);
    let text = stdout(&out);
    assert!(!text.contains("no I/O in either run"), "{text}");
    assert!(text.contains("trim"), "{text}");

    let halved = edited(&base, "halved.json", |r| {
        let trim = &mut r["trim"];
        trim["iops"] = (trim["iops"].as_f64().unwrap() / 2.0).into();
    });
    let out = compare(&["--max-regression", "10", s(&base), s(&halved)]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("regression: trim IOPS fell 50.0% ("),
        "{}",
        stderr(&out)
    );
}
