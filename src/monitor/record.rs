//! The monitor recording's lines made from samples: counter deltas, `iostat -x` rows and the
//! header with this host (the line types are `record::monitor`'s).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::record::monitor::{
    CounterDeltas, MONITOR_FORMAT, MONITOR_FORMAT_VERSION, MonitorHeader, MonitorSample,
    RecordedDisk, RecordedHost, SampleDisk,
};
use crate::record::nanos;
use crate::record::{BlockTraceRecord, HistogramRecord};
use crate::trace::{BlockTrace, TraceCost, TraceTake};

use super::diskstats::{DiskCounters, DiskstatsSample};
use super::iostat::{IostatRow, pair_with_previous};

impl CounterDeltas {
    /// `cur - prev` per counter, `None` when any went backwards.
    #[must_use]
    pub fn between(prev: &DiskCounters, cur: &DiskCounters) -> Option<Self> {
        Some(Self {
            reads: cur.reads.checked_sub(prev.reads)?,
            reads_merged: cur.reads_merged.checked_sub(prev.reads_merged)?,
            sectors_read: cur.sectors_read.checked_sub(prev.sectors_read)?,
            read_ms: cur.read_ms.checked_sub(prev.read_ms)?,
            writes: cur.writes.checked_sub(prev.writes)?,
            writes_merged: cur.writes_merged.checked_sub(prev.writes_merged)?,
            sectors_written: cur.sectors_written.checked_sub(prev.sectors_written)?,
            write_ms: cur.write_ms.checked_sub(prev.write_ms)?,
            io_ms: cur.io_ms.checked_sub(prev.io_ms)?,
            weighted_io_ms: cur.weighted_io_ms.checked_sub(prev.weighted_io_ms)?,
            discards: cur.discards.checked_sub(prev.discards)?,
            discards_merged: cur.discards_merged.checked_sub(prev.discards_merged)?,
            sectors_discarded: cur.sectors_discarded.checked_sub(prev.sectors_discarded)?,
            discard_ms: cur.discard_ms.checked_sub(prev.discard_ms)?,
            flushes: cur.flushes.checked_sub(prev.flushes)?,
            flush_ms: cur.flush_ms.checked_sub(prev.flush_ms)?,
        })
    }
}

impl MonitorSample {
    /// The sample over the window from `prev` to `cur` of the disks of `cur` that `recorded`
    /// keeps, paired like `iostat::rows_between` (a disk new since `prev` counts from zero).
    #[must_use]
    pub fn between(
        seq: u64,
        wall: SystemTime,
        prev: &DiskstatsSample,
        cur: &DiskstatsSample,
        recorded: impl Fn(&DiskCounters) -> bool,
    ) -> Self {
        let window = cur.at.saturating_sub(prev.at);
        let zero = DiskCounters::zeroed("");
        let disks = pair_with_previous(&prev.disks, &cur.disks)
            .into_iter()
            .zip(&cur.disks)
            .filter(|(_, c)| recorded(c))
            .map(|(p, c)| {
                let p = p.unwrap_or(&zero);
                SampleDisk {
                    name: c.name.clone(),
                    in_flight: c.in_flight,
                    delta: CounterDeltas::between(p, c),
                    iostat: IostatRow::between(p, c, window),
                    block_trace: None,
                }
            })
            .collect();
        Self {
            seq,
            time: crate::record::rfc3339_utc(wall),
            unix_ns: nanos(wall.duration_since(UNIX_EPOCH).unwrap_or_default()),
            monotonic_ns: nanos(cur.at),
            window_ns: nanos(window),
            disks,
        }
    }
}

/// `trace` as a monitor sample (and `serve`) keeps it: the run record's `block_trace`, the
/// tracer's `cost` over the same take, and each direction's `device` time with its histogram
/// (bounded like a run's interval), so that a replay draws the heatmap and merges windows.
#[must_use]
pub fn sample_trace(trace: &BlockTrace, cost: Option<&TraceCost>) -> BlockTraceRecord {
    let mut rec = crate::trace::block_trace_record(trace, cost);
    let outs = [&mut rec.read, &mut rec.write, &mut rec.trim];
    for (dir, out) in trace.dirs.iter().zip(outs) {
        if let Some(out) = out {
            let (buckets, bits) = crate::stats::bounded(dir.device.fine_buckets());
            out.device.histogram = Some(HistogramRecord::from_buckets(&buckets, bits));
        }
    }
    rec
}

impl MonitorSample {
    /// Puts each disk's part of `take` on the sample's disk of that name.
    pub fn attach_traces(&mut self, take: &TraceTake) {
        for disk in &mut self.disks {
            disk.block_trace = take
                .disks
                .iter()
                .find(|t| t.disk == disk.name)
                .map(|t| sample_trace(t, Some(&take.cost)));
        }
    }
}

