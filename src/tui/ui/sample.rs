//! Fixed views for the snapshot tests, the render benchmark and the docs. Numbers are shaped
//! like a 4k random-read run on a virtio disk, with a queue-depth change half way.

pub mod fleet;
pub mod mark;
pub mod plan;
pub mod sweep;

use std::time::Duration;

use crate::tui::view::verify::VerifyLine;
use crate::tui::view::{
    DeviceRates, DeviceView, DeviceWindow, Direction, DiskRow, DiskTableView, Frozen, Header,
    HeatColumn, HeatmapView, LatencyBucket, LatencyColumns, LatencyRow, LatencyView, Mode,
    Percentiles, QueueView, RatePoint, Reconciliation, RunState, SortKey, StepMark, ThroughputView,
    UiState, View, Warning, WarningKind,
};

fn wobble(i: usize) -> f64 {
    // A deterministic ripple of +-6%.
    [0.0, 0.03, 0.06, 0.02, -0.04, -0.06, -0.01, 0.04][i % 8]
}

fn points(n: usize, split: usize) -> Vec<RatePoint> {
    (0..n)
        .map(|i| {
            let base = if i < split { 21_000.0 } else { 27_500.0 };
            let iops = base * (1.0 + wobble(i));
            RatePoint {
                t_s: (i + 1) as f64,
                read_iops: iops,
                write_iops: 0.0,
                read_bytes_per_s: iops * 4096.0,
                write_bytes_per_s: 0.0,
                ..RatePoint::default()
            }
        })
        .collect()
}

fn rates(i: usize, iops: f64) -> DeviceRates {
    let iops = iops * (1.0 + wobble(i));
    DeviceRates {
        r_s: iops,
        w_s: 3.0,
        rmb_s: iops * 4096.0 / 1_048_576.0,
        wmb_s: 0.05,
        r_await_ms: 1.48,
        w_await_ms: 0.61,
        aqu_sz: 31.2,
        util_pct: 99.6,
        ..DeviceRates::default()
    }
}

fn pct(p50_ns: u64) -> Percentiles {
    Percentiles {
        p50_ns,
        p90_ns: p50_ns * 17 / 10,
        p99_ns: p50_ns * 4,
        p999_ns: p50_ns * 9,
        max_ns: p50_ns * 31,
    }
}

/// Latencies of one interval shaped like a queue-bound random read around `p50_ns`: a bulk
/// within a factor of two, a tail to ~30x and a deterministic ripple per interval.
fn interval_latencies(i: usize, p50_ns: u64) -> crate::stats::LatencyHistogram {
    let mut hist = crate::stats::LatencyHistogram::new();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64 ^ (i as u64).wrapping_mul(0x2545_f491);
    for n in 0..4_000u64 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let spread = match n % 200 {
            0 => 4_000 + state % 26_000,
            1..=9 => 1_400 + state % 3_000,
            _ => 500 + state % 1_000 + (state >> 32) % 300,
        };
        hist.record(p50_ns * spread / 1_000);
    }
    hist
}

fn p50_at(i: usize) -> u64 {
    if i < 30 { 1_700_000 } else { 2_200_000 }
}

fn buckets() -> Vec<LatencyBucket> {
    let last = interval_latencies(59, p50_at(59)).fine_buckets();
    let mut total = crate::stats::LatencyHistogram::new();
    for i in 30..60 {
        total.add(&interval_latencies(i, p50_at(i)));
    }
    let mut merged: std::collections::BTreeMap<u64, (u64, u64)> = std::collections::BTreeMap::new();
    for b in last {
        merged.entry(b.le_ns).or_default().0 += b.count;
    }
    for b in total.fine_buckets() {
        merged.entry(b.le_ns).or_default().1 += b.count;
    }
    LatencyBucket::from_counts(merged)
}

