//! fio's log files (`write_bw_log`, `write_iops_log`, `write_lat_log`, `write_hist_log`,
//! `log_avg_msec`, `log_hist_msec`): fio 3.33's names and line formats, their numbers against
//! the run's own report, and fio's own readers (`fiologparser.py`, `fiologparser_hist.py`, from
//! Debian's fio package) on them.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::fio_run::fio;
use crate::support::*;

/// A 2 s randrw job with every log at 500 ms windows, its JSON report in `out.json`.
fn logged_run(dir: &Path) -> Value {
    let out = fio(
        dir,
        &[
            "--name=job",
            "--filename=data",
            "--size=4m",
            "--rw=randrw",
            "--bs=4k",
            "--runtime=2",
            "--time_based",
            "--write_bw_log=lg",
            "--write_iops_log=lg",
            "--write_lat_log=lg",
            "--write_hist_log=lg",
            "--log_avg_msec=500",
            "--log_hist_msec=500",
            "--output-format=json",
            "--output=out.json",
        ],
    );
    assert_success(&out);
    read_json(&dir.join("out.json"))
}

/// Each line's fields as numbers.
fn lines(path: &Path) -> Vec<Vec<u64>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| l.split(", ").map(|f| f.parse().unwrap()).collect())
        .collect()
}

/// Sum over a log's lines of `value * window` for direction `d` (windows of `ms`).
fn integral(rows: &[Vec<u64>], d: u64, ms: f64) -> f64 {
    let mut last = 0u64;
    let mut total = 0.0;
    for row in rows.iter().filter(|r| r[2] == d) {
        let window = if row[0] > last {
            (row[0] - last) as f64
        } else {
            ms
        };
        total += row[1] as f64 * window / 1000.0;
        last = row[0];
    }
    total
}

#[test]
fn logs_have_fio_s_names_formats_and_the_run_s_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let doc = logged_run(dir.path());
    let job = &doc["jobs"][0];
    for kind in ["bw", "iops", "lat", "clat", "slat", "clat_hist"] {
        assert!(
            dir.path().join(format!("lg_{kind}.1.log")).is_file(),
            "lg_{kind}.1.log"
        );
    }
    let iops = lines(&dir.path().join("lg_iops.1.log"));
    let bw = lines(&dir.path().join("lg_bw.1.log"));
    for rows in [&iops, &bw] {
        assert!(rows.len() >= 6, "4 windows x 2 directions: {rows:?}");
        assert!(
            rows.iter().all(|r| r.len() == 5 && r[3] == 0 && r[4] == 0),
            "{rows:?}"
        );
        assert!(
            rows.iter().all(|r| r[0] % 500 <= 20 || r[0] > 1900),
            "{rows:?}"
        );
    }
    for (d, name) in [(0, "read"), (1, "write")] {
        let ios = job[name]["total_ios"].as_f64().unwrap();
        let got = integral(&iops, d, 500.0);
        assert!(
            (got - ios).abs() <= ios * 0.02 + 4.0,
            "{name}: log {got} vs report {ios}"
        );
        let kib = job[name]["io_kbytes"].as_f64().unwrap();
        let got = integral(&bw, d, 500.0);
        assert!(
            (got - kib).abs() <= kib * 0.02 + 8.0,
            "{name}: log {got} KiB vs {kib}"
        );
    }
    // The latency log's means, weighted by each window's I/Os, are the run's mean.
    let lat = lines(&dir.path().join("lg_clat.1.log"));
    let mut sum = 0.0;
    let mut n = 0.0;
    for row in lat.iter().filter(|r| r[2] == 0) {
        let ios = iops.iter().find(|r| r[0] == row[0] && r[2] == 0).unwrap()[1] as f64;
        sum += row[1] as f64 * ios;
        n += ios;
    }
    let mean = job["read"]["clat_ns"]["mean"].as_f64().unwrap();
    assert!(
        (sum / n - mean).abs() <= mean * 0.05,
        "{} vs {mean}",
        sum / n
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("lg_slat.1.log")).unwrap(),
        ""
    );
    // The hist log: time, direction, block size and fio's 1856 bins; counts add to the I/Os.
    let hist = lines(&dir.path().join("lg_clat_hist.1.log"));
    assert!(hist.iter().all(|r| r.len() == 3 + 1856 && r[2] == 4096));
    let counted: u64 = hist
        .iter()
        .filter(|r| r[1] == 0)
        .map(|r| r[3..].iter().sum::<u64>())
        .sum();
    assert_eq!(counted, job["read"]["total_ios"].as_u64().unwrap());
}

