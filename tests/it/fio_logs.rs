//! fio's log files (`write_bw_log`, `write_iops_log`, `write_lat_log`, `write_hist_log`,
//! `log_avg_msec`, `log_hist_msec`, `log_offset`, `log_max_value`, `per_job_logs`): fio
//! 3.33's names and line formats, side by side with fio itself, their numbers against the
//! run's own report, and fio's own readers (`fiologparser.py`, `fiologparser_hist.py`, from
//! Debian's fio package) and plot scripts (`fio_generate_plots`, `fio2gnuplot`, with gnuplot)
//! on them.

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
    // Its rows must fall on the 500 ms windows' ends: a deadline check, it takes its turn.
    let _turn = crate::support::timing_turn();
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
    // The latency log's means, weighted by each window's I/Os, are the run's mean. (A
    // latency window closes at its direction's first I/O past its end, a rate window at any
    // direction's: they are paired by the nearest time.)
    let lat = lines(&dir.path().join("lg_clat.1.log"));
    let mut sum = 0.0;
    let mut n = 0.0;
    for row in lat.iter().filter(|r| r[2] == 0) {
        let ios = iops
            .iter()
            .filter(|r| r[2] == 0)
            .min_by_key(|r| r[0].abs_diff(row[0]))
            .unwrap()[1] as f64;
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
    // The hist log: time, direction, block size and fio's 1856 bins; its windows' counts are
    // the I/Os but the last window's (fio writes no line for a window the run ends in).
    let hist = lines(&dir.path().join("lg_clat_hist.1.log"));
    assert!(hist.iter().all(|r| r.len() == 3 + 1856 && r[2] == 4096));
    assert!(
        hist.iter().filter(|r| r[1] == 0).count() >= 3,
        "{}",
        hist.len()
    );
    let counted: u64 = hist
        .iter()
        .filter(|r| r[1] == 0)
        .map(|r| r[3..].iter().sum::<u64>())
        .sum();
    let ios = job["read"]["total_ios"].as_u64().unwrap();
    assert!(
        counted <= ios && counted * 10 >= ios * 6,
        "{counted} of {ios}"
    );
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
    // One log per clone, numbered as fio's threads; job b's one clone is thread 3.
    assert!(dir.path().join("a_bw.1.log").is_file());
    assert!(dir.path().join("a_bw.2.log").is_file());
    assert!(!dir.path().join("a_bw.3.log").exists());
    assert!(dir.path().join("b_iops.log").is_file());
    assert!(!lines(&dir.path().join("b_iops.log")).is_empty());
    assert!(!stderr(&out).contains("log"), "{}", stderr(&out));
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
    let counted: u64 = lines(&dir.path().join("lg_clat_hist.1.log"))
        .iter()
        .map(|r| r[3..].iter().sum::<u64>())
        .sum();
    assert!(
        (samples - counted as f64).abs() < 0.5 && samples <= ios,
        "fiologparser_hist {samples} vs {counted} in the log, {ios} I/Os"
    );
    let p99 = job["read"]["clat_ns"]["percentile"]["99.000000"]
        .as_f64()
        .unwrap()
        / 1000.0;
    assert!(rows.iter().any(|r| r[7] > 0.0) && p99 > 0.0);
}

/// The points of the data line in an SVG that `fio_generate_plots` drew: the `L` steps of the
/// first path in gnuplot's first plot group (its key's own step is one of them); 0 when that
/// group has no path and the first one after it is the graph's closed border (axes only).
fn svg_plot_points(svg: &str) -> usize {
    let Some((_, plot)) = svg.split_once("id=\"gnuplot_plot_1\"") else {
        return 0;
    };
    let path = plot
        .split("d='")
        .nth(1)
        .and_then(|d| d.split('\'').next())
        .unwrap_or("");
    if path.contains('Z') {
        return 0;
    }
    path.matches('L').count()
}

