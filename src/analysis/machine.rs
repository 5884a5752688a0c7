//! What differs between the machines of two runs, before any of their numbers is compared:
//! the disk (identity, file system, queue settings), the kernel, CPU, memory, diskdash's
//! version and the host. A record without `machine` (written before it was kept) is compared
//! by its `host` alone.

use serde::Serialize;

use crate::record::machine::REDACTED;
use crate::record::{QueueSettings, RunRecord};

/// One property that differs, as shown (`-`: not known on that side).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MachineDifference {
    /// `disk model`, `kernel`, `scheduler`, ...
    pub what: &'static str,
    pub base: String,
    pub new: String,
}

/// The two machines compared (`compare --json`'s `machines`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MachinesCompared {
    /// Each record has its `machine` (else only its `host` was compared).
    pub base_recorded: bool,
    pub new_recorded: bool,
    /// Empty: nothing known differs.
    pub differences: Vec<MachineDifference>,
}

impl MachinesCompared {
    /// Both records describe their machine and nothing differs.
    #[cfg(test)]
    #[must_use]
    pub fn same(&self) -> bool {
        self.base_recorded && self.new_recorded && self.differences.is_empty()
    }
}

const ABSENT: &str = "-";

fn shown<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| ABSENT.to_string(), |v| v.to_string())
}

