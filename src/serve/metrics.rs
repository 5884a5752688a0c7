//! The metric families of one scrape, built with `prometheus-client` from what the sampler read:
//! a pure function from a [`Scrape`] to OpenMetrics text, so the names, units and values are
//! unit tested without a server.
//!
//! `node_disk_*`: node_exporter's diskstats collector (`collector/diskstats_linux.go`,
//! `diskstats_common.go`) name for name, help for help, same `device` label and units: sectors
//! times 512 in bytes, kernel milliseconds divided by 1000 in seconds. Like node_exporter, the
//! discard counters appear only for devices whose line has them (kernel 4.18+), the flush
//! counters only from 5.5, and `node_disk_discarded_sectors_total` stays in sectors, as
//! node_exporter exports it.
//!
//! `diskdash_*`: what node_exporter does not give: each disk's queue settings as an info metric,
//! and `iostat -x`'s derived columns over the scrape window (the time between this scrape and
//! the one before it) in OpenMetrics base units (seconds, bytes, ratio 0..1).

use std::borrow::Cow;
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::{Registry, Unit};

use crate::monitor::diskstats::{DiskCounters, LineFormat};
use crate::monitor::iostat::IostatRow;
use crate::monitor::sysfs::QueueSettings;
use crate::serve::node_info::{self, DiskIdentity, Uname};

/// Bytes in a `/proc/diskstats` sector, whatever the device's block size (iostats.rst).
const SECTOR_BYTES: u64 = 512;

/// node_exporter's `secondsPerTick`: kernel milliseconds to seconds.
const SECONDS_PER_MILLI: f64 = 1.0 / 1000.0;

/// What a disk's info metric says about it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiskSettings {
    pub device: String,
    pub queue: QueueSettings,
    pub model: Option<String>,
    pub transport: String,
}

/// The `iostat -x` rows between the previous scrape and this one.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub seconds: f64,
    pub rows: Vec<IostatRow>,
}

/// Everything one scrape exposes: already filtered to the served devices.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scrape {
    pub counters: Vec<DiskCounters>,
    /// `None` on the first scrape: there is no window yet.
    pub window: Option<Window>,
    /// Shared with the server's cache: the settings change rarely and are not copied per scrape.
    pub settings: Arc<Vec<DiskSettings>>,
    /// The served devices' udev identities (`node_disk_info` and co.), cached like `settings`.
    pub identities: Arc<Vec<DiskIdentity>>,
    /// `node_uname_info`; none, none served.
    pub uname: Option<Uname>,
    /// `--no-node-metrics`: leave out every `node_*` family (a host whose node_exporter
    /// serves them already), serve only diskdash's own.
    pub no_node_metrics: bool,
}

/// The scrape as OpenMetrics text, `# EOF` included.
#[cfg(any(test, feature = "fixtures"))]
#[must_use]
pub fn openmetrics(scrape: Scrape) -> String {
    openmetrics_of(vec![Box::new(scrape)])
}

/// The families of every collector, in order, as one OpenMetrics text.
#[must_use]
pub fn openmetrics_of(collectors: Vec<Box<dyn Collector>>) -> String {
    let mut registry = Registry::default();
    for collector in collectors {
        registry.register_collector(collector);
    }
    let mut text = String::with_capacity(64 * 1024);
    // Writing to a String cannot fail, and the collector only reports fmt errors.
    encode(&mut text, &registry).expect("formatting into a String");
    text
}

/// How a kernel counter becomes a metric value.
#[derive(Clone, Copy)]
enum Scale {
    /// Exported as counted.
    Count,
    /// 512-byte sectors, exported in bytes.
    Sectors,
    /// Milliseconds, exported in seconds.
    Millis,
}

