//! The headless front end: what is new in each snapshot as status lines on stderr (progress,
//! notes, warnings, the fill, the ramp, each interval, steady state) until the session
//! finishes. The dashboard's counterpart where there is no terminal or `--no-tui` asks.

use std::io::{IsTerminal, Write};

use crate::bench::spec::RwMode;
use crate::session::{SessionHandle, SessionOutcome, SessionState, Snapshot};
use crate::units;

/// How the status lines name what runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headless {
    /// One job: a `diskdash bench:` header with its working set.
    Bench,
    /// A plan (`diskdash fio`, `diskdash mark`, named by the command): each step's jobs, then
    /// the step's totals per interval.
    Plan(&'static str),
    /// A sweep: each point as it starts, then its intervals.
    Sweep,
    /// Nothing on stderr (fio's contract when stderr is not a terminal): the notes and
    /// warnings are in the record, and the command's report carries them.
    Silent,
}

/// Status lines on stderr until the session finishes, then its outcome.
///
/// # Errors
/// The runtime could not start (the session is ended first, its record written), or the
/// session's own error.
pub fn run(handle: SessionHandle, kind: Headless) -> anyhow::Result<SessionOutcome> {
    let printer = match kind {
        Headless::Bench => StatusPrinter::default(),
        Headless::Plan(command) => StatusPrinter {
            plan: true,
            command,
            ..StatusPrinter::default()
        },
        Headless::Sweep => StatusPrinter {
            sweep: true,
            ..StatusPrinter::default()
        },
        Headless::Silent => StatusPrinter {
            silent: true,
            ..StatusPrinter::default()
        },
    };
    headless_with(handle, printer)
}

fn headless_with(
    handle: SessionHandle,
    mut printer: StatusPrinter,
) -> anyhow::Result<SessionOutcome> {
    let mut snapshots = handle.snapshots.clone();
    // Without a runtime (no file descriptors left for its event loop) the session still
    // ends with its record and without its scratch file.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            return Err(handle.abandon(anyhow::Error::new(err).context("starting the runtime")));
        }
    };
    runtime.block_on(async {
        loop {
            let snapshot = snapshots.borrow_and_update().clone();
            printer.show(&snapshot);
            if matches!(snapshot.state, SessionState::Finished(_)) {
                break;
            }
            if snapshots.changed().await.is_err() {
                break;
            }
        }
    });
    handle.wait()
}

/// Prints what is new in each snapshot to stderr: progress, notes, warnings, status lines.
#[derive(Default)]
struct StatusPrinter {
    next_seq: u64,
    notes: usize,
    warnings: usize,
    last_fill_pct: Option<u64>,
    /// When the fill was first seen, for its rate and the time left.
    fill_started: Option<std::time::Instant>,
    /// The last whole second of ramp left that was printed.
    last_ramp_s: Option<u64>,
    header_shown: bool,
    /// The step whose jobs were last listed (plans of several jobs).
    step_shown: Option<(u32, usize)>,
    /// A plan (`diskdash fio`): each step lists its jobs instead of the one-job header.
    plan: bool,
    /// A sweep: each point is named as it starts.
    sweep: bool,
    /// Prints nothing ([`Headless::Silent`]).
    silent: bool,
    /// The command a plan's step lines name (`diskdash fio`).
    command: &'static str,
    /// Per job of the step shown: attained reported, departures reported, cliff reported.
    steady_shown: Vec<(bool, u64, bool)>,
    steady_step: u32,
    /// The width of the terminal stderr writes to, once asked (`None` inside: no terminal).
    width: Option<Option<usize>>,
}

/// `; runs on psync at iodepth 1` when `used` (the engine that runs) is not the one `spec`
/// names: after a fallback the job's own words say otherwise. Empty when it runs as named.
fn runs_on(used: &str, spec: &crate::bench::spec::JobSpec) -> String {
    if used.is_empty() || used == spec.ioengine.as_str() {
        return String::new();
    }
    let depth = if used == "psync" { 1 } else { spec.iodepth };
    format!("; runs on {used} at iodepth {depth}")
}

