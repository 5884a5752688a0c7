//! The session API the dashboard drives: live controls end steps and start new ones, and
//! the record keeps each step with its own job and results.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::support::record::*;
use crate::support::*;
use diskdash::testing::bench::{JobOption, JobSpec, Key, MachineLimits, RwMode, validate};
use diskdash::testing::plan::{Job, Missing, Plan, Step};
use diskdash::testing::record::RunStatus;
use diskdash::testing::session::{Control, Session, SessionOptions, SessionState, Snapshot};

/// A job from fio-style options, through the one validator (no command line involved).
fn spec(options: &[(Key, &str)]) -> JobSpec {
    let options: Vec<JobOption> = options
        .iter()
        .map(|(key, value)| JobOption::flag(*key, *value))
        .collect();
    validate(&options, &MachineLimits::detect()).unwrap()
}

/// A plan of one step of one job on `dir`.
fn one_job(dir: &std::path::Path, spec: JobSpec) -> Plan {
    Plan::single(Job::bench("bench", spec, Some(dir.to_path_buf())))
}

/// Waits until a snapshot satisfies `want` (or panics after 10 s).
fn wait_for(
    rx: &mut tokio::sync::watch::Receiver<Arc<Snapshot>>,
    want: impl Fn(&Snapshot) -> bool,
) -> Arc<Snapshot> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let snap = rx.borrow_and_update().clone();
        if want(&snap) {
            return snap;
        }
        assert!(
            Instant::now() < deadline,
            "timed out; last state {:?}, step {}, iodepth {}, warnings {:?}",
            snap.state,
            snap.step.index,
            snap.job().iodepth,
            snap.warnings
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits for the session to end, failing (instead of hanging) if it does not within 20 s.
fn wait_ended(
    handle: diskdash::testing::session::SessionHandle,
) -> diskdash::testing::session::SessionOutcome {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(handle.wait());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("the session did not end within 20 s of Quit")
        .unwrap()
}

/// An interactive session over a 16 MiB scratch file (record `r.json`): idle after
/// preconditioning, then started and measuring a little.
fn running_session(dir: &std::path::Path) -> diskdash::testing::session::SessionHandle {
    let options = SessionOptions {
        json: Some(dir.join("r.json")),
        finish_when_done: false,
        interrupt: Arc::new(AtomicBool::new(false)),
        ..SessionOptions::default()
    };
    let handle = Session::start(
        one_job(
            dir,
            spec(&[
                (Key::Size, "16M"),
                (Key::Runtime, "30s"),
                (Key::Interval, "100ms"),
            ]),
        ),
        options,
    )
    .unwrap();
    let mut rx = handle.snapshots.clone();
    wait_for(&mut rx, |s| s.state == SessionState::Idle);
    handle.control.send(Control::Start).unwrap();
    wait_for(&mut rx, |s| {
        s.state == SessionState::Running && s.step.series.len() >= 2
    });
    handle
}

#[test]
fn controls_end_steps_and_the_record_keeps_each() {
    let dir = tempfile::tempdir().unwrap();
    let handle = running_session(dir.path());
    let mut rx = handle.snapshots.clone();
    handle.control.send(Control::Pause).unwrap();
    wait_for(&mut rx, |s| s.state == SessionState::Paused);
    handle.control.send(Control::Resume).unwrap();
    wait_for(&mut rx, |s| s.state == SessionState::Running);
    // A parameter change ends step 0 and starts step 1 at once.
    handle.control.send(Control::SetIodepth(4)).unwrap();
    let snap = wait_for(&mut rx, |s| {
        s.step.index == 1 && s.state == SessionState::Running && s.step.interval.is_some()
    });
    assert_eq!(snap.job().iodepth, 4);
    assert_eq!(snap.step.marks.len(), 2);
    handle
        .control
        .send(Control::SetRw(RwMode::RandWrite))
        .unwrap();
    wait_for(&mut rx, |s| {
        s.step.index == 2 && s.state == SessionState::Running
    });
    // An invalid change is refused with a warning and changes nothing.
    handle.control.send(Control::SetBlockSize(1000)).unwrap();
    wait_for(&mut rx, |s| {
        s.warnings
            .iter()
            .any(|w| w.to_string().contains("bs 1000 is not a multiple"))
    });
    handle.control.send(Control::Stop).unwrap();
    wait_for(&mut rx, |s| s.state == SessionState::Idle);
    handle.control.send(Control::SetBlockSize(8192)).unwrap();
    handle.control.send(Control::Start).unwrap();
    wait_for(&mut rx, |s| {
        s.step.index == 3 && s.state == SessionState::Running
    });
    handle.control.send(Control::Quit).unwrap();
    let outcome = handle.wait().unwrap();
    assert_eq!(outcome.status, RunStatus::Stopped, "quit while running");
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 4);
    assert_eq!(steps[0]["job"]["iodepth"], 32);
    assert_eq!(steps[1]["job"]["iodepth"], 4);
    assert_eq!(steps[2]["job"]["rw"], "randwrite");
    assert_eq!(steps[3]["job"]["bs"], 8192);
    assert_eq!(steps[0]["status"], "completed");
    assert_eq!(steps[3]["status"], "interrupted");
    assert!(steps[0]["read"]["total_ios"].as_u64().unwrap() > 0);
    assert!(steps[2]["write"]["total_ios"].as_u64().unwrap() > 0);
    assert_eq!(steps[2]["read"]["total_ios"], 0);
    let total: u64 = steps
        .iter()
        .map(|s| s["read"]["total_ios"].as_u64().unwrap())
        .sum();
    assert_eq!(record["read"]["total_ios"], total);
    assert!(
        leftovers(dir.path(), &["r.json"]).is_empty(),
        "scratch file removed"
    );
}

