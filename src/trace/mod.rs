//! The block-layer tracer (`--trace`): the device's own latency split and who does the I/O,
//! from the kernel's block tracepoints through tracefs, with no BPF and no compiler.
//!
//! [`Tracer::start`] makes the run's own tracefs instance (`tracefs`), enables the block
//! tracepoints with a filter on the watched disks' device numbers, and starts a reader thread
//! that drains the per-CPU raw ring buffers (`ring`), decodes each record through its
//! tracepoint's `format` file read at start (`format`, `event`), sorts the CPUs' events by
//! time and follows each request through them (`matcher`). [`Tracer::take`] hands over what
//! was seen since the last take, per disk ([`BlockTrace`]), and the tracer's own cost; it is
//! cheap enough to call every interval. Dropping the tracer stops the reader and removes the
//! instance (the run's interrupt path ends the session normally, so the drop runs then too).
//! Where tracefs or the permission is missing, `start` says so in one line
//! ([`TraceUnavailable`]) and the run goes on without it. What is traced on which kind of
//! device: `scope` and assets/doc/trace.md.

pub mod event;
pub mod explain;
pub mod format;
pub mod matcher;
mod merge;
mod record;
pub mod ring;
pub mod sched;
pub mod scope;
pub mod tracefs;

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

pub use matcher::{BlockTrace, DirTrace};
pub use record::block_trace_record;
pub use scope::Scope;

use event::{Event, Kind, Layout, Layouts};
use matcher::{Matcher, Proc};
use ring::PageLayout;

/// How often the reader drains the buffers when nobody asks.
const DRAIN_EVERY: Duration = Duration::from_millis(100);
/// How often, while a CPU's buffer fills by more than [`BUSY_SHARE`] of itself between two
/// drains: smaller batches, read long before the buffer wraps.
const DRAIN_BUSY: Duration = Duration::from_millis(20);
/// The share of a CPU's buffer read in one drain that makes the next come sooner.
const BUSY_SHARE: usize = 32;
/// Events this recent are left for the next drain: another CPU's earlier event may not be
/// committed yet (events are sorted across CPUs before matching).
const SLACK_NS: u64 = 2_000_000;
/// Each CPU's buffer in the instance, KiB.
const BUFFER_KB: u32 = 8192;

/// How much of a request the tracer follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Detail {
    /// What the split needs past the bio: `block_io_start`, `block_rq_insert` (where a disk
    /// has a scheduler), `block_rq_issue`, `block_rq_complete`, `block_io_done`; bio-based
    /// disks' `block_bio_queue` and `block_bio_complete`. Waiting for a request and merges
    /// are not measured (said so where they would show).
    #[default]
    Requests,
    /// Every block tracepoint read: `block_bio_queue` and `block_getrq` on request-based
    /// disks too (waiting for a request), and the bio merges. About two more events per
    /// I/O (`--trace=full`).
    Full,
}

/// The detail [`Tracer::start`] traces in: the command line's (`--trace=full`), said once
/// at start for the whole process.
static DETAIL_FULL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Sets the detail every later [`Tracer::start`] in this process traces in.
pub fn set_detail(detail: Detail) {
    DETAIL_FULL.store(detail == Detail::Full, std::sync::atomic::Ordering::Relaxed);
}

/// The detail set by [`set_detail`] ([`Detail::Requests`] unless said).
#[must_use]
pub fn detail() -> Detail {
    if DETAIL_FULL.load(std::sync::atomic::Ordering::Relaxed) {
        Detail::Full
    } else {
        Detail::Requests
    }
}

/// A disk to trace, by its kernel name (`vda`, `loop3`, `dm-0`); its partitions come with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceId {
    pub disk: String,
}

/// Why the run is not traced, in one line (the run goes on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceUnavailable(pub String);

impl std::fmt::Display for TraceUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "--trace: {}; the run goes on untraced", self.0)
    }
}

