//! fio's random map: a random job visits each block of its region once per pass.
//!
//! Two ways, as fio's `random_generator` picks: a bitmap of the blocks done this pass (a draw
//! that lands on a done block moves to the next free one, and an I/O longer than one block is
//! cut at the first done block it would cover, as fio's `mark_random_map` cuts it), or a
//! maximal-length LFSR whose sequence is itself a permutation of the blocks (no memory, and no
//! cut: every draw is a fresh block).

/// fio's `random_generator`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Generator {
    /// fio's default (a 32-bit Tausworthe there; diskdash draws from splitmix64 either way).
    #[default]
    Tausworthe,
    /// A maximal-length LFSR: each block once per period, no map.
    Lfsr,
    /// fio's 64-bit Tausworthe, for regions past 2^32 blocks (the same draws here).
    Tausworthe64,
}

impl Generator {
    /// fio's spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tausworthe => "tausworthe",
            Self::Lfsr => "lfsr",
            Self::Tausworthe64 => "tausworthe64",
        }
    }

    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "tausworthe" => Some(Self::Tausworthe),
            "lfsr" => Some(Self::Lfsr),
            "tausworthe64" => Some(Self::Tausworthe64),
            _ => None,
        }
    }
}

/// The blocks of one region done this pass.
#[derive(Debug, Clone)]
pub struct Bitmap {
    /// A bit per block; the bits past the last block are set (never free), so a word whose
    /// blocks are all done is `u64::MAX`.
    words: Vec<u64>,
    /// A bit per word of `words`, set when that word is full: the walk to the next free
    /// block, late in a pass, skips 64 full words per test instead of one.
    full: Vec<u64>,
    blocks: u64,
    /// Blocks set this pass.
    done: u64,
    /// A claim found the map full and started a new pass (see [`Self::take_wrap`]).
    wrapped: bool,
}

impl Bitmap {
    /// A map of `blocks` blocks (one bit each), all free.
    #[must_use]
    pub fn new(blocks: u64) -> Self {
        let blocks = blocks.max(1);
        let words = usize::try_from(blocks.div_ceil(64)).unwrap_or(usize::MAX);
        let mut map = Self {
            words: vec![0; words],
            full: vec![0; words.div_ceil(64)],
            blocks,
            done: 0,
            wrapped: false,
        };
        map.pad();
        map
    }

    /// Bytes the map holds (its summary of full words, a 64th of that, left out).
    #[must_use]
    pub fn bytes(blocks: u64) -> u64 {
        blocks.div_ceil(64) * 8
    }

    /// Sets the bits past the last block (none when the blocks fill the last word).
    fn pad(&mut self) {
        let used = self.blocks % 64;
        if used != 0
            && let Some(last) = self.words.len().checked_sub(1)
        {
            self.store(last, self.words[last] | (u64::MAX << used));
        }
    }

    /// Writes word `index`, marking it in the summary when it is full.
    #[inline(always)]
    fn store(&mut self, index: usize, word: u64) {
        self.words[index] = word;
        if word == u64::MAX {
            self.full[index / 64] |= 1 << (index % 64);
        }
    }

    /// The first word in `from..to` with a free block, by the summary.
    fn open_word(&self, from: usize, to: usize) -> Option<usize> {
        if from >= to {
            return None;
        }
        let mut at = from / 64;
        // Words below `from` in its summary word count as full.
        let mut open = !self.full[at] & (u64::MAX << (from % 64));
        loop {
            if open != 0 {
                let word = at * 64 + open.trailing_zeros() as usize;
                return (word < to).then_some(word);
            }
            at += 1;
            if at * 64 >= to {
                return None;
            }
            open = !self.full[at];
        }
    }

    #[inline]
    fn is_set(&self, block: u64) -> bool {
        self.words[(block / 64) as usize] & (1 << (block % 64)) != 0
    }

