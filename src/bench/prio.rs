//! I/O priorities and NUMA placement, as fio sets them: a job's `prio`/`prioclass` on each
//! worker thread (ioprio_set), a share of its I/Os at another priority through the I/O itself
//! (`cmdprio_percentage`, `cmdprio_bssplit` with `cmdprio_class`/`cmdprio`: io_uring's sqe
//! `ioprio`, libaio's `IOCB_FLAG_IOPRIO`), and `numa_cpu_nodes`/`numa_mem_policy` applied on
//! the worker before its buffers are allocated.

use crate::bench::kinds::Direction;
use crate::units::parse_size_bytes;

/// `IOPRIO_CLASS_SHIFT` of linux/ioprio.h.
const CLASS_SHIFT: u16 = 13;
/// `IOPRIO_WHO_PROCESS`: with who 0, the calling thread.
const WHO_PROCESS: libc::c_int = 1;
/// Where the kernel lists NUMA nodes and their CPUs.
pub const NODE_DIR: &str = "/sys/devices/system/node";

/// An I/O priority as the kernel takes it: class (1 rt, 2 be, 3 idle) and level (0-7).
#[must_use]
pub const fn ioprio_value(class: u8, level: u8) -> u16 {
    ((class as u16) << CLASS_SHIFT) | level as u16
}

/// `rt/0`, `be/4`, `idle/0`: a priority in words.
#[must_use]
pub fn describe(ioprio: u16) -> String {
    let class = match ioprio >> CLASS_SHIFT {
        0 => "none",
        1 => "rt",
        2 => "be",
        3 => "idle",
        _ => "class?",
    };
    format!("{class}/{}", ioprio & 0xff)
}

/// One rule of fio's cmdprio: `pct` percent of the I/Os (of size `bs`, or of every size) go
/// at `ioprio`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CmdPrioEntry {
    pub bs: Option<u32>,
    pub pct: u8,
    pub ioprio: u16,
}

/// fio's per-I/O priorities, per direction; I/Os no rule picks carry none (the thread's
/// priority applies to them).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CmdPrio {
    pub read: Vec<CmdPrioEntry>,
    pub write: Vec<CmdPrioEntry>,
}

impl CmdPrio {
    /// The priority of an I/O of `len` bytes going `direction`, for a draw in 0..100; 0: none.
    #[must_use]
    pub fn pick(&self, direction: Direction, len: u32, draw: u32) -> u16 {
        let rules = match direction {
            Direction::Read => &self.read,
            Direction::Write => &self.write,
            Direction::Trim => return 0,
        };
        let mut below = 0u32;
        for rule in rules {
            if rule.bs.is_some_and(|bs| bs != len) {
                continue;
            }
            below += u32::from(rule.pct);
            if draw < below {
                return rule.ioprio;
            }
        }
        0
    }

    /// Whether any I/O could be given a priority.
    #[must_use]
    pub fn any(&self) -> bool {
        self.read.iter().chain(&self.write).any(|r| r.pct > 0)
    }
}

/// A worker's draws for [`CmdPrio::pick`]: a xorshift stream of its own.
#[derive(Debug, Clone)]
pub struct CmdPrioPicker {
    pub rules: CmdPrio,
    state: u64,
    /// I/Os given a priority of their own.
    pub prioritized: u64,
}

impl CmdPrioPicker {
    #[must_use]
    pub fn new(rules: CmdPrio, seed: u64) -> Self {
        Self {
            rules,
            state: seed | 1,
            prioritized: 0,
        }
    }

    /// The next I/O's priority (0: none).
    #[inline]
    pub fn next(&mut self, direction: Direction, len: u32) -> u16 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        let draw = u32::try_from((self.state >> 32) % 100).unwrap_or(0);
        let ioprio = self.rules.pick(direction, len, draw);
        self.prioritized += u64::from(ioprio != 0);
        ioprio
    }
}

