//! A disk's queue settings from `/sys/block/<disk>/queue/*` (kernel
//! `Documentation/ABI/stable/sysfs-block`), and the note on reading `%util` on parallel devices.
//!
//! Every attribute is optional: older kernels, virtual devices and drivers omit some, and an
//! absent or unreadable attribute is reported as absent (`None`), never as an error.

use std::fs;
use std::path::{Path, PathBuf};

/// Where the kernel lists whole disks.
pub(crate) const SYS_BLOCK: &str = "/sys/block";

pub use crate::record::QueueSettings;

impl QueueSettings {
    /// Reads the settings of `/sys/block/<disk>`. Never fails: what is missing is `None`.
    #[must_use]
    pub fn read(disk: &str) -> QueueSettings {
        Self::read_from(&Path::new(SYS_BLOCK).join(disk))
    }

    /// Reads from a disk's sysfs directory (`/sys/block/vda` or a test copy of one).
    #[must_use]
    pub(crate) fn read_from(disk_dir: &Path) -> QueueSettings {
        let queue = disk_dir.join("queue");
        let text = |attr: &str| read_attr(&queue.join(attr));
        let number = |attr: &str| text(attr).and_then(|s| s.parse::<u64>().ok());
        let flag = |attr: &str| number(attr).map(|n| n != 0);
        let small = |attr: &str| number(attr).and_then(|n| u8::try_from(n).ok());
        let (scheduler, schedulers_available) = text("scheduler")
            .map(|s| parse_scheduler(&s))
            .unwrap_or_default();
        QueueSettings {
            scheduler,
            schedulers_available,
            nr_requests: number("nr_requests"),
            read_ahead_kb: number("read_ahead_kb"),
            rotational: flag("rotational"),
            logical_block_size: number("logical_block_size"),
            physical_block_size: number("physical_block_size"),
            minimum_io_size: number("minimum_io_size"),
            optimal_io_size: number("optimal_io_size"),
            max_sectors_kb: number("max_sectors_kb"),
            max_hw_sectors_kb: number("max_hw_sectors_kb"),
            write_cache: text("write_cache"),
            fua: flag("fua"),
            io_poll: flag("io_poll"),
            nomerges: small("nomerges"),
            rq_affinity: small("rq_affinity"),
            wbt_lat_usec: text("wbt_lat_usec").and_then(|s| s.parse().ok()),
            discard_max_bytes: number("discard_max_bytes"),
            hw_queues: count_entries(&disk_dir.join("mq")),
            zoned: text("zoned"),
        }
    }

    /// Whether the device serves requests in parallel: not rotational, or more than one
    /// hardware queue. On such devices `%util` = 100 does not mean saturated.
    #[must_use]
    pub(crate) fn serves_in_parallel(&self) -> bool {
        self.rotational == Some(false) || self.hw_queues.is_some_and(|n| n > 1)
    }
}

/// Splits `none [mq-deadline] kyber` into the active one and all of them.
#[must_use]
pub(crate) fn parse_scheduler(text: &str) -> (Option<String>, Option<Vec<String>>) {
    let mut active = None;
    let mut all = Vec::new();
    for word in text.split_whitespace() {
        match word.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
            Some(inner) => {
                active = Some(inner.to_owned());
                all.push(inner.to_owned());
            }
            None => all.push(word.to_owned()),
        }
    }
    // A queue without a scheduler choice prints just `none`.
    if active.is_none() && all.len() == 1 {
        active = all.first().cloned();
    }
    (active, (!all.is_empty()).then_some(all))
}

/// The note shown next to `%util` on devices that serve requests in parallel.
pub(crate) const PARALLEL_UTIL_NOTE: &str = "%util is the share of time with at least one request in \
     flight, not saturation: this device serves requests in parallel (non-rotational or several \
     hardware queues), so it can show 100% with capacity to spare; watch aqu-sz and the \
     in-flight requests (/sys/block/<dev>/inflight) instead";

