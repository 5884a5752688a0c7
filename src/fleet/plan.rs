//! A fleet's validated plan: the hosts, the command each runs, ssh's options, and when a
//! running host is declared silent or late. Made from the command line by `cmd::fleet`.

use std::time::Duration;

use crate::fleet::ssh::SshOptions;

/// What a fleet runs on its hosts.
pub const COMMANDS: [&str; 3] = ["bench", "fio", "sweep"];
/// A running host that sends no line (stdout or stderr) for this many intervals, and at least
/// `SILENT_FLOOR`, after any warm-up, is declared silent and its ssh killed.
pub const SILENT_INTERVALS: u32 = 10;
pub const SILENT_FLOOR: Duration = Duration::from_secs(5);
/// A fio job file's `ramp_time` is on the host: the silence allowed after the start covers
/// this much warm-up.
pub const UNKNOWN_RAMP: Duration = Duration::from_secs(60);
/// A run of a known length past its planned end by this much is past its deadline.
pub const DEADLINE_MARGIN: Duration = Duration::from_secs(30);
/// The validated command line.
#[derive(Debug, Clone)]
pub struct FleetPlan {
    pub hosts: Vec<String>,
    /// `bench ...`, `fio ...` or `sweep ...`, as each host runs it (`--allow-destructive`
    /// added when given to fleet).
    pub command: Vec<String>,
    pub destructive: bool,
    pub ready_timeout: Duration,
    pub ssh: SshOptions,
    /// How long each host's run takes from the start, when the command says (a timed bench).
    pub planned: Option<Duration>,
    /// When a running host is silent or past its deadline.
    pub watch: Watch,
}

/// When a running host is declared silent or late, from the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watch {
    /// The status interval the hosts send lines at.
    pub interval: Duration,
    /// Warm-up after the start (and before each point of a sweep) with no interval lines.
    pub ramp: Duration,
    /// `false`: no heartbeat (a size-based run that verifies: its read-back has no lines and
    /// no known length).
    pub heartbeat: bool,
    /// From the start to the record, when the run has a known length and no read-back.
    pub deadline: Option<Duration>,
}

impl Watch {
    /// How long a running host may send nothing.
    #[must_use]
    pub fn silence(&self) -> Duration {
        self.ramp + (self.interval * SILENT_INTERVALS).max(SILENT_FLOOR)
    }

    /// Why a host that started `since` ago and was last heard `quiet` ago is cut off, if it is.
    /// The heartbeat holds until the planned end: a host gone quiet after it (writing its
    /// record, reading back) has the deadline.
    #[must_use]
    pub fn verdict(
        &self,
        planned: Option<Duration>,
        since: Duration,
        quiet: Duration,
    ) -> Option<String> {
        let fmt = crate::units::format_duration;
        // A measured time, rounded for reading (the limits are exact, as given).
        let measured = |d: Duration| format!("{:.1} s", d.as_secs_f64());
        if let Some(deadline) = self.deadline
            && since > deadline
        {
            return Some(format!(
                "still running {} after the start: past its deadline ({} planned + {} margin)",
                measured(since),
                fmt(deadline.saturating_sub(DEADLINE_MARGIN)),
                fmt(DEADLINE_MARGIN)
            ));
        }
        let went_quiet = since.saturating_sub(quiet);
        if self.heartbeat && quiet > self.silence() && planned.is_none_or(|p| went_quiet < p) {
            return Some(format!(
                "sent nothing for {} while running (the limit: {}{} intervals of {}, at least {})",
                measured(quiet),
                if self.ramp.is_zero() {
                    String::new()
                } else {
                    format!("{} warm-up + ", fmt(self.ramp))
                },
                SILENT_INTERVALS,
                fmt(self.interval),
                fmt(SILENT_FLOOR)
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_rounds_what_was_measured_and_keeps_the_limits_exact() {
        let watch = Watch {
            interval: Duration::from_secs(1),
            ramp: Duration::ZERO,
            heartbeat: true,
            deadline: Some(Duration::from_secs(40)),
        };
        let quiet = Duration::from_micros(10_041_145);
        assert_eq!(
            watch
                .verdict(
                    Some(Duration::from_secs(30)),
                    Duration::from_secs(15),
                    quiet
                )
                .as_deref(),
            Some(
                "sent nothing for 10.0 s while running (the limit: 10 intervals of 1s, at least 5s)"
            )
        );
        assert_eq!(
            watch
                .verdict(None, Duration::from_micros(41_250_000), Duration::ZERO)
                .as_deref(),
            Some(
                "still running 41.2 s after the start: past its deadline (10s planned + 30s margin)"
            )
        );
        assert_eq!(
            watch.verdict(None, Duration::from_secs(3), Duration::from_secs(1)),
            None
        );
    }
}
