//! `diskdash fio` with `zonemode=zbd` on a regular file and a non-zoned block device: fio
//! 3.33's examples zbd-rand-write.fio and zbd-seq-read.fio, scaled down (zones of 4 MiB on a
//! 64 MiB file), emulate the zones as fio does.

use std::path::Path;

use serde_json::Value;

use crate::support::*;

const MIB: u64 = 1 << 20;
const ZONE: u64 = 4 * MIB;
const BLOCK: u64 = 512 << 10;

/// zbd-rand-write.fio with zones of 4 MiB, 4 open at most, 4 clones, and `tail` at its end.
fn rand_write(file: &Path, tail: &str) -> String {
    format!(
        "[global]\nname=zbd-rand-write\ngroup_reporting\nrw=randwrite\nzonemode=zbd\n\
         zonesize=4M\nmax_open_zones=4\nbs=512K\ndirect=1\nnumjobs=4\n{tail}\n\
         [dev1]\nfilename={}\nioengine=psync\n",
        file.display()
    )
}

/// zbd-seq-read.fio from the third zone, 32 MiB.
fn seq_read(file: &Path, beyond: u8) -> String {
    format!(
        "[global]\nname=zbd-seq-read\nrw=read\nbs=256K\ndirect=1\nnumjobs=1\nzonemode=zbd\n\
         zonesize=4M\nread_beyond_wp={beyond}\n\
         [dev1]\nfilename={}\noffset=8M\nsize=32M\nioengine=libaio\niodepth=16\n",
        file.display()
    )
}

fn run_job(dir: &Path, text: &str, extra: &[&str]) -> Value {
    std::fs::write(dir.join("job.fio"), text).unwrap();
    let mut args = vec!["--output-format=json"];
    args.extend_from_slice(extra);
    args.push("job.fio");
    let out = crate::fio_run::fio(dir, &args);
    assert_success(&out);
    serde_json::from_str(&stdout(&out)).unwrap()
}

/// Per zone of `data`, which 512 KiB blocks hold something (diskdash writes no zero blocks).
fn blocks_with_data(data: &[u8]) -> Vec<Vec<bool>> {
    data.chunks(ZONE as usize)
        .map(|zone| {
            zone.chunks(BLOCK as usize)
                .map(|block| block.iter().step_by(4096).any(|&b| b != 0))
                .collect()
        })
        .collect()
}

/// Each zone is written from its start, block after block: its blocks with data are a prefix
/// of it, and at most `max_open` zones are partly written.
fn assert_zones_written_from_their_start(data: &[u8], max_open: usize) -> usize {
    let zones = blocks_with_data(data);
    let mut partial = 0;
    let mut blocks = 0;
    for (i, zone) in zones.iter().enumerate() {
        let prefix = zone.iter().take_while(|&&b| b).count();
        assert!(
            zone[prefix..].iter().all(|&b| !b),
            "zone {i} was not written sequentially from its start: {zone:?}"
        );
        if prefix > 0 && prefix < zone.len() {
            partial += 1;
        }
        blocks += prefix;
    }
    assert!(
        partial <= max_open,
        "{partial} zones partly written: {zones:?}"
    );
    blocks
}

/// zbd-rand-write.fio size-based (4 MiB a clone): the 32 random writes of 512 KiB land at the
/// zones' write pointers, so every zone holds data from its start only, and no more than
/// max_open_zones zones are left partly written. Plain random writes scatter instead.
#[test]
fn rand_write_writes_each_zone_from_its_start() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sdj");
    sparse_file(&file, 64 * MIB);
    let json = run_job(
        dir.path(),
        &rand_write(&file, "io_size=4m"),
        &["--allow-destructive"],
    );
    let write = &json["jobs"][0]["write"];
    assert_eq!(write["io_bytes"].as_u64(), Some(16 * MIB), "{write}");
    assert_eq!(write["total_ios"].as_u64(), Some(32), "{write}");
    let blocks = assert_zones_written_from_their_start(&std::fs::read(&file).unwrap(), 4);
    // A full zone aimed at again is reset and written from its start: no more blocks than
    // were written, and at least the 4 MiB of one clone's share of them.
    assert!((8..=32).contains(&blocks), "{blocks} blocks hold data");

    // The same writes without zonemode scatter over the zones.
    sparse_file(&file, 64 * MIB);
    let plain = rand_write(&file, "io_size=4m")
        .replace("zonemode=zbd\nzonesize=4M\nmax_open_zones=4\n", "");
    run_job(dir.path(), &plain, &["--allow-destructive"]);
    let scattered = blocks_with_data(&std::fs::read(&file).unwrap())
        .iter()
        .filter(|zone| zone.windows(2).any(|w| !w[0] && w[1]))
        .count();
    assert!(
        scattered > 0,
        "plain random writes left every zone a prefix"
    );
}

