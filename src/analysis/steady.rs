//! Steady state, as fio judges it (`steadystate.c`, HOWTO `steadystate`): a criterion over a
//! rolling window of one-second samples, evaluated each time a sample closes.
//!
//! - `X:LIMIT` (X = iops, bw, lat): every sample of the window lies within LIMIT of the
//!   window's mean (the maximum deviation); `X:LIMIT%`: within LIMIT percent of the mean.
//! - `X_slope:LIMIT`: the least-squares slope of the samples against time (x = 0, 1, .. per
//!   second) is within LIMIT per second; `X_slope:LIMIT%`: within LIMIT percent of the mean per
//!   second. fio compares strictly (`criterion < limit`); so do we.
//!
//! Samples come from the session's intervals: a sample is the smallest whole number of
//! consecutive intervals that spans one second (one interval at the default `--interval 1s`,
//! four at 250ms, one of two seconds at 2s), and its rates are over exactly those intervals.
//! The window holds `ss_dur / sample length` samples (`ss_dur` of them at 1 s samples, as fio).
//! Intervals that start before `ss_ramp` (counted from the start of the measured window, after
//! `--ramp`) are not sampled, and neither is a short last interval (under half an interval).
//!
//! Everything here is pure: a [`Tracker`] is fed intervals and says what happened.

use std::collections::VecDeque;
use std::time::Duration;

use crate::record::{DepartureRecord, SteadyStateData, SteadyStateRecord};
use crate::stats::steady::{Criterion, Metric, SteadyState};

/// One sample: the rates over a whole number of intervals spanning about a second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// End of the sample, ns since the start of the measured window.
    pub end_ns: u64,
    pub duration_ns: u64,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// Mean latency of the sample's I/Os, ns (0 when none completed).
    pub lat_mean_ns: f64,
}

impl Sample {
    #[must_use]
    pub fn value(&self, metric: Metric) -> f64 {
        match metric {
            Metric::Iops => self.iops,
            Metric::Bw => self.bw_bytes_per_s,
            Metric::Lat => self.lat_mean_ns,
        }
    }
}

/// The criterion evaluated over one full window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    pub mean: f64,
    /// Largest |sample - mean|, in the metric's unit.
    pub max_deviation: f64,
    /// Least-squares slope, the metric's unit per second.
    pub slope: f64,
    /// What is compared with the limit: |slope| or the deviation, absolute or in percent of
    /// the mean (infinite when the mean is 0 and the value is not).
    pub value: f64,
    pub attained: bool,
}

/// Evaluates `criterion` over `values` taken every `sample_s` seconds. `None` for fewer than
/// two values.
#[must_use]
pub fn evaluate(criterion: &Criterion, values: &[f64], sample_s: f64) -> Option<Evaluation> {
    let n = values.len();
    if n < 2 || sample_s <= 0.0 {
        return None;
    }
    let count = n as f64;
    let mean = values.iter().sum::<f64>() / count;
    let max_deviation = values
        .iter()
        .map(|v| (v - mean).abs())
        .fold(0.0_f64, f64::max);
    // x = i * sample_s; slope = sum((x - x̄)(y - ȳ)) / sum((x - x̄)²).
    let x_mean = (count - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, v) in values.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxy += dx * (v - mean);
        sxx += dx * dx;
    }
    let slope = sxy / sxx / sample_s;
    let raw = if criterion.slope {
        slope.abs()
    } else {
        max_deviation
    };
    let value = if criterion.pct {
        if mean > 0.0 {
            100.0 * raw / mean
        } else if raw == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        raw
    };
    Some(Evaluation {
        mean,
        max_deviation,
        slope,
        value,
        attained: value < criterion.limit,
    })
}

/// Where a job is with its criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before `ss_ramp` is over.
    Ramp,
    /// Collecting the first window: `have` of `need` samples.
    Filling { have: usize, need: usize },
    /// The window is full; the criterion is not met.
    Searching,
    /// Met (at the last sample, or since attaining with keep-going).
    Attained,
    /// Keep-going: attained before, out of it at the last sample.
    Left,
}

/// What the last interval did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The criterion was met for the first time.
    Attained,
    /// Keep-going: a sample out of steady state after it was attained (each one is flagged).
    Left,
}

/// A sample out of steady state after attaining it (keep-going).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Departure {
    pub end_ns: u64,
    /// The criterion's value at that sample.
    pub value: f64,
}

/// The most departures kept (a day of one-second samples would be 86 400); the count goes on.
pub const MAX_DEPARTURES: usize = 1000;

