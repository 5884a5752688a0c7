//! The load generator: options -> validated job spec (`options`, the one validator), target
//! safety checks (`target`, `blockdev`, on descriptors from `crate::pinned`), engines, workers. No front end here: the
//! `bench` command is `cmd::bench`.

pub mod blockdev;
pub mod buffer;
pub mod engine;
pub mod fileset;
pub mod fill;
pub mod flow;
pub mod iolog;
pub mod kinds;
pub mod latency;
pub mod memory;
pub mod options;
pub mod prio;
pub mod randmap;
pub mod rate;
pub mod readback;
pub mod sg;
pub mod spec;
pub mod target;
pub mod verify;
pub mod worker;
pub mod workload;
pub mod zbd;
