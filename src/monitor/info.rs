//! Everything known about one whole disk: identity, transport, size, partitions, stack,
//! mounts, queue settings and the notes a reader needs. Gathered from sysfs
//! (`Documentation/ABI/stable/sysfs-block`) and `/proc/self/mountinfo`; anything missing is
//! absent, never an error. `diskdash info` prints it (`crate::report::info`), the dashboard
//! shows it.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::device::{self, DeviceChain, SYS_CLASS_BLOCK};
use super::sysfs::{self, QueueSettings, read_attr};

/// One partition of a disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Partition {
    pub name: String,
    pub number: Option<u32>,
    pub start_sector: Option<u64>,
    pub size_bytes: Option<u64>,
}

/// A mounted filesystem on the disk, a partition of it, or a device stacked on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MountPoint {
    /// The kernel name of the mounted device (`vda1`, `dm-0`).
    pub device: String,
    pub mount_point: PathBuf,
    pub fs_type: String,
    /// Per-mount then per-superblock options, `rw`/`ro` first, like `/proc/mounts`.
    pub options: Vec<String>,
}

/// Requests in flight now (`/sys/block/<disk>/inflight`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Inflight {
    pub reads: u64,
    pub writes: u64,
}

/// What `diskdash info` reports for one disk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiskInfo {
    /// What the user named (a path or a device), when a name was given.
    pub queried: Option<String>,
    /// The device the query resolved to (a partition, a dm device, the disk itself).
    pub device: String,
    /// The whole disk, the subject of everything below.
    pub disk: String,
    pub major: u32,
    pub minor: u32,
    pub model: Option<String>,
    pub vendor: Option<String>,
    pub serial: Option<String>,
    /// Firmware revision: `device/firmware_rev` (NVMe, ATA) or `device/rev` (SCSI, virtio
    /// has none).
    pub firmware: Option<String>,
    pub size_bytes: Option<u64>,
    /// `nvme`, `virtio`, `sata`, `usb`, `scsi`, `loop`, `dm`, `md`, `mmc`, `zram`, `xen`,
    /// `nbd`, or `unknown`.
    pub transport: String,
    pub rotational: Option<bool>,
    pub removable: Option<bool>,
    pub read_only: Option<bool>,
    /// dm: the mapped name (`vg0-root`); md: the RAID level; loop: the backing file.
    pub dm_name: Option<String>,
    pub md_level: Option<String>,
    pub loop_backing_file: Option<String>,
    pub partitions: Vec<Partition>,
    /// Devices built on this disk or its partitions (dm, md).
    pub holders: Vec<String>,
    /// Devices this disk is built on, and the whole disks at the bottom of the stack.
    pub slaves: Vec<String>,
    pub backing_disks: Vec<String>,
    pub mounts: Vec<MountPoint>,
    pub queue: QueueSettings,
    pub inflight: Option<Inflight>,
    /// Warnings against wrong conclusions (the `%util` note on parallel devices).
    pub notes: Vec<String>,
}

impl DiskInfo {
    /// Gathers the info of the disk behind `chain`.
    #[must_use]
    pub fn gather(chain: &DeviceChain, queried: Option<&str>) -> DiskInfo {
        let disk = &chain.disk;
        let dir = disk_dir(disk);
        let attr = |rel: &str| read_attr(&dir.join(rel));
        let flag = |rel: &str| attr(rel).map(|v| v != "0");
        let queue = QueueSettings::read(disk);
        let partitions = partitions_of(&dir);
        let mut holders = device::list_links(disk, "holders");
        for p in &partitions {
            holders.extend(device::list_links(&p.name, "holders"));
        }
        holders.sort();
        holders.dedup();
        let mut notes = Vec::new();
        notes.extend(sysfs::parallel_util_note(disk, &queue));
        let (disk_major, disk_minor) = if chain.partition.is_some() {
            read_dev(&dir).unwrap_or((chain.major, chain.minor))
        } else {
            (chain.major, chain.minor)
        };
        DiskInfo {
            queried: queried.map(str::to_owned),
            device: chain.device.clone(),
            disk: disk.clone(),
            major: disk_major,
            minor: disk_minor,
            model: model_and_transport(disk).0,
            vendor: attr("device/vendor"),
            serial: attr("serial")
                .or_else(|| attr("device/serial"))
                .or_else(|| attr("device/wwid")),
            firmware: attr("device/firmware_rev").or_else(|| attr("device/rev")),
            size_bytes: attr("size")
                .and_then(|s| s.parse::<u64>().ok())
                .map(|sectors| sectors * 512),
            transport: transport(disk, &dir),
            rotational: queue.rotational,
            removable: flag("removable"),
            read_only: flag("ro"),
            dm_name: attr("dm/name"),
            md_level: attr("md/level"),
            loop_backing_file: attr("loop/backing_file"),
            partitions,
            holders,
            slaves: chain.slaves.clone(),
            backing_disks: chain.backing_disks.clone(),
            mounts: mounts_of(disk),
            inflight: sysfs::read_inflight(disk).map(|(reads, writes)| Inflight { reads, writes }),
            queue,
            notes,
        }
    }
}

