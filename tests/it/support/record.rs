//! The bench tests' part: run `diskdash bench`, validate records against the schema.

use std::io::{BufRead, BufReader, Lines};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Output, Stdio};

use serde_json::Value;

use super::{BIN, read_json};

/// `diskdash bench ARGS` in `dir`, io_uring allowed.
pub fn bench(dir: &Path, args: &[&str]) -> Output {
    bench_cmd(dir, args).output().expect("running diskdash")
}

pub fn bench_cmd(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.arg("bench").args(args).current_dir(dir);
    cmd.env_remove("DISKDASH_URING_DISABLED");
    cmd
}

/// `TARGET OPTS...` with the options written as on a command line: `"--rw write --bs 1M"` is
/// split at spaces; the target path is kept whole.
pub fn args<'a>(target: &'a Path, opts: &'a str) -> Vec<&'a str> {
    let target = target.to_str().expect("a UTF-8 path");
    std::iter::once(target)
        .chain(opts.split_whitespace())
        .collect()
}

/// Options without a target (the default scratch file), split at spaces like [`args`].
pub fn opts(opts: &str) -> Vec<&str> {
    opts.split_whitespace().collect()
}

/// `diskdash fio ARGS --json r.json --no-tui` in `dir`, successful: its record, checked
/// against the schema.
pub fn fio_record(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(BIN)
        .arg("fio")
        .args(args)
        .args(["--json", "r.json", "--no-tui"])
        .current_dir(dir)
        .output()
        .expect("diskdash runs");
    super::assert_success(&out);
    let record = read_json(&dir.join("r.json"));
    assert_valid_record(&record);
    record
}

/// The record file the helpers below ask for with `--json`.
pub const RECORD: &str = "r.json";

/// The run record [`RECORD`] in `dir`, checked against the schema.
pub fn record_in(dir: &Path) -> Value {
    let record = read_json(&dir.join(RECORD));
    assert_valid_record(&record);
    record
}

/// Runs `diskdash bench ARGS --json r.json` in `dir`, asserts it succeeded and returns its
/// output and its record (checked against the schema).
pub fn bench_ok(dir: &Path, args: &[&str]) -> (Output, Value) {
    let out = bench(dir, &[args, &["--json", RECORD]].concat());
    assert!(out.status.success(), "{args:?}: {}", super::stderr(&out));
    (out, record_in(dir))
}

/// Runs `diskdash bench ARGS --json r.json` in `dir`, asserts it failed as a run does (exit 1)
/// and still recorded a `failed` run, and returns its output and that record.
pub fn bench_fails(dir: &Path, args: &[&str]) -> (Output, Value) {
    let out = bench(dir, &[args, &["--json", RECORD]].concat());
    assert_eq!(
        out.status.code(),
        Some(1),
        "{args:?}: {}",
        super::stderr(&out)
    );
    let record = record_in(dir);
    assert_eq!(record["status"], "failed");
    (out, record)
}

/// Asserts `record` is a run that failed on a write with `errno` and kept the writes done
/// before (partial results).
pub fn assert_write_failed_with(record: &Value, errno: &str) {
    assert_eq!(record["status"], "failed");
    assert_eq!(record["error"]["errno_name"], errno, "{}", record["error"]);
    assert_eq!(record["error"]["operation"], "write", "{}", record["error"]);
    assert!(
        record["write"]["total_ios"].as_u64().unwrap() > 0,
        "partial results kept"
    );
}

/// A `diskdash bench ARGS --json r.json` running in the background that has shown two status
/// lines: it is measuring. Stdout and stderr are piped.
pub struct MeasuringRun {
    pub child: Child,
    lines: Lines<BufReader<ChildStderr>>,
}

impl MeasuringRun {
    pub fn start(dir: &Path, args: &[&str]) -> Self {
        let mut child = bench_cmd(dir, &[args, &["--json", RECORD]].concat())
            .stderr(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("starting diskdash");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        wait_for_status_lines(&mut lines, 2);
        Self { child, lines }
    }

    /// Waits for the run to end: its exit code and the stderr lines after the first two
    /// status lines.
    pub fn finish(mut self) -> (Option<i32>, Vec<String>) {
        let rest: Vec<String> = self.lines.map_while(Result::ok).collect();
        let status = self.child.wait().unwrap();
        (status.code(), rest)
    }
}

/// Reads `diskdash bench` stderr until `n` status lines (`[...]`) went by: the run is measuring.
pub fn wait_for_status_lines<B: std::io::BufRead>(lines: &mut std::io::Lines<B>, n: usize) {
    let mut seen = 0;
    for line in lines.by_ref() {
        if line.unwrap().starts_with('[') {
            seen += 1;
            if seen == n {
                return;
            }
        }
    }
    panic!("stderr ended after {seen} of {n} status lines");
}

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/schema/run-record.schema.json");
    read_json(&path)
}

