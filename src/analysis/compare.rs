//! Two recorded runs compared, per direction, with the change labelled by which way is better
//! (higher IOPS and bandwidth, lower latency), the job parameters that differ, and the gate
//! for CI (`--max-regression PCT`). Pure: two records in, a [`Comparison`] out (the `--json`
//! object of `diskdash compare`); `report::compare` writes the text.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::analysis::points;
use crate::record::{DirectionRecord, JobRecord, LatencyRecord, RunRecord, RunStatus};
use crate::units::{
    format_bytes, format_duration, format_latency_ns, format_rate, format_size_short,
};
use crate::values::Pick;

/// `format` of the `--json` object.
pub const FORMAT: &str = "diskdash-compare";
/// Bumped on any incompatible change of the `--json` object.
pub const FORMAT_VERSION: u32 = 1;

/// Changes smaller than this (in percent) are shown as `0.0%` and labelled neither way.
pub const SAME_PCT: f64 = 0.05;

/// Which way of a metric is the good one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Higher,
    Lower,
}

/// How the new run fares on one metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Better,
    Worse,
    Same,
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Iops,
    BwBytes,
    LatMeanNs,
    LatP50Ns,
    LatP90Ns,
    LatP99Ns,
    LatP999Ns,
    LatMaxNs,
    /// A write's mean time to durability: its latency plus its share of the sync calls' time
    /// (shown when the runs' sync policies differ, and their write latencies do not compare).
    DurableMeanNs,
}

impl Metric {
    const LATENCY: [Self; 6] = [
        Self::LatMeanNs,
        Self::LatP50Ns,
        Self::LatP90Ns,
        Self::LatP99Ns,
        Self::LatP999Ns,
        Self::LatMaxNs,
    ];

    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Iops => "IOPS",
            Self::BwBytes => "bandwidth",
            Self::LatMeanNs => "lat mean",
            Self::LatP50Ns => "lat p50",
            Self::LatP90Ns => "lat p90",
            Self::LatP99Ns => "lat p99",
            Self::LatP999Ns => "lat p99.9",
            Self::LatMaxNs => "lat max",
            Self::DurableMeanNs => "durable mean",
        }
    }

    fn better(self) -> Better {
        match self {
            Self::Iops | Self::BwBytes => Better::Higher,
            _ => Better::Lower,
        }
    }

    #[must_use]
    pub fn format(self, value: f64) -> String {
        match self {
            Self::Iops => format_rate(value),
            Self::BwBytes => format!("{}/s", format_bytes(value.round() as u64)),
            _ => format_latency_ns(value),
        }
    }

    fn latency(self, lat: &LatencyRecord) -> f64 {
        let pct = |p: f64| lat.percentile_ns(p).unwrap_or(0) as f64;
        match self {
            Self::LatMeanNs => lat.mean,
            Self::LatP50Ns => pct(50.0),
            Self::LatP90Ns => pct(90.0),
            Self::LatP99Ns => pct(99.0),
            Self::LatP999Ns => pct(99.9),
            Self::LatMaxNs => lat.max as f64,
            Self::Iops | Self::BwBytes | Self::DurableMeanNs => {
                unreachable!("not a latency of one histogram")
            }
        }
    }
}

/// One metric of one direction in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub metric: Metric,
    pub base: f64,
    pub new: f64,
    /// `(new - base) / base` in percent; `None` when there is nothing to compare against.
    pub change_pct: Option<f64>,
    pub better: Better,
    pub verdict: Option<Verdict>,
}

impl Row {
    fn new(metric: Metric, base: f64, new: f64, comparable: bool) -> Self {
        let change_pct = (comparable && base > 0.0).then(|| (new - base) / base * 100.0);
        let verdict = change_pct.map(|c| {
            let up = match metric.better() {
                Better::Higher => c,
                Better::Lower => -c,
            };
            if c.abs() < SAME_PCT {
                Verdict::Same
            } else if up > 0.0 {
                Verdict::Better
            } else {
                Verdict::Worse
            }
        });
        Self {
            metric,
            base,
            new,
            change_pct,
            better: metric.better(),
            verdict,
        }
    }
}

/// `read`, `write`, `trim` or `sync` (fsync/fdatasync calls: latency only).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DirectionComparison {
    pub direction: &'static str,
    pub base_ios: u64,
    pub new_ios: u64,
    pub metrics: Vec<Row>,
}

/// What a run was, as the header shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub path: String,
    pub description: String,
    pub target: String,
    pub target_kind: String,
    pub device: Option<String>,
    pub engine: String,
    pub engine_fallback: Option<String>,
    pub status: RunStatus,
    pub error: Option<String>,
    pub elapsed_ns: u64,
    pub segments: usize,
    /// Distinct jobs among the segments (the description is the first segment's).
    pub segment_jobs: usize,
    pub warnings: Vec<String>,
}

