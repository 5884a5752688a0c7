//! A monitor recording: iostat's columns over time, a line per disk; samples the recording
//! lacks (a gap in `seq`, a window that does not follow the last, a gap note) are drawn as
//! breaks in the lines and shaded.

use std::collections::BTreeMap;

use super::Section;
use super::chart::{Axis, Line, LineChart, Span, Unit};
use crate::record::IostatRow;
use crate::record::monitor::Recording;

/// The columns drawn: name, title, axis label, unit and how to read them from a row.
type Column = (
    &'static str,
    &'static str,
    &'static str,
    Unit,
    fn(&IostatRow) -> f64,
);

const COLUMNS: [Column; 5] = [
    (
        "monitor-iops",
        "I/Os per second (r/s + w/s + d/s)",
        "IOPS (I/Os per second)",
        Unit::Iops,
        |r| r.reads_per_s + r.writes_per_s + r.discards_per_s,
    ),
    (
        "monitor-bandwidth",
        "Bandwidth (rkB/s + wkB/s + dkB/s)",
        "bandwidth (per second)",
        Unit::BytesPerS,
        |r| (r.read_kb_per_s + r.write_kb_per_s + r.discard_kb_per_s) * 1024.0,
    ),
    (
        "monitor-r-await",
        "Read wait (r_await)",
        "r_await (mean read time)",
        Unit::Ms,
        |r| r.read_await_ms,
    ),
    (
        "monitor-w-await",
        "Write wait (w_await)",
        "w_await (mean write time)",
        Unit::Ms,
        |r| r.write_await_ms,
    ),
    (
        "monitor-util",
        "Utilization (%util)",
        "%util (time busy)",
        Unit::Percent,
        |r| r.util_pct,
    ),
];

/// The section of a monitor recording.
#[must_use]
pub fn section(path: &str, recording: &Recording, redact: bool) -> Section {
    let hidden = crate::record::machine::REDACTED;
    let mut facts = vec![(
        "recording".to_string(),
        if redact {
            hidden.to_string()
        } else {
            path.to_string()
        },
    )];
    if let Some(h) = recording.headers.first() {
        let host = if redact {
            hidden
        } else {
            h.host.hostname.as_str()
        };
        facts.push((
            "machine".into(),
            format!(
                "{host}: {}, {}, {} CPUs",
                h.host.kernel, h.host.machine, h.host.online_cpus
            ),
        ));
        facts.push((
            "command".into(),
            format!(
                "diskdash {} --record (interval {} ms)",
                h.writer,
                h.interval_ns / 1_000_000
            ),
        ));
        facts.push(("started".into(), h.started.clone()));
    }
    facts.push(("samples".into(), recording.samples.len().to_string()));
    let mut section = Section {
        heading: "Monitor recording".into(),
        facts,
        notes: recording.notes.clone(),
        ..Section::default()
    };
    let Some(first) = recording.samples.first() else {
        section.notes.push("the recording holds no sample".into());
        return section;
    };
    let origin = first.unix_ns.saturating_sub(first.window_ns);
    let secs = |ns: u64| ns.saturating_sub(origin) as f64 / 1e9;
    let (breaks, mut spans) = breaks(recording, &secs);
    for gap in &recording.gaps {
        spans.push(Span {
            from: secs(gap.from_unix_ns),
            to: secs(gap.to_unix_ns),
            alarm: true,
        });
        section.notes.push(format!("gap: {gap}"));
    }
    let end = recording
        .samples
        .iter()
        .map(|s| secs(s.unix_ns))
        .fold(1.0, f64::max);
    let x = Axis::linear(
        "time since the recording began (s)",
        Unit::Seconds,
        0.0,
        end,
    );
    for (name, title, label, unit, read) in COLUMNS {
        let mut lines: BTreeMap<String, Line> = BTreeMap::new();
        for (i, sample) in recording.samples.iter().enumerate() {
            let t = secs(sample.unix_ns);
            for disk in &sample.disks {
                let line = lines.entry(disk.name.clone()).or_insert_with(|| Line {
                    name: disk.name.clone(),
                    points: Vec::new(),
                });
                if breaks.contains(&i) && !line.points.is_empty() {
                    line.points.push((t - sample.window_ns as f64 / 1e9, None));
                }
                line.points.push((t, Some(read(&disk.iostat))));
            }
        }
        let lines: Vec<Line> = lines.into_values().collect();
        let max = lines
            .iter()
            .flat_map(|l| l.points.iter().filter_map(|p| p.1))
            .fold(0.0, f64::max);
        let y = if unit == Unit::Percent {
            Axis::linear(label, unit, 0.0, 100.0)
        } else {
            Axis::from_zero(label, unit, max)
        };
        let chart = LineChart {
            x: x.clone(),
            y,
            lines,
            spans: spans.clone(),
            marks: Vec::new(),
            dots: false,
        };
        let note = (!spans.is_empty()).then(|| {
            format!(
                "{} stretch(es) without samples, shaded; lines break there",
                spans.len()
            )
        });
        section
            .figures
            .push(super::lines(name, title, &chart, note));
    }
    section
}

/// The samples that do not follow the one before (a gap in `seq`, a new run appended, or a
/// window starting well after the last ended), and the missing stretches.
fn breaks(recording: &Recording, secs: &dyn Fn(u64) -> f64) -> (Vec<usize>, Vec<Span>) {
    let mut at = Vec::new();
    let mut spans = Vec::new();
    for (i, pair) in recording.samples.windows(2).enumerate() {
        let (a, b) = (&pair[0], &pair[1]);
        let start = b.unix_ns.saturating_sub(b.window_ns);
        let late = start > a.unix_ns + b.window_ns / 2;
        if b.seq != a.seq + 1
            || late
            || recording.header_of.get(i) != recording.header_of.get(i + 1)
        {
            at.push(i + 1);
            if start > a.unix_ns {
                spans.push(Span {
                    from: secs(a.unix_ns),
                    to: secs(start),
                    alarm: true,
                });
            }
        }
    }
    (at, spans)
}
