//! The validated job: raw `bench` arguments become a [`JobSpec`] here and nowhere else. Every
//! error text is tested in the table below. Checks that need the target (logical block size,
//! free space, O_DIRECT support) live in `target`.

use std::time::Duration;

use crate::bench::units::{
    DurationError, format_bytes, format_size_short, parse_duration, parse_size_bytes,
};
use crate::cli::BenchArgs;
use crate::usage;

/// The deepest queue a worker may ask for (io_uring's `IORING_MAX_ENTRIES` is 32768; the
/// completion queue is twice the submission queue).
pub const MAX_IODEPTH: u32 = 16_384;
/// The most worker threads.
pub const MAX_NUMJOBS: u32 = 1024;
/// The largest block size (a single io_uring SQE carries a `u32` length).
pub const MAX_BLOCK_SIZE_BYTES: u64 = 256 << 20;
/// The shortest status interval (the monitor's `--interval` has the same bounds).
pub const MIN_INTERVAL: Duration = Duration::from_millis(10);
/// The longest status interval: a day, as the monitor's `--interval`.
pub const MAX_INTERVAL: Duration = Duration::from_secs(24 * 3600);
/// The longest `--runtime` and the longest `--ramp`: 365 days, far beyond any soak test, and
/// small enough that `CLOCK_MONOTONIC` nanoseconds + ramp + runtime stay well inside `u64`
/// (584 years), so the session's deadline arithmetic cannot overflow.
pub const MAX_RUN_TIME: Duration = Duration::from_secs(365 * 24 * 3600);
/// [`MAX_RUN_TIME`] as users write it (`parse_duration` has no day unit).
const MAX_RUN_TIME_TEXT: &str = "8760h (365 days)";
/// The most CPUs `--cpus` may name: Linux's largest `CONFIG_NR_CPUS`.
pub const MAX_CPUS: usize = 8192;

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
        }
    }

    #[must_use]
    pub fn is_random(self) -> bool {
        matches!(self, Self::RandRead | Self::RandWrite | Self::RandRw)
    }

    /// Share of reads in percent, given the mix setting for mixed modes.
    #[must_use]
    pub fn read_pct(self, rwmixread_pct: u8) -> u8 {
        match self {
            Self::Read | Self::RandRead => 100,
            Self::Write | Self::RandWrite => 0,
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
    /// `pread`/`pwrite`, one I/O at a time per worker.
    Psync,
    /// No I/O: completes every request at once; measures the engine's own overhead.
    Null,
}

impl EngineKind {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::IoUring => "io_uring",
            Self::Psync => "psync",
            Self::Null => "null",
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
    pub fn every_writes(self) -> u32 {
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
    pub direct: bool,
    pub sync_every: Option<SyncEvery>,
    pub open_sync: Option<OpenSync>,
    pub cpus: Option<Vec<usize>>,
    pub runtime: Duration,
    pub ramp: Duration,
    pub interval: Duration,
}

/// What validation needs to know about the machine (injected so the table test is exact).
#[derive(Debug, Clone)]
pub struct MachineLimits {
    pub available_cpus: Vec<usize>,
    pub memory_bytes: u64,
}

impl MachineLimits {
    /// The CPUs this process may run on and the physical memory.
    #[must_use]
    pub fn detect() -> Self {
        let available_cpus = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0))
            .map(|set| {
                (0..nix::sched::CpuSet::count())
                    .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
                    .collect()
            })
            .unwrap_or_else(|_| vec![0]);
        // SAFETY: sysconf has no memory-safety preconditions.
        let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
        // SAFETY: as above.
        let page_size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let memory_bytes =
            u64::try_from(pages.max(0)).unwrap_or(0) * u64::try_from(page_size.max(0)).unwrap_or(0);
        Self {
            available_cpus,
            memory_bytes,
        }
    }
}

/// The working set when `--size` is not given.
pub const DEFAULT_SIZE: &str = "1G";

