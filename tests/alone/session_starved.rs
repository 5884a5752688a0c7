//! The session's thread starved by the run's own busy workers is told apart from a stopped
//! process: the workers kept running, so the gap is measured time and a `starved` warning, not
//! a stall. The window is made of the CPU's time, so this test runs in the `alone` binary
//! with nothing of the suite beside it (at two tests per CPU, `it`'s load held the whole
//! process and saw stalls, no starving).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::{BIN, read_json};

/// The tasks (threads) of `pid`, with their names.
fn tasks(pid: u32) -> Vec<(libc::pid_t, String)> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .expect("the run's tasks")
        .filter_map(|entry| {
            let tid: libc::pid_t = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let comm = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/comm")).ok()?;
            Some((tid, comm.trim().to_string()))
        })
        .collect()
}

/// Sets the policy of thread `tid` (`SCHED_IDLE`: it runs only when nothing else wants the CPU).
fn set_policy(tid: libc::pid_t, policy: libc::c_int) {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: a valid sched_param; a thread of a child this test started.
    let rc = unsafe { libc::sched_setscheduler(tid, policy, &raw const param) };
    assert_eq!(
        rc,
        0,
        "sched_setscheduler({tid}): {}",
        std::io::Error::last_os_error()
    );
}

/// Pins thread `tid` to `cpu`.
fn pin(tid: libc::pid_t, cpu: usize) {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: cpu is below CPU_SETSIZE (it came from the test's own mask).
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: a valid set of the size passed.
    let rc = unsafe { libc::sched_setaffinity(tid, std::mem::size_of_val(&set), &raw const set) };
    assert_eq!(
        rc,
        0,
        "sched_setaffinity({tid}): {}",
        std::io::Error::last_os_error()
    );
}

/// A CPU this process may run on.
fn some_cpu() -> usize {
    // SAFETY: as in `pin`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: a valid, writable set of the size passed.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &raw mut set) };
    assert_eq!(rc, 0);
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: in range of the set.
        .find(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .expect("a CPU")
}

/// Three null-engine workers spin on one CPU while the session's thread there may only take
/// what they leave (SCHED_IDLE) for 2.5 s: its wake-ups come seconds late, as with 64 workers
/// on 2 CPUs. The workers ran all along, so the record says `starved` and measures the time;
/// the summary says the session was starved, not that diskdash did not run.
#[test]
fn a_session_starved_by_its_own_workers_is_not_a_stall() {
    // Load from outside the suite on the pinned CPU can hold the whole process, workers too,
    // through the window: that is rightly a stall, and no starving is left to see. Up to three tries for
    // one where the workers ran; each try's record is judged by the same rules.
    let mut tries = Vec::new();
    let (record, stdout, stderr, typed) = loop {
        let (record, stdout, stderr) = starve_once();
        let typed = record["typed_warnings"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if typed.iter().any(|w| w["kind"] == "starved") || tries.len() == 2 {
            break (record, stdout, stderr, typed);
        }
        tries.push(format!("{typed:?}"));
    };
    let starved = typed
        .iter()
        .find(|w| w["kind"] == "starved")
        .unwrap_or_else(|| panic!("no starved warning in 3 tries: {tries:?}, {typed:?}\n{stderr}"));
    let starved_ns = starved["starved_ns"].as_u64().unwrap();
    assert!(starved_ns >= 500_000_000, "{starved}");
    assert!(starved["longest_ns"].as_u64().unwrap() <= starved_ns);
    // The workers ran through the session's SCHED_IDLE window, so that window is starved
    // time. Load from outside the suite on the pinned CPU can hold the whole process (workers too) for
    // part of it: that part is a stall, rightly. Together they cover the window.
    let stalled_ns = record["stalled_ns"].as_u64().unwrap_or(0);
    assert!(
        starved_ns + stalled_ns >= 1_500_000_000,
        "{typed:?}\n{stderr}"
    );
    // The starved time is measured: the 3 s runtime was not extended by it.
    let elapsed_s = record["elapsed_ns"].as_u64().unwrap() as f64 / 1e9;
    assert!((2.9..4.5).contains(&elapsed_s), "measured {elapsed_s} s");
    assert!(
        stderr.contains("WARNING: starved: the session's thread did not run for"),
        "{stderr}"
    );
    if stalled_ns == 0 {
        assert!(!stdout.contains("stalled"), "{stdout}");
    }
}

/// One run whose session thread is held at SCHED_IDLE beside its pinned workers for 2.5 s: its
/// record, stdout and stderr.
fn starve_once() -> (serde_json::Value, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.json");
    let child = Command::new(BIN)
        .args(["bench", dir.path().to_str().unwrap()])
        .args(["--ioengine", "null", "--size", "16M", "--numjobs", "3"])
        .args([
            "--runtime",
            "3s",
            "--interval",
            "100ms",
            "--no-tui",
            "--json",
        ])
        .arg(&record)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting diskdash");
    std::thread::sleep(Duration::from_millis(500));
    let cpu = some_cpu();
    let threads = tasks(child.id());
    let session = threads
        .iter()
        .find(|(_, name)| name == "session")
        .unwrap_or_else(|| panic!("no session thread in {threads:?}"))
        .0;
    for &(tid, _) in &threads {
        pin(tid, cpu);
    }
    set_policy(session, libc::SCHED_IDLE);
    std::thread::sleep(Duration::from_millis(2500));
    set_policy(session, libc::SCHED_OTHER);
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{stderr}");
    (read_json(Path::new(&record)), stdout, stderr)
}
