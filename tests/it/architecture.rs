//! The layer rule, checked on the source: arrows point down only (assets/doc/architecture.md).
//! Every top-level module under `src/` has a row in [`LAYERS`] saying what it may not name; a
//! module without a row fails. `record` is a leaf: it names no module of the crate but the
//! bottom row (`units`, `error`, `pinned`). `analysis` is pure: it reads records and statistics, never a
//! command, a front end, the session or clap. The driver (`drive`) sits between the commands and
//! the front ends; no command names another. Comments may mention anything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// Commands, front ends and clap: what no layer below the commands names.
const UPPER: &[&str] = &[
    "crate::cli",
    "crate::cmd",
    "crate::tui",
    "crate::report",
    "crate::html",
    "crate::serve",
    "clap::",
];

/// What the cores (`bench`, `monitor`, `stats`, `record`) may not name: everything above them.
const ABOVE_CORES: &[&str] = &[
    "crate::cli",
    "crate::cmd",
    "crate::drive",
    "crate::tui",
    "crate::report",
    "crate::html",
    "crate::serve",
    "crate::fleet",
    "crate::session",
    "crate::analysis",
    "crate::sweep",
    "crate::fio",
    "crate::plan",
    "clap::",
];

/// What the cores below the load generator (`monitor`, `stats`, `record`) may not name: what
/// the cores may not, and `bench` (the machine's limits are `monitor::host`'s).
const BELOW_BENCH: &[&str] = &[
    "crate::cli",
    "crate::cmd",
    "crate::drive",
    "crate::tui",
    "crate::report",
    "crate::html",
    "crate::serve",
    "crate::fleet",
    "crate::session",
    "crate::analysis",
    "crate::sweep",
    "crate::fio",
    "crate::plan",
    "crate::bench",
    "clap::",
];

/// What the block tracer (`trace`) may not name: what the cores below the load generator
/// may not, and `monitor` (the monitor and the session use it, not the other way).
const BELOW_TRACE: &[&str] = &[
    "crate::cli",
    "crate::cmd",
    "crate::drive",
    "crate::tui",
    "crate::report",
    "crate::html",
    "crate::serve",
    "crate::fleet",
    "crate::session",
    "crate::analysis",
    "crate::sweep",
    "crate::fio",
    "crate::plan",
    "crate::bench",
    "crate::monitor",
    "clap::",
];

/// What the bottom (`units`, `error`, `text`, `values`, `pinned`) may not name: every other module.
const ABOVE_BOTTOM: &[&str] = &[
    "crate::cli",
    "crate::cmd",
    "crate::drive",
    "crate::tui",
    "crate::report",
    "crate::html",
    "crate::serve",
    "crate::fleet",
    "crate::session",
    "crate::analysis",
    "crate::sweep",
    "crate::fio",
    "crate::plan",
    "crate::bench",
    "crate::monitor",
    "crate::stats",
    "crate::record",
    "crate::trace",
    "clap::",
];

