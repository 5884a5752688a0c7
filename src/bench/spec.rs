//! The validated job and its parts. A [`JobSpec`] is made by `options::validate` (the one
//! validator) or changed by `JobSpec::with`; checks that need the target (logical block size,
//! free space, O_DIRECT support) live in `target`.

use std::time::Duration;

use crate::bench::rate::RateLimit;
use crate::units::format_size_short;

#[cfg(test)]
use crate::bench::kinds::MAX_CPUS;
pub use crate::bench::kinds::{CpuListError, format_cpu_list, parse_cpu_list};
pub use crate::monitor::host::MachineLimits;

/// The I/O pattern, named as in fio's `--rw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    Read,
    Write,
    RandRead,
    RandWrite,
    Rw,
    RandRw,
    /// Sequential discards (fio's `trim`).
    Trim,
    /// Random discards (fio's `randtrim`).
    RandTrim,
    /// Each block discarded, then written (fio's `trimwrite`), sequentially.
    TrimWrite,
}

impl RwMode {
    /// Parses fio's spelling (`readwrite` and `randrw` aliases included).
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "read" => Self::Read,
            "write" => Self::Write,
            "randread" => Self::RandRead,
            "randwrite" => Self::RandWrite,
            "rw" | "readwrite" => Self::Rw,
            "randrw" => Self::RandRw,
            "trim" => Self::Trim,
            "randtrim" => Self::RandTrim,
            "trimwrite" => Self::TrimWrite,
            _ => return None,
        })
    }

    /// fio's name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::RandRead => "randread",
            Self::RandWrite => "randwrite",
            Self::Rw => "rw",
            Self::RandRw => "randrw",
            Self::Trim => "trim",
            Self::RandTrim => "randtrim",
            Self::TrimWrite => "trimwrite",
        }
    }

    #[must_use]
    pub(crate) fn is_random(self) -> bool {
        matches!(
            self,
            Self::RandRead | Self::RandWrite | Self::RandRw | Self::RandTrim
        )
    }

    /// Whether the mode discards blocks (destructive, like a write).
    #[must_use]
    pub(crate) fn trims(self) -> bool {
        matches!(self, Self::Trim | Self::RandTrim | Self::TrimWrite)
    }

    /// Share of reads in percent, given the mix setting for mixed modes (trims count as
    /// writes: they change the data).
    #[must_use]
    pub(crate) fn read_pct(self, rwmixread_pct: u8) -> u8 {
        match self {
            Self::Read | Self::RandRead => 100,
            Self::Write | Self::RandWrite | Self::Trim | Self::RandTrim | Self::TrimWrite => 0,
            Self::Rw | Self::RandRw => rwmixread_pct,
        }
    }
}

/// How the I/O is issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// A ring per worker, `iodepth` I/Os in flight.
    IoUring,
    /// Linux native AIO (`io_submit`/`io_getevents`), a context per worker, `iodepth` I/Os in
    /// flight (asynchronous with O_DIRECT only).
    Libaio,
    /// `pread`/`pwrite`, one I/O at a time per worker.
    Psync,
    /// No I/O: completes every request at once; measures the engine's own overhead.
    Null,
    /// fio's `falloc`: `fallocate` on the range, one at a time (a write allocates it, a read
    /// allocates it keeping the file's size, a trim punches a hole); no data moves.
    Falloc,
    /// fio's `ftruncate`: each write truncates the file to its offset, one at a time.
    Ftruncate,
    /// fio's `filecreate`: each I/O is one file created (`open(O_CREAT)`, then `close`).
    FileCreate,
    /// fio's `filestat`: each I/O is one `stat`, `lstat` or `statx` of a file.
    FileStat,
    /// fio's `filedelete`: each I/O is one `unlink` of a file laid out before the run.
    FileDelete,
}

impl EngineKind {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::IoUring => "io_uring",
            Self::Libaio => "libaio",
            Self::Psync => "psync",
            Self::Null => "null",
            Self::Falloc => "falloc",
            Self::Ftruncate => "ftruncate",
            Self::FileCreate => "filecreate",
            Self::FileStat => "filestat",
            Self::FileDelete => "filedelete",
        }
    }

    /// fio's metadata engines: each I/O is an operation on one of the job's files (see
    /// [`MetaFiles`]), no data moves.
    #[must_use]
    pub(crate) fn is_metadata(self) -> bool {
        matches!(self, Self::FileCreate | Self::FileStat | Self::FileDelete)
    }

    /// Engines that send an I/O in one call and complete it in another (io_uring, libaio,
    /// null): fio's slat and clat are apart (`Engine::times_submit`).
    #[must_use]
    pub(crate) fn times_submit(self) -> bool {
        matches!(self, Self::IoUring | Self::Libaio | Self::Null)
    }

    /// Engines that issue one I/O at a time per worker.
    #[must_use]
    pub(crate) fn one_at_a_time(self) -> bool {
        matches!(self, Self::Psync | Self::Falloc | Self::Ftruncate) || self.is_metadata()
    }
}

/// The files a metadata engine's job works on (fio's `nrfiles`, `filename_format`), in the
/// job's directory. I/O number `n` of a worker is file `n` of that worker's set; its size
/// (fio's `filesize`) is the job's block size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaFiles {
    /// The name of each file: `$jobnum` and `$filenum` still to be replaced (the worker's
    /// number in its job, the file's number), `$jobname` already replaced.
    pub format: String,
    /// Files per worker (fio's `nrfiles`).
    pub count: u32,
    /// The call `filestat` times (fio's `stat_type`).
    pub stat: StatCall,
    /// Files this run created are removed when the worker ends (fio's `unlink=1`).
    pub unlink: bool,
}

impl MetaFiles {
    /// File `file` of worker `worker`.
    #[must_use]
    pub fn name(&self, worker: u32, file: u32) -> String {
        self.format
            .replace("$jobnum", &worker.to_string())
            .replace("$filenum", &file.to_string())
    }
}

/// fio's `stat_type` for the `filestat` engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatCall {
    Stat,
    Lstat,
    Statx,
}

impl StatCall {
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "stat" => Some(Self::Stat),
            "lstat" => Some(Self::Lstat),
            "statx" => Some(Self::Statx),
            _ => None,
        }
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stat => "stat",
            Self::Lstat => "lstat",
            Self::Statx => "statx",
        }
    }
}

/// A sync after every N writes (fio's `fsync=N` / `fdatasync=N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncEvery {
    Fsync(u32),
    Fdatasync(u32),
}

impl SyncEvery {
    #[must_use]
    pub(crate) fn every_writes(self) -> u32 {
        match self {
            Self::Fsync(n) | Self::Fdatasync(n) => n,
        }
    }
}

