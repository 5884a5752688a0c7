//! fio's `continue_on_error` and `ignore_error`: a job goes on past the failed I/Os of the
//! classes named, counts them, and reports fio's `error`, `total_err` and `first_error`; other
//! errors still end it. Real errors: ENOSPC from a small loop-mounted ext4.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::fio_run::{fio, job_file};
use crate::support::*;

/// fio's examples/enospc-pressure.fio, scaled down: a direct writer with `extra` and, unless
/// `alone`, a hole puncher racing it on one file.
fn raicer(dir: &Path, filesize: &str, extra: &str, alone: bool) -> String {
    let mut text = format!(
        "[global]\nioengine=libaio\ndirectory={}\nfilesize={filesize}\nsize=999G\niodepth=16\n\
         {extra}error_dump=0\nfallocate=none\nexitall\n\
         [dio-raicer]\nbs=128k\ndirect=1\nbuffered=0\nrw=randwrite\nruntime=1\n\
         filename=raicer\ntime_based\n",
        dir.display()
    );
    if !alone {
        text.push_str(
            "[punch_hole-raicer]\nbs=4k\nrw=randtrim\nfilename=raicer\nruntime=1\ntime_based\n",
        );
    }
    text
}

const PASS_ENOSPC: &str = "continue_on_error=write\nignore_error=,ENOSPC\n";

#[test]
fn continue_on_error_and_ignore_error_are_taken_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let file = job_file(dir.path(), &raicer(dir.path(), "64m", PASS_ENOSPC, false));
    let out = fio(dir.path(), &["--parse-only", &file]);
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        text.contains("continue_on_error=write") && text.contains("ignore_error=,ENOSPC"),
        "{text}"
    );
    // filesize is the file's length whatever size says (fio caps size at it).
    assert!(text.contains("(created, 64 MiB"), "{text}");
    assert!(!text.contains("999 GiB"), "{text}");

    for (bad, want) in [
        (
            "continue_on_error=sometimes\n",
            r#"continue_on_error "sometimes" is not an error class; use none, read, write, io, verify, all, 0 or 1"#,
        ),
        (
            "continue_on_error=write\nignore_error=,ENOSPACE\n",
            r#"ignore_error ",ENOSPACE": "ENOSPACE" is not an error"#,
        ),
    ] {
        let file = job_file(dir.path(), &raicer(dir.path(), "64m", bad, false));
        let out = crate::support::inproc::fio_parse_only(dir.path(), &["--parse-only", &file]);
        assert_usage_error(&out);
        assert_stderr_has(&out, want);
    }
}

#[test]
fn the_command_line_takes_continue_on_error_too() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--parse-only",
            "--name=a",
            "--size=1m",
            "--filename=f",
            "--rw=write",
            "--continue_on_error=io",
            "--ignore_error=EIO:EILSEQ,28",
        ],
    );
    assert_success(&out);
    assert_stdout_has(&out, "continue_on_error=io");
}

/// A 40 MiB ext4 mounted from a loop image under `dir/mnt`.
fn small_ext4(dir: &Path) -> (Mount, std::path::PathBuf) {
    let image = dir.join("fs.img");
    ext4_image(&image, 40 << 20);
    let mnt = dir.join("mnt");
    let mount = Mount::new(&["-o", "loop", image.to_str().unwrap()], &mnt);
    (mount, mnt)
}

fn run_json(dir: &Path, file: &str) -> (Output, Value) {
    let record = dir.join("r.json");
    let out = fio(
        dir,
        &[
            "--output-format=json",
            file,
            "--json",
            record.to_str().unwrap(),
        ],
    );
    let doc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&out), stderr(&out)));
    (out, doc)
}

