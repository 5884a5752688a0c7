//! `diskdash serve`'s front end: every disk's counters as an OpenMetrics endpoint for Prometheus.
//!
//! - [`metrics`]: the families of one scrape (node_exporter's `node_disk_*` and diskdash's own
//!   `diskdash_*`), built with `prometheus-client` by a pure function.
//! - [`format`]: OpenMetrics or Prometheus text 0.0.4, chosen by the scraper's `Accept`.
//! - [`http`]: the routes (`/`, `/metrics`, 404) on hyper.
//! - [`bench`], [`fold`]: a running benchmark's families (`bench|fio|sweep --serve`), read from
//!   the session's latest snapshot, with the latency histogram folded to a fixed `le` set.
//!
//! - [`node_info`], [`udev`]: node_exporter's `node_disk_info`, filesystem, device-mapper and
//!   ATA families from udev's database, and `node_uname_info`.
//! - [`filter`]: which devices, node_exporter's `--collector.diskstats.device-include/-exclude`.
//! - [`trace`]: `--trace`, the block layer's device time per disk and op as histograms, and
//!   I/O per process.
//!
//! Nothing runs between scrapes: each scrape samples `/proc/diskstats` through the one
//! [`Sampler`], so the `iostat -x` window is the time since the previous scrape and an
//! endpoint nobody scrapes costs no CPU. Where the host is read from: [`HostPaths`],
//! node_exporter's `--path.procfs`, `--path.sysfs` and `--path.udev.data` (a container
//! mounting the host's at `/host/...`, or a captured tree under test).

pub mod bench;
pub mod filter;
pub(crate) mod fold;
pub mod format;
pub(crate) mod http;
pub mod metrics;
pub(crate) mod node_info;
pub(crate) mod run;
pub(crate) mod trace;
pub(crate) mod udev;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use prometheus_client::collector::Collector;
use tokio::sync::watch;

use crate::monitor::info::model_and_transport_in;
use crate::monitor::sampler::{Sampler, Step};
use crate::monitor::sysfs::{QueueSettings, read_attr};
use crate::session::Snapshot;
use bench::RunScrape;
use filter::DeviceFilter;
use metrics::{DiskSettings, Scrape, Window};
use node_info::{DiskIdentity, Uname};
use udev::UdevProperties;

/// Where the host's kernel and udev state are read: node_exporter's `--path.procfs`,
/// `--path.sysfs`, `--path.udev.data`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HostPaths {
    pub procfs: PathBuf,
    pub sysfs: PathBuf,
    pub udev_data: PathBuf,
}

impl Default for HostPaths {
    fn default() -> Self {
        Self {
            procfs: PathBuf::from("/proc"),
            sysfs: PathBuf::from("/sys"),
            udev_data: PathBuf::from(udev::UDEV_DATA),
        }
    }
}

impl HostPaths {
    /// `diskstats` under the procfs.
    #[must_use]
    pub fn diskstats(&self) -> PathBuf {
        self.procfs.join("diskstats")
    }
}

/// How `diskdash serve` was asked to serve.
#[derive(Debug, Clone, Default)]
pub(crate) struct ServeOptions {
    pub paths: HostPaths,
    pub filter: DeviceFilter,
    /// Leave out the `node_*` families (`--no-node-metrics`).
    pub no_node_metrics: bool,
    /// Trace the served whole disks' block layer (`--trace`).
    pub trace: bool,
}

/// How long the queue settings are trusted before a scrape re-reads them. Reading ~10 sysfs
/// files per disk on every scrape would cost more than the whole scrape does otherwise.
pub(crate) const SETTINGS_MAX_AGE: Duration = Duration::from_secs(60);

