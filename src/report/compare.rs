//! `diskdash compare BASE.json NEW.json`: two recorded runs side by side, per direction, with
//! the change labelled by which way is better (higher IOPS and bandwidth, lower latency), the
//! job parameters that differ, and a gate for CI (`--max-regression PCT`). Pure apart from
//! [`run`]: two records in, a [`Comparison`] out, rendered as text or JSON.

use std::fmt::{self, Write as _};
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use serde::Serialize;

use crate::bench::units::{
    format_bytes, format_duration, format_latency_ns, format_rate, format_size_short,
};
use crate::cli::CompareArgs;
use crate::record::{self, DirectionRecord, JobRecord, LatencyRecord, RunRecord, RunStatus};
use crate::report::bench::status_word;

/// `format` of the `--json` object.
pub const FORMAT: &str = "diskdash-compare";
/// Bumped on any incompatible change of the `--json` object.
pub const FORMAT_VERSION: u32 = 1;

/// Changes smaller than this (in percent) are shown as `0.0%` and labelled neither way.
const SAME_PCT: f64 = 0.05;

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

    fn label(self) -> &'static str {
        match self {
            Self::Iops => "IOPS",
            Self::BwBytes => "bandwidth",
            Self::LatMeanNs => "lat mean",
            Self::LatP50Ns => "lat p50",
            Self::LatP90Ns => "lat p90",
            Self::LatP99Ns => "lat p99",
            Self::LatP999Ns => "lat p99.9",
            Self::LatMaxNs => "lat max",
        }
    }

    fn better(self) -> Better {
        match self {
            Self::Iops | Self::BwBytes => Better::Higher,
            _ => Better::Lower,
        }
    }

    fn format(self, value: f64) -> String {
        match self {
            Self::Iops => format_rate(value),
            Self::BwBytes => format!("{}/s", format_bytes(value.round() as u64)),
            _ => format_latency_ns(value),
        }
    }

    #[allow(clippy::cast_precision_loss)] // display and percentages only
    fn latency(self, lat: &LatencyRecord) -> f64 {
        let pct = |p: f64| lat.percentile_ns(p).unwrap_or(0) as f64;
        match self {
            Self::LatMeanNs => lat.mean,
            Self::LatP50Ns => pct(50.0),
            Self::LatP90Ns => pct(90.0),
            Self::LatP99Ns => pct(99.0),
            Self::LatP999Ns => pct(99.9),
            Self::LatMaxNs => lat.max as f64,
            Self::Iops | Self::BwBytes => unreachable!("not a latency metric"),
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

/// `read`, `write` or `sync` (fsync/fdatasync calls: latency only).
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
            description: record.job.description.clone(),
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
    pub key: &'static str,
    pub base: serde_json::Value,
    pub new: serde_json::Value,
    /// Part of the workload (everything but `runtime_ns`, `ramp_ns`, `interval_ns`).
    pub workload: bool,
    #[serde(skip)]
    shown: (String, String),
}

/// A line above the table: `warning` for what makes the numbers doubtful, `note` otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Notice {
    pub level: &'static str,
    pub text: String,
}

/// A metric that moved the wrong way by more than `--max-regression`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Regression {
    pub direction: &'static str,
    pub metric: Metric,
    pub base: f64,
    pub new: f64,
    pub change_pct: f64,
}

impl fmt::Display for Regression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {:.1}% ({} -> {})",
            self.direction,
            self.metric.label(),
            if self.change_pct < 0.0 {
                "fell"
            } else {
                "rose"
            },
            self.change_pct.abs(),
            self.metric.format(self.base),
            self.metric.format(self.new),
        )
    }
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
}

