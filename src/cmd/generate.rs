//! `diskdash generate`: the manual page (clap_mangen) and the shell completion scripts
//! (clap_complete), both made from `cli::Cli`, the one definition of the command line, so
//! they cannot drift from what the binary parses.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cli, GenerateArgs};

/// What `generate` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generated {
    Man,
    Completion(Shell),
}

pub use crate::cli::GENERATED_NAMES;

impl Generated {
    /// `None` for a name that is not one of [`GENERATED_NAMES`].
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "man" => Self::Man,
            "bash" => Self::Completion(Shell::Bash),
            "zsh" => Self::Completion(Shell::Zsh),
            "fish" => Self::Completion(Shell::Fish),
            "powershell" | "pwsh" => Self::Completion(Shell::PowerShell),
            _ => return None,
        })
    }
}

/// The bytes `generate` prints for `args`.
///
/// # Errors
/// A usage error naming the value and what is taken instead.
pub fn generate(args: &GenerateArgs) -> anyhow::Result<Vec<u8>> {
    let what = Generated::parse(&args.what).ok_or_else(|| {
        crate::error::usage!(
            "generate {:?} is not something diskdash generates; use {}",
            args.what,
            GENERATED_NAMES.join(", ")
        )
    })?;
    let mut cmd = Cli::command();
    // Gives every subcommand its display name (`diskdash-mark`), which its page is titled by.
    cmd.build();
    let mut out = Vec::new();
    match (what, args.subcommand.as_deref()) {
        (Generated::Man, None) => clap_mangen::Man::new(cmd)
            .render(&mut out)
            .context("rendering the manual page")?,
        (Generated::Man, Some(name)) => {
            let sub = cmd.find_subcommand(name).cloned().ok_or_else(|| {
                let names: Vec<&str> = cmd
                    .get_subcommands()
                    .filter(|s| !s.is_hide_set())
                    .map(clap::Command::get_name)
                    .collect();
                crate::error::usage!(
                    "generate man {name:?}: diskdash has no such subcommand; use one of {}",
                    names.join(", ")
                )
            })?;
            clap_mangen::Man::new(sub)
                .render(&mut out)
                .context("rendering the manual page")?;
        }
        (Generated::Completion(shell), None) => {
            let mut shown = visible(&cmd);
            clap_complete::generate(shell, &mut shown, "diskdash", &mut out);
        }
        (Generated::Completion(_), Some(name)) => {
            return Err(crate::error::usage!(
                "generate {} {name:?}: a completion script covers every subcommand; drop \
                 {name:?} (only man takes a subcommand)",
                args.what
            ));
        }
    }
    Ok(out)
}

/// `cmd` (built) without its hidden arguments and subcommands, for the completion scripts:
/// clap_complete offers every argument a command has, hidden or not (`--fleet-remote` is the
/// remote side's, no user's). The help and version flags and the `help` subcommand are copied
/// as built, so none is added again.
fn visible(cmd: &clap::Command) -> clap::Command {
    let shown = |arg: &&clap::Arg| !arg.is_hide_set();
    let mut out = clap::Command::new(cmd.get_name().to_owned())
        .disable_help_flag(true)
        .disable_version_flag(true)
        .disable_help_subcommand(true)
        .visible_aliases(cmd.get_visible_aliases().map(str::to_owned))
        // Positionals are numbered again, in order, over the ones left.
        .args(cmd.get_arguments().filter(shown).map(|arg| {
            if arg.is_positional() {
                arg.clone().index(None)
            } else {
                arg.clone()
            }
        }))
        .subcommands(
            cmd.get_subcommands()
                .filter(|sub| !sub.is_hide_set())
                .map(visible),
        );
    if let Some(about) = cmd.get_about() {
        out = out.about(about.clone());
    }
    if let Some(about) = cmd.get_long_about() {
        out = out.long_about(about.clone());
    }
    if let Some(version) = cmd.get_version() {
        out = out.version(version.to_owned());
    }
    // The groups clap's derive makes of each struct of flags, less the hidden ones.
    for group in cmd.get_groups() {
        let ids: Vec<clap::Id> = group
            .get_args()
            .filter(|id| {
                cmd.get_arguments()
                    .any(|a| a.get_id() == *id && !a.is_hide_set())
            })
            .cloned()
            .collect();
        out = out.group(
            clap::ArgGroup::new(group.get_id().clone())
                .args(ids)
                .multiple(group.clone().is_multiple())
                .required(group.is_required_set()),
        );
    }
    out
}

