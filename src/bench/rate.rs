//! Paced load: fio's `rate`/`rate_iops` with `rate_process`. Each worker (fio's job clone) keeps
//! a schedule per direction; the I/O that is due next is issued at its scheduled time, or at
//! once when the worker is behind (an open loop: a device that stalls falls behind its
//! schedule, and the latency measured from the schedule shows the stall instead of hiding it
//! as fewer samples).
//!
//! The parsing of the option text is here too, so the validator's rules and the pacer's model
//! sit side by side.

use crate::bench::kinds::{Direction, splitmix64};

/// What one direction's cap counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// I/Os per second (`rate_iops`).
    Iops,
    /// Bytes per second (`rate`).
    Bytes,
}

/// How the issue times are spaced (fio's `rate_process`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Process {
    /// Evenly: one I/O every 1/rate seconds.
    Linear,
    /// Exponential gaps with mean 1/rate: arrivals as a Poisson process, as many independent
    /// clients make them.
    Poisson,
}

impl Process {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Linear => "linear",
            Self::Poisson => "poisson",
        }
    }
}

/// The cap of one worker, per direction (`None`: that direction is not paced).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    pub unit: Unit,
    pub read: Option<u64>,
    pub write: Option<u64>,
    pub process: Process,
}

impl RateLimit {
    /// The cap of `direction`, per worker per second (trims are paced as writes).
    #[must_use]
    pub fn of(&self, direction: Direction) -> Option<u64> {
        match direction {
            Direction::Read => self.read,
            Direction::Write | Direction::Trim => self.write,
        }
    }

    /// What the whole job (`numjobs` workers) is asked for, in words: `paced 2.0k IOPS`,
    /// `paced 20.0k read + 5.0k write IOPS`, `paced 100 MiB/s`.
    #[must_use]
    pub fn job_text(&self, numjobs: u32) -> String {
        let total = |cap: u64| cap.saturating_mul(u64::from(numjobs));
        let one = |cap: u64| match self.unit {
            Unit::Iops => crate::units::format_rate(total(cap) as f64),
            Unit::Bytes => format!("{}/s", crate::units::format_bytes(total(cap))),
        };
        let unit = match self.unit {
            Unit::Iops => " IOPS",
            Unit::Bytes => "",
        };
        match (self.read, self.write) {
            (Some(r), Some(w)) if r == w => format!("paced {}{unit}", one(r)),
            (Some(r), Some(w)) => format!("paced {} read + {} write{unit}", one(r), one(w)),
            (Some(r), None) => format!("paced {} read{unit}", one(r)),
            (None, Some(w)) => format!("paced {} write{unit}", one(w)),
            (None, None) => String::new(),
        }
    }

    /// fio's spelling of the caps: `20000`, `20000,5000`, `,5000`, `1048576,`.
    #[must_use]
    pub fn as_text(&self) -> String {
        let one = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
        match (self.read, self.write) {
            (Some(r), Some(w)) if r == w => r.to_string(),
            (read, write) => format!("{},{}", one(read), one(write)),
        }
    }
}

/// Why a rate text was refused (the validator words the message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RateError {
    /// A value that is not a number (IOPS) or a size (bytes).
    NotANumber(String),
    /// A value of zero.
    Zero,
    /// An IOPS value with a size suffix (`20k`): fio reads it as 20 x 1024.
    Suffix(String),
    /// A third value: trims, which diskdash does not issue.
    Trim,
    /// Nothing at all (`,`).
    Empty,
}

/// Parses fio's `READ[,WRITE[,TRIM]]`: one value caps both directions, `N,` only reads, `,W`
/// only writes. IOPS are whole numbers; bytes take size suffixes (`100M`, `512k`) and an
/// optional `/s`.
///
/// # Errors
/// What is wrong, for the validator to word.
pub fn parse_caps(text: &str, unit: Unit) -> Result<(Option<u64>, Option<u64>), RateError> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 || parts.get(2).is_some_and(|t| !t.is_empty()) {
        return Err(RateError::Trim);
    }
    let value = |part: &str| -> Result<Option<u64>, RateError> {
        if part.is_empty() {
            return Ok(None);
        }
        let number = match unit {
            Unit::Iops => match part.parse::<u64>() {
                Ok(n) => n,
                Err(_)
                    if part
                        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                        .parse::<u64>()
                        .is_ok() =>
                {
                    return Err(RateError::Suffix(part.to_string()));
                }
                Err(_) => return Err(RateError::NotANumber(part.to_string())),
            },
            Unit::Bytes => {
                let size = part.strip_suffix("/s").unwrap_or(part);
                crate::units::parse_size_bytes(size)
                    .ok_or_else(|| RateError::NotANumber(part.to_string()))?
            }
        };
        if number == 0 {
            return Err(RateError::Zero);
        }
        Ok(Some(number))
    };
    let read = value(parts[0])?;
    let caps = if parts.len() == 1 {
        (read, read)
    } else {
        (read, value(parts[1])?)
    };
    if caps == (None, None) {
        return Err(RateError::Empty);
    }
    Ok(caps)
}

