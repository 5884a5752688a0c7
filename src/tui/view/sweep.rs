//! A sweep's results as the view model: one row per point of the plan (finished, running or
//! pending), where the plan is, and the chart of one metric against the last swept parameter.
//! Built from a session [`Snapshot`]; pure, no I/O.

use std::time::Duration;

use crate::record::RunStatus;
use crate::session::{PointRates, SessionState, Snapshot, StatsView};

/// What the sweep chart plots (`v` cycles them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SweepMetric {
    #[default]
    Bandwidth,
    Iops,
    /// The mean, with the p99 as a second series.
    MeanLatency,
    P99Latency,
}

impl SweepMetric {
    /// The next metric in the cycle the `v` key walks.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            Self::Bandwidth => Self::Iops,
            Self::Iops => Self::MeanLatency,
            Self::MeanLatency => Self::P99Latency,
            Self::P99Latency => Self::Bandwidth,
        }
    }

    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Bandwidth => "MB/s",
            Self::Iops => "IOPS",
            Self::MeanLatency => "mean latency (and p99)",
            Self::P99Latency => "p99 latency",
        }
    }
}

/// Where a point of the plan is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointState {
    Pending,
    Running,
    /// Finished: `Completed`, or `Interrupted` when skipped with `n` or stopped with `s`.
    Done(RunStatus),
}

/// One point: its values of the swept parameters and, once it ran, its results (the running
/// point's so far).
#[derive(Debug, Clone, PartialEq)]
pub struct SweepRow {
    pub values: Vec<String>,
    pub state: PointState,
    pub read: Option<PointRates>,
    pub write: Option<PointRates>,
    pub util_pct: Option<f64>,
    pub aqu_sz: Option<f64>,
    /// What the point runs otherwise than the sweep's options say (a batching value capped
    /// to its depth: `iodepth_batch_complete_min 8 -> 1 at iodepth 1`); known from the plan,
    /// so a pending point has them too.
    pub notes: Vec<String>,
}

/// One line of the chart: a combination of the other swept parameters (and a direction when
/// it does both), its value at each x position that has one.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepLine {
    pub label: String,
    /// `(x index, value)`; values in bytes/s, IO/s or ns.
    pub points: Vec<(usize, f64)>,
    /// The p99 of the same points, on the mean latency chart.
    pub p99: Vec<(usize, f64)>,
}

/// The chart of the chosen metric against the last swept parameter, its values at equal
/// spacing in plan order (sizes and depths are powers of two: equal spacing is their log axis).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SweepChart {
    pub x_name: String,
    pub x_values: Vec<String>,
    pub lines: Vec<SweepLine>,
}

/// The sweep panel: the plan line, the results table, the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepView {
    /// The swept parameters' names, in the points' order (`rw`, `bs`).
    pub params: Vec<String>,
    pub rows: Vec<SweepRow>,
    /// The running point (1-based) and how many there are.
    pub point: (usize, usize),
    /// Whether the sweep still runs (else it was stopped or is over).
    pub running: bool,
    /// Stopped (`s`) with points of its plan not run: not over, waiting for `q`.
    pub stopped: bool,
    /// The sweep so far: every started point's ramp and measured time.
    pub elapsed: Duration,
    /// The points left at the job's runtime and ramp, and the running one's rest; `None`
    /// once the sweep no longer runs, or while size-based points have no estimate yet.
    pub eta: Option<Duration>,
    pub metric: SweepMetric,
    pub chart: SweepChart,
}

impl SweepView {
    /// Whether the points are `diskdash mark`'s tests (CrystalDiskMark's names).
    #[must_use]
    pub fn is_mark(&self) -> bool {
        self.params.iter().any(|p| p == "test")
    }
}