#[test]
#[ignore = "needs fio (its fio_generate_plots and fio2gnuplot) and gnuplot"]
fn fio_s_plot_scripts_draw_the_logs() {
    let dir = tempfile::tempdir().unwrap();
    // io_uring, so that the submission latency log has lines too (fio_generate_plots stops at
    // the first of lat, iops, slat, clat, bw that has no log file).
    let out = fio(
        dir.path(),
        &[
            "--name=job",
            "--filename=data",
            "--size=16m",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=io_uring",
            "--direct=1",
            "--iodepth=4",
            "--runtime=1",
            "--time_based",
            "--log_avg_msec=100",
            "--write_bw_log=dd-iodepth-4",
            "--write_iops_log=dd-iodepth-4",
            "--write_lat_log=dd-iodepth-4",
            "--output=/dev/null",
        ],
    );
    assert_success(&out);
    let plots = Command::new("fio_generate_plots")
        .arg("diskdash")
        .current_dir(dir.path())
        .output()
        .expect("fio's package installs fio_generate_plots");
    assert_success(&plots);
    for kind in ["lat", "iops", "slat", "clat", "bw"] {
        let rows = lines(&dir.path().join(format!("dd-iodepth-4_{kind}.1.log"))).len();
        let svg_path = dir.path().join(format!("diskdash-{kind}.svg"));
        let svg = std::fs::read_to_string(&svg_path)
            .unwrap_or_else(|e| panic!("{}: {e}: {}", svg_path.display(), stdout(&plots)));
        // A line through every window of the log, not only the axes.
        let points = svg_plot_points(&svg);
        assert!(
            rows >= 5 && points >= rows - 1,
            "{kind}: {points} points drawn for {rows} log lines"
        );
    }

    // fio2gnuplot: the bandwidth log read (its kept data file and summary) and drawn.
    let drawn = dir.path().join("f2g");
    std::fs::create_dir_all(&drawn).unwrap();
    let out = Command::new("fio2gnuplot")
        .args(["-b", "-g", "-k", "-d", "f2g"])
        .current_dir(dir.path())
        .output()
        .expect("fio's package installs fio2gnuplot");
    assert_success(&out);
    let bw = lines(&dir.path().join("dd-iodepth-4_bw.1.log"));
    let summary = std::fs::read_to_string(drawn.join("result.global")).unwrap();
    let field = |key: &str| -> f64 {
        summary
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("{key} in {summary}"))
            .parse()
            .unwrap()
    };
    let mean = bw.iter().map(|r| r[1] as f64).sum::<f64>() / bw.len() as f64;
    assert_eq!(field("values_count=") as usize, bw.len(), "{summary}");
    assert!((field("avg=") - mean).abs() < 1.0, "{summary} vs {mean}");
    let png = std::fs::read(drawn.join("dd-iodepth-4_bw.1-2Draw.png")).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 5_000,
        "{} bytes",
        png.len()
    );
}

/// The names of the `*.log` files in `dir`, sorted.
fn log_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log"))
        .collect();
    names.sort();
    names
}

