//! Where each panel goes, and which panels fold away when the terminal is small.
//!
//! ```text
//! bench / show / fleet                      monitor
//! +-----------------------------------+    +-----------------------------------+
//! | header (2 rows)                   |    | header (2 rows)                   |
//! | jobs (several jobs; fleet: hosts) |    |                                   |
//! | throughput/IOPS   | latency       |    | all disks (iostat -x)             |
//! | trace (2)                         |    |                                   |
//! | device            | queue         |    | device (selected) | queue         |
//! | all disks (iostat -x)             |    | throughput/IOPS   | latency (1)   |
//! | footer (1 row)                    |    | processes on the disk (1)         |
//! |                                   |    | footer (1 row)                    |
//! +-----------------------------------+    +-----------------------------------+
//! (1) with `--trace`: the selected disk's device time and its processes.
//! (2) with `--trace`: the app's mean taken apart, the block layer's percentiles beside the
//! app's (a few rows, no border); the device panel then keeps its metrics at 80x24.
//!
//! a sweep (bench)
//! +-----------------------------------+
//! | header (2 rows)                   |
//! | throughput/IOPS   | latency       |
//! | sweep results (a row per point)   |
//! | sweep chart       | device        |
//! | all disks (iostat -x)             |
//! | footer (1 row)                    |
//! +-----------------------------------+
//! ```
//! Panels fold in reverse order of importance until the minimum heights fit; the text bands
//! then get their preferred height before the charts grow:
//! bench: table, queue, latency, device, throughput; with several jobs: table, queue, device,
//! latency, jobs, throughput (the jobs table and the charts it drives stay together); a sweep:
//! queue, jobs, table, device, latency, sweep chart, results, throughput (at 80x24 the results
//! and the running point's throughput stay); monitor: processes, latency, queue, throughput, device, table.
//! Side-by-side pairs stack when the terminal is narrow. All arithmetic saturates; every rect
//! lies inside the given area, so no size can make a render index out of bounds.

use ratatui::layout::Rect;

use crate::tui::view::{Mode, View};

/// A panel that can fold away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    Throughput,
    Latency,
    Device,
    Queue,
    Table,
    Jobs,
    /// A sweep's results table.
    Sweep,
    /// A sweep's metric against its swept parameter.
    SweepChart,
    /// The steady-state line (one row).
    Steady,
    /// The verification line (one row).
    Verify,
    /// Write bandwidth against bytes written.
    Sustained,
    /// The monitor's `--trace`: processes by I/O on the selected disk.
    Top,
    /// The bench dashboard's `--trace`: the app's mean taken apart (a few rows).
    Trace,
}

/// The rect of every panel on screen (`None`: folded or absent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Plan {
    pub header: Rect,
    pub footer: Rect,
    pub throughput: Option<Rect>,
    pub latency: Option<Rect>,
    pub device: Option<Rect>,
    pub queue: Option<Rect>,
    pub table: Option<Rect>,
    pub jobs: Option<Rect>,
    pub sweep: Option<Rect>,
    pub sweep_chart: Option<Rect>,
    pub steady: Option<Rect>,
    pub verify: Option<Rect>,
    pub sustained: Option<Rect>,
    pub top: Option<Rect>,
    pub trace: Option<Rect>,
}

impl Plan {
    fn set(&mut self, panel: Panel, rect: Rect) {
        let slot = match panel {
            Panel::Throughput => &mut self.throughput,
            Panel::Latency => &mut self.latency,
            Panel::Device => &mut self.device,
            Panel::Queue => &mut self.queue,
            Panel::Table => &mut self.table,
            Panel::Jobs => &mut self.jobs,
            Panel::Sweep => &mut self.sweep,
            Panel::SweepChart => &mut self.sweep_chart,
            Panel::Steady => &mut self.steady,
            Panel::Verify => &mut self.verify,
            Panel::Sustained => &mut self.sustained,
            Panel::Top => &mut self.top,
            Panel::Trace => &mut self.trace,
        };
        *slot = Some(rect);
    }
}

const HEADER_ROWS: u16 = 2;
const FOOTER_ROWS: u16 = 1;

/// Width from which a pair sits side by side.
const CHARTS_PAIR_MIN_WIDTH: u16 = 76;
const DEVICE_PAIR_MIN_WIDTH: u16 = 100;

