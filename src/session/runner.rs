//! The session thread: precondition the target, run segments one after another, apply
//! controls, publish snapshots, write JSON Lines as intervals close and the record at the end
//! (on every path: completed, interrupted, failed). Owns the scratch file's removal.

use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use super::aggregate::{Interval, JobSetup, SegmentRun, SegmentSetup, SpawnError};
use super::controls::{self, IdleStep, SegmentEnding, SegmentFold, Workers};
use super::cpu::{cpu_record, rusage};
use super::recorder::{Recorder, RunOutcome, SegmentOutcome};
use super::snapshot::{
    DiskView, IntervalLatency, JobView, PlanProgress, PointRates, RunJobTotals, SERIES_POINTS,
    SegmentMark, SeriesPoint, SessionState, Snapshot, StatsView, SteadyView, StepResult,
    SustainedView, TargetView, add_to_run,
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
    DeviceRecord, DirectionRecord, EngineRecord, ErrorRecord, JobRecord, JsonlWriter, RunStatus,
    RunWarning, SegmentJobRecord, SyncRecord, TargetRecord,
};
use crate::record::{SteadyStateRecord, StopReason, SustainedWriteRecord};
use crate::stats::cliff::Cliff;
use crate::stats::monotonic_ns;
use crate::stats::steady::Tracker;
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
    /// segment was ending); taken before the channel, in order. Nothing is dropped.
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
    /// The running step's jobs' steady-state trackers and write curves (`None`: no criterion,
    /// no writes).
    steady: Vec<Option<Tracker>>,
    cliffs: Vec<Option<Cliff>>,
    /// Steady state was attained by every job with a criterion: the step is stopping.
    steady_stop: bool,
    /// Why the front end gave up on the session (set before it sends `Quit`): the record
    /// says the run failed, with this message.
    abort: Arc<std::sync::Mutex<Option<String>>>,
}