/// The job parameters in the record's order: key, value, how the header shows it, workload.
fn job_params(job: &JobRecord) -> Vec<(&'static str, serde_json::Value, String, bool)> {
    use serde_json::json;
    let every = |n: Option<u32>| n.map_or_else(|| "off".to_string(), |n| n.to_string());
    let or = |v: &Option<String>, none: &str| v.clone().unwrap_or_else(|| none.to_string());
    let direct = if job.direct { "direct" } else { "buffered" };
    let workload = [
        ("rw", json!(job.rw), job.rw.clone()),
        ("rwmixread", json!(job.rwmixread), job.rwmixread.to_string()),
        ("bs", json!(job.bs), format_size_short(job.bs)),
        ("size", json!(job.size), format_size_short(job.size)),
        ("iodepth", json!(job.iodepth), job.iodepth.to_string()),
        ("numjobs", json!(job.numjobs), job.numjobs.to_string()),
        ("ioengine", json!(job.ioengine), job.ioengine.clone()),
        (
            "iodepth_batch",
            json!(job.iodepth_batch),
            job.iodepth_batch.to_string(),
        ),
        (
            "iodepth_batch_complete",
            json!(job.iodepth_batch_complete),
            job.iodepth_batch_complete.to_string(),
        ),
        ("direct", json!(job.direct), direct.to_string()),
        ("fsync", json!(job.fsync), every(job.fsync)),
        ("fdatasync", json!(job.fdatasync), every(job.fdatasync)),
        ("sync", json!(job.sync), or(&job.sync, "off")),
        ("cpus", json!(job.cpus), or(&job.cpus, "any")),
    ];
    let timing = [
        ("runtime_ns", job.runtime_ns),
        ("ramp_ns", job.ramp_ns),
        ("interval_ns", job.interval_ns),
    ]
    .map(|(key, ns)| (key, json!(ns), format_duration(Duration::from_nanos(ns))));
    let tag = |is_workload: bool| move |(k, v, shown)| (k, v, shown, is_workload);
    workload
        .into_iter()
        .map(tag(true))
        .chain(timing.into_iter().map(tag(false)))
        .collect()
}

fn job_differences(base: &JobRecord, new: &JobRecord) -> Vec<JobDifference> {
    job_params(base)
        .into_iter()
        .zip(job_params(new))
        .filter(|(b, n)| b.1 != n.1)
        .map(|(b, n)| JobDifference {
            key: b.0,
            base: b.1,
            new: n.1,
            workload: b.3,
            shown: (b.2, n.2),
        })
        .collect()
}

