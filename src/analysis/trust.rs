//! How far a result can be trusted: what its spread rests on, its I/Os, its spread, its share of
//! the disk's bytes beyond the idle rate, and the marks (`short`, `shared`, `unstable`,
//! `fallback`) a result gets when it is not to be relied on. Pure functions of recorded
//! steps: the idle rate is measured by the session before the run and handed in.
//!
//! The limits (each a flag, `--trust-*`): short = under 1 s or under 1,000 I/Os; shared = the
//! disk did more than 10% more bytes than the result beyond its idle rate; unstable = a spread
//! (coefficient of variation) over 10%.

use crate::record::{
    DeviceRecord, IdleDiskRecord, StepRecord, TrustLimitsRecord, TrustMark, TrustRecord,
};

/// At most this many batches of intervals when one loop is all there is: a batch mean of
/// several intervals is steadier than one interval, and up to 10 still show a drift.
const MAX_BATCHES: usize = 10;

/// The limits a result is judged by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrustLimits {
    /// `short` under this measured time, ns.
    pub min_elapsed_ns: u64,
    /// `short` under this many I/Os.
    pub min_ios: u64,
    /// `shared` when the disk did more than this percent more bytes than the result, beyond
    /// its idle rate.
    pub shared_pct: f64,
    /// `unstable` when the spread is over this percent.
    pub unstable_pct: f64,
}

impl Default for TrustLimits {
    fn default() -> Self {
        Self {
            min_elapsed_ns: 1_000_000_000,
            min_ios: 1_000,
            shared_pct: 10.0,
            unstable_pct: 10.0,
        }
    }
}

impl TrustLimits {
    /// The record's form, with the idle baseline measured before the run.
    #[must_use]
    pub fn record(&self, idle_window_ns: u64, idle: Vec<IdleDiskRecord>) -> TrustLimitsRecord {
        TrustLimitsRecord {
            min_elapsed_ns: self.min_elapsed_ns,
            min_ios: self.min_ios,
            shared_pct: self.shared_pct,
            unstable_pct: self.unstable_pct,
            idle_window_ns,
            idle,
        }
    }

    /// The limits a record was judged by (the defaults for a record that kept none).
    #[must_use]
    pub fn of(record: Option<&TrustLimitsRecord>) -> Self {
        record.map_or_else(Self::default, |r| Self {
            min_elapsed_ns: r.min_elapsed_ns,
            min_ios: r.min_ios,
            shared_pct: r.shared_pct,
            unstable_pct: r.unstable_pct,
        })
    }
}

/// The coefficient of variation of `values` (sample standard deviation over the mean),
/// percent; `None` with fewer than 2 values or a mean that is not above zero.
#[must_use]
pub fn spread_pct(values: &[f64]) -> Option<f64> {
    if values.len() < 2 || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return None;
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some(variance.sqrt() / mean * 100.0)
}

/// Rates (bytes per second) of consecutive batches of `(bytes, duration_ns)` intervals: at
/// most [`MAX_BATCHES`] batches of equal count (the remainder joins the last). A last
/// interval under half the others' length (the tail of the window) is left out: its rate
/// rests on too little time.
#[must_use]
pub fn batch_rates(intervals: &[(u64, u64)]) -> Vec<f64> {
    let mut kept = intervals;
    if let [rest @ .., last] = intervals {
        let typical = rest.first().map_or(0, |first| first.1);
        if !rest.is_empty() && last.1 < typical / 2 {
            kept = rest;
        }
    }
    let kept: Vec<&(u64, u64)> = kept.iter().filter(|(_, ns)| *ns > 0).collect();
    if kept.is_empty() {
        return Vec::new();
    }
    let size = kept.len().div_ceil(MAX_BATCHES).max(1);
    let count = (kept.len() / size).max(1);
    (0..count)
        .map(|b| {
            let end = if b + 1 == count {
                kept.len()
            } else {
                (b + 1) * size
            };
            let batch = &kept[b * size..end];
            let bytes: u64 = batch.iter().map(|(bytes, _)| bytes).sum();
            let ns: u64 = batch.iter().map(|(_, ns)| ns).sum();
            bytes as f64 / (ns as f64 / 1e9)
        })
        .collect()
}

