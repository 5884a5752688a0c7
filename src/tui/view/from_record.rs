//! A recorded run (`diskdash bench --json`) as the view model, for `diskdash show`: the
//! series of every step end to end, the latency of the last step and of the whole run,
//! the device as recorded. Pure: the record in, a view out.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::fleet::merge::{Rates, merge_direction, merge_sync};
use crate::record::{
    DirectionRecord, LatencyRecord, MergedRecord, RunRecord, RunStatus, RunWarning, StepJobRecord,
    StepRecord, TYPED_WARNINGS_FORMAT,
};
use crate::tui::view::from_monitor;
use crate::tui::view::{
    DeviceView, DeviceWindow, Direction, Header, HeatColumn, HeatmapView, JobRow, JobsSpan,
    JobsView, LatencyBucket, LatencyColumns, LatencyRow, LatencyView, Mode, Percentiles,
    RateLevels, RatePoint, Reconciliation, RunState, StepMark, ThroughputView, UiState, View,
    Warning, WarningKind,
};

const NS: f64 = 1e9;

/// Read, write, sync and trim latency, each as a total and, when there is one, a part of it
/// (the last interval, the last step).
pub(super) fn by_direction<'a>(
    total: [&'a LatencyRecord; 4],
    part: Option<[&'a LatencyRecord; 4]>,
) -> [(Direction, &'a LatencyRecord, Option<&'a LatencyRecord>); 4] {
    let dirs = [
        Direction::Read,
        Direction::Write,
        Direction::Sync,
        Direction::Trim,
    ];
    std::array::from_fn(|i| (dirs[i], total[i], part.map(|p| p[i])))
}

fn pct(lat: &LatencyRecord, p: f64) -> u64 {
    lat.percentile_ns(p).unwrap_or(0)
}

pub(super) fn percentiles(lat: &LatencyRecord) -> Option<Percentiles> {
    (lat.n > 0).then(|| Percentiles {
        p50_ns: pct(lat, 50.0),
        p90_ns: pct(lat, 90.0),
        p99_ns: pct(lat, 99.0),
        p999_ns: pct(lat, 99.9),
        max_ns: lat.max,
    })
}

/// The recorded histograms as the latency panel's buckets: reads and writes summed (sync calls
/// are another kind of latency), the last step and the whole run side by side, sparse like
/// the record's (the panel spreads them over the rows it has).
fn buckets(record: &RunRecord, last: Option<&StepRecord>) -> Vec<LatencyBucket> {
    let mut counts: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    let mut add = |lat: &LatencyRecord, pick: fn(&mut (u64, u64)) -> &mut u64| {
        for b in lat.histogram.iter().flat_map(|h| h.buckets()) {
            *pick(counts.entry(b.le_ns).or_default()) += b.count;
        }
    };
    if let Some(step) = last {
        add(&step.read.lat_ns, |c| &mut c.0);
        add(&step.write.lat_ns, |c| &mut c.0);
        add(&step.trim.lat_ns, |c| &mut c.0);
    }
    add(&record.read.lat_ns, |c| &mut c.1);
    add(&record.write.lat_ns, |c| &mut c.1);
    add(&record.trim.lat_ns, |c| &mut c.1);
    LatencyBucket::from_counts(counts)
}

/// The recorded per-interval histograms of `dir`, every step end to end. Format 2 records
/// have none: the heatmap then says so.
fn heatmap(record: &RunRecord, dir: Direction) -> HeatmapView {
    let mut columns = Vec::new();
    let mut base_ns = 0u64;
    let mut without = false;
    for step in &record.steps {
        for p in &step.series {
            let lat = match dir {
                Direction::Read => &p.read.lat_ns,
                Direction::Write => &p.write.lat_ns,
                Direction::Sync => &p.sync.lat_ns,
                Direction::Trim => &p.trim.lat_ns,
            };
            without |= lat.histogram.is_none();
            columns.push(HeatColumn {
                t_s: (base_ns + p.t_ns) as f64 / NS,
                buckets: lat
                    .histogram
                    .iter()
                    .flat_map(|h| h.buckets())
                    .map(|b| (b.le_ns, b.count))
                    .collect(),
            });
        }
        base_ns += step.elapsed_ns;
    }
    let missing = (without && columns.iter().all(|c| c.buckets.is_empty())).then(|| {
        format!(
            "no latency over time: this record (format_version {}) has no per-interval \
             histograms",
            record.format_version
        )
    });
    if missing.is_some() {
        columns.clear();
    }
    HeatmapView {
        dir,
        columns,
        missing,
    }
}

fn iops(d: &DirectionRecord) -> f64 {
    d.iops
}

/// The lowest and highest rates of the intervals a series point merges.
fn rate_range(merged: &MergedRecord) -> [RateLevels; 2] {
    let (r, w, t) = (&merged.read, &merged.write, &merged.trim);
    [
        RateLevels {
            read_iops: r.min_iops,
            write_iops: w.min_iops,
            read_bytes_per_s: r.min_bw_bytes as f64,
            write_bytes_per_s: w.min_bw_bytes as f64,
            trim_iops: t.min_iops,
            trim_bytes_per_s: t.min_bw_bytes as f64,
        },
        RateLevels {
            read_iops: r.max_iops,
            write_iops: w.max_iops,
            read_bytes_per_s: r.max_bw_bytes as f64,
            write_bytes_per_s: w.max_bw_bytes as f64,
            trim_iops: t.max_iops,
            trim_bytes_per_s: t.max_bw_bytes as f64,
        },
    ]
}

/// The whole view of a record.
#[must_use]
pub fn view(record: &RunRecord, ui: UiState) -> View {
    let mut points = Vec::new();
    let mut marks = Vec::new();
    let mut device_history = Vec::new();
    let mut base_ns = 0u64;
    for step in &record.steps {
        if base_ns > 0 {
            marks.push(StepMark {
                t_s: base_ns as f64 / NS,
                label: step
                    .job
                    .ran_description
                    .clone()
                    .unwrap_or_else(|| step.job.description.clone()),
            });
        }
        for p in &step.series {
            points.push(RatePoint {
                t_s: (base_ns + p.t_ns) as f64 / NS,
                read_iops: iops(&p.read),
                write_iops: iops(&p.write),
                read_bytes_per_s: p.read.bw_bytes as f64,
                write_bytes_per_s: p.write.bw_bytes as f64,
                trim_iops: iops(&p.trim),
                trim_bytes_per_s: p.trim.bw_bytes as f64,
                range: p.merged.as_ref().map(rate_range),
                stalled_s: p.stalled_ns as f64 / NS,
            });
            if let Some(dev) = &p.device {
                device_history.push(from_monitor::device_rates(dev));
            }
        }
        base_ns += step.elapsed_ns;
    }

    let last = record.steps.last();
    let dirs = by_direction(
        [
            &record.read.lat_ns,
            &record.write.lat_ns,
            &record.sync.lat_ns,
            &record.trim.lat_ns,
        ],
        last.map(|s| {
            [
                &s.read.lat_ns,
                &s.write.lat_ns,
                &s.sync.lat_ns,
                &s.trim.lat_ns,
            ]
        }),
    );
    let heat_dir = dirs
        .iter()
        .find(|(_, total, _)| total.n > 0)
        .map_or(Direction::Read, |(dir, _, _)| *dir);
    let mut rows = Vec::new();
    for (dir, total, step) in dirs.iter().filter(|(_, total, _)| total.n > 0) {
        rows.push(LatencyRow {
            dir: *dir,
            interval: step.and_then(percentiles),
            total: percentiles(total),
            from_schedule: false,
        });
        // A paced direction: its latency from the schedule beside it.
        let sched = |d: &crate::record::DirectionRecord| d.lat_sched_ns.clone();
        let (total, step) = match dir {
            Direction::Read => (sched(&record.read), last.and_then(|s| sched(&s.read))),
            Direction::Write => (sched(&record.write), last.and_then(|s| sched(&s.write))),
            Direction::Sync | Direction::Trim => (None, None),
        };
        if let Some(total) = total {
            rows.push(LatencyRow {
                dir: *dir,
                interval: step.as_ref().and_then(percentiles),
                total: percentiles(&total),
                from_schedule: true,
            });
        }
    }

    let mut warnings = Vec::new();
    if let Some(err) = &record.error {
        warnings.push(Warning::new(WarningKind::Error, err.message.clone()));
    }
    warnings.extend(record_warnings(record));
    if let Some(fallback) = &record.engine.fallback {
        warnings.push(Warning::new(WarningKind::FallbackEngine, fallback.clone()));
    }
    // The panel is the last step's: a step without a device (a memory baseline's, on
    // tmpfs) says so rather than show another step's numbers. Records without steps
    // keep the run's device.
    let last_device = match last {
        Some(step) => step.device.as_ref(),
        None => record.device.as_ref(),
    };
    let no_device = last_device.is_none() && record.device.is_some();
    let device = last_device.map(|d| DeviceView {
        name: d.name.clone(),
        now: from_monitor::device_rates(&d.iostat),
        history: device_history,
        reconciliation: Some(Reconciliation {
            app_ios: d.reconciliation.app_read_ios
                + d.reconciliation.app_write_ios
                + d.reconciliation.app_trim_ios,
            device_ios: d.reconciliation.device_read_ios
                + d.reconciliation.device_write_ios
                + d.reconciliation.device_discard_ios,
            verdict: Some(d.reconciliation.verdict.clone()),
        }),
        warnings: warnings.clone(),
        absent: None,
        // `device` covers the measured window of the last step.
        window: DeviceWindow::StepAverage {
            step: record.steps.len(),
            elapsed: Duration::from_nanos(record.steps.last().map_or(0, |s| s.elapsed_ns)),
        },
        reconciliation_of: Some(format!("seg {}", record.steps.len())),
        disks: Vec::new(),
    });
    let device = device.or_else(|| {
        no_device.then(|| DeviceView {
            name: "-".into(),
            absent: Some(format!(
                "no device: seg {} ran without a block device (e.g. a memory baseline on tmpfs)",
                record.steps.len()
            )),
            warnings,
            ..DeviceView::default()
        })
    });
    // The same queue panel as the live run's.
    let queue = last_device.map(|d| from_monitor::queue_view(&d.disk, &d.queue));
    let state = match record.status {
        RunStatus::Failed => RunState::Failed(
            record
                .error
                .as_ref()
                .map_or_else(|| "the run failed".into(), |e| e.message.clone()),
        ),
        RunStatus::Completed | RunStatus::Stopped | RunStatus::Interrupted => RunState::Recorded,
    };
    let status = record.status.as_str();
    let engine = if record.engine.fallback.is_some() {
        format!("{} (fallback)", record.engine.used)
    } else {
        record.engine.used.clone()
    };
    // The description names the engine; the header shows it apart, once.
    // After a fallback, the job as it ran (psync at depth 1), which names the engine used.
    let shown = last.map_or(&record.job, |s| &s.job);
    let (description, named) = match &shown.ran_description {
        Some(ran) => (ran, &record.engine.used),
        None => (&shown.description, &record.job.ioengine),
    };
    let mut job = description.replacen(&format!(" {named} "), " ", 1);
    let mut target = record.target.path.clone();
    if let Some(step) = last.filter(|s| s.jobs.len() > 1) {
        let names: Vec<&str> = step.jobs.iter().map(|j| j.name.as_str()).collect();
        job = format!("{} jobs: {}", names.len(), names.join(", "));
        let paths: Vec<&str> = step.jobs.iter().map(|j| j.target.path.as_str()).collect();
        target = format!("{{{}}}", paths.join(","));
    }
    let mut ui = ui;
    ui.message = Some(format!("recorded {} ({status})", record.started_at));
    let n = record.steps.len();
    View {
        mode: Mode::Show,
        header: Header {
            host: record.host.hostname.clone(),
            kernel: format!("Linux {}", record.host.kernel),
            target: Some(target),
            disk: record.device.as_ref().map(|d| d.name.clone()),
            engine: Some(engine),
            job: Some(job),
            state: Some(state),
            elapsed: Duration::from_nanos(record.elapsed_ns),
            remaining: None,
            record_step: (n > 0).then_some((n, n)),
            interval: None,
            ..Header::default()
        },
        throughput: Some(ThroughputView {
            source: "app".into(),
            points,
            steps: marks,
            pace: record
                .job
                .rate
                .as_ref()
                .map(|rate| rate.limit().job_text(record.job.numjobs)),
            // The run's totals over its measured time: the summary's numbers, not the last
            // interval's.
            headline: Some(RatePoint {
                t_s: record.elapsed_ns as f64 / NS,
                read_iops: record.read.iops,
                write_iops: record.write.iops,
                read_bytes_per_s: record.read.bw_bytes as f64,
                write_bytes_per_s: record.write.bw_bytes as f64,
                trim_iops: record.trim.iops,
                trim_bytes_per_s: record.trim.bw_bytes as f64,
                range: None,
                stalled_s: 0.0,
            }),
        }),
        latency: Some(LatencyView {
            rows,
            // Records before format 2 kept percentiles only: no buckets.
            buckets: buckets(record, last),
            columns: LatencyColumns::StepRun,
            heatmap: Some(heatmap(record, heat_dir)),
            of: None,
            what: None,
        }),
        device,
        queue,
        disks: None,
        jobs: last.and_then(jobs),
        sweep: super::sweep::recorded(record, ui.sweep_metric),
        // The last step's first job with one.
        steady: last.and_then(|step| {
            step.jobs
                .iter()
                .find_map(|j| super::steady::recorded(j, step.jobs.len() > 1))
        }),
        sustained: last.and_then(|step| {
            step.jobs
                .iter()
                .find_map(|j| super::steady::recorded_chart(j, step.jobs.len() > 1))
        }),
        verify: last.and_then(|step| {
            step.jobs
                .iter()
                .find_map(|j| super::verify::recorded(j, step.jobs.len() > 1))
        }),
        top: None,
        trace: None,
        ui,
    }
}

/// The view of a record with the charts, latency and lines following job `name` of its last
/// step (`tab` and the arrows pick it in `show`, as in the live dashboard); the step total when
/// `name` is `None` or not a job of that step.
#[must_use]
pub fn view_of_job(record: &RunRecord, ui: UiState, name: Option<&str>) -> View {
    let Some(last) = record.steps.last() else {
        return view(record, ui);
    };
    let selected = name.and_then(|n| last.jobs.iter().position(|j| j.name == n));
    let (Some(index), Some(name)) = (selected, name) else {
        let mut whole = view(record, ui);
        if last.jobs.len() > 1 {
            name_the_charts(&mut whole, super::from_snapshot::STEP_TOTAL);
        }
        return whole;
    };
    let mut mine = record.clone();
    let mut elapsed_ns = 0u64;
    // Records keep per-job parts of their intervals only where the session wrote them.
    let mut job_series = true;
    for step in &mut mine.steps {
        let Some(at) = step.jobs.iter().position(|j| j.name == name) else {
            continue;
        };
        let job = step.jobs.remove(at);
        elapsed_ns += job.elapsed_ns;
        step.read = job.read.clone();
        step.write = job.write.clone();
        step.sync = job.sync.clone();
        step.trim = job.trim.clone();
        // Its steady state, written data and verification, not another job's.
        for other in &mut step.jobs {
            other.steadystate = None;
            other.sustained_write = None;
            other.verify = None;
        }
        step.jobs.insert(0, job);
        for point in &mut step.series {
            if let Some(part) = point.jobs.iter().find(|j| j.name == name) {
                point.read = part.read.clone();
                point.write = part.write.clone();
                point.sync = part.sync.clone();
                point.trim = part.trim.clone();
            } else {
                job_series = false;
            }
        }
    }
    // The whole-run column: the job over the steps it ran in.
    let parts: Vec<&StepJobRecord> = record
        .steps
        .iter()
        .filter_map(|s| s.jobs.iter().find(|j| j.name == name))
        .collect();
    if let [only] = parts.as_slice() {
        // One step (a fio job file's usual case): the job's own record, exact.
        mine.read = only.read.clone();
        mine.write = only.write.clone();
        mine.trim = only.trim.clone();
        mine.sync = only.sync.clone();
    } else {
        let over = Rates::Over(elapsed_ns);
        mine.read = merge_direction(&parts.iter().map(|j| &j.read).collect::<Vec<_>>(), over);
        mine.write = merge_direction(&parts.iter().map(|j| &j.write).collect::<Vec<_>>(), over);
        mine.trim = merge_direction(&parts.iter().map(|j| &j.trim).collect::<Vec<_>>(), over);
        mine.sync = merge_sync(&parts.iter().map(|j| &j.sync).collect::<Vec<_>>());
    }
    let mut shown = view(&mine, ui.clone());
    name_the_charts(&mut shown, name);
    if !job_series {
        // Over time the record has the step's rates only: the chart shows them, named so.
        let mut whole = view(record, ui);
        name_the_charts(&mut whole, super::from_snapshot::STEP_TOTAL);
        shown.throughput = whole.throughput;
        // The heatmap is drawn from those intervals too: the job's histogram stands instead.
        if let Some(latency) = &mut shown.latency {
            latency.heatmap = None;
        }
    }
    // The table is the step's, as recorded, with the picked row.
    shown.jobs = jobs(last).map(|mut table| {
        table.selected = Some(index);
        table
    });
    shown
}

/// Says whose rates and latency the charts show, as the live dashboard does.
fn name_the_charts(view: &mut View, whose: &str) {
    if let Some(throughput) = &mut view.throughput {
        throughput.source = whose.to_string();
    }
    if let Some(latency) = &mut view.latency {
        latency.of = Some(whose.to_string());
    }
}

/// The jobs of the record's last step, when it ran several: each over its own measured time
/// (its totals), and the step's.
fn jobs(step: &StepRecord) -> Option<JobsView> {
    if step.jobs.len() < 2 {
        return None;
    }
    let rates = |read: &DirectionRecord, write: &DirectionRecord, trim: &DirectionRecord| {
        let ran: Vec<&DirectionRecord> = [read, write, trim]
            .into_iter()
            .filter(|d| d.total_ios > 0)
            .collect();
        let lat = match ran.as_slice() {
            [one] => Some(&one.lat_ns),
            _ => None,
        };
        // Several directions: their histograms merged, never averaged percentiles.
        let merged = (ran.len() > 1).then(|| {
            let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
            for h in ran.iter().filter_map(|d| d.lat_ns.histogram.as_ref()) {
                for b in h.buckets() {
                    *counts.entry(b.le_ns).or_default() += b.count;
                }
            }
            counts
                .into_iter()
                .map(|(le_ns, count)| crate::stats::LatencyBucket { le_ns, count })
                .collect::<Vec<_>>()
        });
        let (p50_ns, p99_ns) = match (lat, merged) {
            (Some(lat), _) => (lat.percentile_ns(50.0), lat.percentile_ns(99.0)),
            (None, Some(merged)) if !merged.is_empty() => (
                Some(crate::stats::bucket_percentile_ns(&merged, 50.0)),
                Some(crate::stats::bucket_percentile_ns(&merged, 99.0)),
            ),
            _ => (None, None),
        };
        JobRow {
            iops: read.iops + write.iops + trim.iops,
            bytes_per_s: (read.bw_bytes + write.bw_bytes + trim.bw_bytes) as f64,
            p50_ns,
            p99_ns,
            ..JobRow::default()
        }
    };
    let rows = step
        .jobs
        .iter()
        .map(|job| JobRow {
            name: job.name.clone(),
            rw: job.job.rw.clone(),
            bs: crate::units::format_size_short(job.job.bs),
            depth: if job.job.numjobs > 1 {
                format!("{}x{}", job.job.iodepth, job.job.numjobs)
            } else {
                job.job.iodepth.to_string()
            },
            errors: u32::from(job.error.is_some()),
            ..rates(&job.read, &job.write, &job.trim)
        })
        .collect();
    // The rates as fio's group lines (each group's bytes over its longest job), so they agree
    // with the rows above; the latency is the step's, all I/Os merged.
    let members: Vec<&StepJobRecord> = step.jobs.iter().collect();
    let [read, write, trim] = crate::analysis::compare::step_totals(&members);
    Some(JobsView {
        rows,
        total: JobRow {
            name: "step total".into(),
            errors: u32::from(step.jobs.iter().any(|j| j.error.is_some())),
            iops: read.iops + write.iops + trim.iops,
            bytes_per_s: (read.bw_bytes + write.bw_bytes + trim.bw_bytes) as f64,
            ..rates(&step.read, &step.write, &step.trim)
        },
        selected: None,
        span: JobsSpan::WholeStep,
    })
}

/// The record's warnings as the view shows them. From format 6 on every warning is typed
/// (`typed_warnings`, in the session's order): the view reads the facts. Older records typed
/// only some warnings and kept the others as text only: for them (kept for compatibility) each
/// text is read as before, of the page-cache kind when it is the rendering of such a fact or of
/// the buffered run (`job.direct`).
fn record_warnings(record: &RunRecord) -> Vec<Warning> {
    let kind = |page_cache: bool| {
        if page_cache {
            WarningKind::PageCache
        } else {
            WarningKind::Note
        }
    };
    if record.format_version >= TYPED_WARNINGS_FORMAT {
        return record
            .typed_warnings
            .iter()
            .map(|w| Warning::new(kind(w.is_page_cache()), w.to_string()))
            .collect();
    }
    let page_cache: Vec<String> = record
        .typed_warnings
        .iter()
        .filter(|w| w.is_page_cache())
        .map(ToString::to_string)
        .chain((!record.job.direct).then(|| RunWarning::Buffered.to_string()))
        .collect();
    record
        .warnings
        .iter()
        .map(|w| Warning::new(kind(page_cache.contains(w)), w.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::SyncRecord;
    use crate::stats::DirectionStats;

    /// `(latency_ns, how many)` recorded into real stats.
    fn stats(latencies: &[(u64, u64)]) -> DirectionStats {
        let mut stats = DirectionStats::new();
        for &(ns, n) in latencies {
            for _ in 0..n {
                stats.record(4096, ns);
            }
        }
        stats
    }

    /// A format 2 record of two randread steps (the second slower), histograms included.
    fn record() -> RunRecord {
        let first = stats(&[(90_000, 300), (180_000, 500), (700_000, 20)]);
        let second = stats(&[(300_000, 400), (600_000, 350), (3_000_000, 10)]);
        let mut run = first.clone();
        run.add(&second);
        let dir = |s: &DirectionStats| {
            serde_json::to_value(DirectionRecord::from_stats(s, 1_000_000_000).with_histogram(s))
                .unwrap()
        };
        let none = DirectionStats::new();
        let sync =
            serde_json::to_value(SyncRecord::from_stats(&none).with_histogram(&none)).unwrap();
        let job = |iodepth: u32| {
            serde_json::json!({"description": format!("randread bs=4k iodepth={iodepth} numjobs=1 io_uring direct"),
                "rw": "randread", "rwmixread": 100, "bs": 4096, "size": 16 << 20, "iodepth": iodepth,
                "numjobs": 1, "ioengine": "io_uring", "iodepth_batch": 1, "iodepth_batch_complete": 1,
                "direct": true, "fsync": null, "fdatasync": null, "sync": null, "cpus": null,
                "runtime_ns": 1_000_000_000u64, "ramp_ns": 0, "interval_ns": 1_000_000_000u64})
        };
        let cpu =
            serde_json::json!({"usr_cpu": 1.0, "sys_cpu": 9.0, "usr_ns": 1, "sys_ns": 9, "ctx": 5});
        let step = |index: u32, s: &DirectionStats, iodepth: u32| {
            serde_json::json!({"index": index, "status": "completed", "job": job(iodepth),
                "engine": "io_uring", "elapsed_ns": 1_000_000_000u64, "read": dir(s), "write": dir(&none),
                "sync": sync, "retries": 0, "cpu": cpu, "series_stride": 1, "series": [], "device": null})
        };
        serde_json::from_value(serde_json::json!({
            "format": "diskdash-bench", "format_version": 2, "diskdash_version": "0.1.0",
            "status": "completed", "error": null,
            "started_at": "2026-11-21T08:14:24.406Z", "ended_at": "2026-11-21T08:14:26.472Z",
            "host": {"hostname": "db-07", "kernel": "6.18.0", "cpus": 2, "memory_bytes": 1u64 << 34},
            "job": job(32),
            "engine": {"requested": "io_uring", "used": "io_uring", "fallback": null, "ring_flags": [],
                       "registered_file": true, "registered_buffers": true, "notes": []},
            "target": {"path": "/srv/scratch", "kind": "scratch", "working_set_bytes": 16 << 20,
                       "dio_align_bytes": 512, "preconditioned": true, "scratch_removed": true, "notes": []},
            "device": null, "latency_definition": "...", "elapsed_ns": 2_000_000_000u64,
            "read": dir(&run), "write": dir(&none), "sync": sync, "retries": 0, "cpu": cpu,
            "segments": [step(0, &first, 32), step(1, &second, 64)],
            "warnings": [], "notes": []
        }))
        .unwrap()
    }

    fn holes() -> RunWarning {
        RunWarning::Holes {
            path: "/srv/data".into(),
        }
    }

    fn page_cache() -> RunWarning {
        RunWarning::PageCache {
            device: "vda".into(),
            app_bytes: 1 << 30,
            device_bytes: 1 << 20,
            step: Some(0),
            point: None,
        }
    }

    #[test]
    fn a_typed_record_s_warnings_are_read_by_their_kind() {
        let mut record = record();
        record.format_version = TYPED_WARNINGS_FORMAT;
        record.typed_warnings = vec![
            holes(),
            RunWarning::Buffered,
            page_cache(),
            RunWarning::ChangeIgnoredManyJobs,
        ];
        // The text is what readers of `warnings` get; the view does not read it.
        record.warnings = vec!["PAGE CACHE: ignored".into()];
        assert_eq!(
            record_warnings(&record),
            [
                Warning::new(WarningKind::Note, holes().to_string()),
                Warning::new(WarningKind::PageCache, RunWarning::Buffered.to_string()),
                Warning::new(WarningKind::PageCache, page_cache().to_string()),
                Warning::new(
                    WarningKind::Note,
                    RunWarning::ChangeIgnoredManyJobs.to_string()
                ),
            ]
        );
    }

    #[test]
    fn an_older_record_s_text_warnings_are_read_as_before() {
        let mut record = record();
        record.format_version = TYPED_WARNINGS_FORMAT - 1;
        record.typed_warnings = vec![page_cache()];
        record.warnings = vec![
            "a warning typed in no format".into(),
            page_cache().to_string(),
        ];
        assert_eq!(
            record_warnings(&record),
            [
                Warning::new(WarningKind::Note, "a warning typed in no format"),
                Warning::new(WarningKind::PageCache, page_cache().to_string()),
            ]
        );
    }

    #[test]
    fn after_a_fallback_the_header_and_the_marks_show_the_job_as_it_ran() {
        let mut record = record();
        record.engine.used = "psync".into();
        record.engine.fallback =
            Some("io_uring unavailable (EPERM: permission denied); fell back to psync".into());
        for step in &mut record.steps {
            step.job.ran_description =
                Some("randread bs=4k iodepth=1 numjobs=1 psync direct".into());
        }
        let view = view(&record, UiState::default());
        assert_eq!(
            view.header.job.as_deref(),
            Some("randread bs=4k iodepth=1 numjobs=1 direct")
        );
        let marks = view.throughput.expect("a throughput panel").steps;
        assert_eq!(
            marks[0].label,
            "randread bs=4k iodepth=1 numjobs=1 psync direct"
        );
        // As asked, where it ran as asked.
        let plain = super::view(&self::record(), UiState::default());
        assert_eq!(
            plain.header.job.as_deref(),
            Some("randread bs=4k iodepth=64 numjobs=1 direct")
        );
    }

    #[test]
    fn the_recorded_histogram_is_the_last_step_beside_the_whole_run() {
        let view = view(&record(), UiState::default());
        let lat = view.latency.expect("a latency panel");
        assert_eq!(lat.columns, LatencyColumns::StepRun);
        // Sparse fine buckets, as recorded: the panel folds them over the range they hold.
        assert!(
            lat.buckets
                .windows(2)
                .all(|w| w[0].upper_ns < w[1].upper_ns)
        );
        assert!(lat.buckets.iter().all(|b| b.interval + b.total > 0));
        let at = |ns: u64| {
            let le = crate::stats::fine_bucket_le_ns(ns, crate::stats::FINE_SUB_BUCKET_BITS);
            let b = lat.buckets.iter().find(|b| b.upper_ns == le).unwrap();
            (b.interval, b.total)
        };
        assert_eq!(at(90_000), (0, 300), "90 us: first step only");
        assert_eq!(at(180_000), (0, 500), "180 us");
        assert_eq!(at(300_000), (400, 400), "300 us: second step");
        let (a, b) = (at(600_000), at(700_000));
        assert_eq!((a.0 + b.0, a.1 + b.1), (350, 370), "600 us and 700 us");
        assert_eq!(at(3_000_000), (10, 10), "3 ms");
        assert_eq!(lat.buckets.iter().map(|b| b.total).sum::<u64>(), 1580);
    }

    #[test]
    fn a_format_2_record_shows_its_coarse_histogram_and_says_it_has_no_heatmap() {
        let text = include_str!("../../../tests/fixtures/records/null-300ms.json");
        let record: RunRecord = serde_json::from_str(text).unwrap();
        assert_eq!(record.format_version, 2);
        let lat = view(&record, UiState::default()).latency.unwrap();
        let bounds: Vec<u64> = lat.buckets.iter().map(|b| b.upper_ns).collect();
        assert_eq!(bounds, [32_768, 65_536, 131_072, 262_144, 1_048_576]);
        let heat = lat.heatmap.unwrap();
        assert!(heat.columns.is_empty());
        assert!(heat.missing.unwrap().contains("format_version 2"));
    }

    #[test]
    fn a_recorded_series_becomes_the_heatmap() {
        let mut record = record();
        let mut stats = DirectionStats::new();
        for ns in [100_000, 100_000, 2_000_000] {
            stats.record(4096, ns);
        }
        let mut point: crate::record::IntervalRecord = serde_json::from_value(serde_json::json!({
            "format": "diskdash-bench-interval", "format_version": 3, "segment": 1, "index": 0,
            "t_ns": 1_000_000_000u64, "duration_ns": 1_000_000_000u64,
            "read": DirectionRecord::from_stats(&stats, 1_000_000_000),
            "write": DirectionRecord::default(), "sync": SyncRecord::default()}))
        .unwrap();
        point.read = point.read.with_interval_histogram(&stats);
        record.steps[1].series.push(point);
        let heat = view(&record, UiState::default())
            .latency
            .unwrap()
            .heatmap
            .unwrap();
        assert_eq!(heat.dir, Direction::Read);
        assert_eq!(heat.columns.len(), 1);
        // The second step starts after the first's 1 s.
        assert!((heat.columns[0].t_s - 2.0).abs() < 1e-9);
        let counts: Vec<u64> = heat.columns[0].buckets.iter().map(|b| b.1).collect();
        assert_eq!(counts, [2, 1]);
    }

    #[test]
    fn a_merged_point_keeps_its_low_and_high_on_the_chart() {
        let mut record = record();
        let mut point: crate::record::IntervalRecord = serde_json::from_value(serde_json::json!({
            "format": "diskdash-bench-interval", "format_version": 7, "segment": 0, "index": 0,
            "t_ns": 4_000_000_000u64, "duration_ns": 4_000_000_000u64,
            "read": DirectionRecord::default(), "write": DirectionRecord::default(),
            "sync": SyncRecord::default(),
            "merged": {"intervals": 4, "shortest_ns": 1_000_000_000u64,
                       "longest_ns": 1_000_000_000u64,
                       "read": {"min_iops": 0.0, "max_iops": 900.0,
                                "min_bw_bytes": 0, "max_bw_bytes": 3_686_400},
                       "write": {"min_iops": 0.0, "max_iops": 0.0,
                                 "min_bw_bytes": 0, "max_bw_bytes": 0}}}))
        .unwrap();
        point.read.iops = 600.0;
        record.steps[0].series = vec![point];
        let view = view(&record, UiState::default());
        let points = &view.throughput.unwrap().points;
        let [low, high] = points[0].range.unwrap();
        assert_eq!((low.read_iops, high.read_iops), (0.0, 900.0));
        assert_eq!(high.read_bytes_per_s, 3_686_400.0);
        assert_eq!(points[0].read_iops, 600.0);
    }

    #[test]
    fn a_record_without_histograms_has_no_buckets() {
        let mut record = record();
        for lat in [&mut record.read.lat_ns, &mut record.write.lat_ns] {
            lat.histogram = None;
        }
        for step in &mut record.steps {
            step.read.lat_ns.histogram = None;
            step.write.lat_ns.histogram = None;
        }
        let lat = view(&record, UiState::default()).latency.unwrap();
        assert!(lat.buckets.is_empty());
        assert!(lat.rows[0].total.is_some(), "percentiles still shown");
    }

    #[test]
    fn the_latency_panel_of_a_recorded_run() {
        let view = view(&record(), UiState::default());
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 14)).unwrap();
        term.draw(|f| crate::tui::ui::latency::render(f, f.area(), &view))
            .unwrap();
        insta::assert_snapshot!(term.backend());
    }

    /// `show` of a sweep: a point's notes (batching capped to its depth) are in its row.
    #[test]
    fn show_of_a_sweep_has_each_points_notes_in_its_row() {
        let mut record = record();
        let note = "iodepth_batch_complete_min 8 -> 1 at iodepth 1";
        for (step, depth) in record.steps.iter_mut().zip(["1", "32"]) {
            step.point = vec![crate::record::PointValue::new("iodepth", depth)];
        }
        record.steps[0].notes = vec![note.to_string()];
        let view = view(&record, UiState::default());
        let sweep = view.sweep.expect("a sweep's record");
        let notes: Vec<&[String]> = sweep.rows.iter().map(|r| r.notes.as_slice()).collect();
        assert_eq!(notes, [&[note.to_string()][..], &[]]);
    }

    /// A sweep with `--baseline memory`: its first point ran on vda, its last (the baseline)
    /// on tmpfs without a device. `show` says the last step has no device and shows none
    /// of the first step's numbers.
    #[test]
    fn show_of_a_memory_baseline_says_its_last_step_has_no_device() {
        use crate::monitor::iostat::IostatRow;
        use crate::record::{DeviceRecord, ReconciliationRecord};

        let mut record = record();
        let vda = DeviceRecord {
            name: "vda".into(),
            disk: "vda".into(),
            queue: crate::monitor::sysfs::QueueSettings::default(),
            iostat: IostatRow {
                reads_per_s: 215.0,
                read_kb_per_s: 860.0,
                util_pct: 41.0,
                ..IostatRow::idle("vda")
            },
            reconciliation: ReconciliationRecord {
                app_read_ios: 820,
                app_write_ios: 0,
                device_read_ios: 215,
                device_write_ios: 0,
                app_bytes: 820 * 4096,
                device_bytes: 215 * 4096,
                io_ratio: Some(0.26),
                verdict: "vda served 26% of the run's I/Os".into(),
                app_trim_ios: 0,
                device_discard_ios: 0,
            },
            block_trace: None,
        };
        record.steps[0].device = Some(vda.clone());
        record.steps[1].device = None;
        // The run's device is the last one any step had, as the recorder keeps it.
        record.device = Some(vda);
        let view = view(&record, UiState::default());
        let dev = view
            .device
            .as_ref()
            .expect("the panel says why it is empty");
        assert!(dev.reconciliation.is_none());
        assert!(view.queue.is_none());
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 8)).unwrap();
        term.draw(|f| crate::tui::ui::device::render(f, f.area(), &view))
            .unwrap();
        let screen: String = term
            .backend()
            .buffer()
            .content
            .iter()
            .map(ratatui::buffer::Cell::symbol)
            .collect();
        assert!(screen.contains("no device: seg 2"), "{screen}");
        for foreign in ["215", "vda", "device/app", "avg over"] {
            assert!(!screen.contains(foreign), "{foreign} in {screen}");
        }
        insta::assert_snapshot!(term.backend());

        // The first step alone: its own device, as before.
        record.steps.truncate(1);
        let view = super::view(&record, UiState::default());
        let dev = view.device.unwrap();
        assert_eq!((dev.name.as_str(), dev.absent), ("vda", None));
        assert_eq!(dev.reconciliation.unwrap().device_ios, 215);
    }

    #[test]
    fn the_headline_of_a_recorded_run_is_the_summary_s_rate() {
        let mut record = record();
        // The last interval was fast (a burst of completions); the run as a whole was not.
        let fast = stats(&[(90_000, 4_000)]);
        let none = DirectionStats::new();
        record.steps[1].series.push(crate::record::IntervalRecord {
            format: "diskdash-bench-interval".into(),
            format_version: 2,
            step: 1,
            index: 0,
            t_ns: 1_000_000_000,
            duration_ns: 100_000_000,
            stalled_ns: 0,
            read: DirectionRecord::from_stats(&fast, 100_000_000),
            write: DirectionRecord::from_stats(&none, 100_000_000),
            sync: crate::record::SyncRecord::from_stats(&none),
            trim: DirectionRecord::default(),
            device: None,
            jobs: Vec::new(),
            merged: None,
        });
        let summary = crate::report::bench::summary(&record);
        assert!(summary.contains("read    IOPS 1.6k "), "{summary}");
        let view = view(&record, UiState::default());
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 10)).unwrap();
        term.draw(|f| crate::tui::ui::throughput::render(f, f.area(), &view))
            .unwrap();
        let screen: String = term
            .backend()
            .buffer()
            .content()
            .iter()
            .map(ratatui::buffer::Cell::symbol)
            .collect();
        assert!(screen.contains("IOPS  read 1.58k"), "{screen}");
        assert!(!screen.contains("read 40"), "{screen}");
    }
}

