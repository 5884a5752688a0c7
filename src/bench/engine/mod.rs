//! The engine contract, shaped like fio's: `prep` queues an I/O in a slot, `submit` sends the
//! queued ones, `reap` sends what is still queued and takes up to `max` completions, waiting
//! only when none is ready. Engines never time or count anything; the worker does (a clock
//! read before and after each submit call, one per reap).

pub mod libaio;
pub mod meta;
pub mod null;
pub mod psync;
pub mod uring;

use std::io;
use std::os::fd::RawFd;

use crate::bench::kinds::Direction;

/// One I/O to issue. `buf` points into the worker's aligned buffers (slot `slot`).
#[derive(Debug, Clone, Copy)]
pub struct Io {
    pub slot: u32,
    pub direction: Direction,
    pub offset_bytes: u64,
    pub len_bytes: u32,
    pub buf: *mut u8,
    /// The I/O's own priority (fio's cmdprio: class << 13 | level); 0: the thread's applies.
    /// io_uring sends it in the sqe, libaio with `IOCB_FLAG_IOPRIO`; psync has no place for it.
    pub ioprio: u16,
    /// The file of a worker with several (fio's `nrfiles`); `-1`: the engine's own, the
    /// worker's only file.
    pub fd: RawFd,
}

impl Io {
    /// The descriptor to use: the I/O's file, else `own`.
    #[inline]
    #[must_use]
    pub fn fd_or(&self, own: RawFd) -> RawFd {
        if self.fd < 0 { own } else { self.fd }
    }
}

/// One completion: the slot and the syscall-style result (bytes done, or `-errno`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub result: i32,
}

/// The engine contract (see the module doc).
pub trait Engine {
    /// Whether `submit` only sends the I/Os, to complete later (io_uring, libaio, null): the
    /// worker then reads the clock when the submit call returns, which splits each I/O's
    /// latency into fio's slat (the submit call) and clat (from there to the reap). A
    /// synchronous engine (psync) does the I/O in its reap: its whole latency is its clat,
    /// with no slat, as fio's.
    #[inline(always)]
    fn times_submit(&self) -> bool {
        false
    }
    /// Queues `io`; nothing reaches the kernel until `submit`.
    fn prep(&mut self, io: &Io);
    /// Sends queued I/Os without waiting.
    fn submit(&mut self) -> io::Result<()>;
    /// Sends queued I/Os; appends up to `max` completions, waiting for one if none is ready.
    fn reap(&mut self, out: &mut Vec<Completion>, max: usize) -> io::Result<()>;
    /// As [`reap`](Engine::reap), but waits for at least `min` completions (fio's
    /// `iodepth_batch_complete_min`; the caller caps it by what is in flight); `min` 0 polls:
    /// it checks for completions without sleeping, again and again, until one is there.
    /// Engines that complete on reap (psync, null) have nothing to wait for: they reap.
    fn reap_min(&mut self, out: &mut Vec<Completion>, min: usize, max: usize) -> io::Result<()> {
        let _ = min;
        self.reap(out, max)
    }
    /// As [`reap`](Engine::reap), but waits at most `wait_ns` for a completion and may return
    /// none (a paced worker wakes when its next I/O is due). Engines that complete on reap
    /// (psync, null) never wait for anything else, so they simply reap.
    fn reap_within(
        &mut self,
        out: &mut Vec<Completion>,
        max: usize,
        wait_ns: u64,
    ) -> io::Result<()> {
        let _ = wait_ns;
        self.reap(out, max)
    }
}

/// How a worker's engine was set up, for the output and the record.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct EngineSetup {
    /// `io_uring`, `libaio`, `psync` or `null`.
    pub engine: &'static str,
    /// io_uring setup flags that were accepted (e.g. `COOP_TASKRUN`).
    pub ring_flags: Vec<&'static str>,
    pub registered_file: bool,
    pub registered_buffers: bool,
    /// READV/WRITEV rather than READ/WRITE (`nonvectored=0`).
    pub vectored: bool,
    /// Why something was dropped or fell back, in words.
    pub notes: Vec<String>,
}

