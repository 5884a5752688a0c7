//! The sweep's table from its record: one row per point (its loops picked), the swept options
//! first, then per direction IOPS, MB/s and MiB/s, mean and p99 latency, the fsync/fdatasync
//! calls' mean and p99 where a point made any, the bytes moved and the measured time, then the
//! device's %util and aqu-sz; the best row per direction marked, a row that measured the page
//! cache flagged (and never the best). Text, markdown, CSV (units in the header names, absent
//! values empty) or JSON (with the analysis typed).

use serde::Serialize;

use crate::record::{PointValue, RunRecord, RunStatus, SweepFinding, TrustMark};
use crate::report::export::{self, Column, Exporter as _, Grid};
use crate::stats::{LatencyBucket, bucket_percentile_ns, merge_buckets};
use crate::units::format_latency_ns;

#[cfg(test)]
use crate::analysis::points::Sync;
pub use crate::analysis::points::{Dir, Row, rows, with_memory};
pub use crate::values::{Pick, TableFormat as Format};

/// `--latency-target` as a finding: the deepest point that met it and the first that
/// missed, each point's latency at the target's percentile from its runs' merged histograms.
/// A point with a run cut short or failed neither meets nor misses.
#[must_use]
pub fn latency_target(record: &RunRecord, target: crate::session::LatencyTarget) -> SweepFinding {
    /// A point's values, its runs' merged histogram and whether every run completed.
    type Current = (Vec<PointValue>, Vec<LatencyBucket>, bool);
    let mut samples: Vec<(Vec<PointValue>, u64)> = Vec::new();
    let mut current: Option<Current> = None;
    let flush = |current: Option<Current>, samples: &mut Vec<(Vec<PointValue>, u64)>| {
        if let Some((point, buckets, complete)) = current {
            let at = if buckets.is_empty() || !complete {
                0
            } else {
                bucket_percentile_ns(&buckets, target.percentile)
            };
            samples.push((point, at));
        }
    };
    for step in &record.steps {
        if current.as_ref().is_some_and(|(p, _, _)| *p != step.point) {
            flush(current.take(), &mut samples);
        }
        let entry = current.get_or_insert_with(|| (step.point.clone(), Vec::new(), true));
        entry.2 &= step.status == RunStatus::Completed;
        for lat in [&step.read.lat_ns, &step.write.lat_ns] {
            if let Some(h) = &lat.histogram {
                let theirs: Vec<LatencyBucket> = h.buckets().collect();
                merge_buckets(&mut entry.1, &theirs);
            }
        }
    }
    flush(current, &mut samples);
    let result = crate::analysis::sweep::latency_target(&samples, target.ns);
    SweepFinding::LatencyTarget {
        percentile: target.percentile,
        target_ns: target.ns,
        met: result.met,
        first_miss: result.first_miss,
    }
}

/// The line that says why points did not run as their values say: the engine's fallback
/// (`record`'s), and how many points it touched. `None` when every point ran as asked.
#[must_use]
pub fn fallback_line(record: &RunRecord, rows: &[Row]) -> Option<String> {
    let touched: Vec<&Row> = rows.iter().filter(|r| r.ran.is_some()).collect();
    let first = touched.first()?;
    let count = if touched.len() == rows.len() {
        if rows.len() == 1 {
            "the point".to_string()
        } else {
            format!("all {} points", rows.len())
        }
    } else {
        format!("{} of {} points", touched.len(), rows.len())
    };
    let one_at_a_time = if touched.iter().any(|r| {
        r.ran
            .as_deref()
            .is_some_and(|ran| ran.contains(" at iodepth "))
    }) {
        ", one I/O at a time per worker"
    } else {
        ""
    };
    let why = record
        .engine
        .fallback
        .as_ref()
        .map_or_else(String::new, |f| format!("{f}: "));
    let never_best = if touched.iter().any(|r| r.fell_back) {
        "; a point that fell back is never the best, a peak or a knee"
    } else {
        ""
    };
    Some(format!(
        "{why}{count} ran on {}{one_at_a_time}, not as their values say (the rows say what \
         ran){never_best}",
        first.engine
    ))
}

/// The index of the row with the highest bandwidth in `pick`'s direction, among rows that
/// moved any and [count](Row::counts): a point cut short, failed or run otherwise than its
/// values say is never the best.
fn best(rows: &[Row], pick: impl Fn(&Row) -> &Dir) -> Option<usize> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.counts() && pick(r).ios > 0)
        .max_by(|a, b| pick(a.1).bytes_per_s.total_cmp(&pick(b.1).bytes_per_s))
        .map(|(i, _)| i)
}

/// How much a column of the text table matters when the terminal is narrow: the swept values
/// and the marks stay, then the rates, the tail and mean latency, the syncs, dd's bytes and
/// time, the device's %util and aqu-sz, the memory baseline, and MiB/s (MB/s in other units)
/// goes first.
mod rank {
    pub const KEEP: u8 = 0;
    pub const IOPS: u8 = 1;
    pub const MB_S: u8 = 2;
    pub const P99: u8 = 3;
    pub const MEAN: u8 = 4;
    pub const SYNC: u8 = 5;
    pub const DD: u8 = 6;
    pub const UTIL: u8 = 7;
    pub const AQU_SZ: u8 = 8;
    pub const MEMORY: u8 = 9;
    pub const MIB_S: u8 = 10;
}

