//! The event loop: `select!` over terminal events, the data source, signals and a frame timer.
//!
//! ```text
//!   keys/resize --+
//!   source.next --+--> dirty --(at most every FRAME)--> build View --> draw
//!   SIGINT/TERM/HUP/QUIT, Ctrl-C ----------------------> leave (guard restores)
//! ```
//! Nothing is drawn unless something changed: an idle monitor draws once per sample.

use std::task::Poll;
use std::time::Duration;

use crossterm::event::{Event, EventStream};
use futures_util::StreamExt;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::time::Instant;

use crate::session::signals::INTERRUPT_SIGNALS;
use crate::tui::app::{Action, App, Intent};
use crate::tui::terminal::TerminalGuard;
use crate::tui::view::View;

/// At most ten frames a second.
pub const FRAME: Duration = Duration::from_millis(100);

/// Where the dashboard's data comes from: the monitor, a live session, a record.
pub trait Source {
    /// Waits for new data and takes it in. Must be cancel-safe (it races keys in `select!`).
    /// Errors are the source's to show in its view; this only returns when there is
    /// something new to draw.
    fn next(&mut self) -> impl Future<Output = ()>;
    /// The screen as of now.
    fn view(&mut self, app: &mut App) -> View;
    /// Applies a control key; returns what to say in the footer.
    fn control(&mut self, intent: Intent) -> Option<String>;
}

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// `q`.
    Quit,
    /// One of [`INTERRUPT_SIGNALS`]: SIGINT (or the Ctrl-C key), SIGTERM, SIGHUP or SIGQUIT.
    Signal(i32),
    /// The terminal went away (input closed or output failed).
    TerminalLost,
}

/// Runs the dashboard until the user quits, a signal arrives or the terminal goes away.
///
/// # Errors
/// Installing the signal handlers failed.
pub async fn run<S: Source>(
    guard: &mut TerminalGuard,
    app: &mut App,
    source: &mut S,
) -> anyhow::Result<Exit> {
    let mut events = EventStream::new();
    let mut signals = InterruptSignals::install()?;
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    let mut disk_names: Vec<String> = Vec::new();
    loop {
        let next_frame = last_draw + FRAME;
        tokio::select! {
            event = events.next() => match event {
                Some(Ok(Event::Key(key))) => match app.on_key(key, &disk_names) {
                    Action::None => {}
                    Action::Redraw => dirty = true,
                    Action::Control(intent) => {
                        app.ui.message = source.control(intent);
                        dirty = true;
                    }
                    Action::Quit => return Ok(Exit::Quit),
                    Action::Interrupt => return Ok(Exit::Signal(libc::SIGINT)),
                },
                Some(Ok(Event::Resize(..))) => dirty = true,
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return Ok(Exit::TerminalLost),
            },
            () = source.next() => dirty = true,
            signal = signals.recv() => return Ok(Exit::Signal(signal)),
            () = tokio::time::sleep_until(next_frame), if dirty => {
                let view = source.view(app);
                disk_names = view
                    .disks
                    .as_ref()
                    .map(|t| t.rows.iter().map(|r| r.name.clone()).collect())
                    .unwrap_or_default();
                if guard.draw(&view).is_err() {
                    return Ok(Exit::TerminalLost);
                }
                dirty = false;
                last_draw = Instant::now();
            }
        }
    }
}

/// The session's interrupt signals as tokio streams: the dashboard leaves on the same signals
/// the headless run stops on.
struct InterruptSignals(Vec<(libc::c_int, Signal)>);

impl InterruptSignals {
    fn install() -> std::io::Result<Self> {
        INTERRUPT_SIGNALS
            .iter()
            .map(|&number| Ok((number, signal(SignalKind::from_raw(number))?)))
            .collect::<std::io::Result<_>>()
            .map(Self)
    }

    /// The next signal that arrives. Cancel-safe: a signal that arrived stays pending in its
    /// stream.
    async fn recv(&mut self) -> libc::c_int {
        std::future::poll_fn(|cx| {
            for (number, stream) in &mut self.0 {
                if stream.poll_recv(cx).is_ready() {
                    return Poll::Ready(*number);
                }
            }
            Poll::Pending
        })
        .await
    }
}
