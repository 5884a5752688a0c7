//! `diskdash mark` on a real scratch file with tiny settings: the table's rows, the record (one
//! step per loop of each measurement, valid against the schema), the CSV, and bad input.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::record::{assert_valid_record, leftovers};
use crate::support::*;

const TINY: [&str; 7] = [
    "--size",
    "16M",
    "--runtime",
    "100ms",
    "--loops",
    "2",
    "--no-tui",
];

/// `diskdash mark ARGS` in `dir`, headless, io_uring allowed.
fn mark(dir: &Path, args: &[&str]) -> Output {
    // As root, mark drops the page cache before each loop (KDiskMark's rules).
    let _drops = crate::support::page_cache_drop_turn();
    Command::new(BIN)
        .arg("mark")
        .args(args)
        .current_dir(dir)
        .env_remove("DISKDASH_URING_DISABLED")
        .output()
        .expect("running diskdash")
}

const DEFAULT_TESTS: [&str; 4] = ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"];

#[test]
fn the_default_profile_prints_four_rows_and_records_every_loop() {
    let dir = tempfile::tempdir().unwrap();
    let out = mark(dir.path(), &[&TINY[..], &["--json", "r.json"]].concat());
    assert_success(&out);
    let text = stdout(&out);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| DEFAULT_TESTS.iter().any(|t| l.starts_with(t)))
        .collect();
    assert_eq!(rows.len(), 4, "{text}");
    for (row, test) in rows.iter().zip(DEFAULT_TESTS) {
        assert!(row.starts_with(test), "{text}");
        // Read and write both measured: no empty cell.
        assert!(!row.contains(" - "), "{text}");
    }
    assert!(
        text.contains(
            "profile default: 2 loops of 100ms per measurement (the first after a 100ms \
             warm-up), the best of them"
        ),
        "{text}"
    );
    assert!(text.contains("16 MiB working set"), "{text}");
    assert_stderr_has(&out, "diskdash mark: step 16/16");

    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    assert_eq!(record["status"], "completed");
    let steps = record["segments"].as_array().unwrap();
    // 4 tests x (read, write) x 2 loops, reads of every test first (CrystalDiskMark's order).
    assert_eq!(steps.len(), 16);
    let rw: Vec<&str> = steps
        .iter()
        .map(|s| s["job"]["rw"].as_str().unwrap())
        .collect();
    assert_eq!(
        rw,
        [
            "read",
            "read",
            "read",
            "read",
            "randread",
            "randread",
            "randread",
            "randread",
            "write",
            "write",
            "write",
            "write",
            "randwrite",
            "randwrite",
            "randwrite",
            "randwrite"
        ]
    );
    let names: Vec<&str> = steps
        .iter()
        .map(|s| s["jobs"][0]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[0], "SEQ1M Q8T1 read 1/2");
    assert_eq!(names[15], "RND4K Q1T1 write 2/2");
    // Each step is a point, as a sweep's: the dashboard's results panel and `show` name it.
    assert_eq!(
        steps[0]["point"],
        serde_json::json!([
            {"option": "measure", "value": "read"},
            {"option": "test", "value": "SEQ1M Q8T1"}
        ])
    );
    assert_eq!(steps[15]["point"][0]["value"], "write");
    assert_eq!(steps[15]["point"][1]["value"], "RND4K Q1T1");
    let seq_q8 = &steps[0]["job"];
    assert_eq!(
        (seq_q8["bs"].as_u64(), seq_q8["iodepth"].as_u64()),
        (Some(1 << 20), Some(8))
    );
    assert_eq!(steps[0]["job"]["direct"], true);
    // One working set, filled once and removed.
    assert_eq!(record["target"]["kind"], "scratch");
    assert_eq!(record["target"]["scratch_removed"], true);
    assert_eq!(
        record["target"]["working_set_bytes"].as_u64(),
        Some(16 << 20)
    );
    let bytes_per_s = |s: &Value, dir: &str| s[dir]["bw_bytes"].as_u64().unwrap();
    assert!(steps[..8].iter().all(|s| bytes_per_s(s, "read") > 0));
    assert!(steps[8..].iter().all(|s| bytes_per_s(s, "write") > 0));
    // The table's SEQ1M Q8T1 read is the best of its two loops, in decimal MB/s.
    let best = bytes_per_s(&steps[0], "read").max(bytes_per_s(&steps[1], "read"));
    let mb_s = format!("{:.2}", best as f64 / 1e6);
    assert!(rows[0].contains(&mb_s), "{mb_s} not in {}", rows[0]);
}