/// A horizontal band of one or two panels.
#[derive(Debug, Clone)]
struct Band {
    panels: Vec<Panel>,
    min: u16,
    /// Height it is raised to before leftovers go to growing bands.
    pref: u16,
    grows: bool,
}

/// `width`: the band's.
fn min_height(view: &View, panel: Panel, width: u16) -> u16 {
    match (view.mode, panel) {
        // A title, the plot and its axis: rows enough to read a trend at 80x24.
        (Mode::Monitor, Panel::Throughput) => 8,
        // Under a jobs table and over a device panel (a job file's step at 80x24) the charts
        // give up two rows so that every job, the charts and the device all fit.
        (_, Panel::Throughput | Panel::Latency)
            if view.jobs.is_some() && view.device.is_some() && view.mode != Mode::Fleet =>
        {
            8
        }
        (_, Panel::Throughput) => 10,
        (_, Panel::Latency) => 9,
        // Beside a jobs table the panel may shrink to its throughput and `%util` (two columns),
        // so a job file's dashboard keeps it at 80x24 as bench's does.
        (_, Panel::Device) if view.jobs.is_some() => view.device.as_ref().map_or(8, |d| {
            u16::try_from(super::device::core_rows(d, width))
                .unwrap_or(6)
                .saturating_add(2)
                .min(8)
        }),
        // Beside the trace band the panel may keep its metrics only (two columns, four rows)
        // so that both fit at 80x24.
        (_, Panel::Device) if view.trace.is_some() => 6,
        (_, Panel::Device) => 8,
        (_, Panel::Queue) => 5,
        (_, Panel::Table) => 5,
        // A header, two jobs and the total; more rows scroll to the selected one.
        (_, Panel::Jobs) => 6,
        // The header and a point (scrolled to the running one).
        (_, Panel::Sweep) => 5,
        (_, Panel::SweepChart) => 10,
        (_, Panel::Steady | Panel::Verify) => 1,
        (_, Panel::Sustained) => 8,
        // The title, the header and a process.
        (_, Panel::Top) => 4,
        // Every line: a cut decomposition would not add up.
        (_, Panel::Trace) => super::trace::rows_wanted(view, width),
    }
}

/// `width`: the panel's, borders included.
fn pref_height(view: &View, panel: Panel, width: u16) -> u16 {
    let lines = |n: usize| u16::try_from(n).unwrap_or(u16::MAX).saturating_add(2);
    match panel {
        Panel::Throughput => 14,
        Panel::Latency => 14,
        Panel::Device => view.device.as_ref().map_or(0, |d| {
            // A row per metric (eight, eleven with discards), or a header and a row per disk
            // of the step, then the reconciliation and the warnings, wrapped.
            let metrics = if d.disks.len() > 1 {
                1 + d.disks.len()
            } else {
                super::device::metric_rows(d)
            };
            lines(metrics + super::device::tail_rows(d, width))
        }),
        Panel::Queue => view.queue.as_ref().map_or(0, |q| lines(q.settings.len())),
        Panel::Table => view.disks.as_ref().map_or(0, |t| lines(t.rows.len() + 1)),
        Panel::Jobs => super::jobs::rows_wanted(view),
        Panel::Sweep => super::sweep::rows_wanted(view),
        Panel::SweepChart => 16,
        Panel::Steady | Panel::Verify => 1,
        Panel::Sustained => 14,
        Panel::Top => super::top::rows_wanted(view).min(12),
        Panel::Trace => super::trace::rows_wanted(view, width),
    }
}

/// Most important first.
fn priority(view: &View) -> Vec<Panel> {
    match view.mode {
        Mode::Bench | Mode::Show | Mode::Fleet if view.sweep.is_some() => vec![
            Panel::Throughput,
            Panel::Steady,
            Panel::Verify,
            Panel::Trace,
            Panel::Sweep,
            Panel::SweepChart,
            Panel::Latency,
            Panel::Device,
            Panel::Table,
            Panel::Jobs,
            Panel::Queue,
        ],
        Mode::Monitor => vec![
            Panel::Table,
            Panel::Device,
            Panel::Throughput,
            Panel::Queue,
            Panel::Latency,
            Panel::Top,
            Panel::Jobs,
        ],
        // Several jobs: the table that picks the job and the charts that show it stay together.
        Mode::Bench | Mode::Show | Mode::Fleet if view.jobs.is_some() => vec![
            Panel::Throughput,
            Panel::Steady,
            Panel::Verify,
            Panel::Trace,
            Panel::Jobs,
            Panel::Latency,
            Panel::Device,
            Panel::Sustained,
            Panel::Queue,
            Panel::Table,
        ],
        Mode::Bench | Mode::Show | Mode::Fleet => vec![
            Panel::Throughput,
            Panel::Steady,
            Panel::Verify,
            Panel::Trace,
            Panel::Device,
            Panel::Latency,
            Panel::Sustained,
            Panel::Queue,
            Panel::Table,
            Panel::Jobs,
        ],
    }
}

