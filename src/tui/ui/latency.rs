//! Latency: percentiles over two spans (live: the last interval and the segment so far; recorded:
//! the last segment and the whole run), and the log-bucket histogram.
//! ```text
//! +- latency (submit to completion) ------+
//! |                   read                |
//! |            last      seg              |
//! | p50       95.2us    98.1us            |
//! | p90        ...                        |
//! |         last interval  this segment   |
//! | <=64us  ⣿⣿⣿⣿⡇      31%  ⣿⣿⣿⣿     28% |
//! +---------------------------------------+
//! ```
//! Wide panels put the histogram beside the percentiles; narrow ones below, if room is left.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::fmt;
use super::theme::Theme;
use crate::tui::view::{Direction, LatencyBucket, LatencyView, View};

const COL: usize = 9;

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(lat) = &view.latency else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let scale = if view.ui.log_scale { " (log)" } else { "" };
    let block = Block::bordered()
        .title(format!(" latency, submit to completion{scale} "))
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
    let table = percentile_lines(lat, theme, both);
    let table_width = u16::try_from(width_for(if both { 2 } else { 1 })).unwrap_or(u16::MAX);
    let table_height = u16::try_from(table.len()).unwrap_or(u16::MAX);
    if inner.width >= table_width + 30 {
        let left = Rect {
            width: table_width,
            ..inner
        };
        let right = Rect {
            x: left.right() + 1,
            width: inner.width - table_width - 1,
            ..inner
        };
        f.render_widget(Paragraph::new(table), left);
        histogram(f, right, lat, view.ui.log_scale, theme);
    } else {
        f.render_widget(Paragraph::new(table), inner);
        if inner.height > table_height + 2 {
            let below = Rect {
                y: inner.y + table_height + 1,
                height: inner.height - table_height - 1,
                ..inner
            };
            histogram(f, below, lat, view.ui.log_scale, theme);
        }
    }
}

fn percentile_lines(lat: &LatencyView, theme: Theme, both: bool) -> Vec<Line<'static>> {
    let dir_style = |d: Direction| match d {
        Direction::Read => theme.read(),
        Direction::Write | Direction::Sync => theme.write(),
    };
    // Two header lines: the direction over its pair of columns, then what each column covers.
    // (One line of "write last" in a 9-wide column ran into its neighbour.)
    let mut directions = vec![Span::raw(format!("{:<6}", ""))];
    let mut spans_head = vec![Span::raw(format!("{:<6}", ""))];
    let (recent, total) = lat.columns.short();
    for row in &lat.rows {
        let labels: &[&str] = if both { &[recent, total] } else { &[recent] };
        directions.push(Span::styled(
            format!("{:>width$}", row.dir.label(), width = COL * labels.len()),
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
            let shown = if both {
                [Some(row.interval), Some(row.total)]
            } else {
                [Some(row.interval), None]
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

/// Merges neighbouring buckets until `rows` remain, keeping the upper bound of the last.
fn fold_buckets(buckets: &[LatencyBucket], rows: usize) -> Vec<LatencyBucket> {
    let first = buckets.iter().position(|b| b.total > 0 || b.interval > 0);
    let last = buckets.iter().rposition(|b| b.total > 0 || b.interval > 0);
    let (Some(first), Some(last)) = (first, last) else {
        return Vec::new();
    };
    let used = &buckets[first..=last];
    let per_row = used.len().div_ceil(rows.max(1));
    used.chunks(per_row.max(1))
        .map(|chunk| LatencyBucket {
            upper_ns: chunk.last().map_or(0, |b| b.upper_ns),
            interval: chunk.iter().map(|b| b.interval).sum(),
            total: chunk.iter().map(|b| b.total).sum(),
        })
        .collect()
}

#[allow(clippy::cast_precision_loss)]
fn histogram(f: &mut Frame, area: Rect, lat: &LatencyView, log: bool, theme: Theme) {
    if area.height < 2 || area.width < 20 {
        return;
    }
    let rows = usize::from(area.height - 1);
    let buckets = fold_buckets(&lat.buckets, rows);
    let label_w = 8;
    let pct_w = 4;
    let half = (usize::from(area.width) - label_w) / 2;
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
        Span::styled(format!("{:<half$}", lat.columns.long().0), theme.label()),
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
    for b in &buckets {
        lines.push(Line::from(vec![
            Span::styled(
                format!("{:<label_w$}", format!("<={}", fmt::bound_ns(b.upper_ns))),
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
        assert_eq!(all.len(), 4);
        assert_eq!(all[0].upper_ns, 2);
        let two = fold_buckets(&buckets, 2);
        assert_eq!(two.len(), 2);
        assert_eq!((two[0].upper_ns, two[0].interval), (4, 3));
        assert_eq!((two[1].upper_ns, two[1].total), (16, 70));
        assert!(fold_buckets(&[b(1, 0)], 3).is_empty());
    }
}
