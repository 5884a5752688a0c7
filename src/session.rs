//! A benchmark session: runs a [`Plan`] (its steps one after another) for both front ends
//! (headless report and dashboard), and publishes immutable snapshots.
//!
//! ```text
//!   Session::start(plan, options) ──> session thread ──> watch<Arc<Snapshot>> ──> front end
//!        (target checks, io_uring probe)   │ fill, steps, record           ^
//!                                          v                               │ Control
//!                             bench-0..N workers ──(WorkerStats per tick)──┘
//!   runner.rs    the step loop: workers, intervals, device window, snapshots
//!   controls.rs  the state machine for controls (pure)    recorder.rs  records, JSON Lines
//!   aggregate.rs one step's workers and intervals         window.rs    the device window
//! ```
//!
//! Each step runs as a step of the record. A change of job parameters in the dashboard ends
//! the running step and appends one with the changed job.

mod aggregate;
mod controls;
mod cpu;
mod fold;
mod recorder;
mod runner;
pub(crate) use runner::DROP_CACHES;
mod job_series;
mod series;
pub(crate) mod signals;
mod snapshot;
pub(crate) mod window;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread::JoinHandle;

use anyhow::Context;
use tokio::sync::{mpsc, watch};

#[cfg(any(test, feature = "fixtures"))]
pub use snapshot::add_to_run;
pub(crate) use snapshot::{
    DirectionView, JobView, PointRates, RunDirection, RunJobTotals, SeriesPoint, StatsView,
    SteadyView, StepMark, StepView, SustainedView, TraceLive,
};
#[cfg(any(test, feature = "fixtures"))]
pub(crate) use snapshot::{DiskView, IntervalLatency, PlanProgress, StepResult, TargetView};
pub use snapshot::{SessionState, Snapshot};

use crate::bench::engine::uring;
use crate::bench::spec::{EngineKind, RwMode};
use crate::bench::target;
use crate::plan::Plan;
use crate::record::output::{self, Output};
use crate::record::{JsonlWriter, RunRecord, RunStatus};

/// Commands from a front end. Parameter changes end the running step and start a new one
/// (or, when idle, apply to the next `Start`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Control {
    Pause,
    Resume,
    /// End the running step and go idle.
    Stop,
    /// Start a new step with the current job (when idle).
    Start,
    SetIodepth(u32),
    SetNumjobs(u32),
    SetBlockSize(u64),
    SetRw(RwMode),
    /// End the running step and go on with the next step of the plan (a sweep's `n`); the
    /// step is recorded `interrupted`.
    Next,
    /// End everything, write the record.
    Quit,
}

/// How a session runs.
#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    pub allow_destructive: bool,
    /// Replace existing `--json`/`--jsonl` files that are not diskdash records.
    pub force: bool,
    /// Final record, written atomically at the end whatever the end (`-`: the front end
    /// prints it on stdout).
    pub json: Option<PathBuf>,
    /// One interval record per line, written as the run goes.
    pub jsonl: Option<PathBuf>,
    /// Finish when the step's runtime is over (headless). Otherwise go idle and wait for
    /// `Control`s until `Quit`.
    pub finish_when_done: bool,
    /// Raised by the interrupt signals ([`signals::INTERRUPT_SIGNALS`]): stop, drain, record
    /// `interrupted`. Checked during setup and the fill too.
    pub interrupt: Arc<AtomicBool>,
    /// A sweep's latency target: the plan ends after the first step whose latency at this
    /// percentile (reads and writes together) is above it.
    pub latency_target: Option<LatencyTarget>,
    /// Adds what the front end derives from the finished record (a sweep's findings)
    /// before the record is written.
    pub annotate: Option<Annotate>,
    /// Holds the first measured window until the caller says go (`diskdash fleet`'s remote
    /// side): after the fill, the session writes a ready line on `--jsonl` and calls the gate;
    /// `false` ends the run as interrupted before anything is measured.
    pub start_gate: Option<StartGate>,
    /// Called with each interval's record as it closes (once per interval, on the session's
    /// thread, never per I/O): fio's log files.
    pub interval_sink: Option<IntervalSink>,
    /// Called with the run so far each time intervals close while a step runs (fio's
    /// `--status-interval` reports): the finished steps and the running one up to its last
    /// closed interval, each job's numbers from its start. On the session's thread, once per
    /// interval, never per I/O.
    pub status_sink: Option<StatusSink>,
    /// `--redact`: the record without host name, paths and command line
    /// (`crate::record::machine::redact_run`).
    pub redact: bool,
    /// `--record-serial`: the record's `machine.disk.serial` beside its hash.
    pub record_serial: bool,
    /// The limits the trust marks (`short`, `shared`, `unstable`) are judged by.
    pub trust: crate::analysis::trust::TrustLimits,
    /// `--trace`: the block layer's view of the disks (`crate::trace`), in the record's
    /// `device.block_trace`.
    pub trace: bool,
}