impl JobSpec {
    /// Validates raw arguments into a job. Errors are usage errors (exit 2) naming the value
    /// and the fix.
    pub fn from_args(args: &BenchArgs, machine: &MachineLimits) -> anyhow::Result<Self> {
        let rw = RwMode::parse(&args.rw).ok_or_else(|| {
            usage!(
                "--rw {:?} is not a workload; use read, write, randread, randwrite, rw or randrw",
                args.rw
            )
        })?;
        let rwmixread_pct = match args.rwmixread.parse::<u8>() {
            Ok(pct) if pct <= 100 => pct,
            _ => {
                return Err(usage!(
                    "--rwmixread {:?} is not a percentage; use 0 to 100",
                    args.rwmixread
                ));
            }
        };
        let block_size_bytes = size_option("--bs", &args.bs, "4k, 1M or 512")?;
        if block_size_bytes > MAX_BLOCK_SIZE_BYTES {
            return Err(usage!(
                "--bs {} is too large; use at most {}",
                args.bs,
                format_size_short(MAX_BLOCK_SIZE_BYTES)
            ));
        }
        let size_text = args.size.as_deref().unwrap_or(DEFAULT_SIZE);
        let size_bytes = size_option("--size", size_text, "16M, 1G or 10G")?;
        if block_size_bytes > size_bytes {
            return Err(usage!(
                "--bs {} is larger than --size {}; raise --size or lower --bs",
                args.bs,
                size_text
            ));
        }
        let iodepth = count_option("--iodepth", &args.iodepth, MAX_IODEPTH, "1, 32 or 128")?;
        let numjobs = count_option("--numjobs", &args.numjobs, MAX_NUMJOBS, "1, 2 or 4")?;
        let ioengine = match args.ioengine.as_str() {
            "io_uring" => EngineKind::IoUring,
            "psync" => EngineKind::Psync,
            "null" => EngineKind::Null,
            other => {
                return Err(usage!(
                    "--ioengine {other:?} is not an engine; use io_uring, psync or null"
                ));
            }
        };
        let iodepth_batch = count_option(
            "--iodepth-batch",
            &args.iodepth_batch,
            MAX_IODEPTH,
            "1 or 8",
        )?;
        if iodepth_batch > iodepth {
            return Err(usage!(
                "--iodepth-batch {iodepth_batch} exceeds --iodepth {iodepth}; use 1 to {iodepth}"
            ));
        }
        let iodepth_batch_complete = count_option(
            "--iodepth-batch-complete",
            &args.iodepth_batch_complete,
            MAX_IODEPTH,
            "1 or 32",
        )?;
        let buffer_bytes = block_size_bytes * u64::from(iodepth) * u64::from(numjobs);
        if machine.memory_bytes > 0 && buffer_bytes > machine.memory_bytes / 2 {
            return Err(usage!(
                "--bs {} x --iodepth {iodepth} x --numjobs {numjobs} needs {} of I/O buffers, \
                 more than half of this machine's {}; lower --iodepth, --numjobs or --bs",
                args.bs,
                format_bytes(buffer_bytes),
                format_bytes(machine.memory_bytes)
            ));
        }
        let sync_every = match (&args.fsync, &args.fdatasync) {
            (Some(_), Some(_)) => {
                return Err(usage!(
                    "--fsync and --fdatasync cannot be combined; pick one"
                ));
            }
            (Some(n), None) => sync_count("--fsync", n)?.map(SyncEvery::Fsync),
            (None, Some(n)) => sync_count("--fdatasync", n)?.map(SyncEvery::Fdatasync),
            (None, None) => None,
        };
        let open_sync = match args.sync.as_deref() {
            None => None,
            Some("dsync") => Some(OpenSync::Dsync),
            Some("sync") => Some(OpenSync::Sync),
            Some(other) => {
                return Err(usage!(
                    "--sync {other:?} is not a sync mode; use dsync or sync"
                ));
            }
        };
        let cpus = match &args.cpus {
            None => None,
            Some(list) => Some(cpu_list(list, &machine.available_cpus)?),
        };
        let runtime = duration_option("--runtime", &args.runtime, MAX_RUN_TIME_TEXT)?;
        if runtime.is_zero() {
            return Err(usage!(
                "--runtime {:?} must be greater than zero; use e.g. 10s",
                args.runtime
            ));
        }
        if runtime > MAX_RUN_TIME {
            return Err(usage!(
                "--runtime {:?} is too long; use at most {MAX_RUN_TIME_TEXT}, e.g. 10m or 24h",
                args.runtime
            ));
        }
        let ramp = duration_option("--ramp", &args.ramp, MAX_RUN_TIME_TEXT)?;
        if ramp > MAX_RUN_TIME {
            return Err(usage!(
                "--ramp {:?} is too long; use at most {MAX_RUN_TIME_TEXT}, e.g. 30s or 5m",
                args.ramp
            ));
        }
        let interval = duration_option("--interval", &args.interval, "24h")?;
        if interval < MIN_INTERVAL {
            return Err(usage!(
                "--interval {:?} is too short; use 10ms to 24h, e.g. 1s",
                args.interval
            ));
        }
        if interval > MAX_INTERVAL {
            return Err(usage!(
                "--interval {:?} is too long; use 10ms to 24h, e.g. 1s",
                args.interval
            ));
        }
        Ok(Self {
            rw,
            rwmixread_pct,
            block_size_bytes,
            size_bytes,
            size_explicit: args.size.is_some(),
            iodepth,
            numjobs,
            ioengine,
            iodepth_batch,
            iodepth_batch_complete,
            direct: !args.buffered,
            sync_every,
            open_sync,
            cpus,
            runtime,
            ramp,
            interval,
        })
    }

