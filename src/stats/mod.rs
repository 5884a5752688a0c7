//! Latency histograms and counters. Workers record into a [`WorkerStats`] with no allocation
//! per I/O and hand it over once per tick; the aggregator merges them into interval and total
//! [`DirectionStats`] and summarises with [`LatencySummary`].

#[cfg(test)]
pub(crate) mod fixture;
mod histogram;
pub mod plat;
mod record;
pub mod steady;

pub use histogram::{
    FINE_SUB_BUCKET_BITS, FIO_PERCENTILES, HISTOGRAM_BYTES, LatencyBucket, LatencyHistogram,
    LatencySummary, MAX_INTERVAL_BUCKETS, bounded, bucket_percentile_ns, coarsen,
    fine_bucket_ge_ns, fine_bucket_le_ns, merge_buckets,
};

/// Counts and latency of one direction (read, write) or of syncs.
#[derive(Debug, Clone)]
pub struct DirectionStats {
    pub ios: u64,
    pub bytes: u64,
    pub latency: LatencyHistogram,
    /// Latency from each I/O's scheduled time, for a paced direction (`--rate-iops`,
    /// `--rate`); `None` when the direction runs flat out.
    pub sched: Option<LatencyHistogram>,
    /// fio's split of `latency` (its `lat`) for an engine that times its submit call apart
    /// (io_uring, libaio, null): `slat` from the clock read before the submit call to the one
    /// after it returned, `clat` from then to the reap. `None` for a synchronous engine, whose
    /// whole latency is its clat, as fio's.
    pub split: Option<Box<SplitLatency>>,
}

/// The submission and completion latencies of one direction (see [`DirectionStats::split`]).
#[derive(Debug, Clone)]
pub struct SplitLatency {
    pub slat: LatencyHistogram,
    pub clat: LatencyHistogram,
}

impl SplitLatency {
    #[must_use]
    pub fn new() -> Self {
        Self {
            slat: LatencyHistogram::new(),
            clat: LatencyHistogram::new(),
        }
    }
}

impl Default for SplitLatency {
    fn default() -> Self {
        Self::new()
    }
}

impl DirectionStats {
    #[must_use]
    pub fn new() -> Self {
        Self {
            ios: 0,
            bytes: 0,
            latency: LatencyHistogram::new(),
            sched: None,
            split: None,
        }
    }

    /// These stats, also keeping slat and clat apart (see [`DirectionStats::split`]).
    #[cfg(test)]
    #[must_use]
    pub fn with_split(mut self) -> Self {
        self.split = Some(Box::new(SplitLatency::new()));
        self
    }

    /// Stats that also keep the latency from the schedule.
    #[must_use]
    pub fn paced() -> Self {
        Self {
            sched: Some(LatencyHistogram::new()),
            ..Self::new()
        }
    }

    /// One completed paced I/O: its latency from the submit and from its scheduled time.
    #[cfg(test)]
    pub fn record_paced(&mut self, bytes: u64, latency_ns: u64, sched_latency_ns: u64) {
        self.record(bytes, latency_ns);
        if let Some(sched) = self.sched.as_mut() {
            sched.record(sched_latency_ns);
        }
    }

    /// The submission and completion latencies of one completed I/O already [`record`]ed
    /// (`lat` = `slat` + `clat`); nothing where the stats keep no split.
    ///
    /// [`record`]: DirectionStats::record
    #[cfg(test)]
    pub fn record_split(&mut self, slat_ns: u64, clat_ns: u64) {
        if let Some(split) = self.split.as_mut() {
            split.slat.record(slat_ns);
            split.clat.record(clat_ns);
        }
    }

    /// One completed I/O.
    #[inline]
    pub fn record(&mut self, bytes: u64, latency_ns: u64) {
        self.ios += 1;
        self.bytes += bytes;
        self.latency.record(latency_ns);
    }

