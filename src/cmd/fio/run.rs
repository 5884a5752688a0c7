//! Runs a fio invocation's plan: the session (`crate::drive`: the dashboard in a terminal,
//! status lines on stderr otherwise), then the report in fio's shape (`--output-format normal|json|json+|terse`) on stdout
//! or in `--output FILE`, and the exit code.

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;

use crate::drive::{Outputs, ReportTo, Run, drive};
use crate::fio::{FioInvocation, OutputFormat};
use crate::fleet::remote::Remote;
use crate::pinned::FileId;
use crate::record::RunRecord;
use crate::record::machine::{Secrets, redact_text, redact_value};
use crate::record::output::{self, Guard};
use crate::report::fio::FioReport;
use crate::report::headless::Headless;
use crate::serve::run::RunServe;

/// Runs the plan and reports it, as a fleet's remote side when `remote` is given (see
/// `crate::fleet::remote`).
///
/// # Errors
/// A usage error before anything runs (targets, outputs), or the run's failure (exit 1) after
/// the report is written.
pub(super) fn run_as(
    invocation: FioInvocation,
    remote: Option<&Remote>,
    notes_to: super::NotesTo,
) -> anyhow::Result<ExitCode> {
    let FioInvocation {
        mut plan,
        output_format,
        output: output_path,
        status_interval,
        group_reporting,
        percentiles,
        diskdash: mut flags,
        inputs,
        given,
        notes: load_notes,
        ..
    } = invocation;
    let silent = notes_to == super::NotesTo::Report;
    if remote.is_some() {
        flags.jsonl = Some("-".into());
    }
    if let Some(interval) = status_interval {
        for job in plan.steps.iter_mut().flat_map(|s| &mut s.jobs) {
            job.spec.interval = interval.get();
        }
    }
    // `--output FILE`: made before anything runs, like fio. It replaces an empty file, a fio
    // report or a diskdash record, anything else only with --force; never a link, a device,
    // another name of a file, a job's target, a job file of this run or the record's file.
    let target_ids = target_ids(&plan);
    // `--redact`: the record is redacted by the session; the report also echoes the options as
    // given (`job options`), so it loses the jobs' files and the job files too.
    let secrets = flags.redact.then(|| {
        let mut secrets = crate::record::machine::process_secrets();
        for job in plan.steps.iter().flat_map(|s| &s.jobs) {
            for path in job.target.iter().chain(&job.clones) {
                secrets.add_target(&path.to_string_lossy());
            }
        }
        secrets
    });
    // Every place the run writes by name, with what it is: a report, a record or a log at
    // a job's file (made by the run later, or there now) would interleave with the I/O.
    let mut claimed: Vec<(String, std::path::PathBuf)> = Vec::new();
    for job in plan.steps.iter().flat_map(|s| &s.jobs) {
        for path in job.target.iter().chain(&job.clones) {
            claimed.push((format!("job {}'s file", job.name), path.clone()));
            // A link (even one leading nowhere yet) writes where it leads.
            if let Ok(to) = std::fs::read_link(path) {
                claimed.push((
                    format!(
                        "job {}'s file (through the link {})",
                        job.name,
                        path.display()
                    ),
                    output::parent_dir(path).join(to),
                ));
            }
        }
    }
    for (flag, path) in [
        ("--json", &flags.json),
        ("--jsonl", &flags.jsonl),
        ("--output", &output_path),
    ] {
        let Some(path) = path.as_deref().filter(|p| p.as_os_str() != "-") else {
            continue;
        };
        if let Some((what, _)) = claimed
            .iter()
            .find(|(_, other)| output::same_place(path, other))
        {
            return Err(crate::error::usage!(
                "{flag} {} is also {what}; give them different files",
                crate::text::escape(&path.display().to_string())
            ));
        }
        // A job file of this run is never an output, --force or not.
        if std::fs::metadata(path).is_ok_and(|m| {
            inputs.contains(&FileId {
                dev: m.dev(),
                ino: m.ino(),
            })
        }) {
            let what = if flag == "--output" {
                "the report"
            } else {
                "the record"
            };
            return Err(crate::error::usage!(
                "{flag} {} is a job file of this run; write {what} elsewhere",
                crate::text::escape(&path.display().to_string())
            ));
        }
        claimed.push((format!("{flag}'s file"), path.to_path_buf()));
    }
    // `--output=/dev/null`, fio's idiom for a report nobody reads: the null device itself
    // (checked as that character device), the one carve-out from the output gate.
    let null_sink = match output_path.as_deref() {
        Some(path) if path == std::path::Path::new("/dev/null") => Some(open_null()?),
        _ => None,
    };
    let out_file = match &output_path {
        Some(_) if null_sink.is_some() => None,
        Some(path) => {
            let guard = Guard {
                targets: &target_ids,
                other_output: None,
                force: flags.force,
                in_use: crate::bench::blockdev::file_in_use,
            };
            Some(output::open_report("--output", path, guard, &inputs)?)
        }
        None => None,
    };
    let out_id = out_file.as_ref().map(|(_, id, _)| *id);
    // An earlier report at the name is emptied at the first write; a report file this run
    // made is removed if the command fails before writing it.
    let (out_file, report_made) = match out_file {
        Some((file, _, output::Replacing::Made(made))) => (Some((file, false)), Some(made)),
        Some((file, _, output::Replacing::Existing)) => (Some((file, true)), None),
        None => (null_sink.map(|file| (file, false)), None),
    };
    // fio's log files: made now, so a bad name fails before anything runs.
    let log_gate = crate::fio::logs::LogGuard {
        guard: Guard {
            targets: &target_ids,
            other_output: out_id,
            force: flags.force,
            in_use: crate::bench::blockdev::file_in_use,
        },
        inputs: &inputs,
        claimed,
    };
    let logs = crate::fio::logs::LogWriter::open(&mut plan, &given, log_gate)?;
    let annotate = early_notes(silent, &load_notes);
    let outputs = Outputs {
        json: flags.json.clone(),
        jsonl: flags.jsonl.clone(),
        allow_destructive: flags.allow_destructive,
        force: flags.force,
        redact: flags.redact,
        record_serial: flags.record_serial,
        trace: flags.trace,
    };
    let out_file = Arc::new(std::sync::Mutex::new(out_file));
    let to = crate::drive::report_to(&outputs);
    // fio's `--status-interval`: the full report of the run so far, each interval, where the
    // final one goes; not on a dashboard's screen (a report in `--output FILE` still is).
    let on_screen = output_path.is_none()
        && crate::drive::wants_dashboard(
            flags.no_tui,
            &outputs,
            crate::tui::terminal::is_interactive(),
        );
    let status_sink = (status_interval.is_some() && remote.is_none() && !on_screen).then(|| {
        let out_file = out_file.clone();
        let output_path = output_path.clone();
        let given = given.clone();
        let percentiles = percentiles.clone();
        let status_secrets = secrets.clone();
        crate::session::StatusSink(Arc::new(std::sync::Mutex::new(
            move |record: &RunRecord| {
                let report = FioReport {
                    group_reporting,
                    percentiles: percentiles.as_deref(),
                    bins: output_format == OutputFormat::JsonPlus,
                    given: Some(&given),
                };
                // A failing write shows on the final report's.
                if let Ok(text) = render(record, output_format, &report, status_secrets.as_ref()) {
                    let _ = write_report(&out_file, output_path.as_deref(), to, &text);
                }
            },
        )))
    });
    let serve = RunServe::bind(
        flags.serve.as_deref(),
        flags.serve_linger.as_deref(),
        "diskdash fio",
    )?;
    let run = Run {
        plan,
        outputs,
        no_tui: flags.no_tui,
        headless: if silent {
            Headless::Silent
        } else {
            Headless::Plan("diskdash fio")
        },
        serve,
        remote,
        latency_target: None,
        annotate,
        interval_sink: None,
        status_sink,
        trust: crate::analysis::trust::TrustLimits::default(),
    };
    drive(run, |outcome, to| {
        // The workers have written their logs, also of a run that failed or was interrupted;
        // one that could not be written fails the command after the report (exit 1).
        let log_error = logs.and_then(|mut writer| writer.finish().err());
        let report = FioReport {
            group_reporting,
            percentiles: percentiles.as_deref(),
            bins: output_format == OutputFormat::JsonPlus,
            given: Some(&given),
        };
        let text = render(&outcome.record, output_format, &report, secrets.as_ref())?;
        write_report(&out_file, output_path.as_deref(), to, &text)?;
        if let Some(made) = report_made {
            made.keep();
        }
        if let Some(why) = log_error {
            anyhow::bail!("writing fio's log files: {why}");
        }
        Ok(())
    })
}

