//! What a host sends is checked before it is merged: a histogram whose buckets do not add up
//! to its count, or whose bounds are not buckets of the rule, would give the fleet wrapped
//! totals and percentiles from nowhere. A host whose results fail here has its data refused.

use crate::record::{DirectionRecord, IntervalRecord, LatencyRecord, RunRecord, SyncRecord};
use crate::stats::{FINE_SUB_BUCKET_BITS, fine_bucket_le_ns};

/// The most I/Os one host may report in one direction: 2^48 (ten million I/Os a second for
/// almost a year). With at most `hosts::MAX_HOSTS` hosts, fleet totals stay far below 2^64.
pub const MAX_IOS: u64 = 1 << 48;

/// Checks every direction of an interval line.
///
/// # Errors
/// What is wrong, naming the direction.
pub fn interval(record: &IntervalRecord) -> Result<(), String> {
    directions(
        &record.read,
        &record.write,
        &record.trim,
        &record.sync,
        "interval",
    )
}

/// Checks a run record's totals and each step's.
///
/// # Errors
/// What is wrong, naming where.
pub fn run_record(record: &RunRecord) -> Result<(), String> {
    directions(
        &record.read,
        &record.write,
        &record.trim,
        &record.sync,
        "run record",
    )?;
    for step in &record.steps {
        directions(
            &step.read,
            &step.write,
            &step.trim,
            &step.sync,
            &format!("run record segment {}", step.index),
        )?;
    }
    Ok(())
}

fn directions(
    read: &DirectionRecord,
    write: &DirectionRecord,
    trim: &DirectionRecord,
    sync: &SyncRecord,
    at: &str,
) -> Result<(), String> {
    for (name, d) in [("read", read), ("write", write), ("trim", trim)] {
        direction(d).map_err(|why| format!("{at} {name}: {why}"))?;
    }
    counted(sync.total_ios, &sync.lat_ns).map_err(|why| format!("{at} sync: {why}"))
}

fn direction(d: &DirectionRecord) -> Result<(), String> {
    if !(d.iops.is_finite() && d.iops >= 0.0) {
        return Err(format!("iops {} is not a rate", d.iops));
    }
    counted(d.total_ios, &d.lat_ns)?;
    if let Some(sched) = &d.lat_sched_ns {
        latency(sched).map_err(|why| format!("scheduled latency: {why}"))?;
        if sched.n > d.total_ios {
            return Err(format!(
                "scheduled latency counts {} I/Os of {}",
                sched.n, d.total_ios
            ));
        }
    }
    Ok(())
}

/// `lat` is valid and counts every one of `total_ios` (each I/O's latency is recorded).
fn counted(total_ios: u64, lat: &LatencyRecord) -> Result<(), String> {
    if total_ios > MAX_IOS {
        return Err(format!("total_ios {total_ios} is over {MAX_IOS}"));
    }
    latency(lat)?;
    if lat.n != total_ios {
        return Err(format!(
            "the latency counts {} I/Os and total_ios is {total_ios}",
            lat.n
        ));
    }
    Ok(())
}

