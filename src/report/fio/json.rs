//! The `--output-format=json` (and `json+`) document of `diskdash fio`: fio 3.33's keys, each
//! with fio's meaning and unit, where a script reading fio's JSON looks (`jobs[].read.iops`,
//! `.bw`, `.bw_mean`, `.clat_ns.percentile["99.000000"]`, `job options`, `latency_ms`,
//! `disk_util[]`), and a `diskdash` object, top-level and per job, for what is ours.

use serde::Serialize;

use super::plat::{self, SampleStats};
use super::{Block, Direction, FioReport, Latency, blocks, disk_totals, run_groups};
use crate::record::{
    IntervalRecord, Percentiles, RanAs, ReconciliationRecord, RunRecord, RunStatus,
};

/// The fio release whose JSON layout the document follows: consumers check `fio version` for
/// `fio-3.x`. diskdash's own version is in `diskdash version`.
pub const FIO_LAYOUT_VERSION: &str = "fio-3.33";

/// How the keys fio fills from counters diskdash keeps otherwise are filled, said in the
/// document.
const SETTINGS_NOTE: &str = "bw_* and iops_* are over the job's intervals (the status \
    interval, 1 s by default, not fio's 500 ms bwavgtime) and are 0 for a job that shared its \
    step with others; iodepth_level counts each I/O at the depth its submit call made (those \
    in flight and those it sent), iodepth_submit each submit call by the I/Os it sent, \
    iodepth_complete each reap call that took completions by how many (a psync I/O is one of \
    each, as fio's); the normal output's pid= is the job's first worker thread's id \
    (diskdash runs its jobs as threads, as fio with thread=1)";

/// Added to [`SETTINGS_NOTE`] for a record written before the depth tables and page faults
/// were counted.
const OLDER_RECORD_NOTE: &str = "; this record predates the counted depth tables and page \
    faults: iodepth_level, iodepth_submit and iodepth_complete put every I/O at the job's \
    iodepth, iodepth_batch and iodepth_batch_complete_max, and majf and minf are 0";

/// What diskdash's latency is, said in the document.
const LATENCY_NOTE: &str = "each I/O is timed from the clock read just before its submit call: \
    for io_uring, libaio and null, slat_ns to the submit call's return and clat_ns from there \
    to its reap, lat_ns the whole (one clock read per submit call shared by the I/Os it sent, \
    as fio's submit time); a synchronous engine (psync) has no slat_ns and its clat_ns is its \
    lat_ns, as fio's";

/// What the `disk_util` counts are, said in the document.
const DISK_UTIL_NOTE: &str = "disk_util counts are over the steps' measured windows: ios exact, \
    merges, ticks and in_queue derived from iostat rates x window";

/// The whole document.
#[derive(Debug, Clone, Serialize)]
pub struct FioJson {
    /// [`FIO_LAYOUT_VERSION`].
    #[serde(rename = "fio version")]
    pub fio_version: String,
    /// `diskdash-<version>`: the program that ran.
    #[serde(rename = "diskdash version")]
    pub diskdash_version: String,
    /// End of the run, Unix seconds.
    pub timestamp: u64,
    pub timestamp_ms: u64,
    /// End of the run, as fio's `ctime` line (UTC here).
    pub time: String,
    /// The `[global]` options as written; absent without any, as fio.
    #[serde(
        rename = "global options",
        skip_serializing_if = "OptionsJson::is_empty"
    )]
    pub global_options: OptionsJson,
    pub jobs: Vec<JobJson>,
    pub disk_util: Vec<DiskUtilJson>,
    pub diskdash: RunNotesJson,
}

/// One job (or one group with `group_reporting`), fio's keys.
#[derive(Debug, Clone, Serialize)]
pub struct JobJson {
    pub jobname: String,
    pub groupid: u32,
    /// errno of the failure, 0 when none.
    pub error: i32,
    /// Seconds left when reported: 0, the run is over.
    pub eta: u64,
    /// Seconds from the run's start to the report, rounded up (fio counts from its start too).
    pub elapsed: u64,
    /// The job section's own options as written (not those of `[global]`).
    #[serde(rename = "job options")]
    pub job_options: OptionsJson,
    pub read: DirectionJson,
    pub write: DirectionJson,
    /// Discards (`trim`, `randtrim`, `trimwrite`): totals, rates and latency.
    pub trim: DirectionJson,
    pub sync: SyncJson,
    /// Measured time, ms.
    pub job_runtime: u64,
    /// Percent of one CPU.
    pub usr_cpu: f64,
    pub sys_cpu: f64,
    pub ctx: u64,
    /// Major and minor page faults of the job's worker threads (`getrusage`), summed.
    pub majf: u64,
    pub minf: u64,
    /// Percent of I/Os by depth in flight at submission (`1`, `2`, `4` .. `32`, `>=64`).
    pub iodepth_level: PercentJson,
    /// Percent of submit calls by I/Os per call (`0`, `4` (1 to 4), `8` .. `64`, `>=64`).
    pub iodepth_submit: PercentJson,
    /// Percent of reap calls by I/Os per call, keys as `iodepth_submit`.
    pub iodepth_complete: PercentJson,
    /// Percent of all I/Os by latency below 1 us, keyed by each range's upper end in ns.
    pub latency_ns: PercentJson,
    /// Percent of all I/Os from 1 us to below 1 ms, keyed in us.
    pub latency_us: PercentJson,
    /// Percent of all I/Os from 1 ms, keyed in ms (`2000`, `>=2000` last).
    pub latency_ms: PercentJson,
    /// Failed I/Os gone on past and the errno of the first (fio's `total_err`,
    /// `first_error`): only for a job with `continue_on_error`, as fio.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_err: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_error: Option<i32>,
    /// fio's `latency_target` search: the depth it ended at (the job's iodepth: no target).
    pub latency_depth: u32,
    /// The target (ns), percentile and window (us) of that search: none, fio's defaults.
    pub latency_target: u64,
    pub latency_percentile: f64,
    pub latency_window: u64,
    /// fio's `steadystate` when the job had a criterion (diskdash's own fields follow fio's);
    /// a `group_reporting` block of several jobs has none (diskdash judges each job).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<crate::record::SteadyStateRecord>,
    pub diskdash: JobNotesJson,
}