/// The notes made before the run (loading the job files, opening the logs): on stderr as
/// they come (the loading's are there already), or, silent, first among the record's notes,
/// which the report shows.
/// The files of the plan's jobs' targets that exist: what an output must not replace.
pub(super) fn target_ids(plan: &crate::plan::Plan) -> Vec<FileId> {
    plan.steps
        .iter()
        .flat_map(|s| &s.jobs)
        .filter_map(|j| j.target.as_deref())
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| FileId {
            dev: m.dev(),
            ino: m.ino(),
        })
        .collect()
}

fn early_notes(silent: bool, load_notes: &[String]) -> Option<crate::session::Annotate> {
    if !silent {
        return None;
    }
    let notes: Vec<String> = load_notes
        .iter()
        .map(|note| crate::error::one_line(note))
        .collect();
    (!notes.is_empty()).then(|| {
        crate::session::Annotate(Arc::new(move |record: &mut RunRecord| {
            record.notes.splice(0..0, notes.iter().cloned());
        }))
    })
}

/// Writes a report to `--output FILE` when given, else where `to` says.
///
/// # Errors
/// Writing `--output`.
fn write_report(
    out_file: &std::sync::Mutex<Option<(std::fs::File, bool)>>,
    output_path: Option<&std::path::Path>,
    to: ReportTo,
    text: &str,
) -> anyhow::Result<()> {
    let mut file = out_file
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match (file.as_mut(), output_path, to) {
        (Some((file, to_empty)), Some(path), _) => {
            // The earlier report at the name goes at the first write, not before the run.
            if std::mem::take(to_empty) {
                file.set_len(0)
                    .with_context(|| format!("writing --output {}", path.display()))?;
            }
            file.write_all(text.as_bytes())
                .and_then(|()| file.flush())
                .with_context(|| format!("writing --output {}", path.display()))?;
        }
        (_, _, ReportTo::Stderr) => {
            // stdout carries the data: the report goes beside the status lines.
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(text.as_bytes());
        }
        (_, _, ReportTo::Stdout) => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
    }
    Ok(())
}

