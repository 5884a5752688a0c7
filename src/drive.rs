//! The session driver, written once for every command that runs a plan (`bench`, `fio`,
//! `sweep`, `mark`, and each as a fleet's remote side): the interrupt (Ctrl-C or the fleet's
//! `stop`), the start gate, `--serve`, the dashboard or the headless status lines, where the
//! report and `--json -` go, and the exit code. A command builds its plan and picks its report;
//! [`drive`] does the rest.
//!
//! Below the commands, above the front ends: it names `session`, `tui`, `report`, `serve` and
//! `fleet`, never a command, `cli` or clap.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;

use crate::fleet::remote::Remote;
use crate::plan::Plan;
use crate::record::{RunRecord, RunStatus};
use crate::report::headless::{self, Headless};
use crate::serve::run::RunServe;
use crate::session::{
    Annotate, IntervalSink, LatencyTarget, Session, SessionOptions, SessionOutcome, StartGate,
    StatusSink,
};

/// Where a run's results go.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    /// `--json`: the record (`-`: stdout, after the report, which then goes to stderr).
    pub json: Option<PathBuf>,
    /// `--jsonl`: the interval records (`-`: stdout; no dashboard then, the report to stderr).
    pub jsonl: Option<PathBuf>,
    /// `--allow-destructive`.
    pub allow_destructive: bool,
    /// `--force`: replace output files that are not diskdash's.
    pub force: bool,
    /// `--redact`: no host name, path or command line in the record.
    pub redact: bool,
    /// `--record-serial`: the disk's serial in the record beside its hash.
    pub record_serial: bool,
    /// `--trace`: the block layer's view of the disks in the record.
    pub trace: bool,
}

/// One run of a plan: what it runs, where its results go, and the front end.
pub struct Run<'a> {
    pub plan: Plan,
    pub outputs: Outputs,
    /// `--no-tui`: status lines even in a terminal.
    pub no_tui: bool,
    /// The status lines' shape when headless.
    pub headless: Headless,
    /// `--serve`, bound already (a taken port fails before the command prints anything).
    pub serve: Option<RunServe>,
    /// The fleet's remote side: its stop word is the interrupt, its start word the gate, the
    /// intervals go to stdout and the record is the stream's last line.
    pub remote: Option<&'a Remote>,
    /// A sweep's latency target.
    pub latency_target: Option<LatencyTarget>,
    /// What the command adds to the record before it is written.
    pub annotate: Option<Annotate>,
    /// fio's log files.
    pub interval_sink: Option<IntervalSink>,
    /// fio's `--status-interval` reports: the run so far, each time intervals close.
    pub status_sink: Option<StatusSink>,
    /// The limits the trust marks are judged by (`--trust-*`).
    pub trust: crate::analysis::trust::TrustLimits,
}

/// Where the command's report goes: stdout, or stderr when stdout carries data (`--json -`,
/// `--jsonl -`, a fleet's stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportTo {
    Stdout,
    Stderr,
}

fn is_stdout(path: Option<&PathBuf>) -> bool {
    path.is_some_and(|p| p.as_path() == Path::new("-"))
}

/// Whether the dashboard drives the session: a terminal on stdin and stdout, no `--no-tui`,
/// and stdout not a stream of interval records. A record on stdout (`--json -`) comes after
/// the dashboard closes, so it does not keep the dashboard away.
#[must_use]
pub fn wants_dashboard(no_tui: bool, outputs: &Outputs, interactive: bool) -> bool {
    !no_tui && !is_stdout(outputs.jsonl.as_ref()) && interactive
}

/// Where the report goes for these outputs.
#[must_use]
pub fn report_to(outputs: &Outputs) -> ReportTo {
    if is_stdout(outputs.json.as_ref()) || is_stdout(outputs.jsonl.as_ref()) {
        ReportTo::Stderr
    } else {
        ReportTo::Stdout
    }
}

