//! What a sweep's points say: pure rules that turn the measured points of one direction of a
//! sweep into typed findings (`peak`, `gain_stop`, `knee`, `latency_target`; the sentences
//! under the sweep table are rendered from them by `report::sweep`) and into `--advice` for a
//! block-size sweep.
//!
//! Every function takes the points in sweep order (the order the steps ran, normally ascending
//! `x`) and never reorders them. Points with unusable numbers (NaN, infinite, negative, or a
//! zero where a ratio needs a divisor) are skipped by the rule that cannot use them, never a
//! panic: a failed step must not make the analysis fail.

use crate::analysis::trust::beats;
use crate::record::{PointValue, SweepFinding, SweptValue, TrustMark};

/// Growth below this (percent) means "adding more stops paying" ([`gain_stop`]) and growth at
/// or above it means "still growing" ([`knee`]). 5% sits above the +-3% run-to-run wobble of a
/// repeated fio step, so noise alone does not cross it.
const GROWTH_THRESHOLD_PCT: f64 = 5.0;
/// Mean latency at least this many times the point's own counts as "latency doubles".
const LATENCY_FACTOR: f64 = 2.0;
/// The knee's p99 may be at most this many times the lowest point's p99.
const KNEE_P99_FACTOR: u64 = 2;
/// `--advice`: a read-heavy or write-heavy range is the run of points within 5% of the peak
/// (the same noise margin as [`GROWTH_THRESHOLD_PCT`]).
const HEAVY_RANGE_FRACTION: f64 = 0.95;
/// `--advice`: a mixed block size keeps both directions at >= 90% of their peaks.
const MIXED_FRACTION: f64 = 0.90;

/// One measured point of a sweep, for one direction (read or write).
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The swept parameter's value: bytes, depth, jobs.
    pub x: f64,
    /// As the user wrote it: "2M", "32".
    pub label: String,
    pub iops: f64,
    pub bytes_per_s: f64,
    pub mean_ns: f64,
    pub p99_ns: u64,
    /// What ran when it is not what the label says (`ran psync at iodepth 1`): every
    /// statement that names the point says it too.
    pub ran: Option<String>,
    /// The point's spread, percent (over its loops, or batches of its intervals): two points
    /// within both their spreads tie.
    pub spread_pct: Option<f64>,
    /// The point's trust marks: the advice says it is not reliable when it rests on any.
    pub marks: Vec<TrustMark>,
}

/// The point of highest bandwidth.
#[derive(Debug, Clone, PartialEq)]
pub struct Peak {
    pub label: String,
    pub bytes_per_s: f64,
    pub iops: f64,
}

/// Which number of a [`Sample`] a rule looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    Iops,
    Bandwidth,
}

impl Metric {
    fn of(self, sample: &Sample) -> f64 {
        match self {
            Self::Iops => sample.iops,
            Self::Bandwidth => sample.bytes_per_s,
        }
    }

    /// As the record's `gain_stop` names it.
    fn key(self) -> &'static str {
        match self {
            Self::Iops => "iops",
            Self::Bandwidth => "bandwidth",
        }
    }
}

/// Where adding more stops paying (see [`gain_stop`]).
#[derive(Debug, Clone, PartialEq)]
pub struct GainStop {
    pub label: String,
    /// Growth of the metric from this point to the best later point, percent (< 5, may be
    /// negative when the curve falls).
    pub growth_pct: f64,
    /// The highest later mean latency over this point's mean latency (>= 2).
    pub latency_factor: f64,
}

/// The knee of an iodepth or numjobs sweep (see [`knee`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Knee {
    pub label: String,
    pub iops: f64,
    pub p99_ns: u64,
    /// 2x the lowest point's p99.
    pub p99_limit_ns: u64,
}

/// fio's `latency_target` as a visible sweep (see [`latency_target`]); `L` names a point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetResult<L = String> {
    /// The deepest point before the first miss whose latency met the target.
    pub met: Option<L>,
    /// The first point whose latency missed the target.
    pub first_miss: Option<L>,
}

/// `Some(value)` for a finite value > 0: something a ratio can divide by.
fn positive(value: f64) -> Option<f64> {
    (value.is_finite() && value > 0.0).then_some(value)
}

/// The highest bandwidth; ties go to the smaller `x`. Points whose bandwidth is NaN, infinite
/// or negative are skipped; `None` when no point is left. A non-finite `iops` is reported as 0.
#[must_use]
pub fn peak(samples: &[Sample]) -> Option<Peak> {
    samples
        .iter()
        .filter(|s| s.bytes_per_s.is_finite() && s.bytes_per_s >= 0.0)
        .reduce(|best, s| {
            let higher = s.bytes_per_s > best.bytes_per_s;
            let tie_smaller_x = s.bytes_per_s == best.bytes_per_s && s.x.total_cmp(&best.x).is_lt();
            if higher || tie_smaller_x { s } else { best }
        })
        .map(|s| Peak {
            label: s.label.clone(),
            bytes_per_s: s.bytes_per_s,
            iops: if s.iops.is_finite() { s.iops } else { 0.0 },
        })
}

