//! The sentences under the sweep table, rendered from the typed findings of
//! `analysis::sweep` (the record keeps the findings, not the sentences).

use crate::record::{PointValue, SweepFinding, SweptValue};
use crate::units::{format_latency_ns, format_rate};

/// The sentence of a finding for the sweep table's foot; `None` for a best row (the table
/// marks it in its row):
/// - "write peaks at 2M: 4.20 GB/s (4005 MiB/s)";
/// - "past numjobs=8 write IOPS grows < 5% (+1.2%) while mean latency grows 3.9x";
/// - "write knee at iodepth=32: 81.2k IOPS, p99 412.0 us (limit 2x the lowest p99: 600.0 us)".
///
/// A point is named by its value for `bs` ("2M") and as `dimension=value` otherwise
/// ("iodepth=32"), with what ran when it is not what the value says; a matrix's slice is
/// named first ("rw=randread: ").
#[must_use]
pub fn sentence(finding: &SweepFinding) -> Option<String> {
    let name = |dimension: &str, value: &SweptValue, ran: &Option<String>| {
        let mut name = if dimension == "bs" {
            value.to_string()
        } else {
            format!("{dimension}={value}")
        };
        if let Some(ran) = ran {
            name += &format!(" ({ran})");
        }
        name
    };
    let prefix = |at: &[PointValue]| {
        if at.is_empty() {
            String::new()
        } else {
            let words: Vec<String> = at
                .iter()
                .map(|p| format!("{}={}", p.option, p.value))
                .collect();
            format!("{}: ", words.join(" "))
        }
    };
    match finding {
        SweepFinding::Peak {
            at,
            dimension,
            value,
            direction,
            bytes_per_s,
            ran,
            ..
        } => Some(format!(
            "{}{direction} peaks at {}: {}",
            prefix(at),
            name(dimension, value, ran),
            format_bandwidth(*bytes_per_s)
        )),
        SweepFinding::GainStop {
            at,
            dimension,
            value,
            direction,
            metric,
            growth_pct,
            latency_factor,
            ran,
        } => Some(format!(
            "{}past {} {direction} {} grows < 5% ({growth_pct:+.1}%) while mean latency grows \
             {latency_factor:.1}x",
            prefix(at),
            name(dimension, value, ran),
            if metric == "iops" {
                "IOPS"
            } else {
                "bandwidth"
            },
        )),
        #[allow(clippy::cast_precision_loss)] // display only
        SweepFinding::Knee {
            at,
            dimension,
            value,
            direction,
            iops,
            p99_ns,
            p99_limit_ns,
            ran,
        } => Some(format!(
            "{}{direction} knee at {}: {} IOPS, p99 {} (limit 2x the lowest p99: {})",
            prefix(at),
            name(dimension, value, ran),
            format_rate(*iops),
            format_latency_ns(*p99_ns as f64),
            format_latency_ns(*p99_limit_ns as f64)
        )),
        SweepFinding::Best { .. } => None,
    }
}

/// "4.20 GB/s (4005 MiB/s)": decimal units as on vendor sheets, then binary MiB/s as fio and
/// dd print. Below 1 MB/s: "512 kB/s (500 KiB/s)". Non-finite or negative counts as 0.
fn format_bandwidth(bytes_per_s: f64) -> String {
    let b = if bytes_per_s.is_finite() {
        bytes_per_s.max(0.0)
    } else {
        0.0
    };
    let decimal = if b >= 1e9 {
        format!("{:.2} GB/s", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB/s", b / 1e6)
    } else {
        format!("{:.0} kB/s", b / 1e3)
    };
    let binary = if b >= 1024.0 * 1024.0 {
        format!("{:.0} MiB/s", b / (1024.0 * 1024.0))
    } else {
        format!("{:.0} KiB/s", b / 1024.0)
    };
    format!("{decimal} ({binary})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::sweep::curves::*;
    use crate::analysis::sweep::{Sample, findings};

    /// The sentences of the findings of one direction of a one-dimension sweep.
    fn statements_of(dimension: &str, direction: &str, samples: &[Sample]) -> Vec<String> {
        findings(dimension, direction, &[], samples)
            .iter()
            .filter_map(sentence)
            .collect()
    }

    #[test]
    fn statements_of_an_iodepth_sweep() {
        assert_eq!(
            statements_of("iodepth", "write", &knee_at_32()),
            [
                "write peaks at iodepth=128: 338 MB/s (322 MiB/s)",
                "past iodepth=32 write IOPS grows < 5% (+1.6%) while mean latency grows 3.9x",
                "write knee at iodepth=32: 81.2k IOPS, p99 412.0 us (limit 2x the lowest p99: 600.0 us)",
            ]
        );
    }

    #[test]
    fn statements_say_what_ran_when_it_is_not_the_label() {
        let mut curve = knee_at_32();
        for s in &mut curve {
            s.ran = Some("ran psync at iodepth 1".into());
        }
        let lines = statements_of("iodepth", "write", &curve);
        assert_eq!(
            lines[0],
            "write peaks at iodepth=128 (ran psync at iodepth 1): 338 MB/s (322 MiB/s)"
        );
        assert!(
            lines[1..]
                .iter()
                .all(|l| l.contains("iodepth=32 (ran psync at iodepth 1)")),
            "{lines:?}"
        );
    }

    #[test]
    fn statements_of_a_bs_sweep_name_points_by_label_and_use_bandwidth() {
        let write = bs_sweep(&[3000.0, 4200.0, 4150.0, 4100.0, 4120.0]);
        assert_eq!(
            statements_of("bs", "write", &write),
            [
                "write peaks at 2M: 4.20 GB/s (4005 MiB/s)",
                "past 2M write bandwidth grows < 5% (-1.2%) while mean latency grows 8.2x",
            ]
        );
    }

    #[test]
    fn statements_of_a_categorical_sweep_give_only_the_peak() {
        let engines = [
            point(0.0, "psync", 1e3, 4e6, 1e6, 2000 * US),
            point(1.0, "io_uring", 2e3, 8e6, 4e6, 9000 * US),
            point(2.0, "libaio", 2e3, 8e6, 4e6, 9000 * US),
        ];
        assert_eq!(
            statements_of("ioengine", "read", &engines),
            ["read peaks at ioengine=io_uring: 8 MB/s (8 MiB/s)"]
        );
    }

    #[test]
    fn statements_of_nothing_or_zeros_are_empty() {
        assert!(statements_of("iodepth", "read", &[]).is_empty());
        let zeros = [
            point(1.0, "1", 0.0, 0.0, 0.0, 0),
            point(2.0, "2", 0.0, 0.0, 0.0, 0),
        ];
        assert!(statements_of("iodepth", "read", &zeros).is_empty());
    }

    #[test]
    fn statements_of_a_single_point_give_only_the_peak() {
        let one = depth_sweep(&[10e3], &[100]);
        assert_eq!(
            statements_of("numjobs", "read", &one),
            ["read peaks at numjobs=1: 41 MB/s (39 MiB/s)"]
        );
    }

    #[test]
    fn bandwidth_is_decimal_then_binary() {
        assert_eq!(format_bandwidth(4.2e9), "4.20 GB/s (4005 MiB/s)");
        assert_eq!(format_bandwidth(850e6), "850 MB/s (811 MiB/s)");
        assert_eq!(format_bandwidth(512e3), "512 kB/s (500 KiB/s)");
        assert_eq!(format_bandwidth(f64::NAN), "0 kB/s (0 KiB/s)");
        assert_eq!(format_bandwidth(-1.0), "0 kB/s (0 KiB/s)");
    }
}
