//! `diskdash fleet HOSTS -- bench|fio|sweep ARGS`: the same run on every host over the user's
//! own OpenSSH, started together, one table per interval, one record.
//!
//! ```text
//!   controller                         per host: ssh -T host 'exec diskdash --fleet-remote ...'
//!   spawn every host  ──────────────>  prepares (fills), prints {"format":"...-ready"}
//!   all ready (or --ready-timeout) ─>  "start\n" on stdin: the measured windows begin together
//!   interval lines  <───────────────   one JSON line per interval (`--jsonl -`)
//!   Ctrl-C: "stop\n" to every host ─>  drained, recorded `interrupted`
//!   run records  <──────────────────   the host's run record, the last line
//! ```
//! A host whose connection drops is marked failed; the intervals it sent are its partial
//! results. The fleet's latency comes from the hosts' histograms merged (`fleet::merge`).
//!
//! In a terminal (unless `--no-tui`) the controller runs on a thread of its own and, instead of
//! printing, keeps the live fleet (`fleet::live`) in a watch channel for the dashboard
//! (`tui::run_fleet`); leaving the dashboard raises the same flag SIGINT does.

use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant, SystemTime};

use anyhow::Context;
use clap::Parser;

use crate::bench::options::Key;
use crate::cli::{Cli, Command, FleetArgs};
use crate::fleet::lines::{self, MAX_LINE_BYTES};
use crate::fleet::live::{FleetState, HostState, LiveFleet};
use crate::fleet::merge::{Rates, merge_direction, merge_sync, p50_p99};
use crate::fleet::plan::{COMMANDS, DEADLINE_MARGIN, FleetPlan, UNKNOWN_RAMP, Watch};
use crate::fleet::ssh::{self, SshOptions};
use crate::fleet::table::Row;
use crate::record::{
    DirectionRecord, ERROR_FORMAT, ErrorLine, FLEET_FORMAT, FORMAT_VERSION, FleetAggregate,
    FleetHostRecord, FleetRecord, HostStatus, INTERVAL_FORMAT, IntervalRecord, READY_FORMAT,
    RunRecord, RunStatus, RunWarning, SyncRecord, WARNING_FORMAT, WarningLine, rfc3339_utc,
};
use crate::report::fleet::{shown_command, summary, table};

/// How long a stopped host may take to drain and send its record before its ssh is killed (a
/// run drains its queue in milliseconds; Ctrl-C ends the fleet in about this long). The remote
/// run still cleans up: it sees its input end.
const STOP_GRACE: Duration = Duration::from_secs(2);
/// Longest stderr line kept (the rest of a longer one is passed over).
const STDERR_LINE_BYTES: usize = 4096;
/// Characters of a host's line shown when it is not the fleet protocol.
const SHOWN_CHARS: usize = 80;
/// Lines before the first line of the protocol taken as the login's banner; more fail the host.
const BANNER_LINES: usize = 64;
/// How long the pipes of an exited ssh may stay open (held by a process it started).
const PIPE_GRACE: Duration = Duration::from_secs(1);
/// Intervals a host may be ahead of a silent one before its tables are shown without it.
const MAX_PENDING: usize = 8;
/// Lines of a host's stderr kept (its last line names why it failed, when it failed before it
/// could say so on its stream: ssh, a missing binary).
const STDERR_LINES: usize = 20;

