//! Memory, thread and plan-size limits: refused before anything runs, with the estimate; failures under resource limits leave a record and no scratch file.
//!
//! Each command runs under a timeout and (where given) an address-space limit; its own peak
//! resident set is polled while it runs, so "refused cheaply" is measured, not assumed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::limited::{self, Limited};
use crate::support::{BIN, read_json, require_root};

/// A command still running after this is a failure.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `command` (no stdin) to its end: its status, stderr, own peak memory and time;
/// killed, and the test failed, after [`TIMEOUT`].
fn finish(mut command: Command, address_space: Option<u64>) -> Limited {
    command.stdin(Stdio::null());
    let out = limited::run(command, address_space, TIMEOUT);
    assert!(
        !out.timed_out,
        "still running after {TIMEOUT:?}: {}",
        out.stderr
    );
    out
}

/// `diskdash ARGS` in `dir`, under an address-space limit when one is given.
fn diskdash(dir: &Path, args: &[&str], address_space: Option<u64>) -> Limited {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(dir);
    finish(command, address_space)
}

/// Files diskdash leaves only when something went wrong: scratch files and records' temporary
/// files.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with(".diskdash-scratch-") || name.contains(".tmp-"))
        .collect()
}

/// Exit 2 in under 2 s of its own CPU time (the wall clock is the load's too: it is bounded
/// by [`TIMEOUT`]) with under 100 MB resident, one `error: ` line holding each `want`, nothing
/// created in `dir`.
fn assert_refused_cheaply(out: &Limited, dir: &Path, want: &[&str]) {
    assert_eq!(out.code, Some(2), "stderr: {}", out.stderr);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {}", out.stderr);
    assert!(lines[0].starts_with("error: "), "{}", lines[0]);
    for w in want {
        assert!(lines[0].contains(w), "{:?} lacks {w:?}", lines[0]);
    }
    assert!(
        out.cpu < Duration::from_secs(2),
        "took {:?} of CPU ({:?} in all)",
        out.cpu,
        out.took
    );
    assert!(
        out.peak_rss_bytes < 100_000_000,
        "peak RSS {} MB",
        out.peak_rss_bytes / 1_000_000
    );
    assert_eq!(leftovers(dir), Vec::<String>::new());
}

/// Millions of points are refused from the axes' counts, with or without `--yes`: the plan is
/// never built (it took 2.7 GB to say "pass --yes" to 1.15M points, and 11.5M aborted).
#[test]
fn a_sweep_of_millions_of_points_is_refused_from_its_counts() {
    let _turn = crate::support::timing_turn();
    let dir = tempfile::tempdir().unwrap();
    let sizes: Vec<String> = (1..=1000).map(|n| (n * 512).to_string()).collect();
    let sizes = sizes.join(",");
    let huge = [
        "sweep",
        "--bs",
        &sizes,
        "-q",
        "1..16384",
        "-j",
        "1..1024",
        "--rw",
        "read,write,randread,randwrite,rw,randrw",
        "--ioengine",
        "io_uring,psync",
        "--direct",
        "yes,no",
        "--no-tui",
    ];
    for yes in [false, true] {
        let mut args = huge.to_vec();
        if yes {
            args.push("--yes");
        }
        let out = diskdash(dir.path(), &args, Some(1 << 30));
        assert_refused_cheaply(
            &out,
            dir.path(),
            &[
                "3960000 points",
                "makes 3960000 steps, more than the 100000 a sweep may have even with --yes",
                "sweep fewer values",
            ],
        );
    }
    // Under the hard cap, over the soft one: the question, as cheaply.
    let out = diskdash(
        dir.path(),
        &["sweep", "--bs", &sizes, "-q", "1..16384", "--no-tui"],
        Some(1 << 30),
    );
    assert_refused_cheaply(
        &out,
        dir.path(),
        &["15000 points x ", "or 500 steps; pass --yes to run it"],
    );
}

/// `-j 1024 -q 16384 --bs 512` passed as "8 GiB of buffers" and was OOM-killed: each 512-byte
/// buffer takes a 4 KiB page, and every worker has its statistics and thread. The estimate
/// says so, by part, before a file is created.
#[test]
fn a_job_is_refused_on_its_whole_memory_estimate_before_a_file_exists() {
    let dir = tempfile::tempdir().unwrap();
    let out = diskdash(
        dir.path(),
        &[
            "bench", "-j", "1024", "-q", "16384", "--bs", "512", "--no-tui",
        ],
        None,
    );
    assert_refused_cheaply(
        &out,
        dir.path(),
        &[
            "--bs 512 x --iodepth 16384 x --numjobs 1024 needs an estimated 71.9 GiB of memory",
            "I/O buffers 64 GiB, 16777216 queue slots 4 GiB, 1024 workers 3.9 GiB",
            "lower --iodepth, --numjobs or --bs",
        ],
    );
}