/// A `class,class` or `level,level` pair of fio (one value: both directions).
fn pair(text: &str, max: u8, what: &str) -> Result<(u8, u8), String> {
    let one = |t: &str| -> Result<u8, String> {
        match t.trim().parse::<u8>() {
            Ok(v) if v <= max => Ok(v),
            _ => Err(format!("{t:?} is not {what} (0 to {max})")),
        }
    };
    match text.split_once(',') {
        None => one(text).map(|v| (v, v)),
        Some((r, w)) => Ok((one(r)?, one(w)?)),
    }
}

/// fio's `cmdprio_percentage=READ[,WRITE]` (0-100) with `cmdprio_class` (1-3, default 1)
/// and `cmdprio` (0-7, default 0), each `READ[,WRITE]`.
pub fn parse_percentage(pct: &str, class: &str, level: &str) -> Result<CmdPrio, String> {
    let (pr, pw) = pair(pct, 100, "a percentage")?;
    let (cr, cw) = classes(class)?;
    let (lr, lw) = pair(level, 7, "a priority level")?;
    let side = |pct: u8, class: u8, level: u8| {
        if pct == 0 {
            Vec::new()
        } else {
            vec![CmdPrioEntry {
                bs: None,
                pct,
                ioprio: ioprio_value(class, level),
            }]
        }
    };
    Ok(CmdPrio {
        read: side(pr, cr, lr),
        write: side(pw, cw, lw),
    })
}

fn classes(text: &str) -> Result<(u8, u8), String> {
    let (r, w) = pair(text, 3, "a priority class")?;
    if r == 0 || w == 0 {
        return Err(format!(
            "{text:?} is not a priority class (1 rt, 2 be, 3 idle)"
        ));
    }
    Ok((r, w))
}

/// fio's `cmdprio_bssplit`: `READ[,WRITE]`, each `bs/pct[/class/level]:...`; an entry without
/// class and level takes `cmdprio_class` and `cmdprio` (`class`, `level`: `READ[,WRITE]`).
/// Percentages of one block size add up to 100 at most.
pub fn parse_bssplit(text: &str, class: &str, level: &str) -> Result<CmdPrio, String> {
    let (cr, cw) = classes(class)?;
    let (lr, lw) = pair(level, 7, "a priority level")?;
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 2 {
        return Err(format!(
            "{text:?}: a third list would split trims, which carry no priority"
        ));
    }
    let read = side(parts[0], cr, lr)?;
    let write = match parts.get(1) {
        Some(w) => side(w, cw, lw)?,
        None => side(parts[0], cw, lw)?,
    };
    Ok(CmdPrio { read, write })
}

fn side(text: &str, class: u8, level: u8) -> Result<Vec<CmdPrioEntry>, String> {
    let mut out: Vec<CmdPrioEntry> = Vec::new();
    if text.is_empty() {
        return Ok(out);
    }
    for entry in text.split(':').map(str::trim) {
        let fields: Vec<&str> = entry.split('/').map(str::trim).collect();
        let bad = || format!("{entry:?} is not SIZE/PERCENT or SIZE/PERCENT/CLASS/LEVEL");
        let (size, pct, class, level) = match fields.as_slice() {
            [size, pct] => (*size, *pct, class, level),
            [size, pct, c, l] => {
                let c = c.parse::<u8>().ok().filter(|c| (1..=3).contains(c));
                let l = l.parse::<u8>().ok().filter(|l| *l <= 7);
                match (c, l) {
                    (Some(c), Some(l)) => (*size, *pct, c, l),
                    _ => {
                        return Err(format!(
                            "{entry:?}: the class is 1 (rt), 2 (be) or 3 (idle) and the \
                             level 0 to 7"
                        ));
                    }
                }
            }
            _ => return Err(bad()),
        };
        let bs = parse_size_bytes(size)
            .and_then(|b| u32::try_from(b).ok())
            .filter(|b| *b > 0)
            .ok_or_else(bad)?;
        let pct = pct
            .parse::<u8>()
            .ok()
            .filter(|p| *p <= 100)
            .ok_or_else(|| format!("{entry:?}: {pct:?} is not a percentage (0 to 100)"))?;
        let total: u32 = out
            .iter()
            .filter(|e| e.bs == Some(bs))
            .map(|e| u32::from(e.pct))
            .sum::<u32>()
            + u32::from(pct);
        if total > 100 {
            return Err(format!(
                "{text:?}: the percentages of {size} add up to {total}, over 100"
            ));
        }
        if pct > 0 {
            out.push(CmdPrioEntry {
                bs: Some(bs),
                pct,
                ioprio: ioprio_value(class, level),
            });
        }
    }
    Ok(out)
}

