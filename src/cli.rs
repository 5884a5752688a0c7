//! Command-line grammar. Option names follow fio (`bench`) and sysstat (`iostat`) so that
//! fingers and scripts carry over. This module only parses strings; validation into a job
//! happens in one place (`bench::spec`), where every error text is tested.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub(crate) mod invoked;
pub(crate) mod job_flags;

pub use invoked::{Parsed, Personality, failed, parse};
pub(crate) use job_flags::JobFlags;

/// A value parser that takes any text, as a `String` (its command validates it, with its own
/// error texts), and names the values a shell's completion offers (`diskdash generate bash`).
/// Help does not list them (`hide_possible_values`): each flag's help says them in words.
#[derive(Debug, Clone, Copy)]
pub struct Offered(pub &'static [&'static str]);

impl clap::builder::TypedValueParser for Offered {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            self.0.iter().map(|v| clap::builder::PossibleValue::new(*v)),
        ))
    }
}

/// Terminal dashboard for Linux disks: a fio-grade benchmark and an iostat-grade device
/// monitor side by side.
#[derive(Debug, Parser)]
#[command(
    name = "diskdash",
    version,
    about,
    propagate_version = true,
    after_help = "`diskdash` alone opens the monitor dashboard of every disk (disks with no I/O \
                  since boot hidden; -a shows them). `diskdash bench` benchmarks a file or disk."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Device sampling interval of the monitor dashboard (e.g. 1s, 500ms).
    #[arg(long, default_value = "1s", global = false)]
    pub interval: String,
    /// Monitor dashboard: list every disk, also those with no I/O since boot (like sysstat's
    /// `-a`).
    #[arg(short = 'a', long)]
    pub all: bool,
    /// Monitor dashboard: trace the block layer of the disks shown (root, tracefs): each
    /// disk's device-time percentiles, the selected disk's device-time heatmap and the
    /// processes doing its I/O; `--record` keeps them. Without tracefs or root, one note.
    #[arg(long)]
    pub trace: bool,
    /// `diskdash fleet`'s remote side (before `bench`, `fio` or `sweep`): JSON Lines on stdout,
    /// a ready line once prepared, the measured window on `start` from stdin, `stop` or the end
    /// of stdin stops the run, the run record as the last line.
    #[arg(long, hide = true)]
    pub fleet_remote: bool,
    #[command(flatten)]
    pub record: RecordArgs,
    /// Started as `diskdash`, or as `fio` through a link (`invoked_as`); not a flag.
    #[arg(skip)]
    pub personality: Personality,
}

/// `--record` of the monitor dashboard and of `iostat`: every sample to a JSON Lines file.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Recording")]
pub struct RecordArgs {
    /// Append one JSON line per sample to FILE (each disk's counter deltas and iostat -x
    /// columns); `diskdash show FILE` replays it.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Rotate FILE before it passes SIZE: FILE becomes FILE.1, FILE.1 FILE.2, ...
    #[arg(long, value_name = "SIZE", default_value = "64M", requires = "record")]
    #[arg(allow_hyphen_values = true)]
    pub record_max: String,
    /// Rotated files kept (FILE.1 .. FILE.N); the oldest is removed.
    #[arg(long, value_name = "N", default_value = "3", requires = "record")]
    #[arg(allow_hyphen_values = true)]
    pub record_keep: String,
    /// Let --record replace an existing file that is not a monitor recording.
    #[arg(long, requires = "record")]
    pub force: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Benchmark a file, directory or block device (dashboard in a terminal, headless otherwise).
    Bench(BenchArgs),
    /// CPU and device statistics like sysstat's `iostat`.
    #[command(
        override_usage = "diskdash iostat [-c] [-d] [-x] [-k|-m] [-s] [-h] [-t] [-y] [-z] [-N] [-p [DEVICES|ALL]] [-g NAME [-H]] [-o JSON] [-V] [DEVICE...] [INTERVAL [COUNT]]",
        disable_help_flag = true,
        // sysstat's -V (`IostatArgs::show_version`), not clap's.
        disable_version_flag = true
    )]
    Iostat(IostatArgs),
    /// The disk behind a path or device: model, transport, mounts, queue settings.
    Info(InfoArgs),
    /// Open a recorded run (JSON) or monitor recording (`--record`) in the dashboard.
    Show(ShowArgs),
    /// Compare two recorded runs (JSON): a table, or JSON; a regression gate for CI.
    Compare(CompareArgs),
    /// One self-contained HTML page (or one SVG chart) of recorded runs, sweeps, marks,
    /// fleets, monitor recordings, or several runs compared.
    Report(ReportArgs),
    /// Serve every disk's counters to Prometheus (OpenMetrics at /metrics, node_exporter's
    /// names).
    Serve(ServeArgs),
    /// Run fio job files and fio command lines (`diskdash fio --help` for what it honours).
    // fio's own `--help` and `--version` (`cmd::fio`), not clap's.
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Fio(FioArgs),
    /// Sweep workload options over lists and ranges (`--bs 4k..1M --rw read,write`): one
    /// point per combination, one table.
    Sweep(SweepArgs),
    /// CrystalDiskMark's tests (SEQ1M Q8T1, RND4K Q32T1, ...) as one run: its window as a table.
    Mark(MarkArgs),
    /// Run bench, fio or sweep on several hosts over SSH at once: one start, one table, one
    /// record (`diskdash fleet node[01-04] -- bench /data --rw randread`).
    #[command(
        override_usage = "diskdash fleet [OPTIONS] HOSTS -- bench|fio|sweep [ARGS]...",
        after_help = "HOSTS: a,b,c; node[01-16] (node01..node16; node[1-3,7]); @hosts.txt (one \
                      a line, # comments). ssh runs with the user's ~/.ssh/config, agent and \
                      known_hosts and BatchMode=yes (no prompts). Each host runs the same \
                      diskdash (see --remote-binary, --copy-binary). The run prints a table \
                      per interval on stderr; `diskdash show RECORD` opens the fleet's record \
                      in the dashboard (one row per host, the fleet's totals and charts)."
    )]
    Fleet(FleetArgs),
    /// Print the manual page (roff) or a shell's completion script, made from this command
    /// line's own definition (`diskdash generate bash > /etc/bash_completion.d/diskdash`).
    Generate(GenerateArgs),
}

