//! `diskdash bench`: the flags as options (in the order clap defines them; a flag not given
//! keeps the validator's default), validated by the one validator.

use crate::bench::options::{JobOption, Key, validate};
use crate::bench::spec::{JobSpec, MachineLimits};
use crate::cli::BenchArgs;

/// The job the flags describe.
///
/// # Errors
/// The validator's usage error, naming the flag.
pub fn job(args: &BenchArgs, machine: &MachineLimits) -> anyhow::Result<JobSpec> {
    validate(&job_options(args), machine)
}

/// The workload flags of `args` as options.
#[must_use]
pub fn job_options(args: &BenchArgs) -> Vec<JobOption> {
    let given = [
        (Key::Rw, Some(&args.rw)),
        (Key::RwMixRead, Some(&args.rwmixread)),
        (Key::Bs, Some(&args.bs)),
        (Key::Size, args.size.as_ref()),
        (Key::IoDepth, Some(&args.iodepth)),
        (Key::NumJobs, Some(&args.numjobs)),
        (Key::IoEngine, Some(&args.ioengine)),
        (Key::IoDepthBatch, Some(&args.iodepth_batch)),
        (
            Key::IoDepthBatchComplete,
            Some(&args.iodepth_batch_complete),
        ),
        (Key::Fsync, args.fsync.as_ref()),
        (Key::Fdatasync, args.fdatasync.as_ref()),
        (Key::Sync, args.sync.as_ref()),
        (Key::Cpus, args.cpus.as_ref()),
        (Key::Runtime, Some(&args.runtime)),
        (Key::Ramp, Some(&args.ramp)),
        (Key::Interval, Some(&args.interval)),
    ];
    let mut options: Vec<JobOption> = given
        .into_iter()
        .filter_map(|(key, value)| value.map(|v| JobOption::flag(key, v.clone())))
        .collect();
    if args.buffered {
        options.push(JobOption::flag(Key::Direct, "0"));
    }
    options
}
