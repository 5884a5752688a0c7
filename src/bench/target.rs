//! The target: resolve TARGET (directory -> scratch file, existing file, block device), apply
//! the safety rules, open it with the job's flags, size the working set, and check what needs
//! the target (logical block size, O_DIRECT support, free space).
//!
//! Safety: TARGET is resolved once ([`Pinned`]); every rule applies to that object and the I/O
//! descriptor is reopened from it, never from the path. Only directories (a scratch file is
//! made inside), regular files on storage filesystems and block devices are targets; files of
//! kernel-interface filesystems (procfs, sysfs, ...) are refused. A scratch file is created
//! with O_EXCL|O_NOFOLLOW relative to the pinned directory and unlinked there. Writing to a
//! file holding data or to a block device needs `--allow-destructive`; a read job opens
//! existing data read-only. Writing to a device or file that is mounted or has anything stacked
//! on it (a partition mounted, a holder, a loop device, up the whole chain) is refused even with
//! the opt-in, and a device is opened with O_EXCL so the kernel refuses too when someone else
//! has it.

use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::Context;

use crate::bench::blockdev::{self, Bottom, SysfsStack};
use crate::bench::spec::{Fallocate, JobSpec, OpenSync};
use crate::error::usage;
use crate::pinned::{self, FileId, ObjectKind, Pinned};
use crate::record::RunWarning;
use crate::units::{format_bytes, format_size_short};

/// The smallest working set a scratch file is lowered to before giving up.
const MIN_SCRATCH_BYTES: u64 = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// A file diskdash created and removes.
    Scratch,
    File,
    BlockDevice,
}

/// An opened, checked target.
#[derive(Debug)]
pub struct Target {
    /// The file or device I/O goes to.
    pub path: PathBuf,
    pub kind: TargetKind,
    pub file: Arc<OwnedFd>,
    /// What `file` is: outputs are checked against it so a record never replaces the target.
    pub id: FileId,
    /// The block device I/O lands on: a device's own number, or the `st_dev` of a file.
    pub device_number: u64,
    /// The descriptor was opened for writing (a write job, a scratch file, or a fill).
    pub writable: bool,
    /// Bytes the workers address (a multiple of the block size).
    pub working_set_bytes: u64,
    /// O_DIRECT offset/length alignment (the logical block size), bytes.
    pub dio_align_bytes: u32,
    /// The working set must be written before it is read (new or sparse).
    pub needs_fill: bool,
    /// Bytes from the start the workers address: the working set moved by `offset` and
    /// `offset_increment` (the fill writes all of it).
    pub extent_bytes: u64,
    /// Bytes the target holds when that bounds the job (a device, a file with data); `None`
    /// when the run sizes it (a scratch file, an empty or created file).
    pub capacity_bytes: Option<u64>,
    /// This run created the file (fio's job files name files that need not exist).
    pub created: bool,
    /// What was adjusted, for the output and the record.
    pub notes: Vec<String>,
    /// Warnings (e.g. holes that stay unfilled).
    pub warnings: Vec<RunWarning>,
    scratch: Option<ScratchFile>,
    /// The length the file had before this run, when the run may make it longer (a scratch,
    /// created or empty file, or holes filled): on ENOSPC it is given back.
    grown_from_bytes: Option<u64>,
    /// A file this run created and leaves in place (fio's `unlink=0`): removed on drop until
    /// the run starts ([`Target::keep_created`]; a plan refused before it runs leaves nothing),
    /// after that only to give space back on ENOSPC.
    created_file: Option<ScratchFile>,
    /// A pure write job's new file, still to be laid out this way ([`Target::lay_out`]),
    /// after the room check of all the run's targets.
    layout: Option<Fallocate>,
    /// The devices below a written device that nothing else claims (a loop's backing
    /// device, to the bottom), held open `O_EXCL` for as long as the target lives, so no
    /// mount in any namespace can take them while the run writes through them. Never read:
    /// the descriptors do their work by being open, and close with the target.
    _held: Vec<OwnedFd>,
    /// The file carries diskdash's mark ([`MARK_XATTR`]): stamped again with the file's state
    /// when the target closes, after the run's last write, so the next run finds the file as
    /// this one left it.
    marked: bool,
    /// The file was empty when opened: it gets the mark at close only if the run filled or
    /// wrote it (a run refused before writing, e.g. for room, leaves it untouched).
    marked_if_filled: bool,
}

impl Drop for Target {
    fn drop(&mut self) {
        let filled = || nix::sys::stat::fstat(&*self.file).is_ok_and(|st| st.st_size > 0);
        if (self.marked || (self.marked_if_filled && filled())) && self.writable {
            // A mark that cannot be written leaves the old one, which no longer matches: the
            // next run asks for --allow-destructive, the safe side.
            let _ = mark(&self.file);
        }
    }
}

impl Target {
    /// Lays out a pure write job's new file as fio does before the job starts (its
    /// `fallocate`): allocated and sized (`native`, `posix`), allocated at length 0 (`keep`),
    /// sized sparse (`truncate`), or left empty to grow as written (`none`). Done once, after
    /// [`check_room`] passed for every target of the run; nothing for any other target.
    ///
    /// # Errors
    /// A usage error naming the file, its size and what the filesystem said.
    pub fn lay_out(&mut self) -> anyhow::Result<()> {
        let Some(mode) = self.layout.take() else {
            return Ok(());
        };
        extend(&self.file, self.extent_bytes, mode).map_err(|err| {
            usage!(
                "cannot lay out {} ({}, fallocate={}): {err}; lower the size or choose another \
                 place",
                self.path.display(),
                format_bytes(self.extent_bytes),
                mode.as_str()
            )
        })
    }

    /// Marks the file as diskdash's when the target closes (after `create_only` laid it
    /// out): a later job may write it again without the opt-in while it is unchanged.
    pub fn mark_laid_out(&mut self) {
        self.marked = self.writable;
    }

    /// Whether a scratch file was made (and will be removed).
    #[cfg(test)]
    #[must_use]
    pub fn is_scratch(&self) -> bool {
        self.scratch.is_some()
    }

