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
    // One start does both: the DOM on stdout, the screenshot to its file.
    let run = Command::new("chromium")
        .args([
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
            "--window-size=1000,1400",
        ])
        .arg(format!("--log-net-log={}", s(&net)))
        .arg(format!("--user-data-dir={}", s(&dir.join("profile"))))
        .arg(format!("--screenshot={}", s(&shot)))
        .args(["--dump-dom", &url])
        .output()
        .expect("running chromium");
    assert!(run.status.success(), "chromium: {}", stderr(&run));
    Rendered {
        dom: stdout(&run),
        log: stderr(&run),
        net_log: std::fs::read_to_string(&net).unwrap_or_default(),
        png: std::fs::read(&shot).expect("the screenshot"),
    }
}

/// Marks plotted in a chart's SVG: dots, cells (the background rectangle aside) and lines:
/// of three points or more, or of two in a series' colour within the plot (an axis or a tick
/// has two points in black; a legend's sample is below the plot's 300 pixels).
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
            let in_plot = points.split_whitespace().all(|xy| {
                xy.split_once(',')
                    .and_then(|(_, y)| y.parse::<f64>().ok())
                    .is_some_and(|y| y < 300.0)
            });
            let drawn = p
                .split('>')
                .next()
                .is_some_and(|tag| !tag.contains("stroke=\"#000000\""));
            points.split_whitespace().count() >= 3 || (drawn && in_plot)
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
        "--ramp",
        "0s",
        "--json",
        s(&path),
    ];
    assert_success(&diskdash(dir.path(), &args));
    let html = dir.path().join("sweep.html");
    let page = report(dir.path(), &[&path], &html);
    assert!(page.contains("<th>trust marks</th>"));
    check_rendered(
        &html,
        &["sweep-grid", "percentiles"],
        "diskdash report: sweep: bs 4k,64k x iodepth 1,4 on ",
    );
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
    check_rendered(
        &html,
        &["mark", "percentiles"],
        "diskdash report: mark: peak profile, ",
    );
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
        &[
            "compare-percentiles",
            "compare-iops",
            "compare-verdicts",
            "run1-iops",
            "run3-percentiles",
        ],
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

/// The words of a page: runs of letters, digits, `-`, `_` and `.` (a host name is one).
fn words(page: &str) -> Vec<&str> {
    page.split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The figure of chart `name` in a page (from its `id` to its `</figure>`).
fn figure<'p>(page: &'p str, name: &str) -> &'p str {
    let at = page
        .find(&format!("id=\"chart-{name}\""))
        .unwrap_or_else(|| panic!("no chart {name}"));
    &page[at..at + page[at..].find("</figure>").expect("a closed figure")]
}

/// The texts an SVG draws: `(x, y, text)`.
fn texts(figure: &str) -> Vec<(f64, f64, String)> {
    figure
        .split("<text ")
        .skip(1)
        .filter_map(|t| {
            let t = format!(" {t}");
            let at = |key: &str| -> Option<f64> {
                t.split(&format!(" {key}=\""))
                    .nth(1)?
                    .split('"')
                    .next()?
                    .parse()
                    .ok()
            };
            let (x, y) = (at("x")?, at("y")?);
            let text = t.split('>').nth(1)?.split('<').next()?.trim();
            Some((x, y, text.to_string()))
        })
        .collect()
}

/// The legend's names of a chart: the texts drawn below its plot (the plot is
/// `chart::HEIGHT`, 300 pixels, high; the legend's rows come after it).
fn legend(figure: &str) -> Vec<String> {
    texts(figure)
        .into_iter()
        .filter(|t| t.1 > 300.0)
        .map(|t| t.2)
        .collect()
}

