//! A fleet record read as one run (`diskdash show`, `diskdash compare`): the hosts ran at the
//! same time, so each host is a job of the run's steps (as the jobs of one fio step are),
//! the totals are the fleet's aggregate, and each interval point merges the hosts' points of
//! the same index (rates added, histograms merged bucket by bucket).

use std::collections::BTreeMap;

use super::merge::{Rates, merge_direction, merge_sync};
use crate::record::{
    DirectionRecord, FleetRecord, HostStatus, IntervalRecord, RunRecord, RunStatus, StepJobRecord,
    StepRecord, SyncRecord,
};

/// The fleet as one run; `None` when no host sent its record back (nothing to show but the
/// aggregate of partial results, which the fleet record itself holds).
#[must_use]
pub fn as_run(fleet: &FleetRecord) -> Option<RunRecord> {
    let with_records: Vec<(&str, &RunRecord)> = fleet
        .hosts
        .iter()
        .filter_map(|h| h.record.as_deref().map(|r| (h.host.as_str(), r)))
        .collect();
    let (_, first) = *with_records.first()?;
    let mut run = first.clone();
    let names: Vec<&str> = fleet.hosts.iter().map(|h| h.host.as_str()).collect();
    run.status = fleet.status;
    run.error = None;
    run.started_at.clone_from(&fleet.started_at);
    run.ended_at.clone_from(&fleet.ended_at);
    run.host.hostname = format!("fleet of {}: {}", names.len(), names.join(","));
    run.host.cpus = with_records.iter().map(|(_, r)| r.host.cpus).sum();
    run.host.memory_bytes = with_records.iter().map(|(_, r)| r.host.memory_bytes).sum();
    // The label the dashboard and `compare` show: the hosts, then the first host's target.
    run.target.path = format!("{}: {}", names.join(","), first.target.path);
    run.device = None;
    run.elapsed_ns = fleet.aggregate.elapsed_ns;
    run.stalled_ns = with_records
        .iter()
        .map(|(_, r)| r.stalled_ns)
        .max()
        .unwrap_or(0);
    run.read = fleet.aggregate.read.clone();
    run.write = fleet.aggregate.write.clone();
    run.trim = fleet.aggregate.trim.clone();
    run.sync = fleet.aggregate.sync.clone();
    run.retries = fleet
        .hosts
        .iter()
        .filter_map(|h| h.record.as_ref())
        .map(|r| r.retries)
        .sum();
    run.warnings = Vec::new();
    run.typed_warnings = Vec::new();
    for (host, record) in &with_records {
        run.warnings
            .extend(record.warnings.iter().map(|w| format!("{host}: {w}")));
    }
    run.notes = vec![format!(
        "fleet of {} hosts ({} measured): totals summed over the hosts, latency from their \
         histograms merged; each host is a job",
        names.len(),
        fleet.aggregate.hosts
    )];
    for h in &fleet.hosts {
        match (h.status, &h.error) {
            (HostStatus::Completed, _) => {}
            (status, why) => run.notes.push(format!(
                "{}: {}{}{}",
                h.host,
                match status {
                    HostStatus::Interrupted => "interrupted",
                    HostStatus::NotReady => "not ready, left out",
                    _ if h.partial => "failed, partial results (not in the segments)",
                    _ => "failed",
                },
                if why.is_some() { ": " } else { "" },
                why.as_deref().unwrap_or("")
            )),
        }
    }
    run.steps = (0..first.steps.len())
        .map(|s| step(s, &with_records))
        .collect();
    Some(run)
}

