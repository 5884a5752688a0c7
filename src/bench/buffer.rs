//! Aligned I/O memory: one allocation per worker, `slots` buffers of `block_size` bytes each,
//! aligned to 4 KiB so O_DIRECT accepts it on any device (logical blocks are at most 4 KiB).

use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};

/// Alignment of every buffer: the page size, which covers any logical block size.
pub const BUFFER_ALIGN_BYTES: usize = 4096;

/// A transparent huge page on x86-64 and arm64 (4 KiB base pages).
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// Bytes filled between two looks at the stop flag (a multiple of 8: the same bytes as one pass).
const FILL_STEP_BYTES: usize = 16 << 20;

/// Bytes faulted in between two looks at the stop flag before io_uring's buffer registration
/// (a multiple of the huge page: a step never splits one).
const POPULATE_STEP_BYTES: usize = 64 << 20;

/// The pages the buffers live in (from fio's `iomem`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pages {
    /// 4 KiB-aligned, no advice: what fio's `iomem=malloc` gets.
    Plain,
    /// A pool of 2 MiB or more is 2 MiB-aligned and asks for transparent huge pages.
    Huge,
}

/// `slots` contiguous buffers of `block_size_bytes`, each starting on a 4 KiB boundary.
pub struct AlignedBuffers {
    /// The first buffer: `base` rounded up to the pool's alignment.
    ptr: NonNull<u8>,
    /// The mapping, unmapped on drop.
    base: *mut u8,
    map_bytes: usize,
    /// Bytes from `ptr` owned by the buffers.
    bytes: usize,
    stride_bytes: usize,
    slots: usize,
}

// SAFETY: the allocation is owned exclusively by this value; moving it to another thread moves
// ownership with it.
unsafe impl Send for AlignedBuffers {}

impl AlignedBuffers {
    /// Maps zeroed buffers, then fills them with pseudo-random bytes so written data does
    /// not compress or deduplicate to nothing.
    pub fn new(slots: usize, block_size_bytes: usize, seed: u64) -> anyhow::Result<Self> {
        let mut buffers = Self::mapped(slots, block_size_bytes, Pages::Huge)?;
        fill_random(buffers.as_mut_slice(), seed);
        Ok(buffers)
    }

    /// Zeroed buffers that stay zeros (fio's `zero_buffers`), written once so each is a page
    /// of its own: an O_DIRECT write from a page never touched would send the kernel's one
    /// shared zero page.
    pub fn new_zeroed(slots: usize, block_size_bytes: usize, pages: Pages) -> anyhow::Result<Self> {
        let mut buffers = Self::mapped(slots, block_size_bytes, pages)?;
        buffers.as_mut_slice().fill(0);
        Ok(buffers)
    }

    /// Buffers for a job that writes no data, left untouched as fio leaves its read buffers:
    /// the first I/Os (or io_uring's buffer registration) fault the pages in.
    pub fn untouched(slots: usize, block_size_bytes: usize, pages: Pages) -> anyhow::Result<Self> {
        Self::mapped(slots, block_size_bytes, pages)
    }

    /// Like [`AlignedBuffers::new`], but gives up (`None`) once `stop` is raised: filling
    /// gigabytes of buffers (`--bs 256M -q 32`) takes seconds.
    pub fn new_unless(
        slots: usize,
        block_size_bytes: usize,
        seed: u64,
        pages: Pages,
        stop: &AtomicBool,
    ) -> anyhow::Result<Option<Self>> {
        let mut buffers = Self::mapped(slots, block_size_bytes, pages)?;
        let mut state = seed;
        for step in buffers.as_mut_slice().chunks_mut(FILL_STEP_BYTES) {
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            fill_random_from(step, &mut state);
        }
        Ok(Some(buffers))
    }

