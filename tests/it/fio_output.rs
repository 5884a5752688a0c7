//! `diskdash fio`'s command line as people paste it (fio's getopt_long_only: prefixes,
//! single-dash long options) and its outputs as fio's consumers read them: the keys and types
//! fio-plot, PerfKitBenchmarker's `fio.ParseResults` and fioparser-style scripts read, json+'s
//! bins through fio's own `fio_jsonplus_clat2csv`, terse v3, and the key sets of fio's and
//! diskdash's documents for the same job side by side.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::fio_run::fio;
use crate::support::*;

/// `diskdash fio ARGS` in `dir`, its stdout as JSON.
fn fio_json(dir: &Path, args: &[&str]) -> Value {
    let out = fio(dir, args);
    assert_success(&out);
    serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)))
}

#[test]
fn the_seed_notes_command_lines_run_as_pasted() {
    let dir = tempfile::tempdir().unwrap();
    // The first line of the seed notes, its sizes and times scaled down and a file for the
    // device: `--group_report` is a prefix of group_reporting.
    let doc = fio_json(
        dir.path(),
        &[
            "--ramp_time=100ms",
            "--runtime=1",
            "--size=16m",
            "--ioengine=libaio",
            "--filename=dev",
            "--name=4k-read-64-64",
            "--numjobs=4",
            "--iodepth=8",
            "--rw=read",
            "--bs=4k",
            "--direct=1",
            "--group_report",
            "--output-format=json",
        ],
    );
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(
        jobs.len(),
        1,
        "group_reporting: one block for the four workers"
    );
    assert_eq!(jobs[0]["jobname"], "4k-read-64-64");
    assert_eq!(jobs[0]["diskdash"]["workers"], 4);
    assert!(jobs[0]["read"]["total_ios"].as_u64().unwrap() > 0);
    assert_eq!(doc["global options"]["ramp_time"], "100ms");
    assert_eq!(jobs[0]["job options"]["numjobs"], "4");

    // The second: fio's single-dash long options, `numactl ... fio -name=iops ...`.
    let doc = fio_json(
        dir.path(),
        &[
            "-name=iops",
            "-rw=read",
            "-bs=4k",
            "-size=4m",
            "-filename=dev2",
            "-runtime=1",
            "-group_reporting",
            "-output-format",
            "json",
        ],
    );
    assert_eq!(doc["jobs"][0]["jobname"], "iops");
    assert_eq!(doc["jobs"][0]["read"]["io_bytes"], 4u64 << 20);
    assert_eq!(
        doc["jobs"][0]["job options"]["rw"], "read",
        "-rw=read is the job's option"
    );

    // An ambiguous prefix is a one-line usage error naming the candidates.
    let out = fio(dir.path(), &["--name=a", "--size=1m", "--iodepth_b=2"]);
    assert_usage_error(&out);
    assert_stderr_has(
        &out,
        "--iodepth_b: ambiguous, it begins the options iodepth_batch, \
         iodepth_batch_complete_max, iodepth_batch_complete; write more of the name",
    );
}

/// What a key must hold.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Object,
    String,
    Integer,
    Number,
}

fn check(doc: &Value, path: &str, kind: Kind, reader: &str) {
    let mut value = doc;
    for part in path.split('/') {
        value = match value {
            Value::Array(items) => &items[part.parse::<usize>().unwrap()],
            _ => value
                .get(part)
                .unwrap_or_else(|| panic!("{reader} reads {path}: no {part:?} in {value}")),
        };
    }
    let ok = match kind {
        Kind::Object => value.is_object(),
        Kind::String => value.is_string(),
        Kind::Integer => value.is_u64(),
        Kind::Number => value.is_number(),
    };
    assert!(ok, "{reader} reads {path} as {kind:?}: {value}");
}

