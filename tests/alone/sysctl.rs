//! The io_uring fallback under a real denial: `kernel.io_uring_disabled=2` (root only).
//!
//! The sysctl is machine-wide, so these tests live in the `alone` test binary: `cargo test`
//! runs test binaries one after another, so no test of `it` is using io_uring while it is
//! set. Within this binary the tests take turns (one lock, for a run with more than one test
//! thread), each setting the sysctl only for its own run; the old value is restored on every
//! path, panics included.

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use crate::support::record::*;
use crate::support::*;

/// One test at a time sets the sysctl: two at once would restore each other's value.
static KNOB: Mutex<()> = Mutex::new(());

/// Runs `f` with `kernel.io_uring_disabled=2`, the old value back afterwards (panics too).
/// Fails, saying so, on a kernel without the sysctl (before 6.6).
fn with_io_uring_disabled<T>(f: impl FnOnce() -> T) -> T {
    let _turn = KNOB
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let knob = Path::new("/proc/sys/kernel/io_uring_disabled");
    let before = std::fs::read_to_string(knob).unwrap_or_else(|e| {
        panic!(
            "this test needs kernel.io_uring_disabled (Linux 6.6 or later): {}: {e}; run it on \
             such a kernel, or leave out --include-ignored",
            knob.display()
        )
    });
    struct Restore<'a>(&'a Path, String);
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            let _ = std::fs::write(self.0, self.1.trim());
        }
    }
    let _restore = Restore(knob, before);
    std::fs::write(knob, "2").unwrap();
    f()
}

#[test]
#[ignore = "needs root"]
fn io_uring_disabled_by_sysctl_falls_back_to_psync() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let out = with_io_uring_disabled(|| {
        bench(
            dir.path(),
            &["--runtime", "200ms", "--size", "8M", "--json", "r.json"],
        )
    });
    assert!(out.status.success(), "{}", stderr(&out));
    let record = read_json(&dir.path().join("r.json"));
    assert_eq!(record["engine"]["used"], "psync");
    assert!(
        record["engine"]["fallback"]
            .as_str()
            .unwrap()
            .contains("EPERM"),
        "{}",
        record["engine"]
    );
}

/// A depth sweep under the sysctl: each row says psync ran it one I/O at a time, and the
/// depth-32 point is not called the best.
#[test]
#[ignore = "needs root"]
fn a_sweep_under_the_sysctl_says_psync_ran_each_point_at_depth_1() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let out = with_io_uring_disabled(|| {
        Command::new(BIN)
            .args([
                "sweep",
                "--iodepth",
                "1,32",
                "--size",
                "8M",
                "--runtime",
                "200ms",
                "--ramp",
                "0s",
                "--no-tui",
            ])
            .current_dir(dir.path())
            .env_remove("DISKDASH_URING_DISABLED")
            .output()
            .expect("running diskdash")
    });
    assert_success(&out);
    let text = stdout(&out);
    let q32 = text
        .lines()
        .find(|l| l.starts_with("32 "))
        .unwrap_or_else(|| panic!("no iodepth=32 row: {text}"));
    assert!(
        q32.contains("  fell back to psync (io_uring unavailable), ran at iodepth 1"),
        "{text}"
    );
    assert!(
        !text.contains("best read"),
        "a point that fell back is never the best: {text}"
    );
    assert!(
        text.contains("(EPERM: permission denied); fell back to psync: all 2 points ran on psync"),
        "{text}"
    );
}
