//! A run's charts: IOPS and bandwidth over time per job and direction (stalls and the
//! steady-state window shaded), the percentile curve, the latency heatmap over time, and the
//! application against the device where the record has the device's side. A sweep's and a
//! mark's records go to [`super::sweep`].

use std::collections::BTreeMap;

use super::chart::{Axis, Cell, HeatChart, Line, LineChart, Span, Unit};
use super::{Figure, Section};
use crate::record::{DirectionRecord, IntervalCounts, LatencyRecord, RunRecord, StepRecord};

/// The directions a record's numbers come in.
pub const DIRECTIONS: [&str; 3] = ["read", "write", "trim"];

/// The section of one run record.
#[must_use]
pub fn section(path: &str, record: &RunRecord, redact: bool) -> Section {
    let mut section = Section {
        heading: super::title::describe(record, None),
        facts: super::run_facts(path, record, redact),
        ..Section::default()
    };
    if record.sweep.is_some() || record.mark.is_some() {
        super::sweep::add(&mut section, record);
        section.figures.push(super::sweep::percentiles(record));
        section.notes.extend(record.notes.iter().cloned());
        return section;
    }
    section.figures.extend(over_time(record));
    section.figures.push(percentiles(record));
    section.figures.push(heatmap(record));
    section.figures.push(app_and_device(record));
    for warning in &record.warnings {
        section.notes.push(format!("warning: {warning}"));
    }
    section.notes.extend(record.notes.iter().cloned());
    section
}

/// A direction of a record by name.
#[must_use]
pub fn direction<'r>(
    read: &'r DirectionRecord,
    write: &'r DirectionRecord,
    trim: &'r DirectionRecord,
    name: &str,
) -> &'r DirectionRecord {
    match name {
        "read" => read,
        "write" => write,
        _ => trim,
    }
}

fn counts(c: &crate::record::JobIntervalRecord, name: &str) -> IntervalCounts {
    match name {
        "read" => c.read,
        "write" => c.write,
        _ => c.trim,
    }
}

/// Where each step starts on the run's time axis (steps run one after another).
pub fn offsets(record: &RunRecord) -> Vec<f64> {
    let mut at = 0.0;
    record
        .steps
        .iter()
        .map(|s| {
            let start = at;
            at += s
                .series
                .last()
                .map_or(s.elapsed_ns, |p| p.t_ns.max(s.elapsed_ns)) as f64
                / 1e9;
            start
        })
        .collect()
}

/// The IOPS and bandwidth lines of a run over time, and what they lack.
struct RateLines {
    iops: Vec<Line>,
    bandwidth: Vec<Line>,
    /// What the record does not keep for them (jobs without series of their own).
    lacks: Vec<String>,
}

