//! One worker thread (`bench-N`): owns its engine, buffers, slot table, workload, counters and
//! histograms. Per I/O it touches nothing shared: no lock, no channel, no allocation. Once per
//! tick it hands its [`WorkerStats`] to the aggregator over a bounded queue and takes a spare
//! back; when the queue is full it keeps recording and sends next time.
//!
//! Latency of an I/O runs from the clock read just before the syscall that submits it to the
//! clock read just after the syscall that reaped it (one read per submit call, one per reap
//! batch, CLOCK_MONOTONIC via the vDSO).

use std::ops::ControlFlow;
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use crate::bench::buffer::{AlignedBuffers, Pages};
use crate::bench::engine::libaio::LibaioEngine;
use crate::bench::engine::meta::MetaEngine;
use crate::bench::engine::null::NullEngine;
use crate::bench::engine::psync::{Calls, PsyncEngine};
use crate::bench::engine::uring::UringEngine;
use crate::bench::engine::{
    Completion, Engine, EngineSetup, Io, errno_name, is_transient, uring_unavailable,
};
use crate::bench::kinds::Direction;
use crate::bench::latency::{DepthSearch, Step};
use crate::bench::rate::Pacer;
use crate::bench::spec::{BufferData, EngineKind, JobSpec, SyncEvery};
use crate::bench::workload::Workload;

pub(crate) use crate::bench::verify::{VERIFY_FAILURES_KEPT, VerifyFailure, VerifyOutcome};
use crate::stats::{RawDepths, WorkerStats, monotonic_ns};
use crate::units::format_bytes;

/// One queue slot of a worker: the I/O as the engine sees it (a short transfer's resubmission
/// moves its offset, buffer and length) and what the worker keeps of it as issued.
struct Slot {
    io: Io,
    /// Offset and length as issued (verification and the counts use these).
    offset_bytes: u64,
    len_bytes: u32,
    /// When it was submitted (the clock read before the submit call: fio's start time), when
    /// the submit call returned (fio's issue time; the same for a synchronous engine), and
    /// when it was due by the schedule (0: not paced), ns.
    submit_ns: u64,
    issued_ns: u64,
    sched_ns: u64,
    /// Resubmissions after a transient error.
    retries: u16,
    /// A read of a logged block (`verify_backlog`), checked; a mixed job's own reads are not.
    verifying: bool,
}

impl Slot {
    fn new(slot: usize, block_size: u32, buf: *mut u8) -> Self {
        Self {
            io: Io {
                slot: slot as u32,
                direction: Direction::Read,
                offset_bytes: 0,
                len_bytes: block_size,
                buf,
                ioprio: 0,
                fd: -1,
            },
            offset_bytes: 0,
            len_bytes: block_size,
            submit_ns: 0,
            issued_ns: 0,
            sched_ns: 0,
            retries: 0,
            verifying: false,
        }
    }
}

/// The hot loop's state between its steps: the slot table, which slots are free, what is
/// queued or in flight, and what ends the current fill.
struct Flight {
    slots: Vec<Slot>,
    /// Slots with no I/O, taken from the end.
    free: Vec<u32>,
    /// Slots prepared but not yet given their submit time.
    unstamped: Vec<u32>,
    completions: Vec<Completion>,
    in_flight: usize,
    /// Prepared and not yet submitted.
    queued: usize,
    /// I/Os per submit (`iodepth_batch`) and the most completions per reap
    /// (`iodepth_batch_complete`).
    batch: usize,
    reap_max: usize,
    /// The fewest completions a reap waits for (`iodepth_batch_complete_min`; 0: poll).
    reap_min: usize,
    /// Once full, the queue drains to this depth before filling again (`iodepth_low`).
    low: usize,
    /// Draining down to `low`: no fill until it gets there.
    draining: bool,
    writes_since_sync: u32,
    sync_due: bool,
    stopping: bool,
    paused: bool,
    think_due: bool,
    /// Held back by the flow group with a flow_sleep: drain, then sleep.
    flow_held: bool,
    /// A paced worker with nothing due: when the next I/O is.
    wake_ns: Option<u64>,
}

impl Flight {
    fn new(spec: &JobSpec, depth: usize, buffers: &AlignedBuffers) -> Self {
        let block_size = u32::try_from(spec.block_size_bytes).unwrap_or(u32::MAX);
        Self {
            slots: (0..depth)
                .map(|slot| Slot::new(slot, block_size, buffers.slot_ptr(slot)))
                .collect(),
            free: (0..depth as u32).rev().collect(),
            unstamped: Vec::with_capacity(depth),
            completions: Vec::with_capacity(depth * 2),
            in_flight: 0,
            queued: 0,
            batch: (spec.iodepth_batch as usize).clamp(1, depth),
            reap_max: (spec.iodepth_batch_complete as usize).clamp(1, depth),
            reap_min: (spec.iodepth_batch_complete_min as usize).min(depth),
            low: (spec.iodepth_low as usize).min(depth),
            draining: false,
            writes_since_sync: 0,
            sync_due: false,
            stopping: false,
            paused: false,
            think_due: false,
            flow_held: false,
            wake_ns: None,
        }
    }

    /// The prepared slots' submit time (the clock read just before the submitting syscall)
    /// and their issue time (the read after it returned; the same read for a synchronous
    /// engine).
    #[inline]
    fn stamp(&mut self, submit_ns: u64, issued_ns: u64) {
        // By index, then one clear: a drain's setup and drop cost more than the few slots.
        for &slot in &self.unstamped {
            let slot = &mut self.slots[slot as usize];
            slot.submit_ns = submit_ns;
            slot.issued_ns = issued_ns;
        }
        self.unstamped.clear();
    }

    /// Sends what is queued with `engine.submit`, the slots stamped with the clock read
    /// before the call and, for an engine that times its submit call, the one after it.
    #[inline(always)]
    fn submit<E: Engine>(&mut self, engine: &mut E) -> std::io::Result<()> {
        let submit_ns = monotonic_ns();
        let sent = engine.submit();
        let issued_ns = if engine.times_submit() {
            monotonic_ns()
        } else {
            submit_ns
        };
        self.stamp(submit_ns, issued_ns);
        sent
    }
}

/// What the hot loop does after a wait with nothing in flight.
enum Next {
    Fill,
    Reap,
    End,
}

/// Resubmissions of one I/O after EINTR/EAGAIN/EBUSY before it counts as failed.
const MAX_IO_RETRIES: u16 = 1000;
/// Spare stats objects per worker (allocated once, at setup).
const SPARES: usize = 3;

/// The longest a worker waits for an emulated zone held by another clone before it looks at
/// the stop flag and the clock again.
const ZONE_WAIT: Duration = Duration::from_millis(20);

/// What one worker is to do.
pub struct WorkerPlan {
    /// The worker's id in the step (every job's workers counted together): its stats and
    /// readiness carry it.
    pub id: u32,
    /// The worker's index in its job: its slice of the working set, its faults.
    pub worker: u32,
    pub spec: Arc<JobSpec>,
    pub file: Arc<OwnedFd>,
    /// Every file of a worker with several (fio's `nrfiles`), `file` first; empty with one.
    pub files: Vec<Arc<OwnedFd>>,
    /// Its region is the whole working set, not its slice of a shared one: `file` is its own
    /// (a clone's, fio's `$jobnum`), or the job's clones each sweep the file as fio's do.
    pub whole_region: bool,
    pub working_set_bytes: u64,
    pub seed: u64,
    /// The engine to use (after the session's io_uring probe).
    pub engine: EngineKind,
    /// The CPUs this worker may run on (one for `split`, the job's list for `shared`).
    pub cpus: Option<Vec<usize>>,
    /// Tick length: how often stats are handed over.
    pub tick: Duration,
    /// The job's verification so far, shared by its workers and read by the session.
    pub verify: Arc<VerifyProgress>,
    /// The job's flow group (fio's `flow`), shared with the jobs of its flow id.
    pub flow: Option<Arc<crate::bench::flow::FlowGroup>>,
    /// The job's emulated zones (fio's `zonemode=zbd`), shared per file.
    pub zbd: Option<crate::bench::zbd::JobZones>,
}

/// A job's verification as it goes, for the dashboard: its workers add to it, the session
/// reads it at each publish, also while a write job reads back after its measured window.
#[derive(Debug)]
pub struct VerifyProgress {
    checked: AtomicU64,
    failed: AtomicU64,
    /// Blocks the job's read-back passes will check, and have checked.
    pass_blocks: AtomicU64,
    pass_checked: AtomicU64,
    /// The lowest offset that failed (`u64::MAX`: none).
    first_failed: AtomicU64,
}

impl Default for VerifyProgress {
    fn default() -> Self {
        Self {
            checked: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            pass_blocks: AtomicU64::new(0),
            pass_checked: AtomicU64::new(0),
            first_failed: AtomicU64::new(u64::MAX),
        }
    }
}

/// What [`VerifyProgress`] says at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VerifyLive {
    pub checked: u64,
    pub failed: u64,
    /// A write job's read-back: blocks checked of blocks to check (`None` before it starts).
    pub pass: Option<(u64, u64)>,
    /// The lowest offset that failed so far.
    pub first_failed: Option<u64>,
}

impl VerifyProgress {
    #[must_use]
    pub fn live(&self) -> VerifyLive {
        let pass_blocks = self.pass_blocks.load(Ordering::Relaxed);
        let first = self.first_failed.load(Ordering::Relaxed);
        VerifyLive {
            checked: self.checked.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            pass: (pass_blocks > 0)
                .then(|| (self.pass_checked.load(Ordering::Relaxed), pass_blocks)),
            first_failed: (first != u64::MAX).then_some(first),
        }
    }
}

/// The stall rule: the session's loop wakes at least every 50 ms; a wake-up this much later
/// than it asked for means the process did not run (SIGSTOP or Ctrl-Z, a frozen cgroup, a
/// suspended VM, a machine too loaded to measure), and the whole gap counts as stalled. 1 s is
/// 20 polls, far beyond scheduling delays, and above the longest dirty-throttling pause
/// (200 ms, `MAX_PAUSE` in mm/page-writeback.c) the session's own `--jsonl` writes can take.
/// Shorter gaps count as measured time.
pub const STALL_MIN_NS: u64 = 1_000_000_000;

/// The step's common start: each of `parties` waits once, and all go on when the last
/// arrives. Unlike `std::sync::Barrier`, parties that will never come (a worker thread that
/// could not be started) can be given up on with [`StartBarrier::forfeit`], so those that
/// started are released without starting a thread for each missing one, which is what fails.
pub struct StartBarrier {
    /// (parties expected, parties arrived).
    state: Mutex<(usize, usize)>,
    all_in: Condvar,
}

impl StartBarrier {
    #[must_use]
    pub fn new(parties: usize) -> Self {
        Self {
            state: Mutex::new((parties, 0)),
            all_in: Condvar::new(),
        }
    }

    /// Arrives, and waits for the others (or their forfeit).
    pub fn wait(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.1 += 1;
        if state.1 >= state.0 {
            self.all_in.notify_all();
            return;
        }
        while state.1 < state.0 {
            state = self
                .all_in
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// `missing` parties will not come: those waiting go on once the others have arrived.
    pub fn forfeit(&self, missing: usize) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.0 = state.0.saturating_sub(missing);
        if state.1 >= state.0 {
            self.all_in.notify_all();
        }
    }
}

/// State shared by the workers of one step and the session. Read once per reap batch.
pub struct StepControl {
    pub stop: AtomicBool,
    pub paused: AtomicBool,
    /// CLOCK_MONOTONIC ns when the step started (set before the start barrier).
    pub start_ns: AtomicU64,
    pub barrier: StartBarrier,
    /// Measured time the session found the process stalled, ns: like a pause, it moves the
    /// end of the runtime.
    pub stalled_ns: AtomicU64,
    /// CLOCK_MONOTONIC ns of the session's last wake-up; stalls before it are in `stalled_ns`
    /// (stored after it, with Release).
    pub session_awake_ns: AtomicU64,
    /// Per worker id: its measured I/O is over (a verifying write's read-back comes after), or
    /// it ended without any.
    measured_by: Vec<AtomicBool>,
    /// Set by the session once it has closed the device window after every worker's measured
    /// I/O: read-backs wait for it, so the window holds the run's I/O only.
    pub window_closed: AtomicBool,
}

impl StepControl {
    #[must_use]
    pub fn new(workers: u32) -> Self {
        Self {
            stop: AtomicBool::new(false),
            paused: AtomicBool::new(false),
            start_ns: AtomicU64::new(0),
            barrier: StartBarrier::new(workers as usize + 1),
            stalled_ns: AtomicU64::new(0),
            session_awake_ns: AtomicU64::new(monotonic_ns()),
            measured_by: (0..workers).map(|_| AtomicBool::new(false)).collect(),
            window_closed: AtomicBool::new(false),
        }
    }

