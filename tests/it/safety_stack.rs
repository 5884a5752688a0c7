//! Writes refused anywhere in a device's stack, walked down (loop backing, dm/md slaves) and up;
//! fills checked against free space.
//!
//! The stack tests build the attack that destroyed a filesystem: ext4 on a loop device, mounted,
//! and a second loop device over the same data (over the first loop device, or over its image
//! file). Every command that can write a device (`bench`, a fio job file, `sweep`, `mark`) must
//! refuse the second one, naming the chain down to the mount; afterwards the filesystem still
//! passes `fsck -n` and still mounts with its file in it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::*;

/// ext4 in an image, on a loop device, mounted, with a file in it.
struct MountedImage {
    mount: Option<Mount>,
    lower: LoopDevice,
    image: PathBuf,
    dir: PathBuf,
}

const KEPT: &[u8] = b"this file outlives every refused write";

impl MountedImage {
    fn new(dir: &Path) -> Self {
        let image = dir.join("fs.img");
        ext4_image(&image, 32 << 20);
        let lower = LoopDevice::attach(&image);
        let mount = Mount::new(&[lower.path().to_str().unwrap()], &dir.join("mnt"));
        std::fs::write(mount.0.join("kept"), KEPT).unwrap();
        run("sync", &[]);
        Self {
            mount: Some(mount),
            lower,
            image,
            dir: dir.to_path_buf(),
        }
    }

    fn mount_point(&self) -> &Path {
        &self.mount.as_ref().unwrap().0
    }

    /// Unmounts, checks the filesystem read-only, mounts it again and reads the file back.
    fn assert_intact(&mut self) {
        let mount = self.mount.take().unwrap();
        run("umount", &[mount.0.to_str().unwrap()]);
        std::mem::forget(mount);
        assert_fsck_clean(self.lower.path());
        let again = Mount::new(
            &[self.lower.path().to_str().unwrap()],
            &self.dir.join("mnt"),
        );
        assert_eq!(std::fs::read(again.0.join("kept")).unwrap(), KEPT);
        self.mount = Some(again);
    }
}

/// `fsck.ext4 -n -f` finds no damage on the (unmounted) `device`.
fn assert_fsck_clean(device: &Path) {
    let fsck = Command::new("fsck.ext4")
        .args(["-n", "-f"])
        .arg(device)
        .output()
        .unwrap();
    assert!(
        fsck.status.success(),
        "fsck -n found damage: {}{}",
        stdout(&fsck),
        stderr(&fsck)
    );
}

