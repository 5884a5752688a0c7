//! Text for `diskdash fio --parse-only` (the plan: steps, jobs, resolved options, targets),
//! `--showcmd` (each job as a fio command line and as `diskdash bench` where one exists) and
//! `--help`.

use std::fmt::Write as _;
use std::time::Duration;

use crate::bench::options::{Key, Origin};
use crate::bench::spec::{JobSpec, SyncEvery};
use crate::fio::FioInvocation;
use crate::plan::{Job, Missing};
use crate::units::{format_bytes, format_size_short};

/// `1`, `2 steps` style counts.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The plan as `--parse-only` prints it.
#[must_use]
pub fn plan(invocation: &FioInvocation) -> String {
    let steps = &invocation.plan.steps;
    let jobs: usize = steps.iter().map(|s| s.jobs.len()).sum();
    let mut out = format!(
        "plan: {}, {}\n",
        count(steps.len(), "step", "steps"),
        count(jobs, "job", "jobs")
    );
    for (i, step) in steps.iter().enumerate() {
        let _ = writeln!(
            out,
            "step {} ({} at once)",
            i + 1,
            count(step.jobs.len(), "job", "jobs")
        );
        for job in &step.jobs {
            let _ = writeln!(
                out,
                "  job {} (group {}): {}",
                job.name,
                job.group,
                job.spec.describe()
            );
            let _ = writeln!(out, "    target   {}", target(job));
            if let Some(set) = job.spec.files {
                let _ = writeln!(out, "    files    {}", files(job, set));
            }
            let _ = writeln!(out, "    run      {}", run(&job.spec));
            if let Some(z) = job.spec.zones {
                let size = crate::units::format_bytes;
                let _ = writeln!(
                    out,
                    "    zones    strided: {} in each zone of {}, then {} skipped (fio's \
                     zonesize, zonerange, zoneskip)",
                    size(z.size_bytes),
                    size(z.range_bytes),
                    size(z.skip_bytes)
                );
            }
            if let Some(z) = job.spec.zbd {
                let limit = |n: u32| {
                    if n == 0 {
                        "no limit".to_string()
                    } else {
                        n.to_string()
                    }
                };
                let _ = writeln!(
                    out,
                    "    zones    zbd, emulated: zones of {} from empty, writes at each zone's \
                     write pointer, a full zone reset (its write pointer back to its start, the \
                     data kept) when written again{}; open at once: {} (a clone: {}); reads {} \
                     (fio's zonemode=zbd on a regular file; a zoned device is refused)",
                    crate::units::format_bytes(z.zone_bytes),
                    if z.reset_every > 0 {
                        format!(
                            ", and once the zones hold {:.0}% of the region in data, one \
                             write in {} resets its zone first",
                            f64::from(z.reset_threshold_ppm) / 10_000.0,
                            z.reset_every
                        )
                    } else {
                        String::new()
                    },
                    limit(z.max_open),
                    limit(z.job_max_open),
                    if z.read_beyond_wp {
                        "anywhere"
                    } else {
                        "below the write pointers only, none when nothing was written"
                    }
                );
            }
            let options: Vec<String> = fio_options(&job.spec)
                .into_iter()
                .map(|(key, value)| format!("{}={value}", key.fio_name()))
                .collect();
            let _ = writeln!(out, "    options  {}", options.join(" "));
        }
    }
    crate::text::escape_layout(&out).into_owned()
}

/// What happens to the job's target.
fn target(job: &Job) -> String {
    let Some(path) = &job.target else {
        return "a scratch file in the current directory, removed after the run".to_string();
    };
    let shown = path.display();
    if let Some(files) = &job.spec.meta {
        let last = files.count.saturating_sub(1);
        let what = match job.spec.ioengine.as_str() {
            "filecreate" => "created (open with O_CREAT, close) one per I/O",
            "filedelete" => "laid out before the run, then unlinked one per I/O",
            _ => "laid out where missing, then stat'ed one per I/O",
        };
        return format!(
            "{} files {} .. {} in {shown}, {what}{}",
            files.count,
            files.name(0, 0),
            files.name(0, last),
            if files.unlink && job.spec.ioengine.as_str() != "filedelete" {
                "; those created removed after the run"
            } else {
                ""
            }
        );
    }
    match job.missing {
        Missing::Create { unlink } => format!(
            "{shown} (created, {}; {} after the run)",
            format_bytes(job.spec.size_bytes),
            if unlink { "removed" } else { "kept" }
        ),
        Missing::Refuse if path.is_dir() => {
            format!("a scratch file in {shown}, removed after the run")
        }
        Missing::Refuse => format!("{shown} (exists, kept)"),
    }
}

