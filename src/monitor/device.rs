//! Which block device stands behind a path or a name, and what it is built on.
//!
//! A file lives on its filesystem's device (`st_dev`); a device node names itself (`st_rdev`).
//! That `major:minor` leads to `/sys/dev/block/M:m`, a link into the sysfs tree where a
//! partition sits inside its disk's directory and carries a `partition` file, and where
//! `slaves/` and `holders/` link the layers of dm, md and similar stacks (kernel
//! `Documentation/ABI/stable/sysfs-block`). Filesystems without a block device of their own
//! in `st_dev` (btrfs subvolumes) are found through their mount source in
//! `/proc/self/mountinfo`.

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

/// Where sysfs lists every block device, partitions included, by kernel name.
pub const SYS_CLASS_BLOCK: &str = "/sys/class/block";

/// The block device behind a path, its whole disk and what that disk is built on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceChain {
    /// The block device itself (`vda1`, `dm-0`, `loop3`, `vda`).
    pub device: String,
    pub major: u32,
    pub minor: u32,
    /// Its whole disk: `vda` for `vda1`; the device itself when it is whole.
    pub disk: String,
    /// The partition number when `device` is a partition.
    pub partition: Option<u32>,
    /// Devices the disk is built directly on (`/sys/block/<disk>/slaves`; dm, md).
    pub slaves: Vec<String>,
    /// Whole disks at the bottom of the stack; just `[disk]` when it is not stacked.
    pub backing_disks: Vec<String>,
}

/// The device a path lives on (a file's filesystem) or names (a device node).
///
/// # Errors
/// The path does not exist, or nothing in sysfs or mountinfo leads to a block device
/// (tmpfs, overlay, network filesystems).
pub fn resolve(path: &Path) -> anyhow::Result<DeviceChain> {
    let meta = fs::metadata(path).with_context(|| format!("{}", path.display()))?;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    resolve_number(dev, path)
}

/// The device of a device number: a block device's own number, or the `st_dev` of a file on
/// it (what an open descriptor says, so nothing is looked up by path again). `shown` names it
/// in errors.
///
/// # Errors
/// As [`resolve`].
pub fn resolve_number(dev: u64, shown: &Path) -> anyhow::Result<DeviceChain> {
    let path = shown;
    let (major, minor) = split_dev(dev);
    if let Some(dir) = sysfs_dir_of(major, minor) {
        return chain_from_sysfs(Path::new(SYS_CLASS_BLOCK), &dir);
    }
    // st_dev is an anonymous device (btrfs subvolume, overlay, tmpfs): ask the mount table.
    let mounts = procfs::process::Process::myself()
        .and_then(|p| p.mountinfo())
        .context("reading /proc/self/mountinfo")?;
    let mount = mounts
        .into_iter()
        .find(|m| m.majmin == format!("{major}:{minor}"))
        .with_context(|| {
            format!(
                "{} is on device {major}:{minor}, which is neither a block device nor mounted",
                path.display()
            )
        })?;
    match mount.mount_source.as_deref() {
        Some(source) if source.starts_with("/dev/") && Path::new(source) != path => {
            resolve(Path::new(source))
        }
        source => anyhow::bail!(
            "{} is on a {} filesystem ({}) with no block device behind it",
            path.display(),
            mount.fs_type,
            source.unwrap_or("no source")
        ),
    }
}

/// The chain of a kernel device name (`vda`, `nvme0n1p1`, `cciss!c0d0`), or `None` when no
/// such block device exists.
#[must_use]
pub fn resolve_name(name: &str) -> Option<DeviceChain> {
    resolve_name_in(Path::new(SYS_CLASS_BLOCK), name)
}

/// [`resolve_name`] under another `class/block` directory (a test tree).
fn resolve_name_in(class_block: &Path, name: &str) -> Option<DeviceChain> {
    if name.is_empty() || name.contains('/') || name.starts_with('.') {
        return None;
    }
    let dir = fs::canonicalize(class_block.join(name)).ok()?;
    chain_from_sysfs(class_block, &dir).ok()
}

