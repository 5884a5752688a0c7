//! fio's options -> diskdash's: the table of the options honoured (fio's name and aliases ->
//! a [`Key`] or a job-level setting), fio's defaults put before each job's options, engine
//! substitution, size-based runs, targets (file, device, directory, missing file to create),
//! steps (`stonewall`) and reporting groups (`new_group`). Every job's options go through the
//! one validator; errors name the file and line or the flag.
//!
//! Semantics follow fio's HOWTO: a job without `time_based` ends after `io_size` (else `size`)
//! bytes per worker, `runtime` capping it; sizes are binary; `[global]` applies to the job
//! sections below it.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use crate::bench::options::{JobOption, Key, Origin, hex_of, validate};
use crate::bench::spec::{BufferData, MachineLimits, StridedZones};
use crate::error::usage;
use crate::fio::parse::{self, Arity, Entry, Section};
use crate::fio::{DiskdashFlags, FioInvocation, GivenOptions, GroupInfo, OutputFormat};
use crate::plan::{Job, Missing, Plan, Step};

/// fio runs without a time limit unless given `runtime`; diskdash caps every job, at its
/// longest run time (`options::MAX_RUN_TIME`).
const UNLIMITED_RUNTIME: &str = "8760h";

/// The most percentiles `percentile_list` may name (fio's `FIO_IO_U_LIST_MAX_LEN`).
const MAX_PERCENTILES: usize = 20;

mod table;

#[cfg(test)]
use self::table::{OPTION_NAMES, exact};
use self::table::{Opt, fio_name, lookup};
pub use self::table::{Shown, known_options, resolve};

/// What a target path is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Missing,
    File {
        bytes: u64,
    },
    Block {
        bytes: u64,
    },
    Dir,
    /// A character device, FIFO or socket.
    Other,
}

/// The filesystem as the mapping sees it (injected for tests).
pub trait Probe {
    /// What `path` is.
    ///
    /// # Errors
    /// Anything but "does not exist" (permission denied, a device that cannot be opened).
    fn find(&self, path: &Path) -> std::io::Result<Found>;
    /// `path` resolved (symlinks, `..`); for a missing file, its resolved directory joined
    /// with its name.
    fn canonical(&self, path: &Path) -> PathBuf;
    /// Bytes free (to root: the reserved blocks too) on the filesystem holding `dir`.
    ///
    /// # Errors
    /// What `statvfs` said.
    fn free_bytes(&self, dir: &Path) -> std::io::Result<u64>;
    /// Whether `path` itself is a symbolic link (not followed).
    fn is_symlink(&self, path: &Path) -> bool;
}

/// The real filesystem.
pub struct Os;

impl Probe for Os {
    fn find(&self, path: &Path) -> std::io::Result<Found> {
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
            Err(e) => return Err(e),
        };
        let kind = meta.file_type();
        Ok(if kind.is_file() {
            Found::File { bytes: meta.len() }
        } else if kind.is_dir() {
            Found::Dir
        } else if kind.is_block_device() {
            // Read-only: the size needs an open descriptor (seek to the end).
            let device = std::fs::File::open(path)?;
            let bytes = crate::bench::blockdev::size_bytes(std::os::fd::AsFd::as_fd(&device))?;
            Found::Block { bytes }
        } else {
            Found::Other
        })
    }

    fn free_bytes(&self, dir: &Path) -> std::io::Result<u64> {
        let stat = nix::sys::statvfs::statvfs(dir).map_err(std::io::Error::from)?;
        Ok(stat.blocks_free().saturating_mul(stat.fragment_size()))
    }

    fn is_symlink(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    }

    fn canonical(&self, path: &Path) -> PathBuf {
        if let Ok(path) = path.canonicalize() {
            return path;
        }
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        match (parent.canonicalize(), path.file_name()) {
            (Ok(dir), Some(name)) => dir.join(name),
            _ => path.to_path_buf(),
        }
    }
}

/// Everything `load` reads from outside: files, the environment, targets, the clock's seed.
pub struct Io<'a> {
    pub read: parse::Reader<'a>,
    pub env: parse::Env<'a>,
    pub probe: &'a dyn Probe,
    /// The seed of a job with `randrepeat=0` (the time of the run).
    pub seed_now: u64,
}

/// [`crate::fio::load`] with its outside world injected.
///
/// # Errors
/// A usage error naming the option's file and line (or flag), its value and the fix.
pub fn load_with(
    args: &[String],
    io: &Io<'_>,
    machine: &MachineLimits,
) -> anyhow::Result<FioInvocation> {
    let line = parse::command_line(args, &resolve)?;
    let mut sections = line.sections;
    let files = parse::job_files(&line.files, io.read, io.env)?;
    sections.extend(files.sections);
    let mut invocation = build(sections, io, machine)?;
    invocation.inputs = files.inputs;
    Ok(invocation)
}

/// Options over all jobs once each takes the `[global]` options above it: what mapping them
/// costs grows with this product, not with the lines read.
pub const MAX_JOB_OPTIONS: usize = 1 << 18;

/// Workers over all jobs (`numjobs` summed), as fio's own limit on jobs.
pub const MAX_WORKERS: u64 = 4_096;

/// Invocation-level settings gathered from every section.
#[derive(Default)]
struct Settings {
    output_format: OutputFormat,
    output: Option<PathBuf>,
    status_interval: Option<crate::units::Interval>,
    group_reporting: bool,
    percentiles: Option<Vec<f64>>,
    parse_only: bool,
    showcmd: bool,
    sections: Vec<String>,
    readonly: Option<Entry>,
    diskdash: DiskdashFlags,
    notes: Vec<String>,
    /// The notes already taken, so a repeated one costs a lookup, not a scan.
    noted: std::collections::HashSet<String>,
    /// Notes past [`MAX_NOTES`], counted (a repeat of one counts each time).
    unshown: usize,
    /// Files a job so far creates by writing them: a later, stonewalled job that names one
    /// without a size takes its size when it starts, as fio does.
    laid_out: Vec<LaidOut>,
}

/// A file a job creates by writing it.
struct LaidOut {
    path: PathBuf,
    /// The writer's planned size: the most the file can hold when a later job starts.
    bytes: u64,
    job: String,
    /// The step the writer runs in.
    step: usize,
}

/// Notes printed at most; the rest are counted in one more.
const MAX_NOTES: usize = 100;

impl Settings {
    fn note(&mut self, text: String) {
        if self.noted.len() >= MAX_NOTES {
            if !self.noted.contains(&text) {
                self.unshown += 1;
            }
            return;
        }
        if self.noted.insert(text.clone()) {
            self.notes.push(text);
        }
    }
}

/// A job section before mapping: the first `globals` global options (those above it), then
/// its own.
struct Draft {
    name: String,
    globals: usize,
    entries: Vec<(Opt, Entry)>,
}

impl Draft {
    fn options<'a>(
        &'a self,
        globals: &'a [(Opt, Entry)],
    ) -> impl Iterator<Item = &'a (Opt, Entry)> {
        globals[..self.globals].iter().chain(&self.entries)
    }
}

fn build(
    sections: Vec<Section>,
    io: &Io<'_>,
    machine: &MachineLimits,
) -> anyhow::Result<FioInvocation> {
    let mut settings = Settings::default();
    refuse_engines_first(&sections)?;
    let facts = crate::fio::arith::Facts::of(machine);
    let (globals, drafts) = drafts(sections, &facts, &mut settings)?;
    let drafts = chosen(drafts, &settings)?;
    let (steps, groups, create_only) = plan(&drafts, &globals, io, machine, &mut settings)?;
    check_writers(&steps, io.probe)?;
    if let Some(readonly) = &settings.readonly {
        if let Some(writer) = steps.iter().flat_map(|s| &s.jobs).find(|j| j.spec.writes()) {
            return Err(usage!(
                "{}: job {} writes ({}); drop --readonly or make it a read job",
                readonly.located(),
                writer.name,
                writer.spec.rw.as_str()
            ));
        }
    }
    if settings.unshown > 0 {
        let more = format!(
            "{} more notes like these are not shown (options accepted without effect)",
            settings.unshown
        );
        settings.notes.push(more);
    }
    Ok(FioInvocation {
        given: given_options(&globals, &drafts),
        plan: Plan { steps },
        output_format: settings.output_format,
        output: settings.output,
        status_interval: settings.status_interval,
        group_reporting: settings.group_reporting,
        percentiles: settings.percentiles,
        parse_only: settings.parse_only,
        create_only,
        showcmd: settings.showcmd,
        notes: settings.notes,
        groups,
        diskdash: settings.diskdash,
        inputs: Vec::new(),
    })
}

/// Options looked up in the table: what each does, as written.
type Looked = Vec<(Opt, Entry)>;

/// A job's size as text, and the option it comes from.
type SizeOption<'a> = Option<(String, &'a Entry)>;

/// The sections' options looked up in the table: the invocation's own into `settings`, the
/// `[global]` ones in order, and each job section's as a draft over the globals above it.
fn drafts(
    sections: Vec<Section>,
    facts: &crate::fio::arith::Facts,
    settings: &mut Settings,
) -> anyhow::Result<(Looked, Vec<Draft>)> {
    let mut globals: Vec<(Opt, Entry)> = Vec::new();
    let mut drafts: Vec<Draft> = Vec::new();
    for section in sections {
        let global = section.is_global();
        let mut entries = Vec::new();
        for mut entry in section.entries {
            let Some(opt) = lookup(&entry.option) else {
                return Err(unknown(&entry));
            };
            arithmetic(opt, &mut entry, facts)?;
            // fio's write_bw_log (and the other three) alone: the job's name is the prefix.
            if opt == Opt::Log(Arity::Value)
                && entry.value.is_none()
                && entry.option.starts_with("write_")
            {
                entry.value = Some(String::new());
            }
            if opt.arity() == Arity::Value && entry.value.is_none() {
                return Err(needs_value(&entry));
            }
            if opt.command_line_only() {
                invocation(opt, &entry, settings)?;
            } else if opt == Opt::PercentileList {
                settings.percentiles = Some(percentiles(&entry)?);
            } else {
                entries.push((opt, entry));
            }
        }
        if global {
            globals.extend(entries);
        } else {
            if drafts.len() >= parse::Limits::FIO.jobs {
                return Err(usage!(
                    "job {} would be job {}; the limit is {} jobs; split them into several \
                     runs",
                    crate::error::one_line(&section.name),
                    drafts.len() + 1,
                    parse::Limits::FIO.jobs
                ));
            }
            drafts.push(Draft {
                name: section.name,
                globals: globals.len(),
                entries,
            });
        }
    }
    Ok((globals, drafts))
}

/// The jobs `--section` chooses (all without it): at least one, within [`MAX_JOB_OPTIONS`].
fn chosen(mut drafts: Vec<Draft>, settings: &Settings) -> anyhow::Result<Vec<Draft>> {
    if !settings.sections.is_empty() {
        for wanted in &settings.sections {
            if !drafts.iter().any(|d| &d.name == wanted) {
                let names: Vec<&str> = drafts.iter().map(|d| d.name.as_str()).collect();
                return Err(usage!(
                    "--section={wanted} names no job section; the jobs are: {}",
                    names.join(", ")
                ));
            }
        }
        drafts.retain(|d| settings.sections.contains(&d.name));
    }
    if drafts.is_empty() {
        return Err(usage!(
            "no job to run: give a job file with a [job] section, or --name=JOB with its \
             options (see 'diskdash fio --help')"
        ));
    }
    let options: usize = drafts.iter().map(|d| d.globals + d.entries.len()).sum();
    if options > MAX_JOB_OPTIONS {
        return Err(usage!(
            "the {} jobs take {options} options in all (each repeats the [global] options \
             above it); the limit is {MAX_JOB_OPTIONS}; put fewer options in [global] or run \
             fewer jobs",
            drafts.len()
        ));
    }
    Ok(drafts)
}

