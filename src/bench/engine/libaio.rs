//! libaio: Linux native AIO through its four system calls (`io_setup`, `io_submit`,
//! `io_getevents`, `io_destroy`), one context per worker, with the structures laid out as
//! `linux/aio_abi.h` defines them (no C library).
//!
//! As fio's libaio engine: `prep` fills the slot's iocb, `submit` hands every queued iocb to
//! one `io_submit` (again for the rest when the kernel takes only some), `reap` waits in
//! `io_getevents` for at least one completion and takes up to `max`.
//!
//! The kernel runs native AIO asynchronously only for O_DIRECT: on a buffered file
//! `io_submit` does the whole read or write before it returns, so a buffered libaio job is
//! synchronous in practice (fio's is too); the setup says so in a note. Syncs are the worker's
//! (it drains the in-flight I/Os and calls fsync/fdatasync), which is what fio's libaio does
//! too rather than IOCB_CMD_FSYNC; trims have no iocb command, so they run synchronously here
//! (BLKDISCARD or a punched hole, as psync issues them) and complete on the next reap.

use std::io;
use std::os::fd::RawFd;

use super::{Completion, Engine, EngineSetup, Io};
use crate::bench::kinds::Direction;

/// `aio_context_t`: the kernel's handle of a context (the address of its completion ring).
type AioContext = libc::c_ulong;

/// `IOCB_CMD_PREAD` of `linux/aio_abi.h`.
pub const IOCB_CMD_PREAD: u16 = 0;
/// `IOCB_CMD_PWRITE`.
pub const IOCB_CMD_PWRITE: u16 = 1;
/// `IOCB_FLAG_IOPRIO` of `linux/aio_abi.h`: `aio_reqprio` holds the I/O's priority.
pub const IOCB_FLAG_IOPRIO: u32 = 1 << 1;

/// Attempts to give up transient submit errors (EAGAIN/EINTR) after.
const MAX_SUBMIT_RETRIES: u32 = 10_000;

/// `struct iocb` of `linux/aio_abi.h` (64 bytes). `aio_key` and `aio_rw_flags` share one
/// 64-bit word whose order follows the byte order (`PADDED` in the header).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Iocb {
    /// Returned untouched in the completion's `data`: the slot here.
    pub aio_data: u64,
    #[cfg(target_endian = "little")]
    pub aio_key: u32,
    #[cfg(target_endian = "little")]
    pub aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    pub aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    pub aio_key: u32,
    pub aio_lio_opcode: u16,
    pub aio_reqprio: i16,
    pub aio_fildes: u32,
    pub aio_buf: u64,
    pub aio_nbytes: u64,
    pub aio_offset: i64,
    pub aio_reserved2: u64,
    pub aio_flags: u32,
    pub aio_resfd: u32,
}

/// `struct io_event` of `linux/aio_abi.h` (32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct IoEvent {
    /// The iocb's `aio_data`.
    pub data: u64,
    /// The iocb's address.
    pub obj: u64,
    /// Bytes done, or `-errno`.
    pub res: i64,
    pub res2: i64,
}

pub struct LibaioEngine {
    ctx: AioContext,
    fd: RawFd,
    block_device: bool,
    /// One iocb per slot; the kernel reads a slot's iocb during `io_submit` only.
    iocbs: Box<[Iocb]>,
    /// Prepared iocbs the kernel has not taken yet (pointers into `iocbs`).
    pending: Vec<*mut Iocb>,
    /// Trims, run synchronously at submit.
    trims: Vec<Io>,
    events: Box<[IoEvent]>,
    /// Completions that did not come from the context: trims, and iocbs `io_submit` refused.
    done: Vec<Completion>,
    in_flight: usize,
}