/// The run schema's `$defs/DEF` as a schema of its own.
fn wrapper(def: &str) -> Value {
    let full = schema();
    serde_json::json!({
        "$schema": full["$schema"],
        "$defs": full["$defs"],
        "$ref": format!("#/$defs/{def}"),
    })
}

/// Asserts `instance` matches the schema `what` names: made by `schema` the first time, kept
/// for the test binary's life (a record is checked in hundreds of tests, its patterns
/// compiled once).
fn check(schema: impl FnOnce() -> Value, instance: &Value, what: &'static str) {
    type Kept = std::collections::HashMap<&'static str, &'static super::schema::Validator>;
    static KEPT: std::sync::Mutex<Option<Kept>> = std::sync::Mutex::new(None);
    let validator = *KEPT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get_or_insert_with(Kept::new)
        .entry(what)
        .or_insert_with(|| {
            Box::leak(Box::new(
                super::schema::validator_for(&schema()).expect("the schema compiles"),
            ))
        });
    let errors = validator.errors(instance);
    assert!(
        errors.is_empty(),
        "{what} does not match the schema:\n{}",
        errors.join("\n")
    );
}

/// Asserts a `diskdash compare --json` object matches assets/schema/compare.schema.json.
pub fn assert_valid_compare(object: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/schema/compare.schema.json");
    check(|| read_json(&path), object, "compare --json");
}

/// Asserts `record` matches assets/schema/run-record.schema.json.
pub fn assert_valid_record(record: &Value) {
    check(schema, record, "run record");
}

/// Asserts one JSON Lines record matches the schema's `$defs/interval`.
pub fn assert_valid_interval(line: &Value) {
    check(|| wrapper("interval"), line, "interval record");
}

/// Asserts one `--jsonl` line of a finished sweep point matches the schema's
/// `$defs/sweep_point`.
pub fn assert_valid_sweep_point(line: &Value) {
    check(|| wrapper("sweep_point"), line, "sweep point line");
}

/// Files left in `dir` other than `keep` (scratch files must be gone).
pub fn leftovers(dir: &Path, keep: &[&str]) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| !keep.iter().any(|k| p.file_name().is_some_and(|n| n == *k)))
        .collect()
}

/// Asserts one line of a monitor recording (`--record`) matches
/// assets/schema/monitor-record.schema.json.
pub fn assert_valid_monitor_line(line: &Value) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/schema/monitor-record.schema.json");
    check(|| read_json(&path), line, "monitor recording line");
}

/// How a refusal's one line is matched against a case's expected text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// The whole line.
    Whole,
    /// Its start (the rest names values of this machine).
    Start,
}

/// Each `(OPTS, LINE)` case of `diskdash bench DIR OPTS --size 16M --runtime 1s` is a usage
/// error whose one line is LINE (or starts with it): in this process (`support::inproc`) for
/// every case, and end to end through the binary for the first (one line on stderr, exit 2);
/// nothing is made in `dir`, the directory the scratch file would go in.
pub fn assert_bench_refuses(dir: &Path, cases: &[(&str, &str)], line: Line) {
    let matches = |err: &str, want: &str| {
        let err = err.trim_end();
        err.lines().count() == 1
            && match line {
                Line::Whole => err == want,
                Line::Start => err.starts_with(want),
            }
    };
    for (args, want) in cases {
        let opts = format!("{args} --size 16M --runtime 1s");
        let err = super::inproc::usage_error(&[&["bench"][..], &self::args(dir, &opts)].concat());
        assert!(matches(&err, want), "{args}: {err}\nwanted: {want}");
    }
    let (args, want) = cases[0];
    let out = bench(dir, &opts(&format!("{args} --size 16M --runtime 1s")));
    super::assert_usage_error(&out);
    let err = super::stderr(&out);
    assert!(matches(&err, want), "{args}: {err}\nwanted: {want}");
    assert!(leftovers(dir, &[]).is_empty(), "nothing was made");
}
