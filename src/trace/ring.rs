//! The ring buffer's pages as `per_cpu/cpuN/trace_pipe_raw` hands them out, decoded in binary.
//!
//! A page starts with a header (`events/header_page`: `timestamp`, `commit`, then `data`); the
//! commit word holds the bytes of data used and two flags (bit 31: events were lost before this
//! page; bit 30: their number is stored after the data). The kernel sets them when it hands the
//! page out (`ring_buffer_read_page`): the number is the events overwritten since the reader's
//! last page (`lost_events`, cleared by that read, so a page never repeats an earlier page's
//! loss), stored as an `unsigned long` right after the data when it fits in the page, else
//! only flagged (a full page: the number is not there). The kernel adds bit 31 as an `int`,
//! which sign-extends into a 64-bit commit word: only its low 30 bits are the size. The data is a run of events, each with
//! a 32-bit header (`events/header_event`): `type_len` in the low 5 bits, a time delta in the
//! other 27. `type_len` 1..=28: a record of `type_len * 4` bytes follows; 0: its length is in the
//! next word; 29: padding (a time delta of 0: the rest of the page is unused); 30: a time
//! extend (the next word holds the delta's high bits); 31: an absolute time stamp. This is the
//! kernel's own reader (`kernel/trace/ring_buffer.c`, `rb_update_read_stamp`). Nothing in a
//! page is trusted: an event that runs past the data ends the page and is counted.

use super::format::read_ne;

/// Bit of `commit`: events were lost before this page.
const MISSED_EVENTS: u64 = 1 << 31;
/// Bit of `commit`: the number lost is stored after the page's data.
const MISSED_STORED: u64 = 1 << 30;
/// The bits of `commit` that hold the bytes of data used (below both flags).
const SIZE_MASK: u64 = MISSED_STORED - 1;
/// Padding.
const TYPE_PADDING: u32 = 29;
/// A time extend: delta = next word << 27 | time_delta.
const TYPE_TIME_EXTEND: u32 = 30;
/// An absolute time stamp.
const TYPE_TIME_STAMP: u32 = 31;
/// The highest `type_len` of a data event.
const TYPE_DATA_MAX: u32 = 28;
/// Bits of a time delta in the event header.
const TS_SHIFT: u32 = 27;
/// The bits of a time stamp that an absolute stamp does not carry (`TS_MSB`).
const TS_MSB: u64 = 0xf8 << 56;

/// Where a page keeps its time stamp, its commit word and its data (`events/header_page`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLayout {
    pub timestamp: usize,
    pub commit: usize,
    pub commit_size: usize,
    pub data: usize,
}

impl Default for PageLayout {
    /// A 64-bit kernel's layout.
    fn default() -> Self {
        Self {
            timestamp: 0,
            commit: 8,
            commit_size: 8,
            data: 16,
        }
    }
}

impl PageLayout {
    /// Parses `events/header_page` (the same `field:` lines as a format file).
    ///
    /// # Errors
    /// A field is missing, said in words.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut found = [None; 3];
        for line in text.lines() {
            let line = line.trim();
            let Some(rest) = line.strip_prefix("field:") else {
                continue;
            };
            let mut parts = rest.split(';').map(str::trim);
            let declaration = parts.next().unwrap_or("");
            let name = declaration.split_whitespace().last().unwrap_or("");
            let mut offset = None;
            let mut size = None;
            for part in parts {
                match part.split_once(':') {
                    Some(("offset", v)) => offset = v.trim().parse::<usize>().ok(),
                    Some(("size", v)) => size = v.trim().parse::<usize>().ok(),
                    _ => {}
                }
            }
            let slot = match name {
                "timestamp" => 0,
                "commit" => 1,
                "data" => 2,
                _ => continue,
            };
            // `overwrite` shares commit's offset; the first `commit` line is the word.
            if found[slot].is_none() {
                found[slot] = offset.zip(size);
            }
        }
        match found {
            [
                Some((timestamp, 8)),
                Some((commit, commit_size)),
                Some((data, _)),
            ] if commit_size == 4 || commit_size == 8 => Ok(Self {
                timestamp,
                commit,
                commit_size,
                data,
            }),
            _ => Err("header_page lacks a timestamp, commit or data field".to_string()),
        }
    }
}

/// What a page says of the events lost before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Missed {
    /// None lost.
    #[default]
    None,
    /// This many, stored after the page's data.
    Count(u64),
    /// Some, without a number (the page was too full to store it).
    Unknown,
}

