//! A sweep's charts (bandwidth, IOPS and p99 against the swept value, the knee and the advice
//! marked; two swept options as a heat grid) with every point's trust marks in a table, and a
//! mark's CrystalDiskMark table as a picture.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::chart::{Axis, Cell, HeatChart, Line, LineChart, Mark, Unit};
use super::{Figure, Section, escape};
use crate::record::{PointValue, RunRecord, StepRecord, SweepFinding};

/// Adds the sweep's or the mark's charts and tables to `section`.
pub fn add(section: &mut Section, record: &RunRecord) {
    if record.mark.is_some() {
        add_mark(section, record);
        return;
    }
    let Some(sweep) = &record.sweep else { return };
    let points = points(record);
    match sweep.dimensions.len() {
        1 => section.figures.extend(one_axis(record, &sweep.dimensions[0], &points)),
        2 => section.figures.extend(grid(&sweep.dimensions, &points)),
        n => section.notes.push(format!("a sweep of {n} options: the table below has every point; charts are drawn for one or two")),
    }
    section.html.push_str(&points_table(&points));
    for finding in &sweep.analysis {
        if let Some(sentence) = crate::report::sweep::sentence(finding) {
            section.notes.push(sentence);
        }
    }
}

/// A sweep point: its values and its runs' numbers (the mean of its loops).
#[derive(Debug, Clone, Default)]
struct Point {
    values: Vec<PointValue>,
    read_bw: f64,
    write_bw: f64,
    read_iops: f64,
    write_iops: f64,
    p99_ns: f64,
    marks: Vec<String>,
    runs: usize,
}

fn key(values: &[PointValue]) -> String {
    values
        .iter()
        .map(|v| format!("{}={}", v.option, v.value))
        .collect::<Vec<_>>()
        .join(" ")
}

fn points(record: &RunRecord) -> Vec<Point> {
    let mut order: Vec<String> = Vec::new();
    let mut by: BTreeMap<String, Point> = BTreeMap::new();
    for step in &record.steps {
        let k = key(&step.point);
        let point = by.entry(k.clone()).or_insert_with(|| {
            order.push(k);
            Point {
                values: step.point.clone(),
                ..Point::default()
            }
        });
        add_step(point, step);
    }
    order
        .into_iter()
        .filter_map(|k| by.remove(&k))
        .map(|mut p| {
            let n = p.runs.max(1) as f64;
            for v in [
                &mut p.read_bw,
                &mut p.write_bw,
                &mut p.read_iops,
                &mut p.write_iops,
                &mut p.p99_ns,
            ] {
                *v /= n;
            }
            p
        })
        .collect()
}

fn add_step(point: &mut Point, step: &StepRecord) {
    point.runs += 1;
    point.read_bw += step.read.bw_bytes as f64;
    point.write_bw += step.write.bw_bytes as f64;
    point.read_iops += step.read.iops;
    point.write_iops += step.write.iops;
    let p99 = [&step.read, &step.write]
        .iter()
        .filter(|d| d.total_ios > 0)
        .filter_map(|d| d.lat_ns.percentile_ns(99.0))
        .max()
        .unwrap_or(0);
    point.p99_ns += p99 as f64;
    for mark in step.trust.iter().flat_map(|t| t.marks.iter()) {
        if !point.marks.contains(&mark.to_string()) {
            point.marks.push(mark.to_string());
        }
    }
}

/// The x of each point along `dimension`: its number where every value is one, else its rank.
fn xs(dimension: &str, points: &[Point]) -> (Vec<f64>, Option<Vec<String>>) {
    let value = |p: &Point| {
        p.values
            .iter()
            .find(|v| v.option == dimension)
            .map(|v| v.value.clone())
            .unwrap_or_default()
    };
    let numbers: Option<Vec<f64>> = points
        .iter()
        .map(|p| crate::report::sweep::table::sweep_x(dimension, &value(p)))
        .collect();
    match numbers {
        Some(n) if n.iter().all(|x| *x > 0.0) => (n, None),
        _ => (
            (0..points.len()).map(|i| i as f64 + 0.5).collect(),
            Some(points.iter().map(value).collect()),
        ),
    }
}

