//! The fleet table: one row per host and the fleet's totals (`fleet::table::Row`), under a
//! title line that names the window.

use crate::fleet::table::Row;
use crate::report::export::{self, Column, Exporter as _, Grid};
use crate::units::{format_latency_ns, format_rate};

/// The table under a title line (`title` names the window), the fleet row last.
#[must_use]
pub fn render(title: &str, hosts: &[Row], fleet: &Row) -> String {
    let mut grid = Grid::new(vec![
        Column::left("host").min_width(4),
        Column::left("state").min_width(11),
        Column::right("IOPS").min_width(8).gap(" "),
        Column::right("MiB/s").min_width(12).gap(" "),
        Column::right("p50").min_width(9).gap(" "),
        Column::right("p99").min_width(9).gap(" "),
        Column::right("%util").min_width(6).gap(" "),
        Column::left("errors"),
    ]);
    grid.title = Some(crate::error::one_line(title));
    grid.indent = "  ".to_string();
    let measured = |row: &Row, text: String| if row.measured { text } else { "-".to_string() };
    let latency =
        |ns: Option<u64>| ns.map_or_else(|| "-".to_string(), |ns| format_latency_ns(ns as f64));
    for row in hosts.iter().chain([fleet]) {
        grid.row(vec![
            row.name.clone(),
            row.state.clone(),
            measured(row, format_rate(row.iops)),
            measured(
                row,
                format!("{:.1}", row.bw_bytes_per_s / (1024.0 * 1024.0)),
            ),
            latency(row.p50_ns),
            latency(row.p99_ns),
            row.util_pct
                .map_or_else(|| "-".to_string(), |u| format!("{u:.1}")),
            // A host's error may come from its record: shown on one line, escaped.
            row.error
                .as_deref()
                .map_or_else(|| "0".to_string(), crate::error::one_line),
        ]);
    }
    // Host names come from the user's host list: the one rule for text from outside.
    crate::text::escape_layout(&export::Text.render(&grid)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_then_the_fleet_aligned_with_dashes_for_unknowns() {
        let hosts = [
            Row {
                name: "node01".into(),
                state: "running".into(),
                measured: true,
                iops: 1500.0,
                bw_bytes_per_s: 6_291_456.0,
                p50_ns: Some(120_000),
                p99_ns: Some(900_000),
                util_pct: Some(42.5),
                error: None,
            },
            Row {
                name: "node02".into(),
                state: "failed".into(),
                error: Some("connection closed".into()),
                ..Row::default()
            },
        ];
        let fleet = Row {
            name: "fleet".into(),
            state: "1 of 2".into(),
            measured: true,
            iops: 1500.0,
            bw_bytes_per_s: 6_291_456.0,
            p50_ns: Some(120_000),
            p99_ns: Some(900_000),
            util_pct: Some(42.5),
            error: None,
        };
        let text = render("[    1.0s] interval 1", &hosts, &fleet);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert_eq!(lines[0], "[    1.0s] interval 1");
        assert!(lines[1].starts_with("  host    state"), "{text}");
        assert!(
            lines[2].contains("node01") && lines[2].contains("6.0"),
            "{text}"
        );
        assert!(lines[3].contains("failed") && lines[3].ends_with("connection closed"));
        assert!(
            !lines[3][8..].contains('0'),
            "a host without results shows dashes: {text}"
        );
        assert!(lines[4].starts_with("  fleet   1 of 2"), "{text}");
        let column = |l: &str| l.find("MiB/s").or_else(|| l.find("6.0"));
        assert_eq!(
            column(lines[1]).map(|c| c + 5),
            column(lines[2]).map(|c| c + 3)
        );
    }
}
