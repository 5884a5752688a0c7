//! Events into per-disk, per-direction histograms: each request followed through its
//! tracepoints, matched FIFO per (disk, sector). The events arrive in time order (the reader
//! sorts the CPUs' events), so a request's events come in the order the kernel traced them.

use std::collections::hash_map::Entry::{Occupied, Vacant};
use std::collections::{HashMap, VecDeque};

use super::event::{Dir, Event, Kind};
use super::scope::Scope;
use crate::stats::LatencyHistogram;

/// Requests (or bios) waiting for their next event, at most, per map; past it the oldest
/// are dropped and counted unmatched.
pub const MAX_PENDING: usize = 1 << 16;
/// A pending request older than this (behind the newest event) is given up on: the block
/// layer's own default request timeout (30 s) would have ended it, so its next event was lost.
const STALE_NS: u64 = 30_000_000_000;

/// One direction's requests on one disk.
#[derive(Debug, Clone, Default)]
pub struct DirTrace {
    /// Requests completed (diskstats' completed I/Os).
    pub requests: u64,
    pub bytes: u64,
    /// Bios merged into a request already there.
    pub merges: u64,
    /// `block_bio_queue` -> `block_getrq`: waiting for a request (tags, wbt, iocost).
    pub wait_request: LatencyHistogram,
    /// `block_rq_insert` (or `block_io_start` where there is no insert) -> `block_rq_issue`.
    pub scheduler: LatencyHistogram,
    /// `block_rq_issue` -> `block_rq_complete`: driver and hardware.
    pub device: LatencyHistogram,
    /// `block_io_start` -> `block_io_done` (what diskstats' await averages); a bio-based
    /// device's `block_bio_queue` -> `block_bio_complete`; see [`BlockTrace::whole_nearest`].
    pub whole: LatencyHistogram,
    /// Request sizes, bytes.
    pub sizes: LatencyHistogram,
}

/// A process's I/O on a disk (threads counted for their process, `iou-wrk` ones included).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessIo {
    /// The process (tgid).
    pub pid: i32,
    pub comm: String,
    /// A kernel thread (writeback's flush workers, kblockd).
    pub kernel: bool,
    pub ios: u64,
    pub bytes: u64,
    pub device_time_ns: u64,
}

/// What the tracer saw of one disk since the last take.
#[derive(Debug, Clone, Default)]
pub struct BlockTrace {
    /// The whole disk's kernel name.
    pub disk: String,
    pub scope: Scope,
    /// Some `whole` times are from the nearest events (`block_rq_insert`/`issue` ->
    /// `block_rq_complete`): the kernel has no `block_io_start`, or the queue's `iostats` is
    /// off.
    pub whole_nearest: bool,
    /// Whether waiting for a request (`block_bio_queue` -> `block_getrq`) and merges were
    /// traced ([`super::Detail::Full`]); when not, their zeros mean "not measured".
    pub wait_request_traced: bool,
    /// Events the kernel's buffer lost (the whole tracer's, not only this disk's).
    pub lost_events: u64,
    /// Events that had more than one candidate (same disk and sector in flight twice); the
    /// first in line was taken.
    pub ambiguous_matches: u64,
    /// Events with no request to belong to, and requests given up on.
    pub unmatched: u64,
    /// Read, write, trim.
    pub dirs: [DirTrace; 3],
    /// By process, most I/Os first.
    pub by_process: Vec<ProcessIo>,
}

impl BlockTrace {
    /// Requests completed, all directions.
    #[must_use]
    pub fn requests(&self) -> u64 {
        self.dirs.iter().map(|d| d.requests).sum()
    }

    /// Adds `other` (a later take of the same disk): the two windows as one take over both
    /// would have them (the matching state lives in the matcher, not in a take).
    pub fn add(&mut self, other: &Self) {
        self.whole_nearest |= other.whole_nearest;
        self.wait_request_traced |= other.wait_request_traced;
        self.lost_events += other.lost_events;
        self.ambiguous_matches += other.ambiguous_matches;
        self.unmatched += other.unmatched;
        for (dir, more) in self.dirs.iter_mut().zip(&other.dirs) {
            dir.requests += more.requests;
            dir.bytes += more.bytes;
            dir.merges += more.merges;
            dir.wait_request.add(&more.wait_request);
            dir.scheduler.add(&more.scheduler);
            dir.device.add(&more.device);
            dir.whole.add(&more.whole);
            dir.sizes.add(&more.sizes);
        }
        for p in &other.by_process {
            match self.by_process.iter_mut().find(|q| q.pid == p.pid) {
                Some(q) => {
                    q.ios += p.ios;
                    q.bytes += p.bytes;
                    q.device_time_ns += p.device_time_ns;
                }
                None => self.by_process.push(p.clone()),
            }
        }
        self.by_process
            .sort_by(|a, b| b.ios.cmp(&a.ios).then(a.pid.cmp(&b.pid)));
    }

    fn fresh(&self) -> Self {
        Self {
            disk: self.disk.clone(),
            scope: self.scope,
            wait_request_traced: self.wait_request_traced,
            ..Self::default()
        }
    }
}

/// Who a pid is: its process and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proc {
    pub tgid: i32,
    pub comm: String,
    pub kernel: bool,
}

/// Finds who a pid is (`/proc` in use, a table in tests); `None`: the pid is gone.
pub type Resolve = Box<dyn FnMut(i32) -> Option<Proc> + Send>;

