//! CPU accounting: the process's user and system time and context switches (`getrusage`) over
//! a measured window, as a share of one CPU.

use crate::record::CpuRecord;

/// (user ns, system ns, context switches) of the whole process.
pub fn rusage() -> (u64, u64, u64) {
    crate::stats::rusage(libc::RUSAGE_SELF)
}

pub fn cpu_record(start: (u64, u64, u64), end: (u64, u64, u64), elapsed_ns: u64) -> CpuRecord {
    let usr_ns = end.0.saturating_sub(start.0);
    let sys_ns = end.1.saturating_sub(start.1);
    cpu_totals(
        &CpuRecord {
            usr_ns,
            sys_ns,
            ctx: end.2.saturating_sub(start.2),
            ..CpuRecord::default()
        },
        elapsed_ns,
    )
}

pub fn cpu_totals(cpu: &CpuRecord, elapsed_ns: u64) -> CpuRecord {
    let pct = |ns: u64| {
        if elapsed_ns == 0 {
            0.0
        } else {
            ns as f64 * 100.0 / elapsed_ns as f64
        }
    };
    CpuRecord {
        usr_cpu: pct(cpu.usr_ns),
        sys_cpu: pct(cpu.sys_ns),
        ..cpu.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_of_one_cpu_over_the_window() {
        let cpu = cpu_record((1_000, 2_000, 3), (501_000, 252_000, 10), 1_000_000);
        assert_eq!((cpu.usr_ns, cpu.sys_ns, cpu.ctx), (500_000, 250_000, 7));
        assert!((cpu.usr_cpu - 50.0).abs() < 1e-9);
        assert!((cpu.sys_cpu - 25.0).abs() < 1e-9);
        assert_eq!(cpu_totals(&cpu, 0).usr_cpu, 0.0);
        let (usr, sys, _) = rusage();
        assert!(usr + sys > 0);
    }
}
