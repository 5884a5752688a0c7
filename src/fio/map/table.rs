//! The option table: one row per fio option diskdash knows, fio's own name first, then the
//! aliases it also takes, and what the option does ([`Opt`]). fio's lookup (exact, then an
//! unambiguous prefix on the command line), the name fio reports an option by, and the list
//! `diskdash fio --help` prints all read the rows. Adding an option is adding its row (and its
//! handler in `map`, for a new [`Opt`]); the help's command-line section, written with each
//! flag's own words, is checked against the rows by a test.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::bench::options::Key;
use crate::error::usage;
use crate::fio::parse::Arity::{self, Flag, Value};

/// The options of fio's `zonemode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ZoneOpt {
    Mode,
    Size,
    Range,
    Skip,
    /// `max_open_zones` (zbd).
    MaxOpen,
    /// `job_max_open_zones` (zbd).
    JobMaxOpen,
    /// `read_beyond_wp` (zbd).
    ReadBeyondWp,
    /// `zone_reset_threshold` (zbd).
    ResetThreshold,
    /// `zone_reset_frequency` (zbd).
    ResetFrequency,
}

/// What an option does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opt {
    /// The value goes to the validator as this key.
    Job(Key),
    /// A 1/0 key (`direct`, `end_fsync`); alone it means 1.
    Bool(Key),
    RwMixWrite,
    Buffered,
    RandRepeat,
    IoEngine,
    Size,
    IoSize,
    Runtime,
    TimeBased,
    Filename,
    Directory,
    Unlink,
    Stonewall,
    NewGroup,
    GroupReporting,
    AllowMountedWrite,
    JobName,
    /// Lay out the job's file and run nothing (`create_only=1`).
    CreateOnly,
    /// `zero_buffers`: write zeros (1) or random buffer contents (0, fio's default).
    ZeroBuffers,
    /// `refill_buffers`: fresh random contents before every write (1), or buffers filled once
    /// and reused (0, fio's default).
    RefillBuffers,
    /// `loops`: the job's I/O N times over (size-based).
    Loops,
    /// `verify`: fio's kinds, some run as the nearest of diskdash's.
    Verify,
    /// `do_verify`: honoured with `verify`; alone it has nothing to do.
    DoVerify,
    /// `wait_for`: starts after the named job ends.
    WaitFor,
    ContinueOnError,
    /// `fill_device` (`fill_fs`): write until the filesystem or device is full.
    FillDevice,
    /// `openfiles`: files open at once; with one file, 1.
    OpenFiles,
    /// `file_service_type`: how a job moves between its files; with one file, nothing to do.
    FileServiceType,
    /// `filename_format`: the name of a job's file in its directory.
    FilenameFormat,
    /// `blockalign`: the alignment of random offsets.
    BlockAlign,
    /// `zonemode`, `zonesize`, `zonerange`, `zoneskip`: fio's strided zones.
    Zone(ZoneOpt),
    /// `io_submit_mode`: `inline` or `offload` (the same I/O, submitted from another thread).
    SubmitMode,
    /// `ignore_error`: errors each class continues past, with `continue_on_error` only.
    IgnoreError,
    /// `verify_pattern`: fio's pattern syntax, `%o` (the block's offset) included.
    VerifyPattern,
    /// `bsrange`: a range of block sizes; one size when both ends agree.
    BsRange,
    /// `buffer_pattern`: fio's pattern syntax, the bytes every buffer holds.
    BufferPattern,
    /// `sg_write_mode`: the sg engine's writes, on a block device.
    SgWriteMode,
    /// `readfua` (false) and `writefua` (true): the sg engine's Force Unit Access.
    Fua(bool),
    /// Accepted; the note says what diskdash does instead.
    Accepted(Arity, &'static str),
    /// Tunes fio's own measurement or logs: accepted with a note.
    Tuning(Arity),
    /// fio's log files: written from the intervals after the plan is made (`fio::logs`).
    Log(Arity),
    PercentileList,
    // Invocation options: fio's command line only.
    OutputFormat,
    Minimal,
    TerseVersion,
    Output,
    StatusInterval,
    ShowCmd,
    ParseOnly,
    Section,
    Readonly,
    // diskdash's own flags.
    AllowDestructive,
    NoTui,
    Force,
    Redact,
    RecordSerial,
    Trace,
    Json,
    Jsonl,
    Serve,
    ServeLinger,
}

