//! A session [`Snapshot`] as the view model: pure conversions, no I/O.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use crate::bench::spec::{JobSpec, RwMode};
use crate::record::RunStatus;
use crate::session::{
    DirectionView, SeriesPoint, SessionState, Snapshot, StatsView, StepView, TraceLive,
};
use crate::stats::LatencySummary;
use crate::tui::view::{
    Direction, DiskRates, HeatColumn, HeatmapView, JobRow, JobsView, LatencyBucket, LatencyColumns,
    LatencyRow, LatencyView, Percentiles, RatePoint, Reconciliation, RunState, SizeProgress,
    StepMark, ThroughputView, TraceView, Warning, WarningKind,
};
use crate::units::format_size_short;

#[must_use]
pub fn run_state(snap: &Snapshot) -> RunState {
    match &snap.state {
        SessionState::Preparing { .. } => RunState::Preparing,
        SessionState::Ramp => RunState::WarmingUp,
        SessionState::Running => RunState::Running,
        SessionState::Paused => RunState::Paused,
        SessionState::Idle if snap.ran_to_end => RunState::Finished,
        SessionState::Idle => RunState::Stopped,
        SessionState::Finished(RunStatus::Completed) => RunState::Finished,
        SessionState::Finished(RunStatus::Stopped) => RunState::Stopped,
        SessionState::Finished(RunStatus::Interrupted) => RunState::Interrupted,
        SessionState::Finished(RunStatus::Failed) => RunState::Failed(
            snap.error
                .clone()
                .unwrap_or_else(|| "the run failed".into()),
        ),
    }
}

/// Whether the run (or the step) is over: stopped, done or ended. Every panel then shows
/// its totals, not its last interval.
#[must_use]
pub fn over(snap: &Snapshot) -> bool {
    matches!(snap.state, SessionState::Idle | SessionState::Finished(_))
}

/// A line for the footer about where the session is, when it is not simply running.
#[must_use]
pub fn state_message(snap: &Snapshot) -> Option<String> {
    match &snap.state {
        SessionState::Preparing {
            done_bytes,
            total_bytes,
        } => Some(format!(
            "preparing: writing the working set {}%",
            done_bytes * 100 / (*total_bytes).max(1)
        )),
        SessionState::Ramp => Some("ramp: warming up, not measured".into()),
        SessionState::Idle if snap.ran_to_end => {
            Some("done: s starts a new segment, q quits".into())
        }
        SessionState::Idle => Some("stopped: s starts a new segment, q quits".into()),
        SessionState::Finished(_) => Some("the run has ended: q quits".into()),
        SessionState::Running | SessionState::Paused => None,
    }
}

pub fn percentiles(summary: &LatencySummary) -> Percentiles {
    Percentiles {
        p50_ns: summary.percentile_ns(50.0),
        p90_ns: summary.percentile_ns(90.0),
        p99_ns: summary.percentile_ns(99.0),
        p999_ns: summary.percentile_ns(99.9),
        max_ns: summary.max_ns,
    }
}

fn pick(dir: Direction, v: &StatsView) -> &DirectionView {
    match dir {
        Direction::Read => &v.read,
        Direction::Write => &v.write,
        Direction::Sync => &v.sync,
        Direction::Trim => &v.trim,
    }
}

#[must_use]
pub fn latency(snap: &Snapshot) -> LatencyView {
    let dirs = shown_directions(snap.job(), &snap.step.cumulative);
    LatencyView {
        heatmap: Some(heatmap(&snap.step, heat_direction(&dirs))),
        ..latency_over(&dirs, snap.step.interval.as_ref(), &snap.step.cumulative)
    }
}

/// The latency panel of the job `selected` (an index into `snap.jobs`), or of the step total
/// (`None`), named, when the step runs several jobs; else [`latency`]. A job has no
/// per-interval histograms: its panel shows the histogram, not the heatmap.
#[must_use]
pub fn latency_for(snap: &Snapshot, selected: Option<usize>) -> LatencyView {
    if snap.jobs.len() < 2 {
        return latency(snap);
    }
    match selected.and_then(|i| snap.jobs.get(i)) {
        Some(job) => LatencyView {
            of: Some(job.name.clone()),
            ..latency_over(
                &shown_directions(&job.spec, &job.cumulative),
                job.interval.as_ref(),
                &job.cumulative,
            )
        },
        None => {
            let mut dirs = [
                (Direction::Read, false),
                (Direction::Write, false),
                (Direction::Sync, false),
                (Direction::Trim, false),
            ];
            for job in &snap.jobs {
                for (on, job_on) in dirs
                    .iter_mut()
                    .zip(shown_directions(&job.spec, &job.cumulative))
                {
                    on.1 |= job_on.1;
                }
            }
            LatencyView {
                heatmap: Some(heatmap(&snap.step, heat_direction(&dirs))),
                of: Some(STEP_TOTAL.into()),
                ..latency_over(&dirs, snap.step.interval.as_ref(), &snap.step.cumulative)
            }
        }
    }
}

