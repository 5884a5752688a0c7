//! `/proc/diskstats`: one sample of every block device's raw counters.
//!
//! Owns the reader (one fd kept open, re-read from offset 0 each tick into a reused buffer),
//! the CLOCK_MONOTONIC stamp of each sample, and the pure line parser. Field meanings follow the
//! kernel's `Documentation/admin-guide/iostats.rst`: after `major minor name` come 11 counters
//! (14 fields, every kernel since 2.6.25), 4 discard counters (18 fields, 4.18+) and 2 flush
//! counters (20 fields, 5.5+). Sectors are always 512-byte units, whatever the device's block
//! size. The kernel prints the time fields as 32-bit milliseconds, so they wrap after ~49.7 days;
//! deltas are the business of [`super::iostat`].
//!
//! Why not `procfs::diskstats()`: it reopens the file on every call and builds a `String` per
//! line and per name, and it turns malformed discard/flush fields into "absent" silently. A tick
//! over 10,000 devices has a 20 ms CPU budget, so the parser here splits bytes in one reused
//! buffer and rejects a line it does not understand with its line number.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;

/// Where the kernel publishes the counters.
pub(crate) const PROC_DISKSTATS: &str = "/proc/diskstats";

/// Which generation of the line format a device was reported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineFormat {
    /// 14 fields: reads, writes, in-flight and time counters (kernel 2.6.25+).
    Basic,
    /// 18 fields: plus discards (kernel 4.18+).
    WithDiscard,
    /// 20 or more fields: plus flushes (kernel 5.5+). Extra trailing fields are ignored.
    WithFlush,
}

/// One line of `/proc/diskstats`: a device's cumulative counters since it appeared.
///
/// Counters absent from the device's [`LineFormat`] are 0 (as sysstat treats them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiskCounters {
    pub major: u32,
    pub minor: u32,
    /// Kernel name as in `/sys/block` (`nvme0n1p1`, `dm-0`, `cciss!c0d0`).
    pub name: String,
    pub format: LineFormat,
    /// Field 1: reads completed.
    pub reads: u64,
    /// Field 2: reads merged with an adjacent one before reaching the device.
    pub reads_merged: u64,
    /// Field 3: 512-byte sectors read.
    pub sectors_read: u64,
    /// Field 4: milliseconds spent by all reads (summed over requests).
    pub read_ms: u64,
    /// Field 5: writes completed.
    pub writes: u64,
    /// Field 6: writes merged.
    pub writes_merged: u64,
    /// Field 7: 512-byte sectors written.
    pub sectors_written: u64,
    /// Field 8: milliseconds spent by all writes.
    pub write_ms: u64,
    /// Field 9: requests in flight now (the only field that is not cumulative).
    pub in_flight: u64,
    /// Field 10: milliseconds during which at least one request was in flight (`io_ticks`).
    pub io_ms: u64,
    /// Field 11: in-flight-weighted milliseconds (`time_in_queue`), the base of `aqu-sz`.
    pub weighted_io_ms: u64,
    /// Field 12: discards completed.
    pub discards: u64,
    /// Field 13: discards merged.
    pub discards_merged: u64,
    /// Field 14: 512-byte sectors discarded.
    pub sectors_discarded: u64,
    /// Field 15: milliseconds spent by all discards.
    pub discard_ms: u64,
    /// Field 16: flush requests completed.
    pub flushes: u64,
    /// Field 17: milliseconds spent by all flushes.
    pub flush_ms: u64,
}

impl DiskCounters {
    /// The counters of a line, in /proc/diskstats order from field 4 (reads completed) to
    /// field 20 (time flushing); those the format lacks are zero.
    #[must_use]
    pub(crate) fn from_fields(
        major: u32,
        minor: u32,
        name: String,
        format: LineFormat,
        c: [u64; 17],
    ) -> Self {
        Self {
            major,
            minor,
            name,
            format,
            reads: c[0],
            reads_merged: c[1],
            sectors_read: c[2],
            read_ms: c[3],
            writes: c[4],
            writes_merged: c[5],
            sectors_written: c[6],
            write_ms: c[7],
            in_flight: c[8],
            io_ms: c[9],
            weighted_io_ms: c[10],
            discards: c[11],
            discards_merged: c[12],
            sectors_discarded: c[13],
            discard_ms: c[14],
            flushes: c[15],
            flush_ms: c[16],
        }
    }

    /// All counters 0: the state "at boot", the base of a since-boot report.
    #[must_use]
    pub(crate) fn zeroed(name: &str) -> Self {
        Self {
            major: 0,
            minor: 0,
            name: name.to_owned(),
            format: LineFormat::WithFlush,
            reads: 0,
            reads_merged: 0,
            sectors_read: 0,
            read_ms: 0,
            writes: 0,
            writes_merged: 0,
            sectors_written: 0,
            write_ms: 0,
            in_flight: 0,
            io_ms: 0,
            weighted_io_ms: 0,
            discards: 0,
            discards_merged: 0,
            sectors_discarded: 0,
            discard_ms: 0,
            flushes: 0,
            flush_ms: 0,
        }
    }

