//! `diskdash report RECORD... [-o FILE.html]`: one self-contained HTML page of the records
//! (`crate::html`); `--format svg --chart NAME` one chart; `--list-charts` the charts' names.
//! The records are read by `show`'s and `compare`'s loaders, with their one-line errors.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use crate::cli::{ReportArgs, ReportFormat};
use crate::html::{Input, Section};

/// Loads every record, draws, and writes the page, the chart or the list.
///
/// # Errors
/// A record that is not diskdash's, truncated or of a future format; a chart the records
/// cannot draw; no `-o` with stdout a terminal (usage errors); the output not writable.
pub fn run(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    check_flags(args)?;
    let inputs = args
        .records
        .iter()
        .map(|p| load(p, args.redact))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let sections = crate::html::sections(&inputs, args.redact);
    if args.list_charts {
        let mut out = String::new();
        for (name, title) in crate::html::chart_names(&sections) {
            out.push_str(&format!("{name}\t{title}\n"));
        }
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(out.as_bytes())?;
        stdout.flush()?;
        // What the page would say in the chart's place, so the list holds only what draws.
        for (name, why) in crate::html::charts_not_drawn(&sections) {
            eprintln!("report: {name} not drawn: {why}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let text = match args.format {
        ReportFormat::Html => crate::html::page(&title(&inputs), &sections),
        // The comment names the file as diskdash's, so the output gate lets a rerun replace it.
        ReportFormat::Svg => format!(
            "<!-- diskdash report -->\n{}",
            chart(&sections, args.chart.as_deref().unwrap_or_default())?
        ),
    };
    match &args.output {
        // The one output gate: an existing file is replaced only when it is diskdash's (a
        // report or a record) or with --force, never a device, a hard link or a file in use.
        Some(path) => crate::record::output::RecordDestination::prepare(
            "-o",
            path,
            crate::record::output::Guard {
                targets: &[],
                other_output: None,
                force: args.force,
                in_use: crate::bench::blockdev::file_in_use,
            },
        )?
        .commit(text.as_bytes())?,
        None => {
            if std::io::stdout().is_terminal() {
                return Err(crate::error::usage!(
                    "report: stdout is a terminal; give -o FILE.{} to write the {}, or pipe it",
                    if args.format == ReportFormat::Svg {
                        "svg"
                    } else {
                        "html"
                    },
                    if args.format == ReportFormat::Svg {
                        "chart"
                    } else {
                        "page"
                    }
                ));
            }
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
            stdout.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn check_flags(args: &ReportArgs) -> anyhow::Result<()> {
    match (args.format, &args.chart) {
        (ReportFormat::Svg, None) if !args.list_charts => Err(crate::error::usage!(
            "report --format svg writes one chart: give --chart NAME (--list-charts names them)"
        )),
        (ReportFormat::Html, Some(name)) => Err(crate::error::usage!(
            "report --chart {name:?} picks a chart for --format svg; add --format svg, or leave \
             --chart out for the whole page"
        )),
        _ => Ok(()),
    }
}

/// A monitor recording by its header, anything else by the run loader (which names what is
/// wrong with it). `redact`: the record as `--redact` would have written it (host names,
/// paths and the command line gone; a fleet's hosts renamed `host 1`, `host 2`...), so that
/// nothing drawn from it (titles, legends, notes) shows them.
fn load(path: &Path, redact: bool) -> anyhow::Result<Input> {
    let shown = path.display().to_string();
    if crate::record::is_monitor_recording_file(path) {
        let mut recording = crate::record::load_recording(path)?;
        if redact {
            redact_recording(&mut recording);
        }
        return Ok(Input::Monitor {
            path: shown,
            recording,
        });
    }
    let (record, fleet) = if redact {
        load_redacted(path)?
    } else {
        match crate::record::load_any(path)? {
            crate::record::Loaded::Run(run) => (*run, None),
            crate::record::Loaded::Fleet(fleet) => {
                match crate::fleet::view::as_run_by_job(&fleet) {
                    Some(run) => (run, Some(fleet_facts(&fleet))),
                    // The loader's own error: no host sent its record back.
                    None => (crate::fleet::view::load_run(path)?, None),
                }
            }
        }
    };
    Ok(Input::Run {
        path: shown,
        record: Box::new(record),
        fleet,
    })
}

fn fleet_facts(fleet: &crate::record::FleetRecord) -> crate::html::Fleet {
    crate::html::Fleet {
        hosts: fleet.hosts.iter().map(|h| h.host.clone()).collect(),
        command: fleet.command.clone(),
    }
}

/// The run (or fleet, as one run of a job per host and job, and its hosts' names) in `path`,
/// redacted.
fn load_redacted(
    path: &Path,
) -> anyhow::Result<(crate::record::RunRecord, Option<crate::html::Fleet>)> {
    use crate::record::machine::{redact_run, redact_value, secrets_of};
    let (run, hosts) = match crate::record::load_any(path)? {
        crate::record::Loaded::Run(run) => (*run, None),
        crate::record::Loaded::Fleet(fleet) => {
            // Each host's name and its record's secrets, out of the whole fleet record.
            let mut value = serde_json::to_value(&*fleet)?;
            for host in &fleet.hosts {
                let mut secrets = host.record.as_deref().map(secrets_of).unwrap_or_default();
                for name in [
                    Some(&host.host),
                    host.record.as_ref().map(|r| &r.host.hostname),
                ]
                .into_iter()
                .flatten()
                {
                    secrets.host = Some(name.clone());
                    value = redact_value(value, &secrets);
                }
            }
            let mut fleet: crate::record::FleetRecord = serde_json::from_value(value)?;
            for (i, host) in fleet.hosts.iter_mut().enumerate() {
                host.host = format!("host {}", i + 1);
                if let Some(record) = host.record.take() {
                    host.record = Some(Box::new(redact_run(*record)?));
                }
            }
            match crate::fleet::view::as_run_by_job(&fleet) {
                Some(run) => (run, Some(fleet_facts(&fleet))),
                // The loader's own error: no host sent its record back.
                None => return Ok((crate::fleet::view::load_run(path)?, None)),
            }
        }
    };
    Ok((redact_run(run)?, hosts))
}

/// A monitor recording's host name and the paths of this command out of what is drawn.
fn redact_recording(recording: &mut crate::record::monitor::Recording) {
    let mut secrets = crate::record::machine::process_secrets();
    let mut paths: Vec<&str> = secrets.paths.iter().map(String::as_str).collect();
    paths.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let hosts: Vec<String> = recording
        .headers
        .iter()
        .map(|h| h.host.hostname.clone())
        .chain(secrets.host.take())
        .collect();
    let redact = |text: &str| {
        hosts.iter().fold(text.to_string(), |t, host| {
            crate::record::machine::redact_text(&t, Some(host), &paths)
        })
    };
    for note in &mut recording.notes {
        *note = redact(note);
    }
    for header in &mut recording.headers {
        crate::record::machine::REDACTED.clone_into(&mut header.host.hostname);
    }
}

/// The page's title: the record in one line; several: how many runs are compared and how
/// many monitor recordings are drawn.
fn title(inputs: &[Input]) -> String {
    let runs = inputs
        .iter()
        .filter(|i| matches!(i, Input::Run { .. }))
        .count();
    let recordings = inputs.len() - runs;
    let what = match inputs {
        [Input::Run { record, fleet, .. }] => {
            crate::html::title::describe(record, fleet.as_ref().map(|f| f.hosts.as_slice()))
        }
        [Input::Monitor { recording, .. }] => monitor_title(recording),
        _ => {
            let runs = match runs {
                0 => String::new(),
                1 => "1 run".to_string(),
                n => format!("{n} runs compared"),
            };
            let recordings = match recordings {
                0 => String::new(),
                1 => "1 monitor recording".to_string(),
                n => format!("{n} monitor recordings"),
            };
            [runs, recordings]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" and ")
        }
    };
    format!("diskdash report: {what}")
}

/// `monitor recording of 3600 samples of 10 disks over 1:00:00`: the time from the first
/// sample's window's start to the last's end.
fn monitor_title(recording: &crate::record::monitor::Recording) -> String {
    let mut disks: Vec<&str> = Vec::new();
    for disk in recording.samples.iter().flat_map(|s| &s.disks) {
        if !disks.contains(&disk.name.as_str()) {
            disks.push(&disk.name);
        }
    }
    let span = match (recording.samples.first(), recording.samples.last()) {
        (Some(first), Some(last)) => {
            let ns = last
                .unix_ns
                .saturating_sub(first.unix_ns.saturating_sub(first.window_ns));
            let secs = ns as f64 / 1e9;
            let secs = if secs >= 10.0 {
                secs.round()
            } else {
                (secs * 10.0).round() / 10.0
            };
            format!(
                " over {}",
                crate::html::chart::format(crate::html::chart::Unit::Seconds, secs)
            )
        }
        _ => String::new(),
    };
    format!(
        "monitor recording of {} sample{} of {} disk{}{span}",
        recording.samples.len(),
        if recording.samples.len() == 1 {
            ""
        } else {
            "s"
        },
        disks.len(),
        if disks.len() == 1 { "" } else { "s" }
    )
}

/// The SVG of the chart named `name`.
fn chart(sections: &[Section], name: &str) -> anyhow::Result<String> {
    let figure = sections
        .iter()
        .flat_map(|s| s.figures.iter())
        .find(|f| f.name == name);
    match figure {
        Some(f) => f
            .svg
            .clone()
            .map_err(|why| crate::error::usage!("report --chart {name}: not drawn: {why}")),
        None => {
            let names: Vec<String> = crate::html::chart_names(sections)
                .into_iter()
                .map(|c| c.0)
                .collect();
            Err(crate::error::usage!(
                "report --chart {:?}: the records draw no such chart; they draw {}",
                crate::text::escape(name),
                names.join(", ")
            ))
        }
    }
}
