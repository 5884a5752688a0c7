//! A sweep's results: one row per point, filled in as points finish; the running point is
//! highlighted with its numbers so far, the pending ones dimmed with their parameters. The
//! title is the plan line: where the sweep is, its time so far and its ETA.
//! ```text
//! +- sweep: point 6 of 8  elapsed 2m12s  ETA 1m04s ------------------------------------+
//! |  rw    bs    rIOPS  wIOPS   rMB/s   wMB/s  r mean  w mean   r p99   w p99 %util ... |
//! |  write 1M        -    412       -   432.0       -  2.42ms       -  4.90ms  97.1     |
//! | !write 8M        -     58       -   486.5       -  17.2ms       -  35.1ms  99.0     |
//! | >read  2M      301       -   631.2       -  3.31ms       -  6.52ms       -  96.4     |
//! |  read  4M                                                                           |
//! +-------------------------------------------------------------------------------------+
//! ```
//! `>` the running point, `!` a point cut short (`n`, `s`), `x` a failed one. Columns drop
//! when the panel is narrow: IOPS, MB/s, p99 and %util stay longest, then the mean and
//! aqu-sz, MiB/s (the MB/s in binary units) goes first; the bottom border names those left
//! out. A direction no finished point did has no columns. Rows that do not fit scroll:
//! the running point stays in view, PgUp/PgDn move a page, Home/End to the first point and
//! back to the running one; the bottom border says which rows are shown. A point that runs
//! otherwise than the sweep's options say (a batching value capped to its depth) has its
//! notes in a last column, `; ` between them, cut with `…` where the panel is narrow; the
//! column is there only when a point has notes, and it keeps room for a few characters before
//! the numbers take the rest.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Text;
use ratatui::widgets::{Block, Cell, Row, Table, TableState};

use super::fmt;
use super::theme::Theme;
use crate::record::RunStatus;
use crate::session::PointRates;
use crate::tui::view::sweep::{PointState, SweepRow};
use crate::tui::view::{SweepView, View};

struct Column {
    name: &'static str,
    width: u16,
    /// `None`: the direction did no I/O.
    get: fn(&SweepRow) -> Option<String>,
    /// The direction whose numbers it shows (`None`: the disk's).
    read: Option<bool>,
}

fn mb(rates: PointRates) -> String {
    format!("{:.1}", rates.bytes_per_s / 1e6)
}

fn mib(rates: PointRates) -> String {
    format!("{:.1}", rates.bytes_per_s / 1_048_576.0)
}

fn mean(rates: PointRates) -> String {
    fmt::latency_ns(rates.mean_ns.max(0.0) as u64)
}

const COLUMNS: [Column; 12] = [
    Column {
        name: "rIOPS",
        width: 6,
        get: |r| r.read.map(|d| fmt::rate(d.iops)),
        read: Some(true),
    },
    Column {
        name: "wIOPS",
        width: 6,
        get: |r| r.write.map(|d| fmt::rate(d.iops)),
        read: Some(false),
    },
    Column {
        name: "rMB/s",
        width: 7,
        get: |r| r.read.map(mb),
        read: Some(true),
    },
    Column {
        name: "wMB/s",
        width: 7,
        get: |r| r.write.map(mb),
        read: Some(false),
    },
    Column {
        name: "rMiB/s",
        width: 7,
        get: |r| r.read.map(mib),
        read: Some(true),
    },
    Column {
        name: "wMiB/s",
        width: 7,
        get: |r| r.write.map(mib),
        read: Some(false),
    },
    Column {
        name: "r mean",
        width: 7,
        get: |r| r.read.map(mean),
        read: Some(true),
    },
    Column {
        name: "w mean",
        width: 7,
        get: |r| r.write.map(mean),
        read: Some(false),
    },
    Column {
        name: "r p99",
        width: 7,
        get: |r| r.read.map(|d| fmt::latency_ns(d.p99_ns)),
        read: Some(true),
    },
    Column {
        name: "w p99",
        width: 7,
        get: |r| r.write.map(|d| fmt::latency_ns(d.p99_ns)),
        read: Some(false),
    },
    Column {
        name: "%util",
        width: 5,
        get: |r| r.util_pct.map(|u| format!("{u:.1}")),
        read: None,
    },
    Column {
        name: "aqu-sz",
        width: 6,
        get: |r| r.aqu_sz.map(|q| format!("{q:.2}")),
        read: None,
    },
];

