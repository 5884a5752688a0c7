//! The ratatui dashboard. Reads session snapshots only; never touches the hot path.

pub mod ui;
pub mod view;

use std::process::ExitCode;

use crate::cli::ShowArgs;

/// `diskdash` with no arguments: the monitor dashboard of every disk.
pub fn run_monitor(_interval: &str) -> anyhow::Result<ExitCode> {
    anyhow::bail!("dashboard: not built yet")
}

/// `diskdash show RUN.json`.
pub fn run_show(_args: &ShowArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("show: not built yet")
}