impl Opt {
    pub(super) fn arity(self) -> Arity {
        match self {
            Self::Bool(_)
            | Self::Buffered
            | Self::RandRepeat
            | Self::TimeBased
            | Self::Unlink
            | Self::Stonewall
            | Self::NewGroup
            | Self::GroupReporting
            | Self::AllowMountedWrite
            | Self::CreateOnly
            | Self::ZeroBuffers
            | Self::RefillBuffers
            | Self::Minimal
            | Self::ShowCmd
            | Self::ParseOnly
            | Self::Readonly
            | Self::AllowDestructive
            | Self::NoTui
            | Self::Force
            | Self::Redact
            | Self::RecordSerial
            | Self::Trace
            | Self::Zone(ZoneOpt::ReadBeyondWp) => Arity::Flag,
            Self::Accepted(arity, _) | Self::Tuning(arity) | Self::Log(arity) => arity,
            _ => Arity::Value,
        }
    }

    /// Only on fio's command line (fio has no job-file form of these).
    pub(super) fn command_line_only(self) -> bool {
        matches!(
            self,
            Self::OutputFormat
                | Self::Minimal
                | Self::TerseVersion
                | Self::Output
                | Self::StatusInterval
                | Self::ShowCmd
                | Self::ParseOnly
                | Self::Section
                | Self::Readonly
                | Self::AllowDestructive
                | Self::NoTui
                | Self::Force
                | Self::Redact
                | Self::RecordSerial
                | Self::Trace
                | Self::Json
                | Self::Jsonl
                | Self::Serve
                | Self::ServeLinger
        )
    }
}

/// One fio option: its names (fio's own first, then the aliases diskdash also takes, `_`
/// between words) and what it does.
#[derive(Debug, Clone, Copy)]
pub(super) struct Row {
    pub names: &'static [&'static str],
    pub opt: Opt,
}

impl Row {
    /// fio's own name of the option: the one its reports use.
    pub fn fio(&self) -> &'static str {
        self.names[0]
    }

    /// How `diskdash fio --help` lists the option.
    pub fn shown(&self) -> Shown {
        match self.opt {
            opt if opt.command_line_only() => Shown::CommandLine,
            Opt::Accepted(..) | Opt::SubmitMode | Opt::IgnoreError => Shown::Noted,
            Opt::Tuning(_) => Shown::Tuning,
            _ => Shown::Honoured,
        }
    }
}

/// How `diskdash fio --help` lists an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Honoured: the job does what fio's does.
    Honoured,
    /// Accepted with a one-line note: diskdash does not need it.
    Noted,
    /// Accepted with a note: it tunes fio's own measurement.
    Tuning,
    /// fio's command line (or diskdash's own flags), listed with their own help.
    CommandLine,
}

/// Makes [`ROWS`] from arms `"fio's name" | "alias" => Opt`.
macro_rules! option_table {
    ($($($name:literal)|+ => $opt:expr,)*) => {
        /// The option table, in the order `--help` lists it and a prefix's candidates are named.
        pub(super) const ROWS: &[Row] = &[$(Row { names: &[$($name),+], opt: $opt },)*];

        /// Every name of [`ROWS`], in order (a typo's suggestion is one of them).
        pub(super) const OPTION_NAMES: &[&str] = &[$($($name,)+)*];
    };
}

