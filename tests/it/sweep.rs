//! `diskdash sweep` with the real binary: the points in order, one table row per point (loops
//! picked), CSV that Python's csv module reads, the record's points, and every refusal.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::record::{
    assert_valid_interval, assert_valid_record, assert_valid_sweep_point,
};
use crate::support::*;

fn sweep(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("sweep")
        .args(args)
        .args(TRUST_NOTHING)
        .arg("--no-tui")
        .current_dir(dir)
        .output()
        .expect("diskdash runs")
}

/// `diskdash sweep ARGS --no-tui`, refused in this process (`support::inproc`): its stderr.
fn sweep_refused(args: &[&str]) -> String {
    let mut all = vec!["sweep"];
    all.extend_from_slice(args);
    all.push("--no-tui");
    inproc::usage_error(&all)
}

#[test]
fn points_come_in_the_order_given_the_last_fastest() {
    let dir = tempfile::tempdir().unwrap();
    let out = sweep(
        dir.path(),
        &[
            "--bs",
            "4k,16k",
            "--rw",
            "randread,randrw:75",
            "--runtime",
            "5s",
            "--points",
        ],
    );
    assert_success(&out);
    assert_eq!(
        stdout(&out),
        "   1  bs=4k rw=randread\n   2  bs=4k rw=randrw:75\n   3  bs=16k rw=randread\n   4  \
         bs=16k rw=randrw:75\n"
    );
    assert_stderr_has(
        &out,
        "diskdash sweep: 4 points x 7s = 28s on a scratch file here",
    );
    // Nothing swept: one point, and what it runs.
    let out = sweep(dir.path(), &["--runtime", "5s", "--points"]);
    assert_success(&out);
    assert_eq!(
        stdout(&out),
        "   1  nothing swept: randread bs=4k iodepth=32 numjobs=1 io_uring direct\n"
    );
    assert_stderr_has(
        &out,
        "diskdash sweep: 1 point x 7s = 7s on a scratch file here",
    );
}

#[test]
fn a_matrix_is_one_table_and_its_csv_has_a_row_per_point() {
    let dir = tempfile::tempdir().unwrap();
    let out = sweep(
        dir.path(),
        &[
            "--rw",
            "randread,randwrite",
            "--bs",
            "4k,64k",
            "--size",
            "8M",
            "--runtime",
            "300ms",
            "--ramp",
            "0s",
            "-q",
            "4",
            "--format",
            "csv",
            "--json",
            "r.json",
            "--jsonl",
            "j.jsonl",
        ],
    );
    assert_success(&out);
    let csv = stdout(&out);
    // Python's csv module: a header and one row per point.
    let script = "import csv,sys\nrows=list(csv.DictReader(sys.stdin))\nprint(len(rows))\n\
                  print(','.join(r['rw']+'/'+r['bs'] for r in rows))\n\
                  print(all(float(r['read_iops'])>0 for r in rows if r['rw']=='randread'))\n\
                  print(all(float(r['write_iops'])>0 for r in rows if r['rw']=='randwrite'))";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), csv.as_bytes()).unwrap();
    let parsed = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&parsed.stdout),
        "4\nrandread/4k,randread/64k,randwrite/4k,randwrite/64k\nTrue\nTrue\n",
        "{csv}"
    );
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 4);
    assert_eq!(
        steps[1]["point"],
        serde_json::json!([
            {"option": "rw", "value": "randread"},
            {"option": "bs", "value": "64k", "number": 65536}
        ])
    );
    assert_eq!(steps[3]["job"]["rw"], "randwrite");
    assert_eq!(steps[3]["job"]["bs"], 65536);
    // --jsonl: the intervals, and a line per point as it finishes.
    let lines = json_lines(&std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap());
    let points: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["format"] == "diskdash-sweep-point")
        .collect();
    assert_eq!(points.len(), 4);
    for line in &lines {
        if line["format"] == "diskdash-sweep-point" {
            assert_valid_sweep_point(line);
        } else {
            assert_valid_interval(line);
        }
    }
    // The schema holds: a line without its point is refused.
    let mut broken = points[0].clone();
    broken["point"] = serde_json::json!([]);
    assert!(
        std::panic::catch_unwind(|| assert_valid_sweep_point(&broken)).is_err(),
        "a point line with an empty point passed the schema"
    );
    assert_eq!(points[3]["point"], steps[3]["point"]);
    assert_eq!(
        points[3]["write"]["total_ios"],
        steps[3]["write"]["total_ios"]
    );
}

#[test]
fn loops_are_picked_and_the_table_says_which_and_the_peak() {
    let dir = tempfile::tempdir().unwrap();
    let out = sweep(
        dir.path(),
        &[
            "--ioengine",
            "null",
            "--bs",
            "4k,64k",
            "--size",
            "8M",
            "--runtime",
            "200ms",
            // No warm-up (2 s a loop by default): the picking is what is checked here.
            "--ramp",
            "0s",
            "--loops",
            "2",
            "--pick",
            "median",
            "--json",
            "r.json",
        ],
    );
    assert_success(&out);
    assert_stderr_has(
        &out,
        "note: each point runs 2 times; the table shows the median",
    );
    // The headless lines count points, and each point's loops.
    assert_stderr_has(&out, "point 1/2 loop 2/2: bs=4k (");
    assert_stderr_has(&out, "point 2/2 loop 1/2: bs=64k (");
    let table = stdout(&out);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("bs   read IOPS"), "{table}");
    assert!(lines[1].starts_with("4k "), "{table}");
    assert!(
        lines[2].starts_with("64k ") && lines[2].ends_with("best read"),
        "{table}"
    );
    assert!(table.contains("read peaks at 64k: "), "{table}");
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    assert_eq!(record["segments"].as_array().unwrap().len(), 4);
    // The record keeps the sweep's shape and what the foot said.
    assert_eq!(record["sweep"]["dimensions"], serde_json::json!(["bs"]));
    assert_eq!(record["sweep"]["loops"], 2);
    assert_eq!(record["sweep"]["pick"], "median");
    // The foot's findings, typed; no sentences as text.
    assert!(record["sweep"].get("statements").is_none(), "{record}");
    let analysis = record["sweep"]["analysis"].as_array().unwrap();
    let peak = analysis
        .iter()
        .find(|f| f["kind"] == "peak" && f["direction"] == "read")
        .unwrap();
    assert_eq!(
        (&peak["dimension"], &peak["value"]),
        (&"bs".into(), &"64k".into())
    );
}

