//! Data verification (`--verify`, `--verify-only`, `--verify-fatal`; fio's `verify`,
//! `verify_only`, `verify_fatal`): a write job's blocks are read back and checked after its
//! run; a block corrupted through a second descriptor between the write and a later
//! `--verify-only` read is reported at exactly its offset, a flipped header bit as a header
//! failure.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::support::record::*;
use crate::support::*;

/// Flips `mask` in the byte at `at` of `path`, through a descriptor of its own.
fn flip(path: &Path, at: u64, mask: u8) {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut byte = [0u8];
    file.seek(SeekFrom::Start(at)).unwrap();
    file.read_exact(&mut byte).unwrap();
    file.seek(SeekFrom::Start(at)).unwrap();
    file.write_all(&[byte[0] ^ mask]).unwrap();
    file.sync_all().unwrap();
}

#[test]
fn a_corrupted_block_is_found_at_its_offset_and_a_header_bit_as_a_header_failure() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.bin");
    sparse_file(&data, 8 << 20);
    for rw in ["write", "randwrite"] {
        let (out, record) = bench_ok(
            dir.path(),
            &args(
                &data,
                &format!(
                    "--rw {rw} --verify crc32c --size 8M --io-size 8M --runtime 30s \
                     --allow-destructive -q 8"
                ),
            ),
        );
        let verify = &record["verify"];
        assert_eq!(verify["kind"], "crc32c");
        assert_eq!(verify["blocks_failed"], 0, "{verify}");
        // One pass of 8 MiB writes every block once: all are read back.
        assert_eq!(verify["blocks_checked"], 2048, "{rw}: {verify}");
        assert!(verify["read_back_ns"].as_u64().unwrap() > 0);
        assert_stdout_has(&out, "  verify  crc32c: 2048 blocks checked, 0 failed");
    }
    // A later run reads the set back and finds it whole.
    let only = "--rw read --verify crc32c --verify-only --size 8M --io-size 8M --runtime 30s";
    let (_, record) = bench_ok(dir.path(), &args(&data, only));
    assert_eq!(record["verify"]["blocks_checked"], 2048);
    assert_eq!(record["verify"]["blocks_failed"], 0);

    // One payload byte of block 3 and one bit of block 7's offset field, behind its back.
    flip(&data, 3 * 4096 + 1000, 0x01);
    flip(&data, 7 * 4096 + 8, 0x04);
    let (out, record) = bench_fails(dir.path(), &args(&data, only));
    let verify = &record["verify"];
    assert_eq!(verify["blocks_checked"], 2048);
    assert_eq!(verify["blocks_failed"], 2, "{verify}");
    let failures = verify["failures"].as_array().unwrap();
    assert_eq!(failures[0]["offset_bytes"], 3 * 4096);
    assert_eq!(failures[0]["part"], "data");
    assert_eq!(failures[0]["at"], 1000, "{}", failures[0]);
    assert_eq!(failures[1]["offset_bytes"], 7 * 4096);
    assert_eq!(failures[1]["part"], "header");
    assert!(
        failures[1]["what"]
            .as_str()
            .unwrap()
            .contains("offset field 28676, expected 28672"),
        "{}",
        failures[1]
    );
    assert_eq!(record["error"]["operation"], "verify");
    assert_eq!(record["error"]["offset_bytes"], 3 * 4096);
    assert!(
        stderr(&out).contains("2 of 2048 blocks failed their check"),
        "{}",
        stderr(&out)
    );

    // --verify-fatal stops at the first.
    let fatal = format!("{only} --verify-fatal");
    let (out, record) = bench_fails(dir.path(), &args(&data, &fatal));
    assert_eq!(record["verify"]["blocks_failed"], 1);
    assert!(
        stderr(&out).contains("--verify-fatal: stopped here"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_verify_options_are_usage_errors_naming_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "--rw write --verify md5",
            r#"error: --verify "md5" is not a verify kind; use crc32c, xxhash, sha256 or pattern"#,
        ),
        (
            "--rw read --verify crc32c",
            "error: --verify on a read job checks what a --verify write left: add --verify-only 1, or write first (e.g. --rw write --verify crc32c)",
        ),
        (
            "--rw trimwrite --verify crc32c",
            "error: --verify needs a job that writes, or writes and reads (--rw trimwrite trims, which a read-back cannot tell from its writes); use --rw write, randwrite or randrw",
        ),
        (
            "--rw write --verify crc32c --verify-only",
            "error: --verify-only reads back a written set, and --rw write writes; use --rw read or randread",
        ),
        (
            "--rw read --verify-only",
            "error: --verify-only needs --verify KIND (crc32c, xxhash, sha256 or pattern)",
        ),
        (
            "--rw write --verify crc32c --bssplit 4k/50:8k/50",
            "error: --verify with --bssplit: a smaller block written over part of a larger one would fail its check; use one --bs",
        ),
        (
            "--rw randwrite --verify crc32c --random-distribution zipf:1.2",
            "error: --verify writes each block once per pass, so --random-distribution does not apply; drop one",
        ),
    ];
    assert_bench_refuses(dir.path(), cases, Line::Whole);
}

