//! The one gate every file diskdash writes passes (assets/doc/safety.md): fio's log files,
//! `--output` and the records are made new or replace only diskdash's (or fio's) own output of
//! the same kind; never a loop device's backing file, another name of a file, a job's file
//! (there now or made by the run later) or another output of the run. Each foreign file is
//! compared byte for byte before and after.

use std::path::Path;

use crate::fio_run::fio;
use crate::support::*;

/// A refused run: exit 2, one error line holding `want`, and nothing created but what was there.
fn assert_refused(out: &std::process::Output, want: &str) {
    assert_refused_with(out, 2, want);
}

/// [`assert_refused`] with the usage exit code of the command (`iostat`'s is sysstat's 1).
fn assert_refused_with(out: &std::process::Output, code: i32, want: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "not refused: {}{}",
        stdout(out),
        stderr(out)
    );
    let err = stderr(out);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains(want), "{:?} lacks {want:?}", errors[0]);
}

/// A write job of 1 MiB on `target` logging bandwidth to `prefix`, plus `extra`.
fn write_logging(dir: &Path, target: &str, prefix: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "--name=a".to_string(),
        format!("--filename={target}"),
        "--size=1M".into(),
        "--rw=write".into(),
        format!("--write_bw_log={prefix}"),
    ];
    args.extend(extra.iter().map(|s| (*s).to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    fio(dir, &args)
}

/// Someone's data at a log's name is never replaced without --force; a log of an earlier run
/// is.
#[test]
fn a_foreign_file_at_a_logs_name_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..1u32 << 20).map(|i| (i * 7 % 251) as u8).collect();
    let log = dir.path().join("data_bw.1.log");
    std::fs::write(&log, &data).unwrap();
    let out = write_logging(dir.path(), "t", "data", &[]);
    assert_refused(
        &out,
        "log file data_bw.1.log exists and is not a fio log (1048576 bytes); give the log \
         another name, or pass --force to replace it",
    );
    assert_eq!(std::fs::read(&log).unwrap(), data);
    assert!(
        !dir.path().join("t").exists(),
        "a refused run made its file"
    );
    // A log diskdash wrote is replaced by the next run, as fio replaces its own.
    assert_success(&write_logging(dir.path(), "t", "ok", &[]));
    let first = std::fs::read_to_string(dir.path().join("ok_bw.1.log")).unwrap();
    assert!(!first.is_empty());
    assert_success(&write_logging(
        dir.path(),
        "t",
        "ok",
        &["--allow-destructive"],
    ));
    // --force replaces anything that is a plain file of one name.
    assert_success(&write_logging(dir.path(), "u", "data", &["--force"]));
    assert_ne!(std::fs::read(&log).unwrap(), data);
}

/// A log, `--output` or `--json` at a job's file is refused before anything runs, whether the
/// file is there or the run would make it.
#[test]
fn outputs_and_logs_never_share_a_jobs_file_or_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (
            &["--name=a", "--filename=new_bw.1.log", "--write_bw_log=new"],
            "log file new_bw.1.log is also job a's file; give the log another name",
        ),
        (
            &["--name=a", "--filename=t7", "--output=t7"],
            "--output t7 is also job a's file; give them different files",
        ),
        (
            &["--name=a", "--filename=t8", "--json=t8"],
            "--json t8 is also job a's file; give them different files",
        ),
        (
            &[
                "--name=a",
                "--filename=t9",
                "--output=x_bw.1.log",
                "--write_bw_log=x",
            ],
            "log file x_bw.1.log is also --output's file; give the log another name",
        ),
    ];
    for (args, want) in cases {
        let mut all = args.to_vec();
        all.extend(["--size=1M", "--rw=write"]);
        let out = fio(dir.path(), &all);
        assert_refused(&out, want);
    }
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "refused runs left files: {left:?}");
}

