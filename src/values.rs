//! Value types several commands share, each with one parse, one set of spellings and one
//! usage error: `sweep --pick` and `mark --pick` take the same words, `sweep --format` and
//! `mark --format` the same formats.

use crate::error::usage;

/// How a point's (or a test's) loops become its one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// The best run (CrystalDiskMark's rule).
    Best,
    /// The runs together (KDiskMark's rule for its default profile).
    Mean,
    /// The median run.
    Median,
}

impl Pick {
    /// `best` (or `max`), `mean` (or `average`, `avg`), `median`.
    ///
    /// # Errors
    /// A usage error naming the value and the choices.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        Ok(match text {
            "best" | "max" => Self::Best,
            "mean" | "average" | "avg" => Self::Mean,
            "median" => Self::Median,
            other => {
                return Err(usage!(
                    "--pick {other:?} is not a rule; use best (CrystalDiskMark's), mean \
                     (KDiskMark's) or median"
                ));
            }
        })
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Best => "best",
            Self::Mean => "mean",
            Self::Median => "median",
        }
    }
}

/// The names of [`Pick`]'s rules, as shells complete them.
pub const PICK_NAMES: [&str; 3] = ["best", "mean", "median"];

/// The names of [`TableFormat`]s, as shells complete them.
pub const TABLE_FORMAT_NAMES: [&str; 4] = ["table", "markdown", "csv", "json"];

/// How a results table is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Aligned columns for a terminal.
    Table,
    Markdown,
    Csv,
    Json,
}

impl TableFormat {
    /// `table` (or `text`), `markdown` (or `md`), `csv`, `json`.
    ///
    /// # Errors
    /// A usage error naming the value and the choices.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        Ok(match text {
            "table" | "text" => Self::Table,
            "markdown" | "md" => Self::Markdown,
            "csv" => Self::Csv,
            "json" => Self::Json,
            other => {
                return Err(usage!(
                    "--format {other:?} is not a format; use table, markdown, csv or json"
                ));
            }
        })
    }
}

/// A step's point (its swept options and values) as it is shown: `bs=2M rw=write`. The plan
/// names it `plan::describe`; it lives here, below the plan, so that what reads recorded points
/// (`analysis`) names it too.
#[must_use]
pub fn describe_point(point: &[(String, String)]) -> String {
    point
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_parses_and_the_rest_is_a_usage_error() {
        for (text, pick) in [
            ("best", Pick::Best),
            ("max", Pick::Best),
            ("mean", Pick::Mean),
            ("avg", Pick::Mean),
            ("average", Pick::Mean),
            ("median", Pick::Median),
        ] {
            assert_eq!(Pick::parse(text).unwrap(), pick);
            assert_eq!(Pick::parse(pick.as_str()).unwrap(), pick);
        }
        for (text, format) in [
            ("table", TableFormat::Table),
            ("text", TableFormat::Table),
            ("markdown", TableFormat::Markdown),
            ("md", TableFormat::Markdown),
            ("csv", TableFormat::Csv),
            ("json", TableFormat::Json),
        ] {
            assert_eq!(TableFormat::parse(text).unwrap(), format);
        }
        for name in PICK_NAMES {
            assert_eq!(Pick::parse(name).unwrap().as_str(), name);
        }
        for name in TABLE_FORMAT_NAMES {
            assert!(TableFormat::parse(name).is_ok(), "{name}");
        }
        let err = Pick::parse("worst").unwrap_err();
        assert_eq!(crate::error::exit_code(&err), 2);
        assert!(err.to_string().contains("\"worst\""), "{err}");
        let err = TableFormat::parse("xml").unwrap_err();
        assert_eq!(crate::error::exit_code(&err), 2);
        assert!(err.to_string().contains("\"xml\""), "{err}");
    }
}
