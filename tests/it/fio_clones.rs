//! `diskdash fio` on `numjobs` jobs: each clone reported as fio reports it.

use serde_json::Value;

use crate::support::*;

/// fio 3.33 reports each clone of `numjobs=2` (no group_reporting) with its own bandwidth and
/// IOPS samples; so does `diskdash fio`: each clone's `bw_mean` is its own bandwidth, from its
/// own intervals (one every 250 ms here), not zero.
#[test]
fn each_clone_has_its_own_bandwidth_and_iops_samples() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::fio_run::fio(
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
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let jobs = json["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "{jobs:?}");
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