#[derive(Debug, Clone, Copy)]
struct Pending {
    start: Option<u64>,
    insert: Option<u64>,
    issue: Option<u64>,
    complete: Option<u64>,
    /// The driver handed it back once at least (`block_rq_requeue`): its `issue` was cleared
    /// for the issue again, and a second `block_rq_insert` is its own, not a new request's.
    requeued: bool,
    pid: i32,
    dir: Dir,
    bytes: u64,
}

impl Pending {
    fn new(event: &Event) -> Self {
        Self {
            start: None,
            insert: None,
            issue: None,
            complete: None,
            requeued: false,
            pid: event.pid,
            dir: event.dir,
            bytes: event.bytes,
        }
    }
}

/// A cheap hash for the pending maps' keys (disk index, sector): one multiply per word, where
/// the standard SipHash would be most of an event's matching. The keys are the kernel's
/// sectors, not input an attacker picks to collide.
#[derive(Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }

    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }

    fn write_i32(&mut self, v: i32) {
        self.write_u64(u64::from(v as u32));
    }
}

pub(crate) type KeyMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<KeyHasher>>;

/// A pending entry and its place in the push order.
struct Entry<T> {
    seq: u64,
    value: T,
}

/// The entries of one key, oldest first: almost always one, kept without an allocation.
enum Queue<T> {
    One(Entry<T>),
    Many(VecDeque<Entry<T>>),
}

impl<T> Queue<T> {
    fn position(&self, wanted: impl Fn(&Entry<T>) -> bool) -> Option<usize> {
        match self {
            Self::One(v) => wanted(v).then_some(0),
            Self::Many(q) => q.iter().position(wanted),
        }
    }

    fn any_after(&self, at: usize, wanted: impl Fn(&Entry<T>) -> bool) -> bool {
        match self {
            Self::One(_) => false,
            Self::Many(q) => q.iter().skip(at + 1).any(wanted),
        }
    }

    fn get_mut(&mut self, at: usize) -> Option<&mut Entry<T>> {
        match self {
            Self::One(v) => (at == 0).then_some(v),
            Self::Many(q) => q.get_mut(at),
        }
    }

    fn push(&mut self, value: Entry<T>) {
        match self {
            Self::Many(q) => q.push_back(value),
            Self::One(_) => {
                let mut q = VecDeque::with_capacity(2);
                let Self::One(first) = std::mem::replace(self, Self::Many(VecDeque::new())) else {
                    unreachable!("matched One above");
                };
                q.push_back(first);
                q.push_back(value);
                *self = Self::Many(q);
            }
        }
    }
}

/// One key's place in a [`Fifo`]'s map.
type Slot<'a, T> = std::collections::hash_map::OccupiedEntry<'a, (usize, u64), Queue<T>>;

/// A FIFO map per (disk, sector) with a bound on what it holds. Every push is also queued in
/// `order` (its key, sequence number and time), so the oldest pending entry is found at the
/// front without a scan, and whether anything needs giving up on is seen there without a
/// look-up: an entry taken since leaves its place behind, skipped when the front reaches it,
/// and `order` is compacted when such places outnumber the live ones.
struct Fifo<T> {
    map: KeyMap<(usize, u64), Queue<T>>,
    /// Key, sequence number and the time of the push (events come in time order, so the
    /// times rise from front to back).
    order: VecDeque<((usize, u64), u64, u64)>,
    next_seq: u64,
    len: usize,
}

impl<T> Default for Fifo<T> {
    fn default() -> Self {
        Self {
            map: KeyMap::default(),
            order: VecDeque::new(),
            next_seq: 0,
            len: 0,
        }
    }
}

impl<T> Fifo<T> {
    /// Adds `value` under `key`, pushed at `at` (ns).
    fn push(&mut self, key: (usize, u64), value: T, at: u64) {
        let entry = Entry {
            seq: self.next_seq,
            value,
        };
        match self.map.entry(key) {
            Occupied(mut e) => e.get_mut().push(entry),
            Vacant(e) => {
                e.insert(Queue::One(entry));
            }
        }
        self.order.push_back((key, self.next_seq, at));
        self.next_seq += 1;
        self.len += 1;
        if self.order.len() > 4 * self.len + 4096 {
            let map = &self.map;
            self.order.retain(|(key, seq, _)| {
                map.get(key)
                    .and_then(|q| q.position(|e| e.seq == *seq))
                    .is_some()
            });
        }
    }

    /// Removes the entry at `at` of `slot`'s queue (the key too when it was the last); the
    /// caller counts it out of `len`.
    fn remove(mut slot: Slot<'_, T>, at: usize) -> Option<T> {
        let entry = match slot.get_mut() {
            Queue::Many(q) if q.len() > 1 => q.remove(at)?,
            _ => match slot.remove() {
                Queue::One(v) => v,
                Queue::Many(mut q) => q.remove(at)?,
            },
        };
        Some(entry.value)
    }

    /// The first entry of `key` that `wanted` accepts, taken out, and whether another also
    /// was a candidate.
    fn take(&mut self, key: (usize, u64), wanted: impl Fn(&T) -> bool) -> Option<(T, bool)> {
        let Occupied(slot) = self.map.entry(key) else {
            return None;
        };
        let queue = slot.get();
        let at = queue.position(|e| wanted(&e.value))?;
        let ambiguous = queue.any_after(at, |e| wanted(&e.value));
        let value = Self::remove(slot, at)?;
        self.len -= 1;
        Some((value, ambiguous))
    }

