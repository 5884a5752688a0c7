//! Input that must be refused before anything runs: absurd durations, files that are not run
//! records (devices, FIFOs, directories, huge files), clap's own mistakes, record versions that
//! are not whole numbers. Every refusal is one `error: ` line on stderr and exit 2.
//!
//! Each command runs under a timeout and an address-space limit, so a regression fails the
//! test instead of hanging it or taking the machine's memory.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::BIN;
use crate::support::limited::{self, Limited};

/// Enough for any refusal; a command still running after this is a failure.
const TIMEOUT: Duration = Duration::from_secs(10);
/// Address-space limit of the command under test (a debug build with a few threads needs far
/// less; reading /dev/zero into memory would reach it in about a second).
const ADDRESS_SPACE_BYTES: u64 = 2 << 30;
/// Runs `diskdash ARGS` with no stdin, at most [`TIMEOUT`] and [`ADDRESS_SPACE_BYTES`].
fn diskdash(args: &[&str]) -> Limited {
    let mut command = Command::new(BIN);
    command.args(args).stdin(Stdio::null());
    let out = limited::run(command, Some(ADDRESS_SPACE_BYTES), TIMEOUT);
    assert!(
        !out.timed_out,
        "diskdash {args:?} still running after {TIMEOUT:?}; stderr: {}",
        out.stderr
    );
    out
}

/// Exit 2, nothing on stdout, exactly one `error: ` line on stderr containing every `want`.
/// Returns the line.
fn assert_one_line_usage_error(args: &[&str], want: &[&str]) -> String {
    let out = diskdash(args);
    let code = i32::from(crate::support::usage_exit_code(args));
    assert_eq!(out.code, Some(code), "{args:?}: stderr: {}", out.stderr);
    assert_eq!(out.stdout_bytes, 0, "{args:?}: stdout: {}", out.stdout);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: stderr: {}", out.stderr);
    let line = lines[0];
    assert!(line.starts_with("error: "), "{args:?}: {line}");
    for w in want {
        assert!(line.contains(w), "{args:?}: {line:?} lacks {w:?}");
    }
    line.to_owned()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn absurd_durations_are_one_line_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let target = s(dir.path());
    let bench = |extra: &[&'static str]| {
        let mut args = vec!["bench", "--ioengine", "null", "--size", "1M", "--no-tui"];
        args.extend_from_slice(extra);
        args.push(target);
        args
    };
    let cases: [(Vec<&str>, &[&str]); 9] = [
        (
            bench(&["--interval", "18446744073s"]),
            &["--interval \"18446744073s\" is too long", "10ms to 24h"],
        ),
        (
            bench(&["--interval", "25h"]),
            &["--interval \"25h\" is too long", "10ms to 24h"],
        ),
        (
            bench(&["--ramp", "5124096h", "--runtime", "1s"]),
            &[
                "--ramp \"5124096h\" is too long",
                "at most 8760h (365 days)",
            ],
        ),
        (
            bench(&["--runtime", "8761h"]),
            &[
                "--runtime \"8761h\" is too long",
                "at most 8760h (365 days)",
            ],
        ),
        (
            bench(&["--runtime", "99999999999999999999s"]),
            &["--runtime \"99999999999999999999s\" is too long", "8760h"],
        ),
        (
            vec!["iostat", "-x", "0.0000000001"],
            &["interval \"0.0000000001\" is too short", "10ms to 24h"],
        ),
        (
            vec!["iostat", "-x", "0.001", "3"],
            &["interval \"0.001\" is too short", "10ms to 24h"],
        ),
        (
            vec!["iostat", "-x", "86401", "1"],
            &["interval \"86401\" is too long", "10ms to 24h"],
        ),
        (
            vec!["--interval", "25h"],
            &["--interval \"25h\"", "10ms to 24h"],
        ),
    ];
    for (args, want) in cases {
        assert_one_line_usage_error(&args, want);
    }
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "a refused bench left files behind"
    );
}