/// One direction, fio's keys and units.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DirectionJson {
    pub io_bytes: u64,
    pub io_kbytes: u64,
    pub bw_bytes: u64,
    /// KiB/s.
    pub bw: u64,
    pub iops: f64,
    /// ms; 0 without I/O in this direction.
    pub runtime: u64,
    pub total_ios: u64,
    pub short_ios: u64,
    pub drop_ios: u64,
    pub slat_ns: LatencyJson,
    pub clat_ns: LatencyJson,
    pub lat_ns: LatencyJson,
    /// Bandwidth of the job's intervals (KiB/s): min, max, mean, sample stddev, count.
    pub bw_min: u64,
    pub bw_max: u64,
    /// The mean as a percent of its run-status group's aggregate bandwidth (at most 100).
    pub bw_agg: f64,
    pub bw_mean: f64,
    pub bw_dev: f64,
    pub bw_samples: u64,
    /// IOPS of the job's intervals: min, max, mean, sample stddev, count.
    pub iops_min: u64,
    pub iops_max: u64,
    pub iops_mean: f64,
    pub iops_stddev: f64,
    pub iops_samples: u64,
}

/// `{"option": "value"}` in the order written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OptionsJson(pub Vec<(String, String)>);

impl OptionsJson {
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for OptionsJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// `{"key": percent}` in fio's key order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PercentJson(pub Vec<(String, f64)>);

impl Serialize for PercentJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl From<Vec<(&'static str, f64)>> for PercentJson {
    fn from(list: Vec<(&'static str, f64)>) -> Self {
        Self(list.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }
}

/// json+'s `bins`: `{"<fio bucket value, ns>": count}`, ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BinsJson(pub Vec<(u64, u64)>);

impl Serialize for BinsJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (ns, count) in &self.0 {
            map.serialize_entry(&ns.to_string(), count)?;
        }
        map.end()
    }
}

/// fio's latency object, ns.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LatencyJson {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    #[serde(rename = "N")]
    pub n: u64,
    /// `"99.000000": ns`; absent without I/O.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentile: Option<Percentiles>,
    /// json+ only, `clat_ns` only (as fio): the histogram in fio's buckets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bins: Option<BinsJson>,
}

/// fio's `sync` object (fsync/fdatasync calls).
#[derive(Debug, Clone, Serialize)]
pub struct SyncJson {
    pub total_ios: u64,
    pub lat_ns: LatencyJson,
}

/// One disk, fio's `disk_util` keys; ticks and `in_queue` in ms, `util` in percent.
#[derive(Debug, Clone, Serialize)]
pub struct DiskUtilJson {
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    pub read_ticks: u64,
    pub write_ticks: u64,
    pub in_queue: u64,
    pub util: f64,
}

/// diskdash's own keys of a job.
#[derive(Debug, Clone, Serialize)]
pub struct JobNotesJson {
    /// The job asked for io_uring, which could not be set up: what it asked and what ran
    /// (`job options` and the depth tables say what ran). Absent when it ran as asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<FallbackJson>,
    /// Worst of the jobs reported: `completed`, `interrupted` or `failed`.
    pub status: RunStatus,
    /// Workers reported (fio's `jobs=` of the text).
    pub workers: u32,
    /// The failures' messages.
    pub errors: Vec<String>,
    /// One per job reported (several with `group_reporting`).
    pub targets: Vec<TargetJson>,
}

/// A job that ran on another engine than it asked for.
#[derive(Debug, Clone, Serialize)]
pub struct FallbackJson {
    /// Asked for.
    pub ioengine: String,
    pub iodepth: u32,
    /// Ran.
    pub ran_ioengine: String,
    pub ran_iodepth: u32,
    /// Why, as the engine's setup said it.
    pub why: String,
}

/// `options` with what ran in place of what was asked after a fallback: `ioengine` and
/// `iodepth` replaced where they were given, added where they were not (a job's own options
/// override the global ones, as in fio).
fn as_ran(mut options: Vec<(String, String)>, ran: Option<&RanAs>) -> Vec<(String, String)> {
    let Some(ran) = ran else { return options };
    for (key, value) in [
        ("ioengine", ran.ioengine.clone()),
        ("iodepth", ran.iodepth.to_string()),
    ] {
        match options.iter_mut().find(|(k, _)| k == key) {
            Some(given) => given.1 = value,
            None => options.push((key.to_string(), value)),
        }
    }
    options
}

/// The global options with io_uring, where it fell back, as the psync that ran.
fn global_as_ran(mut options: Vec<(String, String)>, record: &RunRecord) -> Vec<(String, String)> {
    if let Some(ran) = record.uring_ran_as() {
        for (key, value) in &mut options {
            if key == "ioengine" && value == "io_uring" {
                value.clone_from(&ran.ioengine);
            }
        }
    }
    options
}

/// Where one job's I/O went.
#[derive(Debug, Clone, Serialize)]
pub struct TargetJson {
    pub job: String,
    pub path: String,
    /// `scratch`, `file` or `block_device`.
    pub kind: String,
    /// diskdash created the file (a scratch file).
    pub created: bool,
    /// It is still there after the run.
    pub kept: bool,
    /// The disk its I/O lands on, when known.
    pub device: Option<String>,
}