option_table! {
    "rw" | "readwrite" => Opt::Job(Key::Rw),
    "rwmixread" => Opt::Job(Key::RwMixRead),
    "rwmixwrite" => Opt::RwMixWrite,
    "bs" | "blocksize" => Opt::Job(Key::Bs),
    "size" => Opt::Size,
    "filesize" => Opt::Size,
    "io_size" | "io_limit" => Opt::IoSize,
    "iodepth" => Opt::Job(Key::IoDepth),
    "numjobs" => Opt::Job(Key::NumJobs),
    "ioengine" => Opt::IoEngine,
    "iodepth_batch" | "iodepth_batch_submit" => Opt::Job(Key::IoDepthBatch),
    "iodepth_batch_complete_max" => Opt::Job(Key::IoDepthBatchComplete),
    "iodepth_batch_complete_min" | "iodepth_batch_complete" => Opt::Job(Key::IoDepthBatchCompleteMin),
    "iodepth_low" => Opt::Job(Key::IoDepthLow),
    "direct" => Opt::Bool(Key::Direct),
    "buffered" => Opt::Buffered,
    "fsync" => Opt::Job(Key::Fsync),
    "fdatasync" => Opt::Job(Key::Fdatasync),
    "sync" => Opt::Job(Key::Sync),
    "cpus_allowed" => Opt::Job(Key::Cpus),
    "cpus_allowed_policy" => Opt::Job(Key::CpusPolicy),
    "runtime" | "timeout" => Opt::Runtime,
    "time_based" => Opt::TimeBased,
    "ramp_time" => Opt::Job(Key::Ramp),
    "startdelay" => Opt::Job(Key::StartDelay),
    "offset" => Opt::Job(Key::Offset),
    "offset_increment" => Opt::Job(Key::OffsetIncrement),
    "randseed" => Opt::Job(Key::RandSeed),
    "randrepeat" => Opt::RandRepeat,
    "random_distribution" => Opt::Job(Key::RandomDistribution),
    "bssplit" => Opt::Job(Key::BsSplit),
    "verify" => Opt::Verify,
    "do_verify" => Opt::DoVerify,
    "loops" => Opt::Loops,
    "number_ios" => Opt::Job(Key::NumberIos),
    "thinktime" => Opt::Job(Key::ThinkTime),
    "thinktime_spin" => Opt::Job(Key::ThinkTimeSpin),
    "thinktime_blocks" => Opt::Job(Key::ThinkTimeBlocks),
    "thinktime_blocks_type" => Opt::Job(Key::ThinkTimeBlocksType),
    "rate_min" | "ratemin" => Opt::Job(Key::RateMin),
    "rate_iops_min" => Opt::Job(Key::RateIopsMin),
    "rate_cycle" | "ratecycle" => Opt::Job(Key::RateCycle),
    "latency_target" => Opt::Job(Key::LatencyTarget),
    "latency_window" => Opt::Job(Key::LatencyWindow),
    "latency_percentile" => Opt::Job(Key::LatencyPercentile),
    "latency_run" => Opt::Job(Key::LatencyRun),
    "flow" => Opt::Job(Key::Flow),
    "flow_id" => Opt::Job(Key::FlowId),
    "flow_sleep" => Opt::Job(Key::FlowSleep),
    "wait_for" => Opt::WaitFor,
    "fallocate" => Opt::Job(Key::Fallocate),
    "dedupe_percentage" => Opt::Job(Key::DedupePercentage),
    "dedupe_mode" => Opt::Job(Key::DedupeMode),
    "dedupe_working_set_percentage" => Opt::Job(Key::DedupeWorkingSet),
    "dedupe_global" => Opt::Accepted(
        Flag,
        "accepted; each job repeats blocks of its own working set, where fio's \
         dedupe_global draws the repeats from one set shared by all such jobs",
    ),
    "buffer_compress_percentage" => Opt::Job(Key::CompressPercentage),
    "buffer_compress_chunk" => Opt::Job(Key::CompressChunk),
    "continue_on_error" => Opt::ContinueOnError,
    "nrfiles" | "nr_files" => Opt::Job(Key::NrFiles),
    "stat_type" => Opt::Job(Key::StatType),
    "fill_device" | "fill_fs" => Opt::FillDevice,
    "openfiles" | "open_files" => Opt::OpenFiles,
    "file_service_type" => Opt::FileServiceType,
    "filename_format" => Opt::FilenameFormat,
    "ba" | "blockalign" => Opt::BlockAlign,
    "zonemode" => Opt::Zone(ZoneOpt::Mode),
    "zonesize" => Opt::Zone(ZoneOpt::Size),
    "zonerange" => Opt::Zone(ZoneOpt::Range),
    "zoneskip" => Opt::Zone(ZoneOpt::Skip),
    "max_open_zones" => Opt::Zone(ZoneOpt::MaxOpen),
    "job_max_open_zones" => Opt::Zone(ZoneOpt::JobMaxOpen),
    "read_beyond_wp" => Opt::Zone(ZoneOpt::ReadBeyondWp),
    "zone_reset_threshold" => Opt::Zone(ZoneOpt::ResetThreshold),
    "zone_reset_frequency" => Opt::Zone(ZoneOpt::ResetFrequency),
    "zonecapacity" => Opt::Accepted(
        Value,
        "accepted; diskdash's emulated zones (zonemode=zbd) are written to their whole \
         zonesize",
    ),
    "ignore_zone_limits" => Opt::Accepted(
        Flag,
        "accepted; diskdash's emulated zones (zonemode=zbd) have no limits but \
         max_open_zones and job_max_open_zones",
    ),
    "bsrange" | "blocksize_range" => Opt::BsRange,
    "exitall" => Opt::Accepted(
        Flag,
        "accepted; diskdash runs every job of a step to its own end, where fio's exitall \
         stops them all when the first ends",
    ),
    "verify_backlog" => Opt::Job(Key::VerifyBacklog),
    "verify_backlog_batch" => Opt::Job(Key::VerifyBacklogBatch),
    "error_dump" => Opt::Accepted(
        Flag,
        "accepted; diskdash reports a job's first error in one line and dumps nothing more",
    ),
    "verify_async" => Opt::Accepted(
        Value,
        "accepted; diskdash checks blocks in the worker that reads them, where fio's \
         verify_async hands the checks to that many threads",
    ),
    "verify_async_cpus" => Opt::Accepted(
        Value,
        "accepted; diskdash's checks run on the job's own CPUs (no verify_async threads)",
    ),
    "create_serialize" => Opt::Accepted(
        Flag,
        "accepted; diskdash lays out the jobs' new files one after another before any job \
         starts, as fio's create_serialize=1 does",
    ),
    "verify_dump" => Opt::Accepted(
        Flag,
        "accepted; diskdash reports a failed check in its error and writes no dump files",
    ),
    "exit_what" => Opt::Accepted(
        Value,
        "accepted; diskdash runs every job of a step to its own end (see exitall)",
    ),
    "verify_interval" => Opt::Job(Key::VerifyInterval),
    "io_submit_mode" => Opt::SubmitMode,
    "ignore_error" => Opt::IgnoreError,
    "log_prio" => Opt::Log(Flag),
    "numa_cpu_nodes" => Opt::Job(Key::NumaCpuNodes),
    "numa_mem_policy" => Opt::Job(Key::NumaMemPolicy),
    "prio" => Opt::Job(Key::Prio),
    "prioclass" => Opt::Job(Key::PrioClass),
    "cmdprio_percentage" => Opt::Job(Key::CmdPrioPercentage),
    "cmdprio_class" => Opt::Job(Key::CmdPrioClass),
    "cmdprio" => Opt::Job(Key::CmdPrio),
    "cmdprio_bssplit" => Opt::Job(Key::CmdPrioBsSplit),
    "verify_pattern" => Opt::VerifyPattern,
    "buffer_pattern" => Opt::BufferPattern,
    "sg_write_mode" => Opt::SgWriteMode,
    "readfua" => Opt::Fua(false),
    "writefua" => Opt::Fua(true),
    "verify_only" => Opt::Bool(Key::VerifyOnly),
    "verify_fatal" => Opt::Bool(Key::VerifyFatal),
    "hipri" => Opt::Bool(Key::Hipri),
    "sqthread_poll" => Opt::Bool(Key::SqThreadPoll),
    "sqthread_poll_cpu" => Opt::Job(Key::SqThreadPollCpu),
    "fixedbufs" => Opt::Bool(Key::FixedBufs),
    "registerfiles" => Opt::Bool(Key::RegisterFiles),
    "nonvectored" => Opt::Bool(Key::NonVectored),
    "rate_iops" => Opt::Job(Key::RateIops),
    "rate" => Opt::Job(Key::Rate),
    "rate_process" => Opt::Job(Key::RateProcess),
    "end_fsync" => Opt::Bool(Key::EndFsync),
    "steadystate" | "ss" => Opt::Job(Key::SteadyState),
    "steadystate_duration" | "ss_dur" => Opt::Job(Key::SsDur),
    "steadystate_ramp_time" | "ss_ramp" => Opt::Job(Key::SsRamp),
    "ss_keep_going" => Opt::Bool(Key::SsKeepGoing),
    "cliff" => Opt::Job(Key::Cliff),
    "name" => Opt::JobName,
    "filename" => Opt::Filename,
    "directory" => Opt::Directory,
    "unlink" => Opt::Unlink,
    "stonewall" | "wait_for_previous" => Opt::Stonewall,
    "new_group" => Opt::NewGroup,
    "group_reporting" => Opt::GroupReporting,
    "allow_mounted_write" => Opt::AllowMountedWrite,
    "create_only" => Opt::CreateOnly,
    "zero_buffers" => Opt::ZeroBuffers,
    "refill_buffers" => Opt::RefillBuffers,
    "thread" | "threads" => Opt::Accepted(Flag, "accepted; diskdash's workers are always threads"),
    "userspace_reap" => Opt::Accepted(
        Flag,
        "accepted; diskdash's libaio always reaps with io_getevents",
    ),
    "norandommap" => Opt::Bool(Key::NoRandomMap),
    "random_generator" => Opt::Job(Key::RandomGenerator),
    "invalidate" => Opt::Bool(Key::Invalidate),
    "fadvise_hint" => Opt::Job(Key::FadviseHint),
    "mem" | "iomem" => Opt::Job(Key::IoMem),
    "create_on_open" => Opt::Accepted(
        Flag,
        "accepted; diskdash creates a missing file before its step starts (filecreate \
         creates its files during the run, one per I/O)",
    ),
    "description" => Opt::Accepted(Value, "accepted; diskdash keeps no job description"),
    "gtod_reduce" => Opt::Tuning(Flag),
    "clat_percentiles" => Opt::Tuning(Flag),
    "lat_percentiles" => Opt::Tuning(Flag),
    "slat_percentiles" => Opt::Tuning(Flag),
    "disable_lat" => Opt::Tuning(Flag),
    "disable_clat" => Opt::Tuning(Flag),
    "disable_slat" => Opt::Tuning(Flag),
    "disable_bw_measurement" => Opt::Tuning(Flag),
    "log_offset" => Opt::Log(Flag),
    "log_unix_epoch" => Opt::Tuning(Flag),
    "log_store_compressed" => Opt::Tuning(Flag),
    "log_alternate_epoch" => Opt::Tuning(Flag),
    "stats" => Opt::Tuning(Flag),
    "log_avg_msec" => Opt::Log(Value),
    "log_hist_msec" => Opt::Log(Value),
    "log_hist_coarseness" => Opt::Log(Value),
    "write_bw_log" => Opt::Log(Value),
    "write_lat_log" => Opt::Log(Value),
    "write_iops_log" => Opt::Log(Value),
    "write_hist_log" => Opt::Log(Value),
    "per_job_logs" => Opt::Log(Flag),
    "log_max_value" => Opt::Log(Flag),
    "log_compression" => Opt::Tuning(Value),
    "log_compression_cpus" => Opt::Tuning(Value),
    "bwavgtime" => Opt::Tuning(Value),
    "iopsavgtime" => Opt::Tuning(Value),
    "clocksource" => Opt::Tuning(Value),
    "eta" => Opt::Tuning(Value),
    "eta_newline" => Opt::Tuning(Value),
    "eta_interval" => Opt::Tuning(Value),
    "percentile_list" => Opt::PercentileList,
    "output_format" => Opt::OutputFormat,
    "minimal" => Opt::Minimal,
    "terse_version" => Opt::TerseVersion,
    "output" => Opt::Output,
    "status_interval" => Opt::StatusInterval,
    "showcmd" => Opt::ShowCmd,
    "parse_only" => Opt::ParseOnly,
    "section" => Opt::Section,
    "readonly" => Opt::Readonly,
    "allow_destructive" => Opt::AllowDestructive,
    "no_tui" => Opt::NoTui,
    "force" => Opt::Force,
    "redact" => Opt::Redact,
    "record_serial" => Opt::RecordSerial,
    "trace" => Opt::Trace,
    "json" => Opt::Json,
    "jsonl" => Opt::Jsonl,
    "serve" => Opt::Serve,
    "serve_linger" => Opt::ServeLinger,
}