/// What `diskdash generate` prints, in the order its error lists them.
pub const GENERATED_NAMES: [&str; 5] = ["man", "bash", "zsh", "fish", "powershell"];

/// `diskdash generate`: what to print.
#[derive(Debug, Clone, Args)]
pub struct GenerateArgs {
    /// man (roff, for `man -l -`), bash, zsh, fish or powershell.
    #[arg(value_name = "WHAT")]
    #[arg(value_parser = Offered(&GENERATED_NAMES), hide_possible_values = true)]
    pub what: String,
    /// With `man`: the page of this subcommand (`diskdash generate man mark`) instead of
    /// diskdash's own.
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Option<String>,
}

// ---- diskdash fleet (kept in one block) ----

#[derive(Debug, Clone, Args)]
pub struct FleetArgs {
    /// The hosts: a,b,c or node[01-16] or @hosts.txt (ssh destinations; user@host works).
    pub hosts: String,
    /// Words before `--` other than HOSTS (caught to say where the command goes).
    #[arg(hide = true)]
    pub stray: Vec<String>,
    /// What each host runs, after `--`: bench, fio or sweep and its arguments.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,

    /// How long every host may take to prepare (fill its working set) before the start; a
    /// host not ready by then is left out (or fails the run with --all-or-nothing).
    #[arg(
        long,
        default_value = "5m",
        help_heading = "Fleet",
        allow_hyphen_values = true
    )]
    pub ready_timeout: String,
    /// Fail the whole run when any host is not ready in time (nothing is measured then).
    #[arg(long, help_heading = "Fleet")]
    pub all_or_nothing: bool,
    /// The diskdash to run on the hosts: a command on their PATH or a path.
    #[arg(
        long,
        default_value = "diskdash",
        value_name = "PATH",
        help_heading = "Fleet"
    )]
    pub remote_binary: String,
    /// Copy this diskdash to a temporary directory on hosts that lack --remote-binary (after
    /// checking their architecture) and remove it afterwards.
    #[arg(long, help_heading = "Fleet")]
    pub copy_binary: bool,

    /// ssh's configuration file instead of ~/.ssh/config (ssh -F).
    #[arg(short = 'F', long, value_name = "FILE", help_heading = "SSH")]
    pub ssh_config: Option<PathBuf>,
    /// An ssh option (ssh -o KEY=VALUE), repeatable; these win over diskdash's own, except
    /// BatchMode=yes (never a prompt).
    #[arg(
        short = 'o',
        long = "ssh-option",
        value_name = "KEY=VALUE",
        help_heading = "SSH"
    )]
    pub ssh_options: Vec<String>,
    /// The ssh program.
    #[arg(
        long,
        default_value = "ssh",
        env = "DISKDASH_SSH",
        value_name = "PROGRAM",
        help_heading = "SSH"
    )]
    pub ssh: PathBuf,

    /// Write the fleet record (JSON: every host's record and the fleet's) to this file
    /// (`-`: stdout).
    #[arg(long, help_heading = "Output", allow_hyphen_values = true)]
    pub json: Option<PathBuf>,
    /// Let --json replace an existing file that is not a diskdash record.
    #[arg(long, help_heading = "Output")]
    pub force: bool,
    /// Stay headless even in a terminal: one table per interval on stderr instead of the
    /// dashboard.
    #[arg(long, help_heading = "Output")]
    pub no_tui: bool,

    /// Allow the hosts' runs to write to block devices or files with data: forwarded to every
    /// host and printed per host before anything starts.
    #[arg(long, help_heading = "Safety")]
    pub allow_destructive: bool,
}

// ---- end of diskdash fleet ----

#[derive(Debug, Clone, Args)]
pub struct MarkArgs {
    /// Directory (a scratch file is made inside and removed afterwards; default: the current
    /// directory), existing file or block device (written: needs --allow-destructive).
    pub target: Option<PathBuf>,

