//! The block tracepoints diskdash enables, and one record of them decoded through its format.

use super::format::{EventFormat, Field};

/// The tracepoints read, in the order a request meets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `block_bio_queue`: a bio enters the block layer (the partition's dev).
    BioQueue,
    /// `block_bio_backmerge`: a bio joined the end of a request.
    BioMerge,
    /// `block_bio_frontmerge`: a bio joined the front of a request, which now starts at the
    /// bio's sector (its later events carry that sector, its `block_io_start` the old one).
    BioFrontMerge,
    /// `block_rq_merge`: a request not yet issued was merged into the one before it and ends
    /// without `block_rq_issue` or `block_io_done` of its own (a scheduler's merge).
    RqMerge,
    /// `block_getrq`: the bio got a request (after waiting for a tag or a throttle).
    GetRq,
    /// `block_io_start` (6.5+): diskstats' clock starts.
    IoStart,
    /// `block_rq_insert`: a scheduler or software queue holds the request.
    Insert,
    /// `block_rq_issue`: handed to the driver.
    Issue,
    /// `block_rq_requeue`: the driver could not take the request (its queue was full, or a
    /// resource ran out): it is issued again later, with another `block_rq_issue`.
    Requeue,
    /// `block_rq_complete`: the driver says it is done.
    Complete,
    /// `block_io_done` (6.5+): diskstats' clock stops.
    IoDone,
    /// `block_bio_complete`: a bio-based device's bio ends.
    BioComplete,
}

impl Kind {
    /// Every kind and the tracepoints that give it.
    pub const ALL: [(Self, &'static str); 12] = [
        (Self::BioQueue, "block_bio_queue"),
        (Self::BioMerge, "block_bio_backmerge"),
        (Self::BioFrontMerge, "block_bio_frontmerge"),
        (Self::RqMerge, "block_rq_merge"),
        (Self::GetRq, "block_getrq"),
        (Self::IoStart, "block_io_start"),
        (Self::Insert, "block_rq_insert"),
        (Self::Issue, "block_rq_issue"),
        (Self::Requeue, "block_rq_requeue"),
        (Self::Complete, "block_rq_complete"),
        (Self::IoDone, "block_io_done"),
        (Self::BioComplete, "block_bio_complete"),
    ];
}

/// Read, write or discard, from the event's `rwbs` (`R`, `W`, `D`, after a leading `F` for a
/// preflush); flushes alone and anything else are `Other`, as diskstats leaves them out of
/// its reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    Read,
    Write,
    Trim,
    Other,
}

impl Dir {
    #[must_use]
    pub fn of_rwbs(rwbs: &[u8]) -> Self {
        // Plain indexing: once per event, and cheap in an unoptimised build too.
        let n = rwbs.len();
        let at = usize::from(n > 0 && rwbs[0] == b'F');
        if at >= n {
            return Self::Other;
        }
        match rwbs[at] {
            b'R' => Self::Read,
            b'W' | b'E' => Self::Write,
            b'D' => Self::Trim,
            _ => Self::Other,
        }
    }

    /// The index of read, write, trim in per-direction arrays; `None` for `Other`.
    #[must_use]
    pub fn index(self) -> Option<usize> {
        match self {
            Self::Read => Some(0),
            Self::Write => Some(1),
            Self::Trim => Some(2),
            Self::Other => None,
        }
    }
}

/// One decoded event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    pub kind: Kind,
    pub ts: u64,
    pub pid: i32,
    pub dev: u32,
    pub sector: u64,
    /// `bytes` where the event has it, else `nr_sector * 512`.
    pub bytes: u64,
    pub dir: Dir,
}

/// Where one tracepoint keeps what [`Event`] needs.
#[derive(Debug, Clone)]
pub struct Layout {
    pub kind: Kind,
    pub id: u16,
    pid: Field,
    dev: Field,
    sector: Field,
    nr_sector: Option<Field>,
    bytes: Option<Field>,
    rwbs: Field,
}

impl Layout {
    /// The layout of `format` for `kind`.
    ///
    /// # Errors
    /// A field the decoder needs is missing, named.
    pub fn new(kind: Kind, format: &EventFormat) -> Result<Self, String> {
        let need = |name: &str| {
            format
                .field(name)
                .ok_or_else(|| format!("{}: no `{name}` field", format.name))
        };
        Ok(Self {
            kind,
            id: format.id,
            pid: need("common_pid")?,
            dev: need("dev")?,
            sector: need("sector")?,
            nr_sector: format.field("nr_sector"),
            bytes: format.field("bytes"),
            rwbs: need("rwbs")?,
        })
    }

