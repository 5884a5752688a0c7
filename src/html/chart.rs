//! Charts drawn with plotters' SVG backend: axes whose ticks we choose (1k, 10k, 100k, 1M;
//! a unit on every axis), lines decimated by min/max per pixel column, shaded spans (a
//! steady-state window, a stall), vertical marks (a knee), heat cells. Colours are Okabe-Ito's,
//! which stay apart under colour-blindness; every line after the first is dashed, so they stay
//! apart in greyscale too (but for lines too dense for a dash to show: [`DENSE_POINTS`]).

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::prelude::*;

/// Okabe-Ito's palette (black last: it is the axes' colour).
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x00, 0x00),
];

/// The SVG dash pattern of the `i`-th line: solid first, then dashes, dots, long dashes.
const DASHES: [&str; 4] = ["", "8 4", "2 3", "12 3 3 3"];

/// The colour, width and dash pattern of the `i`-th line: no two lines of a chart share the
/// colour and width (the dash pattern is set on the SVG by them, see [`dash_lines`]).
fn line_style(i: usize) -> (RGBColor, u32, &'static str) {
    (
        PALETTE[i % PALETTE.len()],
        2 + (i / PALETTE.len()) as u32,
        DASHES[i % DASHES.len()],
    )
}

/// Sets each dashed line's dash pattern on the polylines of its colour and width (its runs
/// and its legend's sample): one SVG attribute, where plotters' dashed series would write a
/// polyline per dash. `dashed[i]`: whether line `i` gets its pattern (see [`DENSE_POINTS`]).
fn dash_lines(svg: &str, dashed: &[bool]) -> String {
    let mut out = svg.to_string();
    for (i, _) in dashed.iter().enumerate().filter(|(_, d)| **d) {
        let (c, width, dash) = line_style(i);
        if dash.is_empty() {
            continue;
        }
        let drawn = format!(
            "stroke=\"#{:02X}{:02X}{:02X}\" stroke-width=\"{width}\" ",
            c.0, c.1, c.2
        );
        out = out.replace(&drawn, &format!("{drawn}stroke-dasharray=\"{dash}\" "));
    }
    out
}

/// A line drawn with more points than this is drawn solid: its min/max per pixel column runs
/// up and down each column, and a browser cuts a dash pattern along all of that length (on a
/// monitor page of 3,600 intervals x 10 disks, seconds of Chromium's time for dashes no one
/// can see on a line that dense). Its colour tells it apart.
pub const DENSE_POINTS: usize = COLUMNS / 2;

/// The drawing's size in pixels.
pub const WIDTH: u32 = 860;
pub const HEIGHT: u32 = 300;
/// Pixel columns of the plotting area (what a line is decimated to).
pub const COLUMNS: usize = 760;

/// What an axis's numbers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Operations per second.
    Iops,
    BytesPerS,
    /// A latency, kept in nanoseconds.
    Ns,
    Seconds,
    Percent,
    Ms,
    /// A count or plain number, with its unit in the label.
    Plain,
    /// A percentile placed by its nines (p90 at 1, p99 at 2), shown as `p99.9`.
    Nines,
    /// A whole number as it is (a swept iodepth of 1024, not 1.02k), else as [`Unit::Plain`].
    Whole,
}

/// A number in a few characters: 950, 1k, 1.5k, 10k, 1M, 2.5G (no "1000.0k").
#[must_use]
pub fn si(v: f64) -> String {
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e12 {
        (v / 1e12, "T")
    } else if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    format!("{}{suffix}", trim(scaled))
}

