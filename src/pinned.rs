//! The object a path names, pinned once: an `O_PATH` descriptor, its `fstat` and `fstatfs`.
//!
//! Every safety rule is applied to what this descriptor refers to, and the object is reopened
//! for I/O through the descriptor (`/proc/self/fd/N`, which reopens the inode, not the path), so
//! a path swapped between the check and the open (a symlink flipped to a victim) cannot
//! redirect the I/O. Opening with `O_PATH` calls no driver's open: pinning a FIFO, a tape or a
//! terminal has no side effect.

use std::ffi::CString;
use std::io::Read as _;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Device and inode: what identifies a file across descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
}

/// What a pinned path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    Directory,
    RegularFile,
    /// With its device number.
    BlockDevice(u64),
    /// Anything else, by name (`a FIFO`, `a character device`, `a socket`).
    Other(&'static str),
}

/// A path resolved once.
#[derive(Debug)]
pub struct Pinned {
    fd: OwnedFd,
    stat: libc::stat,
    fs_magic: u64,
}

impl Pinned {
    /// Pins `path` (following symlinks: `/dev/disk/by-id/...` names are links, and what they
    /// lead to is what the rules check).
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let fd = open_at(
            libc::AT_FDCWD,
            path.as_os_str().as_bytes(),
            libc::O_PATH | libc::O_CLOEXEC,
            0,
        )?;
        let stat = fstat(&fd)?;
        let fs_magic = fstatfs_magic(&fd)?;
        Ok(Self { fd, stat, fs_magic })
    }

    #[must_use]
    pub fn kind(&self) -> ObjectKind {
        match self.stat.st_mode & libc::S_IFMT {
            libc::S_IFDIR => ObjectKind::Directory,
            libc::S_IFREG => ObjectKind::RegularFile,
            libc::S_IFBLK => ObjectKind::BlockDevice(self.stat.st_rdev),
            libc::S_IFCHR => ObjectKind::Other("a character device"),
            libc::S_IFIFO => ObjectKind::Other("a FIFO"),
            libc::S_IFSOCK => ObjectKind::Other("a socket"),
            _ => ObjectKind::Other("not a directory, regular file or block device"),
        }
    }

    #[must_use]
    pub fn id(&self) -> FileId {
        FileId {
            dev: self.stat.st_dev,
            ino: self.stat.st_ino,
        }
    }

    /// Size in bytes at the time of pinning (regular files).
    #[must_use]
    pub fn size_bytes(&self) -> u64 {
        u64::try_from(self.stat.st_size).unwrap_or(0)
    }

    /// The kernel-interface filesystem the object lives on (procfs, sysfs, ...), if it is one.
    #[must_use]
    pub fn pseudo_filesystem(&self) -> Option<&'static str> {
        pseudo_filesystem_name(self.fs_magic)
    }

    /// The pinned descriptor, for `*at` calls relative to a pinned directory and `fstatvfs`.
    #[must_use]
    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    /// Opens the pinned object itself with `flags` (never the path again). `O_CREAT`,
    /// `O_TRUNC` and `O_NOFOLLOW` make no sense here and are refused by the caller's contract.
    pub fn reopen(&self, flags: libc::c_int) -> std::io::Result<OwnedFd> {
        debug_assert_eq!(
            flags & (libc::O_CREAT | libc::O_TRUNC | libc::O_NOFOLLOW),
            0
        );
        let link = format!("/proc/self/fd/{}", self.fd.as_raw_fd());
        let fd = open_at(libc::AT_FDCWD, link.as_bytes(), flags | libc::O_CLOEXEC, 0)?;
        let reopened = fstat(&fd)?;
        // The magic link reopens the same inode; anything else is a broken /proc.
        if (reopened.st_dev, reopened.st_ino) != (self.stat.st_dev, self.stat.st_ino) {
            return Err(std::io::Error::other(
                "/proc/self/fd reopened another file than the one checked",
            ));
        }
        Ok(fd)
    }
}