/// The plan of a fleet's command line.
///
/// # Errors
/// A usage error naming the value, where it came from, and the fix.
pub fn plan_of(args: &FleetArgs) -> anyhow::Result<FleetPlan> {
    if let Some(word) = args.stray.first() {
        let command = args
            .stray
            .iter()
            .find(|w| COMMANDS.contains(&w.as_str()))
            .map_or("bench", String::as_str);
        return Err(crate::error::usage!(
            "{word:?}: the command goes after `--`: diskdash fleet {} -- {command} ...",
            args.hosts
        ));
    }
    let hosts = crate::fleet::parse_hosts(&args.hosts)?;
    let Some(first) = args.command.first() else {
        return Err(crate::error::usage!(
            "no command after `--`; give what each host runs: diskdash fleet {} -- bench \
                 /data --runtime 30s",
            args.hosts
        ));
    };
    if !COMMANDS.contains(&first.as_str()) {
        return Err(crate::error::usage!(
            "{first:?} after `--` is not a command fleet runs; give bench, fio or sweep"
        ));
    }
    let mut command = args.command.clone();
    let forwarded = command.iter().skip(1).any(|a| a == "--allow-destructive");
    if args.allow_destructive && !forwarded {
        command.push("--allow-destructive".into());
    }
    // The arguments are checked here with the remote side's own grammar, so a typo fails
    // once, before any host is touched.
    let mut argv = vec!["diskdash".to_string()];
    argv.extend(command.iter().cloned());
    let mut planned = None;
    let second = Duration::from_secs(1);
    let mut watch = Watch {
        interval: second,
        ramp: UNKNOWN_RAMP,
        heartbeat: true,
        deadline: None,
    };
    let duration = |text: &str| crate::units::parse_duration(text).ok();
    match Cli::try_parse_from(&argv) {
        Ok(cli) => match cli.command {
            Some(Command::Bench(bench)) => {
                crate::fleet::remote::refuse_stdout_outputs(
                    bench.json.as_deref(),
                    bench.jsonl.as_deref(),
                )?;
                let spec =
                    super::flags::job(&bench, &crate::bench::spec::MachineLimits::detect()).ok();
                // Warm-up and measured time; a size-based run has no known end.
                planned = spec
                    .as_ref()
                    .filter(|spec| spec.io_size_bytes.is_none())
                    .map(|spec| spec.ramp + spec.runtime);
                let job = |key: Key| bench.job.get(key).unwrap_or(key.default_text());
                let verifies = bench.job.get(Key::Verify).is_some()
                    || bench.job.get(Key::VerifyOnly).is_some();
                watch = Watch {
                    interval: duration(job(Key::Interval)).unwrap_or(second),
                    ramp: duration(job(Key::Ramp)).unwrap_or(UNKNOWN_RAMP),
                    heartbeat: planned.is_some() || !verifies,
                    deadline: planned.filter(|_| !verifies).map(|p| p + DEADLINE_MARGIN),
                };
            }
            Some(Command::Sweep(sweep)) => {
                crate::fleet::remote::refuse_stdout_outputs(
                    sweep.json.as_deref(),
                    sweep.jsonl.as_deref(),
                )?;
                let interval = sweep.job.get(Key::Interval);
                watch.interval =
                    duration(interval.unwrap_or(Key::Interval.default_text())).unwrap_or(second);
                // Each point warms up (2 s unless said) without interval lines.
                watch.ramp = sweep
                    .job
                    .get(Key::Ramp)
                    .map_or(Some(Duration::from_secs(2)), duration)
                    .unwrap_or(UNKNOWN_RAMP);
            }
            _ => {}
        },
        Err(err) => match crate::cli::parse_failure(&err, &argv) {
            crate::cli::ParseFailure::Usage(line) => {
                return Err(crate::error::usage!("after `--`: {line}"));
            }
            crate::cli::ParseFailure::Display => {
                return Err(crate::error::usage!(
                    "after `--`: help and version print locally: run diskdash {} there",
                    command.join(" ")
                ));
            }
        },
    }
    let ready_timeout = crate::units::parse_duration(&args.ready_timeout)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            crate::error::usage!(
                "--ready-timeout {:?} is not a duration; use e.g. 90s or 5m",
                args.ready_timeout
            )
        })?;
    Ok(FleetPlan {
        hosts,
        command,
        destructive: args.allow_destructive || forwarded,
        ready_timeout,
        ssh: SshOptions {
            program: args.ssh.clone(),
            config: args.ssh_config.clone(),
            options: args.ssh_options.clone(),
        },
        planned,
        watch: Watch {
            // A 0 or nonsense interval is the remote's to refuse; it cannot make the
            // heartbeat zero.
            interval: watch.interval.max(Duration::from_millis(1)),
            ..watch
        },
    })
}

/// `diskdash fleet`.
///
/// # Errors
/// Usage errors before anything starts (exit 2); a failed host or run (exit 1) after the
/// record is written.
pub fn run(args: &FleetArgs) -> anyhow::Result<ExitCode> {
    let plan = plan_of(args)?;
    let json_stdout = args.json.as_deref() == Some(std::path::Path::new("-"));
    let destination = match &args.json {
        Some(path) if !json_stdout => Some(crate::record::output::RecordDestination::prepare(
            "--json",
            path,
            crate::record::output::Guard {
                targets: &[],
                other_output: None,
                force: args.force,
                in_use: crate::bench::blockdev::file_in_use,
            },
        )?),
        _ => None,
    };
    let interrupt = Arc::new(AtomicBool::new(false));
    crate::session::signals::raise_on_interrupt(&interrupt)?;
    {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(
            err,
            "diskdash fleet: {} host{}: {}",
            plan.hosts.len(),
            if plan.hosts.len() == 1 { "" } else { "s" },
            shown_command(&plan.command)
        );
        for host in &plan.hosts {
            if plan.destructive {
                let _ = writeln!(
                    err,
                    "  {host}: --allow-destructive: may write over the block device or file \
                     with data it names"
                );
            }
        }
    }
    let copies = if args.copy_binary {
        crate::fleet::copy::install(&plan, &args.remote_binary)?
    } else {
        crate::fleet::copy::Installed::none(&plan.hosts, &args.remote_binary)
    };
    // In a terminal the dashboard shows the fleet; a record on stdout makes stdout data.
    let dashboard = !args.no_tui && !json_stdout && crate::tui::terminal::is_interactive();
    let started_at = SystemTime::now();
    let mut fleet = Fleet::spawn(&plan, &copies)?;
    let (mut fleet, outcome) = if dashboard {
        let (tx, rx) =
            tokio::sync::watch::channel(LiveFleet::new(&plan.hosts, &plan.command, plan.planned));
        fleet.live = Some(tx);
        let controller = {
            let plan = plan.clone();
            let interrupt = interrupt.clone();
            let all_or_nothing = args.all_or_nothing;
            std::thread::Builder::new()
                .name("fleet".into())
                .spawn(move || {
                    let outcome = fleet.drive(&plan, &interrupt, all_or_nothing);
                    (fleet, outcome)
                })
                .context("starting the fleet's controller")?
        };
        let shown = crate::tui::run_fleet(rx, &interrupt);
        if !controller.is_finished() {
            eprintln!("stopping every host (their records are being written)");
        }
        let (mut fleet, outcome) = controller
            .join()
            .map_err(|_| anyhow::anyhow!("the fleet's controller panicked"))?;
        fleet.live = None;
        if let Err(err) = shown {
            eprintln!("the dashboard failed: {err:#}");
        }
        (fleet, outcome)
    } else {
        let outcome = fleet.drive(&plan, &interrupt, args.all_or_nothing);
        (fleet, outcome)
    };
    copies.remove(&plan);
    let record = fleet.record(&plan, args.all_or_nothing, started_at, outcome);
    let summary = summary(&record);
    let mut record_error = None;
    if let Some(destination) = destination {
        let written = serde_json::to_vec_pretty(&record)
            .context("serialising the fleet record")
            .and_then(|bytes| destination.commit(&bytes));
        if let Err(err) = written {
            record_error = Some(format!("{err:#}"));
        }
    }
    if json_stdout {
        let _ = std::io::stderr().write_all(summary.as_bytes());
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &record).context("writing the record to stdout")?;
        let _ = writeln!(out);
    } else {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(summary.as_bytes());
        if let Some(path) = &args.json {
            let _ = writeln!(out, "  record  {}", path.display());
        }
        let _ = out.flush();
    }
    if let Some(err) = record_error {
        anyhow::bail!("{err}");
    }
    match record.status {
        RunStatus::Completed => Ok(ExitCode::SUCCESS),
        RunStatus::Interrupted => Ok(ExitCode::from(crate::error::EXIT_INTERRUPTED)),
        RunStatus::Failed => {
            let failed: Vec<String> = record
                .hosts
                .iter()
                .filter(|h| h.status != HostStatus::Completed)
                .map(|h| {
                    let why = match (h.status, h.error.as_deref()) {
                        (_, Some(why)) => why,
                        // Stopped on the host itself (a signal there), not from here.
                        (HostStatus::Interrupted, None) => "interrupted on the host",
                        _ => "failed",
                    };
                    format!("{}: {why}", h.host)
                })
                .collect();
            let kept = if failed.len() == record.hosts.len() {
                "the record keeps what they sent"
            } else {
                "the others' results and the fleet's are kept"
            };
            Err(anyhow::anyhow!(
                "{} of {} hosts failed ({}); {kept}",
                failed.len(),
                record.hosts.len(),
                failed.join("; ")
            ))
        }
    }
}

