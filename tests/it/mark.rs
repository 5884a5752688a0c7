//! `diskdash mark` on a real scratch file with tiny settings: the table's rows, the record (one
//! segment per loop of each measurement, valid against the schema), the CSV, and bad input.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::record::{assert_valid_record, leftovers};
use crate::support::*;

const TINY: [&str; 7] = [
    "--size",
    "16M",
    "--runtime",
    "300ms",
    "--loops",
    "2",
    "--no-tui",
];

/// `diskdash mark ARGS` in `dir`, headless, io_uring allowed.
fn mark(dir: &Path, args: &[&str]) -> Output {
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
            "profile default: 2 loops of 300ms per measurement (the first after a 300ms \
             warm-up), the best of them"
        ),
        "{text}"
    );
    assert!(text.contains("16 MiB working set"), "{text}");
    assert_stderr_has(&out, "diskdash mark: step 16/16");

    let record = read_json(&dir.path().join("r.json"));
    assert_valid_record(&record);
    assert_eq!(record["status"], "completed");
    let segments = record["segments"].as_array().unwrap();
    // 4 tests x (read, write) x 2 loops, reads of every test first (CrystalDiskMark's order).
    assert_eq!(segments.len(), 16);
    let rw: Vec<&str> = segments
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
    let names: Vec<&str> = segments
        .iter()
        .map(|s| s["jobs"][0]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[0], "SEQ1M Q8T1 read 1/2");
    assert_eq!(names[15], "RND4K Q1T1 write 2/2");
    // Each step is a point, as a sweep's: the dashboard's results panel and `show` name it.
    assert_eq!(
        segments[0]["point"],
        serde_json::json!([
            {"option": "measure", "value": "read"},
            {"option": "test", "value": "SEQ1M Q8T1"}
        ])
    );
    assert_eq!(segments[15]["point"][0]["value"], "write");
    assert_eq!(segments[15]["point"][1]["value"], "RND4K Q1T1");
    let seq_q8 = &segments[0]["job"];
    assert_eq!(
        (seq_q8["bs"].as_u64(), seq_q8["iodepth"].as_u64()),
        (Some(1 << 20), Some(8))
    );
    assert_eq!(segments[0]["job"]["direct"], true);
    // One working set, filled once and removed.
    assert_eq!(record["target"]["kind"], "scratch");
    assert_eq!(record["target"]["scratch_removed"], true);
    assert_eq!(
        record["target"]["working_set_bytes"].as_u64(),
        Some(16 << 20)
    );
    let bytes_per_s = |s: &Value, dir: &str| s[dir]["bw_bytes"].as_u64().unwrap();
    assert!(segments[..8].iter().all(|s| bytes_per_s(s, "read") > 0));
    assert!(segments[8..].iter().all(|s| bytes_per_s(s, "write") > 0));
    // The table's SEQ1M Q8T1 read is the best of its two loops, in decimal MB/s.
    let best = bytes_per_s(&segments[0], "read").max(bytes_per_s(&segments[1], "read"));
    #[allow(clippy::cast_precision_loss)]
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
    let cases: [(&[&str], &str); 6] = [
        (
            &["--profile", "fast"],
            "error: --profile \"fast\" is not a profile; use default, peak, realworld, nvme\n",
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
        let out = mark(dir.path(), &[args, &["--no-tui"]].concat());
        assert_usage_error(&out);
        assert_eq!(stderr(&out), want);
        assert!(out.stdout.is_empty());
    }
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
            "300ms",
            "--loops",
            "1",
            "--json",
            "r.json",
            "--no-tui",
        ],
    );
    assert_success(&out);
    let record = read_json(&dir.path().join("r.json"));
    let segments = record["segments"].as_array().unwrap();
    assert!(
        segments
            .iter()
            .any(|s| s["read"]["total_ios"].as_u64().unwrap() > 0)
    );
    assert!(
        segments
            .iter()
            .any(|s| s["write"]["total_ios"].as_u64().unwrap() > 0)
    );
    assert!(segments.iter().all(|s| s["status"] == "completed"));
    // The file stays (it was not diskdash's to remove).
    assert!(file.exists());
}
