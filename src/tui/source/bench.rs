//! The live benchmark source: session snapshots for every panel but the disks table, which
//! comes from the monitor (all disks, 1 s). Keys become [`Control`]s; each parameter change
//! starts a new step in the session.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use crate::bench::options::{MAX_BLOCK_SIZE_BYTES, MAX_IODEPTH, MAX_NUMJOBS};
use crate::session::{Control, SessionHandle, SessionState, Snapshot, StepMark};
use crate::tui::app::{App, Intent};
use crate::tui::event::Source;
use crate::tui::source::monitor::MonitorSource;
use crate::tui::ui::fmt;
use crate::tui::view::from_monitor;
use crate::tui::view::from_snapshot as snap_view;
use crate::tui::view::{
    DeviceView, DeviceWindow, Frozen, Header, Mode, QueueView, SweepView, View, Warning,
    WarningKind, sweep::PointState,
};
use crate::units::format_size_short;

/// How often the all-disks table is sampled.
const DISKS_INTERVAL: Duration = Duration::from_secs(1);

pub struct BenchSource {
    snapshots: watch::Receiver<Arc<Snapshot>>,
    control: mpsc::UnboundedSender<Control>,
    snap: Arc<Snapshot>,
    /// The session thread is gone (sender dropped): stop polling it.
    closed: bool,
    disks: MonitorSource,
    /// The disk the session has shown a row of (its row is never dropped afterwards).
    had_device: Option<String>,
    started: bool,
    /// The job the next key changes: ahead of the snapshot while a change is in flight.
    next_job: crate::bench::spec::JobSpec,
    host: String,
    kernel: String,
}

impl BenchSource {
    /// # Errors
    /// `/proc/diskstats` cannot be opened.
    pub fn new(handle: &SessionHandle) -> anyhow::Result<Self> {
        let mut snapshots = handle.snapshots.clone();
        let snap = snapshots.borrow_and_update().clone();
        let (host, kernel) = from_monitor::host_and_kernel();
        let mut source = Self {
            snapshots,
            control: handle.control.clone(),
            next_job: snap.job().clone(),
            snap,
            closed: false,
            disks: MonitorSource::open(DISKS_INTERVAL, false)?,
            had_device: None,
            started: false,
            host,
            kernel,
        };
        source.take_snapshot();
        Ok(source)
    }

    fn take_snapshot(&mut self) {
        let snap = self.snapshots.borrow_and_update().clone();
        // A change the session refused comes back as a warning: forget what was asked.
        if snap.job() != self.snap.job() || snap.warnings.len() != self.snap.warnings.len() {
            self.next_job = snap.job().clone();
        }
        if let Some(disk) = snap.first_disk().filter(|d| d.last.is_some())
            && self.had_device.as_deref() != Some(disk.name.as_str())
        {
            self.had_device = Some(disk.name.clone());
        }
        self.snap = snap;
        self.auto_start();
    }

    /// The session waits idle until told to start; start the first step once it is ready
    /// (controls sent while it prepares the working set are not kept).
    fn auto_start(&mut self) {
        if !self.started && self.snap.state == SessionState::Idle && self.snap.step.marks.is_empty()
        {
            self.started = self.control.send(Control::Start).is_ok();
        }
    }

    fn send(&mut self, control: Control, message: String) -> Option<String> {
        if self.closed || matches!(self.snap.state, SessionState::Finished(_)) {
            return Some("the run has ended: q quits".into());
        }
        match self.control.send(control) {
            Ok(()) => Some(message),
            Err(_) => Some("the session has ended: q quits".into()),
        }
    }
}

/// What the device panel's numbers of the target's disk cover: the session's last interval,
/// live while the step runs, frozen once it is paused, stopped or over.
fn device_window(state: &SessionState, step: usize, last: Option<Duration>) -> DeviceWindow {
    let interval = last.unwrap_or(DISKS_INTERVAL);
    let why = match state {
        SessionState::Paused => Frozen::Paused,
        SessionState::Idle => Frozen::Stopped,
        SessionState::Finished(_) => Frozen::Ended,
        SessionState::Preparing { .. } | SessionState::Ramp | SessionState::Running => {
            return DeviceWindow::Now { interval };
        }
    };
    DeviceWindow::StepEnd {
        step,
        interval,
        why,
    }
}

