//! The view model: plain data, everything the panels show, nothing they compute from the OS.
//!
//! Front-end adapters (a live session snapshot, the monitor sampler, a recorded run) build a
//! [`View`]; the render functions in [`super::ui`] only read it. Keeping this boundary plain
//! makes every panel testable with fixed data (see the insta snapshots in `ui/tests.rs`).

pub(crate) mod from_fleet;
pub(crate) mod from_monitor;
pub mod from_record;
pub(crate) mod from_snapshot;
pub(crate) mod from_trace;
pub(crate) mod steady;
pub(crate) mod sweep;
pub(crate) mod verify;

use std::time::Duration;

pub(crate) use sweep::{SweepMetric, SweepView};

/// Which front end the dashboard serves; decides the panel order and what folds first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `diskdash`: every disk, no benchmark.
    Monitor,
    /// `diskdash bench`: a live session beside its disk.
    Bench,
    /// `diskdash show RUN.json`: a recorded run.
    Show,
    /// `diskdash fleet`: the same run on several hosts over SSH, one row per host.
    Fleet,
}

/// What the run (or the monitor) is doing now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunState {
    Monitoring,
    Preparing,
    /// Warm-up (ramp) before measuring: nothing shown yet is of the running step.
    WarmingUp,
    Running,
    Paused,
    Stopped,
    Finished,
    Interrupted,
    Failed(String),
    Recorded,
}

impl RunState {
    /// Short upper-case word for the header.
    #[must_use]
    pub(crate) fn label(&self) -> &'static str {
        match self {
            Self::Monitoring => "MONITOR",
            Self::Preparing => "PREPARING",
            Self::WarmingUp => "WARM-UP",
            Self::Running => "RUNNING",
            Self::Paused => "PAUSED",
            Self::Stopped => "STOPPED",
            Self::Finished => "FINISHED",
            Self::Interrupted => "INTERRUPTED",
            Self::Failed(_) => "FAILED",
            Self::Recorded => "RECORDED",
        }
    }
}

/// The whole screen.
#[derive(Debug, Clone)]
pub struct View {
    pub mode: Mode,
    pub header: Header,
    pub throughput: Option<ThroughputView>,
    pub latency: Option<LatencyView>,
    pub device: Option<DeviceView>,
    pub queue: Option<QueueView>,
    pub disks: Option<DiskTableView>,
    /// The running step's jobs, when it runs several at once.
    pub jobs: Option<JobsView>,
    /// The sweep's points and results, when the plan is a sweep.
    pub sweep: Option<SweepView>,
    /// The shown job's steady-state criterion, when it has one.
    pub steady: Option<steady::SteadyLine>,
    /// The shown job's write bandwidth against bytes written, when it writes.
    pub sustained: Option<steady::SustainedChart>,
    /// The shown job's verification, when it verifies.
    pub verify: Option<verify::VerifyLine>,
    /// The monitor's `--trace`: the processes doing I/O on the selected disk.
    pub top: Option<TopView>,
    /// The bench dashboard's `--trace`: the app's mean taken apart and the block layer's
    /// percentiles beside the app's.
    pub trace: Option<TraceView>,
    pub ui: UiState,
}

/// `--trace` under a benchmark: one disk over one window (the last interval), the app's mean
/// taken apart as the summary's `mean:` line does, and the percentiles of the app, the
/// device (issue -> complete) and the whole request side by side.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceView {
    pub disk: String,
    /// The span the numbers cover.
    pub window: Duration,
    /// `mean: app X`, `= device Y`, `+ scheduler Z`, ... (empty: nothing to take apart).
    pub mean_parts: Vec<String>,
    /// `app`, `device`, `whole`, each with its percentiles (`None`: no I/O in the window).
    pub rows: Vec<(&'static str, Option<Percentiles>)>,
    /// What else to know about the window (nothing traced, events lost).
    pub note: Option<String>,
}

/// The processes doing I/O on one disk over one window, busiest first (`--trace`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TopView {
    pub disk: String,
    /// The window the rates are of.
    pub window: Duration,
    pub rows: Vec<TopRow>,
    /// Why there are no rows (the disk is not traced, nothing was traced yet).
    pub missing: Option<String>,
}