/// A device as users type it: `vda`, `/dev/vda`, or any path on a disk.
///
/// # Errors
/// A usage error naming the value when it is none of those.
pub fn resolve_arg(arg: &str) -> anyhow::Result<DeviceChain> {
    if let Some(chain) = resolve_name(arg) {
        return Ok(chain);
    }
    let path = Path::new(arg);
    if !path.exists() {
        return Err(crate::error::usage!(
            "{arg:?} is neither a block device nor an existing path; use a name from \
             /proc/diskstats (e.g. vda), /dev/NAME, or a path on a disk"
        ));
    }
    resolve(path).map_err(|e| crate::error::usage!("{arg:?}: {e:#}"))
}

/// `(major, minor)` of a `dev_t`.
#[must_use]
pub fn split_dev(dev: u64) -> (u32, u32) {
    // glibc's encoding (sys/sysmacros.h): 12 bits of major and 20 of minor, split.
    let major = ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0x0000_0fff);
    let minor = ((dev >> 12) & 0xffff_ff00) | (dev & 0x0000_00ff);
    (
        u32::try_from(major).unwrap_or(u32::MAX),
        u32::try_from(minor).unwrap_or(u32::MAX),
    )
}

/// `/sys/dev/block/M:m` resolved to the device's real sysfs directory.
fn sysfs_dir_of(major: u32, minor: u32) -> Option<PathBuf> {
    fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()
}

/// Builds the chain from a device's sysfs directory.
fn chain_from_sysfs(class_block: &Path, dir: &Path) -> anyhow::Result<DeviceChain> {
    let device = file_name(dir).context("sysfs directory without a name")?;
    let (major, minor) = read_dev_numbers(dir)
        .with_context(|| format!("{}/dev is missing or malformed", dir.display()))?;
    let partition = super::sysfs::read_attr(&dir.join("partition")).and_then(|p| p.parse().ok());
    let disk = match partition {
        Some(_) => dir
            .parent()
            .and_then(file_name)
            .unwrap_or_else(|| device.clone()),
        None => device.clone(),
    };
    let slaves = list_links_in(class_block, &disk, "slaves");
    let mut backing_disks = Vec::new();
    collect_backing_disks(class_block, &disk, &mut backing_disks, 0);
    Ok(DeviceChain {
        device,
        major,
        minor,
        disk,
        partition,
        slaves,
        backing_disks,
    })
}

/// The whole disk of a kernel device name (itself when whole), `None` when unknown.
#[must_use]
pub fn whole_disk(name: &str) -> Option<String> {
    resolve_name(name).map(|c| c.disk)
}

/// Names linked under `/sys/class/block/<name>/<kind>` (`slaves` or `holders`), sorted.
#[must_use]
pub fn list_links(name: &str, kind: &str) -> Vec<String> {
    list_links_in(Path::new(SYS_CLASS_BLOCK), name, kind)
}