impl MonitorHeader {
    /// A header for a recording of `disks` starting now, by `writer`.
    #[must_use]
    pub fn new(writer: &str, interval: Duration, disks: Vec<RecordedDisk>) -> Self {
        let host = super::host::Host::detect();
        Self {
            format: MONITOR_FORMAT.to_owned(),
            format_version: MONITOR_FORMAT_VERSION,
            diskdash_version: env!("CARGO_PKG_VERSION").to_owned(),
            writer: writer.to_owned(),
            host: RecordedHost {
                kernel: host.kernel(),
                hostname: host.hostname,
                machine: host.machine,
                online_cpus: host.online_cpus,
            },
            started: crate::record::rfc3339_utc(SystemTime::now()),
            started_monotonic_ns: nanos(super::diskstats::monotonic_now()),
            interval_ns: nanos(interval),
            disks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::monitor::{Recording, is_monitor_recording};
    use proptest::prelude::*;

    fn header() -> String {
        serde_json::to_string(&MonitorHeader::new(
            "iostat",
            Duration::from_secs(1),
            vec![RecordedDisk {
                name: "vda".into(),
                queue: None,
            }],
        ))
        .unwrap()
    }

    fn sample(seq: u64, reads: u64) -> String {
        let line = |reads: u64| {
            let mut c = DiskCounters::zeroed("vda");
            c.reads = reads;
            c.sectors_read = reads * 8;
            c
        };
        let prev = DiskstatsSample {
            at: Duration::from_secs(seq),
            disks: vec![line(0)],
        };
        let cur = DiskstatsSample {
            at: Duration::from_secs(seq + 1),
            disks: vec![line(reads)],
        };
        let wall = UNIX_EPOCH + Duration::from_secs(1_800_000_000 + seq);
        serde_json::to_string(&MonitorSample::between(seq, wall, &prev, &cur, |_| true)).unwrap()
    }

    #[test]
    fn samples_carry_deltas_and_the_iostat_columns_of_their_window() {
        let s: MonitorSample = serde_json::from_str(&sample(3, 50)).unwrap();
        assert_eq!(s.window_ns, 1_000_000_000);
        assert_eq!(s.time, "2027-01-15T08:00:03.000Z");
        let d = &s.disks[0];
        assert_eq!(d.delta.unwrap().reads, 50);
        assert_eq!(d.delta.unwrap().sectors_read, 400);
        assert_eq!(d.iostat.reads_per_s, 50.0);
        assert_eq!(d.iostat.read_kb_per_s, 200.0);
        assert!(is_monitor_recording(header().as_bytes()));
        assert!(!is_monitor_recording(sample(1, 1).as_bytes()));
    }

    #[test]
    fn restarts_torn_lines_and_gaps_are_read_with_notes() {
        let text = format!(
            "{h}\n{}\n{}\n{h}\n{}\n{}\n{}",
            sample(1, 1),
            sample(2, 2),
            sample(1, 3),
            sample(4, 4),
            &sample(5, 5)[..40],
            h = header()
        );
        let mut rec = Recording::default();
        rec.add_file("r.jsonl", text.as_bytes()).unwrap();
        assert_eq!(rec.headers.len(), 2);
        let seqs: Vec<u64> = rec.samples.iter().map(|s| s.seq).collect();
        assert_eq!(seqs, [1, 2, 1, 4]);
        assert_eq!(rec.notes.len(), 2, "{:?}", rec.notes);
        assert!(
            rec.notes[0].contains("2 samples missing before"),
            "{:?}",
            rec.notes
        );
        assert!(rec.notes[1].starts_with("r.jsonl: torn last line skipped"));
    }

    #[test]
    fn other_files_are_refused() {
        let mut rec = Recording::default();
        let err = rec.add_file("x", sample(1, 1).as_bytes()).unwrap_err();
        assert!(err.contains("comes before any header"), "{err}");
        let err = rec.add_file("x", b"\n").unwrap_err();
        assert!(err.contains("is empty"), "{err}");
        let newer = header().replace("\"format_version\":1", "\"format_version\":9");
        let err = rec.add_file("x", newer.as_bytes()).unwrap_err();
        assert!(err.contains("format_version 9"), "{err}");
    }

    proptest! {
        /// A file cut anywhere (a kill mid-write) reads as a prefix of what was written, with a
        /// note when the cut tore a line; never a panic.
        #[test]
        fn a_cut_recording_reads_as_a_prefix(cut in 1usize..4000) {
            let written = [sample(1, 1), sample(2, 7), sample(3, 9)];
            let head = header();
            let mut bytes = format!("{head}\n{}\n", written.join("\n")).into_bytes();
            let full = bytes.len();
            bytes.truncate(cut.min(full));
            let mut rec = Recording::default();
            match rec.add_file("p", &bytes) {
                Ok(()) => {
                    let read: Vec<String> =
                        rec.samples.iter().map(|s| serde_json::to_string(s).unwrap()).collect();
                    prop_assert_eq!(&read[..], &written[..read.len()]);
                    let whole_lines = bytes.iter().filter(|&&b| b == b'\n').count();
                    // After the last newline: nothing, a torn line (noted), or a whole sample
                    // whose newline was cut off (read like any other).
                    let tail = &bytes[bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)..];
                    let whole_tail = written.iter().any(|w| w.as_bytes() == tail)
                        || tail == head.as_bytes();
                    let torn = !tail.is_empty() && !whole_tail;
                    // Whole lines, the header first.
                    let lines = whole_lines + usize::from(whole_tail);
                    // (A header torn before its newline reads as no samples, with the note.)
                    prop_assert_eq!(read.len(), lines.saturating_sub(1));
                    prop_assert_eq!(rec.notes.len(), usize::from(torn));
                }
                // Only a cut inside the header line (before it can be told a header) leaves
                // no recording.
                Err(_) => prop_assert!(!bytes.contains(&b'\n')),
            }
        }

        /// Any byte changed anywhere: read (with notes) or refused, never a panic, never more
        /// samples than lines.
        #[test]
        fn a_damaged_recording_never_panics(at in 0usize..4000, byte: u8) {
            let mut bytes =
                format!("{}\n{}\n{}\n", header(), sample(1, 1), sample(2, 7)).into_bytes();
            let at = at % bytes.len();
            bytes[at] = byte;
            let mut rec = Recording::default();
            if rec.add_file("p", &bytes).is_ok() {
                prop_assert!(rec.samples.len() <= 2);
            }
        }
    }
}
