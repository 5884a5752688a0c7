//! io_uring: one ring per worker, created on the worker's thread, with the file and the
//! buffers registered when the kernel allows (plain fd and addresses otherwise).
//!
//! Setup flags, tried in order and dropped on EINVAL (older kernels):
//! COOP_TASKRUN + SINGLE_ISSUER + DEFER_TASKRUN (6.1), COOP_TASKRUN + SINGLE_ISSUER (6.0),
//! COOP_TASKRUN (5.19), none. `DISKDASH_URING_DISABLED=1` makes setup fail with EPERM, exactly
//! as `kernel.io_uring_disabled=2` or a seccomp filter does, so the fallback can be tested.

use std::io;
use std::os::fd::RawFd;

use io_uring::{IoUring, opcode, types};

use super::{Completion, Engine, EngineSetup, Io};
use crate::bench::buffer::AlignedBuffers;
use crate::bench::kinds::Direction;
use crate::bench::spec::UringOptions;

/// The environment variable that makes io_uring setup act as if the kernel said EPERM.
pub const DISABLE_ENV: &str = "DISKDASH_URING_DISABLED";

/// The environment variable that selects a plain ring (`none`) instead of the tuned flags.
pub const FLAGS_ENV: &str = "DISKDASH_URING_FLAGS";

/// Attempts to give up transient submit errors (EAGAIN/EBUSY) after.
const MAX_SUBMIT_RETRIES: u32 = 10_000;

/// How long the SQPOLL thread spins without work before it sleeps (fio leaves the kernel's
/// default, which is a second too).
const SQPOLL_IDLE_MS: u32 = 1000;

/// Creates a ring of `entries`, dropping tuning flags the kernel rejects. The flags `options`
/// asks for (IOPOLL, SQPOLL) are kept in every attempt: when the kernel refuses them, the
/// error says so instead of a ring without them.
pub fn build_ring(entries: u32) -> io::Result<(IoUring, Vec<&'static str>)> {
    build_ring_with(entries, &UringOptions::default())
}

