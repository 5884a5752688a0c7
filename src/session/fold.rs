//! The pure part of a step: what its events (an interval the aggregator closed, the workers'
//! end and faults, how the controls ended it) make of the session's state: the snapshot's
//! views, series and histories, each job's steady-state and write-cliff tracking, the step's
//! status, stop reason and warnings. No clock and no threads: the executor (`runner.rs`) reads
//! the clock and passes `now` and the elapsed times in, so every rule is unit-tested here.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use super::controls::StepEnding;
use super::snapshot::{
    DirectionView, DiskView, IntervalLatency, JobView, PointRates, RunJobTotals, SERIES_POINTS,
    SeriesPoint, SessionState, Snapshot, StatsView, SteadyView, StepResult, SustainedView,
    add_to_run,
};
use crate::analysis::cliff::Cliff;
use crate::analysis::steady::Tracker;
use crate::bench::engine::errno_name;
use crate::bench::worker::IoFault;
use crate::monitor::iostat::IostatRow;
use crate::plan::Job;
use crate::record::{
    DeviceRecord, ErrorRecord, RunStatus, RunWarning, SteadyStateRecord, StopReason,
    SustainedWriteRecord,
};
use crate::stats::{DirectionStats, WorkerStats};

// The fold's input: what the executor's aggregation (`aggregate`) hands over, owned here
// so that the pure fold names no executor.

/// One closed interval.
pub struct Interval {
    pub index: u64,
    pub duration_ns: u64,
    /// End of the interval, ns since the step's measurement start.
    pub end_offset_ns: u64,
    /// The part of the interval the process did not run (a stall, see [`Stall`]), ns.
    pub stalled_ns: u64,
    /// Every job together.
    pub stats: WorkerStats,
    /// Each job's part, in the step's order; empty when the step runs one job (`stats` is it).
    pub jobs: Vec<WorkerStats>,
    /// For each job, in the step's order (one also when the step runs one job), the part of
    /// the interval it ran in, `(from, to)` in ns since the measurement start: from its start
    /// (its start delay) to its end; `None` when it ran in no part of it. A job still running
    /// runs to the interval's end.
    pub spans: Vec<Option<(u64, u64)>>,
}

/// What one job of the step left.
pub struct JobEnd {
    pub total: WorkerStats,
    /// The job's measured time: from its start (after the ramp and its start delay) to its
    /// last worker's end, pauses and stalls excluded, ns.
    pub elapsed_ns: u64,
    /// The job's worker threads' usage summed (CPU, context switches, page faults).
    pub cpu: crate::stats::Usage,
    /// Its first worker's thread id (fio's `pid=` with `thread`); 0 when none joined.
    pub pid: u32,
    /// What verification found (`--verify`), over the run and its read-back.
    pub verify: crate::bench::verify::VerifyOutcome,
    /// Each worker's own part (fio's job clones), when the job has more than one.
    pub clones: Vec<CloneEnd>,
    /// The depth the job's `latency_target` search ended at (its last worker's).
    pub latency_depth: Option<u32>,
}

/// What one worker of a job of several (fio's job clone) left.
pub struct CloneEnd {
    pub total: WorkerStats,
    /// From the job's start to this worker's end, pauses and stalls excluded, ns.
    pub elapsed_ns: u64,
    /// The worker thread's usage (CPU, context switches, page faults).
    pub cpu: crate::stats::Usage,
    /// The worker's thread id.
    pub pid: u32,
    /// Its verify read-back's reads and their time, ns (after the measured window).
    pub verify_reads: crate::stats::DirectionStats,
    pub verify_ns: u64,
    /// Its bytes and I/Os in each interval of the step.
    pub intervals: Vec<crate::record::CloneIntervalRecord>,
}

/// What the step left when all workers ended.
pub struct StepEnd {
    pub total: WorkerStats,
    /// The last, partial interval (if it holds any time).
    pub last_interval: Option<Interval>,
    /// Faults, each with the index of its job in the step.
    pub faults: Vec<(usize, IoFault)>,
    /// Measured time (ramp, pauses and stalls excluded), ns.
    pub elapsed_ns: u64,
    pub stall: Stall,
    /// Gaps as long as a stall in which the session's thread did not run but the workers
    /// did (see [`super::aggregate::workers_ran_in_gap`]): measured time, reported apart.
    pub starved: Stall,
    /// Each job's totals, in the step's order.
    pub jobs: Vec<JobEnd>,
}

/// Time the process did not run inside the measured window (see [`STALL_MIN_NS`]): left out
/// of the measured time, so rates cover the time the workers could run, and added to the
/// runtime, like a pause. Intervals stay on the wall-clock grid: those a stall covers show
/// no I/O.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stall {
    pub stalled_ns: u64,
    pub stalls: u32,
    pub longest_ns: u64,
}

impl Stall {
    pub(super) fn add(&mut self, stalled_ns: u64) {
        self.stalled_ns += stalled_ns;
        self.stalls += 1;
        self.longest_ns = self.longest_ns.max(stalled_ns);
    }
}

/// The running step's jobs' steady-state trackers and write curves (`None`: no criterion,
/// no writes).
#[derive(Default)]
pub struct Tracking {
    steady: Vec<Option<Tracker>>,
    cliffs: Vec<Option<Cliff>>,
    /// Steady state was attained by every job with a criterion: the step is stopping.
    pub stop: bool,
}