/// Follows one job's criterion over its intervals.
#[derive(Debug, Clone)]
pub struct Tracker {
    pub spec: SteadyState,
    /// Intervals per sample, and the window's length in samples.
    intervals_per_sample: u32,
    pub window_samples: usize,
    pub sample_s: f64,
    interval_ns: u64,
    /// The sample being built: (intervals, duration ns, ios, bytes, latency sum ns).
    pending: (u32, u64, u64, u64, f64),
    window: VecDeque<Sample>,
    pub phase: Phase,
    /// The last full window's evaluation.
    pub last: Option<Evaluation>,
    /// The window and its evaluation when the criterion was first met.
    pub at_attained: Option<(Vec<Sample>, Evaluation)>,
    pub attained_at_ns: Option<u64>,
    pub departures: Vec<Departure>,
    pub departure_count: u64,
}

impl Tracker {
    /// A tracker for a job sampled every `interval`.
    #[must_use]
    pub fn new(spec: SteadyState, interval: Duration) -> Self {
        let interval_ns = crate::record::nanos(interval).max(1);
        let per_sample = 1_000_000_000u64.div_ceil(interval_ns).max(1);
        let per_sample = u32::try_from(per_sample).unwrap_or(u32::MAX);
        let sample_s = (interval_ns * u64::from(per_sample)) as f64 / 1e9;
        let window = (spec.dur.as_secs_f64() / sample_s).round().max(2.0) as usize;
        Self {
            spec,
            intervals_per_sample: per_sample,
            window_samples: window,
            sample_s,
            interval_ns,
            pending: (0, 0, 0, 0, 0.0),
            window: VecDeque::with_capacity(window),
            phase: if spec.ramp.is_zero() {
                Phase::Filling {
                    have: 0,
                    need: window,
                }
            } else {
                Phase::Ramp
            },
            last: None,
            at_attained: None,
            attained_at_ns: None,
            departures: Vec::new(),
            departure_count: 0,
        }
    }

    /// The window as it stands (oldest first).
    #[must_use]
    pub fn window(&self) -> Vec<Sample> {
        self.window.iter().copied().collect()
    }

    /// One closed interval: its end (ns since the measured window opened), length, I/Os,
    /// bytes, and the sum of its I/Os' latencies (ns).
    pub fn interval(
        &mut self,
        end_ns: u64,
        duration_ns: u64,
        ios: u64,
        bytes: u64,
        latency_sum_ns: f64,
    ) -> Option<Event> {
        let start_ns = end_ns.saturating_sub(duration_ns);
        if start_ns < crate::record::nanos(self.spec.ramp) {
            return None;
        }
        if duration_ns < self.interval_ns / 2 {
            // A short last interval: not a sample.
            return None;
        }
        if self.phase == Phase::Ramp {
            self.phase = Phase::Filling {
                have: 0,
                need: self.window_samples,
            };
        }
        let p = &mut self.pending;
        *p = (
            p.0 + 1,
            p.1 + duration_ns,
            p.2 + ios,
            p.3 + bytes,
            p.4 + latency_sum_ns,
        );
        if p.0 < self.intervals_per_sample {
            return None;
        }
        let (_, dur_ns, ios, bytes, lat_sum) = std::mem::replace(p, (0, 0, 0, 0, 0.0));
        let secs = dur_ns as f64 / 1e9;
        self.push(Sample {
            end_ns,
            duration_ns: dur_ns,
            iops: ios as f64 / secs,
            bw_bytes_per_s: bytes as f64 / secs,
            lat_mean_ns: if ios == 0 { 0.0 } else { lat_sum / ios as f64 },
        })
    }

    /// One sample (what [`Tracker::interval`] builds).
    pub fn push(&mut self, sample: Sample) -> Option<Event> {
        if self.window.len() == self.window_samples {
            self.window.pop_front();
        }
        self.window.push_back(sample);
        if self.window.len() < self.window_samples {
            self.phase = Phase::Filling {
                have: self.window.len(),
                need: self.window_samples,
            };
            return None;
        }
        let values: Vec<f64> = self
            .window
            .iter()
            .map(|s| s.value(self.spec.criterion.metric))
            .collect();
        let evaluation = evaluate(&self.spec.criterion, &values, self.sample_s)?;
        self.last = Some(evaluation);
        if self.attained_at_ns.is_none() {
            if evaluation.attained {
                self.attained_at_ns = Some(sample.end_ns);
                self.at_attained = Some((self.window(), evaluation));
                self.phase = Phase::Attained;
                return Some(Event::Attained);
            }
            self.phase = Phase::Searching;
            return None;
        }
        if evaluation.attained {
            self.phase = Phase::Attained;
            None
        } else {
            self.phase = Phase::Left;
            self.departure_count += 1;
            if self.departures.len() < MAX_DEPARTURES {
                self.departures.push(Departure {
                    end_ns: sample.end_ns,
                    value: evaluation.value,
                });
            }
            Some(Event::Left)
        }
    }