/// A mounted filesystem's image at a log's name, by a second hard link or as the only name of
/// a loop device's backing file: refused, the image unchanged and still mountable.
#[test]
#[ignore = "needs root"]
fn a_mounted_image_at_a_logs_name_is_never_truncated() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("img1");
    ext4_image(&image, 16 << 20);
    let lower = LoopDevice::attach(&image);
    let mount = Mount::new(&[lower.path().to_str().unwrap()], &dir.path().join("m"));
    std::fs::write(mount.0.join("kept"), b"kept").unwrap();
    run("sync", &[]);
    let before = std::fs::read(&image).unwrap();
    std::fs::hard_link(&image, dir.path().join("mimg_bw.1.log")).unwrap();
    let out = write_logging(dir.path(), "t4", "mimg", &["--force"]);
    assert_refused(
        &out,
        "log file mimg_bw.1.log has 2 names (hard links); the others would change too",
    );
    std::fs::remove_file(dir.path().join("mimg_bw.1.log")).unwrap();
    // The image under its one name, as a log's name: the loop device it backs is named.
    std::fs::rename(&image, dir.path().join("img_bw.1.log")).unwrap();
    let out = write_logging(dir.path(), "t5", "img", &["--force"]);
    assert_refused(
        &out,
        &format!(
            "log file img_bw.1.log: it backs {}, mounted at",
            lower.path().display()
        ),
    );
    assert_eq!(
        std::fs::read(dir.path().join("img_bw.1.log")).unwrap(),
        before
    );
    assert_eq!(std::fs::read(mount.0.join("kept")).unwrap(), b"kept");
    // Back under its name, so the loop device's drop knows it and detaches it.
    drop(mount);
    std::fs::rename(dir.path().join("img_bw.1.log"), &image).unwrap();
    drop(lower);
}

/// fio names a clone's file itself (`k.1.0`): a link planted at that name is refused and the
/// file it leads to left as it was; without it each clone is reported on its own file.
#[test]
fn a_link_at_a_clones_file_name_is_refused_and_each_clone_names_its_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("else")).unwrap();
    let victim = dir.path().join("else/empty");
    std::fs::write(&victim, b"").unwrap();
    std::os::unix::fs::symlink("else/empty", dir.path().join("k.1.0")).unwrap();
    let args = [
        "--name=k",
        "--numjobs=2",
        "--size=1M",
        "--rw=write",
        "--json=r.json",
    ];
    let out = fio(dir.path(), &args);
    assert_refused(
        &out,
        "job k: k.1.0 is a symbolic link, and fio's own file names are made by the run",
    );
    assert_eq!(std::fs::metadata(&victim).unwrap().len(), 0);
    std::fs::remove_file(dir.path().join("k.1.0")).unwrap();
    let out = fio(dir.path(), &args);
    assert_success(&out);
    let text = stdout(&out);
    let heads = text.lines().filter(|l| l.contains("(groupid=")).count();
    assert_eq!(heads, 2, "{text}");
    // Each clone's own file, under diskdash's notes after fio's report.
    let files: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  k (pid "))
        .collect();
    assert_eq!(files.len(), 2, "{text}");
    assert!(files[0].contains(": k.0.0 on "), "{}", files[0]);
    assert!(files[1].contains(": k.1.0 on "), "{}", files[1]);
    let record = read_json(&dir.path().join("r.json"));
    crate::support::record::assert_valid_record(&record);
    let clones = record["segments"][0]["jobs"][0]["clones"]
        .as_array()
        .unwrap();
    let files: Vec<&str> = clones.iter().map(|c| c["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["k.0.0", "k.1.0"]);
}

/// The mark that lets a job's rerun write the file it made holds only for that file as the
/// run left it: filled since with someone's data, or restored from a copy (`cp -a` keeps the
/// xattr), it grants nothing and the data is left as it was.
#[test]
fn a_mark_that_outlives_its_file_grants_nothing() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let args = ["--name=m", "--filename=m.dat", "--size=1M", "--rw=write"];
    assert_success(&fio(dir.path(), &args));
    // Untouched: the same job's rerun writes it again without an opt-in, as fio does.
    assert_success(&fio(dir.path(), &args));
    let refused = "refusing to write to m.dat: it holds 1 MiB of data; pass --allow-destructive";
    // Someone's data written into it since.
    let file = dir.path().join("m.dat");
    let theirs: Vec<u8> = (0..1u32 << 20).map(|i| (i % 253) as u8).collect();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &theirs))
        .unwrap();
    assert_refused(&fio(dir.path(), &args), refused);
    assert_eq!(std::fs::read(&file).unwrap(), theirs);
    // A copy restored over the name, mark and all.
    assert_success(&fio(
        dir.path(),
        &[&args[..], &["--allow-destructive"]].concat(),
    ));
    run(
        "cp",
        &[
            "-a",
            file.to_str().unwrap(),
            dir.path().join("backup").to_str().unwrap(),
        ],
    );
    std::fs::remove_file(&file).unwrap();
    run(
        "cp",
        &[
            "-a",
            dir.path().join("backup").to_str().unwrap(),
            file.to_str().unwrap(),
        ],
    );
    let restored = std::fs::read(&file).unwrap();
    assert_refused(&fio(dir.path(), &args), refused);
    assert_eq!(std::fs::read(&file).unwrap(), restored);
}

