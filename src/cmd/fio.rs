//! `diskdash fio ARGS...`: fio's job files and command line into a plan (`crate::fio`); the
//! notes on stderr; `--help`, `--version`, `--parse-only` and `--showcmd` print and exit 0,
//! `create_only=1` lays out the jobs' files and exits 0, anything else runs (`run`). Started as
//! `fio` (a link, `Personality::Fio`) it is the same but headless, as fio is.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use crate::bench::spec::MachineLimits;
use crate::cli::{FioArgs, Personality};
use crate::fleet::remote::Remote;

mod layout;
mod run;

/// Loads the invocation and prints, or runs it; `personality` says whether the process was
/// started as `diskdash` or as `fio`.
///
/// # Errors
/// The usage error of a bad job file or option (exit 2), or the run's error.
pub fn run(args: &FioArgs, personality: Personality) -> anyhow::Result<ExitCode> {
    run_as(args, personality, None)
}

/// What fio prints instead of running: `--help`/`-h` or `--version`/`-v`, the first given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Display {
    Help,
    Version,
}

fn display(args: &[String]) -> Option<Display> {
    args.iter().find_map(|a| match a.as_str() {
        "--help" | "-h" => Some(Display::Help),
        "--version" | "-v" => Some(Display::Version),
        _ => None,
    })
}

/// fio's `--version` line. As `fio` exactly fio's (`fio-3.33`: the fio whose behaviour is
/// implemented), which fio-plot's bench-fio (`fio-3` in it) and KDiskMark (starts with
/// `fio-`) check; as `diskdash fio` with diskdash's own version after it on the same line.
#[must_use]
pub fn version_line(personality: Personality) -> String {
    let fio = crate::report::fio::FIO_LAYOUT_VERSION;
    match personality {
        Personality::Fio => format!("{fio}\n"),
        Personality::Diskdash | Personality::Iostat => {
            format!("{fio} (diskdash {})\n", env!("CARGO_PKG_VERSION"))
        }
    }
}

/// `fio`, or `fio` as a fleet's remote side (see `crate::fleet::remote`).
pub(crate) fn run_as(
    args: &FioArgs,
    personality: Personality,
    remote: Option<&Remote>,
) -> anyhow::Result<ExitCode> {
    let as_fio = personality == Personality::Fio;
    match display(&args.args) {
        Some(Display::Help) => {
            // fio's help starts with its version line.
            if as_fio {
                print(&version_line(personality));
            }
            print(&crate::fio::show::help());
            return Ok(ExitCode::SUCCESS);
        }
        Some(Display::Version) => {
            print(&version_line(personality));
            return Ok(ExitCode::SUCCESS);
        }
        None => {}
    }
    // fio alone prints its usage, then fails for want of a job (below).
    if as_fio && args.args.is_empty() {
        print(&version_line(personality));
        print(&crate::fio::show::help());
    }
    let env = |name: &str| std::env::var(name).ok();
    let mut invocation = crate::fio::load(&args.args, &env, &MachineLimits::detect())?;
    // fio has no dashboard: as `fio`, headless even in a terminal, as with `--no-tui`.
    invocation.diskdash.no_tui |= as_fio;
    // As fio, stderr carries fio's errors only: diskdash's notes and status lines go into
    // the report, and on stderr only on a terminal or when asked (a fleet's remote side keeps
    // them on its stderr, which the fleet shows).
    let notes_to = match remote {
        Some(_) => NotesTo::Stderr,
        None => notes_to(&env, as_fio, std::io::stderr().is_terminal())?,
    };
    if notes_to == NotesTo::Stderr {
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
    if invocation.create_only {
        if remote.is_some() {
            return Err(crate::error::usage!(
                "create_only=1 lays out files and measures nothing; run it without fleet"
            ));
        }
        return layout::lay_out(&invocation, notes_to);
    }
    if remote.is_some() {
        if invocation.parse_only || invocation.showcmd {
            return Err(crate::error::usage!(
                "--parse-only/--showcmd print and run nothing; run them without fleet"
            ));
        }
        crate::fleet::remote::refuse_stdout_outputs(
            invocation.diskdash.json.as_deref(),
            invocation.diskdash.jsonl.as_deref(),
        )?;
    }
    run::run_as(invocation, remote, notes_to)
}

/// Where `diskdash fio`'s own notes, warnings and status lines go besides the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotesTo {
    /// On stderr as they come (and in the report).
    Stderr,
    /// Only in the report (the JSON's `diskdash` section, the end of the normal text), so
    /// stderr carries what fio's would: its errors, nothing for a clean run.
    Report,
}

