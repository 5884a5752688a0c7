//! fio's grammar, job files and command line, into an ordered list of [`Section`]s of raw
//! `(option, value, origin)` entries. Nothing here knows what an option means beyond whether it
//! takes a value (for `--opt value` on the command line); `map` gives them meaning.
//!
//! Job files (fio's HOWTO, "Job file format"): `[name]` starts a section, `[global]` holds
//! options for the job sections below it; `;` and `#` start a comment at the start of a line or
//! after whitespace; `include FILE` reads FILE (relative to the including file's directory) in
//! place; `${VAR}` is replaced by the environment variable VAR. The command line: `--name=x`
//! starts a job, options before the first `--name` are global, other words are job files (`-`:
//! stdin). Files are read and the environment is looked up through injected functions, so all
//! of this runs under unit tests.
//!
//! What a run reads is bounded before it is held: only regular files of storage filesystems
//! (never a FIFO, a device or a kernel file of /proc or /sys, which could block or never end),
//! at most [`Limits::bytes`] over every file read (an include read twice counts twice), at most
//! [`Limits::lines`] lines (comments aside), [`Limits::files`] files, [`Limits::jobs`] job sections and
//! [`Limits::line_bytes`] per line once `${VAR}`s are expanded. Each limit refuses with one line
//! naming the file, the line and the limit.

use std::path::{Component, Path, PathBuf};

use crate::bench::options::Origin;
use crate::error::usage;
use crate::pinned::FileId;
pub use crate::pinned::{Contents, Unreadable, read_bounded as read_job_file};

/// The deepest `include` nesting; deeper is taken for a loop the path check did not see
/// (through symlinks).
const MAX_INCLUDE_DEPTH: usize = 16;

/// The bounds on what job files may make the parser read and hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes read over every job file and include, repeats counted.
    pub bytes: u64,
    /// Lines read over every file besides comments and blank lines, repeats counted.
    pub lines: usize,
    /// Files read (the job files and every include, repeats counted).
    pub files: usize,
    /// Job sections (`[global]` aside).
    pub jobs: usize,
    /// Bytes of one line once its `${VAR}`s are expanded.
    pub line_bytes: usize,
}

impl Limits {
    /// The limits of `diskdash fio`: far above any real job file (fio itself reads 8 KiB per
    /// line and runs at most 4096 jobs), far below what would exhaust a machine.
    pub const FIO: Self = Self {
        bytes: 16 << 20,
        lines: 65_536,
        files: 1_024,
        jobs: 4_096,
        line_bytes: 64 << 10,
    };
}

/// Job files read: their sections and every file read, for outputs that must not replace them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JobFiles {
    pub sections: Vec<Section>,
    /// Device and inode of every job file and include read (stdin when it is a file).
    pub inputs: Vec<FileId>,
}

/// One option as written: `bs=4k` is `("bs", Some("4k"))`, `time_based` is `("time_based",
/// None)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub option: String,
    pub value: Option<String>,
    pub origin: Origin,
}

impl Entry {
    /// The entry as the user wrote it: `bs=4k`, `time_based`.
    #[must_use]
    pub fn written(&self) -> String {
        match &self.value {
            Some(value) => format!("{}={value}", self.option),
            None => self.option.clone(),
        }
    }

    /// How errors name it: `db.fio:3: bs=4k` or `--bs=4k`.
    #[must_use]
    pub fn located(&self) -> String {
        match &self.origin {
            Origin::File { path, line, .. } => format!("{path}:{line}: {}", self.written()),
            _ => format!("--{}", self.written()),
        }
    }

    /// How errors name the option without its value: `db.fio:3: bs` or `--bs`.
    #[must_use]
    pub fn name(&self) -> String {
        match &self.origin {
            Origin::File { path, line, .. } => format!("{path}:{line}: {}", self.option),
            _ => format!("--{}", self.option),
        }
    }
}

/// A `[section]` of a job file or a `--name=` job of the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub entries: Vec<Entry>,
}

impl Section {
    /// `[global]`: options for the job sections below it.
    #[must_use]
    pub fn is_global(&self) -> bool {
        self.name == "global"
    }
}

/// What an option takes, for the command line's `--opt value` form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// Takes a value: `--bs=4k` or `--bs 4k`.
    Value,
    /// A switch, or a value only with `=`: `--time_based`, `--direct=1`.
    Flag,
}

