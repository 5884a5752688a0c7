//! The record's latency sections made from merged statistics: fio's per-direction numbers,
//! `lat_ns` with its percentiles and the sparse histogram, and `sync`.

use crate::record::{DirectionRecord, HistogramRecord, LatencyRecord, Percentiles, SyncRecord};

use super::{DirectionStats, FINE_SUB_BUCKET_BITS, LatencySummary, bounded};

impl DirectionRecord {
    /// From merged stats over `elapsed_ns`.
    #[must_use]
    pub fn from_stats(stats: &DirectionStats, elapsed_ns: u64) -> Self {
        let seconds = elapsed_ns as f64 / 1e9;
        let per_s = |n: u64| {
            if seconds > 0.0 {
                n as f64 / seconds
            } else {
                0.0
            }
        };
        let bw_bytes = per_s(stats.bytes).round() as u64;
        Self {
            io_bytes: stats.bytes,
            io_kbytes: stats.bytes / 1024,
            bw_bytes,
            bw: bw_bytes / 1024,
            iops: per_s(stats.ios),
            runtime: elapsed_ns / 1_000_000,
            total_ios: stats.ios,
            lat_ns: LatencyRecord::from(&stats.latency.summary()),
            lat_sched_ns: stats
                .sched
                .as_ref()
                .map(|sched| LatencyRecord::from(&sched.summary())),
        }
    }

    /// Adds the latency histogram of `stats` (segments and run totals).
    #[must_use]
    pub fn with_histogram(mut self, stats: &DirectionStats) -> Self {
        self.lat_ns.histogram = Some(HistogramRecord::of(stats));
        self
    }

    /// Adds one interval's latency histogram, bounded (`HistogramRecord::of_interval`).
    #[must_use]
    pub fn with_interval_histogram(mut self, stats: &DirectionStats) -> Self {
        self.lat_ns.histogram = Some(HistogramRecord::of_interval(stats));
        self
    }
}

impl HistogramRecord {
    /// The non-empty fine buckets of `stats`' latency, at full resolution.
    #[must_use]
    pub fn of(stats: &DirectionStats) -> Self {
        Self::from_buckets(&stats.latency.fine_buckets(), FINE_SUB_BUCKET_BITS)
    }

    /// The non-empty fine buckets of one interval, within `stats::MAX_INTERVAL_BUCKETS`.
    #[must_use]
    pub fn of_interval(stats: &DirectionStats) -> Self {
        let (buckets, bits) = bounded(stats.latency.fine_buckets());
        Self::from_buckets(&buckets, bits)
    }
}

impl From<&LatencySummary> for LatencyRecord {
    fn from(summary: &LatencySummary) -> Self {
        Self {
            min: summary.min_ns,
            max: summary.max_ns,
            mean: summary.mean_ns,
            stddev: summary.stddev_ns,
            n: summary.count,
            percentile: Percentiles(if summary.count == 0 {
                Vec::new()
            } else {
                summary.percentiles_ns.clone()
            }),
            histogram: None,
        }
    }
}

impl SyncRecord {
    #[must_use]
    pub fn from_stats(stats: &DirectionStats) -> Self {
        Self {
            total_ios: stats.ios,
            lat_ns: LatencyRecord::from(&stats.latency.summary()),
        }
    }

    /// Adds the latency histogram of `stats` (segments and run totals).
    #[must_use]
    pub fn with_histogram(mut self, stats: &DirectionStats) -> Self {
        self.lat_ns.histogram = Some(HistogramRecord::of(stats));
        self
    }

    /// Adds one interval's latency histogram, bounded (`HistogramRecord::of_interval`).
    #[must_use]
    pub fn with_interval_histogram(mut self, stats: &DirectionStats) -> Self {
        self.lat_ns.histogram = Some(HistogramRecord::of_interval(stats));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_sparse_sum_to_n_and_round_trip() {
        let mut stats = DirectionStats::new();
        for (ns, n) in [(500, 2), (3_000, 5), (3_000_000, 1)] {
            for _ in 0..n {
                stats.record(4096, ns);
            }
        }
        let record = DirectionRecord::from_stats(&stats, 1_000_000_000).with_histogram(&stats);
        let histogram = record.lat_ns.histogram.clone().unwrap();
        // Buckets 1/128 of their power of two wide: 500 ns in [500, 501], 3 us in [2992, 3007].
        assert_eq!(histogram.le_ns, [501, 3_007, 3_014_655]);
        assert_eq!(histogram.count, [2, 5, 1]);
        assert_eq!(histogram.sub_bucket_bits, Some(7));
        assert_eq!(histogram.count.iter().sum::<u64>(), record.lat_ns.n);
        let json = serde_json::to_value(&record).unwrap();
        assert_eq!(
            json["lat_ns"]["histogram"],
            serde_json::json!({"sub_bucket_bits": 7, "le_ns": [501, 3_007, 3_014_655],
                "count": [2, 5, 1]})
        );
        let back: DirectionRecord = serde_json::from_value(json).unwrap();
        assert_eq!(back, record);
        // Without one: no key at all, and records without one still read.
        let plain = serde_json::to_value(DirectionRecord::from_stats(&stats, 1)).unwrap();
        assert!(plain["lat_ns"].get("histogram").is_none());
        let read: DirectionRecord = serde_json::from_value(plain).unwrap();
        assert_eq!(read.lat_ns.histogram, None);
    }
}
