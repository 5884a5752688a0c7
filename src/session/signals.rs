//! The signals that interrupt a run, in one place for both front ends (headless and dashboard).
//!
//! Any of them, any number of times, means the same: stop, drain the in-flight I/O, write the
//! record as `interrupted`, remove the scratch file, exit 128 + the signal (130 for Ctrl-C,
//! 143 for SIGTERM; assets/doc/endings.md). A repeated signal changes nothing (GNU `timeout`
//! signals the child and then its whole process group, so SIGTERM arrives twice): the drain is
//! bounded by the I/O already in flight, which the kernel would wait for even if the process
//! exited at once, and leaving early would lose the record and the scratch file's removal.
//! SIGKILL stays the way out.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use anyhow::Context;

/// SIGINT (Ctrl-C), SIGTERM (`kill`, `timeout`, systemd), SIGHUP (the terminal or SSH session
/// went away) and SIGQUIT (Ctrl-\): without a handler the last two would kill the process with
/// no record and the scratch file left behind.
pub const INTERRUPT_SIGNALS: [libc::c_int; 4] =
    [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// The last interrupt signal the process received (0: none yet), for the exit code.
fn last_signal() -> &'static Arc<AtomicUsize> {
    static LAST: OnceLock<Arc<AtomicUsize>> = OnceLock::new();
    LAST.get_or_init(|| Arc::new(AtomicUsize::new(0)))
}

/// Raises `flag` on every [`INTERRUPT_SIGNALS`] signal, for the rest of the process, and
/// keeps which signal it was for [`interrupted_exit_code`]. The session polls the flag (at
/// least every 50 ms, also during setup and the fill).
///
/// # Errors
/// A handler could not be installed.
pub fn raise_on_interrupt(flag: &Arc<AtomicBool>) -> anyhow::Result<()> {
    for signal in INTERRUPT_SIGNALS {
        signal_hook::flag::register(signal, flag.clone())
            .with_context(|| format!("installing the handler of signal {signal}"))?;
        let number = usize::try_from(signal).unwrap_or(0);
        signal_hook::flag::register_usize(signal, last_signal().clone(), number)
            .with_context(|| format!("installing the handler of signal {signal}"))?;
    }
    Ok(())
}

/// Takes `signal` as received: the dashboard reads keys in raw mode, where Ctrl-C is a key,
/// not SIGINT, and it is the same ending.
pub fn received(signal: libc::c_int) {
    last_signal().store(usize::try_from(signal).unwrap_or(0), Ordering::SeqCst);
}

/// The exit code of an interrupted run: 128 + the last interrupt signal received (130 for
/// SIGINT or Ctrl-C, 143 for SIGTERM, 129 for SIGHUP, 131 for SIGQUIT); 130 when none was
/// (a fleet's `stop` word interrupts a remote side as Ctrl-C would).
#[must_use]
pub fn interrupted_exit_code() -> u8 {
    code_for(last_signal().load(Ordering::SeqCst))
}

fn code_for(signal: usize) -> u8 {
    u8::try_from(signal)
        .ok()
        .filter(|&s| s > 0 && s < 128)
        .map_or(crate::error::EXIT_INTERRUPTED, |s| 128 + s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_code_is_128_plus_the_signal_and_130_without_one() {
        for (signal, code) in [
            (libc::SIGINT, 130),
            (libc::SIGTERM, 143),
            (libc::SIGHUP, 129),
            (libc::SIGQUIT, 131),
        ] {
            assert_eq!(code_for(usize::try_from(signal).unwrap()), code);
        }
        assert_eq!(code_for(0), 130);
        assert_eq!(code_for(300), 130);
    }
}