/// Each top-level module of `src/` and what its code may not name.
const LAYERS: &[(&str, &[&str])] = &[
    // The top: a command may use every layer below it.
    ("cmd", &[]),
    (
        "cli",
        &[
            "crate::cmd",
            "crate::tui",
            "crate::report",
            "crate::html",
            "crate::serve",
            "crate::session",
            "crate::fleet",
            "crate::analysis",
        ],
    ),
    // The driver: below the commands, above the front ends.
    ("drive", &["crate::cli", "crate::cmd", "clap::"]),
    // Front ends.
    (
        "tui",
        &[
            "crate::cli",
            "crate::cmd",
            "crate::drive",
            // A criterion's value is formatted in `stats::steady`, not in a report.
            "crate::report::steady",
            "clap::",
        ],
    ),
    (
        "report",
        &["crate::cli", "crate::cmd", "crate::drive", "clap::"],
    ),
    (
        "serve",
        &["crate::cli", "crate::cmd", "crate::drive", "clap::"],
    ),
    // The HTML report: a front end drawing records (and `report`'s tables of them).
    (
        "html",
        &[
            "crate::cli",
            "crate::cmd",
            "crate::drive",
            "crate::tui",
            "crate::serve",
            "crate::session",
            "clap::",
        ],
    ),
    // The fleet's data (hosts, lines, merge, rows); its table is rendered in `report`, its
    // remote side is handed the session's gate and signal handler.
    (
        "fleet",
        &[
            "crate::cli",
            "crate::cmd",
            "crate::drive",
            "crate::tui",
            "crate::report",
            "crate::html",
            "crate::serve",
            "crate::session",
            "crate::fio",
            "clap::",
        ],
    ),
    // The session and the plan builders.
    (
        "session",
        &[
            "crate::cli",
            "crate::cmd",
            "crate::drive",
            "crate::tui",
            "crate::report",
            "crate::html",
            "crate::serve",
            "crate::fleet",
            "crate::fio",
            "crate::sweep",
            "clap::",
        ],
    ),
    (
        "plan",
        &[
            "crate::cli",
            "crate::cmd",
            "crate::drive",
            "crate::tui",
            "crate::report",
            "crate::html",
            "crate::serve",
            "crate::fleet",
            "crate::fio",
            "crate::session",
            "crate::analysis",
            "crate::sweep",
            "clap::",
        ],
    ),
    (
        "fio",
        &[
            "crate::cli",
            "crate::cmd",
            "crate::drive",
            "crate::tui",
            "crate::serve",
            "crate::fleet",
            "crate::sweep",
            "crate::report",
            "crate::html",
            "clap::",
        ],
    ),
    (
        "sweep",
        &[
            "crate::cli",
            "crate::cmd",
            "crate::drive",
            "crate::tui",
            "crate::serve",
            "crate::fleet",
            "crate::fio",
            "crate::report",
            "crate::html",
            "clap::",
        ],
    ),
    // Pure analysis of recorded points.
    (
        "analysis",
        &[
            "crate::cli",
            "crate::cmd",
            "crate::drive",
            "crate::tui",
            "crate::report",
            "crate::html",
            "crate::serve",
            "crate::session",
            "crate::fleet",
            "crate::fio",
            "crate::plan",
            "crate::sweep",
            "clap::",
        ],
    ),
    // The cores.
    ("bench", ABOVE_CORES),
    ("monitor", BELOW_BENCH),
    ("stats", BELOW_BENCH),
    ("record", BELOW_BENCH),
    // The block-layer tracer: below the session and the monitor, above stats and record.
    ("trace", BELOW_TRACE),
    // The bottom.
    ("units", ABOVE_BOTTOM),
    ("error", ABOVE_BOTTOM),
    ("text", ABOVE_BOTTOM),
    ("values", ABOVE_BOTTOM),
    ("pinned", ABOVE_BOTTOM),
    // The tests' and benches' window into the crate (only with the `fixtures` feature): it
    // re-exports from any layer and nothing imports it.
    ("testing", &[]),
];

/// The modules of the crate `record` may name: itself and the bottom row of the design
/// (`units`, `error` with its `usage!` macro (`crate::error::usage`), `pinned`: the descriptors its writers open by).
const RECORD_MAY_NAME: &[&str] = &["record", "units", "error", "pinned"];

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

/// The source files of `module`: its directory and its `module.rs` beside it.
fn module_files(module: &str) -> Vec<PathBuf> {
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
    files.sort();
    files
}

/// Each `(file, line number, code)` of `module`, comments cut off.
fn code_lines(module: &str) -> Vec<(PathBuf, usize, String)> {
    let mut out = Vec::new();
    for file in module_files(module) {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            out.push((file.clone(), n + 1, code.to_string()));
        }
    }
    out
}

/// Every `(file:line, line)` of `module` whose code names one of `forbidden`.
fn violations(module: &str, forbidden: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for (file, n, code) in code_lines(module) {
        for name in forbidden {
            if code.contains(name) {
                found.push(format!("{}:{n}: {}", file.display(), code.trim()));
            }
        }
    }
    found
}

