//! Which I/O comes next: offsets and the read/write mix of one worker.
//!
//! Sequential workers walk their own disjoint slice of the working set and wrap around;
//! random workers draw a deterministic stream (seeded by worker and step) over all of it.

use crate::bench::randmap::{Bitmap, Generator, Lfsr};
use crate::bench::spec::{Distribution, JobSpec, RwMode, Sequencer, StridedZones};
use crate::bench::zbd::{JobZones, Miss, SharedZones, ZbdZones};

pub use crate::bench::kinds::{Direction, splitmix64};

/// The offset and mix generator of one worker.
/// Zipf's items summed exactly up to here; the rest of the harmonic sum by its integral.
const ZIPF_EXACT_ITEMS: u64 = 1 << 20;

/// How a random block is drawn: the distribution with what it needs precomputed.
#[derive(Debug, Clone)]
enum Pick {
    Uniform,
    /// Gray et al.'s method ("Quickly generating billion-record synthetic databases", 1994),
    /// the one fio uses: rank 1 is the hottest; `scramble` spreads ranks over the region.
    Zipf {
        alpha: f64,
        zetan: f64,
        eta: f64,
        half_pow_theta: f64,
        scramble: u64,
    },
    /// fio's pareto: rank = (n - 1) * u^power, power = ln(h) / ln(1 - h).
    Pareto {
        power: f64,
        scramble: u64,
    },
    /// Gaussian around the middle, `sigma` blocks wide.
    Normal {
        sigma: f64,
    },
    /// fio's zoned: (cumulative percent of the I/O, first block, blocks) per zone (built
    /// once at setup).
    Zoned {
        zones: Box<[(u8, u64, u64)]>,
    },
}

