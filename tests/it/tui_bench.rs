//! `diskdash bench` with the dashboard, driven in a real terminal (tmux): live numbers, a
//! queue-depth change that starts a second step, a clean quit with the record written.

use std::time::Duration;

use crate::support::tmux::{self, Tmux};

const WAIT: Duration = Duration::from_secs(30);

/// A benchmark that outlives the test (it is quit, signalled or hung up on), recorded to run.json.
const LONG_RUN_RECORDED: [&str; 7] = [
    "bench",
    "--size",
    "16M",
    "--runtime",
    "60s",
    "--json",
    "run.json",
];

/// The read IOPS the throughput panel shows, e.g. `12.3k` from `IOPS  read 12.3k  write 0.0`.
fn read_iops(screen: &str) -> Option<f64> {
    number_after(screen, "IOPS  read ")
}

#[test]
#[ignore = "needs tmux"]
fn bench_dashboard_runs_changes_iodepth_and_quits_with_both_steps_recorded() {
    tmux::require();
    let args = [
        "bench",
        "--size",
        "32M",
        "--runtime",
        "60s",
        "--iodepth",
        "8",
        "--json",
        "run.json",
    ];
    let t = Tmux::start("bench", &args, &[], 120, 40);
    let screen = t.wait_for("live non-zero IOPS", WAIT, |s| {
        s.contains("RUNNING") && read_iops(s).is_some_and(|v| v > 0.0)
    });
    for panel in [
        "throughput and IOPS",
        "latency, submit to completion",
        "disks, sorted by",
    ] {
        assert!(screen.contains(panel), "no {panel:?} in:\n{screen}");
    }
    assert!(screen.contains("iodepth=8 "), "{screen}");
    assert!(screen.contains("seg 1/1"), "{screen}");

    t.send(&["+"]);
    let screen = t.wait_for("the new queue depth", WAIT, |s| {
        s.contains("iodepth=16 ") && s.contains("seg 2/2")
    });
    assert!(screen.contains("iodepth 8 -> 16"), "{screen}");
    t.wait_for("live numbers in segment 2", WAIT, |s| {
        s.contains("RUNNING") && read_iops(s).is_some_and(|v| v > 0.0)
    });

    t.send(&["Space"]);
    t.wait_for("paused", WAIT, |s| s.contains("PAUSED"));
    t.send(&["Space"]);
    t.wait_for("running again", WAIT, |s| s.contains("RUNNING"));

    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
    // The summary lands on the normal screen after the dashboard is gone.
    let screen = t.capture();
    assert!(
        screen.contains("diskdash bench:") && screen.contains("IOPS"),
        "{screen}"
    );

    let record = crate::support::read_json(&t.path("run.json"));
    // `q` before the runtime's end: the run is `stopped`, every step kept.
    assert_eq!(record["status"], "stopped", "{record:#}");
    let steps = record["segments"].as_array().expect("segments");
    assert_eq!(steps.len(), 2, "{record:#}");
    assert_eq!(steps[0]["job"]["iodepth"], 8);
    assert_eq!(steps[1]["job"]["iodepth"], 16);
    for s in steps {
        assert!(s["read"]["total_ios"].as_u64().unwrap_or(0) > 0, "{s:#}");
    }
    // Only what the test put there is left: no scratch file.
    let mut left: Vec<String> = std::fs::read_dir(t.dir_path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "tmux.sock")
        .collect();
    left.sort();
    assert_eq!(left, ["run.json", "status", "stderr"]);
}

#[test]
#[ignore = "needs tmux"]
fn sigterm_during_the_dashboard_interrupts_and_still_writes_the_record() {
    tmux::require();
    let t = Tmux::start("bench-term", &LONG_RUN_RECORDED, &[], 100, 30);
    t.wait_for("running", WAIT, |s| s.contains("RUNNING"));
    let pid = tmux::child_named(t.pane_pid(), "diskdash");
    // SAFETY: kill(2) on a process this test started; no memory is involved.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    assert_eq!(t.exit_status(WAIT), 143, "stderr: {}", t.stderr());
    t.assert_restored();
    let record = crate::support::read_json(&t.path("run.json"));
    assert_eq!(record["status"], "interrupted");
}

