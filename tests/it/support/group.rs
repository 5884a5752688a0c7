//! A `diskdash bench` run in a process group of its own, signalled as `timeout`, a closing
//! terminal or a job-control shell signals it, its stderr read line by line while it runs
//! (`it`'s `safety_signals` and `alone`'s).

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::record::{RECORD, bench_cmd};

/// Longest a test waits for the run to end after its last signal before it kills the group.
pub const END_WITHIN: Duration = Duration::from_secs(60);

/// `diskdash bench ARGS --json r.json` in `dir`, in a process group of its own (so the test
/// can signal the group, as `timeout` does), stderr read line by line on a thread.
pub struct GroupRun {
    pub child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl GroupRun {
    pub fn start(dir: &Path, args: &[&str]) -> Self {
        Self::start_with(dir, args, &[])
    }

    /// As [`GroupRun::start`], with `env` set.
    pub fn start_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = bench_cmd(dir, &[args, &["--json", RECORD]].concat())
            .envs(env.iter().copied())
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting diskdash");
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits until `n` stderr lines have satisfied `want`; panics (after killing the group)
    /// when stderr ends or a minute goes by first.
    pub fn wait_for(&mut self, n: usize, want: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + END_WITHIN;
        let mut matched = self.seen.iter().filter(|l| want(l)).count();
        while matched < n {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    matched += usize::from(want(&line));
                    self.seen.push(line);
                }
                Err(_) => {
                    self.signal(Signal::SIGKILL);
                    panic!("{matched} of {n} awaited lines; stderr: {:#?}", self.seen);
                }
            }
        }
    }

    /// Waits until the run shows `n` status lines (`[   0.2s] ...`): it is measuring.
    pub fn wait_measuring(&mut self, n: usize) {
        self.wait_for(n, |l| l.starts_with('['));
    }

    pub fn signal(&self, signal: Signal) {
        let group = Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        killpg(group, signal).unwrap_or_else(|e| panic!("killpg {signal}: {e}"));
    }

    /// Waits for the exit (killing the group after [`END_WITHIN`]); returns the status, the
    /// time it took and every stderr line.
    pub fn finish(self) -> (ExitStatus, Duration, Vec<String>) {
        let (status, took, seen, _) = self.finish_with_peak();
        (status, took, seen)
    }

    /// Waits until the run holds `kib` KiB of memory or more (`VmRSS`); panics (after killing
    /// the group) when it ends or a minute goes by first.
    pub fn wait_resident(&self, kib: u64) {
        let status = format!("/proc/{}/status", self.child.id());
        let deadline = Instant::now() + END_WITHIN;
        loop {
            let rss = std::fs::read_to_string(&status).ok().and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmRSS:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            });
            match rss {
                Some(rss) if rss >= kib => return,
                Some(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                _ => {
                    self.signal(Signal::SIGKILL);
                    panic!("never {kib} KiB resident; stderr so far: {:#?}", self.seen);
                }
            }
        }
    }

    /// As [`GroupRun::finish`], with the run's peak resident memory in KiB (its `ru_maxrss`,
    /// which `wait4` gives for this one process).
    pub fn finish_with_peak(mut self) -> (ExitStatus, Duration, Vec<String>, u64) {
        use std::os::unix::process::ExitStatusExt;

        let started = Instant::now();
        let pid = i32::try_from(self.child.id()).unwrap();
        let (status, peak) = loop {
            let mut status = 0;
            // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: wait4 on our own child, writing only into the two locals.
            let done = unsafe { libc::wait4(pid, &raw mut status, libc::WNOHANG, &raw mut usage) };
            assert!(done >= 0, "wait4: {}", std::io::Error::last_os_error());
            if done == pid {
                break (status, u64::try_from(usage.ru_maxrss).unwrap());
            }
            if started.elapsed() > END_WITHIN {
                self.signal(Signal::SIGKILL);
                panic!(
                    "still running after {END_WITHIN:?}; stderr: {:#?}",
                    self.seen
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let took = started.elapsed();
        self.seen.extend(self.lines.iter());
        (ExitStatus::from_raw(status), took, self.seen, peak)
    }
}
