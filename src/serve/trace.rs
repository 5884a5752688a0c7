//! `diskdash serve --trace`: what the block tracer saw of each served disk, cumulative since
//! serving began (each scrape takes what the tracer saw since the scrape before and adds it):
//!
//! - `diskdash_disk_device_time_seconds{device,op}`: a classic histogram of each request's
//!   device time (`block_rq_issue` -> `block_rq_complete`), op `read`, `write` or `trim`, on
//!   the `le` set of `diskdash_bench_latency_seconds` (`fold`); `_sum` is the histogram's
//!   (each request at its bucket's middle, within 0.1%);
//! - `diskdash_process_io_total`, `diskdash_process_io_bytes_total` and
//!   `diskdash_process_device_time_seconds_total{device,pid,comm}`: the requests each process
//!   started. The label set is bounded: at most [`MAX_PROCESSES`] processes per disk have
//!   their own series, the ones after them count under `pid="other",comm="other"`, and a
//!   process that has exited is dropped at the next scrape (its series end);
//! - `diskdash_trace_lost_events_total`: events the kernel's trace buffers lost.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::registry::Unit;

use super::bench::le_seconds;
use super::fold::fold;
use crate::stats::LatencyHistogram;
use crate::trace::TraceTake;

/// Processes with series of their own per disk; the rest count as `other`.
pub const MAX_PROCESSES: usize = 32;

const OPS: [&str; 3] = ["read", "write", "trim"];

/// A process's requests on a disk so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessTotals {
    /// `None`: the `other` series.
    pub pid: Option<i32>,
    pub comm: String,
    pub ios: u64,
    pub bytes: u64,
    pub device_time_ns: u64,
}

/// A disk's totals so far.
#[derive(Debug, Clone, Default)]
pub struct DiskTotals {
    pub disk: String,
    /// Device time per op, `None` until the op is seen.
    ops: [Option<LatencyHistogram>; 3],
    pub processes: Vec<ProcessTotals>,
    pub other: Option<ProcessTotals>,
}

/// Every traced disk's totals since serving began.
#[derive(Debug, Clone, Default)]
pub struct TraceTotals {
    pub disks: Vec<DiskTotals>,
    pub lost_events: u64,
}

impl TraceTotals {
    /// Adds a take; `alive(pid)` says whether a process still runs (an exited one's series
    /// end, making room under [`MAX_PROCESSES`]).
    pub fn add(&mut self, take: &TraceTake, alive: impl Fn(i32) -> bool) {
        self.lost_events += take.cost.lost_events;
        for trace in &take.disks {
            let disk = match self.disks.iter().position(|d| d.disk == trace.disk) {
                Some(i) => &mut self.disks[i],
                None => {
                    self.disks.push(DiskTotals {
                        disk: trace.disk.clone(),
                        ..DiskTotals::default()
                    });
                    self.disks.last_mut().expect("just pushed")
                }
            };
            for (op, dir) in disk.ops.iter_mut().zip(&trace.dirs) {
                if dir.device.count() > 0 {
                    op.get_or_insert_with(LatencyHistogram::new)
                        .add(&dir.device);
                }
            }
            disk.processes
                .retain(|p| p.pid.is_some_and(&alive) || take_has(trace, p));
            for p in &trace.by_process {
                let slot = match disk.processes.iter().position(|t| t.pid == Some(p.pid)) {
                    Some(i) => &mut disk.processes[i],
                    None if disk.processes.len() < MAX_PROCESSES => {
                        disk.processes.push(ProcessTotals {
                            pid: Some(p.pid),
                            comm: p.comm.clone(),
                            ..ProcessTotals::default()
                        });
                        disk.processes.last_mut().expect("just pushed")
                    }
                    None => disk.other.get_or_insert_with(|| ProcessTotals {
                        comm: "other".to_string(),
                        ..ProcessTotals::default()
                    }),
                };
                slot.ios += p.ios;
                slot.bytes += p.bytes;
                slot.device_time_ns += p.device_time_ns;
            }
        }
    }
}

/// Whether the take counts requests of `p` (a process that did I/O and exited since).
fn take_has(trace: &crate::trace::BlockTrace, p: &ProcessTotals) -> bool {
    trace.by_process.iter().any(|q| Some(q.pid) == p.pid)
}

/// A running tracer and what it saw since serving began.
pub struct Traced {
    pub tracer: crate::trace::Tracer,
    pub totals: TraceTotals,
}

impl std::fmt::Debug for Traced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Traced")
            .field("totals", &self.totals)
            .finish_non_exhaustive()
    }
}

/// The families of [`TraceTotals`] for one scrape.
#[derive(Debug, Clone)]
pub struct TraceScrape {
    pub totals: TraceTotals,
}

impl TraceScrape {
    fn encode_device_time(&self, encoder: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let mut family = encoder.encode_descriptor(
            "diskdash_disk_device_time",
            "Device time of each request (block_rq_issue to block_rq_complete: driver and \
             hardware) since serving began, from the block layer (--trace), on \
             diskdash_bench_latency_seconds' le set.",
            Some(&Unit::Seconds),
            MetricType::Histogram,
        )?;
        let le = le_seconds();
        for disk in &self.totals.disks {
            for (op, hist) in OPS.iter().zip(&disk.ops) {
                let Some(hist) = hist else { continue };
                let counts = fold(&hist.fine_buckets());
                let buckets: Vec<(f64, u64)> = le.iter().copied().zip(counts).collect();
                let summary = hist.summary();
                let sum_s = summary.mean_ns * summary.count as f64 / 1e9;
                let labels = [("device", disk.disk.as_str()), ("op", op)];
                family
                    .encode_family(&labels)?
                    .encode_histogram::<NoLabelSet>(sum_s, summary.count, &buckets, None)?;
            }
        }
        Ok(())
    }

