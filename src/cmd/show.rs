//! `diskdash show RUN.json`: a recorded run in the dashboard, until `q`. A fleet record shows
//! as one run whose jobs are the hosts (`fleet::view`). `diskdash show REC.jsonl`: a monitor
//! recording (`--record`) replayed in the monitor dashboard.

use std::process::ExitCode;

use crate::cli::ShowArgs;

/// Loads the record or recording (the one loader of each, with its size and file-type checks)
/// and shows it.
///
/// # Errors
/// The file cannot be read or is neither a run record nor a monitor recording (usage error),
/// or no terminal.
pub fn run(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    if crate::record::is_monitor_recording_file(&args.record) {
        let recording = crate::record::load_recording(&args.record)?;
        return crate::tui::run_replay(recording);
    }
    let record = crate::fleet::view::load_run(&args.record)?;
    crate::tui::run_show(record)
}
