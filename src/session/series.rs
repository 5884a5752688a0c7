//! A step's per-interval series for the record, in bounded memory: every point is a plain
//! struct in a vector allocated (and touched) once, plus each direction's sparse latency
//! histogram, at most `stats::MAX_INTERVAL_BUCKETS` buckets, whose vectors are reused in place
//! (at most 1024 points x 4 directions x 256 buckets x 16 bytes = 16 MiB, a few KiB in
//! practice). Past the cap (`MAX_POINTS` points) neighbouring points merge pairwise and the
//! stride (intervals per point) doubles: nothing is dropped. A merged point keeps the sums
//! (bytes, I/Os), the rates over its whole span, the latency's count, min, max, mean, stddev
//! and histogram (its percentiles read off the merged histogram), the device's row over its
//! span, and the lowest and highest per-interval rates and durations, so a stall in hour five
//! still shows as a dip and a long interval.

use crate::monitor::iostat::IostatRow;
use crate::record::{
    DirectionRecord, FORMAT_VERSION, HistogramRecord, INTERVAL_FORMAT, IntervalRecord,
    LatencyRecord, MergedRecord, Percentiles, RateRangeRecord, SyncRecord,
};
use crate::stats::{
    FINE_SUB_BUCKET_BITS, FIO_PERCENTILES, LatencyBucket, MAX_INTERVAL_BUCKETS,
    bucket_percentile_ns, coarsen, merge_buckets,
};

/// Points kept per step before neighbouring points merge.
pub const MAX_POINTS: usize = 1024;

/// Sets a smaller cap than [`MAX_POINTS`] (at least 2): tests pass it in a short run.
pub const CAP_ENV: &str = "DISKDASH_SERIES_CAP";

/// The cap: [`MAX_POINTS`], or a smaller one from [`CAP_ENV`].
fn cap() -> usize {
    std::env::var(CAP_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .map_or(MAX_POINTS, |cap| cap.clamp(2, MAX_POINTS))
}

#[derive(Debug, Clone, Default)]
struct DirPoint {
    io_bytes: u64,
    bw_bytes: u64,
    iops: f64,
    runtime_ms: u64,
    total_ios: u64,
    min: u64,
    max: u64,
    mean: f64,
    stddev: f64,
    n: u64,
    /// `None` once merged without histograms to read them off (a paced direction's
    /// latency from the schedule has none): the record then lists none.
    percentiles: Option<[u64; FIO_PERCENTILES.len()]>,
    /// A paced direction's latency from the schedule.
    sched: Option<Box<DirPoint>>,
}

impl DirPoint {
    fn from_latency(lat: &LatencyRecord) -> Self {
        let mut percentiles = [0; FIO_PERCENTILES.len()];
        for (slot, (_, ns)) in percentiles.iter_mut().zip(&lat.percentile.0) {
            *slot = *ns;
        }
        Self {
            min: lat.min,
            max: lat.max,
            mean: lat.mean,
            stddev: lat.stddev,
            n: lat.n,
            percentiles: Some(percentiles),
            ..Self::default()
        }
    }

    fn from_direction(d: &DirectionRecord) -> Self {
        Self {
            io_bytes: d.io_bytes,
            bw_bytes: d.bw_bytes,
            iops: d.iops,
            runtime_ms: d.runtime,
            total_ios: d.total_ios,
            sched: d
                .lat_sched_ns
                .as_ref()
                .map(|lat| Box::new(Self::from_latency(lat))),
            ..Self::from_latency(&d.lat_ns)
        }
    }

    fn latency(&self) -> LatencyRecord {
        LatencyRecord {
            min: self.min,
            max: self.max,
            mean: self.mean,
            stddev: self.stddev,
            n: self.n,
            percentile: Percentiles(match self.percentiles {
                Some(percentiles) if self.n > 0 => {
                    FIO_PERCENTILES.iter().copied().zip(percentiles).collect()
                }
                _ => Vec::new(),
            }),
            histogram: None,
        }
    }

    fn direction(&self) -> DirectionRecord {
        DirectionRecord {
            io_bytes: self.io_bytes,
            io_kbytes: self.io_bytes / 1024,
            bw_bytes: self.bw_bytes,
            bw: self.bw_bytes / 1024,
            iops: self.iops,
            runtime: self.runtime_ms,
            total_ios: self.total_ios,
            lat_ns: self.latency(),
            lat_sched_ns: self.sched.as_ref().map(|sched| sched.latency()),
            slat_ns: None,
            clat_ns: None,
            runtime_ns: None,
        }
    }

    /// Takes in the counts and rates of `other`, the next interval(s), over `duration_ns` (the
    /// span of both).
    fn absorb_counts(&mut self, other: &Self, duration_ns: u64) {
        self.io_bytes += other.io_bytes;
        self.total_ios += other.total_ios;
        let seconds = duration_ns as f64 / 1e9;
        if seconds > 0.0 {
            self.bw_bytes = (self.io_bytes as f64 / seconds).round() as u64;
            self.iops = self.total_ios as f64 / seconds;
        }
        self.runtime_ms = duration_ns / 1_000_000;
        let Some(theirs) = &other.sched else {
            return;
        };
        match &mut self.sched {
            Some(mine) => {
                let both = mine.n > 0 && theirs.n > 0;
                mine.absorb_latency(theirs);
                if both {
                    mine.percentiles = None;
                }
            }
            None => self.sched = Some(theirs.clone()),
        }
    }

    /// Takes in the latency summary of `other` exactly (count, min, max, mean and the
    /// population stddev combine from the parts); the percentiles are left to the caller,
    /// which has the histograms.
    fn absorb_latency(&mut self, other: &Self) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            self.min = other.min;
            self.max = other.max;
            self.mean = other.mean;
            self.stddev = other.stddev;
            self.n = other.n;
            self.percentiles = other.percentiles;
            return;
        }
        let (na, nb) = (self.n as f64, other.n as f64);
        let n = na + nb;
        let mean = (na * self.mean + nb * other.mean) / n;
        let variance = (na * (self.stddev.powi(2) + (self.mean - mean).powi(2))
            + nb * (other.stddev.powi(2) + (other.mean - mean).powi(2)))
            / n;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.mean = mean;
        self.stddev = variance.sqrt();
        self.n += other.n;
    }
}

