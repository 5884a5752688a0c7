//! Options as data, and the one validator: every way of describing a job (a `bench` flag, a
//! key pressed in the dashboard, and next a line of a fio job file or a sweep point) becomes an
//! ordered list of fio-style [`JobOption`]s, and [`validate`] turns the list into a [`JobSpec`].
//! Bounds, defaults and error texts exist here once; an error names the option by where it
//! came from (`--bs`, `db.fio:14: bs`, `iodepth` for a key pressed). Later options override earlier
//! ones of the same key, as in fio.

use std::fmt;
use std::time::Duration;

use crate::bench::randmap::Generator;
use crate::bench::rate::{Process, RateError, RateLimit, Unit, parse_caps};
use crate::bench::spec::{
    BsSplit, CpuListError, Distribution, EngineKind, Fadvise, Fallocate, IoMem, JobSpec,
    MachineLimits, OpenSync, RateMin, RwMode, Sequencer, SgMode, StatCall, SyncEvery, ThinkTime,
    UringOptions, VerifySpec, format_cpu_list, parse_cpu_list,
};
use crate::error::usage;
use crate::units::{
    DurationError, Interval, format_bytes, format_size_short, parse_duration, parse_size_bytes,
};

/// The deepest queue a worker may ask for (io_uring's `IORING_MAX_ENTRIES` is 32768; the
/// completion queue is twice the submission queue).
pub(crate) const MAX_IODEPTH: u32 = 16_384;
/// The most worker threads.
pub(crate) const MAX_NUMJOBS: u32 = 1024;
/// The largest block size (a single io_uring SQE carries a `u32` length).
pub(crate) const MAX_BLOCK_SIZE_BYTES: u64 = 256 << 20;
pub use crate::units::MIN_INTERVAL;
/// The longest `--runtime` and the longest `--ramp`: 365 days, far beyond any soak test, and
/// small enough that `CLOCK_MONOTONIC` nanoseconds + ramp + runtime stay well inside `u64`
/// (584 years), so the session's deadline arithmetic cannot overflow.
pub(crate) const MAX_RUN_TIME: Duration = Duration::from_secs(365 * 24 * 3600);
/// [`MAX_RUN_TIME`] as users write it (`parse_duration` has no day unit).
const MAX_RUN_TIME_TEXT: &str = "8760h (365 days)";

/// A job parameter, with its `bench` flag and its fio name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Rw,
    RwMixRead,
    Bs,
    Size,
    IoDepth,
    NumJobs,
    IoEngine,
    IoDepthBatch,
    IoDepthBatchComplete,
    /// fio's `iodepth_batch_complete_min`: the fewest completions a reap waits for (0: poll).
    IoDepthBatchCompleteMin,
    /// fio's `iodepth_low`: once full, the queue drains to this depth before refilling.
    IoDepthLow,
    /// `1`: O_DIRECT, `0`: through the page cache (`--direct` / `--buffered`).
    Direct,
    Fsync,
    Fdatasync,
    Sync,
    Cpus,
    Runtime,
    Ramp,
    Interval,
    Offset,
    OffsetIncrement,
    IoSize,
    StartDelay,
    RandSeed,
    EndFsync,
    CpusPolicy,
    RandomDistribution,
    RateIops,
    Rate,
    RateProcess,
    BsSplit,
    Hipri,
    SqThreadPoll,
    SqThreadPollCpu,
    FixedBufs,
    RegisterFiles,
    NonVectored,
    // Steady state and the sustained-write cliff (see `stats::steady`, `analysis::cliff`).
    SteadyState,
    SsDur,
    SsRamp,
    SsKeepGoing,
    Cliff,
    Verify,
    VerifyOnly,
    VerifyFatal,
    /// fio's `do_verify`: a verifying write job reads back what it wrote (default 1).
    DoVerify,
    /// fio's `verify_backlog`: a verifying job checks written blocks among its writes.
    VerifyBacklog,
    /// fio's `verify_backlog_batch`: how many of them each time (default `verify_backlog`).
    VerifyBacklogBatch,
    /// fio's `number_ios`: each worker ends after this many I/Os at most.
    NumberIos,
    // fio's think time between I/Os (`thinktime`, `thinktime_spin`, `thinktime_blocks`,
    // `thinktime_blocks_type`).
    ThinkTime,
    ThinkTimeSpin,
    ThinkTimeBlocks,
    ThinkTimeBlocksType,
    // fio's floor under the rate: the job fails below it (`rate_min`, `rate_iops_min`,
    // averaged over `rate_cycle`).
    RateMin,
    RateIopsMin,
    RateCycle,
    // fio's token-based flow control between jobs (`flow`, `flow_id`, `flow_sleep`).
    Flow,
    FlowId,
    FlowSleep,
    /// fio's `norandommap`: random offsets drawn with replacement (default 0: each block once
    /// per pass).
    NoRandomMap,
    /// fio's `random_generator`: tausworthe, lfsr or tausworthe64.
    RandomGenerator,
    /// fio's `invalidate`: drop a buffered job's page cache at the start and each wrap.
    Invalidate,
    /// fio's `fadvise_hint`: 0, 1 (by pattern), sequential or random.
    FadviseHint,
    /// fio's `iomem`: malloc, mmap, shm (plain pages), shmhuge, mmaphuge, huge (huge pages).
    IoMem,
    /// fio's `fallocate`: how a pure write job's new file is laid out (none, native, posix,
    /// keep, truncate).
    Fallocate,
    /// fio's `continue_on_error`: the classes of failed I/O a job counts and goes on past.
    ContinueOnError,
    /// fio's `ignore_error`: per class, the errnos `continue_on_error` goes on past.
    IgnoreError,
    /// fio's `dedupe_percentage`: percent of written blocks that repeat an earlier one.
    DedupePercentage,
    /// fio's `dedupe_mode`: repeat or working_set.
    DedupeMode,
    /// fio's `dedupe_working_set_percentage`.
    DedupeWorkingSet,
    /// fio's `buffer_compress_percentage`: percent of each chunk a compressor removes.
    CompressPercentage,
    /// fio's `buffer_compress_chunk`: the compressible chunk's size.
    CompressChunk,
    /// fio's `nrfiles`: files per job (each worker spreads its I/O over them).
    NrFiles,
    /// fio's `stat_type`: the call the `filestat` engine times (stat, lstat, statx).
    StatType,
    // fio's I/O priorities: the worker thread's (`prio`, `prioclass`) and per I/O
    // (`cmdprio_percentage`, `cmdprio_class`, `cmdprio`, `cmdprio_bssplit`).
    Prio,
    PrioClass,
    CmdPrioPercentage,
    CmdPrioClass,
    CmdPrio,
    CmdPrioBsSplit,
    // fio's NUMA placement (`numa_cpu_nodes`, `numa_mem_policy`).
    NumaCpuNodes,
    NumaMemPolicy,
    /// fio's `buffer_pattern`: what the I/O buffers hold (fio's pattern, as hex here).
    BufferPattern,
    /// fio's `verify_pattern` (fio's pattern, as hex and `%o` here).
    VerifyPattern,
    /// fio's `verify_interval`: a verify header every this many bytes within a block.
    VerifyInterval,
    /// fio's sg engine's `sg_write_mode`, on a block device.
    SgWriteMode,
    /// fio's `fill_device` (`fill_fs`): a write job writes until the filesystem or device is
    /// full; ENOSPC (or EDQUOT) ends it without an error.
    FillDevice,
    // fio's search for the deepest queue within a latency (`latency_target`,
    // `latency_window`, `latency_percentile`, `latency_run`).
    LatencyTarget,
    LatencyWindow,
    LatencyPercentile,
    LatencyRun,
}

impl Key {
    /// Every key, in the table's order (the tests walk it).
    #[cfg(test)]
    pub const ALL: [Self; 91] = [
        Self::Rw,
        Self::RwMixRead,
        Self::Bs,
        Self::Size,
        Self::IoDepth,
        Self::NumJobs,
        Self::IoEngine,
        Self::IoDepthBatch,
        Self::IoDepthBatchComplete,
        Self::IoDepthBatchCompleteMin,
        Self::IoDepthLow,
        Self::Direct,
        Self::Fsync,
        Self::Fdatasync,
        Self::Sync,
        Self::Cpus,
        Self::Runtime,
        Self::Ramp,
        Self::Interval,
        Self::Offset,
        Self::OffsetIncrement,
        Self::IoSize,
        Self::StartDelay,
        Self::RandSeed,
        Self::EndFsync,
        Self::CpusPolicy,
        Self::RandomDistribution,
        Self::RateIops,
        Self::Rate,
        Self::RateProcess,
        Self::BsSplit,
        Self::Hipri,
        Self::SqThreadPoll,
        Self::SqThreadPollCpu,
        Self::FixedBufs,
        Self::RegisterFiles,
        Self::NonVectored,
        Self::SteadyState,
        Self::SsDur,
        Self::SsRamp,
        Self::SsKeepGoing,
        Self::Cliff,
        Self::Verify,
        Self::VerifyOnly,
        Self::VerifyFatal,
        Self::DoVerify,
        Self::VerifyBacklog,
        Self::VerifyBacklogBatch,
        Self::NumberIos,
        Self::ThinkTime,
        Self::ThinkTimeSpin,
        Self::ThinkTimeBlocks,
        Self::ThinkTimeBlocksType,
        Self::RateMin,
        Self::RateIopsMin,
        Self::RateCycle,
        Self::Flow,
        Self::FlowId,
        Self::FlowSleep,
        Self::NoRandomMap,
        Self::RandomGenerator,
        Self::Invalidate,
        Self::FadviseHint,
        Self::IoMem,
        Self::Fallocate,
        Self::ContinueOnError,
        Self::IgnoreError,
        Self::DedupePercentage,
        Self::DedupeMode,
        Self::DedupeWorkingSet,
        Self::CompressPercentage,
        Self::CompressChunk,
        Self::NrFiles,
        Self::StatType,
        Self::Prio,
        Self::PrioClass,
        Self::CmdPrioPercentage,
        Self::CmdPrioClass,
        Self::CmdPrio,
        Self::CmdPrioBsSplit,
        Self::NumaCpuNodes,
        Self::NumaMemPolicy,
        Self::BufferPattern,
        Self::VerifyPattern,
        Self::VerifyInterval,
        Self::SgWriteMode,
        Self::FillDevice,
        Self::LatencyTarget,
        Self::LatencyWindow,
        Self::LatencyPercentile,
        Self::LatencyRun,
    ];

    /// The key's row of [`TABLE`].
    #[must_use]
    pub fn row(self) -> &'static Row {
        &TABLE[self as usize]
    }

    /// The `diskdash bench` flag.
    #[must_use]
    pub fn flag(self) -> &'static str {
        self.row().flag
    }

    /// The fio option name (the record's `job` key where it differs is noted there).
    #[must_use]
    pub(crate) fn fio_name(self) -> &'static str {
        self.row().fio
    }

    /// The value the validator takes when no option of this key is given.
    #[must_use]
    pub(crate) fn default_text(self) -> &'static str {
        self.row().default
    }
}

/// The commands whose flags a [`Row`] is offered as (a set of bits).
pub(crate) type Offer = u8;
/// `diskdash bench`.
pub(crate) const BENCH: Offer = 1;
/// `diskdash sweep`.
pub(crate) const SWEEP: Offer = 2;
/// `diskdash mark`.
pub(crate) const MARK: Offer = 4;

/// How a flag takes its value on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `--bs 4k`, `--bs=4k`.
    Value,
    /// `--hipri` alone means the text given here, `--hipri=0` or `--hipri 0` a value.
    Optional(&'static str),
    /// A switch with no value: given, it means the text given here.
    Switch(&'static str),
}

/// Help headings of the job flags.
pub(crate) const WORKLOAD: &str = "Workload";
pub(crate) const ENGINE: &str = "Engine";
pub(crate) const TIMING: &str = "Timing";
pub(crate) const PACING: &str = "Pacing";
pub(crate) const VERIFICATION: &str = "Verification";
pub(crate) const STEADY: &str = "Steady state";
/// Keys only job files and fio's command line set.
pub(crate) const FIO_ONLY: &str = "fio";

/// A command's own word on a key: `sweep` runs 10 s per point, `mark` 5 s per loop.
#[derive(Debug, Clone, Copy)]
pub struct Per {
    /// One bit of [`Offer`].
    pub command: Offer,
    /// The command's default; empty: the row's.
    pub default: &'static str,
    /// Added to the help; empty: nothing.
    pub note: &'static str,
}

/// One job option as data: how the flag is spelled and shown, how fio names it, its default
/// and bounds, which commands offer it, and the function that parses and bounds it. The
/// command line (`cli`) and sweep's dimensions are built from these rows; the validator runs
/// each row's function over its value or default.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    pub key: Key,
    /// `--bs`.
    pub flag: &'static str,
    /// `-q` for `--iodepth`.
    pub short: Option<char>,
    /// fio's name: `bs`.
    pub fio: &'static str,
    /// The other names fio takes for the option (`blocksize`), in a job file and on its
    /// command line.
    pub fio_aliases: &'static [&'static str],
    /// In fio's job files and command line, a 1/0 option that alone means 1 (`direct`).
    pub fio_bool: bool,
    /// fio's default as fio's command line writes it (`4k`, `0s`), which `--showcmd` leaves
    /// out; empty: none said.
    pub fio_default: &'static str,
    /// diskdash's own job option: fio has no such key, so a fio command line leaves it out.
    pub diskdash_only: bool,
    /// The value's name in help (`0|1`); empty: the flag's name in capitals (`IO_SIZE`).
    pub value_name: &'static str,
    pub heading: &'static str,
    pub help: &'static str,
    /// The value when none is given, as the user would write it; empty: none (the validator
    /// decides from other options).
    pub default: &'static str,
    /// What one command says otherwise: its own default, a note to the help.
    pub per: &'static [Per],
    /// Inclusive bounds of a numeric value.
    pub bounds: Option<(u64, u64)>,
    /// Whether `sweep` takes a list (and for some, a range) of values: the example for help.
    pub sweep_list: Option<&'static str>,
    /// Whether values may start with `-` (numbers, sizes: the validator explains a negative one).
    pub hyphen_values: bool,
    /// Whether a value holds commas of its own (`0-3,6`, `READ,WRITE`): not a sweep's list.
    pub commas: bool,
    pub form: Form,
    /// `bench`'s switch that sets the opposite (`--buffered` for `--direct`): flag, value, help.
    pub negation: Option<(&'static str, &'static str, &'static str)>,
    pub offer: Offer,
    /// The words a shell's completion offers for the value (the validator still decides what
    /// is taken, aliases included); empty: no fixed set.
    pub choices: &'static [&'static str],
    /// How [`validate`] parses and bounds the value.
    check: Check,
}

impl Row {
    const fn new(key: Key, flag: &'static str, fio: &'static str, heading: &'static str) -> Self {
        Self {
            key,
            flag,
            short: None,
            fio,
            fio_aliases: &[],
            fio_bool: false,
            fio_default: "",
            diskdash_only: false,
            value_name: "",
            heading,
            help: "",
            default: "",
            per: &[],
            bounds: None,
            sweep_list: None,
            hyphen_values: true,
            commas: false,
            form: Form::Value,
            negation: None,
            offer: 0,
            choices: &[],
            check: Check::With(key),
        }
    }
    /// fio's other names of the option.
    const fn fio_aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.fio_aliases = aliases;
        self
    }
    /// A 1/0 option that, given alone in fio's syntax, means 1.
    const fn fio_bool(mut self) -> Self {
        self.fio_bool = true;
        self
    }
    /// fio's default, as fio's command line writes it.
    const fn fio_default(mut self, default: &'static str) -> Self {
        self.fio_default = default;
        self
    }
    /// Not one of fio's options.
    const fn diskdash_only(mut self) -> Self {
        self.diskdash_only = true;
        self
    }
    /// The values completion offers.
    const fn choices(mut self, choices: &'static [&'static str]) -> Self {
        self.choices = choices;
        self
    }
    const fn help(mut self, help: &'static str) -> Self {
        self.help = help;
        self
    }
    const fn default(mut self, default: &'static str) -> Self {
        self.default = default;
        self
    }
    const fn short(mut self, short: char) -> Self {
        self.short = Some(short);
        self
    }
    const fn value_name(mut self, name: &'static str) -> Self {
        self.value_name = name;
        self
    }
    const fn bounds(mut self, low: u64, high: u64) -> Self {
        self.bounds = Some((low, high));
        self
    }
    const fn swept(mut self, example: &'static str) -> Self {
        self.sweep_list = Some(example);
        self
    }
    /// Values are words: a value starting with `-` is a flag.
    const fn words(mut self) -> Self {
        self.hyphen_values = false;
        self
    }
    /// A value's commas are its own (`0-3,6`, `READ,WRITE`).
    const fn commas(mut self) -> Self {
        self.commas = true;
        self
    }
    /// `--flag` alone means `1`.
    const fn optional(mut self) -> Self {
        self.form = Form::Optional("1");
        self.value_name = "0|1";
        self.hyphen_values = false;
        self
    }
    const fn switch(mut self) -> Self {
        self.form = Form::Switch("1");
        self
    }
    const fn on(mut self, offer: Offer) -> Self {
        self.offer = offer;
        self
    }
    const fn negation(
        mut self,
        flag: &'static str,
        value: &'static str,
        help: &'static str,
    ) -> Self {
        self.negation = Some((flag, value, help));
        self
    }
    const fn per(mut self, per: &'static [Per]) -> Self {
        self.per = per;
        self
    }
    /// Parsed and bounded by `parse`.
    const fn parse(mut self, parse: Parse) -> Self {
        self.check = Check::Parse(parse);
        self
    }
    /// Parsed with the row of `key`.
    const fn with(mut self, key: Key) -> Self {
        self.check = Check::With(key);
        self
    }

    /// Whether `command` (a bit of [`Offer`]) offers this key as a flag.
    #[must_use]
    pub(crate) const fn offered(&self, command: Offer) -> bool {
        self.offer & command != 0
    }

    /// The key whose row's function parses this one's value with its own (`ss_dur` with
    /// `steadystate`); `None`: the row's own function does.
    #[cfg(test)]
    #[must_use]
    pub(crate) const fn parsed_with(&self) -> Option<Key> {
        match self.check {
            Check::Parse(_) => None,
            Check::With(key) => Some(key),
        }
    }

    /// What `command` says otherwise of this key, if anything.
    #[must_use]
    pub(crate) fn per_command(&self, command: Offer) -> Option<&'static Per> {
        self.per.iter().find(|p| p.command == command)
    }

    /// The default `command` shows and uses.
    #[must_use]
    pub(crate) fn default_for(&self, command: Offer) -> &'static str {
        self.per_command(command)
            .map(|p| p.default)
            .filter(|d| !d.is_empty())
            .unwrap_or(self.default)
    }
}