/// The columns: the swept options, then per direction with I/O, the sync calls where any point
/// made some, the bytes and time, then the device. `human`: the table's and markdown's
/// headers, units in the cells and a last column of marks; else CSV's: units in the header
/// names (`read_mean_ns`), plain numbers in the cells, the engine, the depth it ran at, the
/// status and the page-cache flag last. A value a point does not have is an empty cell.
///
/// The header, each column's [rank], and the cells.
fn ranked_header_and_cells(
    rows: &[Row],
    names: &[String],
    human: bool,
) -> (Vec<String>, Vec<u8>, Vec<Vec<String>>) {
    let reads = rows.iter().any(|r| r.read.ios > 0);
    let writes = rows.iter().any(|r| r.write.ios > 0);
    let syncs = rows.iter().any(|r| r.sync.is_some());
    let best_read = best(rows, |r| &r.read);
    let best_write = best(rows, |r| &r.write);
    // Escaped one by one so a value stays in its cell (a `\n` would start a row).
    let escape = |text: &String| crate::text::escape(text).into_owned();
    let mut header: Vec<String> = names.iter().map(escape).collect();
    let mut ranks = vec![rank::KEEP; names.len()];
    let column = |human_name: &str, csv_name: &str| {
        if human {
            human_name.to_string()
        } else {
            csv_name.to_string()
        }
    };
    for (on, prefix) in [(reads, "read"), (writes, "write")] {
        if !on {
            continue;
        }
        for (h, c, r) in [
            ("IOPS", "iops", rank::IOPS),
            ("MB/s", "mb_s", rank::MB_S),
            ("MiB/s", "mib_s", rank::MIB_S),
            ("mean", "mean_ns", rank::MEAN),
            ("p99", "p99_ns", rank::P99),
        ] {
            header.push(column(&format!("{prefix} {h}"), &format!("{prefix}_{c}")));
            ranks.push(r);
        }
    }
    if syncs {
        header.push(column("sync mean", "sync_mean_ns"));
        header.push(column("sync p99", "sync_p99_ns"));
        ranks.extend([rank::SYNC; 2]);
    }
    header.push(column("bytes", "bytes"));
    header.push(column("elapsed", "elapsed_ns"));
    ranks.extend([rank::DD; 2]);
    let memory = rows.iter().any(|r| r.memory.is_some());
    if memory && reads {
        header.push(column("memory read MB/s", "memory_read_mb_s"));
        ranks.push(rank::MEMORY);
    }
    if memory && writes {
        header.push(column("memory write MB/s", "memory_write_mb_s"));
        ranks.push(rank::MEMORY);
    }
    header.push(column("%util", "util_pct"));
    header.push(column("aqu-sz", "aqu_sz"));
    ranks.extend([rank::UTIL, rank::AQU_SZ]);
    if human {
        header.push(String::new());
        ranks.push(rank::KEEP);
    } else {
        header.extend(
            [
                "engine",
                "ran_iodepth",
                "status",
                "page_cache",
                "spread_pct",
                "marks",
                "notes",
            ]
            .into_iter()
            .map(String::from),
        );
        ranks.resize(header.len(), rank::KEEP);
    }
    let lat = |ns: f64| {
        if human {
            format_latency_ns(ns)
        } else {
            format!("{ns:.0}")
        }
    };
    let cells = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut cells: Vec<String> = r.point.iter().map(|(_, v)| escape(v)).collect();
            let dir_cells = |d: &Dir, cells: &mut Vec<String>| {
                if d.ios == 0 {
                    // A direction this point did not run: nothing to show.
                    cells.extend(std::iter::repeat_n(String::new(), 5));
                    return;
                }
                cells.push(format!("{:.0}", d.iops));
                cells.push(format!("{:.1}", d.bytes_per_s / 1e6));
                cells.push(format!("{:.1}", d.bytes_per_s / f64::from(1 << 20)));
                cells.push(lat(d.mean_ns));
                cells.push(lat(d.p99_ns as f64));
            };
            if reads {
                dir_cells(&r.read, &mut cells);
            }
            if writes {
                dir_cells(&r.write, &mut cells);
            }
            if syncs {
                match &r.sync {
                    Some(s) => {
                        cells.push(lat(s.mean_ns));
                        cells.push(lat(s.p99_ns as f64));
                    }
                    None => cells.extend([String::new(), String::new()]),
                }
            }
            if human {
                cells.push(crate::units::format_bytes(r.bytes));
                cells.push(format!("{:.3} s", r.elapsed_ns as f64 / 1e9));
            } else {
                cells.push(r.bytes.to_string());
                cells.push(r.elapsed_ns.to_string());
            }
            let mem_cell = |d: Option<&Dir>| {
                d.filter(|d| d.ios > 0)
                    .map_or_else(String::new, |d| format!("{:.1}", d.bytes_per_s / 1e6))
            };
            if memory && reads {
                cells.push(mem_cell(r.memory.as_ref().map(|m| &m.0)));
            }
            if memory && writes {
                cells.push(mem_cell(r.memory.as_ref().map(|m| &m.1)));
            }
            cells.push(r.util_pct.map_or_else(String::new, |u| format!("{u:.1}")));
            cells.push(r.aqu_sz.map_or_else(String::new, |q| format!("{q:.2}")));
            if human {
                let mut marks = Vec::new();
                if best_read == Some(i) {
                    marks.push("best read");
                }
                if best_write == Some(i) {
                    marks.push("best write");
                }
                if r.page_cache {
                    marks.push("PAGE CACHE: measures memory");
                }
                if r.status != "completed" {
                    marks.push(r.status.as_str());
                }
                if let Some(ran) = &r.ran {
                    marks.push(ran.as_str());
                }
                // A fallback says what ran above; the other trust marks by name.
                marks.extend(
                    r.trust
                        .marks
                        .iter()
                        .filter(|m| !(**m == TrustMark::Fallback && r.ran.is_some()))
                        .map(|m| m.as_str()),
                );
                // A note is a sentence of its own (it may hold commas): "; " sets the notes
                // apart from the marks and from each other, as a mark table's notes.
                let mut text = marks.join(", ");
                for note in &r.notes {
                    if !text.is_empty() {
                        text.push_str("; ");
                    }
                    text.push_str(note);
                }
                cells.push(text);
            } else {
                cells.push(escape(&r.engine));
                cells.push(r.iodepth.to_string());
                cells.push(escape(&r.status));
                cells.push(r.page_cache.to_string());
                cells.push(
                    r.trust
                        .spread_pct
                        .map_or_else(String::new, |s| format!("{s:.1}")),
                );
                let marks: Vec<&str> = r.trust.marks.iter().map(|m| m.as_str()).collect();
                cells.push(marks.join(" "));
                // Last, so the columns before keep their places; the CSV writer quotes it
                // where it holds a comma.
                cells.push(escape(&r.notes.join("; ")));
            }
            cells
        })
        .collect();
    (header, ranks, cells)
}

/// The line under the table that says whether write latency includes the sync: fsync and
/// fdatasync are calls of their own, timed apart (the sync columns); O_DSYNC/O_SYNC make every
/// write wait for the disk, so its latency includes it. `None` when no point synced.
#[must_use]
pub fn sync_line(rows: &[Row]) -> Option<String> {
    let calls = rows.iter().any(|r| r.sync.is_some());
    let open: Vec<&str> =
        rows.iter()
            .filter_map(|r| r.open_sync.as_deref())
            .fold(Vec::new(), |mut seen, s| {
                if !seen.contains(&s) {
                    seen.push(s);
                }
                seen
            });
    let open_words = (!open.is_empty()).then(|| {
        let flags = open
            .iter()
            .map(|s| if *s == "dsync" { "O_DSYNC" } else { "O_SYNC" })
            .collect::<Vec<_>>()
            .join("/");
        format!(
            "write latency includes the sync where files were opened {flags} (--sync): each \
             write returns once it is on the disk"
        )
    });
    match (calls, open_words) {
        (false, None) => None,
        (true, None) => Some(
            "write latency leaves out the sync: the fsync/fdatasync calls are timed apart, in \
             the sync columns"
                .to_string(),
        ),
        (false, Some(words)) => Some(words),
        (true, Some(words)) => Some(format!(
            "{words}; the fsync/fdatasync calls are timed apart, in the sync columns"
        )),
    }
}

