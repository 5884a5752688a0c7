//! The device window: the target's block device during a session, /proc/diskstats samples
//! (through the shared sampler) per interval and over each step's measured window, the `iostat -x` row of each,
//! and the reconciliation of I/Os the run completed against I/Os the device completed.

use std::path::Path;
use std::time::Duration;

use crate::monitor::device::{self, DeviceChain};
use crate::monitor::diskstats::DiskCounters;
use crate::monitor::iostat::IostatRow;
use crate::monitor::sampler::Sampler;
use crate::monitor::sysfs::QueueSettings;
use crate::record::{ReconciliationRecord, RunWarning};

pub use crate::analysis::reconcile::{Verdict, byte_ratio};

/// /proc/diskstats sectors are always 512 bytes (kernel Documentation/admin-guide/iostats.rst).
const SECTOR_BYTES: u64 = 512;

/// How long the disks are watched idle before a run's first step (the baseline of the trust
/// marks' `device_share`): long enough to see a journal's or a daemon's trickle, short enough
/// not to lengthen a run by much.
pub const IDLE_WINDOW: Duration = Duration::from_millis(250);

/// A shorter idle window in milliseconds (0: none, so the run has no idle baseline, as a run
/// without a disk): the integration tests set it for every run they make (most do not check
/// the baseline, and 250 ms per run added up); the tests of the baseline remove it. Not a
/// flag: a user's run always watches [`IDLE_WINDOW`].
pub const IDLE_WINDOW_ENV: &str = "DISKDASH_IDLE_WINDOW_MS";

/// The idle window of this run: [`IDLE_WINDOW`], or a shorter one from [`IDLE_WINDOW_ENV`].
pub fn idle_window() -> Duration {
    idle_window_from(std::env::var(IDLE_WINDOW_ENV).ok().as_deref())
}

/// [`idle_window`] given the variable's value: whole milliseconds, never longer than
/// [`IDLE_WINDOW`]; anything else leaves [`IDLE_WINDOW`].
fn idle_window_from(value: Option<&str>) -> Duration {
    value
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(IDLE_WINDOW, |ms| Duration::from_millis(ms).min(IDLE_WINDOW))
}

/// The device behind the target and its sampler.
pub struct DeviceWatch {
    /// The device number it was opened for (a device's own, or a file's `st_dev`).
    pub device_number: u64,
    pub chain: DeviceChain,
    pub queue: QueueSettings,
    sampler: Sampler,
    /// The device's counters at the last interval row.
    last: Option<(Duration, DiskCounters)>,
    window_start: Option<(Duration, DiskCounters)>,
    /// The counters when the measured I/O ended: the window's end and the last interval's,
    /// whatever runs after (a verifying write's read-back).
    window_end: Option<(Duration, DiskCounters)>,
}

impl DeviceWatch {
    /// Resolves the device of the open target (its device number; `path` names it in
    /// messages); `Err` says in words why there is none (tmpfs, ...).
    pub fn open(device_number: u64, path: &Path) -> Result<Self, String> {
        let chain = device::resolve_number(device_number, path).map_err(|e| format!("{e:#}"))?;
        let sampler = Sampler::open().map_err(|e| format!("{e:#}"))?;
        let queue = QueueSettings::read(&chain.disk);
        let mut watch = Self {
            device_number,
            chain,
            queue,
            sampler,
            last: None,
            window_start: None,
            window_end: None,
        };
        watch.last = watch.sample();
        Ok(watch)
    }

    /// The device's counters now, through the shared sampler; the interval and the window keep
    /// their own marks.
    fn sample(&mut self) -> Option<(Duration, DiskCounters)> {
        let step = self.sampler.sample().ok()?;
        step.cur
            .get(&self.chain.device)
            .map(|d| (step.cur.at, d.clone()))
    }

    /// The bytes the device has completed (read and written) and when: two of these apart
    /// give its rate, as the idle baseline before a run.
    pub fn completed_bytes(&mut self) -> Option<(Duration, u64)> {
        self.sample()
            .map(|(at, c)| (at, (c.sectors_read + c.sectors_written) * SECTOR_BYTES))
    }

