//! The load generator: options -> validated job spec (`options`, the one validator), target
//! safety checks (`target`, `blockdev`, on descriptors from `crate::pinned`), engines, workers. No front end here: the
//! `bench` command is `cmd::bench`.

pub(crate) mod blockdev;
pub(crate) mod buffer;
pub(crate) mod engine;
pub(crate) mod fileset;
pub(crate) mod fill;
pub(crate) mod flow;
pub(crate) mod iolog;
pub(crate) mod kinds;
pub(crate) mod latency;
pub(crate) mod memory;
pub mod options;
pub(crate) mod prio;
pub(crate) mod randmap;
pub(crate) mod rate;
pub(crate) mod readback;
pub(crate) mod sg;
pub mod spec;
pub(crate) mod target;
pub mod verify;
pub(crate) mod worker;
pub(crate) mod workload;
pub(crate) mod zbd;
