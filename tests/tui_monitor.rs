//! The monitor dashboard (`diskdash` with no arguments) in a real terminal (tmux).

mod tui_support;

use std::time::Duration;

use tui_support::Tmux;

const WAIT: Duration = Duration::from_secs(20);

fn skip() -> bool {
    if tui_support::available() {
        return false;
    }
    eprintln!("skipping: tmux is not installed (.ci/run installs it)");
    true
}

#[test]
fn monitor_shows_every_panel_and_quits_cleanly_on_q() {
    if skip() {
        return;
    }
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
fn sigterm_and_sighup_restore_the_terminal() {
    if skip() {
        return;
    }
    for (name, sig, code) in [("term", libc::SIGTERM, 143), ("hup", libc::SIGHUP, 129)] {
        let t = Tmux::start(&format!("monitor-{name}"), &[], &[], 80, 24);
        t.wait_for("the monitor", WAIT, |s| s.contains("disks, sorted by"));
        let pid = tui_support::child_named(t.pane_pid(), "diskdash");
        // SAFETY: kill(2) on a pid this test started; no memory is involved.
        let rc = unsafe { libc::kill(pid, sig) };
        assert_eq!(rc, 0);
        assert_eq!(t.exit_status(WAIT), code, "stderr: {}", t.stderr());
        t.assert_restored();
    }
}

#[test]
fn ctrl_c_quits_and_no_color_still_draws() {
    if skip() {
        return;
    }
    let t = Tmux::start("monitor-ctrlc", &[], &[("NO_COLOR", "1")], 80, 24);
    t.wait_for("the monitor", WAIT, |s| s.contains("disks, sorted by"));
    t.send(&["C-c"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
}

#[test]
fn without_a_terminal_it_says_what_to_use_instead() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_diskdash"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("needs a terminal") && err.contains("diskdash iostat"),
        "{err}"
    );
}
