//! `diskdash mark`'s result, laid out like CrystalDiskMark's window: one row per test
//! (`SEQ1M Q8T1` ...), Read and Write (and Mix) columns in MB/s as the rule set's tool shows
//! them (`plan::mark::Rules`: 10^6 bytes for CrystalDiskMark, fio's `bw` / 1000 for
//! KDiskMark), with IOPS and mean latency beside each, and a footer naming the rules, the
//! profile, the loops and their pick rule, the target and its size.
//!
//! The numbers come from the record alone: each step is one loop of one measurement, and its
//! job says which test (pattern, block size, queue depth, threads) and which direction.
//!
//! ```text
//!  Test            Read MB/s   IOPS   lat us  |  Write MB/s   IOPS   lat us
//!  SEQ1M Q8T1       2345.67    2237.0  3572.10 |    ...
//!  footer: profile, loops and pick rule, target, size
//! ```

use serde::Serialize;

use crate::analysis::trust::{self, TrustLimits};
use crate::plan::mark::{
    Flush, Like, MarkConfig, MbUnit, Measure, MixReport, Mode, Pattern, Pick, Profile, RawMark,
    Rules, label,
};
use crate::record::{MarkFlagsRecord, RunRecord, RunStatus, StepRecord, TrustMark, TrustRecord};
use crate::report::export::{self, Column, Exporter as _, Grid, Group};
use crate::units::format_bytes;

/// What the command knows that the record does not say.
#[derive(Debug, Clone, Copy)]
pub struct MarkSettings {
    pub profile: Profile,
    pub loops: u32,
    pub rules: Rules,
    pub mode: Mode,
    pub mix_read_pct: Option<u8>,
}

impl MarkSettings {
    /// The settings of a validated configuration.
    #[must_use]
    pub fn of(config: &MarkConfig) -> Self {
        Self {
            profile: config.profile,
            loops: config.loops,
            rules: config.rules,
            mode: config.mode,
            mix_read_pct: config.mix_read_pct,
        }
    }

    /// The settings of the flags a record kept (`record.mark`), validated again as the
    /// command validated them.
    ///
    /// # Errors
    /// A flag that no longer validates (a usage error naming it).
    pub fn from_flags(flags: &MarkFlagsRecord) -> anyhow::Result<Self> {
        let page_cache = flags.page_cache.as_deref().and_then(Flush::parse);
        // A record made before KDiskMark 3.3's defaults were followed: its kdiskmark rules
        // refilled the data and flushed only when asked.
        let before_3_3 = flags.page_cache.is_none();
        let data = match flags.data.as_deref() {
            None if before_3_3 && Like::parse(&flags.like) == Some(Like::KDiskMark) => {
                Some("refill")
            }
            given => given,
        };
        let flush = if before_3_3 || flags.flush_cache {
            Some(flags.flush_cache)
        } else if flags.no_flush_cache {
            Some(false)
        } else {
            None
        };
        let config = MarkConfig::from_raw(RawMark {
            profile: &flags.profile,
            mix: flags.mix.as_deref(),
            loops: &flags.loops,
            like: &flags.like,
            pick: flags.pick.as_deref(),
            pause: flags.pause.as_deref(),
            mode: &flags.mode,
            data,
            flush,
            can_flush: page_cache != Some(Flush::NotRoot),
        })?;
        Ok(Self::of(&config))
    }
}

/// One loop of one measurement.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LoopResult {
    /// Megabytes per second in the rule set's megabytes (`MarkSummary::mb_bytes`).
    pub mb_s: f64,
    pub iops: f64,
    pub lat_mean_us: f64,
}

/// A measurement's loops and the picked numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarkCell {
    pub mb_s: f64,
    pub iops: f64,
    pub lat_mean_us: f64,
    pub loops: Vec<LoopResult>,
    /// How far the cell can be trusted, over its loops as a sweep point's (`marks`: `short`,
    /// `shared`, `unstable`, `fallback`).
    pub trust: TrustRecord,
}

/// One test: its row in the window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarkRow {
    pub test: String,
    pub read: Option<MarkCell>,
    pub write: Option<MarkCell>,
    pub mix: Option<MarkCell>,
    /// The engine that ran the test (`psync` where io_uring was unavailable).
    pub engine: String,
    /// I/Os in flight per thread as it ran: psync runs one at a time, whatever `Q` says.
    pub iodepth: u32,
    /// What the row's numbers are not, in words, when the test did not run as its name says
    /// (`ran psync at Q1T1`) or a direction lost loops to an interruption (`write: 1 of 2
    /// loops`). Absent when it ran as named, every loop.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The whole result, as the formats print it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarkSummary {
    pub format: &'static str,
    pub profile: &'static str,
    /// Whose rules the numbers follow (`crystaldiskmark`, `kdiskmark`).
    pub like: &'static str,
    /// The rules in words.
    pub rules: String,
    /// Bytes in one MB of the MB/s columns.
    pub mb_bytes: u64,
    pub loops: u32,
    pub pick: &'static str,
    /// Which directions ran (`all`, `read`, `write`).
    pub mode: &'static str,
    pub mix_read_pct: Option<u8>,
    pub target: String,
    pub target_kind: String,
    pub size_bytes: u64,
    pub runtime_ns: u64,
    /// The warm-up before each measurement's first loop.
    pub ramp_ns: u64,
    pub status: RunStatus,
    /// The engine that ran (`io_uring`, or `psync` after a fallback) and why it fell back.
    pub engine: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine_fallback: Option<String>,
    pub rows: Vec<MarkRow>,
}

