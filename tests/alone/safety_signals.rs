//! A stopped run's thinned series (`it`'s `safety_signals` has the rest): the stop is told
//! from a session starved by the machine's load by whether the workers ran in the gap, and
//! other tests' load beside it made a stop read as starving (three tries were not always
//! enough at two tests per CPU), so it runs here, alone.

use std::time::Duration;

use nix::sys::signal::Signal;
use serde_json::Value;

use crate::support::group::GroupRun;
use crate::support::record::{opts, record_in};

/// A run well past the series' cap (16 points here, through `DISKDASH_SERIES_CAP`: 1 s at
/// 10 ms is 100 intervals, past the 64 that take a stride of 8) stopped for 1.1 s by SIGSTOP: the thinned series keeps every
/// I/O (neighbouring intervals merged, never dropped) and the stall: the points it covers
/// say how much of their span the process did not run (`stalled_ns`, summed when merged),
/// as long as the stop altogether, and I/O resumes after SIGCONT.
#[test]
fn a_series_past_its_cap_keeps_every_io_and_the_stall() {
    const CAP: usize = 16;
    const STOPPED: Duration = Duration::from_millis(1100);
    // A session thread kept off the CPU by the suite's other tests for over 20 ms just
    // before the stop sees the workers tick in the gap and reads it as starved, not stopped
    // (`aggregate::workers_ran_in_gap`, unit-tested): the run is tried again then, up to
    // three times; the thinning checked below is the point here.
    let mut attempt = 0;
    let (_dir, record) = loop {
        attempt += 1;
        let dir = tempfile::tempdir().unwrap();
        let mut run = GroupRun::start_with(
            dir.path(),
            &opts("--no-tui --runtime 1s --size 16M --interval 10ms --ioengine null"),
            &[("DISKDASH_SERIES_CAP", "16")],
        );
        run.wait_measuring(1);
        std::thread::sleep(Duration::from_millis(300));
        run.signal(Signal::SIGSTOP);
        std::thread::sleep(STOPPED);
        run.signal(Signal::SIGCONT);
        let (status, _, stderr) = run.finish();
        assert_eq!(status.code(), Some(0), "{status:?}, stderr: {stderr:#?}");
        let record = record_in(dir.path());
        let read_as_starved = record["segments"][0]["stalled_ns"].as_u64() == Some(0)
            && record["typed_warnings"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|w| w["kind"] == "starved");
        if !read_as_starved || attempt == 3 {
            break (dir, record);
        }
        eprintln!("attempt {attempt}: the stop read as a starved session; again");
    };
    let step = &record["segments"][0];
    let n = |v: &Value| v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"));
    let series = step["series"].as_array().unwrap();
    let stride = n(&step["series_stride"]);
    assert!(
        series.len() <= CAP && stride >= 8,
        "{} points of {stride}",
        series.len()
    );
    // Nothing dropped: the points cover every interval once and hold every I/O.
    let mut next = 0;
    for p in series {
        assert_eq!(n(&p["index"]), next, "{p}");
        next += p["merged"]["intervals"].as_u64().unwrap_or(1);
    }
    let ios = |p: &Value| n(&p["read"]["total_ios"]);
    assert_eq!(
        series.iter().map(ios).sum::<u64>(),
        n(&step["read"]["total_ios"])
    );
    // The stop is not measured time (the runtime is extended by it) and no "starved" session:
    // the step says how long it lasted, and so do the thinned series' points it covers.
    // (At least the stop: a loaded machine may stall the process again on its own.)
    let stalled_ns = n(&step["stalled_ns"]);
    assert!(
        stalled_ns >= 1_000_000_000,
        "stalled {stalled_ns} ns: {}",
        record["typed_warnings"]
    );
    assert!(
        !record["typed_warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|w| w["kind"] == "starved"),
        "{}",
        record["typed_warnings"]
    );
    let stalled_at: Vec<usize> = (0..series.len())
        .filter(|&i| series[i]["stalled_ns"].as_u64().unwrap_or(0) > 0)
        .collect();
    let in_series: u64 = stalled_at
        .iter()
        .map(|&i| n(&series[i]["stalled_ns"]))
        .sum();
    assert!(
        in_series.abs_diff(stalled_ns) <= 20_000_000,
        "the series holds {in_series} ns of the {stalled_ns} ns stall at {stalled_at:?}"
    );
    // I/O resumed after the stop: points after the last stalled one did I/O.
    let last = *stalled_at.last().unwrap();
    assert!(
        series[last + 1..].iter().any(|p| ios(p) > 0),
        "no I/O after the stall at point {last} of {}",
        series.len()
    );
}