/// The line under the table for the rows that measured the page cache: how many, which, and
/// that none of them is the best, a peak or a knee. `None` when no row did.
#[must_use]
pub fn page_cache_line(rows: &[Row]) -> Option<String> {
    let cached: Vec<String> = rows
        .iter()
        .filter(|r| r.page_cache)
        .map(|r| crate::plan::describe(&r.point))
        .collect();
    if cached.is_empty() {
        return None;
    }
    Some(format!(
        "PAGE CACHE: {} of {} points measured memory, not the disk ({}): flagged in their rows, \
         never the best, a peak or a knee",
        cached.len(),
        rows.len(),
        cached.join(", ")
    ))
}

/// The line under the table for the points with trust marks: how many of each mark, that
/// none of them is the best, a peak or a knee, and what to change to rely on them. `None`
/// when no point is marked.
#[must_use]
pub fn trust_line(rows: &[Row]) -> Option<String> {
    let marked = rows.iter().filter(|r| !r.trust.marks.is_empty()).count();
    if marked == 0 {
        return None;
    }
    let mut kinds: Vec<TrustMark> = rows
        .iter()
        .flat_map(|r| r.trust.marks.iter().copied())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let counts: Vec<String> = kinds
        .iter()
        .map(|kind| {
            let n = rows.iter().filter(|r| r.trust.marks.contains(kind)).count();
            format!("{kind} {n}")
        })
        .collect();
    let remedies: Vec<&str> = kinds
        .iter()
        .map(|m| crate::analysis::trust::remedy(*m))
        .collect();
    Some(format!(
        "NOT RELIABLE: {marked} of {} points are marked ({}): never the best, a peak or a \
         knee; to rely on them, measure with {}",
        rows.len(),
        counts.join(", "),
        remedies.join(", ")
    ))
}

/// The JSON form of the table.
#[derive(Debug, Serialize)]
struct JsonTable<'a> {
    dimensions: &'a [String],
    rows: &'a [Row],
    best_read: Option<usize>,
    best_write: Option<usize>,
    /// The record's `sweep.analysis`: peaks, gain stops, knees, best rows (and advice and a
    /// latency target's verdict where asked), typed.
    analysis: &'a [SweepFinding],
}

/// The table in `format`; `names` are the swept options, in order; `findings` the record's
/// analysis, which the JSON form carries.
#[must_use]
pub fn render(rows: &[Row], names: &[String], format: Format, findings: &[SweepFinding]) -> String {
    let text = match format {
        Format::Json => {
            let table = JsonTable {
                dimensions: names,
                rows,
                best_read: best(rows, |r| &r.read),
                best_write: best(rows, |r| &r.write),
                analysis: findings,
            };
            let mut text = serde_json::to_string_pretty(&table).unwrap_or_default();
            text.push('\n');
            text
        }
        Format::Csv => export::Csv.render(&grid(rows, names, false)),
        Format::Markdown => export::Markdown.render(&grid(rows, names, true)),
        Format::Table => export::Text.render(&grid(rows, names, true)),
    };
    crate::text::escape_layout(&text).into_owned()
}

/// The table as a grid: the swept values and the marks are key columns, left-aligned; the
/// numbers right-aligned, each ranked for a narrow terminal ([rank]).
fn grid(rows: &[Row], names: &[String], human: bool) -> Grid {
    let (header, ranks, cells) = ranked_header_and_cells(rows, names, human);
    let last = header.len().saturating_sub(1);
    let columns = header
        .into_iter()
        .zip(ranks)
        .enumerate()
        .map(|(c, (name, r))| {
            let column = if c < names.len() || c == last {
                Column::left(name)
            } else {
                Column::right(name)
            };
            if r == rank::KEEP {
                column
            } else {
                column.rank(r)
            }
        })
        .collect();
    let mut grid = Grid::new(columns);
    grid.fit_hint = "--format markdown or csv, or stdout to a file, shows all".to_string();
    for row in cells {
        grid.row(row);
    }
    grid
}

/// The text table fitted to a terminal `width` columns wide: the least important columns
/// (MiB/s first, see [rank]) leave until every line fits, and a line under the table names
/// them and where the full table is. The swept values and the marks always stay.
#[must_use]
pub fn render_fitted(rows: &[Row], names: &[String], width: usize) -> String {
    let text = export::Fitted(width).render(&grid(rows, names, true));
    crate::text::escape_layout(&text).into_owned()
}

/// `text` broken at spaces into lines of at most `width` characters (a longer word stands
/// alone), each ending in a newline.
#[must_use]
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(line.trim_end());
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// What the table shows, typed: for each swept dimension whose other dimensions are fixed (a
/// one-dimension sweep, or each slice of a matrix along its last dimension), per direction the
/// peak, where the gain stops and the knee (`analysis`); then the best row per direction.
/// Only rows that [count](Row::counts) take part.
#[must_use]
pub fn analysis(rows: &[Row], names: &[String]) -> Vec<SweepFinding> {
    use crate::analysis::sweep::{self as analysis, Sample};
    let Some(last) = names.last() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // Rows grouped by the values of every dimension but the last.
    let mut groups: Vec<(crate::sweep::Point, Vec<&Row>)> = Vec::new();
    for row in rows.iter().filter(|r| r.counts()) {
        let key: crate::sweep::Point = row.point[..row.point.len().saturating_sub(1)].to_vec();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(row),
            None => groups.push((key, vec![row])),
        }
    }
    // Along an option that changes only writes, points that only read ran the same at each
    // value: no peak is claimed over them.
    let writes_only = crate::sweep::Dimension::ALL
        .into_iter()
        .any(|d| d.name() == last.as_str() && d.writes_only());
    for (key, members) in &groups {
        if writes_only && members.iter().all(|r| r.write.ios == 0) {
            continue;
        }
        let at: Vec<PointValue> = key
            .iter()
            .map(|(option, value)| PointValue::new(option, value))
            .collect();
        for (direction, pick) in [("read", read_of as fn(&Row) -> &Dir), ("write", write_of)] {
            let samples: Vec<Sample> = members
                .iter()
                .filter(|r| pick(r).ios > 0)
                .map(|r| sample(r, pick(r), last))
                .collect();
            out.extend(analysis::findings(last, direction, &at, &samples));
        }
    }
    for (direction, pick) in [("read", read_of as fn(&Row) -> &Dir), ("write", write_of)] {
        if let Some(i) = best(rows, pick) {
            let row = &rows[i];
            out.push(SweepFinding::Best {
                direction: direction.to_string(),
                row: u32::try_from(i).unwrap_or(u32::MAX),
                point: row
                    .point
                    .iter()
                    .map(|(option, value)| PointValue::new(option, value))
                    .collect(),
                bytes_per_s: pick(row).bytes_per_s,
                iops: pick(row).iops,
            });
        }
    }
    out
}

