//! The options and values fio's own example job files use: fio's arithmetic, the sync engine
//! family and posixaio, the engines refused by name, `nrfiles`/`openfiles`/
//! `file_service_type`/`filename_format`, `bsrange`, `blockalign`, and the options accepted
//! with a note (`exitall`, `exit_what`, `verify_backlog`, `verify_interval`, `verify_dump`).
//! `--parse-only` shows how each was taken; those that change the I/O
//! also run for real on small files.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::fio_run::fio;
use crate::support::*;

/// `diskdash fio --parse-only` on `job` (a job file) in a scratch directory, in this process
/// (`inproc::fio_parse_only`, what the binary runs).
fn parse_only(job: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("j.fio"), job).unwrap();
    inproc::fio_parse_only(dir.path(), &["--parse-only", "j.fio"])
}

/// As `parse_only`, by the binary: the end-to-end check beside the in-process ones.
fn parse_only_spawned(job: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("j.fio"), job).unwrap();
    fio(dir.path(), &["--parse-only", "j.fio"])
}

/// Runs `job` in `dir`; the output and the record's only job.
fn run_in(dir: &Path, job: &str) -> (Output, Value) {
    std::fs::write(dir.join("j.fio"), job).unwrap();
    let out = fio(dir, &["j.fio", "--json", "r.json"]);
    let record = read_json(&dir.join("r.json"));
    let job = record["segments"][0]["jobs"][0].clone();
    (out, job)
}

/// Asserts exit 2 and exactly one stderr line, `error: {want}`.
fn assert_refused(out: &Output, want: &str) {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(out));
    assert_eq!(stderr(out), format!("error: {want}\n"));
}

#[test]
fn fio_arithmetic_in_values_is_computed() {
    let out =
        parse_only_spawned("[a]\nrw=read\nbs=$pagesize\nsize=(2*4m)\nnumjobs=(1+1)\nfilename=f\n");
    assert_success(&out);
    let text = stdout(&out);
    let page = rustix_page_size();
    assert!(text.contains("target   f (created, 8 MiB;"), "{text}");
    assert!(text.contains("numjobs=2"), "{text}");
    assert!(
        text.contains(&format!(" bs={}", size_short(page))),
        "{text}"
    );
}

#[test]
fn mb_memory_and_ncpus_are_the_machines() {
    // size=$mb_memory/1024: the memory's GiB count, in bytes (bc's integer division).
    let out =
        parse_only("[a]\nrw=read\nsize=$mb_memory/1024*4096\nnumjobs=$ncpus/$ncpus\nfilename=f\n");
    assert_success(&out);
    let text = stdout(&out);
    let mem_kib: u64 = std::fs::read_to_string("/proc/meminfo")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    let bytes = (mem_kib >> 10) / 1024 * 4096;
    let plain = parse_only(&format!(
        "[a]\nrw=read\nsize={bytes}\nnumjobs=1\nfilename=f\n"
    ));
    assert_success(&plain);
    assert_eq!(
        text,
        stdout(&plain),
        "the same plan as the number written out"
    );
}

#[test]
fn bad_arithmetic_is_one_line() {
    let out = parse_only("[a]\nsize=(4k*\nfilename=f\n");
    assert_refused(
        &out,
        "j.fio:2: size=(4k*: the arithmetic ends where a number belongs; write a number, e.g. \
         size=(2*4k) or size=$mb_memory/2",
    );
    let out = parse_only("[a]\nsize=(1-2)\nfilename=f\n");
    assert_refused(
        &out,
        "j.fio:2: size=(1-2): the arithmetic comes to -1, below 0; write a number, e.g. \
         size=(2*4k) or size=$mb_memory/2",
    );
}

#[test]
fn arithmetic_sizes_the_io_of_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let (out, job) = run_in(
        dir.path(),
        "[a]\nrw=write\nbs=64k\nsize=(3*256k)\nfilename=f\n",
    );
    assert_success(&out);
    assert_eq!(job["write"]["io_bytes"], 3 * (256 << 10));
}

