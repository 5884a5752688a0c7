//! The record's `machine`, gathered from what `diskdash info` reads ([`DiskInfo`]), the host
//! ([`Host`]), `/proc/cpuinfo` and the mount table: once per run, at its end.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::device;
use super::host::Host;
use super::info::DiskInfo;
use crate::record::machine::serial_sha256;
use crate::record::{FsRecord, MachineDiskRecord, MachineRecord};

/// What the machine record is gathered for.
#[derive(Debug, Clone, Copy)]
pub struct MachineQuery<'a> {
    /// The run's target as recorded (a removed scratch file is found through its directory).
    pub target: &'a Path,
    /// The whole disk the run measured, when it knows it (`device.disk`).
    pub disk: Option<&'a str>,
    /// `--record-serial`: keep the serial itself beside its hash.
    pub record_serial: bool,
}

impl MachineRecord {
    /// This machine, its disk under `query.target` and the file system holding it.
    #[must_use]
    pub fn gather(query: MachineQuery<'_>) -> Self {
        let host = Host::detect();
        let existing = nearest_existing(query.target);
        let meta = existing.as_deref().and_then(|p| std::fs::metadata(p).ok());
        let is_device = meta
            .as_ref()
            .is_some_and(|m| m.file_type().is_block_device());
        let chain = query
            .disk
            .and_then(device::resolve_name)
            .or_else(|| existing.as_deref().and_then(|p| device::resolve(p).ok()));
        let disk = chain.map(|chain| {
            let info = DiskInfo::gather(&chain, None);
            MachineDiskRecord {
                name: info.disk,
                model: info.model,
                vendor: info.vendor,
                serial_sha256: info.serial.as_deref().map(serial_sha256),
                serial: info.serial.filter(|_| query.record_serial),
                firmware: info.firmware,
                transport: info.transport,
                rotational: info.rotational,
                size_bytes: info.size_bytes,
            }
        });
        let fs = match (&existing, &meta) {
            (Some(path), Some(meta)) if !is_device => fs_of(path, meta.dev()),
            _ => None,
        };
        MachineRecord {
            host: host.hostname,
            kernel: host.release,
            cpu_model: std::fs::read_to_string("/proc/cpuinfo")
                .ok()
                .and_then(|text| cpu_model(&text)),
            cpus: host.usable_cpus,
            memory_bytes: host.memory_bytes,
            diskdash_version: env!("CARGO_PKG_VERSION").to_string(),
            command_line: Some(
                std::env::args_os()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect(),
            ),
            disk,
            fs,
            redacted: false,
        }
    }
}

/// `path` or its nearest ancestor that exists, resolved.
fn nearest_existing(path: &Path) -> Option<PathBuf> {
    nearest_resolved(path, |at| std::fs::canonicalize(at))
}

/// `path` or its nearest ancestor that `resolve` resolves; a relative path ends at `.`, whose
/// resolution fails when the working directory was removed (then `None`, not another try of
/// `.`: a run whose directory was removed under it looped here when it wrote its record).
fn nearest_resolved(
    path: &Path,
    resolve: impl Fn(&Path) -> std::io::Result<PathBuf>,
) -> Option<PathBuf> {
    let dot = Path::new(".");
    let mut at = if path.as_os_str().is_empty() {
        dot
    } else {
        path
    };
    loop {
        if let Ok(real) = resolve(at) {
            return Some(real);
        }
        at = match at.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            Some(_) if at != dot => dot,
            _ => return None,
        };
    }
}

