//! HOSTS: `a,b,c`, ranges `node[01-16]` (pdsh's syntax: a list of numbers and ranges inside
//! the brackets, `node[1-3,7]`; leading zeros set the width), `@hosts.txt` (one host or host
//! expression a line, `#` comments), and any mix of them separated by commas.

use std::path::Path;

/// More hosts than this in one list is a mistake (a range like `[1-100000]`).
pub const MAX_HOSTS: usize = 4096;

/// The most bytes of a hosts file: [`MAX_HOSTS`] lines of long names and comments fit well
/// within it.
pub const MAX_HOSTS_FILE_BYTES: u64 = 1 << 20;

/// The hosts `spec` names, in order, each once. An `@FILE` is read as a job file is: a regular
/// file of storage only (never a FIFO, a device or `/dev/zero`, which would block or never
/// end), at most [`MAX_HOSTS_FILE_BYTES`].
///
/// # Errors
/// A usage error naming the bad part of `spec` (or the file and line) and the fix.
pub fn parse_hosts(spec: &str) -> anyhow::Result<Vec<String>> {
    parse_with(spec, "HOSTS", &read_hosts_file)
}

/// One `@FILE`, bounded (see [`parse_hosts`]).
fn read_hosts_file(path: &Path) -> Result<String, String> {
    use crate::pinned::Unreadable;
    let shown = path.display();
    if path == Path::new("-") {
        return Err(format!(
            "{shown}: standard input is not a hosts file; give a file's name"
        ));
    }
    match crate::pinned::read_bounded(path, MAX_HOSTS_FILE_BYTES) {
        Ok(contents) => String::from_utf8(contents.bytes)
            .map_err(|_| format!("{shown}: is not UTF-8 text; list one host a line")),
        Err(Unreadable::Io(err)) => Err(format!("{shown}: {err}")),
        Err(Unreadable::NotRegular(what)) => Err(format!(
            "{shown}: is {what}, not a regular file; list the hosts in a file"
        )),
        Err(Unreadable::TooBig) => Err(format!(
            "{shown}: holds more than {}; a hosts file lists at most {MAX_HOSTS} hosts",
            crate::units::format_bytes(MAX_HOSTS_FILE_BYTES)
        )),
    }
}

type ReadFile<'a> = dyn Fn(&Path) -> Result<String, String> + 'a;

fn parse_with(spec: &str, origin: &str, read_file: &ReadFile<'_>) -> anyhow::Result<Vec<String>> {
    let mut hosts: Vec<String> = Vec::new();
    let mut add = |host: String, origin: &str| -> anyhow::Result<()> {
        if hosts.contains(&host) {
            return Err(crate::error::usage!(
                "{origin}: host {host:?} is given twice; name each host once"
            ));
        }
        if hosts.len() >= MAX_HOSTS {
            return Err(crate::error::usage!(
                "{origin}: more than {MAX_HOSTS} hosts; split the fleet"
            ));
        }
        hosts.push(host);
        Ok(())
    };
    for item in split_top_level(spec, origin)? {
        if let Some(file) = item.strip_prefix('@') {
            if file.is_empty() {
                return Err(crate::error::usage!(
                    "{origin}: `@` needs a file name: @hosts.txt"
                ));
            }
            let text = read_file(Path::new(file))
                .map_err(|why| crate::error::usage!("{origin}: cannot read the host file {why}"))?;
            for (n, line) in text.lines().enumerate() {
                let line = line.split('#').next().unwrap_or("").trim();
                if line.is_empty() {
                    continue;
                }
                let here = format!("{file}:{}", n + 1);
                for part in split_top_level(line, &here)? {
                    if part.starts_with('@') {
                        return Err(crate::error::usage!(
                            "{here}: {part:?}: a host file cannot include another; list the hosts"
                        ));
                    }
                    for host in expand(&part, &here)? {
                        add(host, &here)?;
                    }
                }
            }
        } else {
            for host in expand(&item, origin)? {
                add(host, origin)?;
            }
        }
    }
    if hosts.is_empty() {
        return Err(crate::error::usage!(
            "{origin} {spec:?} names no host; give e.g. a,b or node[01-04] or @hosts.txt"
        ));
    }
    Ok(hosts)
}

/// `spec` cut at commas outside brackets, each part trimmed and non-empty.
fn split_top_level(spec: &str, origin: &str) -> anyhow::Result<Vec<String>> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in spec.chars() {
        match c {
            '[' => {
                if depth > 0 {
                    return Err(crate::error::usage!(
                        "{origin} {spec:?}: brackets do not nest; write node[1-4] or a[1-2]b[1-2]"
                    ));
                }
                depth += 1;
            }
            ']' => {
                if depth == 0 {
                    return Err(crate::error::usage!(
                        "{origin} {spec:?}: `]` without `[`; write e.g. node[01-16]"
                    ));
                }
                depth -= 1;
            }
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if depth > 0 {
        return Err(crate::error::usage!(
            "{origin} {spec:?}: `[` is not closed; write e.g. node[01-16]"
        ));
    }
    parts.push(current);
    let mut out = Vec::with_capacity(parts.len());
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            return Err(crate::error::usage!(
                "{origin} {spec:?} has an empty host (two commas, or one at an end); write a,b,c"
            ));
        }
        out.push(part.to_string());
    }
    Ok(out)
}

