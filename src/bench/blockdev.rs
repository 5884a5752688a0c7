//! Block-device facts the safety checks need: who mounts a device or any of its partitions
//! (/proc/self/mountinfo), what is stacked on a device or a file (holders in
//! /sys/dev/block/M:m/holders, loop devices by /sys/block/loopN/loop/backing_file), its logical
//! block size (BLKSSZGET) and its size.

use std::fs;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use crate::bench::pinned::FileId;

/// `major:minor` of a device number.
#[must_use]
pub fn dev_id(rdev: u64) -> String {
    format!("{}:{}", libc::major(rdev), libc::minor(rdev))
}

/// The device and its partitions, as `major:minor` ids, with their kernel names.
#[must_use]
pub fn device_and_partitions(rdev: u64) -> Vec<(String, String)> {
    let id = dev_id(rdev);
    let sys = Path::new("/sys/dev/block").join(&id);
    let name = fs::canonicalize(&sys)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| id.clone());
    let mut out = vec![(id, name)];
    if let Ok(entries) = fs::read_dir(&sys) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.join("partition").exists()
                && let Ok(dev) = fs::read_to_string(path.join("dev"))
            {
                out.push((
                    dev.trim().to_string(),
                    entry.file_name().to_string_lossy().into_owned(),
                ));
            }
        }
    }
    out
}

/// Mount points of any of `ids` (`major:minor`), parsed from mountinfo text.
#[must_use]
pub fn mounts_of(mountinfo: &str, ids: &[String]) -> Vec<String> {
    mountinfo
        .lines()
        .filter_map(|line| {
            // proc(5): mount ID, parent ID, major:minor, root, mount point, ...
            let mut fields = line.split(' ');
            let id = fields.nth(2)?;
            let mount_point = fields.nth(1)?;
            ids.iter()
                .any(|wanted| wanted == id)
                .then(|| mount_point.replace("\\040", " "))
        })
        .collect()
}

/// Holders (device-mapper, md, ...) of the device or its partitions.
#[must_use]
pub fn holders_of(ids: &[String]) -> Vec<String> {
    let mut holders = Vec::new();
    for id in ids {
        if let Ok(entries) = fs::read_dir(Path::new("/sys/dev/block").join(id).join("holders")) {
            holders.extend(
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned()),
            );
        }
    }
    holders
}

/// What lies under a write: a block device (by number) or a regular file (by identity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bottom {
    Device(u64),
    File(FileId),
}

/// How a device sits on the one below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// A loop device whose backing file is the one below.
    Backs,
    /// A holder in sysfs (device-mapper, md, bcache, ...).
    HeldBy,
}

/// A device directly above another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upper {
    /// Kernel name (`loop6`, `dm-0`).
    pub name: String,
    pub relation: Relation,
}

/// The storage stack as the safety rule sees it; sysfs in production, a table in tests.
pub trait Stack {
    /// Devices directly above `bottom` (for a device: above it or any of its partitions).
    fn uppers(&self, bottom: Bottom) -> Vec<Upper>;
    /// The kernel name of a device number, for walking up from it.
    fn device_number(&self, name: &str) -> Option<u64>;
    /// Mount points of the device (by kernel name) or any of its partitions.
    fn mounts(&self, name: &str) -> Vec<String>;
    /// For a partition: its whole disk's name, its mount points (of the whole disk itself, not
    /// of the other partitions) and what is stacked on the whole disk itself.
    fn whole_disk(&self, partition: u64) -> Option<WholeDisk>;
}

/// The disk a partition is part of, and what uses that disk as a whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WholeDisk {
    pub name: String,
    pub mounts: Vec<String>,
    pub uppers: Vec<Upper>,
}

/// Why writing to `bottom` must be refused: it (or a partition) is mounted, or anything is
/// stacked on it (a loop device over it, a holder), named as a chain up to the first mount:
/// `it backs /dev/loop6, mounted at /mnt/x`. Anything stacked is refused even when nothing
/// above is mounted: a loop or device-mapper device over the data is how it is being used.
#[must_use]
pub fn in_use_reason(stack: &impl Stack, bottom: Bottom, own_name: Option<&str>) -> Option<String> {
    if let Some(name) = own_name {
        let mounts = stack.mounts(name);
        if !mounts.is_empty() {
            return Some(format!("it is mounted at {}", mounts.join(", ")));
        }
    }
    if let Some(reason) = chain_reason(stack, stack.uppers(bottom)) {
        return Some(reason);
    }
    // A partition is also overwritten by whatever writes its whole disk (a loop device over the
    // disk, a filesystem on the disk itself), and loop devices do not claim what backs them.
    let Bottom::Device(rdev) = bottom else {
        return None;
    };
    let disk = stack.whole_disk(rdev)?;
    if !disk.mounts.is_empty() {
        return Some(format!(
            "its disk /dev/{} is mounted at {}",
            disk.name,
            disk.mounts.join(", ")
        ));
    }
    chain_reason(stack, disk.uppers).map(|reason| format!("its disk /dev/{}: {reason}", disk.name))
}

