//! The monitor recording (`diskdash --record`, `diskdash iostat --record`): JSON Lines, a
//! header line at the start of every file (and after every restart that appends), then one
//! line per sample. Schema: `assets/schema/monitor-record.schema.json`.
//!
//! ```text
//! {"format":"diskdash-monitor","format_version":1,...,"interval_ns":..,"disks":[{name,queue}]}
//! {"seq":1,"time":"2026-11-23T17:20:01.000Z","unix_ns":..,"monotonic_ns":..,"window_ns":..,
//!  "disks":[{"name":"vda","in_flight":0,"delta":{reads,..},"iostat":{"r/s":..,..}}]}
//! ```
//!
//! A line `{"note":{"kind":..}}` marks what happened to the recording itself: `gap` (samples
//! not recorded while the file system was full, with the time they cover) and
//! `rotation_blocked` (a rotation held back by a file that is not the recording's own).
//! Recordings written before notes existed have none; readers before them skip such a line with
//! a note.
//!
//! A sample carries both the raw counter changes over its window (`delta`, the fields of
//! `/proc/diskstats`, kernel `Documentation/admin-guide/iostats.rst`) and the `iostat -x`
//! columns computed from them (sysstat's keys and formulas, `monitor::iostat`), so either can be
//! checked against the other. With `--trace` each traced disk also carries `block_trace`.

use serde::{Deserialize, Serialize};

use super::{IostatRow, QueueSettings};

/// The most `show` reads of a recording (kept with the rotation, which bounds a set by it).
pub use super::rotate::MAX_RECORDING_BYTES;

/// `format` of a monitor recording's header line.
pub const MONITOR_FORMAT: &str = "diskdash-monitor";
/// Bumped on any incompatible change of the header or sample lines.
pub const MONITOR_FORMAT_VERSION: u32 = 1;
/// How every header line starts (the writer puts `format` first, without spaces).
pub const HEADER_PREFIX: &str = r#"{"format":"diskdash-monitor""#;

/// The first line of every file, and of every restart appended to one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonitorHeader {
    pub format: String,
    pub format_version: u32,
    pub diskdash_version: String,
    /// What wrote it: `monitor` (the dashboard) or `iostat`.
    pub writer: String,
    pub host: RecordedHost,
    /// When the recording (this run of the writer) began: RFC 3339 UTC, and CLOCK_MONOTONIC.
    pub started: String,
    pub started_monotonic_ns: u64,
    /// The sampling interval asked for; each sample's `window_ns` says what it really covered.
    pub interval_ns: u64,
    /// The disks recorded when the recording began, with their queue settings (partitions
    /// have none). Disks that appear later show up in the samples only.
    pub disks: Vec<RecordedDisk>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedHost {
    pub hostname: String,
    /// `Linux 6.18.0-...`.
    pub kernel: String,
    pub machine: String,
    pub online_cpus: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedDisk {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSettings>,
}

/// One sample: every recorded disk over the window that ended at `time`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonitorSample {
    /// 1, 2, ... from the start of the writer's run (a rotation does not restart it; a new run
    /// appended does); a gap means samples were dropped (the disk the recording goes to
    /// stalled), which the reader reports.
    pub seq: u64,
    /// When the window ended, RFC 3339 UTC (what a reader shows) and nanoseconds since the Unix
    /// epoch (what it computes with).
    pub time: String,
    pub unix_ns: u64,
    /// CLOCK_MONOTONIC at the end of the window (comparable within one boot).
    pub monotonic_ns: u64,
    /// The window's length: the rates below are per second of it.
    pub window_ns: u64,
    pub disks: Vec<SampleDisk>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleDisk {
    pub name: String,
    /// Requests in flight at the end of the window (diskstats field 9, not a delta).
    pub in_flight: u64,
    /// Counter changes over the window; `null` when a counter went backwards (a 32-bit field
    /// wrapped or the device was re-created), and then every `iostat` column is 0.
    pub delta: Option<CounterDeltas>,
    /// The `iostat -x` columns over the window (sysstat's keys, two decimals).
    pub iostat: IostatRow,
    /// `--trace`: what the block layer saw of the disk over about the same window (taken
    /// when the sample was), as a run record's `device.block_trace`, each direction's
    /// `device` with its histogram; absent untraced and in older recordings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_trace: Option<super::BlockTraceRecord>,
}

/// How much each cumulative `/proc/diskstats` counter grew over a window. Names as
/// [`DiskCounters`]; sectors are 512 bytes, times milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterDeltas {
    pub reads: u64,
    pub reads_merged: u64,
    pub sectors_read: u64,
    pub read_ms: u64,
    pub writes: u64,
    pub writes_merged: u64,
    pub sectors_written: u64,
    pub write_ms: u64,
    pub io_ms: u64,
    pub weighted_io_ms: u64,
    pub discards: u64,
    pub discards_merged: u64,
    pub sectors_discarded: u64,
    pub discard_ms: u64,
    pub flushes: u64,
    pub flush_ms: u64,
}

