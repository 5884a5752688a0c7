//! Whether a metric changed between two runs beyond their spread: the samples each run's
//! number rests on (its loops when there are 3 or more, else the means of batches of at least
//! 10 consecutive intervals), a 95% Welch's t interval of the difference of their means in
//! percent of the base's, and the verdict: better or worse only when the interval excludes
//! zero *and* the change is above the noise floor; "no change within noise" otherwise;
//! "insufficient data" when either run has fewer than 2 samples. Pure arithmetic.

use std::ops::Range;

use serde::Serialize;

use crate::record::{HistogramRecord, JobIntervalRecord, LatencyRecord};
use crate::stats::{
    FINE_SUB_BUCKET_BITS, LatencyBucket, bucket_percentile_ns, coarsen, merge_buckets,
};

/// `--noise-floor`'s default, percent: a smaller change is never better or worse.
pub const NOISE_FLOOR_PCT: f64 = 5.0;
/// A run of this many loops or more gives one sample a loop.
pub const MIN_LOOPS: usize = 3;
/// The fewest intervals in a batch.
pub const BATCH_INTERVALS: u64 = 10;
/// The fewest samples a run needs for an interval.
pub const MIN_SAMPLES: usize = 2;
/// The most batches a run is cut into (longer runs get longer batches).
pub const MAX_BATCHES: u64 = 10;
/// The interval's confidence.
pub const CONFIDENCE: f64 = 0.95;
/// How the interval is computed, as the output and the docs state it.
pub const METHOD: &str = "95% Welch's t interval of the difference of the runs' sample means";

/// What one sample is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// One loop of the point (a sweep's `--loops` of 3 or more).
    Loops,
    /// The mean of a batch of consecutive intervals.
    BatchMeans,
    /// A latency percentile of a batch of consecutive intervals, read off their histograms
    /// merged.
    BatchPercentiles,
}

/// The samples a run's number rests on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Samples {
    pub unit: Unit,
    pub values: Vec<f64>,
    /// Intervals in the run (batch means), 0 for loops.
    pub intervals: u64,
}

impl Samples {
    #[must_use]
    pub fn loops(values: Vec<f64>) -> Self {
        Self {
            unit: Unit::Loops,
            values,
            intervals: 0,
        }
    }
}

/// The change's interval, in percent of the base's mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub low_pct: f64,
    pub high_pct: f64,
    pub confidence: f64,
}

impl Interval {
    /// Whether zero lies outside it.
    #[must_use]
    pub fn excludes_zero(&self) -> bool {
        self.low_pct > 0.0 || self.high_pct < 0.0
    }

    /// The bound nearest zero, in percent (0 when the interval holds zero).
    #[must_use]
    pub fn nearest_zero(&self) -> f64 {
        if self.low_pct > 0.0 {
            self.low_pct
        } else if self.high_pct < 0.0 {
            self.high_pct
        } else {
            0.0
        }
    }
}

/// How the new run fares on one metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Better,
    Worse,
    /// The interval holds zero, or the change is under the noise floor.
    NoChange,
    /// A run has under 2 samples: no verdict either way.
    InsufficientData,
    /// Shown for reading, not tested (percentiles, maxima: no sample of theirs is kept).
    NotJudged,
}

impl Verdict {
    /// As the text shows it.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Better => "better",
            Self::Worse => "WORSE",
            Self::NoChange => "no change within noise",
            Self::InsufficientData => "insufficient data",
            Self::NotJudged => "",
        }
    }
}

/// Mean and sample variance.
fn mean_var(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = if values.len() > 1 {
        values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var)
}

/// Student's t at 0.975 for `df` 1..=30 (the two-sided 95% quantile).
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The 0.975 quantile of Student's t with `df` degrees of freedom (fractional, as Welch's
/// are): the table, linear between its whole numbers; past 30 the Cornish-Fisher expansion.
#[must_use]
pub fn t975(df: f64) -> f64 {
    if !df.is_finite() {
        return 1.959_964;
    }
    let df = df.max(1.0);
    if df <= 30.0 {
        let lo = df.floor() as usize;
        let hi = df.ceil() as usize;
        let frac = df - df.floor();
        return T975[lo - 1] + (T975[hi - 1] - T975[lo - 1]) * frac;
    }
    let z = 1.959_964_f64;
    let v = df;
    z + (z.powi(3) + z) / (4.0 * v)
        + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * v * v)
        + (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / (384.0 * v.powi(3))
}