/// What an [`IntervalSink`] calls.
pub(crate) type IntervalFn = dyn FnMut(&crate::record::IntervalRecord) + Send;

/// Receives each interval's record (see [`SessionOptions::interval_sink`]).
#[derive(Clone)]
pub struct IntervalSink(pub Arc<std::sync::Mutex<IntervalFn>>);

impl std::fmt::Debug for IntervalSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IntervalSink")
    }
}

/// What a [`StatusSink`] calls.
pub(crate) type StatusFn = dyn FnMut(&RunRecord) + Send;

/// Receives the run so far (see [`SessionOptions::status_sink`]).
#[derive(Clone)]
pub struct StatusSink(pub Arc<std::sync::Mutex<StatusFn>>);

impl std::fmt::Debug for StatusSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StatusSink")
    }
}

/// Blocks until the first measured window may start; `false`: do not start (stop).
#[derive(Clone)]
pub struct StartGate(pub Arc<dyn Fn() -> bool + Send + Sync>);

impl std::fmt::Debug for StartGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StartGate(..)")
    }
}

/// A pure function over the finished record, run before it is written.
#[derive(Clone)]
pub struct Annotate(pub Arc<dyn Fn(&mut RunRecord) + Send + Sync>);

impl std::fmt::Debug for Annotate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Annotate(..)")
    }
}

/// A latency bound a step must meet for the plan to go on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyTarget {
    /// A percentile, e.g. 99.0.
    pub percentile: f64,
    pub ns: u64,
}

/// The running session: snapshots out, controls in.
pub struct SessionHandle {
    pub snapshots: watch::Receiver<Arc<Snapshot>>,
    pub control: mpsc::UnboundedSender<Control>,
    thread: JoinHandle<Option<SessionOutcome>>,
    /// Why the front end gave up on the session ([`SessionHandle::abandon`]).
    abort: Arc<std::sync::Mutex<Option<String>>>,
}

/// How the session ended.
#[derive(Debug)]
pub struct SessionOutcome {
    pub status: RunStatus,
    pub record: Box<RunRecord>,
    /// Writing `--json` failed (the run itself may have been fine).
    pub record_error: Option<String>,
}

impl SessionHandle {
    /// Waits for the session to end.
    pub fn wait(self) -> anyhow::Result<SessionOutcome> {
        self.thread
            .join()
            .map_err(|_| anyhow::anyhow!("the session thread panicked"))?
            .ok_or_else(|| anyhow::anyhow!("the session thread got no session to run"))
    }

    /// Ends the session because the front end cannot go on (`err`: its own setup failed, e.g.
    /// the `--serve` thread could not start): quits it, waits for its record and the scratch
    /// file's removal, and returns `err`.
    #[must_use]
    pub(crate) fn abandon(self, err: anyhow::Error) -> anyhow::Error {
        *self
            .abort
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(format!("{err:#}"));
        let _ = self.control.send(Control::Quit);
        match self.wait() {
            Ok(_) => err,
            Err(wait) => err.context(wait.to_string()),
        }
    }
}

/// Entry point.
pub struct Session;