/// What a host's stdout line is.
enum Line {
    Ready,
    Interval(Box<IntervalRecord>),
    Record(Box<RunRecord>),
    /// A warning of the remote run (page cache, stalls), worth seeing as it comes.
    Warning(Box<RunWarning>),
    /// The error the remote run ended with.
    Error(ErrorLine),
    /// Another line of the stream (a sweep's point).
    Other,
    /// Not a line of the protocol: the line as shown (escaped, cut).
    Foreign(String),
    /// A line of the protocol that does not parse: why.
    Broken(String),
}

enum Event {
    Line(usize, Line),
    /// The host's stdout ended (the remote run ended, or the connection dropped).
    End(usize),
    /// Its stderr ended: the last error line is in.
    ErrEnd(usize),
    /// A line came on its stderr: it is alive.
    Heard(usize),
    /// The remote shell's status of the run (`ssh::EXIT_MARK`).
    RemoteExit(usize, i32),
    /// It sent a line longer than `MAX_LINE_BYTES`: its stdout is no longer read.
    LongLine(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Preparing,
    Ready,
    Running,
    /// Its ssh exited.
    Exited,
}

struct Host {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    phase: Phase,
    stream_ended: bool,
    stderr_ended: bool,
    /// A line came on its stdout.
    heard_out: bool,
    /// Set when the host is left out or fails for a reason the controller knows.
    verdict: Option<(HostStatus, String)>,
    exit: Option<std::process::ExitStatus>,
    exited_at: Option<Instant>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The error its remote run sent (one line, escaped).
    remote_error: Option<String>,
    /// Received intervals not yet shown in a table.
    pending: VecDeque<IntervalRecord>,
    intervals: u64,
    /// The received intervals summed (partial results when no record comes).
    elapsed_ns: u64,
    read: DirectionRecord,
    write: DirectionRecord,
    trim: DirectionRecord,
    sync: SyncRecord,
    record: Option<Box<RunRecord>>,
    /// When it was told to stop (for the grace before a kill).
    stopped_at: Option<Instant>,
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
}

impl Host {
    fn say(&mut self, word: &str) {
        if let Some(stdin) = &mut self.stdin
            && writeln!(stdin, "{word}")
                .and_then(|()| stdin.flush())
                .is_err()
        {
            self.stdin = None;
        }
    }

    fn stop(&mut self) {
        if self.stopped_at.is_none() {
            self.say(crate::fleet::remote::STOP);
            // The end of input says the same, also to a remote that has not read yet.
            self.stdin = None;
            self.stopped_at = Some(Instant::now());
        }
    }

    fn done(&self) -> bool {
        // Once ssh has exited its pipes end too, unless something it started holds them (a
        // ProxyCommand, a backgrounded ControlMaster): wait for them only briefly then.
        let waited = |grace: Duration| self.exited_at.is_some_and(|t| t.elapsed() > grace);
        self.phase == Phase::Exited
            && (self.stream_ended || waited(PIPE_GRACE * 5))
            && (self.stderr_ended || waited(PIPE_GRACE))
    }

    /// Anything came from the host: its stream or its stderr.
    fn heard(&self) -> bool {
        self.heard_out || self.stderr.lock().is_ok_and(|t| !t.is_empty())
    }

    fn last_error(&self) -> Option<String> {
        let tail = self.stderr.lock().ok()?;
        failure(self.remote_error.as_deref(), &tail)
    }

