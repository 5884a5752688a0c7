//! `--trace` (the block-layer tracer, assets/doc/trace.md) end to end: a traced bench on a loop
//! device agrees with /proc/diskstats, a killed run's tracefs instance is removed by the next
//! start, two traced runs leave each other alone, and without the permission or without
//! tracefs the run goes on with one note, its lines and record fields as without `--trace`.
//! Root and tracefs only (CI runs them).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::record::*;
use crate::support::*;

const INSTANCES: &str = "/sys/kernel/tracing/instances";

pub use crate::support::tracefs_turn;

/// A loop device over `dir/disk.img`, 64 MiB of data, that only this test uses.
fn loop_device(dir: &Path, name: &str) -> LoopDevice {
    let image = dir.join(name);
    std::fs::write(&image, pattern(64 << 20, 1)).unwrap();
    LoopDevice::attach_unique(&image)
}

/// diskdash's instances in tracefs now.
fn instances() -> Vec<String> {
    std::fs::read_dir(INSTANCES)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("diskdash-"))
                .collect()
        })
        .unwrap_or_default()
}

fn mean_of(dir: &Value, part: &str) -> f64 {
    dir[part]["mean"].as_f64().unwrap()
}

/// The record's traced disk agrees with diskstats over the same window and sits below the app.
fn assert_agrees_with_diskstats(record: &Value) {
    let device = &record["device"];
    let trace = &device["block_trace"];
    assert_eq!(trace["scope"], "request", "{trace}");
    let read = &trace["read"];
    let requests = read["requests"].as_f64().unwrap();
    let completed = device["reconciliation"]["device_read_ios"]
        .as_f64()
        .unwrap();
    assert!(completed >= 1000.0, "too few I/Os to judge: {completed}");
    assert!(
        (requests - completed).abs() <= completed * 0.01,
        "traced {requests} requests, diskstats completed {completed}"
    );
    let await_ns = device["iostat"]["r_await"].as_f64().unwrap() * 1e6;
    let whole = mean_of(read, "whole");
    assert!(
        (whole - await_ns).abs() <= await_ns * 0.05 + 10_000.0,
        "whole mean {whole} ns, r_await {await_ns} ns"
    );
    let app = &record["read"]["lat_ns"];
    assert!(app["mean"].as_f64().unwrap() >= mean_of(read, "device"));
    let p50 = |lat: &Value| lat["percentile"]["50.000000"].as_u64().unwrap();
    assert!(
        p50(app) >= p50(&read["device"]),
        "app {app} device {}",
        read["device"]
    );
    assert_eq!(trace["lost_events"], 0, "{trace}");
    let me = &trace["by_process"][0];
    assert_eq!(me["comm"], "diskdash", "{trace}");
    assert!(me["ios"].as_f64().unwrap() >= requests * 0.99);
    let job = &record["segments"][0]["jobs"][0];
    assert!(job["cpu_wait_ns_per_io"].as_f64().unwrap() >= 0.0, "{job}");
}

#[test]
#[ignore = "needs root and tracefs"]
fn a_traced_run_on_a_loop_device_agrees_with_diskstats() {
    require_root();
    let _turn = tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path(), "disk.img");
    let before = instances();
    let (out, record) = bench_ok(
        dir.path(),
        &args(
            dev.path(),
            "--rw randread --bs 4k --iodepth 8 --runtime 500ms --trace",
        ),
    );
    assert_agrees_with_diskstats(&record);
    assert_stdout_has(&out, "mean: app ");
    // Plain --trace leaves the bios out: the wait for a request is said not to be measured.
    assert_eq!(
        record["device"]["block_trace"]["wait_request_traced"],
        false
    );
    assert_stdout_has(&out, "waiting for a request not measured (--trace=full)");
    assert_eq!(instances(), before, "the run's instance is gone");
}

/// After a warm-up the measured window opens mid-run: the tracer's take is split where the
/// devices' diskstats were read, so both count the same requests (before, the take ended when
/// the reader woke, and up to 18% of the window's requests fell before it).
#[test]
#[ignore = "needs root and tracefs"]
fn a_traced_run_after_a_warm_up_agrees_with_diskstats() {
    require_root();
    let _turn = tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path(), "disk.img");
    for _ in 0..2 {
        let (_, record) = bench_ok(
            dir.path(),
            &args(
                dev.path(),
                "--rw randread --bs 4k --iodepth 32 --ramp 300ms --runtime 500ms --trace",
            ),
        );
        assert_agrees_with_diskstats(&record);
    }
}

