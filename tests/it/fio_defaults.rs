//! `--fio-defaults`: `bench` run as fio's command line would, and the one line that says where
//! a run's settings differ from fio's defaults.

use crate::support::record::*;
use crate::support::*;

const UNLIKE: &str = "settings unlike fio's defaults:";

/// The record's notes and the summary's lines that say how the run differs from fio.
fn unlike_lines(out: &std::process::Output, record: &serde_json::Value) -> (usize, usize) {
    let notes = record["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n.as_str().unwrap().starts_with(UNLIKE))
        .count();
    let said = stderr(out).lines().filter(|l| l.contains(UNLIKE)).count();
    (notes, said)
}

#[test]
fn fio_defaults_set_each_setting_and_the_line_goes() {
    let dir = tempfile::tempdir().unwrap();
    let run = "--size 16M --runtime 200ms --interval 100ms --no-tui -j 2 --cpus 0-1";
    let (out, record) = bench_ok(dir.path(), &opts(run));
    assert_eq!(record["job"]["iomem"], "huge");
    assert_eq!(record["job"]["cpus_allowed_policy"], "split");
    assert_eq!(record["engine"]["registered_buffers"], true);
    assert_eq!(record["engine"]["registered_file"], true);
    assert_eq!(unlike_lines(&out, &record), (1, 1));
    let note = record["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|n| n.as_str().filter(|n| n.starts_with(UNLIKE)))
        .unwrap();
    for said in [
        "iomem=huge (fio: malloc)",
        "fixedbufs=1 (fio: 0)",
        "registerfiles=1 (fio: 0)",
        "cpus_allowed_policy=split (fio: shared)",
        "--fio-defaults",
    ] {
        assert!(note.contains(said), "{said}: {note}");
    }

    let (out, record) = bench_ok(dir.path(), &opts(&format!("{run} --fio-defaults")));
    assert_eq!(record["job"]["iomem"], "malloc");
    assert_eq!(record["job"]["cpus_allowed_policy"], "shared");
    assert_eq!(record["engine"]["registered_buffers"], false);
    assert_eq!(record["engine"]["registered_file"], false);
    assert_eq!(unlike_lines(&out, &record), (0, 0));

    // A flag given wins over --fio-defaults, wherever it stands, and is said again.
    let (out, record) = bench_ok(
        dir.path(),
        &opts(&format!("{run} --iomem huge --fio-defaults")),
    );
    assert_eq!(record["job"]["iomem"], "huge");
    assert_eq!(record["engine"]["registered_buffers"], false);
    assert_eq!(unlike_lines(&out, &record), (1, 1));
    let note = record["notes"].to_string();
    assert!(note.contains("iomem=huge (fio: malloc)"), "{note}");
    assert!(!note.contains("fixedbufs=1"), "{note}");
}

#[test]
fn psync_with_malloc_buffers_runs_as_fio_and_says_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = "--size 16M --runtime 200ms --no-tui --ioengine psync --iomem malloc";
    let (out, record) = bench_ok(dir.path(), &opts(run));
    assert_eq!(unlike_lines(&out, &record), (0, 0));
}

/// `diskdash sweep|mark ARGS --json r.json` in `dir`: each step's buffer memory.
fn steps_iomem(dir: &std::path::Path, command: &str, args: &str) -> Vec<String> {
    let out = std::process::Command::new(BIN)
        .arg(command)
        .args(opts(args))
        .args(["--no-tui", "--json", "r.json"])
        .current_dir(dir)
        .env_remove("DISKDASH_URING_DISABLED")
        .output()
        .unwrap();
    assert_success(&out);
    let record = read_json(&dir.join("r.json"));
    record["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["job"]["iomem"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn sweep_and_mark_default_to_fio_buffers_and_take_iomem() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = "--size 8M --runtime 100ms --ramp 0s -q 1,4";
    // One test of one block size: every step's buffers are the run's.
    let mark = "--profile demo --size 8M --runtime 100ms --loops 1";
    let all = |v: Vec<String>, want: &str| {
        assert!(
            !v.is_empty() && v.iter().all(|m| m == want),
            "{want}: {v:?}"
        );
    };
    // fio's buffers by default: a sweep's advice and a mark's scores hold for other tools.
    all(steps_iomem(dir.path(), "sweep", sweep), "malloc");
    all(
        steps_iomem(dir.path(), "sweep", &format!("{sweep} --iomem huge")),
        "huge",
    );
    all(
        steps_iomem(dir.path(), "sweep", &format!("{sweep} --fio-defaults")),
        "malloc",
    );
    all(steps_iomem(dir.path(), "mark", mark), "malloc");
    all(
        steps_iomem(dir.path(), "mark", &format!("{mark} --iomem huge")),
        "huge",
    );
    all(
        steps_iomem(dir.path(), "mark", &format!("{mark} --fio-defaults")),
        "malloc",
    );
}
