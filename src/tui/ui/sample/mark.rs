//! `diskdash mark` (the default profile, `--loops 1`: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1,
//! RND4K Q1T1, reads then writes, 5 s each after a 5 s warm-up, on vda) as a session publishes
//! it: the four reads and the first write finished, the sixth test (write SEQ1M Q1T1) 3 s in.
//! Each step's point is `measure` and `test`, as `plan::mark` names them; the [`Snapshot`] is
//! built by hand and goes through the same conversions as the live dashboard.

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
use crate::tui::view::{SweepMetric, View};

use super::plan::{iostat, job_stats, point};

/// CrystalDiskMark's default tests: label, block size, iodepth.
const TESTS: [(&str, u64, u32); 4] = [
    ("SEQ1M Q8T1", 1 << 20, 8),
    ("SEQ1M Q1T1", 1 << 20, 1),
    ("RND4K Q32T1", 4096, 32),
    ("RND4K Q1T1", 4096, 1),
];

const RUNTIME: Duration = Duration::from_secs(5);
/// Seconds the running test has measured so far.
const ELAPSED_S: u64 = 3;

/// `(bytes/s, mean, p99, %util, aqu-sz)` of the finished steps: the reads, then SEQ1M Q8T1's
/// write.
const FINISHED: [(f64, f64, u64, f64, f64); 5] = [
    (3_412e6, 2_450_000.0, 3_900_000, 99.8, 7.9),
    (1_604e6, 650_000.0, 1_020_000, 94.1, 1.0),
    (612e6, 213_000.0, 480_000, 99.6, 31.2),
    (58.3e6, 69_800.0, 121_000, 88.4, 1.0),
    (2_870e6, 2_920_000.0, 5_100_000, 99.7, 7.8),
];

fn spec(rw: RwMode, block_size_bytes: u64, iodepth: u32, ramp: Duration) -> JobSpec {
    JobSpec {
        rw,
        block_size_bytes,
        iodepth,
        numjobs: 1,
        ioengine: EngineKind::IoUring,
        runtime: RUNTIME,
        ramp,
        ..JobSpec::default()
    }
}

/// The rates of a finished test over its 5 s.
fn rates(bs: u64, bytes_per_s: f64, mean_ns: f64, p99_ns: u64) -> PointRates {
    let iops = bytes_per_s / bs as f64;
    PointRates {
        ios: (iops * RUNTIME.as_secs_f64()) as u64,
        iops,
        bytes_per_s,
        mean_ns,
        p99_ns,
    }
}

/// The mark 3 s into its sixth test.
#[must_use]
pub fn snapshot() -> Snapshot {
    let mut snap = super::plan::snapshot();
    let measures = ["read", "write"];
    let points: Vec<Vec<(String, String)>> = measures
        .iter()
        .flat_map(|m| {
            TESTS.iter().map(move |(label, _, _)| {
                vec![
                    ("measure".to_string(), (*m).to_string()),
                    ("test".to_string(), (*label).to_string()),
                ]
            })
        })
        .collect();
    let finished: Vec<StepResult> = FINISHED
        .iter()
        .enumerate()
        .map(|(step, &(bw, mean, p99, util, aqu))| {
            let (_, bs, _) = TESTS[step % 4];
            let done = rates(bs, bw, mean, p99);
            let (read, write) = if step < 4 {
                (done, PointRates::default())
            } else {
                (PointRates::default(), done)
            };
            StepResult {
                step,
                record_step: u32::try_from(step).unwrap_or(0),
                status: RunStatus::Completed,
                read,
                write,
                util_pct: Some(util),
                aqu_sz: Some(aqu),
                marks: Vec::new(),
            }
        })
        .collect();

    // The running test: write SEQ1M Q1T1 at about 1.9 GB/s.
    let bs = 1 << 20;
    let second = Duration::from_secs(1);
    let mut series = VecDeque::new();
    let mut last = None;
    for i in 0..ELAPSED_S {
        let stats = job_stats(RwMode::Write, bs, 1_810.0, 540_000, 1, i);
        let view = StatsView::from_stats(&stats, second);
        let mut p = point(i, &view);
        p.step = 5;
        p.at += Duration::from_secs(25);
        series.push_back(p);
        last = Some(view);
    }
    let cumulative = StatsView::from_stats(
        &job_stats(RwMode::Write, bs, 1_810.0, 540_000, ELAPSED_S, 99),
        Duration::from_secs(ELAPSED_S),
    );
    let job = spec(RwMode::Write, bs, 1, RUNTIME);
    let steps = points
        .iter()
        .take(6)
        .enumerate()
        .map(|(index, point)| StepMark {
            index: u32::try_from(index).unwrap_or(0),
            job: format!("{} {} 1/1", point[1].1, point[0].1),
            at: Duration::from_secs(5 * index as u64),
            engine: "io_uring".into(),
        })
        .collect();
    let vda = IostatRow {
        write_kb_per_s: 1_812.0 * 1024.0,
        queue_size: 1.0,
        write_await_ms: 0.54,
        ..iostat("vda", 0.0, 1_812.0, 93.5)
    };
    snap.step.index = 5;
    snap.step.elapsed = Duration::from_secs(ELAPSED_S);
    snap.step.remaining = RUNTIME - Duration::from_secs(ELAPSED_S);
    snap.step.ramp_remaining = None;
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
        name: "SEQ1M Q1T1 write 1/1".into(),
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

/// The dashboard of [`snapshot`], as the live source builds it (the same steps as a sweep's).
#[must_use]
pub fn view(snap: &Snapshot) -> View {
    super::sweep::view(snap, SweepMetric::Bandwidth)
}
