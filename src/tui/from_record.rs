//! A recorded run (`diskdash bench --json`) as the view model, for `diskdash show`: the
//! series of every segment end to end, the latency of the last segment and of the whole run,
//! the device as recorded. Pure: the record in, a view out.

use std::time::Duration;

use crate::record::{DirectionRecord, LatencyRecord, RunRecord, RunStatus};
use crate::tui::view::{
    DeviceRates, DeviceView, Direction, Header, LatencyColumns, LatencyRow, LatencyView, Mode,
    Percentiles, QueueView, RatePoint, Reconciliation, RunState, SegmentMark, ThroughputView,
    UiState, View, Warning, WarningKind,
};

const NS: f64 = 1e9;

fn pct(lat: &LatencyRecord, p: f64) -> u64 {
    lat.percentile
        .0
        .iter()
        .find(|(q, _)| (q - p).abs() < 1e-9)
        .map_or(0, |&(_, ns)| ns)
}

fn percentiles(lat: &LatencyRecord) -> Option<Percentiles> {
    (lat.n > 0).then(|| Percentiles {
        p50_ns: pct(lat, 50.0),
        p90_ns: pct(lat, 90.0),
        p99_ns: pct(lat, 99.0),
        p999_ns: pct(lat, 99.9),
        max_ns: lat.max,
    })
}

/// Device rates from an `iostat -x` object with sysstat's JSON keys.
#[must_use]
pub fn device_rates(row: &serde_json::Value) -> DeviceRates {
    let f = |k: &str| {
        row.get(k)
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(0.0)
    };
    DeviceRates {
        r_s: f("r/s"),
        w_s: f("w/s"),
        rmb_s: f("rkB/s") / 1024.0,
        wmb_s: f("wkB/s") / 1024.0,
        r_await_ms: f("r_await"),
        w_await_ms: f("w_await"),
        aqu_sz: f("aqu-sz"),
        util_pct: f("util"),
    }
}

/// A JSON object's scalar fields as rows (`null` left out, lists joined).
fn settings(value: &serde_json::Value) -> Vec<(String, String)> {
    let Some(map) = value.as_object() else {
        return Vec::new();
    };
    map.iter()
        .filter_map(|(k, v)| {
            let text = match v {
                serde_json::Value::Null => return None,
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join(" "),
                other => other.to_string(),
            };
            Some((k.clone(), text))
        })
        .collect()
}

fn iops(d: &DirectionRecord) -> f64 {
    d.iops
}

/// The whole view of a record.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn view(record: &RunRecord, ui: UiState) -> View {
    let mut points = Vec::new();
    let mut marks = Vec::new();
    let mut device_history = Vec::new();
    let mut base_ns = 0u64;
    for seg in &record.segments {
        if base_ns > 0 {
            marks.push(SegmentMark {
                t_s: base_ns as f64 / NS,
                label: seg.job.description.clone(),
            });
        }
        for p in &seg.series {
            points.push(RatePoint {
                t_s: (base_ns + p.t_ns) as f64 / NS,
                read_iops: iops(&p.read),
                write_iops: iops(&p.write),
                read_bytes_per_s: p.read.bw_bytes as f64,
                write_bytes_per_s: p.write.bw_bytes as f64,
            });
            if let Some(dev) = &p.device {
                device_history.push(device_rates(dev));
            }
        }
        base_ns += seg.elapsed_ns;
    }

    let last = record.segments.last();
    let dirs = [
        (
            Direction::Read,
            &record.read.lat_ns,
            last.map(|s| &s.read.lat_ns),
        ),
        (
            Direction::Write,
            &record.write.lat_ns,
            last.map(|s| &s.write.lat_ns),
        ),
        (
            Direction::Sync,
            &record.sync.lat_ns,
            last.map(|s| &s.sync.lat_ns),
        ),
    ];
    let rows = dirs
        .iter()
        .filter(|(_, total, _)| total.n > 0)
        .map(|(dir, total, seg)| LatencyRow {
            dir: *dir,
            interval: seg.and_then(percentiles),
            total: percentiles(total),
        })
        .collect();

    let mut warnings = Vec::new();
    if let Some(err) = &record.error {
        warnings.push(Warning::new(WarningKind::Error, err.message.clone()));
    }
    for w in &record.warnings {
        let kind = if w.contains("page cache") {
            WarningKind::PageCache
        } else {
            WarningKind::Note
        };
        warnings.push(Warning::new(kind, w.clone()));
    }
    if let Some(fallback) = &record.engine.fallback {
        warnings.push(Warning::new(WarningKind::FallbackEngine, fallback.clone()));
    }
    let device = record.device.as_ref().map(|d| DeviceView {
        name: d.name.clone(),
        now: device_rates(&d.iostat),
        history: device_history,
        reconciliation: Some(Reconciliation {
            app_ios: d.reconciliation.app_read_ios + d.reconciliation.app_write_ios,
            device_ios: d.reconciliation.device_read_ios + d.reconciliation.device_write_ios,
            verdict: Some(d.reconciliation.verdict.clone()),
        }),
        warnings,
        absent: None,
    });
    let queue = record.device.as_ref().map(|d| QueueView {
        disk: d.disk.clone(),
        settings: settings(&d.queue),
    });
    let state = match record.status {
        RunStatus::Failed => RunState::Failed(
            record
                .error
                .as_ref()
                .map_or_else(|| "the run failed".into(), |e| e.message.clone()),
        ),
        RunStatus::Completed | RunStatus::Interrupted => RunState::Recorded,
    };
    let status = match record.status {
        RunStatus::Completed => "completed",
        RunStatus::Interrupted => "interrupted",
        RunStatus::Failed => "failed",
    };
    let engine = if record.engine.fallback.is_some() {
        format!("{} (fallback)", record.engine.used)
    } else {
        record.engine.used.clone()
    };
    let job = last.map_or_else(
        || record.job.description.clone(),
        |s| s.job.description.clone(),
    );
    let mut ui = ui;
    ui.message = Some(format!("recorded {} ({status})", record.started_at));
    let n = record.segments.len();
    View {
        mode: Mode::Show,
        header: Header {
            host: record.host.hostname.clone(),
            kernel: format!("Linux {}", record.host.kernel),
            target: Some(record.target.path.clone()),
            disk: record.device.as_ref().map(|d| d.name.clone()),
            engine: Some(engine),
            job: Some(job),
            state: Some(state),
            elapsed: Duration::from_nanos(record.elapsed_ns),
            remaining: None,
            segment: (n > 0).then_some((n, n)),
            interval: None,
        },
        throughput: Some(ThroughputView {
            source: "app".into(),
            points,
            segments: marks,
        }),
        latency: Some(LatencyView {
            rows,
            // Records keep percentiles, not histogram buckets.
            buckets: Vec::new(),
            columns: LatencyColumns::SegmentRun,
        }),
        device,
        queue,
        disks: None,
        ui,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_skip_nulls_and_join_lists() {
        let v = serde_json::json!({"scheduler": "none", "nr_requests": 256, "zoned": null,
            "schedulers_available": ["none", "mq-deadline"], "rotational": false});
        let s = settings(&v);
        assert!(s.contains(&("nr_requests".into(), "256".into())));
        assert!(s.contains(&("schedulers_available".into(), "none mq-deadline".into())));
        assert!(s.contains(&("rotational".into(), "false".into())));
        assert!(!s.iter().any(|(k, _)| k == "zoned"));
    }
}
