//! The ratatui dashboard. Reads session snapshots (or monitor samples, or a record) only;
//! never touches the hot path.
//!
//! ```text
//! run_monitor / run_bench / run_fleet / run_show
//!      |  builds a Source: source/ monitor.rs (diskstats) | bench.rs (session) |
//!      |                           fleet.rs (the fleet's controller) | record.rs
//!      v
//! terminal.rs  TerminalGuard: raw mode + alternate screen, restored once on every path
//! event.rs     select! { keys, source.next(), signals, frame timer } -> draw when dirty
//! app.rs       keys -> screen state / intents for the session
//! view/        plain data for one frame (mod.rs) and its builders: from_snapshot.rs,
//!              from_record.rs, from_monitor.rs, from_fleet.rs
//! ui/          pure render functions, one per panel
//! ```

pub(crate) mod app;
pub(crate) mod event;
pub(crate) mod source;
pub mod terminal;
pub mod ui;
pub mod view;

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::tui::app::App;
use crate::tui::event::Exit;
use crate::tui::terminal::TerminalGuard;
use crate::tui::view::Mode;

/// The exit code for how the dashboard ended: 0 on `q`, 128 + signal otherwise (Ctrl-C is
/// SIGINT: 130).
fn exit_code(exit: Exit) -> ExitCode {
    match exit {
        Exit::Quit => ExitCode::SUCCESS,
        Exit::Signal(sig) => ExitCode::from(u8::try_from(128 + sig).unwrap_or(1)),
        Exit::TerminalLost => ExitCode::from(1),
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

fn require_terminal(alternative: &str) -> anyhow::Result<()> {
    if terminal::is_interactive() {
        Ok(())
    } else {
        Err(crate::error::usage!(
            "the dashboard needs a terminal on stdin and stdout; {alternative}"
        ))
    }
}

/// The monitor dashboard of every disk, sampled every `interval`.
///
/// # Errors
/// No terminal, no `/proc/diskstats`, or `--record`'s file refused.
pub(crate) fn run_monitor(
    interval: std::time::Duration,
    show_idle: bool,
    trace: bool,
    record: Option<crate::record::monitor_writer::RecordTo>,
) -> anyhow::Result<ExitCode> {
    require_terminal("for plain text use `diskdash iostat -x 1`")?;
    runtime()?.block_on(async {
        let mut source = source::monitor::MonitorSource::open(interval, show_idle)?;
        if trace {
            source.trace();
        }
        if let Some(to) = &record {
            source.record_to(to)?;
        }
        let mut app = App::new(Mode::Monitor, terminal::color_enabled());
        let mut guard = TerminalGuard::enter()?;
        let exit = event::run(&mut guard, &mut app, &mut source).await;
        drop(guard);
        Ok(exit_code(exit?))
    })
}

/// `diskdash bench` in a terminal: the dashboard over a running session. Returns when the
/// user quits (the session is told to quit), a signal arrives or the terminal goes away (the
/// session is interrupted); the terminal is restored before the session is waited for, so the
/// caller prints the summary on the normal screen.
///
/// # Errors
/// The terminal could not be set up, or the session thread panicked. The session has been
/// told to quit and has ended (and written its record) either way.
pub(crate) fn run_bench(
    handle: crate::session::SessionHandle,
    interrupt: Arc<AtomicBool>,
) -> anyhow::Result<crate::session::SessionOutcome> {
    let rt = runtime();
    let shown = rt
        .as_ref()
        .map_err(|e| anyhow::anyhow!("{e:#}"))
        .and_then(|rt| {
            rt.block_on(async {
                let mut source = source::bench::BenchSource::new(&handle)?;
                let mut app = App::new(Mode::Bench, terminal::color_enabled());
                let mut guard = TerminalGuard::enter()?;
                let exit = event::run(&mut guard, &mut app, &mut source).await;
                drop(guard);
                exit
            })
        });
    match shown {
        Ok(Exit::Quit) => {
            // `q`: finish the running step as stopped (a complete step), then quit; the
            // session acts on both in order (Stop while idle does nothing) and records the run
            // `stopped` when the plan had not run to its end, `completed` when it had. A bare
            // quit mid-step would record the step as interrupted.
            let _ = handle.control.send(crate::session::Control::Stop);
        }
        Ok(Exit::Signal(signal)) => {
            // Also the Ctrl-C key: SIGINT, with SIGINT's status and exit code.
            crate::session::signals::received(signal);
            interrupt.store(true, Ordering::SeqCst);
        }
        Ok(Exit::TerminalLost) | Err(_) => interrupt.store(true, Ordering::SeqCst),
    }
    let _ = handle.control.send(crate::session::Control::Quit);
    let outcome = handle.wait()?;
    shown?;
    Ok(outcome)
}

/// `diskdash fleet` in a terminal: the dashboard over the live fleet the controller keeps in
/// `live`, until `q`, Ctrl-C, a signal or the loss of the terminal; each raises `interrupt`,
/// which the controller answers as it does SIGINT (every host stopped cleanly, their records
/// collected). The terminal is restored before this returns, so the caller prints the summary
/// on the normal screen.
///
/// # Errors
/// The terminal could not be set up.
pub(crate) fn run_fleet(
    live: tokio::sync::watch::Receiver<crate::fleet::live::LiveFleet>,
    interrupt: &AtomicBool,
) -> anyhow::Result<()> {
    let shown = runtime().and_then(|rt| {
        rt.block_on(async {
            let mut source = source::fleet::FleetSource::new(live);
            let mut app = App::new(Mode::Fleet, terminal::color_enabled());
            let mut guard = TerminalGuard::enter()?;
            let exit = event::run(&mut guard, &mut app, &mut source).await;
            drop(guard);
            exit
        })
    });
    if let Ok(Exit::Signal(signal)) = shown {
        crate::session::signals::received(signal);
    }
    interrupt.store(true, Ordering::SeqCst);
    shown.map(|_| ())
}

/// A recorded run in the dashboard, until `q`.
///
/// # Errors
/// No terminal.
pub(crate) fn run_show(record: crate::record::RunRecord) -> anyhow::Result<ExitCode> {
    require_terminal("for a text summary read the JSON record itself")?;
    runtime()?.block_on(async {
        let mut source = source::record::ShowSource::new(record);
        let mut app = App::new(Mode::Show, terminal::color_enabled());
        let mut guard = TerminalGuard::enter()?;
        let exit = event::run(&mut guard, &mut app, &mut source).await;
        drop(guard);
        Ok(exit_code(exit?))
    })
}

/// A monitor recording replayed in the monitor dashboard, until `q`.
///
/// # Errors
/// No terminal.
pub(crate) fn run_replay(recording: crate::record::monitor::Recording) -> anyhow::Result<ExitCode> {
    require_terminal("for the numbers read the JSON Lines file itself")?;
    runtime()?.block_on(async {
        let mut source = source::replay::ReplaySource::new(recording);
        let mut app = App::new(Mode::Monitor, terminal::color_enabled());
        app.replay = true;
        let mut guard = TerminalGuard::enter()?;
        let exit = event::run(&mut guard, &mut app, &mut source).await;
        drop(guard);
        Ok(exit_code(exit?))
    })
}