    /// [`Self::record`], [`Self::record_paced`] (with `sched_latency_ns`, when the stats keep
    /// it) and [`Self::record_split`] in one, for the worker's hot path: each histogram's
    /// count is [`LatencyHistogram::record_unsettled`], so the stats are read only after
    /// [`Self::settle`].
    #[inline(always)]
    pub fn record_unsettled(
        &mut self,
        bytes: u64,
        latency_ns: u64,
        sched_latency_ns: Option<u64>,
        split: Option<(u64, u64)>,
    ) {
        self.ios += 1;
        self.bytes += bytes;
        self.latency.record_unsettled(latency_ns);
        if let (Some(ns), Some(sched)) = (sched_latency_ns, self.sched.as_mut()) {
            sched.record_unsettled(ns);
        }
        if let (Some((slat_ns, clat_ns)), Some(split)) = (split, self.split.as_mut()) {
            split.slat.record_unsettled(slat_ns);
            split.clat.record_unsettled(clat_ns);
        }
    }

    /// Settles every histogram (see [`LatencyHistogram::settle`]).
    pub fn settle(&mut self) {
        self.latency.settle();
        if let Some(sched) = self.sched.as_mut() {
            sched.settle();
        }
        if let Some(split) = self.split.as_mut() {
            split.slat.settle();
            split.clat.settle();
        }
    }

    pub fn add(&mut self, other: &Self) {
        other.add_into(self, None);
    }

    /// Adds these stats to `into` and `also`, reading each histogram once.
    pub fn add_into(&self, into: &mut Self, mut also: Option<&mut Self>) {
        for dest in std::iter::once(&mut *into).chain(also.as_deref_mut()) {
            dest.ios += self.ios;
            dest.bytes += self.bytes;
        }
        self.latency.add_into(
            &mut into.latency,
            also.as_deref_mut().map(|a| &mut a.latency),
        );
        if let Some(theirs) = &self.sched {
            // Allocated once, on the first paced stats merged in (never by a worker).
            theirs.add_into(
                into.sched.get_or_insert_with(LatencyHistogram::new),
                also.as_deref_mut()
                    .map(|a| a.sched.get_or_insert_with(LatencyHistogram::new)),
            );
        }
        if let Some(theirs) = &self.split {
            // As `sched`: allocated once, on the first split stats merged in.
            let mine = into.split.get_or_insert_with(Default::default);
            let also = also.map(|a| a.split.get_or_insert_with(Default::default));
            let (also_slat, also_clat) = match also {
                Some(a) => (Some(&mut a.slat), Some(&mut a.clat)),
                None => (None, None),
            };
            theirs.slat.add_into(&mut mine.slat, also_slat);
            theirs.clat.add_into(&mut mine.clat, also_clat);
        }
    }

    pub fn reset(&mut self) {
        self.ios = 0;
        self.bytes = 0;
        self.latency.reset();
        if let Some(sched) = self.sched.as_mut() {
            sched.reset();
        }
        if let Some(split) = self.split.as_mut() {
            split.slat.reset();
            split.clat.reset();
        }
    }
}

impl Default for DirectionStats {
    fn default() -> Self {
        Self::new()
    }
}

/// What one worker measured over one tick: the unit handed to the aggregator.
#[derive(Debug, Clone)]
pub struct WorkerStats {
    pub worker: u32,
    /// CLOCK_MONOTONIC nanoseconds: the tick this covers.
    pub start_ns: u64,
    pub end_ns: u64,
    pub read: DirectionStats,
    pub write: DirectionStats,
    /// fsync/fdatasync calls (bytes unused).
    pub sync: DirectionStats,
    /// Discards (`trim`, `randtrim`, `trimwrite`).
    pub trim: DirectionStats,
    /// I/Os resubmitted after EINTR/EAGAIN/EBUSY or a short transfer.
    pub retries: u64,
    /// Failed I/Os counted and gone on past (fio's `continue_on_error`).
    pub errors: u64,
    /// The same by direction of the failed I/O: read, write, trim (fio counts them in the
    /// direction's `total_ios`, not its bytes).
    pub failed: [u64; 3],
    /// The errno of the first of them (fio's `first_error`), 0 when none.
    pub first_error: i32,
    /// fio's depth distributions of the I/Os submitted and the calls made in this tick.
    pub depths: IoDepths,
    /// The worker's last tick: its measured I/O ended at `end_ns`.
    pub last: bool,
}

