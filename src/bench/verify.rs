//! The block format for data verification (fio's `verify=crc32c` and kin): every block written
//! carries a header saying what it is and a checksum of what follows, so a read can tell a good
//! block from a torn, misplaced, stale or corrupted one, and say which.
//!
//! A block is [`HEADER_LEN`] bytes of header, then the payload. The payload is deterministic:
//! a splitmix64 stream keyed by the block's seed, offset and generation (or, for
//! [`Kind::Pattern`], one 8-byte word from the seed, repeated). The header holds the checksum
//! of the payload (unused for `Pattern`) and its own CRC32C over everything before it, which
//! is what tells a flipped bit in the header ([`MismatchKind::Header`]) from bad data
//! ([`MismatchKind::Data`]): a header that checks out vouches for the payload checksum in it.
//! The checksum detects bad data; the first differing byte is then found by regenerating the
//! payload from the header's own fields, so a report points at the byte.
//!
//! Header layout, version 1. Every integer is little-endian, so a block written on one host
//! verifies on another:
//!
//! | bytes  | field        | contents                                                        |
//! |--------|--------------|-----------------------------------------------------------------|
//! | 0..4   | magic        | `DDVF`                                                          |
//! | 4      | version      | 1                                                               |
//! | 5      | kind         | 1 crc32c, 2 xxhash, 3 sha256, 4 pattern                         |
//! | 6..8   | reserved     | zero                                                            |
//! | 8..16  | offset       | u64, the block's byte offset in the target                      |
//! | 16..24 | seed         | u64, the job's verify seed                                      |
//! | 24..28 | job          | u32, the worker that wrote it                                   |
//! | 28..32 | generation   | u32, bumped on every overwrite of the same offset               |
//! | 32..40 | block length | u64, header included                                            |
//! | 40..72 | checksum     | of the payload: crc32c u32, xxh3-64 u64, or sha256; zero-padded |
//! | 72..76 | reserved     | zero                                                            |
//! | 76..80 | header crc   | u32, CRC32C of bytes 0..76                                      |
//!
//! `xxhash` is XXH3-64 here (fio's is XXH32): the names are fio's, the format is diskdash's own.
//! Checking costs one checksum pass over the block for the checksum kinds and allocates only to
//! describe a mismatch; filling never allocates.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// One block that failed its check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyFailure {
    pub offset: u64,
    /// The worker's index in its job.
    pub worker: u32,
    /// The header was wrong (else the data).
    pub header: bool,
    /// One line: what differs.
    pub what: String,
    /// The first differing byte in the block (0 when it cannot be told).
    pub at: usize,
    pub expected_hex: String,
    pub found_hex: String,
}

/// A worker's (or a job's) verification: blocks checked, failed, the first failures kept.
#[derive(Debug, Clone, Default)]
pub struct VerifyOutcome {
    pub checked: u64,
    pub failed: u64,
    /// Of `failed`, those the job went on past (fio's `continue_on_error=verify`): each one
    /// is a failed I/O of the job's `continued` count, as fio's `total_err`, and none fails
    /// the run.
    pub passed: u64,
    /// The first [`VERIFY_FAILURES_KEPT`] failures, by offset.
    pub failures: Vec<VerifyFailure>,
    /// Time spent reading back after the run (a write job's pass), ns.
    pub pass_ns: u64,
    /// The read-back's reads, each timed as the run's I/O is: outside the measured window,
    /// so kept apart from the run's stats (fio counts them in the job's read).
    pub reads: crate::stats::DirectionStats,
}

/// Failures kept in full per worker and per job; the rest are counted.
pub(crate) const VERIFY_FAILURES_KEPT: usize = 16;

impl VerifyOutcome {
    /// Adds `other` (another worker of the job).
    pub(crate) fn merge(&mut self, other: Self) {
        self.checked += other.checked;
        self.failed += other.failed;
        self.passed += other.passed;
        self.pass_ns = self.pass_ns.max(other.pass_ns);
        self.reads.add(&other.reads);
        self.failures.extend(other.failures);
        self.failures.sort_by_key(|f| f.offset);
        self.failures.truncate(VERIFY_FAILURES_KEPT);
    }
}

/// Bytes of header at the start of every block; a block is at least this long.
pub(crate) const HEADER_LEN: usize = 80;

/// The magic at byte 0 of every block.
const MAGIC: [u8; 4] = *b"DDVF";
/// The header layout this module writes and reads.
const VERSION: u8 = 1;

// Field positions (see the table in the module doc).
const VERSION_AT: usize = 4;
const KIND_AT: usize = 5;
const RESERVED_A: std::ops::Range<usize> = 6..8;
const OFFSET_AT: usize = 8;
const SEED_AT: usize = 16;
const JOB_AT: usize = 24;
const GENERATION_AT: usize = 28;
const LENGTH_AT: usize = 32;
const CHECKSUM: std::ops::Range<usize> = 40..72;
const RESERVED_B: std::ops::Range<usize> = 72..76;
const HEADER_CRC_AT: usize = 76;

/// Bytes of a hex excerpt in a [`Mismatch`].
const EXCERPT_LEN: usize = 16;

/// How a block's payload is made and checked (fio's `verify=` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// CRC32C of the payload (SSE4.2 or `ARMv8` CRC instructions where the CPU has them).
    Crc32c,
    /// XXH3-64 of the payload.
    Xxhash,
    /// SHA-256 of the payload (SHA extensions where the CPU has them).
    Sha256,
    /// No checksum: the payload is one 8-byte word from the seed, repeated, compared as it is
    /// read.
    Pattern,
}

impl Kind {
    /// Every kind, in the order of their header codes.
    pub const ALL: [Self; 4] = [Self::Crc32c, Self::Xxhash, Self::Sha256, Self::Pattern];

    /// fio's name of the kind.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Crc32c => "crc32c",
            Self::Xxhash => "xxhash",
            Self::Sha256 => "sha256",
            Self::Pattern => "pattern",
        }
    }

    /// The kind named `name` (fio's names, any case; fio's `crc32c-intel` is `crc32c`, which
    /// uses the CPU's CRC instructions whenever they are there).
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        if name.eq_ignore_ascii_case("crc32c-intel") {
            return Some(Self::Crc32c);
        }
        Self::ALL
            .into_iter()
            .find(|kind| name.eq_ignore_ascii_case(kind.as_str()))
    }

    /// The code of the kind in the header's kind byte.
    fn code(self) -> u8 {
        match self {
            Self::Crc32c => 1,
            Self::Xxhash => 2,
            Self::Sha256 => 3,
            Self::Pattern => 4,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.code() == code)
    }

    /// The checksum field of a block of this kind with this payload.
    fn checksum(self, payload: &[u8]) -> [u8; CHECKSUM.end - CHECKSUM.start] {
        let mut field = [0u8; CHECKSUM.end - CHECKSUM.start];
        match self {
            Self::Crc32c => field[..4].copy_from_slice(&crc32c::crc32c(payload).to_le_bytes()),
            Self::Xxhash => {
                field[..8].copy_from_slice(&xxhash_rust::xxh3::xxh3_64(payload).to_le_bytes());
            }
            Self::Sha256 => field.copy_from_slice(&Sha256::digest(payload)),
            Self::Pattern => {}
        }
        field
    }

    /// The used part of a checksum field, as `0x...` for a report.
    fn checksum_text(self, field: &[u8]) -> String {
        let used = match self {
            Self::Crc32c => 4,
            Self::Xxhash => 8,
            Self::Sha256 | Self::Pattern => 32,
        };
        // Printed as the integer it is (little-endian), so it reads like the crc32c/xxh3 value.
        format!("0x{}", hex(field[..used].iter().rev().copied(), ""))
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a verify kind (the front end words the message around it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown verify kind `{}` (known: crc32c, crc32c-intel, xxhash, sha256, pattern)",
            self.0
        )
    }
}

