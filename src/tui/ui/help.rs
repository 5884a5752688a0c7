//! The `?` overlay: every key, centred over the dashboard, closed by any key.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::theme::Theme;
use crate::tui::view::{Mode, RunState, View};

const BENCH_KEYS: [(&str, &str); 8] = [
    ("space", "pause / resume the benchmark"),
    ("s", "stop / start the benchmark"),
    ("+ / -", "iodepth up / down (new segment)"),
    ("] / [", "numjobs up / down (new segment)"),
    ("b / B", "block size up / down (new segment)"),
    ("m", "next rw mode (new segment)"),
    ("q, Ctrl-C", "stop, write the record, quit"),
    ("", ""),
];

/// A step of several jobs: no live changes (the session refuses them), the arrows pick a job.
const PLAN_KEYS: [(&str, &str); 6] = [
    ("tab / S-tab", "next / previous job (then the step total)"),
    ("up / down", "select a job or the step total"),
    ("space", "pause / resume the step"),
    ("s", "stop / start"),
    ("q, Ctrl-C", "stop, write the record, quit"),
    ("", ""),
];

/// A sweep: its points are fixed (no live changes).
const SWEEP_KEYS: [(&str, &str); 8] = [
    ("n", "end this point, go on with the next"),
    ("s", "stop the sweep, keep what finished"),
    ("PgUp/PgDn", "scroll the results (Home/End)"),
    ("v", "chart: MB/s, IOPS, mean latency, p99"),
    ("space", "pause / resume the point"),
    ("q, Ctrl-C", "stop, write the record, quit"),
    ("", "> running  ! cut short  x failed"),
    ("", ""),
];

/// A monitor recording replayed (`diskdash show REC.jsonl`).
const REPLAY_KEYS: [(&str, &str); 6] = [
    ("left / right", "previous / next sample"),
    ("S-left/right", "10 samples back / on"),
    ("PgUp / PgDn", "60 samples back / on"),
    ("Home / End", "first / last sample"),
    ("g, t", "go to HH:MM:SS (UTC) or +5m, -30s"),
    ("", ""),
];

const COMMON_KEYS: [(&str, &str); 7] = [
    ("up / down", "select a disk"),
    ("o / O", "sort column / reverse order"),
    ("tab", "move focus"),
    ("l", "log / linear scales"),
    ("h", "latency heatmap / histogram"),
    ("?", "this help (any key closes)"),
    ("q, Ctrl-C", "quit"),
];

/// `diskdash fleet`: the hosts' rows pick the charts; quitting stops every host first.
const FLEET_KEYS: &[(&str, &str)] = &[
    ("tab, S-tab", "next / previous host, then the fleet"),
    ("up / down", "select the host the charts show"),
    ("q, Ctrl-C", "stop every host, record, quit"),
    ("", ""),
];

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    if !view.ui.help || area.is_empty() {
        return;
    }
    let theme = Theme::new(view.ui.color);
    let several = view.mode == Mode::Bench && view.jobs.is_some();
    let mut rows: Vec<(&str, &str)> = Vec::new();
    let sweep = view.mode == Mode::Bench && view.sweep.is_some();
    if sweep {
        rows.extend(SWEEP_KEYS);
    } else if several {
        rows.extend(PLAN_KEYS);
    } else if view.mode == Mode::Bench {
        rows.extend(BENCH_KEYS);
    } else if view.mode == Mode::Fleet {
        rows.extend(FLEET_KEYS);
    } else if view.header.state == Some(RunState::Recorded) && view.mode == Mode::Monitor {
        rows.extend(REPLAY_KEYS);
    }
    // With several jobs the arrows and tab pick the job, not a disk or the focus.
    let hidden = |k: &str| {
        (matches!(view.mode, Mode::Bench | Mode::Fleet) && k == "q, Ctrl-C")
            || (several && matches!(k, "up / down" | "tab"))
            // No disks table: nothing to select or sort there.
            || (view.mode == Mode::Fleet && matches!(k, "up / down" | "tab" | "o / O"))
            // The monitor has no latency panel.
            || (view.mode == Mode::Monitor && k == "h")
    };
    rows.extend(COMMON_KEYS.iter().filter(|(k, _)| !hidden(k)));
    let lines: Vec<Line> = rows
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!(" {k:<11}"), theme.value()),
                Span::styled(*what, theme.label()),
            ])
        })
        .collect();
    let width = 50.min(area.width);
    let height = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    f.render_widget(Clear, popup);
    f.render_widget(
        Paragraph::new(lines).block(
            Block::bordered()
                .title(" keys ")
                .border_style(theme.border(true)),
        ),
        popup,
    );
}
