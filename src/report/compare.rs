//! The text of `diskdash compare`: a header per run, what differs between the machines, the
//! job line, the notices, then one
//! table per direction with the change and which way is better.

use std::fmt::{self, Write as _};
use std::time::Duration;

use crate::analysis::compare::{
    Comparison, CurvePair, DirectionComparison, Metric, Regression, Row, SAME_PCT, Verdict,
};
use crate::analysis::machine::MachinesCompared;
use crate::report::bench::status_word;
use crate::report::export::{Column, Exporter, Grid, Text};

impl fmt::Display for Regression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(point) = &self.point {
            write!(f, "at {point}: ")?;
        }
        if let Some(job) = &self.job {
            write!(f, "{job}: ")?;
        }
        write!(
            f,
            "{} {} {} {:.1}% ({} -> {}; 95% interval bound nearest zero {:+.1}%)",
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
            self.bound_pct,
        )
    }
}

/// The machines' line, before any number: what differs ("disk model A vs B"), "the same"
/// when both records describe their machine and nothing differs, or which record does not
/// (written before records kept it); nothing when neither does.
fn machines(out: &mut String, m: &MachinesCompared) {
    let missing = match (m.base_recorded, m.new_recorded) {
        (false, false) if m.differences.is_empty() => return,
        (true, true) => None,
        (false, true) => Some("base"),
        (true, false) => Some("new"),
        (false, false) => Some("either run"),
    };
    let mut line = if m.differences.is_empty() {
        "the same".to_string()
    } else {
        let listed: Vec<String> = m
            .differences
            .iter()
            .map(|d| format!("{} {} vs {}", d.what, d.base, d.new))
            .collect();
        format!("DIFFERENT: {}", listed.join(", "))
    };
    if let Some(which) = missing {
        let _ = write!(
            line,
            " (not recorded in {which}: only its kernel, CPUs, memory and host compared)"
        );
    }
    let _ = writeln!(out, "  machine {line}");
}

/// The table a person reads: the runs, the notices, then the numbers.
#[must_use]
pub fn text(cmp: &Comparison) -> String {
    let mut out = String::new();
    header(&mut out, cmp);
    numbers(&mut out, cmp);
    crate::text::escape_layout(&out).into_owned()
}

/// Each run, the job line and the notices.
fn header(out: &mut String, cmp: &Comparison) {
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
            if run.steps > 1 {
                format!(" in {} segments", run.steps)
            } else {
                String::new()
            },
        );
    }
    machines(out, &cmp.machines);
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
}

/// How a change is judged, as one line.
fn method_line(cmp: &Comparison) -> String {
    format!(
        "  tested  IOPS, bandwidth, lat mean and percentiles: {} (samples: 3 or more loops, \
         else batches of 10 or more intervals, their means or their merged histograms' \
         percentiles; 20 intervals at least); a change of {}% or less is no change within \
         noise",
        cmp.method, cmp.noise_floor_pct
    )
}

