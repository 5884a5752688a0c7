//! `diskdash report`: one self-contained HTML page (or one SVG chart) of what diskdash records:
//! a run, a fio plan, a sweep, a mark, a fleet, a monitor recording, or several runs compared.
//!
//! Self-contained by construction: a `Content-Security-Policy` of `default-src 'none'` (inline
//! styles and `data:` images only), the charts inline SVG drawn by plotters ([`chart`]), no
//! script. Every text taken from a record goes through [`escape`] (plotters escapes the text
//! it draws itself). Each chart has a name (`--chart NAME`, `--list-charts`); what a record
//! lacks for a chart is said in a note where the chart would be.

pub mod chart;
mod compare;
mod monitor;
mod run;
mod sweep;
pub mod title;

use std::fmt::Write as _;

use crate::record::RunRecord;
use crate::record::monitor::Recording;

/// One input of the report, as loaded.
#[derive(Debug)]
pub enum Input {
    /// A run, fio plan, sweep, mark or fleet record (a fleet seen as one run whose jobs are
    /// its hosts).
    Run {
        path: String,
        record: Box<RunRecord>,
        /// What a fleet's record says beyond its run, when the record is a fleet's.
        fleet: Option<Fleet>,
    },
    /// A monitor recording (`--record`).
    Monitor { path: String, recording: Recording },
}

/// A fleet record's own facts: its hosts' names and what each host ran (`bench ...`).
#[derive(Debug, Clone)]
pub struct Fleet {
    pub hosts: Vec<String>,
    pub command: Vec<String>,
}

/// One chart: its name (`--chart`), its title, and the SVG (or why there is none).
#[derive(Debug, Clone)]
pub struct Figure {
    pub name: String,
    pub title: String,
    pub svg: Result<String, String>,
    /// A line under the chart (what is marked, what the record lacks).
    pub note: Option<String>,
}

/// A part of the page: a heading, a header table, its charts, and HTML of its own (already
/// escaped: tables of findings and verdicts).
#[derive(Debug, Clone, Default)]
pub struct Section {
    pub heading: String,
    pub facts: Vec<(String, String)>,
    pub figures: Vec<Figure>,
    pub html: String,
    pub notes: Vec<String>,
    /// Drawn folded under a `<details>` (a run's own charts after a comparison of runs).
    pub folded: bool,
}

impl Section {
    /// The section as the `n`-th of several records: its heading and its charts' names take
    /// the record's number (`#2`, `run2-iops`, as the comparison numbers them), and it is
    /// folded under the comparison.
    #[must_use]
    pub fn numbered(mut self, n: usize) -> Self {
        self.heading = format!("#{n}: {}", self.heading);
        for figure in &mut self.figures {
            figure.name = format!("run{n}-{}", figure.name);
        }
        self.folded = true;
        self
    }
}

/// `text` safe inside HTML text and attribute values.
#[must_use]
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// The sections of the report of `inputs`: several runs are compared, then each drawn alone
/// (folded); one input drawn alone. `redact` takes host names, paths and command lines out of
/// what is shown.
#[must_use]
pub fn sections(inputs: &[Input], redact: bool) -> Vec<Section> {
    let runs: Vec<(&str, &RunRecord, String)> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Run {
                path,
                record,
                fleet,
            } => Some((
                path.as_str(),
                record.as_ref(),
                title::describe(record, fleet.as_ref().map(|f| f.hosts.as_slice())),
            )),
            Input::Monitor { .. } => None,
        })
        .collect();
    let mut out = Vec::new();
    if runs.len() > 1 {
        out.push(compare::section(&runs, redact));
    }
    let mut n = 0;
    for input in inputs {
        match input {
            Input::Run {
                path,
                record,
                fleet,
            } => {
                let mut section = run::section(path, record, redact);
                if let Some(fleet) = fleet {
                    section.heading = title::describe(record, Some(&fleet.hosts));
                    fleet_command(&mut section.facts, fleet, redact);
                }
                if runs.len() > 1 {
                    n += 1;
                    section = section.numbered(n);
                }
                out.push(section);
            }
            Input::Monitor { path, recording } => {
                out.push(monitor::section(path, recording, redact))
            }
        }
    }
    out
}