/// One direction's schedule.
#[derive(Debug, Clone, Copy)]
struct Lane {
    /// Nanoseconds per unit (one I/O, or one byte).
    ns_per_unit: f64,
    /// When the next I/O of this direction is due, ns after the start.
    next_ns: f64,
}

/// A worker's schedule: when the next read and the next write are due.
#[derive(Debug, Clone)]
pub struct Pacer {
    unit: Unit,
    poisson: bool,
    lanes: [Option<Lane>; 2],
    start_ns: u64,
    rng: u64,
}

fn lane_index(direction: Direction) -> usize {
    match direction {
        Direction::Read => 0,
        Direction::Write | Direction::Trim => 1,
    }
}

impl Pacer {
    /// The schedule of one worker; `seed` makes a Poisson schedule repeatable.
    #[must_use]
    pub fn new(limit: &RateLimit, seed: u64) -> Self {
        let lane = |cap: Option<u64>| {
            cap.map(|per_s| Lane {
                ns_per_unit: 1e9 / per_s as f64,
                next_ns: 0.0,
            })
        };
        Self {
            unit: limit.unit,
            poisson: limit.process == Process::Poisson,
            lanes: [lane(limit.read), lane(limit.write)],
            start_ns: 0,
            rng: seed ^ 0xA076_1D64_78BD_642F,
        }
    }

    /// Starts the schedule at `start_ns` (CLOCK_MONOTONIC): the first I/O of each paced
    /// direction is due then.
    pub fn start(&mut self, start_ns: u64) {
        self.start_ns = start_ns;
        for lane in self.lanes.iter_mut().flatten() {
            lane.next_ns = 0.0;
        }
    }

    /// Moves every schedule later by `ns` (a pause).
    pub fn shift(&mut self, ns: u64) {
        self.start_ns = self.start_ns.saturating_add(ns);
    }

    /// When `direction`'s next I/O is due (CLOCK_MONOTONIC ns); `None` if it is not paced.
    #[must_use]
    pub fn due_ns(&self, direction: Direction) -> Option<u64> {
        self.lanes[lane_index(direction)]
            .map(|lane| self.start_ns.saturating_add(lane.next_ns as u64))
    }

    /// Which direction may go at `now_ns`, among those the job does (`reads`, `writes`):
    /// a paced direction once it is due, an unpaced one always; when both may, `mix` picks.
    /// `Err(at)`: none may before `at`.
    ///
    /// # Errors
    /// The time the first of them is due, when none is now.
    pub fn choose(
        &self,
        now_ns: u64,
        reads: bool,
        writes: bool,
        mix: impl FnOnce() -> Direction,
    ) -> Result<Direction, u64> {
        let ready = |direction: Direction| self.due_ns(direction).is_none_or(|at| at <= now_ns);
        let read = reads && ready(Direction::Read);
        let write = writes && ready(Direction::Write);
        match (read, write) {
            (true, true) => Ok(mix()),
            (true, false) => Ok(Direction::Read),
            (false, true) => Ok(Direction::Write),
            (false, false) => {
                let due = |on: bool, d: Direction| if on { self.due_ns(d) } else { None };
                let at = match (due(reads, Direction::Read), due(writes, Direction::Write)) {
                    (Some(r), Some(w)) => r.min(w),
                    (Some(at), None) | (None, Some(at)) => at,
                    (None, None) => now_ns,
                };
                Err(at)
            }
        }
    }

    /// Takes the next slot of `direction` for an I/O of `len_bytes`: returns the time it was
    /// due (the start of its latency from the schedule) and moves the schedule on by one gap
    /// (1/rate, or an exponential draw with that mean). `None` if the direction is not paced.
    pub fn take(&mut self, direction: Direction, len_bytes: u32) -> Option<u64> {
        let due = self.due_ns(direction)?;
        let units = match self.unit {
            Unit::Iops => 1.0,
            Unit::Bytes => f64::from(len_bytes),
        };
        let scale = if self.poisson {
            // -ln(U) with U uniform in (0, 1]: an exponential draw of mean 1.
            let u = ((splitmix64(&mut self.rng) >> 11) + 1) as f64 / (1u64 << 53) as f64;
            -u.ln()
        } else {
            1.0
        };
        if let Some(lane) = self.lanes[lane_index(direction)].as_mut() {
            lane.next_ns += lane.ns_per_unit * units * scale;
        }
        Some(due)
    }
}

