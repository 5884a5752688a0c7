//! The page-cache warning of `bench --buffered` on a loop device: with `--invalidate 0` the
//! second pass onward comes from memory, and the run says so. What the cache holds and how
//! many passes a second allows are the machine's, so this runs in the `alone` binary (at two
//! tests per CPU, `it`'s load left time for one pass only, all of it from the device).

use crate::support::record::*;
use crate::support::*;

#[test]
#[ignore = "needs root"]
fn buffered_reads_warn_of_the_page_cache() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = data_file(dir.path(), "disk.img", 16 << 20);
    // A device only this test uses: a shared disk's other readers would hide the cache.
    let dev = LoopDevice::attach_unique(&image);
    // fio's invalidate=1 (the default) drops the cache at each wrap, so every pass reads the
    // device; with it off the second pass onward comes from memory.
    let (out, record) = bench_ok(
        dir.path(),
        &args(dev.path(), "--buffered --invalidate 0 --runtime 1s"),
    );
    let verdict = record["device"]["reconciliation"]["verdict"].to_string();
    assert!(verdict.contains("PAGE CACHE"), "{verdict}");
    assert_stderr_has(&out, "WARNING: PAGE CACHE: the run moved");
    assert_stdout_has(&out, "WARNING PAGE CACHE");
    assert!(record["warnings"].to_string().contains("PAGE CACHE"));
}
