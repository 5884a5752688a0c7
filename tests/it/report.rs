//! `diskdash report`: pages of real short runs (a bench run, a two-axis sweep, a mark, a
//! monitor recording, three runs compared) opened in headless Chromium: every chart present
//! with plotted marks, the title and the machine header, no console error, no network
//! request, a screenshot that is not blank. Bad input: one line, exit 2, nothing at `-o`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::inproc::refused;
use crate::support::{BIN, assert_success, stderr, stdout};

fn s(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

fn diskdash(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("DISKDASH_URING_DISABLED")
        .output()
        .expect("running diskdash")
}

/// A bench run in `dir` of 8 MiB, recorded as `name`: 1 s at 100 ms intervals unless `extra`
/// says otherwise.
fn bench(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut args = vec![
        "bench",
        s(dir),
        "--no-tui",
        "--size",
        "8M",
        "--json",
        s(&path),
    ];
    if !extra.contains(&"--runtime") {
        args.extend_from_slice(&["--runtime", "1s"]);
    }
    if !extra.contains(&"--interval") {
        args.extend_from_slice(&["--interval", "100ms"]);
    }
    args.extend_from_slice(extra);
    assert_success(&diskdash(dir, &args));
    path
}

fn report(dir: &Path, records: &[&Path], out: &Path) -> String {
    let mut args = vec!["report"];
    args.extend(records.iter().map(|p| s(p)));
    args.extend_from_slice(&["-o", s(out)]);
    let run = diskdash(dir, &args);
    assert_success(&run);
    std::fs::read_to_string(out).expect("the page")
}

/// What Chromium made of a page: the DOM after loading, its log, its net log, the screenshot.
struct Rendered {
    dom: String,
    log: String,
    net_log: String,
    png: Vec<u8>,
}

fn chromium(html: &Path) -> Rendered {
    let dir = html.parent().expect("a directory");
    let net = dir.join("net.json");
    let shot = dir.join("shot.png");
    let url = format!("file://{}", s(html));
    let base = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-pings",
        "--enable-logging=stderr",
        "--v=0",
    ];
    let dump = Command::new("chromium")
        .args(base)
        .arg(format!("--log-net-log={}", s(&net)))
        .arg(format!("--user-data-dir={}", s(&dir.join("profile-dom"))))
        .args(["--dump-dom", &url])
        .output()
        .expect("running chromium");
    assert!(dump.status.success(), "chromium: {}", stderr(&dump));
    let shot_run = Command::new("chromium")
        .args(base)
        .arg(format!("--user-data-dir={}", s(&dir.join("profile-shot"))))
        .args([
            "--window-size=1000,1400",
            &format!("--screenshot={}", s(&shot)),
            &url,
        ])
        .output()
        .expect("running chromium");
    assert!(shot_run.status.success(), "chromium: {}", stderr(&shot_run));
    Rendered {
        dom: stdout(&dump),
        log: format!("{}{}", stderr(&dump), stderr(&shot_run)),
        net_log: std::fs::read_to_string(&net).unwrap_or_default(),
        png: std::fs::read(&shot).expect("the screenshot"),
    }
}