/// The axis of the swept values: log scale where they span 8x or more; either way ticked at
/// the swept values themselves (4 KiB, 64 KiB, 1 MiB; iodepth 1, 2, 3), not at round numbers
/// between them (1000 B, 9.77 KiB; an iodepth of 1.25), bytes for `bs`.
fn x_axis(dimension: &str, xs: &[f64], names: Option<Vec<String>>) -> Axis {
    if let Some(names) = names {
        return Axis::names(dimension, names);
    }
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(0.0, f64::max);
    let unit = if dimension == "bs" {
        Unit::BytesPerS
    } else {
        Unit::Whole
    };
    let log = hi / lo >= 8.0;
    let mut axis = if log {
        let mut axis = Axis::log(&format!("{dimension} (log scale)"), unit, lo, hi);
        let margin = 0.06 * (hi / lo).log10();
        axis.lo = lo.log10() - margin;
        axis.hi = hi.log10() + margin;
        axis
    } else {
        let margin = 0.06 * (hi - lo).max(hi * 0.1);
        Axis::linear(dimension, unit, lo - margin, hi + margin)
    };
    let mut ticks: Vec<f64> = xs
        .iter()
        .map(|&x| if log { x.log10() } else { x })
        .collect();
    ticks.sort_by(f64::total_cmp);
    ticks.dedup();
    let every = ticks.len().div_ceil(12);
    axis.ticks = ticks.into_iter().step_by(every).collect();
    axis
}

/// The knee, the peaks and the advice along the chart's dimension, as marks.
fn marks(record: &RunRecord, dimension: &str, points: &[Point], xs: &[f64]) -> Vec<Mark> {
    let at = |value: &str| {
        points
            .iter()
            .position(|p| {
                p.values
                    .iter()
                    .any(|v| v.option == dimension && v.value == value)
            })
            .map(|i| xs[i])
    };
    let mut out = Vec::new();
    for finding in record.sweep.iter().flat_map(|s| s.analysis.iter()) {
        let (value, label) = match finding {
            SweepFinding::Knee {
                dimension: d,
                value,
                direction,
                ..
            } if d == dimension => (value.to_string(), format!("knee ({direction})")),
            SweepFinding::Advice {
                write_peak,
                read_peak,
                ..
            } => {
                if let Some(x) = at(&read_peak.to_string()) {
                    out.push(Mark {
                        x,
                        label: "advice: read peak".into(),
                    });
                }
                (write_peak.to_string(), "advice: write peak".into())
            }
            _ => continue,
        };
        if let Some(x) = at(&value) {
            out.push(Mark { x, label });
        }
    }
    out
}

fn one_axis(record: &RunRecord, dimension: &str, points: &[Point]) -> Vec<Figure> {
    let (xs, names) = xs(dimension, points);
    let x = x_axis(dimension, &xs, names);
    let marks = marks(record, dimension, points, &xs);
    let line = |name: &str, f: &dyn Fn(&Point) -> f64| Line {
        name: name.into(),
        points: points
            .iter()
            .zip(&xs)
            .map(|(p, &x)| (x, Some(f(p))))
            .collect(),
    };
    let keep = |lines: Vec<Line>| -> Vec<Line> {
        lines
            .into_iter()
            .filter(|l| l.points.iter().any(|p| p.1.unwrap_or(0.0) > 0.0))
            .collect()
    };
    let max = |lines: &[Line]| {
        lines
            .iter()
            .flat_map(|l| l.points.iter().filter_map(|p| p.1))
            .fold(0.0, f64::max)
    };
    let bw = keep(vec![
        line("read", &|p| p.read_bw),
        line("write", &|p| p.write_bw),
    ]);
    let iops = keep(vec![
        line("read", &|p| p.read_iops),
        line("write", &|p| p.write_iops),
    ]);
    // A point's p99 is its slower direction's where it both read and wrote.
    let both = points
        .iter()
        .any(|p| p.read_iops > 0.0 && p.write_iops > 0.0);
    let p99 = keep(vec![line("p99 latency", &|p| p.p99_ns)]);
    let marked: Vec<String> = points
        .iter()
        .filter(|p| !p.marks.is_empty())
        .map(|p| format!("{} ({})", key(&p.values), p.marks.join(", ")))
        .collect();
    let note = (!marked.is_empty()).then(|| format!("trust marks: {}", marked.join("; ")));
    let chart = |y: Axis, lines: Vec<Line>| LineChart {
        x: x.clone(),
        y,
        lines,
        spans: Vec::new(),
        marks: marks.clone(),
        dots: true,
    };
    vec![
        super::lines(
            "sweep-bandwidth",
            &format!("Bandwidth against {dimension}"),
            &chart(
                Axis::from_zero("bandwidth (per second)", Unit::BytesPerS, max(&bw)),
                bw,
            ),
            note.clone(),
        ),
        super::lines(
            "sweep-iops",
            &format!("IOPS against {dimension}"),
            &chart(
                Axis::from_zero("IOPS (I/Os per second)", Unit::Iops, max(&iops)),
                iops,
            ),
            note,
        ),
        super::lines(
            "sweep-p99",
            &format!(
                "p99 latency against {dimension}{}",
                if both {
                    " (of the slower direction)"
                } else {
                    ""
                }
            ),
            &chart(Axis::from_zero("p99 latency", Unit::Ns, max(&p99)), p99),
            None,
        ),
    ]
}