    fn mapped(slots: usize, block_size_bytes: usize, pages: Pages) -> anyhow::Result<Self> {
        let stride_bytes = block_size_bytes.div_ceil(BUFFER_ALIGN_BYTES) * BUFFER_ALIGN_BYTES;
        let total = stride_bytes.checked_mul(slots.max(1)).ok_or_else(|| {
            anyhow::anyhow!("I/O buffers of {slots} x {block_size_bytes} bytes overflow")
        })?;
        // Pools of 2 MiB or more are aligned to 2 MiB and offered to transparent huge pages
        // before first touch: registered io_uring buffers are handed to the block layer one
        // bvec per page, so a 1 MiB I/O over 4 KiB pages needs 256 segments and is split in
        // two on devices that take fewer (virtio: 254). Huge folios make it a few segments.
        // The advice must come before the first write: pages faulted in before it stay 4 KiB
        // until khugepaged gets to them, if ever. Plain pages (fio's iomem=malloc) get
        // neither the alignment nor the advice.
        let align = if pages == Pages::Huge && total >= HUGE_PAGE_BYTES {
            HUGE_PAGE_BYTES
        } else {
            BUFFER_ALIGN_BYTES
        };
        // A mapping of its own, as glibc's malloc gives fio's buffers (anything over its mmap
        // threshold): fresh zero pages, faulted in at first touch. Through the allocator the
        // pool could land in a heap (glibc raises the threshold once a large block is freed),
        // among pages other allocations touched and left.
        let map_bytes = total
            .checked_add(align - BUFFER_ALIGN_BYTES)
            .ok_or_else(|| anyhow::anyhow!("I/O buffers of {total} bytes overflow"))?;
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing touches
        // no existing memory; the result is checked before use.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            anyhow::bail!(
                "cannot map {total} bytes of I/O buffers: {}",
                std::io::Error::last_os_error()
            );
        }
        let offset = (base as usize).next_multiple_of(align) - base as usize;
        // SAFETY: offset < align and map_bytes = total + align - 4 KiB with a page-aligned
        // base, so offset + total stays inside the mapping.
        let ptr = NonNull::new(unsafe { base.cast::<u8>().add(offset) })
            .ok_or_else(|| anyhow::anyhow!("cannot map {total} bytes of I/O buffers"))?;
        if align == HUGE_PAGE_BYTES {
            // SAFETY: advice on a range this value owns; MADV_HUGEPAGE changes no contents, and
            // a refusal (THP off) only leaves the 4 KiB pages in place.
            unsafe {
                libc::madvise(ptr.as_ptr().cast(), total, libc::MADV_HUGEPAGE);
            }
        }
        Ok(Self {
            ptr,
            base: base.cast(),
            map_bytes,
            bytes: total,
            stride_bytes,
            slots: slots.max(1),
        })
    }

    /// Faults the pool's pages in ahead of io_uring's buffer registration, which faults a
    /// pool it finds untouched in one call that cannot see the stop flag (2 GiB for `--bs 64M
    /// -q 32`): [`POPULATE_STEP_BYTES`] at a time with `MADV_POPULATE_WRITE`, the write
    /// faults registration makes (zeroed pages, huge where the pool asked for them; written
    /// pages stay as they are), looking at `stop` before each step. False: stopped. A kernel
    /// without it (before 5.14: EINVAL), or one that refuses a step, leaves the rest to the
    /// registration, as without this.
    pub fn populate_unless(&self, stop: &AtomicBool) -> bool {
        let mut offset = 0;
        while offset < self.bytes {
            if stop.load(Ordering::Relaxed) {
                return false;
            }
            let len = POPULATE_STEP_BYTES.min(self.bytes - offset);
            // SAFETY: `offset + len` stays within the `bytes` this value owns from `ptr`, which
            // is page-aligned, as `offset` (a multiple of the step) keeps it; MADV_POPULATE_WRITE
            // only faults pages in, writable, without changing what they hold.
            let rc = unsafe {
                libc::madvise(
                    self.ptr.as_ptr().add(offset).cast(),
                    len,
                    libc::MADV_POPULATE_WRITE,
                )
            };
            if rc != 0 {
                break;
            }
            offset += len;
        }
        !stop.load(Ordering::Relaxed)
    }

    /// Start of slot `index`'s buffer.
    #[must_use]
    pub fn slot_ptr(&self, index: usize) -> *mut u8 {
        debug_assert!(index < self.slots);
        // SAFETY: index < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.as_ptr().add(index * self.stride_bytes) }
    }

    /// One iovec per slot, for io_uring buffer registration.
    #[must_use]
    pub fn iovecs(&self, block_size_bytes: usize) -> Vec<libc::iovec> {
        (0..self.slots)
            .map(|i| libc::iovec {
                iov_base: self.slot_ptr(i).cast(),
                iov_len: block_size_bytes,
            })
            .collect()
    }

    #[must_use]
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The whole allocation.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr starts `bytes` bytes of a live mapping owned by self, initialised (an
        // anonymous mapping reads as zeros), and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.bytes) }
    }
}

