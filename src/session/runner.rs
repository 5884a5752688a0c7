//! The session thread: precondition the target, run steps one after another, apply
//! controls, publish snapshots, write JSON Lines as intervals close and the record at the end
//! (on every path: completed, interrupted, failed). Owns the scratch file's removal.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use super::aggregate::{
    Interval, JobEnd, JobSetup, SpawnError, Stall, StepEnd, StepSetup, StepWorkers,
};
use super::controls::{self, IdleStep, StepEnding, StepFold, Workers};
use super::cpu::{cpu_record, rusage};
use super::fold::{self, Tracking, size_goal};
use super::recorder::{Recorder, RunOutcome, StepOutcome, TrustSetup};
use super::snapshot::{
    DiskView, JobView, PlanProgress, RunJobTotals, SERIES_POINTS, SeriesPoint, SessionState,
    Snapshot, StatsView, StepMark, StepView, TargetView, add_to_run,
};
use super::window::{DeviceWatch, Verdict};
use super::{Control, SessionOptions, SessionOutcome};
use crate::bench::engine::{EngineSetup, errno_name};
use crate::bench::fill::{self, FillOutcome};
use crate::bench::options::{JobOption, Key};
use crate::bench::spec::{EngineKind, JobSpec, MachineLimits, RwMode};
use crate::bench::target::{self, Target, TargetKind};
use crate::bench::worker::IoFault;
use crate::monitor::iostat::IostatRow;
use crate::plan::{Job, Plan, Step};
use crate::record::output::RecordDestination;
use crate::record::{
    DeviceRecord, DirectionRecord, EngineRecord, ErrorRecord, IdleDiskRecord, JsonlWriter,
    RunStatus, RunWarning, StepJobRecord, SyncRecord, TargetRecord,
};
use crate::stats::{Usage, monotonic_ns};
use crate::units::format_size_short;

/// How often the session looks at controls and signals, and republishes at the latest.
const POLL: Duration = Duration::from_millis(50);
const PUBLISH_EVERY_NS: u64 = 250_000_000;

pub struct Runner {
    /// The steps run and to run; a change in the dashboard appends one.
    plan: Plan,
    /// The step running (or next to run).
    step: usize,
    spec: JobSpec,
    /// What live changes are validated against (CPUs, memory), read once.
    machine: MachineLimits,
    options: SessionOptions,
    /// Every job's target; the first is the first job's, the one live changes apply to.
    targets: Vec<Target>,
    /// For each step, each job's index in `targets`.
    step_targets: Vec<Vec<usize>>,
    /// For each step and job, its clones' own files in `targets`; empty: they share its target.
    clone_targets: Vec<Vec<Vec<usize>>>,
    /// The emulated zones of each file zonemode=zbd jobs ran on, by file and zone size: fio
    /// keeps a file's zones (their write pointers) for the whole run.
    zbd_zones: Vec<(
        crate::pinned::FileId,
        u64,
        Arc<crate::bench::zbd::SharedZones>,
    )>,
    engine_kind: EngineKind,
    engine: EngineRecord,
    /// One watch per disk the plan touches.
    devices: Vec<DeviceWatch>,
    /// For each target, its disk in `devices`.
    target_device: Vec<Option<usize>>,
    /// The record as it is built.
    recorder: Recorder,
    /// Where the final record goes (`--json FILE`).
    json: Option<RecordDestination>,
    controls: mpsc::UnboundedReceiver<Control>,
    /// Controls that arrived while they could not act yet (during preparation, or while a
    /// step was ending); taken before the channel, in order. Nothing is dropped.
    pending: VecDeque<Control>,
    tx: watch::Sender<Arc<Snapshot>>,
    snap: Snapshot,
    preconditioned: bool,
    error: Option<ErrorRecord>,
    interrupted: bool,
    quit: bool,
    series_seq: u64,
    series_base: Duration,
    last_publish_ns: u64,
    /// A step missed the latency target: the plan ends after it.
    target_missed: bool,
    /// Each job's totals over the finished steps ([`Snapshot::run`] adds the running one).
    run_base: Vec<RunJobTotals>,
    /// The running step's jobs' steady-state trackers and write curves.
    tracking: Tracking,
    /// Why the front end gave up on the session (set before it sends `Quit`): the record
    /// says the run failed, with this message.
    abort: Arc<std::sync::Mutex<Option<String>>>,
    /// Whether the disks' idle rate was measured (before the first step).
    idle_measured: bool,
    /// `--trace`: the block tracer of the disks (dropped with the runner: its tracefs
    /// instance goes on every ending, an interrupt's included).
    tracer: Option<crate::trace::Tracer>,
    /// What the tracer saw over the window that closed last.
    trace_window: Option<crate::trace::TraceTake>,
    /// The workers' run-queue delays when the window opened, and the latest reading (the
    /// last before a worker ends), by worker id.
    sched_delays: Option<(HashMap<u32, u64>, HashMap<u32, u64>)>,
    /// The tracer's takes over the measured window so far (`Some` while it is open): the
    /// window's total, what the record keeps, is their sum.
    trace_acc: Option<crate::trace::TraceTake>,
    /// The tracer's takes since the last interval shown.
    trace_shown: Option<crate::trace::TraceTake>,
    /// The workers' run-queue delays at the last interval shown, and the latest reading.
    interval_delays: (HashMap<u32, u64>, HashMap<u32, u64>),
}

/// A step as it runs: what [`Runner::start_step`] set up, [`Runner::tick`] moves on and
/// [`Runner::end_step`] ends.
struct StepRun {
    index: u32,
    jobs: Vec<Job>,
    spec: Arc<JobSpec>,
    /// Each job's index in `Runner::targets`, and the step's disks in `Runner::devices`.
    targets: Vec<usize>,
    devices: Vec<usize>,
    workers: StepWorkers,
    fold: StepFold,
    time_goal_ns: u64,
    verify_progress: Vec<Arc<crate::bench::worker::VerifyProgress>>,
    window_closed: bool,
    /// The CPU counters when measuring started (at once without a ramp).
    cpu_measure_start: Option<Usage>,
}

/// What `Session::start` prepared on the caller's thread.
pub struct Prepared {
    pub targets: Vec<Target>,
    pub step_targets: Vec<Vec<usize>>,
    /// For each step and job, its clones' own files in `targets` (clone 1 first).
    pub clone_targets: Vec<Vec<Vec<usize>>>,
    /// Where `--json` goes, checked and with its temporary file made.
    pub json: Option<RecordDestination>,
    /// The engine to run (after the io_uring probe) and why it differs, if it does.
    pub engine: EngineKind,
    pub fallback: Option<String>,
    pub jsonl: Option<JsonlWriter>,
    /// One watch per disk, and for each target its disk.
    pub devices: Vec<DeviceWatch>,
    pub target_device: Vec<Option<usize>>,
    /// Why a target has no device statistics (tmpfs, ...), when one has none.
    pub device_absent: Option<String>,
    /// What the plan adjusted, for the output and the record.
    pub notes: Vec<String>,
}

/// What the run says before it starts: the plan's and targets' notes, the job's depth and
/// buffer notes, why there are no device statistics; the targets' warnings and a buffered job's.
fn opening_notes(
    plan: &Plan,
    spec: &JobSpec,
    targets: &[Target],
    mut notes: Vec<String>,
    device_absent: Option<&str>,
) -> (Vec<String>, Vec<RunWarning>) {
    let mut warnings: Vec<RunWarning> = Vec::new();
    for t in targets {
        notes.extend(t.notes.iter().cloned());
        warnings.extend(t.warnings.iter().cloned());
    }
    notes.extend(spec.depth_note());
    notes.extend(spec.buffer_note());
    if let Some(why) = device_absent {
        notes.push(format!("no device statistics: {why}"));
    }
    if plan.steps.iter().flat_map(|s| &s.jobs).any(|j| {
        !j.spec.direct && !j.spec.ioengine.is_metadata() && j.spec.ioengine != EngineKind::Null
    }) {
        warnings.push(RunWarning::Buffered);
    }
    (notes, warnings)
}