/// What `Session::start` prepared on the caller's thread.
pub struct Prepared {
    pub targets: Vec<Target>,
    pub step_targets: Vec<Vec<usize>>,
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
        let mut notes = plan_notes;
        let mut warnings: Vec<RunWarning> = Vec::new();
        for t in &targets {
            notes.extend(t.notes.iter().cloned());
            warnings.extend(t.warnings.iter().cloned());
        }
        notes.extend(spec.depth_note());
        notes.extend(spec.buffer_note());
        if let Some(why) = &device_absent {
            notes.push(format!("no device statistics: {why}"));
        }
        if plan
            .steps
            .iter()
            .flat_map(|s| &s.jobs)
            .any(|j| !j.spec.direct)
        {
            warnings.push(RunWarning::Buffered);
        }
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
            job: spec.clone(),
            target: TargetView {
                path: target.path.clone(),
                kind: target.kind,
                working_set_bytes: target.working_set_bytes,
                dio_align_bytes: target.dio_align_bytes,
            },
            disk: device.map(|d| d.chain.device.clone()),
            engine: engine.clone(),
            segment: 0,
            elapsed: Duration::ZERO,
            remaining: spec.runtime,
            interval: None,
            cumulative: StatsView::default(),
            series: Arc::new(resident_deque(SeriesPoint::default())),
            segments: Vec::new(),
            device: None,
            device_history: Arc::new(resident_deque(IostatRow::idle(""))),
            latency_history: Arc::new(VecDeque::with_capacity(SERIES_POINTS)),
            queue: device.map(|d| d.queue.clone()),
            reconciliation: None,
            warnings,
            notes,
            device_absent,
            filled: false,
            ramp_remaining: None,
            error: None,
            record_path: options.json.clone(),
            jobs: Vec::new(),
            plan_points: Arc::new(plan.steps.iter().map(|s| s.point.clone()).collect()),
            finished: Arc::new(Vec::new()),
            run: Arc::new(Vec::new()),
            plan: PlanProgress {
                index: 0,
                count: plan.steps.len(),
                bytes: None,
            },
            disks: Vec::new(),
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
            steady: Vec::new(),
            cliffs: Vec::new(),
            steady_stop: false,
            abort: Arc::default(),
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
            match self.run_segment() {
                SegmentEnding::Change(spec) => {
                    let running = &self.plan.steps[self.step].jobs[0];
                    let changed = Job {
                        name: running.name.clone(),
                        spec: (*spec).clone(),
                        ..running.clone()
                    };
                    self.plan.steps.push(Step::single(changed));
                    self.step_targets.push(vec![0]);
                    self.step = self.plan.steps.len() - 1;
                    self.spec = *spec;
                    self.snap.job = self.spec.clone();
                    start_now = true;
                }
                // The next step of the plan, when there is one.
                SegmentEnding::Runtime | SegmentEnding::Next
                    if self.step + 1 < self.plan.steps.len() && !self.target_missed =>
                {
                    self.step += 1;
                    self.spec = self.plan.steps[self.step].jobs[0].spec.clone();
                    self.snap.job = self.spec.clone();
                    start_now = true;
                }
                SegmentEnding::Runtime | SegmentEnding::Next if self.options.finish_when_done => {
                    break;
                }
                // `n` on the last point cuts it short: not run to its end.
                SegmentEnding::Runtime => self.snap.ran_to_end = true,
                SegmentEnding::Next | SegmentEnding::Stop => {}
                SegmentEnding::Quit => self.quit = true,
                SegmentEnding::Interrupt => self.interrupted = true,
                SegmentEnding::Fault => {}
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
                    .any(|(job, &t)| t == at && job.spec.direct)
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

    /// Waits between segments. Returns whether to start a segment.
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
                        self.snap.job = self.spec.clone();
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
            Control::SetIodepth(n) => vec![
                key(Key::IoDepth, n.to_string()),
                // A shallower queue takes the batch down with it.
                key(
                    Key::IoDepthBatch,
                    spec.iodepth_batch.min(n.max(1)).to_string(),
                ),
            ],
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
        let checked = spec.with(changes, &self.machine).and_then(|next| {
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

    fn run_segment(&mut self) -> SegmentEnding {
        self.snap.ran_to_end = false;
        let index = self.recorder.next_segment();
        let jobs = self.step_jobs();
        let spec = Arc::new(jobs[0].spec.clone());
        let targets: Vec<usize> = self.step_targets[self.step].clone();
        let devices = self.step_devices();
        let setup = SegmentSetup {
            jobs: jobs
                .iter()
                .zip(&targets)
                .enumerate()
                .map(|(j, (job, &t))| JobSetup {
                    spec: Arc::new(job.spec.clone()),
                    file: self.targets[t].file.clone(),
                    working_set_bytes: self.targets[t].working_set_bytes,
                    engine: match job.spec.ioengine {
                        EngineKind::IoUring => self.engine_kind,
                        other => other,
                    },
                    seed: job
                        .spec
                        .randseed
                        .unwrap_or(0xD15C_DA54_0000_0000 ^ u64::from(index))
                        ^ (j as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                })
                .collect(),
        };
        // bench's buffers differ from fio's by default: say so once, in the notes the summary
        // and the record carry.
        if let Some(job) = jobs.iter().find(|job| job.spec.iomem.huge()) {
            let note = format!(
                "I/O buffers ask for huge pages (iomem={}); fio's default iomem=malloc uses \
                 4 KiB pages, which split large direct I/O on some devices (virtio): \
                 --iomem malloc measures as fio does",
                job.spec.iomem.as_str()
            );
            if !self.snap.notes.contains(&note) {
                self.snap.notes.push(note);
            }
        }
        // Buffered jobs start from the device (fio's invalidate=1): the fill or an earlier
        // step must not serve their reads from memory.
        for (job, &t) in jobs.iter().zip(&targets) {
            if !job.spec.direct
                && job.spec.invalidate
                && let Err(err) = self.targets[t].drop_cached()
            {
                self.snap.notes.push(format!(
                    "could not drop the page cache of {}: {err}",
                    self.targets[t].path.display()
                ));
            }
        }
        // KDiskMark's "Flush Pagecache": the whole clean page cache, before every loop.
        if jobs.iter().any(|job| job.spec.drop_caches)
            && let Err(err) = drop_page_cache(Path::new(DROP_CACHES))
        {
            self.fail_message(format!(
                "could not drop the page cache ({DROP_CACHES}): {err}; dropping it takes root"
            ));
            return SegmentEnding::Fault;
        }
        let cpu_start = rusage();
        for &d in &devices {
            let device = &mut self.devices[d];
            // A fresh baseline for interval rows; the window opens now unless there is a ramp.
            device.restart_intervals();
            if spec.ramp.is_zero() {
                device.start_window();
            }
        }
        let interrupt = self.options.interrupt.clone();
        let mut seg = match SegmentRun::spawn(&setup, &|| interrupt.load(Ordering::Relaxed)) {
            Ok(seg) => seg,
            // Nothing ran: no segment to record.
            Err(SpawnError::Interrupted) => return SegmentEnding::Interrupt,
            Err(SpawnError::Failed(message)) => {
                self.fail_message(format!("setting up the workers failed: {message}"));
                return SegmentEnding::Fault;
            }
        };
        self.note_engine(&seg.setups);
        self.snap.segment = index;
        self.snap.interval = None;
        self.snap.cumulative = StatsView::default();
        self.snap.plan = PlanProgress {
            index: self.step,
            count: self.plan.steps.len(),
            bytes: size_goal(&jobs),
        };
        self.snap.jobs = jobs
            .iter()
            .zip(&targets)
            .map(|(job, &t)| JobView {
                name: job.name.clone(),
                group: job.group,
                spec: job.spec.clone(),
                target: self.targets[t].path.clone(),
                disk: self.target_device[t].map(|d| self.devices[d].chain.device.clone()),
                interval: None,
                cumulative: StatsView::default(),
                errors: 0,
                series: Arc::new(VecDeque::new()),
                steady: None,
                sustained: None,
                verify: None,
            })
            .collect();
        self.steady = jobs
            .iter()
            .map(|job| {
                job.spec
                    .steady
                    .map(|ss| Tracker::new(ss, job.spec.interval))
            })
            .collect();
        self.cliffs = jobs
            .iter()
            .map(|job| {
                job.spec
                    .writes_data()
                    .then(|| Cliff::new(job.spec.cliff_pct))
            })
            .collect();
        self.steady_stop = false;
        self.publish_steady();
        self.snap.disks = devices
            .iter()
            .map(|&d| DiskView {
                name: self.devices[d].chain.device.clone(),
                row: None,
            })
            .collect();
        self.snap.segments.push(SegmentMark {
            index,
            job: if jobs.len() == 1 {
                spec.describe()
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
        self.recorder.start_segment();
        let mut fold = SegmentFold::default();
        // Time left: the time-based jobs' (a size-based job's runtime is only a cap), or the
        // cap when every job is size-based.
        let time_goal_ns = jobs
            .iter()
            .filter(|j| j.spec.io_size_bytes.is_none())
            .map(|j| {
                crate::record::nanos(j.spec.startdelay)
                    .saturating_add(crate::record::nanos(j.spec.runtime))
            })
            .max()
            .unwrap_or(seg.runtime_ns);
        let verify_progress = seg.verify_progress();
        let mut window_closed = false;
        let mut cpu_measure_start = if spec.ramp.is_zero() {
            Some(cpu_start)
        } else {
            None
        };
        loop {
            // Until measuring starts, wake when it does: the device window opens then, not up
            // to a poll later (the workers count from that instant).
            let wait = if cpu_measure_start.is_none() {
                POLL.min(Duration::from_nanos(
                    seg.record_from_ns.saturating_sub(monotonic_ns()),
                ))
            } else {
                POLL
            };
            let intervals = seg.poll(wait);
            let emitted = !intervals.is_empty();
            for interval in intervals {
                self.add_interval(index, &interval, &devices);
            }
            if !self.steady_stop && self.steady_attained() {
                self.steady_stop = true;
                self.publish_steady();
                seg.stop();
            }
            if emitted {
                let span = Duration::from_nanos(seg.elapsed_ns(monotonic_ns()));
                self.snap.cumulative = StatsView::from_stats(seg.total(), span);
                for (view, total) in self.snap.jobs.iter_mut().zip(seg.job_totals()) {
                    view.cumulative = StatsView::from_stats(total, span);
                }
                self.snap.plan.bytes = moved(self.snap.plan.bytes, seg.total());
                let mut run = self.run_base.clone();
                add_to_run(&mut run, &self.snap.jobs);
                self.snap.run = Arc::new(run);
            }
            let now = monotonic_ns();
            if cpu_measure_start.is_none() && now >= seg.record_from_ns {
                cpu_measure_start = Some(rusage());
                // Measuring that ended within the ramp has no window (a read-back may run).
                if !window_closed {
                    for &d in &devices {
                        self.devices[d].start_window();
                    }
                }
            }
            if !window_closed && seg.measuring_over() {
                // The device window ends with the measured I/O; read-backs wait for this.
                window_closed = true;
                for &d in &devices {
                    self.devices[d].end_measuring();
                }
                seg.window_closed();
            }
            let mut orders = Vec::new();
            if self.interrupt_raised() {
                orders.push(fold.end(SegmentEnding::Interrupt));
            } else if seg.stop_requested() {
                orders.push(fold.end(SegmentEnding::Fault));
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
                    Workers::Pause => seg.pause(),
                    Workers::Resume => seg.resume(),
                    Workers::Stop => seg.stop(),
                }
            }
            // Held back for the next state (taken out of `pending` first so the loop ends).
            self.pending.extend(fold.held.drain(..));
            if let Some(job) = fold.adopt.take() {
                self.spec = job;
                self.snap.job = self.spec.clone();
            }
            if fold.quit {
                self.quit = true;
            }
            let elapsed_ns = seg.elapsed_ns(now);
            self.snap.elapsed = Duration::from_nanos(elapsed_ns);
            self.snap.remaining = Duration::from_nanos(time_goal_ns.saturating_sub(elapsed_ns));
            self.snap.ramp_remaining =
                (now < seg.record_from_ns).then(|| Duration::from_nanos(seg.record_from_ns - now));
            self.snap.state = if now < seg.record_from_ns {
                SessionState::Ramp
            } else if seg.is_paused() {
                SessionState::Paused
            } else {
                SessionState::Running
            };
            self.copy_verify(&verify_progress);
            if seg.workers_done() {
                break;
            }
            if emitted || now - self.last_publish_ns >= PUBLISH_EVERY_NS {
                self.publish();
            }
        }
        let end = seg.finish();
        // The workers have ended: the counts are final (a read-back may have ended after the
        // loop's last look).
        self.copy_verify(&verify_progress);
        let cpu_end = rusage();
        if end.stall.stalls > 0 {
            self.warn(RunWarning::Stalled {
                segment: index,
                stalls: end.stall.stalls,
                stalled_ns: end.stall.stalled_ns,
                longest_ns: end.stall.longest_ns,
            });
        }
        if let Some(last) = &end.last_interval
            && (last.duration_ns >= 1_000_000 || last.stats.ios() > 0)
        {
            self.add_interval(index, last, &devices);
        }
        // The null engine sends nothing to the device: there is nothing to reconcile, and a
        // device that served nothing must not read as "page cache".
        let null_engine = jobs.iter().all(|j| {
            (if j.spec.ioengine == EngineKind::IoUring {
                self.engine_kind
            } else {
                j.spec.ioengine
            }) == EngineKind::Null
        });
        let mut device_records = Vec::with_capacity(devices.len());
        for &d in &devices {
            // The app side: the jobs whose target is on this disk.
            let (mut reads, mut writes, mut bytes, mut trims) = (0, 0, 0, 0);
            for (job_end, &t) in end.jobs.iter().zip(&targets) {
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
            device_records.push(DeviceRecord {
                name: device.chain.device.clone(),
                disk: device.chain.disk.clone(),
                queue: device.queue.clone(),
                iostat: row,
                reconciliation,
            });
        }
        for ((job_end, &t), job) in end.jobs.iter().zip(&targets).zip(&jobs) {
            let target = &self.targets[t];
            // trimwrite writes each range after trimming it: its next pass trims data again.
            if target.kind != TargetKind::BlockDevice
                && matches!(job.spec.rw, RwMode::Trim | RwMode::RandTrim)
                && !null_engine
                && job_end.total.trim.bytes > target.working_set_bytes
            {
                self.warn(RunWarning::TrimsRepeated {
                    segment: index,
                    job: job.name.clone(),
                    trimmed_bytes: job_end.total.trim.bytes,
                    working_set_bytes: target.working_set_bytes,
                });
            }
        }
        for device in &device_records {
            if Verdict::of(&device.reconciliation) == Verdict::PageCache && !null_engine {
                let point = &self.plan.steps[self.step].point;
                self.warn(RunWarning::PageCache {
                    device: device.name.clone(),
                    app_bytes: device.reconciliation.app_bytes,
                    device_bytes: device.reconciliation.device_bytes,
                    segment: Some(index),
                    point: (!point.is_empty()).then(|| crate::sweep::describe(point)),
                });
            }
        }
        // The first job's disk is the segment's `device`, as a one-job record has it.
        let first_disk =
            self.target_device[targets[0]].map(|d| self.devices[d].chain.device.clone());
        let device_record = device_records
            .iter()
            .find(|r| Some(&r.name) == first_disk.as_ref())
            .cloned();
        if let Some(device) = &device_record {
            self.snap.reconciliation = Some(device.reconciliation.clone());
        }
        let mut ending = fold.ending;
        let mut job_errors: Vec<Option<ErrorRecord>> = vec![None; jobs.len()];
        for (j, fault) in &end.faults {
            if job_errors[*j].is_none() {
                job_errors[*j] = Some(error_record(fault));
                if let Some(view) = self.snap.jobs.get_mut(*j) {
                    view.errors += 1;
                }
            }
        }
        if let Some((j, fault)) = end.faults.first() {
            if jobs.len() > 1 {
                let mut record = error_record(fault);
                record.message = format!("job {}: {}", jobs[*j].name, record.message);
                self.snap.error = Some(record.message.clone());
                self.error = Some(record);
            } else {
                self.fail_with(fault);
            }
            ending = Some(SegmentEnding::Fault);
        } else if ending == Some(SegmentEnding::Fault) {
            ending = None;
        }
        let ending = ending.unwrap_or(SegmentEnding::Runtime);
        for cliff in self.cliffs.iter_mut().flatten() {
            cliff.finish();
        }
        self.publish_steady();
        let stop_reason = match ending {
            SegmentEnding::Runtime if self.steady_stop => StopReason::SteadyState,
            SegmentEnding::Runtime if size_goal(&jobs).is_some() => StopReason::IoSize,
            SegmentEnding::Runtime => StopReason::Runtime,
            SegmentEnding::Stop => StopReason::Stopped,
            SegmentEnding::Change(_) => StopReason::Changed,
            SegmentEnding::Next | SegmentEnding::Quit | SegmentEnding::Interrupt => {
                StopReason::Interrupted
            }
            SegmentEnding::Fault => StopReason::Failed,
        };
        let cpu = cpu_record(
            cpu_measure_start.unwrap_or(cpu_end),
            cpu_end,
            end.elapsed_ns,
        );
        self.series_base += Duration::from_nanos(end.elapsed_ns);
        // A step that ended before its first interval still moved its bytes.
        self.snap.plan.bytes = moved(self.snap.plan.bytes, &end.total);
        self.snap.cumulative =
            StatsView::from_stats(&end.total, Duration::from_nanos(end.elapsed_ns));
        for (view, job_end) in self.snap.jobs.iter_mut().zip(&end.jobs) {
            view.cumulative =
                StatsView::from_stats(&job_end.total, Duration::from_nanos(job_end.elapsed_ns));
        }
        self.snap.elapsed = Duration::from_nanos(end.elapsed_ns);
        let status = match ending {
            SegmentEnding::Fault => RunStatus::Failed,
            SegmentEnding::Interrupt | SegmentEnding::Quit | SegmentEnding::Next => {
                RunStatus::Interrupted
            }
            _ => RunStatus::Completed,
        };
        if let Some(target) = self.options.latency_target {
            let mut buckets = end.total.read.latency.fine_buckets();
            crate::stats::merge_buckets(&mut buckets, &end.total.write.latency.fine_buckets());
            if !buckets.is_empty() {
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
        }
        let mut shortfalls = Vec::new();
        if status == RunStatus::Completed {
            // A paced job that could not keep its pace: said, with what it reached.
            for (job, job_end) in jobs.iter().zip(&end.jobs) {
                let Some(limit) = &job.spec.rate else {
                    continue;
                };
                let done = |d: &crate::stats::DirectionStats| (d.ios, d.bytes);
                for mut warning in crate::bench::rate::shortfalls(
                    limit,
                    job.spec.numjobs,
                    job.spec.iodepth,
                    [done(&job_end.total.read), done(&job_end.total.write)],
                    job_end.elapsed_ns,
                ) {
                    if jobs.len() > 1
                        && let RunWarning::RateShortfall { job: named, .. } = &mut warning
                    {
                        *named = Some(job.name.clone());
                    }
                    shortfalls.push(warning);
                }
            }
        }
        for warning in shortfalls {
            self.warn(warning);
        }
        let rates = |d: &crate::stats::DirectionStats, elapsed_ns: u64| {
            let view =
                super::snapshot::DirectionView::from_stats(d, Duration::from_nanos(elapsed_ns));
            PointRates {
                ios: d.ios,
                iops: view.iops,
                bytes_per_s: view.bw_bytes_per_s,
                mean_ns: view.latency.mean_ns,
                p99_ns: view.latency.percentile_ns(99.0),
            }
        };
        Arc::make_mut(&mut self.snap.finished).push(StepResult {
            step: self.step,
            segment: index,
            status,
            read: rates(&end.total.read, end.elapsed_ns),
            write: rates(&end.total.write, end.elapsed_ns),
            util_pct: device_record.as_ref().map(|d| d.iostat.util_pct),
            aqu_sz: device_record.as_ref().map(|d| d.iostat.queue_size),
        });
        let job_records: Vec<SegmentJobRecord> = jobs
            .iter()
            .zip(&targets)
            .zip(&end.jobs)
            .zip(job_errors)
            .enumerate()
            .map(|(j, (((job, &t), job_end), error))| SegmentJobRecord {
                verify: job
                    .spec
                    .verify
                    .map(|v| crate::record::VerifyRecord::of(v.kind.as_str(), &job_end.verify)),
                name: job.name.clone(),
                group: job.group,
                job: JobRecord::from(&job.spec),
                target: self.target_record(t),
                device: self.target_device[t].map(|d| self.devices[d].chain.device.clone()),
                // A job stopped by another job's failure did not fail: it was cut short.
                status: match (&error, status) {
                    (Some(_), _) => RunStatus::Failed,
                    (None, RunStatus::Failed) => RunStatus::Interrupted,
                    (None, status) => status,
                },
                error,
                elapsed_ns: job_end.elapsed_ns,
                read: DirectionRecord::from_stats(&job_end.total.read, job_end.elapsed_ns)
                    .with_histogram(&job_end.total.read),
                write: DirectionRecord::from_stats(&job_end.total.write, job_end.elapsed_ns)
                    .with_histogram(&job_end.total.write),
                sync: SyncRecord::from_stats(&job_end.total.sync)
                    .with_histogram(&job_end.total.sync),
                trim: DirectionRecord::from_stats(&job_end.total.trim, job_end.elapsed_ns)
                    .with_histogram(&job_end.total.trim),
                retries: job_end.total.retries,
                cpu: cpu_record((0, 0, 0), job_end.cpu, job_end.elapsed_ns),
                steadystate: self.steady.get(j).and_then(Option::as_ref).map(|tracker| {
                    SteadyStateRecord::from_tracker(
                        tracker,
                        self.steady_stop && tracker.attained_at_ns.is_some(),
                    )
                }),
                sustained_write: self
                    .cliffs
                    .get(j)
                    .and_then(Option::as_ref)
                    .map(SustainedWriteRecord::from),
                clones: job_end
                    .clones
                    .iter()
                    .map(|clone| crate::record::CloneRecord {
                        elapsed_ns: clone.elapsed_ns,
                        read: DirectionRecord::from_stats(&clone.total.read, clone.elapsed_ns)
                            .with_histogram(&clone.total.read),
                        write: DirectionRecord::from_stats(&clone.total.write, clone.elapsed_ns)
                            .with_histogram(&clone.total.write),
                        sync: SyncRecord::from_stats(&clone.total.sync)
                            .with_histogram(&clone.total.sync),
                        trim: DirectionRecord::from_stats(&clone.total.trim, clone.elapsed_ns)
                            .with_histogram(&clone.total.trim),
                        cpu: cpu_record((0, 0, 0), clone.cpu, clone.elapsed_ns),
                    })
                    .collect(),
            })
            .collect();
        self.recorder.end_segment(SegmentOutcome {
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
            stop_reason,
        });
        // The step's final totals (its last, partial interval and its errors included) join
        // the run's.
        add_to_run(&mut self.run_base, &self.snap.jobs);
        self.snap.run = Arc::new(self.run_base.clone());
        self.publish();
        ending
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
    }

    /// Whether every job with a criterion has attained it and none keeps going.
    fn steady_attained(&self) -> bool {
        let mut any = false;
        for tracker in self.steady.iter().flatten() {
            if tracker.spec.keep_going || tracker.attained_at_ns.is_none() {
                return false;
            }
            any = true;
        }
        any
    }

    /// Feeds each job's part of `interval` to its steady-state tracker and write curve.
    fn track_interval(&mut self, interval: &Interval) {
        let interval_ns = crate::record::nanos(self.snap.job.interval);
        let single = [&interval.stats];
        let parts: Vec<&crate::stats::WorkerStats> = if interval.jobs.is_empty() {
            single.to_vec()
        } else {
            interval.jobs.iter().collect()
        };
        for (j, stats) in parts.into_iter().enumerate() {
            // Only the part of the interval the job ran in: none after its end (its empty
            // intervals would read as a fall), its own end for the interval it ended in.
            let Some((end_offset_ns, duration_ns)) = own_part(interval, j) else {
                continue;
            };
            if let Some(Some(tracker)) = self.steady.get_mut(j) {
                let (r, w) = (&stats.read, &stats.write);
                let latency_sum_ns = r.latency.summary().mean_ns * r.ios as f64
                    + w.latency.summary().mean_ns * w.ios as f64;
                // The step ends (run_segment) once every job with a criterion attains it.
                tracker.interval(
                    end_offset_ns,
                    duration_ns,
                    r.ios + w.ios,
                    r.bytes + w.bytes,
                    latency_sum_ns,
                );
            }
            if let Some(Some(cliff)) = self.cliffs.get_mut(j) {
                cliff.point(
                    end_offset_ns,
                    duration_ns,
                    stats.write.bytes,
                    duration_ns >= interval_ns / 2,
                );
            }
        }
        self.publish_steady();
    }

    /// Copies each verifying job's counts into its view.
    fn copy_verify(&mut self, progress: &[Arc<crate::bench::worker::VerifyProgress>]) {
        for (view, progress) in self.snap.jobs.iter_mut().zip(progress) {
            if view.spec.verify.is_some() {
                view.verify = Some(progress.live());
            }
        }
    }

    /// Copies the trackers' state into the job views.
    fn publish_steady(&mut self) {
        let stopping = self.steady_stop;
        for (j, view) in self.snap.jobs.iter_mut().enumerate() {
            view.steady = self
                .steady
                .get(j)
                .and_then(Option::as_ref)
                .map(|t| SteadyView::of(t, stopping));
            view.sustained = self
                .cliffs
                .get(j)
                .and_then(Option::as_ref)
                .map(SustainedView::of);
        }
    }

    fn add_interval(&mut self, segment: u32, interval: &Interval, devices: &[usize]) {
        self.track_interval(interval);
        let duration = Duration::from_nanos(interval.duration_ns);
        let view = StatsView::from_stats(&interval.stats, duration);
        if interval.jobs.is_empty() {
            if let Some(job) = self.snap.jobs.first_mut() {
                job.interval = Some(view.clone());
            }
        } else {
            for (job, stats) in self.snap.jobs.iter_mut().zip(&interval.jobs) {
                job.interval = Some(StatsView::from_stats(stats, duration));
            }
        }
        let mut row = None;
        for (i, &d) in devices.iter().enumerate() {
            let disk_row = self.devices[d].interval_row();
            if let Some(view) = self.snap.disks.get_mut(i) {
                view.row.clone_from(&disk_row);
            }
            if i == 0 {
                row = disk_row;
            }
        }
        if let Some(row) = &row {
            let history = Arc::make_mut(&mut self.snap.device_history);
            if history.len() == SERIES_POINTS {
                history.pop_front();
            }
            history.push_back(row.clone());
            self.snap.device = Some(row.clone());
        }
        let names: Vec<String> = if interval.jobs.is_empty() {
            Vec::new()
        } else {
            self.snap.jobs.iter().map(|j| j.name.clone()).collect()
        };
        let (_, written) = self.recorder.interval(segment, interval, row, &names);
        if let Err(why) = written {
            self.warn(RunWarning::JsonlStopped { error: why });
        }
        let at = self.series_base + Duration::from_nanos(interval.end_offset_ns);
        let point_of = |view: &StatsView| SeriesPoint {
            seq: self.series_seq,
            segment,
            at,
            duration,
            read_iops: view.read.iops,
            read_bw_bytes_per_s: view.read.bw_bytes_per_s,
            read_lat_mean_ns: view.read.latency.mean_ns,
            read_lat_p99_ns: view.read.latency.percentile_ns(99.0),
            write_iops: view.write.iops,
            write_bw_bytes_per_s: view.write.bw_bytes_per_s,
            write_lat_mean_ns: view.write.latency.mean_ns,
            write_lat_p99_ns: view.write.latency.percentile_ns(99.0),
            sync_lat_mean_ns: view.sync.latency.mean_ns,
            read_sched_p99_ns: view
                .read
                .sched
                .as_ref()
                .map_or(0, |l| l.percentile_ns(99.0)),
            write_sched_p99_ns: view
                .write
                .sched
                .as_ref()
                .map_or(0, |l| l.percentile_ns(99.0)),
            trim_iops: view.trim.iops,
            trim_bw_bytes_per_s: view.trim.bw_bytes_per_s,
            trim_lat_mean_ns: view.trim.latency.mean_ns,
            trim_lat_p99_ns: view.trim.latency.percentile_ns(99.0),
        };
        let point = point_of(&view);
        if !interval.jobs.is_empty() {
            for job in &mut self.snap.jobs {
                if let Some(job_view) = &job.interval {
                    let job_point = point_of(job_view);
                    let series = Arc::make_mut(&mut job.series);
                    if series.len() == SERIES_POINTS {
                        series.pop_front();
                    }
                    series.push_back(job_point);
                }
            }
        }
        self.series_seq += 1;
        let series = Arc::make_mut(&mut self.snap.series);
        if series.len() == SERIES_POINTS {
            series.pop_front();
        }
        series.push_back(point);
        let bounded =
            |d: &crate::stats::DirectionStats| crate::stats::bounded(d.latency.fine_buckets()).0;
        let latency = Arc::new(IntervalLatency {
            at: point.at,
            read: bounded(&interval.stats.read),
            write: bounded(&interval.stats.write),
            sync: bounded(&interval.stats.sync),
            trim: bounded(&interval.stats.trim),
        });
        let history = Arc::make_mut(&mut self.snap.latency_history);
        if history.len() == SERIES_POINTS {
            history.pop_front();
        }
        history.push_back(latency);
        self.snap.interval = Some(view);
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
        } else if self.interrupted || self.recorder.last_status() == Some(RunStatus::Interrupted) {
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
        let outcome = RunOutcome {
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
        };
        let recorder = std::mem::replace(&mut self.recorder, Recorder::new(None));
        let mut record = recorder.finish(outcome);
        if let Some(annotate) = &self.options.annotate {
            (annotate.0)(&mut record);
        }
        let mut record_error = None;
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

/// An empty deque of `SERIES_POINTS` capacity whose memory has been written once, so filling it
/// later does not grow the resident set.
fn resident_deque<T: Clone>(fill: T) -> VecDeque<T> {
    let mut deque = VecDeque::with_capacity(SERIES_POINTS);
    deque.resize(SERIES_POINTS, fill);
    deque.clear();
    deque
}

/// A size-based step's progress (`(done, goal)`) with the bytes `total` moved; `None` (a
/// step that runs for a time) stays `None`.
fn moved(progress: Option<(u64, u64)>, total: &crate::stats::WorkerStats) -> Option<(u64, u64)> {
    progress.map(|(_, goal)| ((total.read.bytes + total.write.bytes).min(goal), goal))
}

/// Bytes every job of a step moves when all are size-based (each worker `io_size`), else
/// `None`.
fn size_goal(jobs: &[Job]) -> Option<(u64, u64)> {
    let mut goal = 0u64;
    for job in jobs {
        let per_worker = job.spec.io_size_bytes?;
        let per_worker = per_worker - per_worker % job.spec.block_size_bytes.max(1);
        goal = goal.saturating_add(per_worker.saturating_mul(u64::from(job.spec.numjobs)));
    }
    Some((0, goal))
}

/// Job `job`'s part of `interval`: its end (the interval's, or the job's own when it ended in
/// it) and length, ns; `None` when the job ran in no part of it.
fn own_part(interval: &Interval, job: usize) -> Option<(u64, u64)> {
    match interval.spans.get(job) {
        Some(Some((from, to))) => Some((*to, to - from)),
        Some(None) => None,
        // An interval without spans covers every job.
        None => Some((interval.end_offset_ns, interval.duration_ns)),
    }
}

/// A worker's fault as the record holds it.
fn error_record(fault: &IoFault) -> ErrorRecord {
    ErrorRecord {
        message: fault.to_string(),
        operation: Some(fault.operation.to_string()),
        errno: (fault.errno != 0).then_some(fault.errno),
        errno_name: (fault.errno != 0).then(|| errno_name(fault.errno)),
        offset_bytes: fault.offset_bytes,
        worker: (fault.worker != u32::MAX).then_some(fault.worker),
    }
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