    /// Worker `id`'s measured I/O is over (later calls change nothing).
    pub fn mark_measured(&self, id: u32) {
        if let Some(flag) = self.measured_by.get(id as usize) {
            flag.store(true, Ordering::Release);
        }
    }

    #[must_use]
    pub fn has_measured(&self, id: u32) -> bool {
        self.measured_by
            .get(id as usize)
            .is_some_and(|f| f.load(Ordering::Acquire))
    }

    /// Whether every worker's measured I/O is over.
    #[must_use]
    pub fn all_measured(&self) -> bool {
        self.measured_by.iter().all(|f| f.load(Ordering::Acquire))
    }
}

/// Marks its worker's measured I/O over when dropped: on every way out of [`run`], panics
/// included, so no read-back waits on a worker that will never say so.
struct MeasuredOnDrop<'a> {
    control: &'a StepControl,
    id: u32,
}

impl Drop for MeasuredOnDrop<'_> {
    fn drop(&mut self) {
        self.control.mark_measured(self.id);
    }
}

/// The worker's ends of the channels to the aggregator.
pub struct WorkerLinks {
    pub reports: SyncSender<Box<WorkerStats>>,
    pub spares: Receiver<Box<WorkerStats>>,
    pub ready: Sender<(u32, Result<EngineSetup, SetupError>)>,
}

/// Why a worker did not get ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// The step was stopped (an interrupt) while the worker was setting up.
    Stopped,
    /// Buffers or the ring could not be set up.
    Failed(String),
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Stopped => write!(f, "stopped during setup"),
            Self::Failed(why) => write!(f, "{why}"),
        }
    }
}

/// An I/O that failed for good: what, where, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoFault {
    pub worker: u32,
    /// `read`, `write`, `fsync`, `fdatasync`, `submit`.
    pub operation: &'static str,
    pub offset_bytes: Option<u64>,
    /// 0 for an unexpected end of file/device, or a `detail`ed fault.
    pub errno: i32,
    /// What went wrong when it was not a system call (a block that failed verification).
    pub detail: Option<String>,
}

impl std::fmt::Display for IoFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.operation)?;
        if let Some(offset) = self.offset_bytes {
            write!(f, " at offset {offset} ({})", format_bytes(offset))?;
        }
        if let Some(detail) = &self.detail {
            return write!(f, ": {detail}");
        }
        if self.errno == 0 {
            write!(f, " reached the end of the file or device early")
        } else {
            let text = std::io::Error::from_raw_os_error(self.errno);
            let text = text.to_string();
            let text = text.split(" (os error").next().unwrap_or(&text);
            write!(f, " failed: {text} ({})", errno_name(self.errno))
        }
    }
}

/// What a worker returns when it ends: its last (unsent) stats, the fault if any, its setup.
pub struct WorkerExit {
    pub stats: Box<WorkerStats>,
    /// This thread's CPU time, context switches and page faults from the start to the end.
    pub cpu: crate::stats::Usage,
    /// This thread's id (`gettid`): fio's `pid=` of a job, which with `thread` is its tid.
    pub tid: u32,
    pub fault: Option<IoFault>,
    pub setup: EngineSetup,
    /// What verification found (`--verify`).
    pub verify: VerifyOutcome,
    /// The depth fio's `latency_target` search ended at, when the job has a target.
    pub latency_depth: Option<u32>,
}

/// Thread body. Always reaches the step's start barrier, even when setup fails or is
/// stopped. Setup looks at the stop flag while it fills a writing job's buffers, while it
/// faults in a reading job's buffers that io_uring will register (the registration would
/// fault them in one call that cannot look) and before it sets up the ring, so an interrupt
/// acts within a fraction of a second even with gigabytes of buffers.
pub fn run(plan: WorkerPlan, control: Arc<StepControl>, links: WorkerLinks) -> WorkerExit {
    let measured = MeasuredOnDrop {
        control: &control,
        id: plan.id,
    };
    if let Some(cpus) = &plan.cpus {
        let mut set = nix::sched::CpuSet::new();
        if cpus.iter().all(|&cpu| set.set(cpu).is_ok()) {
            let _ = nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set);
        }
    }
    let spec = plan.spec.clone();
    // The engine that runs (the session may have fallen back to psync) decides the depth.
    let depth = spec.effective_iodepth_with(plan.engine) as usize;
    let block_size = usize::try_from(spec.block_size_bytes).unwrap_or(usize::MAX);
    let fd = plan.file.as_raw_fd();
    if let Some(advice) = spec.fadvise.advice(spec.rw.is_random()) {
        // SAFETY: posix_fadvise only advises the kernel about this descriptor's pages; a
        // hint it refuses (a device without readahead) changes nothing, so it is not checked.
        unsafe { libc::posix_fadvise(fd, 0, 0, advice) };
    }
    let mut exit = WorkerExit {
        stats: fresh_stats(&plan),
        cpu: crate::stats::Usage::default(),
        tid: u32::try_from(nix::unistd::gettid().as_raw()).unwrap_or(0),
        fault: None,
        setup: EngineSetup::default(),
        verify: VerifyOutcome::default(),
        latency_depth: None,
    };
    let not_ready = |error: SetupError| {
        let _ = links.ready.send((plan.id, Err(error)));
        control.barrier.wait();
    };
    // fio's numa_cpu_nodes, numa_mem_policy (before the buffers, which follow it) and
    // prio/prioclass, on this thread.
    if let Err(why) = place_thread(&spec) {
        not_ready(SetupError::Failed(why));
        return exit;
    }
    // Declared before the engine so it is dropped after it: the ring may have it registered.
    let pages = if plan.spec.iomem.huge() {
        Pages::Huge
    } else {
        Pages::Plain
    };
    // A job that writes no data leaves its buffers untouched, as fio does: no read needs
    // pseudo-random bytes in them; its first I/Os (or io_uring's registration) fault them in.
    // Not an sg verify job: it runs as reads but compares them with its buffer's bytes (fio
    // counts it a writer and fills it).
    let buffers = if !plan.spec.writes_data() && plan.spec.sg.is_none() {
        AlignedBuffers::untouched(depth, block_size, pages).map(Some)
    } else if plan.spec.data == BufferData::Zero {
        AlignedBuffers::new_zeroed(depth, block_size, pages).map(Some)
    } else {
        AlignedBuffers::new_unless(depth, block_size, plan.seed, pages, &control.stop)
    };
    let mut buffers = match buffers {
        Ok(Some(buffers)) if !control.stop.load(Ordering::Relaxed) => buffers,
        Ok(_) => {
            not_ready(SetupError::Stopped);
            return exit;
        }
        Err(err) => {
            not_ready(SetupError::Failed(format!("{err:#}")));
            return exit;
        }
    };
    // Only an untouched pool: a filled one is resident already.
    if plan.engine == EngineKind::IoUring
        && spec.uring.registers_buffers()
        && !plan.spec.writes_data()
        && plan.spec.sg.is_none()
        && !buffers.populate_unless(&control.stop)
    {
        not_ready(SetupError::Stopped);
        return exit;
    }
    // fio's buffer_pattern, and the sg engine's data and checks (`bench::sg`).
    let logical = if spec.sg.is_some() {
        crate::bench::blockdev::logical_block_bytes(plan.file.as_fd()).unwrap_or(512) as usize
    } else {
        512
    };
    let sg = match crate::bench::sg::prepare(&spec, &mut buffers, block_size, logical) {
        Ok(sg) => sg,
        Err(err) => {
            not_ready(SetupError::Failed(format!("{err:#}")));
            return exit;
        }
    };
    let mut stats = Vec::with_capacity(SPARES + 2);
    for _ in 0..SPARES {
        stats.push(fresh_stats(&plan));
    }
    let mut state = Loop::new(&plan, &control, links, stats, depth, fd);
    state.sg = sg;
    // A libaio context outlives the loop until the windows are closed (below): destroying it
    // waits out the kernel's RCU grace period, tens of milliseconds of no I/O. Declared after
    // the buffers, so dropped before them.
    let mut aio_context = None;
    if !run_engine(
        &plan,
        &mut state,
        &buffers,
        depth,
        &mut exit.setup,
        &mut aio_context,
    ) {
        return exit;
    }
    // The last tick goes to the aggregator like every other, before the worker counts as
    // measured: it then lands in the interval its I/Os completed in, not in the step's last.
    // Only when the aggregator is gone does the exit carry it.
    let last = state.finish();
    exit.latency_depth = state.latency.as_ref().map(DepthSearch::depth);
    let end_ns = last.end_ns;
    exit.stats = match state.links.reports.send(last) {
        Ok(()) => {
            let mut ended = Box::new(WorkerStats::new(plan.id));
            ended.reset(end_ns);
            ended
        }
        Err(std::sync::mpsc::SendError(last)) => last,
    };
    let end = state
        .ended
        .map_or_else(|| crate::stats::rusage(libc::RUSAGE_THREAD), |(_, cpu)| cpu);
    exit.cpu = end.since(&state.cpu_at_start);
    control.mark_measured(measured.id);
    drop(aio_context);
    // A verifying write job reads back what it wrote, after its measured window (its time
    // and CPU are not the run's, nor its reads the device window's).
    if let Some(verify) = spec.verify
        && !verify.only
        && verify.read_back
        && state.fault.is_none()
        && !control.stop.load(Ordering::Relaxed)
    {
        wait_for_window_end(&control);
        state.verify_pass(&buffers, plan.engine, verify);
    }
    state.verify_summary_fault();
    exit.fault = state.fault.take();
    exit.verify = std::mem::take(&mut state.verify_out);
    exit
}

/// Applies the job's NUMA placement and thread I/O priority to the calling worker thread.
fn place_thread(spec: &JobSpec) -> Result<(), String> {
    if let Some(nodes) = &spec.numa_cpu_nodes {
        crate::bench::prio::bind_cpus_to_nodes(nodes)?;
    }
    if let Some(policy) = &spec.numa_mem_policy {
        crate::bench::prio::set_mem_policy(policy)?;
    }
    if let Some(ioprio) = spec.ioprio {
        crate::bench::prio::set_thread_ioprio(ioprio)?;
    }
    Ok(())
}

/// Sets up the engine the plan names and runs the hot loop on it. False: setup failed (the
/// session has been told and the start barrier reached).
fn run_engine(
    plan: &WorkerPlan,
    state: &mut Loop<'_>,
    buffers: &AlignedBuffers,
    depth: usize,
    setup: &mut EngineSetup,
    aio_context: &mut Option<LibaioEngine>,
) -> bool {
    let spec = &plan.spec;
    let fd = state.fd;
    let block_size = usize::try_from(spec.block_size_bytes).unwrap_or(usize::MAX);
    match plan.engine {
        EngineKind::IoUring => {
            match UringEngine::new(fd, depth as u32, buffers, block_size, &spec.uring) {
                Ok((mut engine, ready)) => {
                    *setup = ready;
                    state.start(setup);
                    state.drive(&mut engine, buffers);
                }
                // Polling was asked for: no silent ring without it.
                Err(err) if spec.uring.hipri || spec.uring.sqpoll => {
                    let _ = state.links.ready.send((
                        state.id,
                        Err(SetupError::Failed(polling_refused(&spec.uring, &err))),
                    ));
                    state.control.barrier.wait();
                    return false;
                }
                Err(err) if uring_unavailable(&err) => {
                    *setup = EngineSetup {
                        engine: "psync",
                        notes: vec![crate::bench::engine::fallback_note(&err)],
                        ..EngineSetup::default()
                    };
                    if spec.cmdprio.is_some() {
                        setup.notes.push(
                            "psync sends no per-I/O priority: cmdprio_* has no effect".to_string(),
                        );
                    }
                    let mut engine = PsyncEngine::new(fd, 1);
                    state.depth = spec.effective_iodepth_with(EngineKind::Psync) as usize;
                    state.start(setup);
                    state.drive(&mut engine, buffers);
                }
                Err(err) => {
                    let _ = state.links.ready.send((
                        state.id,
                        Err(SetupError::Failed(format!("io_uring setup failed: {err}"))),
                    ));
                    state.control.barrier.wait();
                    return false;
                }
            }
        }
        EngineKind::Libaio => match LibaioEngine::new(fd, depth as u32) {
            Ok((mut engine, ready)) => {
                *setup = ready;
                state.start(setup);
                state.drive(&mut engine, buffers);
                *aio_context = Some(engine);
            }
            // libaio was asked for by name: no silent io_uring or psync instead.
            Err(err) => {
                let message = crate::bench::engine::libaio::setup_error(&err, depth as u32);
                let _ = state
                    .links
                    .ready
                    .send((state.id, Err(SetupError::Failed(message))));
                state.control.barrier.wait();
                return false;
            }
        },
        EngineKind::Psync | EngineKind::Falloc | EngineKind::Ftruncate => {
            // The engine that runs (psync when io_uring fell back), not the one asked for.
            setup.engine = plan.engine.as_str();
            let calls = match plan.engine {
                EngineKind::Falloc => Calls::Falloc,
                EngineKind::Ftruncate => Calls::Ftruncate,
                _ => Calls::ReadWrite,
            };
            let mut engine = PsyncEngine::new(fd, 1).with_calls(calls);
            state.start(setup);
            state.drive(&mut engine, buffers);
        }
        EngineKind::FileCreate | EngineKind::FileStat | EngineKind::FileDelete => {
            setup.engine = plan.engine.as_str();
            let made = spec.meta.as_ref().map_or_else(
                || Err("a metadata engine's job names no files".to_string()),
                |files| {
                    let bs = spec.block_size_bytes;
                    MetaEngine::new(fd, plan.engine, files, state.worker, bs, spec.offset_bytes)
                },
            );
            match made {
                Ok(mut engine) => {
                    state.start(setup);
                    state.drive(&mut engine, buffers);
                }
                Err(message) => {
                    let _ = state
                        .links
                        .ready
                        .send((state.id, Err(SetupError::Failed(message))));
                    state.control.barrier.wait();
                    return false;
                }
            }
        }
        EngineKind::Null => {
            setup.engine = "null";
            let mut engine = NullEngine::new(depth as u32);
            state.start(setup);
            state.drive(&mut engine, buffers);
        }
    }
    true
}

