//! The bench dashboard's `--trace` band: no border, under the charts. The app's mean over the
//! last interval taken apart as the summary's `mean:` line does, then the percentiles of the
//! app, the device (issue -> complete) and the whole request side by side, over the same
//! interval; a line breaks between parts, never inside one.
//! ```text
//! loop0, last 1s: mean: app 3.60 ms = device 370.0 us + scheduler 1.0 us
//!   + waiting for a request not measured (--trace=full) + waiting for a CPU 2.10 ms
//!   + unexplained 1.12 ms
//! p50 p99 p99.9, last 1s:   app 2.24ms 8.96ms 20.2ms   device 350.0us 1.20ms 1.90ms
//!   whole 400.0us 1.30ms 2.00ms
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::fmt;
use super::theme::Theme;
use crate::tui::view::{TraceView, View};

/// What a continued line starts with.
const INDENT: &str = "  ";

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(trace) = &view.trace else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let lines = lines(trace, usize::from(area.width), theme);
    f.render_widget(Paragraph::new(lines), area);
}

/// Rows the band wants at `width` columns: every line of it.
#[must_use]
pub fn rows_wanted(view: &View, width: u16) -> u16 {
    view.trace.as_ref().map_or(0, |trace| {
        u16::try_from(lines(trace, usize::from(width), Theme::new(false)).len()).unwrap_or(u16::MAX)
    })
}

/// The band's lines at `width` columns.
fn lines(trace: &TraceView, width: usize, theme: Theme) -> Vec<Line<'static>> {
    let window = format!("last {}", fmt::interval(trace.window));
    let mut mean = vec![(format!("{}, {window}:", trace.disk), theme.label())];
    if trace.mean_parts.is_empty() {
        if let Some(note) = &trace.note {
            mean.push((note.clone(), theme.dim()));
        }
    } else {
        mean.extend(trace.mean_parts.iter().map(|p| (p.clone(), theme.value())));
    }
    let mut out = wrap(&mean, " ", width);
    let mut rows = vec![(format!("p50 p99 p99.9, {window}:"), theme.label())];
    for (name, p) in &trace.rows {
        let text = p.map_or_else(
            || format!("{name} -"),
            |p| {
                format!(
                    "{name} {} {} {}",
                    fmt::latency_ns(p.p50_ns),
                    fmt::latency_ns(p.p99_ns),
                    fmt::latency_ns(p.p999_ns)
                )
            },
        );
        rows.push((text, theme.value()));
    }
    if !trace.mean_parts.is_empty()
        && let Some(note) = &trace.note
    {
        rows.push((format!("({note})"), theme.warn()));
    }
    out.extend(wrap(&rows, "   ", width));
    out
}

/// `parts` on as few lines of `width` as they go, `sep` between two on a line; a part that
/// does not fit where a line has one already starts the next, indented.
fn wrap(parts: &[(String, Style)], sep: &str, width: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0usize;
    for (text, style) in parts {
        let len = text.chars().count();
        if spans.is_empty() {
            used = len;
        } else if used + sep.len() + len <= width {
            spans.push(Span::raw(sep.to_string()));
            used += sep.len() + len;
        } else {
            lines.push(Line::from(std::mem::take(&mut spans)));
            spans.push(Span::raw(INDENT));
            used = INDENT.len() + len;
        }
        spans.push(Span::styled(text.clone(), *style));
    }
    if !spans.is_empty() {
        lines.push(Line::from(spans));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn lines_break_between_parts_and_continue_indented() {
        let parts: Vec<(String, Style)> = ["aaaa", "bbb", "cc", "dddddd"]
            .iter()
            .map(|s| ((*s).to_string(), Style::default()))
            .collect();
        assert_eq!(
            text(&wrap(&parts, " ", 12)),
            ["aaaa bbb cc", "  dddddd"],
            "a part goes where it fits whole"
        );
        assert_eq!(text(&wrap(&parts, " ", 80)), ["aaaa bbb cc dddddd"]);
        // Narrower than a part: one part a line, none cut here (the frame cuts).
        assert_eq!(
            text(&wrap(&parts, " ", 3)),
            ["aaaa", "  bbb", "  cc", "  dddddd"]
        );
    }

    #[test]
    fn every_line_fits_its_width_where_the_parts_do() {
        let view = crate::tui::ui::sample::bench_traced();
        let trace = view.trace.as_ref().unwrap();
        for width in [80usize, 120, 160] {
            let lines = lines(trace, width, Theme::new(false));
            for line in &lines {
                assert!(line.width() <= width, "{width}: {line:?}");
            }
            assert_eq!(rows_wanted(&view, width as u16) as usize, lines.len());
        }
        let wide = text(&lines(trace, 400, Theme::new(false)));
        assert_eq!(wide.len(), 2, "{wide:?}");
        assert!(
            wide[0].starts_with("loop0, last 1s: mean: app "),
            "{wide:?}"
        );
        assert!(
            wide[1].contains("app ") && wide[1].contains("device ") && wide[1].contains("whole ")
        );
    }
}