/// The result's bytes over the bytes its disks completed beyond their idle rate over
/// `elapsed_ns` (each device's reconciliation against the idle rate of the disk of its name);
/// `None` without a device or the result's bytes. With it: the share (at most 1), the disks'
/// idle rate (bytes/s) and the result's bytes on them.
#[must_use]
pub fn device_share(
    devices: &[&DeviceRecord],
    idle: &[IdleDiskRecord],
    elapsed_ns: u64,
) -> Option<(f64, f64, u64)> {
    if devices.is_empty() {
        return None;
    }
    let seconds = elapsed_ns as f64 / 1e9;
    let (mut app, mut beyond, mut idle_rate) = (0.0, 0.0, 0.0);
    for device in devices {
        let rate = idle
            .iter()
            .find(|i| i.name == device.name)
            .map_or(0.0, |i| i.bytes_per_s);
        idle_rate += rate;
        app += device.reconciliation.app_bytes as f64;
        beyond += (device.reconciliation.device_bytes as f64 - rate * seconds).max(0.0);
    }
    // A disk that did no more beyond its idle rate than the result's own bytes (the other
    // process slowed while the result ran) gave the result all of it: a share of 1, never
    // more; `marks` still sees the idle rate (`busy_before`).
    (app > 0.0).then(|| (app / beyond.max(app), idle_rate, app as u64))
}

/// The marks of a result.
#[must_use]
pub fn marks(trust: &TrustRecord, limits: &TrustLimits, fell_back: bool) -> Vec<TrustMark> {
    let mut out = Vec::new();
    if trust.elapsed_ns < limits.min_elapsed_ns || trust.ios < limits.min_ios {
        out.push(TrustMark::Short);
    }
    // More than `shared_pct` more bytes than the result beyond the idle rate: share under
    // 1 / (1 + pct). Or the disk was not idle before the run: its idle rate over the window
    // is more than `shared_pct` of the result's bytes (a process writing steadily from
    // before the run would otherwise pass as the idle rate).
    let beyond_idle = trust
        .device_share
        .is_some_and(|share| share < 1.0 / (1.0 + limits.shared_pct / 100.0));
    let busy_before = match (trust.idle_device_bytes_per_s, trust.device_app_bytes) {
        (Some(rate), Some(bytes)) => {
            rate * trust.elapsed_ns as f64 / 1e9 > bytes as f64 * limits.shared_pct / 100.0
        }
        _ => false,
    };
    if beyond_idle || busy_before {
        out.push(TrustMark::Shared);
    }
    if trust.spread_pct.is_some_and(|s| s > limits.unstable_pct) {
        out.push(TrustMark::Unstable);
    }
    if fell_back {
        out.push(TrustMark::Fallback);
    }
    out
}

fn ios(step: &StepRecord) -> u64 {
    step.read.total_ios + step.write.total_ios + step.trim.total_ios
}

fn bandwidth(step: &StepRecord) -> f64 {
    (step.read.bw_bytes + step.write.bw_bytes + step.trim.bw_bytes) as f64
}

fn devices(step: &StepRecord) -> Vec<&DeviceRecord> {
    if step.devices.is_empty() {
        step.device.iter().collect()
    } else {
        step.devices.iter().collect()
    }
}

/// Whether the step ran another engine than its job asked (io_uring fell back to psync).
fn fell_back(step: &StepRecord) -> bool {
    !step.engine.is_empty() && step.engine != step.job.ioengine
}

/// One step's trust: its spread over batch means of its intervals.
#[must_use]
pub fn of_step(step: &StepRecord, limits: &TrustLimits, idle: &[IdleDiskRecord]) -> TrustRecord {
    let intervals: Vec<(u64, u64)> = step
        .series
        .iter()
        .map(|i| {
            (
                i.read.io_bytes + i.write.io_bytes + i.trim.io_bytes,
                i.duration_ns,
            )
        })
        .collect();
    let rates = batch_rates(&intervals);
    // The null engine sends the disk nothing: it has no share of it.
    let null = step.engine == "null" || step.job.ioengine == "null";
    let share = if null {
        None
    } else {
        device_share(&devices(step), idle, step.elapsed_ns)
    };
    let mut trust = TrustRecord {
        samples: u32::try_from(rates.len()).unwrap_or(u32::MAX),
        spread_over: "intervals".to_string(),
        ios: ios(step),
        elapsed_ns: step.elapsed_ns,
        spread_pct: spread_pct(&rates),
        device_share: share.map(|s| s.0),
        idle_device_bytes_per_s: share.map(|s| s.1),
        device_app_bytes: share.map(|s| s.2),
        marks: Vec::new(),
    };
    trust.marks = marks(&trust, limits, fell_back(step));
    trust
}

