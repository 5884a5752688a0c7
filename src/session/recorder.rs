//! The record of a session, built as it runs: one interval record per interval (written to
//! `--jsonl` as it comes), one step record per step, the run's totals, and the final
//! [`RunRecord`] (written atomically to `--json`). The runner hands it what happened and
//! publishes; the recorder never sees the runner.

use std::time::SystemTime;

use super::aggregate::{Interval, StepEnd};
use crate::analysis::trust::{self, TrustLimits};
use crate::bench::spec::{EngineKind, JobSpec};
use crate::monitor::iostat::IostatRow;
use crate::record::{
    CpuRecord, DeviceRecord, DirectionRecord, EngineRecord, ErrorRecord, FORMAT, FORMAT_VERSION,
    HostRecord, INTERVAL_FORMAT, IdleDiskRecord, IntervalJobRecord, IntervalRecord, JobRecord,
    JsonlWriter, LATENCY_DEFINITION, PointValue, ReadyRecord, RunRecord, RunStatus, RunWarning,
    StepJobRecord, StepRecord, SyncRecord, TargetRecord, TrustRecord, WarningLine, rfc3339_utc,
};
use crate::session::cpu::cpu_totals;
use crate::session::job_series::JobSeries;
use crate::session::series::RecordSeries;
use crate::stats::WorkerStats;

/// What the record keeps of a session so far.
/// `format` of a `--jsonl` line for a finished sweep point.
pub const POINT_FORMAT: &str = "diskdash-sweep-point";

/// A finished sweep point on `--jsonl`: the step's point and totals.
#[derive(serde::Serialize)]
struct PointLine<'a> {
    format: &'static str,
    format_version: u32,
    #[serde(rename = "segment")]
    step: u32,
    point: &'a [PointValue],
    status: RunStatus,
    elapsed_ns: u64,
    read: &'a DirectionRecord,
    write: &'a DirectionRecord,
    sync: &'a SyncRecord,
    device: Option<&'a DeviceRecord>,
}

pub struct Recorder {
    jsonl: Option<JsonlWriter>,
    started_at: SystemTime,
    steps: Vec<StepRecord>,
    /// The running step's series, thinned to the record's bound.
    series: RecordSeries,
    /// Each job's part of the running step's intervals, bounded.
    job_series: JobSeries,
    total: WorkerStats,
    elapsed_ns: u64,
    stalled_ns: u64,
    cpu: CpuRecord,
    typed_warnings: Vec<RunWarning>,
    /// Warnings go to `--jsonl` too.
    warning_lines: bool,
    /// The device over the last measured window that had one.
    device: Option<DeviceRecord>,
    /// For each step, its jobs' target indices (to note removals at the end).
    step_targets: Vec<Vec<usize>>,
    /// Gets each interval's record as it closes.
    sink: Option<crate::session::IntervalSink>,
    /// The limits each step's trust is judged by, and the idle baseline.
    trust: TrustSetup,
}

/// What the trust of a run is judged by: the limits, and each disk's rate measured idle
/// (for how long) before the run.
#[derive(Debug, Clone, Default)]
pub struct TrustSetup {
    pub limits: TrustLimits,
    pub idle_window_ns: u64,
    pub idle: Vec<IdleDiskRecord>,
}

/// How a step ended, for its record.
pub struct StepOutcome<'a> {
    pub status: RunStatus,
    pub job: &'a JobSpec,
    pub engine: &'a str,
    pub end: &'a StepEnd,
    pub cpu: CpuRecord,
    pub device: Option<DeviceRecord>,
    /// Every disk of the step.
    pub devices: Vec<DeviceRecord>,
    pub jobs: Vec<StepJobRecord>,
    /// Each job's target index (see [`Recorder::targets_removed`]).
    pub targets: Vec<usize>,
    /// The step's point (a sweep's), empty otherwise.
    pub point: &'a [(String, String)],
    /// The step's notes (a sweep point's capped batching values), empty otherwise.
    pub notes: &'a [String],
    pub stop_reason: crate::record::StopReason,
}

