//! As root: a loop device attached while `diskdash iostat` runs shows up in later reports with
//! the reads done on it, and detaching it mid-run makes it vanish without an error.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_diskdash");

/// The effective uid owns `/proc/self`.
fn is_root() -> bool {
    std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0
}

/// A loop device over a file; detached on drop.
struct LoopDevice(PathBuf);

impl LoopDevice {
    fn attach(file: &Path) -> LoopDevice {
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        LoopDevice(PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()))
    }

    fn name(&self) -> String {
        self.0.file_name().unwrap().to_string_lossy().into_owned()
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.0).status();
    }
}

/// O_DIRECT reads over the whole device until `until`; returns the bytes read.
fn read_direct_until(dev: &Path, until: Instant) -> u64 {
    const CHUNK: usize = 256 << 10;
    let mut storage = vec![0u8; CHUNK + 4096];
    let offset = storage.as_ptr().align_offset(4096);
    let buf = &mut storage[offset..offset + CHUNK];
    let mut total = 0u64;
    while Instant::now() < until {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(dev)
            .unwrap();
        loop {
            let n = file.read(buf).unwrap();
            if n == 0 || Instant::now() >= until {
                break;
            }
            total += n as u64;
        }
    }
    total
}

#[test]
fn a_loop_device_attached_mid_run_appears_and_vanishes_on_detach() {
    if !is_root() {
        eprintln!("skipped: attaching loop devices needs root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    std::fs::File::create(&image)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    // -z: a device shows only in intervals where it did I/O, so a detached one is gone.
    let child = Command::new(BIN)
        .args(["iostat", "-z", "-y", "-o", "JSON", "0.25", "14"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    std::thread::sleep(Duration::from_millis(600));
    let device = LoopDevice::attach(&image);
    let name = device.name();
    let read_bytes = read_direct_until(&device.0, start + Duration::from_millis(1600));
    drop(device);
    let detached_at = start.elapsed();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let reports: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reports.len(), 14);
    let rows: Vec<Option<&Value>> = reports
        .iter()
        .map(|r| {
            r["disk"]
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["disk_device"] == name.as_str())
        })
        .collect();
    assert!(
        rows[0].is_none(),
        "{name} in the first report, before attaching"
    );
    let seen: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].is_some()).collect();
    assert!(!seen.is_empty(), "{name} never reported");
    // Reports end every 0.25 s; everything after detaching plus a margin must be without it.
    let last_possible = (detached_at.as_secs_f64() / 0.25).ceil() as usize + 1;
    assert!(
        seen.iter().all(|&i| i <= last_possible) && *seen.last().unwrap() < 13,
        "{name} reported in {seen:?} though detached after {detached_at:?}"
    );
    let read_kb: f64 = seen
        .iter()
        .map(|&i| rows[i].unwrap()["rkB/s"].as_f64().unwrap() * 0.25)
        .sum();
    let expected_kb = read_bytes as f64 / 1024.0;
    eprintln!("{name}: in reports {seen:?}, {read_kb:.0} kB reported, {expected_kb:.0} kB read");
    assert!(
        (read_kb - expected_kb).abs() <= expected_kb * 0.15 + 256.0,
        "reported {read_kb:.0} kB read, the test read {expected_kb:.0} kB"
    );
    for &i in &seen {
        let row = rows[i].unwrap();
        assert_eq!(row["w/s"], 0.0);
        if row["r/s"].as_f64().unwrap() > 10.0 {
            assert_eq!(row["rareq-sz"], 256.0, "O_DIRECT reads of 256 KiB: {row}");
        }
    }
}
