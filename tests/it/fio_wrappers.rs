//! The tools that run `fio` from PATH, run on diskdash through its `fio` link, unchanged:
//! fio's process contract (nothing on stderr for a clean run, diskdash's notes in the
//! report), the consent a wrapper can give (the file's mark, `DISKDASH_ALLOW_DESTRUCTIVE`),
//! KDiskMark's own command lines and fio-plot's bench-fio.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::*;

/// A directory holding a link `fio` -> the built binary.
fn link_dir(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fio = bin.join("fio");
    if fio.symlink_metadata().is_err() {
        std::os::unix::fs::symlink(BIN, &fio).expect("symlink fio -> diskdash");
    }
    bin
}

/// `fio ARGS` through the link, in `dir`, with the notes' and the consent's variables unset
/// and `env` set.
fn fio_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(link_dir(dir).join("fio"));
    command
        .args(args)
        .current_dir(dir)
        .env_remove("DISKDASH_NOTES")
        .env_remove("DISKDASH_ALLOW_DESTRUCTIVE");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("running fio (the link)")
}

fn fio(dir: &Path, args: &[&str]) -> Output {
    fio_env(dir, args, &[])
}

/// A clean run: exit 0, nothing at all on stderr, fio's JSON on stdout.
fn clean_json(out: &Output, what: &str) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what}: {}{}",
        stderr(out),
        stdout(out)
    );
    assert_eq!(stderr(out), "", "{what}: stderr carries fio's errors only");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", stdout(out)))
}

fn notes(doc: &Value) -> Vec<String> {
    doc["diskdash"]["notes"]
        .as_array()
        .expect("the diskdash section's notes")
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_clean_run_through_the_link_writes_nothing_on_stderr_and_its_notes_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let job = [
        "--name=x",
        "--filename=t",
        "--size=4M",
        "--rw=randread",
        "--runtime=1",
    ];
    let out = fio(dir.path(), &[&job[..], &["--output-format=json"]].concat());
    let doc = clean_json(&out, "first run");
    let said = notes(&doc);
    assert!(
        said.iter()
            .any(|n| n.starts_with("created ") && n.contains("left in place")),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|n| n.contains("working set with data first")),
        "{said:?}"
    );
    // The normal text: fio's report, then diskdash's notes at its end.
    let out = fio(dir.path(), &job);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let text = stdout(&out);
    let tail = text
        .split("Disk stats (read/write):")
        .nth(1)
        .unwrap_or(&text);
    assert!(tail.contains("\ndiskdash notes:\n"), "{text}");
    assert!(tail.contains("  WARNING: buffered I/O"), "{text}");
    // Asked for: the notes on stderr as they come, as `diskdash fio` writes them.
    let out = fio_env(dir.path(), &job, &[("DISKDASH_NOTES", "stderr")]);
    assert_eq!(out.status.code(), Some(0));
    assert_stderr_has(&out, "WARNING: buffered I/O");
    assert_stderr_has(&out, "diskdash fio: step 1/1");
    // A value that is neither: fio's usage error, naming the variable.
    let out = fio_env(dir.path(), &job, &[("DISKDASH_NOTES", "loud")]);
    assert_eq!(out.status.code(), Some(1));
    assert_stderr_has(&out, "DISKDASH_NOTES=loud (from the environment)");
}

#[test]
fn a_file_diskdash_filled_is_its_own_to_rewrite_under_any_job_name() {
    let dir = tempfile::tempdir().unwrap();
    // bench-fio's target made empty beforehand (a wrapper's `touch`), read first, then written.
    std::fs::write(dir.path().join("t"), b"").unwrap();
    let run = |name: &str, rw: &str| {
        fio(
            dir.path(),
            &[
                &format!("--name={name}"),
                "--filename=t",
                "--size=4M",
                &format!("--rw={rw}"),
                "--runtime=1",
                "--output-format=json",
            ],
        )
    };
    clean_json(&run("FIOJOB", "randread"), "read over the empty file");
    clean_json(
        &run("FIOJOB", "randrw"),
        "randrw over the file diskdash filled",
    );
    clean_json(&run("another", "write"), "another job's name");
    // Changed by anything else since: data of someone's, refused as any file with data.
    let path = dir.path().join("t");
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::os::unix::fs::FileExt::write_at(&f, b"theirs", 0).unwrap();
    drop(f);
    let out = run("FIOJOB", "randrw");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_stderr_has(&out, "refusing to write to t: it holds 4 MiB of data");
}