/// At most three significant digits, no trailing zeros: 1, 1.5, 12.5, 125, 0.25.
fn trim(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let digits = if v.abs() >= 100.0 {
        0
    } else if v.abs() >= 10.0 {
        1
    } else if v.abs() >= 1.0 {
        2
    } else {
        3
    };
    let text = format!("{v:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A value of `unit` as a tick shows it.
#[must_use]
pub fn format(unit: Unit, v: f64) -> String {
    match unit {
        Unit::Iops | Unit::Plain => si(v),
        Unit::Whole => {
            let whole = v.round();
            if (v - whole).abs() <= 1e-6 * whole.abs().max(1.0) && whole.abs() < 1e6 {
                format!("{whole:.0}")
            } else {
                si(v)
            }
        }
        Unit::BytesPerS => bytes(v),
        Unit::Ns => latency(v),
        Unit::Seconds => seconds(v),
        Unit::Percent => format!("{}%", trim(v)),
        Unit::Ms => format!("{} ms", trim(v)),
        Unit::Nines => {
            let p = format!("{:.4}", 100.0 * (1.0 - 10f64.powf(-v)));
            format!("p{}", p.trim_end_matches('0').trim_end_matches('.'))
        }
    }
}

/// Bytes in powers of 1024: 512 B, 4 KiB, 1.5 MiB.
fn bytes(v: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = v;
    let mut i = 0;
    while v.abs() >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    format!("{} {}", trim(v), UNITS[i])
}

fn latency(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{} s", trim(ns / 1e9))
    } else if ns >= 1e6 {
        format!("{} ms", trim(ns / 1e6))
    } else if ns >= 1e3 {
        format!("{} µs", trim(ns / 1e3))
    } else {
        format!("{} ns", trim(ns))
    }
}

fn seconds(s: f64) -> String {
    if s >= 3600.0 && s % 60.0 == 0.0 {
        format!(
            "{}:{:02}:00",
            (s / 3600.0).floor(),
            ((s % 3600.0) / 60.0).round()
        )
    } else if s >= 120.0 && s % 60.0 == 0.0 {
        format!("{}m", trim(s / 60.0))
    } else {
        format!("{}s", trim(s))
    }
}

/// Up to about `max` evenly spaced ticks of 1, 2 or 5 times a power of ten within `lo..=hi`.
#[must_use]
pub fn nice_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    if hi <= lo || hi.is_nan() || lo.is_nan() || !lo.is_finite() || !hi.is_finite() || max == 0 {
        return vec![lo];
    }
    let rough = (hi - lo) / max as f64;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| (hi - lo) / s <= max as f64)
        .unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// Seconds ticks: multiples of 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1 h...
#[must_use]
pub fn time_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    const STEPS: [f64; 14] = [
        1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0,
    ];
    if hi - lo < 5.0 {
        return nice_ticks(lo, hi, max);
    }
    let step = STEPS
        .iter()
        .copied()
        .find(|s| (hi - lo) / s <= max as f64)
        .unwrap_or(3600.0 * ((hi - lo) / 3600.0 / max as f64).ceil());
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// Powers of ten from below `lo` to above `hi` (in log10 space: the exponents).
#[must_use]
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (lo, hi) = (lo.max(f64::MIN_POSITIVE), hi.max(lo));
    let first = lo.log10().floor() as i32;
    let last = hi.log10().ceil() as i32;
    (first..=last.max(first + 1)).map(f64::from).collect()
}

/// One axis: its range (log10 of it for a log axis), ticks, unit and label.
#[derive(Debug, Clone)]
pub struct Axis {
    pub label: String,
    pub unit: Unit,
    pub log: bool,
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<f64>,
    /// Names of categories at 0, 1, 2... (a heat grid's rows and columns), instead of numbers.
    pub names: Vec<String>,
}

impl Axis {
    /// A linear axis over `lo..hi` (at least a unit wide), ticks nice numbers.
    #[must_use]
    pub fn linear(label: &str, unit: Unit, lo: f64, hi: f64) -> Self {
        let hi = if hi > lo { hi } else { lo + 1.0 };
        let ticks = if unit == Unit::Seconds {
            time_ticks(lo, hi, 8)
        } else if unit == Unit::BytesPerS {
            binary_ticks(lo, hi, 6)
        } else {
            nice_ticks(lo, hi, 6)
        };
        Self {
            label: label.to_string(),
            unit,
            log: false,
            lo,
            hi,
            ticks,
            names: Vec::new(),
        }
    }

    /// A linear axis from 0 to a little above `max`.
    #[must_use]
    pub fn from_zero(label: &str, unit: Unit, max: f64) -> Self {
        let max = if max.is_finite() && max > 0.0 {
            max
        } else {
            1.0
        };
        Self::linear(label, unit, 0.0, max * 1.08)
    }

