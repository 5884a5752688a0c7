//! Where records go (`--json`, `--jsonl`), checked like a target: a regular file or `-`
//! (standard output), never a symbolic link, a device or the benchmark's target, and never an
//! existing file with other content unless `--force`. An empty file or one of our own records
//! (its first key is `"format": "diskdash-...`) is replaced without asking: writing the same
//! `--json` path run after run is how scripts use it.
//!
//! Everything is decided on a descriptor: the path is pinned without following a link
//! (`O_PATH|O_NOFOLLOW`), checked with `fstat`, and an existing file is reopened from that
//! descriptor, so a path swapped between the check and the write cannot redirect it.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::bench::pinned::{self, FileId};
use crate::usage;

/// How an output is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// `-`.
    Stdout,
    File(PathBuf),
}

impl Output {
    #[must_use]
    pub fn from_arg(path: &Path) -> Self {
        if path.as_os_str() == "-" {
            Self::Stdout
        } else {
            Self::File(path.to_path_buf())
        }
    }
}

/// What an output must not clobber.
#[derive(Debug, Clone, Copy)]
pub struct Guard {
    /// The benchmark's target (file or device node).
    pub target: FileId,
    /// `--force`: replace an existing file whatever it holds.
    pub force: bool,
}

/// Prefix (whitespace removed) of every record diskdash writes.
const OURS: &[u8] = br#"{"format":"diskdash-"#;

/// Checks `path` for `flag` before the run. `Ok(None)`: nothing there yet.
///
/// # Errors
/// A usage error naming the flag, the path, what is there and the fix.
pub fn check(flag: &str, path: &Path, guard: Guard) -> anyhow::Result<Option<OwnedFd>> {
    let shown = path.display();
    let dir = parent_dir(path);
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        _ => {
            return Err(usage!(
                "{flag} {shown}: directory {} does not exist; create it or write elsewhere",
                dir.display()
            ));
        }
    }
    let pinned = match pinned::open_at(
        libc::AT_FDCWD,
        path.as_os_str().as_bytes(),
        libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        0,
    ) {
        Ok(fd) => fd,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(usage!("{flag} {shown}: {err}; write elsewhere")),
    };
    let stat = pinned::fstat(&pinned)?;
    let what = match stat.st_mode & libc::S_IFMT {
        libc::S_IFREG => None,
        libc::S_IFLNK => Some("a symbolic link; give the path of a file, not of a link"),
        libc::S_IFBLK => Some("a block device; records go to regular files"),
        libc::S_IFCHR => Some("a character device; records go to regular files (or - for stdout)"),
        libc::S_IFDIR => Some("a directory; give a file name inside it"),
        _ => Some("not a regular file; records go to regular files"),
    };
    if let Some(what) = what {
        return Err(usage!("{flag} {shown} is {what}"));
    }
    let id = FileId {
        dev: stat.st_dev,
        ino: stat.st_ino,
    };
    if id == guard.target {
        return Err(usage!(
            "{flag} {shown} is the benchmark's target; write the record elsewhere"
        ));
    }
    let file = reopen(&pinned, libc::O_RDWR | libc::O_NONBLOCK)
        .map_err(|err| usage!("{flag} {shown}: {err}; write elsewhere"))?;
    if stat.st_size > 0 && !guard.force && !is_our_record(&file) {
        return Err(usage!(
            "{flag} {shown} exists and is not a diskdash record ({} bytes); choose another \
             name, or pass --force to replace it",
            stat.st_size
        ));
    }
    Ok(Some(file))
}

/// Opens `path` for JSON Lines, checked by [`check`]: the existing file reopened from its
/// descriptor and emptied, or a new one made with O_EXCL (a name that appears meanwhile is
/// checked again).
///
/// # Errors
/// As [`check`], or the create failed.
pub fn open_jsonl(flag: &str, path: &Path, guard: Guard) -> anyhow::Result<std::fs::File> {
    for _ in 0..8 {
        if let Some(existing) = check(flag, path, guard)? {
            let file = std::fs::File::from(existing);
            file.set_len(0)
                .map_err(|err| usage!("{flag} {}: {err}", path.display()))?;
            return Ok(file);
        }
        match pinned::open_at(
            libc::AT_FDCWD,
            path.as_os_str().as_bytes(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o644,
        ) {
            Ok(fd) => return Ok(std::fs::File::from(fd)),
            Err(err) if err.raw_os_error() == Some(libc::EEXIST) => {}
            Err(err) => {
                return Err(usage!(
                    "{flag} {}: cannot create it: {err}; write elsewhere",
                    path.display()
                ));
            }
        }
    }
    Err(usage!(
        "{flag} {}: the name keeps appearing and vanishing; write elsewhere",
        path.display()
    ))
}

/// The directory a path's last component lives in.
#[must_use]
pub fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."))
}