impl std::error::Error for UnknownKind {}

impl FromStr for Kind {
    type Err = UnknownKind;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::parse(name).ok_or_else(|| UnknownKind(name.to_string()))
    }
}

/// What a block is: written into its header by [`fill`], and the key of its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockId {
    /// Byte offset of the block in the target.
    pub offset: u64,
    /// The worker that writes it.
    pub job: u32,
    /// How many times this offset has been overwritten before (0 for the first write).
    pub generation: u32,
    /// The job's verify seed.
    pub seed: u64,
}

impl BlockId {
    /// What a reader that knows everything about this block expects of it.
    #[cfg(test)]
    #[must_use]
    pub fn expect(&self) -> Expect {
        Expect {
            offset: self.offset,
            job: self.job,
            seed: self.seed,
            generation: Some(self.generation),
        }
    }
}

/// What a reader expects of a block it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expect {
    /// Byte offset the block was read from.
    pub offset: u64,
    /// The worker that wrote it.
    pub job: u32,
    /// The job's verify seed.
    pub seed: u64,
    /// The generation last written there; `None` accepts any (the reader may not know it).
    pub generation: Option<u32>,
}

/// Which part of a block is bad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MismatchKind {
    /// No header (bad magic: never written, or not a diskdash block), a header whose own CRC
    /// fails (corrupted), or a sound header for another block (misplaced or stale write).
    Header,
    /// The header is sound, the payload is not what it says (its checksum, or the pattern,
    /// differs).
    Data,
}

/// Why a block failed [`check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Which part is bad.
    pub kind: MismatchKind,
    /// One line: `header: offset field 8192, expected 4096`, `data: crc32c 0x..., expected
    /// 0x... (first difference at byte 4100)`.
    pub what: String,
    /// The first differing byte within the block when it can be told, else 0.
    pub at: usize,
    /// Where the excerpts start within the block.
    pub excerpt_at: usize,
    /// Up to 16 expected bytes from `excerpt_at`, hex, space-separated (empty when unknown).
    pub expected_hex: String,
    /// The same bytes as read.
    pub found_hex: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)?;
        if !self.found_hex.is_empty() {
            write!(
                f,
                "; bytes from {}: expected {}, found {}",
                self.excerpt_at, self.expected_hex, self.found_hex
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Mismatch {}

/// The longest pattern fio takes (its `MAX_PATTERN_SIZE`), `%o` offsets included.
pub(crate) const MAX_PATTERN: usize = 512;

/// fio's `verify_pattern`: bytes repeated over the block from its first byte, with the
/// block's offset (8 bytes, little-endian) wherever the pattern said `%o`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// The pattern's bytes, `%o` places included (8 bytes each, zero here).
    bytes: Vec<u8>,
    /// Where each `%o`'s 8 bytes start in `bytes`.
    offsets: Vec<usize>,
}

impl Pattern {
    /// The pattern stored as text: `0x` and hex digits and `%o`, one after the other
    /// (`0xaa555aa5`, `0xff%o0x00`), as the option table keeps it; `None` when the text is
    /// not that, is empty, or is longer than [`MAX_PATTERN`] bytes.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let mut bytes = Vec::new();
        let mut offsets = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix("%o") {
                offsets.push(bytes.len());
                bytes.extend_from_slice(&[0; 8]);
                rest = after;
            } else if let Some(hex) = rest.strip_prefix("0x") {
                let end = hex
                    .find(|c: char| !c.is_ascii_hexdigit())
                    .unwrap_or(hex.len());
                if end == 0 || end % 2 == 1 {
                    return None;
                }
                for pair in hex.as_bytes()[..end].chunks(2) {
                    let pair = std::str::from_utf8(pair).ok()?;
                    bytes.push(u8::from_str_radix(pair, 16).ok()?);
                }
                rest = &hex[end..];
            } else {
                return None;
            }
            if bytes.len() > MAX_PATTERN {
                return None;
            }
        }
        (!bytes.is_empty()).then_some(Self { bytes, offsets })
    }

    /// The pattern's bytes and where `%o` goes, as [`Pattern::parse`] reads them.
    #[cfg(test)]
    #[must_use]
    pub(crate) fn from_parts(bytes: Vec<u8>, offsets: Vec<usize>) -> Option<Self> {
        let fits = !bytes.is_empty()
            && bytes.len() <= MAX_PATTERN
            && offsets.iter().all(|&at| at + 8 <= bytes.len());
        fits.then_some(Self { bytes, offsets })
    }

    /// The text [`Pattern::parse`] reads back.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut at = 0;
        let mut places = self.offsets.iter().copied().peekable();
        while at < self.bytes.len() {
            if places.peek() == Some(&at) {
                places.next();
                out.push_str("%o");
                at += 8;
                continue;
            }
            let end = places.peek().copied().unwrap_or(self.bytes.len());
            out.push_str("0x");
            for byte in &self.bytes[at..end] {
                let _ = write!(out, "{byte:02x}");
            }
            at = end;
        }
        out
    }

    /// The payload of the block at `offset` from block byte `phase` on.
    fn payload(&self, offset: u64, phase: usize) -> Payload {
        let mut period = [0u8; MAX_PATTERN];
        period[..self.bytes.len()].copy_from_slice(&self.bytes);
        for &at in &self.offsets {
            period[at..at + 8].copy_from_slice(&offset.to_le_bytes());
        }
        Payload::Given {
            period,
            len: self.bytes.len(),
            phase,
        }
    }
}

/// How a job lays its verify blocks out (fio's `verify`, `verify_pattern`, `verify_interval`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout<'a> {
    pub kind: Kind,
    /// The bytes that fill the block (fio's `verify_pattern`); `None`: the kind's own payload.
    pub pattern: Option<&'a Pattern>,
    /// A header every this many bytes within a block (fio's `verify_interval`); 0 or the block
    /// size: one.
    pub interval: usize,
}

impl Layout<'_> {
    /// fio's `verify=pattern` with a given pattern: the whole block is the pattern, no header.
    fn bare(&self) -> Option<&Pattern> {
        self.pattern.filter(|_| self.kind == Kind::Pattern)
    }

    /// The block's pieces, each with a header of its own: `(start, length)`.
    fn pieces(&self, len: usize) -> impl Iterator<Item = (usize, usize)> {
        let step = if self.interval == 0 || self.interval >= len {
            len.max(1)
        } else {
            self.interval
        };
        (0..len)
            .step_by(step)
            .map(move |start| (start, step.min(len - start)))
    }
}

/// Writes a whole block as `layout` says: a header (every `interval` bytes) and the kind's
/// payload or the pattern, or, for `verify=pattern` with a pattern, the pattern alone.
///
/// # Panics
/// If a piece is shorter than [`HEADER_LEN`] where it carries a header (the job spec's
/// validation keeps blocks and intervals at least that long).
pub(crate) fn fill_block(buf: &mut [u8], layout: &Layout<'_>, id: &BlockId) {
    if let Some(pattern) = layout.bare() {
        pattern.payload(id.offset, 0).write(buf);
        return;
    }
    for (start, len) in layout.pieces(buf.len()) {
        let piece_id = BlockId {
            offset: id.offset + start as u64,
            ..*id
        };
        let given = layout
            .pattern
            .map(|pattern| pattern.payload(id.offset, start + HEADER_LEN));
        fill_with(&mut buf[start..start + len], layout.kind, &piece_id, given);
    }
}