/// A job's several files (fio's `nrfiles` or a ':' list): how many, whose, how its I/O
/// moves between them, and their names (the first few and a count).
fn files(job: &Job, set: crate::bench::fileset::FileSet) -> String {
    use crate::bench::fileset::Service;
    const SHOWN: usize = 4;
    let names: Vec<String> = job
        .target
        .iter()
        .chain(&job.clones)
        .map(|p| p.display().to_string())
        .collect();
    let whose = if job.spec.numjobs < 2 {
        String::new()
    } else if names.len() > set.count as usize {
        format!(
            ", {} for each of the {} clones",
            set.count, job.spec.numjobs
        )
    } else {
        format!(", shared by the {} clones", job.spec.numjobs)
    };
    let service = match set.service {
        Service::Random => "random",
        Service::RoundRobin => "roundrobin",
        Service::Sequential => "sequential",
    };
    let batch = if set.batch > 1 {
        format!(":{}", set.batch)
    } else {
        String::new()
    };
    let shown = if names.len() > SHOWN {
        format!(
            "{} ... {} ({} in all)",
            names[..SHOWN - 1].join(", "),
            names[names.len() - 1],
            names.len()
        )
    } else {
        names.join(", ")
    };
    let each = match set.sizes {
        Some(range) => format!(
            "of {} to {} (each drawn in fio's filesize range, {}-aligned)",
            format_bytes(range.low),
            format_bytes(range.high),
            format_bytes(range.align)
        ),
        None => format!("of {} each", format_bytes(set.file_bytes)),
    };
    format!(
        "{} {each}{whose}; file_service_type={service}{batch} openfiles={}: {shown}",
        count(names.len(), "file", "files"),
        set.open
    )
}

/// Size-based or time-based, as fio.
fn run(spec: &JobSpec) -> String {
    let mut text = match spec.io_size_bytes {
        Some(bytes) => format!(
            "size-based: {} per worker over {}, runtime cap {}",
            format_bytes(bytes),
            format_bytes(spec.size_bytes),
            duration(spec.runtime)
        ),
        None => format!(
            "time-based: {} over {}",
            duration(spec.runtime),
            format_bytes(spec.size_bytes)
        ),
    };
    if !spec.ramp.is_zero() {
        let _ = write!(text, ", ramp {}", duration(spec.ramp));
    }
    if !spec.startdelay.is_zero() {
        let _ = write!(text, ", start delay {}", duration(spec.startdelay));
    }
    text
}

/// `60s`, `1500ms`, `250us`: the shortest exact form fio reads.
fn duration(d: Duration) -> String {
    let us = d.as_micros();
    if us > 0 && us % 3_600_000_000 == 0 {
        format!("{}h", us / 3_600_000_000)
    } else if us % 1_000_000 == 0 {
        format!("{}s", us / 1_000_000)
    } else if us % 1000 == 0 {
        format!("{}ms", us / 1000)
    } else {
        format!("{us}us")
    }
}