/// Creates a context for `nr_events` I/Os in flight.
fn io_setup(nr_events: u32) -> io::Result<AioContext> {
    let mut ctx: AioContext = 0;
    // SAFETY: io_setup writes one aio_context_t through the pointer, which points to a live,
    // zeroed local (the kernel requires it zeroed).
    let rc = unsafe {
        libc::syscall(
            libc::SYS_io_setup,
            libc::c_uint::from(nr_events),
            &raw mut ctx,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(ctx)
}

/// The message for a failed `io_setup`: for EAGAIN, the system-wide limit that ran out and
/// how to raise it.
#[must_use]
pub fn setup_error(err: &io::Error, depth: u32) -> String {
    let read = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/fs/{name}"))
            .map_or_else(|_| "?".to_string(), |s| s.trim().to_string())
    };
    match err.raw_os_error() {
        Some(libc::EAGAIN) => format!(
            "libaio's io_setup for iodepth {depth} failed (EAGAIN): the system's AIO events are \
             used up (/proc/sys/fs/aio-nr {} of /proc/sys/fs/aio-max-nr {}); raise the limit \
             (sysctl -w fs.aio-max-nr=1048576) or lower iodepth x numjobs",
            read("aio-nr"),
            read("aio-max-nr")
        ),
        Some(libc::ENOSYS) => "libaio is unavailable (ENOSYS: the kernel was built without \
                               CONFIG_AIO); use --ioengine io_uring"
            .to_string(),
        Some(errno) => format!(
            "libaio's io_setup for iodepth {depth} failed ({}: {err})",
            super::errno_name(errno)
        ),
        None => format!("libaio's io_setup for iodepth {depth} failed: {err}"),
    }
}

impl LibaioEngine {
    /// A context for `iodepth` I/Os in flight on `fd`.
    pub fn new(fd: RawFd, iodepth: u32) -> io::Result<(Self, EngineSetup)> {
        let depth = iodepth.max(1);
        let ctx = io_setup(depth)?;
        // SAFETY: the worker keeps the fd open for the whole run, past this engine.
        let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
        let block_device = nix::sys::stat::fstat(borrowed)
            .is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFBLK);
        let direct = nix::fcntl::fcntl(borrowed, nix::fcntl::FcntlArg::F_GETFL)
            .is_ok_and(|flags| flags & libc::O_DIRECT != 0);
        let mut setup = EngineSetup {
            engine: "libaio",
            ..EngineSetup::default()
        };
        if !direct {
            setup.notes.push(
                "libaio without O_DIRECT is synchronous: the kernel does each buffered read or \
                 write inside io_submit (fio's libaio too); use --direct 1 for iodepth to apply"
                    .to_string(),
            );
        }
        let slots = depth as usize;
        Ok((
            Self {
                ctx,
                fd,
                block_device,
                iocbs: vec![Iocb::default(); slots].into_boxed_slice(),
                pending: Vec::with_capacity(slots),
                trims: Vec::new(),
                events: vec![IoEvent::default(); slots].into_boxed_slice(),
                done: Vec::with_capacity(slots),
                in_flight: 0,
            },
            setup,
        ))
    }

    /// Hands the pending iocbs to the kernel. An iocb the kernel refuses (EFAULT for a bad
    /// buffer address, EINVAL for a bad offset) completes with its error, so the worker names the
    /// I/O; EAGAIN and EINTR are tried again.
    fn submit_pending(&mut self) -> io::Result<()> {
        let mut start = 0;
        let mut retries = 0;
        while start < self.pending.len() {
            let left = self.pending.len() - start;
            // SAFETY: the context is live; the array holds `left` pointers to iocbs in
            // `self.iocbs`, which outlives the call, each describing a buffer the worker keeps
            // untouched until its completion is reaped.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    left as libc::c_long,
                    self.pending.as_mut_ptr().add(start),
                )
            };
            if rc > 0 {
                let taken = usize::try_from(rc).unwrap_or(left).min(left);
                start += taken;
                self.in_flight += taken;
                retries = 0;
                continue;
            }
            let err = if rc == 0 {
                io::Error::from_raw_os_error(libc::EAGAIN)
            } else {
                io::Error::last_os_error()
            };
            let errno = err.raw_os_error().unwrap_or(libc::EIO);
            if matches!(errno, libc::EAGAIN | libc::EINTR) {
                retries += 1;
                if retries > MAX_SUBMIT_RETRIES {
                    return Err(err);
                }
                std::thread::yield_now();
                continue;
            }
            // SAFETY: the pointer is one of ours, into `self.iocbs`.
            let slot = unsafe { (*self.pending[start]).aio_data };
            self.done.push(Completion {
                slot: u32::try_from(slot).unwrap_or(u32::MAX),
                result: -errno,
            });
            start += 1;
        }
        self.pending.clear();
        for i in 0..self.trims.len() {
            let io = self.trims[i];
            let result = super::psync::trim(io.fd_or(self.fd), self.block_device, &io);
            self.done.push(Completion {
                slot: io.slot,
                result,
            });
        }
        self.trims.clear();
        Ok(())
    }

    /// Takes up to `max` completions from the context, waiting for `min` at most `timeout`
    /// (none: without limit). A signal or the timeout ends the wait early.
    fn get_events(
        &mut self,
        out: &mut Vec<Completion>,
        min: usize,
        max: usize,
        timeout: Option<&libc::timespec>,
    ) -> io::Result<()> {
        let max = max.min(self.events.len());
        let timeout_ptr = timeout.map_or(std::ptr::null(), std::ptr::from_ref);
        let got = loop {
            // SAFETY: the context is live; `events` has room for `max` io_events; the timeout
            // is null or points to a live timespec.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    min as libc::c_long,
                    max as libc::c_long,
                    self.events.as_mut_ptr(),
                    timeout_ptr,
                )
            };
            if rc >= 0 {
                break usize::try_from(rc).unwrap_or(0).min(max);
            }
            let err = io::Error::last_os_error();
            match err.raw_os_error() {
                // A paced wait ends; an unbounded one waits on.
                Some(libc::EINTR) if timeout.is_some() => break 0,
                Some(libc::EINTR) => {}
                _ => return Err(err),
            }
        };
        self.in_flight -= got.min(self.in_flight);
        out.extend(self.events[..got].iter().map(|event| Completion {
            slot: u32::try_from(event.data).unwrap_or(u32::MAX),
            result: i32::try_from(event.res).unwrap_or(-libc::EIO),
        }));
        Ok(())
    }

    /// Submits, then takes up to `max`: first what completed outside the context, then the
    /// context's, waiting (up to `timeout`) until `min` in all are ready (fewer when fewer are
    /// in flight). `min` 0 polls: `io_getevents` without waiting, again, until one is ready.
    fn reap_with(
        &mut self,
        out: &mut Vec<Completion>,
        min: usize,
        max: usize,
        timeout: Option<&libc::timespec>,
    ) -> io::Result<()> {
        self.submit_pending()?;
        let take = max.min(self.done.len());
        out.extend(self.done.drain(..take));
        if take < max && self.in_flight > 0 {
            let want = min.saturating_sub(take).min(self.in_flight);
            if want > 0 {
                self.get_events(out, want, max - take, timeout)?;
            } else if min == 0 && take == 0 {
                let before = out.len();
                while out.len() == before {
                    self.get_events(out, 0, max, None)?;
                }
            } else {
                self.get_events(out, 0, max - take, None)?;
            }
        }
        Ok(())
    }
}

