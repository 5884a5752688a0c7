//! Sweeps: workload options given as lists and ranges (`--bs 4k..1M --rw read,write`) become
//! the points of a plan, one step per point (and per loop), run on one target; the table and
//! the typed findings under it come from the record's steps afterwards.
//!
//! ```text
//!   --bs 4k..1M --rw read,write ──parse_axis──> Axis ──points──> [[("bs","4k"),("rw","read")], ...]
//!        (the order given; the last varies fastest)          │
//!   bench options ─> JobOptions ──(+ the point's options, validated)──> Plan of steps ──> Session
//!   record steps ──analysis::points::rows (loops picked)──> report::sweep::table (table,
//!        csv, markdown, json); analysis
//! ```

use std::path::PathBuf;
use std::time::Duration;

use crate::bench::options::{JobOption, Key, TABLE, cap_batching, validate};
use crate::bench::spec::{MachineLimits, RwMode};
use crate::error::usage;
use crate::plan::{Job, Plan, Step};
use crate::units::{format_duration, format_size_short, parse_size_bytes};

/// Plans longer than this, or of more steps than [`MAX_STEPS`], need `--yes`.
pub const MAX_TIME: Duration = Duration::from_secs(2 * 3600);
pub const MAX_STEPS: usize = 500;
/// The most steps a sweep may have even with `--yes`: the plan is built in memory (a step
/// holds its job and point) and recorded step by step, so a bound keeps both to tens of MiB.
/// 100 000 steps of the shortest point (1 s) run for more than a day.
pub const HARD_MAX_STEPS: u64 = 100_000;
/// The most values one range may expand to (2^40 bytes is 1 TiB: far beyond a block size).
const MAX_RANGE_VALUES: usize = 64;

/// An option a sweep may vary: a row of the option table that takes a list
/// ([`Row::sweep_list`](crate::bench::options::Row::sweep_list)), named as the row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dimension(Key);

impl Dimension {
    /// Every option a sweep varies, in the table's order.
    pub const ALL: [Self; 9] = swept_rows();

    /// The dimension of `key`, when a sweep varies it.
    #[must_use]
    pub fn of(key: Key) -> Option<Self> {
        key.row().sweep_list.map(|_| Self(key))
    }

    /// The option varied.
    #[must_use]
    pub const fn key(self) -> Key {
        self.0
    }

    /// The name in tables and records (`bench`'s flag without dashes).
    #[must_use]
    pub fn name(self) -> &'static str {
        let flag = self.flag();
        flag.strip_prefix("--").unwrap_or(flag)
    }

    /// The flag, for errors.
    #[must_use]
    pub fn flag(self) -> &'static str {
        self.0.flag()
    }

    /// Values as a sweep lists them, for errors (the row's example for help).
    fn example(self) -> &'static str {
        self.0.row().sweep_list.unwrap_or_default()
    }

    /// Whether `a..b` ranges apply (powers of two).
    fn ranges(self) -> Option<Range> {
        match self.0 {
            Key::Bs => Some(Range::Size),
            Key::IoDepth | Key::NumJobs => Some(Range::Count),
            _ => None,
        }
    }

    /// The options one value of this dimension sets: `randrw:75` sets `rw` and `rwmixread`,
    /// `yes` sets `direct=1`.
    #[must_use]
    pub fn options(self, value: &str) -> Vec<(Key, String)> {
        match self.0 {
            Key::Rw => match value.split_once(':') {
                Some((rw, pct)) => {
                    vec![(Key::Rw, rw.to_string()), (Key::RwMixRead, pct.to_string())]
                }
                None => vec![(Key::Rw, value.to_string())],
            },
            Key::Direct => vec![(
                Key::Direct,
                if matches!(value, "yes" | "1" | "true") {
                    "1"
                } else {
                    "0"
                }
                .to_string(),
            )],
            key => vec![(key, value.to_string())],
        }
    }

    /// Whether the option changes only what a write does: fsync, fdatasync, sync.
    #[must_use]
    pub fn writes_only(self) -> bool {
        matches!(self.0, Key::Fsync | Key::Fdatasync | Key::Sync)
    }

    /// The value as a number on a chart's x axis (bytes, a count), when it is one.
    #[must_use]
    pub fn x(self, value: &str) -> Option<f64> {
        match self.0 {
            Key::Bs => parse_size_bytes(value).map(|b| b as f64),
            Key::IoDepth | Key::NumJobs | Key::Fsync | Key::Fdatasync => value.parse().ok(),
            _ => None,
        }
    }
}

