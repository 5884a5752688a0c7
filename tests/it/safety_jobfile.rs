//! Job files and includes are read only when they are regular files, under byte, line and job caps; fio --output replaces only what it may.
//!
//! Every bomb runs the real binary under a timeout and an address-space limit, and must fail
//! with one `error: ` line and exit 2 in under 2 s of its own CPU time (`wait4`'s rusage: a
//! loaded machine stretches the wall clock, not the work) with under 100 MB resident (its own
//! peak, `VmHWM`, polled while it runs), and within the 10 s timeout on the wall clock.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::BIN;
use crate::support::limited::{self, Limited};

/// A command still running after this is a failure (and is killed).
const TIMEOUT: Duration = Duration::from_secs(10);
/// The CPU time (user and system) a refused bomb may take.
const BOMB_SECONDS: Duration = Duration::from_secs(2);
const BOMB_RSS_BYTES: u64 = 100_000_000;
/// Address-space limit of the command under test: a bomb that grows dies here, not the machine.
const ADDRESS_SPACE_BYTES: u64 = 2 << 30;
/// Runs `diskdash ARGS` in `dir` with `stdin` and `envs`, at most [`TIMEOUT`] and
/// [`ADDRESS_SPACE_BYTES`], measuring its time and peak resident memory.
fn diskdash_in(dir: &Path, args: &[&str], stdin: Stdio, envs: &[(&str, &str)]) -> Limited {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(dir)
        .stdin(stdin);
    let ran = limited::run(command, Some(ADDRESS_SPACE_BYTES), TIMEOUT);
    assert!(
        !ran.timed_out,
        "diskdash {args:?} ran past {TIMEOUT:?}: {}",
        ran.stderr
    );
    ran
}

