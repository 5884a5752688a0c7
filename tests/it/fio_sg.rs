//! fio's sg engine on a block device: fio's sg examples accepted by `--parse-only`, each
//! `sg_write_mode`'s effect on a loop device's bytes and on the result, and a target that is
//! not a block device refused at run time.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{
    BIN, LoopDevice, assert_success, assert_usage_error, read_json, require_root, sparse_file,
    stderr, stdout,
};

/// The job files of fio's examples `sg_verify.fio`, `sg_verify-fail.fio` and
/// `sg_write_same_ndob.fio`, their sections and options as there, on `DEV`.
const SG_VERIFY: &str = "[global]\nfilename=DEV\nbuffer_pattern=0x01\nioengine=sg\nrw=write\n\
    bs=512\nnumber_ios=20\nstonewall\n[precon]\n[verify00]\nsg_write_mode=verify_bytchk_00\n\
    [verify01]\nsg_write_mode=verify_bytchk_01\n[verify01-two_ios]\n\
    sg_write_mode=verify_bytchk_01\nbs=5120\nnumber_ios=2\n[verify11]\n\
    sg_write_mode=verify_bytchk_11\n[verify11-five_ios]\nsg_write_mode=verify_bytchk_11\n\
    bs=2048\nnumber_ios=5\n[verify11-one_ios]\nsg_write_mode=verify_bytchk_11\nbs=10240\n\
    number_ios=1\n";
const SG_VERIFY_FAIL: &str = "[global]\nfilename=DEV\nbuffer_pattern=0x01\nioengine=sg\n\
    rw=write\nbs=512\nnumber_ios=20\nstonewall\n[precon]\n[verify01]\n\
    sg_write_mode=verify_bytchk_01\nnumber_ios=20\n[verify01-fail]\n\
    sg_write_mode=verify_bytchk_01\nnumber_ios=21\n[verify11-one_ios]\n\
    sg_write_mode=verify_bytchk_11\nnumber_ios=1\nbs=10240\n[verify11-fail]\n\
    sg_write_mode=verify_bytchk_11\nnumber_ios=1\nbs=10752\n";
const SG_WRITE_SAME_NDOB: &str = "[global]\nfilename=DEV\nbuffer_pattern=0x01\nioengine=sg\n\
    rw=write\nbs=512\nstonewall\n[precon]\nnumber_ios=20\n[write_same_ndob]\n\
    sg_write_mode=write_same_ndob\nnumber_ios=19\n[verify-pass]\n\
    sg_write_mode=verify_bytchk_01\nbuffer_pattern=0x00\nnumber_ios=19\n[verify-fail]\n\
    sg_write_mode=verify_bytchk_01\nbuffer_pattern=0x00\nnumber_ios=20\n";

