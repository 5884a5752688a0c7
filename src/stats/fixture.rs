//! Hand-built records for tests (here, beside the conversions from statistics, since interval
//! records are built from them): run records (the fio writers', compare's, the sweep table's)
//! of one step of two jobs on one disk and the same with a second step, and interval records.

use serde_json::{Value, json};

use crate::record::{
    DirectionRecord, FORMAT_VERSION, INTERVAL_FORMAT, IntervalRecord, RunRecord, SyncRecord,
};
use crate::stats::{DirectionStats, fine_bucket_le_ns};

/// Interval `index` of step `step`: 1 s of the 4 KiB reads in `stats`, nothing else.
pub fn read_interval(step: u32, index: u64, stats: &DirectionStats) -> IntervalRecord {
    IntervalRecord {
        format: INTERVAL_FORMAT.to_string(),
        format_version: FORMAT_VERSION,
        step,
        index,
        t_ns: (index + 1) * 1_000_000_000,
        duration_ns: 1_000_000_000,
        stalled_ns: 0,
        read: DirectionRecord::from_stats(stats, 1_000_000_000).with_interval_histogram(stats),
        write: DirectionRecord::default(),
        sync: SyncRecord::default(),
        trim: DirectionRecord::default(),
        device: None,
        jobs: Vec::new(),
        merged: None,
    }
}

/// A full-resolution histogram of `(latency ns, I/Os)`, ascending.
fn histogram(points: &[(u64, u64)]) -> Value {
    let le_ns: Vec<u64> = points
        .iter()
        .map(|&(ns, _)| fine_bucket_le_ns(ns, 7))
        .collect();
    let count: Vec<u64> = points.iter().map(|&(_, n)| n).collect();
    json!({"sub_bucket_bits": 7, "le_ns": le_ns, "count": count})
}

/// One direction: `mib` MiB in 4 KiB I/Os over `seconds`, latencies from `points`.
fn direction(mib: u64, seconds: u64, lat: [f64; 4], points: &[(u64, u64)]) -> Value {
    let ios = mib * 256;
    let io_bytes = mib << 20;
    let [min, max, mean, stddev] = lat;
    json!({"io_bytes": io_bytes, "io_kbytes": io_bytes / 1024, "bw_bytes": io_bytes / seconds,
        "bw": io_bytes / seconds / 1024, "iops": (ios / seconds) as f64, "runtime": seconds * 1000,
        "total_ios": ios, "lat_ns": {"min": min as u64, "max": max as u64, "mean": mean,
        "stddev": stddev, "N": ios, "percentile": {}, "histogram": histogram(points)}})
}

fn idle() -> Value {
    json!({"io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0, "runtime": 0,
        "total_ios": 0, "lat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0,
        "percentile": {}}})
}

fn job_options(rw: &str) -> Value {
    json!({"description": rw, "rw": rw, "rwmixread": 50, "bs": 4096, "size": 1u64 << 30,
        "iodepth": 8, "numjobs": 1, "ioengine": "io_uring", "iodepth_batch": 1,
        "iodepth_batch_complete": 1, "direct": true, "fsync": null, "fdatasync": null,
        "sync": null, "cpus": null, "runtime_ns": 2_000_000_000u64, "ramp_ns": 0,
        "interval_ns": 1_000_000_000u64})
}

fn target(path: &str, kind: &str) -> Value {
    json!({"path": path, "kind": kind, "working_set_bytes": 1u64 << 30, "dio_align_bytes": 512,
        "preconditioned": false, "scratch_removed": false, "notes": []})
}

fn idle_sync() -> Value {
    json!({"total_ios": 0, "lat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0,
        "percentile": {}}})
}

/// Job `r`: randread, 400 MiB in 2 s (half its reads at 80 us, half at 120 us, 1% at 2 ms).
fn job_r(group: u32) -> Value {
    json!({"name": "r", "group": group, "job": job_options("randread"),
        "target": target("/data/r.dat", "file"), "device": "vda", "status": "completed",
        "error": null, "elapsed_ns": 2_000_000_000u64,
        "read": direction(400, 2, [75_000.0, 2_010_000.0, 118_800.0, 190_000.0],
            &[(80_000, 51_200), (120_000, 50_176), (2_000_000, 1024)]),
        "write": idle(), "sync": idle_sync(), "retries": 0,
        "cpu": {"usr_cpu": 5.0, "sys_cpu": 30.0, "usr_ns": 100_000_000u64,
            "sys_ns": 600_000_000u64, "ctx": 5000}})
}