impl Session {
    /// Checks and opens the target (usage errors come back here, before anything runs), probes
    /// io_uring, and starts the session thread.
    pub fn start(plan: Plan, options: SessionOptions) -> anyhow::Result<SessionHandle> {
        let (plan, mut plan_notes) = one_window_per_step(plan)?;
        // Memory before anything is opened or created: a step that cannot fit is refused
        // with its estimate, not killed halfway with its scratch file left behind.
        let budget = crate::bench::memory::Budget::detect();
        if let Some(budget) = &budget {
            crate::bench::memory::check_plan(&plan, budget)?;
        }
        let targets = open_targets(&plan, options.allow_destructive)?;
        if let Some(budget) = &budget {
            check_zone_tables(&plan, &targets, budget)?;
        }
        let target_ids: Vec<_> = targets.targets.iter().map(|t| t.id).collect();
        let guard = output::Guard {
            targets: &target_ids,
            other_output: None,
            force: options.force,
            in_use: crate::bench::blockdev::file_in_use,
        };
        if let (Some(json), Some(jsonl)) = (&options.json, &options.jsonl)
            && json == jsonl
        {
            return Err(crate::error::usage!(
                "--json and --jsonl are both {}; give them different files",
                json.display()
            ));
        }
        let (engine, fallback) = engine_for(&plan)?;
        let outputs = Outputs::open(&options, guard)?;
        let disks = Disks::watch(&targets.targets);
        check_poll_queues(&plan, &targets, &disks)?;
        let (jsonl, json) = outputs.keep()?;
        let (control_tx, control_rx) = mpsc::unbounded_channel();
        plan_notes.extend(targets.notes);
        let prepared = runner::Prepared {
            targets: targets.targets,
            step_targets: targets.step_targets,
            clone_targets: targets.clone_targets,
            json,
            engine,
            fallback,
            jsonl,
            devices: disks.devices,
            target_device: disks.target_device,
            device_absent: disks.absent,
            notes: plan_notes,
        };
        spawn(
            runner::Runner::new(plan, options, prepared, control_rx),
            control_tx,
        )
    }
}

/// The emulated zone tables, sized by the targets now open (a file or device sets the
/// working set), checked before any is allocated.
fn check_zone_tables(
    plan: &Plan,
    targets: &OpenedTargets,
    budget: &crate::bench::memory::Budget,
) -> anyhow::Result<()> {
    for (step, at) in plan.steps.iter().zip(&targets.step_targets) {
        for (job, &t) in step.jobs.iter().zip(at) {
            if let Some(zones) = job.spec.zbd {
                crate::bench::memory::check_zone_table(
                    &job.name,
                    zones.zone_bytes,
                    targets.targets[t].working_set_bytes,
                    budget,
                )?;
            }
        }
    }
    Ok(())
}

/// The engine the plan's first job runs on, and the note of a fallback: io_uring when it is
/// available (probed when any job asks for it), psync when it is not and no job polls.
fn engine_for(plan: &Plan) -> anyhow::Result<(EngineKind, Option<String>)> {
    let spec = &plan.steps[0].jobs[0].spec;
    let jobs = || plan.steps.iter().flat_map(|s| &s.jobs);
    let uses_uring = jobs().any(|j| j.spec.ioengine == EngineKind::IoUring);
    let (engine, fallback) = match (spec.ioengine, uses_uring) {
        (_, true) => match uring::probe() {
            Ok(()) => (EngineKind::IoUring, None),
            // Polling was asked for: psync cannot poll, so no fallback.
            Err(err) if jobs().any(|j| j.spec.uring.hipri || j.spec.uring.sqpoll) => {
                return Err(anyhow::anyhow!(
                    "io_uring is unavailable ({}: {err}) and a job asks for polled I/O \
                     (hipri or sqthread_poll), which only io_uring has; drop those options \
                     to run on psync",
                    crate::bench::engine::errno_name(err.raw_os_error().unwrap_or(0))
                ));
            }
            Err(err) if crate::bench::engine::uring_unavailable(&err) => (
                EngineKind::Psync,
                Some(crate::bench::engine::fallback_note(&err)),
            ),
            Err(err) => return Err(err).context("setting up io_uring"),
        },
        (other, false) => (other, None),
    };
    // The engine decided for io_uring jobs; the others run as asked.
    let engine = if spec.ioengine == EngineKind::IoUring {
        engine
    } else {
        spec.ioengine
    };
    Ok((engine, fallback))
}

/// The record's outputs, opened and checked; an earlier `--jsonl` file is emptied, and one
/// made here kept, only once every check has passed ([`Outputs::keep`]).
struct Outputs {
    jsonl: Option<JsonlWriter>,
    json: Option<output::RecordDestination>,
    /// A `--jsonl` file made here: removed when dropped unless kept.
    jsonl_made: Option<output::Made>,
    /// An earlier record at `--jsonl`'s name, to empty.
    jsonl_to_empty: Option<std::fs::File>,
}