/// A sweep point's trust from its runs (its loops): with 2 or more, the spread of their
/// bandwidths; with one, that run's. Short when its shortest run is; shared when any run
/// was; the device share is the lowest of the runs'.
#[must_use]
pub fn of_point(runs: &[&StepRecord], limits: &TrustLimits) -> TrustRecord {
    let each: Vec<TrustRecord> = runs
        .iter()
        .map(|s| s.trust.clone().unwrap_or_else(|| of_step(s, limits, &[])))
        .collect();
    let Some(first) = each.first() else {
        return TrustRecord::default();
    };
    if each.len() == 1 {
        return first.clone();
    }
    let shortest = each
        .iter()
        .min_by_key(|t| (t.elapsed_ns, t.ios))
        .unwrap_or(first);
    let lowest = |f: fn(&TrustRecord) -> Option<f64>| each.iter().filter_map(f).reduce(f64::min);
    let rates: Vec<f64> = runs.iter().map(|s| bandwidth(s)).collect();
    let mut trust = TrustRecord {
        samples: u32::try_from(runs.len()).unwrap_or(u32::MAX),
        spread_over: "loops".to_string(),
        ios: shortest.ios,
        elapsed_ns: shortest.elapsed_ns,
        spread_pct: spread_pct(&rates),
        device_share: lowest(|t| t.device_share),
        idle_device_bytes_per_s: shortest.idle_device_bytes_per_s,
        device_app_bytes: shortest.device_app_bytes,
        marks: Vec::new(),
    };
    trust.marks = marks(&trust, limits, runs.iter().any(|s| fell_back(s)));
    // A run that was shared makes the point shared, whichever run is the shortest.
    if each.iter().any(|t| t.marks.contains(&TrustMark::Shared))
        && !trust.marks.contains(&TrustMark::Shared)
    {
        trust.marks.push(TrustMark::Shared);
        trust.marks.sort_unstable();
    }
    trust
}

/// The run's trust from its steps': one step's as it is; of several, the union of their
/// marks, the widest spread, the lowest device share, their I/Os and time summed.
#[must_use]
pub fn of_run(steps: &[TrustRecord]) -> Option<TrustRecord> {
    let (first, rest) = steps.split_first()?;
    if rest.is_empty() {
        return Some(first.clone());
    }
    let mut marks: Vec<TrustMark> = steps.iter().flat_map(|t| t.marks.clone()).collect();
    marks.sort_unstable();
    marks.dedup();
    Some(TrustRecord {
        samples: steps.iter().map(|t| t.samples).min().unwrap_or(0),
        spread_over: first.spread_over.clone(),
        ios: steps.iter().map(|t| t.ios).sum(),
        elapsed_ns: steps.iter().map(|t| t.elapsed_ns).sum(),
        spread_pct: steps.iter().filter_map(|t| t.spread_pct).reduce(f64::max),
        device_share: steps.iter().filter_map(|t| t.device_share).reduce(f64::min),
        idle_device_bytes_per_s: first.idle_device_bytes_per_s,
        device_app_bytes: Some(steps.iter().filter_map(|t| t.device_app_bytes).sum())
            .filter(|b| *b > 0),
        marks,
    })
}

/// Whether `a` beats `b` by more than both spreads: `a`'s value less its spread is above `b`'s
/// plus its spread (a spread unknown counts as none). Otherwise the two tie.
#[must_use]
pub fn beats(a: f64, a_spread_pct: Option<f64>, b: f64, b_spread_pct: Option<f64>) -> bool {
    let low = a * (1.0 - a_spread_pct.unwrap_or(0.0) / 100.0);
    let high = b * (1.0 + b_spread_pct.unwrap_or(0.0) / 100.0);
    low > high
}