impl Tracking {
    /// Fresh trackers for a step's jobs.
    pub fn for_jobs(jobs: &[Job]) -> Self {
        Self {
            steady: jobs
                .iter()
                .map(|job| {
                    job.spec
                        .steady
                        .map(|ss| Tracker::new(ss, job.spec.interval))
                })
                .collect(),
            cliffs: jobs
                .iter()
                .map(|job| {
                    job.spec
                        .writes_data()
                        .then(|| Cliff::new(job.spec.cliff_pct))
                })
                .collect(),
            stop: false,
        }
    }

    /// Feeds each job's part of `interval` to its steady-state tracker and write curve
    /// (`interval_ns`: the session's interval; a shorter half is a drain, not judged).
    pub fn interval(&mut self, interval: &Interval, interval_ns: u64) {
        let single = [&interval.stats];
        let parts: Vec<&WorkerStats> = if interval.jobs.is_empty() {
            single.to_vec()
        } else {
            interval.jobs.iter().collect()
        };
        for (j, stats) in parts.into_iter().enumerate() {
            // Only the part of the interval the job ran in: none after its end (its empty
            // intervals would read as a fall), its own end for the interval it ended in.
            let Some((end_offset_ns, duration_ns)) = own_part(interval, j) else {
                continue;
            };
            if let Some(Some(tracker)) = self.steady.get_mut(j) {
                let (r, w) = (&stats.read, &stats.write);
                let latency_sum_ns = r.latency.summary().mean_ns * r.ios as f64
                    + w.latency.summary().mean_ns * w.ios as f64;
                // The step ends once every job with a criterion attains it.
                tracker.interval(
                    end_offset_ns,
                    duration_ns,
                    r.ios + w.ios,
                    r.bytes + w.bytes,
                    latency_sum_ns,
                );
            }
            if let Some(Some(cliff)) = self.cliffs.get_mut(j) {
                cliff.point(
                    end_offset_ns,
                    duration_ns,
                    stats.write.bytes,
                    duration_ns >= interval_ns / 2,
                );
            }
        }
    }

    /// Whether every job with a criterion has attained it and none keeps going.
    pub fn attained(&self) -> bool {
        let mut any = false;
        for tracker in self.steady.iter().flatten() {
            if tracker.spec.keep_going || tracker.attained_at_ns.is_none() {
                return false;
            }
            any = true;
        }
        any
    }

    /// The step's workers ended: the write curves settle.
    pub fn finish(&mut self) {
        for cliff in self.cliffs.iter_mut().flatten() {
            cliff.finish();
        }
    }

    /// Copies the trackers' state into the job views.
    pub fn publish(&self, views: &mut [JobView]) {
        for (j, view) in views.iter_mut().enumerate() {
            view.steady = self
                .steady
                .get(j)
                .and_then(Option::as_ref)
                .map(|t| SteadyView::of(t, self.stop));
            view.sustained = self
                .cliffs
                .get(j)
                .and_then(Option::as_ref)
                .map(SustainedView::of);
        }
    }

    /// Job `j`'s steady state as the record holds it.
    pub fn steady_record(&self, j: usize) -> Option<SteadyStateRecord> {
        self.steady.get(j).and_then(Option::as_ref).map(|tracker| {
            SteadyStateRecord::from_tracker(tracker, self.stop && tracker.attained_at_ns.is_some())
        })
    }

    /// Job `j`'s write curve as the record holds it.
    pub fn sustained_record(&self, j: usize) -> Option<SustainedWriteRecord> {
        self.cliffs
            .get(j)
            .and_then(Option::as_ref)
            .map(SustainedWriteRecord::from)
    }
}

/// Job `job`'s part of `interval`: its end (the interval's, or the job's own when it ended in
/// it) and length, ns; `None` when the job ran in no part of it.
pub fn own_part(interval: &Interval, job: usize) -> Option<(u64, u64)> {
    match interval.spans.get(job) {
        Some(Some((from, to))) => Some((*to, to - from)),
        Some(None) => None,
        // An interval without spans covers every job.
        None => Some((interval.end_offset_ns, interval.duration_ns)),
    }
}

/// Bytes every job of a step moves when all are size-based (each worker `io_size`), else
/// `None`.
pub fn size_goal(jobs: &[Job]) -> Option<(u64, u64)> {
    let mut goal = 0u64;
    for job in jobs {
        let per_worker = job.spec.io_size_bytes?;
        let per_worker = per_worker - per_worker % job.spec.block_size_bytes.max(1);
        goal = goal.saturating_add(per_worker.saturating_mul(u64::from(job.spec.numjobs)));
    }
    Some((0, goal))
}

/// The step's time goal, ns: the time-based jobs' start delay and runtime (a size-based job's
/// runtime is only a cap), or `cap_ns` when every job is size-based.
pub fn time_goal_ns(jobs: &[Job], cap_ns: u64) -> u64 {
    jobs.iter()
        .filter(|j| j.spec.io_size_bytes.is_none())
        .map(|j| {
            crate::record::nanos(j.spec.startdelay)
                .saturating_add(crate::record::nanos(j.spec.runtime))
        })
        .max()
        .unwrap_or(cap_ns)
}

/// Measured time at `now_ns`, ns: from `record_from_ns` (the ramp's end), less the pauses
/// (`paused_ns` ended, and the one running since `paused_since_ns`) and the stalls.
pub fn measured_ns(
    now_ns: u64,
    record_from_ns: u64,
    paused_ns: u64,
    paused_since_ns: Option<u64>,
    stalled_ns: u64,
) -> u64 {
    let paused_now = paused_since_ns.map_or(0, |since| now_ns.saturating_sub(since));
    now_ns.saturating_sub(record_from_ns).saturating_sub(
        paused_ns
            .saturating_add(paused_now)
            .saturating_add(stalled_ns),
    )
}

