//! The latency histogram: hdrhistogram's layout (1 ns to 100 s, 3 significant digits, so 0.1%
//! resolution: 2048 exact counters below 2048 ns, then 1024 per power of two), kept in a fixed
//! array that never grows, so recording and merging never allocate. It tracks the lowest and
//! highest counter in use, so merging, summarizing, listing and clearing cost the range of
//! latencies seen, not the whole array: the session does them for every report and interval.
//! Its values are hdrhistogram's to the bit (unit tests compare the two).

/// Highest trackable latency; slower I/Os are clamped to it (and still counted).
pub const MAX_TRACKED_NS: u64 = 100_000_000_000;

/// fio's default percentile list (`percentile_list`), in percent.
pub const FIO_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// Counters per power of two above the first 2048 ns (3 significant digits).
const HALF_BITS: u32 = 10;
/// Values below `2^(HALF_BITS + 1)` have a counter each.
const EXACT_MASK: u64 = (1 << (HALF_BITS + 1)) - 1;
/// Powers of two after the exact range up to [`MAX_TRACKED_NS`] (2^37 > 10^11 >= 2^36).
const BUCKETS: usize = 27;
/// Counters in all: the exact range (2048) and 1024 for each of the other 26 powers of two.
const COUNTERS: usize = (BUCKETS + 1) << HALF_BITS;
/// Counters a merge tests for counts at once (a 64-byte cache line's worth).
const MERGE_CHUNK: usize = 8;

/// Memory of one [`LatencyHistogram`]'s counters: 1024 sub-buckets per power of two (2048
/// below the first), 27 of them up to [`MAX_TRACKED_NS`], a u64 each: 28 x 1024 x 8 bytes.
pub const HISTOGRAM_BYTES: u64 = COUNTERS as u64 * 8;

/// The power of two (0: the exact range below 2048) that holds `value`.
#[inline]
fn bucket_of(value: u64) -> u32 {
    (u64::BITS - 1 - HALF_BITS) - (value | EXACT_MASK).leading_zeros()
}

/// The counter of `value` (may be past the array for values over the tracked range).
#[inline]
fn index_of(value: u64) -> usize {
    let bucket = bucket_of(value);
    ((bucket as usize) << HALF_BITS) + (value >> bucket) as usize
}

/// The counters of power of two `bucket` (0: the exact range): `from..to`.
#[inline]
fn bucket_span(bucket: u32) -> (usize, usize) {
    let bucket = bucket as usize;
    if bucket == 0 {
        (0, 2 << HALF_BITS)
    } else {
        ((bucket + 1) << HALF_BITS, (bucket + 2) << HALF_BITS)
    }
}

/// The power of two of counter `index`.
#[inline]
fn bucket_of_index(index: usize) -> u32 {
    u32::try_from(index >> HALF_BITS)
        .unwrap_or(u32::MAX)
        .saturating_sub(1)
}

/// The lowest value counted at `index`.
#[inline]
fn lowest_of(index: usize) -> u64 {
    let bucket = bucket_of_index(index);
    let sub = (index - ((bucket as usize) << HALF_BITS)) as u64;
    sub << bucket
}

/// The highest value counted at `index` (hdrhistogram's `highest_equivalent`).
#[inline]
fn highest_of(index: usize) -> u64 {
    (lowest_of(index) + (1u64 << bucket_of_index(index))) - 1
}

/// The middle of the values counted at `index`, rounded up (hdrhistogram's
/// `median_equivalent`).
#[inline]
fn median_of(index: usize) -> u64 {
    lowest_of(index) + ((1u64 << bucket_of_index(index)) >> 1)
}

/// A latency histogram in nanoseconds.
#[derive(Clone)]
pub struct LatencyHistogram {
    /// A fixed array, so the recording index needs no bounds check past its clamp.
    counts: Box<[u64; COUNTERS]>,
    total: u64,
    /// Lowest and highest counter in use; `low > high` when empty.
    low: usize,
    high: usize,
    /// The powers of two (bit `b`: [`bucket_of`] `b`) counted into by
    /// [`LatencyHistogram::record_unsettled`] since the last [`LatencyHistogram::settle`]:
    /// `low` and `high` leave them out until then. 0: settled.
    pending: u64,
}

