//! `diskdash iostat` on this machine's real disks: layout, sysstat's JSON document, rates that
//! follow real I/O, parity with sysstat side by side (layout, devices, JSON keys and since-boot
//! values), and every bad argument.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::support::{BIN, Drained};
use serde_json::Value;

/// The `statistics` entries of sysstat's JSON document: `.sysstat.hosts[0].statistics[]`, the
/// traversal sysstat's own consumers use.
pub(crate) fn statistics(text: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    doc["sysstat"]["hosts"][0]["statistics"]
        .as_array()
        .unwrap_or_else(|| panic!("no .sysstat.hosts[0].statistics in {text}"))
        .clone()
}

/// sysstat 12's `iostat -x` disk keys, in its order.
const SYSSTAT_KEYS: [&str; 23] = [
    "disk_device",
    "r/s",
    "w/s",
    "d/s",
    "f/s",
    "rkB/s",
    "wkB/s",
    "dkB/s",
    "rrqm/s",
    "wrqm/s",
    "drqm/s",
    "rrqm",
    "wrqm",
    "drqm",
    "r_await",
    "w_await",
    "d_await",
    "f_await",
    "rareq-sz",
    "wareq-sz",
    "dareq-sz",
    "aqu-sz",
    "util",
];

const SYSSTAT_HEADER: &str = "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util";

fn diskdash(args: &[&str]) -> Output {
    Command::new(BIN).arg("iostat").args(args).output().unwrap()
}

/// The stdout of a run that succeeded.
fn stdout(out: &Output) -> String {
    crate::support::assert_success(out);
    crate::support::stdout(out)
}

/// The device the directory of the tests lives on, as the kernel names it.
fn test_dir_device() -> String {
    let out = Command::new(BIN)
        .args(["info", "--json", env!("CARGO_MANIFEST_DIR")])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    v["disks"][0]["device"].as_str().unwrap().to_owned()
}

#[test]
fn since_boot_report_is_laid_out_like_sysstat() {
    let dev = test_dir_device();
    let text = stdout(&diskdash(&["-dx"]));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains(" CPU)"), "{}", lines[0]);
    assert_eq!(lines[1], "");
    assert_eq!(lines[2], SYSSTAT_HEADER);
    let row = lines
        .iter()
        .find(|l| l.split_whitespace().next() == Some(dev.as_str()))
        .unwrap_or_else(|| panic!("no {dev} in\n{text}"));
    let values: Vec<f64> = row
        .split_whitespace()
        .skip(1)
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(values.len(), 22);
    // The test binary itself was read from this disk since boot.
    assert!(values[0] > 0.0 && values[1] > 0.0, "{row}");
    assert!(text.ends_with("\n\n\n"));
}

#[test]
fn json_document_carries_sysstats_keys_and_timestamps() {
    let dev = test_dir_device();
    let text = stdout(&diskdash(&[
        "-dx", "-t", "-y", "-o", "JSON", &dev, "0.2", "3",
    ]));
    let reports = statistics(&text);
    assert_eq!(reports.len(), 3);
    let mut previous = String::new();
    for report in &reports {
        let keys: Vec<&str> = report
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["disk", "timestamp"]);
        let stamp = report["timestamp"].as_str().unwrap().to_owned();
        // sysstat's `-t` format, whole seconds: MM/DD/YY HH:MM:SS.
        assert_eq!(stamp.len(), 17, "{stamp}");
        assert!(stamp >= previous, "{stamp}");
        previous = stamp;
        let disks = report["disk"].as_array().unwrap();
        assert_eq!(disks.len(), 1);
        let keys: Vec<&str> = disks[0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected = SYSSTAT_KEYS.to_vec();
        expected.sort_unstable();
        let mut keys = keys;
        keys.sort_unstable();
        assert_eq!(keys, expected);
        assert_eq!(disks[0]["disk_device"], dev.as_str());
    }
}