impl Drop for AlignedBuffers {
    fn drop(&mut self) {
        // SAFETY: base and map_bytes are exactly the mapping made in `mapped`, unmapped once;
        // nothing borrows from it past this value's life.
        unsafe {
            libc::munmap(self.base.cast(), self.map_bytes);
        }
    }
}

/// Fills with splitmix64 output: fast, incompressible enough for a disk.
pub fn fill_random(bytes: &mut [u8], seed: u64) {
    let mut state = seed;
    fill_random_from(bytes, &mut state);
}

/// Continues the sequence from `state` (split at multiples of 8 bytes, it fills the same bytes).
/// [`fill_random`] going on from `state` (a stream across calls).
pub fn fill_random_from(bytes: &mut [u8], state: &mut u64) {
    for chunk in bytes.chunks_mut(8) {
        let word = crate::bench::kinds::splitmix64(state).to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
}

/// How fio's `dedupe_mode` picks the earlier block a deduplicable write repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DedupeMode {
    /// The block written last before it that was not itself a repeat (fio's `repeat`).
    Repeat,
    /// Any of the first blocks of the job's stream, a working set of
    /// `dedupe_working_set_percentage` of the job's blocks (fio's `working_set`).
    WorkingSet,
}

/// What a write job's blocks hold, shaped to deduplicate and compress as asked (fio's
/// `dedupe_percentage`, `dedupe_mode`, `dedupe_working_set_percentage`,
/// `buffer_compress_percentage`, `buffer_compress_chunk`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Percent of written blocks that repeat an earlier block's bytes.
    pub dedupe_pct: u8,
    pub mode: DedupeMode,
    /// The working set, in percent of the job's blocks (`DedupeMode::WorkingSet`).
    pub working_set_pct: u8,
    /// Percent of each chunk that is zeros (the rest pseudo-random): a compressor keeps about
    /// `100 - compress_pct` percent.
    pub compress_pct: u8,
    /// Bytes in each compressible chunk (fio's default: 512); 0: the whole block.
    pub chunk_bytes: u32,
}

/// Fills write blocks by a [`Shape`]: each block is made from one seed, so a repeat of an
/// earlier block is the same seed again.
#[derive(Debug, Clone)]
pub struct Shaper {
    shape: Shape,
    /// The stream of unique seeds: block `k` not a repeat is made from `unique(base, k)`.
    base: u64,
    /// Unique blocks made so far.
    made: u64,
    /// The working set's blocks (at least 1).
    working_set: u64,
    /// Draws: repeat or not, and which block of the working set.
    draw: u64,
}

impl Shaper {
    /// A shaper for a worker whose region holds `blocks` blocks, its streams seeded from `seed`.
    #[must_use]
    pub fn new(shape: Shape, blocks: u64, seed: u64) -> Self {
        let working_set =
            (u128::from(blocks) * u128::from(shape.working_set_pct.min(100)) / 100) as u64;
        Self {
            shape,
            base: seed ^ 0xD0D0_5EED_0000_0001,
            made: 0,
            working_set: working_set.max(1),
            draw: seed ^ 0x0DED_0FE0_0000_0002,
        }
    }

    fn unique(&self, index: u64) -> u64 {
        let mut state = self.base ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        crate::bench::kinds::splitmix64(&mut state)
    }

