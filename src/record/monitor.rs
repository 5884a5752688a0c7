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

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::monitor::diskstats::{DiskCounters, DiskstatsSample};
use crate::monitor::iostat::{IostatRow, pair_with_previous};
use crate::monitor::sysfs::QueueSettings;

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
    /// 1, 2, ... since the header before it; a gap means samples were dropped (the disk the
    /// recording goes to stalled), which the reader reports.
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

impl CounterDeltas {
    /// `cur - prev` per counter, `None` when any went backwards.
    #[must_use]
    pub fn between(prev: &DiskCounters, cur: &DiskCounters) -> Option<Self> {
        Some(Self {
            reads: cur.reads.checked_sub(prev.reads)?,
            reads_merged: cur.reads_merged.checked_sub(prev.reads_merged)?,
            sectors_read: cur.sectors_read.checked_sub(prev.sectors_read)?,
            read_ms: cur.read_ms.checked_sub(prev.read_ms)?,
            writes: cur.writes.checked_sub(prev.writes)?,
            writes_merged: cur.writes_merged.checked_sub(prev.writes_merged)?,
            sectors_written: cur.sectors_written.checked_sub(prev.sectors_written)?,
            write_ms: cur.write_ms.checked_sub(prev.write_ms)?,
            io_ms: cur.io_ms.checked_sub(prev.io_ms)?,
            weighted_io_ms: cur.weighted_io_ms.checked_sub(prev.weighted_io_ms)?,
            discards: cur.discards.checked_sub(prev.discards)?,
            discards_merged: cur.discards_merged.checked_sub(prev.discards_merged)?,
            sectors_discarded: cur.sectors_discarded.checked_sub(prev.sectors_discarded)?,
            discard_ms: cur.discard_ms.checked_sub(prev.discard_ms)?,
            flushes: cur.flushes.checked_sub(prev.flushes)?,
            flush_ms: cur.flush_ms.checked_sub(prev.flush_ms)?,
        })
    }
}

/// Nanoseconds in a `u64` (584 years).
#[must_use]
pub fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl MonitorSample {
    /// The sample over the window from `prev` to `cur` of the disks of `cur` that `recorded`
    /// keeps, paired like `iostat::rows_between` (a disk new since `prev` counts from zero).
    #[must_use]
    pub fn between(
        seq: u64,
        wall: SystemTime,
        prev: &DiskstatsSample,
        cur: &DiskstatsSample,
        recorded: impl Fn(&DiskCounters) -> bool,
    ) -> Self {
        let window = cur.at.saturating_sub(prev.at);
        let zero = DiskCounters::zeroed("");
        let disks = pair_with_previous(&prev.disks, &cur.disks)
            .into_iter()
            .zip(&cur.disks)
            .filter(|(_, c)| recorded(c))
            .map(|(p, c)| {
                let p = p.unwrap_or(&zero);
                SampleDisk {
                    name: c.name.clone(),
                    in_flight: c.in_flight,
                    delta: CounterDeltas::between(p, c),
                    iostat: IostatRow::between(p, c, window),
                }
            })
            .collect();
        Self {
            seq,
            time: super::rfc3339_utc(wall),
            unix_ns: nanos(wall.duration_since(UNIX_EPOCH).unwrap_or_default()),
            monotonic_ns: nanos(cur.at),
            window_ns: nanos(window),
            disks,
        }
    }
}

impl MonitorHeader {
    /// A header for a recording of `disks` starting now, by `writer`.
    #[must_use]
    pub fn new(writer: &str, interval: Duration, disks: Vec<RecordedDisk>) -> Self {
        let host = crate::monitor::host::Host::detect();
        Self {
            format: MONITOR_FORMAT.to_owned(),
            format_version: MONITOR_FORMAT_VERSION,
            diskdash_version: env!("CARGO_PKG_VERSION").to_owned(),
            writer: writer.to_owned(),
            host: RecordedHost {
                kernel: host.kernel(),
                hostname: host.hostname,
                machine: host.machine,
                online_cpus: host.online_cpus,
            },
            started: super::rfc3339_utc(SystemTime::now()),
            started_monotonic_ns: nanos(crate::monitor::diskstats::monotonic_now()),
            interval_ns: nanos(interval),
            disks,
        }
    }
}

/// Whether `head` (the first bytes of a file) is the start of a monitor recording.
#[must_use]
pub fn is_monitor_recording(head: &[u8]) -> bool {
    let prefix = HEADER_PREFIX.as_bytes();
    head.len() >= prefix.len() && &head[..prefix.len()] == prefix
}
