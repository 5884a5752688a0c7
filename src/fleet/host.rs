//! One host of a fleet as the controller sees it: where its run is (`Phase`), what it sent, and
//! the verdict on it. Pure: what the host did comes in as an [`Event`] with the time it came,
//! what the controller does to its ssh goes out as [`Action`]s (the edge, `cmd::fleet`, writes
//! the words, closes the pipe, kills the process, shows the line). No clock, no I/O.

use std::collections::VecDeque;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use super::live::HostState;
use super::merge::{Rates, merge_direction, merge_sync};
use super::plan::Watch;
use super::protocol::Line;
use crate::record::{
    DirectionRecord, FleetHostRecord, HostStatus, IntervalRecord, RunRecord, RunStatus, SyncRecord,
};

/// How long a stopped host may take to drain and send its record before its ssh is killed (a
/// run drains its queue in milliseconds; Ctrl-C ends the fleet in about this long). The remote
/// run still cleans up: it sees its input end.
pub const STOP_GRACE: Duration = Duration::from_secs(2);
/// Longest stderr line kept (the rest of a longer one is passed over), and the longest remote
/// error kept, in characters.
pub const STDERR_LINE_BYTES: usize = 4096;
/// Lines before the first line of the protocol taken as the login's banner; more fail the host.
pub const BANNER_LINES: usize = 64;
/// How long the pipes of an exited ssh may stay open (held by a process it started).
pub const PIPE_GRACE: Duration = Duration::from_secs(1);
/// Lines of a host's stderr kept (its last line names why it failed, when it failed before it
/// could say so on its stream: ssh, a missing binary).
pub const STDERR_LINES: usize = 20;

/// What came from a host's ssh.
#[derive(Debug)]
pub enum Event {
    /// A line of its stdout.
    Line(Line),
    /// It sent a line longer than `lines::MAX_LINE_BYTES`: its stdout is no longer read.
    LongLine,
    /// Its stdout ended (the remote run ended, or the connection dropped).
    End,
    /// A line of its stderr (cut to [`STDERR_LINE_BYTES`]): it is alive.
    ErrLine(String),
    /// Its stderr ended: the last error line is in.
    ErrEnd,
    /// Its ssh exited.
    Exited(ExitStatus),
}

