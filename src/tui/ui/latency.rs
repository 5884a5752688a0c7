//! Latency: percentiles over two spans (live: the last interval and the step so far; recorded:
//! the last step and the whole run), and beside or below them the heatmap (latency over
//! time, `heatmap.rs`) where it fits, else (or after `h`) the histogram: log-spaced bands over
//! the range the data holds (p0.1 to max), folded from the fine buckets, with the p50/p99/p99.9
//! of the second span marked.
//! ```text
//! +- latency (submit to completion) ------+
//! |                   read                |
//! |            last      seg              |
//! | p50       95.2us    98.1us            |
//! | p90        ...                        |
//! |         last interval  this segment        |
//! | <=1.9ms ⣿⣿⣿⣿⡇      31%  ⣿⣿⣿⣿     28% p50 |
//! +---------------------------------------+
//! ```
//! Wide panels put the chart beside the percentiles. Narrow ones show the heatmap alone when the
//! panel has 8 rows or more (its marks carry p50/p99/p99.9), else the table and, if room is
//! left, the histogram below.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::theme::Theme;
use super::{fmt, heatmap};
use crate::stats;
use crate::tui::view::{Direction, LatencyBucket, LatencyView, RunState, View};

const COL: usize = 9;

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(lat) = &view.latency else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let scale = if view.ui.log_scale { " (log)" } else { "" };
    // A job's name before all else: the panel follows the jobs table's selection.
    let of = lat
        .of
        .as_ref()
        .map_or(String::new(), |of| format!("{of}: "));
    let what = lat
        .what
        .as_deref()
        .unwrap_or("latency, submit to completion");
    let mut title = format!(" {of}{what}{scale} ");
    if lat.of.is_some() && title.chars().count() + 2 > usize::from(area.width) {
        title = format!(" {of}latency{scale} ");
    }
    let block = Block::bordered()
        .title(title)
        .border_style(theme.border(false));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.is_empty() {
        return;
    }
    // Both spans per direction when they fit; else only the recent one (reads and writes
    // side by side at 80 columns matter more than the second span).
    let width_for = |spans: usize| 6 + COL * spans * lat.rows.len().max(1);
    let both = usize::from(inner.width) >= width_for(2);
    let table = percentile_lines(lat, theme, both, over(view));
    let table_width = u16::try_from(width_for(if both { 2 } else { 1 })).unwrap_or(u16::MAX);
    let table_height = u16::try_from(table.len()).unwrap_or(u16::MAX);
    if inner.width >= table_width + 32 {
        let left = Rect {
            width: table_width,
            ..inner
        };
        // The table and the chart apart, by a rule between them.
        let rule = Rect {
            x: left.right() + 1,
            width: 1,
            ..inner
        };
        let right = Rect {
            x: left.right() + 3,
            width: inner.width - table_width - 3,
            ..inner
        };
        f.render_widget(Paragraph::new(table), left);
        let rule_lines: Vec<Line> = (0..rule.height)
            .map(|_| Line::styled("│", theme.dim()))
            .collect();
        f.render_widget(Paragraph::new(rule_lines), rule);
        chart(f, right, lat, view, theme);
    } else {
        let heat =
            lat.heatmap.as_ref().is_some_and(|h| !h.columns.is_empty()) && !view.ui.histogram;
        let below = Rect {
            y: inner.y + table_height + 1,
            height: inner.height.saturating_sub(table_height + 1),
            ..inner
        };
        if heat && !heatmap::fits(below) && inner.height >= 8 {
            // Narrow and too short for both: the heatmap takes the panel, its marks carry
            // p50/p99/p99.9 (the last interval's live, the longer span's once the run is
            // over; the percentile table is one `h` away).
            chart(f, inner, lat, view, theme);
            return;
        }
        f.render_widget(Paragraph::new(table), inner);
        if inner.height > table_height + 2 {
            chart(f, below, lat, view, theme);
        }
    }
}

