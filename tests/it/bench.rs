//! `diskdash bench` end to end, as any user: real binary, real files, real io_uring.

use crate::support::record::*;
use crate::support::*;

fn run_mode(rw: &str) {
    for engine in ["io_uring", "psync"] {
        let dir = tempfile::tempdir().unwrap();
        let job = ["--rw", rw, "--ioengine", engine];
        let timing = opts("--runtime 300ms --size 16M --interval 100ms --jsonl run.jsonl");
        let (out, record) = bench_ok(dir.path(), &[&job[..], &timing].concat());
        assert_eq!(record["status"], "completed");
        assert_eq!(record["engine"]["used"], engine);
        assert_eq!(record["job"]["rw"], rw);
        assert_eq!(record["target"]["kind"], "scratch");
        assert_eq!(record["target"]["preconditioned"], true);
        assert_eq!(record["target"]["scratch_removed"], true);
        let reads = record["read"]["total_ios"].as_u64().unwrap();
        let writes = record["write"]["total_ios"].as_u64().unwrap();
        let want_reads = rw.contains("read") || rw.ends_with("rw");
        let want_writes = rw.contains("write") || rw.ends_with("rw");
        assert_eq!(reads > 0, want_reads, "{rw} {engine}: {reads} reads");
        assert_eq!(writes > 0, want_writes, "{rw} {engine}: {writes} writes");
        for dir_name in ["read", "write"] {
            let d = &record[dir_name];
            let ios = d["total_ios"].as_u64().unwrap();
            assert_eq!(d["io_bytes"].as_u64().unwrap(), ios * 4096);
            if ios > 0 {
                let lat = &d["lat_ns"];
                assert!(lat["min"].as_u64().unwrap() > 0);
                assert!(lat["min"].as_u64() <= lat["percentile"]["50.000000"].as_u64());
                assert!(lat["percentile"]["99.000000"].as_u64() <= lat["max"].as_u64());
                let iops = d["iops"].as_f64().unwrap();
                let elapsed_s = record["elapsed_ns"].as_f64().unwrap() / 1e9;
                assert!((iops * elapsed_s - ios as f64).abs() < 1.0);
            }
        }
        let elapsed_ms = record["elapsed_ns"].as_u64().unwrap() / 1_000_000;
        assert!(
            (300..1000).contains(&elapsed_ms),
            "measured {elapsed_ms} ms"
        );
        // Status lines per interval on stderr, summary on stdout.
        let status_lines = stderr(&out).lines().filter(|l| l.starts_with('[')).count();
        assert!(status_lines >= 3, "{}", stderr(&out));
        assert_stdout_has(&out, "completed after");
        // JSON Lines: one valid interval per line, adding up to the totals.
        let lines = json_lines(&std::fs::read_to_string(dir.path().join("run.jsonl")).unwrap());
        assert!(lines.len() >= 3, "{} interval lines", lines.len());
        for line in &lines {
            assert_valid_interval(line);
        }
        let sum: u64 = lines
            .iter()
            .map(|l| {
                l["read"]["total_ios"].as_u64().unwrap() + l["write"]["total_ios"].as_u64().unwrap()
            })
            .sum();
        assert_eq!(sum, reads + writes);
        assert_eq!(
            record["segments"][0]["series"].as_array().unwrap().len(),
            lines.len()
        );
        assert!(leftovers(dir.path(), &[RECORD, "run.jsonl"]).is_empty());
    }
}

#[test]
fn read_with_both_engines() {
    run_mode("read");
}

#[test]
fn write_with_both_engines() {
    run_mode("write");
}

#[test]
fn randread_with_both_engines() {
    run_mode("randread");
}

#[test]
fn randwrite_with_both_engines() {
    run_mode("randwrite");
}

#[test]
fn rw_with_both_engines() {
    run_mode("rw");
}

#[test]
fn randrw_with_both_engines() {
    run_mode("randrw");
}

#[test]
fn null_engine_runs_the_hot_path_without_io() {
    let dir = tempfile::tempdir().unwrap();
    let (_, record) = bench_ok(
        dir.path(),
        &opts("--ioengine null --runtime 200ms --size 4M"),
    );
    assert_eq!(record["engine"]["used"], "null");
    assert!(record["read"]["iops"].as_f64().unwrap() > 10_000.0);
    // No I/O reaches the device, so there is nothing to reconcile and no page-cache warning.
    assert_eq!(record["warnings"], serde_json::json!([]), "{record}");
    if !record["device"].is_null() {
        assert_eq!(
            record["device"]["reconciliation"]["verdict"],
            "null engine: no I/O was sent to the device, nothing to reconcile"
        );
    }
}

