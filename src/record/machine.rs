//! What a record keeps of the machine that ran it (`machine`): the disk's identity, the file
//! system of a file target, the kernel, CPU and memory, diskdash's version and the command
//! line; and `--redact`, which takes the host name and every path out of a record before it
//! is shared. The queue settings of the disk are not repeated here: they are the record's
//! `device.queue` (the same whole disk), read once.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::RunRecord;

/// What `--redact` puts where a host name or a path was.
pub const REDACTED: &str = "<redacted>";

/// The machine a run ran on (format 7 on; absent in older records).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MachineRecord {
    /// The host name ([`REDACTED`] under `--redact`).
    pub host: String,
    /// `uname -r`.
    pub kernel: String,
    /// `/proc/cpuinfo`'s `model name` (or `Hardware`/`cpu model` where a platform names it so).
    pub cpu_model: Option<String>,
    /// CPUs this process could run on.
    pub cpus: usize,
    /// Physical memory.
    pub memory_bytes: u64,
    pub diskdash_version: String,
    /// The arguments as given, the program first; absent under `--redact`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command_line: Option<Vec<String>>,
    /// The whole disk under the target; absent when there is none (tmpfs, a network file
    /// system).
    pub disk: Option<MachineDiskRecord>,
    /// The file system of a file or directory target; absent for a block device.
    pub fs: Option<FsRecord>,
    /// The record went through `--redact`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
}

/// A disk's identity, as sysfs gives it (`diskdash info` reads the same).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MachineDiskRecord {
    /// The kernel's name of the whole disk (`vda`, `nvme0n1`).
    pub name: String,
    pub model: Option<String>,
    pub vendor: Option<String>,
    /// SHA-256 of the serial (hex): two records on one disk match, the serial is not shared.
    pub serial_sha256: Option<String>,
    /// The serial itself, only with `--record-serial`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
    /// `device/firmware_rev` (NVMe, ATA) or `device/rev` (SCSI).
    pub firmware: Option<String>,
    /// `nvme`, `virtio`, `sata`, `usb`, `scsi`, ... as `diskdash info` says.
    pub transport: String,
    pub rotational: Option<bool>,
    pub size_bytes: Option<u64>,
}

/// The file system holding a file target.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FsRecord {
    /// `ext4`, `xfs`, `btrfs`, `tmpfs`, ...
    #[serde(rename = "type")]
    pub fs_type: String,
    /// Per-mount then per-superblock options, `rw`/`ro` first (as `diskdash info`).
    pub mount_options: Vec<String>,
    /// Where it is mounted (a path: [`REDACTED`] under `--redact`).
    pub mount_point: String,
    /// The mounted device's kernel name (`vda1`, `dm-0`); absent for a file system on none.
    pub device: Option<String>,
}

/// The hex SHA-256 of a serial.
#[must_use]
pub fn serial_sha256(serial: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(serial.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What must not leave the machine under `--redact`: the host name and paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets {
    /// Replaced where it stands as a word of its own.
    pub host: Option<String>,
    /// Replaced wherever they occur, the longest first.
    pub paths: Vec<String>,
}

impl Secrets {
    /// Adds `path` and its ancestors of two components or more (`/home/me` of
    /// `/home/me/data/f`; never `/` or `/home`), as written.
    pub fn add_path(&mut self, path: &str) {
        let mut p = std::path::Path::new(path);
        loop {
            let text = p.to_string_lossy();
            let deep = p.components().filter(|c| c.as_os_str() != "/").count() >= 2;
            let relative_name = !p.has_root() && text.len() >= 3;
            if (deep || relative_name) && !self.paths.iter().any(|s| *s == text) {
                self.paths.push(text.into_owned());
            }
            match p.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => p = parent,
                _ => break,
            }
        }
    }
}

/// `value` (a record, or any JSON output) with every string's host name and paths replaced by
/// [`REDACTED`]. Object keys are names of the format and are kept.
#[must_use]
pub fn redact_value(value: Value, secrets: &Secrets) -> Value {
    let mut paths: Vec<&str> = secrets.paths.iter().map(String::as_str).collect();
    paths.sort_by_key(|p| std::cmp::Reverse(p.len()));
    paths.dedup();
    walk(value, &|s| redact_text(s, secrets.host.as_deref(), &paths))
}

fn walk(value: Value, f: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::String(s) => Value::String(f(&s)),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| walk(v, f)).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, walk(v, f))).collect())
        }
        other => other,
    }
}

