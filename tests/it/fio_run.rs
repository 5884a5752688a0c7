//! `diskdash fio` running real jobs: a job file of four jobs at once (the LSM example, scaled
//! down) and its command-line form, the files a job names, the write interlock, `unlink`, and a
//! job that fails mid-step.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::record::assert_valid_record;
use crate::support::*;

/// The LSM store job file of the issue, at 16 MiB per job.
const LSM: &str = "\
[global]
ioengine=psync
fdatasync=1
thread=1
runtime=5

[write128]
rw=write
bs=128k
size=16M
filename=db-write128

[randread128]
rw=randread
bs=128k
size=16M
filename=db-randread128

[write256]
rw=write
bs=256k
size=16M
filename=db-write256

[randread256]
rw=randread
bs=256k
size=16M
filename=db-randread256
";

const NAMES: [&str; 4] = ["write128", "randread128", "write256", "randread256"];

/// `diskdash fio ARGS` in `dir`, headless.
pub fn fio(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("fio")
        .args(args)
        .arg("--no-tui")
        .current_dir(dir)
        .output()
        .expect("diskdash runs")
}

/// Writes `text` to `dir/job.fio`; its path.
pub fn job_file(dir: &Path, text: &str) -> String {
    let path = dir.join("job.fio");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// The record at `dir/r.json`, checked against the schema.
fn record(dir: &Path) -> Value {
    let record = read_json(&dir.join("r.json"));
    assert_valid_record(&record);
    record
}

/// Four jobs, one step, each with its bytes; one device window over the disk they share.
fn assert_lsm(record: &Value) {
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "one step");
    let jobs = steps[0]["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(names, NAMES);
    for job in jobs {
        assert_eq!(job["status"], "completed", "{}", job["name"]);
        assert_eq!(job["job"]["ioengine"], "psync");
        assert_eq!(job["job"]["fdatasync"], 1);
        assert_eq!(job["job"]["io_size"], 16 << 20);
        // Size-based: each moves its 16 MiB, once.
        let (moved, other) = if job["job"]["rw"] == "write" {
            (&job["write"], &job["read"])
        } else {
            (&job["read"], &job["write"])
        };
        assert_eq!(moved["io_bytes"], 16 << 20, "{}", job["name"]);
        assert_eq!(other["total_ios"], 0);
        assert!(job["elapsed_ns"].as_u64().unwrap() > 0);
    }
    // fdatasync=1: one sync per write.
    assert_eq!(jobs[0]["sync"]["total_ios"], 128);
    assert_eq!(jobs[2]["sync"]["total_ios"], 64);
    let step_read: u64 = steps[0]["read"]["io_bytes"].as_u64().unwrap();
    assert_eq!(step_read, 32 << 20, "the step's totals are its jobs' sums");
    let devices = steps[0]["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "one disk, one window: {devices:?}");
    assert_eq!(
        devices[0]["reconciliation"]["app_write_ios"],
        128 + 64,
        "the window is reconciled against every job on the disk"
    );
}

#[test]
fn a_job_file_runs_its_four_jobs_at_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("db.fio"), LSM).unwrap();
    let out = fio(dir.path(), &["db.fio", "--json", "r.json"]);
    assert_success(&out);
    assert_stderr_has(&out, "diskdash fio: step 1/1: 4 jobs at once");
    for name in NAMES {
        assert_stderr_has(
            &out,
            &format!("note: created db-{name}; it is left in place (unlink=1 removes it)"),
        );
        // Files a job names are left in place, like fio.
        let file = dir.path().join(format!("db-{name}"));
        assert_eq!(std::fs::metadata(&file).unwrap().len(), 16 << 20, "{name}");
        assert_stdout_has(&out, name);
    }
    assert_lsm(&record(dir.path()));
}

/// The scale: 256 MiB per job, `runtime=5` as the cap. The text reads like fio's: a
/// block per job, the group's totals and the disk's stats, in that order.
#[test]
fn the_job_file_at_256m_runs_within_its_runtime_and_reports_like_fio() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("db.fio"),
        LSM.replace("size=16M", "size=256M"),
    )
    .unwrap();
    let out = fio(dir.path(), &["db.fio", "--json", "r.json"]);
    assert_success(&out);
    let text = stdout(&out);
    let mut at = 0;
    for name in NAMES {
        at += text[at..]
            .find(&format!("{name}: (groupid=0"))
            .unwrap_or_else(|| panic!("no block of {name} after byte {at}:\n{text}"));
    }
    let group = text
        .find("Run status group 0 (all jobs):")
        .expect("group totals");
    let disks = text.find("Disk stats (read/write):").expect("disk stats");
    assert!(
        at < group && group < disks,
        "jobs, then group, then disks:\n{text}"
    );
    let record = record(dir.path());
    let step = &record["segments"][0];
    let jobs = step["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 4);
    for job in jobs {
        assert_eq!(job["status"], "completed", "{}", job["name"]);
        let moved =
            job["read"]["io_bytes"].as_u64().unwrap() + job["write"]["io_bytes"].as_u64().unwrap();
        assert!(
            moved > 0 && moved <= 256 << 20,
            "{}: {moved} bytes, at most its size",
            job["name"]
        );
        // runtime=5 caps a job that has not moved its size by then.
        assert!(
            job["elapsed_ns"].as_u64().unwrap() < 6_000_000_000,
            "{}",
            job["name"]
        );
    }
    assert_eq!(step["devices"].as_array().unwrap().len(), 1);
}

