//! One step's workers and their aggregation: spawn `bench-N` threads, wait until every
//! ring and buffer is set up, start them together, then merge their per-tick reports into
//! intervals on a common grid (measurement start + k * interval) and into the step total.
//! Reports are handed back as spares after merging, so steady state allocates nothing.

use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::bench::engine::EngineSetup;
use crate::bench::spec::{EngineKind, JobSpec};
use crate::bench::worker::{
    self, IoFault, STALL_MIN_NS, SetupError, StepControl, WorkerExit, WorkerLinks, WorkerPlan,
};
use crate::stats::{WorkerStats, monotonic_ns};

pub use super::fold::{CloneEnd, Interval, JobEnd, Stall, StepEnd};

/// How long after an interval's end the aggregator waits for late reports before emitting.
const EMIT_GRACE_NS: u64 = 20_000_000;
/// How much longer it waits for a worker that has not yet reported past the interval's end (a
/// worker descheduled on a busy machine, or blocked in a long I/O): its tick belongs to this
/// interval, and closing without it would put it in the next one.
const LATE_REPORT_NS: u64 = 1_000_000_000;
/// Longest tick: workers hand over stats at least this often.
const MAX_TICK: Duration = Duration::from_millis(250);
/// The shortest sleep between looks at the workers' reports.
const MIN_NAP: Duration = Duration::from_millis(1);
/// How often the wait for the workers' setup looks at the interrupt.
const SETUP_POLL: Duration = Duration::from_millis(50);

/// Why a step did not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpawnError {
    /// Interrupted while the workers were setting up: they stopped before any I/O.
    Interrupted,
    Failed(String),
}

/// One job of a step: what its workers run, on what.
pub struct JobSetup {
    pub spec: Arc<JobSpec>,
    pub file: Arc<OwnedFd>,
    /// The files of clones 1, 2, ... that run on their own; a clone without one runs on `file`.
    pub clone_files: Vec<Arc<OwnedFd>>,
    /// Each clone sweeps the whole working set of a shared file (fio's clones), unless the
    /// job verifies: see [`crate::plan::Job::whole`].
    pub whole: bool,
    pub working_set_bytes: u64,
    pub engine: EngineKind,
    pub seed: u64,
    /// The emulated zones of the job's file (fio's `zonemode=zbd`), shared per file.
    pub zbd: Option<Arc<crate::bench::zbd::SharedZones>>,
}

/// What a step of the plan is to run: its jobs, at the same time, on one grid.
/// The first job's interval is the step's; every job's ramp is the step's (the runner makes
/// them equal), so one measured window covers them all and one device window matches it.
pub struct StepSetup {
    pub jobs: Vec<JobSetup>,
}

/// One job's share of the aggregation.
struct JobSlot {
    /// Global worker ids `first..first + workers`.
    first: u32,
    workers: u32,
    startdelay_ns: u64,
    cur: WorkerStats,
    next: WorkerStats,
    total: WorkerStats,
    handles: Vec<JoinHandle<WorkerExit>>,
    /// What the job's workers' verification found, as they end.
    verify: crate::bench::verify::VerifyOutcome,
    /// The same as it goes, shared with the job's workers.
    progress: Arc<crate::bench::worker::VerifyProgress>,
    /// Workers whose last tick has come in, and the latest end among them.
    ended: u32,
    ended_at_ns: u64,
    /// Each worker's stats over the step, when the job has more than one (fio reports
    /// each clone without group_reporting): added as reports come in, off the I/O path.
    clones: Vec<WorkerStats>,
    /// Each clone's part of the current and the next interval, and of the closed ones:
    /// counts only, handed over with each report.
    clone_cur: Vec<CloneCounts>,
    clone_next: Vec<CloneCounts>,
    clone_intervals: Vec<Vec<crate::record::CloneIntervalRecord>>,
    /// The depth its workers' `latency_target` search ended at (the last to end).
    latency_depth: Option<u32>,
}

/// One clone's bytes and I/Os so far in an interval.
#[derive(Debug, Clone, Copy, Default)]
struct CloneCounts {
    read_bytes: u64,
    read_ios: u64,
    write_bytes: u64,
    write_ios: u64,
}

impl CloneCounts {
    fn add(&mut self, stats: &WorkerStats) {
        self.read_bytes += stats.read.bytes;
        self.read_ios += stats.read.ios;
        self.write_bytes += stats.write.bytes;
        self.write_ios += stats.write.ios;
    }
}

impl JobSlot {
    /// Closes the current interval of each clone (`duration_ns` long); its next becomes current.
    fn close_clone_interval(&mut self, duration_ns: u64) {
        for (i, cur) in self.clone_cur.iter_mut().enumerate() {
            let next = std::mem::take(&mut self.clone_next[i]);
            let part = std::mem::replace(cur, next);
            if duration_ns > 0 {
                self.clone_intervals[i].push(crate::record::CloneIntervalRecord {
                    duration_ns,
                    read_bytes: part.read_bytes,
                    read_ios: part.read_ios,
                    write_bytes: part.write_bytes,
                    write_ios: part.write_ios,
                });
            }
        }
    }
}

impl JobSlot {
    /// Job `spec`'s empty share, its workers numbered from `first`.
    fn new(first: u32, spec: &JobSpec) -> Self {
        Self {
            first,
            workers: spec.numjobs,
            startdelay_ns: crate::record::nanos(spec.startdelay),
            cur: WorkerStats::new(0),
            next: WorkerStats::new(0),
            total: WorkerStats::new(0),
            handles: Vec::new(),
            verify: crate::bench::verify::VerifyOutcome::default(),
            progress: Arc::default(),
            ended: 0,
            ended_at_ns: 0,
            clones: if spec.numjobs > 1 {
                (0..spec.numjobs).map(|_| WorkerStats::new(0)).collect()
            } else {
                Vec::new()
            },
            clone_cur: vec![CloneCounts::default(); clones_of(spec)],
            clone_next: vec![CloneCounts::default(); clones_of(spec)],
            clone_intervals: vec![Vec::new(); clones_of(spec)],
            latency_depth: None,
        }
    }
}

