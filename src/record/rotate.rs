//! JSON Lines that rotate by size (`--record FILE --record-max 100M --record-keep 3`): when the
//! next line would take FILE past the limit, FILE.(keep-1) becomes FILE.keep (the oldest is
//! replaced), ..., FILE becomes FILE.1, and a new FILE starts with the header line, then the
//! line. So every file reads alone, and a line is never split or lost at a rotation.
//!
//! Each line goes out in one `write(2)` on an `O_APPEND` descriptor, with no buffering: a kill
//! leaves whole lines, at worst a torn last one (which the reader skips with a note). A write
//! that fails part-way (the file system filled up) is cut back to the last whole line.
//!
//! Rotation replaces and moves only files that are provably its own: the log remembers the
//! identity (device, inode), size and modification time of every file it knows to be a
//! recording of its own (the current file, the files it rotated out, and the rotated names
//! that passed the check at the start), and before each rotation every existing FILE.1 ..
//! FILE.keep must be one of them, unchanged, a regular file with one name. Anything else holds
//! the rotation back: lines go on into the current file past the limit, and
//! [`RotatingLog::take_warning`] says so once.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::usage;
use crate::pinned::{self, FileId};

use super::output::{self, AppendTarget};

/// The most `show` reads of a recording, all files of a rotated set together: 256 MiB. Parsed
/// samples take about twice their JSON in memory (200 MiB of lines: 415 MB resident), so this
/// keeps a replay near half a GB; a default set (FILE and 3 rotated files of 64M) fits.
pub const MAX_RECORDING_BYTES: u64 = 256 << 20;

/// Rotation's limits, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rotation {
    /// A file is rotated before a line would take it past this.
    pub max_bytes: u64,
    /// Rotated files kept (FILE.1 .. FILE.keep), 1 to [`MAX_KEEP`].
    pub keep: u32,
}

/// The most rotated files kept: with `show` reading at most
/// [`MAX_RECORDING_BYTES`] of a set, more files than this
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
                    crate::units::format_bytes(MAX_RECORDING_BYTES)
                )
            })?;
        Ok(Self { max_bytes, keep })
    }
}

/// A file the log knows to be its own, as it was when the log last had it in hand: a rotated
/// file is replaced or moved only while it is still exactly this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Known {
    id: FileId,
    size_bytes: u64,
    mtime: (i64, i64),
}

impl Known {
    fn of(stat: &libc::stat) -> Self {
        Self {
            id: FileId {
                dev: stat.st_dev,
                ino: stat.st_ino,
            },
            size_bytes: stat.st_size.unsigned_abs(),
            mtime: (stat.st_mtime, stat.st_mtime_nsec),
        }
    }

    fn of_file(file: &std::fs::File) -> std::io::Result<Self> {
        use std::os::unix::fs::MetadataExt;
        let meta = file.metadata()?;
        Ok(Self {
            id: FileId {
                dev: meta.dev(),
                ino: meta.ino(),
            },
            size_bytes: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
        })
    }
}

/// Why rotation leaves a file at a rotated name alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotOurs {
    /// Not a file this recording wrote or checked at its start: something else made it since.
    Unknown,
    /// One of ours, written, truncated or replaced by something else since.
    Changed,
    /// Not a regular file (a symbolic link, a directory, a device).
    NotRegular,
    /// A file with other names (hard links), which would change too.
    Linked,
}

/// A rotation held back because it would replace or move a file that is not the recording's
/// own: the lines go on into the current file, past the limit, and nothing is lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RotationBlocked {
    /// The file left alone, as the user named the recording (`rot/rec.jsonl.1`).
    pub file: String,
    pub reason: NotOurs,
    /// `--record-max`, which the current file now grows past.
    pub max_bytes: u64,
}

