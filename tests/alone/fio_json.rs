//! The same fio job run by real fio and by `diskdash fio`, both JSON documents read by the
//! same script (`tests/fio_json_reader.py`): the script finds the same keys in both, and the
//! rates agree within 15%. Needs fio (and python3); CI installs it.
//!
//! Rates of the same disk are compared, so this test lives in the `alone` test binary (`cargo
//! test` runs test binaries one after another, and `alone` one test at a time): no other test
//! moves the disk under it.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{BIN, assert_success, stdout};

const READER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fio_json_reader.py");

/// The job, fio's arguments; `--filename` is added.
const JOB: [&str; 10] = [
    "--name=r",
    "--rw=randread",
    "--bs=4k",
    "--iodepth=8",
    "--ioengine=io_uring",
    "--direct=1",
    "--runtime=2",
    "--time_based",
    "--size=32M",
    "--output-format=json",
];

/// `(jobname, rw)` -> `[iops, bw KiB/s, runtime ms, clat mean us, p99 us]` of the script's
/// lines for `document`.
fn read_with_script(document: &str) -> BTreeMap<(String, String), Vec<String>> {
    let mut child = Command::new("python3")
        .arg(READER)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(document.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_success(&out);
    stdout(&out)
        .lines()
        .map(|line| {
            let fields: Vec<String> = line.split_whitespace().map(str::to_string).collect();
            assert_eq!(fields.len(), 7, "{line}");
            ((fields[0].clone(), fields[1].clone()), fields[2..].to_vec())
        })
        .collect()
}

fn run_json(program: &str, pre: &[&str], file: &Path) -> String {
    let out = Command::new(program)
        .args(pre)
        .args(JOB)
        .arg(format!("--filename={}", file.display()))
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    assert_success(&out);
    stdout(&out)
}

#[test]
#[ignore = "needs fio"]
fn a_script_reads_the_same_keys_and_rates_from_fio_and_diskdash() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data");
    // Written, not sparse: direct reads of holes would not reach the disk.
    std::fs::write(&file, vec![0x5a_u8; 32 << 20]).unwrap();

    // The disk may be shared with whatever else runs on the machine. Each attempt runs
    // fio, diskdash, diskdash, fio (drift cancels) and compares the tools' mean rates; up to
    // three attempts, the rates must agree within 15% in one.
    let mut misses = Vec::new();
    for _ in 0..3 {
        let fio_a = read_with_script(&run_json("fio", &[], &file));
        let ours_a = read_with_script(&run_json(BIN, &["fio"], &file));
        let ours_b = read_with_script(&run_json(BIN, &["fio"], &file));
        let fio_b = read_with_script(&run_json("fio", &[], &file));
        // The keys never depend on the disk: the same in every run.
        for ours in [&ours_a, &ours_b] {
            assert_eq!(
                fio_a.keys().collect::<Vec<_>>(),
                ours.keys().collect::<Vec<_>>(),
                "fio: {fio_a:?}\ndiskdash: {ours:?}"
            );
        }
        match rates_agree(&mean(&fio_a, &fio_b), &mean(&ours_a, &ours_b)) {
            Ok(()) => return,
            Err(miss) => misses.push(miss),
        }
    }
    panic!("the rates differ by more than 15% in every attempt: {misses:?}");
}

/// Per job, the mean of two runs' numbers (field by field).
fn mean(
    a: &BTreeMap<(String, String), Vec<String>>,
    b: &BTreeMap<(String, String), Vec<String>>,
) -> BTreeMap<(String, String), Vec<String>> {
    a.iter()
        .map(|(key, xs)| {
            let ys = &b[key];
            let both = xs
                .iter()
                .zip(ys)
                .map(|(x, y)| match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(x), Ok(y)) => ((x + y) / 2.0).to_string(),
                    _ => format!("{x}|{y}"),
                })
                .collect();
            (key.clone(), both)
        })
        .collect()
}

/// Every job's iops and bw within 15%, its runtime, mean and p99 numeric.
fn rates_agree(
    fio: &BTreeMap<(String, String), Vec<String>>,
    ours: &BTreeMap<(String, String), Vec<String>>,
) -> Result<(), String> {
    for (key, theirs) in fio {
        let mine = &ours[key];
        for field in &mine[2..] {
            assert!(field.parse::<f64>().is_ok(), "{key:?}: {mine:?}");
        }
        for (i, name) in [(0, "iops"), (1, "bw")] {
            let (a, b): (f64, f64) = (theirs[i].parse().unwrap(), mine[i].parse().unwrap());
            if !(a > 0.0 && (a - b).abs() / a <= 0.15) {
                return Err(format!("{key:?} {name}: fio {a}, diskdash {b}"));
            }
        }
    }
    Ok(())
}
