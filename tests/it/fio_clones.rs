//! `diskdash fio` on `numjobs` jobs: each clone reported as fio reports it (the count of each
//! clone's samples of a 1 s run is in the `alone` binary's `fio_intervals.rs`).

use crate::support::*;

/// The files in `dir` other than `keep` (the job file, the record), by name, with their sizes.
fn files_of_run(dir: &std::path::Path, keep: &[&str]) -> Vec<(String, u64)> {
    let mut files: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().unwrap().len(),
            )
        })
        .filter(|(name, _)| !keep.contains(&name.as_str()))
        .collect();
    files.sort();
    files
}

const RANDREAD_TWO_CLONES: &str = "[k]\nrw=randread\nsize=4M\nnumjobs=2\nruntime=1\n";

/// `numjobs=2` without filename: as fio, each clone gets its own file, named by fio's default
/// `$jobname.$jobnum.$filenum`, of the job's size, kept after the run; the record names them;
/// a second run of the same job file runs on them without `--allow-destructive`.
#[test]
fn each_clone_without_filename_has_a_kept_file_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.fio"), RANDREAD_TWO_CLONES).unwrap();
    let out = crate::fio_run::fio(dir.path(), &["k.fio", "--json=r.json"]);
    assert_success(&out);
    let keep = ["k.fio", "r.json"];
    assert_eq!(
        files_of_run(dir.path(), &keep),
        [
            ("k.0.0".to_string(), 4 << 20),
            ("k.1.0".to_string(), 4 << 20)
        ]
    );
    let record = read_json(&dir.path().join("r.json"));
    crate::support::record::assert_valid_record(&record);
    let target = &record["segments"][0]["jobs"][0]["target"];
    assert_eq!(target["path"], "k.0.0", "{target}");
    assert_eq!(target["scratch_removed"], false, "{target}");
    assert!(
        target["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n
                == "job k: each of its clones runs on a file of its own, 2 files: k.0.0, k.1.0"),
        "{target}"
    );
    // The same job file again: its own files, no opt-in needed, nothing else made.
    let again = crate::fio_run::fio(dir.path(), &["k.fio"]);
    assert_success(&again);
    assert_eq!(files_of_run(dir.path(), &keep).len(), 2);
}

/// Each clone writes its own file: after a sequential write of `numjobs=2`, both files (laid
/// out as zeros) hold written data in every block.
#[test]
fn each_clone_writes_its_own_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::fio_run::fio(
        dir.path(),
        &[
            "--name=w",
            "--rw=write",
            "--bs=64k",
            "--size=1M",
            "--numjobs=2",
        ],
    );
    assert_success(&out);
    for name in ["w.0.0", "w.1.0"] {
        let data = std::fs::read(dir.path().join(name)).unwrap();
        assert_eq!(data.len(), 1 << 20, "{name}");
        for (i, block) in data.chunks(64 << 10).enumerate() {
            assert!(
                block.iter().any(|&b| b != 0),
                "{name}: block {i} was never written"
            );
        }
    }
}

/// A clone's file that the run did not make keeps the interlock: it holds data, so a job that
/// writes it is refused without `--allow-destructive`, and nothing is created.
#[test]
fn a_clone_file_diskdash_did_not_make_stays_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("w.1.0"), vec![7u8; 1 << 20]).unwrap();
    let out = crate::fio_run::fio(
        dir.path(),
        &["--name=w", "--rw=write", "--size=1M", "--numjobs=2"],
    );
    assert!(!out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("w.1.0") && stderr(&out).contains("--allow-destructive"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(dir.path().join("w.1.0")).unwrap(),
        vec![7u8; 1 << 20]
    );
    assert!(
        !dir.path().join("w.0.0").exists(),
        "nothing made before the refusal"
    );
}

/// The same job under fio 3.33 and `diskdash fio`, each in an empty directory: the same files,
/// by name and size.
#[test]
#[ignore = "needs fio"]
fn the_clones_files_are_the_ones_fio_makes() {
    let ran = |program: &str, args: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.fio"), RANDREAD_TWO_CLONES).unwrap();
        let out = std::process::Command::new(program)
            .args(args)
            .arg("k.fio")
            .current_dir(dir.path())
            .output()
            .expect("it runs");
        assert_success(&out);
        files_of_run(dir.path(), &["k.fio", "out"])
    };
    let fio = ran("fio", &["--output=out"]);
    let diskdash = ran(BIN, &["fio", "--no-tui", "--output=out"]);
    assert_eq!(
        fio,
        [
            ("k.0.0".to_string(), 4 << 20),
            ("k.1.0".to_string(), 4 << 20)
        ]
    );
    assert_eq!(diskdash, fio);
}

/// `unlink=1`: every clone's file the run made is removed at the end, as fio does.
#[test]
fn unlink_removes_every_clones_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::fio_run::fio(
        dir.path(),
        &[
            "--name=u",
            "--rw=randread",
            "--size=1M",
            "--numjobs=2",
            "--unlink=1",
        ],
    );
    assert_success(&out);
    assert_stderr_has(
        &out,
        "note: created u.1.0; it is removed at the end (unlink=1)",
    );
    assert_eq!(files_of_run(dir.path(), &[]), []);
}

/// fio's clones of one job on one named file each sweep the file from their own offset
/// (`offset_increment` moves clone N by N times it); they do not split it. Buffered reads
/// with readahead off (`fadvise_hint=random`) leave exactly the blocks read in the page cache:
/// [0, 1M) and [2M, 3M) of a 4 MiB file, 2 MiB. Split clones read [0, 512K) and [2.5M, 3M).
#[test]
fn clones_of_one_named_file_each_sweep_it_from_their_offset_as_fios() {
    let dir = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
    let data = dir.path().join("sh.dat");
    std::fs::write(&data, vec![7u8; 4 << 20]).unwrap();
    std::fs::File::open(&data).unwrap().sync_all().unwrap();
    let out = crate::fio_run::fio(
        dir.path(),
        &[
            "--name=sh",
            "--filename=sh.dat",
            "--rw=read",
            "--bs=64k",
            "--size=1M",
            "--offset_increment=2M",
            "--numjobs=2",
            "--fadvise_hint=random",
        ],
    );
    assert_success(&out);
    let res = std::process::Command::new("fincore")
        .args(["--bytes", "--noheadings", "--output", "RES"])
        .arg(&data)
        .output()
        .expect("fincore (util-linux)");
    assert_eq!(String::from_utf8_lossy(&res.stdout).trim(), "2097152");
}