/// zbd-rand-write.fio time-based (runtime=1): fio's JSON with the job's writes; every zone
/// written, each from its start (full zones are reset and written again).
#[test]
fn rand_write_time_based_reports_as_fio() {
    let _turn = crate::support::timing_turn();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sdj");
    sparse_file(&file, 64 * MIB);
    let json = run_job(
        dir.path(),
        &rand_write(&file, "time_based\nruntime=1"),
        &["--allow-destructive"],
    );
    let jobs = json["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "group_reporting: one entry");
    let job = &jobs[0];
    assert_eq!(job["jobname"], "dev1");
    assert_eq!(job["error"].as_u64(), Some(0));
    let write = &job["write"];
    let bytes = write["io_bytes"].as_u64().unwrap();
    assert!(bytes >= 64 * MIB, "{write}");
    assert_eq!(write["total_ios"].as_u64().unwrap() * BLOCK, bytes);
    assert_eq!(job["read"]["io_bytes"].as_u64(), Some(0));
    assert_zones_written_from_their_start(&std::fs::read(&file).unwrap(), 4);
}

/// zbd-seq-read.fio: fio's emulated zones start empty, so with read_beyond_wp=0 the job reads
/// nothing and ends (fio 3.33 reports io_bytes 0 on a regular file); read_beyond_wp=1 reads
/// the job's 32 MiB.
#[test]
fn seq_read_reads_only_below_the_write_pointers() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sdd");
    sparse_file(&file, 64 * MIB);
    let json = run_job(dir.path(), &seq_read(&file, 0), &[]);
    assert_eq!(json["jobs"][0]["read"]["io_bytes"].as_u64(), Some(0));
    assert_eq!(json["jobs"][0]["error"].as_u64(), Some(0));
    let json = run_job(dir.path(), &seq_read(&file, 1), &[]);
    let read = &json["jobs"][0]["read"];
    assert_eq!(read["io_bytes"].as_u64(), Some(32 * MIB), "{read}");
}

/// --parse-only says how zonemode=zbd is taken.
#[test]
fn parse_only_shows_the_emulated_zones() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sdj");
    sparse_file(&file, 64 * MIB);
    std::fs::write(
        dir.path().join("job.fio"),
        rand_write(&file, "time_based\nruntime=1"),
    )
    .unwrap();
    let out = crate::fio_run::fio(dir.path(), &["--parse-only", "job.fio"]);
    assert_success(&out);
    assert_stdout_has(
        &out,
        "zones    zbd, emulated: zones of 4 MiB from empty, writes at each zone's write pointer",
    );
    assert_stdout_has(&out, "open at once: 4 (a clone: no limit)");
}

/// On a non-zoned block device (a loop device, queue/zoned "none") the zones are emulated as
/// on a file.
#[test]
#[ignore = "needs root"]
fn rand_write_on_a_loop_device_is_emulated() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let backing = dir.path().join("backing");
    sparse_file(&backing, 64 * MIB);
    let dev = LoopDevice::attach(&backing);
    run_job(
        dir.path(),
        &rand_write(dev.path(), "io_size=4m"),
        &["--allow-destructive"],
    );
    let blocks = assert_zones_written_from_their_start(&std::fs::read(&backing).unwrap(), 4);
    assert!((8..=32).contains(&blocks), "{blocks} blocks hold data");
}

