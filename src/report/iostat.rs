//! `diskdash iostat` output: text laid out column for column like sysstat 12's `iostat -dx`,
//! or one JSON object per report (JSON Lines) with sysstat's `disk` keys and a timestamp.
//! Pure functions over [`IostatRow`]s; the report loop is in `cmd::iostat`.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::monitor::iostat::IostatRow;

/// sysstat's column headers and their widths (a space and a right-aligned `%.2f`).
pub const COLUMNS: [(&str, usize); 22] = [
    ("r/s", 8),
    ("rkB/s", 10),
    ("rrqm/s", 9),
    ("%rrqm", 7),
    ("r_await", 8),
    ("rareq-sz", 9),
    ("w/s", 8),
    ("wkB/s", 10),
    ("wrqm/s", 9),
    ("%wrqm", 7),
    ("w_await", 8),
    ("wareq-sz", 9),
    ("d/s", 8),
    ("dkB/s", 10),
    ("drqm/s", 9),
    ("%drqm", 7),
    ("d_await", 8),
    ("dareq-sz", 9),
    ("f/s", 8),
    ("f_await", 8),
    ("aqu-sz", 8),
    ("%util", 7),
];

/// Width of the device-name column (`%-13s` in sysstat).
const NAME_WIDTH: usize = 13;

/// The values of a row in [`COLUMNS`] order.
#[must_use]
pub fn values(r: &IostatRow) -> [f64; 22] {
    [
        r.reads_per_s,
        r.read_kb_per_s,
        r.read_merges_per_s,
        r.read_merged_pct,
        r.read_await_ms,
        r.read_request_kb,
        r.writes_per_s,
        r.write_kb_per_s,
        r.write_merges_per_s,
        r.write_merged_pct,
        r.write_await_ms,
        r.write_request_kb,
        r.discards_per_s,
        r.discard_kb_per_s,
        r.discard_merges_per_s,
        r.discard_merged_pct,
        r.discard_await_ms,
        r.discard_request_kb,
        r.flushes_per_s,
        r.flush_await_ms,
        r.queue_size,
        r.util_pct,
    ]
}

/// sysstat's first line: `Linux 6.18.44 (host) \t11/21/26 \t_x86_64_\t(2 CPU)`.
#[must_use]
pub fn system_line(
    sysname: &str,
    release: &str,
    nodename: &str,
    machine: &str,
    cpus: usize,
    now: SystemTime,
) -> String {
    let t = UtcTime::from(now);
    format!(
        "{sysname} {release} ({nodename}) \t{:02}/{:02}/{:02} \t_{machine}_\t({cpus} CPU)",
        t.month,
        t.day,
        t.year % 100
    )
}

/// One text report like sysstat's: optional time line, header, a line per row, two blank lines.
pub fn text_report(out: &mut String, rows: &[IostatRow], time: Option<SystemTime>) {
    if let Some(time) = time {
        let t = UtcTime::from(time);
        let _ = writeln!(
            out,
            "{:02}/{:02}/{:02} {:02}:{:02}:{:02}",
            t.month,
            t.day,
            t.year % 100,
            t.hour,
            t.minute,
            t.second
        );
    }
    let _ = write!(out, "{:<NAME_WIDTH$}", "Device");
    for (title, width) in COLUMNS {
        let _ = write!(out, "{title:>width$}");
    }
    out.push('\n');
    for row in rows {
        let _ = write!(out, "{:<NAME_WIDTH$}", row.device);
        for (value, (_, width)) in values(row).iter().zip(COLUMNS) {
            let _ = write!(out, " {value:>w$.2}", w = width - 1);
        }
        out.push('\n');
    }
    out.push_str("\n\n");
}

/// One JSON Lines report.
#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    /// When the report's interval ended, RFC 3339 in UTC.
    pub timestamp: String,
    pub disk: &'a [IostatRow],
}

/// One JSON object and a newline.
///
/// # Errors
/// Never in practice (the rows are plain numbers and strings).
pub fn json_report(out: &mut String, rows: &[IostatRow], time: SystemTime) -> anyhow::Result<()> {
    let report = JsonReport {
        timestamp: UtcTime::from(time).rfc3339(),
        disk: rows,
    };
    out.push_str(&serde_json::to_string(&report)?);
    out.push('\n');
    Ok(())
}

/// A wall-clock instant split into UTC calendar fields (no time-zone database needed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub millis: u32,
}