/// Which step the session's reconciliation covers (1-based `segment` is the current or
/// last one): the last finished one, with its measured length, e.g. `seg 1 (30s)`.
fn reconciliation_of(
    state: &SessionState,
    step: usize,
    elapsed: Duration,
    marks: &[StepMark],
) -> Option<String> {
    let finished = matches!(state, SessionState::Idle | SessionState::Finished(_));
    let of = if finished { step } else { step.checked_sub(1)? };
    if of == 0 {
        return None;
    }
    let start = |nth: usize| {
        marks
            .iter()
            .find(|m| usize::try_from(m.index).is_ok_and(|i| i + 1 == nth))
            .map(|m| m.at)
    };
    let length = if of == step {
        Some(elapsed)
    } else {
        start(of + 1)
            .zip(start(of))
            .map(|(end, begin)| end.saturating_sub(begin))
    };
    Some(match length {
        Some(d) => format!("seg {of} ({})", fmt::duration(d)),
        None => format!("seg {of}"),
    })
}

/// While the numbers are live, the device panel takes the target's disks from the disks
/// table's rows: both then show the same sample pair (the monitor's last two reads of
/// /proc/diskstats), not two windows that merely have the same length. A disk the table has
/// no row for keeps the session's numbers; frozen numbers (a step's last interval) keep
/// theirs, and the title says which interval they are.
fn same_sample(device: &mut DeviceView, rows: &[crate::tui::view::DiskRow]) {
    let DeviceWindow::Now { .. } = device.window else {
        return;
    };
    let row_of = |name: &str| {
        rows.iter()
            .find(|r| r.name == name)
            .or_else(|| rows.iter().find(|r| r.name == whole_disk(name)))
    };
    let mut took = false;
    if device.absent.is_none()
        && let Some(row) = row_of(&device.name)
    {
        device.now = from_monitor::row_rates(row);
        took = true;
    }
    for disk in &mut device.disks {
        if let Some(row) = row_of(&disk.name) {
            disk.now = Some(from_monitor::row_rates(row));
            took = true;
        }
    }
    if took {
        device.window = DeviceWindow::Now {
            interval: DISKS_INTERVAL,
        };
    }
}

fn whole_disk(device: &str) -> String {
    crate::monitor::device::whole_disk(device).unwrap_or_else(|| device.to_string())
}

