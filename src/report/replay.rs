//! `diskdash show --text` (and `show` into a pipe or a file): a record's report as its headless
//! run printed it to a pipe or a file, from the same renderers the commands use.
//!
//! | record                                  | text                                          |
//! |-----------------------------------------|-----------------------------------------------|
//! | a sweep (`sweep` present)               | the sweep table and its foot (`--format table`) |
//! | a mark (`mark` present)                 | the CrystalDiskMark window (`--format table`)  |
//! | a mark written before `mark` was kept   | fio's report of its loops, with a note        |
//! | one job named `bench` in every step  | `diskdash bench`'s summary                    |
//! | any other run (`diskdash fio`)          | fio's normal report (no `group_reporting`)    |
//! | a fleet record                          | the fleet's summary                           |
//!
//! What the record cannot say is taken as the command's default: a sweep or mark run with
//! `--format csv` is laid out as a table, a fio run with `group_reporting` or `percentile_list`
//! per job with fio's default percentiles. The line naming the record (`  record  PATH`) names
//! the file shown.

use crate::record::{FleetRecord, RunRecord};
use crate::values::Pick;

/// What [`run_text`] made of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replayed {
    /// The report, as the headless run wrote it to stdout.
    pub text: String,
    /// A line for stderr when the text is not what the run printed (an older mark record).
    pub note: Option<String>,
}

/// Which command's report a run record gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    Bench,
    Fio,
    Sweep,
    Mark,
}

/// The command that wrote `record`, as far as the record tells.
#[must_use]
pub fn made_by(record: &RunRecord) -> Made {
    if record.sweep.is_some() {
        return Made::Sweep;
    }
    if record.mark.is_some()
        || record
            .notes
            .iter()
            .any(|n| n.starts_with("diskdash mark: "))
    {
        return Made::Mark;
    }
    let bench = !record.steps.is_empty()
        && record
            .steps
            .iter()
            .all(|s| s.jobs.len() <= 1 && s.jobs.iter().all(|j| j.name == "bench"));
    if bench { Made::Bench } else { Made::Fio }
}

/// The report of a run record, `path` being the name it was given by.
///
/// # Errors
/// A sweep record whose pick rule, or a mark record whose flags, no longer validate.
pub fn run_text(record: &RunRecord, path: &str) -> anyhow::Result<Replayed> {
    let plain = |text: String| Replayed { text, note: None };
    Ok(match made_by(record) {
        Made::Bench => {
            let mut text = super::bench::summary(record);
            text.push_str(&format!("  record  {}\n", crate::text::escape(path)));
            plain(text)
        }
        Made::Fio => plain(fio_text(record)),
        Made::Sweep => plain(sweep_text(record)?),
        Made::Mark => match &record.mark {
            Some(flags) => {
                let settings = super::mark::MarkSettings::from_flags(flags)?;
                let summary = super::mark::summarize(record, &settings);
                plain(super::mark::render(
                    &summary,
                    super::mark::MarkFormat::Table,
                ))
            }
            None => Replayed {
                text: fio_text(record),
                note: Some(format!(
                    "note: {} is a diskdash mark record written before records kept mark's \
                     flags: its loops as fio reports them, not the mark window",
                    crate::text::escape(path)
                )),
            },
        },
    })
}

/// The fleet's summary as `diskdash fleet` printed it, `path` being the name it was given by.
#[must_use]
pub fn fleet_text(record: &FleetRecord, path: &str) -> String {
    let mut text = super::fleet::summary(record);
    text.push_str(&format!("  record  {path}\n"));
    text
}

fn fio_text(record: &RunRecord) -> String {
    super::fio::text(
        record,
        &super::fio::FioReport {
            group_reporting: false,
            percentiles: None,
            bins: false,
            given: None,
        },
    )
}

fn sweep_text(record: &RunRecord) -> anyhow::Result<String> {
    let Some(sweep) = &record.sweep else {
        return Ok(String::new());
    };
    let pick = Pick::parse(&sweep.pick)?;
    let rows = super::sweep::table::with_memory(super::sweep::table::rows(record, pick));
    let foot = super::sweep::table::foot(record, &rows, &sweep.analysis);
    Ok(super::sweep::report(
        &rows,
        &sweep.dimensions,
        super::sweep::table::Format::Table,
        None,
        &sweep.analysis,
        &foot,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_names_the_command_that_reports_it() {
        let mut record = crate::stats::fixture::record();
        for step in &mut record.steps {
            step.jobs.truncate(1);
            step.jobs[0].name = "bench".into();
        }
        assert_eq!(made_by(&record), Made::Bench);
        record.steps[0].jobs[0].name = "seq-read".into();
        assert_eq!(made_by(&record), Made::Fio);
        let two_jobs = crate::stats::fixture::record();
        assert_eq!(made_by(&two_jobs), Made::Fio);
        record
            .notes
            .push("diskdash mark: rules: CrystalDiskMark".into());
        assert_eq!(made_by(&record), Made::Mark);
        record.sweep = Some(crate::record::SweepRecord {
            dimensions: vec!["bs".into()],
            loops: 1,
            pick: "best".into(),
            analysis: Vec::new(),
        });
        assert_eq!(made_by(&record), Made::Sweep);
    }

    #[test]
    fn a_bench_record_gets_the_bench_summary_and_its_record_line() {
        let mut record = crate::stats::fixture::record();
        for step in &mut record.steps {
            step.jobs.truncate(1);
            step.jobs[0].name = "bench".into();
        }
        let shown = run_text(&record, "run.json").unwrap();
        let mut want = crate::report::bench::summary(&record);
        want.push_str("  record  run.json\n");
        assert_eq!(
            shown,
            Replayed {
                text: want,
                note: None
            }
        );
    }
}