#[test]
fn bad_sweeps_are_one_line_naming_the_value_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    for (args, want) in [
        (
            &["--bs", ","][..],
            "error: --bs \",\" has an empty value; list values like 4k,64k,1M or 4k..1M\n",
        ),
        (
            &["--bs", "1M..4k"][..],
            "error: --bs \"1M..4k\" runs downward; write it low to high: 4k..1M\n",
        ),
        (
            &["--size", "1M,2M"][..],
            "error: --size \"1M,2M\": only the workload options take lists and ranges (--rw, \
             --bs, --iodepth, --numjobs, --ioengine, --direct, --fsync, --fdatasync, --sync); \
             give --size one value\n",
        ),
        (
            &["--json", "a,b"][..],
            "error: --json \"a,b\": only the workload options take lists and ranges (--rw, \
             --bs, --iodepth, --numjobs, --ioengine, --direct, --fsync, --fdatasync, --sync); \
             give --json one value\n",
        ),
        (
            &["--jsonl", "a.jsonl,b.jsonl"][..],
            "error: --jsonl \"a.jsonl,b.jsonl\": only the workload options take lists and ranges \
             (--rw, --bs, --iodepth, --numjobs, --ioengine, --direct, --fsync, --fdatasync, \
             --sync); give --jsonl one value\n",
        ),
        (
            &["--latency-target", "1ms..2ms", "-q", "1,2"][..],
            "error: --latency-target \"1ms..2ms\": only the workload options take lists and \
             ranges (--rw, --bs, --iodepth, --numjobs, --ioengine, --direct, --fsync, \
             --fdatasync, --sync); give --latency-target one value\n",
        ),
        (
            &["--sync", "dsync..sync"][..],
            "error: --sync \"dsync..sync\": sync takes no range; list the values, e.g. \
             none,dsync,sync\n",
        ),
        (
            &["--sync", "odirect"][..],
            "error: --sync \"odirect\" is not a value of sync; use e.g. none,dsync,sync\n",
        ),
        (
            &["--hipri", "0..1"][..],
            "error: --hipri \"0..1\": only the workload options take lists and ranges (--rw, \
             --bs, --iodepth, --numjobs, --ioengine, --direct, --fsync, --fdatasync, --sync); \
             give --hipri one value\n",
        ),
        (
            &["--pick", "best"][..],
            "error: --pick needs --loops: one run per point has nothing to pick from; add e.g. \
             --loops 5\n",
        ),
        (
            &["--loops", "0"][..],
            "error: --loops \"0\" is not a number of runs; use 1 to 100, e.g. 5\n",
        ),
        (
            &["--format", "xml"][..],
            "error: --format \"xml\" is not a format; use table, markdown, csv or json\n",
        ),
        (
            &[
                "--bs", "512..1M", "-q", "1..256", "-j", "1,2", "--loops", "3",
            ][..],
            "error: 216 points x 3 loops x 12s = 2h9m36s is more than 2h or 500 steps; pass \
             --yes to run it, or sweep fewer values\n",
        ),
        (
            &["--bs", "4k,64M", "--size", "16M"][..],
            "error: point bs=64M: --bs 64M is larger than --size 16M; raise --size or lower \
             --bs\n",
        ),
    ] {
        assert_eq!(sweep_refused(args), want, "{args:?}");
    }
    // End to end once: the binary prints the one line and exits 2, and nothing was made.
    let out = sweep(dir.path(), &["--bs", ","]);
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out),
        "error: --bs \",\" has an empty value; list values like 4k,64k,1M or 4k..1M\n"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_latency_target_stops_at_the_first_miss_and_names_the_deepest_point_that_met_it() {
    let dir = tempfile::tempdir().unwrap();
    // A direct read's latency is far under 1 s and far over 1 us: met at 1 s, missed at 1 us.
    let met = sweep(
        dir.path(),
        &[
            "--ioengine",
            "null",
            "-q",
            "1,2,4",
            "--size",
            "8M",
            "--runtime",
            "200ms",
            "--ramp",
            "0s",
            "--latency-target",
            "1s",
        ],
    );
    assert_success(&met);
    assert_stdout_has(
        &met,
        "latency target p99 <= 1.00 s: met by every point, up to iodepth=4",
    );
    let missed = sweep(
        dir.path(),
        &[
            "--ioengine",
            "psync",
            "-j",
            "1,2,4",
            "--size",
            "8M",
            "--runtime",
            "200ms",
            "--ramp",
            "0s",
            "--latency-target",
            "1us",
            "--latency-percentile",
            "50",
            "--json",
            "r.json",
        ],
    );
    assert_success(&missed);
    assert_stderr_has(&missed, "note: latency target missed: p50 ");
    assert_stdout_has(
        &missed,
        "latency target p50 <= 1.0 us: missed from the first point, numjobs=1\n",
    );
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    // The plan ended after the first point.
    assert_eq!(record["segments"].as_array().unwrap().len(), 1);
    // The record keeps the target's finding typed, the line is rendered from it.
    let target = record["sweep"]["analysis"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "latency_target")
        .unwrap();
    assert_eq!(
        *target,
        serde_json::json!({"kind": "latency_target", "percentile": 50.0, "target_ns": 1000,
            "met": null, "first_miss": [{"option": "numjobs", "value": "1", "number": 1}]})
    );
    for (args, want) in [
        (
            &["--latency-target", "1ms"][..],
            "error: --latency-target needs a sweep of --iodepth or --numjobs to walk up; add \
             e.g. --iodepth 1..256\n",
        ),
        (
            &[
                "-q",
                "1,2",
                "--latency-target",
                "1ms",
                "--latency-percentile",
                "42",
            ][..],
            "error: --latency-percentile \"42\" is not one of fio's percentiles; use one of 1, \
             5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99\n",
        ),
        (
            &["--baseline", "ram"][..],
            "error: --baseline \"ram\" is not a baseline; use --baseline memory\n",
        ),
    ] {
        assert_eq!(sweep_refused(args), want, "{args:?}");
    }
}

