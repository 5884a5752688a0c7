//! fio-shaped output of a run record (`diskdash fio`): the text a fio user scans for
//! ([`text`]) and the JSON a script reading fio's `--output-format=json` looks into ([`json`]).
//!
//! Both are pure functions of the record. This module owns what they share: the reported
//! blocks (one per job, or one per reporting group with `group_reporting`, jobs merged),
//! fio's run-status groups and the disk totals. Quantities are fio's (see fio's `stat.c`:
//! a group's bandwidth is its bytes over its longest job, percentiles come from the merged
//! histogram, never from averaged percentiles); wording and layout are ours.

mod json;
pub(crate) mod plat;
mod terse;
mod text;

pub use json::{DirectionJson, FIO_LAYOUT_VERSION, FioJson, JobJson, PercentJson};

use crate::fio::GivenOptions;
use crate::record::{
    DirectionRecord, HistogramRecord, LatencyRecord, RunRecord, RunStatus, StepJobRecord,
};
use crate::stats::{
    FINE_SUB_BUCKET_BITS, FIO_PERCENTILES, LatencyBucket, bucket_percentile_ns, coarsen,
    merge_buckets,
};

/// How to report, fio's options of the same names.
#[derive(Debug, Clone, Copy, Default)]
pub struct FioReport<'a> {
    /// One block per reporting group, its jobs merged, instead of one per job.
    pub group_reporting: bool,
    /// fio's `percentile_list`, in percent; `None`: fio's default list.
    pub percentiles: Option<&'a [f64]>,
    /// `json+`: each completion latency with its `bins` in fio's histogram layout.
    pub bins: bool,
    /// The options as given, for fio's `global options` and `job options`.
    pub given: Option<&'a GivenOptions>,
}

impl FioReport<'_> {
    fn percentile_list(&self) -> &[f64] {
        self.percentiles.unwrap_or(&FIO_PERCENTILES)
    }
}

/// The headless text of `diskdash fio`: job (or group) blocks, then each run-status group,
/// then the disks.
#[must_use]
pub fn text(record: &RunRecord, opts: &FioReport<'_>) -> String {
    crate::text::escape_layout(&text::render(record, opts)).into_owned()
}

/// fio's terse (`--minimal`) lines, version 3.
#[must_use]
pub fn terse(record: &RunRecord, opts: &FioReport<'_>) -> String {
    terse::render(record, opts)
}

/// The `--output-format=json` document of `diskdash fio`.
#[must_use]
pub fn json(record: &RunRecord, opts: &FioReport<'_>) -> FioJson {
    json::document(record, opts)
}

/// One reported block: a job, or the jobs of one group merged (`group_reporting`).
struct Block<'r> {
    /// fio names a merged group after its first job.
    name: &'r str,
    group: u32,
    /// Workers reported (`numjobs` summed over the merged jobs): fio's `jobs=`.
    workers: u32,
    jobs: Vec<&'r StepJobRecord>,
    /// One worker of a job of several (fio's job clone): the step's series are not its own;
    /// its own intervals are `clone_intervals`.
    clone: bool,
    clone_intervals: &'r [crate::record::CloneIntervalRecord],
    /// A clone's own file, where the job's target is clone 0's only.
    clone_file: Option<&'r str>,
    /// Longest measured time of the merged jobs, ns.
    elapsed_ns: u64,
    /// Longest read-back of the merged jobs (a verifying write job's verify phase, after
    /// the measured window), ns; 0 without one. fio's `job_runtime` counts both phases.
    readback_ns: u64,
    read: Direction,
    write: Direction,
    /// Discards (`trim`, `randtrim`, `trimwrite`).
    trim: Direction,
    sync_ios: u64,
    sync_lat: Latency,
    usr_cpu: f64,
    sys_cpu: f64,
    ctx: u64,
    /// Page faults of the block's workers, summed (fio's `majf`, `minf`).
    majf: u64,
    minf: u64,
    /// fio's `pid=`: the (first) worker's thread id; none in an older record.
    pid: Option<u32>,
    /// The depth tables the workers counted, summed; none in an older record.
    depths: Option<crate::record::IoDepthsRecord>,
}