impl WorkerStats {
    #[must_use]
    pub fn new(worker: u32) -> Self {
        Self {
            worker,
            start_ns: 0,
            end_ns: 0,
            read: DirectionStats::new(),
            write: DirectionStats::new(),
            sync: DirectionStats::new(),
            trim: DirectionStats::new(),
            retries: 0,
            errors: 0,
            failed: [0; 3],
            first_error: 0,
            depths: IoDepths::default(),
            last: false,
        }
    }

    /// These stats with slat and clat kept apart (an engine that times its submit call: see
    /// [`DirectionStats::split`]) in the directions `[read, write, trim]` the worker issues.
    #[must_use]
    pub fn with_split(mut self, directions: [bool; 3]) -> Self {
        for (direction, used) in [&mut self.read, &mut self.write, &mut self.trim]
            .into_iter()
            .zip(directions)
        {
            if used {
                direction.split = Some(Box::new(SplitLatency::new()));
            }
        }
        self
    }

    /// Stats of a worker whose reads and/or writes are paced: they keep the latency from the
    /// schedule too.
    #[must_use]
    pub fn paced(worker: u32, reads: bool, writes: bool) -> Self {
        let mut stats = Self::new(worker);
        if reads {
            stats.read = DirectionStats::paced();
        }
        if writes {
            stats.write = DirectionStats::paced();
        }
        stats
    }

    /// Clears the counters for a tick starting at `start_ns` (no allocation).
    pub fn reset(&mut self, start_ns: u64) {
        self.start_ns = start_ns;
        self.end_ns = start_ns;
        self.read.reset();
        self.write.reset();
        self.sync.reset();
        self.trim.reset();
        self.retries = 0;
        self.errors = 0;
        self.failed = [0; 3];
        self.first_error = 0;
        self.depths = IoDepths::default();
        self.last = false;
    }

    /// Back to what [`WorkerStats::new`]`(0)` makes, keeping the histograms' memory (only
    /// their used counters are cleared); a paced direction's schedule histogram is dropped, as
    /// new stats have none.
    pub fn clear(&mut self) {
        self.reset(0);
        self.worker = 0;
        for direction in [
            &mut self.read,
            &mut self.write,
            &mut self.sync,
            &mut self.trim,
        ] {
            direction.sched = None;
            direction.split = None;
        }
    }

    /// Folds `other` in (same histogram bounds, so no allocation).
    pub fn add(&mut self, other: &Self) {
        other.add_into(self, None);
    }

    /// Folds these stats into `into` and `also` (a worker's tick into its job's interval and
    /// its own total): one pass over each histogram for both.
    pub fn add_into(&self, into: &mut Self, mut also: Option<&mut Self>) {
        for dest in std::iter::once(&mut *into).chain(also.as_deref_mut()) {
            if dest.ios() == 0 && dest.sync.ios == 0 {
                dest.start_ns = self.start_ns;
            } else {
                dest.start_ns = dest.start_ns.min(self.start_ns);
            }
            dest.end_ns = dest.end_ns.max(self.end_ns);
            dest.retries += self.retries;
            dest.errors += self.errors;
            for (mine, theirs) in dest.failed.iter_mut().zip(self.failed) {
                *mine += theirs;
            }
            if dest.first_error == 0 {
                dest.first_error = self.first_error;
            }
            dest.depths.add(&self.depths);
        }
        self.read
            .add_into(&mut into.read, also.as_deref_mut().map(|a| &mut a.read));
        self.write
            .add_into(&mut into.write, also.as_deref_mut().map(|a| &mut a.write));
        self.sync
            .add_into(&mut into.sync, also.as_deref_mut().map(|a| &mut a.sync));
        self.trim
            .add_into(&mut into.trim, also.map(|a| &mut a.trim));
    }