/// Checks a block written by [`fill_block`] with the same layout: each piece's header and
/// payload, or the bare pattern. The mismatch's byte positions count from the block's start.
///
/// # Errors
/// What is wrong, the first thing found.
pub(crate) fn check_block(
    buf: &[u8],
    layout: &Layout<'_>,
    expected: &Expect,
) -> Result<(), Mismatch> {
    if let Some(pattern) = layout.bare() {
        let source = pattern.payload(expected.offset, 0);
        let Some(first) = source.first_difference(buf) else {
            return Ok(());
        };
        let start = excerpt_start(first, 0, buf.len());
        let end = (start + EXCERPT_LEN).min(buf.len());
        return Err(Mismatch {
            kind: MismatchKind::Data,
            what: format!(
                "data: pattern byte 0x{:02x} at {first}, expected 0x{:02x}",
                buf[first],
                source.byte(first)
            ),
            at: first,
            excerpt_at: start,
            expected_hex: hex_bytes((start..end).map(|i| source.byte(i))),
            found_hex: hex_bytes(buf[start..end].iter().copied()),
        });
    }
    for (start, len) in layout.pieces(buf.len()) {
        let piece_expect = Expect {
            offset: expected.offset + start as u64,
            ..*expected
        };
        let given = layout
            .pattern
            .map(|pattern| pattern.payload(expected.offset, start + HEADER_LEN));
        if let Err(mut mismatch) =
            check_with(&buf[start..start + len], layout.kind, &piece_expect, given)
        {
            if start > 0 {
                mismatch.at += start;
                mismatch.excerpt_at += start;
                let _ = write!(
                    mismatch.what,
                    " (in the verify_interval piece at byte {start}; byte {} of the block)",
                    mismatch.at
                );
            }
            return Err(mismatch);
        }
    }
    Ok(())
}

/// Writes a whole block into `buf`: header, payload from `id` (see the module doc), checksum.
/// Never allocates.
///
/// # Panics
/// If `buf` is shorter than [`HEADER_LEN`] (block sizes come from a validated job spec).
#[cfg(any(test, feature = "fixtures"))]
pub fn fill(buf: &mut [u8], kind: Kind, id: &BlockId) {
    fill_with(buf, kind, id, None);
}

/// [`fill`] with the payload `given` (a pattern) instead of the one from `id`.
fn fill_with(buf: &mut [u8], kind: Kind, id: &BlockId, given: Option<Payload>) {
    assert!(
        buf.len() >= HEADER_LEN,
        "a verify block holds at least its {HEADER_LEN}-byte header, not {} bytes",
        buf.len()
    );
    let (header, payload) = buf.split_at_mut(HEADER_LEN);
    given
        .unwrap_or_else(|| Payload::of(kind, id.seed, id.offset, id.generation))
        .write(payload);
    header.fill(0);
    header[..MAGIC.len()].copy_from_slice(&MAGIC);
    header[VERSION_AT] = VERSION;
    header[KIND_AT] = kind.code();
    put(header, OFFSET_AT, &id.offset.to_le_bytes());
    put(header, SEED_AT, &id.seed.to_le_bytes());
    put(header, JOB_AT, &id.job.to_le_bytes());
    put(header, GENERATION_AT, &id.generation.to_le_bytes());
    put(
        header,
        LENGTH_AT,
        &((HEADER_LEN + payload.len()) as u64).to_le_bytes(),
    );
    header[CHECKSUM].copy_from_slice(&kind.checksum(payload));
    let crc = crc32c::crc32c(&header[..HEADER_CRC_AT]);
    put(header, HEADER_CRC_AT, &crc.to_le_bytes());
}

/// Checks a block read back against what the reader expects: the header first (magic, its
/// CRC, then every field the reader knows), then the payload against the header's checksum,
/// or the pattern. Allocates only to build the [`Mismatch`].
///
/// # Errors
/// What is wrong, the first thing found.
#[cfg(any(test, feature = "fixtures"))]
pub fn check(buf: &[u8], kind: Kind, expected: &Expect) -> Result<(), Mismatch> {
    check_with(buf, kind, expected, None)
}

/// [`check`] of a block whose payload is `given` (a pattern), not the one its header keys.
fn check_with(
    buf: &[u8],
    kind: Kind,
    expected: &Expect,
    given: Option<Payload>,
) -> Result<(), Mismatch> {
    if buf.len() < HEADER_LEN {
        return Err(header_mismatch(
            buf,
            kind,
            expected,
            format!(
                "no header: block of {} bytes, shorter than the {HEADER_LEN}-byte header",
                buf.len()
            ),
            0,
        ));
    }
    if buf[..MAGIC.len()] != MAGIC {
        let at = (0..MAGIC.len()).find(|&i| buf[i] != MAGIC[i]).unwrap_or(0);
        return Err(header_mismatch(
            buf,
            kind,
            expected,
            format!(
                "no header: magic {}, expected {}",
                hex(buf[..MAGIC.len()].iter().copied(), ""),
                hex(MAGIC.into_iter(), "")
            ),
            at,
        ));
    }
    let stored_crc = u32_at(buf, HEADER_CRC_AT);
    let crc = crc32c::crc32c(&buf[..HEADER_CRC_AT]);
    let field = field_difference(buf, kind, expected);
    if stored_crc != crc {
        let mut what = format!("header: crc32c 0x{crc:08x}, expected 0x{stored_crc:08x}");
        let at = if let Some((text, at)) = field {
            what.push_str("; ");
            what.push_str(&text);
            at
        } else {
            // Every field the reader knows is right: the bad bytes are in the checksum field
            // (told by checksumming the payload), in the CRC itself, or in a generation the
            // reader does not know.
            let want = expected_header(buf, kind, expected);
            let at = (0..HEADER_LEN).find(|&i| buf[i] != want[i]).unwrap_or(0);
            if CHECKSUM.contains(&at) {
                let _ = write!(
                    what,
                    "; checksum field {}, the payload's {}",
                    kind.checksum_text(&buf[CHECKSUM]),
                    kind.checksum_text(&want[CHECKSUM])
                );
            } else {
                what.push_str("; every field the reader knows is as expected");
            }
            at
        };
        return Err(header_mismatch(buf, kind, expected, what, at));
    }
    if let Some((text, at)) = field {
        return Err(header_mismatch(
            buf,
            kind,
            expected,
            format!("header: {text}"),
            at,
        ));
    }

    let (header, payload) = buf.split_at(HEADER_LEN);
    // The header's own fields key the payload: they match `expected` here, except the
    // generation when the reader does not know it.
    let source = given.unwrap_or_else(|| {
        Payload::of(
            kind,
            u64_at(header, SEED_AT),
            u64_at(header, OFFSET_AT),
            u32_at(header, GENERATION_AT),
        )
    });
    let what = if kind == Kind::Pattern {
        match source.first_difference(payload) {
            None => return Ok(()),
            Some(i) => format!(
                "data: pattern byte 0x{:02x} at {}, expected 0x{:02x}",
                payload[i],
                HEADER_LEN + i,
                source.byte(i)
            ),
        }
    } else {
        let computed = kind.checksum(payload);
        if computed == header[CHECKSUM] {
            return Ok(());
        }
        format!(
            "data: {kind} {}, expected {}",
            kind.checksum_text(&computed),
            kind.checksum_text(&header[CHECKSUM])
        )
    };
    // A pattern's message names its first differing byte already; a checksum's does not.
    let names_the_byte = kind == Kind::Pattern;
    Err(data_mismatch(payload, &source, what, names_the_byte))
}