    /// Decodes `record`; `None` when it is too short for a field (malformed).
    #[must_use]
    #[allow(
        clippy::question_mark,
        reason = "runs for every event: each `?` is a call in the unoptimised test build"
    )]
    pub fn decode(&self, ts: u64, record: &[u8]) -> Option<Event> {
        // Plain matches, not `?`: this runs for every event, and each `?` is a call in the
        // test suite's unoptimised build.
        let bytes = match (self.bytes, self.nr_sector) {
            (Some(bytes), _) => match bytes.read(record) {
                Some(v) => v,
                None => return None,
            },
            (None, Some(sectors)) => match sectors.read(record) {
                Some(v) => v * 512,
                None => return None,
            },
            (None, None) => 0,
        };
        let (Some(pid), Some(dev), Some(sector)) = (
            self.pid.read(record),
            self.dev.read(record),
            self.sector.read(record),
        ) else {
            return None;
        };
        let (at, size) = (self.rwbs.offset, self.rwbs.size);
        if at > record.len() || record.len() - at < size {
            return None;
        }
        Some(Event {
            kind: self.kind,
            ts,
            pid: pid as i32,
            dev: dev as u32,
            sector,
            bytes,
            dir: Dir::of_rwbs(&record[at..at + size]),
        })
    }
}

/// Finds the layout of a record by its `common_type` (its first two bytes on every kernel
/// with these tracepoints; checked against the format's `common_type` at start).
#[derive(Debug, Clone, Default)]
pub struct Layouts {
    layouts: Vec<Layout>,
    common_type: Option<Field>,
    /// A layout's place in `layouts` by its id (one look-up per record, not a search).
    by_id: Vec<Option<u8>>,
}

impl Layouts {
    pub fn push(&mut self, layout: Layout, common_type: Field) {
        self.common_type.get_or_insert(common_type);
        let id = usize::from(layout.id);
        if self.by_id.len() <= id {
            self.by_id.resize(id + 1, None);
        }
        self.by_id[id] = u8::try_from(self.layouts.len()).ok();
        self.layouts.push(layout);
    }

    /// Decodes one record: `None` when its id is not one of ours or it is too short.
    #[must_use]
    #[allow(
        clippy::question_mark,
        reason = "runs for every event: each `?` is a call in the unoptimised test build"
    )]
    pub fn decode(&self, ts: u64, record: &[u8]) -> Option<Event> {
        let Some(id) = self.common_type.and_then(|f| f.read(record)) else {
            return None;
        };
        let id = (id & 0xffff) as usize;
        if id >= self.by_id.len() {
            return None;
        }
        match self.by_id[id] {
            Some(at) => self.layouts[at as usize].decode(ts, record),
            None => None,
        }
    }

    #[must_use]
    pub fn kinds(&self) -> Vec<Kind> {
        self.layouts.iter().map(|l| l.kind).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_direction_is_the_op_letter_after_a_preflush() {
        assert_eq!(Dir::of_rwbs(b"R\0\0"), Dir::Read);
        assert_eq!(Dir::of_rwbs(b"WS"), Dir::Write);
        assert_eq!(Dir::of_rwbs(b"FWS"), Dir::Write);
        assert_eq!(Dir::of_rwbs(b"FN"), Dir::Other);
        assert_eq!(Dir::of_rwbs(b"D"), Dir::Trim);
        assert_eq!(Dir::of_rwbs(b"RA"), Dir::Read);
        assert_eq!(Dir::of_rwbs(b""), Dir::Other);
    }

    #[test]
    fn a_record_is_decoded_by_its_id_and_a_short_one_is_refused() {
        let format = EventFormat::parse(
            "name: block_rq_complete\nID: 9\n\
             \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
             \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\
             \tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n\
             \tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n\
             \tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n\
             \tfield:char rwbs[10];\toffset:28;\tsize:10;\tsigned:0;\n",
        )
        .unwrap();
        let mut layouts = Layouts::default();
        layouts.push(
            Layout::new(Kind::Complete, &format).unwrap(),
            format.field("common_type").unwrap(),
        );
        let mut record = vec![0u8; 40];
        record[0..2].copy_from_slice(&9u16.to_ne_bytes());
        record[4..8].copy_from_slice(&321i32.to_ne_bytes());
        record[8..12].copy_from_slice(&((7u32 << 20) | 3).to_ne_bytes());
        record[16..24].copy_from_slice(&2048u64.to_ne_bytes());
        record[24..28].copy_from_slice(&8u32.to_ne_bytes());
        record[28] = b'W';
        let event = layouts.decode(55, &record).unwrap();
        assert_eq!(
            event,
            Event {
                kind: Kind::Complete,
                ts: 55,
                pid: 321,
                dev: (7 << 20) | 3,
                sector: 2048,
                bytes: 4096,
                dir: Dir::Write
            }
        );
        assert_eq!(layouts.decode(55, &record[..30]), None);
        record[0] = 10;
        assert_eq!(layouts.decode(55, &record), None, "not one of ours");
    }
}
