//! The record's steady state (fio's `steadystate` object, its field names and types, and what
//! diskdash adds) and the sustained-write curve with its cliff. Built from the pure trackers of
//! `analysis::steady` and `analysis::cliff`, where those conversions live.

use serde::{Deserialize, Serialize};

/// How a job's steady state is configured (part of the record's `job`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyJobRecord {
    /// As given: `iops_slope:0.3%`.
    pub criterion: String,
    pub dur_ns: u64,
    pub ramp_ns: u64,
    pub keep_going: bool,
}

/// fio's `steadystate` (same names and types: `attained` is 0 or 1, `criterion` a string with
/// `%` when the limit is a percentage, `bw` in bytes/s), then diskdash's own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateRecord {
    /// fio's `ss`: `iops_slope:0.300000%`.
    pub ss: String,
    /// The window, seconds.
    pub duration: u64,
    pub attained: u8,
    /// The criterion's value at attainment (or at the last full window): `0.21%`; a slope's
    /// keeps its sign, as fio writes it (`-0.42%`).
    pub criterion: String,
    /// Largest |sample - mean| of that window, in the metric's unit.
    pub max_deviation: f64,
    /// Least-squares slope of that window, the metric's unit per second.
    pub slope: f64,
    pub data: SteadyStateData,
    /// When it was attained, ns since the measured window opened.
    pub attained_at_ns: Option<u64>,
    /// Attaining it ended the job's step (not keep-going).
    pub stopped_run: bool,
    pub keep_going: bool,
    pub ramp_ns: u64,
    /// The length of one sample (whole intervals spanning a second), ns.
    pub sample_ns: u64,
    /// Keep-going: samples out of steady state after it was attained (the first 1000).
    pub departures: Vec<DepartureRecord>,
    pub departure_count: u64,
}

/// fio's `data`: the window's samples and means (`bw` bytes/s), plus latency and times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateData {
    pub bw_mean: u64,
    pub iops_mean: u64,
    /// Mean of the samples' mean latencies, ns.
    pub lat_mean: u64,
    pub iops: Vec<u64>,
    pub bw: Vec<u64>,
    pub lat: Vec<u64>,
    /// Each sample's end, ns since the measured window opened.
    pub t_ns: Vec<u64>,
}

/// A sample out of steady state after it was attained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DepartureRecord {
    pub t_ns: u64,
    /// The criterion's value then, in the criterion's unit (percent when it is a percentage).
    pub criterion: f64,
}

/// Write bandwidth against bytes written, and the cliff.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SustainedWriteRecord {
    /// `--cliff`: percent below the running level that counts as down.
    pub threshold_pct: f64,
    pub written_bytes: u64,
    /// `[GiB written at the end of the span, MiB/s over the span]`, a span per interval
    /// (several merged into one on long runs).
    pub points: Vec<[f64; 2]>,
    pub cliff: Option<CliffRecord>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CliffRecord {
    /// Written when the bandwidth fell.
    pub gib_written: f64,
    pub written_bytes: u64,
    pub t_ns: u64,
    /// The running level before and the mean of the down intervals after, MiB/s.
    pub before_mib_s: f64,
    pub after_mib_s: f64,
}

/// Why a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Its runtime was over.
    Runtime,
    /// Every job moved its bytes (size-based).
    IoSize,
    /// Steady state was attained.
    SteadyState,
    /// Stopped from the dashboard.
    Stopped,
    /// A live change started the next step.
    Changed,
    Interrupted,
    Failed,
}