/// The fleet as one run whose jobs are each host's jobs: a host that ran one job is the job
/// named by the host (as [`as_run`] has it), a host that ran several is one job per job, named
/// `HOST: JOB`, each with its own interval series, steady state and write cliff (`report`
/// draws a line per host and job). The totals, the series and the devices are [`as_run`]'s.
#[must_use]
pub fn as_run_by_job(fleet: &FleetRecord) -> Option<RunRecord> {
    let mut run = as_run(fleet)?;
    let mut split = Vec::new();
    for (s, step) in run.steps.iter_mut().enumerate() {
        step.jobs = fleet
            .hosts
            .iter()
            .filter_map(|h| {
                let host_step = h.record.as_ref()?.steps.get(s)?;
                Some((h.host.as_str(), host_step))
            })
            .zip(std::mem::take(&mut step.jobs))
            .flat_map(|((host, host_step), host_job)| {
                if host_step.jobs.len() < 2 {
                    return vec![host_job];
                }
                if !split.contains(&host) {
                    split.push(host);
                }
                host_step
                    .jobs
                    .iter()
                    .map(|job| {
                        let mut job = job.clone();
                        job.name = format!("{host}: {}", job.name);
                        job.device = job.device.map(|d| format!("{host}:{d}"));
                        job
                    })
                    .collect()
            })
            .collect();
    }
    if !split.is_empty() {
        run.notes.push(format!(
            "{} ran several jobs each: a host's jobs are named HOST: JOB, each with its own \
             series",
            split.join(", ")
        ));
    }
    Some(run)
}

/// Step `s` of every host that has it, as one.
fn step(s: usize, hosts: &[(&str, &RunRecord)]) -> StepRecord {
    let parts: Vec<(&str, &StepRecord)> = hosts
        .iter()
        .filter_map(|(name, r)| r.steps.get(s).map(|own| (*name, own)))
        .collect();
    let mut merged = parts[0].1.clone();
    let reads: Vec<&DirectionRecord> = parts.iter().map(|(_, p)| &p.read).collect();
    let writes: Vec<&DirectionRecord> = parts.iter().map(|(_, p)| &p.write).collect();
    let syncs: Vec<&SyncRecord> = parts.iter().map(|(_, p)| &p.sync).collect();
    let trims: Vec<&DirectionRecord> = parts.iter().map(|(_, p)| &p.trim).collect();
    merged.read = merge_direction(&reads, Rates::Summed);
    merged.write = merge_direction(&writes, Rates::Summed);
    merged.trim = merge_direction(&trims, Rates::Summed);
    merged.sync = merge_sync(&syncs);
    merged.elapsed_ns = parts.iter().map(|(_, p)| p.elapsed_ns).max().unwrap_or(0);
    merged.retries = parts.iter().map(|(_, p)| p.retries).sum();
    merged.status = if parts.iter().all(|(_, p)| p.status == RunStatus::Completed) {
        RunStatus::Completed
    } else if parts.iter().any(|(_, p)| p.status == RunStatus::Failed) {
        RunStatus::Failed
    } else {
        RunStatus::Interrupted
    };
    merged.device = None;
    merged.devices = parts
        .iter()
        .flat_map(|(name, p)| {
            p.devices.iter().map(move |d| {
                let mut d = d.clone();
                d.name = format!("{name}:{}", d.name);
                d.disk = format!("{name}:{}", d.disk);
                d
            })
        })
        .collect();
    merged.jobs = parts.iter().map(|(name, p)| host_job(name, p)).collect();
    // Interval points of the same index, merged.
    let mut by_index: BTreeMap<u64, Vec<&IntervalRecord>> = BTreeMap::new();
    for (_, p) in &parts {
        for point in &p.series {
            by_index.entry(point.index).or_default().push(point);
        }
    }
    merged.series = by_index
        .into_values()
        .map(|points| merge_interval(&points))
        .collect();
    merged.series_stride = parts
        .iter()
        .map(|(_, p)| p.series_stride)
        .max()
        .unwrap_or(1);
    merged
}