    #[must_use]
    pub fn ios(&self) -> u64 {
        self.read.ios + self.write.ios + self.trim.ios
    }

    /// Settles the histograms of every direction (see [`LatencyHistogram::settle`]): a
    /// worker does before it hands its stats over.
    pub fn settle(&mut self) {
        for direction in [
            &mut self.read,
            &mut self.write,
            &mut self.sync,
            &mut self.trim,
        ] {
            direction.settle();
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds (the vDSO clock /proc/diskstats samples are stamped with).
#[inline]
#[must_use]
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &raw mut ts) };
    // Plain casts: the monotonic clock's seconds and nanoseconds are never negative, and a
    // checked conversion is two more tests on every clock read (three per I/O).
    let (secs, nanos) = (ts.tv_sec as u64, ts.tv_nsec as u64);
    secs * 1_000_000_000 + nanos
}

/// What `getrusage` says of a process or a thread: CPU time, context switches (voluntary and
/// involuntary) and page faults (major: read from disk; minor: without I/O), as fio's
/// `usr_cpu`, `sys_cpu`, `ctx`, `majf` and `minf` count them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub usr_ns: u64,
    pub sys_ns: u64,
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
}

impl Usage {
    /// What was used from `start` to `self` (each counter only grows; never below 0).
    #[must_use]
    pub fn since(&self, start: &Self) -> Self {
        Self {
            usr_ns: self.usr_ns.saturating_sub(start.usr_ns),
            sys_ns: self.sys_ns.saturating_sub(start.sys_ns),
            ctx: self.ctx.saturating_sub(start.ctx),
            majf: self.majf.saturating_sub(start.majf),
            minf: self.minf.saturating_sub(start.minf),
        }
    }

    /// Adds `other` (fio sums its threads' usage).
    pub fn add(&mut self, other: &Self) {
        self.usr_ns += other.usr_ns;
        self.sys_ns += other.sys_ns;
        self.ctx += other.ctx;
        self.majf += other.majf;
        self.minf += other.minf;
    }
}

/// [`Usage`] from `getrusage(who)`: `RUSAGE_SELF` for the process, `RUSAGE_THREAD` for the
/// calling thread.
#[must_use]
pub fn rusage(who: libc::c_int) -> Usage {
    // SAFETY: rusage is plain data; zeroed is valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: usage is a valid, writable rusage.
    unsafe { libc::getrusage(who, &raw mut usage) };
    let ns = |tv: libc::timeval| {
        u64::try_from(tv.tv_sec).unwrap_or(0) * 1_000_000_000
            + u64::try_from(tv.tv_usec).unwrap_or(0) * 1000
    };
    let count = |n: libc::c_long| u64::try_from(n).unwrap_or(0);
    Usage {
        usr_ns: ns(usage.ru_utime),
        sys_ns: ns(usage.ru_stime),
        ctx: count(usage.ru_nvcsw) + count(usage.ru_nivcsw),
        majf: count(usage.ru_majflt),
        minf: count(usage.ru_minflt),
    }
}

/// The slots of fio's depth tables (`FIO_IO_U_MAP_NR`).
pub const DEPTH_SLOTS: usize = 7;

