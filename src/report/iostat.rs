//! `diskdash iostat` output as sysstat 12.6 prints it: the `avg-cpu` block and the tps or
//! extended (`-x`) device table, column for column, under `-s -m --human --pretty --compact
//! --dec`; or sysstat's JSON document (`-o JSON`) with its keys.
//! Pure functions over [`IostatRow`]s; the report loop is in `cmd::iostat`.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::monitor::cpu::CpuPercent;
use crate::monitor::diskstats::DiskCounters;
use crate::monitor::iostat::IostatRow;

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

/// How the device and CPU reports are laid out: sysstat's `-x -s -m --human --pretty
/// --compact --dec`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// `-x`: the extended table, else the tps table.
    pub extended: bool,
    /// `-s`: the narrow table.
    pub short: bool,
    /// `-m`: MB instead of kB.
    pub mega: bool,
    /// `--human` (`-h`): sizes with a unit suffix (`1.2M`), percents with `%`.
    pub human: bool,
    /// `--pretty` (`-h`, `-j`): device name on the right, the extended table split in four.
    pub pretty: bool,
    /// `--compact`: no split of the extended table.
    pub compact: bool,
    /// `--dec`: decimal places, 0 to 2.
    pub decimals: usize,
    /// `--trace`: the latency percentile columns after sysstat's ([`TRACE_COLUMNS`]).
    pub trace: bool,
}

impl Default for Layout {
    fn default() -> Self {
        Self {
            extended: false,
            short: false,
            mega: false,
            human: false,
            pretty: false,
            compact: false,
            decimals: 2,
            trace: false,
        }
    }
}

/// One device's line: its `iostat -x` row and the 512-byte sectors read, written and
/// discarded in the interval (the tps table's totals).
#[derive(Debug, Clone, PartialEq)]
pub struct DiskLine {
    pub row: IostatRow,
    pub sectors: [u64; 3],
    /// `--trace`: the block layer's percentiles of the interval, ns, in [`TRACE_COLUMNS`]'
    /// order; `None` where nothing was traced (the first report, a partition, an idle
    /// direction).
    pub traced: [Option<u64>; 4],
}

/// `--trace`'s columns (text and JSON keys), after sysstat's: the percentiles of each
/// request's whole time (`block_io_start` -> `block_io_done`, what `r_await`/`w_await`
/// average), ms.
pub const TRACE_COLUMNS: [&str; 4] = ["r_p50", "r_p99", "w_p50", "w_p99"];
const TRACE_WIDTH: usize = 9;

impl DiskLine {
    /// The line of a device between two readings `elapsed` apart (the same device).
    #[must_use]
    pub fn between(prev: &DiskCounters, cur: &DiskCounters, elapsed: Duration) -> Self {
        let row = IostatRow::between(prev, cur, elapsed);
        let wrapped = row.counters_wrapped;
        let d = |p: u64, c: u64| if wrapped { 0 } else { c.saturating_sub(p) };
        Self {
            row,
            sectors: [
                d(prev.sectors_read, cur.sectors_read),
                d(prev.sectors_written, cur.sectors_written),
                d(prev.sectors_discarded, cur.sectors_discarded),
            ],
            traced: [None; 4],
        }
    }
}

/// One report: an interval (or the time since boot) of CPU and devices.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// `-t`: the time line (text) or the `timestamp` key (JSON).
    pub time: Option<SystemTime>,
    /// The `avg-cpu` block, `None` under `-d`.
    pub cpu: Option<CpuPercent>,
    /// The device table, `None` under `-c`.
    pub disks: Option<&'a [DiskLine]>,
}

/// How sysstat prints a column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A rate, time or count: `%.2f` always.
    Plain,
    /// kilobytes (a rate or a request size): with `--human` scaled and suffixed (`1.2M`).
    Size,
    /// A percentage: with `--human` one decimal less and a `%` sign.
    Percent,
}

/// A value of a line: a float, or a whole number of kilobytes (the tps table's totals).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    F(f64),
    U(u64),
}

/// A column: its header, the width it takes with its leading space, its kind, its JSON key.
struct Column {
    title: String,
    width: usize,
    kind: Kind,
    key: String,
}

