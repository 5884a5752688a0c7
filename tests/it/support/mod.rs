//! Shared by the integration tests (`mod support;`): the binary, the root check, process output,
//! JSON, loop devices and mounts; `record` validates run records, `tmux` drives the dashboard
//! in a real terminal, `sshd` runs an OpenSSH server for fleet runs. Test binaries use different parts of it.
#![allow(dead_code)]

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

pub mod block_trace;
pub mod compare;
pub mod group;
pub mod inproc;
pub mod limited;
pub mod record;
pub mod schema;
pub mod seccomp;
pub mod sshd;
pub mod tmux;

pub const BIN: &str = env!("CARGO_BIN_EXE_diskdash");

/// The variable that shortens a run's idle baseline (`session::window::IDLE_WINDOW_ENV`).
pub const IDLE_WINDOW_ENV: &str = "DISKDASH_IDLE_WINDOW_MS";

/// How many tests a test binary runs at once when neither `RUST_TEST_THREADS` nor
/// `--test-threads` says.
#[derive(Clone, Copy)]
pub enum TestsAtOnce {
    /// Two per CPU (at most [`MAX_TEST_THREADS`]): `it`, whose tests mostly wait on short
    /// runs, timers and child processes, not on a CPU.
    TwoPerCpu,
    /// One: `alone`, whose tests need the machine to themselves (an achieved rate, a
    /// starved thread, every AIO event of the system, a machine-wide sysctl).
    One,
}

/// The most tests `it` runs at once by default: the suite shares loop devices, tracefs and
/// the page cache between its tests, and was measured only up to 4 at once.
pub const MAX_TEST_THREADS: usize = 8;

/// A test binary's defaults, set before `main` (from the binary's `.init_array`; see
/// `tests/it/main.rs`).
///
/// Every run the binary makes, spawned (and in tmux) or in this process, skips the disks'
/// 250 ms idle baseline: most tests check something else, and the suite makes hundreds of runs
/// on a disk. The tests of the baseline remove the variable for their run
/// (`sweep::a_sweep_on_a_disk_a_background_fio_writes_to_is_marked_shared`); a value already
/// in the environment is kept (`DISKDASH_IDLE_WINDOW_MS=250 cargo test` runs the suite with
/// the baseline).
///
/// And libtest runs `at_once` tests together where it would run one per CPU:
/// `RUST_TEST_THREADS` or `--test-threads` still decide where given. Cargo runs the test
/// binaries one after another, so `alone`'s tests (one at a time) never meet `it`'s (two per
/// CPU; on 2 CPUs its tests took 298 s at 4 threads against 436 s at 2).
///
/// # Safety
///
/// Call it only from `.init_array`, before `main`, while the process has one thread: nothing
/// may read or write the environment concurrently.
pub unsafe fn set_test_binary_defaults(at_once: TestsAtOnce) {
    if std::env::var_os(IDLE_WINDOW_ENV).is_none() {
        // SAFETY: the caller runs this before main with one thread (this fn's contract).
        unsafe { std::env::set_var(IDLE_WINDOW_ENV, "0") };
    }
    if std::env::var_os("RUST_TEST_THREADS").is_none() {
        let threads = match at_once {
            TestsAtOnce::TwoPerCpu => (std::thread::available_parallelism().map_or(1, usize::from)
                * 2)
            .clamp(2, MAX_TEST_THREADS),
            TestsAtOnce::One => 1,
        };
        // SAFETY: as above, before main with one thread.
        unsafe { std::env::set_var("RUST_TEST_THREADS", threads.to_string()) };
    }
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// `it` runs several tests at once (two per CPU, or `RUST_TEST_THREADS`), most of them
/// waiting on short runs. A test whose check is a count of intervals, a deadline with room
/// or the page cache's state takes this turn first, so no two such tests run together; the
/// others go on beside them. A test that needs the machine to itself (an achieved rate, a
/// starved thread, a resource of the whole system) goes in the `alone` binary instead.
pub fn timing_turn() -> std::sync::MutexGuard<'static, ()> {
    static TIMING: Mutex<()> = Mutex::new(());
    TIMING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The tests that make tracefs instances take turns: a traced start removes every dead run's
/// instance, so one test's killed run could be cleaned up by another's start before it looks.
pub fn tracefs_turn() -> std::sync::MutexGuard<'static, ()> {
    static TRACEFS: Mutex<()> = Mutex::new(());
    TRACEFS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Held by a test that checks what the page cache holds (`page_cache_watch`): the others that
/// drop it machine-wide (`mark`, as root, under KDiskMark's rules) wait for it to end.
static PAGE_CACHE: std::sync::RwLock<()> = std::sync::RwLock::new(());

thread_local! {
    /// Whether this thread holds `PAGE_CACHE` exclusively (its own drops go ahead).
    static WATCHING_THE_CACHE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A test that checks the page cache's state: no other test drops the cache until it ends.
pub struct PageCacheWatch(#[allow(dead_code)] std::sync::RwLockWriteGuard<'static, ()>);

impl Drop for PageCacheWatch {
    fn drop(&mut self) {
        WATCHING_THE_CACHE.with(|w| w.set(false));
    }
}

pub fn page_cache_watch() -> PageCacheWatch {
    let guard = PAGE_CACHE
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    WATCHING_THE_CACHE.with(|w| w.set(true));
    PageCacheWatch(guard)
}

/// Taken around a command that may drop the page cache machine-wide: waits while another test
/// watches the cache (none when this thread is the watcher).
pub fn page_cache_drop_turn() -> Option<std::sync::RwLockReadGuard<'static, ()>> {
    if WATCHING_THE_CACHE.with(std::cell::Cell::get) {
        return None;
    }
    Some(
        PAGE_CACHE
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner()),
    )
}

/// Fails a root-only test (marked `#[ignore = "needs root"]`) that was asked to run without
/// root, saying so, instead of failing somewhere in losetup.
pub fn require_root() {
    assert!(
        is_root(),
        "this test needs root (loop devices, mounts, namespaces): run it as root, or leave out \
         --include-ignored"
    );
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Panics with the status and stderr unless `out` succeeded.
pub fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "status {:?}, stderr: {}",
        out.status,
        stderr(out)
    );
}