/// Sixty intervals of reads, the bulk moving up at the iodepth change.
fn heatmap() -> HeatmapView {
    HeatmapView {
        dir: Direction::Read,
        columns: (0..60)
            .map(|i| {
                let (buckets, _) =
                    crate::stats::bounded(interval_latencies(i, p50_at(i)).fine_buckets());
                HeatColumn {
                    t_s: (i + 1) as f64,
                    buckets: buckets.iter().map(|b| (b.le_ns, b.count)).collect(),
                }
            })
            .collect(),
        missing: None,
    }
}

fn disks() -> DiskTableView {
    let row = |name: &str, r_s: f64, w_s: f64, util: f64| DiskRow {
        name: name.into(),
        r_s,
        rkb_s: r_s * 4.0,
        r_await: if r_s > 0.0 { 1.48 } else { 0.0 },
        rareq_sz: if r_s > 0.0 { 4.0 } else { 0.0 },
        w_s,
        wkb_s: w_s * 16.0,
        w_await: if w_s > 0.0 { 0.61 } else { 0.0 },
        wareq_sz: if w_s > 0.0 { 16.0 } else { 0.0 },
        aqu_sz: util / 3.2,
        util,
        vanished: false,
        ..DiskRow::default()
    };
    DiskTableView {
        rows: vec![
            row("vda", 27_431.0, 3.0, 99.6),
            row("vdb", 0.0, 12.5, 1.2),
            row("loop0", 0.0, 0.0, 0.0),
            row("dm-0", 14.0, 2.0, 0.4),
        ],
        selected: Some(0),
        sort: SortKey::Util,
        descending: true,
        discards: false,
        traced: false,
    }
}

fn queue() -> QueueView {
    let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
    QueueView {
        disk: "vda".into(),
        settings: vec![
            kv("scheduler", "none [mq-deadline] kyber bfq"),
            kv("nr_requests", "256"),
            kv("read_ahead_kb", "128"),
            kv("rotational", "0"),
            kv("logical_block", "512"),
            kv("physical_block", "512"),
            kv("max_sectors_kb", "1280"),
            kv("write_cache", "write back"),
            kv("hw_queues", "2"),
        ],
    }
}

fn util_caveat() -> Warning {
    Warning::new(
        WarningKind::UtilCaveat,
        "%util is not saturation here (non-rotational, 2 hw queues); watch aqu-sz",
    )
}

/// A live benchmark, second step, O_DIRECT, device and app agree.
#[must_use]
pub fn bench() -> View {
    let history: Vec<DeviceRates> = (0..60)
        .map(|i| rates(i, if i < 30 { 21_000.0 } else { 27_500.0 }))
        .collect();
    View {
        mode: Mode::Bench,
        header: Header {
            host: "db-07".into(),
            kernel: "Linux 6.18.0".into(),
            target: Some("/srv/diskdash.scratch".into()),
            disk: Some("vda".into()),
            engine: Some("io_uring".into()),
            job: Some("randread bs=4k iodepth=64 numjobs=1 direct".into()),
            state: Some(RunState::Running),
            elapsed: Duration::from_secs(60),
            remaining: Some(Duration::from_secs(30)),
            record_step: Some((2, 2)),
            interval: Some(Duration::from_secs(1)),
            ..Header::default()
        },
        throughput: Some(ThroughputView {
            source: "app".into(),
            points: points(60, 30),
            steps: vec![StepMark {
                t_s: 30.5,
                label: "iodepth=64".into(),
            }],
            headline: None,
            pace: None,
        }),
        latency: Some(LatencyView {
            rows: vec![LatencyRow {
                dir: Direction::Read,
                interval: Some(pct(2_240_000)),
                total: Some(pct(1_870_000)),
                from_schedule: false,
            }],
            buckets: buckets(),
            columns: LatencyColumns::IntervalStep,
            heatmap: Some(heatmap()),
            of: None,
            what: None,
        }),
        device: Some(DeviceView {
            name: "vda".into(),
            now: rates(59, 27_500.0),
            window: DeviceWindow::Now {
                interval: Duration::from_secs(1),
            },
            history,
            reconciliation: Some(Reconciliation {
                app_ios: 1_462_118,
                device_ios: 1_462_301,
                verdict: Some("match: vda completed every I/O of the run, once".into()),
            }),
            reconciliation_of: Some("seg 1 (30s)".into()),
            warnings: vec![
                util_caveat(),
                Warning::new(
                    WarningKind::Note,
                    "wrote the 256M working set with data first (3.1 s): reads measure the \
                     device, writes overwrite allocated blocks",
                ),
            ],
            absent: None,
            disks: Vec::new(),
        }),
        queue: Some(queue()),
        disks: Some(disks()),
        jobs: None,
        sweep: None,
        steady: None,
        sustained: None,
        verify: None,
        top: None,
        trace: None,
        ui: UiState {
            color: true,
            message: Some("iodepth 32 -> 64: segment 2".into()),
            ..UiState::default()
        },
    }
}

