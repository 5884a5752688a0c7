//! `diskdash serve`'s front end: every disk's counters as an OpenMetrics endpoint for Prometheus.
//!
//! - [`metrics`]: the families of one scrape (node_exporter's `node_disk_*` and diskdash's own
//!   `diskdash_*`), built with `prometheus-client` by a pure function.
//! - [`format`]: OpenMetrics or Prometheus text 0.0.4, chosen by the scraper's `Accept`.
//! - [`http`]: the routes (`/`, `/metrics`, 404) on hyper.
//! - [`bench`], [`fold`]: a running benchmark's families (`bench|fio|sweep --serve`), read from
//!   the session's latest snapshot, with the latency histogram folded to a fixed `le` set.
//!
//! Nothing runs between scrapes: each scrape samples `/proc/diskstats` through the one
//! [`Sampler`], so the `iostat -x` window is the time since the previous scrape and an
//! endpoint nobody scrapes costs no CPU. Which devices: those node_exporter's diskstats
//! collector serves by default ([`metrics::node_exporter_excludes`]).

pub mod bench;
pub mod fold;
pub mod format;
pub mod http;
pub mod metrics;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use prometheus_client::collector::Collector;
use tokio::sync::watch;

use crate::monitor::info::model_and_transport;
use crate::monitor::sampler::{Sampler, Step};
use crate::monitor::sysfs::{QueueSettings, SYS_BLOCK};
use crate::session::Snapshot;
use bench::RunScrape;
use metrics::{DiskSettings, Scrape, Window, node_exporter_excludes};

/// How long the queue settings are trusted before a scrape re-reads them. Reading ~10 sysfs
/// files per disk on every scrape would cost more than the whole scrape does otherwise.
pub const SETTINGS_MAX_AGE: Duration = Duration::from_secs(60);

/// What serving keeps between scrapes: the sampler (and so the previous sample) and the queue
/// settings last read; with a run, the session's snapshots.
#[derive(Debug)]
pub struct Exposition {
    sampler: Sampler,
    settings: Arc<Vec<DiskSettings>>,
    /// When the settings were read, and the served devices then (a new one forces a re-read).
    settings_of: Option<(Instant, Vec<String>)>,
    /// A running benchmark's snapshots.
    run: Option<RunSource>,
}

/// Where a run's families come from: the session's snapshots, and the `le` bounds in seconds
/// (computed once).
#[derive(Debug)]
struct RunSource {
    snapshots: watch::Receiver<Arc<Snapshot>>,
    le_seconds: Arc<Vec<f64>>,
}

impl Exposition {
    #[must_use]
    pub fn new(sampler: Sampler) -> Self {
        Self {
            sampler,
            settings: Arc::default(),
            settings_of: None,
            run: None,
        }
    }

    /// The disks and the run whose snapshots `snapshots` receives (`bench|fio|sweep --serve`).
    #[must_use]
    pub fn with_run(sampler: Sampler, snapshots: watch::Receiver<Arc<Snapshot>>) -> Self {
        Self {
            run: Some(RunSource {
                snapshots,
                le_seconds: Arc::new(bench::le_seconds()),
            }),
            ..Self::new(sampler)
        }
    }

    /// The page at `/`.
    #[must_use]
    pub fn index(&self) -> &'static str {
        if self.run.is_some() {
            http::RUN_INDEX
        } else {
            http::INDEX
        }
    }

    /// Samples now and returns the scrape as OpenMetrics text.
    ///
    /// # Errors
    /// `/proc/diskstats` could not be read or parsed.
    pub fn scrape(&mut self) -> anyhow::Result<String> {
        let step = self.sampler.sample()?;
        let mut scrape = scrape_of(&step, Arc::clone(&self.settings));
        let names: Vec<String> = scrape.counters.iter().map(|d| d.name.clone()).collect();
        let stale = match &self.settings_of {
            None => true,
            Some((at, known)) => at.elapsed() >= SETTINGS_MAX_AGE || *known != names,
        };
        if stale {
            self.settings = Arc::new(names.iter().filter_map(|n| read_settings(n)).collect());
            self.settings_of = Some((Instant::now(), names));
            scrape.settings = Arc::clone(&self.settings);
        }
        let mut collectors: Vec<Box<dyn Collector>> = vec![Box::new(scrape)];
        if let Some(RunSource {
            snapshots,
            le_seconds,
        }) = &self.run
        {
            // The latest snapshot the session published: an Arc taken under the watch's read
            // lock, which only the session thread's publish contends with (never a worker).
            let snapshot = Arc::clone(&snapshots.borrow());
            collectors.push(Box::new(RunScrape {
                snapshot,
                le_seconds: Arc::clone(le_seconds),
            }));
        }
        Ok(metrics::openmetrics_of(collectors))
    }
}

/// What one sampler step exposes: the served devices' counters and the `iostat -x` window
/// since the step before, with the given settings.
#[must_use]
pub fn scrape_of(step: &Step<'_>, settings: Arc<Vec<DiskSettings>>) -> Scrape {
    let served = |name: &str| !node_exporter_excludes(name);
    Scrape {
        counters: step
            .cur
            .disks
            .iter()
            .filter(|d| served(&d.name))
            .cloned()
            .collect(),
        window: step.rows().map(|rows| Window {
            seconds: step.elapsed().as_secs_f64(),
            rows: rows.into_iter().filter(|r| served(&r.device)).collect(),
        }),
        settings,
    }
}

/// The settings of a whole disk; `None` for a partition (it has no queue of its own).
fn read_settings(device: &str) -> Option<DiskSettings> {
    let dir = Path::new(SYS_BLOCK).join(device);
    if !dir.join("queue").is_dir() {
        return None;
    }
    let (model, transport) = model_and_transport(device);
    Some(DiskSettings {
        device: device.to_owned(),
        queue: QueueSettings::read_from(&dir),
        model,
        transport,
    })
}
