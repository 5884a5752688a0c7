//! The `--output-format=json` document of `diskdash fio`: fio's keys where a script reading
//! fio's JSON looks (`jobs[].read.iops`, `.bw`, `.clat_ns.percentile["99.000000"]`,
//! `disk_util[]`), and a `diskdash` object, top-level and per job, for what is ours.

use serde::Serialize;

use super::{Block, Direction, FioReport, Latency, blocks, disk_totals};
use crate::record::{Percentiles, ReconciliationRecord, RunRecord, RunStatus};

/// What diskdash's latency is, said in the document: fio splits it into slat and clat.
const LATENCY_NOTE: &str = "diskdash measures each I/O from just before its submission to its \
    completion: clat_ns and lat_ns hold the same numbers (fio's lat_ns), slat_ns is not \
    measured (zeros)";

/// What the `disk_util` counts are, said in the document.
const DISK_UTIL_NOTE: &str = "disk_util counts are over the steps' measured windows: ios exact, \
    merges, ticks and in_queue derived from iostat rates x window";

/// The whole document.
#[derive(Debug, Clone, Serialize)]
pub struct FioJson {
    /// `diskdash-<version>`.
    #[serde(rename = "fio version")]
    pub fio_version: String,
    /// End of the run, Unix seconds.
    pub timestamp: u64,
    pub timestamp_ms: u64,
    /// End of the run, as fio's `ctime` line (UTC here).
    pub time: String,
    pub jobs: Vec<JobJson>,
    pub disk_util: Vec<DiskUtilJson>,
    pub diskdash: RunNotesJson,
}

/// One job (or one group with `group_reporting`), fio's keys.
#[derive(Debug, Clone, Serialize)]
pub struct JobJson {
    pub jobname: String,
    pub groupid: u32,
    /// errno of the failure, 0 when none.
    pub error: i32,
    /// Measured time, ms.
    pub job_runtime: u64,
    pub read: DirectionJson,
    pub write: DirectionJson,
    /// Always idle: diskdash does not trim; here so scripts iterating fio's three find it.
    pub trim: DirectionJson,
    pub sync: SyncJson,
    /// Percent of one CPU.
    pub usr_cpu: f64,
    pub sys_cpu: f64,
    pub ctx: u64,
    /// fio's `steadystate` when the job had a criterion (diskdash's own fields follow fio's);
    /// a `group_reporting` block of several jobs has none (diskdash judges each job).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<crate::record::SteadyStateRecord>,
    pub diskdash: JobNotesJson,
}

/// One direction, fio's keys and units.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DirectionJson {
    pub io_bytes: u64,
    pub io_kbytes: u64,
    pub bw_bytes: u64,
    /// KiB/s.
    pub bw: u64,
    pub iops: f64,
    /// ms; 0 without I/O in this direction.
    pub runtime: u64,
    pub total_ios: u64,
    pub short_ios: u64,
    pub drop_ios: u64,
    pub slat_ns: LatencyJson,
    pub clat_ns: LatencyJson,
    pub lat_ns: LatencyJson,
}

/// fio's latency object, ns.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LatencyJson {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    #[serde(rename = "N")]
    pub n: u64,
    /// `"99.000000": ns`; absent without I/O.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentile: Option<Percentiles>,
}

/// fio's `sync` object (fsync/fdatasync calls).
#[derive(Debug, Clone, Serialize)]
pub struct SyncJson {
    pub total_ios: u64,
    pub lat_ns: LatencyJson,
}

/// One disk, fio's `disk_util` keys; ticks and `in_queue` in ms, `util` in percent.
#[derive(Debug, Clone, Serialize)]
pub struct DiskUtilJson {
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    pub read_ticks: u64,
    pub write_ticks: u64,
    pub in_queue: u64,
    pub util: f64,
}

/// diskdash's own keys of a job.
#[derive(Debug, Clone, Serialize)]
pub struct JobNotesJson {
    /// Worst of the jobs reported: `completed`, `interrupted` or `failed`.
    pub status: RunStatus,
    /// Workers reported (fio's `jobs=` of the text).
    pub workers: u32,
    /// The failures' messages.
    pub errors: Vec<String>,
    /// One per job reported (several with `group_reporting`).
    pub targets: Vec<TargetJson>,
}