    /// The first free block at or after `from`, wrapping to the start; `None`: all done.
    #[inline]
    fn next_free(&self, from: u64) -> Option<u64> {
        if self.done >= self.blocks {
            return None;
        }
        let first = (from / 64) as usize;
        // The first word without the bits below `from`, then the words after it, wrapping.
        let masked = self.words[first] | ((1u64 << (from % 64)) - 1);
        if masked != u64::MAX {
            let block = first as u64 * 64 + u64::from((!masked).trailing_zeros());
            if block < self.blocks {
                return Some(block);
            }
        }
        // The words after `first`, then from the start up to `first` itself (whole), found
        // through the summary of full words: late in a pass this walk was most of the I/O's
        // cost, a word at a time. The bits past the last block are set, so a word that is
        // not full has a free block.
        let index = self
            .open_word(first + 1, self.words.len())
            .or_else(|| self.open_word(0, first + 1))?;
        Some(index as u64 * 64 + u64::from((!self.words[index]).trailing_zeros()))
    }

    /// Claims `want` blocks from `block` (or, when it is done, from the next free block),
    /// stopping at the first done block or the region's end: returns the first block and how
    /// many were claimed (at least 1). A full map starts the next pass first.
    #[inline(always)]
    pub fn claim(&mut self, block: u64, want: u64) -> (u64, u64) {
        // One block on a free bit (most of a pass): set it, no walk, no call.
        if want <= 1 && block < self.blocks {
            let (index, bit) = ((block / 64) as usize, 1u64 << (block % 64));
            let word = self.words[index];
            if word & bit == 0 {
                self.store(index, word | bit);
                self.done += 1;
                return (block, 1);
            }
            // A done block with a free one after it in its word (what `next_free` finds
            // first): that one, still without the walk's call.
            let free = !(word | (bit - 1));
            let found = index as u64 * 64 + u64::from(free.trailing_zeros());
            if free != 0 && found < self.blocks {
                self.store(index, word | (free & free.wrapping_neg()));
                self.done += 1;
                return (found, 1);
            }
            return self.claim_past(block);
        }
        self.claim_walk(block, want)
    }

    /// [`Self::claim`] of one block when the drawn `block`'s word has no free block at or
    /// after it: the first free block of the next open word (wrapping, that word itself
    /// whole last), as [`Self::next_free`] finds it, claimed at once (no second test of
    /// its bit). A full map starts the next pass at `block`. Out of line (about 1 claim in
    /// 9 of a pass).
    #[inline(never)]
    fn claim_past(&mut self, block: u64) -> (u64, u64) {
        let first = (block / 64) as usize;
        let Some(index) = self
            .open_word(first + 1, self.words.len())
            .or_else(|| self.open_word(0, first + 1))
        else {
            // Every block is done (the padding past the last is set): a new pass.
            self.reset();
            self.wrapped = true;
            self.store(first, self.words[first] | 1 << (block % 64));
            self.done = 1;
            return (block, 1);
        };
        let word = self.words[index];
        let free = !word;
        self.store(index, word | (free & free.wrapping_neg()));
        self.done += 1;
        (index as u64 * 64 + u64::from(free.trailing_zeros()), 1)
    }

    /// [`Self::claim`] of several blocks, or from a done one: out of line.
    #[inline(never)]
    fn claim_walk(&mut self, block: u64, want: u64) -> (u64, u64) {
        let start = if self.is_set(block) {
            match self.next_free(block) {
                Some(free) => free,
                None => {
                    self.reset();
                    self.wrapped = true;
                    block
                }
            }
        } else {
            block
        };
        let mut count = 0;
        let mut at = start;
        while count < want.max(1) && at < self.blocks && !self.is_set(at) {
            let index = (at / 64) as usize;
            self.store(index, self.words[index] | 1 << (at % 64));
            at += 1;
            count += 1;
        }
        self.done += count;
        (start, count)
    }

