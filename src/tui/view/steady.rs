//! The steady-state line and the sustained-write chart, as the dashboard shows them: from the
//! session's job views (live) or from a record's job (`show`).

use std::sync::Arc;
use std::time::Duration;

use crate::analysis::steady::Phase;
use crate::record::StepJobRecord;
use crate::session::{JobView, SteadyView, SustainedView};
use crate::stats::steady::Criterion;
use crate::stats::steady::criterion_value;

/// Where a job is with its steady-state criterion.
#[derive(Debug, Clone, PartialEq)]
pub enum SteadyStatus {
    /// Before `ss_ramp` is over.
    Ramp,
    /// The first window is filling: samples so far and needed.
    Filling { have: usize, need: usize },
    /// The window is full, the criterion not met.
    Searching,
    /// Met, at this time since measuring started; `stopping`: the run ends on it. Keep-going:
    /// `departures` samples were out of it since (it is back in now).
    Attained {
        at: Duration,
        stopping: bool,
        departures: u64,
    },
    /// Keep-going: out of it at the last sample, `departures` samples so far.
    Left { since: Duration, departures: u64 },
    /// A finished run that never met it.
    NotAttained,
}

/// The steady-state line.
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyLine {
    /// The job's name when the step runs several.
    pub job: Option<String>,
    /// `iops_slope:0.3%`.
    pub criterion: String,
    pub window_s: u64,
    /// The criterion over the last full window and the limit, in the criterion's unit.
    pub value: Option<String>,
    pub limit: String,
    /// The value is under the limit.
    pub met: bool,
    pub status: SteadyStatus,
    pub keep_going: bool,
}

/// The sustained-write chart: `(GiB written, MiB/s)` per span, and the cliff.
#[derive(Debug, Clone, PartialEq)]
pub struct SustainedChart {
    pub job: Option<String>,
    pub points: Arc<Vec<(f64, f64)>>,
    pub threshold_pct: f64,
    /// GiB written at the cliff, the level before and the rate after (MiB/s).
    pub cliff: Option<(f64, f64, f64)>,
}

const GIB: f64 = (1u64 << 30) as f64;
const MIB: f64 = (1u64 << 20) as f64;

fn line_of(job: Option<String>, criterion: &Criterion, window_s: u64) -> SteadyLine {
    SteadyLine {
        job,
        criterion: criterion.to_string(),
        window_s,
        value: None,
        limit: criterion_value(criterion, criterion.limit),
        met: false,
        status: SteadyStatus::Ramp,
        keep_going: false,
    }
}

/// The line of a running job's criterion.
#[must_use]
pub fn live(job: &JobView, several: bool, finished: bool) -> Option<SteadyLine> {
    let view = job.steady.as_ref()?;
    Some(line(view, several.then(|| job.name.clone()), finished))
}

/// The line of a criterion as the session publishes it; `finished`: the step is over.
#[must_use]
pub fn line(view: &SteadyView, job: Option<String>, finished: bool) -> SteadyLine {
    let c = &view.spec.criterion;
    let mut line = line_of(job, c, view.spec.dur.as_secs());
    line.keep_going = view.spec.keep_going;
    line.value = view.last.map(|e| criterion_value(c, e.value));
    line.met = view.last.is_some_and(|e| e.attained);
    line.status = match (view.phase, view.attained_at) {
        (Phase::Left, Some(at)) => SteadyStatus::Left {
            since: at,
            departures: view.departures,
        },
        (_, Some(at)) => SteadyStatus::Attained {
            at,
            stopping: view.stopping,
            departures: view.departures,
        },
        _ if finished => SteadyStatus::NotAttained,
        (Phase::Ramp, None) => SteadyStatus::Ramp,
        (Phase::Filling { have, need }, None) => SteadyStatus::Filling { have, need },
        (_, None) => SteadyStatus::Searching,
    };
    line
}

/// The line of a recorded job's criterion.
#[must_use]
pub fn recorded(job: &StepJobRecord, several: bool) -> Option<SteadyLine> {
    let ss = job.steadystate.as_ref()?;
    let c = Criterion::parse(&job.job.steadystate.as_ref()?.criterion).ok()?;
    let mut line = line_of(several.then(|| job.name.clone()), &c, ss.duration);
    line.keep_going = ss.keep_going;
    let value: Option<f64> = ss.criterion.trim_end_matches('%').parse().ok();
    line.value = value.map(|v| criterion_value(&c, v));
    line.met = ss.attained == 1;
    line.status = match ss.attained_at_ns {
        Some(at) if ss.keep_going && ss.departure_count > 0 => SteadyStatus::Left {
            since: Duration::from_nanos(at),
            departures: ss.departure_count,
        },
        Some(at) => SteadyStatus::Attained {
            at: Duration::from_nanos(at),
            stopping: ss.stopped_run,
            departures: ss.departure_count,
        },
        None => SteadyStatus::NotAttained,
    };
    Some(line)
}

/// The chart of a running job's writes.
#[must_use]
pub fn live_chart(job: &JobView, several: bool) -> Option<SustainedChart> {
    let view = job.sustained.as_ref()?;
    Some(chart(view, several.then(|| job.name.clone())))
}

/// The chart of writes as the session publishes them.
#[must_use]
pub fn chart(view: &SustainedView, job: Option<String>) -> SustainedChart {
    SustainedChart {
        job,
        points: view.points.clone(),
        threshold_pct: view.threshold_pct,
        cliff: view.cliff.map(|c| {
            (
                c.written_bytes as f64 / GIB,
                c.before_bytes_per_s / MIB,
                c.after_bytes_per_s / MIB,
            )
        }),
    }
}

/// The chart of a recorded job's writes.
#[must_use]
pub fn recorded_chart(job: &StepJobRecord, several: bool) -> Option<SustainedChart> {
    let w = job.sustained_write.as_ref()?;
    Some(SustainedChart {
        job: several.then(|| job.name.clone()),
        points: Arc::new(w.points.iter().map(|p| (p[0], p[1])).collect()),
        threshold_pct: w.threshold_pct,
        cliff: w
            .cliff
            .as_ref()
            .map(|c| (c.gib_written, c.before_mib_s, c.after_mib_s)),
    })
}