#[test]
fn sync_open_flags_are_accepted_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (_, record) = bench_ok(
        dir.path(),
        &opts("--rw randwrite --sync dsync -q 4 --runtime 200ms --size 8M"),
    );
    assert_eq!(record["job"]["sync"], "dsync");
    assert!(
        record["job"]["description"]
            .as_str()
            .unwrap()
            .ends_with("sync=dsync")
    );
    assert!(record["write"]["total_ios"].as_u64().unwrap() > 0);
}

#[test]
fn fsync_latency_is_reported_apart() {
    let dir = tempfile::tempdir().unwrap();
    let (out, record) = bench_ok(
        dir.path(),
        &opts("--rw randwrite --fdatasync 8 --runtime 300ms --size 8M"),
    );
    let writes = record["write"]["total_ios"].as_u64().unwrap();
    let syncs = record["sync"]["total_ios"].as_u64().unwrap();
    assert!(
        syncs > 0 && syncs <= writes / 8 + 1,
        "{syncs} syncs for {writes} writes"
    );
    assert!(record["sync"]["lat_ns"]["mean"].as_f64().unwrap() > 0.0);
    assert_stdout_has(&out, "sync ");
}

#[test]
fn io_uring_denied_falls_back_to_psync_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = bench_cmd(dir.path(), &opts("--runtime 200ms --size 8M --json r.json"))
        .env("DISKDASH_URING_DISABLED", "1")
        .output()
        .unwrap();
    assert_success(&out);
    assert_stderr_has(&out, "WARNING: io_uring unavailable (EPERM");
    assert_stdout_has(&out, "fell back to psync");
    let record = record_in(dir.path());
    assert_eq!(record["engine"]["requested"], "io_uring");
    assert_eq!(record["engine"]["used"], "psync");
    assert!(
        record["engine"]["fallback"]
            .as_str()
            .unwrap()
            .contains("EPERM")
    );
    assert!(record["read"]["total_ios"].as_u64().unwrap() > 0);
}

#[test]
fn bad_input_is_a_usage_error_naming_the_value_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.bin"), vec![7u8; 1 << 20]).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--rw", "sideways"],
            r#"error: --rw "sideways" is not a workload; use read, write, randread, randwrite, rw, randrw, trim, randtrim or trimwrite"#,
        ),
        (
            &["--bs", "4kk"],
            r#"error: --bs "4kk" is not a size; use e.g. 4k, 1M or 512"#,
        ),
        (
            &["--bs", "0"],
            r#"error: --bs "0" must be greater than zero; use e.g. 4k, 1M or 512"#,
        ),
        (
            &["--bs", "-1"],
            r#"error: --bs "-1" is not a size; use e.g. 4k, 1M or 512"#,
        ),
        (
            &["--iodepth", "-1"],
            r#"error: --iodepth "-1" is not a number; use e.g. 1, 32 or 128"#,
        ),
        (
            &["--size", "soon"],
            r#"error: --size "soon" is not a size; use e.g. 16M, 1G or 10G"#,
        ),
        (
            &["--runtime", "soon"],
            r#"error: --runtime "soon" is not a duration; use e.g. 500ms, 10s or 2m"#,
        ),
        (
            &["--runtime", "0"],
            r#"error: --runtime "0" must be greater than zero; use e.g. 10s"#,
        ),
        (
            &["--ramp=-1"],
            r#"error: --ramp "-1" is not a duration; use e.g. 500ms, 10s or 2m"#,
        ),
        (
            &["--iodepth", "0"],
            r#"error: --iodepth "0" must be at least 1; use e.g. 1, 32 or 128"#,
        ),
        (
            &["--iodepth", "1000000"],
            r#"error: --iodepth "1000000" is too large; use 1 to 16384"#,
        ),
        (
            &["--bs", "1M", "--size", "64k"],
            "error: --bs 1M is larger than --size 64k; raise --size or lower --bs",
        ),
        (
            &["--bs", "1000", "--size", "1M"],
            "is not a multiple of the logical block size",
        ),
        (
            &["/nonexistent/dir"],
            "error: target /nonexistent/dir does not exist; give an existing directory (a scratch file is made inside), file or block device",
        ),
        (
            &["data.bin", "--rw", "randwrite"],
            "error: refusing to write to data.bin: it holds 1 MiB of data; pass --allow-destructive to overwrite it",
        ),
        (
            &["--size", "1000T", "--norandommap"],
            "error: no room for the scratch file in ",
        ),
        (
            &["--size", "100000T"],
            "error: the job needs an estimated 3.1 TiB of memory",
        ),
    ];
    for (args, want) in cases {
        let out = bench(dir.path(), args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}:\n got {err}\nwant {want}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    }
    let out = bench(dir.path(), &["--bs", "1000", "--size", "1M"]);
    assert!(stderr(&out).ends_with(
        "; use a multiple such as 4k, or buffered I/O (bench --buffered, sweep --direct no, fio direct=0)\n"
    ));
    assert!(
        leftovers(dir.path(), &["data.bin"]).is_empty(),
        "no scratch file left behind"
    );
}

