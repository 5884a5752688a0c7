//! Record DTOs. Field names are the contract: fio's where a fio user would look, sizes in
//! bytes and times in nanoseconds unless the name says otherwise.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{IostatRow, QueueSettings};

/// How the run ended (assets/doc/endings.md): `completed` ran its plan to the end,
/// `stopped` was ended early by the user in the dashboard (`q`), `interrupted` by a signal
/// (Ctrl-C, SIGTERM, ...), `failed` by an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Completed,
    /// Ended by the user (`q` in the dashboard) before the plan's end; every step it ran is
    /// recorded as far as it went.
    Stopped,
    Interrupted,
    Failed,
}

impl RunStatus {
    /// The word the record uses.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Stopped => "stopped",
            Self::Interrupted => "interrupted",
            Self::Failed => "failed",
        }
    }
}

/// The whole run (`--json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRecord {
    pub format: String,
    pub format_version: u32,
    pub diskdash_version: String,
    pub status: RunStatus,
    pub error: Option<ErrorRecord>,
    pub started_at: String,
    pub ended_at: String,
    pub host: HostRecord,
    /// The machine: disk, file system, kernel, CPU, memory, version and command line
    /// (absent in records written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<super::MachineRecord>,
    /// The job of the first step (headless runs have exactly one).
    pub job: JobRecord,
    pub engine: EngineRecord,
    pub target: TargetRecord,
    pub device: Option<DeviceRecord>,
    pub latency_definition: String,
    /// Measured time summed over steps (ramp, pauses and stalls excluded), ns.
    pub elapsed_ns: u64,
    /// Time the process did not run inside the measured windows, summed over steps, ns:
    /// not in `elapsed_ns`, nor in the rates (see [`RunWarning::Stalled`]). 0 in records
    /// written before stalls were detected.
    #[serde(default)]
    pub stalled_ns: u64,
    /// Totals over all steps.
    pub read: DirectionRecord,
    pub write: DirectionRecord,
    pub sync: SyncRecord,
    /// Discards (trim, randtrim, trimwrite; format 5); absent when none were issued.
    #[serde(default, skip_serializing_if = "DirectionRecord::is_idle")]
    pub trim: DirectionRecord,
    /// I/Os resubmitted (EINTR/EAGAIN/EBUSY, short transfers).
    pub retries: u64,
    pub cpu: CpuRecord,
    #[serde(rename = "segments")]
    pub steps: Vec<StepRecord>,
    /// Every warning, as text.
    pub warnings: Vec<String>,
    /// The warnings typed, each with its numbers (their text is in `warnings` too, in the same
    /// order): from format 6 on every warning; before, only some. Empty in records written
    /// before there were any.
    #[serde(default)]
    pub typed_warnings: Vec<RunWarning>,
    pub notes: Vec<String>,
    /// A sweep's shape and what its points show (format 4; absent for other runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepRecord>,
    /// Data verification over every job of every step (`--verify`; format 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyRecord>,
    /// How far the run's numbers can be trusted: the union of its steps' marks, the widest
    /// spread (absent in records written before there was one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<TrustRecord>,
    /// The limits the marks were judged by, and the idle disks' rates measured before the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust_limits: Option<TrustLimitsRecord>,
    /// `diskdash mark`'s flags as given, which lay out its window again (`show --text`);
    /// absent for other runs and in records written before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<MarkFlagsRecord>,
}

/// The flags of `diskdash mark` that shape its window, as typed (defaults filled in).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarkFlagsRecord {
    pub profile: String,
    pub like: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<String>,
    pub mode: String,
    pub loops: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pick: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    #[serde(default)]
    pub flush_cache: bool,
    /// `--no-flush-cache` was given.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_flush_cache: bool,
    /// What became of the page cache before each loop: `dropped-each-loop`, `kept`,
    /// `kept-no-flush-cache`, `kept-not-root` (KDiskMark's rules flush it, which takes root).
    /// Absent in records of diskdash before KDiskMark 3.3's defaults (refilled data, no flush
    /// unless asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_cache: Option<String>,
}

/// How far a result (a run, a step, a sweep point) can be trusted, under fixed names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrustRecord {
    /// What the spread rests on: loops, or batch means of intervals when one loop.
    pub samples: u32,
    /// `loops` or `intervals`: what `samples` counts.
    pub spread_over: String,
    /// I/Os the result rests on (every direction).
    pub ios: u64,
    /// Its measured time, ns.
    pub elapsed_ns: u64,
    /// Coefficient of variation of the bandwidth over the samples, percent; absent with fewer
    /// than 2 samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread_pct: Option<f64>,
    /// The result's bytes over the bytes its disks completed in the window beyond the idle
    /// rate measured before the run (1.0: the disk did only this); absent without a disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_share: Option<f64>,
    /// The disks' completed bytes per second measured on the idle disk just before the run
    /// (`trust_limits.idle_window_ns` long); absent without a disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_device_bytes_per_s: Option<f64>,
    /// The result's bytes on its disks (what `device_share` is of); absent without a disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_app_bytes: Option<u64>,
    /// `short`, `shared`, `unstable`, `fallback`: why the result is not to be relied on.
    #[serde(default)]
    pub marks: Vec<TrustMark>,
}

/// Why a result is not to be relied on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrustMark {
    /// Under the shortest time or the fewest I/Os (`--trust-min-time`, `--trust-min-ios`).
    Short,
    /// The disk did more bytes than the run beyond its idle rate (`--trust-shared-pct`):
    /// something else used it.
    Shared,
    /// The spread is over `--trust-spread-pct`.
    Unstable,
    /// Ran another engine than asked (io_uring unavailable: psync).
    Fallback,
}

impl TrustMark {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Short => "short",
            Self::Shared => "shared",
            Self::Unstable => "unstable",
            Self::Fallback => "fallback",
        }
    }
}

impl std::fmt::Display for TrustMark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The limits a run's marks were judged by, and its idle baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrustLimitsRecord {
    /// `short` under this measured time, ns.
    pub min_elapsed_ns: u64,
    /// `short` under this many I/Os.
    pub min_ios: u64,
    /// `shared` when the disk did more than this percent more bytes than the run, beyond idle.
    pub shared_pct: f64,
    /// `unstable` when the spread is over this, percent.
    pub unstable_pct: f64,
    /// How long each disk was watched idle before the run, ns (0: not measured).
    pub idle_window_ns: u64,
    /// Each disk's completed bytes per second over that window.
    #[serde(default)]
    pub idle: Vec<IdleDiskRecord>,
}

/// One disk's rate while the run had not started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleDiskRecord {
    /// Kernel name (`vda`, `nvme0n1`), as the devices' `name`.
    pub name: String,
    pub bytes_per_s: f64,
}

/// What `--verify` found: blocks checked and failed, and the first failures in full.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyRecord {
    /// `crc32c`, `xxhash`, `sha256` or `pattern`.
    pub kind: String,
    /// Blocks read and checked: a write job's read-back after its run, or a `--verify-only`
    /// job's reads.
    pub blocks_checked: u64,
    pub blocks_failed: u64,
    /// A write job's read-back time after its measured window (not in its results), ns.
    pub read_back_ns: u64,
    /// The first failures (at most 16 per job), by offset.
    pub failures: Vec<VerifyFailureRecord>,
}