#[test]
fn the_sync_family_and_posixaio_run_with_a_note() {
    for (engine, ours) in [
        ("vsync", "psync"),
        ("pvsync", "psync"),
        ("pvsync2", "psync"),
        ("posixaio", "io_uring"),
    ] {
        let out = parse_only(&format!("[a]\nioengine={engine}\nsize=1m\nfilename=f\n"));
        assert_success(&out);
        assert!(
            stdout(&out).contains(&format!(" {ours} buffered")),
            "{}",
            stdout(&out)
        );
        assert_stderr_has(
            &out,
            &format!("note: j.fio:2: ioengine={engine}: runs as diskdash's {ours}: "),
        );
    }
    for engine in ["sync", "psync"] {
        let out = parse_only(&format!("[a]\nioengine={engine}\nsize=1m\nfilename=f\n"));
        assert_success(&out);
        assert_eq!(stderr(&out), "", "{engine}: the same I/O, no note");
    }
}

#[test]
fn posixaio_runs_its_job() {
    let dir = tempfile::tempdir().unwrap();
    let (out, job) = run_in(
        dir.path(),
        "[a]\nioengine=posixaio\niodepth=4\nrw=write\nbs=64k\nsize=1m\nfilename=f\n",
    );
    assert_success(&out);
    assert_eq!(job["write"]["io_bytes"], 1 << 20);
    assert_eq!(
        std::fs::metadata(dir.path().join("f")).unwrap().len(),
        1 << 20
    );
}

#[test]
fn engines_for_other_backends_are_refused_naming_the_engine() {
    for (engine, does) in [
        ("rdma", "drives RDMA"),
        ("net", "drives network sockets"),
        ("libcufile", "drives GPU memory (cuFile)"),
        ("http", "drives a network or object-store service"),
        ("rbd", "drives a network or object-store service"),
        ("cpuio", "burns CPU"),
    ] {
        let out = parse_only(&format!("[a]\nioengine={engine}\nsize=1m\nfilename=f\n"));
        assert_refused(
            &out,
            &format!(
                "j.fio:2: ioengine {engine:?}: fio's {engine} engine {does}, not a block device \
                 or file; diskdash measures block storage (use io_uring, libaio, psync or null)"
            ),
        );
    }
}

#[test]
fn one_named_file_is_one_file_and_a_bad_service_type_is_refused() {
    let out = parse_only(
        "[a]\nnrfiles=1\nopenfiles=1\nfile_service_type=roundrobin\nsize=1m\nfilename=f\n",
    );
    assert_success(&out);
    assert_eq!(stderr(&out), "");
    // A named file is the job's one file, whatever nrfiles says (fio counts the names).
    let out = parse_only("[a]\nnrfiles=4\nsize=1m\nfilename=f\n");
    assert_success(&out);
    let out = parse_only("[a]\nfile_service_type=bogus\nsize=1m\nfilename=f\n");
    assert_refused(
        &out,
        "j.fio:2: file_service_type \"bogus\" is not a file service type; use random, \
         roundrobin, sequential, zipf, pareto, normal or gauss (random, roundrobin and \
         sequential with an optional :N of 1 or more)",
    );
}

#[test]
fn filename_format_names_the_file_the_job_creates() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let (out, job) = run_in(
        dir.path(),
        "[seq]\ndirectory=d\nfilename_format=$jobname.$jobnum.$filenum\nrw=write\nbs=64k\n\
         size=512k\n",
    );
    assert_success(&out);
    assert_eq!(job["write"]["io_bytes"], 512 << 10);
    let file = dir.path().join("d/seq.0.0");
    assert_eq!(
        std::fs::metadata(&file).unwrap().len(),
        512 << 10,
        "fio's name for it"
    );
}

