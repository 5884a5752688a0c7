//! diskdash: a terminal dashboard for Linux disks.
//!
//! Three cores that never import a front end: [`bench`] (load generator), [`monitor`]
//! (/proc/diskstats and sysfs), [`record`] (the JSON contract). [`session`] wires them and
//! publishes snapshots; [`tui`] and [`report`] are the two front ends. See `DESIGN.md`.

pub mod bench;
pub mod cli;
pub mod cmd;
pub mod error;
pub mod monitor;
pub mod plan;
pub mod record;
pub mod report;
pub mod session;
pub mod stats;
pub mod tui;

use std::process::ExitCode;

use cli::{Cli, Command};

/// Runs one command line. Errors carry their exit code (see [`error::exit_code`]).
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        None => tui::run_monitor(&cli.interval),
        Some(Command::Bench(args)) => bench::run_cli(&args),
        Some(Command::Iostat(args)) => cmd::iostat::run(&args),
        Some(Command::Info(args)) => cmd::info::run(&args),
        Some(Command::Show(args)) => tui::run_show(&args),
        Some(Command::Compare(args)) => cmd::compare::run(&args),
    }
}