/// Where adding more stops paying: the first point P (in sweep order, with at least one later
/// point) such that
/// - the metric grows by < 5% from P to the highest metric of all later points, and
/// - mean latency at least doubles: the highest mean latency of all later points is >= 2x P's.
///
/// Checking against the best *later* point, not just the next one, keeps a +-3% wobble on a
/// growing curve from looking like a stop, and a real plateau with the same wobble still stops.
/// A flat curve whose latency doubles stops at its first point; a flat curve whose latency
/// does not grow never stops (adding more costs nothing). `None` with fewer than 3 usable points, when
/// the curve keeps growing, or when latency never doubles. Points with a metric or mean latency
/// that is not finite and > 0 can be neither P nor a later point.
#[must_use]
pub fn gain_stop(samples: &[Sample], metric: Metric) -> Option<GainStop> {
    let usable: Vec<(&Sample, f64, f64)> = samples
        .iter()
        .filter_map(|s| Some((s, positive(metric.of(s))?, positive(s.mean_ns)?)))
        .collect();
    if usable.len() < 3 {
        return None;
    }
    usable
        .iter()
        .enumerate()
        .find_map(|(i, &(point, value, mean_ns))| {
            let later = &usable[i + 1..];
            let best_later = later.iter().map(|&(_, v, _)| v).reduce(f64::max)?;
            let slowest_later = later.iter().map(|&(_, _, m)| m).reduce(f64::max)?;
            let growth_pct = (best_later - value) / value * 100.0;
            let latency_factor = slowest_later / mean_ns;
            (growth_pct < GROWTH_THRESHOLD_PCT && latency_factor >= LATENCY_FACTOR).then(|| {
                GainStop {
                    label: point.label.clone(),
                    growth_pct,
                    latency_factor,
                }
            })
        })
}

/// The knee of an iodepth (or numjobs) sweep. Only points whose IOPS and p99 are both finite
/// and above zero take part (others are failed or empty steps). The lowest point is the first
/// of them in sweep order; the limit is 2x its p99. Walking up from it, the walk ends at the
/// first point whose p99 exceeds the limit (the latency no longer *stays* within it); the knee
/// is the last point before that end whose IOPS grew >= 5% over the point before it.
///
/// When no point after the lowest qualifies (more depth never bought 5% within the limit), the
/// lowest point itself is the knee: the statement "knee at iodepth=1" is what the user needs to
/// hear. `None` with fewer than 2 usable points (a single point has no curve to bend).
#[must_use]
pub fn knee(samples: &[Sample]) -> Option<Knee> {
    let usable: Vec<&Sample> = samples
        .iter()
        .filter(|s| positive(s.iops).is_some() && s.p99_ns > 0)
        .collect();
    let (&lowest, rest) = usable.split_first()?;
    if rest.is_empty() {
        return None;
    }
    let p99_limit_ns = lowest.p99_ns.saturating_mul(KNEE_P99_FACTOR);
    let mut knee = lowest;
    for pair in usable.windows(2) {
        let (previous, point) = (pair[0], pair[1]);
        if point.p99_ns > p99_limit_ns {
            break;
        }
        if point.iops >= previous.iops * (1.0 + GROWTH_THRESHOLD_PCT / 100.0) {
            knee = point;
        }
    }
    Some(Knee {
        label: knee.label.clone(),
        iops: knee.iops,
        p99_ns: knee.p99_ns,
        p99_limit_ns,
    })
}

/// fio's `latency_target` as a visible sweep. `samples` are `(label, latency_ns)` in sweep
/// order, the latency being the percentile the caller chose (e.g. p99). A point meets the
/// target when its latency is <= `target_ns`. `first_miss` is the first point that missed;
/// `met` is the deepest point *before* it that met (points after a miss are not looked at, so
/// noise cannot report a met point deeper than a miss). A latency of 0 means the step measured
/// nothing: it neither meets nor misses.
#[must_use]
pub fn latency_target<L: Clone>(samples: &[(L, u64)], target_ns: u64) -> TargetResult<L> {
    let mut result = TargetResult {
        met: None,
        first_miss: None,
    };
    for (label, latency_ns) in samples.iter().filter(|(_, ns)| *ns > 0) {
        if *latency_ns > target_ns {
            result.first_miss = Some(label.clone());
            break;
        }
        result.met = Some(label.clone());
    }
    result
}