/// The tables: the runs' totals (one job each), else job by job and group by group; what
/// only one run has; the sweep points; the charts; the gate.
fn numbers(out: &mut String, cmp: &Comparison) {
    let _ = writeln!(out, "{}", method_line(cmp));
    let _ = writeln!(out);
    if cmp.directions.is_empty() && !cmp.jobs.is_empty() {
        for job in &cmp.jobs {
            let _ = writeln!(out, "job {} (group {}):", job.name, job.group);
            out.push_str(&Text.render(&directions_grid(&job.directions)));
        }
        for group in &cmp.groups {
            let _ = writeln!(
                out,
                "group {} totals ({}; fio's group line: the jobs' bytes over the longest job):",
                group.group,
                group.jobs.join(", ")
            );
            out.push_str(&Text.render(&directions_grid(&group.directions)));
        }
        for job in &cmp.unmatched_jobs {
            let _ = writeln!(out, "job {job}: not in the other run, not compared");
        }
    } else {
        out.push_str(&Text.render(&directions_grid(&cmp.directions)));
    }
    if cmp.directions.is_empty() && cmp.jobs.iter().all(|j| j.directions.is_empty()) {
        let _ = writeln!(out, "no I/O in both runs to compare");
    }
    for only in &cmp.only_in_one {
        let _ = writeln!(
            out,
            "only in {}: {}{} (listed, not compared)",
            only.run,
            only.job
                .as_deref()
                .map_or_else(String::new, |j| format!("{j} ")),
            only.what
        );
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
                        let verdict = match (row.verdict, row.interval) {
                            (Some(Verdict::NotJudged), _) => row
                                .why_not_judged
                                .map_or_else(String::new, |why| format!(" not judged: {why}")),
                            (None, _) => String::new(),
                            (Some(v), Some(i)) => {
                                format!(" {} [{:+.1}%, {:+.1}%]", v.label(), i.low_pct, i.high_pct)
                            }
                            (Some(v), None) => format!(" {}", v.label()),
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
        if !cmp.ungated.is_empty() {
            let _ = writeln!(
                out,
                "  not gated (insufficient data): {}",
                cmp.ungated.join(", ")
            );
        }
    }
}

/// A row's interval cell: `[-12.3%, -7.7%]`, empty when untested.
fn interval_cell(row: &Row) -> String {
    row.interval.map_or_else(String::new, |i| {
        format!("[{:+.1}%, {:+.1}%]", i.low_pct, i.high_pct)
    })
}

/// A row's verdict after it: `better`, `WORSE`, `no change within noise`, `insufficient data
/// (12 -> 30 intervals)`; nothing for a row shown untested.
fn verdict_note(row: &Row) -> Option<String> {
    let verdict = row.verdict?;
    match verdict {
        Verdict::NotJudged => row.why_not_judged.map(|why| format!("not judged: {why}")),
        Verdict::InsufficientData => Some(row.samples.map_or_else(
            || verdict.label().to_string(),
            |s| {
                format!(
                    "{} ({} -> {} intervals)",
                    verdict.label(),
                    s.base_intervals,
                    s.new_intervals
                )
            },
        )),
        _ => Some(verdict.label().to_string()),
    }
}

/// The table of each direction's metrics: a line naming the direction and its I/Os, then a
/// row a metric with base, new, the change and its interval, and the verdict after it.
fn directions_grid(directions: &[DirectionComparison]) -> Grid {
    let mut grid = Grid::new(vec![
        Column::left("").min_width(12).gap(""),
        Column::right("base").min_width(14).gap(""),
        Column::right("new").min_width(14).gap(""),
        Column::right("change").min_width(10).gap(""),
        Column::right("95% interval").min_width(20).gap(""),
    ]);
    grid.indent = "  ".to_string();
    grid.keys = 1;
    for direction in directions {
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
            grid.row_with_note(
                vec![
                    row.metric.label().to_string(),
                    row.metric.format(row.base),
                    row.metric.format(row.new),
                    change,
                    interval_cell(row),
                ],
                verdict_note(row),
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
        CpuRecord, EngineRecord, HostRecord, Percentiles, StepRecord, SyncRecord, TargetRecord,
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
            slat_ns: None,
            clat_ns: None,
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
            machine: None,
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
            steps: Vec::new(),
            warnings: Vec::new(),
            typed_warnings: Vec::new(),
            notes: Vec::new(),
            sweep: None,
            verify: None,
            mark: None,
            trust: None,
            trust_limits: None,
        }
    }

    fn step(record: &RunRecord, index: u32) -> StepRecord {
        StepRecord {
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

    /// `record` with one step of 40 intervals of 50 ms at its rates, each interval's I/Os
    /// 1% under, then 1% over: every batch of 10 has the same mean, so the interval is the
    /// change itself.
    fn with_intervals(mut record: RunRecord) -> RunRecord {
        let mut step = step(&record, 0);
        let d = 50_000_000;
        let part = |dir: &DirectionRecord, f: f64| {
            let mut p = dir.clone();
            let ios = (dir.iops * 0.05 * f).round() as u64;
            p.total_ios = ios;
            p.io_bytes = ios * 4096;
            p.lat_ns.n = ios;
            p
        };
        step.series = (0..40u64)
            .map(|i| {
                let f = if i % 2 == 0 { 0.99 } else { 1.01 };
                record::IntervalRecord {
                    format: record::INTERVAL_FORMAT.into(),
                    format_version: record::FORMAT_VERSION,
                    step: 0,
                    index: i,
                    t_ns: (i + 1) * d,
                    duration_ns: d,
                    stalled_ns: 0,
                    read: part(&record.read, f),
                    write: part(&record.write, f),
                    sync: record.sync.clone(),
                    trim: DirectionRecord::default(),
                    device: None,
                    jobs: Vec::new(),
                    merged: None,
                }
            })
            .collect();
        record.steps = vec![step];
        record
    }

    #[test]
    fn a_run_without_intervals_is_insufficient_data() {
        let cmp = compare(
            ("a.json", &run(50_000.0, 600_000)),
            ("b.json", &run(25_000.0, 600_000)),
            &sweep_x,
            5.0,
        );
        let text = text(&cmp);
        assert!(
            text.contains("  IOPS                 50.0k         25.0k    -50.0%                      insufficient data (0 -> 0 intervals)\n"),
            "{text}"
        );
        assert!(!text.contains("WORSE"), "{text}");
    }

    #[test]
    fn the_same_job_reads_at_a_glance_with_intervals_and_verdicts() {
        let base = with_intervals(run(50_000.0, 600_000));
        let mut new = with_intervals(run(52_000.0, 500_000));
        new.read.lat_ns.percentile.0[2].1 = 3_000_000; // p99 rose from 2.40 ms
        new.job.runtime_ns = 10_000_000_000;
        let cmp = compare(("a.json", &base), ("b.json", &new), &sweep_x, 5.0);
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
  tested  IOPS, bandwidth, lat mean and percentiles: 95% Welch's t interval of the difference of the runs' sample means (samples: 3 or more loops, else batches of 10 or more intervals, their means or their merged histograms' percentiles; 20 intervals at least); a change of 5% or less is no change within noise

                        base           new    change        95% interval
read (100000 -> 104000 I/Os)
  IOPS                 50.0k         52.0k     +4.0%      [+4.0%, +4.0%]  no change within noise
  bandwidth      195.3 MiB/s   203.1 MiB/s     +4.0%      [+4.0%, +4.0%]  no change within noise
  lat mean          600.0 us      500.0 us    -16.7%    [-16.7%, -16.7%]  better
  lat p50           600.0 us      500.0 us    -16.7%                      not judged: no histograms
  lat p90            1.20 ms       1.00 ms    -16.7%                      not judged: no histograms
  lat p99            2.40 ms       3.00 ms    +25.0%                      not judged: no histograms
  lat p99.9          4.80 ms       4.00 ms    -16.7%                      not judged: no histograms
  lat max            6.00 ms       5.00 ms    -16.7%
"
        );
    }

    #[test]
    fn different_jobs_failures_fallbacks_and_steps_are_flagged() {
        let mut base = run(50_000.0, 600_000);
        base.steps = vec![step(&base, 0), step(&base, 1), step(&base, 2)];
        base.steps[1].job.iodepth = 64;
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
        let cmp = compare(("a.json", &base), ("b.json", &new), &sweep_x, 5.0);
        assert!(!cmp.same_job && cmp.whole_run_totals);
        let text = text(&cmp);
        let head: Vec<&str> = text.lines().take(12).collect();
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
            ]
        );
        // A direction only one run has is listed, not compared against nothing.
        assert!(!text.contains("\nwrite ("), "{text}");
        assert!(
            text.contains("only in new: write (listed, not compared)\n"),
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
        let cmp = compare(("a.json", &base), ("b.json", &new), &sweep_x, 5.0);
        let text = text(&cmp);
        assert!(
            text.contains("  lat mean           2.00 ms      730.0 us       n/a\n"),
            "{text}"
        );
        assert!(!text.contains("better"), "{text}");
        // The base made nothing durable: no durable latency to compare, no sync calls.
        assert!(!text.contains("  durable mean"), "{text}");
        for want in [
            "  WARNING the runs make writes durable differently (fsync, fdatasync, sync): \
             write latency leaves sync calls out, so it is not compared; only the new run made \
             writes durable, so no durable latency is compared\n",
            "only in new: durable mean (writes made durable) (listed, not compared)\n",
            "only in new: sync calls (listed, not compared)\n",
        ] {
            assert!(text.contains(want), "no {want:?} in:\n{text}");
        }
        // Both durable, differently: the durable mean is compared (shown, not tested).
        let mut every4 = new.clone();
        every4.job.fsync = Some(4);
        every4.sync.total_ios = 100;
        let text = super::text(&compare(
            ("a.json", &every4),
            ("b.json", &new),
            &sweep_x,
            5.0,
        ));
        // 730 us + 100 x 3 ms / 400 writes = 1.48 ms; 730 us + 3 ms = 3.73 ms.
        let durable = text
            .lines()
            .find(|l| l.starts_with("  durable mean"))
            .unwrap();
        assert!(
            durable.contains(" 1.48 ms ") && durable.contains(" 3.73 ms   +152.0%"),
            "{durable}"
        );
        // The same policy on both sides: write latency compares as before.
        let new = with_intervals(new);
        let mut same = new.clone();
        same.write = dir(200.0, 800_000);
        let same = with_intervals(same);
        let cmp = compare(("a.json", &new), ("b.json", &same), &sweep_x, 5.0);
        let text = super::text(&cmp);
        assert!(!text.contains("durable"), "{text}");
        assert!(text.contains("  lat mean  "), "{text}");
        assert!(text.contains("+9.6%      [+9.6%, +9.6%]  WORSE"), "{text}");
    }

    #[test]
    fn the_gate_judges_rates_and_mean_latency_by_their_interval() {
        let base = with_intervals(run(50_000.0, 600_000));
        // -20% IOPS and bandwidth, +50% latency.
        let mut new = with_intervals(run(40_000.0, 900_000));
        new.sync = SyncRecord {
            total_ios: 10,
            lat_ns: lat(10, 1_000),
        };
        let mut cmp = compare(("a.json", &base), ("b.json", &new), &sweep_x, 5.0);
        cmp.gate(25.0);
        let named: Vec<String> = cmp.regressions.iter().map(ToString::to_string).collect();
        assert_eq!(
            named,
            [
                "read lat mean rose 50.0% (600.0 us -> 900.0 us; 95% interval bound nearest zero \
              +50.0%)"
            ]
        );
        cmp.gate(10.0);
        let named: Vec<String> = cmp
            .regressions
            .iter()
            .map(|r| r.metric.label().to_string())
            .collect();
        assert_eq!(named, ["IOPS", "bandwidth", "lat mean"]);
        assert!(text(&cmp).ends_with("\nmax regression 10%: 3 regression(s), see stderr\n"));
        // Sync calls only the new run made are listed, not compared, and never gate.
        assert_eq!(cmp.directions.len(), 1);
        assert_eq!(cmp.only_in_one[0].what, "sync calls");
        cmp.gate(50.0);
        assert!(cmp.regressions.is_empty());
        assert!(text(&cmp).ends_with("\nmax regression 50%: passed\n"));
    }

    #[test]
    fn the_json_object_keys() {
        let base = with_intervals(run(50_000.0, 600_000));
        let new = with_intervals(run(25_000.0, 600_000));
        let mut cmp = compare(("a.json", &base), ("b.json", &new), &sweep_x, 5.0);
        cmp.gate(5.0);
        let json = serde_json::to_value(&cmp).unwrap();
        assert_eq!(json["format"], "diskdash-compare");
        assert_eq!(json["base"]["status"], "completed");
        assert_eq!(json["same_job"], true);
        assert_eq!(json["job_differences"], serde_json::json!([]));
        let mut iops = json["directions"][0]["metrics"][0].clone();
        // Intervals' I/Os are rounded: 1,237.5 is 1,238.
        let interval = iops["interval"].take();
        for bound in ["low_pct", "high_pct"] {
            assert!(
                (interval[bound].as_f64().unwrap() + 50.0).abs() < 0.05,
                "{interval}"
            );
        }
        assert_eq!(interval["confidence"], 0.95);
        assert_eq!(
            iops,
            serde_json::json!({"metric": "iops", "base": 50_000.0, "new": 25_000.0,
                "change_pct": -50.0, "better": "higher", "interval": null,
                "samples": {"unit": "batch_means", "base": 4, "new": 4, "base_intervals": 40,
                    "new_intervals": 40},
                "verdict": "worse"})
        );
        assert_eq!(json["directions"][0]["metrics"][5]["metric"], "lat_p99_ns");
        assert_eq!(json["directions"][0]["metrics"][5]["verdict"], "not_judged");
        assert_eq!(
            json["directions"][0]["metrics"][5]["interval"],
            serde_json::Value::Null
        );
        assert_eq!(json["jobs"][0]["name"], "bench");
        assert_eq!(json["noise_floor_pct"], 5.0);
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