impl StatusPrinter {
    fn show(&mut self, snap: &Snapshot) {
        if self.silent {
            return;
        }
        // Names, paths, notes and points are the user's or a job file's: escaped on the way.
        let stderr = std::io::stderr();
        let tty = stderr.is_terminal();
        let width = *self
            .width
            .get_or_insert_with(|| crate::report::fit::terminal_width(&stderr));
        let mut err = crate::text::Escaped(crate::report::fit::Lines::new(stderr.lock(), width));
        if self.plan
            && snap.step_opened()
            && self.step_shown != Some((snap.step.index, snap.plan.index))
        {
            self.step_shown = Some((snap.step.index, snap.plan.index));
            self.header_shown = true;
            let _ = writeln!(
                err,
                "{}: step {}/{}: {} job{} at once",
                self.command,
                snap.plan.index + 1,
                snap.plan.count,
                snap.jobs.len(),
                if snap.jobs.len() == 1 { "" } else { "s" }
            );
            for job in &snap.jobs {
                let _ = writeln!(
                    err,
                    "  {}: {} on {}{}",
                    crate::text::escape(&job.name),
                    job.spec.describe(),
                    crate::text::escape(&job.target.display().to_string()),
                    runs_on(&snap.engine.used, &job.spec)
                );
            }
        }
        if self.sweep
            && snap.step_opened()
            && self.step_shown != Some((snap.step.index, snap.plan.index))
        {
            self.step_shown = Some((snap.step.index, snap.plan.index));
            self.header_shown = true;
            let point = snap
                .plan_points
                .get(snap.plan.index)
                .map(|p| crate::plan::describe(p))
                .unwrap_or_default();
            let ran = runs_on(&snap.engine.used, snap.job());
            let [(at, points), (loop_at, loops)] =
                crate::sweep::point_and_loop(&snap.plan_points, snap.plan.index);
            let looped = if loops > 1 {
                format!(" loop {loop_at}/{loops}")
            } else {
                String::new()
            };
            // A sweep of one point (with its memory baseline) names no options.
            let point = if point.is_empty() { point } else { point + " " };
            let _ = writeln!(
                err,
                "point {at}/{points}{looped}: {point}({}{ran})",
                snap.job().describe()
            );
        }
        if !self.header_shown && !self.plan && !self.sweep {
            self.header_shown = true;
            let _ = writeln!(
                err,
                "diskdash bench: {} on {} ({} working set)",
                snap.job().describe(),
                crate::text::escape(&snap.target.path.display().to_string()),
                units::format_bytes(snap.target.working_set_bytes)
            );
        }
        let (done_bytes, total_bytes) = match snap.state {
            SessionState::Preparing {
                done_bytes,
                total_bytes,
            } => (done_bytes, total_bytes),
            // Left preparing between two snapshots: show where the fill ended.
            _ if self.last_fill_pct.is_some_and(|pct| pct < 100) && snap.filled => {
                (snap.target.working_set_bytes, snap.target.working_set_bytes)
            }
            _ => (0, 0),
        };
        if total_bytes > 0 && self.fill_started.is_none() {
            self.fill_started = Some(std::time::Instant::now());
            let _ = writeln!(
                err,
                "preparing: writing the {} working set with data before measuring (reads of \
                 never-written blocks measure nothing); progress and time left follow",
                units::format_bytes(total_bytes)
            );
        }
        if total_bytes > 0 {
            let pct = done_bytes * 100 / total_bytes.max(1);
            let step = if tty { pct } else { pct / 25 * 25 };
            if self.last_fill_pct != Some(step) {
                self.last_fill_pct = Some(step);
                let text = format!(
                    "preparing: writing the working set with data {} / {} ({pct}%){}",
                    units::format_bytes(done_bytes),
                    units::format_bytes(total_bytes),
                    fill_pace(self.fill_started, done_bytes, total_bytes)
                );
                if tty {
                    // Rewritten in place: a line the terminal wraps would not be.
                    let text: String = match width {
                        Some(width) => text.chars().take(width.saturating_sub(1)).collect(),
                        None => text,
                    };
                    let _ = write!(err.raw().raw(), "\r{text}\x1b[K");
                    if done_bytes >= total_bytes {
                        let _ = writeln!(err);
                    }
                } else {
                    let _ = writeln!(err, "{text}");
                }
            }
        }
        for note in snap.notes.iter().skip(self.notes) {
            let _ = writeln!(err, "note: {note}");
        }
        self.notes = snap.notes.len();
        for warning in snap.warnings.iter().skip(self.warnings) {
            let _ = writeln!(err, "WARNING: {warning}");
        }
        self.warnings = snap.warnings.len();
        if let (SessionState::Ramp, Some(left)) = (&snap.state, snap.step.ramp_remaining) {
            let left_s = left.as_secs();
            if self.last_ramp_s != Some(left_s) {
                self.last_ramp_s = Some(left_s);
                let _ = writeln!(
                    err,
                    "[ramp] warming up, not measured: {:.1}s left",
                    left.as_secs_f64()
                );
            }
        }
        let first = self.next_seq;
        for point in snap.step.series.iter().filter(|p| p.seq >= first) {
            let specs: Vec<&crate::bench::spec::JobSpec> =
                snap.jobs.iter().map(|j| &j.spec).collect();
            let shown = crate::report::bench::Shown {
                reads: specs.iter().any(|s| s.reads()),
                // A trim job's "writes" are its discards (trimwrite writes too).
                writes: specs
                    .iter()
                    .any(|s| s.writes() && !matches!(s.rw, RwMode::Trim | RwMode::RandTrim)),
                trims: specs.iter().any(|s| s.rw.trims()),
            };
            let line = crate::report::bench::status_line(point, snap.job().interval, shown);
            let _ = writeln!(err, "{line}");
            self.next_seq = point.seq + 1;
        }
        self.show_steady(snap, &mut err);
    }

