//! JSON Lines that rotate by size (`--record FILE --record-max 100M --record-keep 3`): when the
//! next line would take FILE past the limit, FILE.(keep-1) becomes FILE.keep (the oldest is
//! replaced), ..., FILE becomes FILE.1, and a new FILE starts with the header line, then the
//! line. So every file reads alone, and a line is never split or lost at a rotation.
//!
//! Each line goes out in one `write(2)` on an `O_APPEND` descriptor, with no buffering: a kill
//! leaves whole lines, at worst a torn last one (which the reader skips with a note).

use std::ffi::OsString;
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use crate::pinned;
use crate::usage;

use super::output::{self, AppendTarget};

/// Rotation's limits, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rotation {
    /// A file is rotated before a line would take it past this.
    pub max_bytes: u64,
    /// Rotated files kept (FILE.1 .. FILE.keep), 1 to [`MAX_KEEP`].
    pub keep: u32,
}

/// The most rotated files kept: with `show` reading at most
/// [`MAX_RECORDING_BYTES`](super::monitor::MAX_RECORDING_BYTES) of a set, more files than this
/// could only be shown one at a time.
pub const MAX_KEEP: u32 = 100;

impl Rotation {
    /// Parses `--record-max` (a size as `--size` takes it: `100M`, `4k`, `1GiB`) and
    /// `--record-keep`.
    ///
    /// # Errors
    /// A usage error naming the value and the fix.
    pub fn parse(max: &str, keep: &str) -> anyhow::Result<Self> {
        let max_bytes = crate::units::parse_size_bytes(max)
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                usage!(
                    "--record-max {max:?} is not a file size; use e.g. 100M, 1G or 512k (more \
                     than 0)"
                )
            })?;
        let keep = keep
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_KEEP).contains(n))
            .ok_or_else(|| {
                usage!(
                    "--record-keep {keep:?} is not a number of files; use 1 to {MAX_KEEP} (`show` \
                     reads at most {} of a rotated set)",
                    crate::units::format_bytes(super::monitor::MAX_RECORDING_BYTES)
                )
            })?;
        Ok(Self { max_bytes, keep })
    }
}

/// An appending JSON Lines file that rotates by size.
pub struct RotatingLog {
    dir: OwnedFd,
    name: OsString,
    file: std::fs::File,
    size_bytes: u64,
    rotation: Rotation,
    /// The header line (no newline), written first in every file.
    header: String,
    /// Nothing but our header in the file yet: rotating it would leave a file of a header only.
    fresh: bool,
    shown: String,
    pub rotations: u64,
    /// Why the last rotation failed, if it did (lines then go on into the current file).
    pub rotation_error: Option<String>,
    line: Vec<u8>,
}

impl RotatingLog {
    /// Opens `path` for `flag`: appended to when it is a recording `recognized` knows (a new
    /// header marks the restart), made when absent, refused otherwise unless `force` (then
    /// emptied). Rotated names that exist must be such recordings too, since rotation replaces
    /// the oldest. Writes the header.
    ///
    /// # Errors
    /// Usage errors for a refused path; the header could not be written.
    pub fn open(
        flag: &str,
        path: &Path,
        force: bool,
        rotation: Rotation,
        header: String,
        recognized: fn(&[u8]) -> bool,
        in_use: output::InUse,
    ) -> anyhow::Result<Self> {
        let AppendTarget {
            dir,
            name,
            file,
            size_bytes,
        } = output::open_append(flag, path, force, recognized, in_use)?;
        for n in 1..=rotation.keep {
            check_rotated(flag, &dir, &rotated_name(&name, n), path, force, recognized)?;
        }
        let mut log = Self {
            dir,
            name,
            file,
            size_bytes,
            rotation,
            header,
            fresh: false,
            shown: path.display().to_string(),
            rotations: 0,
            rotation_error: None,
            line: Vec::new(),
        };
        // The restart's header: on its own after whatever is there, or first in a new file when
        // it would take the old one past the limit.
        let header = log.header.clone();
        let header_bytes = header.len() as u64 + 1;
        if log.size_bytes == 0 {
            log.put(&header)?;
            log.fresh = true;
        } else if log.size_bytes + header_bytes > rotation.max_bytes {
            match log.rotate() {
                Ok(()) => {
                    log.rotations += 1;
                    log.fresh = true;
                }
                Err(err) => {
                    log.rotation_error = Some(format!("rotating {}: {err}", log.shown));
                    log.put(&header)?;
                }
            }
        } else {
            // A torn last line (the writer killed mid-line) is ended first, so the header does
            // not join it: that line stays the one unreadable line.
            let mut last = [0u8; 1];
            let at = i64::try_from(log.size_bytes - 1)?;
            let n = nix::sys::uio::pread(&log.file, &mut last, at).unwrap_or(0);
            if n == 1 && last[0] != b'\n' {
                log.file.write_all(b"\n")?;
                log.size_bytes += 1;
            }
            log.put(&header)?;
        }
        Ok(log)
    }

