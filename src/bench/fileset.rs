//! Several files per worker (fio's `nrfiles`, `openfiles`, `file_service_type`): which file
//! each I/O goes to. Each file keeps its own position (the worker keeps one workload per
//! file); the picker only says which one is next.

use crate::bench::kinds::splitmix64;

/// fio's `file_service_type`: how a worker moves between its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    /// A file chosen at random among the open ones, a new choice every `batch` I/Os.
    Random,
    /// The open files in turn, `batch` I/Os each.
    RoundRobin,
    /// One file until its bytes are done, then the next.
    Sequential,
}

/// How a worker spreads its I/O over its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSet {
    /// Files per worker (fio's `nrfiles`), more than one.
    pub count: u32,
    /// At most this many receive I/O at once (fio's `openfiles`), 1 to `count`.
    pub open: u32,
    pub service: Service,
    /// I/Os before the next choice of file (fio's `random:N`, `roundrobin:N`), at least 1.
    pub batch: u32,
    /// Each file's length (fio's `filesize`, or the job's size over `nrfiles`); with a
    /// `filesize` range, the largest a file can be.
    pub file_bytes: u64,
    /// fio's `filesize=LOW-HIGH`: each file's length drawn in the range; `None`: all are
    /// `file_bytes`.
    pub sizes: Option<SizeRange>,
}

/// fio's `filesize` range: each file's length drawn between `low` and `high`, aligned down to
/// `align` (the smallest block size), as fio's `get_rand_file_size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeRange {
    pub low: u64,
    pub high: u64,
    pub align: u64,
    pub seed: u64,
}

impl SizeRange {
    /// The length of file `file`: the same draw for the same seed and file.
    #[must_use]
    pub fn draw(&self, file: u32) -> u64 {
        let mut state = self.seed ^ u64::from(file).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let r = splitmix64(&mut state);
        let span = u128::from(self.high.saturating_sub(self.low));
        // low + span * r / 2^64: in [low, high).
        let bytes = self.low + ((span * u128::from(r)) >> 64) as u64;
        let align = self.align.max(1);
        (bytes - bytes % align).max(align)
    }
}

impl FileSet {
    /// The length of file `file` (0 to `count` - 1).
    #[must_use]
    pub fn bytes_of(&self, file: u32) -> u64 {
        self.sizes.map_or(self.file_bytes, |range| range.draw(file))
    }

    /// fio's `file_service_type` value: the service and its batch, with a note when a form
    /// is taken as another (`zipf`, `pareto`, `normal`, `gauss` choose files at random, a new
    /// choice every I/O). `None`: not a file service type.
    #[must_use]
    pub fn parse_service(text: &str) -> Option<(Service, u32, Option<&'static str>)> {
        let (kind, arg) = match text.split_once([':', '%']) {
            Some((kind, arg)) => (kind.trim(), Some(arg.trim().trim_end_matches('%'))),
            None => (text.trim(), None),
        };
        let number = match arg {
            Some(arg) => Some(
                arg.parse::<f64>()
                    .ok()
                    .filter(|n| n.is_finite() && *n > 0.0)?,
            ),
            None => None,
        };
        match kind {
            "random" | "roundrobin" | "sequential" => {
                let batch = match number {
                    // fio takes the batch as a whole number of I/Os.
                    Some(n) if n >= 1.0 && n <= f64::from(u32::MAX) => n as u32,
                    Some(_) => return None,
                    None => 1,
                };
                let service = match kind {
                    "random" => Service::Random,
                    "roundrobin" => Service::RoundRobin,
                    _ => Service::Sequential,
                };
                Some((service, batch, None))
            }
            "zipf" | "pareto" | "normal" | "gauss" => Some((
                Service::Random,
                1,
                Some("diskdash chooses each I/O's file uniformly at random among the open ones"),
            )),
            _ => None,
        }
    }
}