/// Whether an errno means io_uring is not available to this process (sysctl
/// `kernel.io_uring_disabled`, seccomp, an old kernel, or too little locked memory for a
/// ring: see [`memlock_denied`]): the cue to fall back to psync.
#[must_use]
pub fn uring_unavailable(err: &io::Error) -> bool {
    matches!(
        err.raw_os_error(),
        Some(libc::EPERM | libc::ENOSYS | libc::EACCES)
    ) || memlock_denied(err)
}

/// The note that says io_uring was unavailable and psync ran instead (the session's probe and
/// a worker's ring setup say it the same way); for RLIMIT_MEMLOCK, the limit and the fix.
#[must_use]
pub fn fallback_note(err: &io::Error) -> String {
    let errno = errno_name(err.raw_os_error().unwrap_or(0));
    if memlock_denied(err) {
        return format!(
            "io_uring unavailable ({errno}: {}); fell back to psync",
            memlock_hint()
        );
    }
    format!(
        "io_uring unavailable ({errno}: {}); fell back to psync",
        err.kind()
    )
}

/// RLIMIT_MEMLOCK's soft limit in bytes (`ulimit -l`); `None` when unlimited or unreadable.
#[must_use]
pub fn memlock_limit() -> Option<u64> {
    let (soft, _) =
        nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_MEMLOCK).ok()?;
    (soft != nix::sys::resource::RLIM_INFINITY).then_some(soft)
}

/// Whether this process has CAP_IPC_LOCK in its effective set (`CapEff` in
/// /proc/self/status): then the kernel charges nothing to RLIMIT_MEMLOCK.
fn can_lock_any_memory() -> bool {
    const CAP_IPC_LOCK: u32 = 14;
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let hex = status
                .lines()
                .find_map(|l| l.strip_prefix("CapEff:"))?
                .trim()
                .to_string();
            u64::from_str_radix(&hex, 16).ok()
        })
        .is_some_and(|caps| caps & (1 << CAP_IPC_LOCK) != 0)
}

/// Whether an error from io_uring setup or buffer registration is RLIMIT_MEMLOCK's doing:
/// ENOMEM while a limit applies (the kernel charges a ring's memory and registered buffers to
/// it unless the process has CAP_IPC_LOCK).
#[must_use]
pub fn memlock_denied(err: &io::Error) -> bool {
    err.raw_os_error() == Some(libc::ENOMEM) && memlock_limit().is_some() && !can_lock_any_memory()
}

/// `RLIMIT_MEMLOCK (ulimit -l) is 4 KiB, too little for ...; raise it ...`: what limits and
/// how to lift it.
#[must_use]
pub fn memlock_hint() -> String {
    let limit = memlock_limit().map_or_else(|| "unlimited".to_string(), crate::units::format_bytes);
    format!(
        "RLIMIT_MEMLOCK (ulimit -l) is {limit}, too little for io_uring's rings and registered \
         buffers; raise it (ulimit -l 65536, LimitMEMLOCK= in a systemd unit, memlock in \
         /etc/security/limits.conf) or grant CAP_IPC_LOCK"
    )
}

/// Whether an errno asks to simply try again.
#[must_use]
pub fn is_transient(errno: i32) -> bool {
    matches!(errno, libc::EINTR | libc::EAGAIN | libc::EBUSY)
}

/// `ENOSPC`, `EIO`, ... for messages; falls back to the number.
#[must_use]
pub fn errno_name(errno: i32) -> String {
    let name = match errno {
        libc::EIO => "EIO",
        libc::ENOSPC => "ENOSPC",
        libc::EINVAL => "EINVAL",
        libc::EPERM => "EPERM",
        libc::EACCES => "EACCES",
        libc::EBADF => "EBADF",
        libc::EFAULT => "EFAULT",
        libc::EFBIG => "EFBIG",
        libc::EDQUOT => "EDQUOT",
        libc::EROFS => "EROFS",
        libc::ENXIO => "ENXIO",
        libc::ENODEV => "ENODEV",
        libc::ENOMEM => "ENOMEM",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ETIMEDOUT => "ETIMEDOUT",
        libc::ENOSYS => "ENOSYS",
        libc::EBUSY => "EBUSY",
        libc::EAGAIN => "EAGAIN",
        libc::EINTR => "EINTR",
        _ => return format!("errno {errno}"),
    };
    name.to_string()
}