    /// The first entry of `key` that `wanted` accepts, left in place.
    fn find(&mut self, key: (usize, u64), wanted: impl Fn(&T) -> bool) -> Option<(&mut T, bool)> {
        let queue = self.map.get_mut(&key)?;
        let at = queue.position(|e| wanted(&e.value))?;
        let ambiguous = queue.any_after(at, |e| wanted(&e.value));
        Some((&mut queue.get_mut(at)?.value, ambiguous))
    }

    /// Gives up on every entry, calling `dropped` with each one's disk.
    fn clear(&mut self, mut dropped: impl FnMut(usize)) {
        for ((disk, _), queue) in self.map.drain() {
            let n = match queue {
                Queue::One(_) => 1,
                Queue::Many(q) => q.len(),
            };
            for _ in 0..n {
                dropped(disk);
            }
        }
        self.order.clear();
        self.len = 0;
    }

    /// Gives up on the oldest entries while there are more than [`MAX_PENDING`], and on those
    /// pushed before `cutoff`, calling `dropped` with each one's disk: O(1) per entry, from
    /// the front of the push order; nothing is looked up while the front is young and the
    /// bound holds (a place already taken is skipped later).
    fn bound(&mut self, cutoff: u64, mut dropped: impl FnMut(usize)) {
        while let Some(&(key, seq, at)) = self.order.front() {
            if at >= cutoff && self.len <= MAX_PENDING {
                break;
            }
            let live = match self.map.entry(key) {
                Occupied(slot) => slot.get().position(|e| e.seq == seq).map(|at| (slot, at)),
                Vacant(_) => None,
            };
            let Some((slot, at)) = live else {
                // Taken already: its place is skipped.
                self.order.pop_front();
                continue;
            };
            self.order.pop_front();
            if Self::remove(slot, at).is_some() {
                self.len -= 1;
                dropped(key.0);
            }
        }
    }
}

/// Follows requests from event to event and keeps the disks' histograms.
pub struct Matcher {
    disks: Vec<BlockTrace>,
    by_process: Vec<KeyMap<i32, ProcessIo>>,
    dev_to_disk: KeyMap<u32, usize>,
    requests: Fifo<Pending>,
    bios: Fifo<(u64, i32)>,
    procs: KeyMap<i32, Proc>,
    /// `procs` before the last take: who a pid was while it lived, for its requests that
    /// finish after it is gone (a worker's last ones, drained after it ended).
    procs_before: KeyMap<i32, Proc>,
    resolve: Resolve,
    newest: u64,
}

impl Matcher {
    /// `disks`: each disk's name, scope and the device numbers (kernel encoding) that belong
    /// to it (the disk's and its partitions').
    #[must_use]
    pub fn new(disks: &[(String, Scope, Vec<u32>)], resolve: Resolve) -> Self {
        let mut dev_to_disk = KeyMap::default();
        for (at, (_, _, devs)) in disks.iter().enumerate() {
            for &dev in devs {
                dev_to_disk.insert(dev, at);
            }
        }
        Self {
            disks: disks
                .iter()
                .map(|(name, scope, _)| BlockTrace {
                    disk: name.clone(),
                    scope: *scope,
                    ..BlockTrace::default()
                })
                .collect(),
            by_process: vec![KeyMap::default(); disks.len()],
            dev_to_disk,
            requests: Fifo::default(),
            bios: Fifo::default(),
            procs: KeyMap::default(),
            procs_before: KeyMap::default(),
            resolve,
            newest: 0,
        }
    }

    /// Says whether waiting for a request is traced (every disk; off until said).
    pub fn set_wait_request_traced(&mut self, traced: bool) {
        for disk in &mut self.disks {
            disk.wait_request_traced = traced;
        }
    }

    /// Adds events the buffer lost to every disk's count, and gives up on every request and
    /// bio waiting for its next event (counted unmatched): a lost event may have been any of
    /// theirs, and one left waiting would be matched to the next request on its sector,
    /// seconds later. Called before the events read after the loss.
    pub fn lost(&mut self, events: u64) {
        if events == 0 {
            return;
        }
        let disks = &mut self.disks;
        for disk in disks.iter_mut() {
            disk.lost_events += events;
        }
        self.requests.clear(|disk| disks[disk].unmatched += 1);
        self.bios.clear(|disk| disks[disk].unmatched += 1);
    }

