//! What a run holds in memory, estimated before anything runs, and how much it may take.
//!
//! The estimate counts every cost that grows with the job: the I/O buffers (each one rounded
//! up to a 4 KiB page, as [`crate::bench::buffer`] lays them out), each queue slot's ring
//! entries and state, each worker's statistics and thread, each job's aggregation. The
//! session refuses a step whose jobs (they run at once) together need more than a share of the
//! memory available now: `MemAvailable`, or the headroom under the cgroup's limit when that is
//! lower; and, under `ulimit -v`, more than the address space left. All before any file is
//! created.
//!
//! The per-unit constants are calibrated against the maximum resident set size
//! (`/usr/bin/time -v`) of real runs (`bench DIR --size 16M --runtime 1s --no-tui`, x86-64,
//! a debug build; the first row less its worker gives [`BASE_BYTES`]):
//!
//! | `-j` | `-q`  | `--bs` | measured RSS | estimate   |
//! |------|-------|--------|--------------|------------|
//! | 1    | 32    | 4k     | 25.0 MiB     | 30.6 MiB   |
//! | 64   | 1     | 4k     | 261.3 MiB    | 274.9 MiB  |
//! | 256  | 1     | 4k     | 943.3 MiB    | 1019.7 MiB |
//! | 1    | 16384 | 512    | 90.5 MiB     | 98.5 MiB   |
//! | 16   | 16384 | 512    | 1140.3 MiB   | 1176.6 MiB |
//! | 4    | 256   | 1M     | 1060.0 MiB   | 1066.4 MiB |
//!
//! Per worker, 3.8 MiB measured against 4 statistics of 4 histograms (3.5 MiB) counted: the
//! rest is the thread (stack pages touched, its malloc arena), counted as [`THREAD_BYTES`]. Per
//! slot, 4229 bytes measured at `--bs 512`: a 4 KiB buffer and 133 bytes of ring and slot
//! state, counted as [`SLOT_BYTES`] (the ring's 64-byte submission and two 16-byte completion
//! entries per slot, rounded up to a power of two by the kernel, and the worker's per-slot
//! tables: offsets, lengths, times, retries).

use std::path::{Path, PathBuf};

use crate::bench::buffer::BUFFER_ALIGN_BYTES;
use crate::bench::randmap::{Bitmap, Generator};
use crate::bench::spec::{Distribution, JobSpec};
use crate::stats::HISTOGRAM_BYTES;
use crate::units::format_bytes;

/// The process before any worker: binary, runtime, the session's snapshots and history.
pub const BASE_BYTES: u64 = 24 << 20;
/// Ring entries and the worker's state per queue slot, beyond its buffer.
pub const SLOT_BYTES: u64 = 256;
/// Each worker thread beyond its statistics: stack pages it touches, its malloc arena.
pub const THREAD_BYTES: u64 = 384 << 10;
/// Statistics a worker holds at once: the one it records into, the spares the aggregator
/// hands back (`worker::SPARES` in all), and the one it returns at the end.
pub const STATS_PER_WORKER: u64 = 4;
/// Statistics the session keeps per job: the interval, the next one, the job's total.
pub const STATS_PER_JOB: u64 = 3;
/// Address space a thread reserves for its stack (std's default 2 MiB, and a guard page):
/// reserved, not resident, so it counts against `ulimit -v` only.
pub const STACK_RESERVED_BYTES: u64 = (2 << 20) + 4096;
/// Share of the memory available that a run may take: the rest is left to the page cache
/// and whatever else runs, and covers the estimate's error.
pub const SHARE: (u64, u64) = (3, 4);

/// A run's memory by part, bytes. Sums over jobs with [`Estimate::add`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Estimate {
    pub buffers: u64,
    /// Queue slots (I/Os in flight) over every worker.
    pub slots: u64,
    pub slot_bytes: u64,
    pub workers: u64,
    /// The workers' statistics and threads, and each job's aggregation.
    pub worker_bytes: u64,
    /// The random maps: a bit per block of the working set in each worker (fio's random map
    /// with its default generator; none with `norandommap` or `random_generator=lfsr`).
    pub random_map_bytes: u64,
}