    /// Fails the host for what it did (`why`), keeping what it sent before; its ssh is killed
    /// (its remote run sees its input end and cleans up).
    fn cut_off(&mut self, why: String, live: Option<&tokio::sync::watch::Sender<LiveFleet>>) {
        if self.cut {
            return;
        }
        say(live, format!("  {}: failed: {why}", self.name));
        self.cut = true;
        self.verdict = Some((HostStatus::Failed, why));
        self.stop();
        let _ = self.child.kill();
    }

    /// As `cut_off`, and nothing it sent is kept: its results are not to be trusted.
    fn refuse(&mut self, why: String, live: Option<&tokio::sync::watch::Sender<LiveFleet>>) {
        self.cut_off(format!("{why}: its results are left out"), live);
        self.record = None;
        self.pending.clear();
        self.intervals = 0;
        self.elapsed_ns = 0;
        self.read = DirectionRecord::default();
        self.write = DirectionRecord::default();
        self.trim = DirectionRecord::default();
        self.sync = SyncRecord::default();
    }

    /// Why the host ended without its record, from what is known.
    fn why_no_record(&self) -> String {
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
                "sent a line that is not the fleet protocol: {banner} ({} line{} before                  anything of the protocol); {why}",
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
}

/// How the controller ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Finished,
    Interrupted,
    /// `--all-or-nothing` and a host was not ready.
    NotAllReady,
}

struct Fleet {
    hosts: Vec<Host>,
    events: mpsc::Receiver<Event>,
    /// The dashboard's copy of the fleet; `None`: headless, the status goes to stderr.
    live: Option<tokio::sync::watch::Sender<LiveFleet>>,
}

impl Fleet {
    fn spawn(plan: &FleetPlan, copies: &crate::fleet::copy::Installed) -> anyhow::Result<Self> {
        let (tx, events) = mpsc::channel();
        let mut hosts = Vec::with_capacity(plan.hosts.len());
        for (i, name) in plan.hosts.iter().enumerate() {
            let mut words = vec![copies.binary(i).to_string(), "--fleet-remote".to_string()];
            words.extend(plan.command.iter().cloned());
            let remote = ssh::remote_command_reporting_exit(&words);
            let mut command = std::process::Command::new(&plan.ssh.program);
            command
                .args(ssh::ssh_args(&plan.ssh, name, &remote))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            // Its own process group: Ctrl-C in the terminal reaches the controller only, which
            // stops every host cleanly instead of ssh dropping the connections.
            std::os::unix::process::CommandExt::process_group(&mut command, 0);
            let mut child = command.spawn().with_context(|| {
                format!("starting {} for host {name}", plan.ssh.program.display())
            })?;
            let stdout = child.stdout.take().context("ssh's stdout")?;
            let stderr_pipe = child.stderr.take().context("ssh's stderr")?;
            let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_LINES)));
            let tail = stderr.clone();
            let err_tx = tx.clone();
            std::thread::Builder::new()
                .name(format!("fleet-err-{i}"))
                .spawn(move || {
                    let mut reader = BufReader::new(stderr_pipe);
                    let mut buf = Vec::new();
                    loop {
                        match lines::read_line(&mut reader, &mut buf, STDERR_LINE_BYTES) {
                            Ok(lines::Read::Line) => {}
                            // Kept cut; the rest of the line is passed over.
                            Ok(lines::Read::TooLong) => {
                                if lines::skip_rest(&mut reader).is_err() {
                                    break;
                                }
                            }
                            Ok(lines::Read::End) | Err(_) => break,
                        }
                        let line = String::from_utf8_lossy(&buf).into_owned();
                        if err_tx.send(Event::Heard(i)).is_err() {
                            return;
                        }
                        if let Some(code) = ssh::exit_mark(&line) {
                            let _ = err_tx.send(Event::RemoteExit(i, code));
                            continue;
                        }
                        if let Ok(mut tail) = tail.lock() {
                            if tail.len() == STDERR_LINES {
                                tail.pop_front();
                            }
                            tail.push_back(line);
                        }
                    }
                    let _ = err_tx.send(Event::ErrEnd(i));
                })
                .context("starting a reader")?;
            let tx = tx.clone();
            std::thread::Builder::new()
                .name(format!("fleet-out-{i}"))
                .spawn(move || {
                    let mut reader = BufReader::new(stdout);
                    let mut buf = Vec::new();
                    loop {
                        let event = match lines::read_line(&mut reader, &mut buf, MAX_LINE_BYTES) {
                            Ok(lines::Read::Line) => Event::Line(i, parse_line(&buf)),
                            // Nothing more is read: the host is cut off.
                            Ok(lines::Read::TooLong) => {
                                let _ = tx.send(Event::LongLine(i));
                                break;
                            }
                            Ok(lines::Read::End) | Err(_) => break,
                        };
                        if tx.send(event).is_err() {
                            return;
                        }
                    }
                    // Dropping the pipe makes a writer on it fail instead of block.
                    drop(reader);
                    let _ = tx.send(Event::End(i));
                })
                .context("starting a reader")?;
            hosts.push(Host {
                name: name.clone(),
                stdin: child.stdin.take(),
                child,
                phase: Phase::Preparing,
                stream_ended: false,
                stderr_ended: false,
                heard_out: false,
                verdict: None,
                exit: None,
                exited_at: None,
                stderr,
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
                last_heard: Instant::now(),
                banner: None,
                banner_lines: 0,
                remote_exit: None,
                cut: false,
            });
        }
        Ok(Self {
            hosts,
            events,
            live: None,
        })
    }

    /// Runs the fleet to its end: the start together, the tables, the stop.
    fn drive(&mut self, plan: &FleetPlan, interrupt: &AtomicBool, all_or_nothing: bool) -> Ending {
        let deadline = Instant::now() + plan.ready_timeout;
        let mut started = false;
        let mut ending = Ending::Finished;
        let mut shown_ready = vec![false; self.hosts.len()];
        loop {
            match self.events.recv_timeout(Duration::from_millis(100)) {
                Ok(event) => self.take(event),
                Err(mpsc::RecvTimeoutError::Timeout | mpsc::RecvTimeoutError::Disconnected) => {}
            }
            while let Ok(event) = self.events.try_recv() {
                self.take(event);
            }
            self.reap();
            for (i, host) in self.hosts.iter().enumerate() {
                if host.phase == Phase::Ready && !shown_ready[i] {
                    shown_ready[i] = true;
                    say(self.live.as_ref(), format!("  {}: ready", host.name));
                }
            }
            if interrupt.load(Ordering::Relaxed) && ending != Ending::Interrupted {
                ending = Ending::Interrupted;
                say(
                    self.live.as_ref(),
                    "stopping every host (their records are being written)".into(),
                );
                for host in &mut self.hosts {
                    host.stop();
                }
            }
            if !started && ending == Ending::Finished {
                let waiting = self.hosts.iter().any(|h| h.phase == Phase::Preparing);
                let failed_early = self.hosts.iter().any(|h| h.phase == Phase::Exited);
                if all_or_nothing && failed_early {
                    ending = Ending::NotAllReady;
                    self.stop_all();
                } else if !waiting || Instant::now() >= deadline {
                    for host in self
                        .hosts
                        .iter_mut()
                        .filter(|h| h.phase == Phase::Preparing)
                    {
                        host.verdict = Some((
                            HostStatus::NotReady,
                            format!(
                                "not ready within --ready-timeout {}",
                                crate::units::format_duration(plan.ready_timeout)
                            ),
                        ));
                        host.stop();
                        // Left out: it has measured nothing, and may still be connecting or
                        // filling. Its remote run sees its input end and cleans up.
                        let _ = host.child.kill();
                    }
                    if all_or_nothing && waiting {
                        ending = Ending::NotAllReady;
                        self.stop_all();
                    } else {
                        started = true;
                        let ready = self
                            .hosts
                            .iter()
                            .filter(|h| h.phase == Phase::Ready)
                            .count();
                        if ready > 0 {
                            say(
                                self.live.as_ref(),
                                format!("start: {ready} of {} hosts at once", self.hosts.len()),
                            );
                            if let Some(live) = &self.live {
                                live.send_modify(|l| l.started = Some(Instant::now()));
                            }
                        }
                        for host in self.hosts.iter_mut().filter(|h| h.phase == Phase::Ready) {
                            host.say(crate::fleet::remote::START);
                            host.phase = Phase::Running;
                            host.started_at = Some(Instant::now());
                            host.last_heard = Instant::now();
                        }
                    }
                }
            }
            self.watch(plan);
            self.show_intervals(false);
            self.publish(started, ending);
            for host in &mut self.hosts {
                if host.phase != Phase::Exited
                    && host.stopped_at.is_some_and(|t| t.elapsed() > STOP_GRACE)
                {
                    if host.record.is_none() && host.verdict.is_none() {
                        host.verdict = Some((
                            HostStatus::Failed,
                            format!(
                                "sent no record within {} of the stop: its ssh was killed",
                                crate::units::format_duration(STOP_GRACE)
                            ),
                        ));
                    }
                    let _ = host.child.kill();
                }
            }
            if self.hosts.iter().all(Host::done) {
                break;
            }
        }
        self.show_intervals(true);
        self.publish(started, ending);
        if let Some(live) = &self.live {
            let state = self.final_state(ending);
            live.send_modify(|l| {
                l.ended_after = l.started.map(|t| t.elapsed());
                l.state = state;
                l.message = Some("the run has ended: q quits and prints the summary".into());
            });
        }
        ending
    }

    /// The hosts' states and the fleet's into the dashboard's copy, when they changed.
    fn publish(&self, started: bool, ending: Ending) {
        let Some(live) = &self.live else {
            return;
        };
        let hosts: Vec<(HostState, Option<String>)> = self.hosts.iter().map(live_state).collect();
        let state =
            if ending != Ending::Finished || self.hosts.iter().any(|h| h.stopped_at.is_some()) {
                FleetState::Stopping
            } else if started {
                FleetState::Running
            } else {
                FleetState::Starting
            };
        live.send_if_modified(|l| {
            let mut changed = l.state != state;
            l.state = state;
            for (host, (state, error)) in l.hosts.iter_mut().zip(hosts) {
                changed |= host.state != state || host.error != error;
                host.state = state;
                host.error = error;
            }
            changed
        });
    }

    /// How the run ended, for the dashboard's header: the record's status (completed only when
    /// every host completed).
    fn final_state(&self, ending: Ending) -> FleetState {
        let failed = self
            .hosts
            .iter()
            .filter(|h| {
                h.verdict.is_some()
                    || h.record
                        .as_ref()
                        .is_none_or(|r| r.status != RunStatus::Completed)
            })
            .count();
        match ending {
            Ending::Interrupted => FleetState::Interrupted,
            Ending::NotAllReady => {
                FleetState::Failed("not every host was ready (--all-or-nothing)".into())
            }
            Ending::Finished if failed == 0 => FleetState::Finished,
            Ending::Finished => {
                FleetState::Failed(format!("{failed} of {} hosts failed", self.hosts.len()))
            }
        }
    }

    fn stop_all(&mut self) {
        for host in &mut self.hosts {
            host.stop();
        }
    }

    /// Cuts off the running hosts gone silent or past their deadline.
    fn watch(&mut self, plan: &FleetPlan) {
        for host in &mut self.hosts {
            if host.phase != Phase::Running || host.verdict.is_some() || host.stopped_at.is_some() {
                continue;
            }
            let Some(started) = host.started_at else {
                continue;
            };
            if let Some(why) =
                plan.watch
                    .verdict(plan.planned, started.elapsed(), host.last_heard.elapsed())
            {
                host.cut_off(format!("{why}; its ssh was killed"), self.live.as_ref());
            }
        }
    }

    fn take(&mut self, event: Event) {
        let live = self.live.as_ref();
        match event {
            Event::Line(i, line) => {
                let host = &mut self.hosts[i];
                host.last_heard = Instant::now();
                if host.cut {
                    return;
                }
                match line {
                    // Before the protocol begins: the login's banner (a shell's rc file).
                    Line::Foreign(shown) if !host.heard_out => {
                        host.banner_lines += 1;
                        host.banner.get_or_insert(shown);
                        if host.banner_lines > BANNER_LINES {
                            let why = format!(
                                "sent {BANNER_LINES} lines that are not the fleet protocol, the                                  first: {}; its ssh was killed",
                                host.banner.as_deref().unwrap_or_default()
                            );
                            host.cut_off(why, live);
                        }
                        return;
                    }
                    Line::Foreign(shown) => host.cut_off(
                        format!(
                            "sent a line that is not the fleet protocol: {shown}; its ssh was                              killed"
                        ),
                        live,
                    ),
                    Line::Broken(why) => {
                        host.refuse(format!("sent a fleet protocol line that is wrong: {why}"), live);
                    }
                    Line::Ready if host.phase == Phase::Preparing => host.phase = Phase::Ready,
                    Line::Interval(interval) => match crate::fleet::validate::interval(&interval) {
                        Ok(()) => host.add_interval(*interval),
                        Err(why) => host.refuse(format!("sent an invalid {why}"), live),
                    },
                    Line::Record(record) => match crate::fleet::validate::run_record(&record) {
                        Ok(()) => host.record = Some(record),
                        Err(why) => host.refuse(format!("sent an invalid {why}"), live),
                    },
                    // Worth seeing as it comes; it is in its record too.
                    Line::Warning(warning) => say(
                        live,
                        format!(
                            "  {}: WARNING: {}",
                            host.name,
                            crate::error::one_line(&warning.to_string())
                        ),
                    ),
                    Line::Error(error) => {
                        let kept: String = error.message.chars().take(STDERR_LINE_BYTES).collect();
                        host.remote_error = Some(crate::error::one_line(&kept));
                    }
                    Line::Ready | Line::Other => {}
                }
                host.heard_out = true;
            }
            Event::Heard(i) => self.hosts[i].last_heard = Instant::now(),
            Event::RemoteExit(i, code) => self.hosts[i].remote_exit = Some(code),
            Event::LongLine(i) => {
                let why = format!(
                    "sent a line longer than {} MiB; its ssh was killed",
                    MAX_LINE_BYTES >> 20
                );
                let host = &mut self.hosts[i];
                host.last_heard = Instant::now();
                host.cut_off(why, live);
            }
            Event::End(i) => self.hosts[i].stream_ended = true,
            Event::ErrEnd(i) => self.hosts[i].stderr_ended = true,
        }
    }

    /// Notes the ssh processes that exited.
    fn reap(&mut self) {
        for host in &mut self.hosts {
            if host.phase == Phase::Exited {
                continue;
            }
            if let Ok(Some(status)) = host.child.try_wait() {
                host.exit = Some(status);
                host.exited_at = Some(Instant::now());
                host.phase = Phase::Exited;
                host.stdin = None;
            }
        }
        // A host that exited without a record, once its stream is read to the end (the
        // record may still be in flight when ssh exits).
        for host in &mut self.hosts {
            if host.done() && host.record.is_none() && host.verdict.is_none() {
                let why = host.why_no_record();
                let why = if host.intervals > 0 {
                    format!("dropped mid-run: {why}")
                } else {
                    why
                };
                say(
                    self.live.as_ref(),
                    format!("  {}: failed: {why}", host.name),
                );
                host.verdict = Some((HostStatus::Failed, why));
            }
        }
    }

    /// Prints the table of each interval every host still running has sent (`flush`: also
    /// the incomplete ones at the end).
    fn show_intervals(&mut self, flush: bool) {
        loop {
            let live = |h: &Host| !h.done() && h.verdict.is_none();
            let any = self.hosts.iter().any(|h| !h.pending.is_empty());
            let complete = self.hosts.iter().all(|h| !h.pending.is_empty() || !live(h));
            // A host that stopped sending without dropping holds the others' tables back only
            // so long: memory stays bounded, and the late host's rows show as they come.
            let held_back = self.hosts.iter().any(|h| h.pending.len() > MAX_PENDING);
            if !any || !(complete || flush || held_back) {
                return;
            }
            let fronts: Vec<(usize, IntervalRecord)> = self
                .hosts
                .iter_mut()
                .enumerate()
                .filter_map(|(i, h)| h.pending.pop_front().map(|r| (i, r)))
                .collect();
            if let Some(live) = &self.live {
                live.send_modify(|l| l.push_interval(fronts));
                continue;
            }
            let (title, rows, fleet) = interval_table(&self.hosts, &fronts);
            eprint!("{}", table::render(&title, &rows, &fleet));
        }
    }

    /// The fleet record.
    fn record(
        &mut self,
        plan: &FleetPlan,
        all_or_nothing: bool,
        started_at: SystemTime,
        ending: Ending,
    ) -> FleetRecord {
        let mut hosts = Vec::with_capacity(self.hosts.len());
        for host in &mut self.hosts {
            let (status, error) = match (&host.record, &host.verdict) {
                (_, Some((status, why))) => (*status, Some(why.clone())),
                (Some(record), None) => (
                    match record.status {
                        RunStatus::Completed => HostStatus::Completed,
                        RunStatus::Interrupted => HostStatus::Interrupted,
                        RunStatus::Failed => HostStatus::Failed,
                    },
                    record.error.as_ref().map(|e| e.message.clone()),
                ),
                (None, None) => (HostStatus::Failed, host.last_error()),
            };
            let (partial, elapsed_ns, read, write, trim, sync) = match &host.record {
                Some(r) => (
                    false,
                    r.elapsed_ns,
                    r.read.clone(),
                    r.write.clone(),
                    r.trim.clone(),
                    r.sync.clone(),
                ),
                None => (
                    host.intervals > 0,
                    host.elapsed_ns,
                    host.read.clone(),
                    host.write.clone(),
                    host.trim.clone(),
                    host.sync.clone(),
                ),
            };
            hosts.push(FleetHostRecord {
                host: host.name.clone(),
                status,
                error,
                partial,
                intervals: host.intervals,
                elapsed_ns,
                read,
                write,
                trim,
                sync,
                record: host.record.take(),
            });
        }
        let measured: Vec<&FleetHostRecord> = hosts
            .iter()
            .filter(|h| h.record.is_some() || h.partial)
            .collect();
        let reads: Vec<&DirectionRecord> = measured.iter().map(|h| &h.read).collect();
        let writes: Vec<&DirectionRecord> = measured.iter().map(|h| &h.write).collect();
        let trims: Vec<&DirectionRecord> = measured.iter().map(|h| &h.trim).collect();
        let syncs: Vec<&SyncRecord> = measured.iter().map(|h| &h.sync).collect();
        let aggregate = FleetAggregate {
            hosts: u32::try_from(measured.len()).unwrap_or(u32::MAX),
            elapsed_ns: measured.iter().map(|h| h.elapsed_ns).max().unwrap_or(0),
            read: merge_direction(&reads, Rates::Summed),
            write: merge_direction(&writes, Rates::Summed),
            trim: merge_direction(&trims, Rates::Summed),
            sync: merge_sync(&syncs),
        };
        let status = match ending {
            Ending::Interrupted => RunStatus::Interrupted,
            Ending::NotAllReady => RunStatus::Failed,
            Ending::Finished if hosts.iter().all(|h| h.status == HostStatus::Completed) => {
                RunStatus::Completed
            }
            Ending::Finished => RunStatus::Failed,
        };
        FleetRecord {
            format: FLEET_FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            diskdash_version: env!("CARGO_PKG_VERSION").to_string(),
            status,
            started_at: rfc3339_utc(started_at),
            ended_at: rfc3339_utc(SystemTime::now()),
            command: plan.command.clone(),
            ready_timeout_ns: crate::record::nanos(plan.ready_timeout),
            all_or_nothing,
            hosts,
            aggregate,
        }
    }
}

