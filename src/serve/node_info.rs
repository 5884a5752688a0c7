//! The info families node_exporter serves beside the disk counters, built as its collectors
//! build them (`collector/diskstats_linux.go`, `collector/uname.go`):
//!
//! - `node_disk_info`: one sample per served device, always (empty labels where udev knows
//!   nothing): `major`, `minor` from `/proc/diskstats`; `model`, `path`, `revision`, `serial`,
//!   `wwn` from udev; `rotational` from `queue/rotational` (`0` without a queue, a partition).
//! - `node_disk_filesystem_info`: devices whose udev entry names a filesystem (`ID_FS_TYPE`).
//! - `node_disk_device_mapper_info`: devices udev knows as device-mapper targets (`DM_NAME`).
//! - `node_disk_ata_rotation_rate_rpm`, `node_disk_ata_write_cache`,
//!   `node_disk_ata_write_cache_enabled`: ATA drives (`ID_ATA`), each where udev has the
//!   property and it is a number.
//! - `node_uname_info`: uname(2), the family Node Exporter Full's job, instance and node
//!   dropdowns are built from.

use std::borrow::Cow;

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::info::Info;

use super::udev::UdevProperties;

/// What node_exporter says about one served device besides its counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiskIdentity {
    pub device: String,
    pub major: u32,
    pub minor: u32,
    /// `queue/rotational` is 1; false when it is 0 or there is no queue.
    pub rotational: bool,
    pub udev: UdevProperties,
}

/// The fields of uname(2).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Uname {
    pub sysname: String,
    pub nodename: String,
    pub release: String,
    pub version: String,
    pub machine: String,
    /// The NIS domain name; Linux says `(none)` when none is set.
    pub domainname: String,
}

impl Uname {
    /// This host's, now.
    #[must_use]
    pub fn now() -> Uname {
        // uname(2) fails only for a bad buffer pointer, which nix never passes.
        let uts = nix::sys::utsname::uname().expect("uname(2) with a valid buffer");
        let text = |s: &std::ffi::OsStr| s.to_string_lossy().into_owned();
        Uname {
            sysname: text(uts.sysname()),
            nodename: text(uts.nodename()),
            release: text(uts.release()),
            version: text(uts.version()),
            machine: text(uts.machine()),
            domainname: text(uts.domainname()),
        }
    }
}

type Labels<'a> = Vec<(&'static str, Cow<'a, str>)>;

/// One info family whose samples carry their own labels; nothing when there are none (an
/// info family without samples is left out, as node_exporter leaves it out).
fn encode_info<'a>(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    samples: impl IntoIterator<Item = Labels<'a>>,
) -> Result<(), std::fmt::Error> {
    let mut samples = samples.into_iter().peekable();
    if samples.peek().is_none() {
        return Ok(());
    }
    let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Info)?;
    let none: [(&str, &str); 0] = [];
    for labels in samples {
        Info::new(labels).encode(metric.encode_family(&none)?)?;
    }
    Ok(())
}

fn udev_label<'a>(
    name: &'static str,
    disk: &'a DiskIdentity,
    property: &str,
) -> (&'static str, Cow<'a, str>) {
    (name, Cow::Borrowed(disk.udev.get(property)))
}

