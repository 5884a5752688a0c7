//! Block-device facts the safety checks need: who mounts a device or any of its partitions
//! (/proc/self/mountinfo), what is stacked on a device or a file (holders in
//! /sys/dev/block/M:m/holders, loop devices by /sys/block/loopN/loop/backing_file), its logical
//! block size (BLKSSZGET) and its size.

use std::collections::HashSet;
use std::fs;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use crate::pinned::FileId;

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

/// A device or file directly below a device: what a loop device reads and writes through, or a
/// slave of a device-mapper or md device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lower {
    pub bottom: Bottom,
    /// How a user knows it: `/dev/loop0`, the backing file's path.
    pub shown: String,
    /// The kernel name of a device (`loop0`, `sdb1`), for walking on down; `None` for a file.
    pub name: Option<String>,
    /// How the device above uses it: a loop device's backing ([`Relation::Backs`]: not
    /// claimed, so a mount can still take it) or a dm/md slave ([`Relation::HeldBy`]: claimed
    /// exclusively by the device above already).
    pub relation: Relation,
}

/// The storage stack as the safety rule sees it; sysfs in production, a table in tests.
pub trait Stack {
    /// Devices directly above `bottom` (for a device: above it or any of its partitions).
    fn uppers(&self, bottom: Bottom) -> Vec<Upper>;
    /// What lies directly below the device `name`: a loop device's backing file or device, a
    /// device-mapper or md device's slaves.
    fn lowers(&self, name: &str) -> Vec<Lower>;
    /// The kernel name of a device number, for walking up from it.
    fn device_number(&self, name: &str) -> Option<u64>;
    /// Mount points of the device (by kernel name) or any of its partitions.
    fn mounts(&self, name: &str) -> Vec<String>;
    /// Active swap areas (as /proc/swaps names them) on `bottom`: the file itself, or the
    /// device or any of its partitions.
    fn swaps(&self, bottom: Bottom) -> Vec<String>;
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

/// Why the block layer uses the regular file `id` (a loop device's backing file, something
/// stacked on one, a swap file), read from sysfs now; `None` when nothing does. Outputs
/// (`--json`, `--record`, fio's `--output`) are checked with it before they are written.
#[must_use]
pub fn file_in_use(id: FileId) -> Option<String> {
    in_use_reason(&SysfsStack::read(), Bottom::File(id), None)
}

/// Why writing to `bottom` must be refused, walking its stack both ways:
/// - up: it (or a partition, or its whole disk) is mounted or swap, or anything is stacked on
///   it (a loop device over it, a holder), named as a chain up to the first mount:
///   `it backs /dev/loop6, mounted at /mnt/x`. Anything stacked is refused even when nothing
///   above is mounted: a loop or device-mapper device over the data is how it is being used.
/// - down (a device named `own_name`): what it writes through (a loop device's backing file or
///   device, dm/md slaves, and on down) is checked by the same rule, leaving out the devices
///   on the way down, which are this write's own path: `it is backed by /dev/loop0, which is
///   mounted at /mnt`. A loop device does not claim what backs it, so the kernel's exclusive
///   open sees none of this.
#[must_use]
pub fn in_use_reason(stack: &impl Stack, bottom: Bottom, own_name: Option<&str>) -> Option<String> {
    let mut path = HashSet::new();
    if let Some(name) = own_name {
        path.insert(name.to_string());
    }
    if let Some(reason) = up_reason(stack, bottom, own_name, &path) {
        return Some(reason);
    }
    let name = own_name?;
    down_reason(stack, name, &mut path, 0)
}

/// Walks down from `name`: the first lower whose own stack (apart from `path`) is in use.
fn down_reason(
    stack: &impl Stack,
    name: &str,
    path: &mut HashSet<String>,
    depth: usize,
) -> Option<String> {
    if depth >= MAX_STACK_DEPTH {
        return None;
    }
    for lower in stack.lowers(name) {
        if let Some(lower_name) = &lower.name
            && !path.insert(lower_name.clone())
        {
            // A cycle: this device is on the way down already.
            continue;
        }
        let below = up_reason(stack, lower.bottom, lower.name.as_deref(), path).or_else(|| {
            let lower_name = lower.name.as_deref()?;
            down_reason(stack, lower_name, path, depth + 1)
        });
        if let Some(reason) = below {
            return Some(format!(
                "it is backed by {}, {}",
                lower.shown,
                relative(&reason)
            ));
        }
    }
    None
}

/// A reason said of a lower device: `it is mounted at /` -> `which is mounted at /`; `its disk ...` -> `whose disk ...`.
pub fn relative(reason: &str) -> String {
    if let Some(rest) = reason.strip_prefix("its ") {
        format!("whose {rest}")
    } else if let Some(rest) = reason.strip_prefix("it ") {
        format!("which {rest}")
    } else {
        reason.to_string()
    }
}

/// The upward rule for one level of the stack; devices named in `skip` (the write's own path
/// down) do not count as using it.
fn up_reason(
    stack: &impl Stack,
    bottom: Bottom,
    own_name: Option<&str>,
    skip: &HashSet<String>,
) -> Option<String> {
    if let Some(name) = own_name {
        let mounts = stack.mounts(name);
        if !mounts.is_empty() {
            return Some(format!("it is mounted at {}", mounts.join(", ")));
        }
    }
    let swaps = stack.swaps(bottom);
    if !swaps.is_empty() {
        return Some(format!("it is in use as swap ({})", swaps.join(", ")));
    }
    let others = |uppers: Vec<Upper>| -> Vec<Upper> {
        uppers
            .into_iter()
            .filter(|u| !skip.contains(&u.name))
            .collect()
    };
    if let Some(reason) = chain_reason(stack, others(stack.uppers(bottom)), skip) {
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
    chain_reason(stack, others(disk.uppers), skip)
        .map(|reason| format!("its disk /dev/{}: {reason}", disk.name))
}

/// The first chain up from `uppers` that ends at a mount, or else the first chain, in words.
fn chain_reason(stack: &impl Stack, uppers: Vec<Upper>, skip: &HashSet<String>) -> Option<String> {
    let mut chains: Vec<Vec<Upper>> = uppers.into_iter().map(|u| vec![u]).collect();
    let mut first_chain: Option<Vec<Upper>> = None;
    let mut seen = skip.clone();
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

/// The devices below `name` that nothing claims while this run writes through them: every
/// loop device's backing device on the way down, to the bottom (a loop device does not claim
/// what backs it; a dm/md slave is claimed by its device already, and is walked through).
/// Not a partition's disk: a write to a partition does not land on its siblings.
#[must_use]
pub fn unclaimed_lowers(stack: &impl Stack, name: &str) -> Vec<Lower> {
    let mut out = Vec::new();
    let mut seen = HashSet::from([name.to_string()]);
    let mut next = vec![(name.to_string(), 0usize)];
    while let Some((name, depth)) = next.pop() {
        if depth >= MAX_STACK_DEPTH {
            continue;
        }
        for lower in stack.lowers(&name) {
            let Some(lower_name) = lower.name.clone() else {
                continue;
            };
            if !seen.insert(lower_name.clone()) {
                continue;
            }
            if lower.relation == Relation::Backs && matches!(lower.bottom, Bottom::Device(_)) {
                out.push(lower);
            }
            next.push((lower_name, depth + 1));
        }
    }
    out
}

/// Opens the device `lower` names with `O_EXCL` and keeps it open: while the descriptor lives,
/// no mount (in any namespace), swapon or other exclusive opener can take the device, so a
/// mount made after the safety check fails with EBUSY instead of winning the race.
///
/// # Errors
/// The open's error: `EBUSY` when something holds the device exclusively already.
pub fn hold_exclusively(lower: &Lower) -> std::io::Result<std::os::fd::OwnedFd> {
    let (Bottom::Device(rdev), Some(name)) = (lower.bottom, lower.name.as_deref()) else {
        return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
    };
    // `/dev/NAME`, else udev's `/dev/block/M:m`; whichever it is must be this device.
    for node in [
        format!("/dev/{name}"),
        format!("/dev/block/{}", dev_id(rdev)),
    ] {
        let Ok(meta) = fs::metadata(&node) else {
            continue;
        };
        if !meta.file_type().is_block_device() || meta.rdev() != rdev {
            continue;
        }
        let file = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_EXCL | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(&node)?;
        // The node may have been replaced between the look and the open.
        if file.metadata()?.rdev() != rdev {
            return Err(std::io::Error::other(format!(
                "{node} changed while being opened"
            )));
        }
        return Ok(file.into());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        format!("no device node for {} ({})", lower.shown, dev_id(rdev)),
    ))
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

/// The names in `/proc/swaps` (its first column, with the kernel's octal escapes of space,
/// tab, newline and backslash undone); the header line is skipped.
#[must_use]
pub fn swap_names(swaps: &str) -> Vec<String> {
    swaps
        .lines()
        .skip(1)
        .filter_map(|line| line.split([' ', '\t']).next())
        .filter(|name| !name.is_empty())
        .map(unescape_octal)
        .collect()
}

/// Undoes the kernel's `\ooo` escapes (`seq_path`'s of " \t\n\\") in a /proc name.
fn unescape_octal(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let code = bytes.get(i + 1..i + 4).and_then(|digits| {
            digits
                .iter()
                .all(|d| (b'0'..=b'7').contains(d))
                .then(|| u8::from_str_radix(std::str::from_utf8(digits).ok()?, 8).ok())
                .flatten()
        });
        match (bytes[i], code) {
            (b'\\', Some(byte)) => {
                out.push(byte);
                i += 4;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What `path` is, as the stack compares it: a device number or a file identity.
fn bottom_of(path: &str) -> Option<Bottom> {
    let meta = fs::metadata(path).ok()?;
    Some(if meta.file_type().is_block_device() {
        Bottom::Device(meta.rdev())
    } else {
        Bottom::File(FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    })
}

/// A bound loop device: its kernel name, what backs it and the backing path sysfs gives.
struct Loop {
    name: String,
    backing: Bottom,
    backing_path: String,
}

/// One mount namespace's mount table.
struct MountTable {
    /// `None` for diskdash's own namespace; else whose it is, as a refusal names it:
    /// `the mount namespace of pid 4242 (sleep)`.
    owner: Option<String>,
    mountinfo: String,
}

/// The mount table of every mount namespace on the machine, each read once through one of its
/// processes (`/proc/PID/mountinfo`), deduplicated by the namespace's inode
/// (`/proc/PID/ns/mnt`); diskdash's own first. A file system a container (or `unshare -m`)
/// mounts is invisible in `/proc/self/mountinfo`, and `--allow-destructive` never consents to
/// writing under it.
fn mount_tables() -> Vec<MountTable> {
    let ns_of = |pid: &str| -> Option<u64> {
        fs::metadata(format!("/proc/{pid}/ns/mnt"))
            .ok()
            .map(|m| m.ino())
    };
    let own_ns = ns_of("self");
    let mut seen: HashSet<u64> = own_ns.into_iter().collect();
    let mut tables = vec![MountTable {
        owner: None,
        mountinfo: fs::read_to_string("/proc/self/mountinfo").unwrap_or_default(),
    }];
    let mut pids: Vec<u32> = fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    pids.sort_unstable();
    for pid in pids {
        let pid = pid.to_string();
        // A process that exits meanwhile, or one whose namespace cannot be read, is skipped.
        let Some(ns) = ns_of(&pid) else { continue };
        if !seen.insert(ns) {
            continue;
        }
        let Ok(mountinfo) = fs::read_to_string(format!("/proc/{pid}/mountinfo")) else {
            continue;
        };
        let comm = fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        tables.push(MountTable {
            owner: Some(format!(
                "the mount namespace of pid {pid} ({})",
                crate::text::escape(comm.trim_end())
            )),
            mountinfo,
        });
    }
    tables
}

/// Mount points of any of `ids` in every table; a mount outside diskdash's own namespace says
/// whose namespace it is in.
fn mounts_in(tables: &[MountTable], ids: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for table in tables {
        for point in mounts_of(&table.mountinfo, ids) {
            let shown = match &table.owner {
                None => point,
                Some(owner) => format!("{point} in {owner}"),
            };
            if !out.contains(&shown) {
                out.push(shown);
            }
        }
    }
    out
}

/// The stack read from sysfs, mountinfo and /proc/swaps once.
pub struct SysfsStack {
    mount_tables: Vec<MountTable>,
    loops: Vec<Loop>,
    /// Active swap areas: their /proc/swaps name and what they are.
    swaps: Vec<(String, Bottom)>,
}

impl SysfsStack {
    #[must_use]
    pub fn read() -> Self {
        let mount_tables = mount_tables();
        let mut loops = Vec::new();
        for entry in fs::read_dir("/sys/block").into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(backing) = fs::read_to_string(entry.path().join("loop/backing_file")) else {
                continue;
            };
            let backing_path = backing.trim_end_matches('\n').to_string();
            // The kernel's own identity of the backing file: it holds across hard links,
            // deleted names and other mount namespaces, where the name in sysfs does not.
            // With no device node to ask (a container's /dev) the name is all there is; a
            // deleted backing file ("... (deleted)") has no name left to compare.
            let Some(backing) = loop_backing(&name).or_else(|| bottom_of(&backing_path)) else {
                continue;
            };
            loops.push(Loop {
                name,
                backing,
                backing_path,
            });
        }
        let swaps = swap_names(&fs::read_to_string("/proc/swaps").unwrap_or_default())
            .into_iter()
            .filter_map(|name| Some((name.clone(), bottom_of(&name)?)))
            .collect();
        Self {
            mount_tables,
            loops,
            swaps,
        }
    }

    /// `/dev/NAME` of a device number, by its kernel name.
    fn shown_device(rdev: u64) -> (String, String) {
        let name = device_and_partitions(rdev)
            .into_iter()
            .next()
            .map_or_else(|| dev_id(rdev), |(_, name)| name);
        (format!("/dev/{name}"), name)
    }
}

/// `major:minor` of a device and its partitions; none for a file.
fn partition_ids(bottom: Bottom) -> Vec<String> {
    match bottom {
        Bottom::Device(rdev) => device_and_partitions(rdev)
            .into_iter()
            .map(|(id, _)| id)
            .collect(),
        Bottom::File(_) => Vec::new(),
    }
}

/// Whether `what` (a loop's backing, a swap area) is `bottom` itself, or for a device any of
/// its partitions (`ids`, from [`partition_ids`]).
fn lies_on(what: Bottom, bottom: Bottom, ids: &[String]) -> bool {
    match (bottom, what) {
        (Bottom::File(a), Bottom::File(b)) => a == b,
        (Bottom::Device(_), Bottom::Device(rdev)) => ids.contains(&dev_id(rdev)),
        _ => false,
    }
}

impl Stack for SysfsStack {
    fn uppers(&self, bottom: Bottom) -> Vec<Upper> {
        let ids = partition_ids(bottom);
        let mut uppers: Vec<Upper> = holders_of(&ids)
            .into_iter()
            .map(|name| Upper {
                name,
                relation: Relation::HeldBy,
            })
            .collect();
        for lo in &self.loops {
            if lies_on(lo.backing, bottom, &ids) {
                uppers.push(Upper {
                    name: lo.name.clone(),
                    relation: Relation::Backs,
                });
            }
        }
        uppers
    }

    fn lowers(&self, name: &str) -> Vec<Lower> {
        let mut lowers: Vec<Lower> = self
            .loops
            .iter()
            .filter(|lo| lo.name == name)
            .map(|lo| match lo.backing {
                Bottom::Device(rdev) => {
                    let (shown, name) = Self::shown_device(rdev);
                    Lower {
                        bottom: lo.backing,
                        shown,
                        name: Some(name),
                        relation: Relation::Backs,
                    }
                }
                Bottom::File(_) => Lower {
                    bottom: lo.backing,
                    shown: lo.backing_path.clone(),
                    name: None,
                    relation: Relation::Backs,
                },
            })
            .collect();
        // device-mapper and md list what they are built on as slaves.
        let slaves = Path::new("/sys/class/block").join(name).join("slaves");
        for entry in fs::read_dir(slaves).into_iter().flatten().flatten() {
            let slave = entry.file_name().to_string_lossy().into_owned();
            if let Some(rdev) = self.device_number(&slave) {
                lowers.push(Lower {
                    bottom: Bottom::Device(rdev),
                    shown: format!("/dev/{slave}"),
                    name: Some(slave),
                    relation: Relation::HeldBy,
                });
            }
        }
        lowers
    }

    fn swaps(&self, bottom: Bottom) -> Vec<String> {
        let ids = partition_ids(bottom);
        self.swaps
            .iter()
            .filter(|(_, swap)| lies_on(*swap, bottom, &ids))
            .map(|(name, _)| name.clone())
            .collect()
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
                .filter(|lo| lo.backing == Bottom::Device(disk_rdev))
                .map(|lo| Upper {
                    name: lo.name.clone(),
                    relation: Relation::Backs,
                }),
        );
        Some(WholeDisk {
            mounts: mounts_in(&self.mount_tables, &[id]),
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
        mounts_in(&self.mount_tables, &ids)
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
                    30 => vec![up("dm-1", Relation::HeldBy)],
                    _ => Vec::new(),
                },
                Bottom::File(id) if id.ino == 42 => vec![up("loop7", Relation::Backs)],
                Bottom::File(id) if id.ino == 44 => vec![up("loop22", Relation::Backs)],
                Bottom::File(_) => Vec::new(),
            }
        }

        fn lowers(&self, name: &str) -> Vec<Lower> {
            let lower = |minor, name: &str, relation| Lower {
                bottom: Bottom::Device(libc::makedev(if minor == 1 { 8 } else { 7 }, minor)),
                shown: format!("/dev/{name}"),
                name: Some(name.into()),
                relation,
            };
            let device = |minor, name: &str| lower(minor, name, Relation::Backs);
            let file = |ino, shown: &str| Lower {
                bottom: Bottom::File(FileId { dev: 1, ino }),
                shown: shown.into(),
                name: None,
                relation: Relation::Backs,
            };
            match name {
                "loop20" => vec![device(6, "loop6")],
                "loop21" => vec![file(42, "/img")],
                "loop22" => vec![file(44, "/img2")],
                "dm-1" => vec![lower(30, "sdc", Relation::HeldBy)],
                "loop23" => vec![device(31, "sdd")],
                "loop24" => vec![device(25, "loop25")],
                "loop25" => vec![device(1, "sda1")],
                "loop26" => vec![device(27, "loop27")],
                "loop27" => vec![device(26, "loop26")],
                _ => Vec::new(),
            }
        }

        fn swaps(&self, bottom: Bottom) -> Vec<String> {
            match bottom {
                Bottom::Device(rdev) if libc::minor(rdev) == 31 => vec!["/dev/sdd".into()],
                Bottom::File(id) if id.ino == 45 => vec!["/swapfile".into()],
                _ => Vec::new(),
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
    fn the_devices_to_hold_are_the_loop_backings_all_the_way_down() {
        let names = |name| -> Vec<String> {
            unclaimed_lowers(&Table, name)
                .into_iter()
                .filter_map(|l| l.name)
                .collect()
        };
        assert_eq!(names("loop20"), ["loop6"]);
        assert_eq!(names("loop24"), ["loop25", "sda1"], "to the bottom");
        assert!(names("loop21").is_empty(), "a backing file is not a device");
        assert!(
            names("dm-1").is_empty(),
            "a dm slave is claimed by dm already"
        );
        assert_eq!(names("loop26"), ["loop27"], "a cycle ends");
        assert!(names("sda").is_empty());
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

    #[test]
    fn the_stack_is_walked_down_too() {
        let dev = |minor| Bottom::Device(libc::makedev(7, minor));
        let reason = |minor, name| in_use_reason(&Table, dev(minor), Some(name));
        // A loop device over a mounted device.
        assert_eq!(
            reason(20, "loop20").as_deref(),
            Some("it is backed by /dev/loop6, which is mounted at /mnt/x")
        );
        // A loop device over a file that backs another loop device too.
        assert_eq!(
            reason(21, "loop21").as_deref(),
            Some("it is backed by /img, which backs /dev/loop7")
        );
        // Its own path down does not count: a file backing only this loop device, a disk held
        // only by this device-mapper device.
        assert_eq!(reason(22, "loop22"), None);
        assert_eq!(reason(1, "dm-1"), None);
        assert_eq!(
            reason(23, "loop23").as_deref(),
            Some("it is backed by /dev/sdd, which is in use as swap (/dev/sdd)")
        );
        // Two levels down, to a partition whose disk is mounted.
        assert_eq!(
            reason(24, "loop24").as_deref(),
            Some(
                "it is backed by /dev/loop25, which is backed by /dev/sda1, whose disk /dev/sda \
                 is mounted at /"
            )
        );
        // A cycle below ends.
        assert_eq!(reason(26, "loop26"), None);
        let swapfile = Bottom::File(FileId { dev: 1, ino: 45 });
        assert_eq!(
            in_use_reason(&Table, swapfile, None).as_deref(),
            Some("it is in use as swap (/swapfile)")
        );
    }

    #[test]
    fn swap_names_are_unescaped() {
        let swaps = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority
/dev/zram0                              partition\t8388604\t\t0\t\t100
/var/my\\040swap\\134file                   file\t\t1048572\t\t0\t\t-2
";
        assert_eq!(
            swap_names(swaps),
            vec!["/dev/zram0".to_string(), "/var/my swap\\file".to_string()]
        );
        assert!(swap_names("Filename Type Size Used Priority\n").is_empty());
        assert_eq!(unescape_octal("a\\0b\\9999\\"), "a\\0b\\9999\\");
    }

    proptest::proptest! {
        /// Whatever /proc/swaps holds, the reader ends, and a name escaped as the kernel does
        /// comes back as it was.
        #[test]
        fn swap_names_round_trip(name in "/[a-z \t\\\\]{0,20}", junk in ".{0,200}") {
            let escaped: String = name
                .chars()
                .map(|c| match c {
                    ' ' => "\\040".to_string(),
                    '\t' => "\\011".to_string(),
                    '\\' => "\\134".to_string(),
                    c => c.to_string(),
                })
                .collect();
            let text = format!("Filename Type\n{escaped} file 4 0 -2\n{junk}");
            let names = swap_names(&text);
            proptest::prop_assert_eq!(names.first(), Some(&name));
        }
    }
}