impl Estimate {
    /// `workers` workers of `depth` slots of `block_size_bytes` each; `paced`: the histograms
    /// kept besides the four latencies (the latency from the schedule of a paced direction,
    /// slat and clat of an engine that times its submit call).
    #[must_use]
    pub fn of_parts(block_size_bytes: u64, depth: u32, workers: u32, paced: u64) -> Self {
        let stride =
            block_size_bytes.div_ceil(BUFFER_ALIGN_BYTES as u64) * BUFFER_ALIGN_BYTES as u64;
        let workers = u64::from(workers);
        let slots = u64::from(depth).saturating_mul(workers);
        let ring_slots = u64::from(depth.max(1).checked_next_power_of_two().unwrap_or(depth))
            .saturating_mul(workers);
        let stats_bytes = (4 + paced) * HISTOGRAM_BYTES;
        Self {
            buffers: stride.saturating_mul(slots),
            slots,
            slot_bytes: ring_slots.saturating_mul(SLOT_BYTES),
            workers,
            worker_bytes: workers
                .saturating_mul(STATS_PER_WORKER * stats_bytes + THREAD_BYTES)
                .saturating_add(STATS_PER_JOB * stats_bytes),
            random_map_bytes: 0,
        }
    }

    /// The job's estimate as it would run on `spec.ioengine` (the session's fallback to psync
    /// only lowers it).
    #[must_use]
    pub fn of(spec: &JobSpec) -> Self {
        let paced = spec.rate.map_or(0, |rate| {
            u64::from(rate.read.is_some()) + u64::from(rate.write.is_some())
        });
        // An engine that times its submit call keeps slat and clat apart: two more per
        // direction issued.
        let split = if spec.ioengine.times_submit() {
            2 * spec.directions().iter().map(|&d| u64::from(d)).sum::<u64>()
        } else {
            0
        };
        Self {
            random_map_bytes: random_map_bytes(spec),
            ..Self::of_parts(
                spec.block_size_bytes,
                spec.effective_iodepth_with(spec.ioengine),
                spec.numjobs,
                paced + split,
            )
        }
    }

    pub fn add(&mut self, other: &Self) {
        self.buffers = self.buffers.saturating_add(other.buffers);
        self.slots = self.slots.saturating_add(other.slots);
        self.slot_bytes = self.slot_bytes.saturating_add(other.slot_bytes);
        self.workers = self.workers.saturating_add(other.workers);
        self.worker_bytes = self.worker_bytes.saturating_add(other.worker_bytes);
        self.random_map_bytes = self.random_map_bytes.saturating_add(other.random_map_bytes);
    }

    /// Everything, the process's base included.
    #[must_use]
    pub fn total(&self) -> u64 {
        BASE_BYTES
            .saturating_add(self.buffers)
            .saturating_add(self.slot_bytes)
            .saturating_add(self.worker_bytes)
            .saturating_add(self.random_map_bytes)
    }

    /// `I/O buffers 4 GiB, 1048576 queue slots 256 MiB, 64 workers 248 MiB`, and
    /// `, random maps 64 MiB` where the job keeps them.
    #[must_use]
    pub fn parts(&self) -> String {
        let maps = if self.random_map_bytes > 0 {
            format!(", random maps {}", format_bytes(self.random_map_bytes))
        } else {
            String::new()
        };
        format!(
            "I/O buffers {}, {} queue slot{} {}, {} worker{} {}{maps}",
            format_bytes(self.buffers),
            self.slots,
            if self.slots == 1 { "" } else { "s" },
            format_bytes(self.slot_bytes),
            self.workers,
            if self.workers == 1 { "" } else { "s" },
            format_bytes(self.worker_bytes),
        )
    }
}