impl std::fmt::Debug for LatencyHistogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LatencyHistogram")
            .field("total", &self.total)
            .field("used", &self.range())
            .field("pending", &self.pending)
            .finish()
    }
}

impl LatencyHistogram {
    #[must_use]
    pub fn new() -> Self {
        let mut counts: Box<[u64; COUNTERS]> = vec![0u64; COUNTERS]
            .into_boxed_slice()
            .try_into()
            .expect("the vector has COUNTERS counters");
        // Write every counter once now so the pages are resident from the start: RSS stays
        // flat instead of creeping up as rare latencies touch new pages.
        std::hint::black_box(&mut counts[..]).fill(0);
        Self {
            counts,
            total: 0,
            low: COUNTERS,
            high: 0,
            pending: 0,
        }
    }

    /// The counters in use, and the index of the first.
    #[inline]
    fn used(&self) -> (usize, &[u64]) {
        self.check_settled();
        self.range()
    }

    /// [`Self::used`], settled or not (for `Debug`).
    #[inline]
    fn range(&self) -> (usize, &[u64]) {
        if self.low > self.high {
            (0, &[])
        } else {
            (self.low, &self.counts[self.low..=self.high])
        }
    }

    #[inline]
    pub fn record(&mut self, latency_ns: u64) {
        let mut index = index_of(latency_ns.max(1));
        if index >= COUNTERS {
            index = index_of(MAX_TRACKED_NS);
        }
        // One at a time, a u64 cannot overflow (2^64 I/Os): plain adds.
        self.counts[index] += 1;
        self.total += 1;
        self.low = self.low.min(index);
        self.high = self.high.max(index);
    }

    /// [`Self::record`] for the worker's hot path: the count, the total and the power of two
    /// it falls in, not the range in use (a compare and a store less for each end, on each
    /// of an I/O's three records). Until [`Self::settle`] the range leaves these counts out:
    /// read, merge or summarize the histogram only after it (debug builds check).
    #[inline]
    pub fn record_unsettled(&mut self, latency_ns: u64) {
        // No `max(1)`: a 0 lands on counter 0, which `record` never uses; `settle` moves it
        // to counter 1, where `record` counts a 0.
        let bucket = bucket_of(latency_ns);
        let mut index = ((bucket as usize) << HALF_BITS) + (latency_ns >> bucket) as usize;
        if index >= COUNTERS {
            index = index_of(MAX_TRACKED_NS);
        }
        self.counts[index] += 1;
        self.total += 1;
        // `bucket` is at most 53 (past the tracked range: those count in the last one, which
        // `settle` reads such a bit as).
        self.pending |= 1 << bucket;
    }

    /// Takes the counts of [`Self::record_unsettled`] into the range in use, a scan of the
    /// lowest and of the highest power of two they fell in (at most 2,048 counters each):
    /// the histogram then reads as if each had been [`Self::record`]ed.
    pub fn settle(&mut self) {
        if self.pending == 0 {
            return;
        }
        let zeros = std::mem::take(&mut self.counts[0]);
        self.counts[1] += zeros;
        let last = BUCKETS as u32 - 1;
        let lowest = self.pending.trailing_zeros().min(last);
        let highest = (u64::BITS - 1 - self.pending.leading_zeros()).min(last);
        self.pending = 0;
        let (from, to) = bucket_span(lowest);
        if let Some(at) = self.counts[from..to].iter().position(|&count| count != 0) {
            self.low = self.low.min(from + at);
        }
        let (from, to) = bucket_span(highest);
        if let Some(at) = self.counts[from..to].iter().rposition(|&count| count != 0) {
            self.high = self.high.max(from + at);
        }
    }

    /// Debug builds: the histogram holds no unsettled counts (see [`Self::record_unsettled`]).
    #[inline]
    fn check_settled(&self) {
        debug_assert!(
            self.pending == 0,
            "a histogram recorded with record_unsettled is read before settle"
        );
    }

    /// Merges another histogram: only the counters it uses.
    pub fn add(&mut self, other: &Self) {
        other.add_into(self, None);
    }

