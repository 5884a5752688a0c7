//! Every text a user or a record supplies is escaped before it reaches a terminal; serve's connection limits; show's and rotation's caps.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{BIN, assert_success, stderr, stdout};

/// A window title, a clipboard write (OSC 52), a screen clear, C1 CSI and a bidi override.
const PAYLOAD: &str = "\u{1b}]0;PWNED\u{7}\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J\u{9b}2J\u{202e}";

/// A directory name as the probe made it: `ev\e]0;PWNED\a\e[2Jdir`.
const HOSTILE_DIR: &str = "ev\u{1b}]0;PWNED\u{7}\u{1b}[2Jdir";

/// Panics when a stream carries anything a terminal acts on: a C0 control but `\n` and `\t`,
/// DEL, a C1 control (as a character or a raw byte), a bidi control, or bytes that are not
/// UTF-8. `what` names the command and stream.
fn assert_inert(bytes: &[u8], what: &str) {
    let text =
        std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{what}: not UTF-8 ({e}): {bytes:?}"));
    let bad = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if let Some((at, c)) = text.char_indices().find(|&(_, c)| bad(c)) {
        let from = text[..at].rfind('\n').map_or(0, |n| n + 1);
        panic!(
            "{what}: {c:?} reaches the terminal raw in line {:?}",
            text[from..].lines().next().unwrap_or_default()
        );
    }
}

/// Both streams of `out` inert, and the escaped payload visible where it was expected.
fn assert_output_inert(out: &Output, what: &str) {
    assert_inert(&out.stdout, &format!("{what}: stdout"));
    assert_inert(&out.stderr, &format!("{what}: stderr"));
}

fn diskdash(args: &[&str], dir: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running diskdash")
}

fn hostile_dir(parent: &Path) -> PathBuf {
    let dir = parent.join(HOSTILE_DIR);
    std::fs::create_dir(&dir).unwrap();
    dir
}

#[test]
fn bench_summary_and_status_lines_escape_the_target_directory() {
    let tmp = tempfile::tempdir().unwrap();
    hostile_dir(tmp.path());
    let out = diskdash(
        &[
            "bench",
            HOSTILE_DIR,
            "--no-tui",
            "--runtime",
            "300ms",
            "--size",
            "4M",
            "--interval",
            "100ms",
            "--json",
            "r.json",
        ],
        tmp.path(),
    );
    assert_success(&out);
    assert_output_inert(&out, "bench");
    let escaped = "ev\\u{1b}]0;PWNED\\u{7}\\u{1b}[2Jdir";
    assert!(stdout(&out).contains(escaped), "{}", stdout(&out));
    assert!(stderr(&out).contains(escaped), "{}", stderr(&out));
    // The record keeps the real name: escaping is for the terminal, not the data.
    let record: Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("r.json")).unwrap()).unwrap();
    assert!(
        record["target"]["path"]
            .as_str()
            .unwrap()
            .contains(HOSTILE_DIR)
    );
}

/// A job file whose section name, directory and a noted option carry the payload.
fn hostile_job_file(dir: &Path) -> PathBuf {
    hostile_dir(dir);
    let file = dir.join("evil.fio");
    std::fs::write(
        &file,
        format!(
            "[global]\nsize=4M\nruntime=200ms\ntime_based\n\n[job{PAYLOAD}]\nrw=randread\n\
             directory={HOSTILE_DIR}\ndescription=d{PAYLOAD}\n"
        ),
    )
    .unwrap();
    file
}

#[test]
fn fio_parse_only_showcmd_and_report_escape_job_names_and_paths() {
    let tmp = tempfile::tempdir().unwrap();
    hostile_job_file(tmp.path());
    for flag in ["--parse-only", "--showcmd"] {
        let out = diskdash(&["fio", flag, "evil.fio"], tmp.path());
        assert_success(&out);
        assert_output_inert(&out, flag);
        assert!(
            stdout(&out).contains("job\\u{1b}]0;PWNED"),
            "{}",
            stdout(&out)
        );
    }
    let out = diskdash(&["fio", "evil.fio"], tmp.path());
    assert_success(&out);
    assert_output_inert(&out, "fio run");
    assert!(
        stdout(&out).contains("\\u{1b}]52;c;ZXZpbA=="),
        "{}",
        stdout(&out)
    );
    // --output: a text report someone will `cat` is escaped the same way.
    let out = diskdash(&["fio", "evil.fio", "--output=report.txt"], tmp.path());
    assert_success(&out);
    assert_inert(
        &std::fs::read(tmp.path().join("report.txt")).unwrap(),
        "fio --output file",
    );
}

