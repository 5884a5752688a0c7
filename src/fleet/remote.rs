//! `diskdash --fleet-remote bench|fio|sweep ...`: the remote side of `diskdash fleet`, the
//! same commands in a machine-readable mode, no new protocol. stdout carries the run's JSON
//! Lines (`--jsonl -`): a ready line when the targets are prepared, the interval records, and
//! the run record as the last line. stdin carries the controller's words, one a line: `start`
//! opens the measured window; `stop`, or the end of stdin (the connection dropped, the
//! controller died), stops the run like Ctrl-C (drained, recorded `interrupted`, scratch file
//! removed). Each warning is a `diskdash-bench-warning` line as it comes, and an error ends the
//! stream with a `diskdash-bench-error` line (its message and exit code). Status lines, and
//! the same warnings and error as text, go to stderr for a person.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use anyhow::Context;

use crate::record::RunRecord;

/// The words on stdin.
pub const START: &str = "start";
pub const STOP: &str = "stop";

/// Ends the stream with the command's error (its message and exit code): the controller reads
/// it from the stream; stderr still gets it (main prints it) for a person reading the remote's
/// output.
pub fn send_error(err: &anyhow::Error) {
    let line = crate::record::ErrorLine::new(
        crate::error::one_line(&format!("{err:#}")),
        crate::error::exit_code(err),
    );
    let mut stdout = std::io::stdout().lock();
    if serde_json::to_writer(&mut stdout, &line).is_ok() {
        let _ = stdout.write_all(b"\n");
        let _ = stdout.flush();
    }
}

/// `--jsonl` (any) and `--json -` would share stdout with the stream.
///
/// # Errors
/// A usage error naming the flag.
pub fn refuse_stdout_outputs(
    json: Option<&std::path::Path>,
    jsonl: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    if jsonl.is_some() {
        return Err(crate::error::usage!(
            "--jsonl: fleet streams each host's intervals itself; drop --jsonl after `--`"
        ));
    }
    if json == Some(std::path::Path::new("-")) {
        return Err(crate::error::usage!(
            "--json -: fleet's own --json holds every host's record; give a file after `--`, \
             or --json before `--`"
        ));
    }
    Ok(())
}

/// The remote side of one run: the interrupt flag the session polls, and the start word.
pub struct Remote {
    pub interrupt: Arc<AtomicBool>,
    /// `None` until `start` (`Some(true)`) or `stop`/end of input (`Some(false)`).
    start: Arc<(Mutex<Option<bool>>, Condvar)>,
}

impl Remote {
    /// Installs the interrupt signals (`raise_on_interrupt`: the session's
    /// `signals::raise_on_interrupt`, given by the caller) and starts reading stdin.
    ///
    /// # Errors
    /// A signal handler or the reader thread could not be set up.
    pub fn listen(
        raise_on_interrupt: fn(&Arc<AtomicBool>) -> anyhow::Result<()>,
    ) -> anyhow::Result<Self> {
        let interrupt = Arc::new(AtomicBool::new(false));
        raise_on_interrupt(&interrupt)?;
        let start = Arc::new((Mutex::new(None), Condvar::new()));
        let (flag, said) = (interrupt.clone(), start.clone());
        std::thread::Builder::new()
            .name("fleet-stdin".into())
            .spawn(move || {
                let set = |go: bool| {
                    let (lock, cvar) = &*said;
                    let mut state = lock
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    state.get_or_insert(go);
                    cvar.notify_all();
                };
                for line in std::io::stdin().lock().lines() {
                    match line.as_deref().map(str::trim) {
                        Ok(START) => set(true),
                        Ok(STOP) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
                flag.store(true, Ordering::Relaxed);
                set(false);
            })
            .context("starting the stdin reader")?;
        Ok(Self { interrupt, start })
    }

    /// The session's gate (its `StartGate`): waits for `start`; `false` on `stop`, end of
    /// input or a signal.
    #[must_use]
    pub fn gate(&self) -> Arc<dyn Fn() -> bool + Send + Sync> {
        let (start, interrupt) = (self.start.clone(), self.interrupt.clone());
        Arc::new(move || {
            let (lock, cvar) = &*start;
            let mut state = lock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            loop {
                if interrupt.load(Ordering::Relaxed) {
                    return false;
                }
                if let Some(go) = *state {
                    return go;
                }
                state = cvar
                    .wait_timeout(state, Duration::from_millis(50))
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .0;
            }
        })
    }

    /// Sends the run record as the stream's last line (the command's exit code follows it).
    pub fn send_record(&self, record: &RunRecord) {
        let mut stdout = std::io::stdout().lock();
        // The controller may be gone (connection dropped): the record on disk (--json after
        // `--`) and the exit code still stand.
        if serde_json::to_writer(&mut stdout, record).is_ok() {
            let _ = stdout.write_all(b"\n");
            let _ = stdout.flush();
        }
    }
}