    /// The profile: default (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1), peak
    /// (SEQ1M Q8T1, RND4K Q32T1), realworld (SEQ1M Q1T1, RND4K Q1T1), demo (SEQ1M Q8T1, as
    /// KDiskMark's), nvme (SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1), peak-nvme
    /// (SEQ1M Q8T1, RND4K Q32T16: peak under the NVMe preset).
    #[arg(long, default_value = "default", help_heading = "Tests")]
    #[arg(value_parser = Offered(&crate::plan::mark::PROFILE_NAMES), hide_possible_values = true)]
    pub profile: String,
    /// Whose rules to follow: crystaldiskmark (time-based loops, the first warmed up, the
    /// best loop, MB/s of 10^6 bytes, the mix as reads + writes) or kdiskmark (size-based
    /// loops capped by --runtime, no warm-up, 5s pause between tests, the mean of the loops
    /// for the default profile and the best for others, MB/s = fio's bw / 1000, the mix
    /// weighed by its read share). The window and the record say which.
    #[arg(long, default_value = "crystaldiskmark", help_heading = "Tests")]
    #[arg(value_parser = Offered(&crate::plan::mark::LIKE_NAMES), hide_possible_values = true)]
    pub like: String,
    /// Also measure every test mixed, PCT percent reads (`--mix` alone: 70, CrystalDiskMark's
    /// and KDiskMark's default).
    #[arg(
        long,
        value_name = "PCT",
        help_heading = "Tests",
        num_args = 0..=1,
        default_missing_value = "70"
    )]
    pub mix: Option<String>,
    /// Which directions run: all, read (reads, and the mix with --mix: writes nothing
    /// without --mix) or write (writes, and the mix), as KDiskMark's modes.
    #[arg(long, default_value = "all", help_heading = "Tests")]
    #[arg(value_parser = Offered(&crate::plan::mark::MODE_NAMES), hide_possible_values = true)]
    pub mode: String,
    /// Loops of each measurement.
    #[arg(
        long,
        default_value = "5",
        help_heading = "Tests",
        allow_hyphen_values = true
    )]
    pub loops: String,
    /// How the loops become one number, over --like's rule: best (CrystalDiskMark's), mean
    /// (KDiskMark's for its default profile), median.
    #[arg(long, help_heading = "Tests")]
    #[arg(value_parser = Offered(&crate::values::PICK_NAMES), hide_possible_values = true)]
    pub pick: Option<String>,
    /// Idle time before each test but the first, over --like's (kdiskmark: 5s,
    /// crystaldiskmark: 0).
    #[arg(long, value_name = "DURATION", help_heading = "Tests")]
    pub pause: Option<String>,
    /// Test data: random (filled once, as fio fills its buffers), refill (refilled before each
    /// write, fio's refill_buffers: KDiskMark's "Continuous generation") or zero (fio's
    /// zero_buffers), as KDiskMark's "Test Data".
    #[arg(long, value_name = "random|refill|zero", help_heading = "Tests")]
    #[arg(value_parser = Offered(&crate::plan::mark::DATA_NAMES), hide_possible_values = true)]
    pub data: Option<String>,
    /// Drop the kernel's page cache (write 1 to /proc/sys/vm/drop_caches, as KDiskMark's
    /// "Flush Pagecache") before every loop of every test; needs root. --like kdiskmark does
    /// by default where it can (as root), as KDiskMark does; the window says when it did not.
    #[arg(long, help_heading = "Tests", overrides_with = "no_flush_cache")]
    pub flush_cache: bool,
    /// Keep the page cache under --like kdiskmark (KDiskMark's "Flush Pagecache" off).
    #[arg(long, help_heading = "Tests", overrides_with = "flush_cache")]
    pub no_flush_cache: bool,
    /// The job flags mark takes (--size, --runtime, --interval), from the option table.
    #[command(flatten)]
    pub job: JobFlags<job_flags::Mark>,

    /// Write the run record (JSON, one segment per loop) to this file (`-`: stdout).
    #[arg(long, help_heading = "Output", allow_hyphen_values = true)]
    pub json: Option<PathBuf>,
    /// The result as table, markdown, csv or json.
    #[arg(long, default_value = "table", help_heading = "Output")]
    #[arg(value_parser = Offered(&crate::values::TABLE_FORMAT_NAMES), hide_possible_values = true)]
    pub format: String,
    /// Stay headless even in a terminal.
    #[arg(long, help_heading = "Output")]
    pub no_tui: bool,
    /// Trace the block layer (root, tracefs) during every test: each test's record carries
    /// `device.block_trace`, as bench's; without tracefs or root, one note and the run goes on.
    #[arg(long, help_heading = "Output")]
    pub trace: bool,

    /// The opt-in for writing over an existing file that holds data, or a block device (every
    /// profile writes).
    #[arg(long, help_heading = "Safety")]
    pub allow_destructive: bool,
    /// Let --json replace an existing file that is not a diskdash record.
    #[arg(long, help_heading = "Safety")]
    pub force: bool,

    #[command(flatten)]
    pub share: ShareArgs,

    #[command(flatten)]
    pub trust: TrustArgs,
}

/// `diskdash sweep`: `bench`'s options, where the workload ones take lists (`a,b,c`) and
/// ranges of powers of two (`4k..1M`, `1..256`). The points are the combinations, in the order
/// the options were given, the last varying fastest.
#[derive(Debug, Clone, Args)]
pub struct SweepArgs {
    /// Block device, existing file, or directory (a scratch file is made inside and removed).
    /// Default: a scratch file in the current directory.
    pub target: Option<PathBuf>,

    /// The job: `bench`'s flags from the option table, the swept ones taking lists, in the
    /// order given.
    #[command(flatten)]
    pub job: JobFlags<job_flags::Sweep>,

    /// Runs of each point; `--pick` says which counts.
    #[arg(long, help_heading = "Timing", allow_hyphen_values = true)]
    pub loops: Option<String>,
    /// With `--loops`: best (CrystalDiskMark's rule), mean or median of the runs.
    #[arg(long, help_heading = "Timing")]
    #[arg(value_parser = Offered(&crate::values::PICK_NAMES), hide_possible_values = true)]
    pub pick: Option<String>,

