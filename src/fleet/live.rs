//! The live fleet, as the dashboard reads it: each host's state, the intervals it sent, and the
//! fleet's intervals (the hosts' intervals of the same index merged: rates added, histograms
//! merged bucket by bucket). The controller (`cmd::fleet`) writes it as the run goes; the
//! dashboard (`tui::source::fleet`) builds its frames from it. Pure: no clock, no I/O.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::merge::{Rates, merge_direction, merge_sync};
use crate::record::{DirectionRecord, IntervalRecord, SyncRecord};

/// Rate points kept per series (an hour at 1 s intervals); older ones drop off the chart.
pub const MAX_POINTS: usize = 3600;
/// Latency histograms kept per series for the heatmap (wider than any terminal).
pub const MAX_HEAT: usize = 600;

/// Where a host is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HostState {
    /// Nothing heard from it yet (ssh is connecting, or diskdash starting there).
    #[default]
    Connecting,
    /// Filling its working set.
    Preparing,
    /// Prepared, waiting for the fleet's start.
    Ready,
    Running,
    /// Told to stop; draining and sending its record.
    Stopping,
    /// Its run ended and its connection closed.
    Done,
    /// Its run failed, or its connection dropped.
    Failed,
    /// Not ready within `--ready-timeout`: left out of the run.
    LeftOut,
}

impl HostState {
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Connecting => "connecting",
            Self::Preparing => "preparing",
            Self::Ready => "ready",
            Self::Running => "running",
            Self::Stopping => "stopping",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::LeftOut => "left out",
        }
    }
}

/// Where the fleet is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FleetState {
    /// Connecting and preparing, before the start.
    #[default]
    Starting,
    Running,
    /// Every host was told to stop.
    Stopping,
    Finished,
    Interrupted,
    Failed(String),
}

/// One interval's rates, for the charts.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Point {
    /// End of the interval, seconds since the first step's measured window began.
    pub t_s: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_bytes_per_s: f64,
    pub write_bytes_per_s: f64,
    pub trim_iops: f64,
    pub trim_bytes_per_s: f64,
}

/// One interval's latency histograms (sparse `(le_ns, count)`), for the heatmap.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Heat {
    pub t_s: f64,
    pub read: Vec<(u64, u64)>,
    pub write: Vec<(u64, u64)>,
    pub sync: Vec<(u64, u64)>,
    pub trim: Vec<(u64, u64)>,
}

/// The intervals of a host, or of the fleet.
#[derive(Debug, Clone, Default)]
pub struct Series {
    /// The latest interval, whole (rates, histograms, the device's `iostat -x`).
    pub last: Option<IntervalRecord>,
    pub points: VecDeque<Point>,
    pub heat: VecDeque<Heat>,
    /// Where each step after the first began, seconds (a sweep's points, a plan's steps).
    pub steps: Vec<(f64, u32)>,
    /// The current step so far: its intervals merged.
    pub step_read: DirectionRecord,
    pub step_write: DirectionRecord,
    pub step_sync: SyncRecord,
    pub step_trim: DirectionRecord,
    pub step_elapsed_ns: u64,
    /// The step of `last`, and where it began on the time axis, ns.
    step: u32,
    base_ns: u64,
    step_end_ns: u64,
}

impl Series {
    /// Takes in the next interval.
    pub fn push(&mut self, interval: IntervalRecord) {
        if self.last.is_some() && interval.step != self.step {
            self.base_ns += self.step_end_ns;
            self.steps.push((self.base_ns as f64 / 1e9, interval.step));
            self.step_read = DirectionRecord::default();
            self.step_write = DirectionRecord::default();
            self.step_sync = SyncRecord::default();
            self.step_trim = DirectionRecord::default();
            self.step_elapsed_ns = 0;
        }
        self.step = interval.step;
        self.step_end_ns = interval.t_ns;
        self.step_elapsed_ns += interval.duration_ns;
        let over = Rates::Over(self.step_elapsed_ns);
        self.step_read = merge_direction(&[&self.step_read, &interval.read], over);
        self.step_write = merge_direction(&[&self.step_write, &interval.write], over);
        self.step_sync = merge_sync(&[&self.step_sync, &interval.sync]);
        self.step_trim = merge_direction(&[&self.step_trim, &interval.trim], over);
        let t_s = (self.base_ns + interval.t_ns) as f64 / 1e9;
        push_capped(
            &mut self.points,
            Point {
                t_s,
                read_iops: interval.read.iops,
                write_iops: interval.write.iops,
                read_bytes_per_s: interval.read.bw_bytes as f64,
                write_bytes_per_s: interval.write.bw_bytes as f64,
                trim_iops: interval.trim.iops,
                trim_bytes_per_s: interval.trim.bw_bytes as f64,
            },
            MAX_POINTS,
        );
        let buckets = |lat: &crate::record::LatencyRecord| {
            lat.histogram
                .iter()
                .flat_map(|h| h.buckets())
                .map(|b| (b.le_ns, b.count))
                .collect()
        };
        push_capped(
            &mut self.heat,
            Heat {
                t_s,
                read: buckets(&interval.read.lat_ns),
                write: buckets(&interval.write.lat_ns),
                sync: buckets(&interval.sync.lat_ns),
                trim: buckets(&interval.trim.lat_ns),
            },
            MAX_HEAT,
        );
        self.last = Some(interval);
    }
}