    /// Writes back and drops the page cache of the target (fio's `invalidate=1`), so a
    /// buffered job starts from the device, not from what a fill or an earlier step left in
    /// memory. Pages other processes keep dirty or mapped may stay.
    ///
    /// # Errors
    /// What `fdatasync` or `posix_fadvise` said.
    pub fn drop_cached(&self) -> std::io::Result<()> {
        let fd = self.file.as_raw_fd();
        // SAFETY: fdatasync on a descriptor open for the run.
        if unsafe { libc::fdatasync(fd) } < 0 {
            let err = std::io::Error::last_os_error();
            // A descriptor that cannot sync (some special files) still drops clean pages.
            if err.raw_os_error() != Some(libc::EINVAL) {
                return Err(err);
            }
        }
        // SAFETY: posix_fadvise only advises the kernel about this descriptor's pages.
        match unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) } {
            0 => Ok(()),
            errno => Err(std::io::Error::from_raw_os_error(errno)),
        }
    }

    /// Removes the scratch file now (else done on drop): `None` when there was none, else
    /// what `unlink` said.
    pub fn remove_scratch(&mut self) -> Option<std::io::Result<()>> {
        self.scratch.take().map(|mut scratch| scratch.remove())
    }

    /// The run starts: a file it created (fio's `unlink=0`) is left in place from now on.
    pub fn keep_created(&mut self) {
        if let Some(created) = &mut self.created_file {
            created.removed = true;
        }
    }

    /// Gives back the space this run took after the filesystem filled up (ENOSPC): a file it
    /// created is removed, a file that was empty is truncated back to empty. A scratch file
    /// is left to [`Target::remove_scratch`]; a sparse file whose holes were filled keeps its
    /// data (what was a hole is not known any more). Says what it did, for the run's notes.
    pub fn give_back_space(&mut self) -> Option<String> {
        let from = self.grown_from_bytes?;
        if self.scratch.is_some() {
            return None;
        }
        if let Some(mut created) = self.created_file.take() {
            self.grown_from_bytes = None;
            return Some(match created.remove() {
                Ok(()) => format!(
                    "removed {}, created by this run, to give the space back",
                    self.path.display()
                ),
                Err(err) => format!(
                    "could not remove {}, created by this run: {err}; remove it by hand",
                    self.path.display()
                ),
            });
        }
        if from != 0 {
            return None;
        }
        self.grown_from_bytes = None;
        let len = libc::off_t::try_from(from).unwrap_or(0);
        // SAFETY: ftruncate on a descriptor open for the run; no memory is involved.
        let rc = unsafe { libc::ftruncate(self.file.as_raw_fd(), len) };
        Some(if rc == 0 {
            format!(
                "truncated {} back to empty to give the space back",
                self.path.display()
            )
        } else {
            format!(
                "could not truncate {} back to empty: {}",
                self.path.display(),
                std::io::Error::last_os_error()
            )
        })
    }

    /// Bytes the filesystem must still supply for this target to reach its extent; 0 for a
    /// target that does not grow.
    fn bytes_to_grow(&self) -> std::io::Result<u64> {
        if self.grown_from_bytes.is_none() {
            return Ok(0);
        }
        let stat = pinned::fstat(&self.file)?;
        let allocated = u64::try_from(stat.st_blocks)
            .unwrap_or(0)
            .saturating_mul(512);
        Ok(self.extent_bytes.saturating_sub(allocated))
    }
}

/// Whether a job goes on past a write's ENOSPC (fio's `continue_on_error` with ENOSPC in
/// `ignore_error`'s write list).
fn passes_enospc(spec: &JobSpec) -> bool {
    spec.errors
        .continues(crate::bench::spec::ErrorClass::Write, libc::ENOSPC)
}

/// Free space where a target lives, for the room check: `None` on a filesystem that does not
/// account space (ramfs reports no blocks at all).
fn free_bytes(file: &OwnedFd) -> std::io::Result<Option<u64>> {
    let stat = nix::sys::statvfs::fstatvfs(file).map_err(std::io::Error::from)?;
    Ok((stat.blocks() > 0).then(|| stat.blocks_available().saturating_mul(stat.fragment_size())))
}

/// Refuses, before anything is written, targets that would fill their filesystem: each one's
/// growth, and the sum over the targets on one filesystem.
///
/// # Errors
/// A usage error with the numbers: what the targets need, what is free, and the fix.
pub fn check_room(targets: &[&Target]) -> anyhow::Result<()> {
    let mut by_fs: Vec<(u64, u64, Vec<&Path>)> = Vec::new();
    let mut seen: Vec<FileId> = Vec::new();
    for target in targets {
        // One file opened twice (two ways of opening it) grows once.
        if seen.contains(&target.id) {
            continue;
        }
        seen.push(target.id);
        let need = target
            .bytes_to_grow()
            .with_context(|| format!("checking the size of {}", target.path.display()))?;
        if need == 0 {
            continue;
        }
        match by_fs.iter_mut().find(|(dev, _, _)| *dev == target.id.dev) {
            Some((_, sum, paths)) => {
                *sum = sum.saturating_add(need);
                paths.push(&target.path);
            }
            None => by_fs.push((target.id.dev, need, vec![&target.path])),
        }
        let Some(free) = free_bytes(&target.file)
            .with_context(|| format!("checking free space for {}", target.path.display()))?
        else {
            continue;
        };
        let (_, sum, paths) = by_fs
            .iter()
            .find(|(dev, _, _)| *dev == target.id.dev)
            .expect("just added");
        if *sum > free {
            let what = if paths.len() == 1 {
                format!("{} needs {} more", paths[0].display(), format_bytes(*sum))
            } else {
                format!(
                    "{} files on one filesystem ({}) need {} more",
                    paths.len(),
                    paths
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    format_bytes(*sum)
                )
            };
            return Err(usage!(
                "no room: {what} to lay out its working set, but only {} is free there; lower \
                 the size, free some space, or choose another place",
                format_bytes(free)
            ));
        }
    }
    Ok(())
}

/// The scratch file's name in its pinned directory; unlinked there when dropped, on every exit
/// path (a renamed or swapped directory path cannot make it unlink something else).
#[derive(Debug)]
struct ScratchFile {
    dir: OwnedFd,
    name: String,
    /// What was created: the name is unlinked only while it still leads to it.
    id: FileId,
    removed: bool,
}

impl ScratchFile {
    fn remove(&mut self) -> std::io::Result<()> {
        self.removed = true;
        let now = nix::sys::stat::fstatat(
            &self.dir,
            self.name.as_str(),
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        )
        .map_err(std::io::Error::from)?;
        if (now.st_dev, now.st_ino) != (self.id.dev, self.id.ino) {
            return Err(std::io::Error::other(
                "another file has taken its name; that one is left alone",
            ));
        }
        nix::unistd::unlinkat(
            &self.dir,
            self.name.as_str(),
            nix::unistd::UnlinkatFlags::NoRemoveDir,
        )
        .map_err(std::io::Error::from)
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        if !self.removed {
            let _ = self.remove();
        }
    }
}

/// Opens TARGET (default: a scratch file in the current directory) for `spec`.
pub fn open(
    spec: &JobSpec,
    target: Option<&Path>,
    allow_destructive: bool,
) -> anyhow::Result<Target> {
    open_as(spec, target, allow_destructive, None)
}