impl From<SystemTime> for UtcTime {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // all in range by construction
    fn from(time: SystemTime) -> Self {
        let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
        let secs = since.as_secs() as i64;
        let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
        // Howard Hinnant's days-to-civil algorithm.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        UtcTime {
            year,
            month,
            day,
            hour: (rem / 3600) as u32,
            minute: (rem % 3600 / 60) as u32,
            second: (rem % 60) as u32,
            millis: since.subsec_millis(),
        }
    }
}

impl UtcTime {
    /// `2026-11-21T08:10:00.123Z`.
    #[must_use]
    pub fn rfc3339(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second, self.millis
        )
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::monitor::diskstats::DiskCounters;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn utc_calendar_fields() {
        assert_eq!(UtcTime::from(at(0)).rfc3339(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            UtcTime::from(at(1_795_248_000) + Duration::from_millis(42)).rfc3339(),
            "2026-11-21T08:00:00.042Z"
        );
        // A leap day.
        assert_eq!(
            UtcTime::from(at(951_782_400)).rfc3339(),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(
            UtcTime::from(at(1_709_251_199)).rfc3339(),
            "2024-02-29T23:59:59.000Z"
        );
    }

    #[test]
    fn system_line_like_sysstat() {
        assert_eq!(
            system_line("Linux", "6.18.44", "vm", "x86_64", 2, at(1_795_248_000)),
            "Linux 6.18.44 (vm) \t11/21/26 \t_x86_64_\t(2 CPU)"
        );
    }

    /// The header and a line of sysstat 12.6.1's `iostat -dx` on this VM, byte for byte; the
    /// row is built so that every column shows the value sysstat printed.
    #[test]
    fn text_matches_sysstat_column_for_column() {
        let sysstat_header = "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util";
        let sysstat_line = "vda             85.12   3547.36    13.08  13.32    0.51    41.67   22.32  10017.45    50.79  69.47    5.16   448.85   11.82   2796.77     0.04   0.33    0.21   236.56    1.14    0.05    0.16   1.76";
        let printed: Vec<f64> = sysstat_line
            .split_whitespace()
            .skip(1)
            .map(|v| v.parse().unwrap())
            .collect();
        let mut row = IostatRow::idle("vda");
        let fields: [&mut f64; 22] = [
            &mut row.reads_per_s,
            &mut row.read_kb_per_s,
            &mut row.read_merges_per_s,
            &mut row.read_merged_pct,
            &mut row.read_await_ms,
            &mut row.read_request_kb,
            &mut row.writes_per_s,
            &mut row.write_kb_per_s,
            &mut row.write_merges_per_s,
            &mut row.write_merged_pct,
            &mut row.write_await_ms,
            &mut row.write_request_kb,
            &mut row.discards_per_s,
            &mut row.discard_kb_per_s,
            &mut row.discard_merges_per_s,
            &mut row.discard_merged_pct,
            &mut row.discard_await_ms,
            &mut row.discard_request_kb,
            &mut row.flushes_per_s,
            &mut row.flush_await_ms,
            &mut row.queue_size,
            &mut row.util_pct,
        ];
        for (field, value) in fields.into_iter().zip(printed) {
            *field = value;
        }
        let mut out = String::new();
        text_report(&mut out, &[row], None);
        assert_eq!(out, format!("{sysstat_header}\n{sysstat_line}\n\n\n"));
    }

    #[test]
    fn long_names_push_the_line_like_sysstat() {
        let mut out = String::new();
        text_report(
            &mut out,
            &[IostatRow::idle("nvme10n1p12345")],
            Some(at(1_795_248_000)),
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "11/21/26 08:00:00");
        assert!(
            lines[2].starts_with("nvme10n1p12345    0.00      0.00"),
            "{}",
            lines[2]
        );
    }

    #[test]
    fn json_line_carries_a_timestamp_and_sysstat_disk_objects() {
        let mut cur = DiskCounters::zeroed("sda");
        cur.writes = 10;
        let row = IostatRow::between(&DiskCounters::zeroed("sda"), &cur, Duration::from_secs(4));
        let mut out = String::new();
        json_report(&mut out, &[row], at(1_795_248_000)).unwrap();
        assert!(out.ends_with("}\n") && out.lines().count() == 1);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["timestamp"], "2026-11-21T08:00:00.000Z");
        assert_eq!(v["disk"][0]["disk_device"], "sda");
        assert_eq!(v["disk"][0]["w/s"], 2.5);
        assert_eq!(v.as_object().unwrap().len(), 2);
    }
}
