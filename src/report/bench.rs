//! Headless bench output: one status line per interval on stderr (that interval's rates, not
//! cumulative) and a summary on stdout, built from the run record, readable at a glance.

use std::fmt::Write as _;
use std::time::Duration;

use crate::record::{
    BlockTraceRecord, DirectionRecord, LatencyRecord, RunRecord, RunStatus, StepRecord,
};
use crate::session::SeriesPoint;
use crate::units::{format_bytes, format_latency_ns, format_rate};

/// `[   3.0s] read 52.3k IOPS 204.3 MiB/s lat 611.2 us p99 1.20 ms | write ...`; an interval
/// that is not `interval` long (the last one, which takes the drain and any remainder, or one
/// cut short by a stop) names its length: `[   3.2s over 1.200s]`, `[   0.3s over 100.4ms]`.
/// Which directions a status line shows.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shown {
    pub reads: bool,
    pub writes: bool,
    pub trims: bool,
}

#[must_use]
pub fn status_line(point: &SeriesPoint, interval: Duration, shown: Shown) -> String {
    let Shown {
        reads,
        writes,
        trims,
    } = shown;
    let mut line = if point.duration.abs_diff(interval) < Duration::from_millis(1) {
        format!("[{:>7.1}s]", point.at.as_secs_f64())
    } else {
        // Precise enough that a length near the interval does not read as the interval.
        let length = if point.duration < Duration::from_secs(1) {
            format!("{:.1}ms", point.duration.as_secs_f64() * 1e3)
        } else {
            format!("{:.3}s", point.duration.as_secs_f64())
        };
        format!("[{:>7.1}s over {length}]", point.at.as_secs_f64())
    };
    // One part per direction shown: (name, IOPS, bytes/s, mean, p99, p99 from the schedule).
    let parts = [
        (
            reads,
            "read",
            point.read_iops,
            point.read_bw_bytes_per_s,
            point.read_lat_mean_ns,
            point.read_lat_p99_ns,
            point.read_sched_p99_ns,
        ),
        (
            writes,
            "write",
            point.write_iops,
            point.write_bw_bytes_per_s,
            point.write_lat_mean_ns,
            point.write_lat_p99_ns,
            point.write_sched_p99_ns,
        ),
        (
            trims,
            "trim",
            point.trim_iops,
            point.trim_bw_bytes_per_s,
            point.trim_lat_mean_ns,
            point.trim_lat_p99_ns,
            0,
        ),
    ];
    let mut first = true;
    for (shown, name, iops, bw, mean_ns, p99_ns, sched_p99_ns) in parts {
        if !shown {
            continue;
        }
        if !first {
            line.push_str(" |");
        }
        first = false;
        let _ = write!(
            line,
            " {name} {:>6} IOPS {:>11}/s lat {:>9} p99 {:>9}",
            format_rate(iops),
            format_bytes(bw as u64),
            format_latency_ns(mean_ns),
            format_latency_ns(p99_ns as f64),
        );
        if sched_p99_ns > 0 {
            let _ = write!(
                line,
                " sched p99 {:>9}",
                format_latency_ns(sched_p99_ns as f64)
            );
        }
    }
    if point.sync_lat_mean_ns > 0.0 {
        let _ = write!(
            line,
            " | sync {}",
            format_latency_ns(point.sync_lat_mean_ns)
        );
    }
    line
}

/// The summary's trust line of a marked result: its marks, the numbers they rest on, and
/// what to change; `None` when it carries no mark.
#[must_use]
pub fn trust_line(trust: &crate::record::TrustRecord) -> Option<String> {
    if trust.marks.is_empty() {
        return None;
    }
    let marks: Vec<String> = trust
        .marks
        .iter()
        .map(|m| m.as_str().to_uppercase())
        .collect();
    let mut facts = vec![
        format!("{:.2}s measured", trust.elapsed_ns as f64 / 1e9),
        format!("{} I/Os", trust.ios),
    ];
    if let Some(spread) = trust.spread_pct {
        facts.push(format!(
            "spread {spread:.1}% over {} {}",
            trust.samples,
            if trust.spread_over == "loops" {
                "loops"
            } else {
                "batches of intervals"
            }
        ));
    }
    if let Some(share) = trust.device_share {
        facts.push(format!(
            "{:.0}% of the disk's bytes beyond its idle rate",
            share * 100.0
        ));
    }
    let remedies: Vec<&str> = trust
        .marks
        .iter()
        .map(|m| crate::analysis::trust::remedy(*m))
        .collect();
    Some(format!(
        "{} ({}): not reliable; to rely on it, measure with {}",
        marks.join(", "),
        facts.join(", "),
        remedies.join(", ")
    ))
}