/// [`open`] for the job named `job`: a file that job created on an earlier run (its mark,
/// [`MARK_XATTR`], names this job, this path and this inode) may be written again without
/// `allow_destructive`, as fio reruns a job over the files it laid out.
pub fn open_as(
    spec: &JobSpec,
    target: Option<&Path>,
    allow_destructive: bool,
    job: Option<&str>,
) -> anyhow::Result<Target> {
    let path = target.unwrap_or_else(|| Path::new("."));
    let pinned = match Pinned::open(path) {
        Ok(pinned) => pinned,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(usage!(
                "target {} does not exist; give an existing directory (a scratch file is made \
                 inside), file or block device",
                path.display()
            ));
        }
        Err(err) => return Err(usage!("cannot use target {}: {err}", path.display())),
    };
    if let (Some(fs), ObjectKind::Directory | ObjectKind::RegularFile) =
        (pinned.pseudo_filesystem(), pinned.kind())
    {
        return Err(usage!(
            "target {} is on {fs}, a kernel interface, not storage; give a directory, file or \
             block device on a disk",
            path.display()
        ));
    }
    if spec.sg.is_some() && !matches!(pinned.kind(), ObjectKind::BlockDevice(_)) {
        return Err(refuse_sg(path, pinned.kind()));
    }
    if spec.zbd.is_some()
        && let ObjectKind::BlockDevice(rdev) = pinned.kind()
        && let Some(model) = crate::bench::zbd::zoned_model(rdev)
    {
        return Err(usage!(
            "target {} is a zoned device ({model}): diskdash emulates zonemode=zbd on regular \
             files and non-zoned devices only and sends no zone commands; use fio for it",
            path.display()
        ));
    }
    let mut target = match pinned.kind() {
        // fio's null engine is diskless: nothing is made, filled or written.
        ObjectKind::Directory | ObjectKind::RegularFile | ObjectKind::BlockDevice(_)
            if spec.ioengine == crate::bench::spec::EngineKind::Null =>
        {
            open_diskless(spec, path, &pinned)?
        }
        ObjectKind::Directory if spec.meta.is_some() => open_meta_dir(spec, path, &pinned)?,
        ObjectKind::Directory => open_scratch(spec, path, &pinned)?,
        ObjectKind::RegularFile => open_file(spec, path, &pinned, allow_destructive, job)?,
        ObjectKind::BlockDevice(rdev) => {
            open_block_device(spec, path, &pinned, rdev, allow_destructive)?
        }
        ObjectKind::Other(what) => {
            return Err(usage!(
                "target {} is {what}; give a directory (a scratch file is made inside), a \
                 regular file or a block device",
                path.display()
            ));
        }
    };
    check_block_size(
        spec,
        "--bs",
        target.dio_align_bytes,
        target.working_set_bytes,
        &target.path,
    )?;
    target.working_set_bytes -= target.working_set_bytes % spec.block_size_bytes;
    let moved_bytes = spec.offset_bytes.saturating_add(
        u64::from(spec.numjobs.saturating_sub(1)).saturating_mul(spec.offset_increment_bytes),
    );
    if moved_bytes > 0 {
        if spec.direct
            && (spec.offset_bytes % u64::from(target.dio_align_bytes) != 0
                || spec.offset_increment_bytes % u64::from(target.dio_align_bytes) != 0)
        {
            return Err(usage!(
                "offset {} or offset_increment {} is not a multiple of the logical block size \
                 {} of {}; use multiples such as 4k, or buffered I/O",
                spec.offset_bytes,
                spec.offset_increment_bytes,
                target.dio_align_bytes,
                target.path.display()
            ));
        }
        let extent = moved_bytes.saturating_add(target.working_set_bytes);
        if let Some(capacity) = target.capacity_bytes
            && extent > capacity
        {
            return Err(usage!(
                "offset {} + size {} runs past the end of {} ({}); lower offset, \
                 offset_increment or size",
                format_bytes(moved_bytes),
                format_bytes(target.working_set_bytes),
                target.path.display(),
                format_bytes(capacity)
            ));
        }
        target.extent_bytes = extent;
    } else {
        target.extent_bytes = target.working_set_bytes;
    }
    // A fill_device job's new file is meant to outgrow its filesystem: ENOSPC ends the job.
    if !spec.fill_device && !passes_enospc(spec) {
        check_room(&[&target])?;
    }
    let in_flight_bytes = spec
        .block_size_bytes
        .saturating_mul(u64::from(spec.effective_iodepth()))
        .saturating_mul(u64::from(spec.numjobs));
    if target.working_set_bytes < in_flight_bytes {
        target.warnings.push(RunWarning::SmallWorkingSet {
            working_set_bytes: target.working_set_bytes,
            in_flight_bytes,
        });
    }
    Ok(target)
}

/// fio's sg engine runs on a block device only (fio's: "only works on block or character
/// devices"); diskdash sends no SCSI commands, so a character device (`/dev/sg*`) is refused
/// too.
fn refuse_sg(path: &Path, kind: ObjectKind) -> anyhow::Error {
    let what = match kind {
        ObjectKind::Directory => "a directory",
        ObjectKind::RegularFile => "a regular file",
        ObjectKind::BlockDevice(_) => "a block device",
        ObjectKind::Other(what) => what,
    };
    if kind == ObjectKind::Other("a character device") {
        return usage!(
            "target {} is a character device: diskdash sends no SCSI commands through \
             /dev/sg*; name the disk's block device (e.g. /dev/sdb) for ioengine=sg",
            path.display()
        );
    }
    usage!(
        "target {} is {what}: fio's sg engine only works on block or character devices; name \
         a block device for ioengine=sg, or use ioengine=psync on a file",
        path.display()
    )
}

