//! The fleet record (`diskdash fleet --json`): each host's own record as it sent it, and the
//! fleet's aggregate, whose latency percentiles come from the hosts' histograms merged bucket
//! by bucket (never from averaging percentiles). Also the remote side's own lines: ready,
//! warning and error.

use serde::{Deserialize, Serialize};

use super::{DirectionRecord, FORMAT_VERSION, RunRecord, RunStatus, SyncRecord};

/// `format` of a fleet record.
pub const FLEET_FORMAT: &str = "diskdash-fleet";
/// `format` of the line a remote run writes on `--jsonl` when its targets are prepared and it
/// waits for the start (`diskdash --fleet-remote`).
pub const READY_FORMAT: &str = "diskdash-bench-ready";

/// `format` of a line a remote run writes on `--jsonl` for each warning, as it comes
/// (`diskdash --fleet-remote`).
pub const WARNING_FORMAT: &str = "diskdash-bench-warning";
/// `format` of the line a remote run writes last when it ends with an error
/// (`diskdash --fleet-remote`).
pub const ERROR_FORMAT: &str = "diskdash-bench-error";

/// A warning of a remote run, typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarningLine {
    pub format: String,
    pub format_version: u32,
    pub warning: super::RunWarning,
}

impl WarningLine {
    #[must_use]
    pub fn new(warning: super::RunWarning) -> Self {
        Self {
            format: WARNING_FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            warning,
        }
    }
}

/// The error a remote run ended with: its one-line message and its exit code (2 a usage
/// error, 1 a runtime failure).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorLine {
    pub format: String,
    pub format_version: u32,
    pub message: String,
    pub exit_code: u8,
}

impl ErrorLine {
    #[must_use]
    pub fn new(message: String, exit_code: u8) -> Self {
        Self {
            format: ERROR_FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            message,
            exit_code,
        }
    }
}

/// The ready line: prepared, waiting for `start` on standard input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadyRecord {
    pub format: String,
    pub format_version: u32,
    /// The first target's working set, prepared (filled when it needed data).
    pub working_set_bytes: u64,
}

impl ReadyRecord {
    #[must_use]
    pub fn new(working_set_bytes: u64) -> Self {
        Self {
            format: READY_FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            working_set_bytes,
        }
    }
}

/// How one host's part ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostStatus {
    Completed,
    /// Stopped on request (Ctrl-C, SIGTERM): its record is complete up to the stop.
    Interrupted,
    /// The run failed there, or the connection dropped: results up to then are kept.
    Failed,
    /// Not ready within `--ready-timeout`: left out before the start, no results.
    NotReady,
}

/// The whole fleet run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FleetRecord {
    pub format: String,
    pub format_version: u32,
    pub diskdash_version: String,
    /// `completed` when every host completed; `interrupted` when stopped; `failed` when a
    /// host failed or was left out.
    pub status: RunStatus,
    pub started_at: String,
    pub ended_at: String,
    /// What each host ran: `bench`, `fio` or `sweep` and its arguments, as given.
    pub command: Vec<String>,
    pub ready_timeout_ns: u64,
    pub all_or_nothing: bool,
    pub hosts: Vec<FleetHostRecord>,
    pub aggregate: FleetAggregate,
}

/// One host.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FleetHostRecord {
    /// As given in HOSTS (an ssh destination).
    pub host: String,
    pub status: HostStatus,
    /// Why it failed or was left out: the remote error line, or ssh's.
    pub error: Option<String>,
    /// The results are summed from the interval records that arrived before the host dropped
    /// (no run record came back).
    pub partial: bool,
    /// Interval records received.
    pub intervals: u64,
    /// Measured time, ns (the record's; for a partial host, the received intervals' sum).
    pub elapsed_ns: u64,
    /// The host's totals with their histograms (the record's run totals, or the received
    /// intervals merged).
    pub read: DirectionRecord,
    pub write: DirectionRecord,
    /// Discards (trim, randtrim, trimwrite); absent when none were issued.
    #[serde(default, skip_serializing_if = "DirectionRecord::is_idle")]
    pub trim: DirectionRecord,
    pub sync: SyncRecord,
    /// The host's own run record, as the remote run wrote it.
    pub record: Option<Box<RunRecord>>,
}

/// The fleet as one: counts and rates summed over the hosts that measured (their windows start
/// together), latency from the merged histograms.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FleetAggregate {
    /// Hosts whose results are in the aggregate (completed, interrupted, failed with partial
    /// results).
    pub hosts: u32,
    /// The longest measured time of those hosts, ns.
    pub elapsed_ns: u64,
    pub read: DirectionRecord,
    pub write: DirectionRecord,
    /// Discards (trim, randtrim, trimwrite); absent when none were issued.
    #[serde(default, skip_serializing_if = "DirectionRecord::is_idle")]
    pub trim: DirectionRecord,
    pub sync: SyncRecord,
}
