//! Text layout of `diskdash info`: one block per disk, a label column and values; absent
//! attributes print as `absent`.

use std::fmt::Write as _;

use crate::monitor::info::DiskInfo;
use crate::monitor::sysfs::QueueSettings;
use crate::units::format_bytes;

const ABSENT: &str = "absent";

fn opt<T: ToString>(v: Option<&T>) -> String {
    v.map_or_else(|| ABSENT.to_owned(), ToString::to_string)
}

fn yes_no(v: Option<bool>) -> String {
    v.map_or_else(
        || ABSENT.to_owned(),
        |b| if b { "yes" } else { "no" }.to_owned(),
    )
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(" ")
    }
}

/// All disks, a blank line between them.
#[must_use]
pub fn text(disks: &[DiskInfo]) -> String {
    let mut out = String::new();
    for (i, disk) in disks.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        disk_block(&mut out, disk);
    }
    crate::text::escape_layout(&out).into_owned()
}

fn line(out: &mut String, label: &str, value: &str) {
    let _ = writeln!(out, "  {label:<20} {value}");
}

fn disk_block(out: &mut String, d: &DiskInfo) {
    let _ = write!(out, "{} ({}:{})", d.disk, d.major, d.minor);
    if let Some(q) = &d.queried {
        let _ = write!(out, "  behind {q}");
        if d.device != d.disk {
            let _ = write!(out, " (on {})", d.device);
        }
    }
    out.push('\n');
    line(out, "model", &opt(d.model.as_ref()));
    line(out, "vendor", &opt(d.vendor.as_ref()));
    line(out, "serial", &opt(d.serial.as_ref()));
    if let Some(firmware) = &d.firmware {
        line(out, "firmware", firmware);
    }
    let size = d.size_bytes.map_or_else(
        || ABSENT.to_owned(),
        |b| format!("{} ({b} bytes)", format_bytes(b)),
    );
    line(out, "size", &size);
    line(out, "transport", &d.transport);
    line(out, "rotational", &yes_no(d.rotational));
    line(out, "removable", &yes_no(d.removable));
    line(out, "read-only", &yes_no(d.read_only));
    if let Some(name) = &d.dm_name {
        line(out, "dm name", name);
    }
    if let Some(level) = &d.md_level {
        line(out, "md level", level);
    }
    if let Some(file) = &d.loop_backing_file {
        line(out, "loop backing file", file);
    }
    let partitions: Vec<String> = d
        .partitions
        .iter()
        .map(|p| match p.size_bytes {
            Some(b) => format!("{} ({})", p.name, format_bytes(b)),
            None => p.name.clone(),
        })
        .collect();
    line(out, "partitions", &list(&partitions));
    line(out, "holders", &list(&d.holders));
    line(out, "slaves", &list(&d.slaves));
    if d.backing_disks != [d.disk.clone()] {
        line(out, "backing disks", &list(&d.backing_disks));
    }
    if d.mounts.is_empty() {
        line(out, "mounts", "none");
    }
    for (i, m) in d.mounts.iter().enumerate() {
        let value = format!(
            "{} on {} type {} ({})",
            m.device,
            m.mount_point.display(),
            m.fs_type,
            m.options.join(",")
        );
        line(out, if i == 0 { "mounts" } else { "" }, &value);
    }
    let inflight = d.inflight.map_or_else(
        || ABSENT.to_owned(),
        |f| format!("{} reads, {} writes", f.reads, f.writes),
    );
    line(out, "in flight now", &inflight);
    let _ = writeln!(out, "  queue settings");
    queue_lines(out, &d.queue);
    for note in &d.notes {
        let _ = writeln!(out, "  note: {note}");
    }
}

