//! `diskdash iostat` arguments -> a validated [`IostatConfig`], in one place, with every error
//! text tested. The grammar is sysstat's: `[-c] [-d] [-x] [-k|-m] [-s] [-h] [-N] [-y] [-z]
//! [-p [DEVICES|ALL]] [-g NAME [-H]] [-j TYPE] [--human] [--pretty] [--compact] [--dec N]
//! [-o JSON] [-V] [DEVICE...] [INTERVAL [COUNT]]`, where trailing numbers are the interval and
//! the count.

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::IostatArgs;
use crate::error::usage;
use crate::monitor::device;
use crate::report::iostat::Layout;
use crate::units::Interval;

/// Which partitions to show next to the devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Partitions {
    /// None (sysstat's default).
    None,
    /// Of every device, in `/proc/diskstats` order: `-p ALL` (`unused`: also those that never
    /// did I/O), or a bare `-p` (only those that did, unless devices are named, as in sysstat).
    All { unused: bool },
    /// Of these whole disks (`-p vda,sdb`).
    Of(Vec<String>),
}

/// A validated `diskdash iostat` request.
#[derive(Debug, Clone, PartialEq)]
pub struct IostatConfig {
    /// Kernel names the user asked for, in order (empty: every device that was ever used,
    /// unless `named`).
    pub devices: Vec<String>,
    /// Devices were named on the command line (sysstat's "unfiltered" listing): only they are
    /// shown, none when none of them exists.
    pub named: bool,
    /// `ALL` among the devices: every whole device, used or not, the named ones first.
    pub all_devices: bool,
    pub partitions: Partitions,
    /// Skip the since-boot report (only meaningful with an interval).
    pub omit_first: bool,
    pub omit_idle: bool,
    pub json: bool,
    pub timestamps: bool,
    /// The `avg-cpu` block (`-c`, or no `-d`).
    pub cpu: bool,
    /// The device table (`-d`, `-x`, or neither `-c` nor `-d`).
    pub disks: bool,
    pub layout: Layout,
    /// `-N`: device-mapper devices by their registered names.
    pub dm_names: bool,
    /// `-g NAME [-H]`: a line for the devices together.
    pub group: Option<Group>,
    /// `-j TYPE`: the directory of persistent names (`/dev/disk/by-id`).
    pub persistent: Option<PathBuf>,
    /// `None`: one since-boot report and exit.
    pub interval: Option<Duration>,
    /// `None` with an interval: until interrupted.
    pub count: Option<u64>,
}

/// `-g NAME`: the devices summed into one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Shown with a leading space, as sysstat shows group names.
    pub name: String,
    /// `-H`: the group's line only, not its devices'.
    pub only: bool,
}

/// Where `-j TYPE` looks: `/dev/disk/by-<type>`.
pub const DEV_DISK: &str = "/dev/disk";

/// `--dec`'s value: 0, 1 or 2 decimal places. Pure.
///
/// # Errors
/// Anything else, as a one-line usage error.
pub fn parse_decimals(text: &str) -> anyhow::Result<usize> {
    match text {
        "0" => Ok(0),
        "1" => Ok(1),
        "2" => Ok(2),
        _ => Err(usage!(
            "--dec {text:?} is not a number of decimal places; use --dec 0, 1 or 2"
        )),
    }
}

/// The operands split into device words and the trailing INTERVAL [COUNT]. Pure. As sysstat
/// reads them, a word that is not a number is a device wherever it stands (`1 5 vda`), and an
/// interval of 0 is one report since boot, as no interval is.
///
/// # Errors
/// A negative interval or not a number, count 0 or not a whole number, a count after an
/// interval of 0, a third number.
pub fn split_operands(
    operands: &[String],
) -> anyhow::Result<(Vec<String>, Option<Duration>, Option<u64>)> {
    let (numbers, devices): (Vec<&String>, Vec<&String>) =
        operands.iter().partition(|o| looks_numeric(o));
    if let Some(extra) = numbers.get(2) {
        return Err(usage!(
            "unexpected number {extra:?} after INTERVAL and COUNT; iostat takes at most two: \
             diskdash iostat [DEVICE...] [INTERVAL [COUNT]]"
        ));
    }
    let count = match numbers.get(1) {
        None => None,
        Some(text) => Some(parse_count(text)?),
    };
    let interval = match numbers.first() {
        None => None,
        // sysstat's `iostat 0`: the since-boot report once; `iostat 0 5` is a usage error.
        Some(text) if is_zero(text) => match count {
            None => None,
            Some(_) => {
                return Err(usage!(
                    "interval {text:?} with a count: an interval of 0 is one report since boot, \
                     which takes no count; use an interval of e.g. 1, or drop the count"
                ));
            }
        },
        Some(text) => Some(parse_interval(text)?),
    };
    Ok((devices.into_iter().cloned().collect(), interval, count))
}