/// A process's I/O on a disk: requests it started, per second of the window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TopRow {
    /// The process (tgid).
    pub pid: i32,
    pub comm: String,
    /// A kernel thread (writeback's flush workers, kblockd).
    pub kernel: bool,
    pub iops: f64,
    pub bytes_per_s: f64,
    /// Its requests' mean device time (issue -> complete), ns.
    pub device_ns_per_io: f64,
    /// Its share of the disk's summed device time over the window, percent.
    pub device_share_pct: f64,
}

/// Top two lines: where we are and what runs.
#[derive(Debug, Clone, Default)]
pub struct Header {
    pub host: String,
    pub kernel: String,
    /// The benchmark target (file or device path); `None` in the monitor.
    pub target: Option<String>,
    /// The whole disk behind the target, or the selected disk in the monitor.
    pub disk: Option<String>,
    /// Engine name, e.g. `io_uring`, with a fallback note when it was replaced.
    pub engine: Option<String>,
    /// Job parameters in fio words, e.g. `randread bs=4k iodepth=32 numjobs=1`.
    pub job: Option<String>,
    pub state: Option<RunState>,
    pub elapsed: Duration,
    pub remaining: Option<Duration>,
    /// The record's current step (1-based) and how many there are (`seg i/N`).
    pub record_step: Option<(usize, usize)>,
    /// Current step of the plan (1-based) and how many there are; said instead of the
    /// record's when the plan has several steps or the step several jobs.
    pub step: Option<(usize, usize)>,
    /// How far a size-based step is; it replaces the remaining time, which it does not have.
    pub size_based: Option<SizeProgress>,
    /// Sampling interval of the all-disks table (the monitor's).
    pub interval: Option<Duration>,
    /// The real length of the all-disks table's latest sample: longer than `interval` when the
    /// process or the machine was frozen (the titles then say so); `None` when not known.
    pub window: Option<Duration>,
    /// After the interval: the monitor's `--record` file, or a replay's position.
    pub note: Option<String>,
}

/// A size-based step's progress: bytes moved of bytes to move, and when it ends at the rate so
/// far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SizeProgress {
    pub done_bytes: u64,
    pub total_bytes: u64,
    /// `None` before anything moved.
    pub eta: Option<Duration>,
}

impl SizeProgress {
    /// Whole percent done, 0 to 100.
    #[must_use]
    pub(crate) fn percent(&self) -> u64 {
        if self.total_bytes == 0 {
            return 100;
        }
        let pct =
            u128::from(self.done_bytes.min(self.total_bytes)) * 100 / u128::from(self.total_bytes);
        u64::try_from(pct).unwrap_or(100)
    }
}

/// One row of the jobs table: a job of the running step, or the step's total.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobRow {
    pub name: String,
    /// fio's `rw`, e.g. `randread`; empty for the total.
    pub rw: String,
    /// Block size, e.g. `128k`; empty for the total.
    pub bs: String,
    /// `iodepth`, or `iodepth x numjobs` (`32x4`) when more than one worker; empty for the total.
    pub depth: String,
    /// Reads, writes and trims over the last interval.
    pub iops: f64,
    pub bytes_per_s: f64,
    /// Over the last interval, reads and writes together; `None` without I/O.
    pub p50_ns: Option<u64>,
    pub p99_ns: Option<u64>,
    pub errors: u32,
    /// A fleet's host (or the fleet's total) instead of a job.
    pub host: Option<HostCells>,
}

/// What a fleet's hosts table shows beside the rates.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostCells {
    /// `running`, `failed`, ...; the fleet row: how many hosts its interval has.
    pub state: String,
    /// The rates are of the table's interval (else they show as `-`).
    pub measured: bool,
    /// The device's %util over the interval (the fleet row: the busiest host's).
    pub util_pct: Option<f64>,
    /// Why the host failed or was left out.
    pub error: Option<String>,
}

/// The jobs of the running step, one row each, and their total.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobsView {
    pub rows: Vec<JobRow>,
    pub total: JobRow,
    /// The job whose series and latency the charts show; `None`: the step total.
    pub selected: Option<usize>,
    /// What the rates cover, for the title: the last interval (live) or the whole step (a
    /// record).
    pub span: JobsSpan,
}