fn read_of(row: &Row) -> &Dir {
    &row.read
}

fn write_of(row: &Row) -> &Dir {
    &row.write
}

/// A row's direction `d` as the analysis takes it, along the dimension `last`.
fn sample(row: &Row, d: &Dir, last: &str) -> crate::analysis::sweep::Sample {
    let dimension = crate::sweep::Dimension::ALL
        .into_iter()
        .find(|dim| dim.name() == last);
    crate::analysis::sweep::Sample {
        x: row
            .point
            .last()
            .and_then(|(_, v)| dimension.and_then(|dim| dim.x(v)))
            .unwrap_or(0.0),
        label: row.point.last().map(|(_, v)| v.clone()).unwrap_or_default(),
        iops: d.iops,
        bytes_per_s: d.bytes_per_s,
        mean_ns: d.mean_ns,
        p99_ns: d.p99_ns,
        ran: row.ran.clone(),
        spread_pct: row.trust.spread_pct,
        marks: row.trust.marks.clone(),
    }
}

/// What the record's `sweep.analysis` holds: the [`analysis`], then with `advice` the
/// block-size advice of a sweep whose last dimension is `bs`, then the latency target's
/// finding.
#[must_use]
pub fn findings(
    record: &RunRecord,
    rows: &[Row],
    names: &[String],
    advice: bool,
    target: Option<crate::session::LatencyTarget>,
) -> Vec<SweepFinding> {
    let mut out = analysis(rows, names);
    if advice && names.last().is_some_and(|l| l == "bs") {
        // The read and write points of the block sizes, wherever `rw` put them.
        let of = |pick: fn(&Row) -> &Dir| -> Vec<crate::analysis::sweep::Sample> {
            rows.iter()
                .filter(|r| r.measured() && pick(r).ios > 0)
                .map(|r| sample(r, pick(r), "bs"))
                .collect()
        };
        out.push(
            crate::analysis::sweep::advice(&of(read_of), &of(write_of))
                .unwrap_or(SweepFinding::AdviceUnavailable),
        );
    }
    out.extend(target.map(|t| latency_target(record, t)));
    out
}

/// The lines under the table: the latency target's, what ran where it is not what the points
/// say, the page cache and syncs (from the record's steps and the rows), then the
/// sentences of the other `findings` in their order.
#[must_use]
pub fn foot(record: &RunRecord, rows: &[Row], findings: &[SweepFinding]) -> Vec<String> {
    use crate::report::sweep::sentence;
    let is_target = |f: &&SweepFinding| matches!(f, SweepFinding::LatencyTarget { .. });
    let mut lines: Vec<String> = findings
        .iter()
        .filter(is_target)
        .filter_map(sentence)
        .collect();
    lines.extend(fallback_line(record, rows));
    lines.extend(trust_line(rows));
    lines.extend(page_cache_line(rows));
    lines.extend(sync_line(rows));
    lines.extend(
        findings
            .iter()
            .filter(|f| !is_target(f))
            .filter_map(sentence),
    );
    lines
}