/// Empty stats for this worker; a paced worker's keep the latency from the schedule too.
fn fresh_stats(plan: &WorkerPlan) -> Box<WorkerStats> {
    let stats = match &plan.spec.rate {
        Some(rate) => WorkerStats::paced(plan.id, rate.read.is_some(), rate.write.is_some()),
        None => WorkerStats::new(plan.id),
    };
    Box::new(if plan.engine.times_submit() {
        stats.with_split(plan.spec.directions())
    } else {
        stats
    })
}

/// The longest a paced worker waits without looking at the stop and pause flags.
const PACED_WAIT_MAX_NS: u64 = 20_000_000;

/// The worker's loop state. Stats stay boxed: they travel through channels by pointer.
#[allow(clippy::vec_box)]
struct Loop<'a> {
    spec: Arc<JobSpec>,
    control: &'a StepControl,
    links: WorkerLinks,
    id: u32,
    worker: u32,
    fd: RawFd,
    /// A worker's several files (fio's `nrfiles`): `fd` and `workload` are the current one's.
    files: Option<Box<Files>>,
    /// The file of the block being checked, when a worker has several (-1: its one file).
    checking_fd: RawFd,
    /// Drop the file's page cache at each wrap (buffered, time-based, `invalidate=1`).
    invalidate_on_wrap: bool,
    depth: usize,
    workload: Workload,
    cur: Box<WorkerStats>,
    /// `cur`'s depth tables as counted per call, folded into it at each hand-off.
    depths: RawDepths,
    spares: Vec<Box<WorkerStats>>,
    tick_ns: u64,
    next_tick_ns: u64,
    record_from_ns: u64,
    deadline_ns: u64,
    recording: bool,
    fault: Option<IoFault>,
    /// Bytes this worker may still submit in a size-based run (`u64::MAX`: time-based).
    budget_bytes: u64,
    /// This thread's CPU use when the step started.
    cpu_at_start: crate::stats::Usage,
    /// When the loop ended and this thread's CPU use then: the run's end, before the engine
    /// is torn down (libaio's `io_destroy` waits tens of milliseconds for the kernel).
    ended: Option<(u64, crate::stats::Usage)>,
    /// The schedule of a paced job (`--rate-iops`, `--rate`).
    pacer: Option<Pacer>,
    /// The session's stalled time already moved into the schedule.
    stall_seen_ns: u64,
    /// What verification found so far.
    verify_out: VerifyOutcome,
    /// The same counts, shared with the session as they grow.
    verify_live: Arc<VerifyProgress>,
    /// The seed in every verified block's header (the job's `randseed`, else 0), the same in a
    /// later `--verify-only` run.
    verify_seed: u64,
    /// Written blocks not yet checked, and when the next checks are due (`verify_backlog`).
    backlog: Option<crate::bench::verify::Backlog>,
    /// The errno of this worker's first failed I/O gone on past (`continue_on_error`).
    first_error: i32,
    /// The pseudo-random stream that refills each write's buffer (`BufferData::Refill`).
    refill_state: u64,
    /// Makes each write's bytes when they are to dedupe or compress (`BufferData::Shaped`).
    shaper: Option<crate::bench::buffer::Shaper>,
    /// I/Os this worker may still issue (fio's `number_ios`; `u64::MAX`: no limit).
    ios_left: u64,
    /// I/Os counted towards the next think time (fio's `thinktime_blocks`).
    think_count: u32,
    /// The rate floor's current cycle: its start and what each direction moved in it
    /// (fio's `rate_min`, `rate_iops_min`).
    cycle_start_ns: u64,
    cycle_bytes: [u64; 2],
    cycle_ios: [u64; 2],
    /// This worker in its flow group (fio's `flow`); dropped when it ends.
    flow: Option<crate::bench::flow::FlowMember>,
    /// Which I/Os go at a priority of their own (fio's `cmdprio_*`).
    cmdprio: Option<crate::bench::prio::CmdPrioPicker>,
    /// An sg job's compares (fio's `sg_write_mode` on a block device).
    sg: Option<crate::bench::sg::SgData>,
    /// fio's `latency_target` search; its depth is the in-flight limit.
    latency: Option<DepthSearch>,
    /// The search settled (or failed): the worker ends.
    latency_done: bool,
    /// fio's log files of this clone (`bench::iolog`).
    iolog: Option<Box<crate::bench::iolog::IoLog>>,
}

impl<'a> Loop<'a> {
    #[allow(clippy::vec_box)]
    fn new(
        plan: &WorkerPlan,
        control: &'a StepControl,
        links: WorkerLinks,
        mut spares: Vec<Box<WorkerStats>>,
        depth: usize,
        fd: RawFd,
    ) -> Self {
        let cur = spares.pop().unwrap_or_else(|| fresh_stats(plan));
        Self {
            spec: plan.spec.clone(),
            control,
            links,
            id: plan.id,
            worker: plan.worker,
            fd,
            files: Files::of(plan),
            checking_fd: -1,
            depth,
            invalidate_on_wrap: !plan.spec.direct
                && plan.spec.invalidate
                && plan.spec.io_size_bytes.is_none(),
            workload: Workload::sliced(
                &plan.spec,
                plan.working_set_bytes,
                plan.worker,
                plan.seed,
                if plan.whole_region {
                    (0, 1)
                } else {
                    (plan.worker, plan.spec.numjobs)
                },
            )
            .on_zones(&plan.spec, plan.zbd.clone(), plan.id),
            cur,
            depths: RawDepths::default(),
            spares,
            tick_ns: u64::try_from(plan.tick.as_nanos())
                .unwrap_or(u64::MAX)
                .max(1),
            next_tick_ns: 0,
            record_from_ns: 0,
            deadline_ns: 0,
            recording: false,
            fault: None,
            budget_bytes: plan.spec.io_size_bytes.unwrap_or(u64::MAX),
            cpu_at_start: crate::stats::Usage::default(),
            ended: None,
            pacer: plan
                .spec
                .rate
                .map(|rate| Pacer::new(&rate, plan.seed ^ u64::from(plan.worker))),
            stall_seen_ns: 0,
            verify_out: VerifyOutcome::default(),
            verify_live: plan.verify.clone(),
            verify_seed: plan.spec.randseed.unwrap_or(0),
            backlog: plan
                .spec
                .verify
                .and_then(|verify| verify.backlog)
                .map(crate::bench::verify::Backlog::new),
            first_error: 0,
            refill_state: plan.seed ^ 0x5EED_F111_0000_0000,
            shaper: match plan.spec.data {
                BufferData::Shaped(shape) => Some(crate::bench::buffer::Shaper::new(
                    shape,
                    plan.working_set_bytes / plan.spec.block_size_bytes.max(1),
                    plan.seed,
                )),
                _ => None,
            },
            ios_left: plan.spec.number_ios.unwrap_or(u64::MAX),
            think_count: 0,
            cycle_start_ns: 0,
            cycle_bytes: [0; 2],
            cycle_ios: [0; 2],
            flow: plan
                .flow
                .as_ref()
                .zip(plan.spec.flow)
                .map(|(group, flow)| group.join(flow)),
            cmdprio: plan.spec.cmdprio.clone().map(|rules| {
                crate::bench::prio::CmdPrioPicker::new(
                    rules,
                    plan.seed ^ 0xC3D9_0000_0000_0000 ^ u64::from(plan.worker),
                )
            }),
            sg: None,
            latency: None,
            latency_done: false,
            iolog: plan
                .spec
                .io_log
                .as_ref()
                .and_then(|logs| crate::bench::iolog::IoLog::new(logs, plan.worker)),
        }
    }

    /// Reports ready, waits for the common start, sets the timeline.
    fn start(&mut self, setup: &EngineSetup) {
        let _ = self.links.ready.send((self.id, Ok(setup.clone())));
        self.control.barrier.wait();
        self.cpu_at_start = crate::stats::rusage(libc::RUSAGE_THREAD);
        let start_ns = self.control.start_ns.load(Ordering::Acquire);
        // A start delay (fio's startdelay) moves this job's whole timeline.
        let start_ns = start_ns.saturating_add(crate::record::nanos(self.spec.startdelay));
        while monotonic_ns() < start_ns && !self.control.stop.load(Ordering::Relaxed) {
            let left = start_ns.saturating_sub(monotonic_ns());
            std::thread::sleep(Duration::from_nanos(left.min(5_000_000)));
        }
        if let Some(pacer) = self.pacer.as_mut() {
            pacer.start(start_ns);
            // Wake-ups on time, not up to 50 us late (the default slack): the schedule's gaps
            // may be tens of microseconds. Best effort: a refusal only costs precision.
            let _ = nix::sys::prctl::set_timerslack(1);
            self.stall_seen_ns = self.control.stalled_ns.load(Ordering::Relaxed);
        }
        let ramp_ns = u64::try_from(self.spec.ramp.as_nanos()).unwrap_or(u64::MAX);
        let runtime_ns = u64::try_from(self.spec.runtime.as_nanos()).unwrap_or(u64::MAX);
        self.record_from_ns = start_ns.saturating_add(ramp_ns);
        self.deadline_ns = self.record_from_ns.saturating_add(runtime_ns);
        self.next_tick_ns = self.record_from_ns.saturating_add(self.tick_ns);
        if ramp_ns == 0 {
            self.recording = true;
            self.cur.reset(start_ns);
            self.cycle_start_ns = start_ns;
            if let Some(log) = self.iolog.as_mut() {
                log.start(start_ns);
            }
        }
    }

    /// The hot loop: fill the queue, wait when nothing is in flight, reap, complete. Returns
    /// when the run ends, is stopped, or fails.
    fn drive<E: Engine>(&mut self, engine: &mut E, buffers: &AlignedBuffers) {
        let mut flight = Flight::new(&self.spec, self.depth, buffers);
        if self.control.stop.load(Ordering::Relaxed) {
            self.ended = Some((monotonic_ns(), crate::stats::rusage(libc::RUSAGE_THREAD)));
            return;
        }
        if let Some(target) = self.spec.latency_target {
            // The engine that runs decides the ceiling (psync: 1); the search starts at 1.
            let search = DepthSearch::new(&target, self.depth as u32, monotonic_ns());
            self.depth = search.depth() as usize;
            self.latency = Some(search);
        }
        if self.plain() {
            self.run_loop::<E, true>(engine, buffers, &mut flight);
        } else {
            self.run_loop::<E, false>(engine, buffers, &mut flight);
        }
        self.ended = Some((monotonic_ns(), crate::stats::rusage(libc::RUSAGE_THREAD)));
    }

    /// Whether this worker uses none of the per-I/O extras (several files, a flow group,
    /// `verify_backlog` and verification, emulated zones, pacing, a rate floor, an I/O count
    /// (`number_ios`), priorities, think and sync times, page-cache drops, sg compares, the
    /// latency search, a low watermark below `iodepth`, fio's log files): its loop is then
    /// built
    /// without their tests (`PLAIN`), the same steps in the same order without what would
    /// find nothing to do.
    fn plain(&self) -> bool {
        self.files.is_none()
            && self.flow.is_none()
            && self.backlog.is_none()
            && self.spec.verify.is_none()
            && !self.workload.on_emulated_zones()
            && self.pacer.is_none()
            && self.spec.rate_min.is_none()
            && self.spec.number_ios.is_none()
            && self.cmdprio.is_none()
            && self.spec.think.is_none()
            && self.spec.sync_every.is_none()
            && !self.invalidate_on_wrap
            && self.sg.is_none()
            && self.latency.is_none()
            && self.iolog.is_none()
            && self.spec.iodepth_low as usize >= self.depth
    }