/// Each job mapped and placed: its step (`stonewall`, `wait_for`), its reporting group
/// (`new_group`); and whether the whole command line only lays out files (`create_only`).
fn plan(
    drafts: &[Draft],
    globals: &[(Opt, Entry)],
    io: &Io<'_>,
    machine: &MachineLimits,
    settings: &mut Settings,
) -> anyhow::Result<(Vec<Step>, Vec<GroupInfo>, bool)> {
    let mut steps: Vec<Step> = Vec::new();
    let mut groups: Vec<GroupInfo> = Vec::new();
    let mut workers: u64 = 0;
    // Each job's create_only, with its name.
    let mut create_only: Vec<(bool, String)> = Vec::new();
    // The job whose wait_for began the last step, when one did.
    let mut waiter: Option<String> = None;
    for (i, draft) in drafts.iter().enumerate() {
        let mapped = job(draft, globals, io, machine, settings)?;
        create_only.push((mapped.create_only, mapped.job.name.clone()));
        let waits = match &mapped.wait_for {
            Some(entry) => wait_for(entry, &mapped.job.name, &steps)?,
            None => false,
        };
        if let (Some(w), false, false) = (&waiter, mapped.stonewall, waits) {
            return Err(usage!(
                "job {} would start after job {w}'s wait_for, where fio starts it at once; \
                 put it before job {w}, or give it stonewall",
                crate::error::one_line(&mapped.job.name)
            ));
        }
        if mapped.stonewall {
            waiter = None;
        } else if waits {
            waiter = Some(mapped.job.name.clone());
        }
        let mut job = mapped.job;
        workers += u64::from(job.spec.numjobs);
        if workers > MAX_WORKERS {
            return Err(usage!(
                "job {} takes the workers to {workers} (numjobs summed over the jobs); the \
                 limit is {MAX_WORKERS}; lower numjobs or split the jobs into several runs",
                crate::error::one_line(&job.name)
            ));
        }
        if i == 0 || mapped.stonewall || waits {
            steps.push(Step {
                jobs: Vec::new(),
                point: Vec::new(),
                notes: Vec::new(),
            });
        }
        if i > 0 && (mapped.stonewall || mapped.new_group) {
            groups.push(GroupInfo {
                id: u32::try_from(groups.len()).unwrap_or(u32::MAX),
                jobs: Vec::new(),
            });
        } else if i == 0 {
            groups.push(GroupInfo {
                id: 0,
                jobs: Vec::new(),
            });
        }
        let group = groups
            .last_mut()
            .expect("a group was pushed for the first job");
        job.group = group.id;
        group.jobs.push(job.name.clone());
        settings.group_reporting |= mapped.group_reporting;
        let step = steps.len() - 1;
        if let Some((_, writer)) = mapped.sized_by.as_ref().filter(|(at, _)| *at == step) {
            let file = job.target.as_deref().unwrap_or(Path::new("")).display();
            let name = crate::error::one_line(&job.name);
            return Err(usage!(
                "job {name} reads {file} while job {writer} writes it into being, so it has no \
                 size yet; add stonewall to job {name} to run it after, or give it size=SIZE"
            ));
        }
        if let (Some(path), Missing::Create { .. }, true) =
            (&job.target, job.missing, job.spec.writes())
        {
            settings.laid_out.push(LaidOut {
                path: path.clone(),
                bytes: job.spec.size_bytes,
                job: job.name.clone(),
                step,
            });
        }
        steps.last_mut().expect("a step was pushed").jobs.push(job);
    }
    Ok((steps, groups, only_create(&create_only)?))
}

/// Whether every job has `create_only=1`: a command line lays out its files or runs, not both.
fn only_create(create_only: &[(bool, String)]) -> anyhow::Result<bool> {
    match (
        create_only.iter().find(|(c, _)| *c),
        create_only.iter().find(|(c, _)| !*c),
    ) {
        (Some((_, laid_out)), Some((_, run))) => Err(usage!(
            "job {} has create_only=1 but job {} runs: diskdash lays out the files of a whole \
             command line or runs it; give the create_only jobs their own command line",
            crate::error::one_line(laid_out),
            crate::error::one_line(run)
        )),
        (Some(_), None) => Ok(true),
        _ => Ok(false),
    }
}

/// The options as written, by fio's own names, for the report's `global options` and `job
/// options`.
fn given_options(globals: &[(Opt, Entry)], drafts: &[Draft]) -> GivenOptions {
    let mut given = GivenOptions::default();
    for (_, entry) in globals {
        if let Some(value) = &entry.value {
            GivenOptions::set(&mut given.global, &fio_name(&entry.option), value.trim());
        }
    }
    for draft in drafts {
        let mut own = Vec::new();
        for (_, entry) in &draft.entries {
            if let Some(value) = &entry.value {
                GivenOptions::set(&mut own, &fio_name(&entry.option), value.trim());
            }
        }
        given.jobs.push((draft.name.clone(), own));
    }
    given
}

/// fio's keywords and arithmetic in a value (`size=$mb_memory/2`, `bs=(2*4k)`), done before
/// the value means anything; names, paths and words are left as written.
fn arithmetic(opt: Opt, entry: &mut Entry, facts: &crate::fio::arith::Facts) -> anyhow::Result<()> {
    let words = matches!(
        opt,
        Opt::Filename
            | Opt::Directory
            | Opt::JobName
            | Opt::FilenameFormat
            | Opt::WaitFor
            | Opt::IoEngine
            | Opt::Verify
            | Opt::Accepted(..)
            | Opt::Log(_)
    ) || opt.command_line_only();
    let Some(text) = entry.value.as_deref().filter(|_| !words) else {
        return Ok(());
    };
    match crate::fio::arith::evaluate(text.trim(), facts) {
        Ok(Some(value)) => entry.value = Some(value),
        Ok(None) => {}
        Err(why) => {
            return Err(usage!(
                "{}: the arithmetic {why}; write a number, e.g. size=(2*4k) or size=$mb_memory/2",
                entry.located()
            ));
        }
    }
    Ok(())
}

/// A job whose engine diskdash does not run is refused naming the engine, before any of the
/// engine's own options (`port=`, `cpuload=`, `donorname=`) could be refused as unknown: the
/// engine is the reason. Each job's engine is its own `ioengine`, else the last `[global]`'s
/// above it, else fio's psync.
const RUN_ENGINES: [&str; 9] = [
    "io_uring",
    "libaio",
    "psync",
    "null",
    "falloc",
    "ftruncate",
    "filecreate",
    "filestat",
    "filedelete",
];

fn refuse_engines_first(sections: &[Section]) -> anyhow::Result<()> {
    let mut global: Option<&Entry> = None;
    for section in sections {
        let own = section
            .entries
            .iter()
            .rfind(|e| lookup(&e.option) == Some(Opt::IoEngine));
        if section.is_global() {
            global = own.or(global);
        } else if let Some(entry) = own.or(global) {
            let text = engine(entry, &mut Settings::default())?;
            if !RUN_ENGINES.contains(&text) {
                // The validator's words, said before any other option is looked at.
                return Err(usage!(
                    "{} {text:?} is not an engine; use io_uring, libaio, psync or null",
                    entry.name()
                ));
            }
        }
    }
    Ok(())
}

fn unknown(entry: &Entry) -> anyhow::Error {
    let name = entry.option.replace('-', "_");
    if name.contains("destructive") && matches!(entry.origin, Origin::File { .. }) {
        return usage!(
            "{}: a job file cannot allow destructive writes; pass --allow-destructive to \
             diskdash fio on the command line",
            entry.located()
        );
    }
    match closest_option(&name) {
        Some(near) => usage!(
            "{}: not a fio option diskdash knows; did you mean {near}?",
            entry.located()
        ),
        None => usage!(
            "{}: not a fio option diskdash knows; see 'diskdash fio --help' for the options it \
             honours",
            entry.located()
        ),
    }
}

/// The option a mistyped name most likely meant (`iodepht` -> `iodepth`), in a job file as on
/// the command line: the nearest name by edits (a swap of two neighbours is one), when it is
/// near enough to be a typo (one edit in four letters). Never `allow_destructive`.
fn closest_option(name: &str) -> Option<&'static str> {
    let limit = (name.chars().count() / 4).max(1);
    table::OPTION_NAMES
        .iter()
        .filter(|n| **n != "allow_destructive")
        .map(|n| (edits(name, n), *n))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbouring letters, each one edit.
