//! `diskdash generate`: the manual page renders through the real `man` and `groff` with no
//! warning, the bash completion loads into a real bash, the other shells' scripts cover every
//! subcommand, and a bad name is one line and exit 2.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::support::*;

fn generate(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("generate")
        .args(args)
        .output()
        .expect("running diskdash")
}

/// `program args` with `input` on stdin.
fn pipe(program: &str, args: &[&str], input: &[u8], envs: &[(&str, &str)]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .envs(envs.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("running {program} (CI installs it): {e}"));
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// The subcommands `diskdash --help` lists.
fn subcommands() -> Vec<String> {
    let help = Command::new(BIN).arg("--help").output().unwrap();
    let text = stdout(&help);
    let list = text
        .split("Commands:\n")
        .nth(1)
        .expect("--help lists commands");
    list.lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn the_man_pages_render_with_man_and_groff_without_warnings() {
    for page in [None, Some("mark"), Some("fio"), Some("generate")] {
        let mut args = vec!["man"];
        args.extend(page);
        let out = generate(&args);
        assert_success(&out);
        let groff = pipe("groff", &["-man", "-Tutf8", "-ww", "-z"], &out.stdout, &[]);
        assert!(groff.status.success(), "{page:?}: {}", stderr(&groff));
        assert_eq!(stderr(&groff), "", "{page:?}: groff warns");
        let man = pipe("man", &["-l", "-"], &out.stdout, &[("MANWIDTH", "100")]);
        assert!(man.status.success(), "{page:?}: {}", stderr(&man));
        let text = stdout(&man);
        let title = page.map_or("diskdash".to_string(), |p| format!("diskdash-{p}"));
        assert!(text.starts_with(&format!("{title}(1)")), "{text}");
        for section in ["NAME", "SYNOPSIS", "OPTIONS"] {
            assert!(
                text.contains(&format!("\n{section}\n")),
                "{page:?} {section}: {text}"
            );
        }
        // No roff left unrendered.
        assert!(!text.contains("\n.TH") && !text.contains("\\fB"), "{text}");
    }
    let main = generate(&["man"]);
    let text = stdout(&pipe(
        "man",
        &["-l", "-"],
        &main.stdout,
        &[("MANWIDTH", "100")],
    ));
    for sub in subcommands() {
        assert!(text.contains(&sub), "the page lacks {sub}: {text}");
    }
    let mark = generate(&["man", "mark"]);
    let text = stdout(&pipe(
        "man",
        &["-l", "-"],
        &mark.stdout,
        &[("MANWIDTH", "100")],
    ));
    assert!(
        text.contains("--profile") && text.contains("--like"),
        "{text}"
    );
}

#[test]
fn the_bash_completion_loads_and_completes_subcommands() {
    let script = generate(&["bash"]);
    assert_success(&script);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("diskdash.bash");
    std::fs::write(&path, &script.stdout).unwrap();
    // Load it, then ask the completion function what `diskdash ma<TAB>` and
    // `diskdash mark --pro<TAB>` complete to.
    let probe = format!(
        "source {path}; complete -p diskdash; \
         COMP_WORDS=(diskdash ma); COMP_CWORD=1; COMP_LINE='diskdash ma'; COMP_POINT=11; \
         _diskdash diskdash ma diskdash; echo \"words: ${{COMPREPLY[*]}}\"; \
         COMP_WORDS=(diskdash mark --pro); COMP_CWORD=2; COMP_LINE='diskdash mark --pro'; \
         COMP_POINT=19; _diskdash diskdash --pro mark; echo \"flags: ${{COMPREPLY[*]}}\"",
        path = path.display()
    );
    let out = Command::new("bash")
        .args(["--norc", "-c", &probe])
        .output()
        .unwrap();
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("-F _diskdash diskdash\n"), "{text}");
    assert!(text.contains("words: mark"), "{text}");
    assert!(text.contains("flags: --profile"), "{text}");
}

#[test]
fn every_shell_script_covers_every_subcommand() {
    let subs = subcommands();
    assert!(
        subs.len() >= 10 && subs.iter().any(|s| s == "generate"),
        "{subs:?}"
    );
    for (shell, marker) in [
        ("zsh", "#compdef diskdash"),
        ("fish", "complete -c diskdash"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = generate(&[shell]);
        assert_success(&out);
        let script = stdout(&out);
        assert!(script.contains(marker), "{shell}: {script}");
        for sub in &subs {
            assert!(script.contains(sub.as_str()), "{shell} lacks {sub}");
        }
    }
}

#[test]
fn a_bad_name_is_one_line_and_exit_2() {
    let out = generate(&["tcsh"]);
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out),
        "error: generate \"tcsh\" is not something diskdash generates; use man, bash, zsh, fish, \
         powershell\n"
    );
    assert!(out.stdout.is_empty());
}