/// What the record says of the run as a whole, beside what the recorder kept.
pub struct RunOutcome {
    pub status: RunStatus,
    pub error: Option<ErrorRecord>,
    /// The job when no step ran.
    pub job: JobSpec,
    pub engine: EngineRecord,
    pub target: TargetRecord,
    pub notes: Vec<String>,
}

impl Recorder {
    #[must_use]
    pub fn new(jsonl: Option<JsonlWriter>) -> Self {
        Self {
            jsonl,
            started_at: SystemTime::now(),
            steps: Vec::new(),
            series: RecordSeries::new(),
            job_series: JobSeries::new(),
            total: WorkerStats::new(0),
            elapsed_ns: 0,
            stalled_ns: 0,
            cpu: CpuRecord::default(),
            typed_warnings: Vec::new(),
            warning_lines: false,
            device: None,
            step_targets: Vec::new(),
            sink: None,
            trust: TrustSetup::default(),
        }
    }

    /// Sets what the trust of each step is judged by (before the first step ends).
    pub fn set_trust(&mut self, trust: TrustSetup) {
        self.trust = trust;
    }

    /// Hands each interval's record to `sink` too.
    #[must_use]
    pub fn with_sink(mut self, sink: Option<crate::session::IntervalSink>) -> Self {
        self.sink = sink;
        self
    }

    /// The index the next step gets.
    #[must_use]
    pub fn next_step(&self) -> u32 {
        u32::try_from(self.steps.len()).unwrap_or(u32::MAX)
    }

    /// A new step starts: its series starts empty.
    pub fn start_step(&mut self) {
        self.series = RecordSeries::new();
        self.job_series = JobSeries::new();
    }

    /// One interval: its record (also written to `--jsonl`, when it still can be). `Err` says
    /// why `--jsonl` stopped; the record is kept either way.
    pub fn interval(
        &mut self,
        step: u32,
        interval: &Interval,
        device: Option<IostatRow>,
        names: &[String],
    ) -> (IntervalRecord, Result<(), String>) {
        let d = interval.duration_ns;
        let jobs = interval
            .jobs
            .iter()
            .zip(names)
            .map(|(stats, name)| IntervalJobRecord {
                name: name.clone(),
                read: DirectionRecord::from_stats(&stats.read, d)
                    .with_interval_histogram(&stats.read),
                write: DirectionRecord::from_stats(&stats.write, d)
                    .with_interval_histogram(&stats.write),
                sync: SyncRecord::from_stats(&stats.sync).with_interval_histogram(&stats.sync),
                trim: DirectionRecord::from_stats(&stats.trim, d)
                    .with_interval_histogram(&stats.trim),
            })
            .collect();
        let record = IntervalRecord {
            format: INTERVAL_FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            step,
            index: interval.index,
            t_ns: interval.end_offset_ns,
            duration_ns: interval.duration_ns,
            stalled_ns: interval.stalled_ns,
            read: DirectionRecord::from_stats(&interval.stats.read, interval.duration_ns)
                .with_interval_histogram(&interval.stats.read),
            write: DirectionRecord::from_stats(&interval.stats.write, interval.duration_ns)
                .with_interval_histogram(&interval.stats.write),
            sync: SyncRecord::from_stats(&interval.stats.sync)
                .with_interval_histogram(&interval.stats.sync),
            trim: DirectionRecord::from_stats(&interval.stats.trim, interval.duration_ns)
                .with_interval_histogram(&interval.stats.trim),
            device,
            jobs,
            merged: None,
        };
        let mut written = Ok(());
        if let Some(jsonl) = &mut self.jsonl
            && let Err(err) = jsonl.write(&record)
        {
            written = Err(format!("{err:#}"));
            self.jsonl = None;
        }
        if let Some(sink) = &self.sink
            && let Ok(mut sink) = sink.0.lock()
        {
            (*sink)(&record);
        }
        self.series.push(&record, record.device.as_ref());
        // A step of one job: the interval's totals are its part.
        let one = [[&record.read, &record.write, &record.trim]];
        if record.jobs.is_empty() {
            self.job_series
                .push(record.t_ns, record.duration_ns, one.into_iter());
        } else {
            let parts = record.jobs.iter().map(|j| [&j.read, &j.write, &j.trim]);
            self.job_series.push(record.t_ns, record.duration_ns, parts);
        }
        (record, written)
    }