/// Prints what `args` asks for on stdout.
///
/// # Errors
/// A usage error for an unknown name; writing to stdout failing.
pub fn run(args: &GenerateArgs) -> anyhow::Result<ExitCode> {
    let bytes = generate(args)?;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&bytes).and_then(|()| stdout.flush()) {
        // `diskdash generate man | head` closing the pipe early is not a failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.context("writing to stdout")?,
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(what: &str, subcommand: Option<&str>) -> String {
        let args = GenerateArgs {
            what: what.to_string(),
            subcommand: subcommand.map(str::to_string),
        };
        generate(&args).map_or_else(|e| format!("error: {e}"), |b| String::from_utf8(b).unwrap())
    }

    #[test]
    fn every_shell_names_every_subcommand() {
        let cmd = Cli::command();
        let subcommands: Vec<&str> = cmd.get_subcommands().map(clap::Command::get_name).collect();
        assert!(subcommands.contains(&"mark") && subcommands.contains(&"generate"));
        for shell in &GENERATED_NAMES[1..] {
            let script = text(shell, None);
            assert!(!script.starts_with("error"), "{script}");
            for sub in &subcommands {
                assert!(script.contains(sub), "{shell} lacks {sub}");
            }
        }
    }

    /// The enumerated flags' values, each script as its shell lists them, and no hidden flag.
    #[test]
    fn scripts_offer_enumerated_values_and_no_hidden_flag() {
        // (a flag, the values its completion offers).
        let offered: [(&str, &[&str]); 8] = [
            ("like", &crate::plan::mark::LIKE_NAMES),
            ("pick", &crate::values::PICK_NAMES),
            ("data", &crate::plan::mark::DATA_NAMES),
            ("profile", &crate::plan::mark::PROFILE_NAMES),
            ("mode", &crate::plan::mark::MODE_NAMES),
            ("format", &crate::values::TABLE_FORMAT_NAMES),
            (
                "rw",
                &["read", "write", "randread", "randwrite", "rw", "randrw"],
            ),
            ("ioengine", &["io_uring", "libaio", "psync", "null"]),
        ];
        for shell in ["bash", "zsh", "fish"] {
            let script = text(shell, None);
            for (flag, values) in offered {
                // bash: `--like)` then `COMPREPLY=($(compgen -W "crystaldiskmark kdiskmark"`;
                // zsh: `'--like=[...]:LIKE:(crystaldiskmark kdiskmark)'`; fish: `-l like ...
                // -r -f -a "crystaldiskmark\t''` and `kdiskmark\t''"`, a line each.
                let listed = match shell {
                    "bash" => format!("\"{}\"", values.join(" ")),
                    "zsh" => format!(":({})'", values.join(" ")),
                    _ => format!(
                        "-a \"{}\"",
                        values
                            .iter()
                            .map(|v| format!("{v}\\t''"))
                            .collect::<Vec<_>>()
                            .join("\n")
                    ),
                };
                assert!(
                    script.contains(&listed),
                    "{shell} does not offer {listed} for --{flag}"
                );
            }
            // The shells of `generate` itself (fish completes no positional's values).
            if shell != "fish" {
                assert!(script.contains("man bash zsh fish powershell"), "{shell}");
            }
            for hidden in ["fleet-remote", "stray"] {
                assert!(!script.contains(hidden), "{shell} offers hidden {hidden}");
            }
        }
        // Each enumerated value still parses where the command validates it.
        for name in crate::plan::mark::MODE_NAMES {
            assert!(crate::plan::mark::Mode::parse(name).is_some(), "{name}");
        }
        for name in GENERATED_NAMES {
            assert!(Generated::parse(name).is_some(), "{name}");
        }
    }

    #[test]
    fn the_man_pages_are_roff_titled_by_command() {
        let page = text("man", None);
        assert!(page.contains(".TH diskdash 1"), "{}", &page[..200]);
        assert!(page.contains("SUBCOMMANDS"), "{page}");
        let mark = text("man", Some("mark"));
        assert!(mark.contains(".TH diskdash-mark 1"), "{}", &mark[..200]);
        assert!(mark.contains("\\-\\-profile"), "{mark}");
    }

    #[test]
    fn bad_names_are_named_with_the_fix() {
        assert_eq!(
            text("tcsh", None),
            "error: generate \"tcsh\" is not something diskdash generates; use man, bash, zsh, \
             fish, powershell"
        );
        let missing = text("man", Some("nope"));
        assert!(
            missing.starts_with(
                "error: generate man \"nope\": diskdash has no such subcommand; use one of bench,"
            ),
            "{missing}"
        );
        assert_eq!(
            text("bash", Some("mark")),
            "error: generate bash \"mark\": a completion script covers every subcommand; drop \
             \"mark\" (only man takes a subcommand)"
        );
    }
}