fn fio(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("fio")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn job_file(dir: &Path, name: &str, text: &str, dev: &Path) -> String {
    std::fs::write(dir.join(name), text.replace("DEV", dev.to_str().unwrap())).unwrap();
    name.to_string()
}

/// A 16 MiB loop device over a zeroed file.
fn loop_device(dir: &Path) -> LoopDevice {
    let image = dir.join("disk.img");
    sparse_file(&image, 16 << 20);
    LoopDevice::attach_unique(&image)
}

fn device_bytes(dev: &LoopDevice, len: usize) -> Vec<u8> {
    let mut bytes = std::fs::read(dev.path()).unwrap();
    bytes.truncate(len);
    bytes
}

#[test]
fn fios_sg_examples_are_accepted_by_parse_only_as_fio_accepts_them() {
    let dir = tempfile::tempdir().unwrap();
    // fio's --parse-only looks at no device: a file stands in for /dev/sdb, as the examples'
    // counting script does.
    let dev = dir.path().join("sdb");
    sparse_file(&dev, 1 << 20);
    for (name, text) in [
        ("sg_verify.fio", SG_VERIFY),
        ("sg_verify-fail.fio", SG_VERIFY_FAIL),
        ("sg_write_same_ndob.fio", SG_WRITE_SAME_NDOB),
    ] {
        let file = job_file(dir.path(), name, text, &dev);
        let out = crate::support::inproc::fio_parse_only(dir.path(), &["--parse-only", &file]);
        assert_success(&out);
        let plan = crate::support::stdout(&out);
        assert!(plan.contains("sg_write_mode=write"), "{name}: {plan}");
        assert!(
            stderr(&out).contains("ioengine=sg: runs as diskdash's psync"),
            "{name}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn an_sg_job_on_a_regular_file_is_refused_when_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    sparse_file(&file, 1 << 20);
    let job = job_file(dir.path(), "v.fio", SG_VERIFY, &file);
    let out = fio(dir.path(), &["--allow-destructive", &job]);
    assert_usage_error(&out);
    let err = stderr(&out);
    let errors: Vec<_> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(
        errors,
        [format!(
            "error: target {} is a regular file: fio's sg engine only works on block or \
             character devices; name a block device for ioengine=sg, or use ioengine=psync on \
             a file",
            file.display()
        )],
        "{err}"
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        vec![0; 1 << 20],
        "nothing written"
    );
}

#[test]
#[ignore = "needs root"]
fn sg_verify_modes_pass_on_the_pattern_written_and_fail_past_it_naming_the_offset() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    let job = job_file(dir.path(), "v.fio", SG_VERIFY, dev.path());
    let out = fio(dir.path(), &["--allow-destructive", &job]);
    assert_success(&out);
    // precon wrote 20 blocks of 0x01; the verify jobs wrote nothing.
    let bytes = device_bytes(&dev, 16 << 10);
    assert!(bytes[..10240].iter().all(|&b| b == 1));
    assert!(bytes[10240..].iter().all(|&b| b == 0));

    // One block more than precon wrote: the 21st reads zeros, not the pattern.
    let job = job_file(dir.path(), "f.fio", SG_VERIFY_FAIL, dev.path());
    let out = fio(dir.path(), &["--allow-destructive", &job]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    let errors: Vec<_> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(
        errors,
        [
            "error: read at offset 10240 (10 KiB): sg_write_mode=verify_bytchk_01: byte 0 of \
             the block (offset 10240) reads 0x00 where the job's buffer holds 0x01 (a SCSI \
             MISCOMPARE in fio)"
        ],
        "{err}"
    );

    // verify_bytchk_11 compares each block with the buffer's first: 21 blocks in one I/O
    // fail at the 21st block's first byte.
    let job = job_file(
        dir.path(),
        "e.fio",
        "[a]\nfilename=DEV\nioengine=sg\nbuffer_pattern=0x01\nrw=write\nbs=10752\n\
         number_ios=1\nsg_write_mode=verify_bytchk_11\n",
        dev.path(),
    );
    let out = fio(dir.path(), &["--allow-destructive", &job]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "error: read at offset 0 (0 B): sg_write_mode=verify_bytchk_11: byte 10240 of the \
             block (offset 10240) reads 0x00"
        ),
        "{}",
        stderr(&out)
    );
}

/// A verify job runs as reads but compares with its buffer: without `buffer_pattern` the
/// buffer holds the job's pseudo-random bytes (as fio fills a writer's), never the zeros of a
/// device nobody wrote, so the compare fails.
#[test]
#[ignore = "needs root"]
fn an_sg_verify_without_a_pattern_compares_with_filled_buffers_not_zeros() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    let job = job_file(
        dir.path(),
        "z.fio",
        "[z]\nfilename=DEV\nioengine=sg\nrw=write\nbs=4k\nnumber_ios=1\n\
         sg_write_mode=verify_bytchk_01\n",
        dev.path(),
    );
    let out = fio(dir.path(), &["--allow-destructive", &job]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("reads 0x00 where the job's buffer holds 0x"),
        "{}",
        stderr(&out)
    );
}

#[test]
#[ignore = "needs root"]
fn write_same_repeats_the_first_block_and_ndob_writes_zeros() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    // A 3-byte pattern does not divide 512: write_same's second block starts over with the
    // first block's bytes, where the pattern would have gone on.
    let job = job_file(
        dir.path(),
        "same.fio",
        "[same]\nfilename=DEV\nioengine=sg\nbuffer_pattern=0x0a0b0c\nrw=write\nbs=4k\n\
         number_ios=2\nsg_write_mode=write_same\n",
        dev.path(),
    );
    let out = fio(dir.path(), &["--allow-destructive", &job]);
    assert_success(&out);
    let bytes = device_bytes(&dev, 16 << 10);
    let first: Vec<u8> = (0..512).map(|i| [0x0a, 0x0b, 0x0c][i % 3]).collect();
    for (i, block) in bytes[..8192].chunks(512).enumerate() {
        assert_eq!(block, first.as_slice(), "block {i}");
    }
    assert!(bytes[8192..].iter().all(|&b| b == 0));

    // write_same_ndob over the first 3 blocks: zeros there, the rest as it was.
    let job = job_file(
        dir.path(),
        "ndob.fio",
        "[ndob]\nfilename=DEV\nioengine=sg\nbuffer_pattern=0x0a0b0c\nrw=write\nbs=512\n\
         number_ios=3\nsg_write_mode=write_same_ndob\n",
        dev.path(),
    );
    let out = fio(dir.path(), &["--allow-destructive", &job]);
    assert_success(&out);
    let bytes = device_bytes(&dev, 8192);
    assert!(bytes[..1536].iter().all(|&b| b == 0));
    assert_eq!(&bytes[1536..2048], first.as_slice());

    // fio's example: precon, 19 blocks of zeros, a compare of 19 passes and of 20 fails.
    let job = job_file(dir.path(), "n.fio", SG_WRITE_SAME_NDOB, dev.path());
    let out = fio(dir.path(), &["--allow-destructive", &job]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "error: read at offset 9728 (9.5 KiB): sg_write_mode=verify_bytchk_01: byte 0 of \
             the block (offset 9728) reads 0x01 where the job's buffer holds 0x00"
        ),
        "{}",
        stderr(&out)
    );
    let bytes = device_bytes(&dev, 10240);
    assert!(bytes[..9728].iter().all(|&b| b == 0));
    assert!(bytes[9728..].iter().all(|&b| b == 1));
}

