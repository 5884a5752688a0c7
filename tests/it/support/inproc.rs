//! Usage errors checked in this process, not by spawning the binary: the command line goes
//! through `main`'s own steps (`diskdash::cli::parse`, `diskdash::run`, `diskdash::cli::failed`)
//! and must be refused before anything runs. What `main` would print on stderr and exit with
//! comes back. A few end-to-end checks per command (the binary spawned) keep `main` itself
//! and the one-line stderr honest.

use std::ffi::OsString;

use diskdash::cli::{Parsed, failed, parse};

/// `diskdash ARGS`, refused: the stderr `main` prints (`error: LINE\n`) and its exit code.
/// Panics if the command line would print help or run.
pub fn refused(args: &[&str]) -> (String, u8) {
    let argv: Vec<OsString> = std::iter::once("diskdash")
        .chain(args.iter().copied())
        .map(OsString::from)
        .collect();
    match parse(argv) {
        Parsed::Refused(line, code) => (format!("error: {line}\n"), code),
        Parsed::Display(err) => panic!("diskdash {args:?} prints help or version: {err}"),
        Parsed::Run(cli) => {
            let personality = cli.personality;
            match diskdash::run(*cli) {
                Ok(code) => panic!("diskdash {args:?} ran ({code:?}) where it is refused"),
                Err(err) => {
                    let (line, code) = failed(&err, personality);
                    (format!("error: {line}\n"), code)
                }
            }
        }
    }
}

/// Asserts `diskdash ARGS` is a usage error (exit 2) and returns its stderr.
pub fn usage_error(args: &[&str]) -> String {
    let (stderr, code) = refused(args);
    assert_eq!(code, 2, "diskdash {args:?}: {stderr}");
    stderr
}
