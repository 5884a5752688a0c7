//! The job flags of `bench`, `sweep` and `mark`, built from the option table
//! ([`crate::bench::options::TABLE`]): one clap argument per row a command offers, and the
//! options given collected in command-line order (`ArgMatches::indices_of`), never by reading
//! argv's text.

use std::marker::PhantomData;

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

use crate::bench::options::{self, Form, JobOption, Key, Offer, Row};

/// Which command's flags a [`JobFlags`] holds.
pub trait JobCommand {
    /// The command's bit in [`Row::offer`].
    const OFFER: Offer;
}

/// `diskdash bench`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bench;
/// `diskdash sweep`: the sweepable rows take lists.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sweep;
/// `diskdash mark`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mark;

impl JobCommand for Bench {
    const OFFER: Offer = options::BENCH;
}
impl JobCommand for Sweep {
    const OFFER: Offer = options::SWEEP;
}
impl JobCommand for Mark {
    const OFFER: Offer = options::MARK;
}

/// The job options given on the command line, in the order given (a later one of a key wins,
/// as in fio). Only what was given: defaults stay in the table, where the validator reads them.
#[derive(Debug, Clone)]
pub struct JobFlags<C> {
    pub options: Vec<JobOption>,
    command: PhantomData<C>,
}

impl<C> Default for JobFlags<C> {
    fn default() -> Self {
        Self {
            options: Vec::new(),
            command: PhantomData,
        }
    }
}

impl<C> JobFlags<C> {
    /// The last value given for `key`.
    #[must_use]
    pub fn get(&self, key: Key) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|o| o.key == key)
            .map(|o| o.value.as_str())
    }
}

/// The clap id of a row's flag: its long name with `_` for `-` (`iodepth_batch`).
fn id(flag: &str) -> String {
    flag.trim_start_matches('-').replace('-', "_")
}

/// The rows `command` offers.
fn rows(command: Offer) -> impl Iterator<Item = &'static Row> {
    options::TABLE.iter().filter(move |r| r.offered(command))
}

/// The help of a row as `command` shows it.
fn help(row: &Row, command: Offer) -> String {
    // As clap's derive shows a doc comment: without its final period.
    let mut text = row.help.trim_end_matches('.').to_string();
    if let Some(per) = row.per_command(command).filter(|p| !p.note.is_empty()) {
        text.push_str(&format!("; {}", per.note));
    }
    if command == options::SWEEP
        && let Some(example) = row.sweep_list
    {
        text.push_str(&format!("; a list sweeps it: {example}"));
    }
    let default = row.default_for(command);
    if !default.is_empty() && !matches!(row.form, Form::Switch(_)) {
        text.push_str(&format!(" [default: {default}]"));
    }
    text
}

/// The clap argument of one row.
fn arg(row: &Row, command: Offer) -> Arg {
    let long = row.flag.trim_start_matches('-');
    let sweep_list = command == options::SWEEP && row.sweep_list.is_some();
    let heading = if sweep_list { "Swept" } else { row.heading };
    let mut arg = Arg::new(id(row.flag))
        .long(long)
        .help(help(row, command))
        .help_heading(heading);
    if let Some(short) = row.short {
        arg = arg.short(short);
    }
    let form = if sweep_list { Form::Value } else { row.form };
    arg = match form {
        Form::Switch(_) => arg.action(ArgAction::SetTrue),
        Form::Value | Form::Optional(_) => {
            let name = if row.value_name.is_empty() {
                id(row.flag).to_uppercase()
            } else {
                row.value_name.to_string()
            };
            let arg = arg
                .action(ArgAction::Set)
                .value_name(name)
                .allow_hyphen_values(row.hyphen_values);
            // A sweep's list (`read,write`) is no single choice: completion offers none there.
            let arg = if row.choices.is_empty() || sweep_list {
                arg
            } else {
                arg.value_parser(super::Offered(row.choices))
                    .hide_possible_values(true)
            };
            match form {
                Form::Optional(missing) => arg.num_args(0..=1).default_missing_value(missing),
                _ => arg,
            }
        }
    };
    arg
}

/// The switch that sets the opposite of a row's (`--buffered`), and its twin's id.
fn negation(row: &Row) -> Option<Arg> {
    let (flag, _, help) = row.negation?;
    Some(
        Arg::new(id(flag))
            .long(flag.trim_start_matches('-'))
            .help(help)
            .help_heading(row.heading)
            .action(ArgAction::SetTrue)
            .overrides_with(id(row.flag)),
    )
}

/// The clap id of `--fio-defaults`.
const FIO_DEFAULTS: &str = "fio_defaults";

/// `--fio-defaults`: fio's defaults for how a job runs ([`options::FIO_DEFAULTS`]).
fn fio_defaults_arg() -> Arg {
    let settings: Vec<String> = options::FIO_DEFAULTS
        .iter()
        .map(|(key, value)| format!("{}={value}", key.fio_name()))
        .collect();
    Arg::new(FIO_DEFAULTS)
        .long("fio-defaults")
        .action(ArgAction::SetTrue)
        .help_heading(options::ENGINE)
        .help(format!(
            "Run as fio's command line would: fio's defaults where this command's differ ({}); \
             flags given still win. fio's random map, invalidate and fadvise_hint are the \
             defaults already",
            settings.join(", ")
        ))
}