fn edits(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

fn needs_value(entry: &Entry) -> anyhow::Error {
    let prefix = if matches!(entry.origin, Origin::File { .. }) {
        ""
    } else {
        "--"
    };
    usage!(
        "{} needs a value; write {prefix}{}=VALUE",
        entry.name(),
        entry.option
    )
}

/// `1`/`0` (and `true`/`false`, `yes`/`no`); alone, 1. The validator's wording.
fn flag(entry: &Entry) -> anyhow::Result<bool> {
    match entry.value.as_deref().map(str::trim) {
        None | Some("1" | "true" | "yes") => Ok(true),
        Some("0" | "false" | "no") => Ok(false),
        Some(other) => Err(usage!("{} {other:?} is not 1 or 0", entry.name())),
    }
}

fn value(entry: &Entry) -> &str {
    entry.value.as_deref().unwrap_or("").trim()
}

/// An invocation option or a diskdash flag.
fn invocation(opt: Opt, entry: &Entry, settings: &mut Settings) -> anyhow::Result<()> {
    if let Origin::File { .. } = entry.origin {
        if opt == Opt::AllowDestructive {
            return Err(unknown(entry));
        }
        return Err(usage!(
            "{}: is an option of fio's command line, not of a job file; pass --{}",
            entry.located(),
            entry.written()
        ));
    }
    let path = || PathBuf::from(value(entry));
    let switch = |entry: &Entry| -> anyhow::Result<bool> {
        match entry.value {
            None => Ok(true),
            Some(_) => Err(usage!(
                "{}: --{} is a switch and takes no value",
                entry.located(),
                entry.option
            )),
        }
    };
    match opt {
        Opt::OutputFormat => {
            settings.output_format = match value(entry) {
                "normal" => OutputFormat::Normal,
                "json" => OutputFormat::Json,
                "json+" => OutputFormat::JsonPlus,
                "terse" => OutputFormat::Terse,
                _ => {
                    return Err(usage!(
                        "{}: not an output format diskdash writes; use normal, json, json+ or \
                         terse (one of them)",
                        entry.located()
                    ));
                }
            };
        }
        Opt::Minimal => {
            if flag(entry)? {
                settings.output_format = OutputFormat::Terse;
            }
        }
        Opt::TerseVersion => {
            if value(entry) != "3" {
                return Err(usage!(
                    "{}: diskdash writes terse version 3 (fio's default); use \
                     --terse-version=3 or leave it out",
                    entry.located()
                ));
            }
        }
        Opt::Output => settings.output = Some(path()),
        Opt::StatusInterval => {
            let text = value(entry);
            let interval = crate::units::Interval::parse(text)
                .map_err(|e| usage!("{} {text:?} {e}", entry.name()))?;
            settings.status_interval = Some(interval);
        }
        Opt::ShowCmd => settings.showcmd = flag(entry)?,
        Opt::ParseOnly => settings.parse_only = flag(entry)?,
        Opt::Section => settings.sections.push(value(entry).to_string()),
        Opt::Readonly => {
            if flag(entry)? {
                settings.readonly = Some(entry.clone());
            }
        }
        Opt::AllowDestructive => settings.diskdash.allow_destructive = switch(entry)?,
        Opt::NoTui => settings.diskdash.no_tui = switch(entry)?,
        Opt::Force => settings.diskdash.force = switch(entry)?,
        Opt::Redact => settings.diskdash.redact = switch(entry)?,
        Opt::RecordSerial => settings.diskdash.record_serial = switch(entry)?,
        Opt::Trace => settings.diskdash.trace = switch(entry)?,
        Opt::Json => settings.diskdash.json = Some(path()),
        Opt::Jsonl => settings.diskdash.jsonl = Some(path()),
        Opt::Serve => settings.diskdash.serve = Some(value(entry).to_string()),
        Opt::ServeLinger => settings.diskdash.serve_linger = Some(value(entry).to_string()),
        _ => unreachable!("not an invocation option: {opt:?}"),
    }
    Ok(())
}

fn percentiles(entry: &Entry) -> anyhow::Result<Vec<f64>> {
    let text = value(entry);
    let bad = || {
        usage!(
            "{} {text:?} is not a list of percentiles; use e.g. 50:99:99.9 (each above 0, at \
             most 100, at most {MAX_PERCENTILES})",
            entry.name()
        )
    };
    let list: Vec<f64> = text
        .split(':')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    if list.is_empty()
        || list.len() > MAX_PERCENTILES
        || list
            .iter()
            .any(|p| !p.is_finite() || *p <= 0.0 || *p > 100.0)
    {
        return Err(bad());
    }
    Ok(list)
}

/// A job and what places it in the plan.
struct Mapped {
    job: Job,
    /// `create_only=1`: lay out the file, run nothing.
    create_only: bool,
    /// `wait_for`: the job it starts after, and where that was said.
    wait_for: Option<Entry>,
    stonewall: bool,
    new_group: bool,
    group_reporting: bool,
    /// The step of the earlier job whose file this job takes the size of when it starts.
    sized_by: Option<(usize, String)>,
}

/// fio's defaults where they differ from `diskdash bench`'s (fio's HOWTO): a sequential read
/// of 4k, one I/O in flight, the sync engine, through the page cache, every worker on every
/// allowed CPU, no time limit, I/O buffers in plain 4 KiB pages, and io_uring without
/// registered buffers or file (fio's `fixedbufs` and `registerfiles` are off unless set:
/// each I/O then pins its pages and looks its file up, as fio's do).
fn fio_defaults() -> Vec<JobOption> {
    [
        (Key::Rw, "read"),
        (Key::Bs, "4k"),
        (Key::IoDepth, "1"),
        (Key::IoEngine, "psync"),
        (Key::Direct, "0"),
        (Key::IoMem, "malloc"),
        (Key::FixedBufs, "0"),
        (Key::RegisterFiles, "0"),
        (Key::CpusPolicy, "shared"),
        (Key::Runtime, UNLIMITED_RUNTIME),
    ]
    .into_iter()
    .map(|(key, value)| JobOption {
        key,
        value: value.to_string(),
        origin: Origin::FioDefault,
    })
    .collect()
}

fn push(options: &mut Vec<JobOption>, key: Key, value: impl Into<String>, entry: &Entry) {
    // Given by one of the key's aliases (`blocksize=`): errors name it so, as fio does.
    let written = entry.option.replace('-', "_");
    let alias = key
        .row()
        .fio_aliases
        .iter()
        .copied()
        .find(|a| *a == written);
    options.push(JobOption {
        key,
        value: value.into(),
        origin: entry.origin.clone().with_alias(alias),
    });
}

/// A job's options as the loop over them leaves them: the validator's options so far, and the
/// options whose meaning waits for the others (the target, the size, the time, the zones).
struct Gathered<'a> {
    name: String,
    options: Vec<JobOption>,
    filename: Option<&'a Entry>,
    directory: Option<&'a Entry>,
    size: Option<&'a Entry>,
    io_size: Option<&'a Entry>,
    filesize: Option<&'a Entry>,
    runtime: Option<&'a Entry>,
    time_based: Option<&'a Entry>,
    unlink: bool,
    stonewall: bool,
    new_group: bool,
    group_reporting: bool,
    randrepeat: bool,
    create_only: bool,
    zero_buffers: bool,
    refill_buffers: bool,
    loops: Option<(u64, &'a Entry)>,
    do_verify: Option<&'a Entry>,
    wait_for: Option<&'a Entry>,
    filename_format: Option<&'a Entry>,
    open_files: Option<&'a Entry>,
    file_service: Option<&'a Entry>,
    blockalign: Option<&'a Entry>,
    fill_device: Option<&'a Entry>,
    /// fio's zonemode, zonesize, zonerange, zoneskip... (by `ZoneOpt`).
    zone: [Option<&'a Entry>; 9],
    /// fio's sg engine (its `ioengine` entry), its `sg_write_mode` and `writefua`.
    sg: Option<&'a Entry>,
    sg_mode: Option<&'a Entry>,
    writefua: bool,
}

impl<'a> Gathered<'a> {
    fn new(name: String) -> Self {
        Self {
            name,
            options: fio_defaults(),
            filename: None,
            directory: None,
            size: None,
            io_size: None,
            filesize: None,
            runtime: None,
            time_based: None,
            unlink: false,
            stonewall: false,
            new_group: false,
            group_reporting: false,
            randrepeat: true,
            create_only: false,
            zero_buffers: false,
            refill_buffers: false,
            loops: None,
            do_verify: None,
            wait_for: None,
            filename_format: None,
            open_files: None,
            file_service: None,
            blockalign: None,
            fill_device: None,
            zone: [None; 9],
            sg: None,
            sg_mode: None,
            writefua: false,
        }
    }

    fn push(&mut self, key: Key, value: impl Into<String>, entry: &Entry) {
        push(&mut self.options, key, value, entry);
    }

    /// One option: its value parsed, checked and put where the job takes it (an option to
    /// the validator, or a setting the later steps read).
    fn apply(&mut self, opt: Opt, entry: &'a Entry, settings: &mut Settings) -> anyhow::Result<()> {
        match opt {
            Opt::Job(key) => self.push(key, value(entry), entry),
            Opt::Bool(key) => self.push(key, if flag(entry)? { "1" } else { "0" }, entry),
            Opt::RwMixWrite => self.push(Key::RwMixRead, rwmixread_of(entry)?, entry),
            Opt::Buffered => self.push(Key::Direct, if flag(entry)? { "0" } else { "1" }, entry),
            Opt::RandRepeat => self.randrepeat = flag(entry)?,
            Opt::IoEngine => {
                let engine = engine(entry, settings)?;
                self.sg = (value(entry) == "sg").then_some(entry);
                self.push(Key::IoEngine, engine, entry);
            }
            Opt::Size if entry.option.replace('-', "_") == "filesize" => {
                self.filesize = Some(entry);
            }
            Opt::Size => self.size = Some(entry),
            Opt::IoSize => self.io_size = Some(entry),
            Opt::Runtime => self.runtime = Some(entry),
            Opt::TimeBased => self.time_based = flag(entry)?.then_some(entry),
            Opt::Filename => self.filename = Some(entry),
            Opt::Directory => self.directory = Some(entry),
            Opt::Unlink => self.unlink = flag(entry)?,
            Opt::Stonewall => self.stonewall = flag(entry)?,
            Opt::NewGroup => self.new_group = flag(entry)?,
            Opt::GroupReporting => self.group_reporting = flag(entry)?,
            Opt::AllowMountedWrite => allow_mounted_write(entry)?,
            Opt::JobName => self.name = value(entry).to_string(),
            Opt::CreateOnly => self.create_only = flag(entry)?,
            Opt::ZeroBuffers => self.zero_buffers = flag(entry)?,
            Opt::RefillBuffers => self.refill_buffers = flag(entry)?,
            Opt::Loops => self.loops = Some((loops_of(entry)?, entry)),
            Opt::Verify => {
                let ours = verify_of(entry, settings);
                self.push(Key::Verify, ours, entry);
            }
            Opt::DoVerify => {
                self.do_verify = Some(entry);
                self.push(Key::DoVerify, if flag(entry)? { "1" } else { "0" }, entry);
            }
            Opt::WaitFor => self.wait_for = Some(entry),
            Opt::FillDevice => {
                self.fill_device = flag(entry)?.then_some(entry);
                self.push(Key::FillDevice, value(entry), entry);
            }
            Opt::ContinueOnError => {
                continue_on_error(entry)?;
                self.push(Key::ContinueOnError, value(entry), entry);
            }
            Opt::OpenFiles => self.open_files = Some(open_files(entry)?),
            Opt::FileServiceType => self.file_service = Some(file_service(entry)?),
            Opt::FilenameFormat => self.filename_format = Some(entry),
            Opt::BlockAlign => self.blockalign = Some(entry),
            Opt::Zone(which) => self.zone[which as usize] = Some(entry),
            Opt::BsRange => bs_range(&mut self.options, entry)?,
            Opt::IgnoreError => {
                ignore_error_of(entry)?;
                self.push(Key::IgnoreError, value(entry), entry);
            }
            Opt::SubmitMode => submit_mode(entry, settings)?,
            Opt::VerifyPattern => {
                let stored = verify_pattern_of(entry)?;
                self.push(Key::VerifyPattern, stored, entry);
                // fio's verify_pattern alone turns on verify=pattern (a later verify= wins).
                if !self.options.iter().any(|o| o.key == Key::Verify) {
                    self.push(Key::Verify, "pattern", entry);
                }
            }
            Opt::BufferPattern => {
                self.push(Key::BufferPattern, hex_of(&pattern_of(entry)?), entry);
            }
            Opt::SgWriteMode => self.sg_mode = Some(entry),
            Opt::Fua(true) => self.writefua = flag(entry)?,
            Opt::Fua(false) => readfua(entry, settings)?,
            Opt::Accepted(_, note) => settings.note(format!("{}: {note}", entry.located())),
            // The log files are opened from the options as given, once the plan is made.
            Opt::Log(_) => {}
            Opt::Tuning(_) => settings.note(format!(
                "{}: accepted; it tunes fio's own measurement, diskdash measures every I/O \
                 the same way",
                entry.located()
            )),
            _ => unreachable!("an invocation option in a job: {opt:?}"),
        }
        Ok(())
    }
}

/// fio's `rwmixwrite`: the read share it leaves.
fn rwmixread_of(entry: &Entry) -> anyhow::Result<String> {
    let text = value(entry);
    let pct = text
        .parse::<u8>()
        .ok()
        .filter(|p| *p <= 100)
        .ok_or_else(|| {
            usage!(
                "{} {text:?} is not a percentage; use 0 to 100",
                entry.name()
            )
        })?;
    Ok((100 - pct).to_string())
}

/// fio's `allow_mounted_write=1` is refused: diskdash never writes to a mounted device.
fn allow_mounted_write(entry: &Entry) -> anyhow::Result<()> {
    if flag(entry)? {
        return Err(usage!(
            "{}: diskdash never writes to a mounted device; unmount it, or run on a file in \
             its filesystem",
            entry.located()
        ));
    }
    Ok(())
}

/// fio's `loops`: 1 or more.
fn loops_of(entry: &Entry) -> anyhow::Result<u64> {
    let text = value(entry);
    text.parse::<u64>().ok().filter(|n| *n >= 1).ok_or_else(|| {
        usage!(
            "{} {text:?} is not a number of loops; use 1 or more, e.g. loops=3",
            entry.name()
        )
    })
}

/// fio's `verify` kind as diskdash runs it: a hash as sha256, a checksum (and `meta`) as
/// crc32c, with a note; the others as written (the validator takes or refuses them).
fn verify_of<'e>(entry: &'e Entry, settings: &mut Settings) -> &'e str {
    let text = value(entry);
    let ours = match text.to_ascii_lowercase().as_str() {
        "md5" | "sha1" | "sha512" | "sha3-224" | "sha3-256" | "sha3-384" | "sha3-512" => "sha256",
        "crc64" | "crc32" | "crc16" | "crc7" | "meta" => "crc32c",
        _ => return text,
    };
    let meta = if text.eq_ignore_ascii_case("meta") {
        " (offset, length, writer, generation, as fio's meta header holds offset, length and \
         write number), then verify_pattern where one is given"
    } else {
        ""
    };
    settings.note(format!(
        "{}: verify={text} runs as diskdash's {ours} check; the blocks carry diskdash's \
         header{meta}, which fio's verify cannot read (nor diskdash fio's)",
        entry.located()
    ));
    ours
}

/// fio's `continue_on_error`: an error class.
fn continue_on_error(entry: &Entry) -> anyhow::Result<()> {
    let text = value(entry);
    if crate::bench::spec::ErrorPolicy::classes_of(text).is_none() {
        return Err(usage!(
            "{} {text:?} is not an error class; use none, read, write, io, verify, all, 0 or 1",
            entry.name()
        ));
    }
    Ok(())
}