/// Panics with the whole stderr unless it contains `want`.
pub fn assert_stderr_has(out: &Output, want: &str) {
    let err = stderr(out);
    assert!(err.contains(want), "stderr lacks {want:?}: {err}");
}

/// Panics with the whole stdout unless it contains `want`.
pub fn assert_stdout_has(out: &Output, want: &str) {
    let text = stdout(out);
    assert!(text.contains(want), "stdout lacks {want:?}: {text}");
}

/// Panics with the status and stderr unless `out` is a usage error (exit 2).
pub fn assert_usage_error(out: &Output) {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(out));
}

/// The exit code of a usage error of `diskdash ARGS`: 1 for `diskdash iostat`, as sysstat's
/// iostat exits, 2 for the rest.
pub fn usage_exit_code(args: &[&str]) -> u8 {
    if args.first() == Some(&"iostat") {
        1
    } else {
        2
    }
}

/// Panics unless `out` succeeded without a word on stderr.
pub fn assert_quiet_success(out: &Output) {
    assert_success(out);
    assert!(out.stderr.is_empty(), "stderr: {}", stderr(out));
}

/// Runs `cmd ARGS`, asserts it succeeded, returns its trimmed stdout.
pub fn run(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(
        out.status.success(),
        "{cmd} {args:?} failed: {}",
        stderr(&out)
    );
    stdout(&out).trim().to_string()
}

/// `diskdash fio ARGS` in `dir`, headless.
pub fn fio(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("fio")
        .args(args)
        .arg("--no-tui")
        .current_dir(dir)
        .output()
        .expect("diskdash runs")
}

pub fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// One JSON value per line.
pub fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A file `name` of `bytes` of data (no zeros) in `dir`; its path.
pub fn data_file(dir: &Path, name: &str, bytes: usize) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, pattern(bytes, 1)).unwrap();
    path
}