impl Outputs {
    fn open(options: &SessionOptions, mut guard: output::Guard<'_>) -> anyhow::Result<Self> {
        let mut jsonl_made = None;
        let mut jsonl_to_empty: Option<std::fs::File> = None;
        // JSON Lines first: the record's check then knows the file they write (two spellings
        // or two links of one file are one file).
        let jsonl = match options.jsonl.as_deref().map(Output::from_arg) {
            Some(Output::Stdout) => Some(JsonlWriter::new(
                "standard output".into(),
                Box::new(std::io::stdout()),
            )),
            Some(Output::File(path)) => {
                let (file, id, replacing) = output::open_jsonl("--jsonl", &path, guard)?;
                guard.other_output = Some(id);
                // An earlier record at the name is emptied once every check has passed; a file
                // made here is removed if one fails.
                match replacing {
                    output::Replacing::Made(made) => jsonl_made = Some(made),
                    output::Replacing::Existing => jsonl_to_empty = Some(file.try_clone()?),
                }
                Some(JsonlWriter::new(path.display().to_string(), Box::new(file)))
            }
            None => None,
        };
        let json = match options.json.as_deref().map(Output::from_arg) {
            Some(Output::File(path)) => {
                Some(output::RecordDestination::prepare("--json", &path, guard)?)
            }
            Some(Output::Stdout) | None => None,
        };
        Ok(Self {
            jsonl,
            json,
            jsonl_made,
            jsonl_to_empty,
        })
    }

    /// Every check has passed: the earlier `--jsonl` file gives way, a new one stays.
    fn keep(self) -> anyhow::Result<(Option<JsonlWriter>, Option<output::RecordDestination>)> {
        if let Some(file) = self.jsonl_to_empty {
            file.set_len(0)
                .context("emptying --jsonl's earlier record")?;
        }
        if let Some(made) = self.jsonl_made {
            made.keep();
        }
        Ok((self.jsonl, self.json))
    }
}

/// The disks under the targets, each watched once.
struct Disks {
    devices: Vec<window::DeviceWatch>,
    /// For each target, its disk in `devices` (`None`: not watched).
    target_device: Vec<Option<usize>>,
    /// Why the first disk that could not be watched could not.
    absent: Option<String>,
}

impl Disks {
    fn watch(targets: &[target::Target]) -> Self {
        let mut devices: Vec<window::DeviceWatch> = Vec::new();
        let mut target_device = Vec::with_capacity(targets.len());
        let mut absent = None;
        for t in targets {
            if let Some(at) = devices
                .iter()
                .position(|d| d.device_number == t.device_number)
            {
                target_device.push(Some(at));
                continue;
            }
            match window::DeviceWatch::open(t.device_number, &t.path) {
                Ok(watch) => {
                    devices.push(watch);
                    target_device.push(Some(devices.len() - 1));
                }
                Err(why) => {
                    absent.get_or_insert(why);
                    target_device.push(None);
                }
            }
        }
        Self {
            devices,
            target_device,
            absent,
        }
    }
}

/// Polled I/O on a disk without poll queues fails at the first I/O (EOPNOTSUPP): said before
/// anything runs.
fn check_poll_queues(plan: &Plan, targets: &OpenedTargets, disks: &Disks) -> anyhow::Result<()> {
    for (step, at) in plan.steps.iter().zip(&targets.step_targets) {
        for (job, &t) in step.jobs.iter().zip(at) {
            let disk = disks.target_device[t].map(|d| &disks.devices[d]);
            if let Some(disk) = disk
                && job.spec.uring.hipri
                && disk.queue.io_poll == Some(false)
            {
                return Err(crate::error::usage!(
                    "hipri: {} has no poll queues (queue/io_poll is 0), so polled I/O on \
                     {} would fail with EOPNOTSUPP; drop hipri (on NVMe, poll queues come \
                     from the nvme module's poll_queues)",
                    disk.chain.device,
                    targets.targets[t].path.display()
                ));
            }
        }
    }
    Ok(())
}

