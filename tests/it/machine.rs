//! The record's `machine` as a user gets it: the disk and file system under a file target
//! compared against what sysfs and the mount table say, `--redact` leaving no host name or
//! path, and `compare` naming what differs between two machines before any number.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::record::*;
use crate::support::*;

const RUN: &str = "--runtime 200ms --size 4M --interval 100ms --rw randread";

/// The sysfs attribute `rel` of whole disk `disk`, trimmed; `None` when absent or empty.
fn sysfs_attr(disk: &str, rel: &str) -> Option<String> {
    std::fs::read_to_string(Path::new("/sys/class/block").join(disk).join(rel))
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// `/proc/self/mountinfo`'s mount point and type of the file system holding `dir`: the entry
/// whose mount point is the longest prefix of it.
fn mount_of(dir: &Path) -> (String, String) {
    let text = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let dash = fields.iter().position(|f| *f == "-")?;
            Some((fields[4].to_string(), fields[dash + 1].to_string()))
        })
        .filter(|(point, _)| dir.starts_with(point))
        .max_by_key(|(point, _)| point.len())
        .unwrap()
}

fn hostname() -> String {
    let out = Command::new("hostname").output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn a_bench_record_names_the_disk_and_file_system_of_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let (_, record) = bench_ok(dir.path(), &opts(RUN));
    assert_valid_record(&record);
    let machine = &record["machine"];
    let real_dir = dir.path().canonicalize().unwrap();
    let (mount_point, fs_type) = mount_of(&real_dir);
    assert_eq!(machine["fs"]["type"], fs_type.as_str(), "{machine:#}");
    assert_eq!(machine["fs"]["mount_point"], mount_point.as_str());
    assert!(
        machine["fs"]["mount_options"][0] == "rw" || machine["fs"]["mount_options"][0] == "ro",
        "{machine:#}"
    );
    assert_eq!(machine["kernel"], record["host"]["kernel"]);
    assert_eq!(machine["host"], hostname().as_str());
    assert_eq!(machine["diskdash_version"], record["diskdash_version"]);
    assert!(machine["memory_bytes"].as_u64().unwrap() > 0);
    let argv: Vec<&str> = machine["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(argv[1..4], ["bench", "--runtime", "200ms"]);
    // The disk the record's device names, as sysfs has it (a virtio disk has no model).
    let Some(disk_name) = record["device"]["disk"].as_str() else {
        assert!(machine["disk"].is_null(), "{machine:#}");
        return;
    };
    let disk = &machine["disk"];
    assert_eq!(disk["name"], disk_name);
    let model =
        sysfs_attr(disk_name, "device/model").or_else(|| sysfs_attr(disk_name, "device/name"));
    assert_eq!(disk["model"].as_str(), model.as_deref(), "{disk:#}");
    assert_eq!(
        disk["vendor"].as_str(),
        sysfs_attr(disk_name, "device/vendor").as_deref()
    );
    assert_eq!(
        disk["rotational"].as_bool(),
        sysfs_attr(disk_name, "queue/rotational").map(|r| r != "0")
    );
    let serial = sysfs_attr(disk_name, "serial")
        .or_else(|| sysfs_attr(disk_name, "device/serial"))
        .or_else(|| sysfs_attr(disk_name, "device/wwid"));
    match serial {
        Some(serial) => {
            let hash = disk["serial_sha256"].as_str().unwrap();
            assert_eq!(hash.len(), 64);
            assert!(
                !record.to_string().contains(&serial),
                "the serial is in the record"
            );
        }
        None => assert!(disk["serial_sha256"].is_null()),
    }
    assert!(disk.get("serial").is_none(), "{disk:#}");
    assert!(!disk["transport"].as_str().unwrap().is_empty());
}

#[test]
fn record_serial_keeps_the_serial_beside_its_hash() {
    let dir = tempfile::tempdir().unwrap();
    let (_, record) = bench_ok(dir.path(), &[&opts(RUN)[..], &["--record-serial"]].concat());
    assert_valid_record(&record);
    let disk = &record["machine"]["disk"];
    if disk["serial_sha256"].is_string() {
        assert!(disk["serial"].is_string(), "{disk:#}");
    } else {
        assert!(disk.get("serial").is_none(), "{disk:#}");
    }
}

#[test]
fn redact_leaves_no_host_name_or_path_in_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data-dir");
    std::fs::create_dir(&data).unwrap();
    // A directory: the scratch file inside is named after the run, and removed.
    let target_arg = data.to_str().unwrap();
    let args = [
        &opts(RUN)[..],
        &[target_arg, "--redact", "--json", "-", "--no-tui"],
    ]
    .concat();
    let out = bench_cmd(dir.path(), &args).output().unwrap();
    assert_success(&out);
    let text = stdout(&out);
    let record: Value = serde_json::from_str(&text).unwrap();
    assert_valid_record(&record);
    let host = hostname();
    let real = dir.path().canonicalize().unwrap();
    let secrets: Vec<String> = [
        target_arg.to_string(),
        data.display().to_string(),
        dir.path().display().to_string(),
        real.display().to_string(),
    ]
    .into_iter()
    .collect();
    for secret in &secrets {
        assert!(!text.contains(secret.as_str()), "{secret} is in:\n{text}");
    }
    assert!(
        !text.contains(&format!("\"{host}\"")),
        "the host name {host} is in:\n{text}"
    );
    assert_eq!(record["host"]["hostname"], "<redacted>");
    assert_eq!(record["machine"]["host"], "<redacted>");
    assert_eq!(record["machine"]["redacted"], true);
    assert!(record["machine"].get("command_line").is_none());
    assert_eq!(record["target"]["path"], "<redacted>");
    // What is not a secret stays: the disk, the file system type, the numbers.
    assert!(record["machine"]["fs"]["type"].is_string());
    assert!(record["read"]["total_ios"].as_u64().unwrap() > 0);
}

