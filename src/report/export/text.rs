//! The grid as aligned text: each column as wide as its widest cell (or its least width),
//! numbers right-aligned, and, for a terminal narrower than the table, the least needed
//! columns left out with a line that names them.

use super::{Align, Exporter, Grid, Row};
use crate::report::fit;

/// Every column, each line as long as it needs.
pub struct Text;

/// The columns that fit `width` characters: the highest-ranked leave first (of equal rank the
/// rightmost), key columns never; a line under the table names those left out and
/// [`Grid::fit_hint`] says where to see them. A row's note that does not fit beside it goes on
/// lines of its own under the key columns; the title and the footer are fitted like any
/// headless text ([`fit::text`]).
pub struct Fitted(pub usize);

impl Exporter for Text {
    fn render(&self, grid: &Grid) -> String {
        Layout::new(grid).render(&vec![true; grid.columns.len()], None)
    }
}

impl Exporter for Fitted {
    fn render(&self, grid: &Grid) -> String {
        let width = self.0;
        let layout = Layout::new(grid);
        let mut keep = vec![true; grid.columns.len()];
        let mut order: Vec<(u8, usize)> = grid
            .columns
            .iter()
            .enumerate()
            .filter(|&(c, _)| c >= grid.keys)
            .filter_map(|(c, column)| column.rank.map(|rank| (rank, c)))
            .collect();
        order.sort_by_key(|&(rank, c)| (std::cmp::Reverse(rank), std::cmp::Reverse(c)));
        // Named in the order they left.
        let mut left_out = Vec::new();
        for (_, c) in order {
            if layout.line_width(&keep) <= width {
                break;
            }
            keep[c] = false;
            left_out.push(grid.name(c));
        }
        let mut out = layout.render(&keep, Some(width));
        if !left_out.is_empty() {
            let s = if left_out.len() == 1 { "" } else { "s" };
            let note = format!(
                "+{} column{s} left out to fit {width} columns ({}): {}\n",
                left_out.len(),
                left_out.join(", "),
                grid.fit_hint
            );
            out.push_str(&fit::text(&note, Some(width)));
        }
        for line in &grid.footer {
            out.push_str(&fit::text(&format!("{line}\n"), Some(width)));
        }
        out
    }
}

/// The grid's column widths, measured once.
struct Layout<'a> {
    grid: &'a Grid,
    widths: Vec<usize>,
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

impl<'a> Layout<'a> {
    fn new(grid: &'a Grid) -> Self {
        let widths = grid
            .columns
            .iter()
            .enumerate()
            .map(|(c, column)| {
                grid.cell_rows()
                    .map(|(cells, _)| {
                        cells
                            .get(c)
                            .map_or(0, |cell| chars(&crate::text::escape(cell)))
                    })
                    .chain([chars(&column.header), column.min_width])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        Self { grid, widths }
    }

    /// The columns `keep` marks as `(index, gap before it)`: no gap before the first.
    fn shown<'k>(&'k self, keep: &'k [bool]) -> impl Iterator<Item = (usize, &'a str)> + 'k {
        let grid = self.grid;
        (0..grid.columns.len())
            .filter(|&c| keep[c])
            .enumerate()
            .map(move |(n, c)| {
                (
                    c,
                    if n == 0 {
                        ""
                    } else {
                        grid.columns[c].gap.as_str()
                    },
                )
            })
    }

    /// How long a row is with the columns `keep` marks, its padding included.
    fn line_width(&self, keep: &[bool]) -> usize {
        chars(&self.grid.indent)
            + self
                .shown(keep)
                .map(|(c, gap)| chars(gap) + self.widths[c])
                .sum::<usize>()
    }

    /// Where a note on lines of its own starts: under the [key columns](Grid::keys).
    fn note_indent(&self, keep: &[bool]) -> usize {
        chars(&self.grid.indent)
            + self
                .shown(keep)
                .take_while(|&(c, _)| c < self.grid.keys)
                .map(|(c, gap)| chars(gap) + self.widths[c])
                .sum::<usize>()
    }

    /// One line of cells, its trailing spaces trimmed.
    fn cells_line(&self, cells: &[String], keep: &[bool]) -> String {
        let mut line = self.grid.indent.clone();
        for (c, gap) in self.shown(keep) {
            line.push_str(gap);
            let cell = crate::text::escape(cells.get(c).map_or("", String::as_str));
            let cell = cell.as_ref();
            let pad = " ".repeat(self.widths[c].saturating_sub(chars(cell)));
            match self.grid.columns[c].align {
                Align::Left => {
                    line.push_str(cell);
                    line.push_str(&pad);
                }
                Align::Right => {
                    line.push_str(&pad);
                    line.push_str(cell);
                }
            }
        }
        line
    }

    /// The groups' labels, each centred over its columns.
    fn groups_line(&self, keep: &[bool]) -> String {
        let mut line = self.grid.indent.clone();
        let mut first = true;
        let mut start = 0;
        for group in &self.grid.groups {
            let columns: Vec<usize> = (start..start + group.span).filter(|&c| keep[c]).collect();
            start += group.span;
            let Some(&head) = columns.first() else {
                continue;
            };
            if !first {
                line.push_str(&self.grid.columns[head].gap);
            }
            first = false;
            let span = columns
                .iter()
                .enumerate()
                .map(|(n, &c)| {
                    self.widths[c]
                        + if n == 0 {
                            0
                        } else {
                            chars(&self.grid.columns[c].gap)
                        }
                })
                .sum::<usize>();
            let label = if chars(&group.label) > span {
                &group.short
            } else {
                &group.label
            };
            let pad = span.saturating_sub(chars(label));
            line.push_str(&" ".repeat(pad / 2));
            line.push_str(label);
            line.push_str(&" ".repeat(pad - pad / 2));
        }
        line
    }