/// `openat(2)` with a byte path.
pub fn open_at(
    dir: libc::c_int,
    path: &[u8],
    flags: libc::c_int,
    mode: libc::mode_t,
) -> std::io::Result<OwnedFd> {
    let c_path = CString::new(path).map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: c_path is a valid NUL-terminated string; openat has no other preconditions.
    let fd = unsafe { libc::openat(dir, c_path.as_ptr(), flags, libc::c_uint::from(mode)) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd was just returned by openat and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `fstat(2)` of a descriptor.
pub fn fstat(fd: &OwnedFd) -> std::io::Result<libc::stat> {
    // SAFETY: stat is plain data; zeroed is a valid value.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: the fd is open and stat points to writable memory of the right type.
    if unsafe { libc::fstat(fd.as_raw_fd(), &raw mut stat) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(stat)
}

/// The identity of an open descriptor.
pub fn file_id(fd: &OwnedFd) -> std::io::Result<FileId> {
    let stat = fstat(fd)?;
    Ok(FileId {
        dev: stat.st_dev,
        ino: stat.st_ino,
    })
}

fn fstatfs_magic(fd: &OwnedFd) -> std::io::Result<u64> {
    // SAFETY: statfs is plain data; zeroed is a valid value.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: the fd is open (O_PATH descriptors support fstatfs) and fs is writable.
    if unsafe { libc::fstatfs(fd.as_raw_fd(), &raw mut fs) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // f_type is a signed word; the magic numbers are 32-bit patterns.
    Ok(fs.f_type as u64 & 0xffff_ffff)
}

/// The kernel-interface filesystem an open descriptor (an `O_PATH` one included) lives on, if
/// it is one (see [`Pinned::pseudo_filesystem`]).
///
/// # Errors
/// What `fstatfs` said.
pub fn pseudo_filesystem_of(fd: &OwnedFd) -> std::io::Result<Option<&'static str>> {
    Ok(pseudo_filesystem_name(fstatfs_magic(fd)?))
}

/// Filesystems that are kernel interfaces, not storage: a "file" there is a knob or a view,
/// and writing to it changes the kernel. Magic numbers from include/uapi/linux/magic.h.
const PSEUDO_FILESYSTEMS: &[(u64, &str)] = &[
    (0x9fa0, "procfs"),
    (0x6265_6572, "sysfs"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x0027_e0eb, "cgroupfs"),
    (0x6367_7270, "cgroup2fs"),
    (0x7363_6673, "securityfs"),
    (0xf97c_ff8c, "selinuxfs"),
    (0x4341_5d53, "smackfs"),
    (0xcafe_4a11, "bpffs"),
    (0x6165_676c, "pstorefs"),
    (0xde5e_81e4, "efivarfs"),
    (0x6265_6570, "configfs"),
    (0x1cd1, "devpts"),
    (0x6573_5543, "fusectl"),
    (0x4249_4e4d, "binfmt_misc"),
    (0x6e73_6673, "nsfs"),
    (0x1980_0202, "mqueue"),
    (0x6759_6969, "rpc_pipefs"),
    (0x6e66_7364, "nfsd"),
    (0x0765_5821, "resctrl"),
    (0xabba_1974, "xenfs"),
];

/// The name of a kernel-interface filesystem by its `statfs` magic, `None` for storage.
#[must_use]
pub fn pseudo_filesystem_name(magic: u64) -> Option<&'static str> {
    PSEUDO_FILESYSTEMS
        .iter()
        .find(|(m, _)| *m == magic)
        .map(|(_, name)| *name)
}

/// A file's bytes (a job file, a hosts file), and which file they came from.
#[derive(Debug)]
pub struct Contents {
    pub bytes: Vec<u8>,
    /// `None` for a stream (stdin from a pipe).
    pub id: Option<FileId>,
}

/// Why a file was not read.
#[derive(Debug)]
pub enum Unreadable {
    Io(std::io::Error),
    /// Not a regular file of storage: what it is (`a FIFO`, `a file of procfs`).
    NotRegular(String),
    /// Holds more than the bytes left to read.
    TooBig,
}

/// Reads a small input file the user names (a job file, a hosts file): `-` from stdin, anything else only when it is a
/// regular file of a storage filesystem. The path is pinned once (`O_PATH`, which opens no
/// device and blocks on no FIFO), checked with `fstat`/`fstatfs`, and the checked inode itself
/// is reopened `O_NONBLOCK` for reading; at most `max` bytes are taken.
///
/// # Errors
/// [`Unreadable::NotRegular`] for anything but a regular file, [`Unreadable::TooBig`] past
/// `max`, or the I/O error.
pub fn read_bounded(path: &Path, max: u64) -> Result<Contents, Unreadable> {
    if path == Path::new("-") {
        let stdin = std::io::stdin();
        let id = nix::sys::stat::fstat(&stdin)
            .ok()
            .filter(|st| st.st_mode & libc::S_IFMT == libc::S_IFREG)
            .map(|st| FileId {
                dev: st.st_dev,
                ino: st.st_ino,
            });
        let bytes = take(&mut stdin.lock(), max)?;
        return Ok(Contents { bytes, id });
    }
    let pinned = Pinned::open(path).map_err(Unreadable::Io)?;
    match pinned.kind() {
        ObjectKind::RegularFile => {}
        ObjectKind::Directory => {
            return Err(Unreadable::NotRegular("a directory".into()));
        }
        ObjectKind::BlockDevice(_) => {
            return Err(Unreadable::NotRegular("a block device".into()));
        }
        ObjectKind::Other(what) => {
            return Err(Unreadable::NotRegular(what.into()));
        }
    }
    if let Some(fs) = pinned.pseudo_filesystem() {
        return Err(Unreadable::NotRegular(format!("a kernel file of {fs}")));
    }
    if pinned.size_bytes() > max {
        return Err(Unreadable::TooBig);
    }
    let fd = pinned
        .reopen(libc::O_RDONLY | libc::O_NONBLOCK)
        .map_err(Unreadable::Io)?;
    let bytes = take(&mut std::fs::File::from(fd), max)?;
    Ok(Contents {
        bytes,
        id: Some(pinned.id()),
    })
}

/// At most `max` bytes of `from`; [`Unreadable::TooBig`] when there are more.
fn take(from: &mut dyn std::io::Read, max: u64) -> Result<Vec<u8>, Unreadable> {
    let mut bytes = Vec::new();
    from.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Unreadable::Io)?;
    if bytes.len() as u64 > max {
        return Err(Unreadable::TooBig);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_filesystems_come_from_the_descriptor() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"abc").unwrap();
        let pinned = Pinned::open(&file).unwrap();
        assert_eq!(pinned.kind(), ObjectKind::RegularFile);
        assert_eq!(pinned.size_bytes(), 3);
        assert_eq!(
            Pinned::open(dir.path()).unwrap().kind(),
            ObjectKind::Directory
        );
        assert_eq!(
            Pinned::open(Path::new("/proc/self/status"))
                .unwrap()
                .pseudo_filesystem(),
            Some("procfs")
        );
        assert_eq!(
            Pinned::open(Path::new("/sys/kernel"))
                .unwrap()
                .pseudo_filesystem(),
            Some("sysfs")
        );
        assert_eq!(pinned.pseudo_filesystem(), None);
        assert_eq!(
            Pinned::open(Path::new("/dev/null")).unwrap().kind(),
            ObjectKind::Other("a character device")
        );
    }

    #[test]
    fn reopen_follows_the_inode_not_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (dir.path().join("first"), dir.path().join("second"));
        std::fs::write(&first, b"first").unwrap();
        std::fs::write(&second, b"second").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&first, &link).unwrap();
        let pinned = Pinned::open(&link).unwrap();
        // The link now leads elsewhere; the pinned object does not move.
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&second, &link).unwrap();
        let fd = pinned.reopen(libc::O_RDONLY).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::fs::File::from(fd), &mut text).unwrap();
        assert_eq!(text, "first");
        assert_eq!(
            file_id(&pinned.reopen(libc::O_RDONLY).unwrap()).unwrap(),
            pinned.id()
        );
    }

    #[test]
    fn storage_filesystems_are_not_pseudo() {
        // ext4, xfs, btrfs, tmpfs.
        for magic in [0xef53, 0x5846_5342, 0x9123_683e, 0x0102_1994] {
            assert_eq!(pseudo_filesystem_name(magic), None, "{magic:#x}");
        }
        assert_eq!(pseudo_filesystem_name(0x9fa0), Some("procfs"));
    }
}
