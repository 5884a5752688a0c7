//! `--record`: `diskdash iostat --record` and the monitor dashboard's recording (JSON Lines,
//! checked against the schema and against /proc/diskstats), rotation, appending and refusals.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::record::assert_valid_monitor_line;
use crate::support::{BIN, LoopDevice, json_lines};
use serde_json::Value;

fn iostat(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .arg("iostat")
        .args(args)
        .output()
        .unwrap()
}

fn recorded(path: &Path) -> Vec<Value> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let lines = json_lines(&text);
    for line in &lines {
        assert_valid_monitor_line(line);
    }
    lines
}

fn is_header(line: &Value) -> bool {
    line["format"] == "diskdash-monitor"
}

/// The 16 cumulative counters of `name` in /proc/diskstats, in the recording's `delta` order.
const DELTA_KEYS: [(&str, usize); 16] = [
    ("reads", 3),
    ("reads_merged", 4),
    ("sectors_read", 5),
    ("read_ms", 6),
    ("writes", 7),
    ("writes_merged", 8),
    ("sectors_written", 9),
    ("write_ms", 10),
    ("io_ms", 12),
    ("weighted_io_ms", 13),
    ("discards", 14),
    ("discards_merged", 15),
    ("sectors_discarded", 16),
    ("discard_ms", 17),
    ("flushes", 18),
    ("flush_ms", 19),
];

fn counters(name: &str) -> Vec<u64> {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap();
    let fields: Vec<&str> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f[2] == name)
        .unwrap_or_else(|| panic!("no {name} in /proc/diskstats"));
    DELTA_KEYS
        .iter()
        .map(|(_, i)| fields[*i].parse().unwrap())
        .collect()
}

/// Reads `bytes` of `dev` with O_DIRECT in 64 KiB requests.
fn read_direct(dev: &Path, bytes: usize) {
    const CHUNK: usize = 64 << 10;
    let mut storage = vec![0u8; CHUNK + 4096];
    let offset = storage.as_ptr().align_offset(4096);
    let buf = &mut storage[offset..offset + CHUNK];
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(dev)
        .unwrap();
    let mut done = 0;
    while done < bytes {
        let n = file.read(buf).unwrap();
        assert!(n > 0);
        done += n;
    }
}