/// Two swept options as a grid: rows the first option, columns the second, each cell the
/// point's bandwidth (read and write added), its trust marks after a `!`.
fn grid(dimensions: &[String], points: &[Point]) -> Vec<Figure> {
    let value = |p: &Point, d: &str| {
        p.values
            .iter()
            .find(|v| v.option == d)
            .map(|v| v.value.clone())
            .unwrap_or_default()
    };
    let mut rows: Vec<String> = Vec::new();
    let mut cols: Vec<String> = Vec::new();
    for p in points {
        let (r, c) = (value(p, &dimensions[0]), value(p, &dimensions[1]));
        if !rows.contains(&r) {
            rows.push(r);
        }
        if !cols.contains(&c) {
            cols.push(c);
        }
    }
    let total = |p: &Point| p.read_bw + p.write_bw;
    let most = points.iter().map(total).fold(0.0, f64::max).max(1.0);
    let cells = points
        .iter()
        .map(|p| {
            let r = rows
                .iter()
                .position(|r| *r == value(p, &dimensions[0]))
                .unwrap_or(0) as f64;
            let c = cols
                .iter()
                .position(|c| *c == value(p, &dimensions[1]))
                .unwrap_or(0) as f64;
            let mark = if p.marks.is_empty() {
                String::new()
            } else {
                format!(" !{}", p.marks.join(","))
            };
            Cell {
                x: (c, c + 1.0),
                y: (r, r + 1.0),
                value: total(p) / most,
                text: Some(format!(
                    "{}{mark}",
                    super::chart::format(Unit::BytesPerS, total(p))
                )),
            }
        })
        .collect();
    let height = (80 + 34 * rows.len() as u32).clamp(200, 700);
    let chart = HeatChart {
        x: Axis::names(&dimensions[1], cols),
        y: Axis::names(&dimensions[0], rows),
        cells,
        height,
    };
    vec![Figure {
        name: "sweep-grid".into(),
        title: format!("Bandwidth (per second) over {} and {}", dimensions[0], dimensions[1]),
        svg: super::chart::draw_heat(&chart),
        note: Some("each cell: read and write bandwidth added, darker is more; `!` and a trust mark where the point is not to be trusted".into()),
    }]
}

/// Every point's numbers and trust marks; a direction no point went in has no column.
fn points_table(points: &[Point]) -> String {
    let reads = points.iter().any(|p| p.read_iops > 0.0);
    let writes = points.iter().any(|p| p.write_iops > 0.0);
    let both = points
        .iter()
        .any(|p| p.read_iops > 0.0 && p.write_iops > 0.0);
    let mut html = String::from("<table class=\"points\"><tr><th>point</th>");
    for (shown, name) in [(reads || !writes, "read"), (writes, "write")] {
        if shown {
            let _ = write!(html, "<th>{name}</th>");
        }
    }
    let _ = writeln!(
        html,
        "<th>p99{}</th><th>trust marks</th></tr>",
        if both { " (the slower direction)" } else { "" }
    );
    let f = |unit, v| super::chart::format(unit, v);
    for p in points {
        let _ = write!(html, "<tr><td>{}</td>", escape(&key(&p.values)));
        for (shown, bw, iops) in [
            (reads || !writes, p.read_bw, p.read_iops),
            (writes, p.write_bw, p.write_iops),
        ] {
            if shown {
                let _ = write!(
                    html,
                    "<td class=\"n\">{}/s, {} IOPS</td>",
                    f(Unit::BytesPerS, bw),
                    f(Unit::Iops, iops)
                );
            }
        }
        let _ = writeln!(
            html,
            "<td class=\"n\">{}</td><td class=\"mark\">{}</td></tr>",
            f(Unit::Ns, p.p99_ns),
            escape(&p.marks.join(", "))
        );
    }
    html.push_str("</table>\n");
    html
}

