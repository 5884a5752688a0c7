//! What fio's buffer options put in the written bytes: `dedupe_percentage` (both modes),
//! `dedupe_working_set_percentage`, `buffer_compress_percentage` and `buffer_compress_chunk`,
//! measured in the file a job wrote; and fio's dedupe-global.fio example under `--parse-only`.

use std::collections::HashSet;
use std::path::Path;

use crate::fio_run::fio;
use crate::support::*;

/// Of the file's 4 KiB blocks: the share that repeats an earlier block, and the share of
/// bytes that are zeros (what a compressor that drops zero runs removes).
fn measure(path: &Path) -> (f64, f64) {
    let bytes = std::fs::read(path).unwrap();
    let mut seen = HashSet::new();
    let blocks = bytes.len() / 4096;
    let repeats = bytes.chunks(4096).filter(|b| !seen.insert(*b)).count();
    let zeros = bytes.iter().filter(|&&b| b == 0).count();
    (
        repeats as f64 / blocks as f64,
        zeros as f64 / bytes.len() as f64,
    )
}

/// A write job's file repeats `dedupe_percentage` of its blocks and is
/// `buffer_compress_percentage` zeros, in either dedupe mode, with fresh random blocks
/// (`refill_buffers`: neither) for comparison.
#[test]
fn written_blocks_dedupe_and_compress_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    for (name, extra, dedupe, compress) in [
        ("refill", "refill_buffers=1\n", 0.0, 0.0),
        ("repeat", "dedupe_percentage=40\n", 0.40, 0.0),
        (
            "set",
            "dedupe_percentage=50\ndedupe_mode=working_set\ndedupe_working_set_percentage=30\n\
             buffer_compress_percentage=50\n",
            0.50,
            0.50,
        ),
        (
            "chunk",
            "buffer_compress_percentage=75\nbuffer_compress_chunk=4k\n",
            0.0,
            0.75,
        ),
    ] {
        let job = format!(
            "[{name}]\nrw=write\nbs=4k\nsize=8M\nioengine=psync\nfilename={name}.dat\n{extra}"
        );
        std::fs::write(dir.path().join("j.fio"), job).unwrap();
        let out = fio(dir.path(), &["j.fio"]);
        assert_success(&out);
        let (repeats, zeros) = measure(&dir.path().join(format!("{name}.dat")));
        assert!(
            (repeats - dedupe).abs() < 0.03,
            "{name}: {repeats} of the blocks repeat, asked {dedupe}"
        );
        assert!(
            (zeros - compress).abs() < 0.02,
            "{name}: {zeros} of the bytes are zeros, asked {compress}"
        );
    }
}

/// fio's examples/dedupe-global.fio is taken, with each option shown and dedupe_global's
/// difference noted.
#[test]
fn fios_dedupe_global_example_parses() {
    let dir = tempfile::tempdir().unwrap();
    let job = "[global]\nioengine=libaio\niodepth=256\nsize=100m\ndedupe_mode=working_set\n\
               dedupe_global=1\ndedupe_percentage=50\nblocksize=4k\nrw=write\n\
               buffer_compress_percentage=50\ndedupe_working_set_percentage=50\n\n[a]\n\n[b]\n";
    std::fs::write(dir.path().join("dedupe-global.fio"), job).unwrap();
    // By the binary, end to end; the others here run in this process.
    let out = fio(dir.path(), &["--parse-only", "dedupe-global.fio"]);
    assert_success(&out);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    for want in [
        "dedupe_percentage=50",
        "dedupe_mode=working_set",
        "dedupe_working_set_percentage=50",
        "buffer_compress_percentage=50",
        "buffer_compress_chunk=512",
        "dedupe-global.fio:6: dedupe_global=1: accepted;",
    ] {
        assert!(text.contains(want), "no {want:?} in:\n{text}");
    }
}

