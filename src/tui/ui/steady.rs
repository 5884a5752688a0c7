//! The steady-state line: one row, no border, under the header.
//! ```text
//! steady state iops_slope:0.3% over 30s  now 0.21% < 0.3%  ATTAINED at 42.0s, stopping
//! steady state bw:2% over 60s  filling the window 12/60 s
//! steady state iops:5% over 10s  now 8.31% >= 5%  LEFT: 3 samples out since attained at 20.0s
//! ss iops:5%/10s 8.31% >= 5% LEFT x3 since 20.0s         (when the long form does not fit)
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::fmt;
use super::theme::Theme;
use crate::tui::view::View;
use crate::tui::view::steady::{SteadyLine, SteadyStatus};

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(line) = &view.steady else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    fmt::render_long_or_short(f, area, |short| spans(line, theme, short));
}

fn spans(line: &SteadyLine, theme: Theme, short: bool) -> Line<'static> {
    let gap = if short { " " } else { "  " };
    let mut out = vec![Span::styled(
        if short { "ss " } else { "steady state " },
        theme.label(),
    )];
    if let Some(job) = &line.job {
        out.push(Span::styled(format!("{job}: "), theme.label()));
    }
    out.push(Span::styled(line.criterion.clone(), theme.value()));
    out.push(Span::styled(
        if short {
            format!("/{}s{gap}", line.window_s)
        } else {
            format!(" over {}s{gap}", line.window_s)
        },
        theme.label(),
    ));
    if let Some(value) = &line.value {
        let (cmp, style) = if line.met {
            ("<", theme.good())
        } else {
            (">=", theme.value())
        };
        if !short {
            out.push(Span::raw("now "));
        }
        out.push(Span::styled(value.clone(), style));
        out.push(Span::raw(format!(" {cmp} {}{gap}", line.limit)));
    }
    let (text, style) = match &line.status {
        SteadyStatus::Filling { have, need } if short => {
            (format!("filling {have}/{need}"), theme.dim())
        }
        SteadyStatus::Attained {
            at,
            stopping,
            departures,
        } if short => (
            format!(
                "ATTAINED {:.1}s{}",
                at.as_secs_f64(),
                if *stopping {
                    ", stopping".to_string()
                } else if *departures > 0 {
                    format!(", out x{departures} since")
                } else {
                    String::new()
                }
            ),
            theme.good(),
        ),
        SteadyStatus::Left { since, departures } if short => (
            format!("LEFT x{departures} since {:.1}s", since.as_secs_f64()),
            theme.warn(),
        ),
        SteadyStatus::Ramp => ("ss_ramp: not sampling yet".to_string(), theme.dim()),
        SteadyStatus::Filling { have, need } => (
            format!("filling the window {have}/{need} samples"),
            theme.dim(),
        ),
        SteadyStatus::Searching => ("not steady yet".to_string(), theme.value()),
        SteadyStatus::Attained {
            at,
            stopping,
            departures,
        } => (
            format!(
                "ATTAINED at {:.1}s{}",
                at.as_secs_f64(),
                if *stopping {
                    ", stopping".to_string()
                } else if line.keep_going {
                    format!(
                        ", keeping going ({departures} sample{} out of it since)",
                        if *departures == 1 { "" } else { "s" }
                    )
                } else {
                    String::new()
                }
            ),
            theme.good(),
        ),
        SteadyStatus::Left { since, departures } => (
            format!(
                "LEFT: {departures} sample{} out since attained at {:.1}s",
                if *departures == 1 { "" } else { "s" },
                since.as_secs_f64()
            ),
            theme.warn(),
        ),
        SteadyStatus::NotAttained => ("NOT ATTAINED".to_string(), theme.warn()),
    };
    out.push(Span::styled(text, style));
    Line::from(out)
}
