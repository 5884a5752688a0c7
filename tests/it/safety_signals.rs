//! Signals and stops against the real binary, sent to its process group the way `timeout`,
//! a closing terminal or a job-control shell sends them: whatever arrives, the run ends with a
//! record that validates and without its scratch file; stopped time is not measured time.
//! None of this needs root: the target is a scratch file in a temporary directory.

use std::path::Path;
use std::process::ExitStatus;
use std::time::Duration;

use nix::sys::signal::Signal;
use serde_json::Value;

use crate::support::group::GroupRun;
use crate::support::record::{RECORD, leftovers, opts, record_in};

/// Asserts a run interrupted by `signal`: exit 128 + the signal, an `interrupted` record that
/// validates, the scratch file removed (the record says so, and nothing but the record is left
/// in `dir`; the null engine makes none).
fn assert_interrupted(
    dir: &Path,
    (status, signal): (ExitStatus, Signal),
    stderr: &[String],
    what: &str,
) -> Value {
    assert_eq!(
        status.code(),
        Some(128 + signal as i32),
        "{what}: {status:?}, stderr: {stderr:#?}"
    );
    let record = record_in(dir);
    assert_eq!(record["status"], "interrupted", "{what}");
    // The null engine is diskless: it makes no scratch file to remove.
    let scratch = record["engine"]["used"] != "null";
    assert_eq!(record["target"]["scratch_removed"], scratch, "{what}");
    assert!(
        leftovers(dir, &[RECORD]).is_empty(),
        "{what}: files left: {:?}",
        leftovers(dir, &[RECORD])
    );
    record
}

/// `timeout` sends SIGTERM to the child and to its group: two signals in a row. Neither may
/// cut the drain short: exit 143 with the record and without the scratch file, every time.
#[test]
fn a_double_sigterm_to_the_group_still_records_and_removes_the_scratch_file() {
    let _turn = crate::support::timing_turn();
    for engine in ["--ioengine io_uring", "--ioengine null -j 2"] {
        for round in 0..3 {
            let what = format!("{engine}, round {round}");
            let dir = tempfile::tempdir().unwrap();
            let mut run = GroupRun::start(
                dir.path(),
                &opts(&format!(
                    "{engine} --runtime 30s --size 16M --interval 100ms"
                )),
            );
            run.wait_measuring(2);
            run.signal(Signal::SIGTERM);
            run.signal(Signal::SIGTERM);
            let (status, _, stderr) = run.finish();
            let record = assert_interrupted(dir.path(), (status, Signal::SIGTERM), &stderr, &what);
            assert_eq!(record["segments"][0]["status"], "interrupted", "{what}");
            assert!(record["read"]["total_ios"].as_u64().unwrap() > 0, "{what}");
        }
    }
}

/// A closed terminal (SIGHUP) or Ctrl-\ (SIGQUIT) ends a headless run like SIGTERM does.
#[test]
fn sighup_and_sigquit_end_a_headless_run_like_sigterm() {
    for signal in [Signal::SIGHUP, Signal::SIGQUIT] {
        let dir = tempfile::tempdir().unwrap();
        let mut run = GroupRun::start(
            dir.path(),
            &opts("--no-tui --runtime 30s --size 16M --interval 100ms"),
        );
        run.wait_measuring(2);
        run.signal(signal);
        let (status, _, stderr) = run.finish();
        let record = assert_interrupted(dir.path(), (status, signal), &stderr, signal.as_str());
        assert!(record["read"]["total_ios"].as_u64().unwrap() > 0);
    }
}

/// `--bs 64M -q 32`: 2 GiB of I/O buffers to fill before the first I/O (a job that writes:
/// one that only reads leaves its buffers unfilled), seconds of setup (tens of seconds in a
/// debug build). SIGTERM during that setup acts within about a second, still with the record
/// and without the scratch file.
#[test]
fn sigterm_during_a_slow_setup_acts_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut run = GroupRun::start(
        dir.path(),
        &opts("--rw randrw --bs 64M -q 32 --size 64M --runtime 30s --interval 100ms"),
    );
    // The working set is written (a quick fill of 64 MiB); the worker fills its buffers now.
    // Signalled as soon as the fill says it is done: the buffers' setup has just begun.
    run.wait_for(1, |l| l.starts_with("note: wrote the"));
    run.signal(Signal::SIGTERM);
    let (status, took, stderr) = run.finish();
    let record = assert_interrupted(dir.path(), (status, Signal::SIGTERM), &stderr, "slow setup");
    // What "at once" means without a stopwatch: the setup was still running (seconds of it
    // left), so a signal that acts during setup leaves no step and no I/O; one that waited
    // for the setup would have started the step. The time bound only guards against the
    // wait for the whole setup seen before (12 s on a quiet machine), with room for a loaded one.
    assert!(
        record["segments"].as_array().unwrap().is_empty(),
        "the step started: the signal waited for the setup ({took:?})"
    );
    assert_eq!(record["read"]["total_ios"], 0, "interrupted before any I/O");
    assert_eq!(
        record["write"]["total_ios"], 0,
        "interrupted before any I/O"
    );
    assert!(
        took < Duration::from_secs(20),
        "took {took:?} to act on SIGTERM during setup"
    );
    assert_eq!(record["target"]["preconditioned"], true);
}