#[test]
fn per_job_logs_0_drops_the_thread_number_and_a_second_job_gets_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--size=1m",
            "--rw=read",
            "--runtime=300ms",
            "--time_based",
            "--log_avg_msec=100",
            "--name=a",
            "--filename=a.dat",
            "--write_bw_log=a",
            "--numjobs=2",
            "--name=b",
            "--filename=b.dat",
            "--write_iops_log=b",
            "--per_job_logs=0",
        ],
    );
    assert_success(&out);
    assert!(dir.path().join("a_bw.1.log").is_file());
    assert!(dir.path().join("b_iops.log").is_file());
    assert!(!lines(&dir.path().join("b_iops.log")).is_empty());
    assert_stderr_has(&out, "one log for its 2 workers together");
}

#[test]
fn a_log_that_would_replace_the_target_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x_bw.1.log"), b"data").unwrap();
    let out = fio(
        dir.path(),
        &[
            "--name=x",
            "--filename=x_bw.1.log",
            "--rw=read",
            "--size=4k",
            "--write_bw_log=x",
        ],
    );
    assert_usage_error(&out);
    assert_stderr_has(&out, "x_bw.1.log");
    assert_eq!(
        std::fs::read(dir.path().join("x_bw.1.log")).unwrap(),
        b"data"
    );
}

/// One of fio's tools from Debian's package (gzipped docs), unpacked into `dir`.
fn fio_tool(dir: &Path, name: &str) -> PathBuf {
    let gz = format!("/usr/share/doc/fio/{name}.gz");
    let out = Command::new("zcat").arg(&gz).output().expect("zcat runs");
    assert!(out.status.success(), "{gz}: fio's package ships it");
    let path = dir.join(name);
    std::fs::write(&path, out.stdout).unwrap();
    path
}

#[test]
#[ignore = "needs fio"]
fn fio_s_log_parsers_read_the_logs() {
    let dir = tempfile::tempdir().unwrap();
    let doc = logged_run(dir.path());
    let job = &doc["jobs"][0];
    let ios =
        job["read"]["total_ios"].as_f64().unwrap() + job["write"]["total_ios"].as_f64().unwrap();
    // fiologparser.py splits a line into exactly four fields, fio 2's; fio 3.33's own logs
    // carry a fifth (priority) and need it cut, as here. It takes a line to span the time
    // since the line before, so it reads one direction at a time (as it does fio's logs).
    let four = dir.path().join("four.log");
    let text: String = std::fs::read_to_string(dir.path().join("lg_iops.1.log"))
        .unwrap()
        .lines()
        .filter(|l| l.split(", ").nth(2) == Some("0"))
        .map(|l| l.rsplit_once(", ").unwrap().0.to_string() + "\n")
        .collect();
    std::fs::write(&four, text).unwrap();
    let parser = fio_tool(dir.path(), "fiologparser.py");
    // Its default: the time-weighted mean over the run, here of the read IOPS.
    let out = Command::new("python3")
        .arg(&parser)
        .args(["-i", "500"])
        .arg(&four)
        .output()
        .unwrap();
    assert_success(&out);
    let mean: f64 = stdout(&out).trim().parse().unwrap();
    let reads = job["read"]["iops"].as_f64().unwrap();
    assert!(
        (mean - reads).abs() <= reads * 0.03,
        "fiologparser {mean} vs {reads}"
    );

    let hist = fio_tool(dir.path(), "fiologparser_hist.py");
    let out = Command::new("python3")
        .arg(&hist)
        .args(["--noweight", "-i", "500"])
        .arg(dir.path().join("lg_clat_hist.1.log"))
        .output()
        .unwrap();
    assert_success(&out);
    // Columns: end-time, samples, min, avg, median, 90%, 95%, 99%, max.
    let rows: Vec<Vec<f64>> = stdout(&out)
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|f| f.trim().parse().unwrap()).collect())
        .collect();
    let samples: f64 = rows.iter().map(|r| r[1]).sum();
    assert!(
        (samples - ios).abs() < 0.5,
        "fiologparser_hist {samples} vs {ios}"
    );
    let p99 = job["read"]["clat_ns"]["percentile"]["99.000000"]
        .as_f64()
        .unwrap()
        / 1000.0;
    assert!(rows.iter().any(|r| r[7] > 0.0) && p99 > 0.0);
}