/// Reads a job file (`-`: stdin), at most the given bytes ([`Unreadable::TooBig`] beyond).
pub type Reader<'a> = &'a dyn Fn(&Path, u64) -> Result<Contents, Unreadable>;
/// Looks an environment variable up.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Parses job files in order into sections, within [`Limits::FIO`].
///
/// # Errors
/// A usage error naming the file (and line) for an unreadable, non-regular or non-UTF-8 file,
/// a limit passed, a line that is neither a section, an option, a comment nor an include, an
/// option outside any section, an include loop or an unset `${VAR}`.
pub fn job_files(paths: &[PathBuf], read: Reader<'_>, env: Env<'_>) -> anyhow::Result<JobFiles> {
    job_files_within(paths, read, env, Limits::FIO)
}

/// [`job_files`] within `limits`.
///
/// # Errors
/// As [`job_files`].
pub fn job_files_within(
    paths: &[PathBuf],
    read: Reader<'_>,
    env: Env<'_>,
    limits: Limits,
) -> anyhow::Result<JobFiles> {
    let mut parser = FileParser {
        read,
        env,
        limits,
        out: JobFiles::default(),
        stack: Vec::new(),
        bytes: 0,
        lines: 0,
        files: 0,
        jobs: 0,
        held: 0,
    };
    for path in paths {
        parser.file(path, None)?;
    }
    Ok(parser.out)
}

struct FileParser<'a> {
    read: Reader<'a>,
    env: Env<'a>,
    limits: Limits,
    out: JobFiles,
    /// The files being read, outermost first (normalised paths), for include loops.
    stack: Vec<PathBuf>,
    /// Totals so far, against `limits`.
    bytes: u64,
    lines: usize,
    files: usize,
    jobs: usize,
    /// Bytes of the entries and section names kept (expanded text and origins).
    held: u64,
}