/// The rows of the option table a sweep takes ([`Dimension::ALL`]).
const fn swept_rows() -> [Dimension; 9] {
    let mut out = [Dimension(Key::Rw); 9];
    let (mut i, mut n) = (0, 0);
    while i < TABLE.len() {
        if TABLE[i].sweep_list.is_some() {
            out[n] = Dimension(TABLE[i].key);
            n += 1;
        }
        i += 1;
    }
    assert!(
        n == out.len(),
        "Dimension::ALL holds every row with a sweep list"
    );
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Range {
    Size,
    Count,
}

/// One swept option and its values, as written (ranges expanded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axis {
    pub dimension: Dimension,
    pub values: Vec<String>,
}

/// Parses `text` (`a,b,c`, `lo..hi`, or a mix) for `dimension`.
///
/// # Errors
/// A usage error naming the flag, the text and the fix: an empty value, a range upside down or
/// on an option without ranges, a value that is not one of the option's.
pub fn parse_axis(dimension: Dimension, text: &str) -> anyhow::Result<Axis> {
    let flag = dimension.flag();
    let mut values: Vec<String> = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(usage!(
                "{flag} {text:?} has an empty value; list values like {}",
                dimension.example()
            ));
        }
        if let Some((lo, hi)) = item.split_once("..") {
            let Some(kind) = dimension.ranges() else {
                return Err(usage!(
                    "{flag} {item:?}: {} takes no range; list the values, e.g. {}",
                    dimension.name(),
                    dimension.example()
                ));
            };
            values.extend(range(flag, item, lo, hi, kind)?);
        } else {
            check_value(dimension, flag, item)?;
            values.push(item.to_string());
        }
    }
    // Repeats once, first place kept (a set: a list of thousands is not quadratic).
    let mut known = std::collections::HashSet::with_capacity(values.len());
    let mut seen = Vec::with_capacity(values.len());
    for value in values {
        if known.insert(value.clone()) {
            seen.push(value);
        }
    }
    Ok(Axis {
        dimension,
        values: seen,
    })
}

/// The values of `lo..hi`: `lo`, `2 lo`, `4 lo`, ... up to `hi` (and `hi` itself when it is not
/// on that ladder).
fn range(flag: &str, item: &str, lo: &str, hi: &str, kind: Range) -> anyhow::Result<Vec<String>> {
    let parse = |text: &str| match kind {
        Range::Size => parse_size_bytes(text.trim()),
        Range::Count => text.trim().parse::<u64>().ok(),
    };
    let what = match kind {
        Range::Size => "sizes, e.g. 4k..1M",
        Range::Count => "whole numbers, e.g. 1..256",
    };
    let (Some(low), Some(high)) = (parse(lo), parse(hi)) else {
        return Err(usage!("{flag} {item:?} is not a range of {what}"));
    };
    if low == 0 || high == 0 {
        return Err(usage!(
            "{flag} {item:?} reaches zero; its ends must be 1 or more"
        ));
    }
    if low > high {
        return Err(usage!(
            "{flag} {item:?} runs downward; write it low to high: {}..{}",
            hi.trim(),
            lo.trim()
        ));
    }
    let label = |n: u64| match kind {
        Range::Size => format_size_short(n),
        Range::Count => n.to_string(),
    };
    let mut out = Vec::new();
    let mut n = low;
    while n <= high {
        out.push(label(n));
        if out.len() > MAX_RANGE_VALUES {
            return Err(usage!(
                "{flag} {item:?} has more than {MAX_RANGE_VALUES} values; narrow it"
            ));
        }
        match n.checked_mul(2) {
            Some(next) => n = next,
            None => break,
        }
    }
    if out.last() != Some(&label(high)) {
        out.push(label(high));
    }
    Ok(out)
}

fn check_value(dimension: Dimension, flag: &str, value: &str) -> anyhow::Result<()> {
    let ok = match dimension.key() {
        Key::Rw => {
            let (rw, pct) = value
                .split_once(':')
                .map_or((value, None), |(r, p)| (r, Some(p)));
            RwMode::parse(rw).is_some()
                && pct.is_none_or(|p| p.parse::<u8>().is_ok_and(|p| p <= 100))
        }
        Key::Direct => matches!(value, "yes" | "no" | "1" | "0" | "true" | "false"),
        Key::Sync => matches!(value, "none" | "0" | "dsync" | "sync" | "1"),
        // The validator checks the rest, naming the point.
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(usage!(
            "{flag} {value:?} is not a value of {}; use e.g. {}",
            dimension.name(),
            dimension.example()
        ))
    }
}

/// `2h9m36s`, `43m12s`, `28s`; under a minute with a fraction, `1500ms`.
#[must_use]
pub fn human(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs < 60 && duration.subsec_millis() != 0 {
        return format_duration(duration);
    }
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let mut out = String::new();
    if h > 0 {
        out += &format!("{h}h");
    }
    if m > 0 {
        out += &format!("{m}m");
    }
    if s > 0 || out.is_empty() {
        out += &format!("{s}s");
    }
    out
}