/// The direction and test a step measured: `None` for a job `mark` does not make.
/// The test a step of a mark measured (`SEQ1M Q8T1`), as the table names its row.
#[must_use]
pub fn test_of(step: &StepRecord) -> Option<String> {
    measured(step).map(|(test, _)| test)
}

fn measured(step: &StepRecord) -> Option<(String, Measure)> {
    let (pattern, measure) = match step.job.rw.as_str() {
        "read" => (Pattern::Seq, Measure::Read),
        "write" => (Pattern::Seq, Measure::Write),
        "rw" => (Pattern::Seq, Measure::Mix),
        "randread" => (Pattern::Rnd, Measure::Read),
        "randwrite" => (Pattern::Rnd, Measure::Write),
        "randrw" => (Pattern::Rnd, Measure::Mix),
        _ => return None,
    };
    let test = label(pattern, step.job.bs, step.job.iodepth, step.job.numjobs);
    Some((test, measure))
}

/// A direction's numbers in `mb` megabytes.
fn direction(d: &crate::record::DirectionRecord, mb: MbUnit) -> LoopResult {
    LoopResult {
        mb_s: mb.mb_s(d.bw_bytes, d.bw),
        iops: d.iops,
        lat_mean_us: d.lat_ns.mean / 1e3,
    }
}

/// A step's reads and writes: its one job's own (measured from the job's start, so a
/// start delay before it does not count), else the step's.
fn directions(
    step: &StepRecord,
) -> (
    &crate::record::DirectionRecord,
    &crate::record::DirectionRecord,
) {
    match step.jobs.as_slice() {
        [job] => (&job.read, &job.write),
        _ => (&step.read, &step.write),
    }
}

/// A step's numbers for its direction (a mix: reads and writes together, latency over all
/// its I/Os).
fn loop_result(step: &StepRecord, measure: Measure, mb: MbUnit) -> LoopResult {
    let (r, w) = directions(step);
    match measure {
        Measure::Read => direction(r, mb),
        Measure::Write => direction(w, mb),
        Measure::Mix => {
            let ios = r.total_ios + w.total_ios;
            let lat_ns = if ios == 0 {
                0.0
            } else {
                (r.lat_ns.mean * r.total_ios as f64 + w.lat_ns.mean * w.total_ios as f64)
                    / ios as f64
            };
            LoopResult {
                mb_s: mb.mb_s(r.bw_bytes + w.bw_bytes, r.bw + w.bw),
                iops: r.iops + w.iops,
                lat_mean_us: lat_ns / 1e3,
            }
        }
    }
}

/// KDiskMark's mix: `(read * p + write * (100 - p)) / 100` of each number.
fn weigh(read: &LoopResult, write: &LoopResult, read_pct: u8) -> LoopResult {
    let p = f64::from(read_pct);
    let of = |r: f64, w: f64| (r * p + w * (100.0 - p)) / 100.0;
    LoopResult {
        mb_s: of(read.mb_s, write.mb_s),
        iops: of(read.iops, write.iops),
        lat_mean_us: of(read.lat_mean_us, write.lat_mean_us),
    }
}

/// A weighted mix's cell: each direction folded over the loops by `pick` first (as KDiskMark
/// keeps a running total or best per direction), then weighed; the loops listed are each
/// loop's own weighing.
fn weighted_cell(
    reads: &[LoopResult],
    writes: &[LoopResult],
    read_pct: u8,
    pick: Pick,
) -> Option<MarkCell> {
    let read = cell(reads.to_vec(), pick)?;
    let write = cell(writes.to_vec(), pick)?;
    let picked = weigh(
        &LoopResult {
            mb_s: read.mb_s,
            iops: read.iops,
            lat_mean_us: read.lat_mean_us,
        },
        &LoopResult {
            mb_s: write.mb_s,
            iops: write.iops,
            lat_mean_us: write.lat_mean_us,
        },
        read_pct,
    );
    Some(MarkCell {
        mb_s: picked.mb_s,
        iops: picked.iops,
        lat_mean_us: picked.lat_mean_us,
        loops: reads
            .iter()
            .zip(writes)
            .map(|(r, w)| weigh(r, w, read_pct))
            .collect(),
        trust: TrustRecord::default(),
    })
}

fn cell(loops: Vec<LoopResult>, pick: Pick) -> Option<MarkCell> {
    let of = |f: fn(&LoopResult) -> f64| loops.iter().map(f).collect::<Vec<f64>>();
    Some(MarkCell {
        mb_s: pick.apply(&of(|l| l.mb_s), true)?,
        iops: pick.apply(&of(|l| l.iops), true)?,
        lat_mean_us: pick.apply(&of(|l| l.lat_mean_us), false)?,
        loops,
        trust: TrustRecord::default(),
    })
}