/// Welch's 95% interval of `mean(new) - mean(base)`, in percent of `mean(base)`; `None`
/// when either has under [`MIN_SAMPLES`] values or the base's mean is not positive.
#[must_use]
pub fn welch(base: &[f64], new: &[f64]) -> Option<Interval> {
    if base.len() < MIN_SAMPLES || new.len() < MIN_SAMPLES {
        return None;
    }
    let (mb, vb) = mean_var(base);
    let (mn, vn) = mean_var(new);
    if mb <= 0.0 || !mb.is_finite() || !mn.is_finite() {
        return None;
    }
    let (nb, nn) = (base.len() as f64, new.len() as f64);
    let (sb, sn) = (vb / nb, vn / nn);
    let se = (sb + sn).sqrt();
    let df = if se > 0.0 {
        (sb + sn).powi(2) / (sb * sb / (nb - 1.0) + sn * sn / (nn - 1.0))
    } else {
        f64::INFINITY
    };
    let half = t975(df) * se;
    let d = mn - mb;
    Some(Interval {
        low_pct: (d - half) / mb * 100.0,
        high_pct: (d + half) / mb * 100.0,
        confidence: CONFIDENCE,
    })
}

/// The verdict on a change of `change_pct` with `interval` (`None`: too few samples), where
/// `higher_is_better` says which way is good, and a change must exceed `floor_pct`.
#[must_use]
pub fn judge(
    higher_is_better: bool,
    change_pct: f64,
    interval: Option<Interval>,
    floor_pct: f64,
) -> Verdict {
    let Some(interval) = interval else {
        return Verdict::InsufficientData;
    };
    if !interval.excludes_zero() || change_pct.abs() <= floor_pct {
        return Verdict::NoChange;
    }
    // Both must agree on the direction (the interval's sign is the change's).
    let up = interval.low_pct > 0.0;
    if up != (change_pct > 0.0) {
        return Verdict::NoChange;
    }
    if up == higher_is_better {
        Verdict::Better
    } else {
        Verdict::Worse
    }
}

/// The entries of a series cut into batches of consecutive entries, each of at least
/// [`BATCH_INTERVALS`] intervals: as many as the intervals allow, at most [`MAX_BATCHES`];
/// fewer than [`MIN_SAMPLES`] batches gives none.
#[must_use]
pub fn batches(series: &[JobIntervalRecord]) -> Vec<Range<usize>> {
    let intervals: Vec<u64> = series
        .iter()
        .map(|e| u64::from(e.intervals.max(1)))
        .collect();
    batches_of(&intervals)
}

/// [`batches`] of entries holding `intervals[i]` intervals each (at least 1 counted).
#[must_use]
pub fn batches_of(intervals: &[u64]) -> Vec<Range<usize>> {
    let total: u64 = intervals.iter().map(|&n| n.max(1)).sum();
    let k = (total / BATCH_INTERVALS).min(MAX_BATCHES);
    if k < MIN_SAMPLES as u64 {
        return Vec::new();
    }
    let target = total / k;
    let mut out: Vec<Range<usize>> = Vec::new();
    let (mut start, mut acc) = (0, 0);
    for (i, &n) in intervals.iter().enumerate() {
        acc += n.max(1);
        if acc >= target && (out.len() as u64) < k - 1 {
            out.push(start..i + 1);
            start = i + 1;
            acc = 0;
        }
    }
    if start < intervals.len() {
        if acc >= BATCH_INTERVALS {
            out.push(start..intervals.len());
        } else if let Some(last) = out.last_mut() {
            // A short tail joins the batch before it.
            last.end = intervals.len();
        }
    }
    if out.len() < MIN_SAMPLES {
        return Vec::new();
    }
    out
}

/// Which number of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    Iops,
    BytesPerS,
    LatMeanNs,
}

/// One direction of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Read,
    Write,
    Trim,
}

/// `quantity` of `dir` in each batch of `series` (a batch without I/O gives no latency).
#[must_use]
pub fn batch_means(series: &[JobIntervalRecord], dir: Dir, quantity: Quantity) -> Samples {
    let intervals: u64 = series.iter().map(|e| u64::from(e.intervals.max(1))).sum();
    let values = batches(series)
        .into_iter()
        .filter_map(|range| {
            let part = &series[range];
            let ns: u64 = part.iter().map(|e| e.duration_ns).sum();
            let counts =
                part.iter()
                    .fold(crate::record::IntervalCounts::default(), |mut acc, e| {
                        acc.add(match dir {
                            Dir::Read => &e.read,
                            Dir::Write => &e.write,
                            Dir::Trim => &e.trim,
                        });
                        acc
                    });
            let secs = ns as f64 / 1e9;
            match quantity {
                Quantity::Iops => (ns > 0).then(|| counts.ios as f64 / secs),
                Quantity::BytesPerS => (ns > 0).then(|| counts.bytes as f64 / secs),
                Quantity::LatMeanNs => {
                    (counts.ios > 0).then(|| counts.lat_sum_ns as f64 / counts.ios as f64)
                }
            }
        })
        .collect();
    Samples {
        unit: Unit::BatchMeans,
        values,
        intervals,
    }
}