#[test]
fn csv_parses_with_one_row_per_test_and_the_mix_columns() {
    let dir = tempfile::tempdir().unwrap();
    let out = mark(
        dir.path(),
        &[
            &TINY[..],
            &["--profile", "peak", "--mix", "70", "--format", "csv"],
        ]
        .concat(),
    );
    assert_success(&out);
    let text = stdout(&out);
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    let header = &lines[0];
    assert_eq!(header[0], "test");
    assert!(header.contains(&"mix_mb_s") && header.contains(&"write_lat_mean_us"));
    assert_eq!(lines.len(), 3, "{text}");
    let tests: Vec<&str> = lines[1..].iter().map(|l| l[0]).collect();
    assert_eq!(tests, ["SEQ1M Q8T1", "RND4K Q32T1"]);
    for line in &lines[1..] {
        assert_eq!(line.len(), header.len(), "{text}");
        for (name, value) in header.iter().zip(line).skip(1).take(9) {
            let v: f64 = value
                .parse()
                .unwrap_or_else(|_| panic!("{name} {value:?} is not a number: {text}"));
            assert!(v > 0.0, "{name} is {v}: {text}");
        }
        assert_eq!(&line[10..13], ["peak", "2", "best"]);
    }
    assert!(leftovers(dir.path(), &[]).is_empty());
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 9] = [
        (
            &["--mode", "both"],
            "error: --mode \"both\" is not a mode; use all, read (reads and any --mix) or write \
             (writes and any --mix)\n",
        ),
        (
            &["--like", "atto"],
            "error: --like \"atto\" is not a rule set; use crystaldiskmark or kdiskmark\n",
        ),
        (
            &["--like", "kdiskmark", "--pause", "soon"],
            "error: --pause \"soon\" is not a duration; use e.g. 5s, 500ms or 0 (KDiskMark's is \
             5s)\n",
        ),
        (
            &["--profile", "fast"],
            "error: --profile \"fast\" is not a profile; use default, peak, realworld, demo, nvme, \
             peak-nvme\n",
        ),
        (
            &["--loops", "0"],
            "error: --loops \"0\" is not a number of loops; use 1 to 100 (CrystalDiskMark's \
             default is 5)\n",
        ),
        (
            &["--mix", "101"],
            "error: --mix \"101\" is not a percentage of reads; use 0 to 100 \
             (CrystalDiskMark's default is 70)\n",
        ),
        (
            &["--pick", "top"],
            "error: --pick \"top\" is not a rule; use best (CrystalDiskMark's), mean \
             (KDiskMark's) or median\n",
        ),
        (
            &["--format", "xml"],
            "error: --format \"xml\" is not a format; use table, markdown, csv or json\n",
        ),
        (
            &["--size", "1k"],
            "error: --size 1k is smaller than one block of SEQ1M Q1T1 (1M); use --size 1M or \
             more (the default is 1G)\n",
        ),
    ];
    for (args, want) in cases {
        let all = [&["mark"], args, &["--no-tui"]].concat();
        assert_eq!(inproc::usage_error(&all), want, "{args:?}");
    }
    // End to end once: one line on stderr, nothing on stdout, exit 2.
    let (args, want) = cases[0];
    let out = mark(dir.path(), &[args, &["--no-tui"]].concat());
    assert_usage_error(&out);
    assert_eq!(stderr(&out), want);
    assert!(out.stdout.is_empty());
    // A file with data is not written over without the opt-in, before anything runs.
    let file = dir.path().join("data.img");
    std::fs::write(&file, b"data").unwrap();
    let out = mark(dir.path(), &["data.img", "--no-tui"]);
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out),
        "error: refusing to write to data.img: it holds 4 B of data; pass --allow-destructive \
         to overwrite it\n"
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"data");
    assert_eq!(
        leftovers(dir.path(), &["data.img"]),
        Vec::<std::path::PathBuf>::new()
    );
}

