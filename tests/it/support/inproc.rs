//! Usage errors checked in this process, not by spawning the binary: the command line goes
//! through `main`'s own steps (`diskdash::parse`, `diskdash::run`, `diskdash::failed`)
//! and must be refused before anything runs. What `main` would print on stderr and exit with
//! comes back. A few end-to-end checks per command (the binary spawned) keep `main` itself
//! and the one-line stderr honest.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Output};

use diskdash::testing::bench::MachineLimits;
use diskdash::testing::{error, fio};
use diskdash::{Parsed, Personality, failed, parse};

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

/// Asserts `diskdash ARGS` is a usage error (exit 2; `iostat`'s: 1, as sysstat's) and returns
/// its stderr.
pub fn usage_error(args: &[&str]) -> String {
    let (stderr, code) = refused(args);
    assert_eq!(
        code,
        super::usage_exit_code(args),
        "diskdash {args:?}: {stderr}"
    );
    stderr
}

/// `diskdash fio ARGS --no-tui` as run in `dir`, where ARGS carries `--parse-only`: the
/// invocation is loaded in this process with `testing::fio::load` (what the binary runs) and
/// comes back as the binary's output would: the plan on stdout, `note:` lines and any
/// `error:` line on stderr, the exit code. A job file named relative to `dir` is passed as
/// its absolute path (this process cannot change its working directory while other tests
/// run), and that path is written back as it was given wherever the output shows it.
pub fn fio_parse_only(dir: &Path, args: &[&str]) -> Output {
    assert!(
        args.contains(&"--parse-only"),
        "{args:?} does not parse only"
    );
    // (absolute path, as given) for each job file named relative to `dir`.
    let named: Vec<(String, String)> = args
        .iter()
        .filter(|arg| !arg.starts_with('-') && !Path::new(arg).is_absolute())
        .filter(|arg| dir.join(arg).is_file())
        .map(|arg| (dir.join(arg).display().to_string(), (*arg).to_string()))
        .collect();
    let args: Vec<String> = args
        .iter()
        .map(|arg| {
            named
                .iter()
                .find(|(_, given)| given == arg)
                .map_or_else(|| (*arg).to_string(), |(absolute, _)| absolute.clone())
        })
        .chain(std::iter::once("--no-tui".to_string()))
        .collect();
    let as_given = |text: String| {
        named
            .iter()
            .fold(text, |text, (absolute, given)| {
                text.replace(absolute, given)
            })
            .into_bytes()
    };
    let env = |name: &str| std::env::var(name).ok();
    let (stdout, stderr, code) = match fio::load(&args, &env, &MachineLimits::detect()) {
        Ok(invocation) => {
            assert!(invocation.parse_only, "{args:?} would run");
            let notes: String = invocation
                .notes
                .iter()
                .map(|note| format!("note: {}\n", error::one_line(note)))
                .collect();
            (fio::plan(&invocation), notes, 0)
        }
        Err(err) => {
            let (line, code) = failed(&err, Personality::Diskdash);
            (String::new(), format!("error: {line}\n"), code)
        }
    };
    Output {
        status: ExitStatus::from_raw(i32::from(code) << 8),
        stdout: as_given(stdout),
        stderr: as_given(stderr),
    }
}
