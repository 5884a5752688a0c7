//! CPU cost of one `diskdash serve` scrape of 100 disks: read a generated
//! `/proc/diskstats`-format file through the kept-open reader, compute the `iostat -x` window
//! against the previous sample, build every family with prometheus-client (counters, window
//! gauges, one queue-settings info sample per disk) and, for a text-format scraper, rewrite it
//! as text 0.0.4. The queue settings come from the server's cache (re-read from sysfs at most
//! once a minute, not per scrape), so they are given here. Measured as CPU time of the
//! benchmarking thread (CLOCK_THREAD_CPUTIME_ID), the budget being <= 2 ms per scrape.
//!
//! Run: `cargo bench --bench serve_scrape`

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use diskdash::testing::monitor::{DiskstatsReader, QueueSettings, Sampler};
use diskdash::testing::serve::{
    DeviceFilter, DiskSettings, RunScrape, le_seconds, openmetrics, openmetrics_of,
    openmetrics_to_text, scrape_of,
};
use diskdash::testing::session::add_to_run;

const DISKS: usize = 100;

fn thread_cpu_now() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(Duration::from)
        .expect("CLOCK_THREAD_CPUTIME_ID")
}

/// 100 NVMe namespaces with 20-field lines (discards and flushes), busy-looking counters.
fn fixture() -> String {
    let mut text = String::new();
    for i in 0..DISKS {
        let n = 1_000_000 + i as u64 * 7919;
        writeln!(
            text,
            " 259 {i} nvme{i}n1 {n} {} {} {} {n} {} {} {} 3 {} {} {} 0 {} {} {} {}",
            n / 10,
            n * 8,
            n / 3,
            n / 9,
            n * 16,
            n / 2,
            n / 4,
            n,
            n / 100,
            n * 64,
            n / 50,
            n / 20,
            n / 30
        )
        .unwrap();
    }
    text
}

fn settings() -> Arc<Vec<DiskSettings>> {
    Arc::new(
        (0..DISKS)
            .map(|i| DiskSettings {
                device: format!("nvme{i}n1"),
                queue: QueueSettings {
                    scheduler: Some("none".to_owned()),
                    rotational: Some(false),
                    nr_requests: Some(1023),
                    read_ahead_kb: Some(128),
                    logical_block_size: Some(512),
                    physical_block_size: Some(4096),
                    max_sectors_kb: Some(128),
                    ..QueueSettings::default()
                },
                model: Some("Samsung SSD 990 PRO 2TB".to_owned()),
                transport: "nvme".to_owned(),
            })
            .collect(),
    )
}

fn scrape(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("diskstats");
    std::fs::write(&path, fixture()).unwrap();
    let mut sampler = Sampler::with_reader(DiskstatsReader::open_path(&path).unwrap());
    sampler.sample().unwrap();
    let settings = settings();
    let filter = DeviceFilter::default();
    let mut group = c.benchmark_group("serve_scrape");
    for (name, text_format) in [
        ("openmetrics_100_disks", false),
        ("text_0_0_4_100_disks", true),
    ] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let start = thread_cpu_now();
                for _ in 0..iters {
                    let step = sampler.sample().unwrap();
                    let om = openmetrics(scrape_of(&step, &filter, Arc::clone(&settings)));
                    let body = if text_format {
                        openmetrics_to_text(&om)
                    } else {
                        om
                    };
                    std::hint::black_box(body);
                }
                thread_cpu_now().saturating_sub(start)
            });
        });
    }
    // A run of four jobs that has closed its intervals: the sample plan's step, its totals.
    let mut snapshot = diskdash::testing::tui::sample::plan::snapshot();
    let mut run = Vec::new();
    add_to_run(&mut run, &snapshot.jobs);
    snapshot.run = Arc::new(run);
    let snapshot = Arc::new(snapshot);
    let le = Arc::new(le_seconds());
    group.bench_function("openmetrics_100_disks_and_a_4_job_run", |b| {
        b.iter_custom(|iters| {
            let start = thread_cpu_now();
            for _ in 0..iters {
                let step = sampler.sample().unwrap();
                let body = openmetrics_of(vec![
                    Box::new(scrape_of(&step, &filter, Arc::clone(&settings))),
                    Box::new(RunScrape {
                        snapshot: Arc::clone(&snapshot),
                        le_seconds: Arc::clone(&le),
                    }),
                ]);
                std::hint::black_box(body);
            }
            thread_cpu_now().saturating_sub(start)
        });
    });
    group.finish();
}

criterion_group!(benches, scrape);
criterion_main!(benches);
