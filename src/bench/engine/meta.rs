//! fio's metadata engines: each I/O is one call on one of the job's files, timed as fio times
//! it (its completion latency), no data moved. `filecreate` opens the file with `O_CREAT`
//! (the close comes after, untimed, as in fio), `filestat` stats it (`stat`, `lstat` or
//! `statx`), `filedelete` unlinks it. I/O `n` of a worker (its offset over the block size,
//! the block size being fio's `filesize`) is the worker's file `n`; the range counts as moved,
//! as fio counts it. Calls are made relative to the job's directory descriptor.

use std::ffi::CString;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

use super::{Completion, Engine, Io};
use crate::bench::spec::{EngineKind, MetaFiles, StatCall};

/// The call each I/O makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    Create,
    Stat(StatCall),
    Delete,
}

pub struct MetaEngine {
    dir: RawFd,
    call: Call,
    names: Vec<CString>,
    file_bytes: u64,
    /// The offset of the first file's I/O (the job's `offset`).
    first_offset: u64,
    /// Files this run created, removed when the engine is dropped (fio's `unlink=1`).
    remove_on_drop: Vec<usize>,
    /// The file `filecreate` opened last, closed before the next I/O (out of its timing).
    open: Option<OwnedFd>,
    queued: Vec<Io>,
    done: Vec<Completion>,
}

impl MetaEngine {
    /// The engine for worker `worker` of a job run by `engine` over `files` in the directory
    /// `dir`; `file_bytes` is the job's block size (fio's `filesize`), `first_offset` the
    /// offset of the first file's I/O. `filestat` and
    /// `filedelete` lay their files out first, as fio does before the job starts: a missing
    /// file is created with `file_bytes` of zeros; `filedelete` refuses a file that is
    /// already there (it removes only files it laid out).
    ///
    /// # Errors
    /// A one-line message naming the file and what the filesystem said.
    pub fn new(
        dir: RawFd,
        engine: EngineKind,
        files: &MetaFiles,
        worker: u32,
        file_bytes: u64,
        first_offset: u64,
    ) -> Result<Self, String> {
        let call = match engine {
            EngineKind::FileCreate => Call::Create,
            EngineKind::FileStat => Call::Stat(files.stat),
            EngineKind::FileDelete => Call::Delete,
            other => return Err(format!("{} is not a metadata engine", other.as_str())),
        };
        let mut names = Vec::with_capacity(files.count as usize);
        for file in 0..files.count {
            let name = files.name(worker, file);
            names.push(
                CString::new(name.clone())
                    .map_err(|_| format!("the file name {name:?} holds a NUL byte"))?,
            );
        }
        let mut engine = Self {
            dir,
            call,
            names,
            file_bytes: file_bytes.max(1),
            first_offset,
            remove_on_drop: Vec::new(),
            open: None,
            queued: Vec::with_capacity(1),
            done: Vec::with_capacity(1),
        };
        engine.lay_out(files.unlink)?;
        Ok(engine)
    }

    fn lay_out(&mut self, unlink: bool) -> Result<(), String> {
        let zeros = vec![0u8; usize::try_from(self.file_bytes.min(1 << 20)).unwrap_or(1 << 20)];
        for (i, name) in self.names.iter().enumerate() {
            let exists = self.exists(name);
            match (self.call, exists) {
                (Call::Delete, true) => {
                    return Err(format!(
                        "{} is already there; filedelete removes only the files it lays out: \
                         remove it or choose another directory",
                        name.to_string_lossy()
                    ));
                }
                (Call::Stat(_), true) | (Call::Create, _) => {
                    if unlink && !exists {
                        self.remove_on_drop.push(i);
                    }
                    continue;
                }
                (Call::Stat(_) | Call::Delete, false) => {}
            }
            write_file(self.dir, name, self.file_bytes, &zeros)
                .map_err(|err| format!("cannot lay out {}: {err}", name.to_string_lossy()))?;
            if unlink && self.call != Call::Delete {
                self.remove_on_drop.push(i);
            }
        }
        Ok(())
    }

