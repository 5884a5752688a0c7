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
//! What is done to each host is decided by the pure controller (`fleet::control`, each host's
//! state in `fleet::host`, its lines parsed by `fleet::protocol`); this file is its edge: the
//! ssh processes, their pipes and reader threads, and the actions carried out.
//!
//! In a terminal (unless `--no-tui`) the controller runs on a thread of its own and, instead of
//! printing, keeps the live fleet (`fleet::live`) in a watch channel for the dashboard
//! (`tui::run_fleet`); leaving the dashboard raises the same flag SIGINT does.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use anyhow::Context;
use clap::Parser;

use crate::bench::options::Key;
use crate::cli::{Cli, Command, FleetArgs};
use crate::fleet::control::{Action, Control};
use crate::fleet::host::{Event, STDERR_LINE_BYTES};
use crate::fleet::lines::{self, MAX_LINE_BYTES};
use crate::fleet::live::LiveFleet;
use crate::fleet::plan::{COMMANDS, DEADLINE_MARGIN, FleetPlan, UNKNOWN_RAMP, Watch};
use crate::fleet::protocol::parse_line;
use crate::fleet::ssh::{self, SshOptions};
use crate::record::{HostStatus, RunStatus};
use crate::report::fleet::{shown_command, summary, table};

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
    let mut fleet = Fleet::spawn(&plan, &copies, args.all_or_nothing)?;
    let mut fleet = if dashboard {
        let (tx, rx) =
            tokio::sync::watch::channel(LiveFleet::new(&plan.hosts, &plan.command, plan.planned));
        fleet.live = Some(tx);
        let controller = {
            let interrupt = interrupt.clone();
            std::thread::Builder::new()
                .name("fleet".into())
                .spawn(move || {
                    fleet.drive(&interrupt);
                    fleet
                })
                .context("starting the fleet's controller")?
        };
        let shown = crate::tui::run_fleet(rx, &interrupt);
        if !controller.is_finished() {
            eprintln!("stopping every host (their records are being written)");
        }
        let mut fleet = controller
            .join()
            .map_err(|_| anyhow::anyhow!("the fleet's controller panicked"))?;
        fleet.live = None;
        if let Err(err) = shown {
            eprintln!("the dashboard failed: {err:#}");
        }
        fleet
    } else {
        fleet.drive(&interrupt);
        fleet
    };
    copies.remove(&plan);
    let record = fleet.control.record(&plan, started_at, SystemTime::now());
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
        // The controller's record is never `stopped`: `q` in its dashboard interrupts.
        RunStatus::Completed | RunStatus::Stopped => Ok(ExitCode::SUCCESS),
        RunStatus::Interrupted => Ok(ExitCode::from(
            crate::session::signals::interrupted_exit_code(),
        )),
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

/// The hosts' ssh processes, and the controller that decides what is done to them.
struct Fleet {
    control: Control,
    children: Vec<Child>,
    /// Each host's stdin while it is open.
    stdins: Vec<Option<ChildStdin>>,
    /// Its ssh was seen to exit.
    exited: Vec<bool>,
    events: mpsc::Receiver<(usize, Event)>,
    /// The dashboard's copy of the fleet; `None`: headless, the status goes to stderr.
    live: Option<tokio::sync::watch::Sender<LiveFleet>>,
}