/// A 1 s randrw job of two clones, every log asked for, with `extra` options.
fn clone_job(extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = vec![
        "--name=j",
        "--filename=data",
        "--size=1m",
        "--rw=randrw",
        "--bs=4k",
        "--runtime=1",
        "--time_based",
        "--numjobs=2",
        "--write_bw_log=p",
        "--write_iops_log=p",
        "--write_lat_log=p",
        "--write_hist_log=p",
        "--output-format=json",
        "--output=out.json",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
#[ignore = "needs fio"]
fn each_clone_logs_every_io_under_fio_s_names_as_fio_does() {
    for extra in [&["--log_hist_msec=200"][..], &["--per_job_logs=0"][..]] {
        let ours = tempfile::tempdir().unwrap();
        let theirs = tempfile::tempdir().unwrap();
        let args = clone_job(extra);
        assert_success(&fio(ours.path(), &args));
        let out = Command::new("fio")
            .args(&args)
            .current_dir(theirs.path())
            .output()
            .expect("fio runs");
        assert_success(&out);
        let names = log_names(ours.path());
        assert_eq!(names, log_names(theirs.path()), "{extra:?}");
        assert_eq!(
            names.len(),
            if extra[0].starts_with("--per") { 6 } else { 12 }
        );
        // Without log_avg_msec a line per I/O, in each clone's own log (both clones' in
        // the one shared log with per_job_logs=0): the report's I/Os, read and write.
        let doc = read_json(&ours.path().join("out.json"));
        let ios: u64 = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap()
            })
            .sum();
        for kind in ["bw", "iops", "lat", "clat"] {
            let rows: Vec<Vec<u64>> = names
                .iter()
                .filter(|n| n.starts_with(&format!("p_{kind}.")))
                .flat_map(|n| lines(&ours.path().join(n)))
                .collect();
            assert_eq!(rows.len() as u64, ios, "{kind} {extra:?}");
            assert!(
                rows.iter()
                    .all(|r| r.len() == 5 && r[3] == 4096 && r[4] == 0 && r[2] < 2)
            );
            if kind == "iops" {
                assert!(rows.iter().all(|r| r[1] == 1));
            }
        }
        // No slat measured (psync): the _slat logs are empty, as fio's.
        for name in names.iter().filter(|n| n.contains("_slat")) {
            assert_eq!(std::fs::metadata(ours.path().join(name)).unwrap().len(), 0);
            assert_eq!(
                std::fs::metadata(theirs.path().join(name)).unwrap().len(),
                0
            );
        }
        // The hist log has lines only with log_hist_msec (fio's stays empty without).
        let hist = lines(
            &ours
                .path()
                .join(names.iter().find(|n| n.contains("hist")).unwrap()),
        );
        assert_eq!(hist.is_empty(), extra[0].starts_with("--per"), "{extra:?}");
    }
}

#[test]
fn the_offset_column_and_the_window_s_maximum() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--name=j",
            "--filename=data",
            "--size=256k",
            "--rw=randread",
            "--bs=4k",
            "--runtime=600ms",
            "--time_based",
            "--write_iops_log=o",
            "--write_lat_log=m",
            "--log_offset=1",
            "--output-format=json",
            "--output=out.json",
            "--name=k",
            "--filename=data",
            "--size=256k",
            "--rw=randread",
            "--bs=4k",
            "--runtime=600ms",
            "--time_based",
            "--write_lat_log=a",
            "--log_avg_msec=200",
            "--log_max_value=1",
        ],
    );
    assert_success(&out);
    let doc = read_json(&dir.path().join("out.json"));
    // Per I/O: time, 1, direction, block size, offset, priority; every offset a block's.
    let rows = lines(&dir.path().join("o_iops.1.log"));
    assert_eq!(
        rows.len() as u64,
        doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap()
    );
    assert!(
        rows.iter()
            .all(|r| r.len() == 6 && r[4] % 4096 == 0 && r[4] < 256 << 10)
    );
    let offsets: std::collections::BTreeSet<u64> = rows.iter().map(|r| r[4]).collect();
    assert!(offsets.len() > 8, "random offsets: {offsets:?}");
    // Averaged with log_max_value: each window's largest latency, never above the job's
    // maximum, and the largest of them is it.
    let rows = lines(&dir.path().join("a_lat.2.log"));
    assert!(rows.len() >= 3, "{rows:?}");
    // (log_offset=1 was job j's alone: no offset column here.)
    assert!(rows.iter().all(|r| r.len() == 5 && r[3] == 0 && r[4] == 0));
    let max = doc["jobs"][1]["read"]["lat_ns"]["max"].as_u64().unwrap();
    let top = rows.iter().map(|r| r[1]).max().unwrap();
    assert!(top.abs_diff(max) <= max / 100 + 1000, "{top} vs {max}");
}