fn list_links_in(class_block: &Path, name: &str, kind: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(class_block.join(name).join(kind))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Depth-first down `slaves/` to the whole disks that hold no further slaves.
fn collect_backing_disks(class_block: &Path, disk: &str, out: &mut Vec<String>, depth: usize) {
    let slaves = list_links_in(class_block, disk, "slaves");
    // Stacks are a few layers deep; the bound only guards against a sysfs loop.
    if slaves.is_empty() || depth > 16 {
        if !out.iter().any(|d| d == disk) {
            out.push(disk.to_owned());
        }
        return;
    }
    for slave in slaves {
        let slave_disk = resolve_name_in(class_block, &slave).map_or(slave, |c| c.disk);
        collect_backing_disks(class_block, &slave_disk, out, depth + 1);
    }
}

fn read_dev_numbers(dir: &Path) -> Option<(u32, u32)> {
    let text = super::sysfs::read_attr(&dir.join("dev"))?;
    let (major, minor) = text.split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

fn file_name(path: &Path) -> Option<String> {
    path.file_name()?.to_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_dev_t_like_glibc() {
        assert_eq!(split_dev(0xfe00), (254, 0));
        assert_eq!(split_dev(0x0801), (8, 1));
        // Both halves of each number in use: compare with libc's own encoding.
        for (major, minor) in [(259, 300), (4095, 1_048_575), (8, 0)] {
            let dev = nix::sys::stat::makedev(major, minor);
            assert_eq!(split_dev(dev), (major as u32, minor as u32));
        }
    }

    #[test]
    fn a_file_resolves_to_the_disk_of_its_filesystem() {
        let file = tempfile::NamedTempFile::new_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let chain = resolve(file.path()).unwrap();
        let root = resolve(Path::new("/")).unwrap();
        let meta = fs::metadata(file.path()).unwrap();
        assert_eq!((chain.major, chain.minor), split_dev(meta.dev()));
        assert!(Path::new(SYS_CLASS_BLOCK).join(&chain.disk).exists());
        assert!(chain.backing_disks.contains(&chain.disk) || !chain.slaves.is_empty());
        assert!(!root.device.is_empty());
    }

    #[test]
    fn a_device_node_names_itself_and_a_name_resolves_too() {
        let root = resolve(Path::new("/")).unwrap();
        let node = PathBuf::from("/dev").join(&root.device);
        if node.exists() {
            assert_eq!(resolve(&node).unwrap(), root);
        }
        assert_eq!(resolve_name(&root.device).unwrap(), root);
        assert_eq!(resolve_arg(&root.device).unwrap(), root);
    }

    #[test]
    fn unknown_names_are_usage_errors_naming_the_value() {
        assert_eq!(resolve_name("no-such-disk"), None);
        assert_eq!(resolve_name("../vda"), None);
        let err = resolve_arg("no-such-disk").unwrap_err();
        assert_eq!(crate::error::exit_code(&err), 2);
        assert!(
            err.to_string().starts_with("\"no-such-disk\" is neither"),
            "{err}"
        );
    }

    /// A sysfs tree in miniature: dm-0 on md0 on sda1 + sdb1 (a layout this VM's kernel
    /// cannot build: it has neither dm nor md nor partition tables).
    fn fake_sysfs() -> tempfile::TempDir {
        use std::os::unix::fs::symlink;
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let dev = |rel: &str, numbers: &str, partition: Option<&str>| {
            let dir = r.join(rel);
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("dev"), format!("{numbers}\n")).unwrap();
            if let Some(p) = partition {
                fs::write(dir.join("partition"), format!("{p}\n")).unwrap();
            }
        };
        dev("devices/pci/host0/block/sda", "8:0", None);
        dev("devices/pci/host0/block/sda/sda1", "8:1", Some("1"));
        dev("devices/pci/host1/block/sdb", "8:16", None);
        dev("devices/pci/host1/block/sdb/sdb1", "8:17", Some("1"));
        dev("devices/virtual/block/md0", "9:0", None);
        dev("devices/virtual/block/dm-0", "253:0", None);
        let class = r.join("class/block");
        fs::create_dir_all(&class).unwrap();
        for (name, target) in [
            ("sda", "devices/pci/host0/block/sda"),
            ("sda1", "devices/pci/host0/block/sda/sda1"),
            ("sdb", "devices/pci/host1/block/sdb"),
            ("sdb1", "devices/pci/host1/block/sdb/sdb1"),
            ("md0", "devices/virtual/block/md0"),
            ("dm-0", "devices/virtual/block/dm-0"),
        ] {
            symlink(r.join(target), class.join(name)).unwrap();
        }
        let slaves = |of: &str, names: &[&str]| {
            let dir = class.join(of).join("slaves");
            fs::create_dir_all(&dir).unwrap();
            for n in names {
                symlink(class.join(n), dir.join(n)).unwrap();
            }
        };
        slaves("md0", &["sda1", "sdb1"]);
        slaves("dm-0", &["md0"]);
        root
    }

    #[test]
    fn stacks_resolve_down_to_their_backing_disks() {
        let root = fake_sysfs();
        let class = root.path().join("class/block");
        let dm = resolve_name_in(&class, "dm-0").unwrap();
        assert_eq!(
            dm,
            DeviceChain {
                device: "dm-0".into(),
                major: 253,
                minor: 0,
                disk: "dm-0".into(),
                partition: None,
                slaves: vec!["md0".into()],
                backing_disks: vec!["sda".into(), "sdb".into()],
            }
        );
        let part = resolve_name_in(&class, "sdb1").unwrap();
        assert_eq!((part.disk.as_str(), part.partition), ("sdb", Some(1)));
        assert_eq!((part.major, part.minor), (8, 17));
        assert_eq!(part.backing_disks, ["sdb"]);
        assert_eq!(list_links_in(&class, "md0", "slaves"), ["sda1", "sdb1"]);
        assert_eq!(resolve_name_in(&class, "sdc"), None);
    }

    #[test]
    fn a_filesystem_without_a_block_device_says_so() {
        let err = resolve(Path::new("/proc/self")).unwrap_err();
        assert!(
            format!("{err:#}").contains("on a proc filesystem"),
            "{err:#}"
        );
    }
}
