//! The load generator: validated job spec, target safety checks, engines, workers.

use std::process::ExitCode;

use crate::cli::BenchArgs;

/// `diskdash bench`: headless when `--no-tui` or stdout is not a terminal, else the dashboard.
pub fn run_cli(_args: &BenchArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("bench: not built yet")
}