/// One entry of a series' latency: how many intervals it holds and each direction's
/// latency (read, write, trim), its histogram with it (a step's `series`, format 3 on).
#[derive(Debug, Clone, Copy)]
pub struct LatencyEntry<'r> {
    pub intervals: u64,
    pub dirs: [&'r LatencyRecord; 3],
}

/// The percentile `pct` of `dir` in each batch of `entries` (the batches of [`batches_of`]):
/// the batch's interval histograms merged (at the coarsest resolution among them, exactly)
/// and the percentile read off the merged one, within the batch's fastest and slowest I/O,
/// never an average of the intervals' percentiles. A batch without I/O gives no sample.
/// `None` when an entry with I/O has no histogram (a record older than format 3): no
/// percentile of a batch can be read.
#[must_use]
pub fn batch_percentiles<'r>(entries: &[LatencyEntry<'r>], dir: Dir, pct: f64) -> Option<Samples> {
    let k = dir as usize;
    let lat = |e: &LatencyEntry<'r>| -> &'r LatencyRecord { e.dirs[k] };
    if entries
        .iter()
        .any(|e| lat(e).n > 0 && lat(e).histogram.is_none())
    {
        return None;
    }
    let counts: Vec<u64> = entries.iter().map(|e| e.intervals).collect();
    let values = batches_of(&counts)
        .into_iter()
        .filter_map(|range| {
            let part: Vec<&LatencyRecord> =
                entries[range].iter().map(lat).filter(|l| l.n > 0).collect();
            let histograms: Vec<&HistogramRecord> =
                part.iter().filter_map(|l| l.histogram.as_ref()).collect();
            let bits = histograms
                .iter()
                .map(|h| h.sub_bucket_bits.unwrap_or(FINE_SUB_BUCKET_BITS))
                .min()?;
            let mut merged: Vec<LatencyBucket> = Vec::new();
            for h in histograms {
                let buckets: Vec<LatencyBucket> = h.buckets().collect();
                let at = h.sub_bucket_bits.unwrap_or(FINE_SUB_BUCKET_BITS);
                let buckets = if at > bits {
                    coarsen(&buckets, bits)
                } else {
                    buckets
                };
                merge_buckets(&mut merged, &buckets);
            }
            let min = part.iter().map(|l| l.min).min()?;
            let max = part.iter().map(|l| l.max).max()?;
            (!merged.is_empty())
                .then(|| bucket_percentile_ns(&merged, pct).clamp(min, max.max(min)) as f64)
        })
        .collect();
    Some(Samples {
        unit: Unit::BatchPercentiles,
        values,
        intervals: counts.iter().map(|&n| n.max(1)).sum(),
    })
}