#[test]
fn reading_an_existing_file_keeps_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let data = crate::support::pattern(4 << 20, 0);
    std::fs::write(dir.path().join("data.bin"), &data).unwrap();
    let (_, record) = bench_ok(dir.path(), &opts("data.bin --runtime 200ms"));
    assert_eq!(record["target"]["kind"], "file");
    assert_eq!(record["target"]["working_set_bytes"], 4 << 20);
    assert_eq!(record["target"]["preconditioned"], false);
    assert!(record["notes"].to_string().contains("working set lowered"));
    assert_eq!(std::fs::read(dir.path().join("data.bin")).unwrap(), data);
}

#[test]
fn sigint_drains_and_records_interrupted() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let dir = tempfile::tempdir().unwrap();
        let run = MeasuringRun::start(
            dir.path(),
            &opts("--runtime 30s --size 16M --interval 100ms"),
        );
        // SAFETY: kill on our own child's pid.
        assert_eq!(unsafe { libc::kill(run.child.id() as i32, signal) }, 0);
        let (code, rest) = run.finish();
        // 128 + the signal: 130 for SIGINT, 143 for SIGTERM.
        assert_eq!(code, Some(128 + signal), "{rest:?}");
        let record = record_in(dir.path());
        assert_eq!(record["status"], "interrupted");
        assert_eq!(record["segments"][0]["status"], "interrupted");
        assert!(record["read"]["total_ios"].as_u64().unwrap() > 0);
        let elapsed_s = record["elapsed_ns"].as_f64().unwrap() / 1e9;
        assert!(elapsed_s > 0.1 && elapsed_s < 10.0, "{elapsed_s}");
        assert_eq!(record["target"]["scratch_removed"], true);
        assert!(
            leftovers(dir.path(), &[RECORD]).is_empty(),
            "scratch file removed"
        );
    }
}

/// A write past RLIMIT_FSIZE fails with EFBIG: a real mid-run I/O error without root.
#[test]
fn an_io_error_mid_run_stops_and_records_failed() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.bin"), vec![1u8; 16 << 20]).unwrap();
    let mut cmd = bench_cmd(
        dir.path(),
        &opts("data.bin --rw write --bs 1M -q 1 --allow-destructive --runtime 5s --json r.json"),
    );
    // SAFETY: only async-signal-safe calls (setrlimit, signal) between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 8 << 20,
                rlim_max: 8 << 20,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &limit);
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_stderr_has(
        &out,
        "error: write at offset 8388608 (8 MiB) failed: File too large (EFBIG)",
    );
    let record = record_in(dir.path());
    assert_write_failed_with(&record, "EFBIG");
    assert_eq!(record["error"]["offset_bytes"], 8 << 20);
    assert_eq!(
        record["write"]["total_ios"], 8,
        "the 8 writes before the limit completed"
    );
    assert_stdout_has(&out, "FAILED");
}