#[test]
fn the_memory_baseline_runs_each_point_again_on_dev_shm() {
    assert!(
        Path::new("/dev/shm").is_dir(),
        "this test needs /dev/shm (a tmpfs every Linux mounts): mount one"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = sweep(
        dir.path(),
        &[
            "--rw",
            "write,read",
            "--bs",
            "64k,128k",
            "--size",
            "8M",
            "--io-size",
            "8M",
            "--ioengine",
            "psync",
            "-q",
            "1",
            "--baseline",
            "memory",
            "--advice",
            "--json",
            "r.json",
        ],
    );
    assert_success(&out);
    assert_stderr_has(
        &out,
        "diskdash sweep: 4 points and their memory baseline, each",
    );
    let table = stdout(&out);
    let header = table.lines().next().unwrap();
    assert!(
        header.contains("memory read MB/s") && header.contains("memory write MB/s"),
        "{table}"
    );
    // Four rows: the disk's points, the memory's beside them.
    assert_eq!(
        table
            .lines()
            .filter(|l| l.starts_with("write ") || l.starts_with("read "))
            .count(),
        4
    );
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    // The advice is kept typed; its line names the peaks it found.
    let advice = record["sweep"]["analysis"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "advice")
        .unwrap();
    let sizes = ["64k", "128k"].map(serde_json::Value::from);
    for peak in ["write_peak", "read_peak"] {
        assert!(sizes.contains(&advice[peak]), "{advice}");
    }
    let write_heavy = advice["write_heavy"].as_array().unwrap();
    let run = match &write_heavy[..] {
        [one] => one.as_str().unwrap().to_string(),
        [first, last] => format!("{}-{}", first.as_str().unwrap(), last.as_str().unwrap()),
        _ => panic!("{advice}"),
    };
    assert!(
        table.contains(&format!("advice: use {run} for write-heavy, ")),
        "{table}"
    );
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 8);
    assert_eq!(
        steps[4]["point"][2],
        serde_json::json!({"option": "baseline", "value": "memory"})
    );
    assert_eq!(steps[4]["jobs"][0]["job"]["direct"], false);
    assert!(
        steps[4]["jobs"][0]["target"]["path"]
            .as_str()
            .unwrap()
            .starts_with("/dev/shm/")
    );
}