#[test]
fn sweep_header_points_and_table_escape_the_target() {
    let tmp = tempfile::tempdir().unwrap();
    hostile_dir(tmp.path());
    let out = diskdash(
        &["sweep", HOSTILE_DIR, "--bs", "4k,8k", "--points"],
        tmp.path(),
    );
    assert_success(&out);
    assert_output_inert(&out, "sweep --points");
    assert!(
        stderr(&out).contains("on ev\\u{1b}]0;PWNED"),
        "{}",
        stderr(&out)
    );
    for format in ["table", "markdown", "csv"] {
        let out = diskdash(
            &[
                "sweep",
                HOSTILE_DIR,
                "--bs",
                "4k,8k",
                "--runtime",
                "150ms",
                "--ramp",
                "0s",
                "--size",
                "4M",
                "--no-tui",
                "--format",
                format,
            ],
            tmp.path(),
        );
        assert_success(&out);
        assert_output_inert(&out, &format!("sweep --format {format}"));
    }
}

#[test]
fn mark_table_markdown_and_csv_escape_the_target() {
    let tmp = tempfile::tempdir().unwrap();
    hostile_dir(tmp.path());
    for format in ["table", "markdown"] {
        let out = diskdash(
            &[
                "mark",
                HOSTILE_DIR,
                "--profile",
                "realworld",
                "--size",
                "4M",
                "--runtime",
                "100ms",
                "--loops",
                "1",
                "--no-tui",
                "--format",
                format,
            ],
            tmp.path(),
        );
        assert_success(&out);
        assert_output_inert(&out, &format!("mark --format {format}"));
        assert!(
            stdout(&out).contains("ev\\u{1b}]0;PWNED"),
            "{}",
            stdout(&out)
        );
    }
}

/// `value` with the payload appended to every string but the enumerations a loader checks.
fn poison(value: &mut Value, key: &str) {
    const KEPT: [&str; 13] = [
        "format",
        "marks",
        "spread_over",
        "status",
        "started_at",
        "ended_at",
        "diskdash_version",
        "rw",
        "ioengine",
        "cpus_allowed_policy",
        "random_distribution",
        "kind",
        "stop_reason",
    ];
    match value {
        Value::String(s) if !KEPT.contains(&key) => s.push_str(PAYLOAD),
        Value::Array(items) => items.iter_mut().for_each(|v| poison(v, key)),
        Value::Object(map) => map.iter_mut().for_each(|(k, v)| poison(v, k)),
        _ => {}
    }
}

#[test]
fn compare_and_show_escape_every_string_of_a_crafted_record() {
    let tmp = tempfile::tempdir().unwrap();
    let out = diskdash(
        &[
            "bench",
            ".",
            "--no-tui",
            "--runtime",
            "200ms",
            "--size",
            "4M",
            "--json",
            "base.json",
        ],
        tmp.path(),
    );
    assert_success(&out);
    let mut record: Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("base.json")).unwrap()).unwrap();
    poison(&mut record, "");
    record["notes"]
        .as_array_mut()
        .unwrap()
        .push(format!("note{PAYLOAD}").into());
    record["warnings"] = serde_json::json!([format!("warning{PAYLOAD}")]);
    let crafted = format!("new{PAYLOAD}.json");
    std::fs::write(
        tmp.path().join(&crafted),
        serde_json::to_vec(&record).unwrap(),
    )
    .unwrap();
    let out = diskdash(
        &["compare", "base.json", &crafted, "--max-regression", "0"],
        tmp.path(),
    );
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    assert_output_inert(&out, "compare");
    let text = stdout(&out);
    for shown in [
        "warning\\u{1b}]0;PWNED",
        "]52;c;ZXZpbA==\\u{7}",
        "new\\u{1b}]0;PWNED",
        "\\u{202e}",
    ] {
        assert!(text.contains(shown), "compare lacks {shown:?}: {text}");
    }
    // show into a pipe prints the run's report as text, every name escaped.
    let out = diskdash(&["show", &crafted], tmp.path());
    assert_output_inert(&out, "show");
}

/// iostat's first line names the host; a hostname is any 64 bytes root chooses.
#[test]
#[ignore = "needs root"]
fn iostat_escapes_a_hostile_hostname() {
    use std::os::unix::process::CommandExt;
    crate::support::require_root();
    let mut command = Command::new(BIN);
    command.args(["iostat", "-d"]);
    // SAFETY: unshare and sethostname are plain syscalls, safe between fork and exec; the
    // name is built before the fork.
    unsafe {
        command.pre_exec(|| {
            nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWUTS)?;
            nix::unistd::sethostname("h\u{1b}]0;PWNED\u{7}\u{1b}[2J")?;
            Ok(())
        });
    }
    let out = command.output().unwrap();
    assert_success(&out);
    assert_output_inert(&out, "iostat");
    assert!(
        stdout(&out).contains("(h\\u{1b}]0;PWNED"),
        "{}",
        stdout(&out)
    );
}