#[test]
#[ignore = "needs root and tracefs"]
fn trace_full_measures_each_bios_wait_for_a_request() {
    require_root();
    let _turn = tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path(), "disk.img");
    let (out, record) = bench_ok(
        dir.path(),
        &args(
            dev.path(),
            "--rw randread --bs 4k --iodepth 8 --runtime 500ms --trace=full",
        ),
    );
    let trace = &record["device"]["block_trace"];
    assert!(trace.get("wait_request_traced").is_none(), "{trace}");
    let read = &trace["read"];
    let waited = read["wait_request"]["N"].as_f64().unwrap();
    let requests = read["requests"].as_f64().unwrap();
    assert!(
        waited >= requests * 0.99,
        "{waited} bios got a request, {requests} requests"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("not measured"));
}

#[test]
#[ignore = "needs root and tracefs"]
fn a_killed_run_leaves_its_instance_for_the_next_start_to_remove() {
    require_root();
    let _turn = tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path(), "disk.img");
    let mut child = bench_cmd(
        dir.path(),
        &args(dev.path(), "--rw randread --runtime 30s --no-tui --trace"),
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let name = format!("diskdash-{}-", child.id());
    let deadline = Instant::now() + Duration::from_secs(20);
    while !instances().iter().any(|n| n.starts_with(&name)) {
        assert!(Instant::now() < deadline, "no instance {name}* appeared");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        instances().iter().any(|n| n.starts_with(&name)),
        "SIGKILL left it"
    );
    let (out, record) = bench_ok(
        dir.path(),
        &args(dev.path(), "--rw randread --runtime 300ms --trace"),
    );
    assert!(
        !instances().iter().any(|n| n.starts_with(&name)),
        "the next start removed {name}*"
    );
    assert_stderr_has(&out, &format!("--trace: removed {name}"));
    assert!(record["device"]["block_trace"].is_object());
    // The global buffer was never touched.
    let global = std::fs::read_to_string("/sys/kernel/tracing/events/block/enable").unwrap();
    assert_eq!(global.trim(), "0");
}

#[test]
#[ignore = "needs root and tracefs"]
fn two_traced_runs_at_once_leave_each_other_alone() {
    require_root();
    let _turn = tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let dev_a = loop_device(dir.path(), "a.img");
    let dev_b = loop_device(dir.path(), "b.img");
    let start = |at: &Path, dev: &LoopDevice| {
        bench_cmd(
            at,
            &[
                args(
                    dev.path(),
                    "--rw randread --bs 4k --iodepth 8 --runtime 800ms --trace",
                ),
                vec!["--json", RECORD],
            ]
            .concat(),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
    };
    let (run_a, run_b) = (start(&a, &dev_a), start(&b, &dev_b));
    for (run, at) in [(run_a, &a), (run_b, &b)] {
        let out = run.wait_with_output().unwrap();
        assert_success(&out);
        let record = record_in(at);
        assert_agrees_with_diskstats(&record);
    }
}

/// Every key path of `v` (`jobs[].read.lat_ns.mean`), an array's elements together.
fn key_paths(v: &Value, at: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        Value::Object(map) => {
            for (key, value) in map {
                let path = format!("{at}.{key}");
                out.insert(path.clone());
                key_paths(value, &path, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                key_paths(item, &format!("{at}[]"), out);
            }
        }
        _ => {}
    }
}

/// A bench run made `how` (a wrapper and its arguments before diskdash's), with `--trace`
/// or not, in `dir`: its output and record.
fn bench_as(dir: &Path, how: &[&str], trace: bool) -> (std::process::Output, Value) {
    let json = "r.json";
    let mut cmd = Command::new(how[0]);
    cmd.args(&how[1..])
        .args([
            BIN,
            "bench",
            "--size",
            "4M",
            "--runtime",
            "300ms",
            "--no-tui",
        ])
        .args(["--json", json])
        .current_dir(dir);
    if trace {
        cmd.arg("--trace");
    }
    let out = cmd.output().unwrap();
    let record = read_json(&dir.join(json));
    (out, record)
}

/// `--trace` refused: one note, the exit status of the same run without it, the same lines
/// (their numbers aside) and the same record fields.
fn assert_untraced_as_without(dir: &Path, how: &[&str]) {
    let (plain, plain_rec) = bench_as(dir, how, false);
    let (traced, rec) = bench_as(dir, how, true);
    assert_eq!(
        traced.status.code(),
        plain.status.code(),
        "{}",
        stderr(&traced)
    );
    let notes: Vec<_> = stderr(&traced)
        .lines()
        .filter(|l| l.contains("--trace"))
        .map(str::to_string)
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("the run goes on untraced"), "{notes:?}");
    // The same sections in the same order (a section's own lines follow what the disk did
    // meanwhile: a discard by someone else adds one, so they are not compared).
    let sections = |text: String| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with("   "))
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(sections(stdout(&traced)), sections(stdout(&plain)));
    // Nothing of the tracer's in the record, and its sections as without --trace.
    let mut paths = std::collections::BTreeSet::new();
    key_paths(&rec, "", &mut paths);
    for traced_only in ["block_trace", "tracer", "cpu_wait", "unexplained"] {
        assert!(
            !paths.iter().any(|p| p.contains(traced_only)),
            "{traced_only} in {paths:?}"
        );
    }
    let top = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(top(&rec), top(&plain_rec));
    // The one value that says it was asked for: the command line.
    assert_ne!(
        rec["machine"]["command_line"],
        plain_rec["machine"]["command_line"]
    );
}

