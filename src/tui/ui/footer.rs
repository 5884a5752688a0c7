//! Footer: the keys that matter in this mode, and on the right what the last key did (whole:
//! the keys make room for it, down to `q` and `?`).
//! ```text
//!  q quit  space pause  s stop  +/- iodepth  ]/[ jobs  b/B bs  m rw  ? help    iodepth 64
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::fmt;
use super::theme::Theme;
use crate::tui::view::{Mode, RunState, View};

/// Key and what it does, in the order they are dropped last-first on narrow terminals. A step
/// of several jobs takes no live changes: its keys pick the job the charts show; nor does a
/// sweep.
#[must_use]
pub fn keys(view: &View) -> &'static [(&'static str, &'static str)] {
    // Once the run has ended only the keys that look at it still do something.
    let ended = matches!(
        view.header.state,
        Some(RunState::Finished | RunState::Interrupted | RunState::Failed(_))
    );
    // A stopped sweep does not go on either: `n` and space have nothing left to act on.
    let sweep_over = ended || view.header.state == Some(RunState::Stopped);
    if view.mode == Mode::Bench && view.sweep.is_some() && sweep_over {
        return &[
            ("q", "quit"),
            ("?", "help"),
            ("PgUp/PgDn", "rows"),
            ("v", "chart"),
            ("l", "log"),
        ];
    }
    if view.mode == Mode::Bench && view.jobs.is_some() && ended {
        return &[
            ("q", "quit"),
            ("?", "help"),
            ("tab/up/down", "job"),
            ("l", "log"),
            ("h", "histogram"),
        ];
    }
    if view.mode == Mode::Bench && ended {
        return &[("q", "quit"), ("?", "help"), ("l", "log")];
    }
    // A sweep's points are fixed: no live changes; `n` skips a point, `v` picks the chart.
    if view.mode == Mode::Bench && view.sweep.is_some() {
        return &[
            ("q", "quit"),
            ("?", "help"),
            ("n", "next point"),
            ("s", "stop"),
            ("PgUp/PgDn", "rows"),
            ("v", "chart"),
            ("space", "pause"),
            ("l", "log"),
        ];
    }
    if view.mode == Mode::Bench && view.jobs.is_some() {
        return &[
            ("q", "quit"),
            ("?", "help"),
            ("tab/up/down", "job"),
            ("space", "pause"),
            ("s", "stop"),
            ("l", "log"),
            ("h", "histogram"),
        ];
    }
    if view.mode == Mode::Monitor && view.header.state == Some(RunState::Recorded) {
        return &[
            ("q", "quit"),
            ("?", "help"),
            ("left/right", "sample"),
            ("g", "go to time"),
            ("PgUp/PgDn", "60"),
            ("Home/End", "ends"),
            ("up/down", "disk"),
        ];
    }
    match view.mode {
        Mode::Bench => &[
            ("q", "quit"),
            ("?", "help"),
            ("space", "pause"),
            ("s", "stop"),
            ("+/-", "iodepth"),
            ("]/[", "jobs"),
            ("b/B", "bs"),
            ("m", "rw"),
            ("l", "log"),
        ],
        Mode::Monitor => &[
            ("q", "quit"),
            ("?", "help"),
            ("up/down", "disk"),
            ("o/O", "sort"),
            ("tab", "focus"),
            ("l", "log"),
        ],
        Mode::Show => &[("q", "quit"), ("?", "help"), ("l", "log"), ("tab", "focus")],
        // Every host runs the same fixed command: no live changes; `q` stops them all.
        Mode::Fleet => &[
            ("q", "stop all, quit"),
            ("?", "help"),
            ("tab/up/down", "host"),
            ("l", "log"),
            ("h", "histogram"),
        ],
    }
}

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    if area.is_empty() {
        return;
    }
    let theme = Theme::new(view.ui.color);
    let message = view.ui.message.as_deref().unwrap_or("");
    let width = usize::from(area.width);
    // The message (what the last key did, the run's state) is shown whole; the keys take the
    // room left, dropped from the end (`?` lists them all), but `q` and `?` always stay.
    let room = width.saturating_sub(message.chars().count() + 2);
    let mut spans = Vec::new();
    let mut used = 0;
    for (i, (key, what)) in keys(view).iter().enumerate() {
        let len = key.len() + what.len() + 3;
        if used + len > room && (i >= 2 || used + len > width) {
            break;
        }
        used += len;
        spans.push(Span::raw(" "));
        spans.push(Span::styled(*key, theme.value()));
        spans.push(Span::styled(format!(" {what} "), theme.label()));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
    if !message.is_empty() {
        let text = fmt::fit(message, width.saturating_sub(used + 2));
        let len = u16::try_from(text.chars().count() + 1).unwrap_or(u16::MAX);
        if len > 1 && len <= area.width {
            let r = Rect {
                x: area.right() - len,
                width: len,
                ..area
            };
            f.render_widget(Paragraph::new(text).style(theme.warn()), r);
        }
    }
}