/// The lines of three points or more a figure plots.
fn polylines(figure: &str) -> usize {
    figure
        .split("<polyline")
        .skip(1)
        .filter(|p| {
            p.split("points=\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .is_some_and(|pts| pts.split_whitespace().count() >= 3)
        })
        .count()
}

/// A traced bench run on a loop device (root, tracefs): the `device` chart draws the
/// application's percentiles beside the block layer's parts, each a line of its own.
#[test]
#[ignore = "needs root and tracefs"]
fn a_traced_run_draws_the_block_layers_parts() {
    crate::support::require_root();
    let _turn = crate::trace::tracefs_turn();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    std::fs::write(&image, crate::support::pattern(32 << 20, 1)).unwrap();
    let dev = crate::support::LoopDevice::attach_unique(&image);
    let record = dir.path().join("traced.json");
    let args = [
        "bench",
        s(dev.path()),
        "--no-tui",
        "--rw",
        "randread",
        "--iodepth",
        "8",
        "--runtime",
        "1s",
        "--interval",
        "100ms",
        "--trace",
        "--json",
        s(&record),
    ];
    assert_success(&diskdash(dir.path(), &args));
    let html = dir.path().join("traced.html");
    let page = report(dir.path(), &[&record], &html);
    let device = figure(&page, "device");
    assert!(device.contains("block layer traced on "), "{device:.2000}");
    let names = legend(device);
    for part in [
        "read: application",
        "read: block layer, whole",
        "read: device",
        "read: scheduler",
    ] {
        assert!(names.iter().any(|n| n == part), "{part} not in {names:?}");
    }
    assert!(
        polylines(device) >= 4,
        "a curve per part: {}",
        polylines(device)
    );
    assert!(!device.contains("no block trace in the record"));
}

fn sweep(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut args = vec![
        "sweep",
        s(dir),
        "--no-tui",
        "--size",
        "8M",
        "--ramp",
        "0s",
        "--json",
        s(&path),
    ];
    if !extra.contains(&"--runtime") {
        args.extend_from_slice(&["--runtime", "300ms"]);
    }
    args.extend_from_slice(extra);
    assert_success(&diskdash(dir, &args));
    path
}

/// The x of each vertical line (two points, one x) a figure draws.
fn verticals(figure: &str) -> Vec<f64> {
    figure
        .split("<polyline")
        .skip(1)
        .filter_map(|p| {
            let points: Vec<(f64, f64)> = p
                .split("points=\"")
                .nth(1)?
                .split('"')
                .next()?
                .split_whitespace()
                .filter_map(|xy| {
                    let (x, y) = xy.split_once(',')?;
                    Some((x.parse().ok()?, y.parse().ok()?))
                })
                .collect();
            match points[..] {
                [(x0, y0), (x1, y1)] if x0 == x1 && (y0 - y1).abs() > 100.0 => Some(x0),
                _ => None,
            }
        })
        .collect()
}

/// The x of each vertical mark's label in a figure: `(label, x)`.
fn mark_labels(figure: &str) -> Vec<(String, f64)> {
    texts(figure)
        .into_iter()
        .filter(|t| t.2.starts_with("knee") || t.2.starts_with("advice"))
        .map(|t| (t.2, t.0))
        .collect()
}

/// One-axis sweeps: an iodepth sweep's knee and a block-size sweep's advice (its read and
/// write peaks) are marked on the charts against the swept value, at the points the record's
/// analysis names.
#[test]
fn a_one_axis_sweep_marks_its_knee_and_its_advice() {
    let dir = tempfile::tempdir().unwrap();
    let depth = sweep(
        dir.path(),
        "depth.json",
        &[
            "--rw",
            "randread",
            "--ioengine",
            "null",
            "--iodepth",
            "1,4,16",
            // Points this short are otherwise marked `short`, and a marked point is never the
            // knee.
            "--trust-min-time",
            "100ms",
        ],
    );
    let record = crate::support::read_json(&depth);
    let knee = record["sweep"]["analysis"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "knee")
        .unwrap_or_else(|| panic!("no knee: {}", record["sweep"]["analysis"]))
        .clone();
    let html = dir.path().join("depth.html");
    let page = report(dir.path(), &[&depth], &html);
    // The sweep, not its first point, in the title and the heading.
    let what = "sweep: iodepth 1,4,16 on ";
    assert!(
        page.contains(&format!("<title>diskdash report: {what}"))
            && page.contains(&format!("<h2>{what}")),
        "{:.1200}",
        &page[page.find("<title>").unwrap()..]
    );
    assert!(
        page.contains(" (randread bs=4k numjobs=1 null "),
        "what stayed fixed, less the swept iodepth: {:.1200}",
        &page[page.find("<title>").unwrap()..]
    );
    for chart in ["sweep-bandwidth", "sweep-iops", "sweep-p99"] {
        let f = figure(&page, chart);
        let marks = mark_labels(f);
        let (_, x) = marks
            .iter()
            .find(|(l, _)| l.starts_with("knee ("))
            .unwrap_or_else(|| panic!("{chart}: {marks:?}"));
        assert!(
            verticals(f).iter().any(|v| (v - x).abs() <= 5.0),
            "{chart}: no line at the knee's label ({x}): {:?}",
            verticals(f)
        );
        assert!(polylines(f) >= 1 && f.contains("<circle"), "{chart}");
    }
    // Each point's own latency curve, not the points' latencies together.
    let curves = figure(&page, "percentiles");
    assert!(
        curves.contains("Latency percentiles per point"),
        "{curves:.300}"
    );
    assert_eq!(
        legend(curves),
        ["iodepth=1 read", "iodepth=4 read", "iodepth=16 read"]
    );
    let table = page.split("class=\"points\"").nth(1).unwrap();
    assert!(
        table.contains(&format!("iodepth={}", knee["value"])),
        "the knee's point is in the table"
    );

    let bs = sweep(
        dir.path(),
        "bs.json",
        &["--rw", "randrw", "--bs", "4k,64k,256k", "--advice"],
    );
    let record = crate::support::read_json(&bs);
    assert!(
        record["sweep"]["analysis"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["kind"] == "advice"),
        "{}",
        record["sweep"]["analysis"]
    );
    let html = dir.path().join("bs.html");
    let page = report(dir.path(), &[&bs], &html);
    let marks = mark_labels(figure(&page, "sweep-bandwidth"));
    for label in ["advice: read peak", "advice: write peak"] {
        let (_, x) = marks
            .iter()
            .find(|(l, _)| l == label)
            .unwrap_or_else(|| panic!("{label}: {marks:?}"));
        let lines = verticals(figure(&page, "sweep-bandwidth"));
        assert!(lines.iter().any(|v| (v - x).abs() <= 5.0), "{label}");
    }
    // Marks at one x are drawn a row apart, not over each other.
    let ys: Vec<f64> = texts(figure(&page, "sweep-bandwidth"))
        .into_iter()
        .filter(|t| t.2.starts_with("advice"))
        .map(|t| t.1)
        .collect();
    assert_eq!(ys.len(), 2, "{ys:?}");
    assert_ne!(ys[0], ys[1], "the two labels share a row");
}

/// An ssh that runs the remote command here: its options and the host are read past, the
/// command is handed to `sh` (as sshd hands it to the user's shell).
fn local_ssh(dir: &Path) -> PathBuf {
    let path = dir.join("local-ssh");
    std::fs::write(
        &path,
        "#!/bin/sh\nwhile [ \"$#\" -gt 0 ]; do\n  if [ \"$1\" = -- ]; then shift; break; fi\n  \
         shift\ndone\nshift\nexec sh -c \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path
}

/// A fleet record of hosts `n1` and `n2` (both this machine, through [`local_ssh`]) running
/// `command`.
pub(crate) fn fleet(dir: &Path, name: &str, command: &[&str]) -> PathBuf {
    let record = dir.join(name);
    let ssh = local_ssh(dir);
    let mut args = vec![
        "fleet",
        "n1,n2",
        "--no-tui",
        "--ssh",
        s(&ssh),
        "--remote-binary",
        BIN,
        "--json",
        s(&record),
        "--",
    ];
    args.extend_from_slice(command);
    assert_success(&diskdash(dir, &args));
    record
}

/// A fleet record (two hosts through a real fleet run): a line per host and direction over
/// time, the fleet's notes on the page; with `--redact`, the hosts are `host 1` and `host 2`.
#[test]
fn a_fleet_record_draws_a_line_per_host() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let record = fleet(
        d,
        "fleet.json",
        &[
            "bench",
            s(d),
            "--rw",
            "randread",
            "--size",
            "4M",
            "--runtime",
            "600ms",
            "--interval",
            "100ms",
        ],
    );
    let html = d.join("fleet.html");
    let page = report(d, &[&record], &html);
    let iops = figure(&page, "iops");
    assert_eq!(legend(iops), ["n1 read", "n2 read"], "{iops:.3000}");
    assert!(polylines(iops) >= 2, "a line per host");
    assert!(page.contains("fleet of 2 hosts"), "the fleet's note");
    assert!(!page.contains("kept no interval series"));

    let shared = d.join("shared.html");
    let run = diskdash(d, &["report", s(&record), "--redact", "-o", s(&shared)]);
    assert_success(&run);
    let page = std::fs::read_to_string(&shared).unwrap();
    assert_eq!(
        legend(figure(&page, "iops")),
        ["host 1 read", "host 2 read"]
    );
    let words = words(&page);
    for secret in ["n1", "n2"] {
        assert!(!words.contains(&secret), "{secret} in the redacted page");
    }
}

/// A fleet whose hosts ran a plan of two jobs: a line per host, job and direction (each job's
/// own series from its host's record), the page saying how the jobs are named.
#[test]
fn a_fleet_of_two_jobs_draws_a_line_per_host_and_job() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let jobs = d.join("two.fio");
    std::fs::write(
        &jobs,
        "[global]\nioengine=null\nsize=4m\nbs=4k\ntime_based\nruntime=500ms\n\
         [a]\nrw=randread\n[b]\nrw=randwrite\n",
    )
    .unwrap();
    let record = fleet(
        d,
        "fleet.json",
        &["fio", s(&jobs), "--status-interval", "100ms"],
    );
    let html = d.join("fleet.html");
    let page = report(d, &[&record], &html);
    for chart in ["iops", "bandwidth"] {
        let f = figure(&page, chart);
        assert_eq!(
            legend(f),
            ["n1: a read", "n1: b write", "n2: a read", "n2: b write"],
            "{chart}: {f:.3000}"
        );
        // A line each (a line of one or two points, from a host slowed by the others, counts).
        assert!(plotted(f) >= 4, "{chart}: {}", plotted(f));
        assert!(!f.contains("kept no interval series"), "{f:.3000}");
    }
    assert!(
        page.contains("n1, n2 ran several jobs each"),
        "the page says so"
    );
    // What each host ran, not the first host's remote command line.
    assert!(
        page.contains("<th>each host ran</th><td>diskdash fio "),
        "{:.2000}",
        &page[page.find("<table class=\"header\">").unwrap()..]
    );
    assert!(!page.contains("--fleet-remote"));
    assert!(
        page.contains("<title>diskdash report: fleet of 2 hosts (n1, n2): 2 jobs (a, b)"),
        "{:.600}",
        &page[page.find("<title>").unwrap()..]
    );
}

