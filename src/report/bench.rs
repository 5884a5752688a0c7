//! Headless bench output: one status line per interval on stderr (that interval's rates, not
//! cumulative) and a summary on stdout, built from the run record, readable at a glance.

use std::fmt::Write as _;
use std::time::Duration;

use crate::bench::units::{format_bytes, format_latency_ns, format_rate};
use crate::record::{DirectionRecord, RunRecord, RunStatus};
use crate::session::SeriesPoint;

/// `[   3.0s] read 52.3k IOPS 204.3 MiB/s lat 611.2 us p99 1.20 ms | write ...`
#[must_use]
pub fn status_line(point: &SeriesPoint, reads: bool, writes: bool) -> String {
    let mut line = format!("[{:>7.1}s]", point.at.as_secs_f64());
    if reads {
        let _ = write!(
            line,
            " read {:>6} IOPS {:>11}/s lat {:>9} p99 {:>9}",
            format_rate(point.read_iops),
            format_bytes(point.read_bw_bytes_per_s as u64),
            format_latency_ns(point.read_lat_mean_ns),
            format_latency_ns(point.read_lat_p99_ns as f64),
        );
    }
    if reads && writes {
        line.push_str(" |");
    }
    if writes {
        let _ = write!(
            line,
            " write {:>6} IOPS {:>11}/s lat {:>9} p99 {:>9}",
            format_rate(point.write_iops),
            format_bytes(point.write_bw_bytes_per_s as u64),
            format_latency_ns(point.write_lat_mean_ns),
            format_latency_ns(point.write_lat_p99_ns as f64),
        );
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

/// The end-of-run summary.
#[must_use]
pub fn summary(record: &RunRecord) -> String {
    let mut out = String::new();
    let status = match record.status {
        RunStatus::Completed => "completed",
        RunStatus::Interrupted => "interrupted",
        RunStatus::Failed => "FAILED",
    };
    let _ = writeln!(out, "diskdash bench: {}", record.job.description);
    let _ = writeln!(
        out,
        "  target  {} ({}, working set {}{}{})",
        record.target.path,
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
    }
    let _ = writeln!(out, "  engine  {engine}");
    if let Some(fallback) = &record.engine.fallback {
        let _ = writeln!(out, "  NOTE    {fallback}");
    }
    for note in &record.engine.notes {
        if record.engine.fallback.as_ref() != Some(note) {
            let _ = writeln!(out, "  note    {note}");
        }
    }
    let _ = writeln!(
        out,
        "  status  {status} after {:.2}s measured",
        Duration::from_nanos(record.elapsed_ns).as_secs_f64()
    );
    if let Some(error) = &record.error {
        let _ = writeln!(out, "  error   {}", error.message);
    }
    for (name, dir) in [("read", &record.read), ("write", &record.write)] {
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
            format_latency_ns(pct(&lat.percentile.0, 99.0) as f64),
            format_latency_ns(lat.max as f64),
        );
    }
    if record.read.total_ios + record.write.total_ios == 0 {
        let _ = writeln!(out, "  no I/O completed in the measured window");
    }
    let _ = writeln!(
        out,
        "  cpu     usr {:.1}% sys {:.1}% (of one CPU), {} context switches",
        record.cpu.usr_cpu, record.cpu.sys_cpu, record.cpu.ctx
    );
    if let Some(device) = &record.device {
        let io = &device.iostat;
        let num = |key: &str| {
            io.get(key)
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(0.0)
        };
        let scheduler = device
            .queue
            .get("scheduler")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("?");
        let _ = writeln!(
            out,
            "  device  {} ({scheduler}): r/s {:.1} w/s {:.1} rkB/s {:.1} wkB/s {:.1} r_await {:.2} \
             w_await {:.2} aqu-sz {:.2} %util {:.1}",
            device.name,
            num("r/s"),
            num("w/s"),
            num("rkB/s"),
            num("wkB/s"),
            num("r_await"),
            num("w_await"),
            num("aqu-sz"),
            num("util"),
        );
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
    }
    for warning in &record.warnings {
        let _ = writeln!(out, "  WARNING {warning}");
    }
    out
}

fn pct(list: &[(f64, u64)], want: f64) -> u64 {
    list.iter()
        .find(|(p, _)| (*p - want).abs() < 1e-9)
        .map_or(0, |&(_, ns)| ns)
}

fn direction(out: &mut String, name: &str, dir: &DirectionRecord) {
    let lat = &dir.lat_ns;
    let p = &lat.percentile.0;
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
        format_latency_ns(pct(p, 50.0) as f64),
        format_latency_ns(pct(p, 90.0) as f64),
        format_latency_ns(pct(p, 99.0) as f64),
        format_latency_ns(pct(p, 99.9) as f64),
        format_latency_ns(pct(p, 99.99) as f64),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_line_shows_only_active_directions() {
        let point = SeriesPoint {
            at: Duration::from_secs(3),
            read_iops: 52_300.0,
            read_bw_bytes_per_s: 214_220_800.0,
            read_lat_mean_ns: 611_200.0,
            read_lat_p99_ns: 1_200_000,
            ..SeriesPoint::default()
        };
        let line = status_line(&point, true, false);
        assert_eq!(
            line,
            "[    3.0s] read  52.3k IOPS   204.3 MiB/s lat  611.2 us p99   1.20 ms"
        );
        assert!(status_line(&point, true, true).contains(" | write      0 IOPS"));
    }
}