/// 1 MiB-aligned O_DIRECT writes of `total` bytes to a new file in `dir`, synced.
/// `-t` at a 1 s interval stamps consecutive reports exactly one second apart: the stamp is
/// the report's slot on the schedule, so a late wake-up near a second's boundary neither
/// repeats a label nor skips one (sysstat's stamps, whole seconds, move the same way).
#[test]
fn timestamps_at_one_second_advance_by_one_second() {
    let dev = test_dir_device();
    let text = stdout(&diskdash(&["-d", "-t", "-y", "-o", "JSON", &dev, "1", "3"]));
    let seconds: Vec<u32> = statistics(&text)
        .iter()
        .map(|report| {
            let stamp = report["timestamp"].as_str().unwrap();
            // MM/DD/YY HH:MM:SS
            let clock: Vec<u32> = stamp[9..].split(':').map(|v| v.parse().unwrap()).collect();
            clock[0] * 3600 + clock[1] * 60 + clock[2]
        })
        .collect();
    assert_eq!(seconds.len(), 3);
    for pair in seconds.windows(2) {
        assert_eq!((pair[1] + 86_400 - pair[0]) % 86_400, 1, "{seconds:?}");
    }
}

fn direct_write(dir: &std::path::Path, total: usize) {
    const CHUNK: usize = 1 << 20;
    let mut storage = vec![0x5au8; CHUNK + 4096];
    let offset = storage.as_ptr().align_offset(4096);
    let buf = &mut storage[offset..offset + CHUNK];
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_DIRECT)
        .open(dir.join("load"))
        .unwrap();
    for _ in 0..total / CHUNK {
        file.write_all(buf).unwrap();
    }
    file.sync_all().unwrap();
}