impl Block<'_> {
    /// fio's `err`: the errno of the first failed job; 1 when a job failed without one, since
    /// fio has no "unknown" and a script tests for non-zero.
    /// A job that went on past its errors (`continue_on_error`) reports the first of them,
    /// as fio.
    fn error(&self) -> i32 {
        let continued = || self.continued().map_or(0, |c| c.first_errno);
        self.jobs
            .iter()
            .find_map(|job| job.error.as_ref())
            .map_or_else(continued, |error| error.errno.unwrap_or(1))
    }

    /// The failed I/Os the merged jobs went on past, when any has `continue_on_error`.
    fn continued(&self) -> Option<crate::record::ContinuedErrorsRecord> {
        self.jobs
            .iter()
            .filter_map(|job| job.continued)
            .reduce(|a, b| crate::record::ContinuedErrorsRecord {
                total: a.total + b.total,
                first_errno: if a.first_errno != 0 {
                    a.first_errno
                } else {
                    b.first_errno
                },
                read: a.read + b.read,
                write: a.write + b.write,
                trim: a.trim + b.trim,
            })
    }

    /// The worst status of the merged jobs.
    fn status(&self) -> RunStatus {
        let rank = |s: RunStatus| match s {
            RunStatus::Completed => 0,
            RunStatus::Stopped => 1,
            RunStatus::Interrupted => 2,
            RunStatus::Failed => 3,
        };
        self.jobs
            .iter()
            .map(|job| job.status)
            .max_by_key(|&s| rank(s))
            .unwrap_or(RunStatus::Completed)
    }
}

/// One direction of a block, fio's quantities.
#[derive(Debug, Clone, Default)]
struct Direction {
    io_bytes: u64,
    bw_bytes: u64,
    iops: f64,
    /// ms; 0 without I/O in this direction, as fio.
    runtime_ms: u64,
    total_ios: u64,
    /// fio's lat: submit to completion.
    lat: Latency,
    /// fio's slat and clat where the engine timed its submit call apart (io_uring, libaio,
    /// null); `None` for a synchronous engine, whose clat is `lat`.
    slat: Option<Latency>,
    clat: Option<Latency>,
}

impl Direction {
    fn of(dir: &DirectionRecord) -> Self {
        Self {
            io_bytes: dir.io_bytes,
            bw_bytes: dir.bw_bytes,
            iops: dir.iops,
            runtime_ms: if dir.total_ios > 0 { dir.runtime } else { 0 },
            total_ios: dir.total_ios,
            lat: Latency::of(&dir.lat_ns),
            slat: dir.slat_ns.as_ref().map(Latency::of),
            clat: dir.clat_ns.as_ref().map(Latency::of),
        }
    }

    /// fio's clat: the split's, else (a synchronous engine) the whole latency.
    fn clat(&self) -> &Latency {
        self.clat.as_ref().unwrap_or(&self.lat)
    }

    /// With the failed I/Os the job went on past (`continue_on_error`): fio counts them in
    /// `total_ios`, not in the bytes or the rates.
    fn failed(mut self, ios: u64) -> Self {
        self.total_ios += ios;
        self
    }

    /// `dirs`, each with its job's measured time, merged over the longest of the direction's
    /// own times (as fio's group rates): the job's time, or the direction's `runtime_ns`
    /// where it has one (a verifying write job's read: its read-back).
    fn merged<'d>(dirs: impl Iterator<Item = (&'d DirectionRecord, u64)>) -> Self {
        let mut out = Self::default();
        let mut elapsed_ns = 0;
        // The split only where every part with I/O has it.
        let mut split = true;
        for (dir, job_elapsed_ns) in dirs {
            elapsed_ns = dir.runtime_ns.unwrap_or(job_elapsed_ns).max(elapsed_ns);
            out.io_bytes += dir.io_bytes;
            out.total_ios += dir.total_ios;
            out.lat.add(&Latency::of(&dir.lat_ns));
            match (&dir.slat_ns, &dir.clat_ns) {
                (Some(slat), Some(clat)) => {
                    out.slat
                        .get_or_insert_with(Latency::default)
                        .add(&Latency::of(slat));
                    out.clat
                        .get_or_insert_with(Latency::default)
                        .add(&Latency::of(clat));
                }
                _ => split &= dir.total_ios == 0,
            }
        }
        if !split {
            out.slat = None;
            out.clat = None;
        }
        let seconds = elapsed_ns as f64 / 1e9;
        if out.total_ios > 0 && seconds > 0.0 {
            out.bw_bytes = (out.io_bytes as f64 / seconds).round() as u64;
            out.iops = out.total_ios as f64 / seconds;
            out.runtime_ms = elapsed_ns / 1_000_000;
        }
        out
    }
}

