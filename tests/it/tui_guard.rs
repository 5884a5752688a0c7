//! The terminal guard restores the terminal when the dashboard panics. The test re-runs this
//! test binary inside tmux as a child that enters the dashboard's terminal mode, draws a frame
//! and panics; the parent checks the pane afterwards.

use std::time::Duration;

use crate::support::tmux;

use diskdash::testing::tui::{TerminalGuard, sample};

const CHILD: &str = "DISKDASH_GUARD_TEST_CHILD";

/// Runs only as the child (inside tmux); a no-op in a normal test run.
#[test]
fn child_draws_then_panics() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let mut guard = TerminalGuard::enter().expect("terminal");
    guard.draw(&sample::bench()).expect("draw");
    std::thread::sleep(Duration::from_millis(300));
    // Leave a frame half written in the buffer: it must not reach the restored screen.
    let _ = guard.draw(&sample::monitor());
    panic!("deliberate panic inside the dashboard");
}

#[test]
#[ignore = "needs tmux"]
fn a_panic_in_the_dashboard_restores_the_terminal() {
    tmux::require();
    let exe = std::env::current_exe().expect("test binary");
    let script = format!(
        "{CHILD}=1 '{}' --exact tui_guard::child_draws_then_panics --nocapture --test-threads 1; \
         echo EXIT=$?; sleep 600",
        exe.display()
    );
    let t = tmux::Tmux::start_shell("guard", &script, 100, 30);
    let screen = t.wait_for("the child to exit", Duration::from_secs(30), |s| {
        s.contains("EXIT=")
    });
    t.assert_restored();
    assert!(
        screen.contains("deliberate panic inside the dashboard"),
        "{screen}"
    );
    assert!(screen.contains("EXIT=101"), "{screen}");
    // The panic message is on the normal screen, not lost in the alternate one, and no
    // dashboard frame leaked onto it.
    assert!(!screen.contains("throughput and IOPS"), "{screen}");
}