/// fio's I/O depth distributions (io_u.c's `io_u_mark_depth`, `io_u_mark_submit`,
/// `io_u_mark_complete`), counted by the worker as it submits and reaps: plain counters, no
/// allocation, one add per call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IoDepths {
    /// I/Os by the depth at their submission (those in flight, themselves included): 1, 2 to
    /// 3, 4 to 7, 8 to 15, 16 to 31, 32 to 63, 64 up (fio's `io_u_map`).
    pub level: [u64; DEPTH_SLOTS],
    /// Submit calls by the I/Os each sent: 0, 1 to 4, 5 to 8, 9 to 16, 17 to 32, 33 to 64,
    /// over 64 (fio's `io_u_submit`).
    pub submit: [u64; DEPTH_SLOTS],
    /// Reap calls by the completions each took, slots as `submit` (fio's `io_u_complete`).
    pub complete: [u64; DEPTH_SLOTS],
}

impl IoDepths {
    /// One submit call that sent `sent` I/Os, `depth` then in flight with them.
    #[cfg(test)]
    pub fn submitted(&mut self, depth: usize, sent: usize) {
        self.level[depth_slot(depth)] += sent as u64;
        self.submit[batch_slot(sent)] += 1;
    }

    /// One reap call that took `reaped` completions.
    #[cfg(test)]
    pub fn reaped(&mut self, reaped: usize) {
        self.complete[batch_slot(reaped)] += 1;
    }

    pub fn add(&mut self, other: &Self) {
        for (mine, theirs) in [
            (&mut self.level, &other.level),
            (&mut self.submit, &other.submit),
            (&mut self.complete, &other.complete),
        ] {
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
    }

    /// Whether nothing was counted.
    #[cfg(test)]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Depths and per-call counts [`RawDepths`] keeps apart: 0 to 64, and 65 for all above (fio's
/// last slot of both tables starts above 64).
const RAW_DEPTHS: usize = 66;

/// [`IoDepths`] as the worker counts them per call: by the exact depth and number of I/Os
/// (all above 64 together), one add each with no logarithm, folded into fio's slots once
/// per tick ([`RawDepths::drain_into`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawDepths {
    level: [u64; RAW_DEPTHS],
    submit: [u64; RAW_DEPTHS],
    complete: [u64; RAW_DEPTHS],
}

impl Default for RawDepths {
    fn default() -> Self {
        Self {
            level: [0; RAW_DEPTHS],
            submit: [0; RAW_DEPTHS],
            complete: [0; RAW_DEPTHS],
        }
    }
}

impl RawDepths {
    /// [`IoDepths::submitted`], counted raw.
    #[inline(always)]
    pub fn submitted(&mut self, depth: usize, sent: usize) {
        self.level[depth.min(RAW_DEPTHS - 1)] += sent as u64;
        self.submit[sent.min(RAW_DEPTHS - 1)] += 1;
    }

    /// [`IoDepths::reaped`], counted raw.
    #[inline(always)]
    pub fn reaped(&mut self, reaped: usize) {
        self.complete[reaped.min(RAW_DEPTHS - 1)] += 1;
    }

