//! Several files per job with the ordinary engines: `nrfiles` (names from `filename_format`),
//! a `filename=a:b` list, `openfiles` and `file_service_type`. One worker spreads its I/O over
//! the files; each file gets its share and keeps its own position.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::fio_run::fio;
use crate::support::*;

/// Runs `job` in `dir` (extra arguments first); the output and the record's only job.
fn run_in(dir: &Path, job: &str, args: &[&str]) -> (Output, Value) {
    std::fs::write(dir.join("j.fio"), job).unwrap();
    let mut all = args.to_vec();
    all.extend(["j.fio", "--json", "r.json"]);
    let out = fio(dir, &all);
    let record = read_json(&dir.join("r.json"));
    (out, record["segments"][0]["jobs"][0].clone())
}

/// The regular files in `dir` but the job file and the record: (name, length), sorted.
fn files(dir: &Path) -> Vec<(String, u64)> {
    let mut found: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            (
                e.file_name().into_string().unwrap(),
                e.metadata().unwrap().len(),
            )
        })
        .filter(|(name, _)| !name.ends_with(".fio") && !name.ends_with(".json"))
        .collect();
    found.sort();
    found
}

/// Bytes allocated to `path` (a sparse file's holes take none).
fn allocated(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().blocks() * 512
}

/// Runs `job` through real fio in a new directory; the directory, with fio's files in it.
fn real_fio(job: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("j.fio"), job).unwrap();
    let out = std::process::Command::new("fio")
        .args(["j.fio", "--output-format=json", "--output=r.json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    dir
}

#[test]
fn every_file_gets_its_share_for_each_service_type() {
    for service in [
        "random",
        "roundrobin",
        "sequential",
        "roundrobin:3",
        "random:2",
    ] {
        let dir = tempfile::tempdir().unwrap();
        // Sparse files: a block is allocated only once the job writes it.
        for f in 0..4 {
            sparse_file(&dir.path().join(format!("w.0.{f}")), 256 << 10);
        }
        let (out, job) = run_in(
            dir.path(),
            &format!("[w]\nrw=randwrite\nbs=4k\nsize=1m\nnrfiles=4\nfile_service_type={service}\n"),
            &["--allow-destructive"],
        );
        assert_success(&out);
        assert_eq!(
            job["write"]["io_bytes"],
            1 << 20,
            "{service}: the job's bytes"
        );
        for f in 0..4 {
            let path = dir.path().join(format!("w.0.{f}"));
            assert_eq!(allocated(&path), 256 << 10, "{service}: every block of {f}");
        }
    }
}

#[test]
fn nrfiles_creates_its_files_named_by_filename_format() {
    let dir = tempfile::tempdir().unwrap();
    let (out, job) = run_in(
        dir.path(),
        "[seq]\nrw=write\nbs=64k\nsize=768k\nnrfiles=3\nopenfiles=2\n\
         filename_format=$jobname-$filenum.dat\n",
        &[],
    );
    assert_success(&out);
    assert_eq!(job["write"]["io_bytes"], 768 << 10);
    assert_eq!(
        files(dir.path()),
        [
            ("seq-0.dat".to_string(), 256 << 10),
            ("seq-1.dat".to_string(), 256 << 10),
            ("seq-2.dat".to_string(), 256 << 10),
        ]
    );
    // filesize is each file's: the job moves three of them.
    let dir = tempfile::tempdir().unwrap();
    let (out, job) = run_in(
        dir.path(),
        "[f]\nrw=write\nbs=4k\nfilesize=64k\nnrfiles=3\n",
        &[],
    );
    assert_success(&out);
    assert_eq!(job["write"]["io_bytes"], 192 << 10);
    assert_eq!(files(dir.path()).len(), 3);
}

#[test]
fn a_colon_list_in_filename_is_several_files() {
    let dir = tempfile::tempdir().unwrap();
    let (out, job) = run_in(
        dir.path(),
        "[l]\nrw=write\nbs=4k\nsize=128k\nfilename=a:b\n",
        &[],
    );
    assert_success(&out);
    assert_eq!(job["write"]["io_bytes"], 128 << 10);
    assert_eq!(
        files(dir.path()),
        [("a".to_string(), 64 << 10), ("b".to_string(), 64 << 10)]
    );
}

#[test]
fn a_zipf_file_service_is_random_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("j.fio"),
        "[w]\nsize=1m\nnrfiles=2\nfile_service_type=zipf:1.1\n",
    )
    .unwrap();
    // By the binary, end to end; the others here run in this process.
    let out = fio(dir.path(), &["--parse-only", "j.fio"]);
    assert_success(&out);
    assert_stderr_has(&out, "chooses each I/O's file uniformly at random");
}

