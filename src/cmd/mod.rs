//! One file per subcommand: validated input in, the plan built and the report picked, then
//! `crate::drive` runs it. Only this layer (and `cli`) knows clap; the cores below never import
//! it. No command imports another: what two share lives below (`drive`, `report`, `serve`,
//! `fleet`), and the one place that names commands is this dispatcher.

pub mod bench;
pub mod compare;
pub mod fio;
pub mod flags;
pub mod fleet;
pub mod generate;
pub mod info;
pub mod iostat;
pub mod mark;
pub mod monitor;
pub mod report;
pub mod serve;
pub mod show;
pub mod sweep;

use std::process::ExitCode;

use crate::cli::{Command, Personality};
use crate::fleet::remote::{Remote, refuse_stdout_outputs, send_error};
use crate::session::signals::raise_on_interrupt;

/// `diskdash --fleet-remote bench|fio|sweep ...`: runs `command` as a fleet's remote side
/// (`crate::fleet::remote`); an error ends the stream with its error line.
///
/// # Errors
/// A usage error for a command fleet does not run, or the command's own error.
pub fn fleet_remote(command: Command) -> anyhow::Result<ExitCode> {
    let result = fleet_remote_command(command);
    if let Err(err) = &result {
        send_error(err);
    }
    result
}

fn fleet_remote_command(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Bench(args) => {
            refuse_stdout_outputs(args.json.as_deref(), args.jsonl.as_deref())?;
            bench::run_as(&args, Some(&Remote::listen(raise_on_interrupt)?))
        }
        Command::Fio(args) => fio::run_as(
            &args,
            Personality::Diskdash,
            Some(&Remote::listen(raise_on_interrupt)?),
        ),
        Command::Sweep(args) => {
            refuse_stdout_outputs(args.json.as_deref(), args.jsonl.as_deref())?;
            sweep::run_as(&args, Some(&Remote::listen(raise_on_interrupt)?))
        }
        _ => Err(crate::error::usage!(
            "--fleet-remote runs bench, fio or sweep; give one of them after it"
        )),
    }
}