fn present(view: &View, panel: Panel) -> bool {
    match panel {
        Panel::Throughput => view.throughput.is_some(),
        Panel::Latency => view.latency.is_some(),
        Panel::Device => view.device.is_some(),
        // A sweep's chart takes its place.
        Panel::Queue => view.queue.is_some() && view.sweep.is_none(),
        Panel::Table => view.disks.is_some(),
        Panel::Jobs => view.jobs.is_some(),
        Panel::Sweep | Panel::SweepChart => view.sweep.is_some(),
        Panel::Steady => view.steady.is_some(),
        Panel::Verify => view.verify.is_some(),
        // A sweep's points each write a little; its chart is the sweep's.
        Panel::Sustained => view.sustained.is_some() && view.sweep.is_none(),
        Panel::Top => view.top.is_some(),
        Panel::Trace => view.trace.is_some(),
    }
}

fn pair(first: Panel, second: Panel, shown: &[Panel], side_by_side: bool) -> Vec<Vec<Panel>> {
    let has = |p| shown.contains(&p);
    match (has(first), has(second)) {
        (true, true) if side_by_side => vec![vec![first, second]],
        (true, true) => vec![vec![first], vec![second]],
        (true, false) => vec![vec![first]],
        (false, true) => vec![vec![second]],
        (false, false) => vec![],
    }
}

fn make_bands(view: &View, shown: &[Panel], width: u16) -> Vec<Band> {
    let charts = pair(
        Panel::Throughput,
        Panel::Latency,
        shown,
        width >= CHARTS_PAIR_MIN_WIDTH,
    );
    // A sweep's chart takes the queue's place beside the device panel, left of it.
    let device = if view.sweep.is_some() {
        pair(
            Panel::SweepChart,
            Panel::Device,
            shown,
            width >= DEVICE_PAIR_MIN_WIDTH,
        )
    } else {
        pair(
            Panel::Device,
            Panel::Queue,
            shown,
            width >= DEVICE_PAIR_MIN_WIDTH,
        )
    };
    let sweep: Vec<Vec<Panel>> = pair(Panel::Sweep, Panel::Sweep, shown, false)
        .into_iter()
        .take(1)
        .collect();
    let table = pair(Panel::Table, Panel::Table, shown, false);
    let table: Vec<Vec<Panel>> = table.into_iter().take(1).collect();
    let jobs: Vec<Vec<Panel>> = pair(Panel::Jobs, Panel::Jobs, shown, false)
        .into_iter()
        .take(1)
        .collect();
    let one = |panel| -> Vec<Vec<Panel>> {
        pair(panel, panel, shown, false)
            .into_iter()
            .take(1)
            .collect()
    };
    let order = match view.mode {
        Mode::Monitor => [
            jobs,
            table,
            device,
            charts,
            one(Panel::Top),
            sweep,
            vec![],
            vec![],
            vec![],
        ],
        Mode::Bench | Mode::Show | Mode::Fleet => [
            jobs,
            one(Panel::Steady),
            one(Panel::Verify),
            charts,
            one(Panel::Sustained),
            one(Panel::Trace),
            sweep,
            device,
            table,
        ],
    };
    order
        .into_iter()
        .flatten()
        .map(|panels| {
            let min = panels
                .iter()
                .map(|&p| min_height(view, p, width))
                .max()
                .unwrap_or(0);
            // The left (main) panel sets the preferred height; its neighbour scrolls/cuts.
            let main_width = match panels.as_slice() {
                [_, right] => width - side_width(*right, width),
                _ => width,
            };
            let pref = panels
                .first()
                .map_or(0, |&p| pref_height(view, p, main_width))
                .max(min);
            let grows = panels.iter().any(|p| {
                matches!(
                    p,
                    Panel::Throughput | Panel::Latency | Panel::SweepChart | Panel::Sustained
                )
            });
            Band {
                panels,
                min,
                pref,
                grows,
            }
        })
        .collect()
}