#[test]
#[ignore = "needs a test directory on a disk in /proc/diskstats"]
fn direct_io_reconciles_with_the_device() {
    let dir = tempfile::tempdir().unwrap();
    let (out, record) = bench_ok(dir.path(), &opts("--runtime 300ms --size 16M"));
    assert!(
        !record["device"].is_null(),
        "this test needs its directory ({}) on a disk listed in /proc/diskstats (not tmpfs or \
         overlay): set TMPDIR to such a directory, or leave out --include-ignored; the record \
         says {}",
        dir.path().display(),
        record["notes"]
    );
    let rec = &record["device"]["reconciliation"];
    assert_eq!(rec["app_read_ios"], record["read"]["total_ios"]);
    // Other programs may use the same disk at the same time: the device can only do more.
    assert!(rec["io_ratio"].as_f64().unwrap() >= 0.98, "{rec}");
    assert!(record["device"]["iostat"]["r/s"].as_f64().unwrap() > 0.0);
    assert_stdout_has(&out, "r/s");
    assert!(!stdout(&out).contains("PAGE CACHE"));
    // Buffered reads warning of the page cache: tests/bench_root.rs, on a loop device of their
    // own (on this shared disk other programs' reads would hide the cache).
}

#[test]
fn several_workers_pinned_with_a_ramp() {
    let dir = tempfile::tempdir().unwrap();
    for rw in ["read", "randrw"] {
        let job =
            opts("-j 2 -q 4 --cpus 0 --ramp 200ms --runtime 300ms --size 16M --interval 100ms");
        let (_, record) = bench_ok(dir.path(), &[&["--rw", rw][..], &job].concat());
        assert_eq!(record["job"]["numjobs"], 2);
        assert_eq!(record["job"]["cpus"], "0");
        assert_eq!(record["job"]["ramp_ns"], 200_000_000);
        // The ramp is not measured: the measured time is the runtime (300 ms), which a
        // measured ramp (200 ms more) would reach past.
        let elapsed_ms = record["elapsed_ns"].as_u64().unwrap() / 1_000_000;
        assert!(
            (300..300 + 200).contains(&elapsed_ms),
            "{rw}: measured {elapsed_ms} ms"
        );
        let series = record["segments"][0]["series"].as_array().unwrap();
        assert!(
            (3..=4).contains(&series.len()),
            "{rw}: {} intervals",
            series.len()
        );
        assert!(record["read"]["total_ios"].as_u64().unwrap() > 0);
    }
}

/// No interval is a sliver: the run's last interval takes the completions drained after the
/// runtime and any remainder under half an interval, and its status line names its length.
#[test]
fn the_last_interval_takes_the_drain_and_a_short_remainder() {
    for (runtime, intervals) in [("1000ms", 2), ("1200ms", 2)] {
        let dir = tempfile::tempdir().unwrap();
        let args =
            format!("--rw read --bs 1M -q 8 --size 16M --runtime {runtime} --interval 500ms");
        let (out, record) = bench_ok(dir.path(), &opts(&args));
        let series = record["segments"][0]["series"].as_array().unwrap();
        let durations: Vec<u64> = series
            .iter()
            .map(|p| p["duration_ns"].as_u64().unwrap())
            .collect();
        assert_eq!(series.len(), intervals, "{runtime}: {durations:?}");
        assert!(
            durations.iter().all(|&ns| ns >= 250_000_000),
            "{runtime}: an interval under half the interval: {durations:?}"
        );
        let last = series.last().unwrap();
        assert_eq!(
            last["t_ns"], record["elapsed_ns"],
            "the last ends with the run"
        );
        let ios: u64 = series
            .iter()
            .map(|p| p["read"]["total_ios"].as_u64().unwrap())
            .sum();
        assert_eq!(ios, record["read"]["total_ios"].as_u64().unwrap());
        let lines: Vec<String> = stderr(&out)
            .lines()
            .filter(|l| l.starts_with('['))
            .map(str::to_string)
            .collect();
        assert_eq!(lines.len(), intervals, "{lines:?}");
        assert!(lines[0].starts_with("[    0.5s] read"), "{lines:?}");
        // The last line names its length when it is not the interval: 1200ms leaves 700 ms plus
        // the drain; at 1000ms a drain under a millisecond is the interval and reads as one.
        let last_ns = durations[durations.len() - 1];
        if last_ns.abs_diff(500_000_000) < 1_000_000 {
            assert!(lines[1].starts_with("[    1.0s] read"), "{lines:?}");
        } else {
            assert!(lines[1].contains("s over "), "{lines:?}");
        }
        if runtime == "1200ms" {
            assert!(last_ns >= 700_000_000, "{durations:?}");
            assert!(lines[1].contains("s over 7"), "{lines:?}");
        }
    }
}

