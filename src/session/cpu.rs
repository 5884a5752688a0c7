//! CPU accounting: the process's user and system time, context switches and page faults
//! (`getrusage`) over a measured window, the times as a share of one CPU.

use crate::record::CpuRecord;

use crate::stats::Usage;

/// What the whole process has used.
pub fn rusage() -> Usage {
    crate::stats::rusage(libc::RUSAGE_SELF)
}

/// The use from `start` to `end` over `elapsed_ns`.
pub fn cpu_record(start: Usage, end: Usage, elapsed_ns: u64) -> CpuRecord {
    let used = end.since(&start);
    cpu_totals(
        &CpuRecord {
            usr_ns: used.usr_ns,
            sys_ns: used.sys_ns,
            ctx: used.ctx,
            majf: used.majf,
            minf: used.minf,
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
        let at = |usr_ns, sys_ns, ctx, majf, minf| Usage {
            usr_ns,
            sys_ns,
            ctx,
            majf,
            minf,
        };
        let cpu = cpu_record(
            at(1_000, 2_000, 3, 1, 40),
            at(501_000, 252_000, 10, 3, 90),
            1_000_000,
        );
        assert_eq!((cpu.usr_ns, cpu.sys_ns, cpu.ctx), (500_000, 250_000, 7));
        assert_eq!((cpu.majf, cpu.minf), (2, 50));
        assert!((cpu.usr_cpu - 50.0).abs() < 1e-9);
        assert!((cpu.sys_cpu - 25.0).abs() < 1e-9);
        assert_eq!(cpu_totals(&cpu, 0).usr_cpu, 0.0);
        let used = rusage();
        assert!(used.usr_ns + used.sys_ns > 0);
        // A process that has run has touched pages it did not have.
        assert!(used.minf > 0);
    }
}