/// [`build_ring`] with the job's io_uring options.
pub fn build_ring_with(
    entries: u32,
    options: &UringOptions,
) -> io::Result<(IoUring, Vec<&'static str>)> {
    if std::env::var_os(DISABLE_ENV).is_some_and(|v| v == "1") {
        return Err(io::Error::from_raw_os_error(libc::EPERM));
    }
    let attempts: [&[&'static str]; 4] = [
        &["COOP_TASKRUN", "SINGLE_ISSUER", "DEFER_TASKRUN"],
        &["COOP_TASKRUN", "SINGLE_ISSUER"],
        &["COOP_TASKRUN"],
        &[],
    ];
    let mut last_err = io::Error::from_raw_os_error(libc::EINVAL);
    // DISKDASH_URING_FLAGS=none starts from a plain ring (to compare setups side by side).
    let skip = if std::env::var_os(FLAGS_ENV).is_some_and(|v| v == "none") {
        3
    } else {
        0
    };
    for flags in attempts.into_iter().skip(skip) {
        let mut builder = IoUring::builder();
        builder.setup_cqsize(entries.saturating_mul(2));
        let mut asked: Vec<&'static str> = Vec::new();
        if options.hipri {
            builder.setup_iopoll();
            asked.push("IOPOLL");
        }
        if options.sqpoll {
            builder.setup_sqpoll(SQPOLL_IDLE_MS);
            if let Some(cpu) = options.sqpoll_cpu {
                builder.setup_sqpoll_cpu(u32::try_from(cpu).unwrap_or(u32::MAX));
            }
            asked.push("SQPOLL");
        }
        for flag in flags {
            match *flag {
                "COOP_TASKRUN" => builder.setup_coop_taskrun(),
                "SINGLE_ISSUER" => builder.setup_single_issuer(),
                _ => builder.setup_defer_taskrun(),
            };
        }
        match builder.build(entries) {
            Ok(ring) => {
                asked.extend_from_slice(flags);
                return Ok((ring, asked));
            }
            Err(err) if err.raw_os_error() == Some(libc::EINVAL) => last_err = err,
            Err(err) => return Err(err),
        }
    }
    Err(last_err)
}

/// Whether this process may use io_uring at all (a tiny ring, created and dropped).
pub fn probe() -> io::Result<()> {
    build_ring(2).map(drop)
}

pub struct UringEngine {
    ring: IoUring,
    fd: RawFd,
    fixed_file: bool,
    fixed_buffers: bool,
    /// READV/WRITEV with one iovec per slot (`nonvectored=0`); `None`: READ/WRITE.
    iovecs: Option<Vec<libc::iovec>>,
    /// The ring's own descriptor registered with itself (5.18): each `io_uring_enter` names
    /// this index with `IORING_ENTER_REGISTERED_RING`, and the kernel skips looking up and
    /// reference-counting the ring's file, two atomic operations per call in a process with
    /// more than one thread. `None`: not registered (an older kernel, SQPOLL or IOPOLL, which
    /// keep the library's own enter).
    ring_index: Option<u32>,
}

/// `io_uring_register` opcode, `io_uring_enter` flags and the update record for a
/// registered ring descriptor (linux/io_uring.h).
const IORING_REGISTER_RING_FDS: libc::c_uint = 20;
const IORING_UNREGISTER_RING_FDS: libc::c_uint = 21;
const IORING_ENTER_GETEVENTS: libc::c_uint = 1;
const IORING_ENTER_SQ_WAKEUP: libc::c_uint = 2;
const IORING_ENTER_REGISTERED_RING: libc::c_uint = 16;
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

/// Registers `ring`'s descriptor with itself; the index to enter with, or `None` when the
/// kernel refuses (before 5.18).
fn register_ring_fd(ring: &IoUring) -> Option<u32> {
    use std::os::fd::AsRawFd;
    let mut update = RsrcUpdate {
        // u32::MAX: any free slot; the kernel writes back the one it took.
        offset: u32::MAX,
        resv: 0,
        data: u64::try_from(ring.as_raw_fd()).ok()?,
    };
    // SAFETY: `update` is a valid io_uring_rsrc_update the kernel reads and writes back, for
    // one entry, and lives across the call; the ring descriptor is open.
    let done = unsafe {
        libc::syscall(
            libc::SYS_io_uring_register,
            ring.as_raw_fd(),
            IORING_REGISTER_RING_FDS,
            &raw mut update,
            1 as libc::c_uint,
        )
    };
    (done == 1).then_some(update.offset)
}

impl UringEngine {
    /// A ring with `iodepth` entries. `buffers` must outlive the engine (they may be
    /// registered with the kernel).
    pub fn new(
        fd: RawFd,
        iodepth: u32,
        buffers: &AlignedBuffers,
        block_size_bytes: usize,
        options: &UringOptions,
    ) -> io::Result<(Self, EngineSetup)> {
        let (ring, ring_flags) = build_ring_with(iodepth.max(1), options)?;
        let mut setup = EngineSetup {
            engine: "io_uring",
            ring_flags,
            vectored: !options.nonvectored,
            ..EngineSetup::default()
        };
        if options.register_files {
            match ring.submitter().register_files(&[fd]) {
                Ok(()) => setup.registered_file = true,
                Err(err) => setup.notes.push(format!(
                    "file registration failed ({err}); using the plain fd"
                )),
            }
        }
        // Vectored reads and writes take addresses: registered buffers would go unused.
        if options.registers_buffers() {
            let iovecs = buffers.iovecs(block_size_bytes);
            // SAFETY: the iovecs describe the worker's buffers, which the worker keeps alive
            // until after this engine (and its ring) is dropped.
            match unsafe { ring.submitter().register_buffers(&iovecs) } {
                Ok(()) => setup.registered_buffers = true,
                Err(err) if super::memlock_denied(&err) => {
                    let need: usize = iovecs.iter().map(|v| v.iov_len).sum();
                    setup.notes.push(format!(
                        "buffer registration failed (ENOMEM: the buffers lock {} and {}); \
                         using plain addresses",
                        crate::units::format_bytes(need as u64),
                        super::memlock_hint()
                    ));
                }
                Err(err) => setup.notes.push(format!(
                    "buffer registration failed ({err}); using plain addresses"
                )),
            }
        } else if options.fixed_bufs {
            setup
                .notes
                .push("fixedbufs unused: vectored reads and writes take plain addresses".into());
        }
        let iovecs = (!options.nonvectored).then(|| {
            vec![
                libc::iovec {
                    iov_base: std::ptr::null_mut(),
                    iov_len: 0,
                };
                iodepth.max(1) as usize
            ]
        });
        let ring_index = if options.sqpoll || options.hipri {
            None
        } else {
            register_ring_fd(&ring)
        };
        Ok((
            Self {
                ring,
                fd,
                fixed_file: setup.registered_file,
                fixed_buffers: setup.registered_buffers,
                iovecs,
                ring_index,
            },
            setup,
        ))
    }

    fn entry(&mut self, io: &Io) -> io_uring::squeue::Entry {
        // Trims run on psync (BLKDISCARD for devices); a file's hole is punched here too.
        macro_rules! punch_hole {
            ($target:expr) => {
                opcode::Fallocate::new($target, u64::from(io.len_bytes))
                    .offset(io.offset_bytes)
                    .mode(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
                    .build()
            };
        }
        if let Some(iovecs) = self.iovecs.as_mut() {
            let slot = io.slot as usize;
            iovecs[slot] = libc::iovec {
                iov_base: io.buf.cast(),
                iov_len: io.len_bytes as usize,
            };
            let iovec: *const libc::iovec = &raw const iovecs[slot];
            macro_rules! vectored {
                ($target:expr) => {
                    match io.direction {
                        Direction::Read => opcode::Readv::new($target, iovec, 1)
                            .offset(io.offset_bytes)
                            .ioprio(io.ioprio)
                            .build(),
                        Direction::Write => opcode::Writev::new($target, iovec, 1)
                            .offset(io.offset_bytes)
                            .ioprio(io.ioprio)
                            .build(),
                        Direction::Trim => punch_hole!($target),
                    }
                };
            }
            let entry = if self.fixed_file && io.fd < 0 {
                vectored!(types::Fixed(0))
            } else {
                vectored!(types::Fd(io.fd_or(self.fd)))
            };
            return entry.user_data(u64::from(io.slot));
        }
        macro_rules! build {
            ($target:expr) => {
                match (io.direction, self.fixed_buffers) {
                    (Direction::Trim, _) => punch_hole!($target),
                    (Direction::Read, true) => {
                        opcode::ReadFixed::new($target, io.buf, io.len_bytes, io.slot as u16)
                            .offset(io.offset_bytes)
                            .ioprio(io.ioprio)
                            .build()
                    }
                    (Direction::Read, false) => opcode::Read::new($target, io.buf, io.len_bytes)
                        .offset(io.offset_bytes)
                        .ioprio(io.ioprio)
                        .build(),
                    (Direction::Write, true) => {
                        opcode::WriteFixed::new($target, io.buf, io.len_bytes, io.slot as u16)
                            .offset(io.offset_bytes)
                            .ioprio(io.ioprio)
                            .build()
                    }
                    (Direction::Write, false) => opcode::Write::new($target, io.buf, io.len_bytes)
                        .offset(io.offset_bytes)
                        .ioprio(io.ioprio)
                        .build(),
                }
            };
        }
        let entry = if self.fixed_file && io.fd < 0 {
            build!(types::Fixed(0))
        } else {
            build!(types::Fd(io.fd_or(self.fd)))
        };
        entry.user_data(u64::from(io.slot))
    }

    #[inline]
    fn enter(&mut self, wait: bool) -> io::Result<()> {
        self.enter_for(wait, u32::from(wait))
    }

    /// Sends what is queued; with `wait`, also takes the completions the kernel holds back
    /// (GETEVENTS) and sleeps until `want` are posted (0: never sleeps).
    fn enter_for(&mut self, wait: bool, want: u32) -> io::Result<()> {
        let mut retries = 0;
        loop {
            let result = match self.ring_index {
                Some(index) => self.enter_registered(index, wait, want),
                None if want > 0 => self.ring.submit_and_wait(want as usize),
                None if wait => {
                    let to_submit = u32::try_from(self.ring.submission().len()).unwrap_or(u32::MAX);
                    // An idle SQPOLL thread submits nothing until woken: without the wake-up a
                    // poll would look for completions of I/O never sent.
                    let flags = if self.ring.submission().need_wakeup() {
                        IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP
                    } else {
                        IORING_ENTER_GETEVENTS
                    };
                    // SAFETY: no argument struct (None); the ring is live.
                    unsafe {
                        self.ring
                            .submitter()
                            .enter::<libc::sigset_t>(to_submit, 0, flags, None)
                    }
                }
                None => self.ring.submit(),
            };
            match result {
                Ok(_) => return Ok(()),
                Err(err) => {
                    let errno = err.raw_os_error().unwrap_or(0);
                    if !super::is_transient(errno) {
                        return Err(err);
                    }
                    // EAGAIN/EBUSY: the kernel is short of resources or the completion queue
                    // is full; completions already posted let the caller make progress.
                    if wait && !self.ring.completion().is_empty() {
                        return Ok(());
                    }
                    retries += 1;
                    if retries > MAX_SUBMIT_RETRIES {
                        return Err(err);
                    }
                    if errno != libc::EINTR {
                        std::thread::yield_now();
                    }
                }
            }
        }
    }
}

impl UringEngine {
    /// `io_uring_enter` through the registered ring descriptor: sends what is queued, and with
    /// `wait` waits for `want` completions (GETEVENTS, which also posts deferred completions;
    /// `want` 0 only looks), as the library's `submit_and_wait(want)` and `submit()` do for a
    /// ring without SQPOLL or IOPOLL.
    #[inline]
    fn enter_registered(&mut self, index: u32, wait: bool, want: u32) -> io::Result<usize> {
        let sq = self.ring.submission();
        let to_submit = u32::try_from(sq.len()).unwrap_or(u32::MAX);
        // A completion queue that overflowed is flushed by an enter with GETEVENTS.
        let flags = IORING_ENTER_REGISTERED_RING
            | if wait || sq.cq_overflow() {
                IORING_ENTER_GETEVENTS
            } else {
                0
            };
        drop(sq);
        // SAFETY: io_uring_enter with no argument struct (null, size 0); `index` is this
        // ring's registered descriptor, which stays registered until the ring is dropped.
        // Registered ring descriptors belong to the thread that registered them: the engine
        // is made, used and dropped on its worker's thread (it holds raw iovec pointers, so
        // it is not `Send` and cannot move to another).
        let done = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                index,
                to_submit,
                want,
                flags,
                std::ptr::null::<libc::c_void>(),
                0usize,
            )
        };
        usize::try_from(done).map_err(|_| io::Error::last_os_error())
    }
}