impl FileParser<'_> {
    /// Reads `path` (`included_at`: the `file:line` of its include directive).
    /// Reads one job file (or stdin) within the limits: its key on the include stack and
    /// its text.
    fn read_text(
        &mut self,
        path: &Path,
        included_at: Option<&str>,
    ) -> anyhow::Result<(PathBuf, String)> {
        let shown = display(path);
        let at = included_at.map_or(String::new(), |at| format!("{at}: "));
        // Stdin's key is no path: a file named `-` is another file.
        let key = if path == Path::new("-") {
            PathBuf::new()
        } else {
            normalise(path)
        };
        if self.stack.contains(&key) {
            return Err(usage!(
                "{at}include {shown} is an include loop ({shown} is already being read); \
                 remove the include"
            ));
        }
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(usage!(
                "{at}include {shown} nests includes deeper than {MAX_INCLUDE_DEPTH}; is there \
                 a loop through a symlink?"
            ));
        }
        let what = if path == Path::new("-") {
            "stdin".to_string()
        } else {
            format!("job file {shown}")
        };
        if self.files >= self.limits.files {
            return Err(usage!(
                "{at}{what} would be file number {} read; the limit is {} files (an include \
                 read twice counts twice); include each file once",
                self.files + 1,
                self.limits.files
            ));
        }
        self.files += 1;
        let left = self.limits.bytes - self.bytes;
        let contents = (self.read)(path, left).map_err(|e| match e {
            Unreadable::Io(e) => usage!("{at}cannot read {what}: {e}"),
            Unreadable::NotRegular(kind) => usage!(
                "{at}{what} is {kind}, not a regular file; give a fio job file (- reads \
                 stdin)"
            ),
            Unreadable::TooBig => usage!(
                "{at}{what} takes the job files read past {} (the limit over every file and \
                 include, an include read twice counts twice); shorten it or include each \
                 file once",
                limit_bytes(self.limits.bytes)
            ),
        })?;
        self.bytes += contents.bytes.len() as u64;
        if let Some(id) = contents.id {
            if !self.out.inputs.contains(&id) {
                self.out.inputs.push(id);
            }
        }
        let text = String::from_utf8(contents.bytes).map_err(|e| {
            usage!(
                "{at}job file {shown} is not UTF-8 text (invalid byte at offset {}); give a \
                 fio job file",
                e.utf8_error().valid_up_to()
            )
        })?;
        Ok((key, text))
    }

    /// A `[name]` line (`rest` past its `[`): a new section.
    fn section(&mut self, here: &str, text: &str, rest: &str) -> anyhow::Result<()> {
        let Some(name) = rest.strip_suffix(']') else {
            return Err(usage!(
                "{here}: {} is not a section header; write [name]",
                short(text)
            ));
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(usage!(
                "{here}: [] has no name; write [global] or [jobname]"
            ));
        }
        if name != "global" {
            if self.jobs >= self.limits.jobs {
                return Err(usage!(
                    "{here}: [{}] would be job {}; the limit is {} jobs; split them \
                     into several runs",
                    short_name(name),
                    self.jobs + 1,
                    self.limits.jobs
                ));
            }
            self.jobs += 1;
        }
        self.out.sections.push(Section {
            name: name.to_string(),
            entries: Vec::new(),
        });
        Ok(())
    }

    fn file(&mut self, path: &Path, included_at: Option<&str>) -> anyhow::Result<()> {
        let shown = display(path);
        let (key, text) = self.read_text(path, included_at)?;
        self.stack.push(key);
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        for (index, raw) in text.lines().enumerate() {
            let line = u32::try_from(index + 1).unwrap_or(u32::MAX);
            let here = format!("{shown}:{line}");
            let stripped = strip_comment(raw).trim();
            if stripped.is_empty() {
                continue;
            }
            if self.lines >= self.limits.lines {
                return Err(usage!(
                    "{here}: the job files read pass {} lines besides comments (the limit \
                     over every file and include, an include read twice counts twice); \
                     shorten them or include each file once",
                    self.limits.lines
                ));
            }
            self.lines += 1;
            let expanded = expand_env(stripped, self.env, &here, self.limits.line_bytes)?;
            let text = expanded.trim();
            self.held += (text.len() + shown.len()) as u64;
            if self.held > self.limits.bytes {
                return Err(usage!(
                    "{here}: the options read pass {} once ${{VAR}}s are expanded (the limit); \
                     shorten the values",
                    limit_bytes(self.limits.bytes)
                ));
            }
            if let Some(rest) = text.strip_prefix('[') {
                self.section(&here, text, rest)?;
                continue;
            }
            if let Some(target) = include_target(text) {
                let included = if target == "-" {
                    // A file named `-`, never stdin again.
                    dir.join(".").join(target)
                } else if Path::new(target).is_absolute() || path == Path::new("-") {
                    PathBuf::from(target)
                } else {
                    dir.join(target)
                };
                self.file(&included, Some(&here))?;
                continue;
            }
            let (option, value) = match text.split_once('=') {
                Some((option, value)) => (option.trim(), Some(value.trim().to_string())),
                None => (text, None),
            };
            if option.is_empty() || option.contains(char::is_whitespace) {
                return Err(usage!(
                    "{here}: {} is not an option line; write option=value, [section] or \
                     include FILE",
                    short(text)
                ));
            }
            let entry = Entry {
                option: option.to_string(),
                value,
                origin: Origin::File {
                    path: shown.clone(),
                    line,
                    alias: None,
                },
            };
            match self.out.sections.last_mut() {
                Some(section) => section.entries.push(entry),
                None => {
                    return Err(usage!(
                        "{here}: {} comes before any section; put it under [global] or a [job]",
                        short(&entry.written())
                    ));
                }
            }
        }
        self.stack.pop();
        Ok(())
    }
}

/// `16 MiB`, for the errors of the byte limits.
fn limit_bytes(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes % (1 << 10) == 0 {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

/// A section name for an error: at most 60 characters, escaped.
fn short_name(name: &str) -> String {
    let head: String = name.chars().take(60).collect();
    crate::error::one_line(&head)
}

/// `include FILE` -> `FILE`.
fn include_target(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("include")?;
    rest.starts_with(char::is_whitespace)
        .then(|| rest.trim())
        .filter(|t| !t.is_empty())
}

/// The line without its comment: `;` or `#` at the start or after whitespace, as fio.
fn strip_comment(line: &str) -> &str {
    let mut previous_blank = true;
    for (i, c) in line.char_indices() {
        if (c == ';' || c == '#') && previous_blank {
            return &line[..i];
        }
        previous_blank = c.is_whitespace();
    }
    line
}

/// Replaces every `${NAME}` with the environment's value; other `$` text stays as written.
/// A line longer than `max` bytes, as written or once expanded, is refused.
fn expand_env(text: &str, env: Env<'_>, here: &str, max: usize) -> anyhow::Result<String> {
    let too_long = || {
        usage!(
            "{here}: the line is longer than {} once ${{VAR}}s are expanded (the limit); \
             shorten it",
            limit_bytes(max as u64)
        )
    };
    if text.len() > max {
        return Err(too_long());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        if out.len() + start > max {
            return Err(too_long());
        }
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let name_end = after.find('}');
        match name_end {
            Some(end)
                if end > 0
                    && after[..end]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                let name = &after[..end];
                let value = env(name).ok_or_else(|| {
                    usage!("{here}: ${{{name}}} is not set; export {name} or write the value")
                })?;
                if out.len() + value.len() > max {
                    return Err(too_long());
                }
                out.push_str(&value);
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    if out.len() + rest.len() > max {
        return Err(too_long());
    }
    out.push_str(rest);
    Ok(out)
}

/// A path as errors show it.
fn display(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        crate::error::one_line(&path.display().to_string())
    }
}

/// `a/./b/../c` -> `a/c`, for spotting include loops without touching the filesystem.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// At most 60 characters of a line, for an error.
fn short(text: &str) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        format!("{text:?}")
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head:?}...")
    }
}