fn column(title: &str, width: usize, kind: Kind, key: &str) -> Column {
    Column {
        title: title.to_owned(),
        width,
        kind,
        key: key.to_owned(),
    }
}

impl Layout {
    /// `kB` or `MB` in the column names.
    fn unit(&self) -> &'static str {
        if self.mega { "MB" } else { "kB" }
    }

    /// The columns of the device table in sysstat's order, with the JSON keys.
    fn columns(&self) -> Vec<Column> {
        let u = self.unit();
        match (self.extended, self.short) {
            (false, false) => vec![
                column("tps", 9, Kind::Plain, "tps"),
                column(
                    &format!("{u}_read/s"),
                    13,
                    Kind::Size,
                    &format!("{u}_read/s"),
                ),
                column(
                    &format!("{u}_wrtn/s"),
                    13,
                    Kind::Size,
                    &format!("{u}_wrtn/s"),
                ),
                column(
                    &format!("{u}_dscd/s"),
                    13,
                    Kind::Size,
                    &format!("{u}_dscd/s"),
                ),
                column(&format!("{u}_read"), 11, Kind::Size, &format!("{u}_read")),
                column(&format!("{u}_wrtn"), 11, Kind::Size, &format!("{u}_wrtn")),
                column(&format!("{u}_dscd"), 11, Kind::Size, &format!("{u}_dscd")),
            ],
            (false, true) => vec![
                column("tps", 9, Kind::Plain, "tps"),
                column(
                    &format!("{u}_read/s"),
                    13,
                    Kind::Size,
                    &format!("{u}_read/s"),
                ),
                column(&format!("{u}_w+d/s"), 13, Kind::Size, &format!("{u}_w+d/s")),
                column(&format!("{u}_read"), 11, Kind::Size, &format!("{u}_read")),
                column(&format!("{u}_w+d"), 11, Kind::Size, &format!("{u}_w+d")),
            ],
            (true, true) => vec![
                column("tps", 9, Kind::Plain, "tps"),
                column(&format!("{u}/s"), 10, Kind::Size, &format!("{u}/s")),
                column("rqm/s", 9, Kind::Plain, "rqm/s"),
                column("await", 8, Kind::Plain, "await"),
                column("areq-sz", 9, Kind::Size, "areq-sz"),
                column("aqu-sz", 8, Kind::Plain, "aqu-sz"),
                column("%util", 7, Kind::Percent, "util"),
            ],
            (true, false) => {
                let mut columns = Vec::new();
                for d in ["r", "w", "d"] {
                    columns.push(column(&format!("{d}/s"), 8, Kind::Plain, &format!("{d}/s")));
                    columns.push(column(
                        &format!("{d}{u}/s"),
                        10,
                        Kind::Size,
                        &format!("{d}{u}/s"),
                    ));
                    columns.push(column(
                        &format!("{d}rqm/s"),
                        9,
                        Kind::Plain,
                        &format!("{d}rqm/s"),
                    ));
                    columns.push(column(
                        &format!("%{d}rqm"),
                        7,
                        Kind::Percent,
                        &format!("{d}rqm"),
                    ));
                    columns.push(column(
                        &format!("{d}_await"),
                        8,
                        Kind::Plain,
                        &format!("{d}_await"),
                    ));
                    columns.push(column(
                        &format!("{d}areq-sz"),
                        9,
                        Kind::Size,
                        &format!("{d}areq-sz"),
                    ));
                }
                columns.push(column("f/s", 8, Kind::Plain, "f/s"));
                columns.push(column("f_await", 8, Kind::Plain, "f_await"));
                columns.push(column("aqu-sz", 8, Kind::Plain, "aqu-sz"));
                columns.push(column("%util", 7, Kind::Percent, "util"));
                columns
            }
        }
    }

    /// A line's values in [`Layout::columns`] order. Sizes are in kilobytes under `--human`
    /// (which picks its own unit), else in the unit of `-k`/`-m`.
    fn values(&self, line: &DiskLine) -> Vec<Value> {
        let r = &line.row;
        let scale = if self.mega && !self.human {
            1024.0
        } else {
            1.0
        };
        let size = |kb: f64| Value::F(kb / scale);
        // Whole kB (or MB) from sectors, truncated as sysstat's integer division.
        let sectors_per = if self.mega && !self.human { 2048 } else { 2 };
        let total = |sectors: u64| {
            if self.human {
                Value::F(sectors as f64 / 2.0)
            } else {
                Value::U(sectors / sectors_per)
            }
        };
        let [read, written, discarded] = line.sectors;
        let tps = r.reads_per_s + r.writes_per_s + r.discards_per_s;
        match (self.extended, self.short) {
            (false, false) => vec![
                Value::F(tps),
                size(r.read_kb_per_s),
                size(r.write_kb_per_s),
                size(r.discard_kb_per_s),
                total(read),
                total(written),
                total(discarded),
            ],
            (false, true) => vec![
                Value::F(tps),
                size(r.read_kb_per_s),
                size(r.write_kb_per_s + r.discard_kb_per_s),
                total(read),
                total(written + discarded),
            ],
            (true, true) => {
                let kb = r.read_kb_per_s + r.write_kb_per_s + r.discard_kb_per_s;
                // Each await weighted by its requests: the mean over reads, writes and
                // discards (sysstat's `await`); flushes are not requests with data.
                let waited = r.read_await_ms * r.reads_per_s
                    + r.write_await_ms * r.writes_per_s
                    + r.discard_await_ms * r.discards_per_s;
                let per_request = |v: f64| if tps > 0.0 { v / tps } else { 0.0 };
                vec![
                    Value::F(tps),
                    size(kb),
                    Value::F(r.read_merges_per_s + r.write_merges_per_s + r.discard_merges_per_s),
                    Value::F(per_request(waited)),
                    Value::F(per_request(kb)),
                    Value::F(r.queue_size),
                    Value::F(r.util_pct),
                ]
            }
            (true, false) => vec![
                Value::F(r.reads_per_s),
                size(r.read_kb_per_s),
                Value::F(r.read_merges_per_s),
                Value::F(r.read_merged_pct),
                Value::F(r.read_await_ms),
                Value::F(r.read_request_kb),
                Value::F(r.writes_per_s),
                size(r.write_kb_per_s),
                Value::F(r.write_merges_per_s),
                Value::F(r.write_merged_pct),
                Value::F(r.write_await_ms),
                Value::F(r.write_request_kb),
                Value::F(r.discards_per_s),
                size(r.discard_kb_per_s),
                Value::F(r.discard_merges_per_s),
                Value::F(r.discard_merged_pct),
                Value::F(r.discard_await_ms),
                Value::F(r.discard_request_kb),
                Value::F(r.flushes_per_s),
                Value::F(r.flush_await_ms),
                Value::F(r.queue_size),
                Value::F(r.util_pct),
            ],
        }
    }

    /// One cell as sysstat's `cprintf_f`, `cprintf_u64`, `cprintf_pc` and `cprintf_unit` print
    /// it: a space, then the value right-aligned in `width - 1`.
    fn cell(&self, out: &mut String, kind: Kind, width: usize, value: Value) {
        let w = width - 1;
        let d = self.decimals;
        match (kind, value) {
            (Kind::Size, Value::F(kb)) if self.human => {
                const UNITS: [char; 6] = ['k', 'M', 'G', 'T', 'P', 'E'];
                let (mut v, mut unit) = (kb, 0);
                while v >= 1024.0 && unit + 1 < UNITS.len() {
                    v /= 1024.0;
                    unit += 1;
                }
                let places = usize::from(d > 0);
                let _ = write!(out, " {v:>w$.places$}{}", UNITS[unit], w = w.max(4) - 1);
            }
            (Kind::Percent, Value::F(v)) if self.human => {
                let _ = write!(
                    out,
                    " {v:>w$.p$}%",
                    w = w.max(4) - 1,
                    p = d.saturating_sub(1)
                );
            }
            (_, Value::F(v)) => {
                let _ = write!(out, " {v:>w$.d$}");
            }
            (_, Value::U(v)) => {
                let _ = write!(out, " {v:>w$}");
            }
        }
    }

    /// The column groups of a table: four sub-reports for the pretty extended table (reads,
    /// writes, discards, the rest), else one.
    fn groups(&self, n: usize) -> Vec<std::ops::Range<usize>> {
        if self.pretty && self.extended && !self.short && !self.compact {
            vec![0..6, 6..12, 12..18, 18..n]
        } else {
            std::iter::once(0..n).collect()
        }
    }
}