    /// Every block is done: the next claim starts a new pass.
    #[cfg(test)]
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.done >= self.blocks
    }

    /// Whether a claim started a new pass (found every block done) since the last call:
    /// kept off the claim's fast path, which never finds the map full.
    pub fn take_wrap(&mut self) -> bool {
        std::mem::take(&mut self.wrapped)
    }

    /// A new pass: every block free again.
    pub fn reset(&mut self) {
        self.words.fill(0);
        self.full.fill(0);
        self.pad();
        self.done = 0;
    }
}

/// Feedback taps of a maximal-length LFSR per register width (bit positions, 1-based), from
/// Xilinx's application note XAPP052 ("Efficient Shift Registers, LFSR Counters, and Long
/// Pseudo-Random Sequence Generators", table 3). Index: width - 2.
const TAPS: [&[u8]; 63] = [
    &[2, 1],
    &[3, 2],
    &[4, 3],
    &[5, 3],
    &[6, 5],
    &[7, 6],
    &[8, 6, 5, 4],
    &[9, 5],
    &[10, 7],
    &[11, 9],
    &[12, 6, 4, 1],
    &[13, 4, 3, 1],
    &[14, 5, 3, 1],
    &[15, 14],
    &[16, 15, 13, 4],
    &[17, 14],
    &[18, 11],
    &[19, 6, 2, 1],
    &[20, 17],
    &[21, 19],
    &[22, 21],
    &[23, 18],
    &[24, 23, 22, 17],
    &[25, 22],
    &[26, 6, 2, 1],
    &[27, 5, 2, 1],
    &[28, 25],
    &[29, 27],
    &[30, 6, 4, 1],
    &[31, 28],
    &[32, 22, 2, 1],
    &[33, 20],
    &[34, 27, 2, 1],
    &[35, 33],
    &[36, 25],
    &[37, 5, 4, 3, 2, 1],
    &[38, 6, 5, 1],
    &[39, 35],
    &[40, 38, 21, 19],
    &[41, 38],
    &[42, 41, 20, 19],
    &[43, 42, 38, 37],
    &[44, 43, 18, 17],
    &[45, 44, 42, 41],
    &[46, 45, 26, 25],
    &[47, 42],
    &[48, 47, 21, 20],
    &[49, 40],
    &[50, 49, 24, 23],
    &[51, 50, 36, 35],
    &[52, 49],
    &[53, 52, 38, 37],
    &[54, 53, 18, 17],
    &[55, 31],
    &[56, 55, 35, 34],
    &[57, 50],
    &[58, 39],
    &[59, 58, 38, 37],
    &[60, 59],
    &[61, 60, 46, 45],
    &[62, 61, 6, 5],
    &[63, 62],
    &[64, 63, 61, 60],
];

/// A Galois LFSR over the smallest width whose period (2^w - 1) covers the blocks: its states
/// 1..=2^w-1 each come once per period; state s is block s - 1, and states past the region
/// are skipped (fewer than half of them, so under one skip per draw on average).
#[derive(Debug, Clone)]
pub struct Lfsr {
    state: u64,
    mask: u64,
    blocks: u64,
}

impl Lfsr {
    /// Over `blocks` blocks, starting at a state picked by `seed`.
    #[must_use]
    pub fn new(blocks: u64, seed: u64) -> Self {
        let blocks = blocks.max(1);
        // Width w with 2^w - 1 >= blocks, at least 2.
        let width = (64 - blocks.leading_zeros()).clamp(2, 64);
        let mask = TAPS[(width - 2) as usize]
            .iter()
            .fold(0u64, |mask, tap| mask | (1 << (tap - 1)));
        let period = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        let mut lfsr = Self {
            state: 1,
            mask,
            blocks,
        };
        // Any state of the cycle starts it; one inside the region keeps the skip count even.
        lfsr.state = seed % period.min(blocks) + 1;
        lfsr
    }