/// Sets the calling thread's I/O priority (fio's `prio`/`prioclass`).
pub fn set_thread_ioprio(ioprio: u16) -> Result<(), String> {
    // SAFETY: ioprio_set reads its three integer arguments only; who 0 is this thread.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_ioprio_set,
            WHO_PROCESS,
            0,
            libc::c_int::from(ioprio),
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    Err(format!(
        "ioprio_set({}) on the worker thread failed: {err}{}",
        describe(ioprio),
        if err.raw_os_error() == Some(libc::EPERM) {
            " (the rt class needs root or CAP_SYS_NICE)"
        } else {
            ""
        }
    ))
}

/// The calling thread's I/O priority (ioprio_get).
#[cfg(test)]
#[must_use]
pub fn thread_ioprio() -> Option<u16> {
    // SAFETY: ioprio_get reads its two integer arguments only.
    let rc = unsafe { libc::syscall(libc::SYS_ioprio_get, WHO_PROCESS, 0) };
    u16::try_from(rc).ok()
}

/// fio's `numa_mem_policy` modes (set_mempolicy's MPOL_*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemMode {
    Default,
    Prefer,
    Bind,
    Interleave,
    Local,
}

impl MemMode {
    const fn mpol(self) -> libc::c_int {
        match self {
            Self::Default => 0,
            Self::Prefer => 1,
            Self::Bind => 2,
            Self::Interleave => 3,
            Self::Local => 4,
        }
    }

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Prefer => "prefer",
            Self::Bind => "bind",
            Self::Interleave => "interleave",
            Self::Local => "local",
        }
    }
}

/// fio's `numa_mem_policy=MODE[:NODES]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemPolicy {
    pub mode: MemMode,
    pub nodes: Vec<u32>,
}

impl MemPolicy {
    /// `default`, `local`, `prefer:N`, `bind:NODES`, `interleave:NODES`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (mode, nodes) = match text.split_once(':') {
            Some((m, n)) => (m.trim(), Some(n.trim())),
            None => (text.trim(), None),
        };
        let mode = match mode {
            "default" => MemMode::Default,
            "prefer" => MemMode::Prefer,
            "bind" => MemMode::Bind,
            "interleave" => MemMode::Interleave,
            "local" => MemMode::Local,
            other => {
                return Err(format!(
                    "{other:?} is not a memory policy; use default, local, prefer:N, \
                     bind:NODES or interleave:NODES"
                ));
            }
        };
        let nodes = match (mode, nodes) {
            (MemMode::Default | MemMode::Local, None) => Vec::new(),
            (MemMode::Default | MemMode::Local, Some(_)) => {
                return Err(format!("{} takes no node list", mode.as_str()));
            }
            (_, None) => {
                return Err(format!(
                    "{} needs its nodes, e.g. {}:0",
                    mode.as_str(),
                    mode.as_str()
                ));
            }
            (_, Some(n)) => parse_nodes(n)?,
        };
        if mode == MemMode::Prefer && nodes.len() != 1 {
            return Err("prefer takes one node, e.g. prefer:0".to_string());
        }
        Ok(Self { mode, nodes })
    }

    #[must_use]
    pub fn as_text(&self) -> String {
        if self.nodes.is_empty() {
            return self.mode.as_str().to_string();
        }
        format!("{}:{}", self.mode.as_str(), format_nodes(&self.nodes))
    }
}