    /// The targets are prepared: a [`ReadyRecord`] line on `--jsonl` (fleet's start-together
    /// handshake; a lost line shows on the other side as a host never ready).
    pub fn ready(&mut self, working_set_bytes: u64) {
        let line = ReadyRecord::new(working_set_bytes);
        if let Some(jsonl) = &mut self.jsonl
            && jsonl.write(&line).is_err()
        {
            self.jsonl = None;
        }
    }

    /// A typed warning, kept for the record.
    /// Notes which targets were removed at the end (`removed[i]` for target `i`) in every job
    /// record.
    pub fn targets_removed(&mut self, removed: &[bool]) {
        for (step, targets) in self.steps.iter_mut().zip(&self.step_targets) {
            for (job, &t) in step.jobs.iter_mut().zip(targets) {
                job.target.scratch_removed = removed.get(t).copied().unwrap_or(false);
            }
        }
    }

    pub fn warn(&mut self, warning: RunWarning) {
        if self.warning_lines
            && let Some(jsonl) = &mut self.jsonl
            && jsonl.write(&WarningLine::new(warning.clone())).is_err()
        {
            self.jsonl = None;
        }
        self.typed_warnings.push(warning);
    }

    /// Each warning also as a [`WarningLine`] on `--jsonl`, as it comes (a fleet's remote
    /// run).
    #[must_use]
    pub fn with_warning_lines(mut self, on: bool) -> Self {
        self.warning_lines = on;
        self
    }

    /// The step has ended: its record, and its share of the run's totals.
    pub fn end_step(&mut self, outcome: StepOutcome<'_>) {
        let StepOutcome {
            status,
            job,
            engine,
            end,
            cpu,
            device,
            devices,
            mut jobs,
            targets,
            point,
            notes,
            stop_reason,
        } = outcome;
        self.step_targets.push(targets);
        let index = self.next_step();
        self.cpu.usr_ns += cpu.usr_ns;
        self.cpu.sys_ns += cpu.sys_ns;
        self.cpu.ctx += cpu.ctx;
        self.cpu.majf += cpu.majf;
        self.cpu.minf += cpu.minf;
        self.total.add(&end.total);
        self.elapsed_ns += end.elapsed_ns;
        self.stalled_ns += end.stall.stalled_ns;
        let series = std::mem::take(&mut self.series);
        for (i, job) in jobs.iter_mut().enumerate() {
            job.series = self.job_series.take(i);
        }
        self.job_series = JobSeries::new();
        self.steps.push(StepRecord {
            index,
            point: point
                .iter()
                .map(|(option, value)| PointValue::new(option, value))
                .collect(),
            status,
            // The step's engine is its first job's as it ran.
            job: job.record_on(if engine == EngineKind::Psync.as_str() {
                EngineKind::Psync
            } else {
                job.ioengine
            }),
            engine: engine.to_string(),
            elapsed_ns: end.elapsed_ns,
            stalled_ns: end.stall.stalled_ns,
            read: DirectionRecord::from_stats(&end.total.read, end.elapsed_ns)
                .with_histogram(&end.total.read),
            write: DirectionRecord::from_stats(&end.total.write, end.elapsed_ns)
                .with_histogram(&end.total.write),
            sync: SyncRecord::from_stats(&end.total.sync).with_histogram(&end.total.sync),
            trim: DirectionRecord::from_stats(&end.total.trim, end.elapsed_ns)
                .with_histogram(&end.total.trim),
            retries: end.total.retries,
            cpu,
            series_stride: series.stride(),
            series: series.records(index),
            device: device.clone(),
            jobs,
            devices,
            stop_reason: Some(stop_reason),
            notes: notes.to_vec(),
            trust: None,
        });
        if let Some(step) = self.steps.last_mut() {
            let trust = trust::of_step(step, &self.trust.limits, &self.trust.idle);
            step.trust = Some(trust);
        }
        if device.is_some() {
            self.device = device;
        }
        // A sweep's point: one line for it on `--jsonl` as it finishes.
        if let (Some(step), Some(jsonl)) = (self.steps.last(), &mut self.jsonl)
            && !step.point.is_empty()
        {
            let line = PointLine {
                format: POINT_FORMAT,
                format_version: FORMAT_VERSION,
                step: step.index,
                point: &step.point,
                status: step.status,
                elapsed_ns: step.elapsed_ns,
                read: &step.read,
                write: &step.write,
                sync: &step.sync,
                device: step.device.as_ref(),
            };
            if jsonl.write(&line).is_err() {
                self.jsonl = None;
            }
        }
    }