impl Runner {
    pub fn new(
        plan: Plan,
        options: SessionOptions,
        prepared: Prepared,
        controls: mpsc::UnboundedReceiver<Control>,
    ) -> Self {
        let spec = plan.steps[0].jobs[0].spec.clone();
        let sink = options.interval_sink.clone();
        let Prepared {
            targets,
            step_targets,
            clone_targets,
            json,
            engine: engine_kind,
            fallback,
            jsonl,
            devices,
            target_device,
            device_absent,
            notes: plan_notes,
        } = prepared;
        let target = &targets[0];
        let device = target_device[0].map(|at| &devices[at]);
        let engine = EngineRecord {
            requested: spec.ioengine.as_str().to_string(),
            used: engine_kind.as_str().to_string(),
            fallback,
            ..EngineRecord::default()
        };
        let (notes, warnings) =
            opening_notes(&plan, &spec, &targets, plan_notes, device_absent.as_deref());
        let needs_fill = targets.iter().any(|t| t.needs_fill);
        let fill_bytes: u64 = targets
            .iter()
            .filter(|t| t.needs_fill)
            .map(|t| t.extent_bytes)
            .sum();
        let snap = Snapshot {
            seq: 0,
            ran_to_end: false,
            state: if needs_fill {
                SessionState::Preparing {
                    done_bytes: 0,
                    total_bytes: fill_bytes,
                }
            } else {
                SessionState::Idle
            },
            target: TargetView {
                path: target.path.clone(),
                kind: target.kind,
                working_set_bytes: target.working_set_bytes,
                dio_align_bytes: target.dio_align_bytes,
            },
            engine: engine.clone(),
            warnings,
            notes,
            device_absent,
            filled: false,
            error: None,
            jobs: {
                let t = step_targets[0][0];
                let disk = target_device[t].map(|d| devices[d].chain.device.clone());
                vec![job_view(&plan.steps[0].jobs[0], &targets[t].path, disk)]
            },
            plan_points: Arc::new(plan.steps.iter().map(|s| s.point.clone()).collect()),
            plan_notes: Arc::new(plan.steps.iter().map(|s| s.notes.clone()).collect()),
            finished: Arc::new(Vec::new()),
            run: Arc::new(Vec::new()),
            plan: PlanProgress {
                index: 0,
                count: plan.steps.len(),
                bytes: None,
            },
            step: StepView {
                remaining: spec.runtime,
                series: Arc::new(resident_deque(SeriesPoint::default())),
                latency_history: Arc::new(VecDeque::with_capacity(SERIES_POINTS)),
                ..StepView::default()
            },
            disks: device
                .map(|d| DiskView {
                    history: Arc::new(resident_deque(IostatRow::idle(""))),
                    ..DiskView::new(d.chain.device.clone(), Some(d.queue.clone()))
                })
                .into_iter()
                .collect(),
        };
        let (tx, _) = watch::channel(Arc::new(snap.clone()));
        // A fleet's remote run (it waits for the start word) sends its warnings typed on its
        // stream.
        let mut recorder = Recorder::new(jsonl)
            .with_sink(sink)
            .with_warning_lines(options.start_gate.is_some());
        // The targets' warnings and the buffered run are the record's too.
        for warning in &snap.warnings {
            recorder.warn(warning.clone());
        }
        Self {
            machine: MachineLimits::detect(),
            plan,
            step: 0,
            spec,
            options,
            targets,
            step_targets,
            clone_targets,
            zbd_zones: Vec::new(),
            engine_kind,
            engine,
            devices,
            target_device,
            recorder,
            json,
            controls,
            pending: VecDeque::new(),
            tx,
            snap,
            preconditioned: false,
            error: None,
            interrupted: false,
            quit: false,
            series_seq: 0,
            series_base: Duration::ZERO,
            last_publish_ns: 0,
            target_missed: false,
            run_base: Vec::new(),
            tracking: Tracking::default(),
            abort: Arc::default(),
            idle_measured: false,
            tracer: None,
            trace_window: None,
            sched_delays: None,
            trace_acc: None,
            trace_shown: None,
            interval_delays: (HashMap::new(), HashMap::new()),
        }
    }

    /// `--trace`: starts the block tracer on the disks watched; where it cannot run, one note
    /// and the run goes on.
    fn start_trace(&mut self) {
        if !self.options.trace {
            return;
        }
        let disks: Vec<crate::trace::DeviceId> = self
            .devices
            .iter()
            .map(|d| crate::trace::DeviceId {
                disk: d.chain.disk.clone(),
            })
            .collect();
        if disks.is_empty() {
            self.snap
                .notes
                .push("--trace: no disk to trace; the run goes on untraced".to_string());
            return;
        }
        match crate::trace::Tracer::start(&disks) {
            Ok(tracer) => {
                self.snap.notes.extend(tracer.notes.iter().cloned());
                self.tracer = Some(tracer);
            }
            Err(why) => self.snap.notes.push(why.to_string()),
        }
    }

    /// A step starts: what the tracer saw before it (between steps) is dropped, and the
    /// dashboard's last interval with it.
    fn trace_step_start(&mut self) {
        if let Some(tracer) = &self.tracer {
            let _ = tracer.take();
            self.trace_shown = None;
            self.snap.step.trace = None;
            self.interval_delays = (HashMap::new(), HashMap::new());
        }
    }

    /// The tracer's counts start again with a measured window (what came before it is the
    /// dashboard's, with the interval it falls in).
    /// `until`: when the devices' windows were opened (their diskstats read), so the take
    /// splits the tracer's events where diskstats' window starts.
    fn trace_window_start(&mut self, until: Option<u64>) {
        if let Some(tracer) = &self.tracer {
            let before = tracer.take_until(until);
            self.trace_shown.get_or_insert_default().add(&before);
            self.trace_window = None;
            self.trace_acc = Some(crate::trace::TraceTake::default());
            self.sched_delays = Some((crate::trace::sched::worker_delays(), HashMap::new()));
        }
    }

    /// The workers' run-queue delays now, kept over the last reading (a worker that ended
    /// keeps its last): the interval's, and the measured window's while it is open.
    fn read_sched_delays(&mut self, window_open: bool) {
        if self.tracer.is_none() {
            return;
        }
        let now = crate::trace::sched::worker_delays();
        if window_open && let Some((_, last)) = &mut self.sched_delays {
            last.extend(now.iter().map(|(&id, &ns)| (id, ns)));
        }
        self.interval_delays.1.extend(now);
    }

    /// `--trace`: the intervals that just closed, on the dashboard: the tracer's take since
    /// the last one (added to the measured window's while it is open), `app` (the latency
    /// of the jobs on the step's first disk over the same intervals) and those jobs' workers'
    /// wait for a CPU.
    fn trace_interval(&mut self, run: &StepRun, app: &crate::stats::LatencyHistogram) {
        let Some(tracer) = &self.tracer else {
            return;
        };
        let take = tracer.take();
        if let Some(acc) = &mut self.trace_acc {
            acc.add(&take);
        }
        let mut shown = self.trace_shown.take().unwrap_or_default();
        shown.add(&take);
        let Some(&d) = run.devices.first() else {
            return;
        };
        let latest = self.interval_delays.1.clone();
        let mut first = 0u32;
        let mut waited = 0u64;
        let mut paced = false;
        for (job, &t) in run.jobs.iter().zip(&run.targets) {
            let workers = first..first + job.spec.numjobs;
            first += job.spec.numjobs;
            if self.target_device[t] == Some(d) {
                waited +=
                    crate::trace::sched::delay_between(&self.interval_delays.0, &latest, workers);
                paced |= job.spec.paced();
            }
        }
        self.interval_delays.0 = latest;
        let app = app.summary();
        let disk = &self.devices[d].chain.disk;
        let Some(trace) = shown.disks.into_iter().find(|t| t.disk == *disk) else {
            return;
        };
        self.snap.step.trace = Some(Arc::new(super::snapshot::TraceLive {
            trace,
            duration: Duration::from_nanos(shown.cost.elapsed_ns),
            cpu_wait_ns_per_io: (app.count > 0).then(|| waited as f64 / app.count as f64),
            cpu_wait_incl_pacing: paced,
            app,
            lost_events: shown.cost.lost_events,
        }));
    }

    /// Adds the latency of the jobs of `run` on its first disk over `interval` to `into`.
    fn app_on_disk(
        &self,
        run: &StepRun,
        interval: &Interval,
        into: &mut crate::stats::LatencyHistogram,
    ) {
        let Some(&d) = run.devices.first() else {
            return;
        };
        let on_disk = |j: usize| {
            run.targets
                .get(j)
                .is_some_and(|&t| self.target_device[t] == Some(d))
        };
        let parts: Vec<&crate::stats::WorkerStats> = if interval.jobs.is_empty() {
            if on_disk(0) {
                vec![&interval.stats]
            } else {
                Vec::new()
            }
        } else {
            interval
                .jobs
                .iter()
                .enumerate()
                .filter(|(j, _)| on_disk(*j))
                .map(|(_, s)| s)
                .collect()
        };
        for stats in parts {
            for dir in [&stats.read, &stats.write, &stats.trim] {
                into.add(&dir.latency);
            }
        }
    }

