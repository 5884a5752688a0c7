//! The machine, read once per use from `uname(2)`, `sysconf(3)` and the affinity mask: what
//! the record's `host`, the dashboard's header and `diskdash iostat`'s first line show.

/// The host's name, kernel and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    pub hostname: String,
    /// `Linux`.
    pub sysname: String,
    /// The kernel release (`6.18.0-...`).
    pub release: String,
    /// `x86_64`.
    pub machine: String,
    /// CPUs online (sysstat's count).
    pub online_cpus: usize,
    /// CPUs this process may run on (its affinity), what a benchmark can use.
    pub usable_cpus: usize,
    pub memory_bytes: u64,
}

impl Host {
    #[must_use]
    pub fn detect() -> Self {
        let uts = nix::sys::utsname::uname().ok();
        let field = |f: fn(&nix::sys::utsname::UtsName) -> &std::ffi::OsStr| {
            uts.as_ref()
                .map(|u| f(u).to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let online_cpus = nix::unistd::sysconf(nix::unistd::SysconfVar::_NPROCESSORS_ONLN)
            .ok()
            .flatten()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(1);
        Self {
            hostname: nix::unistd::gethostname()
                .map(|h| h.to_string_lossy().into_owned())
                .unwrap_or_default(),
            sysname: field(nix::sys::utsname::UtsName::sysname),
            release: field(nix::sys::utsname::UtsName::release),
            machine: field(nix::sys::utsname::UtsName::machine),
            online_cpus,
            usable_cpus: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            memory_bytes: MachineLimits::detect().memory_bytes,
        }
    }

    /// `Linux 6.18.0`, as the dashboard's header shows the kernel.
    #[must_use]
    pub fn kernel(&self) -> String {
        format!("{} {}", self.sysname, self.release)
    }
}

/// What job validation needs to know about the machine (injected so the table test is exact).
#[derive(Debug, Clone)]
pub struct MachineLimits {
    pub available_cpus: Vec<usize>,
    pub memory_bytes: u64,
}

impl MachineLimits {
    /// The CPUs this process may run on and the physical memory.
    #[must_use]
    pub fn detect() -> Self {
        let available_cpus = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0))
            .map(|set| {
                (0..nix::sched::CpuSet::count())
                    .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
                    .collect()
            })
            .unwrap_or_else(|_| vec![0]);
        // SAFETY: sysconf has no memory-safety preconditions.
        let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
        // SAFETY: as above.
        let page_size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let memory_bytes =
            u64::try_from(pages.max(0)).unwrap_or(0) * u64::try_from(page_size.max(0)).unwrap_or(0);
        Self {
            available_cpus,
            memory_bytes,
        }
    }
}

impl crate::record::HostRecord {
    /// This machine, as a record names it.
    #[must_use]
    pub fn detect() -> Self {
        let host = Host::detect();
        Self {
            hostname: host.hostname,
            kernel: host.release,
            cpus: host.usable_cpus,
            memory_bytes: host.memory_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_is_described() {
        let host = Host::detect();
        assert_eq!(host.sysname, "Linux");
        assert!(!host.release.is_empty());
        assert!(host.online_cpus >= 1 && host.usable_cpus >= 1);
        assert!(host.memory_bytes > 0);
        assert_eq!(host.kernel(), format!("Linux {}", host.release));
    }
}