/// diskdash's own top-level keys.
#[derive(Debug, Clone, Serialize)]
pub struct RunNotesJson {
    /// The record's `format_version` this document was made from.
    pub format_version: u32,
    pub status: RunStatus,
    pub latency: &'static str,
    pub disk_util: &'static str,
    /// How the keys fio fills from counters diskdash keeps otherwise are filled.
    pub settings: String,
    pub reconciliation: Vec<DiskReconciliationJson>,
    pub warnings: Vec<String>,
    /// The run's notes (the record's): what `diskdash fio` would say on stderr, which fio's
    /// process contract keeps for fio's own errors.
    pub notes: Vec<String>,
}

/// One disk of one step: the run's I/Os against the device's.
#[derive(Debug, Clone, Serialize)]
pub struct DiskReconciliationJson {
    /// 0-based step (its index in the record's `segments`).
    pub step: u32,
    pub disk: String,
    #[serde(flatten)]
    pub reconciliation: ReconciliationRecord,
}

pub(super) fn document(record: &RunRecord, opts: &FioReport<'_>) -> FioJson {
    let end_ms = unix_ms(&record.ended_at).unwrap_or(0);
    let elapsed_s = unix_ms(&record.started_at)
        .map_or(0, |start_ms| end_ms.saturating_sub(start_ms).div_ceil(1000));
    let groups = run_groups(record);
    let context = Context {
        record,
        opts,
        elapsed_s,
        agg_kib: &|group: u32, read: bool| {
            groups
                .iter()
                .find(|g| g.group == group)
                .and_then(|g| {
                    if read {
                        g.read.as_ref()
                    } else {
                        g.write.as_ref()
                    }
                })
                .map_or(0, |d| d.agg_bw_bytes / 1024)
        },
    };
    FioJson {
        fio_version: FIO_LAYOUT_VERSION.to_string(),
        diskdash_version: format!("diskdash-{}", record.diskdash_version),
        timestamp: end_ms / 1000,
        timestamp_ms: end_ms,
        time: ctime(end_ms / 1000),
        global_options: OptionsJson(global_as_ran(
            opts.given.map(|g| g.global.clone()).unwrap_or_default(),
            record,
        )),
        jobs: blocks(record, opts)
            .iter()
            .map(|block| job(block, &context))
            .collect(),
        disk_util: disk_totals(record)
            .into_iter()
            .map(|d| DiskUtilJson {
                name: d.name,
                read_ios: d.read_ios,
                write_ios: d.write_ios,
                read_merges: d.read_merges,
                write_merges: d.write_merges,
                read_ticks: d.read_ticks_ms,
                write_ticks: d.write_ticks_ms,
                in_queue: d.in_queue_ms,
                util: d.util_pct,
            })
            .collect(),
        diskdash: RunNotesJson {
            format_version: record.format_version,
            status: record.status,
            latency: LATENCY_NOTE,
            disk_util: DISK_UTIL_NOTE,
            settings: if record
                .steps
                .iter()
                .flat_map(|s| &s.jobs)
                .any(|job| job.io_depths.is_none())
            {
                format!("{SETTINGS_NOTE}{OLDER_RECORD_NOTE}")
            } else {
                SETTINGS_NOTE.to_string()
            },
            reconciliation: record
                .steps
                .iter()
                .flat_map(|step| {
                    step.devices.iter().map(|device| DiskReconciliationJson {
                        step: step.index,
                        disk: device.name.clone(),
                        reconciliation: device.reconciliation.clone(),
                    })
                })
                .collect(),
            warnings: record.warnings.clone(),
            notes: record.notes.clone(),
        },
    }
}

/// What every job's keys are computed against.
struct Context<'a> {
    record: &'a RunRecord,
    opts: &'a FioReport<'a>,
    /// The run's wall time, s.
    elapsed_s: u64,
    /// A run-status group's aggregate bandwidth in a direction (`true`: read), KiB/s.
    agg_kib: &'a dyn Fn(u32, bool) -> u64,
}