fn push_capped<T>(queue: &mut VecDeque<T>, item: T, cap: usize) {
    if queue.len() == cap {
        queue.pop_front();
    }
    queue.push_back(item);
}

/// A host of the fleet.
#[derive(Debug, Clone, Default)]
pub struct LiveHost {
    pub name: String,
    pub state: HostState,
    /// Why it failed or was left out.
    pub error: Option<String>,
    pub series: Series,
    /// Its `series.last` is of the fleet's latest interval (else its numbers are older, or it
    /// sent none).
    pub current: bool,
}

/// The whole fleet.
#[derive(Debug, Clone, Default)]
pub struct LiveFleet {
    /// What each host runs (`bench ...`).
    pub command: Vec<String>,
    pub hosts: Vec<LiveHost>,
    /// The hosts' intervals of the same index, merged.
    pub fleet: Series,
    /// How many hosts sent the fleet's latest interval.
    pub fleet_hosts: usize,
    pub state: FleetState,
    /// When the hosts were told to start.
    pub started: Option<Instant>,
    /// How long the run went, once it has ended.
    pub ended_after: Option<Duration>,
    /// How long the run is meant to take from the start, when the command says (a timed bench).
    pub planned: Option<Duration>,
    /// The latest thing worth a line (a host failed, a remote warning).
    pub message: Option<String>,
}

impl LiveFleet {
    #[must_use]
    pub fn new(hosts: &[String], command: &[String], planned: Option<Duration>) -> Self {
        Self {
            command: command.to_vec(),
            hosts: hosts
                .iter()
                .map(|name| LiveHost {
                    name: name.clone(),
                    ..LiveHost::default()
                })
                .collect(),
            planned,
            ..Self::default()
        }
    }

    /// Takes in one interval of the fleet: each host's of that index (`(host, interval)`, the
    /// hosts that sent it), as the headless table shows them.
    pub fn push_interval(&mut self, fronts: Vec<(usize, IntervalRecord)>) {
        if fronts.is_empty() {
            return;
        }
        let refs: Vec<&IntervalRecord> = fronts.iter().map(|(_, r)| r).collect();
        let merged = super::view::merge_interval(&refs);
        for host in &mut self.hosts {
            host.current = false;
        }
        self.fleet_hosts = fronts.len();
        for (i, interval) in fronts {
            if let Some(host) = self.hosts.get_mut(i) {
                host.current = true;
                host.series.push(interval);
            }
        }
        self.fleet.push(merged);
    }

    /// Time since the start (frozen once the run has ended); zero before it.
    #[must_use]
    pub fn elapsed(&self, now: Instant) -> Duration {
        self.ended_after.unwrap_or_else(|| {
            self.started
                .map_or(Duration::ZERO, |t| now.saturating_duration_since(t))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(step: u32, index: u64, ios: u64) -> IntervalRecord {
        let mut stats = crate::stats::DirectionStats::new();
        for _ in 0..ios {
            stats.record(4096, 100_000);
        }
        crate::stats::fixture::read_interval(step, index, &stats)
    }

    #[test]
    fn a_fleet_interval_sums_the_hosts_and_marks_who_sent_it() {
        let names = ["a".to_string(), "b".to_string(), "c".to_string()];
        let mut fleet = LiveFleet::new(&names, &["bench".into()], None);
        fleet.push_interval(vec![(0, interval(0, 0, 100)), (1, interval(0, 0, 50))]);
        let current: Vec<bool> = fleet.hosts.iter().map(|h| h.current).collect();
        assert_eq!(current, [true, true, false]);
        assert_eq!(fleet.fleet_hosts, 2);
        let last = fleet.fleet.last.as_ref().unwrap();
        assert_eq!(last.read.total_ios, 150);
        assert!((last.read.iops - 150.0).abs() < 1e-9);
        fleet.push_interval(vec![(0, interval(0, 1, 10))]);
        assert_eq!(fleet.hosts[0].series.step_read.total_ios, 110);
        assert!((fleet.hosts[0].series.step_read.iops - 55.0).abs() < 1e-9);
        assert!(!fleet.hosts[1].current);
        assert_eq!(fleet.fleet.points.len(), 2);
    }

    #[test]
    fn a_new_step_starts_its_totals_afresh_after_the_last() {
        let mut series = Series::default();
        series.push(interval(0, 0, 10));
        series.push(interval(0, 1, 10));
        series.push(interval(1, 0, 4));
        assert_eq!(series.step_read.total_ios, 4);
        assert_eq!(series.steps, [(2.0, 1)]);
        let t: Vec<f64> = series.points.iter().map(|p| p.t_s).collect();
        assert_eq!(t, [1.0, 2.0, 3.0]);
    }
}
