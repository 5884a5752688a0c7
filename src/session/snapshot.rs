//! What front ends see: an immutable [`Snapshot`] behind an `Arc`, replaced (never mutated)
//! by the session. One shape whatever the step runs: the run's facts, the plan, the step as a
//! whole ([`StepView`]), and `jobs[]` and `disks[]`, each job with its own intervals and each
//! disk with its own history. Cheap to clone: the series, histories and marks are shared
//! (`Arc`) between consecutive snapshots, copied when an interval or a step adds to them.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::bench::spec::JobSpec;
use crate::bench::target::TargetKind;
use crate::monitor::iostat::IostatRow;
use crate::monitor::sysfs::QueueSettings;
use crate::record::{EngineRecord, ReconciliationRecord, RunStatus, RunWarning};
use crate::stats::{DirectionStats, LatencyBucket, LatencySummary, WorkerStats, merge_buckets};

/// Points kept in [`StepView::series`] (10 minutes at the default 1 s interval).
pub const SERIES_POINTS: usize = 600;

/// Where the session is.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionState {
    /// Writing the working set before the first read.
    Preparing {
        done_bytes: u64,
        total_bytes: u64,
    },
    /// Warm-up: running, not measured.
    Ramp,
    Running,
    Paused,
    /// Between steps, waiting for `Control::Start` or a parameter change.
    Idle,
    Finished(RunStatus),
}

/// One direction's rates and latency over some span.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DirectionView {
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    pub latency: LatencySummary,
    /// Sparse latency buckets of the fine rule (see `LatencyHistogram::fine_buckets`).
    pub buckets: Vec<LatencyBucket>,
    /// A paced direction: latency from each I/O's scheduled time.
    pub sched: Option<LatencySummary>,
}

impl DirectionView {
    #[must_use]
    pub fn from_stats(stats: &DirectionStats, duration: Duration) -> Self {
        let seconds = duration.as_secs_f64();
        let per_s = |n: u64| {
            if seconds > 0.0 {
                n as f64 / seconds
            } else {
                0.0
            }
        };
        Self {
            ios: stats.ios,
            bytes: stats.bytes,
            iops: per_s(stats.ios),
            bw_bytes_per_s: per_s(stats.bytes),
            latency: stats.latency.summary(),
            buckets: stats.latency.fine_buckets(),
            sched: stats
                .sched
                .as_ref()
                .map(crate::stats::LatencyHistogram::summary),
        }
    }
}

/// Read, write and sync over one span (an interval, or a step so far).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatsView {
    pub duration: Duration,
    pub read: DirectionView,
    pub write: DirectionView,
    /// fsync/fdatasync calls (`bytes` unused).
    pub sync: DirectionView,
    /// Discards.
    pub trim: DirectionView,
}

impl StatsView {
    #[must_use]
    pub fn from_stats(stats: &WorkerStats, duration: Duration) -> Self {
        Self {
            duration,
            read: DirectionView::from_stats(&stats.read, duration),
            write: DirectionView::from_stats(&stats.write, duration),
            sync: DirectionView::from_stats(&stats.sync, duration),
            trim: DirectionView::from_stats(&stats.trim, duration),
        }
    }
}

/// One interval in the bounded time series.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SeriesPoint {
    /// Counts every interval of the session (0, 1, 2, ...).
    pub seq: u64,
    pub step: u32,
    /// End of the interval, measured time since the session's first step started.
    pub at: Duration,
    pub duration: Duration,
    /// The part of the interval the process did not run (a stall).
    pub stalled: Duration,
    pub read_iops: f64,
    pub read_bw_bytes_per_s: f64,
    pub read_lat_mean_ns: f64,
    pub read_lat_p99_ns: u64,
    pub write_iops: f64,
    pub write_bw_bytes_per_s: f64,
    pub write_lat_mean_ns: f64,
    pub write_lat_p99_ns: u64,
    pub sync_lat_mean_ns: f64,
    /// Paced reads' p99 latency from the schedule (0: reads not paced).
    pub read_sched_p99_ns: u64,
    /// Paced writes' p99 latency from the schedule (0: writes not paced).
    pub write_sched_p99_ns: u64,
    pub trim_iops: f64,
    pub trim_bw_bytes_per_s: f64,
    pub trim_lat_mean_ns: f64,
    pub trim_lat_p99_ns: u64,
}

