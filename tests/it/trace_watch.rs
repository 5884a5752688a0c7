//! `--trace` on the watching commands (assets/doc/trace.md, "where it shows"): the monitor's
//! device-time columns, heatmap and processes on a loop device under a background fio, its
//! recording, and the 3:1 test (two fio processes at 300 and 100 IOPS show at 3:1 by pid and
//! comm in the monitor's top and in its record), and `serve --trace`'s histograms and
//! process counters in a scrape. Root, tracefs, tmux and fio only (CI runs them).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::block_trace;
use crate::support::tmux::{self, Tmux};
use crate::support::*;

const WAIT: Duration = Duration::from_secs(30);
const FIO: &str = "/usr/bin/fio";

/// A loop device over `dir/disk.img` (16 MiB) that only this test uses.
fn loop_device(dir: &Path) -> LoopDevice {
    let image = dir.join("disk.img");
    std::fs::write(&image, vec![5u8; 16 << 20]).unwrap();
    LoopDevice::attach_unique(&image)
}

/// fio on `path`, time-based for `seconds`, 4 KiB direct I/O with `job`'s options; its jobs
/// threads of the one process, so the process is the pid spawned and killing it ends the I/O
/// (a forked job outlives its killed parent until its runtime ends).
fn fio(path: &Path, name: &str, seconds: u32, job: &[&str]) -> Child {
    Command::new(FIO)
        .args([
            &format!("--name={name}"),
            &format!("--filename={}", path.display()),
            "--bs=4k",
            "--direct=1",
            "--thread",
            "--time_based",
            &format!("--runtime={seconds}"),
        ])
        .args(job)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("fio runs")
}

/// fio reading `dev` at `iops` for `seconds`.
fn fio_at(dev: &Path, name: &str, iops: u32, seconds: u32) -> Child {
    let rate = format!("--rate_iops={iops}");
    fio(
        dev,
        name,
        seconds,
        &["--rw=randread", "--ioengine=psync", &rate],
    )
}

/// Ends a background fio once the test has what it needs from it (its runtime outlasts any
/// wait for a screen, so waiting for its end would only idle).
fn end(mut fio: Child) {
    let _ = fio.kill();
    fio.wait().unwrap();
}

fn require() {
    tmux::require();
    require_root();
    assert!(
        Path::new(FIO).exists(),
        "this test needs fio at {FIO} (.ci/run installs it)"
    );
}

/// The line of the top that names `pid`, and its IOPS.
fn top_iops(screen: &str, pid: u32) -> Option<f64> {
    let line = screen
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(&pid.to_string()))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let comm = words.iter().position(|w| *w == "fio")?;
    words.get(comm + 1)?.parse().ok()
}

/// Opens the monitor with `--trace` and picks `disk` (sorted by r/s, it is the busiest).
fn monitor_on(name: &str, disk: &str, record: &Path) -> Tmux {
    let record = record.to_str().unwrap();
    let args = ["--trace", "--interval", "500ms", "--record", record];
    let t = Tmux::start(name, &args, &[], 160, 60);
    t.wait_for("the monitor", WAIT, |s| s.contains("disks, sorted by"));
    t.send(&["o"]);
    // The first frame is since boot: the loop device tops the table from the first interval.
    t.wait_for("the loop device on top", WAIT, |s| {
        let mut lines = s.lines().skip_while(|l| !l.contains("Device"));
        lines.nth(1).is_some_and(|first| first.contains(disk))
    });
    // Up to the top row, the busiest: while other tests' I/O can put another disk there for
    // an interval, the selection follows that disk's name, so go up again until it is this one.
    let picked = format!("processes on {disk}");
    let deadline = std::time::Instant::now() + WAIT;
    while !t.capture().contains(&picked) && std::time::Instant::now() < deadline {
        t.send(&["Up"; 32]);
        std::thread::sleep(Duration::from_millis(300));
    }
    t.wait_for("the loop device picked", WAIT, |s| s.contains(&picked));
    t
}

/// Each traced sample of `disk` in the recording at `path`.
fn traced_samples(path: &Path, disk: &str) -> Vec<Value> {
    block_trace::traced_disk_samples(path, disk)
        .into_iter()
        .map(|d| d["block_trace"].clone())
        .collect()
}

