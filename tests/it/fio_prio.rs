//! fio's I/O priority and NUMA options: `prio`, `prioclass`, `cmdprio_percentage`,
//! `cmdprio_class`, `cmdprio`, `cmdprio_bssplit`, `numa_cpu_nodes`, `numa_mem_policy`, in job
//! files shaped as fio's cmdprio-bssplit.fio, cmdprio-percentage.fio and numa.fio; and runs
//! that look at the worker thread from outside (its ioprio, its CPUs) while it runs.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::fio_run::fio;
use crate::support::*;

/// `diskdash fio --parse-only` on `job` written to `dir`, in this process
/// (`inproc::fio_parse_only`, what the binary runs).
fn parse_only(dir: &Path, job: &str) -> Output {
    std::fs::write(dir.join("j.fio"), job).unwrap();
    inproc::fio_parse_only(dir, &["--parse-only", "j.fio"])
}

/// As `parse_only`, by the binary: the end-to-end check beside the in-process ones.
fn parse_only_spawned(dir: &Path, job: &str) -> Output {
    std::fs::write(dir.join("j.fio"), job).unwrap();
    fio(dir, &["--parse-only", "j.fio"])
}

/// Per-I/O priorities by block size, in both of fio's forms, with and without a thread
/// priority beside them (as fio's cmdprio-bssplit.fio).
const BSSPLIT_JOB: &str = "[global]
filename=data
size=8m
direct=1
rw=randrw
ioengine=libaio
iodepth=4
write_lat_log=prio-run.log
log_prio=1

[plain]
bssplit=64k/40:1024k/60,1024k/100
cmdprio_bssplit=64k/100:1024k/0,1024k/0
cmdprio_class=1
cmdprio=0

[per-entry]
stonewall
bssplit=64k/40:1024k/60,1024k/100
cmdprio_bssplit=64k/25/1/1:64k/75/3/2:1024k/0,1024k/0

[with-default]
stonewall
prioclass=2
prio=7
bssplit=64k/40:1024k/60,1024k/100
cmdprio_bssplit=64k/25/1/1:64k/75/3/2:1024k/0,1024k/0
";

#[test]
fn fios_priority_and_numa_examples_parse() {
    let dir = tempfile::tempdir().unwrap();
    let out = parse_only_spawned(dir.path(), BSSPLIT_JOB);
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        text.contains("cmdprio_bssplit=64k/100/1/0,"),
        "the short form takes cmdprio_class and cmdprio: {text}"
    );
    assert!(
        text.contains("prioclass=2 prio=7 cmdprio_bssplit=64k/25/1/1:64k/75/3/2,"),
        "{text}"
    );
    // As cmdprio-percentage.fio: an idle thread, a fifth of its reads at rt.
    let out = parse_only(
        dir.path(),
        "[global]\nfilename=data\nsize=8m\ndirect=1\n[randread]\nrw=randread\nbs=128k\n\
         ioengine=libaio\niodepth=8\nprioclass=3\ncmdprio_percentage=20\ncmdprio_class=1\n",
    );
    assert_success(&out);
    assert!(
        stdout(&out).contains("prioclass=3 prio=0 cmdprio_percentage=20,20 cmdprio_class=1,1"),
        "{}",
        stdout(&out)
    );
    // As numa.fio: node 1 is looked for when the job runs (fio's --parse-only accepts it too).
    let out = parse_only(
        dir.path(),
        "[global]\nioengine=libaio\nbuffered=0\nrw=randread\nbs=512K\niodepth=16\nsize=8m\n\
         filename=data\n[job1]\nnuma_cpu_nodes=0\nnuma_mem_policy=bind:0\n[job2]\n\
         numa_cpu_nodes=0-1\nnuma_mem_policy=interleave:0-1\n",
    );
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        text.contains("numa_cpu_nodes=0 numa_mem_policy=bind:0"),
        "{text}"
    );
    assert!(
        text.contains("numa_cpu_nodes=0-1 numa_mem_policy=interleave:0-1"),
        "{text}"
    );
}

