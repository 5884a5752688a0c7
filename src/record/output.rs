//! Where records go (`--json`, `--jsonl`), checked like a target: a regular file or `-`
//! (standard output), never a symbolic link, a device or the benchmark's target, and never an
//! existing file with other content unless `--force`. An empty file or one of our own records
//! (its first key is `"format": "diskdash-...`) is replaced without asking: writing the same
//! `--json` path run after run is how scripts use it.
//!
//! Everything is decided on a descriptor: the path is pinned without following a link
//! (`O_PATH|O_NOFOLLOW`), checked with `fstat`, and an existing file is reopened from that
//! descriptor, so a path swapped between the check and the write cannot redirect it.

use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::writer::create_temp;
pub use super::writer::parent_dir;

use crate::error::usage;
use crate::pinned::{self, FileId};

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

/// Why the kernel uses a regular file (a loop device's backing file, a swap file), asked of the
/// block layer by whoever opens the output: `None` when nothing depends on it.
pub type InUse = fn(FileId) -> Option<String>;

/// What an output must not clobber.
#[derive(Debug, Clone, Copy)]
pub struct Guard<'a> {
    /// The benchmark's targets (files or device nodes), every job's.
    pub targets: &'a [FileId],
    /// The file the other output writes (`--jsonl` for `--json`), once it exists.
    pub other_output: Option<FileId>,
    /// `--force`: replace an existing file whatever it holds.
    pub force: bool,
    /// What the block layer stacks on a file: such a file is never an output.
    pub in_use: InUse,
}

/// Prefix (whitespace removed) of every record diskdash writes.
const OURS: &[u8] = br#"{"format":"diskdash-"#;

/// Prefix (whitespace removed) of every page `diskdash report` writes.
const OUR_PAGE: &[u8] =
    br#"<!DOCTYPEhtml><htmllang="en"><head><metacharset="utf-8"><metaname="generator"content="diskdashreport">"#;

/// Prefix (whitespace removed) of every chart `diskdash report --format svg` writes.
const OUR_SVG: &[u8] = b"<!--diskdashreport-->";

/// An output path resolved once: its directory pinned, its last name inside it.
struct Place {
    dir: OwnedFd,
    name: OsString,
}

impl Place {
    fn pin(flag: &str, path: &Path) -> anyhow::Result<Self> {
        let shown = path.display();
        let dir_path = parent_dir(path);
        let name = path
            .file_name()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| usage!("{flag} {shown} names no file; give a file name"))?
            .to_os_string();
        let dir = pinned::open_at(
            libc::AT_FDCWD,
            dir_path.as_os_str().as_bytes(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            0,
        )
        .map_err(|_| {
            usage!(
                "{flag} {shown}: directory {} does not exist; create it or write elsewhere",
                dir_path.display()
            )
        })?;
        if let Some(fs) = pinned::pseudo_filesystem_of(&dir)? {
            return Err(usage!(
                "{flag} {shown} is in {}, a kernel interface ({fs}), not storage; write elsewhere",
                dir_path.display()
            ));
        }
        Ok(Self { dir, name })
    }