/// CrystalDiskMark's window as a picture: a row per test, a column per direction, each cell
/// its MB/s (and IOPS), shaded by its share of the column's best.
fn add_mark(section: &mut Section, record: &RunRecord) {
    let Some(flags) = &record.mark else { return };
    let settings = match crate::report::mark::MarkSettings::from_flags(flags) {
        Ok(s) => s,
        Err(err) => {
            section
                .notes
                .push(format!("the mark's flags no longer validate: {err}"));
            return;
        }
    };
    let summary = crate::report::mark::summarize(record, &settings);
    let mut columns: Vec<&str> = Vec::new();
    for row in &summary.rows {
        for (name, cell) in [
            ("Read", &row.read),
            ("Write", &row.write),
            ("Mix", &row.mix),
        ] {
            if cell.is_some() && !columns.contains(&name) {
                columns.push(name);
            }
        }
    }
    let best: Vec<f64> = columns
        .iter()
        .map(|c| {
            summary
                .rows
                .iter()
                .filter_map(|r| cell(r, c))
                .map(|c| c.mb_s)
                .fold(0.0, f64::max)
                .max(1e-9)
        })
        .collect();
    let mut cells = Vec::new();
    let n = summary.rows.len();
    for (i, row) in summary.rows.iter().enumerate() {
        let y = (n - 1 - i) as f64;
        for (j, column) in columns.iter().enumerate() {
            let Some(c) = cell(row, column) else { continue };
            cells.push(Cell {
                x: (j as f64, j as f64 + 1.0),
                y: (y, y + 1.0),
                value: 0.15 + 0.7 * c.mb_s / best[j],
                text: Some(format!(
                    "{:.2} MB/s  {} IOPS",
                    c.mb_s,
                    super::chart::si(c.iops.round())
                )),
            });
        }
    }
    let names = summary.rows.iter().rev().map(|r| r.test.clone()).collect();
    let chart = HeatChart {
        x: Axis::names(
            &format!(
                "MB/s (1 MB = {} bytes), {} of {} loop{}",
                summary.mb_bytes,
                summary.pick,
                summary.loops,
                if summary.loops == 1 { "" } else { "s" }
            ),
            columns.iter().map(|c| (*c).to_string()).collect(),
        ),
        y: Axis::names("test", names),
        cells,
        height: (90 + 48 * n as u32).clamp(200, 600),
    };
    section.figures.push(Figure {
        name: "mark".into(),
        title: format!(
            "{} ({} profile, {} rules)",
            "CrystalDiskMark's table", summary.profile, summary.like
        ),
        svg: super::chart::draw_heat(&chart),
        note: Some(summary.rules.clone()),
    });
}

/// The latency percentile curves of each point (its loops merged) and direction: a sweep's
/// points by their values, a mark's by their test. Where there are more than
/// [`super::run::MOST_CURVES`]
/// the whole record's curve per direction, titled and noted as every point merged.
#[must_use]
pub fn percentiles(record: &RunRecord) -> Figure {
    let mut order: Vec<String> = Vec::new();
    let mut by: BTreeMap<String, Vec<&StepRecord>> = BTreeMap::new();
    for step in &record.steps {
        let name = if record.mark.is_some() {
            crate::report::mark::test_of(step).unwrap_or_else(|| key(&step.point))
        } else {
            key(&step.point)
        };
        if !by.contains_key(&name) {
            order.push(name.clone());
        }
        by.entry(name).or_default().push(step);
    }
    let mut curves = Vec::new();
    let mut loops_merged = false;
    for name in &order {
        for direction in super::run::DIRECTIONS {
            let parts: Vec<&crate::record::LatencyRecord> = by[name]
                .iter()
                .map(|s| &super::run::direction(&s.read, &s.write, &s.trim, direction).lat_ns)
                .filter(|l| l.n > 0)
                .collect();
            if parts.is_empty() {
                continue;
            }
            loops_merged |= parts.len() > 1;
            curves.push(super::run::percentile_line(
                &format!("{name} {direction}"),
                &super::run::merged(&parts),
            ));
        }
    }
    let what = if record.mark.is_some() {
        "test"
    } else {
        "point"
    };
    if curves.len() <= super::run::MOST_CURVES && !curves.is_empty() {
        return super::lines(
            "percentiles",
            &format!("Latency percentiles per {what}"),
            &super::run::percentile_chart(curves),
            loops_merged.then(|| format!("each {what}'s loops merged")),
        );
    }
    super::lines(
        "percentiles",
        &format!("Latency percentiles, every {what} merged"),
        &super::run::percentile_chart(super::run::whole_percentiles(record)),
        Some(format!(
            "the {} {what}s' latencies together: one by one they would be {} curves, more than \
             a chart keeps apart",
            order.len(),
            curves.len()
        )),
    )
}