/// The tracer's own cost over a take.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TraceCost {
    /// Events read.
    pub events: u64,
    /// Records that could not be decoded (counted, never used).
    pub malformed: u64,
    /// Events the kernel's buffers lost.
    pub lost_events: u64,
    /// CPU time of the reader thread, ns.
    pub cpu_ns: u64,
    /// Wall time the take covers, ns.
    pub elapsed_ns: u64,
}

impl TraceCost {
    /// Events per second over the take.
    #[must_use]
    pub fn events_per_s(&self) -> f64 {
        if self.elapsed_ns == 0 {
            return 0.0;
        }
        self.events as f64 * 1e9 / self.elapsed_ns as f64
    }

    /// Adds `other` (a later take).
    pub fn add(&mut self, other: &Self) {
        self.events += other.events;
        self.malformed += other.malformed;
        self.lost_events += other.lost_events;
        self.cpu_ns += other.cpu_ns;
        self.elapsed_ns += other.elapsed_ns;
    }
}

/// What a take hands over.
#[derive(Debug, Clone, Default)]
pub struct TraceTake {
    /// One per disk, in the order given to [`Tracer::start`].
    pub disks: Vec<BlockTrace>,
    pub cost: TraceCost,
}

impl TraceTake {
    /// Adds `other` (a later take): its disks to this one's, by name, and its cost.
    pub fn add(&mut self, other: &Self) {
        for disk in &other.disks {
            match self.disks.iter_mut().find(|d| d.disk == disk.disk) {
                Some(mine) => mine.add(disk),
                None => self.disks.push(disk.clone()),
            }
        }
        self.cost.add(&other.cost);
    }
}

/// What the reader and the takers share.
struct Shared {
    matcher: Matcher,
    cost: TraceCost,
    /// Reader CPU time at the last take.
    cpu_at_take: u64,
    cpu_now: u64,
    taken_at: Instant,
    requested: u64,
    served: u64,
    stop: bool,
    /// The instant (CLOCK_MONOTONIC, the trace clock) the pending take ends at, when its
    /// caller named one: the edge of a window another counter (diskstats) was read at.
    until: Option<u64>,
    /// Set by [`Tracer::hold`] just before the caller reads the counters a take's edge is
    /// read from: drains in the background match no event after it until that take, so
    /// the take (up to the edge, after the hold) splits the events where the counters do.
    hold: Option<u64>,
}

/// A running tracer; dropping it removes its instance.
pub struct Tracer {
    shared: Arc<(Mutex<Shared>, Condvar)>,
    reader: Option<std::thread::JoinHandle<()>>,
    /// Dropped after the reader has closed the buffers.
    _instance: tracefs::Instance,
    /// What start wants said (dead runs' instances removed, the nearest events used).
    pub notes: Vec<String>,
}

impl Tracer {
    /// Traces `disks` in the process's [`detail`].
    ///
    /// # Errors
    /// No tracefs, no permission, or no block tracepoints: one line.
    pub fn start(disks: &[DeviceId]) -> Result<Self, TraceUnavailable> {
        Self::start_with(disks, detail())
    }

