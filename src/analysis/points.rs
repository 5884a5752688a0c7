//! A sweep's points from its record: one row per point, its loops picked (best, mean or
//! median), per direction the rates and latencies, the sync calls, what ran when it is not
//! what the point says, and whether the page cache served it. Typed rows that the table
//! (`report::sweep::table`) renders and `compare` reads.

use serde::Serialize;

use crate::analysis::reconcile::Verdict;
use crate::analysis::trust::{self, TrustLimits};
use crate::record::{DirectionRecord, RunRecord, RunStatus, StepRecord, SyncRecord, TrustRecord};
use crate::stats::{LatencyBucket, bucket_percentile_ns, merge_buckets};
use crate::values::Pick;

/// One direction of a point.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Dir {
    pub ios: u64,
    pub iops: f64,
    pub bytes_per_s: f64,
    pub mean_ns: f64,
    pub p99_ns: u64,
}

/// A point's fsync/fdatasync calls: how many, their mean and p99 latency.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Sync {
    pub ios: u64,
    pub mean_ns: f64,
    pub p99_ns: u64,
}

/// One point of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The swept options and their values, in the sweep's order.
    pub point: Vec<(String, String)>,
    /// `completed`; `interrupted` when a run of it was cut short (skipped or stopped),
    /// `failed` when one failed. Only completed points can be best, a peak or a knee.
    pub status: String,
    /// Runs of the point (loops that ran).
    pub runs: usize,
    /// The engine that ran the point (`psync` where io_uring was asked for but unavailable).
    pub engine: String,
    /// I/Os in flight per worker as it ran (psync issues one at a time, whatever the point's
    /// iodepth says).
    pub iodepth: u32,
    /// What ran, when it is not what the point's values say: `ran psync at iodepth 1`, or
    /// after a fallback `fell back to psync (io_uring unavailable), ran at iodepth 1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ran: Option<String>,
    /// The point asked for io_uring, which could not be set up, and ran on psync: it measured
    /// another engine than the sweep's, so it is never the best, a peak or a knee.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fell_back: bool,
    /// What the point ran otherwise than the sweep's options say, one line each: a batching
    /// value capped to the point's depth (`iodepth_batch_complete_min 8 -> 1 at iodepth 1`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub read: Dir,
    pub write: Dir,
    /// The fsync/fdatasync calls (`--fsync N`, `--fdatasync N`), timed apart from the writes;
    /// absent when the point made none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<Sync>,
    /// `dsync` or `sync` when the files were opened O_DSYNC or O_SYNC (`--sync`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_sync: Option<String>,
    /// Whether write latency includes the sync: true when the files were opened O_DSYNC/O_SYNC
    /// (each write returns once it is on the disk), false when the point synced with
    /// fsync/fdatasync calls only (their latency is `sync`'s); absent when it synced nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_lat_includes_sync: Option<bool>,
    /// Bytes read, written and trimmed in the measured window (dd's "bytes copied").
    pub bytes: u64,
    /// The measured time (dd's "s").
    pub elapsed_ns: u64,
    /// The device served under half of the bytes: the row measured the page cache, not the
    /// disk. Never the best, a peak or a knee.
    pub page_cache: bool,
    pub util_pct: Option<f64>,
    pub aqu_sz: Option<f64>,
    /// The same point on memory (`--baseline memory`): read and write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<(Dir, Dir)>,
    /// How far the point can be trusted: its spread over its loops (over batches of its
    /// intervals when it ran once), its I/Os, its share of the disk, its marks. A marked point
    /// is never the best, a peak or a knee.
    pub trust: TrustRecord,
}

impl Row {
    /// Whether the point may be the best, a peak or a knee: it [measured](Self::measured)
    /// what its values say and carries no trust mark (`short`, `shared`, `unstable`,
    /// `fallback`).
    #[must_use]
    pub fn counts(&self) -> bool {
        self.measured() && self.trust.marks.is_empty()
    }

    /// Whether the point measured what its values say: it completed, it measured the disk
    /// (not the page cache), it ran the engine it asked for (no fallback to psync), and the
    /// engine and the depth its values name (an `iodepth=32` point that psync ran one I/O at
    /// a time measured depth 1, not 32). `--advice` rests on these, and says when any of them
    /// is marked.
    #[must_use]
    pub fn measured(&self) -> bool {
        self.status == "completed"
            && !self.page_cache
            && !self.fell_back
            && self
                .point
                .iter()
                .all(|(option, value)| match option.as_str() {
                    "iodepth" => value.parse::<u32>().is_ok_and(|d| d == self.iodepth),
                    "ioengine" => *value == self.engine,
                    _ => true,
                })
    }
}