#[test]
fn compare_refuses_totals_that_mix_a_plans_points() {
    let dir = tempfile::tempdir().unwrap();
    let common = ["--ioengine", "null", "--size", "8M", "--runtime", "200ms"];
    let out = sweep(
        dir.path(),
        &[
            &common[..],
            &["--bs", "4k,64k", "--ramp", "0s", "--json", "s.json"],
        ]
        .concat(),
    );
    assert_success(&out);
    let out = Command::new(BIN)
        .arg("bench")
        .args(common)
        .args(["--no-tui", "--json", "r.json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_success(&out);
    for (base, new) in [("r.json", "s.json"), ("s.json", "r.json")] {
        let out = Command::new(BIN)
            .args(["compare", base, new])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert_eq!(
            stderr(&out),
            "error: s.json is a sweep of 2 points and r.json one run: the sweep's totals mix \
             its points; compare a sweep with a sweep (point by point) or a run with a run\n"
        );
        assert!(stdout(&out).is_empty());
    }
    // One point and its memory baseline are two points; a mark's measurements mix too, even
    // against another mark (marks have no point-by-point comparison).
    let out = sweep(
        dir.path(),
        &[
            &common[..],
            &["--baseline", "memory", "--ramp", "0s", "--json", "m.json"],
        ]
        .concat(),
    );
    assert_success(&out);
    let out = Command::new(BIN)
        .args(["mark", ".", "--no-tui", "--profile", "demo", "--loops", "1"])
        .args(["--size", "8M", "--runtime", "200ms", "--json", "k.json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_success(&out);
    for (args, want) in [
        (
            ["m.json", "r.json"],
            "error: m.json is a sweep of 2 points (memory baselines counted) and r.json one run: \
             the sweep's totals mix its points; compare a sweep with a sweep (point by point) or \
             a run with a run\n",
        ),
        (
            ["r.json", "k.json"],
            "error: k.json is a mark of 2 measurements: its totals mix them; compare two sweeps \
             point by point or two runs of one job\n",
        ),
        (
            ["k.json", "k.json"],
            "error: k.json is a mark of 2 measurements: its totals mix them; compare two sweeps \
             point by point or two runs of one job\n",
        ),
    ] {
        let out = Command::new(BIN)
            .arg("compare")
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), want);
    }
    // Two sweeps, each with its baseline, still compare point by point.
    let out = Command::new(BIN)
        .args(["compare", "m.json", "m.json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_success(&out);
}

#[test]
fn compare_matches_two_sweeps_point_by_point_and_gates_each_point() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bs) in [("a.json", "4k,64k"), ("b.json", "64k,128k")] {
        let out = sweep(
            dir.path(),
            &[
                "--ioengine",
                "null",
                "--bs",
                bs,
                "--size",
                "8M",
                "--runtime",
                "200ms",
                "--ramp",
                "0s",
                "--json",
                name,
            ],
        );
        assert_success(&out);
    }
    let out = Command::new(BIN)
        .args([
            "compare",
            "a.json",
            "b.json",
            "--json",
            "--max-regression",
            "1000",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_success(&out);
    let cmp: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let points = cmp["points"].as_array().unwrap();
    assert_eq!(points.len(), 1, "{cmp}");
    assert_eq!(points[0]["point"], "bs=64k");
    let metrics: Vec<&str> = points[0]["directions"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["metric"].as_str().unwrap())
        .collect();
    assert_eq!(metrics, ["iops", "bw_bytes", "lat_p99_ns"]);
    assert_eq!(
        cmp["unmatched_points"],
        serde_json::json!(["bs=4k (base only)", "bs=128k (new only)"])
    );
    // A gate no point can pass names the point.
    let out = Command::new(BIN)
        .args(["compare", "a.json", "a.json", "--max-regression", "0"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_success(&out);
    assert_stdout_has(&out, "point by point (matched by the swept options):");
    assert_stdout_has(&out, "  bs=4k read: IOPS ");
}

#[test]
fn a_baseline_dir_that_is_missing_or_on_a_disk_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let out = sweep(
        dir.path(),
        &[
            "--baseline",
            "memory",
            "--baseline-dir",
            missing.to_str().unwrap(),
            "--points",
        ],
    );
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out),
        format!(
            "error: --baseline-dir {}: does not exist; give --baseline-dir a directory on \
             tmpfs, e.g. /dev/shm, or mount one: mount -t tmpfs tmpfs DIR\n",
            missing.display()
        )
    );
    // Under target/: on the disk the build is on, not a tmpfs.
    let disk = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let fs = run("stat", &["-f", "-c", "%T", disk.path().to_str().unwrap()]);
    assert_ne!(
        fs.trim(),
        "tmpfs",
        "the target directory is on tmpfs: move it to a disk"
    );
    // The others in this process (`support::inproc`), the directory as the target.
    let target = dir.path().to_str().unwrap();
    let err = sweep_refused(&[
        target,
        "--baseline",
        "memory",
        "--baseline-dir",
        disk.path().to_str().unwrap(),
        "--points",
    ]);
    assert!(
        err.starts_with(&format!(
            "error: --baseline-dir {}: not memory (file system magic 0x",
            disk.path().display()
        )) && err.ends_with(
            ", not tmpfs or ramfs): a baseline there measures a disk; give --baseline-dir a \
             directory on tmpfs, e.g. /dev/shm, or mount one: mount -t tmpfs tmpfs DIR\n"
        ) && err.lines().count() == 1,
        "{err}"
    );
    // Without --baseline memory, --baseline-dir has nothing to say.
    assert_eq!(
        sweep_refused(&[target, "--baseline-dir", "/dev/shm", "--points"]),
        "error: --baseline-dir /dev/shm is where the memory baseline runs; add --baseline \
         memory, or drop --baseline-dir\n"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
#[ignore = "needs root"]
fn a_baseline_tmpfs_too_small_for_the_working_set_says_how_big_it_must_be() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let shm = dir.path().join("shm");
    let mount = Mount::new(&["-t", "tmpfs", "-o", "size=8m", "tmpfs"], &shm);
    let shm_arg = shm.to_str().unwrap();
    let out = sweep(
        dir.path(),
        &[
            "--baseline",
            "memory",
            "--baseline-dir",
            shm_arg,
            "--size",
            "16M",
            "--points",
        ],
    );
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out),
        format!(
            "error: --baseline-dir {shm_arg}: 8 MiB free, the working set needs 16 MiB; it \
             must have at least 16 MiB free: lower --size, free space there, or remount it \
             larger (mount -o remount,size=SIZE {shm_arg})\n"
        )
    );
    // A working set that fits runs there.
    let out = sweep(
        dir.path(),
        &[
            "--rw",
            "write,read",
            "--bs",
            "64k",
            "--size",
            "4M",
            "--io-size",
            "4M",
            "--ioengine",
            "psync",
            "-q",
            "1",
            "--baseline",
            "memory",
            "--baseline-dir",
            shm_arg,
            "--json",
            "r.json",
        ],
    );
    assert_success(&out);
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 4);
    assert!(
        steps[3]["jobs"][0]["target"]["path"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{shm_arg}/")),
        "{}",
        steps[3]
    );
    // The scratch file is gone: the tmpfs unmounts clean.
    assert_eq!(std::fs::read_dir(&shm).unwrap().count(), 0);
    drop(mount);
}

#[test]
fn compare_of_a_sweep_with_a_regressed_point_fails_naming_it_and_draws_both_curves() {
    let dir = tempfile::tempdir().unwrap();
    let out = sweep(
        dir.path(),
        &[
            "--ioengine",
            "null",
            "--bs",
            "4k,64k,1M",
            "--size",
            "8M",
            "--runtime",
            "200ms",
            "--ramp",
            "0s",
            "--loops",
            "3",
            "--interval",
            "10ms",
            "--json",
            "a.json",
        ],
    );
    assert_success(&out);
    // B: the same sweep, its 1M point at a tenth of the rate in each of its 3 loops (a point of
    // 3 loops or more is judged on its loops). Null-engine loops under a loaded CPU (CI) spread
    // by tens of percent, enough for 3 samples' interval to reach the 10% limit, so A's 1M loops
    // are set to their mean within 1% first: the test is of the verdict, not of the machine.
    let mut a = read_json(&dir.path().join("a.json"));
    let ones: Vec<usize> = a["segments"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, p)| p["point"][0]["value"] == "1M")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(ones.len(), 3);
    for key in ["iops", "bw_bytes"] {
        let mean = ones
            .iter()
            .map(|&i| a["segments"][i]["read"][key].as_f64().unwrap())
            .sum::<f64>()
            / 3.0;
        for (n, &i) in ones.iter().enumerate() {
            let v = mean * (0.99 + 0.01 * n as f64);
            a["segments"][i]["read"][key] = if key == "iops" {
                serde_json::json!(v)
            } else {
                serde_json::json!(v as u64)
            };
        }
    }
    std::fs::write(dir.path().join("a.json"), a.to_string()).unwrap();
    let mut b = a.clone();
    let mut halved = 0;
    for point in b["segments"].as_array_mut().unwrap() {
        if point["point"][0]["value"] != "1M" {
            continue;
        }
        let read = &mut point["read"];
        read["iops"] = serde_json::json!(read["iops"].as_f64().unwrap() / 10.0);
        read["bw_bytes"] = serde_json::json!(read["bw_bytes"].as_u64().unwrap() / 10);
        halved += 1;
    }
    assert_eq!(halved, 3);
    std::fs::write(dir.path().join("b.json"), b.to_string()).unwrap();
    let out = Command::new(BIN)
        .args(["compare", "a.json", "b.json", "--max-regression", "10%"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out)
            .lines()
            .map(|l| l.split(" fell ").next().unwrap())
            .collect::<Vec<_>>(),
        [
            "regression: at bs=1M: read IOPS",
            "regression: at bs=1M: read bandwidth"
        ],
        "{}",
        stderr(&out)
    );
    assert_stderr_has(&out, "fell 90.0% (");
    assert_stdout_has(&out, "  bs=1M read: IOPS ");
    assert_stdout_has(&out, "max regression 10%: 2 regression(s), see stderr");
    // Both curves, bandwidth against block size: the chart's title, 10 rows, the axis and the
    // values under it.
    let text = stdout(&out);
    let chart: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("read bandwidth against bs (log scale): A base, B new"))
        .take(13)
        .collect();
    assert_eq!(chart.len(), 13, "{text}");
    assert!(chart[12].trim_start().starts_with("4k"), "{text}");
    assert!(chart[12].trim_end().ends_with("1M"), "{text}");
    // 1M's A at the top, its B near the bottom (each in a row of its own); 4k and 64k the same
    // in both (`*`).
    let rows: Vec<&str> = chart[1..11]
        .iter()
        .map(|l| l.split_once(['┤', '│']).unwrap().1)
        .collect();
    assert!(rows[0].ends_with('A'), "{text}");
    assert_eq!(rows.iter().filter(|l| l.contains('A')).count(), 1, "{text}");
    assert_eq!(rows.iter().filter(|l| l.contains('B')).count(), 1, "{text}");
    assert_eq!(
        rows.iter().map(|l| l.matches('*').count()).sum::<usize>(),
        2,
        "{text}"
    );
}