/// How many clones of `spec` are reported on their own: its workers when it has several.
fn clones_of(spec: &JobSpec) -> usize {
    if spec.numjobs > 1 {
        spec.numjobs as usize
    } else {
        0
    }
}

impl JobSlot {
    /// When the job's measured I/O ended, ns since `record_from_ns`, once every one of its
    /// workers has handed in its last tick.
    fn end_offset_ns(&self, record_from_ns: u64) -> Option<u64> {
        (self.ended >= self.workers).then(|| self.ended_at_ns.saturating_sub(record_from_ns))
    }
}

/// The part of the interval `[from_ns, to_ns)` a job that starts at `job_start_ns` and ends at
/// `job_end_ns` (still running: `None`) ran in, all ns since the measurement start; `None` when
/// it ran in no part of it (not started yet, or ended before the interval began).
#[must_use]
pub fn job_span(
    from_ns: u64,
    to_ns: u64,
    job_start_ns: u64,
    job_end_ns: Option<u64>,
) -> Option<(u64, u64)> {
    let from = from_ns.max(job_start_ns);
    let to = job_end_ns.map_or(to_ns, |end| end.min(to_ns));
    (to > from).then_some((from, to))
}

/// How far into a gap a worker's tick must land to show the workers ran in it: the session
/// may be due a little before a stop takes hold, and a tick may land in between.
const RAN_INTO_GAP_NS: u64 = 20_000_000;

/// Whether the workers' ticks that ended at `tick_ends_ns` (any order, any times) show that
/// the process ran in the session's gap `[from_ns, to_ns)` (it woke that much later than it
/// asked): then only the session's thread waited for a CPU (the workers' own load, on fewer
/// CPUs than threads). A tick handed over in the gap's first half, at least
/// [`RAN_INTO_GAP_NS`] into it, was the workers running (they tick only a few times while the
/// session does not take their reports: later ticks may not come, and the first may come
/// within one tick of the gap's start). A tick right after the
/// session was due may come before a stop took hold, and right after a stop the workers may
/// run before the session does: neither proves anything.
#[must_use]
pub fn workers_ran_in_gap(tick_ends_ns: &[u64], from_ns: u64, to_ns: u64) -> bool {
    let half_ns = to_ns.saturating_sub(from_ns) / 2;
    tick_ends_ns.iter().any(|&t| {
        t >= from_ns.saturating_add(RAN_INTO_GAP_NS) && t < from_ns.saturating_add(half_ns)
    })
}

/// The part of `[from_ns, to_ns)` that `spans` (each `[from, to)`) cover, ns (the spans do
/// not overlap).
#[must_use]
pub fn covered_ns(spans: &[(u64, u64)], from_ns: u64, to_ns: u64) -> u64 {
    spans
        .iter()
        .map(|&(a, b)| b.min(to_ns).saturating_sub(a.max(from_ns)))
        .sum()
}

/// A running step.
pub struct StepWorkers {
    control: Arc<StepControl>,
    reports: Receiver<Box<WorkerStats>>,
    spare_txs: Vec<Sender<Box<WorkerStats>>>,
    jobs: Vec<JobSlot>,
    /// Every worker's engine, in global worker order.
    pub setups: Vec<EngineSetup>,
    pub record_from_ns: u64,
    pub runtime_ns: u64,
    interval_ns: u64,
    /// The workers' tick: they hand over their stats this often.
    tick_ns: u64,
    cur_index: u64,
    total: WorkerStats,
    /// For each worker (global id), the end of the last tick it reported.
    reported_to: Vec<u64>,
    paused_since_ns: Option<u64>,
    paused_ns: u64,
    workers_done: bool,
    /// The session's last wake-up, and how long it asked to sleep after it.
    awake_ns: u64,
    asked_ns: u64,
    stall: Stall,
    /// Each stall, `[from, to)` in ns since `record_from_ns`: the intervals they cover say so.
    stall_spans: Vec<(u64, u64)>,
    starved: Stall,
    /// Interval stats handed back ([`StepWorkers::recycle`]), cleared, to close the next
    /// intervals into: no histogram is allocated and cleared whole per interval.
    spares: Vec<WorkerStats>,
}

/// Tick length: the interval split into equal parts of at most 250 ms, so interval
/// boundaries are tick boundaries.
fn tick_for(interval: Duration) -> Duration {
    let parts = interval.as_nanos().div_ceil(MAX_TICK.as_nanos()).max(1);
    Duration::from_nanos(u64::try_from(interval.as_nanos() / parts).unwrap_or(u64::MAX))
}

/// Collects every worker's setup report, stopping them all at the first failure or when
/// `interrupted()` turns true. Returns the setups by worker, the first failure and whether
/// the run was interrupted.
fn await_setups(
    ready_rx: &mpsc::Receiver<(u32, Result<EngineSetup, SetupError>)>,
    control: &StepControl,
    jobs: u32,
    interrupted: &dyn Fn() -> bool,
) -> (Vec<EngineSetup>, Option<String>, bool) {
    let mut setups = vec![EngineSetup::default(); jobs as usize];
    let mut failure = None;
    let mut interrupt = false;
    let mut reported = 0;
    while reported < jobs {
        if !interrupt && interrupted() {
            interrupt = true;
            control.stop.store(true, Ordering::Relaxed);
        }
        match ready_rx.recv_timeout(SETUP_POLL) {
            Ok((worker, Ok(engine_setup))) => setups[worker as usize] = engine_setup,
            Ok((_, Err(SetupError::Stopped))) => {}
            Ok((worker, Err(err @ SetupError::Failed(_)))) => {
                failure.get_or_insert(format!("worker {worker}: {err}"));
                // The others need not finish a setup that is of no use now.
                control.stop.store(true, Ordering::Relaxed);
            }
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => {
                failure.get_or_insert_with(|| "a worker ended during setup".to_string());
                break;
            }
        }
        reported += 1;
    }
    (setups, failure, interrupt)
}

