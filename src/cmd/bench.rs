//! `diskdash bench`: the flags as options (in the order clap defines them; a flag not given
//! keeps the validator's default) through the one validator, then the session (`crate::drive`:
//! the dashboard in a terminal or status lines on stderr), the summary and the exit code.

use std::io::Write;
use std::process::ExitCode;

use crate::bench::spec::MachineLimits;
use crate::cli::BenchArgs;
use crate::drive::{Outputs, ReportTo, Run, drive};
use crate::fleet::remote::Remote;
use crate::plan::{Job, Plan};
use crate::report::fit;
use crate::report::headless::Headless;
use crate::serve::run::RunServe;

/// `diskdash bench`: headless when `--no-tui` or stdout is not a terminal (the dashboard
/// drives the same session otherwise).
pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    run_as(args, None)
}

/// `bench`, or `bench` as a fleet's remote side (`remote`: JSON Lines on stdout, the start
/// from stdin, the record as the last line).
pub(crate) fn run_as(args: &BenchArgs, remote: Option<&Remote>) -> anyhow::Result<ExitCode> {
    let spec = super::flags::job(args, &MachineLimits::detect())?;
    if args.trace.as_deref() == Some("full") {
        crate::trace::set_detail(crate::trace::Detail::Full);
    }
    let serve = RunServe::bind(
        args.publish.serve.as_deref(),
        args.publish.serve_linger.as_deref(),
        "diskdash bench",
    )?;
    let run = Run {
        plan: Plan::single(Job::bench("bench", spec, args.target.clone())),
        outputs: Outputs {
            json: args.json.clone(),
            jsonl: args.jsonl.clone(),
            allow_destructive: args.allow_destructive,
            force: args.force,
            redact: args.share.redact,
            record_serial: args.share.record_serial,
            trace: args.trace.is_some(),
        },
        no_tui: args.no_tui,
        headless: Headless::Bench,
        serve,
        remote,
        latency_target: None,
        annotate: None,
        interval_sink: None,
        status_sink: None,
        trust: crate::cmd::flags::trust(&args.trust)?,
    };
    drive(run, |outcome, to| {
        let summary = crate::report::bench::summary(&outcome.record);
        // A terminal narrower than a line gets it fitted; a pipe or a file gets it as it is.
        match to {
            ReportTo::Stderr => {
                // stdout carries the data; the summary goes beside the status lines.
                let stderr = std::io::stderr();
                let width = fit::terminal_width(&stderr);
                let mut stderr = stderr.lock();
                let _ = stderr.write_all(fit::text(&summary, width).as_bytes());
                let _ = stderr.flush();
            }
            ReportTo::Stdout => {
                let stdout = std::io::stdout();
                let width = fit::terminal_width(&stdout);
                let mut stdout = fit::Lines::new(stdout.lock(), width);
                let _ = stdout.write_all(summary.as_bytes());
                if let Some(path) = &args.json {
                    let _ = writeln!(
                        stdout,
                        "  record  {}",
                        crate::text::escape(&path.display().to_string())
                    );
                }
                let _ = stdout.flush();
            }
        }
        Ok(())
    })
}