/// A size-based step's progress (`(done, goal)`) with the bytes `total` moved; `None` (a
/// step that runs for a time) stays `None`.
#[must_use]
pub fn moved(progress: Option<(u64, u64)>, total: &WorkerStats) -> Option<(u64, u64)> {
    progress.map(|(_, goal)| ((total.read.bytes + total.write.bytes).min(goal), goal))
}

/// New intervals closed: the step's and each job's totals so far over `span` of measured
/// time, the size goal's progress and the run's totals (`run_base`: the finished steps').
pub fn totals<'a>(
    snap: &mut Snapshot,
    total: &WorkerStats,
    job_totals: impl Iterator<Item = &'a WorkerStats>,
    span: Duration,
    run_base: &[RunJobTotals],
) {
    snap.step.cumulative = StatsView::from_stats(total, span);
    for (view, job_total) in snap.jobs.iter_mut().zip(job_totals) {
        view.cumulative = StatsView::from_stats(job_total, span);
    }
    snap.plan.bytes = moved(snap.plan.bytes, total);
    let mut run = run_base.to_vec();
    add_to_run(&mut run, &snap.jobs);
    snap.run = Arc::new(run);
}

/// The clock's part of the snapshot at `now_ns`: measured time (`elapsed_ns`, which leaves
/// pauses and stalls out), time left to `time_goal_ns`, the ramp left before
/// `record_from_ns`, and the state.
pub fn clock(
    snap: &mut Snapshot,
    now_ns: u64,
    elapsed_ns: u64,
    record_from_ns: u64,
    time_goal_ns: u64,
    paused: bool,
) {
    snap.step.elapsed = Duration::from_nanos(elapsed_ns);
    snap.step.remaining = Duration::from_nanos(time_goal_ns.saturating_sub(elapsed_ns));
    snap.step.ramp_remaining =
        (now_ns < record_from_ns).then(|| Duration::from_nanos(record_from_ns - now_ns));
    snap.state = if now_ns < record_from_ns {
        SessionState::Ramp
    } else if paused {
        SessionState::Paused
    } else {
        SessionState::Running
    };
}

/// An interval closed: each job's and the step's interval view and series point, each disk's
/// row and, unless paused, its device panel's row and history (`disk_rows`, in the step's
/// disk order), the latency history and the step's series (point `seq`, at `at` on the
/// session's time axis). Returns the first disk's row.
pub fn interval(
    snap: &mut Snapshot,
    step: u32,
    interval: &Interval,
    disk_rows: Vec<Option<IostatRow>>,
    seq: u64,
    at: Duration,
) -> Option<IostatRow> {
    let duration = Duration::from_nanos(interval.duration_ns);
    let view = StatsView::from_stats(&interval.stats, duration);
    // A one-job step's interval carries no per-job part: its job's is the step's.
    let job_views: Vec<StatsView> = if interval.jobs.is_empty() {
        vec![view.clone()]
    } else {
        interval
            .jobs
            .iter()
            .map(|stats| StatsView::from_stats(stats, duration))
            .collect()
    };
    for (job, job_view) in snap.jobs.iter_mut().zip(job_views) {
        let job_point = series_point(seq, step, at, duration, &job_view);
        push_bounded(Arc::make_mut(&mut job.series), job_point);
        job.interval = Some(job_view);
    }
    // While paused the device panel holds the step's last interval, as its title says
    // (`last 1s of seg 1, paused`); the disks table above keeps the disks' live rows.
    let paused = snap.state == SessionState::Paused;
    let mut first_row = None;
    for (i, disk_row) in disk_rows.into_iter().enumerate() {
        if let Some(disk) = snap.disks.get_mut(i) {
            if let Some(row) = disk_row.as_ref().filter(|_| !paused) {
                push_bounded(Arc::make_mut(&mut disk.history), row.clone());
                disk.last = Some(row.clone());
            }
            disk.row.clone_from(&disk_row);
        }
        if i == 0 {
            first_row = disk_row;
        }
    }
    let mut point = series_point(seq, step, at, duration, &view);
    point.stalled = Duration::from_nanos(interval.stalled_ns);
    push_bounded(Arc::make_mut(&mut snap.step.series), point);
    let bounded = |d: &DirectionStats| crate::stats::bounded(d.latency.fine_buckets()).0;
    let latency = Arc::new(IntervalLatency {
        at: point.at,
        read: bounded(&interval.stats.read),
        write: bounded(&interval.stats.write),
        sync: bounded(&interval.stats.sync),
        trim: bounded(&interval.stats.trim),
    });
    push_bounded(Arc::make_mut(&mut snap.step.latency_history), latency);
    snap.step.interval = Some(view);
    first_row
}

/// A step's disks (`disks`) take their device panel's row and history from the step before's
/// (`before`), by name: a disk the steps share keeps its history.
pub fn keep_panels(mut before: Vec<DiskView>, disks: &mut [DiskView]) {
    for disk in disks {
        if let Some(was) = before.iter_mut().find(|b| b.name == disk.name) {
            disk.last = was.last.take();
            disk.history = std::mem::take(&mut was.history);
        }
    }
}

/// Appends to a series of at most `SERIES_POINTS`, dropping the oldest.
fn push_bounded<T>(series: &mut VecDeque<T>, item: T) {
    if series.len() == SERIES_POINTS {
        series.pop_front();
    }
    series.push_back(item);
}

