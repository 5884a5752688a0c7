//! `diskdash info [PATH|DEVICE]... [--json]`: the disk behind each argument (every disk with
//! media when there is none), printed as text or one JSON document.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;

use crate::cli::InfoArgs;
use crate::monitor::device;
use crate::monitor::info::{DiskInfo, all_disks};
use crate::report::info::text;

/// The JSON document of `diskdash info --json`.
#[derive(Debug, Serialize)]
pub struct InfoReport {
    pub disks: Vec<DiskInfo>,
}

/// Runs `diskdash info`.
///
/// # Errors
/// A usage error (exit 2) naming an argument that is no device and no path on one.
pub fn run(args: &InfoArgs) -> anyhow::Result<ExitCode> {
    let report = InfoReport {
        disks: gather(args)?,
    };
    let out = if args.json {
        let mut s = serde_json::to_string_pretty(&report)?;
        s.push('\n');
        s
    } else {
        text(&report.disks)
    };
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e).context("writing to stdout"),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// One [`DiskInfo`] per argument, or per disk with media (size > 0: attached loop devices,
/// configured zram, drives with a medium) when there is no argument.
///
/// # Errors
/// As [`run`].
pub fn gather(args: &InfoArgs) -> anyhow::Result<Vec<DiskInfo>> {
    if args.targets.is_empty() {
        return Ok(all_disks()
            .iter()
            .filter_map(|name| device::resolve_name(name))
            .map(|chain| DiskInfo::gather(&chain, None))
            .filter(|info| info.size_bytes.unwrap_or(0) > 0)
            .collect());
    }
    args.targets
        .iter()
        .map(|target| {
            let arg = target.to_string_lossy();
            let chain = device::resolve_arg(&arg)?;
            Ok(DiskInfo::gather(&chain, Some(&arg)))
        })
        .collect()
}