#[test]
#[ignore = "needs root"]
fn enospc_passed_by_ignore_error_is_counted_and_the_job_runs_on() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let (_mount, mnt) = small_ext4(dir.path());
    // 64 MiB of file on about 30 MiB free: the writer runs into ENOSPC within its runtime.
    let file = job_file(dir.path(), &raicer(&mnt, "64m", PASS_ENOSPC, true));
    let (out, doc) = run_json(dir.path(), &file);
    assert_success(&out);
    let writer = &doc["jobs"][0];
    assert_eq!(writer["jobname"], "dio-raicer");
    // fio 3.33 on the same filesystem: error 28, total_err in the thousands, first_error 28.
    assert_eq!(writer["error"], libc::ENOSPC, "{writer}");
    assert_eq!(writer["first_error"], libc::ENOSPC, "{writer}");
    assert!(writer["total_err"].as_u64().unwrap() > 0, "{writer}");
    // It ran for its runtime past the first ENOSPC, and wrote what fit.
    let runtime_ms = writer["job_runtime"].as_u64().unwrap();
    assert!(runtime_ms >= 900, "{runtime_ms} ms");
    assert!(writer["write"]["io_bytes"].as_u64().unwrap() > 0);
    // fio counts the failed writes in total_ios, not in io_bytes: 128 KiB each that landed.
    let good = writer["write"]["io_bytes"].as_u64().unwrap() / (128 << 10);
    assert_eq!(
        writer["write"]["total_ios"].as_u64().unwrap(),
        good + writer["total_err"].as_u64().unwrap(),
        "{writer}"
    );
    assert_eq!(writer["read"]["total_ios"], 0);
    assert!(
        std::fs::metadata(mnt.join("raicer")).unwrap().len() > 0,
        "what was written stays"
    );
    // diskdash's own record keeps the count, and passes its schema.
    let record = read_json(&dir.path().join("r.json"));
    crate::support::record::assert_valid_record(&record);
    let job = &record["segments"][0]["jobs"][0];
    assert_eq!(job["continued"]["total"], writer["total_err"], "{job}");
    assert_eq!(job["continued"]["first_errno"], libc::ENOSPC);
    assert_eq!(job["continued"]["write"], writer["total_err"], "{job}");
    assert_eq!(job["continued"]["read"], 0, "{job}");
    assert_eq!(record["status"], "completed");
}

#[test]
#[ignore = "needs root"]
fn a_writer_and_a_hole_puncher_race_on_one_file() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let (_mount, mnt) = small_ext4(dir.path());
    let file = job_file(dir.path(), &raicer(&mnt, "16m", PASS_ENOSPC, false));
    let (out, doc) = run_json(dir.path(), &file);
    assert_success(&out);
    let (writer, trimmer) = (&doc["jobs"][0], &doc["jobs"][1]);
    assert!(
        writer["write"]["total_ios"].as_u64().unwrap() > 0,
        "{writer}"
    );
    assert_eq!(trimmer["jobname"], "punch_hole-raicer");
    assert!(
        trimmer["trim"]["total_ios"].as_u64().unwrap() > 0,
        "{trimmer}"
    );
    // continue_on_error is in [global]: fio prints both keys for each job.
    assert_eq!(trimmer["total_err"], 0, "{trimmer}");
    assert_eq!(writer["total_err"], 0, "a file that fits: {writer}");
}

#[test]
#[ignore = "needs root"]
fn enospc_outside_the_default_list_is_not_passed() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let (_mount, mnt) = small_ext4(dir.path());
    // continue_on_error=write without ignore_error passes EIO and EILSEQ only, as fio: a file
    // that cannot fit is refused before anything is written, as without continue_on_error.
    let file = job_file(
        dir.path(),
        &raicer(&mnt, "64m", "continue_on_error=write\n", true),
    );
    let out = fio(dir.path(), &["--output-format=json", &file]);
    assert_usage_error(&out);
    assert_stderr_has(&out, "no room");
    assert!(!mnt.join("raicer").exists());
}

/// continue_on_error=write passes EIO by default (fio's default ignore list): a filesystem
/// shut down under the writer fails every later write with EIO, and the job runs on to its
/// runtime, counting them.
#[test]
#[ignore = "needs root"]
fn eio_from_a_shut_down_filesystem_is_passed_by_continue_on_error_write() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let (_mount, mnt) = small_ext4(dir.path());
    let text = format!(
        "[global]\ndirectory={}\nfilesize=8m\ncontinue_on_error=write\n\
         [writer]\nioengine=psync\nbs=4k\ndirect=1\nrw=randwrite\nruntime=2\n\
         time_based\nfilename=eio\n",
        mnt.display()
    );
    let file = job_file(dir.path(), &text);
    let record = dir.path().join("r.json");
    let child = Command::new(BIN)
        .args(["fio", "--output-format=json", &file, "--json"])
        .arg(&record)
        .arg("--no-tui")
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    shutdown_ext4(&mnt);
    let out = child.wait_with_output().unwrap();
    assert_success(&out);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&out), stderr(&out)));
    let writer = &doc["jobs"][0];
    assert_eq!(writer["error"], libc::EIO, "{writer}");
    assert_eq!(writer["first_error"], libc::EIO, "{writer}");
    let failed = writer["total_err"].as_u64().unwrap();
    assert!(failed > 0, "{writer}");
    assert!(writer["job_runtime"].as_u64().unwrap() >= 1900, "{writer}");
    let good = writer["write"]["io_bytes"].as_u64().unwrap() / 4096;
    assert!(good > 0, "it wrote before the shutdown: {writer}");
    assert_eq!(writer["write"]["total_ios"], good + failed, "{writer}");
}