/// One interval's latency histograms for the heatmap: sparse, bounded like the record's
/// (`stats::bounded`), shared between snapshots.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IntervalLatency {
    /// End of the interval, measured time since the session's first step started.
    pub at: Duration,
    pub read: Vec<LatencyBucket>,
    pub write: Vec<LatencyBucket>,
    pub sync: Vec<LatencyBucket>,
    pub trim: Vec<LatencyBucket>,
}

/// Where a step starts in the series.
#[derive(Debug, Clone, PartialEq)]
pub struct StepMark {
    pub index: u32,
    /// `randread bs=4k iodepth=32 ...`
    pub job: String,
    pub at: Duration,
    /// The engine its workers used.
    pub engine: String,
}

/// The target as opened.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetView {
    pub path: PathBuf,
    pub kind: TargetKind,
    pub working_set_bytes: u64,
    pub dio_align_bytes: u32,
}

/// One job of the running step, as the jobs table shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobView {
    /// fio's section name (`bench` for `diskdash bench`).
    pub name: String,
    pub group: u32,
    pub spec: JobSpec,
    /// Its target's path.
    pub target: PathBuf,
    /// The disk its I/O lands on, when known.
    pub disk: Option<String>,
    /// The last complete interval.
    pub interval: Option<StatsView>,
    /// The step so far.
    pub cumulative: StatsView,
    /// Failed I/Os (its failure stops the step).
    pub errors: u32,
    /// This job's intervals of the step, the last [`SERIES_POINTS`] (a one-job step's job
    /// has them too: the step's, without the stalls, which are the process's).
    pub series: Arc<VecDeque<SeriesPoint>>,
    /// Its steady-state criterion as it stands, when it has one.
    pub steady: Option<SteadyView>,
    /// Write bandwidth against bytes written, when it writes.
    pub sustained: Option<SustainedView>,
    /// Its verification so far, when it verifies (`--verify`).
    pub verify: Option<crate::bench::worker::VerifyLive>,
}

/// A job's steady state as it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyView {
    pub spec: crate::stats::steady::SteadyState,
    /// One sample's length, seconds, and the window's length in samples.
    pub sample_s: f64,
    pub window_samples: usize,
    pub phase: crate::analysis::steady::Phase,
    /// The criterion over the last full window.
    pub last: Option<crate::analysis::steady::Evaluation>,
    /// When it was attained, since the measured window opened.
    pub attained_at: Option<Duration>,
    /// Keep-going: samples out of steady state since it was attained, and the last of them.
    pub departures: u64,
    pub last_departure: Option<crate::analysis::steady::Departure>,
    /// Attaining it is ending the step.
    pub stopping: bool,
}

impl SteadyView {
    #[must_use]
    pub fn of(tracker: &crate::analysis::steady::Tracker, stopping: bool) -> Self {
        Self {
            spec: tracker.spec,
            sample_s: tracker.sample_s,
            window_samples: tracker.window_samples,
            phase: tracker.phase,
            last: tracker.last,
            attained_at: tracker.attained_at_ns.map(Duration::from_nanos),
            departures: tracker.departure_count,
            last_departure: tracker.departures.last().copied(),
            stopping,
        }
    }
}

/// Sustained writes: `(GiB written, MiB/s)` per span, and the cliff once found.
#[derive(Debug, Clone, PartialEq)]
pub struct SustainedView {
    pub threshold_pct: f64,
    pub points: Arc<Vec<(f64, f64)>>,
    pub cliff: Option<crate::analysis::cliff::CliffPoint>,
}