/// A line about the recording itself, between samples: `{"note":{"kind":"gap",..}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteLine {
    pub note: RecordingNote,
}

/// What happened to the recording, as a fact; `Display` is the sentence shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RecordingNote {
    /// Samples not recorded: the file system under the recording had no space for them.
    Gap(RecordingGap),
    /// A rotation held back (said once a run): the file goes on past `--record-max`.
    RotationBlocked(super::rotate::RotationBlocked),
}

/// Samples the writer could not write, from the first to the last, and the time they cover.
/// Written when writing works again, just before the next sample (or at the end).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordingGap {
    /// `seq` of the first and the last sample not recorded.
    pub first_seq: u64,
    pub last_seq: u64,
    /// How many samples were not recorded (samples dropped from the queue meanwhile are gaps in
    /// `seq` besides).
    pub samples: u64,
    /// From the start of the first missing sample's window to the end of the last's: RFC 3339
    /// UTC and nanoseconds since the Unix epoch.
    pub from: String,
    pub from_unix_ns: u64,
    pub to: String,
    pub to_unix_ns: u64,
    /// The gap's length, `to_unix_ns - from_unix_ns`.
    pub gap_ns: u64,
    /// Why: `no_space` (ENOSPC) or `quota` (EDQUOT).
    pub reason: GapReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GapReason {
    NoSpace,
    Quota,
}

impl std::fmt::Display for GapReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::NoSpace => "no space left on the file system",
            Self::Quota => "disk quota exceeded",
        })
    }
}

impl std::fmt::Display for RecordingGap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} samples not recorded over {:.1} s from {} ({})",
            self.samples,
            std::time::Duration::from_nanos(self.gap_ns).as_secs_f64(),
            self.from.escape_debug(),
            self.reason
        )
    }
}

impl std::fmt::Display for RecordingNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Gap(gap) => gap.fmt(f),
            Self::RotationBlocked(blocked) => blocked.fmt(f),
        }
    }
}

/// Whether `head` (the first bytes of a file) is the start of a monitor recording as diskdash
/// writes it (`format` first). What appending to a file and rotating over one ask.
#[must_use]
pub fn is_monitor_recording(head: &[u8]) -> bool {
    head.starts_with(HEADER_PREFIX.as_bytes())
}

/// Whether `line` is a header line: written by diskdash (`format` first) or by a tool that
/// reordered the keys (jq, a script).
#[must_use]
pub fn is_header_line(line: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(default)]
        format: Option<String>,
    }
    if is_monitor_recording(line) {
        return true;
    }
    if line.starts_with(br#"{"seq":"#) {
        return false;
    }
    serde_json::from_slice::<Probe>(line).is_ok_and(|p| p.format.as_deref() == Some(MONITOR_FORMAT))
}

/// Notes kept about skipped lines; more are counted in the last one.
const MAX_NOTES: usize = 8;

/// A recording read back: its headers, every sample in file order, and what was skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recording {
    pub headers: Vec<MonitorHeader>,
    pub samples: Vec<MonitorSample>,
    /// The index in `headers` of each sample's header.
    pub header_of: Vec<usize>,
    /// Torn or unreadable lines skipped, samples missing: one line each, for the status bar.
    pub notes: Vec<String>,
    /// The gaps the recording marks (samples not written while the file system was full).
    pub gaps: Vec<RecordingGap>,
}

impl Recording {
    fn note(&mut self, text: String) {
        if self.notes.len() < MAX_NOTES {
            self.notes.push(text);
        }
    }