impl Drop for LibaioEngine {
    fn drop(&mut self) {
        // SAFETY: the context is ours and destroyed once; io_destroy waits for the I/Os still
        // in flight, so no buffer is written after the worker frees it.
        unsafe {
            libc::syscall(libc::SYS_io_destroy, self.ctx);
        }
    }
}

impl Engine for LibaioEngine {
    #[inline(always)]
    fn times_submit(&self) -> bool {
        true
    }

    #[inline]
    fn prep(&mut self, io: &Io) {
        if io.direction == Direction::Trim {
            self.trims.push(*io);
            return;
        }
        let slot = io.slot as usize;
        let iocb = &mut self.iocbs[slot];
        *iocb = Iocb {
            aio_data: u64::from(io.slot),
            aio_lio_opcode: match io.direction {
                Direction::Write => IOCB_CMD_PWRITE,
                _ => IOCB_CMD_PREAD,
            },
            aio_fildes: u32::try_from(io.fd_or(self.fd)).unwrap_or(u32::MAX),
            aio_buf: io.buf as u64,
            aio_nbytes: u64::from(io.len_bytes),
            aio_offset: i64::try_from(io.offset_bytes).unwrap_or(i64::MAX),
            // Branch-free: the flag is set exactly when the I/O carries a priority.
            aio_flags: u32::from(io.ioprio != 0) * IOCB_FLAG_IOPRIO,
            aio_reqprio: io.ioprio as i16,
            ..Iocb::default()
        };
        self.pending.push(&raw mut *iocb);
    }

    #[inline]
    fn submit(&mut self) -> io::Result<()> {
        self.submit_pending()
    }

    #[inline]
    fn reap(&mut self, out: &mut Vec<Completion>, max: usize) -> io::Result<()> {
        self.reap_with(out, 1, max, None)
    }

    #[inline]
    fn reap_min(&mut self, out: &mut Vec<Completion>, min: usize, max: usize) -> io::Result<()> {
        self.reap_with(out, min, max, None)
    }