/// `0`, `00`, `0.0`: sysstat's "no interval".
fn is_zero(text: &str) -> bool {
    !text.starts_with('-') && text.parse::<f64>().is_ok_and(|seconds| seconds == 0.0)
}

/// A word that the user meant as a number: starts with a digit, a dot or a minus sign before
/// one, and is no path.
fn looks_numeric(word: &str) -> bool {
    let unsigned = word.strip_prefix('-').unwrap_or(word);
    unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && !word.contains('/')
        && !std::path::Path::new(word).exists()
}

/// INTERVAL as sysstat writes it (seconds) or with a fraction or unit (`0.5`, `500ms`,
/// diskdash's): the one interval rule. A negative number gets iostat's own hint.
fn parse_interval(text: &str) -> anyhow::Result<Duration> {
    if text.parse::<f64>().is_ok_and(|seconds| seconds <= 0.0) {
        return Err(usage!(
            "interval {text:?} must be more than 0 seconds; use e.g. 1, or 0 (or none) for one \
             report since boot"
        ));
    }
    Interval::parse(text)
        .map(Interval::get)
        .map_err(|e| usage!("interval {text:?} {e}"))
}

fn parse_count(text: &str) -> anyhow::Result<u64> {
    let at_least_one =
        || usage!("count {text:?} must be at least 1; omit it to report until interrupted");
    match text.parse::<u64>() {
        Ok(0) => Err(at_least_one()),
        Ok(n) => Ok(n),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Err(usage!(
            "count {text:?} is too large; omit it to report until interrupted"
        )),
        Err(_) if text.parse::<i128>().is_ok() => Err(at_least_one()),
        Err(_) => Err(usage!("count {text:?} is not a whole number; use e.g. 5")),
    }
}

/// A device word: a kernel name, `/dev/NAME` or (diskdash's own) a path on a disk. `None`
/// for a word that is no device and no path, which sysstat skips without a word, in its
/// listing and on stderr alike.
///
/// # Errors
/// An existing path that no block device holds (`/proc`).
fn named_device(word: &str) -> anyhow::Result<Option<device::DeviceChain>> {
    match device::resolve_arg(word) {
        Ok(chain) => Ok(Some(chain)),
        Err(_) if std::path::Path::new(word).symlink_metadata().is_err() => Ok(None),
        Err(err) => Err(err),
    }
}

