//! An SSH session's default terminal, 80x24: a ten-point sweep's results scroll so that every
//! point's row can be seen, and the table printed after `q` fits the 80 columns.

use std::time::Duration;

use crate::support::tmux::{self, Tmux};

const WAIT: Duration = Duration::from_secs(60);
const SIZES: [&str; 10] = [
    "4k", "8k", "12k", "16k", "20k", "24k", "28k", "32k", "48k", "64k",
];

/// The block sizes whose results rows are on screen (`│  4k ...`, `│> 8k ...`).
fn rows_on(screen: &str) -> Vec<&'static str> {
    SIZES
        .into_iter()
        .filter(|bs| {
            screen.lines().any(|line| {
                line.trim_start_matches('│')
                    .get(1..)
                    .is_some_and(|r| r.starts_with(&format!(" {bs} ")))
            })
        })
        .collect()
}

#[test]
#[ignore = "needs tmux"]
fn a_ten_point_sweep_at_80x24_scrolls_to_every_point_and_prints_a_table_that_fits() {
    tmux::require();
    let bs = SIZES.join(",");
    let args = [
        "sweep",
        ".",
        "--bs",
        &bs,
        "--runtime",
        "200ms",
        "--ramp",
        "0s",
        "--size",
        "4M",
    ];
    let t = Tmux::start("narrow", &args, &[], 80, 24);
    let screen = t.wait_for("the sweep over", WAIT, |s| {
        s.contains("sweep over: 10 of 10 points")
    });
    let mut seen = rows_on(&screen);
    assert!(
        seen.len() < 10,
        "all ten rows fit: nothing to scroll\n{screen}"
    );
    assert!(screen.contains("PgUp/PgDn"), "{screen}");
    t.send(&["Home"]);
    let screen = t.wait_for("the first rows", WAIT, |s| rows_on(s).contains(&"4k"));
    seen.extend(rows_on(&screen));
    for _ in 0..3 {
        t.send(&["PPage"]);
        t.send(&["NPage"]);
        t.send(&["NPage"]);
        std::thread::sleep(Duration::from_millis(300));
        seen.extend(rows_on(&t.capture()));
    }
    for bs in SIZES {
        assert!(
            seen.contains(&bs),
            "{bs} never on screen; last:\n{}",
            t.capture()
        );
    }

    t.send(&["q"]);
    assert_eq!(t.exit_status(WAIT), 0, "stderr: {}", t.stderr());
    t.assert_restored();
    let printed = t.capture_joined();
    let table: Vec<&str> = printed
        .lines()
        .skip_while(|l| !l.starts_with("bs "))
        .collect();
    assert!(!table.is_empty(), "no table in:\n{printed}");
    for size in SIZES {
        assert!(
            table.iter().any(|l| l.starts_with(&format!("{size} "))),
            "{size} in:\n{printed}"
        );
    }
    for line in &table {
        assert!(
            line.chars().count() <= 80,
            "{line:?} is wider than 80:\n{printed}"
        );
    }
    assert!(table.iter().any(|l| l.contains("read IOPS")), "{printed}");
}

#[test]
#[ignore = "needs tmux"]
fn a_headless_bench_summary_fits_80_columns_and_a_pipe_gets_the_long_lines() {
    tmux::require();
    let bin = crate::support::BIN;
    let run = format!("'{bin}' bench . --rw randrw --runtime 300ms --size 4M --no-tui");
    let script = format!("{run} > piped.txt 2>&1; {run}; echo EXIT=$?; sleep 600");
    let t = Tmux::start_shell("narrow-bench", &script, 80, 24);
    t.wait_for("the bench to exit", WAIT, |s| s.contains("EXIT="));
    let printed = t.capture_joined();
    assert!(printed.contains("EXIT=0"), "{printed}");
    assert!(printed.contains("  status  completed"), "{printed}");
    assert!(printed.contains("  write   IOPS"), "{printed}");
    assert!(printed.contains("p99.99"), "{printed}");
    for line in printed.lines() {
        assert!(
            line.chars().count() <= 80,
            "{line:?} is wider than 80:\n{printed}"
        );
    }
    // The same run into a file keeps its lines whole: scripts parse them.
    let piped = std::fs::read_to_string(t.path("piped.txt")).expect("piped output");
    assert!(
        piped.lines().any(|l| l.starts_with("  engine  ")),
        "{piped}"
    );
    assert!(
        piped.lines().any(|l| l.chars().count() > 80),
        "nothing wider than 80 to fit:\n{piped}"
    );
}