/// Every name of [`ROWS`] -> its row's index.
static BY_NAME: LazyLock<HashMap<&'static str, usize>> = LazyLock::new(|| {
    let mut map = HashMap::new();
    for (i, row) in ROWS.iter().enumerate() {
        for &name in row.names {
            let earlier = map.insert(name, i);
            debug_assert!(earlier.is_none(), "{name} is in two rows");
        }
    }
    map
});

/// The row of `name` (`_` between words), exactly.
pub(super) fn exact(name: &str) -> Option<&'static Row> {
    BY_NAME.get(name).map(|&i| &ROWS[i])
}

/// The option table: fio's name or alias (`-` read as `_`) -> what it does.
pub(super) fn lookup(option: &str) -> Option<Opt> {
    exact(&option.replace('-', "_")).map(|row| row.opt)
}

/// The name a prefix `name` reaches in `row`, if it begins one: an alias the prefix begins and
/// that begins fio's own name (`iodepth_batch_complete` of `iodepth_batch_complete_min`), else
/// the first of the row's names it begins.
fn reached(row: &Row, name: &str) -> Option<&'static str> {
    let mut matching = row.names.iter().copied().filter(|n| n.starts_with(name));
    let first = matching.next()?;
    Some(
        matching
            .find(|alias| row.fio().starts_with(alias))
            .unwrap_or(first),
    )
}