/// The end-of-run summary.
#[must_use]
pub fn summary(record: &RunRecord) -> String {
    let mut out = String::new();
    let status = status_word(record.status);
    // What ran is the headline; what was asked follows when it differs (a fallback).
    match &record.job.ran_description {
        Some(ran) => {
            let _ = writeln!(out, "diskdash bench: {ran}");
            let _ = writeln!(out, "  asked   {}", record.job.description);
        }
        None => {
            let _ = writeln!(out, "diskdash bench: {}", record.job.description);
        }
    }
    let _ = writeln!(
        out,
        "  target  {} ({}, working set {}{}{})",
        crate::text::escape(&record.target.path),
        record.target.kind.replace('_', " "),
        format_bytes(record.target.working_set_bytes),
        if record.target.preconditioned {
            ", preconditioned"
        } else {
            ""
        },
        if record.target.scratch_removed {
            ", removed"
        } else {
            ""
        },
    );
    let mut engine = record.engine.used.clone();
    if !record.engine.ring_flags.is_empty() {
        let _ = write!(engine, " [{}]", record.engine.ring_flags.join(" "));
    }
    if record.engine.used == "io_uring" {
        let registered: Vec<&str> = [
            record.engine.registered_file.then_some("file"),
            record.engine.registered_buffers.then_some("buffers"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !registered.is_empty() {
            let _ = write!(engine, " registered {}", registered.join("+"));
        }
        if record.engine.vectored {
            engine.push_str(" vectored (readv/writev)");
        }
    }
    let _ = writeln!(out, "  engine  {engine}");
    // A record that types the fallback says it among its warnings; older ones here.
    let fallback_warned = record
        .typed_warnings
        .iter()
        .any(|w| matches!(w, crate::record::RunWarning::EngineFallback { .. }));
    if let Some(fallback) = record.engine.fallback.as_ref().filter(|_| !fallback_warned) {
        let _ = writeln!(out, "  NOTE    {fallback}");
    }
    for note in &record.engine.notes {
        if record.engine.fallback.as_ref() != Some(note) {
            let _ = writeln!(out, "  note    {note}");
        }
    }
    if let Some(cpus) = &record.job.cpus {
        let _ = writeln!(out, "  cpus    {}", cpu_mapping(cpus, record.job.numjobs));
    }
    let steps = record.steps.len();
    let _ = writeln!(
        out,
        "  status  {status} after {:.2}s measured{}{}",
        Duration::from_nanos(record.elapsed_ns).as_secs_f64(),
        if record.stalled_ns > 0 {
            format!(
                " (+{:.2}s stalled, not measured)",
                Duration::from_nanos(record.stalled_ns).as_secs_f64()
            )
        } else {
            String::new()
        },
        if steps > 1 {
            format!(" in {steps} segments (totals below cover them all)")
        } else {
            String::new()
        }
    );
    if let Some(error) = &record.error {
        let _ = writeln!(out, "  error   {}", error.message);
    }
    if let Some(line) = record.trust.as_ref().and_then(trust_line) {
        let _ = writeln!(out, "  trust   {line}");
    }
    if steps > 1 {
        for step in &record.steps {
            step_line(&mut out, step);
        }
    }
    for (name, dir) in [
        ("read", &record.read),
        ("write", &record.write),
        ("trim", &record.trim),
    ] {
        if dir.total_ios > 0 {
            direction(&mut out, name, dir);
        }
    }
    if record.sync.total_ios > 0 {
        let lat = &record.sync.lat_ns;
        let _ = writeln!(
            out,
            "  sync    {} calls, lat mean {} p99 {} max {}",
            record.sync.total_ios,
            format_latency_ns(lat.mean),
            format_latency_ns(pct(lat, 99.0) as f64),
            format_latency_ns(lat.max as f64),
        );
    }
    if let Some(v) = &record.verify {
        let read_back = if v.read_back_ns > 0 {
            format!(
                ", read back after the run in {:.2}s",
                Duration::from_nanos(v.read_back_ns).as_secs_f64()
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  verify  {}: {} blocks checked, {} failed{read_back}",
            v.kind, v.blocks_checked, v.blocks_failed
        );
        for f in v.failures.iter().take(3) {
            let _ = writeln!(
                out,
                "          offset {} ({}): {}",
                f.offset_bytes,
                format_bytes(f.offset_bytes),
                f.what
            );
        }
    }
    let ios = record.read.total_ios + record.write.total_ios + record.trim.total_ios;
    if ios == 0 {
        let _ = writeln!(out, "  no I/O completed in the measured window");
    }
    let per_io = if ios > 0 {
        format!(
            ", {} per I/O",
            format_latency_ns((record.cpu.usr_ns + record.cpu.sys_ns) as f64 / ios as f64)
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "  cpu     usr {:.1}% sys {:.1}% (of one CPU){per_io}, {} context switches",
        record.cpu.usr_cpu, record.cpu.sys_cpu, record.cpu.ctx
    );
    if let Some(device) = &record.device {
        let io = &device.iostat;
        let scheduler = device.queue.scheduler.as_deref().unwrap_or("?");
        let window = if steps > 1 {
            format!(" over segment {steps}")
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  device  {}{window} ({scheduler}): r/s {:.1} w/s {:.1} rkB/s {:.1} wkB/s {:.1} r_await {:.2} \
             w_await {:.2} aqu-sz {:.2} %util {:.1}",
            device.name,
            io.reads_per_s,
            io.writes_per_s,
            io.read_kb_per_s,
            io.write_kb_per_s,
            io.read_await_ms,
            io.write_await_ms,
            io.queue_size,
            io.util_pct,
        );
        if io.discards_per_s > 0.0 || record.trim.total_ios > 0 {
            let _ = writeln!(
                out,
                "          d/s {:.1} dkB/s {:.1} d_await {:.2}",
                io.discards_per_s, io.discard_kb_per_s, io.discard_await_ms
            );
        }
        let rec = &device.reconciliation;
        let _ = writeln!(
            out,
            "          {} reads + {} writes by the device for {} + {} by the run: {}",
            rec.device_read_ios,
            rec.device_write_ios,
            rec.app_read_ios,
            rec.app_write_ios,
            rec.verdict
        );
        if let Some(trace) = &device.block_trace {
            trace_lines(&mut out, record, trace);
        }
    }
    out += &super::steady::summary_lines(record);
    for warning in &record.warnings {
        let _ = writeln!(out, "  WARNING {warning}");
    }
    crate::text::escape_layout(&out).into_owned()
}

/// A part's mean over the directions the disk served (`None`: no sample).
fn block_mean(
    trace: &BlockTraceRecord,
    part: impl Fn(&crate::record::BlockDirectionRecord) -> &LatencyRecord,
) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0u64);
    for dir in [&trace.read, &trace.write, &trace.trim]
        .into_iter()
        .flatten()
    {
        let lat = part(dir);
        sum += lat.mean * lat.n as f64;
        n += lat.n;
    }
    (n > 0).then(|| sum / n as f64)
}

/// `--trace`: the block layer's view of the disk, and the app's mean taken apart:
/// `  trace   loop1 (request): 3828 requests, device p50 218.5 us mean 3.35 ms, whole mean ...`
/// `          mean: app 4.17 ms = device 3.35 ms + scheduler 1.0 us + waiting for a request ...`
fn trace_lines(out: &mut String, record: &RunRecord, trace: &BlockTraceRecord) {
    let ms = |ns: Option<f64>| ns.map_or_else(|| "-".to_string(), format_latency_ns);
    let device_p50 = [&trace.read, &trace.write, &trace.trim]
        .into_iter()
        .flatten()
        .max_by_key(|d| d.requests)
        .and_then(|d| d.device.percentile_ns(50.0));
    let _ = writeln!(
        out,
        "  trace   {} ({}): {} requests, device p50 {} mean {}, whole mean {}; {} lost, {} ambiguous",
        trace.disk,
        trace.scope,
        trace.requests,
        ms(device_p50.map(|ns| ns as f64)),
        ms(block_mean(trace, |d| &d.device)),
        ms(block_mean(trace, |d| &d.whole)),
        trace.lost_events,
        trace.ambiguous_matches,
    );
    let app_ios = record.read.total_ios + record.write.total_ios + record.trim.total_ios;
    let job = record.steps.last().and_then(|s| match s.jobs.as_slice() {
        [job] => Some(job),
        _ => None,
    });
    let (Some(job), Some(device)) = (job, block_mean(trace, |d| &d.device)) else {
        return;
    };
    if app_ios == 0 {
        return;
    }
    let app = [&record.read, &record.write, &record.trim]
        .iter()
        .map(|d| d.lat_ns.mean * d.total_ios as f64)
        .sum::<f64>()
        / app_ios as f64;
    let _ = writeln!(
        out,
        "          {}",
        mean_line(
            trace,
            app,
            device,
            CpuWait {
                ns_per_io: job.cpu_wait_ns_per_io,
                incl_pacing: job.cpu_wait_incl_pacing,
            },
            job.unexplained_ns_per_io
        )
    );
}

/// A job's wait for a CPU per I/O (`None`: not measured) and whether it includes a paced
/// job's wake-ups after its sleeps (then it is said after the sum, not in it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuWait {
    pub ns_per_io: Option<f64>,
    pub incl_pacing: bool,
}

/// The app's mean taken apart (the summary's and the dashboard's line):
/// `mean: app 4.17 ms = device 3.35 ms + scheduler 1.0 us + waiting for a request ...`;
/// a part not measured says so, and `unexplained` is `-` when the measured parts add up to
/// more than the app's mean. A paced job's CPU wait (`incl_pacing`) is said after the sum,
/// not in it (`crate::trace::explain::cpu_wait_in_sum`).
#[must_use]
pub fn mean_line(
    trace: &BlockTraceRecord,
    app_ns: f64,
    device_ns: f64,
    cpu_wait: CpuWait,
    unexplained_ns: Option<f64>,
) -> String {
    mean_parts(trace, app_ns, device_ns, cpu_wait, unexplained_ns).join(" ")
}

/// [`mean_line`]'s parts, each with its operator (`mean: app 4.17 ms`, `= device 3.35 ms`,
/// `+ scheduler 1.0 us`, ...): where the dashboard may break the line.
#[must_use]
pub fn mean_parts(
    trace: &BlockTraceRecord,
    app_ns: f64,
    device_ns: f64,
    cpu_wait: CpuWait,
    unexplained_ns: Option<f64>,
) -> Vec<String> {
    let part = |ns: Option<f64>| format_latency_ns(ns.unwrap_or(0.0));
    let incl_pacing = cpu_wait.incl_pacing;
    let cpu_wait = cpu_wait
        .ns_per_io
        .map_or_else(|| "-".to_string(), format_latency_ns);
    let mut parts = vec![
        format!("mean: app {}", format_latency_ns(app_ns)),
        format!("= device {}", format_latency_ns(device_ns)),
        format!("+ scheduler {}", part(block_mean(trace, |d| &d.scheduler))),
        format!(
            "+ waiting for a request {}",
            if trace.wait_request_traced {
                part(block_mean(trace, |d| &d.wait_request))
            } else {
                "not measured (--trace=full)".to_string()
            }
        ),
    ];
    if !incl_pacing {
        parts.push(format!("+ waiting for a CPU {cpu_wait}"));
    }
    parts.push(format!(
        "+ unexplained {}",
        unexplained_ns.map_or_else(
            || "- (the measured parts add up to more)".to_string(),
            format_latency_ns
        )
    ));
    if incl_pacing {
        parts.push(format!(
            "(waiting for a CPU {cpu_wait} incl. pacing wake-ups: not in the sum)"
        ));
    }
    parts
}

/// `  seg 2   rw bs=4k iodepth=64 numjobs=1  3.01s  read 35.1k IOPS p99 750.0 us  write ...`
fn step_line(out: &mut String, step: &StepRecord) {
    let mut line = format!(
        "  seg {:<3} {}  {:.2}s",
        step.index + 1, // 1-based on screen, as the dashboard counts them
        step.job
            .ran_description
            .as_ref()
            .unwrap_or(&step.job.description),
        Duration::from_nanos(step.elapsed_ns).as_secs_f64()
    );
    for (name, dir) in [("read", &step.read), ("write", &step.write)] {
        if dir.total_ios > 0 {
            let _ = write!(
                line,
                "  {name} {} IOPS p99 {}",
                format_rate(dir.iops),
                format_latency_ns(pct(&dir.lat_ns, 99.0) as f64)
            );
        }
    }
    if step.status != RunStatus::Completed {
        let _ = write!(line, "  ({})", status_word(step.status));
    }
    let _ = writeln!(out, "{line}");
}

/// How `--cpus` placed the workers: round-robin over the listed CPUs.
fn cpu_mapping(cpus: &str, numjobs: u32) -> String {
    let n = crate::bench::kinds::parse_cpu_list(cpus).map_or(0, |list| list.len());
    let workers = if numjobs == 1 { "worker" } else { "workers" };
    if n == 0 {
        return format!("{numjobs} {workers} pinned to CPUs {cpus}");
    }
    let n = u32::try_from(n).unwrap_or(u32::MAX);
    let per = numjobs / n;
    let spread = if numjobs <= n {
        "one per CPU".to_string()
    } else if numjobs % n == 0 {
        format!("{per} per CPU")
    } else {
        format!("{per} or {} per CPU", per + 1)
    };
    format!(
        "{numjobs} {workers} round-robin on CPUs {cpus} (worker i on the (i mod {n})-th): {spread}"
    )
}

/// `completed`, `stopped`, `interrupted`, `FAILED` (loud: the numbers cover part of a run).
#[must_use]
pub fn status_word(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Failed => "FAILED",
        other => other.as_str(),
    }
}