/// `bytes` bytes, byte `i` being `i % 251 + add`: the tests' data files and loop images (no
/// two neighbouring 4 KiB blocks alike, none all zeros when `add` is 1). Built from one
/// 251-byte period copied over: the debug build's byte-by-byte loop took 1.5 s for 64 MiB
/// on a loaded 2-CPU VM.
pub fn pattern(bytes: usize, add: u8) -> Vec<u8> {
    let period: Vec<u8> = (0..251u8).map(|i| i + add).collect();
    let mut data = Vec::with_capacity(bytes);
    while data.len() < bytes {
        let take = (bytes - data.len()).min(period.len());
        data.extend_from_slice(&period[..take]);
    }
    data
}

/// A sparse file of `bytes` (an image for a loop device).
pub fn sparse_file(path: &Path, bytes: u64) {
    std::fs::File::create(path)
        .and_then(|f| f.set_len(bytes))
        .unwrap_or_else(|e| panic!("creating {}: {e}", path.display()));
}

/// A sparse file of `bytes` with an empty ext4 filesystem in it.
pub fn ext4_image(path: &Path, bytes: u64) {
    sparse_file(path, bytes);
    // Inode tables and the journal written now: no ext4lazyinit thread writes to the image in
    // the background after mount (tests compare images byte for byte).
    run(
        "mkfs.ext4",
        &[
            "-q",
            "-F",
            "-E",
            "lazy_itable_init=0,lazy_journal_init=0",
            path.to_str().unwrap(),
        ],
    );
}

/// A loop device with nothing attached that exists only for this test (LOOP_CTL_ADD of a
/// number far above what `losetup -f` hands out; LOOP_CTL_REMOVE on drop): no other test can
/// attach something to it meanwhile, as it could to the first free device.
pub struct EmptyLoop(PathBuf, u32);

