//! CrystalDiskMark's tests as a [`Plan`]: a profile is a list of tests (`SEQ1M Q8T1`: pattern,
//! block size, queue depth per thread, threads); each test is measured reading, then writing
//! (then mixed, with `--mix`), `loops` times each, one step per measurement.
//!
//! The definitions are CrystalDiskMark 8's (hiyohiyo/CrystalDiskMark, `DiskMarkDlg.cpp`
//! `SettingsQueuesThreads`, the "Default" and "NVMe SSD Ver.8" settings) and match KDiskMark's
//! (`AppSettings::defaultBenchmarkParams`). The order is CrystalDiskMark's
//! (`DiskBench.cpp` `ExecDiskBenchAll`): every test's reads, then every test's writes, then
//! every test's mixes; within one measurement the loops run back to back.
//!
//! How loops run and become numbers is a rule set ([`Rules`], `--like`): CrystalDiskMark's
//! (the default: time-based loops, the first warmed up for as long as it measures, the best
//! loop, MB/s of 10^6 bytes) or KDiskMark's (`JonMagon/KDiskMark` `src/benchmark.cpp`
//! `startTest`/`sendResult`/`runBenchmark`, `src/helper.cpp`: size-based loops capped by the
//! measuring time, no warm-up, a pause between tests, the mean of the loops for the default
//! profile and the best for the others, MB/s as fio's `bw` / 1000, a mix reported as the
//! read-weighted average of its reads and writes). KDiskMark's are those of its 3.3.0
//! (`202c6a84`, and its master at `e78d3c75`): "Continuous generation" (fio's
//! `--refill_buffers`) off by default (3.2 always passed `--refill_buffers`), and "Flush
//! Pagecache" on by default: `Helper::flushPageCache` writes 1 to /proc/sys/vm/drop_caches
//! before every loop of every test, which takes root.

use std::path::PathBuf;
use std::time::Duration;

use crate::bench::options::{JobOption, Key, validate};
use crate::bench::spec::{BufferData, MachineLimits, RwMode};
use crate::plan::{Job, Plan, Step};

/// Sequential or random offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    Seq,
    Rnd,
}

/// One of CrystalDiskMark's tests: `SEQ1M Q8T1` is sequential 1 MiB I/Os, 8 in flight per
/// thread, 1 thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkTest {
    pub pattern: Pattern,
    pub block_size_bytes: u64,
    /// I/Os in flight per thread (`Q`).
    pub iodepth: u32,
    /// Threads (`T`), each with its own queue.
    pub numjobs: u32,
}

const fn test(pattern: Pattern, block_size_kib: u64, iodepth: u32, numjobs: u32) -> MarkTest {
    MarkTest {
        pattern,
        block_size_bytes: block_size_kib * 1024,
        iodepth,
        numjobs,
    }
}

impl MarkTest {
    /// CrystalDiskMark's name: `SEQ1M Q8T1`, `SEQ128K Q32T1`, `RND4K Q32T16`.
    #[must_use]
    pub fn label(&self) -> String {
        label(
            self.pattern,
            self.block_size_bytes,
            self.iodepth,
            self.numjobs,
        )
    }

    /// fio's `rw` for a measurement of this test.
    #[must_use]
    pub fn rw(&self, measure: Measure) -> RwMode {
        match (self.pattern, measure) {
            (Pattern::Seq, Measure::Read) => RwMode::Read,
            (Pattern::Seq, Measure::Write) => RwMode::Write,
            (Pattern::Seq, Measure::Mix) => RwMode::Rw,
            (Pattern::Rnd, Measure::Read) => RwMode::RandRead,
            (Pattern::Rnd, Measure::Write) => RwMode::RandWrite,
            (Pattern::Rnd, Measure::Mix) => RwMode::RandRw,
        }
    }
}

/// The name of a test from its parameters (a record's job says them all).
#[must_use]
pub fn label(pattern: Pattern, block_size_bytes: u64, iodepth: u32, numjobs: u32) -> String {
    let kind = match pattern {
        Pattern::Seq => "SEQ",
        Pattern::Rnd => "RND",
    };
    let size = if block_size_bytes >= 1 << 20 && block_size_bytes % (1 << 20) == 0 {
        format!("{}M", block_size_bytes >> 20)
    } else if block_size_bytes % 1024 == 0 {
        format!("{}K", block_size_bytes >> 10)
    } else {
        format!("{block_size_bytes}B")
    };
    format!("{kind}{size} Q{iodepth}T{numjobs}")
}

/// What one measurement does with a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Measure {
    Read,
    Write,
    /// CrystalDiskMark's MIX: reads and writes at once, `--mix` percent reads.
    Mix,
}

impl Measure {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Mix => "mix",
        }
    }
}

/// CrystalDiskMark's and KDiskMark's profiles; `nvme` and `peak-nvme` are `default` and
/// `peak` under their "NVMe SSD" preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Default,
    Peak,
    RealWorld,
    Demo,
    Nvme,
    PeakNvme,
}

/// The names `--profile` takes, in the order they are listed.
pub const PROFILE_NAMES: [&str; 6] = ["default", "peak", "realworld", "demo", "nvme", "peak-nvme"];

