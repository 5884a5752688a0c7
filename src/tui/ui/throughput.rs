//! Throughput and IOPS over time, read and write (and trim when the run discards), with step
//! boundaries as vertical lines.
//! ```text
//! +- app: throughput and IOPS ----------------------------+
//! | IOPS  read 12.3k  write 0                             |
//! | 14k |      ⢀⡠⠤⠒⠉⠉⠉⠑⠒⠤⣀      :                       |
//! |     +------------------------------------------------ |
//! | MiB/s read 48.1MiB/s                                  |
//! | ...                                                   |
//! +-------------------------------------------------------+
//! ```
//! Tall panels stack the IOPS and bandwidth charts, wide ones put them side by side, small ones
//! keep IOPS only. `l` switches the y axes to a log scale. The x axis runs from the first sample
//! to the last over the whole width; each sample is a level over its interval (a step).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph};

use super::fmt;
use super::theme::Theme;
use crate::tui::view::{Focus, RatePoint, RunState, StepMark, View};

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(tp) = &view.throughput else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let scale = if view.ui.log_scale { " (log)" } else { "" };
    // Over: the numbers above the charts are the totals, not the last interval's; of the
    // last step (the record's, or the plan's) only, which the title says where the run had
    // several (the summary's figure is the whole run's).
    let totals = match (view.header.step, view.header.record_step) {
        _ if tp.headline.is_none() || !over(view) => String::new(),
        (Some((step, of)), _) if of > 1 => format!(", step {step} totals"),
        (None, Some((step, of))) if of > 1 => format!(", seg {step} totals"),
        _ => ", totals".to_string(),
    };
    let mut title = format!(" {}: throughput and IOPS{scale}{totals} ", tp.source);
    if let Some(pace) = &tp.pace {
        // The asked rate beside the achieved: in the whole title when it has room, else in
        // place of the words a narrow panel can do without.
        let fits = |t: &String| t.chars().count() + 2 <= usize::from(area.width);
        let wide = format!(" {}: throughput and IOPS{scale}, {pace} ", tp.source);
        let narrow = format!(" {}{scale}: {pace} ", tp.source);
        if fits(&wide) {
            title = wide;
        } else if fits(&narrow) {
            title = narrow;
        }
    }
    let block = Block::bordered()
        .title(title)
        .border_style(theme.border(view.ui.focus == Focus::Charts));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.is_empty() {
        return;
    }

    let iops = Metric {
        name: "IOPS",
        read: |p| p.read_iops,
        write: |p| p.write_iops,
        trim: |p| p.trim_iops,
        format: fmt::rate,
        unit: "",
    };
    let bw = Metric {
        name: "MiB/s",
        read: |p| p.read_bytes_per_s,
        write: |p| p.write_bytes_per_s,
        trim: |p| p.trim_bytes_per_s,
        format: fmt::bytes_rate,
        unit: "B/s",
    };
    let ctx = Ctx {
        warming_up: view.header.state == Some(RunState::WarmingUp),
        theme,
        log: view.ui.log_scale,
        points: &tp.points,
        steps: &tp.steps,
        headline: tp.headline,
        trims: tp.points.iter().chain(&tp.headline).any(RatePoint::trims),
    };
    if inner.height >= 12 {
        let top = Rect {
            height: inner.height / 2,
            ..inner
        };
        let bottom = Rect {
            y: top.bottom(),
            height: inner.height - top.height,
            ..inner
        };
        chart(f, top, &ctx, &iops);
        chart(f, bottom, &ctx, &bw);
    } else if inner.width >= 100 {
        let left = Rect {
            width: inner.width / 2,
            ..inner
        };
        let right = Rect {
            x: left.right(),
            width: inner.width - left.width,
            ..inner
        };
        chart(f, left, &ctx, &iops);
        chart(f, right, &ctx, &bw);
    } else {
        chart(f, inner, &ctx, &iops);
    }
}

struct Metric {
    name: &'static str,
    read: fn(&RatePoint) -> f64,
    write: fn(&RatePoint) -> f64,
    trim: fn(&RatePoint) -> f64,
    format: fn(f64) -> String,
    /// After a log axis's labels (`1MB/s`).
    unit: &'static str,
}

struct Ctx<'a> {
    /// Warm-up: the last point is another step's, so no rate is said.
    warming_up: bool,
    theme: Theme,
    log: bool,
    points: &'a [RatePoint],
    steps: &'a [StepMark],
    headline: Option<RatePoint>,
    /// Whether the run trims: the title and the chart add a trim series.
    trims: bool,
}