#[test]
fn bad_priority_options_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "ioengine=psync\ncmdprio_percentage=20\n",
            "j.fio:4: cmdprio_percentage \"20\": per-I/O priorities are options of fio's libaio \
             and io_uring engines, not of ioengine=psync; use ioengine=io_uring or libaio",
        ),
        (
            "ioengine=libaio\ncmdprio_bssplit=64k/25/4/1\n",
            "j.fio:4: cmdprio_bssplit \"64k/25/4/1\": \"64k/25/4/1\": the class is 1 (rt), 2 (be) \
             or 3 (idle) and the level 0 to 7; use e.g. 64k/25:1M/0 or 64k/25/1/1",
        ),
        (
            "ioengine=libaio\ncmdprio_bssplit=4k/60:4k/50\n",
            "j.fio:4: cmdprio_bssplit \"4k/60:4k/50\": \"4k/60:4k/50\": the percentages of 4k add \
             up to 110, over 100; use e.g. 64k/25:1M/0 or 64k/25/1/1",
        ),
        (
            "prioclass=4\n",
            "j.fio:3: prioclass \"4\" is not an I/O priority class (1 rt, 2 be, 3 idle); use 0 \
             to 3",
        ),
        (
            "numa_mem_policy=prefer:0-1\n",
            "j.fio:3: numa_mem_policy \"prefer:0-1\": prefer takes one node, e.g. prefer:0",
        ),
    ];
    for (i, (lines, want)) in cases.into_iter().enumerate() {
        let job = format!("[a]\nrw=read\n{lines}size=1m\nfilename=f\n");
        // The first by the binary, end to end.
        let out = if i == 0 {
            parse_only_spawned(dir.path(), &job)
        } else {
            parse_only(dir.path(), &job)
        };
        assert_eq!(out.status.code(), Some(2), "{job}: {}", stderr(&out));
        assert_eq!(stderr(&out), format!("error: {want}\n"), "{job}");
    }
}

/// Starts `diskdash fio j.fio` in `dir` and waits for its `bench-0` thread; its tid.
fn start_and_find_worker(dir: &Path, job: &str) -> (Child, i32) {
    std::fs::write(dir.join("j.fio"), job).unwrap();
    let mut child = Command::new(BIN)
        .args(["fio", "j.fio", "--no-tui"])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tasks = format!("/proc/{}/task", child.id());
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        for task in std::fs::read_dir(&tasks).into_iter().flatten().flatten() {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            if comm.trim() == "bench-0" {
                let tid = task.file_name().to_string_lossy().parse().unwrap();
                // The thread sets its priority and CPUs first thing; give it a moment.
                std::thread::sleep(Duration::from_millis(300));
                return (child, tid);
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("no bench-0 thread in {tasks}");
}

fn ioprio_of(tid: i32) -> i64 {
    // SAFETY: ioprio_get(IOPRIO_WHO_PROCESS, tid) reads two integers only.
    unsafe { libc::syscall(libc::SYS_ioprio_get, 1, tid) }
}

#[test]
fn the_worker_thread_runs_at_the_jobs_priority_and_numa_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let (child, tid) = start_and_find_worker(
        dir.path(),
        "[a]\nrw=randread\nioengine=libaio\niodepth=4\nsize=4m\nfilename=data\ntime_based\n\
         runtime=2s\nprioclass=2\nprio=5\ncmdprio_percentage=50\ncmdprio_class=3\n\
         numa_cpu_nodes=0\nnuma_mem_policy=bind:0\n",
    );
    let ioprio = ioprio_of(tid);
    let status =
        std::fs::read_to_string(format!("/proc/{}/task/{tid}/status", child.id())).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_success(&out);
    assert_eq!(ioprio, (2 << 13) | 5, "be/5 on the worker thread");
    let node0 = std::fs::read_to_string("/sys/devices/system/node/node0/cpulist").unwrap();
    let allowed = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(allowed, node0.trim(), "the worker runs on node 0's CPUs");
}

#[test]
fn cmdprio_runs_on_io_uring_and_libaio() {
    for engine in ["io_uring", "libaio"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("j.fio"),
            format!(
                "[a]\nrw=randrw\nioengine={engine}\niodepth=8\nsize=4m\nfilename=data\n\
                 bssplit=4k/50:64k/50\ncmdprio_bssplit=4k/50/3/0:64k/100/2/1\nio_size=2m\n"
            ),
        )
        .unwrap();
        let out = fio(dir.path(), &["j.fio", "--output-format=json"]);
        assert_success(&out);
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let read = json["jobs"][0]["read"]["io_bytes"].as_u64().unwrap();
        let write = json["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
        // Size-based: it ends when the next I/O (up to 64k) no longer fits in io_size.
        assert!(
            read > 0 && write > 0 && read + write > (2 << 20) - (64 << 10),
            "{engine}: {read} + {write} bytes"
        );
        assert!(read + write <= 2 << 20, "{engine}: {read} + {write} bytes");
    }
}

#[test]
fn a_numa_node_that_is_not_there_is_named_when_the_job_runs() {
    let dir = tempfile::tempdir().unwrap();
    for (option, value) in [("numa_cpu_nodes", "63"), ("numa_mem_policy", "bind:63")] {
        std::fs::write(
            dir.path().join("j.fio"),
            format!("[a]\nrw=read\nsize=1m\nfilename=data\n{option}={value}\n"),
        )
        .unwrap();
        let out = fio(dir.path(), &["j.fio"]);
        assert_eq!(out.status.code(), Some(1), "{option}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(
                "NUMA node 63 does not exist on this machine (no \
                 /sys/devices/system/node/node63)"
            ),
            "{option}: {err}"
        );
    }
}