/// `/dev/null` opened for writing, if it is the null device (character device 1:3).
fn open_null() -> anyhow::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .context("opening /dev/null for --output")?;
    let meta = file.metadata().context("reading /dev/null")?;
    use std::os::unix::fs::FileTypeExt;
    if !meta.file_type().is_char_device() || meta.rdev() != libc::makedev(1, 3) {
        return Err(crate::error::usage!(
            "--output /dev/null is not the null device here; give a file name"
        ));
    }
    Ok(file)
}

/// The report in the format asked for.
pub(super) fn render(
    record: &RunRecord,
    format: OutputFormat,
    report: &FioReport<'_>,
    secrets: Option<&Secrets>,
) -> anyhow::Result<String> {
    let text = |text: String| match secrets {
        Some(secrets) => {
            let mut paths: Vec<&str> = secrets.paths.iter().map(String::as_str).collect();
            paths.sort_by_key(|p| std::cmp::Reverse(p.len()));
            redact_text(&text, secrets.host.as_deref(), &paths)
        }
        None => text,
    };
    Ok(match format {
        OutputFormat::Normal => text(crate::report::fio::text(record, report)),
        OutputFormat::Terse => text(crate::report::fio::terse(record, report)),
        OutputFormat::Json | OutputFormat::JsonPlus => {
            let document = crate::report::fio::json(record, report);
            // Written as typed, in fio's key order ("fio version" first); only a redacted one
            // goes through a `Value` (its keys then sorted).
            let mut text = match secrets {
                None => serde_json::to_string_pretty(&document),
                Some(secrets) => serde_json::to_value(document)
                    .map(|value| redact_value(value, secrets))
                    .and_then(|value| serde_json::to_string_pretty(&value)),
            }
            .context("writing the JSON report")?;
            text.push('\n');
            text
        }
    })
}
