//! Each job's part of a step's intervals for the record (`StepJobRecord::series`), in
//! bounded memory: at most [`MAX_POINTS`] entries per job; when full, neighbouring entries
//! are merged pairwise (counts and times added), so nothing measured is dropped.

use crate::record::{DirectionRecord, IntervalCounts, JobIntervalRecord};

/// Entries kept per job before merging.
pub const MAX_POINTS: usize = 1024;

/// The series of every job of one step.
#[derive(Debug, Clone, Default)]
pub struct JobSeries {
    jobs: Vec<Vec<JobIntervalRecord>>,
    /// Intervals per entry now (doubles at each merge).
    per_entry: u32,
}

impl JobSeries {
    #[must_use]
    pub fn new() -> Self {
        Self {
            jobs: Vec::new(),
            per_entry: 1,
        }
    }

    /// One interval (ending at `t_ns`, `duration_ns` long): each job's part (its read, write
    /// and trim), in the step's order.
    pub fn push<'d>(
        &mut self,
        t_ns: u64,
        duration_ns: u64,
        jobs: impl ExactSizeIterator<Item = [&'d DirectionRecord; 3]>,
    ) {
        if self.jobs.len() < jobs.len() {
            self.jobs.resize_with(jobs.len(), Vec::new);
        }
        for (series, [read, write, trim]) in self.jobs.iter_mut().zip(jobs) {
            let entry = JobIntervalRecord {
                t_ns,
                duration_ns,
                intervals: 1,
                read: IntervalCounts::of(read),
                write: IntervalCounts::of(write),
                trim: IntervalCounts::of(trim),
            };
            match series.last_mut() {
                // The last entry still fills up to the current width.
                Some(last) if last.intervals < self.per_entry => last.merge(&entry),
                _ => series.push(entry),
            }
        }
        if self.jobs.iter().any(|s| s.len() >= MAX_POINTS) {
            self.per_entry = self.per_entry.saturating_mul(2);
            for series in &mut self.jobs {
                *series = series
                    .chunks(2)
                    .map(|pair| {
                        let mut merged = pair[0];
                        if let Some(next) = pair.get(1) {
                            merged.merge(next);
                        }
                        merged
                    })
                    .collect();
            }
        }
    }

    /// Job `i`'s series (empty when it had no interval).
    #[must_use]
    pub fn take(&mut self, i: usize) -> Vec<JobIntervalRecord> {
        self.jobs.get_mut(i).map(std::mem::take).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(ios: u64) -> DirectionRecord {
        let mut read = DirectionRecord {
            total_ios: ios,
            io_bytes: ios * 4096,
            ..DirectionRecord::default()
        };
        read.lat_ns.n = ios;
        read.lat_ns.mean = 100.0;
        read
    }

    #[test]
    fn past_the_cap_neighbours_merge_and_nothing_is_lost() {
        let mut series = JobSeries::new();
        let n = MAX_POINTS as u64 * 3 + 7;
        for i in 0..n {
            // One stall: interval 2000 lasts 20 s and did 1 I/O.
            let (d, ios) = if i == 2000 {
                (20_000_000_000, 1)
            } else {
                (10_000_000, 10)
            };
            let (a, b, idle) = (read(ios), read(1), DirectionRecord::default());
            series.push(
                (i + 1) * 10_000_000,
                d,
                [[&a, &idle, &idle], [&b, &idle, &idle]].into_iter(),
            );
        }
        let a = series.take(0);
        assert!(a.len() <= MAX_POINTS, "{}", a.len());
        assert!(a.len() > MAX_POINTS / 4);
        assert_eq!(a.iter().map(|e| u64::from(e.intervals)).sum::<u64>(), n);
        assert_eq!(a.iter().map(|e| e.read.ios).sum::<u64>(), (n - 1) * 10 + 1);
        assert_eq!(
            a.iter().map(|e| e.read.lat_sum_ns).sum::<u64>(),
            ((n - 1) * 10 + 1) * 100
        );
        assert!(a.windows(2).all(|w| w[0].t_ns < w[1].t_ns));
        assert_eq!(a.last().unwrap().t_ns, n * 10_000_000);
        // The stall's entry is still the one that lasted 20 s.
        assert!(a.iter().any(|e| e.duration_ns >= 20_000_000_000));
        assert_eq!(series.take(1).iter().map(|e| e.read.ios).sum::<u64>(), n);
        assert!(series.take(5).is_empty());
    }
}