/// A fleet's command in its header: what each host ran, not the first host's own command
/// line (diskdash's remote side, `--fleet-remote ...`); left as it is where it is redacted.
fn fleet_command(facts: &mut [(String, String)], fleet: &Fleet, redact: bool) {
    let hidden = crate::record::machine::REDACTED;
    for (key, value) in facts.iter_mut().filter(|f| f.0 == "command") {
        if !redact && !value.starts_with(hidden) {
            "each host ran".clone_into(key);
            *value = format!("diskdash {}", fleet.command.join(" "));
        }
    }
}

/// The names and titles of the charts of `sections` that are drawn (`--chart` writes each).
#[must_use]
pub fn chart_names(sections: &[Section]) -> Vec<(String, String)> {
    sections
        .iter()
        .flat_map(|s| s.figures.iter())
        .filter(|f| f.svg.is_ok())
        .map(|f| (f.name.clone(), f.title.clone()))
        .collect()
}

/// The names of the charts of `sections` the records cannot draw, and why.
#[must_use]
pub fn charts_not_drawn(sections: &[Section]) -> Vec<(String, String)> {
    sections
        .iter()
        .flat_map(|s| s.figures.iter())
        .filter_map(|f| Some((f.name.clone(), f.svg.as_ref().err()?.clone())))
        .collect()
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em auto;max-width:900px;color:#111}\
h1{font-size:1.4em;margin-bottom:.2em}h2{font-size:1.15em;border-bottom:1px solid #999;\
margin-top:1.6em}table{border-collapse:collapse;margin:.5em 0;font-size:.9em}\
td,th{border:1px solid #bbb;padding:.15em .5em;text-align:left;vertical-align:top}\
th{background:#eee}td.n{text-align:right}figure{margin:1em 0;page-break-inside:avoid;\
break-inside:avoid}figcaption{font-weight:bold;margin-bottom:.3em}figure svg{max-width:100%;\
height:auto}p.note{font-size:.85em;color:#333;margin:.2em 0}code{font-size:.9em}\
.mark{font-weight:bold;color:#a33}details.run summary{cursor:pointer;margin-top:1.6em}\
details.run summary h2{display:inline;border:none}@media print{body{margin:0;max-width:none}\
h2{page-break-after:avoid}}";

/// The whole page.
#[must_use]
pub fn page(title: &str, sections: &[Section]) -> String {
    let mut html = String::with_capacity(64 << 10);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <meta name=\"generator\" content=\"diskdash report\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src \
         'unsafe-inline'; img-src data:\">\n<meta name=\"viewport\" \
         content=\"width=device-width\">\n<title>{}</title>\n<style>{STYLE}</style></head>\n\
         <body>\n<h1>{}</h1>\n",
        escape(title),
        escape(title)
    );
    for section in sections {
        write_section(&mut html, section);
    }
    let _ = write!(
        html,
        "<p class=\"note\">Written by diskdash {} <code>report</code>.</p>\n</body></html>\n",
        escape(env!("CARGO_PKG_VERSION"))
    );
    html
}

fn write_section(html: &mut String, section: &Section) {
    if section.folded {
        let _ = write!(
            html,
            "<section>\n<details class=\"run\"><summary><h2>{}</h2> (its own charts: open to see \
             them)</summary>\n",
            escape(&section.heading)
        );
    } else {
        let _ = write!(html, "<section>\n<h2>{}</h2>\n", escape(&section.heading));
    }
    if !section.facts.is_empty() {
        html.push_str("<table class=\"header\">\n");
        for (key, value) in &section.facts {
            let _ = writeln!(
                html,
                "<tr><th>{}</th><td>{}</td></tr>",
                escape(key),
                escape(value)
            );
        }
        html.push_str("</table>\n");
    }
    for note in &section.notes {
        let _ = writeln!(html, "<p class=\"note\">{}</p>", escape(note));
    }
    for figure in &section.figures {
        let _ = writeln!(
            html,
            "<figure class=\"chart\" id=\"chart-{}\"><figcaption>{}</figcaption>",
            escape(&figure.name),
            escape(&figure.title)
        );
        match &figure.svg {
            Ok(svg) => html.push_str(svg),
            Err(why) => {
                let _ = write!(html, "<p class=\"note\">Not drawn: {}</p>", escape(why));
            }
        }
        if let Some(note) = &figure.note {
            let _ = write!(html, "\n<p class=\"note\">{}</p>", escape(note));
        }
        html.push_str("</figure>\n");
    }
    html.push_str(&section.html);
    if section.folded {
        html.push_str("</details>\n");
    }
    html.push_str("</section>\n");
}

/// The machine's and the command's lines of a run's header (`redact`: the host and the command
/// line left out, as `--redact` leaves them out of a record).
#[must_use]
pub fn run_facts(path: &str, record: &RunRecord, redact: bool) -> Vec<(String, String)> {
    let hidden = crate::record::machine::REDACTED.to_string();
    let mut facts = vec![(
        "record".to_string(),
        if redact {
            hidden.clone()
        } else {
            path.to_string()
        },
    )];
    let redacted = redact || record.machine.as_ref().is_some_and(|m| m.redacted);
    match &record.machine {
        Some(m) => {
            let host = if redacted {
                hidden.clone()
            } else {
                m.host.clone()
            };
            facts.push((
                "machine".into(),
                format!(
                    "{host}: Linux {}, {} CPUs{}, {} memory",
                    m.kernel,
                    m.cpus,
                    m.cpu_model
                        .as_ref()
                        .map(|c| format!(" ({c})"))
                        .unwrap_or_default(),
                    crate::units::format_bytes(m.memory_bytes)
                ),
            ));
            if let Some(disk) = &m.disk {
                let what = [
                    disk.vendor.as_deref(),
                    disk.model.as_deref(),
                    disk.firmware.as_deref(),
                ]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
                facts.push((
                    "disk".into(),
                    format!(
                        "{} ({}{}{})",
                        disk.name,
                        disk.transport,
                        if what.is_empty() { "" } else { ", " },
                        what
                    ),
                ));
            }
            let command = match &m.command_line {
                Some(args) if !redacted => args.join(" "),
                _ => {
                    format!("{hidden} (the record was written with --redact, or is shown with it)")
                }
            };
            facts.push(("command".into(), command));
        }
        None => {
            let host = if redacted {
                hidden.clone()
            } else {
                record.host.hostname.clone()
            };
            facts.push((
                "machine".into(),
                format!(
                    "{host}: {}, {} CPUs (the record predates its machine section)",
                    record.host.kernel, record.host.cpus
                ),
            ));
        }
    }
    facts.push(("started".into(), record.started_at.clone()));
    facts.push((
        "status".into(),
        format!("{:?}", record.status).to_lowercase(),
    ));
    facts
}

/// A figure from a line chart.
fn lines(name: &str, title: &str, chart: &chart::LineChart, note: Option<String>) -> Figure {
    Figure {
        name: name.into(),
        title: title.into(),
        svg: chart::draw_lines(chart),
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_text_is_escaped() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(escape("a\u{1b}[31m"), "a\\u{1b}[31m");
        let section = Section {
            heading: "<b>job</b>".into(),
            facts: vec![("host".into(), "<img src=x>".into())],
            figures: vec![Figure {
                name: "x\"y".into(),
                title: "<t>".into(),
                svg: Err("<why>".into()),
                note: Some("<n>".into()),
            }],
            html: String::new(),
            notes: vec!["<note>".into()],
            folded: false,
        };
        let html = page("<title>", &[section]);
        for raw in [
            "<b>job", "<img", "<t>", "<why>", "<n>", "<note>", "<title><",
        ] {
            assert!(!html.contains(raw), "{raw} in {html}");
        }
        assert!(html.contains("default-src 'none'"));
        assert!(!html.contains("<script"));
    }
}