#[allow(clippy::cast_precision_loss)] // rates and percentages only
fn direction(
    name: &'static str,
    base: &DirectionRecord,
    new: &DirectionRecord,
) -> DirectionComparison {
    let both = base.total_ios > 0 && new.total_ios > 0;
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
        .map(|d| d.key)
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

/// Compares `new` (at `new_path`) with `base` (at `base_path`).
#[must_use]
pub fn compare(base_path: &str, base: &RunRecord, new_path: &str, new: &RunRecord) -> Comparison {
    let base_run = RunSummary::of(base_path, base);
    let new_run = RunSummary::of(new_path, new);
    let job_differences = job_differences(&base.job, &new.job);
    let mut directions = Vec::new();
    for (name, b, n) in [
        ("read", &base.read, &new.read),
        ("write", &base.write, &new.write),
    ] {
        if b.total_ios > 0 || n.total_ios > 0 {
            directions.push(direction(name, b, n));
        }
    }
    if base.sync.total_ios > 0 || new.sync.total_ios > 0 {
        directions.push(sync(base, new));
    }
    Comparison {
        format: FORMAT,
        format_version: FORMAT_VERSION,
        notices: notices(&base_run, &new_run, &job_differences),
        same_job: job_differences.iter().all(|d| !d.workload),
        whole_run_totals: base_run.segments > 1 || new_run.segments > 1,
        base: base_run,
        new: new_run,
        job_differences,
        directions,
        max_regression_pct: None,
        regressions: Vec::new(),
    }
}

impl Comparison {
    /// Records `max_pct` and every drop of IOPS or bandwidth, and every rise of p99 latency,
    /// of more than `max_pct` percent.
    pub fn gate(&mut self, max_pct: f64) {
        self.max_regression_pct = Some(max_pct);
        self.regressions = self
            .directions
            .iter()
            .flat_map(|d| d.metrics.iter().map(move |row| (d.direction, row)))
            .filter_map(|(direction, row)| {
                let change = row.change_pct?;
                let regressed = match row.metric {
                    Metric::Iops | Metric::BwBytes => change < -max_pct,
                    Metric::LatP99Ns => change > max_pct,
                    _ => false,
                };
                regressed.then_some(Regression {
                    direction,
                    metric: row.metric,
                    base: row.base,
                    new: row.new,
                    change_pct: change,
                })
            })
            .collect();
    }

    /// The table a person reads.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "diskdash compare: base {}, new {}",
            self.base.path, self.new.path
        );
        for (which, run) in [("base", &self.base), ("new", &self.new)] {
            let _ = writeln!(out, "  {which:<7} {}", run.description);
            let _ = writeln!(
                out,
                "          target {} ({}){}, engine {}, {} after {:.2}s{}",
                run.target,
                run.target_kind.replace('_', " "),
                run.device
                    .as_deref()
                    .map_or_else(String::new, |d| format!(" on {d}")),
                run.engine,
                status_word(run.status),
                Duration::from_nanos(run.elapsed_ns).as_secs_f64(),
                if run.segments > 1 {
                    format!(" in {} segments", run.segments)
                } else {
                    String::new()
                },
            );
        }
        let differences: Vec<String> = self
            .job_differences
            .iter()
            .map(|d| format!("{} {} -> {}", d.key, d.shown.0, d.shown.1))
            .collect();
        let _ = writeln!(
            out,
            "  job     {}",
            match (self.same_job, differences.is_empty()) {
                (true, true) => "the same".to_string(),
                (true, false) => format!("the same workload; differs: {}", differences.join(", ")),
                (false, _) => format!("DIFFERENT: {}", differences.join(", ")),
            }
        );
        for notice in &self.notices {
            let level = if notice.level == "warning" {
                "WARNING"
            } else {
                "note"
            };
            let _ = writeln!(out, "  {level:<7} {}", notice.text);
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "{:<14}{:>14}{:>14}{:>10}", "", "base", "new", "change");
        for direction in &self.directions {
            let _ = writeln!(
                out,
                "{} ({} -> {} {})",
                direction.direction,
                direction.base_ios,
                direction.new_ios,
                if direction.direction == "sync" {
                    "calls"
                } else {
                    "I/Os"
                }
            );
            for row in &direction.metrics {
                let change = row.change_pct.map_or_else(
                    || "n/a".to_string(),
                    |c| {
                        if c.abs() < SAME_PCT {
                            "0.0%".to_string()
                        } else {
                            format!("{c:+.1}%")
                        }
                    },
                );
                let verdict = match row.verdict {
                    Some(Verdict::Better) => "  better",
                    Some(Verdict::Worse) => "  WORSE",
                    Some(Verdict::Same) | None => "",
                };
                let _ = writeln!(
                    out,
                    "  {:<12}{:>14}{:>14}{change:>10}{verdict}",
                    row.metric.label(),
                    row.metric.format(row.base),
                    row.metric.format(row.new),
                );
            }
        }
        if self.directions.is_empty() {
            let _ = writeln!(out, "no I/O in either run");
        }
        if let Some(max) = self.max_regression_pct {
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "max regression {max}%: {}",
                if self.regressions.is_empty() {
                    "passed".to_string()
                } else {
                    format!("{} regression(s), see stderr", self.regressions.len())
                }
            );
        }
        out
    }
}

/// `--max-regression PCT`: a finite number, 0 or more.
fn parse_max_regression(text: &str) -> anyhow::Result<f64> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(pct) if pct.is_finite() && pct >= 0.0 => Ok(pct),
        _ => Err(crate::usage!(
            "--max-regression {text:?} is not a percentage; use a number of 0 or more, e.g. 5 or 2.5"
        )),
    }
}