/// fio's `openfiles`: 1 or more.
fn open_files(entry: &Entry) -> anyhow::Result<&Entry> {
    let text = value(entry);
    if !text.parse::<u64>().is_ok_and(|n| n >= 1) {
        return Err(usage!(
            "{} {text:?} is not a number of open files; use 1 or more",
            entry.name()
        ));
    }
    Ok(entry)
}

/// fio's `file_service_type`: checked here, where the option is; taken by `file_set`.
fn file_service(entry: &Entry) -> anyhow::Result<&Entry> {
    if crate::bench::fileset::FileSet::parse_service(value(entry)).is_none() {
        return Err(not_a_service(entry));
    }
    Ok(entry)
}

/// fio's `ignore_error` lists, checked.
fn ignore_error_of(entry: &Entry) -> anyhow::Result<()> {
    ignore_error(value(entry)).map_err(|word| {
        usage!(
            "{} {:?}: {word:?} is not an error; give READ,WRITE,VERIFY lists of errno names or \
             numbers joined by ':', e.g. ignore_error=,ENOSPC:EIO",
            entry.name(),
            value(entry)
        )
    })?;
    Ok(())
}

/// fio's `io_submit_mode`: inline, or offload (accepted with a note).
fn submit_mode(entry: &Entry, settings: &mut Settings) -> anyhow::Result<()> {
    match value(entry) {
        "inline" | "0" => {}
        "offload" | "1" => settings.note(format!(
            "{}: accepted; diskdash submits from each worker's own thread, the same I/Os at \
             the same rate, where fio's offload hands them to a submitting thread",
            entry.located()
        )),
        text => {
            return Err(usage!(
                "{} {text:?} is not a submit mode; use inline or offload",
                entry.name()
            ));
        }
    }
    Ok(())
}

/// fio's `readfua`: accepted with a note.
fn readfua(entry: &Entry, settings: &mut Settings) -> anyhow::Result<()> {
    if flag(entry)? {
        settings.note(format!(
            "{}: accepted; an sg job's reads are O_DIRECT reads of the block device, which the \
             page cache does not serve (no FUA bit reaches the device: its own cache may)",
            entry.located()
        ));
    }
    Ok(())
}

/// The loop over a job's options, `[global]`'s above it first: each through its row's
/// handler ([`Gathered::apply`]).
fn gather<'a>(
    draft: &'a Draft,
    globals: &'a [(Opt, Entry)],
    settings: &mut Settings,
) -> anyhow::Result<Gathered<'a>> {
    let mut gathered = Gathered::new(draft.name.clone());
    for (opt, entry) in draft.options(globals) {
        if matches!(
            opt,
            Opt::Size | Opt::IoSize | Opt::Job(Key::Offset | Key::OffsetIncrement)
        ) {
            refuse_zones(entry)?;
        }
        // fio names a job by its section: `name=` counts in the section itself, not in
        // [global].
        if *opt == Opt::JobName && !draft.entries.iter().any(|(_, e)| std::ptr::eq(e, entry)) {
            continue;
        }
        gathered.apply(*opt, entry, settings)?;
    }
    Ok(gathered)
}

/// A job: its options through their rows ([`gather`]), then what needs several of them: the
/// engine's sg settings, the seed, the time, the target, the size, the validated spec and the
/// clones' files.
fn job(
    draft: &Draft,
    globals: &[(Opt, Entry)],
    io: &Io<'_>,
    machine: &MachineLimits,
    settings: &mut Settings,
) -> anyhow::Result<Mapped> {
    let mut g = gather(draft, globals, settings)?;
    sg_job(&mut g.options, g.sg, g.sg_mode, g.writefua, settings)?;
    if !g.randrepeat && !g.options.iter().any(|o| o.key == Key::RandSeed) {
        g.options
            .push(JobOption::flag(Key::RandSeed, io.seed_now.to_string()));
    }
    timing(&mut g, settings);
    let target = target(&g, io)?;
    let sized = sizes(&mut g, &target, io, settings)?;
    let spec = spec_of(&mut g, &target, &sized, machine, settings)?;
    let clones = clones(&g, &target, &spec, sized.nrfiles, io)?;
    Ok(Mapped {
        create_only: g.create_only,
        wait_for: g.wait_for.cloned(),
        job: Job {
            name: g.name,
            spec,
            target: Some(target.path),
            missing: sized.missing,
            group: 0,
            clones,
            whole: true,
        },
        stonewall: g.stonewall,
        new_group: g.new_group,
        group_reporting: g.group_reporting,
        sized_by: sized.sized_by,
    })
}

/// Time-based or size-based, as fio: without time_based the job ends after its bytes.
fn timing(g: &mut Gathered<'_>, settings: &mut Settings) {
    if let (Some(tb), None) = (g.time_based, g.runtime) {
        // fio logs "time_based requires a runtime/timeout setting" and runs size-based.
        settings.note(format!(
            "{}: time_based needs a runtime; without one the job runs size-based, as fio \
             does (add runtime=60s for a timed run)",
            tb.located()
        ));
        g.time_based = None;
    }
    match (g.time_based, g.runtime) {
        (Some(_), None) => unreachable!("time_based without a runtime became size-based"),
        (Some(_), Some(rt)) => push(&mut g.options, Key::Runtime, value(rt), rt),
        // fio's runtime=0 is no limit: the cap stays.
        (None, Some(rt)) if value(rt) != "0" => push(&mut g.options, Key::Runtime, value(rt), rt),
        (None, _) => {}
    }
}

/// A job's target: its file, device or directory, and what is there.
struct Target<'a> {
    path: PathBuf,
    found: Found,
    /// The option that names it (filename, filename_format or directory).
    entry: Option<&'a Entry>,
    /// The other files of a job over several (fio's ':' list in filename).
    listed: Vec<PathBuf>,
    dir: Option<PathBuf>,
    /// A metadata engine's job: nrfiles files in its directory.
    meta: bool,
    /// `filename_format` of a job on files (not a metadata engine's).
    format: Option<&'a Entry>,
    /// `filename_format` of a metadata engine's job: its files' names.
    meta_format: Option<&'a Entry>,
}

/// The target. A metadata engine's job works on nrfiles files in its directory, named by
/// filename_format.
fn target<'a>(g: &Gathered<'a>, io: &Io<'_>) -> anyhow::Result<Target<'a>> {
    let meta = is_meta_engine(&g.options);
    let (format, meta_format) = if meta {
        (None, g.filename_format)
    } else {
        (g.filename_format, None)
    };
    let dir = g.directory.map(|d| PathBuf::from(value(d)));
    let name = &g.name;
    let mut listed: Vec<PathBuf> = Vec::new();
    let (path, found, entry) = match g.filename {
        Some(entry) if meta => {
            return Err(usage!(
                "{}: a {} job works on nrfiles files in its directory; use directory=DIR \
                 (and filename_format for their names) instead of filename",
                entry.located(),
                g.options
                    .iter()
                    .rfind(|o| o.key == Key::IoEngine)
                    .map_or("", |o| o.value.as_str())
            ));
        }
        Some(entry) => {
            let (path, found);
            (path, found, listed) = named_target(entry, dir.as_deref(), &g.options, io.probe)?;
            (path, found, Some(entry))
        }
        None if format.is_some() => {
            let format = format.expect("matched");
            let path = file_path(value(format), name, 0, dir.as_deref());
            let found = named_file(&path, format, io.probe)?;
            (path, found, Some(format))
        }
        None => {
            // fio's default filename_format, in the directory (or the current one); a
            // metadata engine's job works in the directory itself.
            let at = dir.clone().unwrap_or_else(|| PathBuf::from("."));
            if io.probe.find(&at).unwrap_or(Found::Missing) != Found::Dir {
                let how = g
                    .directory
                    .map_or_else(String::new, |d| format!("{}: ", d.located()));
                return Err(usage!(
                    "{how}job {name} has no target: {} is not a directory; give filename=FILE \
                     or directory=DIR",
                    at.display()
                ));
            }
            if meta {
                (at, Found::Dir, g.directory)
            } else {
                let path = file_path(DEFAULT_FILENAME_FORMAT, name, 0, dir.as_deref());
                let found = named_file_of_job(&path, name, io.probe)?;
                (path, found, g.directory)
            }
        }
    };
    Ok(Target {
        path,
        found,
        entry,
        listed,
        dir,
        meta,
        format,
        meta_format,
    })
}

/// fio's `filename`, a ':' list: the job's files, the first one its target (in `dir` when
/// relative), and what is there; the others listed.
fn named_target(
    entry: &Entry,
    dir: Option<&Path>,
    options: &[JobOption],
    probe: &dyn Probe,
) -> anyhow::Result<(PathBuf, Found, Vec<PathBuf>)> {
    let mut names = value(entry).split(':').filter(|n| !n.is_empty());
    let text = names.next().unwrap_or("");
    let listed = names.map(PathBuf::from).collect();
    let path = match dir {
        Some(dir) if Path::new(text).is_relative() => dir.join(text),
        _ => PathBuf::from(text),
    };
    let found = probe.find(&path).map_err(|e| {
        usage!(
            "{}: cannot look at {}: {e}",
            entry.located(),
            path.display()
        )
    })?;
    match found {
        Found::Dir => Err(usage!(
            "{}: {} is a directory; use directory={} for the job's files in it",
            entry.located(),
            path.display(),
            path.display()
        )),
        Found::Other if options.iter().any(|o| o.key == Key::SgWriteMode) => Err(usage!(
            "{}: {} is not a block device: diskdash sends no SCSI commands through \
             /dev/sg*; name the disk's block device (e.g. /dev/sdb) for ioengine=sg",
            entry.located(),
            path.display()
        )),
        Found::Other => Err(usage!(
            "{}: {} is neither a regular file nor a block device; name a file or a disk",
            entry.located(),
            path.display()
        )),
        _ => Ok((path, found, listed)),
    }
}

/// A job's size and what it says of the target.
struct Sized<'a> {
    /// fio's `filesize=LOW-HIGH`: each file's length drawn in the range.
    range: Option<crate::bench::fileset::SizeRange>,
    /// The step and name of the earlier job whose file this job takes the size of.
    sized_by: Option<(usize, String)>,
    missing: Missing,
    nrfiles: u64,
    /// The size's text and the option it comes from.
    text: String,
    entry: &'a Entry,
}

/// The job's size (as given, a share of the target, the target's length, a filesystem to
/// fill or an earlier job's file), pushed with each file's size and the bytes each worker
/// moves; whether a missing target is created.
fn sizes<'a>(
    g: &mut Gathered<'a>,
    target: &Target<'a>,
    io: &Io<'_>,
    settings: &mut Settings,
) -> anyhow::Result<Sized<'a>> {
    let capacity = match target.found {
        Found::File { bytes } | Found::Block { bytes } => Some(bytes),
        _ => None,
    };
    // fio's filesize=LOW-HIGH: each file's length drawn in the range, aligned to the block.
    let range = match g.filesize {
        Some(entry) if !target.meta => size_range(entry, &g.options)?,
        _ => None,
    };
    // fio's filesize is the file's length whatever size says; size is then the job's I/O,
    // at most the file's length (fio caps it there).
    if let Some(file) = g.filesize {
        let bytes = |e: &Entry| crate::units::parse_size_bytes(value(e));
        if let Some(total) = g.size
            && !target.meta
            && g.io_size.is_none()
            && (range.is_some()
                || matches!((bytes(total), bytes(file)), (Some(t), Some(f)) if t < f))
        {
            g.io_size = Some(total);
        }
        g.size = Some(file);
    }
    let size_option = given_size(g, target, capacity, settings)?;
    let size_option = match (size_option, g.fill_device, target.found) {
        (None, Some(entry), Found::Missing) => Some((
            fill_size(io.probe, &target.path, &g.options, entry, settings)?,
            entry,
        )),
        (size_option, ..) => size_option,
    };
    let (size_option, sized_by) = match (size_option, target.found) {
        (None, Found::Missing) => written_size(target, &g.name, settings),
        (size_option, _) => (size_option, None),
    };
    let missing = missing(
        g,
        target,
        capacity,
        size_option.is_some(),
        sized_by.is_some(),
        settings,
    )?;
    let Some((text, entry)) = size_option else {
        return Err(usage!(
            "job {} has no size: its new file {} needs one; add size=SIZE (e.g. size=1G) or \
             filename=FILE",
            g.name,
            target.path.display()
        ));
    };
    let nrfiles = if target.meta {
        1
    } else if g.filename.is_some() {
        target.listed.len() as u64 + 1
    } else {
        g.options
            .iter()
            .rfind(|o| o.key == Key::NrFiles)
            .and_then(|o| o.value.trim().parse::<u64>().ok())
            .unwrap_or(1)
            .max(1)
    };
    let sized = Sized {
        range,
        sized_by,
        missing,
        nrfiles,
        text,
        entry,
    };
    push_sizes(g, &sized, settings)?;
    Ok(sized)
}