fn wait_for_lines(path: &Path, n: usize, timeout: Duration) {
    let start = Instant::now();
    while std::fs::read_to_string(path).map_or(0, |t| t.lines().count()) < n {
        assert!(
            start.elapsed() < timeout,
            "{} never had {n} lines",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
#[ignore = "needs root"]
fn iostat_records_what_proc_diskstats_counted_under_a_known_load() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    crate::support::sparse_file(&image, 8 << 20);
    // A device of this test's own: after udev's probes settle, only this test does I/O on it.
    let device = LoopDevice::attach_unique(&image);
    let name = device.name();
    let _ = Command::new("udevadm").arg("settle").status();
    std::thread::sleep(Duration::from_millis(300));
    let before = counters(&name);
    let record = dir.path().join("r.jsonl");
    let mut child = Command::new(BIN)
        .args(["iostat", "-dx", "-o", "JSON", &name, "--record"])
        .arg(&record)
        .args(["0.2", "8"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The header is written after the first sample: the load falls inside the recording.
    wait_for_lines(&record, 1, Duration::from_secs(10));
    read_direct(device.path(), 4 << 20);
    let out = {
        let mut stdout = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(status.success());
        stdout
    };
    let after = counters(&name);
    drop(device);

    let lines = recorded(&record);
    // The since-boot report is no window: 8 reports, 7 samples.
    assert_eq!(lines.len(), 1 + 7, "{lines:#?}");
    assert!(is_header(&lines[0]));
    assert_eq!(lines[0]["writer"], "iostat");
    assert_eq!(lines[0]["interval_ns"], 200_000_000);
    assert_eq!(lines[0]["disks"][0]["name"], name.as_str());
    assert!(lines[0]["disks"][0]["queue"]["logical_block_size"].is_u64());
    let samples = &lines[1..];
    let reports = crate::iostat::statistics(&out);
    for (i, s) in samples.iter().enumerate() {
        assert_eq!(s["seq"], i as u64 + 1);
        let disks = s["disks"].as_array().unwrap();
        assert_eq!(disks.len(), 1, "only the device asked for");
        let d = &disks[0];
        assert_eq!(d["name"], name.as_str());
        // The columns are the report's, and the deltas over the window give them.
        assert_eq!(d["iostat"], reports[i + 1]["disk"][0], "sample {}", i + 1);
        let window_s = s["window_ns"].as_f64().unwrap() / 1e9;
        assert!((0.15..0.6).contains(&window_s), "window {window_s}");
        let per_s = |key: &str| d["delta"][key].as_f64().unwrap() / window_s;
        let near = |got: &Value, want: f64| (got.as_f64().unwrap() - want).abs() <= 0.006;
        assert!(near(&d["iostat"]["r/s"], per_s("reads")), "{d}");
        assert!(
            near(&d["iostat"]["rkB/s"], per_s("sectors_read") / 2.0),
            "{d}"
        );
        assert!(near(&d["iostat"]["util"], per_s("io_ms") / 10.0), "{d}");
        if i > 0 {
            let gap = s["monotonic_ns"].as_u64().unwrap()
                - samples[i - 1]["monotonic_ns"].as_u64().unwrap();
            assert_eq!(gap, s["window_ns"].as_u64().unwrap(), "windows tile");
        }
    }
    // Every counter's deltas add up to what /proc/diskstats counted around the run.
    for (k, (key, _)) in DELTA_KEYS.iter().enumerate() {
        let sum: u64 = samples
            .iter()
            .map(|s| s["disks"][0]["delta"][key].as_u64().unwrap())
            .sum();
        assert_eq!(sum, after[k] - before[k], "{key}");
    }
    let sectors: u64 = samples
        .iter()
        .map(|s| s["disks"][0]["delta"]["sectors_read"].as_u64().unwrap())
        .sum();
    assert_eq!(sectors * 512, 4 << 20, "the test's 4 MiB, nothing else");
}

#[test]
fn a_tiny_record_max_rotates_and_keeps_the_newest_files() {
    let dir = tempfile::tempdir().unwrap();
    // One disk (the one this runs on), so a header and a sample are about 1.5 KiB.
    let disk = crate::support::run(BIN, &["info", "--json", env!("CARGO_MANIFEST_DIR")]);
    let disk: Value = serde_json::from_str(&disk).unwrap();
    let disk = disk["disks"][0]["disk"].as_str().unwrap().to_owned();
    let out = iostat(
        dir.path(),
        &[
            &disk,
            "--record",
            "r.jsonl",
            "--record-max",
            "4k",
            "--record-keep",
            "2",
            "0.02",
            "40",
        ],
    );
    crate::support::assert_success(&out);
    let names = ["r.jsonl.2", "r.jsonl.1", "r.jsonl"];
    assert!(!dir.path().join("r.jsonl.3").exists(), "keep 2");
    let mut seqs = Vec::new();
    for name in names {
        let path = dir.path().join(name);
        let size = std::fs::metadata(&path).unwrap().len();
        let lines = recorded(&path);
        assert!(
            is_header(&lines[0]),
            "{name} reads alone: it starts with a header"
        );
        assert!(lines[1..].iter().all(|l| !is_header(l)), "{name}");
        assert!(lines.len() >= 2, "{name}: a header and samples");
        // Rotated before passing the limit, unless one sample alone passes it.
        assert!(size <= 4096 || lines.len() == 2, "{name}: {size} bytes");
        seqs.extend(lines[1..].iter().map(|l| l["seq"].as_u64().unwrap()));
    }
    // Oldest file first: the samples follow on without a gap, up to the last of 39.
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
    assert_eq!(*seqs.last().unwrap(), 39);
}

#[test]
fn an_existing_recording_is_appended_to_and_anything_else_refused() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("r.jsonl");
    for _ in 0..2 {
        crate::support::assert_success(&iostat(
            dir.path(),
            &[&one_disk(), "--record", "r.jsonl", "0.05", "3"],
        ));
    }
    let lines = recorded(&record);
    let headers: Vec<usize> = (0..lines.len()).filter(|&i| is_header(&lines[i])).collect();
    assert_eq!(headers, [0, 3], "a new header marks the restart");
    assert_eq!(lines.len(), 6);

    std::fs::write(&record, "precious\n").unwrap();
    let out = iostat(dir.path(), &["--record", "r.jsonl", "1", "2"]);
    assert_eq!(out.status.code(), Some(1), "sysstat's usage exit");
    assert_eq!(
        crate::support::stderr(&out).trim(),
        "error: --record r.jsonl exists and is not a diskdash monitor recording (9 bytes); \
         choose another name, or pass --force to replace it"
    );
    assert_eq!(std::fs::read_to_string(&record).unwrap(), "precious\n");
    let out = iostat(
        dir.path(),
        &[&one_disk(), "--record", "r.jsonl", "--force", "0.05", "2"],
    );
    crate::support::assert_success(&out);
    assert_eq!(recorded(&record).len(), 2);

    for (args, want) in [
        (
            vec!["--record", "x", "--record-max", "0", "1", "2"],
            "error: --record-max \"0\" is not a file size; use e.g. 100M, 1G or 512k (more than 0)",
        ),
        (
            vec!["--record", "x", "--record-max", "lots", "1", "2"],
            "error: --record-max \"lots\" is not a file size; use e.g. 100M, 1G or 512k (more than 0)",
        ),
        (
            vec!["--record", "x", "--record-keep", "0", "1", "2"],
            "error: --record-keep \"0\" is not a number of files; use 1 to 100 (`show` reads at \
             most 256 MiB of a rotated set)",
        ),
        (
            vec!["--record", "-", "1", "2"],
            "error: --record - : a recording goes to a file (it is appended to and rotated); for \
             JSON on stdout use diskdash iostat -o JSON INTERVAL",
        ),
        (
            vec!["--record", "x"],
            "error: --record needs an INTERVAL: it records one line per interval; e.g. diskdash \
             iostat --record FILE 1",
        ),
    ] {
        // In this process (`support::inproc`), "x" named by its path in the test's directory.
        let x = dir.path().join("x");
        let mut all = vec!["iostat"];
        all.extend(
            args.iter()
                .map(|&a| if a == "x" { x.to_str().unwrap() } else { a }),
        );
        let err = crate::support::inproc::usage_error(&all);
        assert_eq!(err.trim(), want, "{args:?}");
        assert!(!x.exists(), "{args:?}");
    }
    // End to end once: the binary's stderr is the one line, exit 1 (sysstat's usage exit).
    let out = iostat(dir.path(), &["--record", "x"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        crate::support::stderr(&out)
    );
    assert_eq!(
        crate::support::stderr(&out).trim(),
        "error: --record needs an INTERVAL: it records one line per interval; e.g. diskdash \
         iostat --record FILE 1"
    );
    assert!(!dir.path().join("x").exists());
    // Before the subcommand it would record the dashboard, which does not run (in this
    // process, exit 2).
    let x = dir.path().join("x");
    let err =
        crate::support::inproc::usage_error(&["--record", x.to_str().unwrap(), "iostat", "1", "2"]);
    assert_eq!(
        err.trim(),
        "error: --record before the subcommand records the monitor dashboard, which does not \
         run; for iostat put it after: diskdash iostat INTERVAL --record FILE"
    );
    assert!(!dir.path().join("x").exists());
}

/// Thaws a frozen filesystem on drop, so a failing test leaves no mount frozen.
pub struct Frozen<'a>(pub &'a Path);

impl Frozen<'_> {
    pub fn thaw(&self) {
        // Quiet: thawing what is not frozen (again, on drop) is no error worth a word.
        let _ = Command::new("fsfreeze")
            .arg("-u")
            .arg(self.0)
            .stderr(Stdio::null())
            .status();
    }
}

impl Drop for Frozen<'_> {
    fn drop(&mut self) {
        self.thaw();
    }
}

/// An ext4 image mounted in `dir/mnt` through a loop device of its own.
pub fn mounted_ext4(dir: &Path) -> (LoopDevice, crate::support::Mount) {
    let image = dir.join("fs.img");
    crate::support::ext4_image(&image, 64 << 20);
    let device = LoopDevice::attach_unique(&image);
    let mnt = dir.join("mnt");
    let mount = crate::support::Mount::new(&[device.path().to_str().unwrap()], &mnt);
    (device, mount)
}

#[test]
#[ignore = "needs root"]
fn a_frozen_disk_under_the_recording_delays_no_report_and_loses_no_sample() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let (device, mount) = mounted_ext4(dir.path());
    let record = mount.0.join("r.jsonl");
    // Its own device only: a machine's thousand devices would not make 30 reports in time.
    let mut child = Command::new(BIN)
        .args(["iostat", "-o", "JSON", &device.name(), "--record"])
        .arg(&record)
        .args(["0.1", "30"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_lines(&record, 1, Duration::from_secs(10));
    let frozen = Frozen(&mount.0);
    crate::support::run("fsfreeze", &["-f", mount.0.to_str().unwrap()]);
    let started = Instant::now();
    // Every report arrives on schedule although no line of the recording can be written.
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut reports = 0;
    let mut line = String::new();
    while reports < 30 {
        line.clear();
        assert!(std::io::BufRead::read_line(&mut stdout, &mut line).unwrap() > 0);
        reports += 1;
    }
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(6),
        "30 reports at 0.1 s took {took:?}"
    );
    // Then it waits for the disk to take what is queued, and writes all of it once thawed.
    assert!(
        child.try_wait().unwrap().is_none(),
        "exited with samples unwritten"
    );
    frozen.thaw();
    assert!(child.wait().unwrap().success());
    let lines = recorded(&record);
    assert_eq!(lines.len(), 1 + 29);
    let seqs: Vec<u64> = lines[1..]
        .iter()
        .map(|l| l["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (1..=29).collect::<Vec<_>>());
}

#[test]
#[ignore = "needs root"]
fn a_disk_frozen_longer_than_the_queue_drops_samples_and_says_so() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let (device, mount) = mounted_ext4(dir.path());
    let record = mount.0.join("r.jsonl");
    // Its own device only: the queue and the 64 MiB file hold 400 samples of one device, not
    // of a machine's thousand.
    let mut child = Command::new(BIN)
        .args(["iostat", "-o", "JSON", &device.name(), "--record"])
        .arg(&record)
        .args(["0.01", "400"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Its reports counted as they come (an avg-cpu line each): they go on while the disk is
    // frozen.
    let reports = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = {
        let (reports, stdout) = (reports.clone(), child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
                if line.unwrap().contains("\"avg-cpu\"") {
                    reports.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        })
    };
    wait_for_lines(&record, 1, Duration::from_secs(10));
    let frozen = Frozen(&mount.0);
    crate::support::run("fsfreeze", &["-f", mount.0.to_str().unwrap()]);
    // Frozen for 300 reports (or to the last): far more than the 256 samples that wait for the
    // disk, however fast this machine samples.
    let until = (reports.load(std::sync::atomic::Ordering::Relaxed) + 300).min(400);
    let started = Instant::now();
    while reports.load(std::sync::atomic::Ordering::Relaxed) < until {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "reports stopped"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    frozen.thaw();
    counter.join().unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{err}");
    let lines = recorded(&record);
    let seqs: Vec<u64> = lines[1..]
        .iter()
        .map(|l| l["seq"].as_u64().unwrap())
        .collect();
    let dropped = 399 - seqs.len() as u64;
    assert!(
        dropped > 0 && seqs.len() >= 256,
        "{} samples written",
        seqs.len()
    );
    assert!(seqs.windows(2).all(|w| w[1] > w[0]) && *seqs.last().unwrap() <= 399);
    let gaps: u64 = seqs.windows(2).map(|w| w[1] - w[0] - 1).sum::<u64>()
        + (399 - seqs.last().unwrap())
        + (seqs[0] - 1);
    assert_eq!(gaps, dropped, "every dropped sample is a gap in seq");
    assert_eq!(
        err.trim(),
        format!(
            "note: recording: {dropped} samples dropped while the disk it goes to stalled (gaps \
             in seq)"
        )
    );
}

#[test]
#[ignore = "needs root"]
fn a_write_error_ends_iostat_with_exit_1_and_the_lines_before_it_stay() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let (device, mount) = mounted_ext4(dir.path());
    let record = mount.0.join("r.jsonl");
    let child = Command::new(BIN)
        .args(["iostat", &device.name(), "--record"])
        .arg(&record)
        .args(["0.1", "50"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_lines(&record, 3, Duration::from_secs(10));
    let kept = std::fs::read(&record).unwrap();
    crate::support::shutdown_ext4(&mount.0);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = crate::support::stderr(&out);
    assert!(
        err.starts_with(&format!("error: --record: writing {}: ", record.display()))
            && err.trim_end().ends_with("(os error 5)")
            && err.lines().count() == 1,
        "{err}"
    );
    // Whole lines, as many as were written before the disk went away.
    let whole = String::from_utf8(kept).unwrap();
    assert!(whole.ends_with('\n') && json_lines(&whole).len() >= 3);
}

/// Puts `bytes` at `path` as another program would: a new file renamed over the name.
fn replace_with(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("theirs.tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// The disk `CARGO_MANIFEST_DIR` is on: one disk keeps a sample line about 1.5 KiB.
fn one_disk() -> String {
    let disk = crate::support::run(BIN, &["info", "--json", env!("CARGO_MANIFEST_DIR")]);
    let disk: Value = serde_json::from_str(&disk).unwrap();
    disk["disks"][0]["disk"].as_str().unwrap().to_owned()
}

fn checksum(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

#[test]
fn rotation_never_replaces_rotated_names_another_program_made_after_the_start() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("rot")).unwrap();
    let disk = one_disk();
    let child = Command::new(BIN)
        .current_dir(dir.path())
        .args(["iostat", "-d", &disk, "--record", "rot/rec.jsonl"])
        .args(["--record-max", "8k", "--record-keep", "2", "0.05", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // The other program's files: one even starts like a recording.
    let theirs_1 = b"{\"format\":\"diskdash-monitor\" but theirs\n".repeat(50);
    let theirs_2: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let (one, two) = (
        dir.path().join("rot/rec.jsonl.1"),
        dir.path().join("rot/rec.jsonl.2"),
    );
    replace_with(&one, &theirs_1);
    replace_with(&two, &theirs_2);
    let before = (checksum(&theirs_1), checksum(&theirs_2));
    let out = child.wait_with_output().unwrap();
    crate::support::assert_success(&out);
    let after = (
        checksum(&std::fs::read(&one).unwrap()),
        checksum(&std::fs::read(&two).unwrap()),
    );
    assert_eq!(after, before, "the other program's files are untouched");
    // Nothing lost: every sample after theirs appeared is in the current file, which grew
    // past the limit, with the note saying why.
    let lines = recorded(&dir.path().join("rot/rec.jsonl"));
    let seqs: Vec<u64> = lines.iter().filter_map(|l| l["seq"].as_u64()).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
    assert_eq!(seqs.last(), Some(&59));
    assert!(
        std::fs::metadata(dir.path().join("rot/rec.jsonl"))
            .unwrap()
            .len()
            > 8192
    );
    let notes: Vec<&Value> = lines.iter().filter(|l| l.get("note").is_some()).collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["note"]["kind"], "rotation_blocked");
    assert_eq!(notes[0]["note"]["max_bytes"], 8192);
    // Said once on stderr, naming the file and why.
    let err = crate::support::stderr(&out);
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("rotation held back"))
        .collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(
        said[0].starts_with("warning: recording: rotation held back: rot/rec.jsonl.")
            && said[0].contains("is not a file this recording wrote")
            && said[0].ends_with("past --record-max 8 KiB until it is moved away"),
        "{err}"
    );
    let names: Vec<String> = std::fs::read_dir(dir.path().join("rot"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("rec.jsonl"))
        .collect();
    assert!(names.is_empty(), "no temporary file left: {names:?}");
}

/// Fills `dir`'s file system: a file of zeros written until no byte more fits.
fn fill(path: &Path) {
    use std::io::Write;
    let mut file = std::fs::File::create(path).unwrap();
    let block = [0u8; 4096];
    loop {
        match file.write(&block) {
            Ok(0) => break,
            Ok(_) => {}
            Err(err) if err.raw_os_error() == Some(libc::ENOSPC) => break,
            Err(err) => panic!("filling {}: {err}", path.display()),
        }
    }
    // Bytes of a page tmpfs still had.
    while let Ok(n) = file.write(&block[..1]) {
        if n == 0 {
            break;
        }
    }
}

#[test]
#[ignore = "needs root"]
fn a_full_file_system_pauses_the_recording_without_a_torn_line_and_marks_the_gap() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    let mount = crate::support::Mount::new(&["-t", "tmpfs", "-o", "size=300k", "tmpfs"], &mnt);
    let record = mount.0.join("r.jsonl");
    let disk = one_disk();
    let mut child = Command::new(BIN)
        .args(["iostat", "-d", &disk, "--record"])
        .arg(&record)
        .args(["0.05", "100"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_lines(&record, 4, Duration::from_secs(10));
    let filler = mount.0.join("filler");
    fill(&filler);
    // Full for a second: lines that do not fit are cut back, the file ends whole.
    std::thread::sleep(Duration::from_secs(1));
    let while_full = std::fs::read_to_string(&record).unwrap();
    assert!(
        while_full.ends_with('\n'),
        "torn: {:?}",
        &while_full[while_full.len() - 80..]
    );
    let written_while_full = json_lines(&while_full).len();
    std::fs::remove_file(&filler).unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{err}");
    let lines = recorded(&record);
    assert!(
        lines.len() > written_while_full + 5,
        "resumed after the space came back"
    );
    let gaps: Vec<&Value> = lines.iter().filter(|l| l.get("note").is_some()).collect();
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    let gap = &gaps[0]["note"];
    assert_eq!(gap["kind"], "gap");
    assert_eq!(gap["reason"], "no_space");
    let (first, last) = (
        gap["first_seq"].as_u64().unwrap(),
        gap["last_seq"].as_u64().unwrap(),
    );
    let missing = gap["samples"].as_u64().unwrap();
    assert!(missing >= 10 && missing == last - first + 1, "{gap}");
    let gap_ns = gap["gap_ns"].as_u64().unwrap();
    assert!(gap_ns >= 500_000_000, "about a second of samples: {gap}");
    assert_eq!(
        gap_ns,
        gap["to_unix_ns"].as_u64().unwrap() - gap["from_unix_ns"].as_u64().unwrap()
    );
    // Every sample is either in the file or in the gap, in order.
    let mut seqs: Vec<u64> = lines.iter().filter_map(|l| l["seq"].as_u64()).collect();
    seqs.extend(first..=last);
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=99).collect::<Vec<_>>());
    let said: Vec<&str> = err.lines().collect();
    assert_eq!(
        said[0],
        "warning: recording paused: no space left on the file system; retrying, samples are \
         not recorded meanwhile",
        "{err}"
    );
    assert!(
        said[1].starts_with(&format!(
            "warning: recording resumed: {missing} samples not recorded over "
        )) && said[1].ends_with("(no space left on the file system), marked as a gap"),
        "{err}"
    );
    assert_eq!(said.len(), 2, "{err}");
    drop(mount);
}