    /// A log axis over whole decades around `lo..hi` (both > 0).
    #[must_use]
    pub fn log(label: &str, unit: Unit, lo: f64, hi: f64) -> Self {
        let ticks = log_ticks(lo, hi);
        Self {
            label: label.to_string(),
            unit,
            log: true,
            lo: ticks[0],
            hi: *ticks.last().unwrap_or(&1.0),
            ticks,
            names: Vec::new(),
        }
    }

    /// Categories 0..names.len(), each a cell wide.
    #[must_use]
    pub fn names(label: &str, names: Vec<String>) -> Self {
        Self {
            label: label.to_string(),
            unit: Unit::Plain,
            log: false,
            lo: 0.0,
            hi: names.len().max(1) as f64,
            ticks: (0..names.len()).map(|i| i as f64 + 0.5).collect(),
            names,
        }
    }

    /// Where `v` lies on the axis (log10 of it on a log axis); `None` for what a log axis
    /// cannot show.
    #[must_use]
    pub fn place(&self, v: f64) -> Option<f64> {
        if self.log {
            (v > 0.0).then(|| v.log10())
        } else {
            Some(v)
        }
    }

    /// The text of the tick at `v` (on the axis: the log10 of the value on a log axis).
    #[must_use]
    pub fn tick_text(&self, v: f64) -> String {
        if !self.names.is_empty() {
            let i = (v - 0.5).round();
            return self
                .names
                .get(i as usize)
                .filter(|_| i >= 0.0)
                .cloned()
                .unwrap_or_default();
        }
        let value = if self.log { 10f64.powf(v) } else { v };
        format(self.unit, value)
    }

    fn range(&self) -> Self {
        self.clone()
    }
}

/// plotters draws an axis through this: the ticks are ours, and so is their text.
impl Ranged for Axis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        if self.hi <= self.lo {
            return (limit.0 + limit.1) / 2;
        }
        let share = (value - self.lo) / (self.hi - self.lo);
        limit.0 + (share * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            return Vec::new();
        }
        self.ticks.clone()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Axis {
    fn format_ext(&self, value: &f64) -> String {
        self.tick_text(*value)
    }
}

/// Ticks of bytes per second at powers of 1024 times 1, 2, 5: 256 MiB, 512 MiB, 1 GiB.
fn binary_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    let mut base = 1.0;
    while base * 1024.0 <= hi.abs().max(lo.abs()) {
        base *= 1024.0;
    }
    let ticks = nice_ticks(lo / base, hi / base, max);
    ticks.into_iter().map(|t| t * base).collect()
}

/// One line: points in x order; `None` is a gap (nothing recorded), drawn as a break.
#[derive(Debug, Clone, Default)]
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, Option<f64>)>,
}

/// A shaded stretch of x (a steady-state window, a stall).
#[derive(Debug, Clone)]
pub struct Span {
    pub from: f64,
    pub to: f64,
    /// Stalls are hatched red-orange, windows pale blue.
    pub alarm: bool,
}

/// A vertical mark at one x (a knee, the advice).
#[derive(Debug, Clone)]
pub struct Mark {
    pub x: f64,
    pub label: String,
}

/// A chart of lines over one x axis.
#[derive(Debug, Clone)]
pub struct LineChart {
    pub x: Axis,
    pub y: Axis,
    pub lines: Vec<Line>,
    pub spans: Vec<Span>,
    pub marks: Vec<Mark>,
    /// Points drawn as dots besides the lines (a sweep's measured points).
    pub dots: bool,
}