/// Where one job's I/O went.
#[derive(Debug, Clone, Serialize)]
pub struct TargetJson {
    pub job: String,
    pub path: String,
    /// `scratch`, `file` or `block_device`.
    pub kind: String,
    /// diskdash created the file (a scratch file).
    pub created: bool,
    /// It is still there after the run.
    pub kept: bool,
    /// The disk its I/O lands on, when known.
    pub device: Option<String>,
}

/// diskdash's own top-level keys.
#[derive(Debug, Clone, Serialize)]
pub struct RunNotesJson {
    /// The record's `format_version` this document was made from.
    pub format_version: u32,
    pub status: RunStatus,
    pub latency: &'static str,
    pub disk_util: &'static str,
    pub reconciliation: Vec<DiskReconciliationJson>,
    pub warnings: Vec<String>,
}

/// One disk of one step: the run's I/Os against the device's.
#[derive(Debug, Clone, Serialize)]
pub struct DiskReconciliationJson {
    /// 0-based step (the record's segment).
    pub step: u32,
    pub disk: String,
    #[serde(flatten)]
    pub reconciliation: ReconciliationRecord,
}

pub(super) fn document(record: &RunRecord, opts: &FioReport<'_>) -> FioJson {
    let list = opts.percentile_list();
    let end_ms = unix_ms(&record.ended_at).unwrap_or(0);
    FioJson {
        fio_version: format!("diskdash-{}", record.diskdash_version),
        timestamp: end_ms / 1000,
        timestamp_ms: end_ms,
        time: ctime(end_ms / 1000),
        jobs: blocks(record, opts)
            .iter()
            .map(|block| job(block, list))
            .collect(),
        disk_util: disk_totals(record)
            .into_iter()
            .map(|d| DiskUtilJson {
                name: d.name,
                read_ios: d.read_ios,
                write_ios: d.write_ios,
                read_merges: d.read_merges,
                write_merges: d.write_merges,
                read_ticks: d.read_ticks_ms,
                write_ticks: d.write_ticks_ms,
                in_queue: d.in_queue_ms,
                util: d.util_pct,
            })
            .collect(),
        diskdash: RunNotesJson {
            format_version: record.format_version,
            status: record.status,
            latency: LATENCY_NOTE,
            disk_util: DISK_UTIL_NOTE,
            reconciliation: record
                .segments
                .iter()
                .flat_map(|segment| {
                    segment.devices.iter().map(|device| DiskReconciliationJson {
                        step: segment.index,
                        disk: device.name.clone(),
                        reconciliation: device.reconciliation.clone(),
                    })
                })
                .collect(),
            warnings: record.warnings.clone(),
        },
    }
}

fn job(block: &Block<'_>, list: &[f64]) -> JobJson {
    JobJson {
        jobname: block.name.to_string(),
        groupid: block.group,
        error: block.error(),
        job_runtime: block.elapsed_ns / 1_000_000,
        read: direction(&block.read, list),
        write: direction(&block.write, list),
        trim: DirectionJson::default(),
        sync: SyncJson {
            total_ios: block.sync_ios,
            lat_ns: latency(&block.sync_lat, list),
        },
        usr_cpu: block.usr_cpu,
        sys_cpu: block.sys_cpu,
        ctx: block.ctx,
        steadystate: match block.jobs.as_slice() {
            [job] => job.steadystate.clone(),
            _ => None,
        },
        diskdash: JobNotesJson {
            status: block.status(),
            workers: block.workers,
            errors: block
                .jobs
                .iter()
                .filter_map(|job| job.error.as_ref().map(|e| e.message.clone()))
                .collect(),
            targets: block
                .jobs
                .iter()
                .map(|job| TargetJson {
                    job: job.name.clone(),
                    path: job.target.path.clone(),
                    kind: job.target.kind.clone(),
                    created: job.target.kind == "scratch",
                    kept: !job.target.scratch_removed,
                    device: job.device.clone(),
                })
                .collect(),
        },
    }
}

fn direction(dir: &Direction, list: &[f64]) -> DirectionJson {
    let lat = latency(&dir.lat, list);
    DirectionJson {
        io_bytes: dir.io_bytes,
        io_kbytes: dir.io_bytes / 1024,
        bw_bytes: dir.bw_bytes,
        bw: dir.bw_bytes / 1024,
        iops: dir.iops,
        runtime: dir.runtime_ms,
        total_ios: dir.total_ios,
        short_ios: 0,
        drop_ios: 0,
        slat_ns: LatencyJson::default(),
        clat_ns: lat.clone(),
        lat_ns: lat,
    }
}