/// The step runs until its longest job ends (start delay included).
fn step_runtime_ns(setup: &StepSetup) -> u64 {
    setup
        .jobs
        .iter()
        .map(|j| {
            crate::record::nanos(j.spec.startdelay)
                .saturating_add(crate::record::nanos(j.spec.runtime))
        })
        .max()
        .unwrap_or(0)
}

impl StepWorkers {
    /// Spawns the workers and starts them together. On a setup failure, or when `interrupted()`
    /// turns true while they set up (buffers of gigabytes take seconds to fill), every worker
    /// is stopped and joined before any I/O, and the reason returned.
    pub fn spawn(setup: &StepSetup, interrupted: &dyn Fn() -> bool) -> Result<Self, SpawnError> {
        let first_spec = &setup.jobs[0].spec;
        let workers_total: u32 = setup.jobs.iter().map(|j| j.spec.numjobs).sum();
        let control = Arc::new(StepControl::new(workers_total));
        let (report_tx, reports) = mpsc::sync_channel(workers_total as usize * 4);
        let (ready_tx, ready_rx) = mpsc::channel();
        let tick = tick_for(first_spec.interval);
        let mut spare_txs = Vec::new();
        let mut slots: Vec<JobSlot> = Vec::with_capacity(setup.jobs.len());
        let mut id = 0u32;
        let flows = crate::bench::flow::FlowGroup::for_jobs(setup.jobs.iter().map(|j| &*j.spec));
        // Opened before any thread starts, so a refusal leaves nothing running.
        let own_descriptors = setup
            .jobs
            .iter()
            .map(clone_descriptors)
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(|err| {
                SpawnError::Failed(format!(
                    "could not open the job's file again for its clones: {err}"
                ))
            })?;
        for ((job, flow), own_descriptors) in setup.jobs.iter().zip(flows).zip(own_descriptors) {
            let spec = &job.spec;
            let mut slot = JobSlot::new(id, spec);
            // fio's zbd zones are shared per file: by the job's clones, by the other jobs on
            // it (of this step and the steps before).
            let zbd = job.zbd.clone().map(|shared| {
                crate::bench::zbd::JobZones::new(shared, spec.offset_bytes, job.working_set_bytes)
            });
            for worker in 0..spec.numjobs {
                let (spare_tx, spare_rx) = mpsc::channel();
                spare_txs.push(spare_tx);
                let cpus = spec.cpus.as_ref().map(|cpus| {
                    if spec.cpus_split {
                        vec![cpus[worker as usize % cpus.len()]]
                    } else {
                        cpus.clone()
                    }
                });
                let (own_file, files) = worker_files(job, worker);
                let shared_file = own_descriptors
                    .get(worker as usize)
                    .cloned()
                    .unwrap_or_else(|| job.file.clone());
                let plan = WorkerPlan {
                    id,
                    worker,
                    files,
                    spec: spec.clone(),
                    file: own_file.cloned().unwrap_or(shared_file),
                    whole_region: own_file.is_some()
                        || spec.files.is_some()
                        || (job.whole && spec.verify.is_none()),
                    working_set_bytes: job.working_set_bytes,
                    seed: job.seed,
                    engine: job.engine,
                    cpus,
                    tick,
                    verify: slot.progress.clone(),
                    flow: flow.clone(),
                    zbd: zbd.clone(),
                };
                let links = WorkerLinks {
                    reports: report_tx.clone(),
                    spares: spare_rx,
                    ready: ready_tx.clone(),
                };
                let worker_control = control.clone();
                let spawned = std::thread::Builder::new()
                    .name(format!("bench-{id}"))
                    .spawn(move || worker::run(plan, worker_control, links));
                match spawned {
                    Ok(handle) => slot.handles.push(handle),
                    Err(err) => {
                        // Threads already started wait at the barrier, which now cannot fill:
                        // release them by giving up on the missing ones.
                        control.stop.store(true, Ordering::Relaxed);
                        drop(ready_tx);
                        drop(report_tx);
                        // (A thread per missing one would fail as this one did.)
                        control.barrier.forfeit((workers_total - id) as usize);
                        control.barrier.wait();
                        for handle in slots
                            .into_iter()
                            .flat_map(|s| s.handles)
                            .chain(slot.handles)
                        {
                            let _ = handle.join();
                        }
                        return Err(SpawnError::Failed(format!(
                            "cannot start worker thread {id}: {err}"
                        )));
                    }
                }
                id += 1;
            }
            slots.push(slot);
        }
        let jobs = workers_total;
        drop(report_tx);
        drop(ready_tx);
        let (setups, failure, interrupt) = await_setups(&ready_rx, &control, jobs, interrupted);
        if failure.is_some() {
            control.stop.store(true, Ordering::Relaxed);
        }
        let start_ns = monotonic_ns();
        control.start_ns.store(start_ns, Ordering::Release);
        control.session_awake_ns.store(start_ns, Ordering::Release);
        control.barrier.wait();
        if failure.is_some() || interrupt {
            for handle in slots.into_iter().flat_map(|s| s.handles) {
                let _ = handle.join();
            }
            return Err(failure.map_or(SpawnError::Interrupted, SpawnError::Failed));
        }
        let record_from_ns = start_ns.saturating_add(crate::record::nanos(first_spec.ramp));
        let runtime_ns = step_runtime_ns(setup);
        Ok(Self {
            control,
            reports,
            spare_txs,
            jobs: slots,
            setups,
            record_from_ns,
            runtime_ns,
            interval_ns: crate::record::nanos(first_spec.interval).max(1),
            tick_ns: crate::record::nanos(tick),
            cur_index: 0,
            total: WorkerStats::new(0),
            reported_to: vec![0; workers_total as usize],
            paused_since_ns: None,
            paused_ns: 0,
            workers_done: false,
            awake_ns: start_ns,
            asked_ns: 0,
            stall: Stall::default(),
            stall_spans: Vec::new(),
            starved: Stall::default(),
            spares: Vec::new(),
        })
    }

