//! The null engine: every I/O completes at once with its full length. It runs the worker's
//! whole hot path (workload, slots, clock reads, histogram) without a syscall, so its rate is
//! the ceiling the engine itself puts on any run.

use std::collections::VecDeque;
use std::io;

use super::{Completion, Engine, Io};

pub struct NullEngine {
    queued: Vec<Completion>,
    in_flight: VecDeque<Completion>,
}

impl NullEngine {
    #[must_use]
    pub fn new(iodepth: u32) -> Self {
        Self {
            queued: Vec::with_capacity(iodepth as usize),
            in_flight: VecDeque::with_capacity(iodepth as usize),
        }
    }
}

impl Engine for NullEngine {
    #[inline]
    fn prep(&mut self, io: &Io) {
        self.queued.push(Completion {
            slot: io.slot,
            result: i32::try_from(io.len_bytes).unwrap_or(i32::MAX),
        });
    }

    #[inline]
    fn submit(&mut self) -> io::Result<()> {
        self.in_flight.extend(self.queued.drain(..));
        Ok(())
    }

    #[inline]
    fn reap(&mut self, out: &mut Vec<Completion>, max: usize) -> io::Result<()> {
        self.submit()?;
        let take = max.min(self.in_flight.len());
        out.extend(self.in_flight.drain(..take));
        Ok(())
    }
}