/// A node list: `0`, `0-1`, `0,2-3` (sorted, each once).
pub fn parse_nodes(text: &str) -> Result<Vec<u32>, String> {
    let bad = || format!("{text:?} is not a node list; use e.g. 0, 0-1 or 0,2");
    let mut nodes = Vec::new();
    for part in text.split(',').map(str::trim) {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let lo: u32 = lo.trim().parse().map_err(|_| bad())?;
        let hi: u32 = hi.trim().parse().map_err(|_| bad())?;
        if lo > hi || hi >= 1024 {
            return Err(bad());
        }
        nodes.extend(lo..=hi);
    }
    nodes.sort_unstable();
    nodes.dedup();
    Ok(nodes)
}

/// `0,2-3`.
#[must_use]
pub fn format_nodes(nodes: &[u32]) -> String {
    let cpus: Vec<usize> = nodes.iter().map(|&n| n as usize).collect();
    crate::bench::kinds::format_cpu_list(&cpus)
}

/// Node `node`'s CPUs from /sys/devices/system/node/nodeN/cpulist; a node that is not there is
/// an error naming it.
pub fn node_cpus(node: u32) -> Result<Vec<usize>, String> {
    let path = format!("{NODE_DIR}/node{node}/cpulist");
    let text = std::fs::read_to_string(&path).map_err(|_| {
        format!("NUMA node {node} does not exist on this machine (no {NODE_DIR}/node{node})")
    })?;
    crate::bench::kinds::parse_cpu_list(text.trim()).map_err(|e| format!("{path}: {e:?}"))
}

/// Pins the calling thread to the CPUs of `nodes` (fio's `numa_cpu_nodes`).
pub fn bind_cpus_to_nodes(nodes: &[u32]) -> Result<(), String> {
    let mut set = nix::sched::CpuSet::new();
    for &node in nodes {
        for cpu in node_cpus(node)? {
            set.set(cpu)
                .map_err(|e| format!("CPU {cpu} of node {node}: {e}"))?;
        }
    }
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set).map_err(|e| {
        format!(
            "sched_setaffinity to NUMA nodes {}: {e}",
            format_nodes(nodes)
        )
    })
}

/// Sets the calling thread's memory policy (fio's `numa_mem_policy`); its buffers, allocated
/// next, follow it.
pub fn set_mem_policy(policy: &MemPolicy) -> Result<(), String> {
    for &node in &policy.nodes {
        if !std::path::Path::new(&format!("{NODE_DIR}/node{node}")).exists() {
            return Err(format!(
                "NUMA node {node} does not exist on this machine (no {NODE_DIR}/node{node})"
            ));
        }
    }
    let mut mask = [0 as libc::c_ulong; 1024 / 64];
    for &node in &policy.nodes {
        mask[node as usize / 64] |= 1 << (node % 64);
    }
    let (ptr, maxnode) = if policy.nodes.is_empty() {
        (std::ptr::null(), 0)
    } else {
        (mask.as_ptr(), 1024 as libc::c_ulong)
    };
    // SAFETY: set_mempolicy reads `maxnode` bits from `mask`, which holds 1024 bits and
    // outlives the call; a null mask with 0 is the documented form for default and local.
    let rc = unsafe { libc::syscall(libc::SYS_set_mempolicy, policy.mode.mpol(), ptr, maxnode) };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "set_mempolicy({}) failed: {}",
            policy.as_text(),
            std::io::Error::last_os_error()
        ))
    }
}

