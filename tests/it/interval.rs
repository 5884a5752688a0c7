//! The one interval rule (10 ms to 24 h) wherever an interval is taken: `bench --interval`,
//! fio's `--status-interval`, iostat's INTERVAL and the monitor's
//! `--interval`, all refused with the same sentence and accepted over the same range.

use std::process::{Command, Output};
use std::time::Duration;

use crate::support::tmux::{self, Tmux};
use crate::support::{BIN, stderr};

/// `diskdash ARGS` refused in this process (`support::inproc`), the file `F` named by its path
/// in `dir`: its one-line usage error, after checking it exited 2 (iostat: 1) and created no
/// file in `dir`.
fn refused(dir: &tempfile::TempDir, args: &[&str]) -> String {
    let file = dir.path().join("F").display().to_string();
    let filename = format!("--filename={file}");
    let args: Vec<&str> = args
        .iter()
        .map(|&arg| match arg {
            "F" => file.as_str(),
            "--filename=F" => filename.as_str(),
            arg => arg,
        })
        .collect();
    let text = crate::support::inproc::usage_error(&args);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: {text}");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(names.is_empty(), "{args:?} created {names:?}");
    lines[0].to_owned()
}

/// Runs `diskdash ARGS` in `dir` and returns its one-line usage error, after checking it exited
/// 2, wrote nothing on stdout and created no file in `dir`.
fn one_line_usage_error(dir: &tempfile::TempDir, args: &[&str]) -> String {
    let out: Output = Command::new(BIN)
        .args(args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let code = i32::from(crate::support::usage_exit_code(args));
    assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
    assert!(out.stdout.is_empty(), "{args:?}: stdout written");
    let text = stderr(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: {text}");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(names.is_empty(), "{args:?} created {names:?}");
    lines[0].to_owned()
}

#[test]
fn status_interval_1ms_is_refused_like_bench_interval_1ms() {
    let dir = tempfile::tempdir().unwrap();
    let bench = one_line_usage_error(&dir, &["bench", "--interval", "1ms", "--size", "8M", "F"]);
    assert_eq!(
        bench,
        r#"error: --interval "1ms" is too short; use 10ms to 24h, e.g. 1s"#
    );
    // The binary end to end for bench; the others in this process.
    let fio = refused(
        &dir,
        &[
            "fio",
            "--name=x",
            "--filename=F",
            "--size=8M",
            "--status-interval=1ms",
        ],
    );
    assert_eq!(
        fio,
        r#"error: --status-interval "1ms" is too short; use 10ms to 24h, e.g. 1s"#
    );
    // The same sentence over the whole rule: zero, a day and a microsecond too long.
    for (value, why) in [
        ("0", "too short"),
        ("86400.000001", "too long"),
        ("25h", "too long"),
    ] {
        let fio = refused(
            &dir,
            &[
                "fio",
                "--name=x",
                "--filename=F",
                "--size=8M",
                &format!("--status-interval={value}"),
            ],
        );
        assert_eq!(
            fio,
            format!("error: --status-interval {value:?} is {why}; use 10ms to 24h, e.g. 1s")
        );
    }
}

#[test]
fn the_same_range_is_accepted_by_every_command_in_its_own_grammar() {
    let dir = tempfile::tempdir().unwrap();
    // The longest interval is not refused anywhere: each command goes past its options and
    // stops on what follows (a missing target, a bad count).
    for args in [
        &[
            "bench",
            "--interval",
            "24h",
            "--size",
            "8M",
            "--rw",
            "nosuch",
            "F",
        ][..],
        &["iostat", "24h", "0"][..],
        &["iostat", "86400", "0"][..],
    ] {
        let line = refused(&dir, args);
        assert!(!line.contains("interval"), "{args:?}: {line}");
    }
}

#[test]
#[ignore = "needs tmux"]
fn the_monitor_takes_an_hour_as_its_interval() {
    tmux::require();
    let t = Tmux::start("monitor-1h", &["--interval", "1h"], &[], 120, 40);
    let wait = Duration::from_secs(20);
    let screen = t.wait_for("the monitor at 1h", wait, |s| {
        s.contains("disks, sorted by") && s.contains("interval 3600s")
    });
    assert!(screen.contains("MONITOR"), "{screen}");
    t.send(&["q"]);
    assert_eq!(t.exit_status(wait), 0, "stderr: {}", t.stderr());
    t.assert_restored();
}