/// `points` reduced to at most two per pixel column between `lo` and `hi` (the lowest and the
/// highest, in their order), so a spike or a dip one interval long stays on the drawing. A
/// gap (`None`) is kept as a gap.
#[must_use]
pub fn decimate(
    points: &[(f64, Option<f64>)],
    lo: f64,
    hi: f64,
    columns: usize,
) -> Vec<(f64, Option<f64>)> {
    if points.len() <= columns * 2 || hi <= lo || columns == 0 {
        return points.to_vec();
    }
    let column = |x: f64| (((x - lo) / (hi - lo)) * columns as f64).floor() as i64;
    let mut out = Vec::with_capacity(columns * 2 + 8);
    let mut i = 0;
    while i < points.len() {
        let (x, y) = points[i];
        let Some(y) = y else {
            out.push((x, None));
            i += 1;
            continue;
        };
        let col = column(x);
        let (mut min, mut max) = ((x, y), (x, y));
        let mut j = i + 1;
        while j < points.len() && column(points[j].0) == col {
            let Some(v) = points[j].1 else { break };
            if v < min.1 {
                min = (points[j].0, v);
            }
            if v > max.1 {
                max = (points[j].0, v);
            }
            j += 1;
        }
        let (a, b) = if min.0 <= max.0 {
            (min, max)
        } else {
            (max, min)
        };
        out.push((a.0, Some(a.1)));
        if b != a {
            out.push((b.0, Some(b.1)));
        }
        i = j;
    }
    out
}

/// The runs of a line between its gaps, placed on the axes.
fn runs(line: &Line, x: &Axis, y: &Axis) -> Vec<Vec<(f64, f64)>> {
    let mut runs = vec![Vec::new()];
    for &(px, py) in &decimate(&line.points, x.lo, x.hi, COLUMNS) {
        match (x.place(px), py.and_then(|v| y.place(v))) {
            (Some(px), Some(py)) => runs
                .last_mut()
                .expect("one run")
                .push((px, py.clamp(y.lo, y.hi))),
            _ => runs.push(Vec::new()),
        }
    }
    runs.retain(|r| !r.is_empty());
    runs
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type Plot<'a> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<Axis, Axis>>;

/// The chart's frame: the axes with their ticks and labels and a light grid; `y_area`: the
/// width left of the plot for the y axis' labels.
fn frame<'a>(root: &Area<'a>, x: &Axis, y: &Axis, y_area: u32) -> Result<Plot<'a>, String> {
    let mut chart = ChartBuilder::on(root)
        .margin(12)
        .margin_right(24)
        .x_label_area_size(40)
        .y_label_area_size(y_area)
        .build_cartesian_2d(x.range(), y.range())
        .map_err(|e| e.to_string())?;
    let xf = |v: &f64| x.tick_text(*v);
    let yf = |v: &f64| y.tick_text(*v);
    chart
        .configure_mesh()
        .x_desc(x.label.as_str())
        .y_desc(y.label.as_str())
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 13))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(chart)
}

/// The legend's rows below a chart: each row's entries (index and name) and their x in pixels.
type LegendRows = Vec<Vec<(usize, i32)>>;

/// Height of a legend row, pixels.
const LEGEND_ROW: u32 = 18;

/// The width a 12-pixel sans-serif text takes, estimated (no font is loaded to measure it).
fn text_width(text: &str) -> i32 {
    7 * text.chars().count() as i32
}

/// The entries of a legend of `names` laid out in rows across the chart's width.
fn legend_rows(names: &[&str]) -> LegendRows {
    let (left, right) = (90, WIDTH as i32 - 24);
    let mut rows: LegendRows = vec![Vec::new()];
    let mut x = left;
    for (i, name) in names.iter().enumerate() {
        let width = 30 + text_width(name) + 18;
        if x + width > right && x > left {
            rows.push(Vec::new());
            x = left;
        }
        rows.last_mut().expect("a row").push((i, x));
        x += width;
    }
    rows
}