    /// Appends `line` (without its newline), rotating first when it would pass the limit.
    ///
    /// # Errors
    /// The write failed (disk full, I/O error). A failed rotation is no error: the line goes
    /// into the current file and [`RotatingLog::rotation_error`] says why.
    pub fn write_line(&mut self, line: &str) -> anyhow::Result<()> {
        let len = line.len() as u64 + 1;
        if !self.fresh && self.size_bytes.saturating_add(len) > self.rotation.max_bytes {
            match self.rotate() {
                Ok(()) => {
                    self.rotations += 1;
                    self.rotation_error = None;
                }
                Err(err) => {
                    self.rotation_error = Some(format!("rotating {}: {err}", self.shown));
                }
            }
        }
        self.put(line)?;
        self.fresh = false;
        Ok(())
    }

    fn put(&mut self, line: &str) -> anyhow::Result<()> {
        use anyhow::Context;
        self.line.clear();
        self.line.extend_from_slice(line.as_bytes());
        self.line.push(b'\n');
        self.file
            .write_all(&self.line)
            .with_context(|| format!("writing {}", self.shown))?;
        self.size_bytes += self.line.len() as u64;
        Ok(())
    }

    /// FILE.(k-1) -> FILE.k down to FILE -> FILE.1, then a new FILE with the header. The new
    /// file is made (and its header written) under a temporary name first, so a directory that
    /// takes no new file fails the rotation before anything is renamed; the current file keeps
    /// its name and its lines then.
    fn rotate(&mut self) -> anyhow::Result<()> {
        let (tmp, fd) = super::writer::create_temp(&self.dir, &self.name.to_string_lossy())?;
        let renamed = (|| -> anyhow::Result<std::fs::File> {
            let flags = nix::fcntl::OFlag::O_APPEND;
            nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_SETFL(flags))?;
            let mut file = std::fs::File::from(fd);
            file.write_all(self.header.as_bytes())?;
            file.write_all(b"\n")?;
            for n in (1..self.rotation.keep).rev() {
                match nix::fcntl::renameat(
                    &self.dir,
                    rotated_name(&self.name, n).as_os_str(),
                    &self.dir,
                    rotated_name(&self.name, n + 1).as_os_str(),
                ) {
                    Ok(()) | Err(nix::errno::Errno::ENOENT) => {}
                    Err(err) => return Err(err.into()),
                }
            }
            nix::fcntl::renameat(
                &self.dir,
                self.name.as_os_str(),
                &self.dir,
                rotated_name(&self.name, 1).as_os_str(),
            )?;
            // Never over a file that took the name in the meantime.
            nix::fcntl::renameat2(
                &self.dir,
                tmp.as_str(),
                &self.dir,
                self.name.as_os_str(),
                nix::fcntl::RenameFlags::RENAME_NOREPLACE,
            )?;
            Ok(file)
        })();
        match renamed {
            Ok(file) => {
                // The old descriptor now writes FILE.1; nothing more goes there.
                self.file = file;
                self.size_bytes = self.header.len() as u64 + 1;
                Ok(())
            }
            Err(err) => {
                let _ = nix::unistd::unlinkat(
                    &self.dir,
                    tmp.as_str(),
                    nix::unistd::UnlinkatFlags::NoRemoveDir,
                );
                Err(err)
            }
        }
    }
}

/// `FILE.n`.
#[must_use]
pub fn rotated_name(name: &std::ffi::OsStr, n: u32) -> OsString {
    let mut bytes = name.as_bytes().to_vec();
    bytes.extend_from_slice(format!(".{n}").as_bytes());
    OsString::from_vec(bytes)
}