    fn reap_within(
        &mut self,
        out: &mut Vec<Completion>,
        max: usize,
        wait_ns: u64,
    ) -> io::Result<()> {
        let timeout = libc::timespec {
            tv_sec: libc::time_t::try_from(wait_ns / 1_000_000_000).unwrap_or(libc::time_t::MAX),
            tv_nsec: libc::c_long::try_from(wait_ns % 1_000_000_000).unwrap_or(0),
        };
        self.reap_with(out, 1, max, Some(&timeout))
    }
}

#[cfg(test)]
mod tests {
    use std::mem::{offset_of, size_of};
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;

    use super::*;
    use crate::bench::buffer::AlignedBuffers;

    #[test]
    fn iocb_and_io_event_are_laid_out_as_the_kernel_abi() {
        // linux/aio_abi.h on a 64-bit little-endian machine.
        assert_eq!(size_of::<Iocb>(), 64);
        assert_eq!(offset_of!(Iocb, aio_data), 0);
        #[cfg(target_endian = "little")]
        {
            assert_eq!(offset_of!(Iocb, aio_key), 8);
            assert_eq!(offset_of!(Iocb, aio_rw_flags), 12);
        }
        #[cfg(target_endian = "big")]
        {
            assert_eq!(offset_of!(Iocb, aio_rw_flags), 8);
            assert_eq!(offset_of!(Iocb, aio_key), 12);
        }
        assert_eq!(offset_of!(Iocb, aio_lio_opcode), 16);
        assert_eq!(offset_of!(Iocb, aio_reqprio), 18);
        assert_eq!(offset_of!(Iocb, aio_fildes), 20);
        assert_eq!(offset_of!(Iocb, aio_buf), 24);
        assert_eq!(offset_of!(Iocb, aio_nbytes), 32);
        assert_eq!(offset_of!(Iocb, aio_offset), 40);
        assert_eq!(offset_of!(Iocb, aio_reserved2), 48);
        assert_eq!(offset_of!(Iocb, aio_flags), 56);
        assert_eq!(offset_of!(Iocb, aio_resfd), 60);
        assert_eq!(size_of::<IoEvent>(), 32);
        assert_eq!(offset_of!(IoEvent, data), 0);
        assert_eq!(offset_of!(IoEvent, obj), 8);
        assert_eq!(offset_of!(IoEvent, res), 16);
        assert_eq!(offset_of!(IoEvent, res2), 24);
        assert_eq!((IOCB_CMD_PREAD, IOCB_CMD_PWRITE), (0, 1));
    }

    fn io(slot: u32, direction: Direction, offset: u64, buffers: &AlignedBuffers) -> Io {
        Io {
            slot,
            direction,
            offset_bytes: offset,
            len_bytes: 4096,
            buf: buffers.slot_ptr(slot as usize),
            ioprio: 0,
            fd: -1,
        }
    }

    /// Reaps until `n` completions arrived, each call taking at most `max`.
    fn reap_all(engine: &mut LibaioEngine, n: usize, max: usize) -> Vec<Completion> {
        let mut all = Vec::new();
        while all.len() < n {
            let mut out = Vec::new();
            engine.reap(&mut out, max).unwrap();
            assert!(!out.is_empty() && out.len() <= max, "{out:?}");
            all.extend(out);
        }
        all.sort_by_key(|c| c.slot);
        all
    }

