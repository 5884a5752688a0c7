//! `diskdash iostat`: the report loop over the shared sampler and the choice of devices, as
//! sysstat's `iostat -dx`
//! does it. Without `-y` the first report covers the time since boot; then one report per
//! interval, on a CLOCK_MONOTONIC schedule that does not drift. Devices that appear during the
//! run (hot-plug, loop attach) show up in later reports; devices that vanish just stop.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::Context;

use super::iostat_args::{IostatConfig, Partitions, validate};
use crate::cli::IostatArgs;
use crate::monitor::device;
use crate::monitor::diskstats::{DiskCounters, monotonic_now};
use crate::monitor::iostat::IostatRow;
use crate::monitor::sampler::Sampler;
use crate::monitor::sysfs::{QueueSettings, SYS_BLOCK};
use crate::record::monitor::{MonitorHeader, MonitorSample, RecordedDisk};
use crate::record::monitor_writer::MonitorRecorder;
use crate::report::iostat::{json_report, system_line, text_report};

/// Runs `diskdash iostat`.
///
/// # Errors
/// Usage errors (exit 2) for bad arguments; runtime errors when /proc/diskstats fails.
pub fn run(args: &IostatArgs) -> anyhow::Result<ExitCode> {
    let config = validate(args)?;
    let mut sampler = Sampler::open()?;
    let mut selector = Selector::new(&config);
    let mut out = io::stdout().lock();
    let mut text = String::new();
    if !config.json {
        text.push_str(&host_line());
        text.push_str("\n\n");
        if config.omit_first && config.interval.is_some() {
            text.push('\n'); // sysstat leaves the omitted report's blank line
        }
    }

    let record = super::monitor::record_to(&args.record)?;
    if record.is_some() && config.interval.is_none() {
        return Err(crate::usage!(
            "--record needs an INTERVAL: it records one line per interval; e.g. diskdash iostat \
             --record FILE 1"
        ));
    }
    let first = sampler.sample()?;
    let mut recorder = match &record {
        Some(to) => {
            let disks = first
                .cur
                .disks
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
            Some(MonitorRecorder::start(
                to,
                &MonitorHeader::new("iostat", interval, disks),
            )?)
        }
        None => None,
    };
    let mut deadline = first.cur.at;
    let mut reports = 0u64;
    if config.interval.is_none() || !config.omit_first {
        let uptime = boottime();
        let rows: Vec<IostatRow> = first
            .cur
            .disks
            .iter()
            .filter(|c| selector.shows(c, c.ever_used()))
            .map(|c| IostatRow::since_boot(c, uptime))
            .collect();
        emit(&config, &mut text, &rows);
        reports += 1;
    }
    if !write_out(&mut out, &mut text)? {
        return Ok(ExitCode::SUCCESS);
    }
    let Some(interval) = config.interval else {
        return Ok(ExitCode::SUCCESS);
    };

    while config.count.is_none_or(|count| reports < count) {
        deadline += interval;
        let now = monotonic_now();
        if deadline > now {
            std::thread::sleep(deadline - now);
        } else {
            deadline = now; // fell behind (suspend, overload): restart the schedule
        }
        let step = sampler.sample()?;
        let rows: Vec<IostatRow> = step
            .rows()
            .unwrap_or_default()
            .into_iter()
            .zip(&step.cur.disks)
            .filter(|(row, c)| selector.shows(c, row.is_active()))
            .map(|(row, _)| row)
            .collect();
        if let (Some(recorder), Some(prev)) = (&mut recorder, step.prev) {
            // The devices of the report, exactly.
            let shown: HashSet<&str> = rows.iter().map(|r| r.device.as_str()).collect();
            let seq = recorder.next_seq();
            recorder.record(MonitorSample::between(
                seq,
                SystemTime::now(),
                prev,
                step.cur,
                |c| shown.contains(c.name.as_str()),
            ));
            if let Some(err) = recorder.status().error {
                return Err(anyhow::anyhow!("--record: {err}"));
            }
        }
        emit(&config, &mut text, &rows);
        reports += 1;
        if !write_out(&mut out, &mut text)? {
            break;
        }
    }
    if let Some(recorder) = recorder {
        let status = recorder.finish()?;
        if let Some(problem) = status.problem() {
            eprintln!("note: {problem}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn emit(config: &IostatConfig, text: &mut String, rows: &[IostatRow]) {
    let now = SystemTime::now();
    if config.json {
        // Rows are numbers and names: serialization cannot fail.
        let _ = json_report(text, rows, now);
    } else {
        text_report(text, rows, config.timestamps.then_some(now));
    }
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
            // The default listing: whole devices that ever did I/O.
            Partitions::None if config.devices.is_empty() => parent.is_none() && c.ever_used(),
            Partitions::None => named,
            Partitions::All => {
                config.devices.is_empty() || named || config.devices.iter().any(|d| d == disk)
            }
            Partitions::Of(disks) => named || disks.iter().any(|d| d == disk),
        }
    }
}

/// sysstat's first line, from uname and the online CPU count.
fn host_line() -> String {
    let host = crate::monitor::host::Host::detect();
    system_line(
        &host.sysname,
        &host.release,
        &host.hostname,
        &host.machine,
        host.online_cpus,
        SystemTime::now(),
    )
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
            partitions,
            omit_first: false,
            omit_idle,
            json: false,
            timestamps: false,
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

    #[test]
    fn devices_shown_like_sysstat() {
        use Partitions::{All, None, Of};
        // Default: whole devices that ever did I/O.
        assert_eq!(shown(&config(&[], None, false)), ["sda", "vda"]);
        // -z: and only those active in the interval.
        assert_eq!(shown(&config(&[], None, true)), ["sda"]);
        // -p ALL: everything, used or not.
        assert_eq!(
            shown(&config(&[], All, false)),
            ["loop0", "sda", "sda1", "sda2", "vda"]
        );
        assert_eq!(shown(&config(&[], All, true)), ["sda", "sda2"]);
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
        // Named + -p ALL: the named ones and their partitions.
        assert_eq!(
            shown(&config(&["sda"], All, false)),
            ["sda", "sda1", "sda2"]
        );
        assert_eq!(
            shown(&config(&["vda"], Of(vec!["sda".into()]), false)),
            ["sda", "sda1", "sda2", "vda"]
        );
    }
}