/// `--trace` on the bench dashboard, over the last interval: the app's mean taken apart
/// (the summary's `mean:` line, in parts) and the percentiles of the app, the device and the
/// whole request.
#[must_use]
pub fn trace(live: &TraceLive) -> TraceView {
    use crate::trace::explain::{BlockMeans, cpu_wait_in_sum, unexplained_ns};
    let merged = |part: fn(&crate::trace::DirTrace) -> &crate::stats::LatencyHistogram| {
        let mut all = crate::stats::LatencyHistogram::new();
        for dir in &live.trace.dirs {
            all.add(part(dir));
        }
        all.summary()
    };
    let device = merged(|d| &d.device);
    let whole = merged(|d| &d.whole);
    let pct = |s: &LatencySummary| (s.count > 0).then(|| percentiles(s));
    let block = BlockMeans::of(&live.trace);
    let mean_parts = match block {
        Some(block) if live.app.count > 0 => {
            let unexplained = live
                .cpu_wait_ns_per_io
                .map(|cpu| cpu_wait_in_sum(cpu, live.cpu_wait_incl_pacing))
                .and_then(|cpu| unexplained_ns(live.app.mean_ns, &block, cpu));
            crate::report::bench::mean_parts(
                &crate::trace::block_trace_record(&live.trace, None),
                live.app.mean_ns,
                block.device_ns,
                crate::report::bench::CpuWait {
                    ns_per_io: live.cpu_wait_ns_per_io,
                    incl_pacing: live.cpu_wait_incl_pacing,
                },
                unexplained,
            )
        }
        _ => Vec::new(),
    };
    let note = if live.trace.requests() == 0 {
        Some("no request traced on the disk in the interval".to_string())
    } else if live.app.count == 0 {
        Some("no app I/O on the disk in the interval".to_string())
    } else if live.lost_events > 0 {
        Some(format!(
            "{} events lost: requests are missing",
            live.lost_events
        ))
    } else {
        None
    };
    TraceView {
        disk: live.trace.disk.clone(),
        window: live.duration,
        mean_parts,
        rows: vec![
            ("app", pct(&live.app)),
            ("device", pct(&device)),
            ("whole", pct(&whole)),
        ],
        note,
    }
}

/// What the jobs table and the panel titles call the sum of a step's jobs.
pub const STEP_TOTAL: &str = "step total";

/// Which directions a job shows: those it does, and any that saw I/O.
fn shown_directions(job: &JobSpec, cumulative: &StatsView) -> [(Direction, bool); 4] {
    [
        (Direction::Read, job.reads() || cumulative.read.ios > 0),
        (
            Direction::Write,
            job.writes_data() || cumulative.write.ios > 0,
        ),
        (
            Direction::Sync,
            job.sync_every.is_some() || cumulative.sync.ios > 0,
        ),
        (Direction::Trim, job.rw.trims() || cumulative.trim.ios > 0),
    ]
}

