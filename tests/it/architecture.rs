//! The layer rule, checked on the source: arrows point down only. A core (`bench`, `monitor`,
//! `stats`, `record`, `plan`, `session`) never names a command, a front end or clap; a front
//! end (`tui`, `report`, `serve`) never names a command or clap. Comments may mention anything.

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