/// Marks plotted in a chart's SVG: dots, cells (the background rectangle aside) and lines of
/// three points or more (an axis or a tick has two).
fn plotted(figure: &str) -> usize {
    let circles = figure.matches("<circle").count();
    let rects = figure.matches("<rect").count().saturating_sub(1);
    let lines = figure
        .split("<polyline")
        .skip(1)
        .filter(|p| {
            let points = p
                .split("points=\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .unwrap_or("");
            points.split_whitespace().count() >= 3
        })
        .count();
    circles + rects + lines
}

/// The requests Chromium makes for itself whatever the page (its clock, updates, accounts),
/// which no flag of the headless shell turns off entirely.
fn chromium_own(url: &str) -> bool {
    let host = url
        .split("://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or("");
    ["google.com", "googleapis.com", "gvt1.com"]
        .iter()
        .any(|own| host == *own || host.ends_with(&format!(".{own}")))
}

fn check_rendered(html: &Path, charts: &[&str], title: &str) {
    let page = chromium(html);
    assert!(
        page.dom.contains(&format!("<title>{title}")),
        "title {title:?} missing"
    );
    assert!(page.dom.contains("machine</th>"), "no machine header");
    for chart in charts {
        let at = page
            .dom
            .find(&format!("id=\"chart-{chart}\""))
            .unwrap_or_else(|| panic!("no chart {chart}"));
        let figure = &page.dom[at..at + page.dom[at..].find("</figure>").expect("a closed figure")];
        assert!(
            figure.contains("<svg"),
            "chart {chart} not drawn: {figure:.300}"
        );
        assert!(plotted(figure) > 0, "chart {chart} has axes only");
    }
    let console: Vec<&str> = page.log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:?}");
    let requests: Vec<&str> = page
        .net_log
        .split("\"url\":\"")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .filter(|url| !url.starts_with("file://") && !chromium_own(url))
        .collect();
    assert!(
        requests.is_empty(),
        "the page asked the network for {requests:?}"
    );
    assert!(page.png.starts_with(b"\x89PNG"), "no PNG");
    // A blank 1000x1400 page compresses to a few KiB; a page of charts and tables to tens.
    assert!(
        page.png.len() > 20_000,
        "the screenshot is {} bytes: blank?",
        page.png.len()
    );
    let distinct = page
        .png
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    assert!(
        distinct > 200,
        "the screenshot has {distinct} distinct bytes: blank?"
    );
}

#[test]
#[ignore = "needs chromium"]
fn a_bench_run_renders_with_every_chart() {
    let dir = tempfile::tempdir().unwrap();
    let run = bench(dir.path(), "run.json", &["--rw", "randrw"]);
    let html = dir.path().join("run.html");
    let page = report(dir.path(), &[&run], &html);
    assert!(
        page.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"")
    );
    assert!(!page.contains("<script"));
    check_rendered(
        &html,
        &["iops", "bandwidth", "percentiles", "heatmap"],
        "diskdash report: randrw",
    );
}

#[test]
#[ignore = "needs chromium"]
fn a_two_axis_sweep_renders_as_a_heat_grid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sweep.json");
    let args = [
        "sweep",
        s(dir.path()),
        "--no-tui",
        "--bs",
        "4k,64k",
        "--iodepth",
        "1,4",
        "--size",
        "8M",
        "--runtime",
        "200ms",
        "--json",
        s(&path),
    ];
    assert_success(&diskdash(dir.path(), &args));
    let html = dir.path().join("sweep.html");
    let page = report(dir.path(), &[&path], &html);
    assert!(page.contains("<th>trust marks</th>"));
    check_rendered(&html, &["sweep-grid", "percentiles"], "diskdash report: ");
}

#[test]
#[ignore = "needs chromium"]
fn a_mark_renders_as_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mark.json");
    let args = [
        "mark",
        s(dir.path()),
        "--no-tui",
        "--profile",
        "peak",
        "--loops",
        "1",
        "--size",
        "8M",
        "--runtime",
        "200ms",
        "--interval",
        "100ms",
        "--json",
        s(&path),
    ];
    assert_success(&diskdash(dir.path(), &args));
    let html = dir.path().join("mark.html");
    let page = report(dir.path(), &[&path], &html);
    assert!(page.contains("SEQ1M Q8T1") && page.contains("RND4K Q32T1"));
    check_rendered(&html, &["mark"], "diskdash report: ");
}

#[test]
#[ignore = "needs chromium"]
fn a_monitor_recording_renders_per_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mon.jsonl");
    assert_success(&diskdash(
        dir.path(),
        &["iostat", "0.3", "3", "--record", s(&path)],
    ));
    let html = dir.path().join("mon.html");
    report(dir.path(), &[&path], &html);
    check_rendered(
        &html,
        &["monitor-iops", "monitor-bandwidth", "monitor-util"],
        "diskdash report: monitor recording",
    );
}

#[test]
#[ignore = "needs chromium"]
fn three_runs_compare_with_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let runs: Vec<PathBuf> = (1..=3)
        .map(|i| {
            bench(
                dir.path(),
                &format!("r{i}.json"),
                &["--rw", "randread", "--interval", "20ms"],
            )
        })
        .collect();
    let html = dir.path().join("cmp.html");
    let refs: Vec<&Path> = runs.iter().map(PathBuf::as_path).collect();
    let page = report(dir.path(), &refs, &html);
    assert!(page.contains("3 records compared"));
    check_rendered(
        &html,
        &["compare-percentiles", "compare-iops", "compare-verdicts"],
        "diskdash report: 3 runs compared",
    );
}