/// Every job option, one row per key, in the order of `Key::ALL` (a test checks).
pub(crate) static TABLE: [Row; 91] = [
    Row::new(Key::Rw, "--rw", "rw", WORKLOAD)
        .fio_default("read")
        .fio_aliases(&["readwrite"])
        .choices(&["read", "write", "randread", "randwrite", "rw", "randrw"])
        .help("I/O pattern: read, write, randread, randwrite, rw, randrw.")
        .default("randread")
        .swept("read,write,randrw:75")
        .words()
        .on(BENCH | SWEEP)
        .parse(rw_row),
    Row::new(Key::RwMixRead, "--rwmixread", "rwmixread", WORKLOAD)
        .fio_default("50")
        .help("Percentage of reads in a mixed (rw, randrw) workload.")
        .default("50")
        .bounds(0, 100)
        .on(BENCH | SWEEP)
        .parse(rwmixread_row),
    Row::new(Key::Bs, "--bs", "bs", WORKLOAD)
        .fio_default("4k")
        .fio_aliases(&["blocksize"])
        .help("Block size of each I/O (4k, 1M, 1MiB, 512).")
        .default("4k")
        .bounds(1, MAX_BLOCK_SIZE_BYTES)
        .swept("4k,64k,1M or 4k..1M")
        .on(BENCH | SWEEP)
        .parse(bs_row),
    Row::new(Key::Size, "--size", "size", WORKLOAD)
        .help("Working set size, lowered with a note when free space is short.")
        .default("1G")
        .per(&[Per { command: MARK, default: "", note: "written once before the first test" }])
        .on(BENCH | SWEEP | MARK)
        .parse(size_row),
    Row::new(Key::IoDepth, "--iodepth", "iodepth", WORKLOAD)
        .fio_default("1")
        .short('q')
        .help("I/Os in flight per worker.")
        .default("32")
        .bounds(1, MAX_IODEPTH as u64)
        .swept("1,32 or 1..256")
        .on(BENCH | SWEEP)
        .parse(iodepth_row),
    Row::new(Key::NumJobs, "--numjobs", "numjobs", WORKLOAD)
        .fio_default("1")
        .short('j')
        .help("Worker threads.")
        .default("1")
        .bounds(1, MAX_NUMJOBS as u64)
        .swept("1,4 or 1..64")
        .on(BENCH | SWEEP)
        .parse(numjobs_row),
    Row::new(Key::IoEngine, "--ioengine", "ioengine", ENGINE)
        .fio_default("psync")
        .choices(&["io_uring", "libaio", "psync", "null"])
        .help("I/O engine: io_uring, libaio, psync, null.")
        .default("io_uring")
        .swept("io_uring,psync")
        .words()
        .on(BENCH | SWEEP)
        .parse(ioengine_row),
    Row::new(Key::IoDepthBatch, "--iodepth-batch", "iodepth_batch", ENGINE)
        .fio_default("1")
        .fio_aliases(&["iodepth_batch_submit"])
        .help("I/Os submitted per io_uring_enter (like fio's iodepth_batch_submit).")
        .default("1")
        .bounds(1, MAX_IODEPTH as u64)
        .on(BENCH | SWEEP)
        .parse(iodepth_batch_row),
    Row::new(Key::IoDepthBatchComplete, "--iodepth-batch-complete", "iodepth_batch_complete_max", ENGINE)
        .fio_default("1")
        .help("Completions taken per wake-up before refilling (like fio's iodepth_batch_complete_max; default: the minimum).")
        .default("1")
        .bounds(1, MAX_IODEPTH as u64)
        .on(BENCH | SWEEP)
        .with(Key::IoDepthBatchCompleteMin),
    Row::new(Key::IoDepthBatchCompleteMin, "--iodepth-batch-complete-min", "iodepth_batch_complete_min", ENGINE)
        .fio_default("1")
        .fio_aliases(&["iodepth_batch_complete"])
        .help("Completions each wake-up waits for at least, capped by what is in flight (0, with --iodepth-batch-complete: poll without sleeping; like fio's iodepth_batch_complete_min).")
        .default("1")
        .bounds(0, MAX_IODEPTH as u64)
        .on(BENCH | SWEEP)
        .parse(batch_complete_row),
    Row::new(Key::IoDepthLow, "--iodepth-low", "iodepth_low", ENGINE)
        .help("Once the queue is full, let it drain to this depth before filling it again (like fio's iodepth_low; 0: iodepth, keep it full).")
        .default("0")
        .bounds(0, MAX_IODEPTH as u64)
        .on(BENCH | SWEEP)
        .parse(iodepth_low_row),
    Row::new(Key::Direct, "--direct", "direct", ENGINE)
        .fio_default("0")
        .fio_bool()
        .help("Bypass the page cache with O_DIRECT (the default).")
        .default("1")
        .swept("yes,no")
        .switch()
        .negation("--buffered", "0", "Go through the page cache (results are labelled as buffered).")
        .on(BENCH | SWEEP)
        .parse(direct_row),
    Row::new(Key::Fsync, "--fsync", "fsync", ENGINE)
        .help("Sync the file after every N writes (fsync).")
        .default("0")
        .swept("0,1")
        .on(BENCH | SWEEP)
        .parse(sync_every_row),
    Row::new(Key::Fdatasync, "--fdatasync", "fdatasync", ENGINE)
        .help("Sync the file data after every N writes (fdatasync).")
        .default("0")
        .swept("0,1")
        .on(BENCH | SWEEP)
        .with(Key::Fsync),
    Row::new(Key::Sync, "--sync", "sync", ENGINE)
        .choices(&["dsync", "sync"])
        .help("Open with O_DSYNC (dsync) or O_SYNC (sync).")
        .swept("none,dsync,sync")
        .words()
        .on(BENCH | SWEEP)
        .parse(sync_row),
    Row::new(Key::Cpus, "--cpus", "cpus_allowed", ENGINE)
        .help("Pin workers to these CPUs round-robin: worker i on the (i mod N)-th of the N listed, so 64 workers on 0-1 put 32 on each (e.g. 0-3,6).")
        .commas()
        .on(BENCH | SWEEP)
        .parse(cpus_row),
    Row::new(Key::Runtime, "--runtime", "runtime", TIMING)
        .fio_aliases(&["timeout"])
        .help("Run time of the measured part (500ms, 10s, 2m).")
        .default("30s")
        .per(&[
            Per { command: SWEEP, default: "10s", note: "per point" },
            Per {
                command: MARK,
                default: "5s",
                note: "of each loop (the first loop of each measurement warms up as long first)",
            },
        ])
        .on(BENCH | SWEEP | MARK)
        .parse(runtime_row),
    Row::new(Key::Ramp, "--ramp", "ramp_time", TIMING)
        .fio_default("0s")
        .help("Warm-up before measuring, excluded from the results.")
        .default("0s")
        .per(&[Per { command: SWEEP, default: "2s", note: "per point; none for --io-size points" }])
        .on(BENCH | SWEEP)
        .parse(ramp_row),
    Row::new(Key::Interval, "--interval", "status_interval", TIMING)
        .help("Status and record interval.")
        .default("1s")
        .on(BENCH | SWEEP | MARK)
        .parse(interval_row),
    Row::new(Key::Offset, "--offset", "offset", FIO_ONLY)
        .help("Where in the target the working set starts.")
        .default("0")
        .parse(offset_row),
    Row::new(Key::OffsetIncrement, "--offset-increment", "offset_increment", FIO_ONLY)
        .help("Each clone's working set starts this much after the previous one's.")
        .default("0")
        .parse(offset_increment_row),
    Row::new(Key::IoSize, "--io-size", "io_size", TIMING)
        .fio_aliases(&["io_limit"])
        .help("A size-based run: each worker ends after moving SIZE bytes; --runtime caps it.")
        .on(BENCH | SWEEP)
        .parse(io_size_row),
    Row::new(Key::StartDelay, "--startdelay", "startdelay", FIO_ONLY)
        .help("Time before the job starts.")
        .default("0s")
        .parse(startdelay_row),
    Row::new(Key::RandSeed, "--randseed", "randseed", FIO_ONLY)
        .help("The seed of the random offsets.")
        .parse(randseed_row),
    Row::new(Key::EndFsync, "--end-fsync", "end_fsync", FIO_ONLY)
        .fio_bool()
        .help("Sync the file when the job ends.")
        .default("0")
        .parse(end_fsync_row),
    Row::new(Key::CpusPolicy, "--cpus-policy", "cpus_allowed_policy", FIO_ONLY)
        .fio_default("shared")
        .help("shared or split: how cpus_allowed spreads over the clones.")
        .default("split")
        .parse(cpus_policy_row),
    Row::new(Key::RandomDistribution, "--random-distribution", "random_distribution", WORKLOAD)
        .help("How random offsets spread (fio's random_distribution): random (uniform), zipf:THETA, pareto:H, normal:DEV (percent; hot data: a few blocks take most of the I/O).")
        .default("random")
        .on(BENCH | SWEEP)
        .parse(distribution_row),
    Row::new(Key::RateIops, "--rate-iops", "rate_iops", PACING)
        .help("Pace each worker: READ[,WRITE] I/Os per second (fio's rate_iops; `,500` paces only writes). Latency is also measured from each I/O's scheduled time (lat_sched).")
        .commas()
        .on(BENCH | SWEEP)
        .parse(rate_row),
    Row::new(Key::Rate, "--rate", "rate", PACING)
        .help("Pace each worker: READ[,WRITE] bytes per second (fio's rate), e.g. 100M or 100M,20M.")
        .commas()
        .on(BENCH | SWEEP)
        .with(Key::RateIops),
    Row::new(Key::RateProcess, "--rate-process", "rate_process", PACING)
        .choices(&["linear", "poisson"])
        .help("How paced I/Os are spaced: linear (evenly) or poisson (random arrivals, mean 1/rate).")
        .default("linear")
        .words()
        .on(BENCH | SWEEP)
        .with(Key::RateIops),
    Row::new(Key::BsSplit, "--bssplit", "bssplit", WORKLOAD)
        .help("Mixed block sizes with their shares (fio's bssplit), e.g. 4k/50:64k/30:1M/20, or READ,WRITE lists; replaces --bs. Offsets align to the smallest.")
        .commas()
        .on(BENCH)
        .parse(bssplit_row),
    Row::new(Key::Hipri, "--hipri", "hipri", ENGINE)
        .fio_bool()
        .help("Polled completions (fio's hipri: IORING_SETUP_IOPOLL); O_DIRECT on a device with poll queues (NVMe with poll_queues) to be truly polled.")
        .optional()
        .on(BENCH | SWEEP)
        .parse(uring_row),
    Row::new(Key::SqThreadPoll, "--sqthread-poll", "sqthread_poll", ENGINE)
        .fio_bool()
        .help("A kernel thread submits (fio's sqthread_poll: IORING_SETUP_SQPOLL).")
        .optional()
        .on(BENCH | SWEEP)
        .with(Key::Hipri),
    Row::new(Key::SqThreadPollCpu, "--sqthread-poll-cpu", "sqthread_poll_cpu", ENGINE)
        .help("The CPU the submission thread runs on (with --sqthread-poll).")
        .on(BENCH | SWEEP)
        .with(Key::Hipri),
    Row::new(Key::FixedBufs, "--fixedbufs", "fixedbufs", ENGINE)
        .fio_default("0")
        .fio_bool()
        .help("Registered buffers, READ_FIXED/WRITE_FIXED (fio's fixedbufs; on by default here).")
        .optional()
        .on(BENCH | SWEEP)
        .with(Key::Hipri),
    Row::new(Key::RegisterFiles, "--registerfiles", "registerfiles", ENGINE)
        .fio_default("0")
        .fio_bool()
        .help("A registered file (fio's registerfiles; on by default here).")
        .optional()
        .on(BENCH | SWEEP)
        .with(Key::Hipri),
    Row::new(Key::NonVectored, "--nonvectored", "nonvectored", ENGINE)
        .fio_bool()
        .help("READ/WRITE rather than READV/WRITEV (fio's nonvectored; on by default here).")
        .optional()
        .on(BENCH | SWEEP)
        .with(Key::Hipri),
    Row::new(Key::SteadyState, "--ss", "steadystate", STEADY)
        .fio_aliases(&["ss"])
        .help("Stop once steady: iops, iops_slope, bw, bw_slope, lat or lat_slope and a limit, absolute or in percent of the window's mean (iops_slope:0.3%, bw:2%, lat:50us). Needs --ss-dur.")
        .on(BENCH | SWEEP)
        .parse(steady_row),
    Row::new(Key::SsDur, "--ss-dur", "steadystate_duration", STEADY)
        .fio_aliases(&["ss_dur"])
        .help("The window the criterion is judged over: the last N seconds of 1 s samples, whole seconds, at least 2 (e.g. 30s); without --ss, fio's criterion iops_slope:0.01%.")
        .on(BENCH | SWEEP)
        .with(Key::SteadyState),
    Row::new(Key::SsRamp, "--ss-ramp", "steadystate_ramp_time", STEADY)
        .fio_default("0s")
        .fio_aliases(&["ss_ramp"])
        .help("Time after the start of measuring before samples are collected.")
        .default("0s")
        .on(BENCH | SWEEP)
        .with(Key::SteadyState),
    Row::new(Key::SsKeepGoing, "--ss-keep-going", "ss_keep_going", STEADY)
        .diskdash_only()
        .fio_default("0")
        .fio_bool()
        .help("Run to --runtime after attaining steady state, flagging every sample out of it.")
        .default("0")
        .switch()
        .on(BENCH | SWEEP)
        .with(Key::SteadyState),
    Row::new(Key::Cliff, "--cliff", "cliff", STEADY)
        .diskdash_only()
        .help("Sustained writes: mark the cliff where write bandwidth falls more than this below its running level and stays down (30%).")
        .default("30%")
        .on(BENCH | SWEEP)
        .with(Key::SteadyState),
    Row::new(Key::Verify, "--verify", "verify", VERIFICATION)
        .help("Verify data (fio's verify): crc32c, xxhash, sha256 or pattern. A write (or mixed: its own reads are not checked) job's blocks carry a header and checksum and are read back and checked after the run; a read job checks a set written so before, with --verify-only.")
        .default("0")
        .on(BENCH)
        .parse(verify_row),
    Row::new(Key::VerifyOnly, "--verify-only", "verify_only", VERIFICATION)
        .fio_bool()
        .help("Read back and check a set an earlier --verify write left; write nothing.")
        .optional()
        .on(BENCH)
        .with(Key::Verify),
    Row::new(Key::VerifyFatal, "--verify-fatal", "verify_fatal", VERIFICATION)
        .fio_bool()
        .help("Stop at the first block that fails its check.")
        .optional()
        .on(BENCH)
        .with(Key::Verify),
    Row::new(Key::DoVerify, "--do-verify", "do_verify", FIO_ONLY)
        .help("A verifying write job reads back what it wrote.")
        .default("1")
        .with(Key::Verify),
    Row::new(Key::VerifyBacklog, "--verify-backlog", "verify_backlog", FIO_ONLY)
        .help("A verifying job reads back and checks its oldest written blocks each time this many wait (0: only after the run).")
        .with(Key::Verify),
    Row::new(Key::VerifyBacklogBatch, "--verify-backlog-batch", "verify_backlog_batch", FIO_ONLY)
        .help("Blocks checked each time verify_backlog is reached (default verify_backlog).")
        .with(Key::Verify),
    Row::new(Key::NumberIos, "--number-ios", "number_ios", FIO_ONLY)
        .help("Each worker ends after this many I/Os at most.")
        .parse(number_ios_row),
    Row::new(Key::ThinkTime, "--thinktime", "thinktime", FIO_ONLY)
        .help("Time to wait between I/Os.")
        .default("0")
        .parse(think_row),
    Row::new(Key::ThinkTimeSpin, "--thinktime-spin", "thinktime_spin", FIO_ONLY)
        .help("The part of the think time spent spinning.")
        .default("0")
        .with(Key::ThinkTime),
    Row::new(Key::ThinkTimeBlocks, "--thinktime-blocks", "thinktime_blocks", FIO_ONLY)
        .help("I/Os between think times.")
        .default("1")
        .with(Key::ThinkTime),
    Row::new(Key::ThinkTimeBlocksType, "--thinktime-blocks-type", "thinktime_blocks_type", FIO_ONLY)
        .help("complete or issue: what thinktime_blocks counts.")
        .default("complete")
        .with(Key::ThinkTime),
    Row::new(Key::RateMin, "--rate-min", "rate_min", FIO_ONLY)
        .fio_aliases(&["ratemin"])
        .help("The job fails below this bandwidth.")
        .commas()
        .parse(rate_min_row),
    Row::new(Key::RateIopsMin, "--rate-iops-min", "rate_iops_min", FIO_ONLY)
        .help("The job fails below this rate of I/Os.")
        .commas()
        .with(Key::RateMin),
    Row::new(Key::RateCycle, "--rate-cycle", "rate_cycle", FIO_ONLY)
        .fio_aliases(&["ratecycle"])
        .help("Milliseconds the floor under the rate is averaged over.")
        .default("1000")
        .with(Key::RateMin),
    Row::new(Key::Flow, "--flow", "flow", FIO_ONLY)
        .help("The job's weight in its flow group (fio's flow): 0 (no flow control) to 1000.")
        .default("0")
        .parse(flow_row),
    Row::new(Key::FlowId, "--flow-id", "flow_id", FIO_ONLY)
        .help("The flow group the job's weight counts in.")
        .default("0")
        .with(Key::Flow),
    Row::new(Key::FlowSleep, "--flow-sleep", "flow_sleep", FIO_ONLY)
        .help("How long a worker held by flow control sleeps before it tries again (microseconds).")
        .default("0")
        .with(Key::Flow),
    Row::new(Key::NoRandomMap, "--norandommap", "norandommap", WORKLOAD)
        .fio_bool()
        .help("Random offsets drawn with replacement (fio's norandommap). Default, as fio: each block of the working set once per pass, a long bssplit block cut where the pass has been.")
        .default("0")
        .optional()
        .on(BENCH | SWEEP)
        .parse(norandommap_row),
    Row::new(Key::RandomGenerator, "--random-generator", "random_generator", WORKLOAD)
        .choices(&["tausworthe", "lfsr", "tausworthe64"])
        .help("How the random map draws (fio's random_generator): tausworthe (default: a map of the blocks done), lfsr (a maximal-length LFSR, no memory) or tausworthe64.")
        .default("tausworthe")
        .words()
        .on(BENCH | SWEEP)
        .parse(random_generator_row),
    Row::new(Key::Invalidate, "--invalidate", "invalidate", WORKLOAD)
        .fio_bool()
        .help("A buffered job drops its file's page cache at the start and, time-based, at each wrap of its pass (fio's invalidate; default 1, as fio).")
        .default("1")
        .optional()
        .on(BENCH | SWEEP)
        .parse(invalidate_row),
    Row::new(Key::FadviseHint, "--fadvise-hint", "fadvise_hint", WORKLOAD)
        .choices(&["1", "0", "sequential", "random"])
        .help("posix_fadvise hint on the target (fio's fadvise_hint): 1 (default, as fio: random or sequential by the pattern), 0, sequential or random.")
        .default("1")
        .words()
        .on(BENCH | SWEEP)
        .parse(fadvise_row),
    Row::new(Key::IoMem, "--iomem", "mem", WORKLOAD)
        .fio_default("malloc")
        .fio_aliases(&["iomem"])
        .choices(&["huge", "malloc"])
        .help("I/O buffer memory (fio's iomem): huge (2 MiB pages asked for, so a large direct I/O is not split into 4 KiB segments) or malloc (4 KiB pages, fio's default).")
        .value_name("malloc|huge")
        .default("huge")
        // A sweep's advice and a mark's scores are read against other tools: their buffers
        // are fio's, so a large block measures what fio and dd measure.
        .per(&[
            Per { command: SWEEP, default: "malloc", note: "as fio, so the advice holds for other tools" },
            Per { command: MARK, default: "malloc", note: "as fio" },
        ])
        .words()
        .on(BENCH | SWEEP | MARK)
        .parse(iomem_row),
    // Only fio's jobs create the files they name; `bench` and `sweep` fill a scratch or empty
    // file, so a layout would change nothing there.
    Row::new(Key::Fallocate, "--fallocate", "fallocate", FIO_ONLY)
        .help("How a pure write job's new file is laid out before the run: native (default, as fio: allocated at its size), posix, keep (allocated, length 0), truncate (sized, sparse), none (empty, grows as written); 0 is none, 1 posix.")
        .default("native")
        .parse(fallocate_row),
    // A failed I/O ends a job, in `bench` as in fio's default; fio's files may go on past some.
    Row::new(Key::ContinueOnError, "--continue-on-error", "continue_on_error", FIO_ONLY)
        .help("Failed I/Os the job counts and goes on past: none (default), read, write, io (read and write), verify, all; 0 is none, 1 all. Without ignore_error, only EIO and EILSEQ are passed.")
        .default("none")
        .parse(errors_row),
    Row::new(Key::IgnoreError, "--ignore-error", "ignore_error", FIO_ONLY)
        .help("The errors continue_on_error passes, per class READ,WRITE,VERIFY: errno names or numbers joined by ':' (e.g. ,ENOSPC); a class left empty passes EIO and EILSEQ.")
        .default("")
        .with(Key::ContinueOnError),
    // What a write job's blocks hold. fio's job files and command line only: `bench` writes
    // pseudo-random blocks (neither dedupes nor compresses), as fio does by default.
    Row::new(Key::DedupePercentage, "--dedupe-percentage", "dedupe_percentage", FIO_ONLY)
        .help("Percent of written blocks that repeat an earlier block's bytes, for a device that deduplicates (0 to 100).")
        .default("0")
        .parse(shape_row),
    Row::new(Key::DedupeMode, "--dedupe-mode", "dedupe_mode", FIO_ONLY)
        .help("Which earlier block a repeat copies: repeat (the last unique one, default) or working_set (any of the job's first dedupe_working_set_percentage of blocks).")
        .default("repeat")
        .with(Key::DedupePercentage),
    Row::new(Key::DedupeWorkingSet, "--dedupe-working-set-percentage", "dedupe_working_set_percentage", FIO_ONLY)
        .help("The working set of dedupe_mode=working_set, in percent of the job's blocks (default 5).")
        .default("5")
        .with(Key::DedupePercentage),
    Row::new(Key::CompressPercentage, "--buffer-compress-percentage", "buffer_compress_percentage", FIO_ONLY)
        .help("Percent of each chunk of a written block that is zeros, so a compressor removes about that much (0 to 100).")
        .default("0")
        .with(Key::DedupePercentage),
    Row::new(Key::CompressChunk, "--buffer-compress-chunk", "buffer_compress_chunk", FIO_ONLY)
        .help("Size of the chunks buffer_compress_percentage applies to (default 512; 0: the whole block).")
        .default("512")
        .with(Key::DedupePercentage),
    // fio's metadata engines (filecreate, filestat, filedelete) work on many files per job;
    // every other engine runs one.
    Row::new(Key::NrFiles, "--nrfiles", "nrfiles", FIO_ONLY)
        .fio_aliases(&["nr_files"])
        .help("Files per job: each I/O of a filecreate, filestat or filedelete job is one of them; 1 for the other engines.")
        .default("1")
        .bounds(1, MAX_NRFILES)
        .parse(meta_row),
    Row::new(Key::StatType, "--stat-type", "stat_type", FIO_ONLY)
        .choices(&["stat", "lstat", "statx"])
        .help("The call the filestat engine times: stat (default), lstat or statx.")
        .default("stat")
        .words()
        .with(Key::NrFiles),
    Row::new(Key::Prio, "--prio", "prio", FIO_ONLY)
        .help("Each worker thread's I/O priority level, 0 (highest) to 7 (ioprio_set; class be unless prioclass says otherwise).")
        .bounds(0, 7)
        .parse(prio_row),
    Row::new(Key::PrioClass, "--prioclass", "prioclass", FIO_ONLY)
        .help("Each worker thread's I/O priority class: 1 rt, 2 be, 3 idle (ioprio_set; rt needs root).")
        .bounds(0, 3)
        .with(Key::Prio),
    Row::new(Key::CmdPrioPercentage, "--cmdprio-percentage", "cmdprio_percentage", FIO_ONLY)
        .help("READ[,WRITE] percent of the I/Os sent at cmdprio_class/cmdprio through the I/O itself (libaio, io_uring).")
        .commas()
        .with(Key::Prio),
    Row::new(Key::CmdPrioClass, "--cmdprio-class", "cmdprio_class", FIO_ONLY)
        .help("READ[,WRITE] class of the prioritized I/Os: 1 rt (default), 2 be, 3 idle.")
        .default("1")
        .commas()
        .with(Key::Prio),
    Row::new(Key::CmdPrio, "--cmdprio", "cmdprio", FIO_ONLY)
        .help("READ[,WRITE] level of the prioritized I/Os, 0 (default) to 7.")
        .default("0")
        .commas()
        .with(Key::Prio),
    Row::new(Key::CmdPrioBsSplit, "--cmdprio-bssplit", "cmdprio_bssplit", FIO_ONLY)
        .help("READ[,WRITE] per block size the percent of I/Os prioritized: 64k/25:1M/0, or 64k/25/CLASS/LEVEL per entry (libaio, io_uring).")
        .commas()
        .with(Key::Prio),
    Row::new(Key::NumaCpuNodes, "--numa-cpu-nodes", "numa_cpu_nodes", FIO_ONLY)
        .help("Run the workers on the CPUs of these NUMA nodes (0, 0-1; from /sys/devices/system/node).")
        .commas()
        .with(Key::Prio),
    Row::new(Key::NumaMemPolicy, "--numa-mem-policy", "numa_mem_policy", FIO_ONLY)
        .help("The workers' memory policy, set before their buffers: default, local, prefer:N, bind:NODES, interleave:NODES.")
        .commas()
        .with(Key::Prio),
    Row::new(Key::BufferPattern, "--buffer-pattern", "buffer_pattern", FIO_ONLY)
        .help("The bytes every I/O buffer holds, repeated (fio's buffer_pattern; 0x and hex digits here).")
        .parse(buffer_pattern_row),
    Row::new(Key::VerifyPattern, "--verify-pattern", "verify_pattern", FIO_ONLY)
        .help("What a verifying job's blocks hold after their headers, repeated from each block's start; with verify=pattern the whole block, no header (fio's verify_pattern; 0x and hex digits, %o for the block's offset).")
        .parse(verify_pattern_row),
    Row::new(Key::VerifyInterval, "--verify-interval", "verify_interval", FIO_ONLY)
        .help("A verify header every this many bytes within a block (fio's verify_interval); the block size divided by it.")
        .with(Key::Verify),
    // Set only by a job of fio's sg engine, which runs on a block device as psync.
    Row::new(Key::SgWriteMode, "--sg-write-mode", "sg_write_mode", FIO_ONLY)
        .help("What an sg job's writes do on the block device: write, write_and_verify, verify_bytchk_00 (read), verify_bytchk_01 (read and compare), verify_bytchk_11 (compare each block with the first), write_same, write_same_ndob (zeros).")
        .with(Key::Rw),
    Row::new(Key::FillDevice, "--fill-device", "fill_device", FIO_ONLY)
        .fio_aliases(&["fill_fs"])
        .help("A sequential write job writes until its filesystem (a new file sized to the free space) or device is full: ENOSPC or EDQUOT then ends it without an error (1), or not (0, default).")
        .default("0")
        .parse(fill_device_row),
    // Only fio's job files and command line search: `sweep --latency-target` already finds
    // the deepest point within a target across whole runs, one depth per run.
    Row::new(Key::LatencyTarget, "--latency-target", "latency_target", FIO_ONLY)
        .help("Search for the deepest queue (up to iodepth) whose I/Os complete within this latency (microseconds without a unit).")
        .parse(latency_row),
    Row::new(Key::LatencyWindow, "--latency-window", "latency_window", FIO_ONLY)
        .help("How long each depth of the latency_target search runs before it is judged (microseconds without a unit).")
        .default("0")
        .with(Key::LatencyTarget),
    Row::new(Key::LatencyPercentile, "--latency-percentile", "latency_percentile", FIO_ONLY)
        .help("Percent of a window's I/Os that must complete within latency_target (default 100).")
        .default("100")
        .with(Key::LatencyTarget),
    Row::new(Key::LatencyRun, "--latency-run", "latency_run", FIO_ONLY)
        .help("1: the latency_target search goes on for the whole run; 0 (default): the job ends once the depth settles.")
        .default("0")
        .with(Key::LatencyTarget),
];