/// Latency summary with the histogram it came from, so merged blocks get true percentiles.
#[derive(Debug, Clone, Default)]
struct Latency {
    min_ns: u64,
    max_ns: u64,
    mean_ns: f64,
    stddev_ns: f64,
    n: u64,
    /// Sparse fine buckets and their sub-bucket bits; `None` when a record had none.
    buckets: Option<(Vec<LatencyBucket>, u32)>,
    /// The record's own percentiles, for a record without a histogram.
    recorded: Vec<(f64, u64)>,
}

impl Latency {
    fn of(lat: &LatencyRecord) -> Self {
        Self {
            min_ns: lat.min,
            max_ns: lat.max,
            mean_ns: lat.mean,
            stddev_ns: lat.stddev,
            n: lat.n,
            buckets: lat.histogram.as_ref().map(histogram_buckets),
            recorded: lat.percentile.0.clone(),
        }
    }

    /// Folds `other` in: exact min/max/mean, population stddev from the pooled moments
    /// (E[x^2] - mean^2), histograms merged bucket by bucket.
    fn add(&mut self, other: &Self) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = other.clone();
            return;
        }
        let (n_a, n_b) = (self.n as f64, other.n as f64);
        let n = n_a + n_b;
        let mean = (self.mean_ns * n_a + other.mean_ns * n_b) / n;
        let square = |lat: &Self| lat.stddev_ns.powi(2) + lat.mean_ns.powi(2);
        let variance = (square(self) * n_a + square(other) * n_b) / n - mean.powi(2);
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
        self.mean_ns = mean;
        self.stddev_ns = variance.max(0.0).sqrt();
        self.n += other.n;
        self.buckets = match (self.buckets.take(), &other.buckets) {
            (Some((mut a, bits_a)), Some((b, bits_b))) => {
                let bits = bits_a.min(*bits_b);
                if bits_a > bits {
                    a = coarsen(&a, bits);
                }
                merge_buckets(&mut a, &coarsen(b, bits));
                Some((a, bits))
            }
            _ => None,
        };
        // Percentiles of the parts say nothing about the whole.
        self.recorded.clear();
    }

    /// `(percent, ns)` for each of `list`: from the histogram, else those the record holds.
    /// A bucket's upper bound is kept within the recorded min and max, where the I/O it
    /// stands for was.
    fn percentiles(&self, list: &[f64]) -> Vec<(f64, u64)> {
        if self.n == 0 {
            return Vec::new();
        }
        match &self.buckets {
            Some((buckets, _)) => list
                .iter()
                .map(|&pct| {
                    let ns = bucket_percentile_ns(buckets, pct);
                    (pct, ns.min(self.max_ns).max(self.min_ns))
                })
                .collect(),
            None => list
                .iter()
                .filter_map(|&pct| {
                    self.recorded
                        .iter()
                        .find(|(p, _)| (p - pct).abs() < 1e-9)
                        .copied()
                })
                .collect(),
        }
    }
}

fn histogram_buckets(histogram: &HistogramRecord) -> (Vec<LatencyBucket>, u32) {
    (
        histogram.buckets().collect(),
        histogram.sub_bucket_bits.unwrap_or(FINE_SUB_BUCKET_BITS),
    )
}

/// Every job of the record, steps in order, each with its step's index.
fn all_jobs(record: &RunRecord) -> impl Iterator<Item = (u32, &StepJobRecord)> {
    record
        .steps
        .iter()
        .flat_map(|step| step.jobs.iter().map(move |job| (step.index, job)))
}