    /// Traces `disks` in `detail`.
    ///
    /// # Errors
    /// No tracefs, no permission, or no block tracepoints: one line.
    pub fn start_with(disks: &[DeviceId], detail: Detail) -> Result<Self, TraceUnavailable> {
        let root = tracefs::root().map_err(TraceUnavailable)?;
        let mut notes: Vec<String> = tracefs::remove_dead(&root.join("instances"))
            .into_iter()
            .map(|name| format!("--trace: removed {name}, the instance of a run that is gone"))
            .collect();
        let instance = tracefs::Instance::create(&root, &tracefs::own_name()).map_err(|e| {
            TraceUnavailable(format!(
                "cannot make a tracefs instance in {}: {e} (tracing needs root)",
                root.join("instances").display()
            ))
        })?;
        let fail = |e: String| TraceUnavailable(e);
        // A new instance traces at once: off until every event is on, so all start at one
        // instant. Enabled one by one while on, a request seen by the first events but not by
        // `block_rq_issue` yet waited for the next request on its sector and read its time
        // (0.1-1 s on a 32 MiB file at 40k IOPS).
        instance.write("tracing_on", "0").map_err(fail)?;
        instance.write("trace_clock", "mono").map_err(fail)?;
        instance
            .write("buffer_size_kb", &BUFFER_KB.to_string())
            .map_err(fail)?;
        let page_layout = read_at_once(&root.join("events/header_page"))
            .map_err(|e| e.to_string())
            .and_then(|t| PageLayout::parse(&t))
            .map_err(|e| TraceUnavailable(format!("events/header_page: {e}")))?;
        let (layouts, names) = layouts(instance.path()).map_err(TraceUnavailable)?;
        let targets = disk_devices(Path::new("/sys/block"), disks);
        if targets.iter().all(|(_, _, devs)| devs.is_empty()) {
            return Err(TraceUnavailable("no disk to trace".to_string()));
        }
        let schedulers: Vec<bool> = targets
            .iter()
            .map(|(disk, _, _)| has_scheduler(Path::new("/sys/block"), disk))
            .collect();
        for (kind, name) in &names {
            let filter = event_filter(*kind, detail, &targets, &schedulers);
            if filter.is_empty() {
                continue;
            }
            instance
                .write(&format!("events/block/{name}/filter"), &filter)
                .map_err(fail)?;
            instance
                .write(&format!("events/block/{name}/enable"), "1")
                .map_err(fail)?;
        }
        if !layouts.kinds().contains(&Kind::IoStart) {
            notes.push(
                "--trace: this kernel has no block_io_start (6.5+): `whole` is from the nearest \
                 events (insert or issue -> complete)"
                    .to_string(),
            );
        }
        let page_size = subbuf_bytes(instance.path());
        let (buffers, stats) = open_buffers(instance.path()).map_err(TraceUnavailable)?;
        instance.write("tracing_on", "1").map_err(fail)?;
        let mut matcher = Matcher::new(&targets, Box::new(resolve_pid));
        matcher.set_wait_request_traced(detail == Detail::Full);
        let shared = Arc::new((
            Mutex::new(Shared {
                matcher,
                cost: TraceCost::default(),
                cpu_at_take: 0,
                cpu_now: 0,
                taken_at: Instant::now(),
                requested: 0,
                served: 0,
                stop: false,
                until: None,
                hold: None,
            }),
            Condvar::new(),
        ));
        let reader = Reader {
            runs: vec![Vec::new(); buffers.len()],
            lost_before: vec![0; buffers.len()],
            stats,
            buffers,
            page: vec![0; page_size],
            page_layout,
            layouts,
            busy: false,
            shared: shared.clone(),
        };
        let handle = std::thread::Builder::new()
            .name("diskdash-trace".into())
            .spawn(move || reader.run())
            .map_err(|e| TraceUnavailable(format!("cannot start the reader thread: {e}")))?;
        Ok(Self {
            shared,
            reader: Some(handle),
            _instance: instance,
            notes,
        })
    }

    /// Everything seen since the last take (or the start), after draining the buffers up to
    /// now.
    #[must_use]
    pub fn take(&self) -> TraceTake {
        self.take_until(None)
    }

    /// The counters that the next [`Tracer::take_until`] splits at are about to be read:
    /// until that take, the reader's own drains match no event after now (they keep
    /// reading the buffers, so nothing is lost), and the take then splits the events at
    /// its edge however long the caller took to ask for it.
    pub fn hold(&self) {
        let (lock, _) = &*self.shared;
        lock.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .hold = Some(monotonic_ns());
    }