/// The job's options (fio names them by [`Key::fio_name`]) with compact values (`bs=128k`, `runtime=60s`).
fn fio_options(spec: &JobSpec) -> Vec<(Key, String)> {
    spec.to_options(&Origin::CommandLine)
        .into_iter()
        .map(|o| {
            let value = match o.key {
                Key::Bs | Key::Size | Key::IoSize | Key::Offset | Key::OffsetIncrement => o
                    .value
                    .parse::<u64>()
                    .map_or(o.value.clone(), format_size_short),
                Key::Runtime
                | Key::Ramp
                | Key::Interval
                | Key::StartDelay
                | Key::SsDur
                | Key::SsRamp => {
                    crate::units::parse_duration(&o.value).map_or(o.value.clone(), duration)
                }
                _ => o.value.clone(),
            };
            (o.key, value)
        })
        .collect()
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:=,+%@-".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Each job as an equivalent `fio` command line and `diskdash bench` command (or why there
/// is none), as `--showcmd` prints them.
#[must_use]
pub(crate) fn commands(invocation: &FioInvocation) -> String {
    let mut out = String::new();
    let mut previous_group = None;
    for (i, step) in invocation.plan.steps.iter().enumerate() {
        for (j, job) in step.jobs.iter().enumerate() {
            let mut fio = vec!["fio".to_string(), format!("--name={}", job.name)];
            match (&job.target, job.missing) {
                (Some(path), Missing::Refuse) if path.is_dir() => {
                    fio.push(format!("--directory={}", path.display()));
                }
                (Some(path), missing) => {
                    fio.push(format!("--filename={}", path.display()));
                    if missing == (Missing::Create { unlink: true }) {
                        fio.push("--unlink=1".into());
                    }
                }
                (None, _) => {}
            }
            if i > 0 && j == 0 {
                fio.push("--stonewall".into());
            } else if previous_group.is_some_and(|g| g != job.group) {
                fio.push("--new_group".into());
            }
            previous_group = Some(job.group);
            let size_based = job.spec.io_size_bytes.is_some();
            if !size_based {
                fio.push("--time_based".into());
            }
            for (key, value) in fio_options(&job.spec) {
                // The cap of a size-based run without runtime, the status interval (a
                // command-line option of fio) and fio's defaults go without saying.
                let row = key.row();
                let default = row.fio_default == value
                    || (key == Key::IoSize && job.spec.io_size_bytes == Some(job.spec.size_bytes));
                if default
                    || (key == Key::Runtime
                        && size_based
                        && job.spec.runtime == crate::bench::options::MAX_RUN_TIME)
                    || key == Key::Interval
                    || row.diskdash_only
                {
                    continue;
                }
                fio.push(format!("--{}={value}", row.fio));
            }
            let fio: Vec<String> = fio.iter().map(|w| shell(w)).collect();
            let _ = writeln!(out, "{}:", job.name);
            let _ = writeln!(out, "  {}", fio.join(" "));
            match bench(job) {
                Ok(words) => {
                    let words: Vec<String> = words.iter().map(|w| shell(w)).collect();
                    let _ = writeln!(out, "  {}", words.join(" "));
                }
                Err(why) => {
                    let _ = writeln!(out, "  no diskdash bench equivalent: {why}");
                }
            }
        }
    }
    crate::text::escape_layout(&out).into_owned()
}

/// The `diskdash bench` command that runs `job` alone, or why bench cannot.
fn bench(job: &Job) -> Result<Vec<String>, String> {
    let spec = &job.spec;
    if let (Some(path), Missing::Create { .. }) = (&job.target, job.missing) {
        return Err(format!(
            "bench runs on an existing file, device or directory, and {} does not exist yet",
            path.display()
        ));
    }
    let missing_flag = [
        (spec.offset_bytes > 0, "offset"),
        (spec.offset_increment_bytes > 0, "offset_increment"),
        (!spec.startdelay.is_zero(), "startdelay"),
        (spec.randseed.is_some(), "randseed (or randrepeat=0)"),
        (spec.end_fsync, "end_fsync"),
        (
            spec.cpus.is_some() && !spec.cpus_split,
            "cpus_allowed_policy=shared (bench pins one worker per CPU)",
        ),
    ];
    let lacking: Vec<&str> = missing_flag
        .iter()
        .filter(|(used, _)| *used)
        .map(|(_, name)| *name)
        .collect();
    if !lacking.is_empty() {
        return Err(format!("bench has no flag for {}", lacking.join(", ")));
    }
    let mut words: Vec<String> = ["diskdash", "bench", "--rw", &spec.rw_text()]
        .map(String::from)
        .to_vec();
    let mut flag = |name: &str, value: String| {
        words.push(name.to_string());
        words.push(value);
    };
    if matches!(
        spec.rw,
        crate::bench::spec::RwMode::Rw | crate::bench::spec::RwMode::RandRw
    ) {
        flag("--rwmixread", spec.rwmixread_pct.to_string());
    }
    flag("--bs", format_size_short(spec.block_size_bytes));
    flag("--size", format_size_short(spec.size_bytes));
    flag("-q", spec.iodepth.to_string());
    flag("--numjobs", spec.numjobs.to_string());
    flag("--ioengine", spec.ioengine.as_str().to_string());
    if spec.iodepth_batch != 1 {
        flag("--iodepth-batch", spec.iodepth_batch.to_string());
    }
    if spec.iodepth_batch_complete != 1 {
        flag(
            "--iodepth-batch-complete",
            spec.iodepth_batch_complete.to_string(),
        );
    }
    if spec.iodepth_batch_complete_min != 1 {
        flag(
            "--iodepth-batch-complete-min",
            spec.iodepth_batch_complete_min.to_string(),
        );
    }
    if spec.iodepth_low < spec.iodepth {
        flag("--iodepth-low", spec.iodepth_low.to_string());
    }
    match spec.sync_every {
        Some(SyncEvery::Fsync(n)) => flag("--fsync", n.to_string()),
        Some(SyncEvery::Fdatasync(n)) => flag("--fdatasync", n.to_string()),
        None => {}
    }
    if let Some(sync) = spec.open_sync {
        flag("--sync", sync.as_str().to_string());
    }
    if let Some(cpus) = &spec.cpus {
        flag("--cpus", crate::bench::kinds::format_cpu_list(cpus));
    }
    flag("--runtime", duration(spec.runtime));
    if !spec.ramp.is_zero() {
        flag("--ramp", duration(spec.ramp));
    }
    if spec.interval != Duration::from_secs(1) {
        flag("--interval", duration(spec.interval));
    }
    if let Some(bytes) = spec.io_size_bytes {
        flag("--io-size", format_size_short(bytes));
    }
    if let Some(ss) = &spec.steady {
        flag("--ss", ss.criterion.to_string());
        flag("--ss-dur", duration(ss.dur));
        if !ss.ramp.is_zero() {
            flag("--ss-ramp", duration(ss.ramp));
        }
    }
    if (spec.cliff_pct - crate::bench::spec::DEFAULT_CLIFF_PCT).abs() > f64::EPSILON {
        flag("--cliff", format!("{}%", spec.cliff_pct));
    }
    if spec.iomem != crate::bench::spec::IoMem::Huge {
        flag("--iomem", spec.iomem.as_str().to_string());
    }
    if spec.random_generator != crate::bench::randmap::Generator::Tausworthe {
        flag(
            "--random-generator",
            spec.random_generator.as_str().to_string(),
        );
    }
    if !spec.random_map {
        words.push("--norandommap".into());
    }
    if spec.steady.is_some_and(|ss| ss.keep_going) {
        words.push("--ss-keep-going".into());
    }
    if !spec.direct {
        words.push("--buffered".into());
    }
    if let Some(path) = &job.target {
        words.push(path.display().to_string());
    }
    Ok(words)
}

/// `diskdash fio --help`.
#[must_use]
pub fn help() -> String {
    let mut out = String::from(
        "Run fio job files and fio command lines with diskdash.\n\n\
         Usage: diskdash fio [OPTIONS] [JOBFILE...]\n\
         \x20      diskdash fio --name=JOB --rw=randread --bs=4k --size=1G --filename=FILE ...\n\n\
         Job files as fio reads them: [global] and [job] sections, ; and # comments,\n\
         include FILE, ${VAR} from the environment, - for stdin. On the command line\n\
         each --name starts a job; options before the first --name are global. As fio,\n\
         -opt is --opt, --opt VALUE is --opt=VALUE and a prefix names the one option it\n\
         begins (--group_report is --group_reporting).\n\
         fio's defaults apply (rw=read bs=4k iodepth=1 ioengine=psync direct=0). Without\n\
         time_based a job ends after size (or io_size) bytes per worker; runtime caps it.\n\n\
         fio's command-line options:\n\
         \x20 --parse-only              print the plan (steps, jobs, targets) and exit\n\
         \x20 --showcmd                 print each job as fio and diskdash bench commands\n\
         \x20 --output=FILE             write the report to FILE\n\
         \x20 --output-format=FORMAT    normal, json, json+ (with fio's latency bins) or\n\
         \x20                           terse (fio's version 3 lines)\n\
         \x20 --minimal                 terse output (--terse-version=3, fio's default)\n\
         \x20 --status-interval=TIME    the interval of the status lines and logs; also\n\
         \x20                           prints the full report of the run so far each TIME\n\
         \x20 --section=NAME            run only job section NAME (repeatable)\n\
         \x20 --readonly                refuse jobs that write\n\
         \x20 --version, -v             print fio's version, fio-3.33, and diskdash's\n\
         \x20                           (only fio-3.33 when run as fio: a link named fio)\n\n\
         diskdash's flags:\n\
         \x20 --allow-destructive       allow writes to block devices and existing files\n\
         \x20                           (a job file cannot grant this)\n\
         \x20 --no-tui                  stay headless in a terminal\n\
         \x20 --json FILE               write the run record (JSON)\n\
         \x20 --jsonl FILE              write one JSON record per interval\n\
         \x20 --force                   let --json/--jsonl, --output and fio's log files replace\n\
         \x20                           a plain file of other content (never a link, a job file,\n\
         \x20                           a file of other names or a loop device's backing file)\n\
         \x20 --redact                  no host name, path or command line in the run record\n\
         \x20                           (each replaced by <redacted>) nor in --output-format=json\n\
         \x20 --record-serial           keep the disk's serial in the record (else its SHA-256)\n\
         \x20 --trace                   trace the block layer (root): the device's own latency\n\
         \x20                           split and I/O by process, in the run record\n\
         \x20 --serve ADDR              serve the run and the disks to Prometheus while it runs\n\
         \x20 --serve-linger TIME       keep serving the final values TIME after the run\n\n\
         Job options diskdash knows (others are errors):\n",
    );
    let mut line = String::from(" ");
    for (name, how) in crate::fio::map::known_options() {
        let word = if how == crate::fio::map::Shown::Honoured {
            name.to_string()
        } else {
            format!("{name}*")
        };
        if line.len() + word.len() + 1 > 78 {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        line.push(' ');
        line.push_str(&word);
    }
    out.push_str(&line);
    out.push_str(
        "\n  (* accepted with a one-line note: diskdash does not need it)\n\n\
         ioengine: io_uring, libaio, psync (sync, pvsync), null.\n",
    );
    out
}