/// An emulated zone table too large for memory (4 KiB zones over a 15 TiB sparse file) is
/// refused before anything is allocated or created: exit 2 with the table's size, and the
/// `unlink=1` job before it leaves no file behind.
#[test]
fn a_zone_table_past_memory_is_refused_before_it_is_allocated() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    sparse_file(&dir.path().join("big"), 15 << 40);
    let out = fio(
        dir.path(),
        &[
            "--name=u",
            "--filename=u.dat",
            "--size=1M",
            "--rw=write",
            "--unlink=1",
            "--name=z",
            "--stonewall",
            "--filename=big",
            "--zonemode=zbd",
            "--zonesize=4k",
            "--rw=write",
            "--size=15T",
            "--allow-destructive",
        ],
    );
    assert_refused(
        &out,
        "job z: zonesize=4 KiB over 15 TiB is 4026531840 zones, a zone table of 60 GiB, more than",
    );
    assert!(stderr(&out).contains("use a larger zonesize or a smaller size"));
    assert!(
        !dir.path().join("u.dat").exists(),
        "the unlink=1 job's file was left"
    );
}

/// An endpoint the user asked for that cannot start (`ulimit -n 12`) is the command's error,
/// exit 1, in one line; the run does not go on without it and leaves no scratch file.
#[test]
fn a_serve_endpoint_that_cannot_start_fails_the_command() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let mut cmd = std::process::Command::new(BIN);
    cmd.current_dir(dir.path())
        .args(["bench", "--size", "8M", "--runtime", "1s", "--no-tui"])
        .args(["--serve", "127.0.0.1:0"]);
    // SAFETY: setrlimit is async-signal-safe and touches only this child's limits.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 12,
                rlim_max: 12,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raw const limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(
        errors[0].contains("cannot serve") && errors[0].contains("ulimit -n"),
        "{}",
        errors[0]
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "a scratch file was left"
    );
}

/// fio's falloc engine on a read job allocates (fallocate KEEP_SIZE) and changes no data: it
/// runs on a file of someone's data, which is left byte for byte as it was.
#[test]
fn a_falloc_read_job_runs_and_leaves_the_data_alone() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let data: Vec<u8> = (0..1u32 << 20).map(|i| (i % 241) as u8).collect();
    let file = dir.path().join("d.dat");
    std::fs::write(&file, &data).unwrap();
    let out = fio(
        dir.path(),
        &[
            "--name=f",
            "--filename=d.dat",
            "--size=1M",
            "--ioengine=falloc",
            "--rw=read",
        ],
    );
    assert_success(&out);
    assert!(!stderr(&out).contains("error"), "{}", stderr(&out));
    assert!(stdout(&out).contains("read: IOPS="), "{}", stdout(&out));
    assert_eq!(std::fs::read(&file).unwrap(), data);
}

/// `--output=/dev/null`, fio's idiom for a report nobody reads, is the gate's one carve-out:
/// the run goes on and the null device stays the null device.
#[test]
fn fio_output_to_dev_null_is_taken() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let out = fio(
        dir.path(),
        &[
            "--name=n",
            "--filename=n.dat",
            "--size=1M",
            "--rw=write",
            "--output=/dev/null",
        ],
    );
    assert_success(&out);
    assert!(
        !stdout(&out).contains("groupid="),
        "the report went to stdout"
    );
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let null = std::fs::metadata("/dev/null").unwrap();
    assert!(null.file_type().is_char_device() && null.rdev() == libc::makedev(1, 3));
}