    /// `--trace`: each job's workers' wait for a CPU per I/O over the window, and what is
    /// left of its mean latency after that (not for a paced job: [`cpu_wait_in_sum`]) and
    /// its disk's block-layer parts.
    ///
    /// [`cpu_wait_in_sum`]: crate::trace::explain::cpu_wait_in_sum
    fn explain_jobs(
        &self,
        jobs: &[Job],
        targets: &[usize],
        end: &StepEnd,
    ) -> Vec<(Option<f64>, Option<f64>)> {
        let (Some(take), Some((start, last))) = (&self.trace_window, &self.sched_delays) else {
            return vec![(None, None); jobs.len()];
        };
        let mut first = 0u32;
        let mut out = Vec::with_capacity(jobs.len());
        for ((job, &t), job_end) in jobs.iter().zip(targets).zip(&end.jobs) {
            let workers = first..first + job.spec.numjobs;
            first += job.spec.numjobs;
            let total = &job_end.total;
            let ios = total.read.ios + total.write.ios + total.trim.ios;
            if ios == 0 {
                out.push((None, None));
                continue;
            }
            let cpu_wait =
                crate::trace::sched::delay_between(start, last, workers) as f64 / ios as f64;
            let app_mean = [&total.read, &total.write, &total.trim]
                .iter()
                .map(|d| d.latency.summary().mean_ns * d.ios as f64)
                .sum::<f64>()
                / ios as f64;
            let block = self.target_device[t]
                .and_then(|d| {
                    take.disks
                        .iter()
                        .find(|b| b.disk == self.devices[d].chain.disk)
                })
                .and_then(crate::trace::explain::BlockMeans::of);
            let in_sum = crate::trace::explain::cpu_wait_in_sum(cpu_wait, job.spec.paced());
            let unexplained =
                block.and_then(|b| crate::trace::explain::unexplained_ns(app_mean, &b, in_sum));
            out.push((Some(cpu_wait), unexplained));
        }
        out
    }

    /// What the tracer saw over the window that just closed: the takes of its intervals and
    /// the rest.
    /// `until` as [`Self::trace_window_start`]'s: where the devices' windows closed.
    fn trace_window_end(&mut self, until: Option<u64>) {
        if let Some(tracer) = &self.tracer {
            let last = tracer.take_until(until);
            self.trace_shown.get_or_insert_default().add(&last);
            let mut window = self.trace_acc.take().unwrap_or_default();
            window.add(&last);
            self.trace_window = Some(window);
            self.read_sched_delays(true);
        }
    }

    /// Where the front end puts why it gives up on the session (see [`Self::abort`]).
    pub fn abort_reason(&self) -> Arc<std::sync::Mutex<Option<String>>> {
        self.abort.clone()
    }

    pub fn subscribe(&self) -> watch::Receiver<Arc<Snapshot>> {
        self.tx.subscribe()
    }

    fn publish(&mut self) {
        self.snap.seq += 1;
        self.last_publish_ns = monotonic_ns();
        self.tx.send_replace(Arc::new(self.snap.clone()));
    }

    /// The next control to act on: first those held back, then the channel.
    fn next_control(&mut self) -> Option<Control> {
        self.pending
            .pop_front()
            .or_else(|| self.controls.try_recv().ok())
    }

    fn interrupt_raised(&self) -> bool {
        self.options.interrupt.load(Ordering::Relaxed)
    }

    /// Ends a session that could not start its thread: the record says why (status failed),
    /// the scratch file is removed.
    pub fn fail_unstarted(mut self, message: String) -> SessionOutcome {
        self.fail_message(message);
        self.finish()
    }

    /// The thread body.
    pub fn run(mut self) -> SessionOutcome {
        // From here on the files the plan created stay, as fio leaves them.
        for target in &mut self.targets {
            target.keep_created();
        }
        self.start_trace();
        self.publish();
        if self.targets.iter().any(|t| t.needs_fill) {
            self.precondition();
        }
        if let Some(gate) = self.options.start_gate.clone()
            && self.error.is_none()
            && !self.interrupted
            && !self.quit
        {
            self.recorder.ready(self.targets[0].working_set_bytes);
            if !(gate.0)() {
                self.interrupted = true;
            }
        }
        let mut start_now = self.options.finish_when_done;
        while self.error.is_none() && !self.interrupted && !self.quit {
            if !start_now && !self.idle() {
                break;
            }
            start_now = false;
            // A step started after the plan's end (a change, `s`) is the run's end again
            // only once it runs to its own.
            self.snap.ran_to_end = false;
            match self.run_step() {
                StepEnding::Change(spec) => {
                    let running = &self.plan.steps[self.step].jobs[0];
                    let changed = Job {
                        name: running.name.clone(),
                        spec: (*spec).clone(),
                        ..running.clone()
                    };
                    self.plan.steps.push(Step::single(changed));
                    self.step_targets.push(vec![0]);
                    self.clone_targets.push(self.clone_targets[0].clone());
                    self.step = self.plan.steps.len() - 1;
                    self.spec = *spec;
                    self.snap.jobs[0].spec = self.spec.clone();
                    start_now = true;
                }
                // The next step of the plan, when there is one.
                StepEnding::Runtime | StepEnding::Next
                    if self.step + 1 < self.plan.steps.len() && !self.target_missed =>
                {
                    self.step += 1;
                    self.spec = self.plan.steps[self.step].jobs[0].spec.clone();
                    self.snap.jobs[0].spec = self.spec.clone();
                    start_now = true;
                }
                StepEnding::Runtime | StepEnding::Next if self.options.finish_when_done => {
                    break;
                }
                // `n` on the last point cuts it short: not run to its end.
                StepEnding::Runtime => self.snap.ran_to_end = true,
                StepEnding::Next | StepEnding::Stop => {}
                StepEnding::Quit => self.quit = true,
                StepEnding::Interrupt => self.interrupted = true,
                StepEnding::Fault => {}
            }
        }
        self.finish()
    }

    /// Writes data over every target that needs it (new, empty or allowed-to-fill sparse
    /// files), one after another, with one progress over them all.
    fn precondition(&mut self) {
        let stop = AtomicBool::new(false);
        let total: u64 = self
            .targets
            .iter()
            .filter(|t| t.needs_fill)
            .map(|t| t.extent_bytes)
            .sum();
        let started = monotonic_ns();
        let mut last = 0u64;
        let mut before = 0u64;
        let mut result = Ok(FillOutcome::Done);
        for at in 0..self.targets.len() {
            if !self.targets[at].needs_fill {
                continue;
            }
            // Direct when any job on it is: the fill then checks O_DIRECT works.
            let direct = self.plan.steps.iter().enumerate().any(|(i, step)| {
                step.jobs
                    .iter()
                    .zip(&self.step_targets[i])
                    .zip(&self.clone_targets[i])
                    .any(|((job, &t), clones)| (t == at || clones.contains(&at)) && job.spec.direct)
            });
            let target = &self.targets[at];
            let interrupt = self.options.interrupt.clone();
            let controls = &mut self.controls;
            let pending = &mut self.pending;
            let tx = &self.tx;
            let snap = &mut self.snap;
            result = fill::fill(target, direct, &stop, |done, _| {
                if interrupt.load(Ordering::Relaxed) {
                    stop.store(true, Ordering::Relaxed);
                }
                // Quit stops the fill; everything else acts once the target is ready.
                while let Ok(control) = controls.try_recv() {
                    if control == Control::Quit {
                        stop.store(true, Ordering::Relaxed);
                    } else {
                        pending.push_back(control);
                    }
                }
                let now = monotonic_ns();
                let done = before + done;
                if now - last >= 100_000_000 || done == total {
                    last = now;
                    snap.seq += 1;
                    snap.state = SessionState::Preparing {
                        done_bytes: done,
                        total_bytes: total,
                    };
                    tx.send_replace(Arc::new(snap.clone()));
                }
            });
            before += target.extent_bytes;
            if !matches!(result, Ok(FillOutcome::Done)) {
                break;
            }
        }
        match result {
            Ok(FillOutcome::Done) => {
                self.preconditioned = true;
                self.snap.filled = true;
                let seconds = (monotonic_ns() - started) as f64 / 1e9;
                let what = if self.targets.len() == 1 {
                    format!("the {} working set", format_size_short(total))
                } else {
                    format!("{} over the jobs' files", format_size_short(total))
                };
                self.snap.notes.push(format!(
                    "wrote {what} with data first ({seconds:.1} s): reads measure the device, \
                     writes overwrite allocated blocks"
                ));
            }
            Ok(FillOutcome::Stopped) => {
                if self.interrupt_raised() {
                    self.interrupted = true;
                } else {
                    self.quit = true;
                }
            }
            Err(fault) => self.fail_with(&fault),
        }
        self.snap.state = SessionState::Idle;
        self.publish();
    }