/// A point: each swept option's value, in the axes' order.
pub type Point = Vec<(String, String)>;

/// Every combination, in the order of `axes`, the last varying fastest.
#[must_use]
pub fn points(axes: &[Axis]) -> Vec<Point> {
    let mut out: Vec<Point> = vec![Vec::new()];
    for axis in axes {
        out = out
            .into_iter()
            .flat_map(|point| {
                axis.values.iter().map(move |value| {
                    let mut next = point.clone();
                    next.push((axis.dimension.name().to_string(), value.clone()));
                    next
                })
            })
            .collect();
    }
    out
}

pub(crate) use crate::plan::describe;

/// Where step `index` of a plan whose steps carry `points` stands: its point among the
/// distinct points (1-based, and how many) and its loop of that point (1-based, and how many
/// loops the point has). A memory baseline's point is a point of its own.
#[must_use]
pub fn point_and_loop(points: &[Vec<(String, String)>], index: usize) -> [(usize, usize); 2] {
    let mut distinct: Vec<&[(String, String)]> = Vec::new();
    for point in points {
        if !distinct.contains(&point.as_slice()) {
            distinct.push(point);
        }
    }
    let Some(this) = points.get(index) else {
        return [(index + 1, points.len()), (1, 1)];
    };
    let at = distinct
        .iter()
        .position(|p| *p == this.as_slice())
        .unwrap_or(0);
    let same = |p: &&Vec<(String, String)>| *p == this;
    let loop_at = points[..=index].iter().filter(same).count();
    let loops = points.iter().filter(same).count();
    [(at + 1, distinct.len()), (loop_at, loops)]
}

/// A sweep, ready to run.
#[derive(Debug, Clone)]
pub struct Sweep {
    pub plan: Plan,
    pub axes: Vec<Axis>,
    pub points: Vec<Point>,
    pub loops: u32,
    /// Measured and warm-up time of one step (a size-based point's is its cap).
    pub per_step: Duration,
    /// Whether the points move a size (dd-style) rather than run for a time.
    pub size_based: bool,
}

impl Sweep {
    /// `12 points x 2 loops x 12s = 4m48s`, or for size-based points the count only.
    #[must_use]
    pub fn estimate(&self) -> String {
        let points = self.points.len() as u64;
        let baseline = self.plan.steps.len() as u64 > points * u64::from(self.loops);
        estimate_text(
            points,
            self.loops,
            baseline,
            self.per_step,
            self.size_based,
            self.total_time(),
        )
    }

    /// The time the steps take (without the preparation of the working set).
    #[must_use]
    pub fn total_time(&self) -> Duration {
        self.per_step
            .saturating_mul(u32::try_from(self.plan.steps.len()).unwrap_or(u32::MAX))
    }
}

/// The number of points of `axes`: the product of their value counts, saturating (axes of
/// thousands of values each must not wrap to a small count).
#[must_use]
pub fn point_count(axes: &[Axis]) -> u64 {
    axes.iter()
        .fold(1u64, |n, axis| n.saturating_mul(axis.values.len() as u64))
}

/// The estimate's words from the counts: `12 points x 2 loops x 12s = 4m48s`; `size_based`
/// points say their count only.
fn estimate_text(
    points: u64,
    loops: u32,
    baseline: bool,
    per_step: Duration,
    size_based: bool,
    total: Duration,
) -> String {
    let loops = if loops > 1 {
        format!(" x {loops} loops")
    } else {
        String::new()
    };
    let mut s = if points == 1 { "" } else { "s" }.to_string();
    if baseline {
        s += if points == 1 {
            " and its memory baseline"
        } else {
            " and their memory baseline"
        };
    }
    if size_based {
        return format!("{points} point{s}{loops}, each until it has moved its bytes");
    }
    format!(
        "{points} point{s}{loops} x {} = {}",
        human(per_step),
        human(total)
    )
}

/// A point's options with the sweep's batching values capped to its depth ([`cap_batching`])
/// when the sweep varies the depth: one value given for depths 1 to 32 cannot fit them all.
/// Without a depth axis the value contradicts the one depth, and `validate` refuses it as
/// `bench` does.
fn point_batching(options: Vec<JobOption>, axes: &[Axis]) -> (Vec<JobOption>, Option<String>) {
    if axes.iter().any(|axis| axis.dimension.key() == Key::IoDepth) {
        cap_batching(&options)
    } else {
        (options, None)
    }
}

/// The options of one point: `base`, then each axis's value.
fn point_options(base: &[JobOption], axes: &[Axis], point: &[(String, String)]) -> Vec<JobOption> {
    let mut options = base.to_vec();
    for (axis, (_, value)) in axes.iter().zip(point) {
        for (key, v) in axis.dimension.options(value) {
            options.push(JobOption::flag(key, v));
        }
    }
    options
}