/// Open flag for synchronous writes (`--sync`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenSync {
    /// O_DSYNC.
    Dsync,
    /// O_SYNC.
    Sync,
}

impl OpenSync {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Dsync => "dsync",
            Self::Sync => "sync",
        }
    }
}

/// A validated job. Sizes in bytes, times as `Duration`.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    pub rw: RwMode,
    pub rwmixread_pct: u8,
    pub block_size_bytes: u64,
    /// The working set asked for; the target may lower it (see `target`).
    pub size_bytes: u64,
    /// `--size` was given (an explicit size is never lowered silently).
    pub size_explicit: bool,
    pub iodepth: u32,
    pub numjobs: u32,
    pub ioengine: EngineKind,
    pub iodepth_batch: u32,
    /// Completions taken per reap before refilling (fio's `iodepth_batch_complete_max`).
    pub iodepth_batch_complete: u32,
    /// The fewest completions a reap waits for, capped by what is in flight (fio's
    /// `iodepth_batch_complete_min`); 0: poll, never sleep, until one has completed.
    pub iodepth_batch_complete_min: u32,
    /// Once the queue is full, reap until no more than this many are in flight before
    /// filling it again (fio's `iodepth_low`; `iodepth`: keep it full).
    pub iodepth_low: u32,
    pub direct: bool,
    pub sync_every: Option<SyncEvery>,
    pub open_sync: Option<OpenSync>,
    pub cpus: Option<Vec<usize>>,
    /// `true`: worker N runs on the Nth CPU of `cpus` only (fio's `cpus_allowed_policy=split`,
    /// `bench --cpus`); `false`: every worker may run on any of them (`shared`).
    pub cpus_split: bool,
    pub runtime: Duration,
    pub ramp: Duration,
    pub interval: Duration,
    /// Where the job's region starts in the target, bytes (fio's `offset`).
    pub offset_bytes: u64,
    /// Worker N's region starts `N x` this further (fio's `offset_increment`).
    pub offset_increment_bytes: u64,
    /// A size-based run: each worker ends after moving this many bytes (fio without
    /// `time_based`, `bench --io-size`); `runtime` is then a cap. `None`: time-based.
    pub io_size_bytes: Option<u64>,
    /// Time after the step starts before this job's first I/O (fio's `startdelay`).
    pub startdelay: Duration,
    /// Seed of the offsets and the read/write mix; `None`: the session's fixed seed, the same
    /// every run (fio's `randrepeat=1`).
    pub randseed: Option<u64>,
    /// fsync the target when the job ends (fio's `end_fsync`), timed as a sync.
    pub end_fsync: bool,
    /// How random offsets spread over the working set (fio's `random_distribution`).
    pub distribution: Distribution,
    /// Steady state: stop (or flag departures) once the criterion holds over the window
    /// (fio's `ss`, `ss_dur`, `ss_ramp`); `None`: run to the runtime.
    pub steady: Option<crate::stats::steady::SteadyState>,
    /// Percent below the running write level that marks the sustained-write cliff (`--cliff`).
    pub cliff_pct: f64,
    /// Each worker's cap per direction (fio's `rate`/`rate_iops`, per job clone): `None`
    /// runs flat out.
    pub rate: Option<RateLimit>,
    /// Mixed block sizes (fio's `bssplit`); `block_size_bytes` is then the largest of them
    /// (each I/O buffer holds any).
    pub bssplit: Option<BsSplit>,
    /// How io_uring is set up (fio's io_uring engine options).
    pub uring: UringOptions,
    /// Data verification (fio's `verify`, `verify_only`, `verify_fatal`).
    pub verify: Option<VerifySpec>,
    /// Each worker ends after this many I/Os, whichever of its ends comes first (fio's
    /// `number_ios`).
    pub number_ios: Option<u64>,
    /// A pause after every few I/Os (fio's `thinktime` and its companions).
    pub think: Option<ThinkTime>,
    /// The job fails when a direction it does moves less than this (fio's `rate_min`,
    /// `rate_iops_min`, `rate_cycle`).
    pub rate_min: Option<RateMin>,
    /// Token-based flow control with the other jobs of its group (fio's `flow`, `flow_id`,
    /// `flow_sleep`); `None`: not in a group.
    pub flow: Option<Flow>,
    /// What the written blocks hold (fio's `zero_buffers`, `refill_buffers`).
    pub data: BufferData,
    /// Before this job's step starts, drop the kernel's clean page cache by writing `1` to
    /// `/proc/sys/vm/drop_caches` (KDiskMark's "Flush Pagecache"; root only).
    pub drop_caches: bool,
    /// Uniform random offsets visit each block once per pass (fio's default; `norandommap`
    /// draws with replacement).
    pub random_map: bool,
    /// fio's `blockalign`: random offsets are multiples of this many bytes instead of the
    /// smallest block size (`None`: the smallest block size). fio turns the random map off
    /// with it.
    pub block_align_bytes: Option<u64>,
    /// fio's `zonemode=strided` (`zonesize`, `zonerange`, `zoneskip`): `None` without zones.
    pub zones: Option<StridedZones>,
    /// fio's `zonemode=zbd` emulated on the target (`zonesize`, `max_open_zones`,
    /// `job_max_open_zones`, `read_beyond_wp`): `None` without.
    pub zbd: Option<crate::bench::zbd::ZbdZones>,
    /// Several files per worker (fio's `nrfiles`, `openfiles`, `file_service_type`): `None`
    /// with one.
    pub files: Option<crate::bench::fileset::FileSet>,
    /// How the random map draws (fio's `random_generator`).
    pub random_generator: crate::bench::randmap::Generator,
    /// A buffered job drops its file's page cache at the start and, time-based, at each wrap
    /// of its pass (fio's `invalidate=1`, its default).
    pub invalidate: bool,
    /// `posix_fadvise` hint on the job's files (fio's `fadvise_hint`, default 1: by pattern).
    pub fadvise: Fadvise,
    /// fio's `rw=MODE:N` modifier (its `rw_sequencer`): `None` for plain `rw=MODE`.
    pub sequencer: Option<Sequencer>,
    /// Where the I/O buffers live (fio's `iomem`): plain pages, or huge pages asked for.
    pub iomem: IoMem,
    /// How a pure write job's new file is laid out before the run (fio's `fallocate`).
    pub fallocate: Fallocate,
    /// Which failed I/Os the job counts and goes on past (fio's `continue_on_error`,
    /// `ignore_error`).
    pub errors: ErrorPolicy,
    /// The files of a metadata engine's job (`filecreate`, `filestat`, `filedelete`).
    pub meta: Option<MetaFiles>,
    /// Each worker thread's I/O priority (fio's `prio`, `prioclass`): ioprio_set's value.
    pub ioprio: Option<u16>,
    /// A share of the I/Os at a priority of their own (fio's `cmdprio_*`; libaio, io_uring).
    pub cmdprio: Option<crate::bench::prio::CmdPrio>,
    /// The NUMA nodes whose CPUs the workers run on (fio's `numa_cpu_nodes`).
    pub numa_cpu_nodes: Option<Vec<u32>>,
    /// The workers' memory policy (fio's `numa_mem_policy`), set before their buffers.
    pub numa_mem_policy: Option<crate::bench::prio::MemPolicy>,
    /// fio's `buffer_pattern`: the bytes every I/O buffer holds, repeated from its start.
    pub buffer_pattern: Option<Vec<u8>>,
    /// fio's `verify_pattern`: what a verifying job's blocks hold after their headers (with
    /// `verify=pattern`, the whole block).
    pub verify_pattern: Option<crate::bench::verify::Pattern>,
    /// The job's size is its file's length when it starts (fio's size of a file an earlier,
    /// stonewalled job writes into being); `size_bytes` is the most it can be.
    pub size_at_start: bool,
    /// fio's sg engine on a block device, by its `sg_write_mode`.
    pub sg: Option<SgMode>,
    /// Writes until the filesystem or device is full (fio's `fill_device`): a write that
    /// fails with ENOSPC or EDQUOT ends the worker, as the end of its size would.
    pub fill_device: bool,
    /// fio's `latency_target` search for the deepest queue within a latency (`None`: the
    /// job runs at its iodepth).
    pub latency_target: Option<crate::bench::latency::LatencyTarget>,
    /// fio's log files, written by the job's workers (`bench::iolog`; `None`: no log).
    pub io_log: Option<std::sync::Arc<crate::bench::iolog::IoLogPlan>>,
}

