//! The target's block device during a session: /proc/diskstats samples (through the monitor's
//! reader) per interval and over each segment's measured window, the `iostat -x` row of each,
//! and the reconciliation of I/Os the run completed against I/Os the device completed.

use std::path::Path;
use std::time::Duration;

use crate::monitor::device::{self, DeviceChain};
use crate::monitor::diskstats::{DiskCounters, DiskstatsReader};
use crate::monitor::iostat::IostatRow;
use crate::monitor::sysfs::QueueSettings;
use crate::record::ReconciliationRecord;
use crate::units::format_bytes;

/// /proc/diskstats sectors are always 512 bytes (kernel Documentation/admin-guide/iostats.rst).
const SECTOR_BYTES: u64 = 512;

/// The device behind the target and its sampler.
pub struct DeviceWatch {
    pub chain: DeviceChain,
    pub queue: QueueSettings,
    reader: DiskstatsReader,
    scratch: Vec<DiskCounters>,
    last: Option<(Duration, DiskCounters)>,
    window_start: Option<(Duration, DiskCounters)>,
}

impl DeviceWatch {
    /// Resolves the device of `path`; `Err` says in words why there is none (tmpfs, ...).
    pub fn open(path: &Path) -> Result<Self, String> {
        let chain = device::resolve(path).map_err(|e| format!("{e:#}"))?;
        let reader = DiskstatsReader::open().map_err(|e| format!("{e:#}"))?;
        let queue = QueueSettings::read(&chain.disk);
        let mut watch = Self {
            chain,
            queue,
            reader,
            scratch: Vec::new(),
            last: None,
            window_start: None,
        };
        watch.last = watch.sample();
        Ok(watch)
    }

    fn sample(&mut self) -> Option<(Duration, DiskCounters)> {
        let at = self.reader.sample_into(&mut self.scratch).ok()?;
        let name = &self.chain.device;
        self.scratch
            .iter()
            .find(|d| &d.name == name)
            .map(|d| (at, d.clone()))
    }

    /// The `iostat -x` row since the previous call.
    pub fn interval_row(&mut self) -> Option<IostatRow> {
        let now = self.sample()?;
        let row = self
            .last
            .as_ref()
            .map(|(at, prev)| IostatRow::between(prev, &now.1, now.0.saturating_sub(*at)));
        self.last = Some(now);
        row
    }

    /// Marks the start of a measured window.
    pub fn start_window(&mut self) {
        self.window_start = self.sample();
    }

    /// Closes the window: its `iostat -x` row and the reconciliation with what the run did.
    pub fn end_window(
        &mut self,
        app_read_ios: u64,
        app_write_ios: u64,
        app_bytes: u64,
    ) -> Option<(IostatRow, ReconciliationRecord)> {
        let (start_at, start) = self.window_start.take()?;
        let (end_at, end) = self.sample()?;
        let row = IostatRow::between(&start, &end, end_at.saturating_sub(start_at));
        let device_read_ios = end.reads.saturating_sub(start.reads);
        let device_write_ios = end.writes.saturating_sub(start.writes);
        let device_bytes = (end.sectors_read.saturating_sub(start.sectors_read)
            + end.sectors_written.saturating_sub(start.sectors_written))
            * SECTOR_BYTES;
        let merged = end.reads_merged.saturating_sub(start.reads_merged)
            + end.writes_merged.saturating_sub(start.writes_merged);
        let rec = reconcile(
            &self.chain.device,
            [app_read_ios, app_write_ios, app_bytes],
            [device_read_ios, device_write_ios, device_bytes, merged],
        );
        Some((row, rec))
    }
}

/// Compares what the run completed with what the device completed over the same window.
/// Bytes decide the verdict (requests can be split or merged on the way down; bytes cannot).
#[must_use]
pub fn reconcile(device: &str, app: [u64; 3], dev: [u64; 4]) -> ReconciliationRecord {
    let [app_read_ios, app_write_ios, app_bytes] = app;
    let [device_read_ios, device_write_ios, device_bytes, merged] = dev;
    let app_ios = app_read_ios + app_write_ios;
    let device_ios = device_read_ios + device_write_ios;
    let io_ratio = (app_ios > 0).then(|| device_ios as f64 / app_ios as f64);
    let byte_ratio = (app_bytes > 0).then(|| device_bytes as f64 / app_bytes as f64);
    let verdict = match byte_ratio {
        None => "the run completed no I/O".to_string(),
        Some(r) if r < 0.5 => format!(
            "PAGE CACHE: the run moved {} but {device} only {}; these results measure memory, \
             not the disk",
            format_bytes(app_bytes),
            format_bytes(device_bytes)
        ),
        Some(r) if r < 0.98 => format!(
            "{device} served {:.0}% of the run's bytes: part came from the page cache",
            r * 100.0
        ),
        Some(r) if r <= 1.02 && device_ios == app_ios => {
            format!("match: {device} completed every I/O of the run, once")
        }
        Some(r) if r <= 1.02 => format!(
            "match in bytes; {device} completed {device_ios} requests for the run's {app_ios} I/Os \
             ({merged} merged, the rest split)"
        ),
        Some(r) => format!(
            "{device} did {:.0}% of the run's bytes: other activity on the disk, or filesystem \
             metadata and journal",
            r * 100.0
        ),
    };
    ReconciliationRecord {
        app_read_ios,
        app_write_ios,
        device_read_ios,
        device_write_ios,
        app_bytes,
        device_bytes,
        io_ratio,
        verdict,
    }
}

/// Whether a reconciliation says the page cache served most of the run.
#[must_use]
pub fn looks_like_page_cache(rec: &ReconciliationRecord) -> bool {
    rec.verdict.starts_with("PAGE CACHE")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        let exact = reconcile("vda", [100, 0, 409_600], [100, 0, 409_600, 0]);
        assert_eq!(
            exact.verdict,
            "match: vda completed every I/O of the run, once"
        );
        assert_eq!(exact.io_ratio, Some(1.0));
        let cached = reconcile("vda", [100_000, 0, 409_600_000], [10, 0, 40_960, 0]);
        assert!(looks_like_page_cache(&cached), "{}", cached.verdict);
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
        let busy = reconcile("vda", [10, 0, 40_960], [30, 0, 122_880, 0]);
        assert!(busy.verdict.contains("300%"), "{}", busy.verdict);
        assert_eq!(
            reconcile("vda", [0, 0, 0], [5, 0, 100, 0]).verdict,
            "the run completed no I/O"
        );
    }
}