    /// What is at the name now, checked: `None` when nothing is.
    fn check(
        &self,
        flag: &str,
        shown: &Path,
        guard: Guard<'_>,
    ) -> anyhow::Result<Option<Existing>> {
        let shown = shown.display();
        let pinned = match pinned::open_at(
            self.dir.as_raw_fd(),
            self.name.as_bytes(),
            libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0,
        ) {
            Ok(fd) => fd,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(usage!("{flag} {shown}: {err}; write elsewhere")),
        };
        let stat = pinned::fstat(&pinned)?;
        if let Some(fs) = pinned::pseudo_filesystem_of(&pinned)? {
            return Err(usage!(
                "{flag} {shown} is a kernel file of {fs}, not storage; write elsewhere"
            ));
        }
        let what = match stat.st_mode & libc::S_IFMT {
            libc::S_IFREG => None,
            libc::S_IFLNK => Some("a symbolic link; give the path of a file, not of a link"),
            libc::S_IFBLK => Some("a block device; records go to regular files"),
            libc::S_IFCHR => {
                Some("a character device; records go to regular files (or - for stdout)")
            }
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
        if guard.targets.contains(&id) {
            return Err(usage!(
                "{flag} {shown} is the benchmark's target; write the record elsewhere"
            ));
        }
        if Some(id) == guard.other_output {
            return Err(usage!(
                "{flag} {shown} is the file the other output writes; give them different files"
            ));
        }
        // Outputs are replaced whatever `--force` says only when nothing else depends on them:
        // not a file with other names (they would change too), not one something is stacked on.
        if stat.st_nlink > 1 {
            return Err(usage!(
                "{flag} {shown} has {} names (hard links); the others would change too; write \
                 elsewhere",
                stat.st_nlink
            ));
        }
        if let Some(reason) = (guard.in_use)(id) {
            return Err(usage!("{flag} {shown}: {reason}; write elsewhere"));
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
        Ok(Some(Existing { file, id }))
    }
}

/// A checked file at an output's name.
struct Existing {
    file: OwnedFd,
    id: FileId,
}

/// Checks `path` for `flag` (the rules above). `Ok(None)`: nothing there yet.
///
/// # Errors
/// A usage error naming the flag, the path, what is there and the fix.
#[cfg(test)]
pub fn check(flag: &str, path: &Path, guard: Guard<'_>) -> anyhow::Result<Option<OwnedFd>> {
    let place = Place::pin(flag, path)?;
    Ok(place.check(flag, path, guard)?.map(|e| e.file))
}

/// Opens `path` for JSON Lines, checked like [`check`]: the existing file reopened from its
/// descriptor and emptied, or a new one made with O_EXCL in the pinned directory (a name that
/// appears meanwhile is checked again). Returns the file and what it is.
///
/// # Errors
/// As [`check`], or the create failed.
pub fn open_jsonl(
    flag: &str,
    path: &Path,
    guard: Guard<'_>,
) -> anyhow::Result<(std::fs::File, FileId, Replacing)> {
    let shown = path.display();
    open_replacing(flag, path, guard, &|_, head, size_bytes| {
        if size_bytes > 0 && !guard.force && !starts_as_our_record(head) {
            return Err(usage!(
                "{flag} {shown} exists and is not a diskdash record ({size_bytes} bytes); choose \
                 another name, or pass --force to replace it"
            ));
        }
        Ok(())
    })
}

/// Opens `path` for `flag`, where a fio report goes (`diskdash fio --output`): checked like
/// [`check`], except that an existing file is replaced (emptied) only when it is empty, a fio
/// report (text, JSON or terse, fio's or `diskdash fio`'s) or a diskdash record, or with
/// `guard.force`; and never when it is one of `inputs` (the run's job files), even with
/// `force`. Returns the file, its identity and whether it was made here.
///
/// # Errors
/// As [`check`], the input or content refusals above, or the create failed.
pub fn open_report(
    flag: &str,
    path: &Path,
    guard: Guard<'_>,
    inputs: &[FileId],
) -> anyhow::Result<(std::fs::File, FileId, Replacing)> {
    let shown = path.display();
    open_replacing(flag, path, guard, &|existing, head, size_bytes| {
        if inputs.contains(&existing.id) {
            return Err(usage!(
                "{flag} {shown} is a job file of this run; write the report elsewhere"
            ));
        }
        let replaceable =
            size_bytes == 0 || starts_as_our_record(head) || starts_as_fio_output(head);
        if !replaceable && !guard.force {
            return Err(usage!(
                "{flag} {shown} exists and is neither a fio report nor a diskdash record \
                 ({size_bytes} bytes); choose another name, or pass --force to replace it"
            ));
        }
        Ok(())
    })
}

/// Opens `path` for one of fio's log files (`write_bw_log` and the others): checked like
/// [`check`] (a regular file or nothing, never a link, another name of a file, a loop's
/// backing file, a target or another output), and an existing file is replaced only when it
/// is empty or a fio log already (every line numbers separated by commas, as fio and
/// `diskdash fio` write them), or with `guard.force`. A log that is one of `inputs` (the run's
/// job files) is refused even with `force`.
///
/// # Errors
/// As [`open_report`].
pub fn open_log(
    path: &Path,
    guard: Guard<'_>,
    inputs: &[FileId],
) -> anyhow::Result<(std::fs::File, FileId, Replacing)> {
    let flag = "log file";
    let shown = path.display();
    open_replacing(flag, path, guard, &|existing, _head, size_bytes| {
        if inputs.contains(&existing.id) {
            return Err(usage!(
                "{flag} {shown} is a job file of this run; give the log another name"
            ));
        }
        if size_bytes > 0 && !guard.force && !is_fio_log(&existing.file) {
            return Err(usage!(
                "{flag} {shown} exists and is not a fio log ({size_bytes} bytes); give the log \
                 another name, or pass --force to replace it"
            ));
        }
        Ok(())
    })
}

/// What decides whether an existing, structurally checked file may be emptied: its identity,
/// its first bytes and its size.
type Accept<'a> = dyn Fn(&Existing, &[u8], u64) -> anyhow::Result<()> + 'a;

/// The shared body of [`open_report`] and [`open_log`]: every check of [`check`] but the
/// content's, which `accept` makes; then the checked file emptied through its descriptor, or a
/// new one made `O_EXCL|O_NOFOLLOW` in the pinned directory (a name that appears meanwhile is
/// checked again). Returns the file, its identity and whether it was made here.
fn open_replacing(
    flag: &str,
    path: &Path,
    guard: Guard<'_>,
    accept: &Accept<'_>,
) -> anyhow::Result<(std::fs::File, FileId, Replacing)> {
    let place = Place::pin(flag, path)?;
    let shown = path.display();
    // Every check but the content's, which is `accept`'s.
    let structural = Guard {
        force: true,
        ..guard
    };
    for _ in 0..8 {
        if let Some(existing) = place.check(flag, path, structural)? {
            let mut head = [0u8; 4096];
            let n = nix::sys::uio::pread(&existing.file, &mut head, 0).unwrap_or(0);
            let size_bytes =
                pinned::fstat(&existing.file).map_or(0, |st| st.st_size.unsigned_abs());
            accept(&existing, &head[..n], size_bytes)?;
            // Emptied at the first write, not now: a run refused after this check leaves the
            // earlier report or log as it was.
            let file = std::fs::File::from(existing.file);
            return Ok((file, existing.id, Replacing::Existing));
        }
        match pinned::open_at(
            place.dir.as_raw_fd(),
            place.name.as_bytes(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o644,
        ) {
            Ok(fd) => {
                let id = pinned::file_id(&fd)?;
                let made = Made {
                    dir: place.dir.try_clone()?,
                    name: place.name.clone(),
                    id,
                    armed: true,
                };
                return Ok((std::fs::File::from(fd), id, Replacing::Made(made)));
            }
            Err(err) if err.raw_os_error() == Some(libc::EEXIST) => {}
            Err(err) => {
                return Err(usage!(
                    "{flag} {shown}: cannot create it: {err}; write elsewhere"
                ));
            }
        }
    }
    Err(usage!(
        "{flag} {shown}: the name keeps appearing and vanishing; write elsewhere"
    ))
}

/// What [`open_report`] and [`open_log`] opened: a file they made, or an existing one to be
/// emptied by whoever writes it first ([`Replacing::empty_once`]).
#[derive(Debug)]
pub enum Replacing {
    Made(Made),
    Existing,
}

impl Replacing {
    /// Whether the file was made by this run.
    #[cfg(test)]
    #[must_use]
    pub fn made(&self) -> bool {
        matches!(self, Self::Made(_))
    }
}

/// A file an output check made new: removed again when dropped while still armed, empty and
/// under its name, so a command that fails before writing it (a target refused, a port
/// taken) leaves nothing behind. [`Made::keep`] disarms it once the run has started.
#[derive(Debug)]
pub struct Made {
    dir: OwnedFd,
    name: OsString,
    id: FileId,
    armed: bool,
}

impl Made {
    /// The run has started: the file stays, whatever happens next.
    pub fn keep(mut self) {
        self.armed = false;
    }
}

impl Drop for Made {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(now) = nix::sys::stat::fstatat(
            &self.dir,
            self.name.as_os_str(),
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        ) else {
            return;
        };
        if (now.st_dev, now.st_ino) == (self.id.dev, self.id.ino) && now.st_size == 0 {
            let _ = nix::unistd::unlinkat(
                &self.dir,
                self.name.as_os_str(),
                nix::unistd::UnlinkatFlags::NoRemoveDir,
            );
        }
    }
}

/// Whether every line of `file` is a fio log's (integers separated by commas, at least four:
/// `time, value, direction, block size, offset[, priority]`, or a histogram log's `time,
/// direction, block size, bin, ...`; the priority column also as `log_prio=1` writes it,
/// `0x%04x`), its last line whole: read through in blocks, so a log of millions of lines costs
/// no more memory than a short one. A heuristic, at a name fio's own pattern makes
/// (`PREFIX_bw.N.log`): other integer CSV there would be taken too; `--force` is needed for
/// anything else.
#[must_use]
pub fn is_fio_log(file: &impl std::os::fd::AsFd) -> bool {
    let mut block = vec![0u8; 1 << 16];
    let mut line: Vec<u8> = Vec::new();
    let mut at = 0i64;
    let mut lines = 0u64;
    loop {
        let Ok(n) = nix::sys::uio::pread(file, &mut block, at) else {
            return false;
        };
        if n == 0 {
            return line.is_empty() && lines > 0;
        }
        at += n as i64;
        for &byte in &block[..n] {
            if byte != b'\n' {
                line.push(byte);
                continue;
            }
            if !fio_log_line(&line) {
                return false;
            }
            lines += 1;
            line.clear();
        }
    }
}

/// One line of a fio log: at least four comma-separated integers, the last one decimal or
/// `0x` hexadecimal.
fn fio_log_line(line: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(line) else {
        return false;
    };
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    let last = fields.len().saturating_sub(1);
    fields.len() >= 4
        && fields.iter().enumerate().all(|(i, f)| {
            let digits = match f.strip_prefix("0x") {
                Some(hex) if i == last => {
                    return !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
                }
                _ => f,
            };
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        })
}

/// Whether `head` (a file's first bytes) begins like a report fio writes: its JSON
/// (`{"fio version": ...`, also `diskdash fio`'s), its terse lines (`3;fio-3.33;...`) or its
/// text, whose first line is a job's (`NAME: (g=0): rw=...` from fio, `NAME: (groupid=0,
/// jobs=1): err=...` from `diskdash fio`).
#[must_use]
pub fn starts_as_fio_output(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start();
    if let Some(rest) = text.strip_prefix('{') {
        return rest.trim_start().starts_with("\"fio version\"");
    }
    let first = text.lines().next().unwrap_or("");
    if let Some((version, rest)) = first.split_once(';') {
        if !version.is_empty()
            && version.bytes().all(|b| b.is_ascii_digit())
            && rest.starts_with("fio-")
        {
            return true;
        }
    }
    let number = |s: &str| -> Option<usize> {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        (n > 0).then_some(n)
    };
    first.match_indices(": (").any(|(i, _)| {
        let rest = &first[i + 3..];
        if let Some(r) = rest.strip_prefix("g=") {
            return number(r).is_some_and(|n| r[n..].starts_with("): rw="));
        }
        rest.strip_prefix("groupid=")
            .and_then(|r| number(r).map(|n| &r[n..]))
            .and_then(|r| r.strip_prefix(", jobs="))
            .and_then(|r| number(r).map(|n| &r[n..]))
            .is_some_and(|r| r.starts_with("): err="))
    })
}

/// A JSON Lines file opened for appending (`--record`), with its directory pinned so rotation
/// renames inside the same directory whatever happens to the path meanwhile.
pub struct AppendTarget {
    pub dir: OwnedFd,
    pub name: OsString,
    pub file: std::fs::File,
    /// Bytes already in the file (0 when new or emptied).
    pub size_bytes: u64,
}

/// Opens `path` for `flag` to append lines of the kind `recognized` knows by a file's first
/// bytes: such a file (or an empty one) is appended to; any other file is refused, or emptied
/// with `force`. Checked like [`check`] otherwise (a regular file, no link, one name).
///
/// # Errors
/// As [`check`], or the create failed.
pub fn open_append(
    flag: &str,
    path: &Path,
    force: bool,
    recognized: fn(&[u8]) -> bool,
    in_use: InUse,
) -> anyhow::Result<AppendTarget> {
    let place = Place::pin(flag, path)?;
    // Every check but the content's, which is this function's.
    let guard = Guard {
        targets: &[],
        other_output: None,
        force: true,
        in_use,
    };
    let shown = path.display();
    for _ in 0..8 {
        if let Some(existing) = place.check(flag, path, guard)? {
            let mut head = [0u8; 64];
            let n = nix::sys::uio::pread(&existing.file, &mut head, 0).unwrap_or(0);
            let size_bytes =
                pinned::fstat(&existing.file).map_or(0, |st| st.st_size.unsigned_abs());
            let file = std::fs::File::from(existing.file);
            let size_bytes = if size_bytes == 0 || recognized(&head[..n]) {
                size_bytes
            } else if force {
                file.set_len(0)
                    .map_err(|err| usage!("{flag} {shown}: {err}"))?;
                0
            } else {
                return Err(usage!(
                    "{flag} {shown} exists and is not a diskdash monitor recording ({size_bytes} \
                     bytes); choose another name, or pass --force to replace it"
                ));
            };
            // Appends land at the end even if something else appends too.
            nix::fcntl::fcntl(
                &file,
                nix::fcntl::FcntlArg::F_SETFL(nix::fcntl::OFlag::O_APPEND),
            )
            .map_err(|err| usage!("{flag} {shown}: {err}"))?;
            return Ok(AppendTarget {
                dir: place.dir,
                name: place.name,
                file,
                size_bytes,
            });
        }
        match create_appending(&place.dir, place.name.as_bytes()) {
            Ok(file) => {
                return Ok(AppendTarget {
                    dir: place.dir,
                    name: place.name,
                    file,
                    size_bytes: 0,
                });
            }
            Err(err) if err.raw_os_error() == Some(libc::EEXIST) => {}
            Err(err) => {
                return Err(usage!(
                    "{flag} {shown}: cannot create it: {err}; write elsewhere"
                ));
            }
        }
    }
    Err(usage!(
        "{flag} {shown}: the name keeps appearing and vanishing; write elsewhere"
    ))
}

/// A new file `name` in `dir` for appending: never an existing one, never through a link.
///
/// # Errors
/// `EEXIST` when the name is taken, or what `openat(2)` says.
pub fn create_appending(dir: &OwnedFd, name: &[u8]) -> std::io::Result<std::fs::File> {
    pinned::open_at(
        dir.as_raw_fd(),
        name,
        libc::O_WRONLY
            | libc::O_APPEND
            | libc::O_CREAT
            | libc::O_EXCL
            | libc::O_NOFOLLOW
            | libc::O_CLOEXEC,
        0o644,
    )
    .map(std::fs::File::from)
}

/// Where the final record goes, prepared before the run: the directory pinned, a temporary file
/// already made in it (`O_CREAT|O_EXCL|O_NOFOLLOW`, so an unwritable place fails before the
/// run, not after it), and what was at the name then. [`RecordDestination::commit`] writes the
/// record there and renames it over the name only if the name still holds what was checked
/// (or still nothing); otherwise the record stays in the temporary file, and the error says
/// where. Dropped without a commit, the temporary file is removed.
pub struct RecordDestination {
    place: Place,
    shown: PathBuf,
    tmp: String,
    file: Option<std::fs::File>,
    /// The checked file at the name when the run started.
    existed: Option<FileId>,
    /// Held open until the commit, so its inode cannot be freed and its number reused by a
    /// file that takes the name meanwhile.
    _held: Option<OwnedFd>,
}

impl RecordDestination {
    /// Checks `path` for `flag` and makes the temporary file.
    ///
    /// # Errors
    /// As [`check`], or the directory does not take a new file.
    pub fn prepare(flag: &str, path: &Path, guard: Guard<'_>) -> anyhow::Result<Self> {
        let place = Place::pin(flag, path)?;
        let existing = place.check(flag, path, guard)?;
        let existed = existing.as_ref().map(|e| e.id);
        let (tmp, fd) = create_temp(&place.dir, &place.name.to_string_lossy()).map_err(|err| {
            usage!(
                "{flag} {}: cannot write in {}: {err}; write elsewhere",
                path.display(),
                parent_dir(path).display()
            )
        })?;
        Ok(Self {
            place,
            shown: path.to_path_buf(),
            tmp,
            file: Some(std::fs::File::from(fd)),
            existed,
            _held: existing.map(|e| e.file),
        })
    }

    /// Writes `bytes` (synced) and renames them over the name.
    ///
    /// # Errors
    /// The write failed, or the name changed during the run (the record is then kept in the
    /// temporary file, which the error names).
    pub fn commit(mut self, bytes: &[u8]) -> anyhow::Result<()> {
        use std::io::Write as _;
        let shown = self.shown.display().to_string();
        let mut file = self.file.take().context("the record was already written")?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .with_context(|| format!("writing {shown}"))?;
        let dir = &self.place.dir;
        let now = nix::sys::stat::fstatat(
            dir,
            self.place.name.as_os_str(),
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        )
        .ok()
        .map(|st| FileId {
            dev: st.st_dev,
            ino: st.st_ino,
        });
        let kept_in = parent_dir(&self.shown).join(&self.tmp);
        let kept = || {
            anyhow::anyhow!(
                "{shown} changed during the run; the record is kept in {}",
                kept_in.display()
            )
        };
        let renamed = match (self.existed, now) {
            // Nothing was there and nothing is: never replace what appears meanwhile.
            (None | Some(_), None) => nix::fcntl::renameat2(
                dir,
                self.tmp.as_str(),
                dir,
                self.place.name.as_os_str(),
                nix::fcntl::RenameFlags::RENAME_NOREPLACE,
            ),
            (Some(then), Some(now)) if then == now => {
                nix::fcntl::renameat(dir, self.tmp.as_str(), dir, self.place.name.as_os_str())
            }
            _ => {
                self.tmp.clear();
                return Err(kept());
            }
        };
        match renamed {
            Ok(()) => {
                self.tmp.clear();
                Ok(())
            }
            Err(nix::errno::Errno::EEXIST) => {
                self.tmp.clear();
                Err(kept())
            }
            Err(err) => Err(std::io::Error::from(err)).with_context(|| format!("writing {shown}")),
        }
    }
}

impl Drop for RecordDestination {
    fn drop(&mut self) {
        if !self.tmp.is_empty() {
            let _ = nix::unistd::unlinkat(
                &self.place.dir,
                self.tmp.as_str(),
                nix::unistd::UnlinkatFlags::NoRemoveDir,
            );
        }
    }
}

/// Whether two paths name the same place: the same name in the same directory (links in the
/// directories followed), whether or not a file is there yet. Another name of one file is
/// refused by the outputs' checks (one name only).
#[must_use]
pub fn same_place(a: &Path, b: &Path) -> bool {
    let place = |path: &Path| {
        let dir = parent_dir(path).canonicalize().ok()?;
        Some(dir.join(path.file_name()?))
    };
    a == b || place(a).is_some_and(|a| Some(a) == place(b))
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

/// Whether `head` (the first bytes of a file) begins like a run's record of ours (a bench,
/// fio, sweep, mark or fleet record, or their JSON Lines) or a report's page: never a monitor recording, which
/// may hold weeks of samples and is replaced by nothing but its own rotation.
fn starts_as_our_record(head: &[u8]) -> bool {
    const MONITOR: &[u8] = b"monitor";
    let compact: Vec<u8> = head
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .take(OUR_PAGE.len().max(OURS.len() + MONITOR.len()))
        .collect();
    (compact.starts_with(OURS) && !compact[OURS.len()..].starts_with(MONITOR))
        || compact.starts_with(OUR_PAGE)
        || compact.starts_with(OUR_SVG)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fio_log_is_one_whose_every_line_parses() {
        let dir = tempfile::tempdir().unwrap();
        let check = |text: &str| {
            let path = dir.path().join("log");
            std::fs::write(&path, text).unwrap();
            super::is_fio_log(&std::fs::File::open(&path).unwrap())
        };
        assert!(check("0, 1, 0, 4096, 0\n5, 1, 1, 4096, 8192, 0x2004\n"));
        assert!(check("501, 0, 4096, 0, 0, 3, 0\n"));
        let long = "1, 2, 0, 4096, 0\n".repeat(20_000);
        assert!(check(&long));
        assert!(!check(&(long.clone() + "not, a, log, line\n")));
        assert!(!check(&(long + "1, 2, 0")));
        assert!(!check(""));
        assert!(!check("0x10, 1, 0, 4096\n"));
    }

    use super::*;

    #[test]
    fn fio_reports_are_known_by_their_first_line() {
        for report in [
            "a: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, \
             ioengine=psync, iodepth=1\nfio-3.33\nStarting 1 process\n",
            "a: (groupid=0, jobs=1): err= 0: data on vda\n  read: IOPS=15.7k\n",
            "my job: x: (groupid=12, jobs=4): err= 5: x\n",
            "{\n  \"fio version\" : \"fio-3.33\",\n  \"timestamp\" : 1795676378,",
            "{\n  \"fio version\": \"diskdash-0.1.0\",",
            "3;fio-3.33;a;0;0;1024;146285;36571;7;0;0",
        ] {
            assert!(starts_as_fio_output(report.as_bytes()), "{report}");
        }
        for other in [
            "[a]\nfilename=data\n",
            "{\"name\": 1}",
            "a: (g=x): rw=read\n",
            "a: (groupid=0, jobs=1) err\n",
            "precious notes: (g=0) rw=\n",
            "3;fi",
            "",
            "notes\nsecond: (g=0): rw=read\n",
        ] {
            assert!(!starts_as_fio_output(other.as_bytes()), "{other}");
        }
    }

    #[test]
    fn a_report_replaces_reports_records_and_empty_files_never_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        let open = |force: bool, inputs: &[FileId]| {
            let guard = Guard { force, ..guard() };
            open_report("--output", &path, guard, inputs).map_err(|e| e.to_string())
        };
        let (_, made, created) = open(false, &[]).unwrap();
        assert!(created.made());
        let Replacing::Made(created) = created else {
            unreachable!()
        };
        created.keep();
        for replaceable in [
            &b"a: (g=0): rw=read, bs=(R) 4096B-4096B\nfio-3.33\n"[..],
            b"{\"format\": \"diskdash-run\"}",
            b"",
        ] {
            std::fs::write(&path, replaceable).unwrap();
            let (_, id, created) = open(false, &[]).unwrap();
            assert_eq!((id, created.made()), (made, false));
            // Taken, and emptied by its writer at the first write, not by the check.
            assert_eq!(std::fs::read(&path).unwrap(), replaceable);
        }
        std::fs::write(&path, b"[a]\nrw=read\n").unwrap();
        assert_eq!(
            open(false, &[]).unwrap_err(),
            format!(
                "--output {} exists and is neither a fio report nor a diskdash record (12 \
                 bytes); choose another name, or pass --force to replace it",
                path.display()
            )
        );
        let input = pinned::file_id(&std::fs::File::open(&path).unwrap().into()).unwrap();
        for force in [false, true] {
            assert_eq!(
                open(force, &[input]).unwrap_err(),
                format!(
                    "--output {} is a job file of this run; write the report elsewhere",
                    path.display()
                )
            );
        }
        assert_eq!(std::fs::read(&path).unwrap(), b"[a]\nrw=read\n");
        assert!(!open(true, &[]).unwrap().2.made(), "taken with --force");
    }

    #[test]
    fn our_records_are_known_by_their_first_key() {
        assert!(starts_as_our_record(
            b"{\n  \"format\": \"diskdash-bench\",\n  \"format_version\": 2"
        ));
        assert!(starts_as_our_record(
            b"{\"format\":\"diskdash-bench-interval\",\"seq\":0}\n"
        ));
        assert!(!starts_as_our_record(b"{\"format\":\"other\"}"));
        assert!(starts_as_our_record(
            b"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"generator\" content=\"diskdash report\">"
        ));
        assert!(starts_as_our_record(b"<!-- diskdash report -->\n<svg"));
        assert!(!starts_as_our_record(
            b"<!DOCTYPE html>\n<html lang=\"en\"><head>"
        ));
        assert!(!starts_as_our_record(b"\x7fELF\x02\x01\x01"));
        assert!(!starts_as_our_record(b""));
    }

    /// Nothing in these temporary directories backs a block device.
    fn unused(_: FileId) -> Option<String> {
        None
    }

    fn guard() -> Guard<'static> {
        Guard {
            targets: &[],
            other_output: None,
            force: false,
            in_use: unused,
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
        let data_id =
            pinned::file_id(&OwnedFd::from(std::fs::File::open(path("data")).unwrap())).unwrap();
        let target = Guard {
            other_output: None,
            targets: &[data_id],
            force: true,
            in_use: unused,
        };
        let err = check("--jsonl", &path("data"), target)
            .unwrap_err()
            .to_string();
        assert!(err.contains("is the benchmark's target"), "{err}");
        let loop_backing = Guard {
            in_use: |_| Some("it backs /dev/loop7".into()),
            ..forced
        };
        let err = check("--json", &path("data"), loop_backing)
            .unwrap_err()
            .to_string();
        assert!(
            err.ends_with("data: it backs /dev/loop7; write elsewhere"),
            "{err}"
        );
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
    fn jsonl_takes_a_record_and_creates_new_files_that_go_unless_kept() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("run.jsonl");
        std::fs::write(&old, b"{\"format\":\"diskdash-bench-interval\"}\n").unwrap();
        let (file, id, replacing) = open_jsonl("--jsonl", &old, guard()).unwrap();
        // Emptied by its writer once every check passed, not here.
        assert!(matches!(replacing, Replacing::Existing));
        assert!(file.metadata().unwrap().len() > 0);
        assert_eq!(Some(id), pinned::file_id(&OwnedFd::from(file)).ok());
        // A monitor recording is not a run's record.
        let rec = dir.path().join("mon.jsonl");
        std::fs::write(
            &rec,
            b"{\"format\":\"diskdash-monitor\",\"format_version\":1}\n",
        )
        .unwrap();
        let err = open_jsonl("--jsonl", &rec, guard())
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a diskdash record"), "{err}");
        // A new file is removed when the command fails before it is kept.
        let new = dir.path().join("new.jsonl");
        let (_, _, made) = open_jsonl("--jsonl", &new, guard()).unwrap();
        assert!(new.is_file());
        drop(made);
        assert!(!new.exists(), "an unkept new file stayed");
        let (_, _, made) = open_jsonl("--jsonl", &new, guard()).unwrap();
        let Replacing::Made(made) = made else {
            panic!("not made")
        };
        made.keep();
        assert!(new.is_file());
        // Kernel files are never outputs, --force or not.
        let forced = Guard {
            force: true,
            ..guard()
        };
        for kernel in ["/proc/sys/kernel/hostname", "/sys/kernel/profiling"] {
            let err = open_jsonl("--jsonl", Path::new(kernel), forced)
                .unwrap_err()
                .to_string();
            assert!(err.contains("kernel"), "{kernel}: {err}");
        }
    }

    #[test]
    fn a_record_replaces_only_what_was_checked_and_keeps_itself_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        // Nothing there: written, no temporary file left.
        let dest = RecordDestination::prepare("--json", &path, guard()).unwrap();
        dest.commit(b"{\"format\":\"diskdash-bench\"}").unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // Our record there: replaced.
        let dest = RecordDestination::prepare("--json", &path, guard()).unwrap();
        dest.commit(b"{\"format\":\"diskdash-bench\",\"n\":2}")
            .unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().contains("\"n\":2"));
        // Something else put there during the run: kept, the record waits beside it.
        let dest = RecordDestination::prepare("--json", &path, guard()).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"precious").unwrap();
        let err = dest.commit(b"{}").unwrap_err().to_string();
        assert!(
            err.contains("changed during the run; the record is kept in"),
            "{err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"precious");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        // Dropped without a commit (a run that never ends well): no temporary file left.
        let other = dir.path().join("other.json");
        drop(RecordDestination::prepare("--json", &other, guard()).unwrap());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