    /// Whether this job issues writes.
    #[must_use]
    pub fn writes(&self) -> bool {
        self.rw.read_pct(self.rwmixread_pct) < 100
    }

    /// Whether this job issues reads.
    #[must_use]
    pub fn reads(&self) -> bool {
        self.rw.read_pct(self.rwmixread_pct) > 0
    }

    /// I/Os in flight per worker: psync issues one at a time, like fio's sync engines.
    #[must_use]
    pub fn effective_iodepth(&self) -> u32 {
        match self.ioengine {
            EngineKind::Psync => 1,
            EngineKind::IoUring | EngineKind::Null => self.iodepth,
        }
    }

    /// fio-style one-line description: `randread bs=4k iodepth=32 numjobs=1 io_uring direct`.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut text = format!(
            "{} bs={} iodepth={} numjobs={} {} {}",
            self.rw.as_str(),
            format_size_short(self.block_size_bytes),
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
        text
    }
}

fn size_option(flag: &str, text: &str, examples: &str) -> anyhow::Result<u64> {
    match parse_size_bytes(text) {
        None => Err(usage!("{flag} {text:?} is not a size; use e.g. {examples}")),
        Some(0) => Err(usage!(
            "{flag} {text:?} must be greater than zero; use e.g. {examples}"
        )),
        Some(bytes) => Ok(bytes),
    }
}

fn count_option(flag: &str, text: &str, max: u32, examples: &str) -> anyhow::Result<u32> {
    let Ok(value) = text.trim().parse::<u64>() else {
        return Err(usage!(
            "{flag} {text:?} is not a number; use e.g. {examples}"
        ));
    };
    if value == 0 {
        return Err(usage!(
            "{flag} {text:?} must be at least 1; use e.g. {examples}"
        ));
    }
    if value > u64::from(max) {
        return Err(usage!("{flag} {text:?} is too large; use 1 to {max}"));
    }
    Ok(u32::try_from(value).unwrap_or(max))
}

fn sync_count(flag: &str, text: &str) -> anyhow::Result<Option<u32>> {
    match text.trim().parse::<u32>() {
        Ok(0) => Ok(None),
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(usage!(
            "{flag} {text:?} is not a count of writes; use e.g. 1 or 32 (0 turns it off)"
        )),
    }
}

fn duration_option(flag: &str, text: &str, max: &str) -> anyhow::Result<Duration> {
    parse_duration(text).map_err(|e| match e {
        DurationError::NotADuration => {
            usage!("{flag} {text:?} is not a duration; use e.g. 500ms, 10s or 2m")
        }
        DurationError::TooLong => usage!("{flag} {text:?} is too long; use at most {max}"),
    })
}

/// Why a text is not a CPU list (see [`parse_cpu_list`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuListError {
    /// Not `N`, `N-M` (N <= M) or a comma-separated list of those.
    Syntax,
    /// A CPU at or above [`MAX_CPUS`], which no Linux kernel has.
    OutOfRange(usize),
}