/// `n` latencies spread deterministically around `mean_ns` (half to one and a half of it),
/// with one in a hundred `tail` times longer.
fn spread(n: u64, mean_ns: u64, tail: u64) -> crate::stats::LatencyHistogram {
    let mut hist = crate::stats::LatencyHistogram::new();
    for i in 0..n {
        let at = mean_ns / 2 + mean_ns * ((i * 7_919) % 1_000) / 1_000;
        hist.record(if i % 100 == 99 { at * tail } else { at });
    }
    hist
}

/// The `--trace` band of a synthetic session snapshot shaped like 16 jobs x QD64 on a loop
/// device with 2 CPUs: the app's time mostly above the block layer, the workers waiting for
/// a CPU most of it.
#[must_use]
pub fn trace_live() -> crate::session::TraceLive {
    let n = 28_000;
    let mut trace = crate::trace::BlockTrace {
        disk: "loop0".into(),
        ..crate::trace::BlockTrace::default()
    };
    let read = &mut trace.dirs[0];
    read.requests = n;
    read.bytes = n * 4096;
    read.scheduler = spread(n, 4_000, 3);
    read.device = spread(n, 370_000, 2);
    read.whole = spread(n, 380_000, 2);
    crate::session::TraceLive {
        trace,
        duration: Duration::from_secs(1),
        app: spread(n, 3_550_000, 3).summary(),
        cpu_wait_ns_per_io: Some(2_100_000.0),
        cpu_wait_incl_pacing: false,
        lost_events: 0,
    }
}

/// [`bench`] under `--trace` (16 jobs x QD64 on a loop device): the trace band of
/// [`trace_live`] under the charts.
#[must_use]
pub fn bench_traced() -> View {
    let mut view = bench();
    view.header.disk = Some("loop0".into());
    view.header.job = Some("randread bs=4k iodepth=64 numjobs=16 direct".into());
    if let Some(device) = &mut view.device {
        device.name = "loop0".into();
    }
    if let Some(queue) = &mut view.queue {
        queue.disk = "loop0".into();
    }
    let live = trace_live();
    // The latency panel's last interval is the band's.
    if let Some(row) = view.latency.as_mut().and_then(|l| l.rows.first_mut()) {
        row.interval = Some(crate::tui::view::from_snapshot::percentiles(&live.app));
    }
    view.trace = Some(crate::tui::view::from_snapshot::trace(&live));
    view
}

/// Every warning at once: buffered run served by the page cache, io_uring fallback, the device
/// gone from /proc/diskstats, the run failed.
#[must_use]
/// A paced run (`--rate-iops 27500`) that keeps its pace: the asked rate in the throughput
/// title, and reads' latency from the schedule beside their latency from the submit.
pub fn bench_paced() -> View {
    let mut view = bench();
    view.header.job = Some("randread bs=4k iodepth=64 numjobs=1 direct rate_iops=27500".into());
    if let Some(tp) = &mut view.throughput {
        tp.pace = Some("paced 27.5k read IOPS".into());
    }
    if let Some(lat) = &mut view.latency {
        lat.rows.push(LatencyRow {
            dir: Direction::Read,
            interval: Some(pct(2_510_000)),
            total: Some(pct(2_050_000)),
            from_schedule: true,
        });
    }
    view
}

