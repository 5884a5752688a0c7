//! `diskdash bench` on loop devices and small filesystems (root only; CI runs as root):
//! raw device reads, refusals of devices in use, ENOSPC and EIO mid-run,
//! O_DIRECT and space checks. Each test makes its own files, mounts and loop devices and removes
//! them. The page-cache warning, whose check is what the cache holds, is in the `alone`
//! binary.

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::support::record::*;
use crate::support::*;

fn data_file(path: &Path, bytes: usize) {
    std::fs::write(path, pattern(bytes, 1)).unwrap();
}

/// A loop device over `dir/disk.img`, `bytes` of data (no filesystem).
fn data_loop_device(dir: &Path, bytes: usize) -> LoopDevice {
    let image = dir.join("disk.img");
    data_file(&image, bytes);
    LoopDevice::attach(&image)
}

/// An ext4 filesystem on a loop device over `dir/fs.img`, mounted at `dir/mnt`.
/// Fields drop in order: the mount goes before its device.
struct MountedExt4 {
    mount: Mount,
    dev: LoopDevice,
}

impl MountedExt4 {
    fn new(dir: &Path, bytes: u64) -> Self {
        let image = dir.join("fs.img");
        ext4_image(&image, bytes);
        let dev = LoopDevice::attach(&image);
        let mount = Mount::new(&[dev.path().to_str().unwrap()], &dir.join("mnt"));
        Self { mount, dev }
    }

    fn mnt(&self) -> &Path {
        &self.mount.0
    }
}

/// The one-line refusal to write to `dev` while something on it is mounted at `mnt`.
fn mounted_refusal(dev: &LoopDevice, mnt: &Path) -> String {
    format!(
        "error: refusing to write to {}: it is mounted at {}; unmount or release it first",
        dev.path().display(),
        mnt.display()
    )
}

#[test]
#[ignore = "needs root"]
fn reads_a_raw_loop_device() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let dev = data_loop_device(dir.path(), 32 << 20);
    let (_, record) = bench_ok(
        dir.path(),
        &args(dev.path(), "--runtime 300ms --interval 100ms"),
    );
    assert_eq!(record["status"], "completed");
    assert_eq!(record["target"]["kind"], "block_device");
    assert_eq!(record["target"]["working_set_bytes"], 32 << 20);
    // Without --size a device is worked on whole (fio's default), and the note says so.
    assert!(
        record["notes"]
            .to_string()
            .contains("working set: the whole of")
    );
    assert!(record["read"]["total_ios"].as_u64().unwrap() > 0);
    let name = dev.path().file_name().unwrap().to_str().unwrap();
    assert_eq!(record["device"]["name"], name);
    // Nothing else touches this loop device: the counts match exactly.
    let rec = &record["device"]["reconciliation"];
    assert_eq!(rec["device_read_ios"], rec["app_read_ios"], "{rec}");
}

#[test]
#[ignore = "needs root"]
fn refuses_to_write_to_a_mounted_device_even_when_allowed() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let fs = MountedExt4::new(dir.path(), 32 << 20);
    let out = bench(
        dir.path(),
        &args(
            fs.dev.path(),
            "--rw randwrite --allow-destructive --runtime 300ms",
        ),
    );
    assert_usage_error(&out);
    assert_eq!(stderr(&out).trim(), mounted_refusal(&fs.dev, fs.mnt()));
    // Reading a mounted device is harmless and allowed.
    let out = bench(dir.path(), &args(fs.dev.path(), "--runtime 200ms"));
    assert_success(&out);
}

/// An MBR with one Linux partition from sector 2048 to the end of a `bytes`-long image.
fn write_mbr(image: &Path, bytes: u64) {
    use std::io::{Seek, SeekFrom, Write};
    let mut mbr = [0u8; 512];
    let entry = &mut mbr[446..462];
    entry[4] = 0x83; // Linux
    entry[8..12].copy_from_slice(&2048u32.to_le_bytes());
    entry[12..16].copy_from_slice(&(u32::try_from(bytes / 512).unwrap() - 2048).to_le_bytes());
    mbr[510] = 0x55;
    mbr[511] = 0xaa;
    let mut file = std::fs::OpenOptions::new().write(true).open(image).unwrap();
    file.seek(SeekFrom::Start(0)).unwrap();
    file.write_all(&mbr).unwrap();
}