/// fio's sg engine's `sg_write_mode`, as the I/O on a block device with the same effect on
/// the medium and on the result (no SCSI command reaches the device: a read or write does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SgMode {
    /// `write` (and `write_stream`): the buffer is written.
    Write,
    /// `write_and_verify` (`verify`): written, then read back and compared with the buffer.
    WriteAndVerify,
    /// `verify_bytchk_00`: the blocks are read (a medium check); nothing is compared.
    VerifyMedium,
    /// `verify_bytchk_01`: the blocks are read and compared with the job's buffer.
    VerifyCompare,
    /// `verify_bytchk_11`: each logical block read is compared with the buffer's first.
    VerifyEachBlock,
    /// `write_same`: the buffer's first logical block, written over every block of the I/O.
    Same,
    /// `write_same_ndob`: zeros written (no data-out buffer).
    SameNdob,
}

impl SgMode {
    /// fio's name of the mode.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Write => "write",
            Self::WriteAndVerify => "write_and_verify",
            Self::VerifyMedium => "verify_bytchk_00",
            Self::VerifyCompare => "verify_bytchk_01",
            Self::VerifyEachBlock => "verify_bytchk_11",
            Self::Same => "write_same",
            Self::SameNdob => "write_same_ndob",
        }
    }

    /// fio's names: `verify` is `write_and_verify`, `same` `write_same`, `write_stream` a
    /// plain write (the stream ID is a SCSI hint a block device is not given).
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "write" | "write_stream" => Self::Write,
            "write_and_verify" | "verify" => Self::WriteAndVerify,
            "verify_bytchk_00" => Self::VerifyMedium,
            "verify_bytchk_01" => Self::VerifyCompare,
            "verify_bytchk_11" => Self::VerifyEachBlock,
            "write_same" | "same" => Self::Same,
            "write_same_ndob" => Self::SameNdob,
            _ => return None,
        })
    }

    /// The mode's "writes" are reads of the medium (the SCSI VERIFY commands).
    #[must_use]
    pub(crate) fn reads_instead(self) -> bool {
        matches!(
            self,
            Self::VerifyMedium | Self::VerifyCompare | Self::VerifyEachBlock
        )
    }
}

/// Where the block of `len` bytes read at `offset` first differs from what `expect` says it
/// holds: `each` compares every `each` bytes with `expect`'s first `each` (the sg engine's
/// `verify_bytchk_11`), else the whole block with `expect` (`verify_bytchk_01`). `None`: equal.
#[must_use]
pub(crate) fn sg_mismatch(block: &[u8], expect: &[u8], each: Option<usize>) -> Option<usize> {
    let first_diff = |got: &[u8], want: &[u8]| got.iter().zip(want).position(|(a, b)| a != b);
    match each {
        Some(each) if each > 0 && each <= expect.len() => {
            block.chunks(each).enumerate().find_map(|(i, chunk)| {
                first_diff(chunk, &expect[..chunk.len()]).map(|at| i * each + at)
            })
        }
        _ => first_diff(block, expect),
    }
}

/// Fills `buf` with `pattern` repeated from its start (fio's `buffer_pattern`).
pub(crate) fn fill_pattern(buf: &mut [u8], pattern: &[u8]) {
    if pattern.is_empty() {
        return;
    }
    for (i, byte) in buf.iter_mut().enumerate() {
        *byte = pattern[i % pattern.len()];
    }
}

/// fio's `iomem`: the memory the I/O buffers are carved from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoMem {
    /// `malloc` (fio's default), `mmap`, `shm`: 4 KiB pages, no huge-page advice.
    Malloc,
    Mmap,
    Shm,
    /// `huge` (`diskdash bench`'s default), `shmhuge`, `mmaphuge`: a pool of 2 MiB or more
    /// is 2 MiB-aligned and asks for transparent huge pages before its first touch.
    Huge,
    ShmHuge,
    MmapHuge,
}

impl IoMem {
    /// The spelling, fio's where fio has one.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Malloc => "malloc",
            Self::Mmap => "mmap",
            Self::Shm => "shm",
            Self::Huge => "huge",
            Self::ShmHuge => "shmhuge",
            Self::MmapHuge => "mmaphuge",
        }
    }

    /// fio's spellings plus `huge`; `mmaphuge:PATH` (fio's hugetlbfs file) is taken as
    /// `mmaphuge`, whose pages come from transparent huge pages here.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let kind = text.split_once(':').map_or(text, |(kind, _)| kind);
        match kind {
            "malloc" => Some(Self::Malloc),
            "mmap" | "mmapshared" => Some(Self::Mmap),
            "shm" => Some(Self::Shm),
            "huge" => Some(Self::Huge),
            "shmhuge" => Some(Self::ShmHuge),
            "mmaphuge" => Some(Self::MmapHuge),
            _ => None,
        }
    }

    /// Whether the buffers ask for huge pages.
    #[must_use]
    pub(crate) fn huge(self) -> bool {
        matches!(self, Self::Huge | Self::ShmHuge | Self::MmapHuge)
    }
}