impl Drop for UringEngine {
    /// The registration holds a reference to the ring in this thread until the thread ends:
    /// dropped with the engine, so the ring closes with it.
    fn drop(&mut self) {
        let Some(index) = self.ring_index else {
            return;
        };
        let mut update = RsrcUpdate {
            offset: index,
            resv: 0,
            data: 0,
        };
        // SAFETY: as in register_ring_fd: one valid update record naming this thread's
        // registered slot; the ring descriptor is still open (its field drops after this).
        unsafe {
            libc::syscall(
                libc::SYS_io_uring_register,
                std::os::fd::AsRawFd::as_raw_fd(&self.ring),
                IORING_UNREGISTER_RING_FDS,
                &raw mut update,
                1 as libc::c_uint,
            )
        };
    }
}

impl Engine for UringEngine {
    #[inline(always)]
    fn times_submit(&self) -> bool {
        true
    }

    #[inline]
    fn prep(&mut self, io: &Io) {
        let entry = self.entry(io);
        loop {
            // SAFETY: the buffer behind io.buf stays valid and untouched by the worker until the
            // completion for this slot is reaped; the fd stays open for the whole run.
            if unsafe { self.ring.submission().push(&entry) }.is_ok() {
                return;
            }
            // The queue holds iodepth entries and the worker never queues more than that, so
            // this only runs if a previous submit left entries behind: send them first.
            let _ = self.ring.submit();
        }
    }