fn diskdash(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// Every way of writing `device` is refused with `chain` in a one-line error, exit 2.
fn every_writer_refused(dir: &Path, device: &Path, chain: &str) {
    let dev = device.to_str().unwrap();
    let want = format!("refusing to write to {dev}: {chain}");
    let job = dir.join("write.fio");
    std::fs::write(
        &job,
        format!("[wipe]\nfilename={dev}\nrw=write\nbs=64k\nsize=8M\nruntime=1\ntime_based\n"),
    )
    .unwrap();
    let runs: [(&str, Vec<&str>); 4] = [
        (
            "bench",
            vec![
                "bench",
                dev,
                "--rw",
                "write",
                "--allow-destructive",
                "--runtime",
                "1s",
                "--no-tui",
            ],
        ),
        (
            "fio",
            vec![
                "fio",
                job.to_str().unwrap(),
                "--allow-destructive",
                "--no-tui",
            ],
        ),
        (
            "sweep",
            vec![
                "sweep",
                dev,
                "--rw",
                "write,randwrite",
                "--runtime",
                "1s",
                "--allow-destructive",
                "--no-tui",
            ],
        ),
        (
            "mark",
            vec![
                "mark",
                dev,
                "--size",
                "8M",
                "--loops",
                "1",
                "--runtime",
                "1s",
                "--allow-destructive",
                "--no-tui",
            ],
        ),
    ];
    for (what, args) in runs {
        let out = diskdash(dir, &args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{what} on {dev} was not refused: stdout {} stderr {}",
            stdout(&out),
            stderr(&out)
        );
        let err = stderr(&out);
        assert!(err.contains(&want), "{what}: stderr lacks {want:?}: {err}");
        let errors = err.lines().filter(|l| l.starts_with("error: ")).count();
        assert_eq!(errors, 1, "{what}: not one error line: {err}");
    }
}

/// A second loop device over the mounted filesystem's loop device (or, `over_image`, over its
/// image file) is refused by every writer, naming the chain; the filesystem is left intact.
fn a_second_loop_device_is_refused(over_image: bool) {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let mut fs = MountedImage::new(dir.path());
    let (over, chain) = if over_image {
        let chain = format!(
            "it is backed by {}, which backs {}, mounted at {}",
            fs.image.display(),
            fs.lower.path().display(),
            fs.mount_point().display()
        );
        (LoopDevice::attach(&fs.image), chain)
    } else {
        let chain = format!(
            "it is backed by {}, which is mounted at {}",
            fs.lower.path().display(),
            fs.mount_point().display()
        );
        (LoopDevice::attach(fs.lower.path()), chain)
    };
    every_writer_refused(dir.path(), over.path(), &chain);
    drop(over);
    fs.assert_intact();
}

#[test]
#[ignore = "needs root"]
fn a_loop_device_over_a_mounted_loop_device_is_refused() {
    a_second_loop_device_is_refused(false);
}

#[test]
#[ignore = "needs root"]
fn a_loop_device_over_the_image_of_a_mounted_loop_device_is_refused() {
    a_second_loop_device_is_refused(true);
}

/// `bench DEVICE --rw write --allow-destructive` for 300 ms, on 4 MiB.
fn bench_write(dir: &Path, device: &Path) -> Output {
    diskdash(
        dir,
        &[
            "bench",
            device.to_str().unwrap(),
            "--rw",
            "write",
            "--size",
            "4M",
            "--allow-destructive",
            "--runtime",
            "300ms",
            "--no-tui",
        ],
    )
}

/// The walk down leaves out the write's own path: a loop device over an image nothing else uses,
/// and one over a loop device nothing else uses, are written as asked.
#[test]
#[ignore = "needs root"]
fn a_loop_device_over_unused_storage_is_still_written() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("plain.img");
    sparse_file(&image, 16 << 20);
    let lower = LoopDevice::attach(&image);
    let over = LoopDevice::attach(lower.path());
    // Only `over` is written: `lower` has `over` stacked on it, and that is still refused.
    assert_success(&bench_write(dir.path(), over.path()));
}

/// A loop device's backing file is never an output, `--force` or not: `bench --json`,
/// `bench --jsonl` and `iostat --record` name the loop device and leave the image as it was.
#[test]
#[ignore = "needs root"]
fn a_loop_devices_backing_file_is_never_an_output() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("backing.img");
    sparse_file(&image, 4 << 20);
    let over = LoopDevice::attach(&image);
    let target = dir.path().to_str().unwrap();
    let img = image.to_str().unwrap();
    let bench = [
        "bench",
        target,
        "--size",
        "1M",
        "--runtime",
        "100ms",
        "--no-tui",
        "--force",
    ];
    for (args, flag) in [
        ([&bench[..], &["--json", img]].concat(), "--json"),
        ([&bench[..], &["--jsonl", img]].concat(), "--jsonl"),
        (
            vec!["iostat", "--record", img, "--force", "1", "1"],
            "--record",
        ),
    ] {
        let out = diskdash(dir.path(), &args);
        assert_eq!(
            out.status.code(),
            Some(i32::from(usage_exit_code(&args))),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_stderr_has(
            &out,
            &format!(
                "{flag} {img}: it backs {}; write elsewhere",
                over.path().display()
            ),
        );
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    }
    assert_eq!(std::fs::metadata(&image).unwrap().len(), 4 << 20);
    assert!(std::fs::read(&image).unwrap().iter().all(|&b| b == 0));
}

