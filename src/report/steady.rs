//! Steady state and the sustained-write cliff as text: the headless lines when a job attains
//! or leaves steady state or its writes fall off a cliff, and the summary's lines.

use std::fmt::Write as _;

use crate::record::{RunRecord, SteadyStateRecord, SustainedWriteRecord};
use crate::session::{SteadyView, SustainedView};
pub use crate::stats::steady::criterion_value;
use crate::stats::steady::mib;

/// `steady state attained at 12.0s: iops_slope 0.21% < 0.3% over the last 30 s; stopping`.
#[must_use]
pub fn attained_line(job: &str, view: &SteadyView) -> String {
    let c = &view.spec.criterion;
    let at = view.attained_at.map_or(0.0, |d| d.as_secs_f64());
    let value = view.last.map_or(0.0, |e| e.value);
    format!(
        "{job}steady state attained at {at:.1}s: {} {} < {} over the last {} s; {}",
        c.name(),
        criterion_value(c, value),
        criterion_value(c, c.limit),
        view.spec.dur.as_secs(),
        if view.spec.keep_going {
            "keeping going to the runtime"
        } else {
            "stopping"
        }
    )
}

/// `steady state left at 45.0s: iops_slope 0.52% >= 0.3% (3 s out of it so far)`.
#[must_use]
pub fn departure_line(job: &str, view: &SteadyView) -> Option<String> {
    let d = view.last_departure?;
    let c = &view.spec.criterion;
    Some(format!(
        "{job}steady state left at {:.1}s: {} {} >= {} ({} sample{} out of it so far)",
        d.end_ns as f64 / 1e9,
        c.name(),
        criterion_value(c, d.value),
        criterion_value(c, c.limit),
        view.departures,
        if view.departures == 1 { "" } else { "s" }
    ))
}

/// `write cliff at 8.10 GiB written (41.0s): 1.20 GiB/s -> 310.0 MiB/s (-74%)`.
#[must_use]
pub fn cliff_line(job: &str, view: &SustainedView) -> Option<String> {
    let c = view.cliff?;
    Some(format!(
        "{job}write cliff at {:.2} GiB written ({:.1}s): {}/s -> {}/s ({:+.0}%)",
        c.written_bytes as f64 / f64::from(1u32 << 30),
        c.at_ns as f64 / 1e9,
        mib(c.before_bytes_per_s),
        mib(c.after_bytes_per_s),
        change_pct(c.before_bytes_per_s, c.after_bytes_per_s)
    ))
}

fn change_pct(before: f64, after: f64) -> f64 {
    if before > 0.0 {
        100.0 * (after - before) / before
    } else {
        0.0
    }
}

/// The summary's lines: per step and job, its steady state and its sustained writes.
#[must_use]
pub fn summary_lines(record: &RunRecord) -> String {
    let mut out = String::new();
    let many = record.steps.len() > 1 || record.steps.iter().any(|s| s.jobs.len() > 1);
    for step in &record.steps {
        for job in &step.jobs {
            let who = if many {
                format!("seg {} {}: ", step.index + 1, job.name)
            } else {
                String::new()
            };
            if let Some(ss) = &job.steadystate {
                let _ = writeln!(out, "  steady  {who}{}", steady_summary(ss));
            }
            if let Some(writes) = &job.sustained_write {
                let _ = writeln!(out, "  writes  {who}{}", sustained_summary(writes));
            }
        }
    }
    out
}

/// `iops_slope:0.3% over 30 s: attained at 42.0s (0.21%), the run stopped`.
#[must_use]
pub fn steady_summary(ss: &SteadyStateRecord) -> String {
    let criterion = ss.ss.replace(".000000", "");
    let mut text = format!("{criterion} over {} s: ", ss.duration);
    match ss.attained_at_ns {
        Some(at) => {
            let _ = write!(
                text,
                "attained at {:.1}s ({})",
                at as f64 / 1e9,
                ss.criterion
            );
            if ss.stopped_run {
                text += ", the run stopped";
            }
            if ss.keep_going {
                let _ = write!(
                    text,
                    ", then {} sample{} out of it",
                    ss.departure_count,
                    if ss.departure_count == 1 { "" } else { "s" }
                );
            }
        }
        None if ss.data.iops.len() < window_samples(ss) => {
            let _ = write!(
                text,
                "not attained (the window never filled: {} of {} samples)",
                ss.data.iops.len(),
                window_samples(ss)
            );
        }
        None => {
            let _ = write!(text, "not attained (last window {})", ss.criterion);
        }
    }
    text
}

fn window_samples(ss: &SteadyStateRecord) -> usize {
    let sample_s = ss.sample_ns.max(1) as f64 / 1e9;
    (ss.duration as f64 / sample_s).round().max(2.0) as usize
}

/// `6.00 GiB written: cliff at 2.10 GiB, 1.20 GiB/s -> 310.0 MiB/s (-74%)`.
#[must_use]
pub fn sustained_summary(writes: &SustainedWriteRecord) -> String {
    let gib = writes.written_bytes as f64 / f64::from(1u32 << 30);
    match &writes.cliff {
        Some(c) => format!(
            "{gib:.2} GiB written: cliff at {:.2} GiB ({:.1}s), {:.1} MiB/s -> {:.1} MiB/s ({:+.0}%)",
            c.gib_written,
            c.t_ns as f64 / 1e9,
            c.before_mib_s,
            c.after_mib_s,
            change_pct(c.before_mib_s, c.after_mib_s)
        ),
        None => format!(
            "{gib:.2} GiB written: no cliff (no drop of more than {}% that stayed down)",
            writes.threshold_pct
        ),
    }
}
