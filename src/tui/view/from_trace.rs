//! The monitor's `--trace` panels from block-trace records (a monitor sample's
//! `block_trace`, live and replayed alike): the disk table's device-time percentiles, the
//! selected disk's device-time percentiles and heatmap, and the processes doing its I/O.
//! Every number is of the window it names: a sample's, or every sample since the start.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use crate::record::{BlockDirectionRecord, BlockTraceRecord, HistogramRecord, LatencyRecord};
use crate::stats::{LatencyBucket, bucket_percentile_ns, coarsen, merge_buckets};
use crate::tui::view::{
    DeviceTimes, Direction, HeatColumn, HeatmapView, LatencyBucket as ViewBucket, LatencyColumns,
    LatencyRow, LatencyView, Percentiles, TopRow, TopView,
};

const DIRECTIONS: [Direction; 3] = [Direction::Read, Direction::Write, Direction::Trim];

/// A record's directions, in [`DIRECTIONS`]' order.
fn dirs(rec: &BlockTraceRecord) -> [Option<&BlockDirectionRecord>; 3] {
    [rec.read.as_ref(), rec.write.as_ref(), rec.trim.as_ref()]
}

/// A sparse histogram with its sub-bucket bits, merged window after window at the coarsest
/// resolution seen (exact: a finer bucket lies inside one coarser bucket).
#[derive(Debug, Clone, Default)]
struct Merged {
    buckets: Vec<LatencyBucket>,
    bits: Option<u32>,
    max_ns: u64,
}

impl Merged {
    fn add(&mut self, hist: &HistogramRecord, max_ns: u64) {
        // Format 2's powers of two have no bits: nothing a monitor sample writes.
        let Some(bits) = hist.sub_bucket_bits else {
            return;
        };
        let other: Vec<LatencyBucket> = hist.buckets().collect();
        let to = self.bits.map_or(bits, |b| b.min(bits));
        if self.bits.is_some_and(|b| b > to) {
            self.buckets = coarsen(&self.buckets, to);
        }
        let other = if bits > to {
            coarsen(&other, to)
        } else {
            other
        };
        merge_buckets(&mut self.buckets, &other);
        self.bits = Some(to);
        self.max_ns = self.max_ns.max(max_ns);
    }

    fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.count).sum()
    }

    fn percentiles(&self) -> Option<Percentiles> {
        (self.count() > 0).then(|| Percentiles {
            p50_ns: bucket_percentile_ns(&self.buckets, 50.0),
            p90_ns: bucket_percentile_ns(&self.buckets, 90.0),
            p99_ns: bucket_percentile_ns(&self.buckets, 99.0),
            p999_ns: bucket_percentile_ns(&self.buckets, 99.9),
            // A bucket's bound can pass the largest time seen: never above the max.
            max_ns: self.max_ns,
        })
    }
}

/// A record's device time, all directions merged.
fn device_merged(rec: &BlockTraceRecord) -> Merged {
    let mut merged = Merged::default();
    for dir in dirs(rec).into_iter().flatten() {
        if let Some(hist) = &dir.device.histogram {
            merged.add(hist, dir.device.max);
        }
    }
    merged
}

/// The disk table's device-time columns of one window: reads, writes and trims together;
/// `None` when nothing completed (or the record has no histograms).
#[must_use]
pub fn device_times(rec: &BlockTraceRecord) -> Option<DeviceTimes> {
    device_merged(rec).percentiles().map(|p| DeviceTimes {
        p50_ns: p.p50_ns.min(p.max_ns),
        p99_ns: p.p99_ns.min(p.max_ns),
        p999_ns: p.p999_ns.min(p.max_ns),
    })
}

/// A recorded latency's percentiles (`None` without I/O).
fn recorded(lat: &LatencyRecord) -> Option<Percentiles> {
    (lat.n > 0).then(|| Percentiles {
        p50_ns: lat.percentile_ns(50.0).unwrap_or(0),
        p90_ns: lat.percentile_ns(90.0).unwrap_or(0),
        p99_ns: lat.percentile_ns(99.0).unwrap_or(0),
        p999_ns: lat.percentile_ns(99.9).unwrap_or(0),
        max_ns: lat.max,
    })
}

/// One disk's traced windows: the last `keep` for the heatmap, and every window since the
/// start merged for the percentiles' second column.
#[derive(Debug, Clone)]
pub struct TraceHistory {
    disk: String,
    keep: usize,
    /// Seconds since the start at the window's end, and the window's record; oldest first.
    windows: VecDeque<(f64, BlockTraceRecord)>,
    totals: [Merged; 3],
    requests: [u64; 3],
}

