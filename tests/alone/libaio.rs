//! libaio when the system's AIO events run out: the run asks for more than
//! `/proc/sys/fs/aio-max-nr` allows and fails in one line naming the limit and the fix. It
//! takes every AIO event of the machine while it sets up, so it runs in the `alone` binary:
//! a libaio run of another test beside it failed `io_setup` with EAGAIN.

use crate::support::record::*;
use crate::support::*;

/// More AIO events than /proc/sys/fs/aio-max-nr allows: the run fails in one line naming the
/// limit and the fix.
#[test]
fn running_out_of_aio_events_names_aio_max_nr_and_the_fix() {
    let max: u64 = std::fs::read_to_string("/proc/sys/fs/aio-max-nr")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    const DEPTH: u64 = 16_384;
    let jobs = max / DEPTH + 1;
    assert!(
        jobs <= 8,
        "fs.aio-max-nr is {max}: this test needs it at most 131072 (the default is 65536)"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = data_file(dir.path(), "data", 16 << 20);
    let opts = format!(
        "--ioengine libaio -q {DEPTH} --numjobs {jobs} --rw randread --runtime 300ms --no-tui"
    );
    let (out, _) = bench_fails(dir.path(), &args(&file, &opts));
    let err = stderr(&out);
    assert!(err.contains("(EAGAIN)"), "{err}");
    assert!(err.contains("/proc/sys/fs/aio-max-nr"), "{err}");
    assert!(err.contains("sysctl -w fs.aio-max-nr="), "{err}");
}