/// A random trim of a raw device: trims in the throughput chart and the latency panel, the
/// device's discards (`d/s`, `dMiB/s`, `d_await`) in its panel, one discard per trim.
#[must_use]
pub fn bench_trim() -> View {
    let mut view = bench();
    view.header.target = Some("/dev/loop1".into());
    view.header.disk = Some("loop1".into());
    view.header.engine = Some("psync".into());
    view.header.job = Some("randtrim bs=64k iodepth=1 numjobs=1 direct".into());
    view.header.record_step = Some((1, 1));
    view.ui.message = None;
    if let Some(tp) = &mut view.throughput {
        tp.steps.clear();
        for (i, p) in tp.points.iter_mut().enumerate() {
            let trims = 1_900.0 * (1.0 + wobble(i));
            *p = RatePoint {
                t_s: p.t_s,
                trim_iops: trims,
                trim_bytes_per_s: trims * 65_536.0,
                ..RatePoint::default()
            };
        }
    }
    if let Some(lat) = &mut view.latency {
        lat.rows = vec![LatencyRow {
            dir: Direction::Trim,
            interval: Some(pct(480_000)),
            total: Some(pct(455_000)),
            from_schedule: false,
        }];
        if let Some(heat) = &mut lat.heatmap {
            heat.dir = Direction::Trim;
        }
    }
    if let Some(dev) = &mut view.device {
        dev.name = "loop1".into();
        let discards = |i: usize| {
            let d = 1_900.0 * (1.0 + wobble(i));
            DeviceRates {
                d_s: d,
                dmb_s: d * 65_536.0 / 1_048_576.0,
                d_await_ms: 0.41,
                aqu_sz: 0.78,
                util_pct: 78.1,
                ..DeviceRates::default()
            }
        };
        dev.history = (0..60).map(discards).collect();
        dev.now = discards(59);
        dev.reconciliation = Some(Reconciliation {
            app_ios: 113_912,
            device_ios: 113_912,
            verdict: Some("match: loop1 completed every trim of the run as one discard".into()),
        });
        dev.reconciliation_of = Some("seg 1 (60s)".into());
        dev.warnings = vec![Warning::new(
            WarningKind::Note,
            "trims are synchronous (BLKDISCARD on a device), one at a time per worker as fio \
             issues them",
        )];
    }
    if let Some(disks) = &mut view.disks {
        // Sorted by %util, as the table is: after vda.
        disks.rows.insert(
            1,
            DiskRow {
                name: "loop1".into(),
                d_s: 1_931.0,
                dkb_s: 1_931.0 * 64.0,
                d_await: 0.41,
                aqu_sz: 0.78,
                util: 78.1,
                ..DiskRow::default()
            },
        );
        // The benchmark's disk is the picked one.
        disks.selected = Some(1);
        disks.discards = true;
    }
    view
}

/// A verified random write reading back after its run: the verification line under the
/// header, one block failed.
#[must_use]
pub fn bench_verify() -> View {
    let mut view = bench();
    view.header.job = Some("randwrite bs=4k iodepth=64 numjobs=1 direct verify=crc32c".into());
    view.header.state = Some(RunState::Running);
    view.ui.message = None;
    if let Some(tp) = &mut view.throughput {
        for p in &mut tp.points {
            *p = RatePoint {
                t_s: p.t_s,
                write_iops: p.read_iops,
                write_bytes_per_s: p.read_bytes_per_s,
                ..RatePoint::default()
            };
        }
    }
    if let Some(lat) = &mut view.latency {
        for row in &mut lat.rows {
            row.dir = Direction::Write;
        }
        if let Some(heat) = &mut lat.heatmap {
            heat.dir = Direction::Write;
        }
    }
    view.verify = Some(VerifyLine {
        job: None,
        kind: "crc32c".into(),
        checked: 41_208,
        failed: 1,
        pass: Some((41_208, 65_536)),
        first_failed: Some(8_392_704),
        writes: true,
        fatal: false,
        finished: false,
    });
    view
}