/// What the written blocks hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BufferData {
    /// Pseudo-random bytes filled once per worker and reused (fio's default:
    /// `refill_buffers=0`, `zero_buffers=0`).
    #[default]
    Random,
    /// Fresh pseudo-random bytes before every write (fio's `refill_buffers`).
    Refill,
    /// Zeros (fio's `zero_buffers`): a device that compresses or deduplicates stores nothing.
    Zero,
    /// Blocks that deduplicate and compress as asked (fio's `dedupe_percentage`,
    /// `buffer_compress_percentage` and their companions), made before every write.
    Shaped(crate::bench::buffer::Shape),
}

/// fio's `zonemode=strided`: each worker's I/O stays in one zone of `range_bytes` (from the
/// zone's start again at its end) until `size_bytes` have moved there, then moves
/// `range_bytes + skip_bytes` on, back to the region's start past its end. The job's size still
/// bounds the bytes moved; the skipped bytes are not counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StridedZones {
    /// fio's `zonesize`: bytes moved in a zone before the next.
    pub size_bytes: u64,
    /// fio's `zonerange` (default `zonesize`): the zone's length.
    pub range_bytes: u64,
    /// fio's `zoneskip`: bytes left out between one zone's end and the next's start.
    pub skip_bytes: u64,
}

/// fio's `continue_on_error` with `ignore_error`: the classes of failed I/O (read, write,
/// verify) a job goes on past, and per class the errnos that count as passable. A class
/// without its own list passes fio's defaults, EIO and EILSEQ.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorPolicy {
    /// Bit 0 read, bit 1 write, bit 2 verify (fio's `ERROR_TYPE_*_BIT`).
    pub classes: u8,
    /// `ignore_error`'s lists, read, write, verify; an empty list is fio's default.
    pub lists: [Vec<i32>; 3],
}

/// A failed I/O's class, fio's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorClass {
    Read = 0,
    Write = 1,
    /// A block read back that failed its check (fio's EILSEQ in a verify).
    Verify = 2,
}

impl ErrorClass {
    /// fio's `td_error_type`: a failed I/O with EILSEQ (a verify's check that failed) is of
    /// class verify whatever its direction; any other errno is its direction's class (a
    /// trim's is write's). The sg engine's failed compare is not EILSEQ but the verifying
    /// command's EIO, of class write (`sg::MISCOMPARE_ERRNO`), as in fio.
    pub(crate) fn of(read: bool, errno: i32) -> Self {
        match (errno, read) {
            (libc::EILSEQ, _) => Self::Verify,
            (_, true) => Self::Read,
            (_, false) => Self::Write,
        }
    }
}

impl ErrorPolicy {
    /// fio's `continue_on_error` words: the classes they name, or `None` for another word.
    #[must_use]
    pub(crate) fn classes_of(text: &str) -> Option<u8> {
        match text.trim() {
            "none" | "0" => Some(0),
            "read" => Some(0b001),
            "write" => Some(0b010),
            "io" => Some(0b011),
            "verify" => Some(0b100),
            "all" | "1" => Some(0b111),
            _ => None,
        }
    }

    /// Whether the job goes on past `errno` in `class` (fio's `td_non_fatal_error`).
    #[must_use]
    pub(crate) fn continues(&self, class: ErrorClass, errno: i32) -> bool {
        let i = class as usize;
        if self.classes & (1 << i) == 0 {
            return false;
        }
        let list = &self.lists[i];
        if list.is_empty() {
            matches!(errno, libc::EIO | libc::EILSEQ)
        } else {
            list.contains(&errno)
        }
    }

    /// fio's word for the classes (`none`, `read`, `write`, `io`, `verify`, `all`; verify
    /// with read or write spelled as all).
    #[must_use]
    pub(crate) fn classes_text(&self) -> &'static str {
        match self.classes {
            0 => "none",
            0b001 => "read",
            0b010 => "write",
            0b011 => "io",
            0b100 => "verify",
            _ => "all",
        }
    }

    /// `ignore_error`'s lists as fio reads them: errno names joined by ':', classes by ','.
    #[must_use]
    pub(crate) fn lists_text(&self) -> String {
        let name = |n: &i32| format!("{:?}", nix::errno::Errno::from_raw(*n));
        let mut lists: Vec<String> = self
            .lists
            .iter()
            .map(|l| l.iter().map(name).collect::<Vec<_>>().join(":"))
            .collect();
        while lists.last().is_some_and(String::is_empty) {
            lists.pop();
        }
        lists.join(",")
    }

    /// Whether any class is continued past (fio then reports `total_err` and `first_error`).
    #[must_use]
    pub fn any(&self) -> bool {
        self.classes != 0
    }
}

/// fio's `ignore_error=READ,WRITE,VERIFY`: up to three lists, each errno names (`ENOSPC`) or
/// numbers (`28`, or `-28`) joined by ':'. Returns the errno numbers per class; the word that
/// is not an error, if any.
pub(crate) fn ignore_lists(text: &str) -> Result<Vec<Vec<i32>>, String> {
    let classes: Vec<&str> = text.split(',').collect();
    if classes.len() > 3 {
        return Err(text.to_string());
    }
    classes
        .iter()
        .map(|list| {
            list.split(':')
                .map(str::trim)
                .filter(|word| !word.is_empty())
                .map(|word| errno_of(word).ok_or_else(|| word.to_string()))
                .collect()
        })
        .collect()
}

/// An errno by its name (`EIO`) or number (`5`, `-5`): Linux's, as nix knows them.
fn errno_of(word: &str) -> Option<i32> {
    use nix::errno::Errno;
    if let Ok(n) = word.parse::<i32>() {
        let n = n.checked_abs()?;
        return (Errno::from_raw(n) != Errno::UnknownErrno).then_some(n);
    }
    (1..4096).find(|&n| {
        let errno = Errno::from_raw(n);
        errno != Errno::UnknownErrno && format!("{errno:?}") == word
    })
}

/// fio's `fallocate`: how a file a pure write job creates is laid out before the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallocate {
    /// `none` (`0`): nothing; the file stays empty and grows as it is written.
    None,
    /// `native` (fio's default): `fallocate(2)` of the whole file, which also sets its size;
    /// skipped where the filesystem has none.
    Native,
    /// `posix` (`1`): `posix_fallocate(3)` (the C library writes zeros where the filesystem
    /// cannot allocate).
    Posix,
    /// `keep`: `fallocate(2)` with `FALLOC_FL_KEEP_SIZE`: allocated, the length stays 0.
    Keep,
    /// `truncate`: `ftruncate(2)` to the size, nothing allocated (a sparse file).
    Truncate,
}