/// The most files a metadata engine's job may name (per worker).
pub(crate) const MAX_NRFILES: u64 = 10_000_000;

/// Where an option came from; errors name the option this way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A `diskdash bench` flag.
    CommandLine,
    /// A line of a job file; `alias`: the other name of fio's the line gave the option by
    /// (`blocksize=` for `bs`), which errors name it by as fio does.
    File {
        path: String,
        line: u32,
        alias: Option<&'static str>,
    },
    /// A change made in the dashboard while the job runs.
    Dashboard,
    /// fio's command line (`diskdash fio --bs=4k`): named `--bs`, fio's spelling, or by the
    /// `alias` it was given as (`--blocksize`).
    FioFlag { alias: Option<&'static str> },
    /// fio's default for an option the job does not set.
    FioDefault,
}

impl Origin {
    /// The alias of fio's the option was given by, if any.
    #[must_use]
    pub(crate) fn alias(&self) -> Option<&'static str> {
        match self {
            Self::File { alias, .. } | Self::FioFlag { alias } => *alias,
            _ => None,
        }
    }

    /// The same origin, the option given by `alias` (fio's syntax only).
    #[must_use]
    pub(crate) fn with_alias(mut self, given: Option<&'static str>) -> Self {
        if let Self::File { alias, .. } | Self::FioFlag { alias } = &mut self {
            *alias = given;
        }
        self
    }
}

/// One option: a key, its value as written, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobOption {
    pub key: Key,
    pub value: String,
    pub origin: Origin,
}

impl JobOption {
    #[must_use]
    pub fn flag(key: Key, value: impl Into<String>) -> Self {
        Self {
            key,
            value: value.into(),
            origin: Origin::CommandLine,
        }
    }

    #[must_use]
    pub fn dashboard(key: Key, value: impl Into<String>) -> Self {
        Self {
            key,
            value: value.into(),
            origin: Origin::Dashboard,
        }
    }
}

/// fio's defaults for how a job runs where `bench`, `sweep` and `mark` choose otherwise:
/// `--fio-defaults` puts these before the flags given (a flag given still wins). What a job
/// runs (pattern, size, depth, engine, `--direct`) stays each command's: a fio command line
/// names those. fio's random map, `invalidate` and `fadvise_hint` are already every command's
/// defaults.
pub(crate) const FIO_DEFAULTS: [(Key, &str); 4] = [
    (Key::IoMem, "malloc"),
    (Key::FixedBufs, "0"),
    (Key::RegisterFiles, "0"),
    (Key::CpusPolicy, "shared"),
];

/// [`FIO_DEFAULTS`] as options, named as fio's defaults in errors.
#[must_use]
pub(crate) fn fio_defaults() -> Vec<JobOption> {
    FIO_DEFAULTS
        .iter()
        .map(|&(key, value)| JobOption {
            key,
            value: value.to_string(),
            origin: Origin::FioDefault,
        })
        .collect()
}

/// The settings of `spec` that differ from fio's defaults in [`FIO_DEFAULTS`] and change
/// what it measures, as `key=value (fio's value)`: none where it runs as fio would.
#[must_use]
pub(crate) fn unlike_fio(spec: &JobSpec) -> Vec<String> {
    let mut out = Vec::new();
    if spec.iomem.huge() {
        out.push(format!("iomem={} (fio: malloc)", spec.iomem.as_str()));
    }
    if spec.ioengine == EngineKind::IoUring {
        if spec.uring.fixed_bufs {
            out.push("fixedbufs=1 (fio: 0)".to_string());
        }
        if spec.uring.register_files {
            out.push("registerfiles=1 (fio: 0)".to_string());
        }
    }
    if spec.cpus_split && spec.numjobs > 1 && spec.cpus.as_ref().is_some_and(|c| c.len() > 1) {
        out.push("cpus_allowed_policy=split (fio: shared)".to_string());
    }
    out
}

/// How [`unlike_fio_line`] starts.
pub(crate) const UNLIKE_FIO: &str = "settings unlike fio's defaults:";

/// The one line a summary and a record carry when `spec` runs unlike fio's defaults.
#[must_use]
pub(crate) fn unlike_fio_line(spec: &JobSpec) -> Option<String> {
    let settings = unlike_fio(spec);
    let why = if spec.iomem.huge() {
        " (huge pages keep a large direct I/O whole on virtio, where fio's 4 KiB pages split it)"
    } else {
        ""
    };
    (!settings.is_empty()).then(|| {
        format!(
            "{UNLIKE_FIO} {}{why}; --fio-defaults runs as fio does",
            settings.join(", ")
        )
    })
}

/// How an error names an option: `--bs`, `db.fio:14: bs`, `bs` (a dashboard key).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Name<'a> {
    pub(crate) key: Key,
    pub(crate) origin: Option<&'a Origin>,
}

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fio = self.fio();
        match self.origin {
            None | Some(Origin::CommandLine) => f.write_str(self.key.flag()),
            Some(Origin::File { path, line, .. }) => write!(f, "{path}:{line}: {fio}"),
            Some(Origin::Dashboard) => f.write_str(fio),
            Some(Origin::FioFlag { .. }) => write!(f, "--{fio}"),
            Some(Origin::FioDefault) => write!(f, "{fio} (fio's default)"),
        }
    }
}

impl Name<'_> {
    /// fio's name of the option, or the alias it was given by (`blocksize`), as fio names it.
    fn fio(&self) -> &'static str {
        self.origin
            .and_then(Origin::alias)
            .unwrap_or(self.key.fio_name())
    }

    /// The option as its origin spells it before a value, without a file location:
    /// `--runtime ` (a flag), `runtime=` (a job file, the dashboard), `--runtime=` (fio's line).
    fn bare(self) -> String {
        match self.origin {
            None | Some(Origin::CommandLine) => format!("{} ", self.key.flag()),
            Some(Origin::FioFlag { .. }) => format!("--{}=", self.fio()),
            Some(_) => format!("{}=", self.fio()),
        }
    }
}

/// The options by key, the last of each key winning.
struct Options<'a>(&'a [JobOption]);

impl<'a> Options<'a> {
    fn get(&self, key: Key) -> Option<&'a JobOption> {
        self.0.iter().rev().find(|o| o.key == key)
    }

    /// The value given (or the key's default in [`TABLE`]) and how to name it.
    fn value(&self, key: Key) -> (&'a str, Name<'a>) {
        self.text(key, key.default_text())
    }

    /// The flag's value (`1`/`0`) given, or the key's default.
    fn flag(&self, key: Key) -> anyhow::Result<bool> {
        let (text, name) = self.value(key);
        flag_option(name, text)
    }

    /// The value given (or `default`) and how to name it.
    fn text(&self, key: Key, default: &'a str) -> (&'a str, Name<'a>) {
        let option = self.get(key);
        (
            option.map_or(default, |o| o.value.as_str()),
            Name {
                key,
                origin: option.map(|o| &o.origin),
            },
        )
    }
}

/// The batching options of `options` capped to its depth, for a point of a sweep: one value
/// given for the whole sweep meets points of different depth, and a value above a point's
/// depth is lowered to it there, as fio lowers it and the dashboard does when the depth
/// changes live (a single job keeps refusing it: there the user contradicts themself). Returns
/// the options to validate (each capped value added after the user's, with its origin, so it
/// is the one that counts and errors name it as given) and, when any was capped, the one line
/// that says so (`iodepth_batch_complete_min 8 -> 1 at iodepth 1`). A depth or value that is
/// not a number is left to [`validate`] to refuse.
#[must_use]
pub(crate) fn cap_batching(options: &[JobOption]) -> (Vec<JobOption>, Option<String>) {
    let opts = Options(options);
    let mut capped = options.to_vec();
    let mut changes = Vec::new();
    let Ok(depth) = opts.value(Key::IoDepth).0.trim().parse::<u64>() else {
        return (capped, None);
    };
    // Not the completion maximum: one above the depth is valid (it takes what is there).
    for (key, _) in DEPTH_BOUND {
        let Some(given) = opts.get(key) else {
            continue;
        };
        let Ok(value) = given.value.trim().parse::<u64>() else {
            continue;
        };
        if value > depth {
            changes.push(format!("{} {value} -> {depth}", key.row().fio));
            capped.push(JobOption {
                key,
                value: depth.to_string(),
                origin: given.origin.clone(),
            });
        }
    }
    let note = (!changes.is_empty()).then(|| format!("{} at iodepth {depth}", changes.join(", ")));
    (capped, note)
}

/// fio's own adjustments of a job's batching values (`fixup_options` in its init.c): those
/// above the depth lowered to it ([`cap_batching`]), and a completion maximum the job set below
/// its minimum raised to it. `diskdash fio` makes them, as fio does, and says so in one line
/// (fio is silent), where `bench` refuses such values.
pub(crate) fn fio_batching(options: &[JobOption]) -> (Vec<JobOption>, Option<String>) {
    // fio reads `iodepth_batch_submit=0` and `iodepth_low=0` as the depth (its HOWTO says
    // so): the meaning of the value, not an adjustment, so without a note.
    let mut options = options.to_vec();
    if let Ok(depth) = Options(&options)
        .value(Key::IoDepth)
        .0
        .trim()
        .parse::<u64>()
    {
        for key in [Key::IoDepthBatch, Key::IoDepthLow] {
            let zero = Options(&options)
                .get(key)
                .filter(|o| o.origin != Origin::FioDefault && o.value.trim() == "0")
                .map(|o| o.origin.clone());
            if let Some(origin) = zero {
                options.push(JobOption {
                    key,
                    value: depth.to_string(),
                    origin,
                });
            }
        }
    }
    let (mut adjusted, capped) = cap_batching(&options);
    let mut changes: Vec<String> = capped.into_iter().collect();
    // After the caps: a minimum lowered to the depth raises the maximum no higher than it.
    let opts = Options(&adjusted);
    let given = |key| {
        opts.get(key)
            .filter(|o| o.origin != Origin::FioDefault)
            .and_then(|o| Some((o.origin.clone(), o.value.trim().parse::<u64>().ok()?)))
    };
    // The minimum as the job runs it (fio's default 1 when not given); a maximum the job set
    // below it, 0 included, is raised to it. Both 0 stays: fio's polling mode, refused.
    let min = opts
        .value(Key::IoDepthBatchCompleteMin)
        .0
        .trim()
        .parse::<u64>()
        .ok();
    if let (Some(min), Some((origin, max))) = (min, given(Key::IoDepthBatchComplete))
        && min > max
    {
        changes.push(format!(
            "iodepth_batch_complete_max {max} -> {min} (raised to the minimum)"
        ));
        adjusted.push(JobOption {
            key: Key::IoDepthBatchComplete,
            value: min.to_string(),
            origin,
        });
    }
    let note = (!changes.is_empty()).then(|| format!("{}, as fio runs it", changes.join("; ")));
    (adjusted, note)
}

/// Validates `options` (over the defaults of `diskdash bench`) into a job. Errors are usage
/// errors (exit 2) naming the option, its value and the fix.
///
/// Each row of [`TABLE`] parses and bounds its own value ([`Check::Parse`]; a row read with
/// another's names it, [`Check::With`]), in the table's order, into the job; then
/// [`cross_checks`] relates the options to each other.
pub fn validate(options: &[JobOption], machine: &MachineLimits) -> anyhow::Result<JobSpec> {
    let opts = Options(options);
    let mut spec = JobSpec::default();
    for row in &TABLE {
        if let Check::Parse(parse) = row.check {
            parse(&mut spec, &opts, machine)?;
        }
    }
    cross_checks(&spec, &opts, machine)?;
    Ok(spec)
}

/// How a row's value is parsed and bounded by [`validate`].
#[derive(Debug, Clone, Copy)]
enum Check {
    /// By its own function, into the job (it may read the rows before it, already parsed).
    Parse(Parse),
    /// With the row of this key, whose function reads both.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "the table's test reads the key")
    )]
    With(Key),
}

/// A row's parse-and-bound function: reads its option (or its default) from the options
/// given, checks it, and sets the job's field.
type Parse = for<'a> fn(&mut JobSpec, &Options<'a>, &MachineLimits) -> anyhow::Result<()>;

/// The values bounded by the depth, and their least: a batch or watermark above the depth
/// is refused by [`validate`], lowered to it by [`cap_batching`] (a sweep's point, a depth
/// changed live, fio's own fixups), so the two cannot disagree on which.
const DEPTH_BOUND: [(Key, u32); 3] = [
    (Key::IoDepthBatch, 1),
    (Key::IoDepthBatchCompleteMin, 0),
    (Key::IoDepthLow, 0),
];

/// The checks that relate several options, after each row has parsed its own.
fn cross_checks(spec: &JobSpec, opts: &Options<'_>, machine: &MachineLimits) -> anyhow::Result<()> {
    let (rw_text, rw_name) = opts.value(Key::Rw);
    if spec.ioengine == EngineKind::Ftruncate
        && (spec.rw.read_pct(spec.rwmixread_pct) > 0 || spec.rw.trims())
    {
        let (engine_text, engine_name) = opts.text(Key::IoEngine, "");
        return Err(usage!(
            "{engine_name} {engine_text:?} only writes (each write truncates the file to its \
             offset), but {rw_name} is {rw_text:?}; use rw=write or rw=randwrite"
        ));
    }
    // A split's checks name the split.
    let (bs_text, bs_name) = match (&spec.bssplit, opts.get(Key::BsSplit)) {
        (Some(_), Some(option)) => (
            option.value.as_str(),
            Name {
                key: Key::BsSplit,
                origin: Some(&option.origin),
            },
        ),
        _ => opts.value(Key::Bs),
    };
    let (size_text, size_name) = opts.value(Key::Size);
    if spec.block_size_bytes > spec.size_bytes {
        return Err(usage!(
            "{bs_name} {bs_text} is larger than {size_name} {size_text}; raise {size_name} or \
             lower {bs_name}"
        ));
    }
    depth_bounds(spec, opts)?;
    let (min, max) = (spec.iodepth_batch_complete_min, spec.iodepth_batch_complete);
    if min > max {
        let (_, min_name) = opts.value(Key::IoDepthBatchCompleteMin);
        let (_, max_name) = opts.value(Key::IoDepthBatchComplete);
        return Err(usage!(
            "{min_name} {min} exceeds {max_name} {max}; raise {max_name} or lower {min_name}"
        ));
    }
    // Every per-slot and per-worker cost, not the buffers alone (the session checks each
    // step against the memory available now: `memory::check_plan`). psync has one slot.
    let (_, depth_name) = opts.value(Key::IoDepth);
    let (_, jobs_name) = opts.value(Key::NumJobs);
    let (iodepth, numjobs) = (spec.iodepth, spec.numjobs);
    let depth = if spec.ioengine.one_at_a_time() {
        1
    } else {
        iodepth
    };
    let estimate =
        crate::bench::memory::Estimate::of_parts(spec.block_size_bytes, depth, numjobs, 0);
    if machine.memory_bytes > 0 && estimate.total() > machine.memory_bytes / 2 {
        return Err(usage!(
            "{bs_name} {bs_text} x {depth_name} {iodepth} x {jobs_name} {numjobs} needs an \
             estimated {} of memory ({}), more than half of this machine's {}; lower \
             {depth_name}, {jobs_name} or {bs_name}",
            format_bytes(estimate.total()),
            estimate.parts(),
            format_bytes(machine.memory_bytes)
        ));
    }
    sequencer_checks(spec, opts)
}

/// The batching values of [`DEPTH_BOUND`] at most the depth.
fn depth_bounds(spec: &JobSpec, opts: &Options<'_>) -> anyhow::Result<()> {
    let (_, depth_name) = opts.value(Key::IoDepth);
    let iodepth = spec.iodepth;
    for (key, least) in DEPTH_BOUND {
        let value = match key {
            Key::IoDepthBatch => spec.iodepth_batch,
            Key::IoDepthBatchCompleteMin => spec.iodepth_batch_complete_min,
            _ => spec.iodepth_low,
        };
        if value > iodepth {
            let (text, name) = opts.value(key);
            // The batch is named by its number, the others as written.
            let shown = if key == Key::IoDepthBatch {
                value.to_string()
            } else {
                text.to_string()
            };
            return Err(usage!(
                "{name} {shown} exceeds {depth_name} {iodepth}; use {least} to {iodepth}"
            ));
        }
    }
    Ok(())
}

/// `rw=MODE:N` against the block size (a skip keeps every I/O aligned) and verify (which
/// writes forwards).
fn sequencer_checks(spec: &JobSpec, opts: &Options<'_>) -> anyhow::Result<()> {
    let Some(seq) = spec.sequencer else {
        return Ok(());
    };
    let (rw_text, rw_name) = opts.value(Key::Rw);
    let unit = spec
        .bssplit
        .as_ref()
        .and_then(|split| split.sizes().min())
        .unwrap_or(spec.block_size_bytes);
    if let Sequencer::Skip(skip) = seq
        && skip.unsigned_abs() % unit != 0
    {
        return Err(usage!(
            "{rw_name} {rw_text:?}: the skip must be a multiple of the block size ({}) so \
             every I/O stays aligned; use e.g. {}:{}",
            format_size_short(unit),
            spec.rw.as_str(),
            format_size_short(unit)
        ));
    }
    let backwards_or_random = !matches!(seq, Sequencer::Skip(skip) if skip > 0);
    if spec.verify.is_some() && backwards_or_random {
        return Err(usage!(
            "{rw_name} {rw_text:?}: a verifying job writes each block of its region once \
             per pass, forwards; use a forward skip (e.g. write:8k) or drop verify"
        ));
    }
    Ok(())
}

// The rows' parse-and-bound functions ([`Check::Parse`]), in the table's order. Each sets
// its field of the job; one that reads another row's value reads it from the job, parsed
// before it.

fn rw_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (rw_text, rw_name) = opts.value(Key::Rw);
    let (mode, modifier) = match rw_text.split_once(':') {
        Some((mode, modifier)) => (mode.trim(), Some(modifier.trim())),
        None => (rw_text.trim(), None),
    };
    let rw = RwMode::parse(mode).ok_or_else(|| {
        usage!(
            "{rw_name} {rw_text:?} is not a workload; use read, write, randread, randwrite, rw, \
             randrw, trim, randtrim or trimwrite"
        )
    })?;
    let (sg, rw) = sg_options(opts, rw)?;
    spec.sg = sg;
    spec.rw = rw;
    spec.sequencer = match modifier {
        None => None,
        Some(text) => sequencer_option(rw_name, rw_text, rw, text)?,
    };
    Ok(())
}

fn rwmixread_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::RwMixRead);
    spec.rwmixread_pct = match text.parse::<u8>() {
        Ok(pct) if pct <= 100 => pct,
        _ => return Err(usage!("{name} {text:?} is not a percentage; use 0 to 100")),
    };
    Ok(())
}

fn bs_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::Bs);
    let bytes = size_option(name, text, "4k, 1M or 512")?;
    if bytes > MAX_BLOCK_SIZE_BYTES {
        return Err(usage!(
            "{name} {text} is too large; use at most {}",
            format_size_short(MAX_BLOCK_SIZE_BYTES)
        ));
    }
    spec.block_size_bytes = bytes;
    Ok(())
}

fn size_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::Size);
    spec.size_bytes = size_option(name, text, "16M, 1G or 10G")?;
    spec.size_explicit = opts.get(Key::Size).is_some();
    Ok(())
}

fn iodepth_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::IoDepth);
    spec.iodepth = count_option(name, text, MAX_IODEPTH, "1, 32 or 128")?;
    Ok(())
}

fn numjobs_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::NumJobs);
    spec.numjobs = count_option(name, text, MAX_NUMJOBS, "1, 2 or 4")?;
    Ok(())
}

fn ioengine_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::IoEngine);
    let ioengine = match text {
        "io_uring" => EngineKind::IoUring,
        "psync" => EngineKind::Psync,
        "libaio" => EngineKind::Libaio,
        "null" => EngineKind::Null,
        "falloc" => EngineKind::Falloc,
        "ftruncate" => EngineKind::Ftruncate,
        "filecreate" => EngineKind::FileCreate,
        "filestat" => EngineKind::FileStat,
        "filedelete" => EngineKind::FileDelete,
        // fio's engines with a diskdash equivalent: say which.
        "posixaio" | "windowsaio" => {
            return Err(usage!(
                "{name} {text:?}: diskdash uses io_uring for {text}'s job: {name} io_uring"
            ));
        }
        "sync" | "pvsync" | "pvsync2" | "vsync" => {
            return Err(usage!(
                "{name} {text:?}: diskdash uses psync for {text}'s job: {name} psync"
            ));
        }
        other => {
            return Err(usage!(
                "{name} {other:?} is not an engine; use io_uring, libaio, psync or null"
            ));
        }
    };
    // Trims are synchronous ioctls/fallocates (libaio has no iocb for them either): they run
    // on psync (said in the job's notes).
    spec.ioengine =
        if spec.rw.trims() && matches!(ioengine, EngineKind::IoUring | EngineKind::Libaio) {
            EngineKind::Psync
        } else {
            ioengine
        };
    Ok(())
}

fn iodepth_batch_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    _: &MachineLimits,
) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::IoDepthBatch);
    spec.iodepth_batch = count_option(name, text, MAX_IODEPTH, "1 or 8")?;
    Ok(())
}

/// fio's `iodepth_batch_complete_min` (0 to `iodepth`, checked with the others of
/// [`DEPTH_BOUND`]) with `iodepth_batch_complete_max` (default: the minimum).
fn batch_complete_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    _: &MachineLimits,
) -> anyhow::Result<()> {
    let (text, min_name) = opts.value(Key::IoDepthBatchCompleteMin);
    let min = batch_number(min_name, text, "0, 1 or 8")?;
    let (text, max_name) = opts.value(Key::IoDepthBatchComplete);
    // fio's polling mode is both 0 (`io_in_polling` in its backend.c), a maximum not given
    // being 0 there: checked before the maximum's own range, which a 0 is outside.
    let max_zero = text.trim().parse::<u64>() == Ok(0);
    if min == 0 && (opts.get(Key::IoDepthBatchComplete).is_none() || max_zero) {
        // fio's polling mode (both 0: a non-blocking reap after every queued I/O) is not
        // diskdash's: say so rather than run another workload under its name.
        let max_fix = Name {
            key: Key::IoDepthBatchComplete,
            origin: opts.get(Key::IoDepthBatchCompleteMin).map(|o| &o.origin),
        }
        .bare();
        let max_bare = max_fix.trim_end_matches(['=', ' ']);
        let with = if max_zero {
            format!("with {max_name} 0")
        } else {
            format!("without {max_bare}")
        };
        let iodepth = spec.iodepth;
        return Err(usage!(
            "{min_name} 0 {with}: fio's polling mode (a reap after every queued I/O) is not \
             supported; set {max_fix}{iodepth} to poll with the queue kept full, or raise \
             {min_name} to 1 or more"
        ));
    }
    let mut max = count_option(max_name, text, MAX_IODEPTH, "1 or 32")?;
    // fio's default maximum is the minimum (one given below it: [`cross_checks`]).
    if opts.get(Key::IoDepthBatchComplete).is_none() {
        max = max.max(min);
    }
    spec.iodepth_batch_complete_min = min;
    spec.iodepth_batch_complete = max;
    Ok(())
}