/// Series of jobs that ran side by side (a reporting group in one step), added entry by
/// entry (their entries cover the same intervals).
#[must_use]
pub fn summed(series: &[&[JobIntervalRecord]]) -> Vec<JobIntervalRecord> {
    let len = series.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..len)
        .map(|i| {
            let mut out = JobIntervalRecord::default();
            for s in series {
                if let Some(e) = s.get(i) {
                    out.t_ns = out.t_ns.max(e.t_ns);
                    out.duration_ns = out.duration_ns.max(e.duration_ns);
                    out.intervals = out.intervals.max(e.intervals);
                    out.read.add(&e.read);
                    out.write.add(&e.write);
                    out.trim.add(&e.trim);
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::IntervalCounts;

    fn entry(ios: u64, ms: u64) -> JobIntervalRecord {
        JobIntervalRecord {
            t_ns: 0,
            duration_ns: ms * 1_000_000,
            intervals: 1,
            read: IntervalCounts {
                ios,
                bytes: ios * 4096,
                lat_sum_ns: ios * 1000,
            },
            ..JobIntervalRecord::default()
        }
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        assert!((t975(1.0) - 12.706).abs() < 1e-9);
        assert!((t975(10.0) - 2.228).abs() < 1e-9);
        assert!((t975(2.5) - (4.303 + 3.182) / 2.0).abs() < 1e-9);
        // Past the table: 40 -> 2.021, 120 -> 1.980, infinity -> 1.960.
        assert!((t975(40.0) - 2.021).abs() < 0.001, "{}", t975(40.0));
        assert!((t975(120.0) - 1.980).abs() < 0.001, "{}", t975(120.0));
        assert!((t975(f64::INFINITY) - 1.96).abs() < 0.001);
        assert!((t975(0.3) - 12.706).abs() < 1e-9);
    }

    #[test]
    fn welch_matches_a_worked_example() {
        // base mean 100 (var 2.5, n 5), new mean 90 (var 2.5, n 5): se = 1, df = 8,
        // t = 2.306: 90 - 100 = -10 +- 2.306.
        let base = [98.0, 99.0, 100.0, 101.0, 102.0];
        let new = [88.0, 89.0, 90.0, 91.0, 92.0];
        let i = welch(&base, &new).unwrap();
        assert!((i.low_pct - -12.306).abs() < 1e-9, "{i:?}");
        assert!((i.high_pct - -7.694).abs() < 1e-9, "{i:?}");
        assert!(i.excludes_zero());
        assert!((i.nearest_zero() - -7.694).abs() < 1e-9);
        assert_eq!(welch(&base[..1], &new), None);
        assert_eq!(welch(&[0.0, 0.0], &new), None);
        // No spread at all: the interval is the difference itself.
        let same = welch(&[5.0, 5.0], &[5.0, 5.0]).unwrap();
        assert_eq!((same.low_pct, same.high_pct), (0.0, 0.0));
        assert!(!same.excludes_zero());
    }

    #[test]
    fn a_verdict_needs_an_interval_off_zero_and_a_change_above_the_floor() {
        let off = |lo, hi| {
            Some(Interval {
                low_pct: lo,
                high_pct: hi,
                confidence: CONFIDENCE,
            })
        };
        assert_eq!(judge(true, -10.0, off(-12.0, -8.0), 5.0), Verdict::Worse);
        assert_eq!(judge(false, -10.0, off(-12.0, -8.0), 5.0), Verdict::Better);
        assert_eq!(judge(true, 10.0, off(8.0, 12.0), 5.0), Verdict::Better);
        // Off zero but under the floor.
        assert_eq!(judge(true, -3.0, off(-4.0, -2.0), 5.0), Verdict::NoChange);
        assert_eq!(judge(true, -3.0, off(-4.0, -2.0), 2.0), Verdict::Worse);
        // Above the floor but the interval holds zero.
        assert_eq!(judge(true, -20.0, off(-40.0, 1.0), 5.0), Verdict::NoChange);
        assert_eq!(judge(true, -20.0, None, 5.0), Verdict::InsufficientData);
    }

    #[test]
    fn batches_hold_ten_intervals_or_more_and_short_runs_have_none() {
        assert!(batches(&vec![entry(10, 10); 19]).is_empty());
        let two = batches(&vec![entry(10, 10); 20]);
        assert_eq!(two, vec![0..10, 10..20]);
        let long = batches(&vec![entry(10, 10); 305]);
        assert_eq!(long.len(), 10);
        assert!(long.iter().all(|r| r.len() >= 30));
        assert_eq!(long.last().unwrap().end, 305);
        // Merged entries count their intervals: 4 entries of 8 intervals make 2 batches.
        let mut merged = vec![entry(80, 80); 4];
        for e in &mut merged {
            e.intervals = 8;
        }
        let b = batches(&merged);
        assert_eq!(b.len(), 2, "{b:?}");
        assert!(b.iter().all(|r| r.len() * 8 >= 10));
    }

    #[test]
    fn batch_means_are_rates_over_the_batch_time() {
        // 10 intervals of 10 ms at 10 I/Os, then 10 at 20 I/Os: 1,000 and 2,000 IOPS.
        let mut series = vec![entry(10, 10); 10];
        series.extend(vec![entry(20, 10); 10]);
        let iops = batch_means(&series, Dir::Read, Quantity::Iops);
        assert_eq!(iops.unit, Unit::BatchMeans);
        assert_eq!(iops.intervals, 20);
        assert_eq!(iops.values.len(), 2);
        assert!((iops.values[0] - 1000.0).abs() < 1e-6);
        assert!((iops.values[1] - 2000.0).abs() < 1e-6);
        let bw = batch_means(&series, Dir::Read, Quantity::BytesPerS);
        assert!((bw.values[1] - 2000.0 * 4096.0).abs() < 1e-3);
        let lat = batch_means(&series, Dir::Read, Quantity::LatMeanNs);
        assert_eq!(lat.values, vec![1000.0, 1000.0]);
        // No writes: no latency samples, rates of zero.
        assert!(
            batch_means(&series, Dir::Write, Quantity::LatMeanNs)
                .values
                .is_empty()
        );
        assert_eq!(
            batch_means(&series, Dir::Write, Quantity::Iops).values,
            vec![0.0, 0.0]
        );
        let short = batch_means(&series[..15], Dir::Read, Quantity::Iops);
        assert!(short.values.is_empty());
        assert_eq!(short.intervals, 15);
    }

    /// An interval's latency: `n` I/Os, `fast` of them at 100 us, the rest at `slow_ns`.
    fn latency(n: u64, fast: u64, slow_ns: u64) -> LatencyRecord {
        let le = |ns| crate::stats::fine_bucket_le_ns(ns, 7);
        let mut buckets = vec![LatencyBucket {
            le_ns: le(100_000),
            count: fast,
        }];
        if n > fast {
            buckets.push(LatencyBucket {
                le_ns: le(slow_ns),
                count: n - fast,
            });
        }
        LatencyRecord {
            min: 100_000,
            max: if n > fast { slow_ns } else { 100_000 },
            mean: 0.0,
            n,
            histogram: Some(HistogramRecord::from_buckets(&buckets, 7)),
            ..LatencyRecord::default()
        }
    }

    #[test]
    fn a_batch_percentile_is_read_off_the_batch_histograms_merged() {
        // 20 intervals of 100 I/Os: in each, 98 at 100 us and 2 slow. The first batch's slow
        // ones take 1 ms, the second's 2 ms: p99 of each batch's 1,000 I/Os is its slow ones,
        // p50 the fast ones.
        let mut lats: Vec<LatencyRecord> = (0..10).map(|_| latency(100, 98, 1_000_000)).collect();
        lats.extend((0..10).map(|_| latency(100, 98, 2_000_000)));
        let idle = LatencyRecord::default();
        let entries: Vec<LatencyEntry> = lats
            .iter()
            .map(|l| LatencyEntry {
                intervals: 1,
                dirs: [l, &idle, &idle],
            })
            .collect();
        let p99 = batch_percentiles(&entries, Dir::Read, 99.0).unwrap();
        assert_eq!(p99.unit, Unit::BatchPercentiles);
        assert_eq!(p99.intervals, 20);
        assert_eq!(p99.values.len(), 2);
        // Within the bucket's 0.78%, and never past the slowest I/O.
        assert!(p99.values[0] <= 1e6 && p99.values[0] > 0.99e6, "{p99:?}");
        assert!(p99.values[1] <= 2e6 && p99.values[1] > 1.98e6, "{p99:?}");
        let p50 = batch_percentiles(&entries, Dir::Read, 50.0).unwrap();
        assert!(p50.values.iter().all(|&v| (v - 100_000.0).abs() < 1000.0));
        // No writes: no samples, but histograms (none needed).
        let none = batch_percentiles(&entries, Dir::Write, 99.0).unwrap();
        assert!(none.values.is_empty());
        // Too few intervals for two batches: no samples.
        let short = batch_percentiles(&entries[..15], Dir::Read, 99.0).unwrap();
        assert!(short.values.is_empty());
        // An interval with I/O but no histogram (an older record): nothing can be read.
        let mut old = lats[3].clone();
        old.histogram = None;
        let mut older = entries.clone();
        older[3].dirs[0] = &old;
        assert!(batch_percentiles(&older, Dir::Read, 99.0).is_none());
        // Coarser intervals merge at their resolution: a 4-bit bucket holds the 7-bit ones.
        let coarse = LatencyRecord {
            histogram: Some(HistogramRecord::from_buckets(
                &crate::stats::coarsen(
                    &lats[0]
                        .histogram
                        .as_ref()
                        .unwrap()
                        .buckets()
                        .collect::<Vec<_>>(),
                    4,
                ),
                4,
            )),
            ..lats[0].clone()
        };
        older[3].dirs[0] = &coarse;
        let mixed = batch_percentiles(&older, Dir::Read, 99.0).unwrap();
        assert_eq!(mixed.values.len(), 2);
        assert!(
            mixed.values[0] <= 1e6 && mixed.values[0] > 0.9e6,
            "{mixed:?}"
        );
    }

    #[test]
    fn jobs_side_by_side_add_up_entry_by_entry() {
        let a = vec![entry(10, 10); 3];
        let b = vec![entry(5, 10); 2];
        let sum = summed(&[&a, &b]);
        assert_eq!(sum.len(), 3);
        assert_eq!(sum[0].read.ios, 15);
        assert_eq!(sum[2].read.ios, 10);
        assert_eq!(sum[0].duration_ns, 10_000_000);
    }
}
