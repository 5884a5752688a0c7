//! The data-safety rules on targets and outputs, each tried with the real mechanism that broke
//! them: a symlink flipped in a thread while `bench` opens it, records aimed at the target, at
//! devices and at planted links, kernel files in a private namespace, stacked loop devices with
//! a mounted filesystem on top, and a scratch file whose unlink fails. Root-only tests (loop
//! devices, mounts, namespaces) skip themselves with a message when not root; CI runs as root.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::support::record::*;
use crate::support::*;

/// `bytes` of data that no fill or record looks like.
fn data_file(path: &Path, bytes: usize) -> Vec<u8> {
    let data: Vec<u8> = (0..bytes).map(|i| (i * 7 % 253) as u8 + 1).collect();
    std::fs::write(path, &data).unwrap();
    data
}

fn assert_unchanged(path: &Path, before: &[u8]) {
    let after = std::fs::read(path).unwrap();
    assert!(after == before, "{} was changed", path.display());
}

/// Flips `link` between `a` and `b` (a new link renamed over it, so it always exists) until
/// stopped; counts the flips.
struct Flipper {
    stop: Arc<AtomicBool>,
    flips: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Flipper {
    fn start(link: &Path, a: &Path, b: &Path, deadline: Duration) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flips = Arc::new(AtomicU64::new(0));
        let (link, a, b) = (link.to_path_buf(), a.to_path_buf(), b.to_path_buf());
        let tmp = link.with_extension("next");
        let thread = {
            let (stop, flips) = (stop.clone(), flips.clone());
            std::thread::spawn(move || {
                let end = Instant::now() + deadline;
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) && Instant::now() < end {
                    let to = if n % 2 == 0 { &a } else { &b };
                    let _ = std::fs::remove_file(&tmp);
                    std::os::unix::fs::symlink(to, &tmp).unwrap();
                    std::fs::rename(&tmp, &link).unwrap();
                    n += 1;
                    flips.store(n, Ordering::Relaxed);
                }
            })
        };
        Self {
            stop,
            flips,
            thread: Some(thread),
        }
    }

    fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap();
        self.flips.load(Ordering::Relaxed)
    }
}

/// Runs the read job of the report on `flip` again and again while it flips between an empty
/// file (which a read job may fill) and `victim`; every run must leave `victim` as it was.
/// A few runs here, each opening the link while it flips (hundreds of flips in all); the
/// long race, hundreds of runs, is `benches/symlink_race.sh`.
fn race_read_jobs_against(dir: &Path, victim: &Path, check: &Path, before: &[u8]) {
    const RUNS: u32 = 8;
    const FLIPS: u64 = 200;
    let empty = dir.join("empty");
    let flip = dir.join("flip");
    std::fs::write(&empty, b"").unwrap();
    std::os::unix::fs::symlink(&empty, &flip).unwrap();
    let flipper = Flipper::start(&flip, &empty, victim, Duration::from_secs(120));
    let mut runs = 0;
    while runs < RUNS || flipper.flips.load(Ordering::Relaxed) < FLIPS {
        // Empty again: the object a read job may write to must be the one it checked.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&empty)
            .and_then(|f| f.set_len(0))
            .unwrap();
        let out = bench(
            dir,
            &args(
                &flip,
                "--rw randread --ioengine psync --size 1M --runtime 100ms --no-tui",
            ),
        );
        assert_unchanged(check, before);
        let code = out.status.code();
        assert!(
            matches!(code, Some(0 | 2)),
            "run {runs}: {code:?} {}",
            stderr(&out)
        );
        runs += 1;
        assert!(runs < 20 * RUNS, "the link flipped too rarely to race");
    }
    let flips = flipper.finish();
    assert!(flips >= FLIPS, "only {flips} flips in {runs} runs");
    assert_unchanged(check, before);
}

#[test]
fn a_flipped_symlink_never_makes_a_read_job_write_to_a_data_file() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.dat");
    let before = data_file(&victim, 8 << 20);
    race_read_jobs_against(dir.path(), &victim, &victim, &before);
}