/// A newline in a job name or a target path is shown escaped: the fio report's job line and
/// bench's target line stay one line each, and a name cannot forge a report line; terse output
/// keeps one line per job and no ESC.
#[test]
fn a_newline_in_a_name_or_path_cannot_split_or_forge_a_report_line() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let forged = "x\nRun status group 9 (all jobs):\u{1b}[2J";
    let target = "t\nu.dat";
    let args = [
        format!("--name={forged}"),
        format!("--filename={target}"),
        "--size=1M".into(),
        "--rw=write".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = fio(dir.path(), &args);
    assert_success(&out);
    let text = stdout(&out);
    assert!(
        !text.lines().any(|l| l.starts_with("Run status group 9")),
        "a job name forged a line: {text}"
    );
    let head = text.lines().find(|l| l.contains("(groupid=")).unwrap();
    assert!(
        head.starts_with(r"x\nRun status group 9 (all jobs):\u{1b}[2J: (groupid=0"),
        "{head}"
    );
    // The job's file, named after fio's report among diskdash's notes, escaped too.
    let note = text.lines().find(|l| l.contains(r"t\nu.dat")).unwrap();
    assert!(
        note.starts_with(r"  x\nRun status group 9 (all jobs):\u{1b}[2J (pid "),
        "{note}"
    );
    let terse = fio(
        dir.path(),
        &[&args[..], &["--minimal", "--allow-destructive"]].concat(),
    );
    assert_success(&terse);
    let terse_text = stdout(&terse);
    let lines: Vec<&str> = terse_text.lines().collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(!lines[0].contains('\u{1b}'), "{}", lines[0]);
    // bench's summary: the target line holds the whole path.
    let sub = dir.path().join("a\nb");
    std::fs::create_dir(&sub).unwrap();
    let bench = std::process::Command::new(BIN)
        .current_dir(dir.path())
        .args([
            "bench",
            sub.to_str().unwrap(),
            "--size",
            "4M",
            "--runtime",
            "300ms",
        ])
        .arg("--no-tui")
        .output()
        .unwrap();
    assert_success(&bench);
    let summary = stdout(&bench);
    let target = summary
        .lines()
        .find(|l| l.trim_start().starts_with("target "))
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(target.contains(r"a\nb/.diskdash-scratch-"), "{target}");
}