/// Creates `path` (which must not exist: `O_CREAT | O_EXCL`, no link followed), then opens it
/// as a target for `spec`, as fio does for a file a job names. The new file is empty, so it
/// is written with data first. `unlink`: removed when the target is dropped or at the end of
/// the run (only while the name still leads to the file created); else left in place.
///
/// The file is marked as made by `job` ([`MARK_XATTR`]), so the same job's next run may
/// write it again.
///
/// # Errors
/// Usage errors: no such directory, something already at `path`, an unwritable place.
pub fn create(spec: &JobSpec, path: &Path, unlink: bool, job: &str) -> anyhow::Result<Target> {
    if spec.sg.is_some() {
        return Err(refuse_sg(path, ObjectKind::RegularFile));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Err(usage!(
            "filename {} is not a file name diskdash can create; give a UTF-8 file name",
            path.display()
        ));
    };
    let pinned_dir = Pinned::open(parent).map_err(|err| {
        usage!(
            "cannot create {}: its directory {}: {err}; create the directory first",
            path.display(),
            parent.display()
        )
    })?;
    if pinned_dir.kind() != ObjectKind::Directory {
        return Err(usage!(
            "cannot create {}: {} is not a directory",
            path.display(),
            parent.display()
        ));
    }
    if let Some(fs) = pinned_dir.pseudo_filesystem() {
        return Err(usage!(
            "cannot create {}: {} is on {fs}, a kernel interface, not storage",
            path.display(),
            parent.display()
        ));
    }
    let dir_fd = pinned_dir.reopen(libc::O_PATH | libc::O_DIRECTORY)?;
    let flags = libc::O_RDWR | libc::O_CLOEXEC | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    let created = match pinned::open_at(dir_fd.as_raw_fd(), name.as_bytes(), flags, 0o644) {
        Ok(file) => file,
        Err(err) if err.raw_os_error() == Some(libc::EEXIST) => {
            return Err(usage!(
                "cannot create {}: {} is in the way; remove it or name another file",
                path.display(),
                what_is_at(&dir_fd, name)
            ));
        }
        Err(err) => {
            return Err(usage!(
                "cannot create {}: {err}; choose a writable directory",
                path.display()
            ));
        }
    };
    let id = pinned::file_id(&created)?;
    let guard = ScratchFile {
        dir: dir_fd,
        name: name.to_string(),
        id,
        removed: false,
    };
    drop(created);
    // The file is new and empty: the rules of an existing file let it be written (filled).
    let mut target = open(spec, Some(path), false)?;
    if target.id != id {
        return Err(usage!(
            "{} was replaced while being created; run again",
            path.display()
        ));
    }
    target.created = true;
    target.marked = !unlink;
    if !unlink && let Err(err) = mark(&target.file) {
        target.marked = false;
        target.notes.push(format!(
            "could not mark {} as made by job {job} ({err}); a rerun over it needs \
             --allow-destructive",
            path.display()
        ));
    }
    // A new file is filled only to be read. A pure write job's file is laid out as fio lays
    // it out (filesetup.c, `overwrite=0`): by its `fallocate`, not written, once the room
    // check of all the run's targets has passed ([`Target::lay_out`]).
    if !spec.reads() {
        target.needs_fill = false;
        // fill_device: the file is sized to the free space and grows as the job writes it
        // until the filesystem is full; its room is the whole filesystem, not checked.
        if spec.fill_device {
            target.layout = Some(Fallocate::None);
            target.grown_from_bytes = None;
            target.notes.push(format!(
                "{} grows as the job writes it until the filesystem is full (fill_device=1)",
                path.display()
            ));
        } else {
            target.layout = Some(spec.fallocate);
        }
        // A job that goes on past ENOSPC (continue_on_error, ignore_error) is meant to run
        // into a full filesystem: its room is not checked, and what it wrote stays.
        if passes_enospc(spec) && !spec.fill_device {
            target.grown_from_bytes = None;
            target.notes.push(format!(
                "{} may fill its filesystem: the job counts ENOSPC and goes on (continue_on_error)",
                path.display()
            ));
        }
        if spec.fallocate == Fallocate::None && !spec.fill_device {
            target.notes.push(format!(
                "{} is not laid out (fallocate=none): it grows as the job writes it",
                path.display()
            ));
        }
    }
    target.notes.push(if unlink {
        format!(
            "created {}; it is removed at the end (unlink=1)",
            path.display()
        )
    } else {
        format!(
            "created {}; it is left in place (unlink=1 removes it)",
            path.display()
        )
    });
    if unlink {
        target.scratch = Some(guard);
    } else {
        target.created_file = Some(guard);
    }
    Ok(target)
}

