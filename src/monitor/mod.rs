//! Device monitor: /proc/diskstats samples, iostat -x formulas, sysfs queue settings,
//! path-to-disk resolution.

use std::process::ExitCode;

use crate::cli::{InfoArgs, IostatArgs};

/// `diskdash iostat`.
pub fn run_iostat(_args: &IostatArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("iostat: not built yet")
}

/// `diskdash info`.
pub fn run_info(_args: &InfoArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("info: not built yet")
}