#[test]
fn write_rates_follow_real_o_direct_writes() {
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let dev = test_dir_device();
    let child = Command::new(BIN)
        .args(["iostat", "-x", "-y", "-o", "JSON", &dev, "0.25", "8"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    const TOTAL: usize = 24 << 20;
    direct_write(dir.path(), TOTAL);
    let out = child.wait_with_output().unwrap();
    let reports = statistics(&stdout(&out));
    assert_eq!(reports.len(), 8);
    // -x without -d: the avg-cpu block too.
    assert!(reports.iter().all(|r| r["avg-cpu"]["idle"].is_f64()));
    let written_kb: f64 = reports
        .iter()
        .map(|r| r["disk"][0]["wkB/s"].as_f64().unwrap() * 0.25)
        .sum();
    // Other processes may write too; ours alone is 24 MiB = 24576 kB.
    assert!(
        written_kb > 24_576.0 * 0.85,
        "saw {written_kb:.0} kB written"
    );
    let max_wareq = reports
        .iter()
        .map(|r| r["disk"][0]["wareq-sz"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(max_wareq >= 64.0, "write requests of {max_wareq} kB");
}

#[test]
#[ignore = "needs sysstat"]
fn since_boot_numbers_agree_with_sysstat() {
    require_sysstat();
    let dev = test_dir_device();
    let ours = stdout(&diskdash(&["-d", "-x", "-o", "JSON", &dev]));
    let theirs = Command::new("iostat")
        .args(["-d", "-x", "-o", "JSON", &dev])
        .output()
        .unwrap();
    let ours = &statistics(&ours)[0]["disk"][0];
    let theirs: Value = serde_json::from_slice(&theirs.stdout).unwrap();
    let theirs = &theirs["sysstat"]["hosts"][0]["statistics"][0]["disk"][0];
    assert_eq!(theirs["disk_device"], dev.as_str());
    for key in &SYSSTAT_KEYS[1..] {
        let (a, b) = (ours[key].as_f64().unwrap(), theirs[key].as_f64().unwrap());
        // Since-boot averages move little between the two runs; 0.02 is print rounding.
        let tolerance = 0.02f64.max(b.abs() * 0.02);
        assert!(
            (a - b).abs() <= tolerance,
            "{key}: diskdash {a}, sysstat {b}"
        );
    }
}

#[test]
fn partitions_all_and_omit_idle_select_like_sysstat() {
    let all = stdout(&diskdash(&["-d", "-p", "ALL"]));
    let default = stdout(&diskdash(&["-d"]));
    let names = |t: &str| -> Vec<String> {
        t.lines()
            .skip(3)
            .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
            .collect()
    };
    let (all, default) = (names(&all), names(&default));
    assert!(
        default.iter().all(|d| all.contains(d)),
        "{default:?} vs {all:?}"
    );
    let diskstats = std::fs::read_to_string("/proc/diskstats").unwrap();
    assert!(all.len() + 2 >= diskstats.lines().count(), "{all:?}");
    // -z over a quiet 0.2 s: every device shown did I/O, each row has a non-zero rate.
    let quiet = stdout(&diskdash(&["-dx", "-z", "-y", "0.2", "1"]));
    for line in quiet.lines().skip(4).filter(|l| !l.is_empty()) {
        let v: Vec<f64> = line
            .split_whitespace()
            .skip(1)
            .map(|v| v.parse().unwrap())
            .collect();
        assert!(v[0] + v[6] + v[12] + v[18] > 0.0, "{line}");
    }
}

#[test]
fn bad_arguments_exit_1_as_sysstat_with_the_value_and_the_fix() {
    let cases: [(&[&str], &str); 10] = [
        (
            &["--dec", "3"],
            "error: --dec \"3\" is not a number of decimal places; use --dec 0, 1 or 2",
        ),
        (
            &["-k", "-m"],
            "error: -k and -m both given; use -k for kilobytes or -m for megabytes",
        ),
        (
            &["-H"],
            "error: -H needs -g NAME: it shows only the group's line; e.g. -g all -H",
        ),
        (
            &["-j", "NOSUCHTYPE"],
            "error: -j \"NOSUCHTYPE\": /dev/disk/by-nosuchtype does not exist on this machine (no persistent names of that type); use a type listed in /dev/disk, or leave -j out",
        ),
        (
            &["0", "5"],
            "error: interval \"0\" with a count: an interval of 0 is one report since boot, which takes no count; use an interval of e.g. 1, or drop the count",
        ),
        (
            &["1", "0"],
            "error: count \"0\" must be at least 1; omit it to report until interrupted",
        ),
        (
            &["1x"],
            "error: interval \"1x\" is not an interval; use 10ms to 24h, e.g. 1s, 500ms or 2m",
        ),
        (
            &["1", "2", "3"],
            "error: unexpected number \"3\" after INTERVAL and COUNT; iostat takes at most two: diskdash iostat [DEVICE...] [INTERVAL [COUNT]]",
        ),
        (
            &["-o", "XML"],
            "error: -o \"XML\" is not an output format; use -o JSON (or leave it out for text)",
        ),
        (
            &["/proc"],
            "error: \"/proc\": /proc is on a proc filesystem (proc) with no block device behind it",
        ),
    ];
    for (args, message) in cases {
        let out = diskdash(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim_end(),
            message,
            "{args:?}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // Garbage flags are clap's: exit 1 as well, as sysstat's usage().
    assert_eq!(diskdash(&["--bogus"]).status.code(), Some(1));
}

/// A device that does not exist is left out without a word, as sysstat leaves it out; the
/// listing is then the named devices that do (none: the header alone), not every device.
#[test]
fn a_named_device_that_does_not_exist_is_skipped() {
    let dev = test_dir_device();
    let text = stdout(&diskdash(&["-d", "nosuchdisk"]));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[2].starts_with("Device "), "{text}");
    assert!(lines[3..].iter().all(|l| l.is_empty()), "{text}");
    let out = diskdash(&["-d", "nosuchdisk", &dev, "-p", "nosuchdisk2"]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    let rows: Vec<&str> = text
        .lines()
        .skip(3)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(rows, [dev.as_str()], "{text}");
}

/// sysstat's `iostat 0`: the since-boot report once and exit 0, as with no interval.
#[test]
fn an_interval_of_0_is_the_since_boot_report_once() {
    let once = stdout(&diskdash(&["-d"]));
    let zero = stdout(&diskdash(&["-d", "0"]));
    let headers = |t: &str| t.lines().filter(|l| l.starts_with("Device")).count();
    assert_eq!((headers(&once), headers(&zero)), (1, 1), "{zero}");
    assert_eq!(layout(&once), layout(&zero), "{once}\n{zero}");
}

/// The process contract side by side with sysstat's iostat: the same arguments give the same
/// exit code, output on the same streams, and (where both succeed) the same layout.
#[test]
#[ignore = "needs sysstat"]
fn exits_and_skipped_devices_match_sysstat_side_by_side() {
    require_sysstat();
    let dev = test_dir_device();
    let cases: [&[&str]; 22] = [
        &["-d"],
        &["-d", "0"],
        &["-dx", "00"],
        &["-d", "-y", "0"],
        &["-d", "nosuchdisk"],
        &["-dx", "nosuchdisk", "0"],
        &["-d", &dev, "nosuchdisk"],
        &["-d", "0", &dev],
        &["-d", "-p", "nosuchdisk"],
        &["-d", "ALL"],
        &["-d", "0", "2"],
        &["-x", "0", "1"],
        &["1", "0"],
        &["1", "-5"],
        &["1", "1", "1"],
        &["-q"],
        &["--bogus"],
        &["-o", "XML"],
        &["-k", "-m"],
        &["-H"],
        &["--dec=5"],
        &["-j", "NOSUCHTYPE"],
    ];
    for args in cases {
        let mut tries = 0;
        loop {
            let (ours, theirs) = both(args);
            let shape = |o: &Output| (o.status.code(), o.stdout.is_empty(), o.stderr.is_empty());
            assert_eq!(
                shape(&ours),
                shape(&theirs),
                "{args:?}\n--- diskdash\n{}{}\n--- sysstat\n{}{}",
                String::from_utf8_lossy(&ours.stdout),
                String::from_utf8_lossy(&ours.stderr),
                String::from_utf8_lossy(&theirs.stdout),
                String::from_utf8_lossy(&theirs.stderr),
            );
            let (a, b) = (
                layout(&String::from_utf8_lossy(&ours.stdout)),
                layout(&String::from_utf8_lossy(&theirs.stdout)),
            );
            if a == b {
                break;
            }
            // Devices come and go (other tests attach loop devices): one retry on a change.
            tries += 1;
            assert!(tries < 2, "{args:?}: layouts differ\n{a:#?}\n{b:#?}");
        }
    }
}

/// A link named `iostat` is `diskdash iostat`: the same report, sysstat's exit codes.
#[test]
fn a_link_named_iostat_is_diskdash_iostat() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("iostat");
    std::os::unix::fs::symlink(BIN, &link).unwrap();
    let through = |args: &[&str]| Command::new(&link).args(args).output().unwrap();
    let ours = through(&["-d"]);
    assert_eq!(layout(&stdout(&ours)), layout(&stdout(&diskdash(&["-d"]))));
    for args in [&["--bogus"][..], &["-k", "-m"], &["0", "3"]] {
        let (linked, direct) = (through(args), diskdash(args));
        assert_eq!(linked.status.code(), Some(1), "{args:?}");
        assert_eq!(linked.stderr, direct.stderr, "{args:?}");
        assert!(linked.stdout.is_empty(), "{args:?}");
    }
}

/// `-V` prints sysstat's version line (the release whose iostat this follows) and whose
/// program this is, exits 0, whatever else is on the line, as sysstat's.
#[test]
fn dash_v_names_the_sysstat_release_it_follows() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("iostat");
    std::os::unix::fs::symlink(BIN, &link).unwrap();
    let want = format!(
        "sysstat version 12.6.1\n(diskdash {}: iostat as sysstat 12.6.1 behaves, not sysstat's \
         code)\n",
        env!("CARGO_PKG_VERSION")
    );
    for out in [
        diskdash(&["-V"]),
        diskdash(&["-x", "-V", "1", "3"]),
        Command::new(&link).arg("-V").output().unwrap(),
    ] {
        crate::support::assert_quiet_success(&out);
        assert_eq!(crate::support::stdout(&out), want);
    }
}

/// `-V` beside sysstat's: the same exit, the same streams, the same first line where the
/// installed sysstat is the release followed.
#[test]
#[ignore = "needs sysstat"]
fn dash_v_matches_sysstat_side_by_side() {
    require_sysstat();
    for args in [&["-V"][..], &["-x", "-V"], &["-V", "1", "3"]] {
        let (ours, theirs) = both(args);
        assert_eq!(ours.status.code(), theirs.status.code(), "{args:?}");
        assert_eq!(
            (ours.stderr.is_empty(), theirs.stderr.is_empty()),
            (true, true)
        );
        let first = |o: &Output| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        };
        let (mine, sysstat) = (first(&ours), first(&theirs));
        assert_eq!(mine, "sysstat version 12.6.1");
        assert!(sysstat.starts_with("sysstat version "), "{sysstat}");
        if sysstat.ends_with(" 12.6.1") {
            assert_eq!(mine, sysstat);
        }
        assert_eq!(ours.stdout.iter().filter(|&&b| b == b'\n').count(), 2);
        assert_eq!(theirs.stdout.iter().filter(|&&b| b == b'\n').count(), 2);
    }
}

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let mut child = Command::new(BIN)
        .args(["iostat", "-y", "0.05"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    crate::support::assert_quiet_success(&out);
}

/// Fails a side-by-side test (marked `#[ignore = "needs sysstat"]`) that was asked to run
/// where sysstat's `iostat` is not installed, saying so (CI installs it).
fn require_sysstat() {
    assert!(
        Command::new("iostat").arg("-V").output().is_ok(),
        "this test needs sysstat's iostat: apt-get install sysstat, or leave out --include-ignored"
    );
}

/// The layout of a text report: every line that is not a device's values (the header lines,
/// the avg-cpu title, blank lines) as is, and `@device` for each device line, with the name
/// taken from the left or, for --pretty, from the right.
fn layout(text: &str) -> Vec<String> {
    let mut pretty = false;
    text.lines()
        .skip(1) // the system line: the date may turn over between the runs
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let is_values = words
                .iter()
                .filter(|w| w.starts_with(|c: char| c.is_ascii_digit()))
                .count()
                >= 2;
            if line.ends_with(" Device") {
                pretty = true;
            } else if line.starts_with("Device") {
                pretty = false;
            }
            match (is_values, words.first(), words.last()) {
                (true, Some(first), Some(last)) if !line.starts_with(' ') || pretty => {
                    if pretty {
                        format!("@{last}")
                    } else if line.starts_with(|c: char| c.is_ascii_whitespace()) {
                        "(values)".to_owned() // the avg-cpu values
                    } else {
                        format!("@{first}")
                    }
                }
                (true, _, _) => "(values)".to_owned(),
                _ => line.to_owned(),
            }
        })
        .collect()
}

/// Runs sysstat's `iostat` and ours with the same arguments at the same moment.
fn both(args: &[&str]) -> (Output, Output) {
    let mut theirs = Command::new("iostat");
    theirs.args(args);
    let theirs = Drained::spawn(theirs);
    let mut ours = Command::new(BIN);
    ours.arg("iostat").args(args);
    let ours = Drained::spawn(ours);
    (ours.wait(), theirs.wait())
}

/// The same flags give sysstat's layout: the same header lines and column names, the avg-cpu
/// block where sysstat prints it, the same blank lines, and the same devices in the same order.
#[test]
#[ignore = "needs sysstat"]
fn text_reports_are_laid_out_like_sysstats_for_every_flag_set() {
    require_sysstat();
    let dev = test_dir_device();
    let flag_sets: [&[&str]; 24] = [
        &[],
        &["-d"],
        &["-c"],
        &["-x"],
        &["-dx"],
        &["-c", "-x"],
        &["-d", "-k"],
        &["-d", "-m"],
        &["-dx", "-m"],
        &["-d", "-s"],
        &["-dx", "-s"],
        &["-dx", "-s", "-m"],
        &["-h"],
        &["-dx", "-h"],
        &["-d", "--human"],
        &["-dx", "--pretty", "--compact"],
        &["-d", "-p", "ALL"],
        &["-dx", "-p", "ALL", "-z"],
        &["-d", "-p"],
        &["-x", "-p", "ALL", &dev],
        &["-d", "-N"],
        &["-d", "--dec=0"],
        &["-dx", "--dec=1", "-t"],
        &["-d", "-g", "grp", &dev],
    ];
    for args in flag_sets {
        // Devices come and go (other tests attach loop devices): one retry on a change.
        let mut tries = 0;
        loop {
            let (ours, theirs) = both(args);
            let (ours, theirs) = (stdout(&ours), stdout(&theirs));
            let (a, b) = (layout(&ours), layout(&theirs));
            if a == b {
                break;
            }
            tries += 1;
            assert!(
                tries < 2,
                "{args:?}: layouts differ\n--- diskdash\n{ours}\n--- sysstat\n{theirs}\n\
                 --- {a:#?}\n--- {b:#?}"
            );
        }
    }
    // -H: only the group's line.
    let (ours, theirs) = both(&["-d", "-g", "grp", "-H", &dev]);
    let (ours, theirs) = (stdout(&ours), stdout(&theirs));
    assert_eq!(layout(&ours), layout(&theirs), "{ours}\n{theirs}");
    assert!(ours.contains("\n grp "), "{ours}");
}

/// The keys of each statistics entry and of its avg-cpu and disk objects, and the devices.
fn json_shape(doc: &str) -> Vec<String> {
    let keys = |v: &Value| -> String {
        v.as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    let mut shape = Vec::new();
    let whole: Value = serde_json::from_str(doc).unwrap_or_else(|e| panic!("{e}: {doc}"));
    shape.push(keys(&whole["sysstat"]["hosts"][0]));
    for entry in statistics(doc) {
        shape.push(keys(&entry));
        shape.push(keys(&entry["avg-cpu"]));
        for disk in entry["disk"].as_array().into_iter().flatten() {
            shape.push(format!("{} {}", disk["disk_device"], keys(disk)));
        }
    }
    shape
}

/// sysstat's JSON consumers work unchanged: the same document shape and keys through
/// `.sysstat.hosts[0].statistics[]`, and the since-boot values of both tools agree.
#[test]
#[ignore = "needs sysstat"]
fn json_documents_match_sysstats_side_by_side() {
    require_sysstat();
    let dev = test_dir_device();
    // One named device, not the machine's list (which may hold a thousand, coming and going).
    for args in [
        &["-o", "JSON", "-t", &dev, "1", "2"][..],
        &["-o", "JSON", "-dx", "-t", &dev, "1", "2"],
        &["-o", "JSON", "-c", "1", "2"],
        &["-o", "JSON", "-d", "-m", &dev],
        &["-o", "JSON", "-dx", "-s", &dev],
    ] {
        let mut tries = 0;
        let (ours, theirs) = loop {
            let (ours, theirs) = both(args);
            let (ours, theirs) = (stdout(&ours), stdout(&theirs));
            if json_shape(&ours) == json_shape(&theirs) {
                break (ours, theirs);
            }
            tries += 1;
            assert!(
                tries < 2,
                "{args:?}: shapes differ\n{:#?}\n{:#?}",
                json_shape(&ours),
                json_shape(&theirs)
            );
        };
        // The since-boot report: the same numbers within print rounding and the moments
        // between the two reads.
        let (a, b) = (&statistics(&ours)[0], &statistics(&theirs)[0]);
        for key in ["user", "nice", "system", "iowait", "steal", "idle"] {
            if let (Some(x), Some(y)) = (a["avg-cpu"][key].as_f64(), b["avg-cpu"][key].as_f64()) {
                assert!(
                    (x - y).abs() <= 0.5,
                    "avg-cpu {key}: diskdash {x}, sysstat {y}"
                );
            }
        }
        let disks = |v: &Value| v["disk"].as_array().cloned().unwrap_or_default();
        for (x, y) in disks(a).iter().zip(disks(b).iter()) {
            assert_eq!(x["disk_device"], y["disk_device"]);
            for (key, value) in y.as_object().unwrap() {
                let (Some(mine), Some(theirs)) = (x[key].as_f64(), value.as_f64()) else {
                    continue;
                };
                // Totals (kB_read...) grow with the I/O done between the two reads; rates
                // since boot barely move.
                let tolerance = 0.02f64.max(theirs.abs() * 0.02);
                assert!(
                    (mine - theirs).abs() <= tolerance,
                    "{args:?} {} {key}: diskdash {mine}, sysstat {theirs}",
                    y["disk_device"]
                );
            }
        }
    }
}

#[test]
fn dash_h_is_human_readable_and_help_is_long() {
    let out = diskdash(&["-x", "-h"]);
    let text = stdout(&out);
    assert!(!text.contains("Usage"), "{text}");
    // --pretty: device names on the right, the extended table in four parts; --human: units.
    assert_eq!(
        text.lines().filter(|l| l.ends_with(" Device")).count(),
        4,
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("avg-cpu:")), "{text}");
    assert!(text.contains('%') && text.contains("k "), "{text}");
    let help = stdout(&diskdash(&["--help"]));
    assert!(help.starts_with("CPU and device statistics"), "{help}");
    assert!(help.contains("Usage: diskdash iostat"), "{help}");
}

#[test]
fn an_interrupted_json_run_still_closes_its_document() {
    // One named device, its output read while it runs.
    let dev = test_dir_device();
    let mut command = Command::new(BIN);
    command.args(["iostat", "-o", "JSON", "-d", &dev, "0.1"]);
    let child = Drained::spawn(command);
    child.wait_for_stdout("3 reports", Duration::from_secs(30), |s| {
        s.matches("\"disk\":").count() >= 3
    });
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let out = child.wait();
    crate::support::assert_quiet_success(&out);
    let reports = statistics(&crate::support::stdout(&out));
    assert!(reports.len() >= 3, "{reports:?}");
}