/// Characters that continue a name: a match followed (or, for the host, preceded) by one is
/// part of a longer name, not the secret.
fn continues_name(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// `text` with each path (longest first) and the host name, as a word, replaced.
#[must_use]
pub fn redact_text(text: &str, host: Option<&str>, paths: &[&str]) -> String {
    let mut out = text.to_string();
    for path in paths.iter().filter(|p| !p.is_empty()) {
        // `/a/b` is a path wherever it starts; a relative `data` only as a name of its own.
        let before = if path.starts_with('/') {
            Before::Any
        } else {
            Before::NotName
        };
        out = replace_bounded(&out, path, before);
    }
    if let Some(host) = host.filter(|h| !h.is_empty() && *h != REDACTED) {
        out = replace_bounded(&out, host, Before::NotNameNorSlash);
    }
    out
}

/// What may stand before a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Before {
    Any,
    NotName,
    NotNameNorSlash,
}

/// Replaces `needle` where the next character does not continue a name, and the one before
/// is as `before` says.
fn replace_bounded(text: &str, needle: &str, before: Before) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut last: Option<char> = None;
    while let Some(at) = rest.find(needle) {
        let prev = rest[..at].chars().next_back().or(last);
        let next = rest[at + needle.len()..].chars().next();
        let prev_ok = match before {
            Before::Any => true,
            Before::NotName => !prev.is_some_and(continues_name),
            Before::NotNameNorSlash => !prev.is_some_and(|c| continues_name(c) || c == '/'),
        };
        out.push_str(&rest[..at]);
        if prev_ok && !next.is_some_and(continues_name) {
            out.push_str(REDACTED);
            last = Some('>');
        } else {
            out.push_str(needle);
            last = needle.chars().next_back();
        }
        rest = &rest[at + needle.len()..];
    }
    out.push_str(rest);
    out
}

/// The secrets of this process: the host name, the arguments that name paths, and the
/// working directory.
#[must_use]
pub fn process_secrets() -> Secrets {
    let mut secrets = Secrets {
        host: nix::unistd::gethostname()
            .ok()
            .map(|h| h.to_string_lossy().into_owned())
            .filter(|h| !h.is_empty()),
        paths: Vec::new(),
    };
    for arg in std::env::args_os().skip(1) {
        secrets.add_argument(&arg.to_string_lossy());
    }
    if let Ok(cwd) = std::env::current_dir() {
        secrets.add_target(&cwd.to_string_lossy());
    }
    secrets
}

impl Secrets {
    /// Adds `path` as written and resolved (see [`Secrets::add_path`]).
    pub fn add_target(&mut self, path: &str) {
        if path.is_empty() || path == "-" {
            return;
        }
        self.add_path(path);
        if let Some(resolved) = resolved(std::path::Path::new(path)) {
            self.add_path(&resolved);
        }
    }

    /// Adds what a command-line argument names when it is a path: a value with a `/`, or the
    /// name of an existing file (`--json=run.json`: `run.json`).
    pub fn add_argument(&mut self, arg: &str) {
        let value = arg
            .strip_prefix("--")
            .and_then(|a| a.split_once('='))
            .map_or(arg, |(_, v)| v);
        if value.len() >= 3 && (value.contains('/') || std::path::Path::new(value).exists()) {
            self.add_target(value);
        }
    }
}