impl SustainedView {
    #[must_use]
    pub fn of(cliff: &crate::analysis::cliff::Cliff) -> Self {
        const GIB: f64 = (1u64 << 30) as f64;
        const MIB: f64 = (1u64 << 20) as f64;
        Self {
            threshold_pct: cliff.threshold_pct,
            points: Arc::new(
                cliff
                    .curve()
                    .iter()
                    .map(|p| (p.written_bytes as f64 / GIB, p.bytes_per_s() / MIB))
                    .collect(),
            ),
            cliff: cliff.found,
        }
    }
}

/// Where the plan is: step `index` (0-based) of `count`, and how far the running one is.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PlanProgress {
    pub index: usize,
    pub count: usize,
    /// Bytes moved and to move when every job of the step is size-based; `None` when the step
    /// runs for a time.
    pub bytes: Option<(u64, u64)>,
}

/// One direction of a finished step, over its measured time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PointRates {
    pub ios: u64,
    pub iops: f64,
    pub bytes_per_s: f64,
    pub mean_ns: f64,
    pub p99_ns: u64,
}

/// A finished step (a sweep's point): its totals and its first disk's `iostat -x` over it.
#[derive(Debug, Clone, PartialEq)]
pub struct StepResult {
    /// The plan's step (its point is `Snapshot::plan_points[step]`).
    pub step: usize,
    /// The record's step.
    pub record_step: u32,
    pub status: RunStatus,
    pub read: PointRates,
    pub write: PointRates,
    pub util_pct: Option<f64>,
    pub aqu_sz: Option<f64>,
    /// Its trust marks (`short`, `shared`, `unstable`, `fallback`).
    pub marks: Vec<crate::record::TrustMark>,
}

/// `--trace`: the block layer under the app over the last interval, live: what the tracer saw
/// of the step's first disk, and the app's I/O on it over the same interval.
#[derive(Debug, Clone)]
pub struct TraceLive {
    /// The disk's requests over the interval (the tracer's take since the one before).
    pub trace: crate::trace::BlockTrace,
    /// The span the take covers (the interval, up to the session's poll later).
    pub duration: Duration,
    /// The latency of the jobs on the disk over the interval, reads, writes and trims together.
    pub app: LatencySummary,
    /// Their workers' wait for a CPU over the interval per I/O, ns (`None`: no I/O, or the
    /// workers' `schedstat` could not be read).
    pub cpu_wait_ns_per_io: Option<f64>,
    /// A job on the disk is paced (`rate`, `thinktime`): the CPU wait includes its workers'
    /// wake-ups after a paced sleep and stays out of the mean's sum.
    pub cpu_wait_incl_pacing: bool,
    /// Events the kernel's buffers lost over the interval (the whole tracer's).
    pub lost_events: u64,
}

/// The running (or last) step as a whole: its clock, its jobs together (the jobs table's
/// `step total` row, and what the panels show of a one-job step), and what the charts draw of
/// the session up to it (the series, the latency history, the steps' marks).
#[derive(Debug, Clone, Default)]
pub struct StepView {
    /// The record's index of the step.
    pub index: u32,
    /// Measured time of the step (ramp and pauses excluded).
    pub elapsed: Duration,
    pub remaining: Duration,
    /// Warm-up left before measuring, while the ramp runs.
    pub ramp_remaining: Option<Duration>,
    /// Every job of the step together over the last complete interval.
    pub interval: Option<StatsView>,
    /// Every job of the step together so far.
    pub cumulative: StatsView,
    /// The last [`SERIES_POINTS`] intervals of the session: every job of each step together.
    pub series: Arc<VecDeque<SeriesPoint>>,
    /// The latency histograms of the intervals of `series`.
    pub latency_history: Arc<VecDeque<Arc<IntervalLatency>>>,
    /// Where each step so far starts in `series`.
    pub marks: Arc<Vec<StepMark>>,
    /// App I/Os against device I/Os over the last finished step, when known.
    pub reconciliation: Option<ReconciliationRecord>,
    /// `--trace`: the block layer under the app over the last interval (`None`: not traced,
    /// or no interval of the step closed yet).
    pub trace: Option<Arc<TraceLive>>,
}