/// Percentile rows and the histogram of the directions shown, over the last interval and the
/// step so far; no heatmap.
fn latency_over(
    dirs: &[(Direction, bool)],
    interval: Option<&StatsView>,
    cumulative: &StatsView,
) -> LatencyView {
    let mut rows = Vec::new();
    for &(dir, _) in dirs.iter().filter(|(_, shown)| *shown) {
        let of = |d: &DirectionView| (d.ios > 0).then(|| percentiles(&d.latency));
        rows.push(LatencyRow {
            dir,
            interval: interval.and_then(|v| of(pick(dir, v))),
            total: of(pick(dir, cumulative)),
            from_schedule: false,
        });
        // A paced direction: its latency from the schedule beside it.
        if pick(dir, cumulative).sched.is_some() {
            let of = |d: &DirectionView| d.sched.as_ref().filter(|s| s.count > 0).map(percentiles);
            rows.push(LatencyRow {
                dir,
                interval: interval.and_then(|v| of(pick(dir, v))),
                total: of(pick(dir, cumulative)),
                from_schedule: true,
            });
        }
    }
    // Reads, writes and trims share the histogram; sync calls are another kind of latency.
    let mut buckets: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    if let Some(v) = interval {
        for b in v
            .read
            .buckets
            .iter()
            .chain(&v.write.buckets)
            .chain(&v.trim.buckets)
        {
            buckets.entry(b.le_ns).or_default().0 += b.count;
        }
    }
    let c = cumulative;
    for b in c
        .read
        .buckets
        .iter()
        .chain(&c.write.buckets)
        .chain(&c.trim.buckets)
    {
        buckets.entry(b.le_ns).or_default().1 += b.count;
    }
    LatencyView {
        rows,
        buckets: buckets
            .into_iter()
            .map(|(upper_ns, (interval, total))| LatencyBucket {
                upper_ns,
                interval,
                total,
            })
            .collect(),
        columns: LatencyColumns::IntervalStep,
        heatmap: None,
        of: None,
        what: None,
    }
}

/// The heatmap's direction: reads when the job reads, else writes, else syncs.
pub fn heat_direction(shown: &[(Direction, bool)]) -> Direction {
    shown
        .iter()
        .find(|(_, on)| *on)
        .map_or(Direction::Read, |&(dir, _)| dir)
}

/// One column per interval of the session's latency history, for `dir`.
#[must_use]
pub fn heatmap(step: &StepView, dir: Direction) -> HeatmapView {
    HeatmapView {
        dir,
        columns: step
            .latency_history
            .iter()
            .map(|interval| HeatColumn {
                t_s: interval.at.as_secs_f64(),
                buckets: match dir {
                    Direction::Read => &interval.read,
                    Direction::Write => &interval.write,
                    Direction::Sync => &interval.sync,
                    Direction::Trim => &interval.trim,
                }
                .iter()
                .map(|b| (b.le_ns, b.count))
                .collect(),
            })
            .collect(),
        missing: None,
    }
}

#[must_use]
pub fn throughput(snap: &Snapshot) -> ThroughputView {
    rates_of(
        "app".into(),
        &snap.step.series,
        &snap.step.marks,
        pace(snap.job()),
    )
}

/// A paced job's asked rate, in words.
fn pace(job: &JobSpec) -> Option<String> {
    job.rate.as_ref().map(|rate| rate.job_text(job.numjobs))
}

/// The throughput panel of the job `selected`, or of the step total (`None`), named, when the
/// step runs several jobs; else [`throughput`]. Once the run is over its title gives the
/// totals (each job's over its own time), not the last interval's rates.
#[must_use]
pub fn throughput_for(snap: &Snapshot, selected: Option<usize>) -> ThroughputView {
    let job = selected
        .and_then(|i| snap.jobs.get(i))
        .filter(|_| snap.jobs.len() > 1);
    let mut view = match job {
        _ if snap.jobs.len() < 2 => throughput(snap),
        Some(job) => rates_of(
            job.name.clone(),
            &job.series,
            &snap.step.marks,
            pace(&job.spec),
        ),
        None => rates_of(STEP_TOTAL.into(), &snap.step.series, &snap.step.marks, None),
    };
    if over(snap) {
        view.headline = Some(totals_point(
            job.map_or(&snap.step.cumulative, |j| &j.cumulative),
        ));
    }
    view
}

/// The rates of a whole span as one point (its time unused).
fn totals_point(v: &StatsView) -> RatePoint {
    RatePoint {
        t_s: v.duration.as_secs_f64(),
        read_iops: v.read.iops,
        write_iops: v.write.iops,
        read_bytes_per_s: v.read.bw_bytes_per_s,
        write_bytes_per_s: v.write.bw_bytes_per_s,
        trim_iops: v.trim.iops,
        trim_bytes_per_s: v.trim.bw_bytes_per_s,
        range: None,
        stalled_s: 0.0,
    }
}

