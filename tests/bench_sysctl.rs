//! The io_uring fallback under a real denial: `kernel.io_uring_disabled=2` (root only).
//!
//! The sysctl is machine-wide, so this test lives alone in its own test binary: `cargo test`
//! runs test binaries one after another, so no other diskdash test is using io_uring while it
//! is set. The old value is restored on every path, panics included.

#[path = "it/support/mod.rs"]
mod support;

use std::path::Path;

use support::record::*;
use support::*;

#[test]
#[ignore = "needs root"]
fn io_uring_disabled_by_sysctl_falls_back_to_psync() {
    require_root();
    let knob = Path::new("/proc/sys/kernel/io_uring_disabled");
    let Ok(before) = std::fs::read_to_string(knob) else {
        eprintln!("skipping: this kernel has no kernel.io_uring_disabled");
        return;
    };
    struct Restore<'a>(&'a Path, String);
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            let _ = std::fs::write(self.0, self.1.trim());
        }
    }
    let _restore = Restore(knob, before);
    std::fs::write(knob, "2").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = bench(
        dir.path(),
        &["--runtime", "200ms", "--size", "8M", "--json", "r.json"],
    );
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