#[test]
fn the_keys_fio_s_consumers_read_are_there_with_their_types() {
    use Kind::{Integer, Number, Object, String};
    let dir = tempfile::tempdir().unwrap();
    let doc = fio_json(
        dir.path(),
        &[
            "--ioengine=psync",
            "--output-format=json",
            "--name=r",
            "--filename=data",
            "--size=4m",
            "--rw=randread",
            "--bs=4k",
            "--iodepth=1",
            "--numjobs=1",
            "--time_based",
            "--runtime=2",
        ],
    );
    let version = doc["fio version"].as_str().unwrap();
    assert!(version.starts_with("fio-3."), "{version}");
    assert!(
        doc["diskdash version"]
            .as_str()
            .unwrap()
            .starts_with("diskdash-")
    );
    // fio-plot 1.1.21 (jsonparsing.py): `job options` merged with `global options`, then
    // rw/bs/iodepth/numjobs, per direction bw, iops, iops_stddev, lat_ns mean/stddev, the
    // three latency tables, usr_cpu/sys_cpu.
    let plot: &[(&str, Kind)] = &[
        ("fio version", String),
        ("global options", Object),
        ("jobs/0/job options", Object),
        ("jobs/0/job options/rw", String),
        ("jobs/0/job options/bs", String),
        ("jobs/0/job options/iodepth", String),
        ("jobs/0/job options/numjobs", String),
        ("jobs/0/read/bw", Integer),
        ("jobs/0/read/iops", Number),
        ("jobs/0/read/iops_stddev", Number),
        ("jobs/0/read/lat_ns/mean", Number),
        ("jobs/0/read/lat_ns/stddev", Number),
        ("jobs/0/latency_ms", Object),
        ("jobs/0/latency_us", Object),
        ("jobs/0/latency_ns", Object),
        ("jobs/0/usr_cpu", Number),
        ("jobs/0/sys_cpu", Number),
    ];
    // PerfKitBenchmarker's fio.ParseResults: timestamp, jobname, per direction io_bytes, bw,
    // iops, bw_min/max/dev/agg/mean, clat_ns min/max/mean/stddev and its percentiles.
    let mut pkb: Vec<(std::string::String, Kind)> = [
        ("timestamp", Integer),
        ("jobs/0/jobname", String),
        ("jobs/0/read/io_bytes", Integer),
        ("jobs/0/read/bw", Integer),
        ("jobs/0/read/iops", Number),
        ("jobs/0/read/bw_min", Integer),
        ("jobs/0/read/bw_max", Integer),
        ("jobs/0/read/bw_dev", Number),
        ("jobs/0/read/bw_agg", Number),
        ("jobs/0/read/bw_mean", Number),
        ("jobs/0/read/clat_ns/min", Integer),
        ("jobs/0/read/clat_ns/max", Integer),
        ("jobs/0/read/clat_ns/mean", Number),
        ("jobs/0/read/clat_ns/stddev", Number),
    ]
    .iter()
    .map(|(p, k)| ((*p).to_string(), *k))
    .collect();
    for pct in [
        "1", "5", "10", "20", "30", "40", "50", "60", "70", "80", "90", "95", "99", "99.5", "99.9",
        "99.95", "99.99",
    ] {
        let key = format!("{:.6}", pct.parse::<f64>().unwrap());
        pkb.push((format!("jobs/0/read/clat_ns/percentile/{key}"), Integer));
    }
    // fioparser-style scripts: per direction the means and sample counts, job options.
    let parser: &[(&str, Kind)] = &[
        ("jobs/0/job options", Object),
        ("jobs/0/read/bw_mean", Number),
        ("jobs/0/read/iops_mean", Number),
        ("jobs/0/read/bw_samples", Integer),
        ("jobs/0/read/iops_samples", Integer),
        ("jobs/0/read/iops_min", Integer),
        ("jobs/0/read/iops_max", Integer),
        ("jobs/0/elapsed", Integer),
        ("jobs/0/job_runtime", Integer),
        ("jobs/0/majf", Integer),
        ("jobs/0/minf", Integer),
        ("jobs/0/iodepth_level", Object),
        ("jobs/0/iodepth_submit", Object),
        ("jobs/0/iodepth_complete", Object),
        ("jobs/0/latency_depth", Integer),
        ("jobs/0/latency_target", Integer),
        ("jobs/0/latency_percentile", Number),
        ("jobs/0/latency_window", Integer),
        ("jobs/0/write/bw_mean", Number),
        ("jobs/0/trim/bw_mean", Number),
    ];
    for (path, kind) in plot {
        check(&doc, path, *kind, "fio-plot");
    }
    for (path, kind) in &pkb {
        check(&doc, path, *kind, "PerfKitBenchmarker");
    }
    for (path, kind) in parser {
        check(&doc, path, *kind, "fioparser");
    }
    // The job ran alone in its step for 2 s of 1 s intervals: sampled, and the samples agree
    // with the job's own rate.
    let read = &doc["jobs"][0]["read"];
    let samples = read["bw_samples"].as_u64().unwrap();
    assert!((1..=3).contains(&samples), "{read}");
    let (min, max, mean) = (
        read["bw_min"].as_u64().unwrap(),
        read["bw_max"].as_u64().unwrap(),
        read["bw_mean"].as_f64().unwrap(),
    );
    let (min, max) = (min as f64, max as f64);
    assert!(min <= mean && mean <= max, "{read}");
    let bw = read["bw"].as_f64().unwrap();
    assert!(
        mean > bw * 0.5 && mean < bw * 1.5,
        "mean {mean} against bw {bw}"
    );
}

