//! fio's metadata engines run for real: `filecreate` (one open with O_CREAT per file),
//! `filestat` (one stat per file) and `filedelete` (one unlink per file), over `nrfiles`
//! files in the job's directory; the job files of fio's examples are taken as written.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::fio_run::fio;
use crate::support::*;

/// fio's filecreate example's options (16 jobs there; the jobs here are named below).
const CREATE: &str = "[global]\ncreate_on_open=1\nnrfiles=31250\nioengine=filecreate\n\
                      fallocate=none\nfilesize=4k\nopenfiles=1\n";
/// fio's filestat example's options.
const STAT: &str = "[global]\nioengine=filestat\nnumjobs=1\nfilesize=4k\nnrfiles=200\nthread\n";
/// fio's filedelete example's options.
const DELETE: &str = "[global]\nioengine=filedelete\nfilesize=4k\nnrfiles=200\nunlink=0\n";

fn job_file(dir: &Path, name: &str, global: &str, jobs: &[&str]) -> std::path::PathBuf {
    let mut text = global.to_string();
    for job in jobs {
        text.push_str(&format!("\n[{job}]\n"));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The files in `dir` whose names begin with `prefix`.
fn files(dir: &Path, prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect();
    names.sort();
    names
}

#[test]
fn the_three_examples_parse_with_their_files_named() {
    let dir = tempfile::tempdir().unwrap();
    let jobs: Vec<String> = (0..16).map(|i| format!("t{i}")).collect();
    let jobs: Vec<&str> = jobs.iter().map(String::as_str).collect();
    for (name, global, count, engine, what) in [
        (
            "c.fio",
            CREATE,
            16,
            "filecreate",
            "31250 files t0.0.0 .. t0.0.31249 in ., created",
        ),
        (
            "s.fio",
            STAT,
            6,
            "filestat",
            "200 files t0.0.0 .. t0.0.199 in ., laid out where missing",
        ),
        (
            "d.fio",
            DELETE,
            6,
            "filedelete",
            "200 files t0.0.0 .. t0.0.199 in ., laid out before",
        ),
    ] {
        let path = job_file(dir.path(), name, global, &jobs[..count]);
        let out = fio(dir.path(), &["--parse-only", path.to_str().unwrap()]);
        assert_success(&out);
        let text = stdout(&out);
        assert!(
            text.contains(&format!("plan: 1 step, {count} jobs")),
            "{text}"
        );
        assert!(text.contains(&format!("ioengine={engine}")), "{text}");
        assert!(text.contains(what), "{text}");
        assert!(text.contains("bs=4k"), "{text}");
    }
    // Nothing was created by looking.
    assert!(files(dir.path(), "t").is_empty());
}

#[test]
fn metadata_engines_refuse_what_they_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    for (options, want) in [
        ("ioengine=filestat\nnrfiles=4\n", "has no filesize"),
        (
            "ioengine=filestat\nnrfiles=4\nfilesize=4k\nnumjobs=2\n",
            "numjobs 2: diskdash runs one worker per filestat job",
        ),
        (
            "ioengine=filestat\nnrfiles=4\nfilesize=4k\nstat_type=fstat\n",
            "stat_type \"fstat\" is not a stat call",
        ),
        (
            "ioengine=filedelete\nnrfiles=4\nfilesize=4k\nfilename=x\n",
            "use directory=DIR",
        ),
    ] {
        let path = dir.path().join("j.fio");
        std::fs::write(&path, format!("[a]\n{options}")).unwrap();
        let out = crate::support::inproc::fio_parse_only(
            dir.path(),
            &["--parse-only", path.to_str().unwrap()],
        );
        assert_usage_error(&out);
        assert!(stderr(&out).contains(want), "{options}: {}", stderr(&out));
    }
}

/// Runs `global` with one job `[t0]` (200 files) in a fresh directory; the JSON and the dir.
fn run(global: &str, prepare: impl Fn(&Path)) -> (Value, tempfile::TempDir, Output) {
    let dir = tempfile::tempdir().unwrap();
    prepare(dir.path());
    let path = job_file(dir.path(), "j.fio", global, &["t0"]);
    let json = dir.path().join("out.json");
    let out = fio(
        dir.path(),
        &[
            "--output-format=json",
            &format!("--output={}", json.display()),
            path.to_str().unwrap(),
        ],
    );
    let doc = if out.status.success() {
        read_json(&json)
    } else {
        Value::Null
    };
    (doc, dir, out)
}

/// One job's read direction: 200 I/Os of 4 KiB, one clat sample each, lat and slat empty (fio
/// records these engines' calls as clat only).
fn assert_one_io_per_file(doc: &Value) {
    let read = &doc["jobs"][0]["read"];
    assert_eq!(read["total_ios"], 200, "{read}");
    assert_eq!(read["io_bytes"], 200 * 4096);
    assert_eq!(read["clat_ns"]["N"], 200);
    assert!(read["clat_ns"]["mean"].as_f64().unwrap() > 0.0);
    assert_eq!(read["lat_ns"]["N"], 0);
    assert_eq!(read["slat_ns"]["N"], 0);
    assert_eq!(doc["jobs"][0]["write"]["total_ios"], 0);
}

#[test]
fn filecreate_creates_each_file_once() {
    let (doc, dir, out) = run(&CREATE.replace("31250", "200"), |_| {});
    assert_success(&out);
    assert_one_io_per_file(&doc);
    let names = files(dir.path(), "t0.0.");
    assert_eq!(names.len(), 200);
    // Created empty (open and close; no data), as fio's filecreate leaves them.
    let meta = std::fs::metadata(dir.path().join("t0.0.199")).unwrap();
    assert_eq!(meta.len(), 0);
}

#[test]
fn filestat_stats_the_files_it_laid_out_and_leaves_them() {
    for stat_type in ["stat", "lstat", "statx"] {
        let global = format!("{STAT}stat_type={stat_type}\n");
        let (doc, dir, out) = run(&global, |_| {});
        assert_success(&out);
        assert_one_io_per_file(&doc);
        assert_eq!(doc["global options"]["stat_type"], stat_type);
        let names = files(dir.path(), "t0.0.");
        assert_eq!(names.len(), 200, "{stat_type}");
        let meta = std::fs::metadata(dir.path().join("t0.0.7")).unwrap();
        assert_eq!(meta.len(), 4096, "laid out at filesize");
    }
}

#[test]
fn filestat_with_unlink_removes_only_the_files_it_made() {
    let global = format!("{STAT}unlink=1\n");
    let (doc, dir, out) = run(&global, |dir| {
        std::fs::write(dir.join("t0.0.3"), b"mine").unwrap();
    });
    assert_success(&out);
    assert_one_io_per_file(&doc);
    assert_eq!(files(dir.path(), "t0.0."), ["t0.0.3"]);
    assert_eq!(std::fs::read(dir.path().join("t0.0.3")).unwrap(), b"mine");
}

#[test]
fn filedelete_unlinks_every_file_it_laid_out() {
    let (doc, dir, out) = run(DELETE, |_| {});
    assert_success(&out);
    assert_one_io_per_file(&doc);
    assert!(files(dir.path(), "t0.").is_empty());
}

#[test]
fn filedelete_leaves_a_file_it_did_not_make() {
    let (_, dir, out) = run(DELETE, |dir| {
        std::fs::write(dir.join("t0.0.42"), b"keep").unwrap();
    });
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("t0.0.42 is already there; filedelete removes only the files"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(dir.path().join("t0.0.42")).unwrap(), b"keep");
}

/// The same filestat job under fio and diskdash: the keys fio writes for the job are all in
/// diskdash's, and the counts agree.
#[test]
#[ignore = "needs fio"]
fn filestat_json_has_fios_shape() {
    let (ours, _dir, out) = run(STAT, |_| {});
    assert_success(&out);
    let dir = tempfile::tempdir().unwrap();
    let path = job_file(dir.path(), "j.fio", STAT, &["t0"]);
    let fio = Command::new("fio")
        .args(["--output-format=json", path.to_str().unwrap()])
        .current_dir(dir.path())
        .output()
        .expect("fio runs");
    assert!(
        fio.status.success(),
        "{}",
        String::from_utf8_lossy(&fio.stderr)
    );
    let theirs: Value = serde_json::from_slice(&fio.stdout).unwrap();
    let (a, b) = (&theirs["jobs"][0], &ours["jobs"][0]);
    for key in a.as_object().unwrap().keys() {
        assert!(b.get(key).is_some(), "fio's job key {key} is missing");
    }
    for key in a["read"].as_object().unwrap().keys() {
        assert!(
            b["read"].get(key).is_some(),
            "fio's read key {key} is missing"
        );
    }
    for key in ["total_ios", "io_bytes"] {
        assert_eq!(a["read"][key], b["read"][key], "{key}");
    }
    for key in ["clat_ns", "lat_ns", "slat_ns"] {
        assert_eq!(a["read"][key]["N"], b["read"][key]["N"], "{key}");
    }
}