/// Refuses a plan of `steps` steps (`points` x `loops`, doubled by a memory baseline) from
/// the counts alone, before any step is built: over [`HARD_MAX_STEPS`] always, over
/// [`MAX_STEPS`] or [`MAX_TIME`] without `yes`. `first` is the first point's job (every point
/// has the same runtime and ramp: neither is swept).
fn check_size(
    points: u64,
    loops: u32,
    baseline: bool,
    first: &crate::bench::spec::JobSpec,
    yes: bool,
) -> anyhow::Result<()> {
    let steps = points
        .saturating_mul(u64::from(loops))
        .saturating_mul(if baseline { 2 } else { 1 });
    let per_step = first.runtime + first.ramp;
    let size_based = first.io_size_bytes.is_some();
    let total = per_step.saturating_mul(u32::try_from(steps).unwrap_or(u32::MAX));
    let estimate = estimate_text(points, loops, baseline, per_step, size_based, total);
    if steps > HARD_MAX_STEPS {
        return Err(usage!(
            "{estimate} makes {steps} steps, more than the {HARD_MAX_STEPS} a sweep may have \
             even with --yes; sweep fewer values (or fewer --loops) and run the rest as another \
             sweep"
        ));
    }
    let too_long = !size_based && total > MAX_TIME;
    if !yes && (too_long || steps > MAX_STEPS as u64) {
        return Err(usage!(
            "{estimate} is more than {} or {MAX_STEPS} steps; pass --yes to run it, or sweep \
             fewer values",
            human(MAX_TIME)
        ));
    }
    Ok(())
}

/// Builds the sweep: `base` (the options not swept) and each point's options through the one
/// validator; each point runs `loops` times in a row.
///
/// # Errors
/// A usage error naming the point whose options are invalid, or a plan over the limits
/// without `yes`, with the estimate.
pub fn build(
    base: &[JobOption],
    axes: Vec<Axis>,
    loops: u32,
    target: Option<PathBuf>,
    machine: &MachineLimits,
    yes: bool,
) -> anyhow::Result<Sweep> {
    // The size first, from the counts: a plan of millions of points is refused before one
    // of them is built. The first point's job gives the time of a step.
    let first: Point = axes
        .iter()
        .map(|axis| (axis.dimension.name().to_string(), axis.values[0].clone()))
        .collect();
    let count = point_count(&axes);
    let (first_options, _) = point_batching(point_options(base, &axes, &first), &axes);
    let first_spec = validate(&first_options, machine).map_err(|err| {
        if count > 1 {
            usage!("point {}: {err}", describe(&first))
        } else {
            err
        }
    })?;
    check_size(count, loops, false, &first_spec, yes)?;
    let all = points(&axes);
    let mut points = Vec::with_capacity(all.len());
    let mut steps = Vec::with_capacity(all.len() * loops as usize);
    let mut per_step = Duration::ZERO;
    let mut size_based = false;
    for point in all {
        // One batching value for the whole sweep: capped to a shallower point's depth there,
        // and said in the point's notes.
        let (options, note) = point_batching(point_options(base, &axes, &point), &axes);
        let mut notes: Vec<String> = note.into_iter().collect();
        let spec = validate(&options, machine).map_err(|err| {
            if count > 1 {
                usage!("point {}: {err}", describe(&point))
            } else {
                err
            }
        })?;
        if !spec.writes() {
            // A read-only point runs once over the options that change only writes: the
            // values after the first would run it again unchanged.
            let unchanged = write_only_axes(&axes);
            if unchanged
                .clone()
                .any(|(i, axis)| point[i].1 != axis.values[0])
            {
                continue;
            }
            notes.extend(unchanged.map(|(_, axis)| {
                format!(
                    "{} applies only to writes: this read point ran once, at {}={}",
                    axis.dimension.name(),
                    axis.dimension.name(),
                    axis.values[0]
                )
            }));
        }
        per_step = spec.runtime + spec.ramp;
        size_based = spec.io_size_bytes.is_some();
        let job = Job::bench("sweep", spec, target.clone());
        for _ in 0..loops {
            steps.push(Step {
                jobs: vec![job.clone()],
                point: point.clone(),
                notes: notes.clone(),
            });
        }
        points.push(point);
    }
    Ok(Sweep {
        plan: Plan { steps },
        axes,
        points,
        loops,
        per_step,
        size_based,
    })
}

/// The axes (with their index in a point) of options that change only what a write does
/// (fsync, fdatasync, O_DSYNC/O_SYNC): a point that only reads runs the same at each value.
fn write_only_axes(axes: &[Axis]) -> impl Iterator<Item = (usize, &Axis)> + Clone {
    axes.iter()
        .enumerate()
        .filter(|(_, axis)| axis.dimension.writes_only())
}