impl BenchSource {
    /// The dashboard of the snapshot beside the disks table of `rows` (the monitor's last
    /// sample).
    fn view_of(&mut self, app: &mut App, rows: Vec<crate::tui::view::DiskRow>) -> View {
        let snap = &self.snap;
        app.set_jobs(snap.jobs.iter().map(|j| j.name.as_str()));
        let job = snap_view::job_index(snap, app.job.as_deref());
        if app.selected.is_none() {
            app.selected = snap.disk().map(whole_disk);
        }
        let table = app.disk_table(rows);
        let disk = snap.disk().map(str::to_owned);
        let mut warnings = snap_view::warnings(snap);
        let first_disk = snap.first_disk();
        let last_row = first_disk.and_then(|d| d.last.as_ref());
        let gone = first_disk.is_some_and(|d| {
            d.last.is_none() && self.had_device.as_deref() == Some(d.name.as_str())
        });
        if gone {
            warnings.push(Warning::new(
                WarningKind::DeviceGone,
                format!(
                    "{} is gone from /proc/diskstats",
                    disk.as_deref().unwrap_or("the device")
                ),
            ));
        }
        // Notes are facts about the run (the working set was written first, ...): they stay
        // in the device panel, wrapped, not in the footer where a key's message replaces them.
        for note in &snap.notes {
            let already = snap
                .device_absent
                .as_ref()
                .is_some_and(|why| note.contains(why.as_str()));
            if !already {
                warnings.push(Warning::new(WarningKind::Note, note.clone()));
            }
        }
        let record_step = usize::try_from(snap.step.index).unwrap_or(0) + 1;
        let reconciliation_of = reconciliation_of(
            &snap.state,
            record_step,
            snap.step.elapsed,
            &snap.step.marks,
        );
        // Another disk picked in the table: the device and queue panels follow it with its live
        // rates; the reconciliation stays, as it is of the target's disk, and says so.
        let target_disk = disk.as_deref().map(whole_disk);
        let other = table
            .selected
            .map(|i| &table.rows[i])
            .filter(|row| target_disk.as_ref().is_some_and(|t| *t != row.name));
        let (device, queue) = if let Some(row) = other {
            let panels = self.disks.disk_panels(row);
            let mut device = panels.device;
            warnings.append(&mut device.warnings);
            device.warnings = warnings;
            device.reconciliation = snap_view::reconciliation(snap);
            device.reconciliation_of = reconciliation_of
                .map(|of| format!("target {}, {of}", target_disk.as_deref().unwrap_or("-")));
            (Some(device), Some(panels.queue))
        } else {
            let queue = first_disk.and_then(|d| d.queue.as_ref());
            if let Some(note) = queue.and_then(from_monitor::util_caveat) {
                warnings.push(Warning::new(WarningKind::UtilCaveat, note));
            }
            // Without a block device (tmpfs, ...) the panel says why and still shows warnings.
            let absent = snap
                .device_absent
                .as_ref()
                .map(|why| format!("no device statistics: {why}"))
                .or_else(|| {
                    disk.is_none()
                        .then(|| "no block device behind the target".into())
                });
            let mut device = DeviceView {
                name: disk.clone().unwrap_or_else(|| "-".into()),
                now: last_row.map(from_monitor::device_rates).unwrap_or_default(),
                window: device_window(
                    &snap.state,
                    record_step,
                    snap.step.series.back().map(|p| p.duration),
                ),
                history: first_disk
                    .map(|d| d.history.iter().map(from_monitor::device_rates).collect())
                    .unwrap_or_default(),
                reconciliation: snap_view::reconciliation(snap),
                reconciliation_of,
                warnings,
                absent: if disk.is_none() { absent } else { None },
                disks: snap_view::disks(snap),
            };
            same_sample(&mut device, &table.rows);
            let queue: Option<QueueView> = match (&disk, queue) {
                (Some(d), Some(q)) => Some(from_monitor::queue_view(&whole_disk(d), q)),
                _ => None,
            };
            (Some(device), queue)
        };
        let running = matches!(snap.state, SessionState::Running | SessionState::Paused);
        // The steady state and writes of the job the charts show (the first when none is
        // picked).
        let several = snap.jobs.len() > 1;
        let finished = matches!(snap.state, SessionState::Finished(_) | SessionState::Idle);
        let shown_job = job.and_then(|i| snap.jobs.get(i)).or(snap.jobs.first());
        let sweep = crate::tui::view::sweep::sweep(snap, app.ui.sweep_metric);
        app.sweep = sweep.is_some();
        app.sweep_points = sweep.as_ref().map_or(0, |s| s.rows.len());
        let step = sweep
            .as_ref()
            .map(|s| s.point)
            .or_else(|| snap_view::step(snap));
        // A size-based step ends when its bytes are moved: its progress replaces the time left
        // while it runs; once over, the header says the state and the time the run took.
        let size_based = step
            .filter(|_| !snap_view::over(snap))
            .and_then(|_| snap_view::size_progress(snap));
        let mut ui = app.ui.clone();
        if ui.message.is_none() {
            ui.message = match &sweep {
                Some(sweep) => sweep_message(&snap.state, sweep),
                None => snap_view::state_message(snap),
            };
        }
        View {
            mode: Mode::Bench,
            header: Header {
                host: self.host.clone(),
                kernel: self.kernel.clone(),
                target: Some(snap_view::target_label(snap)),
                disk: snap_view::disk_label(snap),
                engine: Some(snap_view::engine_label(snap)),
                job: Some(snap_view::job_label(snap)),
                state: Some(snap_view::run_state(snap)),
                elapsed: snap.step.elapsed,
                remaining: (running && size_based.is_none()).then_some(snap.step.remaining),
                record_step: Some((
                    usize::try_from(snap.step.index).unwrap_or(0) + 1,
                    snap.step.marks.len().max(1),
                )),
                // The disks table's sampling interval.
                interval: Some(DISKS_INTERVAL),
                window: self.disks.window(),
                step,
                size_based,
                note: None,
            },
            throughput: Some(snap_view::throughput_for(snap, job)),
            latency: Some(snap_view::latency_for(snap, job)),
            device,
            queue,
            disks: Some(table),
            jobs: snap_view::jobs(snap, job),
            sweep,
            steady: shown_job.and_then(|j| crate::tui::view::steady::live(j, several, finished)),
            sustained: shown_job.and_then(|j| crate::tui::view::steady::live_chart(j, several)),
            verify: shown_job.and_then(|j| crate::tui::view::verify::live(j, several, finished)),
            top: None,
            trace: snap.step.trace.as_deref().map(snap_view::trace),
            ui,
        }
    }
}

impl Source for BenchSource {
    async fn next(&mut self) {
        tokio::select! {
            changed = self.snapshots.changed(), if !self.closed => match changed {
                Ok(()) => self.take_snapshot(),
                Err(_) => self.closed = true,
            },
            () = self.disks.next() => {}
        }
    }

    fn view(&mut self, app: &mut App) -> View {
        let rows = self.disks.table_rows();
        self.view_of(app, rows)
    }

