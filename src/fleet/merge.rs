//! Several results as one: counts add; latency histograms add bucket by bucket (exact: at the
//! coarsest resolution among the parts, see `stats::coarsen`), and the percentiles are read off
//! the merged histogram, never averaged. min, max, mean and stddev combine exactly from each
//! part's count, mean and (population) stddev.

use crate::record::{DirectionRecord, HistogramRecord, LatencyRecord, Percentiles, SyncRecord};
use crate::stats::{FIO_PERCENTILES, LatencyBucket, bucket_percentile_ns, coarsen, merge_buckets};

/// How the merged rates come about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rates {
    /// Parts that ran at the same time (hosts of a fleet): rates add up.
    Summed,
    /// Parts one after another (a host's intervals): totals over their summed time, ns.
    Over(u64),
}

/// The histograms of `parts` merged, with the sub-bucket bits they were merged at; `None`
/// when a part with I/Os has no histogram (a record older than format 3) and no exact merge
/// is possible.
#[must_use]
pub fn merged_buckets(parts: &[&LatencyRecord]) -> Option<(Vec<LatencyBucket>, u32)> {
    let mut bits = crate::stats::FINE_SUB_BUCKET_BITS;
    for part in parts.iter().filter(|p| p.n > 0) {
        bits = bits.min(part.histogram.as_ref()?.sub_bucket_bits?);
    }
    let mut merged: Vec<LatencyBucket> = Vec::new();
    for part in parts.iter().filter(|p| p.n > 0) {
        let histogram = part.histogram.as_ref()?;
        let at = histogram.sub_bucket_bits?;
        let buckets: Vec<LatencyBucket> = histogram.buckets().collect();
        let buckets = if at > bits {
            coarsen(&buckets, bits)
        } else {
            buckets
        };
        merge_buckets(&mut merged, &buckets);
    }
    Some((merged, bits))
}

/// p50 and p99 of `parts` together (reads and writes of one host, or of several), read off
/// their merged histograms; `None` without I/O or without histograms to merge.
#[must_use]
pub fn p50_p99(parts: &[&DirectionRecord]) -> (Option<u64>, Option<u64>) {
    let latencies: Vec<&LatencyRecord> = parts.iter().map(|p| &p.lat_ns).collect();
    // One part with I/O: its own percentiles, as its latency panel shows them.
    if let [only] = latencies
        .iter()
        .filter(|l| l.n > 0)
        .collect::<Vec<_>>()
        .as_slice()
        && let (Some(p50), Some(p99)) = (only.percentile_ns(50.0), only.percentile_ns(99.0))
    {
        return (Some(p50), Some(p99));
    }
    // Never past the slowest I/O, as the merged records' percentiles.
    let max = latencies.iter().map(|l| l.max).max().unwrap_or(0);
    match merged_buckets(&latencies) {
        Some((buckets, _)) if !buckets.is_empty() => (
            Some(bucket_percentile_ns(&buckets, 50.0).min(max)),
            Some(bucket_percentile_ns(&buckets, 99.0).min(max)),
        ),
        _ => (None, None),
    }
}

/// `lat_ns` of `parts` as one.
#[must_use]
pub fn merge_latency(parts: &[&LatencyRecord]) -> LatencyRecord {
    let measured: Vec<&&LatencyRecord> = parts.iter().filter(|p| p.n > 0).collect();
    let n: u64 = measured.iter().map(|p| p.n).sum();
    if n == 0 {
        return LatencyRecord::default();
    }
    let weight = |p: &LatencyRecord| p.n as f64;
    let total = n as f64;
    let mean = measured.iter().map(|p| weight(p) * p.mean).sum::<f64>() / total;
    let variance = measured
        .iter()
        .map(|p| weight(p) * (p.stddev * p.stddev + (p.mean - mean).powi(2)))
        .sum::<f64>()
        / total;
    let min = measured.iter().map(|p| p.min).min().unwrap_or(0);
    let max = measured.iter().map(|p| p.max).max().unwrap_or(0);
    let (percentile, histogram) = match merged_buckets(parts) {
        // A bucket's upper bound, but never past the slowest I/O nor below the fastest.
        Some((buckets, bits)) => (
            Percentiles(
                FIO_PERCENTILES
                    .iter()
                    .map(|&pct| (pct, bucket_percentile_ns(&buckets, pct).clamp(min, max)))
                    .collect(),
            ),
            Some(HistogramRecord::from_buckets(&buckets, bits)),
        ),
        None => (Percentiles::default(), None),
    };
    LatencyRecord {
        min,
        max,
        mean,
        stddev: variance.sqrt(),
        n,
        percentile,
        histogram,
    }
}

