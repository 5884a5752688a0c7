//! Device monitor: what the kernel says each block device did and how it is set up.
//!
//! - [`diskstats`]: `/proc/diskstats` samples (one fd kept open, CLOCK_MONOTONIC stamps).
//! - [`cpu`]: `/proc/stat` and sysstat's `avg-cpu` shares.
//! - [`iostat`]: the `iostat -x` columns between two samples, with sysstat's formulas.
//! - [`sampler`]: the one sampler (reader, previous sample, rows between) every front end uses.
//! - [`device`]: the block device, whole disk and stack behind a path or name.
//! - [`sysfs`]: queue settings and the `%util` note for parallel devices.
//! - [`info`]: everything `diskdash info` reports about a disk.
//! - [`machine`]: the record's `machine` (the disk's identity, file system, CPU, kernel).
//!
//! Counter meanings: the kernel's `Documentation/admin-guide/iostats.rst`. The headless front
//! ends (`diskdash iostat`, `diskdash info`) are `crate::cmd` with the text in `crate::report`.

pub(crate) mod cpu;
pub(crate) mod device;
pub mod diskstats;
pub(crate) mod host;
pub(crate) mod info;
pub mod iostat;
pub(crate) mod machine;
mod record;
pub(crate) use record::sample_trace;
pub mod sampler;
pub mod sysfs;
