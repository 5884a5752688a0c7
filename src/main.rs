//! `diskdash`: parse, run, print one error line, set the exit code. Started through a link
//! named `fio`, it is `diskdash fio` with fio's exit codes (`cli::invoked_as`).

use std::process::ExitCode;

use diskdash::{Parsed, failed, parse};

fn main() -> ExitCode {
    let cli = match parse(std::env::args_os().collect()) {
        Parsed::Run(cli) => *cli,
        Parsed::Display(err) => err.exit(),
        Parsed::Refused(line, code) => {
            eprintln!("error: {line}");
            return ExitCode::from(code);
        }
    };
    let personality = cli.personality;
    match diskdash::run(cli) {
        Ok(code) => code,
        Err(err) => {
            let (line, code) = failed(&err, personality);
            eprintln!("error: {line}");
            ExitCode::from(code)
        }
    }
}