/// Asserts a bomb was refused: exit 2, exactly one `error: ` line holding each of `want`, in
/// under [`BOMB_SECONDS`] of CPU and [`BOMB_RSS_BYTES`]. Returns the line.
fn refused(ran: &Limited, want: &[&str]) -> String {
    eprintln!(
        "refused in {:.3} s ({:.3} s of CPU), {} KiB resident: {}",
        ran.took.as_secs_f64(),
        ran.cpu.as_secs_f64(),
        ran.peak_rss_bytes / 1024,
        ran.stderr.trim_end()
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    let lines: Vec<&str> = ran.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {}", ran.stderr);
    assert!(lines[0].starts_with("error: "), "{}", ran.stderr);
    for want in want {
        assert!(lines[0].contains(want), "{want:?} in {}", ran.stderr);
    }
    assert!(
        ran.cpu < BOMB_SECONDS,
        "took {:?} of CPU ({:?} in all): {}",
        ran.cpu,
        ran.took,
        ran.stderr
    );
    assert!(
        ran.peak_rss_bytes < BOMB_RSS_BYTES,
        "{} KiB resident: {}",
        ran.peak_rss_bytes / 1024,
        ran.stderr
    );
    lines[0].to_string()
}

fn bomb(dir: &Path, args: &[&str], want: &[&str]) -> String {
    refused(&diskdash_in(dir, args, Stdio::null(), &[]), want)
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn includes_of_devices_fifos_and_kernel_files_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    nix::unistd::mkfifo(
        &d.join("pipe"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .unwrap();
    write(d, "zero.fio", "[a]\ninclude /dev/zero\n");
    write(d, "fifo.fio", "[a]\nsize=1M\ninclude pipe\n");
    write(d, "kmsg.fio", "[a]\ninclude /proc/kmsg\n");
    write(d, "dir.fio", "[a]\ninclude /tmp\n");
    assert_eq!(
        bomb(d, &["fio", "zero.fio", "--parse-only"], &[]),
        "error: zero.fio:2: job file /dev/zero is a character device, not a regular file; give \
         a fio job file (- reads stdin)"
    );
    bomb(
        d,
        &["fio", "fifo.fio", "--parse-only"],
        &["fifo.fio:3: job file pipe is a FIFO, not a regular file"],
    );
    bomb(
        d,
        &["fio", "kmsg.fio", "--parse-only"],
        &["kmsg.fio:2: job file /proc/kmsg is a kernel file of procfs, not a regular file"],
    );
    bomb(
        d,
        &["fio", "dir.fio", "--parse-only"],
        &["dir.fio:2: job file /tmp is a directory, not a regular file"],
    );
    // The FIFO was never opened for reading by anyone else: a writer would still block.
    assert!(d.join("pipe").exists());
}

#[test]
fn dev_zero_as_the_job_file_or_on_stdin_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_eq!(
        bomb(d, &["fio", "/dev/zero", "--parse-only"], &[]),
        "error: job file /dev/zero is a character device, not a regular file; give a fio job \
         file (- reads stdin)"
    );
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let ran = diskdash_in(d, &["fio", "-", "--parse-only"], Stdio::from(zero), &[]);
    assert_eq!(
        refused(&ran, &[]),
        "error: stdin takes the job files read past 16 MiB (the limit over every file and \
         include, an include read twice counts twice); shorten it or include each file once"
    );
    // Stdin that is a job file is read as before.
    write(d, "ok.fio", "[a]\nsize=1M\n");
    let job = std::fs::File::open(d.join("ok.fio")).unwrap();
    let ran = diskdash_in(d, &["fio", "-", "--parse-only"], Stdio::from(job), &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.stdout.contains("a"), "{}", ran.stdout);
}

#[test]
fn a_hundred_thousand_lines_and_a_thousand_jobs_are_refused() {
    let _turn = crate::support::timing_turn();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The probe's 634 KB file: 100k bs= lines under [global], then 1000 jobs.
    let mut text = String::from("[global]\nsize=1M\n");
    text.push_str(&"bs=4k\n".repeat(100_000));
    for i in 0..1000 {
        text.push_str(&format!("[j{i}]\n"));
    }
    write(d, "lines.fio", &text);
    assert_eq!(
        bomb(d, &["fio", "lines.fio", "--parse-only"], &[]),
        "error: lines.fio:65537: the job files read pass 65536 lines besides comments (the \
         limit over every file and include, an include read twice counts twice); shorten them \
         or include each file once"
    );
    // Under the line limit, the product of global options and jobs is refused before mapping.
    let mut text = String::from("[global]\nsize=1M\n");
    text.push_str(&"bs=4k\n".repeat(60_000));
    for i in 0..1000 {
        text.push_str(&format!("[j{i}]\n"));
    }
    write(d, "product.fio", &text);
    assert_eq!(
        bomb(d, &["fio", "product.fio", "--parse-only"], &[]),
        "error: the 1000 jobs take 60001000 options in all (each repeats the [global] options \
         above it); the limit is 262144; put fewer options in [global] or run fewer jobs"
    );
}

#[test]
fn files_including_the_next_ten_times_stop_at_the_file_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for i in 0..10 {
        let head = if i == 0 { "[a]\nsize=1M\n" } else { "" };
        let includes = format!("include f{}.fio\n", i + 1).repeat(10);
        write(d, &format!("f{i}.fio"), &format!("{head}{includes}"));
    }
    write(d, "f10.fio", "bs=4k\n");
    bomb(
        d,
        &["fio", "f0.fio", "--parse-only"],
        &[
            "would be file number 1025 read; the limit is 1024 files (an include read twice \
             counts twice); include each file once",
        ],
    );
}

#[test]
fn a_job_file_past_sixteen_mib_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = std::fs::File::create(d.join("huge.fio")).unwrap();
    file.set_len((16 << 20) + 1).unwrap();
    assert_eq!(
        bomb(d, &["fio", "huge.fio", "--parse-only"], &[]),
        "error: job file huge.fio takes the job files read past 16 MiB (the limit over every \
         file and include, an include read twice counts twice); shorten it or include each \
         file once"
    );
    // The cap is over all files: two of 9 MiB pass it too.
    for name in ["a.fio", "b.fio"] {
        let mut text = String::from("[global]\n");
        text.push_str(&"#".repeat(9 << 20));
        write(d, name, &text);
    }
    bomb(
        d,
        &["fio", "a.fio", "b.fio", "--parse-only"],
        &["job file b.fio takes the job files read past 16 MiB"],
    );
}

#[test]
fn long_expanded_lines_more_jobs_or_more_workers_than_fio_runs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut text = String::from("[global]\nsize=1M\n");
    for i in 0..4097 {
        text.push_str(&format!("[j{i}]\n"));
    }
    write(d, "jobs.fio", &text);
    assert_eq!(
        bomb(d, &["fio", "jobs.fio", "--parse-only"], &[]),
        "error: jobs.fio:4099: [j4096] would be job 4097; the limit is 4096 jobs; split them \
         into several runs"
    );
    let text = "[global]\nsize=1M\nnumjobs=1024\n[a]\n[b]\n[c]\n[d]\n[e]\n";
    write(d, "workers.fio", text);
    assert_eq!(
        bomb(d, &["fio", "workers.fio", "--parse-only"], &[]),
        "error: job e takes the workers to 5120 (numjobs summed over the jobs); the limit is \
         4096; lower numjobs or split the jobs into several runs"
    );
    // A line of ${VAR}s, each a large value: refused as it grows, not after.
    write(
        d,
        "env.fio",
        &format!("[a]\nsize=1M\ndescription={}\n", "${BIG}".repeat(1000)),
    );
    let big = "x".repeat(100 << 10);
    let ran = diskdash_in(
        d,
        &["fio", "env.fio", "--parse-only"],
        Stdio::null(),
        &[("BIG", &big)],
    );
    refused(
        &ran,
        &["env.fio:3: the line is longer than 64 KiB once ${VAR}s are expanded (the limit)"],
    );
}