/// `fio_jsonplus_clat2csv` (fio's tools, in Debian's fio package) on PATH.
fn clat2csv() -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("fio_jsonplus_clat2csv"))
        .find(|p| p.is_file())
        .expect("fio_jsonplus_clat2csv is installed with fio")
}

#[test]
#[ignore = "needs fio"]
fn fio_s_clat2csv_converts_a_json_plus_document() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--output-format=json+",
            "--output=plus.json",
            "--name=rw",
            "--filename=data",
            "--size=4m",
            "--rw=randrw",
            "--bs=4k",
            "--ioengine=psync",
        ],
    );
    assert_success(&out);
    let doc = read_json(&dir.path().join("plus.json"));
    let job = &doc["jobs"][0];
    let converted = Command::new(clat2csv())
        .args(["plus.json", "clat"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_success(&converted);
    // fio's own check: the CSV read back gives the document's bins exactly.
    let validated = Command::new(clat2csv())
        .args(["--validate", "plus.json", "clat"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_success(&validated);
    let csv = std::fs::read_to_string(dir.path().join("clat_job0")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(", ").collect();
    let last: Vec<&str> = csv.lines().last().unwrap().split(", ").collect();
    for dir_name in ["read", "write"] {
        let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
        // The cumulative count of the last row is every I/O of the direction.
        let cumulative = format!("{dir_name}_clat_ns_cumulative");
        let total: u64 = csv
            .lines()
            .skip(1)
            .filter_map(|l| l.split(", ").nth(column(&cumulative)))
            .filter_map(|v| v.trim().parse().ok())
            .max()
            .unwrap();
        assert_eq!(
            total,
            job[dir_name]["total_ios"].as_u64().unwrap(),
            "{dir_name}"
        );
        assert!(!last.is_empty());
    }
}

/// Every key path of `value` (array items under `[]`), values left out; the keys of the
/// maps named in `opaque` (options, percentiles: their keys are data) left out too.
fn key_paths(value: &Value, at: &str, opaque: &[&str], out: &mut BTreeSet<std::string::String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let path = format!("{at}/{key}");
                out.insert(path.clone());
                if !opaque.contains(&key.as_str()) {
                    key_paths(child, &path, opaque, out);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                key_paths(item, &format!("{at}[]"), opaque, out);
            }
        }
        _ => {}
    }
}

#[test]
#[ignore = "needs fio"]
fn diskdash_s_json_has_every_key_fio_s_has_for_the_same_job() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data"), vec![0x5a_u8; 4 << 20]).unwrap();
    let job = [
        "--ioengine=psync",
        "--name=rw",
        "--filename=data",
        "--size=4m",
        "--rw=randrw",
        "--bs=4k",
        "--runtime=1",
        "--time_based",
    ];
    let run = |program: &str, pre: &[&str], format: &str| -> std::string::String {
        let out = Command::new(program)
            .args(pre)
            .args(job)
            .arg(format!("--output-format={format}"))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_success(&out);
        stdout(&out)
    };
    let opaque = ["global options", "job options", "percentile", "bins"];
    let mut fio_keys = BTreeSet::new();
    let fio_doc: Value = serde_json::from_str(&run("fio", &[], "json+")).unwrap();
    key_paths(&fio_doc, "", &opaque, &mut fio_keys);
    let mut ours = BTreeSet::new();
    let our_doc: Value = serde_json::from_str(&run(
        BIN,
        &["fio", "--no-tui", "--allow-destructive"],
        "json+",
    ))
    .unwrap();
    key_paths(&our_doc, "", &opaque, &mut ours);
    // fio's keys diskdash leaves out, each for a reason.
    let left_out = |key: &str| {
        // fio's aggregate of a stacked device's members (dm, md): diskdash lists each disk.
        key.starts_with("/disk_util[]/aggr_")
    };
    let missing: Vec<&std::string::String> = fio_keys
        .iter()
        .filter(|k| !ours.contains(*k) && !left_out(k))
        .collect();
    assert!(missing.is_empty(), "fio has, diskdash lacks: {missing:?}");
    // Both have bins where I/O was.
    for doc in [&fio_doc, &our_doc] {
        assert!(doc["jobs"][0]["read"]["clat_ns"]["bins"].is_object());
    }

    // Terse v3: the same fields before the disks (9 per disk).
    let fields = |line: &str, disks: usize| line.trim_end().split(';').count() - 9 * disks;
    let fio_line = run("fio", &[], "terse");
    let our_line = run(BIN, &["fio", "--no-tui", "--allow-destructive"], "terse");
    let fio_disks = fio_doc["disk_util"].as_array().map_or(0, Vec::len);
    let our_disks = our_doc["disk_util"].as_array().map_or(0, Vec::len);
    assert_eq!(
        fields(&fio_line, fio_disks),
        fields(&our_line, our_disks),
        "fio: {fio_line}\ndiskdash: {our_line}"
    );
    assert!(our_line.starts_with("3;fio-3.33;rw;0;0;"), "{our_line}");
    // Field by field the same shape (digits aside): `1.000000%=23`, `0.000000%`, `100.0%`.
    let shape = |line: &str, disks: usize| -> Vec<std::string::String> {
        let fields: Vec<&str> = line.trim_end().split(';').collect();
        fields[..fields.len() - 9 * disks]
            .iter()
            .map(|f| {
                let mut out = std::string::String::new();
                for c in f.chars() {
                    let c = if c.is_ascii_digit() { '9' } else { c };
                    if !(c == '9' && out.ends_with('9')) {
                        out.push(c);
                    }
                }
                out
            })
            .collect()
    };
    let (fio_shape, our_shape) = (shape(&fio_line, fio_disks), shape(&our_line, our_disks));
    for (i, (a, b)) in fio_shape.iter().zip(&our_shape).enumerate().skip(3) {
        assert_eq!(a, b, "field {}: fio {fio_line}\ndiskdash {our_line}", i + 1);
    }
}

/// A 2 s null-engine job with `--status-interval` in `format`, two jobs.
fn status_run(dir: &Path, format: &str) -> String {
    let out = fio(
        dir,
        &[
            "--json=r.json",
            "--status-interval=500ms",
            "--ioengine=null",
            "--size=16M",
            "--rw=randread",
            "--bs=4k",
            "--runtime=2",
            "--time_based",
            &format!("--output-format={format}"),
            "--name=a",
            "--name=b",
        ],
    );
    assert_success(&out);
    stdout(&out)
}

#[test]
fn status_interval_prints_the_full_json_report_of_the_run_so_far_each_interval() {
    let dir = tempfile::tempdir().unwrap();
    let text = status_run(dir.path(), "json");
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&text)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}: {text}"));
    // 0.5, 1.0 and 1.5 s into the run, then the final report.
    assert!(docs.len() >= 4, "{} documents: {text}", docs.len());
    let totals = |doc: &Value| -> Vec<u64> {
        doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|job| job["read"]["total_ios"].as_u64().unwrap())
            .collect()
    };
    for doc in &docs {
        assert!(doc["fio version"].is_string(), "{doc}");
        let names: Vec<&str> = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|job| job["jobname"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "b"], "{doc}");
        assert!(
            doc["jobs"][0]["read"]["clat_ns"]["percentile"].is_object(),
            "{doc}"
        );
    }
    for pair in docs.windows(2) {
        let (before, after) = (totals(&pair[0]), totals(&pair[1]));
        assert!(
            before.iter().zip(&after).all(|(b, a)| b <= a),
            "{before:?} then {after:?}"
        );
        let runtime = |doc: &Value| doc["jobs"][0]["job_runtime"].as_u64().unwrap();
        assert!(runtime(&pair[0]) < runtime(&pair[1]), "{text}");
    }
    // Each report covers the run from its start: the first already counts I/Os, and the
    // last, the final report, has the most.
    assert!(totals(&docs[0]).iter().all(|&n| n > 0), "{text}");
    assert!(totals(&docs[0]) < totals(docs.last().unwrap()), "{text}");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let recorded: Vec<u64> = record["segments"][0]["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|job| job["read"]["total_ios"].as_u64().unwrap())
        .collect();
    assert_eq!(totals(docs.last().unwrap()), recorded);
}

#[test]
fn without_status_interval_one_report_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--ioengine=null",
            "--size=16M",
            "--rw=randread",
            "--runtime=1",
            "--time_based",
            "--output-format=json",
            "--name=a",
        ],
    );
    assert_success(&out);
    let docs = serde_json::Deserializer::from_str(&stdout(&out))
        .into_iter::<Value>()
        .count();
    assert_eq!(docs, 1, "{}", stdout(&out));
}
