//! The target: resolve TARGET (directory -> scratch file, existing file, block device), apply
//! the safety rules, open it with the job's flags, size the working set, and check what needs
//! the target (logical block size, O_DIRECT support, free space).
//!
//! Safety: a scratch file is created with O_EXCL|O_NOFOLLOW and removed on drop; writing to a
//! file holding data or to a block device needs `--allow-destructive`; writing to a device that
//! is mounted or held (itself or a partition) is refused even then, and the device is opened
//! with O_EXCL so the kernel refuses too when someone else has it.

use std::ffi::CString;
use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::Context;

use crate::bench::blockdev;
use crate::bench::spec::{JobSpec, OpenSync};
use crate::bench::units::{format_bytes, format_size_short};
use crate::usage;

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
    /// Bytes the workers address (a multiple of the block size).
    pub working_set_bytes: u64,
    /// O_DIRECT offset/length alignment (the logical block size), bytes.
    pub dio_align_bytes: u32,
    /// The working set must be written before it is read (new or sparse).
    pub needs_fill: bool,
    /// What was adjusted, for the output and the record.
    pub notes: Vec<String>,
    /// Warnings (e.g. holes that stay unfilled).
    pub warnings: Vec<String>,
    scratch: Option<ScratchFile>,
}

impl Target {
    /// Whether a scratch file was made (and will be removed).
    #[must_use]
    pub fn is_scratch(&self) -> bool {
        self.scratch.is_some()
    }

    /// Removes the scratch file now (also done on drop). Returns whether one was removed.
    pub fn remove_scratch(&mut self) -> bool {
        self.scratch.take().is_some()
    }
}

/// Removes the scratch file when dropped, on every exit path.
#[derive(Debug)]
struct ScratchFile(PathBuf);

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Opens TARGET (default: a scratch file in the current directory) for `spec`.
pub fn open(
    spec: &JobSpec,
    target: Option<&Path>,
    allow_destructive: bool,
) -> anyhow::Result<Target> {
    let path = target.unwrap_or_else(|| Path::new("."));
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(usage!(
                "target {} does not exist; give an existing directory (a scratch file is made \
                 inside), file or block device",
                path.display()
            ));
        }
        Err(err) => return Err(usage!("cannot use target {}: {err}", path.display())),
    };
    let mut target = if meta.is_dir() {
        open_scratch(spec, path)?
    } else if meta.is_file() {
        open_file(spec, path, &meta, allow_destructive)?
    } else if meta.file_type().is_block_device() {
        open_block_device(spec, path, &meta, allow_destructive)?
    } else {
        return Err(usage!(
            "target {} is not a directory, regular file or block device",
            path.display()
        ));
    };
    if spec.direct && spec.block_size_bytes % u64::from(target.dio_align_bytes) != 0 {
        return Err(usage!(
            "--bs {} is not a multiple of the logical block size {} of {}; use a multiple such \
             as 4k, or --buffered",
            format_size_short(spec.block_size_bytes),
            target.dio_align_bytes,
            target.path.display()
        ));
    }
    if target.working_set_bytes < spec.block_size_bytes {
        return Err(usage!(
            "--bs {} is larger than the working set of {} ({}); lower --bs",
            format_size_short(spec.block_size_bytes),
            target.path.display(),
            format_bytes(target.working_set_bytes)
        ));
    }
    target.working_set_bytes -= target.working_set_bytes % spec.block_size_bytes;
    Ok(target)
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

