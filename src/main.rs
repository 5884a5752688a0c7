//! `diskdash`: parse, run, print one error line, set the exit code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = diskdash::cli::Cli::parse();
    match diskdash::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(diskdash::error::exit_code(&err))
        }
    }
}