/// What one direction of a sweep along `dimension` shows, typed (`at`: the other dimensions'
/// values, in a matrix):
/// - every dimension: the peak (only when its bandwidth > 0);
/// - `bs` (bandwidth), `iodepth` and `numjobs` (IOPS): where the gain stops, when
///   [`gain_stop`] finds a stop;
/// - `iodepth` and `numjobs`: the knee, when [`knee`] finds one.
///
/// Categorical dimensions (rw, direct, fsync, ioengine, sync) get only the peak.
#[must_use]
pub fn findings(
    dimension: &str,
    direction: &str,
    at: &[PointValue],
    samples: &[Sample],
) -> Vec<SweepFinding> {
    let ran = |label: &str| {
        samples
            .iter()
            .find(|s| s.label == label)
            .and_then(|s| s.ran.clone())
    };
    let mut out = Vec::new();
    if let Some(top) = peak(samples).filter(|p| p.bytes_per_s > 0.0) {
        out.push(SweepFinding::Peak {
            at: at.to_vec(),
            dimension: dimension.to_string(),
            value: SweptValue::of(&top.label),
            direction: direction.to_string(),
            bytes_per_s: top.bytes_per_s,
            iops: top.iops,
            ran: ran(&top.label),
        });
    }
    let gain_metric = match dimension {
        "bs" => Some(Metric::Bandwidth),
        "iodepth" | "numjobs" => Some(Metric::Iops),
        _ => None,
    };
    if let Some((metric, stop)) = gain_metric.and_then(|m| gain_stop(samples, m).map(|s| (m, s))) {
        out.push(SweepFinding::GainStop {
            at: at.to_vec(),
            dimension: dimension.to_string(),
            value: SweptValue::of(&stop.label),
            direction: direction.to_string(),
            metric: metric.key().to_string(),
            growth_pct: stop.growth_pct,
            latency_factor: stop.latency_factor,
            ran: ran(&stop.label),
        });
    }
    if matches!(dimension, "iodepth" | "numjobs") {
        if let Some(k) = knee(samples) {
            out.push(SweepFinding::Knee {
                at: at.to_vec(),
                dimension: dimension.to_string(),
                value: SweptValue::of(&k.label),
                direction: direction.to_string(),
                iops: k.iops,
                p99_ns: k.p99_ns,
                p99_limit_ns: k.p99_limit_ns,
                ran: ran(&k.label),
            });
        }
    }
    out
}

