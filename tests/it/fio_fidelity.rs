//! fio's semantics as `diskdash fio`'s defaults: the random map (`norandommap`,
//! `random_generator`), seen in the plan and in the sizes of a `bssplit` run.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::fio_run::fio;
use crate::support::{BIN, assert_success, inproc, stdout};

fn options_line(text: &str, job: &str) -> String {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.starts_with(&format!("  job {job} ")));
    lines
        .find(|l| l.starts_with("    options  "))
        .unwrap_or_else(|| panic!("no options for {job}: {text}"))
        .to_string()
}

#[test]
fn fio_parse_only_shows_the_random_map_options() {
    let dir = tempfile::tempdir().unwrap();
    // This test's two by the binary, end to end; the others here run in this process.
    let out = fio(
        dir.path(),
        &[
            "--parse-only",
            "--rw=randread",
            "--size=16M",
            "--name=mapped",
            "--name=drawn",
            "--norandommap",
            "--name=lfsr",
            "--random_generator=lfsr",
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    let mapped = options_line(&text, "mapped");
    assert!(
        !mapped.contains("norandommap") && !mapped.contains("random_generator"),
        "{mapped}"
    );
    assert!(
        options_line(&text, "drawn").contains(" norandommap=1"),
        "{text}"
    );
    assert!(
        options_line(&text, "lfsr").contains(" random_generator=lfsr"),
        "{text}"
    );
    let out = fio(
        dir.path(),
        &[
            "--parse-only",
            "--name=x",
            "--size=16M",
            "--random_generator=mt19937",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --random_generator \"mt19937\" is not a random generator; use tausworthe, lfsr \
         or tausworthe64\n"
    );
}

/// Mean read size in KiB of a size-based `bssplit` randread over a 16 MiB file (four passes).
fn mean_read_kib(dir: &Path, extra: &[&str]) -> f64 {
    let mut args = vec![
        "--name=x",
        "--filename=data",
        "--size=16M",
        "--io_size=64M",
        "--rw=randread",
        "--bssplit=4k/50:64k/50",
        "--output-format=json",
    ];
    args.extend_from_slice(extra);
    let out = fio(dir, &args);
    assert_success(&out);
    let text = stdout(&out);
    let json: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    let read = &json["jobs"][0]["read"];
    let (bytes, ios) = (
        read["io_bytes"].as_f64().unwrap(),
        read["total_ios"].as_f64().unwrap(),
    );
    assert!(bytes > 60.0 * 1048576.0, "{read}");
    bytes / ios / 1024.0
}

#[test]
fn fio_bssplit_random_reads_shrink_under_the_random_map_as_fios_do() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data"), vec![7u8; 16 << 20]).unwrap();
    // fio 3.33 on the same job: 19.3-20.1 KiB per read with its map; 33.8 KiB without.
    let mapped = mean_read_kib(dir.path(), &[]);
    assert!((16.0..24.0).contains(&mapped), "{mapped}");
    for extra in ["--norandommap", "--random_generator=lfsr"] {
        let drawn = mean_read_kib(dir.path(), &[extra]);
        assert!((30.0..38.0).contains(&drawn), "{extra}: {drawn}");
    }
}

#[test]
fn fio_parse_only_shows_invalidate_and_fadvise_hint() {
    let dir = tempfile::tempdir().unwrap();
    let out = inproc::fio_parse_only(
        dir.path(),
        &[
            "--parse-only",
            "--size=16M",
            "--name=plain",
            "--name=kept",
            "--invalidate=0",
            "--fadvise_hint=sequential",
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    let plain = options_line(&text, "plain");
    assert!(
        !plain.contains("invalidate") && !plain.contains("fadvise"),
        "{plain}"
    );
    let kept = options_line(&text, "kept");
    assert!(
        kept.contains(" invalidate=0") && kept.contains(" fadvise_hint=sequential"),
        "{kept}"
    );
    let out = inproc::fio_parse_only(
        dir.path(),
        &[
            "--parse-only",
            "--name=x",
            "--size=16M",
            "--fadvise_hint=often",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --fadvise_hint \"often\" is not an fadvise hint; use 0, 1, sequential or random\n"
    );
}

/// Sectors read from `dev` (e.g. `loop3`) so far, from /proc/diskstats.
fn sectors_read(dev: &str) -> u64 {
    let stats = std::fs::read_to_string("/proc/diskstats").unwrap();
    stats
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f[2] == dev)
        .map(|f| f[5].parse().unwrap())
        .unwrap_or_else(|| panic!("{dev} not in /proc/diskstats"))
}

#[test]
#[ignore = "needs root"]
fn fio_buffered_time_based_reads_the_device_on_every_pass() {
    let _watch = crate::support::page_cache_watch();
    use crate::support::{LoopDevice, Mount, ext4_image, require_root};
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("fs.img");
    ext4_image(&image, 64 << 20);
    let dev = LoopDevice::attach(&image);
    let mnt = Mount::new(&[dev.path().to_str().unwrap()], &dir.path().join("mnt"));
    std::fs::write(mnt.0.join("data"), vec![3u8; 4 << 20]).unwrap();
    let name = dev.name();
    // Bytes read from the device over a 1 s buffered sequential read of a 4 MiB file, and
    // bytes the job moved.
    let run = |extra: &[&str]| {
        let before = sectors_read(&name);
        let mut args = vec![
            "--name=x",
            "--filename=data",
            "--size=4M",
            "--bs=64k",
            "--runtime=1",
            "--time_based",
            "--output-format=json",
        ];
        args.extend_from_slice(extra);
        let out = fio(&mnt.0, &args);
        assert_success(&out);
        let text = stdout(&out);
        let json: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
        let moved = json["jobs"][0]["read"]["io_bytes"].as_u64().unwrap();
        ((sectors_read(&name) - before) * 512, moved)
    };
    let (device, moved) = run(&[]);
    assert!(moved > 5 * (4 << 20), "several passes: {moved}");
    assert!(
        device * 2 > moved,
        "each pass from the device: {device} of {moved} bytes"
    );
    // invalidate=0: after the first pass the reads come from memory.
    let (device, moved) = run(&["--invalidate=0"]);
    assert!(moved > 5 * (4 << 20), "several passes: {moved}");
    assert!(
        device < 2 * (4 << 20),
        "one pass at most from the device: {device} of {moved} bytes"
    );
}

#[test]
fn fio_parse_only_shows_mem_malloc_by_default_and_huge_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let out = inproc::fio_parse_only(
        dir.path(),
        &[
            "--parse-only",
            "--size=16M",
            "--name=plain",
            "--name=shm",
            "--iomem=shmhuge",
            "--name=mm",
            "--mem=mmaphuge:/hugepages/x",
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        options_line(&text, "plain").contains(" mem=malloc"),
        "{text}"
    );
    assert!(
        options_line(&text, "shm").contains(" mem=shmhuge"),
        "{text}"
    );
    assert!(
        options_line(&text, "mm").contains(" mem=mmaphuge"),
        "{text}"
    );
    let out = inproc::fio_parse_only(
        dir.path(),
        &[
            "--parse-only",
            "--name=x",
            "--size=16M",
            "--iomem=cudamalloc",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --iomem \"cudamalloc\" is not an I/O memory type; use malloc, mmap, shm (4 KiB \
         pages), huge, shmhuge or mmaphuge (huge pages)\n"
    );
}

/// The notes of a short `bench` record over a scratch file in `dir`.
fn bench_notes(dir: &Path, extra: &[&str]) -> Vec<String> {
    let record = dir.join("r.json");
    let out = Command::new(BIN)
        .args([
            "bench", "--no-tui", "--rw", "randread", "--bs", "1M", "-q", "4",
        ])
        .args([
            "--size",
            "16M",
            "--runtime",
            "300ms",
            "--buffered",
            "--json",
        ])
        .arg(&record)
        .args(extra)
        .current_dir(dir)
        .output()
        .expect("diskdash runs");
    assert_success(&out);
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let notes: Vec<String> = serde_json::from_value(json["notes"].clone()).unwrap_or_default();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    for note in notes.iter().filter(|n| n.contains("iomem")) {
        assert!(stderr.contains(note.as_str()), "{stderr}");
    }
    notes
}

#[test]
fn bench_says_its_buffers_ask_for_huge_pages_unless_iomem_malloc() {
    let dir = tempfile::tempdir().unwrap();
    let huge = bench_notes(dir.path(), &[]);
    assert_eq!(
        huge.iter().filter(|n| n.contains("iomem=huge")).count(),
        1,
        "{huge:?}"
    );
    let plain = bench_notes(dir.path(), &["--iomem", "malloc"]);
    assert!(!plain.iter().any(|n| n.contains("iomem")), "{plain:?}");
}

/// `jobs[]` of `diskdash fio --output-format=json` on `job_file` written into `dir`.
fn json_jobs(dir: &Path, job_file: &str) -> Vec<Value> {
    std::fs::write(dir.join("j.fio"), job_file).unwrap();
    let out = fio(dir, &["--output-format=json", "j.fio"]);
    assert_success(&out);
    let text = stdout(&out);
    let json: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    json["jobs"].as_array().unwrap().clone()
}

/// fio 3.33 on this file names its jobs `inner` and `beta`: a job is named by its section,
/// or by a `name=` in it, never by `[global]`'s.
#[test]
fn fio_names_jobs_by_section_not_by_globals_name() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = json_jobs(
        dir.path(),
        "[global]\nname=glob\nsize=1M\nfilename=data\nrw=read\n[alpha]\nname=inner\n[beta]\n",
    );
    let names: Vec<&str> = jobs
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["inner", "beta"]);
}

/// fio 3.33 on `numjobs=2` without group_reporting reports two entries named after the
/// section, each with its own clone's I/O (here 1024 reads of 4 KiB each, io_size); with
/// group_reporting one entry of both.
#[test]
fn fio_reports_each_clone_without_group_reporting() {
    let dir = tempfile::tempdir().unwrap();
    let file = "[global]\nname=glob\nsize=4M\nio_size=4M\nrw=randread\nfilename=data\n\
                [alpha]\nnumjobs=2\n";
    let jobs = json_jobs(dir.path(), file);
    assert_eq!(jobs.len(), 2, "{jobs:?}");
    for job in &jobs {
        assert_eq!(job["jobname"], "alpha");
        assert_eq!(job["read"]["io_bytes"], 4 << 20, "{}", job["read"]);
        assert_eq!(job["read"]["total_ios"], 1024);
        assert_eq!(job["diskdash"]["workers"], 1);
    }
    let grouped = json_jobs(dir.path(), &format!("{file}group_reporting\n"));
    assert_eq!(grouped.len(), 1, "{grouped:?}");
    assert_eq!(grouped[0]["read"]["io_bytes"], 8 << 20);
    assert_eq!(grouped[0]["diskdash"]["workers"], 2);
}

/// fio 3.33's io_uring registers neither its buffers nor its file unless `fixedbufs` and
/// `registerfiles` are set (each I/O pins its pages and looks the file up, a cost that shows
/// in IOPS on a busy CPU), so neither does `diskdash fio`; set, both are registered.
#[test]
fn fio_io_uring_registers_buffers_and_file_only_when_asked_as_fio() {
    let dir = tempfile::tempdir().unwrap();
    let job = "[ring]\nfilename=ring.dat\nrw=randread\nsize=4M\nruntime=1\ntime_based\n\
               ioengine=io_uring\niodepth=8\n";
    for (extra, registered) in [("", false), ("fixedbufs\nregisterfiles\n", true)] {
        std::fs::write(dir.path().join("ring.fio"), format!("{job}{extra}")).unwrap();
        let record = crate::support::record::fio_record(dir.path(), &["ring.fio"]);
        let engine = &record["engine"];
        assert_eq!(
            engine["registered_buffers"], registered,
            "{extra:?}: {engine}"
        );
        assert_eq!(engine["registered_file"], registered, "{extra:?}: {engine}");
    }
    // The plan says so, and --showcmd leaves fio's own defaults out of fio's command line.
    let out = inproc::fio_parse_only(
        dir.path(),
        &[
            "--parse-only",
            "--name=plain",
            "--size=4M",
            "--ioengine=io_uring",
        ],
    );
    assert_success(&out);
    let line = options_line(&stdout(&out), "plain");
    assert!(
        line.contains(" fixedbufs=0") && line.contains(" registerfiles=0"),
        "{line}"
    );
    let out = fio(
        dir.path(),
        &[
            "--showcmd",
            "--name=plain",
            "--size=4M",
            "--ioengine=io_uring",
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        !text.contains("fixedbufs") && !text.contains("registerfiles"),
        "{text}"
    );
}

/// fio's verify phase reads what a job wrote through the job's own engine at its iodepth, and
/// counts those reads in the job's read (io_bytes, total_ios, runtime). Here: 1024 blocks
/// written by io_uring at iodepth 16, then read back without a single `pread64` (before, the
/// read-back was one `pread64` per block, at depth 1: three times fio's read runtime at QD16).
#[test]
#[ignore = "needs strace"]
fn fio_verify_reads_back_through_the_jobs_engine_at_its_depth() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("v.fio"),
        "[v]\nfilename=v.dat\nsize=4M\nrw=randwrite\nbs=4k\nverify=crc32c\n\
         ioengine=io_uring\niodepth=16\n",
    )
    .unwrap();
    let out = Command::new("strace")
        .args(["-f", "-qq", "-c", "-e", "trace=pread64", "-o", "counts"])
        .arg(BIN)
        .args([
            "fio",
            "--no-tui",
            "--output-format=json",
            "--output=v.json",
            "v.fio",
        ])
        .current_dir(dir.path())
        .output()
        .expect("strace runs (this test needs strace)");
    assert_success(&out);
    let counts = std::fs::read_to_string(dir.path().join("counts")).unwrap();
    let preads: u64 = counts
        .lines()
        .find(|l| l.trim_end().ends_with(" pread64"))
        .and_then(|l| l.split_whitespace().nth(3)?.parse().ok())
        .unwrap_or(0);
    assert!(preads < 16, "{preads} pread64 calls:\n{counts}");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("v.json")).unwrap()).unwrap();
    let job = &json["jobs"][0];
    for side in ["read", "write"] {
        assert_eq!(job[side]["io_bytes"], 4 << 20, "{side}: {}", job[side]);
        assert_eq!(job[side]["total_ios"], 1024, "{side}: {}", job[side]);
    }
}