#[test]
fn markdown_and_json_tables_have_a_row_per_point() {
    let dir = tempfile::tempdir().unwrap();
    let run = |format: &str| {
        let out = sweep(
            dir.path(),
            &[
                "--ioengine",
                "null",
                "--bs",
                "4k,64k",
                "--size",
                "8M",
                "--runtime",
                "200ms",
                "--ramp",
                "0s",
                "--format",
                format,
            ],
        );
        assert_success(&out);
        stdout(&out)
    };
    let markdown = run("markdown");
    let lines: Vec<&str> = markdown.lines().collect();
    assert_eq!(
        lines[0],
        "| bs | read IOPS | read MB/s | read MiB/s | read mean | read p99 | bytes | elapsed | \
         %util | aqu-sz |  |",
        "{markdown}"
    );
    assert_eq!(
        lines[1],
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    assert!(lines[2].starts_with("| 4k | "), "{markdown}");
    assert!(
        lines[3].starts_with("| 64k | ") && lines[3].ends_with(" | best read |"),
        "{markdown}"
    );
    // The foot's statements follow the table.
    assert!(lines[4].starts_with("read peaks at 64k: "), "{markdown}");
    let json: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    assert_eq!(json["dimensions"], serde_json::json!(["bs"]));
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["point"], serde_json::json!([["bs", "4k"]]));
    assert_eq!(rows[1]["status"], "completed");
    assert!(rows[1]["read"]["bytes_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(rows[1]["write"]["ios"], 0);
    assert_eq!(json["best_read"], 1);
    assert_eq!(json["best_write"], serde_json::Value::Null);
}

#[test]
fn a_batching_value_above_a_shallow_points_depth_is_capped_there_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::File::create(&file)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let out = sweep(
        dir.path(),
        &[
            "f",
            "--iodepth",
            "2,8",
            "--iodepth-batch",
            "4",
            "--iodepth-batch-complete-min",
            "4",
            "--runtime",
            "300ms",
            "--ramp",
            "0s",
            "--format",
            "json",
            "--json",
            "r.json",
        ],
    );
    // The sweep runs: the shallow point with the values capped to its depth, the deep one
    // with the user's.
    assert_success(&out);
    let note = "iodepth_batch 4 -> 2, iodepth_batch_complete_min 4 -> 2 at iodepth 2";
    assert_stderr_has(&out, &format!("note: point iodepth=2: {note}\n"));
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    let used = |step: &serde_json::Value| {
        let job = &step["job"];
        (
            job["iodepth"].as_u64().unwrap(),
            job["iodepth_batch"].as_u64().unwrap(),
            job["iodepth_batch_complete_min"].as_u64().unwrap(),
        )
    };
    assert_eq!(used(&steps[0]), (2, 2, 2));
    assert_eq!(steps[0]["notes"], serde_json::json!([note]));
    assert_eq!(used(&steps[1]), (8, 4, 4));
    assert!(steps[1].get("notes").is_none(), "{}", steps[1]);
    // The table's rows say it too: the capped point's in one line, the other's not at all.
    let table: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows[0]["notes"], serde_json::json!([note]));
    assert!(rows[1].get("notes").is_none(), "{}", rows[1]);
    assert!(rows.iter().all(|r| r["status"] == "completed"), "{table}");
    // The CSV's last column: quoted, as the note holds a comma; empty for the other point.
    let out = sweep(
        dir.path(),
        &[
            "f",
            "--iodepth",
            "2,8",
            "--iodepth-batch",
            "4",
            "--iodepth-batch-complete-min",
            "4",
            "--runtime",
            "300ms",
            "--ramp",
            "0s",
            "--format",
            "csv",
        ],
    );
    assert_success(&out);
    let csv = stdout(&out);
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].ends_with(",page_cache,spread_pct,marks,notes"),
        "{csv}"
    );
    assert!(lines[1].ends_with(&format!(",\"{note}\"")), "{csv}");
    assert_eq!(lines[2].rsplit(',').next(), Some(""), "{csv}");
    // The plan says it before anything runs.
    let out = sweep(
        dir.path(),
        &[
            "f",
            "-q",
            "2,8",
            "--iodepth-batch",
            "4",
            "--iodepth-batch-complete-min",
            "4",
            "--points",
        ],
    );
    assert_success(&out);
    assert_eq!(
        stdout(&out),
        format!("   1  iodepth=2 ({note})\n   2  iodepth=8\n")
    );
}

