//! fio-plot (the PyPI package bench-fio users graph with) drawing its graphs from `diskdash fio`
//! output, unchanged: the 2D bar chart of IOPS and latency per queue depth from a directory of
//! JSON results, and the line graphs from fio's bandwidth, IOPS and latency logs and from the
//! submission and completion latency logs (`-t slat clat`). CI installs it into a virtual
//! environment at `/opt/fio-plot` (`.ci/run`); `FIO_PLOT` names another binary.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::fio_run::fio;
use crate::support::*;

fn fio_plot() -> PathBuf {
    let found = std::env::var_os("FIO_PLOT")
        .map(PathBuf::from)
        .into_iter()
        .chain(std::env::var_os("PATH").into_iter().flat_map(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("fio-plot"))
                .collect::<Vec<_>>()
        }))
        .chain([PathBuf::from("/opt/fio-plot/bin/fio-plot")])
        .find(|p| p.is_file());
    found.expect(
        "fio-plot is installed: python3 -m venv /opt/fio-plot && /opt/fio-plot/bin/pip install fio-plot",
    )
}

/// A PNG file: its signature and a size that holds more than an empty canvas's header.
fn assert_png(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{} is not a PNG",
        path.display()
    );
    assert!(
        bytes.len() > 10_000,
        "{}: {} bytes",
        path.display(),
        bytes.len()
    );
}

fn run_plot(dir: &Path, args: &[&str]) -> Vec<PathBuf> {
    let out = Command::new(fio_plot())
        .args(args)
        .current_dir(dir)
        .env("MPLBACKEND", "Agg")
        .output()
        .unwrap();
    assert_success(&out);
    // fio-plot prints a line and exits 0 on some failures: a graph must have been written.
    let pngs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    assert!(
        !pngs.is_empty(),
        "no graph written by fio-plot {args:?}: {}{}",
        stdout(&out),
        stderr(&out)
    );
    pngs
}

#[test]
#[ignore = "needs fio-plot"]
fn fio_plot_draws_its_bar_and_line_graphs_from_diskdash_output() {
    fio_plot();
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&runs).unwrap();
    std::fs::create_dir_all(&logs).unwrap();
    // bench-fio's layout: one JSON document per queue depth, and the logs named
    // RW-iodepth-QD-numjobs-NJ so that fio-plot's log filter finds them.
    for qd in ["1", "4"] {
        let json = runs.join(format!("randread-{qd}-1.json"));
        let prefix = logs.join(format!("randread-iodepth-{qd}-numjobs-1"));
        let out = fio(
            dir.path(),
            &[
                "--name=plot",
                "--filename=data",
                "--size=16m",
                "--rw=randread",
                "--bs=4k",
                &format!("--iodepth={qd}"),
                "--numjobs=1",
                "--ioengine=io_uring",
                "--direct=1",
                "--time_based",
                "--runtime=1",
                "--log_avg_msec=250",
                &format!("--write_bw_log={}", prefix.display()),
                &format!("--write_iops_log={}", prefix.display()),
                &format!("--write_lat_log={}", prefix.display()),
                "--output-format=json",
                &format!("--output={}", json.display()),
            ],
        );
        assert_success(&out);
    }

    let bars = dir.path().join("bars");
    std::fs::create_dir_all(&bars).unwrap();
    let runs_arg = runs.display().to_string();
    let pngs = run_plot(
        &bars,
        &[
            "-i", &runs_arg, "-T", "diskdash", "-l", "-r", "randread", "-d", "1", "4", "-n", "1",
        ],
    );
    for png in &pngs {
        assert_png(png);
    }

    let lines = dir.path().join("lines");
    std::fs::create_dir_all(&lines).unwrap();
    let logs_arg = logs.display().to_string();
    let pngs = run_plot(
        &lines,
        &[
            "-i", &logs_arg, "-T", "diskdash", "-g", "-r", "randread", "-d", "1", "4", "-n", "1",
            "-t", "bw", "iops", "lat",
        ],
    );
    for png in &pngs {
        assert_png(png);
    }

    // The submission and completion latencies (io_uring's `_slat` and `_clat` logs): a graph of
    // their own, as fio-plot draws at most three metrics in one (a fourth has no axis and fails).
    let split = dir.path().join("split");
    std::fs::create_dir_all(&split).unwrap();
    let pngs = run_plot(
        &split,
        &[
            "-i", &logs_arg, "-T", "diskdash", "-g", "-r", "randread", "-d", "1", "4", "-n", "1",
            "-t", "slat", "clat",
        ],
    );
    for png in &pngs {
        assert_png(png);
    }
}
