//! fio's latency target (`latency_target`, `latency_window`, `latency_percentile`,
//! `latency_run`): each worker searches for the deepest queue at which the given percentile of
//! its I/Os complete within the target, over each window. The job's iodepth is the ceiling.
//!
//! The search starts at depth 1 and doubles while every window passes; the first window that
//! fails marks an upper bound, and from there it bisects between the deepest depth that passed
//! and the shallowest that failed. A depth one below a failed one that keeps passing (three
//! windows in a row) lifts the bound by one, so a target that is met with room to spare is
//! not left there. When a window passes and the depth it asks for next is the one it ran, the
//! depth has settled: one more window runs at it, and the job ends (fio's default), or with
//! `latency_run` the search goes on for the whole run.
//!
//! With `latency_percentile=100` (fio's default) one I/O over the target fails the window at
//! once; at depth 1 that fails the job, as in fio. I/Os submitted before the depth changed are
//! not judged in the new window (fio waits for them before it starts one).
//!
//! Pure logic, on times the worker passes in: the worker counts an I/O per completion (one
//! branch) and asks [`DepthSearch::check`] after each reap.

use std::time::Duration;

/// fio's latency target options, as the validator took them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyTarget {
    /// The latency (submission to completion) an I/O must stay within.
    pub target: Duration,
    /// How long each depth runs before it is judged (0: after every reap).
    pub window: Duration,
    /// Percent of a window's I/Os that must stay within the target (fio's default 100).
    pub percentile: f64,
    /// `latency_run`: keep adjusting for the whole run instead of ending once settled.
    pub keep_running: bool,
}

/// What a look at the search asks of the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Go on at the current depth.
    Keep,
    /// Go on at this depth (in flight at most).
    Depth(u32),
    /// The depth settled and ran a last window at it: the job is done.
    Done,
    /// An I/O missed a 100th-percentile target at depth 1: the job fails.
    Missed { latency_ns: u64 },
}

/// One worker's search state.
#[derive(Debug, Clone)]
pub struct DepthSearch {
    target_ns: u64,
    window_ns: u64,
    percentile: f64,
    keep_running: bool,
    ceiling: u32,
    depth: u32,
    /// The deepest depth that passed (the bisection's floor).
    low: u32,
    /// The shallowest depth that failed; the ceiling until one fails.
    high: u32,
    /// Windows passed in a row one below `high`.
    stable: u32,
    /// The depth settled once: the next settling ends the job.
    final_run: bool,
    cycle_start_ns: u64,
    ios: u64,
    missed: u64,
}

impl DepthSearch {
    /// A search up to `ceiling` in flight, at depth 1, its first window from `now_ns`.
    #[must_use]
    pub fn new(target: &LatencyTarget, ceiling: u32, now_ns: u64) -> Self {
        let ceiling = ceiling.max(1);
        Self {
            target_ns: crate::record::nanos(target.target),
            window_ns: crate::record::nanos(target.window),
            percentile: target.percentile,
            keep_running: target.keep_running,
            ceiling,
            depth: 1,
            low: 1,
            high: ceiling,
            stable: 0,
            final_run: false,
            cycle_start_ns: now_ns,
            ios: 0,
            missed: 0,
        }
    }