/// The generalised harmonic number H(n, theta) = sum of i^-theta for i in 1..=n: exact for the
/// first [`ZIPF_EXACT_ITEMS`], the tail by the integral of x^-theta (its error is far below
/// the sampling noise of any run).
fn zeta(n: u64, theta: f64) -> f64 {
    let exact = n.min(ZIPF_EXACT_ITEMS);
    let head: f64 = (1..=exact).map(|i| (i as f64).powf(-theta)).sum();
    if n <= exact {
        return head;
    }
    let (a, b) = (exact as f64 + 0.5, n as f64 + 0.5);
    head + (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
}

/// An odd multiplier coprime with `n`: `rank * it mod n` is then a permutation of the ranks,
/// so the hot blocks are spread over the region instead of packed at its start (as fio hashes
/// them).
fn scrambler(n: u64) -> u64 {
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let mut m = (0x9E37_79B9_7F4A_7C15 % n.max(1)) | 1;
    while n > 1 && gcd(m, n) != 1 {
        m += 2;
    }
    m
}

impl Pick {
    fn new(distribution: Distribution, n: u64) -> Self {
        match distribution {
            Distribution::Uniform => Self::Uniform,
            Distribution::Zipf(theta) => {
                let zetan = zeta(n, theta);
                let zeta2 = zeta(2.min(n), theta);
                let nf = n as f64;
                Self::Zipf {
                    alpha: 1.0 / (1.0 - theta),
                    zetan,
                    eta: (1.0 - (2.0 / nf).powf(1.0 - theta)) / (1.0 - zeta2 / zetan),
                    half_pow_theta: 0.5f64.powf(theta),
                    scramble: scrambler(n),
                }
            }
            Distribution::Pareto(h) => Self::Pareto {
                power: h.ln() / (1.0 - h).ln(),
                scramble: scrambler(n),
            },
            Distribution::Normal(dev_pct) => Self::Normal {
                sigma: (n as f64 * dev_pct / 100.0).max(1.0),
            },
            Distribution::Zoned(list) => {
                let mut zones = Vec::with_capacity(list.list().len());
                let (mut io, mut size) = (0u8, 0u64);
                for &(io_pct, size_pct) in list.list() {
                    let start = (u128::from(n) * u128::from(size) / 100) as u64;
                    size += u64::from(size_pct);
                    let end = (u128::from(n) * u128::from(size) / 100) as u64;
                    io = io.saturating_add(io_pct);
                    let start = start.min(n - 1);
                    zones.push((io, start, end.saturating_sub(start).max(1).min(n - start)));
                }
                Self::Zoned {
                    zones: zones.into_boxed_slice(),
                }
            }
        }
    }

    /// A block in `0..n` from the random bits of `rng`.
    #[inline]
    fn block(&self, rng: &mut u64, n: u64) -> u64 {
        // A uniform in [0, 1) from the top 53 bits.
        let mut unit = || (splitmix64(rng) >> 11) as f64 / (1u64 << 53) as f64;
        match *self {
            Self::Uniform => ((u128::from(splitmix64(rng)) * u128::from(n)) >> 64) as u64,
            Self::Zipf {
                alpha,
                zetan,
                eta,
                half_pow_theta,
                scramble,
            } => {
                let u = unit();
                let uz = u * zetan;
                let rank = if uz < 1.0 {
                    0
                } else if uz < 1.0 + half_pow_theta {
                    1
                } else {
                    ((n as f64) * (eta * u - eta + 1.0).powf(alpha)) as u64
                };
                (u128::from(rank.min(n - 1)) * u128::from(scramble) % u128::from(n)) as u64
            }
            Self::Pareto { power, scramble } => {
                let rank = ((n - 1) as f64 * unit().powf(power)) as u64;
                (u128::from(rank.min(n - 1)) * u128::from(scramble) % u128::from(n)) as u64
            }
            Self::Zoned { ref zones } => {
                let draw = splitmix64(rng) % 100;
                let &(_, start, blocks) = zones
                    .iter()
                    .find(|(below, _, _)| draw < u64::from(*below))
                    .or(zones.last())
                    .expect("a zoned distribution has a zone");
                start + ((u128::from(splitmix64(rng)) * u128::from(blocks)) >> 64) as u64
            }
            Self::Normal { sigma } => {
                let middle = n as f64 / 2.0;
                // Box-Muller; draws outside the region are drawn again.
                loop {
                    let (u1, u2) = (unit().max(f64::MIN_POSITIVE), unit());
                    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                    let x = middle + z * sigma;
                    if x >= 0.0 && x < n as f64 {
                        return x as u64;
                    }
                }
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct Workload {
    pick: Pick,
    random: bool,
    read_pct: u8,
    /// The one direction of a job that has one (a read, write or trim job, not `trimwrite`):
    /// [`Self::direction`] without a draw or a test of the mode.
    only: Option<Direction>,
    /// The one length of every I/O of a job without `bssplit` (or with one size) that is not
    /// `trimwrite`: [`Self::len`] without a test of the sizes.
    one_len: Option<u32>,
    /// Offsets are multiples of this: the block size, the smallest of a `bssplit`, or a
    /// random job's `blockalign`.
    unit_bytes: u64,
    /// The shortest I/O: the block size, or the smallest of a `bssplit`.
    shortest_bytes: u64,
    /// Per direction (read, write): the sizes of a `bssplit` with their cumulative shares in
    /// percent (the last is 100); empty: every I/O is `unit_bytes`.
    sizes: [Vec<(u32, u8)>; 2],
    /// First byte of this worker's region.
    region_start_bytes: u64,
    /// Units in this worker's region (random workers: the whole working set).
    region_blocks: u64,
    /// Each direction's next sequential offset in the region, bytes (read, write, trim): the
    /// end of its last I/O, as fio's `last_pos[ddir]`. A mixed sequential job (`rw=rw`)
    /// walks the region once for its reads and once for its writes, each wrapping by itself.
    next_bytes: [u64; 3],
    /// The direction of the I/O being placed: its index into `next_bytes`.
    dir: usize,
    /// fio's `rw=MODE:N`: bytes skipped after each sequential I/O (negative: backwards).
    skip_bytes: i64,
    /// fio's `randMODE:N`: a random offset every this many I/Os (1: every I/O).
    random_every: u64,
    /// I/Os given, for `random_every`.
    given: u64,
    rng: u64,
    /// Discards: `trim`/`randtrim` only trim; `trimwrite` writes each trimmed range next.
    trims: Trims,
    /// `trimwrite`: the range just trimmed, to be written next (offset, length).
    pending_write: Option<(u64, u32)>,
    /// The last direction given was `pending_write`'s write.
    writing_pending: bool,
    /// A verifying job (`--verify`) walks its own region once per pass, each block once:
    /// sequentially, or for a random job in the order of a permutation (`rank * scramble mod
    /// n`), so a block read back holds what this worker wrote last.
    walk: Option<Walk>,
    /// A uniform random job's random map: each block once per pass (fio's default).
    cover: Cover,
    /// Blocks drawn from the LFSR, all passes.
    drawn: u64,
    /// The region was wrapped (a new pass began) since [`Self::take_wrap`] last looked.
    wrapped: bool,
    /// fio's `zonemode=strided`: the offsets above are inside the current zone.
    zones: Option<ZoneWalk>,
    /// fio's `zonemode=zbd`: the offsets above only aim; the zones' write pointers place.
    zbd: Option<ZbdWalk>,
}

/// A worker's I/O on emulated zones (fio's `zonemode=zbd`), see [`crate::bench::zbd`].
#[derive(Debug, Clone)]
struct ZbdWalk {
    shared: std::sync::Arc<SharedZones>,
    /// The zones of the job's region.
    span: std::ops::Range<usize>,
    zones: ZbdZones,
    /// The clone's index in its job.
    worker: u32,
    /// A sequential worker's next aim (the end of its last I/O), bytes from the target's start.
    cursor: u64,
    /// The worker's region, bytes from the target's start.
    region: (u64, u64),
    /// A time-based job starts over at the region's start where a size-based one ends.
    time_based: bool,
    /// The zone another clone held when this one last tried to place, and (random I/O) the
    /// aim and length to try again once it is free, as fio waits on the zone it aimed at.
    busy: Option<usize>,
    retry: Option<(u64, u32)>,
}

/// A worker's way through strided zones (fio's `setup_strided_zone_mode`).
#[derive(Debug, Clone, Copy)]
struct ZoneWalk {
    zones: StridedZones,
    /// The worker's whole region, bytes: the zones are inside it.
    span_bytes: u64,
    /// The current zone's start in the region.
    base_bytes: u64,
    /// Bytes moved in the current zone (fio's `zone_bytes`).
    done_bytes: u64,
}

/// How a uniform random worker covers its region.
#[derive(Debug, Clone)]
enum Cover {
    /// Draws with replacement (`norandommap`, other distributions, sequential jobs).
    Draws,
    /// Blocks done this pass; a longer I/O is cut at the first done block.
    Map(Bitmap),
    /// A maximal-length LFSR's permutation of the blocks.
    Lfsr(Lfsr),
}

/// A verifying worker's pass over its region.
#[derive(Debug, Clone, Copy)]
struct Walk {
    /// Multiplier coprime with the slots (1: in order).
    scramble: u64,
    /// Slots in a pass: the region's blocks, or fewer with a forward skip (`write:112k`).
    slots: u64,
    /// Units from one slot to the next (1 without a skip).
    step: u64,
    /// Blocks given so far, all passes.
    given: u64,
}

/// How a job discards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trims {
    No,
    Only,
    ThenWrite,
}

impl Workload {
    /// Worker `worker` of `spec.numjobs` over a working set of `size_bytes`.
    #[cfg(test)]
    #[must_use]
    pub fn new(spec: &JobSpec, size_bytes: u64, worker: u32, seed: u64) -> Self {
        Self::sliced(spec, size_bytes, worker, seed, (worker, spec.numjobs))
    }

    /// [`Workload::new`] where a sequential (or verifying) worker's region is part `slice.0`
    /// of `slice.1` equal parts of the working set: `(0, 1)`, the whole of it, for a worker
    /// on a file of its own.
    #[must_use]
    pub fn sliced(
        spec: &JobSpec,
        size_bytes: u64,
        worker: u32,
        seed: u64,
        slice: (u32, u32),
    ) -> Self {
        let cumulative = |entries: &[(u64, u8)]| {
            let mut sum = 0u8;
            entries
                .iter()
                .filter(|(_, pct)| *pct > 0)
                .map(|&(bytes, pct)| {
                    sum = sum.saturating_add(pct);
                    (u32::try_from(bytes).unwrap_or(u32::MAX), sum.min(100))
                })
                .collect::<Vec<_>>()
        };
        let (shortest_bytes, mut sizes) = match &spec.bssplit {
            Some(split) => (
                split.sizes().min().unwrap_or(spec.block_size_bytes),
                [cumulative(&split.read), cumulative(&split.write)],
            ),
            None => (spec.block_size_bytes, [Vec::new(), Vec::new()]),
        };
        // fio's blockalign: random offsets on its boundary; the sizes stay the block sizes.
        let unit_bytes = match spec.block_align_bytes {
            Some(align) if align > 0 && spec.rw.is_random() && align != shortest_bytes => {
                for side in &mut sizes {
                    if side.is_empty() {
                        side.push((u32::try_from(shortest_bytes).unwrap_or(u32::MAX), 100));
                    }
                }
                align
            }
            _ => shortest_bytes,
        };
        let trims = match spec.rw {
            RwMode::Trim | RwMode::RandTrim => Trims::Only,
            RwMode::TrimWrite => Trims::ThenWrite,
            _ => Trims::No,
        };
        let read_pct = spec.rw.read_pct(spec.rwmixread_pct);
        let (only, one_len) = Self::one_of_each(trims, read_pct, &sizes, unit_bytes);
        let total_blocks = (size_bytes / unit_bytes).max(1);
        // A verifying worker keeps to its own slice, random or not (see `walk`).
        let (region_start_block, region_blocks) = if spec.rw.is_random() && spec.verify.is_none() {
            (0, total_blocks)
        } else {
            Self::slice_of(total_blocks, slice)
        };
        // Strided zones: the offsets walk one zone, which `place` moves along the region.
        let zones = spec.zones.map(|zones| ZoneWalk {
            zones,
            span_bytes: region_blocks * unit_bytes,
            base_bytes: 0,
            done_bytes: 0,
        });
        let region_blocks = match zones {
            Some(walk) => (walk.zones.range_bytes / unit_bytes).clamp(1, region_blocks),
            None => region_blocks,
        };
        // fio's offset and offset_increment move the whole region of worker N.
        let base_bytes = spec
            .offset_bytes
            .saturating_add(u64::from(worker).saturating_mul(spec.offset_increment_bytes));
        Self {
            pick: if spec.rw.is_random() {
                Pick::new(spec.distribution, region_blocks.max(1))
            } else {
                Pick::Uniform
            },
            random: spec.rw.is_random(),
            read_pct,
            only,
            one_len,
            unit_bytes,
            shortest_bytes,
            sizes,
            region_start_bytes: base_bytes + region_start_block * unit_bytes,
            region_blocks,
            next_bytes: [0; 3],
            dir: 0,
            skip_bytes: match spec.sequencer {
                Some(Sequencer::Skip(bytes)) => bytes,
                _ => 0,
            },
            random_every: match spec.sequencer {
                Some(Sequencer::RandomEvery(n)) => u64::from(n),
                _ => 1,
            },
            given: 0,
            trims,
            pending_write: None,
            writing_pending: false,
            walk: spec.verify.map(|_| {
                // A forward skip (the validator refuses the other modifiers with verify):
                // each slot is one block and the skip after it.
                let step = match spec.sequencer {
                    Some(Sequencer::Skip(bytes)) if bytes > 0 => {
                        1 + bytes.unsigned_abs() / unit_bytes
                    }
                    _ => 1,
                };
                let slots = (region_blocks / step).max(1);
                Walk {
                    scramble: if spec.rw.is_random() {
                        scrambler(slots)
                    } else {
                        1
                    },
                    slots,
                    step,
                    given: 0,
                }
            }),
            cover: match (
                spec.rw.is_random()
                    && spec.verify.is_none()
                    && spec.random_map
                    // randMODE:N goes sequential between its draws: no map to keep then.
                    && spec.sequencer.is_none()
                    && spec.distribution == Distribution::Uniform,
                spec.random_generator,
            ) {
                (false, _) => Cover::Draws,
                (true, Generator::Lfsr) => Cover::Lfsr(Lfsr::new(
                    region_blocks,
                    seed ^ (u64::from(worker) + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93),
                )),
                (true, Generator::Tausworthe | Generator::Tausworthe64) => {
                    Cover::Map(Bitmap::new(region_blocks))
                }
            },
            drawn: 0,
            wrapped: false,
            zones,
            zbd: None,
            rng: seed ^ (u64::from(worker) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        }
    }

    /// The one direction a job has and the one I/O length either direction gives when it
    /// draws nothing, where it has just one (`only`, `one_len`).
    fn one_of_each(
        trims: Trims,
        read_pct: u8,
        sizes: &[Vec<(u32, u8)>; 2],
        unit_bytes: u64,
    ) -> (Option<Direction>, Option<u32>) {
        let only = match (trims, read_pct) {
            (Trims::Only, _) => Some(Direction::Trim),
            (Trims::No, 100) => Some(Direction::Read),
            (Trims::No, 0) => Some(Direction::Write),
            _ => None,
        };
        let one_len = match (&sizes[0][..], &sizes[1][..]) {
            _ if trims == Trims::ThenWrite => None,
            ([], []) => Some(u32::try_from(unit_bytes).unwrap_or(u32::MAX)),
            ([(read, _)], [(write, _)]) if read == write => Some(*read),
            _ => None,
        };
        (only, one_len)
    }

    /// Part `slice.0` of `slice.1` equal parts of `total_blocks` (the last takes the rest):
    /// its first block and its length, at least one block.
    fn slice_of(total_blocks: u64, slice: (u32, u32)) -> (u64, u64) {
        let (part, jobs) = (u64::from(slice.0), u64::from(slice.1.max(1)));
        let per_job = (total_blocks / jobs).max(1);
        let start = (part * per_job).min(total_blocks - 1);
        let blocks = if part + 1 == jobs {
            total_blocks - start
        } else {
            per_job.min(total_blocks - start)
        };
        (start, blocks.max(1))
    }

    /// Whether a new pass over the region began since the last call (a sequential walk back
    /// at its start, a full random map or LFSR period): fio drops a buffered time-based job's
    /// page cache there.
    #[inline]
    pub fn take_wrap(&mut self) -> bool {
        // The random map says itself when a claim began a pass (off the hot path).
        let map = match &mut self.cover {
            Cover::Map(map) => map.take_wrap(),
            _ => false,
        };
        std::mem::take(&mut self.wrapped) | map
    }

    /// The next I/O: direction and byte offset.
    #[cfg(test)]
    #[inline]
    pub fn next_io(&mut self) -> (Direction, u64) {
        let direction = self.direction();
        let len = self.len(direction);
        (direction, self.offset(direction, len))
    }

    /// The length of the next I/O of `direction`: the block size, or a draw from its
    /// `bssplit` by the shares.
    #[inline]
    pub fn len(&mut self, direction: Direction) -> u32 {
        if let Some(len) = self.one_len {
            return len;
        }
        if let (true, Some((_, len))) = (self.writing_pending, self.pending_write) {
            return len;
        }
        let sizes = match direction {
            Direction::Read => &self.sizes[0],
            Direction::Write | Direction::Trim => &self.sizes[1],
        };
        match sizes.as_slice() {
            [] => u32::try_from(self.unit_bytes).unwrap_or(u32::MAX),
            [(bytes, _)] => *bytes,
            sizes => {
                let draw = u8::try_from(splitmix64(&mut self.rng) % 100).unwrap_or(0);
                sizes
                    .iter()
                    .find(|(_, below)| draw < *below)
                    .or(sizes.last())
                    .map_or(0, |&(bytes, _)| bytes)
            }
        }
    }

    /// A verifying worker's pass over its region (0 for the first), the header's generation.
    #[must_use]
    pub fn pass(&self) -> u32 {
        self.walk.map_or(0, |walk| {
            u32::try_from(walk.given / walk.slots.max(1)).unwrap_or(u32::MAX)
        })
    }

    /// The offsets a verifying worker has written, each once, in the order it last wrote
    /// them (empty when it does not verify): every block of its region once a pass is done.
    pub fn written_offsets(&self) -> impl Iterator<Item = u64> + '_ {
        let (given, scramble, n, step) = self.walk.map_or((0, 1, 1, 1), |walk| {
            (walk.given, walk.scramble, walk.slots.max(1), walk.step)
        });
        (0..given.min(n)).map(move |rank| {
            let slot =
                u64::try_from(u128::from(rank) * u128::from(scramble) % u128::from(n)).unwrap_or(0);
            self.region_start_bytes + slot * step * self.unit_bytes
        })
    }

    /// The shortest I/O, bytes.
    #[must_use]
    pub fn shortest_bytes(&self) -> u64 {
        self.shortest_bytes
    }

    /// Whether the job reads, and whether it writes.
    #[must_use]
    pub fn directions(&self) -> (bool, bool) {
        (self.read_pct > 0, self.read_pct < 100)
    }

    /// Whether the job discards (its "writes" are trims, or trims then writes).
    #[must_use]
    pub fn trims(&self) -> bool {
        self.trims != Trims::No
    }

    /// The next direction by the read/write mix; a trim job's trims, and for `trimwrite` the
    /// write of the range just trimmed.
    #[inline]
    pub fn direction(&mut self) -> Direction {
        self.pick_direction()
    }

    #[inline]
    fn pick_direction(&mut self) -> Direction {
        if let Some(direction) = self.only {
            return direction;
        }
        match self.trims {
            Trims::No => {}
            Trims::Only => return Direction::Trim,
            Trims::ThenWrite => {
                self.writing_pending = self.pending_write.is_some();
                return if self.writing_pending {
                    Direction::Write
                } else {
                    Direction::Trim
                };
            }
        }
        match self.read_pct {
            100 => Direction::Read,
            0 => Direction::Write,
            pct => {
                if splitmix64(&mut self.rng) % 100 < u64::from(pct) {
                    Direction::Read
                } else {
                    Direction::Write
                }
            }
        }
    }

    /// The byte offset of the next I/O of `direction`, `len_bytes` long: aligned to the unit
    /// and wholly inside the region (see [`Self::place`], which may also shorten it).
    #[cfg(test)]
    #[inline]
    pub fn offset(&mut self, direction: Direction, len_bytes: u32) -> u64 {
        self.place(direction, len_bytes).0
    }

    /// Where the next I/O of `len_bytes` goes, and its length: with the random map, an I/O
    /// that would cover blocks done this pass is cut before the first of them (at least one
    /// unit long), as fio cuts it, so large blocks of a `bssplit` shrink as a pass fills.
    /// A sequential offset follows the last I/O of the same `direction` (fio's
    /// `last_pos[ddir]`).
    #[inline(always)]
    pub fn place(&mut self, direction: Direction, len_bytes: u32) -> (u64, u32) {
        self.dir = direction as usize;
        if self.zbd.is_some() {
            return self.place_in_zones(len_bytes);
        }
        if self.zones.is_none() {
            return self.place_in_region(len_bytes);
        }
        self.enter_zone();
        let (at, len) = self.place_in_region(len_bytes);
        let walk = self.zones.as_mut().expect("zones were checked above");
        walk.done_bytes += u64::from(len);
        (at + walk.base_bytes, len)
    }

    /// Puts this worker on the emulated zones `shared` (fio's `zonemode=zbd`, the job's
    /// `spec.zbd`), which the jobs on the file share (`worker`: this clone's number among
    /// all their workers): from here [`Self::place`] writes at the
    /// zones' write pointers and reads below them, and gives a length of 0 when nothing is
    /// left to read (the worker ends, as fio's job does at its zones' end).
    #[must_use]
    pub fn on_zones(mut self, spec: &JobSpec, job: Option<JobZones>, worker: u32) -> Self {
        let (Some(zones), Some(job)) = (spec.zbd, job) else {
            return self;
        };
        let span = self.region_blocks * self.unit_bytes;
        self.zbd = Some(ZbdWalk {
            shared: job.shared,
            span: job.span,
            zones,
            worker,
            cursor: self.region_start_bytes,
            region: (self.region_start_bytes, self.region_start_bytes + span),
            time_based: spec.io_size_bytes.is_none(),
            busy: None,
            retry: None,
        });
        self
    }

    /// Whether this worker places on emulated zones ([`Self::on_zones`]).
    #[must_use]
    pub fn on_emulated_zones(&self) -> bool {
        self.zbd.is_some()
    }

    /// Whether the last [`Self::place`] gave length 0 because its zone was held by another
    /// clone (emulated zones), not because nothing is left: wait ([`Self::wait_zone`]) or
    /// complete what is in flight, then place again.
    #[must_use]
    pub fn zone_busy(&self) -> bool {
        self.zbd.as_ref().is_some_and(|walk| walk.busy.is_some())
    }

    /// Waits up to `timeout` for the zone [`Self::zone_busy`] found held.
    pub fn wait_zone(&mut self, timeout: std::time::Duration) {
        if let Some(walk) = self.zbd.as_mut()
            && let Some(zone) = walk.busy.take()
        {
            walk.shared.wait_free(walk.worker, zone, timeout);
        }
    }

    /// An I/O placed by [`Self::place`] at `at` has completed: on emulated zones its hold on
    /// the zone is let go (reads above the write pointers hold none).
    #[inline]
    pub fn release(&self, direction: Direction, at: u64) {
        if let Some(walk) = &self.zbd
            && (direction != Direction::Read || !walk.zones.read_beyond_wp)
        {
            walk.shared.release(walk.worker, at);
        }
    }

    /// The worker ends: the zones it still holds are let go.
    pub fn release_zones(&self) {
        if let Some(walk) = &self.zbd {
            walk.shared.release_all(walk.worker);
        }
    }

    /// [`Self::place`] on emulated zones: a random worker aims where its random offsets go, a
    /// sequential one where its last I/O ended; the zones' write pointers say where it lands.
    /// Length 0: nothing (more) to read.
    fn place_in_zones(&mut self, len_bytes: u32) -> (u64, u32) {
        let retry = self.zbd.as_mut().and_then(|walk| walk.retry.take());
        let (aim, len_bytes) = match retry {
            Some((aim, len)) => (Some(aim), len),
            None if self.random => {
                let (aim, len) = self.place_in_region(len_bytes);
                (Some(aim), len)
            }
            None => (None, len_bytes),
        };
        let unit = self.unit_bytes;
        let random = self.random;
        // `place` set `dir` to this I/O's direction.
        let write = self.dir != Direction::Read as usize;
        let walk = self.zbd.as_mut().expect("zbd was checked by place");
        walk.busy = None;
        let aim = aim.unwrap_or(walk.cursor);
        let worker = walk.worker;
        let span = &walk.span;
        let placed = walk.shared.with(|state| {
            if write {
                state.write(worker, span, aim, len_bytes, unit)
            } else if walk.zones.read_beyond_wp {
                Ok((aim, len_bytes))
            } else {
                state
                    .read(worker, span, aim, len_bytes, unit, random)
                    .or_else(|miss| {
                        // No data ahead: a time-based sequential reader starts over.
                        if miss == Miss::Nothing && walk.time_based && !random {
                            state.read(worker, span, walk.region.0, len_bytes, unit, false)
                        } else {
                            Err(miss)
                        }
                    })
            }
        });
        let (at, len) = match placed {
            Ok(placed) => placed,
            Err(Miss::Busy(zone)) => {
                walk.busy = Some(zone);
                if random {
                    walk.retry = Some((aim, len_bytes));
                }
                return (walk.cursor, 0);
            }
            Err(Miss::Nothing) => return (walk.cursor, 0),
        };
        if !random {
            walk.cursor = at + u64::from(len);
            if walk.cursor + unit > walk.region.1 {
                walk.cursor = walk.region.0;
                self.wrapped = true;
            }
        }
        (at, len)
    }

    /// fio's strided zones before each I/O: once `zonesize` bytes moved in the zone, the next
    /// zone starts `zonerange + zoneskip` further on, back at the region's start when it would
    /// not fit whole (fio wraps once the start passes the file's end, so it also reads the
    /// head of a last partial zone); the walk starts again at the zone's start, and the
    /// random map is cleared each `zonerange` bytes, as fio resets the file.
    fn enter_zone(&mut self) {
        let Some(walk) = self.zones.as_mut() else {
            return;
        };
        let range = walk.zones.range_bytes;
        if walk.done_bytes >= walk.zones.size_bytes {
            walk.done_bytes = 0;
            walk.base_bytes = walk
                .base_bytes
                .saturating_add(range)
                .saturating_add(walk.zones.skip_bytes);
            if walk.base_bytes.saturating_add(range) > walk.span_bytes {
                walk.base_bytes = 0;
                self.wrapped = true;
            }
            self.next_bytes = [0; 3];
        }
        if walk.done_bytes % range.max(1) == 0
            && let Cover::Map(map) = &mut self.cover
        {
            map.reset();
        }
    }

    /// [`Self::place`] inside the region (with zones: inside the current zone). Inlined into
    /// the worker's loop: a call here was a tenth of a null-engine I/O's instructions.
    #[inline(always)]
    fn place_in_region(&mut self, len_bytes: u32) -> (u64, u32) {
        if self.writing_pending {
            self.writing_pending = false;
            if let Some((at, len)) = self.pending_write.take() {
                return (at, len);
            }
        }
        if let Cover::Map(map) = &mut self.cover {
            let block = ((u128::from(splitmix64(&mut self.rng)) * u128::from(self.region_blocks))
                >> 64) as u64;
            let (block, len) = if u64::from(len_bytes) == self.unit_bytes {
                // One unit (every I/O of a job without bssplit): no division, and a claim of
                // one block is never cut.
                (map.claim(block, 1).0, len_bytes)
            } else {
                let want = u64::from(len_bytes).div_ceil(self.unit_bytes);
                let (block, blocks) = map.claim(block, want);
                let len = if blocks >= want {
                    len_bytes
                } else {
                    u32::try_from(blocks * self.unit_bytes).unwrap_or(len_bytes)
                };
                (block, len)
            };
            let at = self.region_start_bytes + block * self.unit_bytes;
            if self.trims == Trims::ThenWrite {
                self.pending_write = Some((at, len));
            }
            return (at, len);
        }
        (self.offset_of(len_bytes), len_bytes)
    }

    /// The offset of an I/O of `len_bytes` without the bitmap.
    #[inline]
    fn offset_of(&mut self, len_bytes: u32) -> u64 {
        // A mixed verifying job's own reads go where its reads would without verify.
        let writing = self.dir != Direction::Read as usize;
        if let Some(walk) = self.walk.as_mut().filter(|_| writing) {
            let n = walk.slots;
            let slot = u64::try_from(
                u128::from(walk.given % n) * u128::from(walk.scramble) % u128::from(n),
            )
            .unwrap_or(0);
            walk.given += 1;
            return self.region_start_bytes + slot * walk.step * self.unit_bytes;
        }
        let region_bytes = self.region_blocks * self.unit_bytes;
        let len = u64::from(len_bytes).min(region_bytes);
        self.given += 1;
        let at = if self.random && self.random_every > 1 && self.given % self.random_every != 0 {
            // fio's randMODE:N: sequential from the end of the last I/O between random ones.
            let at = if self.next_bytes[self.dir] + len > region_bytes {
                0
            } else {
                self.next_bytes[self.dir]
            };
            self.next_bytes[self.dir] = at + len;
            at
        } else if self.random {
            // Uniform: Lemire's multiply-shift, an unbiased-enough map of 64 random bits onto
            // the range; the others as `Pick` draws them. A longer I/O (bssplit) drawn near
            // the end is moved back to end with the region.
            let block = match &mut self.cover {
                Cover::Lfsr(lfsr) => {
                    self.wrapped |= self.drawn > 0 && self.drawn % self.region_blocks == 0;
                    self.drawn += 1;
                    lfsr.next_block()
                }
                Cover::Draws | Cover::Map(_) => self.pick.block(&mut self.rng, self.region_blocks),
            };
            let at = block * self.unit_bytes;
            let at = at.min((region_bytes - len) / self.unit_bytes * self.unit_bytes);
            self.next_bytes[self.dir] = at + len;
            at
        } else if self.skip_bytes != 0 {
            self.skipped(len, region_bytes)
        } else {
            if self.next_bytes[self.dir] + len > region_bytes {
                self.wrapped |= self.next_bytes[self.dir] > 0;
                self.next_bytes[self.dir] = 0;
            }
            let at = self.next_bytes[self.dir];
            self.next_bytes[self.dir] += len;
            at
        };
        if self.trims == Trims::ThenWrite {
            self.pending_write = Some((self.region_start_bytes + at, len_bytes));
        }
        self.region_start_bytes + at
    }
}

impl Workload {
    /// fio's sequential offset with `rw=MODE:SKIP` (its `get_next_seq_offset`): the first
    /// I/O at the region's start, then the end of the last I/O plus the skip; past either end
    /// it wraps (forwards to the start, backwards to one skip before the end). As fio 3.33's
    /// `write_iolog` shows for `read:-8k`, bs=4k over 64k: 0, 56k, 52k, ... 0, 56k.
    fn skipped(&mut self, len: u64, region_bytes: u64) -> u64 {
        let region = i128::from(region_bytes);
        let mut pos = i128::from(self.next_bytes[self.dir]);
        if pos != 0 {
            pos += i128::from(self.skip_bytes);
            if pos < 0 || pos + i128::from(len) > region {
                pos = if self.skip_bytes > 0 {
                    0
                } else {
                    (region + i128::from(self.skip_bytes)).max(0)
                };
            }
        }
        if pos + i128::from(len) > region {
            pos = 0;
        }
        let at = u64::try_from(pos).unwrap_or(0);
        self.next_bytes[self.dir] = at + len;
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::spec::{JobSpec, RwMode};

    fn spec(rw: RwMode, numjobs: u32) -> JobSpec {
        JobSpec {
            rw,
            numjobs,
            ..JobSpec::default()
        }
    }

    #[test]
    fn sequential_workers_walk_disjoint_slices_and_wrap() {
        let spec = spec(RwMode::Read, 2);
        let size = 8 * 4096;
        let mut first = Workload::new(&spec, size, 0, 1);
        let mut second = Workload::new(&spec, size, 1, 1);
        let a: Vec<u64> = (0..5).map(|_| first.next_io().1).collect();
        let b: Vec<u64> = (0..5).map(|_| second.next_io().1).collect();
        assert_eq!(a, [0, 4096, 8192, 12288, 0]);
        assert_eq!(b, [16384, 20480, 24576, 28672, 16384]);
    }

    fn strided(rw: RwMode, size: u64, range: u64, skip: u64) -> JobSpec {
        JobSpec {
            rw,
            block_size_bytes: 64 << 10,
            zones: Some(StridedZones {
                size_bytes: size << 10,
                range_bytes: range << 10,
                skip_bytes: skip << 10,
            }),
            ..JobSpec::default()
        }
    }

    #[test]
    fn strided_zones_move_on_after_zonesize_and_wrap_as_fio() {
        // zonesize=256k zoneskip=512k over 2 MiB: zones at 0, 768k, 1536k, then back to 0.
        let mut w = Workload::new(&strided(RwMode::Read, 256, 256, 512), 2 << 20, 0, 1);
        let kib: Vec<u64> = (0..14).map(|_| w.next_io().1 >> 10).collect();
        assert_eq!(
            kib,
            [
                0, 64, 128, 192, 768, 832, 896, 960, 1536, 1600, 1664, 1728, 0, 64
            ]
        );
        // zonesize above zonerange: the zone is walked again from its start until zonesize
        // bytes moved in it (fio's "maintain zone").
        let mut w = Workload::new(&strided(RwMode::Read, 256, 128, 0), 1 << 20, 0, 1);
        let kib: Vec<u64> = (0..6).map(|_| w.next_io().1 >> 10).collect();
        assert_eq!(kib, [0, 64, 0, 64, 128, 192]);
        // Random I/O stays inside the zone of the moment.
        let mut w = Workload::new(&strided(RwMode::RandRead, 256, 256, 768), 4 << 20, 0, 7);
        for zone in [0u64, 1024, 2048, 3072, 0] {
            for _ in 0..4 {
                let at = w.next_io().1 >> 10;
                assert!(
                    (zone..zone + 256).contains(&at),
                    "{at} not in zone at {zone}k"
                );
            }
        }
    }

    #[test]
    fn random_offsets_are_deterministic_aligned_and_in_range() {
        let spec = spec(RwMode::RandRead, 1);
        let size = 1 << 20;
        let mut one = Workload::new(&spec, size, 0, 42);
        let mut two = Workload::new(&spec, size, 0, 42);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..1000 {
            let (dir, offset) = one.next_io();
            assert_eq!((dir, offset), two.next_io());
            assert_eq!(dir, Direction::Read);
            assert_eq!(offset % 4096, 0);
            assert!(offset < size);
            seen.insert(offset);
        }
        assert!(seen.len() > 200, "covers the range: {}", seen.len());
    }

    #[test]
    fn blockalign_sets_the_random_offsets_boundary_not_the_io_length() {
        use crate::bench::spec::BsSplit;
        // jesd219: sizes from 512 bytes, offsets on 4k.
        let split = BsSplit {
            read: vec![(512, 50), (8192, 50)],
            write: vec![(512, 50), (8192, 50)],
        };
        let job = JobSpec {
            block_size_bytes: 512,
            bssplit: Some(split),
            block_align_bytes: Some(4096),
            random_map: false,
            ..spec(RwMode::RandRw, 1)
        };
        let size = 1 << 20;
        let mut workload = Workload::new(&job, size, 0, 9);
        let mut short = 0;
        for _ in 0..5_000 {
            let direction = workload.direction();
            let len = workload.len(direction);
            let (offset, len) = workload.place(direction, len);
            assert_eq!(offset % 4096, 0, "{offset}");
            assert!(offset + u64::from(len) <= size, "{offset} + {len}");
            short += u32::from(len == 512);
        }
        assert!(
            (2_000..3_000).contains(&short),
            "{short} of 5000 are 512 bytes"
        );
        assert_eq!(workload.shortest_bytes(), 512);
        // One block size, aligned finer than it: offsets on 512, not only on 8k.
        let job = JobSpec {
            block_size_bytes: 8192,
            block_align_bytes: Some(512),
            random_map: false,
            ..spec(RwMode::RandRead, 1)
        };
        let mut workload = Workload::new(&job, size, 0, 9);
        let offsets: Vec<u64> = (0..1_000)
            .map(|_| workload.place(Direction::Read, 8192))
            .map(|(o, l)| {
                assert_eq!(l, 8192);
                o
            })
            .collect();
        assert!(offsets.iter().all(|o| o % 512 == 0 && o + 8192 <= size));
        assert!(offsets.iter().any(|o| o % 8192 != 0), "{offsets:?}");
        // A sequential job's offsets follow its I/Os.
        let job = JobSpec {
            block_size_bytes: 512,
            block_align_bytes: Some(4096),
            ..spec(RwMode::Read, 1)
        };
        let mut workload = Workload::new(&job, size, 0, 9);
        let offsets: Vec<u64> = (0..3).map(|_| workload.next_io().1).collect();
        assert_eq!(offsets, [0, 512, 1024]);
    }

    #[test]
    fn offsets_move_each_workers_region() {
        let sequential = JobSpec {
            offset_bytes: 1 << 20,
            offset_increment_bytes: 1 << 21,
            ..spec(RwMode::Read, 2)
        };
        let mut first = Workload::new(&sequential, 8 * 4096, 0, 1);
        let mut second = Workload::new(&sequential, 8 * 4096, 1, 1);
        assert_eq!(first.next_io().1, 1 << 20);
        // The second worker's slice of the working set, moved by offset + 1 x increment.
        assert_eq!(second.next_io().1, (1 << 20) + (1 << 21) + 4 * 4096);
        let random = JobSpec {
            offset_bytes: 8192,
            ..spec(RwMode::RandRead, 1)
        };
        let mut random = Workload::new(&random, 4 * 4096, 0, 1);
        for _ in 0..100 {
            let offset = random.next_io().1;
            assert!((8192..8192 + 4 * 4096).contains(&offset), "{offset}");
        }
    }

    #[test]
    fn bssplit_sizes_follow_their_shares_and_offsets_stay_aligned_inside() {
        use crate::bench::spec::BsSplit;
        let split = BsSplit {
            read: vec![(4096, 70), (65536, 30)],
            write: vec![(1 << 20, 100)],
        };
        let spec = JobSpec {
            rw: RwMode::RandRw,
            block_size_bytes: 1 << 20,
            bssplit: Some(split),
            // The shares as drawn: the random map would cut the long ones.
            random_map: false,
            ..spec(RwMode::RandRw, 1)
        };
        let size = 8 << 20;
        let mut workload = Workload::new(&spec, size, 0, 3);
        let (mut small, mut reads) = (0u32, 0u32);
        for _ in 0..20_000 {
            let direction = workload.direction();
            let len = workload.len(direction);
            let (offset, len) = workload.place(direction, len);
            assert_eq!(offset % 4096, 0, "aligned to the smallest size");
            assert!(offset + u64::from(len) <= size, "{offset} + {len}");
            match direction {
                Direction::Read => {
                    reads += 1;
                    small += u32::from(len == 4096);
                    assert!(len == 4096 || len == 65536);
                }
                Direction::Write => assert_eq!(len, 1 << 20),
                Direction::Trim => unreachable!("a randrw job does not trim"),
            }
        }
        let share = f64::from(small) / f64::from(reads);
        assert!((share - 0.7).abs() < 0.02, "{share}");
        // Sequential: each I/O starts where the last ended, and wraps before the end.
        let sequential = JobSpec {
            rw: RwMode::Read,
            ..spec.clone()
        };
        let mut workload = Workload::new(&sequential, 256 << 10, 0, 3);
        let mut next = 0;
        for _ in 0..100 {
            let len = workload.len(Direction::Read);
            let offset = workload.offset(Direction::Read, len);
            if offset != next {
                assert_eq!(offset, 0, "wraps to the start");
                assert!(next + u64::from(len) > 256 << 10, "only at the end");
            }
            next = offset + u64::from(len);
        }
    }

    /// The share of the draws that hit the `k` most drawn blocks.
    fn top_share(spec: &JobSpec, blocks: u64, k: usize, draws: usize) -> f64 {
        let mut workload = Workload::new(spec, blocks * 4096, 0, 7);
        let mut counts = vec![0u32; blocks as usize];
        for _ in 0..draws {
            counts[(workload.next_io().1 / 4096) as usize] += 1;
        }
        counts.sort_unstable_by(|a, b| b.cmp(a));
        f64::from(counts[..k].iter().sum::<u32>()) / draws as f64
    }

    fn random(distribution: Distribution) -> JobSpec {
        JobSpec {
            distribution,
            ..spec(RwMode::RandRead, 1)
        }
    }

    #[test]
    fn zipf_gives_its_top_blocks_the_share_of_the_closed_form() {
        // The top 1% of 10000 blocks under zipf:1.2: H(100, 1.2) / H(10000, 1.2).
        let expected = zeta(100, 1.2) / zeta(10_000, 1.2);
        let share = top_share(&random(Distribution::Zipf(1.2)), 10_000, 100, 400_000);
        assert!((share - expected).abs() < 0.02, "{share} vs {expected}");
        // theta below 1 spreads more: its top 1% takes less.
        let flatter = top_share(&random(Distribution::Zipf(0.8)), 10_000, 100, 400_000);
        let expected = zeta(100, 0.8) / zeta(10_000, 0.8);
        assert!((flatter - expected).abs() < 0.02, "{flatter} vs {expected}");
        assert!(flatter < share);
    }

    #[test]
    fn zipf_sums_past_the_exact_items_by_the_integral() {
        // Against the exact sum just past the cut.
        let n = ZIPF_EXACT_ITEMS + 1000;
        let exact: f64 = (1..=n).map(|i| (i as f64).powf(-1.2)).sum();
        assert!((zeta(n, 1.2) - exact).abs() / exact < 1e-9);
    }

    #[test]
    fn pareto_follows_its_cdf() {
        // P(rank < k) = (k / (n - 1))^(1 / power), power = ln(h) / ln(1 - h).
        let h: f64 = 0.3;
        let power = h.ln() / (1.0 - h).ln();
        let expected = (1000.0 / 9999.0f64).powf(1.0 / power);
        let share = top_share(&random(Distribution::Pareto(h)), 10_000, 1000, 400_000);
        assert!((share - expected).abs() < 0.02, "{share} vs {expected}");
    }

    #[test]
    fn normal_centres_on_the_middle_with_its_deviation() {
        let blocks = 10_000u64;
        let mut workload = Workload::new(&random(Distribution::Normal(10.0)), blocks * 4096, 0, 3);
        let draws: Vec<f64> = (0..200_000)
            .map(|_| (workload.next_io().1 / 4096) as f64)
            .collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / draws.len() as f64;
        assert!((mean - 5000.0).abs() < 20.0, "{mean}");
        assert!((var.sqrt() - 1000.0).abs() < 30.0, "{}", var.sqrt());
    }

    #[test]
    fn every_distribution_stays_in_the_region_on_tiny_ones() {
        for distribution in [
            Distribution::Zipf(1.2),
            Distribution::Zipf(0.5),
            Distribution::Pareto(0.9),
            Distribution::Normal(100.0),
        ] {
            for blocks in [1u64, 2, 3, 7] {
                let mut workload = Workload::new(&random(distribution), blocks * 4096, 0, 1);
                for _ in 0..1000 {
                    assert!(
                        workload.next_io().1 < blocks * 4096,
                        "{distribution:?} {blocks}"
                    );
                }
            }
        }
    }

    fn random_with(generator: Generator, map: bool) -> JobSpec {
        JobSpec {
            random_map: map,
            random_generator: generator,
            ..spec(RwMode::RandRead, 1)
        }
    }

    #[test]
    fn the_random_map_visits_every_block_once_per_pass() {
        for generator in [
            Generator::Tausworthe,
            Generator::Lfsr,
            Generator::Tausworthe64,
        ] {
            for blocks in [1u64, 2, 3, 63, 64, 65, 1000, 4099] {
                let spec = random_with(generator, true);
                let mut workload = Workload::new(&spec, blocks * 4096, 0, 11);
                for pass in 0..3 {
                    let mut seen = vec![0u32; blocks as usize];
                    for _ in 0..blocks {
                        let (direction, offset) = workload.next_io();
                        assert_eq!(direction, Direction::Read);
                        assert_eq!(offset % 4096, 0);
                        seen[(offset / 4096) as usize] += 1;
                    }
                    assert!(
                        seen.iter().all(|&n| n == 1),
                        "{generator:?} {blocks} blocks, pass {pass}: {seen:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn norandommap_draws_with_replacement() {
        let spec = random_with(Generator::Tausworthe, false);
        let blocks = 1000u64;
        let mut workload = Workload::new(&spec, blocks * 4096, 0, 11);
        let distinct: std::collections::HashSet<u64> =
            (0..blocks).map(|_| workload.next_io().1).collect();
        // Drawing n of n with replacement leaves about 1/e of them out.
        assert!((550..720).contains(&distinct.len()), "{}", distinct.len());
    }

    /// Mean bytes per I/O over `passes` passes of a randread `bssplit` over `size` bytes.
    fn bssplit_mean(split: &[(u64, u8)], generator: Generator, map: bool, size: u64) -> f64 {
        use crate::bench::spec::BsSplit;
        let spec = JobSpec {
            bssplit: Some(BsSplit {
                read: split.to_vec(),
                write: Vec::new(),
            }),
            block_size_bytes: split.iter().map(|(bytes, _)| *bytes).max().unwrap_or(4096),
            ..random_with(generator, map)
        };
        let mut workload = Workload::new(&spec, size, 0, 5);
        let (mut bytes, mut ios) = (0u64, 0u64);
        while bytes < 4 * size {
            let len = workload.len(Direction::Read);
            let (offset, len) = workload.place(Direction::Read, len);
            assert!(offset + u64::from(len) <= size && offset % 4096 == 0);
            bytes += u64::from(len);
            ios += 1;
        }
        bytes as f64 / ios as f64 / 1024.0
    }

    #[test]
    fn bssplit_under_the_map_shrinks_blocks_that_no_longer_fit_as_fio_does() {
        // fio 3.33 over a 64 MiB file (size-based randread, one pass): 4k/50:64k/50 gives a
        // mean of 19.3-20.1 KiB per I/O; 4k/90:1M/10 gives 7.1-8.9 KiB by the seed (9.66 KiB
        // over four passes). Drawn with replacement both would be the shares' mean.
        let mean = bssplit_mean(
            &[(4096, 50), (65536, 50)],
            Generator::Tausworthe,
            true,
            64 << 20,
        );
        assert!((17.0..23.0).contains(&mean), "{mean}");
        let mean = bssplit_mean(
            &[(4096, 90), (1 << 20, 10)],
            Generator::Tausworthe,
            true,
            64 << 20,
        );
        assert!((6.5..11.0).contains(&mean), "{mean}");
        // Without the map (or with the LFSR, which keeps none) the shares alone: 34 KiB.
        for (generator, map) in [(Generator::Tausworthe, false), (Generator::Lfsr, true)] {
            let mean = bssplit_mean(&[(4096, 50), (65536, 50)], generator, map, 64 << 20);
            assert!((32.0..36.0).contains(&mean), "{generator:?} {map}: {mean}");
        }
    }

    #[test]
    fn a_wrap_is_reported_once_at_each_new_pass() {
        for (rw, generator) in [
            (RwMode::Read, Generator::Tausworthe),
            (RwMode::RandRead, Generator::Tausworthe),
            (RwMode::RandRead, Generator::Lfsr),
        ] {
            let spec = JobSpec {
                random_generator: generator,
                ..spec(rw, 1)
            };
            let mut workload = Workload::new(&spec, 10 * 4096, 0, 3);
            let wraps: Vec<usize> = (0..35)
                .filter(|_| {
                    workload.next_io();
                    workload.take_wrap()
                })
                .map(|_| 0)
                .collect();
            assert_eq!(
                wraps.len(),
                3,
                "{rw:?} {generator:?}: 35 I/Os over 10 blocks"
            );
        }
    }

    #[test]
    fn a_mixed_sequential_job_walks_reads_and_writes_each_from_the_start() {
        // fio's rw=rw: reads follow reads and writes follow writes (last_pos[ddir]), so each
        // direction sweeps the whole region, and each wraps (and drops the cache) by itself.
        let spec = JobSpec {
            rwmixread_pct: 60,
            ..spec(RwMode::Rw, 1)
        };
        let blocks = 8u64;
        let mut workload = Workload::new(&spec, blocks * 4096, 0, 7);
        let mut next = [0u64; 2];
        let mut ios = [0u64; 2];
        let mut wraps = 0;
        for _ in 0..200 {
            let (direction, offset) = workload.next_io();
            let d = direction as usize;
            assert_eq!(offset, next[d], "{direction:?} I/O {}", ios[d]);
            ios[d] += 1;
            next[d] = (offset + 4096) % (blocks * 4096);
            wraps += usize::from(workload.take_wrap());
        }
        assert!(ios[0] > 0 && ios[1] > 0, "{ios:?}");
        // Each direction's pass ends after `blocks` of its own I/Os.
        let expected = (ios[0] - 1) / blocks + (ios[1] - 1) / blocks;
        assert_eq!(wraps as u64, expected, "{ios:?}");
    }

    #[test]
    fn mixed_workloads_follow_the_read_share() {
        let spec = spec(RwMode::RandRw, 1);
        let mut workload = Workload::new(&spec, 1 << 20, 0, 3);
        let reads = (0..10_000)
            .filter(|_| workload.next_io().0 == Direction::Read)
            .count();
        assert!((4_700..5_300).contains(&reads), "{reads}");
    }

    fn sequenced(rw: RwMode, sequencer: Sequencer) -> JobSpec {
        JobSpec {
            sequencer: Some(sequencer),
            ..spec(rw, 1)
        }
    }

    #[test]
    fn a_forward_skip_leaves_holes_and_wraps_like_fio() {
        // fio's rw=read:8k, bs=4k over 32k: 0, 12k, 24k, then past the end back to 0.
        let mut w = Workload::new(&sequenced(RwMode::Read, Sequencer::Skip(8192)), 32768, 0, 1);
        let got: Vec<u64> = (0..5).map(|_| w.next_io().1).collect();
        assert_eq!(got, [0, 12288, 24576, 0, 12288]);
    }

    #[test]
    fn a_backward_skip_walks_down_from_one_skip_before_the_end_as_fio() {
        // fio's backwards-read.fio (rw=read:-8k, bs=4k), as fio 3.33's write_iolog has it:
        // 0 first, then from size-8k 4k lower each time, and from 0 back to size-8k.
        let size = 8 * 4096;
        let mut w = Workload::new(&sequenced(RwMode::Read, Sequencer::Skip(-8192)), size, 0, 1);
        let got: Vec<u64> = (0..9).map(|_| w.next_io().1 / 4096).collect();
        assert_eq!(got, [0, 6, 5, 4, 3, 2, 1, 0, 6]);
    }

    #[test]
    fn random_every_n_goes_sequential_between_random_offsets() {
        let n = 4;
        let mut w = Workload::new(
            &sequenced(RwMode::RandRead, Sequencer::RandomEvery(n)),
            1 << 24,
            0,
            9,
        );
        let offsets: Vec<u64> = (0..400).map(|_| w.next_io().1).collect();
        // The first n - 1 follow on from 0; then each n-th is drawn and the n - 1 after it
        // follow it block by block.
        assert_eq!(offsets[..3], [0, 4096, 8192]);
        let mut jumps = 0;
        for (i, pair) in offsets.windows(2).enumerate() {
            let io = i + 1; // the index of pair[1]
            if (io + 1) % n as usize == 0 {
                jumps += usize::from(pair[1] != pair[0] + 4096);
            } else {
                // (From the region's last block it wraps to the first.)
                assert_eq!(
                    pair[1],
                    (pair[0] + 4096) % (1 << 24),
                    "I/O {io} continues sequentially"
                );
            }
        }
        assert!(
            jumps > 90,
            "every {n}th is a random draw: {jumps} of 100 moved"
        );
    }

    /// `verify=crc32c` with the read-back after the run.
    fn crc32c_read_back() -> crate::bench::spec::VerifySpec {
        crate::bench::spec::VerifySpec {
            kind: crate::bench::verify::Kind::Crc32c,
            only: false,
            fatal: false,
            read_back: true,
            interval: 0,
            backlog: None,
        }
    }

    #[test]
    fn a_verifying_skip_writes_one_block_per_slot() {
        let spec = JobSpec {
            verify: Some(crc32c_read_back()),
            ..sequenced(RwMode::Write, Sequencer::Skip(3 * 4096))
        };
        let mut w = Workload::new(&spec, 16 * 4096, 0, 1);
        let got: Vec<u64> = (0..5).map(|_| w.next_io().1 / 4096).collect();
        assert_eq!(got, [0, 4, 8, 12, 0]);
        assert_eq!(w.pass(), 1);
        let written: Vec<u64> = w.written_offsets().map(|o| o / 4096).collect();
        assert_eq!(written, [0, 4, 8, 12]);
    }

    #[test]
    fn a_mixed_verifying_job_logs_only_its_writes_and_reads_where_it_would() {
        let spec = JobSpec {
            verify: Some(crc32c_read_back()),
            ..spec(RwMode::Rw, 1)
        };
        let mut w = Workload::new(&spec, 16 * 4096, 0, 1);
        let mut writes = Vec::new();
        let mut reads = Vec::new();
        for _ in 0..12 {
            match w.next_io() {
                (Direction::Write, at) => writes.push(at / 4096),
                (_, at) => reads.push(at / 4096),
            }
        }
        assert!(!writes.is_empty() && !reads.is_empty());
        // Each direction walks from the start by itself; only the writes are the written set.
        assert_eq!(writes, (0..writes.len() as u64).collect::<Vec<_>>());
        assert_eq!(reads, (0..reads.len() as u64).collect::<Vec<_>>());
        let written: Vec<u64> = w.written_offsets().map(|o| o / 4096).collect();
        assert_eq!(written, writes);
    }

    #[test]
    fn zoned_sends_each_share_of_the_io_to_its_zone() {
        let mut zones = crate::bench::spec::Zones {
            count: 3,
            zones: [(0, 0); crate::bench::spec::MAX_ZONES],
        };
        zones.zones[..3].copy_from_slice(&[(50, 5), (30, 15), (20, 80)]);
        let spec = JobSpec {
            distribution: Distribution::Zoned(zones),
            ..spec(RwMode::RandRead, 1)
        };
        let blocks = 10_000u64;
        let mut w = Workload::new(&spec, blocks * 4096, 0, 5);
        let mut counts = [0u32; 3];
        for _ in 0..100_000 {
            let block = w.next_io().1 / 4096;
            assert!(block < blocks);
            counts[match block {
                0..500 => 0,
                500..2000 => 1,
                _ => 2,
            }] += 1;
        }
        for (got, want) in counts.iter().zip([50_000, 30_000, 20_000]) {
            assert!(got.abs_diff(want) < 1_000, "{counts:?}");
        }
    }
}