    /// Merges this histogram into `into` and `also` in one pass over the counters it uses,
    /// writing theirs only where it has counts: a run of [`MERGE_CHUNK`] empty counters (most
    /// of the range a tick's latencies span) costs one test and leaves theirs untouched.
    pub fn add_into(&self, into: &mut Self, mut also: Option<&mut Self>) {
        let (first, counts) = self.used();
        if counts.is_empty() {
            return;
        }
        for (at, chunk) in counts.chunks(MERGE_CHUNK).enumerate() {
            if chunk.iter().fold(0, |any, &count| any | count) == 0 {
                continue;
            }
            let from = first + at * MERGE_CHUNK;
            let to = from + chunk.len();
            for dest in std::iter::once(&mut *into).chain(also.as_deref_mut()) {
                for (mine, &theirs) in dest.counts[from..to].iter_mut().zip(chunk) {
                    *mine = mine.saturating_add(theirs);
                }
            }
        }
        for dest in std::iter::once(into).chain(also) {
            dest.total = dest.total.saturating_add(self.total);
            dest.low = dest.low.min(self.low);
            dest.high = dest.high.max(self.high);
        }
    }

    /// Clears the counters in use (and only those).
    pub fn reset(&mut self) {
        self.settle();
        if self.low <= self.high {
            self.counts[self.low..=self.high].fill(0);
        }
        self.total = 0;
        self.low = COUNTERS;
        self.high = 0;
    }