    /// On an iodepth or numjobs sweep: stop at the first point whose latency (at
    /// `--latency-percentile`) is above this (e.g. 1ms), and report the deepest that met it.
    #[arg(long, help_heading = "Plan", allow_hyphen_values = true)]
    pub latency_target: Option<String>,
    /// The percentile `--latency-target` applies to (fio's list: 50, 90, 95, 99, 99.9, ...).
    #[arg(
        long,
        default_value = "99",
        help_heading = "Plan",
        allow_hyphen_values = true
    )]
    pub latency_percentile: String,
    /// `memory`: run the same points on /dev/shm (buffered) and add memory columns.
    #[arg(long, help_heading = "Plan")]
    #[arg(value_parser = Offered(&["memory"]), hide_possible_values = true)]
    pub baseline: Option<String>,
    /// Where `--baseline memory` runs: a directory on tmpfs or ramfs (refused otherwise, so
    /// nothing baselines against a disk) [default: /dev/shm].
    #[arg(
        long,
        value_name = "DIR",
        help_heading = "Plan",
        allow_hyphen_values = true
    )]
    pub baseline_dir: Option<std::path::PathBuf>,
    /// Print the points and the estimate, and exit.
    #[arg(long, help_heading = "Plan")]
    pub points: bool,
    /// Run a plan longer than 2 hours or of more than 500 points.
    #[arg(long, help_heading = "Plan")]
    pub yes: bool,

    /// The table: table, markdown, csv or json.
    #[arg(long, default_value = "table", help_heading = "Output")]
    #[arg(value_parser = Offered(&crate::values::TABLE_FORMAT_NAMES), hide_possible_values = true)]
    pub format: String,
    /// One-line recommendations from the peaks of a block-size sweep.
    #[arg(long, help_heading = "Output")]
    pub advice: bool,
    /// Write the run record (JSON, every point a segment with its `point`) to this file (`-`:
    /// stdout).
    #[arg(long, help_heading = "Output", allow_hyphen_values = true)]
    pub json: Option<PathBuf>,
    /// Stream JSON lines as the sweep goes: every interval, and a `diskdash-sweep-point` line as
    /// each point finishes (`-`: stdout, headless).
    #[arg(long, help_heading = "Output", allow_hyphen_values = true)]
    pub jsonl: Option<PathBuf>,
    /// Stay headless even in a terminal: status lines on stderr, the table at the end.
    #[arg(long, help_heading = "Output")]
    pub no_tui: bool,
    /// Trace the block layer (root, tracefs) during every point: each point's record carries
    /// `device.block_trace`, as bench's; without tracefs or root, one note and the run goes on.
    #[arg(long, help_heading = "Output")]
    pub trace: bool,

    /// Allow writing to a block device or to an existing file that holds data.
    #[arg(long, help_heading = "Safety")]
    pub allow_destructive: bool,
    /// Let --json/--jsonl replace an existing file that is not a diskdash record.
    #[arg(long, help_heading = "Safety")]
    pub force: bool,

    #[command(flatten)]
    pub share: ShareArgs,

    #[command(flatten)]
    pub trust: TrustArgs,

    #[command(flatten)]
    pub publish: PublishArgs,
}

/// fio's arguments, raw: `diskdash fio` reads them with fio's grammar (see `fio::parse`).
#[derive(Debug, Clone, Args)]
pub struct FioArgs {
    /// Job files, fio options (--name=JOB --rw=read ...) and diskdash's flags.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Block device, existing file, or directory (a scratch file is created inside and removed
    /// afterwards). Default: a scratch file in the current directory.
    pub target: Option<PathBuf>,

    /// The job: one flag per row of the option table, in the order given.
    #[command(flatten)]
    pub job: JobFlags<job_flags::Bench>,

    /// Write the run record (JSON) to this file (`-`: stdout, the summary goes to stderr).
    #[arg(long, help_heading = "Output", allow_hyphen_values = true)]
    pub json: Option<PathBuf>,
    /// Write one JSON record per interval to this file as the run goes (`-`: stdout, headless).
    /// Replaces an earlier record; any other existing file needs --force.
    #[arg(long, help_heading = "Output", allow_hyphen_values = true)]
    pub jsonl: Option<PathBuf>,
    /// Stay headless even in a terminal.
    #[arg(long, help_heading = "Output")]
    pub no_tui: bool,
    /// Trace the block layer (root, tracefs): the device's own latency split (scheduler,
    /// device, whole) and I/O by process, in the record's `device.block_trace`; without
    /// tracefs or root, one note and the run goes on. `--trace=full` also traces each bio's
    /// wait for a request and the merges (about two more events per I/O).
    #[arg(
        long,
        help_heading = "Output",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "requests",
        value_name = "LEVEL",
        value_parser = ["requests", "full"]
    )]
    pub trace: Option<String>,

    /// Allow writing to a block device or to an existing file that holds data.
    #[arg(long, help_heading = "Safety")]
    pub allow_destructive: bool,
    /// Let --json/--jsonl replace an existing file that is not a diskdash record.
    #[arg(long, help_heading = "Safety")]
    pub force: bool,

    #[command(flatten)]
    pub share: ShareArgs,

    #[command(flatten)]
    pub trust: TrustArgs,

    #[command(flatten)]
    pub publish: PublishArgs,
}

/// What a record keeps of the machine (`bench`, `sweep`, `mark`; `fio` takes the same two
/// flags among fio's).
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Sharing")]
pub struct ShareArgs {
    /// Leave the host name, every path (targets, files, mount points) and the command line out
    /// of the record and of `--format json` (each replaced by `<redacted>`), to share them.
    #[arg(long)]
    pub redact: bool,
    /// Keep the disk's serial number in the record (`machine.disk.serial`); otherwise only its
    /// SHA-256 is kept.
    #[arg(long)]
    pub record_serial: bool,
}

