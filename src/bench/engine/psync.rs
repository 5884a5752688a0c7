//! psync: `pread`/`pwrite` at an offset, one I/O at a time (the worker runs it at iodepth 1,
//! like fio's sync engines). The syscall happens in `submit`, between the worker's two clock
//! reads, so latency is the syscall's duration. Trims are synchronous too: BLKDISCARD on a
//! block device, `fallocate(PUNCH_HOLE | KEEP_SIZE)` on a file (as fio issues them).

use std::io;
use std::os::fd::RawFd;

use super::{Completion, Engine, Io};
use crate::bench::kinds::Direction;

/// The system call a read or a write becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    /// `pread`/`pwrite`.
    ReadWrite,
    /// fio's falloc engine: `fallocate` of the range, `FALLOC_FL_KEEP_SIZE` for a read, mode
    /// 0 for a write (a trim punches a hole, as for the others).
    Falloc,
    /// fio's ftruncate engine: a write truncates the file to its offset; a read is `EINVAL`.
    Ftruncate,
}

pub struct PsyncEngine {
    fd: RawFd,
    calls: Calls,
    /// The fd is a block device: trims are discards, not punched holes.
    block_device: bool,
    queued: Vec<Io>,
    done: Vec<Completion>,
}

impl PsyncEngine {
    #[must_use]
    pub fn new(fd: RawFd, iodepth: u32) -> Self {
        let block_device = nix::sys::stat::fstat(
            // SAFETY: the worker keeps the fd open for the whole run, past this engine.
            unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) },
        )
        .is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFBLK);
        Self {
            fd,
            calls: Calls::ReadWrite,
            block_device,
            queued: Vec::with_capacity(iodepth as usize),
            done: Vec::with_capacity(iodepth as usize),
        }
    }

    /// Reads and writes become `calls`.
    #[must_use]
    pub fn with_calls(mut self, calls: Calls) -> Self {
        self.calls = calls;
        self
    }

    fn run(&self, io: &Io) -> i32 {
        let offset = libc::off_t::try_from(io.offset_bytes).unwrap_or(libc::off_t::MAX);
        let len = io.len_bytes as usize;
        let fd = io.fd_or(self.fd);
        let rc = match (self.calls, io.direction) {
            (_, Direction::Trim) => return trim(fd, self.block_device, io),
            (Calls::ReadWrite, _) => None,
            (Calls::Falloc, direction) => {
                let mode = if direction == Direction::Read {
                    libc::FALLOC_FL_KEEP_SIZE
                } else {
                    0
                };
                // SAFETY: fallocate takes plain integers; the fd is open for the run.
                Some(unsafe { libc::fallocate(fd, mode, offset, libc::off_t::from(io.len_bytes)) })
            }
            (Calls::Ftruncate, Direction::Write) => {
                // SAFETY: ftruncate takes plain integers; the fd is open for the run.
                Some(unsafe { libc::ftruncate(fd, offset) })
            }
            (Calls::Ftruncate, _) => return -libc::EINVAL,
        };
        if let Some(rc) = rc {
            return if rc < 0 {
                -io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO)
            } else {
                // Done: the range counts as moved, as fio counts it.
                i32::try_from(io.len_bytes).unwrap_or(i32::MAX)
            };
        }
        let result = match io.direction {
            // SAFETY: io.buf points to at least len_bytes of the worker's buffers, which outlive
            // this call; the fd is open for the duration of the run.
            Direction::Read => unsafe { libc::pread(fd, io.buf.cast(), len, offset) },
            // SAFETY: as above; the buffer is only read.
            Direction::Write => unsafe { libc::pwrite(fd, io.buf.cast(), len, offset) },
            Direction::Trim => unreachable!("trims are handled above"),
        };
        if result < 0 {
            -io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO)
        } else {
            i32::try_from(result).unwrap_or(i32::MAX)
        }
    }
}

// BLKDISCARD = _IO(0x12, 119): discard the byte range [start, start + length).
nix::ioctl_write_ptr_bad!(blkdiscard, nix::request_code_none!(0x12, 119), [u64; 2]);

/// Discards `io`'s range on `fd` (BLKDISCARD on a block device, a punched hole in a file);
/// the result is its length when done, as a transfer's would be, or `-errno`.
pub(super) fn trim(fd: RawFd, block_device: bool, io: &Io) -> i32 {
    let rc = if block_device {
        let range: [u64; 2] = [io.offset_bytes, u64::from(io.len_bytes)];
        // SAFETY: BLKDISCARD reads two u64 (start, length) through the pointer, which points
        // to a live array of two u64; the fd is open for the run.
        match unsafe { blkdiscard(fd, &raw const range) } {
            Ok(rc) => rc,
            Err(errno) => return -(errno as i32),
        }
    } else {
        let offset = libc::off_t::try_from(io.offset_bytes).unwrap_or(libc::off_t::MAX);
        let len = libc::off_t::from(io.len_bytes);
        // SAFETY: fallocate takes plain integers; the fd is open for the run.
        unsafe {
            libc::fallocate(
                fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset,
                len,
            )
        }
    };
    if rc < 0 {
        -io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    } else {
        i32::try_from(io.len_bytes).unwrap_or(i32::MAX)
    }
}

impl Engine for PsyncEngine {
    #[inline]
    fn prep(&mut self, io: &Io) {
        self.queued.push(*io);
    }

    fn submit(&mut self) -> io::Result<()> {
        for i in 0..self.queued.len() {
            let io = self.queued[i];
            let result = self.run(&io);
            self.done.push(Completion {
                slot: io.slot,
                result,
            });
        }
        self.queued.clear();
        Ok(())
    }

    fn reap(&mut self, out: &mut Vec<Completion>, max: usize) -> io::Result<()> {
        self.submit()?;
        let take = max.min(self.done.len());
        out.extend(self.done.drain(..take));
        Ok(())
    }
}
