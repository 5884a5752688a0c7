//! The run record: serde DTOs (the public JSON contract), apart from engine types, and the
//! writers (atomic final file, JSON Lines as the run goes). The schema is
//! `assets/schema/run-record.schema.json`; tests validate real records against it.
//!
//! Per direction the names are fio's (`read`/`write` with `iops`, `bw_bytes`, `io_bytes`,
//! `total_ios`, `lat_ns` {`min`, `max`, `mean`, `stddev`, `percentile` {"99.000000": ns}}).
//! Steps and run totals add `lat_ns.histogram` {`le_ns`: [..], `count`: [..]}: the
//! dashboard's log buckets, empty ones left out.

mod device;
mod dto;
mod fleet;
mod load;
pub(crate) mod machine;
pub(crate) mod monitor;
pub(crate) mod monitor_writer;
pub(crate) mod output;
pub(crate) mod rotate;
mod steady;
mod time;
mod writer;

pub(crate) use device::IostatRow;
pub use device::QueueSettings;
pub use dto::*;
pub(crate) use fleet::*;
pub use load::{Loaded, load_any};
pub(crate) use load::{is_monitor_recording_file, load_recording};
pub(crate) use machine::{FsRecord, MachineDiskRecord, MachineRecord};
pub(crate) use steady::*;
pub(crate) use time::rfc3339_utc;
pub(crate) use writer::JsonlWriter;

/// `format` of a run record.
pub(crate) const FORMAT: &str = "diskdash-bench";
/// `format` of one JSON Lines interval record.
pub(crate) const INTERVAL_FORMAT: &str = "diskdash-bench-interval";
/// Bumped on any incompatible change of either format.
pub(crate) const FORMAT_VERSION: u32 = 7;
/// The first format whose `typed_warnings` holds every warning (the buffered run aside).
pub(crate) const TYPED_WARNINGS_FORMAT: u32 = 6;

/// What `lat_ns` measures, stated in every record.
pub(crate) const LATENCY_DEFINITION: &str = "lat_ns of an I/O runs from the CLOCK_MONOTONIC read just \
before the syscall that submitted it (io_uring_enter, pread, pwrite) to the read just after it \
was reaped: kernel, queue and device time, and time waiting in the completion ring until taken \
(one completion is taken per reap by default, like fio's iodepth_batch_complete_max=1), but \
not the workload's own bookkeeping before submission. One clock read per submit call and one \
per reap, so I/Os submitted together share a start. This is what fio reports as lat. \
sync.lat_ns is the duration of each fsync/fdatasync call, apart from reads and writes.";