#[test]
#[ignore = "needs root, tracefs, tmux and fio"]
fn the_monitor_shows_device_percentiles_heatmap_and_processes_and_records_them() {
    require();
    let _turn = crate::trace::tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    let disk = dev.name();
    let fio = fio_at(dev.path(), "bg", 400, 15);
    let record = dir.path().join("rec.jsonl");
    let t = monitor_on("monitor-trace", &disk, &record);
    let screen = t.wait_for("the traced panels", WAIT, |s| {
        s.contains("dev_p99.9")
            && s.contains("device time")
            && s.contains("latency, shade = share")
            && s.lines()
                .any(|l| l.contains(&fio.id().to_string()) && l.contains("fio"))
    });
    let row = screen
        .lines()
        .find(|l| l.contains(&format!(">{disk} ")) || l.contains(&format!(" {disk} ")))
        .unwrap_or_else(|| panic!("no row of {disk}: {screen}"));
    assert!(!row.trim_end().ends_with('-'), "no device time: {row}");
    // The screen can be ready after one sample: let the recording hold two before leaving.
    let deadline = std::time::Instant::now() + WAIT;
    while traced_samples(&record, &disk).len() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
    end(fio);
    for line in std::fs::read_to_string(&record).unwrap().lines() {
        crate::support::record::assert_valid_monitor_line(&serde_json::from_str(line).unwrap());
    }
    let samples = traced_samples(&record, &disk);
    assert!(samples.len() >= 2, "{} traced samples", samples.len());
    let busy = samples
        .iter()
        .find(|s| s["requests"].as_u64() > Some(50))
        .expect("a busy sample");
    assert_eq!(busy["scope"], "request");
    let device = &busy["read"]["device"];
    assert!(device["N"].as_u64().unwrap() > 0, "{device}");
    assert!(
        device["histogram"]["le_ns"].as_array().is_some(),
        "{device}"
    );
    assert_eq!(busy["by_process"][0]["comm"], "fio", "{busy}");
    // `show` replays it with the same panels.
    let t = Tmux::start(
        "monitor-trace-show",
        &["show", record.to_str().unwrap()],
        &[],
        160,
        60,
    );
    t.wait_for("the recorded traced panels", WAIT, |s| {
        s.contains("dev_p99.9") && s.contains("device time, issue to complete")
    });
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
}

#[test]
#[ignore = "needs root, tracefs, tmux and fio"]
fn two_processes_at_three_to_one_show_at_three_to_one() {
    require();
    let _turn = crate::trace::tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    let disk = dev.name();
    let fast = fio_at(dev.path(), "fast", 300, 15);
    let slow = fio_at(dev.path(), "slow", 100, 15);
    let (fast_pid, slow_pid) = (fast.id(), slow.id());
    let record = dir.path().join("rec.jsonl");
    let t = monitor_on("monitor-three-to-one", &disk, &record);
    // On screen: a window's IOPS of each, by pid, 3:1 within 10%.
    let screen = t.wait_for("both processes at 3:1", WAIT, |s| {
        matches!(
            (top_iops(s, fast_pid), top_iops(s, slow_pid)),
            (Some(f), Some(s)) if s > 0.0 && (f / s - 3.0).abs() <= 0.3
        )
    });
    assert!(screen.contains("fio"), "{screen}");
    // Three more 500 ms windows into the record (the slow one's 100 IOPS: 150 I/Os more).
    std::thread::sleep(Duration::from_millis(1500));
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    end(fast);
    end(slow);
    // In the record: every traced window's I/Os by pid, summed.
    let (mut f, mut s) = (0u64, 0u64);
    for sample in traced_samples(&record, &disk) {
        for p in sample["by_process"].as_array().unwrap() {
            let pid = p["pid"].as_u64().unwrap();
            let ios = p["ios"].as_u64().unwrap();
            if pid == u64::from(fast_pid) {
                assert_eq!(p["comm"], "fio", "{p}");
                f += ios;
            } else if pid == u64::from(slow_pid) {
                assert_eq!(p["comm"], "fio", "{p}");
                s += ios;
            }
        }
    }
    assert!(s >= 100, "too few I/Os to judge: {f} and {s}");
    let ratio = f as f64 / s as f64;
    assert!((ratio - 3.0).abs() <= 0.3, "{f} : {s} = {ratio:.2}");
}

