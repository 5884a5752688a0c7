//! `diskdash`: parse, run, print one error line, set the exit code. Started through a link
//! named `fio`, it is `diskdash fio` with fio's exit codes (`cli::invoked_as`).

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use diskdash::cli::{Cli, ParseFailure, invoked_as, parse_failure};
use diskdash::error::{exit_code, one_line};

/// The command line as text (clap itself accepts arguments that are not UTF-8).
fn argv_lossy(argv: &[OsString]) -> Vec<String> {
    argv.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

fn main() -> ExitCode {
    let (personality, argv) = invoked_as(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => Cli { personality, ..cli },
        Err(err) => match parse_failure(&err, &argv_lossy(&argv)) {
            ParseFailure::Display => err.exit(),
            ParseFailure::Usage(line) => {
                eprintln!("error: {line}");
                return ExitCode::from(personality.exit_code(2));
            }
        },
    };
    match diskdash::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {}", one_line(&format!("{err:#}")));
            ExitCode::from(personality.exit_code(exit_code(&err)))
        }
    }
}
