//! fio's `verify` on a mixed job and `verify_backlog`: a job that writes and reads logs each
//! block it wrote and checks those only (its own reads are plain reads, as fio's); with
//! `verify_backlog=N` it reads back its oldest logged blocks among its own I/O each time N
//! wait, counted as reads, and after the run what is left. fio's
//! examples/enospc-pressure.fio, scaled down, runs as a whole.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::fio_run::{fio, job_file};
use crate::support::*;

/// Runs `file` with fio's JSON on stdout and diskdash's record beside it: (output, fio's
/// JSON, the record).
fn run(dir: &Path, file: &str) -> (Output, Value, Value) {
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
    (out, doc, read_json(&record))
}

fn mixed(dir: &Path, extra: &str) -> String {
    format!(
        "[mixed]\nfilename={}\nsize=8m\nbs=4k\nrw=randrw\nioengine=psync\nverify=crc32c\n{extra}",
        dir.join("data").display()
    )
}

#[test]
fn verify_backlog_is_taken_on_mixed_and_write_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let file = job_file(
        dir.path(),
        &mixed(dir.path(), "verify_backlog=1024\nverify_backlog_batch=16\n"),
    );
    let out = fio(dir.path(), &["--parse-only", &file]);
    assert_success(&out);
    assert_stdout_has(
        &out,
        "verify=crc32c verify_backlog=1024 verify_backlog_batch=16",
    );
    let text = mixed(dir.path(), "verify_backlog=many\n");
    let out = crate::support::inproc::fio_parse_only(
        dir.path(),
        &["--parse-only", &job_file(dir.path(), &text)],
    );
    assert_usage_error(&out);
    assert_stderr_has(&out, r#"verify_backlog "many" is not a number of blocks"#);
    let text = mixed(dir.path(), "").replace("randrw", "randtrim");
    let out = crate::support::inproc::fio_parse_only(
        dir.path(),
        &["--parse-only", &job_file(dir.path(), &text)],
    );
    assert_usage_error(&out);
    assert_stderr_has(&out, "rw randtrim trims");
}

/// The file starts sparse: a mixed job's own reads of blocks it never wrote would fail a
/// check, so none fails only if they are not checked; every block it wrote is, once. As
/// fio's (2048 reads of 2048 I/Os, 1054 of them writes, in fio 3.33), its reads are its own
/// and its checks: 8 MiB of 4 KiB blocks.
#[test]
fn a_mixed_job_checks_each_block_it_wrote_and_not_its_own_reads() {
    for extra in [
        "",
        "verify_backlog=64\n",
        "verify_backlog=64\nverify_backlog_batch=16\n",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let file = job_file(dir.path(), &mixed(dir.path(), extra));
        let (out, doc, record) = run(dir.path(), &file);
        assert_success(&out);
        let job = &doc["jobs"][0];
        let written = job["write"]["total_ios"].as_u64().unwrap();
        assert!((700..1400).contains(&written), "{extra}: {written}");
        assert_eq!(job["read"]["total_ios"], 2048, "{extra}: {job}");
        let verify = &record["segments"][0]["jobs"][0]["verify"];
        assert_eq!(verify["blocks_checked"], written, "{extra}: {verify}");
        assert_eq!(verify["blocks_failed"], 0, "{extra}: {verify}");
    }
}

/// Holes punched in the file behind a mixed verifier's back (enospc-pressure.fio's race, on
/// purpose): a written block punched before its check reads back as zeros. With
/// verify_backlog the verifier checks among its writes and verify_fatal stops it at once;
/// without, it would find the hole only after its 30 s.
#[test]
fn a_backlog_check_finds_a_punched_block_during_the_run() {
    use std::os::fd::AsRawFd;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("shared");
    let text = format!(
        "[verifier]\nfilename={}\nsize=4m\nbs=4k\nioengine=psync\nrw=randrw\n\
         verify=crc32c\nverify_backlog=16\nverify_fatal=1\nruntime=30\ntime_based\n",
        data.display()
    );
    let file = job_file(dir.path(), &text);
    let record = dir.path().join("r.json");
    let started = std::time::Instant::now();
    let mut child = Command::new(BIN)
        .args(["fio", "--output-format=json", &file, "--json"])
        .arg(&record)
        .arg("--no-tui")
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    while !data.exists() && started.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let target = std::fs::OpenOptions::new().write(true).open(&data).unwrap();
    // A hole every 10 ms, somewhere in the 1024 blocks, until the run ends or 20 s pass.
    let mut at = 0u64;
    let mut ended = None;
    while ended.is_none() && started.elapsed().as_secs() < 20 {
        at = (at + 389) % 1024;
        let offset = libc::off_t::try_from(at * 4096).unwrap();
        // SAFETY: fallocate on a descriptor this test owns; the mode only punches a hole.
        unsafe {
            libc::fallocate(
                target.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset,
                4096,
            )
        };
        std::thread::sleep(std::time::Duration::from_millis(10));
        ended = child.try_wait().unwrap().map(|_| started.elapsed());
    }
    let out = child.wait_with_output().unwrap();
    let took = ended.unwrap_or_else(|| started.elapsed());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(took.as_secs() < 20, "it ran its 30 s: {took:?}");
    let record = read_json(&record);
    let verifier = &record["segments"][0]["jobs"][0];
    assert_eq!(verifier["error"]["operation"], "verify", "{verifier}");
    assert!(verifier["verify"]["blocks_failed"].as_u64().unwrap() >= 1);
    let failure = &verifier["verify"]["failures"][0];
    assert_eq!(failure["part"], "header", "zeros have no header: {failure}");
    assert_stderr_has(&out, "verify-fatal: stopped here");
}