    /// [`Self::drive`]'s loop; `PLAIN`: see [`Self::plain`].
    fn run_loop<E: Engine, const PLAIN: bool>(
        &mut self,
        engine: &mut E,
        buffers: &AlignedBuffers,
        flight: &mut Flight,
    ) {
        loop {
            // A plain loop never sets a wake-up, a sync, a think time, a flow hold or a drain.
            if !PLAIN {
                flight.wake_ns = None;
            }
            let may_fill = !flight.stopping
                && !flight.paused
                && (PLAIN
                    || (!flight.sync_due
                        && !flight.think_due
                        && !flight.flow_held
                        && !flight.draining));
            if may_fill && self.fill::<E, PLAIN>(engine, buffers, flight).is_break() {
                return;
            }
            if flight.in_flight + flight.queued == 0 {
                match self.wait(flight) {
                    Next::Fill => continue,
                    Next::End => return,
                    Next::Reap => {}
                }
            }
            // fio's iodepth_low: a full queue drains to it before the next fill (never, at
            // the default, iodepth: a plain loop has no low watermark).
            let full = !PLAIN && flight.in_flight + flight.queued >= self.depth;
            let ControlFlow::Continue(reaped_ns) = self.reap::<E, PLAIN>(engine, flight) else {
                return;
            };
            self.complete::<E, PLAIN>(engine, buffers, flight, reaped_ns);
            self.check_flags::<PLAIN>(flight, reaped_ns);
            if !PLAIN {
                flight.draining = (full || flight.draining) && flight.in_flight > flight.low;
            }
        }
    }

