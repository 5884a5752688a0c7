//! Reading a run record back (`diskdash show`, `diskdash compare`): one loader, one set of
//! error texts, the format and its version checked before the fields.
//!
//! The file is opened once (`O_NONBLOCK`, so a FIFO cannot hang us; `O_CLOEXEC`), checked
//! through its descriptor (`fstat`: a regular file, at most [`MAX_RECORD_BYTES`]) and read from
//! that descriptor with a hard cap, so `/dev/zero`, a pipe, a directory or a huge file is
//! refused in constant memory and time. The header (`format`, `format_version`) is read by a
//! visitor that skips every other key without building anything, so a file that is not a run
//! record costs no more than one pass over its bytes.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::{FLEET_FORMAT, FORMAT, FORMAT_VERSION, FleetRecord, RunRecord};
use crate::pinned::{ObjectKind, Pinned};
use crate::units::format_bytes;

/// The oldest `format_version` read: format 2 differs from 3 only in its latency histograms
/// (power-of-two buckets, none per interval), which `show` draws as they are.
pub const OLDEST_FORMAT_VERSION: u32 = 2;

const FIX: &str = "give a file written by `diskdash bench --json`";

/// The largest run record read: 256 MiB.
///
/// How big records get: a step keeps at most `session::series::MAX_POINTS` (1024) interval
/// points, thinning older ones, so a 24-hour run of one step holds at most 1024 points. A
/// point of a mixed read/write job with a device row is about 4 KiB of JSON (measured: 3.9 KiB
/// per point for `--rw randrw`), so such a record is about 4-8 MiB, whatever its length. 256 MiB
/// leaves room for some 30 steps with full series and multi-device targets, and still keeps
/// parsing within a few hundred MiB of memory.
pub const MAX_RECORD_BYTES: u64 = 256 << 20;

/// A record of one run, or of a fleet of runs.
#[derive(Debug)]
pub enum Loaded {
    Run(Box<RunRecord>),
    Fleet(Box<FleetRecord>),
}

/// The run or fleet record in `path`, with the same checks and errors as [`load`].
///
/// # Errors
/// As [`load`].
pub fn load_any(path: &Path) -> anyhow::Result<Loaded> {
    let bytes = read_capped(path, MAX_RECORD_BYTES)?;
    parse_any(&bytes).map_err(|why| crate::error::usage!("{} {why}", path.display()))
}

/// A run record only (the loader's tests).
#[cfg(test)]
fn parse(bytes: &[u8]) -> Result<RunRecord, String> {
    match parse_any(bytes)? {
        Loaded::Run(record) => Ok(*record),
        Loaded::Fleet(_) => Err("is a fleet record".to_string()),
    }
}

/// Whether `path` is a regular file that starts like a monitor recording (`--record`): its
/// first bytes read through a descriptor checked first, so a FIFO or device is never opened.
#[must_use]
pub fn is_monitor_recording_file(path: &Path) -> bool {
    let Ok(pinned) = Pinned::open(path) else {
        return false;
    };
    if pinned.kind() != ObjectKind::RegularFile {
        return false;
    }
    let Ok(fd) = pinned.reopen(libc::O_RDONLY | libc::O_NONBLOCK) else {
        return false;
    };
    // The first line, if it is shorter than 64 KiB (a header of some hundred disks).
    let mut head = vec![0u8; 64 << 10];
    let n = nix::sys::uio::pread(&fd, &mut head, 0).unwrap_or(0);
    let first = head[..n].split(|&b| b == b'\n').next().unwrap_or_default();
    super::monitor::is_header_line(first)
}

/// The monitor recording in `path` and, when `path` is the newest file of a rotated set, the
/// older ones before it (`FILE.N` .. `FILE.1`, then `FILE`): the whole set in time order.
///
/// # Errors
/// A usage error naming the file when one of them is not a recording this diskdash reads.
pub fn load_recording(path: &Path) -> anyhow::Result<super::monitor::Recording> {
    use super::monitor::MAX_RECORDING_BYTES;
    let name = path.file_name().map(std::ffi::OsStr::to_os_string);
    let mut older = Vec::new();
    if let Some(name) = name {
        for n in 1..=super::rotate::MAX_KEEP {
            let sibling = path.with_file_name(super::rotate::rotated_name(&name, n));
            if !is_monitor_recording_file(&sibling) {
                break;
            }
            older.push(sibling);
        }
    }
    let files: Vec<&Path> = older
        .iter()
        .rev()
        .map(PathBuf::as_path)
        .chain([path])
        .collect();
    check_set_size(path, &files)?;
    let mut recording = super::monitor::Recording::default();
    let mut left = MAX_RECORDING_BYTES;
    for file in files {
        let shown = file.display().to_string();
        // The set's budget, not each file's: a file that grew since the check stops here.
        let bytes = read_capped(file, left)?;
        left -= bytes.len() as u64;
        // Notes name the file only: they go into the status bar.
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
        recording
            .add_file(name.as_deref().unwrap_or(&shown), &bytes)
            .map_err(|why| crate::error::usage!("{shown} {why}"))?;
    }
    if recording.samples.is_empty() {
        return Err(crate::error::usage!(
            "{} holds no sample yet (only a header); record for longer than one interval",
            path.display()
        ));
    }
    Ok(recording)
}