/// One point of a series from an interval's view.
fn series_point(
    seq: u64,
    step: u32,
    at: Duration,
    duration: Duration,
    view: &StatsView,
) -> SeriesPoint {
    SeriesPoint {
        seq,
        step,
        at,
        duration,
        stalled: Duration::ZERO,
        read_iops: view.read.iops,
        read_bw_bytes_per_s: view.read.bw_bytes_per_s,
        read_lat_mean_ns: view.read.latency.mean_ns,
        read_lat_p99_ns: view.read.latency.percentile_ns(99.0),
        write_iops: view.write.iops,
        write_bw_bytes_per_s: view.write.bw_bytes_per_s,
        write_lat_mean_ns: view.write.latency.mean_ns,
        write_lat_p99_ns: view.write.latency.percentile_ns(99.0),
        sync_lat_mean_ns: view.sync.latency.mean_ns,
        read_sched_p99_ns: view
            .read
            .sched
            .as_ref()
            .map_or(0, |l| l.percentile_ns(99.0)),
        write_sched_p99_ns: view
            .write
            .sched
            .as_ref()
            .map_or(0, |l| l.percentile_ns(99.0)),
        trim_iops: view.trim.iops,
        trim_bw_bytes_per_s: view.trim.bw_bytes_per_s,
        trim_lat_mean_ns: view.trim.latency.mean_ns,
        trim_lat_p99_ns: view.trim.latency.percentile_ns(99.0),
    }
}

/// The warning for a step the process stalled in, once per step.
pub fn stall_warning(step: u32, stall: &Stall) -> Option<RunWarning> {
    (stall.stalls > 0).then_some(RunWarning::Stalled {
        step,
        stalls: stall.stalls,
        stalled_ns: stall.stalled_ns,
        longest_ns: stall.longest_ns,
    })
}

/// The warning for a step whose session's thread was starved while its workers ran, once
/// per step.
pub fn starved_warning(step: u32, starved: &Stall) -> Option<RunWarning> {
    (starved.stalls > 0).then_some(RunWarning::Starved {
        step,
        gaps: starved.stalls,
        starved_ns: starved.stalled_ns,
        longest_ns: starved.longest_ns,
    })
}

/// A worker's fault as the record holds it.
pub fn error_record(fault: &IoFault) -> ErrorRecord {
    ErrorRecord {
        message: fault.to_string(),
        operation: Some(fault.operation.to_string()),
        errno: (fault.errno != 0).then_some(fault.errno),
        errno_name: (fault.errno != 0).then(|| errno_name(fault.errno)),
        offset_bytes: fault.offset_bytes,
        worker: (fault.worker != u32::MAX).then_some(fault.worker),
    }
}

/// Each of `jobs` jobs' error: its first fault (a job's later faults are not counted again).
pub fn job_errors(faults: &[(usize, IoFault)], jobs: usize) -> Vec<Option<ErrorRecord>> {
    let mut errors: Vec<Option<ErrorRecord>> = vec![None; jobs];
    for (j, fault) in faults {
        if let Some(slot @ None) = errors.get_mut(*j) {
            *slot = Some(error_record(fault));
        }
    }
    errors
}

/// How the step ended: a fault ends it as failed whatever the controls said; a fault the
/// workers reported without leaving one (`decided` Fault, none in `faulted`) does not;
/// otherwise as the controls decided, or at its runtime.
pub fn settle_ending(decided: Option<StepEnding>, faulted: bool) -> StepEnding {
    if faulted {
        return StepEnding::Fault;
    }
    match decided {
        None | Some(StepEnding::Fault) => StepEnding::Runtime,
        Some(ending) => ending,
    }
}

/// Why the step stopped, as the record says it.
pub fn stop_reason(ending: &StepEnding, steady_stop: bool, size_based: bool) -> StopReason {
    match ending {
        StepEnding::Runtime if steady_stop => StopReason::SteadyState,
        StepEnding::Runtime if size_based => StopReason::IoSize,
        StepEnding::Runtime => StopReason::Runtime,
        StepEnding::Stop => StopReason::Stopped,
        StepEnding::Change(_) => StopReason::Changed,
        StepEnding::Next | StepEnding::Quit | StepEnding::Interrupt => StopReason::Interrupted,
        StepEnding::Fault => StopReason::Failed,
    }
}

/// The step's status: a fault fails it, an interrupt, a quit or a skip to the next step cut it
/// short; a stop or a change completes it with what it ran.
pub fn step_status(ending: &StepEnding) -> RunStatus {
    match ending {
        StepEnding::Fault => RunStatus::Failed,
        StepEnding::Interrupt | StepEnding::Quit | StepEnding::Next => RunStatus::Interrupted,
        _ => RunStatus::Completed,
    }
}

/// A job's status in the record: a job stopped by another job's failure did not fail, it was
/// cut short.
pub fn job_status(error: bool, step: RunStatus) -> RunStatus {
    match (error, step) {
        (true, _) => RunStatus::Failed,
        (false, RunStatus::Failed) => RunStatus::Interrupted,
        (false, status) => status,
    }
}

/// The failed I/Os a job with `continue_on_error` went on past (fio's `total_err`,
/// `first_error`): those of its reads, writes and trims, and the blocks whose check it went
/// on past (class verify, EILSEQ: fio counts them in `total_err`, not in a direction's I/Os,
/// where the read is counted already). The first errno is the I/Os' when one failed, else
/// EILSEQ.
pub fn continued_errors(
    total: &WorkerStats,
    verify: &crate::bench::verify::VerifyOutcome,
) -> crate::record::ContinuedErrorsRecord {
    let first_errno = match (total.first_error, verify.passed) {
        (0, 1..) => libc::EILSEQ,
        (errno, _) => errno,
    };
    crate::record::ContinuedErrorsRecord {
        total: total.errors + verify.passed,
        first_errno,
        read: total.failed[0],
        write: total.failed[1],
        trim: total.failed[2],
    }
}