/// The calling thread's memory policy mode (get_mempolicy), for tests and notes.
#[cfg(test)]
#[must_use]
pub fn mem_policy_mode() -> Option<i32> {
    let mut mode: libc::c_int = -1;
    // SAFETY: get_mempolicy writes one int to `mode`; a null mask with 0 asks for no mask.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            &raw mut mode,
            std::ptr::null_mut::<libc::c_ulong>(),
            0 as libc::c_ulong,
            std::ptr::null_mut::<libc::c_void>(),
            0 as libc::c_ulong,
        )
    };
    (rc == 0).then_some(mode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fios_example_bssplits_parse() {
        let simple = parse_bssplit("64k/100:1024k/0,1024k/0", "1", "0").unwrap();
        assert_eq!(
            simple.read,
            vec![CmdPrioEntry {
                bs: Some(65536),
                pct: 100,
                ioprio: ioprio_value(1, 0)
            }]
        );
        assert!(simple.write.is_empty());
        let adv = parse_bssplit("64k/25/1/1:64k/75/3/2:1024k/0,1024k/0", "1", "0").unwrap();
        assert_eq!(adv.read.len(), 2);
        assert_eq!(adv.pick(Direction::Read, 65536, 24), ioprio_value(1, 1));
        assert_eq!(adv.pick(Direction::Read, 65536, 25), ioprio_value(3, 2));
        assert_eq!(adv.pick(Direction::Read, 1 << 20, 0), 0);
        assert_eq!(adv.pick(Direction::Write, 1 << 20, 0), 0);
    }

    #[test]
    fn bad_bssplits_say_why() {
        assert!(
            parse_bssplit("64k/60:64k/50", "1", "0")
                .unwrap_err()
                .contains("over 100")
        );
        assert!(
            parse_bssplit("64k/25/4/1", "1", "0")
                .unwrap_err()
                .contains("class")
        );
        assert!(parse_bssplit("64k/25/1", "1", "0").is_err());
        assert!(parse_bssplit("x/25", "1", "0").is_err());
        assert!(parse_bssplit("4k/10", "0", "0").is_err());
    }

    #[test]
    fn percentage_gives_each_direction_its_share() {
        let p = parse_percentage("20", "1", "0").unwrap();
        assert_eq!(p.pick(Direction::Read, 4096, 19), ioprio_value(1, 0));
        assert_eq!(p.pick(Direction::Read, 4096, 20), 0);
        let p = parse_percentage("0,50", "1,3", "0,7").unwrap();
        assert!(p.read.is_empty());
        assert_eq!(p.pick(Direction::Write, 4096, 0), ioprio_value(3, 7));
        assert!(parse_percentage("101", "1", "0").is_err());
        assert!(parse_percentage("10", "1", "8").is_err());
    }

    #[test]
    fn a_picker_prioritizes_about_its_share() {
        let mut picker = CmdPrioPicker::new(parse_percentage("20", "1", "0").unwrap(), 7);
        for _ in 0..10_000 {
            picker.next(Direction::Read, 4096);
        }
        assert!(
            (1_700..2_300).contains(&picker.prioritized),
            "{}",
            picker.prioritized
        );
    }

    #[test]
    fn mem_policies_parse_as_fio_spells_them() {
        assert_eq!(
            MemPolicy::parse("bind:0").unwrap(),
            MemPolicy {
                mode: MemMode::Bind,
                nodes: vec![0]
            }
        );
        assert_eq!(
            MemPolicy::parse("interleave:0-1").unwrap().nodes,
            vec![0, 1]
        );
        assert_eq!(MemPolicy::parse("local").unwrap().as_text(), "local");
        assert!(MemPolicy::parse("bind").is_err());
        assert!(MemPolicy::parse("prefer:0-1").is_err());
        assert!(MemPolicy::parse("local:0").is_err());
        assert!(MemPolicy::parse("nearest:0").is_err());
    }

    #[test]
    fn node_zero_binds_and_a_missing_node_is_named() {
        std::thread::spawn(|| {
            bind_cpus_to_nodes(&[0]).unwrap();
            set_mem_policy(&MemPolicy::parse("bind:0").unwrap()).unwrap();
            assert_eq!(mem_policy_mode(), Some(2));
            set_mem_policy(&MemPolicy::parse("default").unwrap()).unwrap();
            assert_eq!(mem_policy_mode(), Some(0));
            let err = set_mem_policy(&MemPolicy::parse("bind:63").unwrap()).unwrap_err();
            assert!(
                err.contains("NUMA node 63") && err.contains(NODE_DIR),
                "{err}"
            );
            let err = bind_cpus_to_nodes(&[63]).unwrap_err();
            assert!(
                err.contains("NUMA node 63") && err.contains(NODE_DIR),
                "{err}"
            );
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_thread_takes_its_ioprio() {
        std::thread::spawn(|| {
            set_thread_ioprio(ioprio_value(2, 7)).unwrap();
            assert_eq!(thread_ioprio(), Some(ioprio_value(2, 7)));
        })
        .join()
        .unwrap();
    }

    /// The I/O's own priority reaches the kernel through both engines: a valid one completes,
    /// class 7 (no such class) is refused with EINVAL by the kernel's check of the sqe's
    /// `ioprio` (io_uring) or of `aio_reqprio` under `IOCB_FLAG_IOPRIO` (libaio).
    #[test]
    fn each_ios_priority_reaches_the_kernel() {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::OpenOptionsExt;

        use crate::bench::buffer::AlignedBuffers;
        use crate::bench::engine::libaio::LibaioEngine;
        use crate::bench::engine::uring::UringEngine;
        use crate::bench::engine::{Completion, Engine, Io};

        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .custom_flags(libc::O_DIRECT)
            .open(dir.path().join("data"))
            .unwrap();
        file.set_len(1 << 20).unwrap();
        let buffers = AlignedBuffers::new(3, 4096, 1).unwrap();
        let prios = [0, ioprio_value(2, 7), ioprio_value(7, 0)];
        let drive = |engine: &mut dyn Engine| {
            for (slot, &ioprio) in prios.iter().enumerate() {
                engine.prep(&Io {
                    slot: slot as u32,
                    direction: Direction::Read,
                    offset_bytes: slot as u64 * 4096,
                    len_bytes: 4096,
                    buf: buffers.slot_ptr(slot),
                    ioprio,
                    fd: -1,
                });
            }
            let mut out = Vec::new();
            while out.len() < 3 {
                engine.reap(&mut out, 3).unwrap();
            }
            out.sort_by_key(|c: &Completion| c.slot);
            out.iter().map(|c| c.result).collect::<Vec<_>>()
        };
        let fd = file.as_raw_fd();
        let (mut uring, _) = UringEngine::new(
            fd,
            4,
            &buffers,
            4096,
            &crate::bench::spec::UringOptions::default(),
        )
        .unwrap();
        assert_eq!(drive(&mut uring), [4096, 4096, -libc::EINVAL], "io_uring");
        let (mut aio, _) = LibaioEngine::new(fd, 4).unwrap();
        assert_eq!(drive(&mut aio), [4096, 4096, -libc::EINVAL], "libaio");
    }

    proptest! {
        #[test]
        fn bssplit_round_trips_and_never_exceeds_100(
            entries in proptest::collection::vec((0usize..4, 0u8..=100, 1u8..=3, 0u8..=7, any::<bool>()), 1..6)
        ) {
            let sizes = ["4k", "8k", "64k", "1m"];
            let text = entries
                .iter()
                .map(|&(s, p, c, l, full)| if full {
                    format!("{}/{p}/{c}/{l}", sizes[s])
                } else {
                    format!("{}/{p}", sizes[s])
                })
                .collect::<Vec<_>>()
                .join(":");
            let mut per = [0u32; 4];
            for &(s, p, ..) in &entries {
                per[s] += u32::from(p);
            }
            match parse_bssplit(&text, "2", "5") {
                Ok(split) => {
                    prop_assert!(per.iter().all(|&t| t <= 100));
                    for (s, size) in [4096u32, 8192, 65536, 1 << 20].into_iter().enumerate() {
                        let share = (0..100).filter(|&d| split.pick(Direction::Read, size, d) != 0).count();
                        prop_assert_eq!(share as u32, per[s]);
                    }
                    prop_assert_eq!(&split.read, &split.write);
                }
                Err(e) => prop_assert!(per.iter().any(|&t| t > 100), "{}", e),
            }
        }

        #[test]
        fn bssplit_never_panics(text in "[0-9kmKM/:,]{0,40}") {
            let _ = parse_bssplit(&text, "1", "0");
        }

        #[test]
        fn node_lists_round_trip(nodes in proptest::collection::btree_set(0u32..64, 1..8)) {
            let nodes: Vec<u32> = nodes.into_iter().collect();
            prop_assert_eq!(parse_nodes(&format_nodes(&nodes)).unwrap(), nodes);
        }
    }
}
