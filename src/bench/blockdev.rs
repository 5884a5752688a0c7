//! Block-device facts the safety checks need: who holds or mounts a device or any of its
//! partitions (/proc/self/mountinfo, /sys/dev/block/M:m/{holders,<partition>}), its logical
//! block size (BLKSSZGET) and its size.

use std::fs;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::path::Path;

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

/// Why writing to this device must be refused, if it is mounted or held.
#[must_use]
pub fn in_use_reason(rdev: u64) -> Option<String> {
    let devices = device_and_partitions(rdev);
    let ids: Vec<String> = devices.iter().map(|(id, _)| id.clone()).collect();
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let mounts = mounts_of(&mountinfo, &ids);
    if !mounts.is_empty() {
        return Some(format!("it is mounted at {}", mounts.join(", ")));
    }
    let holders = holders_of(&ids);
    if !holders.is_empty() {
        return Some(format!("it is held by {}", holders.join(", ")));
    }
    None
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
}