/// Where `--baseline memory` runs unless `--baseline-dir` says otherwise: tmpfs, memory.
pub const MEMORY_DIR: &str = "/dev/shm";

/// ramfs's statfs magic (linux/magic.h; nix names tmpfs's only).
const RAMFS_MAGIC: nix::sys::statfs::FsType = nix::sys::statfs::FsType(0x8584_58f6);

/// The directory the memory baseline runs in, checked: it exists, is memory (tmpfs or ramfs:
/// anything else would baseline against a disk) and holds `need` bytes. `flag` is how the user
/// named it (`None`: the default, [`MEMORY_DIR`]).
///
/// # Errors
/// A usage error naming the directory, where it came from, what is wrong and the fix.
pub fn check_memory_dir(dir: &std::path::Path, flag: bool, need: u64) -> anyhow::Result<()> {
    let shown = dir.display();
    let named = if flag {
        format!("--baseline-dir {shown}")
    } else {
        format!("--baseline memory runs on {shown} (the default; --baseline-dir changes it)")
    };
    let fix = "give --baseline-dir a directory on tmpfs, e.g. /dev/shm, or mount one: mount -t \
               tmpfs tmpfs DIR";
    if !dir.is_dir() {
        let what = if dir.exists() {
            "is not a directory"
        } else {
            "does not exist"
        };
        return Err(usage!("{named}: {what}; {fix}"));
    }
    let fs = nix::sys::statfs::statfs(dir)
        .map_err(|err| usage!("{named}: cannot read its file system ({err}); {fix}"))?;
    let magic = fs.filesystem_type();
    let ramfs = magic == RAMFS_MAGIC;
    if magic != nix::sys::statfs::TMPFS_MAGIC && !ramfs {
        return Err(usage!(
            "{named}: not memory (file system magic {:#x}, not tmpfs or ramfs): a baseline \
             there measures a disk; {fix}",
            magic.0
        ));
    }
    if ramfs {
        // ramfs has no size and reports no free space: it grows until memory runs out.
        return Ok(());
    }
    let stat = nix::sys::statvfs::statvfs(dir)
        .map_err(|err| usage!("{named}: cannot read its free space ({err}); {fix}"))?;
    let free = stat.blocks_available() * stat.fragment_size();
    if free < need {
        let need_text = crate::units::format_bytes(need);
        return Err(usage!(
            "{named}: {} free, the working set needs {need_text}; it must have at least \
             {need_text} free: lower --size, free space there, or remount it larger (mount -o \
             remount,size=SIZE {shown})",
            crate::units::format_bytes(free),
        ));
    }
    Ok(())
}