#[test]
#[ignore = "needs root, tracefs and fio"]
fn serve_exposes_device_time_histograms_and_process_counters() {
    require_root();
    let _turn = crate::trace::tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    let disk = dev.name();
    let include = format!("^{disk}$");
    let server = crate::serve::Server::start_with(&["--trace", "--device-include", &include]);
    let mut fio = fio_at(dev.path(), "served", 200, 2);
    assert!(fio.wait().unwrap().success());
    let body = server.get("/metrics", Some(crate::serve::OPENMETRICS)).body;
    let count =
        format!("diskdash_disk_device_time_seconds_count{{device=\"{disk}\",op=\"read\"}} ");
    let n: f64 = body
        .lines()
        .find_map(|l| l.strip_prefix(&count))
        .unwrap_or_else(|| panic!("no {count} in\n{body}"))
        .parse()
        .unwrap();
    assert!(
        (350.0..=450.0).contains(&n),
        "{n} reads traced of about 400"
    );
    let inf = body
        .lines()
        .filter(|l| l.starts_with("diskdash_disk_device_time_seconds_bucket{"))
        .find(|l| l.contains("le=\"+Inf\"") && l.contains(&format!("device=\"{disk}\"")))
        .unwrap_or_else(|| panic!("no +Inf bucket in\n{body}"));
    assert!(inf.ends_with(&format!(" {n}")), "{inf}");
    let fio_pid = fio.id();
    let ios =
        format!("diskdash_process_io_total{{device=\"{disk}\",pid=\"{fio_pid}\",comm=\"fio\"}} ");
    let by_fio: f64 = body
        .lines()
        .find_map(|l| l.strip_prefix(&ios))
        .unwrap_or_else(|| panic!("no {ios} in\n{body}"))
        .parse()
        .unwrap();
    assert!((by_fio - n).abs() <= n * 0.01, "fio {by_fio} of {n}");
    let status = server.stop(nix::sys::signal::Signal::SIGTERM);
    assert!(status.success());
}

#[test]
#[ignore = "needs root, tracefs and fio"]
fn iostat_prints_the_latency_percentiles_after_sysstats_columns() {
    require_root();
    let _turn = crate::trace::tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    let disk = dev.name();
    let mut fio = fio_at(dev.path(), "watched", 400, 4);
    let out = Command::new(BIN)
        .args(["iostat", "-dx", "-y", "--trace", &disk, "1", "2"])
        .output()
        .unwrap();
    fio.wait().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let header = text.lines().find(|l| l.starts_with("Device")).unwrap();
    assert!(
        header.ends_with("%util    r_p50    r_p99    w_p50    w_p99"),
        "{header}"
    );
    let line = text.lines().rfind(|l| l.starts_with(&disk)).unwrap();
    let cells: Vec<&str> = line.split_whitespace().collect();
    let r_s: f64 = cells[1].parse().unwrap();
    assert!(r_s > 300.0, "{line}");
    let (p50, p99): (f64, f64) = (cells[23].parse().unwrap(), cells[24].parse().unwrap());
    assert!(p50 >= 0.0 && p99 >= p50, "{line}");
    assert_eq!(&cells[25..], ["-", "-"], "no writes: {line}");
}

/// `setpriv` as nobody: what a user without root runs.
const NOBODY: [&str; 4] = [
    "setpriv",
    "--reuid=65534",
    "--regid=65534",
    "--clear-groups",
];

/// The one note of a run that could not trace, from its lines: exactly one names `--trace`,
/// and it says the run goes on.
fn assert_one_note(lines: &str) {
    let notes: Vec<&str> = lines.lines().filter(|l| l.contains("--trace")).collect();
    assert_eq!(notes.len(), 1, "{lines}");
    assert!(
        notes[0].contains("--trace: ") && notes[0].contains("goes on untraced"),
        "{notes:?}"
    );
}

/// A scrape's series without their values (`name{labels}`), and its families' `# TYPE`
/// lines.
fn series_of(body: &str) -> (Vec<String>, Vec<String>) {
    let families = body
        .lines()
        .filter(|l| l.starts_with("# TYPE "))
        .map(str::to_string)
        .collect();
    let mut series: Vec<String> = body
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| l.rsplit_once(' ').map(|(key, _)| key.to_string()))
        .collect();
    series.sort();
    (series, families)
}

/// `serve --trace` as a user without tracefs: one note on stderr, the same exit, and the
/// scrape serves every family and series it serves without `--trace` (none of the traced
/// ones, not even empty).
#[test]
#[ignore = "needs root"]
fn serve_without_the_permission_notes_once_and_serves_every_other_family() {
    require_root();
    let scrape = |args: &[&str]| {
        let server = crate::serve::Server::start_as(&NOBODY, args);
        let body = server.get("/metrics", Some(crate::serve::OPENMETRICS)).body;
        let (status, stderr) = server.stop_with_stderr(nix::sys::signal::Signal::SIGTERM);
        (body, status, stderr)
    };
    let (plain, plain_status, plain_err) = scrape(&[]);
    let (traced, traced_status, traced_err) = scrape(&["--trace"]);
    assert_eq!(traced_status.code(), plain_status.code(), "{traced_err}");
    assert_eq!(plain_err, "", "without --trace, nothing on stderr");
    assert_one_note(&traced_err);
    assert_eq!(traced_err.lines().count(), 1, "{traced_err}");
    let (plain_series, plain_families) = series_of(&plain);
    let (traced_series, traced_families) = series_of(&traced);
    assert!(
        plain_families
            .iter()
            .any(|f| f.contains("node_disk_reads_completed")),
        "{plain}"
    );
    assert_eq!(traced_families, plain_families);
    assert_eq!(traced_series, plain_series);
    assert!(
        !traced.contains("diskdash_disk_device_time_seconds"),
        "{traced}"
    );
}