/// What serving keeps between scrapes: the sampler (and so the previous sample) and the queue
/// settings last read; with a run, the session's snapshots.
#[derive(Debug)]
pub(crate) struct Exposition {
    sampler: Sampler,
    settings: Arc<Vec<DiskSettings>>,
    /// The served devices' udev identities, read with the settings.
    identities: Arc<Vec<DiskIdentity>>,
    /// When the settings were read, and the served devices then (a new one forces a re-read).
    settings_of: Option<(Instant, Vec<String>)>,
    options: ServeOptions,
    /// A running benchmark's snapshots.
    run: Option<RunSource>,
    /// `--trace`: the tracer and what it saw since serving began.
    tracer: Option<trace::Traced>,
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
        Self::with_options(sampler, ServeOptions::default())
    }

    /// `diskdash serve` with its flags: where the host is read, which devices, which families.
    #[must_use]
    pub(crate) fn with_options(sampler: Sampler, options: ServeOptions) -> Self {
        Self {
            sampler,
            settings: Arc::default(),
            identities: Arc::default(),
            settings_of: None,
            options,
            run: None,
            tracer: None,
        }
    }

    /// Starts tracing the served whole disks (`--trace`); where it cannot, the note to say
    /// (serving goes on without the traced families). The disks are read apart from the
    /// scrapes' sampler: the first scrape is the same with `--trace` as without (no window
    /// opened here).
    pub(crate) fn start_trace(&mut self) -> Option<String> {
        let sample = match crate::monitor::diskstats::DiskstatsReader::open_path(
            &self.options.paths.diskstats(),
        )
        .and_then(|mut reader| reader.sample())
        {
            Ok(sample) => sample,
            Err(e) => return Some(format!("--trace: {e:#}; serving goes on untraced")),
        };
        let sys_block = self.options.paths.sysfs.join("block");
        let disks: Vec<crate::trace::DeviceId> = sample
            .disks
            .iter()
            .filter(|d| self.options.filter.serves(&d.name) && sys_block.join(&d.name).exists())
            .map(|d| crate::trace::DeviceId {
                disk: d.name.clone(),
            })
            .collect();
        match crate::trace::Tracer::start(&disks) {
            Ok(tracer) => {
                let note = tracer.notes.first().cloned();
                self.tracer = Some(trace::Traced {
                    tracer,
                    totals: trace::TraceTotals::default(),
                });
                note
            }
            Err(e) => Some(e.to_string()),
        }
    }

    /// The disks and the run whose snapshots `snapshots` receives (`bench|fio|sweep --serve`).
    #[must_use]
    pub(crate) fn with_run(sampler: Sampler, snapshots: watch::Receiver<Arc<Snapshot>>) -> Self {
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
    pub(crate) fn index(&self) -> &'static str {
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
        let options = &self.options;
        let mut scrape = scrape_of(&step, &options.filter, Arc::clone(&self.settings));
        let names: Vec<String> = scrape.counters.iter().map(|d| d.name.clone()).collect();
        let stale = match &self.settings_of {
            None => true,
            Some((at, known)) => at.elapsed() >= SETTINGS_MAX_AGE || *known != names,
        };
        if stale {
            let sysfs = &options.paths.sysfs;
            self.settings = Arc::new(
                names
                    .iter()
                    .filter_map(|n| read_settings(sysfs, n))
                    .collect(),
            );
            self.identities = Arc::new(if options.no_node_metrics {
                Vec::new()
            } else {
                scrape
                    .counters
                    .iter()
                    .map(|d| read_identity(&options.paths, &d.name, d.major, d.minor))
                    .collect()
            });
            self.settings_of = Some((Instant::now(), names));
            scrape.settings = Arc::clone(&self.settings);
        }
        scrape.identities = Arc::clone(&self.identities);
        scrape.no_node_metrics = options.no_node_metrics;
        if !options.no_node_metrics {
            scrape.uname = Some(Uname::now());
        }
        let mut collectors: Vec<Box<dyn Collector>> = vec![Box::new(scrape)];
        if let Some(trace::Traced { tracer, totals }) = &mut self.tracer {
            let procfs = &options.paths.procfs;
            totals.add(&tracer.take(), |pid| procfs.join(pid.to_string()).exists());
            collectors.push(Box::new(trace::TraceScrape {
                totals: totals.clone(),
            }));
        }
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

/// What one sampler step exposes: the devices `filter` serves, their counters and the
/// `iostat -x` window since the step before, with the given settings.
#[must_use]
pub fn scrape_of(
    step: &Step<'_>,
    filter: &DeviceFilter,
    settings: Arc<Vec<DiskSettings>>,
) -> Scrape {
    Scrape {
        counters: step
            .cur
            .disks
            .iter()
            .filter(|d| filter.serves(&d.name))
            .cloned()
            .collect(),
        window: step.rows().map(|rows| Window {
            seconds: step.elapsed().as_secs_f64(),
            rows: rows
                .into_iter()
                .filter(|r| filter.serves(&r.device))
                .collect(),
        }),
        settings,
        ..Scrape::default()
    }
}

/// The settings of a whole disk; `None` for a partition (it has no queue of its own).
fn read_settings(sysfs: &Path, device: &str) -> Option<DiskSettings> {
    let dir = sysfs.join("block").join(device);
    if !dir.join("queue").is_dir() {
        return None;
    }
    let (model, transport) = model_and_transport_in(sysfs, device);
    Some(DiskSettings {
        device: device.to_owned(),
        queue: QueueSettings::read_from(&dir),
        model,
        transport,
    })
}

/// What `node_disk_info` and its companions say about a served device.
fn read_identity(paths: &HostPaths, device: &str, major: u32, minor: u32) -> DiskIdentity {
    let rotational = paths
        .sysfs
        .join("block")
        .join(device)
        .join("queue/rotational");
    DiskIdentity {
        device: device.to_owned(),
        major,
        minor,
        rotational: read_attr(&rotational)
            .and_then(|v| v.parse::<u64>().ok())
            .is_some_and(|v| v != 0),
        udev: UdevProperties::read(&paths.udev_data, major, minor),
    }
}