impl RunSummary {
    fn of(path: &str, record: &RunRecord) -> Self {
        Self {
            path: path.to_string(),
            // What ran: psync at depth 1 after a fallback (`engine_fallback` says why).
            description: record
                .job
                .ran_description
                .clone()
                .unwrap_or_else(|| record.job.description.clone()),
            target: record.target.path.clone(),
            target_kind: record.target.kind.clone(),
            device: record.device.as_ref().map(|d| d.name.clone()),
            engine: record.engine.used.clone(),
            engine_fallback: record.engine.fallback.clone(),
            status: record.status,
            error: record.error.as_ref().map(|e| e.message.clone()),
            elapsed_ns: record.elapsed_ns,
            segments: record.segments.len(),
            segment_jobs: record
                .segments
                .iter()
                .enumerate()
                .filter(|(i, seg)| record.segments[..*i].iter().all(|s| s.job != seg.job))
                .count(),
            warnings: record.warnings.clone(),
        }
    }
}

/// A job parameter (the record's `job` key) that differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobDifference {
    pub key: String,
    pub base: serde_json::Value,
    pub new: serde_json::Value,
    /// Part of the workload (everything but the keys of [`NOT_WORKLOAD`]).
    pub workload: bool,
    /// Both values as the header shows them.
    #[serde(skip)]
    pub shown: (String, String),
}

/// A line above the table: `warning` for what makes the numbers doubtful, `note` otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Notice {
    pub level: &'static str,
    pub text: String,
}

/// One point of two sweeps, matched by its parameters: each direction the point ran, compared
/// on IOPS, bandwidth and p99 (a point's loops picked by its record's rule: best, mean or
/// median, as its table shows them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointComparison {
    /// `bs=2M rw=write`.
    pub point: String,
    pub directions: Vec<DirectionComparison>,
}

/// A point of one sweep on the chart: the swept option's value and the main metric there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurvePoint {
    pub value: String,
    /// The value as a number (bytes, a count), when it is one.
    pub x: Option<f64>,
    pub y: f64,
}

/// One direction's two curves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurvePair {
    pub direction: &'static str,
    pub base: Vec<CurvePoint>,
    pub new: Vec<CurvePoint>,
}

/// Two sweeps of the same one dimension: the main metric (bandwidth for block sizes, IOPS
/// otherwise) against the swept option, per direction, for the chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curves {
    pub dimension: String,
    pub metric: Metric,
    pub directions: Vec<CurvePair>,
}

/// A metric that moved the wrong way by more than `--max-regression`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Regression {
    /// The sweep point it happened at (`None`: the runs' totals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<String>,
    pub direction: &'static str,
    pub metric: Metric,
    pub base: f64,
    pub new: f64,
    pub change_pct: f64,
}

/// Two runs compared: the `--json` object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub format: &'static str,
    pub format_version: u32,
    pub base: RunSummary,
    pub new: RunSummary,
    /// No workload parameter differs (timing may).
    pub same_job: bool,
    pub job_differences: Vec<JobDifference>,
    /// Either run has several segments: the table compares whole-run totals.
    pub whole_run_totals: bool,
    pub notices: Vec<Notice>,
    pub directions: Vec<DirectionComparison>,
    /// `--max-regression`, when given.
    pub max_regression_pct: Option<f64>,
    /// What exceeded it (empty without `--max-regression`).
    pub regressions: Vec<Regression>,
    /// Two sweeps: their common points, compared one by one (empty otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<PointComparison>,
    /// Points of one sweep the other lacks, by parameters.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_points: Vec<String>,
    /// Two sweeps of one and the same dimension: both curves of the main metric.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub curves: Option<Curves>,
}

/// How a sweep's record picks among a point's loops (`best` for records without the rule).
fn pick_of(record: &RunRecord) -> Pick {
    record
        .sweep
        .as_ref()
        .and_then(|s| Pick::parse(&s.pick).ok())
        .unwrap_or(Pick::Best)
}

/// The sweep points of a record, each its loops picked by the record's rule, labelled
/// `bs=2M rw=write`.
fn sweep_points(record: &RunRecord) -> Vec<(String, points::Row)> {
    points::rows(record, pick_of(record))
        .into_iter()
        .filter(|row| !row.point.is_empty())
        .map(|row| (crate::values::describe_point(&row.point), row))
        .collect()
}

/// What a record's totals add up: one job's run (a bench run's live changes included), or
/// the different points of a plan whose segments carry them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Totals {
    Run,
    /// A sweep's distinct points, memory baselines counted (a point's loops are one).
    Sweep {
        points: usize,
        baselines: bool,
    },
    /// `diskdash mark`'s distinct measurements (test and direction).
    Mark {
        measurements: usize,
    },
}