/// The jobs of `record` grouped by reporting group, groups in order of first appearance
/// (fio numbers groups globally, so steps in order give groups in order).
fn groups(record: &RunRecord) -> Vec<(u32, Vec<&StepJobRecord>)> {
    let mut out: Vec<(u32, Vec<&StepJobRecord>)> = Vec::new();
    for (_, job) in all_jobs(record) {
        match out.iter_mut().find(|(group, _)| *group == job.group) {
            Some((_, jobs)) => jobs.push(job),
            None => out.push((job.group, vec![job])),
        }
    }
    out
}

/// The blocks to report: one per job, or one per group with `group_reporting`.
fn blocks<'r>(record: &'r RunRecord, opts: &FioReport<'_>) -> Vec<Block<'r>> {
    if opts.group_reporting {
        groups(record)
            .into_iter()
            .map(|(group, jobs)| merged_block(group, jobs))
            .collect()
    } else {
        // Without group_reporting fio reports each clone of a `numjobs` job on its own.
        all_jobs(record)
            .flat_map(|(_, job)| {
                if job.clones.is_empty() {
                    vec![job_block(job)]
                } else {
                    job.clones.iter().map(|c| clone_block(job, c)).collect()
                }
            })
            .collect()
    }
}

fn clone_block<'r>(job: &'r StepJobRecord, clone: &'r crate::record::CloneRecord) -> Block<'r> {
    Block {
        name: &job.name,
        group: job.group,
        workers: 1,
        jobs: vec![job],
        clone: true,
        clone_intervals: &clone.intervals,
        clone_file: clone.file.as_deref(),
        elapsed_ns: clone.elapsed_ns,
        readback_ns: clone.read.runtime_ns.unwrap_or(0),
        read: Direction::of(&clone.read),
        write: Direction::of(&clone.write),
        trim: Direction::of(&clone.trim),
        sync_ios: clone.sync.total_ios,
        sync_lat: Latency::of(&clone.sync.lat_ns),
        usr_cpu: clone.cpu.usr_cpu,
        sys_cpu: clone.cpu.sys_cpu,
        ctx: clone.cpu.ctx,
        majf: clone.cpu.majf,
        minf: clone.cpu.minf,
        pid: clone.pid,
        depths: clone.io_depths,
    }
}

fn job_block(job: &StepJobRecord) -> Block<'_> {
    Block {
        name: &job.name,
        group: job.group,
        workers: job.job.numjobs,
        jobs: vec![job],
        clone: false,
        clone_intervals: &[],
        clone_file: None,
        elapsed_ns: job.elapsed_ns,
        readback_ns: job.read.runtime_ns.unwrap_or(0),
        read: Direction::of(&job.read).failed(job.continued.map_or(0, |c| c.read)),
        write: Direction::of(&job.write).failed(job.continued.map_or(0, |c| c.write)),
        trim: Direction::of(&job.trim).failed(job.continued.map_or(0, |c| c.trim)),
        sync_ios: job.sync.total_ios,
        sync_lat: Latency::of(&job.sync.lat_ns),
        usr_cpu: job.cpu.usr_cpu,
        sys_cpu: job.cpu.sys_cpu,
        ctx: job.cpu.ctx,
        majf: job.cpu.majf,
        minf: job.cpu.minf,
        pid: job.pid,
        depths: job.io_depths,
    }
}