    /// The trust marks of the last step, if one ran.
    #[must_use]
    pub fn last_marks(&self) -> Vec<crate::record::TrustMark> {
        self.steps
            .last()
            .and_then(|s| s.trust.as_ref())
            .map(|t| t.marks.clone())
            .unwrap_or_default()
    }

    /// The status of the last step, if one ran.
    #[must_use]
    pub fn last_status(&self) -> Option<RunStatus> {
        self.steps.last().map(|s| s.status)
    }

    /// The run's record so far: the finished steps and `running`, the step that runs
    /// (its numbers up to now), with the run's totals as if it had ended now. Nothing is
    /// written and nothing kept.
    #[must_use]
    pub fn so_far(&self, running: StepOutcome<'_>, outcome: RunOutcome) -> RunRecord {
        let mut now = Self {
            jsonl: None,
            started_at: self.started_at,
            steps: self.steps.clone(),
            series: self.series.clone(),
            job_series: self.job_series.clone(),
            total: self.total.clone(),
            elapsed_ns: self.elapsed_ns,
            stalled_ns: self.stalled_ns,
            cpu: self.cpu.clone(),
            typed_warnings: self.typed_warnings.clone(),
            warning_lines: false,
            device: self.device.clone(),
            step_targets: self.step_targets.clone(),
            sink: None,
            trust: self.trust.clone(),
        };
        now.end_step(running);
        now.finish(outcome)
    }

    /// The run's record.
    #[must_use]
    pub fn finish(self, outcome: RunOutcome) -> RunRecord {
        let job = self
            .steps
            .first()
            .map_or_else(|| JobRecord::from(&outcome.job), |s| s.job.clone());
        let elapsed_ns = self.elapsed_ns;
        // Verification over every job of every step.
        let mut verify: Option<crate::record::VerifyRecord> = None;
        for job in self.steps.iter().flat_map(|s| &s.jobs) {
            if let Some(v) = &job.verify {
                match verify.as_mut() {
                    Some(all) => all.add(v),
                    None => verify = Some(v.clone()),
                }
            }
        }
        let step_trust: Vec<TrustRecord> =
            self.steps.iter().filter_map(|s| s.trust.clone()).collect();
        RunRecord {
            format: FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            diskdash_version: env!("CARGO_PKG_VERSION").to_string(),
            status: outcome.status,
            error: outcome.error,
            started_at: rfc3339_utc(self.started_at),
            ended_at: rfc3339_utc(SystemTime::now()),
            host: HostRecord::detect(),
            machine: None,
            job,
            engine: outcome.engine,
            target: outcome.target,
            device: self.device,
            latency_definition: LATENCY_DEFINITION.to_string(),
            elapsed_ns,
            stalled_ns: self.stalled_ns,
            read: DirectionRecord::from_stats(&self.total.read, elapsed_ns)
                .with_histogram(&self.total.read),
            write: DirectionRecord::from_stats(&self.total.write, elapsed_ns)
                .with_histogram(&self.total.write),
            sync: SyncRecord::from_stats(&self.total.sync).with_histogram(&self.total.sync),
            trim: DirectionRecord::from_stats(&self.total.trim, elapsed_ns)
                .with_histogram(&self.total.trim),
            retries: self.total.retries,
            cpu: cpu_totals(&self.cpu, elapsed_ns),
            steps: self.steps,
            // The text of each, for readers of the text.
            warnings: self
                .typed_warnings
                .iter()
                .map(ToString::to_string)
                .collect(),
            typed_warnings: self.typed_warnings,
            notes: outcome.notes,
            sweep: None,
            verify,
            mark: None,
            trust: trust::of_run(&step_trust),
            trust_limits: Some(
                self.trust
                    .limits
                    .record(self.trust.idle_window_ns, self.trust.idle),
            ),
        }
    }
}