/// The sweep of `snap`, when its plan is one (its steps carry points).
#[must_use]
pub fn sweep(snap: &Snapshot, metric: SweepMetric) -> Option<SweepView> {
    let points = &snap.plan_points;
    let first = points.iter().find(|p| !p.is_empty())?;
    // Every option any point names (a memory baseline's points add `baseline`), in order.
    let mut params: Vec<String> = Vec::new();
    for (name, _) in points.iter().flatten() {
        if !params.contains(name) {
            params.push(name.clone());
        }
    }
    // The x axis: the sweep's last option, as the first point names them.
    let x_of = first
        .last()
        .and_then(|(x, _)| params.iter().position(|p| p == x))
        .unwrap_or(0);
    // Idle before its first step, the sweep is about to start: not over.
    let running = matches!(
        snap.state,
        SessionState::Preparing { .. }
            | SessionState::Ramp
            | SessionState::Running
            | SessionState::Paused
    ) || (snap.state == SessionState::Idle && snap.step.marks.is_empty());
    // Between two points the step that ended is among the finished before the next starts.
    let running_step = (running && !snap.finished.iter().any(|r| r.step == snap.plan.index))
        .then_some(snap.plan.index);
    let rows: Vec<SweepRow> = points
        .iter()
        .enumerate()
        .map(|(step, point)| {
            let values = params
                .iter()
                .map(|name| {
                    point
                        .iter()
                        .find(|(n, _)| n == name)
                        .map_or_else(|| "-".into(), |(_, v)| v.clone())
                })
                .collect();
            let notes = snap.plan_notes.get(step).cloned().unwrap_or_default();
            // A step that ran twice shows its last run.
            if let Some(done) = snap.finished.iter().rev().find(|r| r.step == step) {
                // Its trust marks lead its notes: a marked point is not to be relied on.
                let mut notes = notes;
                if !done.marks.is_empty() {
                    let marks: Vec<&str> = done.marks.iter().map(|m| m.as_str()).collect();
                    notes.insert(0, marks.join(", "));
                }
                SweepRow {
                    values,
                    state: PointState::Done(done.status),
                    read: (done.read.ios > 0).then_some(done.read),
                    write: (done.write.ios > 0).then_some(done.write),
                    util_pct: done.util_pct,
                    aqu_sz: done.aqu_sz,
                    notes,
                }
            } else if running_step == Some(step) {
                let (read, write) = so_far(&snap.step.cumulative);
                // The disk's last interval, once it is this point's (it has measured I/O).
                let device = snap
                    .first_disk()
                    .and_then(|d| d.last.as_ref())
                    .filter(|_| read.is_some() || write.is_some());
                SweepRow {
                    values,
                    state: PointState::Running,
                    read,
                    write,
                    util_pct: device.map(|d| d.util_pct),
                    aqu_sz: device.map(|d| d.queue_size),
                    notes,
                }
            } else {
                SweepRow {
                    values,
                    state: PointState::Pending,
                    read: None,
                    write: None,
                    util_pct: None,
                    aqu_sz: None,
                    notes,
                }
            }
        })
        .collect();
    let count = snap.plan.count.max(points.len());
    let stopped = snap.state == SessionState::Idle
        && !running
        && rows.iter().any(|r| !matches!(r.state, PointState::Done(_)));
    Some(SweepView {
        chart: chart(&params, x_of, &rows, metric),
        params,
        rows,
        point: ((snap.plan.index + 1).min(count), count),
        stopped,
        running,
        elapsed: elapsed(snap),
        eta: if running { eta(snap) } else { None },
        metric,
    })
}

/// The sweep of a record (`diskdash show`): a row per step that has a point, each as it
/// ended; `None` when the record is not a sweep's.
#[must_use]
pub fn recorded(record: &crate::record::RunRecord, metric: SweepMetric) -> Option<SweepView> {
    let steps: Vec<&crate::record::StepRecord> = record
        .steps
        .iter()
        .filter(|s| !s.point.is_empty())
        .collect();
    if steps.is_empty() {
        return None;
    }
    let mut params: Vec<String> = Vec::new();
    for p in steps.iter().flat_map(|s| &s.point) {
        if !params.contains(&p.option) {
            params.push(p.option.clone());
        }
    }
    let x_of = steps[0]
        .point
        .last()
        .and_then(|p| params.iter().position(|n| *n == p.option))
        .unwrap_or(0);
    let rates = |d: &crate::record::DirectionRecord| {
        (d.total_ios > 0).then(|| PointRates {
            ios: d.total_ios,
            iops: d.iops,
            bytes_per_s: d.bw_bytes as f64,
            mean_ns: d.lat_ns.mean,
            p99_ns: d.lat_ns.percentile_ns(99.0).unwrap_or(0),
        })
    };
    let rows: Vec<SweepRow> = steps
        .iter()
        .map(|s| SweepRow {
            values: params
                .iter()
                .map(|name| {
                    s.point
                        .iter()
                        .find(|p| p.option == *name)
                        .map_or_else(|| "-".into(), |p| p.value.clone())
                })
                .collect(),
            state: PointState::Done(s.status),
            read: rates(&s.read),
            write: rates(&s.write),
            util_pct: s.device.as_ref().map(|d| d.iostat.util_pct),
            aqu_sz: s.device.as_ref().map(|d| d.iostat.queue_size),
            notes: s.notes.clone(),
        })
        .collect();
    let n = rows.len();
    Some(SweepView {
        chart: chart(&params, x_of, &rows, metric),
        params,
        rows,
        point: (n, n),
        running: false,
        stopped: false,
        elapsed: Duration::from_nanos(record.elapsed_ns),
        eta: None,
        metric,
    })
}