/// The random maps `spec`'s workers keep (see `workload`): each worker of a uniform random job
/// that neither verifies nor sequences its draws maps every block of the working set, a bit a
/// block of its smallest size (or `blockalign`), unless the generator is the LFSR.
#[must_use]
pub fn random_map_bytes(spec: &JobSpec) -> u64 {
    let mapped = spec.rw.is_random()
        && spec.verify.is_none()
        && spec.random_map
        && spec.sequencer.is_none()
        && spec.distribution == Distribution::Uniform
        && spec.random_generator != Generator::Lfsr;
    if !mapped {
        return 0;
    }
    let shortest = spec
        .bssplit
        .as_ref()
        .and_then(|split| split.sizes().min())
        .unwrap_or(spec.block_size_bytes);
    let unit = match spec.block_align_bytes {
        Some(align) if align > 0 => align,
        _ => shortest,
    }
    .max(1);
    Bitmap::bytes((spec.size_bytes / unit).max(1)).saturating_mul(u64::from(spec.numjobs))
}

/// How much memory a run may take now, and where that comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// The memory available: the lower of `MemAvailable` and the cgroup's headroom.
    pub available_bytes: u64,
    /// `MemAvailable in /proc/meminfo`, or `the cgroup /x's memory.max (1 GiB, 200 MiB used)`.
    pub source: String,
    /// `ulimit -v`: the limit, and the address space mapped already.
    pub address_space: Option<(u64, u64)>,
}

impl Budget {
    /// Reads this process's limits: `/proc/meminfo`, its cgroups (v2 `memory.max`, v1
    /// `memory.limit_in_bytes`, each ancestor's too), `RLIMIT_AS`. `None` where nothing could
    /// be read (no /proc).
    #[must_use]
    pub fn detect() -> Option<Self> {
        let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
        let available = meminfo.as_deref().and_then(mem_available);
        let cgroup = std::fs::read_to_string("/proc/self/cgroup")
            .ok()
            .and_then(|text| cgroup_headroom(Path::new("/sys/fs/cgroup"), &text));
        let (available_bytes, source) = match (available, cgroup) {
            (Some(free), Some((room, source))) if room < free => (room, source),
            (Some(free), _) => (free, "MemAvailable in /proc/meminfo".to_string()),
            (None, Some((room, source))) => (room, source),
            (None, None) => return None,
        };
        Some(Self {
            available_bytes,
            source,
            address_space: address_space(),
        })
    }

    /// What a run may take: [`SHARE`] of the memory available.
    #[must_use]
    pub fn limit_bytes(&self) -> u64 {
        self.available_bytes / SHARE.1 * SHARE.0
    }
}

/// `MemAvailable` in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    meminfo.lines().find_map(|line| {
        let rest = line.strip_prefix("MemAvailable:")?;
        let kib = rest.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()?;
        kib.checked_mul(1024)
    })
}

/// A limit at or above this is "no limit" (cgroup v1 writes 2^63 rounded down to a page).
const UNLIMITED: u64 = 1 << 62;

/// The least headroom (limit minus usage) of this process's memory cgroup and its ancestors,
/// with words saying which: cgroup v2 (`0::/path`: `memory.max`, `memory.current`) or v1
/// (`N:memory:/path` under `root/memory`: `memory.limit_in_bytes`, `memory.usage_in_bytes`).
/// `None` when no cgroup on the way has a limit.
fn cgroup_headroom(root: &Path, proc_self_cgroup: &str) -> Option<(u64, String)> {
    let mut best: Option<(u64, String)> = None;
    for line in proc_self_cgroup.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let (base, limit_file, usage_file) = if controllers.is_empty() {
            (root.to_path_buf(), "memory.max", "memory.current")
        } else if controllers.split(',').any(|c| c == "memory") {
            (
                root.join("memory"),
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            )
        } else {
            continue;
        };
        let mut dir: PathBuf = base.join(path.trim_start_matches('/'));
        loop {
            let read = |file: &str| -> Option<u64> {
                let text = std::fs::read_to_string(dir.join(file)).ok()?;
                text.trim().parse::<u64>().ok()
            };
            if let Some(limit) = read(limit_file).filter(|&l| l < UNLIMITED) {
                let used = read(usage_file).unwrap_or(0);
                let room = limit.saturating_sub(used);
                if best.as_ref().is_none_or(|(b, _)| room < *b) {
                    let shown = dir
                        .strip_prefix(&base)
                        .unwrap_or(&dir)
                        .display()
                        .to_string();
                    best = Some((
                        room,
                        format!(
                            "the room under the cgroup /{shown}'s {limit_file} ({} limit, {} \
                             used)",
                            format_bytes(limit),
                            format_bytes(used)
                        ),
                    ));
                }
            }
            if dir == base || !dir.pop() || !dir.starts_with(&base) {
                break;
            }
        }
    }
    best
}

