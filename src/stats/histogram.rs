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
    #[must_use]
    pub fn summary(&self) -> LatencySummary {
        if self.0.is_empty() {
            return LatencySummary::default();
        }
        LatencySummary {
            count: self.0.len(),
            min_ns: self.0.min(),
            max_ns: self.0.max(),
            mean_ns: self.0.mean(),
            stddev_ns: self.0.stdev(),
            percentiles_ns: FIO_PERCENTILES
                .iter()
                .map(|&pct| (pct, self.0.value_at_quantile(pct / 100.0)))
                .collect(),
        }
    }

    /// Counts in power-of-two buckets: bucket `i` holds latencies in `(2^(i-1), 2^i]` ns, from
    /// 1 us (`2^10`) up; the first bucket takes everything up to 1 us.
    #[must_use]
    pub fn log_buckets(&self) -> Vec<LatencyBucket> {
        let mut counts = [0u64; (LAST_EXP - FIRST_EXP + 1) as usize];
        for value in self.0.iter_recorded() {
            let ns = self.0.highest_equivalent(value.value_iterated_to());
            let exp = (u64::BITS - ns.saturating_sub(1).leading_zeros()).clamp(FIRST_EXP, LAST_EXP);
            counts[(exp - FIRST_EXP) as usize] += value.count_at_value();
        }
        log_bucket_bounds_ns()
            .zip(counts)
            .map(|(le_ns, count)| LatencyBucket { le_ns, count })
            .collect()
    }
}

/// Exponents of the first and last log bucket's upper bound: 1 us (2^10 ns) to ~137 s (2^37 ns,
/// above the tracked maximum).
const FIRST_EXP: u32 = 10;
const LAST_EXP: u32 = 37;

/// The upper bounds of [`LatencyHistogram::log_buckets`], ascending.
pub fn log_bucket_bounds_ns() -> impl Iterator<Item = u64> {
    (FIRST_EXP..=LAST_EXP).map(|exp| 1u64 << exp)
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

/// One bucket of [`LatencyHistogram::log_buckets`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LatencyBucket {
    /// Upper bound (inclusive) in nanoseconds.
    pub le_ns: u64,
    pub count: u64,
}

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

    #[test]
    fn log_buckets_hold_every_count() {
        let mut hist = LatencyHistogram::new();
        hist.record(500); // <= 1 us
        hist.record(1_500); // (1 us, 2 us]
        hist.record(3_000_000); // (2^21, 2^22] ns
        let buckets = hist.log_buckets();
        assert_eq!(
            buckets[0],
            LatencyBucket {
                le_ns: 1024,
                count: 1
            }
        );
        assert_eq!(
            buckets[1],
            LatencyBucket {
                le_ns: 2048,
                count: 1
            }
        );
        assert_eq!(buckets[12].le_ns, 1 << 22);
        assert_eq!(buckets[12].count, 1);
        assert_eq!(buckets.iter().map(|b| b.count).sum::<u64>(), 3);
    }
}