/// The running point's rates over its step so far.
fn so_far(v: &StatsView) -> (Option<PointRates>, Option<PointRates>) {
    let rates = |d: &crate::session::DirectionView| {
        (d.ios > 0).then(|| PointRates {
            ios: d.ios,
            iops: d.iops,
            bytes_per_s: d.bw_bytes_per_s,
            mean_ns: d.latency.mean_ns,
            p99_ns: d.latency.percentile_ns(99.0),
        })
    };
    (rates(&v.read), rates(&v.write))
}

/// The sweep so far: the measured time of its steps (the series' clock) and the ramps of
/// the points started.
fn elapsed(snap: &Snapshot) -> Duration {
    let measured = snap.step.marks.last().map_or(Duration::ZERO, |m| m.at) + snap.step.elapsed;
    let ramp = snap.job().ramp;
    let started = u32::try_from(snap.plan.index).unwrap_or(u32::MAX);
    let this_ramp = snap
        .step
        .ramp_remaining
        .map_or(ramp, |left| ramp.saturating_sub(left));
    measured + ramp.saturating_mul(started) + this_ramp
}

/// The running point's rest (its ramp left and its time left) and every point after it at the
/// job's ramp and runtime. Size-based points (`--io-size`) have no time: the running one ends
/// at its rate so far, the others take the measured average of those before it; `None`
/// until that is known.
fn eta(snap: &Snapshot) -> Option<Duration> {
    let count = snap.plan.count.max(snap.plan_points.len());
    let after = u32::try_from(count.saturating_sub(snap.plan.index + 1)).unwrap_or(u32::MAX);
    if snap.plan.bytes.is_none() {
        let per_point = snap.job().runtime + snap.job().ramp;
        let this = snap.step.remaining + snap.step.ramp_remaining.unwrap_or(Duration::ZERO);
        return Some(this + per_point.saturating_mul(after));
    }
    let this = super::from_snapshot::size_progress(snap)?.eta?;
    if after == 0 {
        return Some(this);
    }
    let before = u32::try_from(snap.plan.index).ok().filter(|&n| n > 0)?;
    let measured = snap.step.marks.last()?.at;
    Some(this + (measured / before).saturating_mul(after))
}

/// Sets the value at `x`, a later run replacing an earlier one.
fn put(points: &mut Vec<(usize, f64)>, x: usize, value: f64) {
    match points.iter_mut().find(|(at, _)| *at == x) {
        Some(point) => point.1 = value,
        None => points.push((x, value)),
    }
}

