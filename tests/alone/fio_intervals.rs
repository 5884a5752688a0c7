//! `diskdash fio`'s reports made each interval of a short run, counted: each clone's own
//! bandwidth and IOPS samples (`numjobs=2`, a report each 250 ms), `thinktime` after every
//! block capping the IOPS, and terse lines of each job each `--status-interval`. The counts
//! are the run's timers', so these run in the `alone` binary (at two tests per CPU, `it`'s
//! load cut each of them below its count). Their neighbours are in `it`'s `fio_clones.rs`,
//! `fio_options.rs` and `fio_output.rs`.

use serde_json::Value;

use crate::support::*;

/// fio 3.33 reports each clone of `numjobs=2` (no group_reporting) with its own bandwidth and
/// IOPS samples; so does `diskdash fio`: each clone's `bw_mean` is its own bandwidth, from its
/// own intervals (one every 250 ms here), not zero.
#[test]
fn each_clone_has_its_own_bandwidth_and_iops_samples() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--output-format=json",
            "--json=r.json",
            "--status-interval=250ms",
            "--ioengine=null",
            "--name=c",
            "--size=16M",
            "--numjobs=2",
            "--rw=randread",
            "--runtime=1",
            "--time_based",
            "--rate_iops=20000",
        ],
    );
    assert_success(&out);
    // A report each 250 ms, each clone on its own like the final one, which is last.
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&stdout(&out))
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(docs.len() >= 3, "{} documents", docs.len());
    for doc in &docs {
        assert_eq!(doc["jobs"].as_array().unwrap().len(), 2, "{doc}");
    }
    let json = docs.last().unwrap();
    let jobs = json["jobs"].as_array().unwrap();
    for job in jobs {
        let read = &job["read"];
        let samples = read["bw_samples"].as_u64().unwrap();
        assert!(samples >= 2, "{read}");
        assert_eq!(read["iops_samples"].as_u64().unwrap(), samples, "{read}");
        let near = |mean: &Value, own: &Value| {
            let (mean, own) = (mean.as_f64().unwrap(), own.as_f64().unwrap());
            own > 0.0 && (mean / own - 1.0).abs() < 0.15
        };
        assert!(near(&read["bw_mean"], &read["bw"]), "{read}");
        assert!(near(&read["iops_mean"], &read["iops"]), "{read}");
        let (min, max) = (
            read["bw_min"].as_u64().unwrap(),
            read["bw_max"].as_u64().unwrap(),
        );
        assert!(min > 0 && min <= max, "{read}");
    }
    // The record keeps each clone's intervals, in the schema.
    let record = read_json(&dir.path().join("r.json"));
    crate::support::record::assert_valid_record(&record);
    for clone in record["segments"][0]["jobs"][0]["clones"]
        .as_array()
        .unwrap()
    {
        let intervals = clone["intervals"].as_array().unwrap();
        assert!(intervals.len() >= 2, "{clone}");
        let ios: u64 = intervals
            .iter()
            .map(|i| i["read_ios"].as_u64().unwrap())
            .sum();
        assert_eq!(ios, clone["read"]["total_ios"].as_u64().unwrap(), "{clone}");
    }
}

#[test]
fn thinktime_after_every_block_caps_the_iops() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("j.fio"),
        "[t]\nrw=read\nsize=4m\nthinktime=10ms\nthinktime_blocks=1\ntime_based\nruntime=1s\n\
         filename=f\n",
    )
    .unwrap();
    let out = fio(dir.path(), &["j.fio", "--json", "r.json"]);
    assert_success(&out);
    let record = read_json(&dir.path().join("r.json"));
    let ios = record["segments"][0]["jobs"][0]["read"]["total_ios"]
        .as_u64()
        .unwrap();
    // One I/O, then 10 ms asleep: at most 100 in a second; a page-cache read costs little.
    assert!((60..=101).contains(&ios), "{ios} reads in 1 s");
}

#[test]
fn status_interval_prints_terse_lines_of_each_job_each_interval() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--json=r.json",
            "--status-interval=500ms",
            "--ioengine=null",
            "--size=16M",
            "--rw=randread",
            "--bs=4k",
            "--runtime=2",
            "--time_based",
            "--output-format=terse",
            "--name=a",
            "--name=b",
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    for job in ["a", "b"] {
        let ios: Vec<u64> = text
            .lines()
            .map(|line| line.split(';').collect::<Vec<_>>())
            .filter(|fields| fields[2] == job)
            // Field 6: read total I/O in KiB.
            .map(|fields| fields[5].parse().unwrap())
            .collect();
        assert!(ios.len() >= 4, "{job}: {text}");
        assert!(ios.windows(2).all(|w| w[0] <= w[1]), "{job}: {text}");
    }
}