/// `a` and `b` (sparse, ascending; `None` for no I/O) as one histogram within
/// [`MAX_INTERVAL_BUCKETS`] buckets, at the coarser resolution of the two (coarser still when
/// the union would hold more buckets): exact, as each finer bucket lies in one coarser.
fn merge_histograms(a: &HistogramRecord, b: &HistogramRecord) -> HistogramRecord {
    let bits_of = |h: &HistogramRecord| h.sub_bucket_bits.unwrap_or(FINE_SUB_BUCKET_BITS);
    let mut bits = bits_of(a).min(bits_of(b));
    let at = |h: &HistogramRecord| {
        let buckets: Vec<LatencyBucket> = h.buckets().collect();
        if bits_of(h) > bits {
            coarsen(&buckets, bits)
        } else {
            buckets
        }
    };
    let mut merged = at(a);
    merge_buckets(&mut merged, &at(b));
    while merged.len() > MAX_INTERVAL_BUCKETS && bits > 0 {
        bits -= 1;
        merged = coarsen(&merged, bits);
    }
    HistogramRecord::from_buckets(&merged, bits)
}

#[derive(Debug, Clone, Default)]
struct Point {
    /// The first interval's index.
    index: u64,
    /// The end of the last interval.
    t_ns: u64,
    /// The intervals' durations summed: the point's span.
    duration_ns: u64,
    /// Intervals merged into this point (1 for one interval).
    intervals: u64,
    /// The part of the span the process did not run, summed.
    stalled_ns: u64,
    shortest_ns: u64,
    longest_ns: u64,
    /// Read, write and trim rates: the lowest and highest of the intervals.
    ranges: [RateRangeRecord; 3],
    read: DirPoint,
    write: DirPoint,
    sync: DirPoint,
    trim: DirPoint,
    /// Read, write, sync and trim latency over the interval (bounded, sparse).
    histograms: [Option<HistogramRecord>; 4],
    device: Option<IostatRow>,
}