    #[test]
    fn writes_and_reads_a_file_with_o_direct_in_batches() {
        const DEPTH: u32 = 8;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .custom_flags(libc::O_DIRECT)
            .open(&path)
            .unwrap();
        file.set_len(u64::from(DEPTH) * 4096).unwrap();
        let buffers = AlignedBuffers::new(DEPTH as usize, 4096, 7).unwrap();
        let (mut engine, setup) = LibaioEngine::new(file.as_raw_fd(), DEPTH).unwrap();
        assert_eq!(setup.engine, "libaio");
        assert!(setup.notes.is_empty(), "{:?}", setup.notes);
        // Each slot's buffer is written at the slot's block, all in one submit.
        for slot in 0..DEPTH {
            engine.prep(&io(
                slot,
                Direction::Write,
                u64::from(slot) * 4096,
                &buffers,
            ));
        }
        engine.submit().unwrap();
        assert_eq!(engine.in_flight, DEPTH as usize);
        let done = reap_all(&mut engine, DEPTH as usize, 3);
        assert_eq!(
            done,
            (0..DEPTH)
                .map(|slot| Completion { slot, result: 4096 })
                .collect::<Vec<_>>()
        );
        let written = std::fs::read(&path).unwrap();
        for slot in 0..DEPTH as usize {
            // SAFETY: each slot holds 4096 bytes and no I/O is in flight.
            let buf = unsafe { std::slice::from_raw_parts(buffers.slot_ptr(slot), 4096) };
            assert_eq!(&written[slot * 4096..(slot + 1) * 4096], buf, "slot {slot}");
        }
        // Read back crosswise (slot s reads block DEPTH-1-s), queued by prep and sent by reap.
        let other = AlignedBuffers::new(DEPTH as usize, 4096, 99).unwrap();
        for slot in 0..DEPTH {
            engine.prep(&io(
                slot,
                Direction::Read,
                u64::from(DEPTH - 1 - slot) * 4096,
                &other,
            ));
        }
        let done = reap_all(&mut engine, DEPTH as usize, DEPTH as usize);
        assert!(done.iter().all(|c| c.result == 4096), "{done:?}");
        for slot in 0..DEPTH as usize {
            let block = DEPTH as usize - 1 - slot;
            // SAFETY: as above.
            let buf = unsafe { std::slice::from_raw_parts(other.slot_ptr(slot), 4096) };
            assert_eq!(
                &written[block * 4096..(block + 1) * 4096],
                buf,
                "slot {slot}"
            );
        }
        assert_eq!(engine.in_flight, 0);
    }

    #[test]
    fn a_refused_iocb_completes_with_its_error_and_a_paced_reap_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .custom_flags(libc::O_DIRECT)
            .open(dir.path().join("data"))
            .unwrap();
        file.set_len(1 << 20).unwrap();
        let buffers = AlignedBuffers::new(2, 4096, 1).unwrap();
        let (mut engine, _) = LibaioEngine::new(file.as_raw_fd(), 2).unwrap();
        // A buffer in the kernel's half of the address space: io_submit refuses the iocb
        // (EFAULT) before any I/O; the engine never touches the pointer itself.
        let mut bad = io(0, Direction::Read, 0, &buffers);
        bad.buf = std::ptr::without_provenance_mut(0xffff_ffff_ffff_0000);
        engine.prep(&bad);
        engine.prep(&io(1, Direction::Read, 8192, &buffers));
        let mut out = Vec::new();
        while out.len() < 2 {
            engine.reap(&mut out, 2).unwrap();
        }
        out.sort_by_key(|c| c.slot);
        assert_eq!(
            out,
            [
                Completion {
                    slot: 0,
                    result: -libc::EFAULT
                },
                Completion {
                    slot: 1,
                    result: 4096
                }
            ]
        );
        // Nothing in flight: a bounded reap returns with nothing instead of waiting.
        let mut out = Vec::new();
        engine.reap_within(&mut out, 2, 1_000_000).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn buffered_io_is_said_to_be_synchronous_and_trims_punch_holes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        std::fs::write(&path, vec![0xaa_u8; 16384]).unwrap();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let buffers = AlignedBuffers::new(1, 4096, 1).unwrap();
        let (mut engine, setup) = LibaioEngine::new(file.as_raw_fd(), 1).unwrap();
        assert!(
            setup.notes.iter().any(|n| n.contains("synchronous")),
            "{:?}",
            setup.notes
        );
        engine.prep(&io(0, Direction::Trim, 4096, &buffers));
        let mut out = Vec::new();
        engine.reap(&mut out, 1).unwrap();
        assert_eq!(
            out,
            [Completion {
                slot: 0,
                result: 4096
            }]
        );
        let data = std::fs::read(&path).unwrap();
        assert_eq!(data.len(), 16384);
        assert!(data[4096..8192].iter().all(|&b| b == 0));
        assert!(data[..4096].iter().chain(&data[8192..]).all(|&b| b == 0xaa));
    }

    #[test]
    fn setup_errors_name_the_limit_and_the_fix() {
        let eagain = setup_error(&io::Error::from_raw_os_error(libc::EAGAIN), 64);
        assert!(eagain.contains("/proc/sys/fs/aio-max-nr"), "{eagain}");
        assert!(eagain.contains("sysctl -w fs.aio-max-nr="), "{eagain}");
        assert!(eagain.contains("iodepth 64"), "{eagain}");
        let enosys = setup_error(&io::Error::from_raw_os_error(libc::ENOSYS), 1);
        assert!(enosys.contains("--ioengine io_uring"), "{enosys}");
        assert!(!eagain.contains('\n') && !enosys.contains('\n'));
    }
}