/// One direction of `parts` as one.
#[must_use]
pub fn merge_direction(parts: &[&DirectionRecord], rates: Rates) -> DirectionRecord {
    let io_bytes: u64 = parts.iter().map(|p| p.io_bytes).sum();
    let total_ios: u64 = parts.iter().map(|p| p.total_ios).sum();
    let latencies: Vec<&LatencyRecord> = parts.iter().map(|p| &p.lat_ns).collect();
    let (bw_bytes, iops, runtime) = match rates {
        Rates::Summed => (
            parts.iter().map(|p| p.bw_bytes).sum(),
            parts.iter().map(|p| p.iops).sum(),
            parts.iter().map(|p| p.runtime).max().unwrap_or(0),
        ),
        Rates::Over(elapsed_ns) => {
            let seconds = elapsed_ns as f64 / 1e9;
            let per_s = |x: u64| {
                if seconds > 0.0 {
                    x as f64 / seconds
                } else {
                    0.0
                }
            };
            let bw = per_s(io_bytes).round() as u64;
            (bw, per_s(total_ios), elapsed_ns / 1_000_000)
        }
    };
    // Paced runs (format 5): the latency from each I/O's schedule, merged the same way.
    let scheduled: Vec<&LatencyRecord> = parts
        .iter()
        .filter_map(|p| p.lat_sched_ns.as_ref())
        .collect();
    // slat and clat (an engine that times its submit call), where every part with I/O has them.
    let split = |of: fn(&DirectionRecord) -> Option<&LatencyRecord>| {
        let busy = parts.iter().filter(|p| p.total_ios > 0);
        let split: Option<Vec<&LatencyRecord>> = busy.map(|p| of(p)).collect();
        split.filter(|s| !s.is_empty()).map(|s| merge_latency(&s))
    };
    DirectionRecord {
        slat_ns: split(|p| p.slat_ns.as_ref()),
        clat_ns: split(|p| p.clat_ns.as_ref()),
        lat_sched_ns: (!scheduled.is_empty()).then(|| merge_latency(&scheduled)),
        io_bytes,
        io_kbytes: io_bytes / 1024,
        bw_bytes,
        bw: bw_bytes / 1024,
        iops,
        runtime,
        total_ios,
        lat_ns: merge_latency(&latencies),
        runtime_ns: None,
    }
}