/// One block that failed its check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyFailureRecord {
    pub offset_bytes: u64,
    pub worker: u32,
    /// `header` (the block's header is wrong or missing) or `data` (its checksum).
    pub part: String,
    pub what: String,
    /// The first differing byte within the block, when it can be told.
    pub at: usize,
    /// Hex excerpts around it.
    pub expected_hex: String,
    pub found_hex: String,
}

impl VerifyRecord {
    /// Adds another job's or step's.
    pub fn add(&mut self, other: &Self) {
        self.blocks_checked += other.blocks_checked;
        self.blocks_failed += other.blocks_failed;
        self.read_back_ns += other.read_back_ns;
        self.failures.extend(other.failures.iter().cloned());
    }
}

/// What `diskdash sweep` adds to its record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRecord {
    /// The swept options, in the points' order (the last varies fastest).
    pub dimensions: Vec<String>,
    /// Runs of each point, and which counts (`best`, `mean`, `median`).
    pub loops: u32,
    pub pick: String,
    /// The peaks, gain stops, knees, best rows, the latency target and the advice, typed: the
    /// sentences under the table are rendered from these (the lines on fallbacks, the page
    /// cache and syncs from the steps). Empty in records written before there was a typed
    /// analysis; their `statements` (the sentences as text, up to format version 6) are not
    /// read.
    #[serde(default)]
    pub analysis: Vec<SweepFinding>,
}

/// A swept value as a finding names it: a whole number where the value is one (`iodepth` 4),
/// else the text as written (`2M`, `randread`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SweptValue {
    Number(u64),
    Text(String),
}

impl SweptValue {
    #[must_use]
    pub fn of(text: &str) -> Self {
        match text.parse::<u64>() {
            Ok(n) if n.to_string() == text => Self::Number(n),
            _ => Self::Text(text.to_string()),
        }
    }
}

impl std::fmt::Display for SweptValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::Text(t) => f.write_str(t),
        }
    }
}

/// What a sweep's points show, as facts: the sentences under the table are rendered from
/// these. `at` is the other dimensions' values where a matrix is read along its last
/// dimension (empty for a one-dimension sweep); `ran` says what ran when it is not what the
/// value says (`ran psync at iodepth 1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SweepFinding {
    /// The highest bandwidth along `dimension`.
    Peak {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        at: Vec<PointValue>,
        dimension: String,
        value: SweptValue,
        direction: String,
        bytes_per_s: f64,
        iops: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ran: Option<String>,
    },
    /// Past `value`, `metric` (`iops` or `bandwidth`) grows < 5% while mean latency grows
    /// `latency_factor` times.
    GainStop {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        at: Vec<PointValue>,
        dimension: String,
        value: SweptValue,
        direction: String,
        metric: String,
        growth_pct: f64,
        latency_factor: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ran: Option<String>,
    },
    /// The last point whose IOPS grew >= 5% while p99 stayed within 2x the lowest point's.
    Knee {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        at: Vec<PointValue>,
        dimension: String,
        value: SweptValue,
        direction: String,
        iops: f64,
        p99_ns: u64,
        p99_limit_ns: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ran: Option<String>,
    },
    /// The row of the highest bandwidth in `direction` over the whole table (0-based `row`),
    /// among points that completed as their values say and did not measure the page cache.
    Best {
        direction: String,
        row: u32,
        point: Vec<PointValue>,
        bytes_per_s: f64,
        iops: f64,
    },
    /// `--latency-target`: each point's latency at `percentile` (its runs' merged histograms)
    /// against `target_ns`. `met`: the deepest point before the first miss that met it;
    /// `first_miss`: the first point that missed. A point with a run cut short or failed
    /// neither meets nor misses.
    LatencyTarget {
        percentile: f64,
        target_ns: u64,
        met: Option<Vec<PointValue>>,
        first_miss: Option<Vec<PointValue>>,
    },
    /// `--advice` for a block-size sweep: the adjacent block sizes within 5% of the write
    /// peak (`write_heavy`) and of the read peak (`read_heavy`), in sweep order; `mixed`: the
    /// runs of adjacent block sizes between the two peaks that keep both directions >= 90% of
    /// their peaks (empty when none does).
    Advice {
        write_heavy: Vec<SweptValue>,
        read_heavy: Vec<SweptValue>,
        mixed: Vec<Vec<SweptValue>>,
        write_peak: SweptValue,
        read_peak: SweptValue,
        /// Block sizes away from the write-heavy range whose write bandwidth ties with the
        /// peak's: neither beats the other by more than both their spreads. Absent when none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        write_ties: Vec<SweptValue>,
        /// The same for reads.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        read_ties: Vec<SweptValue>,
        /// The trust marks of the points the advice rests on: when any, the advice is not
        /// reliable and says what to change. Absent when none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        unreliable: Vec<TrustMark>,
    },
    /// `--advice` asked of a block-size sweep without a block size measured both reading and
    /// writing.
    AdviceUnavailable,
}

/// A warning as a fact: `kind` names it, the other fields are its numbers. `Display` is the
/// text that goes to `warnings`, stderr and the summary; nothing reads the fact back from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunWarning {
    /// The process did not run for a while during a step's measured window (SIGSTOP or
    /// Ctrl-Z, a frozen cgroup, a suspended VM, a machine too loaded to measure): a wake-up of
    /// the session 1 s or more later than it asked for. That time is left out of the measured
    /// time and the rates, and the runtime was extended by it.
    Stalled {
        /// 0-based, as in `segments`.
        #[serde(rename = "segment")]
        step: u32,
        stalls: u32,
        stalled_ns: u64,
        longest_ns: u64,
    },
    /// The session's thread did not run for 1 s or more during a step's measured window
    /// while the workers did (their ticks came in during the gap): more busy threads than
    /// CPUs, not a stopped process. That time is measured, like any other.
    Starved {
        /// 0-based, as in `segments`.
        #[serde(rename = "segment")]
        step: u32,
        gaps: u32,
        starved_ns: u64,
        longest_ns: u64,
    },
    /// The device served under half of the bytes the run moved over the measured window: the
    /// page cache served the rest, and the results measure memory, not the disk.
    PageCache {
        device: String,
        app_bytes: u64,
        device_bytes: u64,
        /// 0-based, as in `segments`; absent where no step is meant (a verdict's text) and
        /// in records written before warnings named it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[serde(rename = "segment")]
        step: Option<u32>,
        /// The sweep's point the step ran (`bs=4M`); absent outside a sweep.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        point: Option<String>,
    },
    /// A job trimmed more of a file than its working set: past the first pass its trims punch
    /// holes that are already holes, which the file system answers without work, so the trim
    /// rate measures that, not the disk.
    TrimsRepeated {
        /// 0-based, as in `segments`.
        #[serde(rename = "segment")]
        step: u32,
        job: String,
        trimmed_bytes: u64,
        working_set_bytes: u64,
    },
    /// The working set is smaller than the bytes in flight (bs x iodepth x numjobs): I/Os in
    /// flight overlap the same blocks.
    SmallWorkingSet {
        working_set_bytes: u64,
        in_flight_bytes: u64,
    },
    /// A read job's existing file has holes in its working set and was not allowed to fill
    /// them: reading holes measures nothing.
    Holes { path: String },
    /// A paced job reached less than its pace.
    RateShortfall {
        /// The job's name when the step ran several.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        job: Option<String>,
        /// `read` or `write`.
        direction: String,
        /// `iops` or `bytes`: what `asked` and `done` count.
        unit: String,
        /// The pace asked of all the job's workers together, per second.
        asked: u64,
        /// What they did over `elapsed_ns`.
        done: u64,
        elapsed_ns: u64,
        /// I/Os in flight per worker.
        iodepth: u32,
    },
    /// A job runs through the page cache (`--buffered`, `direct=0`): its results include it.
    Buffered,
    /// A live change of the job was not applied: several jobs run at once.
    ChangeIgnoredManyJobs,
    /// A live change of the job was not applied: `problem` says why (the changed job's
    /// validation error).
    ChangeIgnored { problem: String },
    /// Writing `--jsonl` failed; the run goes on without it.
    JsonlStopped { error: String },
    /// The scratch file (or a file a job created to be removed) could not be removed.
    NotRemoved {
        path: String,
        /// `true`: a scratch file; `false`: a file a job created.
        scratch: bool,
        error: String,
    },
    /// The engine the jobs asked for could not be set up (io_uring denied by seccomp or
    /// `kernel.io_uring_disabled`, or too little locked memory): they ran on `used`, one I/O
    /// at a time per worker, and every report says what ran.
    EngineFallback {
        /// The engine asked for (`io_uring`).
        requested: String,
        /// The engine that ran (`psync`).
        used: String,
        /// I/Os in flight per worker as it ran (1 on psync).
        iodepth: u32,
        /// Why, as the engine's setup said it (`io_uring unavailable (EPERM: permission
        /// denied); fell back to psync`).
        why: String,
    },
}

