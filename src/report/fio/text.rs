//! The text of `diskdash fio`: fio's normal output, its quantities, units and lines in fio's
//! order (fio 3.33's `show_thread_status_normal`). Layout:
//!
//! ```text
//! r: (groupid=0, jobs=1): err= 0: pid=4242: Sun Nov 29 14:36:25 2026
//!   read: IOPS=51.2k, BW=200MiB/s (210MB/s)(400MiB/2000msec)
//!     slat (usec): min=6, max=163, avg=17.40, stdev=12.26
//!     clat (usec): min=75, max=2010, avg=118.80, stdev=190.00
//!      lat (usec): min=81, max=2027, avg=136.20, stdev=191.10
//!     clat percentiles (usec):
//!      |  1.00th=[   81],  5.00th=[   81], 10.00th=[   81], 20.00th=[   81],
//!      ...
//!    bw (  KiB/s): min=204800, max=204800, per=100.00%, avg=204800.00, stdev= 0.00, samples=2
//!    iops        : min=51200, max=51200, avg=51200.00, stdev= 0.00, samples=2
//!   lat (usec)   : 100=90.00%, 250=9.00%, 500=0.50%, 750=0.10%, 1000=0.10%
//!   lat (msec)   : 2=0.20%, 4=0.10%
//!   cpu          : usr=5.00%, sys=30.00%, ctx=5000, majf=0, minf=12
//!   IO depths    : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%
//!      submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%
//!      complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%
//!      issued rwts: total=102400,0,0,0 short=0,0,0,0 dropped=0,0,0,0
//!      latency   : target=0, window=0, percentile=100.00%, depth=1
//!
//! Run status group 0 (all jobs):
//!    READ: bw=250MiB/s (262MB/s), 100MiB/s-200MiB/s (105MB/s-210MB/s), io=500MiB (524MB), run=1000-2000msec
//!
//! Disk stats (read/write):
//!   vda: ios=120000/25000, merge=20/400, ticks=18000/12500, in_queue=30600, util=98.50%
//!
//! diskdash notes:
//!   r: /data/r.dat on vda
//! ```
//!
//! `slat` only where the engine timed its submit call (fio leaves it out for a synchronous
//! engine). The header's `pid=` is the job's first worker thread's id (diskdash's workers are
//! threads, as fio's with `thread`), its time the run's end (UTC); where each job's I/O went
//! and how it ended follow fio's report, under `diskdash notes:`.

use crate::text::escape;
use std::fmt::Write as _;

use super::{
    Block, Direction, FioReport, GroupDirection, Latency, blocks, disk_totals, percent_label,
    run_groups,
};
use crate::record::{RunRecord, RunStatus};

pub(super) fn render(record: &RunRecord, opts: &FioReport<'_>) -> String {
    let mut out = String::new();
    let list = opts.percentile_list();
    // fio prints its text and its JSON from the same numbers: the bw/iops samples, latency
    // distribution and depth tables are the JSON's, job for job.
    let doc = super::json::document(record, opts);
    let blocks = blocks(record, opts);
    for (block, job) in blocks.iter().zip(&doc.jobs) {
        job_block(&mut out, record, block, job, (list, &doc.time));
        out.push('\n');
    }
    for group in run_groups(record) {
        let _ = writeln!(out, "Run status group {} (all jobs):", group.group);
        for (name, dir) in [("READ", &group.read), ("WRITE", &group.write)] {
            if let Some(dir) = dir {
                group_line(&mut out, name, dir);
            }
        }
        out.push('\n');
    }
    let disks = disk_totals(record);
    if !disks.is_empty() {
        out.push_str("Disk stats (read/write):\n");
        for d in disks {
            let _ = writeln!(
                out,
                "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:.2}%",
                d.name,
                d.read_ios,
                d.write_ios,
                d.read_merges,
                d.write_merges,
                d.read_ticks_ms,
                d.write_ticks_ms,
                d.in_queue_ms,
                d.util_pct
            );
        }
    }
    diskdash_notes(&mut out, record, &blocks);
    out
}

