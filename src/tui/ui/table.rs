//! All disks in `iostat -x` style; arrows select, `o` cycles the sort column, `O` reverses.
//! The discard columns (`d/s`, `dkB/s`, `d_await`) show once a disk of the table has discarded
//! (and stay, so they do not come and go with every sample).
//! ```text
//! +- disks (sorted by %util, descending) ---------------------------------------+
//! |  Device    r/s   rkB/s  r_await rareq-sz   w/s   wkB/s w_await wareq-sz aqu-sz %util |
//! | >vda    12.3k  49.2k     2.51     4.00   0.0    0.0    0.00     0.00  31.02  99.8 |
//! +-----------------------------------------------------------------------------+
//! ```
//! Columns drop from the right when the panel is narrow; the device name always stays.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Text;
use ratatui::widgets::{Block, Cell, Row, Table, TableState};

use super::fmt;
use super::theme::Theme;
use crate::tui::view::{DiskRow, Focus, View};

struct Column {
    name: &'static str,
    width: u16,
    get: fn(&DiskRow) -> f64,
    decimals: usize,
}

const COLUMNS: [Column; 13] = [
    Column {
        name: "r/s",
        width: 9,
        get: |r| r.r_s,
        decimals: 2,
    },
    Column {
        name: "rkB/s",
        width: 10,
        get: |r| r.rkb_s,
        decimals: 2,
    },
    Column {
        name: "r_await",
        width: 8,
        get: |r| r.r_await,
        decimals: 2,
    },
    Column {
        name: "rareq-sz",
        width: 8,
        get: |r| r.rareq_sz,
        decimals: 2,
    },
    Column {
        name: "w/s",
        width: 9,
        get: |r| r.w_s,
        decimals: 2,
    },
    Column {
        name: "wkB/s",
        width: 10,
        get: |r| r.wkb_s,
        decimals: 2,
    },
    Column {
        name: "w_await",
        width: 8,
        get: |r| r.w_await,
        decimals: 2,
    },
    Column {
        name: "wareq-sz",
        width: 8,
        get: |r| r.wareq_sz,
        decimals: 2,
    },
    Column {
        name: "d/s",
        width: 9,
        get: |r| r.d_s,
        decimals: 2,
    },
    Column {
        name: "dkB/s",
        width: 10,
        get: |r| r.dkb_s,
        decimals: 2,
    },
    Column {
        name: "d_await",
        width: 8,
        get: |r| r.d_await,
        decimals: 2,
    },
    Column {
        name: "aqu-sz",
        width: 7,
        get: |r| r.aqu_sz,
        decimals: 2,
    },
    Column {
        name: "%util",
        width: 6,
        get: |r| r.util,
        decimals: 1,
    },
];

/// Which columns fit: `%util` and `aqu-sz` are kept first, then the rest left to right (the
/// discard columns only `with_discards`, each after its read and write kin).
fn fitting(width: u16, name_w: u16, with_discards: bool) -> Vec<&'static Column> {
    let keep_order = [12usize, 11, 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7];
    let mut room = width.saturating_sub(name_w + 1);
    let mut chosen = Vec::new();
    for i in keep_order {
        if !with_discards && (8..=10).contains(&i) {
            continue;
        }
        let need = COLUMNS[i].width + 1;
        if room >= need {
            room -= need;
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    chosen.into_iter().map(|i| &COLUMNS[i]).collect()
}

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(table) = &view.disks else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    let focused = view.ui.focus == Focus::Disks;
    let order = if table.descending {
        "descending"
    } else {
        "ascending"
    };
    // The rows are always the latest sample, unlike the device panel after a stop: say so.
    let window = view.header.interval.map_or(String::new(), |i| {
        format!(", now: {}", fmt::last_window(i, view.header.window))
    });
    let block = Block::bordered()
        .title(format!(
            " disks, sorted by {} {order}{window} ",
            table.sort.column()
        ))
        .border_style(theme.border(focused));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.is_empty() {
        return;
    }
    let name_w = table
        .rows
        .iter()
        .map(|r| u16::try_from(r.name.len()).unwrap_or(16))
        .max()
        .unwrap_or(6)
        .clamp(6, 16)
        + 1;
    let cols = fitting(inner.width.saturating_sub(1), name_w, table.discards);
    let sort_mark = |name: &str| {
        if name == table.sort.column() {
            format!("{name}*")
        } else {
            name.to_string()
        }
    };
    let mut header = vec![Cell::from(sort_mark("Device"))];
    header.extend(
        cols.iter()
            .map(|c| Cell::from(Text::from(sort_mark(c.name)).right_aligned())),
    );
    let rows = table.rows.iter().map(|r| {
        let name = if r.vanished {
            format!("{} (gone)", r.name)
        } else {
            r.name.clone()
        };
        let mut cells = vec![Cell::from(fmt::fit(&name, usize::from(name_w)))];
        cells.extend(cols.iter().map(|c| {
            let v = (c.get)(r);
            Cell::from(Text::from(format!("{v:.prec$}", prec = c.decimals)).right_aligned())
        }));
        let style = if r.vanished {
            theme.dim()
        } else {
            ratatui::style::Style::default()
        };
        Row::new(cells).style(style)
    });
    let mut widths = vec![Constraint::Length(name_w)];
    widths.extend(cols.iter().map(|c| Constraint::Length(c.width)));
    let widget = Table::new(rows, widths)
        .header(Row::new(header).style(theme.label()))
        .column_spacing(1)
        .highlight_symbol(">")
        .row_highlight_style(if focused {
            theme.selected()
        } else {
            theme.value()
        });
    let mut state = TableState::default().with_selected(table.selected);
    f.render_stateful_widget(widget, inner, &mut state);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(cols: &[&Column]) -> Vec<&'static str> {
        cols.iter().map(|c| c.name).collect()
    }

    #[test]
    fn discard_columns_show_only_with_discards_and_follow_their_kin() {
        let all = fitting(200, 8, true);
        assert_eq!(all.len(), COLUMNS.len());
        assert!(
            names(&fitting(200, 8, false))
                .iter()
                .all(|n| !n.starts_with('d'))
        );
        // Narrow: %util, aqu-sz, then r/s, w/s and d/s before any kB/s column.
        let narrow = names(&fitting(8 + 1 + 6 + 1 + 7 + 1 + 3 * 10, 8, true));
        assert_eq!(narrow, ["r/s", "w/s", "d/s", "aqu-sz", "%util"]);
        let narrow = names(&fitting(8 + 1 + 6 + 1 + 7 + 1 + 3 * 10, 8, false));
        assert_eq!(narrow, ["r/s", "r_await", "w/s", "aqu-sz", "%util"]);
    }
}
