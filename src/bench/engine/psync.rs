//! psync: `pread`/`pwrite` at an offset, one I/O at a time (the worker runs it at iodepth 1,
//! like fio's sync engines). The syscall happens in `submit`, between the worker's two clock
//! reads, so latency is the syscall's duration.

use std::io;
use std::os::fd::RawFd;

use super::{Completion, Engine, Io};
use crate::bench::workload::Direction;

pub struct PsyncEngine {
    fd: RawFd,
    queued: Vec<Io>,
    done: Vec<Completion>,
}

impl PsyncEngine {
    #[must_use]
    pub fn new(fd: RawFd, iodepth: u32) -> Self {
        Self {
            fd,
            queued: Vec::with_capacity(iodepth as usize),
            done: Vec::with_capacity(iodepth as usize),
        }
    }

    fn run(&self, io: &Io) -> i32 {
        let offset = libc::off_t::try_from(io.offset_bytes).unwrap_or(libc::off_t::MAX);
        let len = io.len_bytes as usize;
        let result = match io.direction {
            // SAFETY: io.buf points to at least len_bytes of the worker's buffers, which outlive
            // this call; the fd is open for the duration of the run.
            Direction::Read => unsafe { libc::pread(self.fd, io.buf.cast(), len, offset) },
            // SAFETY: as above; the buffer is only read.
            Direction::Write => unsafe { libc::pwrite(self.fd, io.buf.cast(), len, offset) },
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