/// The job's size as given: a size, a percentage of the target, a metadata engine's files,
/// else the target's length past the offset.
fn given_size<'a>(
    g: &mut Gathered<'a>,
    target: &Target<'a>,
    capacity: Option<u64>,
    settings: &mut Settings,
) -> anyhow::Result<SizeOption<'a>> {
    Ok(match g.size {
        _ if target.meta => meta_size(g.size, &mut g.options, &g.name, settings)?,
        Some(entry) if value(entry).ends_with('%') => {
            let text = value(entry);
            let pct = text
                .trim_end_matches('%')
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|p| (1..=100).contains(p))
                .ok_or_else(|| {
                    usage!(
                        "{} {text:?} is not a share of the target; use 1% to 100%",
                        entry.name()
                    )
                })?;
            let Some(bytes) = capacity else {
                return Err(usage!(
                    "{} {text}: a share needs filename= naming an existing file or device; give \
                     a size, e.g. size=10G",
                    entry.name()
                ));
            };
            Some(((bytes / 100 * pct).to_string(), entry))
        }
        Some(entry) => Some((value(entry).to_string(), entry)),
        None => capacity.and_then(|bytes| {
            let offset = g
                .options
                .iter()
                .rev()
                .find(|o| o.key == Key::Offset)
                .and_then(|o| crate::units::parse_size_bytes(&o.value))
                .unwrap_or(0);
            let entry = target.entry?;
            Some((bytes.saturating_sub(offset).to_string(), entry))
        }),
    })
}

/// A file an earlier job writes into being: its size when this job starts, which the run
/// takes from the file (a working set is lowered to the file's length); planned here as the
/// writer's size, the most it can be.
fn written_size<'a>(
    target: &Target<'a>,
    name: &str,
    settings: &mut Settings,
) -> (SizeOption<'a>, Option<(usize, String)>) {
    let Some((step, job, bytes)) = settings
        .laid_out
        .iter()
        .find(|w| w.path == target.path)
        .map(|w| (w.step, w.job.clone(), w.bytes))
    else {
        return (None, None);
    };
    settings.note(format!(
        "job {name}: {} is the file job {} writes; its size is taken when this job starts (at \
         most {})",
        target.path.display(),
        job,
        crate::units::format_bytes(bytes)
    ));
    (
        target.entry.map(|entry| (bytes.to_string(), entry)),
        Some((step, job)),
    )
}

/// Whether a missing target is created (and unlinked after), or must be there.
fn missing(
    g: &Gathered<'_>,
    target: &Target<'_>,
    capacity: Option<u64>,
    has_size: bool,
    sized_by_writer: bool,
    settings: &mut Settings,
) -> anyhow::Result<Missing> {
    Ok(match target.found {
        Found::Missing if sized_by_writer => Missing::Refuse,
        Found::Missing => {
            if !has_size
                && let Some(entry) = target
                    .entry
                    .filter(|_| g.filename.is_some() || target.format.is_some())
            {
                return Err(usage!(
                    "{} {} does not exist and no size to create it; add size=SIZE (e.g. \
                     size=10G) or create the file",
                    entry.name(),
                    target.path.display()
                ));
            }
            Missing::Create { unlink: g.unlink }
        }
        _ => {
            if g.unlink && capacity.is_some() {
                settings.note(format!(
                    "job {}: unlink=1: {} existed before the run; diskdash only removes files \
                     it created",
                    g.name,
                    target.path.display()
                ));
            }
            Missing::Refuse
        }
    })
}

/// Several files: fio's size is the job's, each file its share; filesize is each file's.
/// Pushes each file's size and the bytes each worker moves (`loops` times over).
fn push_sizes(
    g: &mut Gathered<'_>,
    sized: &Sized<'_>,
    settings: &mut Settings,
) -> anyhow::Result<()> {
    let nrfiles = sized.nrfiles;
    let (size_text, file_size_text) = match crate::units::parse_size_bytes(&sized.text) {
        // A range: the job moves the sum of its files' drawn lengths; the first file's is
        // the job's size (each file is laid out at its own).
        _ if sized.range.is_some() => {
            let range = sized.range.expect("matched");
            let all: u64 = (0..nrfiles as u32).map(|f| range.draw(f)).sum();
            (all.to_string(), range.draw(0).to_string())
        }
        Some(bytes) if nrfiles > 1 && sized.entry.option.replace('-', "_") == "filesize" => (
            (bytes.saturating_mul(nrfiles)).to_string(),
            bytes.to_string(),
        ),
        Some(bytes) if nrfiles > 1 => (sized.text.clone(), (bytes / nrfiles).to_string()),
        _ => (sized.text.clone(), sized.text.clone()),
    };
    push(&mut g.options, Key::Size, file_size_text, sized.entry);
    match (g.time_based, g.io_size) {
        (None, Some(entry)) => push_io_size(&mut g.options, value(entry), entry, g.loops)?,
        (None, None) => push_io_size(&mut g.options, &size_text, sized.entry, g.loops)?,
        (Some(_), Some(entry)) => settings.note(format!(
            "{}: ignored; time_based runs for runtime",
            entry.located()
        )),
        (Some(_), None) => {}
    }
    if let (Some(_), Some((_, entry))) = (g.time_based, g.loops) {
        settings.note(format!(
            "{}: ignored; time_based repeats the job until its runtime is over",
            entry.located()
        ));
    }
    Ok(())
}

/// The job's options through the validator, then what the spec takes from several of them:
/// its files, the buffers' contents, the alignment and the zones.
fn spec_of(
    g: &mut Gathered<'_>,
    target: &Target<'_>,
    sized: &Sized<'_>,
    machine: &MachineLimits,
    settings: &mut Settings,
) -> anyhow::Result<crate::bench::spec::JobSpec> {
    read_job_verify(&mut g.options, g.do_verify, settings);
    if let Some(entry) = g.do_verify
        && !g
            .options
            .iter()
            .any(|o| o.key == Key::Verify && o.value != "0")
    {
        settings.note(format!(
            "{}: accepted; without verify there is nothing to check",
            entry.located()
        ));
    }
    trim_caps(&mut g.options, settings)?;
    let (options, adjusted) = crate::bench::options::fio_batching(&g.options);
    if let Some(adjusted) = adjusted {
        settings.note(format!(
            "job {}: {adjusted}",
            crate::error::one_line(&g.name)
        ));
    }
    let mut spec = validate(&options, machine)?;
    let nrfiles = sized.nrfiles;
    if nrfiles > 1 {
        spec.files = Some(file_set(
            &spec,
            nrfiles,
            g.open_files,
            g.file_service,
            settings,
            g.filename.or(target.entry),
        )?);
    }
    if let Some(files) = spec.files.as_mut()
        && let Some(range) = sized.range
    {
        files.sizes = Some(range);
        files.file_bytes = range.high;
    }
    spec.size_at_start = sized.sized_by.is_some();
    if let Some(files) = spec.meta.as_mut() {
        if let Some(format) = target.meta_format {
            files.format = value(format).to_string();
        }
        files.format = files.format.replace("$jobname", &g.name);
        files.unlink = g.unlink;
    }
    // As fio fills a buffer: shaped contents (dedupe, compress) first, then zeros, then
    // refilling (`fill_io_buffer`).
    spec.data = if matches!(spec.data, BufferData::Shaped(_)) {
        spec.data
    } else if g.zero_buffers {
        BufferData::Zero
    } else if g.refill_buffers {
        BufferData::Refill
    } else {
        BufferData::Random
    };
    if let Some(entry) = g.blockalign {
        block_align(entry, &mut spec, settings)?;
    }
    (spec.zones, spec.zbd) = zone_mode(g.zone, &spec)?;
    if let (Some(_), Some(mode_or_size)) = (spec.zones, g.zone[0].or(g.zone[1]))
        && spec.verify.is_some()
    {
        return Err(usage!(
            "{}: diskdash verifies a job's whole region, not strided zones; drop verify or \
             the zones",
            mode_or_size.located()
        ));
    }
    several_files_with(&spec, g.zone[0].or(g.zone[1]), nrfiles, &options)?;
    Ok(spec)
}

/// fio gives each clone a file of its own when the name has its number: the clones' files
/// (and a job's other files), each checked.
fn clones(
    g: &Gathered<'_>,
    target: &Target<'_>,
    spec: &crate::bench::spec::JobSpec,
    nrfiles: u64,
    io: &Io<'_>,
) -> anyhow::Result<Vec<PathBuf>> {
    let name = &g.name;
    let dir = target.dir.as_deref();
    let format_text = target.format.map_or(DEFAULT_FILENAME_FORMAT, value);
    let check = |path: &Path| match target.format {
        Some(format) => named_file(path, format, io.probe),
        None => named_file_of_job(path, name, io.probe),
    };
    if spec.files.is_some() && g.filename.is_some() {
        return Ok(target.listed.clone());
    }
    if spec.files.is_some() {
        // Clone c's files are `$jobnum` c, `$filenum` 0 to nrfiles-1, clone by clone (the
        // first is the target); a name without `$jobnum` is one set the clones share, as fio.
        let sets = if format_text.contains("$jobnum") {
            spec.numjobs
        } else {
            1
        };
        return (0..sets)
            .flat_map(|c| (0..nrfiles).map(move |f| (c, f)))
            .skip(1)
            .map(|(c, f)| {
                let path = file_path(
                    &format_text.replace("$filenum", &f.to_string()),
                    name,
                    c,
                    dir,
                );
                check(&path).map(|_| path)
            })
            .collect();
    }
    if g.filename.is_none() && !target.meta && format_text.contains("$jobnum") {
        let mut clones = Vec::new();
        for clone in 1..spec.numjobs {
            let path = file_path(format_text, name, clone, dir);
            check(&path)?;
            clones.push(path);
        }
        return Ok(clones);
    }
    Ok(Vec::new())
}

/// fio's `filesize=LOW-HIGH` (`None` for one length): the range each file's length is drawn
/// in, aligned down to the smallest block size, seeded by `randseed` (fio's draws repeat run
/// to run as well).
fn size_range(
    entry: &Entry,
    options: &[JobOption],
) -> anyhow::Result<Option<crate::bench::fileset::SizeRange>> {
    let text = value(entry);
    let Some((low, high)) = text.split_once('-') else {
        return Ok(None);
    };
    let bytes = |t: &str| crate::units::parse_size_bytes(t.trim()).filter(|&b| b > 0);
    let (Some(low), Some(high)) = (bytes(low), bytes(high)) else {
        return Err(usage!(
            "{} {text:?} is not a size range; write LOW-HIGH, e.g. filesize=1m-4m",
            entry.name()
        ));
    };
    let (low, high) = (low.min(high), low.max(high));
    let last = |key: Key| {
        options
            .iter()
            .rfind(|o| o.key == key)
            .map(|o| o.value.as_str())
    };
    let align = last(Key::Bs)
        .map(|bs| {
            bs.split([',', '-', ':'])
                .filter_map(crate::units::parse_size_bytes)
                .filter(|&b| b > 0)
                .min()
                .unwrap_or(4096)
        })
        .unwrap_or(4096);
    if high < align {
        return Err(usage!(
            "{} {text}: files under one block of {align} bytes; raise the range",
            entry.name()
        ));
    }
    let seed = last(Key::RandSeed)
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0x6669_6c65_7369_7a65);
    Ok(Some(crate::bench::fileset::SizeRange {
        low,
        high,
        align,
        seed,
    }))
}

