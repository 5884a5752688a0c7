//! The session thread: precondition the target, run segments one after another, apply
//! controls, publish snapshots, write JSON Lines as intervals close and the record at the end
//! (on every path: completed, interrupted, failed). Owns the scratch file's removal.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use super::aggregate::{Interval, SegmentRun, SegmentSetup, SpawnError};
use super::controls::{self, IdleStep, SegmentEnding, SegmentFold, Workers};
use super::cpu::{cpu_record, rusage};
use super::recorder::{Recorder, RunOutcome, SegmentOutcome};
use super::snapshot::{
    IntervalLatency, SERIES_POINTS, SegmentMark, SeriesPoint, SessionState, SessionWarning,
    Snapshot, StatsView, TargetView,
};
use super::window::{DeviceWatch, Verdict};
use super::{Control, SessionOptions, SessionOutcome};
use crate::bench::engine::{EngineSetup, errno_name};
use crate::bench::fill::{self, FillOutcome};
use crate::bench::options::{JobOption, Key};
use crate::bench::spec::{EngineKind, JobSpec, MachineLimits};
use crate::bench::target::{self, Target, TargetKind};
use crate::bench::worker::IoFault;
use crate::monitor::iostat::IostatRow;
use crate::plan::{Job, Plan, Step};
use crate::record::output::RecordDestination;
use crate::record::{
    DeviceRecord, EngineRecord, ErrorRecord, JsonlWriter, RunStatus, RunWarning, TargetRecord,
};
use crate::stats::monotonic_ns;
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
    target: Target,
    engine_kind: EngineKind,
    engine: EngineRecord,
    device: Option<DeviceWatch>,
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
}

/// What `Session::start` prepared on the caller's thread.
pub struct Prepared {
    pub target: Target,
    /// Where `--json` goes, checked and with its temporary file made.
    pub json: Option<RecordDestination>,
    /// The engine to run (after the io_uring probe) and why it differs, if it does.
    pub engine: EngineKind,
    pub fallback: Option<String>,
    pub jsonl: Option<JsonlWriter>,
    /// The device behind the target, or why there is none.
    pub device: Result<DeviceWatch, String>,
}