    /// The depth the search runs at now (at the end: the one it settled on).
    #[must_use]
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Starts the search over from `now_ns` (the ramp is over: fio's search starts after it).
    pub fn restart(&mut self, now_ns: u64) {
        let target = LatencyTarget {
            target: Duration::from_nanos(self.target_ns),
            window: Duration::from_nanos(self.window_ns),
            percentile: self.percentile,
            keep_running: self.keep_running,
        };
        *self = Self::new(&target, self.ceiling, now_ns);
    }

    /// One completed I/O, submitted at `submit_ns`, that took `latency_ns`. A change of
    /// depth is asked for only when a 100th-percentile target is missed.
    #[inline]
    pub fn observe(&mut self, submit_ns: u64, latency_ns: u64) -> Step {
        if submit_ns < self.cycle_start_ns {
            return Step::Keep;
        }
        self.ios += 1;
        if latency_ns <= self.target_ns {
            return Step::Keep;
        }
        if self.percentile < 100.0 {
            self.missed += 1;
            return Step::Keep;
        }
        if self.depth == 1 {
            return Step::Missed { latency_ns };
        }
        self.ramp_down(submit_ns.saturating_add(latency_ns))
    }

    /// After a reap at `now_ns`: judges the window when it is over.
    pub fn check(&mut self, now_ns: u64) -> Step {
        if now_ns.saturating_sub(self.cycle_start_ns) < self.window_ns || self.ios == 0 {
            return Step::Keep;
        }
        let within_pct = (self.ios - self.missed) as f64 * 100.0 / self.ios as f64;
        if within_pct >= self.percentile {
            self.ramp_up(now_ns)
        } else if self.depth == 1 {
            // Nothing shallower to try: the window goes on, counting.
            Step::Keep
        } else {
            self.ramp_down(now_ns)
        }
    }

    fn ramp_down(&mut self, now_ns: u64) -> Step {
        self.high = self.depth;
        if self.depth == self.low {
            self.low -= 1;
        }
        self.depth = ((self.depth + self.low) / 2).max(1);
        self.stable = 0;
        self.new_window(now_ns);
        Step::Depth(self.depth)
    }

    fn ramp_up(&mut self, now_ns: u64) -> Step {
        let ran = self.depth;
        self.low = ran;
        if ran + 1 == self.high {
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        // Until a depth fails, double towards the ceiling; after, bisect below the failure.
        let next = if self.high == self.ceiling {
            ran.saturating_mul(2)
        } else {
            ran.midpoint(self.high)
        };
        self.depth = next.clamp(1, self.ceiling);
        self.new_window(now_ns);
        if self.depth != ran {
            return Step::Depth(self.depth);
        }
        if self.keep_running {
            return Step::Keep;
        }
        if self.final_run {
            return Step::Done;
        }
        self.final_run = true;
        Step::Keep
    }

    fn new_window(&mut self, now_ns: u64) {
        self.cycle_start_ns = now_ns;
        self.ios = 0;
        self.missed = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn target(target_us: u64, window_ms: u64, percentile: f64) -> LatencyTarget {
        LatencyTarget {
            target: Duration::from_micros(target_us),
            window: Duration::from_millis(window_ms),
            percentile,
            keep_running: false,
        }
    }

    /// Runs windows of 10 I/Os each at the latency `latency_at(depth)` until the search ends
    /// or `windows` have run; the depths it went through.
    fn walk(search: &mut DepthSearch, windows: u64, latency_at: impl Fn(u32) -> u64) -> Vec<u32> {
        let mut depths = vec![search.depth()];
        let mut now = 0;
        for _ in 0..windows {
            let mut step = Step::Keep;
            for _ in 0..10 {
                let latency = latency_at(search.depth());
                now += 1;
                let seen = search.observe(now, latency);
                if seen != Step::Keep {
                    step = seen;
                    break;
                }
            }
            if step == Step::Keep {
                now += 10 * MS;
                step = search.check(now);
            }
            match step {
                Step::Depth(d) => depths.push(d),
                Step::Done => {
                    depths.push(0);
                    break;
                }
                Step::Missed { .. } => {
                    depths.push(u32::MAX);
                    break;
                }
                Step::Keep => {}
            }
        }
        depths
    }

    #[test]
    fn a_target_always_met_doubles_to_the_ceiling_then_ends() {
        let mut search = DepthSearch::new(&target(1000, 10, 100.0), 8, 0);
        assert_eq!(walk(&mut search, 20, |_| 10_000), vec![1, 2, 4, 8, 0]);
        assert_eq!(search.depth(), 8);
    }

    #[test]
    fn a_ceiling_that_is_no_power_of_two_is_reached() {
        let mut search = DepthSearch::new(&target(1000, 10, 100.0), 6, 0);
        assert_eq!(walk(&mut search, 20, |_| 10_000), vec![1, 2, 4, 6, 0]);
    }

    #[test]
    fn a_target_never_met_stays_at_depth_one() {
        let mut search = DepthSearch::new(&target(1, 10, 99.9), 16, 0);
        let depths = walk(&mut search, 20, |_| 50_000);
        assert_eq!(depths, vec![1]);
        assert_eq!(search.depth(), 1);
    }

    #[test]
    fn at_the_hundredth_percentile_a_miss_at_depth_one_fails_the_job() {
        let mut search = DepthSearch::new(&target(1, 10, 100.0), 16, 0);
        assert_eq!(search.observe(5, 2_000), Step::Missed { latency_ns: 2_000 });
    }

    #[test]
    fn the_search_settles_below_the_depth_where_latency_crosses_the_target() {
        // Latency grows with depth (Little's law at a fixed rate): 100 us per I/O in flight.
        // A 1 ms target is met up to depth 10.
        let mut search = DepthSearch::new(&target(1000, 10, 100.0), 64, 0);
        let depths = walk(&mut search, 100, |d| u64::from(d) * 100_000);
        assert_eq!(depths.last(), Some(&0), "the search ends: {depths:?}");
        assert_eq!(search.depth(), 10, "{depths:?}");
        // Doubling, then a failure at 16 and bisection below it.
        assert_eq!(&depths[..5], &[1, 2, 4, 8, 16]);
    }

    #[test]
    fn a_percentile_below_100_tolerates_that_share_of_misses() {
        // One I/O in ten misses: 90% pass, so 90 is met and 95 is not.
        let slow_one = |search: &mut DepthSearch| {
            let mut now = 0;
            for i in 0..10 {
                now += 1;
                assert_eq!(
                    search.observe(now, if i == 0 { 5_000 } else { 10 }),
                    Step::Keep
                );
            }
            search.check(now + 20 * MS)
        };
        let mut met = DepthSearch::new(&target(1, 10, 90.0), 8, 0);
        assert_eq!(slow_one(&mut met), Step::Depth(2));
        let mut missed = DepthSearch::new(&target(1, 10, 95.0), 8, 0);
        missed.depth = 4;
        assert_eq!(slow_one(&mut missed), Step::Depth(2));
    }

    #[test]
    fn a_window_is_judged_only_once_it_is_over() {
        let mut search = DepthSearch::new(&target(1000, 10, 100.0), 8, 0);
        search.observe(1, 10);
        assert_eq!(search.check(9 * MS), Step::Keep);
        assert_eq!(search.check(10 * MS), Step::Depth(2));
        // A window without a completion is not judged.
        assert_eq!(search.check(30 * MS), Step::Keep);
    }

    #[test]
    fn ios_submitted_before_the_depth_changed_are_not_judged() {
        let mut search = DepthSearch::new(&target(1000, 10, 100.0), 8, 0);
        search.observe(1, 10);
        assert_eq!(search.check(10 * MS), Step::Depth(2));
        // Submitted at 5 ms (depth 1), over the target: not this window's.
        assert_eq!(search.observe(5 * MS, 10 * MS), Step::Keep);
        assert_eq!(search.ios, 0);
    }

    #[test]
    fn latency_run_keeps_going_at_the_settled_depth() {
        let mut t = target(1000, 10, 100.0);
        t.keep_running = true;
        let mut search = DepthSearch::new(&t, 4, 0);
        let depths = walk(&mut search, 30, |_| 10);
        assert_eq!(depths, vec![1, 2, 4]);
        assert_eq!(search.depth(), 4);
    }

    #[test]
    fn a_depth_one_below_a_failure_that_keeps_passing_tries_higher_again() {
        // Depth 3 passes, 4 fails once (then would pass): after three passes at 3 the bound
        // rises and 4 is tried again (with latency_run: without, two passes settle it).
        let mut t = target(1000, 10, 100.0);
        t.keep_running = true;
        let mut search = DepthSearch::new(&t, 8, 0);
        search.depth = 4;
        search.low = 2;
        search.high = 8;
        assert_eq!(search.observe(1, 5 * MS), Step::Depth(3));
        let mut now = 20 * MS;
        let mut steps = Vec::new();
        for _ in 0..3 {
            search.observe(now, 10);
            now += 10 * MS;
            steps.push(search.check(now));
        }
        assert_eq!(steps, vec![Step::Keep, Step::Keep, Step::Depth(4)]);
    }

    #[test]
    fn restart_goes_back_to_depth_one() {
        let mut search = DepthSearch::new(&target(1000, 10, 100.0), 8, 0);
        search.observe(1, 10);
        assert_eq!(search.check(10 * MS), Step::Depth(2));
        search.restart(50 * MS);
        assert_eq!(search.depth(), 1);
        assert_eq!(search.check(55 * MS), Step::Keep);
    }
}