/// The share of the asked rate a run must reach to count as delivered.
pub const DELIVERED_SHARE: f64 = 0.99;

/// What a job's paced directions achieved over `elapsed_ns`, against what was asked
/// (`numjobs` workers, each at the cap): one warning per direction that fell short of
/// [`DELIVERED_SHARE`] of it (a Poisson schedule: three standard deviations of its count
/// below the asked, when that is lower). `done` is (ios, bytes) of reads and of writes.
#[must_use]
pub fn shortfalls(
    limit: &RateLimit,
    numjobs: u32,
    iodepth: u32,
    done: [(u64, u64); 2],
    elapsed_ns: u64,
) -> Vec<crate::record::RunWarning> {
    let mut out = Vec::new();
    if elapsed_ns == 0 {
        return out;
    }
    let seconds = elapsed_ns as f64 / 1e9;
    for (direction, name, (ios, bytes)) in [
        (Direction::Read, "read", done[0]),
        (Direction::Write, "write", done[1]),
    ] {
        let Some(cap) = limit.of(direction) else {
            continue;
        };
        let asked = cap.saturating_mul(u64::from(numjobs));
        let did = match limit.unit {
            Unit::Iops => ios,
            Unit::Bytes => bytes,
        };
        let (asked_f, achieved) = (asked as f64, did as f64 / seconds);
        // A Poisson schedule's count over the window varies by its square root: allow three
        // of those before blaming the device.
        let share = match limit.process {
            Process::Linear => DELIVERED_SHARE,
            Process::Poisson => {
                DELIVERED_SHARE.min(1.0 - 3.0 / (asked_f * seconds).max(1.0).sqrt())
            }
        };
        if achieved >= asked_f * share {
            continue;
        }
        out.push(crate::record::RunWarning::RateShortfall {
            job: None,
            direction: name.to_string(),
            unit: match limit.unit {
                Unit::Iops => "iops",
                Unit::Bytes => "bytes",
            }
            .to_string(),
            asked,
            done: did,
            elapsed_ns,
            iodepth,
        });
    }
    out
}

