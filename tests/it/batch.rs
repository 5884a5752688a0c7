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

/// `program args... file` under `strace -f -qq ARGS -o trace`: what strace wrote.
fn strace(dir: &Path, args: &[&str], program: &[&str], file: &str) -> String {
    let out = Command::new("strace")
        .args(["-f", "-qq"])
        .args(args)
        .args(["-o", "trace"])
        .args(program)
        .arg(file)
        .current_dir(dir)
        .output()
        .expect("strace runs (this test needs strace)");
    assert_success(&out);
    std::fs::read_to_string(dir.join("trace")).unwrap()
}

/// How many times `program args... file` called `syscall` (`strace -c`).
fn calls(dir: &Path, program: &[&str], file: &str, syscall: &str) -> u64 {
    let counts = strace(
        dir,
        &["-c", "-e", &format!("trace={syscall}")],
        program,
        file,
    );
    counts
        .lines()
        .find(|l| l.trim_end().ends_with(&format!(" {syscall}")))
        .and_then(|l| l.split_whitespace().nth(3)?.parse().ok())
        .unwrap_or_else(|| panic!("no {syscall} in:\n{counts}"))
}

/// Each `io_uring_enter` of `program args... file`: (to_submit, min_complete).
fn enters(dir: &Path, program: &[&str], file: &str) -> Vec<(u64, u64)> {
    strace(dir, &["-e", "trace=io_uring_enter"], program, file)
        .lines()
        .filter_map(|l| {
            let mut args = l.split_once("io_uring_enter(")?.1.split(", ").skip(1);
            Some((args.next()?.parse().ok()?, args.next()?.parse().ok()?))
        })
        .collect()
}

const DISKDASH: &[&str] = &[BIN, "fio", "--no-tui", "--output=o.json"];
const FIO: &[&str] = &["fio", "--output=o.txt"];

#[test]
#[ignore = "needs strace"]
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
#[ignore = "needs strace"]
fn iodepth_low_drains_the_queue_before_refilling() {
    let dir = tempfile::tempdir().unwrap();
    let plain = job(dir.path(), "io_uring", "");
    let low = job(dir.path(), "io_uring", "iodepth_low=4\n");
    let submitting = |file: &str| {
        let all = enters(dir.path(), DISKDASH, file);
        all.iter().filter(|(to_submit, _)| *to_submit > 0).count()
    };
    // Kept full, each completion is replaced at once: a call sends one I/O. Drained to 4, the
    // queue is refilled 28 at a time: 8, 8, 8 and 4, four calls per 28 I/Os (about 293).
    let before = submitting(&plain);
    let after = submitting(&low);
    assert!(before >= 1800, "{before} calls sent I/O by default");
    assert!(
        (250..=2048 * 4 / 28 + 16).contains(&after),
        "{after} calls sent I/O with iodepth_low=4"
    );
}

#[test]
#[ignore = "needs strace"]
fn complete_min_0_polls_and_never_sleeps_in_the_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let poll = job(
        dir.path(),
        "io_uring",
        "iodepth_batch_complete_min=0\niodepth_batch_complete_max=32\n",
    );
    let plain = job(dir.path(), "io_uring", "");
    // Every io_uring_enter's min_complete is 0 when polling, 1 (for the reaps) by default.
    let min_completes = |file: &str| -> Vec<u64> {
        enters(dir.path(), DISKDASH, file)
            .iter()
            .map(|c| c.1)
            .collect()
    };
    let polled = min_completes(&poll);
    assert!(polled.len() > 256, "{} calls", polled.len());
    assert!(polled.iter().all(|&m| m == 0));
    assert!(min_completes(&plain).contains(&1));
}