/// Starts the session thread with `runner`. The runner is handed over once the thread
/// exists: when it cannot be started (a pids limit, no memory for its stack), the runner is
/// still here to write the record and remove the scratch file.
fn spawn(
    runner: runner::Runner,
    control: mpsc::UnboundedSender<Control>,
) -> anyhow::Result<SessionHandle> {
    let snapshots = runner.subscribe();
    let abort = runner.abort_reason();
    let (hand_over, take) = std::sync::mpsc::sync_channel::<runner::Runner>(1);
    let thread = match std::thread::Builder::new()
        .name("session".into())
        .spawn(move || take.recv().map(runner::Runner::run).ok())
    {
        Ok(thread) => {
            hand_over
                .send(runner)
                .map_err(|_| anyhow::anyhow!("the session thread ended before it started"))?;
            thread
        }
        Err(err) => {
            let message = format!("cannot start the session thread: {err}");
            let outcome = runner.fail_unstarted(message.clone());
            return Err(match outcome.record_error {
                Some(record_error) => anyhow::anyhow!("{message}; {record_error}"),
                None => anyhow::anyhow!("{message}"),
            });
        }
    };
    Ok(SessionHandle {
        snapshots,
        control,
        thread,
        abort,
    })
}

/// Every step runs its jobs in one measured window: the step's ramp is the longest ramp of its
/// jobs and its interval the first job's, given to every job (with a note when they differed).
fn one_window_per_step(mut plan: Plan) -> anyhow::Result<(Plan, Vec<String>)> {
    if plan.steps.iter().all(|s| s.jobs.is_empty()) {
        return Err(crate::error::usage!(
            "the plan has no job; give at least one"
        ));
    }
    plan.steps.retain(|s| !s.jobs.is_empty());
    let mut notes = Vec::new();
    for (i, step) in plan.steps.iter_mut().enumerate() {
        let ramp = step
            .jobs
            .iter()
            .map(|j| j.spec.ramp)
            .max()
            .unwrap_or_default();
        let interval = step.jobs[0].spec.interval;
        if step.jobs.iter().any(|j| j.spec.ramp != ramp) {
            notes.push(format!(
                "step {}: every job ramps for {} (the longest ramp_time of the step), so one \
                 measured window covers them all",
                i + 1,
                crate::units::format_duration(ramp)
            ));
        }
        for job in &mut step.jobs {
            job.spec.ramp = ramp;
            job.spec.interval = interval;
        }
    }
    Ok((plan, notes))
}

/// The targets of a plan, opened and checked before anything runs.
struct OpenedTargets {
    targets: Vec<target::Target>,
    /// For each step, the index in `targets` of each job's target.
    step_targets: Vec<Vec<usize>>,
    /// For each step and job, the indices in `targets` of its clones' own files (clone 1
    /// first); empty where the clones share the job's target.
    clone_targets: Vec<Vec<Vec<usize>>>,
    notes: Vec<String>,
}

