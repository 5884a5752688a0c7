//! `bench --trace` in a real terminal: the dashboard's trace band takes the app's mean apart
//! live (the device, the scheduler, the workers' wait for a CPU measured from their
//! `schedstat`, and the rest named `unexplained`) with the device's and the whole request's
//! percentiles beside the app's; the record's step window is what it was. Root, tmux and
//! tracefs only (CI runs them).

use std::time::Duration;

use crate::support::tmux::{self, Tmux};

const WAIT: Duration = Duration::from_secs(40);

/// A loop device over `dir/disk.img`, 64 MiB of data, that only this test uses.
fn loop_device(dir: &std::path::Path) -> crate::support::LoopDevice {
    let image = dir.join("disk.img");
    std::fs::write(&image, crate::support::pattern(64 << 20, 1)).unwrap();
    crate::support::LoopDevice::attach_unique(&image)
}

/// The screen's words on one line: the band breaks its lines between parts.
fn flat(screen: &str) -> String {
    screen
        .lines()
        .map(|l| l.trim_matches(|c: char| c == '│' || c.is_whitespace()))
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The latency after `label` in `text` (`3.62 ms`, `373.6 us`, `0 ns`), ns; `None` where a
/// dash or words stand instead.
fn latency_after(text: &str, label: &str) -> Option<f64> {
    let rest = &text[text.find(label)? + label.len()..];
    let mut words = rest.split_whitespace();
    let value: f64 = words.next()?.parse().ok()?;
    let scale = match words.next()? {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    };
    Some(value * scale)
}

/// The band's decomposition on `screen`: app, device, scheduler, CPU wait, unexplained (ns).
fn decomposition(screen: &str) -> Option<[Option<f64>; 5]> {
    let text = flat(screen);
    let at = text.find("mean: app ")?;
    let line = &text[at..];
    Some([
        latency_after(line, "mean: app "),
        latency_after(line, "= device "),
        latency_after(line, "+ scheduler "),
        latency_after(line, "+ waiting for a CPU "),
        latency_after(line, "+ unexplained "),
    ])
}

/// A traced run on `dev` with `job` in a 160x50 dashboard, to its end; the screen then and
/// the record.
fn traced_run(
    name: &str,
    dev: &crate::support::LoopDevice,
    job: &str,
    live: impl Fn(&str) -> bool,
) -> (String, String, serde_json::Value) {
    let path = dev.path().to_string_lossy().into_owned();
    let mut args = vec!["bench", path.as_str()];
    args.extend(job.split_whitespace());
    args.extend(["--trace", "--json", "run.json"]);
    let t = Tmux::start(name, &args, &[], 160, 50);
    // An interval whose events all came in (a loaded machine's reader can fall behind; the
    // band then says so and its numbers are not judged).
    let running = t.wait_for("the trace band with live numbers", WAIT, |s| {
        s.contains("RUNNING") && live(s) && !flat(s).contains("events lost")
    });
    t.wait_for("the run's end", WAIT, |s| s.contains("FINISHED"));
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    let record = crate::support::read_json(&t.path("run.json"));
    (running, t.stderr(), record)
}

#[test]
#[ignore = "needs root, tmux and tracefs"]
fn a_traced_bench_takes_the_mean_apart_live_and_keeps_the_steps_record() {
    crate::support::require_root();
    tmux::require();
    let _turn = crate::support::tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    let name = dev.name();
    let (screen, stderr, record) = traced_run(
        "bench-trace",
        &dev,
        "--rw randread --bs 4k --iodepth 8 --runtime 3s",
        |s| decomposition(s).is_some_and(|d| d[0].is_some() && d[1].is_some()),
    );
    let text = flat(&screen);
    // The window named is the take's own span: an interval, give or take the session's poll.
    assert!(
        text.contains(&format!("{name}, last 1")) && text.contains(": mean: app "),
        "{screen}\n{stderr}"
    );
    for row in ["p50 p99 p99.9, last 1", " app ", " device ", " whole "] {
        assert!(text.contains(row), "no {row:?} in:\n{screen}");
    }
    let [app, device, ..] = decomposition(&screen).unwrap();
    assert!(app.unwrap() >= device.unwrap(), "{screen}");
    // The record's trace is the measured window's, as without the band: diskstats' count.
    let trace = &record["device"]["block_trace"];
    let requests = trace["read"]["requests"].as_f64().unwrap();
    let completed = record["device"]["reconciliation"]["device_read_ios"]
        .as_f64()
        .unwrap();
    assert!(completed >= 1000.0, "too few I/Os to judge: {completed}");
    assert!(
        (requests - completed).abs() <= completed * 0.01,
        "traced {requests} requests, diskstats completed {completed}"
    );
    assert_eq!(trace["by_process"][0]["comm"], "diskdash", "{trace}");
}

/// The case: 16 jobs x QD64 on a loop device (on a machine of few CPUs most of the
/// app's time is above the block layer). The band shows the workers' wait for a CPU as a
/// number of its own, and `unexplained` is what the app's mean leaves after the measured
/// parts (or says they add up to more). The debug build's reader keeps up there since it
/// runs above the jobs' priority and decodes with plain indexing (assets/doc/trace.md).
#[test]
#[ignore = "needs root, tmux and tracefs"]
fn sixteen_jobs_at_qd64_show_the_cpu_wait_measured_and_the_rest_unexplained() {
    crate::support::require_root();
    tmux::require();
    let _turn = crate::support::tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    let (screen, stderr, record) = traced_run(
        "bench-trace-16x64",
        &dev,
        // 4 s: on a loaded machine the first interval (the 16 workers' start with it) can
        // close only at the end of a 2 s run, leaving no live band to judge.
        "--rw randread --bs 4k --iodepth 64 --numjobs 16 --runtime 4s",
        |s| decomposition(s).is_some_and(|d| d[3].is_some()),
    );
    let [app, device, scheduler, cpu, unexplained] = decomposition(&screen).unwrap();
    let (app, device, cpu) = (app.unwrap(), device.unwrap(), cpu.unwrap());
    assert!(cpu > 0.0, "the CPU wait is measured: {screen}\n{stderr}");
    let text = flat(&screen);
    // The app's time holds the device's: what is left is a number, and the parts add up to
    // the app's mean (to the shown digits, three significant ones each).
    let rest = unexplained.unwrap_or_else(|| panic!("no unexplained time: {text}"));
    let sum = device + scheduler.unwrap_or(0.0) + cpu + rest;
    assert!(
        (sum - app).abs() <= app * 0.02 + 1_000.0,
        "app {app} != parts {sum}: {text}"
    );
    // The record's per-job numbers are the step's.
    let job = &record["segments"][0]["jobs"][0];
    assert!(job["cpu_wait_ns_per_io"].as_f64().unwrap() > 0.0, "{job}");
}