/// The monitor with `--trace` as a user without tracefs: one note on screen, the same exit
/// (0 on `q`), nothing on stderr, no traced columns, and a recording with the same keys as
/// without `--trace` (no `block_trace` of a tracer that never ran).
#[test]
#[ignore = "needs root and tmux"]
fn the_monitor_without_the_permission_notes_once_and_records_as_untraced() {
    tmux::require();
    require_root();
    let run = |name: &str, trace: bool| {
        let mut cmd = format!("chmod 777 .; {} '{BIN}'", NOBODY.join(" "));
        cmd.push_str(" --interval 200ms --record rec.jsonl");
        if trace {
            cmd.push_str(" --trace");
        }
        let t = Tmux::start_shell(
            name,
            &format!("{cmd} 2>stderr; echo $? > status; sleep 600"),
            160,
            50,
        );
        t.wait_for("the monitor", WAIT, |s| s.contains("disks, sorted by"));
        let record = t.path("rec.jsonl");
        let deadline = std::time::Instant::now() + WAIT;
        let samples = || {
            std::fs::read_to_string(&record)
                .map(|text| text.lines().count())
                .unwrap_or(0)
        };
        while samples() < 4 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        let screen = t.capture();
        t.send(&["q"]);
        let status = t.exit_status(WAIT);
        t.assert_restored();
        let lines: Vec<Value> = std::fs::read_to_string(&record)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (screen, status, t.stderr(), lines)
    };
    let (plain_screen, plain_status, plain_err, plain_rec) = run("monitor-untraced", false);
    let (screen, status, err, rec) = run("monitor-trace-denied", true);
    assert_eq!(status, plain_status, "stderr: {err}");
    assert_eq!((plain_err.as_str(), err.as_str()), ("", ""));
    assert!(!plain_screen.contains("--trace"), "{plain_screen}");
    assert_one_note(&screen);
    assert!(!screen.contains("dev_p99"), "{screen}");
    assert!(!screen.contains("processes on"), "{screen}");
    // The same keys in the header and in each disk of each sample.
    let keys = |v: &Value| -> Vec<String> {
        let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    assert!(rec.len() >= 4 && plain_rec.len() >= 4, "{rec:?}");
    assert_eq!(keys(&rec[0]), keys(&plain_rec[0]), "the header");
    let disk_keys = |lines: &[Value]| -> Vec<Vec<String>> {
        let mut all: Vec<Vec<String>> = lines[1..]
            .iter()
            .flat_map(|s| s["disks"].as_array().unwrap().iter().map(keys))
            .collect();
        all.sort();
        all.dedup();
        all
    };
    assert_eq!(disk_keys(&rec), disk_keys(&plain_rec));
    for line in &rec {
        crate::support::record::assert_valid_monitor_line(line);
        assert!(!line.to_string().contains("block_trace"), "{line}");
    }
}

/// fio reading and writing `path` at random, half and half, as fast as it goes (QD8).
fn fio_randrw(path: &Path, name: &str, seconds: u32) -> Child {
    fio(
        path,
        name,
        seconds,
        &["--rw=randrw", "--ioengine=io_uring", "--iodepth=8"],
    )
}

/// The check per interval and direction, on a loop device while fio reads and writes
/// it: every monitor interval of at least 1,000 I/Os in a direction has the tracer's requests
/// equal to diskstats' completed I/Os within 1%, and `whole`'s mean equal to the interval's
/// await within 5% (the take splits the tracer's events where /proc/diskstats was read:
/// before, a take made after the sample put up to 5% of a busy interval's requests in the
/// wrong one). The root disk is not checked here: other tests share it, and trace.md says
/// what was measured there.
#[test]
#[ignore = "needs root, tracefs, tmux and fio"]
fn every_busy_interval_agrees_with_diskstats_per_direction() {
    require();
    let _turn = crate::trace::tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    let disk = dev.name();
    let fio = fio_randrw(dev.path(), "loop", 8);
    let record = dir.path().join("rec.jsonl");
    let args = [
        "--trace",
        "--interval",
        "500ms",
        "--record",
        record.to_str().unwrap(),
    ];
    let t = Tmux::start("monitor-trace-intervals", &args, &[], 160, 60);
    t.wait_for("the monitor", WAIT, |s| s.contains("disks, sorted by"));
    let enough = || {
        let samples = block_trace::traced_disk_samples(&record, &disk);
        block_trace::busy_in(&samples, "read").len() >= 3
            && block_trace::busy_in(&samples, "write").len() >= 3
    };
    let deadline = std::time::Instant::now() + WAIT;
    while !enough() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    end(fio);
    block_trace::assert_busy_intervals_agree(&record, &disk, false);
}
