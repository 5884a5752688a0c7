//! Discards (`--rw trim|randtrim|trimwrite`, fio's modes): on a loop device the device's
//! discard count over the window equals the run's trims; on a scratch file they punch holes.
//! Trims destroy data, so they are behind the write interlocks.

use crate::support::record::*;
use crate::support::*;

#[test]
#[ignore = "needs root"]
fn trims_on_a_loop_device_are_the_devices_discards() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    sparse_file(&image, 64 << 20);
    let dev = LoopDevice::attach_unique(&image);
    for rw in ["randtrim", "trim", "trimwrite"] {
        let (out, record) = bench_ok(
            dir.path(),
            &args(
                dev.path(),
                &format!("--rw {rw} --size 32M --runtime 500ms --allow-destructive"),
            ),
        );
        let trims = record["trim"]["total_ios"].as_u64().unwrap();
        assert!(trims > 0, "{rw}: {}", record["trim"]);
        assert_eq!(
            record["engine"]["used"], "psync",
            "{rw}: trims are synchronous"
        );
        let rec = &record["device"]["reconciliation"];
        assert_eq!(rec["app_trim_ios"], trims, "{rw}: {rec}");
        assert_eq!(
            rec["device_discard_ios"], trims,
            "{rw}: every trim is one discard on a device only this test uses: {rec}"
        );
        let verdict = rec["verdict"].as_str().unwrap();
        assert!(
            verdict.contains("completed every trim of the run as one discard"),
            "{verdict}"
        );
        let iostat = &record["device"]["iostat"];
        assert!(iostat["d/s"].as_f64().unwrap() > 0.0, "{iostat}");
        assert_stdout_has(&out, "  trim    IOPS ");
        assert_stdout_has(&out, "          d/s ");
        let writes = record["write"]["total_ios"].as_u64().unwrap();
        if rw == "trimwrite" {
            // Each range is trimmed, then written: as many writes as trims, give or take the
            // one in flight at the end.
            assert!(
                trims.abs_diff(writes) <= 1,
                "{trims} trims, {writes} writes"
            );
        } else {
            assert_eq!(writes, 0, "{rw}");
        }
        let lines: Vec<String> = stderr(&out)
            .lines()
            .filter(|l| l.starts_with('['))
            .map(str::to_string)
            .collect();
        assert!(lines.iter().all(|l| l.contains(" trim ")), "{lines:?}");
    }
    // Without the opt-in a device is not trimmed.
    let out = bench(
        dir.path(),
        &args(dev.path(), "--rw randtrim --size 32M --runtime 300ms"),
    );
    assert_usage_error(&out);
    assert!(
        stderr(&out).contains("--allow-destructive"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn trims_punch_holes_in_a_scratch_file_and_spare_a_file_with_data() {
    let dir = tempfile::tempdir().unwrap();
    let (out, record) = bench_ok(
        dir.path(),
        &opts("--rw randtrim --size 16M --runtime 300ms"),
    );
    assert!(record["trim"]["total_ios"].as_u64().unwrap() > 0);
    assert_eq!(record["target"]["kind"], "scratch");
    assert_eq!(record["target"]["scratch_removed"], true);
    assert_stderr_has(&out, "trims are synchronous");
    // Past one pass over the file the holes are punched already: said, as a fact too.
    let trimmed = record["trim"]["io_bytes"].as_u64().unwrap();
    let repeated: Vec<&serde_json::Value> = record["typed_warnings"]
        .as_array()
        .map(|w| w.iter().filter(|w| w["kind"] == "trims_repeated").collect())
        .unwrap_or_default();
    if trimmed > 16 << 20 {
        assert_eq!(repeated.len(), 1, "{}", record["typed_warnings"]);
        assert_eq!(repeated[0]["trimmed_bytes"], trimmed);
        assert_eq!(repeated[0]["working_set_bytes"], 16 << 20);
        assert_stderr_has(&out, "trims repeated: ");
    } else {
        assert!(repeated.is_empty(), "{}", record["typed_warnings"]);
    }
    // One pass at most: no warning.
    let (_, record) = bench_ok(
        dir.path(),
        &opts("--rw trim --size 16M --io-size 8M --runtime 30s"),
    );
    assert_eq!(record["trim"]["io_bytes"], 8 << 20);
    assert!(
        record["typed_warnings"]
            .as_array()
            .is_none_or(|w| w.iter().all(|w| w["kind"] != "trims_repeated")),
        "{}",
        record["typed_warnings"]
    );
    assert!(leftovers(dir.path(), &[RECORD]).is_empty());

    std::fs::write(dir.path().join("data.bin"), vec![7u8; 1 << 20]).unwrap();
    let out = bench(dir.path(), &opts("data.bin --rw trim --runtime 300ms"));
    assert_usage_error(&out);
    assert_eq!(
        std::fs::read(dir.path().join("data.bin")).unwrap(),
        vec![7u8; 1 << 20],
        "the data is untouched"
    );
}
