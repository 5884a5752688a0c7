//! Writers: the temporary sibling a final record is written to before its rename
//! (`record::output`), so a reader never sees half a record; JSON Lines flushed per interval.

use std::io::{BufWriter, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::Context;

use crate::pinned;

static TEMP_COUNTER: AtomicU32 = AtomicU32::new(0);

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
    fn jsonl_writes_one_whole_object_a_line() {
        let dir = tempfile::tempdir().unwrap();
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
        let dir_fd = pinned::open_at(
            libc::AT_FDCWD,
            std::os::unix::ffi::OsStrExt::as_bytes(dir.path().as_os_str()),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            0,
        )
        .unwrap();
        let (tmp, file) = create_temp(&dir_fd, "run.json").unwrap();
        std::fs::File::from(file).write_all(b"{}").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(dir.path().join(tmp)).unwrap(), b"{}");
    }
}
