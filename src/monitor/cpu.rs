//! The machine's CPU time from `/proc/stat` and sysstat's `avg-cpu` block over it.
//!
//! sysstat 12's `iostat` (`write_plain_cpu_stat`) over the first `cpu` line, in jiffies, with
//! `Δ` the change over the interval and `total` = user + nice + system + idle + iowait + irq +
//! softirq + steal (guest time is already inside user and nice):
//!
//! | column | formula |
//! | --- | --- |
//! | `%user` | `Δuser / Δtotal * 100` |
//! | `%nice` | `Δnice / Δtotal * 100` |
//! | `%system` | `Δ(system + irq + softirq) / Δtotal * 100` |
//! | `%iowait` `%steal` `%idle` | `Δfield / Δtotal * 100` |
//!
//! A field that went backwards (CPU hot-unplug) gives 0, never a negative share.

use anyhow::Context;
use serde::Serialize;

/// The aggregate `cpu` line of `/proc/stat`, in jiffies since boot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuCounters {
    pub user: u64,
    pub nice: u64,
    pub system: u64,
    pub idle: u64,
    pub iowait: u64,
    pub irq: u64,
    pub softirq: u64,
    pub steal: u64,
}

/// `/proc/stat`, the source of the counters.
pub const PROC_STAT: &str = "/proc/stat";

impl CpuCounters {
    /// Reads the `cpu` line of `/proc/stat`.
    ///
    /// # Errors
    /// The file cannot be read or has no valid `cpu` line.
    pub fn read() -> anyhow::Result<Self> {
        let text =
            std::fs::read_to_string(PROC_STAT).with_context(|| format!("reading {PROC_STAT}"))?;
        Self::parse(&text).with_context(|| format!("{PROC_STAT} has no valid \"cpu\" line"))
    }

    /// The `cpu` line of a `/proc/stat` text. Kernels before 2.6.11 lack the later fields,
    /// which count as 0. Pure.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some("cpu"))?;
        let mut fields = line.split_whitespace().skip(1).map(str::parse::<u64>);
        let mut next = |required: bool| match fields.next() {
            Some(Ok(v)) => Some(v),
            Some(Err(_)) => None,
            None if required => None,
            None => Some(0),
        };
        Some(Self {
            user: next(true)?,
            nice: next(true)?,
            system: next(true)?,
            idle: next(true)?,
            iowait: next(false)?,
            irq: next(false)?,
            softirq: next(false)?,
            steal: next(false)?,
        })
    }

    fn total(&self) -> u64 {
        [
            self.user,
            self.nice,
            self.system,
            self.idle,
            self.iowait,
            self.irq,
            self.softirq,
            self.steal,
        ]
        .iter()
        .fold(0u64, |sum, v| sum.saturating_add(*v))
    }
}

/// The `avg-cpu` block: shares of CPU time in percent, with the keys of sysstat's JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CpuPercent {
    pub user: f64,
    pub nice: f64,
    pub system: f64,
    pub iowait: f64,
    pub steal: f64,
    pub idle: f64,
}

impl CpuPercent {
    /// The shares between two readings; from boot when `prev` is `None`.
    #[must_use]
    pub fn between(prev: Option<&CpuCounters>, cur: &CpuCounters) -> Self {
        let zero = CpuCounters::default();
        let prev = prev.unwrap_or(&zero);
        // sysstat's guard: an interval shorter than a jiffy divides by 1.
        let total = cur.total().saturating_sub(prev.total()).max(1) as f64;
        let share = |p: u64, c: u64| c.saturating_sub(p) as f64 / total * 100.0;
        Self {
            user: share(prev.user, cur.user),
            nice: share(prev.nice, cur.nice),
            system: share(
                prev.system + prev.irq + prev.softirq,
                cur.system + cur.irq + cur.softirq,
            ),
            iowait: share(prev.iowait, cur.iowait),
            steal: share(prev.steal, cur.steal),
            idle: share(prev.idle, cur.idle),
        }
    }