    fn control(&mut self, intent: Intent) -> Option<String> {
        let state = self.snap.state.clone();
        if self.snap.plan_points.iter().any(|p| !p.is_empty()) {
            return match sweep_control(&state, intent) {
                Ok((control, message)) => self.send(control, message.into()),
                Err(message) => Some(message.into()),
            };
        }
        match (&state, intent) {
            (SessionState::Preparing { .. }, _) => {
                return Some("preparing the working set: keys work once the run starts".into());
            }
            (SessionState::Idle, Intent::PauseResume) => {
                return Some("not running: s starts a new segment".into());
            }
            (_, Intent::PauseResume | Intent::StopStart) => {}
            // The session refuses them for a step of several jobs: say so here, not as a
            // warning that stays in the device panel.
            _ if self.snap.jobs.len() > 1 => {
                return Some("several jobs run: live changes apply to one-job steps".into());
            }
            _ => {}
        }
        let job = &mut self.next_job;
        let (control, message) = match intent {
            Intent::PauseResume if state == SessionState::Paused => {
                (Control::Resume, "resumed".to_string())
            }
            Intent::PauseResume => (Control::Pause, "paused: space resumes".to_string()),
            Intent::StopStart if state == SessionState::Idle => {
                (Control::Start, "started a new segment".to_string())
            }
            Intent::StopStart => (Control::Stop, "stopped: s starts again".to_string()),
            Intent::IodepthUp | Intent::IodepthDown => {
                let old = job.iodepth;
                let new = if intent == Intent::IodepthUp {
                    old.saturating_mul(2).min(MAX_IODEPTH)
                } else {
                    (old / 2).max(1)
                };
                job.iodepth = new;
                (
                    Control::SetIodepth(new),
                    format!("iodepth {old} -> {new}: new segment"),
                )
            }
            Intent::NumjobsUp | Intent::NumjobsDown => {
                let old = job.numjobs;
                let new = if intent == Intent::NumjobsUp {
                    (old + 1).min(MAX_NUMJOBS)
                } else {
                    old.saturating_sub(1).max(1)
                };
                job.numjobs = new;
                (
                    Control::SetNumjobs(new),
                    format!("numjobs {old} -> {new}: new segment"),
                )
            }
            Intent::BlockSizeUp | Intent::BlockSizeDown => {
                let old = job.block_size_bytes;
                let align = u64::from(self.snap.target.dio_align_bytes).max(512);
                let top = MAX_BLOCK_SIZE_BYTES.min(self.snap.target.working_set_bytes);
                let new = if intent == Intent::BlockSizeUp {
                    old.saturating_mul(2).min(top).max(old)
                } else {
                    (old / 2).max(align)
                };
                job.block_size_bytes = new;
                (
                    Control::SetBlockSize(new),
                    format!(
                        "bs {} -> {}: new segment",
                        format_size_short(old),
                        format_size_short(new)
                    ),
                )
            }
            Intent::NextRw => {
                let old = job.rw;
                let new = snap_view::next_rw(old);
                job.rw = new;
                (
                    Control::SetRw(new),
                    format!("rw {} -> {}: new segment", old.as_str(), new.as_str()),
                )
            }
            Intent::NextPoint => return Some("n skips to a sweep's next point".into()),
            Intent::Seek(_) | Intent::SeekFirst | Intent::SeekLast | Intent::JumpTo(_) => {
                return None;
            }
        };
        self.send(control, message)
    }
}

/// The footer's line about a sweep (or mark) that is not simply running: its warm-up, or how
/// many of its points (mark: tests) finished once it is over.
fn sweep_message(state: &SessionState, sweep: &SweepView) -> Option<String> {
    let mark = sweep.is_mark();
    match state {
        SessionState::Ramp => {
            let (point, count) = sweep.point;
            Some(if mark {
                format!("warm-up: test {point} of {count}, not measured")
            } else {
                format!("warm-up: point {point} of {count}, not measured")
            })
        }
        // Before its first point starts the sweep is not over.
        SessionState::Idle if sweep.running => None,
        SessionState::Idle | SessionState::Finished(_) => {
            let done = sweep
                .rows
                .iter()
                .filter(|r| matches!(r.state, PointState::Done(_)))
                .count();
            let count = sweep.rows.len();
            let over = if sweep.stopped { "stopped" } else { "over" };
            Some(if mark {
                format!("mark {over}, tests: {done} of {count}; q writes the record")
            } else {
                format!("sweep {over}: {done} of {count} points, q writes the record")
            })
        }
        _ => None,
    }
}

