//! tracefs: where it is, diskdash's own instance in it, and the instances of dead runs.
//!
//! An instance (`instances/NAME`, made by `mkdir`) has its own ring buffers, event switches and
//! filters, so a run never touches the global buffer or another tool's settings; `rmdir`
//! removes it with everything it enabled. Its name, `diskdash-<pid>-<start time>` (the
//! process's start in clock ticks since boot, `/proc/PID/stat` field 22), tells a live run's
//! instance from one a killed run left behind, even when the pid was reused.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The prefix of every diskdash instance.
pub const PREFIX: &str = "diskdash-";

/// tracefs's root: `/sys/kernel/tracing`, mounted there when it is not yet (root only), or
/// the old `/sys/kernel/debug/tracing`.
///
/// # Errors
/// Neither is there and tracefs could not be mounted, in words.
pub fn root() -> Result<PathBuf, String> {
    let main = Path::new("/sys/kernel/tracing");
    let debug = Path::new("/sys/kernel/debug/tracing");
    for candidate in [main, debug] {
        match fs::metadata(candidate.join("instances")) {
            Ok(meta) if meta.is_dir() => return Ok(candidate.to_path_buf()),
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                return Err(format!(
                    "no permission to use tracefs at {} (tracing needs root)",
                    candidate.display()
                ));
            }
            _ => {}
        }
    }
    match nix::mount::mount(
        Some("tracefs"),
        main,
        Some("tracefs"),
        nix::mount::MsFlags::MS_NOSUID
            | nix::mount::MsFlags::MS_NODEV
            | nix::mount::MsFlags::MS_NOEXEC,
        None::<&str>,
    ) {
        Ok(()) if main.join("instances").is_dir() => Ok(main.to_path_buf()),
        Ok(()) => Err(format!("{} has no instances", main.display())),
        Err(err) => Err(format!(
            "tracefs is not mounted at {} and mounting it failed: {err}",
            main.display()
        )),
    }
}

/// This process's start time in clock ticks since boot (`/proc/PID/stat` field 22).
#[must_use]
pub fn start_time(pid: i32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name in parentheses may hold spaces; the fields after it are plain.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

/// This process's instance name.
#[must_use]
pub fn own_name() -> String {
    let pid = std::process::id() as i32;
    format!("{PREFIX}{pid}-{}", start_time(pid).unwrap_or(0))
}

/// Whether the run that made instance `name` is still alive: its pid runs and started when
/// the name says. Names that are not diskdash's count as alive (never touched).
#[must_use]
pub fn owner_alive(name: &str, started: impl Fn(i32) -> Option<u64>) -> bool {
    let Some((pid, start)) = name
        .strip_prefix(PREFIX)
        .and_then(|rest| rest.split_once('-'))
        .and_then(|(pid, start)| Some((pid.parse::<i32>().ok()?, start.parse::<u64>().ok()?)))
    else {
        return true;
    };
    started(pid) == Some(start)
}

/// Removes the instances of diskdash runs that are gone; returns their names.
pub fn remove_dead(instances: &Path) -> Vec<String> {
    let mut removed = Vec::new();
    let Ok(entries) = fs::read_dir(instances) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(PREFIX) && !owner_alive(&name, start_time) {
            disable(&entry.path());
            if fs::remove_dir(entry.path()).is_ok() {
                removed.push(name);
            }
        }
    }
    removed
}

/// Stops an instance's tracing and switches its events off (best effort: `rmdir` does both
/// too, but an instance that cannot be removed is left quiet).
fn disable(path: &Path) {
    let _ = fs::write(path.join("tracing_on"), "0");
    let _ = fs::write(path.join("events/enable"), "0");
}

/// diskdash's own instance: removed when dropped.
#[derive(Debug)]
pub struct Instance {
    path: PathBuf,
}

impl Instance {
    /// Makes `instances/name` under `root`.
    ///
    /// # Errors
    /// `mkdir` failed (no permission, no tracefs instances).
    pub fn create(root: &Path, name: &str) -> io::Result<Self> {
        let path = root.join("instances").join(name);
        fs::create_dir(&path)?;
        Ok(Self { path })
    }

    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `value` to the instance's file `rel`.
    ///
    /// # Errors
    /// The write failed, the file named.
    pub fn write(&self, rel: &str, value: &str) -> Result<(), String> {
        fs::write(self.path.join(rel), value).map_err(|e| {
            format!(
                "writing `{value}` to {}: {e}",
                self.path.join(rel).display()
            )
        })
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        disable(&self.path);
        // Readers still closing their files make rmdir busy for a moment.
        for _ in 0..50 {
            match fs::remove_dir(&self.path) {
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instance_is_alive_while_its_pid_runs_with_the_same_start_time() {
        let started = |pid: i32| (pid == 10).then_some(555);
        assert!(owner_alive("diskdash-10-555", started));
        assert!(
            !owner_alive("diskdash-10-556", started),
            "the pid was reused"
        );
        assert!(!owner_alive("diskdash-11-555", started), "gone");
        assert!(owner_alive("someone-else", started), "not ours: left alone");
        assert!(owner_alive("diskdash-x-1", started), "not ours: left alone");
    }

    #[test]
    fn this_process_has_a_start_time_and_its_name_says_it_is_alive() {
        let name = own_name();
        assert!(name.starts_with(PREFIX));
        assert!(owner_alive(&name, start_time));
    }
}
