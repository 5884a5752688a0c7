//! fio's own bucket layouts, for the keys its consumers read: the `plat` histogram of json+'s
//! `bins` (fio's `stat.h`/`stat.c`: `FIO_IO_U_PLAT_BITS`, `plat_val_to_idx`, `plat_idx_to_val`),
//! the coarse `latency_ns`/`latency_us`/`latency_ms` percentages (fio's `io_u_lat_*`), the
//! `iodepth_*` buckets, and the per-interval sample statistics behind `bw_min`..`iops_samples`.
//! The arithmetic is fio's, written from its description; diskdash's fine buckets are mapped
//! onto it.

use crate::stats::plat::{plat_index, plat_value};
use crate::stats::{LatencyBucket, fine_bucket_ge_ns};

/// json+'s `bins` of a histogram: `(fio's bucket value in ns, count)`, ascending, non-empty
/// buckets only (as fio prints them). A fine bucket with at least 6 sub-bucket bits lies inside
/// one of fio's buckets (both cut each power of two evenly, the fine one at least as finely),
/// so the mapping is exact; a coarser one is placed by its lower bound.
#[must_use]
pub fn bins(buckets: &[LatencyBucket], sub_bucket_bits: u32) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for bucket in buckets.iter().filter(|b| b.count > 0) {
        let index = plat_index(fine_bucket_ge_ns(bucket.le_ns, sub_bucket_bits));
        match out.last_mut() {
            Some((last, count)) if *last == index => *count += bucket.count,
            _ => out.push((index, bucket.count)),
        }
    }
    out.into_iter()
        .map(|(index, count)| (plat_value(index), count))
        .collect()
}

/// Upper ends (exclusive) of fio's `latency_ns` and `latency_us` buckets, in their unit: a
/// latency below 2 goes to "2", from 2 to below 4 to "4", ..., from 750 to below 1000 to "1000".
const LAT_EDGES: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];

/// fio's three latency tables, each `(key, percent of all I/Os)`: `latency_ns` (below 1 us),
/// `latency_us` (1 us to below 1 ms), `latency_ms` (1 ms up, with "2000" and ">=2000").
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyTables {
    pub ns: Vec<(String, f64)>,
    pub us: Vec<(String, f64)>,
    pub ms: Vec<(String, f64)>,
}

/// The tables of `buckets` (fine buckets, `sub_bucket_bits`, of every direction) over `total`
/// I/Os. A fine bucket counts where its upper bound falls, the value the percentiles report
/// for it: it is at most 0.78% wide at the records' 7 bits, so only I/Os within that below an
/// edge can land one range high.
#[must_use]
pub fn latency_tables(buckets: &[(Vec<LatencyBucket>, u32)], total: u64) -> LatencyTables {
    let mut ns = [0u64; 10];
    let mut us = [0u64; 10];
    let mut ms = [0u64; 12];
    for (list, _) in buckets {
        for bucket in list {
            let lat = bucket.le_ns;
            let slot = |v: u64| LAT_EDGES.iter().position(|&edge| v < edge);
            if lat < 1000 {
                ns[slot(lat).unwrap_or(9)] += bucket.count;
            } else if lat < 1_000_000 {
                us[slot(lat / 1000).unwrap_or(9)] += bucket.count;
            } else {
                let millis = lat / 1_000_000;
                let i = match slot(millis) {
                    Some(i) => i,
                    None if millis < 2000 => 10,
                    None => 11,
                };
                ms[i] += bucket.count;
            }
        }
    }
    let pct = |count: u64| {
        if total == 0 {
            0.0
        } else {
            count as f64 * 100.0 / total as f64
        }
    };
    let table = |counts: &[u64], keys: &[String]| -> Vec<(String, f64)> {
        keys.iter()
            .cloned()
            .zip(counts.iter().map(|&c| pct(c)))
            .collect()
    };
    let mut keys: Vec<String> = LAT_EDGES.iter().map(u64::to_string).collect();
    let small = table(&ns, &keys);
    let micro = table(&us, &keys);
    keys.push("2000".into());
    keys.push(">=2000".into());
    LatencyTables {
        ns: small,
        us: micro,
        ms: table(&ms, &keys),
    }
}

/// fio's `iodepth_level` keys: the depth at submission, 1, 2 to 3, 4 to 7, ... 32 to 63, 64 up.
const DEPTH_KEYS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];
/// fio's `iodepth_submit`/`iodepth_complete` keys: I/Os per call, 0, 1 to 4, 5 to 8, 9 to 16,
/// 17 to 32, 33 to 64, over 64.
const BATCH_KEYS: [&str; 7] = ["0", "4", "8", "16", "32", "64", ">=64"];

