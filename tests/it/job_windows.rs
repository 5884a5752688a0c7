//! Every job's I/O in the intervals it completed in: a step of jobs of different lengths (two
//! size-based reads that end early, two time-based jobs that run on), run headless with the
//! record, `--jsonl` and status lines, on the null engine and on a real file. The jobs are
//! paced (`rate_iops`), so when each job's I/Os complete is known: a size-based job's end by its
//! count and rate. Each interval's per-job counts add up to its total, a job's counts over the
//! intervals add up to its total, and no job has counts in an interval that starts after it
//! ended. A write job that ends early has no sustained-write point, nor a cliff, after its end.

use std::path::Path;

use serde_json::Value;

use crate::fio_run::fio;
use crate::support::record::assert_valid_record;
use crate::support::*;

/// Two size-based reads of 400 and 640 I/Os at 1000 IOPS (0.40 s and 0.64 s) beside two
/// time-based jobs of 2 s at 500 IOPS.
fn job_file(engine: &str, extra: &str) -> String {
    format!(
        "\
[global]
ioengine={engine}
bs=4k
size=4M
{extra}

[short400]
rw=read
io_size=1600k
rate_iops=1000
filename=short400

[short640]
rw=randread
io_size=2560k
rate_iops=1000
filename=short640

[long-read]
rw=randread
time_based=1
runtime=2
rate_iops=500
filename=long-read

[long-write]
rw=write
time_based=1
runtime=2
rate_iops=500
filename=long-write
"
    )
}

/// I/Os of one direction record (`read`, `write`).
fn ios(direction: &Value) -> u64 {
    direction["total_ios"].as_u64().unwrap()
}

fn all_ios(part: &Value) -> u64 {
    ios(&part["read"]) + ios(&part["write"])
}

/// Runs the job file in a fresh directory, checks what the issue asks of every interval, and
/// returns the status lines.
fn check_windows(engine: &str, extra: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("jobs.fio"), job_file(engine, extra)).unwrap();
    let out = fio(
        dir.path(),
        &[
            "jobs.fio",
            "--status-interval=250ms",
            "--json",
            "r.json",
            "--jsonl",
            "j.jsonl",
        ],
    );
    assert_success(&out);
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let step = &record["segments"][0];
    let jobs = step["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["short400", "short640", "long-read", "long-write"]);
    assert_eq!(ios(&jobs[0]["read"]), 400, "short400 moves its io_size");
    assert_eq!(ios(&jobs[1]["read"]), 640, "short640 moves its io_size");
    let lines = interval_lines(dir.path());
    let series = step["series"].as_array().unwrap();
    assert_eq!(
        series.len(),
        lines.len(),
        "a series point per interval line"
    );
    let mut per_job = [0u64; 4];
    for (line, point) in lines.iter().zip(series) {
        let parts = line["jobs"].as_array().unwrap();
        assert_eq!(parts.len(), 4);
        // The line, the record's series and the sum of the jobs' parts agree.
        for dir in ["read", "write"] {
            let sum: u64 = parts.iter().map(|p| ios(&p[dir])).sum();
            assert_eq!(ios(&line[dir]), sum, "{dir} at {}: {line:#}", line["t_ns"]);
            assert_eq!(ios(&point[dir]), sum, "series {dir} at {}", point["t_ns"]);
        }
        let end_ns = line["t_ns"].as_u64().unwrap();
        let start_ns = end_ns - line["duration_ns"].as_u64().unwrap();
        for (j, part) in parts.iter().enumerate() {
            per_job[j] += all_ios(part);
        }
        // The short jobs end at 0.40 s and 0.64 s; on a busy machine pacing lags a little,
        // never by half a second. Nothing of theirs may land in an interval after that.
        for (j, ends_s) in [(0usize, 0.40), (1, 0.64)] {
            if start_ns as f64 / 1e9 >= ends_s + 0.5 {
                assert_eq!(
                    all_ios(&parts[j]),
                    0,
                    "{} ended by {ends_s}s but has I/Os in the interval {:.2}-{:.2}s: {line:#}",
                    names[j],
                    start_ns as f64 / 1e9,
                    end_ns as f64 / 1e9
                );
            }
        }
    }
    for (j, job) in jobs.iter().enumerate() {
        assert_eq!(
            per_job[j],
            all_ios(job),
            "{}: its counts over the intervals add up to its total",
            names[j]
        );
    }
    // Every short read is in the intervals that overlap the job's life: the first interval
    // holds a quarter second of 1000 IOPS, give or take what a busy machine shifts.
    let first = &lines[0]["jobs"];
    for j in 0..2 {
        let n = all_ios(&first[j]);
        assert!(
            (150..=350).contains(&n),
            "{} completed about 250 I/Os in 0-0.25s, the interval says {n}",
            names[j]
        );
    }
    stderr(&out)
}