#[test]
fn the_command_line_form_runs_the_same_plan() {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = [
        "--ioengine=psync",
        "--fdatasync=1",
        "--thread",
        "--runtime=5",
    ]
    .map(String::from)
    .to_vec();
    for (name, rw, bs) in [
        ("write128", "write", "128k"),
        ("randread128", "randread", "128k"),
        ("write256", "write", "256k"),
        ("randread256", "randread", "256k"),
    ] {
        args.extend([
            format!("--name={name}"),
            format!("--rw={rw}"),
            format!("--bs={bs}"),
            "--size=16M".to_string(),
            format!("--filename=db-{name}"),
        ]);
    }
    args.extend(["--json".to_string(), "r.json".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = fio(dir.path(), &args);
    assert_success(&out);
    assert_lsm(&record(dir.path()));
}

#[test]
fn an_existing_file_with_data_is_written_only_with_the_command_line_opt_in() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data"), vec![7u8; 1 << 20]).unwrap();
    let job = ["--name=w", "--rw=write", "--filename=data", "--size=1M"];
    let out = fio(dir.path(), &job);
    assert_usage_error(&out);
    assert_eq!(
        stderr(&out),
        "error: refusing to write to data: it holds 1 MiB of data; pass --allow-destructive \
         to overwrite it\n"
    );
    assert_eq!(
        std::fs::read(dir.path().join("data")).unwrap(),
        vec![7u8; 1 << 20]
    );
    let mut allowed = job.to_vec();
    allowed.push("--allow-destructive");
    assert_success(&fio(dir.path(), &allowed));
}

#[test]
fn unlink_removes_the_files_the_run_created_and_only_those() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("kept"), vec![7u8; 1 << 20]).unwrap();
    let out = fio(
        dir.path(),
        &[
            "--unlink=1",
            "--size=1M",
            "--name=new",
            "--rw=write",
            "--filename=made",
            "--name=old",
            "--rw=read",
            "--filename=kept",
            "--json",
            "r.json",
        ],
    );
    assert_success(&out);
    assert_stderr_has(
        &out,
        "note: created made; it is removed at the end (unlink=1)",
    );
    assert!(!dir.path().join("made").exists());
    assert_eq!(
        std::fs::read(dir.path().join("kept")).unwrap(),
        vec![7u8; 1 << 20]
    );
    let record = record(dir.path());
    let jobs = &record["segments"][0]["jobs"];
    assert_eq!(jobs[0]["target"]["scratch_removed"], true);
    assert_eq!(jobs[1]["target"]["scratch_removed"], false);
}

#[test]
fn the_null_engine_makes_fills_and_leaves_no_file_as_fios() {
    // fio's null engine is diskless: its default file (job.0.0, one per clone) is never made.
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--name=job",
            "--ioengine=null",
            "--rw=randwrite",
            "--size=64M",
            "--numjobs=2",
            "--output-format=terse",
        ],
    );
    assert_success(&out);
    let err = stderr(&out);
    for absent in ["created", "preparing", "buffered I/O"] {
        assert!(!err.contains(absent), "{absent}: {err}");
    }
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    // bench's null engine on a directory makes no scratch file either, nor fills one.
    let out = Command::new(BIN)
        .args(["bench", ".", "--ioengine", "null", "--size", "64M"])
        .args(["--runtime", "200ms", "--no-tui"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_success(&out);
    assert!(!stderr(&out).contains("preparing"), "{}", stderr(&out));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn stonewall_runs_steps_one_after_another() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            "--size=2M",
            "--name=fill",
            "--rw=write",
            "--filename=f",
            "--name=read",
            "--stonewall",
            "--rw=read",
            "--filename=f",
            "--json",
            "r.json",
        ],
    );
    assert_success(&out);
    let record = record(dir.path());
    let steps = record["segments"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["jobs"][0]["name"], "fill");
    assert_eq!(steps[1]["jobs"][0]["name"], "read");
    assert_eq!(steps[1]["jobs"][0]["group"], 1);
    assert_eq!(steps[1]["jobs"][0]["read"]["io_bytes"], 2 << 20);
}

