//! One grid for every results table (sweep, mark, fleet, compare) and one renderer per output
//! format behind a small trait: aligned text ([`Text`]), text fitted to a terminal's width
//! ([`Fitted`]), Markdown, CSV (RFC 4180) and JSON (an array of objects keyed by the header).
//! A report builds the [`Grid`] of what it shows and picks the renderer; how columns line up,
//! what a narrow terminal leaves out and how a cell is quoted are written here once.
//!
//! ```text
//!  title                                      (text only)
//!               |    Read [MB/s]      ...     groups: spanning labels (text only)
//!  Test         |  MB/s  IOPS  lat us ...     header: one cell a column
//!  ------------------------------------       rule (when the grid asks for rules)
//!  SEQ1M Q8T1   |  2050  1955   180   note    rows: cells, then an optional note
//!  read (3 -> 4 I/Os)                         a line of its own among the rows (text, Markdown)
//!  footer lines
//! ```

mod csv;
#[cfg(test)]
mod json;
mod markdown;
mod text;

pub use self::csv::Csv;
#[cfg(test)]
pub use self::json::Json;
pub use self::markdown::Markdown;
pub use self::text::{Fitted, Text};

#[cfg(test)]
use crate::values::TableFormat;

/// Where a column's cells sit within its width in text (and, when the grid says so, Markdown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Names and words.
    Left,
    /// Numbers, so their digits line up.
    Right,
}

/// One column: its header cell, alignment, the least width it takes in text, the text before
/// it, and how soon a narrow terminal leaves it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub header: String,
    pub align: Align,
    /// The text column is at least this wide (wider when a cell or the header is).
    pub min_width: usize,
    /// What separates the column from the one before it in text (not written before the
    /// first column shown).
    pub gap: String,
    /// `None`: a key column, always shown. Else the higher the rank, the sooner [`Fitted`]
    /// leaves the column out (of equal ranks, the rightmost first).
    pub rank: Option<u8>,
}

impl Column {
    fn new(header: impl Into<String>, align: Align) -> Self {
        Self {
            header: header.into(),
            align,
            min_width: 0,
            gap: "  ".to_string(),
            rank: None,
        }
    }

    /// A left-aligned key column, two spaces after the one before.
    #[must_use]
    pub fn left(header: impl Into<String>) -> Self {
        Self::new(header, Align::Left)
    }

    /// A right-aligned key column, two spaces after the one before.
    #[must_use]
    pub fn right(header: impl Into<String>) -> Self {
        Self::new(header, Align::Right)
    }

    #[must_use]
    pub fn min_width(mut self, width: usize) -> Self {
        self.min_width = width;
        self
    }

    #[must_use]
    pub fn gap(mut self, gap: impl Into<String>) -> Self {
        self.gap = gap.into();
        self
    }

    /// The column may leave a narrow terminal's table: `rank` says how soon.
    #[must_use]
    pub fn rank(mut self, rank: u8) -> Self {
        self.rank = Some(rank);
        self
    }
}

/// A label spanning `span` columns on a line above the header (`Read [MB/s]`), or `short`
/// where the label is wider than its columns. `short` also names the columns elsewhere:
/// `Read` and `IOPS` make `Read IOPS` in Markdown, CSV, JSON and the fitted table's note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub label: String,
    pub short: String,
    pub span: usize,
}

impl Group {
    #[must_use]
    pub fn new(label: impl Into<String>, short: impl Into<String>, span: usize) -> Self {
        Self {
            label: label.into(),
            short: short.into(),
            span,
        }
    }
}

/// A row of the grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// One cell a column, and a note the text writes after the row (Markdown, CSV and JSON in
    /// the column [`Grid::notes`] names).
    Cells {
        cells: Vec<String>,
        note: Option<String>,
    },
    /// A line of its own among the rows (a section's name): text and Markdown show it, CSV
    /// and JSON, which programs read, leave it out.
    Line(String),
}

/// A table: what it shows, apart from how it is written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grid {
    /// A line above the text table.
    pub title: Option<String>,
    /// Text before every line of the text table.
    pub indent: String,
    pub groups: Vec<Group>,
    pub columns: Vec<Column>,
    /// The leading columns that name a row: never left out, and a row's note that does not
    /// fit beside it starts under them.
    pub keys: usize,
    pub rows: Vec<Row>,
    /// Lines under the table (a paragraph in Markdown; left out of CSV and JSON).
    pub footer: Vec<String>,
    /// Lines of `-` under the header and under the rows in text.
    pub rules: bool,
    /// The Markdown separator says each column's alignment (`---:` for numbers).
    pub markdown_align: bool,
    /// The column name of the rows' notes in Markdown, CSV and JSON (`None`: not written).
    pub notes: Option<String>,
    /// Where the columns a fitted table left out can be seen: `--format csv`.
    pub fit_hint: String,
}