fn rates_of(
    source: String,
    series: &VecDeque<SeriesPoint>,
    marks: &[crate::session::StepMark],
    pace: Option<String>,
) -> ThroughputView {
    ThroughputView {
        source,
        pace,
        points: series
            .iter()
            .map(|p| RatePoint {
                t_s: p.at.as_secs_f64(),
                read_iops: p.read_iops,
                write_iops: p.write_iops,
                read_bytes_per_s: p.read_bw_bytes_per_s,
                write_bytes_per_s: p.write_bw_bytes_per_s,
                trim_iops: p.trim_iops,
                trim_bytes_per_s: p.trim_bw_bytes_per_s,
                range: None,
                stalled_s: p.stalled.as_secs_f64(),
            })
            .collect(),
        headline: None,
        steps: marks
            .iter()
            .filter(|s| s.at.as_secs_f64() > 0.0)
            .map(|s| StepMark {
                t_s: s.at.as_secs_f64(),
                label: s.job.clone(),
            })
            .collect(),
    }
}

/// The index in `snap.jobs` of the job named `name`, when the step runs several jobs.
#[must_use]
pub fn job_index(snap: &Snapshot, name: Option<&str>) -> Option<usize> {
    let name = name?;
    (snap.jobs.len() > 1)
        .then(|| snap.jobs.iter().position(|j| j.name == name))
        .flatten()
}

/// The jobs table, when the step runs several jobs: one row per job over its last interval,
/// and the step's total. Once the run is over, each job over its own measured time (the step
/// total over the step's), as the report has them, and the title says so.
#[must_use]
pub fn jobs(snap: &Snapshot, selected: Option<usize>) -> Option<JobsView> {
    if snap.jobs.len() < 2 {
        return None;
    }
    let over = over(snap);
    let span = match over {
        false => super::JobsSpan::LastInterval,
        true if snap.plan.count <= 1 && snap.step.marks.len() <= 1 => super::JobsSpan::WholeRun,
        true => super::JobsSpan::WholeStep,
    };
    let of = |interval: Option<&StatsView>, cumulative: &StatsView| {
        if over {
            job_rates(Some(cumulative))
        } else {
            job_rates(interval)
        }
    };
    let rows = snap
        .jobs
        .iter()
        .map(|job| {
            let spec = &job.spec;
            let depth = if spec.numjobs > 1 {
                format!("{}x{}", spec.iodepth, spec.numjobs)
            } else {
                spec.iodepth.to_string()
            };
            JobRow {
                name: job.name.clone(),
                rw: spec.rw.as_str().to_string(),
                bs: format_size_short(spec.block_size_bytes),
                depth,
                errors: job.errors,
                ..of(job.interval.as_ref(), &job.cumulative)
            }
        })
        .collect();
    Some(JobsView {
        rows,
        total: JobRow {
            name: STEP_TOTAL.into(),
            errors: snap.jobs.iter().map(|j| j.errors).sum(),
            ..of(snap.step.interval.as_ref(), &snap.step.cumulative)
        },
        selected: selected.filter(|&i| i < snap.jobs.len()),
        span,
    })
}

/// A row's rates and latency over `interval`: reads, writes and trims together, the
/// percentiles from the summary when one direction ran, else from the merged buckets.
fn job_rates(interval: Option<&StatsView>) -> JobRow {
    let Some(v) = interval else {
        return JobRow::default();
    };
    let ran: Vec<&DirectionView> = [&v.read, &v.write, &v.trim]
        .into_iter()
        .filter(|d| d.ios > 0)
        .collect();
    let (p50_ns, p99_ns) = match ran.as_slice() {
        [] => (None, None),
        [d] => (
            Some(d.latency.percentile_ns(50.0)),
            Some(d.latency.percentile_ns(99.0)),
        ),
        several => {
            let mut merged: BTreeMap<u64, u64> = BTreeMap::new();
            for b in several.iter().flat_map(|d| &d.buckets) {
                *merged.entry(b.le_ns).or_default() += b.count;
            }
            let merged: Vec<crate::stats::LatencyBucket> = merged
                .into_iter()
                .map(|(le_ns, count)| crate::stats::LatencyBucket { le_ns, count })
                .collect();
            (
                Some(crate::stats::bucket_percentile_ns(&merged, 50.0)),
                Some(crate::stats::bucket_percentile_ns(&merged, 99.0)),
            )
        }
    };
    JobRow {
        iops: v.read.iops + v.write.iops + v.trim.iops,
        bytes_per_s: v.read.bw_bytes_per_s + v.write.bw_bytes_per_s + v.trim.bw_bytes_per_s,
        p50_ns,
        p99_ns,
        ..JobRow::default()
    }
}

/// Step i of N (1-based), when the step runs several jobs. A one-job step keeps saying its
/// step, as `diskdash bench` always has: there a live change appends a step, so steps and
/// steps are the same count.
#[must_use]
pub fn step(snap: &Snapshot) -> Option<(usize, usize)> {
    (snap.jobs.len() > 1).then(|| {
        (
            snap.plan.index + 1,
            snap.plan.count.max(snap.plan.index + 1),
        )
    })
}