impl Fallocate {
    /// fio's spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Native => "native",
            Self::Posix => "posix",
            Self::Keep => "keep",
            Self::Truncate => "truncate",
        }
    }

    /// fio's names, and its `0` (none) and `1` (posix).
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "none" | "0" => Some(Self::None),
            "native" => Some(Self::Native),
            "posix" | "1" => Some(Self::Posix),
            "keep" => Some(Self::Keep),
            "truncate" => Some(Self::Truncate),
            _ => None,
        }
    }
}

/// fio's `fadvise_hint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fadvise {
    /// `0`: no hint.
    Off,
    /// `1`: POSIX_FADV_RANDOM for random jobs, POSIX_FADV_SEQUENTIAL for sequential ones.
    ByPattern,
    Sequential,
    Random,
}

impl Fadvise {
    /// fio's spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "0",
            Self::ByPattern => "1",
            Self::Sequential => "sequential",
            Self::Random => "random",
        }
    }

    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "0" => Some(Self::Off),
            "1" => Some(Self::ByPattern),
            "sequential" => Some(Self::Sequential),
            "random" => Some(Self::Random),
            _ => None,
        }
    }

    /// The `posix_fadvise` advice for a job of `random` offsets, if any.
    #[must_use]
    pub(crate) fn advice(self, random: bool) -> Option<libc::c_int> {
        match (self, random) {
            (Self::Off, _) => None,
            (Self::Random, _) | (Self::ByPattern, true) => Some(libc::POSIX_FADV_RANDOM),
            (Self::Sequential, _) | (Self::ByPattern, false) => Some(libc::POSIX_FADV_SEQUENTIAL),
        }
    }
}

/// fio's `rw=MODE:N`: how offsets move between I/Os.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sequencer {
    /// A sequential job skips this many bytes after each I/O (negative: it walks backwards,
    /// each I/O this far before the end of the previous one), wrapping at the region's ends.
    Skip(i64),
    /// A random job draws a new random offset every this many I/Os and goes on sequentially
    /// from the last one in between.
    RandomEvery(u32),
}

impl Sequencer {
    /// The modifier as fio writes it after `rw=MODE:`.
    #[must_use]
    pub(crate) fn suffix(self) -> String {
        match self {
            Self::Skip(bytes) if bytes < 0 => {
                format!("-{}", crate::units::format_size_short(bytes.unsigned_abs()))
            }
            Self::Skip(bytes) => crate::units::format_size_short(bytes.unsigned_abs()),
            Self::RandomEvery(n) => n.to_string(),
        }
    }
}

/// fio's think time: after `blocks` I/Os (counted as they complete, or as they are issued),
/// the worker lets its in-flight I/O finish, then spins the CPU for `spin` and sleeps the rest
/// of `pause`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThinkTime {
    pub pause: Duration,
    /// The part of `pause` spent busy on the CPU (`thinktime_spin`), at most `pause`.
    pub spin: Duration,
    pub blocks: u32,
    /// Count I/Os as they are issued (`thinktime_blocks_type=issue`), not as they complete.
    pub on_issue: bool,
}

/// fio's flow control: every worker of the jobs with one `id` counts its I/Os into a shared
/// counter, and holds back while its share of that counter is above its `weight`'s share of
/// the group's weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flow {
    /// fio's `flow`: 1 to 1000.
    pub weight: u32,
    /// fio's `flow_id` (default 0).
    pub id: u32,
    /// fio's `flow_sleep`: held back, the worker lets its in-flight I/O finish and sleeps this
    /// long before it looks again (zero: it looks again at once).
    pub sleep: Duration,
}

/// fio's floor under a job's rate, per worker and per direction the job does, over each
/// `cycle` after the ramp: below it the job stops with an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateMin {
    pub bytes_per_sec: Option<u64>,
    pub iops: Option<u64>,
    pub cycle: Duration,
}

/// Data verification: writes carry a header and checksum (`verify::fill`); a write job (or a
/// mixed one, whose own reads are not checked, as fio's are not) reads back what it wrote
/// after its run, and with a backlog among its writes too; a `only` job reads a set written
/// before, and each block read back is checked (`verify::check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifySpec {
    pub kind: crate::bench::verify::Kind,
    /// Read back a set written by an earlier `--verify` run; write nothing (`verify_only`).
    pub only: bool,
    /// Stop at the first failure (`verify_fatal`).
    pub fatal: bool,
    /// A write job reads back what it wrote after its run (fio's `do_verify`, default 1);
    /// `false` writes the verify headers only, for a later `verify_only` job.
    pub read_back: bool,
    /// A header every this many bytes within a block (fio's `verify_interval`); 0: one per
    /// block.
    pub interval: u32,
    /// Checks among the writes (`verify_backlog`, `verify_backlog_batch`); the read-back
    /// after the run then reads only what they left.
    pub backlog: Option<crate::bench::verify::BacklogSpec>,
}

/// fio's io_uring engine options. diskdash registers the file and the buffers by default
/// (fio does not) and always issues non-vectored reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UringOptions {
    /// Polled completions (`hipri`: IORING_SETUP_IOPOLL); O_DIRECT only.
    pub hipri: bool,
    /// A kernel thread submits (`sqthread_poll`: IORING_SETUP_SQPOLL).
    pub sqpoll: bool,
    /// The CPU the submission thread runs on (`sqthread_poll_cpu`).
    pub sqpoll_cpu: Option<usize>,
    /// Registered buffers (`fixedbufs`): READ_FIXED/WRITE_FIXED.
    pub fixed_bufs: bool,
    /// A registered file (`registerfiles`).
    pub register_files: bool,
    /// READ/WRITE rather than READV/WRITEV (`nonvectored`).
    pub nonvectored: bool,
}

impl UringOptions {
    /// Whether the engine registers the buffers: asked for, and read and written by address
    /// of a registered buffer (vectored I/O takes plain addresses).
    #[must_use]
    pub(crate) fn registers_buffers(&self) -> bool {
        self.fixed_bufs && self.nonvectored
    }
}

impl Default for UringOptions {
    fn default() -> Self {
        Self {
            hipri: false,
            sqpoll: false,
            sqpoll_cpu: None,
            fixed_bufs: true,
            register_files: true,
            nonvectored: true,
        }
    }
}

/// Block sizes with their shares in percent, per direction (fio's `bssplit`). An empty side
/// means that direction uses the job's `bs`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BsSplit {
    pub read: Vec<(u64, u8)>,
    pub write: Vec<(u64, u8)>,
}

impl BsSplit {
    /// fio's spelling: `4k/50:64k/30:1M/20`, or `READ,WRITE` when the sides differ.
    #[must_use]
    pub(crate) fn as_text(&self) -> String {
        let side = |entries: &[(u64, u8)]| {
            entries
                .iter()
                .map(|(bytes, pct)| format!("{}/{pct}", format_size_short(*bytes)))
                .collect::<Vec<_>>()
                .join(":")
        };
        if self.read == self.write {
            side(&self.read)
        } else {
            format!("{},{}", side(&self.read), side(&self.write))
        }
    }

