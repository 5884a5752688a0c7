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
//! A sample carries both the raw counter changes over its window (`delta`, the fields of
//! `/proc/diskstats`, kernel `Documentation/admin-guide/iostats.rst`) and the `iostat -x`
//! columns computed from them (sysstat's keys and formulas, `monitor::iostat`), so either can be
//! checked against the other.

use serde::{Deserialize, Serialize};

use super::{IostatRow, QueueSettings};

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
}

/// How much each cumulative `/proc/diskstats` counter grew over a window. Names as
/// [`DiskCounters`]; sectors are 512 bytes, times milliseconds.
#[allow(clippy::struct_field_names)]
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

/// The most `show` reads of a recording, all files of a rotated set together: 256 MiB. Parsed
/// samples take about twice their JSON in memory (200 MiB of lines: 415 MB resident), so this
/// keeps a replay near half a GB; a default set (FILE and 3 rotated files of 64M) fits.
pub const MAX_RECORDING_BYTES: u64 = 256 << 20;

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
