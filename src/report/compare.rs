//! The text of `diskdash compare`: a header per run, the job line, the notices, then one
//! table per direction with the change and which way is better.

use std::fmt::{self, Write as _};
use std::time::Duration;

use crate::analysis::compare::{Comparison, CurvePair, Metric, Regression, SAME_PCT, Verdict};
use crate::report::bench::status_word;
use crate::report::export::{Column, Exporter, Grid, Text};

impl fmt::Display for Regression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(point) = &self.point {
            write!(f, "at {point}: ")?;
        }
        write!(
            f,
            "{} {} {} {:.1}% ({} -> {})",
            self.direction,
            self.metric.label(),
            if self.change_pct < 0.0 {
                "fell"
            } else {
                "rose"
            },
            self.change_pct.abs(),
            self.metric.format(self.base),
            self.metric.format(self.new),
        )
    }
}

/// The table a person reads.
#[must_use]
pub fn text(cmp: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "diskdash compare: base {}, new {}",
        cmp.base.path, cmp.new.path
    );
    for (which, run) in [("base", &cmp.base), ("new", &cmp.new)] {
        let _ = writeln!(out, "  {which:<7} {}", run.description);
        let _ = writeln!(
            out,
            "          target {} ({}){}, engine {}, {} after {:.2}s{}",
            run.target,
            run.target_kind.replace('_', " "),
            run.device
                .as_deref()
                .map_or_else(String::new, |d| format!(" on {d}")),
            run.engine,
            status_word(run.status),
            Duration::from_nanos(run.elapsed_ns).as_secs_f64(),
            if run.segments > 1 {
                format!(" in {} segments", run.segments)
            } else {
                String::new()
            },
        );
    }
    let differences: Vec<String> = cmp
        .job_differences
        .iter()
        .map(|d| format!("{} {} -> {}", d.key, d.shown.0, d.shown.1))
        .collect();
    let _ = writeln!(
        out,
        "  job     {}",
        match (cmp.same_job, differences.is_empty()) {
            (true, true) => "the same".to_string(),
            (true, false) => format!("the same workload; differs: {}", differences.join(", ")),
            (false, _) => format!("DIFFERENT: {}", differences.join(", ")),
        }
    );
    for notice in &cmp.notices {
        let level = if notice.level == "warning" {
            "WARNING"
        } else {
            "note"
        };
        let _ = writeln!(out, "  {level:<7} {}", notice.text);
    }
    let _ = writeln!(out);
    out.push_str(&Text.render(&directions_grid(cmp)));
    if cmp.directions.is_empty() {
        let _ = writeln!(out, "no I/O in either run");
    }
    if !cmp.points.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "point by point (matched by the swept options):");
        for point in &cmp.points {
            for direction in &point.directions {
                let cells: Vec<String> = direction
                    .metrics
                    .iter()
                    .map(|row| {
                        let change = row.change_pct.map_or_else(
                            || "n/a".to_string(),
                            |c| {
                                if c.abs() < SAME_PCT {
                                    "0.0%".to_string()
                                } else {
                                    format!("{c:+.1}%")
                                }
                            },
                        );
                        let verdict = match row.verdict {
                            Some(Verdict::Worse) => " WORSE",
                            Some(Verdict::Better) => " better",
                            _ => "",
                        };
                        format!(
                            "{} {} -> {} {change}{verdict}",
                            row.metric.label(),
                            row.metric.format(row.base),
                            row.metric.format(row.new)
                        )
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "  {} {}: {}",
                    point.point,
                    direction.direction,
                    cells.join(", ")
                );
            }
        }
        for label in &cmp.unmatched_points {
            let _ = writeln!(out, "  {label}: not in the other sweep");
        }
    }
    if let Some(curves) = &cmp.curves {
        for pair in &curves.directions {
            let _ = writeln!(out);
            for line in chart(
                pair,
                &curves.dimension,
                curves.metric,
                CHART_WIDTH,
                CHART_HEIGHT,
            ) {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    if let Some(max) = cmp.max_regression_pct {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "max regression {max}%: {}",
            if cmp.regressions.is_empty() {
                "passed".to_string()
            } else {
                format!("{} regression(s), see stderr", cmp.regressions.len())
            }
        );
    }
    crate::text::escape_layout(&out).into_owned()
}

/// The table of each direction's metrics: a line naming the direction and its I/Os, then a
/// row a metric with base, new and the change, and the verdict after it.
fn directions_grid(cmp: &Comparison) -> Grid {
    let mut grid = Grid::new(vec![
        Column::left("").min_width(12).gap(""),
        Column::right("base").min_width(14).gap(""),
        Column::right("new").min_width(14).gap(""),
        Column::right("change").min_width(10).gap(""),
    ]);
    grid.indent = "  ".to_string();
    grid.keys = 1;
    for direction in &cmp.directions {
        grid.line(format!(
            "{} ({} -> {} {})",
            direction.direction,
            direction.base_ios,
            direction.new_ios,
            if direction.direction == "sync" {
                "calls"
            } else {
                "I/Os"
            }
        ));
        for row in &direction.metrics {
            let change = row.change_pct.map_or_else(
                || "n/a".to_string(),
                |c| {
                    if c.abs() < SAME_PCT {
                        "0.0%".to_string()
                    } else {
                        format!("{c:+.1}%")
                    }
                },
            );
            let verdict = match row.verdict {
                Some(Verdict::Better) => Some("better".to_string()),
                Some(Verdict::Worse) => Some("WORSE".to_string()),
                Some(Verdict::Same) | None => None,
            };
            grid.row_with_note(
                vec![
                    row.metric.label().to_string(),
                    row.metric.format(row.base),
                    row.metric.format(row.new),
                    change,
                ],
                verdict,
            );
        }
    }
    grid
}

/// The plot area of a sweep's chart, in cells.
const CHART_WIDTH: usize = 60;
const CHART_HEIGHT: usize = 10;

/// One direction's two curves as text, `width` x `height` cells of plot: `A` marks the base's
/// points, `B` the new's, `*` a cell where both fall. The y axis is linear from 0; the x axis
/// is logarithmic when every value is a positive number (block sizes, depths: powers of two
/// come out equally spaced), otherwise the values in order, equally spaced.
#[must_use]
pub fn chart(
    pair: &CurvePair,
    dimension: &str,
    metric: Metric,
    width: usize,
    height: usize,
) -> Vec<String> {
    let width = width.max(2);
    let height = height.max(2);
    // The x values of both curves: each once, with its number when it has one.
    let mut values: Vec<(String, Option<f64>)> = Vec::new();
    for p in pair.base.iter().chain(&pair.new) {
        if !values.iter().any(|(v, _)| *v == p.value) {
            values.push((p.value.clone(), p.x));
        }
    }
    let log = !values.is_empty() && values.iter().all(|(_, x)| x.is_some_and(|x| x > 0.0));
    if log {
        values.sort_by(|a, b| a.1.unwrap_or(0.0).total_cmp(&b.1.unwrap_or(0.0)));
    }
    let column = |i: usize| -> usize {
        let last = (width - 1) as f64;
        let at = if log {
            let lx = |j: usize| values[j].1.unwrap_or(1.0).log2();
            let (lo, hi) = (lx(0), lx(values.len() - 1));
            if hi > lo {
                (lx(i) - lo) / (hi - lo)
            } else {
                0.0
            }
        } else if values.len() > 1 {
            i as f64 / (values.len() - 1) as f64
        } else {
            0.0
        };
        (at * last).round() as usize
    };
    let columns: Vec<usize> = (0..values.len()).map(column).collect();
    let top = pair
        .base
        .iter()
        .chain(&pair.new)
        .map(|p| p.y)
        .fold(0.0_f64, f64::max);
    let row = |y: f64| -> usize {
        let from_bottom = if top > 0.0 {
            (y / top * (height - 1) as f64).round() as usize
        } else {
            0
        };
        height - 1 - from_bottom.min(height - 1)
    };
    let mut grid = vec![vec![' '; width]; height];
    for (series, mark) in [(&pair.base, 'A'), (&pair.new, 'B')] {
        for p in series {
            let Some(i) = values.iter().position(|(v, _)| *v == p.value) else {
                continue;
            };
            let cell = &mut grid[row(p.y)][columns[i]];
            *cell = if *cell == ' ' || *cell == mark {
                mark
            } else {
                '*'
            };
        }
    }
    let labels = [
        (0, metric.format(top)),
        (height / 2, metric.format(top / 2.0)),
        (height - 1, "0".to_string()),
    ];
    let label_width = labels
        .iter()
        .map(|(_, l)| l.chars().count())
        .max()
        .unwrap_or(1);
    let mut out = vec![format!(
        "{} {} against {dimension}{}: A base, B new, * both",
        pair.direction,
        metric.label(),
        if log { " (log scale)" } else { "" }
    )];
    for (r, cells) in grid.iter().enumerate() {
        let label = labels
            .iter()
            .find(|(at, _)| *at == r)
            .map_or("", |(_, l)| l.as_str());
        let tick = if label.is_empty() { '│' } else { '┤' };
        let line: String = cells.iter().collect();
        out.push(format!("{label:>label_width$} {tick}{}", line.trim_end()));
    }
    out.push(format!(
        "{} └{}",
        " ".repeat(label_width),
        "─".repeat(width)
    ));
    // The values under their columns, left out where one would run into the one before.
    let mut axis = String::new();
    for ((value, _), &col) in values.iter().zip(&columns) {
        let len = axis.chars().count();
        if col < len + usize::from(len > 0) {
            continue;
        }
        axis.push_str(&" ".repeat(col - len));
        axis.push_str(value);
    }
    out.push(format!("{}  {axis}", " ".repeat(label_width)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::compare::compare;
    use crate::record;
    use crate::record::{
        CpuRecord, EngineRecord, HostRecord, Percentiles, SegmentRecord, SyncRecord, TargetRecord,
    };
    use crate::record::{DirectionRecord, JobRecord, LatencyRecord, RunRecord, RunStatus};
    use crate::report::sweep::table::sweep_x;
    use crate::units::format_size_short;

    /// Latency with p50 = mean, the tail above it, max 10x.
    fn lat(n: u64, mean_ns: u64) -> LatencyRecord {
        LatencyRecord {
            min: mean_ns / 4,
            max: mean_ns * 10,
            mean: mean_ns as f64,
            stddev: 0.0,
            n,
            percentile: Percentiles(vec![
                (50.0, mean_ns),
                (90.0, mean_ns * 2),
                (99.0, mean_ns * 4),
                (99.9, mean_ns * 8),
            ]),
            histogram: None,
        }
    }

    fn dir(iops: f64, mean_ns: u64) -> DirectionRecord {
        let ios = iops as u64 * 2;
        DirectionRecord {
            io_bytes: ios * 4096,
            io_kbytes: ios * 4,
            bw_bytes: iops as u64 * 4096,
            bw: iops as u64 * 4,
            iops,
            runtime: 2000,
            total_ios: ios,
            lat_ns: if ios > 0 {
                lat(ios, mean_ns)
            } else {
                LatencyRecord::default()
            },
            lat_sched_ns: None,
            runtime_ns: None,
        }
    }

    fn job(rw: &str, bs: u64) -> JobRecord {
        JobRecord {
            description: format!(
                "{rw} bs={} iodepth=32 numjobs=1 io_uring direct",
                format_size_short(bs)
            ),
            ran_description: None,
            rw: rw.into(),
            rwmixread: 50,
            bs,
            size: 64 << 20,
            iodepth: 32,
            numjobs: 1,
            ioengine: "io_uring".into(),
            iodepth_batch: 1,
            iodepth_batch_complete: 1,
            iodepth_batch_complete_min: 1,
            iodepth_low: None,
            direct: true,
            fsync: None,
            fdatasync: None,
            sync: None,
            cpus: None,
            runtime_ns: 2_000_000_000,
            ramp_ns: 0,
            interval_ns: 1_000_000_000,
            offset: 0,
            offset_increment: 0,
            io_size: None,
            startdelay_ns: 0,
            randseed: None,
            end_fsync: false,
            cpus_allowed_policy: "split".into(),
            random_distribution: "random".into(),
            steadystate: None,
            cliff_pct: 30.0,
            rate: None,
            bssplit: None,
            norandommap: false,
            random_generator: "tausworthe".into(),
            invalidate: true,
            fadvise_hint: "1".into(),
            data: "random".into(),
            iomem: "huge".into(),
            fallocate: "native".into(),
            latency_target: None,
        }
    }

    fn run(read_iops: f64, read_mean_ns: u64) -> RunRecord {
        RunRecord {
            format: record::FORMAT.into(),
            format_version: record::FORMAT_VERSION,
            diskdash_version: "0.1.0".into(),
            status: RunStatus::Completed,
            error: None,
            started_at: "2026-11-21T08:00:00.000Z".into(),
            ended_at: "2026-11-21T08:00:02.000Z".into(),
            host: HostRecord {
                hostname: "vm".into(),
                kernel: "6.18".into(),
                cpus: 2,
                memory_bytes: 1 << 34,
            },
            job: job("randread", 4096),
            engine: EngineRecord {
                requested: "io_uring".into(),
                used: "io_uring".into(),
                ..EngineRecord::default()
            },
            target: TargetRecord {
                path: "/data/f".into(),
                kind: "file".into(),
                working_set_bytes: 64 << 20,
                dio_align_bytes: 512,
                preconditioned: false,
                scratch_removed: false,
                notes: Vec::new(),
            },
            device: None,
            latency_definition: String::new(),
            elapsed_ns: 2_000_000_000,
            stalled_ns: 0,
            read: dir(read_iops, read_mean_ns),
            write: DirectionRecord::default(),
            sync: SyncRecord::default(),
            trim: DirectionRecord::default(),
            retries: 0,
            cpu: CpuRecord::default(),
            segments: Vec::new(),
            warnings: Vec::new(),
            typed_warnings: Vec::new(),
            notes: Vec::new(),
            sweep: None,
            verify: None,
            trust: None,
            trust_limits: None,
        }
    }

    fn segment(record: &RunRecord, index: u32) -> SegmentRecord {
        SegmentRecord {
            index,
            point: Vec::new(),
            status: RunStatus::Completed,
            job: record.job.clone(),
            engine: record.engine.used.clone(),
            elapsed_ns: record.elapsed_ns / 2,
            stalled_ns: 0,
            read: record.read.clone(),
            write: record.write.clone(),
            sync: record.sync.clone(),
            trim: DirectionRecord::default(),
            retries: 0,
            cpu: CpuRecord::default(),
            series_stride: 1,
            series: Vec::new(),
            device: None,
            jobs: Vec::new(),
            devices: Vec::new(),
            stop_reason: None,
            notes: Vec::new(),
            trust: None,
        }
    }

    #[test]
    fn the_same_job_reads_at_a_glance_with_better_and_worse_labelled() {
        let base = run(50_000.0, 600_000);
        let mut new = run(52_000.0, 500_000);
        new.read.lat_ns.percentile.0[2].1 = 3_000_000; // p99 rose from 2.40 ms
        new.job.runtime_ns = 10_000_000_000;
        let cmp = compare("a.json", &base, "b.json", &new, &sweep_x);
        assert!(cmp.same_job);
        assert_eq!(
            text(&cmp),
            "\
diskdash compare: base a.json, new b.json
  base    randread bs=4k iodepth=32 numjobs=1 io_uring direct
          target /data/f (file), engine io_uring, completed after 2.00s
  new     randread bs=4k iodepth=32 numjobs=1 io_uring direct
          target /data/f (file), engine io_uring, completed after 2.00s
  job     the same workload; differs: runtime_ns 2s -> 10s

                        base           new    change
read (100000 -> 104000 I/Os)
  IOPS                 50.0k         52.0k     +4.0%  better
  bandwidth      195.3 MiB/s   203.1 MiB/s     +4.0%  better
  lat mean          600.0 us      500.0 us    -16.7%  better
  lat p50           600.0 us      500.0 us    -16.7%  better
  lat p90            1.20 ms       1.00 ms    -16.7%  better
  lat p99            2.40 ms       3.00 ms    +25.0%  WORSE
  lat p99.9          4.80 ms       4.00 ms    -16.7%  better
  lat max            6.00 ms       5.00 ms    -16.7%  better
"
        );
    }

    #[test]
    fn different_jobs_failures_fallbacks_and_segments_are_flagged() {
        let mut base = run(50_000.0, 600_000);
        base.segments = vec![segment(&base, 0), segment(&base, 1), segment(&base, 2)];
        base.segments[1].job.iodepth = 64;
        base.warnings = vec!["PAGE CACHE: these results measure memory".into()];
        let mut new = run(50_000.0, 600_000);
        new.job = job("randrw", 65536);
        new.write = dir(1_000.0, 1_000_000);
        new.status = RunStatus::Failed;
        new.error = Some(crate::record::ErrorRecord {
            message: "EIO at offset 0".into(),
            operation: Some("write".into()),
            errno: Some(5),
            errno_name: Some("EIO".into()),
            offset_bytes: Some(0),
            worker: Some(0),
        });
        new.engine.used = "psync".into();
        new.engine.fallback = Some("io_uring denied (EPERM)".into());
        new.job.ran_description = Some("randrw bs=64k iodepth=1 numjobs=1 psync direct".into());
        let cmp = compare("a.json", &base, "b.json", &new, &sweep_x);
        assert!(!cmp.same_job && cmp.whole_run_totals);
        let text = text(&cmp);
        let head: Vec<&str> = text.lines().take(13).collect();
        assert_eq!(
            head,
            [
                "diskdash compare: base a.json, new b.json",
                "  base    randread bs=4k iodepth=32 numjobs=1 io_uring direct",
                "          target /data/f (file), engine io_uring, completed after 2.00s in 3 segments",
                // What ran, not what was asked.
                "  new     randrw bs=64k iodepth=1 numjobs=1 psync direct",
                "          target /data/f (file), engine psync, FAILED after 2.00s",
                "  job     DIFFERENT: rw randread -> randrw, bs 4k -> 64k",
                "  WARNING DIFFERENT JOBS (rw, bs): the table compares two workloads, not one \
                 workload run twice",
                "  WARNING base run: PAGE CACHE: these results measure memory",
                "  WARNING new run FAILED (EIO at offset 0): its numbers cover part of the run",
                "  WARNING new run fell back to psync: io_uring denied (EPERM)",
                "  note    base run has 3 segments of 2 jobs (its job line is the first): the table \
                 compares whole-run totals",
                "  note    the runs used different engines: io_uring -> psync",
                "",
            ]
        );
        // A direction only one run has: rates compare against nothing, latency is n/a.
        assert!(
            text.contains(
                "write (0 -> 2000 I/Os)\n  IOPS                     0          1.0k       n/a\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("  lat p99               0 ns       4.00 ms       n/a\n"),
            "{text}"
        );
    }

    #[test]
    fn write_latency_of_runs_that_sync_differently_gets_no_verdict() {
        // fsync=0: 1000 writes of 2 ms. fsync=1: writes of 730 us, each followed by a 3 ms fsync.
        let mut base = run(0.0, 0);
        base.job = job("write", 4096);
        base.write = dir(500.0, 2_000_000);
        let mut new = base.clone();
        new.job.fsync = Some(1);
        new.write = dir(200.0, 730_000);
        new.sync = SyncRecord {
            total_ios: 400,
            lat_ns: lat(400, 3_000_000),
        };
        let cmp = compare("a.json", &base, "b.json", &new, &sweep_x);
        let text = text(&cmp);
        assert!(
            text.contains("  lat mean           2.00 ms      730.0 us       n/a\n"),
            "{text}"
        );
        assert!(!text.contains("better"), "{text}");
        assert!(
            text.contains("  durable mean       2.00 ms       3.73 ms    +86.5%  WORSE\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "  WARNING the runs make writes durable differently (fsync, fdatasync, sync): \
                 write latency leaves sync calls out, so it is not compared"
            ),
            "{text}"
        );
        // The same policy on both sides: write latency compares as before.
        let mut same = new.clone();
        same.write = dir(200.0, 800_000);
        let cmp = compare("a.json", &new, "b.json", &same, &sweep_x);
        let text = super::text(&cmp);
        assert!(!text.contains("durable"), "{text}");
        assert!(text.contains("  lat mean  "), "{text}");
        assert!(text.contains("+9.6%  WORSE"), "{text}");
    }

    #[test]
    fn the_gate_names_drops_of_rates_and_rises_of_p99_only() {
        let base = run(50_000.0, 600_000);
        let mut new = run(40_000.0, 900_000); // -20% IOPS and bandwidth, +50% latency
        new.sync = SyncRecord {
            total_ios: 10,
            lat_ns: lat(10, 1_000),
        };
        let mut cmp = compare("a.json", &base, "b.json", &new, &sweep_x);
        cmp.gate(25.0);
        let named: Vec<String> = cmp.regressions.iter().map(ToString::to_string).collect();
        assert_eq!(named, ["read lat p99 rose 50.0% (2.40 ms -> 3.60 ms)"]);
        cmp.gate(10.0);
        let named: Vec<String> = cmp.regressions.iter().map(ToString::to_string).collect();
        assert_eq!(
            named,
            [
                "read IOPS fell 20.0% (50.0k -> 40.0k)",
                "read bandwidth fell 20.0% (195.3 MiB/s -> 156.2 MiB/s)",
                "read lat p99 rose 50.0% (2.40 ms -> 3.60 ms)",
            ]
        );
        assert!(text(&cmp).ends_with("\nmax regression 10%: 3 regression(s), see stderr\n"));
        // The sync row exists (only in new: n/a) and never gates on its own.
        assert_eq!(cmp.directions[1].direction, "sync");
        assert!(
            cmp.directions[1]
                .metrics
                .iter()
                .all(|r| r.change_pct.is_none())
        );
        cmp.gate(50.0);
        assert!(cmp.regressions.is_empty());
        assert!(text(&cmp).ends_with("\nmax regression 50%: passed\n"));
    }

    #[test]
    fn the_json_object_keys() {
        let base = run(50_000.0, 600_000);
        let new = run(25_000.0, 600_000);
        let mut cmp = compare("a.json", &base, "b.json", &new, &sweep_x);
        cmp.gate(5.0);
        let json = serde_json::to_value(&cmp).unwrap();
        assert_eq!(json["format"], "diskdash-compare");
        assert_eq!(json["base"]["status"], "completed");
        assert_eq!(json["same_job"], true);
        assert_eq!(json["job_differences"], serde_json::json!([]));
        let iops = &json["directions"][0]["metrics"][0];
        assert_eq!(
            *iops,
            serde_json::json!({"metric": "iops", "base": 50_000.0, "new": 25_000.0,
                "change_pct": -50.0, "better": "higher", "verdict": "worse"})
        );
        assert_eq!(json["directions"][0]["metrics"][5]["metric"], "lat_p99_ns");
        assert_eq!(json["directions"][0]["metrics"][5]["verdict"], "same");
        assert_eq!(json["max_regression_pct"], 5.0);
        assert_eq!(json["regressions"][1]["metric"], "bw_bytes");
    }

    fn curve(points: &[(&str, Option<f64>, f64)]) -> Vec<crate::analysis::compare::CurvePoint> {
        points
            .iter()
            .map(|&(value, x, y)| crate::analysis::compare::CurvePoint {
                value: value.into(),
                x,
                y,
            })
            .collect()
    }

    #[test]
    fn a_chart_marks_both_curves_on_a_log_axis() {
        let kib = |k: f64| Some(k * 1024.0);
        // Listed out of order: the axis sorts sizes; 1M is the base's only.
        let pair = CurvePair {
            direction: "write",
            base: curve(&[
                ("1M", kib(1024.0), 400e6),
                ("4k", kib(4.0), 100e6),
                ("32k", kib(32.0), 200e6),
            ]),
            new: curve(&[("4k", kib(4.0), 100e6), ("32k", kib(32.0), 300e6)]),
        };
        let lines = chart(&pair, "bs", Metric::BwBytes, 17, 5);
        let want = [
            "write bandwidth against bs (log scale): A base, B new, * both",
            "381.5 MiB/s ┤                A",
            "            │      B",
            "190.7 MiB/s ┤      A",
            "            │*",
            "          0 ┤",
            "            └─────────────────",
            "             4k    32k       1M",
        ];
        assert_eq!(lines, want, "\n{}", lines.join("\n"));
    }

    #[test]
    fn a_chart_of_names_spaces_them_in_order() {
        let pair = CurvePair {
            direction: "read",
            base: curve(&[("io_uring", None, 50_000.0), ("psync", None, 10_000.0)]),
            new: curve(&[("io_uring", None, 25_000.0), ("libaio", None, 0.0)]),
        };
        let lines = chart(&pair, "ioengine", Metric::Iops, 21, 3);
        let want = [
            "read IOPS against ioengine: A base, B new, * both",
            "50.0k ┤A",
            "25.0k ┤B",
            "    0 ┤          A         B",
            "      └─────────────────────",
            "       io_uring  psync     libaio",
        ];
        assert_eq!(lines, want, "\n{}", lines.join("\n"));
    }
}
