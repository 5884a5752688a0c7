//! Pure render functions: `View` in, cells out. One panel per file.
//!
//! ```text
//! +--------------------------------------------------------------+
//! | header.rs      host, kernel, target (disk), engine, job, time |
//! +--------------------------------------------------------------+
//! | jobs.rs   a step's jobs (when several) or a fleet's hosts;   |
//! |           the selected row is what the charts show           |
//! | steady.rs, verify.rs  one line each: steady state, --verify   |
//! +--------------------------------+-----------------------------+
//! | throughput.rs  IOPS + MiB/s     | latency.rs  percentiles +   |
//! |   over time, step markers       |   log-bucket histogram      |
//! | sustained.rs  write MiB/s against GiB written, the cliff      |
//! | trace.rs   bench --trace: the app's mean taken apart, the     |
//! |   app's, device's and whole request's percentiles             |
//! +--------------------------------+-----------------------------+
//! | device.rs  iostat -x metrics,   | queue.rs  sysfs queue       |
//! |   history, reconciliation, warn |   settings                  |
//! +--------------------------------+-----------------------------+
//! | table.rs   all disks, iostat -x columns, select + sort        |
//! | top.rs     the monitor's --trace: processes by I/O on the disk |
//! +--------------------------------------------------------------+
//! | a sweep: sweep.rs its points' results (under the charts) and  |
//! |   sweep_chart.rs a metric against the swept parameter         |
//! +--------------------------------------------------------------+
//! | footer.rs  keys, last action        help.rs: `?` overlay      |
//! +--------------------------------------------------------------+
//! ```
//! [`layout`] decides which panels fit and where.

pub(crate) mod device;
pub(crate) mod fmt;
pub(crate) mod footer;
pub(crate) mod header;
pub(crate) mod heatmap;
pub(crate) mod help;
pub(crate) mod jobs;
pub(crate) mod latency;
pub(crate) mod layout;
pub(crate) mod queue;
/// Fixture snapshots for the snapshot tests, integration tests and benches.
#[cfg(any(test, feature = "fixtures"))]
pub mod sample;
pub(crate) mod steady;
pub(crate) mod sustained;
pub(crate) mod sweep;
pub(crate) mod sweep_chart;
pub(crate) mod table;
pub(crate) mod theme;
pub(crate) mod throughput;
pub(crate) mod top;
pub(crate) mod trace;
pub(crate) mod verify;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_narrow;

use ratatui::Frame;

use crate::tui::view::View;

/// Draws the whole dashboard into the frame.
pub fn render(f: &mut Frame, view: &View) {
    let area = f.area();
    let plan = layout::plan(area, view);
    header::render(f, plan.header, view);
    if let Some(r) = plan.jobs {
        jobs::render(f, r, view);
    }
    if let Some(r) = plan.throughput {
        throughput::render(f, r, view);
    }
    if let Some(r) = plan.latency {
        latency::render(f, r, view);
    }
    if let Some(r) = plan.device {
        device::render(f, r, view);
    }
    if let Some(r) = plan.queue {
        queue::render(f, r, view);
    }
    if let Some(r) = plan.table {
        table::render(f, r, view);
    }
    if let Some(r) = plan.sweep {
        sweep::render(f, r, view);
    }
    if let Some(r) = plan.sweep_chart {
        sweep_chart::render(f, r, view);
    }
    if let Some(r) = plan.steady {
        steady::render(f, r, view);
    }
    if let Some(r) = plan.verify {
        verify::render(f, r, view);
    }
    if let Some(r) = plan.sustained {
        sustained::render(f, r, view);
    }
    if let Some(r) = plan.top {
        top::render(f, r, view);
    }
    if let Some(r) = plan.trace {
        trace::render(f, r, view);
    }
    footer::render(f, plan.footer, view);
    help::render(f, area, view);
}
