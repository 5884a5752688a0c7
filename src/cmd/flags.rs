//! Flags shared by commands turned into what the layers below take: `bench`'s workload flags
//! as the validator's options (also read by `fleet` to plan a bench's length), and `--record`
//! with its rotation (the monitor and `iostat`). Not a command.

use crate::analysis::trust::TrustLimits;
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

/// The `--trust-*` limits, each over its default.
///
/// # Errors
/// A usage error naming the flag and its value: a duration that is not one, a count or a
/// percentage that is not a number >= 0.
pub fn trust(args: &crate::cli::TrustArgs) -> anyhow::Result<TrustLimits> {
    let mut limits = TrustLimits::default();
    if let Some(text) = &args.trust_min_time {
        let duration = crate::units::parse_duration(text).map_err(|_| {
            crate::error::usage!(
                "--trust-min-time {text:?} is not a duration; use e.g. 1s, 500ms or 10s"
            )
        })?;
        limits.min_elapsed_ns = crate::record::nanos(duration);
    }
    if let Some(text) = &args.trust_min_ios {
        limits.min_ios = text.trim().parse().map_err(|_| {
            crate::error::usage!(
                "--trust-min-ios {text:?} is not a count of I/Os; use a whole number, e.g. 1000"
            )
        })?;
    }
    let percent = |flag: &str, text: &String| {
        text.trim()
            .trim_end_matches('%')
            .parse::<f64>()
            .ok()
            .filter(|p| p.is_finite() && *p >= 0.0)
            .ok_or_else(|| {
                crate::error::usage!(
                    "{flag} {text:?} is not a percentage; use a number >= 0, e.g. 10"
                )
            })
    };
    if let Some(text) = &args.trust_shared_pct {
        limits.shared_pct = percent("--trust-shared-pct", text)?;
    }
    if let Some(text) = &args.trust_spread_pct {
        limits.unstable_pct = percent("--trust-spread-pct", text)?;
    }
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::TrustArgs;

    fn limits(set: impl Fn(&mut TrustArgs)) -> Result<TrustLimits, String> {
        let mut args = TrustArgs::default();
        set(&mut args);
        trust(&args).map_err(|e| e.to_string())
    }

    #[test]
    fn the_trust_flags_set_their_limits_over_the_defaults() {
        assert_eq!(limits(|_| {}).unwrap(), TrustLimits::default());
        let set = limits(|a| {
            a.trust_min_time = Some("3s".into());
            a.trust_min_ios = Some("50".into());
            a.trust_shared_pct = Some("25%".into());
            a.trust_spread_pct = Some("2.5".into());
        })
        .unwrap();
        assert_eq!(
            set,
            TrustLimits {
                min_elapsed_ns: 3_000_000_000,
                min_ios: 50,
                shared_pct: 25.0,
                unstable_pct: 2.5,
            }
        );
    }

    #[test]
    fn a_bad_trust_value_names_the_flag_and_the_fix() {
        assert_eq!(
            limits(|a| a.trust_min_time = Some("soon".into())).unwrap_err(),
            "--trust-min-time \"soon\" is not a duration; use e.g. 1s, 500ms or 10s"
        );
        assert_eq!(
            limits(|a| a.trust_min_ios = Some("-1".into())).unwrap_err(),
            "--trust-min-ios \"-1\" is not a count of I/Os; use a whole number, e.g. 1000"
        );
        assert_eq!(
            limits(|a| a.trust_spread_pct = Some("-5".into())).unwrap_err(),
            "--trust-spread-pct \"-5\" is not a percentage; use a number >= 0, e.g. 10"
        );
    }
}