#[test]
#[ignore = "needs fio"]
fn the_files_are_the_ones_fio_makes() {
    let job = "[global]\nsize=1m\nbs=4k\nnrfiles=4\nfile_service_type=roundrobin\n\
               [w]\nrw=write\n[r]\nrw=randwrite\nfilename_format=$jobname.f$filenum\n";
    let ours = tempfile::tempdir().unwrap();
    let (out, _) = run_in(ours.path(), job, &[]);
    assert_success(&out);
    let theirs = real_fio(job);
    assert_eq!(files(ours.path()), files(theirs.path()));
    assert_eq!(files(ours.path()).len(), 8);
}

#[test]
fn each_clone_spreads_over_its_own_files() {
    let dir = tempfile::tempdir().unwrap();
    // Sparse files: a block is allocated only once a clone writes it.
    for clone in 0..2 {
        for f in 0..3 {
            sparse_file(&dir.path().join(format!("w.{clone}.{f}")), 64 << 10);
        }
    }
    let (out, _) = run_in(
        dir.path(),
        "[w]\nrw=randwrite\nbs=4k\nsize=192k\nnrfiles=3\nnumjobs=2\ngroup_reporting\n",
        &["--allow-destructive"],
    );
    assert_success(&out);
    let record = read_json(&dir.path().join("r.json"));
    let job = &record["segments"][0]["jobs"][0];
    assert_eq!(
        job["write"]["io_bytes"],
        2 * (192 << 10),
        "both clones' bytes"
    );
    for clone in 0..2 {
        for f in 0..3 {
            let path = dir.path().join(format!("w.{clone}.{f}"));
            assert_eq!(
                allocated(&path),
                64 << 10,
                "every block of {}",
                path.display()
            );
        }
    }
    assert_eq!(files(dir.path()).len(), 6, "{:?}", files(dir.path()));
}

#[test]
fn clones_of_a_colon_list_share_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let (out, job) = run_in(
        dir.path(),
        "[l]\nrw=write\nbs=4k\nsize=64k\nfilename=a:b\nnumjobs=2\ngroup_reporting\n",
        &[],
    );
    assert_success(&out);
    // Each clone moves the job's size over the two files.
    assert_eq!(job["write"]["io_bytes"], 2 * (64 << 10));
    assert_eq!(
        files(dir.path()),
        [("a".to_string(), 32 << 10), ("b".to_string(), 32 << 10)]
    );
}

#[test]
#[ignore = "needs fio"]
fn the_clones_files_are_the_ones_fio_makes() {
    let job = "[global]\nbs=4k\nnumjobs=2\n\
               [w]\nrw=write\nsize=96k\nnrfiles=3\n\
               [r]\nrw=randwrite\nsize=128k\nnrfiles=2\nfilename_format=$jobname.f$filenum.c$jobnum\n\
               [l]\nrw=write\nsize=64k\nfilename=a:b\n";
    let ours = tempfile::tempdir().unwrap();
    let (out, _) = run_in(ours.path(), job, &[]);
    assert_success(&out);
    let theirs = real_fio(job);
    assert_eq!(files(ours.path()), files(theirs.path()));
    // w: 2 clones x 3, r: 2 x 2, l: a and b shared.
    assert_eq!(files(ours.path()).len(), 12, "{:?}", files(ours.path()));
}

#[test]
fn verify_reads_back_every_file_and_names_the_one_that_fails() {
    let dir = tempfile::tempdir().unwrap();
    let job = "[v]\nrw=randwrite\nbs=4k\nsize=192k\nnrfiles=3\nverify=crc32c\n";
    let (out, _) = run_in(dir.path(), job, &[]);
    assert_success(&out);
    let record = read_json(&dir.path().join("r.json"));
    let verify = &record["verify"];
    // 48 blocks over three files, each read back on its own descriptor.
    assert_eq!(verify["blocks_checked"], 48, "{verify}");
    assert_eq!(verify["blocks_failed"], 0, "{verify}");

    // One byte of the third file's block 5 changed: a later verify_only run finds it there.
    let third = dir.path().join("v.0.2");
    let mut bytes = std::fs::read(&third).unwrap();
    bytes[5 * 4096 + 100] ^= 0x10;
    std::fs::write(&third, bytes).unwrap();
    let only = format!("{}verify_only=1\n", job.replace("randwrite", "read"));
    let (out, _) = run_in(dir.path(), &only, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("v.0.2"), "{err}");
    assert!(lines[0].contains("offset 20480"), "{err}");
    assert!(!err.contains("v.0.1:"), "{err}");
}