/// A run refused after its outputs were checked (a target that needs the opt-in, a taken
/// port, a foreign --json) leaves no file it made and every earlier report, log and record as
/// it was; a monitor recording is never taken for a run's record; a job file is never an
/// output, --force or not; a link at a job's file that leads to an output's name is refused.
#[test]
fn a_refused_run_leaves_what_was_there_and_makes_nothing() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let at = |name: &str| dir.path().join(name);
    let data: Vec<u8> = (0..1u32 << 20).map(|i| (i % 239) as u8).collect();
    std::fs::write(at("data"), &data).unwrap();
    let report = b"a: (groupid=0, jobs=1): err= 0: data on vda\n  write: IOPS=1\n";
    std::fs::write(at("old.txt"), report).unwrap();
    std::fs::write(at("old_bw.1.log"), b"1000, 5, 1, 0, 0\n").unwrap();
    let job = ["--name=a", "--filename=data", "--rw=write", "--size=1M"];
    // The target needs --allow-destructive: new outputs go, earlier ones stay.
    for extra in [
        &["--output=rep.txt", "--write_bw_log=a"][..],
        &["--output=old.txt", "--write_bw_log=old"][..],
    ] {
        let out = fio(dir.path(), &[&job[..], extra].concat());
        assert_refused(&out, "refusing to write to data: it holds 1 MiB of data");
    }
    assert!(!at("rep.txt").exists() && !at("a_bw.1.log").exists());
    assert_eq!(std::fs::read(at("old.txt")).unwrap(), report);
    assert_eq!(
        std::fs::read(at("old_bw.1.log")).unwrap(),
        b"1000, 5, 1, 0, 0\n"
    );
    assert_eq!(std::fs::read(at("data")).unwrap(), data);
    // An earlier --jsonl record stays when --json is refused.
    let interval = b"{\"format\":\"diskdash-bench-interval\",\"seq\":1}\n";
    std::fs::write(at("r.jsonl"), interval).unwrap();
    std::fs::write(at("r.json"), b"someone's notes\n").unwrap();
    let out = fio(
        dir.path(),
        &[
            "--name=b",
            "--filename=new",
            "--rw=read",
            "--size=1M",
            "--jsonl=r.jsonl",
            "--json=r.json",
        ],
    );
    assert_refused(&out, "--json r.json exists and is not a diskdash record");
    assert_eq!(std::fs::read(at("r.jsonl")).unwrap(), interval);
    // A monitor recording is not a run's record.
    let recording = b"{\"format\":\"diskdash-monitor\",\"format_version\":1}\n";
    std::fs::write(at("mon.jsonl"), recording).unwrap();
    let out = fio(
        dir.path(),
        &[
            "--name=c",
            "--filename=new",
            "--rw=read",
            "--size=1M",
            "--json=mon.jsonl",
        ],
    );
    assert_refused(&out, "--json mon.jsonl exists and is not a diskdash record");
    assert_eq!(std::fs::read(at("mon.jsonl")).unwrap(), recording);
    // A job file is never an output, even with --force.
    std::fs::write(at("job.fio"), "[d]\nfilename=new\nrw=read\nsize=1M\n").unwrap();
    for flag in ["--json=job.fio", "--jsonl=job.fio"] {
        let out = fio(dir.path(), &["job.fio", flag, "--force"]);
        assert_refused(
            &out,
            "job.fio is a job file of this run; write the record elsewhere",
        );
    }
    // A link at a job's file that leads to where a log would go.
    std::os::unix::fs::symlink("l_bw.1.log", at("lnk")).unwrap();
    let out = fio(
        dir.path(),
        &[
            "--name=l",
            "--filename=lnk",
            "--rw=write",
            "--size=1M",
            "--write_bw_log=l",
        ],
    );
    assert_refused(
        &out,
        "log file l_bw.1.log is also job l's file (through the link lnk)",
    );
    assert!(!at("l_bw.1.log").exists());
}

/// `--force` names the recording's file, never the rotated names beside it: a foreign
/// `rec.1` survives a forced recording that rotates, which holds back instead and says so.
#[test]
fn force_never_lets_rotation_remove_a_foreign_rotated_file() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    std::fs::write(dir.path().join("rec"), b"notes\n").unwrap();
    std::fs::write(dir.path().join("rec.1"), b"precious\n").unwrap();
    let out = std::process::Command::new(BIN)
        .current_dir(dir.path())
        .args(["iostat", "-d", "--record", "rec", "--record-max", "1k"])
        .args(["--record-keep", "1", "--force", "0.05", "30"])
        .output()
        .unwrap();
    assert_success(&out);
    assert_eq!(
        std::fs::read(dir.path().join("rec.1")).unwrap(),
        b"precious\n"
    );
    assert!(
        std::fs::metadata(dir.path().join("rec")).unwrap().len() > 1024,
        "rotation held back: the lines went on into rec"
    );
    assert!(stderr(&out).contains("rec.1"), "{}", stderr(&out));
}

/// One recorder a file: a second `--record` of the same file is refused while the first runs.
#[test]
fn a_second_recorder_of_one_file_is_refused() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let record = |count: &str| {
        std::process::Command::new(BIN)
            .current_dir(dir.path())
            .args(["iostat", "-d", "--record", "r.jsonl", "0.1", count])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let first = record("30");
    std::thread::sleep(std::time::Duration::from_millis(700));
    let second = record("2").wait_with_output().unwrap();
    assert_refused_with(
        &second,
        1,
        "--record r.jsonl is being recorded by another process; record elsewhere",
    );
    assert_success(&first.wait_with_output().unwrap());
}