/// The rows of the disk's points, each with its memory baseline's read and write (the rows
/// whose point ends in `baseline=memory`) beside it.
#[must_use]
pub fn with_memory(rows: Vec<Row>) -> Vec<Row> {
    let is_memory = |r: &Row| {
        r.point
            .last()
            .is_some_and(|(k, v)| k == "baseline" && v == "memory")
    };
    let (memory, mut disk): (Vec<Row>, Vec<Row>) = rows.into_iter().partition(is_memory);
    for row in &mut disk {
        row.memory = memory
            .iter()
            .find(|m| m.point[..m.point.len() - 1] == row.point[..])
            .map(|m| (m.read, m.write));
    }
    disk
}

/// The points of a sweep's record, each from its consecutive steps (its loops), picked.
#[must_use]
pub fn rows(record: &RunRecord, pick: Pick) -> Vec<Row> {
    let limits = TrustLimits::of(record.trust_limits.as_ref());
    let mut out: Vec<Row> = Vec::new();
    let mut group: Vec<&StepRecord> = Vec::new();
    for step in &record.steps {
        if group.first().is_some_and(|g| g.point != step.point) {
            out.push(row(&group, pick, &limits));
            group.clear();
        }
        group.push(step);
    }
    if !group.is_empty() {
        out.push(row(&group, pick, &limits));
    }
    out
}

fn bandwidth(step: &StepRecord) -> u64 {
    step.read.bw_bytes + step.write.bw_bytes
}

fn dir(d: &DirectionRecord) -> Dir {
    Dir {
        ios: d.total_ios,
        iops: d.iops,
        bytes_per_s: d.bw_bytes as f64,
        mean_ns: d.lat_ns.mean,
        p99_ns: d.lat_ns.percentile_ns(99.0).unwrap_or(0),
    }
}

/// Rates averaged over `dirs`, the mean latency over all their I/Os, p99 from their merged
/// histograms.
fn mean_dir(dirs: &[&DirectionRecord]) -> Dir {
    let n = dirs.len().max(1) as f64;
    let ios: u64 = dirs.iter().map(|d| d.total_ios).sum();
    let mut buckets: Vec<LatencyBucket> = Vec::new();
    for d in dirs {
        if let Some(h) = &d.lat_ns.histogram {
            let theirs: Vec<LatencyBucket> = h.buckets().collect();
            merge_buckets(&mut buckets, &theirs);
        }
    }
    Dir {
        ios,
        iops: dirs.iter().map(|d| d.iops).sum::<f64>() / n,
        bytes_per_s: dirs.iter().map(|d| d.bw_bytes as f64).sum::<f64>() / n,
        mean_ns: if ios == 0 {
            0.0
        } else {
            dirs.iter()
                .map(|d| d.lat_ns.mean * d.total_ios as f64)
                .sum::<f64>()
                / ios as f64
        },
        p99_ns: if buckets.is_empty() {
            0
        } else {
            bucket_percentile_ns(&buckets, 99.0)
        },
    }
}

/// The bytes a step moved in its measured window, every direction.
fn moved(step: &StepRecord) -> u64 {
    step.read.io_bytes + step.write.io_bytes + step.trim.io_bytes
}

/// Whether a device of the step served under half of its bytes (the page cache served the
/// rest), as the run's `PAGE CACHE` warning says; never on the null engine, which sends the
/// device nothing.
fn page_cache(step: &StepRecord) -> bool {
    step.engine != "null"
        && step.job.ioengine != "null"
        && step
            .devices
            .iter()
            .chain(step.device.iter())
            .any(|d| Verdict::of(&d.reconciliation) == Verdict::PageCache)
}

fn sync_of(sync: &SyncRecord) -> Option<Sync> {
    (sync.total_ios > 0).then(|| Sync {
        ios: sync.total_ios,
        mean_ns: sync.lat_ns.mean,
        p99_ns: sync.lat_ns.percentile_ns(99.0).unwrap_or(0),
    })
}

/// The calls of every run: the mean over all of them, p99 from their merged histograms.
fn mean_sync(syncs: &[&SyncRecord]) -> Option<Sync> {
    let ios: u64 = syncs.iter().map(|s| s.total_ios).sum();
    if ios == 0 {
        return None;
    }
    let mut buckets: Vec<LatencyBucket> = Vec::new();
    for s in syncs {
        if let Some(h) = &s.lat_ns.histogram {
            let theirs: Vec<LatencyBucket> = h.buckets().collect();
            merge_buckets(&mut buckets, &theirs);
        }
    }
    Some(Sync {
        ios,
        mean_ns: syncs
            .iter()
            .map(|s| s.lat_ns.mean * s.total_ios as f64)
            .sum::<f64>()
            / ios as f64,
        p99_ns: if buckets.is_empty() {
            0
        } else {
            bucket_percentile_ns(&buckets, 99.0)
        },
    })
}