/// The properties compared, in the order shown: `(what, base, new)`.
fn properties(record: &RunRecord) -> Vec<(&'static str, Option<String>)> {
    let machine = record.machine.as_ref();
    let disk = machine.and_then(|m| m.disk.as_ref());
    let fs = machine.and_then(|m| m.fs.as_ref());
    let queue: Option<&QueueSettings> = record
        .device
        .as_ref()
        .or_else(|| record.steps.first().and_then(|s| s.devices.first()))
        .map(|d| &d.queue);
    let host = machine.map_or(record.host.hostname.as_str(), |m| m.host.as_str());
    let mut props: Vec<(&'static str, Option<String>)> = Vec::new();
    if machine.is_some() {
        props.extend([
            ("disk model", disk.and_then(|d| d.model.clone())),
            ("disk vendor", disk.and_then(|d| d.vendor.clone())),
            (
                // Two disks of one model: the hash tells them apart, the first 12 digits do.
                "disk serial (sha256)",
                disk.and_then(|d| d.serial_sha256.as_ref())
                    .map(|h| h.chars().take(12).collect()),
            ),
            ("disk firmware", disk.and_then(|d| d.firmware.clone())),
            ("transport", disk.map(|d| d.transport.clone())),
            (
                "rotational",
                disk.and_then(|d| d.rotational)
                    .map(|r| if r { "yes" } else { "no" }.to_string()),
            ),
            ("disk size", disk.and_then(|d| d.size_bytes).map(bytes)),
            ("file system", fs.map(|f| f.fs_type.clone())),
            ("mount options", fs.map(|f| f.mount_options.join(","))),
        ]);
    }
    props.extend([
        ("scheduler", queue.and_then(|q| q.scheduler.clone())),
        ("write cache", queue.and_then(|q| q.write_cache.clone())),
        (
            "nr_requests",
            queue.and_then(|q| q.nr_requests).map(|n| n.to_string()),
        ),
        (
            "read_ahead_kb",
            queue.and_then(|q| q.read_ahead_kb).map(|n| n.to_string()),
        ),
        (
            "max_sectors_kb",
            queue.and_then(|q| q.max_sectors_kb).map(|n| n.to_string()),
        ),
        ("kernel", Some(record.host.kernel.clone())),
        ("cpu model", machine.and_then(|m| m.cpu_model.clone())),
        ("cpus", Some(record.host.cpus.to_string())),
        ("memory", Some(bytes(record.host.memory_bytes))),
        (
            "diskdash version",
            machine
                .map(|m| m.diskdash_version.clone())
                .or_else(|| Some(record.diskdash_version.clone())),
        ),
        (
            "host",
            Some(host.to_string()).filter(|h| !h.is_empty() && h != REDACTED),
        ),
    ]);
    props
}

/// Bytes in binary units, one decimal (`15.6 GiB`).
fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// What differs between the machines of `base` and `new`. A property known on one side only
/// (an older record, a platform without it) is not called a difference; the host name is not
/// compared where either record was redacted.
#[must_use]
pub fn compare_machines(base: &RunRecord, new: &RunRecord) -> MachinesCompared {
    let (b, n) = (properties(base), properties(new));
    let differences = b
        .into_iter()
        .filter_map(|(what, bv)| {
            let nv = n.iter().find(|(w, _)| *w == what)?.1.clone();
            match (&bv, &nv) {
                (Some(x), Some(y)) if x == y => None,
                (None, None) => None,
                (Some(_), None) | (None, Some(_)) if !disk_property(what) => None,
                _ => Some(MachineDifference {
                    what,
                    base: shown(bv),
                    new: shown(nv),
                }),
            }
        })
        .collect();
    MachinesCompared {
        base_recorded: base.machine.is_some(),
        new_recorded: new.machine.is_some(),
        differences,
    }
}

/// Properties of the disk and file system: one side having none (a block device against a
/// file, a disk against tmpfs) is itself a difference.
fn disk_property(what: &str) -> bool {
    matches!(what, "disk model" | "transport" | "file system")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{FsRecord, MachineDiskRecord, MachineRecord};

    fn record(model: &str, kernel: &str, fs: &str) -> RunRecord {
        let mut r = crate::stats::fixture::record();
        r.host.kernel = kernel.to_string();
        r.host.hostname = "box".into();
        r.machine = Some(MachineRecord {
            host: "box".into(),
            kernel: kernel.to_string(),
            cpu_model: Some("Xeon".into()),
            cpus: r.host.cpus,
            memory_bytes: r.host.memory_bytes,
            diskdash_version: "0.1.0".into(),
            command_line: None,
            disk: Some(MachineDiskRecord {
                name: "nvme0n1".into(),
                model: Some(model.to_string()),
                serial_sha256: Some("ab".repeat(32)),
                transport: "nvme".into(),
                rotational: Some(false),
                ..MachineDiskRecord::default()
            }),
            fs: Some(FsRecord {
                fs_type: fs.to_string(),
                mount_options: vec!["rw".into(), "relatime".into()],
                mount_point: "/data".into(),
                device: Some("nvme0n1p1".into()),
            }),
            redacted: false,
        });
        r
    }

    #[test]
    fn one_machine_twice_differs_in_nothing() {
        let a = record("Samsung 980", "6.8.0", "ext4");
        let cmp = compare_machines(&a, &a.clone());
        assert!(cmp.same(), "{cmp:?}");
    }

    #[test]
    fn the_disk_model_kernel_and_file_system_are_named_in_order() {
        let a = record("Samsung 980", "6.8.0", "ext4");
        let b = record("WD SN850", "6.12.1", "xfs");
        let cmp = compare_machines(&a, &b);
        let whats: Vec<_> = cmp.differences.iter().map(|d| d.what).collect();
        assert_eq!(whats, ["disk model", "file system", "kernel"]);
        assert_eq!(cmp.differences[0].base, "Samsung 980");
        assert_eq!(cmp.differences[0].new, "WD SN850");
        assert!(!cmp.same());
    }

    #[test]
    fn another_disk_of_one_model_is_told_by_its_serials_hash() {
        let a = record("Samsung 980", "6.8.0", "ext4");
        let mut b = a.clone();
        b.machine
            .as_mut()
            .unwrap()
            .disk
            .as_mut()
            .unwrap()
            .serial_sha256 = Some("cd".repeat(32));
        let cmp = compare_machines(&a, &b);
        assert_eq!(cmp.differences.len(), 1);
        assert_eq!(cmp.differences[0].what, "disk serial (sha256)");
        assert_eq!(cmp.differences[0].base, "abababababab");
    }

    #[test]
    fn a_redacted_host_is_not_compared_and_an_older_record_by_its_host_only() {
        let a = record("Samsung 980", "6.8.0", "ext4");
        let mut b = a.clone();
        b.machine.as_mut().unwrap().host = REDACTED.into();
        b.host.hostname = REDACTED.into();
        assert!(compare_machines(&a, &b).same());
        let mut old = a.clone();
        old.machine = None;
        old.host.kernel = "5.15.0".into();
        let cmp = compare_machines(&old, &a);
        assert!(!cmp.base_recorded && cmp.new_recorded && !cmp.same());
        let whats: Vec<_> = cmp.differences.iter().map(|d| d.what).collect();
        // The disk is not called different for being unknown on one side.
        assert_eq!(whats, ["kernel"]);
    }

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(16 << 30), "16.0 GiB");
    }
}
