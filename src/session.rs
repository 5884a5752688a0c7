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
//! Each step runs as a segment of the record. A change of job parameters in the dashboard ends
//! the running step and appends one with the changed job.

mod aggregate;
mod controls;
mod cpu;
mod recorder;
mod runner;
mod series;
pub mod signals;
mod snapshot;
pub mod window;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread::JoinHandle;

use anyhow::Context;
use tokio::sync::{mpsc, watch};

pub use snapshot::{
    DirectionView, IntervalLatency, SERIES_POINTS, SegmentMark, SeriesPoint, SessionState,
    SessionWarning, Snapshot, StatsView, TargetView,
};

use crate::bench::engine::uring;
use crate::bench::spec::{EngineKind, RwMode};
use crate::bench::target;
use crate::plan::Plan;
use crate::record::output::{self, Output};
use crate::record::{JsonlWriter, RunRecord, RunStatus};

/// Commands from a front end. Parameter changes end the running segment and start a new one
/// (or, when idle, apply to the next `Start`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Control {
    Pause,
    Resume,
    /// End the running segment and go idle.
    Stop,
    /// Start a new segment with the current job (when idle).
    Start,
    SetIodepth(u32),
    SetNumjobs(u32),
    SetBlockSize(u64),
    SetRw(RwMode),
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
    /// Finish when the segment's runtime is over (headless). Otherwise go idle and wait for
    /// `Control`s until `Quit`.
    pub finish_when_done: bool,
    /// Raised by the interrupt signals ([`signals::INTERRUPT_SIGNALS`]): stop, drain, record
    /// `interrupted`. Checked during setup and the fill too.
    pub interrupt: Arc<AtomicBool>,
}

/// The running session: snapshots out, controls in.
pub struct SessionHandle {
    pub snapshots: watch::Receiver<Arc<Snapshot>>,
    pub control: mpsc::UnboundedSender<Control>,
    thread: JoinHandle<SessionOutcome>,
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
            .map_err(|_| anyhow::anyhow!("the session thread panicked"))
    }
}

/// Entry point.
pub struct Session;

impl Session {
    /// Checks and opens the target (usage errors come back here, before anything runs), probes
    /// io_uring, and starts the session thread.
    pub fn start(plan: Plan, options: SessionOptions) -> anyhow::Result<SessionHandle> {
        let job = plan.single_target_job()?;
        let spec = job.spec.clone();
        let target = target::open(&spec, job.target.as_deref(), options.allow_destructive)?;
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
        let mut guard = output::Guard {
            target: target.id,
            other_output: None,
            force: options.force,
        };
        if let (Some(json), Some(jsonl)) = (&options.json, &options.jsonl)
            && json == jsonl
        {
            return Err(crate::usage!(
                "--json and --jsonl are both {}; give them different files",
                json.display()
            ));
        }
        let (engine, fallback) = match spec.ioengine {
            EngineKind::IoUring => match uring::probe() {
                Ok(()) => (EngineKind::IoUring, None),
                Err(err) if crate::bench::engine::uring_unavailable(&err) => (
                    EngineKind::Psync,
                    Some(crate::bench::engine::fallback_note(&err)),
                ),
                Err(err) => return Err(err).context("setting up io_uring"),
            },
            other => (other, None),
        };
        // JSON Lines first: the record's check then knows the file they write (two spellings
        // or two links of one file are one file).
        let jsonl = match options.jsonl.as_deref().map(Output::from_arg) {
            Some(Output::Stdout) => Some(JsonlWriter::new(
                "standard output".into(),
                Box::new(std::io::stdout()),
            )),
            Some(Output::File(path)) => {
                let (file, id) = output::open_jsonl("--jsonl", &path, guard)?;
                guard.other_output = Some(id);
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
        let device = window::DeviceWatch::open(target.device_number, &target.path);
        let (control_tx, control_rx) = mpsc::unbounded_channel();
        let prepared = runner::Prepared {
            target,
            json,
            engine,
            fallback,
            jsonl,
            device,
        };
        let runner = runner::Runner::new(plan, options, prepared, control_rx);
        let snapshots = runner.subscribe();
        let thread = std::thread::Builder::new()
            .name("session".into())
            .spawn(move || runner.run())
            .context("starting the session thread")?;
        Ok(SessionHandle {
            snapshots,
            control: control_tx,
            thread,
        })
    }
}