/// On an existing file, with the opt-in: the reads come first, the writes after them find the
/// file open for writing.
#[test]
fn an_existing_file_with_the_opt_in_is_read_then_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data.img");
    std::fs::write(&file, vec![7u8; 16 << 20]).unwrap();
    let out = mark(
        dir.path(),
        &[
            "data.img",
            "--allow-destructive",
            "--profile",
            "realworld",
            "--size",
            "16M",
            "--runtime",
            "100ms",
            "--loops",
            "1",
            "--json",
            "r.json",
            "--no-tui",
        ],
    );
    assert_success(&out);
    let record = read_json(&dir.path().join("r.json"));
    let steps = record["segments"].as_array().unwrap();
    assert!(
        steps
            .iter()
            .any(|s| s["read"]["total_ios"].as_u64().unwrap() > 0)
    );
    assert!(
        steps
            .iter()
            .any(|s| s["write"]["total_ios"].as_u64().unwrap() > 0)
    );
    assert!(steps.iter().all(|s| s["status"] == "completed"));
    // The file stays (it was not diskdash's to remove).
    assert!(file.exists());
}

/// fio's whole KiB/s of a loop's one job in `dir`, over 1000: KDiskMark's MB/s.
fn kdiskmark_mb_s(step: &Value, dir: &str) -> f64 {
    let kib = step["jobs"][0][dir]["bw"].as_u64().unwrap() as f64;
    kib / 1000.0
}

#[test]
fn like_kdiskmark_runs_its_rules_and_says_so_in_the_window_and_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let out = mark(
        dir.path(),
        &[
            "--profile",
            "peak",
            "--like",
            "kdiskmark",
            "--mix",
            "--size",
            "2M",
            "--runtime",
            "300ms",
            "--loops",
            "2",
            "--pause",
            "100ms",
            "--no-tui",
            "--json",
            "r.json",
            "--format",
            "json",
        ],
    );
    assert_success(&out);
    let summary: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(summary["like"], "kdiskmark");
    assert_eq!(summary["pick"], "best");
    assert_eq!(summary["mb_bytes"], 1_024_000);
    // `--mix` alone is 70% reads, KDiskMark's default.
    assert_eq!(summary["mix_read_pct"], 70);
    assert!(
        summary["rules"]
            .as_str()
            .unwrap()
            .contains("100ms pause before each test")
    );
    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    let notes: Vec<&str> = record["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("diskdash mark: rules: kdiskmark (size-based loops")),
        "{notes:?}"
    );
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 12);
    // No warm-up; a pause before the first loop of each test but the very first.
    assert!(steps.iter().all(|s| s["job"]["ramp_ns"] == 0));
    let delays: Vec<u64> = steps
        .iter()
        .map(|s| s["job"]["startdelay_ns"].as_u64().unwrap_or(0) / 1_000_000)
        .collect();
    assert_eq!(delays, [0, 0, 100, 0, 100, 0, 100, 0, 100, 0, 100, 0]);
    // The pause is not measured time: a paused loop's own rates are its job's, as fio's
    // group runtime leaves the start delay out.
    for s in steps {
        for dir in ["read", "write"] {
            assert_eq!(s[dir]["bw"], s["jobs"][0][dir]["bw"], "{dir}: {s}");
        }
        assert_eq!(s["elapsed_ns"], s["jobs"][0]["elapsed_ns"]);
    }
    // Size-based: each loop moves the 2 MiB working set (or stops at the 300ms cap).
    for s in steps {
        let moved = s["jobs"][0]["read"]["io_bytes"].as_u64().unwrap()
            + s["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
        let elapsed = s["jobs"][0]["elapsed_ns"].as_u64().unwrap();
        assert!(
            moved == 2 << 20 || elapsed >= 300_000_000,
            "{moved} bytes in {elapsed} ns"
        );
    }
    // The best of the loops, in fio's KiB/s over 1000; the mix weighed 70/30.
    let rows = summary["rows"].as_array().unwrap();
    let best = |a: f64, b: f64| a.max(b);
    let seq_read = best(
        kdiskmark_mb_s(&steps[0], "read"),
        kdiskmark_mb_s(&steps[1], "read"),
    );
    assert!((rows[0]["read"]["mb_s"].as_f64().unwrap() - seq_read).abs() < 1e-9);
    let mix_read = best(
        kdiskmark_mb_s(&steps[8], "read"),
        kdiskmark_mb_s(&steps[9], "read"),
    );
    let mix_write = best(
        kdiskmark_mb_s(&steps[8], "write"),
        kdiskmark_mb_s(&steps[9], "write"),
    );
    let mix = rows[0]["mix"]["mb_s"].as_f64().unwrap();
    assert!(
        (mix - (mix_read * 70.0 + mix_write * 30.0) / 100.0).abs() < 1e-6,
        "{mix} from {mix_read} and {mix_write}"
    );
    assert!(leftovers(dir.path(), &["r.json"]).is_empty());
}