/// Runs `run`'s plan to its end, writes the command's report (`report`, told where it goes),
/// then the record when `--json -`, and returns the exit code.
///
/// # Errors
/// A session that cannot start (a usage error for bad targets or outputs), a server or
/// front end that fails (the session is ended first, its record written), the report's error,
/// or the run's own failure (see [`exit_code`]).
pub fn drive(
    run: Run<'_>,
    report: impl FnOnce(&SessionOutcome, ReportTo) -> anyhow::Result<()>,
) -> anyhow::Result<ExitCode> {
    let Run {
        plan,
        mut outputs,
        no_tui,
        headless,
        serve,
        remote,
        latency_target,
        annotate,
        interval_sink,
        status_sink,
        trust,
    } = run;
    let interrupt = if let Some(remote) = remote {
        outputs.jsonl = Some("-".into());
        remote.interrupt.clone()
    } else {
        let interrupt = Arc::new(AtomicBool::new(false));
        crate::session::signals::raise_on_interrupt(&interrupt)?;
        interrupt
    };
    let dashboard = wants_dashboard(no_tui, &outputs, crate::tui::terminal::is_interactive());
    let options = SessionOptions {
        allow_destructive: outputs.allow_destructive,
        force: outputs.force,
        json: outputs.json.clone(),
        jsonl: outputs.jsonl.clone(),
        finish_when_done: !dashboard,
        interrupt: interrupt.clone(),
        latency_target,
        annotate,
        start_gate: remote.map(|remote| StartGate(remote.gate())),
        interval_sink,
        status_sink,
        redact: outputs.redact,
        record_serial: outputs.record_serial,
        trust,
        trace: outputs.trace,
    };
    let handle = Session::start(plan, options)?;
    // A server that cannot start ends the session first: its record, no scratch left.
    let serving = match serve.map(|p| p.start(handle.snapshots.clone())).transpose() {
        Ok(serving) => serving,
        Err(err) => return Err(handle.abandon(err)),
    };
    let mut outcome = if dashboard {
        crate::tui::run_bench(handle, interrupt.clone())?
    } else {
        headless::run(handle, headless)?
    };
    // The report reads the record as it was written (the file rounds some rates), so that
    // `show --text` of the file prints the very same report.
    outcome.record = as_written(outcome.record);
    report(&outcome, report_to(&outputs))?;
    if is_stdout(outputs.json.as_ref()) {
        let mut stdout = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut stdout, &outcome.record)
            .context("writing the record to stdout")?;
        let _ = writeln!(stdout);
        let _ = stdout.flush();
    }
    let served = serving.map_or(Ok(()), |serving| serving.finish(&interrupt));
    if let Some(remote) = remote {
        remote.send_record(&outcome.record);
    }
    let interrupted = outcome.status == RunStatus::Interrupted;
    let code = exit_code(outcome)?;
    // An endpoint asked for that failed is the command's failure, after the run's report;
    // an interrupted run still exits as interrupted (128 + the signal).
    if !interrupted {
        served?;
    } else if let Err(err) = served {
        eprintln!("note: {}", crate::error::one_line(&format!("{err:#}")));
    }
    Ok(code)
}

/// `record` as its file holds it: written and read back (rates with two decimals).
fn as_written(record: Box<RunRecord>) -> Box<RunRecord> {
    serde_json::to_vec(&record)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or(record)
}

/// The exit code of a finished session (every command that runs one ends here): 0
/// completed or stopped (`q` in the dashboard), 128 + the signal when interrupted (130 for
/// Ctrl-C, 143 for SIGTERM), the run's error (exit 1) when it failed or its record could not
/// be written.
///
/// # Errors
/// The record's write error, or the failed run's message.
pub fn exit_code(outcome: SessionOutcome) -> anyhow::Result<ExitCode> {
    if let Some(err) = outcome.record_error {
        anyhow::bail!("{err}");
    }
    match outcome.status {
        RunStatus::Completed | RunStatus::Stopped => Ok(ExitCode::SUCCESS),
        RunStatus::Interrupted => Ok(ExitCode::from(
            crate::session::signals::interrupted_exit_code(),
        )),
        RunStatus::Failed => Err(anyhow::anyhow!(
            "{}",
            outcome
                .record
                .error
                .as_ref()
                .map_or("the run failed", |e| e.message.as_str())
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(json: Option<&str>, jsonl: Option<&str>) -> Outputs {
        Outputs {
            json: json.map(PathBuf::from),
            jsonl: jsonl.map(PathBuf::from),
            ..Outputs::default()
        }
    }

    proptest::proptest! {
        /// The report reads the record as written: a float the file holds is read back as
        /// the number it was written from (a sweep's findings, kept in the record, are
        /// compared with the same findings printed from the read-back record).
        #[test]
        fn a_record_s_floats_read_back_exactly(bits in proptest::prelude::any::<u64>()) {
            let x = f64::from_bits(bits);
            proptest::prop_assume!(x.is_finite());
            let text = serde_json::to_string(&x).unwrap();
            let back: f64 = serde_json::from_str(&text).unwrap();
            proptest::prop_assert_eq!(back.to_bits(), x.to_bits(), "{}", text);
        }
    }

    #[test]
    fn the_dashboard_opens_in_a_terminal_unless_stdout_streams_intervals_or_no_tui() {
        assert!(wants_dashboard(false, &outputs(None, None), true));
        // The record comes after the dashboard closes.
        assert!(wants_dashboard(false, &outputs(Some("-"), None), true));
        assert!(wants_dashboard(
            false,
            &outputs(Some("r.json"), Some("i.jsonl")),
            true
        ));
        assert!(!wants_dashboard(false, &outputs(None, Some("-")), true));
        assert!(!wants_dashboard(true, &outputs(None, None), true));
        assert!(!wants_dashboard(false, &outputs(None, None), false));
    }

    #[test]
    fn the_report_goes_to_stderr_when_stdout_carries_data() {
        assert_eq!(report_to(&outputs(None, None)), ReportTo::Stdout);
        assert_eq!(
            report_to(&outputs(Some("r.json"), Some("i"))),
            ReportTo::Stdout
        );
        assert_eq!(report_to(&outputs(Some("-"), None)), ReportTo::Stderr);
        assert_eq!(report_to(&outputs(None, Some("-"))), ReportTo::Stderr);
    }
}