/// Every whole disk the kernel lists in `/sys/block`, sorted by name.
#[must_use]
pub fn all_disks() -> Vec<String> {
    let mut disks: Vec<String> = fs::read_dir(sysfs::SYS_BLOCK)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    disks.sort();
    disks
}

/// A disk's model (`device/model`, else `device/name` as MMC cards have it) and its
/// [`transport`]: the identity `diskdash info` prints, read without the rest of [`DiskInfo`].
#[must_use]
pub fn model_and_transport(disk: &str) -> (Option<String>, String) {
    model_and_transport_in(Path::new("/sys"), disk)
}

/// [`model_and_transport`] from a sysfs mounted at `sysfs` (`/sys`, or a container's
/// `/host/sys`).
#[must_use]
pub fn model_and_transport_in(sysfs: &Path, disk: &str) -> (Option<String>, String) {
    let dir = fs::canonicalize(sysfs.join("class/block").join(disk))
        .unwrap_or_else(|_| sysfs.join("block").join(disk));
    let model =
        read_attr(&dir.join("device/model")).or_else(|| read_attr(&dir.join("device/name")));
    (model, transport(disk, &dir))
}

fn disk_dir(disk: &str) -> PathBuf {
    fs::canonicalize(Path::new(SYS_CLASS_BLOCK).join(disk))
        .unwrap_or_else(|_| Path::new(sysfs::SYS_BLOCK).join(disk))
}

