//! A monitor or iostat recording's traced disks against /proc/diskstats, interval by interval
//! (`trace_watch` on a loop device, `alone`'s `trace_root` on the disk the tests run on).

use std::path::Path;

use serde_json::Value;

/// The whole disk a file under `path` lands on (`vda` for a file on `vda1`), by its device
/// numbers in sysfs; `None` where `path`'s filesystem has no block device (tmpfs).
pub fn disk_of(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let sys = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    let disk = if sys.join("partition").exists() {
        sys.parent()?.to_path_buf()
    } else {
        sys
    };
    Some(disk.file_name()?.to_str()?.to_string())
}

/// Each recorded sample of `disk` that carries a block trace: the whole disk entry (its
/// diskstats delta beside the trace).
pub fn traced_disk_samples(path: &Path, disk: &str) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            v["disks"]
                .as_array()?
                .iter()
                .find(|d| d["name"] == disk && d.get("block_trace").is_some())
                .cloned()
        })
        .collect()
}

/// The samples of `disk` whose `dir` (`read`, `write`) had at least 1,000 completed I/Os.
pub fn busy_in(samples: &[Value], dir: &str) -> Vec<Value> {
    let ios = if dir == "read" { "reads" } else { "writes" };
    samples
        .iter()
        .filter(|s| s["delta"][ios].as_u64().unwrap_or(0) >= 1000)
        .cloned()
        .collect()
}

/// One monitor interval of one disk and direction against diskstats' delta over the same
/// interval: the requests traced are the I/Os completed, within 1%, and the mean of `whole`
/// (io_start -> io_done) is the interval's await (its time over its I/Os) within 5%.
pub fn assert_interval_agrees(sample: &Value, dir: &str) {
    let (ios, ms) = if dir == "read" {
        ("reads", "read_ms")
    } else {
        ("writes", "write_ms")
    };
    let delta = &sample["delta"];
    let completed = delta[ios].as_f64().unwrap();
    let trace = &sample["block_trace"];
    assert_eq!(trace["scope"], "request", "{trace}");
    assert_eq!(trace["lost_events"], 0, "{trace}");
    let requests = trace[dir]["requests"].as_f64().unwrap();
    assert!(
        (requests - completed).abs() <= completed * 0.01,
        "{} {dir}: traced {requests} requests, diskstats completed {completed}",
        sample["name"]
    );
    // diskstats' time is whole milliseconds over the interval: at most 1 ms off in all.
    let await_ns = delta[ms].as_f64().unwrap() * 1e6 / completed;
    let whole = trace[dir]["whole"]["mean"].as_f64().unwrap();
    assert!(
        (whole - await_ns).abs() <= await_ns * 0.05 + 1e6 / completed,
        "{} {dir}: whole mean {whole:.0} ns, await {await_ns:.0} ns; diskstats {delta}, \
         traced {trace}",
        sample["name"]
    );
}

/// In the recording at `record`, `disk` had at least 3 intervals of 1,000 I/Os or more in each
/// direction, and each agrees with diskstats ([`assert_interval_agrees`], which also wants no
/// event lost). `lost_allowed`: intervals whose events the kernel's buffer lost are left out
/// instead (their counts are said untrustworthy; a loaded CI machine's debug build can lose
/// some at the root disk's rate), and 3 without a loss are still wanted.
pub fn assert_busy_intervals_agree(record: &Path, disk: &str, lost_allowed: bool) {
    let samples: Vec<Value> = traced_disk_samples(record, disk)
        .into_iter()
        .filter(|s| !lost_allowed || s["block_trace"]["lost_events"] == 0)
        .collect();
    for dir in ["read", "write"] {
        let busy = busy_in(&samples, dir);
        assert!(
            busy.len() >= 3,
            "{disk} {dir}: {} intervals of 1,000 I/Os or more in {} traced",
            busy.len(),
            samples.len()
        );
        for sample in &busy {
            assert_interval_agrees(sample, dir);
        }
    }
}