impl Totals {
    #[must_use]
    pub fn of(record: &RunRecord) -> Self {
        let mut points: Vec<&[crate::record::PointValue]> = Vec::new();
        for segment in &record.segments {
            if !points.contains(&segment.point.as_slice()) {
                points.push(&segment.point);
            }
        }
        let has = |option: &str| {
            points
                .iter()
                .any(|point| point.iter().any(|v| v.option == option))
        };
        if has("test") {
            Self::Mark {
                measurements: points.len(),
            }
        } else if record.sweep.is_some() {
            Self::Sweep {
                points: points.len(),
                baselines: has("baseline"),
            }
        } else {
            Self::Run
        }
    }

    /// Whether the totals mix different points.
    #[must_use]
    pub fn mixed(self) -> bool {
        match self {
            Self::Run => false,
            Self::Sweep { points, .. } => points > 1,
            Self::Mark { measurements } => measurements > 1,
        }
    }
}

/// One direction of a point in both sweeps: IOPS, bandwidth and p99.
fn point_direction(
    name: &'static str,
    base: &points::Dir,
    new: &points::Dir,
) -> DirectionComparison {
    let both = base.ios > 0 && new.ios > 0;
    DirectionComparison {
        direction: name,
        base_ios: base.ios,
        new_ios: new.ios,
        metrics: vec![
            Row::new(Metric::Iops, base.iops, new.iops, true),
            Row::new(Metric::BwBytes, base.bytes_per_s, new.bytes_per_s, true),
            Row::new(
                Metric::LatP99Ns,
                base.p99_ns as f64,
                new.p99_ns as f64,
                both,
            ),
        ],
    }
}

/// Two sweeps' common points compared, and the labels of those only one has.
fn compare_points(
    base_points: &[(String, points::Row)],
    new_points: &[(String, points::Row)],
) -> (Vec<PointComparison>, Vec<String>) {
    if base_points.is_empty() || new_points.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut points = Vec::new();
    let mut unmatched = Vec::new();
    for (label, b) in base_points {
        let Some((_, n)) = new_points.iter().find(|(l, _)| l == label) else {
            unmatched.push(format!("{label} (base only)"));
            continue;
        };
        let mut directions = Vec::new();
        for (name, bd, nd) in [("read", &b.read, &n.read), ("write", &b.write, &n.write)] {
            if bd.ios > 0 || nd.ios > 0 {
                directions.push(point_direction(name, bd, nd));
            }
        }
        points.push(PointComparison {
            point: label.clone(),
            directions,
        });
    }
    for (label, _) in new_points {
        if !base_points.iter().any(|(l, _)| l == label) {
            unmatched.push(format!("{label} (new only)"));
        }
    }
    (points, unmatched)
}

/// Both sweeps' curves when each swept the same one option (the memory baseline's points left
/// out): bandwidth against block size, IOPS against anything else.
fn curves(
    base: &RunRecord,
    new: &RunRecord,
    base_points: &[(String, points::Row)],
    new_points: &[(String, points::Row)],
    axis: AxisOf,
) -> Option<Curves> {
    let dimension = match (&base.sweep, &new.sweep) {
        (Some(b), Some(n)) if b.dimensions.len() == 1 && b.dimensions == n.dimensions => {
            b.dimensions[0].clone()
        }
        _ => return None,
    };
    let metric = if dimension == "bs" {
        Metric::BwBytes
    } else {
        Metric::Iops
    };
    let curve = |points: &[(String, points::Row)], pick: fn(&points::Row) -> &points::Dir| {
        points
            .iter()
            .filter(|(_, row)| row.point.len() == 1 && pick(row).ios > 0)
            .map(|(_, row)| {
                let value = row.point[0].1.clone();
                let dir = pick(row);
                CurvePoint {
                    x: axis(&dimension, &value),
                    value,
                    y: match metric {
                        Metric::BwBytes => dir.bytes_per_s,
                        _ => dir.iops,
                    },
                }
            })
            .collect::<Vec<_>>()
    };
    let directions: Vec<CurvePair> = [
        ("read", (|r| &r.read) as fn(&points::Row) -> &points::Dir),
        ("write", |r| &r.write),
    ]
    .into_iter()
    .map(|(direction, pick)| CurvePair {
        direction,
        base: curve(base_points, pick),
        new: curve(new_points, pick),
    })
    .filter(|pair| !pair.base.is_empty() || !pair.new.is_empty())
    .collect();
    (!directions.is_empty()).then_some(Curves {
        dimension,
        metric,
        directions,
    })
}

/// The job parameters in the record's order: key, value, how the header shows it, workload.
/// Keys of the job section that change when or how a run is measured, not the I/O it does:
/// two runs differing only in these still ran "the same job".
const NOT_WORKLOAD: [&str; 6] = [
    "runtime_ns",
    "ramp_ns",
    "interval_ns",
    "startdelay_ns",
    "steadystate",
    "cliff_pct",
];

