//! The jobs of the running step, when it runs several at once: one row each over the last
//! interval, then the step total. The selected row is the one the charts follow (`tab`, arrows).
//! ```text
//! +- jobs, last interval (tab/arrows select what the charts show) -----------+
//! |  job          rw        bs  depth    IOPS   MiB/s     p50     p99 err |
//! | >randread128  randread 128k     1     812   101.5  1.10ms  4.52ms   0 |
//! |  step total                       3.21k   401.2  1.05ms  4.80ms   0 |
//! +--------------------------------------------------------------------------+
//! ```
//! Columns drop from the right when the panel is narrow; the name always stays.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Text;
use ratatui::widgets::{Block, Cell, Row, Table, TableState};

use super::fmt;
use super::theme::Theme;
use crate::tui::view::{JobRow, View};

struct Column {
    name: &'static str,
    width: u16,
    get: fn(&JobRow) -> String,
    /// Text columns are left-aligned, numbers right-aligned.
    text: bool,
}

fn latency(ns: Option<u64>) -> String {
    ns.map_or_else(|| "-".into(), fmt::latency_ns)
}

const COLUMNS: [Column; 8] = [
    Column {
        name: "rw",
        width: 9,
        get: |r| r.rw.clone(),
        text: true,
    },
    Column {
        name: "bs",
        width: 5,
        get: |r| r.bs.clone(),
        text: false,
    },
    Column {
        name: "depth",
        width: 6,
        get: |r| r.depth.clone(),
        text: false,
    },
    Column {
        name: "IOPS",
        width: 7,
        get: |r| fmt::rate(r.iops),
        text: false,
    },
    Column {
        name: "MiB/s",
        width: 7,
        get: |r| format!("{:.1}", r.bytes_per_s / 1_048_576.0),
        text: false,
    },
    Column {
        name: "p50",
        width: 7,
        get: |r| latency(r.p50_ns),
        text: false,
    },
    Column {
        name: "p99",
        width: 7,
        get: |r| latency(r.p99_ns),
        text: false,
    },
    Column {
        name: "err",
        width: 4,
        get: |r| r.errors.to_string(),
        text: false,
    },
];

/// Which columns fit: the rates, p99 and errors first, then what the job is, then p50.
fn fitting(width: u16, name_w: u16) -> Vec<&'static Column> {
    let keep_order = [3usize, 4, 6, 7, 0, 1, 2, 5];
    let mut room = width.saturating_sub(name_w);
    let mut chosen = Vec::new();
    for i in keep_order {
        let need = COLUMNS[i].width + 1;
        if room >= need {
            room -= need;
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    chosen.into_iter().map(|i| &COLUMNS[i]).collect()
}

/// Rows the panel wants: a header, one per job, the total, and the borders.
#[must_use]
pub fn rows_wanted(view: &View) -> u16 {
    view.jobs
        .as_ref()
        .map_or(0, |j| u16::try_from(j.rows.len() + 4).unwrap_or(u16::MAX))
}

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(jobs) = &view.jobs else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let title = match jobs.span {
        crate::tui::view::JobsSpan::LastInterval => {
            " jobs, last interval (tab/arrows select what the charts show) "
        }
        crate::tui::view::JobsSpan::WholeStep => " jobs of the last step, each over its run ",
    };
    let block = Block::bordered()
        .title(title)
        .border_style(theme.border(true));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.is_empty() {
        return;
    }
    let name_w = jobs
        .rows
        .iter()
        .chain([&jobs.total])
        .map(|r| u16::try_from(r.name.chars().count()).unwrap_or(u16::MAX))
        .max()
        .unwrap_or(4)
        .clamp(4, 24);
    // One column for the highlight mark.
    let cols = fitting(inner.width.saturating_sub(1), name_w);
    let cell = |c: &Column, text: String| {
        if c.text {
            Cell::from(text)
        } else {
            Cell::from(Text::from(text).right_aligned())
        }
    };
    let mut header = vec![Cell::from("job")];
    header.extend(cols.iter().map(|c| cell(c, c.name.to_string())));
    let row = |r: &JobRow| {
        let mut cells = vec![Cell::from(fmt::fit(&r.name, usize::from(name_w)))];
        cells.extend(cols.iter().map(|c| cell(c, (c.get)(r))));
        Row::new(cells)
    };
    let mut rows: Vec<Row> = jobs.rows.iter().map(row).collect();
    rows.push(row(&jobs.total).style(theme.label()));
    let mut widths = vec![Constraint::Length(name_w)];
    widths.extend(cols.iter().map(|c| Constraint::Length(c.width)));
    let widget = Table::new(rows, widths)
        .header(Row::new(header).style(theme.label()))
        .column_spacing(1)
        .highlight_symbol(">")
        .row_highlight_style(theme.selected());
    let selected = jobs.selected.unwrap_or(jobs.rows.len());
    let mut state = TableState::default().with_selected(Some(selected));
    f.render_stateful_widget(widget, inner, &mut state);
}