impl RunWarning {
    /// Whether the page cache is (or may be) what the numbers measure.
    #[must_use]
    pub fn is_page_cache(&self) -> bool {
        matches!(self, Self::PageCache { .. } | Self::Buffered)
    }
}

impl std::fmt::Display for RunWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::Stalled {
                step,
                stalls,
                stalled_ns,
                longest_ns,
            } => {
                let seconds = |ns: u64| ns as f64 / 1e9;
                write!(
                    f,
                    "stalled: diskdash did not run for {:.2} s in segment {} (stopped, frozen \
                     or starved; {stalls} stall{}, the longest {:.2} s): that time is not \
                     measured, rates cover the time the workers ran; I/Os in flight across a \
                     stall carry it in their latency",
                    seconds(stalled_ns),
                    step + 1,
                    if stalls == 1 { "" } else { "s" },
                    seconds(longest_ns),
                )
            }
            Self::Starved {
                step,
                gaps,
                starved_ns,
                longest_ns,
            } => {
                let seconds = |ns: u64| ns as f64 / 1e9;
                write!(
                    f,
                    "starved: the session's thread did not run for {:.2} s in segment {} while \
                     the workers kept running ({gaps} gap{}, the longest {:.2} s; more busy \
                     threads than CPUs): that time is measured and its I/O counted, but the \
                     intervals of a gap hold its I/O unevenly and the live view lagged",
                    seconds(starved_ns),
                    step + 1,
                    if gaps == 1 { "" } else { "s" },
                    seconds(longest_ns),
                )
            }
            Self::PageCache {
                ref device,
                app_bytes,
                device_bytes,
                ref point,
                ..
            } => write!(
                f,
                "PAGE CACHE: {}the run moved {} but {device} only {}; these results measure \
                 memory, not the disk",
                point
                    .as_deref()
                    .map_or_else(String::new, |p| format!("point {p}: ")),
                crate::units::format_bytes(app_bytes),
                crate::units::format_bytes(device_bytes)
            ),
            Self::TrimsRepeated {
                step,
                ref job,
                trimmed_bytes,
                working_set_bytes,
            } => write!(
                f,
                "trims repeated: {job} trimmed {} of a {} working set in segment {}; past the \
                 first pass they punch holes already punched, which the file system does \
                 without work: the trim rate measures that, not the disk (a block device, or \
                 --io-size at most the working set divided by numjobs, measures one pass)",
                crate::units::format_bytes(trimmed_bytes),
                crate::units::format_bytes(working_set_bytes),
                step + 1
            ),
            Self::SmallWorkingSet {
                working_set_bytes,
                in_flight_bytes,
            } => write!(
                f,
                "the working set ({}) is smaller than bs x iodepth x numjobs ({}): I/Os in \
                 flight overlap the same blocks; raise --size or lower --iodepth or --numjobs",
                crate::units::format_bytes(working_set_bytes),
                crate::units::format_bytes(in_flight_bytes)
            ),
            Self::Holes { ref path } => write!(
                f,
                "{path} has holes in the working set: reading holes measures nothing; pass \
                 --allow-destructive to fill it with data first"
            ),
            Self::RateShortfall {
                ref job,
                ref direction,
                ref unit,
                asked,
                done,
                elapsed_ns,
                iodepth,
            } => {
                if let Some(job) = job {
                    write!(f, "job {job}: ")?;
                }
                let (asked, achieved) = (asked as f64, done as f64 / (elapsed_ns as f64 / 1e9));
                let rate = |value: f64| {
                    if unit == "bytes" {
                        let bytes = value as u64;
                        format!("{}/s", crate::units::format_bytes(bytes))
                    } else {
                        format!("{} IOPS", crate::units::format_rate(value))
                    }
                };
                write!(
                    f,
                    "{direction} rate not delivered: asked {}, achieved {} ({:.1}%); the \
                     device, or {iodepth} I/O(s) in flight per worker, could not keep up \
                     (lat_sched counts the time behind schedule)",
                    rate(asked),
                    rate(achieved),
                    achieved / asked * 100.0
                )
            }
            Self::Buffered => f.write_str(
                "buffered I/O (--buffered, direct=0): results include the page cache, not just \
                 the device",
            ),
            Self::ChangeIgnoredManyJobs => {
                f.write_str("ignored a change: live changes apply to runs of one job at a time")
            }
            Self::ChangeIgnored { ref problem } => write!(f, "ignored a change: {problem}"),
            Self::JsonlStopped { ref error } => write!(f, "stopped writing --jsonl: {error}"),
            Self::NotRemoved {
                ref path,
                scratch,
                ref error,
            } => write!(
                f,
                "could not remove {} {path}: {error}; remove it by hand",
                if scratch {
                    "the scratch file"
                } else {
                    "the created file"
                }
            ),
            Self::EngineFallback {
                ref requested,
                ref used,
                iodepth,
                ref why,
            } => write!(
                f,
                "{why}: the jobs that asked for {requested} ran on {used} at iodepth {iodepth}, \
                 and the results are {used}'s"
            ),
        }
    }
}

/// The failed I/Os a job went on past (fio's `total_err`, `first_error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContinuedErrorsRecord {
    /// How many.
    pub total: u64,
    /// The errno of the first, 0 when none failed.
    pub first_errno: i32,
    /// How many of them were reads, writes, trims (since format 6's later records; fio
    /// counts them in each direction's `total_ios`).
    #[serde(default)]
    pub read: u64,
    #[serde(default)]
    pub write: u64,
    #[serde(default)]
    pub trim: u64,
}

/// Why the run failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorRecord {
    pub message: String,
    /// `read`, `write`, `fsync`, ... when an I/O failed.
    pub operation: Option<String>,
    pub errno: Option<i32>,
    pub errno_name: Option<String>,
    pub offset_bytes: Option<u64>,
    pub worker: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HostRecord {
    pub hostname: String,
    pub kernel: String,
    pub cpus: usize,
    pub memory_bytes: u64,
}