/// Lays out `[0, bytes)` of `file` by fio's `fallocate` mode (filesetup.c): `native`
/// allocates (skipped where the filesystem has no fallocate), `posix` allocates through
/// `posix_fallocate`, both then set the length to `bytes`; `keep` allocates and keeps the
/// length; `truncate` only sets the length; `none` does nothing.
fn extend(file: &OwnedFd, bytes: u64, mode: Fallocate) -> std::io::Result<()> {
    let fd = file.as_raw_fd();
    let len =
        libc::off_t::try_from(bytes).map_err(|_| std::io::Error::from_raw_os_error(libc::EFBIG))?;
    let allocate = |flags: libc::c_int| -> std::io::Result<()> {
        // SAFETY: fallocate on an open descriptor; no memory is involved.
        if unsafe { libc::fallocate(fd, flags, 0, len) } < 0 {
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::EOPNOTSUPP) {
                return Err(err);
            }
        }
        Ok(())
    };
    match mode {
        Fallocate::None => return Ok(()),
        Fallocate::Native => allocate(0)?,
        Fallocate::Keep => return allocate(libc::FALLOC_FL_KEEP_SIZE),
        Fallocate::Posix => {
            // SAFETY: posix_fallocate on an open descriptor; no memory is involved.
            let errno = unsafe { libc::posix_fallocate(fd, 0, len) };
            if errno != 0 {
                return Err(std::io::Error::from_raw_os_error(errno));
            }
        }
        Fallocate::Truncate => {}
    }
    // SAFETY: ftruncate on an open descriptor; no memory is involved.
    if unsafe { libc::ftruncate(fd, len) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The extended attribute that marks a file a `diskdash fio` job created. It is bound to the
/// file as diskdash last left it, not to a name or a job: its device, inode and generation (a
/// restored copy, a file the inode number was reused for, or another file the value was copied
/// onto differ), and its size and modification time at diskdash's last write (a file anything
/// else changed since differs). A mark that does not match grants nothing; see
/// assets/doc/safety.md for the threat model.
pub const MARK_XATTR: &str = "user.diskdash";

/// `FS_IOC_GETVERSION` (linux/fs.h, `_IOR('v', 1, long)`): the inode's generation, where the
/// filesystem keeps one (ext4, xfs, btrfs); it changes when an inode number is reused.
const FS_IOC_GETVERSION: libc::c_ulong = 0x8008_7601;

/// The inode's generation; `None` where the filesystem has none (tmpfs, overlayfs).
fn generation(file: &OwnedFd) -> Option<u64> {
    let mut generation: libc::c_long = 0;
    // SAFETY: FS_IOC_GETVERSION writes one long through the pointer, which points to a live
    // c_long; the descriptor is open.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), FS_IOC_GETVERSION, &raw mut generation) };
    (rc == 0).then(|| generation.unsigned_abs())
}

/// The mark of the file open as `file`, as the file is now.
fn mark_value(file: &OwnedFd) -> std::io::Result<Vec<u8>> {
    let st = pinned::fstat(file)?;
    let generation = generation(file).map_or_else(|| "none".to_string(), |g| g.to_string());
    Ok(format!(
        "diskdash-2 dev={} ino={} gen={generation} size={} mtime={}.{:09}",
        st.st_dev, st.st_ino, st.st_size, st.st_mtime, st.st_mtime_nsec
    )
    .into_bytes())
}

/// Marks `file` as diskdash left it (see [`MARK_XATTR`]).
fn mark(file: &OwnedFd) -> std::io::Result<()> {
    let value = mark_value(file)?;
    let name = std::ffi::CString::new(MARK_XATTR).expect("no NUL");
    // SAFETY: the name is NUL-terminated, the value's pointer and length describe one slice,
    // and the descriptor is open.
    let rc = unsafe {
        libc::fsetxattr(
            file.as_raw_fd(),
            name.as_ptr(),
            value.as_ptr().cast(),
            value.len(),
            0,
        )
    };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Whether `file` carries diskdash's mark for this file as diskdash left it: a file copied or
/// moved in with another's mark, replaced under its name, restored from a backup, or changed
/// by anything since, does not.
fn marked(file: &OwnedFd) -> bool {
    let Ok(want) = mark_value(file) else {
        return false;
    };
    let name = std::ffi::CString::new(MARK_XATTR).expect("no NUL");
    let mut have = [0u8; 256];
    // SAFETY: the name is NUL-terminated, the buffer is writable for its length, and the
    // descriptor is open.
    let rc = unsafe {
        libc::fgetxattr(
            file.as_raw_fd(),
            name.as_ptr(),
            have.as_mut_ptr().cast(),
            have.len(),
        )
    };
    usize::try_from(rc).is_ok_and(|len| have[..len] == want[..])
}

/// The block-size rules that need the target, for a new job (`name` `--bs`) and for a change
/// made in the dashboard (`bs`): a multiple of the logical block size under O_DIRECT, and no
/// larger than the working set.
///
/// # Errors
/// A usage error naming the block size and the fix.
pub fn check_block_size(
    spec: &JobSpec,
    name: &str,
    dio_align_bytes: u32,
    working_set_bytes: u64,
    path: &Path,
) -> anyhow::Result<()> {
    let unaligned = spec
        .bssplit
        .as_ref()
        .map_or_else(
            || vec![spec.block_size_bytes],
            |split| split.sizes().collect(),
        )
        .into_iter()
        .find(|bytes| bytes % u64::from(dio_align_bytes) != 0);
    if let (true, Some(bytes)) = (spec.direct, unaligned) {
        return Err(usage!(
            "{name} {} is not a multiple of the logical block size {dio_align_bytes} of {}; use a \
             multiple such as 4k, or buffered I/O (bench --buffered, sweep --direct no, fio \
             direct=0)",
            format_size_short(bytes),
            path.display()
        ));
    }
    if working_set_bytes < spec.block_size_bytes {
        return Err(usage!(
            "{name} {} is larger than the working set of {} ({}); lower {name}",
            format_size_short(spec.block_size_bytes),
            path.display(),
            format_bytes(working_set_bytes)
        ));
    }
    Ok(())
}

fn open_flags(spec: &JobSpec, write: bool) -> libc::c_int {
    let mut flags = libc::O_CLOEXEC | if write { libc::O_RDWR } else { libc::O_RDONLY };
    if spec.direct {
        flags |= libc::O_DIRECT;
    }
    match spec.open_sync {
        Some(OpenSync::Dsync) => flags |= libc::O_DSYNC,
        Some(OpenSync::Sync) => flags |= libc::O_SYNC,
        None => {}
    }
    flags
}

fn direct_unsupported(path: &Path) -> anyhow::Error {
    usage!(
        "O_DIRECT is not supported by the filesystem of {} ({}); use --buffered",
        path.display(),
        fs_type_name(path)
    )
}

/// The filesystem type of `path`, from /proc/self/mountinfo (longest matching mount point).
fn fs_type_name(path: &Path) -> String {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let mut best: Option<(usize, String)> = None;
    for line in mountinfo.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let Some(dash) = fields.iter().position(|f| *f == "-") else {
            continue;
        };
        let (Some(mount_point), Some(fstype)) = (fields.get(4), fields.get(dash + 1)) else {
            continue;
        };
        let mount_point = mount_point.replace("\\040", " ");
        if path.starts_with(&mount_point)
            && best
                .as_ref()
                .is_none_or(|(len, _)| mount_point.len() >= *len)
        {
            best = Some((mount_point.len(), (*fstype).to_string()));
        }
    }
    best.map_or_else(|| "unknown filesystem".to_string(), |(_, name)| name)
}

/// O_DIRECT alignment of an open file from statx(STATX_DIOALIGN) (Linux 6.1); `None` when
/// the filesystem does not report it, `Some(0)` when it does not support O_DIRECT.
fn statx_dio_align(file: &OwnedFd) -> Option<u32> {
    // SAFETY: statx is plain data; zeroed is a valid value.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: the fd is open, the empty path with AT_EMPTY_PATH refers to it, stx is writable.
    let rc = unsafe {
        libc::statx(
            std::os::fd::AsRawFd::as_raw_fd(file),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_DIOALIGN,
            &raw mut stx,
        )
    };
    (rc == 0 && stx.stx_mask & libc::STATX_DIOALIGN != 0).then_some(stx.stx_dio_offset_align)
}

fn file_alignment(spec: &JobSpec, path: &Path, file: &OwnedFd) -> anyhow::Result<u32> {
    match statx_dio_align(file) {
        Some(0) if spec.direct => Err(direct_unsupported(path)),
        Some(0) | None => Ok(512),
        Some(align) => Ok(align),
    }
}

static SCRATCH_COUNTER: AtomicU32 = AtomicU32::new(0);

fn open_scratch(spec: &JobSpec, dir: &Path, pinned: &Pinned) -> anyhow::Result<Target> {
    let stat = nix::sys::statvfs::fstatvfs(pinned.fd())
        .with_context(|| format!("checking free space in {}", dir.display()))?;
    let free_bytes = stat.blocks_available() * stat.fragment_size();
    let mut notes = Vec::new();
    let mut size = spec.size_bytes;
    // A filesystem that reports no blocks at all (ramfs) does not account space: skip.
    let accounts_space = stat.blocks() > 0;
    if !accounts_space {
        // Nothing to check.
    } else if spec.size_explicit {
        if size > free_bytes {
            return Err(usage!(
                "no room for the scratch file in {}: --size {} but only {} free; lower --size or \
                 choose another directory",
                dir.display(),
                format_size_short(size),
                format_bytes(free_bytes)
            ));
        }
    } else {
        // Leave a twentieth of the free space (and the reserved blocks) to everyone else.
        let usable = free_bytes - free_bytes / 20;
        if size > usable {
            size = usable - usable % spec.block_size_bytes.max(1 << 20);
            if size < MIN_SCRATCH_BYTES.max(spec.block_size_bytes) {
                return Err(usage!(
                    "no room for the scratch file in {}: only {} free; free some space, choose \
                     another directory or pass a smaller --size",
                    dir.display(),
                    format_bytes(free_bytes)
                ));
            }
            notes.push(format!(
                "working set lowered from {} to {}: only {} free in {}",
                format_bytes(spec.size_bytes),
                format_bytes(size),
                format_bytes(free_bytes),
                dir.display()
            ));
        }
    }
    let dir = &std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let name = format!(
        ".diskdash-scratch-{}-{}",
        std::process::id(),
        SCRATCH_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let path = dir.join(&name);
    // Relative to the pinned directory, never following a link planted at the name.
    let dir_fd = pinned.reopen(libc::O_PATH | libc::O_DIRECTORY)?;
    let flags = open_flags(spec, true) | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    let file = match pinned::open_at(dir_fd.as_raw_fd(), name.as_bytes(), flags, 0o600) {
        Ok(file) => file,
        Err(err) if err.raw_os_error() == Some(libc::EEXIST) => {
            return Err(usage!(
                "cannot create the scratch file {}: {} is in the way; remove it, or choose \
                 another directory",
                path.display(),
                what_is_at(&dir_fd, &name)
            ));
        }
        Err(err) if err.raw_os_error() == Some(libc::EINVAL) && spec.direct => {
            return Err(direct_unsupported(dir));
        }
        Err(err) => {
            return Err(usage!(
                "cannot create a scratch file in {}: {err}; choose a writable directory",
                dir.display()
            ));
        }
    };
    let scratch = ScratchFile {
        dir: dir_fd,
        name,
        id: pinned::file_id(&file)?,
        removed: false,
    };
    let dio_align_bytes = file_alignment(spec, dir, &file)?;
    Ok(Target {
        path,
        kind: TargetKind::Scratch,
        id: pinned::file_id(&file)?,
        device_number: pinned::file_id(&file)?.dev,
        file: Arc::new(file),
        writable: true,
        working_set_bytes: size,
        dio_align_bytes,
        needs_fill: true,
        extent_bytes: size,
        capacity_bytes: None,
        created: true,
        notes,
        warnings: Vec::new(),
        scratch: Some(scratch),
        grown_from_bytes: Some(0),
        created_file: None,
        layout: None,
        _held: Vec::new(),
        marked: false,
        marked_if_filled: false,
    })
}

/// The directory of a metadata engine's job (fio's `filecreate`, `filestat`, `filedelete`):
/// its files are created, stat'ed or removed in it by name (`MetaFiles`), relative to this
/// descriptor, one file per I/O; the working set is one block (`filesize`) per file.
fn open_meta_dir(spec: &JobSpec, dir: &Path, pinned: &Pinned) -> anyhow::Result<Target> {
    let file = pinned
        .reopen(libc::O_RDONLY | libc::O_DIRECTORY)
        .map_err(|err| usage!("cannot open the directory {}: {err}", dir.display()))?;
    read_only_target(spec, dir, file)
}

/// A null-engine job's target that does not exist (fio's `filename` of a diskless job, or its
/// default `jobname.0.0`): nothing is created; the directory it would be in is opened to stand
/// for it, and the target keeps the name the job gave.
pub fn open_missing_diskless(spec: &JobSpec, path: &Path) -> anyhow::Result<Target> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let pinned = Pinned::open(dir).map_err(|err| {
        usage!(
            "cannot use the directory of {} ({}): {err}",
            path.display(),
            dir.display()
        )
    })?;
    let mut target = open_diskless(spec, dir, &pinned)?;
    target.path = path.to_path_buf();
    Ok(target)
}

/// The target of a null-engine job (fio's diskless I/O): its I/Os reach no file, so the target
/// is only opened read-only, to name it; no scratch file is made and nothing is filled. The
/// working set is the job's size.
fn open_diskless(spec: &JobSpec, path: &Path, pinned: &Pinned) -> anyhow::Result<Target> {
    let file = pinned
        .reopen(libc::O_RDONLY)
        .map_err(|err| usage!("cannot open {}: {err}", path.display()))?;
    read_only_target(spec, path, file)
}

/// A target opened only to name it (a metadata engine's directory, a null-engine job's
/// target): never written or filled, its working set the job's size.
fn read_only_target(spec: &JobSpec, path: &Path, file: OwnedFd) -> anyhow::Result<Target> {
    let id = pinned::file_id(&file)?;
    Ok(Target {
        path: path.to_path_buf(),
        kind: TargetKind::File,
        id,
        device_number: id.dev,
        file: Arc::new(file),
        writable: false,
        working_set_bytes: spec.size_bytes,
        dio_align_bytes: 1,
        needs_fill: false,
        extent_bytes: spec.size_bytes,
        capacity_bytes: Some(spec.size_bytes),
        created: false,
        notes: Vec::new(),
        warnings: Vec::new(),
        scratch: None,
        grown_from_bytes: None,
        created_file: None,
        layout: None,
        _held: Vec::new(),
        marked: false,
        marked_if_filled: false,
    })
}

/// What occupies `name` in `dir`, in words, without following it.
fn what_is_at(dir: &OwnedFd, name: &str) -> String {
    match nix::sys::stat::fstatat(dir, name, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(stat) => match stat.st_mode & libc::S_IFMT {
            libc::S_IFLNK => {
                let to = nix::fcntl::readlinkat(dir, name)
                    .map(|t| t.to_string_lossy().into_owned())
                    .unwrap_or_default();
                format!("a symbolic link (to {to})")
            }
            libc::S_IFREG => format!(
                "a regular file of {}",
                format_bytes(u64::try_from(stat.st_size).unwrap_or(0))
            ),
            libc::S_IFDIR => "a directory".to_string(),
            _ => "a special file".to_string(),
        },
        Err(err) => format!("something ({err})"),
    }
}

fn open_file(
    spec: &JobSpec,
    path: &Path,
    pinned: &Pinned,
    allow_destructive: bool,
    job: Option<&str>,
) -> anyhow::Result<Target> {
    let len = pinned.size_bytes();
    // A file a fio job made on an earlier run, unchanged since, is diskdash's own to write
    // again (any job's: KDiskMark lays its file out in a job named `prepare`); only a file the
    // caller owns, so another user's mark grants nothing.
    let own = job.is_some() && {
        len > 0
            && pinned::fstat(pinned.fd()).is_ok_and(|st| {
                // SAFETY: geteuid cannot fail and touches no memory.
                st.st_uid == unsafe { libc::geteuid() }
            })
            && pinned
                .reopen(libc::O_RDONLY)
                .is_ok_and(|probe| marked(&probe))
    };
    let mut notes = Vec::new();
    // The environment's consent stands for --allow-destructive on a regular file that holds
    // data (never on a block device), and says so in the run's notes.
    let by_env = !allow_destructive && !own && len > 0 && spec.writes() && env_consent()?;
    if by_env {
        notes.push(format!(
            "{ALLOW_DESTRUCTIVE_ENV}=1 (from the environment) allowed writing over {} ({} of \
             data), as --allow-destructive would",
            path.display(),
            format_bytes(len)
        ));
    }
    let allow_destructive = allow_destructive || own || by_env;
    if spec.writes() && len > 0 && !allow_destructive {
        return Err(usage!(
            "refusing to write to {}: it holds {} of data; pass --allow-destructive to overwrite it",
            path.display(),
            format_bytes(len)
        ));
    }
    let mut warnings = Vec::new();
    let empty = len == 0;
    let mut size = spec.size_bytes;
    if !empty && size > len {
        notes.push(format!(
            "working set lowered from {} to the size of {} ({})",
            format_bytes(size),
            path.display(),
            format_bytes(len)
        ));
        size = len;
    }
    // Holes are looked for on a read-only descriptor of the pinned file, before deciding to
    // open it for writing.
    let holes = !empty && spec.reads() && {
        let probe = pinned
            .reopen(libc::O_RDONLY)
            .map_err(|err| usage!("cannot open {}: {err}", path.display()))?;
        first_hole(&probe) < size
    };
    let needs_fill = empty || (holes && allow_destructive);
    if holes && allow_destructive {
        notes.push(format!(
            "{} has holes in the working set; writing data over it first",
            path.display()
        ));
    } else if holes {
        warnings.push(RunWarning::Holes {
            path: path.display().to_string(),
        });
    }
    // A read job opens data read-only; it writes only to fill an empty file, or holes it was
    // allowed to fill.
    // fio's falloc engine allocates even for its reads (fallocate KEEP_SIZE, which changes
    // no data but needs a descriptor open for writing), so its file is opened for writing.
    let writable =
        spec.writes() || needs_fill || spec.ioengine == crate::bench::spec::EngineKind::Falloc;
    if writable
        && let Some(reason) =
            blockdev::in_use_reason(&SysfsStack::read(), Bottom::File(pinned.id()), None)
    {
        return Err(usage!(
            "refusing to write to {}: {reason}; unmount or release it first",
            path.display()
        ));
    }
    let file = match pinned.reopen(open_flags(spec, writable)) {
        Ok(file) => file,
        Err(err) if err.raw_os_error() == Some(libc::EINVAL) && spec.direct => {
            return Err(direct_unsupported(path));
        }
        Err(err) => return Err(usage!("cannot open {}: {err}", path.display())),
    };
    // The size may have changed since pinning: an "empty" file that now holds data is data.
    let now_len = u64::try_from(pinned::fstat(&file)?.st_size).unwrap_or(0);
    if writable && now_len > len && !allow_destructive {
        return Err(usage!(
            "refusing to write to {}: it grew to {} while being opened; pass \
             --allow-destructive to overwrite it",
            path.display(),
            format_bytes(now_len)
        ));
    }
    let dio_align_bytes = file_alignment(spec, path, &file)?;
    Ok(Target {
        path: path.to_path_buf(),
        kind: TargetKind::File,
        id: pinned.id(),
        device_number: pinned.id().dev,
        file: Arc::new(file),
        writable,
        working_set_bytes: size,
        dio_align_bytes,
        needs_fill,
        extent_bytes: size,
        capacity_bytes: (!empty).then_some(len),
        created: false,
        notes,
        warnings,
        scratch: None,
        grown_from_bytes: needs_fill.then_some(len),
        created_file: None,
        layout: None,
        _held: Vec::new(),
        // A file this run writes stays diskdash's to write again: one it found marked, and
        // one it found empty and fills or writes (a wrapper's `touch`ed file, KDiskMark's
        // temporary file), the mark stamped when the target closes.
        marked: job.is_some() && own,
        marked_if_filled: job.is_some() && empty && writable,
    })
}

/// The environment variable that stands for `--allow-destructive` on existing regular files
/// (a wrapper that runs `fio` cannot add diskdash's flag); never on block devices.
pub const ALLOW_DESTRUCTIVE_ENV: &str = "DISKDASH_ALLOW_DESTRUCTIVE";

/// Whether [`ALLOW_DESTRUCTIVE_ENV`] is `1`.
///
/// # Errors
/// A usage error for a value other than `1`, `0` or empty.
fn env_consent() -> anyhow::Result<bool> {
    match std::env::var_os(ALLOW_DESTRUCTIVE_ENV) {
        None => Ok(false),
        Some(value) if value == "1" => Ok(true),
        Some(value) if value.is_empty() || value == "0" => Ok(false),
        Some(value) => Err(usage!(
            "{ALLOW_DESTRUCTIVE_ENV}={} (from the environment) is not 1 or 0; set it to 1 to \
             allow writing over existing files, or unset it",
            crate::text::escape(&value.to_string_lossy())
        )),
    }
}

/// Holds every device in `below` (see [`blockdev::hold_exclusively`]) for the run; a device
/// something claimed since the check (a mount in another namespace, a holder) refuses the run,
/// naming who holds it where the mount tables say.
fn hold_below(path: &Path, below: &[blockdev::Lower]) -> anyhow::Result<Vec<OwnedFd>> {
    let mut held = Vec::with_capacity(below.len());
    for lower in below {
        match blockdev::hold_exclusively(lower) {
            Ok(fd) => held.push(fd),
            Err(err) if err.raw_os_error() == Some(libc::EBUSY) => {
                let stack = SysfsStack::read();
                let who = blockdev::in_use_reason(&stack, lower.bottom, lower.name.as_deref())
                    .unwrap_or_else(|| {
                        "it is held exclusively (a mount, a holder or swap)".to_string()
                    });
                return Err(usage!(
                    "refusing to write to {}: it is backed by {}, {}; unmount or release it \
                     first",
                    path.display(),
                    lower.shown,
                    blockdev::relative(&who)
                ));
            }
            Err(err) => {
                return Err(usage!(
                    "refusing to write to {}: it is backed by {}, which cannot be held against \
                     mounts while the run writes ({err}); detach the loop device or write to {} \
                     itself",
                    path.display(),
                    lower.shown,
                    lower.shown
                ));
            }
        }
    }
    Ok(held)
}

/// Offset of the first hole (SEEK_HOLE); the file size when there is none.
fn first_hole(file: &OwnedFd) -> u64 {
    // SAFETY: lseek has no memory-safety preconditions.
    let hole = unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_HOLE) };
    u64::try_from(hole).unwrap_or(u64::MAX)
}