fn open_raw(path: &Path, flags: libc::c_int, mode: libc::mode_t) -> std::io::Result<OwnedFd> {
    let c_path = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: c_path is a valid NUL-terminated string; open has no other preconditions.
    let fd = unsafe { libc::open(c_path.as_ptr(), flags, libc::c_uint::from(mode)) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd was just returned by open and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
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

fn open_scratch(spec: &JobSpec, dir: &Path) -> anyhow::Result<Target> {
    let stat = nix::sys::statvfs::statvfs(dir)
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
    let path = dir.join(name);
    let flags = open_flags(spec, true) | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    let file = match open_raw(&path, flags, 0o600) {
        Ok(file) => file,
        Err(err) if err.raw_os_error() == Some(libc::EINVAL) && spec.direct => {
            let _ = std::fs::remove_file(&path);
            return Err(direct_unsupported(dir));
        }
        Err(err) => {
            return Err(usage!(
                "cannot create a scratch file in {}: {err}; choose a writable directory",
                dir.display()
            ));
        }
    };
    let scratch = ScratchFile(path.clone());
    let dio_align_bytes = file_alignment(spec, dir, &file)?;
    Ok(Target {
        path,
        kind: TargetKind::Scratch,
        file: Arc::new(file),
        working_set_bytes: size,
        dio_align_bytes,
        needs_fill: true,
        notes,
        warnings: Vec::new(),
        scratch: Some(scratch),
    })
}

fn open_file(
    spec: &JobSpec,
    path: &Path,
    meta: &std::fs::Metadata,
    allow_destructive: bool,
) -> anyhow::Result<Target> {
    let len = meta.len();
    if spec.writes() && len > 0 && !allow_destructive {
        return Err(usage!(
            "refusing to write to {}: it holds {} of data; pass --allow-destructive to overwrite it",
            path.display(),
            format_bytes(len)
        ));
    }
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let empty = len == 0;
    let open_for_write = spec.writes() || empty || allow_destructive;
    let file = match open_raw(path, open_flags(spec, open_for_write), 0) {
        Ok(file) => file,
        Err(err) if err.raw_os_error() == Some(libc::EINVAL) && spec.direct => {
            return Err(direct_unsupported(path));
        }
        Err(err) => return Err(usage!("cannot open {}: {err}", path.display())),
    };
    let dio_align_bytes = file_alignment(spec, path, &file)?;
    let mut size = spec.size_bytes;
    let mut needs_fill = empty;
    if !empty && size > len {
        notes.push(format!(
            "working set lowered from {} to the size of {} ({})",
            format_bytes(size),
            path.display(),
            format_bytes(len)
        ));
        size = len;
    }
    if !empty && spec.reads() && first_hole(&file) < size {
        if allow_destructive {
            needs_fill = true;
            notes.push(format!(
                "{} has holes in the working set; writing data over it first",
                path.display()
            ));
        } else {
            warnings.push(format!(
                "{} has holes in the working set: reading holes measures nothing; pass \
                 --allow-destructive to fill it with data first",
                path.display()
            ));
        }
    }
    Ok(Target {
        path: path.to_path_buf(),
        kind: TargetKind::File,
        file: Arc::new(file),
        working_set_bytes: size,
        dio_align_bytes,
        needs_fill,
        notes,
        warnings,
        scratch: None,
    })
}

/// Offset of the first hole (SEEK_HOLE); the file size when there is none.
fn first_hole(file: &OwnedFd) -> u64 {
    // SAFETY: lseek has no memory-safety preconditions.
    let hole = unsafe { libc::lseek(std::os::fd::AsRawFd::as_raw_fd(file), 0, libc::SEEK_HOLE) };
    u64::try_from(hole).unwrap_or(u64::MAX)
}

fn open_block_device(
    spec: &JobSpec,
    path: &Path,
    meta: &std::fs::Metadata,
    allow_destructive: bool,
) -> anyhow::Result<Target> {
    let mut flags = open_flags(spec, spec.writes());
    if spec.writes() {
        if !allow_destructive {
            return Err(usage!(
                "refusing to write to block device {}: its data would be overwritten; pass \
                 --allow-destructive if that is what you want",
                path.display()
            ));
        }
        if let Some(reason) = blockdev::in_use_reason(meta.rdev()) {
            return Err(usage!(
                "refusing to write to {}: {reason}; unmount or release it first",
                path.display()
            ));
        }
        flags |= libc::O_EXCL;
    }
    let file = match open_raw(path, flags, 0) {
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
    let dio_align_bytes = blockdev::logical_block_bytes(file.as_fd()).unwrap_or(512);
    let device_bytes = blockdev::size_bytes(file.as_fd())
        .with_context(|| format!("reading the size of {}", path.display()))?;
    let mut notes = Vec::new();
    let mut size = spec.size_bytes;
    if size > device_bytes {
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
        file: Arc::new(file),
        working_set_bytes: size,
        dio_align_bytes,
        needs_fill: false,
        notes,
        warnings: Vec::new(),
        scratch: None,
    })
}