impl EmptyLoop {
    pub fn new() -> Self {
        let base = 200_000 + (std::process::id() % 100_000) * 4;
        for number in base..base + 64 {
            match loop_control(LOOP_CTL_ADD, number) {
                Ok(()) => return Self(PathBuf::from(format!("/dev/loop{number}")), number),
                Err(e) if e.raw_os_error() == Some(libc::EEXIST) => {}
                Err(e) => panic!("LOOP_CTL_ADD {number}: {e}"),
            }
        }
        panic!("no free loop device number from {base} on");
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for EmptyLoop {
    fn drop(&mut self) {
        let _ = loop_control(LOOP_CTL_REMOVE, self.1);
    }
}

const LOOP_CTL_ADD: libc::c_ulong = 0x4C80;
const LOOP_CTL_REMOVE: libc::c_ulong = 0x4C81;

/// `ioctl(/dev/loop-control, request, number)`; the kernel's error when it fails.
fn loop_control(request: libc::c_ulong, number: u32) -> std::io::Result<()> {
    let control = std::fs::File::open("/dev/loop-control")?;
    // SAFETY: ioctl on an open /dev/loop-control fd with an integer argument; no memory is
    // passed to the kernel.
    let rc = unsafe { libc::ioctl(control.as_raw_fd(), request, libc::c_ulong::from(number)) };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// A loop device over a file, detached on drop.
///
/// Loop devices are shared by every test (and every developer) on the machine, so the drop
/// only detaches the device while it is still bound to this test's file, and is quiet when the
/// test already detached or removed it (`losetup -d` on a removed device would print "failed to
/// use device: No such device", or detach a device another test took since).
pub struct LoopDevice {
    path: PathBuf,
    backing: PathBuf,
    /// Made with LOOP_CTL_ADD by this test: removed again on drop.
    owned_number: bool,
}

impl LoopDevice {
    /// `losetup -f --show FILE`: the first free device.
    pub fn attach(file: &Path) -> Self {
        Self::losetup(file, &["-f", "--show"])
    }

    /// Attached with partition scanning (`losetup -P`): partitions appear as `<dev>p1`, ...
    pub fn attach_partitioned(file: &Path) -> Self {
        Self::losetup(file, &["-f", "--show", "-P"])
    }

    fn losetup(file: &Path, args: &[&str]) -> Self {
        let mut all = args.to_vec();
        all.push(file.to_str().unwrap());
        Self {
            path: PathBuf::from(run("losetup", &all)),
            backing: file.canonicalize().unwrap(),
            owned_number: false,
        }
    }

    /// A loop device that exists only for this test: a number far above the ones
    /// `losetup -f` hands out, created (LOOP_CTL_ADD) just before attaching and removed
    /// (LOOP_CTL_REMOVE) on drop, so no other test's I/O can show under its name before or
    /// after. The number is derived from the pid and probed upwards until one is free; this
    /// process never hands out a number twice, so a test that still watches a device it
    /// removed (an iostat running on) never sees another test's device come back under its
    /// name.
    pub fn attach_unique(file: &Path) -> Self {
        static TAKEN: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let base = 100_000 + (std::process::id() % 100_000) * 4;
        loop {
            let offset = TAKEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            assert!(offset < 4096, "no free loop device number from {base} on");
            let number = base + offset;
            match loop_control(LOOP_CTL_ADD, number) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(libc::EEXIST) => continue,
                Err(e) => panic!("LOOP_CTL_ADD {number}: {e}"),
            }
            let path = PathBuf::from(format!("/dev/loop{number}"));
            let out = Command::new("losetup")
                .arg(&path)
                .arg(file)
                .output()
                .expect("losetup");
            if out.status.success() {
                return Self {
                    path,
                    backing: file.canonicalize().unwrap(),
                    owned_number: true,
                };
            }
            // Taken by someone else between adding and attaching: leave it to them.
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `loopN`, as /proc/diskstats names it.
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }

    /// Whether the device still exists and is bound to this test's file.
    fn bound_to_us(&self) -> bool {
        let backing = Path::new("/sys/block")
            .join(self.name())
            .join("loop/backing_file");
        std::fs::read_to_string(backing)
            .is_ok_and(|b| Path::new(b.trim_end_matches('\n')) == self.backing)
    }

    /// Detaches the device; false if it was not attached to this test's file any more or
    /// `losetup -d` failed (its error is printed then).
    pub fn detach(&self) -> bool {
        if !self.bound_to_us() {
            return false;
        }
        let out = Command::new("losetup")
            .arg("-d")
            .arg(&self.path)
            .stdin(Stdio::null())
            .output();
        match out {
            Ok(out) if out.status.success() => true,
            Ok(out) => {
                eprintln!(
                    "losetup -d {}: {}",
                    self.path.display(),
                    stderr(&out).trim()
                );
                false
            }
            Err(e) => {
                eprintln!("losetup -d {}: {e}", self.path.display());
                false
            }
        }
    }

    /// Detaches the device and removes it (LOOP_CTL_REMOVE), so it leaves /proc/diskstats;
    /// false when it could not be removed (another test took the number meanwhile).
    pub fn detach_and_remove(&self) -> bool {
        self.detach();
        let Some(number) = self
            .name()
            .strip_prefix("loop")
            .and_then(|n| n.parse::<u32>().ok())
        else {
            return false;
        };
        // A detach while udev (or anyone) still has the device open completes at its last
        // close; until then removing it fails with EBUSY.
        for _ in 0..50 {
            match loop_control(LOOP_CTL_REMOVE, number) {
                Ok(()) => return true,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) && !self.bound_to_other() => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(_) => return false,
            }
        }
        false
    }

    /// Whether the device is bound to some other file (another test attached it).
    fn bound_to_other(&self) -> bool {
        let backing = Path::new("/sys/block")
            .join(self.name())
            .join("loop/backing_file");
        std::fs::read_to_string(backing)
            .is_ok_and(|b| Path::new(b.trim_end_matches('\n')) != self.backing)
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        if self.owned_number {
            self.detach_and_remove();
        } else {
            self.detach();
        }
    }
}

/// A mount, unmounted (lazily, so a failing test cannot leave it busy) on drop; declare it
/// after the loop device under it, so it is dropped first.
pub struct Mount(pub PathBuf);

impl Mount {
    pub fn new(args: &[&str], at: &Path) -> Self {
        std::fs::create_dir_all(at).unwrap();
        let mut all: Vec<&str> = args.to_vec();
        all.push(at.to_str().unwrap());
        run("mount", &all);
        Self(at.to_path_buf())
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Shuts the ext4 mounted at `mnt` down (EXT4_IOC_SHUTDOWN without flushing the log, as
/// `xfs_io -c shutdown` does): every later write, and unlink, fails with EIO.
pub fn shutdown_ext4(mnt: &Path) {
    const EXT4_IOC_SHUTDOWN: libc::c_ulong = 0x8004_587d; // _IOR('X', 125, __u32)
    const EXT4_GOING_FLAGS_NOLOGFLUSH: u32 = 2;
    let mount_dir = std::fs::File::open(mnt).unwrap();
    let flags = EXT4_GOING_FLAGS_NOLOGFLUSH;
    // SAFETY: the ioctl reads one u32 through a pointer to a live u32.
    let rc = unsafe { libc::ioctl(mount_dir.as_raw_fd(), EXT4_IOC_SHUTDOWN, &raw const flags) };
    assert_eq!(rc, 0, "shutdown: {}", std::io::Error::last_os_error());
}

/// The peak resident memory of the running child `pid` since it became [`BIN`] (`VmHWM` of the
/// address space `exec` gave it), in bytes; `None` before its `exec` or after its exit. Poll it
/// while the child runs: a child's `ru_maxrss` also counts the pages it shared with the test
/// process between fork and exec, which in a busy test binary are hundreds of MB.
pub fn peak_rss_since_exec(pid: libc::pid_t) -> Option<u64> {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    if exe != std::fs::canonicalize(BIN).ok()? {
        return None;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// A child whose stdout and stderr are read while it runs, each by a thread of its own: a
/// child that writes more than a pipe holds (64 KiB; an iostat report of a machine with a
/// thousand devices) never blocks on a test that would read only after it exits.
pub struct Drained {
    child: std::process::Child,
    out: Arc<Mutex<Vec<u8>>>,
    readers: [std::thread::JoinHandle<()>; 2],
    err: Arc<Mutex<Vec<u8>>>,
}

impl Drained {
    /// Spawns `command` with stdout and stderr piped (stdin as `command` sets it).
    pub fn spawn(mut command: Command) -> Self {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
        let read_all = |mut from: Box<dyn std::io::Read + Send>, into: Arc<Mutex<Vec<u8>>>| {
            std::thread::spawn(move || {
                let mut chunk = [0u8; 64 << 10];
                while let Ok(n @ 1..) = from.read(&mut chunk) {
                    into.lock().unwrap().extend_from_slice(&chunk[..n]);
                }
            })
        };
        let (out, err) = (Arc::default(), Arc::default());
        let readers = [
            read_all(Box::new(child.stdout.take().unwrap()), Arc::clone(&out)),
            read_all(Box::new(child.stderr.take().unwrap()), Arc::clone(&err)),
        ];
        Self {
            child,
            out,
            readers,
            err,
        }
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Waits (at most `timeout`, else panics) until what it wrote on stdout so far satisfies
    /// `ready`.
    pub fn wait_for_stdout(&self, what: &str, timeout: Duration, ready: impl Fn(&str) -> bool) {
        let start = Instant::now();
        loop {
            if ready(&String::from_utf8_lossy(&self.out.lock().unwrap())) {
                return;
            }
            assert!(start.elapsed() < timeout, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the child and its two readers: what it wrote, as `Command::output` gives it.
    pub fn wait(mut self) -> Output {
        let status = self.child.wait().unwrap();
        for reader in self.readers {
            reader.join().unwrap();
        }
        let take = |bytes: &Mutex<Vec<u8>>| std::mem::take(&mut *bytes.lock().unwrap());
        Output {
            status,
            stdout: take(&self.out),
            stderr: take(&self.err),
        }
    }
}

/// `--trust-*` limits that mark nothing: for tests of what a sweep finds (best rows, peaks,
/// advice) on points that are short, or on a disk other tests share; the marks have tests of
/// their own (`sweep::a_4_io_point_is_short_and_never_the_best`).
pub const TRUST_NOTHING: [&str; 8] = [
    "--trust-min-time",
    "0",
    "--trust-min-ios",
    "0",
    "--trust-shared-pct",
    "1e12",
    "--trust-spread-pct",
    "1e12",
];