/// A host's stdout line, by its `format`: a JSON object whose `format` is diskdash's.
fn parse_line(bytes: &[u8]) -> Line {
    #[derive(serde::Deserialize)]
    struct Probe {
        format: String,
    }
    let foreign = || Line::Foreign(lines::shown(&String::from_utf8_lossy(bytes), SHOWN_CHARS));
    let Ok(line) = std::str::from_utf8(bytes) else {
        return foreign();
    };
    let Ok(probe) = serde_json::from_str::<Probe>(line) else {
        return foreign();
    };
    let broken = |err: serde_json::Error| {
        Line::Broken(format!(
            "a {} line: {}",
            lines::shown(&probe.format, SHOWN_CHARS),
            lines::shown(&err.to_string(), 200)
        ))
    };
    match probe.format.as_str() {
        READY_FORMAT => Line::Ready,
        INTERVAL_FORMAT => {
            serde_json::from_str(line).map_or_else(broken, |r| Line::Interval(Box::new(r)))
        }
        crate::record::FORMAT => {
            serde_json::from_str(line).map_or_else(broken, |r| Line::Record(Box::new(r)))
        }
        WARNING_FORMAT => serde_json::from_str::<WarningLine>(line)
            .map_or_else(broken, |w| Line::Warning(Box::new(w.warning))),
        ERROR_FORMAT => serde_json::from_str(line).map_or_else(broken, Line::Error),
        other if other.starts_with("diskdash-") => Line::Other,
        _ => foreign(),
    }
}