/// IOPS and bandwidth lines over time: per job and direction where jobs kept their series,
/// else the run's per direction (and the page says which jobs kept none).
fn rate_lines(record: &RunRecord) -> RateLines {
    let starts = offsets(record);
    let mut iops: BTreeMap<String, Line> = BTreeMap::new();
    let mut bw: BTreeMap<String, Line> = BTreeMap::new();
    let mut lacks = Vec::new();
    let several = record.steps.iter().map(|s| s.jobs.len()).max().unwrap_or(0) > 1;
    for (step, start) in record.steps.iter().zip(&starts) {
        let without: Vec<&str> = step
            .jobs
            .iter()
            .filter(|j| j.series.is_empty())
            .map(|j| j.name.as_str())
            .collect();
        if several && without.len() < step.jobs.len() {
            if !without.is_empty() {
                lacks.push(format!(
                    "{} kept no interval series of {} own: no line for {}",
                    without.join(", "),
                    if without.len() == 1 { "its" } else { "their" },
                    if without.len() == 1 { "it" } else { "them" }
                ));
            }
            for job in &step.jobs {
                for name in DIRECTIONS {
                    let key = format!("{} {name}", job.name);
                    // From the job's first I/O in this direction to its last: an interval
                    // without I/O between them is a stall, drawn at zero; before and after
                    // (a start delay, a job that ended first) the job was not running.
                    let busy = |p: &&crate::record::JobIntervalRecord| !counts(p, name).is_idle();
                    let Some(first) = job.series.iter().position(|p| busy(&p)) else {
                        continue;
                    };
                    let last = job.series.iter().rposition(|p| busy(&p)).unwrap_or(first);
                    for p in &job.series[first..=last] {
                        let c = counts(p, name);
                        if p.duration_ns == 0 {
                            continue;
                        }
                        let secs = p.duration_ns as f64 / 1e9;
                        let t = start + p.t_ns as f64 / 1e9;
                        push(&mut iops, &key, t, c.ios as f64 / secs);
                        push(&mut bw, &key, t, c.bytes as f64 / secs);
                    }
                }
            }
            continue;
        }
        if several && step.jobs.len() > 1 {
            lacks.push(format!(
                "{} kept no interval series of their own (the record predates them): the lines \
                 are the run's totals per direction, not per job",
                step.jobs
                    .iter()
                    .map(|j| j.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        for p in &step.series {
            let t = start + p.t_ns as f64 / 1e9;
            for name in DIRECTIONS {
                let d = direction(&p.read, &p.write, &p.trim, name);
                if d.total_ios == 0
                    && direction(&step.read, &step.write, &step.trim, name).total_ios == 0
                {
                    continue;
                }
                push(&mut iops, name, t, d.iops);
                push(&mut bw, name, t, d.bw_bytes as f64);
            }
        }
    }
    lacks.dedup();
    RateLines {
        iops: iops.into_values().collect(),
        bandwidth: bw.into_values().collect(),
        lacks,
    }
}

fn push(lines: &mut BTreeMap<String, Line>, key: &str, t: f64, v: f64) {
    lines
        .entry(key.to_string())
        .or_insert_with(|| Line {
            name: key.to_string(),
            points: Vec::new(),
        })
        .points
        .push((t, Some(v)));
}

/// Stalls (intervals the process did not run) and steady-state windows, on the time axis.
fn spans(record: &RunRecord) -> (Vec<Span>, Vec<String>) {
    let mut spans = Vec::new();
    let mut notes = Vec::new();
    for (step, start) in record.steps.iter().zip(offsets(record)) {
        for p in step.series.iter().filter(|p| p.stalled_ns > 0) {
            let end = start + p.t_ns as f64 / 1e9;
            spans.push(Span {
                from: end - p.duration_ns as f64 / 1e9,
                to: end,
                alarm: true,
            });
            notes.push(format!(
                "stall: {:.1} s not run in the interval ending at {end:.1} s",
                p.stalled_ns as f64 / 1e9
            ));
        }
        for job in &step.jobs {
            if let Some(ss) = &job.steadystate {
                if let Some(at) = ss.attained_at_ns {
                    let to = start + at as f64 / 1e9;
                    let from = (to - ss.duration as f64 / 1e9).max(start);
                    spans.push(Span {
                        from,
                        to,
                        alarm: false,
                    });
                    notes.push(format!(
                        "steady state ({}) of {} reached at {to:.1} s: the shaded window",
                        ss.criterion, job.name
                    ));
                } else {
                    notes.push(format!(
                        "steady state ({}) of {}: not reached",
                        ss.criterion, job.name
                    ));
                }
            }
            if let Some(cliff) = job.sustained_write.as_ref().and_then(|s| s.cliff.as_ref()) {
                notes.push(format!(
                    "write cliff of {} at {:.1} s ({:.2} GiB written): {:.0} MiB/s before, {:.0} after",
                    job.name,
                    start + cliff.t_ns as f64 / 1e9,
                    cliff.gib_written,
                    cliff.before_mib_s,
                    cliff.after_mib_s
                ));
            }
        }
    }
    if record.stalled_ns > 0 && spans.iter().all(|s| !s.alarm) {
        notes.push(format!(
            "the run stalled {:.1} s in all",
            record.stalled_ns as f64 / 1e9
        ));
    }
    (spans, notes)
}

fn over_time(record: &RunRecord) -> Vec<Figure> {
    let RateLines {
        iops,
        bandwidth: bw,
        lacks,
    } = rate_lines(record);
    let end = offsets(record).last().copied().unwrap_or(0.0)
        + record.steps.last().map_or(0.0, |s| {
            s.series.last().map_or(s.elapsed_ns, |p| p.t_ns) as f64 / 1e9
        });
    let (spans, mut notes) = spans(record);
    let cliffs: Vec<super::chart::Mark> = record
        .steps
        .iter()
        .zip(offsets(record))
        .flat_map(|(s, start)| {
            s.jobs.iter().filter_map(move |j| {
                let cliff = j.sustained_write.as_ref()?.cliff.as_ref()?;
                Some(super::chart::Mark {
                    x: start + cliff.t_ns as f64 / 1e9,
                    label: "write cliff".into(),
                })
            })
        })
        .collect();
    if iops.iter().all(|l| l.points.is_empty()) {
        notes.push("the record keeps no interval series".into());
    }
    notes.extend(lacks);
    let max = |lines: &[Line]| {
        lines
            .iter()
            .flat_map(|l| l.points.iter().filter_map(|p| p.1))
            .fold(0.0, f64::max)
    };
    let x = Axis::linear("time (s)", Unit::Seconds, 0.0, end.max(1.0));
    let note = (!notes.is_empty()).then(|| notes.join("; "));
    vec![
        super::lines(
            "iops",
            "IOPS over time",
            &LineChart {
                x: x.clone(),
                y: Axis::from_zero("IOPS (I/Os per second)", Unit::Iops, max(&iops)),
                lines: iops,
                spans: spans.clone(),
                marks: cliffs.clone(),
                dots: false,
            },
            note.clone(),
        ),
        super::lines(
            "bandwidth",
            "Bandwidth over time",
            &LineChart {
                x,
                y: Axis::from_zero("bandwidth (per second)", Unit::BytesPerS, max(&bw)),
                lines: bw,
                spans,
                marks: cliffs,
                dots: false,
            },
            note,
        ),
    ]
}

/// Where percentile `p` lies on a percentile axis: its nines (p90: 1, p99: 2, p99.9: 3).
#[must_use]
pub fn nines(p: f64) -> f64 {
    -(1.0 - p / 100.0).max(1e-9).log10()
}

/// A percentile curve of one latency record, p50 .. p99.99 (and max), on the nines axis.
#[must_use]
pub fn percentile_line(name: &str, lat: &LatencyRecord) -> Line {
    Line {
        name: name.to_string(),
        points: lat
            .percentile
            .0
            .iter()
            .filter(|(p, _)| *p >= 50.0)
            .map(|&(p, ns)| (nines(p), Some(ns as f64)))
            .collect(),
    }
}

/// The chart of percentile curves.
#[must_use]
pub fn percentile_chart(lines: Vec<Line>) -> LineChart {
    let values = || {
        lines
            .iter()
            .flat_map(|l| l.points.iter().filter_map(|p| p.1))
            .filter(|v| *v > 0.0)
    };
    let lo = values().fold(f64::INFINITY, f64::min);
    let hi = values().fold(0.0, f64::max);
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (1e3, 1e6) };
    let mut x = Axis::linear(
        "percentile (p50 .. p99.99, log scale of 1 - p)",
        Unit::Nines,
        nines(50.0),
        4.0,
    );
    x.ticks = [50.0, 90.0, 99.0, 99.9, 99.99].map(nines).to_vec();
    LineChart {
        x,
        y: Axis::log("latency", Unit::Ns, lo, hi),
        lines,
        spans: Vec::new(),
        marks: Vec::new(),
        dots: true,
    }
}

/// Percentile curves drawn one by one (per job, per sweep point, per mark test) where they
/// fit one chart; past this many, the whole record's curve per direction.
pub const MOST_CURVES: usize = 12;

/// `parts` as one latency record: the one itself, else their histograms merged.
#[must_use]
pub fn merged(parts: &[&LatencyRecord]) -> LatencyRecord {
    match parts {
        [one] => (*one).clone(),
        _ => crate::fleet::merge::merge_latency(parts),
    }
}

/// The whole record's percentile curve per direction.
#[must_use]
pub fn whole_percentiles(record: &RunRecord) -> Vec<Line> {
    DIRECTIONS
        .iter()
        .map(|&d| (d, direction(&record.read, &record.write, &record.trim, d)))
        .filter(|(_, d)| d.total_ios > 0)
        .map(|(name, d)| percentile_line(name, &d.lat_ns))
        .collect()
}

/// Per job and direction (each job's steps merged) in a run of several jobs where the
/// curves fit, else the whole run's per direction, saying that its jobs are together.
fn percentiles(record: &RunRecord) -> Figure {
    let mut names: Vec<&str> = Vec::new();
    for job in record.steps.iter().flat_map(|s| &s.jobs) {
        if !names.contains(&job.name.as_str()) {
            names.push(&job.name);
        }
    }
    if names.len() > 1 {
        let mut curves = Vec::new();
        for name in &names {
            for d in DIRECTIONS {
                let parts: Vec<&LatencyRecord> = record
                    .steps
                    .iter()
                    .flat_map(|s| &s.jobs)
                    .filter(|j| j.name == *name)
                    .map(|j| &direction(&j.read, &j.write, &j.trim, d).lat_ns)
                    .filter(|l| l.n > 0)
                    .collect();
                if !parts.is_empty() {
                    curves.push(percentile_line(&format!("{name} {d}"), &merged(&parts)));
                }
            }
        }
        if !curves.is_empty() && curves.len() <= MOST_CURVES {
            return super::lines(
                "percentiles",
                "Latency percentiles per job (whole run)",
                &percentile_chart(curves),
                None,
            );
        }
    }
    let together = names.len() > 1;
    super::lines(
        "percentiles",
        if together {
            "Latency percentiles (whole run, its jobs together)"
        } else {
            "Latency percentiles (whole run)"
        },
        &percentile_chart(whole_percentiles(record)),
        together.then(|| format!("the {} jobs' latencies together", names.len())),
    )
}

/// Latency buckets per quarter decade, per interval, of a step's series.
fn heat_cells(record: &RunRecord) -> (Vec<(f64, f64, i32, u64)>, u64) {
    let mut cells = Vec::new();
    let mut most = 0;
    for (step, start) in record.steps.iter().zip(offsets(record)) {
        for p in &step.series {
            let end = start + p.t_ns as f64 / 1e9;
            let from = end - p.duration_ns as f64 / 1e9;
            let mut bins: BTreeMap<i32, u64> = BTreeMap::new();
            for d in [&p.read, &p.write, &p.trim] {
                let Some(h) = &d.lat_ns.histogram else {
                    continue;
                };
                for (&le, &count) in h.le_ns.iter().zip(&h.count) {
                    *bins
                        .entry(((le.max(1) as f64).log10() * 4.0).ceil() as i32)
                        .or_default() += count;
                }
            }
            for (bin, count) in bins {
                most = most.max(count);
                cells.push((from, end, bin, count));
            }
        }
    }
    (cells, most)
}

fn heatmap(record: &RunRecord) -> Figure {
    let title = "Latency heatmap over time (I/Os per latency band and interval)";
    let (cells, most) = heat_cells(record);
    if cells.is_empty() {
        return Figure {
            name: "heatmap".into(),
            title: title.into(),
            svg: Err(
                "the record keeps no latency histogram per interval (format 2, or no series)"
                    .into(),
            ),
            note: None,
        };
    }
    let lo = cells.iter().map(|c| c.2).min().unwrap_or(0);
    let hi = cells.iter().map(|c| c.2).max().unwrap_or(1);
    let end = cells.iter().map(|c| c.1).fold(0.0, f64::max);
    let y = Axis::log(
        "latency",
        Unit::Ns,
        10f64.powf(f64::from(lo - 1) / 4.0),
        10f64.powf(f64::from(hi) / 4.0),
    );
    let scale = (most as f64 + 1.0).ln();
    let chart = HeatChart {
        x: Axis::linear("time (s)", Unit::Seconds, 0.0, end.max(1.0)),
        y,
        cells: cells
            .iter()
            .map(|&(a, b, bin, count)| Cell {
                x: (a, b),
                y: (f64::from(bin - 1) / 4.0, f64::from(bin) / 4.0),
                value: 0.08 + 0.92 * (count as f64 + 1.0).ln() / scale,
                text: None,
            })
            .collect(),
        height: super::chart::HEIGHT,
    };
    Figure {
        name: "heatmap".into(),
        title: title.into(),
        svg: super::chart::draw_heat(&chart),
        note: Some(format!(
            "colour: I/Os in the band on a log scale, pale 1 to dark {most}; reads, writes and \
             trims together{}",
            if record.steps.iter().any(|s| s.jobs.len() > 1) {
                ", and the jobs of a step"
            } else {
                ""
            }
        )),
    }
}

fn step_device(step: &StepRecord) -> Option<&crate::record::DeviceRecord> {
    step.device.as_ref().or(step.devices.first())
}

/// The application's latency curve beside the block layer's parts (`--trace`), or the
/// device's mean from iostat where there is no trace.
fn app_and_device(record: &RunRecord) -> Figure {
    let title = "Application against device latency";
    let device = record
        .device
        .as_ref()
        .or_else(|| record.steps.iter().find_map(step_device));
    let Some(device) = device else {
        return Figure {
            name: "device".into(),
            title: title.into(),
            svg: Err("the record has no device side (the target's disk was not known)".into()),
            note: None,
        };
    };
    let mut names: Vec<&str> = Vec::new();
    for d in record.device.iter().chain(
        record
            .steps
            .iter()
            .flat_map(|s| s.device.iter().chain(&s.devices)),
    ) {
        if !names.contains(&d.name.as_str()) {
            names.push(&d.name);
        }
    }
    let others = (names.len() > 1).then(|| {
        format!(
            "; the record has {} devices ({}): drawn is {} only",
            names.len(),
            names.join(", "),
            device.name
        )
    });
    let mut lines = Vec::new();
    let note = match &device.block_trace {
        Some(trace) => {
            for (name, app, part) in [
                ("read", &record.read, &trace.read),
                ("write", &record.write, &trace.write),
            ] {
                let Some(part) = part else { continue };
                if app.total_ios > 0 {
                    lines.push(percentile_line(
                        &format!("{name}: application"),
                        &app.lat_ns,
                    ));
                }
                lines.push(percentile_line(
                    &format!("{name}: block layer, whole"),
                    &part.whole,
                ));
                lines.push(percentile_line(&format!("{name}: device"), &part.device));
                lines.push(percentile_line(
                    &format!("{name}: scheduler"),
                    &part.scheduler,
                ));
            }
            Some(format!(
                "block layer traced on {} ({} requests, {} events lost)",
                trace.disk, trace.requests, trace.lost_events
            ))
        }
        None => {
            for (name, app, dev_ms) in [
                ("read", &record.read, device.iostat.read_await_ms),
                ("write", &record.write, device.iostat.write_await_ms),
            ] {
                if app.total_ios == 0 {
                    continue;
                }
                lines.push(percentile_line(
                    &format!("{name}: application"),
                    &app.lat_ns,
                ));
                lines.push(Line {
                    name: format!("{name}: device mean (iostat {}_await)", &name[..1]),
                    points: vec![(nines(50.0), Some(dev_ms * 1e6)), (4.0, Some(dev_ms * 1e6))],
                });
            }
            Some(format!(
                "{}: no block trace in the record (run with --trace for the device's percentiles); the device's side is iostat's mean; {}",
                device.name, device.reconciliation.verdict
            ))
        }
    };
    let note = note.map(|n| n + others.as_deref().unwrap_or_default());
    super::lines("device", title, &percentile_chart(lines), note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::JobIntervalRecord;

    fn point(t_s: u64, read_ios: u64) -> JobIntervalRecord {
        JobIntervalRecord {
            t_ns: t_s * 1_000_000_000,
            duration_ns: 1_000_000_000,
            intervals: 1,
            read: IntervalCounts {
                ios: read_ios,
                bytes: read_ios * 4096,
                lat_sum_ns: read_ios * 100_000,
            },
            write: IntervalCounts::default(),
            trim: IntervalCounts::default(),
        }
    }

    /// A job's interval without I/O between its first and its last is a stall, drawn at zero;
    /// idle intervals before its first I/O and after its last are not drawn, nor a direction
    /// it never went.
    #[test]
    fn a_jobs_stall_is_drawn_at_zero_and_its_idle_ends_are_not() {
        let mut record = crate::stats::fixture::record();
        record.steps[0].jobs[0].series = vec![
            point(1, 0),
            point(2, 100),
            point(3, 0),
            point(4, 200),
            point(5, 0),
        ];
        record.steps[0].jobs[1].series = vec![point(1, 50), point(2, 50)];
        let lines = rate_lines(&record);
        let names: Vec<&str> = lines.iops.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["r read", "w read"]);
        assert_eq!(
            lines.iops[0].points,
            [(2.0, Some(100.0)), (3.0, Some(0.0)), (4.0, Some(200.0))]
        );
        assert!(lines.lacks.is_empty(), "{:?}", lines.lacks);
    }
}