    /// Prepares and submits I/Os until the queue is full, or the schedule has none due, or a
    /// sync, a think time or the end of the run comes first. Break: a submit failed.
    #[inline]
    fn fill<E: Engine, const PLAIN: bool>(
        &mut self,
        engine: &mut E,
        buffers: &AlignedBuffers,
        flight: &mut Flight,
    ) -> ControlFlow<()> {
        let think = self.spec.think;
        let sync_every = self.spec.sync_every;
        // The depth is tested once per fill: `room` is what is left of it, one less for each
        // I/O queued here (nothing else in a fill moves the depth or what is in flight), and
        // the free slots are never fewer (a slot is free unless queued or in flight).
        let mut room = self.depth.saturating_sub(flight.in_flight + flight.queued);
        while room > 0 {
            // A plain loop leaves the bytes to the test of the I/O's length below (the
            // shortest I/O is never longer than it).
            if !PLAIN && (self.budget_bytes < self.workload.shortest_bytes() || self.ios_left == 0)
            {
                // A size-based run has submitted its bytes: drain and end.
                flight.stopping = true;
                break;
            }
            if !PLAIN
                && let Some(member) = self.flow.as_mut()
                && !member.admit()
            {
                // fio's flow_threshold_exceeded: with flow_sleep, let the I/O in flight
                // finish and sleep; without, look again at once.
                if member.flow.sleep.is_zero() {
                    flight.wake_ns = Some(monotonic_ns());
                } else {
                    flight.flow_held = true;
                }
                break;
            }
            if !PLAIN && let Some(offset) = self.backlog.as_mut().and_then(|log| log.next_check()) {
                // fio's verify_backlog: a read of a logged block takes this I/O's place; it is
                // counted as a read and spends none of the job's size.
                let Some(slot) = flight.free.pop() else { break };
                self.prep_verify_read(engine, buffers, flight, slot, offset);
                room -= 1;
                continue;
            }
            let Some(direction) = self.next_direction::<PLAIN>(flight) else {
                break;
            };
            if !PLAIN && let Some(files) = self.files.as_mut() {
                files.switch(&mut self.workload, &mut self.fd);
            }
            let len = self.workload.len(direction);
            if u64::from(len) > self.budget_bytes {
                flight.stopping = true;
                break;
            }
            let Some(slot) = flight.free.pop() else { break };
            self.ios_left -= u64::from(!PLAIN); // a plain loop counts none (fio's number_ios)
            let generation = if PLAIN { 0 } else { self.workload.pass() };
            // The random map may cut the I/O short (never longer).
            let (offset_bytes, len) = self.workload.place(direction, len);
            if len == 0 {
                if self.placed_nothing::<PLAIN>(flight, slot) {
                    continue;
                }
                break;
            }
            self.budget_bytes -= u64::from(len);
            if !PLAIN && self.workload.take_wrap() && self.invalidate_on_wrap {
                // fio's loop_cache_invalidate: each pass of a buffered time-based
                // job reads the device, not what the last pass left in memory.
                // SAFETY: posix_fadvise only advises the kernel about this
                // descriptor's pages; a refusal leaves the pages cached, no more.
                unsafe { libc::posix_fadvise(self.fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
            }
            if direction == Direction::Write {
                self.write_data(buffers, slot as usize, offset_bytes, len, generation);
            }
            let entry = &mut flight.slots[slot as usize];
            entry.offset_bytes = offset_bytes;
            entry.sched_ns = match self.pacer.as_mut().filter(|_| !PLAIN) {
                Some(pacer) => pacer.take(direction, len).unwrap_or(0),
                None => 0,
            };
            entry.len_bytes = len;
            entry.io.direction = direction;
            entry.io.offset_bytes = offset_bytes;
            entry.io.len_bytes = len;
            entry.io.buf = buffers.slot_ptr(slot as usize);
            if !PLAIN && let Some(files) = self.files.as_mut() {
                files.picker.account(len);
                entry.io.fd = self.fd;
            }
            if !PLAIN && let Some(picker) = self.cmdprio.as_mut() {
                entry.io.ioprio = picker.next(direction, len);
            }
            entry.retries = 0;
            entry.verifying = false;
            engine.prep(&entry.io);
            flight.unstamped.push(slot);
            flight.queued += 1;
            room -= 1;
            if !PLAIN && let Some(think) = think.filter(|t| t.on_issue) {
                self.think_count += 1;
                if self.think_count >= think.blocks {
                    self.think_count = 0;
                    flight.think_due = true;
                    break;
                }
            }
            if !PLAIN
                && direction == Direction::Write
                && let Some(every) = sync_every
            {
                flight.writes_since_sync += 1;
                if flight.writes_since_sync >= every.every_writes() {
                    flight.sync_due = true;
                    break;
                }
            }
            // A full queue goes on to reap, whose one syscall sends what is queued and waits
            // (submit and wait in one io_uring_enter): each I/O still goes out as soon as it
            // is ready, as fio's iodepth_batch_submit asks, without a syscall of its own.
            if flight.queued >= flight.batch && room > 0 {
                // Counted during a ramp too, and dropped when recording starts: no test of
                // `recording` per call.
                self.depths
                    .submitted(flight.in_flight + flight.queued, flight.queued);
                if let Err(err) = flight.submit(engine) {
                    self.fail("submit", None, &err);
                    return ControlFlow::Break(());
                }
                flight.in_flight += flight.queued;
                flight.queued = 0;
            }
        }
        ControlFlow::Continue(())
    }

    /// The I/O of `slot` was placed nowhere (the random map or the emulated zones had no
    /// room): the slot and its count go back. True when the fill places again (a zone came
    /// free), false when it stops (for the I/O in flight, or at the end).
    #[cold]
    fn placed_nothing<const PLAIN: bool>(&mut self, flight: &mut Flight, slot: u32) -> bool {
        flight.free.push(slot);
        self.ios_left += u64::from(!PLAIN);
        if self.workload.zone_busy() {
            // Emulated zones: another clone's I/O holds the zone (fio's zone lock). With I/O
            // of its own in flight the worker completes it first, as fio's io_u_quiesce; with
            // none it waits for the zone, then places again.
            if flight.in_flight + flight.queued > 0 {
                return false;
            }
            self.workload.wait_zone(ZONE_WAIT);
            let now = monotonic_ns();
            if self.control.stop.load(Ordering::Relaxed)
                || (now >= self.deadline_ns && self.runtime_over(now))
            {
                flight.stopping = true;
                return false;
            }
            return true;
        }
        // Emulated zones hold nothing (more) to read: the worker ends, as fio's.
        flight.stopping = true;
        false
    }

    /// The next I/O's direction; None when a paced worker has none due yet (`wake_ns` then
    /// says when one is).
    #[inline(always)]
    fn next_direction<const PLAIN: bool>(&mut self, flight: &mut Flight) -> Option<Direction> {
        if PLAIN || self.pacer.is_none() {
            return Some(self.workload.direction());
        }
        self.next_paced_direction(flight)
    }

    /// [`Self::next_direction`] of a paced worker (out of line: the unpaced one is a call less).
    #[inline(never)]
    fn next_paced_direction(&mut self, flight: &mut Flight) -> Option<Direction> {
        let Some(pacer) = self.pacer.as_mut() else {
            return Some(self.workload.direction());
        };
        // Time the process did not run moves the schedule, as it moves the deadline: the
        // device is not to blame for it.
        let stalled = self.control.stalled_ns.load(Ordering::Relaxed);
        if stalled > self.stall_seen_ns {
            pacer.shift(stalled - self.stall_seen_ns);
            self.stall_seen_ns = stalled;
        }
        let (reads, writes) = self.workload.directions();
        let workload = &mut self.workload;
        match pacer.choose(monotonic_ns(), reads, writes, || workload.direction()) {
            // A trim job's "writes" are its trims (and trimwrite's writes), paced together.
            Ok(Direction::Write) if self.workload.trims() => Some(self.workload.direction()),
            Ok(direction) => Some(direction),
            Err(at) => {
                flight.wake_ns = Some(at);
                None
            }
        }
    }

    /// Prepares a backlog check: a read of the logged block at `offset` into `slot`.
    fn prep_verify_read<E: Engine>(
        &mut self,
        engine: &mut E,
        buffers: &AlignedBuffers,
        flight: &mut Flight,
        slot: u32,
        offset: u64,
    ) {
        let len = u32::try_from(self.spec.block_size_bytes).unwrap_or(u32::MAX);
        let entry = &mut flight.slots[slot as usize];
        entry.offset_bytes = offset;
        entry.sched_ns = 0;
        entry.len_bytes = len;
        entry.io.direction = Direction::Read;
        entry.io.offset_bytes = offset;
        entry.io.len_bytes = len;
        entry.io.buf = buffers.slot_ptr(slot as usize);
        entry.io.ioprio = 0;
        entry.retries = 0;
        entry.verifying = true;
        engine.prep(&entry.io);
        flight.unstamped.push(slot);
        flight.queued += 1;
    }

    /// Fills a write's buffer: the verify header and pattern (`--verify`), or fresh random
    /// bytes (`BufferData::Refill`); else the buffer is written as it is.
    #[inline]
    fn write_data(
        &mut self,
        buffers: &AlignedBuffers,
        slot: usize,
        offset_bytes: u64,
        len: u32,
        generation: u32,
    ) {
        if let Some(verify) = self.spec.verify {
            // SAFETY: the slot was just taken from the free list, so no I/O is in flight on
            // its buffer, which holds at least block_size >= len bytes and lives as long as
            // `buffers`.
            let block =
                unsafe { std::slice::from_raw_parts_mut(buffers.slot_ptr(slot), len as usize) };
            crate::bench::verify::fill_block(
                block,
                &crate::bench::verify::Layout {
                    kind: verify.kind,
                    pattern: self.spec.verify_pattern.as_ref(),
                    interval: verify.interval as usize,
                },
                &crate::bench::verify::BlockId {
                    offset: offset_bytes,
                    job: 0,
                    generation,
                    seed: self.verify_seed,
                },
            );
        } else if let (BufferData::Shaped(_), Some(shaper)) = (self.spec.data, &mut self.shaper) {
            // SAFETY: as below: a free slot, no I/O in flight on its buffer of at least
            // block_size >= len bytes.
            let block =
                unsafe { std::slice::from_raw_parts_mut(buffers.slot_ptr(slot), len as usize) };
            shaper.fill(block);
        } else if self.spec.data == BufferData::Refill {
            // SAFETY: as above: a free slot, no I/O in flight on its buffer of at least
            // block_size >= len bytes.
            let block =
                unsafe { std::slice::from_raw_parts_mut(buffers.slot_ptr(slot), len as usize) };
            crate::bench::buffer::fill_random_from(block, &mut self.refill_state);
        }
    }

    /// Nothing in flight: sync, think, end, pause, or (paced) sleep until the next I/O is due.
    fn wait(&mut self, flight: &mut Flight) -> Next {
        if flight.sync_due && !flight.stopping {
            self.sync(self.spec.sync_every);
            flight.writes_since_sync = 0;
            flight.sync_due = false;
            if self.fault.is_some() {
                flight.stopping = true;
            }
            return Next::Fill;
        }
        if let (true, false, Some(think)) = (flight.think_due, flight.stopping, self.spec.think) {
            // fio's thinktime: the I/O in flight has completed; pause, then go on.
            self.think(think);
            flight.think_due = false;
            let now = monotonic_ns();
            self.check_rate_min(now);
            if (now >= self.deadline_ns && self.runtime_over(now))
                || self.control.stop.load(Ordering::Relaxed)
            {
                flight.stopping = true;
            }
            if self.control.paused.load(Ordering::Relaxed) {
                flight.paused = true;
            }
            return Next::Fill;
        }
        if flight.stopping {
            if self.spec.end_fsync && self.fault.is_none() {
                self.sync(Some(SyncEvery::Fsync(1)));
            }
            return Next::End;
        }
        if flight.paused {
            self.pause();
            flight.paused = false;
            flight.stopping = self.control.stop.load(Ordering::Relaxed);
            return Next::Fill;
        }
        if flight.flow_held {
            flight.flow_held = false;
            let sleep = self
                .flow
                .as_ref()
                .map_or(0, |m| crate::record::nanos(m.flow.sleep));
            flight.wake_ns = Some(monotonic_ns().saturating_add(sleep));
        }
        let Some(at) = flight.wake_ns else {
            return Next::Reap;
        };
        // Paced and idle: sleep until the next I/O is due (or a tick, the deadline, or a look
        // at the flags comes first).
        let now = monotonic_ns();
        let until = self.wait_until(at, now);
        if until > now {
            std::thread::sleep(Duration::from_nanos(until - now));
        }
        let now = monotonic_ns();
        self.start_recording_at(now);
        self.check_flags::<false>(flight, now);
        Next::Fill
    }

    /// Submit times for what was prepared but not yet submitted, then the completions (for a
    /// paced worker only until its next I/O is due). Continue: the time they were reaped;
    /// Break: the engine failed. An engine that times its submit call sends what is queued
    /// first, on its own, as fio's commit before its getevents: the submit call's return is
    /// the end of fio's slat and the start of its clat.
    #[inline(always)]
    fn reap<E: Engine, const PLAIN: bool>(
        &mut self,
        engine: &mut E,
        flight: &mut Flight,
    ) -> ControlFlow<(), u64> {
        // What is queued goes out now (a submit of its own for an engine that times it, else
        // with the reap's call): one submit call at the depth it makes, as fio's commit.
        if flight.queued > 0 {
            self.depths
                .submitted(flight.in_flight + flight.queued, flight.queued);
        }
        if !flight.unstamped.is_empty() {
            if engine.times_submit() {
                if let Err(err) = flight.submit(engine) {
                    self.fail("submit", None, &err);
                    return ControlFlow::Break(());
                }
            } else {
                let now = monotonic_ns();
                flight.stamp(now, now);
            }
        }
        // A plain loop is never paced: no wake-up to reap within.
        let reaped = match flight.wake_ns.filter(|_| !PLAIN) {
            Some(at) => {
                let now = monotonic_ns();
                let wait_ns = self.wait_until(at, now).saturating_sub(now);
                engine.reap_within(&mut flight.completions, flight.reap_max, wait_ns)
            }
            None if flight.reap_min == 1 => engine.reap(&mut flight.completions, flight.reap_max),
            // Nothing of ours in flight: nothing to wait or poll for.
            None if flight.in_flight + flight.queued == 0 => Ok(()),
            None => engine.reap_min(
                &mut flight.completions,
                flight.reap_min.min(flight.in_flight + flight.queued),
                flight.reap_max,
            ),
        };
        if let Err(err) = reaped {
            self.fail("submit", None, &err);
            return ControlFlow::Break(());
        }
        // A reap call that took completions (a paced wait that timed out took none, and a
        // polling reap returns only with one; fio's sleep and poll count none either).
        if !flight.completions.is_empty() {
            self.depths.reaped(flight.completions.len());
        }
        flight.in_flight += flight.queued;
        flight.queued = 0;
        let reaped_ns = monotonic_ns();
        self.start_recording_at(reaped_ns);
        ControlFlow::Continue(reaped_ns)
    }

    /// Each reaped I/O: resubmitted (a transient error, a short transfer), failed, or checked
    /// (`--verify`) and counted; its slot freed.
    #[inline]
    fn complete<E: Engine, const PLAIN: bool>(
        &mut self,
        engine: &mut E,
        buffers: &AlignedBuffers,
        flight: &mut Flight,
        reaped_ns: u64,
    ) {
        // By index, then one clear (as `Flight::stamp`); nothing here adds completions.
        for at in 0..flight.completions.len() {
            let completion = flight.completions[at];
            flight.in_flight -= 1;
            let slot = completion.slot as usize;
            let entry = &mut flight.slots[slot];
            let io = &mut entry.io;
            if completion.result < 0 {
                let errno = -completion.result;
                if is_transient(errno) && entry.retries < MAX_IO_RETRIES {
                    entry.retries += 1;
                    self.cur.retries += 1;
                    engine.prep(io);
                    flight.queued += 1;
                    continue;
                }
                self.workload.release(io.direction, entry.offset_bytes);
                flight.free.push(completion.slot);
                if self.goes_on_past(io.direction, errno) {
                    continue;
                }
                // fio's fill_device: a full filesystem or device is the end of the job.
                let full = matches!(errno, libc::ENOSPC | libc::EDQUOT);
                if !(full && self.spec.fill_device && io.direction == Direction::Write) {
                    self.fail_errno(direction_name(io.direction), Some(io.offset_bytes), errno);
                }
                flight.stopping = true;
                continue;
            }
            let done = completion.result.unsigned_abs();
            if done < io.len_bytes {
                if done == 0 {
                    self.workload.release(io.direction, entry.offset_bytes);
                    flight.free.push(completion.slot);
                    self.fail_errno(direction_name(io.direction), Some(io.offset_bytes), 0);
                    flight.stopping = true;
                    continue;
                }
                // A short transfer: send the rest; latency keeps the first submit time.
                io.offset_bytes += u64::from(done);
                // SAFETY: done < len_bytes, so the pointer stays inside this slot's buffer.
                io.buf = unsafe { io.buf.add(done as usize) };
                io.len_bytes -= done;
                self.cur.retries += 1;
                engine.prep(io);
                flight.queued += 1;
                continue;
            }
            if !PLAIN {
                self.workload.release(io.direction, entry.offset_bytes);
            }
            if !PLAIN
                && let Some(verify) = self
                    .spec
                    .verify
                    .filter(|v| io.direction == Direction::Read && (v.only || entry.verifying))
            {
                // SAFETY: the read has completed, so nothing is in flight on this slot's
                // buffer, which holds at least the I/O's issued length.
                let block = unsafe {
                    std::slice::from_raw_parts(buffers.slot_ptr(slot), entry.len_bytes as usize)
                };
                if self.files.is_some() {
                    self.checking_fd = io.fd;
                }
                if !self.check_block(block, entry.offset_bytes, verify) {
                    flight.stopping = true;
                }
            }
            if !PLAIN
                && let (Some(backlog), Direction::Write) = (self.backlog.as_mut(), io.direction)
            {
                backlog.logged(entry.offset_bytes);
            }
            if !PLAIN && let Some(sg) = &mut self.sg {
                let checked = if io.direction == Direction::Read {
                    // SAFETY: as for --verify above: the read has completed on this slot.
                    let block = unsafe {
                        std::slice::from_raw_parts(buffers.slot_ptr(slot), entry.len_bytes as usize)
                    };
                    sg.check_read(block, entry.offset_bytes)
                        .map_err(|detail| (crate::bench::sg::MISCOMPARE_ERRNO, detail))
                } else {
                    sg.check_write(self.fd, entry.offset_bytes, entry.len_bytes as usize)
                };
                if let Err((errno, detail)) = checked {
                    flight.free.push(completion.slot);
                    // A failed compare (or read-back) is the verifying command's error: in
                    // fio an EIO of class write whatever this emulation's direction, so
                    // continue_on_error=write, io or all count it and the job goes on.
                    let class = crate::bench::spec::ErrorClass::Write;
                    if self.goes_on_past_as(class, io.direction, errno) {
                        continue;
                    }
                    let first = self.fault.is_none();
                    let operation = direction_name(io.direction);
                    self.fail_errno(operation, Some(entry.offset_bytes), errno);
                    if let Some(fault) = self.fault.as_mut().filter(|_| first) {
                        fault.detail = Some(detail);
                    }
                    flight.stopping = true;
                    continue;
                }
            }
            if !PLAIN && let Some(think) = self.spec.think.filter(|t| !t.on_issue) {
                self.think_count += 1;
                if self.think_count >= think.blocks {
                    self.think_count = 0;
                    flight.think_due = true;
                }
            }
            if self.recording {
                self.count::<PLAIN>(entry, reaped_ns, engine.times_submit());
            }
            flight.free.push(completion.slot);
        }
        flight.completions.clear();
    }

    /// One completed I/O into this tick's counters and histograms and the rate floor's cycle.
    /// Once per I/O, from one place: always inlined.
    #[inline(always)]
    fn count<const PLAIN: bool>(&mut self, entry: &Slot, reaped_ns: u64, split: bool) {
        if !PLAIN {
            // The rate floor's cycle (a plain loop has no floor).
            let side = usize::from(entry.io.direction != Direction::Read);
            self.cycle_bytes[side] += u64::from(entry.len_bytes);
            self.cycle_ios[side] += 1;
        }
        let latency_ns = reaped_ns.saturating_sub(entry.submit_ns);
        let stats = match entry.io.direction {
            Direction::Read => &mut self.cur.read,
            Direction::Write => &mut self.cur.write,
            Direction::Trim => &mut self.cur.trim,
        };
        let sched_ns = match if PLAIN { 0 } else { entry.sched_ns } {
            0 => None,
            due => Some(reaped_ns.saturating_sub(due)),
        };
        // fio's slat where the engine times its submit call; 0 (and no _slat lines) else.
        let slat_ns = if split {
            entry.issued_ns.saturating_sub(entry.submit_ns)
        } else {
            0
        };
        // fio's slat and clat; `latency_ns` (fio's lat) is their sum.
        let split_ns = split.then(|| (slat_ns, reaped_ns.saturating_sub(entry.issued_ns)));
        // Settled when the tick is handed over (`hand_off`, `finish`).
        stats.record_unsettled(u64::from(entry.len_bytes), latency_ns, sched_ns, split_ns);
        if !PLAIN && let Some(search) = self.latency.as_mut() {
            let step = search.observe(entry.submit_ns, latency_ns);
            self.latency_step(step);
        }
        if !PLAIN && let Some(log) = self.iolog.as_mut() {
            log.io(
                entry.submit_ns,
                slat_ns,
                reaped_ns,
                entry.io.direction,
                entry.len_bytes,
                entry.offset_bytes,
                entry.io.ioprio,
            );
        }
    }

    /// The ramp is over at `now_ns`: counting starts.
    #[inline]
    fn start_recording_at(&mut self, now_ns: u64) {
        if !self.recording && now_ns >= self.record_from_ns {
            self.recording = true;
            self.cur.reset(now_ns);
            // What the ramp's calls counted.
            self.depths = RawDepths::default();
            self.cycle_start_ns = now_ns;
            if let Some(log) = self.iolog.as_mut() {
                log.start(now_ns);
            }
            if let Some(search) = self.latency.as_mut() {
                // fio's search starts over after the ramp.
                search.restart(now_ns);
                self.depth = search.depth() as usize;
            }
        }
    }

    /// What the `latency_target` search asks: a new in-flight limit, the end of the job
    /// (settled), or its failure (a 100th-percentile target missed at depth 1).
    fn latency_step(&mut self, step: Step) {
        match step {
            Step::Keep => {}
            Step::Depth(depth) => self.depth = depth as usize,
            Step::Done => self.latency_done = true,
            Step::Missed { latency_ns } => {
                if self.fault.is_none() {
                    self.fail_errno("latency_target", None, libc::ETIMEDOUT);
                    if let (Some(fault), Some(t)) = (self.fault.as_mut(), self.spec.latency_target)
                    {
                        fault.detail = Some(format!(
                            "an I/O took {latency_ns} ns at depth 1, over latency_target {} ns",
                            crate::record::nanos(t.target)
                        ));
                    }
                }
                self.latency_done = true;
            }
        }
    }

    /// After a reap or a paced sleep: the tick's hand-off, then whether the rate floor, the
    /// deadline or the stop flag ends the run, or the pause flag pauses it. Once per reap:
    /// always inlined. `PLAIN`: see [`Self::plain`] (no rate floor, no latency search).
    #[inline(always)]
    fn check_flags<const PLAIN: bool>(&mut self, flight: &mut Flight, now_ns: u64) {
        // The clock first: `recording` is tested only at a tick's end.
        if now_ns >= self.next_tick_ns && self.recording {
            self.hand_off(now_ns);
        }
        if !PLAIN && self.check_rate_min(now_ns) {
            flight.stopping = true;
        }
        if !PLAIN && let Some(search) = self.latency.as_mut().filter(|_| self.recording) {
            let step = search.check(now_ns);
            self.latency_step(step);
            flight.stopping |= self.latency_done;
        }
        if (now_ns >= self.deadline_ns && self.runtime_over(now_ns))
            || self.control.stop.load(Ordering::Relaxed)
        {
            flight.stopping = true;
        }
        if self.control.paused.load(Ordering::Relaxed) {
            flight.paused = true;
        }
    }
    /// Checks one block read back; false when `--verify-fatal` stops the run here.
    fn check_block(
        &mut self,
        block: &[u8],
        offset: u64,
        verify: crate::bench::spec::VerifySpec,
    ) -> bool {
        // --verify-fatal has stopped the run: what still drains is not checked.
        if verify.fatal && self.fault.is_some() {
            return false;
        }
        self.verify_out.checked += 1;
        self.verify_live.checked.fetch_add(1, Ordering::Relaxed);
        let expect = crate::bench::verify::Expect {
            offset,
            job: 0,
            seed: self.verify_seed,
            generation: None,
        };
        let layout = crate::bench::verify::Layout {
            kind: verify.kind,
            pattern: self.spec.verify_pattern.as_ref(),
            interval: verify.interval as usize,
        };
        let Err(mismatch) = crate::bench::verify::check_block(block, &layout, &expect) else {
            return true;
        };
        self.verify_out.failed += 1;
        self.verify_live.failed.fetch_add(1, Ordering::Relaxed);
        self.verify_live
            .first_failed
            .fetch_min(offset, Ordering::Relaxed);
        // A worker over several files names the one that failed.
        let what = if self.files.is_some() || self.checking_fd >= 0 {
            format!("{}: {}", fd_path(self.checking_fd), mismatch.what)
        } else {
            mismatch.what.clone()
        };
        let failure = VerifyFailure {
            offset,
            worker: self.worker,
            header: mismatch.kind == crate::bench::verify::MismatchKind::Header,
            what: what.clone(),
            at: mismatch.at,
            expected_hex: mismatch.expected_hex.clone(),
            found_hex: mismatch.found_hex.clone(),
        };
        if self.verify_out.failures.len() < VERIFY_FAILURES_KEPT {
            self.verify_out.failures.push(failure);
        }
        // fio's continue_on_error=verify: a mismatch is a failed I/O of class verify (errno
        // EILSEQ), counted, and the job goes on; --verify-fatal still stops it (fio's
        // verify_fatal ends the job whatever continue_on_error says).
        if !verify.fatal
            && self
                .spec
                .errors
                .continues(crate::bench::spec::ErrorClass::Verify, libc::EILSEQ)
        {
            self.verify_out.passed += 1;
            return true;
        }
        if verify.fatal && self.fault.is_none() {
            self.fault = Some(IoFault {
                worker: self.worker,
                operation: "verify",
                offset_bytes: Some(offset),
                errno: 0,
                detail: Some(format!("{what} (--verify-fatal: stopped here)")),
            });
            self.control.stop.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// A verifying write job's read-back: every block it wrote, once, in the order written,
    /// through a fresh engine of the job's kind with up to its iodepth reads in flight (as
    /// fio's verify phase), each checked and timed into the outcome's `reads` (fio counts
    /// them in the job's read; the window is closed).
    fn verify_pass(
        &mut self,
        buffers: &AlignedBuffers,
        engine: EngineKind,
        verify: crate::bench::spec::VerifySpec,
    ) {
        let started = monotonic_ns();
        match self.files.take() {
            None => {
                // With a backlog, what its checks during the run left.
                let offsets: Vec<u64> = match self.backlog.as_mut() {
                    Some(backlog) => backlog.rest(),
                    None => self.workload.written_offsets().collect(),
                };
                self.verify_file(buffers, engine, verify, self.fd, &offsets);
            }
            // Each file's written blocks, read back on its own descriptor.
            Some(files) => {
                for (f, &fd) in files.fds.iter().enumerate() {
                    let offsets: Vec<u64> = files.workloads[f]
                        .as_ref()
                        .unwrap_or(&self.workload)
                        .written_offsets()
                        .collect();
                    self.checking_fd = fd;
                    self.verify_file(buffers, engine, verify, fd, &offsets);
                    if self.control.stop.load(Ordering::Relaxed)
                        || (verify.fatal && self.fault.is_some())
                    {
                        break;
                    }
                }
                self.files = Some(files);
            }
        }
        self.verify_out.pass_ns = monotonic_ns().saturating_sub(started);
    }

    /// Reads back and checks the blocks at `offsets` of the file at `fd`.
    fn verify_file(
        &mut self,
        buffers: &AlignedBuffers,
        engine: EngineKind,
        verify: crate::bench::spec::VerifySpec,
        fd: RawFd,
        offsets: &[u64],
    ) {
        let len = u32::try_from(self.spec.block_size_bytes).unwrap_or(u32::MAX);
        self.verify_live.pass_blocks.fetch_add(
            u64::try_from(offsets.len()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        let (depth, control, spec) = (self.depth, self.control, self.spec.clone());
        let reap_max = spec.iodepth_batch_complete as usize;
        let mut seen = |block: &crate::bench::readback::Block<'_>| {
            if block.result < 0 || block.data.len() != len as usize {
                let errno = if block.result < 0 { -block.result } else { 0 };
                self.fail_errno("read (verifying)", Some(block.offset), errno);
                return false;
            }
            self.verify_out
                .reads
                .record(u64::from(len), block.latency_ns);
            let go_on = self.check_block(block.data, block.offset, verify);
            self.verify_live
                .pass_checked
                .fetch_add(1, Ordering::Relaxed);
            go_on
        };
        let stop = &control.stop;
        let ring = match engine {
            EngineKind::IoUring => {
                UringEngine::new(fd, depth as u32, buffers, len as usize, &spec.uring).ok()
            }
            _ => None,
        };
        let result = match (engine, ring) {
            (_, Some((mut ring, _))) => crate::bench::readback::read_back(
                &mut ring,
                buffers,
                (depth, reap_max),
                len,
                offsets,
                stop,
                &mut seen,
            ),
            (EngineKind::Libaio, _) => {
                LibaioEngine::new(fd, depth as u32).and_then(|(mut aio, _)| {
                    crate::bench::readback::read_back(
                        &mut aio,
                        buffers,
                        (depth, reap_max),
                        len,
                        offsets,
                        stop,
                        &mut seen,
                    )
                })
            }
            // psync and the rest (or io_uring that would not set up): one read at a time.
            _ => crate::bench::readback::read_back(
                &mut PsyncEngine::new(fd, 1),
                buffers,
                (1, 1),
                len,
                offsets,
                stop,
                &mut seen,
            ),
        };
        if let Err(err) = result {
            self.fail("read (verifying)", None, &err);
        }
    }

    /// Blocks that failed without `--verify-fatal` still fail the run, once it is over: the
    /// first of them is its fault, with the count.
    fn verify_summary_fault(&mut self) {
        let out = &self.verify_out;
        // Failures the job went on past (continue_on_error=verify) are its counted errors.
        if out.failed <= out.passed || self.fault.is_some() {
            return;
        }
        let Some(first) = out.failures.first() else {
            return;
        };
        self.fault = Some(IoFault {
            worker: self.worker,
            operation: "verify",
            offset_bytes: Some(first.offset),
            errno: 0,
            detail: Some(format!(
                "{} of {} blocks failed their check; the first: {}",
                out.failed, out.checked, first.what
            )),
        });
    }

    /// How long a paced worker may wait at `now_ns` for its next I/O due at `at_ns`: not past
    /// the next tick (or the start of recording), the deadline, or [`PACED_WAIT_MAX_NS`].
    fn wait_until(&self, at_ns: u64, now_ns: u64) -> u64 {
        let tick = if self.recording {
            self.next_tick_ns
        } else {
            self.record_from_ns
        };
        at_ns
            .min(tick)
            .min(self.deadline_ns)
            .min(now_ns.saturating_add(PACED_WAIT_MAX_NS))
    }

    /// fio's think time: spins the CPU for `spin`, then sleeps the rest of the pause, still
    /// handing over ticks; ends early when the run is stopped or its runtime is over.
    fn think(&mut self, think: crate::bench::spec::ThinkTime) {
        let start = monotonic_ns();
        let spin_end = start.saturating_add(crate::record::nanos(think.spin));
        let end = start.saturating_add(crate::record::nanos(think.pause));
        loop {
            let now = monotonic_ns();
            if !self.recording && now >= self.record_from_ns {
                self.recording = true;
                self.cur.reset(now);
                self.depths = RawDepths::default();
                self.cycle_start_ns = now;
            }
            if self.recording && now >= self.next_tick_ns {
                self.hand_off(now);
            }
            if now >= end
                || self.control.stop.load(Ordering::Relaxed)
                || (now >= self.deadline_ns && self.runtime_over(now))
            {
                return;
            }
            if now < spin_end {
                std::hint::spin_loop();
                continue;
            }
            let until = self.wait_until(end, now).max(now + 100_000).min(end);
            std::thread::sleep(Duration::from_nanos(until.saturating_sub(now)));
        }
    }

    /// fio's `rate_min`/`rate_iops_min`: at the end of each `rate_cycle` after the ramp, a
    /// direction the job does that moved less than its floor fails the job. True when it did.
    /// A job without a floor pays one test here, inlined, not a call per reap.
    #[inline]
    fn check_rate_min(&mut self, now_ns: u64) -> bool {
        let Some(floor) = self.spec.rate_min else {
            return false;
        };
        let cycle_ns = crate::record::nanos(floor.cycle);
        if !self.recording || now_ns.saturating_sub(self.cycle_start_ns) < cycle_ns {
            return false;
        }
        self.end_rate_cycle(floor, now_ns)
    }

    /// The end of a `rate_cycle` at `now_ns`: each direction's rate against the floor, and a
    /// new cycle. True when the job failed its floor.
    #[inline(never)]
    fn end_rate_cycle(&mut self, floor: crate::bench::spec::RateMin, now_ns: u64) -> bool {
        let elapsed_ns = now_ns - self.cycle_start_ns;
        let (reads, writes) = self.workload.directions();
        let per_sec = |count: u64| {
            u64::try_from(u128::from(count) * 1_000_000_000 / u128::from(elapsed_ns.max(1)))
                .unwrap_or(u64::MAX)
        };
        let mut shortfall = None;
        for (side, does, name) in [(0, reads, "read"), (1, writes, "write")] {
            if !does {
                continue;
            }
            let bytes = per_sec(self.cycle_bytes[side]);
            let ios = per_sec(self.cycle_ios[side]);
            if let Some(min) = floor.bytes_per_sec.filter(|min| bytes < *min) {
                shortfall = Some(format!(
                    "{name}s moved {}/s over {} ms, below rate_min {}/s",
                    format_bytes(bytes),
                    elapsed_ns / 1_000_000,
                    format_bytes(min)
                ));
                break;
            }
            if let Some(min) = floor.iops.filter(|min| ios < *min) {
                shortfall = Some(format!(
                    "{name}s ran {ios} IOPS over {} ms, below rate_iops_min {min}",
                    elapsed_ns / 1_000_000
                ));
                break;
            }
        }
        self.cycle_start_ns = now_ns;
        self.cycle_bytes = [0; 2];
        self.cycle_ios = [0; 2];
        let Some(detail) = shortfall else {
            return false;
        };
        if self.fault.is_none() {
            self.fault = Some(IoFault {
                worker: self.worker,
                operation: "rate",
                offset_bytes: None,
                errno: 0,
                detail: Some(detail),
            });
        }
        self.control.stop.store(true, Ordering::Relaxed);
        true
    }

    /// Whether the runtime is over at `now_ns` (past the deadline): the session's stalled time
    /// moves the deadline. Right after a stall this thread may run before the session has
    /// looked; while the session's last wake-up is a stall ago, the end waits for it (the
    /// workers go on meanwhile, as they would have without the stall).
    fn runtime_over(&self, now_ns: u64) -> bool {
        let awake_ns = self.control.session_awake_ns.load(Ordering::Acquire);
        if now_ns.saturating_sub(awake_ns) >= STALL_MIN_NS {
            return false;
        }
        let stalled_ns = self.control.stalled_ns.load(Ordering::Relaxed);
        now_ns >= self.deadline_ns.saturating_add(stalled_ns)
    }

    fn sync(&mut self, every: Option<SyncEvery>) {
        let start_ns = monotonic_ns();
        let (operation, result) = match every {
            // SAFETY: fsync/fdatasync on an fd that stays open for the run.
            Some(SyncEvery::Fsync(_)) => ("fsync", unsafe { libc::fsync(self.fd) }),
            // SAFETY: as above.
            _ => ("fdatasync", unsafe { libc::fdatasync(self.fd) }),
        };
        let end_ns = monotonic_ns();
        if result < 0 {
            let err = std::io::Error::last_os_error();
            self.fail(operation, None, &err);
            return;
        }
        if self.recording {
            self.cur.sync.record(0, end_ns.saturating_sub(start_ns));
        }
    }

    /// Waits while paused (in-flight I/O already drained), still handing over empty ticks;
    /// the deadline moves by the time spent paused.
    fn pause(&mut self) {
        let paused_at = monotonic_ns();
        while self.control.paused.load(Ordering::Relaxed)
            && !self.control.stop.load(Ordering::Relaxed)
        {
            std::thread::sleep(Duration::from_millis(5));
            let now = monotonic_ns();
            if self.recording && now >= self.next_tick_ns {
                self.hand_off(now);
            }
        }
        let paused_ns = monotonic_ns().saturating_sub(paused_at);
        self.deadline_ns = self.deadline_ns.saturating_add(paused_ns);
        if let Some(pacer) = self.pacer.as_mut() {
            pacer.shift(paused_ns);
        }
        if !self.recording {
            self.record_from_ns = self.record_from_ns.saturating_add(paused_ns);
        }
        // A paused cycle is not the device's: the rate floor starts a new one.
        self.cycle_start_ns = monotonic_ns();
        self.cycle_bytes = [0; 2];
        self.cycle_ios = [0; 2];
    }

    fn fail(&mut self, operation: &'static str, offset_bytes: Option<u64>, err: &std::io::Error) {
        let errno = err.raw_os_error().unwrap_or(libc::EIO);
        self.fail_errno(operation, offset_bytes, errno);
    }

    /// fio's continue_on_error: whether the job goes on past a failed I/O in `direction` with
    /// `errno`, its class as fio's (EILSEQ is verify's, else the direction's); one it goes on
    /// past is counted (fio's `total_err`, `first_error`, the direction's failed I/Os).
    #[cold]
    fn goes_on_past(&mut self, direction: Direction, errno: i32) -> bool {
        let class = crate::bench::spec::ErrorClass::of(direction == Direction::Read, errno);
        self.goes_on_past_as(class, direction, errno)
    }

    /// [`Self::goes_on_past`] for a failed I/O whose class is known (the sg engine's checks).
    #[cold]
    fn goes_on_past_as(
        &mut self,
        class: crate::bench::spec::ErrorClass,
        direction: Direction,
        errno: i32,
    ) -> bool {
        if !self.spec.errors.continues(class, errno) {
            return false;
        }
        self.cur.errors += 1;
        self.cur.failed[direction as usize] += 1;
        if self.first_error == 0 {
            self.first_error = errno;
            self.cur.first_error = errno;
        }
        true
    }

    /// Keeps the first fault of this worker (`errno` 0: an unexpected end of file or device)
    /// and tells every worker to stop.
    fn fail_errno(&mut self, operation: &'static str, offset_bytes: Option<u64>, errno: i32) {
        if self.fault.is_none() {
            self.fault = Some(IoFault {
                worker: self.worker,
                operation,
                offset_bytes,
                errno,
                detail: None,
            });
        }
        self.control.stop.store(true, Ordering::Relaxed);
    }

    /// Sends the tick's stats and starts a new tick on a spare; keeps recording into the same
    /// stats when the queue is full or no spare has come back yet. Once per tick: out of the
    /// loop's line (and a function of its own in a profile, as `benches/null_callgrind.sh`
    /// counts it).
    #[cold]
    #[inline(never)]
    fn hand_off(&mut self, now_ns: u64) {
        self.cur.end_ns = now_ns;
        self.depths.drain_into(&mut self.cur.depths);
        self.cur.settle();
        while self.spares.len() < self.spares.capacity() {
            match self.links.spares.try_recv() {
                Ok(spare) => self.spares.push(spare),
                Err(_) => break,
            }
        }
        if let Some(mut next) = self.spares.pop() {
            next.reset(now_ns);
            let full = std::mem::replace(&mut self.cur, next);
            match self.links.reports.try_send(full) {
                Ok(()) => {}
                Err(TrySendError::Full(full) | TrySendError::Disconnected(full)) => {
                    let empty = std::mem::replace(&mut self.cur, full);
                    self.spares.push(empty);
                }
            }
        }
        // Next boundary on the common grid (record_from + k * tick), skipping missed ones.
        let since = now_ns.saturating_sub(self.record_from_ns);
        self.next_tick_ns = self.record_from_ns + (since / self.tick_ns + 1) * self.tick_ns;
    }

    fn finish(&mut self) -> Box<WorkerStats> {
        let now = self.ended.map_or_else(monotonic_ns, |(ns, _)| ns);
        if !self.recording {
            self.cur.reset(now);
            self.depths = RawDepths::default();
        }
        self.cur.end_ns = now;
        self.cur.last = true;
        self.depths.drain_into(&mut self.cur.depths);
        self.cur.settle();
        if let Some(log) = self.iolog.as_mut() {
            log.finish(now);
        }
        // fio's flow_exit_job: the weight leaves the group.
        self.flow = None;
        self.workload.release_zones();
        std::mem::replace(&mut self.cur, Box::new(WorkerStats::new(self.id)))
    }
}

/// Waits until the session has closed the device window or the step is stopped. The
/// session looks every 50 ms until every worker has ended, and every way out of a worker marks
/// it measured, so the window closes once the last one's measured I/O is over.
/// A worker's several files: which one each I/O goes to, and each one's own position (its
/// sequential offset or random map), as fio keeps per file.
struct Files {
    picker: crate::bench::fileset::FilePicker,
    fds: Vec<RawFd>,
    /// Each file's workload; the current file's is in the loop (`None` here).
    workloads: Vec<Option<Workload>>,
    current: usize,
}

impl Files {
    /// The files of `plan`, `None` with one.
    fn of(plan: &WorkerPlan) -> Option<Box<Self>> {
        let set = plan.spec.files?;
        if plan.files.len() < 2 {
            return None;
        }
        let workloads = (0..plan.files.len())
            .map(|f| {
                (f > 0).then(|| {
                    // A filesize range: each file its own length (the first one's is the job's).
                    let bytes = match set.sizes {
                        Some(_) => set.bytes_of(f as u32),
                        None => plan.working_set_bytes,
                    };
                    Workload::sliced(
                        &plan.spec,
                        bytes,
                        plan.worker,
                        plan.seed ^ (f as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                        (0, 1),
                    )
                })
            })
            .collect();
        Some(Box::new(Self {
            picker: crate::bench::fileset::FilePicker::new(set, plan.seed),
            fds: plan.files.iter().map(|f| f.as_raw_fd()).collect(),
            workloads,
            current: 0,
        }))
    }

    /// Moves `workload` and `fd` to the file of the next I/O.
    fn switch(&mut self, workload: &mut Workload, fd: &mut RawFd) {
        let next = self.picker.pick() as usize;
        if next == self.current {
            return;
        }
        let Some(incoming) = self.workloads[next].take() else {
            return;
        };
        self.workloads[self.current] = Some(std::mem::replace(workload, incoming));
        self.current = next;
        *fd = self.fds[next];
    }
}

/// The path of the open file `fd`, as the kernel names it (its number where it cannot).
fn fd_path(fd: RawFd) -> String {
    std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .map_or_else(|_| format!("descriptor {fd}"), |p| p.display().to_string())
}

fn wait_for_window_end(control: &StepControl) {
    while !control.window_closed.load(Ordering::Acquire) && !control.stop.load(Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Why a ring with IOPOLL or SQPOLL could not be set up, with the option to drop.
fn polling_refused(options: &crate::bench::spec::UringOptions, err: &std::io::Error) -> String {
    let asked: Vec<&str> = [
        (options.hipri, "hipri (IOPOLL)"),
        (options.sqpoll, "sqthread_poll (SQPOLL)"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    let errno = err.raw_os_error().unwrap_or(0);
    let why = if errno == libc::EPERM || errno == libc::EACCES {
        "io_uring is not allowed to this process"
    } else {
        "the kernel refused the ring"
    };
    format!(
        "io_uring with {} could not be set up: {why} ({}: {err}); drop {}",
        asked.join(" and "),
        crate::bench::engine::errno_name(errno),
        asked.join(" and ")
    )
}

fn direction_name(direction: Direction) -> &'static str {
    match direction {
        Direction::Read => "read",
        Direction::Write => "write",
        Direction::Trim => "trim",
    }
}

#[cfg(test)]
mod tests {
    //! The loop's handling of what a kernel may return (short transfers, EAGAIN, errors), driven
    //! by a scripted engine: the real kernel cannot be made to return these on demand.
    use std::collections::VecDeque;
    use std::sync::mpsc;

    use super::*;
    use crate::bench::spec::RwMode;

    #[test]
    fn a_start_barrier_releases_those_started_once_the_missing_are_given_up() {
        let barrier = Arc::new(StartBarrier::new(5));
        let started: Vec<_> = (0..2)
            .map(|_| {
                let b = barrier.clone();
                std::thread::spawn(move || b.wait())
            })
            .collect();
        // Two of the four workers never started; the session gives up on them and arrives.
        barrier.forfeit(2);
        barrier.wait();
        for handle in started {
            handle.join().unwrap();
        }
        // Forfeits after everyone arrived change nothing; a full barrier opens as usual.
        let full = StartBarrier::new(1);
        full.wait();
        full.forfeit(3);
    }

    /// Completes I/Os in order with results from a script (full length once it runs out),
    /// recording every I/O it was given.
    struct ScriptedEngine {
        script: VecDeque<i32>,
        queued: VecDeque<Io>,
        seen: Vec<(u64, u32, usize)>,
        /// Each I/O's own priority, as prepared.
        prios: Vec<u16>,
        /// Calls to `submit` (a full queue's I/Os go out with the reap instead).
        submits: usize,
        /// Each reap: the I/Os the engine held and the fewest it was to wait for.
        reaps: Vec<(usize, usize)>,
    }

    impl Engine for ScriptedEngine {
        fn prep(&mut self, io: &Io) {
            self.seen
                .push((io.offset_bytes, io.len_bytes, io.buf as usize));
            self.prios.push(io.ioprio);
            self.queued.push_back(*io);
        }
        fn submit(&mut self) -> std::io::Result<()> {
            self.submits += 1;
            Ok(())
        }
        fn reap(&mut self, out: &mut Vec<Completion>, max: usize) -> std::io::Result<()> {
            self.reap_min(out, 1, max)
        }
        fn reap_min(
            &mut self,
            out: &mut Vec<Completion>,
            min: usize,
            max: usize,
        ) -> std::io::Result<()> {
            self.reaps.push((self.queued.len(), min));
            for _ in 0..max {
                let Some(io) = self.queued.pop_front() else {
                    break;
                };
                let full = i32::try_from(io.len_bytes).unwrap();
                let result = self.script.pop_front().unwrap_or(full);
                out.push(Completion {
                    slot: io.slot,
                    result,
                });
            }
            Ok(())
        }
    }

    fn run(
        script: &[i32],
        runtime: &str,
    ) -> (ScriptedEngine, Box<WorkerStats>, Option<IoFault>, bool) {
        run_spec(
            JobSpec {
                rw: RwMode::Read,
                iodepth: 1,
                size_bytes: 16 << 10,
                size_explicit: true,
                runtime: crate::units::parse_duration(runtime).unwrap(),
                ..JobSpec::default()
            },
            script,
        )
    }

    /// One worker of `spec` on /dev/null through the null engine, over a 16 KiB working set.
    fn null_plan(spec: Arc<JobSpec>) -> WorkerPlan {
        WorkerPlan {
            files: Vec::new(),
            id: 0,
            worker: 0,
            spec,
            file: Arc::new(OwnedFd::from(std::fs::File::open("/dev/null").unwrap())),
            whole_region: false,
            working_set_bytes: 16 << 10,
            seed: 1,
            engine: EngineKind::Null,
            cpus: None,
            tick: Duration::from_millis(250),
            verify: Arc::default(),
            flow: None,
            zbd: None,
        }
    }

    /// The far ends of a test worker's links, held while it runs (a dropped end fails its sends).
    type FarEnds = (
        mpsc::Receiver<Box<WorkerStats>>,
        mpsc::Sender<Box<WorkerStats>>,
        mpsc::Receiver<(u32, Result<EngineSetup, SetupError>)>,
    );

    fn test_links() -> (WorkerLinks, FarEnds) {
        let (reports, reports_rx) = mpsc::sync_channel(4);
        let (spares_tx, spares) = mpsc::channel();
        let (ready, ready_rx) = mpsc::channel();
        let links = WorkerLinks {
            reports,
            spares,
            ready,
        };
        (links, (reports_rx, spares_tx, ready_rx))
    }

    fn run_spec(
        spec: JobSpec,
        script: &[i32],
    ) -> (ScriptedEngine, Box<WorkerStats>, Option<IoFault>, bool) {
        let depth = spec.iodepth as usize;
        let spec = Arc::new(spec);
        let plan = null_plan(spec);
        let control = StepControl::new(0);
        control.start_ns.store(monotonic_ns(), Ordering::Release);
        let (links, _ends) = test_links();
        let buffers = AlignedBuffers::new(depth, 4096, 1).unwrap();
        let mut state = Loop::new(
            &plan,
            &control,
            links,
            vec![Box::new(WorkerStats::new(0))],
            depth,
            0,
        );
        state.start(&EngineSetup::default());
        let mut engine = ScriptedEngine {
            script: script.iter().copied().collect(),
            queued: VecDeque::new(),
            seen: Vec::new(),
            prios: Vec::new(),
            submits: 0,
            reaps: Vec::new(),
        };
        state.drive(&mut engine, &buffers);
        let fault = state.fault.take();
        let stats = state.finish();
        (engine, stats, fault, control.stop.load(Ordering::Relaxed))
    }

    #[test]
    fn the_plain_loop_issues_and_counts_what_the_general_one_does() {
        // A random read under the random map, size-based; a sync for every write makes the
        // general loop run (a read job never syncs), with the same I/O.
        let job = |sync_every| JobSpec {
            rw: RwMode::RandRead,
            iodepth: 1,
            size_bytes: 16 << 10,
            size_explicit: true,
            io_size_bytes: Some(64 << 10),
            sync_every,
            runtime: crate::units::parse_duration("5s").unwrap(),
            ..JobSpec::default()
        };
        let (plain, plain_stats, fault, _) = run_spec(job(None), &[]);
        assert_eq!(fault, None);
        let (general, general_stats, _, _) = run_spec(job(Some(SyncEvery::Fsync(1))), &[]);
        let placed = |engine: &ScriptedEngine| {
            engine
                .seen
                .iter()
                .map(|&(offset, len, _)| (offset, len))
                .collect::<Vec<_>>()
        };
        assert_eq!(plain.seen.len(), 16);
        assert_eq!(placed(&plain), placed(&general));
        assert_eq!(plain_stats.read.ios, general_stats.read.ios);
        assert_eq!(plain_stats.read.bytes, 64 << 10);
        // Each pass covers the 4 blocks of the region once.
        let mut offsets: Vec<u64> = plain.seen[..4].iter().map(|seen| seen.0).collect();
        offsets.sort_unstable();
        assert_eq!(offsets, [0, 4096, 8192, 12288]);
    }

    /// Runs `spec` on the null engine with the stats a worker of `plan.engine` starts with.
    fn run_null(spec: JobSpec, engine_kind: EngineKind) -> Box<WorkerStats> {
        let depth = spec.iodepth as usize;
        let mut plan = null_plan(Arc::new(spec));
        plan.engine = engine_kind;
        let control = StepControl::new(0);
        control.start_ns.store(monotonic_ns(), Ordering::Release);
        let (links, _ends) = test_links();
        let buffers = AlignedBuffers::new(depth, 4096, 1).unwrap();
        let mut state = Loop::new(&plan, &control, links, vec![fresh_stats(&plan)], depth, 0);
        state.start(&EngineSetup::default());
        state.drive(&mut NullEngine::new(depth as u32), &buffers);
        state.finish()
    }

    #[test]
    fn an_engine_that_times_its_submit_call_splits_slat_and_clat() {
        let job = JobSpec {
            rw: RwMode::RandRead,
            iodepth: 4,
            size_bytes: 16 << 10,
            size_explicit: true,
            io_size_bytes: Some(256 << 10),
            runtime: crate::units::parse_duration("5s").unwrap(),
            ..JobSpec::default()
        };
        let stats = run_null(job.clone(), EngineKind::Null);
        let split = stats.read.split.as_ref().expect("null keeps slat and clat");
        let (slat, clat, lat) = (
            split.slat.summary(),
            split.clat.summary(),
            stats.read.latency.summary(),
        );
        // Every I/O has its three latencies; lat is slat + clat for each, so for the means.
        assert_eq!((slat.count, clat.count, lat.count), (64, 64, 64));
        let sum = slat.mean_ns + clat.mean_ns;
        assert!(
            (sum - lat.mean_ns).abs() <= lat.mean_ns * 0.01 + 2.0,
            "slat {} + clat {} against lat {}",
            slat.mean_ns,
            clat.mean_ns,
            lat.mean_ns
        );
        // Writes were not issued: no split kept for them.
        assert!(stats.write.split.is_none());
        // A worker planned for psync keeps none.
        assert!(run_null(job, EngineKind::Psync).read.split.is_none());
    }

    #[test]
    fn a_job_with_an_extra_takes_the_general_loop() {
        let plain = |spec: JobSpec| {
            let plan = null_plan(Arc::new(spec));
            let control = StepControl::new(0);
            let (links, _ends) = test_links();
            Loop::new(&plan, &control, links, Vec::new(), 1, 0).plain()
        };
        assert!(plain(JobSpec::default()));
        let sync = Some(SyncEvery::Fdatasync(4));
        assert!(!plain(JobSpec {
            sync_every: sync,
            ..JobSpec::default()
        }));
        let think = crate::bench::spec::ThinkTime {
            pause: Duration::ZERO,
            spin: Duration::ZERO,
            blocks: 1,
            on_issue: false,
        };
        assert!(!plain(JobSpec {
            think: Some(think),
            ..JobSpec::default()
        }));
        assert!(!plain(JobSpec {
            number_ios: Some(10),
            ..JobSpec::default()
        }));
        // A rate floor counts each cycle's I/O: the general loop.
        let floor = crate::bench::spec::RateMin {
            bytes_per_sec: None,
            iops: Some(1),
            cycle: Duration::from_secs(1),
        };
        assert!(!plain(JobSpec {
            rate_min: Some(floor),
            ..JobSpec::default()
        }));
    }

    #[test]
    fn short_transfers_and_eagain_are_resubmitted_and_count_once() {
        let (engine, stats, fault, _) = run(&[2048, -libc::EAGAIN, 2048], "20ms");
        assert_eq!(fault, None);
        let (first_offset, first_len, first_buf) = engine.seen[0];
        assert_eq!((first_offset, first_len), (0, 4096));
        // The rest of the short read: same slot, 2048 bytes further, twice (EAGAIN in between).
        assert_eq!(engine.seen[1], (2048, 2048, first_buf + 2048));
        assert_eq!(engine.seen[2], (2048, 2048, first_buf + 2048));
        assert_eq!((engine.seen[3].0, engine.seen[3].1), (4096, 4096));
        assert_eq!(stats.retries, 2);
        // Every logical I/O counted once, with its full size.
        let logical = engine.seen.len() as u64 - 2;
        assert_eq!(
            stats.read.ios, logical,
            "in-flight I/O drains at the end and counts"
        );
        assert_eq!(stats.read.bytes, stats.read.ios * 4096);
    }

    #[test]
    fn a_rate_floor_is_checked_at_each_cycle_end_and_stops_the_run_below_it() {
        let floored = |iops: u64| {
            run_spec(
                JobSpec {
                    rw: RwMode::Read,
                    iodepth: 1,
                    size_bytes: 16 << 10,
                    size_explicit: true,
                    runtime: Duration::from_millis(300),
                    rate_min: Some(crate::bench::spec::RateMin {
                        bytes_per_sec: None,
                        iops: Some(iops),
                        cycle: Duration::from_millis(20),
                    }),
                    ..JobSpec::default()
                },
                &[],
            )
        };
        // A floor no engine meets: the first cycle's end fails the job, long before its runtime.
        let started = std::time::Instant::now();
        let (_, _, fault, stopped) = floored(u64::MAX);
        let fault = fault.expect("a floor missed fails the job");
        assert_eq!(fault.operation, "rate");
        assert!(
            fault
                .detail
                .as_deref()
                .unwrap_or("")
                .contains("below rate_iops_min"),
            "{fault:?}"
        );
        assert!(stopped, "the step is stopped");
        assert!(started.elapsed() < Duration::from_millis(250));
        // One I/O per second is met by every cycle: the job runs its time and ends clean.
        let (_, stats, fault, stopped) = floored(1);
        assert_eq!(fault, None);
        assert!(!stopped);
        assert!(stats.read.ios > 0);
    }

    #[test]
    fn a_full_queue_is_sent_by_the_reap_that_waits_not_a_submit_of_its_own() {
        // iodepth 1: every I/O fills the queue, so the reap's call sends it and waits for it
        // (one io_uring_enter per I/O, not a submit and then a wait).
        let (engine, stats, fault, _) = run(&[], "20ms");
        assert_eq!(fault, None);
        assert!(engine.seen.len() > 1, "the run issued I/O");
        assert_eq!(engine.submits, 0, "no submit call of its own");
        assert_eq!(stats.read.ios, engine.seen.len() as u64);
    }

    /// fio's iodepth_low: a full queue of 8 drains to 2 in flight, one completion a reap,
    /// before it is filled again; iodepth_batch_complete_min: each reap waits for that many
    /// (fewer when fewer are in flight), and takes as many by default.
    #[test]
    fn a_full_queue_drains_to_iodepth_low_and_reaps_wait_for_the_minimum() {
        let job = |low, min| JobSpec {
            rw: RwMode::Read,
            iodepth: 8,
            iodepth_low: low,
            iodepth_batch_complete_min: min,
            iodepth_batch_complete: min.max(1),
            size_bytes: 64 << 10,
            size_explicit: true,
            // Bounded by I/Os, not by time: a loaded machine reaps as often as an idle one.
            number_ios: Some(400),
            runtime: Duration::from_secs(30),
            ..JobSpec::default()
        };
        // Until the end, whose reaps take what is left.
        let running = |reaps: &[(usize, usize)]| reaps[..reaps.len() - 8].to_vec();
        let (engine, _, fault, _) = run_spec(job(8, 1), &[]);
        assert_eq!(fault, None);
        assert!(engine.reaps.len() > 20);
        assert!(running(&engine.reaps).iter().all(|&r| r == (8, 1)));
        let (engine, _, _, _) = run_spec(job(2, 1), &[]);
        let depths: Vec<usize> = engine.reaps.iter().map(|r| r.0).collect();
        assert_eq!(depths[..12], [8, 7, 6, 5, 4, 3, 8, 7, 6, 5, 4, 3]);
        let (engine, _, _, _) = run_spec(job(8, 3), &[]);
        assert!(running(&engine.reaps).iter().all(|&r| r == (8, 3)));
        let (engine, _, _, _) = run_spec(job(2, 4), &[]);
        assert_eq!(engine.reaps[..2], [(8, 4), (4, 4)]);
        assert!(running(&engine.reaps).iter().all(|&(held, _)| held >= 3));
        assert!(engine.reaps.iter().all(|&(held, min)| min <= held));
    }

    #[test]
    fn an_error_stops_the_step_with_the_offset() {
        let (engine, stats, fault, stopped) = run(&[4096, -libc::EIO], "10s");
        let fault = fault.expect("a fault");
        assert_eq!(fault.errno, libc::EIO);
        assert_eq!(fault.operation, "read");
        assert_eq!(fault.offset_bytes, Some(4096));
        assert!(stopped, "the other workers are told to stop");
        assert_eq!(engine.seen.len(), 2, "nothing submitted after the error");
        assert_eq!(stats.read.ios, 1);
        assert_eq!(
            fault.to_string(),
            "read at offset 4096 (4 KiB) failed: Input/output error (EIO)"
        );
    }

    #[test]
    fn a_zero_length_read_is_an_early_end() {
        let (_, _, fault, _) = run(&[0], "10s");
        let fault = fault.expect("a fault");
        assert_eq!(fault.errno, 0);
        assert_eq!(
            fault.to_string(),
            "read at offset 0 (0 B) reached the end of the file or device early"
        );
    }

    /// fio's cmdprio_percentage: about that share of the I/Os leave the worker carrying the
    /// priority; the others none (the thread's applies). Without cmdprio, none carries one.
    #[test]
    fn cmdprio_gives_its_share_of_ios_their_priority() {
        let job = |cmdprio| JobSpec {
            rw: RwMode::Read,
            iodepth: 1,
            size_bytes: 16 << 10,
            size_explicit: true,
            io_size_bytes: Some(4000 * 4096),
            runtime: Duration::from_secs(10),
            cmdprio,
            ..JobSpec::default()
        };
        let rules = crate::bench::prio::parse_percentage("20", "1", "3").unwrap();
        let (engine, stats, fault, _) = run_spec(job(Some(rules)), &[]);
        assert_eq!(fault, None);
        assert_eq!(stats.read.ios, 4000);
        let rt3 = crate::bench::prio::ioprio_value(1, 3);
        let prioritized = engine.prios.iter().filter(|&&p| p == rt3).count();
        assert!((650..950).contains(&prioritized), "{prioritized} of 4000");
        assert!(engine.prios.iter().all(|&p| p == 0 || p == rt3));
        let (engine, ..) = run_spec(job(None), &[]);
        assert!(engine.prios.iter().all(|&p| p == 0));
    }
}
