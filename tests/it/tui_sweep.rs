//! `diskdash sweep` in the dashboard, in a real terminal (tmux): the results panel fills in as
//! points finish, `n` ends the running point and goes on with the next, `s` stops the sweep
//! keeping what finished, `q` writes the record and leaves.

use std::time::Duration;

use crate::support::tmux::{self, Tmux};

const WAIT: Duration = Duration::from_secs(30);

/// The running point, from the results panel's title (`sweep: point 2 of 3 ...`).
fn running_point(screen: &str) -> Option<usize> {
    let rest = screen.split("sweep: point ").nth(1)?;
    rest.split(' ').next()?.parse().ok()
}

/// The results row of block size `bs` (`│  4k  ...`, `│> 8k ...`, `│! 4k ...`), if on screen.
fn row<'a>(screen: &'a str, bs: &str) -> Option<&'a str> {
    screen.lines().find(|line| {
        line.trim_start_matches('│')
            .get(1..)
            .is_some_and(|r| r.starts_with(&format!(" {bs} ")))
    })
}

/// A row with numbers (a point that ran), not a pending one with its parameters only.
fn has_numbers(row: &str) -> bool {
    row.split_whitespace().skip(2).any(|w| w.contains('.'))
}

#[test]
#[ignore = "needs tmux"]
fn sweep_fills_the_results_n_skips_a_point_s_stops_and_q_leaves() {
    tmux::require();
    let args = [
        "sweep",
        ".",
        "--bs",
        "4k,8k,16k",
        "--runtime",
        "2s",
        "--ramp",
        "0s",
        "--size",
        "8M",
    ];
    let t = Tmux::start("sweep", &args, &[], 100, 30);
    let screen = t.wait_for("the results panel with a running point", WAIT, |s| {
        s.contains("RUNNING") && running_point(s).is_some() && row(s, "16k").is_some()
    });
    assert!(screen.contains("n next point"), "{screen}");
    assert!(!screen.contains("+/- iodepth"), "{screen}");
    for bs in ["4k", "8k", "16k"] {
        assert!(row(&screen, bs).is_some(), "{bs} in:\n{screen}");
    }

    // `n`: the running point ends (cut short) and the next one runs.
    let at = running_point(&screen).unwrap_or(1);
    t.send(&["n"]);
    let screen = t.wait_for("the next point", WAIT, |s| {
        running_point(s).is_some_and(|p| p > at) || s.contains("sweep over")
    });
    let skipped = ["4k", "8k", "16k"][at - 1];
    let skipped_row = row(&screen, skipped).unwrap_or_default();
    assert!(
        has_numbers(skipped_row),
        "{skipped}: {skipped_row:?} in:\n{screen}"
    );

    // `s`: the sweep stops; the points that ran keep their rows.
    t.send(&["s"]);
    // Stopped with points left, it says so (never "over").
    let screen = t.wait_for("the sweep stopped", WAIT, |s| {
        s.contains("sweep stopped: ") && s.contains(" of 3 points") && !s.contains("RUNNING")
    });
    assert!(!screen.contains("sweep over"), "{screen}");
    let first = row(&screen, "4k").unwrap_or_default();
    assert!(has_numbers(first), "4k: {first:?} in:\n{screen}");
    assert!(!screen.contains("RUNNING"), "{screen}");

    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
}