/// What to change for each mark, in words: "longer runs (--runtime or --io-size)" for short,
/// "an idle disk" for shared, "more loops (--loops 3)" for unstable, "an engine that runs
/// here" for a fallback.
#[must_use]
pub fn remedy(mark: TrustMark) -> &'static str {
    match mark {
        TrustMark::Short => "longer runs (--runtime or --io-size)",
        TrustMark::Shared => "an idle disk",
        TrustMark::Unstable => "more loops (--loops 3 --pick median)",
        TrustMark::Fallback => "an engine that runs here (--ioengine psync)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trust(elapsed_s: f64, ios: u64, spread: Option<f64>, share: Option<f64>) -> TrustRecord {
        TrustRecord {
            samples: 3,
            spread_over: "intervals".into(),
            ios,
            elapsed_ns: (elapsed_s * 1e9) as u64,
            spread_pct: spread,
            device_share: share,
            idle_device_bytes_per_s: None,
            device_app_bytes: None,
            marks: Vec::new(),
        }
    }

    #[test]
    fn short_is_under_one_second_or_under_a_thousand_ios() {
        let limits = TrustLimits::default();
        assert_eq!(
            marks(&trust(0.99, 5000, None, None), &limits, false),
            [TrustMark::Short]
        );
        assert_eq!(
            marks(&trust(3.0, 999, None, None), &limits, false),
            [TrustMark::Short]
        );
        assert_eq!(marks(&trust(1.0, 1000, None, None), &limits, false), []);
        // The 4-I/O point of the issue: 64M writes, 370 ms.
        assert_eq!(
            marks(&trust(0.37, 4, None, None), &limits, false),
            [TrustMark::Short]
        );
    }

    #[test]
    fn shared_is_more_than_ten_percent_more_device_bytes_than_the_run() {
        let limits = TrustLimits::default();
        // The disk did 1.09x the run's bytes: metadata, not another process.
        assert!(marks(&trust(2.0, 5000, None, Some(1.0 / 1.09)), &limits, false).is_empty());
        assert_eq!(
            marks(&trust(2.0, 5000, None, Some(1.0 / 1.11)), &limits, false),
            [TrustMark::Shared]
        );
        // The sweep: the disk did 537% of a point's bytes.
        assert_eq!(
            marks(&trust(2.0, 5000, None, Some(1.0 / 5.37)), &limits, false),
            [TrustMark::Shared]
        );
        // The page cache served part (share above 1): not shared.
        assert!(marks(&trust(2.0, 5000, None, Some(3.0)), &limits, false).is_empty());
        // A disk busy before the run: its idle rate over the 2 s is 20% of the run's bytes.
        let mut busy = trust(2.0, 5000, None, Some(1.0));
        busy.idle_device_bytes_per_s = Some(1000.0);
        busy.device_app_bytes = Some(10_000);
        assert_eq!(marks(&busy, &limits, false), [TrustMark::Shared]);
        // A journal's trickle: 1% of them.
        busy.idle_device_bytes_per_s = Some(50.0);
        assert!(marks(&busy, &limits, false).is_empty());
    }

    #[test]
    fn unstable_is_a_spread_over_ten_percent_and_fallback_is_its_own() {
        let limits = TrustLimits::default();
        assert!(marks(&trust(2.0, 5000, Some(10.0), None), &limits, false).is_empty());
        assert_eq!(
            marks(&trust(0.5, 5000, Some(10.5), None), &limits, true),
            [TrustMark::Short, TrustMark::Unstable, TrustMark::Fallback]
        );
        let strict = TrustLimits {
            unstable_pct: 2.0,
            ..TrustLimits::default()
        };
        assert_eq!(
            marks(&trust(2.0, 5000, Some(3.0), None), &strict, false),
            [TrustMark::Unstable]
        );
    }

    #[test]
    fn spread_is_the_coefficient_of_variation() {
        assert_eq!(spread_pct(&[]), None);
        assert_eq!(spread_pct(&[5.0]), None);
        assert_eq!(spread_pct(&[0.0, 0.0]), None);
        assert_eq!(spread_pct(&[f64::NAN, 1.0]), None);
        assert_eq!(spread_pct(&[100.0, 100.0, 100.0]), Some(0.0));
        // mean 100, sample sd 10.
        let s = spread_pct(&[90.0, 100.0, 110.0]).unwrap();
        assert!((s - 10.0).abs() < 1e-9, "{s}");
    }

    #[test]
    fn batches_are_at_most_ten_and_leave_out_a_short_tail() {
        let second = 1_000_000_000;
        // Three whole intervals and a 100 ms tail: three batches of one.
        let rates = batch_rates(&[
            (100, second),
            (200, second),
            (300, second),
            (1, second / 10),
        ]);
        assert_eq!(rates, [100.0, 200.0, 300.0]);
        // 25 intervals: batches of 3, 8 of them, the last taking the one left over.
        let many: Vec<(u64, u64)> = (0..25).map(|_| (10, second)).collect();
        let rates = batch_rates(&many);
        assert_eq!(rates.len(), 8);
        assert!(rates.iter().all(|r| (*r - 10.0).abs() < 1e-9), "{rates:?}");
        assert!(batch_rates(&[]).is_empty());
        assert!(batch_rates(&[(5, 0)]).is_empty());
    }

    fn device(name: &str, app: u64, dev: u64) -> DeviceRecord {
        DeviceRecord {
            name: name.into(),
            disk: name.into(),
            queue: crate::record::QueueSettings::default(),
            iostat: crate::record::IostatRow::idle(name),
            reconciliation: crate::record::ReconciliationRecord {
                app_read_ios: 0,
                app_write_ios: 0,
                device_read_ios: 0,
                device_write_ios: 0,
                app_bytes: app,
                device_bytes: dev,
                io_ratio: None,
                verdict: String::new(),
                app_trim_ios: 0,
                device_discard_ios: 0,
            },
            block_trace: None,
        }
    }

    #[test]
    fn the_device_share_leaves_out_the_idle_rate() {
        let idle = [IdleDiskRecord {
            name: "vda".into(),
            bytes_per_s: 1000.0,
        }];
        // 2 s: 2000 bytes of journal at the idle rate, the run's 10_000, nothing else.
        let d = device("vda", 10_000, 12_000);
        let (share, rate, bytes) = device_share(&[&d], &idle, 2_000_000_000).unwrap();
        assert!((share - 1.0).abs() < 1e-9, "{share}");
        assert!((rate - 1000.0).abs() < 1e-9);
        assert_eq!(bytes, 10_000);
        // Without the baseline the same window looks shared.
        let (share, _, _) = device_share(&[&d], &[], 2_000_000_000).unwrap();
        assert!(share < 1.0 / 1.1, "{share}");
        assert_eq!(device_share(&[], &idle, 1), None);
        assert_eq!(device_share(&[&device("vda", 0, 100)], &idle, 1), None);
        // A disk busy before the run that did less during it than its idle rate: a share of 1
        // with the idle rate kept, which marks it shared (busy before the run).
        let busy = [IdleDiskRecord {
            name: "vda".into(),
            bytes_per_s: 1e9,
        }];
        let (share, rate, bytes) =
            device_share(&[&device("vda", 10_000, 500_000_000)], &busy, 1_000_000_000).unwrap();
        assert!((share - 1.0).abs() < 1e-9, "{share}");
        assert_eq!((rate, bytes), (1e9, 10_000));
    }

    #[test]
    fn a_winner_beats_the_runner_up_by_more_than_both_spreads() {
        assert!(beats(110.0, None, 100.0, None));
        // 110 - 5% = 104.5 against 100 + 5% = 105: a tie.
        assert!(!beats(110.0, Some(5.0), 100.0, Some(5.0)));
        assert!(beats(120.0, Some(5.0), 100.0, Some(5.0)));
        assert!(!beats(100.0, None, 100.0, None));
    }

    #[test]
    fn the_run_takes_the_union_of_marks_and_the_widest_spread() {
        let mut a = trust(2.0, 5000, Some(3.0), Some(1.0));
        let mut b = trust(0.5, 100, Some(12.0), Some(0.5));
        a.marks = vec![TrustMark::Shared];
        b.marks = vec![TrustMark::Unstable, TrustMark::Short, TrustMark::Shared];
        let run = of_run(&[a.clone(), b]).unwrap();
        assert_eq!(
            run.marks,
            [TrustMark::Short, TrustMark::Shared, TrustMark::Unstable]
        );
        assert_eq!(run.spread_pct, Some(12.0));
        assert_eq!(run.device_share, Some(0.5));
        assert_eq!(run.ios, 5100);
        assert_eq!(of_run(&[a.clone()]), Some(a));
        assert_eq!(of_run(&[]), None);
    }
}