/// `iodepth_level` with every I/O at `depth` (percent).
#[must_use]
pub fn depth_table(depth: u32, any_io: bool) -> Vec<(&'static str, f64)> {
    let slot = match depth {
        0 | 1 => 0,
        d => (u32::BITS - 1 - d.leading_zeros()).min(6) as usize,
    };
    one_hot(&DEPTH_KEYS, slot, any_io)
}

/// `iodepth_submit`/`iodepth_complete` with every call taking `per_call` I/Os (percent).
#[must_use]
pub fn batch_table(per_call: u32, any_io: bool) -> Vec<(&'static str, f64)> {
    let slot = match per_call {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    };
    one_hot(&BATCH_KEYS, slot, any_io)
}

/// The three depth tables of `counts` as fio's `stat_calc_dist` gives them: each slot as
/// percent of its table's total (I/Os for `iodepth_level`, calls for the others), a slot with
/// any count at least 0.1; all 0 without a total.
#[must_use]
pub fn counted_tables(counts: &crate::record::IoDepthsRecord) -> [Vec<(&'static str, f64)>; 3] {
    let table = |keys: &[&'static str; 7], counts: &[u64; 7]| {
        let total: u64 = counts.iter().sum();
        keys.iter()
            .zip(counts)
            .map(|(&key, &n)| {
                let pct = if total == 0 {
                    0.0
                } else {
                    let pct = n as f64 * 100.0 / total as f64;
                    if n > 0 && pct < 0.1 { 0.1 } else { pct }
                };
                (key, pct)
            })
            .collect()
    };
    [
        table(&DEPTH_KEYS, &counts.level),
        table(&BATCH_KEYS, &counts.submit),
        table(&BATCH_KEYS, &counts.complete),
    ]
}

fn one_hot(keys: &[&'static str], slot: usize, any_io: bool) -> Vec<(&'static str, f64)> {
    keys.iter()
        .enumerate()
        .map(|(i, &key)| (key, if any_io && i == slot { 100.0 } else { 0.0 }))
        .collect()
}

/// fio's summary of one sampled quantity (its `calc_lat` over `bw_stat`/`iops_stat`): min and
/// max of the integer samples, their mean and sample standard deviation (n - 1), the count.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SampleStats {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub dev: f64,
    pub samples: u64,
}

impl SampleStats {
    /// Over `samples`; all zeros without any, as fio.
    #[must_use]
    pub fn of(samples: &[u64]) -> Self {
        let Some((&min, &max)) = samples.iter().min().zip(samples.iter().max()) else {
            return Self::default();
        };
        let n = samples.len() as f64;
        let mean = samples.iter().map(|&s| s as f64).sum::<f64>() / n;
        let dev = if samples.len() > 1 {
            let square: f64 = samples.iter().map(|&s| (s as f64 - mean).powi(2)).sum();
            (square / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        Self {
            min,
            max,
            mean,
            dev,
            samples: samples.len() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::plat::PLAT_NR;
    use crate::stats::{FINE_SUB_BUCKET_BITS, fine_bucket_le_ns};

    #[test]
    fn counted_depth_tables_are_fio_s_percentages() {
        let counts = crate::record::IoDepthsRecord {
            level: [1, 0, 30, 1969, 0, 0, 0],
            submit: [0, 2000, 0, 0, 0, 0, 0],
            complete: [0, 1500, 500, 0, 0, 0, 0],
        };
        let [level, submit, complete] = counted_tables(&counts);
        let pct = |t: &[(&str, f64)]| t.iter().map(|(_, p)| *p).collect::<Vec<_>>();
        // stat_calc_dist: 1 of 2000 is 0.05%, shown as 0.1 (a slot with any count).
        assert_eq!(pct(&level), [0.1, 0.0, 1.5, 98.45, 0.0, 0.0, 0.0]);
        assert_eq!(level[3].0, "8");
        assert_eq!(pct(&submit), [0.0, 100.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(pct(&complete), [0.0, 75.0, 25.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(complete[6].0, ">=64");
        let [none, ..] = counted_tables(&crate::record::IoDepthsRecord::default());
        assert!(pct(&none).iter().all(|&p| p == 0.0));
    }

    #[test]
    fn plat_arithmetic_is_fio_s() {
        // Exact below 128 ns.
        assert_eq!((plat_index(0), plat_index(127)), (0, 127));
        assert_eq!(plat_value(127), 127);
        // [128, 256) in buckets of 2: 128..=129 is index 128, printed 129.
        assert_eq!(
            (plat_index(128), plat_index(129), plat_index(130)),
            (128, 128, 129)
        );
        assert_eq!(plat_value(128), 129);
        // Values fio 3.33 printed in a json+ run here: 23424 and 23936 ns.
        assert_eq!(plat_value(plat_index(23_424)), 23_424);
        assert_eq!(plat_value(plat_index(23_900)), 23_936);
        // The last bucket takes everything beyond.
        assert_eq!(plat_index(u64::MAX), PLAT_NR - 1);
    }

    #[test]
    fn bins_merge_fine_buckets_into_fio_s() {
        let bucket = |ns: u64, count| LatencyBucket {
            le_ns: fine_bucket_le_ns(ns, FINE_SUB_BUCKET_BITS),
            count,
        };
        // 23_424 and 23_500 share fio's bucket [23_296, 23_552); 100 ns is exact.
        let bins = bins(
            &[
                bucket(100, 1),
                bucket(23_424, 2),
                bucket(23_500, 3),
                bucket(40_000, 0),
            ],
            FINE_SUB_BUCKET_BITS,
        );
        assert_eq!(bins, [(100, 1), (23_424, 5)]);
    }

    #[test]
    fn latency_tables_are_percent_of_all_i_os_in_fio_s_ranges() {
        let bucket = |ns: u64, count| LatencyBucket {
            le_ns: fine_bucket_le_ns(ns, FINE_SUB_BUCKET_BITS),
            count,
        };
        let list = vec![
            bucket(1, 1),
            bucket(999, 1),
            bucket(1_500, 1),
            bucket(60_000, 3),
            bucket(1_900_000_000, 1),
            bucket(3_000_000_000, 3),
        ];
        let t = latency_tables(&[(list, FINE_SUB_BUCKET_BITS)], 10);
        assert_eq!(t.ns[0], ("2".to_string(), 10.0));
        assert_eq!(t.ns[9], ("1000".to_string(), 10.0));
        assert_eq!(t.us[0], ("2".to_string(), 10.0));
        assert_eq!(t.us[6], ("250".to_string(), 0.0));
        assert_eq!(t.us[5], ("100".to_string(), 30.0));
        assert_eq!(t.ms[10], ("2000".to_string(), 10.0));
        assert_eq!(t.ms[11], (">=2000".to_string(), 30.0));
        let sum: f64 = [&t.ns, &t.us, &t.ms]
            .iter()
            .flat_map(|t| t.iter())
            .map(|e| e.1)
            .sum();
        assert!((sum - 100.0).abs() < 1e-9);
    }

    #[test]
    fn depth_and_batch_tables_use_fio_s_keys() {
        assert_eq!(depth_table(1, true)[0], ("1", 100.0));
        assert_eq!(depth_table(3, true)[1], ("2", 100.0));
        assert_eq!(depth_table(32, true)[5], ("32", 100.0));
        assert_eq!(depth_table(256, true)[6], (">=64", 100.0));
        assert!(depth_table(8, false).iter().all(|e| e.1 == 0.0));
        assert_eq!(batch_table(1, true)[1], ("4", 100.0));
        assert_eq!(batch_table(64, true)[5], ("64", 100.0));
    }

    #[test]
    fn sample_stats_are_fio_s_calc_lat() {
        assert_eq!(SampleStats::of(&[]), SampleStats::default());
        let s = SampleStats::of(&[2, 4, 6]);
        assert_eq!((s.min, s.max, s.samples), (2, 6, 3));
        assert!((s.mean - 4.0).abs() < 1e-12);
        assert!((s.dev - 2.0).abs() < 1e-12, "sample stddev, n - 1");
        assert_eq!(SampleStats::of(&[7]).dev, 0.0);
    }

    proptest::proptest! {
        /// Each of the records' fine buckets lies inside one of fio's: its lower and upper
        /// bounds (and any latency in it) have one fio index, and fio's printed value of a
        /// bucket maps back to that bucket.
        #[test]
        fn a_fine_bucket_lies_inside_one_fio_bucket(ns in 1u64..(1 << 40)) {
            let le = fine_bucket_le_ns(ns, FINE_SUB_BUCKET_BITS);
            let ge = fine_bucket_ge_ns(le, FINE_SUB_BUCKET_BITS);
            proptest::prop_assert_eq!(plat_index(ge), plat_index(ns));
            proptest::prop_assert_eq!(plat_index(le), plat_index(ns));
            let index = plat_index(ns);
            proptest::prop_assert_eq!(plat_index(plat_value(index)), index);
        }
    }
}