/// A job file of two jobs: a line per job and direction over time.
#[test]
fn a_plan_of_two_jobs_draws_a_line_per_job_and_direction() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("two.fio"),
        "[global]\nsize=4m\nbs=4k\ntime_based\nruntime=600ms\n\
         [a]\nrw=randrw\nfilename=a.dat\n[b]\nrw=randwrite\nfilename=b.dat\n",
    )
    .unwrap();
    let record = d.join("two.json");
    assert_success(&diskdash(
        d,
        &[
            "fio",
            "two.fio",
            "--no-tui",
            "--status-interval",
            "100ms",
            "--json",
            s(&record),
        ],
    ));
    let html = d.join("two.html");
    let page = report(d, &[&record], &html);
    // The percentile curves too: a job's own latency, not the two jobs' writes together.
    for chart in ["iops", "bandwidth", "percentiles"] {
        let f = figure(&page, chart);
        assert_eq!(legend(f), ["a read", "a write", "b write"], "{chart}");
        assert!(polylines(f) >= 3, "{chart}: {}", polylines(f));
    }
}

/// `--redact`: the page of a record written without it shows no host name, no path and no
/// command line, and still its charts.
#[test]
fn redact_leaves_no_host_path_or_command_line_on_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = bench(d, "run.json", &["--rw", "randrw", "--runtime", "400ms"]);
    let record = crate::support::read_json(&run);
    let host = record["machine"]["host"].as_str().unwrap().to_string();
    let command: Vec<&str> = record["machine"]["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let html = d.join("shared.html");
    assert_success(&diskdash(
        d,
        &["report", s(&run), "--redact", "-o", s(&html)],
    ));
    let page = std::fs::read_to_string(&html).unwrap();
    let shown = report(d, &[&run], &d.join("plain.html"));
    // What the plain page shows and the redacted one must not.
    let dir_name = d.file_name().unwrap().to_str().unwrap();
    assert!(shown.contains(dir_name) && shown.contains(&command.join(" ")));
    assert!(shown.contains(&format!("<th>machine</th><td>{host}: ")));
    assert!(page.contains("<th>machine</th><td>&lt;redacted&gt;: "));
    assert!(
        !words(&page).contains(&host.as_str()),
        "the host {host} is shown"
    );
    assert!(
        !page.contains(dir_name),
        "the directory {dir_name} is shown"
    );
    assert!(!page.contains(s(&run)), "the record's path is shown");
    assert!(
        !page.contains(&command.join(" ")),
        "the command line is shown"
    );
    assert!(page.contains("&lt;redacted&gt;"));
    for chart in ["iops", "bandwidth", "percentiles"] {
        assert!(figure(&page, chart).contains("<svg"), "{chart} drawn");
    }
}

