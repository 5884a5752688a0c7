//! The ssh command line of one host. ssh joins its command words with spaces and hands the
//! result to the remote user's shell, so each argument is sent as one single-quoted shell word:
//! the remote side gets exactly the arguments given here, spaces, `;` and quotes included.
//!
//! Only the user's own OpenSSH client runs: their `~/.ssh/config` (or `-F FILE`), agent and
//! known_hosts apply. `BatchMode=yes` means no password or host-key prompt ever; an unknown host
//! key fails the host, and it comes first, so nothing can undo it (ssh keeps the first value of
//! an option). Nothing here turns host-key checking off; the user's own `-o` options come next,
//! so they win over diskdash's other options.

use std::ffi::OsString;
use std::path::PathBuf;

/// How to reach the hosts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SshOptions {
    /// The ssh program (`ssh`).
    pub program: PathBuf,
    /// `-F FILE` for ssh, when given.
    pub config: Option<PathBuf>,
    /// `-o KEY=VALUE` options the user gave, in order.
    pub options: Vec<String>,
}

/// `word` as one POSIX shell word: single-quoted, a `'` inside written `'\''`.
#[must_use]
pub fn shell_quote(word: &str) -> String {
    let mut out = String::with_capacity(word.len() + 2);
    out.push('\'');
    for c in word.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// The remote shell command that runs `words` (program first) as one process, each word quoted.
#[must_use]
pub fn remote_command(words: &[String]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
    format!("exec {}", quoted.join(" "))
}

/// The line a fleet's remote run ends with on stderr: `DISKDASH-FLEET-EXIT <status>`, the
/// remote shell's `$?` (128 + N when a signal N killed it).
pub const EXIT_MARK: &str = "DISKDASH-FLEET-EXIT ";

/// As [`remote_command`], run by `sh` on the host, which then says on stderr how the program
/// ended ([`EXIT_MARK`]) and exits with its status: ssh alone reports a remote killed by a
/// signal as its own failure (255), and nothing says which signal.
#[must_use]
pub fn remote_command_reporting_exit(words: &[String]) -> String {
    let script = format!("\"$@\"; s=$?; echo \"{EXIT_MARK}$s\" >&2; exit $s");
    let quoted: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
    format!(
        "exec sh -c {} sh {}",
        shell_quote(&script),
        quoted.join(" ")
    )
}

/// The exit status in a stderr line of a run started by [`remote_command_reporting_exit`].
#[must_use]
pub fn exit_mark(line: &str) -> Option<i32> {
    line.strip_prefix(EXIT_MARK)?.trim().parse().ok()
}

/// The arguments of `ssh` (after the program) that run `remote` on `host`.
#[must_use]
pub fn ssh_args(ssh: &SshOptions, host: &str, remote: &str) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    if let Some(config) = &ssh.config {
        args.push("-F".into());
        args.push(config.into());
    }
    // Never a prompt: a host that needs a password or an unknown host key fails. First, so no
    // option given later can undo it (ssh keeps the first value of an option).
    args.push("-o".into());
    args.push("BatchMode=yes".into());
    for option in &ssh.options {
        args.push("-o".into());
        args.push(option.into());
    }
    for option in [
        // A host gone silent (cable, power) is noticed in about 15 s instead of never.
        "ServerAliveInterval=5",
        "ServerAliveCountMax=3",
    ] {
        args.push("-o".into());
        args.push(option.into());
    }
    // No terminal, no agent or X11 forwarding: the run needs none of them.
    args.extend(["-T", "-a", "-x", "--"].map(OsString::from));
    args.push(host.into());
    args.push(remote.into());
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `sh -c` makes of the quoted command: the words come back one for one.
    #[test]
    fn quoted_words_survive_a_real_shell() {
        let words: Vec<String> = [
            "printf",
            "<%s>\\n",
            "a b",
            "x;rm -rf /nonexistent",
            "it's",
            "$HOME",
            "`id`",
            "\"q\"",
            "",
            "*",
            "back\\slash",
        ]
        .map(String::from)
        .to_vec();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(remote_command(&words))
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let want: String = words[2..].iter().map(|w| format!("<{w}>\n")).collect();
        assert_eq!(text, want);
    }

    /// The words arrive one for one, and how the program ended is said on stderr: its code, or
    /// 128 + the signal that killed it; the shell exits with the same status.
    #[test]
    fn the_remote_shell_reports_the_exit_and_the_signal() {
        let run = |words: &[&str]| {
            let words: Vec<String> = words.iter().map(|w| (*w).to_string()).collect();
            std::process::Command::new("sh")
                .arg("-c")
                .arg(remote_command_reporting_exit(&words))
                .output()
                .unwrap()
        };
        let out = run(&["printf", "<%s>", "a b", "it's", "$HOME"]);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "<a b><it's><$HOME>");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().filter_map(exit_mark).collect::<Vec<_>>(), [0]);
        let out = run(&["sh", "-c", "exit 7"]);
        assert_eq!(out.status.code(), Some(7));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().filter_map(exit_mark).collect::<Vec<_>>(), [7]);
        let out = run(&["sh", "-c", "kill -9 $$"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().filter_map(exit_mark).collect::<Vec<_>>(), [137]);
        assert_eq!(exit_mark("DISKDASH-FLEET-EXIT x"), None);
    }

    #[test]
    fn batch_mode_first_then_user_options_host_after_double_dash() {
        let ssh = SshOptions {
            program: "ssh".into(),
            config: Some("/t/ssh_config".into()),
            options: vec!["StrictHostKeyChecking=accept-new".into()],
        };
        let args = ssh_args(&ssh, "node1", "exec 'diskdash'");
        let args: Vec<&str> = args.iter().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            args,
            [
                "-F",
                "/t/ssh_config",
                "-o",
                "BatchMode=yes",
                "-o",
                "StrictHostKeyChecking=accept-new",
                "-o",
                "ServerAliveInterval=5",
                "-o",
                "ServerAliveCountMax=3",
                "-T",
                "-a",
                "-x",
                "--",
                "node1",
                "exec 'diskdash'"
            ]
        );
        assert!(!args.iter().any(|a| a.contains("StrictHostKeyChecking=no")));
    }
}
