//! The sentences under the sweep table, rendered from the typed findings of
//! `analysis::sweep` (the record keeps the findings, not the sentences).

pub mod table;

use crate::record::{PointValue, SweepFinding, SweptValue, TrustMark};
use crate::units::{format_latency_ns, format_rate};

/// The sweep's report as the command prints it: the table (fitted to `fit` columns, or whole
/// for a pipe or a file; JSON with the record's `findings`) and, under a table or Markdown,
/// the foot's lines (`table::foot`).
#[must_use]
pub fn report(
    rows: &[table::Row],
    names: &[String],
    format: table::Format,
    fit: Option<usize>,
    findings: &[SweepFinding],
    foot: &[String],
) -> String {
    let mut text = match fit {
        Some(width) => table::render_fitted(rows, names, width),
        None => table::render(rows, names, format, findings),
    };
    if matches!(format, table::Format::Table | table::Format::Markdown) {
        for line in foot {
            let line = crate::text::escape_layout(line);
            match fit {
                Some(width) => text.push_str(&table::wrap(&line, width)),
                None => text.push_str(&format!("{line}\n")),
            }
        }
    }
    text
}

/// The sentence of a finding for the sweep table's foot; `None` for a best row (the table
/// marks it in its row):
/// - "write peaks at 2M: 4.20 GB/s (4005 MiB/s)";
/// - "past numjobs=8 write IOPS grows < 5% (+1.2%) while mean latency grows 3.9x";
/// - "write knee at iodepth=32: 81.2k IOPS, p99 412.0 us (limit 2x the lowest p99: 600.0 us)";
/// - "latency target p99 <= 1.00 ms: met up to iodepth=16; first missed at iodepth=32";
/// - "advice: use 2M for write-heavy, 16M-32M for read-heavy, 4M-8M for mixed".
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
        SweepFinding::LatencyTarget {
            percentile,
            target_ns,
            met,
            first_miss,
        } => Some(latency_target(
            *percentile,
            *target_ns,
            met.as_deref(),
            first_miss.as_deref(),
        )),
        SweepFinding::Advice {
            write_heavy,
            read_heavy,
            mixed,
            write_peak,
            read_peak,
            write_ties,
            read_ties,
            unreliable,
        } => {
            let heavy = |range: &[SweptValue], ties: &[SweptValue]| {
                if ties.is_empty() {
                    run(range)
                } else {
                    let others: Vec<String> = ties.iter().map(ToString::to_string).collect();
                    format!(
                        "{} (ties with {} within their spreads)",
                        run(range),
                        others.join(", ")
                    )
                }
            };
            let head = format!(
                "{}: use {} for write-heavy, {} for read-heavy",
                advice_lead(unreliable),
                heavy(write_heavy, write_ties),
                heavy(read_heavy, read_ties)
            );
            let said = if mixed.is_empty() {
                format!(
                    "{head}; for mixed, no block size between {write_peak} and {read_peak} keeps \
                     both read and write >= 90% of their peaks"
                )
            } else {
                let runs: Vec<String> = mixed.iter().map(|r| run(r)).collect();
                format!("{head}, {} for mixed", runs.join(", "))
            };
            Some(if unreliable.is_empty() {
                said
            } else {
                let remedies: Vec<&str> = unreliable
                    .iter()
                    .map(|m| crate::analysis::trust::remedy(*m))
                    .collect();
                format!(
                    "{said}; to rely on it, measure with {}",
                    remedies.join(", ")
                )
            })
        }
        SweepFinding::AdviceUnavailable => {
            Some("advice: needs a block-size sweep with reads and writes".to_string())
        }
    }
}