#[test]
fn yes_lets_a_plan_over_the_limits_through() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--bs", "512..1M", "-q", "1..256", "-j", "1,2", "--loops", "3", "--points",
    ];
    let refused = sweep(dir.path(), &args);
    assert_usage_error(&refused);
    let out = sweep(dir.path(), &[&args[..], &["--yes"]].concat());
    assert_success(&out);
    assert_stderr_has(&out, "diskdash sweep: 216 points x 3 loops x 12s = 2h9m36s");
    let points = stdout(&out);
    assert_eq!(points.lines().count(), 216);
    assert_eq!(
        points.lines().last().unwrap(),
        " 216  bs=1M iodepth=256 numjobs=2"
    );
}

/// `script` run by python3 over `input` on its stdin: its stdout.
fn python(script: &str, input: &str) -> String {
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn csv_names_its_units_leaves_absent_cells_empty_and_gives_the_sync_bytes_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = sweep(
        dir.path(),
        &[
            "--rw",
            "randread,randwrite",
            "--bs",
            "4k",
            "--fsync",
            "1",
            "--size",
            "4M",
            "--io-size",
            "512k",
            "--runtime",
            "10s",
            "--format",
            "csv",
            "--json",
            "r.json",
        ],
    );
    assert_success(&out);
    let csv = stdout(&out);
    // Python's csv module reads every number as its type; a direction or a sync a point does
    // not have is an empty cell, not 0.
    let script = "import csv,sys\n\
        r=csv.DictReader(sys.stdin)\n\
        rows=list(r)\n\
        need=['rw','read_iops','read_mb_s','read_mib_s','read_mean_ns','read_p99_ns',\
        'write_iops','write_mb_s','write_mib_s','write_mean_ns','write_p99_ns','sync_mean_ns',\
        'sync_p99_ns','bytes','elapsed_ns','util_pct','aqu_sz','engine','ran_iodepth','status',\
        'page_cache','spread_pct','marks','notes']\n\
        print(r.fieldnames==need)\n\
        rd,wr=rows\n\
        print([rd[k] for k in need if k.startswith(('write_','sync_'))]==['']*7)\n\
        print([wr[k] for k in need if k.startswith('read_')]==['']*5)\n\
        print(int(rd['read_iops'])>0,float(rd['read_mib_s'])>0,int(rd['read_mean_ns'])>0,\
        int(rd['read_p99_ns'])>0)\n\
        print(int(wr['sync_mean_ns'])>0,int(wr['sync_p99_ns'])>0,int(wr['write_mean_ns'])>0)\n\
        print(int(rd['bytes']),int(wr['bytes']),int(rd['elapsed_ns'])>0,int(wr['elapsed_ns'])>0)\n\
        print(int(wr['ran_iodepth']),wr['status'],wr['page_cache'],repr(wr['notes']))\n\
        print(wr['sync_mean_ns'])";
    let parsed = python(script, &csv);
    let lines: Vec<&str> = parsed.lines().collect();
    assert_eq!(
        lines[..7],
        [
            "True",
            "True",
            "True",
            "True True True True",
            "True True True",
            "524288 524288 True True",
            "32 completed false ''",
        ],
        "{csv}"
    );
    // The sync columns are the record's fsync latency, which write latency leaves out.
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let sync = &record["segments"][1]["sync"];
    assert_eq!(sync["total_ios"], 128, "{sync}");
    assert_eq!(
        lines[7],
        format!("{:.0}", sync["lat_ns"]["mean"].as_f64().unwrap()),
        "{csv}"
    );
    assert_eq!(record["segments"][0]["sync"]["total_ios"], 0);
}

#[test]
fn sync_modes_are_swept_and_the_foot_says_whether_write_latency_includes_the_sync() {
    let dir = tempfile::tempdir().unwrap();
    let out = sweep(
        dir.path(),
        &[
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--sync",
            "none,dsync",
            "--fsync",
            "1",
            "--size",
            "4M",
            "--io-size",
            "256k",
            "--runtime",
            "10s",
            "--rate-iops",
            "4000",
            "--json",
            "r.json",
        ],
    );
    assert_success(&out);
    let table = stdout(&out);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("sync   write IOPS"), "{table}");
    // Column widths follow the values: compare the header's words.
    let header = lines[0].split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        header.contains("write p99 sync mean sync p99") && header.contains(" bytes elapsed "),
        "{table}"
    );
    assert!(lines[1].starts_with("none "), "{table}");
    assert!(lines[2].starts_with("dsync "), "{table}");
    // The dd study's answer on every row: the bytes moved and the time.
    for line in &lines[1..3] {
        assert!(line.contains("256 KiB  "), "{table}");
        assert!(line.contains(" s  "), "{table}");
    }
    assert!(
        table.contains(
            "write latency includes the sync where files were opened O_DSYNC (--sync): each \
             write returns once it is on the disk; the fsync/fdatasync calls are timed apart, in \
             the sync columns"
        ),
        "{table}"
    );
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(
        steps[1]["point"],
        serde_json::json!([{"option": "sync", "value": "dsync"}])
    );
    assert_eq!(steps[1]["job"]["sync"], "dsync");
    assert_eq!(steps[0]["job"]["sync"], serde_json::Value::Null);
    // An option set once applies to every point.
    for step in steps {
        assert_eq!(step["job"]["fsync"], 1, "{step}");
        assert!(step["job"]["rate"].is_object(), "{step}");
    }
}

