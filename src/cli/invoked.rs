//! Which program the process was started as. A link named `fio` to diskdash makes it fio for
//! the tools that run `fio` from PATH (fio-plot's bench-fio, KDiskMark, PerfKitBenchmarker):
//! `fio ARGS` is read as `diskdash fio ARGS`, with fio's version line and exit codes. A link
//! named `iostat` makes it `diskdash iostat`, which exits as sysstat's iostat does however it
//! was started.

use std::ffi::OsString;
use std::path::Path;

/// The file name that makes the binary fio (`ln -s /usr/bin/diskdash /usr/local/bin/fio`).
pub const FIO_NAME: &str = "fio";

/// The file name that makes the binary sysstat's iostat (`ln -s diskdash iostat`).
pub const IOSTAT_NAME: &str = "iostat";

/// The program the process was started as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Personality {
    /// `diskdash ...`: every subcommand, the project's exit codes.
    #[default]
    Diskdash,
    /// Through a link named `fio`: `diskdash fio ARGS`, always headless (as fio), `--version`
    /// exactly fio's line, and fio's exit code 1 for usage errors.
    Fio,
    /// `diskdash iostat ARGS`, or `iostat ARGS` through a link named `iostat`: sysstat's exit
    /// code 1 for usage errors (its `usage()` exits 1).
    Iostat,
}

impl Personality {
    /// The process's exit code for what diskdash would exit with: fio and sysstat's iostat exit
    /// 1 for a mistake on the command line (or in a job file), where diskdash exits 2; runtime
    /// failures (1) and interrupts (130) are the same for all.
    #[must_use]
    pub fn exit_code(self, diskdash_code: u8) -> u8 {
        match (self, diskdash_code) {
            (Self::Fio | Self::Iostat, 2) => 1,
            (_, code) => code,
        }
    }
}

/// What the command line asks of the process before anything runs (`main`, and the in-process
/// tests of usage errors).
#[derive(Debug)]
pub enum Parsed {
    /// A command line to run (`crate::run`), its personality set.
    Run(Box<super::Cli>),
    /// `--help` or `--version`: clap prints it and exits 0 (`clap::Error::exit`).
    Display(clap::Error),
    /// A usage error: the line to print after `error: ` and the process's exit code.
    Refused(String, u8),
}

/// Parses `argv` (program name first) as `main` does: [`invoked_as`], clap, and a mistake
/// folded into one line ([`super::parse_failure`]).
#[must_use]
pub fn parse(argv: Vec<OsString>) -> Parsed {
    let (personality, argv) = invoked_as(argv);
    // `diskdash iostat ...` answers as sysstat's iostat, as the link does.
    let personality = match argv.get(1) {
        Some(word) if personality == Personality::Diskdash && word == IOSTAT_NAME => {
            Personality::Iostat
        }
        _ => personality,
    };
    match <super::Cli as clap::Parser>::try_parse_from(&argv) {
        Ok(cli) => Parsed::Run(Box::new(super::Cli { personality, ..cli })),
        Err(err) => {
            let lossy: Vec<String> = argv
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            match super::parse_failure(&err, &lossy) {
                super::ParseFailure::Display => Parsed::Display(err),
                super::ParseFailure::Usage(line) => Parsed::Refused(line, personality.exit_code(2)),
            }
        }
    }
}

/// What a run that failed with `err` prints after `error: ` (one line) and exits with.
#[must_use]
pub fn failed(err: &anyhow::Error, personality: Personality) -> (String, u8) {
    (
        crate::error::one_line(&format!("{err:#}")),
        personality.exit_code(crate::error::exit_code(err)),
    )
}