/// `RLIMIT_AS` when set, and the address space mapped now (`VmSize`).
fn address_space() -> Option<(u64, u64)> {
    let (soft, _) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_AS).ok()?;
    if soft == nix::sys::resource::RLIM_INFINITY {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mapped = status
        .lines()
        .find_map(|line| {
            let kib = line.strip_prefix("VmSize:")?.trim().strip_suffix("kB")?;
            kib.trim().parse::<u64>().ok()
        })
        .unwrap_or(0)
        .saturating_mul(1024);
    Some((soft, mapped))
}

/// The fix said with every refusal.
const FIX: &str = "lower --iodepth (-q), --numjobs (-j) or --bs (iodepth=, numjobs=, bs= in a \
                   job file)";

/// The fix where the random maps are most of the estimate: a smaller queue or block would not
/// help (a smaller block makes a map larger).
const MAP_FIX: &str = "the random maps are most of it: pass --norandommap or --random-generator \
                       lfsr (norandommap=1 or random_generator=lfsr in a job file), or a \
                       smaller --size";

/// Bytes of the emulated zone table of `zonemode=zbd` over `working_set_bytes` in zones of
/// `zone_bytes`: each zone's write pointer (8 bytes) and its holder and I/Os in flight (8),
/// see [`crate::bench::zbd::ZoneState`].
#[must_use]
pub fn zone_table_bytes(zone_bytes: u64, working_set_bytes: u64) -> u64 {
    (working_set_bytes / zone_bytes.max(1)).saturating_mul(ZONE_BYTES)
}

/// Per zone of the emulated zone table.
const ZONE_BYTES: u64 = 16;

/// The zone table of a `zonemode=zbd` job named `job` over its target's working set (known
/// once the target is open: a file or device sizes it) against the budget.
///
/// # Errors
/// A usage error naming the job, the zones and the table's size, and the fix.
pub fn check_zone_table(
    job: &str,
    zone_bytes: u64,
    working_set_bytes: u64,
    budget: &Budget,
) -> anyhow::Result<()> {
    let table = zone_table_bytes(zone_bytes, working_set_bytes);
    let limit = budget.limit_bytes();
    if table > limit {
        return Err(crate::error::usage!(
            "job {}: zonesize={} over {} is {} zones, a zone table of {}, more than {}/{} of \
             the {} available ({}), {}; use a larger zonesize or a smaller size",
            crate::text::escape(job),
            format_bytes(zone_bytes),
            format_bytes(working_set_bytes),
            working_set_bytes / zone_bytes.max(1),
            format_bytes(table),
            SHARE.0,
            SHARE.1,
            format_bytes(budget.available_bytes),
            budget.source,
            format_bytes(limit),
        ));
    }
    Ok(())
}

/// What a job's memory comes to, in its own words (beside the estimate, so the spec need not
/// name this module).
impl JobSpec {
    /// What the I/O buffers and the run take, said when it is more than a few hundred MiB.
    #[must_use]
    pub fn buffer_note(&self) -> Option<String> {
        const SAY_FROM_BYTES: u64 = 256 << 20;
        let estimate = Estimate::of(self);
        let bytes = estimate.buffers;
        (estimate.total() > SAY_FROM_BYTES).then(|| {
            let page = BUFFER_ALIGN_BYTES as u64;
            let bs = if self.block_size_bytes % page == 0 {
                crate::units::format_size_short(self.block_size_bytes)
            } else {
                format!(
                    "{} in {} of pages",
                    crate::units::format_size_short(self.block_size_bytes),
                    crate::units::format_bytes(self.block_size_bytes.div_ceil(page) * page)
                )
            };
            format!(
                "the I/O buffers take {} of memory (bs {bs} x iodepth {} x numjobs {}); the \
                 run takes an estimated {} in all ({})",
                crate::units::format_bytes(bytes),
                self.effective_iodepth(),
                self.numjobs,
                crate::units::format_bytes(estimate.total()),
                estimate.parts()
            )
        })
    }
}