/// The environment variable that says where the notes go: `stderr` or `report`.
pub const NOTES_ENV: &str = "DISKDASH_NOTES";

/// [`NOTES_ENV`] when set; else, started as `fio`, stderr on a terminal (a person reads them
/// there, as fio shows its progress line only on a terminal) and the report otherwise (a
/// program that runs fio reads anything on stderr as a failure); as `diskdash fio`, stderr
/// (the report has them too).
///
/// # Errors
/// A usage error for a value other than `stderr` or `report`.
pub(crate) fn notes_to(
    env: &dyn Fn(&str) -> Option<String>,
    as_fio: bool,
    terminal: bool,
) -> anyhow::Result<NotesTo> {
    match env(NOTES_ENV).as_deref() {
        None | Some("") => Ok(if terminal || !as_fio {
            NotesTo::Stderr
        } else {
            NotesTo::Report
        }),
        Some("stderr") => Ok(NotesTo::Stderr),
        Some("report") => Ok(NotesTo::Report),
        Some(other) => Err(crate::error::usage!(
            "{NOTES_ENV}={} (from the environment) is not a place for diskdash's notes; set it \
             to stderr or report, or unset it",
            crate::text::escape(other)
        )),
    }
}

fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_line_is_fio_s_exactly_as_fio_and_names_diskdash_otherwise() {
        assert_eq!(version_line(Personality::Fio), "fio-3.33\n");
        assert_eq!(
            version_line(Personality::Diskdash),
            format!("fio-3.33 (diskdash {})\n", env!("CARGO_PKG_VERSION"))
        );
    }

    #[test]
    fn notes_go_to_stderr_only_on_a_terminal_as_fio_unless_the_environment_says() {
        let unset = |_: &str| None;
        let say =
            |value: &'static str| move |name: &str| (name == NOTES_ENV).then(|| value.to_string());
        // (as fio, terminal, what the environment says, where they go)
        for (as_fio, terminal, want) in [
            (true, false, NotesTo::Report),
            (true, true, NotesTo::Stderr),
            (false, false, NotesTo::Stderr),
            (false, true, NotesTo::Stderr),
        ] {
            assert_eq!(notes_to(&unset, as_fio, terminal).unwrap(), want);
            assert_eq!(notes_to(&say(""), as_fio, terminal).unwrap(), want);
        }
        for as_fio in [true, false] {
            for terminal in [true, false] {
                assert_eq!(
                    notes_to(&say("stderr"), as_fio, terminal).unwrap(),
                    NotesTo::Stderr
                );
                assert_eq!(
                    notes_to(&say("report"), as_fio, terminal).unwrap(),
                    NotesTo::Report
                );
            }
        }
        assert_eq!(
            notes_to(&say("yes"), true, false).unwrap_err().to_string(),
            "DISKDASH_NOTES=yes (from the environment) is not a place for diskdash's notes; set \
             it to stderr or report, or unset it"
        );
    }

    #[test]
    fn help_or_version_the_first_given_as_fio_reads_its_options_in_order() {
        let words = |w: &[&str]| w.iter().map(ToString::to_string).collect::<Vec<_>>();
        let cases: [(&[&str], Option<Display>); 7] = [
            (&["--version"], Some(Display::Version)),
            (&["-v"], Some(Display::Version)),
            (&["--name=a", "--version"], Some(Display::Version)),
            (&["-h", "--version"], Some(Display::Help)),
            (&["--version", "--help"], Some(Display::Version)),
            (&["--name=a", "--rw=read"], None),
            (&[], None),
        ];
        for (args, want) in cases {
            assert_eq!(display(&words(args)), want, "{args:?}");
        }
    }
}
