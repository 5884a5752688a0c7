//! fio's `zonemode=zbd` emulated on a regular file or a non-zoned block device: the job's
//! region is cut into zones of `zonesize`, each with a write pointer; writes go at a zone's
//! write pointer (so each zone is written sequentially from its start), at most
//! `max_open_zones` zones are open at once, a full zone is closed, and a write that finds its
//! zone full resets it first (on emulated zones a reset only moves the write pointer back to
//! the zone's start, as fio's does: the data stays). Every zone starts empty, as fio assumes
//! for emulated zones; with `read_beyond_wp=0` reads only go below a write pointer, so a read
//! job over zones nothing has written this run reads nothing and ends, as fio's does.
//!
//! An I/O holds its zone from its placement until its completion, as fio's zone lock does:
//! the clone that holds a zone may place more I/Os in it (fio's zone mutex is recursive, so an
//! async job keeps several in flight in one zone), another clone aimed at it waits until the
//! holder's I/Os there have completed (fio's `zone_lock`: a sync job blocks, an async one first
//! completes what it has in flight). So at most one clone writes a zone at a time.
//!
//! The zone state is shared per file, as fio's: by the clones of a job, by the jobs of a step
//! on the same file, and by later steps (a stonewalled read job reads what a write job before
//! it wrote). Each I/O stays in the zones wholly inside its own job's region. A zoned device
//! (host-managed or host-aware) is refused: diskdash sends no zone commands.

use std::ops::Range;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Why an I/O found no place in the zones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Miss {
    /// The zone it goes to is held by another clone's I/O in flight: wait, then try again.
    Busy(usize),
    /// No zone can take it (nothing to read, no zone left to open).
    Nothing,
}

/// fio's zbd options for one job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZbdZones {
    /// fio's `zonesize`: each zone's length, bytes.
    pub zone_bytes: u64,
    /// fio's `max_open_zones`: zones open at once over all the job's clones (0: no limit).
    pub max_open: u32,
    /// fio's `job_max_open_zones`: zones one clone may hold open (0: no limit).
    pub job_max_open: u32,
    /// fio's `read_beyond_wp`: reads may go above the write pointer (to data of earlier runs).
    pub read_beyond_wp: bool,
    /// fio's `zone_reset_threshold`, millionths: once the zones hold this share of the job's
    /// region in data, every `reset_every`-th write resets its zone first.
    pub reset_threshold_ppm: u32,
    /// fio's `zone_reset_frequency` as writes between resets (1 / frequency); 0: never.
    pub reset_every: u32,
}

/// A job's way into its file's zones: the state shared per file and the zones of its region.
#[derive(Debug, Clone)]
pub struct JobZones {
    pub shared: std::sync::Arc<SharedZones>,
    pub span: Range<usize>,
}

impl JobZones {
    /// The job on `[start_bytes, start_bytes + len_bytes)` of the file whose zones `shared`
    /// are (grown to hold the region).
    #[must_use]
    pub fn new(shared: std::sync::Arc<SharedZones>, start_bytes: u64, len_bytes: u64) -> Self {
        let span = shared.with(|state| {
            state.grow(start_bytes.saturating_add(len_bytes));
            state.span(start_bytes, len_bytes)
        });
        Self { shared, span }
    }
}

/// The zones of a file and their write pointers, shared by the jobs on it and their clones.
#[derive(Debug)]
pub struct SharedZones {
    state: Mutex<ZoneState>,
    /// Signalled when a zone's holder lets it go.
    freed: Condvar,
}

impl SharedZones {
    /// The zones wholly inside `[start_bytes, start_bytes + len_bytes)` (fio rounds the region
    /// in to zone boundaries), for `workers` clones (more may come: see [`ZoneState::grow`]).
    #[must_use]
    pub fn new(zones: ZbdZones, start_bytes: u64, len_bytes: u64, workers: u32) -> Self {
        Self {
            state: Mutex::new(ZoneState::new(zones, start_bytes, len_bytes, workers)),
            freed: Condvar::new(),
        }
    }

