//! A segment's per-interval series for the record, in bounded memory: every point is a plain
//! `Copy` struct in a vector allocated (and touched) once, plus each direction's sparse latency
//! histogram, at most `stats::MAX_INTERVAL_BUCKETS` buckets, whose vectors are reused in place
//! (at most 1024 points x 3 directions x 256 buckets x 16 bytes = 12 MiB, a few KiB in
//! practice). Past `MAX_POINTS` intervals every other point is dropped and the stride doubles.

use crate::monitor::iostat::IostatRow;
use crate::record::{
    DirectionRecord, FORMAT_VERSION, HistogramRecord, INTERVAL_FORMAT, IntervalRecord,
    LatencyRecord, Percentiles, SyncRecord,
};
use crate::stats::FIO_PERCENTILES;

/// Points kept per segment before thinning.
pub const MAX_POINTS: usize = 1024;

#[derive(Debug, Clone, Default)]
struct DirPoint {
    io_bytes: u64,
    bw_bytes: u64,
    iops: f64,
    runtime_ms: u64,
    total_ios: u64,
    min: u64,
    max: u64,
    mean: f64,
    stddev: f64,
    n: u64,
    percentiles: [u64; FIO_PERCENTILES.len()],
    /// A paced direction's latency from the schedule.
    sched: Option<Box<DirPoint>>,
}

impl DirPoint {
    fn from_latency(lat: &LatencyRecord) -> Self {
        let mut percentiles = [0; FIO_PERCENTILES.len()];
        for (slot, (_, ns)) in percentiles.iter_mut().zip(&lat.percentile.0) {
            *slot = *ns;
        }
        Self {
            min: lat.min,
            max: lat.max,
            mean: lat.mean,
            stddev: lat.stddev,
            n: lat.n,
            percentiles,
            ..Self::default()
        }
    }

    fn from_direction(d: &DirectionRecord) -> Self {
        Self {
            io_bytes: d.io_bytes,
            bw_bytes: d.bw_bytes,
            iops: d.iops,
            runtime_ms: d.runtime,
            total_ios: d.total_ios,
            sched: d
                .lat_sched_ns
                .as_ref()
                .map(|lat| Box::new(Self::from_latency(lat))),
            ..Self::from_latency(&d.lat_ns)
        }
    }

    fn latency(&self) -> LatencyRecord {
        LatencyRecord {
            min: self.min,
            max: self.max,
            mean: self.mean,
            stddev: self.stddev,
            n: self.n,
            percentile: Percentiles(if self.n == 0 {
                Vec::new()
            } else {
                FIO_PERCENTILES
                    .iter()
                    .copied()
                    .zip(self.percentiles)
                    .collect()
            }),
            histogram: None,
        }
    }

    fn direction(&self) -> DirectionRecord {
        DirectionRecord {
            io_bytes: self.io_bytes,
            io_kbytes: self.io_bytes / 1024,
            bw_bytes: self.bw_bytes,
            bw: self.bw_bytes / 1024,
            iops: self.iops,
            runtime: self.runtime_ms,
            total_ios: self.total_ios,
            lat_ns: self.latency(),
            lat_sched_ns: self.sched.as_ref().map(|sched| sched.latency()),
            runtime_ns: None,
        }
    }
}

#[derive(Debug, Clone, Default)]
struct Point {
    index: u64,
    t_ns: u64,
    duration_ns: u64,
    read: DirPoint,
    write: DirPoint,
    sync: DirPoint,
    trim: DirPoint,
    /// Read, write, sync and trim latency over the interval (bounded, sparse).
    histograms: [Option<HistogramRecord>; 4],
    device: Option<IostatRow>,
}

/// The thinned series of one segment.
#[derive(Clone)]
pub struct RecordSeries {
    points: Vec<Point>,
    len: usize,
    stride: u64,
}

impl RecordSeries {
    #[must_use]
    pub fn new() -> Self {
        Self {
            points: vec![Point::default(); MAX_POINTS],
            len: 0,
            stride: 1,
        }
    }

