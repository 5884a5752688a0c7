//! Flags shared by commands turned into what the layers below take: `bench`'s workload flags
//! as the validator's options (also read by `fleet` to plan a bench's length), and `--record`
//! with its rotation (the monitor and `iostat`). Not a command.

use crate::bench::options::{JobOption, Key, validate};
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
        return Err(crate::usage!(
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
        (Key::IoSize, args.io_size.as_ref()),
        (Key::RandomDistribution, args.random_distribution.as_ref()),
        (Key::NoRandomMap, args.norandommap.as_ref()),
        (Key::RandomGenerator, args.random_generator.as_ref()),
        (Key::Invalidate, args.invalidate.as_ref()),
        (Key::FadviseHint, args.fadvise_hint.as_ref()),
        (Key::IoMem, args.iomem.as_ref()),
        (Key::BsSplit, args.bssplit.as_ref()),
        (Key::Verify, args.verify.as_ref()),
        (Key::VerifyOnly, args.verify_only.as_ref()),
        (Key::VerifyFatal, args.verify_fatal.as_ref()),
        (Key::Hipri, args.hipri.as_ref()),
        (Key::SqThreadPoll, args.sqthread_poll.as_ref()),
        (Key::SqThreadPollCpu, args.sqthread_poll_cpu.as_ref()),
        (Key::FixedBufs, args.fixedbufs.as_ref()),
        (Key::RegisterFiles, args.registerfiles.as_ref()),
        (Key::NonVectored, args.nonvectored.as_ref()),
        (Key::RateIops, args.rate_iops.as_ref()),
        (Key::Rate, args.rate.as_ref()),
        (Key::RateProcess, args.rate_process.as_ref()),
    ];
    let mut options: Vec<JobOption> = given
        .into_iter()
        .filter_map(|(key, value)| value.map(|v| JobOption::flag(key, v.clone())))
        .collect();
    if args.buffered {
        options.push(JobOption::flag(Key::Direct, "0"));
    }
    options.extend(args.steady.options());
    options
}
