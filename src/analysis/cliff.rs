//! The sustained-write curve and its cliff: write bandwidth against bytes written, one point
//! per interval, and where the bandwidth falls off (an SSD's SLC cache or DRAM buffer filling
//! up, a thin pool running out of pre-zeroed blocks).
//!
//! The cliff is the first interval whose write bandwidth is more than `threshold` percent below
//! the running level and **stays down**: it and the [`STAYS_DOWN`] intervals after it (or all
//! the intervals left, when the run ends first, at least [`MIN_DOWN`]) are all below that line.
//! The running level is the mean write bandwidth of the intervals before the candidate; at least
//! [`MIN_LEVEL`] intervals must come first. A cliff is confirmed once the intervals after it are
//! seen (live, `STAYS_DOWN` intervals late) or at the end of the run ([`Cliff::finish`]).
//!
//! The curve is kept bounded: past [`MAX_POINTS`] points every other point is merged into its
//! neighbour (bytes and time add up, so each kept point's bandwidth is over the span it names).

use crate::record::{CliffRecord, SustainedWriteRecord};

/// Intervals after a candidate that must also be down.
pub const STAYS_DOWN: usize = 4;
/// Down intervals needed when the run ends before `STAYS_DOWN` more are seen.
pub const MIN_DOWN: usize = 2;
/// Intervals that set the level before a cliff can be found.
pub const MIN_LEVEL: usize = 3;
/// The most points kept on the curve.
pub const MAX_POINTS: usize = 2048;

/// A point of the curve: bytes written by the end of a span, and the span's write rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    /// Bytes written since the measured window opened, at the end of this span.
    pub written_bytes: u64,
    /// Bytes written in the span and its length.
    pub span_bytes: u64,
    pub span_ns: u64,
    /// End of the span, ns since the measured window opened.
    pub end_ns: u64,
}

impl CurvePoint {
    #[must_use]
    pub fn bytes_per_s(&self) -> f64 {
        if self.span_ns == 0 {
            0.0
        } else {
            self.span_bytes as f64 * 1e9 / self.span_ns as f64
        }
    }
}

/// The cliff found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CliffPoint {
    /// Bytes written when the bandwidth fell (at the start of the first down interval).
    pub written_bytes: u64,
    /// When, ns since the measured window opened (start of the first down interval).
    pub at_ns: u64,
    /// The running level before it and the mean of the down intervals, bytes/s.
    pub before_bytes_per_s: f64,
    pub after_bytes_per_s: f64,
}

/// Follows one job's writes interval by interval.
#[derive(Debug, Clone)]
pub struct Cliff {
    /// Percent below the running level that counts as down.
    pub threshold_pct: f64,
    curve: Vec<CurvePoint>,
    /// Each stored point covers this many intervals (doubles when the curve is thinned).
    stride: u32,
    /// Intervals merged into the point being built.
    building: u32,
    written_bytes: u64,
    /// Every interval's rate, until a cliff is found (the level and the look-ahead need them;
    /// bounded by the level kept as a running sum: only the candidates' tail is stored).
    level_sum: f64,
    level_count: usize,
    /// Intervals not yet folded into the level: a candidate and the ones after it.
    recent: Vec<(CurvePoint, f64)>,
    pub found: Option<CliffPoint>,
}

impl Cliff {
    #[must_use]
    pub fn new(threshold_pct: f64) -> Self {
        Self {
            threshold_pct,
            curve: Vec::new(),
            stride: 1,
            building: 0,
            written_bytes: 0,
            level_sum: 0.0,
            level_count: 0,
            recent: Vec::new(),
            found: None,
        }
    }

    /// The curve as kept.
    #[must_use]
    pub fn curve(&self) -> &[CurvePoint] {
        &self.curve
    }

    #[must_use]
    pub fn written_bytes(&self) -> u64 {
        self.written_bytes
    }

    /// One closed interval: its end (ns since the window opened), length and bytes written.
    /// Returns the cliff when this interval confirms it.
    #[cfg(any(test, feature = "fixtures"))]
    pub fn interval(&mut self, end_ns: u64, duration_ns: u64, bytes: u64) -> Option<CliffPoint> {
        self.point(end_ns, duration_ns, bytes, true)
    }

    /// [`Cliff::interval`], saying whether the interval is judged: not a short last interval
    /// (the drain), which is drawn but can neither start nor confirm a cliff.
    pub fn point(
        &mut self,
        end_ns: u64,
        duration_ns: u64,
        bytes: u64,
        judged: bool,
    ) -> Option<CliffPoint> {
        self.written_bytes += bytes;
        let point = CurvePoint {
            written_bytes: self.written_bytes,
            span_bytes: bytes,
            span_ns: duration_ns,
            end_ns,
        };
        self.store(point);
        if self.found.is_some() || duration_ns == 0 || !judged {
            return None;
        }
        self.recent.push((point, point.bytes_per_s()));
        self.settle(false)
    }