/// Why a host failed, from what it said: the error its remote run sent on its stream, else the
/// last line of its stderr as it is (ssh's, or the remote shell's for a missing binary); no
/// line of it is read for what it says.
fn failure(remote_error: Option<&str>, stderr_tail: &VecDeque<String>) -> Option<String> {
    if let Some(error) = remote_error {
        return Some(error.to_string());
    }
    let line = stderr_tail.iter().rev().find(|l| !l.trim().is_empty())?;
    Some(crate::error::one_line(line))
}

/// A status line: on stderr when headless, the dashboard's footer line otherwise.
fn say(live: Option<&tokio::sync::watch::Sender<LiveFleet>>, line: String) {
    match live {
        Some(live) => live.send_modify(|l| l.message = Some(line.trim().to_string())),
        None => eprintln!("{line}"),
    }
}

/// A host as the dashboard shows it, and why it failed.
fn live_state(host: &Host) -> (HostState, Option<String>) {
    let run_error = host
        .record
        .as_ref()
        .and_then(|r| r.error.as_ref())
        .map(|e| e.message.clone());
    let state = match (&host.verdict, host.phase) {
        (Some((HostStatus::NotReady, _)), _) => HostState::LeftOut,
        (Some(_), _) => HostState::Failed,
        (None, Phase::Preparing) if !host.heard() => HostState::Connecting,
        (None, Phase::Preparing) => HostState::Preparing,
        (None, Phase::Ready) => HostState::Ready,
        (None, Phase::Running) if host.stopped_at.is_some() => HostState::Stopping,
        (None, Phase::Running) => HostState::Running,
        (None, Phase::Exited) => match host.record.as_ref().map(|r| r.status) {
            Some(RunStatus::Failed) => HostState::Failed,
            _ => HostState::Done,
        },
    };
    let error = host
        .verdict
        .as_ref()
        .map(|(_, why)| why.clone())
        .or(run_error);
    (state, error)
}