    /// The `iostat -x` row since the previous call (up to the end of the measured I/O, once
    /// that is marked).
    pub fn interval_row(&mut self) -> Option<IostatRow> {
        let now = match &self.window_end {
            // After the measured I/O there is nothing more to say of the device.
            Some(end) if self.last.as_ref().is_some_and(|(at, _)| *at >= end.0) => return None,
            Some(end) => end.clone(),
            None => self.sample()?,
        };
        let row = self
            .last
            .as_ref()
            .map(|(at, prev)| IostatRow::between(prev, &now.1, now.0.saturating_sub(*at)));
        self.last = Some(now);
        row
    }

    /// A fresh baseline for interval rows, at a step's start.
    pub fn restart_intervals(&mut self) {
        self.window_end = None;
        self.last = self.sample();
    }

    /// Marks the start of a measured window.
    pub fn start_window(&mut self) {
        self.window_start = self.sample();
        self.window_end = None;
    }

    /// Marks the end of the measured I/O: the window and the last interval end here.
    pub fn end_measuring(&mut self) {
        if self.window_start.is_some() && self.window_end.is_none() {
            self.window_end = self.sample();
        }
    }

    /// Closes the window: its `iostat -x` row and the reconciliation with what the run did.
    pub fn end_window(
        &mut self,
        app_read_ios: u64,
        app_write_ios: u64,
        app_bytes: u64,
        app_trim_ios: u64,
    ) -> Option<(IostatRow, ReconciliationRecord)> {
        let (start_at, start) = self.window_start.take()?;
        let (end_at, end) = match self.window_end.take() {
            Some(end) => end,
            None => self.sample()?,
        };
        let row = IostatRow::between(&start, &end, end_at.saturating_sub(start_at));
        let device_read_ios = end.reads.saturating_sub(start.reads);
        let device_write_ios = end.writes.saturating_sub(start.writes);
        let device_bytes = (end.sectors_read.saturating_sub(start.sectors_read)
            + end.sectors_written.saturating_sub(start.sectors_written))
            * SECTOR_BYTES;
        let merged = end.reads_merged.saturating_sub(start.reads_merged)
            + end.writes_merged.saturating_sub(start.writes_merged);
        let mut rec = reconcile(
            &self.chain.device,
            [app_read_ios, app_write_ios, app_bytes],
            [device_read_ios, device_write_ios, device_bytes, merged],
        );
        let discards = end.discards.saturating_sub(start.discards);
        reconcile_trims(&self.chain.device, &mut rec, app_trim_ios, discards);
        Some((row, rec))
    }
}

/// Compares what the run completed with what the device completed over the same window.
#[must_use]
pub fn reconcile(device: &str, app: [u64; 3], dev: [u64; 4]) -> ReconciliationRecord {
    let [app_read_ios, app_write_ios, app_bytes] = app;
    let [device_read_ios, device_write_ios, device_bytes, merged] = dev;
    let app_ios = app_read_ios + app_write_ios;
    let device_ios = device_read_ios + device_write_ios;
    let mut rec = ReconciliationRecord {
        app_read_ios,
        app_write_ios,
        device_read_ios,
        device_write_ios,
        app_bytes,
        device_bytes,
        io_ratio: (app_ios > 0).then(|| device_ios as f64 / app_ios as f64),
        verdict: String::new(),
        app_trim_ios: 0,
        device_discard_ios: 0,
    };
    let pct = byte_ratio(&rec).unwrap_or(0.0) * 100.0;
    rec.verdict = match Verdict::of(&rec) {
        Verdict::NoIo => "the run completed no I/O".to_string(),
        Verdict::PageCache => RunWarning::PageCache {
            device: device.to_string(),
            app_bytes,
            device_bytes,
            step: None,
            point: None,
        }
        .to_string(),
        Verdict::PartlyCached => {
            format!("{device} served {pct:.0}% of the run's bytes: part came from the page cache")
        }
        Verdict::Match => format!("match: {device} completed every I/O of the run, once"),
        Verdict::MatchInBytes => format!(
            "match in bytes; {device} completed {device_ios} requests for the run's {app_ios} I/Os \
             ({})",
            request_difference(device_ios, app_ios, merged)
        ),
        Verdict::MoreThanRun => format!(
            "{device} did {pct:.0}% of the run's bytes: other activity on the disk, or filesystem \
             metadata and journal"
        ),
    };
    rec
}

