//! Paced load (`--rate-iops`, `--rate`, `--rate-process`; fio's `rate_iops`, `rate`,
//! `rate_process`): the achieved rate against the asked one, latency from the schedule, the
//! warning when a device cannot keep up, the fio forms. The achieved rate is the check, so
//! these tests run in the `alone` binary, one at a time with nothing else of the suite beside
//! them (at two tests per CPU, `it`'s load cut a Poisson run to 0.913 of its rate). Bad input
//! and `--bssplit` are in `it`'s `rate.rs`.

use serde_json::Value;

use crate::support::record::*;
use crate::support::*;

fn pct(lat: &Value, p: &str) -> u64 {
    lat["percentile"][p].as_u64().unwrap()
}

/// Achieved over asked for `dir`'s I/Os of the record, asked per second for the whole run.
/// Tests accept 97% to 101%: on a loaded machine a worker starved for a few milliseconds at
/// the end of a one-second run misses a few I/Os; the 1% is measured side by side with fio by
/// `benches/rate_compare.sh`. Never more than asked: the schedule is a ceiling.
fn achieved_share(record: &Value, dir: &str, asked_per_s: f64) -> f64 {
    let ios = record[dir]["total_ios"].as_f64().unwrap();
    let seconds = record["elapsed_ns"].as_f64().unwrap() / 1e9;
    ios / seconds / asked_per_s
}

#[test]
fn a_paced_run_reaches_its_rate_and_measures_latency_from_the_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let (out, record) = bench_ok(
        dir.path(),
        &opts("--rate-iops 2000 -q 8 --size 16M --runtime 2s --interval 500ms --jsonl run.jsonl"),
    );
    let share = achieved_share(&record, "read", 2000.0);
    assert!(
        (0.97..=1.01).contains(&share),
        "achieved {share} of 2000 IOPS"
    );
    assert_eq!(
        record["job"]["rate"],
        serde_json::json!({"unit": "iops", "read": 2000, "write": null, "process": "linear"})
    );
    assert!(
        record["job"]["description"]
            .as_str()
            .unwrap()
            .ends_with("rate_iops=2000")
    );
    let read = &record["read"];
    let sched = &read["lat_sched_ns"];
    assert_eq!(sched["N"], read["lat_ns"]["N"], "every paced I/O has both");
    // Each I/O is issued at or after its scheduled time, so every order statistic from the
    // schedule is at least the one from the submit.
    for p in ["50.000000", "99.000000", "99.900000"] {
        assert!(pct(sched, p) >= pct(&read["lat_ns"], p), "p{p}: {sched}");
    }
    assert!(
        record["write"].get("lat_sched_ns").is_none(),
        "writes not paced"
    );
    assert!(
        record["warnings"].as_array().unwrap().is_empty(),
        "{record}"
    );
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines.iter().all(|l| l.contains(" sched p99 ")), "{lines:?}");
    assert_stdout_has(&out, "from schedule: mean ");
    let intervals = json_lines(&std::fs::read_to_string(dir.path().join("run.jsonl")).unwrap());
    for line in &intervals {
        assert_valid_interval(line);
        assert!(
            line["read"]["lat_sched_ns"]["N"].as_u64().unwrap() > 0,
            "{line}"
        );
    }
}

#[test]
fn a_rate_beyond_the_engine_is_warned_and_the_wait_is_latency() {
    let dir = tempfile::tempdir().unwrap();
    // One I/O in flight on the null engine cannot reach 100M per second: the run falls behind
    // its schedule from the start, and says so.
    let (out, record) = bench_ok(
        dir.path(),
        &opts("--ioengine null -q 1 --rate-iops 100000000 --size 16M --runtime 1s"),
    );
    let warnings = record["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let warning = warnings[0].as_str().unwrap();
    assert!(
        warning.starts_with("read rate not delivered: asked 100.0")
            && warning.contains("M IOPS, achieved "),
        "{warning}"
    );
    assert_stdout_has(&out, "WARNING read rate not delivered");
    let read = &record["read"];
    // The null engine answers in microseconds; from the schedule, an I/O waited for all the
    // I/Os before it that were due earlier: about half the run at the median.
    assert!(pct(&read["lat_ns"], "50.000000") < 1_000_000, "{read}");
    assert!(
        pct(&read["lat_sched_ns"], "50.000000") > 100_000_000,
        "{}",
        read["lat_sched_ns"]
    );
}

#[test]
fn poisson_arrivals_reach_the_rate_and_paced_writes_leave_reads_free() {
    let dir = tempfile::tempdir().unwrap();
    let (_, record) = bench_ok(
        dir.path(),
        &opts(
            "--rate-iops 2000 --rate-process poisson -q 8 --size 16M --runtime 2s --ioengine null",
        ),
    );
    // The pacer's schedule, not the disk, is the point (a shared disk's stall would cut the
    // count): the null engine. 4000 arrivals expected; a Poisson count has a standard deviation of sqrt(4000) = 63.
    let share = achieved_share(&record, "read", 2000.0);
    assert!(
        (0.95..=1.05).contains(&share),
        "achieved {share} of 2000 IOPS"
    );
    assert_eq!(record["job"]["rate"]["process"], "poisson");

    let dir = tempfile::tempdir().unwrap();
    let (_, record) = bench_ok(
        dir.path(),
        &opts("--rw randrw --rate-iops ,500 -q 4 --size 16M --runtime 1s --ioengine null"),
    );
    let share = achieved_share(&record, "write", 500.0);
    assert!((0.97..=1.01).contains(&share), "writes at {share} of 500");
    assert!(
        record["read"]["total_ios"].as_u64().unwrap() > 50_000,
        "reads are not paced: {}",
        record["read"]
    );
    assert!(record["read"].get("lat_sched_ns").is_none());
    assert!(record["write"]["lat_sched_ns"]["N"].as_u64().unwrap() > 0);
}

#[test]
fn bytes_per_second_pace_by_length() {
    let dir = tempfile::tempdir().unwrap();
    let (_, record) = bench_ok(
        dir.path(),
        &opts("--rw write --bs 64k --rate 8M/s -q 4 --size 16M --runtime 1s"),
    );
    // 8 MiB/s of 64 KiB writes: 128 per second.
    let share = achieved_share(&record, "write", 128.0);
    assert!(
        (0.97..=1.01).contains(&share),
        "achieved {share} of 8 MiB/s"
    );
    assert_eq!(record["job"]["rate"]["unit"], "bytes");
    assert_eq!(record["job"]["rate"]["write"], 8 << 20);
}

#[test]
fn fio_job_files_and_command_lines_pace_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("paced.fio"),
        "[paced]\nfilename=paced.dat\nrw=randread\nsize=16M\nrate_iops=1000\nruntime=1\n\
         time_based\n",
    )
    .unwrap();
    let record = fio_record(dir.path(), &["paced.fio"]);
    assert_eq!(record["job"]["rate"]["read"], 1000);
    let share = achieved_share(&record, "read", 1000.0);
    assert!((0.97..=1.01).contains(&share), "achieved {share} of 1000");

    let dir = tempfile::tempdir().unwrap();
    let record = fio_record(
        dir.path(),
        &[
            "--name=cli",
            "--filename=cli.dat",
            "--rw=randread",
            "--size=16M",
            "--rate=4m",
            "--rate_process=poisson",
            "--runtime=1",
            "--time_based",
        ],
    );
    assert_eq!(
        record["job"]["rate"],
        serde_json::json!({"unit": "bytes", "read": 4 << 20, "write": null, "process": "poisson"})
    );
}
