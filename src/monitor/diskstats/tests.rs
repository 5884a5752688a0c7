use super::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/diskstats");

fn fixture(name: &str) -> Vec<DiskCounters> {
    let text = std::fs::read(format!("{FIXTURES}/{name}")).unwrap();
    let mut disks = Vec::new();
    parse_diskstats(&text, &mut disks).unwrap();
    disks
}

fn names(disks: &[DiskCounters]) -> Vec<&str> {
    disks.iter().map(|d| d.name.as_str()).collect()
}

#[test]
fn parses_a_20_field_line_captured_here() {
    let disks = fixture("linux-6.18-vm-a.txt");
    let vda = disks.iter().find(|d| d.name == "vda").unwrap();
    let expected = DiskCounters {
        major: 254,
        minor: 0,
        name: "vda".into(),
        format: LineFormat::WithFlush,
        reads: 51243,
        reads_merged: 7417,
        sectors_read: 3_339_586,
        read_ms: 19316,
        writes: 12584,
        writes_merged: 32251,
        sectors_written: 10_767_552,
        write_ms: 53632,
        in_flight: 0,
        io_ms: 9120,
        weighted_io_ms: 73561,
        discards: 5408,
        discards_merged: 28,
        sectors_discarded: 358_672,
        discard_ms: 569,
        flushes: 809,
        flush_ms: 43,
    };
    assert_eq!(vda, &expected);
    assert_eq!(disks.len(), 10);
    assert!(
        !disks
            .iter()
            .find(|d| d.name == "loop0")
            .unwrap()
            .ever_used()
    );
}

#[test]
fn parses_14_field_lines_with_discard_and_flush_absent() {
    let disks = fixture("linux-4.15-14-fields.txt");
    assert_eq!(
        names(&disks),
        ["sda", "sda1", "sda2", "sr0", "dm-0", "loop0"]
    );
    let dm = &disks[4];
    assert_eq!(dm.format, LineFormat::Basic);
    assert_eq!((dm.major, dm.minor), (253, 0));
    assert_eq!(dm.write_ms, 15_437_464);
    assert_eq!(dm.in_flight, 2);
    assert_eq!(dm.weighted_io_ms, 15_907_484);
    assert_eq!((dm.discards, dm.sectors_discarded, dm.flushes), (0, 0, 0));
}

#[test]
fn parses_18_field_lines_with_discards() {
    let disks = fixture("linux-4.19-18-fields.txt");
    assert_eq!(
        names(&disks),
        ["nvme0n1", "nvme0n1p1", "md127", "mmcblk0", "mmcblk0p1"]
    );
    let nvme = &disks[0];
    assert_eq!(nvme.format, LineFormat::WithDiscard);
    assert_eq!(nvme.discards, 10234);
    assert_eq!(nvme.sectors_discarded, 81_234_560);
    assert_eq!(nvme.discard_ms, 5120);
    assert_eq!((nvme.flushes, nvme.flush_ms), (0, 0));
}

#[test]
fn keeps_every_name_shape() {
    let disks = fixture("linux-5.15-odd-names-20-fields.txt");
    assert_eq!(
        names(&disks),
        [
            "nvme0n1p1",
            "dm-0",
            "md127",
            "mmcblk0p1",
            "sr0",
            "loop7",
            "cciss!c0d0"
        ]
    );
    let cciss = &disks[6];
    assert_eq!((cciss.major, cciss.minor), (104, 0));
    assert_eq!((cciss.flushes, cciss.flush_ms), (812, 2301));
    assert!(disks.iter().all(|d| d.format == LineFormat::WithFlush));
}

#[test]
fn tolerates_tabs_blank_lines_and_future_fields() {
    let mut disks = Vec::new();
    parse_diskstats(
        b"\n 8 0\tsda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 99 98\n\n",
        &mut disks,
    )
    .unwrap();
    assert_eq!(disks.len(), 1);
    assert_eq!(disks[0].format, LineFormat::WithFlush);
    assert_eq!(disks[0].flush_ms, 17);
}

#[test]
fn rejects_what_it_does_not_understand_with_the_line_number() {
    let mut disks = Vec::new();
    let err = parse_diskstats(
        b"8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 1 sda1 1 2 3\n",
        &mut disks,
    )
    .unwrap_err();
    assert_eq!(err.line, 2);
    assert_eq!(
        err.reason,
        "6 fields; expected 14, 18 or 20 (see iostats.rst)"
    );
    let err = parse_line(b"8 0 sda 1 2 x 4 5 6 7 8 9 10 11").unwrap_err();
    assert_eq!(err, "counter \"x\" is not a number");
    let err = parse_line(b"8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16").unwrap_err();
    assert!(err.starts_with("19 fields"), "{err}");
    assert_eq!(
        parse_line(b"8 0 sda 99999999999999999999 0 0 0 0 0 0 0 0 0 0").unwrap_err(),
        "counter \"99999999999999999999\" is not a number"
    );
    assert_eq!(
        parse_line(b"-8 0 sda").unwrap_err(),
        "major \"-8\" is not a number"
    );
}