/// The job section as fio's option names and values, in the record's order: every key the
/// record stores but the free-text `description`, so an option added to [`JobRecord`] is
/// compared without a list to keep up to date.
fn job_map(job: &JobRecord) -> Vec<(String, serde_json::Value)> {
    /// A JSON object's entries in document order (`serde_json::Map` sorts them).
    struct Entries(Vec<(String, serde_json::Value)>);
    impl<'de> Deserialize<'de> for Entries {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visit;
            impl<'de> serde::de::Visitor<'de> for Visit {
                type Value = Entries;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Entries, A::Error> {
                    let mut out = Vec::new();
                    while let Some(entry) = map.next_entry()? {
                        out.push(entry);
                    }
                    Ok(Entries(out))
                }
            }
            d.deserialize_map(Visit)
        }
    }
    // A struct of plain fields always serializes to an object.
    let text = serde_json::to_string(job).unwrap_or_default();
    serde_json::from_str::<Entries>(&text)
        .map(|e| e.0)
        .unwrap_or_default()
        .into_iter()
        // What ran is said apart (the engine's fallback), not as a job option.
        .filter(|(key, _)| key != "description" && key != "ran_description")
        .collect()
}

/// One job value as the header shows it: sizes and durations in units, absent options as
/// what they mean.
fn shown_job_value(key: &str, value: &serde_json::Value) -> String {
    use serde_json::Value;
    match (key, value) {
        ("bs" | "size" | "io_size" | "offset" | "offset_increment", Value::Number(n)) => {
            n.as_u64().map_or_else(|| n.to_string(), format_size_short)
        }
        (k, Value::Number(n)) if k.ends_with("_ns") => n.as_u64().map_or_else(
            || n.to_string(),
            |ns| format_duration(Duration::from_nanos(ns)),
        ),
        ("direct", Value::Bool(true)) => "direct".into(),
        ("direct", Value::Bool(false)) => "buffered".into(),
        ("cpus", Value::Null) => "any".into(),
        ("io_size", Value::Null) => "time-based".into(),
        ("randseed", Value::Null) => "fixed".into(),
        (_, Value::Null) => "off".into(),
        (_, Value::String(s)) => s.clone(),
        (_, other) => other.to_string(),
    }
}

fn job_differences(base: &JobRecord, new: &JobRecord) -> Vec<JobDifference> {
    let (base, mut new) = (job_map(base), job_map(new));
    let mut out = Vec::new();
    for (key, b) in base {
        let n = match new.iter().position(|(k, _)| *k == key) {
            Some(at) => new.remove(at).1,
            None => serde_json::Value::Null,
        };
        if b != n {
            out.push(job_difference(key, b, n));
        }
    }
    // Keys only the new record has (an option the base run left unset).
    for (key, n) in new {
        if !n.is_null() {
            out.push(job_difference(key, serde_json::Value::Null, n));
        }
    }
    out
}

fn job_difference(key: String, base: serde_json::Value, new: serde_json::Value) -> JobDifference {
    let mut shown = (shown_job_value(&key, &base), shown_job_value(&key, &new));
    if shown.0 == shown.1 {
        // Rounded alike (1 ns and 0 ns are both "0us"): the exact values, never "x -> x".
        shown = (base.to_string(), new.to_string());
    }
    JobDifference {
        workload: !NOT_WORKLOAD.contains(&key.as_str()),
        shown,
        key,
        base,
        new,
    }
}

fn direction(
    name: &'static str,
    base: &DirectionRecord,
    new: &DirectionRecord,
    latency_comparable: bool,
) -> DirectionComparison {
    let both = base.total_ios > 0 && new.total_ios > 0 && latency_comparable;
    let mut metrics = vec![
        Row::new(Metric::Iops, base.iops, new.iops, true),
        Row::new(
            Metric::BwBytes,
            base.bw_bytes as f64,
            new.bw_bytes as f64,
            true,
        ),
    ];
    metrics.extend(
        Metric::LATENCY.map(|m| Row::new(m, m.latency(&base.lat_ns), m.latency(&new.lat_ns), both)),
    );
    DirectionComparison {
        direction: name,
        base_ios: base.total_ios,
        new_ios: new.total_ios,
        metrics,
    }
}

/// How a job makes its writes durable: fsync/fdatasync every N writes, O_SYNC/O_DSYNC.
fn sync_policy(job: &JobRecord) -> (Option<u32>, Option<u32>, Option<&str>) {
    (job.fsync, job.fdatasync, job.sync.as_deref())
}

/// A write's mean time to durability in `run`: its latency plus its share of the time in
/// sync calls (with O_SYNC/O_DSYNC the write's latency already holds it).
fn durable_mean_ns(run: &RunRecord) -> f64 {
    let writes = run.write.total_ios;
    if writes == 0 {
        return 0.0;
    }
    let sync_ns = run.sync.lat_ns.mean * run.sync.total_ios as f64;
    run.write.lat_ns.mean + sync_ns / writes as f64
}