/// `--advice` for a block-size sweep, from its read and write points.
///
/// The rule:
/// 1. Only block sizes measured in both directions count (matched by label), in the order of
///    `read`. `None` when none of them has a read, or none a write, bandwidth above zero.
/// 2. The peaks are the highest read and the highest write bandwidth among those (ties: the
///    earlier in sweep order). Write-heavy: the run of adjacent block sizes around the write
///    peak whose write bandwidth is >= 95% of the peak (within noise of it) or that the peak
///    does not beat by more than both their spreads ([`beats`]), said "2M" or "2M-4M".
///    Block sizes further away that tie with the peak by the spreads are `write_ties`: the
///    advice names no single winner then. Read-heavy: the same for reads.
/// 3. Mixed: the block sizes strictly between the write peak and the read peak whose read AND
///    write bandwidth are both >= 90% of their peaks (the peak itself when both peak at the
///    same block size), as runs of adjacent block sizes (said "4M-8M", "4M, 16M"); empty
///    when none qualifies, which the advice says.
/// 4. `unreliable`: every trust mark of the points it rests on (the sentence says what to
///    change).
///
/// The result is [`SweepFinding::Advice`]; `report::sweep` says it as e.g. "use 2M for
/// write-heavy, 16M-32M for read-heavy, 4M-8M for mixed".
#[must_use]
pub fn advice(read: &[Sample], write: &[Sample]) -> Option<SweepFinding> {
    let bandwidth = |s: &Sample| positive(s.bytes_per_s).unwrap_or(0.0);
    // (label, read, write) per block size measured in both directions, and the pairs.
    let pairs: Vec<(&Sample, &Sample)> = read
        .iter()
        .filter_map(|r| Some((r, write.iter().find(|w| w.label == r.label)?)))
        .collect();
    let points: Vec<(&str, f64, f64)> = pairs
        .iter()
        .map(|(r, w)| (r.label.as_str(), bandwidth(r), bandwidth(w)))
        .collect();
    let peak_at = |value: fn(&(&str, f64, f64)) -> f64| {
        // First index of the highest value (points are in sweep order: the smaller size).
        let (index, best) = points
            .iter()
            .map(value)
            .enumerate()
            .fold((0, 0.0), |acc, (i, v)| if v > acc.1 { (i, v) } else { acc });
        (best > 0.0).then_some((index, best))
    };
    let (read_peak, read_best) = peak_at(|p| p.1)?;
    let (write_peak, write_best) = peak_at(|p| p.2)?;

    let around = |peak: usize, keep: &dyn Fn(usize) -> bool| {
        let first = (0..peak)
            .rev()
            .take_while(|&i| keep(i))
            .last()
            .unwrap_or(peak);
        let last = (peak + 1..points.len())
            .take_while(|&i| keep(i))
            .last()
            .unwrap_or(peak);
        (first, last)
    };
    // Within 5% of the peak, or not beaten by it beyond both spreads.
    let side = |i: usize, writes: bool| if writes { pairs[i].1 } else { pairs[i].0 };
    let tied = |peak: usize, i: usize, writes: bool| {
        let (p, s) = (side(peak, writes), side(i, writes));
        !beats(bandwidth(p), p.spread_pct, bandwidth(s), s.spread_pct)
    };
    let heavy = |peak: usize, best: f64, writes: bool| {
        let value = |i: usize| if writes { points[i].2 } else { points[i].1 };
        let keep = |i: usize| value(i) >= best * HEAVY_RANGE_FRACTION || tied(peak, i, writes);
        let (first, last) = around(peak, &keep);
        let range: Vec<SweptValue> = (first..=last)
            .map(|i| SweptValue::of(points[i].0))
            .collect();
        let ties: Vec<SweptValue> = (0..points.len())
            .filter(|&i| (i < first || i > last) && tied(peak, i, writes))
            .map(|i| SweptValue::of(points[i].0))
            .collect();
        (range, ties)
    };
    let (write_heavy, write_ties) = heavy(write_peak, write_best, true);
    let (read_heavy, read_ties) = heavy(read_peak, read_best, false);

    let (low, high) = (read_peak.min(write_peak), read_peak.max(write_peak));
    let between: Vec<usize> = if low == high {
        vec![low]
    } else {
        (low + 1..high).collect()
    };
    let mixed: Vec<usize> = between
        .into_iter()
        .filter(|&i| {
            points[i].1 >= read_best * MIXED_FRACTION && points[i].2 >= write_best * MIXED_FRACTION
        })
        .collect();
    let mut unreliable: Vec<TrustMark> = pairs
        .iter()
        .flat_map(|(r, w)| r.marks.iter().chain(&w.marks).copied())
        .collect();
    unreliable.sort_unstable();
    unreliable.dedup();
    Some(SweepFinding::Advice {
        write_heavy,
        read_heavy,
        mixed: runs(&points, &mixed),
        write_peak: SweptValue::of(points[write_peak].0),
        read_peak: SweptValue::of(points[read_peak].0),
        write_ties,
        read_ties,
        unreliable,
    })
}

/// Indices (ascending) as runs of adjacent points: [[4M, 8M]], [[1M], [4M, 8M]].
fn runs(points: &[(&str, f64, f64)], indices: &[usize]) -> Vec<Vec<SweptValue>> {
    let mut out: Vec<Vec<SweptValue>> = Vec::new();
    for (k, &i) in indices.iter().enumerate() {
        let value = SweptValue::of(points[i].0);
        match out.last_mut() {
            Some(run) if k > 0 && indices[k - 1] + 1 == i => run.push(value),
            _ => out.push(vec![value]),
        }
    }
    out
}

/// Curves for tests of the rules and of what renders them.
#[cfg(test)]
pub(crate) mod curves {
    use super::Sample;

    pub(crate) const US: u64 = 1_000;

    pub(crate) fn point(
        x: f64,
        label: &str,
        iops: f64,
        bytes_per_s: f64,
        mean_ns: f64,
        p99_ns: u64,
    ) -> Sample {
        Sample {
            x,
            label: label.to_owned(),
            iops,
            bytes_per_s,
            mean_ns,
            p99_ns,
            ran: None,
            spread_pct: None,
            marks: Vec::new(),
        }
    }

    /// An iodepth sweep 1, 2, 4, ... with the given IOPS and p99s; mean latency from Little's
    /// law (depth / IOPS), bandwidth at 4 KiB per IO.
    pub(crate) fn depth_sweep(iops: &[f64], p99_us: &[u64]) -> Vec<Sample> {
        iops.iter()
            .zip(p99_us)
            .enumerate()
            .map(|(i, (&iops, &p99))| {
                let depth = f64::from(1u32 << i);
                point(
                    depth,
                    &depth.to_string(),
                    iops,
                    iops * 4096.0,
                    depth / iops * 1e9,
                    p99 * US,
                )
            })
            .collect()
    }

