//! fio's `create_only=1`: the setup phase alone. Each job's file is laid out (created when
//! missing, written with data when empty or short, as fio lays a file out before its job),
//! it stays,
//! nothing is measured, and the report is fio's with zero I/O (KDiskMark's prepare step reads
//! its `jobs`). A layout that fails or is interrupted removes a file it created.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::SystemTime;

use anyhow::Context;
use serde_json::json;

use super::NotesTo;
use crate::bench::fill::{FillOutcome, fill};
use crate::bench::target::Target;
use crate::fio::FioInvocation;
use crate::plan::{Job, Missing};
use crate::record::{CpuRecord, DirectionRecord, EngineRecord, JobRecord, RunRecord, SyncRecord};
use crate::report::fio::FioReport;
use crate::units::format_bytes;

/// Lays out every job's file, then prints the report (stdout, or `--output`).
///
/// # Errors
/// A usage error for a file that cannot be laid out, or the layout's failure.
pub(super) fn lay_out(invocation: &FioInvocation, notes_to: NotesTo) -> anyhow::Result<ExitCode> {
    let started = SystemTime::now();
    let interrupt = Arc::new(AtomicBool::new(false));
    crate::session::signals::raise_on_interrupt(&interrupt)?;
    let mut notes: Vec<String> = invocation
        .notes
        .iter()
        .map(|n| crate::error::one_line(n))
        .collect();
    for job in invocation.plan.steps.iter().flat_map(|s| &s.jobs) {
        for note in lay_out_job(job, invocation.diskdash.allow_destructive, &interrupt)? {
            if notes_to == NotesTo::Stderr {
                let _ = writeln!(std::io::stderr().lock(), "create_only: {note}");
            }
            notes.push(format!("create_only: {note}"));
        }
    }
    let record = laid_out_record(invocation, started, notes)?;
    let report = FioReport {
        group_reporting: invocation.group_reporting,
        percentiles: invocation.percentiles.as_deref(),
        bins: invocation.output_format == crate::fio::OutputFormat::JsonPlus,
        given: Some(&invocation.given),
    };
    let text = super::run::render(&record, invocation.output_format, &report, None)?;
    match invocation.output.as_deref() {
        None => super::print(&text),
        Some(path) if path == std::path::Path::new("/dev/null") => {}
        Some(path) => write_output(invocation, path, &text)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// One job's file laid out: what was done, and what opening it said, a line each.
fn lay_out_job(
    job: &Job,
    allow_destructive: bool,
    interrupt: &AtomicBool,
) -> anyhow::Result<Vec<String>> {
    let Some(path) = &job.target else {
        return Ok(vec![format!("job {}: no file to lay out", job.name)]);
    };
    let existing = std::fs::symlink_metadata(path).ok();
    let mut target = match &existing {
        None if matches!(job.missing, Missing::Create { .. }) => {
            let mut target = crate::bench::target::create(&job.spec, path, false, &job.name)
                .with_context(|| format!("job {}", job.name))?;
            target
                .lay_out()
                .with_context(|| format!("job {}", job.name))?;
            target
        }
        // An empty regular file (KDiskMark makes its file before it runs fio) is written with
        // data as a new one; a short one is laid out again to the job's size, as fio does,
        // when it is diskdash's own (its mark) or the opt-in allows: data of someone else's
        // is refused as for any write. Either is marked as diskdash's.
        Some(meta) if meta.file_type().is_file() && meta.len() < job.spec.size_bytes => {
            let mut spec = job.spec.clone();
            spec.rw = crate::bench::spec::RwMode::Write;
            let mut target = crate::bench::target::open_as(
                &spec,
                Some(path),
                allow_destructive,
                Some(&job.name),
            )
            .with_context(|| format!("job {}", job.name))?;
            target.working_set_bytes = job.spec.size_bytes;
            target.extent_bytes = job.spec.size_bytes;
            target
        }
        _ => {
            return Ok(vec![format!(
                "job {}: {} exists; left as it is",
                job.name,
                path.display()
            )]);
        }
    };
    let mut said: Vec<String> = target
        .notes
        .iter()
        .map(|note| format!("job {}: {note}", job.name))
        .collect();
    said.push(fill_laid_out(job, path, &mut target, interrupt)?);
    Ok(said)
}

/// Writes the laid-out file with data; it stays from then on.
fn fill_laid_out(
    job: &Job,
    path: &std::path::Path,
    target: &mut Target,
    interrupt: &AtomicBool,
) -> anyhow::Result<String> {
    match fill(target, job.spec.direct, interrupt, |_, _| {}) {
        Ok(FillOutcome::Done) => {
            // Laid out: from now on the file stays (until now a drop removes it).
            target.keep_created();
            target.mark_laid_out();
            Ok(format!(
                "job {}: laid out {} ({}) with data; nothing measured",
                job.name,
                path.display(),
                format_bytes(target.extent_bytes)
            ))
        }
        Ok(FillOutcome::Stopped) => anyhow::bail!(
            "job {}: interrupted while laying out {}; a file this run created was removed",
            job.name,
            path.display()
        ),
        Err(fault) => anyhow::bail!("job {}: laying out {}: {fault}", job.name, path.display()),
    }
}

/// `--output FILE` for the report of a layout, through the same gate as a run's.
fn write_output(
    invocation: &FioInvocation,
    path: &std::path::Path,
    text: &str,
) -> anyhow::Result<()> {
    let targets = super::run::target_ids(&invocation.plan);
    let guard = crate::record::output::Guard {
        targets: &targets,
        other_output: None,
        force: invocation.diskdash.force,
        in_use: crate::bench::blockdev::file_in_use,
    };
    let (mut file, _, replacing) =
        crate::record::output::open_report("--output", path, guard, &invocation.inputs)?;
    file.set_len(0)
        .and_then(|()| file.write_all(text.as_bytes()))
        .with_context(|| format!("writing --output {}", path.display()))?;
    if let crate::record::output::Replacing::Made(made) = replacing {
        made.keep();
    }
    Ok(())
}

/// The record of a layout: every job with zero I/O, its notes, what fio reports for a
/// `create_only` run.
fn laid_out_record(
    invocation: &FioInvocation,
    started: SystemTime,
    notes: Vec<String>,
) -> anyhow::Result<RunRecord> {
    let jobs: Vec<&Job> = invocation.plan.steps.iter().flat_map(|s| &s.jobs).collect();
    let first = jobs.first().context("create_only: no job to lay out")?;
    let idle = serde_json::to_value(DirectionRecord::default())?;
    let sync = serde_json::to_value(SyncRecord::default())?;
    let cpu = serde_json::to_value(CpuRecord::default())?;
    let target = |job: &Job| {
        json!({"path": job.target.as_deref().map(|p| p.display().to_string()).unwrap_or_default(),
            "kind": "file", "working_set_bytes": job.spec.size_bytes, "dio_align_bytes": 0,
            "preconditioned": true, "scratch_removed": false, "notes": []})
    };
    let step_jobs: Vec<serde_json::Value> = jobs
        .iter()
        .map(|job| {
            json!({"name": job.name, "group": job.group, "job": JobRecord::from(&job.spec),
                "target": target(job), "device": null, "status": "completed", "error": null,
                "elapsed_ns": 0, "read": idle, "write": idle, "sync": sync, "retries": 0,
                "cpu": cpu})
        })
        .collect();
    let first_job = JobRecord::from(&first.spec);
    let step = json!({"index": 0, "status": "completed", "job": first_job,
        "engine": first.spec.ioengine.as_str(), "elapsed_ns": 0, "read": idle, "write": idle,
        "sync": sync, "retries": 0, "cpu": cpu, "series_stride": 1, "series": [],
        "device": null, "jobs": step_jobs, "devices": []});
    let record = json!({"format": crate::record::FORMAT,
        "format_version": crate::record::FORMAT_VERSION,
        "diskdash_version": env!("CARGO_PKG_VERSION"), "status": "completed", "error": null,
        "started_at": crate::record::rfc3339_utc(started),
        "ended_at": crate::record::rfc3339_utc(SystemTime::now()),
        "host": {"hostname": "", "kernel": "", "cpus": 0, "memory_bytes": 0},
        "job": first_job, "engine": EngineRecord::default(), "target": target(first),
        "device": null, "latency_definition": crate::record::LATENCY_DEFINITION,
        "elapsed_ns": 0, "read": idle, "write": idle, "sync": sync, "retries": 0, "cpu": cpu,
        "segments": [step], "warnings": [], "notes": notes});
    serde_json::from_value(record).context("the record of a layout")
}