/// `node_disk_info`, `node_disk_filesystem_info`, `node_disk_device_mapper_info` and the ATA
/// gauges of the served devices.
pub fn encode_disks(
    encoder: &mut DescriptorEncoder,
    disks: &[DiskIdentity],
) -> Result<(), std::fmt::Error> {
    // Info families are named without `_info`: the encoder appends it.
    encode_info(
        encoder,
        "node_disk",
        "Info of /sys/block/<block_device>.",
        disks.iter().map(|d| {
            vec![
                ("device", Cow::Borrowed(d.device.as_str())),
                ("major", Cow::Owned(d.major.to_string())),
                ("minor", Cow::Owned(d.minor.to_string())),
                udev_label("model", d, "ID_MODEL"),
                udev_label("path", d, "ID_PATH"),
                udev_label("revision", d, "ID_REVISION"),
                (
                    "rotational",
                    Cow::Borrowed(if d.rotational { "1" } else { "0" }),
                ),
                ("serial", Cow::Borrowed(d.udev.serial())),
                udev_label("wwn", d, "ID_WWN"),
            ]
        }),
    )?;
    encode_info(
        encoder,
        "node_disk_filesystem",
        "Info about disk filesystem.",
        disks
            .iter()
            .filter(|d| !d.udev.get("ID_FS_TYPE").is_empty())
            .map(|d| {
                vec![
                    ("device", Cow::Borrowed(d.device.as_str())),
                    udev_label("type", d, "ID_FS_TYPE"),
                    udev_label("usage", d, "ID_FS_USAGE"),
                    udev_label("uuid", d, "ID_FS_UUID"),
                    udev_label("version", d, "ID_FS_VERSION"),
                ]
            }),
    )?;
    encode_info(
        encoder,
        "node_disk_device_mapper",
        "Info about disk device mapper.",
        disks
            .iter()
            .filter(|d| !d.udev.get("DM_NAME").is_empty())
            .map(|d| {
                vec![
                    ("device", Cow::Borrowed(d.device.as_str())),
                    udev_label("lv_layer", d, "DM_LV_LAYER"),
                    udev_label("lv_name", d, "DM_LV_NAME"),
                    udev_label("name", d, "DM_NAME"),
                    udev_label("uuid", d, "DM_UUID"),
                    udev_label("vg_name", d, "DM_VG_NAME"),
                ]
            }),
    )?;
    for (name, property, help) in [
        (
            "node_disk_ata_rotation_rate_rpm",
            "ID_ATA_ROTATION_RATE_RPM",
            "ATA disk rotation rate in RPMs (0 for SSDs).",
        ),
        (
            "node_disk_ata_write_cache",
            "ID_ATA_WRITE_CACHE",
            "ATA disk has a write cache.",
        ),
        (
            "node_disk_ata_write_cache_enabled",
            "ID_ATA_WRITE_CACHE_ENABLED",
            "ATA disk has its write cache enabled.",
        ),
    ] {
        let values: Vec<(&str, f64)> = disks
            .iter()
            .filter(|d| !d.udev.get("ID_ATA").is_empty())
            .filter_map(|d| Some((d.device.as_str(), d.udev.get(property).parse::<f64>().ok()?)))
            .collect();
        if values.is_empty() {
            continue;
        }
        let mut metric =
            encoder.encode_descriptor(name, help, None, ConstGauge::new(0.0).metric_type())?;
        for (device, value) in values {
            ConstGauge::new(value).encode(metric.encode_family(&[("device", device)])?)?;
        }
    }
    Ok(())
}

