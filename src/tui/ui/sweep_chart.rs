//! A sweep's chosen metric against its last swept parameter, a line per combination of the
//! others (per direction when there are none), filled in as points finish. `v` cycles
//! bandwidth (MB/s), IOPS, mean latency (its p99 drawn too: the upper line of each colour) and
//! p99; `l` makes the y axis logarithmic. The x axis puts the parameter's values at equal
//! spacing in plan order: sizes and depths are powers of two, so that is their log axis.
//! ```text
//! +- sweep: MB/s against bs (v: next metric) -----------------+
//! | -- rw=write  -- rw=read                                   |
//! |633MB/s|                        ....*                      |
//! |       |          ...*''''''''''                           |
//! |0      |*'''''''''                                         |
//! |       +---------------------------------------------------|
//! |        1M              2M               4M             8M |
//! +-----------------------------------------------------------+
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph};

use super::fmt;
use super::theme::Theme;
use crate::tui::view::sweep::SweepMetric;
use crate::tui::view::{Focus, View};

/// A value of `metric` for the axis labels.
fn format(metric: SweepMetric, v: f64) -> String {
    match metric {
        SweepMetric::Bandwidth if v >= 1e9 => format!("{:.2}GB/s", v / 1e9),
        SweepMetric::Bandwidth => format!("{:.0}MB/s", v / 1e6),
        SweepMetric::Iops => fmt::rate(v),
        SweepMetric::MeanLatency | SweepMetric::P99Latency => fmt::latency_ns(v.max(0.0) as u64),
    }
}

/// `log`: `l`, the y axis as log10(1 + v), as the throughput chart.
fn as_xy(points: &[(usize, f64)], log: bool) -> Vec<(f64, f64)> {
    points
        .iter()
        .map(|&(x, y)| {
            let y = if y.is_finite() { y.max(0.0) } else { 0.0 };
            (x as f64, if log { (1.0 + y).log10() } else { y })
        })
        .collect()
}

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(sweep) = &view.sweep else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let chart = &sweep.chart;
    let log = view.ui.log_scale;
    let block = Block::bordered()
        .title(format!(
            " sweep: {} against {}{} (v: next metric) ",
            sweep.metric.label(),
            chart.x_name,
            if log { ", log" } else { "" }
        ))
        .border_style(theme.border(view.ui.focus == Focus::Charts));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.is_empty() {
        return;
    }
    let mut legend = Vec::new();
    for (i, line) in chart.lines.iter().enumerate() {
        legend.push(Span::styled("-- ", theme.series(i)));
        legend.push(Span::styled(format!("{}  ", line.label), theme.label()));
    }
    if sweep.metric == SweepMetric::MeanLatency {
        legend.push(Span::styled("(upper line: p99)", theme.dim()));
    }
    if chart.lines.iter().all(|l| l.points.is_empty()) {
        legend = vec![Span::styled("no point has finished yet", theme.dim())];
    }
    f.render_widget(
        Paragraph::new(Line::from(legend)),
        Rect { height: 1, ..inner },
    );
    let plot = Rect {
        y: inner.y + 1,
        height: inner.height - 1,
        ..inner
    };
    if plot.height < 4 || plot.width < 16 {
        return;
    }

    let series: Vec<(usize, Vec<(f64, f64)>)> = chart
        .lines
        .iter()
        .enumerate()
        .flat_map(|(i, l)| [(i, as_xy(&l.points, log)), (i, as_xy(&l.p99, log))])
        .filter(|(_, data)| !data.is_empty())
        .collect();
    let peak = series
        .iter()
        .flat_map(|(_, d)| d.iter().map(|&(_, y)| y))
        .fold(0.0f64, f64::max);
    let y_max = if log {
        fmt::log_axis_top(peak)
    } else {
        (peak * 1.1).max(1.0)
    };
    // A log axis is labelled at powers of ten (`1k`, `1M`, `1.00ms`), never `999`.
    let label = |y: f64| match (log, sweep.metric) {
        (false, metric) => format(metric, y),
        (true, SweepMetric::Iops) => fmt::log_tick(y, ""),
        (true, SweepMetric::Bandwidth) => fmt::log_tick(y, "B/s"),
        (true, metric) if y > 0.0 => format(metric, 10f64.powf(y.round())),
        (true, _) => "0".to_string(),
    };
    let mut datasets = Vec::new();
    for (i, data) in &series {
        // The line between the points, and the points themselves (a lone point has no line).
        for graph in [GraphType::Line, GraphType::Scatter] {
            datasets.push(
                Dataset::default()
                    .marker(Marker::Braille)
                    .graph_type(graph)
                    .style(theme.series(*i))
                    .data(data),
            );
        }
    }
    let n = chart.x_values.len();
    let x_max = n.saturating_sub(1).max(1) as f64;
    let y_labels = vec![
        Span::raw("0"),
        Span::raw(label(y_max / 2.0)),
        Span::raw(label(y_max)),
    ];
    // The chart's own x labels are spread over equal slots that are not the points' places:
    // empty ones keep the axis and its row, the values go under their points below.
    let y_label_width = y_labels.iter().map(Span::width).max().unwrap_or(0);
    let widget = Chart::new(datasets)
        .legend_position(None)
        .x_axis(
            Axis::default()
                .bounds([0.0, x_max])
                .labels(vec![Span::raw(""), Span::raw("")])
                .style(theme.dim()),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, y_max])
                .labels(y_labels)
                .style(theme.dim()),
        );
    f.render_widget(widget, plot);
    // The graph starts right of the y labels (at most a third of the width, as ratatui lays
    // it out) and the y axis.
    let left = u16::try_from(y_label_width)
        .unwrap_or(u16::MAX)
        .min(plot.width / 3)
        + 1;
    let graph = Rect {
        x: plot.x + left,
        y: plot.bottom() - 1,
        width: plot.width - left,
        height: 1,
    };
    x_labels(f, graph, &chart.x_values, theme);
}

/// Each value under its point (the `i`-th of `n` at `i / (n - 1)` of the width); one that
/// would touch its neighbour is left out, the first and the last stay.
fn x_labels(f: &mut Frame, row: Rect, values: &[String], theme: Theme) {
    let n = values.len();
    if row.width < 2 || n == 0 {
        return;
    }
    let span = usize::from(row.width - 1);
    let mut order: Vec<usize> = (0..n).collect();
    // The ends first, so that the middle gives way.
    if n > 1 {
        order.swap(1, n - 1);
    }
    let mut taken: Vec<(usize, usize)> = Vec::new();
    for i in order {
        let text = fmt::fit(&values[i], usize::from(row.width));
        let len = text.chars().count();
        let center = if n > 1 { i * span / (n - 1) } else { 0 };
        let start = center
            .saturating_sub(len / 2)
            .min(usize::from(row.width).saturating_sub(len));
        let end = start + len;
        if taken.iter().any(|&(a, b)| start <= b && a <= end) {
            continue;
        }
        taken.push((start, end));
        let x = row.x + u16::try_from(start).unwrap_or(0);
        f.buffer_mut().set_string(x, row.y, text, theme.label());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_values_in_decimal_bandwidth_rates_and_latencies() {
        assert_eq!(format(SweepMetric::Bandwidth, 658e6), "658MB/s");
        assert_eq!(format(SweepMetric::Bandwidth, 2.07e9), "2.07GB/s");
        assert_eq!(format(SweepMetric::Iops, 125_400.0), "125.4k");
        assert_eq!(format(SweepMetric::P99Latency, 1_040_000.0), "1.04ms");
    }
}