/// The step's final totals: each over its own measured time.
pub fn end_totals(snap: &mut Snapshot, end: &StepEnd) {
    // A step that ended before its first interval still moved its bytes.
    snap.plan.bytes = moved(snap.plan.bytes, &end.total);
    snap.step.cumulative = StatsView::from_stats(&end.total, Duration::from_nanos(end.elapsed_ns));
    for (view, job_end) in snap.jobs.iter_mut().zip(&end.jobs) {
        view.cumulative =
            StatsView::from_stats(&job_end.total, Duration::from_nanos(job_end.elapsed_ns));
    }
    snap.step.elapsed = Duration::from_nanos(end.elapsed_ns);
}

/// The paced jobs of a completed step that could not keep their pace, each with what it
/// reached (named when the step runs several jobs).
pub fn rate_shortfalls(jobs: &[Job], ends: &[JobEnd], status: RunStatus) -> Vec<RunWarning> {
    let mut shortfalls = Vec::new();
    if status != RunStatus::Completed {
        return shortfalls;
    }
    for (job, job_end) in jobs.iter().zip(ends) {
        let Some(limit) = &job.spec.rate else {
            continue;
        };
        let done = |d: &DirectionStats| (d.ios, d.bytes);
        for mut warning in crate::bench::rate::shortfalls(
            limit,
            job.spec.numjobs,
            job.spec.iodepth,
            [done(&job_end.total.read), done(&job_end.total.write)],
            job_end.elapsed_ns,
        ) {
            if jobs.len() > 1
                && let RunWarning::RateShortfall { job: named, .. } = &mut warning
            {
                *named = Some(job.name.clone());
            }
            shortfalls.push(warning);
        }
    }
    shortfalls
}