    fn encode_processes(&self, encoder: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let counter = ConstCounter::new(0u64).metric_type();
        let families: [(&str, &str, Option<&Unit>); 3] = [
            (
                "diskdash_process_io",
                "Requests the process started on the disk since serving began (--trace; at \
                 most 32 processes per disk, the rest as pid=\"other\").",
                None,
            ),
            (
                "diskdash_process_io",
                "Bytes of the requests the process started on the disk since serving began.",
                Some(&Unit::Bytes),
            ),
            (
                "diskdash_process_device_time",
                "Device time of the requests the process started on the disk since serving \
                 began.",
                Some(&Unit::Seconds),
            ),
        ];
        for (i, (name, help, unit)) in families.into_iter().enumerate() {
            let mut family = encoder.encode_descriptor(name, help, unit, counter)?;
            for disk in &self.totals.disks {
                for p in disk.processes.iter().chain(&disk.other) {
                    let pid = p
                        .pid
                        .map_or_else(|| "other".to_string(), |pid| pid.to_string());
                    let labels = [
                        ("device", disk.disk.as_str()),
                        ("pid", pid.as_str()),
                        ("comm", p.comm.as_str()),
                    ];
                    let sample = family.encode_family(&labels)?;
                    match i {
                        0 => ConstCounter::new(p.ios).encode(sample)?,
                        1 => ConstCounter::new(p.bytes).encode(sample)?,
                        _ => ConstCounter::new(p.device_time_ns as f64 / 1e9).encode(sample)?,
                    }
                }
            }
        }
        Ok(())
    }
}

impl Collector for TraceScrape {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        self.encode_device_time(&mut encoder)?;
        self.encode_processes(&mut encoder)?;
        let lost = encoder.encode_descriptor(
            "diskdash_trace_lost_events",
            "Events the kernel's trace buffers lost since serving began (--trace).",
            None,
            ConstCounter::new(0u64).metric_type(),
        )?;
        ConstCounter::new(self.totals.lost_events).encode(lost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::metrics::openmetrics_of;
    use crate::trace::matcher::ProcessIo;
    use crate::trace::{BlockTrace, Scope, TraceCost};

    fn take(pids: &[(i32, u64)], device_ns: &[u64]) -> TraceTake {
        let mut trace = BlockTrace {
            disk: "loop0".into(),
            scope: Scope::Request,
            ..BlockTrace::default()
        };
        for &ns in device_ns {
            trace.dirs[0].device.record(ns);
            trace.dirs[0].requests += 1;
        }
        trace.by_process = pids
            .iter()
            .map(|&(pid, ios)| ProcessIo {
                pid,
                comm: format!("p{pid}"),
                kernel: false,
                ios,
                bytes: ios * 4096,
                device_time_ns: ios * 1000,
            })
            .collect();
        TraceTake {
            disks: vec![trace],
            cost: TraceCost {
                lost_events: 2,
                ..TraceCost::default()
            },
        }
    }

    #[test]
    fn takes_add_up_to_a_histogram_and_counters_per_process() {
        let mut totals = TraceTotals::default();
        totals.add(&take(&[(10, 300), (11, 100)], &[100_000; 3]), |_| true);
        totals.add(&take(&[(10, 300)], &[2_000_000]), |_| true);
        let om = openmetrics_of(vec![Box::new(TraceScrape {
            totals: totals.clone(),
        })]);
        for line in [
            "# TYPE diskdash_disk_device_time_seconds histogram",
            "diskdash_disk_device_time_seconds_count{device=\"loop0\",op=\"read\"} 4",
            "diskdash_disk_device_time_seconds_bucket{le=\"+Inf\",device=\"loop0\",op=\"read\"} 4",
            "diskdash_process_io_total{device=\"loop0\",pid=\"10\",comm=\"p10\"} 600",
            "diskdash_process_io_total{device=\"loop0\",pid=\"11\",comm=\"p11\"} 100",
            "diskdash_process_io_bytes_total{device=\"loop0\",pid=\"10\",comm=\"p10\"} 2457600",
            "diskdash_trace_lost_events_total 4",
        ] {
            assert!(om.lines().any(|l| l == line), "no {line:?} in\n{om}");
        }
        // Three requests at 100 us are under 1 ms, the fourth is not.
        let under_1ms = om
            .lines()
            .filter(|l| l.starts_with("diskdash_disk_device_time_seconds_bucket"))
            .find(|l| {
                let le: f64 = l
                    .split("le=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap_or(f64::INFINITY);
                le >= 0.001
            })
            .unwrap();
        assert!(under_1ms.ends_with(" 3"), "{under_1ms}");
        // Process 11 exited: its series end.
        totals.add(&take(&[], &[]), |pid| pid != 11);
        assert_eq!(totals.disks[0].processes.len(), 1);
    }

    #[test]
    fn the_label_set_is_bounded() {
        let mut totals = TraceTotals::default();
        let many: Vec<(i32, u64)> = (0..100).map(|pid| (pid, 1)).collect();
        totals.add(&take(&many, &[]), |_| true);
        let disk = &totals.disks[0];
        assert_eq!(disk.processes.len(), MAX_PROCESSES);
        let other = disk.other.as_ref().unwrap();
        assert_eq!(other.ios, 100 - MAX_PROCESSES as u64);
        assert_eq!(other.pid, None);
    }
}