#[test]
fn bsrange_with_one_size_is_that_size() {
    let out = parse_only("[a]\nbsrange=16k-16k\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert!(stdout(&out).contains(" bs=16k "), "{}", stdout(&out));
    let out = parse_only("[a]\nbsrange=4k-8k\nsize=1m\nfilename=f\n");
    assert_refused(
        &out,
        "j.fio:2: bsrange \"4k-8k\": diskdash runs fixed block sizes; give one size \
         (bsrange=4k-4k or bs=4k) or fixed shares with bssplit=4k/50:64k/50",
    );
}

#[test]
fn bsrange_sets_the_block_size_of_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let (out, job) = run_in(
        dir.path(),
        "[a]\nrw=write\nbsrange=128k-128k\nsize=1m\nfilename=f\n",
    );
    assert_success(&out);
    assert_eq!(job["write"]["total_ios"], 8, "1 MiB in 128 KiB writes");
}

#[test]
fn blockalign_is_taken_for_random_offsets() {
    // Equal to the smallest block size: nothing to change.
    let out = parse_only("[a]\nrw=randread\nbs=8k\nblockalign=8k\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert!(!stderr(&out).contains("blockalign"), "{}", stderr(&out));
    // jesd219: offsets on 4k with sizes from 512; fio turns the random map off.
    let out =
        parse_only("[a]\nrw=randrw\nbssplit=512/50:4k/50\nblockalign=4k\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert!(
        stderr(&out).contains(
            "note: j.fio:4: blockalign=4k: random offsets are multiples of 4096 bytes and the \
             random map is off (as norandommap), as fio turns it off with blockalign"
        ),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("norandommap"), "{}", stdout(&out));
    // A sequential job: fio aligns only random offsets.
    let out = parse_only("[a]\nrw=read\nbs=512\nblockalign=4k\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert!(
        stderr(&out).contains("note: j.fio:4: blockalign=4k: accepted; blockalign aligns random"),
        "{}",
        stderr(&out)
    );
    assert_refused(
        &parse_only("[a]\nrw=randread\nbs=8k\nblockalign=4k,8k\nsize=1m\nfilename=f\n"),
        "j.fio:4: blockalign \"4k,8k\": diskdash aligns reads, writes and trims alike; give one \
         value, e.g. blockalign=4096",
    );
    assert_refused(
        &parse_only(
            "[a]\nrw=randwrite\nbs=512\nverify=crc32c\nblockalign=4k\nsize=1m\nfilename=f\n",
        ),
        "j.fio:5: blockalign \"4k\": diskdash's verify writes and checks whole blocks at \
         multiples of the smallest block size, 512 bytes; use blockalign=512 or leave it out \
         with verify",
    );
}

#[test]
fn blockalign_places_a_runs_writes_on_its_boundary() {
    let dir = tempfile::tempdir().unwrap();
    sparse_file(&dir.path().join("f"), 1 << 20);
    std::fs::write(
        dir.path().join("j.fio"),
        "[a]\nrw=randwrite\nbs=512\nblockalign=4k\nsize=1m\nio_size=64k\nfilename=f\n",
    )
    .unwrap();
    let out = fio(dir.path(), &["j.fio", "--allow-destructive"]);
    assert_success(&out);
    let data = std::fs::read(dir.path().join("f")).unwrap();
    let written: Vec<usize> = data
        .chunks(512)
        .enumerate()
        .filter(|(_, sector)| sector.iter().any(|b| *b != 0))
        .map(|(i, _)| i * 512)
        .collect();
    assert!(written.len() > 16, "{} sectors written", written.len());
    let off: Vec<&usize> = written.iter().filter(|at| *at % 4096 != 0).collect();
    assert!(off.is_empty(), "writes off the 4k boundary: {off:?}");
}

#[test]
fn options_without_a_diskdash_equivalent_are_accepted_with_a_note() {
    let out = parse_only(
        "[a]\nexitall\nexit_what=all\nverify_async=4\nverify_dump=1\n\
         size=1m\nfilename=f\n",
    );
    assert_success(&out);
    let err = stderr(&out);
    for (line, option) in [
        (2, "exitall"),
        (3, "exit_what=all"),
        (4, "verify_async=4"),
        (5, "verify_dump=1"),
    ] {
        assert!(
            err.contains(&format!("note: j.fio:{line}: {option}: accepted; ")),
            "{option}: {err}"
        );
    }
}

/// The page size, as fio's `$pagesize`.
fn rustix_page_size() -> u64 {
    let out = std::process::Command::new("getconf")
        .arg("PAGESIZE")
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// diskdash's short size spelling for the plan's `bs=`.
fn size_short(bytes: u64) -> String {
    if bytes % (1 << 20) == 0 {
        format!("{}m", bytes >> 20)
    } else if bytes % 1024 == 0 {
        format!("{}k", bytes >> 10)
    } else {
        bytes.to_string()
    }
}

#[test]
fn rw_modifiers_are_taken_and_bad_ones_refused() {
    let out = parse_only("[a]\nrw=read:-8k\nbs=4k\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert!(
        stdout(&out).contains("job a (group 0): read:-8k bs=4k"),
        "{}",
        stdout(&out)
    );
    let out = parse_only("[a]\nrw=randread:8\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert!(
        stdout(&out).contains("randread:8 bs=4k"),
        "{}",
        stdout(&out)
    );
    let out = parse_only("[a]\nrw=read:6k\nbs=4k\nsize=1m\nfilename=f\n");
    assert_refused(
        &out,
        "j.fio:2: rw \"read:6k\": the skip must be a multiple of the block size (4k) so every \
         I/O stays aligned; use e.g. read:4k",
    );
    let out = parse_only("[a]\nrw=randwrite:often\nsize=1m\nfilename=f\n");
    assert_refused(
        &out,
        "j.fio:2: rw \"randwrite:often\": after randwrite: comes the number of I/Os between \
         random offsets; use e.g. randwrite:8",
    );
}

/// The 4 KiB blocks of `file` that hold anything but zeros.
fn written_blocks(file: &Path) -> Vec<usize> {
    let data = std::fs::read(file).unwrap();
    data.chunks(4096)
        .enumerate()
        .filter(|(_, block)| block.iter().any(|b| *b != 0))
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn rw_modifiers_write_the_blocks_fio_writes() {
    // What fio 3.33 writes into a sparse 64 KiB file (its write_iolog): a backward skip
    // starts at 0, then one skip before the end and down 4k at a time; a forward skip leaves
    // a hole after every block.
    for (rw, io_size, want) in [
        ("write:-8k", "24k", vec![0, 10, 11, 12, 13, 14]),
        ("write:4k", "32k", vec![0, 2, 4, 6, 8, 10, 12, 14]),
        ("write:8k", "16k", vec![0, 3, 6, 9]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        sparse_file(&dir.path().join("f"), 64 << 10);
        std::fs::write(
            dir.path().join("j.fio"),
            format!("[a]\nrw={rw}\nbs=4k\nsize=64k\nio_size={io_size}\nfilename=f\n"),
        )
        .unwrap();
        let out = fio(dir.path(), &["j.fio", "--allow-destructive"]);
        assert_success(&out);
        assert_eq!(written_blocks(&dir.path().join("f")), want, "rw={rw}");
    }
    // randwrite:4: three blocks in a row after each random one.
    let dir = tempfile::tempdir().unwrap();
    sparse_file(&dir.path().join("f"), 1 << 20);
    std::fs::write(
        dir.path().join("j.fio"),
        "[a]\nrw=randwrite:4\nbs=4k\nsize=1m\nio_size=16k\nfilename=f\n",
    )
    .unwrap();
    let out = fio(dir.path(), &["j.fio", "--allow-destructive"]);
    assert_success(&out);
    let blocks = written_blocks(&dir.path().join("f"));
    assert_eq!(blocks[..3], [0, 1, 2], "{blocks:?}");
    assert_eq!(blocks.len(), 4, "{blocks:?}");
}

#[test]
fn file_engines_are_taken_mapped_or_refused_by_name() {
    for engine in ["falloc", "ftruncate"] {
        let out = parse_only(&format!(
            "[a]\nioengine={engine}\nrw=randwrite\nsize=1m\nfilename=f\n"
        ));
        assert_success(&out);
        assert!(
            stdout(&out).contains(&format!(" {engine} buffered")),
            "{}",
            stdout(&out)
        );
    }
    let out = parse_only("[a]\nioengine=mmap\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert_stderr_has(
        &out,
        "note: j.fio:2: ioengine=mmap: runs as diskdash's psync: diskdash issues pread/pwrite",
    );
    let out = parse_only("[a]\nioengine=ftruncate\nrw=read\nsize=1m\nfilename=f\n");
    assert_refused(
        &out,
        "j.fio:2: ioengine \"ftruncate\" only writes (each write truncates the file to its \
         offset), but j.fio:3: rw is \"read\"; use rw=write or rw=randwrite",
    );
    let out = parse_only("[a]\nioengine=filestat\nsize=1m\nfilename=f\n");
    assert_refused(
        &out,
        "j.fio:4: filename=f: a filestat job works on nrfiles files in its directory; use \
         directory=DIR (and filename_format for their names) instead of filename",
    );
}

#[test]
fn falloc_allocates_and_ftruncate_truncates() {
    use std::os::unix::fs::MetadataExt;
    // falloc: each write allocates its 4 KiB in the sparse file, and no data is written.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    sparse_file(&file, 1 << 20);
    std::fs::write(
        dir.path().join("j.fio"),
        "[a]\nioengine=falloc\nrw=write\nbs=4k\nsize=1m\nio_size=64k\nfilename=f\n",
    )
    .unwrap();
    let out = fio(dir.path(), &["j.fio", "--allow-destructive"]);
    assert_success(&out);
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!(meta.len(), 1 << 20);
    assert!(meta.blocks() * 512 >= 64 << 10, "{} sectors", meta.blocks());
    assert!(written_blocks(&file).is_empty(), "fallocate writes no data");
    // ftruncate: a sequential write truncates to each offset in turn, the last 60k.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t");
    sparse_file(&file, 64 << 10);
    std::fs::write(
        dir.path().join("j.fio"),
        "[a]\nioengine=ftruncate\nrw=write\nbs=4k\nsize=64k\nfilename=t\n",
    )
    .unwrap();
    let out = fio(
        dir.path(),
        &["j.fio", "--allow-destructive", "--json", "r.json"],
    );
    assert_success(&out);
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 60 << 10);
    let record = read_json(&dir.path().join("r.json"));
    assert_eq!(
        record["segments"][0]["jobs"][0]["write"]["io_bytes"],
        64 << 10
    );
}

#[test]
fn zoned_random_distribution_is_taken_and_runs() {
    let out = parse_only(
        "[a]\nrw=randread\nrandom_distribution=zoned:50/5:30/15:20/\nsize=1m\nfilename=f\n",
    );
    assert_success(&out);
    assert_stdout_has(&out, "random_distribution=zoned:50/5:30/15:20/80");
    let out = parse_only("[a]\nrw=randread\nrandom_distribution=zoned:50/5\nsize=1m\nfilename=f\n");
    assert_refused(
        &out,
        "j.fio:3: random_distribution \"zoned:50/5\": the I/O shares add up to 50% (must be \
         100) and the sizes to 5% (must be 1 to 100); use e.g. zoned:60/10:30/20:10/70 \
         (percent of the I/O / percent of the working set, zone by zone)",
    );
    // All of the writes in the first quarter of a sparse file: nothing lands past it.
    let dir = tempfile::tempdir().unwrap();
    sparse_file(&dir.path().join("f"), 1 << 20);
    std::fs::write(
        dir.path().join("j.fio"),
        "[a]\nrw=randwrite\nrandom_distribution=zoned:100/25:0/75\nbs=4k\nsize=1m\n\
         io_size=256k\nfilename=f\n",
    )
    .unwrap();
    let out = fio(dir.path(), &["j.fio", "--allow-destructive"]);
    assert_success(&out);
    let blocks = written_blocks(&dir.path().join("f"));
    assert!(
        !blocks.is_empty() && blocks.iter().all(|b| *b < 64),
        "{blocks:?}"
    );
}

#[test]
fn io_submit_mode_is_accepted_with_a_note_and_log_prio_is_a_log_setting() {
    let out = parse_only(
        "[a]\nrw=read\nio_submit_mode=offload\nlog_prio=1\nrate_iops=1000\nsize=1m\nfilename=f\n",
    );
    assert_success(&out);
    let err = stderr(&out);
    assert!(
        err.contains("note: j.fio:3: io_submit_mode=offload: accepted; diskdash submits from"),
        "{err}"
    );
    // log_prio is a log setting as in fio (its priority column), no note.
    assert!(!err.contains("log_prio"), "{err}");
    let out = parse_only("[a]\nrw=read\nio_submit_mode=inline\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert!(!stderr(&out).contains("io_submit_mode"), "{}", stderr(&out));
    assert_refused(
        &parse_only("[a]\nrw=read\nio_submit_mode=later\nsize=1m\nfilename=f\n"),
        "j.fio:3: io_submit_mode \"later\" is not a submit mode; use inline or offload",
    );
}

#[test]
fn a_trim_cap_is_taken_by_a_trim_job_and_ignored_with_a_note_otherwise() {
    // A job that trims nothing: fio ignores the third value; so does diskdash, saying so.
    let out = parse_only("[a]\nrw=randrw\nrate=300,300,300\nsize=1m\nfilename=f\n");
    assert_success(&out);
    let err = stderr(&out);
    assert!(
        err.contains(
            "note: j.fio:3: rate=300,300,300: the third value caps trims, which this job does \
             not issue; ignored, as fio ignores it"
        ),
        "{err}"
    );
    // A trim job: the third value is its cap.
    let out = parse_only("[a]\nrw=randtrim\nrate_iops=,,50\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert!(stdout(&out).contains("rate_iops=,50"), "{}", stdout(&out));
    // trimwrite paces trims and writes together: two caps that differ are refused.
    assert_refused(
        &parse_only("[a]\nrw=trimwrite\nrate_iops=,100,50\nsize=1m\nfilename=f\n"),
        "j.fio:3: rate_iops \",100,50\": diskdash paces trimwrite's trims and writes with one \
         cap; give them the same value, e.g. ,50,50",
    );
}

#[test]
#[ignore = "needs root"]
fn a_trim_cap_paces_the_trims_of_a_run() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("img");
    sparse_file(&image, 8 << 20);
    let device = LoopDevice::attach_unique(&image);
    let job = format!(
        "[a]\nrw=randtrim\nbs=4k\nrate_iops=,,100\ntime_based\nruntime=1\nsize=8m\nfilename={}\n",
        device.path().display()
    );
    std::fs::write(dir.path().join("j.fio"), job).unwrap();
    let out = fio(
        dir.path(),
        &["j.fio", "--allow-destructive", "--json", "r.json"],
    );
    assert_success(&out);
    let record = read_json(&dir.path().join("r.json"));
    let trims = record["segments"][0]["jobs"][0]["trim"]["total_ios"]
        .as_u64()
        .unwrap_or(0);
    // 100 trims a second for about a second; uncapped, a loop device trims thousands.
    assert!((50..=150).contains(&trims), "{trims} trims: {record}");
}

#[test]
fn verify_pattern_is_fios_and_bad_ones_are_refused_in_one_line() {
    let out =
        parse_only("[a]\nrw=write\nverify=meta\nverify_pattern=0xaa555aa5\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert!(
        stdout(&out).contains("verify_pattern=0xaa555aa5"),
        "{}",
        stdout(&out)
    );
    // Alone, it is fio's verify=pattern.
    let out = parse_only("[a]\nrw=write\nverify_pattern=\"abc\" 0x01\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert!(stdout(&out).contains("verify=pattern"), "{}", stdout(&out));
    assert_refused(
        &parse_only("[a]\nrw=write\nverify_pattern=0xzz\nsize=1m\nfilename=f\n"),
        "j.fio:3: verify_pattern \"0xzz\": 0x with no hex digits; write 0x followed by hex \
         digits, a quoted string, a decimal number or %o (the block's offset)",
    );
}

/// `numa_cpu_nodes` is taken as written; its nodes are looked for when the job runs, as fio
/// does (tests/it/fio_prio.rs runs it).
#[test]
fn numa_cpu_nodes_is_taken_as_written() {
    let out = parse_only("[a]\nrw=read\nnuma_cpu_nodes=0\nsize=1m\nfilename=f\n");
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains(" numa_cpu_nodes=0"), "{text}");
    assert_refused(
        &parse_only("[a]\nrw=read\nnuma_cpu_nodes=one\nsize=1m\nfilename=f\n"),
        "j.fio:3: numa_cpu_nodes \"one\" is not a node list; use e.g. 0, 0-1 or 0,2",
    );
}

#[test]
fn ignore_error_without_continue_on_error_is_accepted() {
    // fio takes the lists and passes nothing without continue_on_error; so does diskdash.
    let out = parse_only("[a]\nrw=write\nignore_error=,ENOSPC:EIO\nsize=1m\nfilename=f\n");
    assert_success(&out);
    assert!(stdout(&out).contains("ignore_error="), "{}", stdout(&out));
    assert_refused(
        &parse_only("[a]\nrw=write\nignore_error=,ENOPE\nsize=1m\nfilename=f\n"),
        "j.fio:3: ignore_error \",ENOPE\": \"ENOPE\" is not an error; give READ,WRITE,VERIFY \
         lists of errno names or numbers joined by ':', e.g. ignore_error=,ENOSPC:EIO",
    );
}

#[test]
fn flow_is_taken_and_a_bad_weight_refused() {
    let out = parse_only(
        "[global]\nsize=8m\nfilename=f\nflow_sleep=1000\n[w]\nrw=write\nflow=1\n\
         [r]\nrw=randread\nflow=8\nflow_id=2\n",
    );
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains(" flow=1 flow_sleep=1000us"), "{text}");
    assert!(
        text.contains(" flow=8 flow_id=2 flow_sleep=1000us"),
        "{text}"
    );
    assert_refused(
        &parse_only("[a]\nsize=8m\nfilename=f\nflow=1001\n"),
        "j.fio:4: flow \"1001\" is not a flow weight; use 0 to 1000 (e.g. 1 and 8 for one job \
         to do eight times the other's I/Os)",
    );
}

/// The bytes each job of the record at `dir/r.json` read and wrote.
fn job_bytes(dir: &Path) -> Vec<u64> {
    let record = read_json(&dir.join("r.json"));
    record["segments"][0]["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|job| {
            job["read"]["io_bytes"].as_u64().unwrap_or(0)
                + job["write"]["io_bytes"].as_u64().unwrap_or(0)
        })
        .collect()
}

#[test]
fn flow_weights_share_the_ios_of_jobs_at_once() {
    let _turn = crate::support::timing_turn();
    // fio's flow: each job's share of the group's I/Os follows its weight (1:3 here), and
    // flow_sleep makes a held job drain and sleep rather than spin.
    for sleep in ["0", "100"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("j.fio"),
            format!(
                "[global]\nioengine=psync\nbs=4k\nsize=4m\nfilename=f\nrw=randread\n\
                 time_based\nruntime=500ms\nflow_sleep={sleep}\n[a]\nflow=1\n[b]\nflow=3\n"
            ),
        )
        .unwrap();
        sparse_file(&dir.path().join("f"), 4 << 20);
        let out = fio(dir.path(), &["j.fio", "--json", "r.json"]);
        assert_success(&out);
        let bytes = job_bytes(dir.path());
        assert_eq!(bytes.len(), 2);
        assert!(bytes[0] > 0, "{bytes:?}");
        let ratio = bytes[1] as f64 / bytes[0] as f64;
        assert!(
            (2.5..=3.5).contains(&ratio),
            "flow_sleep={sleep}: {bytes:?}"
        );
    }
}

#[test]
fn two_jobs_write_one_named_file_at_once_as_in_fio() {
    // fio runs both (its exitwhat.fio, falloc.fio); each job here writes the file the job
    // file names for it.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("j.fio"),
        "[global]\nbs=4k\nsize=1m\nfilename=f\n[a]\nrw=randwrite\n[b]\nrw=write\n",
    )
    .unwrap();
    let out = fio(dir.path(), &["j.fio", "--json", "r.json"]);
    assert_success(&out);
    assert_eq!(job_bytes(dir.path()), vec![1 << 20, 1 << 20]);
    assert_eq!(
        std::fs::metadata(dir.path().join("f")).unwrap().len(),
        1 << 20
    );
    // Not when one of them verifies: it would read the other's blocks as corrupt.
    std::fs::write(
        dir.path().join("v.fio"),
        "[global]\nbs=4k\nsize=1m\nfilename=f\n[a]\nrw=randwrite\n[b]\nrw=write\nverify=crc32c\n",
    )
    .unwrap();
    assert_refused(
        &fio(dir.path(), &["--parse-only", "v.fio"]),
        &format!(
            "jobs a and b both write and verify {}/f at the same time: each would read the \
             other's blocks as corrupt; give each its own filename, or add stonewall to run them \
             one after the other",
            dir.path().canonicalize().unwrap().display()
        ),
    );
}