const DEFAULT_TESTS: [MarkTest; 4] = [
    test(Pattern::Seq, 1024, 8, 1),
    test(Pattern::Seq, 1024, 1, 1),
    test(Pattern::Rnd, 4, 32, 1),
    test(Pattern::Rnd, 4, 1, 1),
];
const PEAK_TESTS: [MarkTest; 2] = [test(Pattern::Seq, 1024, 8, 1), test(Pattern::Rnd, 4, 32, 1)];
const REAL_WORLD_TESTS: [MarkTest; 2] =
    [test(Pattern::Seq, 1024, 1, 1), test(Pattern::Rnd, 4, 1, 1)];
/// KDiskMark's "Demo" (`AppSettings::defaultBenchmarkParams`): one sequential test.
const DEMO_TESTS: [MarkTest; 1] = [test(Pattern::Seq, 1024, 8, 1)];
const PEAK_NVME_TESTS: [MarkTest; 2] = [
    test(Pattern::Seq, 1024, 8, 1),
    test(Pattern::Rnd, 4, 32, 16),
];
const NVME_TESTS: [MarkTest; 4] = [
    test(Pattern::Seq, 1024, 8, 1),
    test(Pattern::Seq, 128, 32, 1),
    test(Pattern::Rnd, 4, 32, 16),
    test(Pattern::Rnd, 4, 1, 1),
];

impl Profile {
    /// `None` for a name that is not a profile.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "default" => Self::Default,
            "peak" => Self::Peak,
            "realworld" | "real-world" | "real" => Self::RealWorld,
            "demo" => Self::Demo,
            "nvme" => Self::Nvme,
            "peak-nvme" | "peaknvme" | "nvme-peak" => Self::PeakNvme,
            _ => return None,
        })
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Peak => "peak",
            Self::RealWorld => "realworld",
            Self::Demo => "demo",
            Self::Nvme => "nvme",
            Self::PeakNvme => "peak-nvme",
        }
    }

    /// The tests, top row first. `peak` is CrystalDiskMark's "Peak Performance" under its
    /// default settings, `peak-nvme` under its NVMe setting (the random row Q32T16);
    /// `realworld` is its "Real World Performance", the same under both settings; `demo` is
    /// KDiskMark's "Demo".
    #[must_use]
    pub fn tests(self) -> &'static [MarkTest] {
        match self {
            Self::Default => &DEFAULT_TESTS,
            Self::Peak => &PEAK_TESTS,
            Self::RealWorld => &REAL_WORLD_TESTS,
            Self::Demo => &DEMO_TESTS,
            Self::Nvme => &NVME_TESTS,
            Self::PeakNvme => &PEAK_NVME_TESTS,
        }
    }
}

pub use crate::values::Pick;

/// How a test's loops become its number: the highest rate and the lowest latency, each over
/// the loops (`Best`, CrystalDiskMark's rule), their arithmetic mean (`Mean`, KDiskMark's rule
/// for its default profile), or their median.
impl Pick {
    /// The loops' values as one: `higher_is_better` for rates, not for latencies.
    /// `None` for no values.
    #[must_use]
    pub fn apply(self, values: &[f64], higher_is_better: bool) -> Option<f64> {
        if values.is_empty() {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len() as f64;
        Some(match self {
            Self::Best if higher_is_better => sorted[sorted.len() - 1],
            Self::Best => sorted[0],
            Self::Mean => sorted.iter().sum::<f64>() / n,
            Self::Median => {
                let mid = sorted.len() / 2;
                if sorted.len() % 2 == 1 {
                    sorted[mid]
                } else {
                    (sorted[mid - 1] + sorted[mid]) / 2.0
                }
            }
        })
    }
}

/// Whose rules a run follows (`--like`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Like {
    CrystalDiskMark,
    KDiskMark,
}

/// The names `--like` takes.
pub const LIKE_NAMES: [&str; 2] = ["crystaldiskmark", "kdiskmark"];

impl Like {
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text.to_ascii_lowercase().as_str() {
            "crystaldiskmark" | "cdm" => Self::CrystalDiskMark,
            "kdiskmark" | "kdm" => Self::KDiskMark,
            _ => return None,
        })
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::CrystalDiskMark => "crystaldiskmark",
            Self::KDiskMark => "kdiskmark",
        }
    }
}

/// What one megabyte of the MB/s columns is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MbUnit {
    /// 10^6 bytes (CrystalDiskMark).
    Decimal,
    /// fio's `bw` (whole KiB/s) / 1000, as KDiskMark divides it: 1,024,000 bytes.
    FioKib,
}

impl MbUnit {
    #[must_use]
    pub fn bytes(self) -> u64 {
        match self {
            Self::Decimal => 1_000_000,
            Self::FioKib => 1_024_000,
        }
    }

    /// MB/s from a rate: `bw_bytes` bytes/s, `bw_kib` fio's whole KiB/s of the same.
    #[must_use]
    pub fn mb_s(self, bw_bytes: u64, bw_kib: u64) -> f64 {
        match self {
            Self::Decimal => bw_bytes as f64 / 1e6,
            Self::FioKib => bw_kib as f64 / 1000.0,
        }
    }
}

/// How a mixed measurement becomes one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MixReport {
    /// Reads and writes together: their MB/s and IOPS added, latency over all I/Os.
    Total,
    /// KDiskMark's `(read * p + write * (100 - p)) / 100` of each number, `p` the percent
    /// reads, each direction folded over the loops first.
    Weighted,
}