    fn fail_with(&mut self, fault: &IoFault) {
        let message = fault.to_string();
        self.snap.error = Some(message.clone());
        self.error = Some(ErrorRecord {
            message,
            operation: Some(fault.operation.to_string()),
            errno: (fault.errno != 0).then_some(fault.errno),
            errno_name: (fault.errno != 0).then(|| errno_name(fault.errno)),
            offset_bytes: fault.offset_bytes,
            worker: (fault.worker != u32::MAX).then_some(fault.worker),
        });
    }

    fn fail_message(&mut self, message: String) {
        self.snap.error = Some(message.clone());
        self.error = Some(ErrorRecord {
            message,
            operation: None,
            errno: None,
            errno_name: None,
            offset_bytes: None,
            worker: None,
        });
    }

    /// Waits between steps. Returns whether to start a step.
    fn idle(&mut self) -> bool {
        self.snap.state = SessionState::Idle;
        self.publish();
        loop {
            if self.interrupt_raised() {
                self.interrupted = true;
                return false;
            }
            while let Some(control) = self.next_control() {
                let job = self.spec.clone();
                let step = controls::idle(control, &job, &mut |job, change| {
                    self.changed_from(job.clone(), change)
                });
                match step {
                    IdleStep::Start => return true,
                    IdleStep::Quit => {
                        self.quit = true;
                        return false;
                    }
                    IdleStep::Wait => {}
                    IdleStep::Changed(spec) => {
                        self.spec = *spec;
                        self.snap.jobs[0].spec = self.spec.clone();
                        self.publish();
                    }
                }
            }
            std::thread::sleep(POLL);
        }
    }

    /// `spec` after a parameter change, or `None` (with a warning) when it is not valid. The
    /// change goes through the validator of new jobs (its bounds and texts), then the rules
    /// that need the open target.
    fn changed_from(&mut self, spec: JobSpec, change: &Control) -> Option<JobSpec> {
        let key = |key, value: String| JobOption::dashboard(key, value);
        let changes = match *change {
            // The batching values follow: `JobSpec::at_depth`.
            Control::SetIodepth(_) => Vec::new(),
            Control::SetNumjobs(n) => vec![key(Key::NumJobs, n.to_string())],
            Control::SetBlockSize(bs) => vec![key(Key::Bs, bs.to_string())],
            Control::SetRw(rw) => vec![key(Key::Rw, rw.as_str().to_string())],
            _ => return Some(spec),
        };
        if self.plan.steps.iter().any(|step| step.jobs.len() > 1) {
            self.warn(RunWarning::ChangeIgnoredManyJobs);
            return None;
        }
        let target = &self.targets[0];
        let next = match *change {
            // The batching values as the step was given, capped to the new depth as a sweep's
            // point caps them.
            Control::SetIodepth(n) => {
                spec.at_depth(&self.plan.steps[self.step].jobs[0].spec, n, &self.machine)
            }
            _ => spec.with(changes, &self.machine),
        };
        let checked = next.and_then(|next| {
            // The changed job must fit the memory available now (the running one's included:
            // it holds its memory until the change starts the next step).
            if let Some(budget) = crate::bench::memory::Budget::detect() {
                let job = Job::bench("bench", next.clone(), None);
                crate::bench::memory::check_plan(&Plan::single(job), &budget)?;
            }
            if let Control::SetBlockSize(_) = change {
                target::check_block_size(
                    &next,
                    "bs",
                    target.dio_align_bytes,
                    target.working_set_bytes,
                    &target.path,
                )?;
            }
            if let Control::SetRw(rw) = change
                && next.writes()
                && !spec.writes()
            {
                if target.kind != TargetKind::Scratch && !self.options.allow_destructive {
                    anyhow::bail!(
                        "{} writes; the target needs --allow-destructive",
                        rw.as_str()
                    );
                }
                if !target.writable {
                    anyhow::bail!(
                        "{} writes; restart with a write job to open the target for writing",
                        rw.as_str()
                    );
                }
            }
            Ok(next)
        });
        match checked {
            Ok(next) => Some(next),
            Err(problem) => {
                self.warn(RunWarning::ChangeIgnored {
                    problem: problem.to_string(),
                });
                None
            }
        }
    }

    /// The disks of the running step, each once, in the order of its jobs.
    fn step_devices(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for &t in &self.step_targets[self.step] {
            if let Some(d) = self.target_device[t]
                && !out.contains(&d)
            {
                out.push(d);
            }
        }
        out
    }

    /// The running step's jobs with the spec each runs (a one-job step runs the current
    /// spec, which live changes move).
    fn step_jobs(&self) -> Vec<Job> {
        let step = &self.plan.steps[self.step];
        if step.jobs.len() == 1 {
            let mut job = step.jobs[0].clone();
            job.spec = self.spec.clone();
            return vec![job];
        }
        step.jobs.clone()
    }

    /// Runs the current step: sets it up, ticks until its workers end, ends it.
    fn run_step(&mut self) -> StepEnding {
        let mut run = match self.start_step() {
            Ok(run) => run,
            Err(ending) => return ending,
        };
        while !self.tick(&mut run) {}
        self.end_step(run)
    }

    /// Sets the step up: caches dropped, device windows restarted, workers spawned, the
    /// snapshot's views opened. `Err`: nothing ran (interrupted, or the setup failed).
    fn start_step(&mut self) -> Result<StepRun, StepEnding> {
        self.snap.ran_to_end = false;
        let index = self.recorder.next_step();
        let jobs = self.step_jobs();
        let spec = Arc::new(jobs[0].spec.clone());
        let targets: Vec<usize> = self.step_targets[self.step].clone();
        let devices = self.step_devices();
        let setup = self.worker_setup(index, &jobs, &targets);
        self.note_unlike_fio(&jobs);
        self.note_step();
        self.drop_caches(&jobs, &targets)?;
        self.measure_idle();
        let cpu_start = rusage();
        for &d in &devices {
            let device = &mut self.devices[d];
            // A fresh baseline for interval rows; the window opens now unless there is a ramp.
            device.restart_intervals();
            if spec.ramp.is_zero() {
                device.start_window();
            }
        }
        self.trace_step_start();
        if spec.ramp.is_zero() {
            self.trace_window_start(None);
        }
        let interrupt = self.options.interrupt.clone();
        let workers = match StepWorkers::spawn(&setup, &|| interrupt.load(Ordering::Relaxed)) {
            Ok(workers) => workers,
            // Nothing ran: no step to record.
            Err(SpawnError::Interrupted) => return Err(StepEnding::Interrupt),
            Err(SpawnError::Failed(message)) => {
                self.fail_message(format!("setting up the workers failed: {message}"));
                return Err(StepEnding::Fault);
            }
        };
        self.note_engine(&workers.setups);
        self.open_views(index, &jobs, &targets, &devices);
        self.recorder.start_step();
        let cpu_measure_start = spec.ramp.is_zero().then_some(cpu_start);
        Ok(StepRun {
            index,
            time_goal_ns: fold::time_goal_ns(&jobs, workers.runtime_ns),
            verify_progress: workers.verify_progress(),
            jobs,
            spec,
            targets,
            devices,
            workers,
            fold: StepFold::default(),
            window_closed: false,
            cpu_measure_start,
        })
    }

    /// Once, before the first step: each disk's rate while nothing of the run touches it,
    /// over the idle window (`window::IDLE_WINDOW`), so a journal commit or a daemon's trickle
    /// is not counted as another process sharing the disk; and the limits the trust marks are
    /// judged by.
    fn measure_idle(&mut self) {
        if self.idle_measured {
            return;
        }
        self.idle_measured = true;
        let idle_window = super::window::idle_window();
        let start: Vec<Option<(Duration, u64)>> = self
            .devices
            .iter_mut()
            .map(|device| {
                if idle_window.is_zero() {
                    None
                } else {
                    device.completed_bytes()
                }
            })
            .collect();
        let window = if start.iter().any(Option::is_some) {
            std::thread::sleep(idle_window);
            idle_window
        } else {
            Duration::ZERO
        };
        let idle = self
            .devices
            .iter_mut()
            .zip(start)
            .filter_map(|(device, start)| {
                let (t0, b0) = start?;
                let (t1, b1) = device.completed_bytes()?;
                let seconds = t1.saturating_sub(t0).as_secs_f64();
                (seconds > 0.0).then(|| IdleDiskRecord {
                    name: device.chain.device.clone(),
                    bytes_per_s: b1.saturating_sub(b0) as f64 / seconds,
                })
            })
            .collect();
        self.recorder.set_trust(TrustSetup {
            limits: self.options.trust,
            idle_window_ns: crate::record::nanos(window),
            idle,
        });
    }

