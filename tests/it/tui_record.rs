//! The monitor dashboard recording (`diskdash --record`) and a recording replayed
//! (`diskdash show REC.jsonl`), in a real terminal (tmux).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::record::assert_valid_monitor_line;
use crate::support::tmux::{self, Tmux};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(20);

#[test]
#[ignore = "needs tmux"]
fn the_monitor_records_every_sample_while_it_draws() {
    tmux::require();
    let t = Tmux::start(
        "monitor-record",
        &["--record", "r.jsonl", "--interval", "200ms"],
        &[],
        120,
        40,
    );
    // At least three: the count moves on every 200 ms, faster than a busy machine may look.
    let screen = t.wait_for("three samples recorded", WAIT, |s| {
        recorded(s, "r.jsonl").is_some_and(|n| n >= 3)
    });
    assert!(screen.contains("MONITOR"), "{screen}");
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
    let text = std::fs::read_to_string(t.path("r.jsonl")).unwrap();
    let lines: Vec<Value> = crate::support::json_lines(&text);
    for line in &lines {
        assert_valid_monitor_line(line);
    }
    assert_eq!(lines[0]["writer"], "monitor");
    assert_eq!(lines[0]["interval_ns"], 200_000_000);
    let samples = &lines[1..];
    assert!(samples.len() >= 3, "{text}");
    for (i, s) in samples.iter().enumerate() {
        assert_eq!(s["seq"], i as u64 + 1);
        let window_ms = s["window_ns"].as_u64().unwrap() / 1_000_000;
        assert!((150..1000).contains(&window_ms), "window {window_ms} ms");
        // The monitor's disks: whole disks, each with its deltas.
        assert!(!s["disks"].as_array().unwrap().is_empty());
        assert!(s["disks"][0]["delta"]["reads"].is_u64());
    }
}

/// The sample count the header shows for a recording whose path ends in `name`:
/// `rec PATH (N)`.
fn recorded(screen: &str, name: &str) -> Option<u64> {
    let mark = format!("{name} (");
    let rest = &screen[screen.find(&mark)? + mark.len()..];
    rest.split(')').next()?.parse().ok()
}