    /// Every size named, either side.
    pub(crate) fn sizes(&self) -> impl Iterator<Item = u64> + '_ {
        self.read.iter().chain(&self.write).map(|&(bytes, _)| bytes)
    }
}

/// How a random job picks its blocks (fio's `random_distribution`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution {
    /// Every block alike.
    Uniform,
    /// Zipf with exponent `theta` (> 0, not 1): a few blocks take most of the I/O.
    Zipf(f64),
    /// Pareto with `h` in (0, 1): fio's `pareto:h`.
    Pareto(f64),
    /// Gaussian around the middle of the working set, the deviation a percentage of it.
    Normal(f64),
    /// fio's `zoned:A/S:...`: A% of the I/O goes to the next S% of the working set, uniform
    /// within each zone.
    Zoned(Zones),
}

/// The most zones a `zoned` distribution may have.
pub(crate) const MAX_ZONES: usize = 16;

/// fio's `zoned` zones, in order from the start of the working set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zones {
    pub count: u8,
    /// (percent of the I/O, percent of the working set); the first `count` are used.
    pub zones: [(u8, u8); MAX_ZONES],
}

impl Zones {
    /// The zones in use.
    #[must_use]
    pub fn list(&self) -> &[(u8, u8)] {
        &self.zones[..usize::from(self.count)]
    }
}

impl Distribution {
    /// fio's spelling: `random`, `zipf:1.2`, `pareto:0.3`, `normal:10`.
    #[must_use]
    pub(crate) fn as_text(self) -> String {
        match self {
            Self::Uniform => "random".to_string(),
            Self::Zipf(theta) => format!("zipf:{theta}"),
            Self::Pareto(h) => format!("pareto:{h}"),
            Self::Normal(dev) => format!("normal:{dev}"),
            Self::Zoned(zones) => {
                let parts: Vec<String> = zones
                    .list()
                    .iter()
                    .map(|(io, size)| format!("{io}/{size}"))
                    .collect();
                format!("zoned:{}", parts.join(":"))
            }
        }
    }
}

impl Default for JobSpec {
    /// `diskdash bench` with no options: 30 s of randread 4k at depth 32 on 1 GiB, O_DIRECT,
    /// io_uring (what `options::validate` gives for an empty list; a test keeps them equal).
    fn default() -> Self {
        Self {
            rw: RwMode::RandRead,
            rwmixread_pct: 50,
            block_size_bytes: 4096,
            size_bytes: 1 << 30,
            size_explicit: false,
            iodepth: 32,
            numjobs: 1,
            ioengine: EngineKind::IoUring,
            iodepth_batch: 1,
            iodepth_batch_complete: 1,
            iodepth_batch_complete_min: 1,
            iodepth_low: 32,
            direct: true,
            sync_every: None,
            open_sync: None,
            cpus: None,
            cpus_split: true,
            runtime: Duration::from_secs(30),
            ramp: Duration::ZERO,
            interval: Duration::from_secs(1),
            offset_bytes: 0,
            offset_increment_bytes: 0,
            io_size_bytes: None,
            startdelay: Duration::ZERO,
            randseed: None,
            end_fsync: false,
            distribution: Distribution::Uniform,
            steady: None,
            cliff_pct: DEFAULT_CLIFF_PCT,
            rate: None,
            bssplit: None,
            uring: UringOptions::default(),
            verify: None,
            number_ios: None,
            think: None,
            rate_min: None,
            flow: None,
            data: BufferData::Random,
            drop_caches: false,
            random_map: true,
            block_align_bytes: None,
            zones: None,
            zbd: None,
            files: None,
            random_generator: crate::bench::randmap::Generator::Tausworthe,
            invalidate: true,
            fadvise: Fadvise::ByPattern,
            sequencer: None,
            iomem: IoMem::Huge,
            fallocate: Fallocate::Native,
            errors: ErrorPolicy::default(),
            meta: None,
            ioprio: None,
            cmdprio: None,
            numa_cpu_nodes: None,
            numa_mem_policy: None,
            buffer_pattern: None,
            verify_pattern: None,
            size_at_start: false,
            sg: None,
            fill_device: false,
            latency_target: None,
            io_log: None,
        }
    }
}

/// `--cliff` when not given: a drop of more than 30 % that stays down.
pub(crate) const DEFAULT_CLIFF_PCT: f64 = crate::record::DEFAULT_CLIFF_PCT;

impl JobSpec {
    /// Whether the workers sleep between I/Os by a schedule (fio's `rate`, `rate_iops`,
    /// `thinktime`): a paced worker's wake-ups wait for a CPU with nothing in flight.
    #[must_use]
    pub fn paced(&self) -> bool {
        self.rate.is_some() || self.think.is_some()
    }

    /// fio's `rw` value: the mode, with its `:N` modifier when there is one.
    #[must_use]
    pub(crate) fn rw_text(&self) -> String {
        match self.sequencer {
            Some(seq) => format!("{}:{}", self.rw.as_str(), seq.suffix()),
            None => self.rw.as_str().to_string(),
        }
    }

    /// Whether this job issues writes.
    #[must_use]
    pub fn writes(&self) -> bool {
        self.rw.read_pct(self.rwmixread_pct) < 100
    }

    /// Whether this job writes data: a trim job only discards, though the interlocks count it
    /// as a writer ([`Self::writes`]).
    #[must_use]
    pub(crate) fn writes_data(&self) -> bool {
        self.writes() && !matches!(self.rw, RwMode::Trim | RwMode::RandTrim)
    }

    /// Whether this job issues reads.
    #[must_use]
    pub fn reads(&self) -> bool {
        self.rw.read_pct(self.rwmixread_pct) > 0
    }

    /// The directions `[read, write, trim]` this job issues (a verifying job reads too).
    #[must_use]
    pub(crate) fn directions(&self) -> [bool; 3] {
        [
            self.reads() || self.verify.is_some(),
            self.writes_data(),
            self.rw.trims(),
        ]
    }

    /// I/Os in flight per worker: psync issues one at a time, like fio's sync engines.
    #[must_use]
    pub(crate) fn effective_iodepth(&self) -> u32 {
        self.effective_iodepth_with(self.ioengine)
    }

    /// I/Os in flight per worker when `engine` runs the job (the session may fall back).
    #[must_use]
    pub(crate) fn effective_iodepth_with(&self, engine: EngineKind) -> u32 {
        match engine {
            EngineKind::Psync
            | EngineKind::Falloc
            | EngineKind::Ftruncate
            | EngineKind::FileCreate
            | EngineKind::FileStat
            | EngineKind::FileDelete => 1,
            EngineKind::IoUring | EngineKind::Libaio | EngineKind::Null => self.iodepth,
        }
    }