/// The chart's lines: x is the parameter `x_of`; a line per combination of the others, per
/// direction when a combination does both (or when there are no others). A point that ran
/// several times (`--loops`) shows its last run.
fn chart(params: &[String], x_of: usize, rows: &[SweepRow], metric: SweepMetric) -> SweepChart {
    let Some(x_name) = params.get(x_of) else {
        return SweepChart::default();
    };
    let others = |row: &SweepRow| -> Vec<String> {
        row.values
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != x_of)
            .map(|(_, v)| v.clone())
            .collect()
    };
    let mut x_values: Vec<String> = Vec::new();
    for row in rows {
        if let Some(x) = row.values.get(x_of) {
            if !x_values.contains(x) {
                x_values.push(x.clone());
            }
        }
    }
    // The other parameters' combinations, in plan order.
    let mut combos: Vec<Vec<String>> = Vec::new();
    for row in rows {
        let combo = others(row);
        if !combos.contains(&combo) {
            combos.push(combo);
        }
    }
    let finished = |row: &&SweepRow| matches!(row.state, PointState::Done(_));
    let mut lines = Vec::new();
    for combo in &combos {
        let of_combo: Vec<&SweepRow> = rows
            .iter()
            .filter(finished)
            .filter(|r| others(r) == *combo)
            .collect();
        let reads = of_combo.iter().any(|r| r.read.is_some());
        let writes = of_combo.iter().any(|r| r.write.is_some());
        let name: Vec<String> = params
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != x_of)
            .map(|(_, p)| p)
            .zip(combo)
            // An option a point does not name (the disk's points beside a baseline) says nothing.
            .filter(|(_, v)| *v != "-")
            .map(|(p, v)| format!("{p}={v}"))
            .collect();
        let name = name.join(" ");
        for (is_read, on) in [(true, reads), (false, writes)] {
            if !on {
                continue;
            }
            let dir = if is_read { "read" } else { "write" };
            let label = match (name.is_empty(), reads && writes) {
                (true, _) => dir.to_string(),
                (false, true) => format!("{name} {dir}"),
                (false, false) => name.clone(),
            };
            let mut points = Vec::new();
            let mut p99 = Vec::new();
            for row in &of_combo {
                let rates = if is_read { row.read } else { row.write };
                let (Some(rates), Some(x)) = (
                    rates,
                    row.values
                        .get(x_of)
                        .and_then(|v| x_values.iter().position(|x| x == v)),
                ) else {
                    continue;
                };
                let value = match metric {
                    SweepMetric::Bandwidth => rates.bytes_per_s,
                    SweepMetric::Iops => rates.iops,
                    SweepMetric::MeanLatency => rates.mean_ns,
                    SweepMetric::P99Latency => rates.p99_ns as f64,
                };
                put(&mut points, x, value);
                if metric == SweepMetric::MeanLatency {
                    put(&mut p99, x, rates.p99_ns as f64);
                }
            }
            points.sort_by_key(|&(x, _)| x);
            p99.sort_by_key(|&(x, _)| x);
            lines.push(SweepLine { label, points, p99 });
        }
    }
    SweepChart {
        x_name: x_name.clone(),
        x_values,
        lines,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::session::StepResult;
    use crate::tui::ui::sample;

    #[test]
    fn rows_follow_the_plan_and_the_eta_counts_the_points_left() {
        let snap = sample::sweep::snapshot();
        let sweep = sweep(&snap, SweepMetric::Bandwidth).expect("a sweep");
        assert_eq!(sweep.params, ["rw", "bs"]);
        assert_eq!(sweep.point, (6, 8));
        let states: Vec<PointState> = sweep.rows.iter().map(|r| r.state).collect();
        let done = PointState::Done(RunStatus::Completed);
        assert_eq!(
            states,
            [
                done,
                done,
                done,
                PointState::Done(RunStatus::Interrupted),
                done,
                PointState::Running,
                PointState::Pending,
                PointState::Pending
            ]
        );
        // 18 s left of this point, then two of 2 s ramp + 30 s.
        assert_eq!(sweep.eta, Some(Duration::from_secs(18 + 2 * 32)));
        // 141 s measured and five ramps done, the sixth too.
        assert_eq!(sweep.elapsed, Duration::from_secs(141 + 6 * 2));
        assert!(sweep.rows[6].read.is_none() && sweep.rows[6].values == ["read", "4M"]);
    }

    #[test]
    fn the_chart_has_a_line_per_other_combination_with_x_in_plan_order() {
        let snap = sample::sweep::snapshot();
        let chart = sweep(&snap, SweepMetric::MeanLatency)
            .expect("a sweep")
            .chart;
        assert_eq!(chart.x_name, "bs");
        assert_eq!(chart.x_values, ["1M", "2M", "4M", "8M"]);
        let labels: Vec<&str> = chart.lines.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["rw=write", "rw=read"]);
        // The running point is not drawn until it finishes.
        assert_eq!(chart.lines[1].points, [(0, 26_700_000.0)]);
        assert_eq!(chart.lines[1].p99, [(0, 39_500_000.0)]);
        assert_eq!(chart.lines[0].points.len(), 4);
        let iops = sweep(&snap, SweepMetric::Iops).expect("a sweep").chart;
        assert!(iops.lines.iter().all(|l| l.p99.is_empty()));
    }

    #[test]
    fn one_swept_parameter_draws_a_line_per_direction() {
        let mut snap = sample::sweep::snapshot();
        let points: Vec<Vec<(String, String)>> = ["4k", "8k"]
            .iter()
            .map(|bs| vec![("bs".to_string(), (*bs).to_string())])
            .collect();
        let both = PointRates {
            ios: 10,
            iops: 5.0,
            bytes_per_s: 20_480.0,
            mean_ns: 1e6,
            p99_ns: 2_000_000,
        };
        let result = |step| StepResult {
            step,
            record_step: 0,
            status: RunStatus::Completed,
            read: both,
            write: both,
            util_pct: None,
            aqu_sz: None,
            marks: Vec::new(),
        };
        snap.plan_points = Arc::new(points);
        snap.finished = Arc::new(vec![result(0), result(1)]);
        snap.plan.index = 1;
        snap.plan.count = 2;
        snap.state = SessionState::Idle;
        let sweep = sweep(&snap, SweepMetric::Bandwidth).expect("a sweep");
        let labels: Vec<&str> = sweep.chart.lines.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["read", "write"]);
        assert_eq!(sweep.chart.lines[0].points, [(0, 20_480.0), (1, 20_480.0)]);
        // Stopped or over: no running point, no ETA.
        assert!(!sweep.running && sweep.eta.is_none());
    }

    #[test]
    fn between_two_points_the_one_that_ended_is_no_longer_running() {
        let mut snap = sample::sweep::snapshot();
        let mut finished = (*snap.finished).clone();
        finished.push(StepResult {
            step: 5,
            record_step: 5,
            ..finished[4].clone()
        });
        snap.finished = Arc::new(finished);
        let sweep = sweep(&snap, SweepMetric::Bandwidth).expect("a sweep");
        assert!(sweep.running && sweep.eta.is_some());
        assert!(sweep.rows.iter().all(|r| r.state != PointState::Running));
        assert_eq!(sweep.rows[5].state, PointState::Done(RunStatus::Completed));
    }

    #[test]
    fn a_memory_baseline_is_a_combination_and_a_loop_shows_its_last_run() {
        let mut snap = sample::sweep::snapshot();
        let point = |bs: &str, baseline: bool| {
            let mut p = vec![("bs".to_string(), bs.to_string())];
            if baseline {
                p.push(("baseline".into(), "memory".into()));
            }
            p
        };
        // Two loops of each point on the disk, then the baseline's.
        snap.plan_points = Arc::new(vec![
            point("4k", false),
            point("4k", false),
            point("8k", false),
            point("8k", false),
            point("4k", true),
            point("8k", true),
        ]);
        let rates = |bytes_per_s| PointRates {
            ios: 1,
            bytes_per_s,
            ..PointRates::default()
        };
        let result = |step, bytes_per_s| StepResult {
            step,
            record_step: 0,
            status: RunStatus::Completed,
            read: rates(bytes_per_s),
            write: PointRates::default(),
            util_pct: None,
            aqu_sz: None,
            marks: Vec::new(),
        };
        snap.finished = Arc::new(
            [1.0, 2.0, 3.0, 4.0, 50.0, 60.0]
                .iter()
                .enumerate()
                .map(|(step, &bw)| result(step, bw))
                .collect(),
        );
        snap.plan.index = 5;
        snap.state = SessionState::Idle;
        let sweep = sweep(&snap, SweepMetric::Bandwidth).expect("a sweep");
        assert_eq!(sweep.params, ["bs", "baseline"]);
        assert_eq!(sweep.rows[0].values, ["4k", "-"]);
        assert_eq!(sweep.chart.x_name, "bs");
        let lines: Vec<(&str, &[(usize, f64)])> = sweep
            .chart
            .lines
            .iter()
            .map(|l| (l.label.as_str(), l.points.as_slice()))
            .collect();
        assert_eq!(
            lines,
            [
                ("read", &[(0, 2.0), (1, 4.0)][..]),
                ("baseline=memory", &[(0, 50.0), (1, 60.0)][..])
            ]
        );
    }

    #[test]
    fn size_based_points_take_the_average_of_those_before() {
        let mut snap = sample::sweep::snapshot();
        // Point 6: 430 of 1000 MiB in 12 s, about 16 s to go; five points took 129 s.
        snap.plan.bytes = Some((430 << 20, 1000 << 20));
        let eta = sweep(&snap, SweepMetric::Bandwidth)
            .and_then(|s| s.eta)
            .expect("an ETA");
        let this = Duration::from_secs_f64(570.0 / (430.0 / 12.0));
        let others = Duration::from_secs(129) / 5 * 2;
        assert_eq!(eta, this + others);
        // Nothing moved yet: no estimate.
        snap.plan.bytes = Some((0, 1000 << 20));
        let sweep = sweep(&snap, SweepMetric::Bandwidth).expect("a sweep");
        assert!(sweep.running && sweep.eta.is_none());
    }

    #[test]
    fn a_plan_without_points_is_no_sweep() {
        let snap = sample::plan::snapshot();
        assert!(sweep(&snap, SweepMetric::Bandwidth).is_none());
    }
}