/// Syncs of `parts` as one.
#[must_use]
pub fn merge_sync(parts: &[&SyncRecord]) -> SyncRecord {
    let latencies: Vec<&LatencyRecord> = parts.iter().map(|p| &p.lat_ns).collect();
    SyncRecord {
        total_ios: parts.iter().map(|p| p.total_ios).sum(),
        lat_ns: merge_latency(&latencies),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::DirectionStats;

    fn record(latencies_ns: &[u64], elapsed_ns: u64) -> (DirectionStats, DirectionRecord) {
        let mut stats = DirectionStats::new();
        for &ns in latencies_ns {
            stats.record(4096, ns);
        }
        let record = DirectionRecord::from_stats(&stats, elapsed_ns).with_histogram(&stats);
        (stats, record)
    }

    #[test]
    fn merged_percentiles_are_those_of_the_union_not_an_average() {
        // Host a: 990 fast I/Os; host b: 10 slow ones. The union's p99 is fast (990 of 1000
        // at or under 100 us); averaging the hosts' p99s would say ~5 ms.
        let fast: Vec<u64> = (0..990).map(|i| 100_000 + i).collect();
        let slow: Vec<u64> = (0..10).map(|i| 10_000_000 + i * 1000).collect();
        let (sa, a) = record(&fast, 1_000_000_000);
        let (sb, b) = record(&slow, 1_000_000_000);
        let merged = merge_direction(&[&a, &b], Rates::Summed);
        let mut union = sa.clone();
        union.add(&sb);
        let want = HistogramRecord::of(&union);
        assert_eq!(merged.lat_ns.histogram.as_ref(), Some(&want));
        let buckets: Vec<LatencyBucket> = want.buckets().collect();
        // The union's percentiles, as bucket bounds no slower than the slowest I/O.
        let max = union.latency.summary().max_ns;
        for pct in [50.0, 99.0, 99.9] {
            assert_eq!(
                merged.lat_ns.percentile_ns(pct),
                Some(bucket_percentile_ns(&buckets, pct).min(max)),
                "p{pct}"
            );
        }
        assert!(
            bucket_percentile_ns(&buckets, 99.9) > max,
            "the case the clamp is for"
        );
        assert_eq!(merged.lat_ns.percentile_ns(99.9), Some(max));
        assert!(merged.lat_ns.percentile_ns(99.0).unwrap() < 101_500);
        assert!(merged.lat_ns.percentile_ns(99.9).unwrap() >= 10_000_000);
        assert_eq!((merged.total_ios, merged.io_bytes), (1000, 4_096_000));
        assert!((merged.iops - 1000.0).abs() < 1e-9);
        assert_eq!(merged.lat_ns.min, union.latency.summary().min_ns);
        assert_eq!(merged.lat_ns.max, union.latency.summary().max_ns);
        // Pooled mean and stddev equal the union's (hdrhistogram's values are bucketed).
        let whole = union.latency.summary();
        assert!((merged.lat_ns.mean - whole.mean_ns).abs() / whole.mean_ns < 1e-3);
        assert!((merged.lat_ns.stddev - whole.stddev_ns).abs() / whole.stddev_ns < 1e-2);
    }

    #[test]
    fn coarser_parts_merge_at_their_resolution_and_empty_parts_count_nothing() {
        let (_, a) = record(&[1_000, 2_000, 3_000], 1_000_000_000);
        let (_, mut b) = record(&[1_500, 9_000], 1_000_000_000);
        let h = b.lat_ns.histogram.take().unwrap();
        let coarse = coarsen(&h.buckets().collect::<Vec<_>>(), 4);
        b.lat_ns.histogram = Some(HistogramRecord::from_buckets(&coarse, 4));
        let (_, empty) = record(&[], 1_000_000_000);
        let merged = merge_direction(&[&a, &b, &empty], Rates::Over(2_000_000_000));
        let histogram = merged.lat_ns.histogram.unwrap();
        assert_eq!(histogram.sub_bucket_bits, Some(4));
        assert_eq!(histogram.count.iter().sum::<u64>(), 5);
        assert_eq!(merged.total_ios, 5);
        assert!((merged.iops - 2.5).abs() < 1e-9);
        assert_eq!(merged.runtime, 2000);
        let none = merge_direction(&[&empty], Rates::Summed);
        assert_eq!(none.lat_ns, LatencyRecord::default());
    }

    #[test]
    fn paced_parts_merge_their_schedule_latency_and_flat_out_parts_have_none() {
        let (_, mut a) = record(&[1_000, 2_000], 1_000_000_000);
        let (_, mut b) = record(&[3_000], 1_000_000_000);
        let (_, sched_a) = record(&[5_000, 6_000], 1_000_000_000);
        let (_, sched_b) = record(&[9_000], 1_000_000_000);
        a.lat_sched_ns = Some(sched_a.lat_ns.clone());
        b.lat_sched_ns = Some(sched_b.lat_ns.clone());
        let merged = merge_direction(&[&a, &b], Rates::Summed);
        let sched = merged.lat_sched_ns.unwrap();
        assert_eq!((sched.n, sched.max), (3, sched_b.lat_ns.max));
        assert_eq!(sched, merge_latency(&[&sched_a.lat_ns, &sched_b.lat_ns]));
        a.lat_sched_ns = None;
        b.lat_sched_ns = None;
        assert_eq!(merge_direction(&[&a, &b], Rates::Summed).lat_sched_ns, None);
    }

    #[test]
    fn a_part_without_histogram_gives_no_percentiles_rather_than_wrong_ones() {
        let (_, a) = record(&[1_000], 1_000_000_000);
        let (_, mut b) = record(&[2_000], 1_000_000_000);
        b.lat_ns.histogram = None;
        let merged = merge_direction(&[&a, &b], Rates::Summed);
        assert!(merged.lat_ns.percentile.0.is_empty());
        assert_eq!(merged.lat_ns.histogram, None);
        assert_eq!(merged.lat_ns.n, 2);
    }
}