    /// The note a psync job with a deeper `--iodepth` gets: the depth applies to io_uring only.
    #[must_use]
    pub(crate) fn depth_note(&self) -> Option<String> {
        if self.rw.trims() {
            return Some(
                "trims are synchronous (BLKDISCARD on a device, a punched hole in a file), one \
                 at a time per worker as fio issues them: this job runs on psync"
                    .to_string(),
            );
        }
        let one_at_a_time = self.ioengine.one_at_a_time();
        (one_at_a_time && self.iodepth > 1).then(|| {
            format!(
                "{} issues one I/O at a time per worker; --iodepth {} applies to io_uring and libaio only",
                self.ioengine.as_str(),
                self.iodepth
            )
        })
    }

    /// fio-style one-line description: `randread bs=4k iodepth=32 numjobs=1 io_uring direct`.
    #[must_use]
    pub(crate) fn describe(&self) -> String {
        let bs = match &self.bssplit {
            Some(split) => format!("bssplit={}", split.as_text()),
            None => format!("bs={}", format_size_short(self.block_size_bytes)),
        };
        let mut text = format!(
            "{} {bs} iodepth={} numjobs={} {} {}",
            self.rw_text(),
            self.iodepth,
            self.numjobs,
            self.ioengine.as_str(),
            if self.direct { "direct" } else { "buffered" }
        );
        if matches!(self.rw, RwMode::Rw | RwMode::RandRw) {
            text += &format!(" rwmixread={}", self.rwmixread_pct);
        }
        match self.sync_every {
            Some(SyncEvery::Fsync(n)) => text += &format!(" fsync={n}"),
            Some(SyncEvery::Fdatasync(n)) => text += &format!(" fdatasync={n}"),
            None => {}
        }
        if let Some(sync) = self.open_sync {
            text += &format!(" sync={}", sync.as_str());
        }
        if self.rw.is_random() && self.distribution != Distribution::Uniform {
            text += &format!(" random_distribution={}", self.distribution.as_text());
        }
        if let Some(verify) = &self.verify {
            text += &format!(" verify={}", verify.kind.as_str());
            if verify.only {
                text += " verify_only=1";
            }
            if verify.fatal {
                text += " verify_fatal=1";
            }
            if let Some(backlog) = verify.backlog {
                text += &format!(" verify_backlog={}", backlog.every);
                if backlog.batch != backlog.every {
                    text += &format!(" verify_backlog_batch={}", backlog.batch);
                }
            }
        }
        if let Some(rate) = &self.rate {
            let key = match rate.unit {
                crate::bench::rate::Unit::Iops => "rate_iops",
                crate::bench::rate::Unit::Bytes => "rate",
            };
            // A job that only reads (or only writes) shows its one cap.
            let cap = match self.rw.read_pct(self.rwmixread_pct) {
                100 => rate.read.map(|r| r.to_string()),
                0 => rate.write.map(|w| w.to_string()),
                _ => None,
            };
            text += &format!(" {key}={}", cap.unwrap_or_else(|| rate.as_text()));
            if rate.process != crate::bench::rate::Process::Linear {
                text += &format!(" rate_process={}", rate.process.as_str());
            }
        }
        if let Some(flow) = &self.flow {
            text += &format!(" flow={}", flow.weight);
            if flow.id != 0 {
                text += &format!(" flow_id={}", flow.id);
            }
            if !flow.sleep.is_zero() {
                text += &format!(" flow_sleep={}us", flow.sleep.as_micros());
            }
        }
        text
    }
}

impl JobSpec {
    /// The record's `job` section of this job as it ran on `engine`: where io_uring fell back
    /// to psync, `ran_description` says so (psync at depth 1); `ioengine` and `iodepth` keep
    /// what was asked.
    #[must_use]
    pub(crate) fn record_on(&self, engine: EngineKind) -> crate::record::JobRecord {
        let mut record = crate::record::JobRecord::from(self);
        if self.ioengine == EngineKind::IoUring && engine == EngineKind::Psync {
            let mut ran = self.clone();
            ran.ioengine = engine;
            ran.iodepth = self.effective_iodepth_with(engine);
            record.ran_description = Some(ran.describe());
        }
        record
    }
}