/// `jobs` (at least one) merged as fio's `group_reporting`: counts add, rates over the
/// longest job, CPU as fio's (CPU time over the jobs' summed run time).
fn merged_block(group: u32, jobs: Vec<&StepJobRecord>) -> Block<'_> {
    let elapsed_ns = jobs.iter().map(|job| job.elapsed_ns).max().unwrap_or(0);
    let summed_ns: u64 = jobs.iter().map(|job| job.elapsed_ns).sum();
    let cpu_pct = |ns: u64| {
        if summed_ns > 0 {
            ns as f64 * 100.0 / summed_ns as f64
        } else {
            0.0
        }
    };
    let mut sync_lat = Latency::default();
    for job in &jobs {
        sync_lat.add(&Latency::of(&job.sync.lat_ns));
    }
    Block {
        name: jobs.first().map_or("", |job| job.name.as_str()),
        group,
        workers: jobs.iter().map(|job| job.job.numjobs).sum(),
        clone: false,
        clone_intervals: &[],
        clone_file: None,
        elapsed_ns,
        readback_ns: jobs
            .iter()
            .filter_map(|job| job.read.runtime_ns)
            .max()
            .unwrap_or(0),
        read: Direction::merged(jobs.iter().map(|job| (&job.read, job.elapsed_ns))).failed(
            jobs.iter()
                .filter_map(|job| job.continued)
                .map(|c| c.read)
                .sum(),
        ),
        write: Direction::merged(jobs.iter().map(|job| (&job.write, job.elapsed_ns))).failed(
            jobs.iter()
                .filter_map(|job| job.continued)
                .map(|c| c.write)
                .sum(),
        ),
        trim: Direction::merged(jobs.iter().map(|job| (&job.trim, job.elapsed_ns))).failed(
            jobs.iter()
                .filter_map(|job| job.continued)
                .map(|c| c.trim)
                .sum(),
        ),
        sync_ios: jobs.iter().map(|job| job.sync.total_ios).sum(),
        sync_lat,
        usr_cpu: cpu_pct(jobs.iter().map(|job| job.cpu.usr_ns).sum()),
        sys_cpu: cpu_pct(jobs.iter().map(|job| job.cpu.sys_ns).sum()),
        ctx: jobs.iter().map(|job| job.cpu.ctx).sum(),
        majf: jobs.iter().map(|job| job.cpu.majf).sum(),
        minf: jobs.iter().map(|job| job.cpu.minf).sum(),
        // fio's group takes the first job's pid.
        pid: jobs.first().and_then(|job| job.pid),
        // Every job's counts or none: a part would not be the group's distribution.
        depths: jobs
            .iter()
            .map(|job| job.io_depths)
            .collect::<Option<Vec<_>>>()
            .map(|all| {
                all.iter()
                    .fold(crate::record::IoDepthsRecord::default(), |sum, d| {
                        sum.plus(d)
                    })
            }),
        jobs,
    }
}

/// One direction of a run-status group (fio's `group_run_stats`).
#[derive(Debug, Clone, Default, PartialEq)]
struct GroupDirection {
    io_bytes: u64,
    /// The group's bytes over its longest job, bytes/s.
    agg_bw_bytes: u64,
    /// Slowest and fastest job, bytes/s.
    min_bw_bytes: u64,
    max_bw_bytes: u64,
    /// Shortest and longest job with I/O in this direction, ms.
    min_run_ms: u64,
    max_run_ms: u64,
}

impl GroupDirection {
    /// Over the jobs with I/O in this direction; `None` when none had any.
    fn of<'d>(dirs: impl Iterator<Item = (&'d DirectionRecord, u64)>) -> Option<Self> {
        let mut out: Option<Self> = None;
        let mut max_elapsed_ns = 0;
        for (dir, elapsed_ns) in dirs.filter(|(dir, _)| dir.total_ios > 0) {
            let g = out.get_or_insert(Self {
                min_bw_bytes: u64::MAX,
                min_run_ms: u64::MAX,
                ..Self::default()
            });
            g.io_bytes += dir.io_bytes;
            g.min_bw_bytes = g.min_bw_bytes.min(dir.bw_bytes);
            g.max_bw_bytes = g.max_bw_bytes.max(dir.bw_bytes);
            g.min_run_ms = g.min_run_ms.min(dir.runtime);
            g.max_run_ms = g.max_run_ms.max(dir.runtime);
            // A verifying write job's read: over its read-back, not the job's time.
            max_elapsed_ns = max_elapsed_ns.max(dir.runtime_ns.unwrap_or(elapsed_ns));
        }
        if let Some(g) = out.as_mut() {
            g.agg_bw_bytes = if max_elapsed_ns > 0 {
                (g.io_bytes as f64 * 1e9 / max_elapsed_ns as f64).round() as u64
            } else {
                0
            };
        }
        out
    }
}

/// A run-status group: its number and, per direction, its totals.
struct RunGroup {
    group: u32,
    read: Option<GroupDirection>,
    write: Option<GroupDirection>,
}

