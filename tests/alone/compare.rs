//! `diskdash compare` judged on real runs' interval batches: the gate on a copy of a real
//! record cut to a tenth, percentiles over two real runs' batches, trims. The batches' spread
//! is the machine's, so these run in the `alone` binary (at two tests per CPU, `it`'s load
//! spread a null run's batches so wide that a 90% cut was no change within noise). The rest of
//! compare's tests are in `it`'s `compare.rs`.

use serde_json::Value;

use crate::support::compare::*;
use crate::support::record::{assert_valid_compare, assert_valid_record};
use crate::support::{assert_success, read_json, stderr, stdout};

#[test]
fn max_regression_gates_on_the_interval_of_a_cut_copy_of_a_real_record() {
    let dir = tempfile::tempdir().unwrap();
    // The null engine: the batches' spread is the CPU's, not a shared disk's.
    let base = record_long(
        dir.path(),
        "base.json",
        &["--rw", "randread", "--ioengine", "null"],
    );
    let recorded = read_json(&base);
    assert_valid_record(&recorded);
    let series = recorded["segments"][0]["jobs"][0]["series"]
        .as_array()
        .unwrap();
    assert!(series.len() >= 90, "{} intervals", series.len());

    // The same record against itself: no change at all passes even a 0% gate.
    let out = compare(&["--max-regression", "0", s(&base), s(&base)]);
    assert_success(&out);
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.ends_with("max regression 0%: passed\n"), "{text}");
    assert!(text.contains("no change within noise"), "{text}");

    let cut = cut(&base, "cut.json", "read", 10);
    let out = compare(&["--max-regression", "10", s(&base), s(&cut)]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    for (line, want) in lines.iter().zip([
        "regression: read IOPS fell 90.0% (",
        "regression: read bandwidth fell 90.0% (",
    ]) {
        assert!(line.starts_with(want), "{err}");
        assert!(line.ends_with("more than the 10% allowed"), "{err}");
    }
    let text = stdout(&out);
    assert!(text.contains("-90.0%"), "{text}");
    assert!(text.contains("  WORSE"), "{text}");
    // Percentiles are judged over the batches' histograms, which the cut left as they were.
    let p99 = text.lines().find(|l| l.starts_with("  lat p99 ")).unwrap();
    assert!(p99.ends_with("no change within noise"), "{p99}");

    let out = compare(&["--json", "--max-regression", "10", s(&base), s(&cut)]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_valid_compare(&json);
    assert_eq!(json["max_regression_pct"], 10.0);
    let regressions = json["regressions"].as_array().unwrap();
    assert_eq!(regressions.len(), 2, "{json}");
    for r in regressions {
        // The bound nearest zero lies between zero and the change.
        let (change, bound) = (
            r["change_pct"].as_f64().unwrap(),
            r["bound_pct"].as_f64().unwrap(),
        );
        assert!(bound < -10.0 && bound >= change - 1e-9, "{r}");
    }
    let iops = &json["directions"][0]["metrics"][0];
    assert_eq!(iops["verdict"], "worse");
    assert_eq!(iops["samples"]["unit"], "batch_means");
    assert!(iops["samples"]["base"].as_u64().unwrap() >= 9, "{iops}");
    assert!(
        iops["interval"]["high_pct"].as_f64().unwrap() < -10.0,
        "{iops}"
    );

    // A gate wider than the change passes; the other way round it is an improvement.
    assert_success(&compare(&["--max-regression", "95", s(&base), s(&cut)]));
    let out = compare(&["--max-regression", "10", s(&cut), s(&base)]);
    assert_success(&out);
    assert!(stdout(&out).contains("+900.0%"), "{}", stdout(&out));
    assert!(stdout(&out).contains("  better"), "{}", stdout(&out));
    // A noise floor above the change: no change within noise.
    let out = compare(&["--noise-floor", "95", s(&base), s(&cut)]);
    assert_success(&out);
    let text = stdout(&out);
    let iops = text.lines().find(|l| l.starts_with("  IOPS")).unwrap();
    assert!(iops.ends_with("no change within noise"), "{iops}");
}

/// Two real runs of 100 intervals: each percentile is judged over their 10 batches, each
/// batch's percentile read off its intervals' histograms merged; a copy whose reads each took
/// a second longer is worse at p99 and fails the gate.
#[test]
fn percentiles_are_judged_over_interval_batches_of_two_real_runs() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--rw", "randread", "--ioengine", "null"];
    let a = record_long(dir.path(), "a.json", &args);
    let b = record_long(dir.path(), "b.json", &args);
    let out = compare(&["--json", s(&a), s(&b)]);
    assert_success(&out);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_valid_compare(&json);
    let metrics = json["directions"][0]["metrics"].as_array().unwrap();
    for name in ["lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p999_ns"] {
        let m = metrics.iter().find(|m| m["metric"] == name).unwrap();
        assert_eq!(m["samples"]["unit"], "batch_percentiles", "{m}");
        // A batch whose intervals completed nothing has no percentile (a worker hands its
        // counts over every 250 ms at most, so some 10 ms intervals are empty).
        assert!(m["samples"]["base"].as_u64().unwrap() >= 2, "{m}");
        assert!(m["samples"]["new"].as_u64().unwrap() >= 2, "{m}");
        assert!(
            m["samples"]["base_intervals"].as_u64().unwrap() >= 90,
            "{m}"
        );
        assert!(m["interval"]["low_pct"].is_number(), "{m}");
        let verdict = m["verdict"].as_str().unwrap();
        assert!(["better", "worse", "no_change"].contains(&verdict), "{m}");
    }
    // The maximum stays shown, not tested.
    let max = metrics
        .iter()
        .find(|m| m["metric"] == "lat_max_ns")
        .unwrap();
    assert_eq!(max["verdict"], "not_judged", "{max}");

    // Every read a second later: far above any batch's spread.
    let slow = slowed(&a, "slow.json", 1_000_000_000);
    let out = compare(&["--max-regression", "50", s(&a), s(&slow)]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("regression: read lat p99 rose "),
        "{}",
        stderr(&out)
    );
    let text = stdout(&out);
    let p99 = text.lines().find(|l| l.starts_with("  lat p99 ")).unwrap();
    assert!(p99.ends_with("WORSE"), "{p99}");
}

#[test]
fn trims_are_compared_and_gated_like_reads_and_writes() {
    let dir = tempfile::tempdir().unwrap();
    let base = record_long(dir.path(), "base.json", &["--rw", "randtrim"]);
    assert!(read_json(&base)["trim"]["total_ios"].as_u64().unwrap() > 0);
    let out = compare(&[s(&base), s(&base)]);
    assert_success(&out);
    let text = stdout(&out);
    assert!(!text.contains("no I/O in either run"), "{text}");
    assert!(text.contains("trim"), "{text}");

    let cut = cut(&base, "cut.json", "trim", 100);
    let out = compare(&["--max-regression", "10", s(&base), s(&cut)]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).starts_with("regression: trim IOPS fell 99.0% ("),
        "{}",
        stderr(&out)
    );
}
