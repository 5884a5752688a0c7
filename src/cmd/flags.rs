//! Flags shared by commands turned into what the layers below take: `bench`'s workload flags
//! as the validator's options (also read by `fleet` to plan a bench's length), and `--record`
//! with its rotation (the monitor and `iostat`). Not a command.

use crate::bench::options::validate;
use crate::bench::spec::{JobSpec, MachineLimits};
use crate::cli::{BenchArgs, RecordArgs};
use crate::record::monitor_writer::RecordTo;
use crate::record::rotate::Rotation;

/// `--record FILE` with its rotation, validated (the file itself is checked when opened).
///
/// # Errors
/// A usage error for `--record -` or a bad `--record-max` or `--record-keep`.
pub fn record_to(args: &RecordArgs) -> anyhow::Result<Option<RecordTo>> {
    let Some(path) = &args.record else {
        return Ok(None);
    };
    if path.as_os_str() == "-" {
        return Err(crate::error::usage!(
            "--record - : a recording goes to a file (it is appended to and rotated); for JSON \
             on stdout use diskdash iostat -o JSON INTERVAL"
        ));
    }
    Ok(Some(RecordTo {
        path: path.clone(),
        rotation: Rotation::parse(&args.record_max, &args.record_keep)?,
        force: args.force,
        in_use: crate::bench::blockdev::file_in_use,
    }))
}

/// The job the flags describe.
///
/// # Errors
/// The validator's usage error, naming the flag.
pub fn job(args: &BenchArgs, machine: &MachineLimits) -> anyhow::Result<JobSpec> {
    validate(&args.job.options, machine)
}
