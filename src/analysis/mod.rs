//! What recorded points show, as pure functions returning typed results: a run against
//! another ([`compare`]) and their machines ([`machine`]), a sweep's peaks, gain stops, knee and
//! advice ([`sweep`]), steady state ([`steady`]), the sustained-write cliff ([`cliff`]) and how
//! far a result can be trusted ([`trust`]). Front ends render the
//! sentences; nothing here reads a file, a clock or the terminal.
//!
//! Below the session and the front ends, above the cores: it reads `record`, `stats`, `units`
//! and `values`, never a command, a front end or clap.

pub mod change;
pub mod cliff;
pub mod compare;
pub mod machine;
pub mod points;
pub mod reconcile;
pub mod steady;
pub mod sweep;
pub mod trust;