impl Fleet {
    fn spawn(
        plan: &FleetPlan,
        copies: &crate::fleet::copy::Installed,
        all_or_nothing: bool,
    ) -> anyhow::Result<Self> {
        let (tx, events) = mpsc::channel();
        let mut children = Vec::with_capacity(plan.hosts.len());
        let mut stdins = Vec::with_capacity(plan.hosts.len());
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
            let stderr = child.stderr.take().context("ssh's stderr")?;
            read_stderr(i, stderr, tx.clone())?;
            read_stdout(i, stdout, tx.clone())?;
            stdins.push(child.stdin.take());
            children.push(child);
        }
        Ok(Self {
            control: Control::new(plan, all_or_nothing, Instant::now()),
            exited: vec![false; children.len()],
            children,
            stdins,
            events,
            live: None,
        })
    }

    /// Runs the fleet to its end: the start together, the tables, the stop.
    fn drive(&mut self, interrupt: &AtomicBool) {
        loop {
            match self.events.recv_timeout(Duration::from_millis(100)) {
                Ok((i, event)) => self.take(i, event),
                Err(mpsc::RecvTimeoutError::Timeout | mpsc::RecvTimeoutError::Disconnected) => {}
            }
            while let Ok((i, event)) = self.events.try_recv() {
                self.take(i, event);
            }
            self.reap();
            let actions = self
                .control
                .step(Instant::now(), interrupt.load(Ordering::Relaxed));
            self.apply(actions);
            self.publish();
            let actions = self.control.expire(Instant::now());
            self.apply(actions);
            if self.control.done(Instant::now()) {
                break;
            }
        }
        let actions = self.control.finish(Instant::now());
        self.apply(actions);
        self.publish();
        if let Some(live) = &self.live {
            let state = self.control.final_state();
            live.send_modify(|l| {
                l.ended_after = l.started.map(|t| t.elapsed());
                l.state = state;
                l.message = Some("the run has ended: q quits and prints the summary".into());
            });
        }
    }

    fn take(&mut self, i: usize, event: Event) {
        let actions = self.control.on(i, event, Instant::now());
        self.apply(actions);
    }

    /// Notes the ssh processes that exited.
    fn reap(&mut self) {
        for i in 0..self.children.len() {
            if self.exited[i] {
                continue;
            }
            if let Ok(Some(status)) = self.children[i].try_wait() {
                self.exited[i] = true;
                self.take(i, Event::Exited(status));
            }
        }
    }

    /// Does what the controller decided, in order.
    fn apply(&mut self, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Write(i, word) => {
                    if let Some(stdin) = &mut self.stdins[i]
                        && writeln!(stdin, "{word}")
                            .and_then(|()| stdin.flush())
                            .is_err()
                    {
                        self.stdins[i] = None;
                    }
                }
                Action::CloseInput(i) => self.stdins[i] = None,
                Action::Kill(i) => {
                    let _ = self.children[i].kill();
                }
                Action::Show(line) => say(self.live.as_ref(), line),
                Action::Started(at) => {
                    if let Some(live) = &self.live {
                        live.send_modify(|l| l.started = Some(at));
                    }
                }
                Action::Intervals(fronts) => match &self.live {
                    Some(live) => live.send_modify(|l| l.push_interval(fronts)),
                    None => {
                        let (title, rows, fleet) = self.control.interval_table(&fronts);
                        eprint!("{}", table::render(&title, &rows, &fleet));
                    }
                },
            }
        }
    }

    /// The hosts' states and the fleet's into the dashboard's copy, when they changed.
    fn publish(&self) {
        let Some(live) = &self.live else {
            return;
        };
        let hosts = self.control.live_states();
        let state = self.control.live_state();
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
}

/// Reads host `i`'s stderr on a thread of its own: each line (cut to `STDERR_LINE_BYTES`),
/// then its end.
fn read_stderr(
    i: usize,
    pipe: ChildStderr,
    tx: mpsc::Sender<(usize, Event)>,
) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name(format!("fleet-err-{i}"))
        .spawn(move || {
            let mut reader = BufReader::new(pipe);
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
                if tx.send((i, Event::ErrLine(line))).is_err() {
                    return;
                }
            }
            let _ = tx.send((i, Event::ErrEnd));
        })
        .context("starting a reader")?;
    Ok(())
}

/// Reads host `i`'s stdout on a thread of its own: each line parsed, until a line too long or
/// its end.
fn read_stdout(
    i: usize,
    pipe: ChildStdout,
    tx: mpsc::Sender<(usize, Event)>,
) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name(format!("fleet-out-{i}"))
        .spawn(move || {
            let mut reader = BufReader::new(pipe);
            let mut buf = Vec::new();
            loop {
                let event = match lines::read_line(&mut reader, &mut buf, MAX_LINE_BYTES) {
                    Ok(lines::Read::Line) => Event::Line(parse_line(&buf)),
                    // Nothing more is read: the host is cut off.
                    Ok(lines::Read::TooLong) => {
                        let _ = tx.send((i, Event::LongLine));
                        break;
                    }
                    Ok(lines::Read::End) | Err(_) => break,
                };
                if tx.send((i, event)).is_err() {
                    return;
                }
            }
            // Dropping the pipe makes a writer on it fail instead of block.
            drop(reader);
            let _ = tx.send((i, Event::End));
        })
        .context("starting a reader")?;
    Ok(())
}

/// A status line: on stderr when headless, the dashboard's footer line otherwise.
fn say(live: Option<&tokio::sync::watch::Sender<LiveFleet>>, line: String) {
    match live {
        Some(live) => live.send_modify(|l| l.message = Some(line.trim().to_string())),
        None => eprintln!("{line}"),
    }
}