fn queue_lines(out: &mut String, q: &QueueSettings) {
    let q_line = |out: &mut String, label: &str, value: String| {
        let _ = writeln!(out, "    {label:<19} {value}");
    };
    let scheduler = match (&q.scheduler, &q.schedulers_available) {
        (Some(active), Some(all)) => format!("{active} (available: {})", all.join(" ")),
        (active, _) => opt(active.as_ref()),
    };
    q_line(out, "scheduler", scheduler);
    q_line(out, "nr_requests", opt(q.nr_requests.as_ref()));
    q_line(out, "read_ahead_kb", opt(q.read_ahead_kb.as_ref()));
    q_line(
        out,
        "logical_block_size",
        opt(q.logical_block_size.as_ref()),
    );
    q_line(
        out,
        "physical_block_size",
        opt(q.physical_block_size.as_ref()),
    );
    q_line(out, "minimum_io_size", opt(q.minimum_io_size.as_ref()));
    q_line(out, "optimal_io_size", opt(q.optimal_io_size.as_ref()));
    q_line(out, "max_sectors_kb", opt(q.max_sectors_kb.as_ref()));
    q_line(out, "max_hw_sectors_kb", opt(q.max_hw_sectors_kb.as_ref()));
    q_line(out, "write_cache", opt(q.write_cache.as_ref()));
    q_line(out, "fua", yes_no(q.fua));
    q_line(out, "io_poll", yes_no(q.io_poll));
    q_line(out, "nomerges", opt(q.nomerges.as_ref()));
    q_line(out, "rq_affinity", opt(q.rq_affinity.as_ref()));
    q_line(out, "wbt_lat_usec", opt(q.wbt_lat_usec.as_ref()));
    q_line(out, "discard_max_bytes", opt(q.discard_max_bytes.as_ref()));
    q_line(out, "hw_queues", opt(q.hw_queues.as_ref()));
    q_line(out, "zoned", opt(q.zoned.as_ref()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nvme_with_lvm_on_p2() -> DiskInfo {
        use crate::monitor::info::{Inflight, MountPoint, Partition};
        DiskInfo {
            queried: Some("/boot/efi".into()),
            device: "nvme0n1p1".into(),
            disk: "nvme0n1".into(),
            major: 259,
            minor: 0,
            model: Some("Samsung SSD 980 PRO 1TB".into()),
            vendor: None,
            serial: Some("S5GXNF0R123456".into()),
            firmware: None,
            size_bytes: Some(1_000_204_886_016),
            transport: "nvme".into(),
            rotational: Some(false),
            removable: Some(false),
            read_only: Some(false),
            dm_name: None,
            md_level: None,
            loop_backing_file: None,
            partitions: vec![
                Partition {
                    name: "nvme0n1p1".into(),
                    number: Some(1),
                    start_sector: Some(2048),
                    size_bytes: Some(536_870_912),
                },
                Partition {
                    name: "nvme0n1p2".into(),
                    number: Some(2),
                    start_sector: Some(1_050_624),
                    size_bytes: Some(999_666_221_056),
                },
            ],
            holders: vec!["dm-0".into()],
            slaves: vec![],
            backing_disks: vec!["nvme0n1".into()],
            mounts: vec![
                MountPoint {
                    device: "nvme0n1p1".into(),
                    mount_point: "/boot/efi".into(),
                    fs_type: "vfat".into(),
                    options: vec!["rw".into(), "relatime".into()],
                },
                MountPoint {
                    device: "dm-0".into(),
                    mount_point: "/srv/db".into(),
                    fs_type: "xfs".into(),
                    options: vec!["rw".into(), "noatime".into(), "attr2".into()],
                },
            ],
            queue: QueueSettings {
                scheduler: Some("none".into()),
                schedulers_available: Some(vec!["none".into(), "mq-deadline".into()]),
                nr_requests: Some(1023),
                read_ahead_kb: Some(128),
                rotational: Some(false),
                logical_block_size: Some(512),
                physical_block_size: Some(512),
                minimum_io_size: Some(512),
                optimal_io_size: Some(0),
                max_sectors_kb: Some(1280),
                max_hw_sectors_kb: Some(2048),
                write_cache: Some("write back".into()),
                fua: Some(true),
                io_poll: Some(false),
                nomerges: Some(0),
                rq_affinity: Some(1),
                wbt_lat_usec: Some(2000),
                discard_max_bytes: Some(2_199_023_255_040),
                hw_queues: Some(8),
                zoned: Some("none".into()),
            },
            inflight: Some(Inflight {
                reads: 3,
                writes: 1,
            }),
            notes: vec![crate::monitor::sysfs::PARALLEL_UTIL_NOTE.replace("<dev>", "nvme0n1")],
        }
    }

    #[test]
    fn a_whole_disk_block() {
        insta::assert_snapshot!(text(&[nvme_with_lvm_on_p2()]));
    }

    #[test]
    fn sizes_in_binary_units() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        // Exact sizes exactly; rounded ones keep a decimal.
        assert_eq!(format_bytes(53_687_091_200), "50 GiB");
        assert_eq!(format_bytes(1_000_204_886_016), "931.5 GiB");
    }

    #[test]
    fn absent_queue_settings_print_as_absent() {
        let mut out = String::new();
        queue_lines(&mut out, &QueueSettings::default());
        assert_eq!(out.lines().count(), 18);
        assert!(out.lines().all(|l| l.ends_with(" absent")), "{out}");
        let mut out = String::new();
        let q = QueueSettings {
            scheduler: Some("none".into()),
            schedulers_available: Some(vec!["none".into(), "mq-deadline".into()]),
            rotational: Some(false),
            fua: Some(true),
            ..QueueSettings::default()
        };
        queue_lines(&mut out, &q);
        assert!(
            out.starts_with("    scheduler           none (available: none mq-deadline)\n"),
            "{out}"
        );
        assert!(out.contains("    fua                 yes\n"), "{out}");
    }
}