#[cfg(test)]
mod job_tests {
    use super::*;
    use crate::stats::fixture;

    /// `show` of a step of two jobs: picking one points the charts and latency at it, with its
    /// row marked; no pick is the step total.
    #[test]
    fn a_picked_job_drives_the_charts_of_a_recorded_step() {
        let record = fixture::record();
        let whole = view_of_job(&record, UiState::default(), None);
        assert_eq!(whole.jobs.as_ref().unwrap().selected, None);
        assert_eq!(
            whole.latency.as_ref().unwrap().of.as_deref(),
            Some("step total")
        );

        let w = view_of_job(&record, UiState::default(), Some("w"));
        assert_eq!(w.jobs.as_ref().unwrap().selected, Some(1));
        assert_eq!(
            w.jobs.as_ref().unwrap().rows.len(),
            2,
            "the table stays the step's"
        );
        assert_eq!(w.throughput.as_ref().unwrap().source, "w");
        let lat = w.latency.unwrap();
        assert_eq!(lat.of.as_deref(), Some("w"));
        let dirs: Vec<Direction> = lat.rows.iter().map(|r| r.dir).collect();
        assert_eq!(dirs, [Direction::Read, Direction::Write]);
        // w's reads: at most 1.01 ms; r's: up to 2.01 ms.
        assert_eq!(lat.rows[0].total.unwrap().max_ns, 1_010_000);

        let r = view_of_job(&record, UiState::default(), Some("r"));
        let lat = r.latency.unwrap();
        let dirs: Vec<Direction> = lat.rows.iter().map(|r| r.dir).collect();
        assert_eq!(dirs, [Direction::Read]);
        assert_eq!(lat.rows[0].total.unwrap().max_ns, 2_010_000);

        // A name not in the last step: the step total.
        let gone = view_of_job(&record, UiState::default(), Some("nope"));
        assert_eq!(gone.jobs.unwrap().selected, None);
    }
}
