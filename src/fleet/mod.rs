//! `diskdash fleet` below its command: the host list, the plan (`plan`), the remote command
//! line (one shell word per argument), the binary copied to hosts without one (`copy`), the
//! merge of the hosts' results (histograms bucket by bucket) and the fleet table, and the live
//! fleet the dashboard reads (`live`). The controller is a pure fold here: the line protocol
//! (`protocol`), each host's state (`host`) and the fleet's (`control`), events and the time in,
//! actions out; `cmd::fleet` runs ssh at its edge. The remote side is the same binary with
//! `--fleet-remote` (`remote`, dispatched by `cmd`).

pub mod control;
pub mod copy;
pub mod host;
pub mod hosts;
pub mod lines;
pub mod live;
pub mod merge;
pub mod plan;
pub mod protocol;
pub mod remote;
pub mod ssh;
pub mod table;
pub mod validate;
pub mod view;

pub use hosts::parse_hosts;
