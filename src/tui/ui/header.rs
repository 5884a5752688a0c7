//! Header, two rows; the state and times on the right win over the left when space is short:
//! ```text
//!  diskdash  host  Linux 6.18  target /srv/f (vda)                      RUNNING seg 2/2
//!  io_uring  randread bs=4k iodepth=32 numjobs=1          elapsed 12s  remaining 18s
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::fmt;
use super::theme::Theme;
use crate::tui::view::{RunState, View};

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    if area.is_empty() {
        return;
    }
    let theme = Theme::new(view.ui.color);
    let h = &view.header;

    let mut left = format!(" diskdash  {}  {}", h.host, h.kernel);
    match (&h.target, &h.disk) {
        (Some(target), Some(disk)) => left.push_str(&format!("  target {target} ({disk})")),
        (Some(target), None) => left.push_str(&format!("  target {target}")),
        (None, Some(disk)) => left.push_str(&format!("  disk {disk}")),
        (None, None) => {}
    }
    let mut right = String::new();
    if let Some(state) = &h.state {
        right.push_str(state.label());
    }
    if let Some((seg, of)) = h.segment {
        right.push_str(&format!(" seg {seg}/{of}"));
    }
    right.push(' ');
    let state_style = match &h.state {
        Some(RunState::Failed(_)) => theme.error(),
        Some(RunState::Paused | RunState::Stopped) => theme.warn(),
        _ => theme.title_bar(),
    };
    let top = Rect { height: 1, ..area };
    split_line(
        f,
        top,
        vec![Span::raw(left)],
        Span::styled(right, state_style),
        theme.title_bar(),
    );
    if area.height < 2 {
        return;
    }

    let mut spans = vec![Span::raw(" ")];
    if let Some(engine) = &h.engine {
        spans.push(Span::styled(engine.clone(), theme.value()));
        spans.push(Span::raw("  "));
    }
    if let Some(job) = &h.job {
        spans.push(Span::raw(job.clone()));
    }
    // The monitor's sampling interval; in `bench` the disks table says its own.
    if let Some(interval) = h.interval.filter(|_| h.job.is_none()) {
        spans.push(Span::styled(
            format!("interval {}", fmt::interval(interval)),
            theme.label(),
        ));
    }
    if let Some(RunState::Failed(err)) = &h.state {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(format!("error: {err}"), theme.error()));
    }
    let mut times = format!("elapsed {}", fmt::duration(h.elapsed));
    if let Some(rem) = h.remaining {
        times.push_str(&format!("  remaining {}", fmt::duration(rem)));
    }
    times.push(' ');
    let second = Rect {
        y: area.y + 1,
        height: 1,
        ..area
    };
    split_line(f, second, spans, Span::raw(times), Style::default());
}

/// Draws `right` flush right and `left` in what remains, cut with `~` if needed.
fn split_line(
    f: &mut Frame,
    row: Rect,
    left: Vec<Span<'static>>,
    right: Span<'static>,
    style: Style,
) {
    let right_len = u16::try_from(right.content.chars().count()).unwrap_or(u16::MAX);
    let right_len = if right_len + 8 <= row.width {
        right_len
    } else {
        0
    };
    let room = usize::from(row.width - right_len);
    let mut used = 0;
    let mut kept = Vec::new();
    for span in left {
        let len = span.content.chars().count();
        if used + len <= room {
            used += len;
            kept.push(span);
        } else {
            let cut = fmt::fit(&span.content, room - used);
            kept.push(Span::styled(cut, span.style));
            break;
        }
    }
    f.render_widget(Paragraph::new(Line::from(kept)).style(style), row);
    if right_len > 0 {
        let r = Rect {
            x: row.right() - right_len,
            width: right_len,
            ..row
        };
        f.render_widget(Paragraph::new(right).style(style), r);
    }
}