/// Width of the device-name column (`%-13s` in sysstat).
const NAME_WIDTH: usize = 13;

/// The `avg-cpu` header, as sysstat prints it.
pub const CPU_HEADER: &str = "avg-cpu:  %user   %nice %system %iowait  %steal   %idle";

/// One text report like sysstat's: the time line (`-t`), the `avg-cpu` block, the device
/// table, and blank lines where sysstat puts them.
pub fn text_report(out: &mut String, layout: &Layout, report: &Report<'_>) {
    if let Some(time) = report.time {
        let _ = writeln!(out, "{}", sysstat_time(time));
    }
    if let Some(cpu) = &report.cpu {
        out.push_str(CPU_HEADER);
        out.push_str("\n       ");
        for v in cpu.values() {
            layout.cell(out, Kind::Percent, 8, Value::F(v));
        }
        out.push_str("\n\n");
    }
    match report.disks {
        Some(lines) => {
            let columns = layout.columns();
            let rows: Vec<Vec<Value>> = lines.iter().map(|l| layout.values(l)).collect();
            for (i, group) in layout.groups(columns.len()).into_iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                if !layout.pretty {
                    let _ = write!(out, "{:<NAME_WIDTH$}", "Device");
                }
                let last = i + 1 == layout.groups(columns.len()).len();
                for c in &columns[group.clone()] {
                    let _ = write!(out, "{:>w$}", c.title, w = c.width);
                }
                if layout.trace && last {
                    for title in TRACE_COLUMNS {
                        let _ = write!(out, "{title:>TRACE_WIDTH$}");
                    }
                }
                out.push_str(if layout.pretty { " Device\n" } else { "\n" });
                for (line, values) in lines.iter().zip(&rows) {
                    if !layout.pretty {
                        let _ = write!(out, "{:<NAME_WIDTH$}", line.row.device);
                    }
                    for (c, v) in columns[group.clone()].iter().zip(&values[group.clone()]) {
                        layout.cell(out, c.kind, c.width, *v);
                    }
                    if layout.trace && last {
                        for ns in line.traced {
                            match ns {
                                Some(ns) => {
                                    let ms = Value::F(ns as f64 / 1e6);
                                    layout.cell(out, Kind::Plain, TRACE_WIDTH, ms);
                                }
                                None => {
                                    let _ = write!(out, "{:>TRACE_WIDTH$}", "-");
                                }
                            }
                        }
                    }
                    if layout.pretty {
                        out.push(' ');
                        out.push_str(&line.row.device);
                    }
                    out.push('\n');
                }
            }
            out.push('\n');
        }
        // sysstat ends a CPU-only report with one more blank line.
        None => out.push('\n'),
    }
    out.push('\n');
}