/// What the edge does to a host's ssh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Write the word and a newline to its stdin.
    Write(&'static str),
    /// Close its stdin (the remote run sees its input end).
    CloseInput,
    /// Kill its ssh.
    Kill,
    /// Show a status line (stderr when headless, the dashboard's footer otherwise).
    Show(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Preparing,
    Ready,
    Running,
    /// Its ssh exited.
    Exited,
}

/// A host of the fleet.
#[derive(Debug)]
pub struct Host {
    pub name: String,
    pub phase: Phase,
    stream_ended: bool,
    stderr_ended: bool,
    /// A line came on its stdout.
    heard_out: bool,
    /// Set when the host is left out or fails for a reason the controller knows.
    pub verdict: Option<(HostStatus, String)>,
    exit: Option<ExitStatus>,
    exited_at: Option<Instant>,
    /// The last lines of its stderr.
    stderr: VecDeque<String>,
    /// The error its remote run sent (one line, escaped).
    remote_error: Option<String>,
    /// Received intervals not yet shown in a table.
    pub pending: VecDeque<IntervalRecord>,
    pub intervals: u64,
    /// The received intervals summed (partial results when no record comes).
    elapsed_ns: u64,
    read: DirectionRecord,
    write: DirectionRecord,
    trim: DirectionRecord,
    sync: SyncRecord,
    pub record: Option<Box<RunRecord>>,
    /// When it was told to stop (for the grace before a kill).
    pub stopped_at: Option<Instant>,
    /// When it was told to start.
    started_at: Option<Instant>,
    /// When a line last came from it (stdout or stderr).
    last_heard: Instant,
    /// The first line before the protocol began (a login banner), as shown, and how many.
    banner: Option<String>,
    banner_lines: usize,
    /// How the remote run ended, said by the remote shell (128 + N: signal N).
    remote_exit: Option<i32>,
    /// Failed for what it sent or did not send: its further lines are not read.
    cut: bool,
    /// Its ssh was killed.
    killed: bool,
}

impl Host {
    /// A host whose ssh was started at `now`.
    #[must_use]
    pub fn new(name: String, now: Instant) -> Self {
        Self {
            name,
            phase: Phase::Preparing,
            stream_ended: false,
            stderr_ended: false,
            heard_out: false,
            verdict: None,
            exit: None,
            exited_at: None,
            stderr: VecDeque::with_capacity(STDERR_LINES),
            remote_error: None,
            pending: VecDeque::new(),
            intervals: 0,
            elapsed_ns: 0,
            read: DirectionRecord::default(),
            write: DirectionRecord::default(),
            trim: DirectionRecord::default(),
            sync: SyncRecord::default(),
            record: None,
            stopped_at: None,
            started_at: None,
            last_heard: now,
            banner: None,
            banner_lines: 0,
            remote_exit: None,
            cut: false,
            killed: false,
        }
    }

    /// Takes in what came from the host at `now`.
    pub fn on(&mut self, event: Event, now: Instant) -> Vec<Action> {
        let mut out = Vec::new();
        match event {
            Event::Line(line) => {
                self.last_heard = now;
                if !self.cut {
                    self.line(line, now, &mut out);
                }
            }
            Event::LongLine => {
                let why = format!(
                    "sent a line longer than {} MiB; its ssh was killed",
                    super::lines::MAX_LINE_BYTES >> 20
                );
                self.last_heard = now;
                self.cut_off(why, now, &mut out);
            }
            Event::End => self.stream_ended = true,
            Event::ErrLine(line) => {
                self.last_heard = now;
                if let Some(code) = super::ssh::exit_mark(&line) {
                    self.remote_exit = Some(code);
                } else {
                    if self.stderr.len() == STDERR_LINES {
                        self.stderr.pop_front();
                    }
                    self.stderr.push_back(line);
                }
            }
            Event::ErrEnd => self.stderr_ended = true,
            Event::Exited(status) => {
                if self.phase != Phase::Exited {
                    self.exit = Some(status);
                    self.exited_at = Some(now);
                    self.phase = Phase::Exited;
                    out.push(Action::CloseInput);
                }
            }
        }
        out
    }

    /// A line of its stdout, while it is not cut off.
    fn line(&mut self, line: Line, now: Instant, out: &mut Vec<Action>) {
        match line {
            // Before the protocol begins: the login's banner (a shell's rc file).
            Line::Foreign(shown) if !self.heard_out => {
                self.banner_lines += 1;
                self.banner.get_or_insert(shown);
                if self.banner_lines > BANNER_LINES {
                    let why = format!(
                        "sent {BANNER_LINES} lines that are not the fleet protocol, the first: {}; its ssh was killed",
                        self.banner.as_deref().unwrap_or_default()
                    );
                    self.cut_off(why, now, out);
                }
                return;
            }
            Line::Foreign(shown) => self.cut_off(
                format!("sent a line that is not the fleet protocol: {shown}; its ssh was killed"),
                now,
                out,
            ),
            Line::Broken(why) => self.refuse(
                format!("sent a fleet protocol line that is wrong: {why}"),
                now,
                out,
            ),
            Line::Ready if self.phase == Phase::Preparing => self.phase = Phase::Ready,
            Line::Interval(interval) => match super::validate::interval(&interval) {
                Ok(()) => self.add_interval(*interval),
                Err(why) => self.refuse(format!("sent an invalid {why}"), now, out),
            },
            Line::Record(record) => match super::validate::run_record(&record) {
                Ok(()) => self.record = Some(record),
                Err(why) => self.refuse(format!("sent an invalid {why}"), now, out),
            },
            // Worth seeing as it comes; it is in its record too.
            Line::Warning(warning) => out.push(Action::Show(format!(
                "  {}: WARNING: {}",
                self.name,
                crate::error::one_line(&warning.to_string())
            ))),
            Line::Error(error) => {
                let kept: String = error.message.chars().take(STDERR_LINE_BYTES).collect();
                self.remote_error = Some(crate::error::one_line(&kept));
            }
            Line::Ready | Line::Other => {}
        }
        self.heard_out = true;
    }

    /// Tells it to start at `now`: its measured window begins.
    pub fn start(&mut self, now: Instant) -> Vec<Action> {
        self.phase = Phase::Running;
        self.started_at = Some(now);
        self.last_heard = now;
        vec![Action::Write(super::remote::START)]
    }

    /// Tells it to stop (once): it drains and sends its record.
    pub fn stop(&mut self, now: Instant, out: &mut Vec<Action>) {
        if self.stopped_at.is_none() {
            out.push(Action::Write(super::remote::STOP));
            // The end of input says the same, also to a remote that has not read yet.
            out.push(Action::CloseInput);
            self.stopped_at = Some(now);
        }
    }

    fn kill(&mut self, out: &mut Vec<Action>) {
        if !self.killed {
            self.killed = true;
            out.push(Action::Kill);
        }
    }

    /// Leaves it out of the run (not ready in time): it has measured nothing, and may still be
    /// connecting or filling. Its remote run sees its input end and cleans up.
    pub fn leave_out(&mut self, why: String, now: Instant, out: &mut Vec<Action>) {
        self.verdict = Some((HostStatus::NotReady, why));
        self.stop(now, out);
        self.kill(out);
    }

    /// Fails the host for what it did (`why`), keeping what it sent before; its ssh is killed
    /// (its remote run sees its input end and cleans up).
    fn cut_off(&mut self, why: String, now: Instant, out: &mut Vec<Action>) {
        if self.cut {
            return;
        }
        out.push(Action::Show(format!("  {}: failed: {why}", self.name)));
        self.cut = true;
        self.verdict = Some((HostStatus::Failed, why));
        self.stop(now, out);
        self.kill(out);
    }

    /// As `cut_off`, and nothing it sent is kept: its results are not to be trusted.
    fn refuse(&mut self, why: String, now: Instant, out: &mut Vec<Action>) {
        self.cut_off(format!("{why}: its results are left out"), now, out);
        self.record = None;
        self.pending.clear();
        self.intervals = 0;
        self.elapsed_ns = 0;
        self.read = DirectionRecord::default();
        self.write = DirectionRecord::default();
        self.trim = DirectionRecord::default();
        self.sync = SyncRecord::default();
    }

    /// Cuts it off when it is running and gone silent or past its deadline (`watch`).
    pub fn watch(
        &mut self,
        watch: &Watch,
        planned: Option<Duration>,
        now: Instant,
        out: &mut Vec<Action>,
    ) {
        if self.phase != Phase::Running || self.verdict.is_some() || self.stopped_at.is_some() {
            return;
        }
        let Some(started) = self.started_at else {
            return;
        };
        let since = now.saturating_duration_since(started);
        let quiet = now.saturating_duration_since(self.last_heard);
        if let Some(why) = watch.verdict(planned, since, quiet) {
            self.cut_off(format!("{why}; its ssh was killed"), now, out);
        }
    }

    /// Fails it once its ssh has exited and its stream is read to the end without a record
    /// (the record may still be in flight when ssh exits).
    pub fn settle(&mut self, now: Instant, out: &mut Vec<Action>) {
        if self.done(now) && self.record.is_none() && self.verdict.is_none() {
            let why = self.why_no_record();
            let why = if self.intervals > 0 {
                format!("dropped mid-run: {why}")
            } else {
                why
            };
            out.push(Action::Show(format!("  {}: failed: {why}", self.name)));
            self.verdict = Some((HostStatus::Failed, why));
        }
    }

    /// Kills its ssh when it was told to stop more than [`STOP_GRACE`] before `now` and has not
    /// exited; without its record by then it failed.
    pub fn expire(&mut self, now: Instant, out: &mut Vec<Action>) {
        let late = self
            .stopped_at
            .is_some_and(|t| now.saturating_duration_since(t) > STOP_GRACE);
        if self.phase == Phase::Exited || !late {
            return;
        }
        if self.record.is_none() && self.verdict.is_none() {
            self.verdict = Some((
                HostStatus::Failed,
                format!(
                    "sent no record within {} of the stop: its ssh was killed",
                    crate::units::format_duration(STOP_GRACE)
                ),
            ));
        }
        self.kill(out);
    }

    /// Its ssh has exited and its pipes are read to the end. Once ssh has exited its pipes end
    /// too, unless something it started holds them (a ProxyCommand, a backgrounded
    /// ControlMaster): they are waited for only briefly then.
    #[must_use]
    pub fn done(&self, now: Instant) -> bool {
        let waited = |grace: Duration| {
            self.exited_at
                .is_some_and(|t| now.saturating_duration_since(t) > grace)
        };
        self.phase == Phase::Exited
            && (self.stream_ended || waited(PIPE_GRACE * 5))
            && (self.stderr_ended || waited(PIPE_GRACE))
    }

    /// Anything came from the host: its stream or its stderr.
    #[must_use]
    pub fn heard(&self) -> bool {
        self.heard_out || !self.stderr.is_empty()
    }

    #[must_use]
    pub fn last_error(&self) -> Option<String> {
        failure(self.remote_error.as_deref(), &self.stderr)
    }

    /// Why the host ended without its record, from what is known.
    #[must_use]
    pub fn why_no_record(&self) -> String {
        let error = self.last_error();
        let mut why = match (self.remote_exit, error) {
            (Some(code), _) if code > 128 => {
                let signal = code - 128;
                let name = nix::sys::signal::Signal::try_from(signal)
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default();
                format!("the remote run was killed by signal {signal}{name} before finishing")
            }
            (Some(code), Some(error)) => {
                format!("the remote run exited with code {code} before finishing: {error}")
            }
            (Some(code), None) => {
                format!("the remote run exited with code {code} before finishing")
            }
            (None, Some(error)) => error,
            (None, None) => format!(
                "ssh exited with {}",
                self.exit
                    .map_or_else(|| "no status".to_string(), |s| s.to_string())
            ),
        };
        if !self.heard_out
            && let Some(banner) = &self.banner
        {
            why = format!(
                "sent a line that is not the fleet protocol: {banner} ({} line{} before anything of the protocol); {why}",
                self.banner_lines,
                if self.banner_lines == 1 { "" } else { "s" }
            );
        }
        why
    }

    fn add_interval(&mut self, interval: IntervalRecord) {
        self.intervals += 1;
        self.elapsed_ns += interval.duration_ns;
        let over = Rates::Over(self.elapsed_ns);
        self.read = merge_direction(&[&self.read, &interval.read], over);
        self.write = merge_direction(&[&self.write, &interval.write], over);
        self.trim = merge_direction(&[&self.trim, &interval.trim], over);
        self.sync = merge_sync(&[&self.sync, &interval.sync]);
        self.pending.push_back(interval);
    }

    /// Where it is, as the dashboard shows it, and why it failed.
    #[must_use]
    pub fn live_state(&self) -> (HostState, Option<String>) {
        let run_error = self
            .record
            .as_ref()
            .and_then(|r| r.error.as_ref())
            .map(|e| e.message.clone());
        let state = match (&self.verdict, self.phase) {
            (Some((HostStatus::NotReady, _)), _) => HostState::LeftOut,
            (Some(_), _) => HostState::Failed,
            (None, Phase::Preparing) if !self.heard() => HostState::Connecting,
            (None, Phase::Preparing) => HostState::Preparing,
            (None, Phase::Ready) => HostState::Ready,
            (None, Phase::Running) if self.stopped_at.is_some() => HostState::Stopping,
            (None, Phase::Running) => HostState::Running,
            (None, Phase::Exited) => match self.record.as_ref().map(|r| r.status) {
                Some(RunStatus::Failed) => HostState::Failed,
                _ => HostState::Done,
            },
        };
        let error = self
            .verdict
            .as_ref()
            .map(|(_, why)| why.clone())
            .or(run_error);
        (state, error)
    }

    /// Where it is, as the headless table's row says.
    #[must_use]
    pub fn state_word(&self) -> &'static str {
        match (&self.verdict, self.phase) {
            (Some((HostStatus::NotReady, _)), _) => "not ready",
            (Some(_), _) => "failed",
            (None, Phase::Preparing) => "preparing",
            (None, Phase::Ready) => "ready",
            (None, Phase::Running) if self.stopped_at.is_some() => "stopping",
            (None, Phase::Running) => "running",
            (None, Phase::Exited) => "done",
        }
    }

    /// Its part of the fleet record; its run record is moved into it.
    pub fn take_record(&mut self) -> FleetHostRecord {
        let (status, error) = match (&self.record, &self.verdict) {
            (_, Some((status, why))) => (*status, Some(why.clone())),
            (Some(record), None) => (
                match record.status {
                    RunStatus::Completed => HostStatus::Completed,
                    // A remote side runs headless: never stopped with `q`.
                    RunStatus::Interrupted | RunStatus::Stopped => HostStatus::Interrupted,
                    RunStatus::Failed => HostStatus::Failed,
                },
                record.error.as_ref().map(|e| e.message.clone()),
            ),
            (None, None) => (HostStatus::Failed, self.last_error()),
        };
        let (partial, elapsed_ns, read, write, trim, sync) = match &self.record {
            Some(r) => (
                false,
                r.elapsed_ns,
                r.read.clone(),
                r.write.clone(),
                r.trim.clone(),
                r.sync.clone(),
            ),
            None => (
                self.intervals > 0,
                self.elapsed_ns,
                self.read.clone(),
                self.write.clone(),
                self.trim.clone(),
                self.sync.clone(),
            ),
        };
        FleetHostRecord {
            host: self.name.clone(),
            status,
            error,
            partial,
            intervals: self.intervals,
            elapsed_ns,
            read,
            write,
            trim,
            sync,
            record: self.record.take(),
        }
    }
}