    /// Everything seen up to `until` (a `stats::monotonic_ns()` instant, not in the
    /// future), or up to now when `None`: a window's edge read elsewhere at `until` (the
    /// diskstats sample that opens or closes it) then counts the same requests as the take.
    /// Events after it stay for the next take.
    #[must_use]
    pub fn take_until(&self, until: Option<u64>) -> TraceTake {
        let (lock, cond) = &*self.shared;
        let mut shared = lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        shared.until = until;
        shared.requested += 1;
        let want = shared.requested;
        cond.notify_all();
        while shared.served < want && !shared.stop {
            let (next, _) = cond
                .wait_timeout(shared, Duration::from_secs(2))
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            shared = next;
            if self
                .reader
                .as_ref()
                .is_none_or(std::thread::JoinHandle::is_finished)
            {
                break;
            }
        }
        shared.hold = None;
        let mut cost = std::mem::take(&mut shared.cost);
        cost.cpu_ns = shared.cpu_now.saturating_sub(shared.cpu_at_take);
        shared.cpu_at_take = shared.cpu_now;
        let now = Instant::now();
        cost.elapsed_ns = u64::try_from((now - shared.taken_at).as_nanos()).unwrap_or(u64::MAX);
        shared.taken_at = now;
        TraceTake {
            disks: shared.matcher.take(),
            cost,
        }
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        {
            let (lock, cond) = &*self.shared;
            let mut shared = lock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            shared.stop = true;
            cond.notify_all();
        }
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        // `_instance` is dropped now: tracing off, events off, the directory removed.
    }
}