    /// A line when a job attains steady state, each sample out of it after (keep-going), and
    /// when its writes fall off a cliff.
    fn show_steady(&mut self, snap: &Snapshot, err: &mut impl Write) {
        use crate::report::steady;
        if self.steady_step != snap.step.index || self.steady_shown.len() != snap.jobs.len() {
            self.steady_step = snap.step.index;
            self.steady_shown = vec![(false, 0, false); snap.jobs.len()];
        }
        for (job, shown) in snap.jobs.iter().zip(&mut self.steady_shown) {
            let who = if snap.jobs.len() > 1 {
                format!("{}: ", crate::text::escape(&job.name))
            } else {
                String::new()
            };
            if let Some(view) = &job.steady {
                if view.attained_at.is_some() && !shown.0 {
                    shown.0 = true;
                    let _ = writeln!(err, "{}", steady::attained_line(&who, view));
                }
                if view.departures > shown.1 {
                    shown.1 = view.departures;
                    if let Some(line) = steady::departure_line(&who, view) {
                        let _ = writeln!(err, "{line}");
                    }
                }
            }
            if let Some(view) = &job.sustained
                && !shown.2
                && let Some(line) = steady::cliff_line(&who, view)
            {
                shown.2 = true;
                let _ = writeln!(err, "{line}");
            }
        }
    }
}

/// `, 310 MiB/s, about 12s left` once the fill has been timed long enough to say.
fn fill_pace(started: Option<std::time::Instant>, done_bytes: u64, total_bytes: u64) -> String {
    let Some(started) = started else {
        return String::new();
    };
    let secs = started.elapsed().as_secs_f64();
    if secs < 0.5 || done_bytes == 0 || done_bytes >= total_bytes {
        return String::new();
    }
    let rate = done_bytes as f64 / secs;
    let left_s = (total_bytes - done_bytes) as f64 / rate;
    let rate_bytes = rate as u64;
    format!(
        ", {}/s, about {left_s:.0}s left",
        units::format_bytes(rate_bytes)
    )
}