    /// Adds what was counted to `into`, in fio's slots, and starts again from nothing.
    pub fn drain_into(&mut self, into: &mut IoDepths) {
        fold_raw(&mut self.level, &mut into.level, depth_slot);
        fold_raw(&mut self.submit, &mut into.submit, batch_slot);
        fold_raw(&mut self.complete, &mut into.complete, batch_slot);
    }
}

/// Moves the raw counts of one table into fio's slots (`slot_of` each count's place).
fn fold_raw(
    raw: &mut [u64; RAW_DEPTHS],
    slots: &mut [u64; DEPTH_SLOTS],
    slot_of: fn(usize) -> usize,
) {
    for (n, count) in raw.iter_mut().enumerate() {
        if *count != 0 {
            slots[slot_of(n)] += std::mem::take(count);
        }
    }
}

/// fio's `io_u_mark_depth` slot of `depth`: 0 for 1 (and 0), else log2, at most 6.
#[inline(always)]
#[must_use]
pub fn depth_slot(depth: usize) -> usize {
    let bits = usize::BITS - 1 - (depth | 1).leading_zeros();
    (bits as usize).min(DEPTH_SLOTS - 1)
}

/// fio's `__io_u_mark_map` slot of `n` I/Os per call: 0 for 0, 1 for 1 to 4, then one slot
/// per doubling (5 to 8, ..., 33 to 64), 6 above 64.
#[inline(always)]
#[must_use]
pub fn batch_slot(n: usize) -> usize {
    // 0 and 1 to 4 (every call at fio's default batching of 1) without the logarithm.
    if n <= 4 {
        return usize::from(n != 0);
    }
    // ceil(log2(n)) - 1: 5..=8 -> 2, 9..=16 -> 3, ..., at most 6.
    let ceil_log2 = (usize::BITS - (n - 1).leading_zeros()) as usize;
    ceil_log2.saturating_sub(1).clamp(1, DEPTH_SLOTS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_and_batch_slots_are_fio_s() {
        // io_u.c: io_u_mark_depth's `case 1`, `2 ... 3`, `4 ... 7`, ..., `32 ... 63`, default.
        let depth: Vec<usize> = [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 1000]
            .map(depth_slot)
            .to_vec();
        assert_eq!(depth, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
        // __io_u_mark_map: `0`, `1 ... 4`, `5 ... 8`, `9 ... 16`, `17 ... 32`, `33 ... 64`.
        let batch: Vec<usize> = [0, 1, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65, 4096]
            .map(batch_slot)
            .to_vec();
        assert_eq!(batch, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
    }

    #[test]
    fn io_depths_count_ios_by_depth_and_calls_by_size() {
        let mut a = IoDepths::default();
        a.submitted(1, 1);
        a.submitted(8, 3);
        a.reaped(2);
        a.reaped(0);
        let mut b = IoDepths::default();
        b.submitted(40, 33);
        b.reaped(9);
        a.add(&b);
        assert_eq!(a.level, [1, 0, 0, 3, 0, 33, 0]);
        assert_eq!(a.submit, [0, 2, 0, 0, 0, 1, 0]);
        assert_eq!(a.submit.iter().sum::<u64>(), 3);
        assert_eq!(a.complete, [1, 1, 0, 1, 0, 0, 0]);
        assert!(!a.is_empty());
        assert!(IoDepths::default().is_empty());
    }

    /// Counted raw and folded at the tick, the tables are those counted into fio's slots
    /// call by call, for depths and batches on both sides of every slot's bounds.
    #[test]
    fn raw_depths_fold_into_fio_s_slots() {
        let mut direct = IoDepths::default();
        let mut raw = RawDepths::default();
        let mut folded = IoDepths::default();
        let sizes = [
            0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33, 63, 64, 65, 66, 200, 4096,
        ];
        for (round, &depth) in sizes.iter().enumerate() {
            for &sent in &sizes[..=round] {
                direct.submitted(depth, sent);
                raw.submitted(depth, sent);
                direct.reaped(sent);
                raw.reaped(sent);
            }
            if round % 7 == 6 {
                raw.drain_into(&mut folded);
                assert_eq!(raw, RawDepths::default());
            }
        }
        raw.drain_into(&mut folded);
        assert_eq!(folded, direct);
        assert!(folded.level[6] > 0 && folded.submit[6] > 0 && folded.complete[0] > 0);
    }

    #[test]
    fn worker_stats_merge_and_reset() {
        let mut a = WorkerStats::new(0);
        a.reset(100);
        a.read.record(4096, 1_000);
        a.end_ns = 200;
        let mut b = WorkerStats::new(1);
        b.reset(150);
        b.write.record(512, 3_000);
        b.end_ns = 300;
        a.add(&b);
        assert_eq!((a.start_ns, a.end_ns), (100, 300));
        assert_eq!((a.read.ios, a.write.ios, a.write.bytes), (1, 1, 512));
        a.reset(400);
        assert_eq!((a.ios(), a.start_ns), (0, 400));
        assert!(monotonic_ns() > 0);
    }

    /// A report folded into an interval and a clone's total at once leaves each as folding it
    /// into each alone does: counters, times, errors and both histograms of a paced direction.
    #[test]
    fn one_fold_into_two_is_two_folds() {
        let stats = |worker, start_ns, latencies: &[u64]| {
            let mut s = WorkerStats::paced(worker, true, false);
            s.reset(start_ns);
            for &ns in latencies {
                s.read.record_paced(4096, ns, ns + 10_000);
                s.write.record(512, ns * 3);
            }
            s.sync.record(0, 700);
            s.end_ns = start_ns + 1_000;
            s
        };
        let mut report = stats(5, 50, &[60, 61, 9_000, 4_000_000]);
        report.retries = 2;
        report.errors = 1;
        report.failed = [1, 0, 0];
        report.first_error = libc::EIO;
        let (mut interval, mut clone) = (WorkerStats::new(0), stats(5, 10, &[100, 200]));
        let (mut interval_alone, mut clone_alone) = (interval.clone(), clone.clone());
        report.add_into(&mut interval, Some(&mut clone));
        interval_alone.add(&report);
        clone_alone.add(&report);
        for (got, want) in [(&interval, &interval_alone), (&clone, &clone_alone)] {
            assert_eq!(
                (got.start_ns, got.end_ns, got.retries, got.errors),
                (want.start_ns, want.end_ns, want.retries, want.errors)
            );
            assert_eq!(
                (got.failed, got.first_error),
                (want.failed, want.first_error)
            );
            for (g, w) in [
                (&got.read, &want.read),
                (&got.write, &want.write),
                (&got.sync, &want.sync),
                (&got.trim, &want.trim),
            ] {
                assert_eq!((g.ios, g.bytes), (w.ios, w.bytes));
                assert_eq!(g.latency.fine_buckets(), w.latency.fine_buckets());
                assert_eq!(g.latency.summary(), w.latency.summary());
                assert_eq!(
                    g.sched.as_ref().map(LatencyHistogram::summary),
                    w.sched.as_ref().map(LatencyHistogram::summary)
                );
            }
        }
        assert_eq!((interval.start_ns, clone.start_ns), (50, 10));
        assert_eq!(clone.read.ios, 6);
        assert!(interval.read.sched.is_some());
    }

    #[test]
    fn cleared_stats_are_as_new() {
        let mut stats = WorkerStats::paced(3, true, false);
        stats.reset(100);
        stats.read.record_paced(4096, 50_000, 70_000);
        stats.write.record(4096, 2_000_000);
        stats.sync.record(0, 900);
        stats.retries = 2;
        stats.last = true;
        stats.clear();
        let new = WorkerStats::new(0);
        assert_eq!(
            (
                stats.worker,
                stats.start_ns,
                stats.end_ns,
                stats.retries,
                stats.last
            ),
            (new.worker, new.start_ns, new.end_ns, new.retries, new.last)
        );
        for (cleared, new) in [
            (&stats.read, &new.read),
            (&stats.write, &new.write),
            (&stats.sync, &new.sync),
            (&stats.trim, &new.trim),
        ] {
            assert_eq!((cleared.ios, cleared.bytes), (new.ios, new.bytes));
            assert_eq!(cleared.latency.summary(), new.latency.summary());
            assert!(cleared.latency.fine_buckets().is_empty());
            assert!(cleared.sched.is_none());
        }
        // Recording into it again gives what recording into new stats gives.
        let (mut again, mut fresh) = (stats, WorkerStats::new(0));
        for s in [&mut again, &mut fresh] {
            s.write.record(512, 1_500);
        }
        assert_eq!(again.write.latency.summary(), fresh.write.latency.summary());
        assert_eq!(
            again.write.latency.fine_buckets(),
            fresh.write.latency.fine_buckets()
        );
    }
}
