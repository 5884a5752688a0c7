//! The grid as CSV (RFC 4180): a header row of the columns' names, a row per row of cells
//! (with the note last when the grid names a notes column), CRLF-free (`\n` ends a record,
//! as every tool reading CSV accepts). A cell with a comma, a quote or a line break is quoted,
//! its quotes doubled; lines among the rows and the footer are not data and are left out.

use super::{Exporter, Grid};

pub struct Csv;

/// One field, quoted when it must be.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn record(fields: impl IntoIterator<Item = String>) -> String {
    let fields: Vec<String> = fields.into_iter().map(|f| field(&f)).collect();
    format!("{}\n", fields.join(","))
}

impl Exporter for Csv {
    fn render(&self, grid: &Grid) -> String {
        let mut header = grid.names();
        header.extend(grid.notes.clone());
        let mut out = record(header);
        for (cells, note) in grid.cell_rows() {
            let mut fields = cells.to_vec();
            if grid.notes.is_some() {
                fields.push(note.unwrap_or_default().to_string());
            }
            out.push_str(&record(fields));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;

    #[test]
    fn commas_quotes_and_line_breaks_are_quoted() {
        assert_eq!(
            Csv.render(&sample()),
            "host,IOPS,p99,state,notes\n\
             a|b,1500,1.2 ms,ok,\"said \"\"so\"\", twice\"\n\
             \"c,d\",12,,\"line\nbreak\",\n"
        );
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a\rb"), "\"a\rb\"");
    }
}