/// The job, fio's option names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    pub description: String,
    /// The job as it ran, where that is not `description`: io_uring fell back to psync, one
    /// I/O at a time (`randread bs=4k iodepth=1 numjobs=1 psync direct`). Absent when it ran
    /// as described; `ioengine` and `iodepth` stay what was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran_description: Option<String>,
    pub rw: String,
    pub rwmixread: u8,
    pub bs: u64,
    /// The working set asked for (`target.working_set_bytes` is what was used).
    pub size: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    pub ioengine: String,
    pub iodepth_batch: u32,
    pub iodepth_batch_complete: u32,
    /// fio's `iodepth_batch_complete_min` (0: poll); absent: 1.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub iodepth_batch_complete_min: u32,
    /// fio's `iodepth_low`; absent: `iodepth` (the queue is kept full).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iodepth_low: Option<u32>,
    pub direct: bool,
    pub fsync: Option<u32>,
    pub fdatasync: Option<u32>,
    pub sync: Option<String>,
    pub cpus: Option<String>,
    pub runtime_ns: u64,
    pub ramp_ns: u64,
    pub interval_ns: u64,
    /// fio's `offset`, bytes (format 4).
    #[serde(default)]
    pub offset: u64,
    /// fio's `offset_increment`, bytes (format 4).
    #[serde(default)]
    pub offset_increment: u64,
    /// A size-based run: bytes each worker moves (format 4); `None`: time-based.
    #[serde(default)]
    pub io_size: Option<u64>,
    /// fio's `startdelay` (format 4).
    #[serde(default)]
    pub startdelay_ns: u64,
    /// The seed given (format 4); `None`: the fixed seed.
    #[serde(default)]
    pub randseed: Option<u64>,
    /// fio's `end_fsync` (format 4).
    #[serde(default)]
    pub end_fsync: bool,
    /// fio's `cpus_allowed_policy`: `split` or `shared` (format 4).
    #[serde(default = "split")]
    pub cpus_allowed_policy: String,
    /// fio's `random_distribution`: `random`, `zipf:1.2`, ... (format 4).
    #[serde(default = "uniform")]
    pub random_distribution: String,
    /// Each worker's pace (fio's `rate_iops`/`rate`, `rate_process`; format 5); absent when
    /// the job ran flat out.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rate: Option<RateRecord>,
    /// Mixed block sizes, fio's `bssplit` spelling (format 5); `bs` is then the largest.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub bssplit: Option<String>,
    /// Steady state, when the job had a criterion (format 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<super::SteadyJobRecord>,
    /// `--cliff`: percent below the running write level that marks the cliff (format 5).
    #[serde(default = "cliff_pct")]
    pub cliff_pct: f64,
    /// fio's `norandommap`: random offsets drawn with replacement. Records from before the
    /// random map drew that way, hence the default.
    #[serde(default = "yes")]
    pub norandommap: bool,
    /// fio's `random_generator` for the random map.
    #[serde(default = "tausworthe")]
    pub random_generator: String,
    /// fio's `invalidate`: a buffered job's page cache dropped at the start and each wrap.
    #[serde(default = "yes")]
    pub invalidate: bool,
    /// fio's `fadvise_hint`: `0`, `1` (by pattern), `sequential`, `random`; older records
    /// gave none.
    #[serde(default = "no_hint")]
    pub fadvise_hint: String,
    /// What written blocks hold: `random` (filled once), `refill` (fio's refill_buffers) or
    /// `zero` (fio's zero_buffers).
    #[serde(default = "random_data")]
    pub data: String,
    /// fio's `iomem`: `malloc`, `mmap`, `shm` (4 KiB pages), `huge`, `shmhuge`, `mmaphuge`;
    /// older records asked for huge pages.
    #[serde(default = "huge")]
    pub iomem: String,
    /// fio's `fallocate`: how a pure write job's new file was laid out (`none`, `native`,
    /// `posix`, `keep`, `truncate`); older records let it grow as written.
    #[serde(default = "no_layout")]
    pub fallocate: String,
    /// fio's `latency_target` search, when the job had a target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_target: Option<LatencyTargetRecord>,
}

/// fio's latency target options, in the units of fio's JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyTargetRecord {
    /// `latency_target`, ns.
    pub target_ns: u64,
    /// `latency_window`, us.
    pub window_us: u64,
    /// `latency_percentile`.
    pub percentile: f64,
    /// `latency_run`: the search went on for the whole run.
    pub run: bool,
}

/// `--cliff`'s default: percent below the running level that counts as down.
pub const DEFAULT_CLIFF_PCT: f64 = 30.0;

fn cliff_pct() -> f64 {
    DEFAULT_CLIFF_PCT
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

fn yes() -> bool {
    true
}

fn tausworthe() -> String {
    "tausworthe".to_string()
}

fn no_layout() -> String {
    "none".to_string()
}

fn no_hint() -> String {
    "0".to_string()
}

fn random_data() -> String {
    "random".to_string()
}

fn huge() -> String {
    "huge".to_string()
}

/// A paced job's caps, per worker (fio's job clone), per second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateRecord {
    /// `iops` (`rate_iops`) or `bytes` (`rate`).
    pub unit: String,
    /// The read cap; `None`: reads are not paced.
    pub read: Option<u64>,
    /// The write cap; `None`: writes are not paced.
    pub write: Option<u64>,
    /// `linear` or `poisson`.
    pub process: String,
}

fn uniform() -> String {
    "random".to_string()
}

fn split() -> String {
    "split".to_string()
}

/// Saturating nanoseconds of a duration.
#[must_use]
pub fn nanos(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineRecord {
    pub requested: String,
    pub used: String,
    /// Why the requested engine was not used (e.g. io_uring denied with EPERM).
    pub fallback: Option<String>,
    pub ring_flags: Vec<String>,
    pub registered_file: bool,
    pub registered_buffers: bool,
    /// READV/WRITEV rather than READ/WRITE (fio's `nonvectored=0`; format 5).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub vectored: bool,
    pub notes: Vec<String>,
}

/// The engine and depth a job ran at where they are not the ones it asked for: io_uring
/// fell back to psync, which runs one I/O at a time per worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RanAs {
    pub ioengine: String,
    pub iodepth: u32,
}

impl RunRecord {
    /// What a job that asked for io_uring ran as when io_uring fell back to psync (the only
    /// engine that falls back: the others run as named or fail); `None` when it did not.
    #[must_use]
    pub fn uring_ran_as(&self) -> Option<RanAs> {
        let engine = &self.engine;
        let fell_back =
            engine.fallback.is_some() || (engine.requested == "io_uring" && engine.used == "psync");
        fell_back.then(|| RanAs {
            ioengine: "psync".to_string(),
            // psync issues one I/O at a time, whatever iodepth says.
            iodepth: 1,
        })
    }