/// Why a host failed, from what it said: the error its remote run sent on its stream, else the
/// last line of its stderr as it is (ssh's, or the remote shell's for a missing binary); no
/// line of it is read for what it says.
#[must_use]
pub fn failure(remote_error: Option<&str>, stderr_tail: &VecDeque<String>) -> Option<String> {
    if let Some(error) = remote_error {
        return Some(error.to_string());
    }
    let line = stderr_tail.iter().rev().find(|l| !l.trim().is_empty())?;
    Some(crate::error::one_line(line))
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    fn interval(index: u64) -> Box<IntervalRecord> {
        let mut stats = crate::stats::DirectionStats::new();
        for _ in 0..10 {
            stats.record(4096, 100_000);
        }
        Box::new(crate::stats::fixture::read_interval(0, index, &stats))
    }

    /// ssh's exit status `code`.
    fn exit(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    /// A host that has said it is ready and was started at `t0`.
    fn running(t0: Instant) -> Host {
        let mut host = Host::new("h1".into(), t0);
        host.on(Event::Line(Line::Ready), t0);
        assert_eq!(host.start(t0), [Action::Write("start")]);
        host
    }

    /// Its ssh exits at `at` with `code`, both pipes read to the end.
    fn ends(host: &mut Host, code: i32, at: Instant) -> Vec<Action> {
        let mut out = Vec::new();
        for event in [Event::End, Event::ErrEnd, Event::Exited(exit(code))] {
            out.extend(host.on(event, at));
        }
        host.settle(at, &mut out);
        out
    }

    #[test]
    fn a_normal_run_goes_from_preparing_to_ready_to_running_to_done_with_its_record() {
        let t0 = Instant::now();
        let mut host = Host::new("h1".into(), t0);
        assert_eq!(host.live_state(), (HostState::Connecting, None));
        assert_eq!(host.state_word(), "preparing");
        assert!(
            host.on(Event::ErrLine("Warning: added h1".into()), t0)
                .is_empty()
        );
        assert_eq!(host.live_state().0, HostState::Preparing);
        assert!(host.on(Event::Line(Line::Ready), t0 + SECOND).is_empty());
        assert_eq!((host.phase, host.state_word()), (Phase::Ready, "ready"));
        assert_eq!(host.start(t0 + SECOND), [Action::Write("start")]);
        assert_eq!(host.live_state().0, HostState::Running);
        for index in 0..3 {
            host.on(Event::Line(Line::Interval(interval(index))), t0 + SECOND);
        }
        assert_eq!((host.intervals, host.pending.len()), (3, 3));
        let record = Box::new(crate::stats::fixture::record());
        assert!(host.on(Event::Line(Line::Record(record)), t0).is_empty());
        let t1 = t0 + 5 * SECOND;
        assert!(
            host.on(Event::ErrLine("DISKDASH-FLEET-EXIT 0".into()), t1)
                .is_empty()
        );
        assert!(!host.done(t1));
        assert_eq!(ends(&mut host, 0, t1), [Action::CloseInput]);
        assert!(host.done(t1));
        assert_eq!(host.live_state(), (HostState::Done, None));
        let part = host.take_record();
        assert_eq!(part.status, HostStatus::Completed);
        assert_eq!((part.error, part.partial, part.intervals), (None, false, 3));
        assert_eq!(part.elapsed_ns, 2_000_000_000);
        assert!(part.record.is_some());
    }

    #[test]
    fn a_host_killed_by_a_signal_says_which_and_keeps_its_partial_results() {
        let t0 = Instant::now();
        let mut host = running(t0);
        host.on(Event::Line(Line::Interval(interval(0))), t0);
        host.on(Event::ErrLine("DISKDASH-FLEET-EXIT 137".into()), t0);
        let why = "dropped mid-run: the remote run was killed by signal 9 (SIGKILL) before \
                   finishing";
        assert_eq!(
            ends(&mut host, 137, t0),
            [
                Action::CloseInput,
                Action::Show(format!("  h1: failed: {why}"))
            ]
        );
        assert_eq!(host.live_state(), (HostState::Failed, Some(why.into())));
        let part = host.take_record();
        assert_eq!(
            (part.status, part.error.as_deref()),
            (HostStatus::Failed, Some(why))
        );
        assert!(part.partial);
        assert_eq!((part.intervals, part.read.total_ios), (1, 10));
    }

    /// Why a host ended without its record, from the remote shell's status, its stderr, its
    /// stream's error line and ssh's status.
    #[test]
    fn why_no_record_from_what_is_known() {
        /// The remote shell's status, stderr's lines, the stream's error line, ssh's status,
        /// and why.
        type Case<'a> = (Option<i32>, &'a [&'a str], Option<&'a str>, i32, &'a str);
        let cases: [Case; 7] = [
            (
                Some(137),
                &["error: x"],
                None,
                137,
                "the remote run was killed by signal 9 (SIGKILL) before finishing",
            ),
            (
                Some(143),
                &[],
                None,
                143,
                "the remote run was killed by signal 15 (SIGTERM) before finishing",
            ),
            (
                Some(3),
                &["error: the disk went away", ""],
                None,
                3,
                "the remote run exited with code 3 before finishing: error: the disk went away",
            ),
            (
                Some(2),
                &["error: x"],
                Some("--size 1T: no room"),
                2,
                "the remote run exited with code 2 before finishing: --size 1T: no room",
            ),
            (
                Some(3),
                &[],
                None,
                3,
                "the remote run exited with code 3 before finishing",
            ),
            (
                None,
                &["ssh: connect to host h1 port 22: Connection refused"],
                None,
                255,
                "ssh: connect to host h1 port 22: Connection refused",
            ),
            (None, &[], None, 255, "ssh exited with exit status: 255"),
        ];
        let t0 = Instant::now();
        for (remote_exit, stderr, error, code, want) in cases {
            let mut host = Host::new("h1".into(), t0);
            for line in stderr {
                host.on(Event::ErrLine((*line).into()), t0);
            }
            if let Some(code) = remote_exit {
                host.on(Event::ErrLine(format!("DISKDASH-FLEET-EXIT {code}")), t0);
            }
            if let Some(message) = error {
                let line = crate::record::ErrorLine::new(message.into(), 2);
                host.on(Event::Line(Line::Error(line)), t0);
            }
            ends(&mut host, code, t0);
            assert_eq!(host.why_no_record(), want);
            assert_eq!(host.verdict, Some((HostStatus::Failed, want.into())));
        }
    }

    #[test]
    fn a_login_banner_before_the_protocol_is_passed_over_and_named_if_it_fails() {
        let t0 = Instant::now();
        let banner = |host: &mut Host, lines: usize| -> Vec<Action> {
            (0..lines)
                .flat_map(|n| host.on(Event::Line(Line::Foreign(format!("motd {n}"))), t0))
                .collect()
        };
        let mut host = Host::new("h1".into(), t0);
        assert!(banner(&mut host, 3).is_empty());
        host.on(Event::Line(Line::Ready), t0);
        assert_eq!((host.phase, &host.verdict), (Phase::Ready, &None));
        // It ended before anything of the protocol: the banner is named.
        let mut host = Host::new("h1".into(), t0);
        banner(&mut host, 2);
        host.on(Event::ErrLine("diskdash: command not found".into()), t0);
        ends(&mut host, 127, t0);
        assert_eq!(
            host.why_no_record(),
            "sent a line that is not the fleet protocol: motd 0 (2 lines before anything of \
             the protocol); diskdash: command not found"
        );
        // More than a banner's lines: cut off.
        let mut host = Host::new("h1".into(), t0);
        assert!(banner(&mut host, BANNER_LINES).is_empty());
        let why = format!(
            "sent {BANNER_LINES} lines that are not the fleet protocol, the first: motd 0; its \
             ssh was killed"
        );
        assert_eq!(
            banner(&mut host, 1),
            [
                Action::Show(format!("  h1: failed: {why}")),
                Action::Write("stop"),
                Action::CloseInput,
                Action::Kill
            ]
        );
        assert_eq!(host.verdict, Some((HostStatus::Failed, why)));
        // After the protocol began, one foreign line is enough.
        let mut host = running(t0);
        let out = host.on(Event::Line(Line::Foreign("oops".into())), t0);
        let why =
            "sent a line that is not the fleet protocol: oops; its ssh was killed".to_string();
        assert_eq!(out[0], Action::Show(format!("  h1: failed: {why}")));
        assert_eq!(
            out[1..],
            [Action::Write("stop"), Action::CloseInput, Action::Kill]
        );
    }

    #[test]
    fn a_broken_line_cuts_the_host_off_and_leaves_its_results_out() {
        let t0 = Instant::now();
        let mut host = running(t0);
        host.on(Event::Line(Line::Interval(interval(0))), t0);
        host.on(Event::Line(Line::Interval(interval(1))), t0);
        let out = host.on(
            Event::Line(Line::Broken("a diskdash-bench-interval line: x".into())),
            t0,
        );
        let why = "sent a fleet protocol line that is wrong: a diskdash-bench-interval line: x: \
                   its results are left out";
        assert_eq!(
            out,
            [
                Action::Show(format!("  h1: failed: {why}")),
                Action::Write("stop"),
                Action::CloseInput,
                Action::Kill
            ]
        );
        assert_eq!((host.intervals, host.pending.len()), (0, 0));
        // What it sends after is not read.
        let record = Box::new(crate::stats::fixture::record());
        assert!(host.on(Event::Line(Line::Record(record)), t0).is_empty());
        assert!(host.on(Event::LongLine, t0).is_empty());
        assert!(ends(&mut host, 255, t0).contains(&Action::CloseInput));
        let part = host.take_record();
        assert_eq!(
            (part.status, part.error.as_deref()),
            (HostStatus::Failed, Some(why))
        );
        assert_eq!(
            (part.partial, part.intervals, part.read.total_ios),
            (false, 0, 0)
        );
        assert!(part.record.is_none());
    }

    #[test]
    fn an_invalid_interval_or_a_line_too_long_cuts_the_host_off() {
        let t0 = Instant::now();
        let mut host = running(t0);
        let mut bad = interval(0);
        bad.read.total_ios += 1;
        let out = host.on(Event::Line(Line::Interval(bad)), t0);
        assert!(
            matches!(&out[0], Action::Show(line) if line.starts_with("  h1: failed: sent an invalid interval read: ")
                && line.ends_with(": its results are left out")),
            "{out:?}"
        );
        let mut host = running(t0);
        let out = host.on(Event::LongLine, t0 + SECOND);
        assert_eq!(
            out[0],
            Action::Show("  h1: failed: sent a line longer than 1 MiB; its ssh was killed".into())
        );
        assert_eq!(out.last(), Some(&Action::Kill));
    }

    #[test]
    fn a_warning_is_shown_as_it_comes_and_other_lines_pass() {
        let t0 = Instant::now();
        let mut host = running(t0);
        let warning = crate::record::RunWarning::Holes {
            path: "/srv/f".into(),
        };
        let out = host.on(Event::Line(Line::Warning(Box::new(warning.clone()))), t0);
        assert_eq!(
            out,
            [Action::Show(format!(
                "  h1: WARNING: {}",
                crate::error::one_line(&warning.to_string())
            ))]
        );
        // A sweep's point, and a second ready, change nothing.
        assert!(host.on(Event::Line(Line::Other), t0).is_empty());
        assert!(host.on(Event::Line(Line::Ready), t0).is_empty());
        assert_eq!((host.phase, &host.verdict), (Phase::Running, &None));
    }

    /// A stopped host has the grace to send its record; past it, its ssh is killed (once), and
    /// without a record it failed.
    #[test]
    fn the_stop_grace_then_the_kill_by_the_time_passed_in() {
        let t0 = Instant::now();
        let stopped = |record: bool| {
            let mut host = running(t0);
            if record {
                let record = Box::new(crate::stats::fixture::record());
                host.on(Event::Line(Line::Record(record)), t0);
            }
            let mut out = Vec::new();
            host.stop(t0, &mut out);
            assert_eq!(out, [Action::Write("stop"), Action::CloseInput]);
            host.stop(t0 + SECOND, &mut out);
            assert_eq!(out.len(), 2, "told once");
            assert_eq!(host.live_state().0, HostState::Stopping);
            host
        };
        let expire = |host: &mut Host, at: Duration| {
            let mut out = Vec::new();
            host.expire(t0 + at, &mut out);
            out
        };
        let mut host = stopped(false);
        assert!(expire(&mut host, STOP_GRACE).is_empty());
        assert_eq!(host.verdict, None);
        let late = STOP_GRACE + Duration::from_millis(1);
        assert_eq!(expire(&mut host, late), [Action::Kill]);
        assert_eq!(
            host.verdict,
            Some((
                HostStatus::Failed,
                "sent no record within 2s of the stop: its ssh was killed".into()
            ))
        );
        assert!(expire(&mut host, 2 * late).is_empty(), "killed once");
        // With its record in, it is killed all the same but did not fail.
        let mut host = stopped(true);
        assert_eq!(expire(&mut host, late), [Action::Kill]);
        assert_eq!(host.verdict, None);
        // Exited within the grace: nothing to do.
        let mut host = stopped(false);
        ends(&mut host, 0, t0 + SECOND);
        assert!(expire(&mut host, late).is_empty());
    }

    /// An exited ssh's pipes may be held open by something it started: waited for briefly.
    #[test]
    fn an_exited_host_is_done_once_its_pipes_end_or_their_grace_passes() {
        let t0 = Instant::now();
        let mut host = running(t0);
        assert_eq!(host.on(Event::Exited(exit(0)), t0), [Action::CloseInput]);
        assert!(host.on(Event::Exited(exit(0)), t0).is_empty());
        assert!(!host.done(t0 + PIPE_GRACE));
        host.on(Event::End, t0);
        assert!(!host.done(t0 + PIPE_GRACE), "stderr within its grace");
        assert!(host.done(t0 + PIPE_GRACE + Duration::from_millis(1)));
        let mut host = running(t0);
        host.on(Event::Exited(exit(0)), t0);
        host.on(Event::ErrEnd, t0);
        assert!(!host.done(t0 + PIPE_GRACE * 5));
        assert!(host.done(t0 + PIPE_GRACE * 5 + Duration::from_millis(1)));
    }

    #[test]
    fn the_stderr_tail_keeps_the_last_lines_and_names_the_failure() {
        let t0 = Instant::now();
        let mut host = Host::new("h1".into(), t0);
        for n in 0..=STDERR_LINES {
            host.on(Event::ErrLine(format!("line {n}")), t0);
        }
        host.on(Event::ErrLine("DISKDASH-FLEET-EXIT 1".into()), t0);
        host.on(Event::ErrLine("  ".into()), t0);
        assert_eq!(host.stderr.len(), STDERR_LINES);
        assert_eq!(host.stderr.front().map(String::as_str), Some("line 2"));
        assert_eq!(
            host.last_error().as_deref(),
            Some(format!("line {STDERR_LINES}").as_str())
        );
        // The remote run's own error, when it sent one, comes first.
        let line = crate::record::ErrorLine::new("the disk\nwent away".into(), 1);
        host.on(Event::Line(Line::Error(line)), t0);
        assert_eq!(host.last_error().as_deref(), Some("the disk; went away"));
        assert_eq!(host.remote_exit, Some(1));
    }

    #[test]
    fn a_host_s_failure_is_its_typed_error_else_its_last_stderr_line_as_it_is() {
        let tail: VecDeque<String> = [
            "error: an older line",
            "WARNING: not read for what it says",
            "ssh: connect to host h1 port 22: Connection refused",
            "",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        assert_eq!(
            failure(Some("the disk went away"), &tail).as_deref(),
            Some("the disk went away")
        );
        assert_eq!(
            failure(None, &tail).as_deref(),
            Some("ssh: connect to host h1 port 22: Connection refused")
        );
        let tail: VecDeque<String> = ["error: a\u{1b}[2J"]
            .into_iter()
            .map(String::from)
            .collect();
        // Kept as it is, escaped: nothing is cut from it by what it says.
        assert_eq!(failure(None, &tail).as_deref(), Some("error: a\\u{1b}[2J"));
        assert_eq!(failure(None, &VecDeque::new()), None);
    }
}
