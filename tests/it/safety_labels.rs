//! Words that say what ran: engine fallbacks in sweep and mark rows, interrupted points never best, RLIMIT_MEMLOCK named.
//!
//! io_uring is denied here with `DISKDASH_URING_DISABLED=1`, which makes ring setup fail with
//! EPERM exactly as `kernel.io_uring_disabled=2` does (the sysctl itself is flipped only in
//! tests/bench_sysctl.rs, alone); the memory-lock limit is a real `ulimit -l` on the child.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::support::record::{RECORD, record_in};
use crate::support::*;

/// `diskdash CMD ARGS --no-tui` in `dir`, io_uring denied as the sysctl denies it.
fn without_uring(dir: &Path, cmd: &str, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg(cmd)
        .args(args)
        .arg("--no-tui")
        .current_dir(dir)
        .env("DISKDASH_URING_DISABLED", "1")
        .output()
        .expect("running diskdash")
}

/// The lines of `text` that start with `first` (a table's rows by their first cell).
fn row<'a>(text: &'a str, first: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(first))
        .unwrap_or_else(|| panic!("no row {first:?} in:\n{text}"))
}

#[test]
fn a_sweep_without_io_uring_says_in_each_row_that_psync_ran_at_depth_1() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = [
        "--iodepth",
        "1,32",
        "--size",
        "8M",
        "--runtime",
        "200ms",
        "--ramp",
        "0s",
    ];
    let out = without_uring(
        dir.path(),
        "sweep",
        &[&sweep[..], &["--json", RECORD], &TRUST_NOTHING[..]].concat(),
    );
    assert_success(&out);
    let text = stdout(&out);
    // Both points ran psync, the depth-32 one a single I/O at a time: their rows say so and
    // neither is the best, a peak or a knee, whatever its numbers.
    let q32 = row(&text, "32 ");
    assert!(
        q32.ends_with("fell back to psync (io_uring unavailable), ran at iodepth 1"),
        "{text}"
    );
    assert!(
        row(&text, "1 ").ends_with("  fell back to psync (io_uring unavailable)"),
        "{text}"
    );
    assert!(!text.contains("best read"), "{text}");
    assert!(
        text.contains(
            "io_uring unavailable (EPERM: permission denied); fell back to psync: all 2 points \
             ran on psync, one I/O at a time per worker"
        ),
        "{text}"
    );
    assert!(!text.contains("peaks at"), "{text}");
    assert_stderr_has(
        &out,
        "point 2/2: iodepth=32 (randread bs=4k iodepth=32 numjobs=1 io_uring direct; runs on \
         psync at iodepth 1)",
    );
    // The foot's fallback line above is said from the steps; the record keeps no text of
    // it, only what ran.
    let record = record_in(dir.path());
    assert!(record["sweep"].get("statements").is_none(), "{record}");
    let engines: Vec<&Value> = record["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["engine"])
        .collect();
    assert_eq!(engines, [&Value::from("psync"); 2], "{record}");
    // JSON and CSV say the engine and the depth that ran, row by row.
    let out = without_uring(
        dir.path(),
        "sweep",
        &[&sweep[..], &["--format", "json"]].concat(),
    );
    assert_success(&out);
    let table: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rows = table["rows"].as_array().unwrap();
    for row in rows {
        assert_eq!(
            (&row["engine"], &row["iodepth"]),
            (&"psync".into(), &1.into()),
            "{row}"
        );
    }
    assert_eq!(
        rows[1]["ran"],
        "fell back to psync (io_uring unavailable), ran at iodepth 1"
    );
    assert_eq!(table["best_read"], Value::Null, "{table}");
    let out = without_uring(
        dir.path(),
        "sweep",
        &[&sweep[..], &["--format", "csv"], &TRUST_NOTHING[..]].concat(),
    );
    assert_success(&out);
    let csv = stdout(&out);
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .ends_with(",engine,ran_iodepth,status,page_cache,spread_pct,marks,notes"),
        "{csv}"
    );
    // Its trust marks say the fallback too.
    let q32 = row(&csv, "32,");
    assert!(q32.contains(",psync,1,completed,false,"), "{csv}");
    assert!(q32.ends_with(",fallback,"), "{csv}");
}

#[test]
fn mark_without_io_uring_says_its_q32_tests_ran_at_q1() {
    let dir = tempfile::tempdir().unwrap();
    let mark = [
        "--profile",
        "peak",
        "--size",
        "16M",
        "--runtime",
        "200ms",
        "--loops",
        "1",
    ];
    let out = without_uring(dir.path(), "mark", &mark);
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        row(&text, "RND4K Q32T1").ends_with("ran psync at Q1T1"),
        "{text}"
    );
    assert!(
        row(&text, "SEQ1M Q8T1").ends_with("ran psync at Q1T1"),
        "{text}"
    );
    assert!(
        text.contains("16 MiB working set, psync, O_DIRECT"),
        "{text}"
    );
    assert!(
        text.contains("fell back to psync: psync runs one I/O at a time"),
        "{text}"
    );
    assert!(!text.contains("io_uring, O_DIRECT"), "{text}");
    assert_stderr_has(&out, "io_uring direct on ");
    assert_stderr_has(&out, "; runs on psync at iodepth 1\n");
    let out = without_uring(
        dir.path(),
        "mark",
        &[&mark[..], &["--format", "json"]].concat(),
    );
    assert_success(&out);
    let summary: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(summary["engine"], "psync");
    for row in summary["rows"].as_array().unwrap() {
        assert_eq!(
            (&row["engine"], &row["iodepth"]),
            (&"psync".into(), &1.into()),
            "{row}"
        );
        assert_eq!(row["notes"][0], "ran psync at Q1T1", "{row}");
    }
}