    /// Clone `worker`'s I/O at `at` has completed: its hold on the zone is let go.
    pub fn release(&self, worker: u32, at: u64) {
        if self.with(|state| state.release(worker, at)) {
            self.freed.notify_all();
        }
    }

    /// Clone `worker` ends: every zone it still holds is let go.
    pub fn release_all(&self, worker: u32) {
        if self.with(|state| state.release_all(worker)) {
            self.freed.notify_all();
        }
    }

    /// Waits up to `timeout` for `zone` to be free for clone `worker`; whether it is.
    pub fn wait_free(&self, worker: u32, zone: usize, timeout: Duration) -> bool {
        let guard = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (guard, _) = self
            .freed
            .wait_timeout_while(guard, timeout, |state| !state.free_for(zone, worker))
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        guard.free_for(zone, worker)
    }

    /// Runs `f` on the zone state (a poisoned lock still holds consistent write pointers:
    /// every change is one assignment).
    pub fn with<R>(&self, f: impl FnOnce(&mut ZoneState) -> R) -> R {
        let mut guard = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut guard)
    }
}

/// Zones, write pointers and the open set.
#[derive(Debug, Clone)]
pub struct ZoneState {
    zones: ZbdZones,
    /// The first zone's start in the target, bytes.
    first_bytes: u64,
    /// Bytes written in each zone (the write pointer less the zone's start).
    written: Vec<u64>,
    /// Open zones, with the clone that opened each.
    open: Vec<(u32, u32)>,
    /// Zones each clone holds open.
    held: Vec<u32>,
    /// Zones reset so far.
    resets: u64,
    /// Per zone, the clone holding it (its index + 1, 0: free) and its I/Os in flight there.
    holders: Vec<(u32, u32)>,
    /// Bytes below all the write pointers (fio's `wp_sectors_with_data`).
    with_data: u64,
    /// Writes left until the next reset `zone_reset_frequency` asks for.
    writes_to_reset: u32,
}

impl ZoneState {
    fn new(zones: ZbdZones, start_bytes: u64, len_bytes: u64, workers: u32) -> Self {
        let size = zones.zone_bytes.max(1);
        let first = start_bytes.div_ceil(size);
        let end = start_bytes.saturating_add(len_bytes) / size;
        let count = usize::try_from(end.saturating_sub(first)).unwrap_or(0);
        Self {
            zones,
            first_bytes: first * size,
            written: vec![0; count],
            open: Vec::new(),
            held: vec![0; workers.max(1) as usize],
            resets: 0,
            holders: vec![(0, 0); count],
            with_data: 0,
            writes_to_reset: zones.reset_every,
        }
    }

    /// fio's zone_reset_threshold and zone_reset_frequency before a write in `span`: whether
    /// this write resets its zone first (the zones hold the threshold's share of the region
    /// and this is the frequency's n-th write since the last).
    fn reset_due(&mut self, span: &Range<usize>) -> bool {
        if self.zones.reset_every == 0 {
            return false;
        }
        let region = span.len() as u128 * u128::from(self.zones.zone_bytes);
        if u128::from(self.with_data) * 1_000_000
            < region * u128::from(self.zones.reset_threshold_ppm)
        {
            return false;
        }
        self.writes_to_reset = self.writes_to_reset.saturating_sub(1);
        if self.writes_to_reset > 0 {
            return false;
        }
        self.writes_to_reset = self.zones.reset_every;
        true
    }

    /// The zones now reach at least `end_bytes` (a later job on the file with a larger region);
    /// the new zones start empty.
    pub fn grow(&mut self, end_bytes: u64) {
        let count = usize::try_from(
            (end_bytes / self.zones.zone_bytes.max(1))
                .saturating_sub(self.first_bytes / self.zones.zone_bytes.max(1)),
        )
        .unwrap_or(0);
        if count > self.written.len() {
            self.written.resize(count, 0);
            self.holders.resize(count, (0, 0));
        }
    }