    /// The next block of the permutation.
    #[inline]
    pub fn next_block(&mut self) -> u64 {
        loop {
            let lsb = self.state & 1;
            self.state = (self.state >> 1) ^ (lsb.wrapping_neg() & self.mask);
            if self.state <= self.blocks {
                return self.state - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lfsr_taps_give_the_full_period_for_small_widths() {
        // Exhaustive: the register returns to its first state after exactly 2^w - 1 steps.
        for width in 2u32..=20 {
            let period = (1u64 << width) - 1;
            let mut lfsr = Lfsr::new(period, 0);
            let first = lfsr.state;
            let mut steps = 0u64;
            loop {
                lfsr.next_block();
                steps += 1;
                if lfsr.state == first {
                    break;
                }
                assert!(steps <= period, "width {width} runs past its period");
            }
            assert_eq!(steps, period, "width {width}");
        }
    }

    #[test]
    fn lfsr_taps_do_not_repeat_early_for_wide_registers() {
        // Too long to run out: the first 200,000 states of each wider register are distinct
        // (sorted and compared with their neighbours: a hash set took 13 s of a debug build).
        for width in 21u32..=64 {
            let blocks = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let mut lfsr = Lfsr::new(blocks, 12345);
            let mut states: Vec<u64> = (0..200_000).map(|_| lfsr.next_block()).collect();
            states.sort_unstable();
            if let Some(pair) = states.windows(2).find(|pair| pair[0] == pair[1]) {
                panic!("width {width} repeats {}", pair[0]);
            }
        }
    }

    #[test]
    fn lfsr_visits_every_block_once_per_pass() {
        for blocks in [1u64, 2, 3, 5, 64, 100, 1000, 4097, 65_537] {
            for seed in [0, 7, 99_999] {
                let mut lfsr = Lfsr::new(blocks, seed);
                let mut first_pass = vec![0u32; blocks as usize];
                let order: Vec<u64> = (0..blocks).map(|_| lfsr.next_block()).collect();
                for &block in &order {
                    first_pass[block as usize] += 1;
                }
                assert!(first_pass.iter().all(|&n| n == 1), "{blocks} {seed}");
                // The next pass is the same permutation again.
                let again: Vec<u64> = (0..blocks).map(|_| lfsr.next_block()).collect();
                assert_eq!(order, again, "{blocks} {seed}");
            }
        }
    }

    #[test]
    fn next_free_finds_what_a_wrapping_walk_finds() {
        // The walk as first written: one modulo per word, wrapping back to `first`.
        fn reference(map: &Bitmap, from: u64) -> Option<u64> {
            if map.done >= map.blocks {
                return None;
            }
            let words = map.words.len();
            let first = (from / 64) as usize;
            let masked = map.words[first] | ((1u64 << (from % 64)) - 1);
            if masked != u64::MAX {
                let block = first as u64 * 64 + u64::from((!masked).trailing_zeros());
                if block < map.blocks {
                    return Some(block);
                }
            }
            (1..=words).find_map(|step| {
                let index = (first + step) % words;
                let word = map.words[index];
                (word != u64::MAX)
                    .then(|| index as u64 * 64 + u64::from((!word).trailing_zeros()))
                    .filter(|block| *block < map.blocks)
            })
        }
        let mut state = 7u64;
        for blocks in [1u64, 5, 63, 64, 65, 130, 1000, 4096] {
            let mut map = Bitmap::new(blocks);
            while !map.is_full() {
                for _ in 0..8 {
                    let from = crate::bench::kinds::splitmix64(&mut state) % blocks;
                    assert_eq!(
                        map.next_free(from),
                        reference(&map, from),
                        "{blocks} {from}"
                    );
                }
                let block = crate::bench::kinds::splitmix64(&mut state) % blocks;
                map.claim(block, 1 + crate::bench::kinds::splitmix64(&mut state) % 3);
            }
            for from in 0..blocks {
                assert_eq!(map.next_free(from), None);
                assert_eq!(reference(&map, from), None);
            }
        }
    }

    /// Maps over more than one summary word (64 words of 64 blocks each): the next free
    /// block, wrapping, is a model's, whatever the region's size, through several passes.
    #[test]
    fn the_summary_of_full_words_finds_the_model_s_next_free_block() {
        let mut rng = 11u64;
        for blocks in [4_095u64, 4_096, 4_097, 9_000, 12_288] {
            let mut map = Bitmap::new(blocks);
            let mut done = vec![false; blocks as usize];
            let mut done_count = 0u64;
            for claim in 0..blocks * 5 / 2 {
                let from = crate::bench::kinds::splitmix64(&mut rng) % blocks;
                let model = (from..blocks).chain(0..from).find(|&b| !done[b as usize]);
                assert_eq!(map.next_free(from), model, "{blocks} blocks, claim {claim}");
                let want = 1 + u64::from(claim % 5 == 0) * 7;
                let (at, count) = map.claim(from, want);
                if model.is_none() {
                    done.iter_mut().for_each(|d| *d = false);
                    done_count = 0;
                }
                for block in at..at + count {
                    assert!(
                        !done[block as usize],
                        "{blocks}: block {block} twice in a pass"
                    );
                    done[block as usize] = true;
                }
                done_count += count;
                assert_eq!(map.done, done_count);
            }
        }
    }

    #[test]
    fn bitmap_claims_each_block_once_then_starts_a_new_pass() {
        let mut map = Bitmap::new(130);
        let mut seen = vec![0u32; 130];
        // Every draw at block 5: the map hands out the next free block each time.
        for _ in 0..130 {
            let (block, count) = map.claim(5, 1);
            assert_eq!(count, 1);
            seen[block as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
        assert!(!map.take_wrap(), "the first pass began no new one");
        assert_eq!(map.claim(5, 1), (5, 1), "a full map starts the next pass");
        assert!(
            map.take_wrap(),
            "the claim that found the map full began a pass"
        );
        assert!(!map.take_wrap(), "said once");
    }

    #[test]
    fn single_block_claims_follow_the_model_of_a_pass() {
        // A model: one flag per block; a done block moves to the next free one (wrapping),
        // a full map starts a new pass at the drawn block.
        let blocks = 300u64;
        let mut map = Bitmap::new(blocks);
        let mut done = vec![false; blocks as usize];
        let mut rng = 7u64;
        for i in 0..2_000 {
            let block = crate::bench::kinds::splitmix64(&mut rng) % blocks;
            let want = i % 2;
            let expected = if !done[block as usize] {
                block
            } else if let Some(free) = (block..blocks).chain(0..block).find(|&b| !done[b as usize])
            {
                free
            } else {
                done.iter_mut().for_each(|d| *d = false);
                block
            };
            done[expected as usize] = true;
            assert_eq!(map.claim(block, want), (expected, 1), "draw {i} at {block}");
            assert_eq!(map.is_full(), done.iter().all(|&d| d), "draw {i}");
        }
    }

    #[test]
    fn bitmap_cuts_a_long_io_at_the_first_done_block_and_the_end() {
        let mut map = Bitmap::new(100);
        assert_eq!(map.claim(10, 1), (10, 1));
        assert_eq!(map.claim(6, 16), (6, 4), "stops before block 10");
        assert_eq!(map.claim(95, 16), (95, 5), "stops at the region's end");
        assert_eq!(
            map.claim(10, 3),
            (11, 3),
            "a done block moves to the next free one"
        );
    }

    #[test]
    fn generators_parse_fios_names() {
        for generator in [
            Generator::Tausworthe,
            Generator::Lfsr,
            Generator::Tausworthe64,
        ] {
            assert_eq!(Generator::parse(generator.as_str()), Some(generator));
        }
        assert_eq!(Generator::parse("mt"), None);
    }
}
