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
use crate::tui::view::{DeviceTimes, DiskRow, Focus, View};

struct Column {
    name: &'static str,
    width: u16,
    get: fn(&DiskRow) -> f64,
    decimals: usize,
}

/// `--trace`'s device-time percentile, ms; NaN (shown `-`) when the row has none.
fn device_ms(r: &DiskRow, pick: fn(&DeviceTimes) -> u64) -> f64 {
    r.device_time
        .as_ref()
        .map_or(f64::NAN, |t| pick(t) as f64 / 1e6)
}

const COLUMNS: [Column; 16] = [
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
    Column {
        name: "dev_p50",
        width: 8,
        get: |r| device_ms(r, |t| t.p50_ns),
        decimals: 3,
    },
    Column {
        name: "dev_p99",
        width: 8,
        get: |r| device_ms(r, |t| t.p99_ns),
        decimals: 3,
    },
    Column {
        name: "dev_p99.9",
        width: 9,
        get: |r| device_ms(r, |t| t.p999_ns),
        decimals: 3,
    },
];

/// The device-time columns (`--trace`).
const TRACED: std::ops::RangeInclusive<usize> = 13..=15;

/// Which columns fit: `%util` and `aqu-sz` are kept first, then the rest left to right (the
/// discard columns only `with_discards`, each after its read and write kin; the device-time
/// percentiles only `traced`, after the rates and before the awaits, on the right of
/// sysstat's columns).
fn fitting(width: u16, name_w: u16, with_discards: bool, traced: bool) -> Vec<&'static Column> {
    let keep_order = [12usize, 11, 0, 4, 8, 13, 14, 15, 1, 5, 9, 2, 6, 10, 3, 7];
    let mut room = width.saturating_sub(name_w + 1);
    let mut chosen = Vec::new();
    for i in keep_order {
        if !with_discards && (8..=10).contains(&i) || !traced && TRACED.contains(&i) {
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
    let cols = fitting(
        inner.width.saturating_sub(1),
        name_w,
        table.discards,
        table.traced,
    );
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
            let text = if v.is_nan() {
                "-".to_string()
            } else {
                format!("{v:.prec$}", prec = c.decimals)
            };
            Cell::from(Text::from(text).right_aligned())
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
        let all = fitting(250, 8, true, true);
        assert_eq!(all.len(), COLUMNS.len());
        assert!(
            names(&fitting(200, 8, false, false))
                .iter()
                .all(|n| !n.starts_with('d'))
        );
        // Narrow: %util, aqu-sz, then r/s, w/s and d/s before any kB/s column.
        let narrow = names(&fitting(8 + 1 + 6 + 1 + 7 + 1 + 3 * 10, 8, true, false));
        assert_eq!(narrow, ["r/s", "w/s", "d/s", "aqu-sz", "%util"]);
        let narrow = names(&fitting(8 + 1 + 6 + 1 + 7 + 1 + 3 * 10, 8, false, false));
        assert_eq!(narrow, ["r/s", "r_await", "w/s", "aqu-sz", "%util"]);
    }

    #[test]
    fn device_time_columns_show_only_traced_right_of_sysstats() {
        assert!(
            names(&fitting(250, 8, true, false))
                .iter()
                .all(|n| !n.starts_with("dev_"))
        );
        let all = names(&fitting(250, 8, false, true));
        assert_eq!(&all[all.len() - 3..], ["dev_p50", "dev_p99", "dev_p99.9"]);
        // At 80 columns the percentiles come before the kB/s and await columns.
        let eighty = names(&fitting(78, 8, false, true));
        assert!(eighty.contains(&"dev_p99"), "{eighty:?}");
        assert!(!eighty.contains(&"rkB/s"), "{eighty:?}");
        let row = DiskRow {
            device_time: Some(DeviceTimes {
                p50_ns: 250_000,
                p99_ns: 1_500_000,
                p999_ns: 4_000_000,
            }),
            ..DiskRow::default()
        };
        assert_eq!((COLUMNS[14].get)(&row), 1.5);
        assert!((COLUMNS[13].get)(&DiskRow::default()).is_nan());
    }
}