/// The line of `--latency-target`, its points named by all their values
/// (`iodepth=16 bs=4k`).
fn latency_target(
    percentile: f64,
    target_ns: u64,
    met: Option<&[PointValue]>,
    first_miss: Option<&[PointValue]>,
) -> String {
    let point = |values: &[PointValue]| {
        values
            .iter()
            .map(|p| format!("{}={}", p.option, p.value))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let bound = format!("p{percentile} <= {}", format_latency_ns(target_ns as f64));
    match (met.map(point), first_miss.map(point)) {
        (Some(met), Some(miss)) => {
            format!("latency target {bound}: met up to {met}; first missed at {miss}")
        }
        (Some(met), None) => format!("latency target {bound}: met by every point, up to {met}"),
        (None, Some(miss)) => {
            format!("latency target {bound}: missed from the first point, {miss}")
        }
        (None, None) => format!("latency target {bound}: no point measured any latency"),
    }
}

/// "advice", or "advice, not reliable (short, shared points)" when it rests on marked points.
fn advice_lead(marks: &[TrustMark]) -> String {
    if marks.is_empty() {
        "advice".to_string()
    } else {
        let words: Vec<&str> = marks.iter().map(|m| m.as_str()).collect();
        format!("advice, not reliable ({} points)", words.join(", "))
    }
}

/// A run of adjacent swept values: "2M", or its first and last "16M-32M".
fn run(values: &[SweptValue]) -> String {
    match values {
        [] => String::new(),
        [one] => one.to_string(),
        [first, .., last] => format!("{first}-{last}"),
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

    /// The advice sentence of a read and a write block-size sweep (MB/s per 1M..64M).
    fn advice_of(read: &[f64], write: &[f64]) -> String {
        let finding = crate::analysis::sweep::advice(&bs_sweep(read), &bs_sweep(write))
            .unwrap_or(SweepFinding::AdviceUnavailable);
        sentence(&finding).unwrap()
    }

    #[test]
    fn advice_is_said_as_runs_of_block_sizes() {
        let dd_read = [2000.0, 3000.0, 5100.0, 5200.0, 5600.0, 5500.0, 5000.0];
        let dd_write = [3000.0, 4200.0, 3900.0, 3850.0, 3500.0, 3400.0, 3300.0];
        assert_eq!(
            advice_of(&dd_read, &dd_write),
            "advice: use 2M for write-heavy, 16M-32M for read-heavy, 4M-8M for mixed"
        );
        let mut no_mixed = dd_read;
        no_mixed[2] = 4000.0;
        no_mixed[3] = 4000.0;
        assert_eq!(
            advice_of(&no_mixed, &dd_write),
            "advice: use 2M for write-heavy, 16M-32M for read-heavy; for mixed, no block size \
             between 2M and 16M keeps both read and write >= 90% of their peaks"
        );
        assert_eq!(
            advice_of(
                &[1000.0, 5000.0, 4000.0, 5000.0, 5500.0],
                &[5000.0, 4600.0, 4600.0, 4600.0, 3000.0]
            ),
            "advice: use 1M for write-heavy, 16M for read-heavy, 2M, 8M for mixed"
        );
        assert_eq!(
            advice_of(&[4000.0; 3], &[4000.0; 3]),
            "advice: use 1M-4M for write-heavy, 1M-4M for read-heavy, 1M for mixed"
        );
        assert_eq!(
            advice_of(&[], &dd_write),
            "advice: needs a block-size sweep with reads and writes"
        );
    }

    #[test]
    fn the_latency_target_names_points_by_all_their_values() {
        let at = |depth: &str| {
            Some(vec![
                PointValue::new("rw", "randread"),
                PointValue::new("iodepth", depth),
            ])
        };
        let said = |met, first_miss| {
            sentence(&SweepFinding::LatencyTarget {
                percentile: 99.9,
                target_ns: 1_000_000,
                met,
                first_miss,
            })
            .unwrap()
        };
        assert_eq!(
            said(at("16"), at("32")),
            "latency target p99.9 <= 1.00 ms: met up to rw=randread iodepth=16; first missed at \
             rw=randread iodepth=32"
        );
        assert_eq!(
            said(at("64"), None),
            "latency target p99.9 <= 1.00 ms: met by every point, up to rw=randread iodepth=64"
        );
        assert_eq!(
            said(None, at("1")),
            "latency target p99.9 <= 1.00 ms: missed from the first point, rw=randread iodepth=1"
        );
        assert_eq!(
            said(None, None),
            "latency target p99.9 <= 1.00 ms: no point measured any latency"
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