/// Where a swept option's value lies on a numeric axis (`compare`'s curves): the sweep's
/// dimension of that name reads it; `None` for another option or a value that is no number.
#[must_use]
pub fn sweep_x(option: &str, value: &str) -> Option<f64> {
    crate::sweep::Dimension::ALL
        .into_iter()
        .find(|d| d.name() == option)
        .and_then(|d| d.x(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON table of `rows`, carrying their findings.
    fn table_json(rows: &[Row], names: &[String]) -> serde_json::Value {
        serde_json::from_str(&render(rows, names, Format::Json, &analysis(rows, names))).unwrap()
    }
    use crate::analysis::points::ran_as;
    use crate::record::PointValue;
    use crate::record::StepRecord;
    use crate::stats::fixture;

    /// The sentences of `findings`, in order.
    fn sentences(findings: &[SweepFinding]) -> Vec<String> {
        findings
            .iter()
            .filter_map(crate::report::sweep::sentence)
            .collect()
    }

    fn dir(iops: f64, bytes_per_s: f64, mean_ns: f64, p99_ns: u64) -> Dir {
        Dir {
            ios: 1000,
            iops,
            bytes_per_s,
            mean_ns,
            p99_ns,
        }
    }

    fn rows() -> Vec<Row> {
        let row = |bs: &str, read: Dir, util: f64, aqu: f64| Row {
            point: vec![("bs".into(), bs.into())],
            status: "completed".into(),
            runs: 1,
            engine: "io_uring".into(),
            iodepth: 32,
            ran: None,
            fell_back: false,
            notes: Vec::new(),
            read,
            write: Dir::default(),
            sync: None,
            open_sync: None,
            write_lat_includes_sync: None,
            bytes: 64 << 20,
            elapsed_ns: 1_250_000_000,
            page_cache: false,
            util_pct: Some(util),
            aqu_sz: Some(aqu),
            memory: None,
            trust: crate::record::TrustRecord::default(),
        };
        vec![
            // 100 MB/s is 95.4 MiB/s; 1000 MiB/s is 1048.6 MB/s.
            row("4k", dir(24_414.0, 100e6, 40_000.0, 120_000), 87.3, 3.5),
            row(
                "1M",
                dir(1000.0, 1_048_576_000.0, 2_000_000.0, 4_500_000),
                100.0,
                31.97,
            ),
        ]
    }

    /// A `--rw read,write` by `--bs` sweep of ten points: both directions' columns.
    fn ten_rw_points() -> Vec<Row> {
        let mut out = Vec::new();
        for rw in ["read", "write"] {
            for (bs, k) in [
                ("4k", 1.0),
                ("16k", 4.0),
                ("64k", 16.0),
                ("256k", 64.0),
                ("1M", 256.0),
            ] {
                let d = dir(20_000.0 / k, 80e6 * k.sqrt(), 50_000.0 * k, 900_000);
                let mut row = rows().remove(0);
                row.point = vec![("rw".into(), rw.into()), ("bs".into(), bs.into())];
                (row.read, row.write) = if rw == "read" {
                    (d, Dir::default())
                } else {
                    (Dir::default(), d)
                };
                out.push(row);
            }
        }
        out
    }

    #[test]
    fn fitted_to_80_columns_keeps_rates_and_latency_and_names_what_it_left_out() {
        let rows = ten_rw_points();
        let names = vec!["rw".to_string(), "bs".to_string()];
        let full = render(&rows, &names, Format::Table, &[]);
        assert!(full.lines().any(|l| l.chars().count() > 80), "{full}");
        let text = render_fitted(&rows, &names, 80);
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line:?} in:\n{text}");
        }
        let header = text.lines().next().unwrap();
        for kept in [
            "read IOPS",
            "read MB/s",
            "read p99",
            "write IOPS",
            "write MB/s",
        ] {
            assert!(header.contains(kept), "{kept} in {header:?}");
        }
        assert!(!header.contains("MiB/s"), "{header:?}");
        // Every point keeps its row, its values and the best marks.
        assert_eq!(
            text.lines()
                .filter(|l| l.contains("k ") || l.contains("1M "))
                .count(),
            10
        );
        assert!(
            text.contains("best read") && text.contains("best write"),
            "{text}"
        );
        let note: String = text.lines().skip(11).collect::<Vec<_>>().join(" ");
        assert!(note.starts_with('+'), "{text}");
        assert!(
            note.contains("read MiB/s") && note.contains("aqu-sz"),
            "{note}"
        );
        assert!(note.contains("--format markdown or csv"), "{note}");
        let dropped: usize = note[1..].split(' ').next().unwrap().parse().unwrap();
        let columns = |t: &str| {
            t.lines()
                .next()
                .unwrap()
                .split("  ")
                .filter(|c| !c.trim().is_empty())
                .count()
        };
        assert_eq!(columns(&full), columns(&text) + dropped, "{full}\n{text}");
    }

    #[test]
    fn fitted_to_a_wide_terminal_is_the_whole_table() {
        let names = vec!["rw".to_string(), "bs".to_string()];
        let rows = ten_rw_points();
        assert_eq!(
            render_fitted(&rows, &names, 400),
            render(&rows, &names, Format::Table, &[])
        );
    }

    #[test]
    fn wrap_breaks_at_spaces_within_the_width() {
        assert_eq!(wrap("aa bb cc", 5), "aa bb\ncc\n");
        assert_eq!(wrap("abcdefgh ij", 4), "abcdefgh\nij\n");
        assert_eq!(wrap("short", 80), "short\n");
    }

    #[test]
    fn the_columns_are_the_point_then_mb_and_mib_latency_util_and_queue() {
        let names = ["bs".to_string()];
        assert_eq!(
            render(&rows(), &names, Format::Csv, &[]),
            "bs,read_iops,read_mb_s,read_mib_s,read_mean_ns,read_p99_ns,bytes,elapsed_ns,\
             util_pct,aqu_sz,engine,ran_iodepth,status,page_cache,spread_pct,marks,notes\n\
             4k,24414,100.0,95.4,40000,120000,67108864,1250000000,87.3,3.50,io_uring,32,\
             completed,false,,,\n\
             1M,1000,1048.6,1000.0,2000000,4500000,67108864,1250000000,100.0,31.97,io_uring,32,\
             completed,false,,,\n"
        );
        assert_eq!(
            render(&rows(), &names, Format::Table, &[]),
            "bs  read IOPS  read MB/s  read MiB/s  read mean  read p99   bytes  elapsed  %util  aqu-sz\n\
             4k      24414      100.0        95.4    40.0 us  120.0 us  64 MiB  1.250 s   87.3    3.50\n\
             1M       1000     1048.6      1000.0    2.00 ms   4.50 ms  64 MiB  1.250 s  100.0   31.97  best read\n"
        );
        // A direction no point ran has no columns.
        assert!(!render(&rows(), &names, Format::Csv, &[]).contains("write"));
    }

    #[test]
    fn an_interrupted_or_failed_point_is_never_the_best() {
        let names = ["bs".to_string()];
        for status in ["interrupted", "failed"] {
            let mut rows = rows();
            rows[1].status = status.into();
            let text = render(&rows, &names, Format::Table, &[]);
            let lines: Vec<&str> = text.lines().collect();
            assert!(lines[1].ends_with("best read"), "{text}");
            assert!(
                lines[2].ends_with(status) && !lines[2].contains("best"),
                "{text}"
            );
            let json: serde_json::Value = table_json(&rows, &names);
            assert_eq!(json["best_read"], 0, "{json}");
            assert!(sentences(&analysis(&rows, &names))[0].contains("peaks at 4k"));
        }
    }

    #[test]
    fn a_point_with_capped_batching_says_it_in_its_row_and_still_counts() {
        let mut rows = rows();
        for (row, depth) in rows.iter_mut().zip(["1", "32"]) {
            row.point = vec![("iodepth".into(), depth.into())];
            row.iodepth = depth.parse().unwrap();
        }
        let note = "iodepth_batch_complete_min 8 -> 1 at iodepth 1";
        rows[0].notes = vec![note.to_string()];
        let names = ["iodepth".to_string()];
        let text = render(&rows, &names, Format::Table, &[]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].ends_with(&format!("  {note}")), "{text}");
        assert!(lines[2].ends_with("  best read"), "{text}");
        // It ran at the depth its value names: it may be the best, a peak or a knee.
        assert!(rows[0].counts());
    }

    #[test]
    fn a_points_notes_stand_apart_from_its_marks_and_end_its_csv_row() {
        let mut rows = rows();
        for (row, depth) in rows.iter_mut().zip(["1", "32"]) {
            row.point = vec![("iodepth".into(), depth.into())];
            row.iodepth = depth.parse().unwrap();
        }
        // One note holds a comma (two values capped at once), as the sweep words it.
        let capped = "iodepth_batch_complete_min 8 -> 1, iodepth_low 4 -> 1 at iodepth 1";
        let other = "iodepth_batch 2 -> 1 at iodepth 1";
        rows[0].notes = vec![capped.to_string(), other.to_string()];
        rows[1].notes = vec![other.to_string()];
        rows[1].status = "interrupted".into();
        let names = ["iodepth".to_string()];
        let text = render(&rows, &names, Format::Table, &[]);
        let lines: Vec<&str> = text.lines().collect();
        // Marks among themselves ", ", notes after them and between them "; ".
        assert!(
            lines[1].ends_with(&format!("  best read; {capped}; {other}")),
            "{text}"
        );
        assert!(
            lines[2].ends_with(&format!("  interrupted; {other}")),
            "{text}"
        );
        let csv = render(&rows, &names, Format::Csv, &[]);
        let csv: Vec<&str> = csv.lines().collect();
        assert!(
            csv[0].ends_with(",status,page_cache,spread_pct,marks,notes"),
            "{csv:?}"
        );
        // Quoted where the notes hold a comma, as RFC 4180 asks; plain where they need not be.
        assert!(
            csv[1].ends_with(&format!(",completed,false,,,\"{capped}; {other}\"")),
            "{csv:?}"
        );
        assert!(
            csv[2].ends_with(&format!(",interrupted,false,,,{other}")),
            "{csv:?}"
        );
        // The columns before the notes keep their places.
        let header: Vec<&str> = csv[0].split(',').collect();
        assert_eq!(header.len(), 17, "{header:?}");
        assert_eq!(header[13], "page_cache");
    }

    #[test]
    fn a_marked_point_says_its_marks_and_is_never_the_best_nor_the_peak() {
        let mut rows = rows();
        // The faster 1M point ran 4 I/Os with the disk shared: marked, so the 4k row is best.
        rows[1].trust.marks = vec![TrustMark::Short, TrustMark::Shared];
        rows[1].trust.spread_pct = Some(12.5);
        assert!(!rows[1].counts() && rows[1].measured());
        let names = ["bs".to_string()];
        let text = render(&rows, &names, Format::Table, &[]);
        let line = |bs: &str| {
            text.lines()
                .find(|l| l.starts_with(bs))
                .unwrap()
                .to_string()
        };
        assert!(line("4k").ends_with("best read"), "{text}");
        assert!(line("1M").ends_with("short, shared"), "{text}");
        let csv = render(&rows, &names, Format::Csv, &[]);
        assert!(
            csv.lines()
                .nth(2)
                .unwrap()
                .ends_with(",false,12.5,short shared,"),
            "{csv}"
        );
        let findings = analysis(&rows, &names);
        assert!(
            findings.iter().all(|f| !matches!(
                f,
                SweepFinding::Peak { value, .. } if value.to_string() == "1M"
            )),
            "{findings:?}"
        );
        assert_eq!(
            trust_line(&rows).unwrap(),
            "NOT RELIABLE: 1 of 2 points are marked (short 1, shared 1): never the best, a peak \
             or a knee; to rely on them, measure with longer runs (--runtime or --io-size), \
             an idle disk"
        );
        assert_eq!(trust_line(&rows[..1]), None);
    }

    #[test]
    fn a_point_run_at_another_depth_says_so_and_is_not_on_the_depth_curve() {
        // psync asked for by name: the depth-32 point ran one I/O at a time.
        let mut rows = rows();
        for (row, depth) in rows.iter_mut().zip(["1", "32"]) {
            row.point = vec![("iodepth".into(), depth.into())];
            row.engine = "psync".into();
            row.iodepth = 1;
        }
        rows[1].ran = Some("ran psync at iodepth 1".into());
        let names = ["iodepth".to_string()];
        let text = render(&rows, &names, Format::Table, &[]);
        let lines: Vec<&str> = text.lines().collect();
        // The faster point ran at depth 1, not 32: not the best at 32.
        assert!(lines[1].ends_with("  best read"), "{text}");
        assert!(lines[2].ends_with("  ran psync at iodepth 1"), "{text}");
        assert_eq!(
            sentences(&analysis(&rows, &names)),
            ["read peaks at iodepth=1: 100 MB/s (95 MiB/s)"]
        );
        let csv = render(&rows, &names, Format::Csv, &[]);
        assert!(
            csv.lines()
                .nth(2)
                .unwrap()
                .ends_with(",psync,1,completed,false,,,"),
            "{csv}"
        );
    }

    /// A sweep's steps: io_uring asked at `depths`, run on `engine`.
    fn steps_on(engine: &str, depths: &[u32]) -> Vec<StepRecord> {
        let base = crate::stats::fixture::record().steps[0].clone();
        depths
            .iter()
            .map(|&depth| {
                let mut s = base.clone();
                s.job.ioengine = "io_uring".into();
                s.job.iodepth = depth;
                s.engine = engine.into();
                s
            })
            .collect()
    }

    #[test]
    fn a_point_that_fell_back_says_why_in_its_row_and_is_never_the_best() {
        let steps = steps_on("psync", &[1, 32]);
        let at_1 = ran_as(&[&steps[0]]);
        assert_eq!(
            at_1,
            (
                "psync".into(),
                1,
                Some("fell back to psync (io_uring unavailable)".into()),
                true
            )
        );
        let at_32 = ran_as(&[&steps[1]]);
        assert_eq!(
            at_32.2.as_deref(),
            Some("fell back to psync (io_uring unavailable), ran at iodepth 1")
        );
        let steps = steps_on("io_uring", &[32]);
        assert_eq!(ran_as(&[&steps[0]]), ("io_uring".into(), 32, None, false));

        let mut rows = rows();
        for (row, (depth, ran)) in rows.iter_mut().zip([("1", at_1), ("32", at_32)]) {
            row.point = vec![("iodepth".into(), depth.into())];
            (row.engine, row.iodepth, row.ran, row.fell_back) = ran;
        }
        let names = ["iodepth".to_string()];
        let text = render(&rows, &names, Format::Table, &[]);
        let lines: Vec<&str> = text.lines().collect();
        // Even at depth 1, where psync's one I/O at a time is the depth asked for, the point
        // measured psync, not the sweep's io_uring: no best, no peak, no knee.
        assert!(
            lines[1].ends_with("  fell back to psync (io_uring unavailable)"),
            "{text}"
        );
        assert!(
            lines[2].ends_with("  fell back to psync (io_uring unavailable), ran at iodepth 1"),
            "{text}"
        );
        assert!(!text.contains("best"), "{text}");
        assert!(analysis(&rows, &names).is_empty());
        let json: serde_json::Value = table_json(&rows, &names);
        assert_eq!(json["best_read"], serde_json::Value::Null, "{json}");
        assert_eq!(json["rows"][0]["fell_back"], true, "{json}");
        let mut record = crate::stats::fixture::record();
        record.engine.fallback =
            Some("io_uring unavailable (EPERM: permission denied); fell back to psync".into());
        assert_eq!(
            fallback_line(&record, &rows).unwrap(),
            "io_uring unavailable (EPERM: permission denied); fell back to psync: all 2 points \
             ran on psync, one I/O at a time per worker, not as their values say (the rows say \
             what ran); a point that fell back is never the best, a peak or a knee"
        );
    }

    #[test]
    fn a_direction_a_point_lacks_is_empty_in_csv_not_zero() {
        let mut rows = rows();
        rows[1].read = Dir::default();
        rows[1].write = dir(1000.0, 1e6, 3000.0, 9000);
        rows[0].util_pct = None;
        let csv = render(&rows, &["bs".to_string()], Format::Csv, &[]);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(
            lines[0].starts_with(
                "bs,read_iops,read_mb_s,read_mib_s,read_mean_ns,read_p99_ns,\
                 write_iops,write_mb_s,write_mib_s,write_mean_ns,write_p99_ns,bytes,elapsed_ns,\
                 util_pct,"
            ),
            "{csv}"
        );
        assert!(
            lines[1].starts_with("4k,24414,100.0,95.4,40000,120000,,,,,,"),
            "{csv}"
        );
        assert!(lines[1].contains(",1250000000,,3.50,"), "{csv}");
        assert!(
            lines[2].starts_with("1M,,,,,,1000,1.0,1.0,3000,9000,"),
            "{csv}"
        );
    }

    #[test]
    fn sync_calls_get_their_columns_and_the_foot_says_write_latency_leaves_them_out() {
        let mut rows = rows();
        for row in &mut rows {
            row.write = row.read;
            row.read = Dir::default();
        }
        rows[0].sync = Some(Sync {
            ios: 500,
            mean_ns: 108_000.0,
            p99_ns: 250_000,
        });
        rows[0].write_lat_includes_sync = Some(false);
        let names = ["fsync".to_string()];
        for row in &mut rows {
            row.point = vec![("fsync".into(), "1".into())];
        }
        rows[1].point = vec![("fsync".into(), "0".into())];
        let text = render(&rows, &names, Format::Table, &[]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].contains("write p99  sync mean  sync p99  "),
            "{text}"
        );
        assert!(
            lines[1].contains(" 120.0 us   108.0 us  250.0 us  "),
            "{text}"
        );
        // The point without syncs has empty sync cells.
        assert!(
            lines[2].contains(" 4.50 ms                       64 MiB"),
            "{text}"
        );
        let csv = render(&rows, &names, Format::Csv, &[]);
        assert!(
            csv.contains(",write_p99_ns,sync_mean_ns,sync_p99_ns,bytes,"),
            "{csv}"
        );
        assert!(csv.contains(",120000,108000,250000,67108864,"), "{csv}");
        assert!(csv.contains(",4500000,,,67108864,"), "{csv}");
        assert_eq!(
            sync_line(&rows).unwrap(),
            "write latency leaves out the sync: the fsync/fdatasync calls are timed apart, in the \
             sync columns"
        );
        rows[1].open_sync = Some("dsync".into());
        assert!(
            sync_line(&rows)
                .unwrap()
                .starts_with("write latency includes the sync where files were opened O_DSYNC"),
        );
        let json: serde_json::Value = table_json(&rows, &names);
        assert_eq!(json["rows"][0]["sync"]["mean_ns"], 108_000.0);
        assert_eq!(json["rows"][0]["write_lat_includes_sync"], false);
        assert_eq!(json["rows"][1]["sync"], serde_json::Value::Null);
        rows[1].sync = None;
        rows[0].sync = None;
        rows[1].open_sync = None;
        assert_eq!(sync_line(&rows), None);
        assert!(!render(&rows, &names, Format::Table, &[]).contains("sync mean"));
    }

    #[test]
    fn no_read_peak_is_claimed_over_an_option_that_changes_only_writes() {
        let mut out = Vec::new();
        for (rw, fsync) in [("read", "0"), ("write", "0"), ("write", "1")] {
            let mut row = rows().remove(0);
            row.point = vec![("rw".into(), rw.into()), ("fsync".into(), fsync.into())];
            if rw == "write" {
                let slower = if fsync == "1" { 0.5 } else { 1.0 };
                row.write = dir(24_414.0 * slower, 100e6 * slower, 40_000.0, 120_000);
                row.read = Dir::default();
            }
            out.push(row);
        }
        let names = ["rw".to_string(), "fsync".to_string()];
        let said = sentences(&analysis(&out, &names));
        assert!(said.iter().all(|s| !s.contains("read peaks")), "{said:?}");
        assert!(
            said.iter()
                .any(|s| s.starts_with("rw=write: write peaks at fsync=0")),
            "{said:?}"
        );
        // Reads in a mixed point do change with fsync: their peak stays.
        for row in &mut out[1..] {
            row.read = dir(1000.0, 4e6, 40_000.0, 120_000);
        }
        let said = sentences(&analysis(&out, &names));
        assert!(
            said.iter().any(|s| s.contains("read peaks at fsync=")),
            "{said:?}"
        );
    }

    #[test]
    fn a_page_cache_row_is_flagged_and_never_the_best_nor_the_peak() {
        let mut rows = rows();
        rows[1].page_cache = true;
        let names = ["bs".to_string()];
        let text = render(&rows, &names, Format::Table, &[]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].ends_with("best read"), "{text}");
        assert!(
            lines[2].ends_with("  PAGE CACHE: measures memory"),
            "{text}"
        );
        let csv = render(&rows, &names, Format::Csv, &[]);
        assert!(csv.lines().nth(2).unwrap().ends_with(",true,,,"), "{csv}");
        assert_eq!(
            page_cache_line(&rows).unwrap(),
            "PAGE CACHE: 1 of 2 points measured memory, not the disk (bs=1M): flagged in their \
             rows, never the best, a peak or a knee"
        );
        assert_eq!(page_cache_line(&rows[..1]), None);
        let json: serde_json::Value = table_json(&rows, &names);
        assert_eq!(json["best_read"], 0);
        assert_eq!(json["rows"][1]["page_cache"], true);
        assert_eq!(
            sentences(&analysis(&rows, &names)),
            ["read peaks at 4k: 100 MB/s (95 MiB/s)"]
        );
    }

    #[test]
    fn the_foot_says_the_latency_target_first_and_the_advice_last() {
        let rows = rows();
        let names = ["bs".to_string()];
        let mut findings = analysis(&rows, &names);
        findings.push(SweepFinding::AdviceUnavailable);
        findings.push(SweepFinding::LatencyTarget {
            percentile: 99.0,
            target_ns: 1_000_000,
            met: None,
            first_miss: None,
        });
        let foot = foot(&fixture::record(), &rows, &findings);
        assert_eq!(
            foot,
            [
                "latency target p99 <= 1.00 ms: no point measured any latency",
                "read peaks at 1M: 1.05 GB/s (1000 MiB/s)",
                "advice: needs a block-size sweep with reads and writes",
            ]
        );
    }

    #[test]
    fn the_analysis_is_typed_and_the_sentences_are_rendered_from_it() {
        let depth = |d: &str, iops: f64, p99_us: u64| Row {
            point: vec![
                ("rw".into(), "randread".into()),
                ("iodepth".into(), d.into()),
            ],
            read: dir(iops, iops * 4096.0, 1e9 / iops, p99_us * 1000),
            iodepth: d.parse().unwrap(),
            ..rows()[0].clone()
        };
        let rows = vec![
            depth("1", 10_000.0, 100),
            depth("4", 40_000.0, 150),
            depth("16", 41_000.0, 400),
        ];
        let names = ["rw".to_string(), "iodepth".to_string()];
        let analysis = analysis(&rows, &names);
        let json = serde_json::to_value(&analysis).unwrap();
        let knee = json
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["kind"] == "knee")
            .unwrap();
        assert_eq!(
            *knee,
            serde_json::json!({
                "kind": "knee",
                "at": [{"option": "rw", "value": "randread"}],
                "dimension": "iodepth",
                "value": 4,
                "direction": "read",
                "iops": 40_000.0,
                "p99_ns": 150_000,
                "p99_limit_ns": 200_000,
            })
        );
        let best = json.as_array().unwrap().last().unwrap();
        assert_eq!(best["kind"], "best");
        assert_eq!(best["row"], 2);
        assert_eq!(best["direction"], "read");
        // Read back, the findings render the foot's sentences.
        let back: Vec<SweepFinding> = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, analysis);
        assert_eq!(
            sentences(&back),
            [
                "rw=randread: read peaks at iodepth=16: 168 MB/s (160 MiB/s)",
                "rw=randread: read knee at iodepth=4: 40.0k IOPS, p99 150.0 us (limit 2x the \
                 lowest p99: 200.0 us)",
            ]
        );
        let table: serde_json::Value =
            serde_json::from_str(&render(&rows, &names, Format::Json, &analysis)).unwrap();
        assert_eq!(table["analysis"], json);
    }

    /// A record of one point per `(bs, %util)` and loop, read at `mb` MB/s.
    fn record(points: &[(&str, &[(f64, f64)])]) -> RunRecord {
        let mut record = fixture::record();
        let template = record.steps[0].clone();
        record.steps.clear();
        for (bs, runs) in points {
            for &(mb, util) in *runs {
                let mut step = template.clone();
                step.point = vec![PointValue::new("bs", bs)];
                step.read.total_ios = 1000;
                step.read.bw_bytes = (mb * 1e6) as u64;
                let mut device = step.devices[0].clone();
                device.iostat.util_pct = util;
                step.device = Some(device);
                record.steps.push(step);
            }
        }
        record
    }

    #[test]
    fn util_over_100_is_clamped_as_iostat_does() {
        let record = record(&[("4k", &[(100.0, 101.7)]), ("64k", &[(200.0, 55.0)])]);
        let util: Vec<Option<f64>> = rows_of(&record, Pick::Best);
        assert_eq!(util, [Some(100.0), Some(55.0)]);
        // Clamped before the loops are averaged.
        let record = record_mean();
        assert_eq!(rows_of(&record, Pick::Mean), [Some(99.95)]);
        let text = render(
            &super::rows(&record, Pick::Mean),
            &["bs".into()],
            Format::Table,
            &[],
        );
        assert!(!text.contains("101"), "{text}");
    }

    #[test]
    fn a_row_from_the_record_has_its_syncs_bytes_time_and_page_cache() {
        let mut record = record(&[
            ("4k", &[(100.0, 50.0)]),
            ("64k", &[(200.0, 60.0), (300.0, 70.0)]),
        ]);
        let step = &mut record.steps[0];
        step.read.io_bytes = 1 << 20;
        step.elapsed_ns = 500_000_000;
        step.sync.total_ios = 10;
        step.sync.lat_ns.mean = 2000.0;
        step.job.sync = Some("dsync".into());
        // The device served a tenth of the bytes: the page cache served the rest.
        let reconciliation = &mut step.device.as_mut().unwrap().reconciliation;
        reconciliation.app_bytes = 1000;
        reconciliation.device_bytes = 100;
        for (step, mib) in record.steps[1..].iter_mut().zip([2u64, 4]) {
            step.read.io_bytes = mib << 20;
            step.elapsed_ns = mib * 500_000_000;
        }
        let rows = super::rows(&record, Pick::Mean);
        let r = &rows[0];
        assert_eq!(
            (r.bytes, r.elapsed_ns, r.page_cache),
            (1 << 20, 500_000_000, true)
        );
        assert_eq!(r.sync.map(|s| (s.ios, s.mean_ns)), Some((10, 2000.0)));
        assert_eq!(r.open_sync.as_deref(), Some("dsync"));
        assert_eq!(r.write_lat_includes_sync, Some(true));
        assert!(!r.counts());
        // Two loops averaged: 3 MiB in 1.5 s.
        let r = &rows[1];
        assert_eq!(
            (r.bytes, r.elapsed_ns, r.page_cache),
            (3 << 20, 1_500_000_000, false)
        );
        assert_eq!((r.sync, r.write_lat_includes_sync), (None, None));
        // The best loop's own numbers.
        let r = &super::rows(&record, Pick::Best)[1];
        assert_eq!((r.bytes, r.elapsed_ns), (4 << 20, 2_000_000_000));
        // The null engine sends the device nothing: never the page cache.
        record.steps[0].engine = "null".into();
        assert!(!super::rows(&record, Pick::Best)[0].page_cache);
    }

    fn record_mean() -> RunRecord {
        record(&[("4k", &[(100.0, 101.7), (100.0, 99.9)])])
    }

    fn rows_of(record: &RunRecord, pick: Pick) -> Vec<Option<f64>> {
        super::rows(record, pick)
            .iter()
            .map(|r| r.util_pct.map(|u| (u * 100.0).round() / 100.0))
            .collect()
    }
}
