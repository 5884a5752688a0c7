//! `diskdash iostat` on this machine's real disks: layout, JSON Lines, rates that follow real
//! I/O, parity with sysstat's since-boot report, and every bad argument.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::support::{BIN, json_lines};
use serde_json::Value;

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
    let text = stdout(&diskdash(&["-x"]));
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
fn json_lines_carry_sysstats_keys_and_a_timestamp() {
    let dev = test_dir_device();
    let text = stdout(&diskdash(&["-x", "-y", "-o", "JSON", &dev, "0.2", "3"]));
    let reports = json_lines(&text);
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
        assert!(stamp.ends_with('Z') && stamp > previous, "{stamp}");
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
        .args(["iostat", "-y", "-o", "JSON", &dev, "0.25", "8"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    const TOTAL: usize = 24 << 20;
    direct_write(dir.path(), TOTAL);
    let out = child.wait_with_output().unwrap();
    let reports = json_lines(&stdout(&out));
    assert_eq!(reports.len(), 8);
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
fn since_boot_numbers_agree_with_sysstat() {
    if Command::new("iostat").arg("-V").output().is_err() {
        eprintln!("skipped: sysstat's iostat is not installed (apt-get install sysstat)");
        return;
    }
    let dev = test_dir_device();
    let ours = stdout(&diskdash(&["-d", "-x", "-o", "JSON", &dev]));
    let theirs = Command::new("iostat")
        .args(["-d", "-x", "-o", "JSON", &dev])
        .output()
        .unwrap();
    let ours = &json_lines(&ours)[0]["disk"][0];
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
    let all = stdout(&diskdash(&["-p", "ALL"]));
    let default = stdout(&diskdash(&[]));
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
    let quiet = stdout(&diskdash(&["-z", "-y", "0.2", "1"]));
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
fn bad_arguments_exit_2_with_the_value_and_the_fix() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["nosuchdisk", "1"],
            "error: \"nosuchdisk\" is neither a block device nor an existing path; use a name from /proc/diskstats (e.g. vda), /dev/NAME, or a path on a disk",
        ),
        (
            &["0"],
            "error: interval \"0\" must be more than 0 seconds; use e.g. 1, or omit it for one report since boot",
        ),
        (
            &["1", "0"],
            "error: count \"0\" must be at least 1; omit it to report until interrupted",
        ),
        (
            &["1s"],
            "error: interval \"1s\" is not a number of seconds; use e.g. 1 or 0.5",
        ),
        (
            &["1", "two"],
            "error: count \"two\" is not a whole number; use e.g. 5",
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
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim_end(),
            message,
            "{args:?}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // Garbage flags are clap's: exit 2 as well.
    assert_eq!(diskdash(&["--bogus"]).status.code(), Some(2));
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
