//! `diskdash fio --parse-only` / `--showcmd` on real files: the plan is printed and nothing is
//! created; every bad input is one `error: ` line and exit 2, fast, whatever the input.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{BIN, assert_success, stderr, stdout};

/// Any parse finishes well within this, even of 10 MB.
const TIMEOUT: Duration = Duration::from_secs(20);

const LSM: &str = "\
[global]
ioengine=psync
fdatasync=1
thread=1
runtime=60

[write128]
rw=write
bs=128k
size=10G
filename=db-write128

[randread128]
rw=randread
bs=128k
size=10G
filename=db-randread128

[write256]
rw=write
bs=256k
size=10G
filename=db-write256

[randread256]
rw=randread
bs=256k
size=10G
filename=db-randread256
";

/// Runs `diskdash fio ARGS` in `dir` with `stdin`, killed after [`TIMEOUT`].
fn fio_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .arg("fio")
        .args(args)
        .current_dir(dir)
        .env_remove("DISKDASH_FIO_UNSET")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("diskdash runs");
    let mut input = child.stdin.take().unwrap();
    // A refusal may come before stdin is read: a broken pipe is fine.
    let _ = input.write_all(stdin);
    drop(input);
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            panic!("diskdash fio {args:?} still running after {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// Asserts exit 2 and exactly one stderr line, `error: {want}`.
fn assert_refused(out: &Output, want: &str) {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(out));
    assert_eq!(stderr(out), format!("error: {want}\n"));
}

#[test]
fn fio_parse_only_prints_the_lsm_plan_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "db.fio", LSM.as_bytes());
    let out = fio_in(dir.path(), &["--parse-only", "db.fio"], b"");
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.starts_with("plan: 1 step, 4 jobs\n"), "{text}");
    for name in ["write128", "randread128", "write256", "randread256"] {
        assert!(
            text.contains(&format!(
                "    target   db-{name} (created, 10 GiB; kept after the run)"
            )),
            "{text}"
        );
        assert!(!dir.path().join(format!("db-{name}")).exists());
    }
    assert!(
        text.contains("    run      size-based: 10 GiB per worker over 10 GiB, runtime cap 60s"),
        "{text}"
    );
    assert_eq!(
        stderr(&out),
        "note: db.fio:4: thread=1: accepted; diskdash's workers are always threads\n"
    );
}

#[test]
fn fio_showcmd_gives_fio_and_bench_commands() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::File::create(dir.path().join("data"))
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let out = fio_in(
        dir.path(),
        &[
            "--showcmd",
            "--name=scan",
            "--filename=data",
            "--rw=randread",
            "--bs",
            "64k",
            "--name=late",
            "--filename=data",
            "--startdelay=1",
        ],
        b"",
    );
    assert_success(&out);
    assert_eq!(
        stdout(&out),
        "scan:\n  fio --name=scan --filename=data --rw=randread --bs=64k --size=64M\n  \
         diskdash bench --rw randread --bs 64k --size 64M -q 1 --numjobs 1 --ioengine psync \
         --runtime 8760h --io-size 64M --iomem malloc --buffered data\nlate:\n  fio --name=late \
         --filename=data --size=64M --startdelay=1s\n  no diskdash bench equivalent: bench \
         has no flag for startdelay\n"
    );
}

#[test]
fn fio_reads_a_job_file_from_stdin_and_runs_libaio_as_libaio() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio_in(
        dir.path(),
        &["--parse-only", "-"],
        b"[a]\nioengine=libaio\niodepth=16\nsize=1M\n",
    );
    assert_success(&out);
    assert!(
        stdout(&out).contains("iodepth=16 numjobs=1 libaio"),
        "{}",
        stdout(&out)
    );
    assert_eq!(stderr(&out), "");
}

#[test]
fn fio_help_lists_the_options() {
    let dir = tempfile::tempdir().unwrap();
    let out = fio_in(dir.path(), &["--help"], b"");
    assert_success(&out);
    assert!(stdout(&out).contains("Job options diskdash knows"));
}