    /// The run ended: a candidate with fewer than `STAYS_DOWN` intervals after it counts when
    /// at least `MIN_DOWN` intervals are down.
    pub fn finish(&mut self) -> Option<CliffPoint> {
        if self.found.is_some() {
            return None;
        }
        self.settle(true)
    }

    fn line(&self) -> f64 {
        let level = self.level_sum / self.level_count.max(1) as f64;
        level * (1.0 - self.threshold_pct / 100.0)
    }

    /// Folds into the level what cannot start a cliff; confirms one when the look-ahead is in.
    fn settle(&mut self, at_end: bool) -> Option<CliffPoint> {
        loop {
            let &(first, rate) = self.recent.first()?;
            let candidate = self.level_count >= MIN_LEVEL && rate < self.line();
            if !candidate {
                self.level_sum += rate;
                self.level_count += 1;
                self.recent.remove(0);
                continue;
            }
            let line = self.line();
            let all_down = self.recent.iter().all(|&(_, r)| r < line);
            let needed = 1 + STAYS_DOWN;
            if all_down
                && (self.recent.len() >= needed || (at_end && self.recent.len() >= MIN_DOWN))
            {
                let down = &self.recent[..self.recent.len().min(needed)];
                let (bytes, ns) = down.iter().fold((0u64, 0u64), |(b, t), (p, _)| {
                    (b + p.span_bytes, t + p.span_ns)
                });
                let cliff = CliffPoint {
                    written_bytes: first.written_bytes - first.span_bytes,
                    at_ns: first.end_ns.saturating_sub(first.span_ns),
                    before_bytes_per_s: self.level_sum / self.level_count as f64,
                    after_bytes_per_s: if ns == 0 {
                        0.0
                    } else {
                        bytes as f64 * 1e9 / ns as f64
                    },
                };
                self.found = Some(cliff);
                self.recent.clear();
                return Some(cliff);
            }
            if all_down {
                // Waiting for the look-ahead.
                return None;
            }
            // It came back up: the candidate was a dip, part of the level.
            self.level_sum += rate;
            self.level_count += 1;
            self.recent.remove(0);
        }
    }

    fn store(&mut self, point: CurvePoint) {
        if self.building > 0
            && let Some(last) = self.curve.last_mut()
        {
            last.written_bytes = point.written_bytes;
            last.span_bytes += point.span_bytes;
            last.span_ns += point.span_ns;
            last.end_ns = point.end_ns;
        } else {
            self.curve.push(point);
        }
        self.building += 1;
        if self.building == self.stride {
            self.building = 0;
        }
        if self.curve.len() > MAX_POINTS && self.building == 0 {
            let merged: Vec<CurvePoint> = self
                .curve
                .chunks(2)
                .map(|pair| {
                    let mut p = pair[0];
                    if let Some(q) = pair.get(1) {
                        p.written_bytes = q.written_bytes;
                        p.span_bytes += q.span_bytes;
                        p.span_ns += q.span_ns;
                        p.end_ns = q.end_ns;
                    }
                    p
                })
                .collect();
            self.curve = merged;
            self.stride *= 2;
        }
    }
}

const GIB: f64 = (1u64 << 30) as f64;
const MIB: f64 = (1u64 << 20) as f64;