    /// The table with the columns `keep` marks; within `width`, notes that do not fit beside
    /// their row go under it.
    fn render(&self, keep: &[bool], width: Option<usize>) -> String {
        let grid = self.grid;
        let mut out = String::new();
        let mut push = |line: &str| {
            out.push_str(line.trim_end());
            out.push('\n');
        };
        if let Some(title) = &grid.title {
            match width {
                Some(_) => push(fit::text(title, width).trim_end_matches('\n')),
                None => push(title),
            }
        }
        if !grid.groups.is_empty() {
            push(&self.groups_line(keep));
        }
        let headers: Vec<String> = grid.columns.iter().map(|c| c.header.clone()).collect();
        push(&self.cells_line(&headers, keep));
        let rule = "-".repeat(self.line_width(keep));
        if grid.rules {
            push(&rule);
        }
        for row in &grid.rows {
            match row {
                Row::Line(text) => push(&crate::text::escape(text)),
                Row::Cells { cells, note } => {
                    let mut line = self.cells_line(cells, keep);
                    if let Some(note) = note {
                        let note = crate::text::escape(note);
                        match width {
                            Some(fit) if chars(&line) + 2 + chars(&note) > fit => {
                                push(&line);
                                let indent = self.note_indent(keep);
                                line =
                                    fit::line(&format!("{:indent$}  {note}", ""), fit).join("\n");
                            }
                            _ => {
                                line.push_str("  ");
                                line.push_str(&note);
                            }
                        }
                    }
                    push(&line);
                }
            }
        }
        if grid.rules {
            push(&rule);
        }
        if width.is_none() {
            for line in &grid.footer {
                push(line);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::super::{Column, Group};
    use super::*;

    #[test]
    fn columns_are_as_wide_as_their_widest_cell_and_numbers_right_aligned() {
        let text = Text.render(&sample());
        assert_eq!(
            text,
            "host  IOPS     p99  state\n\
             a|b   1500  1.2 ms  ok           said \"so\", twice\n\
             section\n\
             c,d     12          line\\nbreak\n\
             footer\n"
        );
    }

    #[test]
    fn groups_are_centred_over_their_columns_between_rules() {
        let mut grid = Grid::new(vec![
            Column::left("Test").min_width(6),
            Column::right("MB/s").min_width(6).gap(" | "),
            Column::right("IOPS").min_width(6).gap(""),
            Column::right("MB/s").min_width(6).gap(" | "),
        ]);
        grid.groups = vec![
            Group::new("", "", 1),
            Group::new("Read [MB/s]", "Read", 2),
            Group::new("Write [MB/s]", "Write", 1),
        ];
        grid.rules = true;
        grid.row(vec!["Q1".into(), "1.5".into(), "20".into(), "-".into()]);
        assert_eq!(
            Text.render(&grid),
            "       | Read [MB/s]  | Write\n\
             Test   |   MB/s  IOPS |   MB/s\n\
             ------------------------------\n\
             Q1     |    1.5    20 |      -\n\
             ------------------------------\n"
        );
    }

    /// A grid wider than 80 columns: a key, twelve ranked numbers, a key last.
    fn wide() -> Grid {
        let mut columns = vec![Column::left("point")];
        for n in 0..12u8 {
            columns.push(Column::right(format!("value {n}")).rank(n % 3 + 1));
        }
        columns.push(Column::left(""));
        let mut grid = Grid::new(columns);
        grid.keys = 1;
        grid.fit_hint = "--format csv shows all".into();
        let mut cells = vec!["4k".to_string()];
        cells.extend((0..12).map(|n| format!("{}", n * 1000)));
        cells.push("best read".into());
        grid.row_with_note(
            cells,
            Some("a note that is long enough to need its own line".into()),
        );
        grid
    }

    #[test]
    fn at_80_columns_the_highest_ranks_leave_first_and_a_line_names_them() {
        let grid = wide();
        assert!(Text.render(&grid).lines().any(|l| l.chars().count() > 80));
        let text = Fitted(80).render(&grid);
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line:?} in\n{text}");
        }
        let lines: Vec<&str> = text.lines().collect();
        // Rank 3 goes first, rightmost first: value 11, 8, 5, 2; then rank 2 from the right.
        assert!(
            lines[0].starts_with("point  value 0  value 1  value 3"),
            "{text}"
        );
        assert!(
            lines[1].starts_with("4k") && lines[1].ends_with("best read"),
            "{text}"
        );
        assert_eq!(
            lines[2], "       a note that is long enough to need its own line",
            "{text}"
        );
        assert!(
            lines[3]
                .starts_with("+5 columns left out to fit 80 columns (value 11, value 8, value 5,"),
            "{text}"
        );
        assert!(text.ends_with("--format csv shows all\n"), "{text}");
        // Wide enough: the whole table, the note beside its row.
        assert_eq!(Fitted(400).render(&grid), Text.render(&grid));
    }

    #[test]
    fn one_column_left_out_is_said_in_the_singular() {
        let mut grid = Grid::new(vec![
            Column::left("key"),
            Column::right("a").rank(1),
            Column::right("b").rank(2),
        ]);
        grid.fit_hint = "wider".into();
        grid.row(vec!["k".into(), "1".repeat(10), "2".repeat(10)]);
        assert_eq!(
            Fitted(20).render(&grid),
            "key           a\nk    1111111111\n+1 column left out\nto fit 20 columns\n(b): wider\n"
        );
    }
}