/// `--rw randread --bs 64M -q 32`: a job that only reads leaves its 2 GiB of buffers
/// untouched, and io_uring's buffer registration (on by default) would fault them all in
/// within one call that cannot look at the stop flag (seconds of it). The worker faults them
/// in first, 64 MiB at a time, looking at the flag between steps: SIGTERM once a quarter of
/// the pool is in memory ends the setup at once, with the record and without the scratch
/// file, long before the rest is (the run's peak resident memory stays under three quarters
/// of the pool; registration went on to all of it before it could stop).
#[test]
fn sigterm_while_a_read_pool_is_faulted_in_for_registration_acts_at_once() {
    const POOL_KIB: u64 = 2 << 20;
    let dir = tempfile::tempdir().unwrap();
    let mut run = GroupRun::start(
        dir.path(),
        &opts("--rw randread --bs 64M -q 32 --size 64M --runtime 30s --interval 100ms"),
    );
    run.wait_for(1, |l| l.starts_with("note: wrote the"));
    run.wait_resident(POOL_KIB / 4);
    run.signal(Signal::SIGTERM);
    let (status, took, stderr, peak_kib) = run.finish_with_peak();
    let record = assert_interrupted(
        dir.path(),
        (status, Signal::SIGTERM),
        &stderr,
        "registration setup",
    );
    assert!(
        record["segments"].as_array().unwrap().is_empty(),
        "the step started: the signal waited for the setup ({took:?})"
    );
    assert_eq!(record["read"]["total_ios"], 0, "interrupted before any I/O");
    assert!(
        peak_kib < POOL_KIB * 3 / 4,
        "peak resident {peak_kib} KiB: the 2 GiB pool was faulted in before the stop"
    );
    assert!(
        took < Duration::from_secs(10),
        "took {took:?} to act on SIGTERM during setup"
    );
}

/// SIGSTOP for 2.5 s, then SIGCONT, in a 2 s run: the stopped time is reported as stalled (in
/// the record, on stderr and in the summary), left out of the measured time and the rates, and
/// the run still measures its whole 2 s.
#[test]
fn a_stopped_run_reports_the_stall_and_measures_only_running_time() {
    const STOPPED: Duration = Duration::from_millis(2500);
    let dir = tempfile::tempdir().unwrap();
    let mut run = GroupRun::start(
        dir.path(),
        &opts("--no-tui --runtime 2s --size 16M --interval 250ms"),
    );
    run.wait_measuring(2);
    run.signal(Signal::SIGSTOP);
    std::thread::sleep(STOPPED);
    run.signal(Signal::SIGCONT);
    let stdout = run.child.stdout.take().unwrap();
    let (status, _, stderr) = run.finish();
    let stdout = std::io::read_to_string(stdout).unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}, stderr: {stderr:#?}");
    let record = record_in(dir.path());
    assert_eq!(record["status"], "completed");
    assert!(
        leftovers(dir.path(), &[RECORD]).is_empty(),
        "scratch file removed"
    );

    let ns = |v: &Value| v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"));
    let seconds = |v: &Value| ns(v) as f64 / 1e9;
    let stalled_s = seconds(&record["stalled_ns"]);
    assert!((2.0..4.0).contains(&stalled_s), "stalled {stalled_s} s");
    assert_eq!(record["segments"][0]["stalled_ns"], record["stalled_ns"]);
    // The runtime counts running time only: the whole 2 s were measured, the stop was not.
    let elapsed_s = seconds(&record["elapsed_ns"]);
    assert!((1.9..2.5).contains(&elapsed_s), "measured {elapsed_s} s");

    let typed = record["typed_warnings"].as_array().unwrap();
    assert_eq!(typed.len(), 1, "{typed:?}");
    assert_eq!(typed[0]["kind"], "stalled");
    assert_eq!(typed[0]["segment"], 0);
    assert_eq!(typed[0]["stalled_ns"], record["stalled_ns"]);
    assert!(
        stderr.iter().any(|l| l.starts_with("WARNING: stalled:")),
        "{stderr:#?}"
    );
    assert!(stdout.contains("\n  WARNING stalled:"), "{stdout}");
    assert!(stdout.contains("s stalled, not measured)"), "{stdout}");

    // Rates over running time: the run's IOPS match those of the intervals that had I/O
    // (counting the stop as measured time would divide them by about three).
    let series = record["segments"][0]["series"].as_array().unwrap();
    let busy: Vec<f64> = series
        .iter()
        .map(|i| i["read"]["iops"].as_f64().unwrap())
        .filter(|&iops| iops > 0.0)
        .collect();
    let busy_mean = busy.iter().sum::<f64>() / busy.len() as f64;
    let iops = record["read"]["iops"].as_f64().unwrap();
    assert!(
        iops > busy_mean * 0.6,
        "run {iops:.0} IOPS against {busy_mean:.0} in the intervals with I/O"
    );
}