/// Under `ulimit -v`, a job whose estimate (with each thread's stack) does not fit the address
/// space left is refused before anything runs, naming the limit.
#[test]
fn a_job_over_the_address_space_left_is_refused_naming_ulimit() {
    let dir = tempfile::tempdir().unwrap();
    let out = diskdash(
        dir.path(),
        &["bench", "-j", "256", "-q", "1", "--size", "16M", "--no-tui"],
        Some(1 << 30),
    );
    assert_refused_cheaply(
        &out,
        dir.path(),
        &[
            "the job needs an estimated ",
            "of address space (I/O buffers 1 MiB, 256 queue slots 64 KiB, 256 workers",
            "258 thread stacks of 2 MiB",
            "that ulimit -v (RLIMIT_AS, 1 GiB) leaves",
            "raise ulimit -v, or lower --iodepth (-q), --numjobs (-j) or --bs",
        ],
    );
}

/// Address-space limits from just above the binary's own mappings up: each run completes, fails
/// with its record, or is refused up front; none aborts (exit 134: the allocator's abort left
/// `.diskdash-scratch-*` and the record's temporary file behind) or leaves a file.
#[test]
fn an_address_space_limit_never_aborts_a_run_or_leaves_its_files() {
    let dir = tempfile::tempdir().unwrap();
    // Limits at which diskdash itself started (below a floor that grows with the binary, the
    // dynamic loader cannot map libc and nothing of diskdash runs).
    let mut started = 0;
    for mib in [24u64, 28, 32, 40, 48, 64] {
        for jobs in ["1", "4"] {
            let out = diskdash(
                dir.path(),
                &[
                    "bench",
                    "-j",
                    jobs,
                    "--size",
                    "16M",
                    "--runtime",
                    "300ms",
                    "--no-tui",
                    "--json",
                    "r.json",
                ],
                Some(mib << 20),
            );
            let what = format!("ulimit -v {} -j {jobs}", mib << 10);
            // Below the floor the dynamic loader fails (127) or crashes before diskdash's
            // first instruction (SIGSEGV, nothing said): then `--version` fails the same way.
            let loader_failed = out.code == Some(127)
                && out.stderr.contains("error while loading shared libraries")
                || out.stderr.is_empty()
                    && out.signal == Some(libc::SIGSEGV)
                    && diskdash(dir.path(), &["--version"], Some(mib << 20)).code != Some(0);
            if loader_failed {
                assert_eq!(leftovers(dir.path()), Vec::<String>::new(), "{what}");
                continue;
            }
            started += 1;
            assert!(
                matches!(out.code, Some(0..=2)),
                "{what}: exit {:?} signal {:?}: {}",
                out.code,
                out.signal,
                out.stderr
            );
            assert!(!out.stderr.contains("panicked"), "{what}: {}", out.stderr);
            assert_eq!(leftovers(dir.path()), Vec::<String>::new(), "{what}");
            let record = dir.path().join("r.json");
            match out.code {
                Some(2) => {
                    assert_eq!(out.errors().len(), 1, "{what}: {}", out.stderr);
                    assert!(!record.exists(), "{what}: refused before anything ran");
                }
                _ => {
                    let status = read_json(&record)["status"].clone();
                    let want = if out.code == Some(0) {
                        "completed"
                    } else {
                        "failed"
                    };
                    assert_eq!(status, want, "{what}: {}", out.stderr);
                }
            }
            let _ = std::fs::remove_file(&record);
        }
    }
    // The limits near the refusal threshold must have been tried for real.
    assert!(
        started >= 8,
        "diskdash started under only {started} of the 12 limits"
    );
}

/// A pids controller to put a command in: cgroup v2 where it has the controller, else v1's
/// `pids` hierarchy. Removed when dropped (its processes have exited by then).
struct PidsCgroup(PathBuf);

impl PidsCgroup {
    fn new(max: u32) -> Self {
        let v2 = Path::new("/sys/fs/cgroup");
        let has_pids = |root: &Path| {
            std::fs::read_to_string(root.join("cgroup.controllers"))
                .is_ok_and(|c| c.split_whitespace().any(|w| w == "pids"))
        };
        let root = if has_pids(v2) {
            let _ = std::fs::write(v2.join("cgroup.subtree_control"), "+pids");
            v2.to_path_buf()
        } else if v2.join("pids/cgroup.procs").exists() {
            v2.join("pids")
        } else {
            panic!("no pids controller under /sys/fs/cgroup (v2 or v1)");
        };
        let dir = root.join(format!("diskdash-limits-{}-{max}", std::process::id()));
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("pids.max"), max.to_string()).unwrap();
        Self(dir)
    }

    fn run(&self, dir: &Path, args: &[&str]) -> Limited {
        run_in_cgroup(&self.0, dir, args)
    }
}

/// `diskdash ARGS` in `dir`, moved into `cgroup` before it starts.
fn run_in_cgroup(cgroup: &Path, dir: &Path, args: &[&str]) -> Limited {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("echo $$ > \"$0/cgroup.procs\" && exec \"$@\"")
        .arg(cgroup)
        .arg(BIN)
        .args(args)
        .current_dir(dir);
    finish(command, None)
}