impl std::fmt::Display for RotationBlocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = match self.reason {
            NotOurs::Unknown => "is not a file this recording wrote (it appeared after the start)",
            NotOurs::Changed => "was changed by something else since this recording wrote it",
            NotOurs::NotRegular => "is not a regular file",
            NotOurs::Linked => "has other names (hard links)",
        };
        write!(
            f,
            "rotation held back: {} {why}; lines go on into the current file past --record-max \
             {} until it is moved away",
            self.file.escape_debug(),
            crate::units::format_bytes(self.max_bytes)
        )
    }
}

/// How a rotation went, when no system call failed.
enum Rotated {
    Done,
    Blocked(RotationBlocked),
}

/// An appending JSON Lines file that rotates by size.
pub struct RotatingLog {
    dir: OwnedFd,
    name: OsString,
    file: std::fs::File,
    /// What `file` is: rotation moves FILE only while FILE is still it.
    current: FileId,
    /// The recordings of our own that may sit at rotated names: files this run rotated out and
    /// the ones that passed the check at the start, as they were then.
    own: Vec<Known>,
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
    /// The rotation held back now, if one is (lines then go on into the current file).
    pub rotation_blocked: Option<RotationBlocked>,
    /// The first held-back rotation, until taken: said once a run.
    warning: Option<RotationBlocked>,
    warned: bool,
    line: Vec<u8>,
}