/// diskdash's own notes after fio's report (fio has none of these lines; a wrapper that
/// parses fio's text stops at the disk stats): each block's files and the disks under them
/// and how a job that did not complete ended (fio's header has its pid and time there), then
/// what stderr carries only on a terminal or when asked (`DISKDASH_NOTES`).
fn diskdash_notes(out: &mut String, record: &RunRecord, blocks: &[Block<'_>]) {
    if blocks.is_empty() && record.notes.is_empty() && record.warnings.is_empty() {
        return;
    }
    out.push_str("\ndiskdash notes:\n");
    for block in blocks {
        let targets: Vec<String> = block
            .jobs
            .iter()
            .map(|job| {
                let path = block.clone_file.unwrap_or(&job.target.path);
                match &job.device {
                    Some(device) => format!("{} on {}", escape(path), escape(device)),
                    None => escape(path).into_owned(),
                }
            })
            .collect();
        let status = match block.status() {
            RunStatus::Completed => "",
            RunStatus::Stopped => " (stopped)",
            RunStatus::Interrupted => " (interrupted)",
            RunStatus::Failed => " (failed)",
        };
        let _ = writeln!(
            out,
            "  {} (pid {}): {}{status}",
            escape(block.name),
            block.pid.unwrap_or(0),
            targets.join(", ")
        );
    }
    for note in &record.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    for warning in &record.warnings {
        let _ = writeln!(out, "  WARNING: {warning}");
    }
}

/// What the job ran where io_uring fell back: fio's text has no engine line, so without it the
/// numbers would read as io_uring's at the depth asked for.
fn fallback_line(out: &mut String, record: &RunRecord, block: &Block<'_>) {
    let Some(asked) = block.jobs.first().map(|job| &job.job) else {
        return;
    };
    if let Some(ran) = record.ran_as(asked) {
        let _ = writeln!(
            out,
            "  ran {} at iodepth {}, not {} at iodepth {}: {}",
            ran.ioengine,
            ran.iodepth,
            asked.ioengine,
            asked.iodepth,
            escape(
                record
                    .engine
                    .fallback
                    .as_deref()
                    .unwrap_or("io_uring unavailable")
            )
        );
    }
}

fn job_block(
    out: &mut String,
    record: &RunRecord,
    block: &Block<'_>,
    job: &super::JobJson,
    (list, time): (&[f64], &str),
) {
    let _ = writeln!(
        out,
        "{}: (groupid={}, jobs={}): err={:2}: pid={}: {}",
        escape(block.name),
        block.group,
        block.workers,
        block.error(),
        block.pid.unwrap_or(0),
        time
    );
    for error in block.jobs.iter().filter_map(|job| job.error.as_ref()) {
        let _ = writeln!(out, "  error: {}", escape(&error.message));
    }
    fallback_line(out, record, block);
    for (name, dir, json) in [
        ("read", &block.read, &job.read),
        ("write", &block.write, &job.write),
    ] {
        if dir.total_ios > 0 {
            direction(out, name, dir, list);
            samples(out, json);
        }
    }
    latency_distribution(out, job);
    if block.sync_ios > 0 {
        out.push_str("  fsync/fdatasync/sync_file_range:\n");
        latency(out, "sync", &block.sync_lat);
        percentiles(out, "sync", &block.sync_lat, list);
    }
    let _ = writeln!(
        out,
        "  cpu          : usr={:.2}%, sys={:.2}%, ctx={}, majf={}, minf={}",
        block.usr_cpu, block.sys_cpu, block.ctx, job.majf, job.minf
    );
    depths(out, "  IO depths    :", &job.iodepth_level);
    depths(out, "     submit    :", &job.iodepth_submit);
    depths(out, "     complete  :", &job.iodepth_complete);
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},{},0 short={},{},{},0 dropped={},{},{},0",
        job.read.total_ios,
        job.write.total_ios,
        job.trim.total_ios,
        job.read.short_ios,
        job.write.short_ios,
        job.trim.short_ios,
        job.read.drop_ios,
        job.write.drop_ios,
        job.trim.drop_ios
    );
    if let (Some(total), Some(errno)) = (job.total_err, job.first_error) {
        let _ = writeln!(
            out,
            "     errors    : total={total}, first_error={errno}/<{}>",
            std::io::Error::from_raw_os_error(errno)
        );
    }
    let _ = writeln!(
        out,
        "     latency   : target={}, window={}, percentile={:.2}%, depth={}",
        job.latency_target, job.latency_window, job.latency_percentile, job.latency_depth
    );
}