/// What fio adjusts at a job's start (init.c's `fixup_options`), `diskdash fio` adjusts too:
/// values above the depth lowered to it, a completion maximum under the minimum raised to it.
/// fio is silent; diskdash says it in one note line and records the values used. fio's
/// polling mode (min 0 without a max) is not supported: refused with the fix.
#[test]
fn batching_that_fio_adjusts_runs_adjusted_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, says, used) in [
        (
            "iodepth_batch_complete_min=64\n",
            "iodepth_batch_complete_min 64 -> 32 at iodepth 32, as fio runs it",
            (32, 32, 32),
        ),
        (
            "iodepth_batch_complete_min=16\niodepth_batch_complete_max=8\n",
            "iodepth_batch_complete_max 8 -> 16 (raised to the minimum), as fio runs it",
            (16, 16, 32),
        ),
        (
            "iodepth_low=33\n",
            "iodepth_low 33 -> 32 at iodepth 32, as fio runs it",
            (1, 1, 32),
        ),
    ] {
        let file = job(dir.path(), "io_uring", extra);
        let out = Command::new(BIN)
            .args([
                "fio",
                "--no-tui",
                "--output-format=json",
                "--output=o.json",
                "--json=r.json",
            ])
            .arg(&file)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_success(&out);
        let err = stderr(&out);
        assert!(
            err.lines()
                .any(|l| l.starts_with("note: ") && l.contains("job j: ") && l.ends_with(says)),
            "{extra:?}: {err}"
        );
        // fio's JSON keeps the options as written (as fio's does); the run record has the
        // values the job ran with.
        let read = |name: &str| -> serde_json::Value {
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(name)).unwrap()).unwrap()
        };
        let record = read("r.json");
        let job = &record["segments"][0]["job"];
        let (min, max, low) = used;
        // Absent: the default (a minimum of 1; a low watermark at the depth).
        let field = |name: &str, default: u64| job[name].as_u64().unwrap_or(default);
        assert_eq!(
            (
                field("iodepth_batch_complete_min", 1),
                field("iodepth_batch_complete", 1),
                field("iodepth_low", 32)
            ),
            (min, max, low),
            "{extra:?}: {job}"
        );
        let doc = read("o.json");
        assert_eq!(doc["jobs"][0]["read"]["total_ios"], 2048, "{extra:?}");
    }
    let file = job(dir.path(), "io_uring", "iodepth_batch_complete_min=0\n");
    let out = Command::new(BIN)
        .args(["fio", "--no-tui", "--output=o.json"])
        .arg(&file)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out).trim(),
        format!(
            "error: {file}:10: iodepth_batch_complete_min 0 without iodepth_batch_complete_max: \
             fio's polling mode (a reap after every queued I/O) is not supported; set \
             iodepth_batch_complete_max=32 to poll with the queue kept full, or raise {file}:10: \
             iodepth_batch_complete_min to 1 or more"
        )
    );
    // Both 0 written out is the same mode in fio (its `io_in_polling`): the same refusal,
    // not a complaint about the maximum's range. Loaded in this process (`support::inproc`).
    let file = job(
        dir.path(),
        "io_uring",
        "iodepth_batch_complete_min=0\niodepth_batch_complete_max=0\n",
    );
    let out = crate::support::inproc::fio_parse_only(dir.path(), &["--parse-only", &file]);
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out).trim(),
        format!(
            "error: {file}:10: iodepth_batch_complete_min 0 with {file}:11: \
             iodepth_batch_complete_max 0: fio's polling mode (a reap after every queued I/O) is \
             not supported; set iodepth_batch_complete_max=32 to poll with the queue kept full, \
             or raise {file}:10: iodepth_batch_complete_min to 1 or more"
        )
    );
}

/// Beside fio 3.33, same job file (2048 I/Os), by the calls' arguments and counts, which do
/// not depend on timing: with `iodepth_batch_complete_min=8` each wait asks the kernel for 8
/// (io_uring's `min_complete`; fio asks for what is left of 8 after what it found ready) and
/// libaio's `io_getevents` returns 8 at least, so 256 calls at most; with `iodepth_low=4` the
/// queue is refilled 28 at a time, in calls of 8, 8, 8 and 4 (about 293 that send I/O).
#[test]
#[ignore = "needs fio"]
fn batching_asks_the_kernel_what_fio_asks() {
    let dir = tempfile::tempdir().unwrap();
    let min8 = "iodepth_batch_complete_min=8\niodepth_batch_complete_max=32\n";
    let file = job(dir.path(), "io_uring", min8);
    for program in [DISKDASH, FIO] {
        let waits: Vec<u64> = enters(dir.path(), program, &file)
            .iter()
            .map(|c| c.1)
            .filter(|&m| m > 0)
            .collect();
        // Fewer where fewer are in flight at the end; fio's last wait asks for all that are
        // left.
        let (_, running) = waits.split_last().expect("waits");
        assert!(running.iter().all(|&m| m <= 8), "{program:?}: {waits:?}");
        let eights = waits.iter().filter(|&&m| m == 8).count();
        assert!(eights + 8 >= waits.len(), "{program:?}: {waits:?}");
    }
    let file = job(dir.path(), "libaio", min8);
    for program in [DISKDASH, FIO] {
        let n = calls(dir.path(), program, &file, "io_getevents");
        assert!(n <= 256 + 8, "{program:?}: {n} io_getevents");
    }
    let file = job(dir.path(), "io_uring", "iodepth_low=4\n");
    let sending = |program| {
        let all = enters(dir.path(), program, &file);
        all.iter().filter(|c| c.0 > 0).count() as u64
    };
    let (ours, fio) = (sending(DISKDASH), sending(FIO));
    let file = job(dir.path(), "libaio", "iodepth_low=4\n");
    let (aio_ours, aio_fio) = (
        calls(dir.path(), DISKDASH, &file, "io_submit"),
        calls(dir.path(), FIO, &file, "io_submit"),
    );
    for (what, ours, fio) in [("io_uring", ours, fio), ("libaio", aio_ours, aio_fio)] {
        assert!(
            ours.abs_diff(fio) * 10 <= fio,
            "{what} iodepth_low=4: diskdash sent I/O in {ours} calls, fio in {fio}"
        );
    }
}