impl Point {
    /// Overwrites this point with one interval, reusing its vectors.
    fn fill(&mut self, record: &IntervalRecord, device: Option<&IostatRow>) {
        self.index = record.index;
        self.t_ns = record.t_ns;
        self.duration_ns = record.duration_ns;
        self.intervals = 1;
        self.stalled_ns = record.stalled_ns;
        self.shortest_ns = record.duration_ns;
        self.longest_ns = record.duration_ns;
        self.ranges = [
            RateRangeRecord::of(&record.read),
            RateRangeRecord::of(&record.write),
            RateRangeRecord::of(&record.trim),
        ];
        self.read = DirPoint::from_direction(&record.read);
        self.write = DirPoint::from_direction(&record.write);
        self.sync = DirPoint {
            total_ios: record.sync.total_ios,
            ..DirPoint::from_latency(&record.sync.lat_ns)
        };
        self.trim = DirPoint::from_direction(&record.trim);
        let latencies = [
            &record.read.lat_ns,
            &record.write.lat_ns,
            &record.sync.lat_ns,
            &record.trim.lat_ns,
        ];
        for (slot, lat) in self.histograms.iter_mut().zip(latencies) {
            match (slot, &lat.histogram) {
                (Some(kept), Some(histogram)) => kept.clone_from(histogram),
                (slot, histogram) => slot.clone_from(histogram),
            }
        }
        match (&mut self.device, device) {
            (Some(kept), Some(row)) => kept.clone_from(row),
            (slot, row) => *slot = row.cloned(),
        }
    }

    /// Merges `next`, the point just after this one, into this one.
    fn absorb(&mut self, next: &Self) {
        let (own_ns, next_ns) = (self.duration_ns, next.duration_ns);
        self.t_ns = next.t_ns;
        self.duration_ns += next.duration_ns;
        self.intervals += next.intervals;
        self.stalled_ns += next.stalled_ns;
        self.shortest_ns = self.shortest_ns.min(next.shortest_ns);
        self.longest_ns = self.longest_ns.max(next.longest_ns);
        for (mine, theirs) in self.ranges.iter_mut().zip(&next.ranges) {
            mine.widen(theirs);
        }
        let span = self.duration_ns;
        let dirs = [
            (&mut self.read, &next.read),
            (&mut self.write, &next.write),
            (&mut self.sync, &next.sync),
            (&mut self.trim, &next.trim),
        ];
        for (((mine, theirs), own), other) in dirs
            .into_iter()
            .zip(&mut self.histograms)
            .zip(&next.histograms)
        {
            let own_ios = mine.n;
            mine.absorb_counts(theirs, span);
            mine.absorb_latency(theirs);
            if theirs.n == 0 {
                continue;
            }
            if own_ios == 0 {
                own.clone_from(other);
                continue;
            }
            if let (Some(kept), Some(other)) = (own.as_mut(), other) {
                *kept = merge_histograms(kept, other);
            } else {
                // A part with I/O but no histogram: no exact merge, no percentiles.
                *own = None;
            }
            mine.percentiles = own.as_ref().map(|histogram| {
                let buckets: Vec<LatencyBucket> = histogram.buckets().collect();
                let mut out = [0; FIO_PERCENTILES.len()];
                for (slot, pct) in out.iter_mut().zip(FIO_PERCENTILES) {
                    *slot = bucket_percentile_ns(&buckets, pct).clamp(mine.min, mine.max);
                }
                out
            });
        }
        self.device = match (self.device.take(), &next.device) {
            (Some(mut row), Some(other)) => {
                merge_rows(&mut row, own_ns, other, next_ns);
                Some(row)
            }
            _ => None,
        };
    }

    fn record(&self, step: u32) -> IntervalRecord {
        let mut record = IntervalRecord {
            format: INTERVAL_FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            step,
            index: self.index,
            t_ns: self.t_ns,
            duration_ns: self.duration_ns,
            stalled_ns: self.stalled_ns,
            read: self.read.direction(),
            write: self.write.direction(),
            sync: SyncRecord {
                total_ios: self.sync.total_ios,
                lat_ns: self.sync.latency(),
            },
            trim: self.trim.direction(),
            device: self.device.clone(),
            jobs: Vec::new(),
            merged: (self.intervals > 1).then(|| MergedRecord {
                intervals: self.intervals,
                shortest_ns: self.shortest_ns,
                longest_ns: self.longest_ns,
                read: self.ranges[0],
                write: self.ranges[1],
                trim: self.ranges[2],
            }),
        };
        let [read, write, sync, trim] = &self.histograms;
        record.read.lat_ns.histogram.clone_from(read);
        record.write.lat_ns.histogram.clone_from(write);
        record.sync.lat_ns.histogram.clone_from(sync);
        record.trim.lat_ns.histogram.clone_from(trim);
        record
    }
}