/// How loops run and become numbers: a rule set of [`Like`], `--pick` and `--pause` over it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    pub like: Like,
    pub pick: Pick,
    /// `--pick` was given, over the rule set's own.
    pub pick_given: bool,
    pub mb: MbUnit,
    /// The first loop of each measurement warms up for as long as it measures.
    pub warm_up: bool,
    /// Each loop ends after the working set's bytes per thread (fio without `time_based`),
    /// `--runtime` capping it; else it runs `--runtime`.
    pub size_based: bool,
    /// Idle time before each measurement but the first.
    pub pause: Duration,
    pub mix: MixReport,
    /// What the written blocks hold (`--data`).
    pub data: BufferData,
    /// Whether the kernel's page cache is dropped before every loop (`--flush-cache`,
    /// KDiskMark's "Flush Pagecache"), and if not, why.
    pub flush: Flush,
}

/// The page cache before each loop: dropped, or kept and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flush {
    /// Dropped before every loop (`--flush-cache`, or KDiskMark's default as root).
    EachLoop,
    /// Kept: the rule set does not flush (CrystalDiskMark's) and it was not asked.
    Off,
    /// Kept: `--no-flush-cache` over a rule set that flushes.
    Declined,
    /// Kept: the rule set flushes (KDiskMark's), but dropping it takes root.
    NotRoot,
}

impl Flush {
    /// Whether the cache is dropped.
    #[must_use]
    pub fn drops(self) -> bool {
        self == Self::EachLoop
    }

    /// The name the record keeps (`mark.page_cache`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::EachLoop => "dropped-each-loop",
            Self::Off => "kept",
            Self::Declined => "kept-no-flush-cache",
            Self::NotRoot => "kept-not-root",
        }
    }

    /// The inverse of [`Flush::name`].
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        [Self::EachLoop, Self::Off, Self::Declined, Self::NotRoot]
            .into_iter()
            .find(|f| f.name() == name)
    }
}

/// KDiskMark's "Interval Time" and "Measuring Time" defaults (`AppSettings`), seconds.
pub const KDISKMARK_PAUSE: Duration = Duration::from_secs(5);

impl Rules {
    /// `like`'s rules for `profile`.
    #[must_use]
    pub fn of(like: Like, profile: Profile) -> Self {
        match like {
            Like::CrystalDiskMark => Self {
                like,
                pick: Pick::Best,
                pick_given: false,
                mb: MbUnit::Decimal,
                warm_up: true,
                size_based: false,
                pause: Duration::ZERO,
                mix: MixReport::Total,
                data: BufferData::Random,
                flush: Flush::Off,
            },
            Like::KDiskMark => Self {
                like,
                // `Benchmark::startTest`: the default profile sums and divides, the others
                // keep the better value.
                pick: if matches!(profile, Profile::Default | Profile::Nvme) {
                    Pick::Mean
                } else {
                    Pick::Best
                },
                pick_given: false,
                mb: MbUnit::FioKib,
                warm_up: false,
                size_based: true,
                pause: KDISKMARK_PAUSE,
                mix: MixReport::Weighted,
                // KDiskMark 3.3's `Helper::startBenchmarkTest` passes `--refill_buffers=0`
                // ("Continuous generation" off by default) and `--zero_buffers=0`: random
                // buffers filled once, as fio fills them.
                data: BufferData::Random,
                // `AppSettings::defaultFlushingCacheState`: on.
                flush: Flush::EachLoop,
            },
        }
    }

    /// The rules in words, for the window's footer and the record's notes.
    #[must_use]
    pub fn describe(&self) -> String {
        let pause = if self.pause.is_zero() {
            "no pause between tests".to_string()
        } else {
            format!(
                "{} pause before each test",
                crate::units::format_duration(self.pause)
            )
        };
        let runs = if self.size_based {
            "size-based loops (the working set once per thread, --runtime the cap)"
        } else {
            "time-based loops"
        };
        let warm_up = if self.warm_up {
            ", the first warmed up"
        } else {
            ", no warm-up"
        };
        let pick = if self.pick_given {
            format!("the {} of the loops (--pick)", self.pick.as_str())
        } else {
            format!("the {} of the loops", self.pick.as_str())
        };
        let mb = match self.mb {
            MbUnit::Decimal => "MB/s = 10^6 bytes/s",
            MbUnit::FioKib => "MB/s = fio's bw (KiB/s) / 1000, i.e. 1,024,000 bytes/s",
        };
        let mix = match self.mix {
            MixReport::Total => "mix = reads + writes",
            MixReport::Weighted => "mix = (read * p + write * (100 - p)) / 100",
        };
        let data = match self.data {
            BufferData::Random => "data random (filled once)",
            BufferData::Refill => "data random (refilled before each write)",
            BufferData::Zero => "data zeros",
            BufferData::Shaped(_) => "data shaped to dedupe and compress",
        };
        let flush = match self.flush {
            Flush::EachLoop => "page cache dropped before each loop (1 > /proc/sys/vm/drop_caches)",
            Flush::Off => "page cache not flushed",
            Flush::Declined => "page cache NOT flushed (--no-flush-cache; KDiskMark flushes it)",
            Flush::NotRoot => {
                "page cache NOT flushed: dropping it takes root (KDiskMark flushes it before \
                 each loop; run as root, or pass --no-flush-cache to say so)"
            }
        };
        format!(
            "rules: {} ({runs}{warm_up}, {pause}, {pick}, {mb}, {mix}, {data}, {flush})",
            self.like.name()
        )
    }
}