/// The secrets of `record` (its host name, every target path, the mount point of its file
/// system, the command line's paths) and of this process ([`process_secrets`]).
#[must_use]
pub fn secrets_of(record: &RunRecord) -> Secrets {
    let mut secrets = process_secrets();
    if !record.host.hostname.is_empty() {
        secrets.host = Some(record.host.hostname.clone());
    }
    secrets.add_target(&record.target.path);
    for job in record.steps.iter().flat_map(|s| &s.jobs) {
        secrets.add_target(&job.target.path);
        for file in job.clones.iter().filter_map(|c| c.file.as_deref()) {
            secrets.add_target(file);
        }
    }
    if let Some(machine) = &record.machine {
        if let Some(fs) = machine.fs.as_ref().filter(|fs| fs.mount_point != "/") {
            secrets.add_target(&fs.mount_point);
        }
        for arg in machine.command_line.iter().flatten().skip(1) {
            secrets.add_argument(arg);
        }
    }
    secrets
}

/// `path` resolved through its nearest existing ancestor (a removed scratch file resolves
/// through its directory).
fn resolved(path: &std::path::Path) -> Option<String> {
    let mut tail = Vec::new();
    let mut at = path;
    loop {
        if let Ok(mut real) = std::fs::canonicalize(at) {
            real.extend(tail.iter().rev());
            return Some(real.to_string_lossy().into_owned());
        }
        tail.push(at.file_name()?.to_os_string());
        at = at.parent()?;
        if at.as_os_str().is_empty() {
            at = std::path::Path::new(".");
        }
    }
}

/// `record` as it may be shared: the host name, the command line and every path gone (see
/// [`secrets_of`]), `machine.redacted` set.
///
/// # Errors
/// The record does not go through JSON and back (it always should).
pub fn redact_run(mut record: RunRecord) -> serde_json::Result<RunRecord> {
    let secrets = secrets_of(&record);
    REDACTED.clone_into(&mut record.host.hostname);
    if let Some(machine) = record.machine.as_mut() {
        REDACTED.clone_into(&mut machine.host);
        machine.command_line = None;
        machine.redacted = true;
        if let Some(fs) = machine.fs.as_mut() {
            REDACTED.clone_into(&mut fs.mount_point);
        }
    }
    serde_json::from_value(redact_value(serde_json::to_value(&record)?, &secrets))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_serial_is_kept_as_its_sha256() {
        // sha256("abc"), FIPS 180-2 appendix B.1.
        assert_eq!(
            serial_sha256("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn paths_and_their_deep_ancestors_are_secrets() {
        let mut s = Secrets::default();
        s.add_path("/home/me/data/f.bin");
        assert_eq!(
            s.paths,
            ["/home/me/data/f.bin", "/home/me/data", "/home/me"]
        );
        let mut s = Secrets::default();
        s.add_path("/dev/vdb");
        assert_eq!(s.paths, ["/dev/vdb"]);
        let mut s = Secrets::default();
        s.add_path("jobs/a.fio");
        assert_eq!(s.paths, ["jobs/a.fio", "jobs"]);
    }

    #[test]
    fn texts_lose_paths_and_the_host_as_a_word() {
        let paths = ["/home/me/data/f.bin", "/home/me/data", "/home/me"];
        assert_eq!(
            redact_text(
                "could not remove /home/me/data/f.bin: busy",
                Some("box"),
                &paths
            ),
            "could not remove <redacted>: busy"
        );
        assert_eq!(
            redact_text("/home/me/other on box", Some("box"), &paths),
            "<redacted>/other on <redacted>"
        );
        // Longer names that start with a secret are not cut.
        assert_eq!(
            redact_text("/home/meg and boxes, /dev/box", Some("box"), &paths),
            "/home/meg and boxes, /dev/box"
        );
        // A relative name only as a name of its own.
        assert_eq!(
            redact_text("sub, sub/f, ./sub, resub, subs", None, &["sub"]),
            "<redacted>, <redacted>/f, ./<redacted>, resub, subs"
        );
    }

    #[test]
    fn every_string_of_a_document_is_redacted_and_keys_are_kept() {
        let secrets = Secrets {
            host: Some("box".into()),
            paths: vec!["/srv/x".into()],
        };
        let doc = serde_json::json!({
            "/srv/x": ["box", 3, {"p": "/srv/x/f"}],
            "host": "box",
        });
        assert_eq!(
            redact_value(doc, &secrets),
            serde_json::json!({
                "/srv/x": ["<redacted>", 3, {"p": "<redacted>/f"}],
                "host": "<redacted>",
            })
        );
    }
}