/// fio's command line naming an option (getopt_long): `written` (`-` read as `_`) exactly (kept
/// as written), else the one option it is a prefix of (`group_report` -> `group_reporting`; the
/// names of one row count once). `allow_destructive` is only ever taken spelled out: the opt-in
/// to destroy data is never guessed from a prefix. Returns the option's name and what it
/// takes; `None` when no option begins so.
///
/// # Errors
/// A one-line usage error listing the options an ambiguous prefix begins.
pub fn resolve(written: &str) -> anyhow::Result<Option<(String, Arity)>> {
    let name = written.replace('-', "_");
    if let Some(row) = exact(&name) {
        return Ok(Some((written.to_string(), row.opt.arity())));
    }
    if name.is_empty() {
        return Ok(None);
    }
    let found: Vec<(&str, Opt)> = ROWS
        .iter()
        .filter(|row| row.opt != Opt::AllowDestructive)
        .filter_map(|row| reached(row, &name).map(|full| (full, row.opt)))
        .collect();
    match found.as_slice() {
        [] => Ok(None),
        [(full, opt)] => Ok(Some(((*full).to_string(), opt.arity()))),
        many => {
            let names: Vec<&str> = many.iter().map(|(n, _)| *n).collect();
            Err(usage!(
                "--{written}: ambiguous, it begins the options {}; write more of the name",
                names.join(", ")
            ))
        }
    }
}