impl Missed {
    /// The number lost, at least: 1 where the page gives no number.
    #[must_use]
    pub fn at_least(self) -> u64 {
        match self {
            Self::None => 0,
            Self::Count(n) => n,
            Self::Unknown => 1,
        }
    }
}

/// What one page held beside its events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageOutcome {
    /// Data events handed on.
    pub events: u64,
    /// What the page says was lost before it.
    pub missed: Missed,
    /// Malformed: a header or event that runs past the data (the rest of the page is skipped).
    pub malformed: u64,
    /// Bytes of data the page holds (its commit word's count): a page read while the kernel
    /// was still writing it holds less than a page.
    pub used: usize,
}

fn word(page: &[u8], at: usize) -> Option<u32> {
    read_ne(page, at, 4).map(|w| w as u32)
}

fn number(page: &[u8], at: usize, size: usize) -> Option<u64> {
    match size {
        4 | 8 => read_ne(page, at, size),
        _ => None,
    }
}

/// Decodes one page, calling `event(timestamp_ns, record)` for each data event in order.
pub fn decode_page(
    layout: &PageLayout,
    page: &[u8],
    mut event: impl FnMut(u64, &[u8]),
) -> PageOutcome {
    let mut out = PageOutcome::default();
    let (Some(mut ts), Some(commit)) = (
        number(page, layout.timestamp, 8),
        number(page, layout.commit, layout.commit_size),
    ) else {
        out.malformed += 1;
        return out;
    };
    let used = (commit & SIZE_MASK) as usize;
    out.used = used;
    // A page read short keeps its whole events; the one cut is counted below.
    let Some(data) = page.get(layout.data..layout.data.saturating_add(used).min(page.len())) else {
        out.malformed += 1;
        return out;
    };
    if commit & MISSED_EVENTS != 0 {
        // The count is an `unsigned long`, the commit word's size; a page cut before it
        // says only that some were lost.
        out.missed = match (commit & MISSED_STORED != 0)
            .then(|| number(page, layout.data + used, layout.commit_size))
            .flatten()
        {
            Some(n) => Missed::Count(n),
            None => Missed::Unknown,
        };
    }
    let mut at = 0usize;
    while at < data.len() {
        let Some(header) = word(data, at) else {
            out.malformed += 1;
            break;
        };
        let type_len = header & 0x1f;
        let delta = u64::from(header >> 5);
        let (record, next) = match type_len {
            TYPE_PADDING if delta == 0 => break,
            TYPE_PADDING => match word(data, at + 4) {
                Some(len) => (None, at + 4 + len as usize),
                None => (None, usize::MAX),
            },
            TYPE_TIME_EXTEND | TYPE_TIME_STAMP => match word(data, at + 4) {
                Some(high) => {
                    let value = (u64::from(high) << TS_SHIFT) | delta;
                    if type_len == TYPE_TIME_EXTEND {
                        ts = ts.wrapping_add(value);
                    } else {
                        ts = fix_absolute(value, ts);
                    }
                    (None, at + 8)
                }
                None => (None, usize::MAX),
            },
            0 => match word(data, at + 4) {
                Some(len) if len >= 4 => {
                    ts = ts.wrapping_add(delta);
                    (Some(at + 8..at + 4 + len as usize), at + 4 + len as usize)
                }
                _ => (None, usize::MAX),
            },
            1..=TYPE_DATA_MAX => {
                ts = ts.wrapping_add(delta);
                let end = at + 4 + 4 * type_len as usize;
                (Some(at + 4..end), end)
            }
            _ => unreachable!("type_len has 5 bits"),
        };
        if next > data.len() || next <= at {
            out.malformed += 1;
            break;
        }
        if let Some(range) = record {
            out.events += 1;
            event(ts, &data[range]);
        }
        at = next;
    }
    out
}

