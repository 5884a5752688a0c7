//! The engine contract, shaped like fio's: `prep` queues an I/O in a slot, `submit` sends the
//! queued ones, `reap` sends what is still queued and takes up to `max` completions, waiting
//! only when none is ready. Engines never time or count anything; the worker does (one clock
//! read per submit call, one per reap).

pub mod null;
pub mod psync;
pub mod uring;

use std::io;

use crate::bench::workload::Direction;

/// One I/O to issue. `buf` points into the worker's aligned buffers (slot `slot`).
#[derive(Debug, Clone, Copy)]
pub struct Io {
    pub slot: u32,
    pub direction: Direction,
    pub offset_bytes: u64,
    pub len_bytes: u32,
    pub buf: *mut u8,
}

/// One completion: the slot and the syscall-style result (bytes done, or `-errno`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub result: i32,
}

/// The engine contract (see the module doc).
pub trait Engine {
    /// Queues `io`; nothing reaches the kernel until `submit`.
    fn prep(&mut self, io: &Io);
    /// Sends queued I/Os without waiting.
    fn submit(&mut self) -> io::Result<()>;
    /// Sends queued I/Os; appends up to `max` completions, waiting for one if none is ready.
    fn reap(&mut self, out: &mut Vec<Completion>, max: usize) -> io::Result<()>;
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
    /// `io_uring`, `psync` or `null`.
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
/// `kernel.io_uring_disabled`, seccomp, an old kernel): the cue to fall back to psync.
#[must_use]
pub fn uring_unavailable(err: &io::Error) -> bool {
    matches!(
        err.raw_os_error(),
        Some(libc::EPERM | libc::ENOSYS | libc::EACCES)
    )
}

/// The note that says io_uring was unavailable and psync ran instead (the session's probe and
/// a worker's ring setup say it the same way).
#[must_use]
pub fn fallback_note(err: &io::Error) -> String {
    format!(
        "io_uring unavailable ({}: {}); fell back to psync",
        errno_name(err.raw_os_error().unwrap_or(0)),
        err.kind()
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