/// The same invariant as fio's: reads are the job's own and its checks, one per write.
#[test]
#[ignore = "needs fio"]
fn fio_counts_a_mixed_verify_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("fio")
        .args([
            "--name=m",
            "--filename=fio.dat",
            "--size=8m",
            "--bs=4k",
            "--rw=randrw",
            "--ioengine=psync",
            "--verify=crc32c",
            "--verify_backlog=64",
            "--output-format=json",
        ])
        .current_dir(dir.path())
        .output()
        .expect("fio is installed");
    assert_success(&out);
    let fio_doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = job_file(dir.path(), &mixed(dir.path(), "verify_backlog=64\n"));
    let (out, doc, _) = run(dir.path(), &file);
    assert_success(&out);
    for doc in [&fio_doc, &doc] {
        assert_eq!(
            doc["jobs"][0]["read"]["total_ios"], 2048,
            "{}",
            doc["jobs"][0]
        );
        assert_eq!(doc["jobs"][0]["error"], 0);
    }
}

/// The options of fio 3.33's examples/enospc-pressure.fio.
const ENOSPC_PRESSURE: &str = "[global]\nioengine=libaio\ndirectory=/scratch\nfilesize=128G\n\
    size=999G\niodepth=128\ncontinue_on_error=write\nignore_error=,ENOSPC\nerror_dump=0\n\
    fallocate=none\nexitall\n\
    [dio-raicer]\nbs=128k\ndirect=1\nbuffered=0\nrw=randwrite\nruntime=100\n\
    filename=raicer\ntime_based\n\
    [punch_hole-raicer]\nbs=4k\nrw=randtrim\nfilename=raicer\n\
    [aio-dio-verifier]\ncreate_on_open=1\nverify=crc32c-intel\nverify_fatal=1\n\
    verify_dump=1\nverify_backlog=1024\nverify_async=4\ndirect=1\nbs=4k\nrw=randrw\n\
    filename=aio-dio-verifier\n";

/// fio's examples/enospc-pressure.fio with its paths in a 64 MiB ext4, filesize=16m and
/// runtime=2 (diskdash lays out the verifier's file, as it reads, where fio's create_on_open
/// does not: 40 MiB cannot hold both files): all three jobs run, the verifier (randrw, verify_backlog=1024, verify_fatal)
/// checks each block it wrote and finds none bad; ENOSPC writes are counted and gone past.
#[test]
#[ignore = "needs root"]
fn enospc_pressure_runs_whole_scaled_down() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("fs.img");
    ext4_image(&image, 64 << 20);
    let mnt = dir.path().join("mnt");
    let _mount = Mount::new(&["-o", "loop", image.to_str().unwrap()], &mnt);
    // fio's own file where a checkout is at hand, else its options as it sets them.
    let example =
        std::fs::read_to_string("/var/tmp/diskdash-fio-src/fio-3.33/examples/enospc-pressure.fio")
            .unwrap_or_else(|_| ENOSPC_PRESSURE.to_string());
    let text = example
        .replace(
            "directory=/scratch",
            &format!("directory={}", mnt.display()),
        )
        .replace("filesize=128G", "filesize=16m\nruntime=2")
        .replace("runtime=100", "runtime=2");
    let file = job_file(dir.path(), &text);
    let (out, doc, record) = run(dir.path(), &file);
    assert_success(&out);
    let jobs = doc["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["dio-raicer", "punch_hole-raicer", "aio-dio-verifier"]
    );
    for job in jobs {
        for key in [
            "error",
            "total_err",
            "first_error",
            "job options",
            "elapsed",
        ] {
            assert!(job.get(key).is_some(), "{key}: {job}");
        }
        for dir in ["read", "write", "trim"] {
            for key in [
                "io_bytes",
                "total_ios",
                "bw",
                "iops",
                "runtime",
                "clat_ns",
                "lat_ns",
            ] {
                assert!(job[dir].get(key).is_some(), "{dir}.{key}: {job}");
            }
        }
    }
    assert!(jobs[0]["write"]["total_ios"].as_u64().unwrap() > 0);
    assert!(jobs[1]["trim"]["total_ios"].as_u64().unwrap() > 0);
    let verifier = &jobs[2];
    assert!(
        verifier["read"]["total_ios"].as_u64().unwrap() > 0,
        "{verifier}"
    );
    let step = &record["segments"][0]["jobs"][2];
    let verify = &step["verify"];
    assert_eq!(verify["blocks_failed"], 0, "{verify}");
    // Each write that succeeded was logged and checked once; a failed one was not.
    let good_writes = verifier["write"]["io_bytes"].as_u64().unwrap() / 4096;
    assert_eq!(verify["blocks_checked"], good_writes, "{verify}");
    let failed_writes = step["continued"]["write"].as_u64().unwrap();
    assert_eq!(
        verifier["write"]["total_ios"].as_u64().unwrap(),
        good_writes + failed_writes,
        "{verifier}"
    );
}
