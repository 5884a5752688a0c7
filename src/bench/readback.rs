//! A verifying write job's read-back, as fio's verify phase runs it: every block written, in
//! the order it was written (fio keeps its write log unsorted while a random map rules out
//! overwrites), read through the job's own engine with up to `iodepth` reads in flight, each
//! into its own buffer slot. Read one at a time instead, the phase takes several times longer
//! at depth, and so does its read runtime (fio's read IOPS and bandwidth of the job).

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::bench::buffer::AlignedBuffers;
use crate::bench::engine::{Completion, Engine, Io};
use crate::bench::kinds::Direction;
use crate::stats::monotonic_ns;

/// One block read back: where, the syscall-style result (bytes, or `-errno`), the bytes read
/// (empty on an error) and how long it took.
pub struct Block<'a> {
    pub offset: u64,
    pub result: i32,
    pub data: &'a [u8],
    pub latency_ns: u64,
}

/// Reads `len` bytes at each of `offsets` through `engine`, up to `depth` at once (capped by
/// the buffer slots), taking at most `reap_max` completions per reap before refilling (the
/// job's `iodepth_batch_complete_max`, 1 by default: fio's verify phase takes one at a time
/// and sends one, never a burst), and hands each completed block to `seen`, which returns false to stop
/// issuing (what is in flight still drains, unseen). Raising `stop` stops issuing too.
///
/// # Errors
/// The engine's submit or reap failing; what was in flight is then left to the kernel, which
/// cancels or ends it when the engine's ring or context is closed, so the caller keeps
/// `buffers` alive past the engine's drop (the worker's buffers outlive its verify engine).
pub fn read_back<E: Engine>(
    engine: &mut E,
    buffers: &AlignedBuffers,
    (depth, reap_max): (usize, usize),
    len: u32,
    offsets: &[u64],
    stop: &AtomicBool,
    mut seen: impl FnMut(&Block<'_>) -> bool,
) -> io::Result<()> {
    let depth = depth.clamp(1, buffers.slots());
    let reap_max = reap_max.clamp(1, depth);
    let mut at = vec![(0_u64, 0_u64); depth];
    let mut free: Vec<u32> = (0..u32::try_from(depth).unwrap_or(u32::MAX))
        .rev()
        .collect();
    let mut done: Vec<Completion> = Vec::with_capacity(depth);
    let (mut next, mut in_flight, mut going) = (0, 0, true);
    loop {
        going &= !stop.load(Ordering::Relaxed);
        while going && next < offsets.len() {
            let Some(slot) = free.pop() else { break };
            let offset = offsets[next];
            next += 1;
            engine.prep(&Io {
                slot,
                direction: Direction::Read,
                offset_bytes: offset,
                len_bytes: len,
                buf: buffers.slot_ptr(slot as usize),
                ioprio: 0,
                fd: -1,
            });
            at[slot as usize] = (offset, monotonic_ns());
            in_flight += 1;
        }
        if in_flight == 0 {
            return Ok(());
        }
        done.clear();
        engine.reap(&mut done, reap_max)?;
        let now = monotonic_ns();
        for completion in &done {
            in_flight -= 1;
            free.push(completion.slot);
            if !going {
                continue;
            }
            let (offset, issued) = at[completion.slot as usize];
            let bytes = usize::try_from(completion.result).unwrap_or(0);
            // SAFETY: the read on this slot has completed, so nothing writes its buffer, which
            // holds at least `len` >= `bytes` bytes and lives as long as `buffers`.
            let data = unsafe {
                std::slice::from_raw_parts(
                    buffers.slot_ptr(completion.slot as usize),
                    bytes.min(len as usize),
                )
            };
            going = seen(&Block {
                offset,
                result: completion.result,
                data,
                latency_ns: now.saturating_sub(issued),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::FileExt;

    use super::*;
    use crate::bench::buffer::Pages;
    use crate::bench::engine::psync::PsyncEngine;

    /// Counts the reads the engine has in flight at once, over a real engine.
    struct Depth<E> {
        inner: E,
        queued: usize,
        most: usize,
        most_reaped: usize,
    }

    impl<E: Engine> Engine for Depth<E> {
        fn times_submit(&self) -> bool {
            self.inner.times_submit()
        }

        fn prep(&mut self, io: &Io) {
            self.queued += 1;
            self.most = self.most.max(self.queued);
            self.inner.prep(io);
        }
        fn submit(&mut self) -> io::Result<()> {
            self.inner.submit()
        }
        fn reap(&mut self, out: &mut Vec<Completion>, max: usize) -> io::Result<()> {
            let before = out.len();
            self.inner.reap(out, max)?;
            self.queued -= out.len() - before;
            self.most_reaped = self.most_reaped.max(out.len() - before);
            Ok(())
        }
    }

    fn file_of_blocks(blocks: u64) -> std::fs::File {
        let file = tempfile::tempfile().unwrap();
        for block in 0..blocks {
            file.write_all_at(&[u8::try_from(block).unwrap(); 4096], block * 4096)
                .unwrap();
        }
        file
    }

    /// Every offset is read once, in the order given, with the depth asked for in flight, and
    /// each block handed over holds what that offset holds.
    #[test]
    fn reads_every_block_once_at_the_depth_asked_for() {
        let file = file_of_blocks(64);
        let buffers = AlignedBuffers::new_zeroed(16, 4096, Pages::Plain).unwrap();
        let offsets: Vec<u64> = (0..64).rev().map(|b| b * 4096).collect();
        let mut engine = Depth {
            inner: PsyncEngine::new(file.as_raw_fd(), 16),
            queued: 0,
            most: 0,
            most_reaped: 0,
        };
        let mut seen = Vec::new();
        read_back(
            &mut engine,
            &buffers,
            (16, 1),
            4096,
            &offsets,
            &AtomicBool::new(false),
            |b| {
                assert_eq!(b.result, 4096);
                assert!(b.data.iter().all(|&x| u64::from(x) == b.offset / 4096));
                seen.push(b.offset);
                true
            },
        )
        .unwrap();
        assert_eq!(seen, offsets, "every block once, in the order given");
        assert_eq!(engine.most, 16, "reads in flight at once");
        assert_eq!(
            engine.most_reaped, 1,
            "one completion taken per reap, as fio's verify"
        );
    }

    /// A block the callback refuses stops the issuing: no block after it is read.
    #[test]
    fn a_refused_block_stops_the_reads() {
        let file = file_of_blocks(32);
        let buffers = AlignedBuffers::new_zeroed(1, 4096, Pages::Plain).unwrap();
        let offsets: Vec<u64> = (0..32).map(|b| b * 4096).collect();
        let mut engine = PsyncEngine::new(file.as_raw_fd(), 1);
        let mut count = 0;
        read_back(
            &mut engine,
            &buffers,
            (8, 1),
            4096,
            &offsets,
            &AtomicBool::new(false),
            |_| {
                count += 1;
                count < 5
            },
        )
        .unwrap();
        assert_eq!(count, 5);
    }
}