impl RotatingLog {
    /// Opens `path` for `flag`: appended to when it is a recording `recognized` knows (a new
    /// header marks the restart), made when absent, refused otherwise unless `force` (then
    /// emptied). Rotated names that exist must be such recordings too, since rotation replaces
    /// the oldest; they are remembered as they are now, and replaced later only while unchanged.
    /// Writes the header.
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
        // One recorder a file: a second one would cut the first's lines back on a full disk
        // and move its file at rotation.
        lock_exclusively(&file).map_err(|err| {
            if err == nix::errno::Errno::EWOULDBLOCK {
                usage!(
                    "{flag} {} is being recorded by another process; record elsewhere",
                    path.display()
                )
            } else {
                usage!("{flag} {}: locking it: {err}", path.display())
            }
        })?;
        let mut own = Vec::new();
        for n in 1..=rotation.keep {
            own.extend(check_rotated(
                flag,
                &dir,
                &rotated_name(&name, n),
                path,
                force,
                recognized,
                in_use,
            )?);
        }
        let current = Known::of_file(&file)?.id;
        let mut log = Self {
            dir,
            name,
            file,
            current,
            own,
            size_bytes,
            rotation,
            header,
            fresh: false,
            shown: path.display().to_string(),
            rotations: 0,
            rotation_error: None,
            rotation_blocked: None,
            warning: None,
            warned: false,
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
            if log.try_rotate() {
                log.fresh = true;
            } else {
                log.put(&header)?;
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
    /// The write failed (disk full, I/O error): nothing of the line stays in the file. A failed
    /// or held-back rotation is no error: the line goes into the current file and
    /// [`RotatingLog::rotation_error`] or [`RotatingLog::rotation_blocked`] says why.
    pub fn write_line(&mut self, line: &str) -> anyhow::Result<()> {
        self.write_lines(&[line])
    }

    /// Appends `lines` (without their newlines) in one write, into one file: all of them or,
    /// when the write fails, none.
    ///
    /// # Errors
    /// As [`RotatingLog::write_line`].
    pub fn write_lines(&mut self, lines: &[&str]) -> anyhow::Result<()> {
        let len: u64 = lines.iter().map(|l| l.len() as u64 + 1).sum();
        if !self.fresh && self.size_bytes.saturating_add(len) > self.rotation.max_bytes {
            self.try_rotate();
        }
        self.put_all(lines)?;
        self.fresh = false;
        Ok(())
    }

    /// Rotates now when that frees space (the oldest file, one of ours, would be removed) and
    /// the current file holds more than its header: what a recording on a full file system
    /// tries before writing again. Whether it rotated.
    pub fn make_room(&mut self) -> bool {
        if self.fresh {
            return false;
        }
        let keep = self.rotation.keep;
        let next = (keep > 1).then(|| rotated_name(&self.name, keep - 1));
        let moved_onto = next.is_none_or(|n| matches!(self.ours_at(&n), Ok(Some(_))));
        let rotated = moved_onto
            && matches!(self.ours_at(&rotated_name(&self.name, keep)), Ok(Some(_)))
            && self.try_rotate();
        // A header alone now: no second file is removed for the same want of space.
        self.fresh |= rotated;
        rotated
    }

    /// The first rotation held back this run, once: the typed warning to show.
    pub fn take_warning(&mut self) -> Option<RotationBlocked> {
        self.warning.take()
    }

    /// Rotates, keeping the outcome in `rotations`, `rotation_error` and `rotation_blocked`.
    fn try_rotate(&mut self) -> bool {
        match self.rotate() {
            Ok(Rotated::Done) => {
                self.rotations += 1;
                self.rotation_error = None;
                self.rotation_blocked = None;
                true
            }
            Ok(Rotated::Blocked(blocked)) => {
                if !self.warned {
                    self.warned = true;
                    self.warning = Some(blocked.clone());
                }
                self.rotation_blocked = Some(blocked);
                false
            }
            Err(err) => {
                self.rotation_error = Some(format!("rotating {}: {err}", self.shown));
                false
            }
        }
    }

    /// Writes `line` and its newline whole, or leaves the file as it was.
    fn put(&mut self, line: &str) -> anyhow::Result<()> {
        self.put_all(&[line])
    }

    /// Writes `lines`, each with its newline, whole, or leaves the file as it was: a write cut
    /// short (no space left) is cut back to the size before it, so the file ends with a whole
    /// line.
    fn put_all(&mut self, lines: &[&str]) -> anyhow::Result<()> {
        use anyhow::Context;
        self.line.clear();
        for line in lines {
            self.line.extend_from_slice(line.as_bytes());
            self.line.push(b'\n');
        }
        if let Err(err) = self.file.write_all(&self.line) {
            let grown = self
                .file
                .metadata()
                .is_ok_and(|m| m.len() > self.size_bytes);
            if grown {
                // What a short write left: never more than these bytes, at the end.
                let _ = self.file.set_len(self.size_bytes);
            }
            return Err(err).with_context(|| format!("writing {}", self.shown));
        }
        self.size_bytes += self.line.len() as u64;
        Ok(())
    }

    /// What is at `name` now, when rotation may replace or move it: nothing (`None`), or a file
    /// of ours exactly as the log knows it. `Err`: why it is not ours.
    fn ours_at(&self, name: &OsStr) -> Result<Option<Known>, NotOurs> {
        let stat = match nix::sys::stat::fstatat(
            &self.dir,
            name,
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        ) {
            Ok(stat) => stat,
            Err(nix::errno::Errno::ENOENT) => return Ok(None),
            Err(_) => return Err(NotOurs::Unknown),
        };
        if stat.st_mode & libc::S_IFMT != libc::S_IFREG {
            return Err(NotOurs::NotRegular);
        }
        if stat.st_nlink > 1 {
            return Err(NotOurs::Linked);
        }
        let now = Known::of(&stat);
        match self.own.iter().find(|k| k.id == now.id) {
            Some(known) if *known == now => Ok(Some(now)),
            Some(_) => Err(NotOurs::Changed),
            None => Err(NotOurs::Unknown),
        }
    }

    /// The held-back rotation for what is at `name`.
    fn blocked(&self, name: &OsStr, reason: NotOurs) -> RotationBlocked {
        RotationBlocked {
            file: output::parent_dir(Path::new(&self.shown))
                .join(name)
                .display()
                .to_string(),
            reason,
            max_bytes: self.rotation.max_bytes,
        }
    }

    /// FILE.keep removed, FILE.(k-1) -> FILE.k down to FILE -> FILE.1, then a new FILE with the
    /// header. Every existing rotated name must hold one of our own files, unchanged, checked
    /// first (before anything is made) and again just before each name is removed or moved; every move is made with
    /// `RENAME_NOREPLACE`, so a name that appears meanwhile is never replaced. Anything else
    /// holds the rotation back. The new file is made under a temporary name first, so a
    /// directory that takes no new file fails the rotation before anything is renamed; the
    /// current file keeps its name and its lines then. The oldest file goes before the new
    /// file's header is written, so a full file system gets that space back.
    fn rotate(&mut self) -> anyhow::Result<Rotated> {
        let names: Vec<OsString> = (1..=self.rotation.keep)
            .map(|n| rotated_name(&self.name, n))
            .collect();
        let mut found = Vec::new();
        for name in &names {
            match self.ours_at(name) {
                Ok(known) => found.extend(known),
                Err(reason) => return Ok(Rotated::Blocked(self.blocked(name, reason))),
            }
        }
        let (tmp, fd) = super::writer::create_temp(&self.dir, &self.name.to_string_lossy())?;
        // Locked before it takes the name, as the first file was.
        let _ = lock_exclusively(&fd);
        let renamed = (|| -> anyhow::Result<Result<std::fs::File, RotationBlocked>> {
            let noreplace = nix::fcntl::RenameFlags::RENAME_NOREPLACE;
            // The oldest goes when something moves onto it, as a rename over it would.
            let oldest = &names[names.len() - 1];
            let replaced = names.len() < 2 || self.ours_at(&names[names.len() - 2]) != Ok(None);
            match if replaced {
                self.ours_at(oldest)
            } else {
                Ok(None)
            } {
                Ok(Some(known)) => {
                    found.retain(|k| k.id != known.id);
                    nix::unistd::unlinkat(
                        &self.dir,
                        oldest.as_os_str(),
                        nix::unistd::UnlinkatFlags::NoRemoveDir,
                    )?;
                }
                Ok(None) => {}
                Err(reason) => return Ok(Err(self.blocked(oldest, reason))),
            }
            let flags = nix::fcntl::OFlag::O_APPEND;
            nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_SETFL(flags))?;
            let mut file = std::fs::File::from(fd);
            file.write_all(self.header.as_bytes())?;
            file.write_all(b"\n")?;
            for n in (1..self.rotation.keep as usize).rev() {
                let (from, to) = (&names[n - 1], &names[n]);
                match self.ours_at(from) {
                    Ok(Some(_)) => {}
                    Ok(None) => continue,
                    Err(reason) => return Ok(Err(self.blocked(from, reason))),
                }
                match nix::fcntl::renameat2(
                    &self.dir,
                    from.as_os_str(),
                    &self.dir,
                    to.as_os_str(),
                    noreplace,
                ) {
                    Ok(()) | Err(nix::errno::Errno::ENOENT) => {}
                    Err(nix::errno::Errno::EEXIST) => {
                        return Ok(Err(self.blocked(to, NotOurs::Unknown)));
                    }
                    Err(err) => return Err(err.into()),
                }
            }
            let at_name = nix::sys::stat::fstatat(
                &self.dir,
                self.name.as_os_str(),
                nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
            )?;
            if Known::of(&at_name).id != self.current {
                anyhow::bail!(
                    "{} is no longer the file being recorded to (moved or replaced meanwhile)",
                    self.shown.escape_debug()
                );
            }
            match nix::fcntl::renameat2(
                &self.dir,
                self.name.as_os_str(),
                &self.dir,
                names[0].as_os_str(),
                noreplace,
            ) {
                Ok(()) => {}
                Err(nix::errno::Errno::EEXIST) => {
                    return Ok(Err(self.blocked(&names[0], NotOurs::Unknown)));
                }
                Err(err) => return Err(err.into()),
            }
            // Never over a file that took the name in the meantime.
            nix::fcntl::renameat2(
                &self.dir,
                tmp.as_str(),
                &self.dir,
                self.name.as_os_str(),
                noreplace,
            )?;
            self.own = found;
            Ok(Ok(file))
        })();
        let outcome = match renamed {
            Ok(Ok(file)) => {
                // The old descriptor now writes FILE.1; nothing more goes there: it is ours as
                // it is now.
                let old = std::mem::replace(&mut self.file, file);
                self.own.extend(Known::of_file(&old).ok());
                self.current = Known::of_file(&self.file)?.id;
                self.size_bytes = self.header.len() as u64 + 1;
                return Ok(Rotated::Done);
            }
            Ok(Err(blocked)) => Ok(Rotated::Blocked(blocked)),
            Err(err) => Err(err),
        };
        let _ = nix::unistd::unlinkat(
            &self.dir,
            tmp.as_str(),
            nix::unistd::UnlinkatFlags::NoRemoveDir,
        );
        outcome
    }
}

/// `flock(LOCK_EX | LOCK_NB)` on a recording's file, held while its descriptor is open.
fn lock_exclusively(fd: &impl std::os::fd::AsFd) -> nix::Result<()> {
    // SAFETY: flock takes a descriptor the caller keeps open and plain flags.
    let rc = unsafe {
        libc::flock(
            std::os::fd::AsRawFd::as_raw_fd(&fd.as_fd()),
            libc::LOCK_EX | libc::LOCK_NB,
        )
    };
    if rc < 0 {
        return Err(nix::errno::Errno::last());
    }
    Ok(())
}

/// `FILE.n`.
#[must_use]
pub fn rotated_name(name: &std::ffi::OsStr, n: u32) -> OsString {
    let mut bytes = name.as_bytes().to_vec();
    bytes.extend_from_slice(format!(".{n}").as_bytes());
    OsString::from_vec(bytes)
}

/// A rotated name rotation would replace: absent (`None`), or a recording with one name
/// (`force` allows any content, never what is no regular file), returned as it is now.
fn check_rotated(
    flag: &str,
    dir: &OwnedFd,
    name: &std::ffi::OsStr,
    path: &Path,
    force: bool,
    recognized: fn(&[u8]) -> bool,
    in_use: output::InUse,
) -> anyhow::Result<Option<Known>> {
    let shown = output::parent_dir(path).join(name);
    let shown = shown.display();
    let fd = match pinned::open_at(
        dir.as_raw_fd(),
        name.as_bytes(),
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC,
        0,
    ) {
        Ok(fd) => fd,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
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
    if stat.st_nlink > 1 {
        return Err(usage!(
            "{flag}: {shown} has {} names (hard links), and rotation would replace it; remove \
             it or record elsewhere",
            stat.st_nlink
        ));
    }
    if let Some(reason) = in_use(crate::pinned::FileId {
        dev: stat.st_dev,
        ino: stat.st_ino,
    }) {
        return Err(usage!(
            "{flag}: {shown}: {reason}, and rotation would replace it; record elsewhere"
        ));
    }
    let mut head = [0u8; 64];
    let n = nix::sys::uio::pread(&fd, &mut head, 0).unwrap_or(0);
    if stat.st_size > 0 && !recognized(&head[..n]) {
        if !force {
            return Err(usage!(
                "{flag}: {shown} exists and is not a diskdash monitor recording, and rotation \
                 would replace it; move it away (with --force the recording goes on, and \
                 rotation holds back while it is there)"
            ));
        }
        // --force names FILE, not the rotated names beside it: a foreign one is never the
        // recording's own, so rotation holds back over it (and says so) instead of removing it.
        return Ok(None);
    }
    Ok(Some(Known::of(&stat)))
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
        // One recorder a file: the next one opens it once this one is done.
        drop(log);
        // A torn last line is ended before the restart's header.
        std::fs::write(&path, "H\nto").unwrap();
        let mut log =
            RotatingLog::open("--record", &path, false, rotation, "H".into(), ours, |_| {
                None
            })
            .unwrap();
        log.write_line("new").unwrap();
        assert_eq!(read(dir.path(), "rec.jsonl"), "H\nto\nH\nnew\n");
        drop(log);

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

    fn open_log(path: &Path, max_bytes: u64, keep: u32) -> RotatingLog {
        let rotation = Rotation { max_bytes, keep };
        RotatingLog::open("--record", path, false, rotation, "H".into(), ours, |_| {
            None
        })
        .unwrap()
    }

    #[test]
    fn a_rotated_name_made_after_the_start_is_never_replaced_and_said_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.jsonl");
        let mut log = open_log(&path, 20, 2);
        log.write_line("line 000").unwrap();
        // Another program takes both rotated names after the start, one with a recording's
        // first bytes: only what this log wrote or checked counts as its own.
        std::fs::write(dir.path().join("rec.jsonl.1"), "theirs 1").unwrap();
        std::fs::write(dir.path().join("rec.jsonl.2"), "H\ntheirs 2\n").unwrap();
        for i in 1..6 {
            log.write_line(&format!("line {i:03}")).unwrap();
        }
        assert_eq!(log.rotations, 0);
        assert_eq!(read(dir.path(), "rec.jsonl.1"), "theirs 1");
        assert_eq!(read(dir.path(), "rec.jsonl.2"), "H\ntheirs 2\n");
        let all: String = (0..6).map(|i| format!("line {i:03}\n")).collect();
        assert_eq!(
            read(dir.path(), "rec.jsonl"),
            format!("H\n{all}"),
            "nothing lost"
        );
        let blocked = RotationBlocked {
            file: dir.path().join("rec.jsonl.1").display().to_string(),
            reason: NotOurs::Unknown,
            max_bytes: 20,
        };
        assert_eq!(log.rotation_blocked, Some(blocked.clone()));
        assert_eq!(log.rotation_error, None);
        assert_eq!(log.take_warning(), Some(blocked.clone()), "said");
        log.write_line("line 006").unwrap();
        assert_eq!(log.take_warning(), None, "once");
        assert_eq!(
            blocked.to_string(),
            format!(
                "rotation held back: {}/rec.jsonl.1 is not a file this recording wrote (it \
                 appeared after the start); lines go on into the current file past \
                 --record-max 20 B until it is moved away",
                dir.path().display()
            )
        );
        // Moved away, the way is clear: rotation resumes with files of its own.
        std::fs::remove_file(dir.path().join("rec.jsonl.1")).unwrap();
        std::fs::remove_file(dir.path().join("rec.jsonl.2")).unwrap();
        for i in 7..12 {
            log.write_line(&format!("line {i:03}")).unwrap();
        }
        assert_eq!(log.rotation_blocked, None);
        assert_eq!(log.rotations, 3);
        assert_eq!(read(dir.path(), "rec.jsonl.2"), "H\nline 007\nline 008\n");
        assert_eq!(read(dir.path(), "rec.jsonl.1"), "H\nline 009\nline 010\n");
        assert_eq!(read(dir.path(), "rec.jsonl"), "H\nline 011\n");
    }

    #[test]
    fn own_rotated_files_rotate_while_unchanged_and_a_changed_one_holds_rotation_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.jsonl");
        // A recording at a rotated name before the start is checked, and ours as it is then.
        std::fs::write(dir.path().join("rec.jsonl.1"), "H\nold\n").unwrap();
        let mut log = open_log(&path, 20, 3);
        for i in 0..6 {
            log.write_line(&format!("line {i:03}")).unwrap();
        }
        assert_eq!(log.rotations, 2);
        assert_eq!(read(dir.path(), "rec.jsonl.3"), "H\nold\n");
        assert_eq!(read(dir.path(), "rec.jsonl.2"), "H\nline 000\nline 001\n");
        // Something appends to a file this log rotated out: it is no longer the log's to move.
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join("rec.jsonl.2"))
            .unwrap()
            .write_all(b"theirs\n")
            .unwrap();
        for i in 6..9 {
            log.write_line(&format!("line {i:03}")).unwrap();
        }
        assert_eq!(log.rotations, 2);
        let blocked = log.rotation_blocked.clone().unwrap();
        assert_eq!(blocked.reason, NotOurs::Changed);
        assert!(blocked.file.ends_with("rec.jsonl.2"), "{blocked:?}");
        assert_eq!(
            read(dir.path(), "rec.jsonl.2"),
            "H\nline 000\nline 001\ntheirs\n"
        );
        assert_eq!(read(dir.path(), "rec.jsonl.3"), "H\nold\n");
        // A hard link to an own file is not replaced either.
        std::fs::remove_file(dir.path().join("rec.jsonl.2")).unwrap();
        std::fs::hard_link(dir.path().join("rec.jsonl.1"), dir.path().join("other")).unwrap();
        log.write_line("line 009").unwrap();
        assert_eq!(
            log.rotation_blocked.clone().unwrap().reason,
            NotOurs::Linked
        );
        std::fs::remove_file(dir.path().join("other")).unwrap();
        log.write_line("line 010").unwrap();
        assert_eq!(log.rotation_blocked, None);
        assert_eq!(log.rotations, 3);
        // FILE.2 was gone, so nothing moved onto FILE.3: it stays.
        assert_eq!(read(dir.path(), "rec.jsonl.3"), "H\nold\n");
        assert_eq!(read(dir.path(), "rec.jsonl.2"), "H\nline 002\nline 003\n");
        assert!(read(dir.path(), "rec.jsonl.1").starts_with("H\nline 004\n"));
    }

    #[test]
    fn making_room_rotates_only_when_that_removes_an_own_oldest_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.jsonl");
        let mut log = open_log(&path, 20, 2);
        assert!(!log.make_room(), "a header alone");
        log.write_line("line 000").unwrap();
        assert!(!log.make_room(), "no FILE.2 to remove");
        for i in 1..5 {
            log.write_line(&format!("line {i:03}")).unwrap();
        }
        assert_eq!(log.rotations, 2);
        assert_eq!(read(dir.path(), "rec.jsonl.2"), "H\nline 000\nline 001\n");
        assert!(log.make_room());
        assert_eq!(log.rotations, 3);
        assert_eq!(read(dir.path(), "rec.jsonl.2"), "H\nline 002\nline 003\n");
        assert_eq!(read(dir.path(), "rec.jsonl"), "H\n");
        assert!(!log.make_room(), "once: the new file holds its header only");
        // Never by removing a file that is not the recording's own.
        log.write_line("line 005").unwrap();
        replace(&dir.path().join("rec.jsonl.2"), "theirs");
        assert!(!log.make_room());
        assert_eq!(read(dir.path(), "rec.jsonl.2"), "theirs");
    }

    fn replace(path: &Path, text: &str) {
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, path).unwrap();
    }

    #[test]
    fn a_failed_rotation_keeps_every_line_in_the_current_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.jsonl");
        let mut log = open_log(&path, 20, 2);
        // The current file moved away under its name: rotation does not move what took it.
        std::fs::rename(&path, dir.path().join("moved")).unwrap();
        std::fs::write(&path, "H\ntheirs\n").unwrap();
        for i in 0..4 {
            log.write_line(&format!("line {i:03}")).unwrap();
        }
        assert_eq!(
            read(dir.path(), "moved"),
            "H\nline 000\nline 001\nline 002\nline 003\n"
        );
        assert_eq!(read(dir.path(), "rec.jsonl"), "H\ntheirs\n");
        let why = log.rotation_error.clone().unwrap();
        assert_eq!(
            why,
            format!(
                "rotating {0}: {0} is no longer the file being recorded to (moved or replaced \
                 meanwhile)",
                path.display()
            )
        );
        assert_eq!(log.rotations, 0);
        // No temporary file left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
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