/// One item: a host, or a host with `[..]` ranges (each expanded, the first varying slowest).
fn expand(item: &str, origin: &str) -> anyhow::Result<Vec<String>> {
    let Some(open) = item.find('[') else {
        check_host(item, origin)?;
        return Ok(vec![item.to_string()]);
    };
    let close = open
        + item[open..]
            .find(']')
            .ok_or_else(|| crate::error::usage!("{origin} {item:?}: `[` is not closed"))?;
    let prefix = &item[..open];
    let numbers = range_list(&item[open + 1..close], item, origin)?;
    let rest = expand(&item[close + 1..], origin).or_else(|e| {
        // An empty tail is fine ("node[1-2]"); anything else must be a host part.
        if item[close + 1..].is_empty() {
            Ok(vec![String::new()])
        } else {
            Err(e)
        }
    })?;
    let mut out = Vec::with_capacity(numbers.len() * rest.len());
    for n in &numbers {
        for tail in &rest {
            let host = format!("{prefix}{n}{tail}");
            check_host(&host, origin)?;
            out.push(host);
            if out.len() > MAX_HOSTS {
                return Err(crate::error::usage!(
                    "{origin} {item:?} names more than {MAX_HOSTS} hosts; split the fleet"
                ));
            }
        }
    }
    Ok(out)
}

/// `01-16,20` inside brackets: the numbers as text, zero-padded to the width of a range's
/// first number when it starts with 0.
fn range_list(inside: &str, item: &str, origin: &str) -> anyhow::Result<Vec<String>> {
    let bad = |part: &str, why: &str| {
        crate::error::usage!(
            "{origin} {item:?}: [{part}] {why}; write a range of numbers like node[01-16] or \
             node[1-3,7]"
        )
    };
    let mut out = Vec::new();
    for part in inside.split(',') {
        let part = part.trim();
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let digits =
            |s: &str| !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(lo) {
            return Err(bad(part, &format!("{lo:?} is not a number")));
        }
        if !digits(hi) {
            return Err(bad(part, &format!("{hi:?} is not a number")));
        }
        let (a, b): (u32, u32) = (
            lo.parse().map_err(|_| bad(part, "is not a number"))?,
            hi.parse().map_err(|_| bad(part, "is not a number"))?,
        );
        if a > b {
            return Err(bad(part, "goes down; put the smaller number first"));
        }
        let width = if lo.len() > 1 && lo.starts_with('0') {
            lo.len()
        } else {
            0
        };
        for n in a..=b {
            out.push(format!("{n:0width$}"));
            if out.len() > MAX_HOSTS {
                return Err(bad(part, &format!("names more than {MAX_HOSTS} hosts")));
            }
        }
    }
    Ok(out)
}

/// An ssh destination: no blanks or control characters, not starting with `-` (it would read
/// as an option).
fn check_host(host: &str, origin: &str) -> anyhow::Result<()> {
    if host.starts_with('-') {
        return Err(crate::error::usage!(
            "{origin}: host {host:?} starts with `-`; a host name cannot (ssh would read an option)"
        ));
    }
    if let Some(c) = host.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(crate::error::usage!(
            "{origin}: host {host:?} holds {c:?}; separate hosts with commas, no blanks"
        ));
    }
    if host.contains(['[', ']', '@']) && !is_user_at_host(host) {
        return Err(crate::error::usage!(
            "{origin}: host {host:?} is not a host name; write user@host, node[01-16] or @file"
        ));
    }
    Ok(())
}