impl crate::record::RateRecord {
    /// The caps as the pacer reads them.
    #[must_use]
    pub fn limit(&self) -> RateLimit {
        RateLimit {
            unit: if self.unit == "bytes" {
                Unit::Bytes
            } else {
                Unit::Iops
            },
            read: self.read,
            write: self.write,
            process: if self.process == "poisson" {
                Process::Poisson
            } else {
                Process::Linear
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn limit(read: Option<u64>, write: Option<u64>, process: Process) -> RateLimit {
        RateLimit {
            unit: Unit::Iops,
            read,
            write,
            process,
        }
    }

    #[test]
    fn caps_read_like_fio() {
        assert_eq!(parse_caps("200", Unit::Iops), Ok((Some(200), Some(200))));
        assert_eq!(
            parse_caps("300,100", Unit::Iops),
            Ok((Some(300), Some(100)))
        );
        assert_eq!(parse_caps(",100", Unit::Iops), Ok((None, Some(100))));
        assert_eq!(parse_caps("100,", Unit::Iops), Ok((Some(100), None)));
        assert_eq!(
            parse_caps("100,100,", Unit::Iops),
            Ok((Some(100), Some(100)))
        );
        assert_eq!(
            parse_caps("1M/s,512k", Unit::Bytes),
            Ok((Some(1 << 20), Some(512 << 10)))
        );
        assert_eq!(parse_caps("0", Unit::Iops), Err(RateError::Zero));
        assert_eq!(parse_caps(",0", Unit::Bytes), Err(RateError::Zero));
        assert_eq!(
            parse_caps("20k", Unit::Iops),
            Err(RateError::Suffix("20k".into()))
        );
        assert_eq!(
            parse_caps("fast", Unit::Iops),
            Err(RateError::NotANumber("fast".into()))
        );
        assert_eq!(parse_caps("1,1,1", Unit::Iops), Err(RateError::Trim));
        assert_eq!(parse_caps(",", Unit::Iops), Err(RateError::Empty));
        assert_eq!(limit(Some(5), Some(5), Process::Linear).as_text(), "5");
        assert_eq!(
            limit(Some(1000), None, Process::Linear).job_text(2),
            "paced 2.0k read IOPS"
        );
        assert_eq!(
            limit(Some(1000), Some(10), Process::Linear).job_text(1),
            "paced 1.0k read + 10 write IOPS"
        );
        assert_eq!(limit(None, Some(5), Process::Linear).as_text(), ",5");
    }

    #[test]
    fn a_linear_schedule_is_evenly_spaced_from_the_start() {
        let mut pacer = Pacer::new(&limit(Some(1000), None, Process::Linear), 1);
        pacer.start(5_000);
        let due: Vec<u64> = (0..4)
            .map(|_| pacer.take(Direction::Read, 4096).unwrap())
            .collect();
        assert_eq!(due, [5_000, 1_005_000, 2_005_000, 3_005_000]);
        assert_eq!(
            pacer.take(Direction::Write, 4096),
            None,
            "writes are not paced"
        );
        pacer.shift(1_000);
        assert_eq!(pacer.due_ns(Direction::Read), Some(4_006_000));
    }

    #[test]
    fn a_byte_rate_spaces_by_length() {
        let mut pacer = Pacer::new(
            &RateLimit {
                unit: Unit::Bytes,
                read: Some(1 << 20),
                write: None,
                process: Process::Linear,
            },
            1,
        );
        pacer.start(0);
        pacer.take(Direction::Read, 1 << 19);
        // Half a MiB at 1 MiB/s: the next is due half a second later.
        assert_eq!(pacer.due_ns(Direction::Read), Some(500_000_000));
    }

    #[test]
    fn the_due_direction_goes_and_an_unpaced_one_goes_at_once() {
        let mut pacer = Pacer::new(&limit(Some(1000), None, Process::Linear), 1);
        pacer.start(0);
        pacer.take(Direction::Read, 4096);
        // Reads are due at 1 ms; writes are not paced, so they go meanwhile.
        assert_eq!(
            pacer.choose(10, true, true, || Direction::Read),
            Ok(Direction::Write)
        );
        assert_eq!(
            pacer.choose(10, true, false, || unreachable!()),
            Err(1_000_000)
        );
        assert_eq!(
            pacer.choose(1_000_000, true, true, || Direction::Read),
            Ok(Direction::Read)
        );
        let mut both = Pacer::new(&limit(Some(1000), Some(10), Process::Linear), 1);
        both.start(0);
        both.take(Direction::Read, 1);
        both.take(Direction::Write, 1);
        assert_eq!(
            both.choose(5, true, true, || unreachable!()),
            Err(1_000_000)
        );
    }

    #[test]
    fn poisson_gaps_have_the_mean_and_spread_of_an_exponential() {
        let mut pacer = Pacer::new(&limit(Some(10_000), None, Process::Poisson), 7);
        pacer.start(0);
        let n = 200_000;
        let mut last = 0;
        let mut gaps = Vec::with_capacity(n);
        for _ in 0..n {
            let due = pacer.take(Direction::Read, 4096).unwrap();
            gaps.push((due - last) as f64);
            last = due;
        }
        gaps.remove(0);
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        // Mean 100 us; an exponential's standard deviation equals its mean.
        assert!((mean - 100_000.0).abs() < 1_000.0, "{mean}");
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((var.sqrt() / mean - 1.0).abs() < 0.02, "{}", var.sqrt());
        // P(gap > mean) = 1/e.
        let over = gaps.iter().filter(|&&g| g > 100_000.0).count() as f64 / gaps.len() as f64;
        assert!((over - (-1.0f64).exp()).abs() < 0.01, "{over}");
    }

    #[test]
    fn a_shortfall_is_named_and_a_delivered_rate_is_not() {
        let cap = limit(Some(1000), Some(500), Process::Linear);
        // Two workers, one second: reads 1990 of 2000 (99.5%), writes 700 of 1000.
        let out: Vec<String> = shortfalls(&cap, 2, 8, [(1990, 0), (700, 0)], 1_000_000_000)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(
            out[0].starts_with(
                "write rate not delivered: asked 1.0k IOPS, achieved 700 IOPS (70.0%)"
            ),
            "{out:?}"
        );
        let bytes = RateLimit {
            unit: Unit::Bytes,
            read: Some(1 << 20),
            write: None,
            process: Process::Linear,
        };
        let out: Vec<String> = shortfalls(&bytes, 1, 1, [(10, 512 << 10), (0, 0)], 1_000_000_000)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(
            out[0].contains("asked 1 MiB/s, achieved 512 KiB/s (50.0%)"),
            "{out:?}"
        );
        assert!(shortfalls(&bytes, 1, 1, [(0, 0), (0, 0)], 0).is_empty());
    }

    proptest! {
        /// Any text: a clean result or an error, never a panic; what parses prints back to
        /// the same caps.
        #[test]
        fn caps_parse_or_refuse(text in "[0-9kKmM,/s ]{0,16}") {
            for unit in [Unit::Iops, Unit::Bytes] {
                if let Ok((read, write)) = parse_caps(&text, unit) {
                    prop_assert!(read.is_some() || write.is_some());
                    prop_assert!(read != Some(0) && write != Some(0));
                    let again = RateLimit { unit, read, write, process: Process::Linear };
                    prop_assert_eq!(parse_caps(&again.as_text(), unit), Ok((read, write)));
                }
            }
        }
    }
}
