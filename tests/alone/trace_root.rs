//! `--trace` on the disk the tests run on (vda here), not a loop device: every busy interval of
//! `diskdash iostat -x --trace` agrees with /proc/diskstats while two fio processes share the
//! disk, one reading and writing at QD8 and one reading at QD32. Here, not in `it`: the check is
//! per interval of the whole disk, so no other test may use the disk meanwhile.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::support::block_trace::{assert_busy_intervals_agree, disk_of};
use crate::support::*;

const FIO: &str = "/usr/bin/fio";

/// fio on `file` (laid out already), 4 KiB direct io_uring I/O at `depth`, for `seconds`.
fn fio(file: &Path, rw: &str, depth: u32, seconds: u32) -> Child {
    Command::new(FIO)
        .args([
            "--name=root",
            &format!("--filename={}", file.display()),
            &format!("--rw={rw}"),
            "--bs=4k",
            "--direct=1",
            "--ioengine=io_uring",
            // Its job a thread of the one process: killing the process ends its I/O.
            "--thread",
            &format!("--iodepth={depth}"),
            "--time_based",
            &format!("--runtime={seconds}"),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("fio runs")
}

/// The case that once read a whole time of seconds for a few requests an interval: a request
/// the driver handed back (`block_rq_requeue`) and issued again left its first issue waiting
/// for the next completion on its sector.
#[test]
#[ignore = "needs root, tracefs and fio"]
fn every_busy_interval_of_the_root_disk_agrees_with_diskstats_beside_two_fio_processes() {
    require_root();
    assert!(
        Path::new(FIO).exists(),
        "this test needs fio at {FIO} (.ci/run installs it)"
    );
    // The crate's target directory is on a disk (the system's /tmp may be tmpfs).
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let Some(disk) = disk_of(dir.path()) else {
        panic!("{} is on no block device", dir.path().display());
    };
    let files = ["a", "b"].map(|name| {
        let path = dir.path().join(name);
        // Written, not sparse: a hole reads as zeros without a request.
        std::fs::write(&path, vec![0xa5u8; 32 << 20]).unwrap();
        path
    });
    let writer = fio(&files[0], "randrw", 8, 10);
    let reader = fio(&files[1], "randread", 32, 10);
    // fio's start (its setup, no I/O yet) stays out of the intervals.
    std::thread::sleep(Duration::from_millis(700));
    let record = dir.path().join("rec.jsonl");
    let out = Command::new(BIN)
        .args(["iostat", "-d", "-x", "--trace", "--record"])
        .arg(&record)
        .args(["0.5", "12", &disk])
        .output()
        .unwrap();
    for mut child in [writer, reader] {
        let _ = child.kill();
        child.wait().unwrap();
    }
    assert_success(&out);
    assert_busy_intervals_agree(&record, &disk, true);
}