    /// The iodepth sweep of the statement examples: grows to 32, then flat while p99 explodes.
    pub(crate) fn knee_at_32() -> Vec<Sample> {
        depth_sweep(
            &[10e3, 19e3, 36e3, 60e3, 75e3, 81.2e3, 82e3, 82.5e3],
            &[300, 310, 320, 340, 380, 412, 700, 1400],
        )
    }

    /// A block-size sweep in MB/s, labels 1M.. doubling.
    pub(crate) fn bs_sweep(mb_per_s: &[f64]) -> Vec<Sample> {
        const LABELS: [&str; 7] = ["1M", "2M", "4M", "8M", "16M", "32M", "64M"];
        mb_per_s
            .iter()
            .zip(LABELS)
            .enumerate()
            .map(|(i, (&mb, label))| {
                let bs = f64::from(1u32 << (20 + i));
                let bw = mb * 1e6;
                point(bs, label, bw / bs, bw, bs / bw * 1e9, 1000 * US)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::curves::*;
    use super::*;

    fn labels(s: &Option<String>) -> Option<&str> {
        s.as_deref()
    }

    // ---- peak

    #[test]
    fn peak_of_nothing_is_none() {
        assert_eq!(peak(&[]), None);
    }

    #[test]
    fn peak_of_a_single_point_is_that_point() {
        let p = peak(&[point(4096.0, "4k", 100.0, 409_600.0, 1e4, 20 * US)]).unwrap();
        assert_eq!(
            (p.label.as_str(), p.bytes_per_s, p.iops),
            ("4k", 409_600.0, 100.0)
        );
    }

    #[test]
    fn peak_of_a_monotonic_curve_is_the_last_point() {
        assert_eq!(peak(&knee_at_32()).unwrap().label, "128");
    }

    #[test]
    fn peak_of_a_flat_curve_goes_to_the_smaller_x_not_the_first_listed() {
        let flat = [
            point(8.0, "8", 1.0, 100.0, 1.0, 1),
            point(2.0, "2", 1.0, 100.0, 1.0, 1),
            point(4.0, "4", 1.0, 100.0, 1.0, 1),
        ];
        assert_eq!(peak(&flat).unwrap().label, "2");
    }

    #[test]
    fn peak_skips_nan_infinite_and_negative_bandwidth() {
        let odd = [
            point(1.0, "nan", 1.0, f64::NAN, 1.0, 1),
            point(2.0, "inf", 1.0, f64::INFINITY, 1.0, 1),
            point(3.0, "neg", 1.0, -5.0, 1.0, 1),
            point(4.0, "ok", f64::NAN, 0.0, 1.0, 1),
        ];
        let p = peak(&odd).unwrap();
        assert_eq!((p.label.as_str(), p.iops), ("ok", 0.0));
        assert_eq!(peak(&odd[..3]), None);
    }

    // ---- gain_stop

    #[test]
    fn gain_stop_needs_three_usable_points() {
        assert_eq!(gain_stop(&[], Metric::Iops), None);
        let two = depth_sweep(&[100.0, 100.0], &[1, 1]);
        assert_eq!(gain_stop(&two, Metric::Iops), None);
        let mut three = depth_sweep(&[100.0, 100.0, 100.0], &[1, 1, 1]);
        three[1].mean_ns = f64::NAN;
        assert_eq!(gain_stop(&three, Metric::Iops), None);
    }

    #[test]
    fn gain_stop_of_a_flat_curve_whose_latency_doubles_is_the_first_point() {
        let flat = depth_sweep(&[5e3; 4], &[100; 4]);
        let stop = gain_stop(&flat, Metric::Iops).unwrap();
        assert_eq!(stop.label, "1");
        assert!(stop.growth_pct.abs() < 1e-9);
        assert!((stop.latency_factor - 8.0).abs() < 1e-9);
    }

    #[test]
    fn gain_stop_of_a_flat_curve_with_flat_latency_is_none() {
        let flat: Vec<Sample> = (0..4)
            .map(|i| point(f64::from(i), &i.to_string(), 5e3, 2e7, 200e3, 100 * US))
            .collect();
        assert_eq!(gain_stop(&flat, Metric::Iops), None);
    }

    #[test]
    fn gain_stop_of_a_monotonic_curve_is_none() {
        let growing = depth_sweep(&[1e3, 2e3, 4e3, 8e3, 16e3], &[100; 5]);
        assert_eq!(gain_stop(&growing, Metric::Iops), None);
        assert_eq!(gain_stop(&growing, Metric::Bandwidth), None);
    }

    #[test]
    fn gain_stop_ignores_a_3_percent_wobble_on_a_growing_curve() {
        // +10% a step, every other point 3% up or down: single steps grow as little as +3.7%.
        let iops: Vec<f64> = (0..8)
            .map(|i| 1e4 * 1.1f64.powi(i) * if i % 2 == 0 { 1.03 } else { 0.97 })
            .collect();
        let noisy = depth_sweep(&iops, &[100; 8]);
        assert_eq!(gain_stop(&noisy, Metric::Iops), None);
    }

    #[test]
    fn gain_stop_finds_a_real_plateau_under_a_3_percent_wobble() {
        let iops = [
            10e3,
            20e3,
            40e3,
            40e3 * 0.97,
            40e3 * 1.03,
            40e3 * 0.98,
            40e3 * 1.02,
        ];
        let plateau = depth_sweep(&iops, &[100; 7]);
        let stop = gain_stop(&plateau, Metric::Iops).unwrap();
        assert_eq!(stop.label, "4");
        assert!((stop.growth_pct - 3.0).abs() < 1e-9, "{stop:?}");
        assert!(stop.latency_factor >= 2.0);
    }

    #[test]
    fn gain_stop_wants_latency_to_double() {
        let mut plateau = depth_sweep(&[10e3, 20e3, 40e3, 40e3, 40e3], &[100; 5]);
        let slower_ns = plateau[2].mean_ns * 1.9;
        for s in &mut plateau[3..] {
            s.mean_ns = slower_ns;
        }
        assert_eq!(gain_stop(&plateau, Metric::Iops), None);
    }

    #[test]
    fn gain_stop_on_a_falling_curve_reports_negative_growth() {
        let falling = depth_sweep(&[10e3, 9e3, 8e3], &[100; 3]);
        let stop = gain_stop(&falling, Metric::Iops).unwrap();
        assert_eq!(stop.label, "1");
        assert!((stop.growth_pct + 10.0).abs() < 1e-9);
    }

    #[test]
    fn gain_stop_skips_zero_and_nan_points_without_dividing_by_zero() {
        let mut curve = depth_sweep(&[0.0, 10e3, 10e3, f64::NAN, 10e3], &[100; 5]);
        curve[2].mean_ns = 0.0;
        // Usable: depths 2 and 16 only.
        assert_eq!(gain_stop(&curve, Metric::Iops), None);
        curve[2].mean_ns = 2.0 * curve[1].mean_ns;
        let stop = gain_stop(&curve, Metric::Iops).unwrap();
        assert_eq!(stop.label, "2");
        assert!(stop.growth_pct.is_finite() && stop.latency_factor.is_finite());
    }

    // ---- knee

    #[test]
    fn knee_needs_two_usable_points() {
        assert_eq!(knee(&[]), None);
        assert_eq!(knee(&depth_sweep(&[10e3], &[100])), None);
        assert_eq!(knee(&depth_sweep(&[10e3, f64::NAN], &[100, 100])), None);
    }

    #[test]
    fn knee_is_the_last_growing_point_before_p99_leaves_the_limit() {
        let k = knee(&knee_at_32()).unwrap();
        assert_eq!(
            k,
            Knee {
                label: "32".into(),
                iops: 81.2e3,
                p99_ns: 412 * US,
                p99_limit_ns: 600 * US
            }
        );
    }

    #[test]
    fn knee_of_a_monotonic_curve_within_the_limit_is_the_last_point() {
        let growing = depth_sweep(&[1e3, 2e3, 4e3, 8e3], &[100, 120, 150, 200]);
        assert_eq!(knee(&growing).unwrap().label, "8");
    }

    #[test]
    fn knee_of_a_flat_curve_is_the_lowest_point() {
        let flat = depth_sweep(&[5e3; 4], &[100; 4]);
        let k = knee(&flat).unwrap();
        assert_eq!((k.label.as_str(), k.p99_limit_ns), ("1", 200 * US));
    }

    #[test]
    fn knee_is_the_lowest_point_when_the_second_already_breaks_the_limit() {
        let curve = depth_sweep(&[5e3, 10e3, 20e3], &[100, 201, 150]);
        assert_eq!(knee(&curve).unwrap().label, "1");
    }

    #[test]
    fn knee_ignores_growth_after_the_limit_was_left() {
        let curve = depth_sweep(&[5e3, 10e3, 11e3, 20e3], &[100, 150, 250, 190]);
        assert_eq!(knee(&curve).unwrap().label, "2");
    }

    #[test]
    fn knee_under_a_3_percent_wobble_stays_at_the_last_real_growth() {
        let curve = depth_sweep(&[10e3, 20e3, 40e3, 41.2e3, 39e3, 40.5e3], &[100; 6]);
        assert_eq!(knee(&curve).unwrap().label, "4");
    }

    #[test]
    fn knee_skips_empty_steps_and_saturates_the_limit() {
        let mut curve = depth_sweep(&[0.0, 10e3, 20e3, f64::NAN], &[100, 100, 150, 100]);
        curve[2].p99_ns = 0;
        curve[3].iops = 30e3;
        let k = knee(&curve).unwrap();
        assert_eq!((k.label.as_str(), k.p99_limit_ns), ("8", 200 * US));
        let huge = depth_sweep(&[1.0, 2.0], &[u64::MAX / US, u64::MAX / US]);
        assert_eq!(knee(&huge).unwrap().label, "2");
    }

    // ---- latency_target

    fn lat(points: &[(&str, u64)]) -> Vec<(String, u64)> {
        points.iter().map(|&(l, ns)| (l.to_owned(), ns)).collect()
    }

    #[test]
    fn latency_target_of_nothing_is_neither() {
        assert_eq!(
            latency_target::<String>(&[], 1000),
            TargetResult {
                met: None,
                first_miss: None
            }
        );
    }

    #[test]
    fn latency_target_all_met_has_no_miss() {
        let r = latency_target(&lat(&[("1", 100), ("2", 200), ("4", 500)]), 500);
        assert_eq!((labels(&r.met), labels(&r.first_miss)), (Some("4"), None));
    }

    #[test]
    fn latency_target_missed_at_once_has_no_met_point() {
        let r = latency_target(&lat(&[("1", 600), ("2", 200)]), 500);
        assert_eq!((labels(&r.met), labels(&r.first_miss)), (None, Some("1")));
    }

    #[test]
    fn latency_target_stops_at_the_first_miss_despite_noise_after_it() {
        let r = latency_target(&lat(&[("1", 100), ("2", 300), ("4", 501), ("8", 400)]), 500);
        assert_eq!(
            (labels(&r.met), labels(&r.first_miss)),
            (Some("2"), Some("4"))
        );
    }

    #[test]
    fn latency_target_skips_steps_that_measured_nothing() {
        let r = latency_target(&lat(&[("1", 0), ("2", 300), ("4", 0)]), 0);
        assert_eq!((labels(&r.met), labels(&r.first_miss)), (None, Some("2")));
        let r = latency_target(&lat(&[("1", 100), ("2", 0)]), 100);
        assert_eq!((labels(&r.met), labels(&r.first_miss)), (Some("1"), None));
    }

    // ---- advice

    /// The dd study: writes peak at 2M, reads at 16M (32M within 5%), 4M and 8M keep >= 90%
    /// of both peaks.
    fn dd_study() -> (Vec<Sample>, Vec<Sample>) {
        let read = bs_sweep(&[2000.0, 3000.0, 5100.0, 5200.0, 5600.0, 5500.0, 5000.0]);
        let write = bs_sweep(&[3000.0, 4200.0, 3900.0, 3850.0, 3500.0, 3400.0, 3300.0]);
        (read, write)
    }

    /// The advice as [`advice`] types it: the write-heavy and read-heavy runs, the mixed
    /// runs, the write and read peaks.
    fn told(
        write_heavy: &[&str],
        read_heavy: &[&str],
        mixed: &[&[&str]],
        peaks: (&str, &str),
    ) -> SweepFinding {
        let values = |l: &[&str]| l.iter().map(|v| SweptValue::of(v)).collect::<Vec<_>>();
        SweepFinding::Advice {
            write_heavy: values(write_heavy),
            read_heavy: values(read_heavy),
            mixed: mixed.iter().map(|run| values(run)).collect(),
            write_peak: SweptValue::of(peaks.0),
            read_peak: SweptValue::of(peaks.1),
            write_ties: Vec::new(),
            read_ties: Vec::new(),
            unreliable: Vec::new(),
        }
    }

    #[test]
    fn advice_names_no_winner_over_a_runner_up_within_both_spreads() {
        let (mut read, mut write) = dd_study();
        // Write: 2M 4200 peaks, over 5% above 4M 3900 and 8M 3850; with spreads of 5% each
        // they tie (3850 * 1.05 = 4042 >= 4200 * 0.95 = 3990), 1M 3000 does not.
        for s in &mut write {
            s.spread_pct = Some(5.0);
        }
        // Read: 16M 5600 peaks, 32M 5500 is within 5%, 64M 5000 with a 15% spread ties
        // (5750 >= 5600).
        read[6].spread_pct = Some(15.0);
        // 1M 2000 with a 200% spread ties too, far from the peak.
        read[0].spread_pct = Some(200.0);
        let Some(SweepFinding::Advice {
            write_heavy,
            write_ties,
            read_heavy,
            read_ties,
            unreliable,
            ..
        }) = advice(&read, &write)
        else {
            panic!("no advice");
        };
        let said = |v: &[SweptValue]| v.iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(said(&write_heavy), ["2M", "4M", "8M"]);
        assert!(write_ties.is_empty());
        assert_eq!(said(&read_heavy), ["16M", "32M", "64M"]);
        assert_eq!(said(&read_ties), ["1M"]);
        assert!(unreliable.is_empty());
    }

    #[test]
    fn advice_on_marked_points_says_which_marks() {
        let (mut read, write) = dd_study();
        read[2].marks = vec![TrustMark::Shared];
        read[6].marks = vec![TrustMark::Short, TrustMark::Shared];
        let Some(SweepFinding::Advice { unreliable, .. }) = advice(&read, &write) else {
            panic!("no advice");
        };
        assert_eq!(unreliable, [TrustMark::Short, TrustMark::Shared]);
    }

    #[test]
    fn advice_of_the_dd_study() {
        let (read, write) = dd_study();
        assert_eq!(
            advice(&read, &write).unwrap(),
            told(&["2M"], &["16M", "32M"], &[&["4M", "8M"]], ("2M", "16M"))
        );
    }

    #[test]
    fn advice_matches_block_sizes_by_label_not_position() {
        let (read, mut write) = dd_study();
        write.reverse();
        write.remove(0); // 64M written: not measured in both, so left out
        assert_eq!(
            advice(&read, &write).unwrap(),
            told(&["2M"], &["16M", "32M"], &[&["4M", "8M"]], ("2M", "16M"))
        );
    }

    #[test]
    fn advice_says_when_no_block_size_suits_mixed() {
        let (mut read, write) = dd_study();
        read[2].bytes_per_s = 4000e6;
        read[3].bytes_per_s = 4000e6;
        assert_eq!(
            advice(&read, &write).unwrap(),
            told(&["2M"], &["16M", "32M"], &[], ("2M", "16M"))
        );
    }

    #[test]
    fn advice_writes_a_gap_in_the_mixed_sizes_as_two_runs() {
        let read = bs_sweep(&[1000.0, 5000.0, 4000.0, 5000.0, 5500.0]);
        let write = bs_sweep(&[5000.0, 4600.0, 4600.0, 4600.0, 3000.0]);
        assert_eq!(
            advice(&read, &write).unwrap(),
            told(&["1M"], &["16M"], &[&["2M"], &["8M"]], ("1M", "16M"))
        );
    }

    #[test]
    fn advice_when_both_peak_at_the_same_size_mixes_there() {
        let flat = bs_sweep(&[4000.0; 3]);
        assert_eq!(
            advice(&flat, &flat).unwrap(),
            told(
                &["1M", "2M", "4M"],
                &["1M", "2M", "4M"],
                &[&["1M"]],
                ("1M", "1M")
            )
        );
        let one = bs_sweep(&[4000.0]);
        assert_eq!(
            advice(&one, &one).unwrap(),
            told(&["1M"], &["1M"], &[&["1M"]], ("1M", "1M"))
        );
    }

    #[test]
    fn advice_needs_bandwidth_in_both_directions() {
        let (read, write) = dd_study();
        assert_eq!(advice(&[], &write), None);
        assert_eq!(advice(&read, &[]), None);
        assert_eq!(advice(&read, &bs_sweep(&[0.0, f64::NAN, -1.0])), None);
        let mut elsewhere = write.clone();
        for s in &mut elsewhere {
            s.label.push('x');
        }
        assert_eq!(advice(&read, &elsewhere), None);
    }

    // ---- no panics

    fn arb_sample() -> impl proptest::strategy::Strategy<Value = Sample> {
        use proptest::prelude::*;
        let finite = || prop_oneof![Just(0.0), Just(-1.0), Just(f64::MAX), -1e12..1e12f64];
        (
            finite(),
            prop::sample::select(vec!["1", "2", "4M", "8M", ""]),
            finite(),
            finite(),
            finite(),
            prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()],
        )
            .prop_map(|(x, label, iops, bytes_per_s, mean_ns, p99_ns)| {
                point(x, label, iops, bytes_per_s, mean_ns, p99_ns)
            })
    }

    proptest::proptest! {
        #[test]
        fn nothing_panics_on_finite_input(
            read in proptest::collection::vec(arb_sample(), 0..10),
            write in proptest::collection::vec(arb_sample(), 0..10),
            target_ns in proptest::prelude::any::<u64>(),
        ) {
            let _ = peak(&read);
            let _ = gain_stop(&read, Metric::Iops);
            let _ = gain_stop(&read, Metric::Bandwidth);
            let _ = knee(&read);
            let lat: Vec<(String, u64)> = read.iter().map(|s| (s.label.clone(), s.p99_ns)).collect();
            let _ = latency_target(&lat, target_ns);
            for dimension in ["bs", "iodepth", "numjobs", "rw"] {
                let _ = findings(dimension, "read", &[], &read);
            }
            let _ = advice(&read, &write);
        }
    }
}