/// Asserts the session ended with `status` and wrote a valid record of one step with that
/// status that did I/O, and removed the scratch file.
fn assert_one_step_recorded(
    dir: &std::path::Path,
    outcome: &diskdash::testing::session::SessionOutcome,
    status: RunStatus,
    step_status: &str,
) {
    assert_eq!(outcome.status, status);
    let status = serde_json::to_value(status).unwrap();
    let record = read_json(&dir.join("r.json"));
    assert_valid_record(&record);
    assert_eq!(record["status"], status);
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "{steps:#?}");
    assert_eq!(steps[0]["status"], step_status);
    assert!(steps[0]["read"]["total_ios"].as_u64().unwrap() > 0);
    assert!(leftovers(dir, &["r.json"]).is_empty());
}

#[test]
fn stop_then_quit_back_to_back_ends_the_session_with_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let handle = running_session(dir.path());
    // Quit arrives while the step is still ending after Stop; it must not be lost.
    handle.control.send(Control::Stop).unwrap();
    handle.control.send(Control::Quit).unwrap();
    // Stopped first, so the step is complete; nothing starts after the stop. The user
    // ended the plan before its end: the run is `stopped`.
    assert_one_step_recorded(
        dir.path(),
        &wait_ended(handle),
        RunStatus::Stopped,
        "completed",
    );
}

#[test]
fn quit_during_a_running_step_ends_the_session_with_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let handle = running_session(dir.path());
    handle.control.send(Control::Quit).unwrap();
    assert_one_step_recorded(
        dir.path(),
        &wait_ended(handle),
        RunStatus::Stopped,
        "interrupted",
    );
}

#[test]
fn changes_while_a_step_ends_fold_into_the_next_job_and_stop_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    let handle = running_session(dir.path());
    let mut rx = handle.snapshots.clone();
    // All four arrive before the step has ended: one ending, no short step at iodepth 4.
    handle.control.send(Control::SetIodepth(4)).unwrap();
    handle.control.send(Control::SetIodepth(8)).unwrap();
    handle.control.send(Control::Stop).unwrap();
    handle.control.send(Control::Start).unwrap();
    let snap = wait_for(&mut rx, |s| {
        s.step.index == 1 && s.state == SessionState::Running
    });
    assert_eq!(snap.job().iodepth, 8);
    handle.control.send(Control::Quit).unwrap();
    wait_ended(handle);
    let record = read_json(&dir.path().join("r.json"));
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["status"], "completed");
    assert_eq!(steps[1]["job"]["iodepth"], 8);
}