#[test]
fn the_demo_profile_is_one_sequential_test_under_crystaldiskmarks_rules() {
    let dir = tempfile::tempdir().unwrap();
    let out = mark(
        dir.path(),
        &[
            "--profile",
            "demo",
            "--size",
            "16M",
            "--runtime",
            "200ms",
            "--loops",
            "1",
            "--no-tui",
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("SEQ")).collect();
    assert_eq!(rows.len(), 1, "{text}");
    assert!(rows[0].starts_with("SEQ1M Q8T1"), "{text}");
    assert!(
        text.contains("rules: crystaldiskmark (time-based loops, the first warmed up"),
        "{text}"
    );
    assert!(text.contains("MB/s = 10^6 bytes/s"), "{text}");
}

/// KDiskMark's fio command lines (`src/helper.cpp`: the layout, then one per loop), through
/// `diskdash fio`: the layout creates and fills the file and measures nothing, the loops run
/// size-based and print fio's JSON, whose `bw` KDiskMark divides by 1000.
#[test]
fn kdiskmarks_own_fio_command_lines_run_under_diskdash_fio() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(".kdiskmark.tmp");
    let filename = format!("--filename={}", file.display());
    let fio = |args: &[&str]| {
        Command::new(BIN)
            .arg("fio")
            .args(args)
            .current_dir(dir.path())
            .env_remove("DISKDASH_URING_DISABLED")
            .output()
            .expect("running diskdash")
    };
    let prepare = fio(&[
        "--output-format=json",
        "--create_only=1",
        &filename,
        "--size=16m",
        "--zero_buffers=0",
        "--name=prepare",
    ]);
    assert_success(&prepare);
    assert_stderr_has(&prepare, "laid out");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 16 << 20);
    // Laid out with data, not a sparse file: every block is allocated.
    use std::os::unix::fs::MetadataExt;
    assert!(std::fs::metadata(&file).unwrap().blocks() * 512 >= 16 << 20);
    // Laying out again leaves the file as it is.
    let again = fio(&["--create_only=1", &filename, "--size=16m", "--name=prepare"]);
    assert_success(&again);
    assert_stderr_has(&again, "exists; left as it is");

    for (rw, bs, q, t) in [
        ("read", "1024k", "8", "1"),
        ("randwrite", "4k", "32", "16"),
        ("randrw", "4k", "1", "1"),
    ] {
        let name = format!("--name={rw}");
        let bs = format!("--bs={bs}");
        let rw_arg = format!("--rw={rw}");
        let q = format!("--iodepth={q}");
        let t = format!("--numjobs={t}");
        let mut args = vec![
            "--output-format=json",
            "--ioengine=libaio",
            "--randrepeat=0",
            "--refill_buffers",
            "--end_fsync=1",
            "--direct=1",
            "--rwmixread=70",
            &filename,
            &name,
            "--size=16m",
            "--zero_buffers=0",
            &bs,
            "--runtime=1",
            &rw_arg,
            &q,
            &t,
        ];
        // The file holds data: writing it needs the opt-in (the Safety model), which
        // KDiskMark's line does not carry.
        if rw != "read" {
            args.push("--allow-destructive");
        }
        let out = fio(&args);
        assert_success(&out);
        let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let jobs = report["jobs"].as_array().unwrap();
        assert!(!jobs.is_empty(), "{report}");
        let sum = |dir: &str, key: &str| -> u64 {
            jobs.iter().map(|j| j[dir][key].as_u64().unwrap()).sum()
        };
        let moved = sum("read", "io_bytes") + sum("write", "io_bytes");
        let runtime_ms = jobs
            .iter()
            .map(|j| {
                j["read"]["runtime"]
                    .as_u64()
                    .unwrap()
                    .max(j["write"]["runtime"].as_u64().unwrap())
            })
            .max()
            .unwrap();
        // Size-based: 16 MiB per thread unless the 1 s cap came first.
        let threads: u64 = t.trim_start_matches("--numjobs=").parse().unwrap();
        assert!(
            moved == threads * (16 << 20) || runtime_ms >= 990,
            "{rw}: {moved} bytes in {runtime_ms} ms"
        );
        assert!(sum("read", "bw") + sum("write", "bw") > 0, "{rw}: {report}");
        assert!(jobs[0]["read"]["clat_ns"]["mean"].is_number(), "{report}");
    }
    // KDiskMark's "Zeros" test data: the same line with --zero_buffers=1 writes zeros.
    let out = fio(&[
        "--output-format=json",
        "--ioengine=libaio",
        "--randrepeat=0",
        "--refill_buffers",
        "--end_fsync=1",
        "--direct=1",
        &filename,
        "--name=write",
        "--size=16m",
        "--zero_buffers=1",
        "--bs=1024k",
        "--runtime=5",
        "--rw=write",
        "--iodepth=8",
        "--numjobs=1",
        "--allow-destructive",
    ]);
    assert_success(&out);
    let data = std::fs::read(&file).unwrap();
    assert_eq!(data.len(), 16 << 20);
    assert!(
        data.iter().all(|&b| b == 0),
        "--zero_buffers=1 wrote non-zero bytes"
    );
    // The file stays, as KDiskMark removes it itself.
    assert!(file.exists());
}