/// The time a jobs table's rates cover.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum JobsSpan {
    #[default]
    LastInterval,
    /// Each job over its own measured time in the last step of a record, or of a finished
    /// run of several steps.
    WholeStep,
    /// A finished run of one step: each job over its own measured time, as the report says.
    WholeRun,
    /// A fleet's hosts, each over the same interval (1-based, 0: none yet) of step `step`
    /// (1-based, 0: the run has one step).
    Hosts { interval: u64, step: u32 },
}

/// One point of the rate time series.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RatePoint {
    /// Seconds since the start of the run (or of the monitor).
    pub t_s: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_bytes_per_s: f64,
    pub write_bytes_per_s: f64,
    /// Trims (discards) of the run, or the device's discards in the monitor.
    pub trim_iops: f64,
    pub trim_bytes_per_s: f64,
    /// A recorded point that merges several intervals (a long run's series past its cap):
    /// the lowest and the highest of their rates, so the chart still shows a dip.
    pub range: Option<[RateLevels; 2]>,
    /// Seconds of the point's span the process did not run (a stall): the chart marks it.
    pub stalled_s: f64,
}

/// The rates of one interval, as the range of a merged [`RatePoint`] holds them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RateLevels {
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_bytes_per_s: f64,
    pub write_bytes_per_s: f64,
    pub trim_iops: f64,
    pub trim_bytes_per_s: f64,
}

impl RatePoint {
    /// This point's time with `levels` for its rates (one end of its range).
    #[must_use]
    pub fn at(&self, levels: &RateLevels) -> Self {
        Self {
            t_s: self.t_s,
            read_iops: levels.read_iops,
            write_iops: levels.write_iops,
            read_bytes_per_s: levels.read_bytes_per_s,
            write_bytes_per_s: levels.write_bytes_per_s,
            trim_iops: levels.trim_iops,
            trim_bytes_per_s: levels.trim_bytes_per_s,
            range: None,
            stalled_s: 0.0,
        }
    }

    /// Whether the point has any trim: the charts draw a trim series only then.
    #[must_use]
    pub(crate) fn trims(&self) -> bool {
        self.trim_iops > 0.0 || self.trim_bytes_per_s > 0.0
    }
}

/// Where a step starts on the time axis.
#[derive(Debug, Clone, PartialEq)]
pub struct StepMark {
    pub t_s: f64,
    pub label: String,
}

/// Throughput and IOPS over time.
#[derive(Debug, Clone, Default)]
pub struct ThroughputView {
    /// What the rates are of: `app` (the benchmark) or a disk name.
    pub source: String,
    pub points: Vec<RatePoint>,
    pub steps: Vec<StepMark>,
    /// The rates the panel's title shows when they are not the last point's: a recorded run
    /// shows its totals over its measured time, as the summary does.
    pub headline: Option<RatePoint>,
    /// A paced job's asked rate for the whole job, e.g. `paced 2.0k IOPS`.
    pub pace: Option<String>,
}

/// Direction of I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    #[default]
    Read,
    Write,
    Sync,
    Trim,
}

impl Direction {
    #[must_use]
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Sync => "sync",
            Self::Trim => "trim",
        }
    }
}

/// Latency percentiles in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Percentiles {
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
}

impl Percentiles {
    /// Rows in display order: label and value.
    #[must_use]
    pub fn rows(&self) -> [(&'static str, u64); 5] {
        [
            ("p50", self.p50_ns),
            ("p90", self.p90_ns),
            ("p99", self.p99_ns),
            ("p99.9", self.p999_ns),
            ("max", self.max_ns),
        ]
    }
}

/// Percentiles of one direction over the two spans of [`LatencyColumns`] (`None`: no I/O).
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyRow {
    pub dir: Direction,
    pub interval: Option<Percentiles>,
    pub total: Option<Percentiles>,
    /// Latency from each I/O's scheduled time (a paced direction's second row), not from its
    /// submit.
    pub from_schedule: bool,
}

/// One bucket of the latency histogram (the record's fine rule, or a format 2 record's powers
/// of two): I/Os that took at most `upper_ns`. Sparse: only buckets with I/Os.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LatencyBucket {
    pub upper_ns: u64,
    pub interval: u64,
    pub total: u64,
}

