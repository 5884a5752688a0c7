//! A command under a timeout and, where given, an address-space limit, measured: how it ended,
//! its output (the first 64 KiB of each stream kept, all of it counted), its time, its own CPU
//! time and its own peak memory. For the tests that a bomb must fail cheaply: a regression fails the test instead
//! of hanging it or taking the machine's memory.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::peak_rss_since_exec;

/// Kept of each output stream; the rest is read and counted, not stored.
const KEPT_BYTES: usize = 64 << 10;

/// How a limited command ended.
pub struct Limited {
    /// `None` when killed by a signal (see `signal`).
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: String,
    /// All of stdout, counted (`stdout` keeps the first 64 KiB).
    pub stdout_bytes: usize,
    pub stderr: String,
    pub took: Duration,
    /// The CPU time it used itself, all its threads, user and system (`wait4`'s rusage): what
    /// its work cost, which other processes' load does not change as it changes `took`.
    pub cpu: Duration,
    /// Its own peak resident memory ([`peak_rss_since_exec`], polled while it ran).
    pub peak_rss_bytes: u64,
    /// It ran past the timeout and was killed.
    pub timed_out: bool,
}

impl Limited {
    /// The `error: ` lines of stderr.
    pub fn errors(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.starts_with("error: "))
            .collect()
    }
}

fn drain(mut from: impl Read + Send + 'static) -> JoinHandle<(Vec<u8>, usize)> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut total = 0;
        let mut buf = [0u8; 8192];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            total += n;
            let room = KEPT_BYTES.saturating_sub(kept.len());
            kept.extend_from_slice(&buf[..n.min(room)]);
        }
        (kept, total)
    })
}

/// Runs `command` (its stdin as the caller set it; stdout and stderr are taken here) under
/// `address_space_bytes` (`RLIMIT_AS`) when given, killing it after `timeout`.
pub fn run(mut command: Command, address_space_bytes: Option<u64>, timeout: Duration) -> Limited {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(bytes) = address_space_bytes {
        // SAFETY: the closure runs in the child between fork and exec and only calls
        // setrlimit, which is async-signal-safe; it allocates nothing.
        unsafe {
            command.pre_exec(move || {
                nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_AS, bytes, bytes)
                    .map_err(std::io::Error::from)
            });
        }
    }
    let started = Instant::now();
    // Reaped by `try_wait4` below (wait4, for its rusage), not by `Child::wait`.
    #[allow(clippy::zombie_processes)]
    let mut child = command.spawn().expect("spawning the command");
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let out = drain(child.stdout.take().unwrap());
    let err = drain(child.stderr.take().unwrap());
    let mut peak_rss_bytes = 0;
    let mut timed_out = false;
    let (status, cpu) = loop {
        peak_rss_bytes = peak_rss_bytes.max(peak_rss_since_exec(pid).unwrap_or(0));
        if let Some(ended) = try_wait4(pid) {
            break ended;
        }
        if !timed_out && started.elapsed() > timeout {
            child.kill().unwrap();
            timed_out = true;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = started.elapsed();
    let (stdout, stdout_bytes) = out.join().unwrap();
    let (stderr, _) = err.join().unwrap();
    Limited {
        code: status.code(),
        signal: status.signal(),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stdout_bytes,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        took,
        cpu,
        peak_rss_bytes,
        timed_out,
    }
}

/// The status and CPU time (user and system, all threads) of the child `pid` once it has
/// ended (reaping it); `None` while it runs.
fn try_wait4(pid: libc::pid_t) -> Option<(ExitStatus, Duration)> {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 writes only into `status` and `usage`, both live locals of the right
    // types; `pid` is this process's own child, reaped nowhere else.
    let got = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
    assert!(got >= 0, "wait4: {}", std::io::Error::last_os_error());
    if got == 0 {
        return None;
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap())
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap())
    };
    Some((
        ExitStatus::from_raw(status),
        time(usage.ru_utime) + time(usage.ru_stime),
    ))
}
