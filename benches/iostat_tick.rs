//! CPU cost of one monitor tick over 10,000 devices: read a generated `/proc/diskstats`-format
//! file through the kept-open reader, parse every line, and compute every device's `iostat -x`
//! row against the previous sample. Measured as CPU time of the benchmarking thread
//! (CLOCK_THREAD_CPUTIME_ID, user + system), not wall time, so the budget (<= 20 ms per tick)
//! is checked against what the tick costs the machine.
//!
//! Run: `cargo bench --bench iostat_tick`

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use diskdash::testing::monitor::{DiskstatsReader, rows_between};

const DEVICES: usize = 10_000;

/// CPU time of the calling thread.
struct ThreadCpuTime;

fn thread_cpu_now() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(Duration::from)
        .expect("CLOCK_THREAD_CPUTIME_ID")
}

impl Measurement for ThreadCpuTime {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu_now()
    }
    fn end(&self, start: Duration) -> Duration {
        thread_cpu_now().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, ns: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if ns < 1e3 {
            (1.0, "ns cpu")
        } else if ns < 1e6 {
            (1e-3, "µs cpu")
        } else {
            (1e-6, "ms cpu")
        };
        for v in values {
            *v *= factor;
        }
        unit
    }
    fn scale_throughputs(&self, _: f64, _: &Throughput, values: &mut [f64]) -> &'static str {
        self.scale_values(1e6, values)
    }
    fn scale_for_machines(&self, _: &mut [f64]) -> &'static str {
        "ns"
    }
}

/// A `/proc/diskstats` text of `DEVICES` devices of every name shape, 20-field lines, with
/// counters advanced by `tick` so two generations differ everywhere.
fn generate(tick: u64) -> String {
    let mut text = String::with_capacity(DEVICES * 140);
    for i in 0..DEVICES {
        let name = match i % 7 {
            0 => format!("nvme{}n1p{}", i / 7 % 64, i % 16),
            1 => format!("dm-{i}"),
            2 => format!("md{i}"),
            3 => format!("mmcblk{i}p1"),
            4 => format!("loop{i}"),
            5 => format!("cciss!c0d{i}"),
            _ => format!("sd{i}"),
        };
        let k = i as u64 + 1;
        let t = tick;
        let _ = writeln!(
            text,
            "{:4} {:7} {name} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
            259,
            i,
            k * 1000 + t * 97,
            k * 10 + t * 3,
            k * 80_000 + t * 776,
            k * 500 + t * 41,
            k * 2000 + t * 55,
            k * 40 + t * 7,
            k * 160_000 + t * 880,
            k * 900 + t * 63,
            i % 4,
            k * 450 + t * 90,
            k * 1400 + t * 104,
            k * 3 + t,
            k,
            k * 2048 + t * 16,
            k * 2 + t,
            k * 7 + t * 2,
            k + t
        );
    }
    text
}

fn tick(c: &mut Criterion<ThreadCpuTime>) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::write(&a, generate(0)).unwrap();
    std::fs::write(&b, generate(1)).unwrap();
    let prev = DiskstatsReader::open_path(&a).unwrap().sample().unwrap();
    assert_eq!(prev.disks.len(), DEVICES);
    let mut reader = DiskstatsReader::open_path(Path::new(&b)).unwrap();

    let mut group = c.benchmark_group("monitor_tick");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(6));
    group.bench_function("10000_devices_read_parse_rows", |bench| {
        bench.iter(|| {
            let mut cur = reader.sample().unwrap();
            // rows_between pairs by position here; the cost of a changed device list is
            // the second case.
            cur.at = prev.at + Duration::from_secs(1);
            let rows = rows_between(&prev, &cur);
            assert_eq!(rows.len(), DEVICES);
            rows
        });
    });
    group.bench_function("10000_devices_reordered_paired_by_name", |bench| {
        let mut shuffled = prev.clone();
        shuffled.disks.reverse();
        bench.iter(|| {
            let mut cur = reader.sample().unwrap();
            cur.at = prev.at + Duration::from_secs(1);
            rows_between(&shuffled, &cur)
        });
    });
    // For comparison: what `procfs::diskstats()` does per call (open the file, a String per
    // line and per name), on the same 10,000 devices, parse only (no rows).
    group.bench_function("10000_devices_procfs_from_file_parse_only", |bench| {
        bench.iter(|| {
            let stats = <procfs::DiskStats as procfs::FromRead>::from_file(&b).unwrap();
            assert_eq!(stats.0.len(), DEVICES);
            stats
        });
    });
    group.bench_function("10000_devices_diskdash_read_parse_only", |bench| {
        let mut disks = Vec::new();
        bench.iter(|| {
            reader.sample_into(&mut disks).unwrap();
            disks.len()
        });
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = tick
}
criterion_main!(benches);