impl LatencyBucket {
    /// Buckets from counts by upper bound: (the interval's or last step's, the total's).
    #[must_use]
    pub(crate) fn from_counts(counts: std::collections::BTreeMap<u64, (u64, u64)>) -> Vec<Self> {
        counts
            .into_iter()
            .map(|(upper_ns, (interval, total))| Self {
                upper_ns,
                interval,
                total,
            })
            .collect()
    }
}

/// The latency panel.
#[derive(Debug, Clone, Default)]
pub struct LatencyView {
    pub rows: Vec<LatencyRow>,
    /// Ascending by `upper_ns`; all directions summed.
    pub buckets: Vec<LatencyBucket>,
    /// What the two columns cover.
    pub columns: LatencyColumns,
    /// Latency over time for one direction, when the data has per-interval histograms.
    pub heatmap: Option<HeatmapView>,
    /// Whose latency it is (a job's name, `step total`), when the step runs several jobs.
    pub of: Option<String>,
    /// What is measured, for the title, when it is not the app's submit to completion (the
    /// monitor's `--trace`: the disk's device time).
    pub what: Option<String>,
}

/// The latency heatmap: one column per interval, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeatmapView {
    pub dir: Direction,
    pub columns: Vec<HeatColumn>,
    /// Why there is no heatmap, when `columns` is empty (e.g. a format 2 record).
    pub missing: Option<String>,
}

/// One interval of the heatmap: sparse `(upper_ns, count)` buckets, ascending.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeatColumn {
    /// End of the interval, seconds since the first step started.
    pub t_s: f64,
    pub buckets: Vec<(u64, u64)>,
}

/// The spans the two latency columns cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LatencyColumns {
    /// Live: the last interval and the current step so far.
    #[default]
    IntervalStep,
    /// Recorded: the last step and the whole run.
    StepRun,
    /// The monitor's `--trace`: the last interval and every interval since the monitor (or
    /// the recording) started.
    IntervalWatched,
}

impl LatencyColumns {
    /// Short labels for the percentile table.
    #[must_use]
    pub fn short(self) -> (&'static str, &'static str) {
        match self {
            Self::IntervalStep => ("last", "seg"),
            Self::StepRun => ("seg", "run"),
            Self::IntervalWatched => ("last", "all"),
        }
    }

    /// Long labels for the histogram.
    #[must_use]
    pub fn long(self) -> (&'static str, &'static str) {
        match self {
            Self::IntervalStep => ("last interval", "this segment"),
            Self::StepRun => ("last segment", "whole run"),
            Self::IntervalWatched => ("last interval", "since the start"),
        }
    }
}

/// The device metrics the panel shows, as `iostat -x` computes them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DeviceRates {
    pub r_s: f64,
    pub w_s: f64,
    pub rmb_s: f64,
    pub wmb_s: f64,
    pub r_await_ms: f64,
    pub w_await_ms: f64,
    pub aqu_sz: f64,
    pub util_pct: f64,
    /// Discards (`d/s`, `dMiB/s`, `d_await` in `iostat -x`).
    pub d_s: f64,
    pub dmb_s: f64,
    pub d_await_ms: f64,
}

/// Completed I/Os the application counted against those the device counted, same window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reconciliation {
    pub app_ios: u64,
    pub device_ios: u64,
    /// The session's reading of the numbers (match, page cache, other activity, ...).
    pub verdict: Option<String>,
}

impl Reconciliation {
    /// Device I/Os per application I/O; `None` when the application did nothing.
    #[must_use]
    pub(crate) fn ratio(&self) -> Option<f64> {
        (self.app_ios > 0).then(|| self.device_ios as f64 / self.app_ios as f64)
    }
}

/// What a warning is about; decides its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningKind {
    /// The application saw far more I/O than the device: the page cache served it.
    PageCache,
    /// io_uring was unavailable; psync ran instead.
    FallbackEngine,
    /// %util is not saturation on devices that serve requests in parallel.
    UtilCaveat,
    /// The device disappeared from /proc/diskstats.
    DeviceGone,
    /// The benchmark or the monitor failed.
    Error,
    /// Anything else worth a line (buffered I/O, size lowered, ...).
    Note,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub kind: WarningKind,
    pub text: String,
}

impl Warning {
    #[must_use]
    pub fn new(kind: WarningKind, text: impl Into<String>) -> Self {
        Self {
            kind,
            text: text.into(),
        }
    }
}