fn job(block: &Block<'_>, context: &Context<'_>) -> JobJson {
    let list = context.opts.percentile_list();
    let first = block.jobs.first();
    let series = block_series(context.record, block);
    // fio's metadata engines time the call alone and record it as clat only (no lat).
    let clat_only = first.is_some_and(|job| {
        matches!(
            job.job.ioengine.as_str(),
            "filecreate" | "filestat" | "filedelete"
        )
    });
    let dir = |d: &Direction, read: bool| {
        let mut out = direction(d, list, context.opts.bins);
        if clat_only {
            out.lat_ns = LatencyJson::default();
        }
        let interval_ns = first.map_or(0, |job| job.job.interval_ns);
        let parts: Option<Vec<(u64, u64, u64)>> = if block.clone {
            // A clone's own intervals, where the record keeps them.
            (!block.clone_intervals.is_empty()).then(|| {
                block
                    .clone_intervals
                    .iter()
                    .map(|i| {
                        if read {
                            (i.duration_ns, i.read_bytes, i.read_ios)
                        } else {
                            (i.duration_ns, i.write_bytes, i.write_ios)
                        }
                    })
                    .collect()
            })
        } else {
            series.map(|series| {
                series
                    .iter()
                    .map(|i| {
                        let dir = if read { &i.read } else { &i.write };
                        (i.duration_ns, dir.io_bytes, dir.total_ios)
                    })
                    .collect()
            })
        };
        if let Some(parts) = parts {
            samples(&mut out, &parts, interval_ns);
            let agg = (context.agg_kib)(block.group, read);
            if agg > 0 {
                let pct = out.bw_mean * 100.0 / agg as f64;
                out.bw_agg = pct.min(100.0);
            }
        }
        out
    };
    let any_io = block.read.total_ios + block.write.total_ios > 0;
    let spec = first.map(|job| &job.job);
    // What ran: psync at depth 1 where io_uring fell back, not the depth asked for.
    let ran = spec.and_then(|s| context.record.ran_as(s));
    let depth = ran
        .as_ref()
        .map_or_else(|| spec.map_or(1, |s| s.iodepth), |r| r.iodepth);
    let target = spec.and_then(|s| s.latency_target.as_ref());
    let [level, submitted, completed] = depth_tables(block, spec, depth, any_io);
    let buckets: Vec<(Vec<crate::stats::LatencyBucket>, u32)> = [&block.read, &block.write]
        .iter()
        .filter_map(|d| d.clat().buckets.clone())
        .collect();
    let tables = plat::latency_tables(&buckets, block.read.total_ios + block.write.total_ios);
    JobJson {
        jobname: block.name.to_string(),
        groupid: block.group,
        error: block.error(),
        eta: 0,
        elapsed: context.elapsed_s,
        job_options: OptionsJson(as_ran(
            context
                .opts
                .given
                .map(|g| g.job(block.name).to_vec())
                .unwrap_or_default(),
            ran.as_ref(),
        )),
        read: dir(&block.read, true),
        write: dir(&block.write, false),
        trim: direction(&block.trim, list, context.opts.bins),
        sync: SyncJson {
            total_ios: block.sync_ios,
            lat_ns: latency(&block.sync_lat, list),
        },
        // fio's job time: the measured window and, after it, a verify's read-back.
        job_runtime: (block.elapsed_ns + block.readback_ns) / 1_000_000,
        usr_cpu: block.usr_cpu,
        sys_cpu: block.sys_cpu,
        ctx: block.ctx,
        majf: block.majf,
        minf: block.minf,
        iodepth_level: level.into(),
        iodepth_submit: submitted.into(),
        iodepth_complete: completed.into(),
        latency_ns: PercentJson(tables.ns),
        latency_us: PercentJson(tables.us),
        latency_ms: PercentJson(tables.ms),
        total_err: block.continued().map(|c| c.total),
        first_error: block.continued().map(|c| c.first_errno),
        // fio's numbers: the depth the search ended at, the target in ns, the window in us.
        latency_depth: first.and_then(|job| job.latency_depth).unwrap_or(depth),
        latency_target: target.map_or(0, |t| t.target_ns),
        latency_percentile: target.map_or(100.0, |t| t.percentile),
        latency_window: target.map_or(0, |t| t.window_us),
        steadystate: match block.jobs.as_slice() {
            [job] => job.steadystate.clone(),
            _ => None,
        },
        diskdash: JobNotesJson {
            fallback: ran.as_ref().zip(spec).map(|(ran, asked)| FallbackJson {
                ioengine: asked.ioengine.clone(),
                iodepth: asked.iodepth,
                ran_ioengine: ran.ioengine.clone(),
                ran_iodepth: ran.iodepth,
                why: context.record.engine.fallback.clone().unwrap_or_default(),
            }),
            status: block.status(),
            workers: block.workers,
            errors: block
                .jobs
                .iter()
                .filter_map(|job| job.error.as_ref().map(|e| e.message.clone()))
                .collect(),
            targets: block
                .jobs
                .iter()
                .map(|job| TargetJson {
                    job: job.name.clone(),
                    path: job.target.path.clone(),
                    kind: job.target.kind.clone(),
                    created: job.target.kind == "scratch",
                    kept: !job.target.scratch_removed,
                    device: job.device.clone(),
                })
                .collect(),
        },
    }
}