/// Asserts `finding` matches the run record schema's `$defs/sweep_finding`.
fn assert_valid_finding(finding: &serde_json::Value) -> Result<(), String> {
    let full = read_json(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/schema/run-record.schema.json"),
    );
    let wrapper = serde_json::json!({
        "$schema": full["$schema"],
        "$defs": full["$defs"],
        "$ref": "#/$defs/sweep_finding",
    });
    let validator = crate::support::schema::validator_for(&wrapper).expect("the schema compiles");
    let errors = validator.errors(finding);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{finding} does not match: {}", errors.join("; ")))
    }
}

#[test]
fn the_json_table_and_the_record_carry_the_analysis_typed() {
    let dir = tempfile::tempdir().unwrap();
    let out = sweep(
        dir.path(),
        &[
            "--ioengine",
            "null",
            "-q",
            "1,4,16",
            "--size",
            "8M",
            "--runtime",
            "200ms",
            "--ramp",
            "0s",
            "--format",
            "json",
            "--json",
            "r.json",
        ],
    );
    assert_success(&out);
    let table: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let analysis = table["analysis"].as_array().unwrap();
    for finding in analysis {
        assert_valid_finding(finding).unwrap();
    }
    let peak = analysis.iter().find(|f| f["kind"] == "peak").unwrap();
    assert_eq!(peak["dimension"], "iodepth");
    assert_eq!(peak["direction"], "read");
    assert!(peak["value"].is_u64(), "{peak}");
    assert!(peak["bytes_per_s"].as_f64().unwrap() > 0.0);
    let best = analysis.iter().find(|f| f["kind"] == "best").unwrap();
    assert_eq!(best["row"], table["best_read"]);
    assert_eq!(
        best["point"][0]["value"],
        table["rows"][best["row"].as_u64().unwrap() as usize]["point"][0][1]
    );
    // The record stores the same analysis, not the sentences rendered from it.
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    assert_eq!(record["sweep"]["analysis"], table["analysis"]);
    assert!(record["sweep"].get("statements").is_none(), "{record}");
    // The schema holds: a knee without its p99, or with a value that is neither a number nor
    // a text, is refused.
    let knee = serde_json::json!({"kind": "knee", "dimension": "iodepth", "value": 4,
        "direction": "read", "iops": 1.0, "p99_ns": 10, "p99_limit_ns": 20});
    assert_valid_finding(&knee).unwrap();
    let mut broken = knee.clone();
    broken.as_object_mut().unwrap().remove("p99_ns");
    assert!(assert_valid_finding(&broken).is_err());
    broken = knee.clone();
    broken["value"] = serde_json::json!(4.5);
    assert!(assert_valid_finding(&broken).is_err());
}

fn data_file(path: &Path, bytes: usize) {
    std::fs::write(path, crate::support::pattern(bytes, 1)).unwrap();
}

#[test]
#[ignore = "needs root"]
fn a_page_cache_point_is_named_in_its_warning_flagged_in_its_row_and_never_the_best() {
    let _watch = crate::support::page_cache_watch();
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    data_file(&image, 16 << 20);
    // A device only this test uses: a shared disk's other readers would hide the cache.
    let dev = LoopDevice::attach_unique(&image);
    let out = sweep(
        dir.path(),
        &[
            dev.path().to_str().unwrap(),
            "--rw",
            "read",
            "--bs",
            "64k",
            "--direct",
            "yes,no",
            // Without fio's invalidate at each wrap, passes after the first read memory.
            "--invalidate",
            "0",
            "--runtime",
            "1s",
            "--ramp",
            "0s",
            "--json",
            "r.json",
        ],
    );
    assert_success(&out);
    assert_stderr_has(&out, "WARNING: PAGE CACHE: point direct=no: the run moved");
    assert!(
        !stderr(&out).contains("point direct=yes"),
        "{}",
        stderr(&out)
    );
    let table = stdout(&out);
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines[1].starts_with("yes ") && lines[1].ends_with("  best read"),
        "{table}"
    );
    assert!(
        lines[2].starts_with("no ") && lines[2].ends_with("  PAGE CACHE: measures memory"),
        "{table}"
    );
    assert!(
        table.contains("PAGE CACHE: 1 of 2 points measured memory, not the disk (direct=no): "),
        "{table}"
    );
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let warning = record["typed_warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "page_cache")
        .unwrap()
        .clone();
    assert_eq!(warning["segment"], 1, "{warning}");
    assert_eq!(warning["point"], "direct=no", "{warning}");
    let best = record["sweep"]["analysis"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "best")
        .unwrap()
        .clone();
    assert_eq!(best["row"], 0, "{best}");
}

/// `sweep` and `mark` take the same `--pick` words and `--format` names.
#[test]
fn pick_and_format_take_marks_spellings() {
    let dir = tempfile::tempdir().unwrap();
    let out = sweep(
        dir.path(),
        &[
            "--bs",
            "4k",
            "--loops",
            "2",
            "--pick",
            "avg",
            "--format",
            "text",
            "--size",
            "4M",
            "--runtime",
            "100ms",
            "--ramp",
            "0s",
        ],
    );
    assert_success(&out);
    assert_stdout_has(&out, "read IOPS");
}