fn sync(base: &RunRecord, new: &RunRecord) -> DirectionComparison {
    let (b, n) = (&base.sync, &new.sync);
    let both = b.total_ios > 0 && n.total_ios > 0;
    DirectionComparison {
        direction: "sync",
        base_ios: b.total_ios,
        new_ios: n.total_ios,
        metrics: Metric::LATENCY
            .map(|m| Row::new(m, m.latency(&b.lat_ns), m.latency(&n.lat_ns), both))
            .to_vec(),
    }
}

fn notices(base: &RunSummary, new: &RunSummary, differences: &[JobDifference]) -> Vec<Notice> {
    let mut out = Vec::new();
    let mut warn = |text: String| {
        out.push(Notice {
            level: "warning",
            text,
        });
    };
    let workload: Vec<&str> = differences
        .iter()
        .filter(|d| d.workload)
        .map(|d| d.key.as_str())
        .collect();
    if !workload.is_empty() {
        warn(format!(
            "DIFFERENT JOBS ({}): the table compares two workloads, not one workload run twice",
            workload.join(", ")
        ));
    }
    for (which, run) in [("base", base), ("new", new)] {
        match run.status {
            RunStatus::Completed => {}
            RunStatus::Interrupted => warn(format!(
                "{which} run was interrupted: its numbers cover part of the run"
            )),
            RunStatus::Failed => warn(format!(
                "{which} run FAILED{}: its numbers cover part of the run",
                run.error
                    .as_deref()
                    .map_or_else(String::new, |e| format!(" ({e})"))
            )),
        }
        if let Some(fallback) = &run.engine_fallback {
            warn(format!(
                "{which} run fell back to {}: {fallback}",
                run.engine
            ));
        }
        for warning in &run.warnings {
            warn(format!("{which} run: {warning}"));
        }
    }
    let mut note = |text: String| {
        out.push(Notice {
            level: "note",
            text,
        })
    };
    for (which, run) in [("base", base), ("new", new)] {
        if run.segments > 1 {
            note(format!(
                "{which} run has {} segments{}: the table compares whole-run totals",
                run.segments,
                if run.segment_jobs > 1 {
                    format!(" of {} jobs (its job line is the first)", run.segment_jobs)
                } else {
                    String::new()
                }
            ));
        }
    }
    if base.device != new.device {
        let name = |d: &Option<String>| d.clone().unwrap_or_else(|| "unknown".into());
        note(format!(
            "the runs used different devices: {} -> {}",
            name(&base.device),
            name(&new.device)
        ));
    }
    if base.engine != new.engine {
        note(format!(
            "the runs used different engines: {} -> {}",
            base.engine, new.engine
        ));
    }
    out
}

/// Where a swept option's value lies on a curve's x axis, `(option, value) -> x`; `None`: not
/// on a numeric axis. The sweep's dimensions know (`report::sweep::table::sweep_x`); the caller
/// gives it, so this analysis names no sweep.
pub type AxisOf<'a> = &'a dyn Fn(&str, &str) -> Option<f64>;

/// Compares `new` (at `new_path`) with `base` (at `base_path`); a one-option sweep's curves
/// placed on `axis`.
#[must_use]
pub fn compare(
    base_path: &str,
    base: &RunRecord,
    new_path: &str,
    new: &RunRecord,
    axis: AxisOf,
) -> Comparison {
    let base_run = RunSummary::of(base_path, base);
    let new_run = RunSummary::of(new_path, new);
    let job_differences = job_differences(&base.job, &new.job);
    let mut notices = notices(&base_run, &new_run, &job_differences);
    // Sync time is reported apart from the writes': with different sync policies one run's
    // write latency holds durability and the other's does not, so it gets no verdict.
    let sync_differs = sync_policy(&base.job) != sync_policy(&new.job);
    let (base_points, new_points) = (sweep_points(base), sweep_points(new));
    let (points, unmatched_points) = compare_points(&base_points, &new_points);
    let curves = curves(base, new, &base_points, &new_points, axis);
    if let (Some(b), Some(n)) = (&base.sweep, &new.sweep)
        && b.pick != n.pick
        && (b.loops > 1 || n.loops > 1)
    {
        notices.push(Notice {
            level: "note",
            text: format!(
                "the sweeps pick their loops differently ({} -> {}): each point compares what \
                 its table shows",
                b.pick, n.pick
            ),
        });
    }
    let mut directions = Vec::new();
    for (name, b, n) in [
        ("read", &base.read, &new.read),
        ("write", &base.write, &new.write),
        ("trim", &base.trim, &new.trim),
    ] {
        if b.total_ios > 0 || n.total_ios > 0 {
            let writes_differ = name == "write" && sync_differs;
            let mut dir = direction(name, b, n, !writes_differ);
            if writes_differ {
                let both = b.total_ios > 0 && n.total_ios > 0;
                dir.metrics.push(Row::new(
                    Metric::DurableMeanNs,
                    durable_mean_ns(base),
                    durable_mean_ns(new),
                    both,
                ));
                notices.push(Notice {
                    level: "warning",
                    text: "the runs make writes durable differently (fsync, fdatasync, sync): \
                           write latency leaves sync calls out, so it is not compared; \
                           `durable mean` is a write's latency plus its share of the sync time"
                        .to_string(),
                });
            }
            directions.push(dir);
        }
    }
    if base.sync.total_ios > 0 || new.sync.total_ios > 0 {
        directions.push(sync(base, new));
    }
    Comparison {
        format: FORMAT,
        format_version: FORMAT_VERSION,
        notices,
        same_job: job_differences.iter().all(|d| !d.workload),
        whole_run_totals: base_run.segments > 1 || new_run.segments > 1,
        base: base_run,
        new: new_run,
        job_differences,
        directions,
        max_regression_pct: None,
        regressions: Vec::new(),
        points,
        unmatched_points,
        curves,
    }
}