/// The percentile table; with room for one span only, the recent one while the run goes on
/// and the total once it is over (`over`).
fn percentile_lines(lat: &LatencyView, theme: Theme, both: bool, over: bool) -> Vec<Line<'static>> {
    let dir_style = |d: Direction| match d {
        Direction::Read => theme.read(),
        Direction::Write | Direction::Sync => theme.write(),
        Direction::Trim => theme.trim(),
    };
    // Two header lines: the direction over its pair of columns, then what each column covers.
    // (One line of "write last" in a 9-wide column ran into its neighbour.)
    let mut directions = vec![Span::raw(format!("{:<6}", ""))];
    let mut spans_head = vec![Span::raw(format!("{:<6}", ""))];
    let (recent, total) = lat.columns.short();
    for row in &lat.rows {
        let labels: &[&str] = match (both, over) {
            (true, _) => &[recent, total],
            (false, false) => &[recent],
            (false, true) => &[total],
        };
        // A paced direction's second row: latency from each I/O's scheduled time.
        let name = match (row.from_schedule, both) {
            (false, _) => row.dir.label().to_string(),
            (true, true) => format!("{} from sched", row.dir.label()),
            (true, false) => format!("{} sched", &row.dir.label()[..1]),
        };
        directions.push(Span::styled(
            format!("{name:>width$}", width = COL * labels.len()),
            dir_style(row.dir),
        ));
        for label in labels {
            spans_head.push(Span::styled(format!("{label:>COL$}"), theme.dim()));
        }
    }
    let mut lines = vec![Line::from(directions), Line::from(spans_head)];
    if lat.rows.is_empty() {
        lines.push(Line::styled("no I/O yet", theme.dim()));
        return lines;
    }
    for (i, label) in ["p50", "p90", "p99", "p99.9", "max"].iter().enumerate() {
        let mut spans = vec![Span::styled(format!("{label:<6}"), theme.label())];
        for row in &lat.rows {
            let shown = match (both, over) {
                (true, _) => [Some(row.interval), Some(row.total)],
                (false, false) => [Some(row.interval), None],
                (false, true) => [Some(row.total), None],
            };
            for p in shown.into_iter().flatten() {
                let text = p.map_or_else(|| "-".to_string(), |p| fmt::latency_ns(p.rows()[i].1));
                spans.push(Span::styled(format!("{text:>COL$}"), theme.value()));
            }
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// Whether the run is over: its numbers no longer move, and the panel shows the totals where
/// it has room for one span only.
fn over(view: &View) -> bool {
    matches!(
        view.header.state,
        Some(
            RunState::Finished
                | RunState::Stopped
                | RunState::Interrupted
                | RunState::Failed(_)
                | RunState::Recorded
        )
    )
}

/// The heatmap's marks: the newest interval's while the run goes on; once it is over, the
/// total of `dir` (the step's, as the summary prints it).
fn marks(lat: &LatencyView, dir: Direction, over: bool) -> heatmap::Marks {
    let row = lat.rows.iter().find(|r| r.dir == dir && !r.from_schedule);
    match row.and_then(|r| r.total) {
        Some(p) if over => heatmap::Marks::Over {
            p50_ns: p.p50_ns,
            p99_ns: p.p99_ns,
            p999_ns: p.p999_ns,
            short: lat.columns.short().1,
            long: lat.columns.long().1,
        },
        _ => heatmap::Marks::Last(
            row.and_then(|r| r.interval)
                .map(|p| [p.p50_ns, p.p99_ns, p.p999_ns]),
        ),
    }
}

/// The heatmap unless `h` asked for the histogram, the area is too small for it or there are
/// no per-interval histograms (a format 2 record, the first interval of a run).
fn chart(f: &mut Frame, area: Rect, lat: &LatencyView, view: &View, theme: Theme) {
    match &lat.heatmap {
        Some(heat) if !heat.columns.is_empty() && !view.ui.histogram && heatmap::fits(area) => {
            heatmap::render(f, area, heat, theme, marks(lat, heat.dir, over(view)));
        }
        _ => histogram(f, area, lat, view.ui.log_scale, theme),
    }
}

/// Folds sparse buckets into at most `rows` bands (`heatmap::edges_for`: log-spaced over
/// p0.1..p99 of the totals, one more for the tail; anything faster lands in the first band). Each band's `upper_ns` is its upper
/// edge.
fn fold_buckets(buckets: &[LatencyBucket], rows: usize) -> Vec<LatencyBucket> {
    let totals: Vec<stats::LatencyBucket> = buckets
        .iter()
        .map(|b| stats::LatencyBucket {
            le_ns: b.upper_ns,
            count: b.total.max(b.interval),
        })
        .collect();
    let Some(edges) = heatmap::edges_for(&totals, rows) else {
        return Vec::new();
    };
    let mut bands: Vec<LatencyBucket> = edges
        .iter()
        .map(|&upper_ns| LatencyBucket {
            upper_ns,
            interval: 0,
            total: 0,
        })
        .collect();
    for b in buckets {
        let band = &mut bands[heatmap::band_of(&edges, b.upper_ns)];
        band.interval += b.interval;
        band.total += b.total;
    }
    bands
}

/// Which band of `bands` holds p50, p99 and p99.9 of the second span ("p50" etc., or empty).
fn percentile_marks(buckets: &[LatencyBucket], bands: &[LatencyBucket]) -> Vec<&'static str> {
    let totals: Vec<stats::LatencyBucket> = buckets
        .iter()
        .map(|b| stats::LatencyBucket {
            le_ns: b.upper_ns,
            count: b.total,
        })
        .collect();
    let edges: Vec<u64> = bands.iter().map(|b| b.upper_ns).collect();
    let mut marks = vec![""; bands.len()];
    if totals.iter().any(|b| b.count > 0) {
        for (pct, name) in [(50.0, "p50"), (99.0, "p99"), (99.9, "p99.9")] {
            let row = heatmap::band_of(&edges, stats::bucket_percentile_ns(&totals, pct));
            if marks[row].is_empty() {
                marks[row] = name;
            }
        }
    }
    marks
}

fn histogram(f: &mut Frame, area: Rect, lat: &LatencyView, log: bool, theme: Theme) {
    if area.height < 2 || area.width < 20 {
        return;
    }
    let rows = usize::from(area.height - 1);
    let buckets = fold_buckets(&lat.buckets, rows);
    let marks = percentile_marks(&lat.buckets, &buckets);
    // "<=853.2us" is the longest band label.
    let label_w = 9;
    let pct_w = 4;
    let mark_w = 6;
    let half = (usize::from(area.width) - label_w - mark_w) / 2;
    let bar_w = half.saturating_sub(pct_w + 2);
    let sum_interval: u64 = buckets.iter().map(|b| b.interval).sum();
    let sum_total: u64 = buckets.iter().map(|b| b.total).sum();
    let max_interval = buckets.iter().map(|b| b.interval).max().unwrap_or(0);
    let max_total = buckets.iter().map(|b| b.total).max().unwrap_or(0);
    let frac = |v: u64, max: u64| {
        if max == 0 {
            0.0
        } else if log {
            (1.0 + v as f64).ln() / (1.0 + max as f64).ln()
        } else {
            v as f64 / max as f64
        }
    };
    let pct = |v: u64, sum: u64| {
        if sum == 0 {
            0.0
        } else {
            100.0 * v as f64 / sum as f64
        }
    };
    let mut lines = vec![Line::from(vec![
        Span::raw(format!("{:<label_w$}", "")),
        // At least one space between the two labels, however narrow the panel.
        Span::styled(
            format!("{:<w$} ", lat.columns.long().0, w = half.saturating_sub(1)),
            theme.label(),
        ),
        Span::styled(lat.columns.long().1, theme.label()),
    ])];
    if buckets.is_empty() {
        let measured = lat.rows.iter().any(|r| r.total.is_some());
        let why = if measured {
            "no histogram in this data (percentiles only)"
        } else {
            "no completions yet"
        };
        lines.push(Line::styled(why, theme.dim()));
    }
    for (b, mark) in buckets.iter().zip(marks) {
        lines.push(Line::from(vec![
            Span::styled(
                format!("{:<label_w$}", format!("<={}", fmt::latency_ns(b.upper_ns))),
                theme.label(),
            ),
            Span::styled(
                format!(
                    "{:<bar_w$}",
                    fmt::bar(frac(b.interval, max_interval), bar_w)
                ),
                theme.read(),
            ),
            Span::raw(format!("{:>pct_w$.0}% ", pct(b.interval, sum_interval))),
            Span::styled(
                format!("{:<bar_w$}", fmt::bar(frac(b.total, max_total), bar_w)),
                theme.dim(),
            ),
            Span::raw(format!("{:>pct_w$.0}%", pct(b.total, sum_total))),
            Span::styled(format!(" {mark:<5}"), theme.marker()),
        ]));
    }
    f.render_widget(Paragraph::new(lines), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(upper_ns: u64, n: u64) -> LatencyBucket {
        LatencyBucket {
            upper_ns,
            interval: n,
            total: n * 10,
        }
    }

    #[test]
    fn folding_trims_empty_ends_and_merges_to_fit() {
        let buckets = [b(1, 0), b(2, 1), b(4, 2), b(8, 3), b(16, 4), b(32, 0)];
        let all = fold_buckets(&buckets, 10);
        assert!(all.len() <= 10);
        // The range ends where the data ends: the last band is the largest bound with I/Os.
        assert_eq!(all.last().unwrap().upper_ns, 16);
        assert_eq!(all.iter().map(|b| b.interval).sum::<u64>(), 10);
        let two = fold_buckets(&buckets, 2);
        assert_eq!(two.len(), 2);
        assert_eq!((two[0].upper_ns, two[0].interval), (6, 3));
        assert_eq!((two[1].upper_ns, two[1].total), (16, 70));
        assert!(fold_buckets(&[b(1, 0)], 3).is_empty());
    }

    #[test]
    fn fine_buckets_spread_over_rows_and_carry_the_percentile_marks() {
        // 98% of I/Os between 270 and 520 us: one power-of-two bucket, many fine ones.
        let mut hist = stats::LatencyHistogram::new();
        for i in 0..9_800u64 {
            hist.record(270_000 + (i * 7_919) % 250_000);
        }
        for i in 0..200u64 {
            hist.record(600_000 + i * 40_000);
        }
        let buckets: Vec<LatencyBucket> = hist
            .fine_buckets()
            .iter()
            .map(|x| LatencyBucket {
                upper_ns: x.le_ns,
                interval: x.count,
                total: x.count,
            })
            .collect();
        let bands = fold_buckets(&buckets, 8);
        assert_eq!(bands.len(), 8);
        let busiest = bands.iter().map(|b| b.total).max().unwrap();
        assert!(busiest < 9_000, "{bands:?}");
        let marks = percentile_marks(&buckets, &bands);
        assert_eq!(
            marks.iter().filter(|m| !m.is_empty()).count(),
            3,
            "{marks:?}"
        );
    }

    #[test]
    fn heatmap_marks_are_the_tables_numbers_for_the_window_they_name() {
        // Live: the last interval's percentiles, as the table's `last` column has them.
        let mut view = crate::tui::ui::sample::bench();
        let lat = view.latency.clone().unwrap();
        let row = lat.rows[0].clone();
        let last = row.interval.unwrap();
        assert!(!over(&view));
        assert_eq!(
            marks(&lat, row.dir, over(&view)),
            heatmap::Marks::Last(Some([last.p50_ns, last.p99_ns, last.p999_ns]))
        );
        // No I/O of the direction in the last interval: no marks, not an older column's.
        let mut idle = lat.clone();
        idle.rows[0].interval = None;
        assert_eq!(marks(&idle, row.dir, false), heatmap::Marks::Last(None));
        // A record shown after the fact is over: its marks are the longer span's.
        view.header.state = Some(RunState::Recorded);
        assert!(over(&view));
        let total = row.total.unwrap();
        assert!(matches!(
            marks(&lat, row.dir, over(&view)),
            heatmap::Marks::Over { p50_ns, p99_ns, p999_ns, .. }
                if [p50_ns, p99_ns, p999_ns] == [total.p50_ns, total.p99_ns, total.p999_ns]
        ));
    }
}
