//! fio's normal text report beside diskdash's: the same small job through real fio
//! (/usr/bin/fio, 3.33) and `diskdash fio`, the job block's lines compared by shape (labels in
//! order, values and units aside), for a synchronous engine (psync: no slat line) and an
//! asynchronous one (io_uring: slat, clat and lat).

use std::path::Path;
use std::process::{Command, Output};

use crate::support::*;

/// A 1 s random read of 4 KiB blocks at depth 1 on `file` with `engine`, fio's arguments.
fn job_args(file: &Path, engine: &str) -> Vec<String> {
    [
        "--name=j",
        &format!("--filename={}", file.display()),
        "--size=8m",
        "--rw=randread",
        "--bs=4k",
        &format!("--ioengine={engine}"),
        "--iodepth=1",
        "--runtime=1",
        "--time_based",
    ]
    .iter()
    .map(ToString::to_string)
    .collect()
}

fn run(program: &str, pre: &[&str], args: &[String], dir: &Path) -> Output {
    let out = Command::new(program)
        .args(pre)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{program}: {}", stderr(&out));
    out
}

/// The job block's line shapes: from the `(groupid=` header to the run-status group, each
/// line's label (what comes before its first `:`, or `|` for a percentile row), units made
/// `unit`; lines of one label in a row (percentile rows, the latency distribution's lines,
/// whose number follows the values) count once.
fn shapes(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text
        .lines()
        .skip_while(|line| !line.contains(": (groupid="))
        .take_while(|line| !line.starts_with("Run status group"))
        .filter(|line| !line.trim().is_empty())
    {
        let label = if line.trim_start().starts_with('|') {
            "     |".to_string()
        } else {
            let lead = line.split(':').next().unwrap_or("");
            ["nsec", "usec", "msec"]
                .iter()
                .fold(lead.to_string(), |l, unit| l.replace(unit, "unit"))
        };
        if out.last() != Some(&label) {
            out.push(label);
        }
    }
    out
}

#[test]
fn the_normal_report_has_fio_s_lines_in_fio_s_order() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data");
    std::fs::write(&file, vec![0x5a_u8; 8 << 20]).unwrap();
    for (engine, slat) in [("psync", false), ("io_uring", true)] {
        let args = job_args(&file, engine);
        let fio = stdout(&run("fio", &[], &args, dir.path()));
        let ours = stdout(&run(BIN, &["fio", "--no-tui"], &args, dir.path()));
        let (want, got) = (shapes(&fio), shapes(&ours));
        assert!(want.len() > 10, "fio's block: {fio}");
        assert_eq!(got, want, "{engine}: diskdash's\n{ours}\nfio's\n{fio}");
        // The line fio leaves out for a synchronous engine.
        assert_eq!(got.iter().any(|l| l == "    slat (unit)"), slat, "{engine}");
    }
}