    /// What `job` (one of this record's) ran as where it is not what it asked for.
    #[must_use]
    pub fn ran_as(&self, job: &JobRecord) -> Option<RanAs> {
        (job.ioengine == "io_uring")
            .then(|| self.uring_ran_as())
            .flatten()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetRecord {
    pub path: String,
    /// `scratch`, `file` or `block_device`.
    pub kind: String,
    pub working_set_bytes: u64,
    pub dio_align_bytes: u32,
    /// The working set was written with data before the run.
    pub preconditioned: bool,
    /// The scratch file was removed afterwards.
    pub scratch_removed: bool,
    pub notes: Vec<String>,
}

/// The device behind the target over the measured window.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeviceRecord {
    /// Kernel name of the device I/O lands on (e.g. `vda`, `loop3`, `dm-0`).
    pub name: String,
    /// Its whole disk.
    pub disk: String,
    /// sysfs queue settings (scheduler, nr_requests, ...), sysfs names.
    pub queue: QueueSettings,
    /// `iostat -x` metrics over the measured window (sysstat's JSON keys).
    pub iostat: IostatRow,
    pub reconciliation: ReconciliationRecord,
    /// The block layer's own view of the disk over the window (`--trace`; absent without it
    /// and in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_trace: Option<BlockTraceRecord>,
}

/// What the block tracer saw of one disk over a window (`--trace`; assets/doc/trace.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockTraceRecord {
    /// The whole disk traced.
    pub disk: String,
    /// `request` (the full split), `bio` (the bio's whole time) or `none` (not traced).
    pub scope: String,
    /// Some `whole` times are from the nearest events (insert or issue -> complete): no
    /// `block_io_start` on this kernel, or the queue's iostats off.
    #[serde(default, skip_serializing_if = "is_false")]
    pub whole_nearest: bool,
    /// Whether `wait_request` and `merges` were traced (`--trace=full`); written only when
    /// not (their zeros then mean "not measured"); older records traced them.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub wait_request_traced: bool,
    /// Events the kernel's trace buffers lost (the tracer's, all disks).
    pub lost_events: u64,
    /// Events with more than one request in flight on the same sector (the first was taken).
    pub ambiguous_matches: u64,
    /// Events with no request to belong to, and requests given up on.
    #[serde(default)]
    pub unmatched: u64,
    /// Requests completed (read, write, trim).
    pub requests: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<BlockDirectionRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<BlockDirectionRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<BlockDirectionRecord>,
    /// By process, most I/Os first.
    #[serde(default)]
    pub by_process: Vec<BlockProcessRecord>,
    /// The tracer's own cost over the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracer: Option<TracerCostRecord>,
}

/// One direction of a traced disk: fio's latency shape for each part of a request's time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockDirectionRecord {
    pub requests: u64,
    pub bytes: u64,
    /// Bios merged into a request already there.
    #[serde(default)]
    pub merges: u64,
    /// `block_bio_queue` -> `block_getrq`: waiting for a request (before diskstats' clock).
    pub wait_request: LatencyRecord,
    /// `block_rq_insert` (or `block_io_start`) -> `block_rq_issue`.
    pub scheduler: LatencyRecord,
    /// `block_rq_issue` -> `block_rq_complete`: driver and hardware.
    pub device: LatencyRecord,
    /// `block_io_start` -> `block_io_done` (what `await` averages); a bio-based disk's bio.
    pub whole: LatencyRecord,
    /// Request sizes in bytes, in the same shape.
    pub size: LatencyRecord,
}

/// A process's I/O on a traced disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockProcessRecord {
    /// The process (tgid; its threads, io_uring's `iou-wrk` ones too, count for it).
    pub pid: i32,
    pub comm: String,
    /// A kernel thread (writeback's flush workers).
    #[serde(default, skip_serializing_if = "is_false")]
    pub kernel: bool,
    pub ios: u64,
    pub bytes: u64,
    pub device_time_ns: u64,
}

/// The tracer's own cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TracerCostRecord {
    pub events: u64,
    pub events_per_s: f64,
    /// CPU time of the reader thread, ns.
    pub cpu_ns: u64,
    pub cpu_ns_per_event: f64,
    /// Records that could not be decoded (counted, never used).
    pub malformed: u64,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_true(b: &bool) -> bool {
    *b
}

/// I/Os the run completed against I/Os the device completed (/proc/diskstats).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReconciliationRecord {
    pub app_read_ios: u64,
    pub app_write_ios: u64,
    pub device_read_ios: u64,
    pub device_write_ios: u64,
    pub app_bytes: u64,
    pub device_bytes: u64,
    /// device I/Os / app I/Os (1.0 when every I/O reached the device once).
    pub io_ratio: Option<f64>,
    pub verdict: String,
    /// Trims the run completed (format 5; absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub app_trim_ios: u64,
    /// Discards the device completed over the window (format 5; absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub device_discard_ios: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One direction, fio's names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DirectionRecord {
    pub io_bytes: u64,
    pub io_kbytes: u64,
    pub bw_bytes: u64,
    /// KiB/s, as fio's `bw`.
    pub bw: u64,
    pub iops: f64,
    /// Milliseconds, as fio's `runtime`.
    pub runtime: u64,
    pub total_ios: u64,
    pub lat_ns: LatencyRecord,
    /// fio's `slat_ns` and `clat_ns` where the engine times its submit call (io_uring, libaio,
    /// null): from the clock read before the submit call to the one after it returned, and
    /// from then to the reap; `lat_ns` is their sum. In run totals, steps and clones, not
    /// intervals; absent for a synchronous engine (psync: its clat is `lat_ns`, it has no
    /// slat, as fio's) and in older records.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub slat_ns: Option<LatencyRecord>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub clat_ns: Option<LatencyRecord>,
    /// A paced direction (`rate_iops`, `rate`; format 5): latency from each I/O's scheduled
    /// issue time to its completion, so time spent behind schedule counts (no coordinated
    /// omission). Absent when the direction ran flat out.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub lat_sched_ns: Option<LatencyRecord>,
    /// This direction's own time, ns, where it is not its job's `elapsed_ns` (format 5): a
    /// verifying write job's read is its read-back, after the measured window (fio's
    /// per-direction `runtime`). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub runtime_ns: Option<u64>,
}

impl DirectionRecord {
    /// Nothing was issued in this direction (a record leaves it out, for trims).
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.total_ios == 0
    }
}

/// fio's `lat_ns` object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyRecord {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    #[serde(rename = "N")]
    pub n: u64,
    /// `"99.000000": ns` for fio's default percentile list (absent when no I/O).
    pub percentile: Percentiles,
    /// Fine bucket counts (run totals, steps and, since format 3, each interval).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub histogram: Option<HistogramRecord>,
}

/// One bucket of a sparse latency histogram: `count` I/Os took at most `le_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LatencyBucket {
    /// Upper bound (inclusive) in nanoseconds.
    pub le_ns: u64,
    pub count: u64,
}

/// A latency histogram, sparse: only buckets with I/Os, ascending. `count[i]` I/Os took at
/// most `le_ns[i]` and at least the lower bound of that bucket under the rule named by
/// `sub_bucket_bits` (`stats::fine_bucket_le_ns`: log-linear, `2^sub_bucket_bits` buckets per
/// power of two, each at most 1/128 = 0.78% of its lower bound wide at 7 bits). Steps and run
/// totals are always at 7 bits; an interval is coarsened (fewer bits) when it would hold more
/// than `stats::MAX_INTERVAL_BUCKETS` buckets. Format 2 records had no `sub_bucket_bits`: their
/// buckets were powers of two from 1 us up.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistogramRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_bucket_bits: Option<u32>,
    pub le_ns: Vec<u64>,
    pub count: Vec<u64>,
}

impl HistogramRecord {
    /// Keeps the non-empty buckets.
    #[must_use]
    pub fn from_buckets(buckets: &[LatencyBucket], sub_bucket_bits: u32) -> Self {
        let (le_ns, count) = buckets
            .iter()
            .filter(|b| b.count > 0)
            .map(|b| (b.le_ns, b.count))
            .unzip();
        Self {
            sub_bucket_bits: Some(sub_bucket_bits),
            le_ns,
            count,
        }
    }

