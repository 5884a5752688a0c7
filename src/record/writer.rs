//! Writers: the final record atomically (a new temporary file in the destination's directory,
//! fsync, rename), so a reader never sees half a record; JSON Lines flushed per interval.

use std::io::{BufWriter, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::Context;

use crate::pinned;

static TEMP_COUNTER: AtomicU32 = AtomicU32::new(0);

/// Writes `bytes` to `path` via a temporary sibling and a rename. The temporary file is made
/// with O_CREAT|O_EXCL|O_NOFOLLOW relative to the directory's descriptor, so a name planted in
/// advance (a link to a victim) is never opened, only stepped around.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir_path = parent_dir(path);
    let name = path
        .file_name()
        .with_context(|| format!("{} is not a file path", path.display()))?;
    let dir = pinned::open_at(
        libc::AT_FDCWD,
        std::os::unix::ffi::OsStrExt::as_bytes(dir_path.as_os_str()),
        libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        0,
    )
    .with_context(|| format!("writing {}: opening {}", path.display(), dir_path.display()))?;
    let (tmp, file) = create_temp(&dir, &name.to_string_lossy())
        .with_context(|| format!("writing {}", path.display()))?;
    let result = (|| {
        let mut file = std::fs::File::from(file);
        file.write_all(bytes)?;
        file.sync_all()?;
        nix::fcntl::renameat(&dir, tmp.as_str(), &dir, name).map_err(std::io::Error::from)
    })();
    if result.is_err() {
        let _ = nix::unistd::unlinkat(&dir, tmp.as_str(), nix::unistd::UnlinkatFlags::NoRemoveDir);
    }
    result.with_context(|| format!("writing {}", path.display()))
}

/// The directory a path's last component lives in.
#[must_use]
pub fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."))
}

/// A new temporary file `.NAME.tmp-PID-N` in `dir`, trying further names past any in the way.
pub(super) fn create_temp(
    dir: &std::os::fd::OwnedFd,
    name: &str,
) -> std::io::Result<(String, std::os::fd::OwnedFd)> {
    let mut last = std::io::Error::from_raw_os_error(libc::EEXIST);
    for _ in 0..64 {
        let tmp = format!(
            ".{name}.tmp-{}-{}",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        match pinned::open_at(
            dir.as_raw_fd(),
            tmp.as_bytes(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o644,
        ) {
            Ok(fd) => return Ok((tmp, fd)),
            Err(err) if err.raw_os_error() == Some(libc::EEXIST) => last = err,
            Err(err) => return Err(err),
        }
    }
    Err(last)
}

/// One JSON object per line, flushed after each so a reader (or a crash) sees whole lines.
pub struct JsonlWriter {
    shown: String,
    out: BufWriter<Box<dyn Write + Send>>,
}

impl JsonlWriter {
    /// Lines into an opened, checked file (see `output::open_jsonl`), or standard output.
    #[must_use]
    pub fn new(shown: String, out: Box<dyn Write + Send>) -> Self {
        Self {
            shown,
            out: BufWriter::new(out),
        }
    }

    pub fn write<T: serde::Serialize>(&mut self, value: &T) -> anyhow::Result<()> {
        serde_json::to_writer(&mut self.out, value)?;
        self.out.write_all(b"\n")?;
        self.out
            .flush()
            .with_context(|| format!("writing {}", self.shown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        write_atomic(&path, b"{}").unwrap();
        write_atomic(&path, b"{\"a\":1}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let file = std::fs::File::create(dir.path().join("run.jsonl")).unwrap();
        let mut jsonl = JsonlWriter::new("run.jsonl".into(), Box::new(file));
        jsonl.write(&serde_json::json!({"i": 1})).unwrap();
        jsonl.write(&serde_json::json!({"i": 2})).unwrap();
        let text = std::fs::read_to_string(dir.path().join("run.jsonl")).unwrap();
        assert_eq!(text, "{\"i\":1}\n{\"i\":2}\n");
    }

    #[test]
    fn a_planted_temp_name_is_stepped_around_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let next = TEMP_COUNTER.load(Ordering::Relaxed);
        for n in next..next + 4 {
            let planted = dir
                .path()
                .join(format!(".run.json.tmp-{}-{n}", std::process::id()));
            std::os::unix::fs::symlink(&victim, planted).unwrap();
        }
        let path = dir.path().join("run.json");
        write_atomic(&path, b"{}").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&path).unwrap(), b"{}");
    }
}