#[test]
fn strided_zones_are_shown_by_parse_only() {
    // disk-zone-profile.fio, scaled: zonemode, zonesize, zoneskip, a bare write_bw_log.
    let out = parse_only(
        "[global]\nbs=64k\nrw=read\nzonemode=strided\nzonesize=256m\nzoneskip=2g\n\
         [disk-zone-profile]\nsize=8g\nwrite_bw_log\nlog_offset=1\n",
    );
    assert_success(&out);
    assert!(
        stdout(&out).contains(
            "    zones    strided: 256 MiB in each zone of 256 MiB, then 2 GiB skipped (fio's \
             zonesize, zonerange, zoneskip)\n"
        ),
        "{}",
        stdout(&out)
    );
    let out = parse_only("[a]\nzonemode=zbd\nzonesize=256m\nsize=1m\nfilename=f\n");
    assert_refused(
        &out,
        "j.fio:3: zonesize=256m: the job's size (1 MiB) holds no whole zone (fio refuses it \
         too); lower zonesize or raise size",
    );
}

#[test]
fn strided_zones_write_only_their_zones() {
    // 64k written in each 64k zone, 64k skipped: the even 64k slots of 1 MiB, twice over (the
    // job's size bounds the bytes, the skips are not counted); the odd slots stay holes. fio
    // 3.33's write_iolog for this job: 0 16 32 48 128 ... 944, then 0 16 ... again.
    let dir = tempfile::tempdir().unwrap();
    let (out, job) = run_in(
        dir.path(),
        "[z]\nfilename=f\nrw=write\nbs=16k\nsize=1m\nzonemode=strided\nzonesize=64k\n\
         zoneskip=64k\n",
    );
    assert_success(&out);
    assert_eq!(job["write"]["io_bytes"], 1 << 20);
    // The file ends where the last zone's writes end (slot 14), the skipped slot 15 unwritten.
    let data = std::fs::read(dir.path().join("f")).unwrap();
    assert!(data.len() >= 15 << 16, "{} bytes", data.len());
    for (slot, chunk) in data.chunks(64 << 10).enumerate() {
        let written = chunk.iter().any(|&b| b != 0);
        assert_eq!(written, slot % 2 == 0, "slot {slot} (64k each)");
    }
}