#[test]
#[ignore = "needs tmux"]
fn a_dropped_terminal_still_writes_the_record_and_removes_the_scratch_file() {
    tmux::require();
    let t = Tmux::start("bench-hup", &LONG_RUN_RECORDED, &[], 100, 30);
    t.wait_for("running", WAIT, |s| s.contains("RUNNING"));
    // Closing the pane is what a dropped SSH session does: SIGHUP, then no terminal at all.
    t.kill_pane();
    let record = t.path("run.json");
    let start = std::time::Instant::now();
    while !record.exists() {
        assert!(start.elapsed() < WAIT, "no record after the hang-up");
        std::thread::sleep(Duration::from_millis(100));
    }
    let record = crate::support::read_json(&record);
    assert_eq!(record["status"], "interrupted");
    assert_eq!(record["target"]["scratch_removed"], true);
    // The process is gone and left no scratch file behind.
    std::thread::sleep(Duration::from_millis(500));
    let left: Vec<String> = std::fs::read_dir(t.dir_path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("scratch"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
#[ignore = "needs tmux"]
fn a_running_benchmark_draws_at_most_ten_frames_a_second() {
    tmux::require();
    let args = [
        "bench",
        "--size",
        "16M",
        "--runtime",
        "60s",
        "--interval",
        "100ms",
    ];
    let t = Tmux::start("bench-fps", &args, &[], 100, 30);
    t.wait_for("running", WAIT, |s| s.contains("RUNNING"));
    let frames = t.count_frames(|| std::thread::sleep(Duration::from_secs(3)));
    eprintln!("{frames} frames in 3 s");
    // Snapshots change every few tens of ms, and frames are capped at 10/s: at most 30 in 3 s
    // (slack of 3 for the capture window's edges); a busy machine may draw fewer, but a live
    // run redraws at least at every status interval (1 s).
    assert!((3..=33).contains(&frames), "{frames} frames in 3 s");
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
}

/// Steady state in the dashboard: the line under the header fills its window, says
/// `ATTAINED` and the run stops; the sustained-write chart is drawn for a write job. The
/// record says why the step ended.
#[test]
#[ignore = "needs tmux"]
fn steady_state_shows_its_window_and_stops_the_run_when_attained() {
    tmux::require();
    let args = [
        "bench",
        "--rw",
        "randwrite",
        "--size",
        "32M",
        "--iodepth",
        "4",
        "--runtime",
        "60s",
        "--ss",
        "iops:60%",
        "--ss-dur",
        "4s",
        "--json",
        "run.json",
    ];
    let t = Tmux::start("bench-steady", &args, &[], 160, 50);
    let screen = t.wait_for("the window filling", WAIT, |s| {
        s.contains("steady state iops:60% over 4s") && s.contains("filling the window")
    });
    assert!(
        screen.contains("sustained writes: MiB/s against GiB written"),
        "{screen}"
    );
    let screen = t.wait_for("steady state attained", WAIT, |s| {
        // At the end of the 4 s window on a quiet disk, later on a busy one.
        s.contains("ATTAINED at ")
    });
    assert!(screen.contains("now "), "{screen}");
    t.wait_for("the run stopped", WAIT, |s| !s.contains("RUNNING"));
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
    let record = crate::support::read_json(&t.path("run.json"));
    let step = &record["segments"][0];
    assert_eq!(step["stop_reason"], "steady_state", "{record:#}");
    assert_eq!(step["jobs"][0]["steadystate"]["attained"], 1);
    assert!(record["elapsed_ns"].as_u64().unwrap() < 60_000_000_000);
}

/// The number after `label` on the screen, e.g. `1.94k` after `d/s`, as a value.
fn number_after(screen: &str, label: &str) -> Option<f64> {
    let rest = screen.split(label).nth(1)?;
    let word = rest.split_whitespace().next()?;
    let (num, scale) = match word.chars().last()? {
        'k' => (&word[..word.len() - 1], 1e3),
        'M' => (&word[..word.len() - 1], 1e6),
        _ => (word, 1.0),
    };
    num.parse::<f64>().ok().map(|v| v * scale)
}

/// Trims on a loop device: the throughput panel draws them, the device panel adds iostat's
/// discard rows, and once the run ends its reconciliation counts one discard per trim.
#[test]
#[ignore = "needs root and tmux"]
fn trims_show_beside_the_devices_discards() {
    crate::support::require_root();
    tmux::require();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    crate::support::sparse_file(&image, 64 << 20);
    let dev = crate::support::LoopDevice::attach_unique(&image);
    let path = dev.path().to_string_lossy().into_owned();
    let args = [
        "bench",
        &path,
        "--rw",
        "randtrim",
        "--bs",
        "64k",
        "--runtime",
        "4s",
        "--allow-destructive",
        "--json",
        "run.json",
    ];
    let t = Tmux::start("bench-trim", &args, &[], 160, 50);
    let screen = t.wait_for("trims and discards", WAIT, |s| {
        s.contains("RUNNING")
            && number_after(s, "  trim ").is_some_and(|v| v > 0.0)
            && number_after(s, "│d/s ").is_some_and(|v| v > 0.0)
    });
    for row in ["│dMiB/s ", "│d_await ", "trim latency"] {
        assert!(screen.contains(row), "no {row:?} in:\n{screen}");
    }
    // The disks table adds iostat's discard columns while a disk discards.
    let header = screen
        .lines()
        .find(|l| l.contains("Device") && l.contains("%util"))
        .expect(&screen);
    for column in [" d/s ", " dkB/s ", " d_await "] {
        assert!(header.contains(column), "no {column:?} in {header}");
    }
    let screen = t.wait_for("the run's end", WAIT, |s| s.contains("FINISHED seg 1/1"));
    let name = dev.name();
    assert!(
        screen.contains(&format!("device {name} (iostat -x)")),
        "{screen}"
    );
    assert!(screen.contains("device/app 1.00"), "{screen}");
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    let record = crate::support::read_json(&t.path("run.json"));
    let rec = &record["device"]["reconciliation"];
    let trims = record["trim"]["total_ios"].as_u64().unwrap();
    assert!(trims > 0);
    assert_eq!(rec["device_discard_ios"], trims, "{rec}");
    let shown = format!("app {} I/Os  device {}", count(trims), count(trims));
    assert!(screen.contains(&shown), "no {shown:?} in:\n{screen}");
}

/// `12,345`, as the dashboard writes counts.
fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A verified write: the verification line says what happens before anything is read, then
/// counts the read-back, and ends with the record's count of checked blocks.
#[test]
#[ignore = "needs tmux"]
fn a_verified_write_shows_its_read_back_and_the_final_count() {
    tmux::require();
    let args = [
        "bench",
        ".",
        "--rw",
        "randwrite",
        "--verify",
        "crc32c",
        "--size",
        "16M",
        "--runtime",
        "3s",
        "--json",
        "run.json",
    ];
    let t = Tmux::start("bench-verify", &args, &[], 160, 50);
    let screen = t.wait_for("the verify line while writing", WAIT, |s| {
        s.contains("RUNNING") && s.contains("verify crc32c")
    });
    assert!(
        screen.contains("read back after the run") || screen.contains("reading back"),
        "{screen}"
    );
    let screen = t.wait_for("the final count", WAIT, |s| {
        s.contains("FINISHED seg 1/1") && s.contains("blocks checked")
    });
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    let record = crate::support::read_json(&t.path("run.json"));
    let checked = record["verify"]["blocks_checked"].as_u64().unwrap();
    assert!(checked > 0, "{}", record["verify"]);
    let shown = format!(
        "verify crc32c  {} blocks checked  none failed",
        count(checked)
    );
    assert!(screen.contains(&shown), "no {shown:?} in:\n{screen}");
}

/// The device panel's rows (its left column, title to bottom border) in a screen.
fn device_panel(screen: &str) -> Vec<String> {
    let mut rows = Vec::new();
    let mut inside = false;
    for line in screen.lines() {
        let left = line.split("││").next().unwrap_or(line);
        if left.contains("┌ device ") {
            inside = true;
        } else if inside && left.starts_with('└') {
            break;
        }
        if inside {
            rows.push(left.to_string());
        }
    }
    rows
}

/// Paused, the device panel says it shows the step's last interval: its numbers and
/// sparklines hold still while another process keeps the disk busy.
#[test]
#[ignore = "needs tmux"]
fn a_paused_run_s_device_panel_holds_its_last_interval() {
    tmux::require();
    let t = Tmux::start("paused", &LONG_RUN_RECORDED, &[], 120, 40);
    t.wait_for("live non-zero IOPS", WAIT, |s| {
        s.contains("RUNNING") && read_iops(s).is_some_and(|v| v > 0.0)
    });
    std::thread::sleep(Duration::from_millis(1500));
    t.send(&["Space"]);
    let screen = t.wait_for("paused", WAIT, |s| s.contains("PAUSED"));
    // The held panel needs a block device behind the scratch file: on tmpfs this fails, said
    // so, rather than passing without checking anything.
    assert!(
        !screen.contains("device: none"),
        "needs a scratch file on a block device (not tmpfs): {screen}"
    );
    t.wait_for("the held device panel", WAIT, |s| {
        s.contains("of seg 1, paused")
    });
    // Other I/O on the disk while the run is paused: the disks' live rows change, the held
    // panel must not.
    let busy = std::process::Command::new("dd")
        .args(["if=/dev/zero", "bs=1M", "count=512", "oflag=direct"])
        .arg(format!("of={}", t.path("busy").display()))
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("dd");
    std::thread::sleep(Duration::from_millis(1200));
    let first = device_panel(&t.capture());
    std::thread::sleep(Duration::from_millis(1500));
    let second = device_panel(&t.capture());
    let mut busy = busy;
    let _ = busy.kill();
    let _ = busy.wait();
    let _ = std::fs::remove_file(t.path("busy"));
    assert!(first.len() > 3, "no device panel:\n{}", first.join("\n"));
    assert_eq!(first, second, "the paused panel changed");
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
}