    /// The window and evaluation the record reports: at attainment, else the last full one,
    /// else the samples collected (evaluated over those, when there are two or more: the
    /// numbers are then of that shorter window, which the samples show).
    #[must_use]
    pub fn reported(&self) -> (Vec<Sample>, Option<Evaluation>) {
        match &self.at_attained {
            Some((window, evaluation)) => (window.clone(), Some(*evaluation)),
            None => {
                let window = self.window();
                let evaluation = self.last.or_else(|| {
                    let values: Vec<f64> = window
                        .iter()
                        .map(|s| s.value(self.spec.criterion.metric))
                        .collect();
                    evaluate(&self.spec.criterion, &values, self.sample_s).map(|e| Evaluation {
                        attained: false,
                        ..e
                    })
                });
                (window, evaluation)
            }
        }
    }
}

/// The record of a tracker (fio's `steadystate` object).
impl SteadyStateRecord {
    /// The record of a tracker; `stopped_run` when attaining it ended the step.
    #[must_use]
    pub fn from_tracker(tracker: &Tracker, stopped_run: bool) -> Self {
        let ss = &tracker.spec;
        let (window, evaluation) = tracker.reported();
        let mean_of = |metric: Metric| {
            if window.is_empty() {
                0
            } else {
                (window.iter().map(|s| s.value(metric)).sum::<f64>() / window.len() as f64) as u64
            }
        };
        let pct = if ss.criterion.pct { "%" } else { "" };
        Self {
            ss: ss.criterion.fio_text(),
            duration: ss.dur.as_secs(),
            attained: u8::from(tracker.attained_at_ns.is_some()),
            criterion: format!(
                "{:.6}{pct}",
                evaluation.map_or(0.0, |e| signed_value(&ss.criterion, &e))
            ),
            max_deviation: evaluation.map_or(0.0, |e| e.max_deviation),
            slope: evaluation.map_or(0.0, |e| e.slope),
            data: SteadyStateData {
                bw_mean: mean_of(Metric::Bw),
                iops_mean: mean_of(Metric::Iops),
                lat_mean: mean_of(Metric::Lat),
                iops: window.iter().map(|s| s.iops.round() as u64).collect(),
                bw: window
                    .iter()
                    .map(|s| s.bw_bytes_per_s.round() as u64)
                    .collect(),
                lat: window
                    .iter()
                    .map(|s| s.lat_mean_ns.round() as u64)
                    .collect(),
                t_ns: window.iter().map(|s| s.end_ns).collect(),
            },
            attained_at_ns: tracker.attained_at_ns,
            stopped_run,
            keep_going: ss.keep_going,
            ramp_ns: crate::record::nanos(ss.ramp),
            sample_ns: (tracker.sample_s * 1e9).round() as u64,
            departures: tracker
                .departures
                .iter()
                .map(|d| DepartureRecord {
                    t_ns: d.end_ns,
                    criterion: d.value,
                })
                .collect(),
            departure_count: tracker.departure_count,
        }
    }
}

