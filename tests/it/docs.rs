//! The manual: README.md stays a newcomer's page (under 400 lines), every relative link in it and
//! in `assets/doc/*.md` reaches an existing file (and heading, for a `#anchor`), and every page of
//! `assets/doc/` is reachable from the README.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn doc_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = fs::read_dir(root().join("assets/doc"))
        .expect("reading assets/doc")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    pages
}

/// The lines of a Markdown file outside fenced code blocks, with inline code spans blanked.
fn prose_lines(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut kept = String::new();
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                kept.push(c);
            }
        }
        out.push(kept);
    }
    out
}

/// The targets of `[text](target)` links, as written.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose_lines(text) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            targets.push(after[..end].trim().to_string());
            rest = &after[end..];
        }
    }
    targets
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings, with GitHub's `-1`, `-2` for repeats.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if fenced || hashes == 0 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..].replace('`', ""));
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// Each broken relative link of `file`, as "file: target (why)".
fn broken_links(file: &Path) -> Vec<String> {
    let text = fs::read_to_string(file).unwrap();
    let dir = file.parent().unwrap();
    let mut broken = Vec::new();
    for target in link_targets(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let resolved = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        let name = file
            .strip_prefix(root())
            .unwrap_or(file)
            .display()
            .to_string();
        if !resolved.exists() {
            broken.push(format!("{name}: {target} (no such file)"));
            continue;
        }
        if let Some(anchor) = anchor {
            let page = fs::read_to_string(&resolved).unwrap_or_default();
            if !anchors(&page).contains(anchor) {
                broken.push(format!("{name}: {target} (no heading with that anchor)"));
            }
        }
    }
    broken
}

#[test]
fn the_readme_is_under_400_lines() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines < 400,
        "README.md has {lines} lines; the reference belongs in assets/doc/"
    );
}

#[test]
fn every_relative_link_of_the_readme_and_the_manual_resolves() {
    let mut files = vec![root().join("README.md")];
    files.extend(doc_pages());
    assert!(files.len() > 10, "the manual's pages: {files:?}");
    let links: usize = files
        .iter()
        .map(|f| link_targets(&fs::read_to_string(f).unwrap()).len())
        .sum();
    assert!(
        links > 30,
        "only {links} links found: the scanner misses them"
    );
    let broken: Vec<String> = files.iter().flat_map(|f| broken_links(f)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_page_of_the_manual_is_linked_from_the_readme() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let linked: HashSet<String> = link_targets(&readme)
        .into_iter()
        .map(|t| t.split('#').next().unwrap().to_string())
        .collect();
    for page in doc_pages() {
        let rel = format!("assets/doc/{}", page.file_name().unwrap().to_string_lossy());
        assert!(linked.contains(&rel), "README.md does not link {rel}");
    }
}

#[test]
fn the_link_checker_catches_a_dead_file_and_a_dead_anchor() {
    let dir = std::env::temp_dir().join(format!("diskdash-docs-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("other.md"),
        "# Other page\n\n## A `code` heading: yes\n",
    )
    .unwrap();
    let page = dir.join("page.md");
    fs::write(
        &page,
        "[ok](other.md) [ok](other.md#a-code-heading-yes) [`ignored`](https://example.com)\n\
         [dead](gone.md) [dead anchor](other.md#nope)\n```\n[in a fence](gone2.md)\n```\n",
    )
    .unwrap();
    let broken = broken_links(&page);
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(broken[0].contains("gone.md (no such file)"), "{broken:?}");
    assert!(
        broken[1].contains("other.md#nope (no heading"),
        "{broken:?}"
    );
}

#[test]
fn anchors_follow_githubs_rules() {
    assert_eq!(
        slug("A benchmark for Prometheus: --serve"),
        "a-benchmark-for-prometheus---serve"
    );
    let a = anchors("# Same\n## Same\n```\n# not a heading\n```\n");
    assert!(a.contains("same") && a.contains("same-1") && !a.contains("not-a-heading"));
}