impl Comparison {
    /// Records `max_pct` and every drop of IOPS or bandwidth, and every rise of p99 latency,
    /// of more than `max_pct` percent.
    pub fn gate(&mut self, max_pct: f64) {
        self.max_regression_pct = Some(max_pct);
        let totals = self
            .directions
            .iter()
            .flat_map(|d| d.metrics.iter().map(move |row| (None, d.direction, row)));
        let points = self.points.iter().flat_map(|p| {
            p.directions.iter().flat_map(move |d| {
                d.metrics
                    .iter()
                    .map(move |row| (Some(p.point.clone()), d.direction, row))
            })
        });
        self.regressions = totals
            .chain(points)
            .filter_map(|(point, direction, row)| {
                let change = row.change_pct?;
                let regressed = match row.metric {
                    Metric::Iops | Metric::BwBytes => change < -max_pct,
                    Metric::LatP99Ns => change > max_pct,
                    _ => false,
                };
                regressed.then_some(Regression {
                    point,
                    direction,
                    metric: row.metric,
                    base: row.base,
                    new: row.new,
                    change_pct: change,
                })
            })
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{PointValue, SweepRecord};
    use crate::stats::fixture;

    /// The sweep's `bs` axis (its other options are not needed here).
    fn bs_axis(option: &str, value: &str) -> Option<f64> {
        (option == "bs")
            .then(|| crate::units::parse_size_bytes(value))
            .flatten()
            .map(|b| b as f64)
    }

    /// A sweep of `bs` with `loops` runs per point: each point's runs read at the given
    /// bandwidths (MB/s, one per loop), its IOPS that over 4 KiB.
    fn sweep(points: &[(&str, &[f64])], pick: &str) -> RunRecord {
        let mut record = fixture::record();
        let template = record.segments[0].clone();
        record.segments.clear();
        for (value, runs) in points {
            for mb in *runs {
                let mut seg = template.clone();
                seg.index = u32::try_from(record.segments.len()).unwrap();
                seg.point = vec![PointValue::new("bs", value)];
                seg.read.total_ios = 1000;
                seg.read.bw_bytes = (mb * 1e6) as u64;
                seg.read.iops = mb * 1e6 / 4096.0;
                record.segments.push(seg);
            }
        }
        record.sweep = Some(SweepRecord {
            dimensions: vec!["bs".into()],
            loops: u32::try_from(points[0].1.len()).unwrap(),
            pick: pick.into(),
            analysis: Vec::new(),
        });
        record
    }

    /// A job section with every optional key set, so that each can be changed and unset.
    fn full_job() -> JobRecord {
        let mut job = fixture::record().job;
        job.fsync = Some(4);
        job.fdatasync = Some(8);
        job.sync = Some("dsync".into());
        job.cpus = Some("0-1".into());
        job.io_size = Some(64 << 20);
        job.randseed = Some(7);
        job.rate = Some(crate::record::RateRecord {
            unit: "iops".into(),
            read: Some(1000),
            write: Some(500),
            process: "linear".into(),
        });
        job.bssplit = Some("4k/50:64k/50".into());
        job.steadystate = Some(crate::record::SteadyJobRecord {
            criterion: "iops_slope:0.3%".into(),
            dur_ns: 5_000_000_000,
            ramp_ns: 1_000_000_000,
            keep_going: false,
        });
        job.offset = 4096;
        job.offset_increment = 1 << 20;
        job.startdelay_ns = 1_000_000;
        job.rwmixread = 70;
        job
    }

    /// Another value of the same type, shown differently (doubled numbers, flipped flags).
    fn changed(value: &serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match value {
            Value::Bool(b) => Value::Bool(!b),
            Value::Number(n) => match (n.as_u64(), n.as_f64()) {
                (Some(0), _) => serde_json::json!(1),
                (Some(u), _) if u <= 100 => serde_json::json!(u + 1),
                (Some(u), _) => serde_json::json!(u * 2),
                (None, Some(f)) => serde_json::json!(f * 2.0 + 1.0),
                _ => value.clone(),
            },
            Value::String(s) => Value::String(format!("{s}2")),
            Value::Object(map) => {
                let mut map = map.clone();
                let first = map.keys().next().cloned().unwrap();
                let inner = changed(&map[&first]);
                map.insert(first, inner);
                Value::Object(map)
            }
            other => other.clone(),
        }
    }

    fn with(base: &JobRecord, key: &str, value: serde_json::Value) -> JobRecord {
        let mut map = serde_json::to_value(base).unwrap();
        map[key] = value;
        serde_json::from_value(map).unwrap()
    }

    /// Any one job option changed, set or unset is named, alone, with two different texts.
    #[test]
    fn a_difference_in_any_one_job_option_is_named() {
        let base = full_job();
        let keys = job_map(&base);
        assert!(keys.len() >= 28, "{keys:?}");
        for fio_key in [
            "norandommap",
            "random_generator",
            "invalidate",
            "fadvise_hint",
            "data",
            "iomem",
            "fallocate",
        ] {
            assert!(
                keys.iter().any(|(k, _)| k == fio_key),
                "{fio_key}: {keys:?}"
            );
        }
        assert!(job_differences(&base, &base.clone()).is_empty());
        for (key, value) in &keys {
            let mut news = vec![changed(value)];
            if !matches!(key.as_str(), "rate" | "bssplit" | "steadystate")
                && serde_json::from_value::<JobRecord>({
                    let mut m = serde_json::to_value(&base).unwrap();
                    m[key.as_str()] = serde_json::Value::Null;
                    m
                })
                .is_ok()
            {
                news.push(serde_json::Value::Null); // an option unset
            }
            if matches!(key.as_str(), "rate" | "bssplit" | "steadystate") {
                let mut m = serde_json::to_value(&base).unwrap();
                m.as_object_mut().unwrap().remove(key.as_str());
                let unset: JobRecord = serde_json::from_value(m).unwrap();
                let diffs = job_differences(&base, &unset);
                assert_eq!(diffs.len(), 1, "{key} unset: {diffs:?}");
                assert_eq!(diffs[0].key, *key);
            }
            for new_value in news {
                let new = with(&base, key, new_value.clone());
                let diffs = job_differences(&base, &new);
                let named: Vec<&str> = diffs.iter().map(|d| d.key.as_str()).collect();
                assert_eq!(named, [key.as_str()], "{key} -> {new_value}");
                let d = &diffs[0];
                assert_ne!(d.shown.0, d.shown.1, "{key}: {d:?}");
                assert_eq!(d.workload, !NOT_WORKLOAD.contains(&key.as_str()), "{key}");
                // And the other way round: a key the new run set and the base did not.
                let back = job_differences(&new, &base);
                assert_eq!(back.len(), 1, "{key} reversed: {back:?}");
            }
        }
    }

    /// A record from before fio's buffer and cache options reads as what it ran: draws with
    /// replacement, no fadvise hint, huge-page buffers; against today's fio defaults each of
    /// those is named.
    #[test]
    fn an_older_job_section_reads_as_what_it_ran() {
        let base = full_job();
        let mut map = serde_json::to_value(&base).unwrap();
        for key in [
            "norandommap",
            "random_generator",
            "invalidate",
            "fadvise_hint",
            "data",
            "iomem",
            "fallocate",
        ] {
            map.as_object_mut().unwrap().remove(key);
        }
        let old: JobRecord = serde_json::from_value(map).unwrap();
        assert!(old.norandommap && old.invalidate);
        assert_eq!(
            (old.random_generator.as_str(), old.fadvise_hint.as_str()),
            ("tausworthe", "0")
        );
        assert_eq!((old.data.as_str(), old.iomem.as_str()), ("random", "huge"));
        assert_eq!(
            old.fallocate, "none",
            "older runs let a new file grow as written"
        );
        // What a record written now says for fio's defaults with `iomem=malloc`.
        let mut now = old.clone();
        now.norandommap = false;
        now.fadvise_hint = "1".to_string();
        now.iomem = "malloc".to_string();
        now.fallocate = "native".to_string();
        let named: Vec<String> = job_differences(&old, &now)
            .into_iter()
            .map(|d| d.key)
            .collect();
        assert_eq!(named, ["norandommap", "fadvise_hint", "iomem", "fallocate"]);
    }

    #[test]
    fn the_header_shows_job_values_in_units() {
        let base = full_job();
        let new = with(&base, "bs", serde_json::json!(65536));
        let d = &job_differences(&base, &new)[0];
        assert_eq!(d.shown.1, format_size_short(65536));
        let new = with(&base, "runtime_ns", serde_json::json!(30_000_000_000u64));
        let d = &job_differences(&base, &new)[0];
        assert_eq!(d.shown.1, format_duration(Duration::from_secs(30)));
        assert!(!d.workload, "timing is not the workload");
        let new = with(&base, "fsync", serde_json::Value::Null);
        assert_eq!(
            job_differences(&base, &new)[0].shown,
            ("4".into(), "off".into())
        );
        let new = with(&base, "direct", serde_json::json!(!base.direct));
        let shown = &job_differences(&base, &new)[0].shown;
        assert!(
            [&shown.0, &shown.1].contains(&&"buffered".to_string()),
            "{shown:?}"
        );
    }

    fn read_bw(cmp: &Comparison, point: &str) -> (f64, f64) {
        let p = cmp.points.iter().find(|p| p.point == point).unwrap();
        let row = p.directions[0]
            .metrics
            .iter()
            .find(|m| m.metric == Metric::BwBytes)
            .unwrap();
        (row.base, row.new)
    }

    #[test]
    fn loops_compare_the_picked_run_not_the_first() {
        // The first loop is the slowest: best, mean and median each differ from it.
        let runs: &[f64] = &[100.0, 400.0, 250.0];
        for (pick, want) in [("best", 400e6), ("mean", 250e6), ("median", 250e6)] {
            let base = sweep(&[("4k", runs)], pick);
            let new = sweep(&[("4k", &[200.0, 200.0, 200.0])], pick);
            let cmp = compare("a.json", &base, "b.json", &new, &bs_axis);
            assert_eq!(read_bw(&cmp, "bs=4k"), (want, 200e6), "{pick}");
        }
        // The median of 100, 400, 300 is 300, their mean 266.7.
        let base = sweep(&[("4k", &[100.0, 400.0, 300.0])], "median");
        let cmp = compare("a.json", &base, "b.json", &base, &bs_axis);
        assert_eq!(read_bw(&cmp, "bs=4k"), (300e6, 300e6));
        let base = sweep(&[("4k", &[100.0, 400.0, 300.0])], "mean");
        let (b, _) = read_bw(
            &compare("a.json", &base, "b.json", &base, &bs_axis),
            "bs=4k",
        );
        assert!((b - 800e6 / 3.0).abs() < 1.0, "{b}");
    }

    #[test]
    fn the_gate_names_the_point_whose_picked_run_regressed() {
        let base = sweep(&[("4k", &[100.0, 400.0]), ("64k", &[500.0, 900.0])], "best");
        // 64k's best fell 900 -> 450; its first loop (500 -> 450) is within 10%.
        let new = sweep(&[("4k", &[400.0, 100.0]), ("64k", &[450.0, 300.0])], "best");
        let mut cmp = compare("a.json", &base, "b.json", &new, &bs_axis);
        cmp.gate(10.0);
        let at: Vec<(Option<&str>, Metric)> = cmp
            .regressions
            .iter()
            .map(|r| (r.point.as_deref(), r.metric))
            .collect();
        assert_eq!(
            at,
            [
                (Some("bs=64k"), Metric::Iops),
                (Some("bs=64k"), Metric::BwBytes)
            ]
        );
        assert!(cmp.notices.iter().all(|n| !n.text.contains("pick")));
    }

    #[test]
    fn different_pick_rules_are_noted_and_one_dimension_gives_curves() {
        let base = sweep(&[("4k", &[100.0, 200.0]), ("1M", &[300.0, 300.0])], "best");
        let new = sweep(&[("4k", &[100.0, 200.0]), ("64k", &[50.0, 50.0])], "mean");
        let cmp = compare("a.json", &base, "b.json", &new, &bs_axis);
        assert!(
            cmp.notices.iter().any(|n| n
                .text
                .starts_with("the sweeps pick their loops differently (best -> mean)")),
            "{:?}",
            cmp.notices
        );
        let curves = cmp.curves.unwrap();
        assert_eq!(
            (curves.dimension.as_str(), curves.metric),
            ("bs", Metric::BwBytes)
        );
        assert_eq!(curves.directions.len(), 1);
        let pair = &curves.directions[0];
        assert_eq!(pair.direction, "read");
        let shown = |c: &[CurvePoint]| -> Vec<(String, Option<f64>, f64)> {
            c.iter().map(|p| (p.value.clone(), p.x, p.y)).collect()
        };
        assert_eq!(
            shown(&pair.base),
            [
                ("4k".to_string(), Some(4096.0), 200e6),
                ("1M".to_string(), Some(1_048_576.0), 300e6)
            ]
        );
        assert_eq!(
            shown(&pair.new),
            [
                ("4k".to_string(), Some(4096.0), 150e6),
                ("64k".to_string(), Some(65536.0), 50e6)
            ]
        );
        // Not one dimension in both: no curves.
        let mut two = new.clone();
        two.sweep.as_mut().unwrap().dimensions = vec!["bs".into(), "rw".into()];
        assert!(
            compare("a.json", &base, "b.json", &two, &bs_axis)
                .curves
                .is_none()
        );
    }
}