/// A tracefs file that gives its text to the first `read` only (`events/header_page`
/// answers a read past offset 0 with nothing, so a small first read would cut it).
fn read_at_once(path: &Path) -> std::io::Result<String> {
    let mut buf = vec![0u8; 64 << 10];
    let n = File::open(path)?.read(&mut buf)?;
    buf.truncate(n);
    String::from_utf8(buf).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Whether disk `disk` under `sys_block` queues requests in a scheduler (`queue/scheduler`
/// names one other than `none` in brackets): only then does `block_rq_insert` say more than
/// `block_io_start`.
fn has_scheduler(sys_block: &Path, disk: &str) -> bool {
    std::fs::read_to_string(sys_block.join(disk).join("queue/scheduler")).is_ok_and(|t| {
        t.split_whitespace()
            .find_map(|w| w.strip_prefix('[')?.strip_suffix(']'))
            .is_some_and(|active| active != "none")
    })
}

/// The filter of tracepoint `kind` in `detail`: the device numbers of the disks that need it
/// (`dev == A || dev == B`), empty when none does (the tracepoint stays off).
fn event_filter(
    kind: Kind,
    detail: Detail,
    targets: &[(String, Scope, Vec<u32>)],
    schedulers: &[bool],
) -> String {
    let full = detail == Detail::Full;
    targets
        .iter()
        .zip(schedulers)
        .filter(|((_, scope, _), scheduler)| match kind {
            Kind::IoStart | Kind::Issue | Kind::Complete | Kind::IoDone => true,
            Kind::Insert => **scheduler || full,
            Kind::BioQueue | Kind::BioComplete => *scope == Scope::Bio || full,
            Kind::GetRq | Kind::BioMerge => full,
            // A request's sector moves with a front merge, a scheduler's merge ends a
            // request without the events that close it, and a requeued request is issued
            // twice: followed on every disk (they fire only when it happens), else a later
            // request on the sector would be matched to the stale one.
            Kind::BioFrontMerge | Kind::RqMerge | Kind::Requeue => true,
        })
        .flat_map(|((_, _, devs), _)| devs)
        .map(|dev| format!("dev == {dev}"))
        .collect::<Vec<_>>()
        .join(" || ")
}

/// Tracepoints by kind and name.
type Tracepoints = Vec<(Kind, &'static str)>;

/// The tracepoints this kernel has, their layouts and names.
fn layouts(instance: &Path) -> Result<(Layouts, Tracepoints), String> {
    let mut layouts = Layouts::default();
    let mut names = Vec::new();
    for (kind, name) in Kind::ALL {
        let path = instance.join(format!("events/block/{name}/format"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let format =
            format::EventFormat::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let common = format
            .field("common_type")
            .ok_or_else(|| format!("{}: no common_type", path.display()))?;
        layouts.push(Layout::new(kind, &format)?, common);
        names.push((kind, name));
    }
    for needed in [Kind::Issue, Kind::Complete] {
        if !layouts.kinds().contains(&needed) {
            return Err("this kernel has no block_rq_issue/block_rq_complete tracepoints".into());
        }
    }
    Ok((layouts, names))
}

/// Each disk's name, scope and device numbers in the kernel's encoding (major << 20 | minor):
/// the disk's and its partitions'.
fn disk_devices(sys_block: &Path, disks: &[DeviceId]) -> Vec<(String, Scope, Vec<u32>)> {
    let mut out = Vec::new();
    for id in disks {
        if out.iter().any(|(name, _, _)| *name == id.disk) {
            continue;
        }
        let dir = sys_block.join(&id.disk);
        let mut devs: Vec<u32> = dev_of(&dir).into_iter().collect();
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                if entry.path().join("partition").is_file() {
                    devs.extend(dev_of(&entry.path()));
                }
            }
        }
        out.push((id.disk.clone(), scope::of_disk(sys_block, &id.disk), devs));
    }
    out
}

/// A sysfs block directory's `dev` (`M:m`) in the kernel's encoding.
fn dev_of(dir: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(dir.join("dev")).ok()?;
    let (major, minor) = text.trim().split_once(':')?;
    Some((major.parse::<u32>().ok()? << 20) | minor.parse::<u32>().ok()?)
}

/// The size of one ring-buffer page as read (`buffer_subbuf_size_kb`, else 4 KiB).
fn subbuf_bytes(instance: &Path) -> usize {
    std::fs::read_to_string(instance.join("buffer_subbuf_size_kb"))
        .ok()
        .and_then(|t| t.trim().parse::<usize>().ok())
        .map_or(4096, |kb| kb * 1024)
        .max(4096)
}

/// Each CPU's raw buffer, non-blocking, and its `stats` file where it can be read.
fn open_buffers(instance: &Path) -> Result<(Vec<File>, Vec<Option<File>>), String> {
    let dir = instance.join("per_cpu");
    let mut files = Vec::new();
    let mut stats = Vec::new();
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path().join("trace_pipe_raw");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        files.push(file);
        stats.push(File::open(entry.path().join("stats")).ok());
    }
    Ok((files, stats))
}

/// The events a CPU's buffer has lost since it was made, from its `stats` file: `overrun`
/// (overwritten before they were read: the number the pages' headers report), `commit
/// overrun` (dropped while the writer was nested on a full buffer) and `dropped events`
/// (refused on a full buffer that does not overwrite). `None` when none of them is there.
fn lost_in_stats(text: &str) -> Option<u64> {
    let mut found = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        if matches!(key.trim(), "overrun" | "commit overrun" | "dropped events")
            && let Ok(n) = value.trim().parse::<u64>()
        {
            let sum = found.get_or_insert(0u64);
            *sum = sum.saturating_add(n);
        }
    }
    found
}

/// [`lost_in_stats`] of an open `stats` file, read again from its start.
fn read_lost(file: &File) -> Option<u64> {
    use std::os::unix::fs::FileExt;
    let mut buf = [0u8; 1024];
    let n = file.read_at(&mut buf, 0).ok()?;
    lost_in_stats(std::str::from_utf8(&buf[..n]).ok()?)
}

/// Who `pid` is, from `/proc`: its process (`Tgid`), the process's name, and whether it is a
/// kernel thread (no memory map: writeback's flush workers, kblockd); `None` when it is gone.
fn resolve_pid(pid: i32) -> Option<Proc> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().to_string())
    };
    let tgid = field("Tgid:")
        .and_then(|t| t.parse::<i32>().ok())
        .unwrap_or(pid);
    let kernel = field("VmSize:").is_none();
    let comm = std::fs::read_to_string(format!("/proc/{tgid}/comm"))
        .map(|c| c.trim().to_string())
        .ok()
        .or_else(|| field("Name:"))
        .unwrap_or_else(|| "(exited)".to_string());
    Some(Proc { tgid, comm, kernel })
}