fn latency(lat: &Latency, list: &[f64]) -> LatencyJson {
    let percentiles = lat.percentiles(list);
    LatencyJson {
        min: lat.min_ns,
        max: lat.max_ns,
        mean: lat.mean_ns,
        stddev: lat.stddev_ns,
        n: lat.n,
        percentile: (!percentiles.is_empty()).then_some(Percentiles(percentiles)),
    }
}

/// Unix ms of the record's `2026-11-23T14:52:23.250Z` (UTC, as the record writes them).
fn unix_ms(rfc3339: &str) -> Option<u64> {
    let (date, rest) = rfc3339.split_once('T')?;
    let mut ymd = date.splitn(3, '-').map(str::parse::<i64>);
    let (y, m, d) = (ymd.next()?.ok()?, ymd.next()?.ok()?, ymd.next()?.ok()?);
    let time = rest.trim_end_matches('Z');
    let (hms, fraction) = time.split_once('.').unwrap_or((time, "0"));
    let mut parts = hms.splitn(3, ':').map(str::parse::<i64>);
    let (hh, mm, ss) = (
        parts.next()?.ok()?,
        parts.next()?.ok()?,
        parts.next()?.ok()?,
    );
    let ms: i64 = format!("{fraction:0<3}").get(..3)?.parse().ok()?;
    let seconds = days_from_civil(y, m, d) * 86_400 + hh * 3600 + mm * 60 + ss;
    u64::try_from(seconds * 1000 + ms).ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `Mon Nov 23 14:52:23 2026` of Unix seconds (UTC): fio's `time` key.
fn ctime(unix_s: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = i64::try_from(unix_s / 86_400).unwrap_or(0);
    let secs = unix_s % 86_400;
    // civil_from_days, the inverse of the above.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{} {} {day:2} {:02}:{:02}:{:02} {year}",
        DAYS[usize::try_from(days.rem_euclid(7)).unwrap_or(0)],
        MONTHS[usize::try_from(month - 1).unwrap_or(0)],
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::record::fixture::{record, two_step_record};

    fn doc(group_reporting: bool) -> serde_json::Value {
        let opts = FioReport {
            group_reporting,
            percentiles: None,
        };
        serde_json::to_value(document(&record(), &opts)).unwrap()
    }

    #[test]
    fn the_document_has_fio_s_paths_and_units() {
        let doc = doc(false);
        assert_eq!(doc["fio version"], "diskdash-0.1.0");
        assert_eq!(doc["timestamp"], 1_795_445_543u64);
        assert_eq!(doc["timestamp_ms"], 1_795_445_543_250u64);
        assert_eq!(doc["time"], "Mon Nov 23 14:52:23 2026");
        let r = &doc["jobs"][0];
        assert_eq!(
            (r["jobname"].as_str(), r["groupid"].as_u64()),
            (Some("r"), Some(0))
        );
        assert_eq!(r["error"], 0);
        let read = &r["read"];
        assert_eq!(read["io_bytes"], 400u64 << 20);
        assert_eq!(read["io_kbytes"], 400 * 1024);
        assert_eq!(read["bw_bytes"], 200u64 << 20);
        // bw is KiB/s, runtime ms.
        assert_eq!(read["bw"], read["bw_bytes"].as_u64().unwrap() / 1024);
        assert_eq!(read["runtime"], 2000);
        assert_eq!(read["iops"], 51_200.0);
        assert_eq!(read["total_ios"], 102_400);
        assert_eq!(read["clat_ns"], read["lat_ns"]);
        assert_eq!(
            read["slat_ns"],
            json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0})
        );
        let percentile = read["clat_ns"]["percentile"].as_object().unwrap();
        assert_eq!(percentile.len(), 17);
        assert_eq!(percentile["50.000000"], 80_383);
        assert_eq!(percentile["99.000000"], 120_319);
        assert_eq!(percentile["99.990000"], 2_007_039);
        assert_eq!(read["clat_ns"]["N"], 102_400);
        // No writes: fio's zeros, no percentiles.
        assert_eq!(r["write"]["runtime"], 0);
        assert!(r["write"]["clat_ns"].get("percentile").is_none());
        assert_eq!(r["trim"]["total_ios"], 0);
        assert_eq!(r["sync"]["total_ios"], 0);
        assert_eq!(
            (r["usr_cpu"].as_f64(), r["sys_cpu"].as_f64()),
            (Some(5.0), Some(30.0))
        );
        assert_eq!(r["ctx"], 5000);
        assert_eq!(r["job_runtime"], 2000);
        assert_eq!(
            r["diskdash"]["targets"][0],
            json!({"job": "r", "path": "/data/r.dat", "kind": "file", "created": false,
                "kept": true, "device": "vda"})
        );
        assert_eq!(doc["jobs"][1]["diskdash"]["targets"][0]["created"], true);
        assert_eq!(
            doc["disk_util"],
            json!([{"name": "vda", "read_ios": 120_000, "write_ios": 25_000, "read_merges": 20,
                "write_merges": 400, "read_ticks": 18_000, "write_ticks": 12_500,
                "in_queue": 30_600, "util": 98.5}])
        );
        let notes = &doc["diskdash"];
        assert_eq!(notes["format_version"], 5);
        assert_eq!(notes["reconciliation"][0]["disk"], "vda");
        assert_eq!(notes["reconciliation"][0]["device_read_ios"], 120_000);
        assert!(
            notes["latency"]
                .as_str()
                .unwrap()
                .contains("clat_ns and lat_ns")
        );
        assert_eq!(notes["warnings"][0], "vda served 94% of the run's bytes");
    }

    #[test]
    fn group_reporting_merges_histograms_not_percentiles() {
        let doc = doc(true);
        assert_eq!(doc["jobs"].as_array().unwrap().len(), 1);
        let read = &doc["jobs"][0]["read"];
        assert_eq!(read["total_ios"], 128_000);
        assert_eq!(read["bw_bytes"], 250u64 << 20);
        assert_eq!(read["runtime"], 2000);
        let p50 = read["clat_ns"]["percentile"]["50.000000"].as_u64().unwrap();
        let alone = doc_p50s();
        #[allow(clippy::cast_precision_loss)]
        let average = (alone[0] + alone[1]) as f64 / 2.0;
        // The merged median is a 120 us read of job r; the jobs' own medians are 80 us and 1 ms.
        assert_eq!((p50, alone), (120_319, [80_383, 1_003_519]));
        #[allow(clippy::cast_precision_loss)]
        let p50 = p50 as f64;
        assert!((p50 - average).abs() > 100_000.0, "{p50} vs {average}");
        assert_eq!(
            doc["jobs"][0]["diskdash"]["targets"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        assert_eq!(doc["jobs"][0]["diskdash"]["workers"], 2);
    }

    fn doc_p50s() -> [u64; 2] {
        let doc = doc(false);
        let p50 = |i: usize| {
            doc["jobs"][i]["read"]["clat_ns"]["percentile"]["50.000000"]
                .as_u64()
                .unwrap()
        };
        [p50(0), p50(1)]
    }

    #[test]
    fn a_given_percentile_list_is_used_and_keyed_like_fio() {
        let opts = FioReport {
            group_reporting: false,
            percentiles: Some(&[50.0, 99.999]),
        };
        let doc = serde_json::to_value(document(&record(), &opts)).unwrap();
        let keys: Vec<&String> = doc["jobs"][0]["read"]["lat_ns"]["percentile"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["50.000000", "99.999000"]);
    }

    #[test]
    fn two_steps_list_jobs_in_order() {
        let doc =
            serde_json::to_value(document(&two_step_record(), &FioReport::default())).unwrap();
        let jobs: Vec<(&str, u64)> = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                (
                    j["jobname"].as_str().unwrap(),
                    j["groupid"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(jobs, [("r", 0), ("w", 0), ("seq", 1)]);
        assert_eq!(doc["diskdash"]["reconciliation"][1]["step"], 1);
    }

    #[test]
    fn timestamps_read_back() {
        assert_eq!(unix_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(unix_ms("2000-03-01T00:00:01.5Z"), Some(951_868_801_500));
        assert_eq!(ctime(951_868_801), "Wed Mar  1 00:00:01 2000");
        assert_eq!(unix_ms("garbage"), None);
    }
}