/// How far a size-based step is, with its end at the rate so far.
#[must_use]
pub fn size_progress(snap: &Snapshot) -> Option<SizeProgress> {
    let (done_bytes, total_bytes) = snap.plan.bytes?;
    let seconds = snap.step.elapsed.as_secs_f64();
    let eta = (done_bytes > 0 && seconds > 0.0).then(|| {
        let rate = done_bytes as f64 / seconds;
        Duration::from_secs_f64(total_bytes.saturating_sub(done_bytes) as f64 / rate)
    });
    Some(SizeProgress {
        done_bytes,
        total_bytes,
        eta,
    })
}

/// Every disk of the step with its last interval's rates, when there are several.
#[must_use]
pub fn disks(snap: &Snapshot) -> Vec<DiskRates> {
    if snap.disks.len() < 2 {
        return Vec::new();
    }
    snap.disks
        .iter()
        .map(|d| DiskRates {
            name: d.name.clone(),
            now: d.row.as_ref().map(super::from_monitor::device_rates),
        })
        .collect()
}

/// Longest brace form of the targets the header shows.
const TARGETS_MAX_CHARS: usize = 40;

/// The targets for the header: the one path, or the jobs' files in brace form when they share
/// a directory (`/srv/db/{a,b}`; `4 files in /srv/db` when that is long), else how many there
/// are.
#[must_use]
pub fn target_label(snap: &Snapshot) -> String {
    if snap.jobs.len() < 2 {
        return snap.target.path.display().to_string();
    }
    let mut paths: Vec<&std::path::Path> = snap.jobs.iter().map(|j| j.target.as_path()).collect();
    paths.dedup();
    match paths.as_slice() {
        [] => snap.target.path.display().to_string(),
        [one] => one.display().to_string(),
        many => {
            let parent = many[0].parent();
            let names: Option<Vec<String>> = many
                .iter()
                .map(|p| {
                    (p.parent() == parent)
                        .then(|| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                        .flatten()
                })
                .collect();
            match (parent, names) {
                // Relative paths (`--filename=a`) have an empty parent.
                (Some(dir), Some(names)) if dir.as_os_str().is_empty() => {
                    format!("{{{}}}", names.join(","))
                }
                (Some(dir), Some(names)) => {
                    let braces = format!("{}/{{{}}}", dir.display(), names.join(","));
                    if braces.chars().count() <= TARGETS_MAX_CHARS {
                        braces
                    } else {
                        format!("{} files in {}", many.len(), dir.display())
                    }
                }
                _ => format!("{} files", many.len()),
            }
        }
    }
}

/// The disks for the header: the target's, or every disk of the step.
#[must_use]
pub fn disk_label(snap: &Snapshot) -> Option<String> {
    if snap.disks.len() < 2 {
        return snap.disk().map(str::to_owned);
    }
    Some(
        snap.disks
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    )
}

#[must_use]
pub fn reconciliation(snap: &Snapshot) -> Option<Reconciliation> {
    snap.step.reconciliation.as_ref().map(|r| Reconciliation {
        // Trims and discards are I/Os of the run and of the device too.
        app_ios: r.app_read_ios + r.app_write_ios + r.app_trim_ios,
        device_ios: r.device_read_ios + r.device_write_ios + r.device_discard_ios,
        verdict: Some(r.verdict.clone()),
    })
}

/// The session's warnings, the engine fallback and the error, as panel warnings.
#[must_use]
pub fn warnings(snap: &Snapshot) -> Vec<Warning> {
    let mut out = Vec::new();
    if let Some(err) = &snap.error {
        out.push(Warning::new(WarningKind::Error, err.clone()));
    }
    for w in &snap.warnings {
        let kind = if w.is_page_cache() {
            WarningKind::PageCache
        } else {
            WarningKind::Note
        };
        out.push(Warning::new(kind, w.to_string()));
    }
    if let Some(fallback) = &snap.engine.fallback {
        out.push(Warning::new(WarningKind::FallbackEngine, fallback.clone()));
    }
    out
}

/// `io_uring`, or `psync (fallback)` when the engine was replaced.
#[must_use]
pub fn engine_label(snap: &Snapshot) -> String {
    if snap.engine.fallback.is_some() {
        format!("{} (fallback)", snap.engine.used)
    } else {
        snap.engine.used.clone()
    }
}

/// The job in fio words without the engine, which the header shows on its own; with several
/// jobs, how many (the jobs table says what each does).
#[must_use]
pub fn job_label(snap: &Snapshot) -> String {
    if snap.jobs.len() > 1 {
        return format!("{} jobs", snap.jobs.len());
    }
    let engine = format!(" {} ", snap.job().ioengine.as_str());
    snap.job().describe().replacen(&engine, " ", 1)
}

/// The rw mode `m` switches to next.
#[must_use]
pub fn next_rw(rw: RwMode) -> RwMode {
    match rw {
        RwMode::RandRead => RwMode::Read,
        RwMode::Read => RwMode::RandWrite,
        RwMode::RandWrite => RwMode::Write,
        RwMode::Write => RwMode::RandRw,
        RwMode::RandRw => RwMode::Rw,
        // Trims are chosen on the command line only (they discard data); `m` leaves them.
        RwMode::Rw | RwMode::Trim | RwMode::RandTrim | RwMode::TrimWrite => RwMode::RandRead,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_after_the_runs_end_is_finished_and_after_s_stopped() {
        let mut snap = crate::tui::ui::sample::plan::snapshot();
        snap.state = SessionState::Idle;
        assert_eq!(run_state(&snap), RunState::Stopped);
        assert!(state_message(&snap).unwrap().starts_with("stopped: "));
        snap.ran_to_end = true;
        assert_eq!(run_state(&snap), RunState::Finished);
        assert_eq!(
            state_message(&snap).as_deref(),
            Some("done: s starts a new segment, q quits")
        );
    }

    #[test]
    fn rw_cycle_visits_all_six_modes() {
        let mut rw = RwMode::RandRead;
        let mut seen = vec![rw];
        for _ in 0..5 {
            rw = next_rw(rw);
            assert!(!seen.contains(&rw));
            seen.push(rw);
        }
        assert_eq!(next_rw(rw), RwMode::RandRead);
    }

    #[test]
    fn percentiles_come_from_fio_list() {
        let s = LatencySummary {
            count: 10,
            max_ns: 900,
            percentiles_ns: vec![(50.0, 100), (90.0, 200), (99.0, 300), (99.9, 400)],
            ..LatencySummary::default()
        };
        let p = percentiles(&s);
        assert_eq!(
            (p.p50_ns, p.p90_ns, p.p99_ns, p.p999_ns, p.max_ns),
            (100, 200, 300, 400, 900)
        );
    }

    #[test]
    fn the_targets_of_several_jobs_read_as_one_label() {
        let mut snap = crate::tui::ui::sample::plan::snapshot();
        assert_eq!(target_label(&snap), "4 files in /srv/lsm");
        snap.jobs.truncate(2);
        assert_eq!(target_label(&snap), "/srv/lsm/{write128,randread128}");
        snap.jobs[0].target = "a".into();
        snap.jobs[1].target = "b".into();
        assert_eq!(target_label(&snap), "{a,b}");
        snap.jobs[1].target = "/elsewhere/b".into();
        assert_eq!(target_label(&snap), "2 files");
        snap.jobs[1].target = "a".into();
        assert_eq!(target_label(&snap), "a");
        snap.jobs.truncate(1);
        assert_eq!(target_label(&snap), "/srv/lsm/write128");
    }

    /// One job looks as it always has: no jobs table, no step, the app's series and latency;
    /// a live change of `diskdash bench` (a step appended) still reads as a step.
    #[test]
    fn one_job_keeps_the_one_job_dashboard() {
        let mut snap = crate::tui::ui::sample::plan::snapshot();
        assert_eq!(step(&snap), Some((1, 3)));
        snap.jobs.truncate(1);
        snap.disks.truncate(1);
        snap.plan = crate::session::PlanProgress {
            index: 1,
            count: 2,
            bytes: Some((1, 2)),
        };
        assert_eq!(step(&snap), None);
        assert!(jobs(&snap, Some(0)).is_none());
        assert!(disks(&snap).is_empty());
        assert_eq!(throughput_for(&snap, Some(0)).source, "app");
        assert_eq!(latency_for(&snap, Some(0)).of, None);
        assert!(latency_for(&snap, Some(0)).heatmap.is_some());
        assert_eq!(job_index(&snap, Some("write128")), None);
        assert_eq!(disk_label(&snap).as_deref(), Some("vda"));
    }
}
