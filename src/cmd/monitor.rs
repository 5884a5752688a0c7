//! `diskdash` with no subcommand: the monitor dashboard of every disk, sampled every
//! `--interval`.

use std::process::ExitCode;
use std::time::Duration;

use crate::cli::RecordArgs;
use crate::units::Interval;

/// Runs the monitor dashboard; `show_idle` lists the disks that never completed a request too;
/// `trace` traces the block layer of the disks shown (`--trace`).
///
/// # Errors
/// A bad `--interval` (usage error), no terminal, or no `/proc/diskstats`.
pub fn run(
    interval: &str,
    show_idle: bool,
    trace: bool,
    record: &RecordArgs,
) -> anyhow::Result<ExitCode> {
    let interval = parse_interval(interval)?;
    crate::tui::run_monitor(interval, show_idle, trace, super::flags::record_to(record)?)
}

/// Parses the monitor's `--interval` (`1s`, `500ms`, `2m`, `1.5s`, `1h` or bare seconds): the
/// one interval rule of [`Interval`].
///
/// # Errors
/// A usage error naming the value when it is no interval of 10 ms to 24 h.
pub fn parse_interval(text: &str) -> anyhow::Result<Duration> {
    Interval::parse(text)
        .map(Interval::get)
        .map_err(|e| crate::error::usage!("--interval {text:?} {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_parse_with_units() {
        assert_eq!(parse_interval("1s").unwrap(), Duration::from_secs(1));
        assert_eq!(parse_interval("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_interval("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_interval("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_interval("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_interval("1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_interval("24h").unwrap(), Duration::from_secs(86_400));
        for bad in ["0", "-1s", "soon", "", "1ms", "nan", "25h"] {
            let err = parse_interval(bad).unwrap_err();
            assert_eq!(crate::error::exit_code(&err), 2, "{bad}");
            assert!(err.to_string().contains("--interval"), "{err}");
        }
    }
}