/// The `elapsed Ns` of the dashboard's header.
fn elapsed_s(screen: &str) -> Option<u64> {
    let rest = &screen[screen.find("elapsed ")? + "elapsed ".len()..];
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[test]
#[ignore = "needs root and tmux"]
fn a_frozen_disk_under_the_recording_does_not_freeze_the_dashboard_nor_lose_samples() {
    tmux::require();
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let (_device, mount) = crate::monitor_record::mounted_ext4(dir.path());
    let record = mount.0.join("r.jsonl");
    let t = Tmux::start(
        "monitor-frozen",
        &["--record", record.to_str().unwrap(), "--interval", "200ms"],
        &[],
        120,
        40,
    );
    t.wait_for("a sample recorded", WAIT, |s| {
        recorded(s, "r.jsonl").is_some_and(|n| n >= 1)
    });
    let started = Instant::now();
    let frozen = crate::monitor_record::Frozen(&mount.0);
    crate::support::run("fsfreeze", &["-f", mount.0.to_str().unwrap()]);
    let screen = t.wait_for("the clock", WAIT, |s| elapsed_s(s).is_some());
    let then = elapsed_s(&screen).unwrap();
    // The screen goes on with new samples while none can be written.
    t.wait_for("two more seconds drawn", WAIT, |s| {
        elapsed_s(s).is_some_and(|now| now >= then + 2)
    });
    let quit = Instant::now();
    t.send(&["q"]);
    // The terminal is back at once; the process waits for the disk to take the queue.
    let start = Instant::now();
    while t.tmux_flags() != "0 1" {
        assert!(start.elapsed() < WAIT, "the terminal was not restored");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert!(!t.path("status").exists(), "exited with samples unwritten");
    frozen.thaw();
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    let ran = quit.duration_since(started).as_secs_f64();
    // Every sample up to `q`, one each 200 ms, none lost to the freeze.
    let text = std::fs::read_to_string(&record).unwrap();
    let lines = crate::support::json_lines(&text);
    let seqs: Vec<u64> = lines[1..]
        .iter()
        .map(|l| l["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert!(
        seqs.len() as f64 >= ran / 0.2 * 0.7,
        "{} samples in {ran:.1} s",
        seqs.len()
    );
}

/// A recording of one disk `vdz`, written by hand: sample `i` (1-based) ends at
/// 08:00:0i UTC and did `100 * i` reads of 4 KiB over its one-second window.
fn sample(i: u64) -> Value {
    let mut iostat = serde_json::Map::new();
    for key in [
        "r/s", "w/s", "d/s", "f/s", "rkB/s", "wkB/s", "dkB/s", "rrqm/s", "wrqm/s", "drqm/s",
        "rrqm", "wrqm", "drqm", "r_await", "w_await", "d_await", "f_await", "rareq-sz", "wareq-sz",
        "dareq-sz", "aqu-sz", "util",
    ] {
        iostat.insert(key.into(), json!(0.0));
    }
    iostat.insert("disk_device".into(), json!("vdz"));
    iostat.insert("r/s".into(), json!(100.0 * i as f64));
    iostat.insert("rkB/s".into(), json!(400.0 * i as f64));
    iostat.insert("rareq-sz".into(), json!(4.0));
    iostat.insert("r_await".into(), json!(0.5));
    iostat.insert("util".into(), json!(10.0 * i as f64));
    let mut delta = serde_json::Map::new();
    for key in [
        "reads_merged",
        "read_ms",
        "writes",
        "writes_merged",
        "sectors_written",
        "write_ms",
        "weighted_io_ms",
        "discards",
        "discards_merged",
        "sectors_discarded",
        "discard_ms",
        "flushes",
        "flush_ms",
    ] {
        delta.insert(key.into(), json!(0));
    }
    delta.insert("reads".into(), json!(100 * i));
    delta.insert("sectors_read".into(), json!(800 * i));
    delta.insert("io_ms".into(), json!(100 * i));
    json!({
        "seq": i,
        "time": format!("2027-01-15T08:00:0{i}.000Z"),
        "unix_ns": (1_800_000_000 + i) * 1_000_000_000,
        "monotonic_ns": (1000 + i) * 1_000_000_000,
        "window_ns": 1_000_000_000u64,
        "disks": [{"name": "vdz", "in_flight": 0, "delta": delta, "iostat": iostat}],
    })
}

fn header() -> Value {
    json!({
        "format": "diskdash-monitor",
        "format_version": 1,
        "diskdash_version": "0.1.0",
        "writer": "monitor",
        "host": {"hostname": "fixture", "kernel": "Linux 6.18.0", "machine": "x86_64", "online_cpus": 2},
        "started": "2027-01-15T08:00:00.000Z",
        "started_monotonic_ns": 1_000_000_000_000u64,
        "interval_ns": 1_000_000_000u64,
        "disks": [{"name": "vdz", "queue": {"scheduler": "none", "rotational": false}}],
    })
}

/// `samples` after a header, one line each.
fn write_recording(path: &Path, samples: impl IntoIterator<Item = u64>) {
    let mut text = String::new();
    for line in std::iter::once(header()).chain(samples.into_iter().map(sample)) {
        assert_valid_monitor_line(&line);
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// The screen's first lines (header and the disks table), trailing blanks trimmed.
fn top(screen: &str, n: usize) -> String {
    screen
        .lines()
        .take(n)
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[ignore = "needs tmux"]
fn show_replays_a_rotated_recording_sample_by_sample() {
    tmux::require();
    let dir = tempfile::tempdir().unwrap();
    // The rotated set: samples 1-3 in r.jsonl.1, 4-5 in r.jsonl, each file with its header;
    // a torn last line (a kill mid-write) is skipped with a note.
    write_recording(&dir.path().join("r.jsonl.1"), 1..=3);
    let path = dir.path().join("r.jsonl");
    write_recording(&path, 4..=5);
    let mut torn = std::fs::read_to_string(&path).unwrap();
    torn.push_str(&sample(6).to_string()[..50]);
    std::fs::write(&path, torn).unwrap();

    let t = Tmux::start("show-rec", &["show", &path.to_string_lossy()], &[], 100, 30);
    let screen = t.wait_for("the replay", WAIT, |s| s.contains("RECORDED"));
    assert_eq!(
        top(&screen, 5),
        " diskdash  fixture  Linux 6.18.0  disk vdz                                                 RECORDED\n \
         interval 1s  recorded 2027-01-15 08:00:05 UTC  window 1.00 s  sample 5/5                elapsed 4s\n\
         ┌ disks, sorted by Device ascending, now: last 1s ─────────────────────────────────────────────────┐\n\
         │ Device*       r/s      rkB/s  r_await rareq-sz       w/s      wkB/s  w_await  aqu-sz  %util      │\n\
         │>vdz        500.00    2000.00     0.50     4.00      0.00       0.00     0.00    0.00   50.0      │"
    );
    assert!(screen.contains("torn last line skipped"), "{screen}");
    t.send(&["Left", "Left"]);
    let screen = t.wait_for("two samples back", WAIT, |s| s.contains("sample 3/5"));
    assert_eq!(
        top(&screen, 5)
            .lines()
            .skip(1)
            .step_by(3)
            .collect::<Vec<_>>(),
        [
            " interval 1s  recorded 2027-01-15 08:00:03 UTC  window 1.00 s  sample 3/5                elapsed 2s",
            "│>vdz        300.00    1200.00     0.50     4.00      0.00       0.00     0.00    0.00   30.0      │",
        ]
    );
    t.send(&["Home"]);
    t.wait_for("the first sample", WAIT, |s| s.contains("sample 1/5"));
    t.send(&["g", "0", "8", ":", "0", "0", ":", "0", "4", "Enter"]);
    let screen = t.wait_for("the typed time", WAIT, |s| s.contains("sample 4/5"));
    assert!(screen.contains("at 08:00:04"), "{screen}");
    t.send(&["End"]);
    t.wait_for("the last sample", WAIT, |s| s.contains("sample 5/5"));
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
}

#[test]
fn show_refuses_a_recording_without_samples_or_with_a_newer_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.jsonl");
    write_recording(&path, []);
    let out = std::process::Command::new(crate::support::BIN)
        .arg("show")
        .arg(&path)
        .output()
        .unwrap();
    crate::support::assert_usage_error(&out);
    assert!(
        crate::support::stderr(&out).contains("holds no sample yet"),
        "{}",
        crate::support::stderr(&out)
    );
    let newer = header()
        .to_string()
        .replace("\"format_version\":1", "\"format_version\":2");
    std::fs::write(&path, format!("{newer}\n{}\n", sample(1))).unwrap();
    // In this process (`support::inproc`); the first refusal above is the binary's.
    let err = crate::support::inproc::usage_error(&["show", path.to_str().unwrap()]);
    assert!(
        err.contains("format_version 2, this diskdash reads 1"),
        "{err}"
    );
}
