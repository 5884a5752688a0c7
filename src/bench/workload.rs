//! Which I/O comes next: offsets and the read/write mix of one worker.
//!
//! Sequential workers walk their own disjoint slice of the working set and wrap around;
//! random workers draw a deterministic stream (seeded by worker and segment) over all of it.

use crate::bench::spec::JobSpec;

/// Direction of one I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Read,
    Write,
}

/// The offset and mix generator of one worker.
#[derive(Debug, Clone)]
pub struct Workload {
    random: bool,
    read_pct: u8,
    block_size_bytes: u64,
    /// First byte of this worker's region.
    region_start_bytes: u64,
    /// Blocks in this worker's region (random workers: the whole working set).
    region_blocks: u64,
    next_block: u64,
    rng: u64,
}

impl Workload {
    /// Worker `worker` of `spec.numjobs` over a working set of `size_bytes`.
    #[must_use]
    pub fn new(spec: &JobSpec, size_bytes: u64, worker: u32, seed: u64) -> Self {
        let total_blocks = (size_bytes / spec.block_size_bytes).max(1);
        let (region_start_block, region_blocks) = if spec.rw.is_random() {
            (0, total_blocks)
        } else {
            let jobs = u64::from(spec.numjobs);
            let per_job = (total_blocks / jobs).max(1);
            let start = (u64::from(worker) * per_job).min(total_blocks - 1);
            let blocks = if u64::from(worker) + 1 == jobs {
                total_blocks - start
            } else {
                per_job.min(total_blocks - start)
            };
            (start, blocks.max(1))
        };
        // fio's offset and offset_increment move the whole region of worker N.
        let base_bytes = spec
            .offset_bytes
            .saturating_add(u64::from(worker).saturating_mul(spec.offset_increment_bytes));
        Self {
            random: spec.rw.is_random(),
            read_pct: spec.rw.read_pct(spec.rwmixread_pct),
            block_size_bytes: spec.block_size_bytes,
            region_start_bytes: base_bytes + region_start_block * spec.block_size_bytes,
            region_blocks,
            next_block: 0,
            rng: seed ^ (u64::from(worker) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        }
    }

    /// The next I/O: direction and byte offset.
    #[inline]
    pub fn next_io(&mut self) -> (Direction, u64) {
        let direction = match self.read_pct {
            100 => Direction::Read,
            0 => Direction::Write,
            pct => {
                if splitmix64(&mut self.rng) % 100 < u64::from(pct) {
                    Direction::Read
                } else {
                    Direction::Write
                }
            }
        };
        let block = if self.random {
            // Lemire's multiply-shift: an unbiased-enough map of 64 random bits onto the range.
            ((u128::from(splitmix64(&mut self.rng)) * u128::from(self.region_blocks)) >> 64) as u64
        } else {
            let block = self.next_block;
            self.next_block += 1;
            if self.next_block == self.region_blocks {
                self.next_block = 0;
            }
            block
        };
        (
            direction,
            self.region_start_bytes + block * self.block_size_bytes,
        )
    }
}

/// splitmix64 (Steele, Lea, Flood 2014): one multiply-xorshift step per draw.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::spec::{JobSpec, RwMode};

    fn spec(rw: RwMode, numjobs: u32) -> JobSpec {
        JobSpec {
            rw,
            numjobs,
            ..JobSpec::default()
        }
    }

    #[test]
    fn sequential_workers_walk_disjoint_slices_and_wrap() {
        let spec = spec(RwMode::Read, 2);
        let size = 8 * 4096;
        let mut first = Workload::new(&spec, size, 0, 1);
        let mut second = Workload::new(&spec, size, 1, 1);
        let a: Vec<u64> = (0..5).map(|_| first.next_io().1).collect();
        let b: Vec<u64> = (0..5).map(|_| second.next_io().1).collect();
        assert_eq!(a, [0, 4096, 8192, 12288, 0]);
        assert_eq!(b, [16384, 20480, 24576, 28672, 16384]);
    }

    #[test]
    fn random_offsets_are_deterministic_aligned_and_in_range() {
        let spec = spec(RwMode::RandRead, 1);
        let size = 1 << 20;
        let mut one = Workload::new(&spec, size, 0, 42);
        let mut two = Workload::new(&spec, size, 0, 42);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..1000 {
            let (dir, offset) = one.next_io();
            assert_eq!((dir, offset), two.next_io());
            assert_eq!(dir, Direction::Read);
            assert_eq!(offset % 4096, 0);
            assert!(offset < size);
            seen.insert(offset);
        }
        assert!(seen.len() > 200, "covers the range: {}", seen.len());
    }

    #[test]
    fn offsets_move_each_workers_region() {
        let sequential = JobSpec {
            offset_bytes: 1 << 20,
            offset_increment_bytes: 1 << 21,
            ..spec(RwMode::Read, 2)
        };
        let mut first = Workload::new(&sequential, 8 * 4096, 0, 1);
        let mut second = Workload::new(&sequential, 8 * 4096, 1, 1);
        assert_eq!(first.next_io().1, 1 << 20);
        // The second worker's slice of the working set, moved by offset + 1 x increment.
        assert_eq!(second.next_io().1, (1 << 20) + (1 << 21) + 4 * 4096);
        let random = JobSpec {
            offset_bytes: 8192,
            ..spec(RwMode::RandRead, 1)
        };
        let mut random = Workload::new(&random, 4 * 4096, 0, 1);
        for _ in 0..100 {
            let offset = random.next_io().1;
            assert!((8192..8192 + 4 * 4096).contains(&offset), "{offset}");
        }
    }

    #[test]
    fn mixed_workloads_follow_the_read_share() {
        let spec = spec(RwMode::RandRw, 1);
        let mut workload = Workload::new(&spec, 1 << 20, 0, 3);
        let reads = (0..10_000)
            .filter(|_| workload.next_io().0 == Direction::Read)
            .count();
        assert!((4_700..5_300).contains(&reads), "{reads}");
    }
}
