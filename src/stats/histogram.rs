//! The latency histogram: `hdrhistogram` with fixed bounds (1 ns to 100 s, 3 significant
//! digits, so 0.1% resolution) and no auto-resize, so recording and merging never allocate.

use hdrhistogram::Histogram;

/// Highest trackable latency; slower I/Os are clamped to it (and still counted).
pub const MAX_TRACKED_NS: u64 = 100_000_000_000;

/// fio's default percentile list (`percentile_list`), in percent.
pub const FIO_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// Memory of one [`LatencyHistogram`]'s counters: hdrhistogram at 3 significant digits keeps
/// 1024 sub-buckets per power of two (2048 below the first), 27 of them up to
/// [`MAX_TRACKED_NS`], a u64 each: 28 x 1024 x 8 bytes (a test checks it against the real one).
pub const HISTOGRAM_BYTES: u64 = 28 * 1024 * 8;

/// A latency histogram in nanoseconds.
#[derive(Debug, Clone)]
pub struct LatencyHistogram(Histogram<u64>);

impl LatencyHistogram {
    #[must_use]
    pub fn new() -> Self {
        let mut histogram = Histogram::new_with_bounds(1, MAX_TRACKED_NS, 3)
            .expect("constant histogram bounds are valid");
        // Write every counter once now so the pages are resident from the start: RSS stays
        // flat instead of creeping up as rare latencies touch new pages.
        histogram.reset();
        Self(histogram)
    }

    #[inline]
    pub fn record(&mut self, latency_ns: u64) {
        self.0.saturating_record(latency_ns.max(1));
    }

    /// Merges a histogram with the same bounds (never allocates: auto-resize is off).
    pub fn add(&mut self, other: &Self) {
        // Same bounds on both sides, so this cannot fail.
        let _ = self.0.add(&other.0);
    }

    pub fn reset(&mut self) {
        self.0.reset();
    }

    #[must_use]
    pub fn count(&self) -> u64 {
        self.0.len()
    }

    /// min/max/mean/stddev and fio's percentiles. Zeroes when empty.
    ///
    /// Two walks over the counters in all (the recorded buckets, then the percentiles in
    /// ascending order) instead of one per statistic and per percentile: the session
    /// summarizes every interval and every snapshot, so this is its largest cost per interval.
    /// The results are those of hdrhistogram's `mean`, `stdev` and `value_at_quantile`, to
    /// the bit (same terms, same order).
    #[must_use]
    #[allow(clippy::cast_precision_loss)]
    pub fn summary(&self) -> LatencySummary {
        if self.0.is_empty() {
            return LatencySummary::default();
        }
        let total = self.0.len();
        let total_f = total as f64;
        // (median-equivalent value, count) of each recorded bucket, ascending.
        let recorded: Vec<(f64, f64)> = self
            .0
            .iter_recorded()
            .map(|v| {
                (
                    self.0.median_equivalent(v.value_iterated_to()) as f64,
                    v.count_at_value() as f64,
                )
            })
            .collect();
        let mean_ns = recorded.iter().fold(0.0_f64, |sum, &(value, count)| {
            sum + value * count / total_f
        });
        let deviation = recorded.iter().fold(0.0_f64, |sum, &(value, count)| {
            let dev = value - mean_ns;
            sum + (dev * dev) * count
        });
        let values = self
            .0
            .value_at_quantiles(FIO_PERCENTILES.iter().map(|&pct| pct / 100.0));
        LatencySummary {
            count: total,
            min_ns: self.0.min(),
            max_ns: self.0.max(),
            mean_ns,
            stddev_ns: (deviation / total_f).sqrt(),
            percentiles_ns: FIO_PERCENTILES.iter().copied().zip(values).collect(),
        }
    }

    /// The non-empty buckets of the fine rule ([`fine_bucket_le_ns`] with
    /// [`FINE_SUB_BUCKET_BITS`]), ascending. Exact: every hdrhistogram bucket (3 significant
    /// digits: 1024 sub-buckets per power of two, values below 2048 exact) lies inside one fine
    /// bucket, because the fine buckets are unions of aligned hdrhistogram buckets.
    #[must_use]
    pub fn fine_buckets(&self) -> Vec<LatencyBucket> {
        let mut out: Vec<LatencyBucket> = Vec::new();
        for value in self.0.iter_recorded() {
            let ns = self.0.highest_equivalent(value.value_iterated_to());
            let le_ns = fine_bucket_le_ns(ns, FINE_SUB_BUCKET_BITS);
            match out.last_mut() {
                Some(last) if last.le_ns == le_ns => last.count += value.count_at_value(),
                _ => out.push(LatencyBucket {
                    le_ns,
                    count: value.count_at_value(),
                }),
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
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
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

    #[test]
    fn the_memory_of_a_histogram_is_what_the_estimate_counts() {
        let hist = LatencyHistogram::new();
        assert_eq!(hist.0.distinct_values() as u64 * 8, HISTOGRAM_BYTES);
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
    fn one_pass_summary_equals_hdrhistogram_to_the_bit() {
        let mut hist = LatencyHistogram::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Latencies from 1 us to about 1 s, heavy-tailed.
            hist.record(1000 + (x % 1_000_000) * (1 + (x >> 60)) * (1 + ((x >> 40) & 0xFF)));
        }
        let summary = hist.summary();
        assert_eq!(summary.mean_ns.to_bits(), hist.0.mean().to_bits());
        assert_eq!(summary.stddev_ns.to_bits(), hist.0.stdev().to_bits());
        assert_eq!(summary.percentiles_ns.len(), FIO_PERCENTILES.len());
        for (pct, ns) in &summary.percentiles_ns {
            assert_eq!(*ns, hist.0.value_at_quantile(pct / 100.0), "p{pct}");
        }
        assert_eq!(
            (summary.min_ns, summary.max_ns),
            (hist.0.min(), hist.0.max())
        );
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
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
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
            #[allow(clippy::cast_precision_loss)]
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
            #[allow(clippy::cast_precision_loss)]
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
