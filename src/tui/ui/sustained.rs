//! Sustained writes: write bandwidth (y, MiB/s) against bytes written (x, GiB), one point per
//! interval, with the cliff marked by a vertical line where the bandwidth fell and stayed down.
//! ```text
//! +- sustained writes: MiB/s against GiB written, cliff at 8.10 GiB: 1.2 GiB/s -> 310 MiB/s -+
//! | 1.3k |⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⡇                                                                   |
//! |      |            ⡇⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀                          |
//! |      +------------------------------------------------------------------------------ |
//! |       0 GiB                                                                12.3 GiB |
//! +------------------------------------------------------------------------------------+
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType};

use super::theme::Theme;
use crate::tui::view::View;

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(chart) = &view.sustained else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let who = chart
        .job
        .as_ref()
        .map_or(String::new(), |j| format!("{j}: "));
    let cliff = match chart.cliff {
        Some((gib, before, after)) => format!(
            "cliff at {gib:.2} GiB: {} -> {}",
            mib_s(before),
            mib_s(after)
        ),
        None => format!(
            "no cliff (a drop of {}% that stays down)",
            chart.threshold_pct
        ),
    };
    let block = Block::bordered()
        .title(format!(
            " {who}sustained writes: MiB/s against GiB written, {cliff} "
        ))
        .border_style(theme.border(false));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.height < 3 || inner.width < 12 {
        return;
    }
    // Each point is a rate over the span that ends at its GiB: a level from the previous
    // point's GiB to its own, as the throughput chart draws its intervals.
    let mut data = Vec::with_capacity(chart.points.len() * 2);
    let mut prev_x = 0.0;
    for &(x, y) in chart.points.iter() {
        let y = if y.is_finite() { y.max(0.0) } else { 0.0 };
        data.push((prev_x, y));
        data.push((x, y));
        prev_x = x;
    }
    let x_max = chart
        .points
        .last()
        .map_or(1.0, |p| p.0)
        .max(f64::MIN_POSITIVE);
    let y_max = (data.iter().map(|p| p.1).fold(0.0f64, f64::max) * 1.1).max(1.0);
    let mark: Vec<(f64, f64)> = chart
        .cliff
        .map(|(gib, ..)| vec![(gib, 0.0), (gib, y_max)])
        .unwrap_or_default();
    let mut datasets = Vec::new();
    if !mark.is_empty() {
        datasets.push(
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme.warn())
                .data(&mark),
        );
    }
    datasets.push(
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.write())
            .data(&data),
    );
    let widget = Chart::new(datasets)
        .legend_position(None)
        .x_axis(
            Axis::default()
                .bounds([0.0, x_max])
                .labels(vec![
                    Span::raw("0 GiB"),
                    Span::raw(format!("{x_max:.2} GiB")),
                ])
                .style(theme.dim()),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, y_max])
                .labels(vec![
                    Span::raw("0"),
                    Span::raw(mib_s(y_max / 2.0)),
                    Span::raw(mib_s(y_max)),
                ])
                .style(theme.dim()),
        )
        .style(Style::default());
    f.render_widget(widget, inner);
}

/// `310 MiB/s`, `1.20 GiB/s`.
fn mib_s(mib: f64) -> String {
    if mib >= 1024.0 {
        format!("{:.2} GiB/s", mib / 1024.0)
    } else {
        format!("{mib:.0} MiB/s")
    }
}