    /// The recorded (non-empty) buckets, ascending.
    pub fn buckets(&self) -> impl Iterator<Item = LatencyBucket> + '_ {
        self.le_ns
            .iter()
            .zip(&self.count)
            .map(|(&le_ns, &count)| LatencyBucket { le_ns, count })
    }
}

impl LatencyRecord {
    /// The recorded percentile `pct` (e.g. `99.9`) in ns; `None` when the record has no such
    /// percentile (no I/O, or a percentile fio's list does not hold).
    #[must_use]
    pub fn percentile_ns(&self, pct: f64) -> Option<u64> {
        self.percentile
            .0
            .iter()
            .find(|(p, _)| (p - pct).abs() < 1e-9)
            .map(|&(_, ns)| ns)
    }
}

/// Percentiles kept in fio's order and keyed like fio (`"99.900000"`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Percentiles(pub Vec<(f64, u64)>);

impl Serialize for Percentiles {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (pct, ns) in &self.0 {
            map.serialize_entry(&format!("{pct:.6}"), ns)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Percentiles {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, u64>::deserialize(deserializer)?;
        let mut pairs: Vec<(f64, u64)> = map
            .into_iter()
            .filter_map(|(k, v)| k.parse::<f64>().ok().map(|p| (p, v)))
            .collect();
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        Ok(Self(pairs))
    }
}

/// fio's `sync` object: fsync/fdatasync calls and their latency.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncRecord {
    pub total_ios: u64,
    pub lat_ns: LatencyRecord,
}

/// Process CPU over the measured window (all threads), like fio's `usr_cpu`/`sys_cpu`
/// (percent of one CPU).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuRecord {
    pub usr_cpu: f64,
    pub sys_cpu: f64,
    pub usr_ns: u64,
    pub sys_ns: u64,
    /// Voluntary + involuntary context switches.
    pub ctx: u64,
    /// Major and minor page faults (fio's `majf`, `minf`); absent in records written before
    /// they were counted.
    #[serde(default)]
    pub majf: u64,
    #[serde(default)]
    pub minf: u64,
}

/// fio's I/O depth distributions as counts, in fio's seven slots (its `io_u_map`,
/// `io_u_submit`, `io_u_complete`); fio's JSON gives each as percent of its total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoDepthsRecord {
    /// I/Os by the depth at their submission (in flight, themselves included): 1, 2-3, 4-7,
    /// 8-15, 16-31, 32-63, 64 up.
    pub level: [u64; 7],
    /// Submit calls by I/Os sent: 0, 1-4, 5-8, 9-16, 17-32, 33-64, over 64.
    pub submit: [u64; 7],
    /// Reap calls by completions taken, slots as `submit`.
    pub complete: [u64; 7],
}

impl IoDepthsRecord {
    /// `self` plus `other` (a reporting group's jobs).
    #[must_use]
    pub fn plus(mut self, other: &Self) -> Self {
        for (mine, theirs) in [
            (&mut self.level, &other.level),
            (&mut self.submit, &other.submit),
            (&mut self.complete, &other.complete),
        ] {
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
        self
    }
}

/// One step: a stretch of the run with one job (a headless run is one step).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepRecord {
    pub index: u32,
    /// A sweep's point: the swept options and their values at this step, in the sweep's
    /// order (format 4; absent for other runs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub point: Vec<PointValue>,
    pub status: RunStatus,
    pub job: JobRecord,
    pub engine: String,
    /// Measured time (ramp, pauses and stalls excluded), ns.
    pub elapsed_ns: u64,
    /// Time the process did not run inside this step's measured window, ns.
    #[serde(default)]
    pub stalled_ns: u64,
    pub read: DirectionRecord,
    pub write: DirectionRecord,
    pub sync: SyncRecord,
    /// Discards (trim, randtrim, trimwrite; format 5); absent when none were issued.
    #[serde(default, skip_serializing_if = "DirectionRecord::is_idle")]
    pub trim: DirectionRecord,
    pub retries: u64,
    pub cpu: CpuRecord,
    /// Intervals per series point. Past the series' cap neighbouring points merge and the
    /// stride doubles: each point then merges up to `series_stride` intervals (and says so in
    /// its `merged`). Records whose points have no `merged` kept every `series_stride`-th
    /// interval instead (the JSON Lines file has them all).
    pub series_stride: u32,
    pub series: Vec<IntervalRecord>,
    /// The device over this step's measured window, when known (the first job's disk;
    /// `devices` has every disk of the step).
    pub device: Option<DeviceRecord>,
    /// The jobs that ran at the same time in this step, each with its
    /// own totals. Since format 4; a one-job step has one, equal to the step's totals.
    #[serde(default)]
    pub jobs: Vec<StepJobRecord>,
    /// Every disk any job of the step touched, over the step's measured window, each
    /// reconciled against the jobs on it. Since format 4.
    #[serde(default)]
    pub devices: Vec<DeviceRecord>,
    /// Why the step ended (format 4; absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<super::StopReason>,
    /// What the step ran otherwise than the user's values say, one line each: a sweep's
    /// batching value capped to the point's depth (`iodepth_batch 8 -> 1 at iodepth 1`;
    /// `job` holds the value used). Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// How far this step's numbers can be trusted (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<TrustRecord>,
}

/// One swept option's value at a sweep's point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointValue {
    /// The option, by its `bench` flag name without dashes (`bs`, `iodepth`, `rw`).
    pub option: String,
    /// As written (`2M`, `32`, `randrw:75`).
    pub value: String,
    /// The value as a number: bytes for `bs` (`2M`: 2097152), the count for `iodepth`,
    /// `numjobs`, `fsync`, `fdatasync`, `direct`, the read percentage for a mix
    /// (`randrw:75`: 75); absent for a name (`randread`, `io_uring`) and in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u64>,
}

impl PointValue {
    /// `option` at `value`, with its [number](Self::number).
    #[must_use]
    pub fn new(option: &str, value: &str) -> Self {
        let number = match option {
            "bs" => crate::units::parse_size_bytes(value),
            "rw" => value
                .split_once(':')
                .and_then(|(_, pct)| pct.parse::<u64>().ok()),
            _ => value.parse::<u64>().ok(),
        };
        Self {
            option: option.to_string(),
            value: value.to_string(),
            number,
        }
    }
}

