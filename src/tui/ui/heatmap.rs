//! The latency heatmap: time on x (one column per interval, the newest on the right), latency
//! on y (log-spaced bands over p0.1..p99 of the visible intervals, one more up to max), shade = the
//! share of that interval's I/Os in the band. Drawn inside the latency panel (`h` toggles it
//! with the histogram). The marks on the right are p50/p99/p99.9 from merged histograms: the
//! last interval's while the run goes on (the latency table's `last` column), the step's
//! or the whole run's once it is over; the caption says whose.
//! ```text
//! read latency over time: shade = share of the interval's I/Os   h: histogram
//! <=61ms  |                                  ⠂       ⠂ |
//! <=8.1ms |⠂ ⠂⠂  ⠂⠂⠂ ⠂⠂⠂⠂ ⠂⠂⠂ ⠂⠂ ⠂⠂⠂⠒⠂⠂⠒⠂⠂⠂⠂⠂⠂⠒⠂⠂⠒⠂⠂ |p99.9
//! <=2.6ms |⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣿⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶⣶|p50
//!         1s                                  60s
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::fmt;
use super::theme::Theme;
use crate::stats::{LatencyBucket, bucket_percentile_ns};
use crate::tui::view::{Direction, HeatmapView};

/// Shades from a trace to most of the interval, braille so `NO_COLOR` terminals see them.
const SHADES: [(f64, char); 5] = [
    (0.01, '⠂'),
    (0.05, '⠒'),
    (0.20, '⠶'),
    (0.50, '⣶'),
    (1.00, '⣿'),
];

/// Whether `area` is tall enough for a heatmap to say more than the histogram: four bands of
/// latency plus the title and the time axis.
#[must_use]
pub fn fits(area: Rect) -> bool {
    area.height >= 6 && area.width >= 30
}

/// Upper bounds of `rows` bands spaced evenly on a log scale from `lo_ns` to `hi_ns`,
/// ascending; the last is `hi_ns`.
#[must_use]
pub fn bands(lo_ns: u64, hi_ns: u64, rows: usize) -> Vec<u64> {
    let rows = rows.max(1);
    let lo = lo_ns.max(1) as f64;
    let hi = (hi_ns.max(lo_ns + 1)) as f64;
    let mut edges: Vec<u64> = (1..=rows)
        .map(|k| (lo * (hi / lo).powf(k as f64 / rows as f64)).round() as u64)
        .collect();
    if let Some(last) = edges.last_mut() {
        *last = hi_ns.max(lo_ns + 1);
    }
    edges.dedup();
    edges
}

/// The band holding `upper_ns` (below the first edge: the first band; above the last: the last).
#[must_use]
pub fn band_of(edges: &[u64], upper_ns: u64) -> usize {
    edges
        .partition_point(|&edge| edge < upper_ns)
        .min(edges.len().saturating_sub(1))
}

/// The bands a set of sparse buckets is drawn in: log-spaced from p0.1 to p99, and one more
/// band for the tail up to the largest bound (so a long tail does not squeeze the body of the
/// distribution into one band). `None` when there are no I/Os.
#[must_use]
pub fn edges_for(buckets: &[LatencyBucket], rows: usize) -> Option<Vec<u64>> {
    let hi = buckets.iter().rev().find(|b| b.count > 0)?.le_ns;
    let lo = bucket_percentile_ns(buckets, 0.1);
    let p99 = bucket_percentile_ns(buckets, 99.0);
    if rows < 4 || p99 >= hi || p99 <= lo {
        return Some(bands(lo, hi, rows));
    }
    let mut edges = bands(lo, p99, rows - 1);
    edges.push(hi);
    Some(edges)
}

fn merged(heat: &HeatmapView, first: usize) -> Vec<LatencyBucket> {
    let mut all = std::collections::BTreeMap::<u64, u64>::new();
    for column in &heat.columns[first..] {
        for &(le_ns, count) in &column.buckets {
            *all.entry(le_ns).or_default() += count;
        }
    }
    all.into_iter()
        .map(|(le_ns, count)| LatencyBucket { le_ns, count })
        .collect()
}