#[test]
fn the_environment_consents_for_existing_files_says_so_and_never_for_devices() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data"), vec![7u8; 2 << 20]).unwrap();
    let job = [
        "--name=w",
        "--filename=data",
        "--size=2M",
        "--rw=write",
        "--output-format=json",
    ];
    let refused = fio(dir.path(), &job);
    assert_eq!(refused.status.code(), Some(1));
    assert_stderr_has(&refused, "refusing to write to data");
    let out = fio_env(
        dir.path(),
        &[&job[..], &["--json=r.json"]].concat(),
        &[("DISKDASH_ALLOW_DESTRUCTIVE", "1")],
    );
    let doc = clean_json(&out, "with the environment's consent");
    let stated = |notes: &[String]| {
        notes.iter().any(|n| {
            n.starts_with(
                "DISKDASH_ALLOW_DESTRUCTIVE=1 (from the environment) allowed writing over data",
            )
        })
    };
    assert!(stated(&notes(&doc)), "{:?}", notes(&doc));
    // The record says so too.
    let record = read_json(&dir.path().join("r.json"));
    let record_notes: Vec<String> = serde_json::from_value(record["notes"].clone()).unwrap();
    assert!(stated(&record_notes), "{record_notes:?}");
    // The text's end.
    std::fs::write(dir.path().join("data2"), vec![7u8; 2 << 20]).unwrap();
    let out = fio_env(
        dir.path(),
        &["--name=w", "--filename=data2", "--size=2M", "--rw=write"],
        &[("DISKDASH_ALLOW_DESTRUCTIVE", "1")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("  note: DISKDASH_ALLOW_DESTRUCTIVE=1 (from the environment)"),
        "{}",
        stdout(&out)
    );
    // Anything but 1 or 0 is a mistake, named.
    let out = fio_env(dir.path(), &job, &[("DISKDASH_ALLOW_DESTRUCTIVE", "yes")]);
    assert_eq!(out.status.code(), Some(1));
    assert_stderr_has(
        &out,
        "DISKDASH_ALLOW_DESTRUCTIVE=yes (from the environment) is not 1 or 0",
    );
}

#[test]
#[ignore = "needs root (a loop device)"]
fn a_block_device_still_needs_the_flag_with_the_environment_s_consent() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("img");
    std::fs::write(&image, vec![0u8; 8 << 20]).unwrap();
    let dev = LoopDevice::attach(&image);
    let target = dev.path().display().to_string();
    let out = fio_env(
        dir.path(),
        &[
            "--name=w",
            &format!("--filename={target}"),
            "--size=4M",
            "--rw=write",
            "--output-format=json",
        ],
        &[("DISKDASH_ALLOW_DESTRUCTIVE", "1")],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_stderr_has(&out, "--allow-destructive");
}

/// KDiskMark's argument lists ([`fixture`]), `{file}` filled in.
fn kdiskmark_lines(file: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kdiskmark/fio-args.txt"),
    )
    .unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            l.split(' ')
                .map(|a| a.replace("{file}", &file.display().to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn kdiskmark_s_own_command_lines_each_give_fio_s_json_through_the_link() {
    let dir = tempfile::tempdir().unwrap();
    // KDiskMark makes its file (QTemporaryFile, empty) before its prepare step.
    let file = dir.path().join("kdiskmark-AbC123.tmp");
    std::fs::write(&file, b"").unwrap();
    let lines = kdiskmark_lines(&file);
    assert_eq!(lines.len(), 11, "prepare and ten tests");
    for (i, args) in lines.iter().enumerate() {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = fio(dir.path(), &args);
        let doc = clean_json(&out, &args.join(" "));
        // What KDiskMark reads: jobs[0] with error 0, its read and write bw, iops, clat mean.
        let job = &doc["jobs"][0];
        assert_eq!(job["error"], 0, "{args:?}");
        for dir in ["read", "write"] {
            assert!(job[dir]["bw"].is_u64(), "{args:?}");
            assert!(job[dir]["iops"].is_number(), "{args:?}");
            assert!(job[dir]["clat_ns"]["mean"].is_number(), "{args:?}");
        }
        if i == 0 {
            // The prepare step laid the empty file out and measured nothing.
            assert_eq!(std::fs::metadata(&file).unwrap().len(), 16 << 20);
            assert_eq!(job["read"]["io_bytes"], 0);
            assert_eq!(job["write"]["io_bytes"], 0);
        } else {
            let moved = job["read"]["io_bytes"].as_u64().unwrap()
                + job["write"]["io_bytes"].as_u64().unwrap();
            assert!(moved > 0, "{args:?}: {job}");
        }
    }
}

#[test]
fn create_only_lays_out_a_new_file_and_prints_the_normal_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &["--create_only=1", "--name=p", "--filename=n", "--size=2M"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert_eq!(
        std::fs::metadata(dir.path().join("n")).unwrap().len(),
        2 << 20
    );
    let text = stdout(&out);
    assert!(text.starts_with("p: (groupid=0, jobs=1): err= 0"), "{text}");
    assert!(text.contains("create_only: job p: laid out"), "{text}");
}

/// The JSON files a bench-fio matrix leaves under `out`.
fn files_ending(out: &Path, ext: &str) -> usize {
    fn walk(dir: &Path, ext: &str, n: &mut usize) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, ext, n);
            } else if path.extension().is_some_and(|e| e == ext) {
                *n += 1;
            }
        }
    }
    let mut n = 0;
    walk(out, ext, &mut n);
    n
}