#[test]
#[ignore = "needs root"]
fn a_flipped_symlink_never_makes_a_read_job_write_to_a_raw_device() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    let before = data_file(&image, 8 << 20);
    let dev = LoopDevice::attach(&image);
    race_read_jobs_against(dir.path(), dev.path(), &image, &before);
}

/// `sh -c 'SETUP; exec diskdash bench ARGS'` in `dir`: SETUP sees the pid diskdash will have
/// as `$$`, so it can plant the names diskdash will choose.
fn bench_after(dir: &Path, setup: &str, args: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("{setup}; exec \"$0\" bench {args}"))
        .arg(BIN)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn a_planted_temporary_record_name_does_not_redirect_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    let before = data_file(&victim, 1 << 20);
    // Both the old name (.r.json.tmp-PID) and the first ones of today's (-N suffix).
    let plant = "for s in '' -0 -1 -2 -3; do ln -s victim .r.json.tmp-$$$s; done";
    let out = bench_after(
        dir.path(),
        plant,
        "--ioengine null --size 16M --runtime 100ms --no-tui --json r.json",
    );
    assert_success(&out);
    assert_unchanged(&victim, &before);
    assert_eq!(record_in(dir.path())["status"], "completed");
}

#[test]
fn a_planted_scratch_name_is_refused_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    let before = data_file(&victim, 1 << 20);
    let out = bench_after(
        dir.path(),
        "ln -s victim .diskdash-scratch-$$-0",
        "--rw randwrite --size 1M --runtime 100ms --no-tui",
    );
    assert_usage_error(&out);
    assert_stderr_has(&out, "is in the way");
    assert_stderr_has(&out, "a symbolic link (to victim)");
    assert_unchanged(&victim, &before);
}

/// `bench TARGET OPTS` must be a one-line usage error containing `want`, leaving `keep` as it
/// was.
fn refused(dir: &Path, target: &Path, opts: &str, want: &str, keep: &Path) {
    let before = std::fs::read(keep).unwrap();
    let out = bench(dir, &args(target, opts));
    assert_usage_error(&out);
    assert_stderr_has(&out, want);
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert_unchanged(keep, &before);
}

#[test]
fn records_never_replace_the_target_or_a_foreign_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.img");
    data_file(&data, 8 << 20);
    let read = "--rw randread --runtime 100ms --no-tui";
    for flag in ["--jsonl", "--json"] {
        refused(
            dir.path(),
            &data,
            &format!("{read} {flag} data.img"),
            &format!("{flag} data.img is the benchmark's target"),
            &data,
        );
    }
    let notes = dir.path().join("notes.txt");
    data_file(&notes, 100);
    let scratch = dir.path();
    refused(
        dir.path(),
        scratch,
        "--ioengine null --size 16M --runtime 100ms --no-tui --json notes.txt",
        "--json notes.txt exists and is not a diskdash record (100 bytes); choose another \
         name, or pass --force to replace it",
        &notes,
    );
    std::os::unix::fs::symlink(&notes, dir.path().join("link.json")).unwrap();
    refused(
        dir.path(),
        scratch,
        "--ioengine null --size 16M --runtime 100ms --no-tui --force --jsonl link.json",
        "--jsonl link.json is a symbolic link",
        &notes,
    );
    // Our own record is replaced run after run; --force replaces anything else.
    let null = "--ioengine null --size 16M --runtime 100ms --no-tui";
    bench_ok(dir.path(), &opts(null));
    bench_ok(dir.path(), &opts(null));
    let forced = bench(
        dir.path(),
        &opts(&format!("{null} --force --jsonl notes.txt")),
    );
    assert_success(&forced);
    let lines = json_lines(&std::fs::read_to_string(&notes).unwrap());
    assert!(!lines.is_empty());
}