/// Job `w`: randrw on a scratch file, 100 MiB each way in 1 s; reads at 1 ms.
fn job_w(group: u32) -> Value {
    json!({"name": "w", "group": group, "job": job_options("randrw"),
        "target": target("/data/.diskdash-scratch-1-1", "scratch"), "device": "vda",
        "status": "completed", "error": null, "elapsed_ns": 1_000_000_000u64,
        "read": direction(100, 1, [990_000.0, 1_010_000.0, 1_000_000.0, 5_000.0],
            &[(1_000_000, 25_600)]),
        "write": direction(100, 1, [290_000.0, 610_000.0, 450_000.0, 150_000.0],
            &[(300_000, 12_800), (600_000, 12_800)]),
        "sync": idle_sync(), "retries": 0,
        "cpu": {"usr_cpu": 4.0, "sys_cpu": 20.0, "usr_ns": 40_000_000u64,
            "sys_ns": 200_000_000u64, "ctx": 2000}})
}

fn vda() -> Value {
    let mut row = serde_json::to_value(crate::record::IostatRow::idle("vda")).unwrap();
    for (key, value) in [
        ("r/s", 60_000.0),
        ("w/s", 12_500.0),
        ("rrqm/s", 10.0),
        ("wrqm/s", 200.0),
        ("r_await", 0.15),
        ("w_await", 0.5),
        ("aqu-sz", 15.3),
        ("util", 98.5),
    ] {
        row[key] = json!(value);
    }
    json!({"name": "vda", "disk": "vda", "queue": {"scheduler": "none"}, "iostat": row,
        "reconciliation": {"app_read_ios": 128_000, "app_write_ios": 25_600,
            "device_read_ios": 120_000, "device_write_ios": 25_000,
            "app_bytes": 629_145_600u64, "device_bytes": 593_920_000u64, "io_ratio": 0.94,
            "verdict": "vda served 94% of the run's bytes: part came from the page cache"}})
}

fn step(index: u32, jobs: Vec<Value>) -> Value {
    json!({"index": index, "status": "completed", "job": job_options("randread"),
        "engine": "io_uring", "elapsed_ns": 2_000_000_000u64, "read": idle(), "write": idle(),
        "sync": idle_sync(), "retries": 0,
        "cpu": {"usr_cpu": 0.0, "sys_cpu": 0.0, "usr_ns": 0, "sys_ns": 0, "ctx": 0},
        "series_stride": 1, "series": [], "device": null, "jobs": jobs, "devices": [vda()]})
}

fn run(steps: Vec<Value>) -> RunRecord {
    serde_json::from_value(json!({
        "format": "diskdash-bench", "format_version": 5, "diskdash_version": "0.1.0",
        "status": "completed", "error": null,
        "started_at": "2026-11-23T14:52:20.500Z", "ended_at": "2026-11-23T14:52:23.250Z",
        "host": {"hostname": "vm", "kernel": "6.18", "cpus": 2, "memory_bytes": 1u64 << 34},
        "job": job_options("randread"),
        "engine": {"requested": "io_uring", "used": "io_uring", "fallback": null,
            "ring_flags": [], "registered_file": false, "registered_buffers": false, "notes": []},
        "target": target("/data/r.dat", "file"), "device": null,
        "latency_definition": "...", "elapsed_ns": 2_000_000_000u64,
        "read": idle(), "write": idle(), "sync": idle_sync(), "retries": 0,
        "cpu": {"usr_cpu": 0.0, "sys_cpu": 0.0, "usr_ns": 0, "sys_ns": 0, "ctx": 0},
        "segments": steps, "warnings": ["vda served 94% of the run's bytes"], "notes": []
    }))
    .unwrap()
}

/// One step: jobs `r` and `w` in group 0 on `vda`.
pub fn record() -> RunRecord {
    run(vec![step(0, vec![job_r(0), job_w(0)])])
}

/// Two steps: `r` and `w` (group 0), then `seq` (group 1, `r`'s numbers).
pub fn two_step_record() -> RunRecord {
    let mut seq = job_r(1);
    seq["name"] = json!("seq");
    run(vec![step(0, vec![job_r(0), job_w(0)]), step(1, vec![seq])])
}
