//! A block device's udev properties, read from udev's database as node_exporter's diskstats
//! collector reads them: `/run/udev/data/b<major>:<minor>`, one `E:NAME=value` line per
//! property (udevadm(8); the other line kinds, `S:` links, `G:` tags and so on, are skipped).
//!
//! What `diskdash serve` takes from them: the identity of `node_disk_info` (`ID_MODEL`,
//! `ID_PATH`, `ID_REVISION`, `ID_WWN`, the serial), the filesystem (`ID_FS_*`), the
//! device-mapper names (`DM_*`) and the ATA drive features (`ID_ATA_*`).

use std::collections::BTreeMap;
use std::path::Path;

/// Where udev keeps its database on every systemd host (`--path.udev.data` overrides it).
pub const UDEV_DATA: &str = "/run/udev/data";

/// One device's properties, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UdevProperties(BTreeMap<String, String>);

impl UdevProperties {
    /// The properties of block device `major:minor` in the database at `data_dir`; empty
    /// when the device has no entry (no udev, a container, a device udev ignores), as
    /// node_exporter then serves empty labels.
    #[must_use]
    pub fn read(data_dir: &Path, major: u32, minor: u32) -> UdevProperties {
        std::fs::read(data_dir.join(format!("b{major}:{minor}")))
            .map(|bytes| parse(&String::from_utf8_lossy(&bytes)))
            .unwrap_or_default()
    }

    /// A property's value; `""` when absent (node_exporter's empty label).
    #[must_use]
    pub fn get(&self, name: &str) -> &str {
        self.0.get(name).map_or("", String::as_str)
    }

    /// Whether the property is there at all (an empty value counts).
    #[cfg(test)]
    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// The serial printed on the drive's label: `SCSI_IDENT_SERIAL`, else `ID_SERIAL_SHORT`,
    /// else `ID_SERIAL` (what virtio disks have), node_exporter's order.
    #[must_use]
    pub fn serial(&self) -> &str {
        ["SCSI_IDENT_SERIAL", "ID_SERIAL_SHORT", "ID_SERIAL"]
            .into_iter()
            .map(|name| self.get(name))
            .find(|value| !value.is_empty())
            .unwrap_or("")
    }
}

/// The `E:NAME=value` lines of a udev database entry; the value is everything after the first
/// `=`, kept as written (udev escapes nothing in `E:` lines). A later line wins.
#[must_use]
pub fn parse(text: &str) -> UdevProperties {
    UdevProperties(
        text.lines()
            .filter_map(|line| line.strip_prefix("E:")?.split_once('='))
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    // udev's entry for an ATA disk, trimmed (node_exporter's fixture udev/data/b8:0).
    const SDA: &str = "S:disk/by-id/wwn-0x7c72382b8de36a64\nW:702\nI:73815117\nE:ID_ATA=1\n\
                       E:ID_MODEL=TOSHIBA_KSDB4U86\nE:ID_SERIAL=TOSHIBA_KSDB4U866TE_DTB0QRJR2EIG\n\
                       E:ID_SERIAL_SHORT=2160A0D5FVGG\nE:ID_FS_VERSION=LVM2 001\nE:DM_LV_LAYER=\n\
                       E:SCSI_IDENT_SERIAL=2160A0D5FVGG\nG:systemd\n";

    #[test]
    fn only_property_lines_count_and_values_keep_spaces_and_equals() {
        let props = parse(SDA);
        assert_eq!(props.get("ID_MODEL"), "TOSHIBA_KSDB4U86");
        assert_eq!(props.get("ID_FS_VERSION"), "LVM2 001");
        assert!(props.has("DM_LV_LAYER"));
        assert_eq!(props.get("DM_LV_LAYER"), "");
        assert!(!props.has("systemd"));
        assert_eq!(props.get("W"), "");
        assert_eq!(parse("E:A=b=c\n").get("A"), "b=c");
        assert_eq!(parse("E:NOVALUE\nX:A=1\n"), UdevProperties::default());
    }

    #[test]
    fn the_serial_falls_back_from_the_label_serial_to_the_short_and_the_long_one() {
        assert_eq!(parse(SDA).serial(), "2160A0D5FVGG");
        let nvme = "E:ID_SERIAL_SHORT=S252B6CU1HG3M1\nE:ID_SERIAL=SAMSUNG_S252B6CU1HG3M1\n";
        assert_eq!(parse(nvme).serial(), "S252B6CU1HG3M1");
        assert_eq!(parse("E:ID_SERIAL=0x83e36d93\n").serial(), "0x83e36d93");
        assert_eq!(parse("E:SCSI_IDENT_SERIAL=\n").serial(), "");
    }

    #[test]
    fn a_device_without_an_entry_has_no_properties() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b8:0"), SDA).unwrap();
        assert_eq!(UdevProperties::read(dir.path(), 8, 0).get("ID_ATA"), "1");
        assert_eq!(
            UdevProperties::read(dir.path(), 8, 16),
            UdevProperties::default()
        );
        let missing = dir.path().join("nowhere");
        assert_eq!(
            UdevProperties::read(&missing, 8, 0),
            UdevProperties::default()
        );
    }

    proptest! {
        /// Whatever the bytes, parsing does not panic, and every property it returns came
        /// from an `E:` line of the text.
        #[test]
        fn any_text_parses_to_properties_of_its_e_lines(text in "(E:|S:|)[A-Z_=a-z0-9 \\n:]{0,80}") {
            let props = parse(&text);
            for (name, value) in &props.0 {
                let line = format!("E:{name}={value}");
                prop_assert!(text.lines().any(|l| l == line), "{line:?} not in {text:?}");
            }
        }

        /// Every well-formed property line comes back as written.
        #[test]
        fn written_properties_read_back(
            props in proptest::collection::btree_map("[A-Z_]{1,12}", "[ -~]{0,20}", 0..8)
        ) {
            let text: String = props.iter().map(|(k, v)| format!("E:{k}={v}\n")).collect();
            prop_assert_eq!(parse(&text).0, props);
        }
    }
}