#[test]
fn a_refused_run_leaves_no_log_and_an_earlier_log_is_replaced_but_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data"), vec![7u8; 64 << 10]).unwrap();
    let job = |extra: &'static str| {
        vec![
            "--name=w",
            "--filename=data",
            "--size=64k",
            "--rw=write",
            "--bs=4k",
            "--write_bw_log=w",
            "--write_lat_log=w",
            extra,
        ]
    };
    // The write interlock refuses the run: no log made.
    let out = fio(dir.path(), &job("--numjobs=2"));
    assert_usage_error(&out);
    assert_eq!(log_names(dir.path()), Vec::<String>::new());
    // An earlier fio log (fio's log_prio form too) is replaced; a file that is not one is
    // refused and kept.
    std::fs::write(dir.path().join("w_bw.1.log"), "0, 1, 1, 4096, 0x2004\n").unwrap();
    std::fs::write(dir.path().join("w_lat.1.log"), "0, 1, 1, 4096, 0\nnotes\n").unwrap();
    let out = fio(dir.path(), &job("--allow-destructive"));
    assert_usage_error(&out);
    assert_stderr_has(&out, "w_lat.1.log");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("w_lat.1.log")).unwrap(),
        "0, 1, 1, 4096, 0\nnotes\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("w_bw.1.log")).unwrap(),
        "0, 1, 1, 4096, 0x2004\n"
    );
    std::fs::remove_file(dir.path().join("w_lat.1.log")).unwrap();
    let out = fio(dir.path(), &job("--allow-destructive"));
    assert_success(&out);
    let rows = lines(&dir.path().join("w_bw.1.log"));
    assert_eq!(rows.len(), 16, "64k in 4k writes, the earlier line gone");
}

/// A 200-I/O direct randread at depth 4 on `engine` with a per-I/O latency log: its JSON report
/// and the slat, clat and lat logs' rows. Every I/O is a line in each (fio's per-I/O logs) and
/// slat + clat = lat, I/O by I/O. From the JSON: the submit call's time (`slat_ns.mean`) above
/// 0.2 us (a syscall on this VM takes longer: a clock read alone would not), and the completion's
/// time below the whole, as fio measures them.
fn slat_split(engine: &str) -> (Value, Vec<Vec<u64>>) {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--name=job",
            "--filename=data",
            "--size=4m",
            "--rw=randread",
            "--bs=4k",
            &format!("--ioengine={engine}"),
            "--direct=1",
            "--iodepth=4",
            "--number_ios=200",
            "--write_lat_log=lg",
            "--output-format=json",
            "--output=out.json",
        ],
    );
    assert_success(&out);
    let slat = lines(&dir.path().join("lg_slat.1.log"));
    let clat = lines(&dir.path().join("lg_clat.1.log"));
    let lat = lines(&dir.path().join("lg_lat.1.log"));
    assert_eq!(
        (slat.len(), clat.len(), lat.len()),
        (200, 200, 200),
        "{engine}"
    );
    assert!(slat.iter().all(|r| r[1] > 0), "{engine}: {slat:?}");
    for ((s, c), l) in slat.iter().zip(&clat).zip(&lat) {
        assert_eq!(
            s[1] + c[1],
            l[1],
            "{engine}: slat {s:?} clat {c:?} lat {l:?}"
        );
    }
    let doc = read_json(&dir.path().join("out.json"));
    let read = &doc["jobs"][0]["read"];
    let mean = |key: &str| read[key]["mean"].as_f64().unwrap();
    assert!(
        mean("slat_ns") > 200.0,
        "{engine}: slat_ns.mean {} ns",
        mean("slat_ns")
    );
    assert!(
        mean("clat_ns") < mean("lat_ns"),
        "{engine}: clat_ns.mean {} not below lat_ns.mean {}",
        mean("clat_ns"),
        mean("lat_ns")
    );
    (doc, slat)
}

#[test]
fn an_io_uring_job_fills_its_slat_log_and_its_clat_is_lat_less_slat() {
    let (doc, slat) = slat_split("io_uring");
    assert_eq!(doc["jobs"][0]["job options"]["ioengine"], "io_uring");
    assert_eq!(doc["jobs"][0]["read"]["slat_ns"]["N"], slat.len());
}

#[test]
fn a_libaio_job_splits_slat_from_clat_as_io_uring_does() {
    let (doc, slat) = slat_split("libaio");
    assert_eq!(doc["jobs"][0]["job options"]["ioengine"], "libaio");
    assert_eq!(doc["jobs"][0]["read"]["slat_ns"]["N"], slat.len());
}