/// The rows from the record's completed steps, in the order the tests first ran (every
/// test's reads come first, so that is the profile's order).
#[must_use]
pub fn summarize(record: &RunRecord, settings: &MarkSettings) -> MarkSummary {
    // (test, measure) -> loops, in first-seen order.
    let mut tests: Vec<String> = Vec::new();
    let mut loops: Vec<((String, Measure), Vec<LoopResult>)> = Vec::new();
    // A weighted mix's loops per test: each loop's reads and writes apart.
    let mut halves: Vec<(String, Vec<LoopResult>, Vec<LoopResult>)> = Vec::new();
    let rules = settings.rules;
    let weighted = match (rules.mix, settings.mix_read_pct) {
        (MixReport::Weighted, Some(pct)) => Some(pct),
        _ => None,
    };
    // Per test: the engine and depth its loops ran at, and the numjobs to name them.
    let mut ran: Vec<(String, String, u32, u32)> = Vec::new();
    // Each measurement's loops as recorded, for its trust.
    let mut recorded: Vec<((String, Measure), Vec<&StepRecord>)> = Vec::new();
    for step in &record.steps {
        if step.status != RunStatus::Completed {
            continue;
        }
        let Some(key) = measured(step) else {
            continue;
        };
        match recorded.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(step),
            None => recorded.push((key.clone(), vec![step])),
        }
        if !tests.contains(&key.0) {
            tests.push(key.0.clone());
            let engine = if step.engine.is_empty() {
                step.job.ioengine.clone()
            } else {
                step.engine.clone()
            };
            let depth = if engine == "psync" {
                1
            } else {
                step.job.iodepth
            };
            ran.push((key.0.clone(), engine, depth, step.job.numjobs));
        }
        if let (Measure::Mix, Some(_)) = (key.1, weighted) {
            let (r, w) = directions(step);
            let (r, w) = (direction(r, rules.mb), direction(w, rules.mb));
            match halves.iter_mut().find(|(t, _, _)| *t == key.0) {
                Some((_, reads, writes)) => {
                    reads.push(r);
                    writes.push(w);
                }
                None => halves.push((key.0.clone(), vec![r], vec![w])),
            }
            continue;
        }
        let result = loop_result(step, key.1, rules.mb);
        match loops.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(result),
            None => loops.push((key, vec![result])),
        }
    }
    let limits = TrustLimits::of(record.trust_limits.as_ref());
    let trust_of = |test: &str, measure: Measure| {
        let runs = recorded
            .iter()
            .find(|((t, m), _)| t == test && *m == measure)
            .map_or(&[][..], |(_, runs)| runs.as_slice());
        trust::of_point(runs, &limits)
    };
    let mut take = |test: &str, measure: Measure| {
        let made = if let (Measure::Mix, Some(pct)) = (measure, weighted) {
            halves
                .iter()
                .find(|(t, _, _)| t == test)
                .and_then(|(_, reads, writes)| weighted_cell(reads, writes, pct, rules.pick))
        } else {
            loops
                .iter()
                .position(|((t, m), _)| t == test && *m == measure)
                .and_then(|at| cell(loops.remove(at).1, rules.pick))
        };
        made.map(|mut c| {
            c.trust = trust_of(test, measure);
            c
        })
    };
    let rows = tests
        .iter()
        .zip(&ran)
        .map(|(test, (_, engine, depth, numjobs))| {
            let mut row = MarkRow {
                test: test.clone(),
                read: take(test, Measure::Read),
                write: take(test, Measure::Write),
                mix: take(test, Measure::Mix),
                engine: engine.clone(),
                iodepth: *depth,
                notes: Vec::new(),
            };
            // The test's name says its depth and threads: `Q32T1`.
            let named = format!("Q{depth}T{numjobs}");
            if engine != "io_uring" || !test.ends_with(&named) {
                row.notes.push(format!("ran {engine} at {named}"));
            }
            for (name, cell) in [
                ("read", &row.read),
                ("write", &row.write),
                ("mix", &row.mix),
            ] {
                if let Some(cell) = cell
                    && cell.loops.len() < settings.loops as usize
                {
                    row.notes.push(format!(
                        "{name}: {} of {} loops",
                        cell.loops.len(),
                        settings.loops
                    ));
                }
            }
            row
        })
        .collect();
    MarkSummary {
        format: "diskdash-mark",
        profile: settings.profile.name(),
        like: rules.like.name(),
        rules: rules.describe(),
        mb_bytes: rules.mb.bytes(),
        loops: settings.loops,
        pick: rules.pick.as_str(),
        mode: settings.mode.as_str(),
        mix_read_pct: settings.mix_read_pct,
        target: record.target.path.clone(),
        target_kind: record.target.kind.clone(),
        size_bytes: record.target.working_set_bytes,
        runtime_ns: record.steps.first().map_or(0, |s| s.job.runtime_ns),
        ramp_ns: record.steps.first().map_or(0, |s| s.job.ramp_ns),
        status: record.status,
        engine: record.engine.used.clone(),
        engine_fallback: record.engine.fallback.clone(),
        rows,
    }
}

pub use crate::values::TableFormat as MarkFormat;

/// The summary in `format`.
#[must_use]
pub fn render(summary: &MarkSummary, format: MarkFormat) -> String {
    let text = match format {
        MarkFormat::Table => table(summary),
        MarkFormat::Markdown => markdown(summary),
        MarkFormat::Csv => csv(summary),
        MarkFormat::Json => {
            let mut text = serde_json::to_string_pretty(summary).unwrap_or_default();
            text.push('\n');
            text
        }
    };
    crate::text::escape_layout(&text).into_owned()
}

/// A column group of the window: its name and the row's cell under it.
type Direction = (&'static str, fn(&MarkRow) -> Option<&MarkCell>);

/// The directions the rows have, in the window's column order.
fn columns(summary: &MarkSummary) -> Vec<Direction> {
    let mut out: Vec<Direction> = Vec::new();
    if summary.mode != "write" {
        out.push(("Read", |r| r.read.as_ref()));
    }
    if summary.mode != "read" {
        out.push(("Write", |r| r.write.as_ref()));
    }
    if summary.rows.iter().any(|r| r.mix.is_some()) {
        out.push(("Mix", |r| r.mix.as_ref()));
    }
    out
}

fn rate(v: f64) -> String {
    format!("{v:.2}")
}

fn iops(v: f64) -> String {
    format!("{v:.1}")
}

/// How the loops became one number, for the footer.
fn pick_text(summary: &MarkSummary) -> &'static str {
    match summary.pick {
        "best" => {
            "best: the highest MB/s and IOPS and the lowest latency over the loops \
             (CrystalDiskMark's rule, and KDiskMark's but for its default profile, which it \
             averages: --pick mean)"
        }
        "mean" => {
            "mean: the average of the loops (KDiskMark's rule for its default profile; \
             CrystalDiskMark keeps the best: --pick best)"
        }
        _ => "median: the middle loop of each number (the mean of the middle two when even)",
    }
}

