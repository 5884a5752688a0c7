//! The layer rule, checked on the source: arrows point down only. A core (`bench`, `monitor`,
//! `stats`, `record`, `plan`, `session`) never names a command, a front end or clap; a front
//! end (`tui`, `report`, `serve`, `fleet`) never names a command, the driver or clap; the
//! driver (`drive`) never names a command or clap; no command names another. Comments may
//! mention anything.

use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `(file:line, line)` of `module` (a directory and its `module.rs` beside it) whose
/// code names one of `forbidden`.
fn violations(module: &str, forbidden: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    let dir = Path::new(SRC).join(module);
    if dir.is_dir() {
        rust_files(&dir, &mut files);
    }
    let single = Path::new(SRC).join(format!("{module}.rs"));
    if single.is_file() {
        files.push(single);
    }
    assert!(!files.is_empty(), "no source for {module}");
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for name in forbidden {
                if code.contains(name) {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn cores_never_import_commands_front_ends_or_clap() {
    let upper = [
        "crate::cli",
        "crate::cmd",
        "crate::tui",
        "crate::report",
        "crate::serve",
        "clap::",
    ];
    for core in ["bench", "monitor", "stats", "record", "plan", "session"] {
        let found = violations(core, &upper);
        assert!(found.is_empty(), "{core} reaches up:\n{}", found.join("\n"));
    }
}

#[test]
fn front_ends_never_import_commands_or_clap() {
    for front in ["tui", "report", "serve"] {
        let found = violations(front, &["crate::cli", "crate::cmd", "clap::"]);
        assert!(
            found.is_empty(),
            "{front} reaches up:\n{}",
            found.join("\n")
        );
    }
}

/// The subcommands: each file under `src/cmd/` (or directory with its own files) but the
/// dispatcher and the shared flags.
fn commands() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(Path::new(SRC).join("cmd"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".rs").unwrap_or(&name).to_string();
            (stem != "mod" && stem != "flags").then_some(stem)
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn no_command_imports_another() {
    let commands = commands();
    assert!(commands.len() > 10, "{commands:?}");
    let mut files = Vec::new();
    rust_files(&Path::new(SRC).join("cmd"), &mut files);
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("cmd/mod.rs")) {
        let rel = file.strip_prefix(Path::new(SRC).join("cmd")).unwrap();
        // `fio/run.rs` is `fio`'s own: it may name its parent's items, not another command.
        let own = rel
            .components()
            .next()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .unwrap_or_default();
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for other in commands.iter().filter(|c| **c != own) {
                for path in [format!("super::{other}::"), format!("crate::cmd::{other}")] {
                    if code.contains(&path) {
                        found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "a command imports another:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_driver_sits_below_the_commands_and_above_the_front_ends() {
    let found = violations("drive", &["crate::cli", "crate::cmd", "clap::"]);
    assert!(found.is_empty(), "drive reaches up:\n{}", found.join("\n"));
    for front in ["tui", "report", "serve", "fleet"] {
        let found = violations(
            front,
            &["crate::drive", "crate::cmd", "crate::cli", "clap::"],
        );
        assert!(
            found.is_empty(),
            "{front} reaches up to the driver:\n{}",
            found.join("\n")
        );
    }
}