fn scaled(v: f64, log: bool) -> f64 {
    let v = if v.is_finite() { v.max(0.0) } else { 0.0 };
    if log { (1.0 + v).log10() } else { v }
}

fn unscaled(v: f64, log: bool) -> f64 {
    if log { 10f64.powf(v) - 1.0 } else { v }
}

/// Each point is a rate averaged over the interval that ends at its time, so it is drawn as a
/// level from the previous point's time to its own, not as a slope from the previous value (a
/// ramp that never happened). The first point has no known start: the chart starts there. A
/// point that merges several intervals (a long recorded run) adds a vertical stroke from the
/// lowest to the highest of them in the middle of its level, so a dip (a stall) stays visible.
fn step_series(points: &[RatePoint], get: fn(&RatePoint) -> f64, log: bool) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2);
    let mut prev_t = None;
    for p in points {
        let y = scaled(get(p), log);
        if let Some(t) = prev_t {
            out.push((t, y));
        }
        if let Some([low, high]) = &p.range {
            let mid = prev_t.map_or(p.t_s, |t| (t + p.t_s) / 2.0);
            out.extend([
                (mid, y),
                (mid, scaled(get(&p.at(low)), log)),
                (mid, scaled(get(&p.at(high)), log)),
                (mid, y),
            ]);
        }
        out.push((p.t_s, y));
        prev_t = Some(p.t_s);
    }
    out
}

/// Where the chart marks a stall: the middle of each point whose span the process did not
/// run in part (a stopped or frozen process: its rates are the running part's).
fn stall_marks(points: &[RatePoint]) -> Vec<f64> {
    let mut prev_t = None;
    let mut out = Vec::new();
    for p in points {
        if p.stalled_s > 0.0 {
            out.push(prev_t.map_or(p.t_s, |t: f64| (t + p.t_s) / 2.0));
        }
        prev_t = Some(p.t_s);
    }
    out
}

fn chart(f: &mut Frame, area: Rect, ctx: &Ctx, metric: &Metric) {
    if area.is_empty() {
        return;
    }
    let theme = ctx.theme;
    let last = ctx
        .headline
        .or_else(|| ctx.points.last().copied())
        .unwrap_or_default();
    let mut title = vec![Span::styled(format!("{:<6}", metric.name), theme.label())];
    if ctx.warming_up {
        title.push(Span::styled("warm-up, not measured", theme.dim()));
    } else {
        title.extend(rates_title(ctx, metric, &last));
    }
    let title = Line::from(title);
    f.render_widget(Paragraph::new(title), Rect { height: 1, ..area });
    let plot = Rect {
        y: area.y + 1,
        height: area.height - 1,
        ..area
    };
    if plot.height < 3 || plot.width < 12 {
        return;
    }
    plot_chart(f, plot, ctx, metric);
}

/// Whether the run is over (its totals are the headline).
fn over(view: &View) -> bool {
    matches!(
        view.header.state,
        Some(RunState::Finished | RunState::Stopped | RunState::Interrupted | RunState::Failed(_))
    )
}

/// `read 1.2k  write 300` (and trims) of `last`.
fn rates_title(ctx: &Ctx, metric: &Metric, last: &RatePoint) -> Vec<Span<'static>> {
    let theme = ctx.theme;
    let last = *last;
    let mut title = vec![
        Span::styled("read ", theme.read()),
        Span::styled((metric.format)((metric.read)(&last)), theme.value()),
        Span::raw("  "),
        Span::styled("write ", theme.write()),
        Span::styled((metric.format)((metric.write)(&last)), theme.value()),
    ];
    if ctx.trims {
        title.extend([
            Span::raw("  "),
            Span::styled("trim ", theme.trim()),
            Span::styled((metric.format)((metric.trim)(&last)), theme.value()),
        ]);
    }
    let stalled_s: f64 = ctx.points.iter().map(|p| p.stalled_s).sum();
    if stalled_s > 0.0 {
        title.push(Span::styled(
            format!("  stalled {stalled_s:.1}s (|)"),
            theme.warn(),
        ));
    }
    title
}