    #[inline]
    fn submit(&mut self) -> io::Result<()> {
        self.enter(false)
    }

    #[inline]
    fn reap(&mut self, out: &mut Vec<Completion>, max: usize) -> io::Result<()> {
        if self.ring.completion().is_empty() {
            // Nothing ready: send what is queued and wait for one (with DEFER_TASKRUN this
            // is also where the kernel posts the completions it has deferred).
            self.enter(true)?;
        } else if !self.ring.submission().is_empty() {
            self.enter(false)?;
        }
        self.take(out, max);
        Ok(())
    }

    fn reap_min(&mut self, out: &mut Vec<Completion>, min: usize, max: usize) -> io::Result<()> {
        if min == 0 {
            // Poll: send what is queued, then look again and again, never sleeping.
            if !self.ring.submission().is_empty() || self.ring.completion().is_empty() {
                self.enter_for(true, 0)?;
                while self.ring.completion().is_empty() {
                    self.enter_for(true, 0)?;
                }
            }
        } else if self.ring.completion().len() < min {
            // The kernel counts what already waits in the completion queue toward `min`.
            self.enter_for(true, u32::try_from(min).unwrap_or(u32::MAX))?;
        } else if !self.ring.submission().is_empty() {
            self.enter(false)?;
        }
        self.take(out, max);
        Ok(())
    }