    /// The zones wholly inside `[start_bytes, start_bytes + len_bytes)`: a job's, its I/O
    /// stays in them (fio's `min_zone`..`max_zone`).
    #[must_use]
    pub fn span(&self, start_bytes: u64, len_bytes: u64) -> Range<usize> {
        let size = self.zones.zone_bytes.max(1);
        let zone = |bytes: u64| {
            usize::try_from(bytes.saturating_sub(self.first_bytes) / size)
                .unwrap_or(usize::MAX)
                .min(self.count())
        };
        let first = zone(start_bytes.max(self.first_bytes).div_ceil(size) * size);
        let end = zone(start_bytes.saturating_add(len_bytes));
        first..end.max(first)
    }

    /// Whether clone `worker` may place an I/O in `zone` (nobody else holds it).
    #[must_use]
    pub fn free_for(&self, zone: usize, worker: u32) -> bool {
        self.holders
            .get(zone)
            .is_none_or(|&(holder, _)| holder == 0 || holder == worker + 1)
    }

    /// The clone holding `zone`, with its I/Os in flight there.
    #[cfg(test)]
    #[must_use]
    pub fn holder(&self, zone: usize) -> Option<(u32, u32)> {
        let (holder, count) = self.holders[zone];
        (holder > 0).then(|| (holder - 1, count))
    }

    fn hold(&mut self, zone: usize, worker: u32) {
        let slot = &mut self.holders[zone];
        *slot = (worker + 1, slot.1 + 1);
    }

    /// Clone `worker`'s I/O at `at` has completed; whether its zone is free now.
    pub fn release(&mut self, worker: u32, at: u64) -> bool {
        if self.written.is_empty() {
            return false;
        }
        let zone = self.zone_of(at);
        let slot = &mut self.holders[zone];
        if slot.0 != worker + 1 {
            return false;
        }
        slot.1 = slot.1.saturating_sub(1);
        if slot.1 == 0 {
            slot.0 = 0;
        }
        slot.0 == 0
    }

    /// Clone `worker` ends: the zones it holds are let go; whether it held any.
    pub fn release_all(&mut self, worker: u32) -> bool {
        let mut any = false;
        for slot in &mut self.holders {
            if slot.0 == worker + 1 {
                *slot = (0, 0);
                any = true;
            }
        }
        any
    }

    /// How many zones the region holds.
    #[must_use]
    pub fn count(&self) -> usize {
        self.written.len()
    }

    /// Zone `zone`'s write pointer, bytes from the target's start.
    #[must_use]
    pub fn write_pointer(&self, zone: usize) -> u64 {
        self.start(zone) + self.written[zone]
    }

    /// The zones open now.
    #[cfg(test)]
    #[must_use]
    pub fn open_zones(&self) -> usize {
        self.open.len()
    }

    /// Zones reset so far.
    #[cfg(test)]
    #[must_use]
    pub fn resets(&self) -> u64 {
        self.resets
    }

    fn start(&self, zone: usize) -> u64 {
        self.first_bytes + zone as u64 * self.zones.zone_bytes
    }

    fn zone_of(&self, at: u64) -> usize {
        let index = at.saturating_sub(self.first_bytes) / self.zones.zone_bytes.max(1);
        usize::try_from(index)
            .unwrap_or(usize::MAX)
            .min(self.count().saturating_sub(1))
    }

    /// The zone of `at`, kept inside `span`.
    fn zone_in(&self, span: &Range<usize>, at: u64) -> usize {
        self.zone_of(at).clamp(span.start, span.end - 1)
    }

    /// Opens `zone` for clone `worker` when the limits allow (an open zone stays open).
    fn try_open(&mut self, zone: usize, worker: u32) -> bool {
        let zone32 = u32::try_from(zone).unwrap_or(u32::MAX);
        if self.open.iter().any(|&(z, _)| z == zone32) {
            return true;
        }
        let max = self.zones.max_open as usize;
        if self.held.len() <= worker as usize {
            self.held.resize(worker as usize + 1, 0);
        }
        let held = self.held[worker as usize];
        if (max > 0 && self.open.len() >= max)
            || (self.zones.job_max_open > 0 && held >= self.zones.job_max_open)
        {
            return false;
        }
        self.open.push((zone32, worker));
        if let Some(count) = self.held.get_mut(worker as usize) {
            *count += 1;
        }
        true
    }

