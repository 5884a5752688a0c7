//! `diskdash info` on this machine's disks and, as root, on an ext4 filesystem on a loop
//! device: the path -> filesystem -> disk chain, mounts, queue settings, notes.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{BIN, LoopDevice, Mount};
use serde_json::Value;

/// Every queue setting `info --json` reports, present even when absent (`null`).
const QUEUE_KEYS: [&str; 20] = [
    "discard_max_bytes",
    "fua",
    "hw_queues",
    "io_poll",
    "logical_block_size",
    "max_hw_sectors_kb",
    "max_sectors_kb",
    "minimum_io_size",
    "nomerges",
    "nr_requests",
    "optimal_io_size",
    "physical_block_size",
    "read_ahead_kb",
    "rotational",
    "rq_affinity",
    "scheduler",
    "schedulers_available",
    "wbt_lat_usec",
    "write_cache",
    "zoned",
];

fn info(args: &[&str]) -> Output {
    Command::new(BIN).arg("info").args(args).output().unwrap()
}

fn json(args: &[&str]) -> Value {
    let out = info(args);
    crate::support::assert_success(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_path_leads_to_its_disk_in_text() {
    let out = info(&[env!("CARGO_MANIFEST_DIR")]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let disk = json(&["--json", env!("CARGO_MANIFEST_DIR")])["disks"][0]["disk"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.starts_with(&format!("{disk} (")), "{text}");
    assert!(text.contains(&format!("behind {}", env!("CARGO_MANIFEST_DIR"))));
    for label in [
        "transport",
        "rotational",
        "partitions",
        "holders",
        "mounts",
        "queue settings",
    ] {
        assert!(
            text.contains(&format!("  {label}")),
            "no {label} in\n{text}"
        );
    }
    assert!(text.contains("    scheduler "), "{text}");
    assert!(text.contains("    max_hw_sectors_kb "), "{text}");
}

#[test]
fn every_disk_without_arguments_with_all_queue_settings() {
    let v = json(&["--json"]);
    let disks = v["disks"].as_array().unwrap();
    let root_disk = json(&["--json", "/"])["disks"][0]["disk"].clone();
    assert!(disks.iter().any(|d| d["disk"] == root_disk), "{v}");
    for d in disks {
        let mut keys: Vec<&str> = d["queue"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, QUEUE_KEYS);
        assert!(d["size_bytes"].as_u64().unwrap() > 0, "{d}");
        // The %util note is there exactly for devices that serve requests in parallel.
        let parallel = d["queue"]["rotational"] == false
            || d["queue"]["hw_queues"].as_u64().is_some_and(|n| n > 1);
        let note = d["notes"].as_array().unwrap().iter().any(|n| {
            n.as_str().unwrap().contains(&format!(
                "/sys/block/{}/inflight",
                d["disk"].as_str().unwrap()
            ))
        });
        assert_eq!(parallel, note, "{d}");
    }
}

/// A device that serves requests in parallel (non-rotational: here a loop device marked so,
/// as an SSD is) gets the note that %util is not saturation.
#[test]
#[ignore = "needs root"]
fn the_util_note_is_in_text_for_a_parallel_device() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("parallel.img");
    crate::support::sparse_file(&image, 8 << 20);
    let dev = LoopDevice::attach(&image);
    let loop_name = dev.name();
    // A loop device takes `rotational` from what backs it; the queue attribute can be set.
    std::fs::write(format!("/sys/block/{loop_name}/queue/rotational"), "0").unwrap();
    let v = json(&["--json", &loop_name]);
    let d = v["disks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["disk"] == loop_name.as_str())
        .unwrap_or_else(|| panic!("info lists no {loop_name}: {v}"));
    assert_eq!(d["queue"]["rotational"], false, "{d}");
    let name = d["disk"].as_str().unwrap();
    let text = String::from_utf8(info(&[name]).stdout).unwrap();
    assert!(
        text.contains("  note: %util is the share of time"),
        "{text}"
    );
    assert!(text.contains("aqu-sz"), "{text}");
}

#[test]
fn unknown_targets_exit_2() {
    let out = info(&["no-such-disk"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: \"no-such-disk\" is neither a block device nor an existing path; use a name from /proc/diskstats (e.g. vda), /dev/NAME, or a path on a disk"
    );
}

#[test]
#[ignore = "needs root"]
fn a_file_on_ext4_on_a_loop_device() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("fs.img");
    crate::support::ext4_image(&image, 32 << 20);
    let device = LoopDevice::attach(&image);
    let name = device.name();
    let mnt = dir.path().join("mnt");
    // Declared after the loop device, so unmounted before it is detached.
    let _mounted = Mount::new(&["-o", "noatime", device.path().to_str().unwrap()], &mnt);
    let file = mnt.join("data");
    std::fs::write(&file, b"x").unwrap();

    let v = json(&["--json", file.to_str().unwrap()]);
    let d = &v["disks"][0];
    assert_eq!(d["disk"], name.as_str());
    assert_eq!(d["device"], name.as_str());
    assert_eq!(d["transport"], "loop");
    assert_eq!(d["size_bytes"], 32u64 << 20);
    assert_eq!(
        Path::new(d["loop_backing_file"].as_str().unwrap()),
        image.canonicalize().unwrap()
    );
    let mounts = d["mounts"].as_array().unwrap();
    assert_eq!(mounts.len(), 1, "{mounts:?}");
    assert_eq!(Path::new(mounts[0]["mount_point"].as_str().unwrap()), mnt);
    assert_eq!(mounts[0]["fs_type"], "ext4");
    let options: Vec<&str> = mounts[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    assert_eq!(options[0], "rw");
    assert!(options.contains(&"noatime"), "{options:?}");
    assert_eq!(d["queue"]["logical_block_size"], 512);

    // The same file names the device for iostat.
    let out = Command::new(BIN)
        .args(["iostat", "-o", "JSON"])
        .arg(&file)
        .output()
        .unwrap();
    crate::support::assert_success(&out);
    let report = &crate::iostat::statistics(&crate::support::stdout(&out))[0];
    assert_eq!(report["disk"][0]["disk_device"], name.as_str());
}