/// One latency: summary and histogram agree.
///
/// # Errors
/// What is wrong.
pub fn latency(lat: &LatencyRecord) -> Result<(), String> {
    if lat.n > MAX_IOS {
        return Err(format!("N {} is over {MAX_IOS}", lat.n));
    }
    if !(lat.mean.is_finite() && lat.mean >= 0.0 && lat.stddev.is_finite() && lat.stddev >= 0.0) {
        return Err(format!(
            "mean {} or stddev {} is not a latency",
            lat.mean, lat.stddev
        ));
    }
    if lat.n > 0 && lat.min > lat.max {
        return Err(format!("min {} is over max {}", lat.min, lat.max));
    }
    let mut percentiles = lat.percentile.0.clone();
    percentiles.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut last_pct = f64::NEG_INFINITY;
    let mut last_ns = 0;
    for &(pct, ns) in &percentiles {
        if !(0.0..=100.0).contains(&pct) || pct <= last_pct || ns < last_ns {
            return Err(format!(
                "percentile {pct} = {ns} ns is out of order or range"
            ));
        }
        (last_pct, last_ns) = (pct, ns);
    }
    let Some(histogram) = &lat.histogram else {
        return Ok(());
    };
    if histogram.le_ns.len() != histogram.count.len() {
        return Err(format!(
            "the histogram has {} bounds and {} counts",
            histogram.le_ns.len(),
            histogram.count.len()
        ));
    }
    if let Some(bits) = histogram.sub_bucket_bits
        && bits > FINE_SUB_BUCKET_BITS
    {
        return Err(format!(
            "the histogram's sub_bucket_bits {bits} is over {FINE_SUB_BUCKET_BITS}"
        ));
    }
    let mut total: u64 = 0;
    let mut previous: Option<u64> = None;
    for (&le, &count) in histogram.le_ns.iter().zip(&histogram.count) {
        if le == 0 || previous.is_some_and(|p| le <= p) {
            return Err(format!(
                "the histogram's bound {le} ns is not above the one before"
            ));
        }
        if let Some(bits) = histogram.sub_bucket_bits
            && fine_bucket_le_ns(le, bits) != le
        {
            return Err(format!(
                "the histogram's bound {le} ns is not a bucket at {bits} sub-bucket bits"
            ));
        }
        previous = Some(le);
        total = total
            .checked_add(count)
            .ok_or_else(|| "the histogram's counts add up past 2^64".to_string())?;
    }
    if total != lat.n {
        return Err(format!(
            "the histogram's buckets hold {total} I/Os and N is {}",
            lat.n
        ));
    }
    if let Some(&top) = histogram.le_ns.last()
        && let Some(&(pct, ns)) = lat.percentile.0.iter().find(|&&(_, ns)| ns > top)
    {
        return Err(format!(
            "percentile {pct} = {ns} ns is above the histogram's top bucket {top} ns"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::HistogramRecord;
    use crate::stats::DirectionStats;

    fn measured(latencies_ns: &[u64]) -> DirectionRecord {
        let mut stats = DirectionStats::new();
        for &ns in latencies_ns {
            stats.record(4096, ns);
        }
        DirectionRecord::from_stats(&stats, 1_000_000_000).with_histogram(&stats)
    }

    #[test]
    fn real_results_pass() {
        let d = measured(&[900, 1_000, 55_000, 1_234_567, 99_000_000]);
        direction(&d).unwrap();
        direction(&DirectionRecord::default()).unwrap();
        let mut stats = DirectionStats::new();
        for ns in 1..5000u64 {
            stats.record(512, ns * 37);
        }
        let interval =
            DirectionRecord::from_stats(&stats, 1_000_000_000).with_interval_histogram(&stats);
        assert!(interval.lat_ns.histogram.as_ref().unwrap().sub_bucket_bits < Some(7));
        direction(&interval).unwrap();
    }

    #[test]
    fn counts_that_wrap_or_disagree_are_refused() {
        let mut d = measured(&[1_000, 2_000]);
        let h = d.lat_ns.histogram.as_mut().unwrap();
        // Two buckets that wrap to the claimed N of 2^64 - 2 (what a merge would have summed).
        h.count = vec![u64::MAX, u64::MAX];
        d.lat_ns.n = u64::MAX - 1;
        d.total_ios = u64::MAX - 1;
        let why = direction(&d).unwrap_err();
        assert!(why.contains("over"), "{why}");
        let mut d = measured(&[1_000, 2_000]);
        d.lat_ns.histogram.as_mut().unwrap().count = vec![1 << 47, 1 << 47];
        assert!(direction(&d).unwrap_err().contains("buckets hold"));
        let mut d = measured(&[1_000, 2_000]);
        d.total_ios = 3;
        assert!(direction(&d).unwrap_err().contains("total_ios is 3"));
        let mut d = measured(&[1_000, 2_000]);
        d.lat_ns.histogram.as_mut().unwrap().count.pop();
        assert!(direction(&d).unwrap_err().contains("bounds and"));
    }

    #[test]
    fn bounds_off_the_rule_out_of_order_or_min_over_max_are_refused() {
        let mut d = measured(&[1_000, 2_000]);
        d.lat_ns.histogram = Some(HistogramRecord {
            sub_bucket_bits: Some(7),
            le_ns: vec![2_007, 1_003],
            count: vec![1, 1],
        });
        assert!(direction(&d).unwrap_err().contains("not above"));
        d.lat_ns.histogram = Some(HistogramRecord {
            sub_bucket_bits: Some(7),
            le_ns: vec![1_003, 1_000_000_000_000],
            count: vec![1, 1],
        });
        assert!(direction(&d).unwrap_err().contains("not a bucket"));
        d.lat_ns.histogram = Some(HistogramRecord {
            sub_bucket_bits: Some(40),
            le_ns: vec![1_000],
            count: vec![2],
        });
        assert!(direction(&d).unwrap_err().contains("sub_bucket_bits"));
        let mut d = measured(&[1_000, 2_000]);
        d.lat_ns.min = d.lat_ns.max + 1;
        assert!(direction(&d).unwrap_err().contains("min"));
        let mut d = measured(&[1_000, 2_000]);
        d.lat_ns.percentile.0[3].1 = 1;
        assert!(direction(&d).unwrap_err().contains("out of order"));
        let mut d = measured(&[1_000, 2_000]);
        d.iops = f64::NAN;
        assert!(direction(&d).unwrap_err().contains("iops"));
    }
}