    pub fn stop(&self) {
        self.control.stop.store(true, Ordering::Relaxed);
    }

    pub fn pause(&mut self) {
        if self.paused_since_ns.is_none() {
            self.paused_since_ns = Some(monotonic_ns());
            self.control.paused.store(true, Ordering::Relaxed);
        }
    }

    pub fn resume(&mut self) {
        if let Some(since) = self.paused_since_ns.take() {
            self.paused_ns += monotonic_ns().saturating_sub(since);
            self.control.paused.store(false, Ordering::Relaxed);
        }
    }

    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.paused_since_ns.is_some()
    }

    /// Whether the workers stopped themselves (a fault).
    #[must_use]
    pub fn stop_requested(&self) -> bool {
        self.control.stop.load(Ordering::Relaxed)
    }

    /// Measured time so far (ramp, pauses and stalls excluded).
    #[must_use]
    pub fn elapsed_ns(&self, now_ns: u64) -> u64 {
        super::fold::measured_ns(
            now_ns,
            self.record_from_ns,
            self.paused_ns,
            self.paused_since_ns,
            self.stall.stalled_ns,
        )
    }

    /// Notes a wake-up of the session at `now_ns`. One [`STALL_MIN_NS`] or more later than it
    /// asked for means the process did not run for that long: the part of the gap inside the
    /// measured window counts as stalled (not while paused: paused time is already left out).
    /// The workers' deadline moves by it. Unless the workers' reports show they ran in the
    /// gap: then only the session's thread was starved, and the gap stays measured time.
    fn note_wake(&mut self, now_ns: u64) {
        let late_ns = now_ns
            .saturating_sub(self.awake_ns)
            .saturating_sub(self.asked_ns);
        self.awake_ns = now_ns;
        self.asked_ns = 0;
        if late_ns >= STALL_MIN_NS && self.paused_since_ns.is_none() {
            let from_ns = now_ns.saturating_sub(late_ns).max(self.record_from_ns);
            let stalled_ns = now_ns.saturating_sub(from_ns);
            if stalled_ns > 0 && self.drain_showing_work(now_ns - late_ns, now_ns) {
                self.starved.add(stalled_ns);
            } else if stalled_ns > 0 {
                self.stall.add(stalled_ns);
                self.stall_spans.push((
                    from_ns.saturating_sub(self.record_from_ns),
                    now_ns.saturating_sub(self.record_from_ns),
                ));
                self.control
                    .stalled_ns
                    .store(self.stall.stalled_ns, Ordering::Relaxed);
            }
        }
        self.control
            .session_awake_ns
            .store(now_ns, Ordering::Release);
    }

    /// The step total so far (closed intervals only).
    #[must_use]
    pub fn total(&self) -> &WorkerStats {
        &self.total
    }

    /// Receives reports for up to `max_wait` and closes the intervals that are due. Returns
    /// them in order; `workers_done()` tells when every worker has ended.
    pub fn poll(&mut self, max_wait: Duration) -> Vec<Interval> {
        let mut closed = Vec::new();
        let deadline_ns = monotonic_ns().saturating_add(crate::record::nanos(max_wait));
        loop {
            let now = monotonic_ns();
            self.note_wake(now);
            // The interval that ends the run stays open: `finish` closes it with the drained
            // completions and any short remainder, so no interval is a sliver.
            let due_ns = if self.is_last_interval() {
                u64::MAX
            } else {
                self.due_ns()
            };
            let mut wake_ns = due_ns;
            if now >= due_ns {
                // A worker counts as reported once its measured I/O is over, and it sends its
                // last tick before that: take what is queued, so that tick is in.
                self.drain();
                if now >= due_ns.saturating_add(LATE_REPORT_NS) || self.all_reported(now) {
                    closed.push(self.close_interval());
                    continue;
                }
                // A worker's tick of this interval is still on its way.
                wake_ns = now.saturating_add(1_000_000);
            }
            if now >= deadline_ns || self.workers_done {
                return closed;
            }
            let wait = Duration::from_nanos(wake_ns.min(deadline_ns).saturating_sub(now).max(1));
            self.asked_ns = crate::record::nanos(wait);
            if due_ns == u64::MAX {
                // The run's last interval: wake as soon as the workers are done.
                match self.reports.recv_timeout(wait) {
                    Ok(report) => self.merge(report),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => self.workers_done = true,
                }
            } else {
                // Reports are wanted when the interval is due, not as each comes: merge what
                // is queued and sleep, so the session wakes a few times per interval whatever
                // the number of workers, instead of once per report. At least every half
                // tick, so each worker's spares come back before it needs them.
                self.drain();
                if !self.workers_done {
                    let nap = wait.min(Duration::from_nanos(self.tick_ns / 2).max(MIN_NAP));
                    self.asked_ns = crate::record::nanos(nap);
                    std::thread::sleep(nap);
                }
            }
        }
    }

    /// Each job's verification so far (the jobs in the step's order), for the dashboard.
    #[must_use]
    pub fn verify_progress(&self) -> Vec<Arc<crate::bench::worker::VerifyProgress>> {
        self.jobs.iter().map(|j| j.progress.clone()).collect()
    }

    /// Every worker's measured I/O is over (read-backs may still run).
    #[must_use]
    pub fn measuring_over(&self) -> bool {
        self.control.all_measured()
    }

    /// Lets read-backs start: the device window is closed.
    pub fn window_closed(&self) {
        self.control.window_closed.store(true, Ordering::Release);
    }

    #[must_use]
    pub fn workers_done(&self) -> bool {
        self.workers_done
    }

    /// Whether the interval in progress is the run's last: the workers are stopping, or less
    /// than half an interval of measured runtime would remain after it.
    fn is_last_interval(&self) -> bool {
        if self.control.stop.load(Ordering::Relaxed) {
            return true;
        }
        let end_ns = self
            .record_from_ns
            .saturating_add((self.cur_index + 1).saturating_mul(self.interval_ns));
        let measured_at_end_ns = self.elapsed_ns(end_ns);
        takes_the_rest(self.runtime_ns, measured_at_end_ns, self.interval_ns)
    }

    fn due_ns(&self) -> u64 {
        self.record_from_ns
            .saturating_add((self.cur_index + 1).saturating_mul(self.interval_ns))
            .saturating_add(EMIT_GRACE_NS)
    }

    /// Merges every report already queued (as the next interval's close would), telling
    /// whether they show the workers ran through the session's gap `[from_ns, to_ns)`.
    fn drain_showing_work(&mut self, from_ns: u64, to_ns: u64) -> bool {
        let mut ends = Vec::new();
        loop {
            match self.reports.try_recv() {
                Ok(report) => {
                    ends.push(report.end_ns);
                    self.merge(report);
                }
                Err(mpsc::TryRecvError::Empty) => break,
                Err(mpsc::TryRecvError::Disconnected) => {
                    self.workers_done = true;
                    break;
                }
            }
        }
        workers_ran_in_gap(&ends, from_ns, to_ns)
    }

    /// Merges every report already queued.
    fn drain(&mut self) {
        loop {
            match self.reports.try_recv() {
                Ok(report) => self.merge(report),
                Err(mpsc::TryRecvError::Empty) => return,
                Err(mpsc::TryRecvError::Disconnected) => {
                    self.workers_done = true;
                    return;
                }
            }
        }
    }

    fn merge(&mut self, report: Box<WorkerStats>) {
        let index = report.start_ns.saturating_sub(self.record_from_ns) / self.interval_ns;
        let cur_index = self.cur_index;
        if let Some(to) = self.reported_to.get_mut(report.worker as usize) {
            *to = (*to).max(report.end_ns);
        }
        let slot = self.slot_of(report.worker);
        let w = report.worker.wrapping_sub(slot.first) as usize;
        let counts = if index <= cur_index {
            slot.clone_cur.get_mut(w)
        } else {
            slot.clone_next.get_mut(w)
        };
        if let Some(counts) = counts {
            counts.add(&report);
        }
        if report.last {
            slot.ended += 1;
            slot.ended_at_ns = slot.ended_at_ns.max(report.end_ns);
        }
        // Into the interval and the clone's total in one pass over the report.
        let interval = if index <= cur_index {
            &mut slot.cur
        } else {
            &mut slot.next
        };
        report.add_into(interval, slot.clones.get_mut(w));
        if let Some(tx) = self.spare_txs.get(report.worker as usize) {
            let _ = tx.send(report);
        }
    }

    /// Whether every worker has reported up to the end of the current interval: those that
    /// ended, and those of a job whose start delay has not passed, count as reported.
    fn all_reported(&self, now_ns: u64) -> bool {
        let end_ns = self
            .record_from_ns
            .saturating_add((self.cur_index + 1).saturating_mul(self.interval_ns));
        self.jobs.iter().all(|slot| {
            let starts_ns = self.record_from_ns.saturating_add(slot.startdelay_ns);
            if now_ns < starts_ns.saturating_add(self.interval_ns) {
                return true;
            }
            (0..slot.workers).all(|w| {
                let id = (slot.first + w) as usize;
                self.reported_to.get(id).is_none_or(|&to| to >= end_ns)
                    || self.control.has_measured(slot.first + w)
                    || slot
                        .handles
                        .get(w as usize)
                        .is_none_or(JoinHandle::is_finished)
            })
        })
    }

    /// Each job's totals over the closed intervals, in the step's order.
    pub fn job_totals(&self) -> impl Iterator<Item = &WorkerStats> {
        self.jobs.iter().map(|slot| &slot.total)
    }

    /// Each job's clones (fio's, when it has several workers) so far, as their ends would
    /// be were the step to end `elapsed_ns` into it: their stats as reported, the closed
    /// intervals' parts. No CPU or read-back yet.
    pub fn clones_so_far(&self, elapsed_ns: u64) -> Vec<Vec<CloneEnd>> {
        self.jobs
            .iter()
            .map(|slot| {
                slot.clones
                    .iter()
                    .zip(&slot.clone_intervals)
                    .map(|(total, intervals)| CloneEnd {
                        total: total.clone(),
                        elapsed_ns,
                        cpu: crate::stats::Usage::default(),
                        pid: 0,
                        verify_reads: crate::stats::DirectionStats::default(),
                        verify_ns: 0,
                        intervals: intervals.clone(),
                    })
                    .collect()
            })
            .collect()
    }

    /// The job a worker belongs to.
    fn slot_of(&mut self, worker: u32) -> &mut JobSlot {
        let at = self
            .jobs
            .iter()
            .position(|s| worker < s.first + s.workers)
            .unwrap_or(self.jobs.len() - 1);
        &mut self.jobs[at]
    }

    /// Hands a closed interval's stats back once it is folded in: the next intervals close
    /// into them, cleared (only their used counters), instead of into new ones.
    pub fn recycle(&mut self, interval: Interval) {
        for mut stats in std::iter::once(interval.stats).chain(interval.jobs) {
            stats.clear();
            self.spares.push(stats);
        }
    }

    /// Empty stats: a recycled one, or a new one.
    fn spare(spares: &mut Vec<WorkerStats>) -> WorkerStats {
        spares.pop().unwrap_or_else(|| WorkerStats::new(0))
    }

    /// Each job's current stats, moved out (its next become current), and their sum.
    fn take_current(&mut self, duration_ns: u64) -> (WorkerStats, Vec<WorkerStats>) {
        let spares = &mut self.spares;
        let mut parts: Vec<WorkerStats> = self
            .jobs
            .iter_mut()
            .map(|slot| {
                slot.close_clone_interval(duration_ns);
                let stats = std::mem::replace(
                    &mut slot.cur,
                    std::mem::replace(&mut slot.next, Self::spare(spares)),
                );
                slot.total.add(&stats);
                stats
            })
            .collect();
        if parts.len() == 1 {
            let only = parts.pop().unwrap_or_else(|| WorkerStats::new(0));
            self.total.add(&only);
            return (only, parts);
        }
        let mut sum = Self::spare(&mut self.spares);
        for part in &parts {
            sum.add(part);
        }
        self.total.add(&sum);
        (sum, parts)
    }

    /// Each job's part of the interval `[from_ns, to_ns)` (since the measurement start), with
    /// the jobs' ends as known now.
    fn spans(&self, from_ns: u64, to_ns: u64) -> Vec<Option<(u64, u64)>> {
        self.jobs
            .iter()
            .map(|slot| {
                job_span(
                    from_ns,
                    to_ns,
                    slot.startdelay_ns,
                    slot.end_offset_ns(self.record_from_ns),
                )
            })
            .collect()
    }

    fn close_interval(&mut self) -> Interval {
        let index = self.cur_index;
        let (stats, jobs) = self.take_current(self.interval_ns);
        self.cur_index += 1;
        let end_offset_ns = (index + 1).saturating_mul(self.interval_ns);
        let start_offset_ns = index.saturating_mul(self.interval_ns);
        Interval {
            index,
            duration_ns: self.interval_ns,
            end_offset_ns,
            stalled_ns: covered_ns(&self.stall_spans, start_offset_ns, end_offset_ns),
            stats,
            jobs,
            spans: self.spans(start_offset_ns, end_offset_ns),
        }
    }

    /// Joins every job's workers, adding what their last ticks did not hand over: the faults,
    /// the step's end, and each job's end, CPU and clones' ends.
    fn join_workers(&mut self) -> (Vec<(usize, IoFault)>, u64, Vec<JobJoin>) {
        let mut faults = Vec::new();
        let mut end_ns = self.record_from_ns;
        let mut job_ends = Vec::with_capacity(self.jobs.len());
        for (job, slot) in self.jobs.iter_mut().enumerate() {
            let mut job_end_ns = self.record_from_ns;
            // The workers' usage summed (as fio's), and the first's thread id.
            let mut cpu = (crate::stats::Usage::default(), 0u32);
            let mut clone_ends = Vec::with_capacity(slot.clones.len());
            for (w, handle) in std::mem::take(&mut slot.handles).into_iter().enumerate() {
                match handle.join() {
                    Ok(exit) => {
                        if let Some(counts) = slot.clone_cur.get_mut(w) {
                            counts.add(&exit.stats);
                        }
                        if let Some(clone) = slot.clones.get_mut(w) {
                            clone.add(&exit.stats);
                            let verify = (exit.verify.reads.clone(), exit.verify.pass_ns);
                            clone_ends.push((exit.stats.end_ns, (exit.cpu, exit.tid), verify));
                        }
                        job_end_ns = job_end_ns.max(exit.stats.end_ns);
                        if exit.stats.last {
                            // Its last tick did not reach the aggregator: it is here.
                            slot.ended += 1;
                            slot.ended_at_ns = slot.ended_at_ns.max(exit.stats.end_ns);
                        }
                        cpu.0.add(&exit.cpu);
                        if cpu.1 == 0 {
                            cpu.1 = exit.tid;
                        }
                        slot.cur.add(&exit.stats);
                        slot.verify.merge(exit.verify);
                        slot.latency_depth = exit.latency_depth.or(slot.latency_depth);
                        faults.extend(exit.fault.map(|fault| (job, fault)));
                    }
                    Err(_) => faults.push((
                        job,
                        IoFault {
                            worker: u32::MAX,
                            operation: "worker thread (panicked)",
                            offset_bytes: None,
                            errno: libc::EIO,
                            detail: None,
                        },
                    )),
                }
            }
            let next = std::mem::replace(&mut slot.next, WorkerStats::new(0));
            slot.cur.add(&next);
            for (cur, next) in slot.clone_cur.iter_mut().zip(&mut slot.clone_next) {
                let next = std::mem::take(next);
                cur.read_bytes += next.read_bytes;
                cur.read_ios += next.read_ios;
                cur.write_bytes += next.write_bytes;
                cur.write_ios += next.write_ios;
            }
            end_ns = end_ns.max(job_end_ns);
            job_ends.push((job_end_ns, cpu, clone_ends));
        }
        (faults, end_ns, job_ends)
    }

    /// Joins the workers (call once `workers_done()`, or after `stop()`), folds their last
    /// stats into a final partial interval and the total.
    pub fn finish(mut self) -> StepEnd {
        self.stop();
        self.resume();
        while !self.workers_done {
            match self.reports.recv() {
                Ok(report) => self.merge(report),
                Err(_) => self.workers_done = true,
            }
        }
        let (faults, end_ns, job_ends) = self.join_workers();
        let interval_start = self
            .record_from_ns
            .saturating_add(self.cur_index.saturating_mul(self.interval_ns));
        let (stats, jobs) = self.take_current(end_ns.saturating_sub(interval_start));
        let from_ns = interval_start.saturating_sub(self.record_from_ns);
        let to_ns = end_ns.saturating_sub(self.record_from_ns);
        // Every job has ended now, each at its own time.
        let spans = self
            .jobs
            .iter()
            .zip(&job_ends)
            .map(|(slot, &(job_end_ns, _, _))| {
                job_span(
                    from_ns,
                    to_ns,
                    slot.startdelay_ns,
                    Some(job_end_ns.saturating_sub(self.record_from_ns)),
                )
            })
            .collect();
        let last_interval = (end_ns > interval_start).then(|| Interval {
            index: self.cur_index,
            duration_ns: end_ns - interval_start,
            end_offset_ns: end_ns - self.record_from_ns,
            stalled_ns: covered_ns(&self.stall_spans, from_ns, to_ns),
            stats,
            jobs,
            spans,
        });
        let not_measured_ns = self.paused_ns.saturating_add(self.stall.stalled_ns);
        let jobs: Vec<JobEnd> = self
            .jobs
            .iter_mut()
            .zip(job_ends)
            .map(|(slot, (job_end_ns, (cpu, pid), clone_ends))| {
                let start_ns = self.record_from_ns.saturating_add(slot.startdelay_ns);
                let clones = if clone_ends.len() == slot.clones.len() {
                    std::mem::take(&mut slot.clones)
                        .into_iter()
                        .zip(clone_ends)
                        .zip(std::mem::take(&mut slot.clone_intervals))
                        .map(
                            |(
                                (total, (end_ns, (cpu, pid), (verify_reads, verify_ns))),
                                intervals,
                            )| {
                                CloneEnd {
                                    intervals,
                                    total,
                                    elapsed_ns: end_ns
                                        .saturating_sub(start_ns)
                                        .saturating_sub(not_measured_ns),
                                    cpu,
                                    pid,
                                    verify_reads,
                                    verify_ns,
                                }
                            },
                        )
                        .collect()
                } else {
                    // A worker that panicked left no end: no per-clone report.
                    Vec::new()
                };
                JobEnd {
                    total: std::mem::replace(&mut slot.total, WorkerStats::new(0)),
                    elapsed_ns: job_end_ns
                        .saturating_sub(start_ns)
                        .saturating_sub(not_measured_ns),
                    cpu,
                    pid,
                    verify: std::mem::take(&mut slot.verify),
                    clones,
                    latency_depth: slot.latency_depth.take(),
                }
            })
            .collect();
        // The step's time is its longest job's, each from its own start (fio's group
        // runtime): a start delay every job waits out is not measured time.
        let elapsed_ns = jobs.iter().map(|j| j.elapsed_ns).max().unwrap_or_else(|| {
            end_ns
                .saturating_sub(self.record_from_ns)
                .saturating_sub(not_measured_ns)
        });
        StepEnd {
            total: std::mem::replace(&mut self.total, WorkerStats::new(0)),
            last_interval,
            faults,
            elapsed_ns,
            stall: self.stall,
            starved: self.starved,
            jobs,
        }
    }
}

