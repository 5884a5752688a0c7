//! Which devices `diskdash serve` serves: node_exporter's diskstats device filter, flag for flag
//! (`--collector.diskstats.device-include` / `--collector.diskstats.device-exclude`,
//! `collector/diskstats_common.go` and `device_filter.go`).
//!
//! Without either flag, node_exporter's default exclude applies: partitions of sd/hd/vd/xvd
//! disks and NVMe namespaces, RAM disks, zram, loop and floppy devices. Whole disks, dm-*, md*,
//! mmcblk* and their partitions, nbd*, sr* are served. An include replaces the default exclude
//! (only what it matches is served); giving both is refused, as node_exporter refuses it.

use regex::Regex;

use crate::error::usage;

/// node_exporter's `diskstatsDefaultIgnoredDevices`.
pub(crate) const DEFAULT_EXCLUDE: &str = r"^(z?ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\d+n\d+p)\d+$";

/// The device-name filter of one server.
#[derive(Debug, Clone)]
pub struct DeviceFilter {
    exclude: Option<Regex>,
    include: Option<Regex>,
}

impl Default for DeviceFilter {
    /// node_exporter's default: [`DEFAULT_EXCLUDE`].
    fn default() -> Self {
        Self {
            exclude: Some(Regex::new(DEFAULT_EXCLUDE).expect("the default exclude compiles")),
            include: None,
        }
    }
}

impl DeviceFilter {
    /// The filter of the two flags (their values as given; an empty value counts as not
    /// given, as in node_exporter).
    ///
    /// # Errors
    /// A usage error when both are given, or for a value that is not a regular expression.
    pub fn new(include: Option<&str>, exclude: Option<&str>) -> anyhow::Result<Self> {
        const INCLUDE: &str = "--collector.diskstats.device-include";
        const EXCLUDE: &str = "--collector.diskstats.device-exclude";
        let include = include.filter(|p| !p.is_empty());
        let exclude = exclude.filter(|p| !p.is_empty());
        let compile = |flag: &str, pattern: &str| {
            Regex::new(pattern).map_err(|err| {
                // The regex crate's message is a diagram; its last line says what is wrong.
                let text = err.to_string();
                let last = text
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("");
                let reason = last.trim().trim_start_matches("error: ");
                usage!(
                    "{flag} {pattern:?} is not a regular expression ({reason}); give one that \
                     matches whole device names, e.g. '^(sd[a-z]+|nvme\\d+n\\d+)$'"
                )
            })
        };
        match (include, exclude) {
            (Some(_), Some(_)) => Err(usage!(
                "{INCLUDE} and {EXCLUDE} are mutually exclusive (as in node_exporter); give one: \
                 the include alone serves only what it matches"
            )),
            (Some(pattern), None) => Ok(Self {
                exclude: None,
                include: Some(compile(INCLUDE, pattern)?),
            }),
            (None, Some(pattern)) => Ok(Self {
                exclude: Some(compile(EXCLUDE, pattern)?),
                include: None,
            }),
            (None, None) => Ok(Self::default()),
        }
    }

    /// Whether `device` (a `/proc/diskstats` name) is served.
    #[must_use]
    pub(crate) fn serves(&self, device: &str) -> bool {
        !self.exclude.as_ref().is_some_and(|re| re.is_match(device))
            && self.include.as_ref().is_none_or(|re| re.is_match(device))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::exit_code;

    #[test]
    fn node_exporters_default_exclusions() {
        let filter = DeviceFilter::default();
        for excluded in [
            "ram0",
            "zram0",
            "loop0",
            "loop12",
            "fd0",
            "sda1",
            "hdb2",
            "vda15",
            "xvda1",
            "nvme0n1p1",
            "nvme10n2p13",
        ] {
            assert!(!filter.serves(excluded), "{excluded}");
        }
        for served in [
            "sda",
            "vda",
            "xvda",
            "nvme0n1",
            "dm-0",
            "md0",
            "mmcblk0",
            "mmcblk0p1",
            "sr0",
            "nbd0",
            "sdaa1",
            "loop",
            "nvme0n1p",
            "zram",
        ] {
            assert!(filter.serves(served), "{served}");
        }
        let empty = DeviceFilter::new(Some(""), Some("")).unwrap();
        assert!(!empty.serves("loop0"), "empty values are the default");
    }

    #[test]
    fn an_include_serves_only_its_matches_and_drops_the_default_exclude() {
        let filter = DeviceFilter::new(Some("^(loop|sd[a-z])\\d*$"), None).unwrap();
        assert!(filter.serves("loop0"));
        assert!(filter.serves("sda1"));
        assert!(!filter.serves("nvme0n1"));
        assert!(!filter.serves("dm-0"));
    }

    #[test]
    fn an_exclude_replaces_the_default() {
        let filter = DeviceFilter::new(None, Some("^dm-")).unwrap();
        assert!(!filter.serves("dm-3"));
        assert!(filter.serves("loop0"));
        assert!(filter.serves("sda1"));
    }

    #[test]
    fn both_flags_or_a_bad_pattern_are_usage_errors() {
        let err = DeviceFilter::new(Some("sd"), Some("loop")).unwrap_err();
        assert_eq!(exit_code(&err), 2);
        assert_eq!(
            err.to_string(),
            "--collector.diskstats.device-include and --collector.diskstats.device-exclude are \
             mutually exclusive (as in node_exporter); give one: the include alone serves only \
             what it matches"
        );
        let err = DeviceFilter::new(None, Some("(sd")).unwrap_err();
        assert_eq!(exit_code(&err), 2);
        let text = err.to_string();
        assert!(
            text.starts_with(
                "--collector.diskstats.device-exclude \"(sd\" is not a regular expression ("
            ),
            "{text}"
        );
        assert!(!text.contains('\n'), "{text}");
        let err = DeviceFilter::new(Some("[z-a]"), None).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("--collector.diskstats.device-include \"[z-a]\""),
            "{err}"
        );
    }
}