/// Several records: after the comparison, each run's own charts, folded under `<details>`
/// (no script), named by the record's number.
#[test]
fn several_records_draw_each_runs_own_charts_after_the_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let runs: Vec<PathBuf> = ["randread", "randwrite"]
        .iter()
        .map(|rw| {
            bench(
                d,
                &format!("{rw}.json"),
                &["--rw", rw, "--ioengine", "null", "--runtime", "300ms"],
            )
        })
        .collect();
    let html = d.join("cmp.html");
    let page = report(d, &[&runs[0], &runs[1]], &html);
    let compared = page.find("id=\"chart-compare-verdicts\"").unwrap();
    for n in 1..=2 {
        let details = page
            .find(&format!("<details class=\"run\"><summary><h2>#{n}: "))
            .unwrap_or_else(|| panic!("run {n} not folded"));
        assert!(details > compared, "run {n} before the comparison");
        for chart in ["iops", "bandwidth", "percentiles", "heatmap"] {
            assert!(
                figure(&page[details..], &format!("run{n}-{chart}")).contains("<svg"),
                "run {n}: {chart}"
            );
        }
    }
    assert_eq!(page.matches("</details>").count(), 2);
    assert!(!page.contains("<script"));
    let list = diskdash(d, &["report", s(&runs[0]), s(&runs[1]), "--list-charts"]);
    assert!(
        stdout(&list)
            .lines()
            .any(|l| l.starts_with("run2-heatmap\t"))
    );
}