pub fn bench_warnings() -> View {
    let mut view = bench();
    view.header.engine = Some("psync (io_uring unavailable: EPERM)".into());
    view.header.job = Some("randread bs=4k iodepth=1 numjobs=1 buffered".into());
    view.header.state = Some(RunState::Failed("EIO at offset 1048576".into()));
    if let Some(dev) = &mut view.device {
        dev.reconciliation = Some(Reconciliation {
            app_ios: 1_462_118,
            device_ios: 312,
            verdict: None,
        });
        dev.warnings = vec![
            Warning::new(
                WarningKind::PageCache,
                "app did 4686x the device's I/O: the page cache served it; use --direct",
            ),
            Warning::new(
                WarningKind::FallbackEngine,
                "io_uring unavailable (EPERM); ran psync instead",
            ),
            util_caveat(),
            Warning::new(WarningKind::DeviceGone, "vda vanished from /proc/diskstats"),
        ];
    }
    if let Some(t) = &mut view.disks {
        t.rows[0].vanished = true;
    }
    view.ui.message = None;
    view
}

/// The monitor: every disk, `vda` selected.
#[must_use]
pub fn monitor() -> View {
    let mut view = bench();
    view.mode = Mode::Monitor;
    view.header.target = None;
    view.header.engine = None;
    view.header.job = None;
    view.header.state = Some(RunState::Monitoring);
    view.header.remaining = None;
    view.header.record_step = None;
    view.header.interval = Some(Duration::from_secs(1));
    view.latency = None;
    if let Some(tp) = &mut view.throughput {
        tp.source = "vda".into();
        tp.steps.clear();
    }
    if let Some(dev) = &mut view.device {
        dev.reconciliation = None;
        dev.reconciliation_of = None;
    }
    view.ui.focus = crate::tui::view::Focus::Disks;
    view.ui.message = None;
    view
}

/// A recorded run opened with `diskdash show`.
#[must_use]
pub fn show() -> View {
    let mut view = bench();
    view.mode = Mode::Show;
    view.header.state = Some(RunState::Recorded);
    if let Some(lat) = &mut view.latency {
        lat.columns = LatencyColumns::StepRun;
    }
    if let Some(dev) = &mut view.device {
        dev.window = DeviceWindow::StepAverage {
            step: 2,
            elapsed: Duration::from_secs(30),
        };
        dev.reconciliation_of = Some("seg 2".into());
    }
    view.header.interval = None;
    view.header.remaining = None;
    view.disks = None;
    view.ui.message = None;
    view
}

/// A benchmark on tmpfs: no block device, so the device panel says why.
#[must_use]
pub fn bench_no_device() -> View {
    let mut view = bench();
    view.header.disk = None;
    view.queue = None;
    if let Some(dev) = &mut view.device {
        dev.name = "-".into();
        dev.history.clear();
        dev.reconciliation = None;
        dev.warnings.clear();
        dev.absent = Some(
            "no device statistics: /dev/shm/f is on a tmpfs filesystem (tmpfs) with no block \
             device behind it"
                .into(),
        );
    }
    view
}

/// The benchmark after `s`: step 2 stopped, the device panel frozen on its last interval
/// while the disks table shows the disk idle now.
#[must_use]
pub fn bench_stopped() -> View {
    let mut view = bench();
    view.header.state = Some(RunState::Stopped);
    view.header.remaining = None;
    view.header.elapsed = Duration::from_secs(30);
    if let Some(dev) = &mut view.device {
        dev.window = DeviceWindow::StepEnd {
            step: 2,
            interval: Duration::from_secs(1),
            why: Frozen::Stopped,
        };
        dev.reconciliation_of = Some("seg 2 (30s)".into());
    }
    if let Some(t) = &mut view.disks {
        let idle = DiskRow {
            name: "vda".into(),
            ..DiskRow::default()
        };
        t.rows[0] = idle;
    }
    view.ui.message = Some("stopped: s starts a new segment, q quits".into());
    view
}

