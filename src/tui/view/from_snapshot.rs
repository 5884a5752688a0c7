//! A session [`Snapshot`] as the view model: pure conversions, no I/O.

use std::collections::BTreeMap;

use crate::bench::spec::RwMode;
use crate::record::RunStatus;
use crate::session::{DirectionView, SessionState, Snapshot};
use crate::stats::LatencySummary;
use crate::tui::view::{
    Direction, HeatColumn, HeatmapView, LatencyBucket, LatencyColumns, LatencyRow, LatencyView,
    Percentiles, RatePoint, Reconciliation, RunState, SegmentMark, ThroughputView, Warning,
    WarningKind,
};

#[must_use]
pub fn run_state(snap: &Snapshot) -> RunState {
    match &snap.state {
        SessionState::Preparing { .. } => RunState::Preparing,
        SessionState::Ramp | SessionState::Running => RunState::Running,
        SessionState::Paused => RunState::Paused,
        SessionState::Idle => RunState::Stopped,
        SessionState::Finished(RunStatus::Completed) => RunState::Finished,
        SessionState::Finished(RunStatus::Interrupted) => RunState::Interrupted,
        SessionState::Finished(RunStatus::Failed) => RunState::Failed(
            snap.error
                .clone()
                .unwrap_or_else(|| "the run failed".into()),
        ),
    }
}

/// A line for the footer about where the session is, when it is not simply running.
#[must_use]
pub fn state_message(snap: &Snapshot) -> Option<String> {
    match &snap.state {
        SessionState::Preparing {
            done_bytes,
            total_bytes,
        } => Some(format!(
            "preparing: writing the working set {}%",
            done_bytes * 100 / (*total_bytes).max(1)
        )),
        SessionState::Ramp => Some("ramp: warming up, not measured".into()),
        SessionState::Idle => Some("stopped: s starts a new segment, q quits".into()),
        SessionState::Finished(_) => Some("the run has ended: q quits".into()),
        SessionState::Running | SessionState::Paused => None,
    }
}

pub fn percentiles(summary: &LatencySummary) -> Percentiles {
    Percentiles {
        p50_ns: summary.percentile_ns(50.0),
        p90_ns: summary.percentile_ns(90.0),
        p99_ns: summary.percentile_ns(99.0),
        p999_ns: summary.percentile_ns(99.9),
        max_ns: summary.max_ns,
    }
}

fn pick(dir: Direction, v: &crate::session::StatsView) -> &DirectionView {
    match dir {
        Direction::Read => &v.read,
        Direction::Write => &v.write,
        Direction::Sync => &v.sync,
    }
}

#[must_use]
pub fn latency(snap: &Snapshot) -> LatencyView {
    let syncs = snap.job.sync_every.is_some() || snap.cumulative.sync.ios > 0;
    let dirs = [
        (
            Direction::Read,
            snap.job.reads() || snap.cumulative.read.ios > 0,
        ),
        (
            Direction::Write,
            snap.job.writes() || snap.cumulative.write.ios > 0,
        ),
        (Direction::Sync, syncs),
    ];
    let rows = dirs
        .iter()
        .filter(|(_, shown)| *shown)
        .map(|&(dir, _)| {
            let of = |d: &DirectionView| (d.ios > 0).then(|| percentiles(&d.latency));
            LatencyRow {
                dir,
                interval: snap.interval.as_ref().and_then(|v| of(pick(dir, v))),
                total: of(pick(dir, &snap.cumulative)),
            }
        })
        .collect();
    // Reads and writes share the histogram; sync calls are another kind of latency.
    let mut buckets: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    if let Some(v) = &snap.interval {
        for b in v.read.buckets.iter().chain(&v.write.buckets) {
            buckets.entry(b.le_ns).or_default().0 += b.count;
        }
    }
    let c = &snap.cumulative;
    for b in c.read.buckets.iter().chain(&c.write.buckets) {
        buckets.entry(b.le_ns).or_default().1 += b.count;
    }
    LatencyView {
        rows,
        buckets: buckets
            .into_iter()
            .map(|(upper_ns, (interval, total))| LatencyBucket {
                upper_ns,
                interval,
                total,
            })
            .collect(),
        columns: LatencyColumns::IntervalSegment,
        heatmap: Some(heatmap(snap, heat_direction(&dirs))),
    }
}

/// The heatmap's direction: reads when the job reads, else writes, else syncs.
pub fn heat_direction(shown: &[(Direction, bool)]) -> Direction {
    shown
        .iter()
        .find(|(_, on)| *on)
        .map_or(Direction::Read, |&(dir, _)| dir)
}