/// `--mode read` writes nothing, so an existing file with data needs no opt-in, and the
/// window has no Write column.
#[test]
fn read_mode_reads_a_file_with_data_without_the_opt_in() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data.img");
    let data = crate::support::pattern(16 << 20, 0);
    std::fs::write(&file, &data).unwrap();
    let out = mark(
        dir.path(),
        &[
            "data.img",
            "--mode",
            "read",
            "--like",
            "kdiskmark",
            "--pause",
            "0",
            "--profile",
            "realworld",
            "--runtime",
            "100ms",
            "--loops",
            "1",
            "--no-tui",
            "--json",
            "r.json",
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        text.lines().next().unwrap().contains("Read [MB/s]"),
        "{text}"
    );
    assert!(!text.contains("Write [MB/s]"), "{text}");
    assert!(text.contains("mode read: reads only"), "{text}");
    let record = read_json(&dir.path().join("r.json"));
    let rw: Vec<&str> = record["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["job"]["rw"].as_str().unwrap())
        .collect();
    assert_eq!(rw, ["read", "randread"]);
    assert_eq!(std::fs::read(&file).unwrap(), data);
}

/// The 1 MiB blocks of `path`.
fn mib_blocks(path: &Path) -> Vec<Vec<u8>> {
    std::fs::read(path)
        .unwrap()
        .chunks(1 << 20)
        .map(<[u8]>::to_vec)
        .collect()
}

/// KDiskMark's one write pass of a 16 MiB file with SEQ1M Q8T1 (16 writes through 8 buffers),
/// with `data` (`--data`), into an empty file; the file afterwards.
fn kdiskmark_write_pass(data: &str) -> (Output, Vec<Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.bin");
    std::fs::File::create(&file).unwrap();
    let out = mark(
        dir.path(),
        &[
            "--like",
            "kdiskmark",
            "--profile",
            "demo",
            "--mode",
            "write",
            "--data",
            data,
            "--size",
            "16M",
            "--loops",
            "1",
            "--runtime",
            "1s",
            "--pause",
            "0",
            "--no-flush-cache",
            "--no-tui",
            "t.bin",
        ],
    );
    let blocks = mib_blocks(&file);
    (out, blocks)
}

#[test]
fn data_zero_writes_zeros_and_refill_refills_every_write_as_kdiskmark_does() {
    let (out, blocks) = kdiskmark_write_pass("zero");
    assert_success(&out);
    assert_eq!(blocks.len(), 16);
    assert!(
        blocks.iter().all(|b| b.iter().all(|&x| x == 0)),
        "--data zero left non-zero bytes"
    );
    let text = stdout(&out);
    assert!(
        text.contains(
            "data zeros, page cache NOT flushed (--no-flush-cache; KDiskMark flushes it))"
        ),
        "{text}"
    );

    // KDiskMark 3.3's default random data is filled once: 16 writes through 8 buffers write
    // each buffer twice.
    let (out, blocks) = kdiskmark_write_pass("random");
    assert_success(&out);
    let distinct: std::collections::HashSet<&Vec<u8>> = blocks.iter().collect();
    assert!(distinct.len() <= 8, "{} distinct blocks", distinct.len());
    assert!(blocks.iter().all(|b| b.iter().any(|&x| x != 0)));
    assert!(
        stdout(&out).contains("data random (filled once)"),
        "{}",
        stdout(&out)
    );
    // Refilled before each write ("Continuous generation"): no two alike.
    let (out, blocks) = kdiskmark_write_pass("refill");
    assert_success(&out);
    assert_eq!(blocks.len(), 16);
    let distinct: std::collections::HashSet<&Vec<u8>> = blocks.iter().collect();
    assert_eq!(
        distinct.len(),
        16,
        "repeated 1 MiB blocks: buffers were not refilled"
    );
    assert!(blocks.iter().all(|b| b.iter().any(|&x| x != 0)));
    assert!(
        stdout(&out).contains("data random (refilled before each write)"),
        "{}",
        stdout(&out)
    );
    // Refused in this process (`support::inproc`), a scratch directory as the target.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().to_str().unwrap();
    assert_eq!(
        inproc::usage_error(&["mark", target, "--data", "ones", "--no-tui"]),
        "error: --data \"ones\" is not a kind of test data; use random, refill or zero \
         (KDiskMark's \"Random\", \"Continuous generation\" and \"Zeros\")\n"
    );
    assert!(leftovers(dir.path(), &[]).is_empty());
}

/// Bytes of `path` in the page cache, as util-linux's `fincore` counts them.
fn resident_bytes(path: &Path) -> u64 {
    let out = Command::new("fincore")
        .args(["--bytes", "--noheadings", "--output", "RES"])
        .arg(path)
        .output()
        .expect("fincore (util-linux)");
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out).trim().parse().unwrap()
}

