//! A step of four jobs at once, as a session publishes it: shaped like an LSM store's compaction
//! (fio's `write128`, `randread128`, `write256`, `randread256`: psync, iodepth 1, 128k and
//! 256k blocks) on a volume striped over two disks, 30 s into a 60 s step, step 1 of 3. The
//! [`Snapshot`] is built by hand and goes through the same conversions as the live dashboard.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::bench::spec::{EngineKind, JobSpec, RwMode};
use crate::bench::target::TargetKind;
use crate::monitor::iostat::IostatRow;
use crate::record::EngineRecord;
use crate::session::{
    DiskView, IntervalLatency, JobView, PlanProgress, SeriesPoint, SessionState, Snapshot,
    StatsView, StepMark, StepView, TargetView,
};
use crate::stats::{LatencyHistogram, WorkerStats};
use crate::tui::view::from_snapshot as snap_view;
use crate::tui::view::{DeviceWindow, View};

/// Seconds of the step so far; one interval a second.
const ELAPSED_S: u64 = 30;

/// `(name, rw, block size, IOPS, p50)` of the four jobs.
const JOBS: [(&str, RwMode, u64, f64, u64); 4] = [
    ("write128", RwMode::Write, 128 << 10, 820.0, 1_150_000),
    ("randread128", RwMode::RandRead, 128 << 10, 1_240.0, 760_000),
    ("write256", RwMode::Write, 256 << 10, 450.0, 2_100_000),
    ("randread256", RwMode::RandRead, 256 << 10, 690.0, 1_380_000),
];

fn spec(rw: RwMode, block_size_bytes: u64) -> JobSpec {
    JobSpec {
        rw,
        block_size_bytes,
        iodepth: 1,
        numjobs: 1,
        ioengine: EngineKind::Psync,
        runtime: Duration::from_secs(2 * ELAPSED_S),
        ..JobSpec::default()
    }
}

/// `ios` latencies around `p50_ns`, with a tail, deterministic per `seed`.
fn latencies(ios: u64, p50_ns: u64, seed: u64) -> LatencyHistogram {
    let mut hist = LatencyHistogram::new();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64 ^ seed.wrapping_mul(0x2545_f491);
    for n in 0..ios {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let spread = match n % 100 {
            0 => 3_000 + state % 5_000,
            _ => 600 + state % 800,
        };
        hist.record(p50_ns * spread / 1_000);
    }
    hist
}

/// One job's stats over `seconds` at `iops`, reads or writes.
pub(super) fn job_stats(
    rw: RwMode,
    bs: u64,
    iops: f64,
    p50_ns: u64,
    seconds: u64,
    seed: u64,
) -> WorkerStats {
    let mut stats = WorkerStats::new(0);
    let ios = (iops * seconds as f64) as u64;
    let dir = if rw == RwMode::Write {
        &mut stats.write
    } else {
        &mut stats.read
    };
    dir.ios = ios;
    dir.bytes = ios * bs;
    dir.latency = latencies(ios.min(4_000), p50_ns, seed);
    stats
}

pub(super) fn point(seq: u64, view: &StatsView) -> SeriesPoint {
    SeriesPoint {
        seq,
        step: 0,
        at: Duration::from_secs(seq + 1),
        duration: Duration::from_secs(1),
        read_iops: view.read.iops,
        read_bw_bytes_per_s: view.read.bw_bytes_per_s,
        read_lat_mean_ns: view.read.latency.mean_ns,
        read_lat_p99_ns: view.read.latency.percentile_ns(99.0),
        write_iops: view.write.iops,
        write_bw_bytes_per_s: view.write.bw_bytes_per_s,
        write_lat_mean_ns: view.write.latency.mean_ns,
        write_lat_p99_ns: view.write.latency.percentile_ns(99.0),
        sync_lat_mean_ns: 0.0,
        ..SeriesPoint::default()
    }
}

/// A deterministic ripple of +-8%.
fn wobble(i: u64, job: usize) -> f64 {
    [0.0, 0.04, 0.08, 0.03, -0.05, -0.08, -0.02, 0.05][(i as usize + job * 3) % 8]
}

pub(super) fn iostat(name: &str, r_s: f64, w_s: f64, util_pct: f64) -> IostatRow {
    IostatRow {
        reads_per_s: r_s,
        writes_per_s: w_s,
        read_kb_per_s: r_s * 96.0,
        write_kb_per_s: w_s * 128.0,
        read_await_ms: 0.94,
        write_await_ms: 1.62,
        queue_size: 1.9,
        util_pct,
        ..IostatRow::idle(name)
    }
}

