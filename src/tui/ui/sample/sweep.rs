//! A block-size sweep, `--rw write,read --bs 1M,2M,4M,8M` (8 points, 30 s each after a 2 s
//! ramp, io_uring iodepth 16 on vda), as a session publishes it: five points finished (the
//! fourth cut short with `n`), the sixth (read 2M) 12 s in. The [`Snapshot`] is built by hand
//! and goes through the same conversions as the live dashboard.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use crate::bench::spec::{EngineKind, JobSpec, RwMode};
use crate::monitor::iostat::IostatRow;
use crate::record::RunStatus;
use crate::session::{
    DiskView, JobView, PlanProgress, PointRates, SessionState, Snapshot, StatsView, StepMark,
    StepResult,
};
use crate::tui::view::from_monitor;
use crate::tui::view::from_snapshot as snap_view;
use crate::tui::view::{DeviceWindow, SweepMetric, View};

use super::plan::{iostat, job_stats, point};

const BLOCK_SIZES: [(&str, u64); 4] = [
    ("1M", 1 << 20),
    ("2M", 2 << 20),
    ("4M", 4 << 20),
    ("8M", 8 << 20),
];

/// Seconds the running point has measured so far.
const ELAPSED_S: u64 = 12;
const RUNTIME: Duration = Duration::from_secs(30);
const RAMP: Duration = Duration::from_secs(2);

/// `(bytes/s, mean, p99)` of the finished points: writes flatten out past 2M, reads climb.
const WRITES: [(f64, f64, u64); 4] = [
    (412e6, 38_600_000.0, 61_000_000),
    (455e6, 70_100_000.0, 118_000_000),
    (470e6, 136_000_000.0, 240_000_000),
    (474e6, 271_000_000.0, 455_000_000),
];
const READ_1M: (f64, f64, u64) = (598e6, 26_700_000.0, 39_500_000);

fn rates(bs: u64, (bytes_per_s, mean_ns, p99_ns): (f64, f64, u64), seconds: u64) -> PointRates {
    let iops = bytes_per_s / bs as f64;
    PointRates {
        ios: (iops * seconds as f64) as u64,
        iops,
        bytes_per_s,
        mean_ns,
        p99_ns,
    }
}

fn spec(rw: RwMode, block_size_bytes: u64) -> JobSpec {
    JobSpec {
        rw,
        block_size_bytes,
        iodepth: 16,
        numjobs: 1,
        ioengine: EngineKind::IoUring,
        runtime: RUNTIME,
        ramp: RAMP,
        ..JobSpec::default()
    }
}

