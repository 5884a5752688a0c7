//! Two recorded runs compared, per direction, with the change labelled by which way is better
//! (higher IOPS and bandwidth, lower latency), the job parameters that differ, and the gate
//! for CI (`--max-regression PCT`). Pure: two records in, a [`Comparison`] out (the `--json`
//! object of `diskdash compare`); `report::compare` writes the text.

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use crate::analysis::change::Verdict;
use crate::analysis::change::{self, Interval, LatencyEntry, Quantity, Samples, Unit};
use crate::analysis::points;
use crate::record::{
    DirectionRecord, JobIntervalRecord, JobRecord, LatencyRecord, RunRecord, RunStatus, StepRecord,
};
use crate::units::{
    format_bytes, format_duration, format_latency_ns, format_rate, format_size_short,
};
use crate::values::Pick;

/// `format` of the `--json` object.
pub const FORMAT: &str = "diskdash-compare";
/// Bumped on any incompatible change of the `--json` object.
pub const FORMAT_VERSION: u32 = 2;

/// Changes smaller than this (in percent) are shown as `0.0%` and labelled neither way.
pub const SAME_PCT: f64 = 0.05;

/// Why a percentile over intervals is not judged: they keep no latency histogram.
pub const NO_HISTOGRAMS: &str = "no histograms";

/// Which way of a metric is the good one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Higher,
    Lower,
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

    /// What a sample of it is, when it is tested (rates and the mean latency).
    fn quantity(self) -> Option<Quantity> {
        match self {
            Self::Iops => Some(Quantity::Iops),
            Self::BwBytes => Some(Quantity::BytesPerS),
            Self::LatMeanNs => Some(Quantity::LatMeanNs),
            _ => None,
        }
    }

    /// The percentile it is, for the latency percentiles.
    fn percentile(self) -> Option<f64> {
        match self {
            Self::LatP50Ns => Some(50.0),
            Self::LatP90Ns => Some(90.0),
            Self::LatP99Ns => Some(99.0),
            Self::LatP999Ns => Some(99.9),
            _ => None,
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

/// What a metric's interval rests on: the unit and how many samples each run gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SampleCounts {
    pub unit: Unit,
    pub base: usize,
    pub new: usize,
    /// Intervals each run recorded (batch means).
    pub base_intervals: u64,
    pub new_intervals: u64,
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
    /// The change's 95% interval in percent of the base (Welch's t over the samples);
    /// `None` when the metric is not tested or a run has too few samples.
    pub interval: Option<Interval>,
    /// What the interval rests on (tested metrics only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<SampleCounts>,
    /// `None` when there is nothing to compare against.
    pub verdict: Option<Verdict>,
    /// Why a metric tested elsewhere is not judged here: `no histograms` for a percentile
    /// over intervals that keep none (older records, a job sharing its step with others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not_judged: Option<&'static str>,
}

impl Row {
    /// A row shown, not tested (until [`Row::judged`]).
    fn new(metric: Metric, base: f64, new: f64, comparable: bool) -> Self {
        let change_pct = (comparable && base > 0.0).then(|| (new - base) / base * 100.0);
        Self {
            metric,
            base,
            new,
            change_pct,
            better: metric.better(),
            interval: None,
            samples: None,
            verdict: change_pct.map(|_| Verdict::NotJudged),
            why_not_judged: None,
        }
    }

    /// Tested on the runs' samples of it, when it is a tested metric.
    fn judged(mut self, samples: Option<(&Samples, &Samples)>, floor_pct: f64) -> Self {
        let (Some(change), Some((b, n))) = (self.change_pct, samples) else {
            if self.change_pct.is_some() && self.metric.percentile().is_some() {
                self.why_not_judged = Some(NO_HISTOGRAMS);
            }
            return self;
        };
        let interval = change::welch(&b.values, &n.values);
        self.interval = interval;
        self.samples = Some(SampleCounts {
            unit: b.unit,
            base: b.values.len(),
            new: n.values.len(),
            base_intervals: b.intervals,
            new_intervals: n.intervals,
        });
        self.verdict = Some(change::judge(
            self.better == Better::Higher,
            change,
            interval,
            floor_pct,
        ));
        self
    }
}

/// Where a run's samples of a direction come from.
#[derive(Debug, Clone, Default)]
pub enum Source<'r> {
    /// The job's intervals (batch means) and, where its step's series has them, each
    /// interval's latency with its histogram (batch percentiles; `None`: no histograms).
    Series(Vec<JobIntervalRecord>, Option<Vec<LatencyEntry<'r>>>),
    /// One record per loop: read, write and trim.
    Loops(Vec<[&'r DirectionRecord; 3]>),
    #[default]
    None,
}

impl Source<'_> {
    /// Its samples of `metric` in direction `dir` (0 read, 1 write, 2 trim). A percentile
    /// has samples where each sample has its own: loops (each loop's recorded percentile), or
    /// batches of intervals with histograms (read off each batch's histograms merged); none
    /// over a series without histograms (older records, several jobs in a step).
    fn samples(&self, dir: usize, metric: Metric) -> Option<Samples> {
        let d = [change::Dir::Read, change::Dir::Write, change::Dir::Trim][dir];
        if let Some(pct) = metric.percentile() {
            let loops = match self {
                Self::Loops(loops) => loops,
                Self::Series(_, Some(latency)) => {
                    return change::batch_percentiles(latency, d, pct);
                }
                Self::Series(_, None) | Self::None => return None,
            };
            return Some(Samples::loops(
                loops
                    .iter()
                    .map(|l| l[dir])
                    .filter(|d| d.total_ios > 0)
                    .filter_map(|d| d.lat_ns.percentile_ns(pct))
                    .map(|ns| ns as f64)
                    .collect(),
            ));
        }
        let quantity = metric.quantity()?;
        match self {
            Self::Series(series, _) => Some(change::batch_means(series, d, quantity)),
            Self::Loops(loops) => Some(Samples::loops(
                loops
                    .iter()
                    .map(|l| l[dir])
                    .filter(|d| quantity != Quantity::LatMeanNs || d.total_ios > 0)
                    .map(|d| match quantity {
                        Quantity::Iops => d.iops,
                        Quantity::BytesPerS => d.bw_bytes as f64,
                        Quantity::LatMeanNs => d.lat_ns.mean,
                    })
                    .collect(),
            )),
            Self::None => None,
        }
    }
}

/// A metric or a direction that only one run has: listed, not compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OnlyIn {
    /// The job it belongs to (`None`: the runs' totals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    pub what: String,
    /// `base` or `new`: the run that has it.
    pub run: &'static str,
}

/// One job in both runs, matched by name: each direction compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobComparison {
    pub name: String,
    pub group: u32,
    pub directions: Vec<DirectionComparison>,
}