/// A swap area anywhere below a device is in use: a loop device over an active swap file.
#[test]
#[ignore = "needs root"]
fn a_loop_device_over_an_active_swap_file_is_refused() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let swap = dir.path().join("swapfile");
    // A swap file must be fully allocated (no holes).
    std::fs::write(&swap, vec![0u8; 8 << 20]).unwrap();
    std::fs::set_permissions(&swap, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    run("mkswap", &["-q", swap.to_str().unwrap()]);
    // The test directory is on the root filesystem (ext4 here and in CI), which takes swap files.
    run("swapon", &[swap.to_str().unwrap()]);
    struct SwapOff(PathBuf);
    impl Drop for SwapOff {
        fn drop(&mut self) {
            let _ = Command::new("swapoff").arg(&self.0).status();
        }
    }
    let _off = SwapOff(swap.clone());
    let over = LoopDevice::attach(&swap);
    let out = bench_write(dir.path(), over.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_stderr_has(
        &out,
        &format!(
            "it is backed by {}, which is in use as swap",
            swap.display()
        ),
    );
}

/// ext4 of `bytes` on a loop device, mounted at `dir/small`; the mount first, so it is dropped
/// (unmounted) before the loop device.
fn small_filesystem(dir: &Path, bytes: u64) -> (Mount, LoopDevice) {
    let image = dir.join("small.img");
    ext4_image(&image, bytes);
    let device = LoopDevice::attach(&image);
    let mount = Mount::new(&[device.path().to_str().unwrap()], &dir.join("small"));
    (mount, device)
}

fn free_bytes(path: &Path) -> u64 {
    let stat = nix::sys::statvfs::statvfs(path).unwrap();
    stat.blocks_available() * stat.fragment_size()
}

/// A job file naming a new file of 16 EiB: refused before anything is written, and the file it
/// would have created is not left behind.
#[test]
fn a_new_file_larger_than_the_free_space_is_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("huge.fio");
    std::fs::write(
        &job,
        "[huge]\nfilename=huge.dat\nrw=write\nbs=1M\nsize=18446744073709551615\nruntime=1\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let out = diskdash(dir.path(), &["fio", job.to_str().unwrap(), "--no-tui"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_usage_error(&out);
    assert_stderr_has(&out, "no room: huge.dat needs");
    assert_stderr_has(&out, "is free there; lower the size");
    assert!(!dir.path().join("huge.dat").exists());
}

/// An existing empty file on a small filesystem, to be filled with more than it holds: refused
/// with the numbers, and nothing written (the filesystem is as free as before).
#[test]
#[ignore = "needs root"]
fn filling_an_empty_file_past_the_free_space_is_refused() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let (mount, _device) = small_filesystem(dir.path(), 24 << 20);
    let empty = mount.0.join("empty");
    std::fs::write(&empty, b"").unwrap();
    let before = free_bytes(&mount.0);
    let out = diskdash(
        dir.path(),
        &[
            "bench",
            empty.to_str().unwrap(),
            "--size",
            "1G",
            "--runtime",
            "200ms",
            "--no-tui",
        ],
    );
    assert_usage_error(&out);
    assert_stderr_has(
        &out,
        &format!("no room: {} needs 1 GiB more", empty.display()),
    );
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
    assert_eq!(free_bytes(&mount.0), before);
    // Two new files of one job file that fit one at a time but not together.
    let half = before / 2 + (1 << 20);
    let job = dir.path().join("two.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\nrw=write\nbs=64k\nsize={half}\nruntime=1\n[a]\nfilename={m}/a\n\
             [b]\nfilename={m}/b\n",
            m = mount.0.display()
        ),
    )
    .unwrap();
    let out = diskdash(dir.path(), &["fio", job.to_str().unwrap(), "--no-tui"]);
    assert_usage_error(&out);
    assert_stderr_has(&out, "no room: 2 files on one filesystem");
    assert!(!mount.0.join("a").exists() && !mount.0.join("b").exists());
}