/// The first chain up from `uppers` that ends at a mount, or else the first chain, in words.
fn chain_reason(stack: &impl Stack, uppers: Vec<Upper>) -> Option<String> {
    let mut chains: Vec<Vec<Upper>> = uppers.into_iter().map(|u| vec![u]).collect();
    let mut first_chain: Option<Vec<Upper>> = None;
    let mut seen = std::collections::HashSet::new();
    // Breadth first, bounded: the first chain that ends at a mount is the one to name.
    while let Some(chain) = (!chains.is_empty()).then(|| chains.remove(0)) {
        let top = chain.last().expect("chains are never empty");
        let mounts = stack.mounts(&top.name);
        if !mounts.is_empty() {
            return Some(format!(
                "{}, mounted at {}",
                describe_chain(&chain),
                mounts.join(", ")
            ));
        }
        first_chain.get_or_insert_with(|| chain.clone());
        if chain.len() >= MAX_STACK_DEPTH || !seen.insert(top.name.clone()) {
            continue;
        }
        if let Some(rdev) = stack.device_number(&top.name) {
            for upper in stack.uppers(Bottom::Device(rdev)) {
                let mut longer = chain.clone();
                longer.push(upper);
                chains.push(longer);
            }
        }
    }
    first_chain.map(|chain| describe_chain(&chain))
}

/// Stacks deeper than this are not followed further (a loop in sysfs cannot go on forever).
const MAX_STACK_DEPTH: usize = 16;

fn describe_chain(chain: &[Upper]) -> String {
    let mut text = String::from("it");
    for (i, upper) in chain.iter().enumerate() {
        let which = if i == 0 { " " } else { ", which " };
        let verb = match upper.relation {
            Relation::Backs => "backs",
            Relation::HeldBy => "is held by",
        };
        text.push_str(&format!("{which}{verb} /dev/{}", upper.name));
    }
    text
}

/// `struct loop_info64` of linux/loop.h, as `LOOP_GET_STATUS64` fills it.
#[repr(C)]
struct LoopInfo64 {
    lo_device: u64,
    lo_inode: u64,
    lo_rdevice: u64,
    lo_offset: u64,
    lo_sizelimit: u64,
    lo_number: u32,
    lo_encrypt_type: u32,
    lo_encrypt_key_size: u32,
    lo_flags: u32,
    lo_file_name: [u8; 64],
    lo_crypt_name: [u8; 64],
    lo_encrypt_key: [u8; 32],
    lo_init: [u64; 2],
}

const LOOP_GET_STATUS64: libc::c_ulong = 0x4C05;

/// What backs the loop device `name`, as the kernel identifies it (device and inode of the
/// backing file, or the backing block device's number); `None` when `/dev/NAME` cannot be asked.
fn loop_backing(name: &str) -> Option<Bottom> {
    let node = Path::new("/dev").join(name);
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(&node)
        .ok()?;
    if !file.metadata().ok()?.file_type().is_block_device() {
        return None;
    }
    // SAFETY: LoopInfo64 is plain data; zeroed is a valid value.
    let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
    // SAFETY: LOOP_GET_STATUS64 writes one struct loop_info64 through the pointer, which points
    // to a live value of that layout.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), LOOP_GET_STATUS64, &raw mut info) };
    if rc < 0 {
        return None;
    }
    Some(if info.lo_rdevice != 0 {
        Bottom::Device(info.lo_rdevice)
    } else {
        Bottom::File(FileId {
            dev: info.lo_device,
            ino: info.lo_inode,
        })
    })
}

/// The stack read from sysfs and mountinfo once.
pub struct SysfsStack {
    mountinfo: String,
    /// Bound loop devices and what backs them.
    loops: Vec<(String, Bottom)>,
}