fn row(runs: &[&StepRecord], pick: Pick, limits: &TrustLimits) -> Row {
    let first = runs[0];
    let point_trust = trust::of_point(runs, limits);
    let status = if runs.iter().all(|s| s.status == RunStatus::Completed) {
        "completed"
    } else if runs.iter().any(|s| s.status == RunStatus::Failed) {
        "failed"
    } else {
        "interrupted"
    };
    // %util over 100 is the kernel's counters jittering against the interval's clock:
    // clamped, as sysstat's iostat does.
    let device = |s: &StepRecord| {
        (
            s.device.as_ref().map(|d| d.iostat.util_pct.min(100.0)),
            s.device.as_ref().map(|d| d.iostat.queue_size),
        )
    };
    let (engine, iodepth, ran, fell_back) = ran_as(runs);
    let open_sync = first
        .job
        .sync
        .clone()
        .filter(|s| !matches!(s.as_str(), "" | "0" | "none"));
    let picked = |step: &StepRecord| {
        let (util_pct, aqu_sz) = device(step);
        let sync = sync_of(&step.sync);
        Row {
            point: first
                .point
                .iter()
                .map(|p| (p.option.clone(), p.value.clone()))
                .collect(),
            status: status.to_string(),
            runs: runs.len(),
            engine: engine.clone(),
            iodepth,
            ran: ran.clone(),
            fell_back,
            notes: first.notes.clone(),
            read: dir(&step.read),
            write: dir(&step.write),
            write_lat_includes_sync: if open_sync.is_some() {
                Some(true)
            } else {
                sync.map(|_| false)
            },
            sync,
            open_sync: open_sync.clone(),
            bytes: moved(step),
            elapsed_ns: step.elapsed_ns,
            page_cache: page_cache(step),
            util_pct,
            aqu_sz,
            memory: None,
            trust: point_trust.clone(),
        }
    };
    match pick {
        Pick::Best => picked(runs.iter().max_by_key(|s| bandwidth(s)).unwrap_or(&first)),
        Pick::Median => {
            let mut sorted = runs.to_vec();
            sorted.sort_by_key(|s| bandwidth(s));
            picked(sorted[(sorted.len() - 1) / 2])
        }
        Pick::Mean => {
            let mut row = picked(first);
            let reads: Vec<&DirectionRecord> = runs.iter().map(|s| &s.read).collect();
            let writes: Vec<&DirectionRecord> = runs.iter().map(|s| &s.write).collect();
            row.read = mean_dir(&reads);
            row.write = mean_dir(&writes);
            let syncs: Vec<&SyncRecord> = runs.iter().map(|s| &s.sync).collect();
            row.sync = mean_sync(&syncs);
            if row.open_sync.is_none() {
                row.write_lat_includes_sync = row.sync.map(|_| false);
            }
            let mean_u64 = |values: &mut dyn Iterator<Item = u64>| {
                (values.map(|v| v as f64).sum::<f64>() / runs.len() as f64).round() as u64
            };
            row.bytes = mean_u64(&mut runs.iter().map(|s| moved(s)));
            row.elapsed_ns = mean_u64(&mut runs.iter().map(|s| s.elapsed_ns));
            row.page_cache = runs.iter().any(|s| page_cache(s));
            let mean = |values: Vec<f64>| {
                let n = values.len() as f64;
                (!values.is_empty()).then(|| values.iter().sum::<f64>() / n)
            };
            row.util_pct = mean(runs.iter().filter_map(|s| device(s).0).collect());
            row.aqu_sz = mean(runs.iter().filter_map(|s| device(s).1).collect());
            row
        }
    }
}

/// The engine the point's runs used and the depth they ran at (the first run that names an
/// engine: records before engines were per step name none), and the words for it when it is
/// not what the point asked for (io_uring fell back to psync; psync runs one I/O at a time).
pub(crate) fn ran_as(runs: &[&StepRecord]) -> (String, u32, Option<String>, bool) {
    let first = runs
        .iter()
        .find(|s| !s.engine.is_empty())
        .copied()
        .unwrap_or(runs[0]);
    let asked_engine = first.job.ioengine.as_str();
    let engine = if first.engine.is_empty() {
        asked_engine.to_string()
    } else {
        first.engine.clone()
    };
    let asked_depth = first.job.iodepth;
    let depth = if engine == "psync" { 1 } else { asked_depth };
    // Only io_uring falls back (the others run as named or fail), and only to psync.
    let fell_back = engine != asked_engine;
    let ran = (fell_back || depth != asked_depth).then(|| {
        let mut words = if fell_back {
            format!("fell back to {engine} ({asked_engine} unavailable)")
        } else {
            format!("ran {engine}")
        };
        if depth != asked_depth {
            words += &format!(
                "{} at iodepth {depth}",
                if fell_back { ", ran" } else { "" }
            );
        }
        words
    });
    (engine, depth, ran, fell_back)
}
