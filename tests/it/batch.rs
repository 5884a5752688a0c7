//! fio's completion batching (`iodepth_batch_complete_min`, `iodepth_low`) as fio defines it,
//! proved by what reaches the kernel: `strace` counts of `io_uring_enter` and `io_getevents`
//! for one size-based job of 2048 I/Os (8 MiB of 4k reads at iodepth 32, submitted 8 at a
//! time), with and without the option, and beside fio 3.33 with the same job file.

use std::path::Path;
use std::process::Command;

use crate::support::{BIN, assert_success, assert_usage_error, stderr};

/// The job: 2048 direct 4k random reads at iodepth 32, 8 per submit; `extra` is appended.
fn job(dir: &Path, engine: &str, extra: &str) -> String {
    let name = format!("{engine}-{}.fio", extra.len());
    std::fs::write(
        dir.join(&name),
        format!(
            "[j]\nfilename=j.dat\nsize=8M\nrw=randread\nbs=4k\nioengine={engine}\niodepth=32\n\
             direct=1\niodepth_batch_submit=8\n{extra}"
        ),
    )
    .unwrap();
    name
}

/// `program args... file` under `strace -f -c`: how many times `syscall` was called.
fn calls(dir: &Path, program: &[&str], file: &str, syscall: &str) -> u64 {
    let out = Command::new("strace")
        .args(["-f", "-qq", "-c", "-e"])
        .arg(format!("trace={syscall}"))
        .args(["-o", "counts"])
        .args(program)
        .arg(file)
        .current_dir(dir)
        .output()
        .expect("strace runs (this test needs strace)");
    assert_success(&out);
    let counts = std::fs::read_to_string(dir.join("counts")).unwrap();
    counts
        .lines()
        .find(|l| l.trim_end().ends_with(&format!(" {syscall}")))
        .and_then(|l| l.split_whitespace().nth(3)?.parse().ok())
        .unwrap_or_else(|| panic!("no {syscall} in:\n{counts}"))
}

const DISKDASH: &[&str] = &[BIN, "fio", "--no-tui", "--output=o.json"];
const FIO: &[&str] = &["fio", "--output=o.txt"];

#[test]
fn complete_min_waits_for_that_many_completions_per_call() {
    let dir = tempfile::tempdir().unwrap();
    for (engine, syscall) in [("io_uring", "io_uring_enter"), ("libaio", "io_getevents")] {
        let plain = job(dir.path(), engine, "");
        let batched = job(
            dir.path(),
            engine,
            "iodepth_batch_complete_min=8\niodepth_batch_complete_max=32\n",
        );
        let before = calls(dir.path(), DISKDASH, &plain, syscall);
        let after = calls(dir.path(), DISKDASH, &batched, syscall);
        // One call per I/O by default (each waits for one); a call per 8 at the least.
        assert!(before >= 1800, "{engine}: {before} {syscall} by default");
        assert!(
            after * 4 <= before,
            "{engine}: {after} {syscall} with min 8, {before} without"
        );
    }
}

#[test]
fn iodepth_low_drains_the_queue_before_refilling() {
    let dir = tempfile::tempdir().unwrap();
    let plain = job(dir.path(), "io_uring", "");
    let low = job(dir.path(), "io_uring", "iodepth_low=4\n");
    let before = calls(dir.path(), DISKDASH, &plain, "io_uring_enter");
    let after = calls(dir.path(), DISKDASH, &low, "io_uring_enter");
    // Refilled 28 at a time (4 submits) after 28 one-by-one reaps: about 2048 * 8/28 calls
    // where keeping the queue full takes one per I/O.
    assert!(
        after * 3 <= before,
        "{after} io_uring_enter with iodepth_low=4, {before} without"
    );
}

#[test]
fn complete_min_0_polls_and_never_sleeps_in_the_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let poll = job(
        dir.path(),
        "io_uring",
        "iodepth_batch_complete_min=0\niodepth_batch_complete_max=32\n",
    );
    let plain = job(dir.path(), "io_uring", "");
    // Every io_uring_enter's third argument (min_complete) is 0 when polling, 1 (for the
    // reaps) by default.
    let min_completes = |file: &str| -> Vec<String> {
        let out = Command::new("strace")
            .args(["-f", "-qq", "-e", "trace=io_uring_enter", "-o", "calls"])
            .args(DISKDASH)
            .arg(file)
            .current_dir(dir.path())
            .output()
            .expect("strace runs (this test needs strace)");
        assert_success(&out);
        let calls = std::fs::read_to_string(dir.path().join("calls")).unwrap();
        calls
            .lines()
            .filter_map(|l| l.split_once("io_uring_enter(")?.1.split(", ").nth(2))
            .map(String::from)
            .collect()
    };
    let polled = min_completes(&poll);
    assert!(polled.len() > 256, "{} calls", polled.len());
    assert!(polled.iter().all(|m| m == "0"), "{polled:?}");
    assert!(min_completes(&plain).iter().any(|m| m == "1"));
}

#[test]
fn batching_that_fio_would_lower_silently_is_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    // A job file names each option by its line: iodepth is line 7, the extra lines 10 and 11.
    for (extra, says) in [
        (
            "iodepth_batch_complete_min=64\n",
            ":10: iodepth_batch_complete_min 64 exceeds {f}:7: iodepth 32; use 0 to 32",
        ),
        (
            "iodepth_batch_complete_min=16\niodepth_batch_complete_max=8\n",
            ":10: iodepth_batch_complete_min 16 exceeds {f}:11: iodepth_batch_complete_max 8; \
             raise {f}:11: iodepth_batch_complete_max or lower {f}:10: \
             iodepth_batch_complete_min",
        ),
        (
            "iodepth_low=33\n",
            ":10: iodepth_low 33 exceeds {f}:7: iodepth 32; use 0 to 32",
        ),
    ] {
        let file = job(dir.path(), "io_uring", extra);
        let says = format!("error: {file}{}", says.replace("{f}", &file));
        let out = Command::new(BIN)
            .args(["fio", "--no-tui", "--output=o.json"])
            .arg(&file)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_usage_error(&out);
        assert_eq!(stderr(&out).trim(), says);
    }
}

/// Beside fio 3.33, same job file: as many calls as fio makes, within a quarter (the reaps
/// of the last, partial batch and fio's own end-of-job calls differ).
#[test]
#[ignore = "needs fio"]
fn batching_makes_as_many_calls_as_fio() {
    let dir = tempfile::tempdir().unwrap();
    for (engine, syscall, extra) in [
        (
            "io_uring",
            "io_uring_enter",
            "iodepth_batch_complete_min=8\niodepth_batch_complete_max=32\n",
        ),
        ("io_uring", "io_uring_enter", "iodepth_low=4\n"),
        (
            "libaio",
            "io_getevents",
            "iodepth_batch_complete_min=8\niodepth_batch_complete_max=32\n",
        ),
        ("libaio", "io_submit", "iodepth_low=4\n"),
    ] {
        let file = job(dir.path(), engine, extra);
        let ours = calls(dir.path(), DISKDASH, &file, syscall);
        let fio = calls(dir.path(), FIO, &file, syscall);
        assert!(
            ours * 4 <= fio * 5 && fio * 4 <= ours * 5,
            "{engine} {extra:?}: diskdash {ours} {syscall}, fio {fio}"
        );
    }
}