    /// Adds the lines of one file (`shown` names it in notes and errors).
    ///
    /// # Errors
    /// Why the file is not a recording this diskdash reads (a phrase after the file name):
    /// its first line is no header, or a header has another format version.
    pub fn add_file(&mut self, shown: &str, bytes: &[u8]) -> Result<(), String> {
        let mut last_seq: Option<u64> = None;
        let mut seen_header = false;
        let complete = bytes.ends_with(b"\n");
        let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        let last = lines.len() - 1;
        for (i, line) in lines.iter().enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let number = i + 1;
            let torn = i == last && !complete;
            if is_header_line(line) {
                let header: MonitorHeader = match serde_json::from_slice(line) {
                    Ok(h) => h,
                    Err(e) if torn => {
                        self.note(format!("{shown}: torn last line skipped ({e})"));
                        continue;
                    }
                    Err(e) => {
                        return Err(format!("line {number} is not a recording header ({e})"));
                    }
                };
                if header.format_version != MONITOR_FORMAT_VERSION {
                    return Err(format!(
                        "line {number} is a monitor recording of format_version {}, this \
                         diskdash reads {MONITOR_FORMAT_VERSION}; open it with the diskdash that \
                         wrote it ({})",
                        header.format_version,
                        header.diskdash_version.escape_debug()
                    ));
                }
                self.headers.push(header);
                seen_header = true;
                // A restart numbers from 1 again; a rotated file goes on from where it was.
                last_seq = None;
                continue;
            }
            if !seen_header {
                return Err(format!(
                    "is not a diskdash monitor recording (line {number} comes before any \
                     header); give a file written by `diskdash --record` or `diskdash iostat \
                     --record`"
                ));
            }
            if line.starts_with(br#"{"note":"#) {
                match serde_json::from_slice::<NoteLine>(line) {
                    Ok(NoteLine { note }) => {
                        self.note(format!("{shown}: {note}"));
                        if let RecordingNote::Gap(gap) = note {
                            // The samples the gap names are accounted for.
                            last_seq = Some(last_seq.map_or(gap.last_seq, |l| l.max(gap.last_seq)));
                            self.gaps.push(gap);
                        }
                    }
                    Err(_) if torn => self.note(format!(
                        "{shown}: torn last line skipped (the writer stopped mid-line)"
                    )),
                    Err(e) => self.note(format!("{shown}:{number}: not a note, skipped ({e})")),
                }
                continue;
            }
            match serde_json::from_slice::<MonitorSample>(line) {
                Ok(sample) => {
                    let expected = last_seq.map_or(sample.seq, |last| last + 1);
                    if sample.seq > expected {
                        self.note(format!(
                            "{shown}: {} samples missing before {} (dropped while the disk \
                             written to stalled)",
                            sample.seq - expected,
                            sample.time.escape_debug()
                        ));
                    }
                    last_seq = Some(sample.seq);
                    self.samples.push(sample);
                    self.header_of.push(self.headers.len() - 1);
                }
                Err(_) if torn => {
                    self.note(format!(
                        "{shown}: torn last line skipped (the writer stopped mid-line)"
                    ));
                }
                Err(e) => self.note(format!("{shown}:{number}: not a sample, skipped ({e})")),
            }
        }
        if self.headers.is_empty() {
            return Err(
                "is empty, not a diskdash monitor recording; give a file written by `diskdash \
                 --record`"
                    .to_owned(),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> String {
        serde_json::to_string(&MonitorHeader {
            format: MONITOR_FORMAT.into(),
            format_version: MONITOR_FORMAT_VERSION,
            diskdash_version: "0".into(),
            writer: "iostat".into(),
            host: RecordedHost {
                hostname: "h".into(),
                kernel: "Linux 6".into(),
                machine: "x86_64".into(),
                online_cpus: 1,
            },
            started: "2026-11-29T04:00:00.000Z".into(),
            started_monotonic_ns: 1,
            interval_ns: 1_000_000_000,
            disks: Vec::new(),
        })
        .unwrap()
    }

    fn sample(seq: u64) -> String {
        serde_json::to_string(&MonitorSample {
            seq,
            time: format!("2026-11-29T04:00:{seq:02}.000Z"),
            unix_ns: seq * 1_000_000_000,
            monotonic_ns: seq,
            window_ns: 1_000_000_000,
            disks: Vec::new(),
        })
        .unwrap()
    }

    #[test]
    fn a_gap_note_is_read_as_a_gap_and_explains_the_samples_it_names() {
        let gap = RecordingGap {
            first_seq: 3,
            last_seq: 7,
            samples: 5,
            from: "2026-11-29T04:00:02.000Z".into(),
            from_unix_ns: 2_000_000_000,
            to: "2026-11-29T04:00:07.000Z".into(),
            to_unix_ns: 7_000_000_000,
            gap_ns: 5_000_000_000,
            reason: GapReason::NoSpace,
        };
        let note = serde_json::to_string(&NoteLine {
            note: RecordingNote::Gap(gap.clone()),
        })
        .unwrap();
        assert!(
            note.starts_with(r#"{"note":{"kind":"gap","first_seq":3,"#),
            "{note}"
        );
        let file = [header(), sample(1), sample(2), note, sample(8), sample(10)].join("\n") + "\n";
        let mut recording = Recording::default();
        recording.add_file("r.jsonl", file.as_bytes()).unwrap();
        assert_eq!(recording.samples.len(), 4);
        assert_eq!(recording.gaps, [gap]);
        assert_eq!(
            recording.notes,
            [
                "r.jsonl: 5 samples not recorded over 5.0 s from 2026-11-29T04:00:02.000Z (no \
                 space left on the file system)",
                "r.jsonl: 1 samples missing before 2026-11-29T04:00:10.000Z (dropped while the \
                 disk written to stalled)",
            ]
        );
    }

    #[test]
    fn a_recording_without_notes_reads_as_before() {
        let file = [header(), sample(1), sample(3)].join("\n") + "\n";
        let mut recording = Recording::default();
        recording.add_file("r.jsonl", file.as_bytes()).unwrap();
        assert_eq!(recording.samples.len(), 2);
        assert!(recording.gaps.is_empty());
        assert_eq!(recording.notes.len(), 1, "{:?}", recording.notes);
    }
}