    /// Whether the device ever completed a request of any kind (sysstat hides those that
    /// never did unless asked for by name).
    #[must_use]
    pub(crate) fn ever_used(&self) -> bool {
        self.reads + self.writes + self.discards + self.flushes > 0
    }
}

/// Every device's counters at one instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiskstatsSample {
    /// CLOCK_MONOTONIC when the read began (on Linux: time since boot, suspend excluded).
    pub at: Duration,
    /// In the kernel's order (by major:minor registration).
    pub disks: Vec<DiskCounters>,
}

impl DiskstatsSample {
    /// The counters of one device by name.
    #[must_use]
    pub(crate) fn get(&self, name: &str) -> Option<&DiskCounters> {
        self.disks.iter().find(|d| d.name == name)
    }
}

/// A malformed line: its 1-based number and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub(crate) struct ParseError {
    pub line: usize,
    pub reason: String,
}

/// Parses one line (without its newline). Pure; the fixture tests drive it.
///
/// # Errors
/// Fewer than 14 fields, 15-17 or 19 fields, or a field that is not a decimal number.
pub(crate) fn parse_line(line: &[u8]) -> Result<DiskCounters, String> {
    let mut fields = line
        .split(|b| *b == b' ' || *b == b'\t')
        .filter(|f| !f.is_empty());
    let major = number(fields.next().ok_or("empty line")?, "major")?;
    let minor = number(fields.next().ok_or("missing minor number")?, "minor")?;
    let name = fields.next().ok_or("missing device name")?;
    let mut c = [0u64; 17];
    let mut count = 0usize;
    for field in fields {
        if let Some(slot) = c.get_mut(count) {
            *slot = number(field, "counter")?;
        }
        count += 1;
    }
    let format = match count {
        11 => LineFormat::Basic,
        15 => LineFormat::WithDiscard,
        n if n >= 17 => LineFormat::WithFlush,
        n => {
            return Err(format!(
                "{} fields; expected 14, 18 or 20 (see iostats.rst)",
                n + 3
            ));
        }
    };
    Ok(DiskCounters::from_fields(
        u32::try_from(major).map_err(|_| format!("major {major} is out of range"))?,
        u32::try_from(minor).map_err(|_| format!("minor {minor} is out of range"))?,
        String::from_utf8_lossy(name).into_owned(),
        format,
        c,
    ))
}

/// A decimal `u64` from ASCII digits, or an error naming the field.
fn number(field: &[u8], what: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "{what} {:?} is not a number",
            String::from_utf8_lossy(field)
        )
    };
    let mut value = 0u64;
    for &b in field {
        if !b.is_ascii_digit() {
            return Err(bad());
        }
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
            .ok_or_else(bad)?;
    }
    Ok(value)
}

/// Parses a whole `/proc/diskstats` text into `out` (cleared first). Pure.
///
/// # Errors
/// The first malformed line, with its 1-based number.
pub(crate) fn parse_diskstats(text: &[u8], out: &mut Vec<DiskCounters>) -> Result<(), ParseError> {
    out.clear();
    for (i, line) in text.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        out.push(parse_line(line).map_err(|reason| ParseError {
            line: i + 1,
            reason,
        })?);
    }
    Ok(())
}

/// CLOCK_MONOTONIC now.
#[must_use]
pub(crate) fn monotonic_now() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
        .map_or(Duration::ZERO, Duration::from)
}

/// Keeps `/proc/diskstats` (or a fixture) open and samples it.
#[derive(Debug)]
pub struct DiskstatsReader {
    file: File,
    path: PathBuf,
    buf: Vec<u8>,
}

impl DiskstatsReader {
    /// Opens `/proc/diskstats`.
    ///
    /// # Errors
    /// The file cannot be opened (no procfs mounted).
    pub fn open() -> anyhow::Result<Self> {
        Self::open_path(Path::new(PROC_DISKSTATS))
    }

    /// Opens another file in the same format (a captured fixture, a benchmark's generated one).
    ///
    /// # Errors
    /// The file cannot be opened.
    pub fn open_path(path: &Path) -> anyhow::Result<Self> {
        let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
        Ok(Self {
            file,
            path: path.to_owned(),
            buf: Vec::with_capacity(64 * 1024),
        })
    }

    /// Reads every device's counters now, stamped with CLOCK_MONOTONIC.
    ///
    /// # Errors
    /// A read error or a line the parser does not understand.
    pub fn sample(&mut self) -> anyhow::Result<DiskstatsSample> {
        let mut disks = Vec::new();
        let at = self.sample_into(&mut disks)?;
        Ok(DiskstatsSample { at, disks })
    }

    /// Like [`Self::sample`] but fills a caller's vector (reusing its capacity); returns the
    /// CLOCK_MONOTONIC stamp.
    ///
    /// # Errors
    /// As [`Self::sample`].
    pub fn sample_into(&mut self, disks: &mut Vec<DiskCounters>) -> anyhow::Result<Duration> {
        let at = monotonic_now();
        self.buf.clear();
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.read_to_end(&mut self.buf))
            .with_context(|| format!("reading {}", self.path.display()))?;
        parse_diskstats(&self.buf, disks)
            .with_context(|| format!("parsing {}", self.path.display()))?;
        Ok(at)
    }
}

#[cfg(test)]
mod tests;