impl SysfsStack {
    #[must_use]
    pub fn read() -> Self {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        let mut loops = Vec::new();
        for entry in fs::read_dir("/sys/block").into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(backing) = fs::read_to_string(entry.path().join("loop/backing_file")) else {
                continue;
            };
            // The kernel's own identity of the backing file: it holds across hard links,
            // deleted names and other mount namespaces, where the name in sysfs does not.
            if let Some(bottom) = loop_backing(&name) {
                loops.push((name, bottom));
                continue;
            }
            // No device node to ask (a container's /dev): the name is all there is. A deleted
            // backing file ("... (deleted)") has no name left to compare.
            let Ok(meta) = fs::metadata(backing.trim_end_matches('\n')) else {
                continue;
            };
            let bottom = if meta.file_type().is_block_device() {
                Bottom::Device(meta.rdev())
            } else {
                Bottom::File(FileId {
                    dev: meta.dev(),
                    ino: meta.ino(),
                })
            };
            loops.push((name, bottom));
        }
        Self { mountinfo, loops }
    }
}

impl Stack for SysfsStack {
    fn uppers(&self, bottom: Bottom) -> Vec<Upper> {
        let ids: Vec<String> = match bottom {
            Bottom::Device(rdev) => device_and_partitions(rdev)
                .into_iter()
                .map(|(id, _)| id)
                .collect(),
            Bottom::File(_) => Vec::new(),
        };
        let mut uppers: Vec<Upper> = holders_of(&ids)
            .into_iter()
            .map(|name| Upper {
                name,
                relation: Relation::HeldBy,
            })
            .collect();
        for (name, backing) in &self.loops {
            let over = match (bottom, backing) {
                (Bottom::File(a), Bottom::File(b)) => a == *b,
                (Bottom::Device(_), Bottom::Device(rdev)) => ids.contains(&dev_id(*rdev)),
                _ => false,
            };
            if over {
                uppers.push(Upper {
                    name: name.clone(),
                    relation: Relation::Backs,
                });
            }
        }
        uppers
    }

    fn device_number(&self, name: &str) -> Option<u64> {
        let dev = fs::read_to_string(Path::new("/sys/class/block").join(name).join("dev")).ok()?;
        let (major, minor) = dev.trim().split_once(':')?;
        Some(libc::makedev(major.parse().ok()?, minor.parse().ok()?))
    }

    fn whole_disk(&self, partition: u64) -> Option<WholeDisk> {
        let sys = Path::new("/sys/dev/block").join(dev_id(partition));
        if !sys.join("partition").exists() {
            return None;
        }
        // /sys/dev/block/M:m of a partition is a directory inside its disk's.
        let disk_dir = fs::canonicalize(&sys).ok()?.parent()?.to_path_buf();
        let name = disk_dir.file_name()?.to_string_lossy().into_owned();
        let disk_rdev = self.device_number(&name)?;
        let id = dev_id(disk_rdev);
        let mut uppers: Vec<Upper> = holders_of(std::slice::from_ref(&id))
            .into_iter()
            .map(|name| Upper {
                name,
                relation: Relation::HeldBy,
            })
            .collect();
        uppers.extend(
            self.loops
                .iter()
                .filter(|(_, backing)| *backing == Bottom::Device(disk_rdev))
                .map(|(name, _)| Upper {
                    name: name.clone(),
                    relation: Relation::Backs,
                }),
        );
        Some(WholeDisk {
            mounts: mounts_of(&self.mountinfo, &[id]),
            name,
            uppers,
        })
    }

    fn mounts(&self, name: &str) -> Vec<String> {
        let Some(rdev) = self.device_number(name) else {
            return Vec::new();
        };
        let ids: Vec<String> = device_and_partitions(rdev)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        mounts_of(&self.mountinfo, &ids)
    }
}

/// Logical block size (BLKSSZGET).
pub fn logical_block_bytes(fd: BorrowedFd<'_>) -> std::io::Result<u32> {
    let mut size: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int through the pointer, which points to a live c_int.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), libc::BLKSSZGET, &raw mut size) };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(u32::try_from(size).unwrap_or(512))
}