/// fio's `criterion`: a slope keeps its sign (fio compares its magnitude with the limit).
fn signed_value(criterion: &Criterion, e: &Evaluation) -> f64 {
    if criterion.slope && e.slope < 0.0 {
        -e.value
    } else {
        e.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::steady::CriterionError;
    use proptest::prelude::*;

    fn crit(text: &str) -> Criterion {
        Criterion::parse(text).unwrap()
    }

    #[test]
    fn criteria_parse_like_fio() {
        assert_eq!(
            crit("iops_slope:0.1%"),
            Criterion {
                metric: Metric::Iops,
                slope: true,
                limit: 0.1,
                pct: true
            }
        );
        assert_eq!(crit("bw:10M").limit, f64::from(10u32 << 20));
        assert_eq!(crit("bw:2000").limit, 2000.0);
        assert_eq!(crit("lat:50us").limit, 50_000.0);
        assert_eq!(crit("lat_slope:2%").metric, Metric::Lat);
        assert_eq!(Criterion::parse("lat:50"), Err(CriterionError::Limit));
        assert_eq!(Criterion::parse("iops"), Err(CriterionError::Syntax));
        assert_eq!(Criterion::parse("ops:1%"), Err(CriterionError::Syntax));
        assert_eq!(Criterion::parse("iops:0"), Err(CriterionError::Limit));
        assert_eq!(Criterion::parse("iops:-1%"), Err(CriterionError::Limit));
        assert_eq!(Criterion::parse("iops:x%"), Err(CriterionError::Limit));
        assert_eq!(Criterion::parse("iops:inf"), Err(CriterionError::Limit));
        assert_eq!(crit("iops_slope:0.1%").fio_text(), "iops_slope:0.100000%");
        for text in ["iops_slope:0.1%", "bw:1048576", "lat:50us", "lat_slope:3%"] {
            assert_eq!(crit(&crit(text).to_string()), crit(text), "{text}");
        }
    }

    #[test]
    fn flat_input_attains_every_criterion() {
        let flat = [1000.0; 10];
        for text in ["iops:1%", "iops:1", "iops_slope:0.01%", "iops_slope:0.5"] {
            let e = evaluate(&crit(text), &flat, 1.0).unwrap();
            assert!(e.attained, "{text}: {e:?}");
            assert_eq!((e.mean, e.max_deviation, e.slope), (1000.0, 0.0, 0.0));
        }
    }

    #[test]
    fn a_ramp_has_its_slope_and_deviation() {
        // 100, 110, .., 190: slope 10/s, mean 145, max deviation 45.
        let ramp: Vec<f64> = (0..10).map(|i| 100.0 + 10.0 * f64::from(i)).collect();
        let e = evaluate(&crit("iops_slope:10%"), &ramp, 1.0).unwrap();
        assert!((e.slope - 10.0).abs() < 1e-9);
        assert!((e.mean - 145.0).abs() < 1e-9);
        assert!((e.max_deviation - 45.0).abs() < 1e-9);
        assert!((e.value - 100.0 * 10.0 / 145.0).abs() < 1e-9);
        assert!(e.attained); // 6.9% < 10%
        assert!(
            !evaluate(&crit("iops_slope:5%"), &ramp, 1.0)
                .unwrap()
                .attained
        );
        // Over 2 s samples the same values rise half as fast per second.
        let e2 = evaluate(&crit("iops_slope:10"), &ramp, 2.0).unwrap();
        assert!((e2.slope - 5.0).abs() < 1e-9);
        assert!(e2.attained);
        // fio compares strictly: a deviation equal to the limit is not steady.
        assert!(!evaluate(&crit("iops:45"), &ramp, 1.0).unwrap().attained);
        assert!(evaluate(&crit("iops:45.01"), &ramp, 1.0).unwrap().attained);
    }

    #[test]
    fn noisy_and_single_point_inputs() {
        assert_eq!(evaluate(&crit("iops:1%"), &[5.0], 1.0), None);
        assert_eq!(evaluate(&crit("iops:1%"), &[], 1.0), None);
        let noisy = [100.0, 104.0, 97.0, 101.0, 99.0, 103.0, 96.0, 100.0];
        let e = evaluate(&crit("iops:5%"), &noisy, 1.0).unwrap();
        assert!(e.attained && e.max_deviation > 3.9 && e.max_deviation < 4.1);
        assert!(!evaluate(&crit("iops:3%"), &noisy, 1.0).unwrap().attained);
        // All zero: no deviation, attained; zero mean with a deviation: never.
        assert!(evaluate(&crit("bw:1%"), &[0.0; 4], 1.0).unwrap().attained);
        let e = evaluate(&crit("bw:1%"), &[0.0, 0.0, 0.0, -0.0, 0.0, 0.0], 1.0).unwrap();
        assert!(e.attained);
    }

    fn spec(text: &str, dur_s: u64, ramp_s: u64, keep_going: bool) -> SteadyState {
        SteadyState {
            criterion: crit(text),
            dur: Duration::from_secs(dur_s),
            ramp: Duration::from_secs(ramp_s),
            keep_going,
        }
    }

    const S: u64 = 1_000_000_000;

    #[test]
    fn the_tracker_ramps_fills_attains_and_flags_departures() {
        let mut t = Tracker::new(spec("iops:5%", 3, 2, true), Duration::from_secs(1));
        assert_eq!(t.window_samples, 3);
        assert_eq!(t.phase, Phase::Ramp);
        let rates = [50, 80, 100, 101, 99, 100, 200, 100];
        let mut events = Vec::new();
        for (i, ios) in rates.iter().enumerate() {
            let end = (i as u64 + 1) * S;
            events.push(t.interval(end, S, *ios, ios * 4096, 0.0));
        }
        // Intervals ending at 1 s and 2 s are in the ramp; 100, 101, 99 fill and attain.
        assert_eq!(
            events,
            vec![
                None,
                None,
                None,
                None,
                Some(Event::Attained),
                None,
                Some(Event::Left),
                Some(Event::Left)
            ]
        );
        assert_eq!(t.attained_at_ns, Some(5 * S));
        assert_eq!(t.departure_count, 2);
        assert_eq!(t.departures[0].end_ns, 7 * S);
        let (window, e) = t.reported();
        assert_eq!(
            window.iter().map(|s| s.iops).collect::<Vec<_>>(),
            vec![100.0, 101.0, 99.0]
        );
        assert!(e.unwrap().attained);
    }

    #[test]
    fn a_window_that_never_filled_is_reported_over_the_samples_it_has() {
        let mut t = Tracker::new(spec("iops:1%", 10, 0, false), Duration::from_secs(1));
        let (window, e) = t.reported();
        assert!(window.is_empty() && e.is_none());
        t.interval(S, S, 100, 0, 0.0);
        t.interval(2 * S, S, 120, 0, 0.0);
        t.interval(3 * S, S, 110, 0, 0.0);
        let (window, e) = t.reported();
        let e = e.unwrap();
        assert_eq!(window.len(), 3);
        assert!((e.mean - 110.0).abs() < 1e-9 && (e.max_deviation - 10.0).abs() < 1e-9);
        assert!((e.slope - 5.0).abs() < 1e-9);
        assert!(!e.attained, "a partial window never counts as attained");
        assert_eq!(t.attained_at_ns, None);
    }

    #[test]
    fn short_intervals_are_summed_into_second_samples() {
        let mut t = Tracker::new(spec("bw:1%", 2, 0, false), Duration::from_millis(250));
        assert_eq!(t.window_samples, 2);
        let q = S / 4;
        let mut event = None;
        for i in 0..8u64 {
            // 1000 bytes a quarter second: 4000 B/s, whatever the split.
            event = event.or(t.interval((i + 1) * q, q, 1, 1000, 10.0));
            if i < 3 {
                assert_eq!(t.window().len(), 0);
            }
        }
        assert_eq!(event, Some(Event::Attained));
        let w = t.window();
        assert_eq!(w.len(), 2);
        assert!((w[0].bw_bytes_per_s - 4000.0).abs() < 1e-9);
        assert_eq!(w[0].duration_ns, S);
        assert!((w[0].lat_mean_ns - 10.0).abs() < 1e-9);
        // A short last interval is not a sample.
        let (_, e) = t.reported();
        assert!(e.is_some_and(|e| e.attained));
        assert_eq!(t.interval(8 * q + 1000, 1000, 5, 5, 0.0), None);
        assert_eq!(t.window().len(), 2);
    }

    proptest! {
        #[test]
        fn shifting_and_scaling_keep_percent_criteria(
            values in prop::collection::vec(1.0f64..1e6, 2..40),
            shift in 0.0f64..1e6,
            scale in 0.001f64..1000.0,
        ) {
            let c = crit("iops_slope:1%");
            let e = evaluate(&c, &values, 1.0).unwrap();
            // The slope does not move with a constant added; scaling scales it.
            let shifted: Vec<f64> = values.iter().map(|v| v + shift).collect();
            let es = evaluate(&c, &shifted, 1.0).unwrap();
            prop_assert!((es.slope - e.slope).abs() <= 1e-6 * (1.0 + e.slope.abs() + shift));
            let scaled: Vec<f64> = values.iter().map(|v| v * scale).collect();
            let ek = evaluate(&c, &scaled, 1.0).unwrap();
            prop_assert!((ek.value - e.value).abs() <= 1e-6 * (1.0 + e.value));
            // The deviation bounds every sample, and one sample reaches it.
            prop_assert!(values.iter().all(|v| (v - e.mean).abs() <= e.max_deviation + 1e-9));
            prop_assert!(values.iter().any(|v| ((v - e.mean).abs() - e.max_deviation).abs() < 1e-6));
        }

        #[test]
        fn a_constant_window_always_attains(value in 0.0f64..1e9, n in 2usize..60) {
            for text in ["iops:0.001%", "bw_slope:0.001%", "lat:1us", "iops_slope:0.001"] {
                let e = evaluate(&crit(text), &vec![value; n], 1.0).unwrap();
                prop_assert!(e.attained, "{} {:?}", text, e);
            }
        }
    }
}