/// Bytes of `path` in the page cache, by `fincore` (util-linux).
fn cached_bytes(path: &Path) -> u64 {
    let out = Command::new("fincore")
        .args(["--bytes", "--noheadings", "--output", "RES"])
        .arg(path)
        .output()
        .expect("fincore (util-linux) runs");
    assert_success(&out);
    stdout(&out).trim().parse().unwrap()
}

#[test]
fn fio_direct_jobs_start_without_the_files_cached_pages_as_fio() {
    // fio drops the cache of every job's file at open (invalidate=1), direct ones included;
    // direct reads then add none, so the file leaves the run uncached. What the cache holds is
    // the check: no other test drops it machine-wide meanwhile.
    let _watch = crate::support::page_cache_watch();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::write(&data, vec![5u8; 4 << 20]).unwrap();
    std::fs::File::open(&data).unwrap().sync_all().unwrap();
    let run = |extra: &[&str]| {
        let _ = std::fs::read(&data).unwrap();
        assert_eq!(cached_bytes(&data), 4 << 20, "read whole: all cached");
        let mut args = vec![
            "--name=x",
            "--filename=data",
            "--size=4M",
            "--rw=randread",
            "--bs=64k",
            "--ioengine=psync",
            "--direct=1",
            "--io_size=1M",
        ];
        args.extend_from_slice(extra);
        assert_success(&fio(dir.path(), &args));
        cached_bytes(&data)
    };
    assert_eq!(run(&[]), 0);
    // invalidate=0 leaves the cache as it was.
    assert_eq!(run(&["--invalidate=0"]), 4 << 20);
}