/// The limits a result is marked by (`short`, `shared`, `unstable`): they judge, never stop
/// a run (`bench`, `sweep`, `mark`).
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Trust")]
pub struct TrustArgs {
    /// Mark a result measured for less than this `short` [default: 1s].
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub trust_min_time: Option<String>,
    /// Mark a result of fewer I/Os than this `short` [default: 1000].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub trust_min_ios: Option<String>,
    /// Mark a result `shared` when its disk did more than PCT percent more bytes than it,
    /// beyond the disk's rate measured idle just before the run [default: 10].
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub trust_shared_pct: Option<String>,
    /// Mark a result `unstable` when its spread (over loops, or over batches of intervals)
    /// is over PCT percent [default: 10].
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub trust_spread_pct: Option<String>,
}

/// `--serve`: the run for Prometheus while it runs (`bench`, `sweep`; `fio` reads the same
/// flags among fio's).
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Prometheus")]
pub struct PublishArgs {
    /// Serve the run's counters and latency histogram, and every disk's (as `diskdash serve`),
    /// at http://ADDR/metrics while it runs: IP:PORT, port 0 picks one (the address is printed
    /// on stderr). Only loopback unless another address is given here.
    #[arg(long, value_name = "ADDR", allow_hyphen_values = true)]
    pub serve: Option<String>,
    /// Keep serving the final values this long after the run ends, so a last scrape sees the
    /// totals (e.g. 15s, the scrape interval).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub serve_linger: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct IostatArgs {
    /// Print help (`-h` is sysstat's human-readable output).
    #[arg(long = "help", action = clap::ArgAction::Help)]
    pub help: Option<bool>,
    /// The CPU utilization report (avg-cpu); with -d or -x the device report as well.
    #[arg(short = 'c')]
    pub cpu_report: bool,
    /// The device utilization report; with -c the CPU report as well.
    #[arg(short = 'd')]
    pub device_report: bool,
    /// Extended statistics (the iostat -x table).
    #[arg(short = 'x')]
    pub extended: bool,
    /// Statistics in kilobytes (the default).
    #[arg(short = 'k')]
    pub kilobytes: bool,
    /// Statistics in megabytes.
    #[arg(short = 'm')]
    pub megabytes: bool,
    /// Short (narrow) report that fits in 80 columns.
    #[arg(short = 's')]
    pub short: bool,
    /// Human-readable: --human --pretty.
    #[arg(short = 'h')]
    pub human_pretty: bool,
    /// Sizes with a unit suffix (1.2M), percentages with a % sign.
    #[arg(long)]
    pub human: bool,
    /// Device name on the right; the extended report split into reads, writes, discards
    /// and the rest.
    #[arg(long)]
    pub pretty: bool,
    /// With --pretty: keep the extended report on one line.
    #[arg(long)]
    pub compact: bool,
    /// Decimal places, 0 to 2 (default 2).
    #[arg(long = "dec", value_name = "0|1|2", allow_hyphen_values = true)]
    #[arg(value_parser = Offered(&["0", "1", "2"]), hide_possible_values = true)]
    pub decimals: Option<String>,
    /// Device-mapper devices by their registered names (vg-lv for dm-0).
    #[arg(short = 'N')]
    pub dm_names: bool,
    /// A group of the listed devices (every shown device with ALL or none listed), reported
    /// after them as one line named NAME.
    #[arg(short = 'g', value_name = "NAME", allow_hyphen_values = true)]
    pub group: Option<String>,
    /// With -g: only the group's line.
    #[arg(short = 'H')]
    pub group_only: bool,
    /// Persistent device names of this type (a directory /dev/disk/by-TYPE: ID, LABEL, PATH,
    /// UUID, ...).
    #[arg(short = 'j', value_name = "TYPE", allow_hyphen_values = true)]
    pub persistent: Option<String>,
    /// Print the time of each report.
    #[arg(short = 't')]
    pub timestamps: bool,
    /// Omit the first report (statistics since boot).
    #[arg(short = 'y')]
    pub omit_first: bool,
    /// Include partitions: of every device (`-p ALL`; a bare `-p` lists only those that did
    /// I/O) or of the listed ones (`-p vda,sdb`).
    #[arg(short = 'p', num_args = 0..=1, default_missing_value = "", value_name = "DEVICES|ALL")]
    pub partitions: Option<String>,
    /// Omit devices with no activity during the interval.
    #[arg(short = 'z')]
    pub omit_idle: bool,
    /// Print the sysstat version whose iostat this follows, and diskdash's, then exit.
    #[arg(short = 'V')]
    pub show_version: bool,
    /// Output format: JSON (sysstat's document: .sysstat.hosts[0].statistics[]).
    #[arg(short = 'o', value_name = "JSON")]
    #[arg(value_parser = Offered(&["JSON"]), hide_possible_values = true)]
    pub output: Option<String>,
    /// Trace the block layer (root, tracefs): r_p50 r_p99 w_p50 w_p99 (ms, each request's
    /// whole time, what r_await/w_await average) after sysstat's columns, and in --record;
    /// without tracefs or root, one note on stderr and sysstat's columns alone.
    #[arg(long)]
    pub trace: bool,
    /// Devices (vda, /dev/vda, or a path on them), then INTERVAL [COUNT].
    // Negative numbers reach the operand checks, which say what is wrong with them.
    #[arg(allow_negative_numbers = true)]
    pub operands: Vec<String>,
    #[command(flatten)]
    pub record: RecordArgs,
}