/// Validates the arguments; device words are resolved to kernel names through sysfs.
///
/// # Errors
/// Usage errors (exit 2) that name the value and the fix.
pub fn validate(args: &IostatArgs) -> anyhow::Result<IostatConfig> {
    let json = match args.output.as_deref() {
        None => false,
        Some(format) if format.eq_ignore_ascii_case("json") => true,
        Some(other) => {
            return Err(usage!(
                "-o {other:?} is not an output format; use -o JSON (or leave it out for text)"
            ));
        }
    };
    if args.kilobytes && args.megabytes {
        return Err(usage!(
            "-k and -m both given; use -k for kilobytes or -m for megabytes"
        ));
    }
    if args.group_only && args.group.is_none() {
        return Err(usage!(
            "-H needs -g NAME: it shows only the group's line; e.g. -g all -H"
        ));
    }
    let group = match args.group.as_deref() {
        None => None,
        Some(name) if name.trim().is_empty() || name.starts_with('-') => {
            return Err(usage!(
                "-g {name:?} is not a group name; use a name, e.g. -g disks vda vdb"
            ));
        }
        Some(name) => Some(Group {
            name: format!(" {name}"),
            only: args.group_only,
        }),
    };
    let persistent = match args.persistent.as_deref() {
        None => None,
        Some(kind) => {
            let dir = PathBuf::from(DEV_DISK).join(format!("by-{}", kind.to_ascii_lowercase()));
            if !dir.is_dir() {
                return Err(usage!(
                    "-j {kind:?}: {} does not exist on this machine (no persistent names of that \
                     type); use a type listed in {DEV_DISK}, or leave -j out",
                    dir.display()
                ));
            }
            Some(dir)
        }
    };
    let decimals = match args.decimals.as_deref() {
        None => 2,
        Some(text) => parse_decimals(text)?,
    };
    let human = args.human || args.human_pretty;
    let layout = Layout {
        extended: args.extended,
        short: args.short,
        mega: args.megabytes,
        human,
        pretty: args.pretty || args.human_pretty || persistent.is_some(),
        compact: args.compact,
        decimals,
        trace: args.trace,
    };
    // sysstat: -c alone is the CPU block, -d alone the devices, -x adds the devices.
    let cpu = args.cpu_report || !args.device_report;
    let disks = args.device_report || args.extended || !args.cpu_report;
    let mut operands = args.operands.clone();
    // `-p 1 5`: sysstat reads a number after -p as the interval, not a device list.
    let partitions_word = match args.partitions.as_deref() {
        Some(word) if looks_numeric(word) => {
            operands.insert(0, word.to_owned());
            Some("")
        }
        other => other,
    };
    let (device_words, interval, count) = split_operands(&operands)?;
    let mut devices = Vec::new();
    let mut all_devices = false;
    let mut named = false;
    for word in &device_words {
        // sysstat's `ALL` (and `-g NAME all`): every whole device, used or not.
        if word == "ALL" || (group.is_some() && word.eq_ignore_ascii_case("all")) {
            all_devices = true;
            continue;
        }
        named = true;
        let by_persistent_name = persistent.as_ref().map(|dir| dir.join(word));
        let chain = match by_persistent_name.filter(|p| p.exists()) {
            Some(path) => Some(device::resolve_arg(&path.to_string_lossy())?),
            None => named_device(word)?,
        };
        if let Some(name) = chain.map(|c| c.device)
            && !devices.contains(&name)
        {
            devices.push(name);
        }
    }
    let partitions = match partitions_word {
        None => Partitions::None,
        // A bare -p lists the devices that did I/O; naming one lists them all, as -p ALL does.
        Some("") => Partitions::All {
            unused: !devices.is_empty(),
        },
        Some(word) if word.eq_ignore_ascii_case("all") => Partitions::All { unused: true },
        Some(list) => {
            let mut disks = Vec::new();
            for word in list.split(',').filter(|w| !w.is_empty()) {
                let chain =
                    named_device(word).map_err(|e| usage!("-p {list:?}: {e:#}; or use -p ALL"))?;
                if let Some(disk) = chain.map(|c| c.disk)
                    && !disks.contains(&disk)
                {
                    disks.push(disk);
                }
            }
            Partitions::Of(disks)
        }
    };
    Ok(IostatConfig {
        named,
        all_devices,
        devices,
        partitions,
        omit_first: args.omit_first,
        omit_idle: args.omit_idle,
        json,
        timestamps: args.timestamps,
        cpu,
        disks,
        layout,
        dm_names: args.dm_names,
        group,
        persistent,
        interval,
        count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::exit_code;
    use crate::units::{MAX_INTERVAL, MIN_INTERVAL};

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    fn args(operands: &str) -> IostatArgs {
        IostatArgs {
            help: None,
            cpu_report: false,
            kilobytes: false,
            megabytes: false,
            short: false,
            human_pretty: false,
            human: false,
            pretty: false,
            compact: false,
            decimals: None,
            dm_names: false,
            group: None,
            group_only: false,
            persistent: None,
            extended: true,
            device_report: false,
            timestamps: false,
            omit_first: false,
            partitions: None,
            omit_idle: false,
            show_version: false,
            output: None,
            trace: false,
            operands: words(operands),
            record: crate::cli::RecordArgs {
                record: None,
                record_max: "100M".into(),
                record_keep: "3".into(),
                force: false,
            },
        }
    }

    fn root_device() -> String {
        device::resolve(std::path::Path::new("/")).unwrap().device
    }

    #[test]
    fn operands_split_into_devices_interval_and_count() {
        let ok = |s: &str| split_operands(&words(s)).unwrap();
        assert_eq!(ok(""), (vec![], None, None));
        assert_eq!(ok("2"), (vec![], Some(Duration::from_secs(2)), None));
        assert_eq!(
            ok("0.5 3"),
            (vec![], Some(Duration::from_millis(500)), Some(3))
        );
        assert_eq!(
            ok("vda sdb 1 10"),
            (words("vda sdb"), Some(Duration::from_secs(1)), Some(10))
        );
        assert_eq!(ok("0.01"), (vec![], Some(MIN_INTERVAL), None));
        assert_eq!(ok("86400"), (vec![], Some(MAX_INTERVAL), None));
        assert_eq!(ok("0.3"), (vec![], Some(Duration::from_millis(300)), None));
        // sysstat's: 0 is the since-boot report once; devices may follow the numbers.
        for zero in ["0", "00", "0.0", "vda 0", "0 vda"] {
            let devices = if zero.contains("vda") {
                words("vda")
            } else {
                vec![]
            };
            assert_eq!(ok(zero), (devices, None, None), "{zero}");
        }
        assert_eq!(
            ok("1 5 vda sdb"),
            (words("vda sdb"), Some(Duration::from_secs(1)), Some(5))
        );
        assert_eq!(
            ok("vda 2 sdb"),
            (words("vda sdb"), Some(Duration::from_secs(2)), None)
        );
    }

    mod properties {
        use super::super::*;
        use crate::units::{MAX_INTERVAL, MIN_INTERVAL};

        use proptest::prelude::*;

        proptest! {
            #[test]
            fn any_operands_give_a_config_or_a_one_line_usage_error(
                operands in proptest::collection::vec("[0-9a-z.eE+-]{0,12}|\\PC{0,12}", 0..5)
            ) {
                match split_operands(&operands) {
                    Ok((devices, interval, count)) => {
                        prop_assert!(devices.len() <= operands.len());
                        if let Some(interval) = interval {
                            prop_assert!((MIN_INTERVAL..=MAX_INTERVAL).contains(&interval));
                        }
                        prop_assert!(count.is_none_or(|n| n >= 1));
                    }
                    Err(e) => {
                        prop_assert_eq!(crate::error::exit_code(&e), 2);
                        prop_assert!(!e.to_string().contains('\n'));
                    }
                }
            }

            #[test]
            fn interval_and_count_as_written_parse_back(
                millis in 10u64..=86_400_000,
                count in proptest::option::of(1u64..=u64::MAX),
            ) {
                let mut operands = vec!["vda".to_owned(), format!("{}.{:03}", millis / 1000, millis % 1000)];
                operands.extend(count.map(|n| n.to_string()));
                let (devices, interval, parsed_count) = split_operands(&operands).unwrap();
                prop_assert_eq!(devices, vec!["vda".to_owned()]);
                prop_assert_eq!(interval, Some(Duration::from_millis(millis)));
                prop_assert_eq!(parsed_count, count);
            }

            #[test]
            fn dec_takes_0_1_or_2_and_refuses_the_rest_in_one_line(text in "\\PC{0,6}") {
                match parse_decimals(&text) {
                    Ok(n) => {
                        prop_assert!(n <= 2);
                        prop_assert_eq!(text, n.to_string());
                    }
                    Err(e) => {
                        prop_assert_eq!(crate::error::exit_code(&e), 2);
                        prop_assert!(!e.to_string().contains('\n'));
                        prop_assert!(e.to_string().starts_with("--dec "), "{}", e);
                    }
                }
            }

            /// Any mix of sysstat's switches parses and validates to a report of something,
            /// or to a one-line usage error.
            #[test]
            fn any_mix_of_switches_gives_a_report_or_a_usage_error(
                switches in proptest::sample::subsequence(
                    vec!["-c", "-d", "-x", "-k", "-m", "-s", "-h", "-N", "-t", "-y", "-z",
                         "-H", "--human", "--pretty", "--compact", "--dec=1"],
                    0..8,
                ),
            ) {
                use clap::Parser;
                let mut argv = vec!["diskdash", "iostat"];
                argv.extend(&switches);
                let cli = crate::cli::Cli::try_parse_from(&argv)
                    .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
                let Some(crate::cli::Command::Iostat(args)) = cli.command else {
                    panic!("not iostat");
                };
                match validate(&args) {
                    Ok(config) => {
                        prop_assert!(config.cpu || config.disks);
                        prop_assert_eq!(config.cpu, switches.contains(&"-c") || !switches.contains(&"-d"));
                        prop_assert_eq!(config.layout.human, switches.contains(&"-h") || switches.contains(&"--human"));
                        prop_assert!(config.layout.decimals <= 2);
                    }
                    Err(e) => {
                        prop_assert_eq!(crate::error::exit_code(&e), 2);
                        prop_assert!(!e.to_string().contains('\n'));
                        let both_units = switches.contains(&"-k") && switches.contains(&"-m");
                        prop_assert!(both_units || switches.contains(&"-H"), "{}", e);
                    }
                }
            }

            #[test]
            fn every_interval_out_of_bounds_is_refused(
                seconds in prop_oneof![1e-300f64..0.009_999, 86_400.001f64..1e300]
            ) {
                let err = split_operands(&[format!("{seconds}")]).unwrap_err();
                prop_assert!(err.to_string().contains("use 10ms to 24h"), "{}", err);
            }
        }
    }

    #[test]
    fn every_bad_operand_gets_its_own_message_and_exit_2() {
        let cases = [
            (
                "0 5",
                "interval \"0\" with a count: an interval of 0 is one report since boot, which takes no count; use an interval of e.g. 1, or drop the count",
            ),
            (
                "1x",
                "interval \"1x\" is not an interval; use 10ms to 24h, e.g. 1s, 500ms or 2m",
            ),
            (
                "1 0",
                "count \"0\" must be at least 1; omit it to report until interrupted",
            ),
            ("1 2.5", "count \"2.5\" is not a whole number; use e.g. 5"),
            (
                "1 2 3",
                "unexpected number \"3\" after INTERVAL and COUNT; iostat takes at most two: diskdash iostat [DEVICE...] [INTERVAL [COUNT]]",
            ),
            (
                "1e999",
                "interval \"1e999\" is not an interval; use 10ms to 24h, e.g. 1s, 500ms or 2m",
            ),
            (
                "1e-300",
                "interval \"1e-300\" is not an interval; use 10ms to 24h, e.g. 1s, 500ms or 2m",
            ),
            (
                "0.009",
                "interval \"0.009\" is too short; use 10ms to 24h, e.g. 1s",
            ),
            (
                "86401",
                "interval \"86401\" is too long; use 10ms to 24h, e.g. 1s",
            ),
            (
                "-1",
                "interval \"-1\" must be more than 0 seconds; use e.g. 1, or 0 (or none) for one report since boot",
            ),
            (
                "1 -5",
                "count \"-5\" must be at least 1; omit it to report until interrupted",
            ),
            (
                "1 99999999999999999999",
                "count \"99999999999999999999\" is too large; omit it to report until interrupted",
            ),
        ];
        for (operands, message) in cases {
            let err = split_operands(&words(operands)).unwrap_err();
            assert_eq!(err.to_string(), message, "operands {operands:?}");
            assert_eq!(exit_code(&err), 2);
        }
    }

    #[test]
    fn unknown_devices_are_skipped_and_unknown_formats_are_usage_errors() {
        // sysstat lists a device that does not exist nowhere, and says nothing of it.
        let config = validate(&args("nosuchdisk 1")).unwrap();
        assert!(config.devices.is_empty() && config.named && !config.all_devices);
        let root = root_device();
        let config = validate(&args(&format!("nosuchdisk {root} /no/such/path"))).unwrap();
        assert_eq!(config.devices, vec![root]);
        let config = validate(&args("ALL")).unwrap();
        assert!(config.devices.is_empty() && !config.named && config.all_devices);
        // An existing path with no block device behind it is still a mistake to name.
        let err = validate(&args("/proc")).unwrap_err();
        assert_eq!(exit_code(&err), 2);
        assert!(err.to_string().starts_with("\"/proc\": "), "{err}");
        let mut xml = args("1");
        xml.output = Some("XML".into());
        let err = validate(&xml).unwrap_err();
        assert_eq!(
            err.to_string(),
            "-o \"XML\" is not an output format; use -o JSON (or leave it out for text)"
        );
        let mut missing_p = args("");
        missing_p.partitions = Some("nosuch".into());
        assert_eq!(
            validate(&missing_p).unwrap().partitions,
            Partitions::Of(vec![])
        );
        let mut bad_p = args("");
        bad_p.partitions = Some("/proc".into());
        let err = validate(&bad_p).unwrap_err();
        assert!(err.to_string().starts_with("-p \"/proc\": "), "{err}");
        assert!(err.to_string().ends_with("; or use -p ALL"), "{err}");
    }

    #[test]
    fn devices_by_name_node_or_path_resolve_to_kernel_names() {
        let root = root_device();
        let dev_node = format!("/dev/{root}");
        let mut typed = vec![root.clone(), "/".to_owned()];
        if std::path::Path::new(&dev_node).exists() {
            typed.push(dev_node);
        }
        typed.push("1".into());
        let mut a = args("");
        a.operands = typed;
        a.output = Some("json".into());
        let config = validate(&a).unwrap();
        assert_eq!(config.devices, vec![root]);
        assert!(config.json);
        assert_eq!(config.interval, Some(Duration::from_secs(1)));
    }

    #[test]
    fn reports_and_units_follow_sysstats_switches() {
        let with = |f: &dyn Fn(&mut IostatArgs)| {
            let mut a = args("");
            a.extended = false;
            f(&mut a);
            validate(&a).unwrap()
        };
        // Neither -c nor -d: both; -c: the CPU; -d: the devices; -x adds the devices.
        let plain = with(&|_| {});
        assert!(plain.cpu && plain.disks && !plain.layout.extended);
        let c = with(&|a| a.cpu_report = true);
        assert!(c.cpu && !c.disks);
        let d = with(&|a| a.device_report = true);
        assert!(!d.cpu && d.disks);
        let cx = with(&|a| {
            a.cpu_report = true;
            a.extended = true;
        });
        assert!(cx.cpu && cx.disks && cx.layout.extended);
        // -h is --human --pretty; -j sets --pretty where /dev/disk has the type.
        let h = with(&|a| a.human_pretty = true);
        assert!(h.layout.human && h.layout.pretty);
        let m = with(&|a| {
            a.megabytes = true;
            a.decimals = Some("0".into());
        });
        assert!(m.layout.mega && m.layout.decimals == 0);
        let g = with(&|a| {
            a.group = Some("all".into());
            a.group_only = true;
            a.operands = vec!["ALL".into()];
        });
        assert_eq!(
            g.group,
            Some(Group {
                name: " all".into(),
                only: true
            })
        );
        assert!(g.devices.is_empty(), "ALL is every device");
    }

    #[test]
    fn a_number_after_p_is_the_interval() {
        let mut a = args("3");
        a.partitions = Some("1".into());
        let config = validate(&a).unwrap();
        assert_eq!(config.partitions, Partitions::All { unused: false });
        assert_eq!(config.interval, Some(Duration::from_secs(1)));
        assert_eq!(config.count, Some(3));
        let mut of = args("");
        of.partitions = Some(root_device());
        let disk = device::resolve(std::path::Path::new("/")).unwrap().disk;
        assert_eq!(
            validate(&of).unwrap().partitions,
            Partitions::Of(vec![disk])
        );
    }
}
