//! `diskdash mark`: CrystalDiskMark's tests as a plan (`plan::mark`), run by the session
//! (`crate::drive`: the dashboard in a terminal, status lines on stderr otherwise), then the result laid out like
//! CrystalDiskMark's window (`report::mark`) on stdout, and the exit code.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use crate::bench::options::{self, Key};
use crate::bench::spec::MachineLimits;
use crate::cli::MarkArgs;
use crate::drive::{Outputs, ReportTo, Run, drive};
use crate::plan::mark::{MarkConfig, MarkTiming, RawMark, plan};
use crate::record::MarkFlagsRecord;
use crate::report::headless::Headless;
use crate::report::mark::{MarkFormat, MarkSettings, render, summarize};
use crate::session::{Annotate, DROP_CACHES};

/// `--flush-cache` (`Some(true)`), `--no-flush-cache` (`Some(false)`), or neither: the rule
/// set's.
fn flush_flag(args: &MarkArgs) -> Option<bool> {
    match (args.flush_cache, args.no_flush_cache) {
        (true, _) => Some(true),
        (false, true) => Some(false),
        (false, false) => None,
    }
}

/// Runs the profile and prints its table.
///
/// # Errors
/// A usage error before anything runs, or the run's failure (exit 1) after the table.
pub fn run(args: &MarkArgs) -> anyhow::Result<ExitCode> {
    // Whether this process may drop the page cache: KDiskMark's rules do where they can.
    let knob = std::fs::OpenOptions::new().write(true).open(DROP_CACHES);
    let config = MarkConfig::from_raw(RawMark {
        profile: &args.profile,
        mix: args.mix.as_deref(),
        loops: &args.loops,
        like: &args.like,
        pick: args.pick.as_deref(),
        pause: args.pause.as_deref(),
        mode: &args.mode,
        data: args.data.as_deref(),
        flush: flush_flag(args),
        can_flush: knob.is_ok(),
    })?;
    if args.flush_cache
        && let Err(err) = knob
    {
        // Checked before anything is written, so a run without root fails at once.
        anyhow::bail!(
            "--flush-cache: cannot open {DROP_CACHES} for writing: {err}; run diskdash mark as \
             root, or drop --flush-cache"
        );
    }
    let format = MarkFormat::parse(&args.format)?;
    let given = |key: Key| args.job.get(key).map(str::to_string);
    let default = |key: Key| key.row().default_for(options::MARK).to_string();
    let timing = MarkTiming {
        size: given(Key::Size),
        runtime: given(Key::Runtime).unwrap_or_else(|| default(Key::Runtime)),
        interval: given(Key::Interval).unwrap_or_else(|| default(Key::Interval)),
        extra: args
            .job
            .options
            .iter()
            .filter(|o| !matches!(o.key, Key::Size | Key::Runtime | Key::Interval))
            .cloned()
            .collect(),
    };
    let plan = plan(
        &config,
        &timing,
        args.target.clone(),
        &MachineLimits::detect(),
    )?;
    let rules_text = config.rules.describe();
    let flags = MarkFlagsRecord {
        profile: args.profile.clone(),
        like: args.like.clone(),
        mix: args.mix.clone(),
        mode: args.mode.clone(),
        loops: args.loops.clone(),
        pick: args.pick.clone(),
        pause: args.pause.clone(),
        data: args.data.clone(),
        flush_cache: args.flush_cache,
        no_flush_cache: args.no_flush_cache,
        page_cache: Some(config.rules.flush.name().to_owned()),
    };
    let run = Run {
        plan,
        outputs: Outputs {
            json: args.json.clone(),
            jsonl: None,
            allow_destructive: args.allow_destructive,
            force: args.force,
            redact: args.share.redact,
            record_serial: args.share.record_serial,
            trace: args.trace,
        },
        no_tui: args.no_tui,
        headless: Headless::Plan("diskdash mark"),
        serve: None,
        remote: None,
        latency_target: None,
        // The record says whose rules its numbers are to be read by, and the flags that lay
        // out its window again (`show --text`).
        annotate: Some(Annotate(Arc::new(move |record| {
            record.notes.push(format!("diskdash mark: {}", rules_text));
            record.mark = Some(flags.clone());
        }))),
        interval_sink: None,
        status_sink: None,
        trust: crate::cmd::flags::trust(&args.trust)?,
    };
    let settings = MarkSettings::of(&config);
    drive(run, |outcome, to| {
        let summary = summarize(&outcome.record, &settings);
        let text = render(&summary, format);
        if to == ReportTo::Stderr {
            // stdout carries the record; the table goes beside the status lines.
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
        } else {
            // A terminal gets the window fitted to its width; a pipe or a file the whole table.
            let stdout = std::io::stdout();
            let text = match crate::report::fit::terminal_width(&stdout) {
                Some(width) if format == MarkFormat::Table => {
                    crate::text::escape_layout(&crate::report::mark::table_fitted(&summary, width))
                        .into_owned()
                }
                _ => text,
            };
            let mut stdout = stdout.lock();
            let _ = stdout.write_all(text.as_bytes());
            let _ = stdout.flush();
        }
        Ok(())
    })
}