/// The file of each next I/O, as fio's `get_next_file`: a set of `open` files receives I/O;
/// a file whose bytes are done leaves it for the next unvisited one, and receives no more in
/// this pass (once every file has had its bytes, a time-based job starts over).
#[derive(Debug, Clone)]
pub struct FilePicker {
    set: FileSet,
    /// The files receiving I/O now.
    open: Vec<u32>,
    /// The next file to join `open`.
    next_new: u32,
    /// Bytes issued to each file in its current pass.
    done: Vec<u64>,
    /// Index in `open` of the current file, and I/Os left before choosing again.
    at: usize,
    left: u32,
    rng: u64,
}

impl FilePicker {
    #[must_use]
    pub fn new(set: FileSet, seed: u64) -> Self {
        let open = set.open.clamp(1, set.count);
        Self {
            set,
            open: (0..open).collect(),
            next_new: open,
            done: vec![0; set.count as usize],
            at: 0,
            left: set.batch,
            rng: seed ^ 0x6669_6c65_7365_7421,
        }
    }

    /// The file the next I/O goes to; `account` must follow with its length.
    pub fn pick(&mut self) -> u32 {
        if self.left == 0 {
            self.left = self.set.batch;
            self.at = match self.set.service {
                Service::Sequential => self.at,
                Service::RoundRobin => (self.at + 1) % self.open.len(),
                Service::Random => (splitmix64(&mut self.rng) % self.open.len() as u64) as usize,
            };
        }
        self.left -= 1;
        self.open[self.at]
    }

    /// `len` bytes went to the file `pick` gave; a file whose bytes are done makes way for
    /// the next one.
    pub fn account(&mut self, len: u32) {
        let file = self.open[self.at] as usize;
        self.done[file] += u64::from(len);
        if self.done[file] < self.set.bytes_of(file as u32) {
            return;
        }
        self.done[file] = 0;
        let sequential = self.set.service == Service::Sequential;
        if self.next_new < self.set.count {
            // The next unvisited file takes its place.
            self.open[self.at] = self.next_new;
            self.next_new += 1;
        } else {
            self.open.remove(self.at);
            if self.open.is_empty() {
                // Every file has had its bytes: a new pass (a time-based job goes on).
                let n = self.set.open.clamp(1, self.set.count);
                self.open = (0..n).collect();
                self.next_new = n;
                self.at = if sequential { 0 } else { self.open.len() - 1 };
            } else if sequential {
                self.at %= self.open.len();
            } else {
                // The file that followed the finished one is next in turn.
                self.at = (self.at + self.open.len() - 1) % self.open.len();
            }
        }
        // The sequential service goes on with the file now at its place; the others choose.
        self.left = if sequential { self.set.batch } else { 0 };
    }