#[test]
fn fio_bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "unknown.fio", b"[a]\nsize=1G\nfoo=1\n");
    write(d, "novalue.fio", b"[a]\nsize=1G\nbs\n");
    write(d, "missing.fio", b"[a]\nfilename=nothere\n");
    write(d, "include.fio", b"[a]\ninclude gone.fio\n");
    write(d, "loop.fio", b"[a]\ninclude loop2.fio\n");
    write(d, "loop2.fio", b"include loop.fio\n");
    write(d, "env.fio", b"[a]\nsize=${DISKDASH_FIO_UNSET}\n");
    write(
        d,
        "same.fio",
        b"[global]\nrw=write\nsize=1M\nfilename=f\n[a]\n[b]\nverify=crc32c\n",
    );
    write(d, "numjobs.fio", b"[a]\nsize=1M\nnumjobs=0\n");
    write(d, "binary.fio", b"[a]\nsize=1M\xff\xfe\n");
    write(d, "grant.fio", b"[a]\nsize=1M\nallow_destructive=1\n");
    let cases: &[(&[&str], &str)] = &[
        (
            &["unknown.fio"],
            "unknown.fio:3: foo=1: not a fio option diskdash knows; see 'diskdash fio --help' \
             for the options it honours",
        ),
        (
            &["--name=a", "--size=1G", "--bogus=2"],
            "--bogus=2: not a fio option diskdash knows; see 'diskdash fio --help' for the \
             options it honours",
        ),
        (
            &["novalue.fio"],
            "novalue.fio:3: bs needs a value; write bs=VALUE",
        ),
        (
            &["--name=a", "--size=1G", "--directory=nodir"],
            "--directory=nodir: job a has no target: nodir is not a directory; give \
             filename=FILE or directory=DIR",
        ),
        (
            &["missing.fio"],
            "missing.fio:2: filename nothere does not exist and no size to create it; add \
             size=SIZE (e.g. size=10G) or create the file",
        ),
        (
            &["include.fio"],
            "include.fio:2: cannot read job file gone.fio: No such file or directory (os error \
             2)",
        ),
        (
            &["loop.fio"],
            "loop2.fio:1: include loop.fio is an include loop (loop.fio is already being read); \
             remove the include",
        ),
        (
            &["env.fio"],
            "env.fio:2: ${DISKDASH_FIO_UNSET} is not set; export DISKDASH_FIO_UNSET or write \
             the value",
        ),
        (
            &["numjobs.fio"],
            r#"numjobs.fio:3: numjobs "0" must be at least 1; use e.g. 1, 2 or 4"#,
        ),
        (
            &["binary.fio"],
            "job file binary.fio is not UTF-8 text (invalid byte at offset 11); give a fio job \
             file",
        ),
        (
            &["grant.fio"],
            "grant.fio:3: allow_destructive=1: a job file cannot allow destructive writes; pass \
             --allow-destructive to diskdash fio on the command line",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["--parse-only"];
        all.extend_from_slice(args);
        assert_refused(&fio_in(d, &all, b""), want);
    }
    // The canonical path names the directory, so it is checked apart.
    let out = fio_in(d, &["--parse-only", "same.fio"], b"");
    let canonical = d.canonicalize().unwrap().join("f");
    assert_refused(
        &out,
        &format!(
            "jobs a and b both write and verify {} at the same time: each would read the \
             other's blocks as corrupt; give each its own filename, or add stonewall to run them \
             one after the other",
            canonical.display()
        ),
    );
}

/// Two jobs writing one block device, one verifying: refused before anything is written,
/// even with the command line's opt-in (the verifier would read the other's blocks as corrupt).
#[test]
#[ignore = "needs root"]
fn two_jobs_writing_one_device_one_verifying_are_refused() {
    crate::support::require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("disk.img");
    crate::support::sparse_file(&image, 16 << 20);
    let dev = crate::support::LoopDevice::attach_unique(&image);
    let job = format!(
        "[global]\nrw=randwrite\nsize=1M\nfilename={}\n[a]\n[b]\nrw=write\nverify=crc32c\n",
        dev.path().display()
    );
    write(dir.path(), "dev.fio", job.as_bytes());
    let out = fio_in(dir.path(), &["dev.fio", "--allow-destructive"], b"");
    assert_refused(
        &out,
        &format!(
            "jobs a and b both write and verify {} at the same time: each would read the \
             other's blocks as corrupt; give each its own filename, or add stonewall to run them \
             one after the other",
            dev.path().display()
        ),
    );
    let written = std::fs::read(&image).unwrap();
    assert!(written.iter().all(|&b| b == 0), "nothing was written");
}

#[test]
fn fio_ten_megabytes_of_garbage_fail_fast() {
    let dir = tempfile::tempdir().unwrap();
    // Random bytes (an LCG: no dependency, the same every run).
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let random: Vec<u8> = (0..10 << 20)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 56) as u8
        })
        .collect();
    write(dir.path(), "random.fio", &random);
    // Valid text all the way: ten megabytes of comments after one section.
    let mut comments = b"[a]\n".to_vec();
    while comments.len() < 10 << 20 {
        comments.extend_from_slice(b"; a comment line that goes on and on ${NOT_EXPANDED\n");
    }
    write(dir.path(), "comments.fio", &comments);
    for (file, want) in [
        ("random.fio", "is not UTF-8 text"),
        ("comments.fio", "job a has no size"),
    ] {
        let started = Instant::now();
        let out = fio_in(dir.path(), &["--parse-only", file], b"");
        assert_eq!(out.status.code(), Some(2), "{file}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.starts_with("error: ") && err.contains(want),
            "{file}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{file} took {:?}",
            started.elapsed()
        );
    }
}