/// Adds the run's trims and the device's discards over the window to `rec`, and says how they
/// compare: in the verdict's place when the run only trimmed, after it otherwise.
pub fn reconcile_trims(
    device: &str,
    rec: &mut ReconciliationRecord,
    app_trim_ios: u64,
    device_discards: u64,
) {
    rec.app_trim_ios = app_trim_ios;
    rec.device_discard_ios = device_discards;
    if app_trim_ios == 0 {
        return;
    }
    let trims = if device_discards == app_trim_ios {
        format!("match: {device} completed every trim of the run as one discard")
    } else if device_discards > app_trim_ios {
        format!(
            "{device} completed {device_discards} discards for the run's {app_trim_ios} trims \
             ({} more; other discards may share the disk)",
            device_discards - app_trim_ios
        )
    } else {
        format!(
            "{device} completed {device_discards} discards for the run's {app_trim_ios} trims \
             ({} fewer)",
            app_trim_ios - device_discards
        )
    };
    rec.verdict = if rec.app_read_ios + rec.app_write_ios == 0 {
        trims
    } else {
        format!("{}; trims: {trims}", rec.verdict)
    };
}

/// What the counters say about a request count that differs from the run's: the difference,
/// the merges the device counted, and, where it served more, that other I/O may share the disk.
/// diskstats counts no splits, so none is claimed.
fn request_difference(device_ios: u64, app_ios: u64, merged: u64) -> String {
    let merges = match merged {
        0 => "no merges counted".to_string(),
        1 => "1 merge counted".to_string(),
        n => format!("{n} merges counted"),
    };
    if device_ios > app_ios {
        format!(
            "{} more, {merges}; other I/O may share the disk",
            device_ios - app_ios
        )
    } else {
        format!("{} fewer, {merges}", app_ios - device_ios)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_idle_window_is_250_ms_unless_the_variable_shortens_it() {
        assert_eq!(idle_window_from(None), Duration::from_millis(250));
        assert_eq!(idle_window_from(Some("0")), Duration::ZERO);
        assert_eq!(idle_window_from(Some(" 40 ")), Duration::from_millis(40));
        // Never longer than the default, and nothing but whole milliseconds.
        assert_eq!(idle_window_from(Some("9000")), IDLE_WINDOW);
        for odd in ["", "-1", "1.5", "250ms", "lots"] {
            assert_eq!(idle_window_from(Some(odd)), IDLE_WINDOW, "{odd:?}");
        }
    }

    #[test]
    fn verdicts() {
        let exact = reconcile("vda", [100, 0, 409_600], [100, 0, 409_600, 0]);
        assert_eq!(
            exact.verdict,
            "match: vda completed every I/O of the run, once"
        );
        assert_eq!(exact.io_ratio, Some(1.0));
        let cached = reconcile("vda", [100_000, 0, 409_600_000], [10, 0, 40_960, 0]);
        assert_eq!(
            Verdict::of(&cached),
            Verdict::PageCache,
            "{}",
            cached.verdict
        );
        assert!(
            cached.verdict.contains("390.6 MiB but vda only 40 KiB"),
            "{}",
            cached.verdict
        );
        let split = reconcile("vda", [10, 0, 10 << 20], [20, 0, 10 << 20, 0]);
        assert!(
            split.verdict.starts_with("match in bytes"),
            "{}",
            split.verdict
        );
        // Other processes' I/O on the disk: nothing says a request was split.
        let shared = reconcile(
            "vda",
            [1_178_819, 0, 1_178_819 * 4096],
            [1_178_865, 0, 1_178_819 * 4096, 27],
        );
        assert_eq!(
            shared.verdict,
            "match in bytes; vda completed 1178865 requests for the run's 1178819 I/Os (46 more, \
             27 merges counted; other I/O may share the disk)"
        );
        let merged = reconcile("vda", [100, 0, 100 << 12], [60, 0, 100 << 12, 40]);
        assert_eq!(
            merged.verdict,
            "match in bytes; vda completed 60 requests for the run's 100 I/Os (40 fewer, 40 \
             merges counted)"
        );
        let busy = reconcile("vda", [10, 0, 40_960], [30, 0, 122_880, 0]);
        assert!(busy.verdict.contains("300%"), "{}", busy.verdict);
        assert_eq!(
            reconcile("vda", [0, 0, 0], [5, 0, 100, 0]).verdict,
            "the run completed no I/O"
        );
    }
}