fn run_groups(record: &RunRecord) -> Vec<RunGroup> {
    groups(record)
        .into_iter()
        .map(|(group, jobs)| RunGroup {
            group,
            read: GroupDirection::of(jobs.iter().map(|job| (&job.read, job.elapsed_ns))),
            write: GroupDirection::of(jobs.iter().map(|job| (&job.write, job.elapsed_ns))),
        })
        .collect()
}

/// One disk's fio `disk_util` counters over the whole run: the steps' device windows added.
///
/// The record keeps each step's `iostat -x` rates and the exact I/O counts of its window
/// (the reconciliation), not the raw diskstats counters, so: `ios` are the window's counts;
/// merges are `rrqm/s` x the window's seconds; ticks are `r_await` x ios (ms); `in_queue` is
/// `aqu-sz` x the window (ms); `util` is `%util` averaged over the windows by their length.
/// The window's length is read back as ios / (r/s) (exact to the rates' rounding), else
/// the step's measured time. Counts are over the steps' measured windows, not fio's whole
/// process lifetime.
#[derive(Debug, Clone, Default, PartialEq)]
struct DiskTotals {
    name: String,
    read_ios: u64,
    write_ios: u64,
    read_merges: u64,
    write_merges: u64,
    read_ticks_ms: u64,
    write_ticks_ms: u64,
    in_queue_ms: u64,
    util_pct: f64,
    /// Summed windows, s (to weigh `util_pct`).
    window_s: f64,
}

fn disk_totals(record: &RunRecord) -> Vec<DiskTotals> {
    let mut out: Vec<DiskTotals> = Vec::new();
    let count = |v: f64| v.max(0.0).round() as u64;
    for step in &record.steps {
        for device in &step.devices {
            let row = &device.iostat;
            let rec = &device.reconciliation;
            let window_s = if row.reads_per_s > 0.0 {
                rec.device_read_ios as f64 / row.reads_per_s
            } else if row.writes_per_s > 0.0 {
                rec.device_write_ios as f64 / row.writes_per_s
            } else {
                step.elapsed_ns as f64 / 1e9
            };
            let i = match out.iter().position(|d| d.name == device.name) {
                Some(i) => i,
                None => {
                    out.push(DiskTotals {
                        name: device.name.clone(),
                        ..DiskTotals::default()
                    });
                    out.len() - 1
                }
            };
            let d = &mut out[i];
            d.read_ios += rec.device_read_ios;
            d.write_ios += rec.device_write_ios;
            d.read_merges += count(row.read_merges_per_s * window_s);
            d.write_merges += count(row.write_merges_per_s * window_s);
            d.read_ticks_ms += count(row.read_await_ms * rec.device_read_ios as f64);
            d.write_ticks_ms += count(row.write_await_ms * rec.device_write_ios as f64);
            d.in_queue_ms += count(row.queue_size * window_s * 1000.0);
            let total_s = d.window_s + window_s;
            if total_s > 0.0 {
                d.util_pct = (d.util_pct * d.window_s + row.util_pct * window_s) / total_s;
            }
            d.window_s = total_s;
        }
    }
    out
}