/// One `node_disk_*` family.
struct NodeFamily {
    /// The name without unit and `_total` (prometheus-client appends both).
    name: &'static str,
    unit: Option<Unit>,
    help: &'static str,
    value: fn(&DiskCounters) -> u64,
    scale: Scale,
    /// The oldest line format that has the field.
    since: LineFormat,
    gauge: bool,
}

fn has_format(d: &DiskCounters, since: LineFormat) -> bool {
    let rank = |f: LineFormat| match f {
        LineFormat::Basic => 0,
        LineFormat::WithDiscard => 1,
        LineFormat::WithFlush => 2,
    };
    rank(d.format) >= rank(since)
}

/// node_exporter's diskstats families, in its order.
fn node_families() -> [NodeFamily; 17] {
    use LineFormat::{Basic, WithDiscard, WithFlush};
    use Scale::{Count, Millis, Sectors};
    let c = |name, unit, help, value, scale, since| NodeFamily {
        name,
        unit,
        help,
        value,
        scale,
        since,
        gauge: false,
    };
    [
        c(
            "node_disk_reads_completed",
            None,
            "The total number of reads completed successfully.",
            |d| d.reads,
            Count,
            Basic,
        ),
        c(
            "node_disk_reads_merged",
            None,
            "The total number of reads merged.",
            |d| d.reads_merged,
            Count,
            Basic,
        ),
        c(
            "node_disk_read",
            Some(Unit::Bytes),
            "The total number of bytes read successfully.",
            |d| d.sectors_read,
            Sectors,
            Basic,
        ),
        c(
            "node_disk_read_time",
            Some(Unit::Seconds),
            "The total number of seconds spent by all reads.",
            |d| d.read_ms,
            Millis,
            Basic,
        ),
        c(
            "node_disk_writes_completed",
            None,
            "The total number of writes completed successfully.",
            |d| d.writes,
            Count,
            Basic,
        ),
        c(
            "node_disk_writes_merged",
            None,
            "The number of writes merged.",
            |d| d.writes_merged,
            Count,
            Basic,
        ),
        c(
            "node_disk_written",
            Some(Unit::Bytes),
            "The total number of bytes written successfully.",
            |d| d.sectors_written,
            Sectors,
            Basic,
        ),
        c(
            "node_disk_write_time",
            Some(Unit::Seconds),
            "This is the total number of seconds spent by all writes.",
            |d| d.write_ms,
            Millis,
            Basic,
        ),
        NodeFamily {
            gauge: true,
            ..c(
                "node_disk_io_now",
                None,
                "The number of I/Os currently in progress.",
                |d| d.in_flight,
                Count,
                Basic,
            )
        },
        c(
            "node_disk_io_time",
            Some(Unit::Seconds),
            "Total seconds spent doing I/Os.",
            |d| d.io_ms,
            Millis,
            Basic,
        ),
        c(
            "node_disk_io_time_weighted",
            Some(Unit::Seconds),
            "The weighted # of seconds spent doing I/Os.",
            |d| d.weighted_io_ms,
            Millis,
            Basic,
        ),
        c(
            "node_disk_discards_completed",
            None,
            "The total number of discards completed successfully.",
            |d| d.discards,
            Count,
            WithDiscard,
        ),
        c(
            "node_disk_discards_merged",
            None,
            "The total number of discards merged.",
            |d| d.discards_merged,
            Count,
            WithDiscard,
        ),
        c(
            "node_disk_discarded_sectors",
            None,
            "The total number of sectors discarded successfully.",
            |d| d.sectors_discarded,
            Count,
            WithDiscard,
        ),
        c(
            "node_disk_discard_time",
            Some(Unit::Seconds),
            "This is the total number of seconds spent by all discards.",
            |d| d.discard_ms,
            Millis,
            WithDiscard,
        ),
        c(
            "node_disk_flush_requests",
            None,
            "The total number of flush requests completed successfully",
            |d| d.flushes,
            Count,
            WithFlush,
        ),
        c(
            "node_disk_flush_requests_time",
            Some(Unit::Seconds),
            "This is the total number of seconds spent by all flush requests.",
            |d| d.flush_ms,
            Millis,
            WithFlush,
        ),
    ]
}