    /// What each job's workers get: its spec, file, engine and seed.
    fn worker_setup(&mut self, index: u32, jobs: &[Job], targets: &[usize]) -> StepSetup {
        let zbd: Vec<_> = jobs
            .iter()
            .zip(targets)
            .map(|(job, &t)| self.file_zones(job, t))
            .collect();
        StepSetup {
            jobs: jobs
                .iter()
                .zip(targets)
                .enumerate()
                .map(|(j, (job, &t))| JobSetup {
                    spec: Arc::new(sized_now(&job.spec, &self.targets[t]).0),
                    file: self.targets[t].file.clone(),
                    clone_files: self.clone_targets[self.step][j]
                        .iter()
                        .map(|&c| self.targets[c].file.clone())
                        .collect(),
                    whole: job.whole,
                    working_set_bytes: sized_now(&job.spec, &self.targets[t]).1,
                    engine: match job.spec.ioengine {
                        EngineKind::IoUring => self.engine_kind,
                        other => other,
                    },
                    seed: job
                        .spec
                        .randseed
                        .unwrap_or(0xD15C_DA54_0000_0000 ^ u64::from(index))
                        ^ (j as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    zbd: zbd[j].clone(),
                })
                .collect(),
        }
    }

    /// The emulated zones of target `t`'s file for a zonemode=zbd job: the ones jobs before it
    /// on the file used, else new ones (empty, as fio's emulated zones start).
    fn file_zones(&mut self, job: &Job, t: usize) -> Option<Arc<crate::bench::zbd::SharedZones>> {
        let zones = job.spec.zbd?;
        let id = self.targets[t].id;
        if let Some((.., shared)) = self
            .zbd_zones
            .iter()
            .find(|(file, bytes, _)| *file == id && *bytes == zones.zone_bytes)
        {
            return Some(shared.clone());
        }
        let shared = Arc::new(crate::bench::zbd::SharedZones::new(
            zones,
            0,
            self.targets[t].working_set_bytes,
            job.spec.numjobs,
        ));
        self.zbd_zones.push((id, zones.zone_bytes, shared.clone()));
        Some(shared)
    }

    /// Where a job runs unlike fio's defaults (bench's huge-page buffers, registered buffers
    /// and file): says so once (a sweep's first such point), in one line of the notes the summary and the record carry.
    fn note_unlike_fio(&mut self, jobs: &[Job]) {
        if let Some(note) = jobs
            .iter()
            .find_map(|job| crate::bench::options::unlike_fio_line(&job.spec))
            && !self
                .snap
                .notes
                .iter()
                .any(|n| n.starts_with(crate::bench::options::UNLIKE_FIO))
        {
            self.snap.notes.push(note);
        }
    }

    /// The step's own notes (a sweep point's batching values capped to its depth), each once
    /// (a point's loops repeat them), named by the point: `point iodepth=1: iodepth_batch 8 ->
    /// 1 at iodepth 1`.
    fn note_step(&mut self) {
        let step = &self.plan.steps[self.step];
        let point = crate::plan::describe(&step.point);
        for note in &step.notes {
            let line = if point.is_empty() {
                note.clone()
            } else {
                format!("point {point}: {note}")
            };
            if !self.snap.notes.contains(&line) {
                self.snap.notes.push(line);
            }
        }
    }

    /// Drops the page cache the step's jobs ask to start without. `Err`: the session fails.
    fn drop_caches(&mut self, jobs: &[Job], targets: &[usize]) -> Result<(), StepEnding> {
        // Jobs start from the device (fio's invalidate=1): the fill or an earlier step must
        // not serve their reads from memory. fio drops the cache of a direct job's file too
        // (its `file_invalidate_cache` at open), so direct I/O finds no cached pages there.
        for (j, (job, &t)) in jobs.iter().zip(targets).enumerate() {
            if !job.spec.invalidate {
                continue;
            }
            let clones = &self.clone_targets[self.step][j];
            for &at in std::iter::once(&t).chain(clones) {
                if let Err(err) = self.targets[at].drop_cached() {
                    self.snap.notes.push(format!(
                        "could not drop the page cache of {}: {err}",
                        self.targets[at].path.display()
                    ));
                }
            }
        }
        // KDiskMark's "Flush Pagecache": the whole clean page cache, before every loop.
        if jobs.iter().any(|job| job.spec.drop_caches)
            && let Err(err) = drop_page_cache(Path::new(DROP_CACHES))
        {
            self.fail_message(format!(
                "could not drop the page cache ({DROP_CACHES}): {err}; dropping it takes root"
            ));
            return Err(StepEnding::Fault);
        }
        Ok(())
    }

    /// The snapshot of a step starting: its jobs, disks, trackers and mark on the series.
    fn open_views(&mut self, index: u32, jobs: &[Job], targets: &[usize], devices: &[usize]) {
        self.snap.step.index = index;
        self.snap.step.interval = None;
        self.snap.step.cumulative = StatsView::default();
        self.snap.plan = PlanProgress {
            index: self.step,
            count: self.plan.steps.len(),
            bytes: size_goal(jobs),
        };
        self.snap.jobs = jobs
            .iter()
            .zip(targets)
            .map(|(job, &t)| {
                let disk = self.target_device[t].map(|d| self.devices[d].chain.device.clone());
                job_view(job, &self.targets[t].path, disk)
            })
            .collect();
        self.tracking = Tracking::for_jobs(jobs);
        self.tracking.publish(&mut self.snap.jobs);
        let before = std::mem::take(&mut self.snap.disks);
        self.snap.disks = devices
            .iter()
            .map(|&d| {
                let device = &self.devices[d];
                DiskView::new(device.chain.device.clone(), Some(device.queue.clone()))
            })
            .collect();
        fold::keep_panels(before, &mut self.snap.disks);
        Arc::make_mut(&mut self.snap.step.marks).push(StepMark {
            index,
            job: if jobs.len() == 1 {
                jobs[0].spec.describe()
            } else {
                format!(
                    "{} jobs: {}",
                    jobs.len(),
                    jobs.iter()
                        .map(|j| j.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
            at: self.series_base,
            engine: self.engine.used.clone(),
        });
    }

    /// One look at the running step: closed intervals, the measuring window's edges, controls,
    /// the clock. Returns whether the workers have all ended.
    fn tick(&mut self, run: &mut StepRun) -> bool {
        // Until measuring starts, wake when it does: the device window opens then, not up
        // to a poll later (the workers count from that instant).
        let wait = if run.cpu_measure_start.is_none() {
            POLL.min(Duration::from_nanos(
                run.workers.record_from_ns.saturating_sub(monotonic_ns()),
            ))
        } else {
            POLL
        };
        let intervals = run.workers.poll(wait);
        // A worker's CPU wait as late as it can be read (it is gone once it ends).
        self.read_sched_delays(run.cpu_measure_start.is_some() && !run.window_closed);
        let emitted = !intervals.is_empty();
        let closed_to_ns = intervals.last().map(|i| i.end_offset_ns);
        let mut app = self
            .tracer
            .as_ref()
            .map(|_| crate::stats::LatencyHistogram::new());
        for interval in intervals {
            if let Some(app) = &mut app {
                self.app_on_disk(run, &interval, app);
            }
            self.add_interval(run.index, &interval, &run.devices);
            run.workers.recycle(interval);
        }
        if emitted && let Some(app) = &app {
            self.trace_interval(run, app);
        }
        if !self.tracking.stop && self.tracking.attained() {
            self.tracking.stop = true;
            self.tracking.publish(&mut self.snap.jobs);
            run.workers.stop();
        }
        if emitted {
            let span = Duration::from_nanos(run.workers.elapsed_ns(monotonic_ns()));
            fold::totals(
                &mut self.snap,
                run.workers.total(),
                run.workers.job_totals(),
                span,
                &self.run_base,
            );
        }
        if let Some(to_ns) = closed_to_ns {
            self.report_status(run, to_ns);
        }
        let now = monotonic_ns();
        self.window_edges(run, now);
        self.take_controls(run);
        fold::clock(
            &mut self.snap,
            now,
            run.workers.elapsed_ns(now),
            run.workers.record_from_ns,
            run.time_goal_ns,
            run.workers.is_paused(),
        );
        self.copy_verify(&run.verify_progress);
        if run.workers.workers_done() {
            return true;
        }
        if emitted || now - self.last_publish_ns >= PUBLISH_EVERY_NS {
            self.publish();
        }
        false
    }

    /// The run's outcome for its record, `status` and whether the scratch file is removed.
    fn outcome(&self, status: RunStatus, scratch_removed: bool) -> RunOutcome {
        RunOutcome {
            status,
            error: self.error.clone(),
            job: self.spec.clone(),
            engine: self.engine.clone(),
            target: TargetRecord {
                preconditioned: self.preconditioned,
                scratch_removed,
                ..self.target_record(0)
            },
            notes: self.snap.notes.clone(),
        }
    }

    /// Hands the status sink (fio's `--status-interval`) the run so far: the finished steps
    /// and this one up to its last closed interval (`to_ns` into it), each job's totals from
    /// its start. The running step has no device window closed yet: it has no disk rows.
    fn report_status(&mut self, run: &StepRun, to_ns: u64) {
        let Some(sink) = self.options.status_sink.clone() else {
            return;
        };
        let jobs = run
            .workers
            .job_totals()
            .zip(run.workers.clones_so_far(to_ns))
            .map(|(total, clones)| JobEnd {
                total: total.clone(),
                elapsed_ns: to_ns,
                cpu: Usage::default(),
                pid: 0,
                verify: crate::bench::worker::VerifyOutcome::default(),
                clones,
                latency_depth: None,
            })
            .collect();
        let end = StepEnd {
            total: run.workers.total().clone(),
            last_interval: None,
            faults: Vec::new(),
            elapsed_ns: to_ns,
            stall: Stall::default(),
            starved: Stall::default(),
            jobs,
        };
        let status = RunStatus::Completed;
        let errors = vec![None; run.jobs.len()];
        let job_records = self.job_records(&run.jobs, &run.targets, &end, errors, status);
        let cpu_now = rusage();
        let running = StepOutcome {
            status,
            job: &run.spec,
            engine: &self.engine.used,
            end: &end,
            cpu: cpu_record(run.cpu_measure_start.unwrap_or(cpu_now), cpu_now, to_ns),
            device: None,
            devices: Vec::new(),
            jobs: job_records,
            targets: run.targets.clone(),
            point: &self.plan.steps[self.step].point,
            notes: &self.plan.steps[self.step].notes,
            stop_reason: crate::record::StopReason::Runtime,
        };
        let record = self.recorder.so_far(running, self.outcome(status, false));
        if let Ok(mut sink) = sink.0.lock() {
            (*sink)(&record);
        }
    }

    /// Opens the device windows when measuring starts (after the ramp) and closes them when
    /// the measured I/O ends.
    fn window_edges(&mut self, run: &mut StepRun, now: u64) {
        if run.cpu_measure_start.is_none() && now >= run.workers.record_from_ns {
            run.cpu_measure_start = Some(rusage());
            // Measuring that ended within the ramp has no window (a read-back may run).
            if !run.window_closed {
                let at = crate::stats::monotonic_ns();
                for &d in &run.devices {
                    self.devices[d].start_window();
                }
                self.trace_window_start(Some(at));
            }
        }
        if !run.window_closed && run.workers.measuring_over() {
            // The device window ends with the measured I/O; read-backs wait for this.
            run.window_closed = true;
            let at = crate::stats::monotonic_ns();
            for &d in &run.devices {
                self.devices[d].end_measuring();
            }
            self.trace_window_end(Some(at));
            run.workers.window_closed();
        }
    }

    /// Folds an interrupt, the workers' own stop and the controls that arrived into the
    /// step's ending, and does what the fold says to the workers.
    fn take_controls(&mut self, run: &mut StepRun) {
        let fold = &mut run.fold;
        let mut orders = Vec::new();
        if self.interrupt_raised() {
            orders.push(fold.end(StepEnding::Interrupt));
        } else if run.workers.stop_requested() {
            orders.push(fold.end(StepEnding::Fault));
        }
        let arrived: Vec<Control> = std::iter::from_fn(|| self.next_control()).collect();
        for control in arrived {
            let job = self.spec.clone();
            orders.push(fold.control(control, &job, &mut |job, change| {
                self.changed_from(job.clone(), change)
            }));
        }
        for order in orders {
            match order {
                Workers::Continue => {}
                Workers::Pause => run.workers.pause(),
                Workers::Resume => run.workers.resume(),
                Workers::Stop => run.workers.stop(),
            }
        }
        // Held back for the next state (taken out of `pending` first so the loop ends).
        self.pending.extend(fold.held.drain(..));
        if let Some(job) = fold.adopt.take() {
            self.spec = job;
            self.snap.jobs[0].spec = self.spec.clone();
        }
        if fold.quit {
            self.quit = true;
        }
    }

    /// The step's workers have ended: its last interval, device windows, warnings, faults,
    /// status and record.
    fn end_step(&mut self, run: StepRun) -> StepEnding {
        let StepRun {
            index,
            jobs,
            spec,
            targets,
            devices,
            workers,
            fold,
            verify_progress,
            cpu_measure_start,
            ..
        } = run;
        let end = workers.finish();
        // The workers have ended: the counts are final (a read-back may have ended after the
        // loop's last look).
        self.copy_verify(&verify_progress);
        let cpu_end = rusage();
        if let Some(warning) = fold::stall_warning(index, &end.stall) {
            self.warn(warning);
        }
        if let Some(warning) = fold::starved_warning(index, &end.starved) {
            self.warn(warning);
        }
        if let Some(last) = &end.last_interval
            && (last.duration_ns >= 1_000_000 || last.stats.ios() > 0)
        {
            self.add_interval(index, last, &devices);
        }
        // The null engine sends nothing to the device, the metadata engines no data: there is
        // nothing to reconcile, and a device that served nothing must not read as "page cache".
        let null_engine = jobs.iter().all(|j| {
            let engine = if j.spec.ioengine == EngineKind::IoUring {
                self.engine_kind
            } else {
                j.spec.ioengine
            };
            engine == EngineKind::Null || engine.is_metadata()
        });
        let device_records = self.end_devices(&devices, &targets, &end, null_engine);
        self.end_warnings(index, &jobs, &targets, &end, &device_records, null_engine);
        // The first job's disk is the step's `device`, as a one-job record has it.
        let first_disk =
            self.target_device[targets[0]].map(|d| self.devices[d].chain.device.clone());
        let device_record = device_records
            .iter()
            .find(|r| Some(&r.name) == first_disk.as_ref())
            .cloned();
        if let Some(device) = &device_record {
            self.snap.step.reconciliation = Some(device.reconciliation.clone());
        }
        let job_errors = fold::job_errors(&end.faults, jobs.len());
        for (view, error) in self.snap.jobs.iter_mut().zip(&job_errors) {
            if error.is_some() {
                view.errors += 1;
            }
        }
        if let Some((j, fault)) = end.faults.first() {
            if jobs.len() > 1 {
                let mut record = fold::error_record(fault);
                record.message = format!("job {}: {}", jobs[*j].name, record.message);
                self.snap.error = Some(record.message.clone());
                self.error = Some(record);
            } else {
                self.fail_with(fault);
            }
        }
        let ending = fold::settle_ending(fold.ending, !end.faults.is_empty());
        self.tracking.finish();
        self.tracking.publish(&mut self.snap.jobs);
        let stop_reason =
            fold::stop_reason(&ending, self.tracking.stop, size_goal(&jobs).is_some());
        let cpu = cpu_record(
            cpu_measure_start.unwrap_or(cpu_end),
            cpu_end,
            end.elapsed_ns,
        );
        self.series_base += Duration::from_nanos(end.elapsed_ns);
        fold::end_totals(&mut self.snap, &end);
        let status = fold::step_status(&ending);
        self.check_latency_target(&end);
        for warning in fold::rate_shortfalls(&jobs, &end.jobs, status) {
            self.warn(warning);
        }
        Arc::make_mut(&mut self.snap.finished).push(fold::step_result(
            self.step,
            index,
            status,
            &end,
            device_record.as_ref(),
        ));
        let job_records = self.job_records(&jobs, &targets, &end, job_errors, status);
        self.recorder.end_step(StepOutcome {
            status,
            job: &spec,
            engine: &self.engine.used,
            end: &end,
            cpu,
            device: device_record,
            devices: device_records,
            jobs: job_records,
            targets,
            point: &self.plan.steps[self.step].point,
            notes: &self.plan.steps[self.step].notes,
            stop_reason,
        });
        // The step's trust marks, once its record judged them.
        let marks = self.recorder.last_marks();
        if let Some(done) = Arc::make_mut(&mut self.snap.finished).last_mut() {
            done.marks = marks;
        }
        // The step's final totals (its last, partial interval and its errors included) join
        // the run's.
        add_to_run(&mut self.run_base, &self.snap.jobs);
        self.snap.run = Arc::new(self.run_base.clone());
        self.publish();
        ending
    }

    /// Closes each of the step's disks' windows: its `iostat -x` row over the step and the
    /// reconciliation with what the jobs on it sent.
    fn end_devices(
        &mut self,
        devices: &[usize],
        targets: &[usize],
        end: &StepEnd,
        null_engine: bool,
    ) -> Vec<DeviceRecord> {
        let mut device_records = Vec::with_capacity(devices.len());
        for &d in devices {
            // The app side: the jobs whose target is on this disk.
            let (mut reads, mut writes, mut bytes, mut trims) = (0, 0, 0, 0);
            for (job_end, &t) in end.jobs.iter().zip(targets) {
                if self.target_device[t] == Some(d) {
                    reads += job_end.total.read.ios;
                    writes += job_end.total.write.ios;
                    bytes += job_end.total.read.bytes + job_end.total.write.bytes;
                    trims += job_end.total.trim.ios;
                }
            }
            let device = &mut self.devices[d];
            let Some((row, mut reconciliation)) = device.end_window(reads, writes, bytes, trims)
            else {
                continue;
            };
            if null_engine {
                reconciliation.verdict =
                    "null engine: no I/O was sent to the device, nothing to reconcile".to_string();
            }
            let block_trace = self.trace_window.as_ref().and_then(|take| {
                take.disks
                    .iter()
                    .find(|t| t.disk == device.chain.disk)
                    .map(|t| crate::trace::block_trace_record(t, Some(&take.cost)))
            });
            device_records.push(DeviceRecord {
                name: device.chain.device.clone(),
                disk: device.chain.disk.clone(),
                queue: device.queue.clone(),
                iostat: row,
                reconciliation,
                block_trace,
            });
        }
        device_records
    }

    /// Trims that went over a file's data again, and disks that served less than the jobs
    /// asked (the page cache did).
    fn end_warnings(
        &mut self,
        index: u32,
        jobs: &[Job],
        targets: &[usize],
        end: &StepEnd,
        device_records: &[DeviceRecord],
        null_engine: bool,
    ) {
        for ((job_end, &t), job) in end.jobs.iter().zip(targets).zip(jobs) {
            let target = &self.targets[t];
            // trimwrite writes each range after trimming it: its next pass trims data again.
            if target.kind != TargetKind::BlockDevice
                && matches!(job.spec.rw, RwMode::Trim | RwMode::RandTrim)
                && !null_engine
                && job_end.total.trim.bytes > target.working_set_bytes
            {
                self.warn(RunWarning::TrimsRepeated {
                    step: index,
                    job: job.name.clone(),
                    trimmed_bytes: job_end.total.trim.bytes,
                    working_set_bytes: target.working_set_bytes,
                });
            }
        }
        for device in device_records {
            if Verdict::of(&device.reconciliation) == Verdict::PageCache && !null_engine {
                let point = &self.plan.steps[self.step].point;
                self.warn(RunWarning::PageCache {
                    device: device.name.clone(),
                    app_bytes: device.reconciliation.app_bytes,
                    device_bytes: device.reconciliation.device_bytes,
                    step: Some(index),
                    point: (!point.is_empty()).then(|| crate::plan::describe(point)),
                });
            }
        }
    }

    /// A sweep's latency target (`--latency-target`): a step over it ends the plan after it.
    fn check_latency_target(&mut self, end: &StepEnd) {
        let Some(target) = self.options.latency_target else {
            return;
        };
        let mut buckets = end.total.read.latency.fine_buckets();
        crate::stats::merge_buckets(&mut buckets, &end.total.write.latency.fine_buckets());
        if buckets.is_empty() {
            return;
        }
        let at = crate::stats::bucket_percentile_ns(&buckets, target.percentile);
        if at > target.ns {
            self.target_missed = true;
            self.snap.notes.push(format!(
                "latency target missed: p{} {} > {}; no further points run",
                target.percentile,
                crate::units::format_latency_ns(at as f64),
                crate::units::format_latency_ns(target.ns as f64)
            ));
        }
    }

    /// Each job's part of the step's record.
    fn job_records(
        &self,
        jobs: &[Job],
        targets: &[usize],
        end: &StepEnd,
        job_errors: Vec<Option<ErrorRecord>>,
        status: RunStatus,
    ) -> Vec<StepJobRecord> {
        let explained = self.explain_jobs(jobs, targets, end);
        jobs.iter()
            .zip(targets)
            .zip(&end.jobs)
            .zip(job_errors)
            .enumerate()
            .map(|(j, (((job, &t), job_end), error))| StepJobRecord {
                cpu_wait_ns_per_io: explained[j].0,
                cpu_wait_incl_pacing: explained[j].0.is_some() && job.spec.paced(),
                unexplained_ns_per_io: explained[j].1,
                verify: job
                    .spec
                    .verify
                    .map(|v| crate::record::VerifyRecord::of(v.kind.as_str(), &job_end.verify)),
                name: job.name.clone(),
                group: job.group,
                job: job.spec.record_on(self.ran_engine(&job.spec)),
                target: self.target_record(t),
                device: self.target_device[t].map(|d| self.devices[d].chain.device.clone()),
                status: fold::job_status(error.is_some(), status),
                error,
                elapsed_ns: job_end.elapsed_ns,
                read: DirectionRecord::with_verify_reads(
                    &job_end.total.read,
                    job_end.elapsed_ns,
                    &job_end.verify.reads,
                    job_end.verify.pass_ns,
                ),
                write: DirectionRecord::from_stats(&job_end.total.write, job_end.elapsed_ns)
                    .with_histogram(&job_end.total.write),
                sync: SyncRecord::from_stats(&job_end.total.sync)
                    .with_histogram(&job_end.total.sync),
                trim: DirectionRecord::from_stats(&job_end.total.trim, job_end.elapsed_ns)
                    .with_histogram(&job_end.total.trim),
                retries: job_end.total.retries,
                continued: job
                    .spec
                    .errors
                    .any()
                    .then(|| fold::continued_errors(&job_end.total, &job_end.verify)),
                cpu: cpu_record(Usage::default(), job_end.cpu, job_end.elapsed_ns),
                pid: (job_end.pid != 0).then_some(job_end.pid),
                io_depths: io_depths(&job_end.total),
                steadystate: self.tracking.steady_record(j),
                sustained_write: self.tracking.sustained_record(j),
                clones: job_end
                    .clones
                    .iter()
                    .enumerate()
                    .map(|(c, clone)| crate::record::CloneRecord {
                        elapsed_ns: clone.elapsed_ns,
                        read: DirectionRecord::with_verify_reads(
                            &clone.total.read,
                            clone.elapsed_ns,
                            &clone.verify_reads,
                            clone.verify_ns,
                        ),
                        write: DirectionRecord::from_stats(&clone.total.write, clone.elapsed_ns)
                            .with_histogram(&clone.total.write),
                        sync: SyncRecord::from_stats(&clone.total.sync)
                            .with_histogram(&clone.total.sync),
                        trim: DirectionRecord::from_stats(&clone.total.trim, clone.elapsed_ns)
                            .with_histogram(&clone.total.trim),
                        cpu: cpu_record(Usage::default(), clone.cpu, clone.elapsed_ns),
                        pid: (clone.pid != 0).then_some(clone.pid),
                        io_depths: io_depths(&clone.total),
                        intervals: clone.intervals.clone(),
                        file: self.clone_file(j, t, c),
                    })
                    .collect(),
                latency_depth: job_end.latency_depth,
                // The recorder adds the job's interval series at the step's end.
                series: Vec::new(),
            })
            .collect()
    }

    /// Clone `clone` of job `job` (of this step, whose target is `target`)'s own file, when
    /// the job's clones each run on one.
    fn clone_file(&self, job: usize, target: usize, clone: usize) -> Option<String> {
        let own = self.clone_targets.get(self.step)?.get(job)?;
        if own.is_empty() {
            return None;
        }
        let at = if clone == 0 {
            target
        } else {
            *own.get(clone - 1)?
        };
        Some(self.targets.get(at)?.path.display().to_string())
    }

    /// The record of target `at` as it stands (scratch removal is known at the end only).
    fn target_record(&self, at: usize) -> TargetRecord {
        let target = &self.targets[at];
        TargetRecord {
            path: target.path.display().to_string(),
            kind: serde_json::to_value(target.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            working_set_bytes: target.working_set_bytes,
            dio_align_bytes: target.dio_align_bytes,
            preconditioned: self.preconditioned && target.needs_fill,
            scratch_removed: false,
            notes: target.notes.clone(),
        }
    }

    /// The engine `spec` runs on: psync for an io_uring job once io_uring fell back.
    fn ran_engine(&self, spec: &JobSpec) -> EngineKind {
        if self.engine.fallback.is_some() && spec.ioengine == EngineKind::IoUring {
            EngineKind::Psync
        } else {
            spec.ioengine
        }
    }

    /// A typed warning: its text for the front ends and `warnings`, the fact for the record.
    fn warn(&mut self, warning: RunWarning) {
        self.recorder.warn(warning.clone());
        self.snap.warnings.push(warning);
    }

    fn note_engine(&mut self, setups: &[EngineSetup]) {
        let Some(first) = setups.first() else { return };
        self.engine.used = first.engine.to_string();
        self.engine.ring_flags = first.ring_flags.iter().map(|f| (*f).to_string()).collect();
        self.engine.registered_file = setups.iter().all(|s| s.registered_file);
        self.engine.registered_buffers = setups.iter().all(|s| s.registered_buffers);
        self.engine.vectored = setups.iter().any(|s| s.vectored);
        for setup in setups {
            for note in &setup.notes {
                if !self.engine.notes.contains(note) {
                    self.engine.notes.push(note.clone());
                }
            }
        }
        if first.engine != self.spec.ioengine.as_str() && self.engine.fallback.is_none() {
            self.engine.fallback = first.notes.first().cloned();
        }
        self.snap.engine = self.engine.clone();
        // What ran is the run's truth: one typed warning, once, where io_uring fell back
        // (the probe's or a worker's ring setup); every io_uring job then runs on psync.
        if let Some(why) = self.engine.fallback.clone()
            && !self
                .snap
                .warnings
                .iter()
                .any(|w| matches!(w, RunWarning::EngineFallback { .. }))
        {
            let psync = EngineKind::Psync;
            self.warn(RunWarning::EngineFallback {
                requested: EngineKind::IoUring.as_str().to_string(),
                used: psync.as_str().to_string(),
                iodepth: self.spec.effective_iodepth_with(psync),
                why,
            });
        }
    }

    /// Copies each verifying job's counts into its view.
    fn copy_verify(&mut self, progress: &[Arc<crate::bench::worker::VerifyProgress>]) {
        for (view, progress) in self.snap.jobs.iter_mut().zip(progress) {
            if view.spec.verify.is_some() {
                view.verify = Some(progress.live());
            }
        }
    }

    /// An interval closed: each job's trackers, the snapshot, the JSON Lines line.
    fn add_interval(&mut self, step: u32, interval: &Interval, devices: &[usize]) {
        let interval_ns = crate::record::nanos(self.snap.job().interval);
        self.tracking.interval(interval, interval_ns);
        self.tracking.publish(&mut self.snap.jobs);
        let disk_rows = devices
            .iter()
            .map(|&d| self.devices[d].interval_row())
            .collect();
        let at = self.series_base + Duration::from_nanos(interval.end_offset_ns);
        let row = fold::interval(
            &mut self.snap,
            step,
            interval,
            disk_rows,
            self.series_seq,
            at,
        );
        self.series_seq += 1;
        let names: Vec<String> = if interval.jobs.is_empty() {
            Vec::new()
        } else {
            self.snap.jobs.iter().map(|j| j.name.clone()).collect()
        };
        let (_, written) = self.recorder.interval(step, interval, row, &names);
        if let Err(why) = written {
            self.warn(RunWarning::JsonlStopped { error: why });
        }
    }

    /// Whether the user ended the session (the dashboard's `q`) before the plan ran to its
    /// end: a headless session ends only at the plan's end, a signal or an error.
    fn stopped_early(&self) -> bool {
        self.quit && !self.options.finish_when_done && !self.snap.ran_to_end
    }

    /// The record's `machine`: the disk the run measured (its first job's, on a job file),
    /// the file system of its target.
    fn machine(&self, record: &crate::record::RunRecord) -> crate::record::MachineRecord {
        let disk = record
            .device
            .as_ref()
            .or_else(|| record.steps.first().and_then(|s| s.devices.first()))
            .map(|d| d.disk.as_str());
        crate::record::MachineRecord::gather(crate::monitor::machine::MachineQuery {
            target: Path::new(&record.target.path),
            disk,
            record_serial: self.options.record_serial,
        })
    }

    fn finish(mut self) -> SessionOutcome {
        let aborted = self
            .abort
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(message) = aborted
            && self.error.is_none()
        {
            self.fail_message(message);
        }
        let status = if self.error.is_some() {
            RunStatus::Failed
        } else if self.interrupted {
            RunStatus::Interrupted
        } else if self.stopped_early() {
            RunStatus::Stopped
        } else if self.recorder.last_status() == Some(RunStatus::Interrupted) {
            RunStatus::Interrupted
        } else {
            RunStatus::Completed
        };
        // The filesystem filled up: what this run made longer is given back first.
        if self.error.as_ref().and_then(|e| e.errno) == Some(libc::ENOSPC) {
            for target in &mut self.targets {
                if let Some(note) = target.give_back_space() {
                    self.snap.notes.push(note);
                }
            }
        }
        let mut removed = vec![false; self.targets.len()];
        let mut not_removed = Vec::new();
        for (at, target) in self.targets.iter_mut().enumerate() {
            match target.remove_scratch() {
                Some(Ok(())) => removed[at] = true,
                Some(Err(err)) => not_removed.push(RunWarning::NotRemoved {
                    path: target.path.display().to_string(),
                    scratch: target.kind == TargetKind::Scratch,
                    error: err.to_string(),
                }),
                None => {}
            }
        }
        for warning in not_removed {
            self.warn(warning);
        }
        let scratch_removed = removed[0];
        self.recorder.targets_removed(&removed);
        let outcome = self.outcome(status, scratch_removed);
        let recorder = std::mem::replace(&mut self.recorder, Recorder::new(None));
        let mut record = recorder.finish(outcome);
        record.machine = Some(self.machine(&record));
        if let Some(annotate) = &self.options.annotate {
            (annotate.0)(&mut record);
        }
        let mut record_error = None;
        if self.options.redact {
            match crate::record::machine::redact_run(record.clone()) {
                Ok(redacted) => record = redacted,
                Err(err) => {
                    // Nothing unredacted is written.
                    self.json = None;
                    record_error = Some(format!("redacting the record: {err}"));
                }
            }
        }
        if let Some(destination) = self.json.take() {
            let written = serde_json::to_vec_pretty(&record)
                .map_err(anyhow::Error::from)
                .and_then(|bytes| destination.commit(&bytes));
            if let Err(err) = written {
                record_error = Some(format!("{err:#}"));
            }
        }
        self.snap.state = SessionState::Finished(status);
        self.publish();
        SessionOutcome {
            status,
            record: Box::new(record),
            record_error,
        }
    }
}

/// A job's view as its step opens: nothing measured yet.
/// What a job's (or clone's) workers counted of fio's depth tables (all 0 when they
/// submitted nothing in the measured window).
fn io_depths(total: &crate::stats::WorkerStats) -> Option<crate::record::IoDepthsRecord> {
    let depths = &total.depths;
    Some(crate::record::IoDepthsRecord {
        level: depths.level,
        submit: depths.submit,
        complete: depths.complete,
    })
}

fn job_view(job: &Job, target: &Path, disk: Option<String>) -> JobView {
    JobView {
        name: job.name.clone(),
        group: job.group,
        spec: job.spec.clone(),
        target: target.to_path_buf(),
        disk,
        interval: None,
        cumulative: StatsView::default(),
        errors: 0,
        series: Arc::new(VecDeque::new()),
        steady: None,
        sustained: None,
        verify: None,
    }
}

/// An empty deque of `SERIES_POINTS` capacity whose memory has been written once, so filling it
/// later does not grow the resident set.
fn resident_deque<T: Clone>(fill: T) -> VecDeque<T> {
    let mut deque = VecDeque::with_capacity(SERIES_POINTS);
    deque.resize(SERIES_POINTS, fill);
    deque.clear();
    deque
}

/// The kernel's knob that drops clean caches.
pub const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

/// Writes `1` to `knob` (`/proc/sys/vm/drop_caches`): the kernel drops its clean page cache,
/// as KDiskMark's helper does (`Helper::flushPageCache`), with no `sync` before it.
///
/// # Errors
/// What opening or writing the knob said (EACCES without root).
pub fn drop_page_cache(knob: &Path) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(knob)?
        .write_all(b"1")
}

/// A job's spec as its workers get it: for a job sized when it starts (fio's size of a file
/// an earlier job wrote), its size is the file's length now in whole blocks (never more than
/// planned), and its I/O that many bytes per pass. With its working set.
fn sized_now(
    spec: &crate::bench::spec::JobSpec,
    target: &target::Target,
) -> (crate::bench::spec::JobSpec, u64) {
    let mut spec = spec.clone();
    let planned = target.working_set_bytes;
    if !spec.size_at_start {
        return (spec, planned);
    }
    let len = crate::pinned::fstat(&target.file)
        .map_or(planned, |st| u64::try_from(st.st_size).unwrap_or(0));
    let block = spec.block_size_bytes.max(1);
    let bytes = planned.min(len - len % block);
    let passes = spec
        .io_size_bytes
        .map(|io| (io / spec.size_bytes.max(1)).max(1));
    spec.io_size_bytes = passes.map(|n| n.saturating_mul(bytes));
    spec.size_bytes = bytes;
    (spec, bytes)
}