/// The footer lines: profile, loops and pick rule, mix, target, size.
fn footer(summary: &MarkSummary) -> Vec<String> {
    let duration = |ns| crate::units::format_duration(std::time::Duration::from_nanos(ns));
    let loops = if summary.loops == 1 { "loop" } else { "loops" };
    let warm_up = if summary.ramp_ns > 0 {
        format!(" (the first after a {} warm-up)", duration(summary.ramp_ns))
    } else {
        String::new()
    };
    // KDiskMark's loops end with the working set; the run time only caps them.
    let at_most = if summary.like == "kdiskmark" {
        "at most "
    } else {
        ""
    };
    let mut lines = vec![
        format!(
            "profile {}: {} {loops} of {at_most}{} per measurement{warm_up}, the {} of them",
            summary.profile,
            summary.loops,
            duration(summary.runtime_ns),
            summary.pick
        ),
        summary.rules.clone(),
        pick_text(summary).to_string(),
    ];
    match summary.mode {
        "read" => lines.push("mode read: reads only (and the mix, with --mix)".to_string()),
        "write" => lines.push("mode write: writes only (and the mix, with --mix)".to_string()),
        _ => {}
    }
    if let Some(pct) = summary.mix_read_pct {
        if summary.like == "kdiskmark" {
            lines.push(format!(
                "mix: {pct}% reads / {}% writes at once, each number ({pct} * read + {} * \
                 write) / 100",
                100 - pct,
                100 - pct
            ));
        } else {
            lines.push(format!(
                "mix: {pct}% reads / {}% writes at once, MB/s and IOPS of both, latency over \
                 all",
                100 - pct
            ));
        }
    }
    let mb = if summary.mb_bytes == 1_000_000 {
        "MB/s = 10^6 bytes/s".to_string()
    } else {
        format!("MB/s = {} bytes/s", summary.mb_bytes)
    };
    lines.push(format!(
        "target {} ({}), {} working set, {}, O_DIRECT; {mb}; lat = fio's lat (submit to \
         completion)",
        summary.target,
        summary.target_kind,
        format_bytes(summary.size_bytes),
        summary.engine
    ));
    if summary.like == "kdiskmark" {
        // diskdash times an I/O from before its submit call (record::LATENCY_DEFINITION);
        // fio's clat starts after it.
        lines.push(
            "lat: KDiskMark shows fio's clat mean, which starts after the submit call; this \
             lat includes the submit call, so expect it a little higher"
                .to_string(),
        );
    }
    if let Some(fallback) = &summary.engine_fallback {
        lines.push(format!(
            "{fallback}: psync runs one I/O at a time, so tests named Q2 and up ran at Q1; \
             the rows say what ran"
        ));
    }
    if summary.status != RunStatus::Completed {
        lines.push(format!(
            "run {}: only completed loops are counted",
            summary.status.as_str()
        ));
    }
    lines
}

const TEST_WIDTH: usize = 14;
const VALUE_WIDTH: usize = 10;

/// The values of a group, in the order of their importance (the last is left out first).
const VALUES: [&str; 3] = ["MB/s", "IOPS", "lat us"];

/// The window as a grid: the test, then a group of MB/s, IOPS and latency per direction (a
/// narrow terminal loses latency first, then IOPS, the mix's first, then the write's, then
/// the read's; MB/s never), the row's notes after it, the footer under it.
fn grid(summary: &MarkSummary) -> Grid {
    let cols = columns(summary);
    let mut columns = vec![Column::left("Test").min_width(TEST_WIDTH).gap("")];
    let mut groups = vec![Group::new("", "", 1)];
    for (name, _) in &cols {
        for (n, (value, rank)) in VALUES.iter().zip([None, Some(1), Some(2)]).enumerate() {
            let column =
                Column::right(*value)
                    .min_width(VALUE_WIDTH)
                    .gap(if n == 0 { " | " } else { "" });
            columns.push(match rank {
                Some(rank) => column.rank(rank),
                None => column,
            });
        }
        groups.push(Group::new(format!("{name} [MB/s]"), *name, 3));
    }
    let mut grid = Grid::new(columns);
    grid.groups = groups;
    grid.keys = 1;
    grid.rules = true;
    grid.markdown_align = true;
    grid.notes = Some("Ran".to_string());
    grid.fit_hint = "all with --format csv or in a wider terminal".to_string();
    grid.footer = footer(summary);
    for row in &summary.rows {
        let mut cells = vec![crate::text::escape(&row.test).into_owned()];
        for (_, get) in &cols {
            match get(row) {
                Some(c) => cells.extend([rate(c.mb_s), iops(c.iops), rate(c.lat_mean_us)]),
                None => cells.extend(["-".to_string(), "-".to_string(), "-".to_string()]),
            }
        }
        // Each direction's trust marks lead the row's notes, as a sweep table's do; a
        // fallback the row's `ran psync at ...` says already is not said twice.
        let ran = row.notes.iter().any(|n| n.starts_with("ran "));
        let mut notes: Vec<String> = cols
            .iter()
            .filter_map(|(name, get)| {
                let mut cell = get(row)?.clone();
                cell.trust
                    .marks
                    .retain(|m| !(ran && *m == TrustMark::Fallback));
                let marks = marks_text(&cell, ", ");
                (!marks.is_empty()).then(|| format!("{name} {marks}"))
            })
            .collect();
        notes.extend(row.notes.iter().cloned());
        let note = (!notes.is_empty()).then(|| notes.join("; "));
        grid.row_with_note(cells, note);
    }
    grid
}