/// `diskdash sweep ARGS --no-tui` judged by the default trust limits (or those in `args`),
/// after the default idle baseline (the suite's runs skip it: `support::IDLE_WINDOW_ENV`).
fn sweep_judged(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .env_remove(IDLE_WINDOW_ENV)
        .arg("sweep")
        .args(args)
        .arg("--no-tui")
        .current_dir(dir)
        .output()
        .expect("diskdash runs")
}

#[test]
fn a_4_io_point_is_short_and_never_the_best() {
    let dir = tempfile::tempdir().unwrap();
    // 4M at 4k is 1024 I/Os; at 1M it is 4, and far more MB/s: the best by bandwidth alone.
    // The time limit is off (the null engine is done in a blink); the I/O count judges.
    let out = sweep_judged(
        dir.path(),
        &[
            "--ioengine",
            "null",
            "--rw",
            "read",
            // 4 I/Os of 1M against 8,192 of 512 bytes: the null engine's cost is per I/O, so
            // the short point's bytes per second are far above the other's even when its
            // start-up dominates (against 1,024 of 4k, a loaded machine once made it slower).
            "--bs",
            "512,1M",
            "--size",
            "8M",
            "--io-size",
            "4M",
            "--trust-min-time",
            "0",
            "--trust-spread-pct",
            "1e12",
            "--format",
            "json",
            "--json",
            "r.json",
        ],
    );
    assert_success(&out);
    let table: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows[0]["trust"]["ios"], 8192, "{table}");
    assert_eq!(rows[0]["trust"]["marks"], serde_json::json!([]), "{table}");
    assert_eq!(rows[1]["trust"]["ios"], 4, "{table}");
    assert_eq!(
        rows[1]["trust"]["marks"],
        serde_json::json!(["short"]),
        "{table}"
    );
    assert!(
        rows[1]["read"]["bytes_per_s"].as_f64() > rows[0]["read"]["bytes_per_s"].as_f64(),
        "{table}"
    );
    assert_eq!(table["best_read"], 0, "{table}");
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps[1]["trust"]["marks"], serde_json::json!(["short"]));
    assert_eq!(record["trust"]["marks"], serde_json::json!(["short"]));
    assert_eq!(record["trust_limits"]["min_ios"], 1000);
    // The swept value stays as written, its number beside it.
    assert_eq!(
        steps[1]["point"][0],
        serde_json::json!({"option": "bs", "value": "1M", "number": 1_048_576})
    );
    let analysis = record["sweep"]["analysis"].as_array().unwrap();
    let best = analysis
        .iter()
        .find(|f| f["kind"] == "best" && f["direction"] == "read")
        .unwrap();
    assert_eq!(best["point"][0]["value"], "512", "{best}");
    assert!(
        !analysis
            .iter()
            .any(|f| f["kind"] == "peak" && f["value"] == "1M"),
        "{analysis:?}"
    );
    // The text table says the mark in the row and why under it.
    let out = sweep_judged(
        dir.path(),
        &[
            "--ioengine",
            "null",
            "--rw",
            "read",
            // 4 I/Os of 1M against 8,192 of 512 bytes: the null engine's cost is per I/O, so
            // the short point's bytes per second are far above the other's even when its
            // start-up dominates (against 1,024 of 4k, a loaded machine once made it slower).
            "--bs",
            "512,1M",
            "--size",
            "8M",
            "--io-size",
            "4M",
            "--trust-min-time",
            "0",
            "--trust-spread-pct",
            "1e12",
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    let row = |bs: &str| {
        text.lines()
            .find(|l| l.starts_with(bs))
            .unwrap()
            .to_string()
    };
    assert!(row("512 ").ends_with("best read"), "{text}");
    assert!(row("1M ").ends_with("  short"), "{text}");
    assert!(
        text.contains("NOT RELIABLE: 1 of 2 points are marked (short 1)"),
        "{text}"
    );
}

#[test]
#[ignore = "needs fio"]
fn a_sweep_on_a_disk_a_background_fio_writes_to_is_marked_shared() {
    let dir = tempfile::tempdir().unwrap();
    // Another process writes to the same disk, from before the sweep and all through it.
    let mut fio = Command::new("fio")
        .args([
            "--name=other",
            // A thread of the one process: killing fio ends its I/O.
            "--thread",
            "--filename=other.dat",
            "--rw=write",
            "--bs=1M",
            "--size=128M",
            "--direct=1",
            "--ioengine=psync",
            "--time_based",
            "--runtime=30",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("fio starts");
    std::thread::sleep(std::time::Duration::from_millis(800));
    let out = sweep_judged(
        dir.path(),
        &[
            "--rw",
            "randread",
            "--bs",
            "4k,8k",
            "--iodepth",
            "1",
            "--size",
            "8M",
            "--runtime",
            "1s",
            "--ramp",
            "0s",
            "--format",
            "json",
            "--json",
            "r.json",
        ],
    );
    let _ = fio.kill();
    let _ = fio.wait();
    assert_success(&out);
    let table: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    for row in table["rows"].as_array().unwrap() {
        let marks = row["trust"]["marks"].as_array().unwrap();
        assert!(marks.contains(&"shared".into()), "{row}");
        assert!(row["trust"]["device_share"].as_f64().is_some(), "{row}");
    }
    assert_eq!(table["best_read"], serde_json::Value::Null, "{table}");
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    assert!(
        record["trust"]["marks"]
            .as_array()
            .unwrap()
            .contains(&"shared".into()),
        "{}",
        record["trust"]
    );
    assert_eq!(record["trust_limits"]["idle_window_ns"], 250_000_000);
    // The baseline is the disk's own rate over that window.
    let idle = record["trust_limits"]["idle"].as_array().unwrap();
    assert_eq!(idle.len(), 1, "{}", record["trust_limits"]);
    assert!(idle[0]["bytes_per_s"].as_f64().is_some(), "{}", idle[0]);
}