/// The step after 30 s: every job with its last interval, its step so far and its series.
#[must_use]
pub fn snapshot() -> Snapshot {
    let second = Duration::from_secs(1);
    let mut jobs = Vec::new();
    let mut series_total = VecDeque::new();
    let mut heat = VecDeque::new();
    let mut total_interval = WorkerStats::new(0);
    let mut total_cumulative = WorkerStats::new(0);
    for (j, &(name, rw, bs, iops, p50_ns)) in JOBS.iter().enumerate() {
        let mut series = VecDeque::new();
        let mut last = None;
        for i in 0..ELAPSED_S {
            let rate = iops * (1.0 + wobble(i, j));
            let stats = job_stats(rw, bs, rate, p50_ns, 1, i * 4 + j as u64);
            let view = StatsView::from_stats(&stats, second);
            series.push_back(point(i, &view));
            last = Some((stats, view));
        }
        let Some((last_stats, interval)) = last else {
            continue;
        };
        total_interval.add(&last_stats);
        let cumulative = job_stats(rw, bs, iops, p50_ns, ELAPSED_S, 1_000 + j as u64);
        total_cumulative.add(&cumulative);
        jobs.push(JobView {
            name: name.into(),
            group: 0,
            spec: spec(rw, bs),
            target: PathBuf::from(format!("/srv/lsm/{name}")),
            disk: Some("dm-0".into()),
            interval: Some(interval),
            cumulative: StatsView::from_stats(&cumulative, Duration::from_secs(ELAPSED_S)),
            errors: 0,
            series: Arc::new(series),
            steady: None,
            sustained: None,
            verify: None,
        });
    }
    for i in 0..ELAPSED_S {
        let mut sum = SeriesPoint::default();
        for job in &jobs {
            let p = job.series[usize::try_from(i).unwrap_or(0)];
            sum = SeriesPoint {
                read_iops: sum.read_iops + p.read_iops,
                read_bw_bytes_per_s: sum.read_bw_bytes_per_s + p.read_bw_bytes_per_s,
                write_iops: sum.write_iops + p.write_iops,
                write_bw_bytes_per_s: sum.write_bw_bytes_per_s + p.write_bw_bytes_per_s,
                ..p
            };
        }
        series_total.push_back(sum);
        let (read, _) = crate::stats::bounded(latencies(2_000, 900_000, i).fine_buckets());
        heat.push_back(Arc::new(IntervalLatency {
            at: sum.at,
            read,
            ..IntervalLatency::default()
        }));
    }
    let vda = iostat("vda", 962.0, 641.0, 71.4);
    let vdb = iostat("vdb", 968.0, 629.0, 70.8);
    let disks = vec![
        DiskView {
            row: Some(vda.clone()),
            last: Some(vda),
            ..DiskView::new("vda".into(), None)
        },
        DiskView {
            row: Some(vdb.clone()),
            last: Some(vdb),
            ..DiskView::new("vdb".into(), None)
        },
    ];
    Snapshot {
        seq: 30,
        ran_to_end: false,
        state: SessionState::Running,
        target: TargetView {
            path: jobs[0].target.clone(),
            kind: TargetKind::File,
            working_set_bytes: 1 << 30,
            dio_align_bytes: 512,
        },
        engine: EngineRecord {
            requested: "psync".into(),
            used: "psync".into(),
            fallback: None,
            ring_flags: Vec::new(),
            registered_file: false,
            registered_buffers: false,
            vectored: false,
            notes: Vec::new(),
        },
        warnings: Vec::new(),
        notes: Vec::new(),
        device_absent: None,
        filled: false,
        error: None,
        plan: PlanProgress {
            index: 0,
            count: 3,
            bytes: None,
        },
        plan_points: Arc::new(vec![Vec::new(); 3]),
        plan_notes: Arc::new(vec![Vec::new(); 3]),
        finished: Arc::new(Vec::new()),
        run: Arc::new(Vec::new()),
        step: StepView {
            index: 0,
            elapsed: Duration::from_secs(ELAPSED_S),
            remaining: Duration::from_secs(ELAPSED_S),
            ramp_remaining: None,
            interval: Some(StatsView::from_stats(&total_interval, second)),
            cumulative: StatsView::from_stats(&total_cumulative, Duration::from_secs(ELAPSED_S)),
            series: Arc::new(series_total),
            latency_history: Arc::new(heat),
            marks: Arc::new(vec![StepMark {
                index: 0,
                job: "4 jobs: write128, randread128, write256, randread256".into(),
                at: Duration::ZERO,
                engine: "psync".into(),
            }]),
            reconciliation: None,
            trace: None,
        },
        jobs,
        disks,
    }
}

/// The dashboard of [`snapshot`] with the job `selected` (`None`: the step total) driving the
/// charts, as the live source builds it.
#[must_use]
pub fn view(snap: &Snapshot, selected: Option<usize>) -> View {
    let mut view = super::bench();
    let h = &mut view.header;
    h.target = Some(snap_view::target_label(snap));
    h.disk = snap_view::disk_label(snap);
    h.engine = Some(snap_view::engine_label(snap));
    h.job = Some(snap_view::job_label(snap));
    h.elapsed = snap.step.elapsed;
    h.step = snap_view::step(snap);
    h.size_based = h.step.and_then(|_| snap_view::size_progress(snap));
    h.remaining = h.size_based.is_none().then_some(snap.step.remaining);
    h.record_step = Some((1, 1));
    view.throughput = Some(snap_view::throughput_for(snap, selected));
    view.latency = Some(snap_view::latency_for(snap, selected));
    view.jobs = snap_view::jobs(snap, selected);
    if let Some(dev) = &mut view.device {
        dev.name = "vda".into();
        dev.window = DeviceWindow::Now {
            interval: Duration::from_secs(1),
        };
        dev.disks = snap_view::disks(snap);
        dev.reconciliation = None;
        dev.reconciliation_of = None;
        dev.warnings.truncate(1);
    }
    view.ui.message = None;
    view
}