/// What several files per job do not run with here: emulated zones (one file's write pointers)
/// and a verify backlog (its log keeps offsets, not their files).
fn several_files_with(
    spec: &crate::bench::spec::JobSpec,
    zone: Option<&Entry>,
    nrfiles: u64,
    options: &[JobOption],
) -> anyhow::Result<()> {
    if spec.files.is_none() {
        return Ok(());
    }
    if let (Some(_), Some(entry)) = (spec.zbd, zone) {
        return Err(usage!(
            "{}: diskdash emulates zonemode=zbd on one file, and this job has {nrfiles} \
             (nrfiles or a ':' list); drop the zone mode or give the job one file",
            entry.located()
        ));
    }
    if spec.verify.and_then(|v| v.backlog).is_some() {
        let name = crate::bench::options::Name {
            key: Key::VerifyBacklog,
            origin: options
                .iter()
                .rfind(|o| o.key == Key::VerifyBacklog)
                .map(|o| &o.origin),
        };
        return Err(usage!(
            "{name}: its checks find blocks by offset on one file, and this job has {nrfiles} \
             (nrfiles or a ':' list); drop verify_backlog (the read-back after the run checks \
             every file) or give the job one file"
        ));
    }
    Ok(())
}

/// The one-line error of a `file_service_type` that is not one.
fn not_a_service(entry: &Entry) -> anyhow::Error {
    usage!(
        "{} {:?} is not a file service type; use random, roundrobin, sequential, zipf, pareto, \
         normal or gauss (random, roundrobin and sequential with an optional :N of 1 or more)",
        entry.name(),
        value(entry)
    )
}

/// A job's several files (fio's `nrfiles` or a ':' list): how its I/O moves between them
/// (`openfiles`, `file_service_type`). One worker spreads over them; each file is `size`
/// over their number (or `filesize`).
fn file_set(
    spec: &crate::bench::spec::JobSpec,
    count: u64,
    open_files: Option<&Entry>,
    service: Option<&Entry>,
    settings: &mut Settings,
    at: Option<&Entry>,
) -> anyhow::Result<crate::bench::fileset::FileSet> {
    use crate::bench::fileset::{FileSet, Service};
    let place = at.map_or_else(|| "nrfiles".to_string(), Entry::located);
    if spec.size_bytes < spec.block_size_bytes {
        return Err(usage!(
            "{place}: each of the {count} files gets {} bytes, less than one block; raise size \
             or lower nrfiles",
            spec.size_bytes
        ));
    }
    let (service, batch) = match service {
        Some(entry) => {
            let (service, batch, note) =
                FileSet::parse_service(value(entry)).ok_or_else(|| not_a_service(entry))?;
            if let Some(note) = note {
                settings.note(format!("{}: {note}", entry.located()));
            }
            (service, batch)
        }
        // fio's default.
        None => (Service::RoundRobin, 1),
    };
    let open = open_files
        .and_then(|e| value(e).parse::<u64>().ok())
        .unwrap_or(count)
        .clamp(1, count);
    Ok(FileSet {
        count: u32::try_from(count).unwrap_or(u32::MAX),
        open: u32::try_from(open).unwrap_or(u32::MAX),
        service,
        batch,
        file_bytes: spec.size_bytes,
        sizes: None,
    })
}

/// fio's engines that reach storage through the kernel's file interface: run as the diskdash
/// engine that issues the same system calls (a note states the difference), the others given
/// as written to the validator. Engines for networks, RDMA, GPUs, object stores and other
/// non-block backends are refused naming the engine and what it drives.
fn engine<'a>(entry: &'a Entry, settings: &mut Settings) -> anyhow::Result<&'a str> {
    let text = value(entry);
    let mapped = match text {
        // fio's sync is read/write after lseek; psync is pread/pwrite: the same I/O, one call.
        "sync" | "psync" => return Ok("psync"),
        "vsync" | "pvsync" | "pvsync2" => Some((
            "psync",
            "diskdash issues one pread/pwrite per I/O where fio issues a one-buffer \
             readv/writev (preadv2 for pvsync2, whose per-I/O flags diskdash does not set)",
        )),
        "posixaio" => Some((
            "io_uring",
            "diskdash submits through io_uring, asynchronous at the same iodepth, where fio \
             uses glibc's POSIX AIO (a thread pool issuing pread/pwrite)",
        )),
        "sg" => Some((
            "psync",
            "diskdash issues O_DIRECT pread/pwrite on the block device where fio sends SCSI \
             commands (CDBs) through SG_IO; sg_write_mode's verify and write-same are done as \
             reads compared in memory and as writes of the repeated block",
        )),
        "mmap" => Some((
            "psync",
            "diskdash issues pread/pwrite where fio copies to and from an mmap of the file \
             (page faults and msync instead of system calls)",
        )),
        _ => None,
    };
    if let Some((ours, how)) = mapped {
        settings.note(format!(
            "{}: runs as diskdash's {ours}: {how}",
            entry.located()
        ));
        return Ok(ours);
    }
    let drives = match text {
        "net" | "netsplice" => "drives network sockets",
        "rdma"
        | "librpma_apm_client"
        | "librpma_apm_server"
        | "librpma_gpspm_client"
        | "librpma_gpspm_server" => "drives RDMA",
        "libcufile" | "gpu" => "drives GPU memory (cuFile)",
        "http" | "nfs" | "libhdfs" | "gfapi" | "dfs" | "rados" | "rbd" | "libiscsi" | "nbd"
        | "ime_psync" | "ime_psyncv" | "ime_aio" => "drives a network or object-store service",
        "cpuio" => "burns CPU",
        "exec" => "runs a program",
        "cpp_null" => "tests fio's C++ engine interface",
        "e4defrag" => "defragments ext4 files",
        "dev-dax" | "libpmem" | "pmemblk" => "drives persistent memory",
        "mtd" => "drives raw flash (MTD)",
        "io_uring_cmd" => "sends NVMe passthrough commands (cmd_type)",
        "libzbc" => "drives zoned SCSI/ATA disks through libzbc",
        "xnvme" => "drives NVMe from user space",
        // Block-storage engines diskdash may run: the validator takes or refuses them.
        _ => return Ok(text),
    };
    Err(usage!(
        "{} {text:?}: fio's {text} engine {drives}, not a block device or file; \
         diskdash measures block storage (use io_uring, libaio, psync or null)",
        entry.name()
    ))
}

/// Whether the job's engine is one of fio's metadata engines (`filecreate`, `filestat`,
/// `filedelete`).
fn is_meta_engine(options: &[JobOption]) -> bool {
    options
        .iter()
        .rfind(|o| o.key == Key::IoEngine)
        .is_some_and(|o| matches!(o.value.as_str(), "filecreate" | "filestat" | "filedelete"))
}

/// A metadata engine's sizes: each file is one I/O of `filesize` bytes (`size` is shared
/// among the files, as in fio), so the block size is the file's size and the job's size is
/// `nrfiles` of them. fio counts `filesize / bs` I/Os per file where `bs` is smaller; its
/// bytes and latency samples (one per file) are the same.
fn meta_size<'e>(
    size: Option<&'e Entry>,
    options: &mut Vec<JobOption>,
    name: &str,
    settings: &mut Settings,
) -> anyhow::Result<Option<(String, &'e Entry)>> {
    let Some(entry) = size else {
        return Err(usage!(
            "job {name} has no filesize: each of its files counts as one I/O of filesize \
             bytes; add filesize=4k"
        ));
    };
    let text = value(entry);
    let files = options
        .iter()
        .rfind(|o| o.key == Key::NrFiles)
        .and_then(|o| o.value.trim().parse::<u64>().ok())
        .unwrap_or(1)
        .max(1);
    let given = crate::units::parse_size_bytes(text)
        .filter(|&b| b > 0)
        .ok_or_else(|| usage!("{} {text:?} is not a size; use e.g. 4k", entry.name()))?;
    let per_file = if entry.option.replace('-', "_") == "filesize" {
        given
    } else {
        given / files
    };
    if per_file == 0 || per_file > u64::from(u32::MAX >> 1) {
        return Err(usage!(
            "{} {text:?} over {files} files is not a file size diskdash runs; use 1 byte to \
             1g per file, e.g. filesize=4k",
            entry.name()
        ));
    }
    if let Some(bs) = options
        .iter()
        .rfind(|o| o.key == Key::Bs && !matches!(o.origin, Origin::FioDefault))
        && crate::units::parse_size_bytes(&bs.value) != Some(per_file)
    {
        settings.note(format!(
            "job {name}: bs={}: each file counts as one I/O of its size ({per_file} bytes), \
             where fio counts filesize/bs I/Os per file (the same bytes and one latency \
             sample per file)",
            bs.value
        ));
    }
    push(options, Key::Bs, per_file.to_string(), entry);
    Ok(Some(((per_file * files).to_string(), entry)))
}

/// An sg job runs direct (SG_IO passes no page cache) with its `sg_write_mode` (fio's default
/// `write`), `writefua` as O_DSYNC; `sg_write_mode` without the sg engine is refused, as fio
/// refuses an engine's option for another engine.
fn sg_job(
    options: &mut Vec<JobOption>,
    sg: Option<&Entry>,
    mode: Option<&Entry>,
    writefua: bool,
    settings: &mut Settings,
) -> anyhow::Result<()> {
    let Some(engine) = sg else {
        if let Some(mode) = mode {
            return Err(usage!(
                "{} {:?}: an option of fio's sg engine, and the job's engine is not sg; set \
                 ioengine=sg (on a block device) or drop it",
                mode.name(),
                value(mode)
            ));
        }
        return Ok(());
    };
    push(options, Key::Direct, "1", engine);
    match mode {
        Some(mode) => push(options, Key::SgWriteMode, value(mode), mode),
        None => push(options, Key::SgWriteMode, "write", engine),
    }
    if writefua {
        push(options, Key::Sync, "dsync", engine);
        settings.note(format!(
            "{}: writefua runs as O_DSYNC: each write is durable when it completes, as a \
             write with FUA is",
            engine.located()
        ));
    }
    Ok(())
}

/// fio's `filename_format` when a job names no file: one file per clone, `$jobname.$jobnum.$filenum`.
const DEFAULT_FILENAME_FORMAT: &str = "$jobname.$jobnum.$filenum";

/// fio's `filename_format` for a clone's first (and only) file: `$jobname` is the job's
/// name, `$jobnum` the clone's number, `$filenum` the file's (0: one file per clone) and
/// `$clientuid` the client's (0: no client/server mode).
fn file_name_of(format: &str, job: &str, clone: u32) -> String {
    format
        .replace("$jobname", job)
        .replace("$jobnum", &clone.to_string())
        .replace("$filenum", "0")
        .replace("$clientuid", "0")
}

/// Where clone `clone`'s file is: its name in `dir` (a relative name) or as written.
fn file_path(format: &str, job: &str, clone: u32, dir: Option<&Path>) -> PathBuf {
    let text = file_name_of(format, job, clone);
    match dir {
        Some(dir) if Path::new(&text).is_relative() => dir.join(&text),
        _ => PathBuf::from(&text),
    }
}

/// What is at `path`, a file named by `format`: nothing yet or a regular file.
fn named_file(path: &Path, format: &Entry, probe: &dyn Probe) -> anyhow::Result<Found> {
    let found = probe.find(path).map_err(|e| {
        usage!(
            "{}: cannot look at {}: {e}",
            format.located(),
            path.display()
        )
    })?;
    if !matches!(found, Found::Missing | Found::File { .. }) {
        return Err(usage!(
            "{}: {} is not a regular file; name a file",
            format.located(),
            path.display()
        ));
    }
    Ok(found)
}