/// fio's `iodepth_level`, `iodepth_submit` and `iodepth_complete` of `block`: as its workers
/// counted them; an older record's, every I/O at the job's `depth` and batch settings.
fn depth_tables(
    block: &Block<'_>,
    spec: Option<&crate::record::JobRecord>,
    depth: u32,
    any_io: bool,
) -> [Vec<(&'static str, f64)>; 3] {
    block.depths.as_ref().map_or_else(
        || {
            let submit = spec.map_or(1, |s| s.iodepth_batch.max(1));
            let complete = spec.map_or(1, |s| s.iodepth_batch_complete.max(1));
            [
                plat::depth_table(depth, any_io),
                plat::batch_table(submit, any_io),
                plat::batch_table(complete, any_io),
            ]
        },
        plat::counted_tables,
    )
}

/// The intervals of `block`: its step's series when the block is exactly that step's jobs (a
/// job alone in its step, or a reporting group that is one step). The record keeps a step's
/// series, not each job's, so a job that shared its step has none.
fn block_series<'r>(record: &'r RunRecord, block: &Block<'_>) -> Option<&'r [IntervalRecord]> {
    if block.clone {
        return None;
    }
    let first = block.jobs.first()?;
    let step = record
        .steps
        .iter()
        .find(|s| s.jobs.iter().any(|job| std::ptr::eq(job, *first)))?;
    let all_in = step.jobs.len() == block.jobs.len()
        && block
            .jobs
            .iter()
            .all(|b| step.jobs.iter().any(|job| std::ptr::eq(job, *b)));
    all_in.then_some(step.series.as_slice())
}

/// fio's bw and iops statistics from per-interval samples. fio averages bandwidth over
/// `bwavgtime` (500 ms) windows; diskdash's window is the job's interval (`interval_ns`: the
/// status interval, 1 s by default). An interval shorter than half of it (the last, cut short
/// by the run's end) is left out, as is one without I/O in this direction (fio logs none for
/// it). `parts`: each interval's (duration ns, bytes, I/Os) in this direction. Samples are
/// whole KiB/s and I/Os per second, as fio keeps them. A long run's series
/// merges neighbouring intervals past its cap: each merged point is one sample over its span.
fn samples(out: &mut DirectionJson, parts: &[(u64, u64, u64)], interval_ns: u64) {
    let mut bw = Vec::new();
    let mut iops = Vec::new();
    for &(duration_ns, bytes, ios) in parts {
        if duration_ns == 0 || duration_ns.saturating_mul(2) < interval_ns || ios == 0 {
            continue;
        }
        let seconds = duration_ns as f64 / 1e9;
        bw.push((bytes as f64 / 1024.0 / seconds) as u64);
        iops.push((ios as f64 / seconds) as u64);
    }
    let bw = SampleStats::of(&bw);
    let iops = SampleStats::of(&iops);
    out.bw_min = bw.min;
    out.bw_max = bw.max;
    out.bw_mean = bw.mean;
    out.bw_dev = bw.dev;
    out.bw_samples = bw.samples;
    out.iops_min = iops.min;
    out.iops_max = iops.max;
    out.iops_mean = iops.mean;
    out.iops_stddev = iops.dev;
    out.iops_samples = iops.samples;
}

fn direction(dir: &Direction, list: &[f64], bins: bool) -> DirectionJson {
    let lat = latency(&dir.lat, list);
    let mut clat = latency(dir.clat(), list);
    // fio's slat has no percentiles unless asked (`slat_percentiles`).
    let slat = dir
        .slat
        .as_ref()
        .map_or_else(LatencyJson::default, |slat| LatencyJson {
            percentile: None,
            ..latency(slat, list)
        });
    // Only where there were I/Os: fio's tools read the first bin of any `bins` they find.
    if let (true, Some((buckets, bits))) = (bins && dir.total_ios > 0, &dir.clat().buckets) {
        clat.bins = Some(BinsJson(plat::bins(buckets, *bits)));
    }
    DirectionJson {
        io_bytes: dir.io_bytes,
        io_kbytes: dir.io_bytes / 1024,
        bw_bytes: dir.bw_bytes,
        bw: dir.bw_bytes / 1024,
        iops: dir.iops,
        runtime: dir.runtime_ms,
        total_ios: dir.total_ios,
        short_ios: 0,
        drop_ios: 0,
        slat_ns: slat,
        clat_ns: clat,
        lat_ns: lat,
        ..DirectionJson::default()
    }
}

fn latency(lat: &Latency, list: &[f64]) -> LatencyJson {
    let percentiles = lat.percentiles(list);
    LatencyJson {
        min: lat.min_ns,
        max: lat.max_ns,
        mean: lat.mean_ns,
        stddev: lat.stddev_ns,
        n: lat.n,
        percentile: (!percentiles.is_empty()).then_some(Percentiles(percentiles)),
        bins: None,
    }
}

/// Unix ms of the record's `2026-11-23T14:52:23.250Z` (UTC, as the record writes them).
fn unix_ms(rfc3339: &str) -> Option<u64> {
    let (date, rest) = rfc3339.split_once('T')?;
    let mut ymd = date.splitn(3, '-').map(str::parse::<i64>);
    let (y, m, d) = (ymd.next()?.ok()?, ymd.next()?.ok()?, ymd.next()?.ok()?);
    let time = rest.trim_end_matches('Z');
    let (hms, fraction) = time.split_once('.').unwrap_or((time, "0"));
    let mut parts = hms.splitn(3, ':').map(str::parse::<i64>);
    let (hh, mm, ss) = (
        parts.next()?.ok()?,
        parts.next()?.ok()?,
        parts.next()?.ok()?,
    );
    let ms: i64 = format!("{fraction:0<3}").get(..3)?.parse().ok()?;
    let seconds = days_from_civil(y, m, d) * 86_400 + hh * 3600 + mm * 60 + ss;
    u64::try_from(seconds * 1000 + ms).ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `Mon Nov 23 14:52:23 2026` of Unix seconds (UTC): fio's `time` key.
fn ctime(unix_s: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = i64::try_from(unix_s / 86_400).unwrap_or(0);
    let secs = unix_s % 86_400;
    // civil_from_days, the inverse of the above.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{} {} {day:2} {:02}:{:02}:{:02} {year}",
        DAYS[usize::try_from(days.rem_euclid(7)).unwrap_or(0)],
        MONTHS[usize::try_from(month - 1).unwrap_or(0)],
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::stats::fixture::{record, two_step_record};

    fn doc(group_reporting: bool) -> serde_json::Value {
        let opts = FioReport {
            group_reporting,
            percentiles: None,
            ..FioReport::default()
        };
        serde_json::to_value(document(&record(), &opts)).unwrap()
    }

    #[test]
    fn the_document_has_fio_s_paths_and_units() {
        let doc = doc(false);
        assert_eq!(doc["fio version"], "fio-3.33");
        assert_eq!(doc["diskdash version"], "diskdash-0.1.0");
        assert_eq!(doc["timestamp"], 1_795_445_543u64);
        assert_eq!(doc["timestamp_ms"], 1_795_445_543_250u64);
        assert_eq!(doc["time"], "Mon Nov 23 14:52:23 2026");
        let r = &doc["jobs"][0];
        assert_eq!(
            (r["jobname"].as_str(), r["groupid"].as_u64()),
            (Some("r"), Some(0))
        );
        assert_eq!(r["error"], 0);
        let read = &r["read"];
        assert_eq!(read["io_bytes"], 400u64 << 20);
        assert_eq!(read["io_kbytes"], 400 * 1024);
        assert_eq!(read["bw_bytes"], 200u64 << 20);
        // bw is KiB/s, runtime ms.
        assert_eq!(read["bw"], read["bw_bytes"].as_u64().unwrap() / 1024);
        assert_eq!(read["runtime"], 2000);
        assert_eq!(read["iops"], 51_200.0);
        assert_eq!(read["total_ios"], 102_400);
        assert_eq!(read["clat_ns"], read["lat_ns"]);
        assert_eq!(
            read["slat_ns"],
            json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0})
        );
        let percentile = read["clat_ns"]["percentile"].as_object().unwrap();
        assert_eq!(percentile.len(), 17);
        assert_eq!(percentile["50.000000"], 80_383);
        assert_eq!(percentile["99.000000"], 120_319);
        assert_eq!(percentile["99.990000"], 2_007_039);
        assert_eq!(read["clat_ns"]["N"], 102_400);
        // No writes: fio's zeros, no percentiles.
        assert_eq!(r["write"]["runtime"], 0);
        assert!(r["write"]["clat_ns"].get("percentile").is_none());
        assert_eq!(r["trim"]["total_ios"], 0);
        assert_eq!(r["sync"]["total_ios"], 0);
        assert_eq!(
            (r["usr_cpu"].as_f64(), r["sys_cpu"].as_f64()),
            (Some(5.0), Some(30.0))
        );
        assert_eq!(r["ctx"], 5000);
        assert_eq!(r["job_runtime"], 2000);
        assert_eq!(
            r["diskdash"]["targets"][0],
            json!({"job": "r", "path": "/data/r.dat", "kind": "file", "created": false,
                "kept": true, "device": "vda"})
        );
        assert_eq!(doc["jobs"][1]["diskdash"]["targets"][0]["created"], true);
        assert_eq!(
            doc["disk_util"],
            json!([{"name": "vda", "read_ios": 120_000, "write_ios": 25_000, "read_merges": 20,
                "write_merges": 400, "read_ticks": 18_000, "write_ticks": 12_500,
                "in_queue": 30_600, "util": 98.5}])
        );
        let notes = &doc["diskdash"];
        assert_eq!(notes["format_version"], 5);
        assert_eq!(notes["reconciliation"][0]["disk"], "vda");
        assert_eq!(notes["reconciliation"][0]["device_read_ios"], 120_000);
        assert!(
            notes["latency"]
                .as_str()
                .unwrap()
                .contains("slat_ns to the submit call's return")
        );
        assert_eq!(notes["warnings"][0], "vda served 94% of the run's bytes");
    }

    /// The record with job 0's reads timed by an engine that times its submit call: each
    /// of 1000 reads spent 3 us in the submit call and 47 us after it.
    fn split_record() -> RunRecord {
        let mut stats = crate::stats::DirectionStats::new().with_split();
        for _ in 0..1000 {
            stats.record(4096, 50_000);
            stats.record_split(3_000, 47_000);
        }
        let mut record = record();
        record.steps[0].jobs[0].read =
            crate::record::DirectionRecord::from_stats(&stats, 1_000_000_000)
                .with_histogram(&stats);
        record
    }

    #[test]
    fn slat_clat_and_lat_are_fio_s_split_where_the_engine_timed_its_submit() {
        let doc = serde_json::to_value(document(&split_record(), &FioReport::default())).unwrap();
        let read = &doc["jobs"][0]["read"];
        // Means from the histograms: within their 0.1% resolution.
        let mean = |key: &str| read[key]["mean"].as_f64().unwrap();
        let near = |got: f64, want: f64| (got - want).abs() <= want / 1000.0;
        assert_eq!(read["slat_ns"]["N"], 1000);
        assert!(near(mean("slat_ns"), 3_000.0), "{}", mean("slat_ns"));
        assert!(
            read["slat_ns"].get("percentile").is_none(),
            "as fio without slat_percentiles"
        );
        assert!(near(mean("clat_ns"), 47_000.0), "{}", mean("clat_ns"));
        assert!(near(mean("lat_ns"), 50_000.0), "{}", mean("lat_ns"));
        let p50 = read["clat_ns"]["percentile"]["50.000000"].as_u64().unwrap();
        assert!(p50.abs_diff(47_000) < 47_000 / 100, "{p50}");
        // fio's latency distribution counts clat: every read is in the 50 us bucket.
        assert_eq!(doc["jobs"][0]["latency_us"]["50"], 100.0);
        // The other job (no split in its record) keeps clat = lat, no slat.
        let other = &doc["jobs"][1]["write"];
        assert_eq!(other["clat_ns"], other["lat_ns"]);
        assert_eq!(other["slat_ns"]["N"], 0);
    }

    #[test]
    fn group_reporting_merges_histograms_not_percentiles() {
        let doc = doc(true);
        assert_eq!(doc["jobs"].as_array().unwrap().len(), 1);
        let read = &doc["jobs"][0]["read"];
        assert_eq!(read["total_ios"], 128_000);
        assert_eq!(read["bw_bytes"], 250u64 << 20);
        assert_eq!(read["runtime"], 2000);
        let p50 = read["clat_ns"]["percentile"]["50.000000"].as_u64().unwrap();
        let alone = doc_p50s();
        let average = (alone[0] + alone[1]) as f64 / 2.0;
        // The merged median is a 120 us read of job r; the jobs' own medians are 80 us and 1 ms.
        assert_eq!((p50, alone), (120_319, [80_383, 1_003_519]));
        let p50 = p50 as f64;
        assert!((p50 - average).abs() > 100_000.0, "{p50} vs {average}");
        assert_eq!(
            doc["jobs"][0]["diskdash"]["targets"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        assert_eq!(doc["jobs"][0]["diskdash"]["workers"], 2);
    }

    fn doc_p50s() -> [u64; 2] {
        let doc = doc(false);
        let p50 = |i: usize| {
            doc["jobs"][i]["read"]["clat_ns"]["percentile"]["50.000000"]
                .as_u64()
                .unwrap()
        };
        [p50(0), p50(1)]
    }

    #[test]
    fn a_given_percentile_list_is_used_and_keyed_like_fio() {
        let opts = FioReport {
            group_reporting: false,
            percentiles: Some(&[50.0, 99.999]),
            ..FioReport::default()
        };
        let doc = serde_json::to_value(document(&record(), &opts)).unwrap();
        let keys: Vec<&String> = doc["jobs"][0]["read"]["lat_ns"]["percentile"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["50.000000", "99.999000"]);
    }

    #[test]
    fn two_steps_list_jobs_in_order() {
        let doc =
            serde_json::to_value(document(&two_step_record(), &FioReport::default())).unwrap();
        let jobs: Vec<(&str, u64)> = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                (
                    j["jobname"].as_str().unwrap(),
                    j["groupid"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(jobs, [("r", 0), ("w", 0), ("seq", 1)]);
        assert_eq!(doc["diskdash"]["reconciliation"][1]["step"], 1);
    }

    /// `two_step_record` with seq's step sampled: three whole 1 s intervals of 100, 200 and
    /// 300 MiB, a 0.2 s tail and an interval without reads.
    fn sampled_record() -> RunRecord {
        let mut record = two_step_record();
        let mut stats = crate::stats::DirectionStats::new();
        stats.record(4096, 80_000);
        let mut series = Vec::new();
        for (i, (mib, duration_ns)) in [
            (100u64, 1_000_000_000u64),
            (200, 1_000_000_000),
            (0, 1_000_000_000),
            (300, 1_000_000_000),
            (10, 200_000_000),
        ]
        .into_iter()
        .enumerate()
        {
            let mut interval = crate::stats::fixture::read_interval(1, i as u64, &stats);
            interval.duration_ns = duration_ns;
            interval.read.io_bytes = mib << 20;
            interval.read.total_ios = (mib << 20) / 4096;
            series.push(interval);
        }
        record.steps[1].series = series;
        record
    }

    #[test]
    fn bw_and_iops_come_from_the_step_s_intervals() {
        let doc = serde_json::to_value(document(&sampled_record(), &FioReport::default())).unwrap();
        let seq = &doc["jobs"][2]["read"];
        assert_eq!(doc["jobs"][2]["jobname"], "seq");
        // KiB/s of 100, 200 and 300 MiB/s; the tail and the idle interval are left out.
        assert_eq!(
            (seq["bw_min"].as_u64(), seq["bw_max"].as_u64()),
            (Some(102_400), Some(307_200))
        );
        assert_eq!(seq["bw_mean"], 204_800.0);
        assert_eq!(seq["bw_dev"], 102_400.0, "sample stddev");
        assert_eq!(seq["bw_samples"], 3);
        assert_eq!(
            (seq["iops_min"].as_u64(), seq["iops_max"].as_u64()),
            (Some(25_600), Some(76_800))
        );
        assert_eq!(seq["iops_mean"], 51_200.0);
        assert_eq!(seq["iops_stddev"], 25_600.0);
        assert_eq!(seq["iops_samples"], 3);
        // Its group's aggregate is its own 200 MiB/s: the mean is all of it.
        assert_eq!(seq["bw_agg"], 100.0);
        // Job r shared its step: no samples, fio's zeros.
        let r = &doc["jobs"][0]["read"];
        assert_eq!(
            (r["bw_samples"].as_u64(), r["bw_mean"].as_f64()),
            (Some(0), Some(0.0))
        );
        assert_eq!(doc["jobs"][2]["write"]["bw_samples"], 0);
    }

    #[test]
    fn fio_s_job_keys_have_fio_s_meaning() {
        let given = crate::fio::GivenOptions {
            global: vec![("ioengine".into(), "io_uring".into())],
            jobs: vec![(
                "r".into(),
                vec![("rw".into(), "randread".into()), ("bs".into(), "4k".into())],
            )],
        };
        let opts = FioReport {
            given: Some(&given),
            ..FioReport::default()
        };
        let doc = serde_json::to_value(document(&record(), &opts)).unwrap();
        assert_eq!(doc["global options"], json!({"ioengine": "io_uring"}));
        let r = &doc["jobs"][0];
        assert_eq!(r["job options"], json!({"rw": "randread", "bs": "4k"}));
        assert_eq!(doc["jobs"][1]["job options"], json!({}));
        // 2.75 s from start to end, rounded up; the run is over.
        assert_eq!(
            (r["elapsed"].as_u64(), r["eta"].as_u64()),
            (Some(3), Some(0))
        );
        // Keys in fio's order (a Value would sort them).
        let typed = document(&record(), &opts);
        let keys =
            |t: &PercentJson| -> Vec<String> { t.0.iter().map(|(k, _)| k.clone()).collect() };
        assert_eq!(
            keys(&typed.jobs[0].iodepth_level),
            ["1", "2", "4", "8", "16", "32", ">=64"]
        );
        assert_eq!(
            keys(&typed.jobs[0].iodepth_submit),
            ["0", "4", "8", "16", "32", "64", ">=64"]
        );
        assert_eq!(keys(&typed.jobs[0].latency_ms).last().unwrap(), ">=2000");
        assert_eq!(r["iodepth_level"]["8"], 100.0, "job r runs at iodepth 8");
        assert_eq!(r["latency_depth"], 8);
        // Every I/O is in exactly one of the three latency tables.
        let sum: f64 = ["latency_ns", "latency_us", "latency_ms"]
            .iter()
            .flat_map(|t| r[t].as_object().unwrap().values())
            .map(|v| v.as_f64().unwrap())
            .sum();
        assert!((sum - 100.0).abs() < 1e-6, "{sum}");
        // Job r's reads: half at 80 us (50 to below 100 us), 49% at 120 us, 1% at 2 ms (2 to
        // below 4 ms).
        assert_eq!(r["latency_us"]["100"], 50.0);
        assert_eq!(r["latency_us"]["250"], 49.0);
        assert_eq!(r["latency_ms"]["4"], 1.0);
        assert_eq!((r["majf"].as_u64(), r["minf"].as_u64()), (Some(0), Some(0)));
        assert_eq!(r["latency_percentile"], 100.0);
        // Without json+, no bins; without a global section, no `global options`.
        assert!(r["read"]["clat_ns"].get("bins").is_none());
        let bare = serde_json::to_value(document(&record(), &FioReport::default())).unwrap();
        assert!(bare.get("global options").is_none());
    }

    #[test]
    fn the_depth_tables_and_page_faults_are_what_the_workers_counted() {
        let mut record = record();
        for (job, depths) in record.steps[0].jobs.iter_mut().zip([
            // r: at depth 4 to 7 a fifth of the time; submits of 1 and of 5 to 8.
            (
                [0, 0, 200, 800, 0, 0, 0],
                [0, 300, 100, 0, 0, 0, 0],
                [1, 2, 1, 0, 0, 0, 0],
            ),
            (
                [3, 0, 0, 0, 0, 0, 0],
                [0, 3, 0, 0, 0, 0, 0],
                [0, 3, 0, 0, 0, 0, 0],
            ),
        ]) {
            job.io_depths = Some(crate::record::IoDepthsRecord {
                level: depths.0,
                submit: depths.1,
                complete: depths.2,
            });
            (job.cpu.majf, job.cpu.minf) = (1, 40);
        }
        let doc = serde_json::to_value(document(&record, &FioReport::default())).unwrap();
        let r = &doc["jobs"][0];
        assert_eq!(
            r["iodepth_level"],
            json!({"1": 0.0, "2": 0.0, "4": 20.0, "8": 80.0, "16": 0.0, "32": 0.0, ">=64": 0.0})
        );
        assert_eq!(
            r["iodepth_submit"],
            json!({"0": 0.0, "4": 75.0, "8": 25.0, "16": 0.0, "32": 0.0, "64": 0.0, ">=64": 0.0})
        );
        assert_eq!(
            r["iodepth_complete"],
            json!({"0": 25.0, "4": 50.0, "8": 25.0, "16": 0.0, "32": 0.0, "64": 0.0, ">=64": 0.0})
        );
        assert_eq!(
            (r["majf"].as_u64(), r["minf"].as_u64()),
            (Some(1), Some(40))
        );
        // With group_reporting the group's counts add.
        let opts = FioReport {
            group_reporting: true,
            ..FioReport::default()
        };
        let doc = serde_json::to_value(document(&record, &opts)).unwrap();
        let g = &doc["jobs"][0];
        assert_eq!(g["minf"], 80);
        // 3 of the group's 1003 I/Os at depth 1 (0.3%), 200 at 4 to 7.
        let pct = |k: &str| g["iodepth_level"][k].as_f64().unwrap();
        assert!((pct("1") - 300.0 / 1003.0).abs() < 1e-9, "{g}");
        assert!((pct("4") - 20_000.0 / 1003.0).abs() < 1e-9, "{g}");
        // A record with counts has no note that they are assumed.
        let settings = doc["diskdash"]["settings"].as_str().unwrap();
        assert!(!settings.contains("predates"), "{settings}");
        let older =
            serde_json::to_value(document(&crate::stats::fixture::record(), &opts)).unwrap();
        assert!(
            older["diskdash"]["settings"]
                .as_str()
                .unwrap()
                .contains("this record predates the counted depth tables")
        );
    }

    #[test]
    fn after_a_fallback_the_job_options_and_depths_are_what_ran() {
        let given = crate::fio::GivenOptions {
            global: vec![("ioengine".into(), "io_uring".into())],
            jobs: vec![(
                "r".into(),
                vec![
                    ("rw".into(), "randread".into()),
                    ("iodepth".into(), "8".into()),
                ],
            )],
        };
        let opts = FioReport {
            given: Some(&given),
            ..FioReport::default()
        };
        let mut record = record();
        let why = "io_uring unavailable (EPERM: permission denied); fell back to psync";
        record.engine.used = "psync".into();
        record.engine.fallback = Some(why.into());
        let doc = serde_json::to_value(document(&record, &opts)).unwrap();
        assert_eq!(doc["global options"], json!({"ioengine": "psync"}));
        let r = &doc["jobs"][0];
        // Given options replaced in place, the others added: a job's own options win.
        assert_eq!(
            r["job options"],
            json!({"rw": "randread", "iodepth": "1", "ioengine": "psync"})
        );
        assert_eq!(
            doc["jobs"][1]["job options"],
            json!({"ioengine": "psync", "iodepth": "1"})
        );
        assert_eq!(r["iodepth_level"]["1"], 100.0, "{r}");
        assert_eq!(r["iodepth_level"]["8"], 0.0, "{r}");
        assert_eq!(r["latency_depth"], 1);
        assert_eq!(
            r["diskdash"]["fallback"],
            json!({"ioengine": "io_uring", "iodepth": 8, "ran_ioengine": "psync",
                "ran_iodepth": 1, "why": why})
        );
        // A run that did not fall back has no such key and keeps its options.
        let doc = serde_json::to_value(document(&crate::stats::fixture::record(), &opts)).unwrap();
        assert!(doc["jobs"][0]["diskdash"].get("fallback").is_none());
        assert_eq!(doc["global options"], json!({"ioengine": "io_uring"}));
    }

    #[test]
    fn json_plus_bins_are_fio_s_buckets_of_every_i_o() {
        let opts = FioReport {
            bins: true,
            ..FioReport::default()
        };
        let doc = serde_json::to_value(document(&record(), &opts)).unwrap();
        let read = &doc["jobs"][0]["read"];
        let bins = read["clat_ns"]["bins"].as_object().unwrap();
        let total: u64 = bins.values().map(|v| v.as_u64().unwrap()).sum();
        assert_eq!(total, read["total_ios"].as_u64().unwrap());
        for key in bins.keys() {
            let ns: u64 = key.parse().unwrap();
            assert_eq!(
                crate::stats::plat::plat_value(crate::stats::plat::plat_index(ns)),
                ns,
                "{key} is a bucket's value"
            );
        }
        assert!(read["lat_ns"].get("bins").is_none(), "clat_ns only, as fio");
        assert!(
            doc["jobs"][0]["write"]["clat_ns"].get("bins").is_none(),
            "no I/O, no bins"
        );
    }

    #[test]
    fn timestamps_read_back() {
        assert_eq!(unix_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(unix_ms("2000-03-01T00:00:01.5Z"), Some(951_868_801_500));
        assert_eq!(ctime(951_868_801), "Wed Mar  1 00:00:01 2000");
        assert_eq!(unix_ms("garbage"), None);
    }
}