#[derive(Debug, Clone, Args)]
pub struct InfoArgs {
    /// Paths or devices; every disk when none is given.
    pub targets: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on: IP:PORT (`[::1]:9977` for IPv6; port 0 picks a free one). Only
    /// loopback unless another address is given here.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9977")]
    pub listen: String,
    /// Serve only the devices whose name matches REGEX (node_exporter's flag; replaces the
    /// default exclude).
    #[arg(
        long = "collector.diskstats.device-include",
        visible_alias = "device-include",
        value_name = "REGEX"
    )]
    pub device_include: Option<String>,
    /// Leave out the devices whose name matches REGEX (node_exporter's flag) [default:
    /// ^(z?ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\d+n\d+p)\d+$, partitions and RAM/loop devices].
    #[arg(
        long = "collector.diskstats.device-exclude",
        visible_alias = "device-exclude",
        value_name = "REGEX"
    )]
    pub device_exclude: Option<String>,
    /// Leave out every node_* family and serve only diskdash's own, for a host whose
    /// node_exporter serves them already.
    #[arg(long)]
    pub no_node_metrics: bool,
    /// Trace the served disks' block layer (root, tracefs): histograms of device time per
    /// disk and op (diskdash_disk_device_time_seconds) and I/O per process
    /// (diskdash_process_io_total, at most 32 processes per disk); without tracefs or root,
    /// one note and the rest is served unchanged.
    #[arg(long)]
    pub trace: bool,
    /// Where procfs is mounted (node_exporter's flag; /host/proc in a container).
    #[arg(long = "path.procfs", value_name = "DIR", default_value = "/proc")]
    pub procfs: PathBuf,
    /// Where sysfs is mounted (node_exporter's flag).
    #[arg(long = "path.sysfs", value_name = "DIR", default_value = "/sys")]
    pub sysfs: PathBuf,
    /// udev's database, for node_disk_info's model, serial and path (node_exporter's flag).
    #[arg(
        long = "path.udev.data",
        value_name = "DIR",
        default_value = "/run/udev/data"
    )]
    pub udev_data: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct ShowArgs {
    /// A run record written by `diskdash bench --json`, or a monitor recording (`--record`).
    pub record: PathBuf,
    /// Print the run's report as its headless run printed it (the summary, fio's report, the
    /// sweep table, the mark window) instead of the dashboard; also when stdout is not a
    /// terminal.
    #[arg(long)]
    pub text: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// Run records (`bench`, `fio`, `sweep`, `mark`, `fleet` with `--json`) or monitor
    /// recordings (`--record`); several runs are compared, the first the base.
    #[arg(required = true, value_name = "RECORD")]
    pub records: Vec<PathBuf>,
    /// Write to FILE (atomically: nothing is left half-written); without it the page goes
    /// to stdout when stdout is not a terminal.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// html: the whole page; svg: one chart (`--chart NAME`).
    #[arg(long, value_enum, default_value = "html")]
    pub format: ReportFormat,
    /// The chart `--format svg` writes (`--list-charts` names them).
    #[arg(long, value_name = "NAME")]
    pub chart: Option<String>,
    /// Print the names of the charts the records can draw, one a line, and exit.
    #[arg(long)]
    pub list_charts: bool,
    /// Leave host names, paths and command lines out of the page.
    #[arg(long)]
    pub redact: bool,
    /// Replace a file at -o that is not a diskdash report or record.
    #[arg(long)]
    pub force: bool,
}

/// What `diskdash report` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Html,
    Svg,
}

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// The run to compare against (`diskdash bench --json`).
    pub base: PathBuf,
    /// The run to judge.
    pub new: PathBuf,
    /// Print the comparison as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 when a tested metric (IOPS, bandwidth, mean latency) of a job, group or point
    /// got worse by more than PCT percent at the 95% interval's bound nearest zero.
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub max_regression: Option<String>,
    /// A change of PCT percent or less is "no change within noise", whatever its interval
    /// (default 5).
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub noise_floor: Option<String>,
}

/// What a failed parse asks of the process: help and version print as clap prints them
/// (exit 0); every mistake becomes one line for the `error: ` prefix (exit 2).
#[derive(Debug, PartialEq, Eq)]
pub enum ParseFailure {
    /// `--help`, `--version`: not an error; let clap print it.
    Display,
    /// A usage error as one line (without `error: `): what is wrong, clap's tip, the usage.
    Usage(String),
}

/// Classifies clap's error and, for a mistake, folds its rendered text (message, tips, usage,
/// "For more information" pointer) into one line: `unexpected argument '-q' found; tip: to
/// pass '-q' as a value, use '-- -q'; usage: diskdash iostat [-x] ...; more: diskdash iostat
/// --help`. Taken from clap's own rendering, so clap's suggestions ("a similar argument exists")
/// are kept. `argv` (program name first) names the subcommand whose help to point at.
#[must_use]
pub fn parse_failure(err: &clap::Error, argv: &[String]) -> ParseFailure {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        return ParseFailure::Display;
    }
    if let Some(hint) = fio_hint(err, argv) {
        return ParseFailure::Usage(hint);
    }
    let rendered = err.render().to_string();
    let mut parts: Vec<String> = Vec::new();
    // Values completion offers (`cli::Offered`) are not all a command takes: its own error
    // names what it takes.
    for line in rendered
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("[possible values: "))
    {
        let part = if let Some(message) = line.strip_prefix("error: ") {
            message.to_owned()
        } else if let Some(usage) = line.strip_prefix("Usage: ") {
            format!("usage: {usage}")
        } else if let Some(pointer) = line.strip_prefix("For more information, try ") {
            // "'--help'." -> the command the user would type.
            let help = pointer.trim_end_matches('.').trim_matches('\'');
            format!("more: {} {help}", command_line_prefix(argv))
        } else {
            // A tip, a wrapped usage line, a list of possible values.
            line.to_owned()
        };
        parts.push(part);
    }
    // A line that ends with ':' introduces what follows ("not provided: <NEW>").
    let mut text = String::new();
    for part in parts {
        if !text.is_empty() {
            text.push_str(if text.ends_with(':') { " " } else { "; " });
        }
        text.push_str(&part);
    }
    ParseFailure::Usage(crate::error::one_line(&text))
}