/// `11/21/26 08:00:00`: the `-t` line and JSON `timestamp` (sysstat's default format, UTC).
#[must_use]
pub fn sysstat_time(time: SystemTime) -> String {
    let t = UtcTime::from(time);
    format!(
        "{:02}/{:02}/{:02} {:02}:{:02}:{:02}",
        t.month,
        t.day,
        t.year % 100,
        t.hour,
        t.minute,
        t.second
    )
}

/// The machine that heads sysstat's JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonHost {
    pub nodename: String,
    pub sysname: String,
    pub release: String,
    pub machine: String,
    pub cpus: usize,
    pub date: SystemTime,
}

fn json_string(s: &str) -> String {
    // A string always serializes.
    serde_json::to_string(s).unwrap_or_default()
}

/// sysstat's JSON document up to its `statistics` array, laid out as sysstat lays it out.
pub fn json_open(out: &mut String, host: &JsonHost) {
    let t = UtcTime::from(host.date);
    let _ = write!(
        out,
        "{{\"sysstat\": {{\n\t\"hosts\": [\n\t\t{{\n\t\t\t\"nodename\": {},\n\t\t\t\"sysname\": {},\n\
         \t\t\t\"release\": {},\n\t\t\t\"machine\": {},\n\t\t\t\"number-of-cpus\": {},\n\
         \t\t\t\"date\": \"{:02}/{:02}/{:02}\",\n\t\t\t\"statistics\": [\n",
        json_string(&host.nodename),
        json_string(&host.sysname),
        json_string(&host.release),
        json_string(&host.machine),
        host.cpus,
        t.month,
        t.day,
        t.year % 100
    );
}