/// `diskdash bench ARGS --json r.json` in `dir` under `ulimit -l KIB`. As root the child
/// also loses CAP_IPC_LOCK, without which the kernel charges io_uring's memory to the limit.
fn bench_memlock(dir: &Path, kib: u32, args: &[&str]) -> Output {
    let script = format!("ulimit -l {kib} && exec \"$0\" \"$@\"");
    let mut cmd = if is_root() {
        let mut cmd = Command::new("setpriv");
        cmd.args([
            "--inh-caps=-ipc_lock",
            "--bounding-set=-ipc_lock",
            "sh",
            "-c",
        ]);
        cmd
    } else {
        let mut cmd = Command::new("sh");
        cmd.arg("-c");
        cmd
    };
    cmd.arg(script)
        .arg(BIN)
        .arg("bench")
        .args(args)
        .args(["--json", RECORD, "--no-tui"])
        .current_dir(dir)
        .env_remove("DISKDASH_URING_DISABLED")
        .output()
        .expect("running diskdash under ulimit -l")
}

#[test]
fn no_locked_memory_names_rlimit_memlock_and_falls_back() {
    let dir = tempfile::tempdir().unwrap();
    let small = ["--size", "8M", "--runtime", "200ms"];
    // No locked memory at all: not even a ring. psync runs, and the note says why and how.
    let out = bench_memlock(dir.path(), 0, &small);
    assert_success(&out);
    assert_stderr_has(
        &out,
        "WARNING: io_uring unavailable (ENOMEM: RLIMIT_MEMLOCK (ulimit -l) is 0 B, too little for \
         io_uring's rings and registered buffers; raise it (ulimit -l 65536",
    );
    assert!(
        !stderr(&out).contains("setting up io_uring"),
        "{}",
        stderr(&out)
    );
    let record = record_in(dir.path());
    assert_eq!(record["engine"]["used"], "psync");
    let fallback = record["engine"]["fallback"].as_str().unwrap();
    assert!(fallback.contains("RLIMIT_MEMLOCK"), "{fallback}");
    // Room for a ring but not for 32 x 4 KiB of registered buffers: io_uring with plain
    // addresses, the note naming the limit.
    let out = bench_memlock(dir.path(), 64, &small);
    assert_success(&out);
    let record = record_in(dir.path());
    assert_eq!(record["engine"]["used"], "io_uring", "{}", record["engine"]);
    assert_eq!(record["engine"]["registered_buffers"], false);
    let notes = record["engine"]["notes"].to_string();
    assert!(
        notes.contains(
            "buffer registration failed (ENOMEM: the buffers lock 128 KiB and RLIMIT_MEMLOCK \
             (ulimit -l) is 64 KiB"
        ),
        "{notes}"
    );
}

#[test]
fn a_sweep_point_cut_short_by_sigint_is_never_the_best() {
    let dir = tempfile::tempdir().unwrap();
    // 4k then 1M reads one at a time: the 1M point moves far more MB/s even in part of its
    // time, so an interrupted 1M point would win "best" on bandwidth alone.
    let mut child = Command::new(BIN)
        .args([
            "sweep",
            "--bs",
            "4k,1M",
            "--rw",
            "randread",
            "-q",
            "1",
            "--size",
            "16M",
            "--runtime",
            "1500ms",
            "--ramp",
            "0s",
            "--interval",
            "200ms",
            "--no-tui",
            "--json",
            RECORD,
        ])
        // Only the cut is judged here: no trust mark.
        .args(TRUST_NOTHING)
        .current_dir(dir.path())
        .env_remove("DISKDASH_URING_DISABLED")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting diskdash");
    let stderr = child.stderr.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // The second point is measuring: its line, then a status line after it.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    let mut second = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = lines.recv_timeout(left) else {
            let _ = child.kill();
            panic!("the second point never measured; stderr: {seen:#?}");
        };
        second |= line.starts_with("point 2/2");
        let measuring = second && line.starts_with('[');
        seen.push(line);
        if measuring {
            break;
        }
    }
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap());
    kill(pid, Signal::SIGINT).unwrap();
    let out = child.wait_with_output().unwrap();
    seen.extend(lines.iter());
    assert_eq!(out.status.code(), Some(130), "{seen:#?}");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(row(&text, "1M ").ends_with("  interrupted"), "{text}");
    assert!(!row(&text, "1M ").contains("best"), "{text}");
    assert!(row(&text, "4k ").ends_with("  best read"), "{text}");
    assert!(text.contains("read peaks at 4k: "), "{text}");
    let record = record_in(dir.path());
    assert_eq!(record["status"], "interrupted");
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{seen:#?}");
    assert_eq!(steps[1]["status"], "interrupted");
    let bw = |s: &Value| s["read"]["bw_bytes"].as_u64().unwrap();
    // What made the old table call it best: more bandwidth than the completed point.
    assert!(bw(&steps[1]) > bw(&steps[0]), "{steps:#?}");
    // No finding names the interrupted point.
    let analysis = record["sweep"]["analysis"].to_string();
    assert!(!analysis.contains("1M"), "{analysis}");
}
