//! The files a fio job names: laid out before the run as fio lays them out, marked as the
//! job's own (`user.diskdash`) so the same job reruns over them without `--allow-destructive`,
//! while a file it did not make, made for another job, or replaced keeps the interlock.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{assert_success, assert_usage_error, stderr};

use crate::fio_run::fio;

/// A writer and a reader over files of their own.
const JOBS: &str = "\
[global]
ioengine=psync
size=2M
bs=64k

[writer]
rw=write
filename=own-w

[reader]
rw=randread
filename=own-r
";

#[test]
fn a_rerun_of_a_job_file_over_its_own_files_needs_no_opt_in() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("jobs.fio"), JOBS).unwrap();
    assert_success(&fio(dir.path(), &["jobs.fio"]));
    let again = fio(dir.path(), &["jobs.fio"]);
    assert_success(&again);
    assert!(
        !stderr(&again).contains("created"),
        "the files are reused, not made again: {}",
        stderr(&again)
    );
}

#[test]
fn a_file_the_job_did_not_make_stays_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("jobs.fio"), JOBS).unwrap();
    std::fs::write(dir.path().join("own-w"), vec![7u8; 1 << 20]).unwrap();
    let out = fio(dir.path(), &["jobs.fio"]);
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out),
        "error: job writer: refusing to write to own-w: it holds 1 MiB of data; pass \
         --allow-destructive to overwrite it\n"
    );
    assert_eq!(
        std::fs::read(dir.path().join("own-w")).unwrap(),
        vec![7u8; 1 << 20]
    );
}

/// The mark is the file's, not a job's: a file one job laid out, unchanged since, is rewritten
/// by another job of a later run without the opt-in (wrappers name their jobs `prepare`,
/// `read`, `write`); once something else changed it, no job may.
#[test]
fn a_file_made_by_any_job_unchanged_since_may_be_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let job = |name: &str| {
        [
            format!("--name={name}"),
            "--rw=write".into(),
            "--size=1M".into(),
            "--filename=shared".into(),
        ]
    };
    let first = job("first");
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    assert_success(&fio(dir.path(), &first));
    let second = job("second");
    let second: Vec<&str> = second.iter().map(String::as_str).collect();
    assert_success(&fio(dir.path(), &second));
    // Changed by something else since: refused for every job.
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("shared"))
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"theirs"))
        .unwrap();
    for args in [&first, &second] {
        let out = fio(dir.path(), args);
        assert_usage_error(&out);
        assert!(
            stderr(&out).contains("refusing to write to shared"),
            "{}",
            stderr(&out)
        );
    }
}

/// `cp --preserve=xattr` over the name: the mark travels, the inode does not.
fn replace_keeping_xattrs(dir: &Path, name: &str) {
    let copy = format!("{name}.copy");
    for args in [
        vec!["--preserve=xattr", name, copy.as_str()],
        vec!["-f", copy.as_str(), name],
    ] {
        let program = if args[0] == "-f" { "mv" } else { "cp" };
        let status = Command::new(program)
            .args(&args)
            .current_dir(dir)
            .status()
            .unwrap();
        assert!(status.success(), "{program} {args:?}");
    }
}

#[test]
fn a_replaced_file_loses_the_jobs_mark() {
    let dir = tempfile::tempdir().unwrap();
    let job = ["--name=w", "--rw=write", "--size=1M", "--filename=data"];
    assert_success(&fio(dir.path(), &job));
    replace_keeping_xattrs(dir.path(), "data");
    let out: Output = fio(dir.path(), &job);
    assert_usage_error(&out);
    assert!(
        stderr(&out).contains("refusing to write to data: it holds 1 MiB of data"),
        "{}",
        stderr(&out)
    );
}

/// fio lays out a pure write job's new file before the job starts (allocated, at its size,
/// not written): a writer capped by time finds the whole file there, not a file it appended
/// to.
#[test]
fn a_new_file_of_a_write_job_is_laid_out_at_its_size_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--name=w",
            "--rw=write",
            "--size=8M",
            "--rate=1m",
            "--runtime=1",
            "--filename=data",
        ],
    );
    assert_success(&out);
    let meta = std::fs::metadata(dir.path().join("data")).unwrap();
    assert_eq!(meta.len(), 8 << 20, "{}", stderr(&out));
    assert!(
        std::os::unix::fs::MetadataExt::blocks(&meta) * 512 >= 8 << 20,
        "allocated: {} blocks",
        std::os::unix::fs::MetadataExt::blocks(&meta)
    );
}