/// A real record with markup where names go: drawn escaped, never as markup.
#[test]
fn names_with_markup_are_drawn_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let run = bench(
        dir.path(),
        "run.json",
        &["--rw", "randread", "--runtime", "300ms"],
    );
    let mut record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&run).unwrap()).unwrap();
    record["job"]["description"] = "<script>alert(1)</script>".into();
    record["segments"][0]["jobs"][0]["name"] = "<img src=x onerror=alert(1)>".into();
    std::fs::write(&run, serde_json::to_vec(&record).unwrap()).unwrap();
    let html = dir.path().join("run.html");
    let page = report(dir.path(), &[&run], &html);
    assert!(
        !page.contains("<script") && !page.contains("<img"),
        "markup from the record"
    );
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    let svg = diskdash(
        dir.path(),
        &["report", s(&run), "--format", "svg", "--chart", "iops"],
    );
    assert_success(&svg);
    assert!(stdout(&svg).starts_with("<!-- diskdash report -->\n<svg"));
    let list = diskdash(dir.path(), &["report", s(&run), "--list-charts"]);
    assert!(stdout(&list).lines().any(|l| l.starts_with("heatmap\t")));
}

/// Not diskdash's, truncated, a future format, a future monitor recording: one line, exit 2,
/// the loaders' own errors (as `compare` says them), and what was at `-o` left as it was.
#[test]
fn bad_input_is_one_line_and_leaves_the_output_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = serde_json::json!({"format": "diskdash-bench", "format_version": 99});
    let cases: [(&str, Vec<u8>); 5] = [
        ("not-json.json", b"hello".to_vec()),
        (
            "fio.json",
            br#"{"fio version": "fio-3.33", "jobs": []}"#.to_vec(),
        ),
        (
            "truncated.json",
            br#"{"format": "diskdash-bench", "format_version": 7, "status": "comp"#.to_vec(),
        ),
        ("future.json", serde_json::to_vec(&good).unwrap()),
        (
            "future.jsonl",
            b"{\"format\":\"diskdash-monitor\",\"format_version\":99}\n".to_vec(),
        ),
    ];
    let out = d.join("out.html");
    std::fs::write(&out, "before").unwrap();
    for (name, bytes) in cases {
        let path = d.join(name);
        std::fs::write(&path, bytes).unwrap();
        let (line, code) = refused(&["report", s(&path), "-o", s(&out)]);
        assert_eq!(code, 2, "{name}: {line}");
        assert_eq!(line.lines().count(), 1, "{name}: {line}");
        assert!(line.contains(s(&path)), "{name}: {line}");
        if name.ends_with(".json") {
            let (shown, _) = refused(&["compare", s(&path), s(&path)]);
            assert_eq!(line, shown, "{name}: not the loader's error");
        }
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "before", "{name}");
    }
    let (line, code) = refused(&["report", s(&d.join("absent.json"))]);
    assert_eq!(code, 2, "{line}");
    let (line, code) = refused(&["report", s(&d.join("fio.json")), "--format", "svg"]);
    assert_eq!(code, 2, "{line}");
    assert!(line.contains("--chart NAME"), "{line}");
}

/// `-o` goes through the output gate: a file that is not diskdash's is refused (exit 2, left as
/// it was) unless `--force`; the report's own page and chart are replaced by a rerun.
#[test]
fn the_output_is_gated_and_a_rerun_replaces_its_own_page() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let record = d.join("run.json");
    let run = diskdash(
        d,
        &[
            "bench",
            s(d),
            "--ioengine",
            "null",
            "--size",
            "4M",
            "--runtime",
            "300ms",
            "--no-tui",
            "--json",
            s(&record),
        ],
    );
    assert_success(&run);
    let page = d.join("notes.html");
    std::fs::write(&page, "my notes").unwrap();
    let (line, code) = refused(&["report", s(&record), "-o", s(&page)]);
    assert_eq!(code, 2, "{line}");
    assert!(line.contains("--force"), "{line}");
    assert_eq!(std::fs::read_to_string(&page).unwrap(), "my notes");
    assert_success(&diskdash(
        d,
        &["report", s(&record), "-o", s(&page), "--force"],
    ));
    assert!(
        std::fs::read_to_string(&page)
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );
    assert_success(&diskdash(d, &["report", s(&record), "-o", s(&page)]));
    let svg = d.join("iops.svg");
    for _ in 0..2 {
        let out = diskdash(
            d,
            &[
                "report",
                s(&record),
                "--format",
                "svg",
                "--chart",
                "iops",
                "-o",
                s(&svg),
            ],
        );
        assert_success(&out);
    }
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
}
