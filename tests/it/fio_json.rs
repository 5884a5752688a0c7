//! The same fio job run by real fio and by `diskdash fio`, both JSON documents read by the
//! same script (`tests/fio_json_reader.py`): the script finds the same keys in both, and every
//! number it reads is a number (the rates above zero). Needs fio (and python3); CI installs it.
//!
//! Whether the two tools' rates agree is a statistic of the disk, not a check of the keys: it
//! is measured by `benches/fio_json_rates.sh` (the same job and script, alternated runs, the
//! 15% bound this test held until 2026-11, when it left the `alone` binary for `it`), not here.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{BIN, assert_success, stdout};

const READER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fio_json_reader.py");

/// The job, fio's arguments; `--filename` is added. (`benches/fio_json_rates.sh` runs the same
/// job for 2 s; the keys do not depend on the runtime.)
const JOB: [&str; 10] = [
    "--name=r",
    "--rw=randread",
    "--bs=4k",
    "--iodepth=8",
    "--ioengine=io_uring",
    "--direct=1",
    "--runtime=1",
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
fn a_script_reads_the_same_keys_and_numbers_from_fio_and_diskdash() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data");
    // Written, not sparse: direct reads of holes would not reach the disk.
    std::fs::write(&file, vec![0x5a_u8; 32 << 20]).unwrap();

    let fio = read_with_script(&run_json("fio", &[], &file));
    let ours = read_with_script(&run_json(BIN, &["fio"], &file));
    // The keys never depend on the disk.
    assert!(!fio.is_empty(), "fio: no job read");
    assert_eq!(
        fio.keys().collect::<Vec<_>>(),
        ours.keys().collect::<Vec<_>>(),
        "fio: {fio:?}\ndiskdash: {ours:?}"
    );
    for (tool, lines) in [("fio", &fio), ("diskdash", &ours)] {
        for (key, fields) in lines {
            // iops and bw: rates of a run that read, above zero; runtime, mean and p99 numbers.
            let numbers: Vec<f64> = fields
                .iter()
                .map(|f| {
                    f.parse::<f64>()
                        .unwrap_or_else(|_| panic!("{tool} {key:?}: {fields:?}"))
                })
                .collect();
            assert!(
                numbers[0] > 0.0 && numbers[1] > 0.0,
                "{tool} {key:?}: {fields:?}"
            );
        }
    }
}
