//! fio's job options that shape the I/O, run for real on small files: `loops`, `number_ios`,
//! `thinktime`'s parsing and `rate_min` (thinktime's cap on the IOPS, a count of a second's
//! I/Os, is in the `alone` binary's `fio_intervals.rs`).

use std::path::Path;

use serde_json::Value;

use crate::fio_run::fio;
use crate::support::*;

/// Runs `job` (a job file) in a scratch directory; the output and the record's only job.
fn run(job: &str) -> (std::process::Output, Value) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("j.fio"), job).unwrap();
    let out = fio(dir.path(), &["j.fio", "--json", "r.json"]);
    let record = read_json(&Path::new(dir.path()).join("r.json"));
    let job = record["segments"][0]["jobs"][0].clone();
    (out, job)
}

#[test]
fn loops_moves_the_size_that_many_times() {
    let (out, job) = run("[l]\nrw=write\nbs=64k\nsize=4m\nloops=3\nfilename=f\n");
    assert_success(&out);
    assert_eq!(job["write"]["io_bytes"], 12 << 20, "3 x 4 MiB");
}

#[test]
fn number_ios_ends_the_job_after_that_many_ios() {
    let (out, job) = run("[n]\nrw=randread\nsize=16m\nnumber_ios=100\nfilename=f\n");
    assert_success(&out);
    assert_eq!(job["read"]["total_ios"], 100);
}

#[test]
fn a_rate_below_rate_min_fails_the_job() {
    let (out, job) = run(
        "[m]\nrw=read\nsize=4m\nrate=1m\nrate_min=8m\nrate_cycle=300\ntime_based\nruntime=3s\n\
         filename=f\n",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_stderr_has(&out, "below rate_min 8 MiB/s");
    assert_eq!(job["status"], "failed");
}