/// Refuses a recording whose files (`files`, oldest first, `path` the newest) hold more than
/// `show` reads, before any is read: the sizes, the files and the way out, on one line.
fn check_set_size(path: &Path, files: &[&Path]) -> anyhow::Result<()> {
    use super::monitor::MAX_RECORDING_BYTES;
    let sizes: Vec<u64> = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .collect();
    let total: u64 = sizes.iter().sum();
    if total <= MAX_RECORDING_BYTES {
        return Ok(());
    }
    let newest = path.display();
    let which = match files {
        [_] => format!("{newest} holds {}", format_bytes(total)),
        [oldest, ..] => format!(
            "{newest} and its rotated files {} .. {} ({} files) hold {}",
            files[files.len() - 2].display(),
            oldest.display(),
            files.len() - 1,
            format_bytes(total)
        ),
        [] => return Ok(()),
    };
    let fix = if files.len() > 1 {
        format!(
            "show one file alone (`diskdash show {}` reads no older file), or move the oldest \
             files out of the directory",
            files[files.len() - 2].display()
        )
    } else {
        "record with a smaller --record-max (rotation keeps each file below it)".to_owned()
    };
    Err(crate::error::usage!(
        "{which}, more than show reads of a recording ({}); {fix}",
        format_bytes(MAX_RECORDING_BYTES)
    ))
}

/// Opens `path` once and reads at most `limit` bytes of it, refusing anything but a regular
/// file of at most `limit` bytes.
pub(super) fn read_capped(path: &Path, limit: u64) -> anyhow::Result<Vec<u8>> {
    let shown = path.display();
    // Pinned without opening (O_PATH calls no driver's open: a watchdog is not armed, a tape
    // not rewound, a FIFO's writer not released), then opened only if it is a regular file.
    let pinned =
        Pinned::open(path).map_err(|e| crate::error::usage!("cannot read {shown}: {e}; {FIX}"))?;
    let opened = || -> std::io::Result<File> {
        Ok(File::from(
            pinned.reopen(libc::O_RDONLY | libc::O_NONBLOCK)?,
        ))
    };
    let what = match pinned.kind() {
        ObjectKind::RegularFile => None,
        ObjectKind::Directory => Some("a directory"),
        ObjectKind::BlockDevice(_) => Some("a block device"),
        ObjectKind::Other("a FIFO") => Some("a FIFO (named pipe)"),
        ObjectKind::Other(other) => Some(other),
    };
    if let Some(what) = what {
        return Err(crate::error::usage!(
            "{shown} is {what}, not a run record; {FIX} (a regular file)"
        ));
    }
    let too_large = |size: String| {
        crate::error::usage!(
            "{shown} is {size}, larger than any run record (at most {}); {FIX}",
            format_bytes(limit)
        )
    };
    if pinned.size_bytes() > limit {
        return Err(too_large(format_bytes(pinned.size_bytes())));
    }
    let file = opened().map_err(|e| crate::error::usage!("cannot read {shown}: {e}; {FIX}"))?;
    read_at_most(file, limit, pinned.size_bytes())
        .map_err(|e| crate::error::usage!("cannot read {shown}: {e}; {FIX}"))?
        .ok_or_else(|| too_large("growing past that".to_owned()))
}