/// fio's `   bw (  KiB/s): ...` and `   iops        : ...` lines: the direction's interval
/// samples, where it has any.
fn samples(out: &mut String, dir: &super::DirectionJson) {
    if dir.bw_samples > 0 {
        let (mut min, mut max, mut mean, mut dev) =
            (dir.bw_min, dir.bw_max, dir.bw_mean, dir.bw_dev);
        let mut unit = "KiB";
        if mean > 1024.0 * 1024.0 {
            (min, max, mean, dev) = (min / 1024, max / 1024, mean / 1024.0, dev / 1024.0);
            unit = "MiB";
        }
        let _ = writeln!(
            out,
            "   bw ({unit:>5}/s): min={min:5}, max={max:5}, per={:3.2}%, avg={mean:5.02}, \
             stdev={dev:5.02}, samples={}",
            dir.bw_agg, dir.bw_samples
        );
    }
    if dir.iops_samples > 0 {
        let _ = writeln!(
            out,
            "   iops        : min={:5}, max={:5}, avg={:5.02}, stdev={:5.02}, samples={}",
            dir.iops_min, dir.iops_max, dir.iops_mean, dir.iops_stddev, dir.iops_samples
        );
    }
}

/// fio's `show_latencies`: each non-empty range of the clat distribution, five to a line.
fn latency_distribution(out: &mut String, job: &super::JobJson) {
    for (unit, table) in [
        ("nsec", &job.latency_ns),
        ("usec", &job.latency_us),
        ("msec", &job.latency_ms),
    ] {
        let shown: Vec<String> = table
            .0
            .iter()
            .filter(|(_, pct)| *pct > 0.0)
            .map(|(key, pct)| format!("{key}={pct:3.2}%"))
            .collect();
        for line in shown.chunks(5) {
            let _ = writeln!(out, "  lat ({unit})   : {}", line.join(", "));
        }
    }
}

/// `  IO depths    : 1=100.0%, 2=0.0%, ...`: one of fio's depth tables.
fn depths(out: &mut String, lead: &str, table: &super::PercentJson) {
    let cells: Vec<String> = table
        .0
        .iter()
        .map(|(key, pct)| format!("{key}={pct:3.1}%"))
        .collect();
    let _ = writeln!(out, "{lead} {}", cells.join(", "));
}

/// `  read: IOPS=51.2k, BW=200MiB/s (210MB/s)(400MiB/2000msec)` and its latency.
fn direction(out: &mut String, name: &str, dir: &Direction, list: &[f64]) {
    let _ = writeln!(
        out,
        "  {name}: IOPS={}, BW={}/s ({}/s)({}/{}msec)",
        num2str(dir.iops, 4, Base::Decimal, ""),
        bytes_binary(dir.bw_bytes as f64),
        bytes_si(dir.bw_bytes as f64),
        bytes_binary(dir.io_bytes as f64),
        dir.runtime_ms
    );
    if let Some(slat) = dir.slat.as_ref().filter(|slat| slat.n > 0) {
        latency(out, "slat", slat);
    }
    latency(out, "clat", dir.clat());
    latency(out, " lat", &dir.lat);
    percentiles(out, "clat", dir.clat(), list);
}

/// fio's `display_lat` and `show_clat_percentiles`: the summary in the largest unit all four
/// numbers exceed a thousand of, then the percentiles four to a row.
fn latency(out: &mut String, name: &str, lat: &Latency) {
    let (min, max, mean, dev) = (lat.min_ns, lat.max_ns, lat.mean_ns, lat.stddev_ns);
    let over = |limit: u64| min > limit && max > limit && mean > limit as f64 && dev > limit as f64;
    let (unit, div) = if over(1_000_000) {
        ("msec", 1_000_000)
    } else if over(1_000) {
        ("usec", 1_000)
    } else {
        ("nsec", 1)
    };
    let _ = writeln!(
        out,
        "    {name} ({unit}): min={}, max={}, avg={:5.2}, stdev={:5.2}",
        num2str((min / div) as f64, 6, Base::Decimal, ""),
        num2str((max / div) as f64, 6, Base::Decimal, ""),
        mean / div as f64,
        dev / div as f64
    );
}

