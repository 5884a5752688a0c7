//! fio's `zonemode=zbd` emulated on a regular file or a non-zoned block device: the job's
//! region is cut into zones of `zonesize`, each with a write pointer; writes go at a zone's
//! write pointer (so each zone is written sequentially from its start), at most
//! `max_open_zones` zones are open at once, a full zone is closed, and a write that finds its
//! zone full resets it first (on emulated zones a reset only moves the write pointer back to
//! the zone's start, as fio's does: the data stays). Every zone starts empty, as fio assumes
//! for emulated zones; with `read_beyond_wp=0` reads only go below a write pointer, so a read
//! job over zones nothing has written this run reads nothing and ends, as fio's does.
//!
//! The zone state is shared by the clones of a job (fio shares it per file). A zoned device
//! (host-managed or host-aware) is refused: diskdash sends no zone commands.

use std::sync::Mutex;

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
}

/// The zones of one job's region and their write pointers, shared by its clones.
#[derive(Debug)]
pub struct SharedZones {
    state: Mutex<ZoneState>,
}

impl SharedZones {
    /// The zones wholly inside `[start_bytes, start_bytes + len_bytes)` (fio rounds the region
    /// in to zone boundaries), for `workers` clones.
    #[must_use]
    pub fn new(zones: ZbdZones, start_bytes: u64, len_bytes: u64, workers: u32) -> Self {
        Self {
            state: Mutex::new(ZoneState::new(zones, start_bytes, len_bytes, workers)),
        }
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
        }
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
    #[must_use]
    pub fn open_zones(&self) -> usize {
        self.open.len()
    }

    /// Zones reset so far.
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