impl TraceHistory {
    #[must_use]
    pub fn new(disk: &str, keep: usize) -> Self {
        Self {
            disk: disk.to_string(),
            keep: keep.max(1),
            windows: VecDeque::new(),
            totals: Default::default(),
            requests: [0; 3],
        }
    }

    /// Adds the window that ended `t_s` seconds after the start.
    pub fn push(&mut self, t_s: f64, rec: BlockTraceRecord) {
        for (i, dir) in dirs(&rec).into_iter().enumerate() {
            if let Some(dir) = dir {
                if let Some(hist) = &dir.device.histogram {
                    self.totals[i].add(hist, dir.device.max);
                }
                self.requests[i] += dir.requests;
            }
        }
        if self.windows.len() == self.keep {
            self.windows.pop_front();
        }
        self.windows.push_back((t_s, rec));
    }

    /// The latest window's record.
    #[must_use]
    pub fn last(&self) -> Option<&BlockTraceRecord> {
        self.windows.back().map(|(_, r)| r)
    }

    /// The latency panel: device time per direction over the last window and since the
    /// start, the histogram of both, and the heatmap of the busiest direction.
    #[must_use]
    pub fn latency_view(&self) -> LatencyView {
        let last = self.last();
        let last_dirs = last.map(dirs).unwrap_or_default();
        let rows = DIRECTIONS
            .iter()
            .enumerate()
            .filter(|(i, _)| self.requests[*i] > 0)
            .map(|(i, &dir)| LatencyRow {
                dir,
                interval: last_dirs[i].and_then(|d| recorded(&d.device)),
                total: self.totals[i].percentiles(),
                from_schedule: false,
            })
            .collect();
        let mut counts: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
        if let Some(last) = last {
            for b in &device_merged(last).buckets {
                counts.entry(b.le_ns).or_default().0 += b.count;
            }
        }
        for total in &self.totals {
            for b in &total.buckets {
                counts.entry(b.le_ns).or_default().1 += b.count;
            }
        }
        let busiest = (0..3).max_by_key(|&i| self.requests[i]).unwrap_or(0);
        let columns: Vec<HeatColumn> = self
            .windows
            .iter()
            .map(|(t_s, rec)| HeatColumn {
                t_s: *t_s,
                buckets: dirs(rec)[busiest]
                    .and_then(|d| d.device.histogram.as_ref())
                    .map(|h| h.buckets().map(|b| (b.le_ns, b.count)).collect())
                    .unwrap_or_default(),
            })
            .collect();
        LatencyView {
            rows,
            buckets: ViewBucket::from_counts(counts),
            columns: LatencyColumns::IntervalWatched,
            heatmap: Some(HeatmapView {
                dir: DIRECTIONS[busiest],
                columns,
                missing: None,
            }),
            of: Some(self.disk.clone()),
            what: Some("device time, issue to complete".to_string()),
        }
    }
}

/// The processes in `rec` (one window of `window`), most I/Os first.
#[must_use]
pub fn top_view(disk: &str, rec: &BlockTraceRecord, window: Duration) -> TopView {
    let secs = window.as_secs_f64();
    let per_s = |v: u64| if secs > 0.0 { v as f64 / secs } else { 0.0 };
    let device_total: u64 = rec.by_process.iter().map(|p| p.device_time_ns).sum();
    let mut rows: Vec<TopRow> = rec
        .by_process
        .iter()
        .map(|p| TopRow {
            pid: p.pid,
            comm: p.comm.clone(),
            kernel: p.kernel,
            iops: per_s(p.ios),
            bytes_per_s: per_s(p.bytes),
            device_ns_per_io: if p.ios == 0 {
                0.0
            } else {
                p.device_time_ns as f64 / p.ios as f64
            },
            device_share_pct: if device_total == 0 {
                0.0
            } else {
                p.device_time_ns as f64 * 100.0 / device_total as f64
            },
        })
        .collect();
    rows.sort_by(|a, b| b.iops.total_cmp(&a.iops).then(a.pid.cmp(&b.pid)));
    TopView {
        disk: disk.to_string(),
        window,
        rows,
        missing: None,
    }
}