/// A fio option `bench` does not take, said in fio terms with its `bench` equivalent, instead
/// of clap's tip: `--direct=1`, `--name=x`, `--filename=f`, `--time_based`.
fn fio_hint(err: &clap::Error, argv: &[String]) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::String(arg)) = err.get(ContextKind::InvalidArg) else {
        return None;
    };
    // clap names the flag without its value: find the value on the command line.
    let flag = arg.split_once('=').map_or(arg.as_str(), |(f, _)| f);
    let given = argv
        .iter()
        .position(|w| w == flag || w.starts_with(&format!("{flag}=")));
    let value = given.and_then(|i| match argv[i].split_once('=') {
        Some((_, v)) => Some(v),
        None => argv.get(i + 1).map(String::as_str),
    });
    let arg = given.map_or(flag, |i| argv[i].as_str());
    let command = subcommand(argv);
    if flag == "--buffered" && command.as_deref() == Some("sweep") {
        return Some(
            "--buffered: sweep takes --direct yes|no (a list sweeps both): use --direct no for \
             buffered I/O"
                .to_string(),
        );
    }
    // Only --filename's value is a target (--name's is a job's name).
    let target = value.filter(|_| flag == "--filename").unwrap_or("FILE");
    // The commands that run a job from their own flags; fio's own options belong to `diskdash
    // fio`, which runs its command lines unchanged.
    let runs = match command.as_deref() {
        Some(name @ ("bench" | "mark" | "sweep")) => Some(name),
        Some(_) => return None,
        None => None,
    };
    let hint = match (flag, runs) {
        // clap names a switch given a value by its usage: `--direct`, `--buffered`.
        ("--direct" | "--buffered", Some("bench")) => format!(
            "{flag} is a switch (no value): --direct (the default, O_DIRECT) or --buffered \
             (fio's --direct=0)"
        ),
        ("--name", Some("mark")) => format!(
            "{arg}: fio's --name starts a job; diskdash mark runs its profile's tests: drop \
             --name (or run fio's command line as diskdash fio {arg} ...)"
        ),
        ("--name", Some(name)) => format!(
            "{arg}: fio's --name starts a job; diskdash {name} runs the job its flags give: \
             drop --name (or run fio's command line as diskdash fio {arg} ...)"
        ),
        ("--filename", Some(name)) => format!(
            "{arg}: diskdash {name} takes the target as its argument: diskdash {name} {target}"
        ),
        ("--time_based" | "--time-based", Some("mark")) => format!(
            "{arg}: diskdash mark's loops run for --runtime (under --like kdiskmark, for their \
             size, capped by it): drop {flag}"
        ),
        ("--time_based" | "--time-based", Some(name)) => format!(
            "{arg}: diskdash {name} runs for --runtime (fio's --time_based) unless --io-size \
             makes it size-based: drop {flag}"
        ),
        ("--name" | "--filename" | "--time_based" | "--time-based", None) => format!(
            "{arg}: a fio option; fio's command lines run unchanged under diskdash fio \
             (diskdash fio {arg} ...), or give a target to diskdash bench {target}"
        ),
        _ => return None,
    };
    Some(crate::error::one_line(&hint))
}

/// The subcommand `argv` names (`iostat`), if any.
fn subcommand(argv: &[String]) -> Option<String> {
    use clap::CommandFactory;
    let command = Cli::command();
    argv.iter()
        .skip(1)
        .find_map(|word| command.find_subcommand(word))
        .map(|sub| sub.get_name().to_owned())
}