/// The reader thread's side.
struct Reader {
    buffers: Vec<File>,
    page: Vec<u8>,
    page_layout: PageLayout,
    layouts: Layouts,
    /// Each CPU's events not matched yet, in time order: those newer than the last drain's
    /// cutoff, held for the next, then what the next reads (the vectors are kept, so a drain
    /// allocates nothing once they have grown).
    runs: Vec<Vec<Event>>,
    /// The last drain read more than [`BUSY_SHARE`] of a CPU's buffer: the next comes after
    /// [`DRAIN_BUSY`].
    busy: bool,
    /// Each CPU's `stats` file (the kernel's own count of what its buffer lost), where it
    /// opened.
    stats: Vec<Option<File>>,
    /// Each CPU's lost count at the last drain.
    lost_before: Vec<u64>,
    shared: Arc<(Mutex<Shared>, Condvar)>,
}

/// The reader thread's nice value: well above the jobs it traces (nice 0), so that a run that
/// fills every CPU (16 jobs x QD64 on 2 CPUs: at -10 its weight was about that of the 16
/// workers together, and the debug build lost events) does not starve it into losing events;
/// it takes the CPU its events need either way, only sooner, and sleeps between drains.
const READER_NICE: i32 = -20;

/// Sets the calling thread's nice value to [`READER_NICE`] where it may (tracing runs as root;
/// without the permission the thread keeps its nice value and the run goes on).
fn raise_priority() {
    let Ok(tid) = libc::id_t::try_from(nix::unistd::gettid().as_raw()) else {
        return;
    };
    // SAFETY: setpriority takes plain integers (a thread id of this process and a nice value)
    // and reads or writes no memory of ours; it fails harmlessly without the permission.
    let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, READER_NICE) };
}

fn monotonic_ns() -> u64 {
    crate::stats::monotonic_ns()
}

fn thread_cpu_ns() -> u64 {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID).map_or(0, |t| {
        u64::try_from(t.tv_sec()).unwrap_or(0) * 1_000_000_000
            + u64::try_from(t.tv_nsec()).unwrap_or(0)
    })
}

impl Reader {
    fn run(mut self) {
        raise_priority();
        loop {
            let (want, stop, until, hold) = {
                let (lock, cond) = &*self.shared;
                let mut shared = lock
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if shared.requested == shared.served && !shared.stop {
                    let every = if self.busy { DRAIN_BUSY } else { DRAIN_EVERY };
                    shared = cond
                        .wait_timeout(shared, every)
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0;
                }
                let until = shared.until.take();
                (shared.requested, shared.stop, until, shared.hold)
            };
            let asked = monotonic_ns();
            if stop {
                // Everything up to now, nothing held back.
                std::thread::sleep(Duration::from_nanos(SLACK_NS));
                self.drain(u64::MAX, want);
                return;
            }
            // A take waits out the slack so that its events up to now are all in.
            let cutoff = if want > self.served() {
                std::thread::sleep(Duration::from_nanos(SLACK_NS));
                until.map_or(asked, |at| at.min(asked))
            } else {
                asked.saturating_sub(SLACK_NS).min(hold.unwrap_or(u64::MAX))
            };
            self.drain(cutoff, want);
        }
    }

    fn served(&self) -> u64 {
        let (lock, _) = &*self.shared;
        lock.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .served
    }

