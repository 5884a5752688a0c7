//! io_uring denied to one process, as a container runtime's seccomp profile denies it: a
//! classic BPF filter, installed in the child between fork and exec, that answers
//! `io_uring_setup` with EPERM and allows every other call. Nothing machine-wide changes
//! (`kernel.io_uring_disabled` is flipped only in tests/alone/sysctl.rs), so these tests run
//! beside the others and without root (PR_SET_NO_NEW_PRIVS is what lets an unprivileged
//! process install a filter; see the kernel's Documentation/userspace-api/seccomp_filter.rst).

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// `io_uring_setup`'s number: one table for x86_64 and aarch64 (include/uapi/asm-generic/unistd.h
/// and arch/x86/entry/syscalls/syscall_64.tbl both say 425).
const NR_IO_URING_SETUP: u32 = 425;

/// The architecture the filter expects (linux/audit.h): a call made under another ABI (x86's
/// 32-bit calls, whose numbers differ) is refused outright rather than judged by a wrong table.
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E; // AUDIT_ARCH_X86_64
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7; // AUDIT_ARCH_AARCH64

// struct seccomp_data: nr at 0, arch at 4 (linux/seccomp.h).
const OFFSET_NR: u32 = 0;
const OFFSET_ARCH: u32 = 4;
const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
const SECCOMP_RET_KILL_PROCESS: u32 = 0x8000_0000;

const fn stmt(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

const fn jump(code: u32, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

/// The filter: wrong architecture -> kill; `io_uring_setup` -> EPERM; anything else -> allow.
/// A static: the child reads it between fork and exec, where it may not allocate.
static FILTER: [libc::sock_filter; 7] = {
    let load = libc::BPF_LD | libc::BPF_W | libc::BPF_ABS;
    let equal = libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K;
    let ret = libc::BPF_RET | libc::BPF_K;
    [
        stmt(load, OFFSET_ARCH),
        jump(equal, AUDIT_ARCH, 1, 0),
        stmt(ret, SECCOMP_RET_KILL_PROCESS),
        stmt(load, OFFSET_NR),
        jump(equal, NR_IO_URING_SETUP, 0, 1),
        stmt(ret, SECCOMP_RET_ERRNO | libc::EPERM as u32),
        stmt(ret, SECCOMP_RET_ALLOW),
    ]
};

/// Makes `command`'s process (and everything it starts) get EPERM from `io_uring_setup`.
pub fn deny_io_uring(command: &mut Command) -> &mut Command {
    // SAFETY: between fork and exec the closure makes only async-signal-safe calls (prctl),
    // allocates nothing and takes no lock; the program it passes points at a static.
    unsafe {
        command.pre_exec(|| {
            let program = libc::sock_fprog {
                len: FILTER.len() as u16,
                // The kernel only reads the instructions (it copies them in).
                filter: FILTER.as_ptr().cast_mut(),
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &raw const program,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        })
    }
}