    /// One event, in time order.
    pub fn event(&mut self, event: &Event) {
        let Some(&disk) = self.dev_to_disk.get(&event.dev) else {
            return;
        };
        self.newest = self.newest.max(event.ts);
        // A request without a sector (a flush) is at sector 0 in the accounting and issue
        // events and at -1 in `block_rq_complete` (the raw position): one key for both.
        let sector = if event.sector == u64::MAX {
            0
        } else {
            event.sector
        };
        let key = (disk, sector);
        match event.kind {
            Kind::BioQueue => {
                self.bios.push(key, (event.ts, event.pid), event.ts);
                self.bound();
            }
            Kind::RqMerge => {
                // The merged request ends here: a later one on its sector is not it.
                if let Some((_, ambiguous)) = self.requests.take(key, |p| p.issue.is_none()) {
                    self.disks[disk].ambiguous_matches += u64::from(ambiguous);
                }
            }
            Kind::GetRq | Kind::BioMerge | Kind::BioFrontMerge => {
                if event.kind == Kind::BioFrontMerge {
                    self.front_merge(disk, event);
                }
                let Some(((queued, _), ambiguous)) = self.bios.take(key, |_| true) else {
                    return;
                };
                self.disks[disk].ambiguous_matches += u64::from(ambiguous);
                if let Some(d) = event.dir.index() {
                    let dir = &mut self.disks[disk].dirs[d];
                    if event.kind == Kind::GetRq {
                        dir.wait_request.record(event.ts.saturating_sub(queued));
                    } else {
                        dir.merges += 1;
                    }
                }
            }
            Kind::BioComplete => self.bio_complete(disk, key, event),
            Kind::IoStart => {
                let mut pending = Pending::new(event);
                pending.start = Some(event.ts);
                self.requests.push(key, pending, event.ts);
                self.bound();
            }
            Kind::Insert => {
                // A requeued request inserted again keeps its first insert: its time in the
                // scheduler runs to the issue that reached the device.
                match self.requests.find(key, |p| {
                    (p.insert.is_none() || p.requeued) && p.issue.is_none()
                }) {
                    Some((p, ambiguous)) => {
                        p.insert = p.insert.or(Some(event.ts));
                        self.disks[disk].ambiguous_matches += u64::from(ambiguous);
                    }
                    None => {
                        let mut pending = Pending::new(event);
                        pending.insert = Some(event.ts);
                        self.requests.push(key, pending, event.ts);
                        self.bound();
                    }
                }
            }
            Kind::Issue => self.issue(disk, key, event),
            Kind::Requeue => {
                // Issued, then handed back by the driver: its next `block_rq_issue` is its
                // own (left set, that issue would start a request of its own, waiting for
                // the next completion on the sector, maybe seconds later).
                match self
                    .requests
                    .find(key, |p| p.issue.is_some() && p.complete.is_none())
                {
                    Some((p, ambiguous)) => {
                        p.issue = None;
                        p.requeued = true;
                        self.disks[disk].ambiguous_matches += u64::from(ambiguous);
                    }
                    None => self.disks[disk].unmatched += 1,
                }
            }
            Kind::Complete => self.complete(disk, key, event),
            Kind::IoDone => match self.requests.take(key, |p| p.complete.is_some()) {
                Some((p, ambiguous)) => {
                    self.disks[disk].ambiguous_matches += u64::from(ambiguous);
                    let whole = p.start.map(|s| event.ts.saturating_sub(s));
                    self.finish(disk, &p, whole);
                }
                None => self.disks[disk].unmatched += 1,
            },
        }
    }

    /// A bio joined the front of a request not yet issued: the request, pending at the
    /// sector after the bio's, now starts at the bio's sector, where its later events are.
    fn front_merge(&mut self, disk: usize, event: &Event) {
        let sectors = event.bytes / 512;
        let from = (disk, event.sector.saturating_add(sectors));
        if let Some((mut p, ambiguous)) = self.requests.take(from, |p| p.issue.is_none()) {
            self.disks[disk].ambiguous_matches += u64::from(ambiguous);
            p.bytes += event.bytes;
            let at = p.start.or(p.insert).unwrap_or(event.ts);
            self.requests.push((disk, event.sector), p, at);
        }
    }

    fn issue(&mut self, disk: usize, key: (usize, u64), event: &Event) {
        match self.requests.find(key, |p| p.issue.is_none()) {
            Some((p, ambiguous)) => {
                p.issue = Some(event.ts);
                if p.bytes == 0 {
                    p.bytes = event.bytes;
                }
                self.disks[disk].ambiguous_matches += u64::from(ambiguous);
            }
            None => {
                let mut pending = Pending::new(event);
                pending.issue = Some(event.ts);
                self.requests.push(key, pending, event.ts);
                self.bound();
            }
        }
    }

    fn complete(&mut self, disk: usize, key: (usize, u64), event: &Event) {
        let Some((p, ambiguous)) = self
            .requests
            .find(key, |p| p.issue.is_some() && p.complete.is_none())
        else {
            self.disks[disk].unmatched += 1;
            return;
        };
        self.disks[disk].ambiguous_matches += u64::from(ambiguous);
        p.complete = Some(event.ts);
        let issued = p.issue.unwrap_or(event.ts);
        let waits_for_done = p.start.is_some();
        let queued = p.insert.or(p.start);
        let dir = p.dir;
        if let Some(d) = dir.index() {
            // Both parts when it completes: a requeued request's scheduler time runs to the
            // issue that reached the device, once.
            let dir = &mut self.disks[disk].dirs[d];
            if let Some(queued) = queued {
                dir.scheduler.record(issued.saturating_sub(queued));
            }
            dir.device.record(event.ts.saturating_sub(issued));
        }
        if !waits_for_done {
            // No accounting events for this request: its whole time from the nearest ones.
            let (p, _) = self
                .requests
                .take(key, |p| p.complete == Some(event.ts))
                .expect("found above");
            let from = p.insert.unwrap_or(issued);
            self.disks[disk].whole_nearest = true;
            self.finish(disk, &p, Some(event.ts.saturating_sub(from)));
        }
    }