/// The `id`s of a page's charts, in order.
fn chart_ids(page: &str) -> Vec<String> {
    page.split("id=\"chart-")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .map(str::to_string)
        .collect()
}

/// Every kind of record (a bench run, a plan of two jobs, sweeps of one and two options, a
/// mark, a monitor recording, a fleet, two runs compared): each chart `--list-charts` names is
/// written by `--format svg --chart NAME` with marks plotted; each chart of the page it leaves
/// out is said on stderr with why, and `--chart` refuses it (exit 2). The list and those lines
/// are the page's charts.
#[test]
fn every_listed_chart_draws_for_every_record_kind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let null = ["--ioengine", "null", "--runtime", "300ms"];
    let short = ["--runtime", "100ms"];
    let run = bench(d, "bench.json", &["--rw", "randrw", "--runtime", "500ms"]);
    let other = bench(d, "null.json", &[&["--rw", "randread"][..], &null].concat());
    std::fs::write(
        d.join("two.fio"),
        "[global]\nioengine=null\nsize=4m\nbs=4k\ntime_based\nruntime=300ms\n\
         [a]\nrw=randrw\n[b]\nrw=randwrite\n",
    )
    .unwrap();
    let plan = d.join("plan.json");
    assert_success(&diskdash(
        d,
        &[
            "fio",
            "two.fio",
            "--no-tui",
            "--status-interval",
            "100ms",
            "--json",
            s(&plan),
        ],
    ));
    // The charts are drawn from the records, not judged against the disk: null-engine sweep
    // points, mark loops and monitor samples as short as still make a point, a bar, a line.
    let depth = sweep(
        d,
        "depth.json",
        &[
            &["--rw", "randread", "--iodepth", "1,4"][..],
            &null[..2],
            &short,
        ]
        .concat(),
    );
    let grid = sweep(
        d,
        "grid.json",
        &[
            &["--rw", "randread", "--bs", "4k,64k", "--iodepth", "1,4"][..],
            &null[..2],
            &short,
        ]
        .concat(),
    );
    let mark = d.join("mark.json");
    assert_success(&diskdash(
        d,
        &[
            "mark",
            s(d),
            "--no-tui",
            "--profile",
            "peak",
            "--loops",
            "1",
            "--size",
            "8M",
            "--runtime",
            "100ms",
            "--interval",
            "100ms",
            "--json",
            s(&mark),
        ],
    ));
    let monitor = d.join("mon.jsonl");
    assert_success(&diskdash(
        d,
        &["iostat", "0.1", "3", "--record", s(&monitor)],
    ));
    let fleet = fleet(
        d,
        "fleet.json",
        &[
            &[
                "bench",
                s(d),
                "--rw",
                "randread",
                "--size",
                "4M",
                "--interval",
                "100ms",
            ][..],
            &null,
        ]
        .concat(),
    );
    let kinds: [(&str, Vec<&Path>); 8] = [
        ("bench", vec![&run]),
        ("plan", vec![&plan]),
        ("sweep", vec![&depth]),
        ("grid", vec![&grid]),
        ("mark", vec![&mark]),
        ("monitor", vec![&monitor]),
        ("fleet", vec![&fleet]),
        ("compare", vec![&run, &other]),
    ];
    for (kind, records) in kinds {
        let mut args = vec!["report"];
        args.extend(records.iter().map(|p| s(p)));
        let page = report(d, &records, &d.join(format!("{kind}.html")));
        let list = diskdash(d, &[&args[..], &["--list-charts"]].concat());
        assert_success(&list);
        let listed: Vec<String> = stdout(&list)
            .lines()
            .map(|l| l.split('\t').next().unwrap().to_string())
            .collect();
        let left_out: Vec<String> = stderr(&list)
            .lines()
            .filter_map(|l| l.strip_prefix("report: "))
            .filter_map(|l| l.split_once(" not drawn: "))
            .map(|(name, _)| name.to_string())
            .collect();
        assert!(!listed.is_empty(), "{kind}: no chart listed");
        let mut said = [listed.clone(), left_out.clone()].concat();
        let mut on_page = chart_ids(&page);
        said.sort();
        on_page.sort();
        assert_eq!(said, on_page, "{kind}: {}", stderr(&list));
        for name in &listed {
            let out = d.join(format!("{kind}-{name}.svg"));
            let svg = diskdash(
                d,
                &[
                    &args[..],
                    &["--format", "svg", "--chart", name, "-o", s(&out)],
                ]
                .concat(),
            );
            assert_success(&svg);
            let svg = std::fs::read_to_string(&out).unwrap();
            assert!(
                svg.starts_with("<!-- diskdash report -->\n<svg"),
                "{kind} {name}: {svg:.200}"
            );
            assert!(plotted(&svg) > 0, "{kind} {name}: axes only");
        }
        for name in &left_out {
            let (line, code) =
                refused(&[&args[..], &["--format", "svg", "--chart", name]].concat());
            assert_eq!(code, 2, "{kind} {name}: {line}");
            assert!(line.contains("not drawn"), "{kind} {name}: {line}");
        }
    }
}