fn cell<'r>(
    row: &'r crate::report::mark::MarkRow,
    column: &str,
) -> Option<&'r crate::report::mark::MarkCell> {
    match column {
        "Read" => row.read.as_ref(),
        "Write" => row.write.as_ref(),
        _ => row.mix.as_ref(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sweep of reads has no write column; one that read and wrote has both, and its p99
    /// says it is the slower direction's.
    #[test]
    fn the_points_table_has_a_column_per_direction_gone_in() {
        let point = |read_iops: f64, write_iops: f64| Point {
            values: vec![PointValue::new("bs", "4k")],
            read_iops,
            write_iops,
            read_bw: read_iops * 4096.0,
            write_bw: write_iops * 4096.0,
            p99_ns: 1e6,
            marks: vec!["short".into()],
            runs: 1,
        };
        let reads = points_table(&[point(1000.0, 0.0)]);
        assert!(reads.contains("<th>read</th><th>p99</th>"), "{reads}");
        assert!(
            !reads.contains("write") && !reads.contains("0 IOPS"),
            "{reads}"
        );
        assert!(
            reads.contains("<td class=\"n\">3.91 MiB/s, 1k IOPS</td>"),
            "{reads}"
        );
        let mixed = points_table(&[point(1000.0, 500.0)]);
        assert!(
            mixed.contains("<th>read</th><th>write</th><th>p99 (the slower direction)</th>"),
            "{mixed}"
        );
        let writes = points_table(&[point(0.0, 500.0)]);
        assert!(
            writes.contains("<th>point</th><th>write</th><th>p99</th>"),
            "{writes}"
        );
    }

    #[test]
    fn a_log_sweep_axis_ticks_at_the_swept_values() {
        let xs = [4096.0, 65536.0, 262_144.0, 1_048_576.0];
        let axis = x_axis("bs", &xs, None);
        let shown: Vec<String> = axis.ticks.iter().map(|&t| axis.tick_text(t)).collect();
        assert_eq!(shown, ["4 KiB", "64 KiB", "256 KiB", "1 MiB"]);
        assert!(axis.lo < 4096f64.log10() && axis.hi > 1_048_576f64.log10());
        // A linear axis too: iodepth 1, 2, 3 (no 1.25), 4 KiB and 8 KiB (no 5k).
        let axis = x_axis("iodepth", &[1.0, 2.0, 3.0], None);
        assert!(!axis.log);
        let shown: Vec<String> = axis.ticks.iter().map(|&t| axis.tick_text(t)).collect();
        assert_eq!(shown, ["1", "2", "3"]);
        assert!(axis.lo < 1.0 && axis.hi > 3.0);
        let axis = x_axis("bs", &[4096.0, 8192.0], None);
        let shown: Vec<String> = axis.ticks.iter().map(|&t| axis.tick_text(t)).collect();
        assert_eq!(shown, ["4 KiB", "8 KiB"]);
        let depths: Vec<f64> = (0..16).map(|i| f64::from(1u32 << i)).collect();
        let axis = x_axis("iodepth", &depths, None);
        let shown: Vec<String> = axis.ticks.iter().map(|&t| axis.tick_text(t)).collect();
        assert_eq!(
            shown,
            ["1", "4", "16", "64", "256", "1024", "4096", "16384"]
        );
    }
}
