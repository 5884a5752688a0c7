//! Several runs: their percentile curves and IOPS over time overlaid, and `compare`'s verdicts
//! of each against the first, each change with its 95% interval.

use std::fmt::Write as _;

use super::chart::{Axis, IntervalRow, Line, LineChart, Unit};
use super::run::{DIRECTIONS, direction, percentile_chart, percentile_line};
use super::{Figure, Section, escape};
use crate::analysis::change::Verdict;
use crate::analysis::compare::{Comparison, DirectionComparison, Row, compare};
use crate::record::RunRecord;

/// The section comparing `runs` (the first the base), each with its path and what it is in
/// one line.
#[must_use]
pub fn section(described: &[(&str, &RunRecord, String)], redact: bool) -> Section {
    let runs: Vec<(&str, &RunRecord)> = described.iter().map(|r| (r.0, r.1)).collect();
    let label = |i: usize| format!("#{}", i + 1);
    let mut section = Section {
        heading: format!("{} records compared (#1 the base)", runs.len()),
        ..Section::default()
    };
    for (i, (path, record)) in runs.iter().enumerate() {
        let facts = super::run_facts(path, record, redact);
        let machine = facts
            .iter()
            .find(|f| f.0 == "machine")
            .map(|f| f.1.clone())
            .unwrap_or_default();
        let shown = if redact {
            crate::record::machine::REDACTED.to_string()
        } else {
            (*path).to_string()
        };
        section.facts.push((
            format!("{} record", label(i)),
            format!("{shown}: {}", described[i].2),
        ));
        section
            .facts
            .push((format!("{} machine", label(i)), machine));
        if let Some(command) = facts.iter().find(|f| f.0 == "command") {
            section
                .facts
                .push((format!("{} command", label(i)), command.1.clone()));
        }
    }
    let mut curves = Vec::new();
    let mut iops = Vec::new();
    for (i, (_, record)) in runs.iter().enumerate() {
        for name in DIRECTIONS {
            let d = direction(&record.read, &record.write, &record.trim, name);
            if d.total_ios > 0 {
                curves.push(percentile_line(&format!("{} {name}", label(i)), &d.lat_ns));
            }
        }
        iops.push(Line {
            name: format!("{} IOPS", label(i)),
            // Steps (a sweep's points, a plan's steps) one after another, as a run's own
            // chart draws them.
            points: record
                .steps
                .iter()
                .zip(super::run::offsets(record))
                .flat_map(|(s, start)| {
                    s.series.iter().map(move |p| {
                        (
                            start + p.t_ns as f64 / 1e9,
                            Some(p.read.iops + p.write.iops + p.trim.iops),
                        )
                    })
                })
                .collect(),
        });
    }
    section.figures.push(super::lines(
        "compare-percentiles",
        "Latency percentiles, overlaid",
        &percentile_chart(curves),
        None,
    ));
    let end = iops
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .fold(1.0, f64::max);
    let most = iops
        .iter()
        .flat_map(|l| l.points.iter().filter_map(|p| p.1))
        .fold(0.0, f64::max);
    let chart = LineChart {
        x: Axis::linear("time (s)", Unit::Seconds, 0.0, end),
        y: Axis::from_zero("IOPS (I/Os per second)", Unit::Iops, most),
        lines: iops,
        spans: Vec::new(),
        marks: Vec::new(),
        dots: false,
    };
    section.figures.push(super::lines(
        "compare-iops",
        "IOPS over time, overlaid",
        &chart,
        None,
    ));
    let comparisons: Vec<(usize, Comparison)> = runs
        .iter()
        .enumerate()
        .skip(1)
        .map(|(i, new)| {
            (
                i,
                compare(
                    (runs[0].0, runs[0].1),
                    (new.0, new.1),
                    &crate::report::sweep::table::sweep_x,
                    crate::analysis::change::NOISE_FLOOR_PCT,
                ),
            )
        })
        .collect();
    let mut rows = Vec::new();
    let mut table = String::from(
        "<table class=\"verdicts\"><tr><th>record and metric</th><th>base</th><th>new</th><th>change</th><th>95% interval</th><th>verdict</th></tr>\n",
    );
    for (i, comparison) in &comparisons {
        for notice in &comparison.notices {
            section
                .notes
                .push(format!("{} against #1: {}", label(*i), notice.text));
        }
        for (scope, dir) in directions(comparison) {
            for row in dir.metrics.iter().filter(|r| r.change_pct.is_some()) {
                let name = format!(
                    "{} {scope}{} {}",
                    label(*i),
                    dir.direction,
                    row.metric.label()
                );
                push_row(&mut table, &name, row);
                if row.interval.is_some()
                    || matches!(row.verdict, Some(Verdict::Better | Verdict::Worse))
                {
                    rows.push(interval_row(name, row));
                }
            }
        }
    }
    table.push_str("</table>\n");
    section.html = table;
    let figure = if rows.is_empty() {
        Figure {
            name: "compare-verdicts".into(),
            title: "Changes with their 95% intervals".into(),
            svg: Err(format!(
                "no metric could be tested (a run needs {} intervals or {} loops)",
                crate::analysis::change::MIN_SAMPLES as u64
                    * crate::analysis::change::BATCH_INTERVALS,
                crate::analysis::change::MIN_LOOPS
            )),
            note: None,
        }
    } else {
        Figure {
            name: "compare-verdicts".into(),
            title: "Changes with their 95% intervals".into(),
            svg: super::chart::draw_intervals(&rows),
            note: Some("dot: the change; bar: its 95% interval (Welch's t); green better, vermilion triangle worse, grey no change within noise".into()),
        }
    };
    section.figures.push(figure);
    section
}

/// The directions a comparison judged: the totals, else each job's, else each point's.
fn directions(c: &Comparison) -> Vec<(String, &DirectionComparison)> {
    if !c.directions.is_empty() {
        return c.directions.iter().map(|d| (String::new(), d)).collect();
    }
    let jobs = c.jobs.iter().flat_map(|j| {
        j.directions
            .iter()
            .map(move |d| (format!("{} ", j.name), d))
    });
    let points = c.points.iter().flat_map(|p| {
        p.directions
            .iter()
            .map(move |d| (format!("{} ", p.point), d))
    });
    jobs.chain(points).collect()
}

fn interval_row(name: String, row: &Row) -> IntervalRow {
    IntervalRow {
        name,
        change_pct: row.change_pct.unwrap_or(0.0),
        interval: row.interval.map(|i| (i.low_pct, i.high_pct)),
        verdict: match row.verdict {
            Some(Verdict::Better) => 1,
            Some(Verdict::Worse) => -1,
            _ => 0,
        },
    }
}

fn push_row(table: &mut String, name: &str, row: &Row) {
    let interval = row.interval.map_or_else(
        || "-".to_string(),
        |i| format!("{:+.1}% .. {:+.1}%", i.low_pct, i.high_pct),
    );
    let _ = writeln!(
        table,
        "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:+.1}%</td><td class=\"n\">{}</td><td>{}</td></tr>",
        escape(name),
        escape(&row.metric.format(row.base)),
        escape(&row.metric.format(row.new)),
        row.change_pct.unwrap_or(0.0),
        interval,
        row.verdict.map_or("", Verdict::label)
    );
}
