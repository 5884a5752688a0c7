//! The terminal guard: raw mode + alternate screen on entry, restored exactly once on every
//! path: drop (normal exit, `?` errors), the panic hook, and the signal paths in the loop
//! (SIGINT, SIGTERM, SIGHUP end the loop, then the guard drops).
//!
//! Output goes through [`GuardedStdout`], which discards writes once the terminal is restored,
//! so a frame still buffered when a panic unwinds never lands on the user's normal screen.
//! No mouse capture: selecting text with the mouse keeps working over SSH.

use std::io::{self, BufWriter, Stdout, Write};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::cursor::{Hide, Show};
use crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
    disable_raw_mode, enable_raw_mode,
};
use crossterm::{execute, queue};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::tui::ui;
use crate::tui::view::View;

/// True between entering the dashboard and restoring the terminal.
static ACTIVE: AtomicBool = AtomicBool::new(false);
static PANIC_HOOK: Once = Once::new();

/// Stdout that stops writing once the terminal has been restored.
pub struct GuardedStdout(Stdout);

impl Write for GuardedStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if ACTIVE.load(Ordering::SeqCst) {
            self.0.write(buf)
        } else {
            Ok(buf.len())
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if ACTIVE.load(Ordering::SeqCst) {
            self.0.flush()
        } else {
            Ok(())
        }
    }
}

pub(crate) type Tui = Terminal<CrosstermBackend<BufWriter<GuardedStdout>>>;

/// Owns the terminal while the dashboard runs; dropping it restores the terminal.
pub struct TerminalGuard {
    pub terminal: Tui,
}

impl TerminalGuard {
    /// Enters raw mode and the alternate screen and hides the cursor.
    ///
    /// # Errors
    /// The terminal refuses raw mode or the escape sequences cannot be written; the terminal
    /// is restored before returning.
    pub fn enter() -> anyhow::Result<Self> {
        PANIC_HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let entered = execute!(io::stdout(), EnterAlternateScreen, Hide)
            .map_err(anyhow::Error::from)
            .and_then(|()| {
                let out = BufWriter::with_capacity(64 * 1024, GuardedStdout(io::stdout()));
                let mut terminal = Terminal::new(CrosstermBackend::new(out))?;
                terminal.clear()?;
                Ok(terminal)
            });
        match entered {
            Ok(terminal) => Ok(Self { terminal }),
            Err(e) => {
                restore();
                Err(e.context("setting up the terminal"))
            }
        }
    }

    /// Draws one frame inside a synchronized update (no tearing over slow links).
    ///
    /// # Errors
    /// Writing to the terminal failed (e.g. the SSH session dropped).
    pub fn draw(&mut self, view: &View) -> io::Result<()> {
        queue!(self.terminal.backend_mut(), BeginSynchronizedUpdate)?;
        self.terminal.draw(|f| ui::render(f, view))?;
        execute!(self.terminal.backend_mut(), EndSynchronizedUpdate)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = self.terminal.backend_mut().flush();
        restore();
    }
}

/// Leaves the alternate screen, shows the cursor and leaves raw mode, once. Errors are ignored:
/// after a hang-up there is no terminal to restore.
pub(crate) fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let mut out = io::stdout();
        let _ = execute!(out, EndSynchronizedUpdate, LeaveAlternateScreen, Show);
        let _ = disable_raw_mode();
        let _ = out.flush();
    }
}

/// Whether the dashboard can run here: stdin and stdout are terminals.
#[must_use]
pub(crate) fn is_interactive() -> bool {
    use std::io::IsTerminal;
    io::stdout().is_terminal() && io::stdin().is_terminal()
}

/// `NO_COLOR` set to anything non-empty turns colour off (the NO_COLOR convention).
#[must_use]
pub(crate) fn color_enabled() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
