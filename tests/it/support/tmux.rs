//! Drives the real binary in a real terminal: a detached tmux server per test (its socket in
//! the test's temp dir, removed with it), a pane of fixed size, keys in, text captures out.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Tmux {
    socket: String,
    pub dir: tempfile::TempDir,
}

/// Fails a tmux test (marked `#[ignore = "needs tmux"]`) that was asked to run where tmux is
/// not installed, saying so.
pub fn require() {
    let installed = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        installed,
        "this test needs tmux (.ci/run installs it): install it, or leave out --include-ignored"
    );
}

/// A fresh directory named after the test; it also holds the tmux socket.
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("diskdash-{name}-"))
        .tempdir()
        .expect("temp dir")
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

impl Tmux {
    /// Starts `diskdash ARGS` in a `width`x`height` pane, in a fresh temp dir; the exit status
    /// lands in `status` there.
    pub fn start(name: &str, args: &[&str], env: &[(&str, &str)], width: u16, height: u16) -> Self {
        let mut cmd = String::new();
        for (k, v) in env {
            cmd.push_str(&format!("{k}={} ", quote(v)));
        }
        cmd.push_str(&quote(super::BIN));
        for a in args {
            cmd.push(' ');
            cmd.push_str(&quote(a));
        }
        Self::session(
            temp_dir(name),
            &format!("{cmd} 2>stderr; echo $? > status; sleep 600"),
            width,
            height,
        )
    }

    /// Starts a shell command line in a `width`x`height` pane, in a fresh temp dir.
    pub fn start_shell(name: &str, script: &str, width: u16, height: u16) -> Self {
        Self::session(temp_dir(name), script, width, height)
    }

    /// A detached tmux server with its socket in `dir`, running `script` there.
    fn session(dir: tempfile::TempDir, script: &str, width: u16, height: u16) -> Self {
        let socket = dir.path().join("tmux.sock").to_string_lossy().into_owned();
        let script = format!("cd {}; {script}", quote(&dir.path().to_string_lossy()));
        let ok = Command::new("tmux")
            .args(["-S", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .args(["sh", "-c", &script])
            .status()
            .expect("running tmux");
        assert!(ok.success(), "tmux new-session failed");
        Self { socket, dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-S", &self.socket])
            .args(args)
            .output()
            .expect("running tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn capture(&self) -> String {
        self.tmux(&["capture-pane", "-p"])
    }

    /// The pane and its history with lines the terminal wrapped joined again: a line longer
    /// than the pane is one the program printed too wide.
    pub fn capture_joined(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-S", "-"])
    }

    pub fn resize(&self, width: u16, height: u16) {
        self.tmux(&[
            "resize-window",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
    }

    /// Frames drawn while `f` runs: synchronized-update starts (`ESC [ ? 2026 h`) in the
    /// pane's output, recorded with `pipe-pane`.
    pub fn count_frames(&self, f: impl FnOnce()) -> usize {
        let log = self.path("pane-output");
        let _ = std::fs::remove_file(&log);
        self.tmux(&[
            "pipe-pane",
            "-o",
            &format!("cat >> {}", quote(&log.to_string_lossy())),
        ]);
        f();
        self.tmux(&["pipe-pane"]);
        std::thread::sleep(Duration::from_millis(200));
        let bytes = std::fs::read(&log).unwrap_or_default();
        let needle = b"\x1b[?2026h";
        bytes.windows(needle.len()).filter(|w| w == needle).count()
    }

    /// Closes the pane (its processes get SIGHUP), as a dropped SSH connection would.
    pub fn kill_pane(&self) {
        self.tmux(&["kill-pane"]);
    }

    pub fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// The pid of the process tmux started (the `sh -c` wrapper's child is the binary).
    pub fn pane_pid(&self) -> u32 {
        self.tmux(&["display", "-p", "#{pane_pid}"])
            .trim()
            .parse()
            .expect("pane pid")
    }

    /// Polls the screen until `pred` holds; panics with the last screen after `timeout`.
    pub fn wait_for(&self, what: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if pred(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < timeout,
                "timed out waiting for {what}; screen:\n{screen}\nstderr:\n{}",
                std::fs::read_to_string(self.path("stderr")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits for the binary to exit and returns its status.
    pub fn exit_status(&self, timeout: Duration) -> i32 {
        let file = self.path("status");
        let start = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(&file)
                && let Ok(code) = text.trim().parse()
            {
                return code;
            }
            assert!(
                start.elapsed() < timeout,
                "the binary did not exit; screen:\n{}\nstderr:\n{}",
                self.capture(),
                std::fs::read_to_string(self.path("stderr")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `alternate_on cursor_flag`: `0 1` once the terminal is restored.
    pub fn tmux_flags(&self) -> String {
        let flags = self.tmux(&["display", "-p", "#{alternate_on} #{cursor_flag}"]);
        flags.trim().to_owned()
    }

    /// The alternate screen is off and the cursor visible: the terminal was restored.
    pub fn assert_restored(&self) {
        assert_eq!(
            self.tmux_flags(),
            "0 1",
            "terminal not restored (alternate_on cursor_flag)"
        );
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.path("stderr")).unwrap_or_default()
    }

    pub fn dir_path(&self) -> &Path {
        self.dir.path()
    }
}

/// The pid of the child of `parent` whose command is `name`.
pub fn child_named(parent: u32, name: &str) -> i32 {
    let children = std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
        .expect("children of the pane shell");
    children
        .split_whitespace()
        .filter_map(|p| p.parse::<i32>().ok())
        .find(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == name)
        })
        .unwrap_or_else(|| panic!("no {name} under pid {parent}"))
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-S", &self.socket, "kill-server"])
            .output();
    }
}