/// The time the device panel's numbers cover, said in its title so that they are not read as
/// the table's (which are always the latest sample).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceWindow {
    /// Not known to the builder: nothing is said.
    #[default]
    Unsaid,
    /// Live: the latest sample, over the last `interval`.
    Now { interval: Duration },
    /// Frozen: the last interval of `step` (1-based), which is paused, stopped or over.
    StepEnd {
        step: usize,
        interval: Duration,
        why: Frozen,
    },
    /// The average over a whole step's measured window (1-based `step`).
    StepAverage { step: usize, elapsed: Duration },
}

/// Why the device panel's numbers no longer move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frozen {
    Paused,
    Stopped,
    Ended,
}

impl Frozen {
    #[must_use]
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Paused => "paused",
            Self::Stopped => "stopped",
            Self::Ended => "ended",
        }
    }
}

/// The device panel: one disk, its rates now and a short history.
#[derive(Debug, Clone, Default)]
pub struct DeviceView {
    pub name: String,
    pub now: DeviceRates,
    /// What `now` covers.
    pub window: DeviceWindow,
    /// Oldest first; the last entry is usually `now`.
    pub history: Vec<DeviceRates>,
    pub reconciliation: Option<Reconciliation>,
    /// What the reconciliation covers, e.g. `seg 1 (30s)`, or `target vda, seg 1 (30s)` when
    /// the panel shows another disk: it is always of the target's disk and a finished step.
    pub reconciliation_of: Option<String>,
    pub warnings: Vec<Warning>,
    /// Why there are no device numbers (e.g. the target is on tmpfs); metrics are not drawn.
    pub absent: Option<String>,
    /// Every disk of the step, one row each, when there are several (else empty): they replace
    /// the metrics and the history.
    pub disks: Vec<DiskRates>,
}

/// One disk of the step and its rates over the last interval (`None`: none yet).
#[derive(Debug, Clone, PartialEq)]
pub struct DiskRates {
    pub name: String,
    pub now: Option<DeviceRates>,
}

/// Queue settings of one disk, already formatted (`scheduler` -> `[mq-deadline] none`).
#[derive(Debug, Clone, Default)]
pub struct QueueView {
    pub disk: String,
    pub settings: Vec<(String, String)>,
}

/// One line of the all-disks table (`iostat -x` columns).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiskRow {
    pub name: String,
    pub r_s: f64,
    pub rkb_s: f64,
    pub r_await: f64,
    pub rareq_sz: f64,
    pub w_s: f64,
    pub wkb_s: f64,
    pub w_await: f64,
    pub wareq_sz: f64,
    /// Discards: shown when a disk in the table discards.
    pub d_s: f64,
    pub dkb_s: f64,
    pub d_await: f64,
    pub aqu_sz: f64,
    pub util: f64,
    /// Gone from /proc/diskstats since the last sample.
    pub vanished: bool,
    /// `--trace`: the device time (issue -> complete) of the row's window, reads, writes and
    /// trims together; `None` when the disk is not traced or completed nothing traced.
    pub device_time: Option<DeviceTimes>,
}

/// Percentiles of a disk's device time (issue -> complete) over one window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeviceTimes {
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
}

/// Column the disks table is sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortKey {
    #[default]
    Name,
    ReadIops,
    WriteIops,
    ReadKbs,
    WriteKbs,
    AquSz,
    Util,
}

impl SortKey {
    /// The next key in the cycle the `o` key walks.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            Self::Name => Self::ReadIops,
            Self::ReadIops => Self::WriteIops,
            Self::WriteIops => Self::ReadKbs,
            Self::ReadKbs => Self::WriteKbs,
            Self::WriteKbs => Self::AquSz,
            Self::AquSz => Self::Util,
            Self::Util => Self::Name,
        }
    }

    /// The column header this key sorts by.
    #[must_use]
    pub(crate) fn column(self) -> &'static str {
        match self {
            Self::Name => "Device",
            Self::ReadIops => "r/s",
            Self::WriteIops => "w/s",
            Self::ReadKbs => "rkB/s",
            Self::WriteKbs => "wkB/s",
            Self::AquSz => "aqu-sz",
            Self::Util => "%util",
        }
    }
}