/// What [`check_plan`] reads of a plan: each step's jobs' specs, steps in order. The plan
/// (`crate::plan::Plan`) provides it, so this core names no plan.
pub trait JobSteps {
    fn job_steps(&self) -> Vec<Vec<&JobSpec>>;
}

/// Steps given as their specs.
impl JobSteps for [Vec<JobSpec>] {
    fn job_steps(&self) -> Vec<Vec<&JobSpec>> {
        self.iter().map(|step| step.iter().collect()).collect()
    }
}

/// Refuses a plan one of whose steps needs more memory than `budget` allows, before anything
/// runs: a usage error stating the estimate by part, the limit and where it comes from, and
/// the fix. A step's jobs run at once: their estimates add up.
///
/// # Errors
/// The usage error, for the first step over the limit.
pub fn check_plan<P: JobSteps + ?Sized>(plan: &P, budget: &Budget) -> anyhow::Result<()> {
    let steps = plan.job_steps();
    for (at, step) in steps.iter().enumerate() {
        let mut estimate = Estimate::default();
        for spec in step {
            estimate.add(&Estimate::of(spec));
        }
        let what = match (steps.len(), step.len()) {
            (1, 1) => "the job needs".to_string(),
            (1, n) => format!("the {n} jobs, which run at once, need"),
            (_, 1) => format!("step {} ({}) needs", at + 1, step[0].describe()),
            (_, n) => format!("step {}'s {n} jobs, which run at once, need", at + 1),
        };
        let total = estimate.total();
        let limit = budget.limit_bytes();
        if total > limit {
            return Err(crate::error::usage!(
                "{what} an estimated {} of memory ({}), more than {}/{} of the {} \
                 available ({}), {}; {}",
                format_bytes(total),
                estimate.parts(),
                SHARE.0,
                SHARE.1,
                format_bytes(budget.available_bytes),
                budget.source,
                format_bytes(limit),
                if estimate.random_map_bytes > total / 2 {
                    MAP_FIX
                } else {
                    FIX
                },
            ));
        }
        if let Some((limit, mapped)) = budget.address_space {
            // Every worker thread reserves a stack; the rest is mapped as it is resident.
            let threads = estimate.workers.saturating_add(2);
            let need = total
                .saturating_sub(BASE_BYTES)
                .saturating_add(threads.saturating_mul(STACK_RESERVED_BYTES))
                .saturating_add(BASE_BYTES / 2);
            let left = limit.saturating_sub(mapped);
            if need > left {
                return Err(crate::error::usage!(
                    "{what} an estimated {} of address space ({}, and {threads} thread \
                     stacks of 2 MiB), more than the {} that ulimit -v (RLIMIT_AS, {}) leaves \
                     with {} mapped already; raise ulimit -v, or {FIX}",
                    format_bytes(need),
                    estimate.parts(),
                    format_bytes(left),
                    format_bytes(limit),
                    format_bytes(mapped),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::spec::EngineKind;

    const MIB: u64 = 1 << 20;

    #[test]
    fn buffers_are_whole_pages_and_every_part_counts() {
        // The probe's case: --bs 512 takes a 4 KiB page per slot, not 512 bytes.
        let e = Estimate::of_parts(512, 16384, 64, 0);
        assert_eq!(e.buffers, 4 << 30);
        assert_eq!(e.slots, 1 << 20);
        assert_eq!(e.slot_bytes, 256 * MIB);
        assert_eq!(e.workers, 64);
        assert_eq!(
            e.worker_bytes,
            64 * (4 * 4 * HISTOGRAM_BYTES + THREAD_BYTES) + 3 * 4 * HISTOGRAM_BYTES
        );
        assert_eq!(
            e.parts(),
            "I/O buffers 4 GiB, 1048576 queue slots 256 MiB, 64 workers 250.6 MiB"
        );
        // The ring is a power of two; psync has one slot.
        assert_eq!(
            Estimate::of_parts(4096, 33, 1, 0).slot_bytes,
            64 * SLOT_BYTES
        );
        let psync = JobSpec {
            ioengine: EngineKind::Psync,
            iodepth: 64,
            ..JobSpec::default()
        };
        assert_eq!(Estimate::of(&psync).slots, 1);
        // No overflow, whatever the counts.
        let huge = Estimate::of_parts(256 << 20, u32::MAX, u32::MAX, 2);
        assert_eq!(huge.total(), u64::MAX);
        assert_eq!(huge.slots, u64::from(u32::MAX) * u64::from(u32::MAX));
    }

    #[test]
    fn a_large_working_set_counts_its_random_maps() {
        let big = JobSpec {
            size_bytes: 4 << 40,
            block_size_bytes: 4096,
            numjobs: 4,
            ..JobSpec::default()
        };
        assert!(big.rw.is_random() && big.random_map);
        // 4 TiB of 4 KiB blocks: 2^30 bits, 128 MiB a worker.
        let estimate = Estimate::of(&big);
        assert_eq!(estimate.random_map_bytes, 4 * 128 * MIB);
        assert_eq!(
            estimate.total(),
            Estimate::of_parts(4096, 32, 4, 2).total() + 512 * MIB
        );
        assert!(
            estimate.parts().ends_with(", random maps 512 MiB"),
            "{}",
            estimate.parts()
        );
        let note = big.buffer_note().unwrap();
        assert!(note.contains("random maps 512 MiB"), "{note}");
        // Where the maps are most of it, the fix names what shrinks them.
        let mut maps = plan(&[&[(4096, 32, 4)]]);
        maps[0][0] = big.clone();
        let err = check_plan(maps.as_slice(), &budget(512 * MIB))
            .unwrap_err()
            .to_string();
        assert!(
            err.ends_with(
                "; the random maps are most of it: pass --norandommap or --random-generator \
                 lfsr (norandommap=1 or random_generator=lfsr in a job file), or a smaller --size"
            ),
            "{err}"
        );
        // A bssplit maps its smallest block; blockalign its boundary.
        let split = JobSpec {
            bssplit: Some(crate::bench::spec::BsSplit {
                read: vec![(512, 50), (64 << 10, 50)],
                write: vec![(512, 50), (64 << 10, 50)],
            }),
            ..big.clone()
        };
        assert_eq!(Estimate::of(&split).random_map_bytes, 4 * 1024 * MIB);
        let aligned = JobSpec {
            block_align_bytes: Some(1 << 20),
            ..big.clone()
        };
        assert_eq!(Estimate::of(&aligned).random_map_bytes, 4 * (512 << 10));
        // No map: norandommap, the LFSR, a sequential or a skewed job.
        for spec in [
            JobSpec {
                random_map: false,
                ..big.clone()
            },
            JobSpec {
                random_generator: Generator::Lfsr,
                ..big.clone()
            },
            JobSpec {
                rw: crate::bench::spec::RwMode::Read,
                ..big.clone()
            },
            JobSpec {
                distribution: Distribution::Zipf(1.2),
                ..big.clone()
            },
        ] {
            assert_eq!(Estimate::of(&spec).random_map_bytes, 0, "{spec:?}");
            assert!(!Estimate::of(&spec).parts().contains("random maps"));
        }
    }

    fn budget(available: u64) -> Budget {
        Budget {
            available_bytes: available,
            source: "MemAvailable in /proc/meminfo".into(),
            address_space: None,
        }
    }

    fn plan(steps: &[&[(u64, u32, u32)]]) -> Vec<Vec<JobSpec>> {
        steps
            .iter()
            .map(|jobs| {
                jobs.iter()
                    .map(|&(bs, iodepth, numjobs)| JobSpec {
                        block_size_bytes: bs,
                        iodepth,
                        numjobs,
                        ..JobSpec::default()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_step_over_the_share_of_available_memory_is_refused_with_the_numbers() {
        let one = plan(&[&[(512, 16384, 64)]]);
        assert!(check_plan(one.as_slice(), &budget(8 << 30)).is_ok());
        let err = check_plan(one.as_slice(), &budget(4 << 30)).unwrap_err();
        assert!(crate::error::exit_code(&err) == 2);
        assert_eq!(
            err.to_string(),
            "the job needs an estimated 4.6 GiB of memory (I/O buffers 4 GiB, 1048576 queue \
             slots 256 MiB, 64 workers 363.9 MiB, random maps 16 MiB), more than 3/4 of the \
             4 GiB available (MemAvailable in /proc/meminfo), 3 GiB; lower --iodepth (-q), --numjobs (-j) or \
             --bs (iodepth=, numjobs=, bs= in a job file)"
        );
        // Jobs of one step add up; steps one after another do not.
        let apart = plan(&[&[(4096, 1024, 16)], &[(4096, 1024, 16)]]);
        assert!(check_plan(apart.as_slice(), &budget(300 * MIB)).is_ok());
        let together = plan(&[&[(4096, 1024, 16), (4096, 1024, 16)]]);
        let err = check_plan(together.as_slice(), &budget(300 * MIB)).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("the 2 jobs, which run at once, need an estimated "),
            "{err}"
        );
    }

    #[test]
    fn the_address_space_limit_counts_thread_stacks() {
        let one = plan(&[&[(4096, 32, 16)]]);
        let mut b = budget(16 << 30);
        b.address_space = Some((40 * MIB, 20 * MIB));
        let err = check_plan(one.as_slice(), &b).unwrap_err().to_string();
        assert!(err.contains("18 thread stacks of 2 MiB"), "{err}");
        assert!(err.contains("more than the 20 MiB that ulimit -v"), "{err}");
        b.address_space = Some((4 << 30, 20 * MIB));
        assert!(check_plan(one.as_slice(), &b).is_ok());
    }

    #[test]
    fn mem_available_and_cgroup_limits_are_read() {
        assert_eq!(
            mem_available("MemTotal:  100 kB\nMemAvailable:   24060892 kB\n"),
            Some(24_060_892 * 1024)
        );
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
        let root = tempfile::tempdir().unwrap();
        let v2 = root.path().join("a/b");
        std::fs::create_dir_all(&v2).unwrap();
        std::fs::write(root.path().join("a/memory.max"), "1073741824\n").unwrap();
        std::fs::write(root.path().join("a/memory.current"), "104857600\n").unwrap();
        std::fs::write(v2.join("memory.max"), "max\n").unwrap();
        let (room, source) = cgroup_headroom(root.path(), "0::/a/b\n").unwrap();
        assert_eq!(room, (1 << 30) - 100 * MIB);
        assert_eq!(
            source,
            "the room under the cgroup /a's memory.max (1 GiB limit, 100 MiB used)"
        );
        // v1: the memory hierarchy; "unlimited" is 2^63 rounded to a page.
        let v1 = root.path().join("memory/x");
        std::fs::create_dir_all(&v1).unwrap();
        std::fs::write(v1.join("memory.limit_in_bytes"), "536870912\n").unwrap();
        std::fs::write(v1.join("memory.usage_in_bytes"), "0\n").unwrap();
        std::fs::write(
            root.path().join("memory/memory.limit_in_bytes"),
            "9223372036854771712\n",
        )
        .unwrap();
        let (room, _) = cgroup_headroom(root.path(), "4:memory:/x\n0::/a/b\n").unwrap();
        assert_eq!(room, 512 * MIB);
        assert_eq!(cgroup_headroom(root.path(), "4:pids:/x\n"), None);
    }
}
