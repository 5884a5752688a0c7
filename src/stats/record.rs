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
            slat_ns: None,
            clat_ns: None,
            runtime_ns: None,
        }
    }

    /// Adds the latency histogram of `stats` (steps and run totals).
    #[must_use]
    pub fn with_histogram(mut self, stats: &DirectionStats) -> Self {
        self.lat_ns.histogram = Some(HistogramRecord::of(stats));
        if let Some(split) = stats.split.as_ref().filter(|s| s.clat.count() > 0) {
            let of = |hist: &crate::stats::LatencyHistogram| LatencyRecord {
                histogram: Some(HistogramRecord::from_buckets(
                    &hist.fine_buckets(),
                    FINE_SUB_BUCKET_BITS,
                )),
                ..LatencyRecord::from(&hist.summary())
            };
            self.slat_ns = Some(of(&split.slat));
            self.clat_ns = Some(of(&split.clat));
        }
        self
    }

    /// A job's (or clone's) read, with its histogram: the measured reads over `elapsed_ns`,
    /// and a verifying write job's read-back reads (`verify`, over `verify_ns`) added as fio
    /// adds them to the job's read, its rates and `runtime` over the direction's own time
    /// ([`direction_runtime_ns`]), kept in `runtime_ns`.
    #[must_use]
    pub fn with_verify_reads(
        measured: &DirectionStats,
        elapsed_ns: u64,
        verify: &DirectionStats,
        verify_ns: u64,
    ) -> Self {
        if verify.ios == 0 {
            return Self::from_stats(measured, elapsed_ns).with_histogram(measured);
        }
        let mut all = measured.clone();
        all.add(verify);
        let runtime_ns = direction_runtime_ns(measured.ios, elapsed_ns, verify_ns);
        let mut record = Self::from_stats(&all, runtime_ns).with_histogram(&all);
        record.runtime_ns = Some(runtime_ns);
        record
    }

    /// Adds one interval's latency histogram, bounded (`HistogramRecord::of_interval`).
    #[must_use]
    pub fn with_interval_histogram(mut self, stats: &DirectionStats) -> Self {
        self.lat_ns.histogram = Some(HistogramRecord::of_interval(stats));
        self
    }
}

/// One direction's own time, as fio keeps a runtime per direction: the job's measured time
/// where the direction did measured I/O, plus its verify read-back's time (a pure write
/// job's read is its read-back alone).
#[must_use]
pub fn direction_runtime_ns(measured_ios: u64, elapsed_ns: u64, verify_ns: u64) -> u64 {
    let measured_ns = if measured_ios > 0 { elapsed_ns } else { 0 };
    measured_ns.saturating_add(verify_ns)
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

    /// Adds the latency histogram of `stats` (steps and run totals).
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
    fn verify_reads_count_over_their_own_runtime() {
        assert_eq!(
            direction_runtime_ns(0, 2_000_000_000, 250_000_000),
            250_000_000
        );
        assert_eq!(
            direction_runtime_ns(7, 2_000_000_000, 250_000_000),
            2_250_000_000
        );
        assert_eq!(direction_runtime_ns(7, 2_000_000_000, 0), 2_000_000_000);
        // A pure write job: no measured reads, 4 verify reads in 2 ms.
        let measured = DirectionStats::new();
        let mut verify = DirectionStats::new();
        for ns in [1_000, 2_000, 3_000, 4_000] {
            verify.record(4096, ns);
        }
        let read = DirectionRecord::with_verify_reads(&measured, 1_000_000_000, &verify, 2_000_000);
        assert_eq!((read.total_ios, read.io_bytes), (4, 16_384));
        assert_eq!(read.runtime_ns, Some(2_000_000));
        assert_eq!(read.runtime, 2);
        // Bandwidth over the read-back's 2 ms, not the job's second.
        assert_eq!(read.bw_bytes, 8_192_000);
        // Each read's own latency (the histogram's bucket bounds, within 1/128).
        assert_eq!((read.lat_ns.min, read.lat_ns.n), (1_000, 4));
        assert!(
            (4_000..=4_032).contains(&read.lat_ns.max),
            "{}",
            read.lat_ns.max
        );
        assert_eq!(read.lat_ns.histogram.unwrap().count.iter().sum::<u64>(), 4);
        // Measured reads and verify reads together: counts add, time adds.
        let mut mixed = DirectionStats::new();
        mixed.record(4096, 500);
        let read = DirectionRecord::with_verify_reads(&mixed, 1_000_000_000, &verify, 2_000_000);
        assert_eq!((read.total_ios, read.runtime_ns), (5, Some(1_002_000_000)));
        // No read-back: the plain record, no `runtime_ns`.
        let plain = DirectionRecord::with_verify_reads(&mixed, 1_000_000_000, &measured, 0);
        assert_eq!(
            plain,
            DirectionRecord::from_stats(&mixed, 1_000_000_000).with_histogram(&mixed)
        );
        assert!(
            serde_json::to_value(&plain)
                .unwrap()
                .get("runtime_ns")
                .is_none()
        );
    }

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