/// A joined job: its end, its workers' usage (CPU, context switches, page faults) and first
/// thread id, and each clone's end, usage and thread id, and verify reads.
type JobJoin = (
    u64,
    (crate::stats::Usage, u32),
    Vec<(
        u64,
        (crate::stats::Usage, u32),
        (crate::stats::DirectionStats, u64),
    )>,
);

/// Whether an interval that ends when `measured_at_end_ns` of the `runtime_ns` have been
/// measured is the last: what would remain after it is under half an interval, too short to be
/// an interval of its own (its rates would be over a sliver of time, the drain's completions
/// in it), so it joins this one.
fn takes_the_rest(runtime_ns: u64, measured_at_end_ns: u64, interval_ns: u64) -> bool {
    runtime_ns.saturating_sub(measured_at_end_ns) < interval_ns.div_ceil(2)
}

/// The files of one worker of `job`: a clone on a file of its own, when the job gives each
/// one (clone 0's is the job's), or, for a job over several files, all of them (the job's
/// first) and no own file.
fn worker_files(job: &JobSetup, worker: u32) -> (Option<&Arc<OwnedFd>>, Vec<Arc<OwnedFd>>) {
    if let Some(set) = job.spec.files {
        // Each clone's own files (fio's `$jobnum` in their names), clone by clone; or one
        // set the clones share (a ':' list, a name without `$jobnum`).
        let all = std::iter::once(&job.file).chain(&job.clone_files);
        let count = set.count as usize;
        let own = job.clone_files.len() + 1 >= count * (worker as usize + 1)
            && job.clone_files.len() + 1 > count;
        if !own {
            return (None, all.cloned().collect());
        }
        let mine: Vec<&Arc<OwnedFd>> = all.skip(count * worker as usize).take(count).collect();
        // The worker starts on the first of its own.
        return (mine.first().copied(), mine.into_iter().cloned().collect());
    }
    let own_file = match worker {
        0 => (!job.clone_files.is_empty()).then_some(&job.file),
        n => job.clone_files.get(n as usize - 1),
    };
    (own_file, Vec::new())
}