/// One disk of the running step: its `iostat -x` row over the last interval, and what a
/// device panel draws of it (the first disk's is the one shown).
#[derive(Debug, Clone, PartialEq)]
pub struct DiskView {
    pub name: String,
    pub row: Option<IostatRow>,
    /// The device panel's row, when known: the last interval's, held while the step is paused
    /// (the panel then shows the step's last interval).
    pub last: Option<IostatRow>,
    /// The last [`SERIES_POINTS`] rows of `last`, across the steps that had this disk.
    pub history: Arc<VecDeque<IostatRow>>,
    /// The disk's queue settings, when known.
    pub queue: Option<QueueSettings>,
}

impl DiskView {
    /// A disk of a step before its first interval (`queue`: its settings, when read).
    #[must_use]
    pub fn new(name: String, queue: Option<QueueSettings>) -> Self {
        Self {
            name,
            row: None,
            last: None,
            history: Arc::default(),
            queue,
        }
    }
}

/// Everything a front end draws, at one moment: the run's facts, the plan, the step, and
/// the step's jobs and disks.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Increases with every published snapshot.
    pub seq: u64,
    pub state: SessionState,
    /// The last step ran to its end (its runtime, size or steady state; the plan's last
    /// step): idle then means done, not stopped.
    pub ran_to_end: bool,
    pub target: TargetView,
    /// Engine in use; `fallback` says why it differs from the one asked for.
    pub engine: EngineRecord,
    pub warnings: Vec<RunWarning>,
    pub notes: Vec<String>,
    /// Why the target has no device statistics (tmpfs, ...), when it has none.
    pub device_absent: Option<String>,
    /// The working set was written with data before the run (a fill finished).
    pub filled: bool,
    /// Set when the run failed.
    pub error: Option<String>,
    pub plan: PlanProgress,
    /// Each step's point (a sweep's swept options and values; empty otherwise), in plan order.
    pub plan_points: Arc<Vec<Vec<(String, String)>>>,
    /// Each step's notes (a sweep point's batching values capped to its depth: what it runs
    /// otherwise than the sweep's options say), in plan order, as `plan_points`.
    pub plan_notes: Arc<Vec<Vec<String>>>,
    /// The steps finished so far, in the order they ran.
    pub finished: Arc<Vec<StepResult>>,
    /// Each job's totals over the whole run (every step so far), as of the last interval
    /// close: counters that only grow, for `--serve`.
    pub run: Arc<Vec<RunJobTotals>>,
    /// The current (or last) step as a whole.
    pub step: StepView,
    /// The jobs of the running (or last) step, never empty: one for `diskdash bench`, and
    /// before the first step opens, the plan's first job. The first one's spec is the
    /// current job (the next step's when idle).
    pub jobs: Vec<JobView>,
    /// Every disk of the running step (before the first step opens, the target's); the
    /// first is [`Snapshot::first_disk`], named by [`Snapshot::disk`].
    pub disks: Vec<DiskView>,
}

impl Snapshot {
    /// The current job: the first job's (the next step's when idle).
    ///
    /// # Panics
    /// When `jobs` is empty, which the session never publishes.
    #[must_use]
    pub fn job(&self) -> &JobSpec {
        &self.jobs[0].spec
    }

    /// The block device the first disk is (e.g. `vda`, `loop3`, `dm-0`), when known.
    #[must_use]
    pub fn disk(&self) -> Option<&str> {
        self.disks.first().map(|d| d.name.as_str())
    }