/// The names of [`Mode`]s, as shells complete them.
pub const MODE_NAMES: [&str; 3] = ["all", "read", "write"];

/// The kinds of `--data`, as shells complete them.
pub const DATA_NAMES: [&str; 3] = ["random", "refill", "zero"];

/// Which directions run (`--mode`, KDiskMark's "Read + Mix" and "Write + Mix"): the mix,
/// when asked for, runs in every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    All,
    Read,
    Write,
}

impl Mode {
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "all" | "rw" => Self::All,
            "read" => Self::Read,
            "write" => Self::Write,
            _ => return None,
        })
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Read => "read",
            Self::Write => "write",
        }
    }

    /// Whether `measure` runs in this mode.
    #[must_use]
    pub fn runs(self, measure: Measure) -> bool {
        !matches!(
            (self, measure),
            (Self::Read, Measure::Write) | (Self::Write, Measure::Read)
        )
    }
}

/// The most loops `--loops` takes (CrystalDiskMark offers 1 to 9).
pub const MAX_LOOPS: u32 = 100;

/// `diskdash mark`'s choices, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkConfig {
    pub profile: Profile,
    /// `--mix PCT`: percent reads of the mixed measurement of every test.
    pub mix_read_pct: Option<u8>,
    pub loops: u32,
    pub rules: Rules,
    pub mode: Mode,
}

/// The flags of `diskdash mark` that are not job options, as typed.
#[derive(Debug, Clone, Copy)]
pub struct RawMark<'a> {
    pub profile: &'a str,
    pub mix: Option<&'a str>,
    pub loops: &'a str,
    pub like: &'a str,
    /// `None`: the rule set's.
    pub pick: Option<&'a str>,
    /// `None`: the rule set's.
    pub pause: Option<&'a str>,
    pub mode: &'a str,
    /// `--data`: `None`: random, as the rule set fills it.
    pub data: Option<&'a str>,
    /// `--flush-cache` (`Some(true)`), `--no-flush-cache` (`Some(false)`), or the rule set's
    /// (`None`).
    pub flush: Option<bool>,
    /// Whether this process may drop the page cache (root): the rule set's flush falls back
    /// to [`Flush::NotRoot`] without.
    pub can_flush: bool,
}

impl MarkConfig {
    /// # Errors
    /// A usage error naming the flag, its value and what it takes.
    pub fn from_raw(raw: RawMark<'_>) -> anyhow::Result<Self> {
        let profile = Profile::parse(raw.profile).ok_or_else(|| {
            crate::error::usage!(
                "--profile {:?} is not a profile; use {}",
                raw.profile,
                PROFILE_NAMES.join(", ")
            )
        })?;
        let mix_read_pct = match raw.mix {
            None => None,
            Some(text) => match text.parse::<u8>() {
                Ok(pct) if pct <= 100 => Some(pct),
                _ => {
                    return Err(crate::error::usage!(
                        "--mix {text:?} is not a percentage of reads; use 0 to 100 \
                         (CrystalDiskMark's default is 70)"
                    ));
                }
            },
        };
        let loops = match raw.loops.parse::<u32>() {
            Ok(n) if (1..=MAX_LOOPS).contains(&n) => n,
            _ => {
                return Err(crate::error::usage!(
                    "--loops {:?} is not a number of loops; use 1 to {MAX_LOOPS} \
                     (CrystalDiskMark's default is 5)",
                    raw.loops
                ));
            }
        };
        let like = Like::parse(raw.like).ok_or_else(|| {
            crate::error::usage!(
                "--like {:?} is not a rule set; use {}",
                raw.like,
                LIKE_NAMES.join(" or ")
            )
        })?;
        let mut rules = Rules::of(like, profile);
        if let Some(text) = raw.pick {
            rules.pick = Pick::parse(text)?;
            rules.pick_given = true;
        }
        if let Some(text) = raw.pause {
            rules.pause = crate::units::parse_duration(text).map_err(|_| {
                crate::error::usage!(
                    "--pause {text:?} is not a duration; use e.g. 5s, 500ms or 0 \
                     (KDiskMark's is 5s)"
                )
            })?;
        }
        match raw.data {
            None => {}
            Some("random") => rules.data = BufferData::Random,
            Some("refill") => rules.data = BufferData::Refill,
            Some("zero" | "zeros") => rules.data = BufferData::Zero,
            Some(other) => {
                return Err(crate::error::usage!(
                    "--data {other:?} is not a kind of test data; use random, refill or zero \
                     (KDiskMark's \"Random\", \"Continuous generation\" and \"Zeros\")"
                ));
            }
        }
        rules.flush = match (raw.flush, rules.flush) {
            (Some(true), _) => Flush::EachLoop,
            (Some(false), Flush::EachLoop) => Flush::Declined,
            (Some(false), _) => Flush::Off,
            (None, Flush::EachLoop) if !raw.can_flush => Flush::NotRoot,
            (None, flush) => flush,
        };
        let mode = Mode::parse(raw.mode).ok_or_else(|| {
            crate::error::usage!(
                "--mode {:?} is not a mode; use all, read (reads and any --mix) or write \
                 (writes and any --mix)",
                raw.mode
            )
        })?;
        Ok(Self {
            profile,
            mix_read_pct,
            loops,
            rules,
            mode,
        })
    }