/// The sweep 12 s into its sixth point.
#[must_use]
pub fn snapshot() -> Snapshot {
    let mut snap = super::plan::snapshot();
    let points: Vec<Vec<(String, String)>> = ["write", "read"]
        .iter()
        .flat_map(|rw| {
            BLOCK_SIZES
                .iter()
                .map(move |(bs, _)| vec![("rw".into(), (*rw).into()), ("bs".into(), (*bs).into())])
        })
        .collect();
    let mut finished: Vec<StepResult> = WRITES
        .iter()
        .zip(BLOCK_SIZES)
        .enumerate()
        .map(|(step, (&numbers, (_, bs)))| {
            // The 8M point was skipped with `n` after 9 s.
            let (status, seconds) = if step == 3 {
                (RunStatus::Interrupted, 9)
            } else {
                (RunStatus::Completed, 30)
            };
            StepResult {
                step,
                record_step: u32::try_from(step).unwrap_or(0),
                status,
                read: PointRates::default(),
                write: rates(bs, numbers, seconds),
                util_pct: Some(97.1 + 0.6 * f64::from(u32::try_from(step).unwrap_or(0))),
                aqu_sz: Some(15.6),
                marks: Vec::new(),
            }
        })
        .collect();
    finished.push(StepResult {
        step: 4,
        record_step: 4,
        status: RunStatus::Completed,
        read: rates(1 << 20, READ_1M, 30),
        write: PointRates::default(),
        util_pct: Some(96.2),
        aqu_sz: Some(15.9),
        marks: Vec::new(),
    });

    // The running point: read 2M at about 660 MB/s.
    let bs = 2 << 20;
    let second = Duration::from_secs(1);
    let mut series = VecDeque::new();
    let mut last = None;
    for i in 0..ELAPSED_S {
        let stats = job_stats(RwMode::Read, bs, 315.0, 48_000_000, 1, i);
        let view = StatsView::from_stats(&stats, second);
        series.push_back(point(i, &view));
        last = Some(view);
    }
    let cumulative = StatsView::from_stats(
        &job_stats(RwMode::Read, bs, 315.0, 48_000_000, ELAPSED_S, 99),
        Duration::from_secs(ELAPSED_S),
    );
    let job = spec(RwMode::Read, bs);
    // The series' clock is measured time: 3 full points, 9 s of the fourth, 2 more full ones.
    let starts = [0, 30, 60, 90, 99, 129];
    let steps = starts
        .iter()
        .zip(&points)
        .enumerate()
        .map(|(index, (&at, point))| StepMark {
            index: u32::try_from(index).unwrap_or(0),
            job: format!("{} bs={} iodepth=16", point[0].1, point[1].1),
            at: Duration::from_secs(at),
            engine: "io_uring".into(),
        })
        .collect();
    let series = series
        .into_iter()
        .map(|mut p| {
            p.step = 5;
            p.at += Duration::from_secs(129);
            p
        })
        .collect();
    let vda = IostatRow {
        read_kb_per_s: 316.0 * 2048.0,
        queue_size: 15.8,
        read_await_ms: 50.2,
        write_await_ms: 0.0,
        ..iostat("vda", 316.0, 0.0, 96.8)
    };
    snap.step.index = 5;
    snap.step.elapsed = Duration::from_secs(ELAPSED_S);
    snap.step.remaining = RUNTIME - Duration::from_secs(ELAPSED_S);
    snap.step.interval = last;
    snap.step.cumulative = cumulative.clone();
    snap.step.series = Arc::new(series);
    snap.step.marks = Arc::new(steps);
    snap.step.latency_history = Arc::new(VecDeque::new());
    snap.engine.requested = "io_uring".into();
    snap.engine.used = "io_uring".into();
    snap.target.path = "/srv/bench/.diskdash-scratch".into();
    snap.target.working_set_bytes = 1 << 30;
    snap.jobs = vec![JobView {
        name: "bench".into(),
        group: 0,
        spec: job,
        target: snap.target.path.clone(),
        disk: Some("vda".into()),
        interval: snap.step.interval.clone(),
        cumulative,
        errors: 0,
        // The running step's points are its one job's.
        series: Arc::clone(&snap.step.series),
        steady: None,
        sustained: None,
        verify: None,
    }];
    snap.disks = vec![DiskView {
        row: Some(vda.clone()),
        last: Some(vda),
        ..DiskView::new("vda".into(), None)
    }];
    snap.plan = PlanProgress {
        index: 5,
        count: points.len(),
        bytes: None,
    };
    snap.plan_points = Arc::new(points);
    snap.finished = Arc::new(finished);
    snap.state = SessionState::Running;
    snap
}

/// The dashboard of [`snapshot`] with the chart on `metric`, as the live source builds it.
#[must_use]
pub fn view(snap: &Snapshot, metric: SweepMetric) -> View {
    let mut view = super::plan::view(snap, None);
    let h = &mut view.header;
    view.sweep = crate::tui::view::sweep::sweep(snap, metric);
    h.step = view.sweep.as_ref().map(|s| s.point);
    h.record_step = Some((6, 6));
    view.jobs = None;
    view.ui.sweep_metric = metric;
    if let Some(dev) = &mut view.device {
        dev.window = DeviceWindow::Now {
            interval: Duration::from_secs(1),
        };
        dev.disks = snap_view::disks(snap);
        if let Some(row) = snap.first_disk().and_then(|d| d.last.as_ref()) {
            dev.now = from_monitor::device_rates(row);
            dev.history = vec![dev.now; 40];
        }
    }
    view
}