    fn close(&mut self, zone: usize) {
        let zone32 = u32::try_from(zone).unwrap_or(u32::MAX);
        if let Some(i) = self.open.iter().position(|&(z, _)| z == zone32) {
            let (_, opener) = self.open.swap_remove(i);
            if let Some(count) = self.held.get_mut(opener as usize) {
                *count = count.saturating_sub(1);
            }
        }
    }

    /// Where clone `worker`'s write of `len` bytes aimed at `aim` goes: at the write pointer
    /// of `aim`'s zone when that zone is open or may be opened, else of an open zone picked by
    /// `aim` (fio's `zbd_convert_to_open_zone`). A zone with no room for the write is reset
    /// first; a zone left with less than `min_bytes` of room is closed. The write holds its
    /// zone until [`Self::release`]. `Busy`: the aimed zone (or the open one picked) is held by
    /// another clone, as fio's `zone_lock` waits on it first; `Nothing`: the region holds no
    /// zone, or no zone can be written.
    pub fn write(
        &mut self,
        worker: u32,
        span: &Range<usize>,
        aim: u64,
        len: u32,
        min_bytes: u64,
    ) -> Result<(u64, u32), Miss> {
        if span.is_empty() {
            return Err(Miss::Nothing);
        }
        let size = self.zones.zone_bytes;
        let len = u32::try_from(u64::from(len).min(size)).unwrap_or(len);
        let mut zone = self.zone_in(span, aim);
        if !self.free_for(zone, worker) {
            return Err(Miss::Busy(zone));
        }
        if !self.try_open(zone, worker) {
            // An open zone of this job's region (fio's candidates skip other jobs' zones).
            let mut open = self
                .open
                .iter()
                .map(|&(z, _)| z as usize)
                .filter(|z| span.contains(z));
            let candidates = open.clone().count();
            if candidates == 0 {
                return Err(Miss::Nothing);
            }
            let pick = (aim / min_bytes.max(1)) as usize % candidates;
            zone = open.nth(pick).expect("pick is below the count");
            if !self.free_for(zone, worker) {
                return Err(Miss::Busy(zone));
            }
        }
        if self.reset_due(span) || self.written[zone] + u64::from(len) > size {
            // fio's reset of an emulated zone: the write pointer goes back to the start.
            self.with_data -= self.written[zone];
            self.written[zone] = 0;
            self.resets += 1;
        }
        let at = self.write_pointer(zone);
        self.written[zone] += u64::from(len);
        self.with_data += u64::from(len);
        if self.written[zone] + min_bytes.max(1) > size {
            self.close(zone);
        }
        self.hold(zone, worker);
        Ok((at, len))
    }