/// The benchmark with `vdb` picked in the table: its live rates in the device and queue
/// panels, the reconciliation still the target's (`vda`).
#[must_use]
pub fn bench_other_disk() -> View {
    let mut view = bench();
    if let Some(dev) = &mut view.device {
        dev.name = "vdb".into();
        dev.now = DeviceRates {
            w_s: 12.5,
            wmb_s: 0.2,
            w_await_ms: 0.61,
            aqu_sz: 0.37,
            util_pct: 1.2,
            ..DeviceRates::default()
        };
        dev.history = vec![dev.now; 20];
        dev.reconciliation_of = Some("target vda, seg 1 (30s)".into());
    }
    if let Some(q) = &mut view.queue {
        q.disk = "vdb".into();
    }
    if let Some(t) = &mut view.disks {
        t.selected = Some(1);
    }
    view
}

/// A sustained random write with steady state on, built the way the session builds it: the
/// bandwidth falls off a cliff at 6 GiB written (a drive's write cache filling), climbs, then
/// settles; `iops_slope:1%` over 10 s is attained at 35 s (`keep_going`: it runs on, a dip at
/// 45 s takes two samples out of steady state, the second at 54 s, where the view is).
#[must_use]
pub fn bench_steady(keep_going: bool) -> View {
    use crate::analysis::cliff::Cliff;
    use crate::analysis::steady::Tracker;
    use crate::session::{SteadyView, SustainedView};
    use crate::stats::steady::{Criterion, SteadyState};
    const S: u64 = 1_000_000_000;
    let ss = SteadyState {
        criterion: Criterion::parse("iops_slope:1%").expect("a criterion"),
        dur: Duration::from_secs(10),
        ramp: Duration::from_secs(5),
        keep_going,
    };
    let mut tracker = Tracker::new(ss, Duration::from_secs(1));
    let mut cliff = Cliff::new(30.0);
    let end = if keep_going { 54 } else { 35 };
    for t in 1..=end {
        // 1.2 GiB/s for 5 s, then 209 MiB/s climbing to 313 MiB/s at 32 s, flat after (a dip
        // at 45 s).
        let mib: u64 = match t {
            0..=5 => 1230,
            6..=32 => 185 + 4 * t,
            45 => 250,
            _ => 313,
        };
        let bytes = mib << 20;
        tracker.interval(t * S, S, bytes / 16_384, bytes, 0.0);
        cliff.interval(t * S, S, bytes);
    }
    let mut view = bench();
    view.header.job = Some("randwrite bs=16k iodepth=32 numjobs=1 direct".into());
    if let Some(tp) = &mut view.throughput {
        for p in &mut tp.points {
            (p.write_iops, p.write_bytes_per_s) = (p.read_iops, p.read_bytes_per_s);
            (p.read_iops, p.read_bytes_per_s) = (0.0, 0.0);
        }
    }
    view.header.elapsed = Duration::from_secs(end);
    view.steady = Some(crate::tui::view::steady::line(
        &SteadyView::of(&tracker, !keep_going),
        None,
        false,
    ));
    view.sustained = Some(crate::tui::view::steady::chart(
        &SustainedView::of(&cliff),
        None,
    ));
    view.ui.message = None;
    view
}

/// A step of four jobs at once (see [`plan`]), the job `selected` driving the charts.
#[must_use]
pub fn plan(selected: Option<usize>) -> View {
    plan::view(&plan::snapshot(), selected)
}

/// A block-size sweep 12 s into its sixth point of eight (see [`sweep`]), charting MB/s.
#[must_use]
pub fn sweep() -> View {
    sweep::view(&sweep::snapshot(), crate::tui::view::SweepMetric::Bandwidth)
}

/// A fleet of three hosts, one failed (see [`fleet`]), the host `selected` driving the charts.
#[must_use]
pub fn fleet(selected: Option<usize>) -> View {
    fleet::view(selected)
}
