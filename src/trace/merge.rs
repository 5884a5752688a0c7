//! The CPUs' events in time order. Each CPU's buffer hands its events out in time order, so
//! the reader keeps one run per CPU and merges the runs (a heap of their next events, one
//! step per change of CPU) instead of sorting everything it read together; the events after
//! the cutoff stay at the head of their runs for the next drain.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::event::Event;

/// Hands `each` every event of `runs` up to `cutoff` (inclusive) in time order, the lower
/// run first on equal times, and leaves the later ones in their runs, in order. A run out of
/// time order (one CPU's buffer is not, but nothing read is trusted) is sorted first.
pub fn merge(runs: &mut [Vec<Event>], cutoff: u64, mut each: impl FnMut(&Event)) {
    for run in runs.iter_mut() {
        if !run.is_sorted_by_key(|e| e.ts) {
            run.sort_by_key(|e| e.ts);
        }
    }
    let mut taken = vec![0usize; runs.len()];
    let mut heads: BinaryHeap<Reverse<(u64, usize)>> = runs
        .iter()
        .enumerate()
        .filter_map(|(at, run)| run.first().map(|e| Reverse((e.ts, at))))
        .filter(|Reverse((ts, _))| *ts <= cutoff)
        .collect();
    while let Some(Reverse((_, at))) = heads.pop() {
        // This run leads until another's next event comes first (on a tie, the lower run's).
        let next_other = heads.peek().map_or((u64::MAX, usize::MAX), |Reverse(h)| *h);
        let run = &runs[at];
        let mut i = taken[at];
        while let Some(event) = run.get(i) {
            if event.ts > cutoff || (event.ts, at) > next_other {
                break;
            }
            each(event);
            i += 1;
        }
        taken[at] = i;
        if let Some(event) = run.get(i).filter(|e| e.ts <= cutoff) {
            heads.push(Reverse((event.ts, at)));
        }
    }
    for (run, n) in runs.iter_mut().zip(taken) {
        run.drain(..n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::event::{Dir, Kind};

    fn ev(ts: u64, sector: u64) -> Event {
        Event {
            kind: Kind::Issue,
            ts,
            pid: 1,
            dev: 1,
            sector,
            bytes: 4096,
            dir: Dir::Read,
        }
    }

    fn run(events: &[(u64, u64)]) -> Vec<Event> {
        events.iter().map(|&(ts, sector)| ev(ts, sector)).collect()
    }

    fn merged(runs: &mut [Vec<Event>], cutoff: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        merge(runs, cutoff, |e| out.push((e.ts, e.sector)));
        out
    }

    #[test]
    fn runs_come_out_in_time_order_the_lower_run_first_on_a_tie() {
        // The sector names the run: 0 for the first, 1 for the second, 2 for the third.
        let mut runs = vec![
            run(&[(1, 0), (4, 0), (5, 0), (9, 0)]),
            run(&[(2, 1), (3, 1), (5, 1), (6, 1)]),
            run(&[]),
        ];
        runs[2] = run(&[(0, 2), (5, 2), (100, 2)]);
        let out = merged(&mut runs, 50);
        assert_eq!(
            out,
            [
                (0, 2),
                (1, 0),
                (2, 1),
                (3, 1),
                (4, 0),
                (5, 0),
                (5, 1),
                (5, 2),
                (6, 1),
                (9, 0)
            ]
        );
        // What is past the cutoff waits in its run.
        assert!(runs[0].is_empty() && runs[1].is_empty());
        assert_eq!(runs[2].len(), 1);
        assert_eq!(runs[2][0].ts, 100);
    }

    #[test]
    fn events_after_the_cutoff_stay_for_the_next_merge_and_come_out_first_then() {
        let mut runs = vec![run(&[(1, 0), (10, 0), (20, 0)]), run(&[(5, 1), (15, 1)])];
        assert_eq!(merged(&mut runs, 10), [(1, 0), (5, 1), (10, 0)]);
        // The next drain appends what it read after what was held.
        runs[0].push(ev(30, 0));
        runs[1].push(ev(25, 1));
        assert_eq!(
            merged(&mut runs, u64::MAX),
            [(15, 1), (20, 0), (25, 1), (30, 0)]
        );
        assert!(runs.iter().all(Vec::is_empty));
    }

    #[test]
    fn a_run_out_of_order_is_sorted_before_it_is_merged() {
        let mut runs = vec![run(&[(7, 0), (3, 0), (5, 0)]), run(&[(4, 1)])];
        assert_eq!(merged(&mut runs, 6), [(3, 0), (4, 1), (5, 0)]);
        assert_eq!(runs[0].len(), 1);
    }

    #[test]
    fn the_merge_is_the_stable_sort_of_everything() {
        // A pseudo-random interleaving of four runs, checked against a stable sort by time.
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            state >> 33
        };
        let mut runs: Vec<Vec<Event>> = (0..4)
            .map(|r| {
                let mut ts = 0;
                (0..500)
                    .map(|_| {
                        ts += next() % 7;
                        ev(ts, r)
                    })
                    .collect()
            })
            .collect();
        let mut want: Vec<(u64, u64)> = runs.iter().flatten().map(|e| (e.ts, e.sector)).collect();
        want.sort_by_key(|&(ts, _)| ts);
        let want: Vec<_> = want.into_iter().filter(|&(ts, _)| ts <= 1000).collect();
        assert_eq!(merged(&mut runs, 1000), want);
    }
}