/// Out-of-range values are refused naming the option, its line and the fix.
#[test]
fn bad_buffer_options_are_refused_by_line() {
    let dir = tempfile::tempdir().unwrap();
    for (line, want) in [
        (
            "dedupe_percentage=101",
            "j.fio:5: dedupe_percentage \"101\" is not a percentage; use 0 to 100",
        ),
        (
            "dedupe_mode=sometimes",
            "is not a dedupe mode; use repeat or working_set",
        ),
        (
            "buffer_compress_percentage=x",
            "buffer_compress_percentage \"x\" is not a percentage",
        ),
    ] {
        let job = format!("[j]\nrw=write\nsize=1M\nfilename=f\n{line}\n");
        std::fs::write(dir.path().join("j.fio"), job).unwrap();
        let out = inproc::fio_parse_only(dir.path(), &["--parse-only", "j.fio"]);
        assert_usage_error(&out);
        assert_stderr_has(&out, want);
    }
}

/// fio's `fill_device`: `--parse-only` shows it taken and the new file sized past the free
/// space of its filesystem; on a read job it is refused by line.
#[test]
fn fill_device_is_shown_by_parse_only() {
    let dir = tempfile::tempdir().unwrap();
    let job = "[global]\nbs=64k\n\n[fill]\nfilename=datafile.tmp\nrw=write\nfill_device=1\n";
    std::fs::write(dir.path().join("j.fio"), job).unwrap();
    let out = inproc::fio_parse_only(dir.path(), &["--parse-only", "j.fio"]);
    assert_success(&out);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    for want in [
        "fill_device=1",
        "j.fio:7: fill_device=1: datafile.tmp is sized past the free space of its filesystem",
    ] {
        assert!(text.contains(want), "no {want:?} in:\n{text}");
    }
    assert!(!dir.path().join("datafile.tmp").exists());
    let job = "[fill]\nfilename=datafile.tmp\nrw=read\nfill_device=1\n";
    std::fs::write(dir.path().join("j.fio"), job).unwrap();
    let out = inproc::fio_parse_only(dir.path(), &["--parse-only", "j.fio"]);
    assert_usage_error(&out);
    assert_stderr_has(
        &out,
        "j.fio:4: fill_device=1: diskdash fills a filesystem with a write job only, not rw=read",
    );
}

/// Free bytes of the filesystem holding `path` (as an unprivileged writer sees them).
fn available(path: &Path) -> u64 {
    let stat = nix::sys::statvfs::statvfs(path).unwrap();
    stat.blocks_available() * stat.fragment_size()
}

/// fio's `fill_device` on a small ext4 (no blocks reserved for root): the write job fills
/// the filesystem, the write that meets ENOSPC ends it, and the run succeeds with the file
/// left in place holding what fitted.
#[test]
#[ignore = "needs root"]
fn fill_device_fills_a_small_ext4_and_ends_at_enospc() {
    require_root();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("ext4.img");
    ext4_image(&image, 40 << 20);
    run("tune2fs", &["-m", "0", image.to_str().unwrap()]);
    let dev = LoopDevice::attach(&image);
    let mnt = dir.path().join("mnt");
    let _mount = Mount::new(&[dev.path().to_str().unwrap()], &mnt);
    let free = available(&mnt);
    let job = format!(
        "[global]\nthread\nbs=64k\ndirect=1\nioengine=sync\n\n[write-phase]\n\
         filename={}/datafile.tmp\nrw=write\nfill_device=1\ndo_verify=0\n",
        mnt.display()
    );
    std::fs::write(dir.path().join("j.fio"), job).unwrap();
    let out = fio(dir.path(), &["--output-format=json", "j.fio"]);
    assert_success(&out);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["jobs"][0]["error"], 0, "{json}");
    let written = std::fs::metadata(mnt.join("datafile.tmp")).unwrap().len();
    assert!(
        written > free / 10 * 9,
        "wrote {written} bytes of {free} free"
    );
    assert!(
        available(&mnt) < 1 << 20,
        "{} bytes still free after filling {free}",
        available(&mnt)
    );
}
