//! `diskdash fio` with four jobs at once and the dashboard, in a real terminal (tmux): the jobs
//! table lists every job and the step total, `tab` moves the selection and the charts follow.

use std::time::Duration;

use crate::support::tmux::{self, Tmux};

const WAIT: Duration = Duration::from_secs(30);

/// The jobs table's row of `name` (`│ name ...` or `│>name ...` when selected), if on screen.
fn job_row<'a>(screen: &'a str, name: &str) -> Option<&'a str> {
    screen.lines().find(|line| {
        let row = line.trim_start_matches('│');
        row.starts_with(&format!(" {name} ")) || row.starts_with(&format!(">{name} "))
    })
}

fn selected(screen: &str, name: &str) -> bool {
    job_row(screen, name).is_some_and(|row| row.contains(&format!("│>{name} ")))
}

#[test]
#[ignore = "needs tmux"]
fn fio_with_four_jobs_shows_the_jobs_table_and_tab_picks_the_job() {
    tmux::require();
    // Relative file names: the pane runs in the test's temp dir.
    let jobs: Vec<String> = [
        ("a", "randread", "4k"),
        ("b", "write", "128k"),
        ("c", "randread", "16k"),
        ("d", "write", "64k"),
    ]
    .iter()
    .flat_map(|(name, rw, bs)| {
        [
            format!("--name={name}"),
            format!("--rw={rw}"),
            format!("--bs={bs}"),
            "--size=8M".into(),
            format!("--filename={name}"),
        ]
    })
    .collect();
    // Global options go before the first `--name` (after it they are that job's, as in fio).
    let mut argv = vec!["fio", "--runtime=30", "--time_based"];
    argv.extend(jobs.iter().map(String::as_str));
    let t = Tmux::start("fio-plan", &argv, &[], 120, 40);
    let screen = t.wait_for("the jobs table with four jobs", WAIT, |s| {
        s.contains("RUNNING") && ["a", "b", "c", "d"].iter().all(|n| job_row(s, n).is_some())
    });
    for (name, rw) in [
        ("a", "randread"),
        ("b", "write"),
        ("c", "randread"),
        ("d", "write"),
    ] {
        let row = job_row(&screen, name).unwrap_or_default();
        assert!(row.contains(rw), "{name}: {row:?} in:\n{screen}");
    }
    assert!(screen.contains(">step total"), "{screen}");
    assert!(screen.contains("step 1/1"), "{screen}");
    assert!(screen.contains("4 jobs"), "{screen}");
    assert!(screen.contains("step total: latency"), "{screen}");

    t.send(&["Tab"]);
    let screen = t.wait_for("job a selected", WAIT, |s| selected(s, "a"));
    assert!(screen.contains("a: latency"), "{screen}");
    assert!(screen.contains("a: throughput and IOPS"), "{screen}");
    assert!(!screen.contains(">step total"), "{screen}");
    t.send(&["Tab"]);
    let screen = t.wait_for("job b selected", WAIT, |s| selected(s, "b"));
    assert!(screen.contains("b: latency"), "{screen}");
    t.send(&["Up"]);
    t.wait_for("back to job a", WAIT, |s| selected(s, "a"));
    t.send(&["BTab"]);
    t.wait_for("the step total", WAIT, |s| s.contains(">step total"));

    // Live changes are one-job only: the key says so and nothing changes.
    t.send(&["+"]);
    t.wait_for("the refusal", WAIT, |s| {
        s.contains("live changes apply to one-job steps")
    });

    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
}

/// A job file of two jobs at 80x24: beside the jobs table and the charts, the device panel
/// as bench has it, its throughput and %util kept first.
#[test]
#[ignore = "needs tmux"]
fn a_job_file_s_dashboard_at_80x24_has_the_device_panel() {
    tmux::require();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("two.fio"),
        "[global]\nsize=8M\nbs=4k\nrw=randread\nruntime=30\ntime_based\n[a]\nfilename=a\n\
         [b]\nfilename=b\n",
    )
    .unwrap();
    let jobfile = dir.path().join("two.fio");
    let t = Tmux::start(
        "fio-80x24",
        &["fio", &jobfile.to_string_lossy()],
        &[],
        80,
        24,
    );
    // The whole of one frame: a capture can catch the terminal between two frames (the
    // header of the running one, the footer of the idle one before it).
    let screen = t.wait_for("the jobs and the device panel", WAIT, |s| {
        s.contains("RUNNING")
            && job_row(s, "a").is_some()
            && s.contains("step total")
            && (s.contains("device: none")
                || ["(iostat -x)", "r/s", "w/s", "rMiB/s", "wMiB/s", "%util"]
                    .iter()
                    .all(|m| s.contains(m)))
    });
    // The panel is on screen; its numbers where the files' file system has a block device.
    assert!(
        screen.contains("(iostat -x)") || screen.contains("device: none"),
        "{screen}"
    );
    if !screen.contains("device: none") {
        for metric in ["r/s", "w/s", "rMiB/s", "wMiB/s", "%util"] {
            assert!(screen.contains(metric), "no {metric} in:\n{screen}");
        }
    }
    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
}