/// A reporting group's totals in both runs, as fio's `READ: bw=` line: the jobs' bytes and
/// I/Os over the group's longest job.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupComparison {
    pub group: u32,
    pub jobs: Vec<String>,
    pub directions: Vec<DirectionComparison>,
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
    #[serde(rename = "segments")]
    pub steps: usize,
    /// Distinct jobs among the steps (the description is the first step's).
    #[serde(rename = "segment_jobs")]
    pub step_jobs: usize,
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
            steps: record.steps.len(),
            step_jobs: record
                .steps
                .iter()
                .enumerate()
                .filter(|(i, step)| record.steps[..*i].iter().all(|s| s.job != step.job))
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

/// A metric whose interval's bound nearest zero is worse than `--max-regression`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Regression {
    /// The sweep point it happened at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<String>,
    /// The job (or `group N`) it happened in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    pub direction: &'static str,
    pub metric: Metric,
    pub base: f64,
    pub new: f64,
    pub change_pct: f64,
    /// The interval's bound nearest zero, percent.
    pub bound_pct: f64,
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
    /// What differs between the two machines (shown before any number).
    pub machines: super::machine::MachinesCompared,
    /// Either run has several steps: the table compares whole-run totals.
    pub whole_run_totals: bool,
    pub notices: Vec<Notice>,
    /// How each tested metric's interval is computed.
    pub method: &'static str,
    /// A change at or under this (percent) is "no change within noise" (`--noise-floor`).
    pub noise_floor_pct: f64,
    /// The runs' totals when each ran one job (empty otherwise: see `jobs` and `groups`).
    pub directions: Vec<DirectionComparison>,
    /// Each job of both runs, matched by name (one for runs of one job, equal to the totals).
    pub jobs: Vec<JobComparison>,
    /// Jobs one run lacks: `name (base only)`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_jobs: Vec<String>,
    /// Runs of several jobs: each reporting group's totals, as fio's group line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupComparison>,
    /// Directions and metrics only one run has: listed, not compared.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only_in_one: Vec<OnlyIn>,
    /// `--max-regression`, when given.
    pub max_regression_pct: Option<f64>,
    /// What exceeded it (empty without `--max-regression`).
    pub regressions: Vec<Regression>,
    /// Tested metrics the gate could not judge (too few samples), as `job direction metric`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ungated: Vec<String>,
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
/// the different points of a plan whose steps carry them.
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
        for step in &record.steps {
            if !points.contains(&step.point.as_slice()) {
                points.push(&step.point);
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

/// One direction of a point in both sweeps: IOPS, bandwidth and p99 (`dir`: 0 read, 1 write).
fn point_direction(
    (name, dir): (&'static str, usize),
    (base, new): (&points::Dir, &points::Dir),
    (base_src, new_src): (&Source, &Source),
    floor_pct: f64,
) -> DirectionComparison {
    let both = base.ios > 0 && new.ios > 0;
    let tested = |row: Row| {
        let samples = base_src
            .samples(dir, row.metric)
            .zip(new_src.samples(dir, row.metric));
        row.judged(samples.as_ref().map(|(b, n)| (b, n)), floor_pct)
    };
    DirectionComparison {
        direction: name,
        base_ios: base.ios,
        new_ios: new.ios,
        metrics: vec![
            tested(Row::new(Metric::Iops, base.iops, new.iops, true)),
            tested(Row::new(
                Metric::BwBytes,
                base.bytes_per_s,
                new.bytes_per_s,
                true,
            )),
            tested(Row::new(
                Metric::LatP99Ns,
                base.p99_ns as f64,
                new.p99_ns as f64,
                both,
            )),
        ],
    }
}

/// A sweep point's samples: its loops when it ran 3 or more, else its intervals.
fn point_source<'r>(record: &'r RunRecord, label: &str) -> Source<'r> {
    let steps: Vec<&StepRecord> = record
        .steps
        .iter()
        .filter(|step| {
            let point: Vec<(String, String)> = step
                .point
                .iter()
                .map(|v| (v.option.clone(), v.value.clone()))
                .collect();
            crate::values::describe_point(&point) == label
        })
        .collect();
    if steps.len() >= change::MIN_LOOPS {
        return Source::Loops(
            steps
                .iter()
                .map(|step| [&step.read, &step.write, &step.trim])
                .collect(),
        );
    }
    Source::Series(
        steps.iter().flat_map(|step| step_series(step)).collect(),
        steps_latency(steps.iter().copied()),
    )
}

/// Two sweeps' common points compared, and the labels of those only one has.
fn compare_points(
    (base, new): (&RunRecord, &RunRecord),
    base_points: &[(String, points::Row)],
    new_points: &[(String, points::Row)],
    floor_pct: f64,
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
        let sources = (point_source(base, label), point_source(new, label));
        let mut directions = Vec::new();
        for (name, dir, bd, nd) in [
            ("read", 0, &b.read, &n.read),
            ("write", 1, &b.write, &n.write),
        ] {
            if bd.ios > 0 || nd.ios > 0 {
                directions.push(point_direction(
                    (name, dir),
                    (bd, nd),
                    (&sources.0, &sources.1),
                    floor_pct,
                ));
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

/// One direction (`dir`: 0 read, 1 write, 2 trim) of a job or a run in both runs.
fn direction(
    (name, dir): (&'static str, usize),
    (base, new): (&DirectionRecord, &DirectionRecord),
    (base_src, new_src): (&Source, &Source),
    latency_comparable: bool,
    floor_pct: f64,
) -> DirectionComparison {
    let both = base.total_ios > 0 && new.total_ios > 0 && latency_comparable;
    let tested = |row: Row| {
        let samples = base_src
            .samples(dir, row.metric)
            .zip(new_src.samples(dir, row.metric));
        row.judged(samples.as_ref().map(|(b, n)| (b, n)), floor_pct)
    };
    let mut metrics = vec![
        tested(Row::new(Metric::Iops, base.iops, new.iops, true)),
        tested(Row::new(
            Metric::BwBytes,
            base.bw_bytes as f64,
            new.bw_bytes as f64,
            true,
        )),
    ];
    metrics.extend(Metric::LATENCY.map(|m| {
        tested(Row::new(
            m,
            m.latency(&base.lat_ns),
            m.latency(&new.lat_ns),
            both,
        ))
    }));
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

/// Whether a job made its writes durable (sync calls, or files opened O_SYNC/O_DSYNC).
fn makes_durable(job: &JobRecord) -> bool {
    job.fsync.unwrap_or(0) > 0
        || job.fdatasync.unwrap_or(0) > 0
        || job
            .sync
            .as_deref()
            .is_some_and(|s| !matches!(s, "" | "0" | "none"))
}

/// A write's mean time to durability: its latency plus its share of the time in sync calls
/// (with O_SYNC/O_DSYNC the write's latency already holds it).
fn durable_mean_ns(write: &DirectionRecord, sync: &crate::record::SyncRecord) -> f64 {
    if write.total_ios == 0 {
        return 0.0;
    }
    let sync_ns = sync.lat_ns.mean * sync.total_ios as f64;
    write.lat_ns.mean + sync_ns / write.total_ios as f64
}

fn sync(b: &crate::record::SyncRecord, n: &crate::record::SyncRecord) -> DirectionComparison {
    DirectionComparison {
        direction: "sync",
        base_ios: b.total_ios,
        new_ios: n.total_ios,
        metrics: Metric::LATENCY
            .map(|m| Row::new(m, m.latency(&b.lat_ns), m.latency(&n.lat_ns), true))
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
            RunStatus::Interrupted | RunStatus::Stopped => warn(format!(
                "{which} run was {}: its numbers cover part of the run",
                run.status.as_str()
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
        if run.steps > 1 {
            note(format!(
                "{which} run has {} segments{}: the table compares whole-run totals",
                run.steps,
                if run.step_jobs > 1 {
                    format!(" of {} jobs (its job line is the first)", run.step_jobs)
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

/// A step's intervals as one job's series: its job's own, else (records before each job
/// kept its own, a step of one job) the step's series; empty for a step of several jobs
/// without them.
fn step_series(step: &StepRecord) -> Vec<JobIntervalRecord> {
    match step.jobs.as_slice() {
        [only] if !only.series.is_empty() => only.series.clone(),
        [] | [_] => step
            .series
            .iter()
            .map(|i| JobIntervalRecord {
                t_ns: i.t_ns,
                duration_ns: i.duration_ns,
                intervals: 1,
                read: crate::record::IntervalCounts::of(&i.read),
                write: crate::record::IntervalCounts::of(&i.write),
                trim: crate::record::IntervalCounts::of(&i.trim),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A step's intervals' latency with their histograms, when its step's series is one
/// job's (a step of one job: the series a percentile of a batch is read from); `None` for a
/// step of several jobs, whose series is their sum (their own series keep no histogram).
fn step_latency(step: &StepRecord) -> Option<Vec<LatencyEntry<'_>>> {
    (step.jobs.len() <= 1).then(|| {
        step.series
            .iter()
            .map(|i| LatencyEntry {
                intervals: i.merged.as_ref().map_or(1, |m| m.intervals),
                dirs: [&i.read.lat_ns, &i.write.lat_ns, &i.trim.lat_ns],
            })
            .collect()
    })
}

/// [`step_latency`] of several steps one after another; `None` when one has none.
fn steps_latency<'r>(steps: impl Iterator<Item = &'r StepRecord>) -> Option<Vec<LatencyEntry<'r>>> {
    let parts: Option<Vec<Vec<LatencyEntry<'r>>>> = steps.map(step_latency).collect();
    parts.map(|p| p.into_iter().flatten().collect())
}

/// The jobs of a record by name, each at its first appearance.
fn jobs_of(record: &RunRecord) -> Vec<&crate::record::StepJobRecord> {
    let mut out: Vec<&crate::record::StepJobRecord> = Vec::new();
    for job in record.steps.iter().flat_map(|s| &s.jobs) {
        if !out.iter().any(|j| j.name == job.name) {
            out.push(job);
        }
    }
    out
}

/// One job (or a whole run) of one record, as compared.
struct Side<'r> {
    job: &'r JobRecord,
    dirs: [&'r DirectionRecord; 3],
    sync: &'r crate::record::SyncRecord,
    source: Source<'r>,
}

impl<'r> Side<'r> {
    /// A run's totals, its samples from every step's intervals.
    fn run(r: &'r RunRecord) -> Self {
        Self {
            job: &r.job,
            dirs: [&r.read, &r.write, &r.trim],
            sync: &r.sync,
            source: Source::Series(
                r.steps.iter().flat_map(step_series).collect(),
                steps_latency(r.steps.iter()),
            ),
        }
    }

    /// One job of a step of `r`: its latency histograms from the step's series when it ran
    /// alone in its step.
    fn job(r: &'r RunRecord, j: &'r crate::record::StepJobRecord) -> Self {
        let alone = r
            .steps
            .iter()
            .find(|step| matches!(step.jobs.as_slice(), [only] if std::ptr::eq(only, j)));
        Self {
            job: &j.job,
            dirs: [&j.read, &j.write, &j.trim],
            sync: &j.sync,
            source: Source::Series(j.series.clone(), alone.and_then(step_latency)),
        }
    }
}

/// What the comparison gathers beside the rows.
struct Gathered<'a> {
    only_in_one: &'a mut Vec<OnlyIn>,
    notices: &'a mut Vec<Notice>,
    floor_pct: f64,
}

impl Gathered<'_> {
    fn only(&mut self, job: Option<&str>, what: &str, base_has: bool) {
        self.only_in_one.push(OnlyIn {
            job: job.map(str::to_string),
            what: what.to_string(),
            run: if base_has { "base" } else { "new" },
        });
    }

    fn warn(&mut self, text: String) {
        if !self.notices.iter().any(|n| n.text == text) {
            self.notices.push(Notice {
                level: "warning",
                text,
            });
        }
    }
}

/// Two sides compared direction by direction; what only one has is listed in `out`.
fn compare_sides(
    name: Option<&str>,
    b: &Side,
    n: &Side,
    out: &mut Gathered,
) -> Vec<DirectionComparison> {
    // Sync time is reported apart from the writes': with different sync policies one run's
    // write latency holds durability and the other's does not, so it is not compared.
    let sync_differs = sync_policy(b.job) != sync_policy(n.job);
    let mut dirs = Vec::new();
    for (k, dir_name) in ["read", "write", "trim"].into_iter().enumerate() {
        let (bd, nd) = (b.dirs[k], n.dirs[k]);
        match (bd.total_ios > 0, nd.total_ios > 0) {
            (true, true) => {}
            (false, false) => continue,
            (base_has, _) => {
                out.only(name, dir_name, base_has);
                continue;
            }
        }
        let writes_differ = k == 1 && sync_differs;
        let sources = (&b.source, &n.source);
        let mut dir = direction(
            (dir_name, k),
            (bd, nd),
            sources,
            !writes_differ,
            out.floor_pct,
        );
        if writes_differ {
            let lead = "the runs make writes durable differently (fsync, fdatasync, sync): write \
                        latency leaves sync calls out, so it is not compared; ";
            match (makes_durable(b.job), makes_durable(n.job)) {
                (true, true) => {
                    dir.metrics.push(Row::new(
                        Metric::DurableMeanNs,
                        durable_mean_ns(bd, b.sync),
                        durable_mean_ns(nd, n.sync),
                        true,
                    ));
                    out.warn(format!(
                        "{lead}`durable mean` is a write's latency plus its share of the sync time"
                    ));
                }
                (false, false) => out.warn(lead.trim_end_matches("; ").to_string()),
                (base_durable, _) => {
                    let which = if base_durable { "base" } else { "new" };
                    out.only(name, "durable mean (writes made durable)", base_durable);
                    out.warn(format!(
                        "{lead}only the {which} run made writes durable, so no durable latency \
                         is compared"
                    ));
                }
            }
        }
        dirs.push(dir);
    }
    match (b.sync.total_ios > 0, n.sync.total_ios > 0) {
        (true, true) => dirs.push(sync(b.sync, n.sync)),
        (false, false) => {}
        (base_has, _) => out.only(name, "sync calls", base_has),
    }
    dirs
}

/// A reporting group's totals in one direction, as fio's group line: the jobs' bytes and
/// I/Os over the group's longest job with I/O in it.
#[must_use]
pub fn group_direction(jobs: &[&crate::record::StepJobRecord], k: usize) -> DirectionRecord {
    let mut out = DirectionRecord::default();
    let mut longest_ns = 0;
    for job in jobs {
        let d = [&job.read, &job.write, &job.trim][k];
        if d.total_ios == 0 {
            continue;
        }
        out.total_ios += d.total_ios;
        out.io_bytes += d.io_bytes;
        longest_ns = longest_ns.max(d.runtime_ns.unwrap_or(job.elapsed_ns));
    }
    if longest_ns > 0 {
        let secs = longest_ns as f64 / 1e9;
        out.iops = out.total_ios as f64 / secs;
        out.bw_bytes = (out.io_bytes as f64 / secs).round() as u64;
    }
    out
}

/// A step of several jobs' totals in each direction (read, write, trim), as fio's group
/// lines: each reporting group's bytes and I/Os over its longest job, the groups (which run at
/// once) summed. The jobs' own rates add up to these when the jobs ran equally long.
#[must_use]
pub fn step_totals(jobs: &[&crate::record::StepJobRecord]) -> [DirectionRecord; 3] {
    let mut groups: Vec<u32> = jobs.iter().map(|j| j.group).collect();
    groups.sort_unstable();
    groups.dedup();
    std::array::from_fn(|k| {
        let mut total = DirectionRecord::default();
        for &g in &groups {
            let members: Vec<&crate::record::StepJobRecord> =
                jobs.iter().copied().filter(|j| j.group == g).collect();
            let d = group_direction(&members, k);
            total.total_ios += d.total_ios;
            total.io_bytes += d.io_bytes;
            total.iops += d.iops;
            total.bw_bytes += d.bw_bytes;
        }
        total
    })
}

/// Runs of several jobs: the groups both have, each direction's IOPS and bandwidth.
fn compare_groups(
    base: &[&crate::record::StepJobRecord],
    new: &[&crate::record::StepJobRecord],
    out: &mut Gathered,
) -> Vec<GroupComparison> {
    let mut groups: Vec<u32> = base.iter().map(|j| j.group).collect();
    groups.dedup();
    groups.retain(|g| new.iter().any(|j| j.group == *g));
    groups.sort_unstable();
    groups.dedup();
    fn members<'r>(
        jobs: &[&'r crate::record::StepJobRecord],
        g: u32,
    ) -> Vec<&'r crate::record::StepJobRecord> {
        jobs.iter().copied().filter(|j| j.group == g).collect()
    }
    let source = |jobs: &[&crate::record::StepJobRecord]| {
        let series: Vec<&[JobIntervalRecord]> = jobs.iter().map(|j| j.series.as_slice()).collect();
        Source::Series(change::summed(&series), None)
    };
    let mut comparisons = Vec::new();
    for g in groups {
        let (bj, nj) = (members(base, g), members(new, g));
        let (bs, ns) = (source(&bj), source(&nj));
        let label = format!("group {g}");
        let mut directions = Vec::new();
        for (k, name) in ["read", "write", "trim"].into_iter().enumerate() {
            let (bd, nd) = (group_direction(&bj, k), group_direction(&nj, k));
            match (bd.total_ios > 0, nd.total_ios > 0) {
                (true, true) => {
                    let mut dir =
                        direction((name, k), (&bd, &nd), (&bs, &ns), false, out.floor_pct);
                    dir.metrics.truncate(2);
                    directions.push(dir);
                }
                (false, false) => {}
                (base_has, _) => out.only(Some(&label), name, base_has),
            }
        }
        let mut names: Vec<String> = bj.iter().map(|j| j.name.clone()).collect();
        for j in &nj {
            if !names.contains(&j.name) {
                names.push(j.name.clone());
            }
        }
        comparisons.push(GroupComparison {
            group: g,
            jobs: names,
            directions,
        });
    }
    comparisons
}

/// The runs' jobs, matched by name: each job's directions; for runs of several jobs also
/// the groups' totals. Returns (totals, jobs, unmatched, groups).
fn compare_jobs(
    base: &RunRecord,
    new: &RunRecord,
    out: &mut Gathered,
) -> (
    Vec<DirectionComparison>,
    Vec<JobComparison>,
    Vec<String>,
    Vec<GroupComparison>,
) {
    let (bj, nj) = (jobs_of(base), jobs_of(new));
    if bj.len() <= 1 && nj.len() <= 1 {
        // One job each: the runs' totals (a bench run's live changes included).
        let (b, n) = (Side::run(base), Side::run(new));
        let name = bj
            .first()
            .or(nj.first())
            .map_or_else(|| "bench".to_string(), |j| j.name.clone());
        let directions = compare_sides(None, &b, &n, out);
        let job = JobComparison {
            name,
            group: bj.first().map_or(0, |j| j.group),
            directions: directions.clone(),
        };
        return (directions, vec![job], Vec::new(), Vec::new());
    }
    out.notices.push(Notice {
        level: "note",
        text: format!(
            "the runs have {} and {} jobs: compared job by job, matched by name, and each \
             reporting group's totals as fio's group line (the jobs' bytes over the group's \
             longest job)",
            bj.len(),
            nj.len()
        ),
    });
    let mut jobs = Vec::new();
    let mut unmatched = Vec::new();
    for b in &bj {
        let Some(n) = nj.iter().find(|n| n.name == b.name) else {
            unmatched.push(format!("{} (base only)", b.name));
            continue;
        };
        jobs.push(JobComparison {
            name: b.name.clone(),
            group: b.group,
            directions: compare_sides(Some(&b.name), &Side::job(base, b), &Side::job(new, n), out),
        });
    }
    for n in &nj {
        if !bj.iter().any(|b| b.name == n.name) {
            unmatched.push(format!("{} (new only)", n.name));
        }
    }
    let groups = compare_groups(&bj, &nj, out);
    (Vec::new(), jobs, unmatched, groups)
}

/// Compares `new` (at `new_path`) with `base` (at `base_path`); a one-option sweep's curves
/// placed on `axis`; a change at or under `floor_pct` percent is no change.
#[must_use]
pub fn compare(
    (base_path, base): (&str, &RunRecord),
    (new_path, new): (&str, &RunRecord),
    axis: AxisOf,
    floor_pct: f64,
) -> Comparison {
    let base_run = RunSummary::of(base_path, base);
    let new_run = RunSummary::of(new_path, new);
    let job_differences = job_differences(&base.job, &new.job);
    let mut notices = notices(&base_run, &new_run, &job_differences);
    let (base_points, new_points) = (sweep_points(base), sweep_points(new));
    let (points, unmatched_points) =
        compare_points((base, new), &base_points, &new_points, floor_pct);
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
    let mut only_in_one = Vec::new();
    let mut gathered = Gathered {
        only_in_one: &mut only_in_one,
        notices: &mut notices,
        floor_pct,
    };
    let (directions, jobs, unmatched_jobs, groups) = compare_jobs(base, new, &mut gathered);
    Comparison {
        format: FORMAT,
        format_version: FORMAT_VERSION,
        notices,
        same_job: job_differences.iter().all(|d| !d.workload),
        whole_run_totals: !directions.is_empty() && (base_run.steps > 1 || new_run.steps > 1),
        base: base_run,
        new: new_run,
        job_differences,
        machines: super::machine::compare_machines(base, new),
        method: change::METHOD,
        noise_floor_pct: floor_pct,
        directions,
        jobs,
        unmatched_jobs,
        groups,
        only_in_one,
        max_regression_pct: None,
        regressions: Vec::new(),
        ungated: Vec::new(),
        points,
        unmatched_points,
        curves,
    }
}

impl Comparison {
    /// Every tested row with where it is: (point, job, direction, row).
    fn tested_rows(&self) -> Vec<(Option<String>, Option<String>, &'static str, &Row)> {
        let mut out = Vec::new();
        let several = self.directions.is_empty();
        for job in &self.jobs {
            let name = several.then(|| job.name.clone());
            for d in &job.directions {
                for row in &d.metrics {
                    out.push((None, name.clone(), d.direction, row));
                }
            }
        }
        for group in &self.groups {
            for d in &group.directions {
                for row in &d.metrics {
                    out.push((
                        None,
                        Some(format!("group {}", group.group)),
                        d.direction,
                        row,
                    ));
                }
            }
        }
        for p in &self.points {
            for d in &p.directions {
                for row in &d.metrics {
                    out.push((Some(p.point.clone()), None, d.direction, row));
                }
            }
        }
        out.retain(|(_, _, _, row)| row.samples.is_some());
        out
    }

    /// Records `max_pct` and every tested metric (IOPS, bandwidth, mean latency) whose 95%
    /// interval's bound nearest zero is worse than `max_pct` percent; those with too few
    /// samples go to `ungated`.
    pub fn gate(&mut self, max_pct: f64) {
        self.max_regression_pct = Some(max_pct);
        let mut regressions = Vec::new();
        let mut ungated = Vec::new();
        for (point, job, direction, row) in self.tested_rows() {
            let (Some(change_pct), Some(interval)) = (row.change_pct, row.interval) else {
                let at = [point.as_deref(), job.as_deref(), Some(direction)];
                let at: Vec<&str> = at.into_iter().flatten().collect();
                ungated.push(format!("{} {}", at.join(" "), row.metric.label()));
                continue;
            };
            let bound = interval.nearest_zero();
            let worse_by = match row.better {
                Better::Higher => -bound,
                Better::Lower => bound,
            };
            if worse_by > max_pct {
                regressions.push(Regression {
                    point,
                    job,
                    direction,
                    metric: row.metric,
                    base: row.base,
                    new: row.new,
                    change_pct,
                    bound_pct: bound,
                });
            }
        }
        self.regressions = regressions;
        self.ungated = ungated;
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
        let template = record.steps[0].clone();
        record.steps.clear();
        for (value, runs) in points {
            for mb in *runs {
                let mut step = template.clone();
                step.index = u32::try_from(record.steps.len()).unwrap();
                step.point = vec![PointValue::new("bs", value)];
                step.read.total_ios = 1000;
                step.read.bw_bytes = (mb * 1e6) as u64;
                step.read.iops = mb * 1e6 / 4096.0;
                record.steps.push(step);
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

    /// A sweep of three loops a point, each loop's read p99 in microseconds.
    fn sweep_p99(points: &[(&str, &[f64])]) -> RunRecord {
        let flat: Vec<(&str, Vec<f64>)> = points
            .iter()
            .map(|(v, r)| (*v, vec![300.0; r.len()]))
            .collect();
        let shaped: Vec<(&str, &[f64])> = flat.iter().map(|(v, r)| (*v, r.as_slice())).collect();
        let mut record = sweep(&shaped, "median");
        let p99s = points.iter().flat_map(|(_, runs)| runs.iter());
        for (step, us) in record.steps.iter_mut().zip(p99s) {
            step.read.lat_ns.percentile.0 = vec![(50.0, 100_000), (99.0, (us * 1e3) as u64)];
        }
        record
    }

    fn read_p99(cmp: &Comparison, point: &str) -> Row {
        let p = cmp.points.iter().find(|p| p.point == point).unwrap();
        p.directions[0]
            .metrics
            .iter()
            .find(|m| m.metric == Metric::LatP99Ns)
            .unwrap()
            .clone()
    }

    /// p99 is judged as IOPS is, on the loops' own p99s: a doubling loop after loop is worse
    /// (and gated), a 2% rise is under the noise floor, a rise the loops' spread holds is no
    /// change; the interval is Welch's over the loops.
    #[test]
    fn a_p99_change_is_judged_by_the_interval_and_the_noise_floor() {
        // The loops' bandwidths are equal: the median pick is the middle loop, listed second.
        let base = sweep_p99(&[
            ("4k", &[1000.0, 1020.0, 1040.0]),
            ("64k", &[1000.0, 1005.0, 1010.0]),
            ("1M", &[1000.0, 1005.0, 1010.0]),
        ]);
        let new = sweep_p99(&[
            ("4k", &[2000.0, 2040.0, 2080.0]),
            ("64k", &[1020.0, 1025.0, 1030.0]),
            ("1M", &[500.0, 1300.0, 3000.0]),
        ]);
        let mut cmp = compare(("a.json", &base), ("b.json", &new), &bs_axis, 5.0);
        let doubled = read_p99(&cmp, "bs=4k");
        assert_eq!((doubled.base, doubled.new), (1_020_000.0, 2_040_000.0));
        assert_eq!(doubled.verdict, Some(Verdict::Worse));
        let interval = doubled.interval.expect("an interval over the loops");
        assert!(
            interval.low_pct > 90.0 && interval.high_pct < 110.0,
            "{interval:?}"
        );
        assert_eq!(
            doubled.samples.map(|s| (s.unit, s.base, s.new)),
            Some((Unit::Loops, 3, 3))
        );

        // Clearly off zero, but 2% is under the 5% floor.
        let slight = read_p99(&cmp, "bs=64k");
        assert!(slight.interval.unwrap().excludes_zero());
        assert_eq!(slight.verdict, Some(Verdict::NoChange));
        // +29% at the picked loop, but the loops spread over it: the interval holds zero.
        let spread = read_p99(&cmp, "bs=1M");
        assert!(spread.change_pct.unwrap() > 25.0);
        assert!(!spread.interval.unwrap().excludes_zero());
        assert_eq!(spread.verdict, Some(Verdict::NoChange));
        // A floor over the change turns the doubling into no change too.
        let wide = compare(("a.json", &base), ("b.json", &new), &bs_axis, 150.0);
        assert_eq!(read_p99(&wide, "bs=4k").verdict, Some(Verdict::NoChange));

        // The gate counts a p99 regression as any other.
        cmp.gate(50.0);
        let at: Vec<(Option<&str>, Metric)> = cmp
            .regressions
            .iter()
            .map(|r| (r.point.as_deref(), r.metric))
            .collect();
        assert_eq!(at, [(Some("bs=4k"), Metric::LatP99Ns)]);
    }

    /// `n` intervals of 10 ms, each 100 reads of 4 KiB: 98 at 100 us and 2 at `p99_us`, give
    /// or take 1% from interval to interval; and their totals.
    fn p99_intervals(p99_us: f64, n: u64) -> (Vec<crate::record::IntervalRecord>, DirectionRecord) {
        let mut total = crate::stats::DirectionStats::new();
        let series = (0..n)
            .map(|i| {
                let mut stats = crate::stats::DirectionStats::new();
                let slow = (p99_us * 1e3 * (1.0 + 0.01 * ((i % 3) as f64 - 1.0))) as u64;
                for k in 0..100 {
                    stats.record(4096, if k < 98 { 100_000 } else { slow });
                }
                total.add(&stats);
                let mut interval = fixture::read_interval(0, i, &stats);
                interval.t_ns = (i + 1) * 10_000_000;
                interval.duration_ns = 10_000_000;
                interval
            })
            .collect();
        let totals = DirectionRecord::from_stats(&total, n * 10_000_000).with_histogram(&total);
        (series, totals)
    }

    /// A run of one job over [`p99_intervals`]: its step's series, no series of the job's own.
    fn run_p99(p99_us: f64, n: u64) -> RunRecord {
        let mut record = fixture::record();
        let step = &mut record.steps[0];
        step.jobs.truncate(1);
        step.jobs[0].series.clear();
        let (series, totals) = p99_intervals(p99_us, n);
        step.series = series;
        record.read = totals;
        record
    }

    fn read_row(cmp: &Comparison, job: usize, metric: Metric) -> Row {
        cmp.jobs[job].directions[0]
            .metrics
            .iter()
            .find(|m| m.metric == metric)
            .unwrap()
            .clone()
    }

    /// Over batches of intervals, each batch's p99 read off its intervals' histograms merged:
    /// a doubled p99 is worse (and gated), +2% is within noise, too few intervals for two
    /// batches is insufficient data, and intervals without histograms are not judged.
    #[test]
    fn a_p99_over_interval_batches_is_judged_from_their_histograms() {
        let base = run_p99(1000.0, 100);
        let mut cmp = compare(
            ("a.json", &base),
            ("b.json", &run_p99(2000.0, 100)),
            &bs_axis,
            5.0,
        );
        let doubled = read_row(&cmp, 0, Metric::LatP99Ns);
        assert!(doubled.change_pct.unwrap() > 90.0, "{doubled:?}");
        assert_eq!(doubled.verdict, Some(Verdict::Worse), "{doubled:?}");
        assert_eq!(
            doubled
                .samples
                .map(|s| (s.unit, s.base, s.new, s.base_intervals)),
            Some((Unit::BatchPercentiles, 10, 10, 100))
        );
        let interval = doubled.interval.unwrap();
        assert!(
            interval.low_pct > 90.0 && interval.high_pct < 110.0,
            "{interval:?}"
        );
        // p50 and p99.9 are judged the same way (p50 stayed at 100 us).
        assert_eq!(
            read_row(&cmp, 0, Metric::LatP50Ns).verdict,
            Some(Verdict::NoChange)
        );
        assert_eq!(
            read_row(&cmp, 0, Metric::LatP999Ns).verdict,
            Some(Verdict::Worse)
        );
        cmp.gate(50.0);
        let gated: Vec<Metric> = cmp.regressions.iter().map(|r| r.metric).collect();
        assert!(gated.contains(&Metric::LatP99Ns), "{gated:?}");

        let cmp = compare(
            ("a.json", &base),
            ("b.json", &run_p99(1020.0, 100)),
            &bs_axis,
            5.0,
        );
        let slight = read_row(&cmp, 0, Metric::LatP99Ns);
        assert!(slight.change_pct.unwrap() > 1.0, "{slight:?}");
        assert_eq!(slight.verdict, Some(Verdict::NoChange), "{slight:?}");

        let short = run_p99(2000.0, 15);
        let cmp = compare(("a.json", &base), ("b.json", &short), &bs_axis, 5.0);
        let few = read_row(&cmp, 0, Metric::LatP99Ns);
        assert_eq!(few.verdict, Some(Verdict::InsufficientData), "{few:?}");
        assert_eq!(few.samples.map(|s| s.new_intervals), Some(15));

        // A record without interval histograms (before format 3): shown, not judged.
        let mut old = run_p99(2000.0, 100);
        for interval in &mut old.steps[0].series {
            interval.read.lat_ns.histogram = None;
        }
        let cmp = compare(("a.json", &base), ("b.json", &old), &bs_axis, 5.0);
        let not = read_row(&cmp, 0, Metric::LatP99Ns);
        assert_eq!(not.verdict, Some(Verdict::NotJudged));
        assert_eq!(not.why_not_judged, Some(NO_HISTOGRAMS));
        assert!(not.samples.is_none() && not.interval.is_none());
        // Its IOPS are still judged from the same intervals' counts.
        assert_eq!(
            read_row(&cmp, 0, Metric::Iops).verdict,
            Some(Verdict::NoChange)
        );
    }

    /// A job alone in its step has the step's histograms; jobs sharing a step have none of
    /// their own.
    #[test]
    fn a_job_alone_in_its_step_is_judged_from_the_step_s_histograms() {
        let two = |p99_us: f64| {
            let mut record = fixture::two_step_record();
            let (series, totals) = p99_intervals(p99_us, 100);
            record.steps[1].series = series;
            record.steps[1].jobs[0].read = totals.clone();
            record.steps[0].jobs[0].read = totals;
            record
        };
        let cmp = compare(
            ("a.json", &two(1000.0)),
            ("b.json", &two(2000.0)),
            &bs_axis,
            5.0,
        );
        let names: Vec<&str> = cmp.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["r", "w", "seq"]);
        let shared = read_row(&cmp, 0, Metric::LatP99Ns);
        assert_eq!(shared.verdict, Some(Verdict::NotJudged));
        assert_eq!(shared.why_not_judged, Some(NO_HISTOGRAMS));
        let alone = read_row(&cmp, 2, Metric::LatP99Ns);
        assert_eq!(alone.verdict, Some(Verdict::Worse), "{alone:?}");
    }

    #[test]
    fn loops_compare_the_picked_run_not_the_first() {
        // The first loop is the slowest: best, mean and median each differ from it.
        let runs: &[f64] = &[100.0, 400.0, 250.0];
        for (pick, want) in [("best", 400e6), ("mean", 250e6), ("median", 250e6)] {
            let base = sweep(&[("4k", runs)], pick);
            let new = sweep(&[("4k", &[200.0, 200.0, 200.0])], pick);
            let cmp = compare(("a.json", &base), ("b.json", &new), &bs_axis, 5.0);
            assert_eq!(read_bw(&cmp, "bs=4k"), (want, 200e6), "{pick}");
        }
        // The median of 100, 400, 300 is 300, their mean 266.7.
        let base = sweep(&[("4k", &[100.0, 400.0, 300.0])], "median");
        let cmp = compare(("a.json", &base), ("b.json", &base), &bs_axis, 5.0);
        assert_eq!(read_bw(&cmp, "bs=4k"), (300e6, 300e6));
        let base = sweep(&[("4k", &[100.0, 400.0, 300.0])], "mean");
        let (b, _) = read_bw(
            &compare(("a.json", &base), ("b.json", &base), &bs_axis, 5.0),
            "bs=4k",
        );
        assert!((b - 800e6 / 3.0).abs() < 1.0, "{b}");
    }

    #[test]
    fn the_gate_names_the_point_whose_picked_run_regressed() {
        // Three loops: the loops are the samples. 64k's fell by half, loop after loop; 4k's
        // best is the same and its loops spread too widely to tell a change.
        let base = sweep(
            &[
                ("4k", &[100.0, 400.0, 390.0]),
                ("64k", &[880.0, 900.0, 890.0]),
            ],
            "best",
        );
        let new = sweep(
            &[
                ("4k", &[400.0, 100.0, 110.0]),
                ("64k", &[450.0, 440.0, 460.0]),
            ],
            "best",
        );
        let mut cmp = compare(("a.json", &base), ("b.json", &new), &bs_axis, 5.0);
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
        let cmp = compare(("a.json", &base), ("b.json", &new), &bs_axis, 5.0);
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
            compare(("a.json", &base), ("b.json", &two), &bs_axis, 5.0)
                .curves
                .is_none()
        );
    }
}