/// The `--jsonl` interval lines, in order.
fn interval_lines(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("j.jsonl")).unwrap();
    let lines: Vec<Value> = json_lines(&text)
        .into_iter()
        .filter(|l| l["format"] == "diskdash-bench-interval")
        .collect();
    assert!(
        lines.len() >= 7,
        "2 s in 250 ms intervals: {} lines",
        lines.len()
    );
    lines
}

/// The status lines after the short jobs ended count only the long jobs' reads (500 IOPS).
fn assert_late_status_lines_read_only_the_long_job(status: &str) {
    let late: Vec<&str> = status
        .lines()
        .filter(|l| l.starts_with('['))
        .filter(|l| {
            let at: f64 = l[1..]
                .split('s')
                .next()
                .and_then(|t| t.trim().parse().ok())
                .unwrap_or(0.0);
            at >= 1.4
        })
        .collect();
    assert!(!late.is_empty(), "status lines after 1.4 s:\n{status}");
    for line in late {
        let iops = line
            .split("read")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or("?");
        // One 250 ms tick of 500 IOPS shifted into a neighbour gives 1.0k at most; the short
        // jobs' 1,040 reads would show as several thousand.
        let value: f64 = iops.trim_end_matches('k').parse().unwrap_or(f64::MAX)
            * if iops.ends_with('k') { 1000.0 } else { 1.0 };
        assert!(
            value <= 1100.0,
            "after the short jobs ended only the long read runs: {line}\n{status}"
        );
    }
}

#[test]
fn on_the_null_engine_each_jobs_io_lands_in_the_intervals_it_completed_in() {
    let status = check_windows("null", "");
    assert_late_status_lines_read_only_the_long_job(&status);
}

#[test]
fn on_a_file_each_jobs_io_lands_in_the_intervals_it_completed_in() {
    let status = check_windows("psync", "direct=1");
    assert_late_status_lines_read_only_the_long_job(&status);
}

/// A write job that ends at 0.6 s in a 2 s step: its sustained-write curve stops at its end and
/// its empty intervals after it are no cliff.
#[test]
fn a_write_job_that_ended_has_no_cliff_after_its_end() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("jobs.fio"),
        "\
[global]
ioengine=null
bs=4k
size=4M

[early-write]
rw=write
io_size=2400k
rate_iops=1000
filename=early-write

[long-read]
rw=read
time_based=1
runtime=2
rate_iops=500
filename=long-read
",
    )
    .unwrap();
    let out = fio(
        dir.path(),
        &["jobs.fio", "--status-interval=100ms", "--json", "r.json"],
    );
    assert_success(&out);
    let text = stderr(&out);
    assert!(
        !text.contains("write cliff"),
        "a job that ended has no cliff after its end:\n{text}"
    );
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let job = &record["segments"][0]["jobs"][0];
    assert_eq!(job["name"], "early-write");
    assert_eq!(ios(&job["write"]), 600);
    let writes = &job["sustained_write"];
    assert!(writes["cliff"].is_null(), "no cliff: {writes:#}");
    let points = writes["points"].as_array().unwrap();
    // 0.6 s in 100 ms intervals: about six points, never the twenty of the whole step.
    assert!(
        (4..=9).contains(&points.len()),
        "{} points for 0.6 s of writes: {writes:#}",
        points.len()
    );
    // The curve ends at what the job wrote.
    let last_gib = points.last().unwrap()[0].as_f64().unwrap();
    assert!((last_gib * f64::from(1u32 << 30) - 2_457_600.0).abs() < 1.0);
}