/// The finished step's line in the plan's results.
pub fn step_result(
    step: usize,
    record_step: u32,
    status: RunStatus,
    end: &StepEnd,
    device: Option<&DeviceRecord>,
) -> StepResult {
    let rates = |d: &DirectionStats, elapsed_ns: u64| {
        let view = DirectionView::from_stats(d, Duration::from_nanos(elapsed_ns));
        PointRates {
            ios: d.ios,
            iops: view.iops,
            bytes_per_s: view.bw_bytes_per_s,
            mean_ns: view.latency.mean_ns,
            p99_ns: view.latency.percentile_ns(99.0),
        }
    };
    StepResult {
        step,
        record_step,
        status,
        read: rates(&end.total.read, end.elapsed_ns),
        write: rates(&end.total.write, end.elapsed_ns),
        util_pct: device.map(|d| d.iostat.util_pct),
        aqu_sz: device.map(|d| d.iostat.queue_size),
        marks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::spec::{JobSpec, RwMode};

    #[test]
    fn verify_failures_gone_past_count_as_errors_after_the_ios() {
        let mut total = WorkerStats::new(0);
        let verify = crate::bench::verify::VerifyOutcome {
            checked: 10,
            failed: 3,
            passed: 3,
            ..Default::default()
        };
        let only_verify = continued_errors(&total, &verify);
        assert_eq!(
            (only_verify.total, only_verify.first_errno),
            (3, libc::EILSEQ)
        );
        assert_eq!((only_verify.read, only_verify.write), (0, 0));
        total.errors = 2;
        total.failed[0] = 2;
        total.first_error = libc::EIO;
        let both = continued_errors(&total, &verify);
        assert_eq!((both.total, both.first_errno, both.read), (5, libc::EIO, 2));
        let none = continued_errors(&WorkerStats::new(0), &Default::default());
        assert_eq!((none.total, none.first_errno), (0, 0));
    }

    const S: u64 = 1_000_000_000;

    fn job(name: &str, rw: RwMode) -> Job {
        let spec = JobSpec {
            rw,
            ..JobSpec::default()
        };
        Job::bench(name, spec, None)
    }

    /// A running step's snapshot with `jobs` write jobs, built here: the session's tests
    /// use no front end's fixtures.
    fn snapshot(jobs: usize) -> Snapshot {
        let spec = JobSpec {
            rw: RwMode::Write,
            ..JobSpec::default()
        };
        let job_view = |j: usize| JobView {
            name: format!("job{j}"),
            group: 0,
            spec: spec.clone(),
            target: std::path::PathBuf::from(format!("/srv/job{j}")),
            disk: Some("vda".into()),
            interval: None,
            cumulative: StatsView::default(),
            errors: 0,
            series: Arc::new(VecDeque::new()),
            steady: None,
            sustained: None,
            verify: None,
        };
        Snapshot {
            seq: 0,
            ran_to_end: false,
            state: SessionState::Running,
            target: super::super::snapshot::TargetView {
                path: "/srv/job0".into(),
                kind: crate::bench::target::TargetKind::File,
                working_set_bytes: 1 << 30,
                dio_align_bytes: 512,
            },
            engine: crate::record::EngineRecord::default(),
            warnings: Vec::new(),
            notes: Vec::new(),
            device_absent: None,
            filled: false,
            error: None,
            jobs: (0..jobs).map(job_view).collect(),
            plan_points: Arc::new(Vec::new()),
            plan_notes: Arc::new(Vec::new()),
            finished: Arc::new(Vec::new()),
            run: Arc::new(Vec::new()),
            plan: super::super::snapshot::PlanProgress {
                index: 0,
                count: 1,
                bytes: None,
            },
            step: super::super::snapshot::StepView {
                remaining: Duration::from_secs(10),
                ..super::super::snapshot::StepView::default()
            },
            disks: Vec::new(),
        }
    }

    #[test]
    fn the_current_job_and_disk_are_the_first_job_s_and_disk_s_and_a_step_opens_with_a_mark() {
        use super::super::snapshot::StepMark;
        let mut snap = snapshot(2);
        snap.jobs[0].spec.iodepth = 7;
        snap.jobs[1].spec.iodepth = 9;
        assert_eq!(snap.job().iodepth, 7);
        assert_eq!(snap.disk(), None, "no disk known");
        snap.disks = ["vdb", "vda"]
            .map(|name| DiskView::new(name.into(), None))
            .into();
        assert_eq!(snap.disk(), Some("vdb"));
        assert!(!snap.step_opened(), "the plan's first job, waiting");
        Arc::make_mut(&mut snap.step.marks).push(StepMark {
            index: 0,
            job: "2 jobs: job0, job1".into(),
            at: Duration::ZERO,
            engine: "psync".into(),
        });
        assert!(snap.step_opened());
    }

    #[test]
    fn a_disk_the_steps_share_keeps_its_panel_and_a_new_one_starts_empty() {
        let mut snap = snapshot(1);
        snap.disks = vec![DiskView::new("vda".into(), None)];
        for seq in 0..3 {
            let row = IostatRow::idle("vda");
            let at = Duration::from_secs(seq);
            super::interval(
                &mut snap,
                0,
                &interval(S, vec![], vec![]),
                vec![Some(row)],
                seq,
                at,
            );
        }
        assert_eq!(snap.disks[0].history.len(), 3);
        assert!(snap.disks[0].last.is_some());
        // Paused: the panel holds the last interval, the disks table's row goes on.
        snap.state = SessionState::Paused;
        let mut busy = IostatRow::idle("vda");
        busy.util_pct = 50.0;
        super::interval(
            &mut snap,
            0,
            &interval(S, vec![], vec![]),
            vec![Some(busy)],
            3,
            Duration::from_secs(4),
        );
        assert_eq!(snap.disks[0].history.len(), 3);
        assert_eq!(snap.disks[0].last.as_ref().map(|r| r.util_pct), Some(0.0));
        assert_eq!(snap.disks[0].row.as_ref().map(|r| r.util_pct), Some(50.0));
        // The next step runs on vdb and vda: vda keeps its history, vdb starts with none.
        let before = std::mem::take(&mut snap.disks);
        let mut disks = vec![
            DiskView::new("vdb".into(), None),
            DiskView::new("vda".into(), None),
        ];
        keep_panels(before, &mut disks);
        assert!(disks[0].history.is_empty() && disks[0].last.is_none());
        assert_eq!(disks[1].history.len(), 3);
        assert!(disks[1].last.is_some() && disks[1].row.is_none());
    }

    #[test]
    fn every_disk_of_a_step_keeps_its_panel_and_history() {
        let mut snap = snapshot(2);
        snap.disks = vec![
            DiskView::new("vda".into(), None),
            DiskView::new("vdb".into(), None),
        ];
        let rows = |util: f64| {
            ["vda", "vdb"]
                .map(|name| {
                    let mut row = IostatRow::idle(name);
                    row.util_pct = util;
                    Some(row)
                })
                .to_vec()
        };
        let parts = || vec![writes(4096), writes(8192)];
        for seq in 0..2 {
            let at = Duration::from_secs(seq + 1);
            let first = super::interval(
                &mut snap,
                0,
                &interval(S, parts(), vec![]),
                rows(10.0),
                seq,
                at,
            );
            assert_eq!(first.map(|r| r.device), Some("vda".to_string()));
        }
        snap.state = SessionState::Paused;
        super::interval(
            &mut snap,
            0,
            &interval(S, parts(), vec![]),
            rows(50.0),
            2,
            Duration::from_secs(3),
        );
        for (disk, name) in snap.disks.iter().zip(["vda", "vdb"]) {
            assert_eq!(disk.history.len(), 2, "{name}");
            assert!(
                disk.history
                    .iter()
                    .all(|r| r.device == name && r.util_pct == 10.0)
            );
            assert_eq!(disk.last.as_ref().map(|r| r.util_pct), Some(10.0), "{name}");
            assert_eq!(disk.row.as_ref().map(|r| r.util_pct), Some(50.0), "{name}");
        }
    }

    #[test]
    fn a_one_job_step_s_job_has_its_intervals_as_a_step_of_several_does() {
        let mut snap = snapshot(1);
        for seq in 0..3 {
            let mut one = interval(S, vec![], vec![]);
            one.stats = writes(4096 * (seq + 1));
            one.stalled_ns = 1_000;
            let at = Duration::from_secs(seq + 1);
            super::interval(&mut snap, 0, &one, vec![], seq, at);
        }
        let job = &snap.jobs[0];
        assert_eq!(job.series.len(), 3);
        assert_eq!(job.interval, snap.step.interval);
        for (mine, step) in job.series.iter().zip(snap.step.series.iter()) {
            // The stall is the process's: the step's point has it, the job's does not.
            assert_eq!(step.stalled, Duration::from_nanos(1_000));
            assert_eq!(
                *mine,
                SeriesPoint {
                    stalled: Duration::ZERO,
                    ..*step
                }
            );
        }
        assert_eq!(
            job.series.iter().map(|p| p.write_iops).collect::<Vec<_>>(),
            [1.0, 2.0, 3.0]
        );
    }

    fn writes(bytes: u64) -> WorkerStats {
        let mut stats = WorkerStats::new(0);
        for _ in 0..bytes / 4096 {
            stats.write.record(4096, 100_000);
        }
        stats
    }

    fn interval(
        end_offset_ns: u64,
        jobs: Vec<WorkerStats>,
        spans: Vec<Option<(u64, u64)>>,
    ) -> Interval {
        let mut stats = WorkerStats::new(0);
        for part in &jobs {
            stats.add(part);
        }
        Interval {
            index: 0,
            duration_ns: S,
            end_offset_ns,
            stalled_ns: 0,
            stats,
            jobs,
            spans,
        }
    }

    fn curve_len(tracking: &Tracking, j: usize) -> usize {
        tracking.cliffs[j].as_ref().map_or(0, |c| c.curve().len())
    }

    fn end(ios: u64, elapsed_ns: u64, faults: Vec<(usize, IoFault)>) -> StepEnd {
        let mut total = WorkerStats::new(0);
        for _ in 0..ios {
            total.read.record(4096, 50_000);
        }
        StepEnd {
            total,
            last_interval: None,
            faults,
            elapsed_ns,
            stall: Stall::default(),
            starved: Stall::default(),
            jobs: Vec::new(),
        }
    }

    fn fault(worker: u32, errno: i32) -> IoFault {
        IoFault {
            worker,
            operation: "write",
            offset_bytes: Some(4096),
            errno,
            detail: None,
        }
    }

    #[test]
    fn an_interval_after_a_jobs_end_adds_nothing_for_that_job() {
        let jobs = [job("a", RwMode::Write), job("b", RwMode::Write)];
        let mut tracking = Tracking::for_jobs(&jobs);
        // Both run the first second; b ends half-way through the second; the third is a's.
        tracking.interval(
            &interval(
                S,
                vec![writes(1 << 20), writes(1 << 20)],
                vec![Some((0, S)), Some((0, S))],
            ),
            S,
        );
        tracking.interval(
            &interval(
                2 * S,
                vec![writes(1 << 20), writes(1 << 19)],
                vec![Some((S, 2 * S)), Some((S, S + S / 2))],
            ),
            S,
        );
        tracking.interval(
            &interval(
                3 * S,
                vec![writes(1 << 20), WorkerStats::new(0)],
                vec![Some((2 * S, 3 * S)), None],
            ),
            S,
        );
        assert_eq!(curve_len(&tracking, 0), 3);
        assert_eq!(curve_len(&tracking, 1), 2);
        let b = tracking.cliffs[1].as_ref().unwrap();
        let last = b.curve().last().unwrap();
        assert_eq!((last.end_ns, last.span_ns), (S + S / 2, S / 2));
        assert_eq!(b.written_bytes(), (1 << 20) + (1 << 19));
    }

    #[test]
    fn a_read_job_has_no_write_curve_and_no_criterion_attains_nothing() {
        let jobs = [job("r", RwMode::Read)];
        let mut tracking = Tracking::for_jobs(&jobs);
        tracking.interval(&interval(S, vec![], vec![Some((0, S))]), S);
        assert!(tracking.cliffs[0].is_none());
        assert!(!tracking.attained());
        assert!(tracking.steady_record(0).is_none());
    }

    #[test]
    fn a_pause_is_not_counted() {
        // Measuring from 1 s; paused 2 s already, and again since 6 s; a 0.5 s stall.
        assert_eq!(measured_ns(8 * S, S, 2 * S, Some(6 * S), S / 2), 5 * S / 2);
        // Nothing measured during the ramp, nor past what the pauses take.
        assert_eq!(measured_ns(S / 2, S, 0, None, 0), 0);
        assert_eq!(measured_ns(3 * S, S, 0, Some(S), 0), 0);
    }

    #[test]
    fn the_clock_counts_time_left_from_measured_time_and_says_paused() {
        let mut snap = snapshot(4);
        // 9 s after start, 2 s ramp, 4 s measured (3 s paused): 6 s of a 10 s goal left.
        clock(&mut snap, 9 * S, 4 * S, 2 * S, 10 * S, true);
        assert_eq!(snap.state, SessionState::Paused);
        assert_eq!(snap.step.elapsed, Duration::from_secs(4));
        assert_eq!(snap.step.remaining, Duration::from_secs(6));
        assert_eq!(snap.step.ramp_remaining, None);
        clock(&mut snap, S, 0, 2 * S, 10 * S, false);
        assert_eq!(snap.state, SessionState::Ramp);
        assert_eq!(snap.step.ramp_remaining, Some(Duration::from_secs(1)));
        clock(&mut snap, 3 * S, S, 2 * S, 10 * S, false);
        assert_eq!(snap.state, SessionState::Running);
    }

    #[test]
    fn a_stop_mid_step_ends_it_stopped_with_its_partial_totals() {
        let ending = settle_ending(Some(StepEnding::Stop), false);
        assert_eq!(ending, StepEnding::Stop);
        assert_eq!(stop_reason(&ending, false, false), StopReason::Stopped);
        assert_eq!(step_status(&ending), RunStatus::Completed);
        // 300 reads over 1.5 s of measured time, of a 10 s runtime.
        let end = end(300, 3 * S / 2, Vec::new());
        let mut snap = snapshot(4);
        end_totals(&mut snap, &end);
        assert_eq!(snap.step.elapsed, Duration::from_millis(1500));
        assert_eq!(snap.step.cumulative.read.ios, 300);
        assert!((snap.step.cumulative.read.iops - 200.0).abs() < 1e-9);
        let result = step_result(0, 1, step_status(&ending), &end, None);
        assert_eq!(result.read.ios, 300);
        assert!((result.read.iops - 200.0).abs() < 1e-9);
    }

    #[test]
    fn an_interrupt_quit_or_skip_cuts_the_step_short() {
        for decided in [StepEnding::Interrupt, StepEnding::Quit, StepEnding::Next] {
            let ending = settle_ending(Some(decided.clone()), false);
            assert_eq!(ending, decided);
            assert_eq!(step_status(&ending), RunStatus::Interrupted);
            assert_eq!(stop_reason(&ending, true, true), StopReason::Interrupted);
        }
    }

    #[test]
    fn a_step_that_runs_out_says_why() {
        let ending = settle_ending(None, false);
        assert_eq!(ending, StepEnding::Runtime);
        assert_eq!(stop_reason(&ending, false, false), StopReason::Runtime);
        assert_eq!(stop_reason(&ending, false, true), StopReason::IoSize);
        assert_eq!(stop_reason(&ending, true, true), StopReason::SteadyState);
        assert_eq!(step_status(&ending), RunStatus::Completed);
    }

    #[test]
    fn a_fault_fails_the_step_whatever_the_controls_said() {
        let ending = settle_ending(Some(StepEnding::Stop), true);
        assert_eq!(ending, StepEnding::Fault);
        assert_eq!(step_status(&ending), RunStatus::Failed);
        assert_eq!(stop_reason(&ending, false, false), StopReason::Failed);
        // The workers stopped for a fault that none of them left: the step ran to its end.
        assert_eq!(
            settle_ending(Some(StepEnding::Fault), false),
            StepEnding::Runtime
        );
        // A job another job's fault stopped was cut short; its own fault fails it.
        assert_eq!(job_status(false, RunStatus::Failed), RunStatus::Interrupted);
        assert_eq!(job_status(true, RunStatus::Completed), RunStatus::Failed);
        assert_eq!(
            job_status(false, RunStatus::Completed),
            RunStatus::Completed
        );
    }

    #[test]
    fn a_jobs_faults_are_counted_once_its_first_kept() {
        let faults = vec![
            (0, fault(0, libc::EIO)),
            (0, fault(1, libc::ENOSPC)),
            (2, fault(u32::MAX, 0)),
        ];
        let errors = job_errors(&faults, 3);
        assert_eq!(errors.len(), 3);
        let first = errors[0].as_ref().unwrap();
        assert_eq!(first.errno, Some(libc::EIO));
        assert_eq!(first.worker, Some(0));
        assert!(errors[1].is_none());
        let third = errors[2].as_ref().unwrap();
        assert_eq!((third.errno, third.worker), (None, None));
    }

    #[test]
    fn a_stall_warns_once_with_its_totals_and_no_stall_not_at_all() {
        assert_eq!(stall_warning(3, &Stall::default()), None);
        let stall = Stall {
            stalled_ns: 900_000_000,
            stalls: 3,
            longest_ns: 500_000_000,
        };
        assert_eq!(
            stall_warning(3, &stall),
            Some(RunWarning::Stalled {
                step: 3,
                stalls: 3,
                stalled_ns: 900_000_000,
                longest_ns: 500_000_000,
            })
        );
    }

    #[test]
    fn a_starved_session_warns_once_with_its_totals_and_not_as_a_stall() {
        assert_eq!(starved_warning(0, &Stall::default()), None);
        let starved = Stall {
            stalled_ns: 1_700_000_000,
            stalls: 1,
            longest_ns: 1_700_000_000,
        };
        assert_eq!(
            starved_warning(2, &starved),
            Some(RunWarning::Starved {
                step: 2,
                gaps: 1,
                starved_ns: 1_700_000_000,
                longest_ns: 1_700_000_000,
            })
        );
    }

    #[test]
    fn the_time_goal_is_the_time_based_jobs_or_the_cap() {
        let mut timed = job("t", RwMode::Read);
        timed.spec.runtime = Duration::from_secs(3);
        timed.spec.startdelay = Duration::from_secs(1);
        let mut sized = job("s", RwMode::Read);
        sized.spec.io_size_bytes = Some(1 << 20);
        sized.spec.runtime = Duration::from_secs(60);
        assert_eq!(time_goal_ns(&[timed.clone(), sized.clone()], 99 * S), 4 * S);
        assert_eq!(time_goal_ns(&[sized], 99 * S), 99 * S);
    }

    #[test]
    fn the_series_keeps_its_last_points_in_order() {
        let mut snap = snapshot(4);
        let jobs = snap.jobs.len();
        for seq in 0..=SERIES_POINTS as u64 {
            let parts = (0..jobs).map(|_| writes(8192)).collect();
            let spans = vec![None; jobs];
            let at = Duration::from_secs(seq);
            super::interval(&mut snap, 1, &interval(S, parts, spans), vec![], seq, at);
        }
        assert_eq!(snap.step.series.len(), SERIES_POINTS);
        assert_eq!(snap.step.series.front().unwrap().seq, 1);
        assert_eq!(snap.step.series.back().unwrap().seq, SERIES_POINTS as u64);
        assert_eq!(snap.step.latency_history.len(), SERIES_POINTS);
        for job in &snap.jobs {
            assert_eq!(job.series.back().unwrap().seq, SERIES_POINTS as u64);
            assert_eq!(job.interval.as_ref().unwrap().write.ios, 2);
        }
        assert_eq!(
            snap.step.interval.as_ref().unwrap().write.ios,
            2 * jobs as u64
        );
    }
}
