//! fio's examples/surface-scan.fio: a write job fills a filesystem with 64 KiB blocks of
//! verify headers every 512 bytes and fio's pattern 0xaa555aa5, then a stonewalled read job
//! with no size reads the file back and checks every piece.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::{BIN, Mount, assert_success, ext4_image, require_root, stderr, stdout};

/// fio 3.33's examples/surface-scan.fio, its comments left out.
const SURFACE_SCAN: &str = "[global]\nthread\nbs=64k\ndirect=1\nioengine=sync\nverify=meta\n\
                            verify_pattern=0xaa555aa5\nverify_interval=512\n\n\
                            [write-phase]\nfilename=datafile.tmp\nrw=write\nfill_device=1\n\
                            do_verify=0\n\n[verify-phase]\nstonewall\ncreate_serialize=0\n\
                            filename=datafile.tmp\nrw=read\ndo_verify=1\n";

/// The example with its file at `data`, as benches/fio_examples.sh points it.
fn job_file(dir: &Path, data: &Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("surface-scan.fio");
    let text = text.replace(
        "filename=datafile.tmp",
        &format!("filename={}", data.display()),
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn jobs(out: &std::process::Output) -> Vec<(String, u64, u64, i64)> {
    let json: Value = serde_json::from_str(&stdout(out)).unwrap();
    json["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["write"]["io_bytes"].as_u64().unwrap(),
                j["read"]["io_bytes"].as_u64().unwrap(),
                j["error"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// A fresh 16 MiB ext4 mounted under `dir` (about 14 MiB free: fill_device's end is reached
/// after some 220 blocks of 64 KiB).
fn small_fs(dir: &Path) -> Mount {
    let image = dir.join("fs.img");
    ext4_image(&image, 16 << 20);
    Mount::new(&["-o", "loop", image.to_str().unwrap()], &dir.join("mnt"))
}

#[test]
fn the_example_is_taken_with_fios_meaning() {
    let dir = tempfile::tempdir().unwrap();
    let file = job_file(dir.path(), &dir.path().join("datafile.tmp"), SURFACE_SCAN);
    let out = Command::new(BIN)
        .args(["fio", "--parse-only", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        text.contains("verify_pattern=0xaa555aa5 verify_interval=512"),
        "{text}"
    );
    assert!(text.contains("verify=crc32c verify_only=1"), "{text}");
    assert!(
        stderr(&out).contains("its size is taken when this job starts"),
        "{}",
        stderr(&out)
    );
}

#[test]
#[ignore = "needs root"]
fn the_example_fills_a_filesystem_checks_it_and_finds_a_flipped_byte() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let mnt = small_fs(dir.path());
    let data = mnt.0.join("datafile.tmp");
    let file = job_file(dir.path(), &data, SURFACE_SCAN);
    let out = Command::new(BIN)
        .args(["fio", "--output-format=json", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&out);
    let jobs = jobs(&out);
    let written = std::fs::metadata(&data).unwrap().len();
    assert!(
        written > 8 << 20,
        "filled {written} bytes of a 16 MiB filesystem"
    );
    assert_eq!(jobs[0], ("write-phase".to_string(), written, 0, 0));
    // The reader's size is the file's when it starts: every whole block, once.
    assert_eq!(
        jobs[1],
        ("verify-phase".to_string(), 0, written - written % 65536, 0)
    );
    let bytes = std::fs::read(&data).unwrap();
    for piece in [0, 512, 65536 + 512] {
        assert_eq!(
            &bytes[piece..piece + 4],
            b"DDVF",
            "a header at byte {piece}"
        );
        assert_eq!(&bytes[piece + 80..piece + 84], [0xaa, 0x55, 0x5a, 0xa5]);
    }

    // One byte changed between the phases: the read job alone finds it.
    let flipped = 3 * 65536 + 1000;
    let status = Command::new("dd")
        .args([
            "if=/dev/zero",
            &format!("of={}", data.display()),
            "bs=1",
            "count=1",
            &format!("seek={flipped}"),
            "conv=notrunc,fsync",
            "status=none",
        ])
        .status()
        .unwrap();
    assert!(status.success());
    let reader = SURFACE_SCAN.replace(
        "[write-phase]\nfilename=datafile.tmp\nrw=write\nfill_device=1\ndo_verify=0\n\n",
        "",
    );
    let file = job_file(dir.path(), &data, &reader);
    let out = Command::new(BIN)
        .args(["fio", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("verify at offset 196608 (192 KiB): 1 of "),
        "{err}"
    );
    assert!(err.contains("byte 1000 of the block"), "{err}");
}

#[test]
#[ignore = "needs root"]
fn diskdash_and_fio_move_the_same_bytes() {
    require_root();
    if Command::new("fio").arg("--version").output().is_err() {
        panic!("needs fio on PATH");
    }
    let mut moved = Vec::new();
    for tool in [BIN, "fio"] {
        let dir = tempfile::tempdir().unwrap();
        let mnt = small_fs(dir.path());
        let file = job_file(dir.path(), &mnt.0.join("datafile.tmp"), SURFACE_SCAN);
        let mut cmd = Command::new(tool);
        if tool == BIN {
            cmd.arg("fio");
        }
        // fio writes its verify state (`local-<job>-0-verify.state`) where it runs.
        let out = cmd
            .current_dir(dir.path())
            .args(["--output-format=json", file.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{tool}: {}", stderr(&out));
        moved.push(jobs(&out));
    }
    assert_eq!(moved[0], moved[1], "diskdash, then fio");
}
