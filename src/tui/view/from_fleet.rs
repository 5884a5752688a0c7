//! The live fleet (`fleet::live`) as the view model, for `diskdash fleet` in a terminal: the
//! hosts are the jobs of the step (the jobs table, its selection and the charts work as for a
//! step of several jobs), the fleet's total is the step total. Every host row is over the
//! same interval (the one the headless table prints); the fleet row's rates are the hosts'
//! summed and its p50/p99 come from their histograms merged, never averaged. Pure: the live
//! fleet in, a view out.

use std::collections::BTreeMap;
use std::time::Duration;

use super::from_record::{by_direction, percentiles};
use crate::fleet::live::{FleetState, HostState, LiveFleet, LiveHost, Series};
use crate::fleet::merge::p50_p99;
use crate::record::{IntervalRecord, LatencyRecord};
use crate::tui::view::{
    Direction, Header, HeatColumn, HeatmapView, HostCells, JobRow, JobsSpan, JobsView,
    LatencyBucket, LatencyColumns, LatencyRow, LatencyView, Mode, RatePoint, RunState, StepMark,
    ThroughputView, UiState, View,
};

/// What the hosts table and the chart titles call the fleet's total.
pub const FLEET: &str = "fleet";

/// The whole screen: `selected` is the host the charts show (`None`: the fleet), `elapsed`
/// the time since the start.
#[must_use]
pub fn view(fleet: &LiveFleet, selected: Option<usize>, ui: UiState, elapsed: Duration) -> View {
    let selected = selected.filter(|&i| i < fleet.hosts.len());
    let (name, series) = match selected.and_then(|i| fleet.hosts.get(i)) {
        Some(host) => (host.name.as_str(), &host.series),
        None => (FLEET, &fleet.fleet),
    };
    let mut ui = ui;
    if ui.message.is_none() {
        ui.message.clone_from(&fleet.message);
    }
    View {
        mode: Mode::Fleet,
        header: header(fleet, elapsed),
        throughput: Some(throughput(name, series)),
        latency: Some(latency(name, series)),
        device: None,
        queue: None,
        disks: None,
        jobs: Some(jobs(fleet, selected)),
        sweep: None,
        steady: None,
        sustained: None,
        verify: None,
        top: None,
        trace: None,
        ui,
    }
}

/// Top lines: how many hosts, their names, the command each runs, the state and the times.
#[must_use]
pub fn header(fleet: &LiveFleet, elapsed: Duration) -> Header {
    let names: Vec<&str> = fleet.hosts.iter().map(|h| h.name.as_str()).collect();
    let n = names.len();
    let state = match &fleet.state {
        FleetState::Starting => RunState::Preparing,
        FleetState::Running => RunState::Running,
        FleetState::Stopping => RunState::Stopped,
        FleetState::Finished => RunState::Finished,
        FleetState::Interrupted => RunState::Interrupted,
        FleetState::Failed(why) => RunState::Failed(why.clone()),
    };
    let remaining = match fleet.state {
        FleetState::Running => fleet.planned.map(|p| p.saturating_sub(elapsed)),
        _ => None,
    };
    Header {
        host: format!("fleet of {n} host{}", if n == 1 { "" } else { "s" }),
        kernel: names.join(","),
        job: Some(fleet.command.join(" ")),
        state: Some(state),
        elapsed,
        remaining,
        ..Header::default()
    }
}

/// The hosts table: a row per host over the fleet's latest interval, and the fleet's.
#[must_use]
pub fn jobs(fleet: &LiveFleet, selected: Option<usize>) -> JobsView {
    let window = fleet.fleet.last.as_ref();
    JobsView {
        rows: fleet.hosts.iter().map(host_row).collect(),
        total: fleet_row(fleet),
        selected,
        span: JobsSpan::Hosts {
            interval: window.map_or(0, |w| w.index + 1),
            step: match window {
                Some(w) if w.step > 0 || !fleet.fleet.steps.is_empty() => w.step + 1,
                _ => 0,
            },
        },
    }
}

/// A host's row: its state, and its rates over the table's interval when it sent it.
#[must_use]
pub fn host_row(host: &LiveHost) -> JobRow {
    let interval = host.series.last.as_ref().filter(|_| host.current);
    JobRow {
        name: host.name.clone(),
        errors: u32::from(host.error.is_some()),
        host: Some(HostCells {
            state: host.state.label().to_string(),
            measured: interval.is_some(),
            util_pct: interval.and_then(|r| r.device.as_ref()).map(|d| d.util_pct),
            error: host.error.clone(),
        }),
        ..rates(interval)
    }
}