/// [`PARALLEL_UTIL_NOTE`] with the device's name, when it applies to these settings.
#[must_use]
pub(crate) fn parallel_util_note(disk: &str, queue: &QueueSettings) -> Option<String> {
    queue
        .serves_in_parallel()
        .then(|| PARALLEL_UTIL_NOTE.replace("<dev>", disk))
}

/// Requests in flight now, reads and writes (`/sys/block/<disk>/inflight`).
#[must_use]
pub(crate) fn read_inflight(disk: &str) -> Option<(u64, u64)> {
    let text = read_attr(&Path::new(SYS_BLOCK).join(disk).join("inflight"))?;
    let mut it = text.split_whitespace().map(str::parse::<u64>);
    match (it.next(), it.next()) {
        (Some(Ok(r)), Some(Ok(w))) => Some((r, w)),
        _ => None,
    }
}

/// A sysfs attribute's trimmed text; `None` when absent, unreadable or empty.
#[must_use]
pub(crate) fn read_attr(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// Number of entries in a directory, `None` when it does not exist.
fn count_entries(dir: &PathBuf) -> Option<u32> {
    let entries = fs::read_dir(dir).ok()?;
    u32::try_from(entries.filter_map(Result::ok).count()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_active_and_available() {
        assert_eq!(
            parse_scheduler("none [mq-deadline] kyber bfq"),
            (
                Some("mq-deadline".into()),
                Some(vec![
                    "none".into(),
                    "mq-deadline".into(),
                    "kyber".into(),
                    "bfq".into()
                ])
            )
        );
        assert_eq!(
            parse_scheduler("none"),
            (Some("none".into()), Some(vec!["none".into()]))
        );
        assert_eq!(parse_scheduler(""), (None, None));
    }

    #[test]
    fn absent_attributes_are_none_not_errors() {
        let dir = tempfile::tempdir().unwrap();
        let queue = dir.path().join("queue");
        fs::create_dir(&queue).unwrap();
        fs::write(queue.join("rotational"), "1\n").unwrap();
        fs::write(queue.join("wbt_lat_usec"), "-1\n").unwrap();
        fs::write(queue.join("nr_requests"), "garbage\n").unwrap();
        let q = QueueSettings::read_from(dir.path());
        assert_eq!(q.rotational, Some(true));
        assert_eq!(q.wbt_lat_usec, Some(-1));
        assert_eq!(q.nr_requests, None);
        assert_eq!(q.scheduler, None);
        assert_eq!(q.hw_queues, None);
        assert!(!q.serves_in_parallel());
        assert_eq!(parallel_util_note("sda", &q), None);
        let nothing = QueueSettings::read_from(&dir.path().join("no-such-disk"));
        assert_eq!(nothing, QueueSettings::default());
    }

    #[test]
    fn parallel_devices_get_the_util_note() {
        let ssd = QueueSettings {
            rotational: Some(false),
            ..QueueSettings::default()
        };
        let note = parallel_util_note("nvme0n1", &ssd).unwrap();
        assert!(note.contains("/sys/block/nvme0n1/inflight"), "{note}");
        assert!(note.contains("aqu-sz"));
        let multi_queue_hdd = QueueSettings {
            rotational: Some(true),
            hw_queues: Some(4),
            ..QueueSettings::default()
        };
        assert!(multi_queue_hdd.serves_in_parallel());
    }

    #[test]
    fn reads_this_machines_disks() {
        for entry in fs::read_dir(SYS_BLOCK).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let q = QueueSettings::read(&name);
            if !Path::new(SYS_BLOCK).join(&name).exists() {
                continue; // a loop device detached by a parallel test meanwhile
            }
            assert!(
                q.logical_block_size.is_some_and(|b| b >= 512),
                "{name}: {q:?}"
            );
            assert!(q.rotational.is_some(), "{name}");
        }
    }
}