fn reopen(pinned: &OwnedFd, flags: libc::c_int) -> std::io::Result<OwnedFd> {
    let link = format!("/proc/self/fd/{}", pinned.as_raw_fd());
    pinned::open_at(libc::AT_FDCWD, link.as_bytes(), flags | libc::O_CLOEXEC, 0)
}

fn is_our_record(file: &OwnedFd) -> bool {
    let mut head = [0u8; 256];
    let n = nix::sys::uio::pread(file, &mut head, 0).unwrap_or(0);
    starts_as_our_record(&head[..n])
}

/// Whether `head` (the first bytes of a file) begins like a record of ours.
fn starts_as_our_record(head: &[u8]) -> bool {
    let compact: Vec<u8> = head
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .take(OURS.len())
        .collect();
    compact == OURS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_records_are_known_by_their_first_key() {
        assert!(starts_as_our_record(
            b"{\n  \"format\": \"diskdash-bench\",\n  \"format_version\": 2"
        ));
        assert!(starts_as_our_record(
            b"{\"format\":\"diskdash-bench-interval\",\"seq\":0}\n"
        ));
        assert!(!starts_as_our_record(b"{\"format\":\"other\"}"));
        assert!(!starts_as_our_record(b"\x7fELF\x02\x01\x01"));
        assert!(!starts_as_our_record(b""));
    }

    fn guard() -> Guard {
        Guard {
            target: FileId { dev: 0, ino: 0 },
            force: false,
        }
    }

    #[test]
    fn outputs_replace_records_and_refuse_everything_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        assert!(
            check("--json", &path("new.json"), guard())
                .unwrap()
                .is_none()
        );
        std::fs::write(path("old.json"), b"{\"format\": \"diskdash-bench\"}").unwrap();
        assert!(
            check("--json", &path("old.json"), guard())
                .unwrap()
                .is_some()
        );
        std::fs::write(path("empty.json"), b"").unwrap();
        assert!(
            check("--json", &path("empty.json"), guard())
                .unwrap()
                .is_some()
        );
        std::fs::write(path("data"), b"precious").unwrap();
        let err = check("--json", &path("data"), guard())
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a diskdash record (8 bytes)"), "{err}");
        let forced = Guard {
            force: true,
            ..guard()
        };
        assert!(check("--json", &path("data"), forced).unwrap().is_some());
        std::os::unix::fs::symlink(path("data"), path("link")).unwrap();
        let err = check("--json", &path("link"), forced)
            .unwrap_err()
            .to_string();
        assert!(err.contains("is a symbolic link"), "{err}");
        let target = Guard {
            target: pinned::file_id(&OwnedFd::from(std::fs::File::open(path("data")).unwrap()))
                .unwrap(),
            force: true,
        };
        let err = check("--jsonl", &path("data"), target)
            .unwrap_err()
            .to_string();
        assert!(err.contains("is the benchmark's target"), "{err}");
        let err = check("--json", Path::new("/dev/null"), forced)
            .unwrap_err()
            .to_string();
        assert!(err.contains("is a character device"), "{err}");
        let err = check("--json", &path("none/x.json"), guard())
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not exist"), "{err}");
    }

    #[test]
    fn jsonl_empties_a_record_and_creates_new_files() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("run.jsonl");
        std::fs::write(&old, b"{\"format\":\"diskdash-bench-interval\"}\n").unwrap();
        let file = open_jsonl("--jsonl", &old, guard()).unwrap();
        assert_eq!(file.metadata().unwrap().len(), 0);
        let new = dir.path().join("new.jsonl");
        open_jsonl("--jsonl", &new, guard()).unwrap();
        assert!(new.is_file());
    }
}