/// One column per interval of the session's latency history, for `dir`.
#[must_use]
pub fn heatmap(snap: &Snapshot, dir: Direction) -> HeatmapView {
    HeatmapView {
        dir,
        columns: snap
            .latency_history
            .iter()
            .map(|interval| HeatColumn {
                t_s: interval.at.as_secs_f64(),
                buckets: match dir {
                    Direction::Read => &interval.read,
                    Direction::Write => &interval.write,
                    Direction::Sync => &interval.sync,
                }
                .iter()
                .map(|b| (b.le_ns, b.count))
                .collect(),
            })
            .collect(),
        missing: None,
    }
}

#[must_use]
pub fn throughput(snap: &Snapshot) -> ThroughputView {
    ThroughputView {
        source: "app".into(),
        points: snap
            .series
            .iter()
            .map(|p| RatePoint {
                t_s: p.at.as_secs_f64(),
                read_iops: p.read_iops,
                write_iops: p.write_iops,
                read_bytes_per_s: p.read_bw_bytes_per_s,
                write_bytes_per_s: p.write_bw_bytes_per_s,
            })
            .collect(),
        headline: None,
        segments: snap
            .segments
            .iter()
            .filter(|s| s.at.as_secs_f64() > 0.0)
            .map(|s| SegmentMark {
                t_s: s.at.as_secs_f64(),
                label: s.job.clone(),
            })
            .collect(),
    }
}

#[must_use]
pub fn reconciliation(snap: &Snapshot) -> Option<Reconciliation> {
    snap.reconciliation.as_ref().map(|r| Reconciliation {
        app_ios: r.app_read_ios + r.app_write_ios,
        device_ios: r.device_read_ios + r.device_write_ios,
        verdict: Some(r.verdict.clone()),
    })
}

/// The session's warnings, the engine fallback and the error, as panel warnings.
#[must_use]
pub fn warnings(snap: &Snapshot) -> Vec<Warning> {
    let mut out = Vec::new();
    if let Some(err) = &snap.error {
        out.push(Warning::new(WarningKind::Error, err.clone()));
    }
    for w in &snap.warnings {
        let kind = if w.is_page_cache() {
            WarningKind::PageCache
        } else {
            WarningKind::Note
        };
        out.push(Warning::new(kind, w.to_string()));
    }
    if let Some(fallback) = &snap.engine.fallback {
        out.push(Warning::new(WarningKind::FallbackEngine, fallback.clone()));
    }
    out
}

/// `io_uring`, or `psync (fallback)` when the engine was replaced.
#[must_use]
pub fn engine_label(snap: &Snapshot) -> String {
    if snap.engine.fallback.is_some() {
        format!("{} (fallback)", snap.engine.used)
    } else {
        snap.engine.used.clone()
    }
}

/// The job in fio words without the engine, which the header shows on its own.
#[must_use]
pub fn job_label(snap: &Snapshot) -> String {
    let engine = format!(" {} ", snap.job.ioengine.as_str());
    snap.job.describe().replacen(&engine, " ", 1)
}

/// The rw mode `m` switches to next.
#[must_use]
pub fn next_rw(rw: RwMode) -> RwMode {
    match rw {
        RwMode::RandRead => RwMode::Read,
        RwMode::Read => RwMode::RandWrite,
        RwMode::RandWrite => RwMode::Write,
        RwMode::Write => RwMode::RandRw,
        RwMode::RandRw => RwMode::Rw,
        RwMode::Rw => RwMode::RandRead,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rw_cycle_visits_all_six_modes() {
        let mut rw = RwMode::RandRead;
        let mut seen = vec![rw];
        for _ in 0..5 {
            rw = next_rw(rw);
            assert!(!seen.contains(&rw));
            seen.push(rw);
        }
        assert_eq!(next_rw(rw), RwMode::RandRead);
    }

    #[test]
    fn percentiles_come_from_fio_list() {
        let s = LatencySummary {
            count: 10,
            max_ns: 900,
            percentiles_ns: vec![(50.0, 100), (90.0, 200), (99.0, 300), (99.9, 400)],
            ..LatencySummary::default()
        };
        let p = percentiles(&s);
        assert_eq!(
            (p.p50_ns, p.p90_ns, p.p99_ns, p.p999_ns, p.max_ns),
            (100, 200, 300, 400, 900)
        );
    }
}