/// Which columns fit in `room`, by importance: IOPS, MB/s, p99, %util, mean, aqu-sz, then
/// MiB/s (MB/s in other units), a direction's pair together; in table order. Also the names
/// of those left out.
fn fitting(room: u16, reads: bool, writes: bool) -> (Vec<&'static Column>, Vec<&'static str>) {
    let groups: [&[usize]; 7] = [&[0, 1], &[2, 3], &[8, 9], &[10], &[6, 7], &[11], &[4, 5]];
    let mut room = room;
    let mut chosen = Vec::new();
    let mut left_out = Vec::new();
    for group in groups {
        let wanted: Vec<usize> = group
            .iter()
            .copied()
            .filter(|&i| match COLUMNS[i].read {
                Some(true) => reads,
                Some(false) => writes,
                None => true,
            })
            .collect();
        let need: u16 = wanted.iter().map(|&i| COLUMNS[i].width + 1).sum();
        if room >= need {
            room -= need;
            chosen.extend(wanted);
        } else {
            left_out.extend(wanted);
        }
    }
    chosen.sort_unstable();
    left_out.sort_unstable();
    (
        chosen.into_iter().map(|i| &COLUMNS[i]).collect(),
        left_out.into_iter().map(|i| COLUMNS[i].name).collect(),
    )
}

/// The notes column's room kept from the numbers: enough to tell which value was capped.
const NOTES_ROOM: u16 = 16;