/// One job of a step: what it ran, on what, and what it measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepJobRecord {
    /// What `--verify` found in this job (format 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyRecord>,
    /// fio's section name (`bench` for `diskdash bench`).
    pub name: String,
    /// fio's reporting group.
    pub group: u32,
    pub job: JobRecord,
    pub target: TargetRecord,
    /// The disk the job's I/O lands on (a `devices` entry's name), when known.
    pub device: Option<String>,
    pub status: RunStatus,
    /// Why this job failed, when it did (its failure stops the step).
    pub error: Option<ErrorRecord>,
    /// From the job's start (after the ramp and its start delay) to its last worker's end,
    /// pauses and stalls excluded, ns: the job's rates are over this time.
    pub elapsed_ns: u64,
    pub read: DirectionRecord,
    pub write: DirectionRecord,
    pub sync: SyncRecord,
    /// Discards (trim, randtrim, trimwrite; format 5); absent when none were issued.
    #[serde(default, skip_serializing_if = "DirectionRecord::is_idle")]
    pub trim: DirectionRecord,
    pub retries: u64,
    /// Failed I/Os the job counted and went on past (fio's `continue_on_error`); absent for
    /// a job that stops at its first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continued: Option<ContinuedErrorsRecord>,
    /// CPU time of the job's worker threads (the session's own is in the step's `cpu`).
    pub cpu: CpuRecord,
    /// The thread id of the job's first worker: fio's `pid=` (fio's `thread` jobs print
    /// their tid); absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// fio's I/O depth distributions as the job's workers counted them; absent in older
    /// records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_depths: Option<IoDepthsRecord>,
    /// fio's `steadystate`, when the job had a criterion (format 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<super::SteadyStateRecord>,
    /// Write bandwidth against bytes written and the cliff, when the job wrote (format 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sustained_write: Option<super::SustainedWriteRecord>,
    /// Each worker's own numbers (fio's job clones, reported one by one without
    /// `group_reporting`); absent for a job of one worker.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clones: Vec<CloneRecord>,
    /// The depth fio's `latency_target` search ended at (the last worker's), when the job
    /// had a target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_depth: Option<u32>,
    /// This job's part of each interval of its step, in order: what `compare` draws its
    /// samples from. Past 1,024 intervals neighbours are merged (their counts and times
    /// added), never dropped. Absent in records written before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<JobIntervalRecord>,
    /// `--trace`: the job's workers' wait for a CPU over the window (run-queue delay from
    /// `/proc/self/task/TID/schedstat`) divided by its I/Os, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_wait_ns_per_io: Option<f64>,
    /// `--trace`, a paced job (`rate`, `rate_iops`, `thinktime`): `cpu_wait_ns_per_io`
    /// includes the workers' wake-ups after a paced sleep, with nothing in flight, so it is
    /// not subtracted in `unexplained_ns_per_io`. Absent (false) otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cpu_wait_incl_pacing: bool,
    /// `--trace`: the job's mean latency less its disk's mean device, scheduler and
    /// waiting-for-a-request times and `cpu_wait_ns_per_io` (not a paced job's), ns: the
    /// time above the block layer nothing measured. Absent when the measured parts add up
    /// to more than the mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unexplained_ns_per_io: Option<f64>,
}

/// One job's part of one interval (or of `intervals` neighbouring intervals merged).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct JobIntervalRecord {
    /// End of the (last merged) interval since the start of the measured window, ns.
    pub t_ns: u64,
    /// The merged intervals' summed length, ns.
    pub duration_ns: u64,
    /// How many intervals this entry holds (1 until the series reaches its cap).
    pub intervals: u32,
    pub read: IntervalCounts,
    pub write: IntervalCounts,
    #[serde(default, skip_serializing_if = "IntervalCounts::is_idle")]
    pub trim: IntervalCounts,
}

/// One direction's completions in an interval: enough for its IOPS, bandwidth and mean
/// latency, and exact when intervals are merged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntervalCounts {
    pub ios: u64,
    pub bytes: u64,
    /// The completions' latencies added, ns (mean = `lat_sum_ns / ios`).
    pub lat_sum_ns: u64,
}

impl IntervalCounts {
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.ios == 0 && self.bytes == 0
    }

    /// Of a direction's interval record.
    #[must_use]
    pub fn of(dir: &DirectionRecord) -> Self {
        Self {
            ios: dir.total_ios,
            bytes: dir.io_bytes,
            lat_sum_ns: (dir.lat_ns.mean * dir.lat_ns.n as f64).round() as u64,
        }
    }

    pub fn add(&mut self, other: &Self) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.lat_sum_ns += other.lat_sum_ns;
    }
}

impl JobIntervalRecord {
    /// `next` (the interval after this one) merged in.
    pub fn merge(&mut self, next: &Self) {
        self.t_ns = next.t_ns;
        self.duration_ns += next.duration_ns;
        self.intervals += next.intervals;
        self.read.add(&next.read);
        self.write.add(&next.write);
        self.trim.add(&next.trim);
    }
}

/// One worker of a job of several: what fio reports per job clone.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CloneRecord {
    /// From the job's start to this worker's end, pauses and stalls excluded, ns.
    pub elapsed_ns: u64,
    pub read: DirectionRecord,
    pub write: DirectionRecord,
    pub sync: SyncRecord,
    #[serde(default, skip_serializing_if = "DirectionRecord::is_idle")]
    pub trim: DirectionRecord,
    /// CPU time of this worker's thread.
    pub cpu: CpuRecord,
    /// This worker's thread id (fio's `pid=` of a clone); absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// This worker's I/O depth distributions; absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_depths: Option<IoDepthsRecord>,
    /// This worker's bytes and I/Os in each interval of its step's series, for fio's per-clone
    /// `bw_*` and `iops_*` samples; absent in records written before it was kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<CloneIntervalRecord>,
    /// This worker's own file, when each clone runs on one of its own (fio's `$jobnum` file
    /// names); absent when the clones share the job's target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// One worker's part of one interval: what fio's per-clone bandwidth and IOPS samples are
/// computed from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloneIntervalRecord {
    pub duration_ns: u64,
    pub read_bytes: u64,
    pub read_ios: u64,
    pub write_bytes: u64,
    pub write_ios: u64,
}

/// One interval: a line of `--jsonl`, and a point of a step's series.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IntervalRecord {
    pub format: String,
    pub format_version: u32,
    #[serde(rename = "segment")]
    pub step: u32,
    pub index: u64,
    /// End of the interval since the start of the measured window, ns.
    pub t_ns: u64,
    pub duration_ns: u64,
    /// The part of `duration_ns` the process did not run (stopped, frozen: a stall of a
    /// second or more, left out of the measured time), ns; a merged point sums its
    /// intervals'. Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stalled_ns: u64,
    pub read: DirectionRecord,
    pub write: DirectionRecord,
    pub sync: SyncRecord,
    /// Discards (trim, randtrim, trimwrite; format 5); absent when none were issued.
    #[serde(default, skip_serializing_if = "DirectionRecord::is_idle")]
    pub trim: DirectionRecord,
    /// `iostat -x` metrics of the device over this interval, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub device: Option<IostatRow>,
    /// Each job's part of the interval when the step runs several jobs (format 4; `--jsonl`
    /// lines only: a step's `series` keeps the step's totals).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub jobs: Vec<IntervalJobRecord>,
    /// A step's series point that merges several intervals (a long run past the series'
    /// cap): how many, and the lowest and highest of them, so a dip stays visible. Absent on a
    /// point that is one interval, and on every `--jsonl` line.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub merged: Option<MergedRecord>,
}

/// What a merged series point keeps of the intervals it merges: their count and extremes.
/// The point itself holds their sums (bytes, I/Os), their rates over its whole span
/// (`duration_ns`), their latency merged (min, max, mean, stddev and the histogram, the
/// percentiles read off the merged histogram).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MergedRecord {
    /// Intervals merged: `index` is the first, `index + intervals - 1` the last.
    pub intervals: u64,
    /// The shortest and the longest of them, ns: an interval much longer than the others is a
    /// stall or a frozen process.
    pub shortest_ns: u64,
    pub longest_ns: u64,
    pub read: RateRangeRecord,
    pub write: RateRangeRecord,
    /// Discards, when any were issued.
    #[serde(default, skip_serializing_if = "RateRangeRecord::is_zero")]
    pub trim: RateRangeRecord,
}

/// The lowest and highest per-interval rates of one direction among merged intervals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RateRangeRecord {
    pub min_iops: f64,
    pub max_iops: f64,
    pub min_bw_bytes: u64,
    pub max_bw_bytes: u64,
}