    /// Keeps `record` (one interval) if it falls on the stride.
    pub fn push(&mut self, record: &IntervalRecord, device: Option<&IostatRow>) {
        if record.index % self.stride != 0 {
            return;
        }
        if self.len == MAX_POINTS {
            self.stride *= 2;
            let stride = self.stride;
            let mut kept = 0;
            for i in 0..self.len {
                if self.points[i].index % stride == 0 {
                    self.points.swap(kept, i);
                    kept += 1;
                }
            }
            self.len = kept;
            if record.index % self.stride != 0 {
                return;
            }
        }
        let point = &mut self.points[self.len];
        point.index = record.index;
        point.t_ns = record.t_ns;
        point.duration_ns = record.duration_ns;
        point.read = DirPoint::from_direction(&record.read);
        point.write = DirPoint::from_direction(&record.write);
        point.sync = DirPoint {
            total_ios: record.sync.total_ios,
            ..DirPoint::from_latency(&record.sync.lat_ns)
        };
        point.trim = DirPoint::from_direction(&record.trim);
        let latencies = [
            &record.read.lat_ns,
            &record.write.lat_ns,
            &record.sync.lat_ns,
            &record.trim.lat_ns,
        ];
        for (slot, lat) in point.histograms.iter_mut().zip(latencies) {
            match (slot, &lat.histogram) {
                (Some(kept), Some(histogram)) => kept.clone_from(histogram),
                (slot, histogram) => slot.clone_from(histogram),
            }
        }
        match (&mut point.device, device) {
            (Some(kept), Some(row)) => kept.clone_from(row),
            (slot, row) => *slot = row.cloned(),
        }
        self.len += 1;
    }

    #[must_use]
    pub fn stride(&self) -> u32 {
        u32::try_from(self.stride).unwrap_or(u32::MAX)
    }

    /// The kept intervals as records.
    #[must_use]
    pub fn records(&self, segment: u32) -> Vec<IntervalRecord> {
        self.points[..self.len]
            .iter()
            .map(|p| {
                let mut record = IntervalRecord {
                    format: INTERVAL_FORMAT.to_string(),
                    format_version: FORMAT_VERSION,
                    segment,
                    index: p.index,
                    t_ns: p.t_ns,
                    duration_ns: p.duration_ns,
                    read: p.read.direction(),
                    write: p.write.direction(),
                    sync: SyncRecord {
                        total_ios: p.sync.total_ios,
                        lat_ns: p.sync.latency(),
                    },
                    trim: p.trim.direction(),
                    device: p.device.clone(),
                    jobs: Vec::new(),
                };
                let [read, write, sync, trim] = &p.histograms;
                record.read.lat_ns.histogram.clone_from(read);
                record.write.lat_ns.histogram.clone_from(write);
                record.sync.lat_ns.histogram.clone_from(sync);
                record.trim.lat_ns.histogram.clone_from(trim);
                record
            })
            .collect()
    }
}

impl Default for RecordSeries {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::DirectionStats;

    fn interval(index: u64) -> IntervalRecord {
        let mut stats = DirectionStats::new();
        stats.record(4096, 1000 + index);
        crate::stats::fixture::read_interval(0, index, &stats)
    }

    #[test]
    fn round_trips_and_thins_past_the_cap() {
        let mut series = RecordSeries::new();
        series.push(&interval(0), None);
        let back = series.records(3);
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].read, interval(0).read);
        assert_eq!(back[0].segment, 3);
        for i in 1..(MAX_POINTS as u64 * 2) {
            series.push(&interval(i), None);
        }
        let kept = series.records(0);
        assert_eq!(series.stride(), 2);
        assert!(kept.len() <= MAX_POINTS);
        assert!(kept.iter().all(|r| r.index % 2 == 0));
        assert!(kept.windows(2).all(|w| w[0].index < w[1].index));
        assert_eq!(kept.last().unwrap().index, MAX_POINTS as u64 * 2 - 2);
        series.push(&interval(MAX_POINTS as u64 * 2), None);
        assert_eq!(series.stride(), 4);
        assert!(series.records(0).iter().all(|r| r.index % 4 == 0));
    }
}
