//! fio's terse output, version 3 (`--minimal`, `--output-format=terse`): one line of
//! `;`-separated fields per job (or group), in the order of fio's HOWTO ("Terse output"), for
//! the scripts that still split it. The values are the JSON document's, in terse's units
//! (latencies in us, bandwidth in KiB/s); no trim fields in version 3.

use std::fmt::Write;

use super::FioReport;
use super::json::{self, DirectionJson, FIO_LAYOUT_VERSION, JobJson, LatencyJson};
use crate::record::RunRecord;

/// The terse version written (fio's default, `--terse-version=3`).
const TERSE_VERSION: u32 = 3;

/// Percentile fields per direction: fio always writes 20, `0%=0` past the list.
const PERCENTILE_FIELDS: usize = 20;

pub(super) fn render(record: &RunRecord, opts: &FioReport<'_>) -> String {
    let doc = json::document(record, opts);
    let mut disks = String::new();
    for d in &doc.disk_util {
        let _ = write!(
            disks,
            ";{};{};{};{};{};{};{};{};{:.2}%",
            d.name,
            d.read_ios,
            d.write_ios,
            d.read_merges,
            d.write_merges,
            d.read_ticks,
            d.write_ticks,
            d.in_queue,
            d.util
        );
    }
    let list = opts.percentile_list();
    let mut out = String::new();
    for job in &doc.jobs {
        out.push_str(&line(job, list));
        out.push_str(&disks);
        out.push('\n');
    }
    out
}

/// One job's fields, before the disks; `list` is the percentile list asked for.
fn line(job: &JobJson, list: &[f64]) -> String {
    let mut out = format!(
        "{TERSE_VERSION};{FIO_LAYOUT_VERSION};{};{};{}",
        field(&job.jobname),
        job.groupid,
        job.error
    );
    for dir in [&job.read, &job.write] {
        direction(&mut out, dir, list);
    }
    let _ = write!(
        out,
        ";{:.6}%;{:.6}%;{};{};{}",
        job.usr_cpu, job.sys_cpu, job.ctx, job.majf, job.minf
    );
    for (_, pct) in &job.iodepth_level.0 {
        let _ = write!(out, ";{pct:.1}%");
    }
    // Terse has no ns table: latencies below 1 us count in its first (<= 2 us) field.
    let below_us: f64 = job.latency_ns.0.iter().map(|(_, pct)| pct).sum();
    for (i, (_, pct)) in job.latency_us.0.iter().enumerate() {
        let pct = if i == 0 { pct + below_us } else { *pct };
        let _ = write!(out, ";{pct:.2}%");
    }
    for (_, pct) in &job.latency_ms.0 {
        let _ = write!(out, ";{pct:.2}%");
    }
    out
}

fn direction(out: &mut String, dir: &DirectionJson, list: &[f64]) {
    let _ = write!(
        out,
        ";{};{};{};{}",
        dir.io_kbytes,
        dir.bw,
        dir.iops.max(0.0) as u64,
        dir.runtime
    );
    latency(out, &dir.slat_ns);
    latency(out, &dir.clat_ns);
    // Without I/O fio still lists its percentiles, each at 0.
    let none: Vec<(f64, u64)> = list.iter().map(|&pct| (pct, 0)).collect();
    let listed = dir
        .clat_ns
        .percentile
        .as_ref()
        .map_or(&none[..], |p| &p.0[..]);
    for i in 0..PERCENTILE_FIELDS {
        match listed.get(i) {
            Some((pct, ns)) => {
                let _ = write!(out, ";{pct:.6}%={}", ns / 1000);
            }
            None => out.push_str(";0%=0"),
        }
    }
    latency(out, &dir.lat_ns);
    let _ = write!(
        out,
        ";{};{};{:.6}%;{:.6};{:.6}",
        dir.bw_min, dir.bw_max, dir.bw_agg, dir.bw_mean, dir.bw_dev
    );
}

/// min and max in whole us, mean and stddev in us.
fn latency(out: &mut String, lat: &LatencyJson) {
    let _ = write!(
        out,
        ";{};{};{:.6};{:.6}",
        lat.min / 1000,
        lat.max / 1000,
        lat.mean / 1000.0,
        lat.stddev / 1000.0
    );
}

/// A job name cannot split the line or reach the terminal raw: the one escaping rule
/// ([`crate::text::escape`]: controls, line breaks included, as `\n`, `\u{1b}`), and `;`, the
/// field separator, becomes `_`.
fn field(text: &str) -> String {
    crate::text::escape(text).replace(';', "_")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::fixture::record;

    #[test]
    fn a_line_has_fio_s_v3_fields_in_order() {
        let text = render(&record(), &FioReport::default());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "one line per job");
        let f: Vec<&str> = lines[0].split(';').collect();
        // 5 + 2 x 41 + 5 CPU + 7 depths + 10 us + 12 ms + 9 per disk (one disk).
        assert_eq!(f.len(), 5 + 2 * 41 + 5 + 7 + 10 + 12 + 9, "{}", lines[0]);
        assert_eq!(&f[..5], ["3", "fio-3.33", "r", "0", "0"]);
        // Read: 400 MiB in KiB, 200 MiB/s in KiB/s, 51200 IOPS, 2000 ms.
        assert_eq!(&f[5..9], ["409600", "204800", "51200", "2000"]);
        // slat is not measured; clat in us.
        assert_eq!(&f[9..13], ["0", "0", "0.000000", "0.000000"]);
        assert_eq!(f[17 + 6], "50.000000%=80", "p50 of 80_383 ns");
        assert_eq!(f[17 + 17], "0%=0", "17 percentiles, then 0%=0");
        assert_eq!(f[43], "0.000000%", "job r shared its step: no samples");
        // Job r wrote nothing: fio's percentiles, each at 0.
        assert_eq!(&f[5 + 41 + 12..5 + 41 + 14], ["1.000000%=0", "5.000000%=0"]);
        assert_eq!(f[5 + 41 + 12 + 17], "0%=0");
        assert_eq!(&f[87..89], ["5.000000%", "30.000000%"]);
        assert_eq!(f[87 + 2], "5000");
        assert_eq!(f[f.len() - 9], "vda");
        assert_eq!(f[f.len() - 1], "98.50%");
    }

    #[test]
    fn a_name_cannot_split_the_line() {
        assert_eq!(field("a;b\nc"), "a_b\\nc");
        // ESC would clear the terminal; it is written as text.
        assert_eq!(field("x\u{1b}[2Jy"), "x\\u{1b}[2Jy");
        assert_eq!(field("\u{202e}evil\r"), "\\u{202e}evil\\r");
    }
}