    /// Fills `block` with the next write's bytes.
    pub fn fill(&mut self, block: &mut [u8]) {
        let roll = crate::bench::kinds::splitmix64(&mut self.draw) % 100;
        let repeat = self.made > 0 && roll < u64::from(self.shape.dedupe_pct);
        let index = if repeat {
            match self.shape.mode {
                DedupeMode::Repeat => self.made - 1,
                DedupeMode::WorkingSet => {
                    crate::bench::kinds::splitmix64(&mut self.draw)
                        % self.working_set.min(self.made)
                }
            }
        } else {
            self.made += 1;
            self.made - 1
        };
        let mut state = self.unique(index);
        let chunk = match self.shape.chunk_bytes {
            0 => block.len(),
            n => n as usize,
        };
        for piece in block.chunks_mut(chunk.max(1)) {
            // Zeros at the end of each chunk, as fio's compressible buffers: random bytes
            // first, then the compressible rest.
            let zeros = piece.len() * usize::from(self.shape.compress_pct.min(100)) / 100;
            let random = piece.len() - zeros;
            fill_random_from(&mut piece[..random], &mut state);
            piece[random..].fill(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_aligned_and_filled() {
        let mut buffers = AlignedBuffers::new(3, 512, 7).unwrap();
        for i in 0..3 {
            assert_eq!(buffers.slot_ptr(i) as usize % BUFFER_ALIGN_BYTES, 0);
        }
        assert_eq!(buffers.iovecs(512).len(), 3);
        let bytes = buffers.as_mut_slice();
        assert_eq!(bytes.len(), 3 * 4096);
        assert!(bytes.iter().filter(|&&b| b == 0).count() < bytes.len() / 64);
    }

    /// The value of `field` (e.g. `AnonHugePages:`) in the mapping of `/proc/self/smaps` that
    /// holds `addr`.
    fn smaps_field_at(addr: usize, field: &str) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((lo, hi)) = first.split_once('-')
                && let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = (lo..hi).contains(&addr);
            } else if inside && let Some(rest) = line.strip_prefix(field) {
                return Some(rest.trim().to_string());
            }
        }
        None
    }

    /// Kilobytes of `AnonHugePages` in the mapping that holds `addr`.
    fn huge_kib_at(addr: usize) -> Option<u64> {
        smaps_field_at(addr, "AnonHugePages:")?
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    }

    /// With transparent huge pages on (`madvise` or `always`), a pool of 2 MiB or more is
    /// backed by huge pages from its first touch, not left in 4 KiB pages.
    #[test]
    #[ignore = "needs transparent huge pages (madvise or always)"]
    fn a_large_pool_gets_huge_pages_where_the_kernel_offers_them() {
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        assert!(
            mode.contains("[madvise]") || mode.contains("[always]"),
            "transparent huge pages are off here ({}): this test needs madvise or always",
            mode.trim()
        );
        let buffers = AlignedBuffers::new(8, 1 << 20, 3).unwrap();
        let huge = huge_kib_at(buffers.slot_ptr(0) as usize).expect("the pool's mapping");
        // The kernel may lack a free 2 MiB page now and then; most of the pool is enough.
        assert!(huge >= 4 << 10, "{huge} KiB of 8 MiB in huge pages");
    }

    /// The `VmFlags` of the mapping that holds `addr`.
    fn vm_flags_at(addr: usize) -> Option<Vec<String>> {
        let flags = smaps_field_at(addr, "VmFlags:")?;
        Some(flags.split_whitespace().map(str::to_string).collect())
    }

    /// Resident pages of `len` bytes from `ptr` (mincore).
    fn resident_pages(ptr: *mut u8, len: usize) -> usize {
        let mut vec = vec![0u8; len.div_ceil(4096)];
        // SAFETY: ptr is page-aligned and `len` bytes of it are mapped (a live buffer pool);
        // vec has one byte per page of the range.
        let rc = unsafe { libc::mincore(ptr.cast(), len, vec.as_mut_ptr()) };
        assert_eq!(rc, 0, "mincore: {}", std::io::Error::last_os_error());
        vec.iter().filter(|&&b| b & 1 == 1).count()
    }

    /// A job that writes no data leaves its pool to its first I/Os (as fio does); zero and
    /// filled pools are written, so each page is its own (not the shared zero page).
    #[test]
    fn untouched_pools_have_no_pages_until_used_and_written_ones_have_all() {
        let len = 8 << 20;
        let untouched = AlignedBuffers::untouched(8, 1 << 20, Pages::Plain).unwrap();
        assert_eq!(resident_pages(untouched.slot_ptr(0), len), 0);
        let zeroed = AlignedBuffers::new_zeroed(8, 1 << 20, Pages::Plain).unwrap();
        assert_eq!(resident_pages(zeroed.slot_ptr(0), len), len / 4096);
        let filled = AlignedBuffers::new(8, 1 << 20, 3).unwrap();
        assert!(resident_pages(filled.slot_ptr(0), len) > 0);
        assert!(
            filled.slot_ptr(0) as usize % HUGE_PAGE_BYTES == 0,
            "a huge pool is 2 MiB-aligned"
        );
        let mut zeroed = zeroed;
        assert!(zeroed.as_mut_slice().iter().all(|&b| b == 0));
    }