/// Whose percentiles the marks on the right are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marks {
    /// The newest interval's p50/p99/p99.9 from its merged histogram (the latency table's
    /// `last` column, the same numbers); `None` when that interval had no I/O of this direction.
    Last(Option<[u64; 3]>),
    /// Given: p50/p99/p99.9 over a longer span (a finished run's step), with the span's
    /// short and long names (`seg`, `this segment`).
    Over {
        p50_ns: u64,
        p99_ns: u64,
        p999_ns: u64,
        short: &'static str,
        long: &'static str,
    },
}

pub fn render(f: &mut Frame, area: Rect, heat: &HeatmapView, theme: Theme, of: Marks) {
    if area.height < 3 || area.width < 20 {
        return;
    }
    // Room for the longest band label and mark ("<=853.2us", " p99.9 4.59ms"); the map takes
    // the rest. The bands depend on the map's width (its first column), so they are found
    // with the widest labels first.
    const LABEL_W: usize = 9;
    const MARK_W: usize = 13;
    let map_w = usize::from(area.width).saturating_sub(LABEL_W + MARK_W + 1);
    let rows = usize::from(area.height) - 2;
    let shade_style = match heat.dir {
        Direction::Read => theme.read(),
        Direction::Write | Direction::Sync => theme.write(),
        Direction::Trim => theme.trim(),
    };
    // The caption shortens to the width rather than being cut.
    let dir = heat.dir.label();
    let width = usize::from(area.width);
    let (marks_short, marks_long) = match of {
        Marks::Last(_) => ("last", "last interval"),
        Marks::Over { short, long, .. } => (short, long),
    };
    let with_marks = format!(", shade = share of I/Os, marks = {marks_long}");
    let caption = [
        (
            format!("{dir} latency over time"),
            with_marks.clone(),
            "  h: histogram",
        ),
        (format!("{dir} latency over time"), with_marks, ""),
        (
            format!("{dir} latency over time"),
            ", shade = share of I/Os".to_string(),
            "",
        ),
        (format!("{dir} latency"), ", shade = share".to_string(), ""),
        (format!("{dir} latency"), String::new(), ""),
        (dir.to_string(), String::new(), ""),
    ]
    .into_iter()
    .find(|(a, b, c)| a.chars().count() + b.len() + c.len() <= width)
    .unwrap_or_else(|| (dir.to_string(), String::new(), ""));
    let mut lines = vec![Line::from(vec![
        Span::styled(caption.0, shade_style),
        Span::styled(caption.1, theme.label()),
        Span::styled(caption.2, theme.dim()),
    ])];
    let first = heat.columns.len().saturating_sub(map_w);
    let visible = &heat.columns[first..];
    let Some(edges) = edges_for(&merged(heat, first), rows) else {
        let why = heat.missing.as_deref().unwrap_or("no completions yet");
        lines.push(Line::styled(why.to_string(), theme.dim()));
        f.render_widget(Paragraph::new(lines), area);
        return;
    };
    // cells[row][column]: the share of that column's I/Os in the band.
    let mut cells = vec![vec![0.0f64; visible.len()]; edges.len()];
    for (x, column) in visible.iter().enumerate() {
        let sum: u64 = column.buckets.iter().map(|&(_, n)| n).sum();
        if sum == 0 {
            continue;
        }
        for &(le_ns, count) in &column.buckets {
            cells[band_of(&edges, le_ns)][x] += count as f64 / sum as f64;
        }
    }
    let mut marks = vec![String::new(); edges.len()];
    let values: Vec<(u64, &str)> = match of {
        Marks::Last(None) => Vec::new(),
        Marks::Last(Some([p50_ns, p99_ns, p999_ns])) => {
            vec![(p50_ns, "p50"), (p99_ns, "p99"), (p999_ns, "p99.9")]
        }
        Marks::Over {
            p50_ns,
            p99_ns,
            p999_ns,
            ..
        } => vec![(p50_ns, "p50"), (p99_ns, "p99"), (p999_ns, "p99.9")],
    };
    {
        for (ns, name) in values {
            let row = band_of(&edges, ns);
            if marks[row].is_empty() {
                marks[row] = format!(" {name} {}", fmt::latency_ns(ns));
            }
        }
    }
    let label_every = if edges.len() > 12 { 2 } else { 1 };
    for row in (0..edges.len()).rev() {
        let label = if (edges.len() - 1 - row) % label_every == 0 {
            format!("<={}", fmt::latency_ns(edges[row]))
        } else {
            String::new()
        };
        let mut spans = vec![Span::styled(format!("{label:<LABEL_W$}"), theme.label())];
        spans.push(Span::styled("│", theme.dim()));
        let map: String = cells[row].iter().map(|&share| shade(share)).collect();
        spans.push(Span::styled(format!("{map:<map_w$}"), shade_style));
        spans.push(Span::styled(
            format!("{:<MARK_W$}", marks[row]),
            theme.marker(),
        ));
        lines.push(Line::from(spans));
    }
    if let (Some(a), Some(b)) = (visible.first(), visible.last()) {
        let axis = time_axis(&fmt_s(a.t_s), &fmt_s(b.t_s), visible.len());
        // Under the marks: whose they are.
        lines.push(Line::styled(
            format!(
                "{:<w$}{axis:<map_w$} marks: {marks_short}",
                "",
                w = LABEL_W + 1
            ),
            theme.dim(),
        ));
    }
    f.render_widget(Paragraph::new(lines), area);
}

