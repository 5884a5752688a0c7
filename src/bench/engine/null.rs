//! The null engine: every I/O completes at once with its full length. It runs the worker's
//! whole hot path (workload, slots, clock reads, histogram) without a syscall, so its rate is
//! the ceiling the engine itself puts on any run.

use std::io;

use super::{Completion, Engine, Io};

/// The I/Os prepared and submitted, oldest first, in a ring of a power-of-two size: each is
/// reaped in the order it was prepared, and nothing moves or grows per I/O.
pub struct NullEngine {
    ring: Box<[Completion]>,
    /// `ring.len() - 1`.
    mask: usize,
    /// Positions (counting up forever, taken modulo the ring): the oldest not yet reaped, the
    /// first not yet submitted, and the next to prepare.
    head: usize,
    submitted: usize,
    tail: usize,
}

impl NullEngine {
    #[must_use]
    pub fn new(iodepth: u32) -> Self {
        let size = (iodepth.max(1) as usize).next_power_of_two();
        Self {
            ring: vec![Completion { slot: 0, result: 0 }; size].into_boxed_slice(),
            mask: size - 1,
            head: 0,
            submitted: 0,
            tail: 0,
        }
    }
}

impl NullEngine {
    /// More prepared than the depth it was made for (the worker never does this): twice the
    /// room, the order kept. Out of line, so `prep` stays a store.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let mut ring = Vec::with_capacity(self.ring.len() * 2);
        ring.extend((self.head..self.tail).map(|at| self.ring[at & self.mask]));
        ring.resize(self.ring.len() * 2, Completion { slot: 0, result: 0 });
        self.submitted -= self.head;
        self.tail -= self.head;
        self.head = 0;
        self.ring = ring.into_boxed_slice();
        self.mask = self.ring.len() - 1;
    }
}

impl Engine for NullEngine {
    #[inline(always)]
    fn times_submit(&self) -> bool {
        true
    }

    #[inline(always)]
    fn prep(&mut self, io: &Io) {
        if self.tail - self.head == self.ring.len() {
            self.grow();
        }
        self.ring[self.tail & self.mask] = Completion {
            slot: io.slot,
            result: i32::try_from(io.len_bytes).unwrap_or(i32::MAX),
        };
        self.tail += 1;
    }

    #[inline]
    fn submit(&mut self) -> io::Result<()> {
        self.submitted = self.tail;
        Ok(())
    }

    #[inline]
    fn reap(&mut self, out: &mut Vec<Completion>, max: usize) -> io::Result<()> {
        self.submitted = self.tail;
        let take = max.min(self.submitted - self.head);
        // A range's map: one capacity check for the lot, not one per completion.
        let (head, mask, ring) = (self.head, self.mask, &self.ring);
        out.extend((head..head + take).map(|at| ring[at & mask]));
        self.head += take;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::kinds::Direction;

    fn io(slot: u32, len_bytes: u32) -> Io {
        Io {
            slot,
            direction: Direction::Read,
            offset_bytes: 0,
            len_bytes,
            buf: std::ptr::null_mut(),
            ioprio: 0,
            fd: -1,
        }
    }

    #[test]
    fn completions_come_back_in_the_order_prepared_with_their_length() {
        // Depth 3 (a ring of 4), kept full as the worker keeps it, one reap at a time, and a
        // burst past the depth that makes the ring grow.
        let mut engine = NullEngine::new(3);
        let mut out = Vec::new();
        let mut expected = Vec::new();
        let mut next = 0u32;
        for round in 0..50u32 {
            let burst = if round == 20 { 9 } else { 1 + round % 3 };
            for _ in 0..burst {
                engine.prep(&io(next, 512 + next));
                expected.push(Completion {
                    slot: next,
                    result: i32::try_from(512 + next).unwrap(),
                });
                next += 1;
            }
            if round % 2 == 0 {
                engine.submit().unwrap();
            }
            engine.reap(&mut out, 1 + (round as usize % 4)).unwrap();
        }
        engine.reap(&mut out, usize::MAX).unwrap();
        assert_eq!(out, expected);
        let mut none = Vec::new();
        engine.reap(&mut none, 4).unwrap();
        assert!(none.is_empty());
    }
}