/// fio's `show_clat_percentiles`: the unit the lowest and highest fit, then the percentiles
/// four to a row (three in nsec).
fn percentiles(out: &mut String, name: &str, lat: &Latency, list: &[f64]) {
    let percentiles = lat.percentiles(list);
    let (Some(lowest), Some(highest)) = (
        percentiles.iter().map(|p| p.1).min(),
        percentiles.iter().map(|p| p.1).max(),
    ) else {
        return;
    };
    let (unit, div) = if lowest > 2_000_000 && highest > 99_999_999 {
        ("msec", 1_000_000)
    } else if lowest > 2_000 && highest > 99_999 {
        ("usec", 1_000)
    } else {
        ("nsec", 1)
    };
    let _ = writeln!(out, "    {name} percentiles ({unit}):");
    // fio's widths: the highest value's digits (at least 5), as many to a row as fit 80
    // columns (four at 5 digits, three at 8).
    let width = (highest.div_ceil(div).max(1).ilog10() as usize + 1).max(5);
    let per_line = (80 - 7) / (2 + 10 + width);
    for (row, chunk) in percentiles.chunks(per_line).enumerate() {
        out.push_str("     |");
        for (i, &(pct, ns)) in chunk.iter().enumerate() {
            let last = row * per_line + i + 1 == percentiles.len();
            let _ = write!(
                out,
                " {:>5}th=[{:width$}]{}",
                percent_label(pct),
                ns.div_ceil(div),
                if last { "" } else { "," }
            );
        }
        out.push('\n');
    }
}

/// `   READ: bw=..., min-max, io=..., run=min-maxmsec` of a run-status group.
fn group_line(out: &mut String, name: &str, dir: &GroupDirection) {
    let (agg, min, max) = (
        dir.agg_bw_bytes as f64,
        dir.min_bw_bytes as f64,
        dir.max_bw_bytes as f64,
    );
    let _ = writeln!(
        out,
        "{name:>7}: bw={}/s ({}/s), {}/s-{}/s ({}/s-{}/s), io={} ({}), run={}-{}msec",
        bytes_binary(agg),
        bytes_si(agg),
        bytes_binary(min),
        bytes_binary(max),
        bytes_si(min),
        bytes_si(max),
        bytes_binary(dir.io_bytes as f64),
        bytes_si(dir.io_bytes as f64),
        dir.min_run_ms,
        dir.max_run_ms
    );
}

#[derive(Clone, Copy)]
enum Base {
    Decimal,
    Binary,
}

/// `192MiB`: fio's 4 significant digits in binary units.
fn bytes_binary(bytes: f64) -> String {
    num2str(bytes, 4, Base::Binary, "B")
}

/// `201MB`: the same in SI units.
fn bytes_si(bytes: f64) -> String {
    num2str(bytes, 4, Base::Decimal, "B")
}