/// Lays the panels of `view` out in `area`.
#[must_use]
pub fn plan(area: Rect, view: &View) -> Plan {
    let header_rows = HEADER_ROWS.min(area.height);
    let footer_rows = FOOTER_ROWS.min(area.height - header_rows);
    let mut plan = Plan {
        header: Rect {
            height: header_rows,
            ..area
        },
        footer: Rect {
            y: area.bottom() - footer_rows,
            height: footer_rows,
            ..area
        },
        ..Plan::default()
    };
    let body = Rect {
        y: area.y + header_rows,
        height: area.height - header_rows - footer_rows,
        ..area
    };

    let mut shown: Vec<Panel> = priority(view)
        .into_iter()
        .filter(|&p| present(view, p))
        .collect();
    let mut bands = make_bands(view, &shown, body.width);
    while !shown.is_empty()
        && bands.iter().map(|b| u32::from(b.min)).sum::<u32>() > u32::from(body.height)
    {
        shown.pop();
        bands = make_bands(view, &shown, body.width);
    }
    if shown.is_empty() || body.width == 0 {
        return plan;
    }

    let heights = distribute(&bands, view, body.height);
    let mut y = body.y;
    for (band, height) in bands.iter().zip(heights) {
        let row = Rect { y, height, ..body };
        y += height;
        match band.panels.as_slice() {
            [one] => plan.set(*one, row),
            [left, right] => {
                let right_width = side_width(*right, row.width);
                let left_rect = Rect {
                    width: row.width - right_width,
                    ..row
                };
                let right_rect = Rect {
                    x: row.x + left_rect.width,
                    width: right_width,
                    ..row
                };
                plan.set(*left, left_rect);
                plan.set(*right, right_rect);
            }
            _ => {}
        }
    }
    plan
}

/// Width of the right-hand panel of a pair.
fn side_width(panel: Panel, width: u16) -> u16 {
    let (share, lo, hi) = match panel {
        Panel::Latency => (width * 2 / 5, 38, 72),
        _ => (width / 3, 30, 48),
    };
    share.clamp(lo, hi).min(width / 2)
}