    /// Where a read of `len` bytes aimed at `aim` goes when reads stay below the write
    /// pointers (fio's `read_beyond_wp=0`): in `aim`'s zone when it holds `min_bytes` of data
    /// (and, read sequentially, `aim` is below its write pointer), else in the next zone that
    /// does (a random read also looks back), at its start for a sequential read; a random
    /// read keeps its place in the zone modulo the data. The read is cut at the write
    /// pointer, and holds its zone until [`Self::release`] (fio locks a zone for a read too).
    /// `Busy`: the zone is held by another clone; `Nothing`: no zone ahead holds data.
    pub fn read(
        &mut self,
        worker: u32,
        span: &Range<usize>,
        aim: u64,
        len: u32,
        min_bytes: u64,
        random: bool,
    ) -> Result<(u64, u32), Miss> {
        if span.is_empty() {
            return Err(Miss::Nothing);
        }
        let min_bytes = min_bytes.max(1);
        let aimed = self.zone_in(span, aim);
        if !self.free_for(aimed, worker) {
            return Err(Miss::Busy(aimed));
        }
        let aimed_start = self.start(aimed);
        let mut zone = aimed;
        let mut at = aim.max(aimed_start);
        if self.written[zone] < min_bytes || (!random && at + min_bytes > self.write_pointer(zone))
        {
            zone = self
                .find_data(span, aimed, min_bytes, random)
                .ok_or(Miss::Nothing)?;
            if !self.free_for(zone, worker) {
                return Err(Miss::Busy(zone));
            }
            if !random {
                at = self.start(zone);
            }
        }
        let start = self.start(zone);
        let range = self.written[zone];
        let len64 = u64::from(len);
        if range <= len64 {
            at = start;
        } else if random {
            at = start
                + ((aim.saturating_sub(aimed_start)) % (range - len64)) / min_bytes * min_bytes;
        }
        let cut = len64.min(start + range - at) / min_bytes * min_bytes;
        let cut = u32::try_from(cut)
            .ok()
            .filter(|&n| n > 0)
            .ok_or(Miss::Nothing)?;
        self.hold(zone, worker);
        Ok((at, cut))
    }

    /// The nearest zone of `span` after `from` (a random read: or before it) with
    /// `min_bytes` of data.
    fn find_data(
        &self,
        span: &Range<usize>,
        from: usize,
        min_bytes: u64,
        random: bool,
    ) -> Option<usize> {
        let has = |z: usize| self.written[z] >= min_bytes;
        for step in 1..span.len() {
            if from + step < span.end && has(from + step) {
                return Some(from + step);
            }
            if random && from >= span.start + step && has(from - step) {
                return Some(from - step);
            }
        }
        None
    }
}

