//! Preconditioning: write real data over a new or sparse working set before it is read, since
//! reading holes or never-written blocks measures nothing. Sequential 1 MiB writes of
//! pseudo-random data through the target's own descriptor (so O_DIRECT fills bypass the cache).

use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::bench::buffer::AlignedBuffers;
use crate::bench::target::Target;
use crate::bench::worker::IoFault;

/// Bytes per fill write.
const FILL_CHUNK_BYTES: u64 = 1 << 20;

/// How a fill ended.
#[derive(Debug, PartialEq, Eq)]
pub enum FillOutcome {
    Done,
    /// `stop` was raised before the end.
    Stopped,
}

/// Writes `[0, working_set)` of `target`, calling `progress(done_bytes, total_bytes)` after
/// every chunk.
pub fn fill(
    target: &Target,
    direct: bool,
    stop: &AtomicBool,
    mut progress: impl FnMut(u64, u64),
) -> Result<FillOutcome, IoFault> {
    let total = target.extent_bytes;
    let chunk = FILL_CHUNK_BYTES
        .min(total)
        .max(u64::from(target.dio_align_bytes));
    let fd = target.file.as_raw_fd();
    let fault = |offset: u64, errno: i32| IoFault {
        worker: 0,
        operation: "write (filling the working set)",
        offset_bytes: Some(offset),
        errno,
        detail: None,
    };
    let buffers =
        AlignedBuffers::new(1, chunk as usize, 0x5eed).map_err(|_| fault(0, libc::ENOMEM))?;
    let mut offset = 0u64;
    while offset < total {
        if stop.load(Ordering::Relaxed) {
            return Ok(FillOutcome::Stopped);
        }
        let len = chunk.min(total - offset) as usize;
        let mut done = 0usize;
        while done < len {
            // SAFETY: the buffer holds `chunk` >= len bytes; done < len keeps the range inside.
            let rc = unsafe {
                libc::pwrite(
                    fd,
                    buffers.slot_ptr(0).add(done).cast(),
                    len - done,
                    libc::off_t::try_from(offset + done as u64).unwrap_or(libc::off_t::MAX),
                )
            };
            if rc < 0 {
                let errno = std::io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO);
                if errno == libc::EINTR || errno == libc::EAGAIN {
                    continue;
                }
                return Err(fault(offset + done as u64, errno));
            }
            if rc == 0 {
                return Err(fault(offset + done as u64, libc::ENOSPC));
            }
            done += rc.unsigned_abs();
        }
        offset += len as u64;
        progress(offset, total);
    }
    if !direct {
        // SAFETY: fdatasync on an open fd.
        if unsafe { libc::fdatasync(fd) } < 0 {
            let errno = std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO);
            return Err(IoFault {
                operation: "fdatasync (filling the working set)",
                offset_bytes: None,
                ..fault(0, errno)
            });
        }
    }
    Ok(FillOutcome::Done)
}