/// A rotated name rotation would replace: absent, or a recording (`force` allows anything but
/// what is no regular file).
fn check_rotated(
    flag: &str,
    dir: &OwnedFd,
    name: &std::ffi::OsStr,
    path: &Path,
    force: bool,
    recognized: fn(&[u8]) -> bool,
) -> anyhow::Result<()> {
    let shown = output::parent_dir(path).join(name);
    let shown = shown.display();
    let fd = match pinned::open_at(
        dir.as_raw_fd(),
        name.as_bytes(),
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC,
        0,
    ) {
        Ok(fd) => fd,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) if err.raw_os_error() == Some(libc::ELOOP) => {
            return Err(usage!(
                "{flag}: {shown} is a symbolic link, and rotation would replace it; remove it \
                 or record elsewhere"
            ));
        }
        Err(err) => return Err(usage!("{flag}: {shown}: {err}; record elsewhere")),
    };
    let stat = pinned::fstat(&fd)?;
    if stat.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(usage!(
            "{flag}: {shown} is not a regular file, and rotation would replace it; remove it or \
             record elsewhere"
        ));
    }
    let mut head = [0u8; 64];
    let n = nix::sys::uio::pread(&fd, &mut head, 0).unwrap_or(0);
    if stat.st_size > 0 && !recognized(&head[..n]) && !force {
        return Err(usage!(
            "{flag}: {shown} exists and is not a diskdash monitor recording, and rotation would \
             replace it; move it away, or pass --force"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(head: &[u8]) -> bool {
        head.starts_with(b"H")
    }

    fn read(dir: &Path, name: &str) -> String {
        std::fs::read_to_string(dir.join(name)).unwrap_or_default()
    }

    #[test]
    fn sizes_and_counts_parse_or_name_the_fix() {
        assert_eq!(
            Rotation::parse("100M", "3").unwrap(),
            Rotation {
                max_bytes: 100 << 20,
                keep: 3
            }
        );
        assert_eq!(Rotation::parse("4k", "1").unwrap().max_bytes, 4096);
        for bad in ["0", "", "lots", "-1M", "1.5M", "99999999999T"] {
            let err = Rotation::parse(bad, "3").unwrap_err();
            assert_eq!(crate::error::exit_code(&err), 2);
            assert_eq!(
                err.to_string(),
                format!(
                    "--record-max {bad:?} is not a file size; use e.g. 100M, 1G or 512k (more \
                     than 0)"
                )
            );
        }
        for bad in ["0", "x", "1001", "-2"] {
            let err = Rotation::parse("1M", bad).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "--record-keep {bad:?} is not a number of files; use 1 to 100 (`show` reads \
                     at most 256 MiB of a rotated set)"
                )
            );
        }
    }

    #[test]
    fn rotates_before_passing_the_limit_and_keeps_the_newest_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.jsonl");
        let rotation = Rotation {
            max_bytes: 20,
            keep: 2,
        };
        let mut log =
            RotatingLog::open("--record", &path, false, rotation, "H".into(), ours, |_| {
                None
            })
            .unwrap();
        // Header (2 bytes) + 9-byte lines: two lines fit in 20, the third rotates.
        for i in 0..7 {
            log.write_line(&format!("line {i:03}")).unwrap();
        }
        assert_eq!(log.rotations, 3);
        assert_eq!(read(dir.path(), "rec.jsonl"), "H\nline 006\n");
        assert_eq!(read(dir.path(), "rec.jsonl.1"), "H\nline 004\nline 005\n");
        assert_eq!(read(dir.path(), "rec.jsonl.2"), "H\nline 002\nline 003\n");
        assert!(!dir.path().join("rec.jsonl.3").exists(), "keep 2");
        // A line larger than the limit still goes in whole, alone after a header.
        log.write_line(&"x".repeat(40)).unwrap();
        assert_eq!(
            read(dir.path(), "rec.jsonl"),
            format!("H\n{}\n", "x".repeat(40))
        );
        log.write_line("y").unwrap();
        assert_eq!(read(dir.path(), "rec.jsonl"), "H\ny\n");
    }

    #[test]
    fn appends_to_a_recording_and_refuses_other_files_unless_forced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.jsonl");
        let rotation = Rotation {
            max_bytes: 1 << 20,
            keep: 3,
        };
        std::fs::write(&path, "H\nold\n").unwrap();
        let mut log =
            RotatingLog::open("--record", &path, false, rotation, "H".into(), ours, |_| {
                None
            })
            .unwrap();
        log.write_line("new").unwrap();
        assert_eq!(read(dir.path(), "rec.jsonl"), "H\nold\nH\nnew\n");
        // A torn last line is ended before the restart's header.
        std::fs::write(&path, "H\nto").unwrap();
        let mut log =
            RotatingLog::open("--record", &path, false, rotation, "H".into(), ours, |_| {
                None
            })
            .unwrap();
        log.write_line("new").unwrap();
        assert_eq!(read(dir.path(), "rec.jsonl"), "H\nto\nH\nnew\n");

        std::fs::write(&path, "precious").unwrap();
        let err = RotatingLog::open("--record", &path, false, rotation, "H".into(), ours, |_| {
            None
        })
        .err()
        .unwrap();
        assert_eq!(crate::error::exit_code(&err), 2);
        assert!(
            err.to_string()
                .contains("is not a diskdash monitor recording (8 bytes)")
        );
        assert_eq!(read(dir.path(), "rec.jsonl"), "precious");

        // A rotated name holding something else is refused too: rotation would replace it.
        std::fs::write(&path, "H\n").unwrap();
        std::fs::write(dir.path().join("rec.jsonl.3"), "precious").unwrap();
        let err = RotatingLog::open("--record", &path, false, rotation, "H".into(), ours, |_| {
            None
        })
        .err()
        .unwrap();
        assert!(err.to_string().contains("rec.jsonl.3 exists"), "{err}");
        assert_eq!(read(dir.path(), "rec.jsonl.3"), "precious");

        std::fs::write(&path, "precious").unwrap();
        let log = RotatingLog::open("--record", &path, true, rotation, "H".into(), ours, |_| {
            None
        });
        assert!(log.is_ok());
        assert_eq!(read(dir.path(), "rec.jsonl"), "H\n");
    }

    #[test]
    fn a_failed_rotation_keeps_every_line_in_the_current_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.jsonl");
        let rotation = Rotation {
            max_bytes: 20,
            keep: 2,
        };
        let mut log =
            RotatingLog::open("--record", &path, false, rotation, "H".into(), ours, |_| {
                None
            })
            .unwrap();
        // FILE.1 cannot move over FILE.2, a directory with something in it.
        std::fs::write(dir.path().join("rec.jsonl.1"), "H\nold\n").unwrap();
        std::fs::create_dir(dir.path().join("rec.jsonl.2")).unwrap();
        std::fs::write(dir.path().join("rec.jsonl.2/x"), "").unwrap();
        for i in 0..4 {
            log.write_line(&format!("line {i:03}")).unwrap();
        }
        assert_eq!(
            read(dir.path(), "rec.jsonl"),
            "H\nline 000\nline 001\nline 002\nline 003\n"
        );
        assert_eq!(read(dir.path(), "rec.jsonl.1"), "H\nold\n");
        let why = log.rotation_error.clone().unwrap();
        assert!(
            why.starts_with(&format!("rotating {}: ", path.display())),
            "{why}"
        );
        assert_eq!(log.rotations, 0);
        // No temporary file left behind; once the way is clear, rotation resumes.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
        std::fs::remove_dir_all(dir.path().join("rec.jsonl.2")).unwrap();
        log.write_line("line 004").unwrap();
        assert_eq!(read(dir.path(), "rec.jsonl"), "H\nline 004\n");
        assert_eq!(read(dir.path(), "rec.jsonl.2"), "H\nold\n");
        assert_eq!(log.rotation_error, None);
    }

    #[test]
    fn an_appended_file_past_the_limit_rotates_before_its_new_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.jsonl");
        std::fs::write(&path, format!("H\n{}\n", "o".repeat(30))).unwrap();
        let rotation = Rotation {
            max_bytes: 20,
            keep: 3,
        };
        let mut log =
            RotatingLog::open("--record", &path, false, rotation, "H".into(), ours, |_| {
                None
            })
            .unwrap();
        log.write_line("new").unwrap();
        assert_eq!(read(dir.path(), "rec.jsonl"), "H\nnew\n");
        assert!(read(dir.path(), "rec.jsonl.1").starts_with("H\nooo"));
    }
}
