//! The device panel: what the kernel says the disk did, with a short braille history,
//! the app-vs-device reconciliation and the warnings.
//! ```text
//! +- device vda (iostat -x) ---------------------------------------+
//! | r/s         12.3k ⣀⣤⣶⣿   w/s           0.0                      |
//! | rMiB/s       48.1 ⣀⣤⣶⣿   wMiB/s        0.0                      |
//! | r_await    2.51ms ⣀⣤⣶⣿   w_await    0.00ms                      |
//! | aqu-sz      31.02 ⣀⣤⣶⣿   %util       99.8% ⣿⣿⣿⣿                 |
//! | app 123,456 I/Os  device 123,001  device/app 1.00              |
//! | ! %util is not saturation on this device: ...                   |
//! +----------------------------------------------------------------+
//! ```
//! Tall panels give each metric its own row; short ones use two columns. A step over several
//! disks shows one row per disk instead (columns drop from the right when narrow):
//! ```text
//! +- devices (iostat -x) now, last 1s --------------------------------------+
//! | disk         r/s     w/s  rMiB/s  wMiB/s r_await w_await  aqu-sz  %util  |
//! | vda        12.3k     0.0    48.1     0.0  2.51ms  0.00ms   31.02  99.8%  |
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::fmt;
use super::theme::Theme;
use crate::tui::view::{DeviceRates, DeviceView, DeviceWindow, Header, Reconciliation, View};

/// Below this device/app ratio the application saw I/O the device never did.
const PAGE_CACHE_RATIO: f64 = 0.5;
/// Within these the device served the run's I/Os about once each.
const MATCH_LOW: f64 = 0.95;
const MATCH_HIGH: f64 = 1.05;

struct Metric {
    label: &'static str,
    get: fn(&DeviceRates) -> f64,
    show: fn(f64) -> String,
    /// Fixed top of the sparkline scale (`%util`), else the history's maximum.
    ceiling: Option<f64>,
}

/// `iostat -x`'s columns in the panel's order; the discard ones (`d...`) only show when the
/// device discards (see [`shown_metrics`]).
const METRICS: [Metric; 11] = [
    Metric {
        label: "r/s",
        get: |d| d.r_s,
        show: fmt::rate,
        ceiling: None,
    },
    Metric {
        label: "w/s",
        get: |d| d.w_s,
        show: fmt::rate,
        ceiling: None,
    },
    Metric {
        label: "d/s",
        get: |d| d.d_s,
        show: fmt::rate,
        ceiling: None,
    },
    Metric {
        label: "rMiB/s",
        get: |d| d.rmb_s,
        show: |v| format!("{v:.1}"),
        ceiling: None,
    },
    Metric {
        label: "wMiB/s",
        get: |d| d.wmb_s,
        show: |v| format!("{v:.1}"),
        ceiling: None,
    },
    Metric {
        label: "dMiB/s",
        get: |d| d.dmb_s,
        show: |v| format!("{v:.1}"),
        ceiling: None,
    },
    Metric {
        label: "r_await",
        get: |d| d.r_await_ms,
        show: |v| format!("{v:.2}ms"),
        ceiling: None,
    },
    Metric {
        label: "w_await",
        get: |d| d.w_await_ms,
        show: |v| format!("{v:.2}ms"),
        ceiling: None,
    },
    Metric {
        label: "d_await",
        get: |d| d.d_await_ms,
        show: |v| format!("{v:.2}ms"),
        ceiling: None,
    },
    Metric {
        label: "aqu-sz",
        get: |d| d.aqu_sz,
        show: |v| format!("{v:.2}"),
        ceiling: None,
    },
    Metric {
        label: "%util",
        get: |d| d.util_pct,
        show: |v| format!("{v:.1}%"),
        ceiling: Some(100.0),
    },
];

/// Whether any number the panel has (now, its history, a disk of the step) is a discard.
fn discards(dev: &DeviceView) -> bool {
    let any = |r: &DeviceRates| r.d_s > 0.0 || r.dmb_s > 0.0;
    any(&dev.now)
        || dev.history.iter().any(any)
        || dev.disks.iter().any(|d| d.now.as_ref().is_some_and(any))
}

/// The metrics the panel shows: `iostat -x`'s read and write columns, and its discard
/// columns when the device discards.
fn shown_metrics(dev: &DeviceView) -> Vec<&'static Metric> {
    let with_discards = discards(dev);
    METRICS
        .iter()
        .filter(|m| with_discards || !m.label.starts_with('d'))
        .collect()
}