    #[must_use]
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The non-empty counters, ascending: (index, count).
    fn recorded(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let (first, counts) = self.used();
        counts
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count != 0)
            .map(move |(i, &count)| (first + i, count))
    }

    /// min/max/mean/stddev and fio's percentiles. Zeroes when empty.
    ///
    /// Two walks over the counters in use (the recorded ones, then the percentiles in
    /// ascending order). The results are hdrhistogram's `min`, `max`, `mean`, `stdev` and
    /// `value_at_quantile` to the bit (same terms, same order).
    #[must_use]
    pub fn summary(&self) -> LatencySummary {
        self.check_settled();
        if self.total == 0 {
            return LatencySummary::default();
        }
        let total_f = self.total as f64;
        let mean_ns = self.recorded().fold(0.0_f64, |sum, (index, count)| {
            sum + median_of(index) as f64 * count as f64 / total_f
        });
        let deviation = self.recorded().fold(0.0_f64, |sum, (index, count)| {
            let dev = median_of(index) as f64 - mean_ns;
            sum + (dev * dev) * count as f64
        });
        LatencySummary {
            count: self.total,
            min_ns: lowest_of(self.low),
            max_ns: highest_of(self.high),
            mean_ns,
            stddev_ns: (deviation / total_f).sqrt(),
            percentiles_ns: self.percentiles(),
        }
    }

    /// fio's percentiles in one ascending walk: for each, the highest value of the first
    /// counter at which the running count reaches `ceil(q * total)` (at least 1).
    fn percentiles(&self) -> Vec<(f64, u64)> {
        let (first, counts) = self.used();
        let mut seen = 0u64;
        let mut at = 0usize;
        let mut walk = counts.iter().enumerate();
        FIO_PERCENTILES
            .iter()
            .map(|&pct| {
                let quantile = pct / 100.0;
                let target = ((quantile.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
                while seen < target {
                    let Some((i, &count)) = walk.next() else {
                        break;
                    };
                    at = first + i;
                    seen += count;
                }
                let ns = if quantile == 0.0 {
                    lowest_of(at)
                } else {
                    highest_of(at)
                };
                (pct, ns)
            })
            .collect()
    }

    /// The non-empty buckets of the fine rule ([`fine_bucket_le_ns`] with
    /// [`FINE_SUB_BUCKET_BITS`]), ascending. Exact: every counter (3 significant digits: 1024
    /// sub-buckets per power of two, values below 2048 exact) lies inside one fine bucket,
    /// because the fine buckets are unions of aligned counters.
    #[must_use]
    pub fn fine_buckets(&self) -> Vec<LatencyBucket> {
        let mut out: Vec<LatencyBucket> = Vec::new();
        for (index, count) in self.recorded() {
            let le_ns = fine_bucket_le_ns(highest_of(index), FINE_SUB_BUCKET_BITS);
            match out.last_mut() {
                Some(last) if last.le_ns == le_ns => last.count += count,
                _ => out.push(LatencyBucket { le_ns, count }),
            }
        }
        out
    }
}

/// Sub-bucket bits of the fine rule: 2^7 = 128 sub-buckets per power of two, so a bucket is at
/// most 1/128 (0.78%) of its lower bound wide and any latency in it is within 0.78% of the
/// bucket's upper bound.
pub const FINE_SUB_BUCKET_BITS: u32 = 7;

/// The log-linear bucket rule of records and the dashboard, with `bits` sub-bucket bits: a
/// latency `ns` (at least 1) below `2^(bits+1)` is its own bucket; otherwise, with
/// `e = floor(log2(ns))`, the power of two `[2^e, 2^(e+1))` is cut into `2^bits` buckets of
/// width `2^(e-bits)`. Returns the bucket's inclusive upper bound; its lower bound is
/// `le + 1 - 2^max(0, floor(log2(le)) - bits)`. With fewer bits each bucket is a union of
/// buckets with more bits, so histograms of different resolutions merge exactly at the lower.
#[inline]
#[must_use]
pub fn fine_bucket_le_ns(ns: u64, bits: u32) -> u64 {
    let ns = ns.max(1);
    let exp = u64::BITS - 1 - ns.leading_zeros();
    if exp <= bits {
        return ns;
    }
    let shift = exp - bits;
    ((ns >> shift) << shift) | ((1u64 << shift) - 1)
}

/// The inclusive lower bound of the bucket whose upper bound is `le_ns` (rule of
/// [`fine_bucket_le_ns`]).
#[must_use]
pub fn fine_bucket_ge_ns(le_ns: u64, bits: u32) -> u64 {
    let le_ns = le_ns.max(1);
    let exp = u64::BITS - 1 - le_ns.leading_zeros();
    if exp <= bits {
        le_ns
    } else {
        le_ns + 1 - (1u64 << (exp - bits))
    }
}

/// Per-interval histograms keep at most this many non-empty buckets: over it, the interval is
/// coarsened (one sub-bucket bit at a time, see [`coarsen`]) until it fits. At 128
/// sub-buckets per power of two that is two full powers of two at full resolution.
pub const MAX_INTERVAL_BUCKETS: usize = 256;

/// Sparse, ascending `buckets` of the rule with `bits` sub-bucket bits, re-bucketed to `to_bits`
/// (at most `bits`): exact, as each bucket lies inside one coarser bucket.
#[must_use]
pub fn coarsen(buckets: &[LatencyBucket], to_bits: u32) -> Vec<LatencyBucket> {
    let mut out: Vec<LatencyBucket> = Vec::with_capacity(buckets.len());
    for b in buckets {
        let le_ns = fine_bucket_le_ns(b.le_ns, to_bits);
        match out.last_mut() {
            Some(last) if last.le_ns == le_ns => last.count += b.count,
            _ => out.push(LatencyBucket {
                le_ns,
                count: b.count,
            }),
        }
    }
    out
}

/// `buckets` (fine rule, full resolution) within [`MAX_INTERVAL_BUCKETS`]: the buckets and
/// their sub-bucket bits.
#[must_use]
pub fn bounded(buckets: Vec<LatencyBucket>) -> (Vec<LatencyBucket>, u32) {
    let mut bits = FINE_SUB_BUCKET_BITS;
    let mut buckets = buckets;
    while buckets.len() > MAX_INTERVAL_BUCKETS && bits > 0 {
        bits -= 1;
        buckets = coarsen(&buckets, bits);
    }
    (buckets, bits)
}

/// Adds sparse, ascending `other` into `into` (same rule and bits): counts of equal bounds add.
pub fn merge_buckets(into: &mut Vec<LatencyBucket>, other: &[LatencyBucket]) {
    let mut merged = Vec::with_capacity(into.len() + other.len());
    let (mut i, mut j) = (0, 0);
    while i < into.len() || j < other.len() {
        let take_a = j == other.len() || (i < into.len() && into[i].le_ns <= other[j].le_ns);
        let take_b = i == into.len() || (j < other.len() && other[j].le_ns <= into[i].le_ns);
        let mut next = LatencyBucket {
            le_ns: if take_a {
                into[i].le_ns
            } else {
                other[j].le_ns
            },
            count: 0,
        };
        if take_a {
            next.count += into[i].count;
            i += 1;
        }
        if take_b {
            next.count += other[j].count;
            j += 1;
        }
        merged.push(next);
    }
    *into = merged;
}

/// The upper bound of the bucket holding the `pct` percentile of sparse, ascending `buckets`
/// (the smallest bound with at least `pct`% of the count at or below it); 0 when empty.
#[must_use]
pub fn bucket_percentile_ns(buckets: &[LatencyBucket], pct: f64) -> u64 {
    let total: u64 = buckets.iter().map(|b| b.count).sum();
    if total == 0 {
        return 0;
    }
    let rank = ((pct / 100.0 * total as f64).ceil() as u64).clamp(1, total);
    let mut seen = 0;
    for b in buckets {
        seen += b.count;
        if seen >= rank {
            return b.le_ns;
        }
    }
    buckets.last().map_or(0, |b| b.le_ns)
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

/// One bucket of a sparse histogram ([`LatencyHistogram::fine_buckets`]): the record's.
pub use crate::record::LatencyBucket;

/// A histogram's summary statistics, in nanoseconds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LatencySummary {
    pub count: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub mean_ns: f64,
    pub stddev_ns: f64,
    /// `(percent, latency_ns)` for each of [`FIO_PERCENTILES`].
    pub percentiles_ns: Vec<(f64, u64)>,
}

impl LatencySummary {
    /// The latency at `pct` percent (one of [`FIO_PERCENTILES`]), 0 when empty.
    #[must_use]
    pub fn percentile_ns(&self, pct: f64) -> u64 {
        self.percentiles_ns
            .iter()
            .find(|(p, _)| (*p - pct).abs() < 1e-9)
            .map_or(0, |&(_, ns)| ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use hdrhistogram::Histogram;

    /// hdrhistogram with the same bounds: the reference.
    fn reference() -> Histogram<u64> {
        Histogram::new_with_bounds(1, MAX_TRACKED_NS, 3).expect("valid bounds")
    }

    /// Both histograms fed the same latencies.
    fn both(latencies: impl IntoIterator<Item = u64>) -> (LatencyHistogram, Histogram<u64>) {
        let (mut mine, mut theirs) = (LatencyHistogram::new(), reference());
        for ns in latencies {
            mine.record(ns);
            theirs.saturating_record(ns.max(1));
        }
        (mine, theirs)
    }

    /// Heavy-tailed latencies from about 1 us to about 1 s.
    fn heavy_tail(seed: u64, n: usize) -> Vec<u64> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                1000 + (x % 1_000_000) * (1 + (x >> 60)) * (1 + ((x >> 40) & 0xFF))
            })
            .collect()
    }

    /// Every statistic and bucket equals hdrhistogram's, to the bit.
    fn assert_same(mine: &LatencyHistogram, theirs: &Histogram<u64>) {
        assert_eq!(mine.count(), theirs.len());
        let summary = mine.summary();
        if theirs.is_empty() {
            assert_eq!(summary, LatencySummary::default());
            assert!(mine.fine_buckets().is_empty());
            return;
        }
        assert_eq!(summary.mean_ns.to_bits(), theirs.mean().to_bits());
        assert_eq!(summary.stddev_ns.to_bits(), theirs.stdev().to_bits());
        assert_eq!(summary.percentiles_ns.len(), FIO_PERCENTILES.len());
        for (pct, ns) in &summary.percentiles_ns {
            assert_eq!(*ns, theirs.value_at_quantile(pct / 100.0), "p{pct}");
        }
        assert_eq!(
            (summary.min_ns, summary.max_ns),
            (theirs.min(), theirs.max())
        );
        // The fine buckets as they were made from hdrhistogram's recorded buckets.
        let mut expected: Vec<LatencyBucket> = Vec::new();
        for value in theirs.iter_recorded() {
            let ns = theirs.highest_equivalent(value.value_iterated_to());
            let le_ns = fine_bucket_le_ns(ns, FINE_SUB_BUCKET_BITS);
            match expected.last_mut() {
                Some(last) if last.le_ns == le_ns => last.count += value.count_at_value(),
                _ => expected.push(LatencyBucket {
                    le_ns,
                    count: value.count_at_value(),
                }),
            }
        }
        assert_eq!(mine.fine_buckets(), expected);
    }

    /// A tick's sparse latencies (a cluster and far outliers, runs of empty counters between)
    /// merged into two histograms in one pass give each what recording them there gives.
    #[test]
    fn one_merge_into_two_histograms_is_two_merges() {
        let tick: Vec<u64> = (0..2000)
            .map(|i| 40 + i % 17)
            .chain([9_000, 9_001, 2_500_000, 70_000_000, 1 << 37])
            .collect();
        let earlier = heavy_tail(7, 5_000);
        let (mut interval, mut interval_ref) = both(earlier.iter().copied().take(100));
        let (mut clone, mut clone_ref) = both(earlier.iter().copied());
        let (report, _) = both(tick.iter().copied());
        report.add_into(&mut interval, Some(&mut clone));
        for (hist, theirs) in [(&interval, &mut interval_ref), (&clone, &mut clone_ref)] {
            for &ns in &tick {
                theirs.saturating_record(ns.max(1));
            }
            assert_same(hist, theirs);
        }
        // Into one, as `add`; an empty one changes nothing.
        let mut alone = LatencyHistogram::new();
        alone.add(&report);
        alone.add(&LatencyHistogram::new());
        assert_eq!(alone.counts[..], report.counts[..]);
        assert_eq!((alone.low, alone.high), (report.low, report.high));
        assert_eq!(alone.summary(), report.summary());
    }

    #[test]
    fn the_memory_of_a_histogram_is_what_the_estimate_counts() {
        let hist = LatencyHistogram::new();
        assert_eq!(hist.counts.len() as u64 * 8, HISTOGRAM_BYTES);
        assert_eq!(reference().distinct_values() as u64 * 8, HISTOGRAM_BYTES);
    }

    #[test]
    fn the_layout_is_hdrhistograms() {
        let theirs = reference();
        for index in (0..COUNTERS)
            .step_by(7)
            .chain([1, 2047, 2048, COUNTERS - 1])
        {
            let low = lowest_of(index);
            assert_eq!(index_of(low), index, "{index}");
            assert_eq!(index_of(highest_of(index)), index, "{index}");
            assert_eq!(theirs.lowest_equivalent(low), low);
            assert_eq!(theirs.highest_equivalent(low), highest_of(index));
            assert_eq!(theirs.median_equivalent(low), median_of(index));
        }
        assert!(index_of(MAX_TRACKED_NS) < COUNTERS);
        assert!(index_of(1 << 37) >= COUNTERS);
    }

    #[test]
    fn summary_matches_recorded_values() {
        let mut hist = LatencyHistogram::new();
        for ns in 1..=1000u64 {
            hist.record(ns * 1000);
        }
        let summary = hist.summary();
        assert_eq!(summary.count, 1000);
        assert_eq!(summary.min_ns, 1000);
        assert!((summary.max_ns as f64 - 1e6).abs() / 1e6 < 0.001);
        assert!((summary.mean_ns - 500_500.0).abs() / 500_500.0 < 0.001);
        let p50 = summary.percentile_ns(50.0) as f64;
        assert!((p50 - 500_000.0).abs() / 500_000.0 < 0.002, "{p50}");
        let p99 = summary.percentile_ns(99.0) as f64;
        assert!((p99 - 990_000.0).abs() / 990_000.0 < 0.002, "{p99}");
        assert_eq!(summary.percentiles_ns.len(), FIO_PERCENTILES.len());
    }

    #[test]
    fn summary_and_buckets_equal_hdrhistogram_to_the_bit() {
        let (mine, theirs) = both(heavy_tail(0x9E37_79B9_7F4A_7C15, 20_000));
        assert_same(&mine, &theirs);
        // Exact values, the edges of the range and past it (clamped).
        let (mine, theirs) = both([0, 1, 2, 2047, 2048, 2049, 4095, 4096, MAX_TRACKED_NS]);
        assert_same(&mine, &theirs);
        let (mine, theirs) = both([MAX_TRACKED_NS + 1, 1 << 37, u64::MAX, 130_000_000_000]);
        assert_same(&mine, &theirs);
        let (mine, theirs) = both([777]);
        assert_same(&mine, &theirs);
        let (mine, theirs) = both([]);
        assert_same(&mine, &theirs);
    }

    #[test]
    fn merged_and_reset_histograms_equal_hdrhistogram() {
        let (mut total, mut reference_total) = (LatencyHistogram::new(), reference());
        let (mut interval, mut reference_interval) = (LatencyHistogram::new(), reference());
        for round in 0..6u64 {
            // Each round a narrower or wider range than the last: a reset must clear it all.
            let n = if round == 3 {
                0
            } else {
                500 * (round as usize + 1)
            };
            let values = heavy_tail(round * 7919 + 3, n)
                .into_iter()
                .map(|ns| if round % 2 == 0 { ns / 1000 } else { ns });
            interval.reset();
            reference_interval.reset();
            for ns in values {
                interval.record(ns);
                reference_interval.saturating_record(ns.max(1));
            }
            assert_same(&interval, &reference_interval);
            total.add(&interval);
            reference_total
                .add(&reference_interval)
                .expect("same bounds");
            assert_same(&total, &reference_total);
        }
        // A reset leaves no counter behind: what follows is as if new.
        total.reset();
        assert!(total.counts.iter().all(|&c| c == 0));
        let (fresh, theirs) = both([5_000, 6_000]);
        total.record(5_000);
        total.record(6_000);
        assert_same(&total, &theirs);
        assert_eq!(total.summary(), fresh.summary());
    }

    /// Counted unsettled then settled, a histogram is the one `record` makes, to the bit
    /// (0, the edges of the range and past it included), also when some of its counts were
    /// recorded settled, when it is settled twice in a run, and when it is reset unsettled.
    #[test]
    fn unsettled_counts_once_settled_are_recorded_ones() {
        let mut edges = vec![0, 1, 2, 2047, 2048, 2049, 4095, 4096];
        edges.extend([MAX_TRACKED_NS, MAX_TRACKED_NS + 1]);
        let past = [1 << 37, u64::MAX, 130_000_000_000];
        let cases: [Vec<u64>; 5] = [
            heavy_tail(0x9E37_79B9_7F4A_7C15, 20_000),
            edges,
            past.to_vec(),
            vec![0, 0, 5],
            heavy_tail(11, 3_000).iter().map(|ns| ns / 1000).collect(),
        ];
        for values in cases {
            let (recorded, theirs) = both(values.iter().copied());
            let mut unsettled = LatencyHistogram::new();
            for (i, &ns) in values.iter().enumerate() {
                // Every third settled, and a settle part way: as the worker's sync records
                // and a tick's hand-off that could not send.
                if i % 3 == 0 {
                    unsettled.record(ns);
                } else {
                    unsettled.record_unsettled(ns);
                }
                if i == values.len() / 2 {
                    unsettled.settle();
                }
            }
            assert_eq!(unsettled.count(), values.len() as u64);
            unsettled.settle();
            assert_same(&unsettled, &theirs);
            assert_eq!(unsettled.counts[..], recorded.counts[..]);
            assert_eq!(
                (unsettled.low, unsettled.high),
                (recorded.low, recorded.high)
            );
            // Merged, it gives what the recorded one gives.
            let (mut a, mut b) = (LatencyHistogram::new(), LatencyHistogram::new());
            a.add(&unsettled);
            b.add(&recorded);
            assert_eq!(a.summary(), b.summary());
        }
        // A reset of unsettled counts leaves none behind.
        let mut hist = LatencyHistogram::new();
        for ns in [0, 3, 70_000, 9_000_000_000, u64::MAX] {
            hist.record_unsettled(ns);
        }
        hist.reset();
        assert!(hist.counts.iter().all(|&c| c == 0));
        assert_eq!(hist.summary(), LatencySummary::default());
    }

    #[test]
    #[should_panic(expected = "read before settle")]
    #[cfg(debug_assertions)]
    fn an_unsettled_histogram_is_not_read() {
        let mut hist = LatencyHistogram::new();
        hist.record_unsettled(500);
        let _ = hist.summary();
    }

    #[test]
    fn empty_and_clamped() {
        let mut hist = LatencyHistogram::new();
        assert_eq!(hist.summary(), LatencySummary::default());
        hist.record(0);
        hist.record(u64::MAX);
        assert_eq!(hist.count(), 2);
        let mut other = LatencyHistogram::new();
        other.add(&hist);
        assert_eq!(other.count(), 2);
    }
}