/// Heights of the bands: each gets its minimum, then (most important first) up to its
/// preferred height, then the rest goes to the bands that grow (charts), else the first.
fn distribute(bands: &[Band], view: &View, total: u16) -> Vec<u16> {
    let mut heights: Vec<u16> = bands.iter().map(|b| b.min).collect();
    let mut left = total.saturating_sub(heights.iter().sum());
    let rank = |b: &Band| {
        priority(view)
            .iter()
            .position(|p| b.panels.contains(p))
            .unwrap_or(usize::MAX)
    };
    let mut order: Vec<usize> = (0..bands.len()).collect();
    order.sort_by_key(|&i| rank(&bands[i]));
    // Bands of text (device, queue, table) get their rows before the charts grow past their
    // minimum: a chart shrinks gracefully, a cut warning or reconciliation does not.
    let mut fill = order.clone();
    fill.sort_by_key(|&i| bands[i].grows);
    for &i in &fill {
        let want = bands[i].pref.saturating_sub(heights[i]).min(left);
        heights[i] += want;
        left -= want;
    }
    let growers: Vec<usize> = (0..bands.len()).filter(|&i| bands[i].grows).collect();
    if growers.is_empty() {
        if let Some(&first) = order.first() {
            heights[first] += left;
        }
    } else {
        let n = u16::try_from(growers.len()).unwrap_or(1);
        for (k, &i) in growers.iter().enumerate() {
            let extra = left / n + u16::from(u16::try_from(k).unwrap_or(0) < left % n);
            heights[i] += extra;
        }
    }
    heights
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::ui::sample;

    fn rects(p: &Plan) -> Vec<Rect> {
        [
            p.throughput,
            p.latency,
            p.device,
            p.queue,
            p.table,
            p.jobs,
            p.sweep,
            p.sweep_chart,
            p.steady,
            p.sustained,
            p.top,
            p.trace,
        ]
        .into_iter()
        .flatten()
        .chain([p.header, p.footer])
        .filter(|r| !r.is_empty())
        .collect()
    }

    #[test]
    fn every_size_stays_inside_and_nothing_overlaps() {
        for view in [
            sample::bench(),
            sample::monitor(),
            sample::show(),
            sample::plan(None),
            sample::sweep(),
            sample::fleet(None),
            sample::bench_traced(),
        ] {
            for w in 0..=130u16 {
                for h in 0..=45u16 {
                    let area = Rect::new(0, 0, w, h);
                    let plan = plan(area, &view);
                    let all = rects(&plan);
                    for (i, a) in all.iter().enumerate() {
                        assert!(area.contains(a.as_position()) && a.right() <= area.right());
                        assert!(a.bottom() <= area.bottom(), "{a:?} outside {area:?}");
                        for b in &all[i + 1..] {
                            assert!(!a.intersects(*b), "{a:?} overlaps {b:?} at {w}x{h}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn bench_at_80x24_folds_the_table_and_keeps_the_charts_and_device() {
        let plan = plan(Rect::new(0, 0, 80, 24), &sample::bench());
        assert!(plan.table.is_none());
        assert!(plan.queue.is_none());
        assert!(plan.throughput.is_some() && plan.latency.is_some() && plan.device.is_some());
    }

    #[test]
    fn bench_at_160x50_shows_everything() {
        let plan = plan(Rect::new(0, 0, 160, 50), &sample::bench());
        assert!(plan.table.is_some() && plan.queue.is_some() && plan.latency.is_some());
    }

    #[test]
    fn a_sweep_at_80x24_keeps_its_results_and_the_throughput_and_adds_the_chart_at_160x50() {
        let small = plan(Rect::new(0, 0, 80, 24), &sample::sweep());
        assert!(small.sweep.is_some() && small.throughput.is_some());
        assert!(small.sweep_chart.is_none() && small.device.is_none());
        // Every point of the sample's eight, its header and the borders.
        assert_eq!(small.sweep.map(|r| r.height), Some(11));
        let large = plan(Rect::new(0, 0, 160, 50), &sample::sweep());
        assert!(large.sweep_chart.is_some() && large.device.is_some());
        assert!(large.latency.is_some() && large.table.is_some());
        assert!(large.queue.is_none(), "the chart takes the queue's place");
    }

    #[test]
    fn a_fleet_at_80x24_keeps_its_hosts_and_both_charts() {
        let plan = plan(Rect::new(0, 0, 80, 24), &sample::fleet(None));
        // Three hosts, the fleet row, the header and the borders.
        assert_eq!(plan.jobs.map(|r| r.height), Some(7));
        assert!(plan.throughput.is_some() && plan.latency.is_some());
        assert!(plan.device.is_none() && plan.table.is_none());
    }

    #[test]
    fn a_step_of_several_jobs_at_80x24_keeps_its_jobs_charts_and_device() {
        let plan = plan(Rect::new(0, 0, 80, 24), &sample::plan(None));
        assert!(plan.jobs.is_some() && plan.throughput.is_some() && plan.latency.is_some());
        // Its four jobs, a header and the total; the two disks' header and rows.
        assert_eq!(plan.jobs.map(|r| r.height), Some(8));
        assert_eq!(plan.device.map(|r| r.height), Some(5));
        assert!(plan.table.is_none() && plan.queue.is_none());
    }

    #[test]
    fn a_traced_bench_at_80x24_keeps_the_charts_the_trace_band_and_the_device_metrics() {
        let view = sample::bench_traced();
        let plan = plan(Rect::new(0, 0, 80, 24), &view);
        assert!(plan.throughput.is_some() && plan.latency.is_some());
        let trace = plan.trace.expect("the trace band");
        assert_eq!(trace.height, super::super::trace::rows_wanted(&view, 80));
        // The device panel's four rows of metrics in two columns, inside its borders.
        assert!(plan.device.is_some_and(|r| r.height >= 6));
        let large = super::plan(Rect::new(0, 0, 160, 50), &view);
        assert!(large.trace.is_some() && large.table.is_some() && large.queue.is_some());
    }

    #[test]
    fn monitor_keeps_the_table_longest() {
        let plan = plan(Rect::new(0, 0, 80, 12), &sample::monitor());
        assert!(plan.table.is_some());
        assert!(plan.throughput.is_none());
    }
}