    fn bio_complete(&mut self, disk: usize, key: (usize, u64), event: &Event) {
        if self.disks[disk].scope != Scope::Bio {
            return;
        }
        let Some(((queued, pid), ambiguous)) = self.bios.take(key, |_| true) else {
            self.disks[disk].unmatched += 1;
            return;
        };
        self.disks[disk].ambiguous_matches += u64::from(ambiguous);
        let pending = Pending {
            start: Some(queued),
            insert: None,
            issue: None,
            complete: Some(event.ts),
            requeued: false,
            pid,
            dir: event.dir,
            bytes: event.bytes,
        };
        self.finish(disk, &pending, Some(event.ts.saturating_sub(queued)));
    }

    /// A request done: counted, its whole time, its size and its process.
    fn finish(&mut self, disk: usize, p: &Pending, whole: Option<u64>) {
        let Some(d) = p.dir.index() else {
            return;
        };
        let dir = &mut self.disks[disk].dirs[d];
        dir.requests += 1;
        dir.bytes += p.bytes;
        dir.sizes.record(p.bytes);
        if let Some(whole) = whole {
            dir.whole.record(whole);
        }
        let device_ns = match (p.issue, p.complete) {
            (Some(issue), Some(complete)) => complete.saturating_sub(issue),
            _ => whole.unwrap_or(0),
        };
        let resolve = &mut self.resolve;
        let before = &self.procs_before;
        let proc = self.procs.entry(p.pid).or_insert_with(|| {
            resolve(p.pid)
                .or_else(|| before.get(&p.pid).cloned())
                .unwrap_or_else(|| Proc {
                    tgid: p.pid,
                    comm: "(exited)".to_string(),
                    kernel: false,
                })
        });
        // The name is copied once per process and take, not per request.
        let entry = self.by_process[disk]
            .entry(proc.tgid)
            .or_insert_with(|| ProcessIo {
                pid: proc.tgid,
                comm: proc.comm.clone(),
                kernel: proc.kernel,
                ..ProcessIo::default()
            });
        entry.ios += 1;
        entry.bytes += p.bytes;
        entry.device_time_ns += device_ns;
    }

    /// Keeps the pending maps within [`MAX_PENDING`].
    fn bound(&mut self) {
        let cutoff = self.newest.saturating_sub(STALE_NS);
        let disks = &mut self.disks;
        self.requests
            .bound(cutoff, |disk| disks[disk].unmatched += 1);
        self.bios.bound(cutoff, |disk| disks[disk].unmatched += 1);
    }

