//! Paced load's bad input (`--rate-iops`, `--rate`, `--rate-process`) and mixed block sizes
//! (`--bssplit`), which pacing by bytes meets. The paced runs, whose check is the achieved
//! rate, are in the `alone` test binary (`tests/alone/rate.rs`).

use crate::support::record::*;
use crate::support::*;

#[test]
fn bad_paces_are_usage_errors_naming_the_value_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "--rate-iops 0",
            r#"error: --rate-iops "0": a rate of 0 paces nothing; leave the direction empty (e.g. ,5000) or drop --rate-iops"#,
        ),
        (
            "--rate-iops 20k",
            r#"error: --rate-iops "20k": write the count in full ("20k" means x1024 to fio); use e.g. 20000 (reads and writes), 20000,5000 or ,5000 (writes only)"#,
        ),
        (
            "--rate-iops fast",
            r#"error: --rate-iops "fast": "fast" is not a rate; use e.g. 20000 (reads and writes), 20000,5000 or ,5000 (writes only)"#,
        ),
        (
            "--rate-iops 1,1,1",
            r#"error: --rate-iops "1,1,1": a third value caps trims, which this job does not issue; use e.g. 20000 (reads and writes), 20000,5000 or ,5000 (writes only)"#,
        ),
        (
            "--rate 10M --rate-iops 100",
            "error: --rate-iops and --rate cannot be combined; cap I/Os or bytes, not both",
        ),
        (
            "--rate-iops ,500",
            r#"error: --rate-iops ",500" caps no direction this job does (it only reads); give the read cap first, e.g. 20000"#,
        ),
        (
            "--rate 10M --rate-process bursty",
            r#"error: --rate-process "bursty" is not a rate process; use linear or poisson"#,
        ),
        (
            "--rate 0M/s",
            r#"error: --rate "0M/s": a rate of 0 paces nothing; leave the direction empty (e.g. ,5000) or drop --rate"#,
        ),
    ];
    assert_bench_refuses(dir.path(), cases, Line::Whole);
}

#[test]
fn bssplit_mixes_block_sizes_by_their_shares() {
    let dir = tempfile::tempdir().unwrap();
    let (out, record) = bench_ok(
        dir.path(),
        &opts("--bssplit 4k/50:64k/50 -q 8 --size 16M --runtime 1s --norandommap"),
    );
    assert_eq!(record["job"]["bssplit"], "4k/50:64k/50");
    assert_eq!(record["job"]["bs"], 65536, "buffers hold the largest");
    let read = &record["read"];
    let mean = read["io_bytes"].as_f64().unwrap() / read["total_ios"].as_f64().unwrap();
    // Drawn with replacement, half 4 KiB, half 64 KiB: 34 KiB on average.
    assert!(
        (30_000.0..39_000.0).contains(&mean),
        "mean I/O {mean} bytes"
    );
    // Under the random map (the default, as fio's) a long block is cut where the pass has
    // been: fio 3.33 gives 19-21 KiB for this split over one pass.
    let (_, record) = bench_ok(
        dir.path(),
        &opts("--bssplit 4k/50:64k/50 -q 8 --size 16M --runtime 1s"),
    );
    let read = &record["read"];
    let mean = read["io_bytes"].as_f64().unwrap() / read["total_ios"].as_f64().unwrap();
    assert!(
        (15_000.0..26_000.0).contains(&mean),
        "mean I/O under the map {mean} bytes"
    );
    assert_stdout_has(&out, "randread bssplit=4k/50:64k/50 iodepth=8");

    // The fio form, a split per direction, paced by bytes.
    let dir = tempfile::tempdir().unwrap();
    let record = fio_record(
        dir.path(),
        &[
            "--name=mixed",
            "--filename=mixed.dat",
            "--rw=randrw",
            "--size=16M",
            "--bssplit=4k/100,64k/100",
            "--runtime=1",
            "--time_based",
            // Each I/O its split's size: the random map would cut a 64k write short.
            "--norandommap",
        ],
    );
    assert_eq!(record["job"]["bssplit"], "4k/100,64k/100");
    for (dir_name, bytes) in [("read", 4096), ("write", 65536)] {
        let d = &record[dir_name];
        assert_eq!(
            d["io_bytes"].as_u64().unwrap(),
            d["total_ios"].as_u64().unwrap() * bytes,
            "{dir_name}"
        );
    }
}