/// The record's `job` section: fio's option names.
impl From<&JobSpec> for crate::record::JobRecord {
    fn from(spec: &JobSpec) -> Self {
        Self {
            description: spec.describe(),
            ran_description: None,
            rw: spec.rw.as_str().to_string(),
            rwmixread: spec.rwmixread_pct,
            bs: spec.block_size_bytes,
            size: spec.size_bytes,
            iodepth: spec.iodepth,
            numjobs: spec.numjobs,
            ioengine: spec.ioengine.as_str().to_string(),
            iodepth_batch: spec.iodepth_batch,
            iodepth_batch_complete: spec.iodepth_batch_complete,
            iodepth_batch_complete_min: spec.iodepth_batch_complete_min,
            iodepth_low: (spec.iodepth_low < spec.iodepth).then_some(spec.iodepth_low),
            direct: spec.direct,
            fsync: match spec.sync_every {
                Some(SyncEvery::Fsync(n)) => Some(n),
                _ => None,
            },
            fdatasync: match spec.sync_every {
                Some(SyncEvery::Fdatasync(n)) => Some(n),
                _ => None,
            },
            sync: spec.open_sync.map(|s| s.as_str().to_string()),
            cpus: spec.cpus.as_deref().map(format_cpu_list),
            runtime_ns: crate::record::nanos(spec.runtime),
            ramp_ns: crate::record::nanos(spec.ramp),
            interval_ns: crate::record::nanos(spec.interval),
            offset: spec.offset_bytes,
            offset_increment: spec.offset_increment_bytes,
            io_size: spec.io_size_bytes,
            startdelay_ns: crate::record::nanos(spec.startdelay),
            randseed: spec.randseed,
            end_fsync: spec.end_fsync,
            cpus_allowed_policy: if spec.cpus_split { "split" } else { "shared" }.to_string(),
            random_distribution: spec.distribution.as_text(),
            steadystate: spec
                .steady
                .as_ref()
                .map(crate::record::SteadyJobRecord::from),
            cliff_pct: spec.cliff_pct,
            rate: spec.rate.map(|rate| crate::record::RateRecord {
                unit: match rate.unit {
                    crate::bench::rate::Unit::Iops => "iops",
                    crate::bench::rate::Unit::Bytes => "bytes",
                }
                .to_string(),
                read: rate.read,
                write: rate.write,
                process: rate.process.as_str().to_string(),
            }),
            bssplit: spec.bssplit.as_ref().map(BsSplit::as_text),
            norandommap: !spec.random_map,
            random_generator: spec.random_generator.as_str().to_string(),
            invalidate: spec.invalidate,
            fadvise_hint: spec.fadvise.as_str().to_string(),
            data: match spec.data {
                BufferData::Random => "random",
                BufferData::Refill => "refill",
                BufferData::Zero => "zero",
                BufferData::Shaped(_) => "shaped",
            }
            .to_string(),
            iomem: spec.iomem.as_str().to_string(),
            fallocate: spec.fallocate.as_str().to_string(),
            latency_target: spec
                .latency_target
                .map(|t| crate::record::LatencyTargetRecord {
                    target_ns: crate::record::nanos(t.target),
                    window_us: u64::try_from(t.window.as_micros()).unwrap_or(u64::MAX),
                    percentile: t.percentile,
                    run: t.keep_running,
                }),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn continue_on_error_passes_only_its_classes_and_their_errors() {
        let policy = |classes: &str, lists: &str| {
            let given = super::ignore_lists(lists).unwrap();
            let mut p = super::ErrorPolicy {
                classes: super::ErrorPolicy::classes_of(classes).unwrap(),
                lists: Default::default(),
            };
            for (l, g) in p.lists.iter_mut().zip(given) {
                *l = g;
            }
            p
        };
        use super::ErrorClass::{Read, Verify, Write};
        let none = policy("none", "");
        assert!(!none.any() && !none.continues(Write, libc::EIO));
        // Without a list, fio's defaults: EIO and EILSEQ only.
        let write = policy("write", "");
        assert!(write.continues(Write, libc::EIO) && write.continues(Write, libc::EILSEQ));
        assert!(!write.continues(Write, libc::ENOSPC) && !write.continues(Read, libc::EIO));
        // A list replaces the defaults for its class only.
        let enospc = policy("io", ",ENOSPC");
        assert!(enospc.continues(Write, libc::ENOSPC) && !enospc.continues(Write, libc::EIO));
        assert!(enospc.continues(Read, libc::EIO) && !enospc.continues(Verify, libc::EILSEQ));
        assert_eq!(enospc.classes_text(), "io");
        assert_eq!(enospc.lists_text(), ",ENOSPC");
        assert_eq!(policy("1", "EIO:28").lists_text(), "EIO:ENOSPC");
        assert_eq!(policy("1", "").classes_text(), "all");
        assert_eq!(super::ErrorPolicy::classes_of("sometimes"), None);
    }

    /// fio's `td_error_type`: EILSEQ is class verify whatever the I/O (so a verify's failed
    /// check, on a read or a write's read-back, passes with `continue_on_error=verify`, not
    /// with `read`); another errno is the I/O's direction's.
    #[test]
    fn a_failed_io_s_class_is_verify_for_eilseq_else_its_direction_s() {
        use super::ErrorClass::{self, Read, Verify, Write};
        assert_eq!(ErrorClass::of(true, libc::EILSEQ), Verify);
        assert_eq!(ErrorClass::of(false, libc::EILSEQ), Verify);
        assert_eq!(ErrorClass::of(true, libc::EIO), Read);
        assert_eq!(ErrorClass::of(false, libc::EIO), Write);
        assert_eq!(ErrorClass::of(false, libc::ENOSPC), Write);
        let policy = |classes: &str| super::ErrorPolicy {
            classes: super::ErrorPolicy::classes_of(classes).unwrap(),
            lists: Default::default(),
        };
        let miscompare = ErrorClass::of(true, libc::EILSEQ); // a verify's failed check
        assert!(policy("verify").continues(miscompare, libc::EILSEQ));
        assert!(policy("all").continues(miscompare, libc::EILSEQ));
        for other in ["read", "io", "none"] {
            assert!(
                !policy(other).continues(miscompare, libc::EILSEQ),
                "{other}"
            );
        }
    }

    use super::*;

    #[test]
    fn cpu_lists_format_back() {
        assert_eq!(format_cpu_list(&[0, 1, 2, 3, 6]), "0-3,6");
        assert_eq!(format_cpu_list(&[1]), "1");
        assert_eq!(parse_cpu_list("1,0,0-1"), Ok(vec![0, 1]));
        assert_eq!(parse_cpu_list(" 2 - 3 , 0"), Ok(vec![0, 2, 3]));
        assert_eq!(parse_cpu_list("0-8191").map(|c| c.len()), Ok(MAX_CPUS));
        assert_eq!(parse_cpu_list("8192"), Err(CpuListError::OutOfRange(8192)));
        for bad in ["", ",", "0,", "-", "1-", "-1", "3-1", "0-1-2", "1 2", "0x1"] {
            assert_eq!(parse_cpu_list(bad), Err(CpuListError::Syntax), "{bad:?}");
        }
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn any_text_is_a_cpu_list_or_an_error_never_a_panic(text in "\\PC{0,40}") {
                if let Ok(cpus) = parse_cpu_list(&text) {
                    prop_assert!(cpus.windows(2).all(|w| w[0] < w[1]));
                    prop_assert!(cpus.iter().all(|&cpu| cpu < MAX_CPUS));
                }
            }

            #[test]
            fn list_like_text_never_panics(text in "[0-9 ,-]{0,30}") {
                let _ = parse_cpu_list(&text);
            }

            #[test]
            fn a_formatted_set_parses_back(
                set in proptest::collection::btree_set(0usize..MAX_CPUS, 1..64)
            ) {
                let cpus: Vec<usize> = set.into_iter().collect();
                let text = format_cpu_list(&cpus);
                prop_assert_eq!(parse_cpu_list(&text), Ok(cpus.clone()), "{}", text);
                prop_assert!(!text.contains(' '));
            }

            #[test]
            fn a_parsed_list_formats_to_an_equivalent_one(
                ranges in proptest::collection::vec((0usize..300, 0usize..20), 1..8)
            ) {
                let text = ranges
                    .iter()
                    .map(|(a, len)| format!("{a}-{}", a + len))
                    .collect::<Vec<_>>()
                    .join(",");
                let cpus = parse_cpu_list(&text).unwrap();
                prop_assert_eq!(parse_cpu_list(&format_cpu_list(&cpus)), Ok(cpus.clone()));
                for (a, len) in &ranges {
                    prop_assert!((*a..=a + len).all(|cpu| cpus.contains(&cpu)));
                }
            }
        }
    }

    #[test]
    fn mix_shares() {
        assert_eq!(RwMode::Read.read_pct(10), 100);
        assert_eq!(RwMode::RandWrite.read_pct(10), 0);
        assert_eq!(RwMode::Rw.read_pct(10), 10);
        assert!(RwMode::RandRw.is_random() && !RwMode::Rw.is_random());
    }
}
