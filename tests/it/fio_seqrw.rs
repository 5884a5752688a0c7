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

/// The open files (not `O_PATH` pins) that process `pid` holds on `file`.
fn open_files_on(pid: u32, file: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| std::fs::read_link(e.path()).is_ok_and(|target| target == file))
        .filter(|e| {
            let info = format!("/proc/{pid}/fdinfo/{}", e.file_name().to_string_lossy());
            // fdinfo's flags are octal; O_PATH is 010000000.
            std::fs::read_to_string(info).is_ok_and(|text| {
                text.lines()
                    .find_map(|l| l.strip_prefix("flags:"))
                    .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
                    .is_some_and(|flags| flags & 0o10_000_000 == 0)
            })
        })
        .count()
}

#[test]
fn fio_clones_on_one_file_each_open_it_as_fio_jobs_do() {
    // fio's numjobs each open the named file: the kernel keeps readahead and the fadvise
    // pattern per open file, so clones sharing one descriptor would share one readahead window.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, vec![0xFF; 4 << 20]).unwrap();
    let mut child = Command::new(BIN)
        .args([
            "fio",
            "--name=mix",
            "--filename=f",
            "--rw=rw",
            "--rwmixread=60",
            "--bs=64k",
            "--size=4M",
            "--numjobs=4",
            "--time_based",
            "--runtime=2",
            "--allow-destructive",
            "--output-format=json",
            "--no-tui",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("diskdash runs");
    let file = std::fs::canonicalize(&file).unwrap();
    let mut most = 0;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
        most = most.max(open_files_on(child.id(), &file));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_success(&out);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["jobs"].as_array().map(Vec::len), Some(4), "{json}");
    assert_eq!(most, 4, "open files on {} at once", file.display());
}