    /// The values in sysstat's column order.
    #[must_use]
    pub fn values(&self) -> [f64; 6] {
        [
            self.user,
            self.nice,
            self.system,
            self.iowait,
            self.steal,
            self.idle,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  349716 10 46501 47265 2495 100 1220 890 5 0\n\
                        cpu0 177020 0 22589 22628 1299 0 66 443 0 0\nintr 1 2 3\n";

    #[test]
    fn the_aggregate_line_is_parsed() {
        let c = CpuCounters::parse(STAT).unwrap();
        assert_eq!(
            c,
            CpuCounters {
                user: 349_716,
                nice: 10,
                system: 46_501,
                idle: 47_265,
                iowait: 2495,
                irq: 100,
                softirq: 1220,
                steal: 890,
            }
        );
        // An old kernel's four fields.
        let old = CpuCounters::parse("cpu 1 2 3 4\n").unwrap();
        assert_eq!((old.idle, old.steal), (4, 0));
        assert_eq!(CpuCounters::parse("cpu 1 2 x 4\n"), None);
        assert_eq!(CpuCounters::parse("cpu 1 2\n"), None);
        assert_eq!(CpuCounters::parse("cpu0 1 2 3 4\n"), None);
    }

    #[test]
    fn shares_follow_sysstats_formulas() {
        let prev = CpuCounters {
            user: 100,
            nice: 0,
            system: 50,
            idle: 800,
            iowait: 10,
            irq: 5,
            softirq: 5,
            steal: 30,
        };
        let cur = CpuCounters {
            user: 150,
            nice: 10,
            system: 60,
            idle: 900,
            iowait: 20,
            irq: 10,
            softirq: 10,
            steal: 40,
        };
        // Δtotal = 50 + 10 + 10 + 100 + 10 + 5 + 5 + 10 = 200.
        let p = CpuPercent::between(Some(&prev), &cur);
        assert_eq!(p.values(), [25.0, 5.0, 10.0, 5.0, 5.0, 50.0]);
        // Since boot: over the whole counters.
        let boot = CpuPercent::between(None, &prev);
        assert!((boot.idle - 80.0).abs() < 1e-9, "{boot:?}");
        // Idle going backwards (CPU unplugged) is 0, never negative; no time is not NaN.
        let mut back = cur;
        back.idle = 0;
        assert_eq!(CpuPercent::between(Some(&cur), &back).idle, 0.0);
        assert_eq!(CpuPercent::between(Some(&cur), &cur).values(), [0.0; 6]);
    }

    #[test]
    fn this_machine_reads() {
        let c = CpuCounters::read().unwrap();
        assert!(c.total() > 0);
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn any_text_parses_or_is_none_and_shares_stay_in_range(
                text in "\\PC{0,80}",
                fields in proptest::collection::vec(0u64..1u64 << 40, 4..12),
                grow in proptest::collection::vec(0u64..1u64 << 20, 8),
            ) {
                let _ = CpuCounters::parse(&text);
                let line = format!("cpu {}\n", fields.iter().map(u64::to_string).collect::<Vec<_>>().join(" "));
                let prev = CpuCounters::parse(&line).unwrap();
                prop_assert_eq!(prev.user, fields[0]);
                let cur = CpuCounters {
                    user: prev.user + grow[0],
                    nice: prev.nice + grow[1],
                    system: prev.system + grow[2],
                    idle: prev.idle + grow[3],
                    iowait: prev.iowait + grow[4],
                    irq: prev.irq + grow[5],
                    softirq: prev.softirq + grow[6],
                    steal: prev.steal + grow[7],
                };
                let p = CpuPercent::between(Some(&prev), &cur);
                let sum: f64 = p.values().iter().sum();
                prop_assert!(p.values().iter().all(|v| (0.0..=100.0).contains(v)));
                prop_assert!(sum <= 100.0 + 1e-9);
                if grow.iter().any(|g| *g > 0) {
                    prop_assert!((sum - 100.0).abs() < 1e-6, "{}", sum);
                }
            }
        }
    }
}
