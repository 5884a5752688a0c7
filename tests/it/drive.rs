//! The one session driver, seen from outside: every command that runs a plan (`bench`, `fio`,
//! `sweep`, `mark`) treats `--json -` the same way in a terminal (tmux): the dashboard drives
//! the run, the report goes to stderr, and the record is printed on stdout once the dashboard
//! has closed.

use std::time::{Duration, Instant};

use crate::support::tmux::{self, Tmux};

const WAIT: Duration = Duration::from_secs(30);

fn dashboard_then_record(name: &str, args: &[&str], report: &str) {
    let t = Tmux::start(name, args, &[], 120, 40);
    let start = Instant::now();
    // The dashboard is on the alternate screen; status lines would not be.
    while !t.tmux_flags().starts_with('1') {
        assert!(
            start.elapsed() < WAIT,
            "{name}: no dashboard with --json -; screen:\n{}\nstderr:\n{}",
            t.capture(),
            t.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Measuring, so the report has numbers to show.
    t.wait_for("the run measuring", WAIT, |s| s.contains("RUNNING"));
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "{name}: stderr: {}", t.stderr());
    t.assert_restored();
    // The record, pretty-printed, ends the terminal's output; the report went beside it.
    let screen = t.capture();
    let last = screen.lines().rev().find(|l| !l.trim().is_empty());
    assert_eq!(last, Some("}"), "{name}: screen:\n{screen}");
    assert!(
        t.stderr().contains(report),
        "{name}: no {report:?} on stderr:\n{}",
        t.stderr()
    );
}

#[test]
#[ignore = "needs tmux"]
fn bench_fio_sweep_and_mark_open_the_dashboard_with_the_record_on_stdout() {
    tmux::require();
    dashboard_then_record(
        "drive-bench",
        &["bench", "--size", "8M", "--runtime", "30s", "--json", "-"],
        "bench",
    );
    dashboard_then_record(
        "drive-fio",
        &[
            "fio",
            "--name=x",
            "--filename=f",
            "--size=8M",
            "--runtime=30",
            "--time_based",
            "--json",
            "-",
        ],
        "Run status group",
    );
    dashboard_then_record(
        "drive-sweep",
        &[
            "sweep",
            "--bs",
            "4k,8k",
            "--size",
            "8M",
            "--runtime",
            "30s",
            // Measuring at once, not after the default 2 s warm-up.
            "--ramp",
            "0s",
            "--json",
            "-",
        ],
        "4k",
    );
    dashboard_then_record(
        "drive-mark",
        &["mark", "--size", "16M", "--runtime", "300ms", "--json", "-"],
        "SEQ1M Q8T1",
    );
}
