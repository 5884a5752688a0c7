//! The `le` set of `diskdash_bench_latency_seconds`, and the fold of diskdash's fine latency
//! buckets into it.
//!
//! The set is fixed (the same on every scrape, for every job, so `rate()` and `sum by (le)`
//! work): 16 buckets per power of two of nanoseconds from 2^10 ns (1.024 µs) to 2^36 ns
//! (68.7 s), each bound the inclusive upper end of the bucket in whole nanoseconds, in seconds:
//!
//! ```text
//! le = (2^e + (k + 1) * 2^(e - 4) - 1) ns / 1e9     e = 10..=35, k = 0..=15
//! ```
//!
//! plus `le = 1.023e-06` (everything under 1.024 µs) first and `+Inf` last: 418 bounds. A bucket
//! is at most 1/16 (6.25%) of its lower end wide, so `histogram_quantile`'s linear
//! interpolation inside one is off by less than that (in practice by a fraction of it).
//!
//! The fold is exact: the fine rule (`stats::fine_bucket_le_ns`, 7 sub-bucket bits) with fewer
//! bits is a union of fine buckets, so every fine bucket lies inside one bucket of this set and
//! no count is split or moved across a bound.

use crate::stats::{LatencyBucket, fine_bucket_le_ns};

/// Sub-bucket bits of the `le` set: 2^4 = 16 buckets per power of two.
pub const LE_SUB_BUCKET_BITS: u32 = 4;
/// The first power of two cut into buckets (2^10 ns = 1.024 µs); below it is one bucket.
pub const LE_FIRST_EXP: u32 = 10;
/// The power of two where the finite bounds end (2^36 ns = 68.7 s); above it is `+Inf`.
pub const LE_END_EXP: u32 = 36;
/// Bounds of the set, `+Inf` included.
pub const LE_BOUNDS: usize = 1 + ((LE_END_EXP - LE_FIRST_EXP) << LE_SUB_BUCKET_BITS) as usize + 1;

/// The finite bounds in nanoseconds (inclusive), ascending.
#[must_use]
pub fn le_bounds_ns() -> Vec<u64> {
    let mut bounds = Vec::with_capacity(LE_BOUNDS - 1);
    bounds.push((1u64 << LE_FIRST_EXP) - 1);
    for exp in LE_FIRST_EXP..LE_END_EXP {
        let width = 1u64 << (exp - LE_SUB_BUCKET_BITS);
        for k in 1..=(1u64 << LE_SUB_BUCKET_BITS) {
            bounds.push((1u64 << exp) + k * width - 1);
        }
    }
    bounds
}

/// The index in the set (`+Inf` last) of the bucket holding latencies up to `le_ns`.
fn index_of(le_ns: u64) -> usize {
    if le_ns < 1 << LE_FIRST_EXP {
        return 0;
    }
    if le_ns >= 1 << LE_END_EXP {
        return LE_BOUNDS - 1;
    }
    let exp = u64::BITS - 1 - le_ns.leading_zeros();
    let k = (le_ns >> (exp - LE_SUB_BUCKET_BITS)) & ((1 << LE_SUB_BUCKET_BITS) - 1);
    1 + (((exp - LE_FIRST_EXP) as usize) << LE_SUB_BUCKET_BITS) + usize::try_from(k).unwrap_or(0)
}

/// Counts per bound of the set (not cumulative; `+Inf` last) of sparse fine-rule `buckets`.
/// The counts add up to the buckets' total.
#[must_use]
pub fn fold(buckets: &[LatencyBucket]) -> Vec<u64> {
    let mut counts = vec![0u64; LE_BOUNDS];
    for bucket in buckets {
        // The coarse bucket the fine one lies in; its bound decides the index.
        let coarse = fine_bucket_le_ns(bucket.le_ns, LE_SUB_BUCKET_BITS);
        counts[index_of(coarse)] += bucket.count;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::LatencyHistogram;
    use proptest::prelude::*;

    #[test]
    fn the_set_is_418_ascending_bounds_16_per_power_of_two() {
        let bounds = le_bounds_ns();
        assert_eq!(bounds.len() + 1, LE_BOUNDS);
        assert_eq!(LE_BOUNDS, 418);
        assert_eq!(&bounds[..4], &[1023, 1087, 1151, 1215]);
        assert_eq!(bounds[16], 2047);
        assert_eq!(bounds[17], 2175);
        assert_eq!(*bounds.last().unwrap(), (1 << 36) - 1);
        assert!(bounds.windows(2).all(|w| w[0] < w[1]));
        // Each bucket at most 1/16 of its lower end wide.
        for w in bounds[1..].windows(2) {
            let (lower, upper) = (w[0] + 1, w[1]);
            assert!((upper + 1 - lower) * 16 <= lower, "{lower}..={upper}");
        }
        for (i, &b) in bounds.iter().enumerate() {
            assert_eq!(index_of(b), i, "{b}");
            assert_eq!(index_of(b + 1), i + 1, "{}", b + 1);
        }
    }

    #[test]
    fn fold_puts_each_count_under_its_bound() {
        let buckets = [
            LatencyBucket { le_ns: 1, count: 1 },
            LatencyBucket {
                le_ns: 1023,
                count: 2,
            },
            LatencyBucket {
                le_ns: 1031,
                count: 3,
            },
            LatencyBucket {
                le_ns: 1087,
                count: 4,
            },
            LatencyBucket {
                le_ns: 1095,
                count: 5,
            },
            LatencyBucket {
                le_ns: 1 << 40,
                count: 6,
            },
        ];
        let counts = fold(&buckets);
        assert_eq!(&counts[..3], &[3, 7, 5]);
        assert_eq!(counts[LE_BOUNDS - 1], 6);
        assert_eq!(counts.iter().sum::<u64>(), 21);
    }

    proptest! {
        /// Folding the fine buckets of recorded latencies gives what counting each latency
        /// under the smallest bound at or above it gives: nothing split, nothing lost.
        #[test]
        fn fold_of_fine_buckets_is_exact(latencies in prop::collection::vec(
            prop_oneof![1u64..5_000, 1u64..50_000_000, 1u64..200_000_000_000], 1..300)) {
            let mut histogram = LatencyHistogram::new();
            for &ns in &latencies {
                histogram.record(ns);
            }
            let bounds = le_bounds_ns();
            let mut want = vec![0u64; LE_BOUNDS];
            for &ns in &latencies {
                // The histogram clamps at its highest trackable value (100 s): +Inf either way.
                want[bounds.partition_point(|&b| b < ns)] += 1;
            }
            prop_assert_eq!(fold(&histogram.fine_buckets()), want);
        }
    }
}
