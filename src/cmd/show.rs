//! `diskdash show RUN.json`: a recorded run in the dashboard, until `q`; with `--text`, or when
//! stdout is not a terminal, the report its headless run printed (`report::replay`). A fleet
//! record shows as one run whose jobs are the hosts (`fleet::view`), or as the fleet's summary
//! in text. `diskdash show REC.jsonl`: a monitor recording (`--record`) replayed in the monitor
//! dashboard; it has no text summary.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use crate::cli::ShowArgs;

/// Loads the record or recording (the one loader of each, with its size and file-type checks)
/// and shows it.
///
/// # Errors
/// The file cannot be read or is neither a run record nor a monitor recording (usage error),
/// a monitor recording asked for as text, or no terminal for the dashboard.
pub fn run(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let text = args.text || !std::io::stdout().is_terminal();
    if crate::record::is_monitor_recording_file(&args.record) {
        if args.text {
            return Err(crate::error::usage!(
                "show --text: {} is a monitor recording, which has no text summary; `diskdash \
                 show {}` in a terminal replays it, or read the JSON Lines file itself",
                args.record.display(),
                args.record.display()
            ));
        }
        let recording = crate::record::load_recording(&args.record)?;
        return crate::tui::run_replay(recording);
    }
    if !text {
        let record = crate::fleet::view::load_run(&args.record)?;
        return crate::tui::run_show(record);
    }
    let path = args.record.display().to_string();
    let replayed = match crate::record::load_any(&args.record)? {
        crate::record::Loaded::Run(record) => crate::report::replay::run_text(&record, &path)?,
        crate::record::Loaded::Fleet(fleet) => crate::report::replay::Replayed {
            text: crate::report::replay::fleet_text(&fleet, &path),
            note: None,
        },
    };
    if let Some(note) = &replayed.note {
        eprintln!("{note}");
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(replayed.text.as_bytes());
    let _ = out.flush();
    Ok(ExitCode::SUCCESS)
}
