//! fio's io_uring options on `bench` and in job files: SQPOLL, vectored I/O, registration
//! toggles, and polled I/O (`hipri`), which a disk without poll queues refuses up front.

use std::path::Path;

use crate::support::record::*;
use crate::support::*;

/// The `queue/io_poll` of the disk under `dir` (`None`: not found).
fn io_poll_of(dir: &Path) -> Option<bool> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(dir).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let sys = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    // A partition's queue is its disk's.
    let queue = [sys.join("queue/io_poll"), sys.join("../queue/io_poll")]
        .into_iter()
        .find(|p| p.exists())?;
    Some(std::fs::read_to_string(queue).ok()?.trim() == "1")
}

#[test]
fn sqpoll_vectored_and_unregistered_rings_run_and_are_recorded() {
    let cases: &[(&str, &[&str], bool, bool, bool)] = &[
        // args, ring flags wanted, registered file, registered buffers, vectored
        ("--sqthread-poll", &["SQPOLL"], true, true, false),
        (
            "--sqthread-poll --sqthread-poll-cpu 0",
            &["SQPOLL"],
            true,
            true,
            false,
        ),
        ("--nonvectored 0", &[], true, false, true),
        ("--fixedbufs 0 --registerfiles 0", &[], false, false, false),
    ];
    for (args, flags, file, buffers, vectored) in cases {
        let dir = tempfile::tempdir().unwrap();
        let (out, record) = bench_ok(
            dir.path(),
            &opts(&format!("{args} -q 8 --size 16M --runtime 500ms")),
        );
        let engine = &record["engine"];
        let ring_flags: Vec<&str> = engine["ring_flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        for flag in *flags {
            assert!(ring_flags.contains(flag), "{args}: {ring_flags:?}");
        }
        assert!(!ring_flags.contains(&"SQPOLL") || args.contains("sqthread"));
        assert_eq!(engine["registered_file"], *file, "{args}");
        assert_eq!(engine["registered_buffers"], *buffers, "{args}");
        assert_eq!(
            engine.get("vectored").is_some_and(|v| v == true),
            *vectored,
            "{args}"
        );
        assert!(record["read"]["total_ios"].as_u64().unwrap() > 0, "{args}");
        if *vectored {
            assert_stdout_has(&out, "vectored (readv/writev)");
        }
    }
}

#[test]
fn hipri_runs_polled_or_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = bench(dir.path(), &opts("--hipri --size 16M --runtime 500ms"));
    match io_poll_of(dir.path()) {
        Some(false) => {
            assert_usage_error(&out);
            let err = stderr(&out);
            assert!(
                err.starts_with("error: hipri: ")
                    && err.contains(" has no poll queues (queue/io_poll is 0), so polled I/O on ")
                    && err.contains("drop hipri"),
                "{err}"
            );
            assert!(
                leftovers(dir.path(), &[]).is_empty(),
                "the scratch file is gone"
            );
        }
        _ => {
            assert_success(&out);
            assert_stdout_has(&out, "IOPOLL");
        }
    }
}

#[test]
fn io_uring_options_on_other_engines_or_the_page_cache_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "--hipri --ioengine psync",
            "error: --hipri needs io_uring, not --ioengine psync; use --ioengine io_uring or drop --hipri",
        ),
        (
            "--sqthread-poll --ioengine null",
            "error: --sqthread-poll needs io_uring, not --ioengine null; use --ioengine io_uring or drop --sqthread-poll",
        ),
        (
            "--hipri --buffered",
            "error: --hipri polls for O_DIRECT completions, and this job goes through the page cache; drop --hipri or the buffered option",
        ),
        (
            "--sqthread-poll-cpu 0",
            "error: --sqthread-poll-cpu places the submission thread, which only --sqthread-poll starts; add --sqthread-poll 1 or drop --sqthread-poll-cpu",
        ),
        (
            "--sqthread-poll --sqthread-poll-cpu 4096",
            "error: --sqthread-poll-cpu 4096 is not a CPU this process may use; use one of ",
        ),
        (
            "--fixedbufs maybe",
            r#"error: --fixedbufs "maybe" is not 1 or 0"#,
        ),
    ];
    assert_bench_refuses(dir.path(), cases, Line::Start);
}

#[test]
fn fio_job_files_set_the_ring() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("ring.fio"),
        "[ring]\nfilename=ring.dat\nrw=randread\nsize=16M\nruntime=1\ntime_based\n\
         ioengine=io_uring\nsqthread_poll=1\nfixedbufs=0\nregisterfiles\n",
    )
    .unwrap();
    let record = crate::support::record::fio_record(dir.path(), &["ring.fio"]);
    let engine = &record["engine"];
    assert!(
        engine["ring_flags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "SQPOLL")
    );
    assert_eq!(engine["registered_buffers"], false);
    assert_eq!(engine["registered_file"], true);
}