/// What fio's command line holds: job sections, the job files named, and the words that are
/// not options of jobs (diskdash's own flags and fio's invocation options stay entries too;
/// `map` sorts them).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommandLine {
    /// Options before the first `--name` (a `global` section, first) and one section per
    /// `--name`.
    pub sections: Vec<Section>,
    /// Job files, in order.
    pub files: Vec<PathBuf>,
}

/// How the command line names an option: `resolve(written)` gives the option's full name and
/// what it takes (fio's getopt_long: an exact name, else the one option the name begins), `None`
/// for an option nobody knows (it then takes a value only with `=`), or the error of an
/// ambiguous prefix.
pub type Resolver<'a> = &'a dyn Fn(&str) -> anyhow::Result<Option<(String, Arity)>>;

/// Splits fio's command line as fio's `getopt_long_only` does: `--opt` and `-opt` are both long
/// options, `--opt=value` or `--opt value` for an option that takes a value, a prefix stands
/// for the option it begins. Other words are job files (`-`: stdin).
///
/// # Errors
/// A usage error for `--name` without a name, a bare `--` or an ambiguous prefix.
pub fn command_line(args: &[String], resolve: Resolver<'_>) -> anyhow::Result<CommandLine> {
    let mut out = CommandLine {
        sections: vec![Section {
            name: "global".into(),
            entries: Vec::new(),
        }],
        files: Vec::new(),
    };
    let mut words = args.iter().peekable();
    while let Some(word) = words.next() {
        let flag = match word.strip_prefix("--") {
            Some(flag) => flag,
            None if word.len() > 1 && word.starts_with('-') => &word[1..],
            None => {
                out.files.push(PathBuf::from(word));
                continue;
            }
        };
        if flag.is_empty() {
            return Err(usage!(
                "--: not an option; give fio options (--name=job --rw=read ...) and job files"
            ));
        }
        let (written, mut value) = match flag.split_once('=') {
            Some((option, value)) => (option, Some(value.to_string())),
            None => (flag, None),
        };
        let (option, arity) = match resolve(written)? {
            Some((option, arity)) => (option, Some(arity)),
            None => (written.to_string(), None),
        };
        if value.is_none() && arity == Some(Arity::Value) {
            if let Some(next) = words.next_if(|next| !looks_like_option(next)) {
                value = Some(next.clone());
            }
        }
        if option == "name" {
            let Some(name) = value.filter(|n| !n.trim().is_empty()) else {
                return Err(usage!("--name needs a job name: --name=JOB"));
            };
            out.sections.push(Section {
                name,
                entries: Vec::new(),
            });
            continue;
        }
        let entry = Entry {
            option,
            value,
            origin: Origin::FioFlag { alias: None },
        };
        out.sections
            .last_mut()
            .expect("the global section is first")
            .entries
            .push(entry);
    }
    Ok(out)
}