/// The name fio gives an option in its reports: its own name for an alias (fio's JSON `job
/// options` list each option by that name, `timeout=3` as `runtime`), `-` read as `_`.
pub(super) fn fio_name(written: &str) -> String {
    let name = written.replace('-', "_");
    match exact(&name) {
        Some(row) => row.fio().to_string(),
        None => name,
    }
}

/// Every name of a job option (not the command line's), fio's own first, with how it is
/// honoured: for `diskdash fio --help`.
#[must_use]
pub fn known_options() -> Vec<(&'static str, Shown)> {
    ROWS.iter()
        .filter(|row| row.shown() != Shown::CommandLine)
        .flat_map(|row| row.names.iter().map(|&name| (name, row.shown())))
        .collect()
}

/// The names of fio's command line and diskdash's own flags, as `--help` writes them
/// (`--parse-only`).
#[cfg(test)]
#[must_use]
pub fn command_line_options() -> Vec<String> {
    ROWS.iter()
        .filter(|row| row.shown() == Shown::CommandLine)
        .map(|row| format!("--{}", row.fio().replace('_', "-")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_every_name_of_the_table() {
        let help = crate::fio::show::help();
        let (flags, jobs) = help.split_once("Job options diskdash knows").unwrap();
        for flag in command_line_options() {
            assert!(flags.contains(&flag), "{flag} is not in --help");
        }
        let words: Vec<&str> = jobs
            .split_whitespace()
            .map(|w| w.trim_end_matches('*'))
            .collect();
        for (name, _) in known_options() {
            assert!(words.contains(&name), "{name} is not in --help");
        }
    }

    #[test]
    fn each_name_is_in_one_row_and_fio_s_own_name_first() {
        assert_eq!(BY_NAME.len(), OPTION_NAMES.len());
        assert_eq!(
            fio_name("iodepth-batch-complete"),
            "iodepth_batch_complete_min"
        );
        assert_eq!(fio_name("blockalign"), "ba");
        assert_eq!(fio_name("iomem"), "mem");
        assert_eq!(fio_name("filesize"), "filesize");
        assert_eq!(fio_name("clat_percentiles"), "clat_percentiles");
    }
}