/// One entry of the `statistics` array; `first` leaves out the comma before it.
pub fn json_statistics(out: &mut String, layout: &Layout, report: &Report<'_>, first: bool) {
    if !first {
        out.push_str(",\n");
    }
    out.push_str("\t\t\t\t{\n");
    let mut parts = Vec::new();
    if let Some(time) = report.time {
        parts.push(format!(
            "\t\t\t\t\t\"timestamp\": \"{}\"",
            sysstat_time(time)
        ));
    }
    if let Some(cpu) = &report.cpu {
        let [user, nice, system, iowait, steal, idle] = cpu.values().map(two_decimals);
        parts.push(format!(
            "\t\t\t\t\t\"avg-cpu\":  {{\"user\": {user:.2}, \"nice\": {nice:.2}, \"system\": \
             {system:.2}, \"iowait\": {iowait:.2}, \"steal\": {steal:.2}, \"idle\": {idle:.2}}}"
        ));
    }
    if let Some(lines) = report.disks {
        // JSON is never human: sizes in the unit of -k/-m.
        let plain = Layout {
            human: false,
            ..*layout
        };
        let columns = plain.columns();
        let mut order: Vec<usize> = (0..columns.len()).collect();
        if plain.extended && !plain.short {
            // sysstat's JSON order: counts, sizes, merges, merge shares, waits, request sizes.
            order = vec![
                0, 6, 12, 18, 1, 7, 13, 2, 8, 14, 3, 9, 15, 4, 10, 16, 19, 5, 11, 17, 20, 21,
            ];
        }
        let entries: Vec<String> = lines
            .iter()
            .map(|line| {
                let values = plain.values(line);
                let mut entry = format!(
                    "\t\t\t\t\t\t{{\"disk_device\": {}",
                    json_string(&line.row.device)
                );
                for &i in &order {
                    let _ = match values[i] {
                        Value::F(v) => {
                            write!(entry, ", \"{}\": {:.2}", columns[i].key, two_decimals(v))
                        }
                        Value::U(v) => write!(entry, ", \"{}\": {v}", columns[i].key),
                    };
                }
                if plain.trace {
                    for (key, ns) in TRACE_COLUMNS.iter().zip(line.traced) {
                        let _ = match ns {
                            Some(ns) => write!(entry, ", \"{key}\": {:.3}", ns as f64 / 1e6),
                            None => write!(entry, ", \"{key}\": null"),
                        };
                    }
                }
                if line.row.counters_wrapped {
                    // Beyond sysstat's keys: this interval's numbers are meaningless.
                    entry.push_str(", \"counters_wrapped\": true");
                }
                entry.push('}');
                entry
            })
            .collect();
        let body = if entries.is_empty() {
            String::new()
        } else {
            format!("{}\n", entries.join(",\n"))
        };
        parts.push(format!("\t\t\t\t\t\"disk\": [\n{body}\t\t\t\t\t]"));
    }
    out.push_str(&parts.join(",\n"));
    out.push_str("\n\t\t\t\t}");
}

