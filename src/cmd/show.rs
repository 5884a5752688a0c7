//! `diskdash show RUN.json`: a recorded run in the dashboard, until `q`. A fleet record shows
//! as one run whose jobs are the hosts (`fleet::view`).

use std::process::ExitCode;

use crate::cli::ShowArgs;

/// Loads the record (the one loader, with its size and file-type checks) and shows it.
///
/// # Errors
/// The file cannot be read or is not a diskdash run record (usage error), or no terminal.
pub fn run(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let record = super::compare::load_run(&args.record)?;
    crate::tui::run_show(record)
}