fn state_of(host: &Host) -> String {
    match (&host.verdict, host.phase) {
        (Some((HostStatus::NotReady, _)), _) => "not ready".into(),
        (Some(_), _) => "failed".into(),
        (None, Phase::Preparing) => "preparing".into(),
        (None, Phase::Ready) => "ready".into(),
        (None, Phase::Running) if host.stopped_at.is_some() => "stopping".into(),
        (None, Phase::Running) => "running".into(),
        (None, Phase::Exited) => "done".into(),
    }
}

/// One interval's table: each host's row (from its interval, when it sent one) and the fleet's.
fn interval_table(hosts: &[Host], fronts: &[(usize, IntervalRecord)]) -> (String, Vec<Row>, Row) {
    let mut rows = Vec::with_capacity(hosts.len());
    for (i, host) in hosts.iter().enumerate() {
        let mut row = Row {
            name: host.name.clone(),
            state: state_of(host),
            error: host.verdict.as_ref().map(|(_, why)| why.clone()),
            ..Row::default()
        };
        if let Some((_, r)) = fronts.iter().find(|(at, _)| *at == i) {
            row.measured = true;
            row.iops = r.read.iops + r.write.iops + r.trim.iops;
            #[allow(clippy::cast_precision_loss)]
            let bw = (r.read.bw_bytes + r.write.bw_bytes + r.trim.bw_bytes) as f64;
            row.bw_bytes_per_s = bw;
            (row.p50_ns, row.p99_ns) = p50_p99(&[&r.read, &r.write, &r.trim]);
            row.util_pct = r.device.as_ref().map(|d| d.util_pct);
        }
        rows.push(row);
    }
    let parts: Vec<&DirectionRecord> = fronts
        .iter()
        .flat_map(|(_, r)| [&r.read, &r.write, &r.trim])
        .collect();
    let (p50_ns, p99_ns) = p50_p99(&parts);
    let fleet = Row {
        name: "fleet".into(),
        state: format!("{} of {}", fronts.len(), hosts.len()),
        measured: !fronts.is_empty(),
        iops: fronts
            .iter()
            .map(|(_, r)| r.read.iops + r.write.iops + r.trim.iops)
            .sum(),
        #[allow(clippy::cast_precision_loss)]
        bw_bytes_per_s: fronts
            .iter()
            .map(|(_, r)| (r.read.bw_bytes + r.write.bw_bytes + r.trim.bw_bytes) as f64)
            .sum(),
        p50_ns,
        p99_ns,
        util_pct: fronts
            .iter()
            .filter_map(|(_, r)| r.device.as_ref().map(|d| d.util_pct))
            .reduce(f64::max),
        error: None,
    };
    let title = match fronts.first() {
        #[allow(clippy::cast_precision_loss)]
        Some((_, r)) => format!(
            "[{:>7.1}s] {}interval {} (rates over each host's interval; fleet %util: the \
             busiest)",
            r.t_ns as f64 / 1e9,
            if fronts.iter().any(|(_, f)| f.segment > 0) {
                format!("step {} ", r.segment + 1)
            } else {
                String::new()
            },
            r.index + 1
        ),
        None => String::new(),
    };
    (title, rows, fleet)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_warning_and_error_arrive_typed() {
        let warning = RunWarning::Holes {
            path: "/srv/f".into(),
        };
        let line = serde_json::to_vec(&WarningLine::new(warning.clone())).unwrap();
        assert!(matches!(parse_line(&line), Line::Warning(w) if *w == warning));
        let error = ErrorLine::new("--size 1T: no room".into(), 2);
        let line = serde_json::to_vec(&error).unwrap();
        assert!(matches!(parse_line(&line), Line::Error(e) if e == error));
        // Of the protocol but wrong: said, not taken as text.
        let wrong =
            br#"{"format":"diskdash-bench-warning","format_version":6,"warning":{"kind":"nope"}}"#;
        assert!(
            matches!(parse_line(wrong), Line::Broken(why) if why.contains("diskdash-bench-warning"))
        );
        let wrong = br#"{"format":"diskdash-bench-error","message":"x"}"#;
        assert!(matches!(parse_line(wrong), Line::Broken(_)));
        // Text that looks like a warning is not the protocol.
        assert!(matches!(
            parse_line(b"WARNING: PAGE CACHE: trust me"),
            Line::Foreign(_)
        ));
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