/// fio's `num2str`: `value` as is when its integer part has at most `digits` digits, else
/// scaled by 1000 (or 1024) until it does, with the decimals that still fit in `digits`
/// (`49.1k`, `5910.3k`, `192Mi`), then `unit`.
fn num2str(value: f64, digits: usize, base: Base, unit: &str) -> String {
    const DECIMAL: [&str; 6] = ["", "k", "M", "G", "T", "P"];
    const BINARY: [&str; 6] = ["", "Ki", "Mi", "Gi", "Ti", "Pi"];
    let (step, prefixes) = match base {
        Base::Decimal => (1000.0, DECIMAL),
        Base::Binary => (1024.0, BINARY),
    };
    let mut value = if value.is_finite() {
        value.max(0.0)
    } else {
        0.0
    };
    let limit = 10f64.powi(i32::try_from(digits).unwrap_or(i32::MAX));
    let mut power = 0;
    while value.round() >= limit && power + 1 < prefixes.len() {
        value /= step;
        power += 1;
    }
    if power == 0 {
        return format!("{value:.0}{unit}");
    }
    let integer_digits = (value.trunc() as u64).to_string().len();
    let decimals = digits.saturating_sub(integer_digits + 1);
    format!("{value:.decimals$}{}{unit}", prefixes[power])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::fixture::{record, two_step_record};

    #[test]
    fn numbers_switch_units_like_fio() {
        assert_eq!(num2str(49_110.0, 4, Base::Decimal, ""), "49.1k");
        assert_eq!(num2str(4801.0, 4, Base::Decimal, ""), "4801");
        assert_eq!(bytes_binary(201_326_592.0), "192MiB");
        assert_eq!(bytes_si(201_326_592.0), "201MB");
        assert_eq!(bytes_binary(19_712_000.0), "18.8MiB");
        assert_eq!(bytes_binary(23_068_672.0), "22.0MiB");
        assert_eq!(bytes_binary(2.5 * f64::from(1u32 << 30)), "2560MiB");
        assert_eq!(bytes_binary(20.0 * f64::from(1u32 << 30)), "20.0GiB");
        assert_eq!(num2str(5_910_300.0, 6, Base::Decimal, ""), "5910.3k");
        assert_eq!(bytes_binary(0.0), "0B");
    }

    #[test]
    fn a_job_that_fell_back_says_what_ran_under_its_name() {
        let mut record = record();
        record.engine.used = "psync".into();
        record.engine.fallback =
            Some("io_uring unavailable (EPERM: permission denied); fell back to psync".into());
        let text = render(&record, &FioReport::default());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[..2],
            [
                "r: (groupid=0, jobs=1): err= 0: pid=0: Mon Nov 23 14:52:23 2026",
                "  ran psync at iodepth 1, not io_uring at iodepth 8: io_uring unavailable \
                 (EPERM: permission denied); fell back to psync",
            ],
            "{text}"
        );
        let plain = render(&crate::stats::fixture::record(), &FioReport::default());
        assert!(!plain.contains("  ran "), "{plain}");
    }

    #[test]
    fn one_step_of_two_jobs_reads_like_fio() {
        let text = render(&record(), &FioReport::default());
        let lines: Vec<&str> = text.lines().collect();
        for want in [
            "r: (groupid=0, jobs=1): err= 0: pid=0: Mon Nov 23 14:52:23 2026",
            "  read: IOPS=51.2k, BW=200MiB/s (210MB/s)(400MiB/2000msec)",
            "    clat (usec): min=75, max=2010, avg=118.80, stdev=190.00",
            "     lat (usec): min=75, max=2010, avg=118.80, stdev=190.00",
            "    clat percentiles (usec):",
            "     |  1.00th=[   81],  5.00th=[   81], 10.00th=[   81], 20.00th=[   81],",
            "     | 30.00th=[   81], 40.00th=[   81], 50.00th=[   81], 60.00th=[  121],",
            "     | 70.00th=[  121], 80.00th=[  121], 90.00th=[  121], 95.00th=[  121],",
            "     | 99.00th=[  121], 99.50th=[ 2008], 99.90th=[ 2008], 99.95th=[ 2008],",
            "     | 99.99th=[ 2008]",
            "  cpu          : usr=5.00%, sys=30.00%, ctx=5000, majf=0, minf=0",
            "w: (groupid=0, jobs=1): err= 0: pid=0: Mon Nov 23 14:52:23 2026",
            "  read: IOPS=25.6k, BW=100MiB/s (105MB/s)(100MiB/1000msec)",
            "    clat (usec): min=990, max=1010, avg=1000.00, stdev= 5.00",
            "  write: IOPS=25.6k, BW=100MiB/s (105MB/s)(100MiB/1000msec)",
            "Run status group 0 (all jobs):",
            "   READ: bw=250MiB/s (262MB/s), 100MiB/s-200MiB/s (105MB/s-210MB/s), \
             io=500MiB (524MB), run=1000-2000msec",
            "  WRITE: bw=100MiB/s (105MB/s), 100MiB/s-100MiB/s (105MB/s-105MB/s), \
             io=100MiB (105MB), run=1000-1000msec",
            "Disk stats (read/write):",
            "  vda: ios=120000/25000, merge=20/400, ticks=18000/12500, in_queue=30600, util=98.50%",
        ] {
            assert!(lines.contains(&want), "missing {want:?} in\n{text}");
        }
        // Blocks in order: r, then w, then the group, then the disks.
        let at = |line: &str| lines.iter().position(|l| *l == line).unwrap();
        assert!(
            at("  cpu          : usr=5.00%, sys=30.00%, ctx=5000, majf=0, minf=0")
                < at("Run status group 0 (all jobs):")
        );
        assert!(at("Run status group 0 (all jobs):") < at("Disk stats (read/write):"));
        // fio's lines after the percentiles, in fio's order: the clat distribution, CPU, the
        // depth tables, the issued counts and the latency target line.
        let block: Vec<&str> = lines
            [..at("w: (groupid=0, jobs=1): err= 0: pid=0: Mon Nov 23 14:52:23 2026")]
            .iter()
            .map(|line| line.split(':').next().unwrap_or(""))
            .skip_while(|lead| !lead.starts_with("  lat ("))
            .collect();
        assert_eq!(
            block,
            [
                "  lat (usec)   ",
                "  lat (msec)   ",
                "  cpu          ",
                "  IO depths    ",
                "     submit    ",
                "     complete  ",
                "     issued rwts",
                "     latency   ",
                "",
            ],
            "{text}"
        );
        assert!(
            lines.contains(&"     issued rwts: total=102400,0,0,0 short=0,0,0,0 dropped=0,0,0,0")
        );
    }

    #[test]
    fn group_reporting_prints_one_block_per_group() {
        let opts = FioReport {
            group_reporting: true,
            percentiles: Some(&[50.0, 99.0]),
            ..FioReport::default()
        };
        let text = render(&record(), &opts);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[..5],
            [
                "r: (groupid=0, jobs=2): err= 0: pid=0: Mon Nov 23 14:52:23 2026",
                "  read: IOPS=64.0k, BW=250MiB/s (262MB/s)(500MiB/2000msec)",
                "    clat (usec): min=75, max=2010, avg=295.04, stdev=391.31",
                "     lat (usec): min=75, max=2010, avg=295.04, stdev=391.31",
                "    clat percentiles (usec):",
            ]
        );
        // The merged histogram's median is a 120 us read; the mean of the two medians (80 us
        // and 1 ms) would be 540 us.
        assert_eq!(lines[5], "     | 50.00th=[  121], 99.00th=[ 1004]");
        // Where the group's I/O went: after fio's report, in diskdash's notes.
        assert!(
            lines.contains(&"  r (pid 0): /data/r.dat on vda, /data/.diskdash-scratch-1-1 on vda"),
            "{text}"
        );
        assert_eq!(text.matches("(groupid=").count(), 1);
        // fio's CPU of a group: CPU time over the jobs' summed time.
        assert!(
            text.contains("  cpu          : usr=4.67%, sys=26.67%, ctx=7000, majf=0, minf=0\n")
        );
    }

    #[test]
    fn the_header_and_tables_show_what_the_workers_counted() {
        let mut record = record();
        let r = &mut record.steps[0].jobs[0];
        r.pid = Some(4242);
        (r.cpu.majf, r.cpu.minf) = (2, 310);
        // Depth 8, ramping up through 1 to 7 once; one I/O per submit, 1 to 4 per reap.
        r.io_depths = Some(crate::record::IoDepthsRecord {
            level: [1, 2, 4, 102_393, 0, 0, 0],
            submit: [0, 102_400, 0, 0, 0, 0, 0],
            complete: [0, 60_000, 0, 0, 0, 0, 0],
        });
        let text = render(&record, &FioReport::default());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "r: (groupid=0, jobs=1): err= 0: pid=4242: Mon Nov 23 14:52:23 2026"
        );
        for want in [
            "  cpu          : usr=5.00%, sys=30.00%, ctx=5000, majf=2, minf=310",
            "  IO depths    : 1=0.1%, 2=0.1%, 4=0.1%, 8=100.0%, 16=0.0%, 32=0.0%, >=64=0.0%",
            "     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
            "     complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
            "  r (pid 4242): /data/r.dat on vda",
        ] {
            assert!(lines.contains(&want), "missing {want:?} in\n{text}");
        }
    }

    #[test]
    fn two_steps_print_their_groups_in_order() {
        let text = render(&two_step_record(), &FioReport::default());
        let heads: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("(groupid=") || l.starts_with("Run status group"))
            .collect();
        assert_eq!(
            heads,
            [
                "r: (groupid=0, jobs=1): err= 0: pid=0: Mon Nov 23 14:52:23 2026",
                "w: (groupid=0, jobs=1): err= 0: pid=0: Mon Nov 23 14:52:23 2026",
                "seq: (groupid=1, jobs=1): err= 0: pid=0: Mon Nov 23 14:52:23 2026",
                "Run status group 0 (all jobs):",
                "Run status group 1 (all jobs):",
            ]
        );
        // One line per disk over both steps' windows.
        assert!(text.contains(
            "  vda: ios=240000/50000, merge=40/800, ticks=36000/25000, in_queue=61200, util=98.50%\n"
        ));
    }
}