impl RateRangeRecord {
    /// The range of one interval's `d`.
    #[must_use]
    pub fn of(d: &DirectionRecord) -> Self {
        Self {
            min_iops: d.iops,
            max_iops: d.iops,
            min_bw_bytes: d.bw_bytes,
            max_bw_bytes: d.bw_bytes,
        }
    }

    /// Widens to take `other` in.
    pub fn widen(&mut self, other: &Self) {
        self.min_iops = self.min_iops.min(other.min_iops);
        self.max_iops = self.max_iops.max(other.max_iops);
        self.min_bw_bytes = self.min_bw_bytes.min(other.min_bw_bytes);
        self.max_bw_bytes = self.max_bw_bytes.max(other.max_bw_bytes);
    }

    #[must_use]
    pub fn is_zero(&self) -> bool {
        *self == Self::default()
    }
}

/// One job's part of an interval.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IntervalJobRecord {
    pub name: String,
    pub read: DirectionRecord,
    pub write: DirectionRecord,
    pub sync: SyncRecord,
    /// Discards (trim, randtrim, trimwrite; format 5); absent when none were issued.
    #[serde(default, skip_serializing_if = "DirectionRecord::is_idle")]
    pub trim: DirectionRecord,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warnings_once_text_keep_their_words_and_travel_typed() {
        let cases = [
            (
                RunWarning::SmallWorkingSet {
                    working_set_bytes: 1 << 20,
                    in_flight_bytes: 4 << 20,
                },
                "small_working_set",
                "the working set (1 MiB) is smaller than bs x iodepth x numjobs (4 MiB): I/Os in \
                 flight overlap the same blocks; raise --size or lower --iodepth or --numjobs",
            ),
            (
                RunWarning::Holes {
                    path: "/srv/f".into(),
                },
                "holes",
                "/srv/f has holes in the working set: reading holes measures nothing; pass \
                 --allow-destructive to fill it with data first",
            ),
            (
                RunWarning::RateShortfall {
                    job: Some("a".into()),
                    direction: "write".into(),
                    unit: "iops".into(),
                    asked: 1000,
                    done: 700,
                    elapsed_ns: 1_000_000_000,
                    iodepth: 8,
                },
                "rate_shortfall",
                "job a: write rate not delivered: asked 1.0k IOPS, achieved 700 IOPS (70.0%); \
                 the device, or 8 I/O(s) in flight per worker, could not keep up (lat_sched \
                 counts the time behind schedule)",
            ),
            (
                RunWarning::Buffered,
                "buffered",
                "buffered I/O (--buffered, direct=0): results include the page cache, not just the \
                 device",
            ),
            (
                RunWarning::ChangeIgnoredManyJobs,
                "change_ignored_many_jobs",
                "ignored a change: live changes apply to runs of one job at a time",
            ),
            (
                RunWarning::ChangeIgnored {
                    problem: "--bs 3: not a multiple of 512".into(),
                },
                "change_ignored",
                "ignored a change: --bs 3: not a multiple of 512",
            ),
            (
                RunWarning::JsonlStopped {
                    error: "No space left on device (os error 28)".into(),
                },
                "jsonl_stopped",
                "stopped writing --jsonl: No space left on device (os error 28)",
            ),
            (
                RunWarning::NotRemoved {
                    path: "/srv/.diskdash-scratch-1-0".into(),
                    scratch: true,
                    error: "Permission denied (os error 13)".into(),
                },
                "not_removed",
                "could not remove the scratch file /srv/.diskdash-scratch-1-0: Permission \
                 denied (os error 13); remove it by hand",
            ),
        ];
        for (warning, kind, text) in cases {
            assert_eq!(warning.to_string(), text);
            let json = serde_json::to_value(&warning).unwrap();
            assert_eq!(json["kind"], kind, "{json}");
            let back: RunWarning = serde_json::from_value(json).unwrap();
            assert_eq!(back, warning);
        }
    }

    #[test]
    fn a_starved_session_is_a_typed_warning_with_its_text() {
        let warning = RunWarning::Starved {
            step: 1,
            gaps: 2,
            starved_ns: 2_950_000_000,
            longest_ns: 1_700_000_000,
        };
        assert_eq!(
            serde_json::to_value(&warning).unwrap(),
            serde_json::json!({"kind": "starved", "segment": 1, "gaps": 2,
                "starved_ns": 2_950_000_000u64, "longest_ns": 1_700_000_000u64})
        );
        assert_eq!(
            warning.to_string(),
            "starved: the session's thread did not run for 2.95 s in segment 2 while the \
             workers kept running (2 gaps, the longest 1.70 s; more busy threads than CPUs): \
             that time is measured and its I/O counted, but the intervals of a gap hold its \
             I/O unevenly and the live view lagged"
        );
        let back: RunWarning =
            serde_json::from_value(serde_json::to_value(&warning).unwrap()).unwrap();
        assert_eq!(back, warning);
    }

    #[test]
    fn a_stall_is_a_typed_warning_with_its_text() {
        let warning = RunWarning::Stalled {
            step: 0,
            stalls: 1,
            stalled_ns: 10_020_000_000,
            longest_ns: 10_020_000_000,
        };
        assert_eq!(
            serde_json::to_value(&warning).unwrap(),
            serde_json::json!({"kind": "stalled", "segment": 0, "stalls": 1,
                "stalled_ns": 10_020_000_000u64, "longest_ns": 10_020_000_000u64})
        );
        assert_eq!(
            warning.to_string(),
            "stalled: diskdash did not run for 10.02 s in segment 1 (stopped, frozen or starved; \
             1 stall, the longest 10.02 s): that time is not measured, rates cover the time the \
             workers ran; I/Os in flight across a stall carry it in their latency"
        );
        let back: RunWarning =
            serde_json::from_value(serde_json::to_value(&warning).unwrap()).unwrap();
        assert_eq!(back, warning);
    }

    #[test]
    fn a_page_cache_warning_names_its_point_and_reads_back_without_it() {
        let warning = RunWarning::PageCache {
            device: "vda".into(),
            app_bytes: 8 << 30,
            device_bytes: 16 << 20,
            step: Some(3),
            point: Some("bs=4M".into()),
        };
        assert_eq!(
            warning.to_string(),
            "PAGE CACHE: point bs=4M: the run moved 8 GiB but vda only 16 MiB; these results \
             measure memory, not the disk"
        );
        assert_eq!(
            serde_json::to_value(&warning).unwrap(),
            serde_json::json!({"kind": "page_cache", "device": "vda", "app_bytes": 8u64 << 30,
                "device_bytes": 16 << 20, "segment": 3, "point": "bs=4M"})
        );
        // A record written before warnings named their point.
        let old: RunWarning = serde_json::from_value(serde_json::json!({"kind": "page_cache",
            "device": "vda", "app_bytes": 10, "device_bytes": 1}))
        .unwrap();
        assert!(
            old.to_string()
                .starts_with("PAGE CACHE: the run moved 10 B")
        );
    }

    #[test]
    fn swept_values_are_numbers_where_they_are_whole_numbers() {
        assert_eq!(
            serde_json::to_value([
                SweptValue::of("4"),
                SweptValue::of("2M"),
                SweptValue::of("04")
            ])
            .unwrap(),
            serde_json::json!([4, "2M", "04"])
        );
        let back: Vec<SweptValue> = serde_json::from_value(serde_json::json!([4, "2M"])).unwrap();
        assert_eq!(back, [SweptValue::Number(4), SweptValue::Text("2M".into())]);
        assert_eq!(back[0].to_string(), "4");
    }
}