/// A job that fails stops its step; the others drain, and the record says which job and why.
/// The filler's file fits when the run starts; another program then takes the rest of the
/// space while the filler, paced, is still laying it out.
#[test]
#[ignore = "needs root"]
fn a_failing_job_stops_the_step_and_the_record_names_it() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("fs.img");
    ext4_image(&image, 16 << 20);
    let dev = LoopDevice::attach(&image);
    let mnt = dir.path().join("mnt");
    let _mount = Mount::new(&[dev.path().to_str().unwrap()], &mnt);
    let big = mnt.join("big");
    let child = Command::new(BIN)
        .arg("fio")
        .args([
            "--name=reader",
            "--rw=randread",
            "--size=4M",
            "--filename=reads",
            "--time_based",
            "--runtime=30",
            "--name=filler",
            "--rw=write",
            "--bs=64k",
            "--size=8M",
            "--rate=2m",
            // Not laid out: the file grows as written, so the filesystem fills mid-run.
            "--fallocate=none",
            &format!("--filename={}", big.display()),
            "--json",
            "r.json",
            "--no-tui",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::fs::metadata(&big).map_or(0, |m| m.len()) == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the filler never wrote"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let stat = nix::sys::statvfs::statvfs(&mnt).unwrap();
    let free = stat.blocks_available() * stat.fragment_size();
    run(
        "fallocate",
        &["-l", &free.to_string(), mnt.join("hog").to_str().unwrap()],
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_stderr_has(&out, "error: job filler: write at offset");
    assert_stderr_has(&out, "(ENOSPC)");
    let record = record(dir.path());
    assert_eq!(record["status"], "failed");
    let jobs = &record["segments"][0]["jobs"];
    // Cut short by the other job's failure, not failed itself.
    assert_eq!(jobs[0]["status"], "interrupted");
    assert!(jobs[0]["read"]["total_ios"].as_u64().unwrap() > 0);
    assert_eq!(jobs[1]["status"], "failed");
    assert_eq!(jobs[1]["error"]["errno_name"], "ENOSPC");
}

/// `--jsonl` lines of a step of several jobs carry each job's part, summing to the line.
#[test]
fn interval_lines_carry_each_jobs_part() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio(
        dir.path(),
        &[
            // Direct psync: the workers wait in the kernel, not on the CPU the session needs.
            "--direct=1",
            "--size=4M",
            "--time_based",
            "--runtime=1",
            "--status-interval=250ms",
            "--name=a",
            "--filename=a",
            "--name=b",
            "--rw=randread",
            "--filename=b",
            "--jsonl",
            "j.jsonl",
        ],
    );
    assert_success(&out);
    let lines = json_lines(&std::fs::read_to_string(dir.path().join("j.jsonl")).unwrap());
    assert!(lines.len() >= 3, "{} lines", lines.len());
    for line in &lines {
        let jobs = line["jobs"].as_array().unwrap();
        let names: Vec<&str> = jobs.iter().map(|j| j["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["a", "b"]);
        let sum: u64 = jobs
            .iter()
            .map(|j| j["read"]["total_ios"].as_u64().unwrap())
            .sum();
        assert_eq!(line["read"]["total_ios"].as_u64().unwrap(), sum);
        assert!(
            jobs.iter()
                .all(|j| j["read"]["total_ios"].as_u64().unwrap() > 0)
        );
    }
}

/// Each job's workers run on its own `cpus_allowed`: `split` pins one CPU per worker, `shared`
/// lets each use the whole list. Read from the running threads' `Cpus_allowed_list`.
#[test]
#[ignore = "needs 2 CPUs"]
fn each_job_runs_on_its_own_cpus() {
    let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    assert!(
        cpus >= 2,
        "this test needs 2 CPUs, this process may use {cpus}: run it on a larger machine, or \
         leave out --include-ignored"
    );
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args([
            "fio",
            "--no-tui",
            "--ioengine=null",
            "--size=1M",
            "--time_based",
            "--runtime=5",
            "--name=one",
            "--cpus_allowed=1",
            "--filename=a",
            "--name=both",
            "--numjobs=2",
            "--cpus_allowed=0-1",
            "--cpus_allowed_policy=shared",
            "--filename=b",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let task_dir = format!("/proc/{}/task", child.id());
    // Worker ids count every job's workers: bench-0 is job one's, bench-1 and bench-2 job both's.
    let mut seen = std::collections::BTreeMap::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(4);
    while seen.len() < 3 && std::time::Instant::now() < deadline {
        for task in std::fs::read_dir(&task_dir).into_iter().flatten().flatten() {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            let status = std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
            if let Some(list) = status
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                && comm.starts_with("bench-")
            {
                seen.insert(comm.trim().to_string(), list.trim().to_string());
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        seen.get("bench-0").map(String::as_str),
        Some("1"),
        "{seen:?}"
    );
    assert_eq!(
        seen.get("bench-1").map(String::as_str),
        Some("0-1"),
        "{seen:?}"
    );
    assert_eq!(
        seen.get("bench-2").map(String::as_str),
        Some("0-1"),
        "{seen:?}"
    );
}