/// `text` in at most `width` characters: cut with `…` when longer.
fn fit_text(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The first row on screen when `visible` of `count` rows fit: the `focus` row (the running
/// point) kept in view, moved by the user's `scroll`, never past either end.
fn first_row(count: usize, visible: usize, focus: Option<usize>, scroll: i32) -> usize {
    let last_top = count.saturating_sub(visible);
    let follow = focus.map_or(0, |f| (f + 1).saturating_sub(visible));
    let top = i64::try_from(follow).unwrap_or(i64::MAX) + i64::from(scroll);
    usize::try_from(top.max(0)).map_or(last_top, |t| t.min(last_top))
}

/// The bottom border's text: which rows are on screen and which columns did not fit.
fn bottom_line(top: usize, shown: usize, count: usize, left_out: &[&str], width: u16) -> String {
    let mut parts = Vec::new();
    if shown < count {
        parts.push(format!(
            "rows {}-{} of {count}: PgUp/PgDn",
            top + 1,
            top + shown
        ));
    }
    if !left_out.is_empty() {
        let s = if left_out.len() == 1 { "" } else { "s" };
        let named = format!("+{} column{s}: {}", left_out.len(), left_out.join(" "));
        let room = usize::from(width.saturating_sub(4));
        let joined = parts.iter().map(|p| p.chars().count() + 2).sum::<usize>();
        if joined + named.chars().count() <= room {
            parts.push(named);
        } else {
            parts.push(format!("+{} column{s}", left_out.len()));
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" {} ", parts.join("  "))
    }
}

/// Rows the panel wants: a header, one per point, and the borders.
#[must_use]
pub fn rows_wanted(view: &View) -> u16 {
    view.sweep
        .as_ref()
        .map_or(0, |s| u16::try_from(s.rows.len() + 3).unwrap_or(u16::MAX))
}

/// The plan line: the point, the time so far, the ETA (or how the sweep ended).
#[must_use]
pub fn plan_line(sweep: &SweepView) -> String {
    let (point, count) = sweep.point;
    let elapsed = fmt::duration(sweep.elapsed);
    // `diskdash mark`'s points are CrystalDiskMark's tests.
    let (what, unit) = if sweep.is_mark() {
        ("mark", "test")
    } else {
        ("sweep", "point")
    };
    match sweep.eta {
        Some(eta) if sweep.running => format!(
            "{what}: {unit} {point} of {count}  elapsed {elapsed}  ETA {}",
            fmt::duration(eta)
        ),
        None if sweep.running => format!("{what}: {unit} {point} of {count}  elapsed {elapsed}"),
        _ => {
            let done = sweep
                .rows
                .iter()
                .filter(|r| matches!(r.state, PointState::Done(_)))
                .count();
            // "over" only once the plan is: a sweep stopped short says so.
            let over = if sweep.stopped { "stopped" } else { "over" };
            format!("{what} {over}: {done} of {count} {unit}s  elapsed {elapsed}")
        }
    }
}

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(sweep) = &view.sweep else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let block = Block::bordered()
        .title(format!(" {} ", plan_line(sweep)))
        .border_style(theme.border(true));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.is_empty() {
        return;
    }
    let param_widths: Vec<u16> = sweep
        .params
        .iter()
        .enumerate()
        .map(|(i, name)| {
            sweep
                .rows
                .iter()
                .filter_map(|r| r.values.get(i))
                .chain([name])
                .map(|v| u16::try_from(v.chars().count()).unwrap_or(u16::MAX))
                .max()
                .unwrap_or(1)
                .min(16)
        })
        .collect();
    let with_data = || {
        sweep
            .rows
            .iter()
            .filter(|r| r.read.is_some() || r.write.is_some())
    };
    let any = with_data().next().is_some();
    let reads = !any || with_data().any(|r| r.read.is_some());
    let writes = !any || with_data().any(|r| r.write.is_some());
    // The mark column, then the parameters, each with its space.
    let fixed: u16 = 2 + param_widths.iter().map(|w| w + 1).sum::<u16>();
    // A point's notes, last: room for a few characters kept from the numbers when a point
    // has any, all that the numbers leave otherwise.
    let notes: Vec<String> = sweep.rows.iter().map(|r| r.notes.join("; ")).collect();
    let longest = notes.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let keep = u16::try_from(longest).map_or(NOTES_ROOM, |l| l.min(NOTES_ROOM));
    let (cols, left_out) = fitting(
        inner.width.saturating_sub(fixed).saturating_sub(keep),
        reads,
        writes,
    );
    let notes_width = if longest == 0 {
        0
    } else {
        let used = fixed + cols.iter().map(|c| c.width + 1).sum::<u16>();
        inner
            .width
            .saturating_sub(used)
            .min(u16::try_from(longest).unwrap_or(u16::MAX))
    };
    let number = |text: String| Cell::from(Text::from(text).right_aligned());

    let mut header = vec![Cell::from("")];
    header.extend(sweep.params.iter().map(|p| Cell::from(p.clone())));
    header.extend(cols.iter().map(|c| number(c.name.to_string())));
    if notes_width > 0 {
        header.push(Cell::from(fit_text("notes", usize::from(notes_width))));
    }
    let rows: Vec<Row> = sweep
        .rows
        .iter()
        .zip(&notes)
        .map(|(r, note)| {
            let (mark, style) = match r.state {
                PointState::Running => (">", theme.selected()),
                PointState::Pending => (" ", theme.dim()),
                PointState::Done(RunStatus::Completed) => (" ", ratatui::style::Style::default()),
                PointState::Done(RunStatus::Interrupted | RunStatus::Stopped) => {
                    ("!", ratatui::style::Style::default())
                }
                PointState::Done(RunStatus::Failed) => ("x", theme.error()),
            };
            let mut cells = vec![Cell::from(mark)];
            cells.extend(r.values.iter().map(|v| Cell::from(v.clone())));
            let ran = r.state != PointState::Pending;
            cells.extend(cols.iter().map(|c| {
                let value = (c.get)(r);
                number(match (ran, value) {
                    (false, _) => String::new(),
                    (true, Some(v)) => v,
                    (true, None) => "-".into(),
                })
            }));
            if notes_width > 0 {
                cells.push(Cell::from(fit_text(note, usize::from(notes_width))));
            }
            Row::new(cells).style(style)
        })
        .collect();
    let mut widths = vec![Constraint::Length(1)];
    widths.extend(param_widths.iter().map(|&w| Constraint::Length(w)));
    widths.extend(cols.iter().map(|c| Constraint::Length(c.width)));
    if notes_width > 0 {
        widths.push(Constraint::Length(notes_width));
    }
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.label()))
        .column_spacing(1);
    // Scrolled so that the running point (or the last that ran) is on screen, then as far as
    // PgUp/PgDn moved it.
    let focus = sweep
        .rows
        .iter()
        .position(|r| r.state == PointState::Running)
        .or_else(|| {
            sweep
                .rows
                .iter()
                .rposition(|r| r.state != PointState::Pending)
        });
    let count = sweep.rows.len();
    let visible = usize::from(inner.height.saturating_sub(1)).min(count);
    let top = first_row(count, visible, focus, view.ui.sweep_scroll);
    let mut state = TableState::default().with_offset(top);
    f.render_stateful_widget(table, inner, &mut state);
    let note = bottom_line(top, visible, count, &left_out, area.width);
    if !note.is_empty() && area.height > 1 {
        let bottom = Rect {
            x: area.x + 1,
            y: area.bottom() - 1,
            width: area.width.saturating_sub(2),
            height: 1,
        };
        f.render_widget(
            ratatui::widgets::Paragraph::new(note).style(theme.dim()),
            bottom,
        );
    }
}
