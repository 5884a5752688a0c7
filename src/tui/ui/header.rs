//! Header, two rows; the state and times on the right win over the left when space is short,
//! two blank columns apart; the left drops the kernel, then the host, then shortens the target
//! path from its start, and the times take a shorter form, before anything is cut:
//! ```text
//!  diskdash  host  Linux 6.18  target /srv/f (vda)                      RUNNING seg 2/2
//!  io_uring  randread bs=4k iodepth=32 numjobs=1          elapsed 12s  remaining 18s
//! ```
//! A plan of several steps, or a step of several jobs, says `step i/N` instead of the record's
//! `seg i/N`; a size-based step shows `size-based: 43% (ETA 12s)` instead of the remaining
//! time.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::fmt;
use super::theme::Theme;
use crate::tui::view::{Header, RunState, View};

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    if area.is_empty() {
        return;
    }
    let theme = Theme::new(view.ui.color);
    let h = &view.header;

    let mut right = String::new();
    if let Some(state) = &h.state {
        right.push_str(state.label());
    }
    if let Some((step, of)) = h.step {
        right.push_str(&format!(" step {step}/{of}"));
    } else if let Some((record_step, of)) = h.record_step {
        right.push_str(&format!(" seg {record_step}/{of}"));
    }
    right.push(' ');
    let state_style = match &h.state {
        Some(RunState::Failed(_)) => theme.error(),
        Some(RunState::Paused | RunState::Stopped) => theme.warn(),
        _ => theme.title_bar(),
    };
    let top = Rect { height: 1, ..area };
    let room = usize::from(area.width).saturating_sub(right.chars().count() + GAP);
    split_line(
        f,
        top,
        vec![Span::raw(top_left(h, room))],
        Span::styled(right, state_style),
        theme.title_bar(),
    );
    if area.height < 2 {
        return;
    }

    let mut spans = vec![Span::raw(" ")];
    if let Some(engine) = &h.engine {
        // A note in brackets (why the engine was replaced) goes first when the job would not
        // fit: the device panel lists the fallback among its warnings.
        let job_len = h.job.as_ref().map_or(0, |j| j.chars().count());
        let shortest = times(h, 0).chars().count();
        let fits = |e: &str| {
            1 + e.chars().count() + 2 + job_len + GAP + shortest <= usize::from(area.width)
        };
        let short = engine.split(" (").next().unwrap_or(engine);
        let engine = if fits(engine) { engine.as_str() } else { short };
        spans.push(Span::styled(engine.to_string(), theme.value()));
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
    // What the monitor records to, or where a replay stands.
    if let Some(note) = &h.note {
        spans.push(Span::styled(format!("  {note}"), theme.value()));
    }
    let mut left_len: usize = spans.iter().map(|s| s.content.chars().count()).sum();
    // The error only when it fits whole; the device panel always lists it among the warnings.
    if let Some(RunState::Failed(err)) = &h.state {
        let error = format!("  error: {err}");
        let shortest = times(h, 0).chars().count();
        if left_len + error.chars().count() + GAP + shortest <= usize::from(area.width) {
            left_len += error.chars().count();
            spans.push(Span::styled(error, theme.error()));
        }
    }
    let times = times(h, usize::from(area.width).saturating_sub(left_len + GAP));
    let second = Rect {
        y: area.y + 1,
        height: 1,
        ..area
    };
    split_line(f, second, spans, Span::raw(times), Style::default());
}

/// Columns kept blank between the left and the right part of a line.
const GAP: usize = 2;

/// The top line's left part in `room` columns: when it is short the kernel goes first, then
/// the host, then the target path keeps its end (`...ash.scratch`); the disk always stays.
fn top_left(h: &Header, room: usize) -> String {
    let line = |host: bool, kernel: bool, target: Option<&str>| {
        let mut s = " diskdash".to_string();
        if host {
            s.push_str(&format!("  {}", h.host));
        }
        if kernel {
            s.push_str(&format!("  {}", h.kernel));
        }
        match (target, &h.disk) {
            (Some(t), Some(disk)) => s.push_str(&format!("  target {t} ({disk})")),
            (Some(t), None) => s.push_str(&format!("  target {t}")),
            (None, Some(disk)) => s.push_str(&format!("  disk {disk}")),
            (None, None) => {}
        }
        s
    };
    let target = h.target.as_deref();
    for (host, kernel) in [(true, true), (true, false), (false, false)] {
        let s = line(host, kernel, target);
        if s.chars().count() <= room {
            return s;
        }
    }
    let Some(t) = target else {
        return line(false, false, None);
    };
    let bare = line(false, false, Some("")).chars().count();
    let keep = room.saturating_sub(bare + 3).min(t.chars().count());
    let tail: String = t.chars().skip(t.chars().count() - keep).collect();
    line(false, false, Some(&format!("...{tail}")))
}

/// Elapsed and remaining time (or a size-based step's progress) in the longest form that fits
/// `room` columns.
fn times(h: &Header, room: usize) -> String {
    let elapsed = fmt::duration(h.elapsed);
    let forms = match (h.size_based, h.remaining.map(fmt::duration_up)) {
        (Some(size), _) => {
            let pct = size.percent();
            match size.eta.map(fmt::duration) {
                Some(eta) => vec![
                    format!("elapsed {elapsed}  size-based: {pct}% (ETA {eta}) "),
                    format!("{elapsed}  size-based: {pct}% (ETA {eta}) "),
                    format!("{pct}%, ETA {eta} "),
                ],
                None => vec![
                    format!("elapsed {elapsed}  size-based: {pct}% "),
                    format!("{elapsed}  {pct}% "),
                ],
            }
        }
        (None, Some(rem)) => vec![
            format!("elapsed {elapsed}  remaining {rem} "),
            format!("elapsed {elapsed}  left {rem} "),
            format!("{elapsed}, {rem} left "),
        ],
        (None, None) => vec![format!("elapsed {elapsed} "), format!("{elapsed} ")],
    };
    let last = forms.last().cloned().unwrap_or_default();
    forms
        .into_iter()
        .find(|f| f.chars().count() <= room)
        .unwrap_or(last)
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
    let room =
        usize::from(row.width - right_len).saturating_sub(if right_len > 0 { GAP } else { 0 });
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