#[cfg(test)]
mod fine_tests {
    use super::*;

    /// A known, skewed sample: a bulk around 100-400 us, a tail to ~60 ms, a few fast hits.
    fn sample() -> Vec<u64> {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..200_000)
            .map(|i| {
                let r = next();
                match i % 100 {
                    0 => 20_000 + r % 60_000_000,
                    1..=3 => 700 + r % 5_000,
                    _ => 100_000 + r % 300_000 + (r >> 40) % 7,
                }
            })
            .collect()
    }

    fn exact_percentile(sorted: &[u64], pct: f64) -> u64 {
        let rank = ((pct / 100.0 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1]
    }

    #[test]
    fn fine_percentiles_are_within_one_percent_of_the_exact_ones() {
        let values = sample();
        let mut hist = LatencyHistogram::new();
        for &v in &values {
            hist.record(v);
        }
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let buckets = hist.fine_buckets();
        assert_eq!(buckets.iter().map(|b| b.count).sum::<u64>(), 200_000);
        assert!(buckets.windows(2).all(|w| w[0].le_ns < w[1].le_ns));
        for pct in [0.1, 1.0, 10.0, 50.0, 90.0, 99.0, 99.5, 99.9, 99.99, 100.0] {
            let exact = exact_percentile(&sorted, pct);
            let fine = bucket_percentile_ns(&buckets, pct);
            let error = (fine as f64 - exact as f64).abs() / exact as f64;
            assert!(error <= 0.01, "p{pct}: exact {exact} ns, fine {fine} ns");
        }
    }

    #[test]
    fn the_rule_is_log_linear_and_coarsens_exactly() {
        // 128 sub-buckets per power of two above 256 ns; each value below it is its own bucket.
        assert_eq!(fine_bucket_le_ns(0, 7), 1);
        assert_eq!(fine_bucket_le_ns(255, 7), 255);
        assert_eq!(fine_bucket_le_ns(256, 7), 257);
        assert_eq!(fine_bucket_le_ns(1_000_000, 7), 1_003_519);
        assert_eq!(fine_bucket_ge_ns(1_003_519, 7), 999_424);
        let per_octave = (1u64 << 20..1 << 21)
            .map(|ns| fine_bucket_le_ns(ns, 7))
            .collect::<std::collections::BTreeSet<_>>();
        assert_eq!(per_octave.len(), 128);
        for ns in [300u64, 4_097, 999_999, 77_777_777, 99_999_999_999] {
            let le = fine_bucket_le_ns(ns, 7);
            let ge = fine_bucket_ge_ns(le, 7);
            assert!(ge <= ns && ns <= le);
            let width = (le - ge + 1) as f64 / ge as f64;
            assert!(width <= 1.0 / 128.0 + 1e-12, "{ns}");
            // A coarser bucket holds the whole finer one.
            assert_eq!(fine_bucket_le_ns(ge, 5), fine_bucket_le_ns(le, 5));
        }
        let mut hist = LatencyHistogram::new();
        for v in sample() {
            hist.record(v);
        }
        let fine = hist.fine_buckets();
        let (kept, bits) = bounded(fine.clone());
        assert!(kept.len() <= MAX_INTERVAL_BUCKETS && bits < FINE_SUB_BUCKET_BITS);
        assert_eq!(kept, coarsen(&fine, bits));
        assert_eq!(
            kept.iter().map(|b| b.count).sum::<u64>(),
            fine.iter().map(|b| b.count).sum::<u64>()
        );
    }

    #[test]
    fn sparse_histograms_merge_exactly() {
        let (mut a, mut b, mut both) = (
            LatencyHistogram::new(),
            LatencyHistogram::new(),
            LatencyHistogram::new(),
        );
        for (i, v) in sample().into_iter().enumerate() {
            if i % 3 == 0 { &mut a } else { &mut b }.record(v);
            both.record(v);
        }
        let mut merged = a.fine_buckets();
        merge_buckets(&mut merged, &b.fine_buckets());
        assert_eq!(merged, both.fine_buckets());
    }
}