/// Parses a CPU list as in `taskset -c` and `/sys/devices/system/cpu/online`: `0-3,6`, spaces
/// around numbers allowed. Returns the CPUs sorted, without repeats. Memory is bounded by
/// [`MAX_CPUS`] whatever the text (`0-8191` repeated a thousand times is one set).
///
/// # Errors
/// [`CpuListError`]: a word that is not a number or range, a range that runs backwards, or a
/// CPU of [`MAX_CPUS`] or more.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, CpuListError> {
    let mut wanted = vec![false; MAX_CPUS];
    for part in text.split(',') {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<usize>(), b.trim().parse::<usize>()),
            None => (part.trim().parse::<usize>(), part.trim().parse::<usize>()),
        };
        let (Ok(first), Ok(last)) = (first, last) else {
            return Err(CpuListError::Syntax);
        };
        if first > last {
            return Err(CpuListError::Syntax);
        }
        if last >= MAX_CPUS {
            return Err(CpuListError::OutOfRange(last));
        }
        wanted[first..=last].fill(true);
    }
    Ok((0..MAX_CPUS).filter(|&cpu| wanted[cpu]).collect())
}

/// Parses `0-3,6` and checks every CPU is one this process may use.
fn cpu_list(text: &str, available: &[usize]) -> anyhow::Result<Vec<usize>> {
    let not_available = |cpu: usize| {
        usage!(
            "--cpus {text:?}: CPU {cpu} is not available; this process may use CPUs {}",
            format_cpu_list(available)
        )
    };
    let cpus = parse_cpu_list(text).map_err(|e| match e {
        CpuListError::Syntax => usage!("--cpus {text:?} is not a CPU list; use e.g. 0-3,6"),
        CpuListError::OutOfRange(cpu) => not_available(cpu),
    })?;
    if let Some(&cpu) = cpus.iter().find(|cpu| !available.contains(cpu)) {
        return Err(not_available(cpu));
    }
    Ok(cpus)
}

/// `0-3,6` from a sorted list.
#[must_use]
pub fn format_cpu_list(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(extra: &[&str]) -> BenchArgs {
        let mut argv = vec!["diskdash", "bench"];
        argv.extend_from_slice(extra);
        match crate::cli::Cli::parse_from(argv).command {
            Some(crate::cli::Command::Bench(args)) => args,
            other => panic!("not a bench command: {other:?}"),
        }
    }

    fn machine() -> MachineLimits {
        MachineLimits {
            available_cpus: vec![0, 1],
            memory_bytes: 24 << 30,
        }
    }

    fn parse(extra: &[&str]) -> Result<JobSpec, String> {
        JobSpec::from_args(&args(extra), &machine()).map_err(|e| {
            assert_eq!(crate::error::exit_code(&e), 2, "usage error expected: {e}");
            e.to_string()
        })
    }

    #[test]
    fn defaults_match_the_issue() {
        let spec = parse(&[]).unwrap();
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
    fn every_bad_value_names_itself_and_the_fix() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["--rw", "randomread"],
                r#"--rw "randomread" is not a workload; use read, write, randread, randwrite, rw or randrw"#,
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
                &["--ioengine", "libaio"],
                r#"--ioengine "libaio" is not an engine; use io_uring, psync or null"#,
            ),
            (
                &["--iodepth-batch", "64"],
                "--iodepth-batch 64 exceeds --iodepth 32; use 1 to 32",
            ),
            (
                &["--bs", "256M", "-q", "64"],
                "--bs 256M x --iodepth 64 x --numjobs 1 needs 16 GiB of I/O buffers, more than half of this machine's 24 GiB; lower --iodepth, --numjobs or --bs",
            ),
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
                r#"--interval "99999999999999999999ms" is too long; use at most 24h"#,
            ),
            (
                &["--runtime", "8761h"],
                r#"--runtime "8761h" is too long; use at most 8760h (365 days), e.g. 10m or 24h"#,
            ),
            (
                &["--runtime", "18446744073709551615h"],
                r#"--runtime "18446744073709551615h" is too long; use at most 8760h (365 days)"#,
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
    fn cpu_lists_format_back() {
        assert_eq!(format_cpu_list(&[0, 1, 2, 3, 6]), "0-3,6");
        assert_eq!(format_cpu_list(&[1]), "1");
        assert_eq!(cpu_list("1,0,0-1", &[0, 1]).unwrap(), vec![0, 1]);
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
