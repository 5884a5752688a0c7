//! fio's option table: one row per fio option diskdash knows, fio's own name, the aliases it
//! also takes, and what the option does ([`Opt`]). A job option (a [`Key`]) is defined once,
//! in the job table ([`TABLE`]: its fio name and aliases, whether it is a 1/0 option, its
//! parse-and-bound function); its row here is made from that row, read by [`rule`] where fio's
//! syntax needs one of its own. The rows written here are fio's alone ([`FIO_ROWS`]). fio's
//! lookup (exact, then an unambiguous prefix on the command line), the name fio reports an
//! option by, and the list `diskdash fio --help` prints all read the rows. Adding a job option
//! is adding its row to [`TABLE`]; adding one of fio's alone is adding its row here (and its
//! handler in `map`, for a new [`Opt`]); the help's command-line section, written with each
//! flag's own words, is checked against the rows by a test.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::bench::options::{Key, TABLE};
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

/// One fio option: fio's own name, the aliases diskdash also takes (`_` between words), and
/// what it does.
#[derive(Debug, Clone, Copy)]
pub(super) struct Row {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub opt: Opt,
}

impl Row {
    /// fio's own name of the option: the one its reports use.
    pub fn fio(&self) -> &'static str {
        self.name
    }

    /// fio's own name, then the aliases.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.name).chain(self.aliases.iter().copied())
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

/// Makes [`FIO_ROWS`] from arms `"fio's name" | "alias" => Opt`.
macro_rules! option_table {
    ($($name:literal $(| $alias:literal)* => $opt:expr,)*) => {
        /// fio's options that are not rows of the job table ([`TABLE`]): fio's own syntax
        /// (`name`, `filename`, `stonewall`), options that map onto several keys or none
        /// (`rwmixwrite`, `thread`), fio's logs and measurement tuning, and its command line.
        const FIO_ROWS: &[Row] = &[$(Row { name: $name, aliases: &[$($alias),*], opt: $opt },)*];
    };
}

/// How fio's syntax reads a job option of [`TABLE`] that is not given to the validator as
/// written (`Opt::Job`, or `Opt::Bool` for a 1/0 option): by a rule of its own.
const fn rule(key: Key) -> Option<Opt> {
    Some(match key {
        Key::Size => Opt::Size,
        Key::IoSize => Opt::IoSize,
        Key::IoEngine => Opt::IoEngine,
        Key::Runtime => Opt::Runtime,
        Key::Verify => Opt::Verify,
        Key::DoVerify => Opt::DoVerify,
        Key::ContinueOnError => Opt::ContinueOnError,
        Key::FillDevice => Opt::FillDevice,
        Key::IgnoreError => Opt::IgnoreError,
        Key::VerifyPattern => Opt::VerifyPattern,
        Key::BufferPattern => Opt::BufferPattern,
        Key::SgWriteMode => Opt::SgWriteMode,
        Key::Interval => Opt::StatusInterval,
        _ => return None,
    })
}

/// The option table, by fio's name (the order `--help` lists it and a prefix's candidates are
/// named): a row per job option of [`TABLE`] (its names are that row's, fio's own first),
/// and [`FIO_ROWS`].
pub(super) static ROWS: LazyLock<Vec<Row>> = LazyLock::new(|| {
    let job = TABLE.iter().map(|row| {
        let opt = rule(row.key).unwrap_or(if row.fio_bool {
            Opt::Bool(row.key)
        } else {
            Opt::Job(row.key)
        });
        Row {
            name: row.fio,
            aliases: row.fio_aliases,
            opt,
        }
    });
    let mut rows: Vec<Row> = job.chain(FIO_ROWS.iter().copied()).collect();
    rows.sort_unstable_by_key(|row| row.name);
    rows
});

/// Every name of [`ROWS`], in order (a typo's suggestion is one of them).
pub(super) static OPTION_NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| ROWS.iter().flat_map(Row::names).collect());

option_table! {
    "rwmixwrite" => Opt::RwMixWrite,
    "filesize" => Opt::Size,
    "buffered" => Opt::Buffered,
    "time_based" => Opt::TimeBased,
    "randrepeat" => Opt::RandRepeat,
    "loops" => Opt::Loops,
    "wait_for" => Opt::WaitFor,
    "dedupe_global" => Opt::Accepted(
        Flag,
        "accepted; each job repeats blocks of its own working set, where fio's \
         dedupe_global draws the repeats from one set shared by all such jobs",
    ),
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
    "io_submit_mode" => Opt::SubmitMode,
    "log_prio" => Opt::Log(Flag),
    "readfua" => Opt::Fua(false),
    "writefua" => Opt::Fua(true),
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
        for name in row.names() {
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
    let mut matching = row.names().filter(|n| n.starts_with(name));
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
        .flat_map(|row| row.names().map(|name| (name, row.shown())))
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
        assert_eq!(fio_name("timeout"), "runtime");
        assert_eq!(fio_name("fill_fs"), "fill_device");
        assert_eq!(fio_name("filesize"), "filesize");
        assert_eq!(fio_name("clat_percentiles"), "clat_percentiles");
    }

    /// A job option is defined once, in the job table: fio takes it under that row's names,
    /// as a 1/0 option where the row says so, by [`rule`] where fio's syntax has one; and no
    /// row written here takes a name of the job table's.
    #[test]
    fn every_job_option_is_fio_s_under_the_job_table_s_names_only() {
        for job in &TABLE {
            let row = exact(job.fio).unwrap_or_else(|| panic!("{} is not fio's", job.fio));
            assert_eq!((row.name, row.aliases), (job.fio, job.fio_aliases));
            let expected = rule(job.key).unwrap_or(if job.fio_bool {
                Opt::Bool(job.key)
            } else {
                Opt::Job(job.key)
            });
            assert_eq!(row.opt, expected, "{}", job.fio);
        }
        for row in FIO_ROWS {
            for name in row.names() {
                assert!(
                    TABLE
                        .iter()
                        .all(|job| job.fio != name && !job.fio_aliases.contains(&name)),
                    "{name} is a job option's: its row belongs in the job table"
                );
            }
            assert!(
                !matches!(row.opt, Opt::Job(_) | Opt::Bool(_)),
                "{}: a key's option is the job table's row",
                row.name
            );
        }
        assert!(ROWS.is_sorted_by_key(|row| row.name));
    }
}
