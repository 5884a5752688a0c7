//! The `iostat -x` columns from two diskstats samples: pure functions, sysstat's formulas.
//!
//! Each column follows sysstat 12's `iostat.c` (`compute_ext_disk_stats` and `write_ext_stat`)
//! over the kernel's counters (`Documentation/admin-guide/iostats.rst`), with `s` the elapsed
//! seconds and `Δ` the change of a counter:
//!
//! | column | formula |
//! | --- | --- |
//! | `r/s` `w/s` `d/s` `f/s` | `Δios / s` |
//! | `rkB/s` `wkB/s` `dkB/s` | `Δsectors / 2 / s` (sectors are always 512 bytes) |
//! | `rrqm/s` `wrqm/s` `drqm/s` | `Δmerges / s` |
//! | `%rrqm` `%wrqm` `%drqm` | `Δmerges / (Δmerges + Δios) * 100`, 0 without requests |
//! | `r_await` `w_await` `d_await` `f_await` | `Δticks_ms / Δios`, 0 without requests |
//! | `rareq-sz` `wareq-sz` `dareq-sz` | `Δsectors / Δios / 2` (kB), 0 without requests |
//! | `aqu-sz` | `Δtime_in_queue_ms / 1000 / s` |
//! | `%util` | `Δio_ticks_ms / 10 / s`, at most 100 (the kernel's busy time can run a hair past the sampled interval; fio caps it too) |
//!
//! A counter that is lower than before (a 32-bit time field wrapped after ~49.7 days, or the
//! device was removed and re-created under the same name) makes the whole interval
//! meaningless: every column is 0 and [`IostatRow::counters_wrapped`] is set. Never a huge number.

use std::time::Duration;

use super::diskstats::{DiskCounters, DiskstatsSample};

pub(crate) use crate::record::IostatRow;

/// The change of one counter, or `None` when it went backwards.
fn delta(prev: u64, cur: u64) -> Option<u64> {
    cur.checked_sub(prev)
}

/// `n / d`, 0 when `d` is 0 (sysstat's guard for idle devices).
fn ratio(n: f64, d: f64) -> f64 {
    if d > 0.0 { n / d } else { 0.0 }
}

/// The deltas of one interval (all counters except the instantaneous in-flight one).
struct Deltas {
    ios: [f64; 4],
    merges: [f64; 3],
    sectors: [f64; 3],
    ticks_ms: [f64; 4],
    io_ms: f64,
    weighted_io_ms: f64,
}

fn deltas(prev: &DiskCounters, cur: &DiskCounters) -> Option<Deltas> {
    let d = |p: u64, c: u64| delta(p, c).map(|v| v as f64);
    Some(Deltas {
        ios: [
            d(prev.reads, cur.reads)?,
            d(prev.writes, cur.writes)?,
            d(prev.discards, cur.discards)?,
            d(prev.flushes, cur.flushes)?,
        ],
        merges: [
            d(prev.reads_merged, cur.reads_merged)?,
            d(prev.writes_merged, cur.writes_merged)?,
            d(prev.discards_merged, cur.discards_merged)?,
        ],
        sectors: [
            d(prev.sectors_read, cur.sectors_read)?,
            d(prev.sectors_written, cur.sectors_written)?,
            d(prev.sectors_discarded, cur.sectors_discarded)?,
        ],
        ticks_ms: [
            d(prev.read_ms, cur.read_ms)?,
            d(prev.write_ms, cur.write_ms)?,
            d(prev.discard_ms, cur.discard_ms)?,
            d(prev.flush_ms, cur.flush_ms)?,
        ],
        io_ms: d(prev.io_ms, cur.io_ms)?,
        weighted_io_ms: d(prev.weighted_io_ms, cur.weighted_io_ms)?,
    })
}