/// A host's share of a step, as a job named by the host.
fn host_job(host: &str, step: &StepRecord) -> StepJobRecord {
    let first = step.jobs.first();
    StepJobRecord {
        verify: first.and_then(|j| j.verify.clone()),
        name: host.to_string(),
        group: 0,
        job: step.job.clone(),
        target: first.map_or_else(
            || crate::record::TargetRecord {
                path: String::new(),
                kind: String::new(),
                working_set_bytes: 0,
                dio_align_bytes: 0,
                preconditioned: false,
                scratch_removed: false,
                notes: Vec::new(),
            },
            |j| j.target.clone(),
        ),
        device: first
            .and_then(|j| j.device.as_ref())
            .map(|d| format!("{host}:{d}")),
        status: step.status,
        error: first.and_then(|j| j.error.clone()),
        elapsed_ns: step.elapsed_ns,
        read: step.read.clone(),
        write: step.write.clone(),
        sync: step.sync.clone(),
        trim: step.trim.clone(),
        retries: step.retries,
        continued: first.and_then(|j| j.continued),
        cpu_wait_ns_per_io: first.and_then(|j| j.cpu_wait_ns_per_io),
        cpu_wait_incl_pacing: first.is_some_and(|j| j.cpu_wait_incl_pacing),
        unexplained_ns_per_io: first.and_then(|j| j.unexplained_ns_per_io),
        cpu: step.cpu.clone(),
        // The host's threads are its own: no one thread id stands for them; its depth
        // tables are its first job's only when it ran one.
        pid: None,
        io_depths: match step.jobs.as_slice() {
            [only] => only.io_depths,
            _ => None,
        },
        steadystate: first.and_then(|j| j.steadystate.clone()),
        sustained_write: first.and_then(|j| j.sustained_write.clone()),
        clones: Vec::new(),
        latency_depth: first.and_then(|j| j.latency_depth),
        // The host's totals are its first job's only when it ran one.
        series: match step.jobs.as_slice() {
            [only] => only.series.clone(),
            _ => Vec::new(),
        },
    }
}

/// Points of the same interval on several hosts, as one: rates added, histograms merged.
///
/// # Panics
/// `points` is empty.
#[must_use]
pub fn merge_interval(points: &[&IntervalRecord]) -> IntervalRecord {
    let mut out = points[0].clone();
    let reads: Vec<&DirectionRecord> = points.iter().map(|p| &p.read).collect();
    let writes: Vec<&DirectionRecord> = points.iter().map(|p| &p.write).collect();
    let syncs: Vec<&SyncRecord> = points.iter().map(|p| &p.sync).collect();
    let trims: Vec<&DirectionRecord> = points.iter().map(|p| &p.trim).collect();
    out.read = merge_direction(&reads, Rates::Summed);
    out.write = merge_direction(&writes, Rates::Summed);
    out.sync = merge_sync(&syncs);
    out.trim = merge_direction(&trims, Rates::Summed);
    out.t_ns = points.iter().map(|p| p.t_ns).max().unwrap_or(0);
    out.duration_ns = points.iter().map(|p| p.duration_ns).max().unwrap_or(0);
    out.stalled_ns = points.iter().map(|p| p.stalled_ns).max().unwrap_or(0);
    // %util of several devices is not one number: the busiest host's row stands for them.
    out.device = points
        .iter()
        .filter_map(|p| p.device.as_ref())
        .max_by(|a, b| a.util_pct.total_cmp(&b.util_pct))
        .cloned();
    out.jobs = Vec::new();
    out
}

/// The run record in `path`; a fleet record as one run (its aggregate; `fleet::view`).
///
/// # Errors
/// As `record::load`, or a fleet record none of whose hosts sent its record back.
pub fn load_run(path: &std::path::Path) -> anyhow::Result<RunRecord> {
    load_with(path, as_run)
}

/// As [`load_run`], a fleet record as one run of a job per host and job ([`as_run_by_job`]):
/// what `compare` matches by name, so that a host that ran several jobs is compared job by
/// job, each on its own series, as `report` draws it.
///
/// # Errors
/// As [`load_run`].
pub fn load_run_by_job(path: &std::path::Path) -> anyhow::Result<RunRecord> {
    load_with(path, as_run_by_job)
}

fn load_with(
    path: &std::path::Path,
    view: fn(&FleetRecord) -> Option<RunRecord>,
) -> anyhow::Result<RunRecord> {
    match crate::record::load_any(path)? {
        crate::record::Loaded::Run(run) => Ok(*run),
        crate::record::Loaded::Fleet(fleet) => view(&fleet).ok_or_else(|| {
            crate::error::usage!(
                "{}: no host of this fleet record sent its run back; its aggregate of partial \
                 results is in the file's `aggregate`",
                path.display()
            )
        }),
    }
}
