//! The monitor's `--trace` "top": the processes doing I/O on the selected disk over the last
//! interval, busiest first, from the block layer (each request counts for the process that
//! started it; kernel threads such as writeback's flush workers are marked).
//! ```text
//! +- processes on loop0, last 1.00s (block layer) -------------------+
//! |     PID COMM              IOPS     BW/s  dev avg  %dev           |
//! |    4021 fio                300  1.2MiB/s  81.2us  74.9           |
//! |     118 kworker/u8:2 [k]   100   400KiB/s  80.1us  25.1          |
//! +------------------------------------------------------------------+
//! ```

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Text;
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table};

use super::fmt;
use super::theme::Theme;
use crate::tui::view::{TopRow, View};

/// Rows the panel wants: a header and one per process (at least one line for a note).
#[must_use]
pub fn rows_wanted(view: &View) -> u16 {
    view.top.as_ref().map_or(0, |t| {
        let rows = u16::try_from(t.rows.len().max(1)).unwrap_or(u16::MAX);
        rows.saturating_add(3)
    })
}

/// A process's name as the panel shows it: kernel threads marked `[k]`.
fn name(row: &TopRow) -> String {
    if row.kernel {
        format!("{} [k]", row.comm)
    } else {
        row.comm.clone()
    }
}

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(top) = &view.top else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let block = Block::bordered()
        .title(format!(
            " processes on {}, last {} (block layer) ",
            top.disk,
            fmt::interval(top.window)
        ))
        .border_style(theme.border(false));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.is_empty() {
        return;
    }
    if top.rows.is_empty() {
        let note = top
            .missing
            .clone()
            .unwrap_or_else(|| "no I/O traced in the window".to_string());
        f.render_widget(Paragraph::new(note).style(theme.dim()), inner);
        return;
    }
    let right = |s: String| Cell::from(Text::from(s).right_aligned());
    let header = Row::new(vec![
        right("PID".into()),
        Cell::from("COMM"),
        right("IOPS".into()),
        right("BW/s".into()),
        right("dev avg".into()),
        right("%dev".into()),
    ])
    .style(theme.label());
    let rows = top.rows.iter().map(|r| {
        Row::new(vec![
            right(r.pid.to_string()),
            Cell::from(fmt::fit(&name(r), 20)),
            right(fmt::rate(r.iops)),
            right(fmt::bytes_rate(r.bytes_per_s)),
            right(fmt::latency_ns(r.device_ns_per_io.round() as u64)),
            right(format!("{:.1}", r.device_share_pct)),
        ])
    });
    let widths = [
        Constraint::Length(8),
        Constraint::Length(20),
        Constraint::Length(7),
        Constraint::Length(11),
        Constraint::Length(8),
        Constraint::Length(5),
    ];
    let table = Table::new(rows, widths).header(header).column_spacing(1);
    f.render_widget(table, inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_threads_are_marked() {
        let mut row = TopRow {
            pid: 118,
            comm: "kworker/u8:2".into(),
            kernel: true,
            ..TopRow::default()
        };
        assert_eq!(name(&row), "kworker/u8:2 [k]");
        row.kernel = false;
        assert_eq!(name(&row), "kworker/u8:2");
    }
}