/// For a job whose clones share its file, one descriptor per clone (clone 0 keeps the job's),
/// as each of fio's jobs opens the file itself: the kernel keeps the readahead window and the
/// `posix_fadvise` pattern per open file, so clones reading at their own offsets through one
/// descriptor would reset each other's readahead. Empty where the clones have files of their own
/// or the job spreads over several files.
fn clone_descriptors(job: &JobSetup) -> std::io::Result<Vec<Arc<OwnedFd>>> {
    if job.spec.numjobs < 2 || job.spec.files.is_some() || !job.clone_files.is_empty() {
        return Ok(Vec::new());
    }
    let mut fds = vec![job.file.clone()];
    for _ in 1..job.spec.numjobs {
        fds.push(Arc::new(reopen(&job.file)?));
    }
    Ok(fds)
}

/// `file` opened again, a new open file of the same inode (`/proc/self/fd/N` reopens the
/// object, never a path), with its access mode and status flags (O_DIRECT, O_SYNC...).
fn reopen(file: &OwnedFd) -> std::io::Result<OwnedFd> {
    use std::os::fd::AsRawFd;
    let flags = nix::fcntl::fcntl(file, nix::fcntl::FcntlArg::F_GETFL)?;
    let keep = libc::O_ACCMODE
        | libc::O_APPEND
        | libc::O_DIRECT
        | libc::O_SYNC
        | libc::O_DSYNC
        | libc::O_NOATIME
        | libc::O_NONBLOCK;
    let link = format!("/proc/self/fd/{}", file.as_raw_fd());
    let fd = crate::pinned::open_at(
        libc::AT_FDCWD,
        link.as_bytes(),
        (flags & keep) | libc::O_CLOEXEC,
        0,
    )?;
    if crate::pinned::file_id(&fd)? != crate::pinned::file_id(file)? {
        return Err(std::io::Error::other(
            "/proc/self/fd reopened another file than the job's",
        ));
    }
    Ok(fd)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gap of 1.7 s from 10 s: a tick 20 ms or more into its first half proves the workers
    /// ran; one right after the session was due (before a stop took hold), or right after a
    /// stop ended (the workers may run before the session), does not.
    #[test]
    fn only_ticks_well_into_the_first_half_of_a_gap_show_the_workers_ran() {
        let (from, to) = (10_000_000_000, 11_700_000_000);
        assert!(workers_ran_in_gap(&[from + 20_000_000], from, to));
        assert!(workers_ran_in_gap(
            &[from + 3_000_000, from + 849_000_000],
            from,
            to
        ));
        assert!(!workers_ran_in_gap(&[from + 850_000_000], from, to));
        // A tick just after the session was due, then the stop: a stall.
        assert!(!workers_ran_in_gap(
            &[from + 3_000_000, from + 19_000_000],
            from,
            to
        ));
        // Right after the stop, and outside the gap: nothing proves the workers ran.
        assert!(!workers_ran_in_gap(&[to - 1_000_000], from, to));
        assert!(!workers_ran_in_gap(
            &[from, from - 50_000_000, to + 1],
            from,
            to
        ));
        assert!(!workers_ran_in_gap(&[], from, to));
        assert!(!workers_ran_in_gap(&[from + 1], from, from));
    }

    #[test]
    fn the_stalled_part_of_an_interval_is_its_overlap_with_the_stalls() {
        let stalls = [(150, 420), (900, 950)];
        assert_eq!(covered_ns(&stalls, 0, 100), 0);
        assert_eq!(covered_ns(&stalls, 100, 200), 50);
        assert_eq!(covered_ns(&stalls, 200, 300), 100);
        assert_eq!(covered_ns(&stalls, 400, 1000), 70);
        assert_eq!(covered_ns(&stalls, 0, 1000), 320);
    }

    #[test]
    fn a_reopened_file_is_a_new_open_file_of_the_same_inode_with_its_flags() {
        use std::io::{Read, Seek, SeekFrom, Write};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .unwrap();
        file.seek(SeekFrom::Start(4)).unwrap();
        let owned = OwnedFd::from(file.try_clone().unwrap());
        let again = reopen(&owned).unwrap();
        assert_eq!(
            crate::pinned::file_id(&again).unwrap(),
            crate::pinned::file_id(&owned).unwrap()
        );
        let flags = nix::fcntl::fcntl(&again, nix::fcntl::FcntlArg::F_GETFL).unwrap();
        assert_eq!(flags & libc::O_ACCMODE, libc::O_RDWR);
        assert_ne!(flags & libc::O_APPEND, 0, "O_APPEND kept");
        // Its own file position: a new open file, not a duplicate of the descriptor.
        let mut again = std::fs::File::from(again);
        let mut first = [0u8; 2];
        again.read_exact(&mut first).unwrap();
        assert_eq!(&first, b"01");
        again.write_all(b"!").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"0123456789!");
    }

    #[test]
    fn a_remainder_under_half_an_interval_joins_the_last_interval() {
        const S: u64 = 1_000_000_000;
        // 3 s in 1 s intervals: the third interval ends the run and takes the drain.
        assert!(!takes_the_rest(3 * S, S, S));
        assert!(!takes_the_rest(3 * S, 2 * S, S));
        assert!(takes_the_rest(3 * S, 3 * S, S));
        // 3.2 s: the 0.2 s left after the third interval joins it (an interval of 1.2 s).
        assert!(takes_the_rest(3 * S + S / 5, 3 * S, S));
        // 3.5 s: half an interval is an interval of its own.
        assert!(!takes_the_rest(3 * S + S / 2, 3 * S, S));
        // Paused or stalled time is not measured: the interval's end is earlier in the run.
        assert!(!takes_the_rest(3 * S, 3 * S - S / 2, S));
    }

    #[test]
    fn a_job_spans_only_the_part_of_an_interval_it_ran_in() {
        const S: u64 = 1_000_000_000;
        // Running through the interval, or not ended yet: all of it.
        assert_eq!(job_span(S, 2 * S, 0, None), Some((S, 2 * S)));
        assert_eq!(job_span(S, 2 * S, 0, Some(5 * S)), Some((S, 2 * S)));
        // Ends inside it: up to its end.
        assert_eq!(job_span(0, S, 0, Some(S * 2 / 5)), Some((0, S * 2 / 5)));
        // Ended before it, or exactly at its start: no part.
        assert_eq!(job_span(4 * S, 5 * S, 0, Some(S * 64 / 100)), None);
        assert_eq!(job_span(S, 2 * S, 0, Some(S)), None);
        // A start delay: from its start; not started yet: no part.
        assert_eq!(
            job_span(S, 2 * S, S + S / 2, None),
            Some((S + S / 2, 2 * S))
        );
        assert_eq!(job_span(0, S, 2 * S, None), None);
        // Started and ended inside one interval.
        assert_eq!(job_span(0, S, S / 4, Some(S / 2)), Some((S / 4, S / 2)));
        // Ended during the ramp (before the measurement start): no part anywhere.
        assert_eq!(job_span(0, S, 0, Some(0)), None);
    }

    #[test]
    fn ticks_divide_the_interval() {
        assert_eq!(tick_for(Duration::from_secs(1)), Duration::from_millis(250));
        assert_eq!(
            tick_for(Duration::from_millis(300)),
            Duration::from_millis(150)
        );
        assert_eq!(
            tick_for(Duration::from_millis(100)),
            Duration::from_millis(100)
        );
    }
}