fn read_dev(dir: &Path) -> Option<(u32, u32)> {
    let text = read_attr(&dir.join("dev"))?;
    let (major, minor) = text.split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The transport of a disk from its name and where its sysfs directory sits.
#[must_use]
pub fn transport(disk: &str, dir: &Path) -> String {
    let path = dir.to_string_lossy();
    let has = |rel: &str| dir.join(rel).exists();
    let kind = if has("dm") || disk.starts_with("dm-") {
        "dm"
    } else if has("md") || disk.starts_with("md") {
        "md"
    } else if has("loop") || disk.starts_with("loop") {
        "loop"
    } else if disk.starts_with("nvme") || path.contains("/nvme") {
        "nvme"
    } else if disk.starts_with("mmcblk") || path.contains("/mmc") {
        "mmc"
    } else if path.contains("/virtio") {
        "virtio"
    } else if disk.starts_with("zram") {
        "zram"
    } else if disk.starts_with("xvd") {
        "xen"
    } else if disk.starts_with("nbd") {
        "nbd"
    } else if path.contains("/usb") {
        "usb"
    } else if path.contains("/ata") {
        "sata"
    } else if disk.starts_with("sd") || disk.starts_with("sr") || path.contains("/host") {
        "scsi"
    } else {
        "unknown"
    };
    kind.to_owned()
}

/// Partitions: subdirectories of the disk's sysfs directory that carry a `partition` file.
fn partitions_of(dir: &Path) -> Vec<Partition> {
    let mut parts: Vec<Partition> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.join("partition").exists())
                .filter_map(|p| {
                    let number =
                        |rel: &str| read_attr(&p.join(rel)).and_then(|s| s.parse::<u64>().ok());
                    Some(Partition {
                        name: p.file_name()?.to_str()?.to_owned(),
                        number: number("partition").and_then(|n| u32::try_from(n).ok()),
                        start_sector: number("start"),
                        size_bytes: number("size").map(|s| s * 512),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    parts.sort_by_key(|p| (p.number, p.name.clone()));
    parts
}

/// Mounts of the disk, its partitions and everything stacked on them.
fn mounts_of(disk: &str) -> Vec<MountPoint> {
    let Ok(mounts) = procfs::process::Process::myself().and_then(|p| p.mountinfo()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in mounts {
        let Some((major, minor)) = m
            .majmin
            .split_once(':')
            .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)))
        else {
            continue;
        };
        let Some(name) = device_name(major, minor, &m) else {
            continue;
        };
        if !stacks_on(&name, disk, 0) {
            continue;
        }
        out.push(MountPoint {
            device: name,
            mount_point: m.mount_point.clone(),
            fs_type: m.fs_type.clone(),
            options: ordered_options(&m),
        });
    }
    out
}

/// The block device behind a mount: its `major:minor`, or its `/dev/...` source (btrfs).
fn device_name(major: u32, minor: u32, m: &procfs::process::MountInfo) -> Option<String> {
    if let Ok(dir) = fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")) {
        return dir.file_name()?.to_str().map(str::to_owned);
    }
    let source = m.mount_source.as_deref()?;
    if !source.starts_with("/dev/") {
        return None;
    }
    device::resolve(Path::new(source)).ok().map(|c| c.device)
}

/// Whether `name` is `disk`, one of its partitions, or a device built on them.
fn stacks_on(name: &str, disk: &str, depth: usize) -> bool {
    let Some(chain) = device::resolve_name(name) else {
        return false;
    };
    chain.disk == disk || (depth < 16 && chain.slaves.iter().any(|s| stacks_on(s, disk, depth + 1)))
}

/// `rw`/`ro` first, then the other per-mount options sorted, then the superblock's.
pub(crate) fn ordered_options(m: &procfs::process::MountInfo) -> Vec<String> {
    let render = |(k, v): (&String, &Option<String>)| match v {
        Some(v) => format!("{k}={v}"),
        None => k.clone(),
    };
    let mut per_mount: Vec<String> = m.mount_options.iter().map(render).collect();
    per_mount.sort_by_key(|o| (o != "rw" && o != "ro", o.clone()));
    let mut super_opts: Vec<String> = m
        .super_options
        .iter()
        .map(render)
        .filter(|o| o != "rw" && o != "ro")
        .collect();
    super_opts.sort();
    per_mount.extend(super_opts);
    per_mount
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transports_by_name_and_sysfs_path() {
        let t = |name: &str, path: &str| transport(name, Path::new(path));
        let nothing = "/nonexistent/sys";
        assert_eq!(t("nvme0n1", nothing), "nvme");
        assert_eq!(t("dm-0", nothing), "dm");
        assert_eq!(t("md127", nothing), "md");
        assert_eq!(t("loop7", nothing), "loop");
        assert_eq!(t("mmcblk0", nothing), "mmc");
        assert_eq!(
            t(
                "vda",
                "/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda"
            ),
            "virtio"
        );
        assert_eq!(
            t(
                "sda",
                "/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda"
            ),
            "sata"
        );
        assert_eq!(
            t("sdb", "/sys/devices/pci0000:00/usb2/2-1/host6/block/sdb"),
            "usb"
        );
        assert_eq!(t("sdc", "/sys/devices/platform/host2/block/sdc"), "scsi");
        assert_eq!(t("cciss!c0d0", nothing), "unknown");
    }

    #[test]
    fn the_root_filesystems_disk_lists_the_root_mount() {
        let chain = device::resolve(Path::new("/")).unwrap();
        let info = DiskInfo::gather(&chain, Some("/"));
        assert_eq!(info.disk, chain.disk);
        assert!(info.size_bytes.is_some_and(|s| s > 0));
        assert!(
            info.mounts.iter().any(|m| m.mount_point == Path::new("/")),
            "{:?}",
            info.mounts
        );
        let root = info
            .mounts
            .iter()
            .find(|m| m.mount_point == Path::new("/"))
            .unwrap();
        assert!(
            root.options[0] == "rw" || root.options[0] == "ro",
            "{:?}",
            root.options
        );
        assert_ne!(info.transport, "");
        assert_eq!(info.queue, QueueSettings::read(&chain.disk));
        assert!(all_disks().contains(&chain.disk));
    }
}
