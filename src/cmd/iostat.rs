//! `diskdash iostat`: the report loop over the shared sampler and the choice of devices, as
//! sysstat's `iostat` does it: the `avg-cpu` block from `/proc/stat`, the device table, the
//! names (`-N`, `-j`) and a group's line (`-g`). Without `-y` the first report covers the time since boot; then one report per
//! interval, on a CLOCK_MONOTONIC schedule that does not drift. Devices that appear during the
//! run (hot-plug, loop attach) show up in later reports; devices that vanish just stop.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use anyhow::Context;

mod args;

use crate::cli::IostatArgs;
use crate::monitor::cpu::{CpuCounters, CpuPercent};
use crate::monitor::device;
use crate::monitor::diskstats::{DiskCounters, monotonic_now};
use crate::monitor::iostat::{IostatRow, pair_with_previous};
use crate::monitor::sampler::Sampler;
use crate::monitor::sysfs::{QueueSettings, SYS_BLOCK};
use crate::record::monitor::{MonitorHeader, MonitorSample, RecordedDisk};
use crate::record::monitor_writer::MonitorRecorder;
use crate::report::iostat::{
    DiskLine, JsonHost, Report, json_close, json_open, json_statistics, system_line, text_report,
};
use crate::trace::{DeviceId, TraceTake, Tracer};
use args::{IostatConfig, Partitions, validate};

/// The sysstat release whose `iostat` this one follows (its tables, switches, exit codes).
pub const SYSSTAT_VERSION: &str = "12.6.1";