/// `diskdash compare`: the text (or `--json`) on stdout; with `--max-regression`, each
/// regression on stderr and exit 1 when there is any.
///
/// # Errors
/// A bad `--max-regression` or a file that is not a run record (usage errors); stdout failing.
pub fn run(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let max = args
        .max_regression
        .as_deref()
        .map(parse_max_regression)
        .transpose()?;
    let base = record::load(&args.base)?;
    let new = record::load(&args.new)?;
    let shown = |p: &Path| p.display().to_string();
    let mut comparison = compare(&shown(&args.base), &base, &shown(&args.new), &new);
    if let Some(max) = max {
        comparison.gate(max);
    }
    let text = if args.json {
        format!("{}\n", serde_json::to_string_pretty(&comparison)?)
    } else {
        comparison.text()
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    for regression in &comparison.regressions {
        eprintln!(
            "regression: {regression}, more than the {}% allowed",
            max.unwrap_or_default()
        );
    }
    Ok(if comparison.regressions.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{
        CpuRecord, EngineRecord, HostRecord, Percentiles, SegmentRecord, SyncRecord, TargetRecord,
    };

    /// Latency with p50 = mean, the tail above it, max 10x.
    fn lat(n: u64, mean_ns: u64) -> LatencyRecord {
        LatencyRecord {
            min: mean_ns / 4,
            max: mean_ns * 10,
            mean: mean_ns as f64,
            stddev: 0.0,
            n,
            percentile: Percentiles(vec![
                (50.0, mean_ns),
                (90.0, mean_ns * 2),
                (99.0, mean_ns * 4),
                (99.9, mean_ns * 8),
            ]),
            histogram: None,
        }
    }

    fn dir(iops: f64, mean_ns: u64) -> DirectionRecord {
        let ios = iops as u64 * 2;
        DirectionRecord {
            io_bytes: ios * 4096,
            io_kbytes: ios * 4,
            bw_bytes: iops as u64 * 4096,
            bw: iops as u64 * 4,
            iops,
            runtime: 2000,
            total_ios: ios,
            lat_ns: if ios > 0 {
                lat(ios, mean_ns)
            } else {
                LatencyRecord::default()
            },
        }
    }

    fn job(rw: &str, bs: u64) -> JobRecord {
        JobRecord {
            description: format!(
                "{rw} bs={} iodepth=32 numjobs=1 io_uring direct",
                format_size_short(bs)
            ),
            rw: rw.into(),
            rwmixread: 50,
            bs,
            size: 64 << 20,
            iodepth: 32,
            numjobs: 1,
            ioengine: "io_uring".into(),
            iodepth_batch: 1,
            iodepth_batch_complete: 1,
            direct: true,
            fsync: None,
            fdatasync: None,
            sync: None,
            cpus: None,
            runtime_ns: 2_000_000_000,
            ramp_ns: 0,
            interval_ns: 1_000_000_000,
        }
    }

    fn run(read_iops: f64, read_mean_ns: u64) -> RunRecord {
        RunRecord {
            format: record::FORMAT.into(),
            format_version: record::FORMAT_VERSION,
            diskdash_version: "0.1.0".into(),
            status: RunStatus::Completed,
            error: None,
            started_at: "2026-11-21T08:00:00.000Z".into(),
            ended_at: "2026-11-21T08:00:02.000Z".into(),
            host: HostRecord {
                hostname: "vm".into(),
                kernel: "6.18".into(),
                cpus: 2,
                memory_bytes: 1 << 34,
            },
            job: job("randread", 4096),
            engine: EngineRecord {
                requested: "io_uring".into(),
                used: "io_uring".into(),
                ..EngineRecord::default()
            },
            target: TargetRecord {
                path: "/data/f".into(),
                kind: "file".into(),
                working_set_bytes: 64 << 20,
                dio_align_bytes: 512,
                preconditioned: false,
                scratch_removed: false,
                notes: Vec::new(),
            },
            device: None,
            latency_definition: String::new(),
            elapsed_ns: 2_000_000_000,
            stalled_ns: 0,
            read: dir(read_iops, read_mean_ns),
            write: DirectionRecord::default(),
            sync: SyncRecord::default(),
            retries: 0,
            cpu: CpuRecord::default(),
            segments: Vec::new(),
            warnings: Vec::new(),
            typed_warnings: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn segment(record: &RunRecord, index: u32) -> SegmentRecord {
        SegmentRecord {
            index,
            status: RunStatus::Completed,
            job: record.job.clone(),
            engine: record.engine.used.clone(),
            elapsed_ns: record.elapsed_ns / 2,
            stalled_ns: 0,
            read: record.read.clone(),
            write: record.write.clone(),
            sync: record.sync.clone(),
            retries: 0,
            cpu: CpuRecord::default(),
            series_stride: 1,
            series: Vec::new(),
            device: None,
        }
    }

    #[test]
    fn the_same_job_reads_at_a_glance_with_better_and_worse_labelled() {
        let base = run(50_000.0, 600_000);
        let mut new = run(52_000.0, 500_000);
        new.read.lat_ns.percentile.0[2].1 = 3_000_000; // p99 rose from 2.40 ms
        new.job.runtime_ns = 10_000_000_000;
        let cmp = compare("a.json", &base, "b.json", &new);
        assert!(cmp.same_job);
        assert_eq!(
            cmp.text(),
            "\
diskdash compare: base a.json, new b.json
  base    randread bs=4k iodepth=32 numjobs=1 io_uring direct
          target /data/f (file), engine io_uring, completed after 2.00s
  new     randread bs=4k iodepth=32 numjobs=1 io_uring direct
          target /data/f (file), engine io_uring, completed after 2.00s
  job     the same workload; differs: runtime_ns 2s -> 10s

                        base           new    change
read (100000 -> 104000 I/Os)
  IOPS                 50.0k         52.0k     +4.0%  better
  bandwidth      195.3 MiB/s   203.1 MiB/s     +4.0%  better
  lat mean          600.0 us      500.0 us    -16.7%  better
  lat p50           600.0 us      500.0 us    -16.7%  better
  lat p90            1.20 ms       1.00 ms    -16.7%  better
  lat p99            2.40 ms       3.00 ms    +25.0%  WORSE
  lat p99.9          4.80 ms       4.00 ms    -16.7%  better
  lat max            6.00 ms       5.00 ms    -16.7%  better
"
        );
    }

    #[test]
    fn different_jobs_failures_fallbacks_and_segments_are_flagged() {
        let mut base = run(50_000.0, 600_000);
        base.segments = vec![segment(&base, 0), segment(&base, 1), segment(&base, 2)];
        base.segments[1].job.iodepth = 64;
        base.warnings = vec!["PAGE CACHE: these results measure memory".into()];
        let mut new = run(50_000.0, 600_000);
        new.job = job("randrw", 65536);
        new.write = dir(1_000.0, 1_000_000);
        new.status = RunStatus::Failed;
        new.error = Some(crate::record::ErrorRecord {
            message: "EIO at offset 0".into(),
            operation: Some("write".into()),
            errno: Some(5),
            errno_name: Some("EIO".into()),
            offset_bytes: Some(0),
            worker: Some(0),
        });
        new.engine.used = "psync".into();
        new.engine.fallback = Some("io_uring denied (EPERM)".into());
        let cmp = compare("a.json", &base, "b.json", &new);
        assert!(!cmp.same_job && cmp.whole_run_totals);
        let text = cmp.text();
        let head: Vec<&str> = text.lines().take(13).collect();
        assert_eq!(
            head,
            [
                "diskdash compare: base a.json, new b.json",
                "  base    randread bs=4k iodepth=32 numjobs=1 io_uring direct",
                "          target /data/f (file), engine io_uring, completed after 2.00s in 3 segments",
                "  new     randrw bs=64k iodepth=32 numjobs=1 io_uring direct",
                "          target /data/f (file), engine psync, FAILED after 2.00s",
                "  job     DIFFERENT: rw randread -> randrw, bs 4k -> 64k",
                "  WARNING DIFFERENT JOBS (rw, bs): the table compares two workloads, not one \
                 workload run twice",
                "  WARNING base run: PAGE CACHE: these results measure memory",
                "  WARNING new run FAILED (EIO at offset 0): its numbers cover part of the run",
                "  WARNING new run fell back to psync: io_uring denied (EPERM)",
                "  note    base run has 3 segments of 2 jobs (its job line is the first): the table \
                 compares whole-run totals",
                "  note    the runs used different engines: io_uring -> psync",
                "",
            ]
        );
        // A direction only one run has: rates compare against nothing, latency is n/a.
        assert!(
            text.contains(
                "write (0 -> 2000 I/Os)\n  IOPS                     0          1.0k       n/a\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("  lat p99               0 ns       4.00 ms       n/a\n"),
            "{text}"
        );
    }

    #[test]
    fn the_gate_names_drops_of_rates_and_rises_of_p99_only() {
        let base = run(50_000.0, 600_000);
        let mut new = run(40_000.0, 900_000); // -20% IOPS and bandwidth, +50% latency
        new.sync = SyncRecord {
            total_ios: 10,
            lat_ns: lat(10, 1_000),
        };
        let mut cmp = compare("a.json", &base, "b.json", &new);
        cmp.gate(25.0);
        let named: Vec<String> = cmp.regressions.iter().map(ToString::to_string).collect();
        assert_eq!(named, ["read lat p99 rose 50.0% (2.40 ms -> 3.60 ms)"]);
        cmp.gate(10.0);
        let named: Vec<String> = cmp.regressions.iter().map(ToString::to_string).collect();
        assert_eq!(
            named,
            [
                "read IOPS fell 20.0% (50.0k -> 40.0k)",
                "read bandwidth fell 20.0% (195.3 MiB/s -> 156.2 MiB/s)",
                "read lat p99 rose 50.0% (2.40 ms -> 3.60 ms)",
            ]
        );
        assert!(
            cmp.text()
                .ends_with("\nmax regression 10%: 3 regression(s), see stderr\n")
        );
        // The sync row exists (only in new: n/a) and never gates on its own.
        assert_eq!(cmp.directions[1].direction, "sync");
        assert!(
            cmp.directions[1]
                .metrics
                .iter()
                .all(|r| r.change_pct.is_none())
        );
        cmp.gate(50.0);
        assert!(cmp.regressions.is_empty());
        assert!(cmp.text().ends_with("\nmax regression 50%: passed\n"));
    }

    #[test]
    fn the_json_object_keys() {
        let base = run(50_000.0, 600_000);
        let new = run(25_000.0, 600_000);
        let mut cmp = compare("a.json", &base, "b.json", &new);
        cmp.gate(5.0);
        let json = serde_json::to_value(&cmp).unwrap();
        assert_eq!(json["format"], "diskdash-compare");
        assert_eq!(json["base"]["status"], "completed");
        assert_eq!(json["same_job"], true);
        assert_eq!(json["job_differences"], serde_json::json!([]));
        let iops = &json["directions"][0]["metrics"][0];
        assert_eq!(
            *iops,
            serde_json::json!({"metric": "iops", "base": 50_000.0, "new": 25_000.0,
                "change_pct": -50.0, "better": "higher", "verdict": "worse"})
        );
        assert_eq!(json["directions"][0]["metrics"][5]["metric"], "lat_p99_ns");
        assert_eq!(json["directions"][0]["metrics"][5]["verdict"], "same");
        assert_eq!(json["max_regression_pct"], 5.0);
        assert_eq!(json["regressions"][1]["metric"], "bw_bytes");
    }

    #[test]
    fn max_regression_takes_a_percentage_of_zero_or_more() {
        assert_eq!(parse_max_regression("5").unwrap(), 5.0);
        assert_eq!(parse_max_regression("2.5%").unwrap(), 2.5);
        assert_eq!(parse_max_regression("0").unwrap(), 0.0);
        for bad in ["-1", "ten", "", "NaN", "inf"] {
            let err = parse_max_regression(bad).unwrap_err();
            assert_eq!(crate::error::exit_code(&err), 2);
            assert_eq!(
                err.to_string(),
                format!(
                    "--max-regression {bad:?} is not a percentage; use a number of 0 or more, \
                     e.g. 5 or 2.5"
                )
            );
        }
    }
}