/// fio's verify on the same job reads back as many blocks as it wrote; so does diskdash's.
#[test]
#[ignore = "needs fio"]
fn a_verified_write_reads_back_as_many_blocks_as_fio_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("fio")
        .args([
            "--name=v",
            "--filename=fio.dat",
            "--rw=randwrite",
            "--bs=4k",
            "--size=8M",
            "--verify=crc32c",
            "--direct=1",
            "--ioengine=psync",
            "--output-format=json",
        ])
        .current_dir(dir.path())
        .output()
        .expect("fio is installed");
    assert_success(&out);
    let fio: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fio_job = &fio["jobs"][0];
    // fio counts its verify reads as reads.
    let fio_verified = fio_job["read"]["total_ios"].as_u64().unwrap();
    let fio_written = fio_job["write"]["total_ios"].as_u64().unwrap();
    assert_eq!((fio_written, fio_verified), (2048, 2048));

    let data = dir.path().join("dd.dat");
    sparse_file(&data, 8 << 20);
    let (_, record) = bench_ok(
        dir.path(),
        &args(
            &data,
            "--rw randwrite --verify crc32c --size 8M --io-size 8M --runtime 30s \
             --allow-destructive",
        ),
    );
    assert_eq!(record["write"]["total_ios"], fio_written);
    assert_eq!(record["verify"]["blocks_checked"], fio_verified);
    assert_eq!(record["verify"]["blocks_failed"], 0);
}

/// The read-back comes after the measured window: on a loop device nothing else uses, the
/// window's device counts are the run's writes and no reads, and so is the last interval's.
#[test]
#[ignore = "needs root"]
fn the_read_back_is_not_in_the_device_window() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    sparse_file(&image, 64 << 20);
    let dev = LoopDevice::attach_unique(&image);
    let (out, record) = bench_ok(
        dir.path(),
        &args(
            dev.path(),
            "--rw randwrite --verify crc32c --size 32M --runtime 3s --allow-destructive -q 8",
        ),
    );
    // Every block written is checked once (the random map writes each at most once a pass):
    // all 8192 when the pass ends within the runtime, as it does on an idle machine.
    let checked = record["verify"]["blocks_checked"].as_u64().unwrap();
    let written = record["write"]["total_ios"].as_u64().unwrap();
    assert!(checked > 0, "{}", record["verify"]);
    assert_eq!(checked, written.min(8192), "{}", record["verify"]);
    let rec = &record["device"]["reconciliation"];
    assert_eq!(rec["device_read_ios"], 0, "the read-back's reads: {rec}");
    // The job's read counts them, as fio's; the run's (what the disk is compared with) not.
    let job_read = &record["segments"][0]["jobs"][0]["read"];
    assert_eq!(job_read["total_ios"], checked, "{job_read}");
    assert!(job_read["runtime_ns"].as_u64().unwrap() > 0, "{job_read}");
    assert_eq!(record["read"]["total_ios"], 0);
    assert_eq!(rec["app_read_ios"], 0, "{rec}");
    assert_eq!(rec["device_write_ios"], rec["app_write_ios"], "{rec}");
    assert!(
        rec["verdict"].as_str().unwrap().starts_with("match:"),
        "{rec}"
    );
    assert_stdout_has(&out, "0 reads + ");
    let series = record["segments"][0]["series"].as_array().unwrap();
    for point in series {
        assert_eq!(point["device"]["r/s"], 0.0, "{point}");
    }
    // The last interval's device rate is the run's, not spread over the read-back too.
    let last = series.last().unwrap();
    let app = last["write"]["iops"].as_f64().unwrap();
    let device = last["device"]["w/s"].as_f64().unwrap();
    assert!(
        (device / app - 1.0).abs() < 0.1,
        "device w/s {device} against the run's {app} IOPS"
    );
}

