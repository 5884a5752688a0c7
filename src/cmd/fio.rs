//! `diskdash fio ARGS...`: fio's job files and command line into a plan (`crate::fio`); the
//! notes on stderr; `--help`, `--version`, `--parse-only` and `--showcmd` print and exit 0,
//! `create_only=1` lays out the jobs' files and exits 0, anything else runs (`run`). Started as
//! `fio` (a link, `Personality::Fio`) it is the same but headless, as fio is.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;

use crate::bench::fill::{FillOutcome, fill};
use crate::bench::spec::MachineLimits;
use crate::cli::{FioArgs, Personality};
use crate::fio::FioInvocation;
use crate::fleet::remote::Remote;
use crate::plan::Missing;
use crate::units::format_bytes;

mod run;

/// Loads the invocation and prints, or runs it; `personality` says whether the process was
/// started as `diskdash` or as `fio`.
///
/// # Errors
/// The usage error of a bad job file or option (exit 2), or the run's error.
pub fn run(args: &FioArgs, personality: Personality) -> anyhow::Result<ExitCode> {
    run_as(args, personality, None)
}

/// What fio prints instead of running: `--help`/`-h` or `--version`/`-v`, the first given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Display {
    Help,
    Version,
}

fn display(args: &[String]) -> Option<Display> {
    args.iter().find_map(|a| match a.as_str() {
        "--help" | "-h" => Some(Display::Help),
        "--version" | "-v" => Some(Display::Version),
        _ => None,
    })
}

/// fio's `--version` line. As `fio` exactly fio's (`fio-3.33`: the fio whose behaviour is
/// implemented), which fio-plot's bench-fio (`fio-3` in it) and KDiskMark (starts with
/// `fio-`) check; as `diskdash fio` with diskdash's own version after it on the same line.
#[must_use]
pub fn version_line(personality: Personality) -> String {
    let fio = crate::report::fio::FIO_LAYOUT_VERSION;
    match personality {
        Personality::Fio => format!("{fio}\n"),
        Personality::Diskdash | Personality::Iostat => {
            format!("{fio} (diskdash {})\n", env!("CARGO_PKG_VERSION"))
        }
    }
}

/// `fio`, or `fio` as a fleet's remote side (see `crate::fleet::remote`).
pub(crate) fn run_as(
    args: &FioArgs,
    personality: Personality,
    remote: Option<&Remote>,
) -> anyhow::Result<ExitCode> {
    let as_fio = personality == Personality::Fio;
    match display(&args.args) {
        Some(Display::Help) => {
            // fio's help starts with its version line.
            if as_fio {
                print(&version_line(personality));
            }
            print(&crate::fio::show::help());
            return Ok(ExitCode::SUCCESS);
        }
        Some(Display::Version) => {
            print(&version_line(personality));
            return Ok(ExitCode::SUCCESS);
        }
        None => {}
    }
    // fio alone prints its usage, then fails for want of a job (below).
    if as_fio && args.args.is_empty() {
        print(&version_line(personality));
        print(&crate::fio::show::help());
    }
    let env = |name: &str| std::env::var(name).ok();
    let mut invocation = crate::fio::load(&args.args, &env, &MachineLimits::detect())?;
    // fio has no dashboard: as `fio`, headless even in a terminal, as with `--no-tui`.
    invocation.diskdash.no_tui |= as_fio;
    {
        let mut err = std::io::stderr().lock();
        for note in &invocation.notes {
            let _ = writeln!(err, "note: {}", crate::error::one_line(note));
        }
    }
    if (invocation.parse_only || invocation.showcmd) && remote.is_none() {
        if invocation.parse_only {
            print(&crate::fio::show::plan(&invocation));
        }
        if invocation.showcmd {
            print(&crate::fio::show::commands(&invocation));
        }
        return Ok(ExitCode::SUCCESS);
    }
    if invocation.create_only {
        if remote.is_some() {
            return Err(crate::error::usage!(
                "create_only=1 lays out files and measures nothing; run it without fleet"
            ));
        }
        return lay_out(&invocation);
    }
    if remote.is_some() {
        if invocation.parse_only || invocation.showcmd {
            return Err(crate::error::usage!(
                "--parse-only/--showcmd print and run nothing; run them without fleet"
            ));
        }
        crate::fleet::remote::refuse_stdout_outputs(
            invocation.diskdash.json.as_deref(),
            invocation.diskdash.jsonl.as_deref(),
        )?;
    }
    run::run_as(invocation, remote)
}

/// fio's `create_only=1`: the setup phase alone. Each job's missing file is created and
/// written with data (as fio lays a file out before its job), the file stays, and nothing is
/// measured; a file already there is left as it is. A layout that fails or is interrupted
/// removes the file it created. One line per file on stderr.
fn lay_out(invocation: &FioInvocation) -> anyhow::Result<ExitCode> {
    let interrupt = Arc::new(AtomicBool::new(false));
    crate::session::signals::raise_on_interrupt(&interrupt)?;
    let mut err = std::io::stderr().lock();
    for job in invocation.plan.steps.iter().flat_map(|s| &s.jobs) {
        let Some(path) = &job.target else {
            let _ = writeln!(err, "create_only: job {}: no file to lay out", job.name);
            continue;
        };
        if !matches!(job.missing, Missing::Create { .. }) || std::fs::symlink_metadata(path).is_ok()
        {
            let _ = writeln!(
                err,
                "create_only: job {}: {} exists; left as it is",
                job.name,
                path.display()
            );
            continue;
        }
        let mut target = crate::bench::target::create(&job.spec, path, false, &job.name)
            .with_context(|| format!("job {}", job.name))?;
        target
            .lay_out()
            .with_context(|| format!("job {}", job.name))?;
        match fill(&target, job.spec.direct, &interrupt, |_, _| {}) {
            Ok(FillOutcome::Done) => {
                // Laid out: from now on the file stays (until now a drop removes it).
                target.keep_created();
                let _ = writeln!(
                    err,
                    "create_only: job {}: laid out {} ({}) with data; nothing measured",
                    job.name,
                    path.display(),
                    format_bytes(target.extent_bytes)
                );
            }
            Ok(FillOutcome::Stopped) => {
                anyhow::bail!(
                    "job {}: interrupted while laying out {}; the partly written file was removed",
                    job.name,
                    path.display()
                );
            }
            Err(fault) => {
                anyhow::bail!("job {}: laying out {}: {fault}", job.name, path.display());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_line_is_fio_s_exactly_as_fio_and_names_diskdash_otherwise() {
        assert_eq!(version_line(Personality::Fio), "fio-3.33\n");
        assert_eq!(
            version_line(Personality::Diskdash),
            format!("fio-3.33 (diskdash {})\n", env!("CARGO_PKG_VERSION"))
        );
    }

    #[test]
    fn help_or_version_the_first_given_as_fio_reads_its_options_in_order() {
        let words = |w: &[&str]| w.iter().map(ToString::to_string).collect::<Vec<_>>();
        let cases: [(&[&str], Option<Display>); 7] = [
            (&["--version"], Some(Display::Version)),
            (&["-v"], Some(Display::Version)),
            (&["--name=a", "--version"], Some(Display::Version)),
            (&["-h", "--version"], Some(Display::Help)),
            (&["--version", "--help"], Some(Display::Version)),
            (&["--name=a", "--rw=read"], None),
            (&[], None),
        ];
        for (args, want) in cases {
            assert_eq!(display(&words(args)), want, "{args:?}");
        }
    }
}