/// `a` (over `a_ns`) and `b` (over the next `b_ns`) as one `iostat -x` row over both: rates,
/// `%util` and `aqu-sz` are time averages (weighted by time), awaits and request sizes are per
/// request (weighted by requests), the merged shares follow from the merged rates.
fn merge_rows(a: &mut IostatRow, a_ns: u64, b: &IostatRow, b_ns: u64) {
    let (ta, tb) = (a_ns as f64, b_ns as f64);
    let total = ta + tb;
    if total <= 0.0 {
        return;
    }
    let by_requests = |value: f64, rate: f64, other_value: f64, other_rate: f64| {
        let (na, nb) = (rate * ta, other_rate * tb);
        if na + nb > 0.0 {
            (value * na + other_value * nb) / (na + nb)
        } else {
            0.0
        }
    };
    a.read_await_ms = by_requests(
        a.read_await_ms,
        a.reads_per_s,
        b.read_await_ms,
        b.reads_per_s,
    );
    a.write_await_ms = by_requests(
        a.write_await_ms,
        a.writes_per_s,
        b.write_await_ms,
        b.writes_per_s,
    );
    a.discard_await_ms = by_requests(
        a.discard_await_ms,
        a.discards_per_s,
        b.discard_await_ms,
        b.discards_per_s,
    );
    a.flush_await_ms = by_requests(
        a.flush_await_ms,
        a.flushes_per_s,
        b.flush_await_ms,
        b.flushes_per_s,
    );
    a.read_request_kb = by_requests(
        a.read_request_kb,
        a.reads_per_s,
        b.read_request_kb,
        b.reads_per_s,
    );
    a.write_request_kb = by_requests(
        a.write_request_kb,
        a.writes_per_s,
        b.write_request_kb,
        b.writes_per_s,
    );
    a.discard_request_kb = by_requests(
        a.discard_request_kb,
        a.discards_per_s,
        b.discard_request_kb,
        b.discards_per_s,
    );
    let by_time = |x: &mut f64, y: f64| *x = (*x * ta + y * tb) / total;
    by_time(&mut a.reads_per_s, b.reads_per_s);
    by_time(&mut a.writes_per_s, b.writes_per_s);
    by_time(&mut a.discards_per_s, b.discards_per_s);
    by_time(&mut a.flushes_per_s, b.flushes_per_s);
    by_time(&mut a.read_kb_per_s, b.read_kb_per_s);
    by_time(&mut a.write_kb_per_s, b.write_kb_per_s);
    by_time(&mut a.discard_kb_per_s, b.discard_kb_per_s);
    by_time(&mut a.read_merges_per_s, b.read_merges_per_s);
    by_time(&mut a.write_merges_per_s, b.write_merges_per_s);
    by_time(&mut a.discard_merges_per_s, b.discard_merges_per_s);
    by_time(&mut a.queue_size, b.queue_size);
    by_time(&mut a.util_pct, b.util_pct);
    let share = |merges: f64, ios: f64| {
        if merges + ios > 0.0 {
            merges * 100.0 / (merges + ios)
        } else {
            0.0
        }
    };
    a.read_merged_pct = share(a.read_merges_per_s, a.reads_per_s);
    a.write_merged_pct = share(a.write_merges_per_s, a.writes_per_s);
    a.discard_merged_pct = share(a.discard_merges_per_s, a.discards_per_s);
    a.in_flight = b.in_flight;
    a.counters_wrapped |= b.counters_wrapped;
}

/// The series of one step, merged past its cap.
#[derive(Clone)]
pub struct RecordSeries {
    points: Vec<Point>,
    len: usize,
    /// Intervals per full point.
    stride: u64,
    /// The next interval, filled in place before it joins the series.
    incoming: Point,
}

impl RecordSeries {
    #[must_use]
    pub fn new() -> Self {
        Self::with_cap(cap())
    }

    fn with_cap(cap: usize) -> Self {
        Self {
            points: vec![Point::default(); cap.max(2)],
            len: 0,
            stride: 1,
            incoming: Point::default(),
        }
    }

    /// Adds `record` (one interval): into the last point while that holds fewer than
    /// `stride` intervals, else as a new point; at the cap, neighbouring points merge first.
    pub fn push(&mut self, record: &IntervalRecord, device: Option<&IostatRow>) {
        self.incoming.fill(record, device);
        if self.last_open() {
            self.points[self.len - 1].absorb(&self.incoming);
            return;
        }
        if self.len == self.points.len() {
            self.halve();
            if self.last_open() {
                self.points[self.len - 1].absorb(&self.incoming);
                return;
            }
        }
        std::mem::swap(&mut self.points[self.len], &mut self.incoming);
        self.len += 1;
    }

    /// Whether the last point takes more intervals.
    fn last_open(&self) -> bool {
        self.len > 0 && self.points[self.len - 1].intervals < self.stride
    }