/// Opens every job's target. A plan of one target (`bench`, its live changes) opens it once;
/// otherwise each job opens its own, a later step reusing an earlier step's target of the same
/// path when it opens the same way. A file the plan creates may be written by later jobs;
/// two jobs of one step may not share a file or device when either writes.
fn open_targets(plan: &Plan, allow_destructive: bool) -> anyhow::Result<OpenedTargets> {
    let jobs = || plan.steps.iter().flat_map(|s| &s.jobs);
    let one_mode = plan
        .steps
        .first()
        .and_then(|s| s.jobs.first())
        .is_some_and(|first| {
            jobs().all(|j| {
                j.spec.direct == first.spec.direct && j.spec.open_sync == first.spec.open_sync
            })
        });
    let shared = jobs().all(|j| j.clones.is_empty());
    if let (Ok(job), true, true) = (plan.single_target_job(), one_mode, shared) {
        return open_single_target(plan, job, allow_destructive);
    }
    let mut targets: Vec<target::Target> = Vec::new();
    // (path, direct, open_sync, writes) of each opened target.
    let mut opened: Vec<(
        Option<PathBuf>,
        bool,
        Option<crate::bench::spec::OpenSync>,
        bool,
    )> = Vec::new();
    let mut created: Vec<PathBuf> = Vec::new();
    let mut step_targets = Vec::with_capacity(plan.steps.len());
    let mut clone_targets = Vec::with_capacity(plan.steps.len());
    // For each target, the files of the clones of the job that opened it.
    let mut clones_of: Vec<Vec<usize>> = Vec::new();
    for step in &plan.steps {
        let mut here: Vec<usize> = Vec::with_capacity(step.jobs.len());
        let mut here_clones: Vec<Vec<usize>> = Vec::with_capacity(step.jobs.len());
        for job in &step.jobs {
            let key = (
                job.target.clone(),
                job.spec.direct,
                job.spec.open_sync,
                job.spec.writes(),
            );
            let reuse = opened
                .iter()
                .position(|o| *o == key || (o.0 == key.0 && o.1 == key.1 && o.2 == key.2 && o.3))
                .filter(|at| !here.contains(at));
            let index = if let Some(at) = reuse {
                let target = &targets[at];
                target::check_block_size(
                    &job.spec,
                    &format!("job {}: bs", job.name),
                    target.dio_align_bytes,
                    target.working_set_bytes,
                    &target.path,
                )?;
                at
            } else {
                let job = &open_spec(plan, job);
                let key = (key.0.clone(), key.1, key.2, job.spec.writes());
                let made_here = job.target.as_ref().is_some_and(|p| created.contains(p));
                let target = if made_here {
                    // This run created it: it may be written.
                    target::open(&job.spec, job.target.as_deref(), true)?
                } else {
                    open_job_target(job, allow_destructive, true)?
                };
                if target.created
                    && let Some(path) = &job.target
                {
                    created.push(path.clone());
                }
                targets.push(target);
                opened.push(key.clone());
                clones_of.push(Vec::new());
                let at = targets.len() - 1;
                let clones = open_clones(job, allow_destructive, &mut targets)?;
                clones_of.extend(clones.iter().map(|_| Vec::new()));
                opened.extend(
                    job.clones
                        .iter()
                        .map(|p| (Some(p.clone()), key.1, key.2, key.3)),
                );
                clones_of[at] = clones;
                at
            };
            here.push(index);
            here_clones.push(clones_of[index].clone());
        }
        check_shared_in_step(step, &here, &targets)?;
        step_targets.push(here);
        clone_targets.push(here_clones);
    }
    // Each target fits on its own; together, several files on one filesystem may not. Checked
    // before any new file is laid out, so a refusal leaves nothing behind.
    target::check_room(&targets.iter().collect::<Vec<_>>())?;
    for target in &mut targets {
        target.lay_out()?;
    }
    Ok(OpenedTargets {
        targets,
        step_targets,
        clone_targets,
        notes: Vec::new(),
    })
}

/// The spec a target is opened with: `job`'s, made a writer when a job of the plan that can
/// share the descriptor (same path, O_DIRECT, O_SYNC) writes, so a sweep's write points after
/// its read points find it open for writing (and the write rules checked up front).
fn open_spec(plan: &Plan, job: &crate::plan::Job) -> crate::plan::Job {
    let mut spec = job.spec.clone();
    let shares = |other: &crate::plan::Job| {
        other.target == job.target
            && other.spec.direct == job.spec.direct
            && other.spec.open_sync == job.spec.open_sync
    };
    let jobs = || plan.steps.iter().flat_map(|s| &s.jobs);
    if !spec.writes() && jobs().any(|other| shares(other) && other.spec.writes()) {
        // Reads and writes: a file it creates is still filled for the reads.
        spec.rw = crate::bench::spec::RwMode::Rw;
        spec.rwmixread_pct = 50;
    }
    crate::plan::Job {
        spec,
        ..job.clone()
    }
}

/// A plan of one target (`bench`, its live changes), opened once for every step.
fn open_single_target(
    plan: &Plan,
    job: &crate::plan::Job,
    allow_destructive: bool,
) -> anyhow::Result<OpenedTargets> {
    let mut target = open_job_target(&open_spec(plan, job), allow_destructive, false)?;
    // Its room was checked as it opened: a new file of a pure write job is laid out now.
    target.lay_out()?;
    // Every step's block size fits the target, checked before anything runs.
    for (i, step) in plan.steps.iter().enumerate().skip(1) {
        for job in &step.jobs {
            target::check_block_size(
                &job.spec,
                &format!("step {}: bs", i + 1),
                target.dio_align_bytes,
                target.working_set_bytes,
                &target.path,
            )?;
        }
    }
    Ok(OpenedTargets {
        targets: vec![target],
        step_targets: vec![vec![0]; plan.steps.len()],
        clone_targets: vec![vec![Vec::new()]; plan.steps.len()],
        notes: Vec::new(),
    })
}

