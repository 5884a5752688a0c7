//! diskdash started through a link named `fio`, as the tools that run `fio` from PATH start it
//! (fio-plot's bench-fio, KDiskMark, PerfKitBenchmarker): `diskdash fio`, fio's version line,
//! fio's exit code 1 for usage errors, and never a dashboard.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::tmux::{self, Tmux};
use crate::support::*;

/// A link `fio` -> the built binary in `dir`.
fn link(dir: &Path) -> PathBuf {
    let fio = dir.join("fio");
    std::os::unix::fs::symlink(BIN, &fio).expect("symlink fio -> diskdash");
    fio
}

/// `fio ARGS` through the link in `dir` (made on first use), in `dir`.
fn fio(dir: &Path, args: &[&str]) -> Output {
    let fio = dir.join("fio");
    if fio.symlink_metadata().is_err() {
        link(dir);
    }
    Command::new(fio)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running fio (the link)")
}

fn diskdash_fio(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("fio")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running diskdash fio")
}

#[test]
fn version_is_fio_s_line_exactly_and_diskdash_fio_s_names_both() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["--version", "-v"] {
        let out = fio(dir.path(), &[flag]);
        assert_quiet_success(&out);
        assert_eq!(stdout(&out), "fio-3.33\n", "{flag}");
    }
    let out = diskdash_fio(dir.path(), &["--version"]);
    assert_quiet_success(&out);
    assert_eq!(
        stdout(&out),
        format!("fio-3.33 (diskdash {})\n", env!("CARGO_PKG_VERSION"))
    );
    // diskdash's own version is unchanged.
    let out = Command::new(BIN).arg("--version").output().unwrap();
    assert_eq!(
        stdout(&out),
        format!("diskdash {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_job_runs_through_the_link_found_on_path_with_fio_s_json() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    link(&bin);
    // As a wrapper runs it: `fio` looked up on PATH (argv[0] is then plain `fio`).
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("fio")
        .env("PATH", path)
        .args([
            "--name=a",
            "--filename=f",
            "--size=1M",
            "--rw=read",
            "--output-format=json",
        ])
        .current_dir(dir.path())
        .output()
        .expect("running fio from PATH");
    assert_success(&out);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("fio's JSON on stdout");
    assert_eq!(doc["fio version"], "fio-3.33");
    // diskdash ran it, not an installed fio.
    assert!(doc["diskdash version"].is_string(), "{doc}");
    assert_eq!(doc["jobs"][0]["jobname"], "a");
    assert_eq!(doc["jobs"][0]["read"]["io_bytes"], 1024 * 1024);
}

#[test]
fn usage_errors_exit_1_as_fio_and_2_as_diskdash_fio() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [&[&str]; 4] = [
        &["--badopt"],
        &["--name=a", "--filename=f", "--size=1M", "--bs=xyz"],
        &["missing.fio"],
        &[],
    ];
    for args in cases {
        let as_fio = fio(dir.path(), args);
        assert_eq!(
            as_fio.status.code(),
            Some(1),
            "fio {args:?}: {}",
            stderr(&as_fio)
        );
        let as_diskdash = diskdash_fio(dir.path(), args);
        assert_usage_error(&as_diskdash);
        // The same one-line message either way.
        assert_eq!(stderr(&as_fio), stderr(&as_diskdash), "{args:?}");
        assert!(
            stderr(&as_fio).starts_with("error: "),
            "{}",
            stderr(&as_fio)
        );
    }
}

#[test]
fn help_and_fio_alone_print_the_usage_after_fio_s_version_line() {
    let dir = tempfile::tempdir().unwrap();
    let help = fio(dir.path(), &["--help"]);
    assert_quiet_success(&help);
    let text = stdout(&help);
    assert!(text.starts_with("fio-3.33\n"), "{text}");
    assert!(text.contains("Usage: diskdash fio"), "{text}");
    // As fio: the usage on stdout, no job on stderr, exit 1.
    let bare = fio(dir.path(), &[]);
    assert_eq!(bare.status.code(), Some(1), "{}", stderr(&bare));
    assert_eq!(stdout(&bare), text);
    assert_stderr_has(&bare, "no job to run");
    // `diskdash fio --help` is as it was: no version line first.
    let out = diskdash_fio(dir.path(), &["--help"]);
    assert_quiet_success(&out);
    assert_eq!(format!("fio-3.33\n{}", stdout(&out)), text);
}

#[test]
#[ignore = "needs tmux"]
fn fio_never_opens_the_dashboard_in_a_terminal() {
    tmux::require();
    // Without --no-tui, in a terminal where `diskdash fio` opens the dashboard (tests/it/drive.rs).
    let script = format!(
        "ln -s '{BIN}' fio && ./fio --name=a --filename=f --size=8M --runtime=2 --time_based \
         2>stderr; echo $? > status; sleep 600"
    );
    let t = Tmux::start_shell("fio-link-headless", &script, 120, 40);
    let start = Instant::now();
    while !t.path("status").exists() {
        assert!(
            !t.tmux_flags().starts_with('1'),
            "a dashboard under fio; screen:\n{}",
            t.capture()
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "fio did not exit"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(t.exit_status(Duration::from_secs(5)), 0, "{}", t.stderr());
    // fio's text report on the terminal.
    let screen = t.capture_joined();
    assert!(screen.contains("Run status group 0"), "{screen}");
}