#[test]
#[ignore = "needs root"]
fn refuses_to_write_to_a_disk_whose_partition_is_mounted() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    sparse_file(&image, 32 << 20);
    write_mbr(&image, 32 << 20);
    let dev = LoopDevice::attach_partitioned(&image);
    let part = PathBuf::from(format!("{}p1", dev.path().display()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    let mut added = false;
    while !part.exists() {
        if !added && std::time::Instant::now() > deadline {
            added = true;
            // A kernel without MBR support (CONFIG_MSDOS_PARTITION) reads no table: the same
            // partition is added as the table says, through BLKPG (util-linux's addpart).
            let sectors = (32u64 << 20) / 512 - 2048;
            run(
                "addpart",
                &[
                    dev.path().to_str().unwrap(),
                    "1",
                    "2048",
                    &sectors.to_string(),
                ],
            );
        }
        assert!(
            std::time::Instant::now() < deadline + std::time::Duration::from_secs(2),
            "{} did not appear, even after addpart",
            part.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    run("mkfs.ext4", &["-q", "-F", part.to_str().unwrap()]);
    let mnt = dir.path().join("mnt");
    let _mount = Mount::new(&[part.to_str().unwrap()], &mnt);
    let out = bench(
        dir.path(),
        &args(dev.path(), "--rw write --allow-destructive --runtime 200ms"),
    );
    assert_usage_error(&out);
    assert_eq!(stderr(&out).trim(), mounted_refusal(&dev, &mnt));
}

#[test]
#[ignore = "needs root"]
fn refuses_to_write_to_a_device_another_program_holds() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let dev = data_loop_device(dir.path(), 16 << 20);
    let out = bench(dir.path(), &args(dev.path(), "--rw randwrite"));
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out).trim(),
        format!(
            "error: refusing to write to block device {}: its data would be overwritten; pass \
             --allow-destructive if that is what you want",
            dev.path().display()
        )
    );
    let holder = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(dev.path())
        .unwrap();
    let write = args(dev.path(), "--rw write --allow-destructive --runtime 200ms");
    let out = bench(dir.path(), &write);
    assert_usage_error(&out);
    assert_stderr_has(
        &out,
        "it is in use (another program has it open exclusively)",
    );
    drop(holder);
    let out = bench(dir.path(), &write);
    assert_success(&out);
}

#[test]
#[ignore = "needs root"]
fn enospc_mid_run_stops_and_records_failed() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let fs = MountedExt4::new(dir.path(), 16 << 20);
    let file = fs.mnt().join("big.bin");
    sparse_file(&file, 64 << 20);
    let (out, record) = bench_fails(
        dir.path(),
        &args(
            &file,
            "--rw write --bs 1M -q 4 --allow-destructive --runtime 20s",
        ),
    );
    assert_stderr_has(&out, "failed: No space left on device (ENOSPC)");
    assert_write_failed_with(&record, "ENOSPC");
    let offset = record["error"]["offset_bytes"].as_u64().unwrap();
    assert!(offset > 0 && offset < 16 << 20, "offset {offset}");
}