/// `node_uname_info`.
pub fn encode_uname(encoder: &mut DescriptorEncoder, uname: &Uname) -> Result<(), std::fmt::Error> {
    let text = |s: &str| Cow::Owned(s.to_owned());
    encode_info(
        encoder,
        "node_uname",
        "Labeled system information as provided by the uname system call.",
        [vec![
            ("domainname", text(&uname.domainname)),
            ("machine", text(&uname.machine)),
            ("nodename", text(&uname.nodename)),
            ("release", text(&uname.release)),
            ("sysname", text(&uname.sysname)),
            ("version", text(&uname.version)),
        ]],
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::serve::metrics::{Scrape, openmetrics};
    use crate::serve::udev::parse;

    fn disk(device: &str, udev: &str) -> DiskIdentity {
        DiskIdentity {
            device: device.to_owned(),
            major: 8,
            minor: 0,
            rotational: false,
            udev: parse(udev),
        }
    }

    #[test]
    fn ata_gauges_need_id_ata_and_a_number_and_empty_families_are_left_out() {
        let text = openmetrics(Scrape {
            identities: Arc::new(vec![
                disk(
                    "sda",
                    "E:ID_ATA=1\nE:ID_ATA_ROTATION_RATE_RPM=5400\nE:ID_ATA_WRITE_CACHE=x\n",
                ),
                disk("sdb", "E:ID_ATA_ROTATION_RATE_RPM=7200\n"),
            ]),
            ..Scrape::default()
        });
        assert!(
            text.contains("node_disk_ata_rotation_rate_rpm{device=\"sda\"} 5400.0"),
            "{text}"
        );
        assert!(!text.contains("{device=\"sdb\"} 7200"), "{text}");
        assert!(!text.contains("node_disk_ata_write_cache"), "{text}");
        assert!(!text.contains("node_disk_filesystem"), "{text}");
        assert!(!text.contains("node_disk_device_mapper"), "{text}");
        assert!(text.contains("# TYPE node_disk info"), "{text}");
    }

    /// node_exporter's label names of `node_disk_info`, in its order
    /// (prometheus/node_exporter `collector/diskstats_linux.go`, `infoDesc`, at `a7dcc3a0`).
    const NODE_EXPORTER_INFO_LABELS: [&str; 9] = [
        "device",
        "major",
        "minor",
        "path",
        "wwn",
        "model",
        "serial",
        "revision",
        "rotational",
    ];

    /// `node_disk_info` lines of node_exporter's end-to-end fixture
    /// (`collector/fixtures/e2e-output.txt` at `a7dcc3a0`), with the udev entries they come
    /// from (`collector/fixtures/udev.ttar`: `b179:0`, `b11:0`, the `E:` lines that matter):
    /// a serial from `ID_SERIAL` (mmc, virtio) and one from `ID_SERIAL_SHORT` over
    /// `ID_SERIAL` (a USB CD-ROM).
    const E2E: [(&str, u32, u32, &str, &str); 2] = [
        (
            "mmcblk0",
            179,
            0,
            "E:ID_NAME=SC64G\nE:ID_SERIAL=0x83e36d93\nE:ID_PATH=platform-df2969f3.mmc\n\
             E:ID_PATH_TAG=platform-df2969f3_mmc\nE:ID_PART_TABLE_UUID=1954c9df\n",
            r#"node_disk_info{device="mmcblk0",major="179",minor="0",model="",path="platform-df2969f3.mmc",revision="",rotational="0",serial="0x83e36d93",wwn=""} 1"#,
        ),
        (
            "sr0",
            11,
            0,
            "E:ID_CDROM=1\nE:ID_VENDOR=AMI\nE:ID_MODEL=Virtual_CDROM0\nE:ID_REVISION=1.00\n\
             E:ID_SERIAL=AMI_Virtual_CDROM0_AAAABBBBCCCC1-0:0\nE:ID_SERIAL_SHORT=AAAABBBBCCCC1\n\
             E:ID_PATH=pci-0000:00:14.0-usb-0:1.1:1.0-scsi-0:0:0:0\nE:SCSI_MODEL=Virtual_CDROM0\n\
             E:ID_FS_TYPE=\n",
            r#"node_disk_info{device="sr0",major="11",minor="0",model="Virtual_CDROM0",path="pci-0000:00:14.0-usb-0:1.1:1.0-scsi-0:0:0:0",revision="1.00",rotational="0",serial="AAAABBBBCCCC1",wwn=""} 1"#,
        ),
    ];

    /// The label names of a sample line, in order.
    fn label_names(line: &str) -> Vec<String> {
        let labels = line.split_once('{').unwrap().1.rsplit_once('}').unwrap().0;
        labels
            .split("\",")
            .map(|pair| pair.split_once('=').unwrap().0.to_owned())
            .collect()
    }

    #[test]
    fn node_disk_info_carries_node_exporters_labels_exactly() {
        let identities: Vec<DiskIdentity> = E2E
            .iter()
            .map(|&(device, major, minor, udev, _)| DiskIdentity {
                device: device.to_owned(),
                major,
                minor,
                rotational: false,
                udev: parse(udev),
            })
            .collect();
        let text = openmetrics(Scrape {
            identities: Arc::new(identities),
            ..Scrape::default()
        });
        let mut want_names: Vec<String> = NODE_EXPORTER_INFO_LABELS
            .iter()
            .map(|&n| n.to_owned())
            .collect();
        want_names.sort();
        for (device, _, _, _, theirs) in E2E {
            let ours = text
                .lines()
                .find(|l| l.starts_with(&format!("node_disk_info{{device=\"{device}\"")))
                .unwrap_or_else(|| panic!("no node_disk_info of {device}: {text}"));
            // OpenMetrics writes the value as 1.0 where the text format writes 1.
            assert_eq!(ours.replace("} 1.0", "} 1"), theirs);
            // The same names, sorted as node_exporter's registry writes them; no extra.
            assert_eq!(label_names(ours), want_names, "{ours}");
        }
        // Facts of diskdash's own are in diskdash's families, never node_exporter's.
        for line in text.lines().filter(|l| l.starts_with("node_disk_info")) {
            assert_eq!(
                label_names(line).len(),
                NODE_EXPORTER_INFO_LABELS.len(),
                "{line}"
            );
        }
    }

    #[test]
    fn no_node_metrics_drops_every_node_family() {
        let uname = Uname {
            sysname: "Linux".to_owned(),
            domainname: "(none)".to_owned(),
            ..Uname::default()
        };
        let with = openmetrics(Scrape {
            identities: Arc::new(vec![disk("sda", "")]),
            uname: Some(uname.clone()),
            ..Scrape::default()
        });
        assert!(
            with.contains("node_uname_info{domainname=\"(none)\","),
            "{with}"
        );
        let without = openmetrics(Scrape {
            identities: Arc::new(vec![disk("sda", "")]),
            uname: Some(uname),
            no_node_metrics: true,
            ..Scrape::default()
        });
        assert!(!without.contains("node_"), "{without}");
    }
}