impl Runner {
    pub fn new(
        plan: Plan,
        options: SessionOptions,
        prepared: Prepared,
        controls: mpsc::UnboundedReceiver<Control>,
    ) -> Self {
        let spec = plan.steps[0].jobs[0].spec.clone();
        let Prepared {
            target,
            json,
            engine: engine_kind,
            fallback,
            jsonl,
            device,
        } = prepared;
        let engine = EngineRecord {
            requested: spec.ioengine.as_str().to_string(),
            used: engine_kind.as_str().to_string(),
            fallback,
            ..EngineRecord::default()
        };
        let mut notes = target.notes.clone();
        notes.extend(spec.depth_note());
        notes.extend(spec.buffer_note());
        let (device, device_absent) = match device {
            Ok(device) => (Some(device), None),
            Err(why) => {
                notes.push(format!("no device statistics: {why}"));
                (None, Some(why))
            }
        };
        let mut warnings: Vec<SessionWarning> = target
            .warnings
            .iter()
            .cloned()
            .map(SessionWarning::Text)
            .collect();
        if !spec.direct {
            warnings.push(SessionWarning::Buffered);
        }
        let snap = Snapshot {
            seq: 0,
            state: if target.needs_fill {
                SessionState::Preparing {
                    done_bytes: 0,
                    total_bytes: target.working_set_bytes,
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
            disk: device.as_ref().map(|d| d.chain.device.clone()),
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
            queue: device.as_ref().map(|d| d.queue.clone()),
            reconciliation: None,
            warnings,
            notes,
            device_absent,
            filled: false,
            ramp_remaining: None,
            error: None,
            record_path: options.json.clone(),
        };
        let (tx, _) = watch::channel(Arc::new(snap.clone()));
        Self {
            machine: MachineLimits::detect(),
            plan,
            step: 0,
            spec,
            options,
            target,
            engine_kind,
            engine,
            device,
            recorder: Recorder::new(jsonl),
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
        }
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

    /// The thread body.
    pub fn run(mut self) -> SessionOutcome {
        self.publish();
        if self.target.needs_fill {
            self.precondition();
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
                    self.step = self.plan.steps.len() - 1;
                    self.spec = *spec;
                    self.snap.job = self.spec.clone();
                    start_now = true;
                }
                // The next step of the plan, when there is one.
                SegmentEnding::Runtime if self.step + 1 < self.plan.steps.len() => {
                    self.step += 1;
                    self.spec = self.plan.steps[self.step].jobs[0].spec.clone();
                    self.snap.job = self.spec.clone();
                    start_now = true;
                }
                SegmentEnding::Runtime if self.options.finish_when_done => break,
                SegmentEnding::Runtime | SegmentEnding::Stop => {}
                SegmentEnding::Quit => self.quit = true,
                SegmentEnding::Interrupt => self.interrupted = true,
                SegmentEnding::Fault => {}
            }
        }
        self.finish()
    }

    fn precondition(&mut self) {
        let stop = AtomicBool::new(false);
        let total = self.target.working_set_bytes;
        let started = monotonic_ns();
        let mut last = 0u64;
        let result = {
            let target = &self.target;
            let direct = self.spec.direct;
            let interrupt = self.options.interrupt.clone();
            let controls = &mut self.controls;
            let pending = &mut self.pending;
            let tx = &self.tx;
            let snap = &mut self.snap;
            fill::fill(target, direct, &stop, |done, total| {
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
                if now - last >= 100_000_000 || done == total {
                    last = now;
                    snap.seq += 1;
                    snap.state = SessionState::Preparing {
                        done_bytes: done,
                        total_bytes: total,
                    };
                    tx.send_replace(Arc::new(snap.clone()));
                }
            })
        };
        match result {
            Ok(FillOutcome::Done) => {
                self.preconditioned = true;
                self.snap.filled = true;
                let seconds = (monotonic_ns() - started) as f64 / 1e9;
                self.snap.notes.push(format!(
                    "wrote the {} working set with data first ({seconds:.1} s): reads measure \
                     the device, writes overwrite allocated blocks",
                    format_size_short(total)
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
        let checked = spec.with(changes, &self.machine).and_then(|next| {
            if let Control::SetBlockSize(_) = change {
                target::check_block_size(
                    &next,
                    "bs",
                    self.target.dio_align_bytes,
                    self.target.working_set_bytes,
                    &self.target.path,
                )?;
            }
            if let Control::SetRw(rw) = change
                && next.writes()
                && !spec.writes()
            {
                if self.target.kind != TargetKind::Scratch && !self.options.allow_destructive {
                    anyhow::bail!(
                        "{} writes; the target needs --allow-destructive",
                        rw.as_str()
                    );
                }
                if !self.target.writable {
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
                self.snap
                    .warnings
                    .push(SessionWarning::Text(format!("ignored a change: {problem}")));
                None
            }
        }
    }

    fn run_segment(&mut self) -> SegmentEnding {
        let index = self.recorder.next_segment();
        let spec = Arc::new(self.spec.clone());
        let setup = SegmentSetup {
            spec: spec.clone(),
            file: self.target.file.clone(),
            working_set_bytes: self.target.working_set_bytes,
            engine: self.engine_kind,
            seed: 0xD15C_DA54_0000_0000 ^ u64::from(index),
        };
        let cpu_start = rusage();
        if let Some(device) = &mut self.device {
            // A fresh baseline for interval rows; the window opens now unless there is a ramp.
            device.interval_row();
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
        self.snap.segments.push(SegmentMark {
            index,
            job: spec.describe(),
            at: self.series_base,
            engine: self.engine.used.clone(),
        });
        self.recorder.start_segment();
        let mut fold = SegmentFold::default();
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
                self.add_interval(index, &interval);
            }
            if emitted {
                let span = Duration::from_nanos(seg.elapsed_ns(monotonic_ns()));
                self.snap.cumulative = StatsView::from_stats(seg.total(), span);
            }
            let now = monotonic_ns();
            if cpu_measure_start.is_none() && now >= seg.record_from_ns {
                cpu_measure_start = Some(rusage());
                if let Some(device) = &mut self.device {
                    device.start_window();
                }
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
            self.snap.remaining = Duration::from_nanos(seg.runtime_ns.saturating_sub(elapsed_ns));
            self.snap.ramp_remaining =
                (now < seg.record_from_ns).then(|| Duration::from_nanos(seg.record_from_ns - now));
            self.snap.state = if now < seg.record_from_ns {
                SessionState::Ramp
            } else if seg.is_paused() {
                SessionState::Paused
            } else {
                SessionState::Running
            };
            if seg.workers_done() {
                break;
            }
            if emitted || now - self.last_publish_ns >= PUBLISH_EVERY_NS {
                self.publish();
            }
        }
        let end = seg.finish();
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
            self.add_interval(index, last);
        }
        // The null engine sends nothing to the device: there is nothing to reconcile, and a
        // device that served nothing must not read as "page cache".
        let null_engine = self.engine_kind == EngineKind::Null;
        let device_record = self.device.as_mut().and_then(|device| {
            let (row, mut reconciliation) = device.end_window(
                end.total.read.ios,
                end.total.write.ios,
                end.total.read.bytes + end.total.write.bytes,
            )?;
            if null_engine {
                reconciliation.verdict =
                    "null engine: no I/O was sent to the device, nothing to reconcile".to_string();
            }
            Some(DeviceRecord {
                name: device.chain.device.clone(),
                disk: device.chain.disk.clone(),
                queue: device.queue.clone(),
                iostat: row,
                reconciliation,
            })
        });
        if let Some(device) = &device_record {
            if Verdict::of(&device.reconciliation) == Verdict::PageCache && !null_engine {
                self.warn(RunWarning::PageCache {
                    device: device.name.clone(),
                    app_bytes: device.reconciliation.app_bytes,
                    device_bytes: device.reconciliation.device_bytes,
                });
            }
            self.snap.reconciliation = Some(device.reconciliation.clone());
        }
        let mut ending = fold.ending;
        if let Some(fault) = end.faults.first() {
            self.fail_with(fault);
            ending = Some(SegmentEnding::Fault);
        } else if ending == Some(SegmentEnding::Fault) {
            ending = None;
        }
        let ending = ending.unwrap_or(SegmentEnding::Runtime);
        let cpu = cpu_record(
            cpu_measure_start.unwrap_or(cpu_end),
            cpu_end,
            end.elapsed_ns,
        );
        self.series_base += Duration::from_nanos(end.elapsed_ns);
        self.snap.cumulative =
            StatsView::from_stats(&end.total, Duration::from_nanos(end.elapsed_ns));
        self.snap.elapsed = Duration::from_nanos(end.elapsed_ns);
        let status = match ending {
            SegmentEnding::Fault => RunStatus::Failed,
            SegmentEnding::Interrupt | SegmentEnding::Quit => RunStatus::Interrupted,
            _ => RunStatus::Completed,
        };
        self.recorder.end_segment(SegmentOutcome {
            status,
            job: &spec,
            engine: &self.engine.used,
            end: &end,
            cpu,
            device: device_record,
        });
        self.publish();
        ending
    }

    /// A typed warning: its text for the front ends and `warnings`, the fact for the record.
    fn warn(&mut self, warning: RunWarning) {
        self.recorder.warn(warning.clone());
        self.snap.warnings.push(SessionWarning::Fact(warning));
    }

    fn note_engine(&mut self, setups: &[EngineSetup]) {
        let Some(first) = setups.first() else { return };
        self.engine.used = first.engine.to_string();
        self.engine.ring_flags = first.ring_flags.iter().map(|f| (*f).to_string()).collect();
        self.engine.registered_file = setups.iter().all(|s| s.registered_file);
        self.engine.registered_buffers = setups.iter().all(|s| s.registered_buffers);
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

    fn add_interval(&mut self, segment: u32, interval: &Interval) {
        let duration = Duration::from_nanos(interval.duration_ns);
        let view = StatsView::from_stats(&interval.stats, duration);
        let row = self.device.as_mut().and_then(DeviceWatch::interval_row);
        if let Some(row) = &row {
            let history = Arc::make_mut(&mut self.snap.device_history);
            if history.len() == SERIES_POINTS {
                history.pop_front();
            }
            history.push_back(row.clone());
            self.snap.device = Some(row.clone());
        }
        let (_, written) = self.recorder.interval(segment, interval, row);
        if let Err(why) = written {
            self.snap.warnings.push(SessionWarning::Text(why));
        }
        let point = SeriesPoint {
            seq: self.series_seq,
            segment,
            at: self.series_base + Duration::from_nanos(interval.end_offset_ns),
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
        };
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
        });
        let history = Arc::make_mut(&mut self.snap.latency_history);
        if history.len() == SERIES_POINTS {
            history.pop_front();
        }
        history.push_back(latency);
        self.snap.interval = Some(view);
    }

    fn finish(mut self) -> SessionOutcome {
        let status = if self.error.is_some() {
            RunStatus::Failed
        } else if self.interrupted || self.recorder.last_status() == Some(RunStatus::Interrupted) {
            RunStatus::Interrupted
        } else {
            RunStatus::Completed
        };
        let scratch_removed = match self.target.remove_scratch() {
            Some(Ok(())) => true,
            Some(Err(err)) => {
                self.snap.warnings.push(SessionWarning::Text(format!(
                    "could not remove the scratch file {}: {err}; remove it by hand",
                    self.target.path.display()
                )));
                false
            }
            None => false,
        };
        let outcome = RunOutcome {
            status,
            error: self.error.clone(),
            job: self.spec.clone(),
            engine: self.engine.clone(),
            target: TargetRecord {
                path: self.target.path.display().to_string(),
                kind: serde_json::to_value(self.target.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                working_set_bytes: self.target.working_set_bytes,
                dio_align_bytes: self.target.dio_align_bytes,
                preconditioned: self.preconditioned,
                scratch_removed,
                notes: self.target.notes.clone(),
            },
            warnings: self.snap.warnings.iter().map(ToString::to_string).collect(),
            notes: self.snap.notes.clone(),
        };
        let recorder = std::mem::replace(&mut self.recorder, Recorder::new(None));
        let record = recorder.finish(outcome);
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