/// A key during a sweep: its points are fixed (no live changes), `n` ends the running point
/// and goes on with the next, `s` stops the sweep for good (what finished stays).
fn sweep_control(
    state: &SessionState,
    intent: Intent,
) -> Result<(Control, &'static str), &'static str> {
    match (state, intent) {
        (SessionState::Preparing { .. }, _) => {
            Err("preparing the working set: keys work once the run starts")
        }
        (SessionState::Idle | SessionState::Finished(_), _) => {
            Err("the sweep has stopped: q writes the record")
        }
        (SessionState::Paused, Intent::PauseResume) => Ok((Control::Resume, "resumed")),
        (_, Intent::PauseResume) => Ok((Control::Pause, "paused: space resumes")),
        (_, Intent::StopStart) => Ok((
            Control::Stop,
            "sweep stopped: finished points stay, q writes the record",
        )),
        (_, Intent::NextPoint) => Ok((Control::Next, "skipped to the next point")),
        _ => Err("a sweep's points are fixed: n skips to the next, s stops"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::RunStatus;

    fn mark(index: u32, at_s: u64) -> StepMark {
        StepMark {
            index,
            job: "randread".into(),
            at: Duration::from_secs(at_s),
            engine: "io_uring".into(),
        }
    }

    /// The whole path of `n`: the key, the app's intent, the source's control to the session.
    #[test]
    fn n_in_a_sweep_sends_next_to_the_session() {
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

        use crate::tui::app::Action;

        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("runtime");
        let _entered = runtime.enter();
        let snap = Arc::new(crate::tui::ui::sample::sweep::snapshot());
        let (_publish, snapshots) = watch::channel(snap.clone());
        let (control, mut controls) = mpsc::unbounded_channel();
        let mut source = BenchSource {
            snapshots,
            control,
            next_job: snap.job().clone(),
            snap,
            closed: false,
            disks: MonitorSource::open(DISKS_INTERVAL, false).expect("/proc/diskstats"),
            had_device: None,
            started: true,
            host: String::new(),
            kernel: String::new(),
        };
        let mut app = App::new(Mode::Bench, false);
        let view = source.view(&mut app);
        assert!(view.sweep.is_some() && app.sweep);
        let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        let Action::Control(intent) = app.on_key(key('n'), &[]) else {
            panic!("n is no control in a sweep");
        };
        assert_eq!(
            source.control(intent).as_deref(),
            Some("skipped to the next point")
        );
        assert_eq!(controls.try_recv(), Ok(Control::Next));
        // A live change is refused here and nothing reaches the session.
        let Action::Control(intent) = app.on_key(key('+'), &[]) else {
            panic!("+ is a control in bench");
        };
        assert!(source.control(intent).is_some_and(|m| m.contains("fixed")));
        assert!(controls.try_recv().is_err());
    }

    #[test]
    fn in_a_sweep_n_sends_next_and_live_changes_are_refused() {
        let running = SessionState::Running;
        assert_eq!(
            sweep_control(&running, Intent::NextPoint).map(|(c, _)| c),
            Ok(Control::Next)
        );
        assert_eq!(
            sweep_control(&running, Intent::StopStart).map(|(c, _)| c),
            Ok(Control::Stop)
        );
        assert_eq!(
            sweep_control(&SessionState::Paused, Intent::PauseResume).map(|(c, _)| c),
            Ok(Control::Resume)
        );
        for intent in [Intent::IodepthUp, Intent::BlockSizeDown, Intent::NextRw] {
            assert!(sweep_control(&running, intent).is_err());
        }
        // Stopped, the sweep does not start again: q writes what finished.
        for intent in [Intent::StopStart, Intent::NextPoint] {
            assert!(sweep_control(&SessionState::Idle, intent).is_err());
        }
    }

    /// A source over `snap` (host and kernel fixed) beside the disks table's `rows`, in a
    /// runtime as the dashboard has one.
    fn dashboard(
        snap: Snapshot,
        rows: &[crate::monitor::iostat::IostatRow],
        size: (u16, u16),
    ) -> (
        View,
        String,
        ratatui::Terminal<ratatui::backend::TestBackend>,
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("runtime");
        let _entered = runtime.enter();
        let snap = Arc::new(snap);
        let had_device = snap.disk().map(str::to_owned);
        let (_publish, snapshots) = watch::channel(snap.clone());
        let (control, _controls) = mpsc::unbounded_channel();
        let mut source = BenchSource {
            snapshots,
            control,
            next_job: snap.job().clone(),
            snap,
            closed: false,
            disks: MonitorSource::open(DISKS_INTERVAL, false).expect("/proc/diskstats"),
            had_device,
            started: true,
            host: "db-07".into(),
            kernel: "Linux 6.18.0".into(),
        };
        let mut app = App::new(Mode::Bench, true);
        let rows = rows
            .iter()
            .map(|r| from_monitor::disk_row(r, false))
            .collect();
        let view = source.view_of(&mut app, rows);
        let mut term =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(size.0, size.1)).unwrap();
        term.draw(|f| crate::tui::ui::render(f, &view)).unwrap();
        let buf = term.backend().buffer();
        let text = buf
            .content
            .chunks(usize::from(size.0))
            .map(|row| row.iter().map(ratatui::buffer::Cell::symbol).collect())
            .collect::<Vec<String>>()
            .join("\n");
        (view, text, term)
    }

    /// `iostat -x` rows of the disks table: vda and vdb, not the session's numbers.
    fn table_rows() -> Vec<crate::monitor::iostat::IostatRow> {
        use crate::monitor::iostat::IostatRow;
        ["vda", "vdb"]
            .iter()
            .zip([66_612.35, 48_210.5])
            .map(|(name, r_s)| IostatRow {
                reads_per_s: r_s,
                read_kb_per_s: r_s * 4.0,
                read_await_ms: 0.41,
                queue_size: 27.3,
                util_pct: 99.2,
                ..IostatRow::idle(name)
            })
            .collect()
    }

    const SIZES: [(u16, u16); 2] = [(80, 24), (160, 50)];

    /// A size-based fio plan of four jobs that ended at different times, over: the jobs table
    /// shows each job's whole-run numbers (not the same last interval four times) and says so;
    /// the header does not read `size-based: 0%`; the charts' headline is the totals.
    #[test]
    fn a_finished_plan_shows_each_job_s_whole_run() {
        let mut snap = crate::tui::ui::sample::plan::snapshot();
        snap.state = SessionState::Finished(RunStatus::Completed);
        snap.ran_to_end = true;
        snap.plan = crate::session::PlanProgress {
            index: 0,
            count: 1,
            bytes: Some((0, 4 << 30)),
        };
        snap.plan_points = Arc::new(vec![Vec::new()]);
        // The jobs ended at different times (21.4 s, 20.86 s, 26.5 s, 30 s): each job's rates are over its
        // own time, as the session leaves them at the step's end.
        let last = snap.jobs[3].interval.clone();
        for (job, own_s) in snap.jobs.iter_mut().zip([30.0, 21.4, 20.86, 26.5]) {
            let c = &mut job.cumulative;
            for d in [&mut c.read, &mut c.write] {
                {
                    d.iops = d.ios as f64 / own_s;
                    d.bw_bytes_per_s = d.bytes as f64 / own_s;
                }
            }
            c.duration = Duration::from_secs_f64(own_s);
            // The last interval was the same for all: the step total's.
            job.interval.clone_from(&last);
        }
        let expected: Vec<String> = snap
            .jobs
            .iter()
            .map(|j| {
                let c = &j.cumulative;
                format!(
                    "{:.1}",
                    (c.read.bw_bytes_per_s + c.write.bw_bytes_per_s) / 1_048_576.0
                )
            })
            .collect();
        for size in SIZES {
            let (view, screen, term) = dashboard(snap.clone(), &table_rows(), size);
            assert_eq!(
                view.jobs.as_ref().unwrap().span,
                crate::tui::view::JobsSpan::WholeRun
            );
            assert!(
                screen.contains("jobs, whole run (each over its own time)"),
                "{screen}"
            );
            for (job, mib) in snap.jobs.iter().zip(&expected) {
                let row = screen
                    .lines()
                    .find(|l| l.contains(&format!(" {} ", job.name)))
                    .unwrap_or_else(|| panic!("{} in {screen}", job.name));
                assert!(row.contains(&format!(" {mib} ")), "{mib} in {row}");
            }
            assert!(!screen.contains("last interval"), "{screen}");
            assert!(!screen.contains("size-based"), "{screen}");
            assert!(screen.contains("FINISHED step 1/1"), "{screen}");
            assert!(screen.contains("throughput and IOPS, totals"), "{screen}");
            insta::assert_snapshot!(
                format!("finished_plan_{}x{}", size.0, size.1),
                term.backend()
            );
        }
    }

    /// A one-job bench, over: at 80x24 the latency marks are the step's p99 (the
    /// summary's), not the last interval's.
    #[test]
    fn a_finished_bench_shows_the_run_s_p99() {
        let mut snap = crate::tui::ui::sample::plan::snapshot();
        let job = snap.jobs.remove(1);
        snap.jobs = vec![job];
        snap.disks.truncate(1);
        let job = &snap.jobs[0];
        snap.step.interval.clone_from(&job.interval);
        snap.step.cumulative = job.cumulative.clone();
        snap.step.series = job.series.clone();
        snap.plan = crate::session::PlanProgress {
            index: 0,
            count: 1,
            bytes: None,
        };
        snap.plan_points = Arc::new(vec![Vec::new()]);
        snap.state = SessionState::Finished(RunStatus::Completed);
        snap.ran_to_end = true;
        let p99 = |v: &crate::session::StatsView| {
            fmt::latency_ns(snap_view::percentiles(&v.read.latency).p99_ns)
        };
        let run = p99(&snap.step.cumulative);
        let last = p99(snap.step.interval.as_ref().unwrap());
        assert_ne!(run, last, "the sample's last interval differs from its run");
        for size in SIZES {
            let (_, screen, term) = dashboard(snap.clone(), &table_rows(), size);
            assert!(screen.contains(&format!("p99 {run}")), "{run} in {screen}");
            assert!(
                !screen.contains(&format!("p99 {last}")),
                "{last} in {screen}"
            );
            assert!(!screen.contains("marks: last"), "{screen}");
            assert!(screen.contains("FINISHED"), "{screen}");
            assert!(screen.contains("throughput and IOPS, totals"), "{screen}");
            if size == (80, 24) {
                assert!(screen.contains("marks: seg"), "{screen}");
            }
            insta::assert_snapshot!(
                format!("finished_bench_{}x{}", size.0, size.1),
                term.backend()
            );
        }
    }

    /// A sweep stopped after its fifth point: the footer says how many points finished, the
    /// charts' headline is the last point's totals.
    #[test]
    fn a_finished_sweep_says_so() {
        let mut snap = crate::tui::ui::sample::sweep::snapshot();
        snap.state = SessionState::Finished(RunStatus::Interrupted);
        for size in SIZES {
            let (view, screen, term) = dashboard(snap.clone(), &table_rows(), size);
            let done = view
                .sweep
                .as_ref()
                .unwrap()
                .rows
                .iter()
                .filter(|r| matches!(r.state, PointState::Done(_)))
                .count();
            assert!(
                screen.contains(&format!("sweep over: {done} of 8 points")),
                "{screen}"
            );
            assert!(screen.contains("INTERRUPTED"), "{screen}");
            // The last step's totals, named as the step it is.
            assert!(
                screen.contains("throughput and IOPS, step 6 totals"),
                "{screen}"
            );
            assert!(!screen.contains("ETA"), "{screen}");
            insta::assert_snapshot!(
                format!("finished_sweep_{}x{}", size.0, size.1),
                term.backend()
            );
        }
    }

    /// "over" only once the plan is: waiting for its first point a sweep is starting, and
    /// stopped short with points left it says it stopped.
    #[test]
    fn a_sweep_is_over_only_when_its_plan_is() {
        let mut starting = crate::tui::ui::sample::sweep::snapshot();
        starting.state = SessionState::Idle;
        starting.step.marks = Arc::default();
        let mut stopped = crate::tui::ui::sample::sweep::snapshot();
        stopped.state = SessionState::Idle;
        for size in SIZES {
            let (view, screen, _) = dashboard(starting.clone(), &table_rows(), size);
            assert!(view.sweep.as_ref().unwrap().running, "{screen}");
            assert!(!screen.contains(" over"), "{screen}");
            assert!(!screen.contains("stopped"), "{screen}");
            let (view, screen, _) = dashboard(stopped.clone(), &table_rows(), size);
            let done = view
                .sweep
                .as_ref()
                .unwrap()
                .rows
                .iter()
                .filter(|r| matches!(r.state, PointState::Done(_)))
                .count();
            assert!(done < 8, "{screen}");
            assert!(!screen.contains(" over"), "{screen}");
            assert!(
                screen.contains(&format!("sweep stopped: {done} of 8 points")),
                "{screen}"
            );
        }
    }

    /// mark speaks of its tests: over, the footer counts tests, not a sweep's points.
    #[test]
    fn a_finished_mark_counts_its_tests() {
        let mut snap = crate::tui::ui::sample::mark::snapshot();
        snap.state = SessionState::Finished(RunStatus::Completed);
        for size in SIZES {
            let (_, screen, term) = dashboard(snap.clone(), &table_rows(), size);
            assert!(screen.contains("mark over, tests: "), "{screen}");
            assert!(!screen.contains("sweep over"), "{screen}");
            assert!(!screen.contains(" points"), "{screen}");
            insta::assert_snapshot!(
                format!("finished_mark_{}x{}", size.0, size.1),
                term.backend()
            );
        }
    }

    /// During a mark test's warm-up the header says so, and the charts say no rate: the last
    /// point is the previous test's.
    #[test]
    fn a_mark_warming_up_shows_no_stale_rate() {
        let mut snap = crate::tui::ui::sample::mark::snapshot();
        snap.state = SessionState::Ramp;
        snap.step.ramp_remaining = Some(Duration::from_secs(2));
        let previous = snap
            .step
            .series
            .back()
            .copied()
            .expect("a previous test's point");
        let stale = fmt::rate(previous.read_iops + previous.write_iops);
        for size in SIZES {
            let (view, screen, _) = dashboard(snap.clone(), &table_rows(), size);
            assert_eq!(
                view.header.state,
                Some(crate::tui::view::RunState::WarmingUp)
            );
            assert!(screen.contains("WARM-UP"), "{screen}");
            assert!(screen.contains("warm-up, not measured"), "{screen}");
            assert!(screen.contains("warm-up: test 6 of 8"), "{screen}");
            let iops_line = screen
                .lines()
                .find(|l| l.contains("IOPS  "))
                .expect("the IOPS chart's title");
            assert!(!iops_line.contains(&stale), "{stale} in {iops_line}");
            assert!(!iops_line.contains("read "), "{iops_line}");
        }
    }

    /// The device panel and the disks table show the same sample of the target's disks:
    /// both from the table's rows while live; frozen numbers keep the session's and say so.
    #[test]
    fn the_device_panel_takes_the_disks_table_s_sample() {
        use crate::tui::view::{DeviceRates, DiskRates};

        let rows: Vec<crate::tui::view::DiskRow> = table_rows()
            .iter()
            .map(|r| from_monitor::disk_row(r, false))
            .collect();
        let session = DeviceRates {
            r_s: 49_200.0,
            ..DeviceRates::default()
        };
        let live = DeviceView {
            name: "vda".into(),
            now: session,
            window: DeviceWindow::Now {
                interval: Duration::from_millis(1002),
            },
            disks: vec![
                DiskRates {
                    name: "vda".into(),
                    now: Some(session),
                },
                DiskRates {
                    name: "vdb".into(),
                    now: None,
                },
            ],
            ..DeviceView::default()
        };
        let mut device = live.clone();
        same_sample(&mut device, &rows);
        assert_eq!(device.now, from_monitor::row_rates(&rows[0]));
        assert!((device.now.r_s - 66_612.35).abs() < 1e-9);
        assert_eq!(device.disks[0].now.unwrap().r_s, rows[0].r_s);
        assert_eq!(device.disks[1].now.unwrap().r_s, rows[1].r_s);
        assert_eq!(
            device.window,
            DeviceWindow::Now {
                interval: DISKS_INTERVAL
            }
        );
        // Frozen: the step's last interval stays, labelled as such.
        let frozen_window = DeviceWindow::StepEnd {
            step: 2,
            interval: Duration::from_millis(400),
            why: Frozen::Ended,
        };
        let mut frozen = DeviceView {
            window: frozen_window,
            ..live.clone()
        };
        same_sample(&mut frozen, &rows);
        assert_eq!((frozen.now, frozen.window), (session, frozen_window));
        // A disk the table lacks keeps the session's numbers.
        let mut other = live;
        same_sample(&mut other, &[]);
        assert_eq!(other.now, session);

        // The whole dashboard: the panel's r/s is the table's.
        let snap = crate::tui::ui::sample::plan::snapshot();
        let (_, screen, _) = dashboard(snap, &table_rows(), (160, 50));
        assert!(
            screen.contains("devices (iostat -x) now, last 1s"),
            "{screen}"
        );
        assert!(screen.contains("now: last 1s"), "{screen}");
        assert!(screen.contains("66.6k"), "{screen}");
        assert!(screen.contains("66612.35"), "{screen}");
        assert!(!screen.contains("962"), "the session's r/s: {screen}");
    }

    #[test]
    fn the_device_numbers_say_whether_they_are_live_or_frozen() {
        let second = Some(Duration::from_millis(1000));
        assert_eq!(
            device_window(&SessionState::Running, 2, second),
            DeviceWindow::Now {
                interval: Duration::from_secs(1)
            }
        );
        for (state, why) in [
            (SessionState::Paused, Frozen::Paused),
            (SessionState::Idle, Frozen::Stopped),
            (SessionState::Finished(RunStatus::Completed), Frozen::Ended),
        ] {
            assert_eq!(
                device_window(&state, 2, Some(Duration::from_millis(400))),
                DeviceWindow::StepEnd {
                    step: 2,
                    interval: Duration::from_millis(400),
                    why
                }
            );
        }
    }

    #[test]
    fn the_reconciliation_names_the_finished_step_it_covers() {
        let marks = [mark(0, 0), mark(1, 30)];
        let elapsed = Duration::from_secs(12);
        // Step 2 runs: the reconciliation is step 1's, 30 s long.
        assert_eq!(
            reconciliation_of(&SessionState::Running, 2, elapsed, &marks).as_deref(),
            Some("seg 1 (30s)")
        );
        // Step 2 stopped: its own, over its measured 12 s.
        assert_eq!(
            reconciliation_of(&SessionState::Idle, 2, elapsed, &marks).as_deref(),
            Some("seg 2 (12s)")
        );
        // The first step runs: nothing finished yet.
        assert_eq!(
            reconciliation_of(&SessionState::Running, 1, elapsed, &marks[..1]),
            None
        );
    }
}