#[test]
#[ignore = "needs root"]
fn write_and_verify_writes_the_buffer_and_reads_it_back() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    let job = job_file(
        dir.path(),
        "wv.fio",
        "[wv]\nfilename=DEV\nioengine=sg\nbuffer_pattern=0x5a\nrw=randwrite\nbs=4k\nsize=64k\n\
         sg_write_mode=write_and_verify\n",
        dev.path(),
    );
    let out = fio(
        dir.path(),
        &["--allow-destructive", "--output-format=json", &job],
    );
    assert_success(&out);
    let bytes = device_bytes(&dev, 128 << 10);
    assert!(bytes[..64 << 10].iter().all(|&b| b == 0x5a));
    assert!(bytes[64 << 10..].iter().all(|&b| b == 0));
}

/// A failed compare is the verifying command's error, as fio's sg engine reads the device's
/// MISCOMPARE: EIO of class write (the command's direction). With `continue_on_error=write` it
/// is counted in `total_err` (`first_error` 5) and the record's `continued`, not in
/// `io_bytes`, and the job goes on over every block and passes; `continue_on_error=verify`
/// (fio's class of EILSEQ, which a device's CHECK CONDITION is not) does not pass it.
#[test]
#[ignore = "needs root"]
fn continue_on_error_write_counts_an_sg_miscompare_and_goes_on() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let dev = loop_device(dir.path());
    // 20 blocks of 0x01, then a compare of 24: the last 4 read zeros.
    let precon = job_file(
        dir.path(),
        "p.fio",
        "[p]\nfilename=DEV\nioengine=sg\nbuffer_pattern=0x01\nrw=write\nbs=512\nnumber_ios=20\n",
        dev.path(),
    );
    assert_success(&fio(dir.path(), &["--allow-destructive", &precon]));
    let check = |name: &str, class: &str| {
        job_file(
            dir.path(),
            name,
            &format!(
                "[c]\nfilename=DEV\nioengine=sg\nbuffer_pattern=0x01\nrw=write\nbs=512\n\
                 number_ios=24\nsg_write_mode=verify_bytchk_01\ncontinue_on_error={class}\n"
            ),
            dev.path(),
        )
    };
    let job = check("c.fio", "write");
    let record = dir.path().join("r.json");
    let out = fio(
        dir.path(),
        &[
            "--allow-destructive",
            "--output-format=json",
            "--json",
            record.to_str().unwrap(),
            &job,
        ],
    );
    assert_success(&out);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let c = &doc["jobs"][0];
    assert_eq!(c["error"], libc::EIO, "{c}");
    assert_eq!(c["total_err"], 4, "{c}");
    assert_eq!(c["first_error"], libc::EIO, "{c}");
    assert_eq!(
        c["read"]["total_ios"], 24,
        "every block, the failed too: {c}"
    );
    assert_eq!(c["read"]["io_bytes"], 20 * 512, "{c}");
    let record = read_json(&record);
    assert_eq!(record["status"], "completed");
    let continued = &record["segments"][0]["jobs"][0]["continued"];
    assert_eq!(continued["total"], 4, "{continued}");
    assert_eq!(continued["first_errno"], libc::EIO, "{continued}");
    assert_eq!(continued["read"], 4, "{continued}");

    let job = check("v.fio", "verify");
    let out = fio(dir.path(), &["--allow-destructive", &job]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("error: read at offset 10240 (10 KiB): sg_write_mode="),
        "{}",
        stderr(&out)
    );
}