/// The legend below the plot: each line's sample (its colour, width and, once the dashes
/// are set, its pattern) and its name, so no line of the plot is covered.
fn draw_legend(area: &Area<'_>, names: &[&str], rows: &LegendRows) -> Result<(), String> {
    for (r, row) in rows.iter().enumerate() {
        let y = 4 + (r as u32 * LEGEND_ROW + LEGEND_ROW / 2) as i32;
        for &(i, x) in row {
            let (colour, width, _) = line_style(i);
            area.draw(&PathElement::new(
                [(x, y), (x + 24, y)],
                colour.stroke_width(width),
            ))
            .map_err(|e| e.to_string())?;
            area.draw(&Text::new(
                names[i].to_string(),
                (x + 30, y),
                ("sans-serif", 12).into_font().color(&BLACK).pos(
                    plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Left,
                        plotters::style::text_anchor::VPos::Center,
                    ),
                ),
            ))
            .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// The vertical marks (a knee, an advice's peaks, a write cliff) and their labels, each label
/// a row lower than the one before so marks at one x stay readable, and turned to the left of
/// its mark where it would leave the plot on the right.
fn draw_marks(plot: &mut Plot<'_>, area: &Area<'_>, chart: &LineChart) -> Result<(), String> {
    let (ylo, yhi) = (chart.y.lo, chart.y.hi);
    let right = plot.plotting_area().get_x_axis_pixel_range().end;
    for (k, mark) in chart.marks.iter().enumerate() {
        let Some(x) = chart.x.place(mark.x) else {
            continue;
        };
        plot.draw_series(LineSeries::new([(x, ylo), (x, yhi)], BLACK.stroke_width(1)))
            .map_err(|e| e.to_string())?;
        let (px, py) = plot.backend_coord(&(x, yhi));
        let y = py + 3 + 15 * (k % 6) as i32;
        let (at, h) = if px + 4 + text_width(&mark.label) > right {
            (px - 4, plotters::style::text_anchor::HPos::Right)
        } else {
            (px + 4, plotters::style::text_anchor::HPos::Left)
        };
        area.draw(&Text::new(
            mark.label.clone(),
            (at, y),
            ("sans-serif", 12).into_font().color(&BLACK).pos(
                plotters::style::text_anchor::Pos::new(h, plotters::style::text_anchor::VPos::Top),
            ),
        ))
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The height of a line chart's drawing: the plot, and its legend's rows below when it has
/// more than one line.
#[must_use]
pub fn lines_height(chart: &LineChart) -> u32 {
    if chart.lines.len() > 1 {
        let names: Vec<&str> = chart.lines.iter().map(|l| l.name.as_str()).collect();
        HEIGHT + 8 + LEGEND_ROW * legend_rows(&names).len() as u32
    } else {
        HEIGHT
    }
}

/// The SVG of a line chart: the plot, and below it the legend (never over the lines).
///
/// # Errors
/// plotters failed to draw (it draws into a string: it should not).
pub fn draw_lines(chart: &LineChart) -> Result<String, String> {
    let mut svg = String::new();
    let mut dashed = Vec::with_capacity(chart.lines.len());
    {
        let height = lines_height(chart);
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, bottom) = root.split_vertically(HEIGHT);
        let mut plot = frame(&top, &chart.x, &chart.y, 78)?;
        let (ylo, yhi) = (chart.y.lo, chart.y.hi);
        for span in &chart.spans {
            let (Some(a), Some(b)) = (chart.x.place(span.from), chart.x.place(span.to)) else {
                continue;
            };
            let colour = if span.alarm {
                PALETTE[1].mix(0.30)
            } else {
                PALETTE[5].mix(0.18)
            };
            plot.draw_series([Rectangle::new([(a, ylo), (b.max(a), yhi)], colour.filled())])
                .map_err(|e| e.to_string())?;
        }
        for (i, line) in chart.lines.iter().enumerate() {
            let (colour, width, _) = line_style(i);
            let style = colour.stroke_width(width);
            let runs = runs(line, &chart.x, &chart.y);
            dashed.push(runs.iter().map(Vec::len).sum::<usize>() <= DENSE_POINTS);
            for run in runs {
                if run.len() == 1 || chart.dots {
                    plot.draw_series(run.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                        .map_err(|e| e.to_string())?;
                }
                plot.draw_series(LineSeries::new(run.iter().copied(), style))
                    .map_err(|e| e.to_string())?;
            }
        }
        draw_marks(&mut plot, &top, chart)?;
        if chart.lines.len() > 1 {
            let names: Vec<&str> = chart.lines.iter().map(|l| l.name.as_str()).collect();
            draw_legend(&bottom, &names, &legend_rows(&names))?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(dash_lines(&svg, &dashed))
}

/// One cell of a heat chart: its corners on the axes and its value (0..=1 of the scale).
#[derive(Debug, Clone)]
pub struct Cell {
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub value: f64,
    /// Written in the cell (a heat grid's numbers, a table's values).
    pub text: Option<String>,
}

/// Cells over two axes (a heatmap over time, a heat grid, a table).
#[derive(Debug, Clone)]
pub struct HeatChart {
    pub x: Axis,
    pub y: Axis,
    pub cells: Vec<Cell>,
    pub height: u32,
}

/// A sequential scale from pale yellow to dark blue (viridis' ends reversed): lightness falls
/// with the value, so it reads in greyscale as well.
#[must_use]
pub fn heat_colour(value: f64) -> RGBColor {
    const STOPS: [(u8, u8, u8); 5] = [
        (0xFD, 0xE7, 0x25),
        (0x5D, 0xC8, 0x63),
        (0x21, 0x91, 0x8C),
        (0x3B, 0x52, 0x8B),
        (0x44, 0x01, 0x54),
    ];
    let v = value.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (v.floor() as usize).min(STOPS.len() - 2);
    let f = v - i as f64;
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The SVG of a heat chart.
///
/// # Errors
/// plotters failed to draw.
pub fn draw_heat(chart: &HeatChart) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, chart.height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut plot = frame(&root, &chart.x, &chart.y, 78)?;
        plot.draw_series(chart.cells.iter().map(|c| {
            Rectangle::new(
                [(c.x.0, c.y.0), (c.x.1, c.y.1)],
                heat_colour(c.value).filled(),
            )
        }))
        .map_err(|e| e.to_string())?;
        plot.draw_series(chart.cells.iter().filter_map(|c| {
            let text = c.text.clone()?;
            let colour = if c.value > 0.45 { WHITE } else { BLACK };
            let at = ((c.x.0 + c.x.1) / 2.0, (c.y.0 + c.y.1) / 2.0);
            Some(Text::new(
                text,
                at,
                ("sans-serif", 13).into_font().color(&colour).pos(
                    plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Center,
                        plotters::style::text_anchor::VPos::Center,
                    ),
                ),
            ))
        }))
        .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// One row of an interval chart: a change and its 95% interval, percent.
#[derive(Debug, Clone)]
pub struct IntervalRow {
    pub name: String,
    pub change_pct: f64,
    pub interval: Option<(f64, f64)>,
    /// Worse (drawn in vermilion), better (bluish green) or neither (grey).
    pub verdict: i8,
}

/// The SVG of changes with their intervals, a row each, around a line at zero.
///
/// # Errors
/// plotters failed to draw.
pub fn draw_intervals(rows: &[IntervalRow]) -> Result<String, String> {
    let reach = rows
        .iter()
        .flat_map(|r| {
            [
                r.change_pct,
                r.interval.map_or(0.0, |i| i.0),
                r.interval.map_or(0.0, |i| i.1),
            ]
        })
        .filter(|v| v.is_finite())
        .fold(5.0, |m: f64, v| m.max(v.abs()))
        * 1.1;
    let x = Axis::linear(
        "change against the first record (%, 95% interval)",
        Unit::Percent,
        -reach,
        reach,
    );
    let y = Axis::names("", rows.iter().rev().map(|r| r.name.clone()).collect());
    let height = (70 + 26 * rows.len() as u32).clamp(160, 900);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = frame(&root, &x, &y, 250)?;
        chart
            .draw_series(LineSeries::new(
                [(0.0, y.lo), (0.0, y.hi)],
                BLACK.stroke_width(1),
            ))
            .map_err(|e| e.to_string())?;
        let n = rows.len();
        for (i, row) in rows.iter().enumerate() {
            let at = (n - 1 - i) as f64 + 0.5;
            let colour = match row.verdict {
                1 => PALETTE[2],
                -1 => PALETTE[1],
                _ => RGBColor(0x77, 0x77, 0x77),
            };
            if let Some((lo, hi)) = row.interval {
                chart
                    .draw_series(LineSeries::new(
                        [(lo.clamp(-reach, reach), at), (hi.clamp(-reach, reach), at)],
                        colour.stroke_width(3),
                    ))
                    .map_err(|e| e.to_string())?;
            }
            let change = row.change_pct.clamp(-reach, reach);
            if row.verdict == -1 {
                chart.draw_series([TriangleMarker::new((change, at), 6, colour.filled())])
            } else {
                chart.draw_series([Circle::new((change, at), 5, colour.filled())])
            }
            .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_read_as_round_numbers_with_units() {
        assert_eq!(si(1000.0), "1k");
        assert_eq!(si(10_000.0), "10k");
        assert_eq!(si(100_000.0), "100k");
        assert_eq!(si(1_000_000.0), "1M");
        assert_eq!(si(1500.0), "1.5k");
        assert_eq!(si(999.0), "999");
        assert_eq!(si(0.0), "0");
        assert_eq!(format(Unit::Ns, 1_500_000.0), "1.5 ms");
        assert_eq!(format(Unit::Ns, 250.0), "250 ns");
        assert_eq!(format(Unit::BytesPerS, 1024.0 * 1024.0 * 512.0), "512 MiB");
        assert_eq!(format(Unit::Seconds, 600.0), "10m");
        assert_eq!(format(Unit::Seconds, 7200.0), "2:00:00");
        assert_eq!(format(Unit::Percent, 99.9), "99.9%");
        assert_eq!(format(Unit::Nines, 2.0), "p99");
        assert_eq!(format(Unit::Nines, 4.0), "p99.99");
        assert_eq!(format(Unit::Nines, -(0.5f64.log10())), "p50");
        let ticks = nice_ticks(0.0, 1_080_000.0, 6);
        assert_eq!(
            ticks,
            vec![0.0, 200_000.0, 400_000.0, 600_000.0, 800_000.0, 1_000_000.0]
        );
        let shown: Vec<String> = ticks.iter().map(|&t| si(t)).collect();
        assert_eq!(shown, ["0", "200k", "400k", "600k", "800k", "1M"]);
        assert_eq!(
            log_ticks(3_000.0, 2_000_000.0),
            vec![3.0, 4.0, 5.0, 6.0, 7.0]
        );
        let axis = Axis::log("IOPS", Unit::Iops, 1_000.0, 1_000_000.0);
        let shown: Vec<String> = axis.ticks.iter().map(|&t| axis.tick_text(t)).collect();
        assert_eq!(shown, ["1k", "10k", "100k", "1M"]);
        assert_eq!(
            time_ticks(0.0, 3600.0, 8),
            (0..=6).map(|i| f64::from(i) * 600.0).collect::<Vec<_>>()
        );
        let bw = Axis::from_zero("bandwidth", Unit::BytesPerS, 1.9e9);
        assert!(
            bw.ticks
                .iter()
                .all(|t| (t / 1_073_741_824.0 * 4.0).fract() == 0.0),
            "{:?}",
            bw.ticks
        );
    }

    #[test]
    fn a_one_interval_spike_and_dip_survive_decimation() {
        let mut points: Vec<(f64, Option<f64>)> =
            (0..36_000).map(|i| (f64::from(i), Some(100.0))).collect();
        points[12_345].1 = Some(10_000.0);
        points[20_000].1 = Some(0.0);
        points[30_000].1 = None;
        let out = decimate(&points, 0.0, 36_000.0, 760);
        assert!(out.len() <= 760 * 2 + 4, "{}", out.len());
        assert!(out.contains(&(12_345.0, Some(10_000.0))));
        assert!(out.contains(&(20_000.0, Some(0.0))));
        assert!(out.contains(&(30_000.0, None)));
        assert!(out.windows(2).all(|w| w[0].0 <= w[1].0), "x stays in order");
        let short: Vec<(f64, Option<f64>)> = (0..10).map(|i| (f64::from(i), Some(1.0))).collect();
        assert_eq!(decimate(&short, 0.0, 10.0, 760), short);
    }

    #[test]
    fn heat_colours_fall_in_lightness() {
        let light =
            |c: RGBColor| 0.299 * f64::from(c.0) + 0.587 * f64::from(c.1) + 0.114 * f64::from(c.2);
        let steps: Vec<f64> = (0..=10)
            .map(|i| light(heat_colour(f64::from(i) / 10.0)))
            .collect();
        assert!(steps.windows(2).all(|w| w[0] > w[1]), "{steps:?}");
    }

    #[test]
    fn a_chart_holds_its_marks_and_its_text_escaped() {
        let chart = LineChart {
            x: Axis::linear("time (s)", Unit::Seconds, 0.0, 10.0),
            y: Axis::from_zero("IOPS", Unit::Iops, 5000.0),
            lines: vec![
                Line {
                    name: "<script>".into(),
                    points: (0..10)
                        .map(|i| (f64::from(i), Some(f64::from(i) * 500.0)))
                        .collect(),
                },
                Line {
                    name: "write".into(),
                    points: vec![
                        (0.0, Some(1.0)),
                        (1.0, None),
                        (2.0, Some(3.0)),
                        (3.0, Some(4.0)),
                    ],
                },
            ],
            spans: vec![Span {
                from: 2.0,
                to: 3.0,
                alarm: true,
            }],
            marks: vec![Mark {
                x: 5.0,
                label: "knee".into(),
            }],
            dots: false,
        };
        let svg = draw_lines(&chart).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;"));
        assert!(svg.contains("knee"));
        assert!(
            svg.contains("stroke-dasharray=\"8 4\""),
            "the second line is dashed"
        );
        assert!(svg.contains(">\n1k\n<") || svg.contains(">1k<"), "{svg}");
    }

    /// Ten lines' legend goes below the plot, in rows within the drawing: no name is drawn
    /// over the plotting area, whatever the lines' values.
    #[test]
    fn the_legend_is_below_the_plot() {
        let names: Vec<String> = (0..10)
            .map(|i| format!("disk-with-a-long-name-{i}"))
            .collect();
        let chart = LineChart {
            x: Axis::linear("time (s)", Unit::Seconds, 0.0, 10.0),
            y: Axis::from_zero("IOPS", Unit::Iops, 100.0),
            lines: names
                .iter()
                .map(|n| Line {
                    name: n.clone(),
                    points: (0..10).map(|i| (f64::from(i), Some(99.0))).collect(),
                })
                .collect(),
            spans: Vec::new(),
            marks: Vec::new(),
            dots: false,
        };
        let svg = draw_lines(&chart).unwrap();
        let height = lines_height(&chart);
        assert!(height > HEIGHT + 2 * LEGEND_ROW, "{height}: rows of names");
        assert!(svg.starts_with(&format!("<svg width=\"{WIDTH}\" height=\"{height}\"")));
        for name in &names {
            let at = svg.find(&format!("\n{name}\n")).expect(name);
            let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
            let y: i64 = tag
                .split(" y=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert!(
                y > i64::from(HEIGHT) && y < i64::from(height),
                "{name} at {y}"
            );
        }
        let single = LineChart {
            lines: chart.lines[..1].to_vec(),
            ..chart
        };
        assert_eq!(lines_height(&single), HEIGHT, "one line needs no legend");
    }

    /// A second line of a few points is dashed; one of 3,600 noisy points is drawn solid, its
    /// legend's sample too.
    #[test]
    fn a_dense_line_is_drawn_solid() {
        let line = |name: &str, n: i32| Line {
            name: name.into(),
            points: (0..n)
                .map(|i| (f64::from(i), Some(f64::from(i % 7) * 10.0)))
                .collect(),
        };
        let chart = |n: i32| LineChart {
            x: Axis::linear("time (s)", Unit::Seconds, 0.0, f64::from(n)),
            y: Axis::from_zero("IOPS", Unit::Iops, 60.0),
            lines: vec![line("a", n), line("b", n)],
            spans: Vec::new(),
            marks: Vec::new(),
            dots: false,
        };
        let sparse = draw_lines(&chart(60)).unwrap();
        assert_eq!(
            sparse.matches("stroke-dasharray=\"8 4\"").count(),
            2,
            "the line and its sample"
        );
        let dense = draw_lines(&chart(3600)).unwrap();
        assert!(!dense.contains("stroke-dasharray"), "dense lines are solid");
    }
}
