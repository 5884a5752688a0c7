//! As root: a loop device attached while `diskdash iostat` runs shows up in later reports with
//! the reads done on it, and detaching it mid-run makes it vanish without an error.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{BIN, LoopDevice};
use serde_json::Value;

/// O_DIRECT reads over the whole device until `until`; returns the bytes read in all and those
/// read before `cutoff`.
fn read_direct_until(dev: &Path, cutoff: Instant, until: Instant) -> (u64, u64) {
    const CHUNK: usize = 256 << 10;
    let mut storage = vec![0u8; CHUNK + 4096];
    let offset = storage.as_ptr().align_offset(4096);
    let buf = &mut storage[offset..offset + CHUNK];
    let (mut total, mut before_cutoff) = (0u64, 0u64);
    while Instant::now() < until {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(dev)
            .unwrap();
        loop {
            let n = file.read(buf).unwrap();
            let now = Instant::now();
            total += n as u64;
            if now < cutoff {
                before_cutoff = total;
            }
            if n == 0 || now >= until {
                break;
            }
        }
    }
    (total, before_cutoff)
}

#[test]
#[ignore = "needs root"]
fn a_loop_device_attached_mid_run_appears_and_vanishes_on_detach() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    crate::support::sparse_file(&image, 16 << 20);
    // -z: a device shows only in intervals where it did I/O, so a detached one is gone.
    let child = Command::new(BIN)
        .args(["iostat", "-dx", "-z", "-y", "-o", "JSON", "0.25", "14"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    std::thread::sleep(Duration::from_millis(600));
    // A number of its own, created now and removed on detach: the first free loop device is
    // shared with every other test on the machine, which may do I/O on it before this test
    // attaches or after it detaches.
    let device = LoopDevice::attach_unique(&image);
    let name = device.name();
    // Reads right up to the detach, so the device vanishes in an interval in which it did I/O.
    let until = start + Duration::from_millis(1600);
    let (read_bytes, settled_bytes) =
        read_direct_until(device.path(), until - Duration::from_millis(500), until);
    drop(device);
    let detached_at = start.elapsed();
    let out = child.wait_with_output().unwrap();
    crate::support::assert_quiet_success(&out);

    let reports = crate::iostat::statistics(&crate::support::stdout(&out));
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
    let settled_kb = settled_bytes as f64 / 1024.0;
    eprintln!(
        "{name}: in reports {seen:?}, {read_kb:.0} kB reported, {expected_kb:.0} kB read, \
         {settled_kb:.0} kB of it 0.5 s or more before the detach"
    );
    // The interval in which the device vanished has no row (its I/O is lost with it, as in
    // sysstat), so only reads done well before the detach are certainly reported: those were
    // in a report that ended before the detach (reports end every 0.25 s; 0.25 s more for a
    // late sample). 15% either way for sampling times under load, 256 kB for probe reads.
    assert!(
        read_kb >= settled_kb * 0.85 && read_kb <= expected_kb * 1.15 + 256.0,
        "reported {read_kb:.0} kB read; the test read {expected_kb:.0} kB, \
         {settled_kb:.0} kB of it 0.5 s or more before the detach"
    );
    // Request sizes: the reads are 256 KiB each, but the mean over an interval may include a
    // few requests that are not the test's: the kernel's and udev's (blkid's) probes of a
    // freshly attached device (4 KiB to a few hundred KiB each), or a merge of two reads. Up to
    // FOREIGN such requests of any size from 0 to 512 KiB move the mean of n requests by at
    // most FOREIGN * 256 / n KiB; intervals with fewer than 16 requests are not checked, so the
    // tolerance stays under 64 KiB and a wrong size (reads split in half, or counted in the
    // wrong unit) still fails. At the usual thousands of reads a second it is a few KiB.
    const FOREIGN: f64 = 4.0;
    let mut checked = 0;
    for &i in &seen {
        let row = rows[i].unwrap();
        assert_eq!(row["w/s"], 0.0, "{row}");
        let requests = row["r/s"].as_f64().unwrap() * 0.25;
        if requests < 16.0 {
            continue;
        }
        let size = row["rareq-sz"].as_f64().unwrap();
        let tolerance = FOREIGN * 256.0 / requests;
        assert!(
            (size - 256.0).abs() <= tolerance,
            "O_DIRECT reads of 256 KiB, {requests:.0} requests in the interval: rareq-sz {size} \
             is more than {tolerance:.2} KiB off: {row}"
        );
        checked += 1;
    }
    assert!(checked > 0, "no interval with 16 or more reads: {seen:?}");
}
