//! The fleet's line protocol, as the controller reads it: each line a host sends on its stdout
//! is one JSON object whose `format` is diskdash's (ready, interval, run record, warning, error,
//! or another line of the stream), or it is not the protocol. Pure: bytes in, a typed line out.

use crate::record::{
    ERROR_FORMAT, ErrorLine, INTERVAL_FORMAT, IntervalRecord, READY_FORMAT, RunRecord, RunWarning,
    WARNING_FORMAT, WarningLine,
};

use super::lines;

/// Characters of a host's line shown when it is not the fleet protocol.
pub const SHOWN_CHARS: usize = 80;

/// What a host's stdout line is.
#[derive(Debug)]
pub enum Line {
    Ready,
    Interval(Box<IntervalRecord>),
    Record(Box<RunRecord>),
    /// A warning of the remote run (page cache, stalls), worth seeing as it comes.
    Warning(Box<RunWarning>),
    /// The error the remote run ended with.
    Error(ErrorLine),
    /// Another line of the stream (a sweep's point).
    Other,
    /// Not a line of the protocol: the line as shown (escaped, cut).
    Foreign(String),
    /// A line of the protocol that does not parse: why.
    Broken(String),
}

/// A host's stdout line, by its `format`: a JSON object whose `format` is diskdash's.
#[must_use]
pub fn parse_line(bytes: &[u8]) -> Line {
    #[derive(serde::Deserialize)]
    struct Probe {
        format: String,
    }
    let foreign = || Line::Foreign(lines::shown(&String::from_utf8_lossy(bytes), SHOWN_CHARS));
    let Ok(line) = std::str::from_utf8(bytes) else {
        return foreign();
    };
    let Ok(probe) = serde_json::from_str::<Probe>(line) else {
        return foreign();
    };
    let broken = |err: serde_json::Error| {
        Line::Broken(format!(
            "a {} line: {}",
            lines::shown(&probe.format, SHOWN_CHARS),
            lines::shown(&err.to_string(), 200)
        ))
    };
    match probe.format.as_str() {
        READY_FORMAT => Line::Ready,
        INTERVAL_FORMAT => {
            serde_json::from_str(line).map_or_else(broken, |r| Line::Interval(Box::new(r)))
        }
        crate::record::FORMAT => {
            serde_json::from_str(line).map_or_else(broken, |r| Line::Record(Box::new(r)))
        }
        WARNING_FORMAT => serde_json::from_str::<WarningLine>(line)
            .map_or_else(broken, |w| Line::Warning(Box::new(w.warning))),
        ERROR_FORMAT => serde_json::from_str(line).map_or_else(broken, Line::Error),
        other if other.starts_with("diskdash-") => Line::Other,
        _ => foreign(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval_line() -> Vec<u8> {
        let mut stats = crate::stats::DirectionStats::new();
        stats.record(4096, 100_000);
        serde_json::to_vec(&crate::stats::fixture::read_interval(0, 3, &stats)).unwrap()
    }

    /// Each kind of line, by what it parses to (the kind's name, and what it carries as text).
    #[test]
    fn every_kind_of_line_parses_to_its_kind() {
        let ready = format!(r#"{{"format":"{READY_FORMAT}","format_version":1}}"#);
        let record = serde_json::to_vec(&crate::stats::fixture::record()).unwrap();
        let warning = serde_json::to_vec(&WarningLine::new(RunWarning::Holes {
            path: "/srv/f".into(),
        }))
        .unwrap();
        let error = serde_json::to_vec(&ErrorLine::new("no room".into(), 2)).unwrap();
        let long_foreign = "x".repeat(100);
        let cases: Vec<(&str, Vec<u8>, &str, String)> = vec![
            ("ready", ready.into_bytes(), "ready", String::new()),
            ("interval", interval_line(), "interval", "3".into()),
            ("record", record, "record", "2000000000".into()),
            ("warning", warning, "warning", "/srv/f".into()),
            ("error", error, "error", "no room".into()),
            (
                "a sweep's point",
                br#"{"format":"diskdash-sweep-point","x":1}"#.to_vec(),
                "other",
                String::new(),
            ),
            (
                "a login banner",
                b"Welcome to node1".to_vec(),
                "foreign",
                "Welcome to node1".into(),
            ),
            (
                "control characters, escaped",
                b"\x1b]0;title\x07".to_vec(),
                "foreign",
                "\\u{1b}]0;title\\u{7}".into(),
            ),
            (
                "not UTF-8",
                b"\xff\xfe ok".to_vec(),
                "foreign",
                "\u{fffd}\u{fffd} ok".into(),
            ),
            (
                "JSON without a format",
                br#"{"iops":1}"#.to_vec(),
                "foreign",
                r#"{"iops":1}"#.into(),
            ),
            (
                "another program's format",
                br#"{"format":"fio-3"}"#.to_vec(),
                "foreign",
                r#"{"format":"fio-3"}"#.into(),
            ),
            (
                "cut to 80 characters",
                long_foreign.clone().into_bytes(),
                "foreign",
                format!("{}...", &long_foreign[..80]),
            ),
            (
                "an interval that does not parse",
                br#"{"format":"diskdash-bench-interval","index":"x"}"#.to_vec(),
                "broken",
                "a diskdash-bench-interval line: ".into(),
            ),
            (
                "a warning of an unknown kind",
                br#"{"format":"diskdash-bench-warning","format_version":6,"warning":{"kind":"nope"}}"#
                    .to_vec(),
                "broken",
                "a diskdash-bench-warning line: ".into(),
            ),
            (
                "an error without its fields",
                br#"{"format":"diskdash-bench-error","message":"x"}"#.to_vec(),
                "broken",
                "a diskdash-bench-error line: ".into(),
            ),
        ];
        for (what, bytes, kind, text) in cases {
            let (got, carried) = match parse_line(&bytes) {
                Line::Ready => ("ready", String::new()),
                Line::Interval(r) => ("interval", r.index.to_string()),
                Line::Record(r) => ("record", r.elapsed_ns.to_string()),
                Line::Warning(w) => ("warning", w.to_string()),
                Line::Error(e) => ("error", e.message),
                Line::Other => ("other", String::new()),
                Line::Foreign(shown) => ("foreign", shown),
                Line::Broken(why) => ("broken", why),
            };
            assert_eq!(got, kind, "{what}");
            match kind {
                "broken" | "warning" => assert!(carried.contains(&text), "{what}: {carried}"),
                _ => assert_eq!(carried, text, "{what}"),
            }
        }
    }

    #[test]
    fn a_remote_warning_and_error_arrive_typed() {
        let warning = RunWarning::Holes {
            path: "/srv/f".into(),
        };
        let line = serde_json::to_vec(&WarningLine::new(warning.clone())).unwrap();
        assert!(matches!(parse_line(&line), Line::Warning(w) if *w == warning));
        let error = ErrorLine::new("--size 1T: no room".into(), 2);
        let line = serde_json::to_vec(&error).unwrap();
        assert!(matches!(parse_line(&line), Line::Error(e) if e == error));
        // Of the protocol but wrong: said, not taken as text.
        let wrong =
            br#"{"format":"diskdash-bench-warning","format_version":6,"warning":{"kind":"nope"}}"#;
        assert!(
            matches!(parse_line(wrong), Line::Broken(why) if why.contains("diskdash-bench-warning"))
        );
        let wrong = br#"{"format":"diskdash-bench-error","message":"x"}"#;
        assert!(matches!(parse_line(wrong), Line::Broken(_)));
        // Text that looks like a warning is not the protocol.
        assert!(matches!(
            parse_line(b"WARNING: PAGE CACHE: trust me"),
            Line::Foreign(_)
        ));
    }
}
