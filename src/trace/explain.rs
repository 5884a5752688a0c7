//! The app's mean latency taken apart: what the block layer measured (the device, the
//! scheduler's queue, waiting for a request), what the scheduler's counters measured (the
//! workers' wait for a CPU), and the rest, named `unexplained` rather than guessed at.

use super::matcher::{BlockTrace, DirTrace};
use crate::stats::LatencyHistogram;

/// A part's mean over every direction, ns (`None`: no sample).
fn mean(trace: &BlockTrace, part: impl Fn(&DirTrace) -> &LatencyHistogram) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0u64);
    for dir in &trace.dirs {
        let summary = part(dir).summary();
        sum += summary.mean_ns * summary.count as f64;
        n += summary.count;
    }
    (n > 0).then(|| sum / n as f64)
}

/// The block layer's parts of a request's mean time, ns (0 for a part never seen).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BlockMeans {
    pub device_ns: f64,
    pub scheduler_ns: f64,
    pub wait_request_ns: f64,
    /// `whole`'s mean (what iostat's await averages), when seen.
    pub whole_ns: Option<f64>,
}

impl BlockMeans {
    #[must_use]
    pub fn of(trace: &BlockTrace) -> Option<Self> {
        let device_ns = mean(trace, |d| &d.device)?;
        Some(Self {
            device_ns,
            scheduler_ns: mean(trace, |d| &d.scheduler).unwrap_or(0.0),
            wait_request_ns: mean(trace, |d| &d.wait_request).unwrap_or(0.0),
            whole_ns: mean(trace, |d| &d.whole),
        })
    }
}

/// The CPU wait a job's mean latency is taken apart with, ns per I/O: the workers' run-queue
/// delay, or 0 where the job is paced (`rate`, `rate_iops`, `thinktime`). A paced worker
/// sleeps with nothing in flight and its wake-up waits for a CPU too; schedstat counts that
/// delay with the rest and cannot say which part fell while an I/O was in flight, so a paced
/// job's CPU wait (shown as "incl. pacing wake-ups") stays out of the sum and `unexplained`
/// keeps whatever CPU wait the I/Os did see.
#[must_use]
pub fn cpu_wait_in_sum(cpu_wait_ns: f64, paced: bool) -> f64 {
    if paced { 0.0 } else { cpu_wait_ns }
}

/// What is left of `app_mean_ns` after the block layer's parts and the CPU wait, ns; `None`
/// when the measured parts add up to more than the app's mean (they overlap or cover other
/// I/O on the disk): nothing is invented to make the sum come out.
#[must_use]
pub fn unexplained_ns(app_mean_ns: f64, block: &BlockMeans, cpu_wait_ns: f64) -> Option<f64> {
    let left =
        app_mean_ns - block.device_ns - block.scheduler_ns - block.wait_request_ns - cpu_wait_ns;
    (left >= 0.0).then_some(left)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(device: &[u64], scheduler: &[u64]) -> BlockTrace {
        let mut trace = BlockTrace::default();
        for &ns in device {
            trace.dirs[0].device.record(ns);
        }
        for &ns in scheduler {
            trace.dirs[1].scheduler.record(ns);
        }
        trace
    }

    #[test]
    fn the_rest_is_what_the_measured_parts_leave() {
        let block = BlockMeans::of(&trace(&[300, 500], &[100])).unwrap();
        assert!((block.device_ns - 400.0).abs() < 1.0);
        assert!((block.scheduler_ns - 100.0).abs() < 1.0);
        assert_eq!(block.wait_request_ns, 0.0);
        let left = unexplained_ns(1_000.0, &block, 250.0).unwrap();
        assert!((left - 250.0).abs() < 2.0, "{left}");
        // Parts that add up to more than the app's mean leave nothing to name.
        assert_eq!(unexplained_ns(600.0, &block, 250.0), None);
    }

    #[test]
    fn a_paced_jobs_cpu_wait_is_left_out_of_the_sum() {
        let block = BlockMeans::of(&trace(&[300, 500], &[100])).unwrap();
        // A paced job's 2 us of run-queue delay per I/O, most of it after its sleeps, would
        // leave nothing of a 1 us mean: out of the sum, the rest is what the block layer
        // leaves.
        let paced = unexplained_ns(1_000.0, &block, cpu_wait_in_sum(2_000.0, true)).unwrap();
        assert!((paced - 500.0).abs() < 2.0, "{paced}");
        assert_eq!(cpu_wait_in_sum(250.0, false), 250.0);
        assert_eq!(
            unexplained_ns(1_000.0, &block, cpu_wait_in_sum(2_000.0, false)),
            None
        );
    }

    #[test]
    fn a_disk_without_device_times_has_no_means() {
        assert_eq!(BlockMeans::of(&trace(&[], &[100])), None);
    }
}