#[test]
fn records_go_to_stdout_with_a_dash() {
    let dir = tempfile::tempdir().unwrap();
    let out = bench(
        dir.path(),
        &opts("--ioengine null --size 16M --runtime 300ms --interval 100ms --json -"),
    );
    assert_success(&out);
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_valid_record(&record);
    assert_stderr_has(&out, "diskdash bench");
    let out = bench(
        dir.path(),
        &opts("--ioengine null --size 16M --runtime 300ms --interval 100ms --jsonl -"),
    );
    assert_success(&out);
    let lines = json_lines(&stdout(&out));
    assert!(lines.len() >= 2, "{lines:?}");
    for line in &lines {
        assert_valid_interval(line);
    }
    assert_eq!(leftovers(dir.path(), &[]), Vec::<PathBuf>::new());
}

#[test]
#[ignore = "needs root"]
fn records_never_go_to_a_device() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    data_file(&image, 4 << 20);
    let dev = LoopDevice::attach(&image);
    for flag in ["--jsonl", "--json"] {
        refused(
            dir.path(),
            dir.path(),
            &format!(
                "--ioengine null --size 16M --runtime 100ms --no-tui --force {flag} {}",
                dev.path().display()
            ),
            "is a block device; records go to regular files",
            &image,
        );
    }
}

#[test]
fn kernel_interface_files_are_not_targets() {
    let dir = tempfile::tempdir().unwrap();
    for (target, fs) in [
        ("/sys/kernel/mm/transparent_hugepage/enabled", "sysfs"),
        ("/proc/self/comm", "procfs"),
        ("/proc/sys/kernel", "procfs"),
    ] {
        let out = bench(
            dir.path(),
            &args(
                Path::new(target),
                "--buffered --rw randread --size 1M --no-tui",
            ),
        );
        assert_usage_error(&out);
        assert_stderr_has(
            &out,
            &format!("is on {fs}, a kernel interface, not storage"),
        );
    }
}

/// The report's case: an empty-looking /proc file opened for writing. In a private UTS
/// namespace, so that a failure changes nothing outside this test.
#[test]
#[ignore = "needs root"]
fn the_domain_name_is_not_a_target() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("unshare")
        .args(["--uts", "sh", "-c"])
        .arg(
            "echo safety-test > /proc/sys/kernel/domainname; \
             \"$0\" bench /proc/sys/kernel/domainname --buffered --rw randread --size 1M \
             --runtime 100ms --no-tui; echo rc=$?; cat /proc/sys/kernel/domainname",
        )
        .arg(BIN)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(text.contains("rc=2"), "{text} {}", stderr(&out));
    assert!(text.ends_with("safety-test\n"), "{text:?}");
    assert_stderr_has(&out, "is on procfs, a kernel interface, not storage");
}

/// loop5-like device over an image, a second loop device over it, ext4 on the second, mounted.
struct Stacked {
    mount: Mount,
    upper: LoopDevice,
    lower: LoopDevice,
    image: PathBuf,
}

impl Stacked {
    fn new(dir: &Path) -> Self {
        let image = dir.join("stack.img");
        ext4_image(&image, 32 << 20);
        let lower = LoopDevice::attach(&image);
        let upper = LoopDevice::attach(lower.path());
        let mount = Mount::new(&[upper.path().to_str().unwrap()], &dir.join("mnt"));
        Self {
            mount,
            upper,
            lower,
            image,
        }
    }
}

#[test]
#[ignore = "needs root"]
fn a_device_under_a_mounted_stack_is_refused_naming_the_chain() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let stack = Stacked::new(dir.path());
    std::fs::write(stack.mount.0.join("kept"), b"still here").unwrap();
    run("sync", &[]);
    let chain = format!(
        "it backs {}, mounted at {}",
        stack.upper.path().display(),
        stack.mount.0.display()
    );
    refused(
        dir.path(),
        stack.lower.path(),
        "--rw randwrite --allow-destructive --size 4M --runtime 100ms --no-tui",
        &format!(
            "refusing to write to {}: {chain}",
            stack.lower.path().display()
        ),
        &stack.image,
    );
    // The backing file of the lower device: one more link in the chain.
    refused(
        dir.path(),
        &stack.image,
        "--rw randwrite --allow-destructive --size 4M --runtime 100ms --no-tui",
        &format!(
            "it backs {}, which backs {}, mounted at {}",
            stack.lower.path().display(),
            stack.upper.path().display(),
            stack.mount.0.display()
        ),
        &stack.image,
    );
    assert_eq!(
        std::fs::read(stack.mount.0.join("kept")).unwrap(),
        b"still here"
    );
}

