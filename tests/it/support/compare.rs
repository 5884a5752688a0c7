//! Shared by the tests of `compare` in `it` and `alone`: `diskdash compare`, records of real
//! runs, and copies of a record edited to a known change.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use super::record::bench;
use super::{BIN, assert_success, read_json};

pub fn compare(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("compare")
        .args(args)
        .output()
        .expect("running diskdash")
}

pub fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Records a run of 1 s at 10 ms intervals (100 intervals, 10 batches) in `dir` as `name`.
pub fn record_long(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let shown = path.to_string_lossy().into_owned();
    let mut all = vec![
        "--no-tui",
        "--size",
        "32M",
        "--runtime",
        "1s",
        "--interval",
        "10ms",
    ];
    all.extend_from_slice(&["--json", &shown]);
    all.extend_from_slice(args);
    assert_success(&bench(dir, &all));
    path
}

/// A copy of the record at `from` whose `dir` (read, write, trim) did `1/by` of the I/Os at
/// the same latency: its totals and every job's interval series. A tenth, not a half: a
/// shared VM's 100 ms batches can spread by tens of percent.
pub fn cut(from: &Path, name: &str, dir: &str, by: u64) -> PathBuf {
    edited(from, name, |r| {
        let tenth = |v: &mut Value| *v = (v.as_u64().unwrap() / by).into();
        let totals = &mut r[dir];
        totals["iops"] = (totals["iops"].as_f64().unwrap() / by as f64).into();
        tenth(&mut totals["bw_bytes"]);
        for step in r["segments"].as_array_mut().unwrap() {
            for job in step["jobs"].as_array_mut().unwrap() {
                for entry in job["series"].as_array_mut().unwrap() {
                    if let Some(counts) = entry.get_mut(dir) {
                        tenth(&mut counts["ios"]);
                        tenth(&mut counts["bytes"]);
                        tenth(&mut counts["lat_sum_ns"]);
                    }
                }
            }
        }
    })
}

/// A copy of the record at `from` whose reads each took `add_ns` longer, as far as percentiles
/// go: each interval's histogram, fastest and slowest read in the step's series, and the
/// totals' percentiles. A shift, not a factor: the batches' spread stays what the run had, so
/// a shift well above it is a change whatever the machine's load made of the run.
pub fn slowed(from: &Path, name: &str, add_ns: u64) -> PathBuf {
    edited(from, name, |r| {
        let later = |v: &mut Value| *v = (v.as_u64().unwrap() + add_ns).into();
        let slow = |lat: &mut Value| {
            if lat["N"].as_u64().unwrap_or(0) == 0 {
                return;
            }
            for key in ["min", "max"] {
                later(&mut lat[key]);
            }
            if let Some(percentiles) = lat["percentile"].as_object_mut() {
                percentiles.values_mut().for_each(later);
            }
            if let Some(le) = lat["histogram"]["le_ns"].as_array_mut() {
                le.iter_mut().for_each(later);
            }
        };
        slow(&mut r["read"]["lat_ns"]);
        for step in r["segments"].as_array_mut().unwrap() {
            for interval in step["series"].as_array_mut().unwrap() {
                slow(&mut interval["read"]["lat_ns"]);
            }
        }
    })
}

/// A copy of `from` as `name` in the same directory, edited by `edit`.
pub fn edited(from: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut json = read_json(from);
    edit(&mut json);
    let path = from.with_file_name(name);
    std::fs::write(&path, serde_json::to_string(&json).unwrap()).unwrap();
    path
}