fn is_user_at_host(host: &str) -> bool {
    !host.contains(['[', ']']) && host.matches('@').count() == 1 && !host.starts_with('@')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(spec: &str) -> Result<Vec<String>, String> {
        parse_with(spec, "HOSTS", &|p| match p.to_str() {
            Some("hosts.txt") => Ok("# the rack\nnode1\n\n  db[1-2]  # two\nweb\n".into()),
            Some("nested.txt") => Ok("@hosts.txt\n".into()),
            Some("dup.txt") => Ok("a\nb\na\n".into()),
            _ => Err(format!(
                "{}: No such file or directory (os error 2)",
                p.display()
            )),
        })
        .map_err(|e| e.to_string())
    }

    #[test]
    fn a_hosts_file_is_a_bounded_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let big = dir.path().join("big");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(3 << 30)
            .unwrap();
        let good = dir.path().join("good");
        std::fs::write(&good, "a\nb\n").unwrap();
        let err = |path: &Path| {
            parse_hosts(&format!("@{}", path.display()))
                .unwrap_err()
                .to_string()
        };
        // Neither blocks nor grows: each is refused before a byte is read.
        assert!(err(Path::new("/dev/zero")).ends_with(
            "/dev/zero: is a character device, not a regular file; list the hosts in a file"
        ));
        assert!(
            err(&fifo).ends_with("is a FIFO, not a regular file; list the hosts in a file"),
            "{}",
            err(&fifo)
        );
        assert!(
            err(&big).ends_with("holds more than 1 MiB; a hosts file lists at most 4096 hosts"),
            "{}",
            err(&big)
        );
        assert_eq!(
            parse_hosts(&format!("@{}", good.display())).unwrap(),
            ["a", "b"]
        );
    }

    #[test]
    fn lists_ranges_and_files_expand_in_order() {
        assert_eq!(parse("a,b,c").unwrap(), ["a", "b", "c"]);
        assert_eq!(
            parse("node[01-03]").unwrap(),
            ["node01", "node02", "node03"]
        );
        assert_eq!(parse("n[8-10]").unwrap(), ["n8", "n9", "n10"]);
        assert_eq!(parse("n[1-2,7]x").unwrap(), ["n1x", "n2x", "n7x"]);
        assert_eq!(
            parse("r[1-2]n[1-2]").unwrap(),
            ["r1n1", "r1n2", "r2n1", "r2n2"]
        );
        assert_eq!(
            parse("gw, @hosts.txt,root@x").unwrap(),
            ["gw", "node1", "db1", "db2", "web", "root@x"]
        );
        assert_eq!(parse("node[07]").unwrap(), ["node07"]);
    }

    #[test]
    fn every_mistake_is_one_line_naming_the_value_and_the_fix() {
        let cases = [
            (
                "node[01-x]",
                "HOSTS \"node[01-x]\": [01-x] \"x\" is not a number; write a range of numbers \
                 like node[01-16] or node[1-3,7]",
            ),
            (
                "node[5-1]",
                "HOSTS \"node[5-1]\": [5-1] goes down; put the smaller number first; write a \
                 range of numbers like node[01-16] or node[1-3,7]",
            ),
            (
                "node[1-3",
                "HOSTS \"node[1-3\": `[` is not closed; write e.g. node[01-16]",
            ),
            (
                "a]",
                "HOSTS \"a]\": `]` without `[`; write e.g. node[01-16]",
            ),
            (
                "a,,b",
                "HOSTS \"a,,b\" has an empty host (two commas, or one at an end); write a,b,c",
            ),
            (
                "a,b,a",
                "HOSTS: host \"a\" is given twice; name each host once",
            ),
            (
                "-oProxyCommand=x",
                "HOSTS: host \"-oProxyCommand=x\" starts with `-`; a host name cannot (ssh would \
                 read an option)",
            ),
            (
                "a b",
                "HOSTS: host \"a b\" holds ' '; separate hosts with commas, no blanks",
            ),
            (
                "@missing.txt",
                "HOSTS: cannot read the host file missing.txt: No such file or directory (os \
                 error 2)",
            ),
            (
                "@nested.txt",
                "nested.txt:1: \"@hosts.txt\": a host file cannot include another; list the hosts",
            ),
            (
                "@dup.txt",
                "dup.txt:3: host \"a\" is given twice; name each host once",
            ),
            ("@", "HOSTS: `@` needs a file name: @hosts.txt"),
            (
                "n[1-99999]",
                "HOSTS \"n[1-99999]\": [1-99999] names more than 4096 hosts; write a range of \
                 numbers like node[01-16] or node[1-3,7]",
            ),
        ];
        for (spec, want) in cases {
            assert_eq!(parse(spec).unwrap_err(), want, "{spec}");
        }
    }

    proptest! {
        /// Whatever the input: an error or distinct, non-empty, option-free hosts, never a
        /// panic; and a list of plain names comes back as given.
        #[test]
        fn any_input_parses_or_errors_cleanly(spec in "[a-c0-9\\[\\]\\-,@ ]{0,24}") {
            if let Ok(hosts) = parse(&spec) {
                prop_assert!(!hosts.is_empty());
                for (i, h) in hosts.iter().enumerate() {
                    prop_assert!(!h.is_empty() && !h.starts_with('-'));
                    prop_assert!(!hosts[..i].contains(h));
                }
            }
        }

        #[test]
        fn plain_lists_round_trip(names in proptest::collection::btree_set("[a-z][a-z0-9.]{0,8}", 1..8)) {
            let names: Vec<String> = names.into_iter().collect();
            prop_assert_eq!(parse(&names.join(",")).unwrap(), names);
        }

        #[test]
        fn ranges_have_their_count_and_width(lo in 0u32..50, len in 0u32..30, width in 1usize..4) {
            let hi = lo + len;
            let spec = format!("n[{lo:0width$}-{hi}]");
            let hosts = parse(&spec).unwrap();
            prop_assert_eq!(hosts.len() as u32, len + 1);
            let w = if width > 1 && format!("{lo:0width$}").starts_with('0') { width } else { 0 };
            prop_assert_eq!(&hosts[0], &format!("n{lo:0w$}"));
        }
    }
}