fn write_json(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

fn compare(dir: &Path, a: &Path, b: &Path, json: bool) -> std::process::Output {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir).arg("compare").arg(a).arg(b);
    if json {
        cmd.arg("--json");
    }
    cmd.output().unwrap()
}

#[test]
fn compare_names_what_differs_between_the_machines_before_any_number() {
    let dir = tempfile::tempdir().unwrap();
    let (_, record) = bench_ok(dir.path(), &opts("--ioengine null --runtime 200ms"));
    let base = dir.path().join("base.json");
    write_json(&base, &record);
    let mut other = record.clone();
    other["machine"]["kernel"] = "9.9.9-other".into();
    other["host"]["kernel"] = "9.9.9-other".into();
    other["machine"]["disk"] = serde_json::json!({
        "name": "nvme0n1", "model": "Other Disk 2TB", "vendor": null,
        "serial_sha256": null, "firmware": "1B2QEXM7", "transport": "nvme",
        "rotational": false, "size_bytes": 2_000_398_934_016_u64,
    });
    let new = dir.path().join("new.json");
    write_json(&new, &other);

    let out = compare(dir.path(), &base, &new, false);
    assert_success(&out);
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("machine"))
        .unwrap_or_else(|| panic!("no machine line in:\n{text}"));
    assert!(line.contains("DIFFERENT"), "{line}");
    assert!(line.contains("disk model"), "{line}");
    assert!(line.contains("Other Disk 2TB"), "{line}");
    assert!(line.contains("kernel"), "{line}");
    assert!(line.contains("9.9.9-other"), "{line}");
    let machine_at = text.find(line).unwrap();
    let first_number = text.find('%').unwrap();
    assert!(machine_at < first_number, "{text}");

    let out = compare(dir.path(), &base, &new, true);
    assert_success(&out);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let whats: Vec<&str> = json["machines"]["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["what"].as_str().unwrap())
        .collect();
    assert!(whats.contains(&"disk model"), "{whats:?}");
    assert!(whats.contains(&"kernel"), "{whats:?}");

    // The same record twice: one line saying so.
    let out = compare(dir.path(), &base, &base, false);
    assert!(
        stdout(&out).contains("  machine the same\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_record_without_machine_still_loads_and_compares() {
    let dir = tempfile::tempdir().unwrap();
    let fixture: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/records/null-300ms.json");
    assert!(read_json(&fixture).get("machine").is_none());
    let (_, record) = bench_ok(dir.path(), &opts("--ioengine null --runtime 200ms"));
    let new = dir.path().join("new.json");
    write_json(&new, &record);
    let out = compare(dir.path(), &fixture, &new, false);
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("not recorded in base"), "{text}");
}

#[test]
fn fio_redact_leaves_no_path_in_the_json_report_nor_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("fio-data");
    std::fs::create_dir(&data).unwrap();
    let file = data.join("job-file-target");
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args([
            "fio",
            "--name=j",
            "--size=4M",
            "--runtime=200ms",
            "--rw=randread",
        ])
        .arg(format!("--filename={}", file.display()))
        .args(["--output-format=json", "--redact", "--json", "rec.json"])
        .output()
        .unwrap();
    assert_success(&out);
    let report = stdout(&out);
    let record = std::fs::read_to_string(dir.path().join("rec.json")).unwrap();
    let real = dir.path().canonicalize().unwrap();
    for text in [&report, &record] {
        for secret in [data.display().to_string(), real.display().to_string()] {
            assert!(!text.contains(&secret), "{secret} is in:\n{text}");
        }
        assert!(text.contains("<redacted>"), "{text}");
    }
    let report: Value = serde_json::from_str(&report).unwrap();
    assert_eq!(report["jobs"][0]["jobname"], "j");
}