/// Size in bytes (seeking to the end works for block devices).
pub fn size_bytes(fd: BorrowedFd<'_>) -> std::io::Result<u64> {
    // SAFETY: lseek has no memory-safety preconditions.
    let end = unsafe { libc::lseek(fd.as_raw_fd(), 0, libc::SEEK_END) };
    if end < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(u64::try_from(end).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mounts_are_found_by_device_id() {
        let mountinfo = "\
22 1 253:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
90 22 7:3 / /mnt/my\\040disk rw,relatime shared:50 - ext4 /dev/loop3 rw
91 22 7:4 / /mnt/other rw - ext4 /dev/loop4 rw";
        assert_eq!(mounts_of(mountinfo, &["7:3".into()]), vec!["/mnt/my disk"]);
        assert_eq!(
            mounts_of(mountinfo, &["253:0".into(), "7:4".into()]),
            vec!["/", "/mnt/other"]
        );
        assert!(mounts_of(mountinfo, &["8:0".into()]).is_empty());
        assert_eq!(dev_id(libc::makedev(7, 3)), "7:3");
    }

    /// loop5 -> loop6 -> (mounted at /mnt/x); sdb held by dm-0, nothing mounted; a file
    /// backing loop7; a cycle loop8 <-> loop9.
    struct Table;

    impl Stack for Table {
        fn uppers(&self, bottom: Bottom) -> Vec<Upper> {
            let up = |name: &str, relation| Upper {
                name: name.into(),
                relation,
            };
            match bottom {
                Bottom::Device(rdev) => match libc::minor(rdev) {
                    5 => vec![up("loop6", Relation::Backs)],
                    16 => vec![up("dm-0", Relation::HeldBy)],
                    8 => vec![up("loop9", Relation::Backs)],
                    9 => vec![up("loop8", Relation::Backs)],
                    _ => Vec::new(),
                },
                Bottom::File(id) if id.ino == 42 => vec![up("loop7", Relation::Backs)],
                Bottom::File(_) => Vec::new(),
            }
        }

        fn device_number(&self, name: &str) -> Option<u64> {
            let minor = match name {
                "loop6" => 6,
                "dm-0" => 0,
                "loop7" => 7,
                "loop8" => 8,
                "loop9" => 9,
                _ => return None,
            };
            Some(libc::makedev(7, minor))
        }

        fn whole_disk(&self, partition: u64) -> Option<WholeDisk> {
            // 8:1 is a partition of sda, mounted as a whole; 8:17 of sdb, which loop9 backs.
            match (libc::major(partition), libc::minor(partition)) {
                (8, 1) => Some(WholeDisk {
                    name: "sda".into(),
                    mounts: vec!["/".into()],
                    uppers: Vec::new(),
                }),
                (8, 17) => Some(WholeDisk {
                    name: "sdb".into(),
                    mounts: Vec::new(),
                    uppers: vec![Upper {
                        name: "loop6".into(),
                        relation: Relation::Backs,
                    }],
                }),
                _ => None,
            }
        }

        fn mounts(&self, name: &str) -> Vec<String> {
            match name {
                "loop6" => vec!["/mnt/x".into()],
                "sda" => vec!["/".into()],
                _ => Vec::new(),
            }
        }
    }

    #[test]
    fn the_chain_up_to_a_mount_is_named() {
        let dev = |minor| Bottom::Device(libc::makedev(7, minor));
        assert_eq!(
            in_use_reason(&Table, dev(5), Some("loop5")).as_deref(),
            Some("it backs /dev/loop6, mounted at /mnt/x")
        );
        assert_eq!(
            in_use_reason(&Table, dev(1), Some("sda")).as_deref(),
            Some("it is mounted at /")
        );
        assert_eq!(
            in_use_reason(&Table, dev(16), Some("sdb")).as_deref(),
            Some("it is held by /dev/dm-0")
        );
        let file = |ino| Bottom::File(FileId { dev: 1, ino });
        assert_eq!(
            in_use_reason(&Table, file(42), None).as_deref(),
            Some("it backs /dev/loop7")
        );
        assert_eq!(in_use_reason(&Table, file(43), None), None);
        assert_eq!(in_use_reason(&Table, dev(3), Some("loop3")), None);
        // Partitions answer for their whole disk too.
        let part = |minor| Bottom::Device(libc::makedev(8, minor));
        assert_eq!(
            in_use_reason(&Table, part(1), Some("sda1")).as_deref(),
            Some("its disk /dev/sda is mounted at /")
        );
        assert_eq!(
            in_use_reason(&Table, part(17), Some("sdb1")).as_deref(),
            Some("its disk /dev/sdb: it backs /dev/loop6, mounted at /mnt/x")
        );
        // A cycle ends: the first link is named, nothing loops forever.
        assert_eq!(
            in_use_reason(&Table, dev(8), Some("loop8")).as_deref(),
            Some("it backs /dev/loop9")
        );
    }
}