/// Appended to the help of every window gauge.
const WINDOW_HELP: &str = "since the previous scrape by any client (diskdash_scrape_window_seconds); \
absent on the first scrape.";

/// One `diskdash_disk_*` window gauge: an `iostat -x` column in base units.
struct WindowFamily {
    name: &'static str,
    unit: Option<Unit>,
    /// What the column is, the start of the help text.
    what: &'static str,
    value: fn(&IostatRow) -> f64,
}

/// iostat's kB are KiB (sectors / 2).
const KIB: f64 = 1024.0;

fn window_families() -> [WindowFamily; 9] {
    let ratio = || Some(Unit::Other("ratio".to_owned()));
    let w = |name, unit, what, value| WindowFamily {
        name,
        unit,
        what,
        value,
    };
    [
        w(
            "diskdash_disk_read_await",
            Some(Unit::Seconds),
            "Mean time of a read from queueing to completion (iostat r_await; 0 without reads)",
            |r| r.read_await_ms / 1000.0,
        ),
        w(
            "diskdash_disk_write_await",
            Some(Unit::Seconds),
            "Mean time of a write from queueing to completion (iostat w_await; 0 without writes)",
            |r| r.write_await_ms / 1000.0,
        ),
        w(
            "diskdash_disk_discard_await",
            Some(Unit::Seconds),
            "Mean time of a discard (iostat d_await; 0 without discards)",
            |r| r.discard_await_ms / 1000.0,
        ),
        w(
            "diskdash_disk_flush_await",
            Some(Unit::Seconds),
            "Mean time of a flush request (iostat f_await; 0 without flushes)",
            |r| r.flush_await_ms / 1000.0,
        ),
        w(
            "diskdash_disk_read_request_size",
            Some(Unit::Bytes),
            "Mean size of a completed read (iostat rareq-sz; 0 without reads)",
            |r| r.read_request_kb * KIB,
        ),
        w(
            "diskdash_disk_write_request_size",
            Some(Unit::Bytes),
            "Mean size of a completed write (iostat wareq-sz; 0 without writes)",
            |r| r.write_request_kb * KIB,
        ),
        w(
            "diskdash_disk_discard_request_size",
            Some(Unit::Bytes),
            "Mean size of a completed discard (iostat dareq-sz; 0 without discards)",
            |r| r.discard_request_kb * KIB,
        ),
        w(
            "diskdash_disk_queue_length",
            None,
            "Mean number of requests queued or in service (iostat aqu-sz)",
            |r| r.queue_size,
        ),
        w(
            "diskdash_disk_utilization",
            ratio(),
            "Share of time with at least one request in flight, 0..1 (iostat %util / 100; not \
             saturation on devices that serve requests in parallel)",
            |r| r.util_pct / 100.0,
        ),
    ]
}