#[test]
fn show_refuses_what_is_not_a_record_file_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("record.fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let huge = dir.path().join("huge.json");
    // Sparse: no data is written.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len((256 << 20) + 1)
        .unwrap();
    let cases: [(&str, &[&str]); 4] = [
        ("/dev/zero", &["/dev/zero is a character device"]),
        (s(&fifo), &["is a FIFO (named pipe)"]),
        (s(dir.path()), &["is a directory"]),
        (
            s(&huge),
            &["is 256.0 MiB, larger than any run record (at most 256 MiB)"],
        ),
    ];
    for (path, want) in cases {
        let line = assert_one_line_usage_error(&["show", path], want);
        assert!(line.contains(path), "{line}");
        assert!(
            line.contains("; give a file written by `diskdash bench --json`"),
            "{line}"
        );
    }
    // compare reads through the same loader: a FIFO as either side.
    let line = assert_one_line_usage_error(
        &["compare", s(&fifo), s(&fifo)],
        &["is a FIFO (named pipe)"],
    );
    assert!(line.contains(s(&fifo)), "{line}");
}

#[test]
fn clap_mistakes_are_one_line_usage_errors() {
    let cases: [(&[&str], &[&str]); 8] = [
        (
            &["bench", "--cpus", "-1"],
            &["--cpus \"-1\" is not a CPU list; use e.g. 0-3,6"],
        ),
        (
            &["iostat", "-q"],
            &[
                "unexpected argument '-q' found",
                "usage: diskdash iostat",
                "diskdash iostat --help",
            ],
        ),
        (
            &["iostat", "--bogus", "1"],
            &[
                "unexpected argument '--bogus' found",
                "usage: diskdash iostat",
            ],
        ),
        (
            &["iostat", "-o"],
            &[
                "a value is required for '-o <JSON>'",
                "diskdash iostat --help",
            ],
        ),
        (
            &["iostat", "-x", "1", "2", "3"],
            &["unexpected number \"3\" after INTERVAL and COUNT"],
        ),
        (&["iostat", "1", "-5"], &["count \"-5\" must be at least 1"]),
        (
            &["bench", "--runtim", "1s"],
            &[
                "unexpected argument '--runtim' found",
                "a similar argument exists: '--runtime'",
            ],
        ),
        (
            &["benchh"],
            &[
                "unrecognized subcommand 'benchh'",
                "a similar subcommand exists: 'bench'",
            ],
        ),
    ];
    for (args, want) in cases {
        assert_one_line_usage_error(args, want);
    }
}

#[test]
fn help_and_version_still_print_normally() {
    // `iostat -h` is sysstat's human-readable switch; its help is `--help`.
    for args in [&["--help"][..], &["bench", "--help"], &["iostat", "--help"]] {
        let out = diskdash(args);
        assert_eq!(out.code, Some(0), "{args:?}: {}", out.stderr);
        assert!(out.stdout.contains("Usage: diskdash"), "{}", out.stdout);
        assert!(out.stdout.lines().count() > 3, "{}", out.stdout);
        assert!(out.stderr.is_empty(), "{}", out.stderr);
    }
    let out = diskdash(&["--version"]);
    assert_eq!(out.code, Some(0));
    assert_eq!(
        out.stdout.trim(),
        format!("diskdash {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_format_version_that_is_not_a_whole_number_is_not_called_missing() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str); 3] = [
        (
            r#""2""#,
            "has record format_version \"2\", not a whole number; this diskdash reads versions 2 to 7",
        ),
        (
            "2.0",
            "has record format_version 2.0, not a whole number; this diskdash reads versions 2 to 7",
        ),
        (
            "",
            "has record format_version missing, this diskdash reads versions 2 to 7",
        ),
    ];
    for (i, (version, want)) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("v{i}.json"));
        let field = if version.is_empty() {
            String::new()
        } else {
            format!(r#", "format_version": {version}"#)
        };
        std::fs::write(&path, format!(r#"{{"format": "diskdash-bench"{field}}}"#)).unwrap();
        let line = assert_one_line_usage_error(&["show", s(&path)], &[want]);
        assert!(line.starts_with(&format!("error: {} ", s(&path))), "{line}");
        assert_one_line_usage_error(&["compare", s(&path), s(&path)], &[want]);
    }
}