/// A directory with a 1 MiB data file and a job reading it (`read.fio`), for quick real runs.
fn read_job() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data"), vec![7u8; 1 << 20]).unwrap();
    write(
        dir.path(),
        "read.fio",
        "[a]\nfilename=data\nsize=1M\nrw=read\ninclude common.fio\n",
    );
    write(dir.path(), "common.fio", "bs=64k\n");
    dir
}

fn run_fio(dir: &Path, args: &[&str]) -> Limited {
    let mut all = vec!["fio", "--no-tui"];
    all.extend_from_slice(args);
    diskdash_in(dir, &all, Stdio::null(), &[])
}

#[test]
fn fio_output_never_replaces_a_job_file_of_the_run_even_with_force() {
    let dir = read_job();
    let d = dir.path();
    let job = std::fs::read(d.join("read.fio")).unwrap();
    let include = std::fs::read(d.join("common.fio")).unwrap();
    for force in [&[][..], &["--force"][..]] {
        for (output, shown) in [
            ("--output=read.fio", "read.fio"),
            ("--output=./common.fio", "./common.fio"),
        ] {
            let mut args = vec!["read.fio", output];
            args.extend_from_slice(force);
            let ran = run_fio(d, &args);
            assert_eq!(
                refused(&ran, &[]),
                format!(
                    "error: --output {shown} is a job file of this run; write the report \
                     elsewhere"
                )
            );
        }
    }
    // Stdin redirected from the job file is an input too.
    let stdin = std::fs::File::open(d.join("read.fio")).unwrap();
    let ran = diskdash_in(
        d,
        &["fio", "--no-tui", "-", "--output=read.fio", "--force"],
        Stdio::from(stdin),
        &[],
    );
    refused(&ran, &["--output read.fio is a job file of this run"]);
    assert_eq!(std::fs::read(d.join("read.fio")).unwrap(), job);
    assert_eq!(std::fs::read(d.join("common.fio")).unwrap(), include);
}

#[test]
fn fio_output_replaces_reports_records_and_empty_files_and_nothing_else_without_force() {
    let dir = read_job();
    let d = dir.path();
    // Another file: refused before the run (no record made), kept as it was.
    write(d, "notes.txt", "my notes\n");
    let ran = run_fio(d, &["read.fio", "--output=notes.txt", "--json=rec.json"]);
    assert_eq!(
        refused(&ran, &[]),
        "error: --output notes.txt exists and is neither a fio report nor a diskdash record (9 \
         bytes); choose another name, or pass --force to replace it"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("notes.txt")).unwrap(),
        "my notes\n"
    );
    assert!(!d.join("rec.json").exists(), "refused before the run");
    // A report of fio's own, an empty file, our report and our record are replaced.
    write(
        d,
        "fio.txt",
        "a: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, \
         ioengine=psync, iodepth=1\nfio-3.33\nStarting 1 process\n",
    );
    write(d, "empty.txt", "");
    for (output, format) in [
        ("fio.txt", "normal"),
        ("empty.txt", "json"),
        ("fio.txt", "json"),
        ("empty.txt", "normal"),
    ] {
        let ran = run_fio(
            d,
            &[
                "read.fio",
                &format!("--output={output}"),
                &format!("--output-format={format}"),
            ],
        );
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        let report = std::fs::read_to_string(d.join(output)).unwrap();
        let first = if format == "json" {
            "{\n  \"fio version\": \"fio-3."
        } else {
            "a: (groupid=0, jobs=1): err= 0:"
        };
        assert!(report.starts_with(first), "{report}");
    }
    let ran = run_fio(d, &["read.fio", "--json=rec.json"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let ran = run_fio(d, &["read.fio", "--output=rec.json"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    // With --force, another file is replaced.
    let ran = run_fio(d, &["read.fio", "--output=notes.txt", "--force"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        std::fs::read_to_string(d.join("notes.txt"))
            .unwrap()
            .starts_with("a: (groupid=0")
    );
}

#[test]
fn fio_output_and_the_record_are_different_files() {
    let dir = read_job();
    let d = dir.path();
    for record in ["--json=out.txt", "--jsonl=./out.txt"] {
        let ran = run_fio(d, &["read.fio", "--output=out.txt", record]);
        let flag = record.split('=').next().unwrap();
        assert_eq!(
            refused(&ran, &[]),
            format!("error: --output out.txt is also {flag}'s file; give them different files")
        );
    }
    assert!(!d.join("out.txt").exists());
}