#[test]
fn parse_only_shows_the_file_set() {
    let dir = tempfile::tempdir().unwrap();
    let show = |job: &str| {
        std::fs::write(dir.path().join("j.fio"), job).unwrap();
        let out = inproc::fio_parse_only(dir.path(), &["--parse-only", "j.fio"]);
        assert_success(&out);
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines()
            .find(|l| l.trim_start().starts_with("files "))
            .unwrap_or_else(|| panic!("no files line: {text}"))
            .trim()
            .to_string()
    };
    assert_eq!(
        show(
            "[j]\nrw=write\nbs=4k\nsize=96k\nnrfiles=3\nnumjobs=2\nopenfiles=2\nfile_service_type=random:2\n"
        ),
        "files    6 files of 32 KiB each, 3 for each of the 2 clones; \
         file_service_type=random:2 openfiles=2: j.0.0, j.0.1, j.0.2 ... j.1.2 (6 in all)"
    );
    assert_eq!(
        show("[l]\nrw=write\nbs=4k\nsize=64k\nfilename=a:b\nnumjobs=2\n"),
        "files    2 files of 32 KiB each, shared by the 2 clones; \
         file_service_type=roundrobin openfiles=2: a, b"
    );
    // One file: no files line.
    std::fs::write(dir.path().join("j.fio"), "[o]\nrw=write\nsize=64k\n").unwrap();
    let out = inproc::fio_parse_only(dir.path(), &["--parse-only", "j.fio"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("    files "));
}

#[test]
fn a_filesize_range_draws_each_file_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let job = "[r]\nrw=write\nbs=4k\nfilesize=64k-256k\nnrfiles=3\nnumjobs=2\n";
    std::fs::write(dir.path().join("j.fio"), job).unwrap();
    let out = inproc::fio_parse_only(dir.path(), &["--parse-only", "j.fio"]);
    assert_success(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "files    6 files of 64 KiB to 256 KiB (each drawn in fio's filesize range, \
             4 KiB-aligned), 3 for each of the 2 clones"
        ),
        "{text}"
    );
    let (out, _) = run_in(dir.path(), &format!("{job}group_reporting\n"), &[]);
    assert_success(&out);
    let made = files(dir.path());
    assert_eq!(made.len(), 6, "{made:?}");
    for (name, bytes) in &made {
        assert!((64 << 10..256 << 10).contains(bytes), "{name}: {bytes}");
        assert_eq!(bytes % 4096, 0, "{name}: {bytes}");
    }
    // Not all one length; each clone moves its files' bytes.
    assert!(made.iter().any(|(_, b)| *b != made[0].1), "{made:?}");
    let record = read_json(&dir.path().join("r.json"));
    let total: u64 = made.iter().map(|(_, b)| b).sum();
    assert_eq!(record["segments"][0]["jobs"][0]["write"]["io_bytes"], total);
    // A range that is not one is refused in one line, naming it.
    std::fs::write(dir.path().join("j.fio"), "[x]\nfilesize=1m-x\nnrfiles=2\n").unwrap();
    let out = inproc::fio_parse_only(dir.path(), &["--parse-only", "j.fio"]);
    assert_usage_error(&out);
    assert_stderr_has(&out, "\"1m-x\" is not a size range");
}

/// Emulated zones and a verify backlog keep one file's state; with several files each is
/// refused in one line naming the option, and a service type that is none names the types.
#[test]
fn several_files_refuse_zones_a_verify_backlog_and_a_bad_service() {
    let dir = tempfile::tempdir().unwrap();
    for (job, want) in [
        (
            "[a]\nrw=randwrite\nnrfiles=4\nsize=4m\nverify=crc32c\nverify_backlog=16\n",
            "error: j.fio:6: verify_backlog: its checks find blocks by offset on one file, and \
             this job has 4 (nrfiles or a ':' list); drop verify_backlog (the read-back after \
             the run checks every file) or give the job one file\n",
        ),
        (
            "[a]\nrw=randwrite\nfilename=a:b\nsize=4m\nzonemode=zbd\nzonesize=1m\n",
            "error: j.fio:5: zonemode=zbd: diskdash emulates zonemode=zbd on one file, and this \
             job has 2 (nrfiles or a ':' list); drop the zone mode or give the job one file\n",
        ),
        (
            "[a]\nrw=randwrite\nnrfiles=2\nfile_service_type=random:0\nsize=4m\n",
            "error: j.fio:4: file_service_type \"random:0\" is not a file service type; use \
             random, roundrobin, sequential, zipf, pareto, normal or gauss (random, roundrobin \
             and sequential with an optional :N of 1 or more)\n",
        ),
    ] {
        std::fs::write(dir.path().join("j.fio"), job).unwrap();
        let out = inproc::fio_parse_only(dir.path(), &["--parse-only", "j.fio"]);
        assert_usage_error(&out);
        assert_eq!(stderr(&out), want, "{job}");
    }
}
