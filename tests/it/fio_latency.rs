//! fio's latency target (`latency_target`, `latency_window`, `latency_percentile`,
//! `latency_run`): the search for the deepest queue within a latency, run for real on a small
//! file, its result in the JSON keys fio gives it; fio's example job file taken as written.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::*;

/// fio's examples/latency-profile.fio, its device pointed at `{FILE}`.
const PROFILE: &str = "# Test job that demonstrates how to use the latency target\n\
# profiling. Fio will find the queue depth between 1..128\n\
# that fits within the latency constraints of this 4k random\n\
# read workload.\n\
\n\
[global]\n\
bs=4k\n\
rw=randread\n\
random_generator=lfsr\n\
direct=1\n\
ioengine=libaio\n\
iodepth=128\n\
# Set max acceptable latency to 500msec\n\
latency_target=500000\n\
# profile over a 5s window\n\
latency_window=5000000\n\
# 99.9% of IOs must be below the target\n\
latency_percentile=99.9\n\
\n\
[device]\n\
filename={FILE}\n";

/// A small random-read job at iodepth 8 with the given target, judged over 50 ms windows;
/// `runtime_s` at most.
fn job(dir: &Path, target: &str, percentile: &str, runtime_s: u32) -> std::path::PathBuf {
    let file = dir.join("data");
    std::fs::File::create(&file)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    let text = format!(
        "[lat]\nfilename={}\nsize=16m\nbs=4k\nrw=randread\nioengine=libaio\niodepth=8\n\
         latency_target={target}\nlatency_window=50ms\nlatency_percentile={percentile}\n\
         runtime={runtime_s}\ntime_based\n",
        file.display()
    );
    let path = dir.join("lat.fio");
    std::fs::write(&path, text).unwrap();
    path
}

fn diskdash(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("fio")
        .args(args)
        .arg("--no-tui")
        .current_dir(dir)
        .output()
        .expect("diskdash runs")
}

/// The first job's entry of a run's fio JSON.
fn json_job(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    json["jobs"][0].clone()
}

#[test]
fn fios_latency_profile_example_parses_with_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("device");
    std::fs::File::create(&file)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    let path = dir.path().join("latency-profile.fio");
    std::fs::write(&path, PROFILE.replace("{FILE}", file.to_str().unwrap())).unwrap();
    let out = diskdash(dir.path(), &["--parse-only", path.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("iodepth=128"), "{stdout}");
    assert!(
        stdout.contains(
            "latency_target=500000us latency_window=5000000us latency_percentile=99.9 \
             latency_run=0"
        ),
        "{stdout}"
    );
}

#[test]
fn a_generous_target_settles_at_the_iodepth_and_ends_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let path = job(dir.path(), "10s", "99.9", 3);
    let out = diskdash(
        dir.path(),
        &["--output-format=json", path.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let job = json_job(&out);
    assert_eq!(job["latency_depth"], 8, "{job}");
    assert_eq!(job["latency_target"], 10_000_000_000_u64);
    assert_eq!(job["latency_window"], 50_000);
    assert_eq!(job["latency_percentile"], 99.9);
    // Depths 1, 2, 4, 8 and a last window at 8: the job ends long before its 3 s.
    let runtime_ms = job["job_runtime"].as_u64().unwrap();
    assert!(runtime_ms < 2000, "ran {runtime_ms} ms");
    assert!(job["read"]["total_ios"].as_u64().unwrap() > 0);
}

#[test]
fn an_impossible_target_settles_at_depth_one_for_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = job(dir.path(), "1", "99.9", 1);
    let out = diskdash(
        dir.path(),
        &["--output-format=json", path.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let job = json_job(&out);
    assert_eq!(job["latency_depth"], 1, "{job}");
    assert_eq!(job["latency_target"], 1000);
    assert!(job["job_runtime"].as_u64().unwrap() >= 900, "{job}");
}

#[test]
fn a_missed_hundredth_percentile_target_at_depth_one_fails_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let path = job(dir.path(), "1", "100", 1);
    let out = diskdash(dir.path(), &[path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("at depth 1, over latency_target 1000 ns"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("latency   : target=1000, window=50000, percentile=100.00%, depth=1"),
        "{stdout}"
    );
}

#[test]
fn a_window_without_a_target_is_refused_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.fio");
    std::fs::write(&path, "[a]\nsize=1m\nlatency_window=5s\n").unwrap();
    let out = crate::support::inproc::fio_parse_only(
        dir.path(),
        &["--parse-only", path.to_str().unwrap()],
    );
    assert_usage_error(&out);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "w.fio:3: latency_window needs latency_target (the latency to search within)"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// fio itself on the same jobs: the same keys and values, the same direction of the result.
#[test]
#[ignore = "needs fio"]
fn fio_reports_the_same_keys_and_direction() {
    let dir = tempfile::tempdir().unwrap();
    for (target, depth) in [("10s", 8), ("1", 1)] {
        let path = job(dir.path(), target, "99.9", 1);
        let ours = json_job(&diskdash(
            dir.path(),
            &["--output-format=json", path.to_str().unwrap()],
        ));
        let fio = Command::new("fio")
            .args(["--output-format=json", path.to_str().unwrap()])
            .current_dir(dir.path())
            .output()
            .expect("fio runs");
        assert!(
            fio.status.success(),
            "{}",
            String::from_utf8_lossy(&fio.stderr)
        );
        let theirs = json_job(&fio);
        for key in [
            "latency_depth",
            "latency_target",
            "latency_percentile",
            "latency_window",
        ] {
            assert_eq!(ours[key], theirs[key], "{key} for latency_target={target}");
        }
        assert_eq!(ours["latency_depth"], depth, "latency_target={target}");
    }
}
