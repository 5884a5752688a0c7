//! Helpers for the bench tests: run the real binary, read and validate records, loop devices.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_diskdash");

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

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).expect("the record is JSON")
}

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/schema/run-record.schema.json");
    read_json(&path)
}

fn check(schema: &Value, instance: &Value, what: &str) {
    let validator = jsonschema::validator_for(schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not match the schema:\n{}",
        errors.join("\n")
    );
}

/// Asserts `record` matches assets/schema/run-record.schema.json.
pub fn assert_valid_record(record: &Value) {
    check(&schema(), record, "run record");
}

/// Asserts one JSON Lines record matches the schema's `$defs/interval`.
pub fn assert_valid_interval(line: &Value) {
    let full = schema();
    let wrapper = serde_json::json!({
        "$schema": full["$schema"],
        "$defs": full["$defs"],
        "$ref": "#/$defs/interval",
    });
    check(&wrapper, line, "interval record");
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

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Prints why a root-only test is skipped and returns true when it should be.
pub fn skip_unless_root(test: &str) -> bool {
    if is_root() {
        return false;
    }
    eprintln!("skipping {test}: needs root (loop devices and mounts); CI runs it as root");
    true
}

pub fn run(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(
        out.status.success(),
        "{cmd} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A loop device over `file`, detached on drop.
pub struct LoopDevice(pub PathBuf);

impl LoopDevice {
    pub fn attach(file: &Path) -> Self {
        Self(PathBuf::from(run(
            "losetup",
            &["-f", "--show", file.to_str().unwrap()],
        )))
    }

    /// Attached with partition scanning (`losetup -P`): partitions appear as `<dev>p1`, ...
    pub fn attach_partitioned(file: &Path) -> Self {
        Self(PathBuf::from(run(
            "losetup",
            &["-f", "--show", "-P", file.to_str().unwrap()],
        )))
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.0).status();
    }
}

/// A mount, unmounted (lazily, so a failing test cannot leave it busy) on drop.
pub struct Mount(pub PathBuf);

impl Mount {
    pub fn new(args: &[&str], at: &Path) -> Self {
        std::fs::create_dir_all(at).unwrap();
        let mut all: Vec<&str> = args.to_vec();
        all.push(at.to_str().unwrap());
        run("mount", &all);
        Self(at.to_path_buf())
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}