/// An absolute stamp's missing high bits, from the time before it (`rb_fix_abs_ts`).
fn fix_absolute(mut abs: u64, before: u64) -> u64 {
    if before & TS_MSB != 0 {
        abs |= before & TS_MSB;
        if abs < before {
            abs = abs.wrapping_add(1 << 59);
        }
    }
    abs
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Builds a page in the default layout, event by event.
    pub(crate) struct PageBuilder {
        ts: u64,
        data: Vec<u8>,
        flags: u64,
        stored_lost: Option<u64>,
    }

    impl PageBuilder {
        pub(crate) fn new(ts: u64) -> Self {
            Self {
                ts,
                data: Vec::new(),
                flags: 0,
                stored_lost: None,
            }
        }

        fn header(&mut self, type_len: u32, delta: u32) {
            self.data
                .extend_from_slice(&(type_len | (delta << 5)).to_ne_bytes());
        }

        /// A data event `delta` ns after the previous one (a record padded to 4 bytes).
        pub(crate) fn event(mut self, delta: u32, record: &[u8]) -> Self {
            let mut record = record.to_vec();
            record.resize(record.len().div_ceil(4) * 4, 0);
            let words = record.len() / 4;
            if (1..=TYPE_DATA_MAX as usize).contains(&words) {
                self.header(words as u32, delta);
            } else {
                self.header(0, delta);
                self.data
                    .extend_from_slice(&(record.len() as u32 + 4).to_ne_bytes());
            }
            self.data.extend_from_slice(&record);
            self
        }

        /// A time extend of `delta` ns.
        pub(crate) fn extend(mut self, delta: u64) -> Self {
            self.header(TYPE_TIME_EXTEND, (delta & ((1 << TS_SHIFT) - 1)) as u32);
            self.data
                .extend_from_slice(&((delta >> TS_SHIFT) as u32).to_ne_bytes());
            self
        }

        /// A discarded event of `len` bytes.
        pub(crate) fn discarded(mut self, len: u32) -> Self {
            self.header(TYPE_PADDING, 1);
            self.data.extend_from_slice(&len.to_ne_bytes());
            self.data.extend(std::iter::repeat_n(0u8, len as usize - 4));
            self
        }

        /// Events lost before the page: their number stored after the data, or not.
        pub(crate) fn lost(mut self, stored: Option<u64>) -> Self {
            self.flags |= MISSED_EVENTS;
            if let Some(n) = stored {
                self.flags |= MISSED_STORED;
                self.stored_lost = Some(n);
            }
            self
        }

        /// The page, `size` bytes (the rest zero, as the kernel leaves it).
        pub(crate) fn build(self, size: usize) -> Vec<u8> {
            let mut page = Vec::with_capacity(size);
            page.extend_from_slice(&self.ts.to_ne_bytes());
            // As the kernel does it: `local_add(RB_MISSED_STORED)`, then
            // `local_add(RB_MISSED_EVENTS)` with `(1 << 31)` an `int`, sign-extended.
            let mut commit = self.data.len() as u64 | (self.flags & MISSED_STORED);
            if self.flags & MISSED_EVENTS != 0 {
                commit = commit.wrapping_add(i64::from(i32::MIN) as u64);
            }
            page.extend_from_slice(&commit.to_ne_bytes());
            page.extend_from_slice(&self.data);
            if let Some(n) = self.stored_lost {
                page.extend_from_slice(&n.to_ne_bytes());
            }
            page.resize(size.max(page.len()), 0);
            page
        }
    }

    fn decode(page: &[u8]) -> (Vec<(u64, Vec<u8>)>, PageOutcome) {
        let mut seen = Vec::new();
        let out = decode_page(&PageLayout::default(), page, |ts, r| {
            seen.push((ts, r.to_vec()));
        });
        (seen, out)
    }

    #[test]
    fn the_header_page_of_this_kernel_gives_the_default_layout() {
        let text = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;
\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;
\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;
\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;
";
        assert_eq!(PageLayout::parse(text), Ok(PageLayout::default()));
        assert!(PageLayout::parse("field: u64 timestamp;\toffset:0;\tsize:8;").is_err());
    }

    #[test]
    fn events_get_the_page_time_plus_their_deltas_and_extends() {
        let page = PageBuilder::new(1_000)
            .event(5, &[1; 8])
            .event(10, &[2; 12])
            .extend(1 << 30)
            .event(3, &[3; 4])
            .discarded(16)
            .event(2, &[4; 200])
            .build(4096);
        let (seen, out) = decode(&page);
        let times: Vec<u64> = seen.iter().map(|(t, _)| *t).collect();
        assert_eq!(
            times,
            vec![1_005, 1_015, 1_015 + (1 << 30) + 3, 1_015 + (1 << 30) + 5]
        );
        assert_eq!(seen[1].1, vec![2; 12]);
        // A long record's length comes from its length word.
        assert_eq!(seen[3].1, vec![4; 200]);
        assert_eq!(
            out,
            PageOutcome {
                events: 4,
                missed: Missed::None,
                malformed: 0,
                used: page_data_len(&page),
            }
        );
    }

    fn page_data_len(page: &[u8]) -> usize {
        u64::from_ne_bytes(page[8..16].try_into().unwrap()) as usize
    }

    #[test]
    fn a_page_that_stores_the_number_lost_gives_it_and_its_events_whole() {
        let page = PageBuilder::new(0)
            .lost(Some(42))
            .event(1, &[5; 8])
            .event(1, &[6; 8])
            .build(4096);
        // The kernel's sign extension sets the commit word's high half: not part of the size.
        let commit = u64::from_ne_bytes(page[8..16].try_into().unwrap());
        assert_eq!(commit >> 32, 0xffff_ffff);
        let (seen, out) = decode(&page);
        assert_eq!(out.missed, Missed::Count(42));
        assert_eq!(out.missed.at_least(), 42);
        assert_eq!(out.used, 24, "the size is the low bits only");
        assert_eq!(seen.len(), 2, "the stored count is not read as an event");
        assert_eq!(out.malformed, 0);
    }

    #[test]
    fn a_page_that_only_flags_a_loss_says_so_without_a_number() {
        // A full page has no room for the count: bit 31 alone.
        let page = PageBuilder::new(0).lost(None).event(1, &[0; 8]).build(4096);
        let out = decode(&page).1;
        assert_eq!(out.missed, Missed::Unknown);
        assert_eq!(out.missed.at_least(), 1);
        assert_eq!(out.events, 1);
        // Stored, but the page read stops before the count: no number either, never garbage.
        let page = PageBuilder::new(0).lost(Some(7)).event(1, &[0; 8]).build(0);
        assert_eq!(decode(&page[..page.len() - 4]).1.missed, Missed::Unknown);
    }

    #[test]
    fn a_page_without_the_flag_lost_nothing_whatever_follows_its_data() {
        // Bit 30 without bit 31 (the kernel never writes it) and a word after the data that
        // looks like a count: nothing lost.
        let mut page = PageBuilder::new(0).event(1, &[0; 8]).build(4096);
        page[8..16].copy_from_slice(&(12u64 | MISSED_STORED).to_ne_bytes());
        page[16 + 12..16 + 20].copy_from_slice(&1_000_000u64.to_ne_bytes());
        let out = decode(&page).1;
        assert_eq!(out.missed, Missed::None);
        assert_eq!(out.used, 12);
        assert_eq!(out.events, 1);
    }

    #[test]
    fn a_truncated_page_gives_the_whole_events_and_counts_the_broken_one() {
        let page = PageBuilder::new(0)
            .event(1, &[7; 8])
            .event(1, &[8; 40])
            .build(0);
        // Cut in the middle of the second event: the commit word still claims it.
        let cut = &page[..16 + 12 + 20];
        let (seen, out) = decode(cut);
        assert_eq!(seen.len(), 1, "the whole first event is read");
        assert_eq!(seen[0].1, vec![7; 8]);
        assert_eq!(out.malformed, 1);
        // The commit word shortened to cut the second event: the first is good, the
        // second's header claims more than there is.
        let mut page = page;
        page[8..16].copy_from_slice(&(12u64 + 20).to_ne_bytes());
        let (seen, out) = decode(&page);
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].1, vec![7; 8]);
        assert_eq!(out.malformed, 1);
        // Less than a page header.
        assert_eq!(decode(&page[..10]).1.malformed, 1);
    }

    #[test]
    fn zero_padding_ends_the_page() {
        let mut page = PageBuilder::new(0).event(1, &[1; 4]).build(64);
        // Claim the whole page as used: the zero word after the event is end-of-page padding
        // (type 29, delta 0)... written as the kernel does.
        page[16 + 8..16 + 12].copy_from_slice(&TYPE_PADDING.to_ne_bytes());
        page[8..16].copy_from_slice(&48u64.to_ne_bytes());
        let (seen, out) = decode(&page);
        assert_eq!(seen.len(), 1);
        assert_eq!(out.malformed, 0);
    }

    #[test]
    fn an_absolute_stamp_keeps_the_high_bits_of_the_time_before() {
        assert_eq!(fix_absolute(5, 0), 5);
        let before = (1u64 << 60) | 100;
        assert_eq!(fix_absolute(200, before), (1 << 60) | 200);
        // Wrapped below the time before: the next 2^59.
        assert_eq!(fix_absolute(50, before), (1 << 60) + (1 << 59) + 50);
    }
}
