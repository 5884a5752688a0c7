//! `diskdash`: parse, run, print one error line, set the exit code.

use std::process::ExitCode;

use clap::Parser;
use diskdash::cli::{Cli, ParseFailure, parse_failure};
use diskdash::error::{exit_code, one_line};

/// The command line as text (clap itself accepts arguments that are not UTF-8).
fn argv_lossy() -> Vec<String> {
    std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => match parse_failure(&err, &argv_lossy()) {
            ParseFailure::Display => err.exit(),
            ParseFailure::Usage(line) => {
                eprintln!("error: {line}");
                return ExitCode::from(2);
            }
        },
    };
    match diskdash::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {}", one_line(&format!("{err:#}")));
            ExitCode::from(exit_code(&err))
        }
    }
}