/// The panel of a disk the monitor does not trace.
#[must_use]
pub fn untraced_top(disk: &str, why: &str) -> TopView {
    TopView {
        disk: disk.to_string(),
        missing: Some(why.to_string()),
        ..TopView::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{BlockProcessRecord, Percentiles as RecPercentiles};

    fn latency(values: &[u64]) -> LatencyRecord {
        let mut h = crate::stats::LatencyHistogram::new();
        for &v in values {
            h.record(v);
        }
        let mut rec = LatencyRecord::from(&h.summary());
        let (buckets, bits) = crate::stats::bounded(h.fine_buckets());
        rec.histogram = Some(HistogramRecord::from_buckets(&buckets, bits));
        rec
    }

    fn direction(values: &[u64]) -> BlockDirectionRecord {
        let empty = LatencyRecord {
            min: 0,
            max: 0,
            mean: 0.0,
            stddev: 0.0,
            n: 0,
            percentile: RecPercentiles::default(),
            histogram: None,
        };
        BlockDirectionRecord {
            requests: values.len() as u64,
            bytes: 4096 * values.len() as u64,
            merges: 0,
            wait_request: empty.clone(),
            scheduler: empty.clone(),
            device: latency(values),
            whole: empty.clone(),
            size: empty,
        }
    }

    fn record(reads: &[u64], writes: &[u64]) -> BlockTraceRecord {
        BlockTraceRecord {
            disk: "loop0".into(),
            scope: "request".into(),
            whole_nearest: false,
            wait_request_traced: true,
            lost_events: 0,
            ambiguous_matches: 0,
            unmatched: 0,
            requests: (reads.len() + writes.len()) as u64,
            read: (!reads.is_empty()).then(|| direction(reads)),
            write: (!writes.is_empty()).then(|| direction(writes)),
            trim: None,
            by_process: vec![
                BlockProcessRecord {
                    pid: 10,
                    comm: "fio".into(),
                    kernel: false,
                    ios: 300,
                    bytes: 300 * 4096,
                    device_time_ns: 3_000_000,
                },
                BlockProcessRecord {
                    pid: 11,
                    comm: "kworker/u8:2".into(),
                    kernel: true,
                    ios: 100,
                    bytes: 100 * 4096,
                    device_time_ns: 1_000_000,
                },
            ],
            tracer: None,
        }
    }

    #[test]
    fn the_table_merges_the_directions_of_its_window() {
        // 99 reads at 100 us and one write at 10 ms: p50 a read's, p99.9 the write's.
        let rec = record(&[100_000; 99], &[10_000_000]);
        let t = device_times(&rec).unwrap();
        assert!((99_000..=101_000).contains(&t.p50_ns), "{t:?}");
        assert!((9_900_000..=10_100_000).contains(&t.p999_ns), "{t:?}");
        assert!(t.p999_ns <= 10_000_000 + 80_000);
        assert_eq!(device_times(&record(&[], &[])), None);
    }

    #[test]
    fn the_panel_says_the_last_window_and_every_window_since_the_start() {
        let mut h = TraceHistory::new("loop0", 2);
        h.push(1.0, record(&[1_000_000; 10], &[]));
        h.push(2.0, record(&[100_000; 10], &[]));
        h.push(3.0, record(&[100_000; 10], &[]));
        let v = h.latency_view();
        assert_eq!(v.rows.len(), 1, "only reads were traced");
        let row = &v.rows[0];
        let last = row.interval.unwrap();
        let all = row.total.unwrap();
        assert!(last.max_ns < 200_000, "the last window: 100 us only");
        // A third of the windows since the start took 1 ms: p90 is one of them.
        assert!(all.p90_ns >= 990_000, "{all:?}");
        assert!(
            all.max_ns >= 1_000_000 && all.max_ns > last.max_ns,
            "{all:?}"
        );
        // The heatmap keeps the last two windows.
        let heat = v.heatmap.unwrap();
        assert_eq!(heat.columns.len(), 2);
        assert_eq!(heat.columns[0].t_s, 2.0);
        let total: u64 = v.buckets.iter().map(|b| b.total).sum();
        let interval: u64 = v.buckets.iter().map(|b| b.interval).sum();
        assert_eq!((interval, total), (10, 30));
    }

    #[test]
    fn the_top_is_per_second_of_its_window() {
        let top = top_view(
            "loop0",
            &record(&[100_000], &[]),
            Duration::from_millis(500),
        );
        assert_eq!(top.rows.len(), 2);
        assert_eq!(top.rows[0].pid, 10);
        assert_eq!(top.rows[0].iops, 600.0);
        assert_eq!(top.rows[0].bytes_per_s, 600.0 * 4096.0);
        assert_eq!(top.rows[0].device_ns_per_io, 10_000.0);
        assert_eq!(top.rows[0].device_share_pct, 75.0);
        assert!(top.rows[1].kernel);
    }
}