/// The scratch file's filesystem is shut down mid-run: the writes fail with EIO and so does
/// the unlink of the scratch file; the record must say it was not removed.
#[test]
#[ignore = "needs root"]
fn a_scratch_file_that_cannot_be_removed_is_reported() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("fs.img");
    ext4_image(&image, 64 << 20);
    let dev = LoopDevice::attach(&image);
    let mnt = dir.path().join("mnt");
    let mount = Mount::new(&[dev.path().to_str().unwrap()], &mnt);
    let run = MeasuringRun::start(
        dir.path(),
        &args(
            &mnt,
            "--rw randwrite --size 16M --runtime 20s --interval 100ms",
        ),
    );
    shutdown_ext4(&mnt);
    let (code, rest) = run.finish();
    assert_eq!(code, Some(1), "{rest:?}");
    let record = record_in(dir.path());
    assert_eq!(record["target"]["scratch_removed"], false);
    let warnings = record["warnings"].to_string();
    assert!(
        warnings.contains("could not remove the scratch file")
            && warnings.contains("Input/output error"),
        "{warnings}"
    );
    drop(mount);
}

/// A second name of a loop device's backing file, and a backing file given as an output with
/// `--force`: both are refused while the loop device is mounted.
#[test]
#[ignore = "needs root"]
fn other_names_of_a_mounted_backing_file_are_refused_as_target_and_output() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("fs.img");
    ext4_image(&image, 32 << 20);
    let dev = LoopDevice::attach(&image);
    let mnt = dir.path().join("mnt");
    let _mount = Mount::new(&[dev.path().to_str().unwrap()], &mnt);
    let second = dir.path().join("second-name.img");
    std::fs::hard_link(&image, &second).unwrap();
    refused(
        dir.path(),
        &second,
        "--rw randwrite --allow-destructive --size 4M --runtime 100ms --no-tui",
        &format!(
            "it backs {}, mounted at {}",
            dev.path().display(),
            mnt.display()
        ),
        &image,
    );
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    for flag in ["--jsonl", "--json"] {
        refused(
            dir.path(),
            &work,
            &format!(
                "--ioengine null --size 16M --runtime 100ms --no-tui --force {flag} {}",
                second.display()
            ),
            "has 2 names (hard links)",
            &image,
        );
    }
}

/// One file named twice (`r.json` and `./r.json`) cannot be both outputs.
#[test]
fn the_record_and_the_interval_lines_are_never_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = bench(
        dir.path(),
        &opts("--ioengine null --size 16M --runtime 100ms --no-tui --json r.json --jsonl ./r.json"),
    );
    assert_usage_error(&out);
    assert_stderr_has(&out, "--json r.json is the file the other output writes");
}

/// A record that cannot be written is known before the run, not after it.
#[test]
#[ignore = "needs root"]
fn an_unwritable_record_directory_is_refused_before_the_run() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let _bind = Mount::new(&["--bind", "-o", "ro", ro.to_str().unwrap()], &ro);
    run("mount", &["-o", "remount,bind,ro", ro.to_str().unwrap()]);
    let out = bench(
        dir.path(),
        &opts("--ioengine null --size 16M --runtime 5s --no-tui --json ro/r.json"),
    );
    assert_usage_error(&out);
    assert_stderr_has(&out, "--json ro/r.json: cannot write in ro: ");
    assert!(
        !stderr(&out).contains("[ "),
        "the run started: {}",
        stderr(&out)
    );
}

/// A loop device with nothing attached has no capacity: said so, not "lower --bs".
#[test]
#[ignore = "needs root"]
fn a_device_without_capacity_is_named_as_such() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let empty = EmptyLoop::new();
    let out = bench(
        dir.path(),
        &args(empty.path(), "--rw randread --runtime 100ms --no-tui"),
    );
    assert_usage_error(&out);
    assert_stderr_has(
        &out,
        "has no capacity (0 bytes): a loop device with nothing attached",
    );
}