/// fio's `iodepth_low` (0: `iodepth`; at most `iodepth`, checked with the others of
/// [`DEPTH_BOUND`]).
fn iodepth_low_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    _: &MachineLimits,
) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::IoDepthLow);
    spec.iodepth_low = match batch_number(name, text, "0, 4 or 16")? {
        0 => spec.iodepth,
        low => low,
    };
    Ok(())
}

/// A batching count of [`DEPTH_BOUND`], 0 allowed (too large a one exceeds the depth).
fn batch_number(name: Name<'_>, text: &str, examples: &str) -> anyhow::Result<u32> {
    let Ok(value) = text.trim().parse::<u64>() else {
        return Err(usage!(
            "{name} {text:?} is not a number; use e.g. {examples}"
        ));
    };
    Ok(u32::try_from(value).unwrap_or(u32::MAX))
}

fn direct_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.direct = opts.flag(Key::Direct)?;
    Ok(())
}

/// `fsync` or `fdatasync` (not both).
fn sync_every_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.sync_every = match (opts.get(Key::Fsync), opts.get(Key::Fdatasync)) {
        (Some(fsync), Some(fdatasync)) => {
            let fsync = Name {
                key: Key::Fsync,
                origin: Some(&fsync.origin),
            };
            let fdatasync = Name {
                key: Key::Fdatasync,
                origin: Some(&fdatasync.origin),
            };
            return Err(usage!(
                "{fsync} and {fdatasync} cannot be combined; pick one"
            ));
        }
        (Some(_), None) => {
            let (text, name) = opts.value(Key::Fsync);
            sync_count(name, text)?.map(SyncEvery::Fsync)
        }
        (None, Some(_)) => {
            let (text, name) = opts.value(Key::Fdatasync);
            sync_count(name, text)?.map(SyncEvery::Fdatasync)
        }
        (None, None) => None,
    };
    Ok(())
}

fn sync_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.open_sync = match opts.text(Key::Sync, "") {
        ("" | "0" | "none", _) => None,
        ("dsync", _) => Some(OpenSync::Dsync),
        ("sync" | "1", _) => Some(OpenSync::Sync),
        (other, name) => {
            return Err(usage!(
                "{name} {other:?} is not a sync mode; use dsync or sync"
            ));
        }
    };
    Ok(())
}

fn cpus_row(spec: &mut JobSpec, opts: &Options<'_>, machine: &MachineLimits) -> anyhow::Result<()> {
    if opts.get(Key::Cpus).is_some() {
        let (text, name) = opts.text(Key::Cpus, "");
        spec.cpus = Some(cpu_list(name, text, &machine.available_cpus)?);
    }
    Ok(())
}

fn runtime_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::Runtime);
    spec.runtime = duration_option(name, text, "e.g. 10m or 24h", MAX_RUN_TIME)?;
    if spec.runtime.is_zero() {
        return Err(usage!(
            "{name} {text:?} must be greater than zero; use e.g. 10s"
        ));
    }
    Ok(())
}

fn ramp_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::Ramp);
    spec.ramp = duration_option(name, text, "e.g. 30s or 5m", MAX_RUN_TIME)?;
    Ok(())
}

fn interval_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::Interval);
    spec.interval = Interval::parse(text)
        .map_err(|e| usage!("{name} {text:?} {e}"))?
        .get();
    Ok(())
}

fn offset_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::Offset);
    spec.offset_bytes = offset_option(name, text)?;
    Ok(())
}

fn offset_increment_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    _: &MachineLimits,
) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::OffsetIncrement);
    spec.offset_increment_bytes = offset_option(name, text)?;
    Ok(())
}

fn io_size_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    if opts.get(Key::IoSize).is_some() {
        let (text, name) = opts.text(Key::IoSize, "");
        spec.io_size_bytes = Some(size_option(name, text, "256M or 10G")?);
    }
    Ok(())
}

fn startdelay_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::StartDelay);
    spec.startdelay = duration_option(name, text, "e.g. 2s", MAX_RUN_TIME)?;
    Ok(())
}

fn randseed_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    if let Some(option) = opts.get(Key::RandSeed) {
        spec.randseed = Some(option.value.trim().parse::<u64>().map_err(|_| {
            let name = Name {
                key: Key::RandSeed,
                origin: Some(&option.origin),
            };
            usage!(
                "{name} {:?} is not a seed; use a whole number, e.g. 1234",
                option.value
            )
        })?);
    }
    Ok(())
}

fn end_fsync_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.end_fsync = opts.flag(Key::EndFsync)?;
    Ok(())
}

fn cpus_policy_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    _: &MachineLimits,
) -> anyhow::Result<()> {
    spec.cpus_split = match opts.value(Key::CpusPolicy) {
        ("split", _) => true,
        ("shared", _) => false,
        (other, name) => {
            return Err(usage!(
                "{name} {other:?} is not a CPU policy; use shared or split"
            ));
        }
    };
    Ok(())
}

fn distribution_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    _: &MachineLimits,
) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::RandomDistribution);
    spec.distribution = distribution_option(name, text)?;
    Ok(())
}

fn rate_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.rate = rate_option(opts, spec.rw.read_pct(spec.rwmixread_pct))?;
    Ok(())
}

/// A split replaces `bs`; the buffers hold its largest block.
fn bssplit_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.bssplit = bssplit_option(opts.0, spec.block_size_bytes)?;
    if let (Some(split), Some(_)) = (&spec.bssplit, opts.get(Key::BsSplit)) {
        spec.block_size_bytes = split.sizes().max().unwrap_or(spec.block_size_bytes);
    }
    Ok(())
}

fn uring_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    machine: &MachineLimits,
) -> anyhow::Result<()> {
    spec.uring = uring_options(opts, spec.ioengine, spec.direct, &machine.available_cpus)?;
    Ok(())
}

fn steady_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    (spec.steady, spec.cliff_pct) = steady_options(opts, spec.runtime)?;
    Ok(())
}

fn verify_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.verify = verify_option(
        opts,
        spec.rw,
        spec.rwmixread_pct,
        spec.block_size_bytes,
        spec.bssplit.is_some(),
        spec.distribution,
    )?;
    Ok(())
}

fn number_ios_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    if opts.get(Key::NumberIos).is_some() {
        let (text, name) = opts.text(Key::NumberIos, "");
        spec.number_ios = match text.trim().parse::<u64>() {
            // fio's number_ios=0 is no limit.
            Ok(0) => None,
            Ok(n) => Some(n),
            Err(_) => {
                return Err(usage!(
                    "{name} {text:?} is not a number of I/Os; use e.g. 1000 (0: no limit)"
                ));
            }
        };
    }
    Ok(())
}

fn think_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.think = think_options(opts)?;
    Ok(())
}

fn rate_min_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.rate_min = rate_min_options(opts)?;
    Ok(())
}

fn flow_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.flow = flow_options(opts)?;
    Ok(())
}

fn norandommap_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    _: &MachineLimits,
) -> anyhow::Result<()> {
    spec.random_map = !opts.flag(Key::NoRandomMap)?;
    Ok(())
}

fn random_generator_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    _: &MachineLimits,
) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::RandomGenerator);
    spec.random_generator = Generator::parse(text).ok_or_else(|| {
        usage!("{name} {text:?} is not a random generator; use tausworthe, lfsr or tausworthe64")
    })?;
    Ok(())
}

fn invalidate_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.invalidate = opts.flag(Key::Invalidate)?;
    Ok(())
}

fn fadvise_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::FadviseHint);
    spec.fadvise = Fadvise::parse(text).ok_or_else(|| {
        usage!("{name} {text:?} is not an fadvise hint; use 0, 1, sequential or random")
    })?;
    Ok(())
}

fn iomem_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::IoMem);
    spec.iomem = IoMem::parse(text).ok_or_else(|| {
        usage!(
            "{name} {text:?} is not an I/O memory type; use malloc, mmap, shm (4 KiB pages), \
             huge, shmhuge or mmaphuge (huge pages)"
        )
    })?;
    Ok(())
}

fn fallocate_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let (text, name) = opts.value(Key::Fallocate);
    spec.fallocate = Fallocate::parse(text).ok_or_else(|| {
        usage!(
            "{name} {text:?} is not a way to preallocate; use none, native, posix, keep, \
             truncate, 0 or 1"
        )
    })?;
    Ok(())
}

fn errors_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.errors = error_policy(opts)?;
    Ok(())
}

fn shape_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.data = shape_option(opts)?.map_or(
        crate::bench::spec::BufferData::Random,
        crate::bench::spec::BufferData::Shaped,
    );
    Ok(())
}

fn meta_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.meta = meta_files(opts, spec.ioengine, spec.rw)?;
    Ok(())
}

fn prio_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    let prio = prio_options(opts, spec.ioengine)?;
    spec.ioprio = prio.ioprio;
    spec.cmdprio = prio.cmdprio;
    spec.numa_cpu_nodes = prio.numa_cpu_nodes;
    spec.numa_mem_policy = prio.numa_mem_policy;
    Ok(())
}

/// `buffer_pattern` (hex).
fn buffer_pattern_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    _: &MachineLimits,
) -> anyhow::Result<()> {
    if opts.get(Key::BufferPattern).is_some() {
        let (text, name) = opts.value(Key::BufferPattern);
        spec.buffer_pattern = Some(bytes_of_hex(text).ok_or_else(|| {
            usage!("{name} {text:?} is not a byte pattern; use 0x and hex digits (e.g. 0xdeadbeef)")
        })?);
    }
    Ok(())
}

fn verify_pattern_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    _: &MachineLimits,
) -> anyhow::Result<()> {
    spec.verify_pattern = verify_pattern_option(opts, spec.verify.as_ref())?;
    Ok(())
}

fn fill_device_row(
    spec: &mut JobSpec,
    opts: &Options<'_>,
    _: &MachineLimits,
) -> anyhow::Result<()> {
    spec.fill_device = opts.flag(Key::FillDevice)?;
    Ok(())
}

fn latency_row(spec: &mut JobSpec, opts: &Options<'_>, _: &MachineLimits) -> anyhow::Result<()> {
    spec.latency_target = latency_options(opts)?;
    Ok(())
}

/// fio's `latency_target` (microseconds without a unit; 0: no search) with
/// `latency_window`, `latency_percentile` and `latency_run`; the companions without a target
/// are refused (fio ignores them: they would do nothing).
fn latency_options(
    opts: &Options<'_>,
) -> anyhow::Result<Option<crate::bench::latency::LatencyTarget>> {
    let (text, target_name) = opts.value(Key::LatencyTarget);
    let target = if opts.get(Key::LatencyTarget).is_some() {
        time_in(target_name, text, "us", "e.g. 500 (microseconds) or 2ms")?
    } else {
        Duration::ZERO
    };
    let companions = [Key::LatencyWindow, Key::LatencyPercentile, Key::LatencyRun];
    if target.is_zero() {
        if let Some(key) = companions.into_iter().find(|k| opts.get(*k).is_some()) {
            let name = Name {
                key,
                origin: opts.get(key).map(|o| &o.origin),
            };
            return Err(usage!(
                "{name} needs latency_target (the latency to search within); add \
                 latency_target=TIME, e.g. latency_target=2ms"
            ));
        }
        return Ok(None);
    }
    let (text, name) = opts.value(Key::LatencyWindow);
    let window = time_in(name, text, "us", "e.g. 5000000 (microseconds) or 5s")?;
    let (text, name) = opts.value(Key::LatencyPercentile);
    let percentile = match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => p,
        _ => {
            return Err(usage!(
                "{name} {text:?} is not a percentile; use 0 to 100, e.g. 99.9"
            ));
        }
    };
    let (text, name) = opts.value(Key::LatencyRun);
    let keep_running = flag_option(name, text)?;
    Ok(Some(crate::bench::latency::LatencyTarget {
        target,
        window,
        percentile,
        keep_running,
    }))
}

/// What [`prio_options`] makes of fio's priority and NUMA options.
struct PrioOptions {
    ioprio: Option<u16>,
    cmdprio: Option<crate::bench::prio::CmdPrio>,
    numa_cpu_nodes: Option<Vec<u32>>,
    numa_mem_policy: Option<crate::bench::prio::MemPolicy>,
}

/// fio's `prio`/`prioclass` (the thread's priority: a level alone is class be, a class alone
/// level 4, as ionice), `cmdprio_percentage` or `cmdprio_bssplit` with `cmdprio_class` and
/// `cmdprio` (libaio and io_uring only, as in fio, where they are those engines' options),
/// `numa_cpu_nodes` and `numa_mem_policy` (nodes are checked where the worker applies them).
fn prio_options(opts: &Options<'_>, ioengine: EngineKind) -> anyhow::Result<PrioOptions> {
    use crate::bench::prio;
    let level = |key: Key, max: u8, what: &str| -> anyhow::Result<Option<u8>> {
        let Some(_) = opts.get(key) else {
            return Ok(None);
        };
        let (text, name) = opts.text(key, "");
        match text.trim().parse::<u8>() {
            Ok(v) if v <= max => Ok(Some(v)),
            _ => Err(usage!("{name} {text:?} is not {what}; use 0 to {max}")),
        }
    };
    let prio_level = level(Key::Prio, 7, "an I/O priority level")?;
    let class = level(
        Key::PrioClass,
        3,
        "an I/O priority class (1 rt, 2 be, 3 idle)",
    )?;
    let ioprio = match (class, prio_level) {
        (None, None) => None,
        // Class 0 (none) with no level leaves the thread as it is, as fio does.
        (Some(0), None | Some(0)) => None,
        (Some(3), _) => Some(prio::ioprio_value(3, 0)),
        (Some(c), l) => Some(prio::ioprio_value(
            if c == 0 { 2 } else { c },
            l.unwrap_or(4),
        )),
        (None, Some(l)) => Some(prio::ioprio_value(2, l)),
    };
    let (class_text, _) = opts.value(Key::CmdPrioClass);
    let (level_text, _) = opts.value(Key::CmdPrio);
    let cmdprio = match (
        opts.get(Key::CmdPrioPercentage),
        opts.get(Key::CmdPrioBsSplit),
    ) {
        (Some(_), Some(_)) => {
            let (_, pct) = opts.text(Key::CmdPrioPercentage, "");
            let (_, split) = opts.text(Key::CmdPrioBsSplit, "");
            return Err(usage!(
                "{pct} and {split} cannot be combined (fio refuses both); pick one"
            ));
        }
        (Some(_), None) => {
            let (text, name) = opts.text(Key::CmdPrioPercentage, "");
            Some(
                prio::parse_percentage(text, class_text, level_text)
                    .map_err(|e| usage!("{name} {text:?}: {e}; cmdprio_class and cmdprio too"))?,
            )
        }
        (None, Some(_)) => {
            let (text, name) = opts.text(Key::CmdPrioBsSplit, "");
            Some(
                prio::parse_bssplit(text, class_text, level_text).map_err(|e| {
                    usage!("{name} {text:?}: {e}; use e.g. 64k/25:1M/0 or 64k/25/1/1")
                })?,
            )
        }
        (None, None) => None,
    };
    let cmdprio = cmdprio.filter(prio::CmdPrio::any);
    if cmdprio.is_some() && !matches!(ioengine, EngineKind::IoUring | EngineKind::Libaio) {
        let key = if opts.get(Key::CmdPrioPercentage).is_some() {
            Key::CmdPrioPercentage
        } else {
            Key::CmdPrioBsSplit
        };
        let (text, name) = opts.text(key, "");
        return Err(usage!(
            "{name} {text:?}: per-I/O priorities are options of fio's libaio and io_uring \
             engines, not of ioengine={}; use ioengine=io_uring or libaio",
            ioengine.as_str()
        ));
    }
    let numa_cpu_nodes = match opts.get(Key::NumaCpuNodes) {
        None => None,
        Some(_) => {
            let (text, name) = opts.text(Key::NumaCpuNodes, "");
            if text.trim() == "all" {
                None
            } else {
                Some(prio::parse_nodes(text).map_err(|e| usage!("{name} {e}"))?)
            }
        }
    };
    let numa_mem_policy = match opts.get(Key::NumaMemPolicy) {
        None => None,
        Some(_) => {
            let (text, name) = opts.text(Key::NumaMemPolicy, "");
            Some(prio::MemPolicy::parse(text).map_err(|e| usage!("{name} {text:?}: {e}"))?)
        }
    };
    Ok(PrioOptions {
        ioprio,
        cmdprio,
        numa_cpu_nodes,
        numa_mem_policy,
    })
}

/// A percentage option, 0 to 100.
fn pct_option(opts: &Options<'_>, key: Key) -> anyhow::Result<u8> {
    let (text, name) = opts.value(key);
    match text.trim().trim_end_matches('%').parse::<u8>() {
        Ok(pct) if pct <= 100 => Ok(pct),
        _ => Err(usage!("{name} {text:?} is not a percentage; use 0 to 100")),
    }
}

/// fio's buffer-shaping options: `None` where the blocks are left as the other options say.
fn shape_option(opts: &Options<'_>) -> anyhow::Result<Option<crate::bench::buffer::Shape>> {
    use crate::bench::buffer::{DedupeMode, Shape};
    let dedupe_pct = pct_option(opts, Key::DedupePercentage)?;
    let compress_pct = pct_option(opts, Key::CompressPercentage)?;
    let working_set_pct = pct_option(opts, Key::DedupeWorkingSet)?;
    let (text, name) = opts.value(Key::DedupeMode);
    let mode = match text.trim() {
        "repeat" => DedupeMode::Repeat,
        "working_set" => DedupeMode::WorkingSet,
        _ => {
            return Err(usage!(
                "{name} {text:?} is not a dedupe mode; use repeat or working_set"
            ));
        }
    };
    let (text, name) = opts.value(Key::CompressChunk);
    let chunk_bytes = match text.trim() {
        "0" => 0,
        _ => size_option(name, text, "512, 4k or 0")?,
    };
    let chunk_bytes = u32::try_from(chunk_bytes)
        .map_err(|_| usage!("{name} {text:?} is too large; use at most the block size"))?;
    Ok((dedupe_pct > 0 || compress_pct > 0).then_some(Shape {
        dedupe_pct,
        mode,
        working_set_pct,
        compress_pct,
        chunk_bytes,
    }))
}

/// fio's `continue_on_error` and `ignore_error` (checked by the fio mapping too: a value
/// from `--continue-on-error` on the command line is checked here).
fn error_policy(opts: &Options<'_>) -> anyhow::Result<crate::bench::spec::ErrorPolicy> {
    use crate::bench::spec::{ErrorPolicy, ignore_lists};
    let (text, name) = opts.value(Key::ContinueOnError);
    let classes = ErrorPolicy::classes_of(text).ok_or_else(|| {
        usage!(
            "{name} {text:?} is not an error class; use none, read, write, io, verify, all, 0 or 1"
        )
    })?;
    let (text, name) = opts.value(Key::IgnoreError);
    let given = ignore_lists(text).map_err(|word| {
        usage!(
            "{name} {text:?}: {word:?} is not an error; give READ,WRITE,VERIFY lists of errno \
             names or numbers joined by ':', e.g. ,ENOSPC:EIO"
        )
    })?;
    let mut lists: [Vec<i32>; 3] = Default::default();
    for (list, given) in lists.iter_mut().zip(given) {
        *list = given;
    }
    Ok(ErrorPolicy { classes, lists })
}

/// The files of a metadata engine's job (`nrfiles`, `stat_type`; the names are fio's
/// `$jobname.$jobnum.$filenum` until the job file says otherwise), `None` for the other
/// engines, which run one file (`nrfiles=1`).
fn meta_files(
    opts: &Options<'_>,
    ioengine: EngineKind,
    rw: RwMode,
) -> anyhow::Result<Option<crate::bench::spec::MetaFiles>> {
    let (text, name) = opts.value(Key::NrFiles);
    let count = match text.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_NRFILES).contains(&n) => n as u32,
        _ => {
            return Err(usage!(
                "{name} {text:?} is not a number of files; use 1 to {MAX_NRFILES}"
            ));
        }
    };
    let (engine_text, engine_name) = opts.value(Key::IoEngine);
    if !ioengine.is_metadata() {
        // Several files for the other engines: fio's job files set them up (`fio::map`).
        return Ok(None);
    }
    if matches!(
        opts.get(Key::IoEngine).map(|o| &o.origin),
        Some(Origin::CommandLine | Origin::Dashboard)
    ) {
        return Err(usage!(
            "{engine_name} {engine_text:?}: the metadata engines run from fio job files; use \
             diskdash fio with ioengine={engine_text}, nrfiles and directory"
        ));
    }
    let (jobs_text, jobs_name) = opts.value(Key::NumJobs);
    if jobs_text.trim() != "1" {
        return Err(usage!(
            "{jobs_name} {jobs_text}: diskdash runs one worker per {engine_text} job; give each \
             clone its own job section ([t0], [t1], ...) or use numjobs=1"
        ));
    }
    if rw.trims() {
        let (rw_text, rw_name) = opts.value(Key::Rw);
        return Err(usage!(
            "{engine_name} {engine_text:?} times one call per file and issues no trims, but \
             {rw_name} is {rw_text:?}; use rw=read or rw=write"
        ));
    }
    let (text, name) = opts.value(Key::StatType);
    let stat = StatCall::parse(text)
        .ok_or_else(|| usage!("{name} {text:?} is not a stat call; use stat, lstat or statx"))?;
    Ok(Some(crate::bench::spec::MetaFiles {
        format: "$jobname.$jobnum.$filenum".to_string(),
        count,
        stat,
        unlink: false,
    }))
}

/// fio's `rw=MODE:N` (`rw_sequencer`): for a sequential mode a size to skip after each I/O
/// (`read:8k`; negative walks backwards: `read:-8k`), for a random one a count (`randread:8`:
/// a new random offset every 8 I/Os). `:0` and `randread:1` are the plain mode.
fn sequencer_option(
    name: Name<'_>,
    rw_text: &str,
    rw: RwMode,
    text: &str,
) -> anyhow::Result<Option<Sequencer>> {
    if rw.is_random() {
        return match text.parse::<u32>() {
            Ok(0) | Err(_) => Err(usage!(
                "{name} {rw_text:?}: after {}: comes the number of I/Os between random \
                 offsets; use e.g. {}:8",
                rw.as_str(),
                rw.as_str()
            )),
            Ok(1) => Ok(None),
            Ok(n) => Ok(Some(Sequencer::RandomEvery(n))),
        };
    }
    let (negative, magnitude) = match text.strip_prefix('-') {
        Some(rest) => (true, rest.trim()),
        None => (false, text.strip_prefix('+').unwrap_or(text).trim()),
    };
    let bytes = parse_size_bytes(magnitude)
        .and_then(|b| i64::try_from(b).ok())
        .ok_or_else(|| {
            usage!(
                "{name} {rw_text:?}: after {}: comes the bytes to skip after each I/O; use \
                 e.g. {}:8k, or {}:-8k to go backwards",
                rw.as_str(),
                rw.as_str(),
                rw.as_str()
            )
        })?;
    Ok(match bytes {
        0 => None,
        b if negative => Some(Sequencer::Skip(-b)),
        b => Some(Sequencer::Skip(b)),
    })
}

