//! The fleet table's data: one row per host and the fleet's totals, for one interval
//! (headless status) or the whole run (summary). Rates are over the window the table names;
//! the totals' percentiles come from the hosts' histograms merged. `report::fleet::table`
//! renders it.

/// One row: a host, or the fleet.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    pub name: String,
    /// `ready`, `running`, `done`, `failed`, ...
    pub state: String,
    /// The host sent results for the window (otherwise its numbers show as `-`).
    pub measured: bool,
    /// Reads, writes and trims together, per second over the window.
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// Reads, writes and trims together, from the (merged) histogram; `None`: no I/O.
    pub p50_ns: Option<u64>,
    pub p99_ns: Option<u64>,
    /// The device's %util over the window, when known (the fleet row: the busiest host).
    pub util_pct: Option<f64>,
    /// Why the host failed.
    pub error: Option<String>,
}