    /// Populating ahead of io_uring's registration leaves the pages registration leaves: every
    /// one resident, zeros, huge where registration's are; a raised stop flag faults nothing.
    #[test]
    fn a_populated_pool_has_the_pages_registration_gives_and_a_stop_populates_none() {
        let (slots, bs) = (4, 1 << 20);
        let len = slots * bs;
        let stop = AtomicBool::new(false);
        let mut populated = AlignedBuffers::untouched(slots, bs, Pages::Huge).unwrap();
        assert!(populated.populate_unless(&stop));
        assert_eq!(resident_pages(populated.slot_ptr(0), len), len / 4096);
        let registered = AlignedBuffers::untouched(slots, bs, Pages::Huge).unwrap();
        let ring = io_uring::IoUring::new(4).expect("an io_uring");
        // SAFETY: the iovecs describe `registered`, which outlives the ring (dropped first).
        unsafe { ring.submitter().register_buffers(&registered.iovecs(bs)) }
            .expect("buffer registration");
        assert_eq!(resident_pages(registered.slot_ptr(0), len), len / 4096);
        let huge = |b: &AlignedBuffers| huge_kib_at(b.slot_ptr(0) as usize).expect("a mapping");
        if huge(&registered) > 0 {
            assert!(
                huge(&populated) > 0,
                "registration got huge pages, populating none"
            );
        }
        drop(ring);
        assert!(populated.as_mut_slice().iter().all(|&b| b == 0));
        // Written pages keep their bytes.
        let mut filled = AlignedBuffers::new(slots, bs, 5).unwrap();
        let before = filled.as_mut_slice().to_vec();
        assert!(filled.populate_unless(&stop));
        assert_eq!(filled.as_mut_slice(), &before[..]);
        // Stopped: nothing faulted in, and it says so.
        stop.store(true, Ordering::Relaxed);
        let stopped = AlignedBuffers::untouched(slots, bs, Pages::Plain).unwrap();
        assert!(!stopped.populate_unless(&stop));
        assert_eq!(resident_pages(stopped.slot_ptr(0), len), 0);
    }

    /// fio's iomem=malloc: a large pool is not advised to huge pages (no `hg` in its
    /// mapping's flags), and where the kernel gives huge pages only on advice it has none;
    /// the huge default asks for them (`hg`).
    #[test]
    fn plain_pages_ask_for_no_huge_pages_and_huge_ones_do() {
        let plain = AlignedBuffers::new_zeroed(8, 1 << 20, Pages::Plain).unwrap();
        let huge = AlignedBuffers::new_zeroed(8, 1 << 20, Pages::Huge).unwrap();
        let plain_flags = vm_flags_at(plain.slot_ptr(0) as usize).expect("the plain mapping");
        let huge_flags = vm_flags_at(huge.slot_ptr(0) as usize).expect("the huge mapping");
        assert!(
            !plain_flags.iter().any(|f| f == "hg"),
            "plain buffers advised: {plain_flags:?}"
        );
        assert!(
            huge_flags.iter().any(|f| f == "hg"),
            "huge buffers not advised: {huge_flags:?}"
        );
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if !mode.contains("[always]") {
            let kib = huge_kib_at(plain.slot_ptr(0) as usize).expect("the plain mapping");
            assert_eq!(kib, 0, "plain buffers in huge pages ({})", mode.trim());
        }
    }