/// In a step of two jobs, the verifying writer's read-back waits (here 3 s) for the other job's
/// measured I/O to end too: its disk's window holds its writes and no reads.
#[test]
#[ignore = "needs root"]
fn a_read_back_waits_for_the_steps_other_jobs() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.img"), dir.path().join("b.img"));
    sparse_file(&a, 64 << 20);
    sparse_file(&b, 64 << 20);
    let (writer, reader) = (LoopDevice::attach_unique(&a), LoopDevice::attach_unique(&b));
    let job = format!(
        "[global]\nioengine=io_uring\ndirect=1\nbs=4k\nsize=16M\ntime_based=1\n\
         [w]\nfilename={}\nrw=randwrite\nverify=crc32c\nruntime=1\n\
         [r]\nfilename={}\nrw=randread\nruntime=4\n",
        writer.path().display(),
        reader.path().display()
    );
    std::fs::write(dir.path().join("two.fio"), job).unwrap();
    let out = std::process::Command::new(BIN)
        .current_dir(dir.path())
        .args([
            "fio",
            "two.fio",
            "--allow-destructive",
            "--json",
            "two.json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let record = read_json(&dir.path().join("two.json"));
    assert_valid_record(&record);
    // The random map writes each block once per pass: a slow machine may not finish the
    // first pass in the writer's second, and then checks every block it wrote.
    let written = record["segments"][0]["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["name"] == "w")
        .unwrap()["write"]["total_ios"]
        .as_u64()
        .unwrap();
    assert_eq!(
        record["verify"]["blocks_checked"].as_u64(),
        Some(written.min(4096)),
        "{}",
        record["verify"]
    );
    let devices = record["segments"][0]["devices"].as_array().unwrap();
    let of = |name: String| {
        devices
            .iter()
            .find(|d| d["name"] == name.as_str())
            .unwrap_or_else(|| panic!("no {name} in {devices:?}"))["reconciliation"]
            .clone()
    };
    let w = of(writer.name());
    assert_eq!(w["device_read_ios"], 0, "the read-back's reads: {w}");
    assert_eq!(w["device_write_ios"], w["app_write_ios"], "{w}");
    let r = of(reader.name());
    assert_eq!(r["device_read_ios"], r["app_read_ios"], "{r}");
}

/// fio counts a verifying write job's read-back in the job's read, over the read-back's own
/// time; `diskdash fio` does too: the same reads and bytes as fio, and the read's rates over
/// its own runtime, a part of the run's.
#[test]
#[ignore = "needs fio"]
fn diskdash_fio_counts_the_read_back_in_the_jobs_read_as_fio_does() {
    let job = [
        "--name=v",
        "--filename=v.dat",
        "--rw=write",
        "--verify=crc32c",
        "--size=16M",
        "--bs=4k",
        "--ioengine=psync",
        "--output-format=json",
    ];
    let theirs = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("fio")
        .args(job)
        .current_dir(theirs.path())
        .output()
        .expect("fio is installed");
    assert_success(&out);
    let fio: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let out = crate::fio_run::fio(ours.path(), &job);
    let wall_ms = u64::try_from(started.elapsed().as_millis()).unwrap();
    assert_success(&out);
    let diskdash: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let (fio_read, read) = (&fio["jobs"][0]["read"], &diskdash["jobs"][0]["read"]);
    assert_eq!(fio_read["total_ios"], 4096, "{fio_read}");
    assert_eq!(fio_read["io_bytes"], 16 << 20, "{fio_read}");
    assert_eq!(read["total_ios"], fio_read["total_ios"], "{read}");
    assert_eq!(read["io_bytes"], fio_read["io_bytes"], "{read}");
    assert_eq!(read["lat_ns"]["N"], 4096, "{read}");
    assert!(read["clat_ns"]["min"].as_u64().unwrap() > 0, "{read}");
    let runtime = read["runtime"].as_u64().unwrap();
    assert!(
        runtime > 0 && runtime < wall_ms,
        "read runtime {runtime} ms of {wall_ms} ms"
    );
    // The rate is over the read-back's time, not the writes'.
    let bw = read["bw_bytes"].as_f64().unwrap();
    let over_runtime = (16u64 << 20) as f64 * 1000.0 / runtime as f64;
    assert!(
        (bw / over_runtime - 1.0).abs() < 0.05,
        "read bw {bw} B/s against 16 MiB over {runtime} ms"
    );
    assert_eq!(diskdash["jobs"][0]["write"]["total_ios"], 4096);
}

/// fio's `job_runtime` of a verifying write job is its write phase and its verify phase
/// (fio 3.33 on this job: 112 ms = write 55 + read 58, within a ms or two); `diskdash fio`'s
/// is too, where it was the write phase alone.
#[test]
#[ignore = "needs fio"]
fn a_verifying_jobs_runtime_is_its_write_and_its_read_back_as_fios() {
    let job = [
        "--name=v",
        "--filename=v.dat",
        "--rw=write",
        "--verify=crc32c",
        "--size=16M",
        "--bs=4k",
        "--output-format=json",
    ];
    let runtimes = |doc: &serde_json::Value| {
        let job = &doc["jobs"][0];
        let ms = |v: &serde_json::Value| v.as_u64().unwrap();
        (
            ms(&job["job_runtime"]),
            ms(&job["read"]["runtime"]),
            ms(&job["write"]["runtime"]),
        )
    };
    let theirs = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("fio")
        .args(job)
        .current_dir(theirs.path())
        .output()
        .expect("fio is installed");
    assert_success(&out);
    let fio = runtimes(&serde_json::from_slice(&out.stdout).unwrap());
    let ours = tempfile::tempdir().unwrap();
    let out = crate::fio_run::fio(ours.path(), &job);
    assert_success(&out);
    let diskdash = runtimes(&serde_json::from_str(&stdout(&out)).unwrap());
    for (who, (total, read, write)) in [("fio", fio), ("diskdash", diskdash)] {
        assert!(read > 0 && write > 0, "{who}: {total} {read} {write}");
        // Each phase is counted in whole ms, the total once: a ms or two apart.
        assert!(
            total + 3 >= read + write && total <= read + write + 3,
            "{who}: job_runtime {total} ms, read {read} ms + write {write} ms"
        );
    }
}

/// fio's `continue_on_error=verify`: a block that fails its check is a failed I/O of class
/// verify (EILSEQ), counted in `total_err` with `first_error` 84 (not in `total_ios`: its read
/// is counted), and the job goes on and passes; without the class, or with a `VERIFY` list of
/// `ignore_error` that leaves EILSEQ out, the run fails on it as before. (fio 3.33, the same
/// steps on its own file, two blocks flipped: exit 0, `error` 84, `total_err` 2,
/// `first_error` 84, read `total_ios` 1024.)
#[test]
fn continue_on_error_verify_counts_a_failed_check_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let job = |rw: &str, extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = [
            "--name=v",
            "--filename=v.dat",
            "--verify=crc32c",
            "--size=4M",
            "--bs=4k",
            "--ioengine=psync",
            "--output-format=json",
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
        args.push(format!("--rw={rw}"));
        args.extend(extra.iter().map(|s| (*s).to_string()));
        args
    };
    let run = |args: &[String]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        crate::fio_run::fio(dir.path(), &args)
    };
    assert_success(&run(&job("write", &[])));
    flip(&dir.path().join("v.dat"), 3 * 4096 + 100, 0x01);
    flip(&dir.path().join("v.dat"), 9 * 4096 + 2000, 0x10);
    let record = dir.path().join("r.json");
    let record_arg = ["--json", record.to_str().unwrap()];
    let out = run(&job(
        "read",
        &[
            &["--verify_only=1", "--continue_on_error=verify"][..],
            &record_arg,
        ]
        .concat(),
    ));
    assert_success(&out);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let v = &doc["jobs"][0];
    assert_eq!(v["error"], libc::EILSEQ, "{v}");
    assert_eq!(v["total_err"], 2, "{v}");
    assert_eq!(v["first_error"], libc::EILSEQ, "{v}");
    assert_eq!(v["read"]["total_ios"], 1024, "every block read: {v}");
    let record = read_json(&record);
    assert_valid_record(&record);
    assert_eq!(record["status"], "completed");
    assert_eq!(record["verify"]["blocks_failed"], 2);
    let continued = &record["segments"][0]["jobs"][0]["continued"];
    assert_eq!(continued["total"], 2, "{continued}");
    assert_eq!(continued["first_errno"], libc::EILSEQ, "{continued}");
    assert_eq!(continued["read"], 0, "{continued}");

    for extra in [
        &["--continue_on_error=read"][..],
        &["--continue_on_error=verify", "--ignore_error=,,EIO"][..],
    ] {
        let out = run(&job("read", &[&["--verify_only=1"][..], extra].concat()));
        assert!(!out.status.success(), "{extra:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("2 of 1024 blocks failed their check"),
            "{extra:?}: {}",
            stderr(&out)
        );
    }
}