#[test]
#[ignore = "needs root and tracefs"]
fn without_the_permission_one_note_and_the_same_exit() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let how = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
    ];
    assert_untraced_as_without(dir.path(), &how);
}

/// No tracefs at all: in a mount namespace where /sys/kernel is an empty tmpfs, neither
/// tracefs path is there and mounting one fails.
#[test]
#[ignore = "needs root"]
fn without_tracefs_one_note_and_the_same_exit() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let how = [
        "unshare",
        "-m",
        "sh",
        "-c",
        "mount -t tmpfs none /sys/kernel && exec \"$0\" \"$@\"",
    ];
    assert_untraced_as_without(dir.path(), &how);
    let (traced, _) = bench_as(dir.path(), &how, true);
    assert!(
        stderr(&traced).contains("tracefs is not mounted"),
        "{}",
        stderr(&traced)
    );
}

/// The top-level `--trace` is the monitor dashboard's: before a subcommand it would trace
/// nothing, so it is refused with the fix (after the subcommand, where it has one).
#[test]
fn a_top_level_trace_before_a_subcommand_is_a_usage_error_naming_the_fix() {
    let err = crate::support::inproc::usage_error(&["--trace", "bench", "--size", "4M"]);
    assert_eq!(
        err,
        "error: --trace before the subcommand traces the monitor dashboard, which does not \
         run; put it after: diskdash bench --trace ...\n"
    );
    let err = crate::support::inproc::usage_error(&["--trace", "show", "run.json"]);
    assert!(err.ends_with("; diskdash show has no --trace\n"), "{err}");
    // Where it belongs it is no error (the monitor alone runs with it; `bench --trace` below).
    let out = Command::new(BIN)
        .args(["--trace", "--help"])
        .output()
        .unwrap();
    assert_success(&out);
}

/// Each step's traced disk against diskstats over the same window: the requests traced are
/// the I/Os the disk completed, within 1% (or 3, for a short step's few).
fn assert_steps_agree_with_diskstats(record: &Value) {
    let steps = record["segments"].as_array().unwrap();
    assert!(!steps.is_empty(), "{record}");
    for step in steps {
        let device = &step["devices"][0];
        let trace = &device["block_trace"];
        assert_eq!(trace["scope"], "request", "{trace}");
        assert_eq!(trace["lost_events"], 0, "{trace}");
        let requests = trace["requests"].as_f64().unwrap();
        let rec = &device["reconciliation"];
        let completed =
            rec["device_read_ios"].as_f64().unwrap() + rec["device_write_ios"].as_f64().unwrap();
        assert!(completed > 0.0, "{step}");
        assert!(
            (requests - completed).abs() <= (completed * 0.01).max(3.0),
            "point {}: traced {requests} requests, diskstats completed {completed}",
            step["point"]
        );
    }
}

#[test]
#[ignore = "needs root and tracefs"]
fn sweep_trace_gives_each_point_the_block_trace_of_its_window() {
    require_root();
    let _turn = tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path(), "disk.img");
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .arg("sweep")
        .arg(dev.path())
        .args(["--rw", "randread", "--bs", "4k", "--iodepth", "1,8"])
        .args(["--runtime", "500ms", "--ramp", "0s", "--trace", "--no-tui"])
        .args(["--json", "r.json"])
        .output()
        .unwrap();
    assert_success(&out);
    let record = read_json(&dir.path().join("r.json"));
    assert_eq!(record["segments"].as_array().unwrap().len(), 2);
    assert_steps_agree_with_diskstats(&record);
}