    fn exists(&self, name: &CString) -> bool {
        // SAFETY: an all-zero stat is a valid out buffer; the name is NUL-terminated.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: dir is open for the engine's life; st outlives the call.
        unsafe {
            libc::fstatat(
                self.dir,
                name.as_ptr(),
                &raw mut st,
                libc::AT_SYMLINK_NOFOLLOW,
            ) == 0
        }
    }

    fn run(&mut self, io: &Io) -> i32 {
        let index = (io.offset_bytes.saturating_sub(self.first_offset) / self.file_bytes) as usize
            % self.names.len().max(1);
        let name = self.names[index].as_ptr();
        let rc = match self.call {
            Call::Create => {
                // SAFETY: dir is open for the engine's life; the name is NUL-terminated.
                let fd = unsafe {
                    libc::openat(
                        self.dir,
                        name,
                        libc::O_CREAT | libc::O_RDWR | libc::O_CLOEXEC,
                        0o600,
                    )
                };
                if fd >= 0 {
                    // SAFETY: openat just returned this descriptor, owned by nothing else.
                    self.open = Some(unsafe { OwnedFd::from_raw_fd(fd) });
                }
                fd
            }
            Call::Stat(StatCall::Stat | StatCall::Lstat) => {
                let flags = if self.call == Call::Stat(StatCall::Lstat) {
                    libc::AT_SYMLINK_NOFOLLOW
                } else {
                    0
                };
                // SAFETY: an all-zero stat is a valid out buffer.
                let mut st: libc::stat = unsafe { std::mem::zeroed() };
                // SAFETY: dir is open; st outlives the call.
                unsafe { libc::fstatat(self.dir, name, &raw mut st, flags) }
            }
            Call::Stat(StatCall::Statx) => {
                // SAFETY: an all-zero statx is a valid out buffer.
                let mut stx: libc::statx = unsafe { std::mem::zeroed() };
                // SAFETY: dir is open; stx outlives the call.
                unsafe { libc::statx(self.dir, name, 0, libc::STATX_ALL, &raw mut stx) }
            }
            // SAFETY: dir is open for the engine's life; the name is NUL-terminated.
            Call::Delete => unsafe { libc::unlinkat(self.dir, name, 0) },
        };
        if rc < 0 {
            -io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO)
        } else {
            i32::try_from(io.len_bytes).unwrap_or(i32::MAX)
        }
    }
}

/// Creates `name` in `dir` (no link followed, nothing there before) holding `bytes` zeros.
fn write_file(dir: RawFd, name: &CString, bytes: u64, zeros: &[u8]) -> io::Result<()> {
    let flags = libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: dir is open; the name is NUL-terminated.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), flags, 0o644) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: openat just returned this descriptor, owned by nothing else.
    let file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    let mut left = bytes;
    while left > 0 {
        let chunk = usize::try_from(left).unwrap_or(usize::MAX).min(zeros.len());
        std::io::Write::write_all(&mut &file, &zeros[..chunk])?;
        left -= chunk as u64;
    }
    Ok(())
}

impl Drop for MetaEngine {
    fn drop(&mut self) {
        self.open = None;
        for &i in &self.remove_on_drop {
            // SAFETY: dir is open for the engine's life; the name is NUL-terminated. A file
            // already gone is fine.
            unsafe { libc::unlinkat(self.dir, self.names[i].as_ptr(), 0) };
        }
    }
}

impl Engine for MetaEngine {
    #[inline]
    fn prep(&mut self, io: &Io) {
        // The last created file's close, out of the timed call (fio closes it later too).
        self.open = None;
        self.queued.push(*io);
    }

    fn submit(&mut self) -> io::Result<()> {
        for i in 0..self.queued.len() {
            let io = self.queued[i];
            let result = self.run(&io);
            self.done.push(Completion {
                slot: io.slot,
                result,
            });
        }
        self.queued.clear();
        Ok(())
    }

    fn reap(&mut self, out: &mut Vec<Completion>, max: usize) -> io::Result<()> {
        self.submit()?;
        let take = max.min(self.done.len());
        out.extend(self.done.drain(..take));
        Ok(())
    }
}