impl Drop for PidsCgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// Under a pids limit, a thread that cannot start (the session's, the server's, a worker's) is
/// a failed run: exit 1, one error line and no panic, the record saying why, no scratch file.
/// `pids.max=12` with `-j 16` panicked with a backtrace and wrote no record.
#[test]
#[ignore = "needs root"]
fn a_thread_that_cannot_start_fails_the_run_with_its_record() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let cases: [(u32, &[&str], &str); 4] = [
        (1, &[], "cannot start the session thread"),
        (2, &["--serve", "127.0.0.1:0"], "starting the serve thread"),
        (2, &[], "cannot start worker thread 0"),
        (12, &[], "cannot start worker thread"),
    ];
    for (max, extra, want) in cases {
        let cgroup = PidsCgroup::new(max);
        let mut args = vec![
            "bench",
            "-j",
            "16",
            "--size",
            "16M",
            "--runtime",
            "300ms",
            "--no-tui",
            "--json",
            "r.json",
        ];
        args.extend_from_slice(extra);
        let out = cgroup.run(dir.path(), &args);
        let what = format!("pids.max={max} {extra:?}");
        assert_eq!(out.code, Some(1), "{what}: {}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{what}: {}", out.stderr);
        let errors = out.errors();
        assert_eq!(errors.len(), 1, "{what}: {}", out.stderr);
        assert!(errors[0].contains(want), "{what}: {}", errors[0]);
        let record = read_json(&dir.path().join("r.json"));
        assert_eq!(record["status"], "failed", "{what}");
        let message = record["error"]["message"].as_str().unwrap();
        assert!(message.contains(want), "{what}: {message}");
        assert_eq!(leftovers(dir.path()), Vec::<String>::new(), "{what}");
        std::fs::remove_file(dir.path().join("r.json")).unwrap();
    }
}

/// A memory cgroup's limit is part of what is available: a step over 3/4 of the room under it
/// is refused before anything runs, naming the cgroup; a job file's jobs of one step add up.
#[test]
#[ignore = "needs root"]
fn a_memory_cgroup_limit_bounds_a_step_and_its_jobs_add_up() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let cgroup = MemoryCgroup::new(512 << 20);
    let out = cgroup.run(
        dir.path(),
        &[
            "bench", "-j", "64", "-q", "1024", "--size", "16M", "--no-tui",
        ],
    );
    assert_refused_cheaply(
        &out,
        dir.path(),
        &[
            "the job needs an estimated ",
            "(I/O buffers 256 MiB, 65536 queue slots 16 MiB, 64 workers 363.9 MiB, random maps 32 KiB), more than 3/4",
            "the room under the cgroup /",
            "512 MiB limit",
        ],
    );
    // Two jobs of 32 workers: each would fit, together they do not.
    let job = |name: &str| {
        format!(
            "[{name}]\nioengine=io_uring\nrw=randread\nnumjobs=32\niodepth=1024\nsize=16M\nfilename=f-{name}\n"
        )
    };
    std::fs::write(dir.path().join("two.fio"), job("a") + &job("b")).unwrap();
    let out = cgroup.run(dir.path(), &["fio", "two.fio", "--no-tui"]);
    assert_refused_cheaply(
        &out,
        dir.path(),
        &["the 2 jobs, which run at once, need an estimated "],
    );
    assert!(!dir.path().join("f-a").exists(), "nothing created");
    std::fs::write(dir.path().join("one.fio"), job("a")).unwrap();
    let out = cgroup.run(dir.path(), &["fio", "one.fio", "--no-tui"]);
    assert_eq!(out.code, Some(0), "one of them runs: {}", out.stderr);
}

/// A memory cgroup (v2 `memory.max`, else v1 `memory.limit_in_bytes`) to run a command in.
struct MemoryCgroup(PathBuf);

impl MemoryCgroup {
    fn new(limit: u64) -> Self {
        let v2 = Path::new("/sys/fs/cgroup");
        let name = format!("diskdash-limits-mem-{}", std::process::id());
        let v2_memory = std::fs::read_to_string(v2.join("cgroup.controllers"))
            .is_ok_and(|c| c.split_whitespace().any(|w| w == "memory"));
        let (dir, file) = if v2_memory {
            let _ = std::fs::write(v2.join("cgroup.subtree_control"), "+memory");
            (v2.join(name), "memory.max")
        } else if v2.join("memory/cgroup.procs").exists() {
            (v2.join("memory").join(name), "memory.limit_in_bytes")
        } else {
            panic!("no memory controller under /sys/fs/cgroup (v2 or v1)");
        };
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join(file), limit.to_string()).unwrap();
        Self(dir)
    }

    fn run(&self, dir: &Path, args: &[&str]) -> Limited {
        run_in_cgroup(&self.0, dir, args)
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}