#[test]
#[ignore = "needs root"]
fn flush_cache_drops_the_page_cache_before_each_loop_as_kdiskmark_does() {
    let _watch = crate::support::page_cache_watch();
    require_root();
    let dir = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
    // A file in the page cache, clean (synced), that the run never touches.
    let cached = dir.path().join("cached.bin");
    std::fs::write(&cached, vec![7u8; 4 << 20]).unwrap();
    std::fs::File::open(&cached).unwrap().sync_all().unwrap();
    let _ = std::fs::read(&cached).unwrap();
    let run = |extra: &[&str]| {
        mark(
            dir.path(),
            &[
                &[
                    "--like",
                    "kdiskmark",
                    "--profile",
                    "demo",
                    "--mode",
                    "read",
                    "--size",
                    "4M",
                    "--loops",
                    "1",
                    "--runtime",
                    "200ms",
                    "--pause",
                    "0",
                    "--no-tui",
                ][..],
                extra,
            ]
            .concat(),
        )
    };
    // --no-flush-cache keeps the cached file cached.
    assert!(resident_bytes(&cached) > 0);
    let out = run(&["--no-flush-cache"]);
    assert_success(&out);
    assert!(
        resident_bytes(&cached) > 0,
        "a run with --no-flush-cache dropped the cache"
    );
    // KDiskMark's default, as root: dropped before each loop.
    let out = run(&[]);
    assert_success(&out);
    assert_eq!(
        resident_bytes(&cached),
        0,
        "kdiskmark's default kept the cache"
    );
    let _ = std::fs::read(&cached).unwrap();
    let out = run(&["--flush-cache"]);
    assert_success(&out);
    assert_eq!(
        resident_bytes(&cached),
        0,
        "--flush-cache left the page cache"
    );
    let text = stdout(&out);
    assert!(
        text.contains("page cache dropped before each loop (1 > /proc/sys/vm/drop_caches)"),
        "{text}"
    );

    // Without root: one line, exit 1, before anything is written.
    let open = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(open.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = Command::new("setpriv")
        .args([
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            BIN,
            "mark",
        ])
        .args([
            "--flush-cache",
            "--profile",
            "demo",
            "--size",
            "4M",
            "--no-tui",
        ])
        .current_dir(open.path())
        .output()
        .expect("setpriv (util-linux)");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "error: --flush-cache: cannot open /proc/sys/vm/drop_caches for writing: Permission \
         denied (os error 13); run diskdash mark as root, or drop --flush-cache\n"
    );
    assert_eq!(std::fs::read_dir(open.path()).unwrap().count(), 0);
}