/// The cpu line is the job's own on fio's scale: its worker thread's user and system time over
/// its run time. One psync worker cannot take more than one CPU, and a job that moved data
/// took some.
#[test]
fn the_cpu_of_one_psync_worker_is_on_fios_scale() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--name=r",
            "--rw=randread",
            "--ioengine=psync",
            "--size=8M",
            "--runtime=1",
            "--time_based",
            "--filename=data",
            "--output-format=json",
        ],
    );
    assert_success(&out);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let job = &json["jobs"][0];
    let (usr, sys) = (
        job["usr_cpu"].as_f64().unwrap(),
        job["sys_cpu"].as_f64().unwrap(),
    );
    assert!(
        usr + sys > 0.0 && usr + sys <= 100.5,
        "usr={usr}% sys={sys}%: one worker thread, at most one CPU"
    );
}

/// Length and allocated bytes of `path`.
fn length_and_allocated(path: &Path) -> (u64, u64) {
    let meta = std::fs::metadata(path).unwrap();
    (
        meta.len(),
        std::os::unix::fs::MetadataExt::blocks(&meta) * 512,
    )
}

/// fio's `fallocate` picks how the new file is laid out: `none` (and `0`) leaves it empty to
/// grow as written, `keep` allocates it at length 0, `truncate` sizes it sparse; a writer
/// capped at about 512 KiB shows which.
#[test]
fn fallocate_picks_how_a_write_jobs_new_file_is_laid_out() {
    let dir = tempfile::tempdir().unwrap();
    for mode in ["none", "0", "keep", "truncate"] {
        let name = format!("data-{mode}");
        let out = fio(
            dir.path(),
            &[
                "--name=w",
                "--rw=write",
                "--bs=64k",
                "--size=8M",
                "--rate=1m",
                "--runtime=500ms",
                &format!("--fallocate={mode}"),
                &format!("--filename={name}"),
            ],
        );
        assert_success(&out);
        let (len, allocated) = length_and_allocated(&dir.path().join(&name));
        let err = stderr(&out);
        match mode {
            "none" | "0" => {
                assert!(len > 0 && len < 4 << 20, "{mode}: grew to {len}: {err}");
                assert!(allocated < 4 << 20, "{mode}: {allocated} allocated: {err}");
                assert!(err.contains("fallocate=none"), "{mode}: {err}");
            }
            "keep" => {
                assert!(len > 0 && len < 4 << 20, "keep: length {len}: {err}");
                assert!(allocated >= 8 << 20, "keep: {allocated} allocated: {err}");
            }
            _ => {
                assert_eq!(len, 8 << 20, "truncate: {err}");
                assert!(
                    allocated < 4 << 20,
                    "truncate: {allocated} allocated: {err}"
                );
            }
        }
    }
}

/// `--parse-only` shows a `fallocate` other than fio's default, and names a bad one.
#[test]
fn fio_parse_only_shows_fallocate() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--parse-only",
            "--size=16M",
            "--rw=write",
            "--name=plain",
            "--name=grows",
            "--fallocate=0",
        ],
    );
    assert_success(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    // The `options` line under `  job NAME`.
    let line = |job: &str| {
        text.lines()
            .skip_while(|l| !l.starts_with(&format!("  job {job} ")))
            .find(|l| l.starts_with("    options  "))
            .unwrap_or_else(|| panic!("no options for {job}: {text}"))
            .to_string()
    };
    assert!(!line("plain").contains("fallocate"), "{text}");
    assert!(line("grows").contains(" fallocate=none"), "{text}");
    // The refusal in this process (`main`'s own steps): the spawn above keeps the binary honest.
    let out = crate::support::inproc::fio_parse_only(
        dir.path(),
        &[
            "--parse-only",
            "--name=x",
            "--size=16M",
            "--fallocate=maybe",
        ],
    );
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out),
        "error: --fallocate \"maybe\" is not a way to preallocate; use none, native, posix, \
         keep, truncate, 0 or 1\n"
    );
}