/// What is at `path`, a file job `name` names by fio's default format: nothing yet or a
/// regular file.
fn named_file_of_job(path: &Path, name: &str, probe: &dyn Probe) -> anyhow::Result<Found> {
    // The name is one fio makes up for the run (`name.1.0`): a link there would send the
    // run's writes to a file nobody named.
    if probe.is_symlink(path) {
        return Err(usage!(
            "job {name}: {} is a symbolic link, and fio's own file names are made by the run; \
             remove the link, or give filename=FILE to use the file it leads to",
            path.display()
        ));
    }
    let found = probe
        .find(path)
        .map_err(|e| usage!("job {name}: cannot look at {}: {e}", path.display()))?;
    if !matches!(found, Found::Missing | Found::File { .. }) {
        return Err(usage!(
            "job {name}: {} is not a regular file; give filename=FILE, or directory=DIR for \
             its files elsewhere",
            path.display()
        ));
    }
    Ok(found)
}

/// fio's `bsrange=MIN-MAX` (or `READ,WRITE` ranges): one size when both ends agree.
fn bs_range(options: &mut Vec<JobOption>, entry: &Entry) -> anyhow::Result<()> {
    let text = value(entry);
    let mut sizes = Vec::new();
    for side in text.split(',') {
        let (lo, hi) = side.split_once('-').unwrap_or((side, side));
        let (Some(lo), Some(hi)) = (
            crate::units::parse_size_bytes(lo.trim()),
            crate::units::parse_size_bytes(hi.trim()),
        ) else {
            return Err(usage!(
                "{} {text:?} is not a block size range; use MIN-MAX, e.g. 4k-4k",
                entry.name()
            ));
        };
        if lo != hi {
            return Err(usage!(
                "{} {text:?}: diskdash runs fixed block sizes; give one size (bsrange=4k-4k or \
                 bs=4k) or fixed shares with bssplit=4k/50:64k/50",
                entry.name()
            ));
        }
        sizes.push(lo);
    }
    if sizes.windows(2).any(|w| w[0] != w[1]) {
        return Err(usage!(
            "{} {text:?}: diskdash runs one block size for reads and writes; give one range",
            entry.name()
        ));
    }
    push(options, Key::Bs, sizes[0].to_string(), entry);
    Ok(())
}

/// fio's `rate`/`rate_iops` third value caps trims. diskdash paces a trim job's trims with
/// its write cap: a job that only trims (`trim`, `randtrim`) takes the trim cap as that cap;
/// `trimwrite` paces its trims and writes together, so the two caps must agree; a job that
/// does not trim has nothing to cap (fio ignores the value then) and the value is dropped with
/// a note.
fn trim_caps(options: &mut [JobOption], settings: &mut Settings) -> anyhow::Result<()> {
    let rw = options
        .iter()
        .rev()
        .find(|o| o.key == Key::Rw)
        .map_or("read", |o| o.value.split(':').next().unwrap_or(""));
    let trims = match rw {
        "trim" | "randtrim" => Some(false),
        "trimwrite" => Some(true),
        _ => None,
    };
    for option in options
        .iter_mut()
        .filter(|o| matches!(o.key, Key::Rate | Key::RateIops))
    {
        let parts: Vec<&str> = option.value.split(',').map(str::trim).collect();
        let [read, write, trim] = parts.as_slice() else {
            continue;
        };
        if trim.is_empty() {
            continue;
        }
        let fio_name = option.origin.alias().unwrap_or(option.key.fio_name());
        let name = match &option.origin {
            Origin::File { path, line, .. } => format!("{path}:{line}: {fio_name}"),
            _ => format!("--{fio_name}"),
        };
        let text = option.value.clone();
        option.value = match trims {
            None => {
                settings.note(format!(
                    "{name}={text}: the third value caps trims, which this job does not issue; \
                     ignored, as fio ignores it"
                ));
                format!("{read},{write}")
            }
            Some(false) => format!("{read},{trim}"),
            Some(true) if write.is_empty() || write == trim => format!("{read},{trim}"),
            Some(true) => {
                return Err(usage!(
                    "{name} {text:?}: diskdash paces trimwrite's trims and writes with one \
                     cap; give them the same value, e.g. {read},{trim},{trim}"
                ));
            }
        };
    }
    Ok(())
}

/// The size of a new file a `fill_device` job writes: past the free space of its filesystem
/// (the blocks free to root, in whole MiB, and one MiB more), so ENOSPC ends the job as fio's
/// "something really large" does. Only a pure write job fills.
fn fill_size(
    probe: &dyn Probe,
    target: &Path,
    options: &[JobOption],
    entry: &Entry,
    settings: &mut Settings,
) -> anyhow::Result<String> {
    let rw = options
        .iter()
        .rev()
        .find(|o| o.key == Key::Rw)
        .map_or("read", |o| o.value.as_str());
    if !matches!(rw, "write" | "randwrite" | "trimwrite") {
        return Err(usage!(
            "{}: diskdash fills a filesystem with a write job only, not rw={rw}; put \
             fill_device=1 on a job with rw=write and read the file in a later job",
            entry.located()
        ));
    }
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let free = probe.free_bytes(dir).map_err(|err| {
        usage!(
            "{}: cannot see the free space of {}: {err}; give size=SIZE",
            entry.located(),
            dir.display()
        )
    })?;
    let bytes = free.div_ceil(1 << 20).saturating_add(1) << 20;
    settings.note(format!(
        "{}: {} is sized past the free space of its filesystem ({} free); the job ends at \
         ENOSPC",
        entry.located(),
        target.display(),
        crate::units::format_bytes(free)
    ));
    Ok(bytes.to_string())
}

/// fio's `ignore_error` lists, errno numbers per class (see [`crate::bench::spec::ignore_lists`]).
fn ignore_error(text: &str) -> Result<Vec<Vec<i32>>, String> {
    crate::bench::spec::ignore_lists(text)
}

/// The bytes of a `buffer_pattern` or `verify_pattern` entry (fio's pattern syntax), or the
/// one-line usage error naming it.
fn pattern_of(entry: &Entry) -> anyhow::Result<Vec<u8>> {
    let text = value(entry);
    fio_pattern(text).map_err(|why| {
        usage!(
            "{} {text:?}: {why}; write 0x followed by hex digits, a quoted string or a decimal \
             number",
            entry.name()
        )
    })
}

/// fio's `verify` on a job that only reads: it checks the blocks it reads (`do_verify=1`,
/// fio's default), as a `verify_only` job does here; with `do_verify=0` it checks nothing.
fn read_job_verify(
    options: &mut Vec<JobOption>,
    do_verify: Option<&Entry>,
    settings: &mut Settings,
) {
    let last = |options: &[JobOption], key: Key| {
        options
            .iter()
            .rev()
            .find(|o| o.key == key)
            .map(|o| o.value.clone())
    };
    let reads_only = matches!(last(options, Key::Rw).as_deref(), Some("read" | "randread"));
    let verifies = last(options, Key::Verify).is_some_and(|v| v != "0");
    if !reads_only || !verifies || last(options, Key::VerifyOnly).is_some() {
        return;
    }
    let Some(verify) = options.iter().rev().find(|o| o.key == Key::Verify).cloned() else {
        return;
    };
    let checks = do_verify.is_none_or(|entry| value(entry) != "0");
    let at = match &verify.origin {
        Origin::File { path, line, .. } => format!("{path}:{line}"),
        _ => "verify".to_string(),
    };
    if checks {
        settings.note(format!(
            "{at}: this read job checks the blocks it reads (fio's do_verify on a read job), \
             as verify_only=1"
        ));
        options.push(JobOption {
            key: Key::VerifyOnly,
            value: "1".to_string(),
            origin: verify.origin,
        });
    } else {
        settings.note(format!(
            "{at}: ignored; do_verify=0 on a read job checks nothing"
        ));
        options.push(JobOption {
            key: Key::Verify,
            value: "0".to_string(),
            origin: verify.origin,
        });
    }
}

/// A `verify_pattern` entry as the option table keeps it: hex, with `%o` (fio's format for
/// the block's offset, 8 bytes) where the pattern has it outside quotes.
fn verify_pattern_of(entry: &Entry) -> anyhow::Result<String> {
    let text = value(entry);
    let fail = |why: String| {
        usage!(
            "{} {text:?}: {why}; write 0x followed by hex digits, a quoted string, a decimal \
             number or %o (the block's offset)",
            entry.name()
        )
    };
    let mut stored = String::new();
    let mut bytes = 0usize;
    for piece in split_offsets(text) {
        match piece {
            None => {
                stored.push_str("%o");
                bytes += 8;
            }
            Some(part) if part.trim().is_empty() => {}
            Some(part) => {
                let part = fio_pattern(part).map_err(fail)?;
                bytes += part.len();
                stored.push_str(&hex_of(&part));
            }
        }
    }
    if bytes == 0 {
        return Err(fail("an empty pattern".to_string()));
    }
    if bytes > crate::bench::verify::MAX_PATTERN {
        return Err(fail(format!(
            "{bytes} bytes, longer than fio's {}",
            crate::bench::verify::MAX_PATTERN
        )));
    }
    Ok(stored)
}

/// A pattern's text split at each `%o` outside quotes: the text between them (`Some`) and the
/// `%o`s (`None`), in order.
fn split_offsets(text: &str) -> Vec<Option<&str>> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '%') if chars.peek().is_some_and(|&(_, n)| n == 'o') => {
                chars.next();
                out.push(Some(&text[start..i]));
                out.push(None);
                start = i + 2;
            }
            (None, _) => {}
        }
    }
    out.push(Some(&text[start..]));
    out
}

/// fio's pattern syntax (`verify_pattern`, `buffer_pattern`): elements one after the other,
/// spaces between them ignored: `0x` and hex digits (an odd count gets a leading 0), a string
/// in single or double quotes, or a decimal number (counted here as the fewest bytes that hold
/// it). At most 512 bytes (fio's `MAX_PATTERN_SIZE`).
fn fio_pattern(text: &str) -> Result<Vec<u8>, String> {
    const MAX_PATTERN: usize = 512;
    let mut out = Vec::new();
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err("an empty pattern".to_string());
    }
    while !rest.is_empty() {
        if let Some(hex) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            let end = hex
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(hex.len());
            let digits = &hex[..end];
            if digits.is_empty() {
                return Err("0x with no hex digits".to_string());
            }
            let padded = if digits.len() % 2 == 1 {
                format!("0{digits}")
            } else {
                digits.to_string()
            };
            for pair in padded.as_bytes().chunks(2) {
                let pair = std::str::from_utf8(pair).unwrap_or("00");
                out.push(u8::from_str_radix(pair, 16).map_err(|e| e.to_string())?);
            }
            rest = &hex[end..];
        } else if let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') {
            let body = &rest[1..];
            let Some(end) = body.find(quote) else {
                return Err(format!("a string with no closing {quote}"));
            };
            out.extend_from_slice(&body.as_bytes()[..end]);
            rest = &body[end + 1..];
        } else if rest.starts_with(|c: char| c.is_ascii_digit()) {
            let end = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            let n: u64 = rest[..end]
                .parse()
                .map_err(|_| format!("{} is too large a number", &rest[..end]))?;
            let bytes = n.to_le_bytes();
            let used = (8 - n.leading_zeros() as usize / 8).max(1);
            out.extend_from_slice(&bytes[..used]);
            rest = &rest[end..];
        } else {
            let word: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
            return Err(format!("{word:?} is not part of a pattern"));
        }
        if out.len() > MAX_PATTERN {
            return Err(format!("longer than fio's {MAX_PATTERN} bytes"));
        }
        rest = rest.trim_start();
    }
    if out.is_empty() {
        return Err("an empty pattern".to_string());
    }
    Ok(out)
}