/// Two jobs of `step` at once on one file or device (`here`: each job's target), one
/// writing: as fio does, unless either verifies (it would read the other's blocks as
/// corrupt).
fn check_shared_in_step(
    step: &crate::plan::Step,
    here: &[usize],
    targets: &[target::Target],
) -> anyhow::Result<()> {
    for (a, &ta) in here.iter().enumerate() {
        for (b, &tb) in here.iter().enumerate().skip(a + 1) {
            let (ja, jb) = (&step.jobs[a], &step.jobs[b]);
            if targets[ta].id == targets[tb].id
                && (ja.spec.writes() || jb.spec.writes())
                && (ja.spec.verify.is_some() || jb.spec.verify.is_some())
            {
                return Err(crate::error::usage!(
                    "jobs {} and {} both use {} at the same time, one writes and one \
                     verifies; give each its own file, or put stonewall before the second",
                    ja.name,
                    jb.name,
                    targets[ta].path.display()
                ));
            }
        }
    }
    Ok(())
}

/// Opens (or creates) the files of clones 1, 2, ... of a job whose clones each run on their
/// own, as its first clone's was; their indices in `targets`. The job's first target (the
/// last in `targets`) notes where the others run.
fn open_clones(
    job: &crate::plan::Job,
    allow_destructive: bool,
    targets: &mut Vec<target::Target>,
) -> anyhow::Result<Vec<usize>> {
    if job.clones.is_empty() {
        return Ok(Vec::new());
    }
    let first = targets.len() - 1;
    let unlink = matches!(job.missing, crate::plan::Missing::Create { unlink: true });
    let mut at = Vec::with_capacity(job.clones.len());
    for (i, path) in job.clones.iter().enumerate() {
        let mut clone = crate::plan::Job {
            target: Some(path.clone()),
            missing: crate::plan::Missing::Create { unlink },
            clones: Vec::new(),
            ..job.clone()
        };
        // A filesize range: each file laid out at its own length.
        if let Some(set) = job.spec.files.filter(|s| s.sizes.is_some()) {
            clone.spec.size_bytes = set.bytes_of(((i + 1) % set.count as usize) as u32);
        }
        targets.push(open_job_target(&clone, allow_destructive, true)?);
        at.push(targets.len() - 1);
    }
    let names: Vec<String> = std::iter::once(targets[first].path.display().to_string())
        .chain(job.clones.iter().map(|p| p.display().to_string()))
        .collect();
    let what = if job.spec.files.is_some() {
        "its I/O goes to its"
    } else {
        "each of its clones runs on a file of its own,"
    };
    targets[first].notes.push(format!(
        "job {}: {what} {} files: {}",
        job.name,
        names.len(),
        names.join(", ")
    ));
    Ok(at)
}

/// Opens one job's target, creating a missing file when the job says so; `named`: errors
/// name the job (a plan of several targets; one target is the run's own, unnamed).
fn open_job_target(
    job: &crate::plan::Job,
    allow_destructive: bool,
    named: bool,
) -> anyhow::Result<target::Target> {
    // fio's null engine makes no file.
    if let Some(path) = &job.target
        && job.spec.ioengine == crate::bench::spec::EngineKind::Null
        && std::fs::symlink_metadata(path).is_err()
    {
        return target::open_missing_diskless(&job.spec, path)
            .with_context(|| format!("job {}", job.name));
    }
    if let (Some(path), crate::plan::Missing::Create { unlink }) = (&job.target, job.missing)
        && std::fs::symlink_metadata(path).is_err()
    {
        let created = target::create(&job.spec, path, unlink, &job.name);
        return if named {
            created.with_context(|| format!("job {}", job.name))
        } else {
            created
        };
    }
    // A file the job names may be one it created on an earlier run (only created files carry
    // the mark).
    let target = target::open_as(
        &job.spec,
        job.target.as_deref(),
        allow_destructive,
        Some(&job.name),
    );
    if !named {
        target
    } else {
        target.with_context(|| format!("job {}", job.name))
    }
}