    fn reap_within(
        &mut self,
        out: &mut Vec<Completion>,
        max: usize,
        wait_ns: u64,
    ) -> io::Result<()> {
        if self.ring.completion().is_empty() {
            // Send what is queued and wait for a completion or the timeout (EXT_ARG, 5.11),
            // whichever comes first; ETIME is the timeout.
            let ts = types::Timespec::new()
                .sec(wait_ns / 1_000_000_000)
                .nsec(u32::try_from(wait_ns % 1_000_000_000).unwrap_or(0));
            let args = types::SubmitArgs::new().timespec(&ts);
            match self.ring.submitter().submit_with_args(1, &args) {
                Ok(_) => {}
                Err(err) if err.raw_os_error() == Some(libc::ETIME) => {}
                Err(err) if super::is_transient(err.raw_os_error().unwrap_or(0)) => {}
                Err(err) => return Err(err),
            }
        } else if !self.ring.submission().is_empty() {
            self.enter(false)?;
        }
        self.take(out, max);
        Ok(())
    }
}

impl UringEngine {
    fn take(&mut self, out: &mut Vec<Completion>, max: usize) {
        for cqe in self.ring.completion().take(max) {
            out.push(Completion {
                slot: u32::try_from(cqe.user_data()).unwrap_or(u32::MAX),
                result: cqe.result(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::os::fd::AsRawFd as _;

    use super::*;

    /// Whether the running kernel registers ring descriptors (5.18 and later).
    fn kernel_registers_rings() -> bool {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let mut parts = release.trim().split(['.', '-']);
        let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let minor: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        (major, minor) >= (5, 18)
    }

    #[test]
    fn reads_through_the_registered_ring_return_the_files_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let mut file = std::fs::File::create(&path).unwrap();
        let blocks: Vec<Vec<u8>> = (0..8u8)
            .map(|b| vec![b.wrapping_mul(37) ^ 0x5a; 4096])
            .collect();
        for block in &blocks {
            file.write_all(block).unwrap();
        }
        drop(file);
        let file = std::fs::File::open(&path).unwrap();
        let buffers = AlignedBuffers::new(4, 4096, 1).unwrap();
        let (mut engine, _) = UringEngine::new(
            file.as_raw_fd(),
            4,
            &buffers,
            4096,
            &UringOptions::default(),
        )
        .unwrap();
        if kernel_registers_rings() {
            assert!(
                engine.ring_index.is_some(),
                "the ring descriptor was not registered"
            );
        }
        // Depth 4 kept full over 8 reads, one completion per reap, as the worker drives it.
        let mut next = 0u64;
        let mut done = Vec::new();
        let mut slot_block = [0u64; 4];
        let mut out = Vec::new();
        while done.len() < 8 {
            while next < 8 && next - (done.len() as u64) < 4 {
                let slot = (next % 4) as usize;
                slot_block[slot] = next;
                engine.prep(&Io {
                    slot: slot as u32,
                    direction: Direction::Read,
                    offset_bytes: next * 4096,
                    len_bytes: 4096,
                    buf: buffers.slot_ptr(slot),
                    ioprio: 0,
                    fd: -1,
                });
                next += 1;
            }
            engine.reap(&mut out, 1).unwrap();
            for completion in out.drain(..) {
                assert_eq!(completion.result, 4096);
                let slot = completion.slot as usize;
                // SAFETY: the read into this slot has completed; the buffer holds 4096 bytes.
                let got = unsafe { std::slice::from_raw_parts(buffers.slot_ptr(slot), 4096) };
                assert_eq!(got, &blocks[slot_block[slot] as usize][..]);
                done.push(slot_block[slot]);
            }
        }
        done.sort_unstable();
        assert_eq!(done, (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn a_dropped_engine_gives_its_registered_slot_back() {
        // A thread holds at most 16 registered rings: without the unregistration on drop, the
        // 17th engine of this thread would run unregistered.
        let file = tempfile::tempfile().unwrap();
        let buffers = AlignedBuffers::new(1, 4096, 1).unwrap();
        for round in 0..40 {
            let (engine, _) = UringEngine::new(
                file.as_raw_fd(),
                2,
                &buffers,
                4096,
                &UringOptions::default(),
            )
            .unwrap();
            if kernel_registers_rings() {
                assert!(
                    engine.ring_index.is_some(),
                    "engine {round} was not registered"
                );
            }
        }
    }
}