fn pct(lat: &LatencyRecord, want: f64) -> u64 {
    lat.percentile_ns(want).unwrap_or(0)
}

fn direction(out: &mut String, name: &str, dir: &DirectionRecord) {
    let lat = &dir.lat_ns;
    let _ = writeln!(
        out,
        "  {name:<7} IOPS {}  BW {}/s  ({} in {} I/Os)",
        format_rate(dir.iops),
        format_bytes(dir.bw_bytes),
        format_bytes(dir.io_bytes),
        dir.total_ios
    );
    let _ = writeln!(
        out,
        "          lat min {}  mean {}  stddev {}  max {}",
        format_latency_ns(lat.min as f64),
        format_latency_ns(lat.mean),
        format_latency_ns(lat.stddev),
        format_latency_ns(lat.max as f64)
    );
    let _ = writeln!(
        out,
        "          p50 {}  p90 {}  p99 {}  p99.9 {}  p99.99 {}",
        format_latency_ns(pct(lat, 50.0) as f64),
        format_latency_ns(pct(lat, 90.0) as f64),
        format_latency_ns(pct(lat, 99.0) as f64),
        format_latency_ns(pct(lat, 99.9) as f64),
        format_latency_ns(pct(lat, 99.99) as f64),
    );
    if let Some(sched) = &dir.lat_sched_ns {
        let _ = writeln!(
            out,
            "          from schedule: mean {}  p50 {}  p99 {}  p99.9 {}  max {}",
            format_latency_ns(sched.mean),
            format_latency_ns(pct(sched, 50.0) as f64),
            format_latency_ns(pct(sched, 99.0) as f64),
            format_latency_ns(pct(sched, 99.9) as f64),
            format_latency_ns(sched.max as f64),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads_only() -> Shown {
        Shown {
            reads: true,
            ..Shown::default()
        }
    }

    fn record() -> RunRecord {
        serde_json::from_value(record_json()).unwrap()
    }

    /// A whole `iostat -x` row of the device window, as a record holds it.
    fn iostat_row() -> serde_json::Value {
        let mut row = serde_json::to_value(crate::monitor::iostat::IostatRow::idle("vda")).unwrap();
        for (key, value) in [
            ("r/s", 500.0),
            ("w/s", 480.5),
            ("rkB/s", 2000.0),
            ("wkB/s", 1922.0),
            ("r_await", 0.32),
            ("w_await", 0.41),
            ("aqu-sz", 0.7),
            ("util", 61.25),
        ] {
            row[key] = serde_json::json!(value);
        }
        row
    }

    fn record_json() -> serde_json::Value {
        let lat = |mean: f64| {
            serde_json::json!({"min": 52_000, "max": 9_100_000, "mean": mean, "stddev": 120_500.0, "N": 1_000,
              "percentile": {"50.000000": 361_727, "90.000000": 430_079, "99.000000": 2_883_583,
                             "99.900000": 5_460_000, "99.990000": 8_900_000}})
        };
        let dir = |ios: u64| {
            serde_json::json!({"io_bytes": ios * 4096, "io_kbytes": ios * 4, "bw_bytes": ios * 4096 / 2,
              "bw": ios * 2, "iops": ios as f64 / 2.0, "runtime": 2000, "total_ios": ios, "lat_ns": lat(416_237.1)})
        };
        let job = serde_json::json!({"description": "randrw bs=4k iodepth=32 numjobs=1 io_uring direct rwmixread=50 fdatasync=8",
            "rw": "randrw", "rwmixread": 50, "bs": 4096, "size": 1 << 30, "iodepth": 32, "numjobs": 1,
            "ioengine": "io_uring", "iodepth_batch": 1, "iodepth_batch_complete": 1, "direct": true,
            "fsync": null, "fdatasync": 8, "sync": null, "cpus": null, "runtime_ns": 2_000_000_000u64,
            "ramp_ns": 0, "interval_ns": 1_000_000_000u64});
        serde_json::json!({
            "format": "diskdash-bench", "format_version": 2, "diskdash_version": "0.1.0",
            "status": "failed",
            "error": {"message": "write at offset 8388608 (8 MiB) failed: No space left on device (ENOSPC)",
                      "operation": "write", "errno": 28, "errno_name": "ENOSPC", "offset_bytes": 8_388_608, "worker": 0},
            "started_at": "2026-11-21T08:14:24.406Z", "ended_at": "2026-11-21T08:14:26.472Z",
            "host": {"hostname": "vm", "kernel": "6.18", "cpus": 2, "memory_bytes": 1u64 << 34},
            "job": job,
            "engine": {"requested": "io_uring", "used": "io_uring", "fallback": null,
                       "ring_flags": ["COOP_TASKRUN", "SINGLE_ISSUER", "DEFER_TASKRUN"],
                       "registered_file": true, "registered_buffers": false,
                       "notes": ["buffer registration failed (Cannot allocate memory); using plain addresses"]},
            "target": {"path": "/data/.diskdash-scratch-1-0", "kind": "scratch", "working_set_bytes": 1 << 30,
                       "dio_align_bytes": 512, "preconditioned": true, "scratch_removed": true, "notes": []},
            "device": {"name": "vda", "disk": "vda", "queue": {"scheduler": "mq-deadline"},
                       "iostat": iostat_row(),
                       "reconciliation": {"app_read_ios": 1000, "app_write_ios": 961, "device_read_ios": 1000,
                                          "device_write_ios": 961, "app_bytes": 8_032_256, "device_bytes": 8_032_256,
                                          "io_ratio": 1.0, "verdict": "match: vda completed every I/O of the run, once"}},
            "latency_definition": "...", "elapsed_ns": 2_000_000_000u64,
            "read": dir(1000), "write": dir(961),
            "sync": {"total_ios": 120, "lat_ns": lat(64_000.0)},
            "retries": 0,
            "cpu": {"usr_cpu": 5.2, "sys_cpu": 39.7, "usr_ns": 104_000_000, "sys_ns": 794_000_000, "ctx": 2196},
            "segments": [], "warnings": ["the working set has holes: reading holes measures nothing"], "notes": []
        })
    }

    #[test]
    fn a_traced_record_says_what_the_block_layer_saw() {
        let mut json = record_json();
        let lat = |mean: f64, n: u64| {
            serde_json::json!({"min": 1, "max": 2, "mean": mean, "stddev": 0.0, "N": n,
              "percentile": {"50.000000": 200_000}})
        };
        let dir = |requests: u64| {
            serde_json::json!({"requests": requests, "bytes": requests * 4096,
              "wait_request": lat(0.0, 0), "scheduler": lat(2_000.0, requests),
              "device": lat(300_000.0, requests), "whole": lat(310_000.0, requests),
              "size": lat(4096.0, requests)})
        };
        json["device"]["block_trace"] = serde_json::json!({"disk": "vda", "scope": "request",
            "lost_events": 0, "ambiguous_matches": 2, "requests": 1961,
            "read": dir(1000), "write": dir(961)});
        let text = summary(&serde_json::from_value(json).unwrap());
        assert!(
            text.contains(
                "\n  trace   vda (request): 1961 requests, device p50 200.0 us mean 300.0 us, \
                 whole mean 310.0 us; 0 lost, 2 ambiguous\n"
            ),
            "{text}"
        );
        // No job's CPU wait in a record without steps: the mean is not taken apart.
        assert!(!text.contains("mean: app"), "{text}");
    }

    #[test]
    fn a_trace_without_bios_says_the_wait_for_a_request_was_not_measured() {
        let mut json = record_json();
        let lat = |mean: f64, n: u64| {
            serde_json::json!({"min": 1, "max": 2, "mean": mean, "stddev": 0.0, "N": n,
              "percentile": {"50.000000": 200_000}})
        };
        let requests = 1961u64;
        json["device"]["block_trace"] = serde_json::json!({"disk": "vda", "scope": "request",
            "wait_request_traced": false, "lost_events": 0, "ambiguous_matches": 0,
            "requests": requests,
            "read": {"requests": requests, "bytes": requests * 4096,
              "wait_request": lat(0.0, 0), "scheduler": lat(2_000.0, requests),
              "device": lat(300_000.0, requests), "whole": lat(310_000.0, requests),
              "size": lat(4096.0, requests)}});
        let record: RunRecord = serde_json::from_value(json).unwrap();
        let trace = record.device.as_ref().unwrap().block_trace.clone().unwrap();
        assert!(!trace.wait_request_traced);
        let line = mean_line(
            &trace,
            400_000.0,
            300_000.0,
            CpuWait {
                ns_per_io: Some(10_000.0),
                incl_pacing: false,
            },
            Some(88_000.0),
        );
        assert_eq!(
            line,
            "mean: app 400.0 us = device 300.0 us + scheduler 2.0 us + waiting for a request \
             not measured (--trace=full) + waiting for a CPU 10.0 us + unexplained 88.0 us"
        );
        // Paced: the CPU wait (most of it after the job's sleeps) is said, not summed.
        let line = mean_line(
            &trace,
            400_000.0,
            300_000.0,
            CpuWait {
                ns_per_io: Some(500_000.0),
                incl_pacing: true,
            },
            Some(98_000.0),
        );
        assert_eq!(
            line,
            "mean: app 400.0 us = device 300.0 us + scheduler 2.0 us + waiting for a request \
             not measured (--trace=full) + unexplained 98.0 us (waiting for a CPU 500.0 us \
             incl. pacing wake-ups: not in the sum)"
        );
        let mut traced = trace;
        traced.wait_request_traced = true;
        let line = mean_line(&traced, 400_000.0, 300_000.0, CpuWait::default(), None);
        assert!(
            line.contains("waiting for a request 0 ns + waiting for a CPU - + unexplained - (the"),
            "{line}"
        );
    }

    #[test]
    fn summary_reads_at_a_glance() {
        assert_eq!(
            summary(&record()),
            "\
diskdash bench: randrw bs=4k iodepth=32 numjobs=1 io_uring direct rwmixread=50 fdatasync=8
  target  /data/.diskdash-scratch-1-0 (scratch, working set 1 GiB, preconditioned, removed)
  engine  io_uring [COOP_TASKRUN SINGLE_ISSUER DEFER_TASKRUN] registered file
  note    buffer registration failed (Cannot allocate memory); using plain addresses
  status  FAILED after 2.00s measured
  error   write at offset 8388608 (8 MiB) failed: No space left on device (ENOSPC)
  read    IOPS 500  BW 2.0 MiB/s  (3.9 MiB in 1000 I/Os)
          lat min 52.0 us  mean 416.2 us  stddev 120.5 us  max 9.10 ms
          p50 361.7 us  p90 430.1 us  p99 2.88 ms  p99.9 5.46 ms  p99.99 8.90 ms
  write   IOPS 480  BW 1.9 MiB/s  (3.8 MiB in 961 I/Os)
          lat min 52.0 us  mean 416.2 us  stddev 120.5 us  max 9.10 ms
          p50 361.7 us  p90 430.1 us  p99 2.88 ms  p99.9 5.46 ms  p99.99 8.90 ms
  sync    120 calls, lat mean 64.0 us p99 2.88 ms max 9.10 ms
  cpu     usr 5.2% sys 39.7% (of one CPU), 457.9 us per I/O, 2196 context switches
  device  vda (mq-deadline): r/s 500.0 w/s 480.5 rkB/s 2000.0 wkB/s 1922.0 r_await 0.32 w_await 0.41 aqu-sz 0.70 %util 61.2
          1000 reads + 961 writes by the device for 1000 + 961 by the run: match: vda completed every I/O of the run, once
  WARNING the working set has holes: reading holes measures nothing
"
        );
    }

    #[test]
    fn a_run_of_several_steps_lists_each_and_says_what_the_totals_cover() {
        let mut json = record_json();
        let step = |index: u32, status: &str, description: &str, iodepth: u32| {
            let mut job = json["job"].clone();
            job["description"] = description.into();
            job["iodepth"] = iodepth.into();
            serde_json::json!({"index": index, "status": status, "job": job, "engine": "io_uring",
                "elapsed_ns": 1_500_000_000u64, "read": json["read"].clone(), "write": json["write"].clone(),
                "sync": json["sync"].clone(), "retries": 0, "cpu": json["cpu"].clone(),
                "series_stride": 1, "series": [], "device": json["device"].clone()})
        };
        let steps = vec![
            step(0, "completed", "randrw bs=4k iodepth=32 numjobs=1", 32),
            step(1, "interrupted", "randrw bs=4k iodepth=64 numjobs=1", 64),
        ];
        json["segments"] = steps.into();
        json["status"] = "interrupted".into();
        json["error"] = serde_json::Value::Null;
        let text = summary(&serde_json::from_value(json).unwrap());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[4],
            "  status  interrupted after 2.00s measured in 2 segments (totals below cover them all)"
        );
        assert_eq!(
            lines[5],
            "  seg 1   randrw bs=4k iodepth=32 numjobs=1  1.50s  read 500 IOPS p99 2.88 ms  write 480 IOPS p99 2.88 ms"
        );
        assert_eq!(
            lines[6],
            "  seg 2   randrw bs=4k iodepth=64 numjobs=1  1.50s  read 500 IOPS p99 2.88 ms  write 480 IOPS p99 2.88 ms  (interrupted)"
        );
        assert!(
            text.contains("\n  device  vda over segment 2 (mq-deadline): r/s 500.0"),
            "{text}"
        );
    }

    #[test]
    fn stalled_time_is_shown_apart_from_measured_time() {
        let mut json = record_json();
        json["stalled_ns"] = 10_020_000_000u64.into();
        let warning = crate::record::RunWarning::Stalled {
            step: 0,
            stalls: 1,
            stalled_ns: 10_020_000_000,
            longest_ns: 10_020_000_000,
        };
        json["warnings"] = vec![warning.to_string()].into();
        let text = summary(&serde_json::from_value(json).unwrap());
        assert!(
            text.contains(
                "\n  status  FAILED after 2.00s measured (+10.02s stalled, not measured)\n"
            ),
            "{text}"
        );
        assert!(text.contains(&format!("\n  WARNING {warning}\n")), "{text}");
    }

    #[test]
    fn status_line_shows_only_active_directions() {
        let point = SeriesPoint {
            at: Duration::from_secs(3),
            duration: Duration::from_secs(1),
            read_iops: 52_300.0,
            read_bw_bytes_per_s: 214_220_800.0,
            read_lat_mean_ns: 611_200.0,
            read_lat_p99_ns: 1_200_000,
            ..SeriesPoint::default()
        };
        let line = status_line(&point, Duration::from_secs(1), reads_only());
        assert_eq!(
            line,
            "[    3.0s] read  52.3k IOPS   204.3 MiB/s lat  611.2 us p99   1.20 ms"
        );
        assert!(
            status_line(
                &point,
                Duration::from_secs(1),
                Shown {
                    reads: true,
                    writes: true,
                    trims: false
                }
            )
            .contains(" | write      0 IOPS")
        );
    }

    #[test]
    fn an_interval_of_another_length_names_its_length() {
        let point = SeriesPoint {
            at: Duration::from_millis(3_200),
            duration: Duration::from_millis(1_200),
            read_iops: 1_000.0,
            ..SeriesPoint::default()
        };
        let line = status_line(&point, Duration::from_secs(1), reads_only());
        assert!(
            line.starts_with("[    3.2s over 1.200s] read   1.0k IOPS"),
            "{line}"
        );
    }

    #[test]
    fn the_summary_says_how_workers_map_to_cpus() {
        assert_eq!(
            cpu_mapping("0-1", 64),
            "64 workers round-robin on CPUs 0-1 (worker i on the (i mod 2)-th): 32 per CPU"
        );
        assert_eq!(
            cpu_mapping("0-2", 4),
            "4 workers round-robin on CPUs 0-2 (worker i on the (i mod 3)-th): 1 or 2 per CPU"
        );
        let mut json = record_json();
        json["job"]["cpus"] = "0-1".into();
        json["job"]["numjobs"] = 64.into();
        let text = summary(&serde_json::from_value(json).unwrap());
        assert!(
            text.contains("\n  cpus    64 workers round-robin on CPUs 0-1"),
            "{text}"
        );
    }
}