/// Appends the memory baseline: every point again (each loop too) on a scratch file in `dir`
/// ([`MEMORY_DIR`] unless `--baseline-dir` named it: `flag`), buffered (tmpfs has no
/// O_DIRECT), its point marked `baseline=memory`.
///
/// # Errors
/// A usage error when `dir` is missing, not tmpfs or ramfs, or too small for the working
/// set (see [`check_memory_dir`]).
pub fn add_memory_baseline(
    sweep: &mut Sweep,
    base: &[JobOption],
    machine: &MachineLimits,
    dir: &std::path::Path,
    flag: bool,
) -> anyhow::Result<()> {
    let need = sweep
        .plan
        .steps
        .iter()
        .map(|s| s.jobs[0].spec.size_bytes)
        .max()
        .unwrap_or(0);
    // The baseline doubles the steps: within the hard cap still (the --yes question was
    // asked of the disk's steps).
    if let Some(first) = sweep.plan.steps.first() {
        check_size(
            sweep.points.len() as u64,
            sweep.loops,
            true,
            &first.jobs[0].spec,
            true,
        )?;
    }
    check_memory_dir(dir, flag, need)?;
    let mut steps = Vec::new();
    for point in &sweep.points {
        let (mut options, note) =
            point_batching(point_options(base, &sweep.axes, point), &sweep.axes);
        let notes: Vec<String> = note.into_iter().collect();
        options.push(JobOption::flag(Key::Direct, "0"));
        let spec = validate(&options, machine)?;
        let job = Job::bench("memory", spec, Some(dir.to_path_buf()));
        let mut marked = point.clone();
        marked.push(("baseline".to_string(), "memory".to_string()));
        for _ in 0..sweep.loops {
            steps.push(Step {
                jobs: vec![job.clone()],
                point: marked.clone(),
                notes: notes.clone(),
            });
        }
    }
    sweep.plan.steps.extend(steps);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dimension of a key a sweep varies.
    fn dim(key: Key) -> Dimension {
        Dimension::of(key).expect("a swept key")
    }

    /// The dimensions are the rows with a sweep list, named as their flags.
    #[test]
    fn the_dimensions_are_the_swept_rows() {
        let names: Vec<_> = Dimension::ALL.iter().map(|d| d.name()).collect();
        assert_eq!(
            names,
            [
                "rw",
                "bs",
                "iodepth",
                "numjobs",
                "ioengine",
                "direct",
                "fsync",
                "fdatasync",
                "sync"
            ]
        );
        for key in Key::ALL {
            assert_eq!(
                Dimension::of(key).is_some(),
                Dimension::ALL.iter().any(|d| d.key() == key)
            );
        }
    }

    #[test]
    fn a_steps_point_and_loop_count_distinct_points_and_their_repeats() {
        let p = |bs: &str| vec![("bs".to_string(), bs.to_string())];
        let plan = [p("4k"), p("4k"), p("8k"), p("8k")];
        assert_eq!(point_and_loop(&plan, 0), [(1, 2), (1, 2)]);
        assert_eq!(point_and_loop(&plan, 1), [(1, 2), (2, 2)]);
        assert_eq!(point_and_loop(&plan, 3), [(2, 2), (2, 2)]);
        let mut baseline = p("4k");
        baseline.push(("baseline".into(), "memory".into()));
        let plan = [p("4k"), baseline];
        assert_eq!(point_and_loop(&plan, 1), [(2, 2), (1, 1)]);
        assert_eq!(point_and_loop(&plan, 5), [(6, 2), (1, 1)]);
    }

    #[test]
    fn sync_modes_and_fdatasync_are_dimensions() {
        assert_eq!(
            axis(dim(Key::Sync), "none,dsync,sync"),
            ["none", "dsync", "sync"]
        );
        assert_eq!(
            dim(Key::Sync).options("dsync"),
            [(Key::Sync, "dsync".to_string())]
        );
        assert_eq!(
            err(dim(Key::Sync), "dsync,osync"),
            "--sync \"osync\" is not a value of sync; use e.g. none,dsync,sync"
        );
        assert_eq!(axis(dim(Key::Fdatasync), "0,1,8"), ["0", "1", "8"]);
        assert_eq!(dim(Key::Fdatasync).x("8"), Some(8.0));
        assert_eq!(
            dim(Key::Fdatasync).options("1"),
            [(Key::Fdatasync, "1".to_string())]
        );
    }

    fn axis(d: Dimension, text: &str) -> Vec<String> {
        parse_axis(d, text).unwrap().values
    }

    fn err(d: Dimension, text: &str) -> String {
        parse_axis(d, text).unwrap_err().to_string()
    }

    #[test]
    fn lists_and_ranges_expand_in_order() {
        assert_eq!(axis(dim(Key::Bs), "1M,2M,4M"), ["1M", "2M", "4M"]);
        assert_eq!(axis(dim(Key::Bs), "4k..32k"), ["4k", "8k", "16k", "32k"]);
        assert_eq!(axis(dim(Key::IoDepth), "1..256").len(), 9);
        // An end off the ladder is kept.
        assert_eq!(axis(dim(Key::NumJobs), "1..6"), ["1", "2", "4", "6"]);
        assert_eq!(axis(dim(Key::NumJobs), "1,2,4,8,16,32,64,120").len(), 8);
        assert_eq!(
            axis(dim(Key::Rw), "randread, randrw:75"),
            ["randread", "randrw:75"]
        );
        // Repeats once.
        assert_eq!(axis(dim(Key::IoDepth), "1,1..2"), ["1", "2"]);
    }

    #[test]
    fn bad_lists_say_what_and_how() {
        assert_eq!(
            err(dim(Key::Bs), ","),
            "--bs \",\" has an empty value; list values like 4k,64k,1M or 4k..1M"
        );
        assert_eq!(
            err(dim(Key::Bs), "1M..4k"),
            "--bs \"1M..4k\" runs downward; write it low to high: 4k..1M"
        );
        assert_eq!(
            err(dim(Key::Rw), "read..write"),
            "--rw \"read..write\": rw takes no range; list the values, e.g. read,write,randrw:75"
        );
        assert_eq!(
            err(dim(Key::Rw), "randrw:101"),
            "--rw \"randrw:101\" is not a value of rw; use e.g. read,write,randrw:75"
        );
        assert_eq!(
            err(dim(Key::IoDepth), "0..8"),
            "--iodepth \"0..8\" reaches zero; its ends must be 1 or more"
        );
        assert_eq!(
            err(dim(Key::IoDepth), "1..0"),
            "--iodepth \"1..0\" reaches zero; its ends must be 1 or more"
        );
        assert!(err(dim(Key::Bs), "1..1x").starts_with("--bs \"1..1x\" is not a range of sizes"));
    }

    #[test]
    fn points_are_the_product_the_last_fastest() {
        let axes = [
            parse_axis(dim(Key::Rw), "write,read").unwrap(),
            parse_axis(dim(Key::Bs), "1M,2M").unwrap(),
        ];
        let points: Vec<String> = points(&axes).iter().map(|p| describe(p)).collect();
        assert_eq!(
            points,
            [
                "rw=write bs=1M",
                "rw=write bs=2M",
                "rw=read bs=1M",
                "rw=read bs=2M"
            ]
        );
        assert_eq!(points_len(&[]), 1);
    }

    fn points_len(axes: &[Axis]) -> usize {
        points(axes).len()
    }

    fn machine() -> MachineLimits {
        MachineLimits {
            available_cpus: vec![0, 1],
            memory_bytes: 8 << 30,
        }
    }

    #[test]
    fn a_sweep_is_a_plan_of_a_step_per_point_and_loop() {
        let axes = vec![
            parse_axis(dim(Key::Rw), "randrw:75").unwrap(),
            parse_axis(dim(Key::Bs), "4k,16k").unwrap(),
        ];
        let base = [
            JobOption::flag(Key::Runtime, "3s"),
            JobOption::flag(Key::Ramp, "1s"),
        ];
        let sweep = build(&base, axes, 2, None, &machine(), false).unwrap();
        assert_eq!(sweep.plan.steps.len(), 4);
        let first = &sweep.plan.steps[0];
        assert_eq!(first.jobs[0].spec.rwmixread_pct, 75);
        assert_eq!(first.jobs[0].spec.block_size_bytes, 4096);
        assert_eq!(sweep.plan.steps[2].jobs[0].spec.block_size_bytes, 16384);
        assert_eq!(sweep.plan.steps[1].point, first.point);
        assert_eq!(sweep.estimate(), "2 points x 2 loops x 4s = 16s");
    }

    #[test]
    fn a_read_point_runs_once_over_an_option_that_changes_only_writes() {
        for key in [Key::Fsync, Key::Fdatasync, Key::Sync] {
            let values = if key == Key::Sync {
                "none,dsync"
            } else {
                "0,1"
            };
            let axes = vec![
                parse_axis(dim(Key::Rw), "read,randrw:75,write").unwrap(),
                parse_axis(dim(key), values).unwrap(),
            ];
            let base = [JobOption::flag(Key::Runtime, "3s")];
            let sweep = build(&base, axes, 2, None, &machine(), false).unwrap();
            let first = values.split(',').next().unwrap();
            let name = dim(key).name();
            let ran: Vec<String> = sweep.points.iter().map(|p| describe(p)).collect();
            assert_eq!(sweep.points.len(), 5, "{key:?}: {ran:?}");
            assert_eq!(sweep.points[0][1].1, first, "{key:?}: {ran:?}");
            assert_eq!(sweep.points[0][0].1, "read");
            assert!(sweep.points[1..].iter().all(|p| p[0].1 != "read"));
            assert_eq!(sweep.plan.steps.len(), 10);
            assert_eq!(
                sweep.plan.steps[0].notes,
                [format!(
                    "{name} applies only to writes: this read point ran once, at {name}={first}"
                )]
            );
            assert!(sweep.plan.steps[2].notes.is_empty(), "{key:?}");
            assert_eq!(sweep.estimate(), "5 points x 2 loops x 3s = 30s");
        }
        // An option that changes reads too repeats them.
        let axes = vec![
            parse_axis(dim(Key::Rw), "read,write").unwrap(),
            parse_axis(dim(Key::Direct), "yes,no").unwrap(),
        ];
        let sweep = build(&[], axes, 1, None, &machine(), false).unwrap();
        assert_eq!(sweep.points.len(), 4);
    }

    #[test]
    fn one_batching_value_is_capped_at_the_shallow_points_only() {
        let axes = vec![parse_axis(dim(Key::IoDepth), "1,8,32").unwrap()];
        let base = [
            JobOption::flag(Key::IoDepthBatchCompleteMin, "8"),
            JobOption::flag(Key::IoDepthBatch, "4"),
        ];
        let sweep = build(&base, axes, 2, None, &machine(), false).unwrap();
        let ran: Vec<(u32, u32, u32)> = sweep
            .plan
            .steps
            .iter()
            .map(|s| {
                let spec = &s.jobs[0].spec;
                (
                    spec.iodepth,
                    spec.iodepth_batch,
                    spec.iodepth_batch_complete_min,
                )
            })
            .collect();
        assert_eq!(
            ran,
            [
                (1, 1, 1),
                (1, 1, 1),
                (8, 4, 8),
                (8, 4, 8),
                (32, 4, 8),
                (32, 4, 8)
            ]
        );
        // Each loop of the capped point says so; the others say nothing.
        let note = "iodepth_batch 4 -> 1, iodepth_batch_complete_min 8 -> 1 at iodepth 1";
        assert_eq!(sweep.plan.steps[0].notes, [note]);
        assert_eq!(sweep.plan.steps[1].notes, [note]);
        assert!(sweep.plan.steps[2..].iter().all(|s| s.notes.is_empty()));
    }

    /// Without a depth axis the one depth contradicts the value: refused, as `bench` does.
    #[test]
    fn a_batching_value_above_an_unswept_depth_is_refused() {
        let base = [
            JobOption::flag(Key::IoDepth, "2"),
            JobOption::flag(Key::IoDepthBatch, "8"),
        ];
        for axes in [vec![parse_axis(dim(Key::Bs), "4k,8k").unwrap()], Vec::new()] {
            let Err(err) = build(&base, axes, 1, None, &machine(), false) else {
                panic!("a batching value above the one depth ran");
            };
            let err = err.to_string();
            assert!(
                err.contains("--iodepth-batch 8 exceeds --iodepth 2; use 1 to 2"),
                "{err}"
            );
        }
    }

    #[test]
    fn the_estimate_counts_one_point_in_the_singular() {
        let base = [
            JobOption::flag(Key::Runtime, "3s"),
            JobOption::flag(Key::Ramp, "1s"),
        ];
        let mut sweep = build(&base, Vec::new(), 1, None, &machine(), false).unwrap();
        assert_eq!(sweep.estimate(), "1 point x 4s = 4s");
        // The baseline's steps, as add_memory_baseline appends them.
        sweep.plan.steps.push(sweep.plan.steps[0].clone());
        assert_eq!(
            sweep.estimate(),
            "1 point and its memory baseline x 4s = 8s"
        );
        let axes = vec![parse_axis(dim(Key::Bs), "4k,8k").unwrap()];
        let mut sweep = build(&base, axes, 1, None, &machine(), false).unwrap();
        sweep.plan.steps.extend(sweep.plan.steps.clone());
        assert_eq!(
            sweep.estimate(),
            "2 points and their memory baseline x 4s = 16s"
        );
    }

    #[test]
    fn an_invalid_point_and_an_absurd_plan_are_refused_up_front() {
        let axes = vec![parse_axis(dim(Key::Bs), "4k,64M").unwrap()];
        let base = [JobOption::flag(Key::Size, "16M")];
        let err = build(&base, axes, 1, None, &machine(), false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "point bs=64M: --bs 64M is larger than --size 16M; raise --size or lower --bs"
        );
        let axes = vec![
            parse_axis(dim(Key::Bs), "512..1M").unwrap(),
            parse_axis(dim(Key::IoDepth), "1..256").unwrap(),
            parse_axis(dim(Key::NumJobs), "1..2").unwrap(),
        ];
        let base = [
            JobOption::flag(Key::Runtime, "10s"),
            JobOption::flag(Key::Ramp, "2s"),
        ];
        assert!(build(&base, axes.clone(), 1, None, &machine(), false).is_ok());
        let err = build(&base, axes.clone(), 3, None, &machine(), false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "216 points x 3 loops x 12s = 2h9m36s is more than 2h or 500 steps; pass --yes to \
             run it, or sweep fewer values"
        );
        assert!(build(&base, axes, 3, None, &machine(), true).is_ok());
        // Over the hard cap, --yes or not, from the counts alone (never expanded).
        let big = |values: usize| {
            vec![
                parse_axis(
                    dim(Key::IoDepth),
                    &(1..=values)
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                        .join(","),
                )
                .unwrap(),
                parse_axis(
                    dim(Key::Bs),
                    &(1..=values)
                        .map(|n| format!("{}k", 4 * n))
                        .collect::<Vec<_>>()
                        .join(","),
                )
                .unwrap(),
            ]
        };
        for yes in [false, true] {
            let err = build(&base, big(400), 1, None, &machine(), yes).unwrap_err();
            assert_eq!(
                err.to_string(),
                "160000 points x 12s = 533h20m makes 160000 steps, more than the 100000 a sweep \
                 may have even with --yes; sweep fewer values (or fewer --loops) and run the \
                 rest as another sweep"
            );
        }
        let err = build(&base, big(100), 11, None, &machine(), true).unwrap_err();
        assert!(
            err.to_string().starts_with("10000 points x 11 loops x 12s"),
            "{err}"
        );
        // Saturating, never wrapping to a small count.
        let mut axes = big(1000);
        axes.extend(big(1000));
        axes.extend(big(1000));
        assert_eq!(point_count(&axes[..6]), 1_000_000_000_000_000_000);
        axes.extend(big(1000));
        assert_eq!(point_count(&axes), u64::MAX);
        assert_eq!(human(Duration::from_secs(7200)), "2h");
        assert_eq!(human(Duration::from_millis(1500)), "1500ms");
    }
}