/// The all-disks table, rows already in display order.
#[derive(Debug, Clone, Default)]
pub struct DiskTableView {
    pub rows: Vec<DiskRow>,
    pub selected: Option<usize>,
    pub sort: SortKey,
    pub descending: bool,
    /// Show the discard columns: a disk of the table has discarded since the dashboard opened.
    pub discards: bool,
    /// Show the device-time percentile columns (`--trace`).
    pub traced: bool,
}

/// Puts `rows` in the order of `key`; ties (and names) sort by name so the order is stable.
pub(crate) fn sort_rows(rows: &mut [DiskRow], key: SortKey, descending: bool) {
    let metric = |r: &DiskRow| match key {
        SortKey::Name => 0.0,
        SortKey::ReadIops => r.r_s,
        SortKey::WriteIops => r.w_s,
        SortKey::ReadKbs => r.rkb_s,
        SortKey::WriteKbs => r.wkb_s,
        SortKey::AquSz => r.aqu_sz,
        SortKey::Util => r.util,
    };
    rows.sort_by(|a, b| {
        let by_metric = metric(a).total_cmp(&metric(b));
        let by_metric = if descending {
            by_metric.reverse()
        } else {
            by_metric
        };
        let by_name = natural_cmp(&a.name, &b.name);
        let by_name = if descending && key == SortKey::Name {
            by_name.reverse()
        } else {
            by_name
        };
        by_metric.then(by_name)
    });
}

/// Compares device names so that `vda2` < `vda10` and `loop2` < `loop10`.
#[must_use]
pub(crate) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn split(s: &str) -> (&str, Option<u64>) {
        let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (head, tail) = s.split_at(s.len() - digits);
        (head, tail.parse().ok())
    }
    let (ha, na) = split(a);
    let (hb, nb) = split(b);
    ha.cmp(hb).then(na.cmp(&nb)).then(a.cmp(b))
}

/// Which panel keyboard focus is on (Tab moves it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    #[default]
    Charts,
    Disks,
}

/// Toggles and transient text that belong to the screen, not to the data.
#[derive(Debug, Clone, Default)]
pub struct UiState {
    pub focus: Focus,
    pub log_scale: bool,
    /// `h`: the latency histogram instead of the heatmap.
    pub histogram: bool,
    /// `v`: what the sweep chart plots.
    pub sweep_metric: SweepMetric,
    /// PgUp/PgDn: rows the sweep's results are scrolled from where they follow the running
    /// point (negative: up); 0 follows it.
    pub sweep_scroll: i32,
    pub help: bool,
    /// False when `NO_COLOR` is set.
    pub color: bool,
    /// A short line for the footer, e.g. what the last key did.
    pub message: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, util: f64) -> DiskRow {
        DiskRow {
            name: name.into(),
            util,
            ..DiskRow::default()
        }
    }

    #[test]
    fn names_sort_naturally_and_metrics_break_ties_by_name() {
        let mut rows = vec![row("vda10", 5.0), row("vda2", 5.0), row("loop0", 90.0)];
        sort_rows(&mut rows, SortKey::Name, false);
        let names: Vec<_> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["loop0", "vda2", "vda10"]);

        sort_rows(&mut rows, SortKey::Util, true);
        let names: Vec<_> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["loop0", "vda2", "vda10"]);

        sort_rows(&mut rows, SortKey::Util, false);
        let names: Vec<_> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["vda2", "vda10", "loop0"]);

        sort_rows(&mut rows, SortKey::Name, true);
        let names: Vec<_> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["vda10", "vda2", "loop0"]);
    }

    #[test]
    fn sort_key_cycle_visits_every_key_and_returns() {
        let mut key = SortKey::Name;
        let mut seen = vec![key];
        loop {
            key = key.next();
            if key == SortKey::Name {
                break;
            }
            seen.push(key);
        }
        assert_eq!(seen.len(), 7);
    }

    #[test]
    fn reconciliation_ratio_is_device_over_app() {
        let r = Reconciliation {
            app_ios: 1000,
            device_ios: 990,
            verdict: None,
        };
        assert!((r.ratio().unwrap() - 0.99).abs() < 1e-9);
        let none = Reconciliation {
            app_ios: 0,
            device_ios: 5,
            verdict: None,
        };
        assert_eq!(none.ratio(), None);
    }
}