/// The first header field that differs from what the reader expects, as `name found, expected
/// want`, and where it starts to differ. Magic and CRC are checked by the caller.
fn field_difference(buf: &[u8], kind: Kind, expected: &Expect) -> Option<(String, usize)> {
    let want = known_header(buf, kind, expected);
    let at = (0..HEADER_CRC_AT).find(|&i| buf[i] != want[i])?;
    let text = match at {
        VERSION_AT => format!("format version {}, expected {VERSION}", buf[VERSION_AT]),
        KIND_AT => match Kind::from_code(buf[KIND_AT]) {
            Some(found) => format!("kind {found}, expected {kind}"),
            None => format!("kind code {}, expected {kind}", buf[KIND_AT]),
        },
        i if RESERVED_A.contains(&i) || RESERVED_B.contains(&i) => {
            format!("reserved byte {i} is 0x{:02x}, expected 0", buf[i])
        }
        i if (OFFSET_AT..OFFSET_AT + 8).contains(&i) => format!(
            "offset field {}, expected {}",
            u64_at(buf, OFFSET_AT),
            expected.offset
        ),
        i if (SEED_AT..SEED_AT + 8).contains(&i) => format!(
            "seed field 0x{:016x}, expected 0x{:016x}",
            u64_at(buf, SEED_AT),
            expected.seed
        ),
        i if (JOB_AT..JOB_AT + 4).contains(&i) => {
            format!(
                "job field {}, expected {}",
                u32_at(buf, JOB_AT),
                expected.job
            )
        }
        i if (GENERATION_AT..GENERATION_AT + 4).contains(&i) => format!(
            "generation field {}, expected {}",
            u32_at(buf, GENERATION_AT),
            u32_at(&want, GENERATION_AT)
        ),
        i if (LENGTH_AT..LENGTH_AT + 8).contains(&i) => format!(
            "block length field {}, expected {} (the length read)",
            u64_at(buf, LENGTH_AT),
            buf.len()
        ),
        // Only the fields above are set from `expected`.
        i => format!("byte {i} is 0x{:02x}, expected 0x{:02x}", buf[i], want[i]),
    };
    Some((text, at))
}

/// The header a reader expects, as far as it can tell: [`known_header`] with the checksum
/// field of the payload read (one pass over the block: for reports only), and the CRC of that.
fn expected_header(buf: &[u8], kind: Kind, expected: &Expect) -> [u8; HEADER_LEN] {
    let mut want = known_header(buf, kind, expected);
    if buf.len() >= HEADER_LEN {
        want[CHECKSUM].copy_from_slice(&kind.checksum(&buf[HEADER_LEN..]));
        let crc = crc32c::crc32c(&want[..HEADER_CRC_AT]);
        put(&mut want, HEADER_CRC_AT, &crc.to_le_bytes());
    }
    want
}

/// The header read (as much of it as there is) with every field the reader knows set to what
/// it expects, and its CRC recomputed. The checksum field, and the generation when the reader
/// does not know it, stay as read.
fn known_header(buf: &[u8], kind: Kind, expected: &Expect) -> [u8; HEADER_LEN] {
    let mut want = [0u8; HEADER_LEN];
    let known = buf.len().min(HEADER_LEN);
    want[..known].copy_from_slice(&buf[..known]);
    want[..MAGIC.len()].copy_from_slice(&MAGIC);
    want[VERSION_AT] = VERSION;
    want[KIND_AT] = kind.code();
    want[RESERVED_A].fill(0);
    want[RESERVED_B].fill(0);
    put(&mut want, OFFSET_AT, &expected.offset.to_le_bytes());
    put(&mut want, SEED_AT, &expected.seed.to_le_bytes());
    put(&mut want, JOB_AT, &expected.job.to_le_bytes());
    if let Some(generation) = expected.generation {
        put(&mut want, GENERATION_AT, &generation.to_le_bytes());
    }
    put(&mut want, LENGTH_AT, &(buf.len() as u64).to_le_bytes());
    let crc = crc32c::crc32c(&want[..HEADER_CRC_AT]);
    put(&mut want, HEADER_CRC_AT, &crc.to_le_bytes());
    want
}

fn header_mismatch(buf: &[u8], kind: Kind, expected: &Expect, what: String, at: usize) -> Mismatch {
    let want = expected_header(buf, kind, expected);
    let start = excerpt_start(at, 0, HEADER_LEN);
    let end = (start + EXCERPT_LEN).min(HEADER_LEN);
    Mismatch {
        kind: MismatchKind::Header,
        what,
        at,
        excerpt_at: start,
        expected_hex: hex_bytes(want[start..end].iter().copied()),
        found_hex: hex_bytes(
            buf[start.min(buf.len())..end.min(buf.len())]
                .iter()
                .copied(),
        ),
    }
}

/// A data mismatch found by a checksum or the pattern: the first differing byte is found by
/// comparing the payload with the one the header's fields make.
fn data_mismatch(
    payload: &[u8],
    source: &Payload,
    mut what: String,
    names_the_byte: bool,
) -> Mismatch {
    let Some(first) = source.first_difference(payload) else {
        // The payload is the one the header's fields make, yet its checksum is not the one
        // in the header: the header was written with another payload (or by another writer).
        what.push_str(" (the payload is the expected one: the checksum field is wrong)");
        return Mismatch {
            kind: MismatchKind::Data,
            what,
            at: 0,
            excerpt_at: 0,
            expected_hex: String::new(),
            found_hex: String::new(),
        };
    };
    let at = HEADER_LEN + first;
    if !names_the_byte {
        let _ = write!(what, " (first difference at byte {at})");
    }
    let start = excerpt_start(first, 0, payload.len());
    let end = (start + EXCERPT_LEN).min(payload.len());
    Mismatch {
        kind: MismatchKind::Data,
        what,
        at,
        excerpt_at: HEADER_LEN + start,
        expected_hex: hex_bytes((start..end).map(|i| source.byte(i))),
        found_hex: hex_bytes(payload[start..end].iter().copied()),
    }
}

/// Where a 16-byte excerpt around `at` starts, kept inside `low..high` when there is room.
fn excerpt_start(at: usize, low: usize, high: usize) -> usize {
    at.saturating_sub(EXCERPT_LEN / 2)
        .min(high.saturating_sub(EXCERPT_LEN))
        .max(low)
}

/// The payload of a block, one 8-byte little-endian word after another (a payload that is
/// not a multiple of 8 bytes ends with the first bytes of the next word).
// A given pattern's period sits on the stack for one block's fill or check; boxing it would
// allocate per block.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy)]
enum Payload {
    /// Word `i` is splitmix64's output for the state `key + (i + 1) * GAMMA`: any word can be
    /// made on its own, and making them in turn is one add and two multiplies each.
    Stream { key: u64 },
    /// The same word everywhere.
    Pattern { word: u64 },
    /// A given pattern (fio's `verify_pattern`): byte `i` is `period[(phase + i) % len]`.
    Given {
        period: [u8; MAX_PATTERN],
        len: usize,
        phase: usize,
    },
}