    #[test]
    fn a_stoppable_fill_writes_the_same_bytes_or_gives_up() {
        let slots = (FILL_STEP_BYTES * 2 + 4096) / 4096;
        let mut whole = AlignedBuffers::new(slots, 4096, 9).unwrap();
        let go = AtomicBool::new(false);
        let mut stepped = AlignedBuffers::new_unless(slots, 4096, 9, Pages::Huge, &go)
            .unwrap()
            .unwrap();
        assert!(whole.as_mut_slice() == stepped.as_mut_slice());
        let stop = AtomicBool::new(true);
        assert!(
            AlignedBuffers::new_unless(slots, 4096, 9, Pages::Plain, &stop)
                .unwrap()
                .is_none()
        );
    }

    /// Blocks of `block_len` bytes in `bytes`: how many repeat an earlier block, and the share
    /// of bytes that are zeros.
    fn measure(bytes: &[u8], block_len: usize) -> (f64, f64) {
        let mut seen = std::collections::HashSet::new();
        let blocks = bytes.len() / block_len;
        let repeats = bytes
            .chunks(block_len)
            .filter(|b| !seen.insert(b.to_vec()))
            .count();
        let zeros = bytes.iter().filter(|&&b| b == 0).count();
        (
            repeats as f64 / blocks as f64,
            zeros as f64 / bytes.len() as f64,
        )
    }

    fn shaped(shape: Shape, blocks: usize, seed: u64) -> Vec<u8> {
        let mut shaper = Shaper::new(shape, blocks as u64, seed);
        let mut out = vec![0xFFu8; blocks * 4096];
        for block in out.chunks_mut(4096) {
            shaper.fill(block);
        }
        out
    }

    /// dedupe_percentage: that share of blocks repeats an earlier one, in both modes;
    /// buffer_compress_percentage: that share of each chunk is zeros.
    #[test]
    fn shaped_blocks_dedupe_and_compress_as_asked() {
        for mode in [DedupeMode::Repeat, DedupeMode::WorkingSet] {
            for (dedupe, compress) in [(0u8, 0u8), (50, 50), (25, 75), (80, 10)] {
                let shape = Shape {
                    dedupe_pct: dedupe,
                    mode,
                    working_set_pct: 20,
                    compress_pct: compress,
                    chunk_bytes: 512,
                };
                let bytes = shaped(shape, 4000, 3);
                let (repeats, zeros) = measure(&bytes, 4096);
                assert!(
                    (repeats - f64::from(dedupe) / 100.0).abs() < 0.03,
                    "{mode:?} {dedupe}%: {repeats}"
                );
                assert!(
                    (zeros - f64::from(compress) / 100.0).abs() < 0.01,
                    "{compress}%: {zeros}"
                );
            }
        }
    }

    /// A working set's repeats come from its first blocks only; repeat mode's from the block
    /// before.
    #[test]
    fn repeats_come_from_the_working_set_or_the_last_block() {
        let shape = Shape {
            dedupe_pct: 60,
            mode: DedupeMode::WorkingSet,
            working_set_pct: 10,
            compress_pct: 0,
            chunk_bytes: 0,
        };
        let bytes = shaped(shape, 2000, 5);
        let blocks: Vec<&[u8]> = bytes.chunks(4096).collect();
        let distinct: std::collections::HashSet<&[u8]> = blocks.iter().copied().collect();
        // 40% unique of 2000 blocks; the repeats add none.
        assert!(
            (distinct.len() as f64 - 800.0).abs() < 60.0,
            "{}",
            distinct.len()
        );
        let first_unique: Vec<&[u8]> = {
            let mut seen = std::collections::HashSet::new();
            blocks
                .iter()
                .copied()
                .filter(|b| seen.insert(*b))
                .take(200)
                .collect()
        };
        let set: std::collections::HashSet<&[u8]> = first_unique.into_iter().collect();
        let mut seen = std::collections::HashSet::new();
        for block in &blocks {
            if !seen.insert(*block) {
                assert!(set.contains(block), "a repeat outside the working set");
            }
        }
        let repeat = Shape {
            mode: DedupeMode::Repeat,
            ..shape
        };
        let bytes = shaped(repeat, 500, 5);
        let blocks: Vec<&[u8]> = bytes.chunks(4096).collect();
        let mut last_unique: Option<&[u8]> = None;
        let mut seen = std::collections::HashSet::new();
        for block in blocks {
            if seen.insert(block) {
                last_unique = Some(block);
            } else {
                assert_eq!(Some(block), last_unique);
            }
        }
    }
}