impl Grid {
    #[must_use]
    pub fn new(columns: Vec<Column>) -> Self {
        Self {
            columns,
            ..Self::default()
        }
    }

    /// Adds a row of cells, one a column.
    pub fn row(&mut self, cells: Vec<String>) {
        self.row_with_note(cells, None);
    }

    /// Adds a row of cells and the note written after it.
    pub fn row_with_note(&mut self, cells: Vec<String>, note: Option<String>) {
        debug_assert_eq!(cells.len(), self.columns.len(), "a cell for each column");
        self.rows.push(Row::Cells { cells, note });
    }

    /// Adds a line of its own among the rows.
    pub fn line(&mut self, text: impl Into<String>) {
        self.rows.push(Row::Line(text.into()));
    }

    /// The group each column is in (`None` outside any).
    fn group_of(&self, column: usize) -> Option<&Group> {
        let mut start = 0;
        for group in &self.groups {
            if (start..start + group.span).contains(&column) {
                return Some(group);
            }
            start += group.span;
        }
        None
    }

    /// A column's whole name: its group's short name and its header (`Read IOPS`), or the
    /// header alone.
    #[must_use]
    pub fn name(&self, column: usize) -> String {
        let header = &self.columns[column].header;
        match self.group_of(column) {
            Some(group) if !group.short.is_empty() => format!("{} {header}", group.short),
            _ => header.clone(),
        }
    }

    /// Every column's whole name ([`Grid::name`]).
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        (0..self.columns.len()).map(|c| self.name(c)).collect()
    }

    /// The rows of cells with their notes, lines left out.
    fn cell_rows(&self) -> impl Iterator<Item = (&[String], Option<&str>)> {
        self.rows.iter().filter_map(|row| match row {
            Row::Cells { cells, note } => Some((cells.as_slice(), note.as_deref())),
            Row::Line(_) => None,
        })
    }

    /// Whether any row has a note.
    fn has_notes(&self) -> bool {
        self.cell_rows().any(|(_, note)| note.is_some())
    }
}

/// One output format.
pub trait Exporter {
    /// The grid written in this format, every line ended by `\n`.
    fn render(&self, grid: &Grid) -> String;
}

/// The renderer of `format`.
#[cfg(test)]
#[must_use]
pub fn exporter(format: TableFormat) -> Box<dyn Exporter> {
    match format {
        TableFormat::Table => Box::new(Text),
        TableFormat::Markdown => Box::new(Markdown),
        TableFormat::Csv => Box::new(Csv),
        TableFormat::Json => Box::new(Json),
    }
}

/// `grid` in `format`.
#[cfg(test)]
#[must_use]
pub fn render(grid: &Grid, format: TableFormat) -> String {
    exporter(format).render(grid)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two key columns, two numbers, a note, a line and a footer; the cells carry `|`, `,`,
    /// `"` and a line break.
    pub(crate) fn sample() -> Grid {
        let mut grid = Grid::new(vec![
            Column::left("host"),
            Column::right("IOPS").rank(1),
            Column::right("p99").rank(2),
            Column::left("state"),
        ]);
        grid.notes = Some("notes".into());
        grid.row_with_note(
            vec!["a|b".into(), "1500".into(), "1.2 ms".into(), "ok".into()],
            Some("said \"so\", twice".into()),
        );
        grid.line("section");
        grid.row(vec![
            "c,d".into(),
            "12".into(),
            String::new(),
            "line\nbreak".into(),
        ]);
        grid.footer = vec!["footer".into()];
        grid
    }

    #[test]
    fn every_format_has_its_renderer() {
        let grid = sample();
        for format in [
            TableFormat::Table,
            TableFormat::Markdown,
            TableFormat::Csv,
            TableFormat::Json,
        ] {
            let text = render(&grid, format);
            assert!(text.ends_with('\n'), "{format:?}: {text:?}");
            assert!(text.contains("1500"), "{format:?}: {text}");
        }
        assert_eq!(render(&grid, TableFormat::Csv), Csv.render(&grid));
    }

    #[test]
    fn a_grouped_column_is_named_with_its_group() {
        let mut grid = Grid::new(vec![
            Column::left("Test"),
            Column::right("MB/s"),
            Column::right("IOPS"),
        ]);
        grid.groups = vec![Group::new("", "", 1), Group::new("Read [MB/s]", "Read", 2)];
        assert_eq!(grid.names(), ["Test", "Read MB/s", "Read IOPS"]);
    }
}