/// splitmix64's increment (Steele, Lea, Flood 2014). Defined here, not shared with the
/// workload's generator, since it is part of the on-disk format.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// splitmix64's output function: a bijective mix of 64 bits.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Payload {
    fn of(kind: Kind, seed: u64, offset: u64, generation: u32) -> Self {
        match kind {
            Kind::Pattern => Self::Pattern {
                word: mix64(seed ^ 0x7061_7474_6572_6e00), // "pattern\0"
            },
            _ => Self::Stream {
                key: seed ^ mix64(offset ^ mix64(u64::from(generation).wrapping_add(GAMMA))),
            },
        }
    }

    /// Word `index` of the payload.
    #[inline]
    fn word(&self, index: usize) -> u64 {
        match *self {
            Self::Stream { key } => mix64(key.wrapping_add((index as u64 + 1).wrapping_mul(GAMMA))),
            Self::Pattern { word } => word,
            Self::Given { .. } => {
                let mut bytes = [0u8; 8];
                for (k, byte) in bytes.iter_mut().enumerate() {
                    *byte = self.byte(index * 8 + k);
                }
                u64::from_le_bytes(bytes)
            }
        }
    }

    /// Byte `index` of the payload.
    fn byte(&self, index: usize) -> u8 {
        match self {
            Self::Given { period, len, phase } => period[(phase + index) % len],
            _ => self.word(index / 8).to_le_bytes()[index % 8],
        }
    }

    fn write(&self, payload: &mut [u8]) {
        if let Self::Given { period, len, phase } = self {
            let mut at = phase % len;
            for byte in payload {
                *byte = period[at];
                at += 1;
                if at == *len {
                    at = 0;
                }
            }
            return;
        }
        let last = self.word(payload.len() / 8).to_le_bytes();
        let mut words = payload.chunks_exact_mut(8);
        match *self {
            Self::Stream { key } => {
                let mut state = key;
                for chunk in &mut words {
                    state = state.wrapping_add(GAMMA);
                    chunk.copy_from_slice(&mix64(state).to_le_bytes());
                }
            }
            Self::Pattern { word } => {
                for chunk in &mut words {
                    chunk.copy_from_slice(&word.to_le_bytes());
                }
            }
            // Written byte by byte above.
            Self::Given { .. } => {}
        }
        let tail = words.into_remainder();
        tail.copy_from_slice(&last[..tail.len()]);
    }

    /// The first byte of `payload` that is not this payload's.
    fn first_difference(&self, payload: &[u8]) -> Option<usize> {
        if let Self::Given { period, len, phase } = self {
            let mut at = phase % len;
            for (i, byte) in payload.iter().enumerate() {
                if *byte != period[at] {
                    return Some(i);
                }
                at += 1;
                if at == *len {
                    at = 0;
                }
            }
            return None;
        }
        let mut words = payload.chunks_exact(8);
        let mut state = match *self {
            Self::Stream { key } => key,
            Self::Pattern { .. } | Self::Given { .. } => 0,
        };
        for (index, chunk) in (&mut words).enumerate() {
            let want = match *self {
                Self::Stream { .. } => {
                    state = state.wrapping_add(GAMMA);
                    mix64(state)
                }
                Self::Pattern { word } => word,
                Self::Given { .. } => self.word(index),
            };
            let found = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            if found != want {
                // The lowest differing bit is in the lowest differing byte (little-endian).
                let byte = (found ^ want).trailing_zeros() as usize / 8;
                return Some(index * 8 + byte);
            }
        }
        let tail = words.remainder();
        let last = self.word(payload.len() / 8).to_le_bytes();
        (0..tail.len())
            .find(|&i| tail[i] != last[i])
            .map(|i| payload.len() - tail.len() + i)
    }
}

fn put(buf: &mut [u8], at: usize, bytes: &[u8]) {
    buf[at..at + bytes.len()].copy_from_slice(bytes);
}

fn u32_at(buf: &[u8], at: usize) -> u32 {
    let mut bytes = [0u8; 4];
    bytes.copy_from_slice(&buf[at..at + 4]);
    u32::from_le_bytes(bytes)
}

fn u64_at(buf: &[u8], at: usize) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&buf[at..at + 8]);
    u64::from_le_bytes(bytes)
}