    /// Merges points 2k and 2k+1 into point k and doubles the stride.
    fn halve(&mut self) {
        let pairs = self.len / 2;
        for k in 0..pairs {
            self.points.swap(k, 2 * k);
            let next = std::mem::take(&mut self.points[2 * k + 1]);
            self.points[k].absorb(&next);
            // Its vectors stay in the pool for later points.
            self.points[2 * k + 1] = next;
        }
        if self.len % 2 == 1 {
            self.points.swap(pairs, self.len - 1);
        }
        self.len = pairs + self.len % 2;
        self.stride *= 2;
    }

    /// Intervals per full point.
    #[must_use]
    pub fn stride(&self) -> u32 {
        u32::try_from(self.stride).unwrap_or(u32::MAX)
    }

    /// The points as records: one interval each, or merged.
    #[must_use]
    pub fn records(&self, step: u32) -> Vec<IntervalRecord> {
        self.points[..self.len]
            .iter()
            .map(|p| p.record(step))
            .collect()
    }
}

impl Default for RecordSeries {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::DirectionStats;

    /// Interval `index`: 1 s of `ios` 4 KiB reads at 1 us + index ns each (and then `slow`).
    fn interval_with(index: u64, ios: u64, slow: &[u64]) -> (DirectionStats, IntervalRecord) {
        let mut stats = DirectionStats::new();
        for _ in 0..ios {
            stats.record(4096, 1000 + index);
        }
        for &ns in slow {
            stats.record(4096, ns);
        }
        let record = crate::stats::fixture::read_interval(0, index, &stats);
        (stats, record)
    }

    fn interval(index: u64) -> IntervalRecord {
        interval_with(index, 1, &[]).1
    }