/// Rounded to two decimals as the `--record` lines' `iostat` columns are, so that the two
/// carry the same numbers.
fn two_decimals(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Closes the document [`json_open`] began.
pub fn json_close(out: &mut String) {
    out.push_str("\n\t\t\t]\n\t\t}\n\t]\n}}\n");
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
    #[cfg(test)]
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

    fn line(row: IostatRow) -> DiskLine {
        DiskLine {
            row,
            sectors: [0; 3],
            traced: [None; 4],
        }
    }

    /// `--trace` adds its columns after sysstat's, so a script reading sysstat's columns by
    /// position (or key) reads the same; untraced cells are `-` (JSON: null).
    #[test]
    fn traced_columns_follow_sysstats() {
        let mut row = IostatRow::idle("loop0");
        row.reads_per_s = 300.0;
        let mut traced = line(row.clone());
        traced.traced = [Some(81_000), Some(1_250_000), None, None];
        let layout = Layout {
            trace: true,
            ..extended()
        };
        let (mut plain, mut with) = (String::new(), String::new());
        text_report(&mut plain, &extended(), &disks_only(&[line(row)], None));
        text_report(&mut with, &layout, &disks_only(&[traced.clone()], None));
        for (a, b) in plain.lines().zip(with.lines()).take(2) {
            assert!(b.starts_with(a), "{a}\n{b}");
        }
        let header: Vec<&str> = with.lines().next().unwrap().split_whitespace().collect();
        assert_eq!(&header[header.len() - 4..], TRACE_COLUMNS);
        let cells: Vec<&str> = with.lines().nth(1).unwrap().split_whitespace().collect();
        assert_eq!(&cells[cells.len() - 4..], ["0.08", "1.25", "-", "-"]);
        let mut json = String::new();
        json_statistics(&mut json, &layout, &disks_only(&[traced], None), true);
        assert!(
            json.contains(
                r#""util": 0.00, "r_p50": 0.081, "r_p99": 1.250, "w_p50": null, "w_p99": null}"#
            ),
            "{json}"
        );
    }

    fn extended() -> Layout {
        Layout {
            extended: true,
            ..Layout::default()
        }
    }

    fn disks_only<'a>(lines: &'a [DiskLine], time: Option<SystemTime>) -> Report<'a> {
        Report {
            time,
            cpu: None,
            disks: Some(lines),
        }
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
        text_report(&mut out, &extended(), &disks_only(&[line(row)], None));
        assert_eq!(out, format!("{sysstat_header}\n{sysstat_line}\n\n\n"));
    }

    #[test]
    fn long_names_push_the_line_like_sysstat() {
        let mut out = String::new();
        let lines = [line(IostatRow::idle("nvme10n1p12345"))];
        text_report(
            &mut out,
            &extended(),
            &disks_only(&lines, Some(at(1_795_248_000))),
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "11/21/26 08:00:00");
        assert!(
            lines[2].starts_with("nvme10n1p12345    0.00      0.00"),
            "{}",
            lines[2]
        );
    }

    /// The fixture pair: `/proc/diskstats` and `/proc/stat` one second apart on the VM.
    fn fixture() -> (Vec<DiskLine>, CpuPercent) {
        let read = |name: &str| {
            let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
            std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        crate::monitor::diskstats::parse_diskstats(&read("diskstats/linux-6.18-vm-a.txt"), &mut a)
            .unwrap();
        crate::monitor::diskstats::parse_diskstats(&read("diskstats/linux-6.18-vm-b.txt"), &mut b)
            .unwrap();
        let lines = a
            .iter()
            .zip(&b)
            .filter(|(_, c)| c.name == "vda" || c.name == "loop0")
            .map(|(p, c)| DiskLine::between(p, c, Duration::from_secs(1)))
            .collect();
        let stat = |name: &str| {
            crate::monitor::cpu::CpuCounters::parse(&String::from_utf8(read(name)).unwrap())
                .unwrap()
        };
        let cpu = CpuPercent::between(Some(&stat("iostat/stat-a.txt")), &stat("iostat/stat-b.txt"));
        (lines, cpu)
    }

    /// Golden reports for each flag set, on the fixture pair. The layouts (headers, widths,
    /// units, blank lines, the pretty split) are sysstat 12.6.1's for the same flags, checked
    /// side by side with its output on this VM.
    #[test]
    fn golden_reports_for_each_flag_set() {
        let (lines, cpu) = fixture();
        let base = Layout::default();
        let x = extended();
        let cases: [(&str, Layout, bool, bool); 16] = [
            ("plain", base, true, true),
            ("d", base, false, true),
            ("c", base, true, false),
            ("x", x, true, true),
            ("dx", x, false, true),
            ("d_m", Layout { mega: true, ..base }, false, true),
            (
                "d_s",
                Layout {
                    short: true,
                    ..base
                },
                false,
                true,
            ),
            ("dx_s", Layout { short: true, ..x }, false, true),
            ("dx_m", Layout { mega: true, ..x }, false, true),
            (
                "dx_s_m",
                Layout {
                    short: true,
                    mega: true,
                    ..x
                },
                false,
                true,
            ),
            (
                "h",
                Layout {
                    human: true,
                    pretty: true,
                    ..base
                },
                true,
                true,
            ),
            (
                "dx_h",
                Layout {
                    human: true,
                    pretty: true,
                    ..x
                },
                false,
                true,
            ),
            (
                "d_human",
                Layout {
                    human: true,
                    ..base
                },
                false,
                true,
            ),
            (
                "dx_pretty_compact",
                Layout {
                    pretty: true,
                    compact: true,
                    ..x
                },
                false,
                true,
            ),
            (
                "d_dec0",
                Layout {
                    decimals: 0,
                    ..base
                },
                true,
                true,
            ),
            (
                "dx_dec1_human",
                Layout {
                    decimals: 1,
                    human: true,
                    ..x
                },
                false,
                true,
            ),
        ];
        for (name, layout, with_cpu, with_disks) in cases {
            let report = Report {
                time: None,
                cpu: with_cpu.then_some(cpu),
                disks: with_disks.then_some(lines.as_slice()),
            };
            let mut out = String::new();
            text_report(&mut out, &layout, &report);
            // sysstat's blank lines (which the snapshot does not keep): two after the device
            // table, three after a CPU block alone.
            let newlines = out.len() - out.trim_end_matches('\n').len();
            assert_eq!(newlines, if with_disks { 3 } else { 4 }, "{name}: {out:?}");
            insta::assert_snapshot!(format!("golden_{name}"), out);
        }
    }

    /// The document of `iostat -o JSON` over two reports, parsed back: sysstat's shape and keys.
    #[test]
    fn json_document_has_sysstats_shape_and_keys() {
        let (lines, cpu) = fixture();
        let host = JsonHost {
            nodename: "vm".into(),
            sysname: "Linux".into(),
            release: "6.18.44".into(),
            machine: "x86_64".into(),
            cpus: 2,
            date: at(1_795_248_000),
        };
        let keys = |v: &serde_json::Value| -> Vec<String> {
            v.as_object().unwrap().keys().cloned().collect()
        };
        for (layout, disk_keys) in [
            (
                Layout::default(),
                "disk_device tps kB_read/s kB_wrtn/s kB_dscd/s kB_read kB_wrtn kB_dscd",
            ),
            (
                Layout {
                    mega: true,
                    human: true,
                    ..Layout::default()
                },
                "disk_device tps MB_read/s MB_wrtn/s MB_dscd/s MB_read MB_wrtn MB_dscd",
            ),
            (
                Layout {
                    short: true,
                    ..extended()
                },
                "disk_device tps kB/s rqm/s await areq-sz aqu-sz util",
            ),
            (
                extended(),
                "disk_device r/s w/s d/s f/s rkB/s wkB/s dkB/s rrqm/s wrqm/s drqm/s rrqm wrqm drqm \
                 r_await w_await d_await f_await rareq-sz wareq-sz dareq-sz aqu-sz util",
            ),
        ] {
            let mut out = String::new();
            json_open(&mut out, &host);
            let timed = Report {
                time: Some(at(1_795_248_001)),
                cpu: Some(cpu),
                disks: Some(&lines),
            };
            json_statistics(&mut out, &layout, &timed, true);
            let untimed = Report {
                time: None,
                cpu: None,
                disks: Some(&[]),
            };
            json_statistics(&mut out, &layout, &untimed, false);
            json_close(&mut out);
            let v: serde_json::Value =
                serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
            let h = &v["sysstat"]["hosts"][0];
            assert_eq!(
                keys(h),
                [
                    "date",
                    "machine",
                    "nodename",
                    "number-of-cpus",
                    "release",
                    "statistics",
                    "sysname"
                ]
            );
            assert_eq!(h["date"], "11/21/26");
            assert_eq!(h["number-of-cpus"], 2);
            let stats = h["statistics"].as_array().unwrap();
            assert_eq!(stats.len(), 2);
            assert_eq!(keys(&stats[0]), ["avg-cpu", "disk", "timestamp"]);
            assert_eq!(stats[0]["timestamp"], "11/21/26 08:00:01");
            assert_eq!(
                keys(&stats[0]["avg-cpu"]),
                ["idle", "iowait", "nice", "steal", "system", "user"]
            );
            assert_eq!(keys(&stats[1]), ["disk"]);
            assert_eq!(stats[1]["disk"].as_array().unwrap().len(), 0);
            let disks = stats[0]["disk"].as_array().unwrap();
            assert_eq!(disks.len(), 2);
            // In sysstat's order, not sorted: the text of the first entry.
            let first_keys: Vec<&str> = out
                .lines()
                .find(|l| l.contains("\"disk_device\""))
                .unwrap()
                .split('"')
                .skip(1)
                .step_by(2)
                .filter(|k| !["loop0", "vda"].contains(k))
                .collect();
            assert_eq!(first_keys.join(" "), disk_keys);
            assert_eq!(disks[1]["disk_device"], "vda");
        }
        // The values: the fixture wrote 64 MiB in the second, 32768 kB... in whole kB.
        let mut out = String::new();
        json_statistics(
            &mut out,
            &Layout::default(),
            &Report {
                time: None,
                cpu: None,
                disks: Some(&lines),
            },
            true,
        );
        let vda = out.lines().find(|l| l.contains("\"vda\"")).unwrap();
        let vda: serde_json::Value = serde_json::from_str(vda.trim()).unwrap();
        let sectors = lines[1].sectors;
        assert_eq!(vda["kB_wrtn"], sectors[1] / 2);
        assert!(vda.get("counters_wrapped").is_none());
        // A counter that went backwards: zeros, and the one key beyond sysstat's.
        let mut before = DiskCounters::zeroed("sdz");
        before.reads = 10;
        let wrapped = [DiskLine::between(
            &before,
            &DiskCounters::zeroed("sdz"),
            Duration::from_secs(1),
        )];
        let mut out = String::new();
        json_statistics(
            &mut out,
            &extended(),
            &Report {
                time: None,
                cpu: None,
                disks: Some(&wrapped),
            },
            true,
        );
        let sdz = out.lines().find(|l| l.contains("\"sdz\"")).unwrap();
        let sdz: serde_json::Value = serde_json::from_str(sdz.trim()).unwrap();
        assert_eq!(sdz["counters_wrapped"], true);
        assert_eq!(sdz["r/s"], 0.0);
        assert!((vda["kB_wrtn/s"].as_f64().unwrap() - lines[1].row.write_kb_per_s).abs() < 0.006);
    }

    #[test]
    fn human_sizes_scale_like_sysstat() {
        let layout = Layout {
            human: true,
            ..Layout::default()
        };
        let cell = |kind, value| {
            let mut out = String::new();
            layout.cell(&mut out, kind, 13, value);
            out
        };
        assert_eq!(cell(Kind::Size, Value::F(161.25)), "       161.2k");
        assert_eq!(cell(Kind::Size, Value::F(0.0)), "         0.0k");
        assert_eq!(cell(Kind::Size, Value::F(346_601.0)), "       338.5M");
        assert_eq!(cell(Kind::Size, Value::F(115_512_900.0)), "       110.2G");
        assert_eq!(cell(Kind::Percent, Value::F(9.43)), "         9.4%");
        assert_eq!(cell(Kind::Plain, Value::F(5952.68)), "      5952.68");
        let dec0 = Layout {
            decimals: 0,
            ..layout
        };
        let mut out = String::new();
        dec0.cell(&mut out, Kind::Size, 11, Value::F(346_601.0));
        assert_eq!(out, "       338M");
    }
}