/// `44445646` (no separator) or `44 44 56 46`.
fn hex(bytes: impl Iterator<Item = u8>, separator: &str) -> String {
    let mut text = String::new();
    for (i, byte) in bytes.enumerate() {
        if i > 0 {
            text.push_str(separator);
        }
        // Writing into a String cannot fail.
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// `44 44 56 46`: bytes as they lie, space-separated.
fn hex_bytes(bytes: impl Iterator<Item = u8>) -> String {
    hex(bytes, " ")
}

impl crate::record::VerifyRecord {
    /// From a job's outcome.
    #[must_use]
    pub fn of(kind: &str, outcome: &VerifyOutcome) -> Self {
        Self {
            kind: kind.to_string(),
            blocks_checked: outcome.checked,
            blocks_failed: outcome.failed,
            read_back_ns: outcome.pass_ns,
            failures: outcome
                .failures
                .iter()
                .map(|f| crate::record::VerifyFailureRecord {
                    offset_bytes: f.offset,
                    worker: f.worker,
                    part: if f.header { "header" } else { "data" }.to_string(),
                    what: f.what.clone(),
                    at: f.at,
                    expected_hex: f.expected_hex.clone(),
                    found_hex: f.found_hex.clone(),
                })
                .collect(),
        }
    }
}

/// fio's `verify_backlog` and `verify_backlog_batch`: each time the log of written blocks not
/// yet checked holds a multiple of `every`, the job's next `batch` I/Os are reads of the
/// oldest of them, among its own I/O (fio's `check_get_verify` on `io_hist_len`); what is
/// still logged at the end is read back after the run, as without a backlog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BacklogSpec {
    /// Blocks written between two batches of checks (`verify_backlog`).
    pub every: u64,
    /// Blocks checked in each batch (`verify_backlog_batch`, default `every`). Fewer keeps
    /// `every - batch` blocks logged and checks a batch each `batch` writes; more checks later
    /// writes as soon as they land.
    pub batch: u64,
}

/// A worker's log of written blocks not yet checked, in the order their writes completed
/// (fio's `io_hist` list: a block is logged when its write succeeds, a failed write is not),
/// and the checks still due.
#[derive(Debug)]
pub(crate) struct Backlog {
    spec: BacklogSpec,
    log: std::collections::VecDeque<u64>,
    /// Checks still to issue in the current batch.
    due: u64,
}

impl Backlog {
    #[must_use]
    pub fn new(spec: BacklogSpec) -> Self {
        Self {
            spec,
            log: std::collections::VecDeque::new(),
            due: 0,
        }
    }

    /// A write of the block at `offset` completed: logged, and a batch begins when none is
    /// under way and the log holds a multiple of `every`.
    pub(crate) fn logged(&mut self, offset: u64) {
        self.log.push_back(offset);
        if self.due == 0 && self.log.len() as u64 % self.spec.every.max(1) == 0 {
            self.due = self.spec.batch;
        }
    }

    /// The block the next I/O reads back and checks, while a batch is due and the log holds
    /// one (the oldest); `None`: the job's own next I/O.
    pub(crate) fn next_check(&mut self) -> Option<u64> {
        if self.due == 0 {
            return None;
        }
        let offset = self.log.pop_front()?;
        self.due -= 1;
        Some(offset)
    }

    /// What was logged and not checked, oldest first: the read-back after the run.
    pub fn rest(&mut self) -> Vec<u64> {
        self.due = 0;
        self.log.drain(..).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SIZES: [usize; 4] = [512, 4 << 10, 64 << 10, 1 << 20];

    fn drain(backlog: &mut Backlog) -> Vec<u64> {
        std::iter::from_fn(|| backlog.next_check()).collect()
    }

    #[test]
    fn backlog_checks_each_batch_after_every_n_writes_oldest_first() {
        let mut backlog = Backlog::new(BacklogSpec { every: 3, batch: 3 });
        backlog.logged(40);
        backlog.logged(10);
        assert_eq!(backlog.next_check(), None, "nothing is due before 3 writes");
        backlog.logged(30);
        assert_eq!(drain(&mut backlog), [40, 10, 30]);
        backlog.logged(50);
        assert_eq!(backlog.next_check(), None);
        assert_eq!(backlog.rest(), [50]);
    }

    #[test]
    fn a_smaller_batch_keeps_the_rest_logged_and_checks_each_batch_writes() {
        let mut backlog = Backlog::new(BacklogSpec { every: 4, batch: 2 });
        for offset in 0..4 {
            backlog.logged(offset);
        }
        assert_eq!(drain(&mut backlog), [0, 1]);
        // The log holds 2: two more writes make it 4 again, and the next batch is due.
        backlog.logged(4);
        assert_eq!(backlog.next_check(), None);
        backlog.logged(5);
        assert_eq!(drain(&mut backlog), [2, 3]);
        assert_eq!(backlog.rest(), [4, 5]);
        assert_eq!(backlog.next_check(), None);
    }

    #[test]
    fn a_larger_batch_checks_later_writes_as_they_land() {
        let mut backlog = Backlog::new(BacklogSpec { every: 2, batch: 4 });
        backlog.logged(0);
        backlog.logged(1);
        assert_eq!(drain(&mut backlog), [0, 1]);
        // Two checks of the batch are left: the next writes are read back at once.
        backlog.logged(2);
        assert_eq!(backlog.next_check(), Some(2));
        backlog.logged(3);
        assert_eq!(backlog.next_check(), Some(3));
        backlog.logged(4);
        assert_eq!(
            backlog.next_check(),
            None,
            "the batch is spent and 1 block is logged"
        );
        backlog.logged(5);
        assert_eq!(drain(&mut backlog), [4, 5]);
    }

    fn id() -> BlockId {
        BlockId {
            offset: 4096,
            job: 3,
            generation: 7,
            seed: 0x0123_4567_89ab_cdef,
        }
    }

    fn block(kind: Kind, len: usize, id: &BlockId) -> Vec<u8> {
        let mut buf = vec![0u8; len];
        fill(&mut buf, kind, id);
        buf
    }

    fn header_error(buf: &[u8], kind: Kind, expected: &Expect) -> Mismatch {
        let err = check(buf, kind, expected).expect_err("a mismatch");
        assert_eq!(err.kind, MismatchKind::Header, "{err}");
        err
    }

    #[test]
    fn every_kind_and_size_round_trips() {
        for kind in Kind::ALL {
            for len in SIZES.into_iter().chain([HEADER_LEN, HEADER_LEN + 5, 1000]) {
                let buf = block(kind, len, &id());
                assert_eq!(check(&buf, kind, &id().expect()), Ok(()), "{kind} {len}");
                let any_generation = Expect {
                    generation: None,
                    ..id().expect()
                };
                assert_eq!(check(&buf, kind, &any_generation), Ok(()), "{kind} {len}");
            }
        }
    }

    #[test]
    fn the_header_is_little_endian_as_documented() {
        let buf = block(Kind::Crc32c, 512, &id());
        assert_eq!(&buf[..8], b"DDVF\x01\x01\x00\x00");
        assert_eq!(buf[8..16], 4096u64.to_le_bytes());
        assert_eq!(buf[16..24], 0x0123_4567_89ab_cdef_u64.to_le_bytes());
        assert_eq!(buf[24..28], 3u32.to_le_bytes());
        assert_eq!(buf[28..32], 7u32.to_le_bytes());
        assert_eq!(buf[32..40], 512u64.to_le_bytes());
        assert_eq!(
            buf[40..44],
            crc32c::crc32c(&buf[HEADER_LEN..]).to_le_bytes()
        );
        assert!(buf[44..76].iter().all(|&b| b == 0));
        assert_eq!(buf[76..80], crc32c::crc32c(&buf[..76]).to_le_bytes());
        // The payload is a fixed function of the header's fields: a change to it is a
        // format change.
        assert_eq!(
            buf[HEADER_LEN..HEADER_LEN + 8],
            Payload::of(Kind::Crc32c, id().seed, 4096, 7)
                .word(0)
                .to_le_bytes()
        );
        let pattern = block(Kind::Pattern, 512, &id());
        assert_eq!(pattern[5], 4);
        assert!(pattern[CHECKSUM].iter().all(|&b| b == 0));
        assert_eq!(pattern[HEADER_LEN..HEADER_LEN + 8], pattern[504..512]);
    }

    #[test]
    fn payloads_differ_by_offset_generation_and_seed() {
        let base = block(Kind::Xxhash, 4096, &id());
        for other in [
            BlockId {
                offset: 8192,
                ..id()
            },
            BlockId {
                generation: 8,
                ..id()
            },
            BlockId { seed: 1, ..id() },
        ] {
            let buf = block(Kind::Xxhash, 4096, &other);
            assert_ne!(buf[HEADER_LEN..], base[HEADER_LEN..], "{other:?}");
        }
    }

    #[test]
    fn every_bit_flipped_in_the_header_is_a_header_mismatch() {
        for kind in Kind::ALL {
            let mut buf = block(kind, 4096, &id());
            for bit in 0..HEADER_LEN * 8 {
                buf[bit / 8] ^= 1 << (bit % 8);
                let err = header_error(&buf, kind, &id().expect());
                assert!(err.what.starts_with("header: ") || err.what.starts_with("no header: "));
                // The reader knows every field and the payload is sound: the byte is told.
                assert_eq!(err.at, bit / 8, "{kind} bit {bit}: {err}");
                assert!(err.excerpt_at <= err.at && err.at < err.excerpt_at + 16);
                assert_ne!(err.found_hex, err.expected_hex, "{kind} bit {bit}");
                buf[bit / 8] ^= 1 << (bit % 8);
            }
            assert_eq!(check(&buf, kind, &id().expect()), Ok(()));
        }
    }

    #[test]
    fn a_flipped_bit_in_a_known_field_is_located() {
        let mut buf = block(Kind::Crc32c, 4096, &id());
        buf[OFFSET_AT + 1] ^= 0x20;
        let err = header_error(&buf, Kind::Crc32c, &id().expect());
        assert_eq!(err.at, OFFSET_AT + 1);
        assert!(err.what.starts_with("header: crc32c 0x"), "{}", err.what);
        assert!(
            err.what.ends_with("; offset field 12288, expected 4096"),
            "{}",
            err.what
        );
        assert_eq!(err.excerpt_at, 1);
        assert_eq!(err.expected_hex.len(), 16 * 3 - 1);
    }

    #[test]
    fn a_flipped_bit_in_the_checksum_or_crc_field_is_told() {
        let mut buf = block(Kind::Crc32c, 4096, &id());
        buf[CHECKSUM.start + 2] ^= 0x04;
        let err = header_error(&buf, Kind::Crc32c, &id().expect());
        assert_eq!(err.at, CHECKSUM.start + 2);
        assert!(err.what.contains("; checksum field 0x"), "{}", err.what);
        buf[CHECKSUM.start + 2] ^= 0x04;
        buf[HEADER_CRC_AT] ^= 0x01;
        let err = header_error(&buf, Kind::Crc32c, &id().expect());
        assert_eq!((err.at, err.excerpt_at), (HEADER_CRC_AT, HEADER_LEN - 16));
        assert!(
            err.what
                .ends_with("; every field the reader knows is as expected"),
            "{}",
            err.what
        );
    }

    #[test]
    fn a_sound_header_for_another_block_names_the_field() {
        let buf = block(Kind::Sha256, 4096, &id());
        let cases = [
            (
                Expect {
                    offset: 8192,
                    ..id().expect()
                },
                "header: offset field 4096, expected 8192",
                OFFSET_AT + 1,
            ),
            (
                Expect {
                    job: 4,
                    ..id().expect()
                },
                "header: job field 3, expected 4",
                JOB_AT,
            ),
            (
                Expect {
                    seed: 0x0123_4567_89ab_cdee,
                    ..id().expect()
                },
                "header: seed field 0x0123456789abcdef, expected 0x0123456789abcdee",
                SEED_AT,
            ),
            (
                Expect {
                    generation: Some(8),
                    ..id().expect()
                },
                "header: generation field 7, expected 8",
                GENERATION_AT,
            ),
        ];
        for (expected, what, at) in cases {
            let err = header_error(&buf, Kind::Sha256, &expected);
            assert_eq!(err.what, what);
            assert_eq!(err.at, at, "{what}");
            assert_ne!(err.expected_hex, err.found_hex);
        }
        assert_eq!(
            header_error(&buf, Kind::Crc32c, &id().expect()).what,
            "header: kind sha256, expected crc32c"
        );
        assert_eq!(
            header_error(&buf[..2048], Kind::Sha256, &id().expect()).what,
            "header: block length field 4096, expected 2048 (the length read)"
        );
    }

    #[test]
    fn zeros_short_blocks_and_garbage_have_no_header() {
        let zeros = vec![0u8; 4096];
        let err = header_error(&zeros, Kind::Crc32c, &id().expect());
        assert_eq!(err.what, "no header: magic 00000000, expected 44445646");
        assert_eq!(err.at, 0);
        assert_eq!(err.excerpt_at, 0);
        assert_eq!(err.found_hex, ["00"; 16].join(" "));
        assert!(
            err.expected_hex
                .starts_with("44 44 56 46 01 01 00 00 00 10 00")
        );
        assert_eq!(
            err.to_string(),
            format!(
                "no header: magic 00000000, expected 44445646; bytes from 0: expected {}, found {}",
                err.expected_hex, err.found_hex
            )
        );

        let err = header_error(&[0x44, 0x44], Kind::Crc32c, &id().expect());
        assert_eq!(
            err.what,
            "no header: block of 2 bytes, shorter than the 80-byte header"
        );
        assert_eq!(err.found_hex, "44 44");

        let mut garbage = block(Kind::Pattern, 4096, &id());
        garbage[..HEADER_LEN].fill(0xa5);
        let err = header_error(&garbage, Kind::Pattern, &id().expect());
        assert_eq!(err.what, "no header: magic a5a5a5a5, expected 44445646");

        garbage[..4].copy_from_slice(&MAGIC);
        let err = header_error(&garbage, Kind::Pattern, &id().expect());
        assert!(err.what.starts_with("header: crc32c 0x"), "{}", err.what);
        assert!(err.what.ends_with("; format version 165, expected 1"));
        assert_eq!(err.at, VERSION_AT);
    }

    #[test]
    fn a_flipped_payload_byte_is_a_data_mismatch_at_that_byte() {
        let mut buf = block(Kind::Crc32c, 4096, &id());
        buf[4000] ^= 0x01;
        let err = check(&buf, Kind::Crc32c, &id().expect()).expect_err("bad data");
        assert_eq!(err.kind, MismatchKind::Data);
        assert_eq!((err.at, err.excerpt_at), (4000, 3992));
        assert!(err.what.starts_with("data: crc32c 0x"), "{}", err.what);
        assert!(err.what.ends_with(" (first difference at byte 4000)"));
        buf[4090] ^= 0x01;
        let err = check(&buf, Kind::Crc32c, &id().expect()).expect_err("bad data");
        assert_eq!((err.at, err.excerpt_at), (4000, 3992));

        let mut buf = block(Kind::Pattern, 512, &id());
        let good = buf[300];
        buf[300] ^= 0x80;
        let err = check(&buf, Kind::Pattern, &id().expect()).expect_err("bad data");
        assert_eq!(
            err.what,
            format!(
                "data: pattern byte 0x{:02x} at 300, expected 0x{good:02x}",
                good ^ 0x80
            )
        );
        assert_eq!((err.at, err.excerpt_at), (300, 292));
    }

    #[test]
    fn a_payload_from_another_block_is_told_as_data() {
        // A torn write: the new header over the old payload.
        let mut buf = block(Kind::Xxhash, 4096, &id());
        let old = block(
            Kind::Xxhash,
            4096,
            &BlockId {
                generation: 6,
                ..id()
            },
        );
        buf[HEADER_LEN..].copy_from_slice(&old[HEADER_LEN..]);
        let err = check(&buf, Kind::Xxhash, &id().expect()).expect_err("torn");
        assert_eq!(err.kind, MismatchKind::Data);
        assert!(err.what.starts_with("data: xxhash 0x"), "{}", err.what);
    }

    #[test]
    fn a_checksum_field_that_lies_is_data_without_a_byte() {
        let mut buf = block(Kind::Crc32c, 512, &id());
        buf[CHECKSUM.start] ^= 1;
        let crc = crc32c::crc32c(&buf[..HEADER_CRC_AT]);
        buf[HEADER_CRC_AT..HEADER_LEN].copy_from_slice(&crc.to_le_bytes());
        let err = check(&buf, Kind::Crc32c, &id().expect()).expect_err("lie");
        assert_eq!(err.kind, MismatchKind::Data);
        assert_eq!(err.at, 0);
        assert!(
            err.what.ends_with("the checksum field is wrong)"),
            "{}",
            err.what
        );
    }

    #[test]
    fn kinds_parse_by_fio_names() {
        for kind in Kind::ALL {
            assert_eq!(Kind::parse(kind.as_str()), Some(kind));
            assert_eq!(kind.as_str().parse::<Kind>(), Ok(kind));
            assert_eq!(Kind::from_code(kind.code()), Some(kind));
        }
        assert_eq!(Kind::parse("crc32c-intel"), Some(Kind::Crc32c));
        assert_eq!(Kind::parse("SHA256"), Some(Kind::Sha256));
        assert_eq!(Kind::parse("md5"), None);
        assert_eq!(Kind::parse(""), None);
        assert_eq!(
            "md5".parse::<Kind>().unwrap_err().to_string(),
            "unknown verify kind `md5` (known: crc32c, crc32c-intel, xxhash, sha256, pattern)"
        );
    }

    fn layout(kind: Kind, pattern: Option<&Pattern>, interval: usize) -> Layout<'_> {
        Layout {
            kind,
            pattern,
            interval,
        }
    }

    #[test]
    fn a_bare_pattern_is_the_whole_block_and_a_changed_byte_is_named() {
        let pattern = Pattern::parse("0xaa555aa5").unwrap();
        let layout = layout(Kind::Pattern, Some(&pattern), 0);
        let mut buf = vec![0u8; 4096];
        fill_block(&mut buf, &layout, &id());
        assert!(buf.chunks(4).all(|c| c == [0xaa, 0x55, 0x5a, 0xa5]));
        check_block(&buf, &layout, &id().expect()).unwrap();
        buf[1001] = 0;
        let err = check_block(&buf, &layout, &id().expect()).unwrap_err();
        assert_eq!(err.kind, MismatchKind::Data);
        assert_eq!(err.at, 1001);
        assert_eq!(err.what, "data: pattern byte 0x00 at 1001, expected 0x55");
    }

    #[test]
    fn an_offset_in_the_pattern_is_the_blocks_offset() {
        let pattern = Pattern::parse("0xff%o").unwrap();
        assert_eq!(pattern.text(), "0xff%o");
        let layout = layout(Kind::Pattern, Some(&pattern), 0);
        let mut buf = vec![0u8; 18];
        fill_block(&mut buf, &layout, &id());
        let mut want = vec![0xff];
        want.extend_from_slice(&4096u64.to_le_bytes());
        want.extend_from_slice(&want.clone());
        assert_eq!(buf, want);
        // The same bytes read at another offset are not that block.
        let elsewhere = Expect {
            offset: 8192,
            ..id().expect()
        };
        assert!(check_block(&buf, &layout, &elsewhere).is_err());
    }

    #[test]
    fn headers_every_interval_then_the_pattern_from_the_blocks_start() {
        let pattern = Pattern::parse("0xaa555aa5").unwrap();
        let interval = layout(Kind::Crc32c, Some(&pattern), 512);
        let mut buf = vec![0u8; 4096];
        fill_block(&mut buf, &interval, &id());
        for (i, piece) in buf.chunks(512).enumerate() {
            assert_eq!(piece[..4], MAGIC);
            assert_eq!(u64_at(piece, OFFSET_AT), 4096 + 512 * i as u64);
            assert!(
                piece[HEADER_LEN..]
                    .chunks(4)
                    .all(|c| c == [0xaa, 0x55, 0x5a, 0xa5])
            );
        }
        check_block(&buf, &interval, &id().expect()).unwrap();
        buf[1000] ^= 1;
        let err = check_block(&buf, &interval, &id().expect()).unwrap_err();
        assert_eq!(err.kind, MismatchKind::Data);
        assert_eq!(err.at, 1000);
        assert!(
            err.what
                .contains("piece at byte 512; byte 1000 of the block"),
            "{}",
            err.what
        );
        // A whole-block reader of interval-written blocks finds no header where it looks.
        let whole = layout(Kind::Crc32c, Some(&pattern), 0);
        let mut buf = vec![0u8; 4096];
        fill_block(&mut buf, &interval, &id());
        assert!(check_block(&buf, &whole, &id().expect()).is_err());
    }

    #[test]
    fn an_interval_without_a_pattern_keys_each_piece_by_its_offset() {
        let layout = layout(Kind::Xxhash, None, 1024);
        let mut buf = vec![0u8; 4096];
        fill_block(&mut buf, &layout, &id());
        check_block(&buf, &layout, &id().expect()).unwrap();
        buf.swap(1024 + 100, 3072 + 100);
        buf[1024 + 100] ^= 0xff;
        let err = check_block(&buf, &layout, &id().expect()).unwrap_err();
        assert_eq!(err.at, 1124);
    }

    #[test]
    fn stored_patterns_that_are_not_patterns() {
        for text in [
            "",
            "aa",
            "0x",
            "0xabc",
            "%",
            "%x",
            "0xzz",
            &format!("0x{}", "ab".repeat(513)),
        ] {
            assert_eq!(Pattern::parse(text), None, "{text:?}");
        }
    }

    proptest! {
        /// A pattern's stored text reads back as the same pattern.
        #[test]
        fn a_pattern_round_trips_through_its_text(
            pieces in prop::collection::vec(
                prop::option::of(prop::collection::vec(any::<u8>(), 1..16)),
                1..8,
            ),
        ) {
            let mut bytes = Vec::new();
            let mut offsets = Vec::new();
            for piece in pieces {
                match piece {
                    None => {
                        offsets.push(bytes.len());
                        bytes.extend_from_slice(&[0; 8]);
                    }
                    Some(part) => bytes.extend_from_slice(&part),
                }
            }
            let pattern = Pattern::from_parts(bytes, offsets).unwrap();
            prop_assert_eq!(Pattern::parse(&pattern.text()), Some(pattern));
        }

        /// Any byte changed in a block of any layout is found, at that byte.
        #[test]
        fn a_changed_byte_is_found_in_any_layout(
            kind_index in 0..4usize,
            with_pattern in any::<bool>(),
            interval in prop::sample::select(vec![0usize, 512, 1024, 4096]),
            pick in any::<usize>(),
            flip in 1..=255u8,
            offset in any::<u32>(),
        ) {
            let pattern = Pattern::parse("0x01%o0xfe").unwrap();
            let kind = Kind::ALL[kind_index];
            let layout = layout(kind, with_pattern.then_some(&pattern), interval);
            let id = BlockId { offset: u64::from(offset) * 512, job: 0, generation: 0, seed: 9 };
            let mut buf = vec![0u8; 4096];
            fill_block(&mut buf, &layout, &id);
            prop_assert!(check_block(&buf, &layout, &id.expect()).is_ok());
            let at = pick % buf.len();
            buf[at] ^= flip;
            let err = check_block(&buf, &layout, &id.expect());
            prop_assert!(err.is_err());
        }

        /// A single flipped bit anywhere in the payload is bad data, found at its byte.
        #[test]
        fn a_flipped_payload_bit_is_found(
            kind_index in 0..4usize,
            len in prop::sample::select(vec![512usize, 4096, 65536, 1000]),
            bit_pick in any::<usize>(),
            offset in any::<u64>(),
            seed in any::<u64>(),
            generation in any::<u32>(),
        ) {
            let kind = Kind::ALL[kind_index];
            let id = BlockId { offset, job: 1, generation, seed };
            let mut buf = block(kind, len, &id);
            let bit = HEADER_LEN * 8 + bit_pick % ((len - HEADER_LEN) * 8);
            buf[bit / 8] ^= 1 << (bit % 8);
            let err = check(&buf, kind, &id.expect()).expect_err("a flipped bit");
            prop_assert_eq!(err.kind, MismatchKind::Data);
            prop_assert_eq!(err.at, bit / 8);
            prop_assert!(err.excerpt_at <= err.at && err.at < err.excerpt_at + 16);
            prop_assert_ne!(err.expected_hex, err.found_hex);
        }

        /// Random bytes are never a block; with the magic in front they fail the header CRC.
        #[test]
        fn garbage_is_a_header_mismatch(
            mut garbage in prop::collection::vec(any::<u8>(), 0..1024),
            with_magic in any::<bool>(),
        ) {
            if with_magic && garbage.len() >= MAGIC.len() {
                garbage[..MAGIC.len()].copy_from_slice(&MAGIC);
            }
            let err = check(&garbage, Kind::Crc32c, &id().expect()).expect_err("garbage");
            prop_assert_eq!(err.kind, MismatchKind::Header);
        }
    }
}