/// Before its first step opens, a session's snapshot holds the plan's first job, waiting, and
/// a change while idle is that job's; the step opens with the change.
#[test]
fn before_the_first_step_the_snapshot_holds_the_first_job_and_changes_apply_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let options = SessionOptions {
        finish_when_done: false,
        interrupt: Arc::new(AtomicBool::new(false)),
        ..SessionOptions::default()
    };
    let plan = one_job(
        dir.path(),
        spec(&[
            (Key::Size, "16M"),
            (Key::Runtime, "30s"),
            (Key::Interval, "100ms"),
        ]),
    );
    let handle = Session::start(plan, options).unwrap();
    let mut rx = handle.snapshots.clone();
    let idle = wait_for(&mut rx, |s| s.state == SessionState::Idle);
    assert!(!idle.step_opened());
    assert_eq!(idle.jobs.len(), 1);
    assert_eq!(idle.jobs[0].name, "bench");
    assert_eq!(idle.jobs[0].target, idle.target.path);
    assert_eq!(idle.disk(), idle.jobs[0].disk.as_deref());
    handle.control.send(Control::SetIodepth(4)).unwrap();
    let changed = wait_for(&mut rx, |s| s.job().iodepth == 4);
    assert!(!changed.step_opened());
    assert_eq!(changed.jobs.len(), 1);
    handle.control.send(Control::Start).unwrap();
    let running = wait_for(&mut rx, |s| s.state == SessionState::Running);
    assert!(running.step_opened());
    assert_eq!((running.jobs.len(), running.job().iodepth), (1, 4));
    handle.control.send(Control::Quit).unwrap();
    wait_ended(handle);
}

/// A plan of two steps runs them one after another, each a step of the record with its own
/// job; nothing needs a control.
#[test]
fn a_plan_runs_its_steps_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let job = |depth: &str| Job {
        name: format!("q{depth}"),
        spec: spec(&[
            (Key::IoEngine, "null"),
            (Key::Size, "16M"),
            (Key::IoDepth, depth),
            (Key::Runtime, "200ms"),
            (Key::Interval, "100ms"),
        ]),
        target: Some(dir.path().to_path_buf()),
        missing: Missing::Refuse,
        group: 0,
        clones: Vec::new(),
        whole: false,
    };
    let plan = Plan {
        steps: vec![Step::single(job("4")), Step::single(job("8"))],
    };
    let options = SessionOptions {
        json: Some(dir.path().join("r.json")),
        finish_when_done: true,
        interrupt: Arc::new(AtomicBool::new(false)),
        ..SessionOptions::default()
    };
    let outcome = Session::start(plan, options).unwrap().wait().unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    let record = record_in(dir.path());
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["job"]["iodepth"], 4);
    assert_eq!(steps[1]["job"]["iodepth"], 8);
    for step in steps {
        assert_eq!(step["status"], "completed");
        assert!(step["read"]["total_ios"].as_u64().unwrap() > 0);
    }
}

/// Every step is checked against the target before anything runs.
/// A size-based step that ends before its first interval: once over, its progress is the
/// bytes it moved, not 0.
#[test]
fn a_finished_size_based_step_has_moved_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let plan = one_job(
        dir.path(),
        spec(&[
            (Key::Size, "4M"),
            (Key::IoSize, "1M"),
            (Key::Runtime, "30s"),
            (Key::Interval, "10s"),
        ]),
    );
    let options = SessionOptions {
        finish_when_done: true,
        interrupt: Arc::new(AtomicBool::new(false)),
        ..SessionOptions::default()
    };
    let handle = Session::start(plan, options).unwrap();
    let rx = handle.snapshots.clone();
    let outcome = wait_ended(handle);
    assert_eq!(outcome.status, RunStatus::Completed);
    let last = rx.borrow().clone();
    assert!(
        matches!(last.state, SessionState::Finished(_)),
        "{:?}",
        last.state
    );
    assert_eq!(last.plan.bytes, Some((1 << 20, 1 << 20)));
}

#[test]
fn a_step_that_does_not_fit_the_target_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::write(&data, vec![7u8; 1 << 20]).unwrap();
    let job = |bs: &str| Job {
        name: "bench".into(),
        spec: spec(&[(Key::Size, "4M"), (Key::Bs, bs), (Key::Runtime, "200ms")]),
        target: Some(data.clone()),
        missing: Missing::Refuse,
        group: 0,
        clones: Vec::new(),
        whole: false,
    };
    let plan = Plan {
        steps: vec![Step::single(job("4k")), Step::single(job("2M"))],
    };
    let Err(err) = Session::start(plan, SessionOptions::default()) else {
        panic!("a 2M block on a 1M file must be refused")
    };
    assert_eq!(diskdash::testing::error::exit_code(&err), 2);
    assert!(
        err.to_string()
            .starts_with("step 2: bs 2M is larger than the working set of"),
        "{err}"
    );
}

