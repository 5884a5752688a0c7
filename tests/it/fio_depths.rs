//! fio's depth tables, page faults and job header from what the workers saw: a psync job at
//! depth 1, and an io_uring job at depth 8 beside real fio (/usr/bin/fio, 3.33) on the same
//! file.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::*;

/// A 1 s random read of 4 KiB blocks of `file` with `engine` at `depth`, fio's arguments.
fn job_args(file: &Path, engine: &str, depth: u32) -> Vec<String> {
    [
        "--name=j".to_string(),
        format!("--filename={}", file.display()),
        "--size=8m".into(),
        "--rw=randread".into(),
        "--bs=4k".into(),
        format!("--ioengine={engine}"),
        format!("--iodepth={depth}"),
        "--runtime=1".into(),
        "--time_based".into(),
    ]
    .to_vec()
}

fn run(program: &str, pre: &[&str], args: &[String], post: &[&str], dir: &Path) -> Output {
    let out = Command::new(program)
        .args(pre)
        .args(args)
        .args(post)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{program}: {}", stderr(&out));
    out
}

/// The first job of a fio JSON document on stdout.
fn first_job(out: &Output) -> Value {
    let doc: Value = serde_json::from_str(&stdout(out)).unwrap();
    doc["jobs"][0].clone()
}

/// A depth table's percentages in fio's key order.
fn table(job: &Value, key: &str) -> Vec<(String, f64)> {
    let keys: &[&str] = if key == "iodepth_level" {
        &["1", "2", "4", "8", "16", "32", ">=64"]
    } else {
        &["0", "4", "8", "16", "32", "64", ">=64"]
    };
    keys.iter()
        .map(|k| {
            let pct = job[key][*k]
                .as_f64()
                .unwrap_or_else(|| panic!("{key}.{k} in {job}"));
            ((*k).to_string(), pct)
        })
        .collect()
}

/// The key holding most of a table.
fn mode(table: &[(String, f64)]) -> String {
    table
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| k.clone())
        .unwrap()
}

/// A table of counts as fio gives them sums to 100% (each slot with a count is shown as at
/// least 0.1%, so a little over at most).
fn assert_whole(job: &Value, key: &str) {
    let sum: f64 = table(job, key).iter().map(|(_, p)| p).sum();
    assert!((99.9..=100.7).contains(&sum), "{key} sums to {sum}: {job}");
}

fn data_file(dir: &Path) -> std::path::PathBuf {
    let file = dir.join("data");
    std::fs::write(&file, vec![0x5a_u8; 8 << 20]).unwrap();
    file
}

#[test]
fn a_psync_job_at_depth_1_is_one_io_per_call_at_depth_1() {
    let dir = tempfile::tempdir().unwrap();
    let file = data_file(dir.path());
    let args = job_args(&file, "psync", 1);
    let out = run(
        BIN,
        &["fio", "--no-tui"],
        &args,
        &["--output-format=json", "--json=r.json"],
        dir.path(),
    );
    let job = first_job(&out);
    assert_eq!(
        table(&job, "iodepth_level")[0],
        ("1".into(), 100.0),
        "{job}"
    );
    assert_eq!(
        table(&job, "iodepth_submit")[1],
        ("4".into(), 100.0),
        "{job}"
    );
    assert_eq!(
        table(&job, "iodepth_complete")[1],
        ("4".into(), 100.0),
        "{job}"
    );
    for key in ["iodepth_level", "iodepth_submit", "iodepth_complete"] {
        assert_whole(&job, key);
    }
    let doc = stdout(&out);
    assert!(!doc.contains("predates the counted"), "{doc}");
    // The record keeps the counts: as many I/Os by depth as were issued, one submit and one
    // reap call each.
    let record = read_json(&dir.path().join("r.json"));
    let rec_job = &record["segments"][0]["jobs"][0];
    let depths = &rec_job["io_depths"];
    let ios = rec_job["read"]["total_ios"].as_u64().unwrap();
    let count = |key: &str, slot: usize| depths[key][slot].as_u64().unwrap();
    assert!(ios > 100, "{rec_job}");
    assert_eq!(count("level", 0), ios, "{depths}");
    assert_eq!((count("submit", 1), count("complete", 1)), (ios, ios));
    // Page faults as getrusage counts them, in the JSON report and the record.
    assert!(job["majf"].is_u64() && job["minf"].is_u64(), "{job}");
    assert_eq!(rec_job["cpu"]["minf"], job["minf"]);
    assert!(rec_job["pid"].as_u64().unwrap() > 0, "{rec_job}");
}

/// The normal report's header is fio's: `j: (groupid=0, jobs=1): err= 0: pid=N: <ctime>`,
/// with the job's worker thread id, and its file under diskdash's notes.
#[test]
fn the_job_header_has_fio_s_pid_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let file = data_file(dir.path());
    let args = job_args(&file, "psync", 1);
    let out = run(BIN, &["fio", "--no-tui"], &args, &[], dir.path());
    let text = stdout(&out);
    let head = text.lines().find(|l| l.contains("(groupid=")).unwrap();
    let rest = head
        .strip_prefix("j: (groupid=0, jobs=1): err= 0: pid=")
        .unwrap_or_else(|| panic!("{head}"));
    let (pid, time) = rest.split_once(": ").unwrap();
    let pid: u32 = pid.parse().unwrap_or_else(|_| panic!("{head}"));
    assert!(pid > 0);
    // ctime's shape: `Sun Nov 29 14:36:25 2026`.
    let words: Vec<&str> = time.split_whitespace().collect();
    assert_eq!(words.len(), 5, "{head}");
    assert_eq!(words[3].matches(':').count(), 2, "{head}");
    let note = format!("  j (pid {pid}): {}", file.display());
    assert!(text.lines().any(|l| l.starts_with(&note)), "{text}");
}

/// io_uring at depth 8, diskdash and fio on the same file: the depth at submission and the
/// I/Os per submit and per reap land in the same slot; each table is whole.
#[test]
fn an_io_uring_job_at_depth_8_lands_in_fio_s_slots() {
    let dir = tempfile::tempdir().unwrap();
    let file = data_file(dir.path());
    let args = job_args(&file, "io_uring", 8);
    let fio = first_job(&run(
        "fio",
        &[],
        &args,
        &["--output-format=json"],
        dir.path(),
    ));
    let ours = first_job(&run(
        BIN,
        &["fio", "--no-tui"],
        &args,
        &["--output-format=json"],
        dir.path(),
    ));
    for key in ["iodepth_level", "iodepth_submit", "iodepth_complete"] {
        assert_eq!(
            mode(&table(&ours, key)),
            mode(&table(&fio, key)),
            "{key}: diskdash {:?}, fio {:?}",
            table(&ours, key),
            table(&fio, key)
        );
        assert_whole(&ours, key);
    }
    assert_eq!(mode(&table(&ours, "iodepth_level")), "8");
}