fn shade(share: f64) -> char {
    if share <= 0.0 {
        return ' ';
    }
    SHADES
        .iter()
        .find(|(upto, _)| share <= *upto)
        .map_or('⣿', |&(_, c)| c)
}

/// The time axis under `columns` columns of the map: the first column's time at the left and
/// the last's at the right with at least a space between them; only the last's where both do
/// not fit (or they are the same), nothing where not even that fits.
fn time_axis(from: &str, to: &str, columns: usize) -> String {
    let (from_w, to_w) = (from.chars().count(), to.chars().count());
    if from != to && from_w + 1 + to_w <= columns {
        let gap = columns - from_w - to_w;
        format!("{from}{:gap$}{to}", "")
    } else if to_w <= columns {
        format!("{to:>columns$}")
    } else {
        String::new()
    }
}

fn fmt_s(t_s: f64) -> String {
    format!("{}s", t_s.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_cover_the_range_on_a_log_scale() {
        let edges = bands(100_000, 10_000_000, 4);
        assert_eq!(edges.len(), 4);
        assert_eq!(*edges.last().unwrap(), 10_000_000);
        assert!((316_000..=317_000).contains(&edges[0]), "{edges:?}");
        assert_eq!(band_of(&edges, 1), 0);
        assert_eq!(band_of(&edges, 1_000_000), 1);
        assert_eq!(band_of(&edges, u64::MAX), 3);
        assert_eq!(bands(5, 5, 3).last(), Some(&6));
    }

    #[test]
    fn time_labels_never_run_together() {
        assert_eq!(time_axis("1s", "3s", 10), "1s      3s");
        assert_eq!(time_axis("1s", "3s", 5), "1s 3s");
        // "1s3s" was drawn here: the first label goes.
        assert_eq!(time_axis("1s", "3s", 4), "  3s");
        assert_eq!(time_axis("3s", "3s", 4), "  3s");
        assert_eq!(time_axis("10s", "120s", 3), "");
        assert_eq!(time_axis("1s", "3s", 0), "");
    }

    #[test]
    fn shades_grow_with_the_share() {
        assert_eq!(shade(0.0), ' ');
        assert_eq!(shade(0.001), '⠂');
        assert_eq!(shade(0.3), '⣶');
        assert_eq!(shade(1.0), '⣿');
    }
}