fn device_label(device: &str) -> [(&'static str, &str); 1] {
    [("device", device)]
}

impl Scrape {
    fn encode_node(&self, encoder: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        for family in node_families() {
            let mut disks = self
                .counters
                .iter()
                .filter(|d| has_format(d, family.since))
                .peekable();
            if disks.peek().is_none() {
                continue;
            }
            let metric_type = if family.gauge {
                ConstGauge::new(0u64).metric_type()
            } else {
                ConstCounter::new(0u64).metric_type()
            };
            let mut metric = encoder.encode_descriptor(
                family.name,
                family.help,
                family.unit.as_ref(),
                metric_type,
            )?;
            for disk in disks {
                let labels = device_label(&disk.name);
                let sample = metric.encode_family(&labels)?;
                let raw = (family.value)(disk);
                match (family.gauge, family.scale) {
                    (true, _) => ConstGauge::new(raw).encode(sample)?,
                    (false, Scale::Count) => ConstCounter::new(raw).encode(sample)?,
                    (false, Scale::Sectors) => {
                        ConstCounter::new(raw.saturating_mul(SECTOR_BYTES)).encode(sample)?;
                    }
                    // Multiplied by 1/1000 as node_exporter does (`secondsPerTick`), not
                    // divided: the two differ in the last bit for some counts (9653880 ms is
                    // 9653.880000000001 s there), and a drop-in serves the same float.
                    (false, Scale::Millis) => {
                        ConstCounter::new(raw as f64 * SECONDS_PER_MILLI).encode(sample)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn encode_window(&self, encoder: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let Some(window) = &self.window else {
            return Ok(());
        };
        let seconds = ConstGauge::new(window.seconds);
        seconds.encode(encoder.encode_descriptor(
            "diskdash_scrape_window",
            "Time since the previous scrape by any client: the window of the diskdash_disk_* \
             iostat gauges.",
            Some(&Unit::Seconds),
            seconds.metric_type(),
        )?)?;
        let rows: Vec<&IostatRow> = window.rows.iter().filter(|r| !r.counters_wrapped).collect();
        if rows.is_empty() {
            return Ok(());
        }
        for family in window_families() {
            let help = format!("{} {WINDOW_HELP}", family.what);
            let mut metric = encoder.encode_descriptor(
                family.name,
                &help,
                family.unit.as_ref(),
                ConstGauge::new(0.0).metric_type(),
            )?;
            for row in &rows {
                let labels = device_label(&row.device);
                ConstGauge::new((family.value)(row)).encode(metric.encode_family(&labels)?)?;
            }
        }
        Ok(())
    }

    fn encode_settings(&self, encoder: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        if self.settings.is_empty() {
            return Ok(());
        }
        let mut metric = encoder.encode_descriptor(
            "diskdash_disk_queue",
            "Queue settings of /sys/block/<device>/queue, the model and the transport of each \
             disk (re-read at most once a minute; an empty label is an attribute the kernel does \
             not offer).",
            None,
            MetricType::Info,
        )?;
        for disk in self.settings.iter() {
            // An info sample carries its labels itself; the family adds none.
            let none: [(&str, &str); 0] = [];
            Info::new(settings_labels(disk)).encode(metric.encode_family(&none)?)?;
        }
        for gauge in queue_gauges() {
            let values: Vec<(&str, u64)> = self
                .settings
                .iter()
                .filter_map(|d| Some((d.device.as_str(), (gauge.value)(&d.queue)?)))
                .collect();
            if values.is_empty() {
                continue;
            }
            let mut metric = encoder.encode_descriptor(
                gauge.name,
                gauge.help,
                gauge.unit.as_ref(),
                ConstGauge::new(0u64).metric_type(),
            )?;
            for (device, value) in values {
                ConstGauge::new(value).encode(metric.encode_family(&device_label(device))?)?;
            }
        }
        Ok(())
    }
}

/// One numeric queue setting as a gauge of its own, for arithmetic and alerts (`max by
/// (device)`, `!= 0`) that the info metric's string labels do not allow.
struct QueueGauge {
    /// The name without unit (prometheus-client appends it).
    name: &'static str,
    unit: Option<Unit>,
    help: &'static str,
    /// `None` when the kernel does not offer the attribute.
    value: fn(&QueueSettings) -> Option<u64>,
}

fn queue_gauges() -> [QueueGauge; 8] {
    const KIB: u64 = 1024;
    fn flag(v: Option<bool>) -> Option<u64> {
        v.map(u64::from)
    }
    [
        QueueGauge {
            name: "diskdash_disk_queue_nr_requests",
            unit: None,
            help: "Requests the block layer queues per hardware queue (queue/nr_requests).",
            value: |q| q.nr_requests,
        },
        QueueGauge {
            name: "diskdash_disk_queue_read_ahead",
            unit: Some(Unit::Bytes),
            help: "Read-ahead of buffered sequential reads (queue/read_ahead_kb x 1024).",
            value: |q| q.read_ahead_kb.map(|kb| kb * KIB),
        },
        QueueGauge {
            name: "diskdash_disk_queue_max_request_size",
            unit: Some(Unit::Bytes),
            help: "Largest request the block layer sends the device (queue/max_sectors_kb x \
                   1024).",
            value: |q| q.max_sectors_kb.map(|kb| kb * KIB),
        },
        QueueGauge {
            name: "diskdash_disk_queue_logical_block_size",
            unit: Some(Unit::Bytes),
            help: "Smallest unit the device addresses (queue/logical_block_size).",
            value: |q| q.logical_block_size,
        },
        QueueGauge {
            name: "diskdash_disk_queue_physical_block_size",
            unit: Some(Unit::Bytes),
            help: "Smallest unit the device writes without a read-modify-write \
                   (queue/physical_block_size).",
            value: |q| q.physical_block_size,
        },
        QueueGauge {
            name: "diskdash_disk_queue_rotational",
            unit: None,
            help: "1 for a spinning disk (seeks cost), 0 otherwise (queue/rotational).",
            value: |q| flag(q.rotational),
        },
        QueueGauge {
            name: "diskdash_disk_queue_write_back",
            unit: None,
            help: "1 when the kernel treats the device's write cache as volatile and sends \
                   flushes (queue/write_cache \"write back\"), 0 for \"write through\".",
            value: |q| {
                q.write_cache
                    .as_deref()
                    .map(|w| u64::from(w == "write back"))
            },
        },
        QueueGauge {
            name: "diskdash_disk_queue_io_poll",
            unit: None,
            help: "1 when the queue can complete polled I/O (queue/io_poll).",
            value: |q| flag(q.io_poll),
        },
    ]
}

/// The info metric's labels: every listed attribute, empty when absent.
fn settings_labels(disk: &DiskSettings) -> Vec<(&'static str, Cow<'_, str>)> {
    let q = &disk.queue;
    let number = |v: Option<u64>| Cow::Owned(v.map(|n| n.to_string()).unwrap_or_default());
    fn text(v: Option<&String>) -> Cow<'_, str> {
        Cow::Borrowed(v.map_or("", String::as_str))
    }
    vec![
        ("device", Cow::Borrowed(disk.device.as_str())),
        ("scheduler", text(q.scheduler.as_ref())),
        (
            "rotational",
            Cow::Borrowed(match q.rotational {
                Some(true) => "1",
                Some(false) => "0",
                None => "",
            }),
        ),
        ("nr_requests", number(q.nr_requests)),
        ("read_ahead_kb", number(q.read_ahead_kb)),
        ("logical_block_size", number(q.logical_block_size)),
        ("physical_block_size", number(q.physical_block_size)),
        ("max_sectors_kb", number(q.max_sectors_kb)),
        ("write_cache", text(q.write_cache.as_ref())),
        (
            "io_poll",
            Cow::Borrowed(match q.io_poll {
                Some(true) => "1",
                Some(false) => "0",
                None => "",
            }),
        ),
        ("model", text(disk.model.as_ref())),
        ("transport", Cow::Borrowed(disk.transport.as_str())),
    ]
}

impl Collector for Scrape {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        if !self.no_node_metrics {
            self.encode_node(&mut encoder)?;
            node_info::encode_disks(&mut encoder, &self.identities)?;
            if let Some(uname) = &self.uname {
                node_info::encode_uname(&mut encoder, uname)?;
            }
        }
        self.encode_settings(&mut encoder)?;
        self.encode_window(&mut encoder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::diskstats::DiskstatsSample;
    use crate::monitor::diskstats::parse_line;
    use crate::monitor::iostat::rows_between;

    fn disk(line: &str) -> DiskCounters {
        parse_line(line.as_bytes()).unwrap()
    }

    fn sample(at_ms: u64, lines: &[&str]) -> DiskstatsSample {
        DiskstatsSample {
            at: Duration::from_millis(at_ms),
            disks: lines.iter().map(|l| disk(l)).collect(),
        }
    }

    use std::time::Duration;

    // Fields: reads merged sectors ms | writes merged sectors ms | inflight io_ms weighted_ms |
    // discards merged sectors ms | flushes ms
    const VDA_1: &str = "252 0 vda 100 5 800 40 50 2 1600 200 3 1000 1500 4 1 64 8 7 21";
    const VDA_2: &str = "252 0 vda 300 5 2400 140 50 2 1600 200 1 1500 2000 4 1 64 8 7 21";

    fn lines(text: &str) -> Vec<&str> {
        text.lines().collect()
    }

    #[test]
    fn counters_have_node_exporter_names_units_and_values() {
        let text = openmetrics(Scrape {
            counters: vec![disk(VDA_1)],
            ..Scrape::default()
        });
        let got = lines(&text);
        for want in [
            "# HELP node_disk_reads_completed The total number of reads completed successfully.",
            "# TYPE node_disk_reads_completed counter",
            "node_disk_reads_completed_total{device=\"vda\"} 100",
            "node_disk_reads_merged_total{device=\"vda\"} 5",
            "# TYPE node_disk_read_bytes counter",
            "# UNIT node_disk_read_bytes bytes",
            "node_disk_read_bytes_total{device=\"vda\"} 409600",
            "# UNIT node_disk_read_time_seconds seconds",
            "node_disk_read_time_seconds_total{device=\"vda\"} 0.04",
            "node_disk_writes_completed_total{device=\"vda\"} 50",
            "node_disk_writes_merged_total{device=\"vda\"} 2",
            "node_disk_written_bytes_total{device=\"vda\"} 819200",
            "node_disk_write_time_seconds_total{device=\"vda\"} 0.2",
            "# TYPE node_disk_io_now gauge",
            "node_disk_io_now{device=\"vda\"} 3",
            "node_disk_io_time_seconds_total{device=\"vda\"} 1.0",
            "node_disk_io_time_weighted_seconds_total{device=\"vda\"} 1.5",
            "node_disk_discards_completed_total{device=\"vda\"} 4",
            "node_disk_discards_merged_total{device=\"vda\"} 1",
            "node_disk_discarded_sectors_total{device=\"vda\"} 64",
            "node_disk_discard_time_seconds_total{device=\"vda\"} 0.008",
            "node_disk_flush_requests_total{device=\"vda\"} 7",
            "node_disk_flush_requests_time_seconds_total{device=\"vda\"} 0.021",
        ] {
            assert!(got.contains(&want), "missing {want:?} in\n{text}");
        }
        assert_eq!(got.last(), Some(&"# EOF"));
        // No window without a previous sample, no info without settings.
        assert!(!text.contains("diskdash_"), "{text}");
    }

    #[test]
    fn discard_and_flush_families_only_for_lines_that_have_them() {
        let basic = "8 0 sda 1 0 8 1 0 0 0 0 0 1 1";
        let text = openmetrics(Scrape {
            counters: vec![disk(basic)],
            ..Scrape::default()
        });
        assert!(text.contains("node_disk_io_time_weighted_seconds_total{device=\"sda\"} 0.001"));
        assert!(!text.contains("discard"), "{text}");
        assert!(!text.contains("flush"), "{text}");
        // Mixed: the family is there, only for the device that has the field.
        let text = openmetrics(Scrape {
            counters: vec![disk(basic), disk(VDA_1)],
            ..Scrape::default()
        });
        assert!(text.contains("node_disk_flush_requests_total{device=\"vda\"} 7"));
        assert!(!text.contains("node_disk_flush_requests_total{device=\"sda\"}"));
    }

    #[test]
    fn the_window_gives_iostat_columns_in_base_units() {
        let (prev, cur) = (sample(1_000, &[VDA_1]), sample(3_000, &[VDA_2]));
        let text = openmetrics(Scrape {
            counters: cur.disks.clone(),
            window: Some(Window {
                seconds: 2.0,
                rows: rows_between(&prev, &cur),
            }),
            ..Scrape::default()
        });
        let got = lines(&text);
        // 200 reads of 1600 sectors taking 100 ms over 2 s; io 500 ms; weighted 500 ms.
        for want in [
            "# TYPE diskdash_scrape_window_seconds gauge",
            "diskdash_scrape_window_seconds 2.0",
            "# UNIT diskdash_disk_read_await_seconds seconds",
            "diskdash_disk_read_await_seconds{device=\"vda\"} 0.0005",
            "diskdash_disk_write_await_seconds{device=\"vda\"} 0.0",
            "# UNIT diskdash_disk_read_request_size_bytes bytes",
            "diskdash_disk_read_request_size_bytes{device=\"vda\"} 4096.0",
            "diskdash_disk_write_request_size_bytes{device=\"vda\"} 0.0",
            "diskdash_disk_queue_length{device=\"vda\"} 0.25",
            "# UNIT diskdash_disk_utilization_ratio ratio",
            "diskdash_disk_utilization_ratio{device=\"vda\"} 0.25",
        ] {
            assert!(got.contains(&want), "missing {want:?} in\n{text}");
        }
        let help = got
            .iter()
            .find(|l| l.starts_with("# HELP diskdash_disk_utilization_ratio "))
            .unwrap();
        assert!(help.contains("since the previous scrape"), "{help}");
        assert!(help.contains("absent on the first scrape"), "{help}");
    }

    #[test]
    fn a_device_whose_counters_went_backwards_has_no_window_gauges() {
        let (prev, cur) = (sample(0, &[VDA_2]), sample(1_000, &[VDA_1]));
        let text = openmetrics(Scrape {
            counters: cur.disks.clone(),
            window: Some(Window {
                seconds: 1.0,
                rows: rows_between(&prev, &cur),
            }),
            ..Scrape::default()
        });
        assert!(text.contains("diskdash_scrape_window_seconds 1.0"));
        assert!(!text.contains("# TYPE diskdash_disk_"), "{text}");
    }

    #[test]
    fn queue_settings_are_one_info_sample_per_disk_with_empty_labels_for_absent_attributes() {
        let settings = DiskSettings {
            device: "nvme0n1".to_owned(),
            queue: QueueSettings {
                scheduler: Some("none".to_owned()),
                rotational: Some(false),
                nr_requests: Some(1023),
                read_ahead_kb: Some(128),
                logical_block_size: Some(512),
                physical_block_size: Some(4096),
                max_sectors_kb: None,
                write_cache: Some("write back".to_owned()),
                io_poll: Some(false),
                ..QueueSettings::default()
            },
            model: Some("Samsung SSD 980 \"PRO\"".to_owned()),
            transport: "nvme".to_owned(),
        };
        let text = openmetrics(Scrape {
            settings: Arc::new(vec![settings]),
            ..Scrape::default()
        });
        let got = lines(&text);
        assert!(got.contains(&"# TYPE diskdash_disk_queue info"), "{text}");
        let want = "diskdash_disk_queue_info{device=\"nvme0n1\",scheduler=\"none\",\
                    rotational=\"0\",nr_requests=\"1023\",read_ahead_kb=\"128\",\
                    logical_block_size=\"512\",physical_block_size=\"4096\",max_sectors_kb=\"\",\
                    write_cache=\"write back\",io_poll=\"0\",\
                    model=\"Samsung SSD 980 \\\"PRO\\\"\",transport=\"nvme\"} 1";
        assert!(got.contains(&want), "missing {want}\nin\n{text}");
    }
}
