//! Reading a run record back (`diskdash show`, `diskdash compare`): one loader, one set of
//! error texts, the format and its version checked before the fields.

use std::path::Path;

use super::{FORMAT, FORMAT_VERSION, RunRecord};

const FIX: &str = "give a file written by `diskdash bench --json`";

/// The run record in `path`. Every failure is a usage error (exit 2) naming the file and the fix.
pub fn load(path: &Path) -> anyhow::Result<RunRecord> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| crate::usage!("cannot read {shown}: {e}; {FIX}"))?;
    parse(&text).map_err(|why| crate::usage!("{shown} {why}"))
}

/// The record in `text`, or why it is not one (a phrase after the file name).
fn parse(text: &str) -> Result<RunRecord, String> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| format!("is not a diskdash run record (not JSON: {e}); {FIX}"))?;
    let format = value.get("format").and_then(serde_json::Value::as_str);
    if format != Some(FORMAT) {
        let found = format.map_or_else(|| "no format key".to_string(), |f| format!("{f:?}"));
        return Err(format!(
            "is not a diskdash run record (format {found}, not {FORMAT:?}); {FIX}"
        ));
    }
    let version = value
        .get("format_version")
        .and_then(serde_json::Value::as_u64);
    if version != Some(u64::from(FORMAT_VERSION)) {
        let found = version.map_or_else(|| "missing".to_string(), |v| v.to_string());
        let writer = value
            .get("diskdash_version")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("another version");
        return Err(format!(
            "has record format_version {found}, this diskdash reads version {FORMAT_VERSION}; \
             open it with the diskdash that wrote it ({writer}) or record the run again"
        ));
    }
    serde_json::from_value(value).map_err(|e| format!("is not a diskdash run record ({e}); {FIX}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_json_other_formats_and_other_versions_say_why() {
        let err = parse("[1, 2").unwrap_err();
        assert!(
            err.starts_with("is not a diskdash run record (not JSON: "),
            "{err}"
        );
        assert_eq!(
            parse(r#"{"format": "diskdash-bench-interval"}"#).unwrap_err(),
            "is not a diskdash run record (format \"diskdash-bench-interval\", not \
             \"diskdash-bench\"); give a file written by `diskdash bench --json`"
        );
        assert_eq!(
            parse("{}").unwrap_err(),
            "is not a diskdash run record (format no format key, not \"diskdash-bench\"); \
             give a file written by `diskdash bench --json`"
        );
        assert_eq!(
            parse(
                r#"{"format": "diskdash-bench", "format_version": 9, "diskdash_version": "0.9.0"}"#
            )
            .unwrap_err(),
            "has record format_version 9, this diskdash reads version 2; open it with the \
             diskdash that wrote it (0.9.0) or record the run again"
        );
        let err = parse(r#"{"format": "diskdash-bench", "format_version": 2}"#).unwrap_err();
        assert!(
            err.starts_with("is not a diskdash run record (missing field"),
            "{err}"
        );
    }
}
