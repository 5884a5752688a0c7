//! `diskdash fio ARGS...`: fio's job files and command line into a plan (`crate::fio`); the
//! notes on stderr; `--help`, `--parse-only` and `--showcmd` print and exit 0, anything else
//! runs (`fio_run`).

use std::io::Write;
use std::process::ExitCode;

use crate::bench::spec::MachineLimits;
use crate::cli::FioArgs;

/// Loads the invocation and prints, or runs it.
///
/// # Errors
/// The usage error of a bad job file or option (exit 2), or the run's error.
pub fn run(args: &FioArgs) -> anyhow::Result<ExitCode> {
    run_as(args, None)
}

/// `fio`, or `fio` as a fleet's remote side (see `fleet_remote`).
pub(crate) fn run_as(
    args: &FioArgs,
    remote: Option<&super::fleet_remote::Remote>,
) -> anyhow::Result<ExitCode> {
    if args.args.iter().any(|a| a == "--help" || a == "-h") {
        print(&crate::fio::show::help());
        return Ok(ExitCode::SUCCESS);
    }
    let env = |name: &str| std::env::var(name).ok();
    let invocation = crate::fio::load(&args.args, &env, &MachineLimits::detect())?;
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
    if remote.is_some() {
        if invocation.parse_only || invocation.showcmd {
            return Err(crate::usage!(
                "--parse-only/--showcmd print and run nothing; run them without fleet"
            ));
        }
        super::fleet_remote::refuse_stdout_outputs(
            invocation.diskdash.json.as_deref(),
            invocation.diskdash.jsonl.as_deref(),
        )?;
    }
    crate::cmd::fio_run::run_as(invocation, remote)
}

fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