/// fio's `blockalign`: random offsets on this boundary instead of the smallest block size,
/// the random map off (fio turns it off with blockalign). A sequential job's offsets follow
/// its I/Os (fio aligns only random ones); one value for reads, writes and trims.
fn block_align(
    entry: &Entry,
    spec: &mut crate::bench::spec::JobSpec,
    settings: &mut Settings,
) -> anyhow::Result<()> {
    let text = value(entry);
    let smallest = spec
        .bssplit
        .as_ref()
        .and_then(|split| split.sizes().min())
        .unwrap_or(spec.block_size_bytes);
    let given = text
        .split(',')
        .map(|side| side.trim())
        .filter(|side| !side.is_empty())
        .map(crate::units::parse_size_bytes)
        .collect::<Option<Vec<u64>>>()
        .filter(|v| !v.is_empty() && v.iter().all(|&bytes| bytes > 0))
        .ok_or_else(|| {
            usage!(
                "{} {text:?} is not an alignment; use a size, e.g. blockalign=4k",
                entry.name()
            )
        })?;
    let align = given[0];
    if given.iter().any(|&bytes| bytes != align) {
        return Err(usage!(
            "{} {text:?}: diskdash aligns reads, writes and trims alike; give one value, e.g. \
             blockalign={align}",
            entry.name()
        ));
    }
    if align == smallest {
        return Ok(());
    }
    if !spec.rw.is_random() {
        settings.note(format!(
            "{}: accepted; blockalign aligns random offsets and this job is sequential, as \
             fio takes it",
            entry.located()
        ));
        return Ok(());
    }
    if spec.verify.is_some() {
        return Err(usage!(
            "{} {text:?}: diskdash's verify writes and checks whole blocks at multiples of the \
             smallest block size, {smallest} bytes; use blockalign={smallest} or leave it out \
             with verify",
            entry.name()
        ));
    }
    spec.block_align_bytes = Some(align);
    if spec.random_map {
        spec.random_map = false;
        settings.note(format!(
            "{}: random offsets are multiples of {align} bytes and the random map is off \
             (as norandommap), as fio turns it off with blockalign",
            entry.located()
        ));
    }
    Ok(())
}

/// fio's `wait_for=JOB`: whether `name` must start a new step to start after JOB. JOB must
/// be an earlier job; one in an earlier step has ended before this step starts (nothing to
/// do); one in the current step must be alone there, else the new step would wait for the
/// others too.
fn wait_for(entry: &Entry, name: &str, steps: &[Step]) -> anyhow::Result<bool> {
    let waitee = value(entry);
    let Some(at) = steps
        .iter()
        .position(|s| s.jobs.iter().any(|j| j.name == waitee))
    else {
        return Err(usage!(
            "{} {waitee:?} names no job before job {}; wait for a job defined above it",
            entry.name(),
            crate::error::one_line(name)
        ));
    };
    if at + 1 < steps.len() {
        return Ok(false);
    }
    let others: Vec<&str> = steps[at]
        .jobs
        .iter()
        .map(|j| j.name.as_str())
        .filter(|n| *n != waitee)
        .collect();
    if !others.is_empty() {
        return Err(usage!(
            "{}={waitee}: diskdash runs jobs in steps, and job {waitee} runs beside {}; job {} \
             would wait for them too; give job {waitee} stonewall, or use stonewall here \
             to wait for all of them",
            entry.name(),
            others.join(", "),
            crate::error::one_line(name)
        ));
    }
    Ok(true)
}

/// fio's `zonemode` (`none`, the default, `strided`, `zbd`), `zonesize`, `zonerange` (default
/// `zonesize`) and `zoneskip`, by [`ZoneOpt`]: the strided zones, `None` without. As fio,
/// `zonesize` needs a zone mode; `zonerange` and `zoneskip` mean nothing without one.
fn strided_zones(zone: [Option<&Entry>; 9]) -> anyhow::Result<Option<StridedZones>> {
    let [mode, size, range, skip, ..] = zone;
    match mode.map(value) {
        // fio 3.33's default is none, and none with a zonesize is its error.
        Some("none") | None => {
            if let Some(size) = size {
                return Err(usage!(
                    "{}: zonesize needs zonemode=strided (fio: zonemode=none and zonesize are \
                     not compatible); add zonemode=strided or drop zonesize",
                    size.located()
                ));
            }
            return Ok(None);
        }
        Some("strided") => {}
        Some("zbd") => return Ok(None),
        Some(other) => {
            return Err(usage!(
                "{} {other:?} is not a zone mode; use none, strided or zbd",
                mode.expect("matched Some").name()
            ));
        }
    }
    let bytes = |entry: Option<&Entry>, least: u64| -> anyhow::Result<Option<u64>> {
        let Some(entry) = entry else { return Ok(None) };
        let text = value(entry);
        match crate::units::parse_size_bytes(text) {
            Some(n) if n >= least => Ok(Some(n)),
            _ => Err(usage!(
                "{} {text:?} is not a size{}; use e.g. 256m",
                entry.name(),
                if least > 0 { " above 0" } else { "" }
            )),
        }
    };
    let Some(size_bytes) = bytes(size, 1)? else {
        return Err(usage!(
            "{}=strided needs zonesize=SIZE, as in fio (e.g. zonesize=256m)",
            mode.expect("zonemode=strided was matched").name()
        ));
    };
    Ok(Some(StridedZones {
        size_bytes,
        range_bytes: bytes(range, 1)?.unwrap_or(size_bytes),
        skip_bytes: bytes(skip, 0)?.unwrap_or(0),
    }))
}

/// fio's zone options by [`ZoneOpt`]: `zonemode=strided`'s zones, or `zonemode=zbd`'s emulated
/// zones (`zonesize`, `max_open_zones`, `job_max_open_zones`, `read_beyond_wp`). As fio, the zbd
/// options mean nothing without `zonemode=zbd`.
fn zone_mode(
    zone: [Option<&Entry>; 9],
    spec: &crate::bench::spec::JobSpec,
) -> anyhow::Result<(Option<StridedZones>, Option<crate::bench::zbd::ZbdZones>)> {
    let [
        mode,
        size,
        range,
        skip,
        max_open,
        job_max_open,
        beyond,
        threshold,
        frequency,
    ] = zone;
    if mode.map(value) != Some("zbd") {
        return Ok((strided_zones(zone)?, None));
    }
    let mode = mode.expect("zonemode=zbd was matched");
    if let Some(entry) = range.or(skip) {
        return Err(usage!(
            "{}: it belongs to zonemode=strided; drop it with zonemode=zbd",
            entry.located()
        ));
    }
    let Some(size) = size else {
        return Err(usage!(
            "{}: zonemode=zbd needs zonesize=SIZE on a target that is not a zoned device (diskdash \
             emulates the zones), e.g. zonesize=256m",
            mode.located()
        ));
    };
    let text = value(size);
    let zone_bytes = crate::units::parse_size_bytes(text)
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            usage!(
                "{} {text:?} is not a size above 0; use e.g. 256m",
                size.name()
            )
        })?;
    let largest = spec
        .bssplit
        .as_ref()
        .and_then(|split| split.sizes().max())
        .unwrap_or(spec.block_size_bytes);
    if largest > zone_bytes {
        return Err(usage!(
            "{}: a {} block (bssplit) does not fit in a {} zone; raise zonesize or lower the \
             largest block",
            size.located(),
            crate::units::format_bytes(largest),
            crate::units::format_bytes(zone_bytes)
        ));
    }
    if zone_bytes % spec.block_size_bytes != 0 {
        return Err(usage!(
            "{}: the zone size is not a multiple of the block size ({}) (fio refuses it \
             too); choose a zonesize that is",
            size.located(),
            crate::units::format_bytes(spec.block_size_bytes)
        ));
    }
    if spec.size_explicit && spec.size_bytes < zone_bytes {
        return Err(usage!(
            "{}: the job's size ({}) holds no whole zone (fio refuses it too); lower zonesize or \
             raise size",
            size.located(),
            crate::units::format_bytes(spec.size_bytes)
        ));
    }
    if spec.verify.is_some() {
        return Err(usage!(
            "{}: diskdash does not verify on emulated zones; drop verify or the zone mode",
            mode.located()
        ));
    }
    if spec.rw.trims() {
        return Err(usage!(
            "{}: diskdash does not trim emulated zones (fio resets them); use a read or \
             write mode",
            mode.located()
        ));
    }
    let count = |entry: Option<&Entry>| -> anyhow::Result<u32> {
        let Some(entry) = entry else { return Ok(0) };
        let text = value(entry);
        text.parse::<u32>().map_err(|_| {
            usage!(
                "{} {text:?} is not a count of zones; use e.g. 32 (0: no limit)",
                entry.name()
            )
        })
    };
    // fio's zone_reset_threshold and zone_reset_frequency: fractions from 0 to 1.
    let fraction = |entry: Option<&Entry>| -> anyhow::Result<u32> {
        let Some(entry) = entry else { return Ok(0) };
        let text = value(entry);
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|f| (0.0..=1.0).contains(f))
            .map(|f| (f * 1_000_000.0).round() as u32)
            .ok_or_else(|| {
                usage!(
                    "{} {text:?} is not a fraction from 0 to 1; use e.g. 0.5",
                    entry.name()
                )
            })
    };
    Ok((
        None,
        Some(crate::bench::zbd::ZbdZones {
            zone_bytes,
            max_open: count(max_open)?,
            job_max_open: count(job_max_open)?,
            read_beyond_wp: beyond.map(flag).transpose()?.unwrap_or(false),
            reset_threshold_ppm: fraction(threshold)?,
            reset_every: match fraction(frequency)? {
                0 => 0,
                // fio: a reset after each 1 / zone_reset_frequency writes.
                ppm => 1_000_000 / ppm,
            },
        }),
    ))
}

/// fio's `z` suffix counts zones (`offset=2z`), which need fio's `zonemode`.
fn refuse_zones(entry: &Entry) -> anyhow::Result<()> {
    let text = value(entry);
    if let Some(count) = text.strip_suffix(['z', 'Z'])
        && !count.is_empty()
        && count.trim().bytes().all(|b| b.is_ascii_digit())
    {
        return Err(usage!(
            "{} {text:?} counts zones (fio's z suffix, with zonemode); diskdash takes no zone counts; \
             give bytes, e.g. 256m",
            entry.name()
        ));
    }
    Ok(())
}

/// The bytes each worker moves, `loops` times over (fio's `loops` repeats a size-based job).
fn push_io_size(
    options: &mut Vec<JobOption>,
    text: &str,
    entry: &Entry,
    loops: Option<(u64, &Entry)>,
) -> anyhow::Result<()> {
    let Some((n, loops_entry)) = loops.filter(|(n, _)| *n > 1) else {
        push(options, Key::IoSize, text, entry);
        return Ok(());
    };
    // A value the validator refuses keeps its own error.
    let Some(bytes) = crate::units::parse_size_bytes(text) else {
        push(options, Key::IoSize, text, entry);
        return Ok(());
    };
    let total = bytes.checked_mul(n).ok_or_else(|| {
        usage!(
            "{} {n} x {text} overflows; use fewer loops",
            loops_entry.name()
        )
    })?;
    push(options, Key::IoSize, total.to_string(), loops_entry);
    Ok(())
}

/// Two jobs of one step may write the same file or device, as in fio: the job file names it
/// for writing in both. Not when either verifies: its check would read the other's blocks
/// and report them as corrupt.
fn check_writers(steps: &[Step], probe: &dyn Probe) -> anyhow::Result<()> {
    for step in steps {
        let mut writers: Vec<(PathBuf, &str, bool)> = Vec::new();
        for job in step.jobs.iter().filter(|j| j.spec.writes()) {
            let verifies = job.spec.verify.is_some();
            let Some(target) = &job.target else { continue };
            // A directory target is a scratch file of the job's own.
            if probe.find(target).is_ok_and(|f| f == Found::Dir) {
                continue;
            }
            let canonical = probe.canonical(target);
            if let Some((_, other, _)) = writers
                .iter()
                .find(|(p, _, v)| *p == canonical && (verifies || *v))
            {
                return Err(usage!(
                    "jobs {other} and {} both write and verify {} at the same time: each \
                     would read the other's blocks as corrupt; give each its own filename, or \
                     add stonewall to run them one after the other",
                    job.name,
                    canonical.display()
                ));
            }
            writers.push((canonical, &job.name, verifies));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