/// The mount of device `dev` whose mount point holds `path` most closely (bind mounts of one
/// file system share the device).
fn fs_of(path: &Path, dev: u64) -> Option<FsRecord> {
    let majmin = format!("{}:{}", libc::major(dev), libc::minor(dev));
    let mounts = procfs::process::Process::myself()
        .and_then(|p| p.mountinfo())
        .ok()?;
    let mount = mounts
        .into_iter()
        .filter(|m| m.majmin == majmin && path.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.as_os_str().len())?;
    let options = super::info::ordered_options(&mount);
    Some(FsRecord {
        fs_type: mount.fs_type.clone(),
        mount_options: options,
        mount_point: mount.mount_point.to_string_lossy().into_owned(),
        device: std::fs::canonicalize(format!("/sys/dev/block/{majmin}"))
            .ok()
            .and_then(|d| d.file_name()?.to_str().map(str::to_owned)),
    })
}

/// The CPU's model from `/proc/cpuinfo`: x86's `model name`, else what ARM and others call it
/// (`Hardware`, `cpu model`, `Model`, `cpu`).
fn cpu_model(cpuinfo: &str) -> Option<String> {
    ["model name", "cpu model", "Hardware", "Model", "cpu"]
        .iter()
        .find_map(|key| {
            cpuinfo.lines().find_map(|line| {
                let (k, v) = line.split_once(':')?;
                (k.trim() == *key && !v.trim().is_empty()).then(|| v.trim().to_string())
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A relative path in a working directory that was removed resolves to nothing, once:
    /// `.` is tried once, not forever.
    #[test]
    fn a_relative_path_under_a_removed_working_directory_resolves_to_none() {
        let tried = std::cell::RefCell::new(Vec::new());
        let fail = |at: &Path| {
            tried.borrow_mut().push(at.to_path_buf());
            Err(std::io::Error::from(std::io::ErrorKind::NotFound))
        };
        for (path, want) in [
            ("a", vec!["a", "."]),
            ("x/y", vec!["x/y", "x", "."]),
            ("./a", vec!["./a", "."]),
            ("", vec!["."]),
            ("/gone/file", vec!["/gone/file", "/gone", "/"]),
        ] {
            tried.borrow_mut().clear();
            assert_eq!(nearest_resolved(Path::new(path), fail), None, "{path}");
            let want: Vec<PathBuf> = want.iter().map(PathBuf::from).collect();
            assert_eq!(*tried.borrow(), want, "{path}");
        }
        // The nearest ancestor that resolves is the answer.
        let only_x = |at: &Path| {
            if at == Path::new("x") {
                Ok(PathBuf::from("/real/x"))
            } else {
                Err(std::io::Error::from(std::io::ErrorKind::NotFound))
            }
        };
        assert_eq!(
            nearest_resolved(Path::new("x/y/z"), only_x),
            Some(PathBuf::from("/real/x"))
        );
    }

    #[test]
    fn the_cpu_model_is_read_as_each_platform_names_it() {
        let x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\nmodel name\t: \
                   Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz\n";
        assert_eq!(
            cpu_model(x86).as_deref(),
            Some("Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz")
        );
        let arm = "processor\t: 0\nBogoMIPS\t: 108.00\n\nHardware\t: BCM2835\nModel\t\t: \
                   Raspberry Pi 4 Model B Rev 1.4\n";
        assert_eq!(cpu_model(arm).as_deref(), Some("BCM2835"));
        assert_eq!(cpu_model("processor : 0\nmodel name :\n"), None);
    }

    #[test]
    fn a_removed_file_is_gathered_through_its_directory() {
        let dir = std::env::temp_dir();
        let gone = dir.join("diskdash-machine-test-not-here/nor-here");
        let machine = MachineRecord::gather(MachineQuery {
            target: &gone,
            disk: None,
            record_serial: false,
        });
        let fs = machine.fs.expect("the temp directory's file system");
        assert!(dir.canonicalize().unwrap().starts_with(&fs.mount_point));
        assert!(!fs.fs_type.is_empty());
        assert!(!machine.kernel.is_empty() && machine.cpus >= 1 && machine.memory_bytes > 0);
        assert_eq!(machine.diskdash_version, env!("CARGO_PKG_VERSION"));
        assert!(machine.disk.as_ref().is_none_or(|d| d.serial.is_none()));
    }
}
