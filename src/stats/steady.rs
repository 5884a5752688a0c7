//! The configuration of steady state: the criterion (`X:LIMIT`, `X_slope:LIMIT`, with `%`),
//! the window and the ramp, as a job option gives them. The tracker that judges a run against
//! it is [`crate::analysis::steady`].

use std::fmt;
use std::time::Duration;

use crate::record::SteadyJobRecord;

/// What a criterion measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// I/Os completed per second (reads and writes).
    Iops,
    /// Bytes per second (reads and writes).
    Bw,
    /// Mean completion latency of the sample's I/Os, ns.
    Lat,
}

impl Metric {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Iops => "iops",
            Self::Bw => "bw",
            Self::Lat => "lat",
        }
    }
}

/// A criterion and its limit: `iops_slope:0.1%`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Criterion {
    pub metric: Metric,
    /// Judge the least-squares slope (else the maximum deviation from the mean).
    pub slope: bool,
    /// The limit: in the metric's unit (per second for a slope: IOPS/s, B/s per s, ns/s), or a
    /// percentage of the window's mean when `pct`.
    pub limit: f64,
    pub pct: bool,
}

/// Why a criterion's text is not one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CriterionError {
    /// Not `NAME:LIMIT`, or an unknown name.
    Syntax,
    /// The limit is not a number above zero (or a size / duration for absolute bw / lat).
    Limit,
}

impl Criterion {
    /// fio's default criterion (`steadystate=iops_slope:0.01%`).
    pub const FIO_DEFAULT: Self = Self {
        metric: Metric::Iops,
        slope: true,
        limit: 0.01,
        pct: true,
    };

    /// Parses `iops|iops_slope|bw|bw_slope|lat|lat_slope:LIMIT[%]`. An absolute bw limit may
    /// carry a size unit (`bw:10M`, bytes/s; a bare number is bytes/s as in fio); an absolute
    /// lat limit needs a time unit (`lat:50us`).
    ///
    /// # Errors
    /// [`CriterionError`] saying which part is wrong.
    pub fn parse(text: &str) -> Result<Self, CriterionError> {
        let (name, limit) = text.trim().split_once(':').ok_or(CriterionError::Syntax)?;
        let (metric, slope) = match name.trim() {
            "iops" => (Metric::Iops, false),
            "iops_slope" => (Metric::Iops, true),
            "bw" => (Metric::Bw, false),
            "bw_slope" => (Metric::Bw, true),
            "lat" => (Metric::Lat, false),
            "lat_slope" => (Metric::Lat, true),
            _ => return Err(CriterionError::Syntax),
        };
        let limit = limit.trim();
        let (number, pct) = match limit.strip_suffix('%') {
            Some(number) => (number.trim(), true),
            None => (limit, false),
        };
        let value = if pct {
            number.parse::<f64>().ok()
        } else {
            match metric {
                Metric::Iops => number.parse::<f64>().ok(),
                Metric::Bw => number
                    .parse::<f64>()
                    .ok()
                    .or_else(|| crate::units::parse_size_bytes(number).map(|b| b as f64)),
                Metric::Lat => {
                    if number.parse::<f64>().is_ok() {
                        None
                    } else {
                        crate::units::parse_duration(number)
                            .ok()
                            .map(|d| d.as_nanos() as f64)
                    }
                }
            }
        };
        match value {
            Some(limit) if limit.is_finite() && limit > 0.0 => Ok(Self {
                metric,
                slope,
                limit,
                pct,
            }),
            _ => Err(CriterionError::Limit),
        }
    }

    /// The criterion's name: `iops_slope`.
    #[must_use]
    pub fn name(&self) -> String {
        format!(
            "{}{}",
            self.metric.as_str(),
            if self.slope { "_slope" } else { "" }
        )
    }

    /// fio's `ss` string in its JSON: `iops_slope:0.100000%`.
    #[must_use]
    pub fn fio_text(&self) -> String {
        format!(
            "{}:{:.6}{}",
            self.name(),
            self.limit,
            if self.pct { "%" } else { "" }
        )
    }
}

impl fmt::Display for Criterion {
    /// As written back to the validator: `iops_slope:0.1%`, `bw:1048576`, `lat:50000ns`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let limit = self.limit;
        match (self.pct, self.metric) {
            (true, _) => write!(f, "{}:{limit}%", self.name()),
            (false, Metric::Lat) => write!(f, "{}:{}us", self.name(), limit / 1000.0),
            (false, _) => write!(f, "{}:{limit}", self.name()),
        }
    }
}

/// A job's steady-state settings (fio's `ss`, `ss_dur`, `ss_ramp`, and diskdash's
/// `ss_keep_going`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteadyState {
    pub criterion: Criterion,
    /// The window: the last `dur` of samples. Whole seconds, at least 2.
    pub dur: Duration,
    /// Time after the start of the measured window before samples are collected.
    pub ramp: Duration,
    /// Run to the runtime after attaining, flagging every sample that is out of it.
    pub keep_going: bool,
}

impl From<&SteadyState> for SteadyJobRecord {
    fn from(ss: &SteadyState) -> Self {
        Self {
            criterion: ss.criterion.to_string(),
            dur_ns: crate::record::nanos(ss.dur),
            ramp_ns: crate::record::nanos(ss.ramp),
            keep_going: ss.keep_going,
        }
    }
}

/// A criterion's value in its unit: `0.21%`, `35 IOPS/s`, `1.2 MiB/s`, `3.1 us`.
#[must_use]
pub fn criterion_value(criterion: &Criterion, value: f64) -> String {
    if criterion.pct {
        return format!("{value:.2}%");
    }
    let per_s = if criterion.slope { "/s" } else { "" };
    match criterion.metric {
        Metric::Iops => format!("{} IOPS{per_s}", crate::units::format_rate(value)),
        Metric::Bw => format!("{}/s{per_s}", mib(value)),
        Metric::Lat => format!("{}{per_s}", crate::units::format_latency_ns(value)),
    }
}

/// `1.2 MiB`, `3.40 GiB`: a rate in bytes per second, without the `/s`.
#[must_use]
pub fn mib(bytes_per_s: f64) -> String {
    let mib = bytes_per_s / f64::from(1u32 << 20);
    if mib >= 1024.0 {
        format!("{:.2} GiB", mib / 1024.0)
    } else {
        format!("{mib:.1} MiB")
    }
}