    /// The measurements in the order they run: (test, measure), each run `loops` times.
    #[must_use]
    pub fn measurements(&self) -> Vec<(MarkTest, Measure)> {
        let mut measures = vec![Measure::Read, Measure::Write];
        if self.mix_read_pct.is_some() {
            measures.push(Measure::Mix);
        }
        measures.retain(|m| self.mode.runs(*m));
        measures
            .into_iter()
            .flat_map(|m| self.profile.tests().iter().map(move |t| (*t, m)))
            .collect()
    }
}

/// The job options every measurement shares: `--size`, `--runtime`, `--interval` as typed.
#[derive(Debug, Clone, Default)]
pub struct MarkTiming {
    pub size: Option<String>,
    pub runtime: String,
    pub interval: String,
    /// The other options given (`--iomem`, `--fio-defaults`'s), put after mark's own.
    pub extra: Vec<JobOption>,
}

/// The plan: one step per loop of each measurement, all on `target` (one working set, filled
/// once by the session).
///
/// # Errors
/// The validator's usage error, naming the flag.
pub fn plan(
    config: &MarkConfig,
    timing: &MarkTiming,
    target: Option<PathBuf>,
    machine: &MachineLimits,
) -> anyhow::Result<Plan> {
    let mut steps = Vec::new();
    // A working set smaller than a test's block: say so in mark's terms (mark has no --bs).
    if let Some(size) = timing.size.as_deref()
        && let Some(bytes) = crate::units::parse_size_bytes(size)
        && let Some((test, _)) = config
            .measurements()
            .into_iter()
            .max_by_key(|(t, _)| t.block_size_bytes)
        && bytes < test.block_size_bytes
    {
        return Err(crate::error::usage!(
            "--size {size} is smaller than one block of {} ({}); use --size {} or more (the \
             default is 1G)",
            test.label(),
            crate::units::format_size_short(test.block_size_bytes),
            crate::units::format_size_short(test.block_size_bytes)
        ));
    }
    let rules = &config.rules;
    for (index, (test, measure)) in config.measurements().into_iter().enumerate() {
        for lap in 1..=config.loops {
            let mut options = vec![
                JobOption::flag(Key::Rw, test.rw(measure).as_str()),
                JobOption::flag(Key::Bs, test.block_size_bytes.to_string()),
                JobOption::flag(Key::IoDepth, test.iodepth.to_string()),
                JobOption::flag(Key::NumJobs, test.numjobs.to_string()),
                JobOption::flag(Key::IoEngine, "io_uring"),
                JobOption::flag(Key::Direct, "1"),
                JobOption::flag(Key::Runtime, timing.runtime.clone()),
                JobOption::flag(Key::Interval, timing.interval.clone()),
            ];
            // CrystalDiskMark's discarded first pass, as long as a measured one.
            let ramp = if rules.warm_up && lap == 1 {
                &timing.runtime
            } else {
                "0s"
            };
            options.push(JobOption::flag(Key::Ramp, ramp));
            if let Some(size) = &timing.size {
                options.push(JobOption::flag(Key::Size, size.clone()));
            }
            if rules.size_based {
                // KDiskMark's fio line has `--size` and `--runtime` but no `time_based`.
                let bytes = timing.size.clone().unwrap_or_else(|| "1G".to_string());
                options.push(JobOption::flag(Key::IoSize, bytes));
            }
            if index > 0 && lap == 1 && !rules.pause.is_zero() {
                // KDiskMark idles between tests (`runBenchmark`'s "Interval Time"); the
                // delay is not part of the measured time.
                options.push(JobOption::flag(
                    Key::StartDelay,
                    format!("{}ms", rules.pause.as_millis()),
                ));
            }
            if let (Measure::Mix, Some(pct)) = (measure, config.mix_read_pct) {
                options.push(JobOption::flag(Key::RwMixRead, pct.to_string()));
            }
            // fio's buffers, as KDiskMark's fio runs them; `--iomem` in `extra` still wins.
            options.push(JobOption::flag(
                Key::IoMem,
                Key::IoMem.row().default_for(crate::bench::options::MARK),
            ));
            options.extend(timing.extra.iter().cloned());
            let mut spec = validate(&options, machine)?;
            spec.data = rules.data;
            // KDiskMark's `Benchmark::startFIO` flushes before every loop of every test.
            spec.drop_caches = rules.flush.drops();
            let name = format!(
                "{} {} {lap}/{}",
                test.label(),
                measure.as_str(),
                config.loops
            );
            // A point, as a sweep's: the dashboard's results panel has a row per step, named
            // as CrystalDiskMark names its tests, the measure first (the chart's lines).
            steps.push(Step {
                jobs: vec![Job::bench(name, spec, target.clone())],
                point: vec![
                    ("measure".to_string(), measure.as_str().to_string()),
                    ("test".to_string(), test.label()),
                ],
                notes: Vec::new(),
            });
        }
    }
    Ok(Plan { steps })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(profile: Profile) -> Vec<String> {
        profile.tests().iter().map(MarkTest::label).collect()
    }

    #[test]
    fn profiles_are_crystaldiskmarks() {
        assert_eq!(
            labels(Profile::Default),
            ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"]
        );
        assert_eq!(labels(Profile::Peak), ["SEQ1M Q8T1", "RND4K Q32T1"]);
        assert_eq!(labels(Profile::RealWorld), ["SEQ1M Q1T1", "RND4K Q1T1"]);
        assert_eq!(
            labels(Profile::Nvme),
            ["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T16", "RND4K Q1T1"]
        );
        // KDiskMark's Demo, and Peak under the NVMe preset.
        assert_eq!(labels(Profile::Demo), ["SEQ1M Q8T1"]);
        assert_eq!(labels(Profile::PeakNvme), ["SEQ1M Q8T1", "RND4K Q32T16"]);
        for name in PROFILE_NAMES {
            assert_eq!(Profile::parse(name).unwrap().name(), name);
        }
        let t = Profile::Nvme.tests()[2];
        assert_eq!((t.block_size_bytes, t.iodepth, t.numjobs), (4096, 32, 16));
        assert_eq!(t.rw(Measure::Mix), RwMode::RandRw);
        assert_eq!(Profile::Default.tests()[0].rw(Measure::Mix), RwMode::Rw);
    }

    #[test]
    fn the_pick_rules() {
        let loops = [300.0, 100.0, 200.0, 400.0];
        assert_eq!(Pick::Best.apply(&loops, true), Some(400.0));
        assert_eq!(Pick::Best.apply(&loops, false), Some(100.0));
        assert_eq!(Pick::Mean.apply(&loops, true), Some(250.0));
        assert_eq!(Pick::Median.apply(&loops, true), Some(250.0));
        assert_eq!(Pick::Median.apply(&loops[..3], false), Some(200.0));
        assert_eq!(Pick::Mean.apply(&[], true), None);
    }

    fn raw<'a>(profile: &'a str, mix: Option<&'a str>, loops: &'a str, pick: &'a str) -> String {
        MarkConfig::from_raw(RawMark {
            profile,
            mix,
            loops,
            like: "crystaldiskmark",
            pick: Some(pick),
            pause: None,
            mode: "all",
            data: None,
            flush: None,
            can_flush: true,
        })
        .map_or_else(|e| e.to_string(), |c| format!("{c:?}"))
    }

    fn config(profile: &str, like: &str, pick: Option<&str>, pause: Option<&str>) -> MarkConfig {
        MarkConfig::from_raw(RawMark {
            profile,
            mix: None,
            loops: "5",
            like,
            pick,
            pause,
            mode: "all",
            data: None,
            flush: None,
            can_flush: true,
        })
        .unwrap()
    }

    #[test]
    fn kdiskmark_averages_the_default_profile_and_keeps_the_best_elsewhere() {
        for (profile, pick) in [
            ("default", Pick::Mean),
            ("nvme", Pick::Mean),
            ("peak", Pick::Best),
            ("peak-nvme", Pick::Best),
            ("realworld", Pick::Best),
            ("demo", Pick::Best),
        ] {
            assert_eq!(
                config(profile, "kdiskmark", None, None).rules.pick,
                pick,
                "{profile}"
            );
            let cdm = config(profile, "crystaldiskmark", None, None).rules;
            assert_eq!(cdm.pick, Pick::Best, "{profile}");
        }
        // --pick wins over the rule set, and says so.
        let given = config("default", "kdiskmark", Some("median"), None).rules;
        assert_eq!((given.pick, given.pick_given), (Pick::Median, true));
        assert!(
            given
                .describe()
                .contains("the median of the loops (--pick)")
        );
    }

    #[test]
    fn read_and_write_modes_leave_out_the_other_direction_but_keep_the_mix() {
        let with = |mode| {
            let mut c = config("peak", "kdiskmark", None, None);
            c.mix_read_pct = Some(70);
            c.mode = mode;
            c.measurements()
                .into_iter()
                .map(|(t, m)| format!("{} {}", t.label(), m.as_str()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            with(Mode::Read),
            [
                "SEQ1M Q8T1 read",
                "RND4K Q32T1 read",
                "SEQ1M Q8T1 mix",
                "RND4K Q32T1 mix"
            ]
        );
        assert_eq!(
            with(Mode::Write),
            [
                "SEQ1M Q8T1 write",
                "RND4K Q32T1 write",
                "SEQ1M Q8T1 mix",
                "RND4K Q32T1 mix"
            ]
        );
        assert_eq!(with(Mode::All).len(), 6);
        let bad = MarkConfig::from_raw(RawMark {
            profile: "peak",
            mix: None,
            loops: "1",
            like: "kdiskmark",
            pick: None,
            pause: None,
            mode: "both",
            data: None,
            flush: None,
            can_flush: true,
        })
        .unwrap_err();
        assert_eq!(
            bad.to_string(),
            "--mode \"both\" is not a mode; use all, read (reads and any --mix) or write \
             (writes and any --mix)"
        );
    }

    #[test]
    fn the_rule_sets_differ_in_units_timing_and_mix() {
        let k = config("peak", "kdiskmark", None, None).rules;
        assert_eq!(
            (k.mb.bytes(), k.warm_up, k.size_based, k.pause, k.mix),
            (
                1_024_000,
                false,
                true,
                Duration::from_secs(5),
                MixReport::Weighted
            )
        );
        let c = config("peak", "crystaldiskmark", None, None).rules;
        assert_eq!(
            (c.mb.bytes(), c.warm_up, c.size_based, c.pause, c.mix),
            (1_000_000, true, false, Duration::ZERO, MixReport::Total)
        );
        // KDiskMark: fio's whole KiB/s over 1000; CrystalDiskMark: bytes over 10^6.
        assert_eq!(MbUnit::FioKib.mb_s(2_048_000_000, 2_000_000), 2000.0);
        assert_eq!(MbUnit::Decimal.mb_s(2_048_000_000, 2_000_000), 2048.0);
        assert_eq!(
            k.describe(),
            "rules: kdiskmark (size-based loops (the working set once per thread, --runtime the \
             cap), no warm-up, 5s pause before each test, the best of the loops, MB/s = fio's bw \
             (KiB/s) / 1000, i.e. 1,024,000 bytes/s, mix = (read * p + write * (100 - p)) / 100, \
             data random (filled once), page cache dropped before each loop (1 > \
             /proc/sys/vm/drop_caches))"
        );
        assert_eq!(
            config("peak", "kdiskmark", None, Some("1500ms"))
                .rules
                .pause,
            Duration::from_millis(1500)
        );
        assert!(Like::parse("KDiskMark") == Some(Like::KDiskMark));
    }

    #[test]
    fn kdiskmark_loops_are_size_based_unwarmed_and_paused_between_tests() {
        let config = config("peak", "kdiskmark", None, Some("2s"));
        let config = MarkConfig { loops: 2, ..config };
        let timing = MarkTiming {
            size: Some("16M".into()),
            runtime: "5s".into(),
            interval: "1s".into(),
            extra: Vec::new(),
        };
        let plan = plan(&config, &timing, None, &MachineLimits::detect()).unwrap();
        let specs: Vec<_> = plan.steps.iter().map(|s| &s.jobs[0].spec).collect();
        assert_eq!(specs.len(), 8);
        assert!(specs.iter().all(|s| s.ramp.is_zero()));
        assert!(specs.iter().all(|s| s.io_size_bytes == Some(16 << 20)));
        assert!(specs.iter().all(|s| s.runtime == Duration::from_secs(5)));
        // A pause before the first loop of each test but the very first; none between loops.
        let delays: Vec<u64> = specs.iter().map(|s| s.startdelay.as_secs()).collect();
        assert_eq!(delays, [0, 0, 2, 0, 2, 0, 2, 0]);
        // Without --size, the loops still end after KDiskMark's default 1 GiB.
        let timing = MarkTiming {
            size: None,
            ..timing
        };
        let plan = super::plan(&config, &timing, None, &MachineLimits::detect()).unwrap();
        assert_eq!(plan.steps[0].jobs[0].spec.io_size_bytes, Some(1 << 30));
    }

    #[test]
    fn bad_input_is_named_with_the_fix() {
        let cases = [
            (
                ("fast", None, "5", "best"),
                "--profile \"fast\" is not a profile; use default, peak, realworld, demo, nvme, \
                 peak-nvme",
            ),
            (
                ("default", None, "0", "best"),
                "--loops \"0\" is not a number of loops; use 1 to 100 (CrystalDiskMark's \
                 default is 5)",
            ),
            (
                ("default", Some("101"), "5", "best"),
                "--mix \"101\" is not a percentage of reads; use 0 to 100 (CrystalDiskMark's \
                 default is 70)",
            ),
            (
                ("default", None, "5", "top"),
                "--pick \"top\" is not a rule; use best (CrystalDiskMark's), mean (KDiskMark's) \
                 or median",
            ),
        ];
        for ((profile, mix, loops, pick), want) in cases {
            assert_eq!(raw(profile, mix, loops, pick), want);
        }
        let ok = MarkConfig::from_raw(RawMark {
            profile: "peak",
            mix: Some("70"),
            loops: "3",
            like: "crystaldiskmark",
            pick: Some("median"),
            pause: None,
            mode: "all",
            data: None,
            flush: None,
            can_flush: true,
        })
        .unwrap();
        let bad = |like, pause| {
            MarkConfig::from_raw(RawMark {
                profile: "peak",
                mix: None,
                loops: "3",
                like,
                pick: None,
                pause,
                mode: "all",
                data: None,
                flush: None,
                can_flush: true,
            })
            .unwrap_err()
            .to_string()
        };
        assert_eq!(
            bad("fio", None),
            "--like \"fio\" is not a rule set; use crystaldiskmark or kdiskmark"
        );
        assert_eq!(
            bad("kdiskmark", Some("soon")),
            "--pause \"soon\" is not a duration; use e.g. 5s, 500ms or 0 (KDiskMark's is 5s)"
        );
        assert_eq!(ok.mix_read_pct, Some(70));
        assert_eq!(ok.measurements().len(), 6);
    }

    fn data_config(
        like: &str,
        data: Option<&str>,
        flush: Option<bool>,
    ) -> anyhow::Result<MarkConfig> {
        MarkConfig::from_raw(RawMark {
            profile: "demo",
            mix: None,
            loops: "2",
            like,
            pick: None,
            pause: Some("0"),
            mode: "all",
            data,
            flush,
            can_flush: true,
        })
    }

    #[test]
    fn test_data_and_the_cache_flush_follow_kdiskmarks_helper() {
        // KDiskMark 3.3: random data filled once (`--refill_buffers=0`), the page cache
        // dropped before each loop; "Continuous generation" is refill, zeros zero_buffers.
        let k = data_config("kdiskmark", None, None).unwrap();
        assert_eq!(
            (k.rules.data, k.rules.flush),
            (BufferData::Random, Flush::EachLoop)
        );
        let r = data_config("kdiskmark", Some("refill"), Some(false)).unwrap();
        assert_eq!(
            (r.rules.data, r.rules.flush),
            (BufferData::Refill, Flush::Declined)
        );
        let z = data_config("kdiskmark", Some("zero"), Some(true)).unwrap();
        assert_eq!(
            (z.rules.data, z.rules.flush),
            (BufferData::Zero, Flush::EachLoop)
        );
        // Without root KDiskMark's flush cannot be done: the rules say it is not.
        let mut raw = RawMark {
            profile: "demo",
            mix: None,
            loops: "2",
            like: "kdiskmark",
            pick: None,
            pause: Some("0"),
            mode: "all",
            data: None,
            flush: None,
            can_flush: false,
        };
        let n = MarkConfig::from_raw(raw).unwrap();
        assert_eq!(n.rules.flush, Flush::NotRoot);
        assert!(
            n.rules
                .describe()
                .contains("page cache NOT flushed: dropping it takes root"),
            "{}",
            n.rules.describe()
        );
        raw.like = "crystaldiskmark";
        assert_eq!(MarkConfig::from_raw(raw).unwrap().rules.flush, Flush::Off);
        // CrystalDiskMark's rules keep diskdash's buffers, filled once, and the cache.
        let c = data_config("crystaldiskmark", None, None).unwrap();
        assert_eq!(
            (c.rules.data, c.rules.flush),
            (BufferData::Random, Flush::Off)
        );
        assert_eq!(
            data_config("kdiskmark", Some("ones"), None)
                .unwrap_err()
                .to_string(),
            "--data \"ones\" is not a kind of test data; use random, refill or zero (KDiskMark's \
             \"Random\", \"Continuous generation\" and \"Zeros\")"
        );
        for name in [Flush::EachLoop, Flush::Off, Flush::Declined, Flush::NotRoot] {
            assert_eq!(Flush::parse(name.name()), Some(name));
        }
        // Every loop's job carries them: the flush comes before each loop, reads and writes.
        let timing = MarkTiming {
            size: Some("16M".into()),
            runtime: "1s".into(),
            interval: "1s".into(),
            extra: Vec::new(),
        };
        let machine = MachineLimits::detect();
        let p = plan(&z, &timing, None, &machine).unwrap();
        assert_eq!(p.steps.len(), 4);
        for step in &p.steps {
            assert_eq!(step.jobs[0].spec.data, BufferData::Zero);
            assert!(step.jobs[0].spec.drop_caches, "{}", step.jobs[0].name);
        }
        let p = plan(&c, &timing, None, &machine).unwrap();
        assert!(p.steps.iter().all(|s| !s.jobs[0].spec.drop_caches));
        // And the window says which.
        let said = z.rules.describe();
        assert!(said.contains("data zeros"), "{said}");
        assert!(
            said.contains("page cache dropped before each loop (1 > /proc/sys/vm/drop_caches)"),
            "{said}"
        );
        let said = r.rules.describe();
        assert!(
            said.contains("data random (refilled before each write)"),
            "{said}"
        );
        assert!(
            said.contains("page cache NOT flushed (--no-flush-cache"),
            "{said}"
        );
        assert!(c.rules.describe().contains("page cache not flushed"));
    }

    #[test]
    fn the_plan_runs_reads_then_writes_then_mixes_each_loop_a_step() {
        let config = MarkConfig {
            profile: Profile::Peak,
            mix_read_pct: Some(70),
            loops: 2,
            rules: Rules::of(Like::CrystalDiskMark, Profile::Peak),
            mode: Mode::All,
        };
        let timing = MarkTiming {
            size: Some("16M".into()),
            runtime: "1s".into(),
            interval: "1s".into(),
            extra: Vec::new(),
        };
        let machine = MachineLimits::detect();
        let plan = plan(&config, &timing, None, &machine).unwrap();
        let names: Vec<&str> = plan.steps.iter().map(|s| s.jobs[0].name.as_str()).collect();
        assert_eq!(
            names,
            [
                "SEQ1M Q8T1 read 1/2",
                "SEQ1M Q8T1 read 2/2",
                "RND4K Q32T1 read 1/2",
                "RND4K Q32T1 read 2/2",
                "SEQ1M Q8T1 write 1/2",
                "SEQ1M Q8T1 write 2/2",
                "RND4K Q32T1 write 1/2",
                "RND4K Q32T1 write 2/2",
                "SEQ1M Q8T1 mix 1/2",
                "SEQ1M Q8T1 mix 2/2",
                "RND4K Q32T1 mix 1/2",
                "RND4K Q32T1 mix 2/2",
            ]
        );
        let points: Vec<String> = plan
            .steps
            .iter()
            .map(|s| crate::plan::describe(&s.point))
            .step_by(2)
            .collect();
        assert_eq!(
            points,
            [
                "measure=read test=SEQ1M Q8T1",
                "measure=read test=RND4K Q32T1",
                "measure=write test=SEQ1M Q8T1",
                "measure=write test=RND4K Q32T1",
                "measure=mix test=SEQ1M Q8T1",
                "measure=mix test=RND4K Q32T1",
            ]
        );
        let first = &plan.steps[0].jobs[0].spec;
        assert_eq!(first.block_size_bytes, 1 << 20);
        assert_eq!(first.iodepth, 8);
        assert!(first.direct);
        assert_eq!(first.ramp, first.runtime);
        assert!(plan.steps[1].jobs[0].spec.ramp.is_zero());
        let mix = &plan.steps[10].jobs[0].spec;
        assert_eq!((mix.rw, mix.rwmixread_pct), (RwMode::RandRw, 70));
    }
}