    /// The first disk: the target's, the one the device and queue panels show.
    #[must_use]
    pub fn first_disk(&self) -> Option<&DiskView> {
        self.disks.first()
    }

    /// A step has opened: the jobs are the running (or last) step's, not the plan's first
    /// job waiting.
    #[must_use]
    pub fn step_opened(&self) -> bool {
        !self.step.marks.is_empty()
    }
}

/// One direction of a job over the whole run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunDirection {
    pub ios: u64,
    pub bytes: u64,
    /// Sum of the latencies: each step's histogram mean times its count, as diskdash's own
    /// mean (hdrhistogram's, within 0.1% of the exact sum).
    pub latency_sum_ns: f64,
    /// Sparse buckets of the fine rule, ascending; their counts add up to the latencies
    /// recorded (one per I/O).
    pub buckets: Vec<LatencyBucket>,
}

impl RunDirection {
    fn add(&mut self, view: &DirectionView) {
        self.ios += view.ios;
        self.bytes += view.bytes;
        let count = view.latency.count as f64;
        self.latency_sum_ns += view.latency.mean_ns * count;
        merge_buckets(&mut self.buckets, &view.buckets);
    }
}

/// A job (by its plan name) over the whole run: the steps it ran in, added up.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunJobTotals {
    pub name: String,
    pub read: RunDirection,
    pub write: RunDirection,
    pub sync: RunDirection,
    /// Discards.
    pub trim: RunDirection,
    /// Failed I/Os.
    pub errors: u64,
}

/// Adds each job's step so far (`cumulative`, `errors`) to its run totals, by name; a job not
/// seen before is appended.
pub fn add_to_run(totals: &mut Vec<RunJobTotals>, jobs: &[JobView]) {
    for job in jobs {
        let at = match totals.iter().position(|t| t.name == job.name) {
            Some(at) => at,
            None => {
                totals.push(RunJobTotals {
                    name: job.name.clone(),
                    ..RunJobTotals::default()
                });
                totals.len() - 1
            }
        };
        let total = &mut totals[at];
        total.read.add(&job.cumulative.read);
        total.write.add(&job.cumulative.write);
        total.sync.add(&job.cumulative.sync);
        total.trim.add(&job.cumulative.trim);
        total.errors += u64::from(job.errors);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, latencies_ns: &[u64], errors: u32) -> JobView {
        let mut stats = WorkerStats::new(0);
        for &ns in latencies_ns {
            stats.read.record(4096, ns);
        }
        JobView {
            name: name.to_owned(),
            group: 0,
            spec: JobSpec::default(),
            target: PathBuf::from("/tmp/x"),
            disk: None,
            interval: None,
            cumulative: StatsView::from_stats(&stats, Duration::from_secs(1)),
            errors,
            series: Arc::default(),
            steady: None,
            sustained: None,
            verify: None,
        }
    }

    #[test]
    fn run_totals_add_steps_by_job_name_and_only_grow() {
        let mut run = Vec::new();
        add_to_run(&mut run, &[job("a", &[1_000, 2_000], 0)]);
        add_to_run(&mut run, &[job("b", &[5_000], 1), job("a", &[1_000], 0)]);
        assert_eq!(run.len(), 2);
        let a = &run[0];
        assert_eq!(
            (a.name.as_str(), a.read.ios, a.read.bytes),
            ("a", 3, 3 * 4096)
        );
        assert_eq!(a.read.buckets.iter().map(|b| b.count).sum::<u64>(), 3);
        assert_eq!(
            a.read.buckets[0],
            LatencyBucket {
                le_ns: 1_003,
                count: 2
            }
        );
        assert!(
            (a.read.latency_sum_ns - 4_000.0).abs() < 4.0,
            "{}",
            a.read.latency_sum_ns
        );
        assert_eq!(
            (run[1].name.as_str(), run[1].read.ios, run[1].errors),
            ("b", 1, 1)
        );
        assert_eq!(a.write, RunDirection::default());
    }
}