/// Whether `command` shows `row`'s negation: only where the row is a switch.
fn negated(row: &Row, command: Offer) -> bool {
    row.negation.is_some() && !(command == options::SWEEP && row.sweep_list.is_some())
}

impl<C: JobCommand> Args for JobFlags<C> {
    fn augment_args(mut cmd: Command) -> Command {
        for row in rows(C::OFFER) {
            let mut arg = arg(row, C::OFFER);
            if negated(row, C::OFFER)
                && let Some((flag, _, _)) = row.negation
            {
                arg = arg.overrides_with(id(flag));
            }
            cmd = cmd.arg(arg);
            if negated(row, C::OFFER)
                && let Some(negation) = negation(row)
            {
                cmd = cmd.arg(negation);
            }
        }
        cmd.arg(fio_defaults_arg())
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl<C: JobCommand> FromArgMatches for JobFlags<C> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = Self::default();
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        let mut given: Vec<(usize, JobOption)> = Vec::new();
        let given_here = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
        for row in rows(C::OFFER) {
            let name = id(row.flag);
            let sweep_list = C::OFFER == options::SWEEP && row.sweep_list.is_some();
            let form = if sweep_list { Form::Value } else { row.form };
            if given_here(&name) {
                match form {
                    Form::Switch(value) => {
                        let index = matches.index_of(&name).unwrap_or(usize::MAX);
                        given.push((index, JobOption::flag(row.key, value)));
                    }
                    Form::Value | Form::Optional(_) => {
                        let values = matches
                            .get_many::<String>(&name)
                            .into_iter()
                            .flatten()
                            .cloned();
                        let indices: Vec<usize> = matches
                            .indices_of(&name)
                            .map(Iterator::collect)
                            .unwrap_or_default();
                        for (n, value) in values.enumerate() {
                            let index = indices.get(n).or(indices.last()).copied();
                            given.push((
                                index.unwrap_or(usize::MAX),
                                JobOption::flag(row.key, value),
                            ));
                        }
                    }
                }
            }
            if negated(row, C::OFFER)
                && let Some((flag, value, _)) = row.negation
                && given_here(&id(flag))
            {
                let index = matches.index_of(&id(flag)).unwrap_or(usize::MAX);
                given.push((index, JobOption::flag(row.key, value)));
            }
        }
        given.sort_by_key(|(index, _)| *index);
        // fio's defaults first, wherever the switch stands: a flag given still wins.
        self.options = if matches.get_flag(FIO_DEFAULTS) {
            options::fio_defaults()
        } else {
            Vec::new()
        };
        self.options
            .extend(given.into_iter().map(|(_, option)| option));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::bench::options::{Key, TABLE};
    use crate::cli::{Cli, Command};

    fn bench(argv: &[&str]) -> Vec<(Key, String)> {
        let cli = Cli::try_parse_from(["diskdash", "bench"].iter().chain(argv)).unwrap();
        let Some(Command::Bench(args)) = cli.command else {
            panic!("not bench")
        };
        args.job
            .options
            .into_iter()
            .map(|o| (o.key, o.value))
            .collect()
    }

    #[test]
    fn options_come_in_command_line_order_and_only_when_given() {
        assert!(bench(&[]).is_empty());
        assert_eq!(
            bench(&[
                "--bs",
                "8k",
                "-q",
                "4",
                "--rw=read",
                "--buffered",
                "--hipri"
            ]),
            [
                (Key::Bs, "8k".into()),
                (Key::IoDepth, "4".into()),
                (Key::Rw, "read".into()),
                (Key::Direct, "0".into()),
                (Key::Hipri, "1".into()),
            ]
        );
        assert_eq!(
            bench(&["--buffered", "--direct", "--ss-keep-going", "--hipri=0"]),
            [
                (Key::Direct, "1".into()),
                (Key::SsKeepGoing, "1".into()),
                (Key::Hipri, "0".into()),
            ]
        );
    }

    #[test]
    fn every_offered_row_is_a_flag_of_its_commands() {
        for (command, offer) in [
            ("bench", super::options::BENCH),
            ("sweep", super::options::SWEEP),
            ("mark", super::options::MARK),
        ] {
            let cli = <Cli as clap::CommandFactory>::command();
            let sub = cli.find_subcommand(command).unwrap();
            for row in TABLE.iter().filter(|r| r.offered(offer)) {
                let long = row.flag.trim_start_matches('-');
                assert!(
                    sub.get_arguments().any(|a| a.get_long() == Some(long)),
                    "{command} lacks {}",
                    row.flag
                );
            }
        }
    }

    #[test]
    fn sweep_lists_keep_their_order() {
        let cli =
            Cli::try_parse_from(["diskdash", "sweep", "-j", "1,2", "--bs", "4k..8k"]).unwrap();
        let Some(Command::Sweep(args)) = cli.command else {
            panic!("not sweep")
        };
        let got: Vec<_> = args
            .job
            .options
            .iter()
            .map(|o| (o.key, o.value.as_str()))
            .collect();
        assert_eq!(got, [(Key::NumJobs, "1,2"), (Key::Bs, "4k..8k")]);
    }
}