/// The filesystem fills up while a job writes a file it created (another program takes the
/// space after the check): the run fails with ENOSPC, says so, and removes the file it created,
/// so the filesystem is not left full.
#[test]
#[ignore = "needs root"]
fn a_file_created_by_a_run_that_hits_enospc_is_removed() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let (mount, _device) = small_filesystem(dir.path(), 32 << 20);
    let created = mount.0.join("grows");
    let record = dir.path().join("run.json");
    let job = dir.path().join("grow.fio");
    std::fs::write(
        &job,
        format!(
            "[grow]\nfilename={}\nrw=write\nbs=64k\nsize=16M\nrate=4m\nruntime=5\n\
             fallocate=none\n",
            created.display()
        ),
    )
    .unwrap();
    let child = Command::new(BIN)
        .current_dir(dir.path())
        .args(["fio", job.to_str().unwrap(), "--no-tui", "--json"])
        .arg(&record)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the job has started writing, take all the rest of the space.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::fs::metadata(&created).map_or(0, |m| m.len()) == 0 {
        assert!(std::time::Instant::now() < deadline, "the job never wrote");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let hog = mount.0.join("hog");
    let free = free_bytes(&mount.0);
    run(
        "fallocate",
        &["-l", &free.to_string(), hog.to_str().unwrap()],
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    assert_stderr_has(&out, "ENOSPC");
    assert!(!created.exists(), "the created file was left behind");
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(
        text.contains("created by this run, to give the space back"),
        "record lacks the note: {text}"
    );
}

/// A process in a mount namespace of its own (`unshare -m`, as a container has) that mounts
/// `device` at `at` and sleeps; killed (its namespace, and the mount, go with it) on drop.
struct NamespaceMount {
    child: std::process::Child,
}

impl NamespaceMount {
    fn new(device: &Path, at: &Path) -> Self {
        use std::io::BufRead;
        std::fs::create_dir_all(at).unwrap();
        let mut child = Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c"])
            .arg(r#"mount "$1" "$2" && echo mounted && exec sleep 600"#)
            .args(["sh", device.to_str().unwrap(), at.to_str().unwrap()])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("unshare");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "mounted", "the namespace's mount failed");
        Self { child }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for NamespaceMount {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `fsck -n` passes on `device` and its file is still there (mounted in a namespace of this
/// test's own for the look).
fn assert_ext4_intact(device: &Path, dir: &Path) {
    assert_fsck_clean(device);
    let mount = Mount::new(&[device.to_str().unwrap()], &dir.join("look"));
    assert_eq!(std::fs::read(mount.0.join("kept")).unwrap(), KEPT);
}

/// ext4 with a file in it, on a loop device (`lower`), unmounted again.
fn ext4_on_loop(dir: &Path) -> LoopDevice {
    let image = dir.join("ns.img");
    ext4_image(&image, 32 << 20);
    let lower = LoopDevice::attach(&image);
    let mount = Mount::new(&[lower.path().to_str().unwrap()], &dir.join("fill"));
    std::fs::write(mount.0.join("kept"), KEPT).unwrap();
    drop(mount);
    lower
}

/// A filesystem mounted only in another mount namespace (a container's, `unshare -m`) is seen
/// under a loop device over its device: every writer refuses, naming the mount and whose
/// namespace it is in, and the filesystem is left intact.
#[test]
#[ignore = "needs root"]
fn a_mount_in_another_namespace_is_seen_below_a_loop_device() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let lower = ext4_on_loop(dir.path());
    let mnt = dir.path().join("theirs");
    let theirs = NamespaceMount::new(lower.path(), &mnt);
    // Not in this namespace's table: only the walk over every namespace finds it.
    let own = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!own.contains(mnt.to_str().unwrap()));
    let over = LoopDevice::attach(lower.path());
    let chain = format!(
        "it is backed by {}, which is mounted at {} in the mount namespace of pid {} (sleep)",
        lower.path().display(),
        mnt.display(),
        theirs.pid()
    );
    every_writer_refused(dir.path(), over.path(), &chain);
    drop(over);
    drop(theirs);
    assert_ext4_intact(lower.path(), dir.path());
}

/// While a run writes through a loop device, the device below it is held: a mount of it made
/// in another namespace after the run's check fails (EBUSY) instead of landing under the
/// writes; once the run ends, the device mounts again.
#[test]
#[ignore = "needs root"]
fn a_mount_in_another_namespace_during_a_write_run_cannot_be_made() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let lower = ext4_on_loop(dir.path());
    let over = LoopDevice::attach(lower.path());
    let run = Command::new(BIN)
        .current_dir(dir.path())
        .args(["bench", over.path().to_str().unwrap(), "--rw", "write"])
        .args(["--size", "4M", "--allow-destructive", "--runtime", "3s"])
        .args(["--no-tui", "--json", "run.json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The run holds the device from its start; give it time to open its target.
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let mnt = dir.path().join("late");
    std::fs::create_dir_all(&mnt).unwrap();
    let late = Command::new("unshare")
        .args(["-m", "--propagation", "private", "mount"])
        .arg(lower.path())
        .arg(&mnt)
        .output()
        .unwrap();
    let out = run.wait_with_output().unwrap();
    assert_success(&out);
    assert!(
        !late.status.success(),
        "a mount of {} was made while the run wrote through it",
        lower.path().display()
    );
    let said = stderr(&late);
    assert!(
        said.contains("busy") || said.contains("Busy"),
        "the mount did not fail as busy: {said}"
    );
    // Held only while the run lasts.
    let after = Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c"])
        .arg(r#"mount "$1" "$2" && umount "$2""#)
        .args(["sh", lower.path().to_str().unwrap(), mnt.to_str().unwrap()])
        .output()
        .unwrap();
    // The run overwrote the start of the filesystem as allowed: mounting may fail for that
    // reason, never for being busy.
    assert!(!stderr(&after).contains("busy"), "{}", stderr(&after));
}
