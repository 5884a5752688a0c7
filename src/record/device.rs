//! What a record keeps of a device: its `iostat -x` line over a window (sysstat's JSON keys)
//! and its request-queue settings, as `monitor` reads them.

use serde::{Deserialize, Serialize, Serializer};

/// One device's `iostat -x` line. Fields are unrounded; JSON carries two decimals like sysstat's
/// and uses exactly the keys of sysstat's `iostat -x -o JSON` `disk` entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IostatRow {
    #[serde(rename = "disk_device")]
    pub device: String,
    #[serde(rename = "r/s", serialize_with = "two_decimals")]
    pub reads_per_s: f64,
    #[serde(rename = "w/s", serialize_with = "two_decimals")]
    pub writes_per_s: f64,
    #[serde(rename = "d/s", serialize_with = "two_decimals")]
    pub discards_per_s: f64,
    #[serde(rename = "f/s", serialize_with = "two_decimals")]
    pub flushes_per_s: f64,
    #[serde(rename = "rkB/s", serialize_with = "two_decimals")]
    pub read_kb_per_s: f64,
    #[serde(rename = "wkB/s", serialize_with = "two_decimals")]
    pub write_kb_per_s: f64,
    #[serde(rename = "dkB/s", serialize_with = "two_decimals")]
    pub discard_kb_per_s: f64,
    #[serde(rename = "rrqm/s", serialize_with = "two_decimals")]
    pub read_merges_per_s: f64,
    #[serde(rename = "wrqm/s", serialize_with = "two_decimals")]
    pub write_merges_per_s: f64,
    #[serde(rename = "drqm/s", serialize_with = "two_decimals")]
    pub discard_merges_per_s: f64,
    /// `%rrqm`: share of read requests merged before reaching the device.
    #[serde(rename = "rrqm", serialize_with = "two_decimals")]
    pub read_merged_pct: f64,
    #[serde(rename = "wrqm", serialize_with = "two_decimals")]
    pub write_merged_pct: f64,
    #[serde(rename = "drqm", serialize_with = "two_decimals")]
    pub discard_merged_pct: f64,
    /// `r_await`: mean time of a read from queueing to completion.
    #[serde(rename = "r_await", serialize_with = "two_decimals")]
    pub read_await_ms: f64,
    #[serde(rename = "w_await", serialize_with = "two_decimals")]
    pub write_await_ms: f64,
    #[serde(rename = "d_await", serialize_with = "two_decimals")]
    pub discard_await_ms: f64,
    #[serde(rename = "f_await", serialize_with = "two_decimals")]
    pub flush_await_ms: f64,
    /// `rareq-sz`: mean read request size.
    #[serde(rename = "rareq-sz", serialize_with = "two_decimals")]
    pub read_request_kb: f64,
    #[serde(rename = "wareq-sz", serialize_with = "two_decimals")]
    pub write_request_kb: f64,
    #[serde(rename = "dareq-sz", serialize_with = "two_decimals")]
    pub discard_request_kb: f64,
    /// `aqu-sz`: mean number of requests queued or in service.
    #[serde(rename = "aqu-sz", serialize_with = "two_decimals")]
    pub queue_size: f64,
    /// `%util`: share of time with at least one request in flight. Not saturation on devices
    /// that serve requests in parallel (see [`super::sysfs::parallel_util_note`]).
    #[serde(rename = "util", serialize_with = "two_decimals")]
    pub util_pct: f64,
    /// Requests in flight at the end of the interval (diskstats field 9; not in sysstat).
    #[serde(skip)]
    pub in_flight: u64,
    /// A counter went backwards (wrap or device re-created): every column above is 0.
    /// Serialized only when set, so normal output has exactly sysstat's keys.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub counters_wrapped: bool,
}

fn two_decimals<S: Serializer>(value: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((value * 100.0).round() / 100.0)
}

/// The request-queue settings of one whole disk.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct QueueSettings {
    /// Active I/O scheduler (`mq-deadline`, `none`, ...): the bracketed one in `scheduler`.
    pub scheduler: Option<String>,
    /// Every scheduler the kernel offers for this queue.
    pub schedulers_available: Option<Vec<String>>,
    pub nr_requests: Option<u64>,
    pub read_ahead_kb: Option<u64>,
    /// Spinning disk (seeks cost) or not.
    pub rotational: Option<bool>,
    pub logical_block_size: Option<u64>,
    pub physical_block_size: Option<u64>,
    pub minimum_io_size: Option<u64>,
    pub optimal_io_size: Option<u64>,
    pub max_sectors_kb: Option<u64>,
    pub max_hw_sectors_kb: Option<u64>,
    /// `write back` or `write through`.
    pub write_cache: Option<String>,
    /// Forced Unit Access supported.
    pub fua: Option<bool>,
    pub io_poll: Option<bool>,
    /// 0 merges allowed, 1 only simple one-hit merges, 2 none.
    pub nomerges: Option<u8>,
    /// 0 complete anywhere, 1 same CPU group as submitter, 2 the submitting CPU.
    pub rq_affinity: Option<u8>,
    /// Writeback throttling target latency; -1 means the default, 0 disabled.
    pub wbt_lat_usec: Option<i64>,
    /// 0 means the device cannot discard.
    pub discard_max_bytes: Option<u64>,
    /// Hardware dispatch queues (`/sys/block/<disk>/mq/*`); absent on bio-based devices.
    pub hw_queues: Option<u32>,
    /// `none`, `host-aware` or `host-managed`.
    pub zoned: Option<String>,
}
