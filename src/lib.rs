//! diskdash: a terminal dashboard for Linux disks.
//!
//! Layers, top down (assets/doc/architecture.md): [`cli`] (clap only) and [`cmd`] (one file per
//! subcommand) choose a front end: [`tui`] (the dashboard), [`report`] (text writers) or
//! [`serve`] (the OpenMetrics endpoint).
//! [`session`] runs a [`plan`] and publishes snapshots. The cores never import anything above
//! them: [`bench`] (options -> job, targets, engines, workers), [`monitor`] (/proc/diskstats and
//! sysfs), [`stats`] (histograms, counters), [`record`] (the JSON contract, a leaf). Above the
//! cores and below the session, [`analysis`] reads recorded points and returns typed results.
//!
//! The public surface is [`run`] and the steps `main` takes ([`parse`], [`failed`]). Every
//! module is private, so `dead_code` (warned below; an error under CI's `clippy -D warnings`)
//! sees the whole crate: an item nothing calls is reported, `pub` or not. The `fixtures` feature
//! (on only for the crate's own tests and benches, through its dev-dependency on itself) adds
//! `testing`, the few insides they reach; what its types reach then counts as used, so CI also
//! lints the library without it (`cargo clippy --lib --bins`).

#![warn(dead_code)]

mod analysis;
mod bench;
mod cli;
mod cmd;
mod drive;
mod error;
mod fio;
mod fleet;
mod html;
mod monitor;
mod pinned;
mod plan;
mod record;
mod report;
mod serve;
mod session;
mod stats;
mod sweep;
mod text;
mod trace;
mod tui;
mod units;
mod values;

/// The insides the integration tests and benches reach (never in a release build).
#[cfg(feature = "fixtures")]
pub mod testing;

/// What `main` needs: parse a command line, run it, say why it failed.
pub use cli::{Cli, Parsed, Personality, failed, parse};

use std::process::ExitCode;

use cli::Command;

/// Runs one command line. Errors carry their exit code (see [`error::exit_code`]).
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if cli.command.is_some() && cli.record.record.is_some() {
        return Err(crate::error::usage!(
            "--record before the subcommand records the monitor dashboard, which does not run; \
             for iostat put it after: diskdash iostat INTERVAL --record FILE"
        ));
    }
    if cli.trace
        && let Some(command) = &cli.command
    {
        return Err(crate::error::usage!("{}", trace_before(command)));
    }
    let personality = cli.personality;
    match cli.command {
        None => cmd::monitor::run(&cli.interval, cli.all, cli.trace, &cli.record),
        Some(command) if cli.fleet_remote => cmd::fleet_remote(command),
        Some(Command::Bench(args)) => cmd::bench::run(&args),
        Some(Command::Iostat(args)) => cmd::iostat::run(&args),
        Some(Command::Info(args)) => cmd::info::run(&args),
        Some(Command::Show(args)) => cmd::show::run(&args),
        Some(Command::Compare(args)) => cmd::compare::run(&args),
        Some(Command::Report(args)) => cmd::report::run(&args),
        Some(Command::Serve(args)) => cmd::serve::run(&args),
        Some(Command::Fio(args)) => cmd::fio::run(&args, personality),
        Some(Command::Sweep(args)) => cmd::sweep::run(&args),
        Some(Command::Mark(args)) => cmd::mark::run(&args),
        Some(Command::Fleet(args)) => cmd::fleet::run(&args),
        Some(Command::Generate(args)) => cmd::generate::run(&args),
    }
}

/// Why `diskdash --trace SUBCOMMAND` is refused, and the fix: the top-level `--trace` is the
/// monitor dashboard's, which does not run with a subcommand.
fn trace_before(command: &Command) -> String {
    let (name, traces) = match command {
        Command::Bench(_) => ("bench", true),
        Command::Fio(_) => ("fio", true),
        Command::Sweep(_) => ("sweep", true),
        Command::Mark(_) => ("mark", true),
        Command::Iostat(_) => ("iostat", true),
        Command::Serve(_) => ("serve", true),
        Command::Info(_) => ("info", false),
        Command::Show(_) => ("show", false),
        Command::Compare(_) => ("compare", false),
        Command::Report(_) => ("report", false),
        Command::Fleet(_) => ("fleet", false),
        Command::Generate(_) => ("generate", false),
    };
    let fix = if traces {
        format!("put it after: diskdash {name} --trace ...")
    } else {
        format!("diskdash {name} has no --trace")
    };
    format!("--trace before the subcommand traces the monitor dashboard, which does not run; {fix}")
}