/// `--x` or `-x` (a letter after the dash): the next option, not a value (`-1`, `-` are values).
fn looks_like_option(word: &str) -> bool {
    word.strip_prefix('-')
        .and_then(|rest| rest.trim_start_matches('-').chars().next())
        .is_some_and(|c| c.is_ascii_alphabetic())
        || word == "--"
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn files(map: &[(&str, &[u8])]) -> HashMap<PathBuf, Vec<u8>> {
        map.iter()
            .map(|(p, b)| (PathBuf::from(p), b.to_vec()))
            .collect()
    }

    fn parse_with(
        fs: &HashMap<PathBuf, Vec<u8>>,
        env: &[(&str, &str)],
        paths: &[&str],
    ) -> Result<Vec<Section>, String> {
        let read = |p: &Path, max: u64| {
            let bytes = fs.get(p).cloned().ok_or_else(|| {
                Unreadable::Io(std::io::Error::from(std::io::ErrorKind::NotFound))
            })?;
            if bytes.len() as u64 > max {
                return Err(Unreadable::TooBig);
            }
            Ok(Contents { bytes, id: None })
        };
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        let lookup = |name: &str| env.get(name).cloned();
        let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
        job_files(&paths, &read, &lookup)
            .map(|files| files.sections)
            .map_err(|e| {
                assert_eq!(crate::error::exit_code(&e), 2, "{e}");
                e.to_string()
            })
    }

    fn parse(text: &str) -> Result<Vec<Section>, String> {
        parse_with(&files(&[("db.fio", text.as_bytes())]), &[], &["db.fio"])
    }

    fn at(line: u32) -> Origin {
        Origin::File {
            path: "db.fio".into(),
            line,
            alias: None,
        }
    }

    #[test]
    fn sections_options_comments_and_blank_lines() {
        let sections = parse(
            "; a comment\n# another\n\n[global]\nioengine = psync ; trailing\nthread\n\
             [a]\nfilename=x#y\nbs=4k\t# trailing\n",
        )
        .unwrap();
        assert_eq!(sections.len(), 2);
        assert!(sections[0].is_global());
        assert_eq!(
            sections[0].entries,
            vec![
                Entry {
                    option: "ioengine".into(),
                    value: Some("psync".into()),
                    origin: at(5)
                },
                Entry {
                    option: "thread".into(),
                    value: None,
                    origin: at(6)
                },
            ]
        );
        assert_eq!(sections[1].name, "a");
        assert_eq!(sections[1].entries[0].value.as_deref(), Some("x#y"));
        assert_eq!(sections[1].entries[1].value.as_deref(), Some("4k"));
    }

    #[test]
    fn includes_are_read_in_place_relative_to_the_including_file() {
        let fs = files(&[
            (
                "jobs/main.fio",
                b"[global]\ninclude common.fio\n[a]\nbs=8k\n",
            ),
            ("jobs/common.fio", b"bs=4k\nrw=write\n"),
        ]);
        let sections = parse_with(&fs, &[], &["jobs/main.fio"]).unwrap();
        assert_eq!(sections[0].entries.len(), 2);
        assert_eq!(
            sections[0].entries[0].origin,
            Origin::File {
                path: "jobs/common.fio".into(),
                line: 1,
                alias: None,
            }
        );
        assert_eq!(sections[1].entries[0].value.as_deref(), Some("8k"));
    }

    #[test]
    fn env_vars_are_expanded() {
        let fs = files(&[(
            "db.fio",
            b"[a]\nsize=${SIZE}\nfilename=/mnt/${DIR}/f\nx=$HOME\n",
        )]);
        let sections = parse_with(&fs, &[("SIZE", "1G"), ("DIR", "d")], &["db.fio"]).unwrap();
        let values: Vec<_> = sections[0]
            .entries
            .iter()
            .map(|e| e.value.clone().unwrap())
            .collect();
        assert_eq!(values, ["1G", "/mnt/d/f", "$HOME"]);
    }

    #[test]
    fn several_files_in_order_and_stdin() {
        let fs = files(&[("a.fio", b"[a]\n"), ("-", b"[b]\n")]);
        let names: Vec<_> = parse_with(&fs, &[], &["a.fio", "-"])
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let fs = files(&[
            ("loop.fio", b"[a]\ninclude ./loop.fio\n"),
            ("x.fio", b"[a]\ninclude y.fio\n"),
            ("y.fio", b"include x.fio\n"),
            ("missing.fio", b"[a]\n\ninclude gone.fio\n"),
            ("bad.fio", b"[a]\nbs=\xff\n"),
        ]);
        let err = |paths: &[&str]| parse_with(&fs, &[], paths).unwrap_err();
        assert_eq!(
            err(&["loop.fio"]),
            "loop.fio:2: include ./loop.fio is an include loop (./loop.fio is already being \
             read); remove the include"
        );
        assert_eq!(
            err(&["x.fio"]),
            "y.fio:1: include x.fio is an include loop (x.fio is already being read); remove \
             the include"
        );
        assert_eq!(
            err(&["missing.fio"]),
            "missing.fio:3: cannot read job file gone.fio: entity not found"
        );
        assert_eq!(
            err(&["nope.fio"]),
            "cannot read job file nope.fio: entity not found"
        );
        assert_eq!(
            err(&["bad.fio"]),
            "job file bad.fio is not UTF-8 text (invalid byte at offset 7); give a fio job file"
        );
        assert_eq!(
            parse("[a]\nsize=${NOPE}\n").unwrap_err(),
            "db.fio:2: ${NOPE} is not set; export NOPE or write the value"
        );
        assert_eq!(
            parse("bs=4k\n").unwrap_err(),
            r#"db.fio:1: "bs=4k" comes before any section; put it under [global] or a [job]"#
        );
        assert_eq!(
            parse("[a\n").unwrap_err(),
            r#"db.fio:1: "[a" is not a section header; write [name]"#
        );
        assert_eq!(
            parse("[a]\nnot an option\n").unwrap_err(),
            r#"db.fio:2: "not an option" is not an option line; write option=value, [section] or include FILE"#
        );
    }

    fn arity(option: &str) -> anyhow::Result<Option<(String, Arity)>> {
        Ok(match option {
            "time_based" => Some((option.to_string(), Arity::Flag)),
            "bs" | "rw" | "name" => Some((option.to_string(), Arity::Value)),
            _ => None,
        })
    }

    fn cmd(args: &[&str]) -> Result<CommandLine, String> {
        let args: Vec<String> = args.iter().map(|a| (*a).to_string()).collect();
        command_line(&args, &arity).map_err(|e| e.to_string())
    }

    #[test]
    fn the_command_line_makes_a_global_section_and_one_per_name() {
        let line = cmd(&[
            "--bs",
            "8k",
            "--name=a",
            "--rw=write",
            "--time_based",
            "job.fio",
            "--name",
            "b",
            "--bs=16k",
        ])
        .unwrap();
        assert_eq!(line.files, [PathBuf::from("job.fio")]);
        let names: Vec<_> = line.sections.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["global", "a", "b"]);
        assert_eq!(line.sections[0].entries[0].value.as_deref(), Some("8k"));
        assert_eq!(line.sections[1].entries[1].written(), "time_based");
        assert_eq!(line.sections[2].entries[0].located(), "--bs=16k");
        assert_eq!(
            cmd(&["--name"]).unwrap_err(),
            "--name needs a job name: --name=JOB"
        );
        // A value option at the end keeps no value; `map` says it needs one.
        assert_eq!(cmd(&["--bs"]).unwrap().sections[0].entries[0].value, None);
    }

    /// Parses `paths` from `fs` within `limits`, counting what the reader handed out: the
    /// result (sections or the one-line error), the bytes read and the files read.
    fn parse_within(
        fs: &HashMap<PathBuf, Vec<u8>>,
        env: &[(&str, &str)],
        paths: &[&str],
        limits: Limits,
    ) -> (Result<Vec<Section>, String>, u64, usize) {
        let bytes = std::cell::Cell::new(0u64);
        let calls = std::cell::Cell::new(0usize);
        let read = |p: &Path, max: u64| {
            calls.set(calls.get() + 1);
            if p.to_string_lossy().ends_with(".fifo") {
                return Err(Unreadable::NotRegular("a FIFO".into()));
            }
            let data = fs.get(p).cloned().ok_or_else(|| {
                Unreadable::Io(std::io::Error::from(std::io::ErrorKind::NotFound))
            })?;
            if data.len() as u64 > max {
                return Err(Unreadable::TooBig);
            }
            bytes.set(bytes.get() + data.len() as u64);
            Ok(Contents {
                bytes: data,
                id: None,
            })
        };
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        let lookup = |name: &str| env.get(name).cloned();
        let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
        let result = job_files_within(&paths, &read, &lookup, limits)
            .map(|files| files.sections)
            .map_err(|e| {
                assert_eq!(crate::error::exit_code(&e), 2, "{e}");
                e.to_string()
            });
        (result, bytes.get(), calls.get())
    }

    const SMALL: Limits = Limits {
        bytes: 1_000,
        lines: 50,
        files: 10,
        jobs: 3,
        line_bytes: 40,
    };

    #[test]
    fn each_limit_refuses_with_one_line_naming_the_file_and_the_limit() {
        let err = |fs: &[(&str, &[u8])], env: &[(&str, &str)]| {
            parse_within(&files(fs), env, &["a.fio"], SMALL)
                .0
                .unwrap_err()
        };
        assert_eq!(
            err(&[("a.fio", &[b'#'; 1_001])], &[]),
            "job file a.fio takes the job files read past 1000 bytes (the limit over every \
             file and include, an include read twice counts twice); shorten it or include \
             each file once"
        );
        // Repeated includes count each time they are read.
        let twice = [
            ("a.fio", &b"[a]\ninclude b.fio\ninclude b.fio\n"[..]),
            ("b.fio", &[b'#'; 600][..]),
        ];
        assert_eq!(
            err(&twice, &[]),
            "a.fio:3: job file b.fio takes the job files read past 1000 bytes (the limit over \
             every file and include, an include read twice counts twice); shorten it or \
             include each file once"
        );
        assert_eq!(
            err(&[("a.fio", "[global]\n".repeat(51).as_bytes())], &[]),
            "a.fio:51: the job files read pass 50 lines besides comments (the limit over \
             every file and include, an include read twice counts twice); shorten them or \
             include each file once"
        );
        assert_eq!(
            err(&[("a.fio", "[a]\ninclude a.fifo\n".as_bytes())], &[]),
            "a.fio:2: job file a.fifo is a FIFO, not a regular file; give a fio job file (- \
             reads stdin)"
        );
        assert_eq!(
            err(&[("a.fio", b"[a]\n[b]\n[global]\n[c]\n[d]\n")], &[]),
            "a.fio:5: [d] would be job 4; the limit is 3 jobs; split them into several runs"
        );
        assert_eq!(
            err(
                &[("a.fio", &[b"[a]\nbs=".as_slice(), &[b'x'; 40]].concat())],
                &[]
            ),
            "a.fio:2: the line is longer than 40 bytes once ${VAR}s are expanded (the limit); \
             shorten it"
        );
        assert_eq!(
            err(
                &[("a.fio", b"[a]\nbs=${X}${X}${X}\n")],
                &[("X", &"y".repeat(15))]
            ),
            "a.fio:2: the line is longer than 40 bytes once ${VAR}s are expanded (the limit); \
             shorten it"
        );
        // Four includes of a file that includes another twice: 1 + 3 x 3 files read, then the
        // fourth include of b.fio is the eleventh.
        let fan = [
            (
                "a.fio",
                &b"[a]\ninclude b.fio\ninclude b.fio\ninclude b.fio\ninclude b.fio\n"[..],
            ),
            ("b.fio", &b"include c.fio\ninclude c.fio\n"[..]),
            ("c.fio", &b"bs=4k\n"[..]),
        ];
        assert_eq!(
            err(&fan, &[]),
            "a.fio:5: job file b.fio would be file number 11 read; the limit is 10 files (an \
             include read twice counts twice); include each file once"
        );
        // Kept text (values once expanded, and the file name of each) is bounded too.
        let held = format!("[a]\n{}", "bs=${X}\n".repeat(40));
        assert_eq!(
            err(&[("a.fio", held.as_bytes())], &[("X", &"y".repeat(30))]),
            "a.fio:28: the options read pass 1000 bytes once ${VAR}s are expanded (the \
             limit); shorten the values"
        );
        // An include of `-` names a file called `-`, never stdin again.
        let fs = files(&[("-", b"[a]\ninclude -\n"), ("./-", b"bs=4k\n")]);
        let sections = parse_within(&fs, &[], &["-"], SMALL).0.unwrap();
        assert_eq!(sections[0].entries[0].written(), "bs=4k");
    }

    #[test]
    fn the_limits_of_fio_are_the_documented_ones() {
        assert_eq!(limit_bytes(Limits::FIO.bytes), "16 MiB");
        assert_eq!(limit_bytes(Limits::FIO.line_bytes as u64), "64 KiB");
        assert_eq!(Limits::FIO.jobs, 4_096);
    }

    #[test]
    fn only_regular_files_of_storage_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let job = dir.path().join("job.fio");
        std::fs::write(&job, b"[a]\nbs=4k\n").unwrap();
        let read = read_job_file(&job, 100).unwrap();
        assert_eq!(read.bytes, b"[a]\nbs=4k\n");
        let meta = std::fs::metadata(&job).unwrap();
        assert_eq!(
            read.id,
            Some(FileId {
                dev: std::os::unix::fs::MetadataExt::dev(&meta),
                ino: std::os::unix::fs::MetadataExt::ino(&meta)
            })
        );
        assert!(matches!(read_job_file(&job, 9), Err(Unreadable::TooBig)));
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let kind = |path: &Path| match read_job_file(path, 1 << 20) {
            Err(Unreadable::NotRegular(what)) => what,
            other => panic!("{}: {other:?}", path.display()),
        };
        // None of these blocks or reads without end.
        assert_eq!(kind(&fifo), "a FIFO");
        assert_eq!(kind(Path::new("/dev/zero")), "a character device");
        assert_eq!(kind(dir.path()), "a directory");
        assert_eq!(
            kind(Path::new("/proc/self/status")),
            "a kernel file of procfs"
        );
        assert!(matches!(
            read_job_file(&dir.path().join("gone"), 1),
            Err(Unreadable::Io(e)) if e.kind() == std::io::ErrorKind::NotFound
        ));
    }

    /// One file of a random include graph: includes of other files (by number, repeats and
    /// cycles allowed), option lines, job sections, `${VAR}`s, a FIFO or a missing file.
    #[derive(Debug, Clone)]
    struct Node {
        includes: Vec<usize>,
        options: usize,
        sections: usize,
        env_lines: usize,
        padding: usize,
    }

    fn node() -> impl proptest::strategy::Strategy<Value = Node> {
        use proptest::prelude::*;
        (
            proptest::collection::vec(0usize..8, 0..6),
            0usize..30,
            0usize..3,
            0usize..3,
            0usize..400,
        )
            .prop_map(|(includes, options, sections, env_lines, padding)| Node {
                includes,
                options,
                sections,
                env_lines,
                padding,
            })
    }

    /// A message of one of the refusals the reader has, and nothing else.
    fn known_refusal(message: &str) -> bool {
        [
            "the limit over every file and include",
            "would be file number",
            "the job files read pass",
            "would be job",
            "once ${VAR}s are expanded (the limit)",
            "is an include loop",
            "nests includes deeper than",
            "is a FIFO, not a regular file",
            "cannot read job file",
        ]
        .iter()
        .any(|known| message.contains(known))
    }

    proptest::proptest! {
        #[test]
        fn random_job_files_never_panic(
            lines in proptest::collection::vec(
                proptest::prop_oneof![
                    "\\[[a-z${}\\]\\[ ]{0,8}\\]?",
                    "[a-z_${}]{0,8}(=[ -~]{0,12})?",
                    "include [a-z./]{0,8}",
                    "[ -~]{0,20}",
                    "\\PC{0,10}",
                ],
                0..20,
            )
        ) {
            let text = lines.join("\n");
            let fs = files(&[("db.fio", text.as_bytes()), ("a", b"[x]\n")]);
            let _ = parse_with(&fs, &[("A", "1")], &["db.fio"]);
        }

        #[test]
        fn random_include_graphs_parse_or_refuse_within_the_limits(
            nodes in proptest::collection::vec(node(), 1..7),
            bytes in 200u64..3_000,
            lines in 5usize..120,
            files_cap in 1usize..30,
            jobs in 1usize..6,
        ) {
            // f6 is a FIFO, f7 is missing: includes of them are refused.
            let limits = Limits { bytes, lines, files: files_cap, jobs, line_bytes: 60 };
            let mut fs = HashMap::new();
            for (i, node) in nodes.iter().enumerate() {
                let mut text = String::from("[global]\n");
                for k in 0..node.options.max(node.includes.len()) {
                    if let Some(target) = node.includes.get(k) {
                        let name = if *target == 6 { "f6.fifo".to_string() } else { format!("f{target}.fio") };
                        text.push_str(&format!("include {name}\n"));
                    }
                    if k < node.options {
                        text.push_str("bs=4k\n");
                    }
                }
                for j in 0..node.sections {
                    text.push_str(&format!("[j{i}_{j}]\nrw=read\n"));
                }
                for _ in 0..node.env_lines {
                    text.push_str("size=${BIG}\n");
                }
                text.push_str(&"#".repeat(node.padding));
                text.push('\n');
                fs.insert(PathBuf::from(format!("f{i}.fio")), text.into_bytes());
            }
            let (result, read_bytes, read_files) =
                parse_within(&fs, &[("BIG", &"x".repeat(30))], &["f0.fio"], limits);
            proptest::prop_assert!(read_bytes <= limits.bytes, "{read_bytes} bytes read");
            proptest::prop_assert!(read_files <= limits.files, "{read_files} files read");
            match result {
                Ok(sections) => {
                    let jobs_read = sections.iter().filter(|s| !s.is_global()).count();
                    let entries: usize = sections.iter().map(|s| s.entries.len()).sum();
                    proptest::prop_assert!(jobs_read <= limits.jobs);
                    proptest::prop_assert!(entries <= limits.lines);
                }
                Err(message) => {
                    proptest::prop_assert!(!message.contains('\n'), "{message}");
                    proptest::prop_assert!(known_refusal(&message), "{message}");
                }
            }
        }

        #[test]
        fn random_command_lines_never_panic(
            args in proptest::collection::vec("(--)?[a-z_=${}-]{0,10}", 0..12)
        ) {
            let args: Vec<String> = args;
            let _ = command_line(&args, &arity);
        }

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
            let fs = files(&[("db.fio", &bytes)]);
            let _ = parse_with(&fs, &[], &["db.fio"]);
        }
    }
}
