//! How a run ends, the same for every command that runs a plan (assets/doc/endings.md):
//! Ctrl-C and SIGINT `interrupted` (130), SIGTERM `interrupted` (143), `q` during the run
//! `stopped` (0), `q` after it finished `completed` (0); in the dashboard (tmux) and headless.
//! And `show --text` / `show` into a pipe: the report the headless run printed, byte for byte.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::tmux::{self, Tmux};
use crate::support::{BIN, read_json};

const WAIT: Duration = Duration::from_secs(60);

/// Each command that runs a plan, long enough to be ended while it runs (the record `r.json`
/// in the working directory). Relative file names: the run's directory is the test's.
fn long_run(command: &str) -> Vec<&'static str> {
    let args: &[&'static str] = match command {
        "bench" => &["bench", "--size", "8M", "--runtime", "60s"],
        "fio" => &[
            "fio",
            "--runtime=60",
            "--time_based",
            "--name=a",
            "--rw=randread",
            "--size=8M",
            "--filename=a.dat",
            "--name=b",
            "--rw=write",
            "--bs=64k",
            "--size=8M",
            "--filename=b.dat",
        ],
        "sweep" => &[
            "sweep",
            ".",
            "--bs",
            "4k,8k",
            "--runtime",
            "60s",
            "--ramp",
            "0s",
            "--size",
            "8M",
        ],
        // The first loop warms up for as long as it measures: short loops, many of them.
        "mark" => &[
            "mark",
            ".",
            "--profile",
            "demo",
            "--loops",
            "9",
            "--runtime",
            "1s",
            "--size",
            "8M",
        ],
        other => panic!("no long run of {other}"),
    };
    let mut args = args.to_vec();
    args.extend(["--json", "r.json"]);
    args
}

const COMMANDS: [&str; 4] = ["bench", "fio", "sweep", "mark"];

/// The record's status, after checking that the record is one (it validates) and holds
/// measured I/O when the run got that far.
fn status_of(dir: &Path) -> Value {
    let record = read_json(&dir.join("r.json"));
    record["status"].clone()
}

/// How a test ends a running dashboard, and what it must leave: the exit code and status.
#[derive(Clone, Copy)]
enum Ending {
    /// `q` while it runs.
    Quit,
    /// The Ctrl-C key (raw mode: a key, not SIGINT).
    CtrlC,
    /// `kill -TERM`.
    Term,
}

fn end_dashboard(command: &str, ending: Ending) {
    let name = format!("end-{command}");
    let t = Tmux::start(&name, &long_run(command), &[], 120, 40);
    t.wait_for("a measured interval", WAIT, |s| {
        s.contains("RUNNING") && !s.contains("PREPARING")
    });
    // A second so the step has intervals to record.
    std::thread::sleep(Duration::from_secs(1));
    let (code, status) = match ending {
        Ending::Quit => {
            t.send(&["q"]);
            (0, "stopped")
        }
        Ending::CtrlC => {
            t.send(&["C-c"]);
            (130, "interrupted")
        }
        Ending::Term => {
            let pid = tmux::child_named(t.pane_pid(), "diskdash");
            // SAFETY: kill(2) on a process this test started; no memory is involved.
            assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
            (143, "interrupted")
        }
    };
    assert_eq!(t.exit_status(WAIT), code, "{command}: {}", t.stderr());
    t.assert_restored();
    assert_eq!(status_of(t.dir_path()), status, "{command}");
}

#[test]
#[ignore = "needs tmux"]
fn q_during_a_run_is_stopped_and_exits_0_for_every_command() {
    tmux::require();
    for command in COMMANDS {
        end_dashboard(command, Ending::Quit);
    }
}

#[test]
#[ignore = "needs tmux"]
fn the_ctrl_c_key_in_the_dashboard_is_sigint_for_every_command() {
    tmux::require();
    for command in COMMANDS {
        end_dashboard(command, Ending::CtrlC);
    }
}

#[test]
#[ignore = "needs tmux"]
fn sigterm_to_the_dashboard_is_interrupted_143() {
    tmux::require();
    for command in ["bench", "sweep"] {
        end_dashboard(command, Ending::Term);
    }
}

#[test]
#[ignore = "needs tmux"]
fn q_after_the_run_finished_is_completed_and_exits_0() {
    tmux::require();
    let args = [
        "bench",
        "--size",
        "8M",
        "--runtime",
        "1s",
        "--json",
        "r.json",
    ];
    let t = Tmux::start("end-finished", &args, &[], 120, 40);
    t.wait_for("the finished run", WAIT, |s| s.contains("FINISHED"));
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "{}", t.stderr());
    t.assert_restored();
    assert_eq!(status_of(t.dir_path()), "completed");
}