    /// The files that receive I/O now.
    #[cfg(test)]
    #[must_use]
    pub fn open_files(&self) -> &[u32] {
        &self.open
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(count: u32, open: u32, service: Service, batch: u32) -> FileSet {
        FileSet {
            count,
            open,
            service,
            batch,
            file_bytes: 4 * 4096,
            sizes: None,
        }
    }

    #[test]
    fn a_size_range_draws_each_file_in_it_aligned_to_the_block() {
        let range = SizeRange {
            low: 1 << 20,
            high: 4 << 20,
            align: 4096,
            seed: 11,
        };
        let sizes: Vec<u64> = (0..64).map(|f| range.draw(f)).collect();
        for &bytes in &sizes {
            assert!((1 << 20..4 << 20).contains(&bytes), "{bytes}");
            assert_eq!(bytes % 4096, 0, "{bytes}");
        }
        // Seeded: the same seed draws the same sizes, another seed others.
        assert_eq!(sizes, (0..64).map(|f| range.draw(f)).collect::<Vec<_>>());
        let other = SizeRange { seed: 12, ..range };
        assert_ne!(sizes, (0..64).map(|f| other.draw(f)).collect::<Vec<_>>());
        // Spread over the range, not bunched: both ends' thirds are drawn.
        assert!(sizes.iter().any(|&b| b < 2 << 20) && sizes.iter().any(|&b| b >= 3 << 20));
        // The picker gives each file its own length: file 1 of 2 blocks, file 0 of 3.
        let set = FileSet {
            file_bytes: 3 * 4096,
            sizes: Some(SizeRange {
                low: 2 * 4096,
                high: 4 * 4096,
                align: 4096,
                seed: 5,
            }),
            ..set(2, 2, Service::Sequential, 1)
        };
        let lens = [set.bytes_of(0), set.bytes_of(1)];
        let files = order(set, ((lens[0] + lens[1]) / 4096) as usize);
        for f in 0..2 {
            let n = files.iter().filter(|&&x| x == f).count() as u64;
            assert_eq!(n * 4096, lens[f as usize], "{files:?} {lens:?}");
        }
    }

    /// The files of `n` I/Os of 4 KiB.
    fn order(set: FileSet, n: usize) -> Vec<u32> {
        let mut picker = FilePicker::new(set, 7);
        (0..n)
            .map(|_| {
                let f = picker.pick();
                picker.account(4096);
                f
            })
            .collect()
    }

    #[test]
    fn roundrobin_takes_the_files_in_turn() {
        assert_eq!(
            order(set(3, 3, Service::RoundRobin, 1), 7),
            [0, 1, 2, 0, 1, 2, 0]
        );
        assert_eq!(
            order(set(3, 3, Service::RoundRobin, 2), 7),
            [0, 0, 1, 1, 2, 2, 0]
        );
    }

    #[test]
    fn sequential_finishes_each_file_before_the_next() {
        // Four blocks a file.
        assert_eq!(
            order(set(3, 3, Service::Sequential, 1), 13),
            [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0]
        );
    }

    #[test]
    fn random_visits_every_file_and_gives_each_its_bytes() {
        let files = order(set(4, 4, Service::Random, 1), 400);
        for f in 0..4 {
            // Four blocks each per pass.
            let n = files.iter().filter(|&&x| x == f).count();
            assert_eq!(n, 100, "file {f}: {n} of 400");
        }
        // Not simply in turn.
        assert_ne!(files[..8], [0, 1, 2, 3, 0, 1, 2, 3]);
        // random:3 keeps each choice for three I/Os.
        let long = FileSet {
            file_bytes: 1 << 30,
            ..set(4, 4, Service::Random, 3)
        };
        let files = order(long, 30);
        for run in files.chunks(3) {
            assert!(run.iter().all(|&f| f == run[0]), "{files:?}");
        }
    }

    #[test]
    fn openfiles_caps_the_files_receiving_io_and_every_file_is_visited() {
        // Two open at once, in turn; each done file (4 blocks) makes way for the next.
        let files = order(set(4, 2, Service::RoundRobin, 1), 16);
        assert_eq!(files, [0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 2, 3]);
        let mut picker = FilePicker::new(set(5, 2, Service::Random, 1), 3);
        let mut seen = [0u32; 5];
        // Until every file has had I/O, none gets more than its four blocks.
        while seen.contains(&0) {
            let f = picker.pick();
            assert!(picker.open_files().len() <= 2);
            seen[f as usize] += 1;
            assert!(seen[f as usize] <= 4, "{seen:?}");
            picker.account(4096);
        }
        // The pass ends with every file's four blocks.
        while seen.iter().sum::<u32>() < 20 {
            seen[picker.pick() as usize] += 1;
            picker.account(4096);
        }
        assert_eq!(seen, [4; 5]);
    }

    #[test]
    fn service_types_parse_as_fio_writes_them() {
        let p = FileSet::parse_service;
        assert_eq!(p("random"), Some((Service::Random, 1, None)));
        assert_eq!(p("roundrobin:4"), Some((Service::RoundRobin, 4, None)));
        assert_eq!(p("sequential"), Some((Service::Sequential, 1, None)));
        assert_eq!(
            p("zipf:1.2").map(|(s, b, _)| (s, b)),
            Some((Service::Random, 1))
        );
        assert!(p("gauss:10%").and_then(|(_, _, note)| note).is_some());
        assert_eq!(p("random:0"), None);
        assert_eq!(p("roundrobin:x"), None);
        assert_eq!(p("bogus"), None);
    }
}