/// `iostat -V`: sysstat's first line, with the version whose behaviour is implemented (what a
/// script reads), then whose program this is, in diskdash's words (sysstat's second line is
/// its author's copyright, which is not this program's).
#[must_use]
pub fn version_text() -> String {
    format!(
        "sysstat version {SYSSTAT_VERSION}\n(diskdash {}: iostat as sysstat {SYSSTAT_VERSION} \
         behaves, not sysstat's code)\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// Runs `diskdash iostat`.
///
/// # Errors
/// Usage errors (exit 2) for bad arguments; runtime errors when /proc/diskstats fails.
pub fn run(args: &IostatArgs) -> anyhow::Result<ExitCode> {
    if args.show_version {
        // sysstat prints its version and exits at -V, whatever else is asked.
        print!("{}", version_text());
        return Ok(ExitCode::SUCCESS);
    }
    report(args)
}

/// The reports `args` ask for.
fn report(args: &IostatArgs) -> anyhow::Result<ExitCode> {
    let config = validate(args)?;
    let mut sampler = Sampler::open()?;
    let mut selector = Selector::new(&config);
    let mut names = Names::new(&config);
    let mut out = io::stdout().lock();
    let mut text = String::new();
    let host = crate::monitor::host::Host::detect();
    if config.json {
        json_open(
            &mut text,
            &JsonHost {
                nodename: host.hostname.clone(),
                sysname: host.sysname.clone(),
                release: host.release.clone(),
                machine: host.machine.clone(),
                cpus: host.online_cpus,
                date: SystemTime::now(),
            },
        );
    } else {
        text.push_str(&system_line(
            &host.sysname,
            &host.release,
            &host.hostname,
            &host.machine,
            host.online_cpus,
            SystemTime::now(),
        ));
        text.push_str("\n\n");
        if config.omit_first && config.interval.is_some() {
            text.push('\n'); // sysstat leaves the omitted report's blank line
        }
    }

    let record = super::flags::record_to(&args.record)?;
    if record.is_some() && config.interval.is_none() {
        return Err(crate::error::usage!(
            "--record needs an INTERVAL: it records one line per interval; e.g. diskdash iostat \
             --record FILE 1"
        ));
    }
    // JSON is one document: an interrupted run still closes it, so that it parses.
    let interrupted = Arc::new(AtomicBool::new(false));
    if config.json && config.interval.is_some() {
        crate::session::signals::raise_on_interrupt(&interrupted)?;
    }
    let first = sampler.sample()?;
    let mut cpu_prev = read_cpu(&config)?;
    let mut told = crate::record::monitor_writer::Told::default();
    let mut recorder = match &record {
        Some(to) => Some(start_recorder(
            to,
            &config,
            &first.cur.disks,
            &mut selector,
        )?),
        None => None,
    };
    let tracer = if config.layout.trace && config.interval.is_some() {
        start_tracer(&first.cur.disks, &mut selector)
    } else {
        None
    };
    // Tracing asked for and refused (no root, no tracefs): sysstat's columns alone, as
    // without --trace, after the note.
    let config = if config.layout.trace && config.interval.is_some() && tracer.is_none() {
        let mut untraced = config.clone();
        untraced.layout.trace = false;
        untraced
    } else {
        config.clone()
    };
    let mut reports = 0u64;
    if config.interval.is_none() || !config.omit_first {
        let lines = disk_lines(&[], &first.cur.disks, boottime(), &mut selector, true);
        let cpu = cpu_prev.map(|c| CpuPercent::between(None, &c));
        let stamp = SystemTime::now();
        emit(
            &config,
            &mut text,
            &mut names,
            (cpu, lines),
            stamp,
            reports == 0,
            &HashMap::new(),
        );
        reports += 1;
    }
    if let Some(tracer) = &tracer {
        // The first interval starts once the tracer is on: a baseline read now, its events
        // dropped (from the first read, the tracer would see only the interval's end).
        tracer.hold();
        let base = sampler.sample()?;
        let _ = tracer.take_until(Some(crate::record::nanos(base.cur.at)));
    }
    let mut open = write_out(&mut out, &mut text)?;
    let Some(interval) = config.interval.filter(|_| open) else {
        return finish(&config, &mut out, &mut text, open);
    };
    // Like sysstat, which arms its first alarm once the first report is out: the schedule
    // starts now, not at the first read. Each report is stamped with the wall-clock time of
    // its slot on the schedule (sysstat's clock read just after its read, minus the
    // oversleep), so at whole-second labels consecutive reports never share or skip a label
    // for a late wake-up.
    let mut deadline = monotonic_now();
    let mut origin = (deadline, SystemTime::now());

    while config.count.is_none_or(|count| reports < count) {
        deadline += interval;
        if deadline <= monotonic_now() {
            // Fell behind (suspend, overload): restart the schedule, and its clock.
            deadline = monotonic_now();
            origin = (deadline, SystemTime::now());
        }
        // In slices, so that an interrupt closes the JSON document within 50 ms.
        loop {
            let now = monotonic_now();
            if interrupted.load(Ordering::Relaxed) || deadline <= now {
                break;
            }
            std::thread::sleep((deadline - now).min(Duration::from_millis(50)));
        }
        if interrupted.load(Ordering::Relaxed) {
            break;
        }
        if let Some(tracer) = &tracer {
            tracer.hold();
        }
        let step = sampler.sample()?;
        // The block layer's interval ends where the counters' does: split at the instant
        // /proc/diskstats was read (the same clock), so both count the same requests.
        let take = tracer
            .as_ref()
            .map(|tracer| tracer.take_until(Some(crate::record::nanos(step.cur.at))));
        let cpu_cur = read_cpu(&config)?;
        let cpu = cpu_cur.map(|c| CpuPercent::between(cpu_prev.as_ref(), &c));
        cpu_prev = cpu_cur;
        let lines = match step.prev {
            Some(prev) => disk_lines(
                &prev.disks,
                &step.cur.disks,
                step.elapsed(),
                &mut selector,
                false,
            ),
            None => Vec::new(),
        };
        if let (Some(recorder), Some(prev)) = (&mut recorder, step.prev) {
            // The devices of the report, exactly.
            let shown: HashSet<&str> = lines.iter().map(|(_, c, _)| c.name.as_str()).collect();
            let seq = recorder.next_seq();
            let mut sample = MonitorSample::between(seq, SystemTime::now(), prev, step.cur, |c| {
                shown.contains(c.name.as_str())
            });
            if let Some(take) = &take {
                sample.attach_traces(take);
            }
            recorder.record(sample);
            let status = recorder.status();
            if let Some(err) = status.error {
                return Err(anyhow::anyhow!("--record: {err}"));
            }
            for news in status.untold(&mut told) {
                eprintln!("warning: {}", crate::text::escape(&news));
            }
        }
        let stamp = origin.1 + deadline.saturating_sub(origin.0);
        emit(
            &config,
            &mut text,
            &mut names,
            (cpu, lines),
            stamp,
            reports == 0,
            &take.as_ref().map(traced_columns).unwrap_or_default(),
        );
        reports += 1;
        open = write_out(&mut out, &mut text)?;
        if !open {
            break;
        }
    }
    if let Some(recorder) = recorder {
        let status = recorder.finish()?;
        for news in status.untold(&mut told) {
            eprintln!("warning: {}", crate::text::escape(&news));
        }
        if let Some(note) = status.end_note() {
            eprintln!("note: {}", crate::text::escape(&note));
        }
    }
    finish(&config, &mut out, &mut text, open)
}

/// `--record`'s recorder, its header listing the devices of the first report.
fn start_recorder(
    to: &crate::record::monitor_writer::RecordTo,
    config: &IostatConfig,
    first: &[DiskCounters],
    selector: &mut Selector<'_>,
) -> anyhow::Result<MonitorRecorder> {
    let disks = first
        .iter()
        .filter(|c| selector.shows(c, c.ever_used()))
        .map(|c| RecordedDisk {
            name: c.name.clone(),
            queue: Path::new(SYS_BLOCK)
                .join(&c.name)
                .exists()
                .then(|| QueueSettings::read(&c.name)),
        })
        .collect();
    let interval = config.interval.unwrap_or_default();
    MonitorRecorder::start(to, &MonitorHeader::new("iostat", interval, disks))
}

/// `--trace`: a tracer of the whole disks the report may show (those ever used, or named);
/// where it cannot trace, the note on stderr and `None` (the report goes on as sysstat's).
fn start_tracer(first: &[DiskCounters], selector: &mut Selector<'_>) -> Option<Tracer> {
    let disks: Vec<DeviceId> = first
        .iter()
        .filter(|c| Path::new(SYS_BLOCK).join(&c.name).exists())
        .filter(|c| selector.shows(c, c.ever_used()))
        .map(|c| DeviceId {
            disk: c.name.clone(),
        })
        .collect();
    match Tracer::start(&disks) {
        Ok(tracer) => {
            for note in &tracer.notes {
                eprintln!("note: {}", crate::text::escape(note));
            }
            Some(tracer)
        }
        Err(e) => {
            eprintln!("note: {}", crate::text::escape(&e.to_string()));
            None
        }
    }
}

/// Each traced disk's `--trace` columns over the take: the percentiles of its reads' and
/// writes' whole time (what `r_await`/`w_await` average), ns.
fn traced_columns(take: &TraceTake) -> HashMap<String, [Option<u64>; 4]> {
    take.disks
        .iter()
        .map(|t| {
            let pcts = |dir: &crate::trace::DirTrace| {
                let s = dir.whole.summary();
                if s.count == 0 {
                    [None, None]
                } else {
                    [Some(s.percentile_ns(50.0)), Some(s.percentile_ns(99.0))]
                }
            };
            let [r50, r99] = pcts(&t.dirs[0]);
            let [w50, w99] = pcts(&t.dirs[1]);
            (t.disk.clone(), [r50, r99, w50, w99])
        })
        .collect()
}

/// Closes the JSON document (when the reader is still there).
fn finish(
    config: &IostatConfig,
    out: &mut impl Write,
    text: &mut String,
    open: bool,
) -> anyhow::Result<ExitCode> {
    if config.json && open {
        json_close(text);
        write_out(out, text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The CPU counters when the report shows `avg-cpu`.
fn read_cpu(config: &IostatConfig) -> anyhow::Result<Option<CpuCounters>> {
    if config.cpu {
        CpuCounters::read().map(Some)
    } else {
        Ok(None)
    }
}

/// The shown devices' counters before and after `elapsed` (a device missing from `prev`
/// counts from zero), in `/proc/diskstats` order. `since_boot`: `-z` looks at "ever used".
fn disk_lines(
    prev: &[DiskCounters],
    cur: &[DiskCounters],
    elapsed: Duration,
    selector: &mut Selector<'_>,
    since_boot: bool,
) -> Vec<(DiskCounters, DiskCounters, Duration)> {
    pair_with_previous(prev, cur)
        .into_iter()
        .zip(cur)
        .filter_map(|(p, c)| {
            let p = p.cloned().unwrap_or_else(|| DiskCounters::zeroed(&c.name));
            let active = if since_boot {
                c.ever_used()
            } else {
                IostatRow::between(&p, c, elapsed).is_active()
            };
            selector.shows(c, active).then(|| (p, c.clone(), elapsed))
        })
        .collect()
}

/// The report's device lines: each device under its shown name, then the group's line.
fn report_lines(
    config: &IostatConfig,
    names: &mut Names<'_>,
    pairs: &[(DiskCounters, DiskCounters, Duration)],
    traced: &HashMap<String, [Option<u64>; 4]>,
) -> Vec<DiskLine> {
    let line = |name: String, p: &DiskCounters, c: &DiskCounters, elapsed: Duration| {
        let mut line = DiskLine::between(p, c, elapsed);
        line.row.device = name;
        // A partition's or a group's requests are its disk's: not its own line's.
        line.traced = traced.get(&c.name).copied().unwrap_or_default();
        line
    };
    let mut lines = Vec::new();
    if !config.group.as_ref().is_some_and(|g| g.only) {
        for (p, c, elapsed) in pairs {
            lines.push(line(names.shown(&c.name), p, c, *elapsed));
        }
    }
    if let Some(group) = &config.group {
        let elapsed = pairs.first().map_or(Duration::ZERO, |(_, _, e)| *e);
        let (p, c) = group_counters(&group.name, pairs);
        let mut group_line = line(group.name.clone(), &p, &c, elapsed);
        // sysstat's group %util: the mean of its devices'.
        let n = pairs.len().max(1);
        {
            group_line.row.util_pct = pairs
                .iter()
                .map(|(p, c, e)| IostatRow::between(p, c, *e).util_pct)
                .sum::<f64>()
                / n as f64;
        }
        lines.push(group_line);
    }
    lines
}

/// The sums of the devices' counters before and after the interval.
fn group_counters(
    name: &str,
    pairs: &[(DiskCounters, DiskCounters, Duration)],
) -> (DiskCounters, DiskCounters) {
    let mut sums = (DiskCounters::zeroed(name), DiskCounters::zeroed(name));
    for (p, c, _) in pairs {
        for (sum, one) in [(&mut sums.0, p), (&mut sums.1, c)] {
            sum.reads += one.reads;
            sum.reads_merged += one.reads_merged;
            sum.sectors_read += one.sectors_read;
            sum.read_ms += one.read_ms;
            sum.writes += one.writes;
            sum.writes_merged += one.writes_merged;
            sum.sectors_written += one.sectors_written;
            sum.write_ms += one.write_ms;
            sum.in_flight += one.in_flight;
            sum.io_ms += one.io_ms;
            sum.weighted_io_ms += one.weighted_io_ms;
            sum.discards += one.discards;
            sum.discards_merged += one.discards_merged;
            sum.sectors_discarded += one.sectors_discarded;
            sum.discard_ms += one.discard_ms;
            sum.flushes += one.flushes;
            sum.flush_ms += one.flush_ms;
        }
    }
    sums
}

fn emit(
    config: &IostatConfig,
    text: &mut String,
    names: &mut Names<'_>,
    (cpu, pairs): (
        Option<CpuPercent>,
        Vec<(DiskCounters, DiskCounters, Duration)>,
    ),
    stamp: SystemTime,
    first: bool,
    traced: &HashMap<String, [Option<u64>; 4]>,
) {
    let mut pairs = pairs;
    order_like_sysstat(config, &mut pairs);
    let lines = report_lines(config, names, &pairs, traced);
    let report = Report {
        time: config.timestamps.then_some(stamp),
        cpu: cpu.filter(|_| config.cpu),
        disks: config.disks.then_some(lines.as_slice()),
    };
    if config.json {
        json_statistics(text, &config.layout, &report, first);
    } else {
        text_report(text, &config.layout, &report);
    }
}

/// Puts the report's devices in sysstat's order. `pairs` come in `/proc/diskstats` order, which
/// is the order the kernel registered the devices in (a loop device attached later comes last).
/// - `-g`: the devices in the order they were named (others, then, as `/proc/diskstats` has them);
/// - `-p ALL` (or a bare `-p`): devices named on the command line first, then `/proc/diskstats`
///   order, because sysstat then reads that file and keeps what it reads in place;
/// - otherwise sorted by name, byte by byte (`sda10` before `sda2`), as sysstat inserts them.
fn order_like_sysstat(config: &IostatConfig, pairs: &mut [(DiskCounters, DiskCounters, Duration)]) {
    let named = |name: &str| {
        config
            .devices
            .iter()
            .position(|d| d == name)
            .unwrap_or(usize::MAX)
    };
    if config.group.is_some() || matches!(config.partitions, Partitions::All { .. }) {
        // Stable: what was not named keeps its /proc/diskstats place.
        pairs.sort_by_key(|(_, c, _)| named(&c.name));
    } else {
        pairs.sort_by(|(_, a, _), (_, b, _)| a.name.as_bytes().cmp(b.name.as_bytes()));
    }
}

/// The names devices are shown under: the kernel's, a device-mapper name (`-N`) or a
/// persistent name (`-j`), looked up once per device.
struct Names<'a> {
    config: &'a IostatConfig,
    cache: HashMap<String, String>,
}

impl<'a> Names<'a> {
    fn new(config: &'a IostatConfig) -> Self {
        Self {
            config,
            cache: HashMap::new(),
        }
    }

    fn shown(&mut self, kernel: &str) -> String {
        if let Some(name) = self.cache.get(kernel) {
            return name.clone();
        }
        let mut name = kernel.to_owned();
        if self.config.dm_names {
            if let Some(dm) = dm_name(Path::new(SYS_BLOCK), kernel) {
                name = dm;
            }
        }
        if let Some(dir) = &self.config.persistent {
            if let Some(persistent) = persistent_name(dir, kernel) {
                name = persistent;
            }
        }
        self.cache.insert(kernel.to_owned(), name.clone());
        name
    }
}

/// The registered name of a device-mapper device (`/sys/block/dm-0/dm/name`), as sysstat's
/// `-N` shows it.
fn dm_name(sys_block: &Path, kernel: &str) -> Option<String> {
    if !kernel.starts_with("dm-") {
        return None;
    }
    let name = std::fs::read_to_string(sys_block.join(kernel).join("dm/name")).ok()?;
    Some(name.trim_end().to_owned()).filter(|n| !n.is_empty())
}

/// The first (sorted) name in `dir` (`/dev/disk/by-id`) whose link leads to `kernel`.
fn persistent_name(dir: &Path, kernel: &str) -> Option<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| {
            std::fs::read_link(e.path())
                .ok()
                .and_then(|target| target.file_name().map(|f| f == kernel))
                .unwrap_or(false)
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.into_iter().next()
}

/// Writes and flushes; `false` when the reader went away (`| head`), which ends the run quietly.
fn write_out(out: &mut impl Write, text: &mut String) -> anyhow::Result<bool> {
    // Device names and the host line come from the kernel, and a dm name or a hostname can
    // hold any byte: the one escaping rule.
    let result = out
        .write_all(crate::text::escape_layout(text).as_bytes())
        .and_then(|()| out.flush());
    text.clear();
    match result {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(e).context("writing to stdout"),
    }
}

/// Which devices a report shows, with the sysfs facts cached by name.
struct Selector<'a> {
    config: &'a IostatConfig,
    /// Name -> its whole disk when it is a partition, `None` when it is whole.
    parent: HashMap<String, Option<String>>,
    /// Looks the parent up (sysfs; a table in tests).
    lookup: fn(&str) -> Option<String>,
}

/// The whole disk of a partition, `None` for a whole device (sysstat's test: a whole device
/// has a `/sys/block/<name>` entry).
fn sysfs_parent(name: &str) -> Option<String> {
    if Path::new(SYS_BLOCK).join(name).exists() {
        None
    } else {
        Some(device::whole_disk(name).unwrap_or_default())
    }
}

impl<'a> Selector<'a> {
    fn new(config: &'a IostatConfig) -> Self {
        Self::with_lookup(config, sysfs_parent)
    }

    fn with_lookup(config: &'a IostatConfig, lookup: fn(&str) -> Option<String>) -> Self {
        Self {
            config,
            parent: HashMap::new(),
            lookup,
        }
    }

    fn parent_of(&mut self, name: &str) -> Option<&str> {
        if !self.parent.contains_key(name) {
            let parent = (self.lookup)(name);
            self.parent.insert(name.to_owned(), parent);
        }
        self.parent.get(name).and_then(|p| p.as_deref())
    }

    /// Whether `c` belongs in the report; `active` is "did requests in the interval" (or ever,
    /// for the since-boot report), which `-z` looks at.
    fn shows(&mut self, c: &DiskCounters, active: bool) -> bool {
        if self.config.omit_idle && !active {
            return false;
        }
        let config = self.config;
        let parent = self.parent_of(&c.name).map(str::to_owned);
        let disk = parent.as_deref().unwrap_or(&c.name);
        let named = config.devices.contains(&c.name);
        match &config.partitions {
            // ALL, -g NAME ALL: every whole device, used or not.
            Partitions::None if config.all_devices => parent.is_none() || named,
            // Named devices (none when none of them exists, as sysstat skips those).
            Partitions::None if config.named => named,
            // -g NAME alone: every whole device.
            Partitions::None if config.group.is_some() => parent.is_none(),
            // The default listing: whole devices that ever did I/O.
            Partitions::None => parent.is_none() && c.ever_used(),
            // sysstat reads all of /proc/diskstats then: naming a device does not narrow it.
            Partitions::All { unused } => *unused || c.ever_used(),
            Partitions::Of(disks) => named || disks.iter().any(|d| d == disk),
        }
    }
}

/// Time since boot, suspend included (what sysstat reads from /proc/uptime).
fn boottime() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_BOOTTIME)
        .map_or_else(|_| monotonic_now(), Duration::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sda1`, `sda2` are partitions of `sda`; everything else is whole.
    fn table_parent(name: &str) -> Option<String> {
        name.strip_prefix("sda")
            .filter(|n| !n.is_empty())
            .map(|_| "sda".to_owned())
    }

    fn config(devices: &[&str], partitions: Partitions, omit_idle: bool) -> IostatConfig {
        IostatConfig {
            devices: devices.iter().map(|d| (*d).to_owned()).collect(),
            named: !devices.is_empty(),
            all_devices: false,
            partitions,
            omit_first: false,
            omit_idle,
            json: false,
            timestamps: false,
            cpu: true,
            disks: true,
            layout: crate::report::iostat::Layout::default(),
            dm_names: false,
            group: None,
            persistent: None,
            interval: None,
            count: None,
        }
    }

    /// `(name, ever used, active in the interval)` for each device.
    const DEVICES: [(&str, bool, bool); 5] = [
        ("loop0", false, false),
        ("sda", true, true),
        ("sda1", true, false),
        ("sda2", true, true),
        ("vda", true, false),
    ];

    fn shown(config: &IostatConfig) -> Vec<&'static str> {
        let mut selector = Selector::with_lookup(config, table_parent);
        DEVICES
            .iter()
            .filter(|(name, used, active)| {
                let mut c = DiskCounters::zeroed(name);
                c.reads = u64::from(*used);
                selector.shows(&c, *active)
            })
            .map(|(name, _, _)| *name)
            .collect()
    }

    fn ordered(config: &IostatConfig, diskstats: &[&str]) -> Vec<String> {
        let mut pairs: Vec<_> = diskstats
            .iter()
            .map(|n| {
                (
                    DiskCounters::zeroed(n),
                    DiskCounters::zeroed(n),
                    Duration::ZERO,
                )
            })
            .collect();
        order_like_sysstat(config, &mut pairs);
        pairs.into_iter().map(|(_, c, _)| c.name).collect()
    }

    #[test]
    fn devices_are_ordered_like_sysstat() {
        // A loop device attached after boot comes last in /proc/diskstats.
        let diskstats = ["sda", "sda2", "sda10", "vda", "zram0", "loop0"];
        // Default and -p sda: by name, byte by byte.
        let by_name = ["loop0", "sda", "sda10", "sda2", "vda", "zram0"];
        assert_eq!(
            ordered(&config(&[], Partitions::None, false), &diskstats),
            by_name
        );
        let of_sda = Partitions::Of(vec!["sda".into()]);
        assert_eq!(ordered(&config(&[], of_sda, false), &diskstats), by_name);
        // -p ALL: as /proc/diskstats has them, named devices first.
        assert_eq!(
            ordered(
                &config(&[], Partitions::All { unused: true }, false),
                &diskstats
            ),
            diskstats
        );
        assert_eq!(
            ordered(
                &config(&["vda", "loop0"], Partitions::All { unused: true }, false),
                &diskstats
            ),
            ["vda", "loop0", "sda", "sda2", "sda10", "zram0"]
        );
        // -g: in the order named.
        let mut grouped = config(&["zram0", "sda"], Partitions::None, false);
        grouped.group = Some(super::args::Group {
            name: " g".into(),
            only: false,
        });
        assert_eq!(ordered(&grouped, &["sda", "zram0"]), ["zram0", "sda"]);
    }

    #[test]
    fn devices_shown_like_sysstat() {
        use Partitions::{All, None, Of};
        // Default: whole devices that ever did I/O.
        assert_eq!(shown(&config(&[], None, false)), ["sda", "vda"]);
        // -z: and only those active in the interval.
        assert_eq!(shown(&config(&[], None, true)), ["sda"]);
        // -p ALL: everything, used or not.
        let all = All { unused: true };
        assert_eq!(
            shown(&config(&[], all.clone(), false)),
            ["loop0", "sda", "sda1", "sda2", "vda"]
        );
        assert_eq!(shown(&config(&[], all.clone(), true)), ["sda", "sda2"]);
        // A bare -p: everything that did I/O.
        assert_eq!(
            shown(&config(&[], All { unused: false }, false)),
            ["sda", "sda1", "sda2", "vda"]
        );
        // -p sda: the disk and its partitions.
        assert_eq!(
            shown(&config(&[], Of(vec!["sda".into()]), false)),
            ["sda", "sda1", "sda2"]
        );
        // Named devices are shown even when never used, partitions only when named.
        assert_eq!(
            shown(&config(&["loop0", "sda1"], None, false)),
            ["loop0", "sda1"]
        );
        // Named + -p ALL: still everything (sysstat reads all of /proc/diskstats).
        assert_eq!(
            shown(&config(&["sda"], all, false)),
            ["loop0", "sda", "sda1", "sda2", "vda"]
        );
        assert_eq!(
            shown(&config(&["vda"], Of(vec!["sda".into()]), false)),
            ["sda", "sda1", "sda2", "vda"]
        );
        // Devices named, none of them present (`iostat nosuchdisk`): none, not the default.
        let mut missing = config(&[], None, false);
        missing.named = true;
        assert!(shown(&missing).is_empty());
        // ALL: every whole device, used or not; ALL with a named partition shows it too.
        let mut every = config(&[], None, false);
        every.all_devices = true;
        assert_eq!(shown(&every), ["loop0", "sda", "vda"]);
        let mut with_partition = config(&["sda1"], None, false);
        with_partition.all_devices = true;
        assert_eq!(shown(&with_partition), ["loop0", "sda", "sda1", "vda"]);
    }

    fn counters(name: &str, reads: u64, io_ms: u64) -> DiskCounters {
        let mut c = DiskCounters::zeroed(name);
        c.reads = reads;
        c.sectors_read = reads * 8;
        c.read_ms = reads;
        c.io_ms = io_ms;
        c
    }

    #[test]
    fn a_group_sums_its_devices_and_averages_util_like_sysstat() {
        let second = Duration::from_secs(1);
        let pairs = vec![
            (counters("vda", 0, 0), counters("vda", 300, 500), second),
            (counters("zram0", 0, 0), counters("zram0", 100, 0), second),
        ];
        let mut c = config(&[], Partitions::None, false);
        c.group = Some(super::args::Group {
            name: " grp".into(),
            only: false,
        });
        let mut names = Names::new(&c);
        let lines = report_lines(&c, &mut names, &pairs, &HashMap::new());
        let shown: Vec<&str> = lines.iter().map(|l| l.row.device.as_str()).collect();
        assert_eq!(shown, ["vda", "zram0", " grp"]);
        let group = &lines[2];
        assert_eq!(group.row.reads_per_s, 400.0);
        assert_eq!(group.row.read_kb_per_s, 1600.0);
        assert_eq!(group.sectors, [3200, 0, 0]);
        // 50 % busy and idle: sysstat's group %util is the mean, 25 %.
        assert_eq!(group.row.util_pct, 25.0);
        // -H: the group's line alone.
        c.group = Some(super::args::Group {
            name: " grp".into(),
            only: true,
        });
        let mut names = Names::new(&c);
        let lines = report_lines(&c, &mut names, &pairs, &HashMap::new());
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].row.device, " grp");
    }

    #[test]
    fn device_mapper_and_persistent_names() {
        let dir = tempfile::tempdir().unwrap();
        let sys = dir.path().join("block");
        std::fs::create_dir_all(sys.join("dm-0/dm")).unwrap();
        std::fs::write(sys.join("dm-0/dm/name"), "vg0-root\n").unwrap();
        std::fs::create_dir_all(sys.join("dm-1")).unwrap();
        assert_eq!(dm_name(&sys, "dm-0").as_deref(), Some("vg0-root"));
        assert_eq!(dm_name(&sys, "dm-1"), None, "no dm/name");
        assert_eq!(dm_name(&sys, "vda"), None, "not device-mapper");

        let by_id = dir.path().join("by-id");
        std::fs::create_dir(&by_id).unwrap();
        for (link, target) in [
            ("virtio-b", "../../vda"),
            ("virtio-a", "../../vda"),
            ("virtio-a-part1", "../../vda1"),
        ] {
            std::os::unix::fs::symlink(target, by_id.join(link)).unwrap();
        }
        assert_eq!(persistent_name(&by_id, "vda").as_deref(), Some("virtio-a"));
        assert_eq!(
            persistent_name(&by_id, "vda1").as_deref(),
            Some("virtio-a-part1")
        );
        assert_eq!(persistent_name(&by_id, "sdb"), None);
    }
}