impl IostatRow {
    /// The columns over the interval from `prev` to `cur` (the same device), `elapsed` apart.
    ///
    /// A zero `elapsed` gives rates of 0 (never infinity or NaN).
    #[must_use]
    pub(crate) fn between(prev: &DiskCounters, cur: &DiskCounters, elapsed: Duration) -> IostatRow {
        let mut row = IostatRow::idle(&cur.name);
        row.in_flight = cur.in_flight;
        let Some(d) = deltas(prev, cur) else {
            row.counters_wrapped = true;
            return row;
        };
        let secs = elapsed.as_secs_f64();
        let per_s = |v: f64| ratio(v, secs);
        let merged_pct = |m: f64, n: f64| ratio(m * 100.0, m + n);

        row.reads_per_s = per_s(d.ios[0]);
        row.writes_per_s = per_s(d.ios[1]);
        row.discards_per_s = per_s(d.ios[2]);
        row.flushes_per_s = per_s(d.ios[3]);
        row.read_kb_per_s = per_s(d.sectors[0] / 2.0);
        row.write_kb_per_s = per_s(d.sectors[1] / 2.0);
        row.discard_kb_per_s = per_s(d.sectors[2] / 2.0);
        row.read_merges_per_s = per_s(d.merges[0]);
        row.write_merges_per_s = per_s(d.merges[1]);
        row.discard_merges_per_s = per_s(d.merges[2]);
        row.read_merged_pct = merged_pct(d.merges[0], d.ios[0]);
        row.write_merged_pct = merged_pct(d.merges[1], d.ios[1]);
        row.discard_merged_pct = merged_pct(d.merges[2], d.ios[2]);
        row.read_await_ms = ratio(d.ticks_ms[0], d.ios[0]);
        row.write_await_ms = ratio(d.ticks_ms[1], d.ios[1]);
        row.discard_await_ms = ratio(d.ticks_ms[2], d.ios[2]);
        row.flush_await_ms = ratio(d.ticks_ms[3], d.ios[3]);
        row.read_request_kb = ratio(d.sectors[0] / 2.0, d.ios[0]);
        row.write_request_kb = ratio(d.sectors[1] / 2.0, d.ios[1]);
        row.discard_request_kb = ratio(d.sectors[2] / 2.0, d.ios[2]);
        row.queue_size = per_s(d.weighted_io_ms / 1000.0);
        // Busy time cannot exceed the window: a little over 100 is the two clocks disagreeing.
        row.util_pct = per_s(d.io_ms / 10.0).min(100.0);
        row
    }

    /// The since-boot report of sysstat's first line: from all-zero counters over `uptime`.
    #[must_use]
    pub(crate) fn since_boot(cur: &DiskCounters, uptime: Duration) -> IostatRow {
        IostatRow::between(&DiskCounters::zeroed(&cur.name), cur, uptime)
    }

    /// A row of zeros for `device`.
    #[must_use]
    pub fn idle(device: &str) -> IostatRow {
        IostatRow {
            device: device.to_owned(),
            reads_per_s: 0.0,
            writes_per_s: 0.0,
            discards_per_s: 0.0,
            flushes_per_s: 0.0,
            read_kb_per_s: 0.0,
            write_kb_per_s: 0.0,
            discard_kb_per_s: 0.0,
            read_merges_per_s: 0.0,
            write_merges_per_s: 0.0,
            discard_merges_per_s: 0.0,
            read_merged_pct: 0.0,
            write_merged_pct: 0.0,
            discard_merged_pct: 0.0,
            read_await_ms: 0.0,
            write_await_ms: 0.0,
            discard_await_ms: 0.0,
            flush_await_ms: 0.0,
            read_request_kb: 0.0,
            write_request_kb: 0.0,
            discard_request_kb: 0.0,
            queue_size: 0.0,
            util_pct: 0.0,
            in_flight: 0,
            counters_wrapped: false,
        }
    }

    /// Whether any request completed in the interval (what `iostat -z` keeps).
    #[must_use]
    pub(crate) fn is_active(&self) -> bool {
        self.reads_per_s + self.writes_per_s + self.discards_per_s + self.flushes_per_s > 0.0
    }
}

/// The counters of each device of `cur` in `prev`: same position when the device list did not
/// change (the common case, no lookup), else by name. `None` for a device new since `prev`.
#[must_use]
pub(crate) fn pair_with_previous<'a>(
    prev: &'a [DiskCounters],
    cur: &[DiskCounters],
) -> Vec<Option<&'a DiskCounters>> {
    let same_order = prev.len() == cur.len() && prev.iter().zip(cur).all(|(p, c)| p.name == c.name);
    if same_order {
        return prev.iter().map(Some).collect();
    }
    let by_name: std::collections::HashMap<&str, &DiskCounters> =
        prev.iter().map(|p| (p.name.as_str(), p)).collect();
    cur.iter()
        .map(|c| by_name.get(c.name.as_str()).copied())
        .collect()
}

/// One row per device of `cur` over the interval since `prev`. A device that appeared in
/// between (hot-plug, loop attach) accrued all its counters inside the interval, so it is
/// measured from zero; a device that vanished has no row.
#[must_use]
pub fn rows_between(prev: &DiskstatsSample, cur: &DiskstatsSample) -> Vec<IostatRow> {
    let elapsed = cur.at.saturating_sub(prev.at);
    pair_with_previous(&prev.disks, &cur.disks)
        .into_iter()
        .zip(&cur.disks)
        .map(|(p, c)| match p {
            Some(p) => IostatRow::between(p, c, elapsed),
            None => IostatRow::between(&DiskCounters::zeroed(&c.name), c, elapsed),
        })
        .collect()
}

#[cfg(test)]
mod tests;