/// Up to `limit` bytes of `file`, or `None` when it holds more (it grew since `fstat`).
fn read_at_most(file: File, limit: u64, size_hint: u64) -> std::io::Result<Option<Vec<u8>>> {
    let capacity = usize::try_from(size_hint.min(limit).saturating_add(1)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// The record in `bytes`, or why it is not one (a phrase after the file name).
fn parse_any(bytes: &[u8]) -> Result<Loaded, String> {
    // Syntax first, in one pass that builds nothing (serde_json skips values iteratively, so
    // deep nesting cannot exhaust the stack either).
    serde_json::from_slice::<IgnoredAny>(bytes)
        .map_err(|e| format!("is not a diskdash run record (not JSON: {e}); {FIX}"))?;
    let header: Header = serde_json::from_slice(bytes)
        .map_err(|e| format!("is not a diskdash run record ({e}); {FIX}"))?;
    let format = match &header.format {
        Scalar::Text(text) => Some(text.as_str()),
        _ => None,
    };
    let fleet = format == Some(FLEET_FORMAT);
    if format != Some(FORMAT) && !fleet {
        let found = match &header.format {
            Scalar::Missing => "it has no \"format\" key".to_owned(),
            other => format!("its format is {other}"),
        };
        return Err(format!(
            "is not a diskdash run record ({found}; a run record's is {FORMAT:?}); {FIX}"
        ));
    }
    let writer = match &header.diskdash_version {
        // Escaped: the text comes from the file and the message must stay on one line.
        Scalar::Text(version) => version.escape_debug().to_string(),
        _ => "another version".to_owned(),
    };
    match header.format_version {
        Scalar::UInt(version)
            if (u64::from(OLDEST_FORMAT_VERSION)..=u64::from(FORMAT_VERSION))
                .contains(&version) => {}
        Scalar::UInt(_) | Scalar::Int(_) | Scalar::Missing => {
            let found = match &header.format_version {
                Scalar::Missing => "missing".to_owned(),
                other => other.to_string(),
            };
            return Err(format!(
                "has record format_version {found}, this diskdash reads versions \
                 {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION}; open it with the diskdash that wrote it ({writer}) or record \
                 the run again"
            ));
        }
        other => {
            return Err(format!(
                "has record format_version {other}, not a whole number; this diskdash reads \
                 versions {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION} (written as the number {FORMAT_VERSION}); {FIX}"
            ));
        }
    }
    if fleet {
        return serde_json::from_slice(bytes)
            .map(|r| Loaded::Fleet(Box::new(r)))
            .map_err(|e| format!("is not a diskdash fleet record ({e}); {FIX}"));
    }
    serde_json::from_slice(bytes)
        .map(|r| Loaded::Run(Box::new(r)))
        .map_err(|e| format!("is not a diskdash run record ({e}); {FIX}"))
}

/// The keys checked before the fields; every other key is skipped unread.
#[derive(Debug, Default)]
struct Header {
    format: Scalar,
    format_version: Scalar,
    diskdash_version: Scalar,
}

/// A header value as found: kept when it is a string or a number, only named otherwise (an
/// array or object is skipped, never built, however large).
#[derive(Debug, Default, Clone, PartialEq)]
enum Scalar {
    #[default]
    Missing,
    Text(String),
    UInt(u64),
    Int(i64),
    Float(f64),
    Other(&'static str),
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing => f.write_str("missing"),
            Self::Text(text) => write!(f, "{text:?}"),
            Self::UInt(n) => write!(f, "{n}"),
            Self::Int(n) => write!(f, "{n}"),
            // `2.0`, not `2`: the point is that it was written as a fraction.
            Self::Float(x) => write!(f, "{x:?}"),
            Self::Other(what) => f.write_str(what),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ScalarVisitor;
        impl<'de> Visitor<'de> for ScalarVisitor {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
                // Bounded: a header string is shown in one error line.
                Ok(Scalar::Text(v.chars().take(64).collect()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar::UInt(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar::Int(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar::Float(v))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Scalar, E> {
                Ok(Scalar::Other("a boolean"))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Scalar, E> {
                Ok(Scalar::Other("null"))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other("an array"))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other("an object"))
            }
        }
        deserializer.deserialize_any(ScalarVisitor)
    }
}

impl<'de> serde::Deserialize<'de> for Header {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct HeaderVisitor;
        impl<'de> Visitor<'de> for HeaderVisitor {
            type Value = Header;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Header, A::Error> {
                let mut header = Header::default();
                // Keys borrowed when possible; escaped ones are owned.
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let slot = match key.as_ref() {
                        "format" => &mut header.format,
                        "format_version" => &mut header.format_version,
                        "diskdash_version" => &mut header.diskdash_version,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = map.next_value()?;
                }
                Ok(header)
            }
        }
        deserializer.deserialize_map(HeaderVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_of_format_6_loads_and_its_statements_are_not_kept() {
        let old = r#"{"dimensions": ["bs"], "loops": 1, "pick": "best",
            "statements": ["read peaks at 4k: 1 MB/s (1 MiB/s)"],
            "analysis": [{"kind": "peak", "dimension": "bs", "value": "4k",
                          "direction": "read", "bytes_per_s": 1e6, "iops": 244.0}]}"#;
        let sweep: super::super::SweepRecord = serde_json::from_str(old).unwrap();
        assert_eq!(sweep.analysis.len(), 1);
        let again = serde_json::to_string(&sweep).unwrap();
        assert!(!again.contains("statements"), "{again}");
    }

    #[test]
    fn not_json_other_formats_and_other_versions_say_why() {
        let err = parse(b"[1, 2").unwrap_err();
        assert!(
            err.starts_with("is not a diskdash run record (not JSON: "),
            "{err}"
        );
        assert_eq!(
            parse(br#"{"format": "diskdash-bench-interval"}"#).unwrap_err(),
            "is not a diskdash run record (its format is \"diskdash-bench-interval\"; a run \
             record's is \"diskdash-bench\"); give a file written by `diskdash bench --json`"
        );
        assert_eq!(
            parse(b"{}").unwrap_err(),
            "is not a diskdash run record (it has no \"format\" key; a run record's is \
             \"diskdash-bench\"); \
             give a file written by `diskdash bench --json`"
        );
        assert_eq!(
            parse(br#"{"format": ["diskdash-bench"]}"#).unwrap_err(),
            "is not a diskdash run record (its format is an array; a run record's is \
             \"diskdash-bench\"); \
             give a file written by `diskdash bench --json`"
        );
        assert_eq!(
            parse(
                br#"{"format": "diskdash-bench", "format_version": 9, "diskdash_version": "0.9.0"}"#
            )
            .unwrap_err(),
            "has record format_version 9, this diskdash reads versions 2 to 7; open it with the \
             diskdash that wrote it (0.9.0) or record the run again"
        );
        let err = parse(br#"{"format": "diskdash-bench", "format_version": 2}"#).unwrap_err();
        assert!(
            err.starts_with("is not a diskdash run record (missing field"),
            "{err}"
        );
        // Found by the property test below: a leading zero is not JSON.
        let err = parse(br#"{"format": 00, "z": 0}"#).unwrap_err();
        assert!(
            err.contains("(not JSON: invalid number at line 1 column 13)"),
            "{err}"
        );
        let err = parse(b"[1, 2]").unwrap_err();
        assert!(
            err.starts_with(
                "is not a diskdash run record (invalid type: sequence, expected a JSON object"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_version_that_is_not_a_whole_number_is_not_called_missing() {
        let cases = [
            (r#""2""#, r#""2""#),
            ("2.0", "2.0"),
            ("2.5", "2.5"),
            ("null", "null"),
            ("[2]", "an array"),
        ];
        for (written, shown) in cases {
            let text = format!(r#"{{"format": "diskdash-bench", "format_version": {written}}}"#);
            assert_eq!(
                parse(text.as_bytes()).unwrap_err(),
                format!(
                    "has record format_version {shown}, not a whole number; this diskdash reads \
                     versions 2 to 7 (written as the number 7); give a file written by `diskdash \
                     bench --json`"
                ),
                "{written}"
            );
        }
        assert_eq!(
            parse(br#"{"format": "diskdash-bench"}"#).unwrap_err(),
            "has record format_version missing, this diskdash reads versions 2 to 7; open it with \
             the diskdash that wrote it (another version) or record the run again"
        );
        assert!(
            parse(br#"{"format": "diskdash-bench", "format_version": -2}"#)
                .unwrap_err()
                .starts_with("has record format_version -2, this diskdash reads versions 2 to 7;")
        );
    }

    #[test]
    fn deep_nesting_is_refused_without_exhausting_the_stack() {
        let deep = "[".repeat(1_000_000);
        assert!(parse(deep.as_bytes()).unwrap_err().contains("not JSON"));
        let closed = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let err = parse(closed.as_bytes()).unwrap_err();
        assert!(err.contains("expected a JSON object"), "{err}");
        let inside = format!(
            r#"{{"format": "diskdash-bench", "format_version": 2, "x": {}{}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let err = parse(inside.as_bytes()).unwrap_err();
        assert!(err.starts_with("is not a diskdash run record ("), "{err}");
    }

    #[test]
    fn the_header_is_found_among_escaped_and_repeated_keys() {
        // JSON lets a key be escaped; the last of repeated keys wins, as in serde_json's Value.
        let text = br#"{"form\u0061t": "other", "format": "diskdash-bench", "format_version": 8}"#;
        assert!(parse(text).unwrap_err().contains("format_version 8,"));
    }

    /// A record of a 300 ms null-engine run (`diskdash bench --ioengine null --runtime 300ms
    /// --interval 100ms --json`), compacted.
    const RECORD: &str = include_str!("../../tests/fixtures/records/null-300ms.json");

    #[test]
    fn a_real_record_loads() {
        let record = parse(RECORD.as_bytes()).unwrap();
        assert_eq!(record.format, FORMAT);
        assert!(!record.steps.is_empty());
    }

    #[test]
    fn files_are_read_up_to_the_limit_and_no_further() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_capped(&path, 10).unwrap(), b"0123456789");
        let err = read_capped(&path, 9).unwrap_err().to_string();
        assert!(
            err.contains("is 10 B, larger than any run record (at most 9 B)"),
            "{err}"
        );
        // A file that grew after fstat: the cap holds on the read itself.
        let file = File::open(&path).unwrap();
        assert_eq!(read_at_most(file, 9, 4).unwrap(), None);
        let file = File::open(&path).unwrap();
        assert_eq!(
            read_at_most(file, 10, 4).unwrap().map(|b| b.len()),
            Some(10)
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn mutate(text: &str, at: usize, byte: u8, how: u8) -> Vec<u8> {
            let mut bytes = text.as_bytes().to_vec();
            let at = at % (bytes.len() + 1);
            match how % 4 {
                0 => bytes.insert(at, byte),
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                2 if at < bytes.len() => bytes[at] = byte,
                _ => bytes.truncate(at),
            }
            bytes
        }

        proptest! {
            #[test]
            fn arbitrary_bytes_are_refused_without_a_panic(
                bytes in proptest::collection::vec(any::<u8>(), 0..200)
            ) {
                prop_assert!(parse(&bytes).is_err());
            }

            #[test]
            fn arbitrary_json_is_refused_with_a_reason_on_one_line(
                text in r#"\{("(format|format_version|diskdash_version|x)": ("[a-z-]{0,15}"|-?[1-9][0-9]{0,2}(\.[0-9])?|0|null|true|\[\]|\{\}), ){0,4}"z": 0\}"#
            ) {
                let why = parse(text.as_bytes()).unwrap_err();
                prop_assert!(!why.contains('\n'), "{}", why);
                prop_assert!(why.contains("format"), "{}", why);
            }

            #[test]
            fn a_mutated_record_is_read_or_refused_never_a_panic(
                at in any::<usize>(), byte in any::<u8>(), how in any::<u8>()
            ) {
                let bytes = mutate(RECORD, at, byte, how);
                if let Err(why) = parse(&bytes) {
                    prop_assert!(!why.contains('\n'), "{}", why);
                }
            }

            #[test]
            fn a_mutated_value_is_read_or_refused_never_a_panic(
                index in any::<usize>(),
                value in prop_oneof![
                    Just("null".to_owned()), Just("-1".to_owned()), Just("1e999".to_owned()),
                    Just("18446744073709551616".to_owned()), Just("\"\"".to_owned()),
                    Just("[]".to_owned()), Just("{}".to_owned()), Just("0.5".to_owned()),
                ],
            ) {
                // Replace the index-th number of the record.
                let starts: Vec<usize> = RECORD
                    .char_indices()
                    .filter(|&(i, c)| c.is_ascii_digit() && (i == 0 || RECORD.as_bytes()[i - 1] == b':'))
                    .map(|(i, _)| i)
                    .collect();
                let start = starts[index % starts.len()];
                let end = RECORD[start..]
                    .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-'))
                    .map_or(RECORD.len(), |n| start + n);
                let text = format!("{}{value}{}", &RECORD[..start], &RECORD[end..]);
                let _ = parse(text.as_bytes());
            }
        }

        #[test]
        fn a_record_written_back_reads_back_the_same() {
            let record = parse(RECORD.as_bytes()).unwrap();
            let written = serde_json::to_string(&record).unwrap();
            let again = parse(written.as_bytes()).unwrap();
            assert_eq!(serde_json::to_string(&again).unwrap(), written);
        }
    }
}