/// `diskdash serve` under `ulimit -n 128`, its pid and address.
fn serve_with_few_descriptors() -> (std::process::Child, std::net::SocketAddr) {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(BIN);
    command
        .args(["serve", "--listen", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    // SAFETY: setrlimit is a plain syscall, safe between fork and exec.
    unsafe {
        command.pre_exec(|| {
            nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE, 128, 128)
                .map_err(std::io::Error::from)
        });
    }
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("diskdash serve: listening on http://")
        .and_then(|rest| rest.strip_suffix("/metrics"))
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .parse()
        .unwrap();
    (child, addr)
}

/// The process's open sockets (its listener and connections).
fn open_sockets(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter(|target| target.to_string_lossy().starts_with("socket:"))
        .count()
}

#[test]
fn serve_answers_a_scrape_while_a_thousand_idle_connections_are_open() {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;
    let (mut child, addr) = serve_with_few_descriptors();
    // The listener and the runtime's own (its signal socketpair).
    let idle_sockets = open_sockets(child.id());
    let idle: Vec<TcpStream> = (0..1000)
        .map(|_| TcpStream::connect(addr).expect("connecting an idle socket"))
        .collect();
    // Half of them started a request and stopped mid-header.
    for stream in idle.iter().step_by(2) {
        let _ = (&*stream).write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n");
    }
    for attempt in 0..3 {
        let mut scrape = TcpStream::connect(addr).unwrap();
        scrape
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        scrape
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut response = String::new();
        let read = scrape.read_to_string(&mut response);
        assert!(
            read.is_ok() && response.starts_with("HTTP/1.1 200") && response.contains("node_disk_"),
            "scrape {attempt} with 1000 idle connections open: {read:?} {:?}",
            response.lines().next()
        );
    }
    // The cap (64 connections) over its own, with room for two closed a moment ago: far below
    // the 1000 the client holds open and the 128 descriptors serve may have.
    let sockets = open_sockets(child.id());
    assert!(
        sockets <= idle_sockets + 64 + 2,
        "serve holds {sockets} sockets, {idle_sockets} before any connection"
    );
    drop(idle);
    let _ = child.kill();
    let _ = child.wait();
}

/// A monitor recording's header line (from a real `iostat --record`), then `bytes` in all:
/// the rest a hole, so a big set costs no disk.
fn sparse_recording(path: &Path, header: &str, bytes: u64) {
    std::fs::write(path, format!("{header}\n")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(bytes)
        .unwrap();
}

#[test]
fn show_refuses_a_rotated_set_past_its_cap_before_reading_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = diskdash(
        &["iostat", "0.01", "2", "--record", "seed.jsonl"],
        tmp.path(),
    );
    assert_success(&out);
    let seed = std::fs::read_to_string(tmp.path().join("seed.jsonl")).unwrap();
    let header = seed.lines().next().unwrap();
    // FILE, FILE.1, FILE.2: 300 MiB together, each alone under the cap.
    for name in ["rec.jsonl", "rec.jsonl.1", "rec.jsonl.2"] {
        sparse_recording(&tmp.path().join(name), header, 100 << 20);
    }
    let started = std::time::Instant::now();
    let out = diskdash(&["show", "rec.jsonl"], tmp.path());
    let took = started.elapsed();
    crate::support::assert_usage_error(&out);
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(
        err.trim_end(),
        "error: rec.jsonl and its rotated files rec.jsonl.1 .. rec.jsonl.2 (2 files) hold 300 \
         MiB, more than show reads of a recording (256 MiB); show one file alone (`diskdash \
         show rec.jsonl.1` reads no older file), or move the oldest files out of the directory"
    );
    assert!(took < std::time::Duration::from_secs(2), "took {took:?}");
    // The way out works: one file alone is read (and, with no terminal, refused as a
    // dashboard, not as too big).
    let out = diskdash(&["show", "rec.jsonl.1"], tmp.path());
    assert!(
        !stderr(&out).contains("more than show reads"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn record_keep_stops_at_100_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    for keep in ["101", "1000"] {
        let out = diskdash(
            &[
                "iostat",
                "--record",
                "r.jsonl",
                "--record-keep",
                keep,
                "0.01",
                "1",
            ],
            tmp.path(),
        );
        // iostat's usage errors exit 1, as sysstat's.
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert_eq!(
            stderr(&out).trim_end(),
            format!(
                "error: --record-keep \"{keep}\" is not a number of files; use 1 to 100 (`show` \
                 reads at most 256 MiB of a rotated set)"
            )
        );
        assert!(!tmp.path().join("r.jsonl").exists());
    }
    let out = diskdash(
        &[
            "iostat",
            "--record",
            "r.jsonl",
            "--record-keep",
            "100",
            "0.01",
            "2",
        ],
        tmp.path(),
    );
    assert_success(&out);
}