/// A time where a bare number counts `unit`s (fio's `thinktime` in microseconds,
/// `rate_cycle` in milliseconds).
fn time_in(name: Name<'_>, text: &str, unit: &str, examples: &str) -> anyhow::Result<Duration> {
    let text = text.trim();
    let written = if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        format!("{text}{unit}")
    } else {
        text.to_string()
    };
    duration_option(name, &written, examples, MAX_RUN_TIME)
}

/// `sg_write_mode`; an sg mode that verifies turns the job's writes
/// into reads of the same blocks (`write` to `read`, `randwrite` to `randread`).
fn sg_options(opts: &Options<'_>, rw: RwMode) -> anyhow::Result<(Option<SgMode>, RwMode)> {
    let Some(_) = opts.get(Key::SgWriteMode) else {
        return Ok((None, rw));
    };
    let (text, name) = opts.value(Key::SgWriteMode);
    let mode = SgMode::parse(text.trim()).ok_or_else(|| {
        usage!(
            "{name} {text:?} is not an sg write mode; use write, write_and_verify, \
             verify_bytchk_00, verify_bytchk_01, verify_bytchk_11, write_same, write_same_ndob \
             or write_stream"
        )
    })?;
    let rw = match (mode.reads_instead(), rw) {
        (true, RwMode::Write) => RwMode::Read,
        (true, RwMode::RandWrite) => RwMode::RandRead,
        (true, RwMode::Read | RwMode::RandRead) | (false, _) => rw,
        (true, other) => {
            return Err(usage!(
                "{name} {text:?} reads where the job writes, but rw={} mixes reads and writes; \
                 use rw=write or rw=randwrite with it",
                other.as_str()
            ));
        }
    };
    if mode == SgMode::WriteAndVerify && !matches!(rw, RwMode::Write | RwMode::RandWrite) {
        return Err(usage!(
            "{name} {text:?} needs a writing job; use rw=write or rw=randwrite with it"
        ));
    }
    Ok((Some(mode), rw))
}

/// `0x0102` as bytes (an odd count of digits gets a leading 0).
fn bytes_of_hex(text: &str) -> Option<Vec<u8>> {
    let digits = text.trim().strip_prefix("0x")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let padded = if digits.len() % 2 == 1 {
        format!("0{digits}")
    } else {
        digits.to_string()
    };
    padded
        .as_bytes()
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect()
}