/// A cell's trust marks (`short`, `shared`, `unstable`, `fallback`) joined by `sep`; empty
/// when it has none.
fn marks_text(cell: &MarkCell, sep: &str) -> String {
    let marks: Vec<&str> = cell.trust.marks.iter().map(|m| m.as_str()).collect();
    marks.join(sep)
}

/// The window as text: a header of direction groups, then one line per test.
#[must_use]
pub fn table(summary: &MarkSummary) -> String {
    export::Text.render(&grid(summary))
}

/// The window fitted to a terminal `width` columns wide: when the whole table is wider, the
/// values least needed are left out (latency, then IOPS; the mix's first, then the write's,
/// then the read's) and a line says which; notes and the footer continue on lines of their own.
#[must_use]
pub fn table_fitted(summary: &MarkSummary, width: usize) -> String {
    export::Fitted(width).render(&grid(summary))
}

/// A Markdown table with the footer as a paragraph under it.
#[must_use]
pub fn markdown(summary: &MarkSummary) -> String {
    export::Markdown.render(&grid(summary))
}

/// One row per test; empty cells for what did not run. The footer's facts are columns too,
/// so each row stands alone.
#[must_use]
pub fn csv(summary: &MarkSummary) -> String {
    let cols = columns(summary);
    let mut columns = vec![Column::left("test")];
    for (name, _) in &cols {
        let name = name.to_ascii_lowercase();
        for value in ["mb_s", "iops", "lat_mean_us"] {
            columns.push(Column::right(format!("{name}_{value}")));
        }
    }
    for name in ["profile", "loops", "pick", "engine", "ran_iodepth", "notes"] {
        columns.push(Column::left(name));
    }
    // Last, so the columns before keep their places: each direction's trust marks.
    for (name, _) in &cols {
        columns.push(Column::left(format!("{}_marks", name.to_ascii_lowercase())));
    }
    let mut grid = Grid::new(columns);
    for row in &summary.rows {
        let mut cells = vec![crate::text::escape(&row.test).into_owned()];
        for (_, get) in &cols {
            match get(row) {
                Some(c) => cells.extend([c.mb_s, c.iops, c.lat_mean_us].map(|v| format!("{v:.3}"))),
                None => cells.extend([String::new(), String::new(), String::new()]),
            }
        }
        cells.extend([
            summary.profile.to_string(),
            summary.loops.to_string(),
            summary.pick.to_string(),
            row.engine.clone(),
            row.iodepth.to_string(),
            row.notes.join("; "),
        ]);
        for (_, get) in &cols {
            cells.push(get(row).map_or_else(String::new, |c| marks_text(c, " ")));
        }
        grid.row(cells);
    }
    export::Csv.render(&grid)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::plan::mark::Like;

    fn direction(bw_bytes: u64, iops: f64, mean_ns: f64, ios: u64) -> Value {
        json!({"io_bytes": bw_bytes, "io_kbytes": bw_bytes / 1024, "bw_bytes": bw_bytes,
            "bw": bw_bytes / 1024, "iops": iops, "runtime": 1000, "total_ios": ios,
            "lat_ns": {"min": 0, "max": 0, "mean": mean_ns, "stddev": 0.0, "N": ios,
                "percentile": {}}})
    }

    fn idle() -> Value {
        direction(0, 0.0, 0.0, 0)
    }

    fn job(rw: &str, bs: u64, iodepth: u32, numjobs: u32) -> Value {
        json!({"description": rw, "rw": rw, "rwmixread": 70, "bs": bs, "size": 1u64 << 30,
            "iodepth": iodepth, "numjobs": numjobs, "ioengine": "io_uring", "iodepth_batch": 1,
            "iodepth_batch_complete": 1, "direct": true, "fsync": null, "fdatasync": null,
            "sync": null, "cpus": null, "runtime_ns": 5_000_000_000u64,
            "ramp_ns": 5_000_000_000u64,
            "interval_ns": 1_000_000_000u64})
    }

    fn idle_sync() -> Value {
        json!({"total_ios": 0, "lat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0,
            "N": 0, "percentile": {}}})
    }

    /// One loop: `rw` of a test, `mb` decimal MB/s in `bs` I/Os at `lat_us`.
    fn step(index: u32, (rw, bs, q, t): (&str, u64, u32, u32), mb: u64, lat_us: f64) -> Value {
        let bw = mb * 1_000_000;
        let iops = bw as f64 / bs as f64;
        let d = direction(bw, iops, lat_us * 1000.0, bw / bs);
        let (read, write) = match rw {
            "read" | "randread" => (d, idle()),
            "rw" | "randrw" => (d.clone(), d),
            _ => (idle(), d),
        };
        json!({"index": index, "status": "completed", "job": job(rw, bs, q, t),
            "engine": "io_uring", "elapsed_ns": 5_000_000_000u64, "read": read, "write": write,
            "sync": idle_sync(), "retries": 0,
            "cpu": {"usr_cpu": 0.0, "sys_cpu": 0.0, "usr_ns": 0, "sys_ns": 0, "ctx": 0},
            "series_stride": 1, "series": [], "device": null, "jobs": [], "devices": []})
    }

    /// The peak profile, two loops each: reads, then writes, then (with `mix`) mixes.
    fn record(mix: bool) -> RunRecord {
        let seq = |rw| (rw, 1u64 << 20, 8u32, 1u32);
        let rnd = |rw| (rw, 4096u64, 32u32, 1u32);
        let mut steps = vec![
            step(0, seq("read"), 2000, 4000.0),
            step(1, seq("read"), 2100, 3900.0),
            step(2, rnd("randread"), 400, 320.0),
            step(3, rnd("randread"), 300, 300.0),
            step(4, seq("write"), 1000, 8000.0),
            step(5, seq("write"), 1200, 7000.0),
            step(6, rnd("randwrite"), 200, 640.0),
            step(7, rnd("randwrite"), 250, 600.0),
        ];
        if mix {
            steps.push(step(8, seq("rw"), 500, 100.0));
            steps.push(step(9, rnd("randrw"), 100, 50.0));
        }
        let target = json!({"path": "/data/.diskdash-scratch-1-1", "kind": "scratch",
            "working_set_bytes": 1u64 << 30, "dio_align_bytes": 512, "preconditioned": true,
            "scratch_removed": true, "notes": []});
        serde_json::from_value(json!({
            "format": "diskdash-bench", "format_version": 5, "diskdash_version": "0.1.0",
            "status": "completed", "error": null,
            "started_at": "2026-11-23T14:52:20.500Z", "ended_at": "2026-11-23T14:53:20.500Z",
            "host": {"hostname": "vm", "kernel": "6.18", "cpus": 2, "memory_bytes": 1u64 << 34},
            "job": job("read", 1 << 20, 8, 1),
            "engine": {"requested": "io_uring", "used": "io_uring", "fallback": null,
                "ring_flags": [], "registered_file": false, "registered_buffers": false,
                "notes": []},
            "target": target, "device": null, "latency_definition": "...",
            "elapsed_ns": 40_000_000_000u64, "read": idle(), "write": idle(),
            "sync": idle_sync(), "retries": 0,
            "cpu": {"usr_cpu": 0.0, "sys_cpu": 0.0, "usr_ns": 0, "sys_ns": 0, "ctx": 0},
            "segments": steps, "warnings": [], "notes": []
        }))
        .unwrap()
    }

    fn settings(pick: Pick, mix: Option<u8>) -> MarkSettings {
        let mut rules = Rules::of(Like::CrystalDiskMark, Profile::Peak);
        rules.pick = pick;
        MarkSettings {
            profile: Profile::Peak,
            loops: 2,
            rules,
            mode: Mode::All,
            mix_read_pct: mix,
        }
    }

    fn kdiskmark(profile: Profile, mix: Option<u8>) -> MarkSettings {
        MarkSettings {
            profile,
            loops: 2,
            rules: Rules::of(Like::KDiskMark, profile),
            mode: Mode::All,
            mix_read_pct: mix,
        }
    }

    #[test]
    fn loops_fold_by_the_pick_rule() {
        let best = summarize(&record(false), &settings(Pick::Best, None));
        let tests: Vec<&str> = best.rows.iter().map(|r| r.test.as_str()).collect();
        assert_eq!(tests, ["SEQ1M Q8T1", "RND4K Q32T1"]);
        let seq = best.rows[0].read.as_ref().unwrap();
        assert_eq!((seq.mb_s, seq.lat_mean_us), (2100.0, 3900.0));
        assert_eq!(seq.loops.len(), 2);
        // Best latency is the lowest, whichever loop had the best rate.
        let rnd_w = best.rows[1].write.as_ref().unwrap();
        assert_eq!((rnd_w.mb_s, rnd_w.lat_mean_us), (250.0, 600.0));
        let mean = summarize(&record(false), &settings(Pick::Mean, None));
        let seq_w = mean.rows[0].write.as_ref().unwrap();
        assert_eq!((seq_w.mb_s, seq_w.lat_mean_us), (1100.0, 7500.0));
        assert!(mean.rows.iter().all(|r| r.mix.is_none()));
    }

    #[test]
    fn the_table_is_crystaldiskmarks_window() {
        let summary = summarize(&record(false), &settings(Pick::Best, None));
        let text = table(&summary);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("Read [MB/s]") && lines[0].contains("Write [MB/s]"));
        assert!(!lines[0].contains("Mix"));
        assert!(lines[1].starts_with("Test") && lines[1].contains("lat us"));
        assert!(lines[3].starts_with("SEQ1M Q8T1"), "{text}");
        assert!(
            lines[3].contains("2100.00") && lines[3].contains("1200.00"),
            "{text}"
        );
        // 2100 MB/s in 1 MiB I/Os.
        assert!(lines[3].contains("2002.7"), "{text}");
        assert!(lines[4].starts_with("RND4K Q32T1") && lines[4].contains("400.00"));
        assert!(
            text.contains(
                "profile peak: 2 loops of 5s per measurement (the first after a 5s warm-up), \
                 the best of them"
            ),
            "{text}"
        );
        assert!(text.contains("which it averages: --pick mean"), "{text}");
        assert!(
            text.contains("rules: crystaldiskmark (time-based loops, the first warmed up"),
            "{text}"
        );
        assert!(
            text.contains("target /data/.diskdash-scratch-1-1 (scratch), 1 GiB working set"),
            "{text}"
        );
        assert!(text.is_ascii());
    }

    /// Each cell's trust over its loops, as a sweep point's: loops 25% apart are `unstable`,
    /// a loop of half a second is `short`; the table's notes, the CSV's last columns and the
    /// JSON say so, the steady cells carry no mark.
    #[test]
    fn each_cell_shows_its_trust_marks() {
        let mut record = record(false);
        // SEQ1M Q8T1's second read loop lasted half a second.
        record.steps[1].elapsed_ns = 500_000_000;
        let summary = summarize(&record, &settings(Pick::Best, None));
        let marks = |c: &Option<MarkCell>| -> Vec<&str> {
            c.as_ref()
                .unwrap()
                .trust
                .marks
                .iter()
                .map(|m| m.as_str())
                .collect()
        };
        let (seq, rnd) = (&summary.rows[0], &summary.rows[1]);
        assert_eq!(marks(&seq.read), ["short"]);
        // 1000 and 1200 MB/s: a spread of 12.9%; 953 I/Os of 1 MiB in the slower loop.
        assert_eq!(marks(&seq.write), ["short", "unstable"]);
        assert_eq!(marks(&rnd.read), ["unstable"]);
        assert_eq!(seq.read.as_ref().unwrap().trust.samples, 2);
        assert_eq!(seq.read.as_ref().unwrap().trust.spread_over, "loops");

        let text = table(&summary);
        assert!(
            text.contains("Read short; Write short, unstable"),
            "the SEQ1M row's notes in:\n{text}"
        );
        assert!(text.contains("Read unstable; Write unstable"), "{text}");

        let csv = csv(&summary);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[0].ends_with(",read_marks,write_marks"), "{csv}");
        assert!(lines[1].ends_with(",short,short unstable"), "{csv}");

        let json: Value = serde_json::from_str(&render(&summary, MarkFormat::Json)).unwrap();
        assert_eq!(json["rows"][0]["read"]["trust"]["marks"], json!(["short"]));
        assert_eq!(
            json["rows"][0]["write"]["trust"]["marks"],
            json!(["short", "unstable"])
        );

        // Steady loops: no mark, no note.
        let mut steady = record.clone();
        steady.steps[1].elapsed_ns = 5_000_000_000;
        let summary = summarize(&steady, &settings(Pick::Best, None));
        assert!(marks(&summary.rows[0].read).is_empty());
        assert!(!table(&summary).contains("Read short"));
    }

    #[test]
    fn the_mix_is_a_third_column() {
        let summary = summarize(&record(true), &settings(Pick::Median, Some(70)));
        let mix = summary.rows[1].mix.as_ref().unwrap();
        // Reads and writes of the mix add up; latency is over both.
        assert_eq!((mix.mb_s, mix.lat_mean_us), (200.0, 50.0));
        let text = table(&summary);
        assert!(
            text.lines().next().unwrap().contains("Mix [MB/s]"),
            "{text}"
        );
        assert!(text.contains("mix: 70% reads / 30% writes"), "{text}");
        assert!(text.contains("median: the middle loop"), "{text}");
    }

    #[test]
    fn at_80_columns_the_window_keeps_mb_s_and_says_what_it_left_out() {
        let summary = summarize(&record(true), &settings(Pick::Median, Some(70)));
        let whole = table(&summary);
        assert!(whole.lines().any(|l| l.chars().count() > 80), "{whole}");
        let text = table_fitted(&summary, 80);
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line:?} over 80:\n{text}");
        }
        let lines: Vec<&str> = text.lines().collect();
        for group in ["Read [MB/s]", "Write [MB/s]", "Mix [MB/s]"] {
            assert!(lines[0].contains(group), "{text}");
        }
        assert_eq!(lines[1].matches("MB/s").count(), 3, "{text}");
        assert_eq!(lines[1].matches("IOPS").count(), 2, "{text}");
        assert!(lines[3].starts_with("SEQ1M Q8T1"), "{text}");
        assert!(
            text.contains(
                "+4 columns left out to fit 80 columns (Mix lat us, Write lat us, Read lat us,\nMix IOPS)"
            ),
            "{text}"
        );
        assert!(
            text.contains("SEQ1M Q8T1     |    2050.00    1955.0 |"),
            "{text}"
        );
        assert!(
            text.contains(
                "\n                Write short, unstable; Mix short; mix: 1 of 2 loops\n"
            ),
            "{text}"
        );
        assert!(text.contains("mix: 70% reads / 30% writes"), "{text}");
        // Two groups fit 80 columns whole: nothing left out, the table as it is.
        let two = summarize(&record(false), &settings(Pick::Best, None));
        let fitted = table_fitted(&two, 80);
        assert!(!fitted.contains("left out"), "{fitted}");
        // The rows as the whole table has them; their notes (the trust marks) go under them
        // where a row and its notes are wider than the terminal.
        for line in table(&two).lines().take(5) {
            assert!(
                fitted.contains(&line[..line.len().min(80)]),
                "{line}\n{fitted}"
            );
        }
    }

    #[test]
    fn a_fallback_and_lost_loops_are_said_in_the_rows() {
        let mut record = record(false);
        for step in &mut record.steps {
            step.engine = "psync".into();
        }
        record.engine.used = "psync".into();
        record.engine.fallback =
            Some("io_uring unavailable (EPERM: permission denied); fell back to psync".into());
        // The second loop of RND4K Q32T1's write was cut short.
        record.steps[7].status = RunStatus::Interrupted;
        record.status = RunStatus::Interrupted;
        let summary = summarize(&record, &settings(Pick::Best, None));
        assert_eq!(summary.rows[0].notes, ["ran psync at Q1T1"]);
        assert_eq!(
            summary.rows[1].notes,
            ["ran psync at Q1T1", "write: 1 of 2 loops"]
        );
        assert_eq!(summary.rows[1].iodepth, 1);
        let text = table(&summary);
        let lines: Vec<&str> = text.lines().collect();
        // The trust marks lead the notes; the fallback is said once, by `ran psync`.
        assert!(
            lines[3].ends_with("  Write short, unstable; ran psync at Q1T1"),
            "{text}"
        );
        assert!(
            lines[4].ends_with("  Read unstable; ran psync at Q1T1; write: 1 of 2 loops"),
            "{text}"
        );
        assert!(
            text.contains("1 GiB working set, psync, O_DIRECT"),
            "{text}"
        );
        assert!(
            text.contains("fell back to psync: psync runs one I/O at a time"),
            "{text}"
        );
        let md = markdown(&summary);
        assert!(
            md.contains("| Ran |") && md.contains("| Write short, unstable; ran psync at Q1T1 |"),
            "{md}"
        );
        let csv = csv(&summary);
        assert!(
            csv.lines().nth(2).unwrap().ends_with(
                ",psync,1,ran psync at Q1T1; write: 1 of 2 loops,unstable fallback,fallback"
            ),
            "{csv}"
        );
        let json: Value = serde_json::from_str(&render(&summary, MarkFormat::Json)).unwrap();
        assert_eq!(json["rows"][0]["engine"], "psync");
        assert_eq!(json["rows"][0]["iodepth"], 1);
        assert_eq!(json["engine"], "psync");
    }

    #[test]
    fn csv_has_one_row_per_test_and_markdown_a_row_each_too() {
        let summary = summarize(&record(false), &settings(Pick::Best, None));
        let text = csv(&summary);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "test,read_mb_s,read_iops,read_lat_mean_us,write_mb_s,write_iops,\
             write_lat_mean_us,profile,loops,pick,engine,ran_iodepth,notes,read_marks,write_marks"
        );
        assert_eq!(lines.len(), 3);
        assert!(lines[1].starts_with("SEQ1M Q8T1,2100.000,"), "{text}");
        assert!(
            lines[1].ends_with(",peak,2,best,io_uring,8,,,short unstable"),
            "{text}"
        );
        let md = markdown(&summary);
        assert!(md.starts_with("| Test | Read MB/s | Read IOPS |"), "{md}");
        assert!(md.contains("| RND4K Q32T1 | 400.00 |"), "{md}");
        let json: Value = serde_json::from_str(&render(&summary, MarkFormat::Json)).unwrap();
        assert_eq!(
            json["rows"][0]["read"]["loops"].as_array().unwrap().len(),
            2
        );
        assert_eq!(json["pick"], "best");
    }

    /// KDiskMark's MB/s of a fixture loop of `mb` decimal MB/s: fio's whole KiB/s / 1000.
    fn kdm(mb: u64) -> f64 {
        let kib = (mb * 1_000_000 / 1024) as f64;
        kib / 1000.0
    }

    #[test]
    fn kdiskmark_averages_default_keeps_the_best_of_peak_in_its_megabytes() {
        let peak = summarize(&record(false), &kdiskmark(Profile::Peak, None));
        let seq = peak.rows[0].read.as_ref().unwrap();
        assert_eq!((seq.mb_s, seq.lat_mean_us), (kdm(2100), 3900.0));
        assert_eq!(seq.mb_s, 2050.781);
        // The same loops under the default profile: the mean.
        let default = summarize(&record(false), &kdiskmark(Profile::Default, None));
        let seq = default.rows[0].read.as_ref().unwrap();
        assert_eq!(seq.mb_s, f64::midpoint(kdm(2000), kdm(2100)));
        assert_eq!(seq.lat_mean_us, 3950.0);
        assert_eq!(
            (default.like, default.pick, default.mb_bytes),
            ("kdiskmark", "mean", 1_024_000)
        );
        let text = table(&default);
        assert!(
            text.contains("rules: kdiskmark (size-based loops"),
            "{text}"
        );
        assert!(text.contains("MB/s = 1024000 bytes/s"), "{text}");
        assert!(text.contains("2001.95"), "{text}");
        assert!(text.contains("KDiskMark shows fio's clat mean"), "{text}");
        assert!(
            text.contains("profile default: 2 loops of at most 5s per measurement"),
            "{text}"
        );
        let json: Value = serde_json::from_str(&render(&default, MarkFormat::Json)).unwrap();
        assert_eq!(json["like"], "kdiskmark");
        assert!(
            json["rules"]
                .as_str()
                .unwrap()
                .starts_with("rules: kdiskmark")
        );
    }

    #[test]
    fn kdiskmark_weighs_the_mix_by_its_read_share() {
        let one = |mb_s, iops, lat_mean_us| LoopResult {
            mb_s,
            iops,
            lat_mean_us,
        };
        let reads = [one(700.0, 7000.0, 100.0), one(900.0, 9000.0, 80.0)];
        let writes = [one(300.0, 3000.0, 200.0), one(100.0, 1000.0, 400.0)];
        // Best per direction first (900, 9000, 80 and 300, 3000, 200), then weighed 70/30.
        let best = weighted_cell(&reads, &writes, 70, Pick::Best).unwrap();
        assert_eq!(
            (best.mb_s, best.iops, best.lat_mean_us),
            (720.0, 7200.0, 116.0)
        );
        // The mean per direction (800, 8000, 90 and 200, 2000, 300), then weighed.
        let mean = weighted_cell(&reads, &writes, 70, Pick::Mean).unwrap();
        assert_eq!(
            (mean.mb_s, mean.iops, mean.lat_mean_us),
            (620.0, 6200.0, 153.0)
        );
        assert_eq!(mean.loops[0].mb_s, 580.0);
        assert_eq!(weighted_cell(&reads, &[], 70, Pick::Best), None);
        // Through the record: the fixture's mix has equal reads and writes, so the weighing
        // gives that one value where CrystalDiskMark's rule adds them.
        let k = summarize(&record(true), &kdiskmark(Profile::Peak, Some(70)));
        let mix = k.rows[1].mix.as_ref().unwrap();
        assert_eq!((mix.mb_s, mix.lat_mean_us), (kdm(100), 50.0));
        let c = summarize(&record(true), &settings(Pick::Best, Some(70)));
        assert_eq!(c.rows[1].mix.as_ref().unwrap().mb_s, 200.0);
        assert!(table(&k).contains("each number (70 * read + 30 * write) / 100"));
    }
}
