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
        let out = fio(dir.path(), &["--parse-only", "j.fio"]);
        assert_usage_error(&out);
        assert_stderr_has(&out, want);
    }
}