/// The set-up often suggested for EIO; this kernel's loop driver passes the backing file's
/// ENOSPC up as ENOSPC (BLK_STS_NOSPC), older ones as EIO: either must fail the run cleanly.
#[test]
#[ignore = "needs root"]
fn loop_device_over_a_full_tmpfs_fails_the_run_cleanly() {
    crate::support::require_root();
    // A loop device over a sparse 64 MiB file on an 8 MiB tmpfs: writes past 8 MiB fail in
    // the loop driver's backing file and come back as an I/O error.
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("tmpfs");
    let _mount = Mount::new(&["-t", "tmpfs", "-o", "size=8M", "tmpfs"], &mnt);
    let image = mnt.join("sparse.img");
    sparse_file(&image, 64 << 20);
    let dev = LoopDevice::attach(&image);
    let (out, record) = bench_fails(
        dir.path(),
        &args(
            dev.path(),
            "--rw write --bs 1M -q 1 --allow-destructive --runtime 20s",
        ),
    );
    let errno = record["error"]["errno_name"].as_str().unwrap().to_string();
    assert!(errno == "EIO" || errno == "ENOSPC", "{errno}");
    let offset = record["error"]["offset_bytes"].as_u64().unwrap();
    assert!((4 << 20..=8 << 20).contains(&offset), "offset {offset}");
    assert_stderr_has(&out, &format!("error: write at offset {offset}"));
}

/// A real EIO mid-run: the ext4 under the target is shut down (EXT4_IOC_SHUTDOWN, as
/// `xfs_io -c shutdown` does) while the run writes; every write after that fails with EIO.
#[test]
#[ignore = "needs root"]
fn eio_mid_run_stops_and_records_failed() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let fs = MountedExt4::new(dir.path(), 64 << 20);
    let file = fs.mnt().join("data.bin");
    data_file(&file, 16 << 20);
    let run = MeasuringRun::start(
        dir.path(),
        &args(
            &file,
            "--rw randwrite --allow-destructive --runtime 20s --interval 100ms",
        ),
    );
    shutdown_ext4(fs.mnt());
    let (code, rest) = run.finish();
    assert_eq!(code, Some(1), "{rest:?}");
    assert!(
        rest.iter()
            .any(|l| l.contains("failed: Input/output error (EIO)")),
        "{rest:?}"
    );
    let record = record_in(dir.path());
    assert_write_failed_with(&record, "EIO");
    assert!(record["error"]["offset_bytes"].as_u64().unwrap() < 16 << 20);
}

#[test]
#[ignore = "needs root"]
fn filesystems_without_o_direct_or_space_are_usage_errors() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let ramfs = dir.path().join("ramfs");
    let _ramfs = Mount::new(&["-t", "ramfs", "ramfs"], &ramfs);
    let out = bench(dir.path(), &[ramfs.to_str().unwrap(), "--size", "4M"]);
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out).trim(),
        format!(
            "error: O_DIRECT is not supported by the filesystem of {} (ramfs); use --buffered",
            ramfs.display()
        )
    );
    let out = bench(
        dir.path(),
        &args(&ramfs, "--size 4M --buffered --runtime 200ms"),
    );
    assert_success(&out);

    let full = dir.path().join("full");
    let _full = Mount::new(&["-t", "tmpfs", "-o", "size=1M", "tmpfs"], &full);
    let _ = std::fs::write(full.join("filler"), vec![0u8; 1 << 20]);
    let out = bench(dir.path(), &[full.to_str().unwrap()]);
    assert_usage_error(&out);
    assert!(
        stderr(&out).starts_with(&format!(
            "error: no room for the scratch file in {}: only",
            full.display()
        )),
        "{}",
        stderr(&out)
    );
    assert!(
        std::fs::read_dir(&full).unwrap().count() == 1,
        "no scratch file left"
    );
}

/// A block device without `--size` is worked on whole, as fio does.
#[test]
#[ignore = "needs root"]
fn a_block_device_is_worked_on_whole_by_default() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let dev = data_loop_device(dir.path(), 24 << 20);
    let (out, record) = bench_ok(
        dir.path(),
        &args(dev.path(), "--rw randread --runtime 200ms --no-tui"),
    );
    assert_eq!(record["target"]["working_set_bytes"], 24 << 20);
    assert_stderr_has(
        &out,
        &format!(
            "note: working set: the whole of {} (24 MiB)",
            dev.path().display()
        ),
    );
}