    /// Reads every CPU's buffer, then matches the events up to `cutoff` in time order.
    fn drain(&mut self, cutoff: u64, want: u64) {
        let mut cost = TraceCost::default();
        let mut busiest = 0usize;
        let capacity = self.page.len().saturating_sub(self.page_layout.data);
        for (cpu, (file, run)) in self.buffers.iter_mut().zip(&mut self.runs).enumerate() {
            let (mut reads, mut bytes, mut flagged) = (0u32, 0usize, 0u64);
            loop {
                match file.read(&mut self.page) {
                    Ok(0) => break,
                    Ok(n) => {
                        reads += 1;
                        let layouts = &self.layouts;
                        let mut malformed = 0;
                        let out = ring::decode_page(&self.page_layout, &self.page[..n], |ts, r| {
                            match layouts.decode(ts, r) {
                                Some(event) => run.push(event),
                                None => malformed += 1,
                            }
                        });
                        cost.events += out.events;
                        flagged += out.missed.at_least();
                        cost.malformed += out.malformed + malformed;
                        bytes += out.used;
                        // Less than half a page after the first (which may be the rest of
                        // a page the last drain read part of): the kernel was writing it,
                        // so this CPU's events up to now are in; another read would give
                        // only the few written since (a system call each), and the next
                        // drain has them.
                        if reads > 1 && out.used < capacity / 2 {
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            busiest = busiest.max(bytes);
            // The kernel's count, read after the pages: every event lost up to now, once,
            // and a number where a full page only flags the loss. The pages' flags stand in
            // where `stats` cannot be read.
            cost.lost_events += match self.stats[cpu].as_ref().and_then(read_lost) {
                Some(total) => {
                    let delta = total.saturating_sub(self.lost_before[cpu]);
                    self.lost_before[cpu] = total;
                    delta
                }
                None => flagged,
            };
        }
        self.busy = busiest > BUFFER_KB as usize * 1024 / BUSY_SHARE;
        let (lock, cond) = &*self.shared;
        let mut shared = lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // What the buffers lost came before what this drain read (the kernel overwrites its
        // oldest events): the requests waiting then are given up before the newer ones match.
        shared.matcher.lost(cost.lost_events);
        let matcher = &mut shared.matcher;
        merge::merge(&mut self.runs, cutoff, |event| matcher.event(event));
        shared.cost.add(&cost);
        shared.cpu_now = thread_cpu_ns();
        shared.served = shared.served.max(want);
        cond.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disk_is_traced_with_its_partitions_device_numbers() {
        let root = tempfile::tempdir().unwrap();
        let disk = root.path().join("vdb");
        std::fs::create_dir_all(disk.join("queue")).unwrap();
        std::fs::create_dir_all(disk.join("mq/0")).unwrap();
        std::fs::write(disk.join("dev"), "252:16\n").unwrap();
        std::fs::create_dir_all(disk.join("vdb1")).unwrap();
        std::fs::write(disk.join("vdb1/partition"), "1\n").unwrap();
        std::fs::write(disk.join("vdb1/dev"), "252:17\n").unwrap();
        let got = disk_devices(
            root.path(),
            &[
                DeviceId { disk: "vdb".into() },
                DeviceId { disk: "vdb".into() },
            ],
        );
        assert_eq!(got.len(), 1, "a disk named twice is traced once");
        let (name, scope, mut devs) = got.into_iter().next().unwrap();
        devs.sort_unstable();
        assert_eq!(name, "vdb");
        assert_eq!(scope, Scope::Request);
        assert_eq!(devs, vec![(252 << 20) | 16, (252 << 20) | 17]);
    }

    #[test]
    fn by_default_only_the_request_events_are_on_and_bios_only_for_bio_based_disks() {
        let targets = vec![
            ("vda".to_string(), Scope::Request, vec![1, 2]),
            ("loop0".to_string(), Scope::Request, vec![3]),
            ("dm-0".to_string(), Scope::Bio, vec![4]),
        ];
        // vda has a scheduler, loop0 none.
        let schedulers = [true, false, false];
        let filter = |kind, detail| event_filter(kind, detail, &targets, &schedulers);
        for kind in [Kind::IoStart, Kind::Issue, Kind::Complete, Kind::IoDone] {
            assert_eq!(
                filter(kind, Detail::Requests),
                "dev == 1 || dev == 2 || dev == 3 || dev == 4"
            );
        }
        assert_eq!(
            filter(Kind::Insert, Detail::Requests),
            "dev == 1 || dev == 2"
        );
        assert_eq!(filter(Kind::BioQueue, Detail::Requests), "dev == 4");
        assert_eq!(filter(Kind::BioComplete, Detail::Requests), "dev == 4");
        assert_eq!(filter(Kind::GetRq, Detail::Requests), "", "off");
        assert_eq!(filter(Kind::BioMerge, Detail::Requests), "", "off");
        for kind in [Kind::BioFrontMerge, Kind::RqMerge, Kind::Requeue] {
            assert_eq!(
                filter(kind, Detail::Requests),
                "dev == 1 || dev == 2 || dev == 3 || dev == 4",
                "{kind:?} is always followed"
            );
        }
        let all = "dev == 1 || dev == 2 || dev == 3 || dev == 4";
        for (kind, _) in Kind::ALL {
            assert_eq!(filter(kind, Detail::Full), all, "{kind:?}");
        }
    }

    #[test]
    fn a_scheduler_is_the_bracketed_name_unless_it_is_none() {
        let root = tempfile::tempdir().unwrap();
        for (disk, text) in [
            ("vda", "none [mq-deadline] kyber bfq\n"),
            ("vdb", "[none] mq-deadline\n"),
            ("nvme0n1", "[none]\n"),
        ] {
            std::fs::create_dir_all(root.path().join(disk).join("queue")).unwrap();
            std::fs::write(root.path().join(disk).join("queue/scheduler"), text).unwrap();
        }
        assert!(has_scheduler(root.path(), "vda"));
        assert!(!has_scheduler(root.path(), "vdb"));
        assert!(!has_scheduler(root.path(), "nvme0n1"));
        assert!(!has_scheduler(root.path(), "gone"));
    }

    #[test]
    fn a_cpus_lost_events_are_its_overruns_and_drops_from_its_stats() {
        // This kernel's `per_cpu/cpuN/stats` (6.18), after a reader fell behind.
        let text = "entries: 52311\noverrun: 380083\ncommit overrun: 2\nbytes: 3321032\n\
                    oldest event ts: 66346.917332\nnow ts: 66349.102933\n\
                    dropped events: 5\nread events: 209401\n";
        assert_eq!(lost_in_stats(text), Some(380_090));
        // The entries, bytes and read events are not losses; a kernel without the counters
        // gives no number (the pages' flags count then).
        assert_eq!(lost_in_stats("entries: 10\nread events: 7\n"), None);
        assert_eq!(lost_in_stats("overrun: 0\n"), Some(0));
    }

    mod properties {
        use super::super::lost_in_stats;
        use proptest::prelude::*;

        proptest! {
            /// Whatever the kernel's `stats` holds, the count is read or absent, never a panic;
            /// the three counters add up (saturating) whatever else is around them.
            #[test]
            fn any_stats_text_gives_a_count_or_none(
                junk in "[ -~\n]{0,200}",
                overrun in any::<u64>(),
                dropped in any::<u64>(),
            ) {
                let _ = lost_in_stats(&junk);
                let text = format!("entries: 1\noverrun: {overrun}\n{}\ndropped events: {dropped}\n",
                    junk.lines().filter(|l| !l.contains("overrun") && !l.contains("dropped events")).collect::<Vec<_>>().join("\n"));
                prop_assert_eq!(lost_in_stats(&text), Some(overrun.saturating_add(dropped)));
            }
        }
    }

    #[test]
    fn a_pid_resolves_to_its_process() {
        let me = std::process::id() as i32;
        let proc = resolve_pid(me).unwrap();
        assert_eq!(proc.tgid, me);
        assert!(!proc.kernel);
        assert!(!proc.comm.is_empty());
    }

    #[test]
    fn the_unavailable_note_is_one_line_that_says_the_run_goes_on() {
        let note = TraceUnavailable("cannot make a tracefs instance: Permission denied".into())
            .to_string();
        assert!(!note.contains('\n'));
        assert!(note.starts_with("--trace: "));
        assert!(note.ends_with("the run goes on untraced"));
    }
}