/// Whether the block device `rdev` is zoned: its model (`host-managed`, `host-aware`) from
/// `/sys/dev/block/M:m/queue/zoned` (a partition's from its disk's), `None` for `none` or
/// where sysfs does not say.
#[must_use]
pub fn zoned_model(rdev: u64) -> Option<String> {
    let dev = format!("/sys/dev/block/{}:{}", libc::major(rdev), libc::minor(rdev));
    [
        format!("{dev}/queue/zoned"),
        format!("{dev}/../queue/zoned"),
    ]
    .iter()
    .find_map(|path| std::fs::read_to_string(path).ok())
    .map(|text| text.trim().to_string())
    .filter(|model| !model.is_empty() && model != "none")
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn zones(max_open: u32, job_max_open: u32) -> ZbdZones {
        ZbdZones {
            zone_bytes: 4 * MIB,
            max_open,
            job_max_open,
            read_beyond_wp: false,
            reset_threshold_ppm: 0,
            reset_every: 0,
        }
    }

    fn splitmix(state: &mut u64) -> u64 {
        crate::bench::kinds::splitmix64(state)
    }

    #[test]
    fn random_writes_fill_each_zone_sequentially_within_the_open_limit() {
        // 64 MiB, zones of 4 MiB, 512 KiB writes from four clones, at most 4 open.
        let mut state = ZoneState::new(zones(4, 0), 0, 64 * MIB, 4);
        assert_eq!(state.count(), 16);
        let mut rng = 7u64;
        let mut last_end = [0u64; 16];
        let mut written = 0u64;
        for i in 0..2000u32 {
            let aim = splitmix(&mut rng) % (64 * MIB);
            let (at, len) = state
                .write(i % 4, &(0..state.count()), aim, 512 << 10, 512 << 10)
                .unwrap();
            state.release(i % 4, at);
            assert!(state.open_zones() <= 4, "{} open", state.open_zones());
            let zone = (at / (4 * MIB)) as usize;
            let within = at % (4 * MIB);
            // Each write starts where the zone's last ended, or at the start after a reset.
            assert!(
                within == last_end[zone] || (within == 0 && last_end[zone] == 4 * MIB),
                "zone {zone}: write at {within} after {}",
                last_end[zone]
            );
            assert!(within + u64::from(len) <= 4 * MIB);
            last_end[zone] = within + u64::from(len);
            written += u64::from(len);
        }
        assert_eq!(written, 2000 * (512 << 10));
        // 1000 MiB over 64 MiB of zones: full zones were reset and written again.
        assert!(state.resets() > 0);
    }

    #[test]
    fn one_clone_holds_at_most_job_max_open_zones() {
        let mut state = ZoneState::new(zones(0, 2), 0, 64 * MIB, 2);
        let mut rng = 3u64;
        for _ in 0..500 {
            let aim = splitmix(&mut rng) % (64 * MIB);
            let (at, _) = state
                .write(0, &(0..state.count()), aim, 64 << 10, 64 << 10)
                .unwrap();
            state.release(0, at);
            assert!(state.held[0] <= 2 && state.open_zones() <= 2);
        }
    }

    #[test]
    fn a_region_off_zone_boundaries_is_rounded_in() {
        // 1 MiB .. 19 MiB holds the zones at 4, 8 and 12 MiB.
        let mut state = ZoneState::new(zones(0, 0), MIB, 18 * MIB, 1);
        assert_eq!(state.count(), 3);
        assert_eq!(
            state.write(0, &(0..state.count()), 0, 4096, 4096),
            Ok((4 * MIB, 4096))
        );
        assert_eq!(
            state.write(0, &(0..state.count()), 20 * MIB, 4096, 4096),
            Ok((12 * MIB, 4096))
        );
        let mut none = ZoneState::new(zones(0, 0), MIB, 4 * MIB, 1);
        assert_eq!(none.count(), 0);
        assert_eq!(
            none.read(0, &(0..none.count()), 0, 4096, 4096, false),
            Err(Miss::Nothing)
        );
    }

    #[test]
    fn reads_stay_below_the_write_pointers() {
        let mut state = ZoneState::new(zones(0, 0), 0, 16 * MIB, 1);
        // Nothing written: nothing to read, as fio's emulated zones start empty.
        assert_eq!(
            state.read(0, &(0..state.count()), 0, 256 << 10, 256 << 10, false),
            Err(Miss::Nothing)
        );
        assert_eq!(
            state.read(0, &(0..state.count()), 5 * MIB, 256 << 10, 256 << 10, true),
            Err(Miss::Nothing)
        );
        // 1 MiB in zone 1, 512 KiB in zone 3.
        for _ in 0..4 {
            state
                .write(0, &(0..state.count()), 4 * MIB, 256 << 10, 256 << 10)
                .unwrap();
        }
        state
            .write(0, &(0..state.count()), 12 * MIB, 512 << 10, 256 << 10)
            .unwrap();
        // A sequential read from 0 moves to zone 1's start, is cut at its write pointer,
        // then goes on to zone 3.
        assert_eq!(
            state.read(0, &(0..state.count()), 0, 256 << 10, 256 << 10, false),
            Ok((4 * MIB, 256 << 10))
        );
        assert_eq!(
            state.read(
                0,
                &(0..state.count()),
                4 * MIB + (768 << 10),
                512 << 10,
                256 << 10,
                false
            ),
            Ok((4 * MIB + (768 << 10), 256 << 10))
        );
        assert_eq!(
            state.read(0, &(0..state.count()), 5 * MIB, 256 << 10, 256 << 10, false),
            Ok((12 * MIB, 256 << 10))
        );
        assert_eq!(
            state.read(
                0,
                &(0..state.count()),
                12 * MIB + (512 << 10),
                256 << 10,
                256 << 10,
                false
            ),
            Err(Miss::Nothing)
        );
        // Random reads land below a write pointer, wherever they aim.
        let mut rng = 9u64;
        for _ in 0..500 {
            let aim = splitmix(&mut rng) % (16 * MIB) / 4096 * 4096;
            let (at, len) = state
                .read(0, &(0..state.count()), aim, 128 << 10, 4096, true)
                .unwrap();
            let zone = (at / (4 * MIB)) as usize;
            assert!(
                at + u64::from(len) <= state.write_pointer(zone),
                "{at} {len}"
            );
        }
    }

    #[test]
    fn a_zone_takes_writes_from_one_clone_at_a_time() {
        // 16 clones, 4 zones of 4 MiB, each clone with up to 4 writes in flight that complete
        // in a random order: a clone finds a zone held by another busy and waits (retries the
        // same aim later); no zone ever has writes of two clones in flight.
        let mut state = ZoneState::new(zones(32, 0), 0, 16 * MIB, 16);
        let mut rng = 11u64;
        let mut flight: Vec<(u32, u64)> = Vec::new();
        let mut waiting: Vec<Option<u64>> = vec![None; 16];
        let (mut placed, mut busy) = (0u32, 0u32);
        for _ in 0..20_000 {
            let worker = (splitmix(&mut rng) % 16) as u32;
            let mine = flight.iter().filter(|(w, _)| *w == worker).count();
            if mine < 4 && splitmix(&mut rng) % 2 == 0 {
                let aim = waiting[worker as usize]
                    .take()
                    .unwrap_or_else(|| splitmix(&mut rng) % (16 * MIB));
                match state.write(worker, &(0..state.count()), aim, 512 << 10, 512 << 10) {
                    Ok((at, _)) => {
                        let zone = (at / (4 * MIB)) as usize;
                        assert!(
                            flight
                                .iter()
                                .all(|&(w, o)| w == worker || (o / (4 * MIB)) as usize != zone),
                            "clone {worker} wrote zone {zone} while another clone's write was in flight"
                        );
                        assert_eq!(state.holder(zone).map(|h| h.0), Some(worker));
                        flight.push((worker, at));
                        placed += 1;
                    }
                    Err(Miss::Busy(zone)) => {
                        let (holder, count) = state.holder(zone).unwrap();
                        assert!(holder != worker && count > 0);
                        waiting[worker as usize] = Some(aim);
                        busy += 1;
                    }
                    Err(Miss::Nothing) => panic!("four zones open, none writable"),
                }
            } else if !flight.is_empty() {
                let i = (splitmix(&mut rng) % flight.len() as u64) as usize;
                let (w, at) = flight.swap_remove(i);
                let zone = (at / (4 * MIB)) as usize;
                let freed = state.release(w, at);
                assert_eq!(
                    freed,
                    !flight
                        .iter()
                        .any(|&(w2, o)| w2 == w && (o / (4 * MIB)) as usize == zone)
                );
            }
        }
        assert!(placed > 1000 && busy > 1000, "{placed} placed, {busy} busy");
        // A clone that ends lets its zones go.
        let held: Vec<u32> = flight.iter().map(|&(w, _)| w).collect();
        for w in held {
            state.release_all(w);
        }
        assert!((0..state.count()).all(|z| state.holder(z).is_none()));
    }

    #[test]
    fn one_clone_keeps_several_ios_in_flight_in_its_zone() {
        // fio's zone mutex is recursive: an async clone may queue more writes in a zone it
        // holds; the zone is free once the last of them completes.
        let mut state = ZoneState::new(zones(0, 0), 0, 8 * MIB, 2);
        let a = state.write(0, &(0..state.count()), 0, 4096, 4096).unwrap();
        let b = state
            .write(0, &(0..state.count()), 100, 4096, 4096)
            .unwrap();
        assert_eq!((a.0, b.0), (0, 4096));
        assert_eq!(state.holder(0), Some((0, 2)));
        assert_eq!(
            state.write(1, &(0..state.count()), 0, 4096, 4096),
            Err(Miss::Busy(0))
        );
        assert_eq!(
            state.read(1, &(0..state.count()), 0, 4096, 4096, false),
            Err(Miss::Busy(0))
        );
        // The other zone is free for clone 1.
        assert_eq!(
            state.write(1, &(0..state.count()), 5 * MIB, 4096, 4096),
            Ok((4 * MIB, 4096))
        );
        assert!(!state.release(0, a.0));
        assert!(state.release(0, b.0));
        assert_eq!(
            state.write(1, &(0..state.count()), 0, 4096, 4096),
            Ok((8192, 4096))
        );
    }

    #[test]
    fn a_waiting_clone_wakes_when_the_zone_is_let_go() {
        let shared = std::sync::Arc::new(SharedZones::new(zones(0, 0), 0, 8 * MIB, 2));
        let (at, _) = shared
            .with(|s| s.write(0, &(0..s.count()), 0, 4096, 4096))
            .unwrap();
        assert!(!shared.wait_free(1, 0, Duration::from_millis(10)));
        let other = shared.clone();
        let waiter = std::thread::spawn(move || other.wait_free(1, 0, Duration::from_secs(10)));
        std::thread::sleep(Duration::from_millis(20));
        shared.release(0, at);
        assert!(waiter.join().unwrap());
    }

    #[test]
    fn jobs_on_one_file_share_its_zones_each_in_its_region() {
        // A write job on the first 8 MiB, then (a later step, the state grown) a read job on
        // the whole 16 MiB: it reads what the writer wrote, and the writer never left its zones.
        let mut state = ZoneState::new(zones(0, 0), 0, 8 * MIB, 1);
        let writer = state.span(0, 8 * MIB);
        assert_eq!(writer, 0..2);
        let mut rng = 5u64;
        for _ in 0..8 {
            let aim = splitmix(&mut rng) % (16 * MIB);
            let (at, _) = state.write(0, &writer, aim, 1 << 20, 4096).unwrap();
            assert!(at < 8 * MIB, "{at}");
            state.release(0, at);
        }
        state.grow(16 * MIB);
        assert_eq!(state.count(), 4);
        let reader = state.span(0, 16 * MIB);
        let (mut at, mut read) = (0, 0u64);
        while let Ok((got, len)) = state.read(3, &reader, at, 1 << 20, 4096, false) {
            state.release(3, got);
            read += u64::from(len);
            at = got + u64::from(len);
        }
        let below: u64 = (0..2)
            .map(|z| state.write_pointer(z) - z as u64 * 4 * MIB)
            .sum();
        assert!(below > 0);
        assert_eq!(read, below);
        // A job on zones 2..4 finds none of the writer's data in its own region.
        let other = state.span(8 * MIB, 8 * MIB);
        assert_eq!(other, 2..4);
        assert_eq!(
            state.read(4, &other, 8 * MIB, 4096, 4096, false),
            Err(Miss::Nothing)
        );
        // A region off zone boundaries is rounded in.
        assert_eq!(state.span(MIB, 9 * MIB), 1..2);
        assert!(state.span(MIB, 4 * MIB).is_empty());
    }

    #[test]
    fn past_the_threshold_every_nth_write_resets_its_zone() {
        // zone_reset_threshold=0.5, zone_reset_frequency=0.25 on 4 zones of 4 MiB: no reset
        // while under 8 MiB of data, then one each 4th write.
        let mut zbd = zones(0, 0);
        zbd.reset_threshold_ppm = 500_000;
        zbd.reset_every = 4;
        let mut state = ZoneState::new(zbd, 0, 16 * MIB, 1);
        let span = 0..4;
        for i in 0..8u64 {
            // Two zones filled in 1 MiB writes: 8 MiB, no reset.
            let (at, _) = state
                .write(0, &span, (i / 4) * 4 * MIB, 1 << 20, 4096)
                .unwrap();
            state.release(0, at);
        }
        assert_eq!(state.resets(), 0);
        // From here each 4th write into zone 2 resets it first.
        let mut starts = Vec::new();
        for _ in 0..8 {
            let (at, _) = state.write(0, &span, 8 * MIB, 1 << 20, 4096).unwrap();
            state.release(0, at);
            starts.push((at - 8 * MIB) >> 20);
        }
        assert_eq!(starts, [0, 1, 2, 0, 1, 2, 3, 0]);
        assert_eq!(state.resets(), 2);
    }
}