/// `argv` as diskdash parses it, and the program it was started as. An `argv[0]` whose file
/// name is exactly `fio` (a link to diskdash) turns `fio ARGS` into `diskdash fio ARGS`, and
/// one named exactly `iostat` turns `iostat ARGS` into `diskdash iostat ARGS`; any other name
/// (`diskdash`, `fio-3.33`, `diskdash-fio`) leaves `argv` as it is.
#[must_use]
pub fn invoked_as(argv: Vec<OsString>) -> (Personality, Vec<OsString>) {
    let name = argv.first().and_then(|arg0| Path::new(arg0).file_name());
    let (personality, subcommand) = match name {
        Some(name) if name == FIO_NAME => (Personality::Fio, FIO_NAME),
        Some(name) if name == IOSTAT_NAME => (Personality::Iostat, IOSTAT_NAME),
        _ => return (Personality::Diskdash, argv),
    };
    // clap names the program after argv[0] in its messages: they say `diskdash fio`, as the
    // rest of diskdash's texts do.
    let mut rewritten = Vec::with_capacity(argv.len() + 1);
    rewritten.push(OsString::from("diskdash"));
    rewritten.push(OsString::from(subcommand));
    rewritten.extend(argv.into_iter().skip(1));
    (personality, rewritten)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn only_a_program_named_fio_is_fio() {
        // (argv, what follows `diskdash fio` when it is fio; None: unchanged, as diskdash).
        let cases: [(&[&str], Option<&[&str]>); 11] = [
            (&["/usr/bin/fio", "--version"], Some(&["--version"])),
            (&["./fio", "job.fio"], Some(&["job.fio"])),
            (
                &["fio", "--name=a", "--rw=read"],
                Some(&["--name=a", "--rw=read"]),
            ),
            (&["fio"], Some(&[])),
            // `fio fio`: a job file named fio, as fio reads it.
            (&["/opt/x/fio", "fio"], Some(&["fio"])),
            (&["diskdash", "fio", "--version"], None),
            (&["/usr/bin/diskdash"], None),
            (&["fio-3.33", "--version"], None),
            (&["/usr/bin/diskdash-fio"], None),
            (&["FIO"], None),
            (&["/usr/bin/fio/../diskdash"], None),
        ];
        for (argv, fio_args) in cases {
            let want = match fio_args {
                Some(rest) => {
                    let mut words = vec!["diskdash", "fio"];
                    words.extend_from_slice(rest);
                    (Personality::Fio, os(&words))
                }
                None => (Personality::Diskdash, os(argv)),
            };
            assert_eq!(invoked_as(os(argv)), want, "{argv:?}");
        }
        assert_eq!(invoked_as(Vec::new()), (Personality::Diskdash, Vec::new()));
    }

    #[test]
    fn usage_errors_exit_1_as_fio_and_2_as_diskdash() {
        for (code, as_diskdash, as_fio) in [(0, 0, 0), (1, 1, 1), (2, 2, 1), (130, 130, 130)] {
            assert_eq!(Personality::Diskdash.exit_code(code), as_diskdash);
            assert_eq!(Personality::Fio.exit_code(code), as_fio);
            assert_eq!(Personality::Iostat.exit_code(code), as_fio);
        }
    }

    #[test]
    fn a_program_named_iostat_and_diskdash_iostat_answer_as_sysstat() {
        let (personality, argv) = invoked_as(os(&["/usr/local/bin/iostat", "-x", "1", "2"]));
        assert_eq!(personality, Personality::Iostat);
        assert_eq!(argv, os(&["diskdash", "iostat", "-x", "1", "2"]));
        for name in ["IOSTAT", "iostat-12", "diskdash-iostat"] {
            assert_eq!(invoked_as(os(&[name])).0, Personality::Diskdash, "{name}");
        }
        // A usage error exits 1 through the link and as `diskdash iostat`; 2 elsewhere.
        for (argv, code) in [
            (&["iostat", "--bogus"][..], 1),
            (&["diskdash", "iostat", "--bogus"], 1),
            (&["diskdash", "iostat", "-k", "-m"], 1),
            (&["diskdash", "info", "--bogus"], 2),
        ] {
            match parse(os(argv)) {
                Parsed::Refused(_, got) => assert_eq!(got, code, "{argv:?}"),
                Parsed::Run(cli) => {
                    // -k -m parses; its refusal comes from the run, through `failed`.
                    assert_eq!(cli.personality, Personality::Iostat, "{argv:?}");
                    let err = crate::run(*cli).unwrap_err();
                    assert_eq!(failed(&err, Personality::Iostat).1, code, "{argv:?}");
                }
                Parsed::Display(_) => panic!("{argv:?}"),
            }
        }
    }
}