/// Rows the metrics take in a tall panel (one metric a row).
#[must_use]
pub fn metric_rows(dev: &DeviceView) -> usize {
    shown_metrics(dev).len()
}

/// Rows inside the borders a short panel `width` columns wide (borders included) needs for
/// the throughput and `%util` ([`core_metrics`], in two columns where [`render`] makes two), or
/// for the header and a row per disk of a step over several disks.
#[must_use]
pub fn core_rows(dev: &DeviceView, width: u16) -> usize {
    if dev.disks.len() > 1 {
        return 1 + dev.disks.len();
    }
    let columns = if width.saturating_sub(2) < 40 { 1 } else { 2 };
    core_metrics(&shown_metrics(dev)).div_ceil(columns)
}

/// A metric's colour: reads, writes and discards as the charts draw them.
fn metric_style(m: &Metric, theme: Theme, other: Style) -> Style {
    match m.label.chars().next() {
        Some('r') => theme.read(),
        Some('w') => theme.write(),
        Some('d') => theme.trim(),
        _ => other,
    }
}

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(dev) = &view.device else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let several = dev.disks.len() > 1 && dev.absent.is_none();
    let title = if dev.absent.is_some() {
        " device: none ".to_string()
    } else if several {
        match window_label(dev.window, &view.header) {
            Some(window) => format!(" devices (iostat -x) {window} "),
            None => " devices (iostat -x) ".to_string(),
        }
    } else {
        match window_label(dev.window, &view.header) {
            Some(window) => format!(" device {} (iostat -x) {window} ", dev.name),
            None => format!(" device {} (iostat -x) ", dev.name),
        }
    };
    let block = Block::bordered()
        .title(title)
        .border_style(theme.border(false));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.is_empty() {
        return;
    }

    let tail = tail(dev, theme, usize::from(inner.width));
    if let Some(why) = &dev.absent {
        let mut lines = vec![Line::styled(why.clone(), theme.label())];
        lines.extend(tail);
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
        return;
    }
    if several {
        let mut lines = disk_lines(dev, theme, usize::from(inner.width));
        lines.extend(tail);
        f.render_widget(Paragraph::new(lines), inner);
        return;
    }
    let all = shown_metrics(dev);
    let height = usize::from(inner.height);
    let columns = if height >= all.len() + tail.len() || inner.width < 40 {
        1
    } else {
        2
    };
    let (metric_rows, metrics) = fitted_metrics(all, height, columns, tail.len());
    let col_width = usize::from(inner.width) / columns;

    let mut lines: Vec<Line> = Vec::new();
    let per_col = metrics.len().div_ceil(columns);
    for row in 0..per_col {
        let mut spans = Vec::new();
        for col in 0..columns {
            if let Some(m) = metrics.get(col * per_col + row) {
                spans.extend(cell(m, dev, col_width, theme));
            }
        }
        lines.push(Line::from(spans));
    }
    lines.truncate(metric_rows);
    let room = height.saturating_sub(lines.len());
    if tail.len() > room {
        lines.extend(short_tail(dev, theme, usize::from(inner.width), room));
    } else {
        lines.extend(tail);
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The metrics a short panel keeps when not all fit: throughput and `%util` first, then the
/// queue and the waits (a rank per label; the panel shows them in `iostat -x`'s order).
const PRIORITY: [&str; 11] = [
    "r/s", "w/s", "d/s", "rMiB/s", "wMiB/s", "dMiB/s", "%util", "aqu-sz", "r_await", "w_await",
    "d_await",
];

/// The metrics of [`PRIORITY`] before `aqu-sz`: never given up for a note.
fn core_metrics(metrics: &[&Metric]) -> usize {
    metrics
        .iter()
        .filter(|m| PRIORITY.iter().position(|p| *p == m.label) < Some(7))
        .count()
}

/// How many rows the metrics take in a panel `height` rows high of `columns` columns over
/// `tail` rows of notes, and which metrics they are (in `metrics`' order). The numbers come
/// first: every metric while at least two rows (or the whole tail) are left for the notes,
/// else as many rows as the notes leave but never fewer than the throughput and `%util` need;
/// rows too few for every metric keep those of [`PRIORITY`] first.
fn fitted_metrics(
    metrics: Vec<&'static Metric>,
    height: usize,
    columns: usize,
    tail: usize,
) -> (usize, Vec<&'static Metric>) {
    let needed = metrics.len().div_ceil(columns);
    let core = core_metrics(&metrics).div_ceil(columns);
    let rows = if height >= needed + tail.min(2) {
        needed
    } else {
        height.saturating_sub(tail).max(core).min(height)
    };
    (rows, keep_first(metrics, rows * columns))
}

/// At most `room` of `metrics`, those of [`PRIORITY`] first (the throughput and `%util` before
/// the waits), in `metrics`' order.
fn keep_first(metrics: Vec<&'static Metric>, room: usize) -> Vec<&'static Metric> {
    if metrics.len() <= room {
        return metrics;
    }
    let rank = |m: &Metric| PRIORITY.iter().position(|p| *p == m.label);
    let mut kept: Vec<&'static Metric> = metrics.clone();
    kept.sort_by_key(|m| rank(m));
    kept.truncate(room);
    metrics
        .into_iter()
        .filter(|m| kept.iter().any(|k| k.label == m.label))
        .collect()
}

/// The notes in `rows` rows where they do not fit whole: each (the reconciliation, every
/// warning) in full, in order, while it fits (the reconciliation without its verdict when only
/// that fits), nothing cut mid-line; a last line counts the notes left out.
fn short_tail(dev: &DeviceView, theme: Theme, width: usize, rows: usize) -> Vec<Line<'static>> {
    // Each note as its full lines and, for the reconciliation, its first line alone.
    let mut notes: Vec<(Vec<Line<'static>>, Option<Line<'static>>)> = Vec::new();
    if let Some(rec) = &dev.reconciliation {
        let full = reconciliation_lines(rec, dev.reconciliation_of.as_deref(), theme, width);
        let numbers = full.first().cloned();
        notes.push((full, numbers));
    }
    for w in &dev.warnings {
        let full = fmt::wrap(&w.text, width.saturating_sub(2))
            .into_iter()
            .enumerate()
            .map(|(i, text)| {
                let mark = if i == 0 { "! " } else { "  " };
                Line::styled(format!("{mark}{text}"), theme.warning(w.kind))
            })
            .collect();
        notes.push((full, None));
    }
    let (lines, left_out) = pack(&notes, rows);
    if left_out == 0 {
        return lines;
    }
    let (mut lines, more) = pack(&notes, rows.saturating_sub(1));
    if rows > 0 {
        let s = if more == 1 { "" } else { "s" };
        lines.push(Line::styled(
            format!("! {more} more note{s}: a taller terminal shows them"),
            theme.warn(),
        ));
    }
    lines
}

/// The notes that fit `rows` rows in order, each whole or by its short form, and how many
/// were left out.
fn pack(
    notes: &[(Vec<Line<'static>>, Option<Line<'static>>)],
    rows: usize,
) -> (Vec<Line<'static>>, usize) {
    let mut lines = Vec::new();
    let mut left_out = 0;
    for (full, short) in notes {
        let spare = rows - lines.len();
        if full.len() <= spare {
            lines.extend(full.iter().cloned());
        } else if let Some(short) = short.as_ref().filter(|_| spare > 0) {
            lines.push(short.clone());
        } else {
            left_out += 1;
        }
    }
    (lines, left_out)
}

/// A header and one row per disk of the step, as many metric columns as fit `width`.
fn disk_lines(dev: &DeviceView, theme: Theme, width: usize) -> Vec<Line<'static>> {
    const VALUE: usize = 8;
    let name_w = dev
        .disks
        .iter()
        .map(|d| d.name.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 16);
    let metrics = keep_first(shown_metrics(dev), width.saturating_sub(name_w) / VALUE);
    let mut header = vec![Span::styled(format!("{:<name_w$}", "disk"), theme.label())];
    header.extend(
        metrics
            .iter()
            .map(|m| Span::styled(format!("{:>VALUE$}", m.label), theme.label())),
    );
    let mut lines = vec![Line::from(header)];
    for disk in &dev.disks {
        let mut spans = vec![Span::styled(
            format!("{:<name_w$}", fmt::fit(&disk.name, name_w)),
            theme.value(),
        )];
        for m in &metrics {
            let text = disk
                .now
                .as_ref()
                .map_or_else(|| "-".into(), |r| (m.show)((m.get)(r)));
            let style = metric_style(m, theme, theme.value());
            spans.push(Span::styled(format!("{text:>VALUE$}"), style));
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// The lines under the metrics: the reconciliation, its verdict on the same line when it fits
/// and wrapped under it otherwise, and every warning, wrapped: nothing is cut.
fn tail(dev: &DeviceView, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(rec) = &dev.reconciliation {
        lines.extend(reconciliation_lines(
            rec,
            dev.reconciliation_of.as_deref(),
            theme,
            width,
        ));
    }
    for w in &dev.warnings {
        for (i, text) in fmt::wrap(&w.text, width.saturating_sub(2))
            .into_iter()
            .enumerate()
        {
            let mark = if i == 0 { "! " } else { "  " };
            lines.push(Line::styled(format!("{mark}{text}"), theme.warning(w.kind)));
        }
    }
    lines
}

/// Rows the reconciliation and warnings take in a panel `width` columns wide (borders
/// included), for the layout.
#[must_use]
pub fn tail_rows(dev: &DeviceView, width: u16) -> usize {
    tail(dev, Theme::new(false), usize::from(width.saturating_sub(2))).len()
}

fn cell(m: &Metric, dev: &DeviceView, width: usize, theme: Theme) -> Vec<Span<'static>> {
    const LABEL: usize = 8;
    const VALUE: usize = 9;
    let value = (m.show)((m.get)(&dev.now));
    // The history spans the rest of the cell, oldest sample at its left edge.
    let spark_w = width.saturating_sub(LABEL + VALUE + 2);
    let history: Vec<f64> = dev.history.iter().map(m.get).collect();
    let ceiling = m
        .ceiling
        .unwrap_or_else(|| history.iter().copied().fold(0.0, f64::max));
    let spark = fmt::sparkline_fill(&history, spark_w, ceiling);
    let style = metric_style(m, theme, Style::default());
    let used = LABEL + VALUE + 1 + spark_w;
    vec![
        Span::styled(format!("{:<LABEL$}", m.label), theme.label()),
        Span::styled(format!("{value:>VALUE$} "), theme.value()),
        Span::styled(spark, style),
        Span::raw(" ".repeat(width.saturating_sub(used))),
    ]
}

/// What the numbers cover, for the title: `now, last 1s`, `last 1s of seg 2, stopped`,
/// `seg 2 avg over 30s`.
#[must_use]
/// After a stall (the all-disks sample's real window much longer than its interval, see
/// `header`), the live numbers say their real window and a stall mark: `now, last 20.3s,
/// STALLED`.
pub fn window_label(window: DeviceWindow, header: &Header) -> Option<String> {
    match window {
        DeviceWindow::Unsaid => None,
        DeviceWindow::Now { interval } => {
            let real = header
                .window
                .filter(|&w| header.interval.is_some_and(|i| fmt::stalled(i, w)));
            Some(format!("now, {}", fmt::last_window(interval, real)))
        }
        DeviceWindow::StepEnd {
            step,
            interval,
            why,
        } => Some(format!(
            "last {} of seg {step}, {}",
            fmt::interval(interval),
            why.label()
        )),
        DeviceWindow::StepAverage { step, elapsed } => {
            Some(format!("seg {step} avg over {}", fmt::duration(elapsed)))
        }
    }
}

fn reconciliation_lines(
    rec: &Reconciliation,
    of: Option<&str>,
    theme: Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let (ratio_text, style) = match rec.ratio() {
        Some(r) if r < PAGE_CACHE_RATIO => (format!("{r:.2}"), theme.error()),
        Some(r) if (MATCH_LOW..=MATCH_HIGH).contains(&r) => (format!("{r:.2}"), theme.good()),
        Some(r) => (format!("{r:.2}"), theme.warn()),
        None => ("-".to_string(), theme.dim()),
    };
    let mut spans = Vec::new();
    if let Some(of) = of {
        spans.push(Span::styled(format!("{of}: "), theme.label()));
    }
    spans.extend([
        Span::styled("app ", theme.label()),
        Span::styled(fmt::count(rec.app_ios), theme.value()),
        Span::styled(" I/Os  device ", theme.label()),
        Span::styled(fmt::count(rec.device_ios), theme.value()),
        Span::styled("  device/app ", theme.label()),
        Span::styled(ratio_text, style),
    ]);
    // The session's verdict explains the ratio (page cache, other activity, ...): beside the
    // numbers when it fits, else on lines of its own.
    let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
    let Some(verdict) = &rec.verdict else {
        return vec![Line::from(spans)];
    };
    if used + 2 + verdict.chars().count() <= width {
        spans.push(Span::styled(format!("  {verdict}"), theme.dim()));
        return vec![Line::from(spans)];
    }
    let mut lines = vec![Line::from(spans)];
    lines.extend(
        fmt::wrap(verdict, width.saturating_sub(2))
            .into_iter()
            .map(|text| Line::styled(format!("  {text}"), theme.dim())),
    );
    lines
}