/// What a fio user expects to be told: the ramp as it runs, the fill up front, I/Os that overlap
/// in a working set smaller than what is in flight, and the memory large buffers take.
#[test]
fn the_ramp_the_fill_overlap_and_buffer_memory_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let out = bench(
        dir.path(),
        &opts("--size 16M --ramp 1200ms --runtime 300ms --interval 100ms --no-tui"),
    );
    assert_success(&out);
    assert_stderr_has(
        &out,
        "preparing: writing the 16 MiB working set with data before measuring",
    );
    assert_stderr_has(&out, "[ramp] warming up, not measured: ");
    let out = bench(
        dir.path(),
        &opts("--size 8k --bs 4k -q 32 --ioengine null --runtime 200ms --no-tui"),
    );
    assert_success(&out);
    assert_stderr_has(
        &out,
        "WARNING: the working set (8 KiB) is smaller than bs x iodepth x numjobs (128 KiB): I/Os \
         in flight overlap the same blocks",
    );
    let out = bench(
        dir.path(),
        &opts("--size 64M --bs 64M -q 8 --ioengine null --runtime 200ms --no-tui"),
    );
    assert_success(&out);
    assert_stderr_has(
        &out,
        "note: the I/O buffers take 512 MiB of memory (bs 64M x iodepth 8 x numjobs 1)",
    );
}

/// Each `--jsonl` line carries that interval's own p50/p99/p99.9 and its fine histogram, and
/// the percentiles agree with the histogram of the same line.
#[test]
fn interval_lines_carry_their_own_percentiles_and_histogram() {
    let dir = tempfile::tempdir().unwrap();
    let out = bench(
        dir.path(),
        &opts("--ioengine null --size 16M --runtime 400ms --interval 100ms --jsonl -"),
    );
    assert_success(&out);
    let lines = json_lines(&stdout(&out));
    assert!(lines.len() >= 3, "{} lines", lines.len());
    for line in &lines {
        let lat = &line["read"]["lat_ns"];
        let hist = &lat["histogram"];
        let le: Vec<u64> = serde_json::from_value(hist["le_ns"].clone()).unwrap();
        let count: Vec<u64> = serde_json::from_value(hist["count"].clone()).unwrap();
        assert_eq!(count.iter().sum::<u64>(), lat["N"].as_u64().unwrap());
        for (key, q) in [
            ("50.000000", 0.5),
            ("99.000000", 0.99),
            ("99.900000", 0.999),
        ] {
            let p = lat["percentile"][key].as_u64().unwrap();
            // The bucket holding the q-th I/O, by the histogram of this line.
            let rank = (q * count.iter().sum::<u64>() as f64).ceil() as u64;
            let mut seen = 0;
            let bucket = le
                .iter()
                .zip(&count)
                .find(|(_, c)| {
                    seen += **c;
                    seen >= rank
                })
                .map(|(le, _)| *le)
                .unwrap();
            // Within the coarsest bucket width an interval may use (b >= 4: 1/16).
            let close = p.abs_diff(bucket) as f64 <= bucket as f64 / 16.0 + 1.0;
            assert!(
                close,
                "{key}: percentile {p} ns, histogram bucket <= {bucket} ns"
            );
        }
    }
}

/// `--io-size`: a dd-style run that writes its bytes once and ends, `--runtime` only a cap.
#[test]
fn io_size_writes_its_bytes_once_and_ends() {
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let (_, record) = bench_ok(
        dir.path(),
        &opts("--rw write --bs 128k --size 8M --io-size 4M -q 4 --runtime 60s"),
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert_eq!(record["write"]["io_bytes"], 4 << 20);
    assert_eq!(record["write"]["total_ios"], 32);
    assert_eq!(record["job"]["io_size"], 4 << 20);
    assert_eq!(record["status"], "completed");
}

/// A zipf workload is recorded as such, and a fio job file says the same thing.
#[test]
fn a_random_distribution_is_run_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (_, record) = bench_ok(
        dir.path(),
        &opts("--random-distribution zipf:1.2 --size 8M --runtime 300ms -q 4"),
    );
    assert_eq!(record["job"]["random_distribution"], "zipf:1.2");
    assert!(record["read"]["total_ios"].as_u64().unwrap() > 0);
    let out = std::process::Command::new(crate::support::BIN)
        .args([
            "fio",
            "--name=z",
            "--rw=randread",
            "--size=1M",
            "--filename=f",
        ])
        .args(["--random_distribution=pareto:0.3", "--parse-only"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_success(&out);
    assert_stdout_has(&out, "random_distribution=pareto:0.3");
}