impl From<&Cliff> for SustainedWriteRecord {
    fn from(cliff: &Cliff) -> Self {
        Self {
            threshold_pct: cliff.threshold_pct,
            written_bytes: cliff.written_bytes(),
            points: cliff
                .curve()
                .iter()
                .map(|p| [p.written_bytes as f64 / GIB, p.bytes_per_s() / MIB])
                .collect(),
            cliff: cliff.found.map(|c| CliffRecord {
                gib_written: c.written_bytes as f64 / GIB,
                written_bytes: c.written_bytes,
                t_ns: c.at_ns,
                before_mib_s: c.before_bytes_per_s / MIB,
                after_mib_s: c.after_bytes_per_s / MIB,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const S: u64 = 1_000_000_000;
    const MIB: u64 = 1 << 20;

    fn run(rates_mib: &[u64], threshold: f64) -> (Cliff, Option<CliffPoint>) {
        let mut c = Cliff::new(threshold);
        let mut found = None;
        for (i, r) in rates_mib.iter().enumerate() {
            found = found.or(c.interval((i as u64 + 1) * S, S, r * MIB));
        }
        found = found.or(c.finish());
        (c, found)
    }

    #[test]
    fn a_flat_run_has_no_cliff() {
        assert_eq!(run(&[500; 30], 30.0).1, None);
        assert_eq!(run(&[500], 30.0).1, None);
        assert_eq!(run(&[], 30.0).1, None);
    }

    #[test]
    fn a_drop_that_stays_down_is_the_cliff() {
        let mut rates = vec![1000; 10];
        rates.extend([300; 10]);
        let (c, found) = run(&rates, 30.0);
        let cliff = found.unwrap();
        assert_eq!(cliff.written_bytes, 10_000 * MIB);
        assert_eq!(cliff.at_ns, 10 * S);
        assert!((cliff.before_bytes_per_s - 1000.0 * MIB as f64).abs() < 1.0);
        assert!((cliff.after_bytes_per_s - 300.0 * MIB as f64).abs() < 1.0);
        assert_eq!(c.curve().len(), 20);
        assert_eq!(c.written_bytes(), 13_000 * MIB);
    }

    #[test]
    fn dips_that_come_back_are_not_cliffs() {
        let mut rates = vec![1000; 10];
        rates.extend([300, 300, 1000, 1000, 300, 1000, 1000, 1000, 1000]);
        assert_eq!(run(&rates, 30.0).1, None);
        // A drop smaller than the threshold is no cliff either.
        let mut rates = vec![1000; 10];
        rates.extend([750; 10]);
        assert_eq!(run(&rates, 30.0).1, None);
        assert!(run(&rates, 20.0).1.is_some());
    }

    #[test]
    fn a_drop_at_the_very_end_counts_when_it_lasts_two_intervals() {
        let mut rates = vec![1000; 10];
        rates.extend([100, 100]);
        assert_eq!(run(&rates, 30.0).1.unwrap().at_ns, 10 * S);
        let mut rates = vec![1000; 10];
        rates.push(100);
        assert_eq!(run(&rates, 30.0).1, None);
    }

    #[test]
    fn a_gradual_decline_is_found_where_it_crosses_the_line() {
        // 1000 falling by 50 a second: the level (mean so far) lags the rate.
        let rates: Vec<u64> = (0..20).map(|i| 1000 - 45 * i).collect();
        let cliff = run(&rates, 30.0).1.unwrap();
        let i = (cliff.at_ns / S) as usize;
        let level: f64 = rates[..i].iter().sum::<u64>() as f64 / i as f64;
        assert!((rates[i] as f64) < level * 0.7);
        assert!(
            (rates[i - 1] as f64)
                >= rates[..i - 1].iter().sum::<u64>() as f64 / (i - 1) as f64 * 0.7
        );
    }

    #[test]
    fn a_short_drain_at_the_end_is_drawn_but_not_judged() {
        let mut rates = vec![1000; 10];
        rates.push(100);
        let mut c = Cliff::new(30.0);
        for (i, r) in rates.iter().enumerate() {
            c.interval((i as u64 + 1) * S, S, r * MIB);
        }
        c.point(11 * S + S / 10, S / 10, MIB, false);
        assert_eq!(c.finish(), None);
        assert_eq!(c.curve().len(), 12);
    }

    #[test]
    fn the_curve_stays_bounded_and_true() {
        let mut c = Cliff::new(30.0);
        for i in 0..(MAX_POINTS as u64 * 3) {
            c.interval((i + 1) * S, S, MIB);
        }
        assert!(c.curve().len() <= MAX_POINTS);
        let total: u64 = c.curve().iter().map(|p| p.span_bytes).sum();
        assert_eq!(total, c.written_bytes());
        for p in c.curve() {
            assert!((p.bytes_per_s() - MIB as f64).abs() < 1e-6);
        }
        assert_eq!(c.curve().last().unwrap().written_bytes, c.written_bytes());
    }

    proptest! {
        #[test]
        fn a_cliff_is_always_below_the_line_and_stays_down(
            rates in prop::collection::vec(0u64..2000, 0..60),
            threshold in 5.0f64..90.0,
        ) {
            let (_, found) = run(&rates, threshold);
            if let Some(cliff) = found {
                let i = (cliff.at_ns / S) as usize;
                prop_assert!(i >= MIN_LEVEL);
                prop_assert!(cliff.after_bytes_per_s < cliff.before_bytes_per_s);
                let line = cliff.before_bytes_per_s * (1.0 - threshold / 100.0);
                let end = (i + 1 + STAYS_DOWN).min(rates.len());
                prop_assert!(end - i >= MIN_DOWN);
                for r in &rates[i..end] {
                    prop_assert!(((r * MIB) as f64) < line);
                }
            }
        }
    }
}