fn open_block_device(
    spec: &JobSpec,
    path: &Path,
    pinned: &Pinned,
    rdev: u64,
    allow_destructive: bool,
) -> anyhow::Result<Target> {
    if spec.ioengine == crate::bench::spec::EngineKind::Falloc {
        return Err(usage!(
            "ioengine=falloc on block device {}: fallocate allocates a file's blocks, and a \
             device has no blocks to allocate; use it on a file, or another ioengine",
            path.display()
        ));
    }
    let mut flags = open_flags(spec, spec.writes());
    let mut below = Vec::new();
    if spec.writes() {
        if !allow_destructive {
            return Err(usage!(
                "refusing to write to block device {}: its data would be overwritten; pass \
                 --allow-destructive if that is what you want",
                path.display()
            ));
        }
        let stack = SysfsStack::read();
        let name = blockdev::device_and_partitions(rdev)
            .into_iter()
            .next()
            .map(|(_, name)| name);
        if let Some(reason) = blockdev::in_use_reason(&stack, Bottom::Device(rdev), name.as_deref())
        {
            return Err(usage!(
                "refusing to write to {}: {reason}; unmount or release it first",
                path.display()
            ));
        }
        if let Some(name) = &name {
            below = blockdev::unclaimed_lowers(&stack, name);
        }
        flags |= libc::O_EXCL;
    }
    let file = match pinned.reopen(flags) {
        Ok(file) => file,
        Err(err) if err.raw_os_error() == Some(libc::EBUSY) => {
            return Err(usage!(
                "refusing to write to {}: it is in use (another program has it open \
                 exclusively); release it first",
                path.display()
            ));
        }
        Err(err) if err.raw_os_error() == Some(libc::EINVAL) && spec.direct => {
            return Err(direct_unsupported(path));
        }
        Err(err) => return Err(usage!("cannot open {}: {err}", path.display())),
    };
    let held = hold_below(path, &below)?;
    let dio_align_bytes = blockdev::logical_block_bytes(file.as_fd()).unwrap_or(512);
    let device_bytes = blockdev::size_bytes(file.as_fd())
        .with_context(|| format!("reading the size of {}", path.display()))?;
    if device_bytes == 0 {
        return Err(usage!(
            "{} has no capacity (0 bytes): a loop device with nothing attached, or a drive \
             without a medium; attach or insert something, or choose another device",
            path.display()
        ));
    }
    let mut notes = Vec::new();
    let mut size = spec.size_bytes;
    if !spec.size_explicit {
        // fio's default for a device: all of it.
        size = device_bytes;
        notes.push(format!(
            "working set: the whole of {} ({}); --size to use less",
            path.display(),
            format_bytes(device_bytes)
        ));
    } else if size > device_bytes {
        notes.push(format!(
            "working set lowered from {} to the size of {} ({})",
            format_bytes(size),
            path.display(),
            format_bytes(device_bytes)
        ));
        size = device_bytes;
    }
    Ok(Target {
        path: path.to_path_buf(),
        kind: TargetKind::BlockDevice,
        id: pinned.id(),
        device_number: rdev,
        file: Arc::new(file),
        writable: spec.writes(),
        working_set_bytes: size,
        dio_align_bytes,
        needs_fill: false,
        extent_bytes: size,
        capacity_bytes: Some(device_bytes),
        created: false,
        notes,
        warnings: Vec::new(),
        scratch: None,
        grown_from_bytes: None,
        created_file: None,
        layout: None,
        _held: held,
        marked: false,
        marked_if_filled: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_job() -> JobSpec {
        JobSpec {
            size_bytes: 1 << 20,
            size_explicit: true,
            direct: false,
            ..JobSpec::default()
        }
    }

    fn xattr(path: &Path) -> Vec<u8> {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        let name = std::ffi::CString::new(MARK_XATTR).unwrap();
        let mut buf = [0u8; 256];
        // SAFETY: both strings are NUL-terminated and the buffer is writable for its length.
        let n = unsafe {
            libc::getxattr(
                c.as_ptr(),
                name.as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        };
        buf[..usize::try_from(n).unwrap()].to_vec()
    }

    fn set_xattr(path: &Path, value: &[u8]) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        let name = std::ffi::CString::new(MARK_XATTR).unwrap();
        // SAFETY: both strings are NUL-terminated; the value's pointer and length are one slice.
        let rc = unsafe {
            libc::setxattr(
                c.as_ptr(),
                name.as_ptr(),
                value.as_ptr().cast(),
                value.len(),
                0,
            )
        };
        assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    }

    fn fd(path: &Path) -> OwnedFd {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .unwrap()
            .into()
    }

    #[test]
    fn a_mark_holds_only_for_the_file_as_diskdash_left_it() {
        // The current directory's filesystem: tmpfs (a test's /tmp) may take no user xattrs.
        let dir = tempfile::tempdir_in(".").unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, vec![1u8; 8192]).unwrap();
        mark(&fd(&file)).expect("user xattrs on the checkout's filesystem (ext4)");
        assert!(marked(&fd(&file)));
        let value = xattr(&file);
        // The same value copied onto another file (a copy, a restore, someone's data).
        let copy = dir.path().join("copy");
        std::fs::copy(&file, &copy).unwrap();
        set_xattr(&copy, &value);
        assert!(!marked(&fd(&copy)), "a mark copied onto another file");
        // The marked file changed by anything else since.
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"theirs"))
            .unwrap();
        assert!(!marked(&fd(&file)), "a file changed since");
        // Written again by diskdash, stamped again: its own once more.
        mark(&fd(&file)).unwrap();
        assert!(marked(&fd(&file)));
        // The old format's value (a recomputable hash of the name and path) grants nothing.
        set_xattr(&file, b"diskdash-1 ino=1 job=0000000000000000");
        assert!(!marked(&fd(&file)));
    }

    #[test]
    fn a_scratch_name_taken_over_by_another_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let mut target = open(&small_job(), Some(dir.path()), false).unwrap();
        let moved = dir.path().join("moved");
        std::fs::rename(&target.path, &moved).unwrap();
        std::fs::write(&target.path, b"someone else's").unwrap();
        let err = target.remove_scratch().unwrap().unwrap_err();
        assert!(
            err.to_string().contains("another file has taken its name"),
            "{err}"
        );
        assert_eq!(std::fs::read(&target.path).unwrap(), b"someone else's");
    }

    #[test]
    fn a_scratch_file_is_removed_by_its_directory_not_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let mut target = open(&small_job(), Some(dir.path()), false).unwrap();
        assert!(target.is_scratch());
        assert!(target.path.exists());
        assert!(target.remove_scratch().unwrap().is_ok());
        assert!(!target.path.exists());
        assert!(target.remove_scratch().is_none());
    }
}