fn plot_chart(f: &mut Frame, plot: Rect, ctx: &Ctx, metric: &Metric) {
    let theme = ctx.theme;

    let series = |get: fn(&RatePoint) -> f64| step_series(ctx.points, get, ctx.log);
    let read = series(metric.read);
    let write = series(metric.write);
    let trim = if ctx.trims {
        series(metric.trim)
    } else {
        Vec::new()
    };
    let x0 = ctx.points.first().map_or(0.0, |p| p.t_s);
    let x1 = ctx.points.last().map_or(1.0, |p| p.t_s).max(x0 + 1.0);
    let peak = read
        .iter()
        .chain(&write)
        .chain(&trim)
        .map(|&(_, y)| y)
        .fold(0.0f64, f64::max);
    let y_max = if ctx.log {
        fmt::log_axis_top(peak)
    } else {
        (peak * 1.1).max(1.0)
    };
    let marks: Vec<[(f64, f64); 2]> = ctx
        .steps
        .iter()
        .filter(|s| s.t_s > x0 && s.t_s <= x1)
        .map(|s| [(s.t_s, 0.0), (s.t_s, y_max)])
        .collect();
    let stalls: Vec<[(f64, f64); 2]> = stall_marks(ctx.points)
        .into_iter()
        .map(|t| [(t, 0.0), (t, y_max)])
        .collect();

    let mut datasets = Vec::new();
    for mark in &marks {
        datasets.push(
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme.marker())
                .data(mark),
        );
    }
    for stall in &stalls {
        datasets.push(
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme.warn())
                .data(stall),
        );
    }
    for (data, style) in [
        (&read, theme.read()),
        (&write, theme.write()),
        (&trim, theme.trim()),
    ] {
        if data.iter().any(|&(_, y)| y > 0.0) {
            datasets.push(
                Dataset::default()
                    .marker(Marker::Braille)
                    .graph_type(GraphType::Line)
                    .style(style)
                    .data(data),
            );
        }
    }
    let label = |y: f64| {
        if ctx.log {
            fmt::log_tick(y, metric.unit)
        } else {
            (metric.format)(unscaled(y, false))
        }
    };
    let y_labels = vec![
        Span::raw("0"),
        Span::raw(label(y_max / 2.0)),
        Span::raw(label(y_max)),
    ];
    let x_labels = vec![
        Span::raw(format!("{x0:.0}s")),
        Span::raw(format!("{x1:.0}s")),
    ];
    let chart = Chart::new(datasets)
        .legend_position(None)
        .x_axis(
            Axis::default()
                .bounds([x0, x1])
                .labels(x_labels)
                .style(theme.dim()),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, y_max])
                .labels(y_labels)
                .style(theme.dim()),
        )
        .style(Style::default());
    f.render_widget(chart, plot);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::view::RateLevels;

    fn point(t_s: f64, read_iops: f64) -> RatePoint {
        RatePoint {
            t_s,
            read_iops,
            ..RatePoint::default()
        }
    }

    #[test]
    fn a_stalled_point_is_marked_in_the_middle_of_its_span() {
        let mut points = [point(1.0, 100.0), point(3.0, 0.0), point(4.0, 100.0)];
        assert!(stall_marks(&points).is_empty());
        points[1].stalled_s = 1.5;
        assert_eq!(stall_marks(&points), [2.0]);
        points[0].stalled_s = 0.2;
        assert_eq!(stall_marks(&points), [1.0, 2.0]);
    }

    #[test]
    fn samples_are_levels_over_their_interval_not_slopes() {
        let points = [point(1.0, 100.0), point(2.0, 300.0), point(3.0, 200.0)];
        let steps = step_series(&points, |p| p.read_iops, false);
        assert_eq!(
            steps,
            [
                (1.0, 100.0),
                (1.0, 300.0),
                (2.0, 300.0),
                (2.0, 200.0),
                (3.0, 200.0)
            ]
        );
        assert!(step_series(&[], |p| p.read_iops, false).is_empty());
    }

    #[test]
    fn a_merged_point_draws_its_low_and_high() {
        let level = |read_iops| RateLevels {
            read_iops,
            ..RateLevels::default()
        };
        let merged = RatePoint {
            range: Some([level(0.0), level(400.0)]),
            ..point(3.0, 200.0)
        };
        let steps = step_series(&[point(1.0, 100.0), merged], |p| p.read_iops, false);
        assert_eq!(
            steps,
            [
                (1.0, 100.0),
                (1.0, 200.0),
                (2.0, 200.0),
                (2.0, 0.0),
                (2.0, 400.0),
                (2.0, 200.0),
                (3.0, 200.0)
            ]
        );
    }
}