/// A step of several jobs: they start together, each on its own target with its own spec and
/// totals; a created file is left in place, a job's size-based run ends when it has moved its
/// bytes, and the step's device window covers the disk they share.
#[test]
fn a_step_runs_its_jobs_at_once_each_with_its_own_totals() {
    let dir = tempfile::tempdir().unwrap();
    let writer = dir.path().join("w.dat");
    let job = |name: &str, target: &std::path::Path, options: &[(Key, &str)]| Job {
        name: name.into(),
        spec: spec(options),
        target: Some(target.to_path_buf()),
        missing: Missing::Create { unlink: false },
        group: 0,
        clones: Vec::new(),
        whole: false,
    };
    let plan = Plan {
        steps: vec![Step {
            jobs: vec![
                // Time-based random reads on a scratch file in the directory.
                job(
                    "reader",
                    dir.path(),
                    &[
                        (Key::Size, "8M"),
                        (Key::Runtime, "600ms"),
                        (Key::IoDepth, "4"),
                    ],
                ),
                // 4 MiB of sequential 128k writes to a file the job creates.
                job(
                    "writer",
                    &writer,
                    &[
                        (Key::Rw, "write"),
                        (Key::Bs, "128k"),
                        (Key::Size, "4M"),
                        (Key::IoSize, "4M"),
                        (Key::Runtime, "30s"),
                        (Key::IoDepth, "2"),
                    ],
                ),
            ],
            point: Vec::new(),
            notes: Vec::new(),
        }],
    };
    let options = SessionOptions {
        json: Some(dir.path().join("r.json")),
        finish_when_done: true,
        interrupt: Arc::new(AtomicBool::new(false)),
        ..SessionOptions::default()
    };
    let started = Instant::now();
    let outcome = Session::start(plan, options).unwrap().wait().unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    // The size-based job does not hold the step past the time-based one.
    assert!(started.elapsed() < Duration::from_secs(20));
    let record = record_in(dir.path());
    let step = &record["segments"][0];
    let jobs = step["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0]["name"], "reader");
    assert_eq!(jobs[1]["name"], "writer");
    assert!(jobs[0]["read"]["total_ios"].as_u64().unwrap() > 0);
    assert_eq!(jobs[0]["write"]["total_ios"], 0);
    // Exactly its bytes: 32 writes of 128 KiB.
    assert_eq!(jobs[1]["write"]["io_bytes"], 4 << 20);
    assert_eq!(jobs[1]["write"]["total_ios"], 32);
    assert_eq!(jobs[1]["read"]["total_ios"], 0);
    // The step's totals are the jobs' sums.
    assert_eq!(
        step["read"]["total_ios"],
        jobs[0]["read"]["total_ios"].as_u64().unwrap()
    );
    assert_eq!(step["write"]["io_bytes"], 4 << 20);
    // The created file stays (fio's way); the scratch file goes.
    assert!(writer.exists());
    assert_eq!(jobs[1]["target"]["scratch_removed"], false);
    assert_eq!(jobs[0]["target"]["kind"], "scratch");
    assert_eq!(jobs[0]["target"]["scratch_removed"], true);
    // One disk, reconciled against both jobs.
    let devices = step["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "{devices:?}");
    let reconciliation = &devices[0]["reconciliation"];
    assert_eq!(
        reconciliation["app_read_ios"],
        jobs[0]["read"]["total_ios"].as_u64().unwrap()
    );
    assert_eq!(reconciliation["app_write_ios"], 32);
}

/// Two jobs of one step on one file, one writing and one verifying: refused before anything
/// runs (the verifier would read the other's blocks as corrupt).
#[test]
fn two_jobs_at_once_on_one_file_one_verifying_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::write(&data, vec![7u8; 1 << 20]).unwrap();
    let job = |name: &str, options: &[(Key, &str)]| Job {
        name: name.into(),
        spec: spec(&[options, &[(Key::Size, "1M"), (Key::Runtime, "200ms")]].concat()),
        target: Some(data.clone()),
        missing: Missing::Refuse,
        group: 0,
        clones: Vec::new(),
        whole: false,
    };
    let plan = Plan {
        steps: vec![Step {
            jobs: vec![
                job("a", &[(Key::Rw, "read")]),
                job("b", &[(Key::Rw, "write"), (Key::Verify, "crc32c")]),
            ],
            point: Vec::new(),
            notes: Vec::new(),
        }],
    };
    let options = SessionOptions {
        allow_destructive: true,
        ..SessionOptions::default()
    };
    let Err(err) = Session::start(plan, options) else {
        panic!("two jobs at once on one file, one verifying, must be refused")
    };
    assert_eq!(diskdash::testing::error::exit_code(&err), 2);
    assert_eq!(
        err.to_string(),
        format!(
            "jobs a and b both use {} at the same time, one writes and one verifies; give each \
             its own file, or put stonewall before the second",
            data.display()
        )
    );
}
