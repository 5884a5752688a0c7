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
//!
//! A fleet's hosts (`diskdash fleet`) are the rows of the same table, each over the same
//! interval, with their state, the device's %util and why a host failed:
//! ```text
//! +- hosts over interval 12 (fleet: rates summed, p50/p99 merged, %util the busiest) -+
//! |  host  state        IOPS   MiB/s     p50     p99  %util  errors                  |
//! |  h1    running     3.21k    12.5  95.2us   310us   41.0  0                       |
//! |  h3    failed          -       -       -       -      -  dropped mid-run: ...    |
//! | >fleet 2 of 3      6.40k    25.0  96.0us   320us   43.5  1 host out              |
//! +----------------------------------------------------------------------------------+
//! ```

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Text;
use ratatui::widgets::{Block, Cell, Row, Table, TableState};

use super::fmt;
use super::theme::Theme;
use crate::tui::view::{HostCells, JobRow, JobsSpan, View};

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

/// A fleet host's cells; `-` where the host sent nothing for the table's interval.
fn host_cell(r: &JobRow, get: fn(&JobRow, &HostCells) -> String) -> String {
    match &r.host {
        Some(cells) => get(r, cells),
        None => "-".into(),
    }
}

fn measured(r: &JobRow, text: String) -> String {
    if r.host.as_ref().is_some_and(|c| c.measured) {
        text
    } else {
        "-".into()
    }
}

/// The hosts table's columns; `errors` (why a host failed) takes the room left.
const HOST_COLUMNS: [Column; 7] = [
    Column {
        name: "state",
        width: 10,
        get: |r| host_cell(r, |_, c| c.state.clone()),
        text: true,
    },
    Column {
        name: "IOPS",
        width: 7,
        get: |r| measured(r, fmt::rate(r.iops)),
        text: false,
    },
    Column {
        name: "MiB/s",
        width: 7,
        get: |r| measured(r, format!("{:.1}", r.bytes_per_s / 1_048_576.0)),
        text: false,
    },
    Column {
        name: "p50",
        width: 7,
        get: |r| measured(r, latency(r.p50_ns)),
        text: false,
    },
    Column {
        name: "p99",
        width: 7,
        get: |r| measured(r, latency(r.p99_ns)),
        text: false,
    },
    Column {
        name: "%util",
        width: 6,
        get: |r| {
            host_cell(r, |_, c| {
                c.util_pct.map_or("-".into(), |u| format!("{u:.1}"))
            })
        },
        text: false,
    },
    Column {
        name: "errors",
        width: 6,
        get: |r| host_cell(r, |_, c| c.error.clone().unwrap_or_else(|| "0".into())),
        text: true,
    },
];

/// Which columns fit: the rates, p99 and errors first, then what the job is, then p50. A
/// fleet's hosts: the state, the rates and p99, the errors, then p50 and %util.
fn fitting(
    columns: &'static [Column],
    keep_order: &[usize],
    width: u16,
    name_w: u16,
) -> Vec<&'static Column> {
    let mut room = width.saturating_sub(name_w);
    let mut chosen = Vec::new();
    for &i in keep_order {
        let need = columns[i].width + 1;
        if room >= need {
            room -= need;
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    chosen.into_iter().map(|i| &columns[i]).collect()
}

/// The hosts table's title in `width` columns: the interval all rows are over, and what the
/// fleet row is.
fn hosts_title(interval: u64, step: u32, width: u16) -> String {
    if interval == 0 {
        return " hosts (no interval yet; tab/arrows select what the charts show) ".into();
    }
    let step = if step > 0 {
        format!("step {step} ")
    } else {
        String::new()
    };
    let forms = [
        format!(
            " hosts over {step}interval {interval} (fleet: rates summed, p50/p99 merged, %util the busiest) "
        ),
        format!(" hosts over {step}interval {interval} (fleet: p50/p99 merged, %util busiest) "),
        format!(" hosts, {step}interval {interval} (fleet %util: busiest) "),
    ];
    let last = forms[forms.len() - 1].clone();
    forms
        .into_iter()
        .find(|t| t.chars().count() + 2 <= usize::from(width))
        .unwrap_or(last)
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
        JobsSpan::LastInterval => {
            " jobs, last interval (tab/arrows select what the charts show) ".to_string()
        }
        JobsSpan::WholeStep => " jobs of the last step, each over its run ".to_string(),
        JobsSpan::WholeRun => " jobs, whole run (each over its own time) ".to_string(),
        JobsSpan::Hosts { interval, step } => hosts_title(interval, step, area.width),
    };
    let hosts = matches!(jobs.span, JobsSpan::Hosts { .. });
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
    let (columns, keep_order): (&'static [Column], &[usize]) = if hosts {
        (&HOST_COLUMNS, &[0, 1, 2, 4, 6, 3, 5])
    } else {
        (&COLUMNS, &[3, 4, 6, 7, 0, 1, 2, 5])
    };
    let cols = fitting(columns, keep_order, inner.width.saturating_sub(1), name_w);
    let cell = |c: &Column, text: String| {
        if c.text {
            Cell::from(text)
        } else {
            Cell::from(Text::from(text).right_aligned())
        }
    };
    let mut header = vec![Cell::from(if hosts { "host" } else { "job" })];
    header.extend(cols.iter().map(|c| cell(c, c.name.to_string())));
    // What is left of the row for the errors, after the highlight mark and the other columns.
    let error_w = inner.width.saturating_sub(1).saturating_sub(
        cols.iter()
            .filter(|c| c.name != "errors")
            .map(|c| c.width + 1)
            .sum::<u16>()
            + name_w
            + 1,
    );
    let row = |r: &JobRow| {
        let mut cells = vec![Cell::from(fmt::fit(&r.name, usize::from(name_w)))];
        cells.extend(cols.iter().map(|c| {
            let text = (c.get)(r);
            let text = if hosts && c.name == "errors" {
                fmt::fit(&text, usize::from(error_w))
            } else {
                text
            };
            cell(c, text)
        }));
        Row::new(cells)
    };
    let mut rows: Vec<Row> = jobs.rows.iter().map(row).collect();
    rows.push(row(&jobs.total).style(theme.label()));
    let mut widths = vec![Constraint::Length(name_w)];
    widths.extend(cols.iter().map(|c| Constraint::Length(c.width)));
    if hosts && cols.last().is_some_and(|c| c.name == "errors") {
        // The errors say why: they take what is left of the row.
        if let Some(last) = widths.last_mut() {
            *last = Constraint::Length(error_w);
        }
    }
    let widget = Table::new(rows, widths)
        .header(Row::new(header).style(theme.label()))
        .column_spacing(1)
        .highlight_symbol(">")
        .row_highlight_style(theme.selected());
    let selected = jobs.selected.unwrap_or(jobs.rows.len());
    let mut state = TableState::default().with_selected(Some(selected));
    f.render_stateful_widget(widget, inner, &mut state);
}
