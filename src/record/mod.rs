//! The run record: serde DTOs (the public JSON contract), apart from engine types, and the
//! writers (atomic final file, JSON Lines as the run goes). The schema is
//! `assets/schema/run-record.schema.json`; tests validate real records against it.
//!
//! Per direction the names are fio's (`read`/`write` with `iops`, `bw_bytes`, `io_bytes`,
//! `total_ios`, `lat_ns` {`min`, `max`, `mean`, `stddev`, `percentile` {"99.000000": ns}}).
//! Segments and run totals add `lat_ns.histogram` {`le_ns`: [..], `count`: [..]}: the
//! dashboard's log buckets, empty ones left out.

mod device;
mod dto;
mod fleet;
mod load;
pub mod machine;
pub mod monitor;
pub mod monitor_writer;
pub mod output;
pub mod rotate;
mod steady;
mod time;
mod writer;

pub use device::{IostatRow, QueueSettings};
pub use dto::*;
pub use fleet::*;
pub use load::{Loaded, is_monitor_recording_file, load, load_any, load_recording};
pub use machine::{FsRecord, MachineDiskRecord, MachineRecord};
pub use steady::*;
pub use time::rfc3339_utc;
pub use writer::{JsonlWriter, write_atomic};

/// `format` of a run record.
pub const FORMAT: &str = "diskdash-bench";
/// `format` of one JSON Lines interval record.
pub const INTERVAL_FORMAT: &str = "diskdash-bench-interval";
/// Bumped on any incompatible change of either format.
pub const FORMAT_VERSION: u32 = 7;
/// The first format whose `typed_warnings` holds every warning (the buffered run aside).
pub const TYPED_WARNINGS_FORMAT: u32 = 6;

/// What `lat_ns` measures, stated in every record.
pub const LATENCY_DEFINITION: &str = "lat_ns of an I/O runs from the CLOCK_MONOTONIC read just \
before the syscall that submitted it (io_uring_enter, pread, pwrite) to the read just after it \
was reaped: kernel, queue and device time, and time waiting in the completion ring until taken \
(one completion is taken per reap by default, like fio's iodepth_batch_complete_max=1), but \
not the workload's own bookkeeping before submission. One clock read per submit call and one \
per reap, so I/Os submitted together share a start. This is what fio reports as lat. \
sync.lat_ns is the duration of each fsync/fdatasync call, apart from reads and writes.";