/// fio's percentile key and label precision: two decimals, more when the value needs them.
fn percent_label(pct: f64) -> String {
    for decimals in 2..6 {
        let text = format!("{pct:.decimals$}");
        if (text.parse::<f64>().unwrap_or(pct) - pct).abs() < 1e-9 {
            return text;
        }
    }
    format!("{pct:.6}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::fixture::{record, two_step_record};

    #[test]
    fn merged_moments_are_exact() {
        // {1, 3} and {5}: mean 3, population variance (4 + 0 + 4) / 3.
        let mut a = Latency {
            min_ns: 1,
            max_ns: 3,
            mean_ns: 2.0,
            stddev_ns: 1.0,
            n: 2,
            ..Latency::default()
        };
        a.add(&Latency {
            min_ns: 5,
            max_ns: 5,
            mean_ns: 5.0,
            stddev_ns: 0.0,
            n: 1,
            ..Latency::default()
        });
        assert_eq!((a.min_ns, a.max_ns, a.n), (1, 5, 3));
        assert!((a.mean_ns - 3.0).abs() < 1e-12);
        assert!((a.stddev_ns - (8.0f64 / 3.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn percentiles_stay_within_min_and_max() {
        let bucket = |ns| LatencyBucket {
            le_ns: crate::stats::fine_bucket_le_ns(ns, 7),
            count: 1,
        };
        let lat = Latency {
            min_ns: 1_000_100,
            max_ns: 2_000_000,
            n: 2,
            buckets: Some((vec![bucket(1_000_100), bucket(2_000_000)], 7)),
            ..Latency::default()
        };
        // The buckets end at 1_003_519 and 2_007_039 ns.
        assert_eq!(
            lat.percentiles(&[50.0, 100.0]),
            [(50.0, 1_003_519), (100.0, 2_000_000)]
        );
    }

    #[test]
    fn groups_keep_the_order_of_the_steps() {
        let record = two_step_record();
        let order: Vec<u32> = groups(&record).iter().map(|(g, _)| *g).collect();
        assert_eq!(order, [0, 1]);
        let names: Vec<&str> = blocks(&record, &FioReport::default())
            .iter()
            .map(|b| b.name)
            .collect();
        assert_eq!(names, ["r", "w", "seq"]);
    }

    #[test]
    fn a_read_back_s_reads_run_over_their_own_time_in_a_group() {
        let mut back = crate::stats::DirectionStats::new();
        for _ in 0..100 {
            back.record(1 << 20, 1_000);
        }
        let none = crate::stats::DirectionStats::new();
        // A 1 s write job whose read-back read 100 MiB in 100 ms.
        let verified = DirectionRecord::with_verify_reads(&none, 1_000_000_000, &back, 100_000_000);
        let alone = Direction::merged([(&verified, 1_000_000_000)].into_iter());
        assert_eq!((alone.runtime_ms, alone.bw_bytes), (100, 1000 << 20));
        let group = GroupDirection::of([(&verified, 1_000_000_000)].into_iter()).unwrap();
        assert_eq!(group.agg_bw_bytes, 1000 << 20);
        // Beside a 2 s read job of 100 MiB: the group's read over the longer, 2 s.
        let reader = DirectionRecord::from_stats(&back, 2_000_000_000);
        let both = [(&verified, 1_000_000_000), (&reader, 2_000_000_000)];
        let merged = Direction::merged(both.into_iter());
        assert_eq!((merged.runtime_ms, merged.bw_bytes), (2000, 100 << 20));
        let group = GroupDirection::of(both.into_iter()).unwrap();
        assert_eq!((group.min_run_ms, group.max_run_ms), (100, 2000));
    }

    #[test]
    fn a_group_runs_at_its_bytes_over_its_longest_job() {
        let groups = run_groups(&record());
        let read = groups[0].read.clone().unwrap();
        // 400 MiB (job r) + 100 MiB (job w's reads) over r's 2.0 s.
        assert_eq!(read.io_bytes, 500 << 20);
        assert_eq!(read.agg_bw_bytes, 250 << 20);
        assert_eq!((read.min_run_ms, read.max_run_ms), (1000, 2000));
        assert_eq!(
            (read.min_bw_bytes, read.max_bw_bytes),
            (100 << 20, 200 << 20)
        );
        assert!(groups[0].write.is_some());
    }

    #[test]
    fn disk_counts_come_from_the_window() {
        let disks = disk_totals(&record());
        assert_eq!(disks.len(), 1);
        let vda = &disks[0];
        assert_eq!((vda.read_ios, vda.write_ios), (120_000, 25_000));
        // r/s 60000 over 120000 reads: a 2 s window.
        assert!((vda.window_s - 2.0).abs() < 1e-9);
        assert_eq!((vda.read_merges, vda.write_merges), (20, 400));
        assert_eq!((vda.read_ticks_ms, vda.write_ticks_ms), (18_000, 12_500));
        assert_eq!(vda.in_queue_ms, 30_600);
        assert!((vda.util_pct - 98.5).abs() < 1e-9);
    }

    #[test]
    fn percent_labels_are_fio_s() {
        assert_eq!(percent_label(1.0), "1.00");
        assert_eq!(percent_label(99.95), "99.95");
        assert_eq!(percent_label(99.999), "99.999");
    }
}