#[test]
#[ignore = "needs fio-plot's bench-fio (/opt/fio-plot, installed by .ci/run)"]
fn bench_fio_s_matrix_runs_through_the_link_as_under_fio() {
    let bench_fio = Path::new("/opt/fio-plot/bin/bench-fio");
    assert!(bench_fio.exists(), "bench-fio is not installed");
    let dir = tempfile::tempdir().unwrap();
    let bin = link_dir(dir.path());
    // bench-fio's target made empty first, as a user does for `-t file`.
    let target = dir.path().join("target");
    std::fs::write(&target, b"").unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(bench_fio)
        .env("PATH", path)
        .env_remove("DISKDASH_NOTES")
        .env_remove("DISKDASH_ALLOW_DESTRUCTIVE")
        .args([
            "-d",
            &target.display().to_string(),
            "-t",
            "file",
            "-s",
            "16M",
        ])
        .args(["-o", &dir.path().join("out").display().to_string()])
        .args(["-m", "randread", "randrw", "--rwmixread", "75"])
        .args([
            "--iodepth",
            "1",
            "8",
            "--numjobs",
            "1",
            "4",
            // The 2 s. bench-fio's job files are not time_based: each benchmark ends at
            // its 16 MiB pass (0.3-0.8 s here) or the runtime, whichever comes first, so 2 s
            // costs the test about a second (13.8 s against 13.1 s at 1 s, measured).
            "--runtime",
            "2",
        ])
        .arg("--create")
        .current_dir(dir.path())
        .output()
        .expect("running bench-fio");
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{said}");
    // Every fio command bench-fio runs (`fio --version` and each benchmark) goes through its
    // `run_raw_command`, which prints "An error occurred: stderr: ..." and stops the matrix
    // (with fio's exit status, 0 after a note) when fio's stderr holds a single byte
    // (`len(str(result.stderr)) > 3`, `b''` being 3): so this line's absence and the 8 JSON
    // files below say that diskdash wrote nothing on stderr through the link, in every run.
    assert!(!said.contains("An error occurred"), "{said}");
    // fio 3.33 leaves one JSON per benchmark: 2 modes x 2 depths x 2 job counts, and 100 log
    // files (bw, iops, lat, clat, slat for each clone: 2 x 2 x (1 + 4) x 5; counted under
    // fio 3.33 with the same command line).
    let out = dir.path().join("out");
    assert_eq!(files_ending(&out, "json"), 8, "{said}");
    assert_eq!(files_ending(&out, "log"), 100, "{said}");
}

#[test]
fn create_only_lays_a_short_file_of_its_own_out_again_and_refuses_someone_s() {
    let dir = tempfile::tempdir().unwrap();
    let layout = |size: &str| {
        fio(
            dir.path(),
            &[
                "--create_only=1",
                "--name=p",
                "--filename=f",
                &format!("--size={size}"),
                "--output-format=json",
            ],
        )
    };
    clean_json(&layout("1M"), "a new file");
    // diskdash's own file, shorter than the job's size: laid out again to it.
    let doc = clean_json(&layout("2M"), "its own short file");
    assert_eq!(
        std::fs::metadata(dir.path().join("f")).unwrap().len(),
        2 << 20
    );
    assert!(notes(&doc).iter().any(|n| n.contains("laid out")), "{doc}");
    // Long enough: left as it is.
    let doc = clean_json(&layout("1M"), "a file long enough");
    assert!(
        notes(&doc).iter().any(|n| n.contains("left as it is")),
        "{doc}"
    );
    // Someone's data in a short file: refused, as any write over it.
    std::fs::write(dir.path().join("f"), b"theirs").unwrap();
    let out = layout("2M");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_stderr_has(&out, "refusing to write to f");
    assert_eq!(std::fs::read(dir.path().join("f")).unwrap(), b"theirs");
}
