//! What the tracer can say of a disk, from sysfs: a request-based disk (blk-mq: an `mq/`
//! directory; virtio, SCSI, NVMe namespaces, loop, dm-multipath's request mode) passes every
//! request tracepoint; a bio-based one (device-mapper and LVM, md, zram, an NVMe multipath
//! head: a queue without `mq/`) only the bio's; a name that is no disk, nothing.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// How much of a disk's time the tracer sees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Every request's split: waiting for a request, the scheduler, the device, the whole.
    Request,
    /// The bio's whole time (`block_bio_queue` -> `block_bio_complete`).
    Bio,
    /// Not traced.
    #[default]
    None,
}

impl Scope {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Request => "request",
            Self::Bio => "bio",
            Self::None => "none",
        }
    }
}

/// The scope of whole disk `disk` under `sys_block` (`/sys/block`).
#[must_use]
pub fn of_disk(sys_block: &Path, disk: &str) -> Scope {
    let dir = sys_block.join(disk);
    if !dir.join("queue").is_dir() {
        return Scope::None;
    }
    if dir.join("mq").is_dir() {
        Scope::Request
    } else {
        Scope::Bio
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sysfs tree with `dirs` under it.
    fn tree(dirs: &[&str]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        for dir in dirs {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        std::fs::write(
            root.path().join("vda/queue/scheduler"),
            "[mq-deadline] none\n",
        )
        .ok();
        root
    }

    #[test]
    fn each_kind_of_device_gets_its_scope() {
        let root = tree(&[
            // virtio-blk and loop: blk-mq.
            "vda/queue",
            "vda/mq/0",
            "loop3/queue",
            "loop3/mq/0",
            // An NVMe namespace behind a multipath head: the path is blk-mq, the head is not.
            "nvme0c0n1/queue",
            "nvme0c0n1/mq/0",
            "nvme0n1/queue",
            // device-mapper (LVM), md RAID, zram: bio-based.
            "dm-0/queue",
            "dm-0/dm",
            "md0/queue",
            "md0/md",
            "zram0/queue",
            // A name without a queue is no disk.
            "vda1",
        ]);
        let scope = |name| of_disk(root.path(), name);
        assert_eq!(scope("vda"), Scope::Request);
        assert_eq!(scope("loop3"), Scope::Request);
        assert_eq!(scope("nvme0c0n1"), Scope::Request);
        assert_eq!(scope("nvme0n1"), Scope::Bio);
        assert_eq!(scope("dm-0"), Scope::Bio);
        assert_eq!(scope("md0"), Scope::Bio);
        assert_eq!(scope("zram0"), Scope::Bio);
        assert_eq!(scope("vda1"), Scope::None);
        assert_eq!(scope("sdz"), Scope::None);
    }
}