    /// What was seen since the last take; the counts start again.
    pub fn take(&mut self) -> Vec<BlockTrace> {
        let mut out = Vec::with_capacity(self.disks.len());
        for (disk, procs) in self.disks.iter_mut().zip(&mut self.by_process) {
            let fresh = disk.fresh();
            let mut taken = std::mem::replace(disk, fresh);
            taken.by_process = procs.drain().map(|(_, p)| p).collect();
            taken
                .by_process
                .sort_by(|a, b| b.ios.cmp(&a.ios).then(a.pid.cmp(&b.pid)));
            out.push(taken);
        }
        // A pid seen again may be another process by then; who it was stays at hand for
        // when it is gone.
        self.procs_before = std::mem::take(&mut self.procs);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DISK: u32 = (7 << 20) | 3;
    const PART: u32 = (7 << 20) | 4;

    fn matcher(scope: Scope) -> Matcher {
        Matcher::new(
            &[("loop3".to_string(), scope, vec![DISK, PART])],
            Box::new(|pid| {
                Some(Proc {
                    tgid: pid / 10 * 10,
                    comm: format!("p{}", pid / 10 * 10),
                    kernel: pid < 10,
                })
            }),
        )
    }

    /// `value` as the histogram holds it: within its 0.1% resolution.
    fn close(got: u64, want: u64) {
        assert!(got.abs_diff(want) * 1000 <= want, "{got} is not {want}");
    }

    fn ev(kind: Kind, ts: u64, sector: u64, dir: Dir, pid: i32) -> Event {
        Event {
            kind,
            ts,
            pid,
            dev: DISK,
            sector,
            bytes: 4096,
            dir,
        }
    }

    /// A full request: bio queued at `t`, request at +1000, io_start +1100, insert +1200,
    /// issue +5200, complete +105200, io_done +105300.
    fn request(m: &mut Matcher, t: u64, sector: u64, dir: Dir, pid: i32) {
        for (kind, at) in [
            (Kind::BioQueue, 0),
            (Kind::GetRq, 1_000),
            (Kind::IoStart, 1_100),
            (Kind::Insert, 1_200),
            (Kind::Issue, 5_200),
            (Kind::Complete, 105_200),
            (Kind::IoDone, 105_300),
        ] {
            let mut e = ev(kind, t + at, sector, dir, pid);
            if kind == Kind::BioQueue || kind == Kind::GetRq {
                e.dev = PART;
            }
            m.event(&e);
        }
    }

    #[test]
    fn a_thread_gone_before_its_last_request_is_drained_counts_for_its_process() {
        let gone = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let is_gone = gone.clone();
        let mut m = Matcher::new(
            &[("loop3".to_string(), Scope::Request, vec![DISK, PART])],
            Box::new(move |pid| {
                (!is_gone.load(std::sync::atomic::Ordering::Relaxed)).then(|| Proc {
                    tgid: 40,
                    comm: format!("w{pid}"),
                    kernel: false,
                })
            }),
        );
        request(&mut m, 1_000_000, 80, Dir::Read, 41);
        let _ = m.take();
        // The worker ends; its last request is matched after the take.
        gone.store(true, std::sync::atomic::Ordering::Relaxed);
        request(&mut m, 2_000_000, 88, Dir::Read, 41);
        request(&mut m, 3_000_000, 96, Dir::Read, 77);
        let t = m.take().remove(0);
        let by_pid: Vec<(i32, &str, u64)> = t
            .by_process
            .iter()
            .map(|p| (p.pid, p.comm.as_str(), p.ios))
            .collect();
        assert_eq!(by_pid, [(40, "w41", 1), (77, "(exited)", 1)]);
    }

    #[test]
    fn takes_added_are_the_take_over_both_windows() {
        let run = |split: bool| {
            let mut m = matcher(Scope::Request);
            request(&mut m, 1_000_000, 80, Dir::Read, 41);
            request(&mut m, 2_000_000, 96, Dir::Write, 52);
            let mut first = if split {
                m.take().remove(0)
            } else {
                BlockTrace::default()
            };
            request(&mut m, 3_000_000, 80, Dir::Read, 43);
            let second = m.take().remove(0);
            if split {
                first.add(&second);
                first
            } else {
                second
            }
        };
        let (added, whole) = (run(true), run(false));
        assert_eq!(added.requests(), 3);
        assert_eq!(added.requests(), whole.requests());
        for (a, w) in added.dirs.iter().zip(&whole.dirs) {
            assert_eq!(a.requests, w.requests);
            assert_eq!(a.bytes, w.bytes);
            assert_eq!(a.device.summary(), w.device.summary());
            assert_eq!(a.whole.summary(), w.whole.summary());
        }
        // Pids 41 and 43 are one process (tgid 40): one row with both reads.
        assert_eq!(added.by_process, whole.by_process);
        assert_eq!(added.by_process[0].pid, 40);
        assert_eq!(added.by_process[0].ios, 2);
    }

    #[test]
    fn a_request_gives_each_part_of_its_time() {
        let mut m = matcher(Scope::Request);
        request(&mut m, 1_000_000, 80, Dir::Read, 41);
        let t = m.take().remove(0);
        let read = &t.dirs[0];
        assert_eq!(read.requests, 1);
        close(read.wait_request.summary().max_ns, 1_000);
        close(read.scheduler.summary().max_ns, 4_000);
        close(read.device.summary().max_ns, 100_000);
        close(read.whole.summary().min_ns, 104_200);
        close(read.sizes.summary().max_ns, 4096);
        assert!(!t.whole_nearest);
        assert_eq!(
            t.by_process,
            vec![ProcessIo {
                pid: 40,
                comm: "p40".into(),
                kernel: false,
                ios: 1,
                bytes: 4096,
                device_time_ns: 100_000
            }]
        );
        assert_eq!((t.unmatched, t.ambiguous_matches), (0, 0));
        // Taken: the next take starts from nothing.
        assert_eq!(m.take()[0].requests(), 0);
    }

    #[test]
    fn requests_on_the_same_sector_match_first_in_first_out_and_count_as_ambiguous() {
        let mut m = matcher(Scope::Request);
        // Two writes to sector 8 in flight: issued at 0 and 10, completed at 100 and 1000.
        m.event(&ev(Kind::IoStart, 0, 8, Dir::Write, 20));
        m.event(&ev(Kind::Issue, 0, 8, Dir::Write, 20));
        m.event(&ev(Kind::IoStart, 10, 8, Dir::Write, 30));
        m.event(&ev(Kind::Issue, 10, 8, Dir::Write, 30));
        m.event(&ev(Kind::Complete, 100, 8, Dir::Write, 0));
        m.event(&ev(Kind::IoDone, 100, 8, Dir::Write, 0));
        m.event(&ev(Kind::Complete, 1_000, 8, Dir::Write, 0));
        m.event(&ev(Kind::IoDone, 1_000, 8, Dir::Write, 0));
        let t = m.take().remove(0);
        let write = &t.dirs[1];
        assert_eq!(write.requests, 2);
        close(write.device.summary().min_ns, 100);
        close(write.device.summary().max_ns, 990);
        assert!(t.ambiguous_matches >= 1);
        // Each request belongs to the process that started it.
        assert_eq!(t.by_process.len(), 2);
    }

    #[test]
    fn unmatched_events_are_counted_and_never_make_a_time() {
        let mut m = matcher(Scope::Request);
        m.event(&ev(Kind::Complete, 50, 16, Dir::Read, 0));
        m.event(&ev(Kind::IoDone, 60, 16, Dir::Read, 0));
        let t = m.take().remove(0);
        assert_eq!(t.unmatched, 2);
        assert_eq!(t.requests(), 0);
        assert_eq!(t.dirs[0].device.count(), 0);
    }

    #[test]
    fn without_accounting_events_the_whole_time_is_the_nearest_and_said_so() {
        let mut m = matcher(Scope::Request);
        m.event(&ev(Kind::Insert, 0, 24, Dir::Read, 11));
        m.event(&ev(Kind::Issue, 300, 24, Dir::Read, 11));
        m.event(&ev(Kind::Complete, 1_300, 24, Dir::Read, 0));
        let t = m.take().remove(0);
        assert_eq!(t.dirs[0].requests, 1);
        close(t.dirs[0].whole.summary().max_ns, 1_300);
        close(t.dirs[0].scheduler.summary().max_ns, 300);
        assert!(t.whole_nearest);
    }

    #[test]
    fn a_bio_based_disk_times_its_bios_and_merges_count() {
        let mut m = matcher(Scope::Bio);
        m.event(&ev(Kind::BioQueue, 0, 40, Dir::Write, 5));
        m.event(&ev(Kind::BioComplete, 7_000, 40, Dir::Write, 0));
        let t = m.take().remove(0);
        assert_eq!(t.dirs[1].requests, 1);
        close(t.dirs[1].whole.summary().max_ns, 7_000);
        assert!(
            t.by_process[0].kernel,
            "a kernel thread's bio is shown as such"
        );
        let mut m = matcher(Scope::Request);
        m.event(&ev(Kind::BioQueue, 0, 48, Dir::Write, 5));
        m.event(&ev(Kind::BioMerge, 10, 48, Dir::Write, 5));
        assert_eq!(m.take()[0].dirs[1].merges, 1);
    }

    /// A flush has no sector: 0 in its accounting and issue events, -1 in its completion.
    /// It is one request, not an issue left waiting and a completion unmatched.
    #[test]
    fn a_flush_completing_at_sector_minus_one_is_the_flush_at_sector_0() {
        let mut m = matcher(Scope::Request);
        for (kind, t, sector) in [
            (Kind::IoStart, 0, 0),
            (Kind::Issue, 10, 0),
            (Kind::Complete, 100, u64::MAX),
            (Kind::IoDone, 110, 0),
        ] {
            m.event(&ev(kind, t, sector, Dir::Other, 20));
        }
        let t = m.take().remove(0);
        assert_eq!((t.ambiguous_matches, t.unmatched), (0, 0));
        assert_eq!(m.requests.len, 0, "nothing left waiting at sector 0");
    }

    /// A scheduler merged a request into the one before it: the merged one's `io_start` is
    /// not left waiting for the next request on its sector (which would take its start and
    /// read a whole time of seconds).
    #[test]
    fn a_request_merged_by_the_scheduler_is_not_the_next_on_its_sector() {
        let mut m = matcher(Scope::Request);
        m.event(&ev(Kind::IoStart, 0, 0, Dir::Write, 20));
        m.event(&ev(Kind::IoStart, 10, 8, Dir::Write, 20));
        m.event(&ev(Kind::RqMerge, 20, 8, Dir::Write, 20));
        for (kind, t) in [
            (Kind::Issue, 30),
            (Kind::Complete, 130),
            (Kind::IoDone, 140),
        ] {
            m.event(&ev(kind, t, 0, Dir::Write, 0));
        }
        // A second later, a new request on the merged one's sector.
        let later = 1_000_000_000;
        m.event(&ev(Kind::IoStart, later, 8, Dir::Write, 20));
        for (kind, t) in [
            (Kind::Issue, 10),
            (Kind::Complete, 110),
            (Kind::IoDone, 120),
        ] {
            m.event(&ev(kind, later + t, 8, Dir::Write, 0));
        }
        let t = m.take().remove(0);
        assert_eq!(t.dirs[1].requests, 2);
        assert_eq!(
            t.dirs[1].whole.summary().max_ns,
            140,
            "no whole time of a second"
        );
        assert_eq!((t.ambiguous_matches, t.unmatched), (0, 0));
    }

    /// Events were lost: the requests waiting then are given up (counted), and a later
    /// request on one of their sectors is timed from its own events, not theirs.
    #[test]
    fn after_a_loss_the_requests_waiting_are_given_up_not_matched_to_later_ones() {
        let mut m = matcher(Scope::Request);
        // Started and inserted; its issue and completion are among the events lost.
        m.event(&ev(Kind::IoStart, 0, 72, Dir::Read, 20));
        m.event(&ev(Kind::Insert, 10, 72, Dir::Read, 20));
        m.lost(3);
        // A request on the same sector after the loss.
        request(&mut m, 1_000_000_000, 72, Dir::Read, 20);
        let t = m.take().remove(0);
        assert_eq!(t.lost_events, 3);
        assert_eq!(t.unmatched, 1, "the request given up");
        assert_eq!(t.dirs[0].requests, 1);
        close(t.dirs[0].whole.summary().max_ns, 104_200);
        assert_eq!(m.requests.len, 0);
    }

    /// The driver handed a request back (its queue was full) and it was issued again: one
    /// request, its device time from the issue that reached the device, its scheduler time
    /// from its first insert to that issue; no issue left waiting for the next request on the
    /// sector (which read a whole time of seconds on vda beside a second writer).
    #[test]
    fn a_requeued_request_is_issued_again_not_twice() {
        for reinserted in [false, true] {
            let mut m = matcher(Scope::Request);
            let mut events = vec![
                (Kind::IoStart, 0),
                (Kind::Insert, 10),
                (Kind::Issue, 20),
                (Kind::Requeue, 25),
            ];
            if reinserted {
                events.push((Kind::Insert, 500));
            }
            events.extend([
                (Kind::Issue, 1_000),
                (Kind::Complete, 1_100),
                (Kind::IoDone, 1_110),
            ]);
            let later = 1_000_000_000;
            for (kind, t) in [
                (Kind::IoStart, 0),
                (Kind::Insert, 10),
                (Kind::Issue, 20),
                (Kind::Complete, 220),
                (Kind::IoDone, 230),
            ] {
                events.push((kind, later + t));
            }
            for (kind, t) in events {
                m.event(&ev(kind, t, 64, Dir::Write, 20));
            }
            let t = m.take().remove(0);
            let write = &t.dirs[1];
            assert_eq!(write.requests, 2, "reinserted: {reinserted}");
            assert_eq!(
                write.whole.summary().max_ns,
                1_110,
                "no whole time of a second"
            );
            assert_eq!(write.scheduler.count(), 2, "once per request");
            close(write.scheduler.summary().max_ns, 990);
            close(write.device.summary().min_ns, 100);
            close(write.device.summary().max_ns, 200);
            assert_eq!((t.ambiguous_matches, t.unmatched), (0, 0));
            assert_eq!(m.requests.len, 0, "nothing left waiting");
        }
    }

    /// A bio joined the front of a request after its `io_start`: the request's later events
    /// carry the bio's sector, and are matched to it there, with its start.
    #[test]
    fn a_front_merge_moves_the_request_to_the_bios_sector() {
        let mut m = matcher(Scope::Request);
        m.event(&ev(Kind::IoStart, 0, 16, Dir::Read, 20));
        // `ev` gives 4 KiB: the bio covers sectors 8..16.
        m.event(&ev(Kind::BioFrontMerge, 5, 8, Dir::Read, 20));
        for (kind, t) in [
            (Kind::Issue, 30),
            (Kind::Complete, 130),
            (Kind::IoDone, 140),
        ] {
            m.event(&ev(kind, t, 8, Dir::Read, 0));
        }
        let t = m.take().remove(0);
        assert_eq!(t.dirs[0].requests, 1);
        assert_eq!(
            t.dirs[0].whole.summary().max_ns,
            140,
            "timed from its io_start"
        );
        assert_eq!(t.dirs[0].bytes, 8192, "the request and the bio");
        assert_eq!((t.ambiguous_matches, t.unmatched), (0, 0));
        assert_eq!(m.requests.len, 0, "nothing left waiting at the old sector");
    }

    #[test]
    fn past_the_bound_the_oldest_pending_requests_are_given_up_and_the_rest_still_match() {
        let mut m = matcher(Scope::Request);
        let n = MAX_PENDING as u64 + 10;
        for i in 0..n {
            m.event(&ev(Kind::IoStart, i, i * 8, Dir::Read, 20));
        }
        assert_eq!(m.requests.len, MAX_PENDING);
        // The ten oldest went; the eleventh and the newest are still followed.
        for sector in [10 * 8, (n - 1) * 8] {
            m.event(&ev(Kind::Issue, n, sector, Dir::Read, 20));
            m.event(&ev(Kind::Complete, n + 100, sector, Dir::Read, 0));
            m.event(&ev(Kind::IoDone, n + 100, sector, Dir::Read, 0));
        }
        m.event(&ev(Kind::Issue, n, 9 * 8, Dir::Read, 20));
        m.event(&ev(Kind::Complete, n + 100, 9 * 8, Dir::Read, 0));
        let t = m.take().remove(0);
        // The tenth's issue starts a request of its own (its io_start was given up) that ends
        // at its completion, its whole time from the nearest events.
        assert_eq!(t.dirs[0].requests, 3);
        assert!(t.whole_nearest);
        assert_eq!(t.unmatched, 10, "the ten given up, no more");
    }

    #[test]
    fn a_request_left_pending_past_the_block_layers_timeout_is_given_up() {
        let mut m = matcher(Scope::Request);
        m.event(&ev(Kind::IoStart, 0, 8, Dir::Read, 20));
        m.event(&ev(Kind::IoStart, STALE_NS - 1, 16, Dir::Read, 20));
        assert_eq!(m.requests.len, 2, "not stale yet");
        m.event(&ev(Kind::IoStart, STALE_NS + 1, 24, Dir::Read, 20));
        assert_eq!(m.requests.len, 2);
        assert_eq!(m.take()[0].unmatched, 1);
    }

    #[test]
    fn the_push_order_stays_as_small_as_what_is_pending_behind_a_request_that_never_ends() {
        let mut m = matcher(Scope::Request);
        // Its completion lost: it stays at the front of the push order.
        m.event(&ev(Kind::IoStart, 0, 1 << 40, Dir::Read, 20));
        for i in 0..200_000u64 {
            let sector = (i % 4096) * 8;
            m.event(&ev(Kind::IoStart, i * 10, sector, Dir::Read, 20));
            m.event(&ev(Kind::Issue, i * 10 + 1, sector, Dir::Read, 20));
            m.event(&ev(Kind::Complete, i * 10 + 5, sector, Dir::Read, 0));
            m.event(&ev(Kind::IoDone, i * 10 + 6, sector, Dir::Read, 0));
            // Compacted at a push past 4 places per pending entry (and 4096).
            assert!(m.requests.order.len() <= 8 * m.requests.len + 4097);
        }
        assert_eq!(m.requests.len, 1);
        let t = m.take().remove(0);
        assert_eq!((t.dirs[0].requests, t.unmatched), (200_000, 0));
    }

    #[test]
    fn events_of_other_disks_are_ignored() {
        let mut m = matcher(Scope::Request);
        let mut e = ev(Kind::IoStart, 0, 8, Dir::Read, 20);
        e.dev = 99;
        m.event(&e);
        assert_eq!(m.requests.len, 0);
    }
}
