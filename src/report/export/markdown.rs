//! The grid as a Markdown (GitHub) table: the header, the separator, a row per row, a row's
//! note in the notes column when any row has one, the footer as a paragraph under it. A `|` in
//! a cell is escaped so it stays in its cell; a control character is written as its escape.

use super::{Align, Exporter, Grid, Row};

pub struct Markdown;

/// A cell made safe for a Markdown table: controls escaped, `|` as `\|`.
fn cell(text: &str) -> String {
    crate::text::escape(text).replace('|', "\\|")
}

fn line(cells: impl IntoIterator<Item = String>) -> String {
    let cells: Vec<String> = cells.into_iter().collect();
    format!("| {} |\n", cells.join(" | "))
}

impl Exporter for Markdown {
    fn render(&self, grid: &Grid) -> String {
        let notes = grid.notes.as_ref().filter(|_| grid.has_notes());
        let mut header: Vec<String> = grid.names().iter().map(|n| cell(n)).collect();
        let mut separator: Vec<String> = grid
            .columns
            .iter()
            .map(|c| match c.align {
                Align::Right if grid.markdown_align => "---:".to_string(),
                _ => "---".to_string(),
            })
            .collect();
        if let Some(name) = notes {
            header.push(cell(name));
            separator.push("---".to_string());
        }
        let mut out = line(header);
        out.push_str(&line(separator));
        for row in &grid.rows {
            let mut cells: Vec<String> = match row {
                Row::Cells { cells, .. } => cells.iter().map(|c| cell(c)).collect(),
                // A line of its own: its text in the first cell.
                Row::Line(text) => {
                    let mut cells = vec![String::new(); grid.columns.len()];
                    if let Some(first) = cells.first_mut() {
                        *first = cell(text);
                    }
                    cells
                }
            };
            if notes.is_some() {
                let note = match row {
                    Row::Cells { note, .. } => note.as_deref().map_or_else(String::new, cell),
                    Row::Line(_) => String::new(),
                };
                cells.push(note);
            }
            out.push_str(&line(cells));
        }
        if !grid.footer.is_empty() {
            out.push('\n');
            let footer: Vec<String> = grid
                .footer
                .iter()
                .map(|l| crate::text::escape(l).into_owned())
                .collect();
            // Two spaces before a line break: Markdown's hard break.
            out.push_str(&footer.join("  \n"));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn pipes_are_escaped_and_notes_get_their_column() {
        let mut grid = sample();
        assert_eq!(
            Markdown.render(&grid),
            "| host | IOPS | p99 | state | notes |\n\
             | --- | --- | --- | --- | --- |\n\
             | a\\|b | 1500 | 1.2 ms | ok | said \"so\", twice |\n\
             | section |  |  |  |  |\n\
             | c,d | 12 |  | line\\nbreak |  |\n\
             \n\
             footer\n"
        );
        grid.markdown_align = true;
        grid.notes = None;
        grid.footer = vec!["one".into(), "two".into()];
        let text = Markdown.render(&grid);
        assert!(
            text.starts_with("| host | IOPS | p99 | state |\n| --- | ---: | ---: | --- |\n"),
            "{text}"
        );
        assert!(text.ends_with("|\n\none  \ntwo\n"), "{text}");
    }
}