/// A paced traced run (`--rate-iops`): the workers' CPU wait includes their wake-ups after
/// each paced sleep, with nothing in flight, so it is recorded as such and said after the
/// mean's sum, not in it; `unexplained` is the app's mean less the block layer's parts.
#[test]
#[ignore = "needs root and tracefs"]
fn a_paced_runs_cpu_wait_is_said_apart_from_the_sum() {
    require_root();
    let _turn = tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path(), "disk.img");
    let (out, record) = bench_ok(
        dir.path(),
        &args(
            dev.path(),
            "--rw randread --bs 4k --iodepth 1 --rate-iops 500 --runtime 1s --trace",
        ),
    );
    let job = &record["segments"][0]["jobs"][0];
    assert_eq!(job["cpu_wait_incl_pacing"], true, "{job}");
    assert!(job["cpu_wait_ns_per_io"].as_f64().unwrap() >= 0.0, "{job}");
    let read = &record["device"]["block_trace"]["read"];
    let app = record["read"]["lat_ns"]["mean"].as_f64().unwrap();
    let block = mean_of(read, "device") + mean_of(read, "scheduler");
    let unexplained = job["unexplained_ns_per_io"].as_f64().unwrap();
    // The block layer's parts over every direction are the read's here (a read-only job).
    assert!(
        (unexplained - (app - block)).abs() <= 1_000.0,
        "unexplained {unexplained} ns, app {app} less block {block}"
    );
    assert_stdout_has(&out, "incl. pacing wake-ups: not in the sum)");
    assert!(
        !stdout(&out).contains("+ waiting for a CPU"),
        "{}",
        stdout(&out)
    );
}

/// `mark --trace`: each step (a loop of a test) carries the block trace of its own window,
/// agreeing with diskstats over it, below the app's latency, and the I/O is diskdash's.
#[test]
#[ignore = "needs root and tracefs"]
fn mark_trace_gives_each_step_the_block_trace_of_its_window() {
    require_root();
    let _turn = tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path(), "disk.img");
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .arg("mark")
        .arg(dev.path())
        .args(["--profile", "demo", "--mode", "read", "--size", "16M"])
        .args(["--runtime", "300ms", "--loops", "2", "--pause", "0"])
        .args(["--trace", "--no-tui", "--json", "r.json"])
        .output()
        .unwrap();
    assert_success(&out);
    assert!(!stderr(&out).contains("--trace:"), "{}", stderr(&out));
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "one step per loop");
    assert_steps_agree_with_diskstats(&record);
    for step in steps {
        let trace = &step["devices"][0]["block_trace"];
        let read = &trace["read"];
        assert!(read["requests"].as_u64().unwrap() > 0, "{trace}");
        let app = step["read"]["lat_ns"]["mean"].as_f64().unwrap();
        let device = mean_of(read, "device");
        assert!(app >= device, "app mean {app} ns, device mean {device} ns");
        assert_eq!(trace["by_process"][0]["comm"], "diskdash", "{trace}");
        let job = &step["jobs"][0];
        assert!(job["cpu_wait_ns_per_io"].as_f64().unwrap() >= 0.0, "{job}");
        assert!(
            job.get("cpu_wait_incl_pacing").is_none(),
            "not paced: {job}"
        );
    }
}

/// `iostat --trace` as a user without tracefs: one note, the same exit status, and sysstat's
/// columns alone, as without `--trace` (no `-` columns of a tracer that never ran).
#[test]
#[ignore = "needs root and tracefs"]
fn iostat_without_the_permission_notes_once_and_keeps_sysstats_columns() {
    require_root();
    let run = |trace: bool| {
        let mut cmd = Command::new("setpriv");
        cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN])
            .args(["iostat", "-d", "-x"]);
        if trace {
            cmd.arg("--trace");
        }
        cmd.args(["1", "2"]).output().unwrap()
    };
    let (plain, traced) = (run(false), run(true));
    assert_eq!(
        traced.status.code(),
        plain.status.code(),
        "{}",
        stderr(&traced)
    );
    let notes: Vec<String> = stderr(&traced).lines().map(str::to_string).collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("--trace: ") && notes[0].contains("the run goes on untraced"));
    let headers = |out: &std::process::Output| -> Vec<String> {
        stdout(out)
            .lines()
            .filter(|l| l.starts_with("Device"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(headers(&traced), headers(&plain));
    assert_eq!(headers(&plain).len(), 2, "{}", stdout(&plain));
    assert!(!headers(&traced)[0].contains("r_p50"));
}