/// The crate modules a line of code names (`crate::bench::spec` names `bench`).
fn crate_modules(code: &str) -> Vec<String> {
    code.match_indices("crate::")
        .filter(|(at, _)| {
            // `diskdash_crate::` or `some_crate::` is not the crate.
            !code[..*at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .map(|(at, m)| {
            code[at + m.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '{')
                .collect::<String>()
        })
        .collect()
}

#[test]
fn every_module_has_a_layer_and_every_layer_a_module() {
    let mut modules: Vec<String> = std::fs::read_dir(SRC)
        .unwrap()
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            let name = path.file_stem()?.to_str()?.to_string();
            let is_module = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
            (is_module && name != "lib" && name != "main").then_some(name)
        })
        .collect();
    modules.sort();
    modules.dedup();
    let rows: Vec<&str> = LAYERS.iter().map(|(m, _)| *m).collect();
    let missing: Vec<&String> = modules
        .iter()
        .filter(|m| !rows.contains(&m.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "modules with no row in LAYERS: {missing:?}"
    );
    let stale: Vec<&&str> = rows
        .iter()
        .filter(|r| !modules.iter().any(|m| m == *r))
        .collect();
    assert!(
        stale.is_empty(),
        "rows of LAYERS with no module under src/: {stale:?}"
    );
}

#[test]
fn no_module_names_a_layer_above_it() {
    let mut found = Vec::new();
    for (module, forbidden) in LAYERS {
        found.extend(violations(module, forbidden));
    }
    assert!(found.is_empty(), "reaching up:\n{}", found.join("\n"));
}

#[test]
fn cores_never_import_commands_front_ends_or_clap() {
    for core in ["bench", "monitor", "stats", "record", "plan", "session"] {
        let found = violations(core, UPPER);
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

#[test]
fn record_is_a_leaf() {
    let mut found = Vec::new();
    for (file, n, code) in code_lines("record") {
        let short = file
            .strip_prefix(Path::new(SRC).join("record"))
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for module in crate_modules(&code) {
            if RECORD_MAY_NAME.contains(&module.as_str()) {
                continue;
            }
            found.push(format!("src/record/{short}:{n}: {}", code.trim()));
        }
    }
    assert!(
        found.is_empty(),
        "record names a module of the crate other than units and error:\n{}",
        found.join("\n")
    );
}

#[test]
fn analysis_reads_records_and_statistics_only() {
    let allowed = ["analysis", "record", "stats", "units", "values", "error"];
    let mut found = Vec::new();
    for (file, n, code) in code_lines("analysis") {
        for module in crate_modules(&code) {
            if !allowed.contains(&module.as_str()) {
                found.push(format!("{}:{n}: {}", file.display(), code.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "analysis names a module it may not:\n{}",
        found.join("\n")
    );
}

#[test]
fn usage_is_named_where_it_lives_not_at_the_crate_root() {
    let mut files = Vec::new();
    rust_files(Path::new(SRC), &mut files);
    let mut found = Vec::new();
    for file in files {
        let relative = file
            .strip_prefix(SRC)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("crate::usage") {
                found.push(format!("src/{relative}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "name the macro where it lives (`crate::error::usage`), not at the crate root:\n{}",
        found.join("\n")
    );
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

/// The longest a function on the I/O path may be, from its `fn` line to its closing brace.
const FN_LINES_MAX: usize = 150;

/// The I/O path: the engines and workers, the session that runs them, the counters and
/// histograms, the device sampler; and fio's options into a plan (`fio`), the option table's
/// other reader.
const IO_PATH: [&str; 5] = ["bench", "session", "stats", "monitor", "fio"];

/// Longer functions allowed for now, as (file under `src/`, function), each with why.
const LONG_FN_EXEMPT: &[(&str, &str)] = &[];

/// Blanks `code[from..to]` to spaces, keeping newlines (so line numbers hold).
fn blank(code: &mut [u8], from: usize, to: usize) {
    let to = to.min(code.len());
    for byte in &mut code[from..to] {
        if *byte != b'\n' {
            *byte = b' ';
        }
    }
}

/// The index just past the brace that closes the one at `open`.
fn closing_brace(code: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, &byte) in code.iter().enumerate().skip(open) {
        match byte {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// `text` with comments and string and character literals blanked, then every
/// `#[cfg(test)]` item (the test modules) too: what is left is the shipped code's braces.
fn shipped_code(text: &str) -> Vec<u8> {
    let src = text.as_bytes();
    let mut code = src.to_vec();
    let mut i = 0;
    while i < src.len() {
        let next = src.get(i + 1).copied();
        let end = match src[i] {
            b'/' if next == Some(b'/') => src[i..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(src.len(), |n| i + n),
            b'/' if next == Some(b'*') => {
                let (mut depth, mut j) = (0usize, i);
                while j < src.len() {
                    if src[j..].starts_with(b"/*") {
                        depth += 1;
                        j += 2;
                    } else if src[j..].starts_with(b"*/") {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                j
            }
            b'"' => {
                let mut j = i + 1;
                while j < src.len() && src[j] != b'"' {
                    j += if src[j] == b'\\' { 2 } else { 1 };
                }
                j + 1
            }
            b'r' if (i == 0
                || !is_ident(src[i - 1])
                || (src[i - 1] == b'b' && (i < 2 || !is_ident(src[i - 2]))))
                && matches!(next, Some(b'"' | b'#')) =>
            {
                let hashes = src[i + 1..].iter().take_while(|&&b| b == b'#').count();
                if src.get(i + 1 + hashes) == Some(&b'"') {
                    let close: Vec<u8> = std::iter::once(b'"')
                        .chain(std::iter::repeat_n(b'#', hashes))
                        .collect();
                    let body = i + 2 + hashes;
                    src[body..]
                        .windows(close.len())
                        .position(|w| w == close.as_slice())
                        .map_or(src.len(), |n| body + n + close.len())
                } else {
                    i + 1
                }
            }
            b'\'' => {
                // A character literal, else a lifetime (left as it is).
                let rest = &text[i + 1..];
                if let Some(escaped) = rest.strip_prefix('\\') {
                    escaped.find('\'').map_or(i + 1, |n| i + 3 + n)
                } else {
                    let len = rest.chars().next().map_or(0, char::len_utf8);
                    if rest[len..].starts_with('\'') {
                        i + 2 + len
                    } else {
                        i + 1
                    }
                }
            }
            _ => i + 1,
        };
        if end > i + 1 || matches!(src[i], b'"') {
            blank(&mut code, i, end);
        }
        i = end.max(i + 1);
    }
    let mut from = 0;
    while let Some(n) = find(&code[from..], b"#[cfg(test)]") {
        let at = from + n;
        let item_end = code[at..]
            .iter()
            .position(|&b| b == b'{' || b == b';')
            .map_or(code.len(), |n| at + n);
        let end = if code.get(item_end) == Some(&b'{') {
            closing_brace(&code, item_end)
        } else {
            item_end
        };
        blank(&mut code, at, end);
        from = end.max(at + 1);
    }
    code
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Every function with a body in `text`: (name, first line, length in lines).
fn function_lengths(text: &str) -> Vec<(String, usize, usize)> {
    let code = shipped_code(text);
    let line_of = |at: usize| code[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(n) = find(&code[from..], b"fn ") {
        let at = from + n;
        from = at + 3;
        if at > 0 && is_ident(code[at - 1]) {
            continue;
        }
        let name: String = code[from..]
            .iter()
            .skip_while(|b| b.is_ascii_whitespace())
            .take_while(|&&b| is_ident(b))
            .map(|&b| char::from(b))
            .collect();
        if name.is_empty() {
            continue; // a `fn(..)` pointer type
        }
        let Some(body) = code[from..]
            .iter()
            .position(|&b| b == b'{' || b == b';')
            .map(|n| from + n)
            .filter(|&i| code[i] == b'{')
        else {
            continue; // a declaration without a body
        };
        let first = line_of(at);
        let last = line_of(closing_brace(&code, body) - 1);
        found.push((name, first, last - first + 1));
    }
    found
}

#[test]
fn function_lengths_count_code_not_braces_in_text() {
    let text = r##"
fn short() {
    let s = "}}}"; // }}
    let c = '}';
    let r = r#"{"#;
    /* { */
}

fn with_lifetime<'a>(x: &'a str) -> &'a str {
    x
}

trait T {
    fn declared(&self);
}

#[cfg(test)]
mod tests {
    fn in_tests() {}
}
"##;
    let lengths = function_lengths(text);
    assert_eq!(
        lengths,
        vec![
            ("short".to_string(), 2, 6),
            ("with_lifetime".to_string(), 9, 3),
        ]
    );
}

#[test]
fn no_function_on_the_io_path_is_over_150_lines() {
    let mut long = Vec::new();
    for module in IO_PATH {
        for file in module_files(module) {
            let text = std::fs::read_to_string(&file).unwrap();
            let relative = file
                .strip_prefix(SRC)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            for (name, line, lines) in function_lengths(&text) {
                let exempt = LONG_FN_EXEMPT.contains(&(relative.as_str(), name.as_str()));
                if lines > FN_LINES_MAX && !exempt {
                    long.push(format!("src/{relative}:{line}: fn {name} is {lines} lines"));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions on the I/O path over {FN_LINES_MAX} lines (split them into named steps):\n{}",
        long.join("\n")
    );
}

/// The most files an import circle may hold: two or three files that name each other are a
/// module split for reading; more is a knot.
const CYCLE_FILES_MAX: usize = 3;

/// A source file's module path: `bench/spec.rs` is `bench::spec`, `bench/mod.rs` is `bench`,
/// `lib.rs` the crate root (empty).
fn module_path(relative: &str) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The paths of a `use` tree, `a::{b, c::{d as e}}` as `a::b` and `a::c::d`; a glob or
/// `self` names its parent.
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        if let Some(inner) = tree.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
            let (mut depth, mut from) = (0usize, 0usize);
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(prefix, &inner[from..i], out);
                        from = i + 1;
                    }
                    _ => {}
                }
            }
            expand(prefix, &inner[from..], out);
        } else if let Some(at) = tree.find("::{") {
            let mut longer = prefix.to_vec();
            longer.extend(tree[..at].split("::").map(|s| s.trim().to_string()));
            expand(&longer, &tree[at + 2..], out);
        } else if !tree.is_empty() {
            let name = tree.split(" as ").next().unwrap_or(tree);
            let mut path = prefix.to_vec();
            path.extend(
                name.split("::")
                    .map(str::trim)
                    .filter(|s| !s.is_empty() && *s != "*" && *s != "self")
                    .map(str::to_string),
            );
            out.push(path);
        }
    }
    let tree = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let tree = tree
        .replace(" ::", "::")
        .replace(":: ", "::")
        .replace("{ ", "{")
        .replace(" }", "}");
    let mut out = Vec::new();
    expand(&[], &tree, &mut out);
    out
}

/// Every path a file's shipped code names that may be the crate's: each path of its `use`
/// items, and each `a::b` in its code.
fn named_paths(code: &str) -> Vec<Vec<String>> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let before_ok = |at: usize| {
        !code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| is_word(c) || c == ':')
    };
    let mut out = Vec::new();
    for (at, _) in code.match_indices("use ") {
        if before_ok(at)
            && let Some(end) = code[at..].find(';')
        {
            out.extend(use_paths(&code[at + 4..at + end]));
        }
    }
    let mut rest = code;
    let mut offset = 0;
    while let Some(n) = rest.find("::") {
        let at = offset + n;
        let start = code[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_word(*c))
            .last()
            .map_or(at, |(i, _)| i);
        if start < at && before_ok(start) {
            let mut end = at;
            while code[end..].starts_with("::") {
                let word: usize = code[end + 2..]
                    .chars()
                    .take_while(|c| is_word(*c))
                    .map(char::len_utf8)
                    .sum();
                if word == 0 {
                    break;
                }
                end += 2 + word;
            }
            out.push(code[start..end].split("::").map(str::to_string).collect());
            offset = end.max(at + 2);
        } else {
            offset = at + 2;
        }
        rest = &code[offset..];
    }
    out
}

/// The file-level import graph of `src/`: for each file (relative to `src/`), the files its
/// shipped code names (test modules left out), each with one path that names it. A path
/// names the file of its longest module prefix (`crate::bench::spec::JobSpec`: `bench/spec.rs`;
/// `crate::usage`: `lib.rs`). A module's own file naming its submodules (declaring and
/// re-exporting them: `record/mod.rs` -> `record/dto.rs`) is the module's face, not an arrow.
fn import_graph() -> BTreeMap<String, BTreeMap<String, String>> {
    let mut paths = Vec::new();
    rust_files(Path::new(SRC), &mut paths);
    let files: BTreeMap<String, PathBuf> = paths
        .into_iter()
        .map(|p| {
            let relative = p.strip_prefix(SRC).unwrap().to_string_lossy().into_owned();
            (relative, p)
        })
        .filter(|(relative, _)| relative != "main.rs")
        .collect();
    let modules: BTreeMap<Vec<String>, String> = files
        .keys()
        .map(|relative| (module_path(relative), relative.clone()))
        .collect();
    let file_of = |path: &[String]| {
        (0..=path.len())
            .rev()
            .find_map(|n| modules.get(&path[..n]))
            .cloned()
    };
    let mut graph = BTreeMap::new();
    for (relative, file) in &files {
        let module = module_path(relative);
        let children: Vec<&String> = modules
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(&module))
            .map(|m| &m[module.len()])
            .collect();
        let code = shipped_code(&std::fs::read_to_string(file).unwrap());
        let code = String::from_utf8_lossy(&code);
        let mut edges = BTreeMap::new();
        for path in named_paths(&code) {
            let absolute = match path.first().map(String::as_str) {
                Some("crate") => path[1..].to_vec(),
                Some("super" | "self") => {
                    let mut base = module.clone();
                    let mut rest = path.as_slice();
                    while let Some(word) = rest.first() {
                        match word.as_str() {
                            "super" => _ = base.pop(),
                            "self" => {}
                            _ => break,
                        }
                        rest = &rest[1..];
                    }
                    base.extend(rest.iter().cloned());
                    base
                }
                Some(first) if children.iter().any(|c| *c == first) => {
                    let mut base = module.clone();
                    base.extend(path.iter().cloned());
                    base
                }
                _ => continue,
            };
            let Some(target) = file_of(&absolute) else {
                continue;
            };
            let target_module = module_path(&target);
            let own_submodule =
                target_module.len() > module.len() && target_module.starts_with(&module);
            if target != *relative && !own_submodule {
                edges.entry(target).or_insert_with(|| path.join("::"));
            }
        }
        graph.insert(relative.clone(), edges);
    }
    graph
}

/// The strongly connected components of `graph` (Tarjan's), each sorted.
fn strongly_connected(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(walk: &mut Walk<'a>, node: &'a str) {
        let n = walk.index.len();
        walk.index.insert(node, n);
        walk.low.insert(node, n);
        walk.stack.push(node);
        for next in walk.graph[node].keys() {
            let next = next.as_str();
            if !walk.index.contains_key(next) {
                visit(walk, next);
                let low = walk.low[node].min(walk.low[next]);
                walk.low.insert(node, low);
            } else if walk.stack.contains(&next) {
                let low = walk.low[node].min(walk.index[next]);
                walk.low.insert(node, low);
            }
        }
        if walk.low[node] == walk.index[node] {
            let mut component = Vec::new();
            while let Some(top) = walk.stack.pop() {
                component.push(top.to_string());
                if top == node {
                    break;
                }
            }
            component.sort();
            walk.found.push(component);
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_str()) {
            visit(&mut walk, node);
        }
    }
    walk.found
}

#[test]
fn use_trees_and_paths_name_the_modules_they_reach() {
    assert_eq!(
        use_paths("crate::bench::{spec::{self, JobSpec}, kinds::Direction as D, rate::*}"),
        vec![
            vec!["crate", "bench", "spec"],
            vec!["crate", "bench", "spec", "JobSpec"],
            vec!["crate", "bench", "kinds", "Direction"],
            vec!["crate", "bench", "rate"],
        ]
    );
    let code = "use super::fold::{\n    Interval,\n};\nlet x = crate::plan::describe(p); a::b;";
    assert_eq!(
        named_paths(code),
        vec![
            vec!["super", "fold", "Interval"],
            vec!["super", "fold"],
            vec!["crate", "plan", "describe"],
            vec!["a", "b"],
        ]
    );
    let graph = import_graph();
    assert!(graph["bench/worker.rs"].contains_key("bench/spec.rs"));
    assert!(graph["session/runner.rs"].contains_key("session/fold.rs"));
    assert!(
        !graph["bench/mod.rs"].contains_key("bench/spec.rs"),
        "a module's face is no arrow"
    );
}

#[test]
fn no_import_circle_holds_more_than_three_files() {
    let graph = import_graph();
    let mut knots: Vec<String> = strongly_connected(&graph)
        .into_iter()
        .filter(|component| component.len() > CYCLE_FILES_MAX)
        .map(|component| {
            let arrows: Vec<String> = component
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|(to, _)| component.contains(to))
                        .map(move |(to, path)| format!("  {from} -> {to} ({path})"))
                })
                .collect();
            format!(
                "{} files: {}\n{}",
                component.len(),
                component.join(", "),
                arrows.join("\n")
            )
        })
        .collect();
    knots.sort();
    assert!(
        knots.is_empty(),
        "import circles of more than {CYCLE_FILES_MAX} files (put the types both sides name in a \
         module below them):\n{}",
        knots.join("\n")
    );
}

/// `src/lib.rs`'s code lines, comments blanked, numbered from 1.
fn lib_lines() -> Vec<(usize, String)> {
    let lib = std::fs::read_to_string(Path::new(SRC).join("lib.rs")).unwrap();
    lib.lines()
        .enumerate()
        .map(|(n, line)| {
            (
                n + 1,
                line.split("//").next().unwrap_or("").trim().to_string(),
            )
        })
        .collect()
}

/// The lint stays reachable: with every module private, `dead_code` sees the whole crate (a
/// `pub` item in a `pub mod` of a library counts as used, however dead). `src/lib.rs` declares
/// one public module, `testing`, and only under the `fixtures` feature (the tests' and benches'
/// dev-dependency on the crate; never a release build).
#[test]
fn lib_declares_no_public_module_but_the_fixtures_surface() {
    let lines = lib_lines();
    let mut found = Vec::new();
    for (i, (n, code)) in lines.iter().enumerate() {
        let Some(name) = code.strip_prefix("pub mod ") else {
            continue;
        };
        let name = name.trim_end_matches([';', '{', ' ']);
        let attribute = lines[..i]
            .iter()
            .rev()
            .map(|(_, code)| code.as_str())
            .find(|code| !code.is_empty());
        if name != "testing" || attribute != Some("#[cfg(feature = \"fixtures\")]") {
            found.push(format!("src/lib.rs:{n}: {code}"));
        }
    }
    assert!(
        found.is_empty(),
        "public modules outside `#[cfg(feature = \"fixtures\")] pub mod testing` (make them \
         `mod`; re-export what main needs with `pub use`, what tests need from `testing`):\n{}",
        found.join("\n")
    );
    assert!(
        lines.iter().any(|(_, code)| code == "#![warn(dead_code)]"),
        "src/lib.rs states #![warn(dead_code)]"
    );
}

/// `testing` re-exports items, never a whole top-level module or a glob: either would make
/// everything below it public again, and dead code invisible to the lint in tests' builds.
#[test]
fn the_fixtures_surface_re_exports_items_not_modules() {
    let code = shipped_code(&std::fs::read_to_string(Path::new(SRC).join("testing.rs")).unwrap());
    let code = String::from_utf8_lossy(&code);
    let mut found = Vec::new();
    for (at, _) in code.match_indices("pub use ") {
        let Some(end) = code[at..].find(';') else {
            continue;
        };
        let tree = &code[at + 8..at + end];
        for path in use_paths(tree) {
            if tree.contains('*') || path.len() < 3 || path[0] != "crate" {
                found.push(path.join("::"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "src/testing.rs re-exports a module or glob: {found:?}"
    );
}
