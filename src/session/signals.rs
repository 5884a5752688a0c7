//! The signals that interrupt a run, in one place for both front ends (headless and dashboard).
//!
//! Any of them, any number of times, means the same: stop, drain the in-flight I/O, write the
//! record as `interrupted`, remove the scratch file, exit 130. A repeated signal changes nothing
//! (GNU `timeout` signals the child and then its whole process group, so SIGTERM arrives twice):
//! the drain is bounded by the I/O already in flight, which the kernel would wait for even if
//! the process exited at once, and leaving early would lose the record and the scratch file's
//! removal. SIGKILL stays the way out.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;

/// SIGINT (Ctrl-C), SIGTERM (`kill`, `timeout`, systemd), SIGHUP (the terminal or SSH session
/// went away) and SIGQUIT (Ctrl-\): without a handler the last two would kill the process with
/// no record and the scratch file left behind.
pub const INTERRUPT_SIGNALS: [libc::c_int; 4] =
    [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// Raises `flag` on every [`INTERRUPT_SIGNALS`] signal, for the rest of the process. The session
/// polls the flag (at least every 50 ms, also during setup and the fill).
///
/// # Errors
/// A handler could not be installed.
pub fn raise_on_interrupt(flag: &Arc<AtomicBool>) -> anyhow::Result<()> {
    for signal in INTERRUPT_SIGNALS {
        signal_hook::flag::register(signal, flag.clone())
            .with_context(|| format!("installing the handler of signal {signal}"))?;
    }
    Ok(())
}
