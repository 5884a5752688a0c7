//! What a reconciliation of the run's I/O with the device's counters found.

use crate::record::ReconciliationRecord;

/// What a reconciliation found, decided by the numbers (bytes first: requests can be split or
/// merged on the way down; bytes cannot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The run completed no I/O.
    NoIo,
    /// The device served under half of the run's bytes: the results measure memory.
    PageCache,
    /// The device served 50..98% of the bytes: part came from the page cache.
    PartlyCached,
    /// Every I/O reached the device once.
    Match,
    /// The bytes match; the request counts do not (merges, splits or other I/O: the counters
    /// cannot tell which).
    MatchInBytes,
    /// The device did more than the run (other activity, metadata, journal).
    MoreThanRun,
}

impl Verdict {
    /// The verdict for a reconciliation's numbers.
    #[must_use]
    pub fn of(rec: &ReconciliationRecord) -> Self {
        let app_ios = rec.app_read_ios + rec.app_write_ios;
        let device_ios = rec.device_read_ios + rec.device_write_ios;
        match byte_ratio(rec) {
            None => Self::NoIo,
            Some(r) if r < 0.5 => Self::PageCache,
            Some(r) if r < 0.98 => Self::PartlyCached,
            Some(r) if r <= 1.02 && device_ios == app_ios => Self::Match,
            Some(r) if r <= 1.02 => Self::MatchInBytes,
            Some(_) => Self::MoreThanRun,
        }
    }
}

/// The device's bytes over the run's; `None` when the run moved none.
#[must_use]
pub fn byte_ratio(rec: &ReconciliationRecord) -> Option<f64> {
    (rec.app_bytes > 0).then(|| rec.device_bytes as f64 / rec.app_bytes as f64)
}