/// `diskdash iostat` when `argv` names a subcommand, else `diskdash`.
fn command_line_prefix(argv: &[String]) -> String {
    match subcommand(argv) {
        Some(name) => format!("diskdash {name}"),
        None => "diskdash".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    fn failure(argv: &[&str]) -> ParseFailure {
        let mut full = vec!["diskdash".to_owned()];
        full.extend(argv.iter().map(|&a| a.to_owned()));
        parse_failure(&Cli::try_parse_from(&full).unwrap_err(), &full)
    }

    fn one_line(argv: &[&str]) -> String {
        match failure(argv) {
            ParseFailure::Usage(line) => {
                assert!(!line.contains('\n'), "{line}");
                assert!(!line.starts_with("error:"), "{line}");
                line
            }
            ParseFailure::Display => panic!("{argv:?} is not an error"),
        }
    }

    #[test]
    fn clap_mistakes_fold_into_one_line_with_the_fix() {
        assert_eq!(
            one_line(&["iostat", "-q"]),
            "unexpected argument '-q' found; tip: to pass '-q' as a value, use '-- -q'; \
             usage: diskdash iostat [-c] [-d] [-x] [-k|-m] [-s] [-h] [-t] [-y] [-z] [-N] \
             [-p [DEVICES|ALL]] [-g NAME [-H]] [-o JSON] [-V] [DEVICE...] [INTERVAL [COUNT]]; \
             more: diskdash iostat --help"
        );
        assert_eq!(
            one_line(&["bench", "--runtim", "1s"]),
            "unexpected argument '--runtim' found; tip: a similar argument exists: \
             '--runtime'; usage: diskdash bench --runtime <RUNTIME> [TARGET]; \
             more: diskdash bench --help"
        );
        let missing = one_line(&["iostat", "-o"]);
        assert_eq!(
            missing,
            "a value is required for '-o <JSON>' but none was supplied; \
             more: diskdash iostat --help"
        );
        assert!(one_line(&["benchh"]).starts_with("unrecognized subcommand 'benchh'"));
        let newline = one_line(&["iostat", "--x\ny"]);
        assert!(newline.starts_with("unexpected argument '--x"), "{newline}");
    }

    #[test]
    fn help_says_that_diskdash_alone_opens_the_monitor() {
        let help = Cli::command().render_help().to_string();
        assert!(
            help.contains("`diskdash` alone opens the monitor dashboard of every disk"),
            "{help}"
        );
        assert!(help.contains("-a, --all"), "{help}");
        let cli = Cli::try_parse_from(["diskdash", "-a"]).unwrap();
        assert!(cli.all && cli.command.is_none());
    }

    #[test]
    fn fio_options_get_their_bench_equivalent() {
        assert_eq!(
            one_line(&["bench", "--direct=1"]),
            "--direct is a switch (no value): --direct (the default, O_DIRECT) or --buffered \
             (fio's --direct=0)"
        );
        assert_eq!(
            one_line(&["sweep", "--buffered"]),
            "--buffered: sweep takes --direct yes|no (a list sweeps both): use --direct no for \
             buffered I/O"
        );
        assert_eq!(
            one_line(&["bench", "--name=x"]),
            "--name=x: fio's --name starts a job; diskdash bench runs the job its flags give: \
             drop --name (or run fio's command line as diskdash fio --name=x ...)"
        );
        // Each command names itself, and without one the hint points at `diskdash fio`.
        assert_eq!(
            one_line(&["sweep", "--name=x"]),
            "--name=x: fio's --name starts a job; diskdash sweep runs the job its flags give: \
             drop --name (or run fio's command line as diskdash fio --name=x ...)"
        );
        assert_eq!(
            one_line(&["mark", "--filename=x"]),
            "--filename=x: diskdash mark takes the target as its argument: diskdash mark x"
        );
        assert_eq!(
            one_line(&["mark", "--time_based"]),
            "--time_based: diskdash mark's loops run for --runtime (under --like kdiskmark, for \
             their size, capped by it): drop --time_based"
        );
        assert_eq!(
            one_line(&["mark", "--name=x"]),
            "--name=x: fio's --name starts a job; diskdash mark runs its profile's tests: drop \
             --name (or run fio's command line as diskdash fio --name=x ...)"
        );
        assert_eq!(
            one_line(&["--name=x"]),
            "--name=x: a fio option; fio's command lines run unchanged under diskdash fio \
             (diskdash fio --name=x ...), or give a target to diskdash bench FILE"
        );
        assert_eq!(
            one_line(&["--filename", "/dev/sdb"]),
            "--filename: a fio option; fio's command lines run unchanged under diskdash fio \
             (diskdash fio --filename ...), or give a target to diskdash bench /dev/sdb"
        );
        assert_eq!(
            one_line(&["bench", "--filename=/dev/sdb"]),
            "--filename=/dev/sdb: diskdash bench takes the target as its argument: diskdash \
             bench /dev/sdb"
        );
        assert_eq!(
            one_line(&["bench", "--time_based"]),
            "--time_based: diskdash bench runs for --runtime (fio's --time_based) unless \
             --io-size makes it size-based: drop --time_based"
        );
        // Commands that take neither switch get clap's own words.
        for command in ["mark", "iostat"] {
            assert!(
                !one_line(&[command, "--direct=1"]).contains("is a switch"),
                "{command}"
            );
        }
    }

    #[test]
    fn help_and_version_are_not_errors() {
        assert_eq!(failure(&["--help"]), ParseFailure::Display);
        assert_eq!(failure(&["bench", "-h"]), ParseFailure::Display);
        assert_eq!(failure(&["--version"]), ParseFailure::Display);
    }

    #[test]
    fn iostat_dash_h_is_human_readable_and_long_help_is_help() {
        let cli = Cli::try_parse_from(["diskdash", "iostat", "-x", "-h"]).unwrap();
        let Some(Command::Iostat(args)) = cli.command else {
            panic!("not iostat")
        };
        assert!(args.extended && args.human_pretty);
        assert_eq!(failure(&["iostat", "--help"]), ParseFailure::Display);
        assert_eq!(failure(&["iostat", "-x", "--help"]), ParseFailure::Display);
    }

    #[test]
    fn negative_values_reach_the_validators() {
        let cli = Cli::try_parse_from(["diskdash", "bench", "--cpus", "-1"]).unwrap();
        let Some(Command::Bench(args)) = cli.command else {
            panic!("not bench")
        };
        assert_eq!(args.job.get(crate::bench::options::Key::Cpus), Some("-1"));
        let cli = Cli::try_parse_from(["diskdash", "iostat", "1", "-5"]).unwrap();
        let Some(Command::Iostat(args)) = cli.command else {
            panic!("not iostat")
        };
        assert_eq!(args.operands, ["1", "-5"]);
    }
}