/// The most writes in flight at once in one zone of `zone` bytes, from `strace -f` of the
/// writes (`pwrite64`): a write is in flight from its entry line to its end (the same line, or
/// its `resumed` line when another thread's call came between). strace prints a call's end
/// before the thread goes on, so a write placed after another's completion prints after it.
fn max_writes_in_flight_per_zone(trace: &str, zone: u64) -> (usize, usize) {
    let mut pending = std::collections::HashMap::new();
    let mut in_flight = std::collections::HashMap::<u64, usize>::new();
    let (mut writes, mut most) = (0, 0);
    for line in trace.lines() {
        let (pid, call) = line.split_once(' ').unwrap_or((line, ""));
        let call = call.trim_start();
        if call.starts_with("<... pwrite64 resumed>") {
            let z = pending.remove(pid).expect("a resumed write was started");
            *in_flight.get_mut(&z).unwrap() -= 1;
        } else if let Some(args) = call.strip_prefix("pwrite64(") {
            // pwrite64(fd, "data"..., len, offset) or `offset <unfinished ...>`.
            let offset: u64 = args
                .rsplit(", ")
                .next()
                .and_then(|tail| tail.split([')', ' ']).next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no offset in {line}"));
            let z = offset / zone;
            let count = in_flight.entry(z).or_default();
            *count += 1;
            most = most.max(*count);
            writes += 1;
            if call.ends_with("<unfinished ...>") {
                pending.insert(pid.to_string(), z);
            } else {
                *count -= 1;
            }
        }
    }
    (writes, most)
}

/// fio's zone lock: a write holds its zone until it completes, so four psync clones writing
/// the same four open zones never have two writes in flight in one zone (fio 3.33 on this
/// job: at most 1; without the lock diskdash had 4).
#[test]
#[ignore = "needs strace"]
fn rand_write_has_one_write_in_flight_per_zone() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sdj");
    sparse_file(&file, 64 * MIB);
    std::fs::write(dir.path().join("job.fio"), rand_write(&file, "io_size=8m")).unwrap();
    let trace = dir.path().join("trace");
    let out = std::process::Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=pwrite64", "-o"])
        .arg(&trace)
        .args([BIN, "fio", "--no-tui", "--allow-destructive", "job.fio"])
        .current_dir(dir.path())
        .output()
        .expect("strace runs (install strace)");
    assert_success(&out);
    let (writes, most) =
        max_writes_in_flight_per_zone(&std::fs::read_to_string(&trace).unwrap(), ZONE);
    assert_eq!(writes, 64, "4 clones of 8 MiB in writes of 512 KiB");
    assert_eq!(most, 1, "two writes in flight in one zone");
    assert_zones_written_from_their_start(&std::fs::read(&file).unwrap(), 4);
}

/// fio keeps a file's zones for the whole run: a stonewalled read job (read_beyond_wp=0)
/// reads what the write job before it wrote, and stops at the write pointers (fio 3.33: 12
/// MiB written, 12 MiB read), where zones of its own would be empty and read nothing.
#[test]
fn a_stonewalled_read_job_reads_what_the_write_job_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sdj");
    sparse_file(&file, 32 * MIB);
    let text = format!(
        "[global]\nzonemode=zbd\nzonesize=4M\ndirect=1\nfilename={}\nioengine=psync\n\
         bs=256K\nsize=16M\n[write]\nrw=write\nio_size=12M\n[read]\nstonewall\nrw=read\n",
        file.display()
    );
    let json = run_job(dir.path(), &text, &["--allow-destructive"]);
    let jobs = json["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "{json}");
    assert_eq!(jobs[0]["write"]["io_bytes"].as_u64(), Some(12 * MIB));
    assert_eq!(
        jobs[1]["read"]["io_bytes"].as_u64(),
        Some(12 * MIB),
        "{}",
        jobs[1]
    );
}

/// zone_reset_threshold=0.5 zone_reset_frequency=0.5, fio's meaning: once the zones hold half
/// the region (8 of 16 MiB), each second write resets its zone first. A sequential writer
/// fills zones 0 and 1, then stays at the start of zone 2 (fio 3.33: 16 zone resets in the
/// 64 writes); --parse-only says so, and a value out of 0..1 is refused.
#[test]
fn zone_reset_threshold_and_frequency_reset_zones_as_fio() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sdj");
    sparse_file(&file, 16 * MIB);
    let text = |threshold: &str| {
        format!(
            "[w]\nzonemode=zbd\nzonesize=4M\ndirect=1\nfilename={}\nioengine=psync\nbs=256K\n\
             size=16M\nrw=write\nzone_reset_threshold={threshold}\nzone_reset_frequency=0.5\n",
            file.display()
        )
    };
    let json = run_job(dir.path(), &text("0.5"), &["--allow-destructive"]);
    assert_eq!(
        json["jobs"][0]["write"]["io_bytes"].as_u64(),
        Some(16 * MIB)
    );
    let data = std::fs::read(&file).unwrap();
    let blocks: Vec<bool> = data
        .chunks(256 << 10)
        .map(|block| block.iter().step_by(4096).any(|&b| b != 0))
        .collect();
    assert!(blocks[..34].iter().all(|&b| b), "{blocks:?}");
    assert!(blocks[34..].iter().all(|&b| !b), "{blocks:?}");

    let out = crate::support::inproc::fio_parse_only(dir.path(), &["--parse-only", "job.fio"]);
    assert_success(&out);
    assert_stdout_has(
        &out,
        "and once the zones hold 50% of the region in data, one write in 2 resets its zone first",
    );
    std::fs::write(dir.path().join("job.fio"), text("1.5")).unwrap();
    let out = crate::support::inproc::fio_parse_only(dir.path(), &["--parse-only", "job.fio"]);
    assert_usage_error(&out);
    assert!(
        stderr(&out).contains("zone_reset_threshold \"1.5\" is not a fraction from 0 to 1"),
        "{}",
        stderr(&out)
    );
}
