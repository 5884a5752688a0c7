//! fio's mixed sequential jobs (`rw=rw`, fio's `examples/fio-seq-RW.fio`): reads follow reads
//! and writes follow writes, each direction walking the file from its start (fio's
//! `last_pos[ddir]`), seen in which blocks of the file the writes changed.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::{BIN, assert_success, stdout};

/// Blocks of `bs` bytes in `file` that no longer hold the 0xFF the test filled them with.
fn changed_blocks(file: &Path, bs: usize) -> Vec<bool> {
    std::fs::read(file)
        .unwrap()
        .chunks(bs)
        .map(|block| block.iter().any(|&b| b != 0xFF))
        .collect()
}

#[test]
fn fio_mixed_sequential_writes_walk_the_file_from_its_start_apart_from_the_reads() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, vec![0xFF; 1 << 20]).unwrap();
    let out = Command::new(BIN)
        .args([
            "fio",
            "--name=mix",
            "--filename=f",
            "--rw=rw",
            "--rwmixread=50",
            "--bs=4k",
            "--size=1M",
            "--refill_buffers",
            "--allow-destructive",
            "--output-format=json",
            "--no-tui",
        ])
        .current_dir(dir.path())
        .output()
        .expect("diskdash runs");
    assert_success(&out);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let job = &json["jobs"][0];
    let reads = job["read"]["io_bytes"].as_u64().unwrap() / 4096;
    let writes = job["write"]["io_bytes"].as_u64().unwrap() / 4096;
    // A size-based job moves the file's size once, split between the directions.
    assert_eq!(reads + writes, 256, "{job}");
    assert!(reads > 50 && writes > 50, "reads {reads}, writes {writes}");
    // The writes are the file's first `writes` blocks, in a row, as fio writes them; with one
    // position for both directions they would be spread over the whole file between reads.
    let changed = changed_blocks(&file, 4096);
    let map: String = changed.iter().map(|&c| if c { 'W' } else { '.' }).collect();
    let prefix = usize::try_from(writes).unwrap();
    assert!(
        changed[..prefix].iter().all(|&c| c) && !changed[prefix..].iter().any(|&c| c),
        "{writes} writes changed: {map}"
    );
}