/// Spawns `args` headless in `dir` (stdout and stderr piped), waits for its first measured
/// interval (`[    1.0s] ...` on stderr), sends `signal` and returns the exit code.
fn signal_headless(dir: &Path, args: &[&str], signal: libc::c_int) -> Option<i32> {
    let mut child = Command::new(BIN)
        .args(args)
        .arg("--no-tui")
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting diskdash");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let measured = lines
        .by_ref()
        .map_while(Result::ok)
        .any(|l| l.starts_with("[ ") && l.contains("IOPS"));
    assert!(measured, "{args:?}: no measured interval");
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on our own child; no memory is involved.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let _rest: Vec<String> = lines.map_while(Result::ok).collect();
    child.wait().unwrap().code()
}

/// `bench` has both in `bench::sigint_drains_and_records_interrupted`; here each plan command
/// gets one of them, fio both.
#[test]
fn sigint_and_sigterm_end_every_headless_command_interrupted_with_128_plus_the_signal() {
    let cases = [
        ("fio", libc::SIGINT, 130),
        ("fio", libc::SIGTERM, 143),
        ("sweep", libc::SIGTERM, 143),
        ("mark", libc::SIGINT, 130),
    ];
    for (command, signal, code) in cases {
        {
            let dir = tempfile::tempdir().unwrap();
            let args = long_run(command);
            let got = signal_headless(dir.path(), &args, signal);
            assert_eq!(got, Some(code), "{command}, signal {signal}");
            let record = read_json(&dir.path().join("r.json"));
            assert_eq!(record["status"], "interrupted", "{command}");
            let ios = record["read"]["total_ios"].as_u64().unwrap_or(0)
                + record["write"]["total_ios"].as_u64().unwrap_or(0);
            assert!(ios > 0, "{command}: the partial results are kept");
        }
    }
}

/// Each command, short, headless into a pipe: its stdout is the report `show` must print.
fn short_run(command: &str) -> Vec<&'static str> {
    let args: &[&'static str] = match command {
        "bench" => &["bench", "--size", "8M", "--runtime", "300ms"],
        "fio" => &[
            "fio",
            "--runtime=1",
            "--time_based",
            "--name=a",
            "--rw=randread",
            "--size=8M",
            "--filename=a.dat",
            "--name=b",
            "--rw=write",
            "--bs=64k",
            "--size=8M",
            "--filename=b.dat",
        ],
        "sweep" => &[
            "sweep",
            ".",
            "--bs",
            "4k,64k",
            "--runtime",
            "300ms",
            "--ramp",
            "0s",
            "--size",
            "8M",
            "--advice",
        ],
        "mark" => &[
            "mark",
            ".",
            "--profile",
            "demo",
            "--loops",
            "2",
            "--runtime",
            "200ms",
            "--size",
            "8M",
        ],
        other => panic!("no short run of {other}"),
    };
    let mut args = args.to_vec();
    args.extend(["--json", "r.json"]);
    args
}

fn stdout_of(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running diskdash");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The text is compared whole, nothing stripped: the report is rendered from the record as
/// its file holds it (the run's own report too), so even the device's rounded rates agree.
#[test]
fn show_text_and_show_into_a_pipe_print_the_headless_report() {
    for command in COMMANDS {
        let dir = tempfile::tempdir().unwrap();
        let printed = stdout_of(dir.path(), &short_run(command));
        assert!(!printed.is_empty(), "{command}");
        let text = stdout_of(dir.path(), &["show", "--text", "r.json"]);
        assert_eq!(text, printed, "{command}: show --text");
        // stdout is a pipe here: `show` alone prints the same.
        let piped = stdout_of(dir.path(), &["show", "r.json"]);
        assert_eq!(piped, printed, "{command}: show into a pipe");
    }
}

#[test]
fn show_text_of_a_monitor_recording_says_what_to_use_instead() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rec.jsonl");
    let header = serde_json::json!({"format": "diskdash-monitor", "format_version": 1});
    std::fs::write(&path, format!("{header}\n")).unwrap();
    let out = Command::new(BIN)
        .args(["show", "--text"])
        .arg(&path)
        .output()
        .unwrap();
    crate::support::assert_usage_error(&out);
    let err = crate::support::stderr(&out);
    assert!(
        err.contains("monitor recording") && err.contains("no text summary"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}