/// Bytes as `0x` and hex digits, as [`bytes_of_hex`] reads them.
#[must_use]
pub(crate) fn hex_of(bytes: &[u8]) -> String {
    let mut out = String::from("0x");
    for byte in bytes {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

fn flow_options(opts: &Options<'_>) -> anyhow::Result<Option<crate::bench::spec::Flow>> {
    let (text, flow_name) = opts.value(Key::Flow);
    let weight = match text.trim().parse::<u32>() {
        Ok(w) if w <= FLOW_MAX_WEIGHT => w,
        _ => {
            return Err(usage!(
                "{flow_name} {text:?} is not a flow weight; use 0 to {FLOW_MAX_WEIGHT} \
                 (e.g. 1 and 8 for one job to do eight times the other's I/Os)"
            ));
        }
    };
    let (text, id_name) = opts.value(Key::FlowId);
    let Ok(id) = text.trim().parse::<u32>() else {
        return Err(usage!(
            "{id_name} {text:?} is not a flow group; use a number, e.g. 0 or 1"
        ));
    };
    let (text, sleep_name) = opts.value(Key::FlowSleep);
    let sleep = time_in(sleep_name, text, "us", "e.g. 1000 (microseconds)")?;
    if weight == 0 {
        // fio: flow_id and flow_sleep without a weight change nothing.
        return Ok(None);
    }
    Ok(Some(crate::bench::spec::Flow { weight, id, sleep }))
}

/// fio's largest `flow` weight (`FLOW_MAX_WEIGHT`).
const FLOW_MAX_WEIGHT: u32 = 1000;

fn think_options(opts: &Options<'_>) -> anyhow::Result<Option<ThinkTime>> {
    let name = |key: Key| Name {
        key,
        origin: opts.get(key).map(|o| &o.origin),
    };
    let (text, think_name) = opts.value(Key::ThinkTime);
    let pause = time_in(think_name, text, "us", "e.g. 100 (microseconds) or 10ms")?;
    if pause.is_zero() {
        if let Some(key) = [
            Key::ThinkTimeSpin,
            Key::ThinkTimeBlocks,
            Key::ThinkTimeBlocksType,
        ]
        .into_iter()
        .find(|k| opts.get(*k).is_some())
        {
            return Err(usage!(
                "{} needs thinktime (a pause to tune); add thinktime=TIME, e.g. \
                 thinktime=1ms",
                name(key)
            ));
        }
        return Ok(None);
    }
    let (text, spin_name) = opts.value(Key::ThinkTimeSpin);
    let spin = time_in(spin_name, text, "us", "e.g. 50 (microseconds)")?;
    if spin > pause {
        return Err(usage!(
            "{spin_name} {text:?} is longer than {think_name}; spin at most the whole pause"
        ));
    }
    let (text, blocks_name) = opts.value(Key::ThinkTimeBlocks);
    let blocks = count_option(blocks_name, text, u32::MAX, "1 or 8")?;
    let on_issue = match opts.value(Key::ThinkTimeBlocksType) {
        ("complete", _) => false,
        ("issue", _) => true,
        (other, name) => {
            return Err(usage!(
                "{name} {other:?} is not a way to count; use complete or issue"
            ));
        }
    };
    Ok(Some(ThinkTime {
        pause,
        spin,
        blocks,
        on_issue,
    }))
}

/// fio's `rate_min` (bytes/s) and `rate_iops_min`, averaged over `rate_cycle` (ms, default
/// 1000). One value for every direction; fio's per-direction `READ,WRITE` form is refused.
fn rate_min_options(opts: &Options<'_>) -> anyhow::Result<Option<RateMin>> {
    let floor = |key: Key, size: bool| -> anyhow::Result<Option<u64>> {
        let Some(_) = opts.get(key) else {
            return Ok(None);
        };
        let (text, name) = opts.text(key, "");
        if text.contains(',') {
            return Err(usage!(
                "{name} {text:?}: diskdash takes one floor for every direction; give one value"
            ));
        }
        let value = if size {
            parse_size_bytes(text.trim())
        } else {
            text.trim().parse::<u64>().ok()
        };
        match value {
            Some(0) => Ok(None),
            Some(v) => Ok(Some(v)),
            None if size => Err(usage!(
                "{name} {text:?} is not a rate; use bytes per second, e.g. 10m"
            )),
            None => Err(usage!(
                "{name} {text:?} is not a rate; use I/Os per second, e.g. 100"
            )),
        }
    };
    let bytes_per_sec = floor(Key::RateMin, true)?;
    let iops = floor(Key::RateIopsMin, false)?;
    let (text, name) = opts.value(Key::RateCycle);
    let cycle = time_in(name, text, "ms", "e.g. 1000 (milliseconds)")?;
    if bytes_per_sec.is_none() && iops.is_none() {
        return Ok(None);
    }
    if cycle < MIN_INTERVAL {
        return Err(usage!(
            "{name} {text:?} is too short to average over; use e.g. 1000 (milliseconds)"
        ));
    }
    Ok(Some(RateMin {
        bytes_per_sec,
        iops,
        cycle,
    }))
}

/// fio's `verify` with `verify_only` and `verify_fatal`. What a read-back can know decides
/// what is allowed: a write job writes each block once per pass (random writes walk a
/// permutation), so the blocks hold what it wrote; a read job checks a set written before
/// with `--verify-only`.
fn verify_option(
    opts: &Options<'_>,
    rw: RwMode,
    rwmixread_pct: u8,
    block_size_bytes: u64,
    bssplit: bool,
    distribution: Distribution,
) -> anyhow::Result<Option<VerifySpec>> {
    let name = |key: Key| Name {
        key,
        origin: opts.get(key).map(|o| &o.origin),
    };
    let flag = |key: Key| -> anyhow::Result<bool> {
        match opts.get(key) {
            None => Ok(false),
            Some(option) => flag_option(name(key), &option.value),
        }
    };
    let only = flag(Key::VerifyOnly)?;
    let read_back = match opts.get(Key::DoVerify) {
        None => true,
        Some(option) => flag_option(name(Key::DoVerify), &option.value)?,
    };
    let fatal = flag(Key::VerifyFatal)?;
    let count = |key: Key| -> anyhow::Result<u64> {
        let Some(option) = opts.get(key) else {
            return Ok(0);
        };
        let text = option.value.trim();
        text.parse::<u64>()
            .ok()
            .or_else(|| parse_size_bytes(text))
            .ok_or_else(|| {
                usage!(
                    "{} {text:?} is not a number of blocks; use e.g. 1024 (0: none)",
                    name(key)
                )
            })
    };
    let backlog = match (count(Key::VerifyBacklog)?, count(Key::VerifyBacklogBatch)?) {
        (0, _) => None,
        (every, 0) => Some(crate::bench::verify::BacklogSpec {
            every,
            batch: every,
        }),
        (every, batch) => Some(crate::bench::verify::BacklogSpec { every, batch }),
    };
    let (text, verify) = opts.value(Key::Verify);
    let kind = match text.trim() {
        "0" | "none" | "" => None,
        other => Some(crate::bench::verify::Kind::parse(other).ok_or_else(|| {
            usage!("{verify} {other:?} is not a verify kind; use crc32c, xxhash, sha256 or pattern")
        })?),
    };
    let Some(kind) = kind else {
        if let Some(key) = [(Key::VerifyOnly, only), (Key::VerifyFatal, fatal)]
            .into_iter()
            .find_map(|(key, on)| on.then_some(key))
        {
            return Err(usage!(
                "{} needs {verify} KIND (crc32c, xxhash, sha256 or pattern)",
                name(key)
            ));
        }
        return Ok(None);
    };
    let read_pct = rw.read_pct(rwmixread_pct);
    let rw_name = name(Key::Rw);
    if only && read_pct != 100 {
        return Err(usage!(
            "{} reads back a written set, and {rw_name} {} writes; use {rw_name} read or \
             randread",
            name(Key::VerifyOnly),
            rw.as_str()
        ));
    }
    if !only && read_pct == 100 {
        return Err(usage!(
            "{verify} on a read job checks what a --verify write left: add {} 1, or write first \
             (e.g. {rw_name} write {verify} {})",
            name(Key::VerifyOnly),
            kind.as_str()
        ));
    }
    if !only && rw.trims() {
        return Err(usage!(
            "{verify} needs a job that writes, or writes and reads ({rw_name} {} trims, which \
             a read-back cannot tell from its writes); use {rw_name} write, randwrite or \
             randrw",
            rw.as_str()
        ));
    }
    if bssplit {
        return Err(usage!(
            "{verify} with {}: a smaller block written over part of a larger one would fail \
             its check; use one {}",
            name(Key::BsSplit),
            name(Key::Bs)
        ));
    }
    if distribution != Distribution::Uniform {
        return Err(usage!(
            "{verify} writes each block once per pass, so {} does not apply; drop one",
            name(Key::RandomDistribution)
        ));
    }
    let bare =
        kind == crate::bench::verify::Kind::Pattern && opts.get(Key::VerifyPattern).is_some();
    if !bare && block_size_bytes < crate::bench::verify::HEADER_LEN as u64 {
        return Err(usage!(
            "{verify} needs blocks of at least {} bytes for its header; raise {}",
            crate::bench::verify::HEADER_LEN,
            name(Key::Bs)
        ));
    }
    let interval = verify_interval(opts, block_size_bytes, bare)?;
    Ok(Some(VerifySpec {
        kind,
        only,
        fatal,
        read_back,
        interval,
        backlog: backlog.filter(|_| !only),
    }))
}

/// fio's `verify_interval`: a header every this many bytes within a block (0: one per block).
/// `bare` is `verify=pattern` with a pattern, whose pieces carry no header.
fn verify_interval(opts: &Options<'_>, block_size_bytes: u64, bare: bool) -> anyhow::Result<u32> {
    let name = |key: Key| Name {
        key,
        origin: opts.get(key).map(|o| &o.origin),
    };
    Ok(match opts.get(Key::VerifyInterval) {
        None => 0,
        Some(option) => {
            let what = name(Key::VerifyInterval);
            let text = option.value.as_str();
            let bytes = crate::units::parse_size_bytes(text)
                .ok_or_else(|| usage!("{what} {text:?} is not a size; use e.g. 512 or 4k"))?;
            let bytes = Some(bytes)
            .filter(|&b| b > 0 && b <= block_size_bytes && block_size_bytes % b == 0)
            .ok_or_else(|| {
                usage!(
                    "{what} {text:?} does not divide the block size {block_size_bytes}; use a size \
                     that does, e.g. 512"
                )
            })?;
            if !bare && bytes < crate::bench::verify::HEADER_LEN as u64 {
                return Err(usage!(
                    "{what} {text:?} is shorter than the {}-byte verify header; use at least {}",
                    crate::bench::verify::HEADER_LEN,
                    crate::bench::verify::HEADER_LEN
                ));
            }
            if bytes == block_size_bytes {
                0
            } else {
                u32::try_from(bytes).unwrap_or(0)
            }
        }
    })
}

/// fio's `verify_pattern`, kept as hex and `%o`; a verifying job only (fio fills the buffers
/// of any job with it, which `buffer_pattern` does here).
fn verify_pattern_option(
    opts: &Options<'_>,
    verify: Option<&VerifySpec>,
) -> anyhow::Result<Option<crate::bench::verify::Pattern>> {
    let Some(option) = opts.get(Key::VerifyPattern) else {
        return Ok(None);
    };
    let what = Name {
        key: Key::VerifyPattern,
        origin: Some(&option.origin),
    };
    let text = option.value.as_str();
    let pattern = crate::bench::verify::Pattern::parse(text).ok_or_else(|| {
        usage!(
            "{what} {text:?} is not a pattern; use 0x and hex digits, and %o for the block's \
             offset (e.g. 0xaa555aa5)"
        )
    })?;
    if verify.is_none() {
        return Err(usage!(
            "{what} {text:?} fills verify blocks; add verify (meta or pattern), or use \
             buffer_pattern for the data of a job that does not verify"
        ));
    }
    Ok(Some(pattern))
}

/// fio's io_uring options. Each asks for something only io_uring has, so another engine (or
/// the page cache, for polling) is refused rather than run without it.
fn uring_options(
    opts: &Options<'_>,
    engine: EngineKind,
    direct: bool,
    cpus: &[usize],
) -> anyhow::Result<UringOptions> {
    let defaults = UringOptions::default();
    let flag = |key: Key, default: bool| -> anyhow::Result<bool> {
        match opts.get(key) {
            None => Ok(default),
            Some(option) => flag_option(
                Name {
                    key,
                    origin: Some(&option.origin),
                },
                &option.value,
            ),
        }
    };
    let options = UringOptions {
        hipri: flag(Key::Hipri, defaults.hipri)?,
        sqpoll: flag(Key::SqThreadPoll, defaults.sqpoll)?,
        sqpoll_cpu: None,
        fixed_bufs: flag(Key::FixedBufs, defaults.fixed_bufs)?,
        register_files: flag(Key::RegisterFiles, defaults.register_files)?,
        nonvectored: flag(Key::NonVectored, defaults.nonvectored)?,
    };
    let name = |key: Key| Name {
        key,
        origin: opts.get(key).map(|o| &o.origin),
    };
    if engine != EngineKind::IoUring {
        let asked = [
            (Key::Hipri, options.hipri),
            (Key::SqThreadPoll, options.sqpoll),
            (
                Key::SqThreadPollCpu,
                opts.get(Key::SqThreadPollCpu).is_some(),
            ),
        ];
        if let Some((key, _)) = asked.into_iter().find(|(_, on)| *on) {
            let engine_name = name(Key::IoEngine);
            return Err(usage!(
                "{} needs io_uring, not {engine_name} {}; use {engine_name} io_uring or drop {}",
                name(key),
                engine.as_str(),
                name(key)
            ));
        }
    }
    if options.hipri && !direct {
        return Err(usage!(
            "{} polls for O_DIRECT completions, and this job goes through the page cache; \
             drop {} or the buffered option",
            name(Key::Hipri),
            name(Key::Hipri)
        ));
    }
    let sqpoll_cpu = match opts.get(Key::SqThreadPollCpu) {
        None => None,
        Some(option) => {
            let cpu_name = name(Key::SqThreadPollCpu);
            if !options.sqpoll {
                return Err(usage!(
                    "{cpu_name} places the submission thread, which only {} starts; add {} 1 \
                     or drop {cpu_name}",
                    name(Key::SqThreadPoll),
                    name(Key::SqThreadPoll)
                ));
            }
            let text = option.value.trim();
            match text.parse::<usize>() {
                Ok(cpu) if cpus.contains(&cpu) => Some(cpu),
                Ok(cpu) => {
                    return Err(usage!(
                        "{cpu_name} {cpu} is not a CPU this process may use; use one of {}",
                        format_cpu_list(cpus)
                    ));
                }
                Err(_) => {
                    return Err(usage!(
                        "{cpu_name} {text:?} is not a CPU number; use one of {}",
                        format_cpu_list(cpus)
                    ));
                }
            }
        }
    };
    Ok(UringOptions {
        sqpoll_cpu,
        ..options
    })
}

/// Steady state (`--ss`, `--ss-dur`, `--ss-ramp`, `--ss-keep-going`) and `--cliff`. fio turns
/// steady state on with `ss_dur` (its criterion defaulting to `iops_slope:0.01%`); a criterion
/// without a window, or settings without a runtime cap, are refused rather than ignored.
fn steady_options(
    opts: &Options<'_>,
    runtime: Duration,
) -> anyhow::Result<(Option<crate::stats::steady::SteadyState>, f64)> {
    use crate::stats::steady::{Criterion, CriterionError, SteadyState};
    let (text, name) = opts.value(Key::Cliff);
    let cliff_pct = match text.trim().trim_end_matches('%').trim().parse::<f64>() {
        Ok(pct) if pct > 0.0 && pct < 100.0 => pct,
        _ => {
            return Err(usage!(
                "{name} {text:?} is not a drop in percent; use above 0 and below 100, e.g. 30%"
            ));
        }
    };
    let criterion = match opts.get(Key::SteadyState) {
        None => None,
        Some(_) => {
            let (text, name) = opts.text(Key::SteadyState, "");
            Some(Criterion::parse(text).map_err(|e| match e {
                CriterionError::Syntax => usage!(
                    "{name} {text:?} is not a criterion; use iops, iops_slope, bw, bw_slope, lat or lat_slope and a limit, e.g. iops_slope:0.3% or bw:2%"
                ),
                CriterionError::Limit => usage!(
                    "{name} {text:?}: the limit must be a number above 0, a percentage of the mean (iops:2%), bytes/s for bw (bw:10M), a time for lat (lat:50us)"
                ),
            })?)
        }
    };
    let named = |key: Key| Name {
        key,
        origin: opts.get(key).map(|o| &o.origin),
    };
    let Some(_) = opts.get(Key::SsDur) else {
        let given = [Key::SteadyState, Key::SsRamp, Key::SsKeepGoing]
            .into_iter()
            .find(|k| opts.get(*k).is_some());
        if let Some(key) = given {
            let (text, name) = opts.text(key, "");
            let given = if key == Key::SsKeepGoing {
                name.to_string()
            } else {
                format!("{name} {text:?}")
            };
            return Err(usage!(
                "{given} needs a steady-state window; add {}30s (any whole seconds)",
                Name {
                    key: Key::SsDur,
                    origin: Some(&opts.get(key).expect("given").origin),
                }
                .bare()
            ));
        }
        return Ok((None, cliff_pct));
    };
    let (text, name) = opts.text(Key::SsDur, "");
    let dur = duration_option(name, text, "e.g. 30s or 5m", MAX_RUN_TIME)?;
    if dur < Duration::from_secs(2) || dur.subsec_nanos() != 0 {
        return Err(usage!(
            "{name} {text:?} must be whole seconds, at least 2 (one sample a second); use e.g. 30s"
        ));
    }
    let (text, name) = opts.value(Key::SsRamp);
    let ramp = duration_option(name, text, "e.g. 10s", MAX_RUN_TIME)?;
    let (text, name) = opts.value(Key::SsKeepGoing);
    let keep_going = flag_option(name, text)?;
    if runtime >= MAX_RUN_TIME {
        let runtime_name = named(Key::Runtime).bare();
        return Err(usage!(
            "{} needs a runtime cap to stop at when steady state is not reached; add {runtime_name}10m (or the longest run you accept)",
            named(Key::SsDur)
        ));
    }
    Ok((
        Some(SteadyState {
            criterion: criterion.unwrap_or(Criterion::FIO_DEFAULT),
            dur,
            ramp,
            keep_going,
        }),
        cliff_pct,
    ))
}

impl JobSpec {
    /// The options mostly fio's job files and command line set (error classes, layout,
    /// written blocks' contents,
    /// metadata files, priorities, buffer pattern, latency target, sg mode).
    fn fio_only_options(&self, out: &mut Vec<(Key, String)>) {
        if self.errors.any() {
            out.push((Key::ContinueOnError, self.errors.classes_text().to_string()));
        }
        if self.errors.lists.iter().any(|l| !l.is_empty()) {
            out.push((Key::IgnoreError, self.errors.lists_text()));
        }
        if self.fallocate != Fallocate::Native {
            out.push((Key::Fallocate, self.fallocate.as_str().to_string()));
        }
        if self.fill_device {
            out.push((Key::FillDevice, "1".to_string()));
        }
        if let crate::bench::spec::BufferData::Shaped(shape) = self.data {
            out.push((Key::DedupePercentage, shape.dedupe_pct.to_string()));
            if shape.dedupe_pct > 0 {
                let mode = match shape.mode {
                    crate::bench::buffer::DedupeMode::Repeat => "repeat",
                    crate::bench::buffer::DedupeMode::WorkingSet => "working_set",
                };
                out.push((Key::DedupeMode, mode.to_string()));
                if shape.mode == crate::bench::buffer::DedupeMode::WorkingSet {
                    out.push((Key::DedupeWorkingSet, shape.working_set_pct.to_string()));
                }
            }
            out.push((Key::CompressPercentage, shape.compress_pct.to_string()));
            if shape.compress_pct > 0 {
                out.push((Key::CompressChunk, shape.chunk_bytes.to_string()));
            }
        }
        if let Some(files) = &self.meta {
            out.push((Key::NrFiles, files.count.to_string()));
            if self.ioengine == EngineKind::FileStat {
                out.push((Key::StatType, files.stat.as_str().to_string()));
            }
        }
        self.prio_options(out);
        if let Some(pattern) = &self.verify_pattern {
            out.push((Key::VerifyPattern, pattern.text()));
        }
        if let Some(interval) = self.verify.map(|v| v.interval).filter(|&i| i > 0) {
            out.push((Key::VerifyInterval, interval.to_string()));
        }
        if let Some(pattern) = &self.buffer_pattern {
            out.push((Key::BufferPattern, hex_of(pattern)));
        }
        self.latency_options(out);
        if let Some(mode) = self.sg {
            out.push((Key::SgWriteMode, mode.as_str().to_string()));
        }
    }

    /// The latency target's options, as [`latency_options`] reads them back.
    fn latency_options(&self, out: &mut Vec<(Key, String)>) {
        let us = |d: Duration| format!("{}us", d.as_micros());
        if let Some(t) = self.latency_target {
            out.push((Key::LatencyTarget, us(t.target)));
            out.push((Key::LatencyWindow, us(t.window)));
            out.push((Key::LatencyPercentile, t.percentile.to_string()));
            out.push((Key::LatencyRun, u8::from(t.keep_running).to_string()));
        }
    }

    /// The priority and NUMA options, as [`prio_options`] reads them back.
    fn prio_options(&self, out: &mut Vec<(Key, String)>) {
        use crate::bench::prio::{CmdPrioEntry, format_nodes};
        if let Some(ioprio) = self.ioprio {
            out.push((Key::PrioClass, (ioprio >> 13).to_string()));
            out.push((Key::Prio, (ioprio & 0xff).to_string()));
        }
        if let Some(cmdprio) = &self.cmdprio {
            let side = |rules: &[CmdPrioEntry]| {
                rules
                    .iter()
                    .map(|r| {
                        format!(
                            "{}/{}/{}/{}",
                            format_size_short(u64::from(r.bs.unwrap_or(0))),
                            r.pct,
                            r.ioprio >> 13,
                            r.ioprio & 0xff
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(":")
            };
            let every_size = cmdprio
                .read
                .iter()
                .chain(&cmdprio.write)
                .all(|r| r.bs.is_none());
            if every_size {
                let one = |rules: &[CmdPrioEntry]| {
                    rules.first().map_or((0, 1 << 13), |r| (r.pct, r.ioprio))
                };
                let (r, w) = (one(&cmdprio.read), one(&cmdprio.write));
                out.push((Key::CmdPrioPercentage, format!("{},{}", r.0, w.0)));
                out.push((Key::CmdPrioClass, format!("{},{}", r.1 >> 13, w.1 >> 13)));
                out.push((Key::CmdPrio, format!("{},{}", r.1 & 0xff, w.1 & 0xff)));
            } else {
                out.push((
                    Key::CmdPrioBsSplit,
                    format!("{},{}", side(&cmdprio.read), side(&cmdprio.write)),
                ));
            }
        }
        if let Some(nodes) = &self.numa_cpu_nodes {
            out.push((Key::NumaCpuNodes, format_nodes(nodes)));
        }
        if let Some(policy) = &self.numa_mem_policy {
            out.push((Key::NumaMemPolicy, policy.as_text()));
        }
    }

    /// The job as options, each as [`validate`] reads it back exactly; `origin` names them.
    #[must_use]
    pub(crate) fn to_options(&self, origin: &Origin) -> Vec<JobOption> {
        let us = |d: Duration| format!("{}us", d.as_micros());
        let mut out = vec![
            (Key::Rw, self.rw_text()),
            (Key::RwMixRead, self.rwmixread_pct.to_string()),
            (Key::Bs, self.block_size_bytes.to_string()),
            (Key::IoDepth, self.iodepth.to_string()),
            (Key::NumJobs, self.numjobs.to_string()),
            (Key::IoEngine, self.ioengine.as_str().to_string()),
            (Key::IoDepthBatch, self.iodepth_batch.to_string()),
            (
                Key::IoDepthBatchComplete,
                self.iodepth_batch_complete.to_string(),
            ),
            (
                Key::IoDepthBatchCompleteMin,
                self.iodepth_batch_complete_min.to_string(),
            ),
            (Key::Direct, u8::from(self.direct).to_string()),
            (Key::Runtime, us(self.runtime)),
            (Key::Ramp, us(self.ramp)),
            (Key::Interval, us(self.interval)),
        ];
        if self.iodepth_low < self.iodepth {
            out.push((Key::IoDepthLow, self.iodepth_low.to_string()));
        }
        if self.size_explicit {
            out.push((Key::Size, self.size_bytes.to_string()));
        }
        match self.sync_every {
            Some(SyncEvery::Fsync(n)) => out.push((Key::Fsync, n.to_string())),
            Some(SyncEvery::Fdatasync(n)) => out.push((Key::Fdatasync, n.to_string())),
            None => {}
        }
        if let Some(sync) = self.open_sync {
            out.push((Key::Sync, sync.as_str().to_string()));
        }
        if let Some(cpus) = &self.cpus {
            out.push((Key::Cpus, format_cpu_list(cpus)));
        }
        if self.offset_bytes > 0 {
            out.push((Key::Offset, self.offset_bytes.to_string()));
        }
        if self.offset_increment_bytes > 0 {
            out.push((
                Key::OffsetIncrement,
                self.offset_increment_bytes.to_string(),
            ));
        }
        if let Some(bytes) = self.io_size_bytes {
            out.push((Key::IoSize, bytes.to_string()));
        }
        if !self.startdelay.is_zero() {
            out.push((Key::StartDelay, us(self.startdelay)));
        }
        if let Some(seed) = self.randseed {
            out.push((Key::RandSeed, seed.to_string()));
        }
        if self.end_fsync {
            out.push((Key::EndFsync, "1".to_string()));
        }
        if !self.cpus_split {
            out.push((Key::CpusPolicy, "shared".to_string()));
        }
        if self.distribution != Distribution::Uniform {
            out.push((Key::RandomDistribution, self.distribution.as_text()));
        }
        if !self.random_map {
            out.push((Key::NoRandomMap, "1".to_string()));
        }
        if !self.invalidate {
            out.push((Key::Invalidate, "0".to_string()));
        }
        if self.fadvise != Fadvise::ByPattern {
            out.push((Key::FadviseHint, self.fadvise.as_str().to_string()));
        }
        if self.iomem != IoMem::Huge {
            out.push((Key::IoMem, self.iomem.as_str().to_string()));
        }
        self.fio_only_options(&mut out);
        if self.random_generator != Generator::Tausworthe {
            out.push((
                Key::RandomGenerator,
                self.random_generator.as_str().to_string(),
            ));
        }
        if let Some(ss) = &self.steady {
            out.push((Key::SteadyState, ss.criterion.to_string()));
            out.push((Key::SsDur, us(ss.dur)));
            out.push((Key::SsRamp, us(ss.ramp)));
            out.push((Key::SsKeepGoing, u8::from(ss.keep_going).to_string()));
        }
        if (self.cliff_pct - crate::bench::spec::DEFAULT_CLIFF_PCT).abs() > f64::EPSILON {
            out.push((Key::Cliff, format!("{}%", self.cliff_pct)));
        }
        if let Some(split) = &self.bssplit {
            out.push((Key::BsSplit, split.as_text()));
        }
        let uring = UringOptions::default();
        for (key, on, default) in [
            (Key::Hipri, self.uring.hipri, uring.hipri),
            (Key::SqThreadPoll, self.uring.sqpoll, uring.sqpoll),
            (Key::FixedBufs, self.uring.fixed_bufs, uring.fixed_bufs),
            (
                Key::RegisterFiles,
                self.uring.register_files,
                uring.register_files,
            ),
            (Key::NonVectored, self.uring.nonvectored, uring.nonvectored),
        ] {
            if on != default {
                out.push((key, u8::from(on).to_string()));
            }
        }
        if let Some(cpu) = self.uring.sqpoll_cpu {
            out.push((Key::SqThreadPollCpu, cpu.to_string()));
        }
        if let Some(verify) = &self.verify {
            verify_to_options(verify, &mut out);
        }
        if let Some(rate) = &self.rate {
            let key = match rate.unit {
                Unit::Iops => Key::RateIops,
                Unit::Bytes => Key::Rate,
            };
            out.push((key, rate.as_text()));
            if rate.process != Process::Linear {
                out.push((Key::RateProcess, rate.process.as_str().to_string()));
            }
        }
        if let Some(flow) = &self.flow {
            out.push((Key::Flow, flow.weight.to_string()));
            out.push((Key::FlowId, flow.id.to_string()));
            out.push((Key::FlowSleep, us(flow.sleep)));
        }
        out.into_iter()
            .map(|(key, value)| JobOption {
                key,
                value,
                origin: origin.clone(),
            })
            .collect()
    }

    /// This job with `changes` applied, checked by the same rules as a new job.
    ///
    /// # Errors
    /// The usage error of [`validate`] for a changed option.
    pub fn with(
        &self,
        changes: impl IntoIterator<Item = JobOption>,
        machine: &MachineLimits,
    ) -> anyhow::Result<Self> {
        let mut options = self.to_options(&Origin::CommandLine);
        options.extend(changes);
        validate(&options, machine)
    }

    /// This job with its queue depth changed live to `depth`: the batching values as `given`
    /// set them (the job as its step was planned) capped to the new depth by
    /// [`cap_batching`], as a sweep's point and fio cap them, so a shallower queue and back
    /// restores them; then checked by the same rules as a new job.
    ///
    /// # Errors
    /// The usage error of [`validate`] for the new depth (named as a key pressed).
    pub(crate) fn at_depth(
        &self,
        given: &Self,
        depth: u32,
        machine: &MachineLimits,
    ) -> anyhow::Result<Self> {
        let batching = |o: &JobOption| {
            o.key == Key::IoDepthBatchComplete || DEPTH_BOUND.iter().any(|&(key, _)| key == o.key)
        };
        // A completion maximum equal to the minimum is the default, which follows the
        // minimum as capped.
        let max_given = given.iodepth_batch_complete != given.iodepth_batch_complete_min;
        let mut options: Vec<JobOption> = self
            .to_options(&Origin::CommandLine)
            .into_iter()
            .filter(|o| !batching(o))
            .collect();
        options.extend(
            given
                .to_options(&Origin::CommandLine)
                .into_iter()
                .filter(|o| batching(o) && (max_given || o.key != Key::IoDepthBatchComplete)),
        );
        options.push(JobOption::dashboard(Key::IoDepth, depth.to_string()));
        validate(&cap_batching(&options).0, machine)
    }
}

fn size_option(name: Name<'_>, text: &str, examples: &str) -> anyhow::Result<u64> {
    match parse_size_bytes(text) {
        None => Err(usage!("{name} {text:?} is not a size; use e.g. {examples}")),
        Some(0) => Err(usage!(
            "{name} {text:?} must be greater than zero; use e.g. {examples}"
        )),
        Some(bytes) => Ok(bytes),
    }
}

/// fio's `random_distribution`: `random`, `zipf:THETA` (> 0, not 1), `pareto:H` (0 < H < 1),
/// `normal:DEV` (the deviation in percent of the working set, 0 < DEV <= 100).
/// fio's `zoned:A/S:A/S...` (percent of the I/O / percent of the working set, zone by zone
/// from the start): the I/O shares add up to 100, the sizes to at most 100; a last size left
/// empty (`20/`) takes the rest of the working set.
fn zoned_option(name: Name<'_>, text: &str, value: &str) -> anyhow::Result<Distribution> {
    let fix = "use e.g. zoned:60/10:30/20:10/70 (percent of the I/O / percent of the working \
               set, zone by zone)";
    let parts: Vec<&str> = value.split(':').map(str::trim).collect();
    if parts.len() > crate::bench::spec::MAX_ZONES {
        return Err(usage!(
            "{name} {text:?}: {} zones, at most {}; {fix}",
            parts.len(),
            crate::bench::spec::MAX_ZONES
        ));
    }
    let mut zones = crate::bench::spec::Zones {
        count: 0,
        zones: [(0, 0); crate::bench::spec::MAX_ZONES],
    };
    let (mut io_sum, mut size_sum) = (0u32, 0u32);
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let (io, size) = part.split_once('/').unwrap_or((part, "?"));
        let io = io.trim().parse::<u8>().ok().filter(|p| *p <= 100);
        let size = match size.trim() {
            "" if last => u8::try_from(100u32.saturating_sub(size_sum)).ok(),
            size => size.parse::<u8>().ok().filter(|p| (1..=100).contains(p)),
        };
        let (Some(io), Some(size)) = (io, size) else {
            return Err(usage!("{name} {text:?}: zone {part:?} is not A/S; {fix}"));
        };
        io_sum += u32::from(io);
        size_sum += u32::from(size);
        zones.zones[i] = (io, size);
        zones.count += 1;
    }
    if io_sum != 100 || size_sum > 100 || size_sum == 0 {
        return Err(usage!(
            "{name} {text:?}: the I/O shares add up to {io_sum}% (must be 100) and the sizes \
             to {size_sum}% (must be 1 to 100); {fix}"
        ));
    }
    Ok(Distribution::Zoned(zones))
}

fn distribution_option(name: Name<'_>, text: &str) -> anyhow::Result<Distribution> {
    let fix = "use random, zipf:1.2, pareto:0.3, normal:10 or zoned:60/10:40/90";
    let (kind, value) = text.trim().split_once(':').unwrap_or((text.trim(), ""));
    let number = value.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    match (kind, number) {
        ("random", _) if value.is_empty() => Ok(Distribution::Uniform),
        ("zipf", Some(theta)) if theta > 0.0 && (theta - 1.0).abs() > f64::EPSILON => {
            Ok(Distribution::Zipf(theta))
        }
        ("zipf", Some(_)) => Err(usage!(
            "{name} {text:?}: zipf's theta must be above 0 and not 1; use e.g. zipf:1.2 or \
             zipf:0.8"
        )),
        ("pareto", Some(h)) if h > 0.0 && h < 1.0 => Ok(Distribution::Pareto(h)),
        ("pareto", Some(_)) => Err(usage!(
            "{name} {text:?}: pareto's h must be between 0 and 1; use e.g. pareto:0.3"
        )),
        ("zoned", _) => zoned_option(name, text, value),
        ("normal", Some(dev)) if dev > 0.0 && dev <= 100.0 => Ok(Distribution::Normal(dev)),
        ("normal", Some(_)) => Err(usage!(
            "{name} {text:?}: normal's deviation is a percentage of the working set, above 0 \
             and at most 100; use e.g. normal:10"
        )),
        _ => Err(usage!("{name} {text:?} is not a distribution; {fix}")),
    }
}

/// `1`/`0` (and `true`/`false`, `yes`/`no`).
fn flag_option(name: Name<'_>, text: &str) -> anyhow::Result<bool> {
    match text.trim() {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        other => Err(usage!("{name} {other:?} is not 1 or 0")),
    }
}

/// fio's `rate_iops` or `rate` (one of them) with `rate_process`, per worker. A cap on a
/// direction the job does not do is refused: it would pace nothing.
fn rate_option(opts: &Options<'_>, read_pct: u8) -> anyhow::Result<Option<RateLimit>> {
    let (option, unit) = match (opts.get(Key::RateIops), opts.get(Key::Rate)) {
        (None, None) => return Ok(None),
        (Some(iops), Some(bytes)) => {
            let iops = Name {
                key: Key::RateIops,
                origin: Some(&iops.origin),
            };
            let bytes = Name {
                key: Key::Rate,
                origin: Some(&bytes.origin),
            };
            return Err(usage!(
                "{iops} and {bytes} cannot be combined; cap I/Os or bytes, not both"
            ));
        }
        (Some(option), None) => (option, Unit::Iops),
        (None, Some(option)) => (option, Unit::Bytes),
    };
    let name = Name {
        key: option.key,
        origin: Some(&option.origin),
    };
    let text = option.value.as_str();
    let example = match unit {
        Unit::Iops => "20000 (reads and writes), 20000,5000 or ,5000 (writes only)",
        Unit::Bytes => "100M (reads and writes), 100M,20M or ,20M (writes only)",
    };
    let (read, write) = parse_caps(text, unit).map_err(|err| match err {
        RateError::Zero => usage!(
            "{name} {text:?}: a rate of 0 paces nothing; leave the direction empty (e.g. \
             ,5000) or drop {name}"
        ),
        RateError::Suffix(value) => usage!(
            "{name} {text:?}: write the count in full ({value:?} means x1024 to fio); use e.g. \
             {example}"
        ),
        RateError::Trim => usage!(
            "{name} {text:?}: a third value caps trims, which this job does not issue; use \
             e.g. {example}"
        ),
        RateError::NotANumber(value) => {
            usage!("{name} {text:?}: {value:?} is not a rate; use e.g. {example}")
        }
        RateError::Empty => usage!("{name} {text:?} caps nothing; use e.g. {example}"),
    })?;
    let reads = read_pct > 0;
    let writes = read_pct < 100;
    let paced = |cap: Option<u64>, done: bool| cap.is_some() && done;
    if !paced(read, reads) && !paced(write, writes) {
        let (does, fix) = if reads {
            ("only reads", "give the read cap first, e.g. 20000")
        } else {
            ("only writes", "give the write cap, e.g. 20000 or ,20000")
        };
        return Err(usage!(
            "{name} {text:?} caps no direction this job does (it {does}); {fix}"
        ));
    }
    let (text, name) = opts.value(Key::RateProcess);
    let process = match text.trim() {
        "linear" => Process::Linear,
        "poisson" => Process::Poisson,
        other => {
            return Err(usage!(
                "{name} {other:?} is not a rate process; use linear or poisson"
            ));
        }
    };
    Ok(Some(RateLimit {
        unit,
        read: read.filter(|_| reads),
        write: write.filter(|_| writes),
        process,
    }))
}

/// fio's `bssplit`: `SIZE/PCT:SIZE/PCT...`, one list for both directions or `READ,WRITE`
/// (an empty side uses `bs`). Entries without a share split what the others leave evenly, as
/// in fio; the shares of a side sum to 100. A `bs` changed in the dashboard after the split
/// replaces it; otherwise the split wins over `bs`, as in fio.
fn bssplit_option(options: &[JobOption], bs: u64) -> anyhow::Result<Option<BsSplit>> {
    let Some(at) = options.iter().rposition(|o| o.key == Key::BsSplit) else {
        return Ok(None);
    };
    if options[at..]
        .iter()
        .any(|o| o.key == Key::Bs && o.origin == Origin::Dashboard)
    {
        return Ok(None);
    }
    let option = &options[at];
    let name = Name {
        key: Key::BsSplit,
        origin: Some(&option.origin),
    };
    let text = option.value.as_str();
    let fix = "use e.g. 4k/50:64k/30:1M/20, or READ,WRITE such as 4k/70:8k/30,64k/100";
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 || parts.get(2).is_some_and(|t| !t.is_empty()) {
        return Err(usage!(
            "{name} {text:?}: a third list splits trims, which this job does not issue; {fix}"
        ));
    }
    let side = |part: &str| -> anyhow::Result<Vec<(u64, u8)>> {
        if part.is_empty() {
            return Ok(vec![(bs, 100)]);
        }
        let mut sized: Vec<(u64, Option<u32>)> = Vec::new();
        for entry in part.split(':').map(str::trim) {
            let (size, pct) = entry.split_once('/').unwrap_or((entry, ""));
            let bytes = match parse_size_bytes(size) {
                Some(0) | None => {
                    return Err(usage!(
                        "{name} {text:?}: {size:?} is not a block size; {fix}"
                    ));
                }
                Some(bytes) if bytes > MAX_BLOCK_SIZE_BYTES => {
                    return Err(usage!(
                        "{name} {text:?}: {size} is too large; use at most {}",
                        format_size_short(MAX_BLOCK_SIZE_BYTES)
                    ));
                }
                Some(bytes) => bytes,
            };
            let pct = match pct.trim() {
                "" => None,
                p => match p.parse::<u32>() {
                    Ok(p) if p <= 100 => Some(p),
                    _ => {
                        return Err(usage!(
                            "{name} {text:?}: {p:?} is not a share; use 0 to 100 after the \
                             size, e.g. 4k/50"
                        ));
                    }
                },
            };
            sized.push((bytes, pct));
        }
        let given: u32 = sized.iter().filter_map(|(_, p)| *p).sum();
        let blanks =
            u32::try_from(sized.iter().filter(|(_, p)| p.is_none()).count()).unwrap_or(u32::MAX);
        if given > 100 || (blanks == 0 && given != 100) {
            return Err(usage!(
                "{name} {text:?}: the shares of {part:?} sum to {given}, not 100; {fix}"
            ));
        }
        // What the given shares leave, evenly over the blank ones (the first take the rest).
        let each = (100 - given).checked_div(blanks).unwrap_or(0);
        let extra = (100 - given).checked_rem(blanks).unwrap_or(0);
        let mut blank = 0;
        Ok(sized
            .into_iter()
            .map(|(bytes, pct)| {
                let pct = pct.unwrap_or_else(|| {
                    blank += 1;
                    each + u32::from(blank <= extra)
                });
                (bytes, u8::try_from(pct).unwrap_or(100))
            })
            .collect())
    };
    let read = side(parts[0])?;
    let write = if parts.len() == 1 {
        read.clone()
    } else {
        side(parts[1])?
    };
    Ok(Some(BsSplit { read, write }))
}

/// A byte offset: a size, or 0.
/// A job's verification as the options that give it (see `JobSpec::to_options`).
fn verify_to_options(verify: &VerifySpec, out: &mut Vec<(Key, String)>) {
    out.push((Key::Verify, verify.kind.as_str().to_string()));
    if verify.only {
        out.push((Key::VerifyOnly, "1".to_string()));
    }
    if verify.fatal {
        out.push((Key::VerifyFatal, "1".to_string()));
    }
    if let Some(backlog) = verify.backlog {
        out.push((Key::VerifyBacklog, backlog.every.to_string()));
        out.push((Key::VerifyBacklogBatch, backlog.batch.to_string()));
    }
}

fn offset_option(name: Name<'_>, text: &str) -> anyhow::Result<u64> {
    if text.trim() == "0" {
        return Ok(0);
    }
    parse_size_bytes(text)
        .ok_or_else(|| usage!("{name} {text:?} is not a size; use e.g. 0, 64M or 1G"))
}

fn count_option(name: Name<'_>, text: &str, max: u32, examples: &str) -> anyhow::Result<u32> {
    let Ok(value) = text.trim().parse::<u64>() else {
        return Err(usage!(
            "{name} {text:?} is not a number; use e.g. {examples}"
        ));
    };
    if value == 0 {
        return Err(usage!(
            "{name} {text:?} must be at least 1; use e.g. {examples}"
        ));
    }
    if value > u64::from(max) {
        return Err(usage!("{name} {text:?} is too large; use 1 to {max}"));
    }
    Ok(u32::try_from(value).unwrap_or(max))
}

fn sync_count(name: Name<'_>, text: &str) -> anyhow::Result<Option<u32>> {
    match text.trim().parse::<u32>() {
        Ok(0) => Ok(None),
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(usage!(
            "{name} {text:?} is not a count of writes; use e.g. 1 or 32 (0 turns it off)"
        )),
    }
}

/// A duration of at most `max`; one text for "too long", whether the number overflowed or
/// only passed the bound.
fn duration_option(
    name: Name<'_>,
    text: &str,
    examples: &str,
    max: Duration,
) -> anyhow::Result<Duration> {
    let too_long =
        || usage!("{name} {text:?} is too long; use at most {MAX_RUN_TIME_TEXT}, {examples}");
    match parse_duration(text) {
        Err(DurationError::NotADuration) => Err(usage!(
            "{name} {text:?} is not a duration; use e.g. 500ms, 10s or 2m"
        )),
        Err(DurationError::TooLong) => Err(too_long()),
        Ok(duration) if duration > max => Err(too_long()),
        Ok(duration) => Ok(duration),
    }
}

/// Parses `0-3,6` and checks every CPU is one this process may use.
fn cpu_list(name: Name<'_>, text: &str, available: &[usize]) -> anyhow::Result<Vec<usize>> {
    let not_available = |cpu: usize| {
        usage!(
            "{name} {text:?}: CPU {cpu} is not available; this process may use CPUs {}",
            format_cpu_list(available)
        )
    };
    let cpus = parse_cpu_list(text).map_err(|e| match e {
        CpuListError::Syntax => usage!("{name} {text:?} is not a CPU list; use e.g. 0-3,6"),
        CpuListError::OutOfRange(cpu) => not_available(cpu),
    })?;
    if let Some(&cpu) = cpus.iter().find(|cpu| !available.contains(cpu)) {
        return Err(not_available(cpu));
    }
    Ok(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MAX_INTERVAL;

    #[test]
    fn the_table_has_one_row_per_key_in_key_order() {
        for (i, key) in Key::ALL.into_iter().enumerate() {
            assert_eq!(key as usize, i);
            assert_eq!(TABLE[i].key, key);
        }
        let mut flags: Vec<_> = TABLE.iter().map(|r| r.flag).collect();
        let mut names: Vec<_> = TABLE.iter().map(|r| r.fio).collect();
        flags.sort_unstable();
        names.sort_unstable();
        flags.dedup();
        names.dedup();
        assert_eq!((flags.len(), names.len()), (TABLE.len(), TABLE.len()));
    }

    /// fio's defaults, written as fio's command line writes them, are values the options take
    /// (so `--showcmd` leaves out only what fio would assume anyway): one job of all of them,
    /// with the steady-state window `steadystate_ramp_time` needs.
    #[test]
    fn fio_s_defaults_are_values_the_options_take() {
        let mut options: Vec<JobOption> = TABLE
            .iter()
            .filter(|row| !row.fio_default.is_empty())
            .map(|row| JobOption::flag(row.key, row.fio_default))
            .collect();
        assert!(options.len() >= 15, "{options:?}");
        for (key, value) in [
            (Key::SteadyState, "iops:1%"),
            (Key::SsDur, "30s"),
            (Key::Runtime, "60s"),
        ] {
            options.push(JobOption::flag(key, value));
        }
        let spec = validate(&options, &MachineLimits::detect());
        assert!(spec.is_ok(), "{:?}", spec.err());
    }

    /// Every row is parsed: by its own function, or with a row that has one.
    #[test]
    fn every_row_is_parsed_by_its_function_or_its_groups() {
        for row in &TABLE {
            if let Some(head) = row.parsed_with() {
                assert_ne!(head, row.key, "{} has no function", row.flag);
                assert_eq!(
                    head.row().parsed_with(),
                    None,
                    "{} with {}",
                    row.flag,
                    head.flag()
                );
            }
        }
    }

    #[test]
    fn the_table_defaults_are_what_the_validator_takes() {
        let machine = MachineLimits::detect();
        let base = format!("{:?}", validate(&[], &machine).unwrap());
        for row in TABLE.iter().filter(|r| !r.default.is_empty()) {
            let given = validate(&[JobOption::flag(row.key, row.default)], &machine)
                // Only whether --size was given differs (a given size is not lowered).
                .map(|spec| {
                    format!("{spec:?}").replace("size_explicit: true", "size_explicit: false")
                });
            if let Ok(given) = given {
                assert_eq!(given, base, "{}", row.flag);
            }
        }
    }

    #[test]
    fn fio_defaults_leave_nothing_unlike_fio_and_each_one_counts() {
        let machine = machine();
        let spread = flags(&["--numjobs", "2", "--cpus", "0-1"]);
        let spec = validate(&spread, &machine).unwrap();
        assert_eq!(
            unlike_fio(&spec),
            [
                "iomem=huge (fio: malloc)",
                "fixedbufs=1 (fio: 0)",
                "registerfiles=1 (fio: 0)",
                "cpus_allowed_policy=split (fio: shared)",
            ]
        );
        let line = unlike_fio_line(&spec).unwrap();
        assert!(
            line.starts_with(UNLIKE_FIO) && !line.contains('\n'),
            "{line}"
        );
        let mut options = fio_defaults();
        options.extend(spread.iter().cloned());
        let spec = validate(&options, &machine).unwrap();
        assert!(unlike_fio(&spec).is_empty());
        assert_eq!(unlike_fio_line(&spec), None);
        // Each of fio's defaults alone takes its own setting off the line.
        for (n, default) in fio_defaults().into_iter().enumerate() {
            let mut options = spread.clone();
            options.push(default);
            let left = unlike_fio(&validate(&options, &machine).unwrap());
            assert_eq!(left.len(), 3, "{n}: {left:?}");
        }
        // fio's engine is psync: no ring, nothing registered to say.
        let psync = validate(
            &flags(&["--ioengine", "psync", "--iomem", "malloc"]),
            &machine,
        )
        .unwrap();
        assert_eq!(unlike_fio_line(&psync), None);
    }

    /// Options as `bench` flags: `--bs 4k`, `--bs=4k`, `-q 8`, `--buffered`.
    fn flags(argv: &[&str]) -> Vec<JobOption> {
        let mut out = Vec::new();
        let mut words = argv.iter();
        while let Some(word) = words.next() {
            let (flag, inline) = match word.split_once('=') {
                Some((flag, value)) => (flag, Some(value.to_string())),
                None => (*word, None),
            };
            let flag = match flag {
                "-q" => "--iodepth",
                "-j" => "--numjobs",
                other => other,
            };
            if flag == "--buffered" || flag == "--direct" {
                out.push(JobOption::flag(
                    Key::Direct,
                    if flag == "--direct" { "1" } else { "0" },
                ));
                continue;
            }
            let key = *Key::ALL
                .iter()
                .find(|k| k.flag() == flag)
                .unwrap_or_else(|| panic!("no option {flag}"));
            let value = inline.unwrap_or_else(|| words.next().expect("a value").to_string());
            out.push(JobOption::flag(key, value));
        }
        out
    }

    /// A depth changed live caps the batching values the job was given, as a sweep's point at
    /// that depth does: a shallower queue and back restores them.
    #[test]
    fn a_depth_changed_live_caps_the_given_batching_as_a_sweep_point_does() {
        let argv = [
            "-q",
            "32",
            "--iodepth-batch",
            "8",
            "--iodepth-batch-complete-min",
            "4",
            "--iodepth-low",
            "16",
        ];
        let given = parse(&argv).unwrap();
        let batching = |s: &JobSpec| {
            (
                s.iodepth,
                s.iodepth_batch,
                s.iodepth_batch_complete_min,
                s.iodepth_batch_complete,
                s.iodepth_low,
            )
        };
        let shallow = given.at_depth(&given, 2, &machine()).unwrap();
        assert_eq!(batching(&shallow), (2, 2, 2, 2, 2));
        let mut point = flags(&argv);
        point.push(JobOption::flag(Key::IoDepth, "2"));
        let point = validate(&cap_batching(&point).0, &machine()).unwrap();
        assert_eq!(shallow, point);
        assert_eq!(shallow.at_depth(&given, 32, &machine()).unwrap(), given);
        let deeper = shallow.at_depth(&given, 64, &machine()).unwrap();
        assert_eq!(batching(&deeper), (64, 8, 4, 4, 16));
        let refused = given.at_depth(&given, 32_768, &machine()).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "iodepth \"32768\" is too large; use 1 to 16384"
        );
        // A watermark not set follows the depth: the queue is kept full.
        let full = parse(&["-q", "8"]).unwrap();
        assert_eq!(
            full.at_depth(&full, 64, &machine()).unwrap().iodepth_low,
            64
        );
    }

    fn machine() -> MachineLimits {
        MachineLimits {
            available_cpus: vec![0, 1],
            memory_bytes: 24 << 30,
        }
    }

    fn parse(extra: &[&str]) -> Result<JobSpec, String> {
        validate(&flags(extra), &machine()).map_err(|e| {
            assert_eq!(crate::error::exit_code(&e), 2, "usage error expected: {e}");
            e.to_string()
        })
    }

    #[test]
    fn completion_batching_keeps_fio_s_meaning() {
        let spec = parse(&[]).unwrap();
        assert_eq!((spec.iodepth_batch_complete_min, spec.iodepth_low), (1, 32));
        // fio's maximum defaults to the minimum; 0 polls (with a maximum: fio's polling
        // mode, both 0, is refused); iodepth_low 0 is iodepth.
        let spec = parse(&["--iodepth-batch-complete-min", "8"]).unwrap();
        assert_eq!(
            (spec.iodepth_batch_complete_min, spec.iodepth_batch_complete),
            (8, 8)
        );
        let polls = [
            "--iodepth-batch-complete-min",
            "0",
            "--iodepth-batch-complete",
            "4",
            "--iodepth-low",
            "0",
        ];
        let spec = parse(&polls).unwrap();
        assert_eq!(
            (spec.iodepth_batch_complete_min, spec.iodepth_batch_complete),
            (0, 4)
        );
        assert_eq!(spec.iodepth_low, 32);
        let refused = parse(&["--iodepth-batch-complete-min", "0"]).unwrap_err();
        assert!(refused.contains("fio's polling mode"), "{refused}");
        // Both given as 0 is the same mode, refused with the same sentence (not as a
        // maximum under 1).
        let refused = parse(&[
            "--iodepth-batch-complete-min",
            "0",
            "--iodepth-batch-complete",
            "0",
        ])
        .unwrap_err();
        assert!(refused.contains(" 0 with "), "{refused}");
        assert!(refused.contains("fio's polling mode"), "{refused}");
        assert!(!refused.contains("at least 1"), "{refused}");
        let spec = parse(&[
            "--iodepth-batch-complete-min",
            "4",
            "--iodepth-batch-complete",
            "16",
            "--iodepth-low",
            "8",
        ])
        .unwrap();
        assert_eq!(
            (
                spec.iodepth_batch_complete_min,
                spec.iodepth_batch_complete,
                spec.iodepth_low
            ),
            (4, 16, 8)
        );
        // The job read back from its options is the same job.
        let again = validate(&spec.to_options(&Origin::CommandLine), &machine()).unwrap();
        assert_eq!(again, spec);
        let record = crate::record::JobRecord::from(&spec);
        assert_eq!(
            (record.iodepth_batch_complete_min, record.iodepth_low),
            (4, Some(8))
        );
    }

    /// fio's fixups: above the depth lowered, a maximum under the minimum raised (after the
    /// caps, so never above the depth); fio's defaults alone change nothing.
    #[test]
    fn fio_batching_lowers_and_raises_as_fio_and_says_so() {
        let option = |key, value: &str, origin: Origin| JobOption {
            key,
            value: value.to_string(),
            origin,
        };
        let file = || Origin::File {
            path: "j.fio".to_string(),
            line: 3,
            alias: None,
        };
        let used = |options: &[JobOption], key| Options(options).get(key).unwrap().value.clone();
        let (adjusted, note) = fio_batching(&[
            option(Key::IoDepth, "8", file()),
            option(Key::IoDepthBatchCompleteMin, "16", file()),
            option(Key::IoDepthBatchComplete, "4", file()),
        ]);
        assert_eq!(used(&adjusted, Key::IoDepthBatchCompleteMin), "8");
        assert_eq!(used(&adjusted, Key::IoDepthBatchComplete), "8");
        assert_eq!(
            note.as_deref(),
            Some(
                "iodepth_batch_complete_min 16 -> 8 at iodepth 8; iodepth_batch_complete_max 4 \
                 -> 8 (raised to the minimum), as fio runs it"
            )
        );
        let (_, note) = fio_batching(&[
            option(Key::IoDepth, "8", file()),
            option(Key::IoDepthBatchCompleteMin, "4", file()),
            option(Key::IoDepthBatchComplete, "1", Origin::FioDefault),
        ]);
        assert_eq!(
            note, None,
            "a default maximum follows the minimum without a word"
        );
        let (adjusted, note) = fio_batching(&[
            option(Key::IoDepth, "8", file()),
            option(Key::IoDepthBatch, "0", file()),
            option(Key::IoDepthLow, "0", file()),
        ]);
        assert_eq!(
            used(&adjusted, Key::IoDepthBatch),
            "8",
            "0 submits the depth at once"
        );
        assert_eq!(used(&adjusted, Key::IoDepthLow), "8", "0 is the depth");
        assert_eq!(note, None);
        // fio's maximum has no default of its own: 0 given is raised to the minimum (1).
        let (adjusted, note) = fio_batching(&[
            option(Key::IoDepth, "8", file()),
            option(Key::IoDepthBatchComplete, "0", file()),
        ]);
        assert_eq!(used(&adjusted, Key::IoDepthBatchComplete), "1");
        assert_eq!(
            note.as_deref(),
            Some("iodepth_batch_complete_max 0 -> 1 (raised to the minimum), as fio runs it")
        );
    }

    #[test]
    fn batching_above_a_points_depth_is_capped_to_it_and_said_in_one_line() {
        let given = flags(&[
            "--iodepth",
            "2",
            "--iodepth-batch",
            "8",
            "--iodepth-batch-complete-min",
            "4",
            "--iodepth-batch-complete",
            "16",
            "--iodepth-low",
            "1",
        ]);
        // A single job with the same options is the user's contradiction: refused.
        let refused = validate(&given, &machine()).unwrap_err().to_string();
        assert_eq!(refused, "--iodepth-batch 8 exceeds --iodepth 2; use 1 to 2");
        let (capped, note) = cap_batching(&given);
        assert_eq!(
            note.as_deref(),
            Some("iodepth_batch 8 -> 2, iodepth_batch_complete_min 4 -> 2 at iodepth 2")
        );
        let spec = validate(&capped, &machine()).unwrap();
        assert_eq!(
            (
                spec.iodepth_batch,
                spec.iodepth_batch_complete,
                spec.iodepth_batch_complete_min,
                spec.iodepth_low
            ),
            (2, 16, 2, 1),
            "a completion maximum above the depth is valid: it takes what is there"
        );
        // The capped values keep their origin: later errors name them as the user did.
        assert!(
            capped[given.len()..]
                .iter()
                .all(|o| o.origin == Origin::CommandLine)
        );
        // A low watermark above the depth is at most the depth (the queue kept full).
        let (capped, note) = cap_batching(&flags(&["-q", "4", "--iodepth-low", "16"]));
        assert_eq!(note.as_deref(), Some("iodepth_low 16 -> 4 at iodepth 4"));
        assert_eq!(validate(&capped, &machine()).unwrap().iodepth_low, 4);
        // At or under the depth nothing changes and nothing is said.
        let deep = flags(&["-q", "32", "--iodepth-batch-complete-min", "8"]);
        assert_eq!(cap_batching(&deep), (deep.clone(), None));
        // fio's polling mode stays refused: a 0 is never above a depth.
        let polls = flags(&["-q", "1", "--iodepth-batch-complete-min", "0"]);
        let (capped, note) = cap_batching(&polls);
        assert_eq!(note, None);
        let refused = validate(&capped, &machine()).unwrap_err().to_string();
        assert!(refused.contains("fio's polling mode"), "{refused}");
        // What is not a number is left to the validator's own error.
        let bad = flags(&["-q", "deep", "--iodepth-batch", "8"]);
        assert_eq!(cap_batching(&bad), (bad.clone(), None));
        let bad = flags(&["-q", "2", "--iodepth-batch", "many"]);
        assert_eq!(cap_batching(&bad).1, None);
    }

    #[test]
    fn defaults_match_the_issue() {
        let spec = parse(&[]).unwrap();
        assert_eq!(spec, JobSpec::default());
        assert_eq!(spec.rw, RwMode::RandRead);
        assert_eq!(spec.rwmixread_pct, 50);
        assert_eq!(spec.block_size_bytes, 4096);
        assert_eq!(spec.size_bytes, 1 << 30);
        assert!(!spec.size_explicit);
        assert_eq!(spec.iodepth, 32);
        assert_eq!(spec.numjobs, 1);
        assert_eq!(spec.ioengine, EngineKind::IoUring);
        assert_eq!(spec.iodepth_batch, 1);
        assert_eq!(spec.iodepth_batch_complete, 1);
        assert!(spec.direct);
        assert_eq!(spec.runtime, Duration::from_secs(30));
        assert_eq!(spec.ramp, Duration::ZERO);
        assert_eq!(spec.interval, Duration::from_secs(1));
        assert_eq!(
            spec.describe(),
            "randread bs=4k iodepth=32 numjobs=1 io_uring direct"
        );
    }

    #[test]
    fn options_are_read() {
        let spec = parse(&[
            "--rw",
            "randrw",
            "--rwmixread",
            "70",
            "--bs",
            "1MiB",
            "--size",
            "64M",
            "-q",
            "8",
            "-j",
            "2",
            "--ioengine",
            "psync",
            "--buffered",
            "--fdatasync",
            "4",
            "--sync",
            "dsync",
            "--cpus",
            "0-1",
            "--runtime",
            "500ms",
            "--ramp",
            "2s",
            "--interval",
            "250ms",
        ])
        .unwrap();
        assert_eq!(spec.rw, RwMode::RandRw);
        assert_eq!(spec.rwmixread_pct, 70);
        assert_eq!(spec.block_size_bytes, 1 << 20);
        assert_eq!(spec.size_bytes, 64 << 20);
        assert!(spec.size_explicit);
        assert_eq!((spec.iodepth, spec.numjobs), (8, 2));
        assert_eq!(spec.effective_iodepth(), 1);
        assert!(!spec.direct);
        assert_eq!(spec.sync_every, Some(SyncEvery::Fdatasync(4)));
        assert_eq!(spec.open_sync, Some(OpenSync::Dsync));
        assert_eq!(spec.cpus, Some(vec![0, 1]));
        assert_eq!(spec.runtime, Duration::from_millis(500));
        assert_eq!(spec.ramp, Duration::from_secs(2));
        assert!(spec.reads() && spec.writes());
        assert_eq!(
            spec.describe(),
            "randrw bs=1M iodepth=8 numjobs=2 psync buffered rwmixread=70 fdatasync=4 sync=dsync"
        );
        assert_eq!(parse(&["--fsync", "0"]).unwrap().sync_every, None);
        assert_eq!(parse(&["--rw", "readwrite"]).unwrap().rw, RwMode::Rw);
    }

    #[test]
    fn every_bad_workload_value_names_itself_and_the_fix() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["--rw", "randomread"],
                r#"--rw "randomread" is not a workload; use read, write, randread, randwrite, rw, randrw, trim, randtrim or trimwrite"#,
            ),
            (
                &["--rwmixread", "150"],
                r#"--rwmixread "150" is not a percentage; use 0 to 100"#,
            ),
            (
                &["--bs", "4kk"],
                r#"--bs "4kk" is not a size; use e.g. 4k, 1M or 512"#,
            ),
            (
                &["--bs", "0"],
                r#"--bs "0" must be greater than zero; use e.g. 4k, 1M or 512"#,
            ),
            (
                &["--bs=-1"],
                r#"--bs "-1" is not a size; use e.g. 4k, 1M or 512"#,
            ),
            (
                &["--bs", "soon"],
                r#"--bs "soon" is not a size; use e.g. 4k, 1M or 512"#,
            ),
            (
                &["--bs", "1G", "--size", "2G"],
                "--bs 1G is too large; use at most 256M",
            ),
            (
                &["--size", "4kk"],
                r#"--size "4kk" is not a size; use e.g. 16M, 1G or 10G"#,
            ),
            (
                &["--size", "0"],
                r#"--size "0" must be greater than zero; use e.g. 16M, 1G or 10G"#,
            ),
            (
                &["--bs", "1M", "--size", "512k"],
                "--bs 1M is larger than --size 512k; raise --size or lower --bs",
            ),
            (
                &["--iodepth", "0"],
                r#"--iodepth "0" must be at least 1; use e.g. 1, 32 or 128"#,
            ),
            (
                &["--iodepth", "100000"],
                r#"--iodepth "100000" is too large; use 1 to 16384"#,
            ),
            (
                &["-q", "deep"],
                r#"--iodepth "deep" is not a number; use e.g. 1, 32 or 128"#,
            ),
            (
                &["--iodepth=-1"],
                r#"--iodepth "-1" is not a number; use e.g. 1, 32 or 128"#,
            ),
            (
                &["--numjobs", "0"],
                r#"--numjobs "0" must be at least 1; use e.g. 1, 2 or 4"#,
            ),
            (
                &["--numjobs", "5000"],
                r#"--numjobs "5000" is too large; use 1 to 1024"#,
            ),
            (
                &["--ioengine", "posixaio"],
                r#"--ioengine "posixaio": diskdash uses io_uring for posixaio's job: --ioengine io_uring"#,
            ),
            (
                &["--ioengine", "sync"],
                r#"--ioengine "sync": diskdash uses psync for sync's job: --ioengine psync"#,
            ),
            (
                &["--ioengine", "spdk"],
                r#"--ioengine "spdk" is not an engine; use io_uring, libaio, psync or null"#,
            ),
            (
                &["--iodepth-batch", "64"],
                "--iodepth-batch 64 exceeds --iodepth 32; use 1 to 32",
            ),
            (
                &["--iodepth-batch-complete-min", "33"],
                "--iodepth-batch-complete-min 33 exceeds --iodepth 32; use 0 to 32",
            ),
            (
                &["--iodepth-batch-complete-min", "few"],
                r#"--iodepth-batch-complete-min "few" is not a number; use e.g. 0, 1 or 8"#,
            ),
            (
                &[
                    "--iodepth-batch-complete-min",
                    "8",
                    "--iodepth-batch-complete",
                    "4",
                ],
                "--iodepth-batch-complete-min 8 exceeds --iodepth-batch-complete 4; raise \
                 --iodepth-batch-complete or lower --iodepth-batch-complete-min",
            ),
            (
                &["-q", "4", "--iodepth-low", "8"],
                "--iodepth-low 8 exceeds --iodepth 4; use 0 to 4",
            ),
            (
                &["--bs", "256M", "-q", "64"],
                "--bs 256M x --iodepth 64 x --numjobs 1 needs an estimated 16.0 GiB of memory (I/O buffers 16 GiB, 64 queue slots 16 KiB, 1 worker 6.5 MiB), more than half of this machine's 24 GiB; lower --iodepth, --numjobs or --bs",
            ),
            (
                // Whole pages per buffer, and each worker's statistics and thread: 1024 workers
                // at depth 16384 are 64 GiB of 4 KiB pages, not 8 GiB of 512-byte blocks.
                &["--bs", "512", "-q", "16384", "-j", "1024"],
                "--bs 512 x --iodepth 16384 x --numjobs 1024 needs an estimated 71.9 GiB of memory (I/O buffers 64 GiB, 16777216 queue slots 4 GiB, 1024 workers 3.9 GiB), more than half of this machine's 24 GiB; lower --iodepth, --numjobs or --bs",
            ),
        ];
        for (extra, want) in cases {
            assert_eq!(parse(extra).unwrap_err(), *want, "{extra:?}");
        }
    }

    #[test]
    fn every_bad_sync_placement_or_time_names_itself_and_the_fix() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["--fsync", "1", "--fdatasync", "1"],
                "--fsync and --fdatasync cannot be combined; pick one",
            ),
            (
                &["--fsync", "often"],
                r#"--fsync "often" is not a count of writes; use e.g. 1 or 32 (0 turns it off)"#,
            ),
            (
                &["--sync", "osync"],
                r#"--sync "osync" is not a sync mode; use dsync or sync"#,
            ),
            (
                &["--random-distribution", "zipf:1"],
                r#"--random-distribution "zipf:1": zipf's theta must be above 0 and not 1; use e.g. zipf:1.2 or zipf:0.8"#,
            ),
            (
                &["--random-distribution", "zipf:-2"],
                r#"--random-distribution "zipf:-2": zipf's theta must be above 0 and not 1; use e.g. zipf:1.2 or zipf:0.8"#,
            ),
            (
                &["--random-distribution", "pareto:1.5"],
                r#"--random-distribution "pareto:1.5": pareto's h must be between 0 and 1; use e.g. pareto:0.3"#,
            ),
            (
                &["--random-distribution", "normal:0"],
                r#"--random-distribution "normal:0": normal's deviation is a percentage of the working set, above 0 and at most 100; use e.g. normal:10"#,
            ),
            (
                &["--random-distribution", "hot"],
                r#"--random-distribution "hot" is not a distribution; use random, zipf:1.2, pareto:0.3, normal:10 or zoned:60/10:40/90"#,
            ),
            (
                &["--cpus", "a-b"],
                r#"--cpus "a-b" is not a CPU list; use e.g. 0-3,6"#,
            ),
            (
                &["--cpus", "3-1"],
                r#"--cpus "3-1" is not a CPU list; use e.g. 0-3,6"#,
            ),
            (
                &["--cpus", "0-3"],
                r#"--cpus "0-3": CPU 2 is not available; this process may use CPUs 0-1"#,
            ),
            (
                &["--runtime", "soon"],
                r#"--runtime "soon" is not a duration; use e.g. 500ms, 10s or 2m"#,
            ),
            (
                &["--runtime", "0"],
                r#"--runtime "0" must be greater than zero; use e.g. 10s"#,
            ),
            (
                &["--runtime=-1"],
                r#"--runtime "-1" is not a duration; use e.g. 500ms, 10s or 2m"#,
            ),
            (
                &["--ramp", "later"],
                r#"--ramp "later" is not a duration; use e.g. 500ms, 10s or 2m"#,
            ),
            (
                &["--interval", "1ms"],
                r#"--interval "1ms" is too short; use 10ms to 24h, e.g. 1s"#,
            ),
            (
                &["--interval", "18446744073s"],
                r#"--interval "18446744073s" is too long; use 10ms to 24h, e.g. 1s"#,
            ),
            (
                &["--interval", "25h"],
                r#"--interval "25h" is too long; use 10ms to 24h, e.g. 1s"#,
            ),
            (
                &["--interval", "99999999999999999999ms"],
                r#"--interval "99999999999999999999ms" is too long; use 10ms to 24h, e.g. 1s"#,
            ),
            (
                &["--runtime", "8761h"],
                r#"--runtime "8761h" is too long; use at most 8760h (365 days), e.g. 10m or 24h"#,
            ),
            (
                &["--runtime", "18446744073709551615h"],
                r#"--runtime "18446744073709551615h" is too long; use at most 8760h (365 days), e.g. 10m or 24h"#,
            ),
            (
                &["--ramp", "5124096h"],
                r#"--ramp "5124096h" is too long; use at most 8760h (365 days), e.g. 30s or 5m"#,
            ),
            (
                &["--cpus", "0-99999"],
                r#"--cpus "0-99999": CPU 99999 is not available; this process may use CPUs 0-1"#,
            ),
            (
                &["--cpus=-1"],
                r#"--cpus "-1" is not a CPU list; use e.g. 0-3,6"#,
            ),
        ];
        for (extra, want) in cases {
            assert_eq!(parse(extra).unwrap_err(), *want, "{extra:?}");
        }
    }

    #[test]
    fn steady_state_options_read_back_and_refuse_what_cannot_work() {
        use crate::stats::steady::{Criterion, Metric, SteadyState};
        let spec = parse(&[
            "--ss",
            "bw_slope:2%",
            "--ss-dur",
            "45s",
            "--ss-ramp",
            "5s",
            "--ss-keep-going",
            "1",
            "--cliff",
            "25%",
        ])
        .unwrap();
        assert_eq!(
            spec.steady,
            Some(SteadyState {
                criterion: Criterion {
                    metric: Metric::Bw,
                    slope: true,
                    limit: 2.0,
                    pct: true
                },
                dur: Duration::from_secs(45),
                ramp: Duration::from_secs(5),
                keep_going: true,
            })
        );
        assert!((spec.cliff_pct - 25.0).abs() < f64::EPSILON);
        assert_eq!(
            validate(&spec.to_options(&Origin::CommandLine), &machine()).unwrap(),
            spec
        );
        // fio turns steady state on with ss_dur; its default criterion is iops_slope:0.01%.
        let spec = parse(&["--ss-dur", "10s"]).unwrap();
        assert_eq!(spec.steady.unwrap().criterion, Criterion::FIO_DEFAULT);
        assert_eq!(parse(&[]).unwrap().steady, None);
        let lat = parse(&["--ss", "lat:250us", "--ss-dur", "3s"]).unwrap();
        assert_eq!(
            validate(&lat.to_options(&Origin::CommandLine), &machine()).unwrap(),
            lat
        );
        let cases: &[(&[&str], &str)] = &[
            (
                &["--ss", "iops:1%"],
                r#"--ss "iops:1%" needs a steady-state window; add --ss-dur 30s (any whole seconds)"#,
            ),
            (
                &["--ss-ramp", "3s"],
                r#"--ss-ramp "3s" needs a steady-state window; add --ss-dur 30s (any whole seconds)"#,
            ),
            (
                &["--ss-dur", "1s"],
                r#"--ss-dur "1s" must be whole seconds, at least 2 (one sample a second); use e.g. 30s"#,
            ),
            (
                &["--ss", "iops_slope", "--ss-dur", "5s"],
                r#"--ss "iops_slope" is not a criterion; use iops, iops_slope, bw, bw_slope, lat or lat_slope and a limit, e.g. iops_slope:0.3% or bw:2%"#,
            ),
            (
                &["--ss", "bw:0", "--ss-dur", "5s"],
                r#"--ss "bw:0": the limit must be a number above 0, a percentage of the mean (iops:2%), bytes/s for bw (bw:10M), a time for lat (lat:50us)"#,
            ),
            (
                &["--ss-dur", "5s", "--ss-keep-going", "maybe"],
                r#"--ss-keep-going "maybe" is not 1 or 0"#,
            ),
            (
                &["--ss-dur", "5s", "--runtime", "8760h"],
                "--ss-dur needs a runtime cap to stop at when steady state is not reached; add --runtime 10m (or the longest run you accept)",
            ),
            (
                &["--cliff", "100"],
                r#"--cliff "100" is not a drop in percent; use above 0 and below 100, e.g. 30%"#,
            ),
        ];
        for (extra, want) in cases {
            assert_eq!(parse(extra).unwrap_err(), *want, "{extra:?}");
        }
        let file = |key, value: &str| JobOption {
            key,
            value: value.into(),
            origin: Origin::File {
                path: "ss.fio".into(),
                line: 3,
                alias: None,
            },
        };
        assert_eq!(
            validate(&[file(Key::SteadyState, "iops:2%")], &machine())
                .unwrap_err()
                .to_string(),
            r#"ss.fio:3: steadystate "iops:2%" needs a steady-state window; add steadystate_duration=30s (any whole seconds)"#
        );
    }

    #[test]
    fn the_longest_values_are_accepted() {
        let spec = parse(&[
            "--runtime",
            "8760h",
            "--ramp",
            "525600m",
            "--interval",
            "24h",
        ])
        .unwrap();
        assert_eq!(spec.runtime, MAX_RUN_TIME);
        assert_eq!(spec.ramp, MAX_RUN_TIME);
        assert_eq!(spec.interval, MAX_INTERVAL);
        assert_eq!(
            parse(&["--interval", "10ms"]).unwrap().interval,
            MIN_INTERVAL
        );
    }

    #[test]
    fn the_longest_run_fits_the_sessions_nanosecond_clock() {
        // The session adds ramp, runtime and interval to a CLOCK_MONOTONIC nanosecond count
        // (unchecked in places); the bounds must leave centuries of room.
        let now_ns = crate::record::nanos(crate::monitor::diskstats::monotonic_now());
        let worst = [MAX_RUN_TIME, MAX_RUN_TIME, MAX_INTERVAL, MAX_INTERVAL]
            .into_iter()
            .try_fold(now_ns, |sum, d| sum.checked_add(crate::record::nanos(d)));
        assert!(worst.is_some_and(|ns| ns < u64::MAX / 100), "{worst:?}");
    }

    #[test]
    fn a_job_reads_back_from_its_options_and_changes_are_checked_like_flags() {
        let spec = parse(&[
            "--rw",
            "randrw",
            "--rwmixread",
            "70",
            "--bs",
            "1MiB",
            "--size",
            "64M",
            "-q",
            "8",
            "-j",
            "2",
            "--buffered",
            "--fdatasync",
            "4",
            "--sync",
            "dsync",
            "--cpus",
            "0-1",
            "--runtime",
            "1500us",
            "--ramp",
            "2s",
            "--interval",
            "250ms",
        ])
        .unwrap();
        let again = validate(&spec.to_options(&Origin::CommandLine), &machine()).unwrap();
        assert_eq!(again, spec);
        assert_eq!(
            validate(
                &JobSpec::default().to_options(&Origin::CommandLine),
                &machine()
            )
            .unwrap(),
            JobSpec::default()
        );
        let deeper = spec
            .with([JobOption::dashboard(Key::IoDepth, "64")], &machine())
            .unwrap();
        assert_eq!(deeper.iodepth, 64);
        assert_eq!(
            spec.with([JobOption::dashboard(Key::IoDepth, "32768")], &machine())
                .unwrap_err()
                .to_string(),
            r#"iodepth "32768" is too large; use 1 to 16384"#
        );
        let file = JobOption {
            key: Key::Bs,
            value: "12k5".into(),
            origin: Origin::File {
                path: "db.fio".into(),
                line: 14,
                alias: None,
            },
        };
        assert_eq!(
            validate(&[file], &machine()).unwrap_err().to_string(),
            r#"db.fio:14: bs "12k5" is not a size; use e.g. 4k, 1M or 512"#
        );
    }

    #[test]
    fn bssplit_reads_like_fio_and_round_trips() {
        let spec = parse(&["--bssplit", "4k/50:64k/30:1M/20", "--size", "64M"]).unwrap();
        let split = spec.bssplit.clone().unwrap();
        assert_eq!(split.read, [(4096, 50), (65536, 30), (1 << 20, 20)]);
        assert_eq!(split.read, split.write);
        assert_eq!(spec.block_size_bytes, 1 << 20, "buffers hold the largest");
        assert_eq!(
            spec.describe(),
            "randread bssplit=4k/50:64k/30:1M/20 iodepth=32 numjobs=1 io_uring direct"
        );
        let again = validate(&spec.to_options(&Origin::CommandLine), &machine()).unwrap();
        assert_eq!(again, spec);
        // Blank shares split what is left; an empty side uses bs.
        let spec = parse(&[
            "--bs",
            "8k",
            "--bssplit",
            "4k/40:16k:64k,",
            "--rw",
            "randrw",
        ])
        .unwrap();
        let split = spec.bssplit.unwrap();
        assert_eq!(split.read, [(4096, 40), (16384, 30), (65536, 30)]);
        assert_eq!(split.write, [(8192, 100)]);
        // A bs picked in the dashboard after the split replaces it.
        let spec = parse(&["--bssplit", "4k/50:8k/50"]).unwrap();
        let changed = spec
            .with([JobOption::dashboard(Key::Bs, "16k")], &machine())
            .unwrap();
        assert_eq!((changed.bssplit, changed.block_size_bytes), (None, 16384));
    }

    #[test]
    fn bad_bssplits_name_the_part_and_the_fix() {
        let fix = "use e.g. 4k/50:64k/30:1M/20, or READ,WRITE such as 4k/70:8k/30,64k/100";
        let cases = [
            ("4k/50:64k/40", format!(r#"--bssplit "4k/50:64k/40": the shares of "4k/50:64k/40" sum to 90, not 100; {fix}"#)),
            ("4k/70:8k/70", format!(r#"--bssplit "4k/70:8k/70": the shares of "4k/70:8k/70" sum to 140, not 100; {fix}"#)),
            ("4x/100", format!(r#"--bssplit "4x/100": "4x" is not a block size; {fix}"#)),
            ("0/100", format!(r#"--bssplit "0/100": "0" is not a block size; {fix}"#)),
            ("4k/half", r#"--bssplit "4k/half": "half" is not a share; use 0 to 100 after the size, e.g. 4k/50"#.to_string()),
            ("4k,4k,4k", format!(r#"--bssplit "4k,4k,4k": a third list splits trims, which this job does not issue; {fix}"#)),
            ("512M/100", r#"--bssplit "512M/100": 512M is too large; use at most 256M"#.to_string()),
        ];
        for (text, want) in cases {
            assert_eq!(parse(&["--bssplit", text]).unwrap_err(), want, "{text}");
        }
        assert_eq!(
            parse(&["--bssplit", "4k/50:2M/50", "--size", "1M"]).unwrap_err(),
            "--bssplit 4k/50:2M/50 is larger than --size 1M; raise --size or lower --bssplit"
        );
    }

    #[test]
    fn rw_modifiers_read_like_fio_and_round_trip() {
        let seq = |rw: &str| parse(&["--rw", rw]).map(|spec| spec.sequencer);
        assert_eq!(seq("read:8k"), Ok(Some(Sequencer::Skip(8192))));
        assert_eq!(seq("write:-8k"), Ok(Some(Sequencer::Skip(-8192))));
        assert_eq!(seq("randread:8"), Ok(Some(Sequencer::RandomEvery(8))));
        assert_eq!(seq("read:0"), Ok(None));
        assert_eq!(seq("randread:1"), Ok(None));
        let spec = parse(&["--rw", "read:-16k"]).unwrap();
        assert_eq!(spec.rw, RwMode::Read);
        let back = validate(&spec.to_options(&Origin::CommandLine), &machine()).unwrap();
        assert_eq!(back.sequencer, Some(Sequencer::Skip(-16384)));
        for (rw, error) in [
            (
                "randread:x",
                r#"--rw "randread:x": after randread: comes the number of I/Os between random offsets; use e.g. randread:8"#,
            ),
            (
                "read:lots",
                r#"--rw "read:lots": after read: comes the bytes to skip after each I/O; use e.g. read:8k, or read:-8k to go backwards"#,
            ),
            (
                "read:5k",
                r#"--rw "read:5k": the skip must be a multiple of the block size (4k) so every I/O stays aligned; use e.g. read:4k"#,
            ),
        ] {
            assert_eq!(parse(&["--rw", rw]).unwrap_err(), error);
        }
        assert_eq!(
            parse(&["--rw", "write:-8k", "--verify", "crc32c"]).unwrap_err(),
            r#"--rw "write:-8k": a verifying job writes each block of its region once per pass, forwards; use a forward skip (e.g. write:8k) or drop verify"#
        );
        assert!(parse(&["--rw", "write:8k", "--verify", "crc32c"]).is_ok());
    }

    #[test]
    fn zoned_distributions_read_like_fio() {
        let dist = |text: &str| parse(&["--random-distribution", text]).map(|s| s.distribution);
        let Ok(Distribution::Zoned(zones)) = dist("zoned:50/5:30/15:20/") else {
            panic!("{:?}", dist("zoned:50/5:30/15:20/"));
        };
        assert_eq!(zones.list(), [(50, 5), (30, 15), (20, 80)]);
        let spec = parse(&["--random-distribution", "zoned:60/10:40/90"]).unwrap();
        let back = validate(&spec.to_options(&Origin::CommandLine), &machine()).unwrap();
        assert_eq!(back.distribution, spec.distribution);
        assert_eq!(
            dist("zoned:50/5:30/15").unwrap_err(),
            r#"--random-distribution "zoned:50/5:30/15": the I/O shares add up to 80% (must be 100) and the sizes to 20% (must be 1 to 100); use e.g. zoned:60/10:30/20:10/70 (percent of the I/O / percent of the working set, zone by zone)"#
        );
        assert_eq!(
            dist("zoned:50:50/50").unwrap_err(),
            r#"--random-distribution "zoned:50:50/50": zone "50" is not A/S; use e.g. zoned:60/10:30/20:10/70 (percent of the I/O / percent of the working set, zone by zone)"#
        );
    }

    /// fio's latency target: microseconds without a unit, fio's defaults for the window (0),
    /// percentile (100) and latency_run (0); read back from the options a spec writes; the
    /// companions without a target and a percentile out of range refused by name.
    #[test]
    fn latency_target_takes_fios_units_and_reads_back() {
        use crate::bench::latency::LatencyTarget;
        let spec = |opts: &[(Key, &str)]| {
            let opts: Vec<JobOption> = opts.iter().map(|(k, v)| JobOption::flag(*k, *v)).collect();
            validate(&opts, &machine()).map_err(|e| format!("{e:#}"))
        };
        assert_eq!(JobSpec::default().latency_target, None);
        let t = spec(&[(Key::LatencyTarget, "500000")]).unwrap();
        assert_eq!(
            t.latency_target,
            Some(LatencyTarget {
                target: Duration::from_millis(500),
                window: Duration::ZERO,
                percentile: 100.0,
                keep_running: false,
            })
        );
        let t = spec(&[
            (Key::LatencyTarget, "2ms"),
            (Key::LatencyWindow, "5000000"),
            (Key::LatencyPercentile, "99.9"),
            (Key::LatencyRun, "1"),
        ])
        .unwrap();
        let want = LatencyTarget {
            target: Duration::from_millis(2),
            window: Duration::from_secs(5),
            percentile: 99.9,
            keep_running: true,
        };
        assert_eq!(t.latency_target, Some(want));
        let back = validate(&t.to_options(&Origin::CommandLine), &machine()).unwrap();
        assert_eq!(back.latency_target, Some(want));
        // latency_target=0 is no search, as in fio.
        assert_eq!(
            spec(&[(Key::LatencyTarget, "0")]).unwrap().latency_target,
            None
        );
        assert_eq!(
            spec(&[(Key::LatencyWindow, "5s")]).unwrap_err(),
            "--latency-window needs latency_target (the latency to search within); add \
             latency_target=TIME, e.g. latency_target=2ms"
        );
        assert_eq!(
            spec(&[(Key::LatencyTarget, "1ms"), (Key::LatencyPercentile, "101")]).unwrap_err(),
            r#"--latency-percentile "101" is not a percentile; use 0 to 100, e.g. 99.9"#
        );
    }

    /// fio's `fallocate`: its five modes and its `0` and `1`, read back from the options a
    /// spec writes; `native` by default and left out of them; anything else named.
    #[test]
    fn fallocate_takes_fios_modes_and_reads_back() {
        let spec = |text: &str| validate(&[JobOption::flag(Key::Fallocate, text)], &machine());
        assert_eq!(JobSpec::default().fallocate, Fallocate::Native);
        assert!(
            !JobSpec::default()
                .to_options(&Origin::CommandLine)
                .iter()
                .any(|o| o.key == Key::Fallocate)
        );
        for (text, mode) in [
            ("none", Fallocate::None),
            ("0", Fallocate::None),
            ("native", Fallocate::Native),
            ("posix", Fallocate::Posix),
            ("1", Fallocate::Posix),
            ("keep", Fallocate::Keep),
            (" truncate", Fallocate::Truncate),
        ] {
            let job = spec(text).unwrap();
            assert_eq!(job.fallocate, mode, "{text}");
            let back = validate(&job.to_options(&Origin::CommandLine), &machine()).unwrap();
            assert_eq!(back, job, "{text}");
        }
        assert_eq!(
            spec("2").unwrap_err().to_string(),
            "--fallocate \"2\" is not a way to preallocate; use none, native, posix, keep, \
             truncate, 0 or 1"
        );
    }

    /// fio's prio/prioclass become the thread's ioprio (a level alone: class be; idle: level
    /// 0); cmdprio_* the per-I/O rules, on libaio and io_uring only; NUMA options read back.
    #[test]
    fn priorities_and_numa_take_fios_forms_and_read_back() {
        use crate::bench::prio::{CmdPrioEntry, ioprio_value};
        let fio = |opts: &[(Key, &str)]| {
            let opts: Vec<JobOption> = opts
                .iter()
                .map(|&(key, value)| JobOption {
                    key,
                    value: value.to_string(),
                    origin: Origin::File {
                        path: "j.fio".to_string(),
                        line: 3,
                        alias: None,
                    },
                })
                .collect();
            validate(&opts, &machine()).map_err(|e| e.to_string())
        };
        let io = (Key::IoEngine, "libaio");
        assert_eq!(
            fio(&[(Key::Prio, "7")]).unwrap().ioprio,
            Some(ioprio_value(2, 7))
        );
        assert_eq!(
            fio(&[(Key::PrioClass, "1")]).unwrap().ioprio,
            Some(ioprio_value(1, 4))
        );
        assert_eq!(
            fio(&[(Key::PrioClass, "3"), (Key::Prio, "5")])
                .unwrap()
                .ioprio,
            Some(ioprio_value(3, 0))
        );
        assert_eq!(fio(&[(Key::PrioClass, "0")]).unwrap().ioprio, None);
        assert_eq!(
            fio(&[(Key::Prio, "8")]).unwrap_err(),
            "j.fio:3: prio \"8\" is not an I/O priority level; use 0 to 7"
        );
        let job = fio(&[io, (Key::CmdPrioPercentage, "20"), (Key::CmdPrioClass, "1")]).unwrap();
        let rule = CmdPrioEntry {
            bs: None,
            pct: 20,
            ioprio: ioprio_value(1, 0),
        };
        let cmdprio = job.cmdprio.clone().unwrap();
        assert_eq!((cmdprio.read, cmdprio.write), (vec![rule], vec![rule]));
        let split = fio(&[
            io,
            (Key::Bs, "1M"),
            (Key::CmdPrioBsSplit, "64k/25/1/1:64k/75/3/2:1024k/0,1024k/0"),
        ])
        .unwrap();
        assert_eq!(split.cmdprio.as_ref().unwrap().read.len(), 2);
        assert_eq!(
            fio(&[(Key::IoEngine, "psync"), (Key::CmdPrioPercentage, "20")]).unwrap_err(),
            "j.fio:3: cmdprio_percentage \"20\": per-I/O priorities are options of fio's libaio \
             and io_uring engines, not of ioengine=psync; use ioengine=io_uring or libaio"
        );
        assert!(
            fio(&[
                io,
                (Key::CmdPrioPercentage, "20"),
                (Key::CmdPrioBsSplit, "4k/10")
            ])
            .unwrap_err()
            .contains("cannot be combined")
        );
        // Nothing prioritized: no rules, any engine (fio's cmdprio_percentage=0).
        assert_eq!(fio(&[(Key::CmdPrioPercentage, "0")]).unwrap().cmdprio, None);
        let numa = fio(&[
            (Key::NumaCpuNodes, "0-1"),
            (Key::NumaMemPolicy, "interleave:0-1"),
        ])
        .unwrap();
        assert_eq!(numa.numa_cpu_nodes, Some(vec![0, 1]));
        assert_eq!(
            fio(&[(Key::NumaMemPolicy, "bind")]).unwrap_err(),
            "j.fio:3: numa_mem_policy \"bind\": bind needs its nodes, e.g. bind:0"
        );
        for job in [
            job,
            split,
            numa,
            fio(&[(Key::PrioClass, "2"), (Key::Prio, "1")]).unwrap(),
        ] {
            let back = validate(&job.to_options(&Origin::CommandLine), &machine()).unwrap();
            assert_eq!(back, job);
        }
    }
}