/// The fleet's row: the hosts' rates over the interval summed, p50/p99 from their histograms
/// merged, %util the busiest host's.
#[must_use]
pub fn fleet_row(fleet: &LiveFleet) -> JobRow {
    let interval = fleet.fleet.last.as_ref();
    let failed = fleet
        .hosts
        .iter()
        .filter(|h| matches!(h.state, HostState::Failed | HostState::LeftOut))
        .count();
    JobRow {
        name: FLEET.into(),
        errors: u32::try_from(failed).unwrap_or(u32::MAX),
        host: Some(HostCells {
            state: format!("{} of {}", fleet.fleet_hosts, fleet.hosts.len()),
            measured: interval.is_some(),
            util_pct: interval.and_then(|r| r.device.as_ref()).map(|d| d.util_pct),
            error: (failed > 0).then(|| format!("{failed} host{} out", plural(failed))),
        }),
        ..rates(interval)
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Reads, writes and trims together over `interval`; p50/p99 from their histograms merged.
fn rates(interval: Option<&IntervalRecord>) -> JobRow {
    let Some(r) = interval else {
        return JobRow::default();
    };
    let (p50_ns, p99_ns) = p50_p99(&[&r.read, &r.write, &r.trim]);
    JobRow {
        iops: r.read.iops + r.write.iops + r.trim.iops,
        bytes_per_s: (r.read.bw_bytes + r.write.bw_bytes + r.trim.bw_bytes) as f64,
        p50_ns,
        p99_ns,
        ..JobRow::default()
    }
}

/// Throughput and IOPS of `series` over time, named.
#[must_use]
pub fn throughput(name: &str, series: &Series) -> ThroughputView {
    ThroughputView {
        source: name.to_string(),
        points: series
            .points
            .iter()
            .map(|p| RatePoint {
                t_s: p.t_s,
                read_iops: p.read_iops,
                write_iops: p.write_iops,
                read_bytes_per_s: p.read_bytes_per_s,
                write_bytes_per_s: p.write_bytes_per_s,
                trim_iops: p.trim_iops,
                trim_bytes_per_s: p.trim_bytes_per_s,
                range: None,
                stalled_s: 0.0,
            })
            .collect(),
        steps: series
            .steps
            .iter()
            .map(|&(t_s, step)| StepMark {
                t_s,
                label: format!("step {}", step + 1),
            })
            .collect(),
        headline: None,
        pace: None,
    }
}

/// The latency panel of `series`, named: the last interval beside the step so far, the
/// histogram of reads, writes and trims, the heatmap of the first direction with I/O.
#[must_use]
pub fn latency(name: &str, series: &Series) -> LatencyView {
    let last = series.last.as_ref();
    let dirs = by_direction(
        [
            &series.step_read.lat_ns,
            &series.step_write.lat_ns,
            &series.step_sync.lat_ns,
            &series.step_trim.lat_ns,
        ],
        last.map(|r| {
            [
                &r.read.lat_ns,
                &r.write.lat_ns,
                &r.sync.lat_ns,
                &r.trim.lat_ns,
            ]
        }),
    );
    let rows = dirs
        .iter()
        .filter(|(_, step, _)| step.n > 0)
        .map(|(dir, step, interval)| LatencyRow {
            dir: *dir,
            interval: interval.and_then(percentiles),
            total: percentiles(step),
            from_schedule: false,
        })
        .collect();
    let heat_dir = dirs
        .iter()
        .find(|(_, step, _)| step.n > 0)
        .map_or(Direction::Read, |(dir, _, _)| *dir);
    // Reads, writes and trims share the histogram; sync calls are another kind of latency.
    let mut counts: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    let mut add = |lat: &LatencyRecord, interval: bool| {
        for b in lat.histogram.iter().flat_map(|h| h.buckets()) {
            let entry = counts.entry(b.le_ns).or_default();
            if interval {
                entry.0 += b.count;
            } else {
                entry.1 += b.count;
            }
        }
    };
    if let Some(r) = last {
        add(&r.read.lat_ns, true);
        add(&r.write.lat_ns, true);
        add(&r.trim.lat_ns, true);
    }
    add(&series.step_read.lat_ns, false);
    add(&series.step_write.lat_ns, false);
    add(&series.step_trim.lat_ns, false);
    LatencyView {
        rows,
        buckets: LatencyBucket::from_counts(counts),
        columns: LatencyColumns::IntervalStep,
        heatmap: Some(HeatmapView {
            dir: heat_dir,
            columns: series
                .heat
                .iter()
                .map(|h| HeatColumn {
                    t_s: h.t_s,
                    buckets: match heat_dir {
                        Direction::Read => h.read.clone(),
                        Direction::Write => h.write.clone(),
                        Direction::Sync => h.sync.clone(),
                        Direction::Trim => h.trim.clone(),
                    },
                })
                .collect(),
            missing: None,
        }),
        of: Some(name.to_string()),
        what: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::DirectionRecord;
    use crate::stats::DirectionStats;

    fn stats(latencies: &[(u64, u64)]) -> DirectionStats {
        let mut stats = DirectionStats::new();
        for &(ns, n) in latencies {
            for _ in 0..n {
                stats.record(4096, ns);
            }
        }
        stats
    }

    fn interval(index: u64, latencies: &[(u64, u64)], util: f64) -> IntervalRecord {
        let mut device = crate::monitor::iostat::IostatRow::idle("vda");
        device.util_pct = util;
        IntervalRecord {
            device: Some(device),
            ..crate::stats::fixture::read_interval(0, index, &stats(latencies))
        }
    }

    fn fleet() -> LiveFleet {
        let names: Vec<String> = ["h1", "h2", "h3"].iter().map(|s| s.to_string()).collect();
        let mut fleet = LiveFleet::new(&names, &["bench".into(), "/data".into()], None);
        fleet.state = FleetState::Running;
        for host in &mut fleet.hosts {
            host.state = HostState::Running;
        }
        fleet.push_interval(vec![
            (0, interval(0, &[(100_000, 900), (2_000_000, 100)], 40.0)),
            (1, interval(0, &[(300_000, 1000)], 75.5)),
            (2, interval(0, &[(50_000, 10)], 5.0)),
        ]);
        fleet
    }

    #[test]
    fn a_running_host_is_its_interval_and_a_failed_one_says_why_without_numbers() {
        let mut fleet = fleet();
        let row = host_row(&fleet.hosts[0]);
        let cells = row.host.clone().unwrap();
        assert_eq!(cells.state, "running");
        assert!(cells.measured);
        assert_eq!(cells.util_pct, Some(40.0));
        assert!((row.iops - 1000.0).abs() < 1e-9);
        assert!((row.bytes_per_s - 4096.0 * 1000.0).abs() < 1e-6);
        // One direction: its own percentiles, as the latency panel shows them.
        let lat = &fleet.hosts[0].series.last.as_ref().unwrap().read.lat_ns;
        assert_eq!(row.p50_ns, lat.percentile_ns(50.0));
        assert_eq!(row.p99_ns, lat.percentile_ns(99.0));
        assert!(row.p50_ns.unwrap().abs_diff(100_000) < 1_000);
        assert!(row.p99_ns.unwrap().abs_diff(2_000_000) < 20_000);
        assert_eq!(row.errors, 0);

        // h3 drops: the next interval has two hosts.
        fleet.hosts[2].state = HostState::Failed;
        fleet.hosts[2].error = Some("dropped mid-run: connection closed".into());
        fleet.push_interval(vec![
            (0, interval(1, &[(100_000, 10)], 41.0)),
            (1, interval(1, &[(300_000, 10)], 70.0)),
        ]);
        let row = host_row(&fleet.hosts[2]);
        let cells = row.host.unwrap();
        assert_eq!(cells.state, "failed");
        assert!(!cells.measured, "its numbers are of an older interval");
        assert_eq!(
            cells.error.as_deref(),
            Some("dropped mid-run: connection closed")
        );
        assert_eq!((row.iops, row.p99_ns), (0.0, None));
        assert_eq!(row.errors, 1);
        let total = fleet_row(&fleet);
        let cells = total.host.unwrap();
        assert_eq!(cells.state, "2 of 3");
        assert_eq!(cells.error.as_deref(), Some("1 host out"));
        assert_eq!(cells.util_pct, Some(70.0), "the busiest host");
        assert!((total.iops - 20.0).abs() < 1e-9);
        for (state, label) in [
            (HostState::Connecting, "connecting"),
            (HostState::LeftOut, "left out"),
            (HostState::Done, "done"),
        ] {
            fleet.hosts[0].state = state;
            assert_eq!(host_row(&fleet.hosts[0]).host.unwrap().state, label);
        }
    }

    /// The fleet's p99 is the p99 of the hosts' histograms taken together: here 1000 I/Os at
    /// 300 us on one host, 900 at 100 us + 100 at 2 ms on another and 10 at 50 us on a third
    /// put p99 at 2 ms, where the mean of the hosts' p99s would be about 0.8 ms.
    #[test]
    fn the_fleet_p99_is_the_p99_of_the_union_of_the_hosts_histograms() {
        let fleet = fleet();
        let mut union = BTreeMap::<u64, u64>::new();
        for host in &fleet.hosts {
            let h = host.series.last.as_ref().unwrap();
            for b in h.read.lat_ns.histogram.as_ref().unwrap().buckets() {
                *union.entry(b.le_ns).or_default() += b.count;
            }
        }
        let buckets: Vec<crate::stats::LatencyBucket> = union
            .into_iter()
            .map(|(le_ns, count)| crate::stats::LatencyBucket { le_ns, count })
            .collect();
        let total = fleet_row(&fleet);
        let max = fleet
            .hosts
            .iter()
            .map(|h| h.series.last.as_ref().unwrap().read.lat_ns.max)
            .max()
            .unwrap();
        assert_eq!(
            total.p99_ns,
            Some(crate::stats::bucket_percentile_ns(&buckets, 99.0).min(max))
        );
        assert_eq!(
            total.p50_ns,
            Some(crate::stats::bucket_percentile_ns(&buckets, 50.0).min(max))
        );
        let le = |ns| crate::stats::fine_bucket_le_ns(ns, crate::stats::FINE_SUB_BUCKET_BITS);
        assert_eq!(total.p99_ns, Some(le(2_000_000).min(max)));
        assert!((total.iops - 2010.0).abs() < 1e-9);
        let (p99s, n): (u64, u64) = fleet
            .hosts
            .iter()
            .map(|h| (host_row(h).p99_ns.unwrap(), 1))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        assert_ne!(total.p99_ns, Some(p99s / n), "not the mean of the p99s");
    }

    /// A trimming host's discards count in its rates and its latency, and in the fleet's.
    #[test]
    fn trims_count_in_the_rows_and_the_charts() {
        let names = ["t".to_string(), "r".to_string()];
        let mut fleet = LiveFleet::new(&names, &["bench".into()], None);
        let mut trimming = interval(0, &[], 10.0);
        let s = stats(&[(4_000_000, 50)]);
        trimming.trim = DirectionRecord::from_stats(&s, 1_000_000_000).with_interval_histogram(&s);
        fleet.push_interval(vec![
            (0, trimming),
            (1, interval(0, &[(100_000, 150)], 20.0)),
        ]);
        assert!((host_row(&fleet.hosts[0]).iops - 50.0).abs() < 1e-9);
        let le = |ns| crate::stats::fine_bucket_le_ns(ns, crate::stats::FINE_SUB_BUCKET_BITS);
        let trims = &fleet.hosts[0].series.last.as_ref().unwrap().trim.lat_ns;
        let max = trims.max;
        assert_eq!(host_row(&fleet.hosts[0]).p99_ns, trims.percentile_ns(99.0));
        let total = fleet_row(&fleet);
        assert!((total.iops - 200.0).abs() < 1e-9);
        assert_eq!(total.p50_ns, Some(le(100_000)));
        assert_eq!(total.p99_ns, Some(le(4_000_000).min(max)));
        let v = view(&fleet, None, UiState::default(), Duration::ZERO);
        let point = v.throughput.unwrap().points[0];
        assert!((point.trim_iops - 50.0).abs() < 1e-9);
        let dirs: Vec<Direction> = v.latency.unwrap().rows.iter().map(|r| r.dir).collect();
        assert_eq!(dirs, [Direction::Read, Direction::Trim]);
    }

    #[test]
    fn the_charts_follow_the_selected_host_or_show_the_fleet() {
        let fleet = fleet();
        let v = view(&fleet, Some(1), UiState::default(), Duration::from_secs(3));
        assert_eq!(v.throughput.as_ref().unwrap().source, "h2");
        assert_eq!(v.latency.as_ref().unwrap().of.as_deref(), Some("h2"));
        let jobs = v.jobs.unwrap();
        assert_eq!(jobs.selected, Some(1));
        assert_eq!(
            jobs.span,
            JobsSpan::Hosts {
                interval: 1,
                step: 0
            }
        );
        let v = view(&fleet, None, UiState::default(), Duration::from_secs(3));
        assert_eq!(v.throughput.as_ref().unwrap().source, FLEET);
        let lat = v.latency.unwrap();
        assert_eq!(lat.rows.len(), 1);
        assert_eq!(lat.buckets.iter().map(|b| b.interval).sum::<u64>(), 2010);
        assert_eq!(v.header.host, "fleet of 3 hosts");
        assert_eq!(v.header.job.as_deref(), Some("bench /data"));
        assert_eq!(v.header.state, Some(RunState::Running));
    }

    #[test]
    fn the_time_left_is_the_planned_run_less_the_elapsed_while_it_runs() {
        let mut fleet = fleet();
        fleet.planned = Some(Duration::from_secs(30));
        let h = header(&fleet, Duration::from_secs(12));
        assert_eq!(h.remaining, Some(Duration::from_secs(18)));
        fleet.state = FleetState::Interrupted;
        assert_eq!(header(&fleet, Duration::from_secs(12)).remaining, None);
    }
}