    #[test]
    fn one_interval_round_trips() {
        let mut series = RecordSeries::with_cap(MAX_POINTS);
        series.push(&interval(0), None);
        let back = series.records(3);
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].read, interval(0).read);
        assert_eq!(back[0].step, 3);
        assert_eq!(back[0].merged, None);
        assert_eq!(series.stride(), 1);
    }

    #[test]
    fn past_the_cap_neighbours_merge_and_nothing_is_dropped() {
        let mut series = RecordSeries::with_cap(8);
        let n = 37u64;
        let mut ios = 0;
        for i in 0..n {
            let (_, record) = interval_with(i, i + 1, &[]);
            ios += i + 1;
            series.push(&record, None);
        }
        let kept = series.records(0);
        // 37 intervals in at most 8 points: 8 per point (the last holds the 5 left).
        assert_eq!(series.stride(), 8);
        assert_eq!(kept.len(), 5);
        assert_eq!(kept.iter().map(|p| p.read.total_ios).sum::<u64>(), ios);
        // Contiguous: each point starts where the last ended, the spans add up.
        let mut next = 0;
        for p in &kept {
            assert_eq!(p.index, next);
            let merged = p.merged.as_ref().unwrap();
            next += merged.intervals;
            assert_eq!(p.duration_ns, merged.intervals * 1_000_000_000);
            assert_eq!(p.t_ns, next * 1_000_000_000);
            // The rate over the whole span, between the intervals' lowest and highest.
            let iops = p.read.total_ios as f64 / (p.duration_ns as f64 / 1e9);
            assert!((p.read.iops - iops).abs() < 1e-9);
            assert!(merged.read.min_iops <= iops && iops <= merged.read.max_iops);
        }
        assert_eq!(next, n);
        assert_eq!(kept[0].merged.as_ref().unwrap().read.min_iops, 1.0);
        assert_eq!(kept[0].merged.as_ref().unwrap().read.max_iops, 8.0);
    }

    #[test]
    fn a_stall_stays_visible_in_the_merged_point() {
        let mut series = RecordSeries::with_cap(4);
        for i in 0..64 {
            let (_, mut record) = interval_with(i, if i == 41 { 0 } else { 100 }, &[]);
            if i == 41 {
                // The process did not run: one long interval without I/O.
                record.duration_ns = 5_000_000_000;
                record.stalled_ns = 4_000_000_000;
            }
            series.push(&record, None);
        }
        let kept = series.records(0);
        assert_eq!(series.stride(), 16);
        let holding = kept
            .iter()
            .find(|p| (p.index..p.index + 16).contains(&41))
            .unwrap();
        let merged = holding.merged.as_ref().unwrap();
        assert_eq!(merged.read.min_iops, 0.0);
        assert_eq!(merged.read.max_iops, 100.0);
        assert_eq!(merged.longest_ns, 5_000_000_000);
        assert_eq!(merged.shortest_ns, 1_000_000_000);
        assert_eq!(holding.duration_ns, 20_000_000_000);
        assert_eq!(holding.stalled_ns, 4_000_000_000);
        // The other points did not stall.
        for p in kept.iter().filter(|p| p.index != holding.index) {
            assert_eq!(p.stalled_ns, 0);
            assert_eq!(p.merged.as_ref().unwrap().longest_ns, 1_000_000_000);
            assert_eq!(p.merged.as_ref().unwrap().read.min_iops, 100.0);
        }
    }

    #[test]
    fn merged_latency_is_that_of_the_union() {
        let mut series = RecordSeries::with_cap(2);
        let mut union = DirectionStats::new();
        // Interval 0: fast; 1: with slow outliers; the third makes the first two one point.
        for (i, slow) in [(0, vec![]), (1, vec![5_000_000, 7_000_000]), (2, vec![])] {
            let (stats, record) = interval_with(i, 200, &slow);
            if i < 2 {
                union.add(&stats);
            }
            series.push(&record, None);
        }
        let kept = series.records(0);
        assert_eq!(kept.len(), 2);
        let lat = &kept[0].read.lat_ns;
        let want = union.latency.summary();
        assert_eq!(lat.n, want.count);
        assert_eq!(lat.min, want.min_ns);
        assert_eq!(lat.max, want.max_ns);
        assert!((lat.mean - want.mean_ns).abs() < 1e-6 * want.mean_ns);
        assert!((lat.stddev - want.stddev_ns).abs() < 1e-6 * want.stddev_ns);
        let histogram = lat.histogram.as_ref().unwrap();
        assert_eq!(histogram, &HistogramRecord::of(&union));
        let buckets: Vec<LatencyBucket> = histogram.buckets().collect();
        for pct in [50.0, 99.0, 99.9] {
            assert_eq!(
                lat.percentile_ns(pct),
                Some(bucket_percentile_ns(&buckets, pct).clamp(want.min_ns, want.max_ns)),
                "p{pct}"
            );
        }
        // The outliers are the tail, not averaged away.
        assert!(lat.percentile_ns(99.9).unwrap() >= 5_000_000);
        assert_eq!(kept[0].merged.as_ref().unwrap().intervals, 2);
        assert_eq!(kept[1].merged, None);
    }

    #[test]
    fn histograms_of_different_resolutions_merge_within_the_bound() {
        let bucket = |le_ns: u64, bits| LatencyBucket {
            le_ns: crate::stats::fine_bucket_le_ns(le_ns, bits),
            count: 1,
        };
        let wide: Vec<LatencyBucket> = (0..200).map(|i| bucket(10_000 + i * 97, 7)).collect();
        let other: Vec<LatencyBucket> = (0..200).map(|i| bucket(40_000 + i * 397, 6)).collect();
        let a = HistogramRecord::from_buckets(&wide, 7);
        let b = HistogramRecord::from_buckets(&crate::stats::coarsen(&other, 6), 6);
        let merged = merge_histograms(&a, &b);
        assert!(merged.le_ns.len() <= MAX_INTERVAL_BUCKETS);
        assert!(merged.sub_bucket_bits.unwrap() <= 6);
        assert_eq!(merged.count.iter().sum::<u64>(), 400);
    }

    #[test]
    fn device_rows_merge_by_time_and_by_request() {
        let row = |reads: f64, await_ms: f64, util: f64| IostatRow {
            reads_per_s: reads,
            read_kb_per_s: reads * 4.0,
            read_await_ms: await_ms,
            read_request_kb: 4.0,
            util_pct: util,
            ..IostatRow::idle("vda")
        };
        // 1 s at 100 r/s of 1 ms, then 3 s at 300 r/s of 3 ms.
        let mut a = row(100.0, 1.0, 10.0);
        merge_rows(&mut a, 1_000_000_000, &row(300.0, 3.0, 50.0), 3_000_000_000);
        assert!((a.reads_per_s - 250.0).abs() < 1e-9);
        assert!((a.read_kb_per_s - 1000.0).abs() < 1e-9);
        assert!((a.util_pct - 40.0).abs() < 1e-9);
        // 100 reads of 1 ms and 900 of 3 ms.
        assert!((a.read_await_ms - 2.8).abs() < 1e-9);
        assert!((a.read_request_kb - 4.0).abs() < 1e-9);
    }
}
