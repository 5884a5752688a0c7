//! `diskdash fio ARGS...`: fio's job files and command line, unchanged, into a validated
//! [`Plan`] and the invocation's settings ([`FioInvocation`]). [`parse`] splits the text into
//! sections of raw options, [`map`] gives fio's options their meaning (fio's defaults, aliases,
//! engines, size-based runs, targets, steps and groups) through the one validator
//! (`bench::options::validate`), [`show`] prints `--parse-only` and `--showcmd`. Running the
//! plan is the session's business.

pub(crate) mod arith;
pub(crate) mod logs;
pub(crate) mod map;
pub(crate) mod parse;
pub mod show;

use std::path::PathBuf;

use crate::bench::spec::MachineLimits;
use crate::plan::Plan;

/// fio's `--output-format`, as far as diskdash writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// fio's human-readable report.
    #[default]
    Normal,
    /// One JSON document.
    Json,
    /// `json+`: the JSON document with each latency's `bins` (fio's histogram layout).
    JsonPlus,
    /// fio's terse (`--minimal`) lines, version 3: one line of `;`-separated fields per job.
    Terse,
}

/// diskdash's own flags, recognised among fio's arguments.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DiskdashFlags {
    /// `--allow-destructive`: writes to block devices and to existing files with data. Only
    /// the command line grants it, never a job file.
    pub allow_destructive: bool,
    /// `--no-tui`: headless even in a terminal.
    pub no_tui: bool,
    /// `--json FILE`: the run record.
    pub json: Option<PathBuf>,
    /// `--jsonl FILE`: one record per interval.
    pub jsonl: Option<PathBuf>,
    /// `--force`: let `--json`/`--jsonl` replace a file that is not a diskdash record.
    pub force: bool,
    /// `--redact`: no host name, path or command line in the record.
    pub redact: bool,
    /// `--record-serial`: the disk's serial in the record beside its hash.
    pub record_serial: bool,
    /// `--trace`: the block layer's view of the disks in the record (`crate::trace`).
    pub trace: bool,
    /// `--serve ADDR`: the run for Prometheus while it runs (checked when the run starts).
    pub serve: Option<String>,
    /// `--serve-linger DURATION`: how long the final values stay served.
    pub serve_linger: Option<String>,
}

/// A reporting group: fio's `new_group` and `stonewall` start one; numbered from 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupInfo {
    pub id: u32,
    /// The names of its jobs, in plan order.
    pub jobs: Vec<String>,
}

/// What `diskdash fio ARGS...` asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct FioInvocation {
    pub plan: Plan,
    pub output_format: OutputFormat,
    /// `--output FILE`: the report goes there instead of stdout.
    pub output: Option<PathBuf>,
    /// `--status-interval`: a full report this often while running.
    pub status_interval: Option<crate::units::Interval>,
    /// Some job asked for `group_reporting`: report per group, not per job.
    pub group_reporting: bool,
    /// `percentile_list` (in percent, in the order given); `None`: fio's default list.
    pub percentiles: Option<Vec<f64>>,
    pub parse_only: bool,
    /// fio's `create_only=1` on every job: lay out the missing files, run nothing.
    pub create_only: bool,
    pub showcmd: bool,
    /// One line each: options accepted without effect, engines substituted.
    pub notes: Vec<String>,
    pub groups: Vec<GroupInfo>,
    pub diskdash: DiskdashFlags,
    /// Every job file and include read (device and inode): no output of the run may replace
    /// one.
    pub inputs: Vec<crate::pinned::FileId>,
    /// The options as written, for the JSON report's `global options` and `job options`.
    pub given: GivenOptions,
}

/// Reads fio's arguments (job files through the filesystem, `-` from stdin, `${VAR}` from
/// `env`) into an invocation whose plan has been validated against `machine` and the targets
/// on disk.
///
/// # Errors
/// A usage error (exit 2) naming the file and line or the flag, the value and the fix.
pub fn load(
    args: &[String],
    env: &dyn Fn(&str) -> Option<String>,
    machine: &MachineLimits,
) -> anyhow::Result<FioInvocation> {
    let read = parse::read_job_file;
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    let io = map::Io {
        read: &read,
        env,
        probe: &map::Os,
        seed_now: seed,
    };
    map::load_with(args, &io, machine)
}

/// The options a run was given, as written (name, value), for fio's `global options` (the
/// `[global]` sections and the command line before the first `--name`) and `job options` (each
/// job section's own). Like fio, an option written without a value is not listed, and a
/// repeated one keeps its last value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GivenOptions {
    pub global: Vec<(String, String)>,
    /// Per job section, by name, in plan order.
    pub jobs: Vec<(String, Vec<(String, String)>)>,
}

impl GivenOptions {
    /// Adds `option=value` to `list`, replacing an earlier value of the same option.
    pub fn set(list: &mut Vec<(String, String)>, option: &str, value: &str) {
        match list.iter_mut().find(|(name, _)| name == option) {
            Some(entry) => entry.1 = value.to_string(),
            None => list.push((option.to_string(), value.to_string())),
        }
    }

    /// The first job section named `name`'s own options.
    #[must_use]
    pub fn job(&self, name: &str) -> &[(String, String)] {
        self.jobs
            .iter()
            .find(|(job, _)| job == name)
            .map_or(&[], |(_, options)| options.as_slice())
    }
}
