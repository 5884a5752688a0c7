//! `diskdash fleet`'s pure parts: the host list, the remote command line (one shell word per
//! argument), the merge of the hosts' results (histograms bucket by bucket) and the fleet
//! table, and the live fleet the dashboard reads (`live`). The controller that runs ssh is `cmd::fleet`; the remote side is the same binary
//! with `--fleet-remote` (`cmd::fleet_remote`).

pub mod hosts;
pub mod lines;
pub mod live;
pub mod merge;
pub mod ssh;
pub mod table;
pub mod validate;
pub mod view;

pub use hosts::parse_hosts;