#[test]
fn reader_rereads_the_same_open_file_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("diskstats");
    std::fs::copy(format!("{FIXTURES}/hotplug-a.txt"), &path).unwrap();
    let mut reader = DiskstatsReader::open_path(&path).unwrap();
    let a = reader.sample().unwrap();
    assert_eq!(names(&a.disks), ["loop7", "vda"]);
    // Rewrite in place (same inode): the kept fd sees the new content from offset 0.
    std::fs::write(
        &path,
        std::fs::read(format!("{FIXTURES}/hotplug-b.txt")).unwrap(),
    )
    .unwrap();
    let b = reader.sample().unwrap();
    assert_eq!(names(&b.disks), ["vda", "sdb"]);
    assert!(b.at >= a.at);
    assert_eq!(b.get("sdb").unwrap().reads, 120);
    assert!(b.get("loop7").is_none());
}

#[test]
fn reads_the_real_proc_diskstats() {
    let mut reader = DiskstatsReader::open().unwrap();
    let a = reader.sample().unwrap();
    let b = reader.sample().unwrap();
    assert!(!a.disks.is_empty());
    assert!(b.at > a.at);
    assert!(a.at > Duration::ZERO);
    assert!(b.disks.iter().all(|d| !d.name.is_empty()));
}

/// A line as the kernel prints it (`%4d %7d %s %lu ...`, see `block/genhd.c`), for the
/// round-trip property.
fn kernel_line(d: &DiskCounters) -> String {
    let mut line = format!("{:4} {:7} {}", d.major, d.minor, d.name);
    let counters = [
        d.reads,
        d.reads_merged,
        d.sectors_read,
        d.read_ms,
        d.writes,
        d.writes_merged,
        d.sectors_written,
        d.write_ms,
        d.in_flight,
        d.io_ms,
        d.weighted_io_ms,
        d.discards,
        d.discards_merged,
        d.sectors_discarded,
        d.discard_ms,
        d.flushes,
        d.flush_ms,
    ];
    let shown = match d.format {
        LineFormat::Basic => 11,
        LineFormat::WithDiscard => 15,
        LineFormat::WithFlush => 17,
    };
    for value in &counters[..shown] {
        line += &format!(" {value}");
    }
    line
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn real_lines() -> Vec<String> {
        [
            "linux-6.18-vm-a.txt",
            "linux-4.15-14-fields.txt",
            "linux-4.19-18-fields.txt",
            "linux-5.15-odd-names-20-fields.txt",
        ]
        .iter()
        .flat_map(|name| {
            std::fs::read_to_string(format!("{FIXTURES}/{name}"))
                .unwrap()
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
    }

    /// The error must name the first line the parser rejects on its own, and every line
    /// before it must parse.
    fn check_line_number(text: &[u8]) -> Result<(), TestCaseError> {
        let mut disks = Vec::new();
        let lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
        match parse_diskstats(text, &mut disks) {
            Ok(()) => {
                let parsed = lines
                    .iter()
                    .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
                    .count();
                prop_assert_eq!(disks.len(), parsed);
            }
            Err(err) => {
                prop_assert!(err.line >= 1 && err.line <= lines.len(), "{}", err);
                prop_assert_eq!(parse_line(lines[err.line - 1]), Err(err.reason.clone()));
                for line in &lines[..err.line - 1] {
                    prop_assert!(
                        line.iter().all(u8::is_ascii_whitespace) || parse_line(line).is_ok()
                    );
                }
                prop_assert!(!err.to_string().contains('\n'));
            }
        }
        Ok(())
    }

    fn counters() -> impl Strategy<Value = DiskCounters> {
        (
            (any::<u32>(), any::<u32>(), "[a-z][a-z0-9!_-]{0,15}"),
            prop_oneof![
                Just(LineFormat::Basic),
                Just(LineFormat::WithDiscard),
                Just(LineFormat::WithFlush)
            ],
            proptest::array::uniform17(any::<u64>()),
        )
            .prop_map(|((major, minor, name), format, c)| {
                let kept = match format {
                    LineFormat::Basic => 11,
                    LineFormat::WithDiscard => 15,
                    LineFormat::WithFlush => 17,
                };
                let mut c = c;
                c[kept..].fill(0);
                DiskCounters::from_fields(major, minor, name, format, c)
            })
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic_and_name_the_bad_line(
            text in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b' '), Just(b'\t'), b'0'..=b'9', any::<u8>()],
                0..400,
            )
        ) {
            check_line_number(&text)?;
        }

        #[test]
        fn random_text_never_panics_and_names_the_bad_line(text in "\\PC{0,200}") {
            check_line_number(text.as_bytes())?;
        }

        #[test]
        fn mutated_real_lines_never_panic_and_name_the_bad_line(
            picks in proptest::collection::vec(any::<prop::sample::Index>(), 1..8),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
            how in 0u8..4,
        ) {
            let real = real_lines();
            let mut lines: Vec<Vec<u8>> =
                picks.iter().map(|i| i.get(&real).as_bytes().to_vec()).collect();
            let victim = at.index(lines.len());
            let line = &mut lines[victim];
            let pos = at.index(line.len() + 1);
            match how {
                0 => line.insert(pos, byte),
                1 if pos < line.len() => {
                    line.remove(pos);
                }
                2 if pos < line.len() => line[pos] = byte,
                _ => line.truncate(pos),
            }
            check_line_number(&lines.join(&b'\n'))?;
        }

        #[test]
        fn a_line_as_the_kernel_prints_it_parses_back(disk in counters()) {
            let line = kernel_line(&disk);
            prop_assert_eq!(parse_line(line.as_bytes()), Ok(disk));
        }
    }
}