    /// Opens `zone` for clone `worker` when the limits allow (an open zone stays open).
    fn try_open(&mut self, zone: usize, worker: u32) -> bool {
        let zone32 = u32::try_from(zone).unwrap_or(u32::MAX);
        if self.open.iter().any(|&(z, _)| z == zone32) {
            return true;
        }
        let max = self.zones.max_open as usize;
        let held = self.held.get(worker as usize).copied().unwrap_or(0);
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
    /// first; a zone left with less than `min_bytes` of room is closed. `None`: the region
    /// holds no zone, or no zone can be written.
    pub fn write(&mut self, worker: u32, aim: u64, len: u32, min_bytes: u64) -> Option<(u64, u32)> {
        if self.written.is_empty() {
            return None;
        }
        let size = self.zones.zone_bytes;
        let len = u32::try_from(u64::from(len).min(size)).unwrap_or(len);
        let mut zone = self.zone_of(aim);
        if !self.try_open(zone, worker) {
            if self.open.is_empty() {
                return None;
            }
            let pick = (aim / min_bytes.max(1)) as usize % self.open.len();
            zone = self.open[pick].0 as usize;
        }
        if self.written[zone] + u64::from(len) > size {
            // fio's reset of an emulated zone: the write pointer goes back to the start.
            self.written[zone] = 0;
            self.resets += 1;
        }
        let at = self.write_pointer(zone);
        self.written[zone] += u64::from(len);
        if self.written[zone] + min_bytes.max(1) > size {
            self.close(zone);
        }
        Some((at, len))
    }

    /// Where a read of `len` bytes aimed at `aim` goes when reads stay below the write
    /// pointers (fio's `read_beyond_wp=0`): in `aim`'s zone when it holds `min_bytes` of data
    /// (and, read sequentially, `aim` is below its write pointer), else in the next zone that
    /// does (a random read also looks back), at its start for a sequential read; a random
    /// read keeps its place in the zone modulo the data. The read is cut at the write
    /// pointer. `None`: no zone ahead holds data.
    #[must_use]
    pub fn read(&self, aim: u64, len: u32, min_bytes: u64, random: bool) -> Option<(u64, u32)> {
        if self.written.is_empty() {
            return None;
        }
        let min_bytes = min_bytes.max(1);
        let aimed = self.zone_of(aim);
        let aimed_start = self.start(aimed);
        let mut zone = aimed;
        let mut at = aim.max(aimed_start);
        if self.written[zone] < min_bytes || (!random && at + min_bytes > self.write_pointer(zone))
        {
            zone = self.find_data(aimed, min_bytes, random)?;
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
        let cut = u32::try_from(cut).ok().filter(|&n| n > 0)?;
        Some((at, cut))
    }

    /// The nearest zone after `from` (a random read: or before it) with `min_bytes` of data.
    fn find_data(&self, from: usize, min_bytes: u64, random: bool) -> Option<usize> {
        let has = |z: usize| self.written[z] >= min_bytes;
        for step in 1..self.count() {
            if from + step < self.count() && has(from + step) {
                return Some(from + step);
            }
            if random && step <= from && has(from - step) {
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
        }
    }

    fn splitmix(state: &mut u64) -> u64 {
        crate::bench::workload::splitmix64(state)
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
            let (at, len) = state.write(i % 4, aim, 512 << 10, 512 << 10).unwrap();
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
            state.write(0, aim, 64 << 10, 64 << 10).unwrap();
            assert!(state.held[0] <= 2 && state.open_zones() <= 2);
        }
    }

    #[test]
    fn a_region_off_zone_boundaries_is_rounded_in() {
        // 1 MiB .. 19 MiB holds the zones at 4, 8 and 12 MiB.
        let mut state = ZoneState::new(zones(0, 0), MIB, 18 * MIB, 1);
        assert_eq!(state.count(), 3);
        assert_eq!(state.write(0, 0, 4096, 4096), Some((4 * MIB, 4096)));
        assert_eq!(state.write(0, 20 * MIB, 4096, 4096), Some((12 * MIB, 4096)));
        let none = ZoneState::new(zones(0, 0), MIB, 4 * MIB, 1);
        assert_eq!(none.count(), 0);
        assert_eq!(none.read(0, 4096, 4096, false), None);
    }

    #[test]
    fn reads_stay_below_the_write_pointers() {
        let mut state = ZoneState::new(zones(0, 0), 0, 16 * MIB, 1);
        // Nothing written: nothing to read, as fio's emulated zones start empty.
        assert_eq!(state.read(0, 256 << 10, 256 << 10, false), None);
        assert_eq!(state.read(5 * MIB, 256 << 10, 256 << 10, true), None);
        // 1 MiB in zone 1, 512 KiB in zone 3.
        for _ in 0..4 {
            state.write(0, 4 * MIB, 256 << 10, 256 << 10).unwrap();
        }
        state.write(0, 12 * MIB, 512 << 10, 256 << 10).unwrap();
        // A sequential read from 0 moves to zone 1's start, is cut at its write pointer,
        // then goes on to zone 3.
        assert_eq!(
            state.read(0, 256 << 10, 256 << 10, false),
            Some((4 * MIB, 256 << 10))
        );
        assert_eq!(
            state.read(4 * MIB + (768 << 10), 512 << 10, 256 << 10, false),
            Some((4 * MIB + (768 << 10), 256 << 10))
        );
        assert_eq!(
            state.read(5 * MIB, 256 << 10, 256 << 10, false),
            Some((12 * MIB, 256 << 10))
        );
        assert_eq!(
            state.read(12 * MIB + (512 << 10), 256 << 10, 256 << 10, false),
            None
        );
        // Random reads land below a write pointer, wherever they aim.
        let mut rng = 9u64;
        for _ in 0..500 {
            let aim = splitmix(&mut rng) % (16 * MIB) / 4096 * 4096;
            let (at, len) = state.read(aim, 128 << 10, 4096, true).unwrap();
            let zone = (at / (4 * MIB)) as usize;
            assert!(
                at + u64::from(len) <= state.write_pointer(zone),
                "{at} {len}"
            );
        }
    }
}
