//! The monitor dashboard (`diskdash` with no arguments) in a real terminal (tmux).

use std::time::Duration;

use crate::support::LoopDevice;
use crate::support::tmux::{self, Tmux};

const WAIT: Duration = Duration::from_secs(20);

#[test]
#[ignore = "needs tmux"]
fn monitor_shows_every_panel_and_quits_cleanly_on_q() {
    tmux::require();
    let t = Tmux::start("monitor-q", &["--interval", "200ms"], &[], 120, 40);
    let screen = t.wait_for("the monitor panels", WAIT, |s| {
        s.contains("disks, sorted by") && s.contains("(iostat -x)") && s.contains("queue ")
    });
    assert!(screen.contains("MONITOR"), "{screen}");
    assert!(screen.contains("throughput and IOPS"), "{screen}");
    // Sorting and the help overlay answer keys.
    t.send(&["o"]);
    t.wait_for("sorted by r/s", WAIT, |s| {
        s.contains("sorted by r/s descending")
    });
    t.send(&["?"]);
    t.wait_for("the help", WAIT, |s| s.contains("log / linear scales"));
    t.send(&["x"]);
    t.wait_for("the help closed", WAIT, |s| {
        !s.contains("log / linear scales")
    });
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
}

#[test]
#[ignore = "needs tmux"]
fn sigterm_and_sighup_restore_the_terminal() {
    tmux::require();
    for (name, sig, code) in [("term", libc::SIGTERM, 143), ("hup", libc::SIGHUP, 129)] {
        let t = Tmux::start(&format!("monitor-{name}"), &[], &[], 80, 24);
        t.wait_for("the monitor", WAIT, |s| s.contains("disks, sorted by"));
        let pid = tmux::child_named(t.pane_pid(), "diskdash");
        // SAFETY: kill(2) on a pid this test started; no memory is involved.
        let rc = unsafe { libc::kill(pid, sig) };
        assert_eq!(rc, 0);
        assert_eq!(t.exit_status(WAIT), code, "stderr: {}", t.stderr());
        t.assert_restored();
    }
}

#[test]
#[ignore = "needs tmux"]
fn ctrl_c_leaves_as_sigint_and_no_color_still_draws() {
    tmux::require();
    let t = Tmux::start("monitor-ctrlc", &[], &[("NO_COLOR", "1")], 80, 24);
    t.wait_for("the monitor", WAIT, |s| s.contains("disks, sorted by"));
    // Ctrl-C is a key in raw mode and ends the monitor as SIGINT does: 130.
    t.send(&["C-c"]);
    assert_eq!(t.exit_status(WAIT), 130, "stderr: {}", t.stderr());
    t.assert_restored();
}

#[test]
fn without_a_terminal_it_says_what_to_use_instead() {
    let out = std::process::Command::new(crate::support::BIN)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("needs a terminal") && err.contains("diskdash iostat"),
        "{err}"
    );
}

#[test]
#[ignore = "needs tmux"]
fn resizing_to_any_size_keeps_drawing() {
    tmux::require();
    let t = Tmux::start("monitor-resize", &["--interval", "200ms"], &[], 80, 24);
    t.wait_for("the monitor", WAIT, |s| s.contains("disks, sorted by"));
    for (w, h) in [(20, 5), (1, 1), (200, 60), (80, 24)] {
        t.resize(w, h);
        std::thread::sleep(Duration::from_millis(300));
    }
    t.wait_for("the monitor at 80x24 again", WAIT, |s| {
        s.contains("disks, sorted by") && s.lines().count() >= 20
    });
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
}

/// A loop device that did I/O appears in the table; detached, it is marked gone, then dropped.
#[test]
#[ignore = "needs tmux and root"]
fn a_vanishing_loop_device_is_shown_not_fatal() {
    tmux::require();
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("loop.img");
    std::fs::write(&image, vec![7u8; 4 << 20]).unwrap();
    let dev = LoopDevice::attach(&image);
    let name = dev.name();
    // Read while it is looked for (devices that never did I/O are hidden), the table sorted by
    // r/s: it is on top however many devices the machine lists.
    let stop = dir.path().join("stop");
    let mut reader = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "while [ ! -e {} ]; do dd if={} of=/dev/null bs=4k iflag=direct status=none || exit 1; done",
            stop.display(),
            dev.path().display()
        ))
        .spawn()
        .unwrap();

    let t = Tmux::start("monitor-vanish", &["--interval", "200ms"], &[], 120, 40);
    t.wait_for("the monitor", WAIT, |s| s.contains("disks, sorted by"));
    t.send(&["o"]);
    t.wait_for("the loop device in the table", WAIT, |s| {
        s.contains("sorted by r/s descending")
            && s.lines().any(|l| l.contains(&format!(" {name} ")))
    });
    std::fs::write(&stop, b"").unwrap();
    assert!(
        reader.wait().unwrap().success(),
        "the reads of {name} failed"
    );
    // Detaching keeps /dev/loopN (and its line in /proc/diskstats); removing it makes it vanish.
    if !dev.detach_and_remove() {
        eprintln!("skipping the rest: {name} was taken again before it could be removed");
        return;
    }
    t.wait_for("the loop device gone", WAIT, |s| {
        !s.lines()
            .any(|l| l.contains(&format!(" {name} ")) && !l.contains("(gone)"))
    });
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
}

#[test]
#[ignore = "needs tmux"]
fn an_idle_monitor_draws_once_per_sample_not_in_a_loop() {
    tmux::require();
    let t = Tmux::start("monitor-idle", &["--interval", "1s"], &[], 100, 30);
    t.wait_for("the monitor", WAIT, |s| s.contains("disks, sorted by"));
    let frames = t.count_frames(|| std::thread::sleep(Duration::from_secs(4)));
    eprintln!("{frames} frames in 4 s");
    // One frame per 1 s sample (a little slack for timing), far from a redraw loop.
    assert!(
        (2..=6).contains(&frames),
        "{frames} frames in 4 s at a 1 s interval"
    );
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0);
}
