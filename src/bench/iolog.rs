//! fio's log files (`write_bw_log`, `write_iops_log`, `write_lat_log`, `write_hist_log`) as
//! each worker writes its own, in fio 3.33's formats: one set per clone, as fio's threads.
//!
//! A worker keeps its lines in memory and writes them to the file in blocks of
//! [`FLUSH_BYTES`] (and at its end): no lock, no channel, no syscall per I/O. A job without
//! logs has no [`IoLog`] and its loop none of this (`bench::worker`'s plain loop).
//!
//! Times are milliseconds since the worker started counting (after its ramp), as fio's since
//! its thread's epoch. Without `log_avg_msec` (`avg_msec` 0) every I/O is a line:
//! `time, value, direction, block size, [offset,] priority`; bw is
//! `bytes * 1e6 / clat ns` (fio's per-I/O rate), iops 1, latencies in ns. With it, a line per
//! window and direction: bw and iops as the window's rate, latencies as its mean (its maximum
//! with `log_max_value`), block size, offset and priority 0. A hist log line (`log_hist_msec`)
//! is `time, direction, block size` then the window's completion-latency counts in fio's
//! `plat` bins, summed in groups of `2^log_hist_coarseness`.

use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Mutex, Once, PoisonError};

use crate::bench::kinds::Direction;
use crate::stats::plat::{PLAT_NR, plat_index};

/// A worker's lines of one log are written once this many bytes have gathered.
pub const FLUSH_BYTES: usize = 64 * 1024;

/// The logs, in fio's name order: `_bw`, `_iops`, `_lat`, `_clat`, `_slat`, `_clat_hist`.
pub const KINDS: [&str; 6] = ["bw", "iops", "lat", "clat", "slat", "clat_hist"];
const BW: usize = 0;
const IOPS: usize = 1;
const LAT: usize = 2;
const SLAT: usize = 4;
const HIST: usize = 5;

/// One log file, written by the clones that share its name (all of a job's with fio's
/// `per_job_logs=0`), opened for appending.
#[derive(Debug)]
pub struct LogFile {
    file: File,
    /// An earlier log at the name: emptied before the first line, or at the run's end.
    earlier: bool,
    emptied: Once,
    /// The first write that failed.
    error: Mutex<Option<String>>,
}

impl LogFile {
    /// The file, set to append (so clones sharing it never overwrite each other's lines).
    ///
    /// # Errors
    /// Setting the flag.
    pub fn new(file: File, earlier: bool) -> std::io::Result<Self> {
        use nix::fcntl::{FcntlArg, OFlag, fcntl};
        let flags = fcntl(&file, FcntlArg::F_GETFL).map_err(std::io::Error::from)?;
        let flags = OFlag::from_bits_truncate(flags) | OFlag::O_APPEND;
        fcntl(&file, FcntlArg::F_SETFL(flags)).map_err(std::io::Error::from)?;
        Ok(Self {
            file,
            earlier,
            emptied: Once::new(),
            error: Mutex::new(None),
        })
    }

    /// Empties the earlier log at the name, once.
    pub fn start(&self) {
        if self.earlier {
            self.emptied.call_once(|| {
                if let Err(err) = self.file.set_len(0) {
                    self.fail(&err);
                }
            });
        }
    }

    fn write(&self, bytes: &[u8]) {
        self.start();
        if let Err(err) = (&self.file).write_all(bytes) {
            self.fail(&err);
        }
    }

    fn fail(&self, err: &std::io::Error) {
        let mut slot = self.error.lock().unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert_with(|| err.to_string());
    }

    /// The first write that failed.
    #[must_use]
    pub fn error(&self) -> Option<String> {
        self.error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// A job's logs: fio's settings and each clone's files.
#[derive(Debug, Default)]
pub struct IoLogPlan {
    /// `log_avg_msec`; 0: a line per I/O.
    pub avg_msec: u64,
    /// `log_hist_msec`; 0: no hist lines (fio's hist log then stays empty).
    pub hist_msec: u64,
    /// `log_hist_coarseness`, 0 to 6.
    pub hist_coarseness: u32,
    /// `log_offset`: the offset column.
    pub offset: bool,
    /// `log_max_value`: a window's maximum, not its mean.
    pub max_value: bool,
    /// `log_prio`: the I/O's priority value (`0x%04x`), not whether it is real-time.
    pub prio: bool,
    /// Whether the engine times the submission apart (the `_slat` log has lines).
    pub slat: bool,
    /// Clone `i`'s files, in [`KINDS`] order (`None`: not asked for).
    pub clones: Vec<[Option<Arc<LogFile>>; 6]>,
}

/// Plans are told apart by identity: two jobs never share one.
impl PartialEq for IoLogPlan {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

/// One direction's samples in the current averaging window.
#[derive(Debug, Clone, Copy, Default)]
struct Window {
    n: u64,
    sum: f64,
    max: u64,
}

/// One worker's logs.
pub struct IoLog {
    plan: Arc<IoLogPlan>,
    files: [Option<Arc<LogFile>>; 6],
    lines: [Vec<u8>; 6],
    epoch_ns: u64,
    /// lat, clat, slat windows by direction, and where each began (ms).
    windows: [[Window; 3]; 3],
    window_ms: [[u64; 3]; 3],
    /// bw and iops: the window's bytes and I/Os by direction, when it began (ns) and ends (ms).
    rate_bytes: [u64; 3],
    rate_ios: [u64; 3],
    rate_from_ns: u64,
    rate_next_ms: u64,
    /// The hist window's counts by direction, and when it began (ms; 0: not yet).
    bins: Vec<u64>,
    hist_ms: [u64; 3],
}

impl IoLog {
    /// Clone `worker`'s logs; `None` when it has none.
    #[must_use]
    pub fn new(plan: &Arc<IoLogPlan>, worker: u32) -> Option<Box<Self>> {
        let files = plan.clones.get(worker as usize)?.clone();
        if files.iter().all(Option::is_none) {
            return None;
        }
        let bins = if files[HIST].is_some() && plan.hist_msec > 0 {
            vec![0; 3 * PLAT_NR as usize]
        } else {
            Vec::new()
        };
        Some(Box::new(Self {
            plan: plan.clone(),
            files,
            lines: Default::default(),
            epoch_ns: 0,
            windows: Default::default(),
            window_ms: Default::default(),
            rate_bytes: [0; 3],
            rate_ios: [0; 3],
            rate_from_ns: 0,
            rate_next_ms: plan.avg_msec,
            bins,
            hist_ms: [0; 3],
        }))
    }

    /// Counting starts at `now_ns`: the logs' time 0.
    pub fn start(&mut self, now_ns: u64) {
        self.epoch_ns = now_ns;
        self.rate_from_ns = now_ns;
    }

    /// One completed I/O: submitted at `submit_ns` (its submission took `slat_ns` when the
    /// engine times it apart), reaped at `reaped_ns`.
    #[allow(clippy::too_many_arguments)]
    pub fn io(
        &mut self,
        submit_ns: u64,
        slat_ns: u64,
        reaped_ns: u64,
        direction: Direction,
        len_bytes: u32,
        offset_bytes: u64,
        ioprio: u16,
    ) {
        let d = direction as usize;
        let ms = reaped_ns.saturating_sub(self.epoch_ns) / 1_000_000;
        let lat_ns = reaped_ns.saturating_sub(submit_ns);
        let clat_ns = lat_ns.saturating_sub(slat_ns);
        let values = [0, 0, lat_ns, clat_ns, slat_ns];
        if self.plan.avg_msec == 0 {
            let slat_ms = submit_ns
                .saturating_add(slat_ns)
                .saturating_sub(self.epoch_ns)
                / 1_000_000;
            let bw = (u64::from(len_bytes) * 1_000_000)
                .checked_div(clat_ns)
                .unwrap_or(0);
            for (kind, value) in [(BW, bw), (IOPS, 1)]
                .into_iter()
                .chain((LAT..=SLAT).map(|k| (k, values[k])))
            {
                if self.files[kind].is_none() || (kind == SLAT && !self.plan.slat) {
                    continue;
                }
                let at = if kind == SLAT { slat_ms } else { ms };
                self.line(
                    kind,
                    at,
                    value,
                    d,
                    u64::from(len_bytes),
                    offset_bytes,
                    ioprio,
                );
            }
        } else {
            self.rate_bytes[d] += u64::from(len_bytes);
            self.rate_ios[d] += 1;
            for (kind, &value) in values.iter().enumerate().skip(LAT) {
                if self.files[kind].is_some() && (kind != SLAT || self.plan.slat) {
                    self.average(kind, d, value, ms);
                }
            }
            if ms >= self.rate_next_ms {
                self.rates(reaped_ns, ms);
            }
        }
        if !self.bins.is_empty() {
            self.hist(d, clat_ns, ms, len_bytes);
        }
        for kind in 0..KINDS.len() {
            if self.lines[kind].len() >= FLUSH_BYTES {
                self.flush(kind);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn line(
        &mut self,
        kind: usize,
        ms: u64,
        value: u64,
        d: usize,
        bs: u64,
        offset: u64,
        ioprio: u16,
    ) {
        let out = &mut self.lines[kind];
        // Writing to a Vec cannot fail.
        let _ = if self.plan.offset {
            write!(out, "{ms}, {value}, {d}, {bs}, {offset}, ")
        } else {
            write!(out, "{ms}, {value}, {d}, {bs}, ")
        };
        // fio's priority column: the value itself with `log_prio`, else 1 for a real-time one.
        let _ = if self.plan.prio {
            writeln!(out, "0x{ioprio:04x}")
        } else {
            writeln!(out, "{}", u8::from(ioprio >> 13 == 1))
        };
    }

    /// A latency sample into its window; the window's line once `log_avg_msec` has passed
    /// (fio's `add_log_sample`).
    fn average(&mut self, kind: usize, d: usize, value: u64, ms: u64) {
        let w = &mut self.windows[kind - LAT][d];
        w.n += 1;
        w.sum += value as f64;
        w.max = w.max.max(value);
        let began = self.window_ms[kind - LAT][d];
        if ms < began || ms - began < self.plan.avg_msec {
            return;
        }
        self.close_window(kind, d, ms);
        self.window_ms[kind - LAT][d] = ms - ms % self.plan.avg_msec;
    }

    fn close_window(&mut self, kind: usize, d: usize, ms: u64) {
        let w = std::mem::take(&mut self.windows[kind - LAT][d]);
        if w.n == 0 {
            return;
        }
        let value = if self.plan.max_value {
            w.max
        } else {
            (w.sum / w.n as f64 + 0.5) as u64
        };
        self.line(kind, ms, value, d, 0, 0, 0);
    }

    /// The bw and iops lines of the window that ends now: each direction's rate over it.
    fn rates(&mut self, now_ns: u64, ms: u64) {
        let spent_ns = now_ns.saturating_sub(self.rate_from_ns);
        for d in 0..3 {
            let (bytes, ios) = (self.rate_bytes[d], self.rate_ios[d]);
            if ios == 0 || spent_ns == 0 {
                continue;
            }
            let per_s = |n: u64| (u128::from(n) * 1_000_000_000 / u128::from(spent_ns)) as u64;
            if self.files[BW].is_some() {
                self.line(BW, ms, per_s(bytes) / 1024, d, 0, 0, 0);
            }
            if self.files[IOPS].is_some() {
                self.line(IOPS, ms, per_s(ios), d, 0, 0, 0);
            }
        }
        self.rate_bytes = [0; 3];
        self.rate_ios = [0; 3];
        self.rate_from_ns = now_ns;
        self.rate_next_ms = (ms / self.plan.avg_msec + 1) * self.plan.avg_msec;
    }

    /// A completion latency into its direction's hist window; the window's line once
    /// `log_hist_msec` has passed (fio's `add_clat_sample`).
    fn hist(&mut self, d: usize, clat_ns: u64, ms: u64, len_bytes: u32) {
        let plat = PLAT_NR as usize;
        let bins = &mut self.bins[d * plat..(d + 1) * plat];
        bins[usize::try_from(plat_index(clat_ns))
            .unwrap_or(plat - 1)
            .min(plat - 1)] += 1;
        if self.hist_ms[d] == 0 {
            self.hist_ms[d] = ms;
        }
        let window = ms.saturating_sub(self.hist_ms[d]);
        if window < self.plan.hist_msec {
            return;
        }
        let out = &mut self.lines[HIST];
        let _ = write!(out, "{ms}, {d}, {len_bytes}");
        for group in bins.chunks(1 << self.plan.hist_coarseness) {
            let _ = write!(out, ", {}", group.iter().sum::<u64>());
        }
        out.push(b'\n');
        bins.fill(0);
        self.hist_ms[d] = ms - (window - self.plan.hist_msec);
    }

    fn flush(&mut self, kind: usize) {
        if let Some(file) = &self.files[kind]
            && !self.lines[kind].is_empty()
        {
            file.write(&self.lines[kind]);
        }
        self.lines[kind].clear();
    }

    /// The worker has ended at `now_ns`: the open windows' lines (fio's `finalize_logs`),
    /// then every line to its file.
    pub fn finish(&mut self, now_ns: u64) {
        if self.plan.avg_msec > 0 {
            let ms = now_ns.saturating_sub(self.epoch_ns) / 1_000_000;
            if self.rate_ios.iter().any(|&n| n > 0) {
                self.rates(now_ns, ms);
            }
            for kind in LAT..=SLAT {
                if self.files[kind].is_some() {
                    (0..3).for_each(|d| self.close_window(kind, d, ms));
                }
            }
        }
        (0..KINDS.len()).for_each(|kind| self.flush(kind));
    }
}

impl Drop for IoLog {
    fn drop(&mut self) {
        (0..KINDS.len()).for_each(|kind| self.flush(kind));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan whose clone 0 logs `kinds` into files in `dir`.
    fn plan(dir: &std::path::Path, kinds: &[usize], set: impl FnOnce(&mut IoLogPlan)) -> IoLogPlan {
        let mut files: [Option<Arc<LogFile>>; 6] = Default::default();
        for &kind in kinds {
            let file = File::create(dir.join(KINDS[kind])).unwrap();
            files[kind] = Some(Arc::new(LogFile::new(file, false).unwrap()));
        }
        let mut plan = IoLogPlan {
            clones: vec![files],
            ..IoLogPlan::default()
        };
        set(&mut plan);
        plan
    }

    fn read(dir: &std::path::Path, kind: usize) -> Vec<Vec<String>> {
        std::fs::read_to_string(dir.join(KINDS[kind]))
            .unwrap()
            .lines()
            .map(|l| l.split(", ").map(str::to_string).collect())
            .collect()
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn without_averaging_each_io_is_a_line_with_its_offset_and_priority() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Arc::new(plan(dir.path(), &[BW, IOPS, LAT, SLAT], |p| {
            p.offset = true;
        }));
        let mut log = IoLog::new(&plan, 0).unwrap();
        log.start(1000 * MS);
        log.io(1000 * MS, 0, 1003 * MS, Direction::Read, 4096, 8192, 0);
        log.io(1004 * MS, 0, 1005 * MS, Direction::Write, 4096, 0, 1 << 13);
        log.finish(1006 * MS);
        drop(log);
        assert_eq!(
            read(dir.path(), IOPS),
            [
                ["3", "1", "0", "4096", "8192", "0"],
                ["5", "1", "1", "4096", "0", "1"]
            ]
        );
        // bytes * 1e6 / clat ns: 4096 B in 3 ms.
        assert_eq!(read(dir.path(), BW)[0][1], "1365");
        assert_eq!(read(dir.path(), LAT)[1][1], "1000000");
        // No slat measured: fio's _slat log of a synchronous engine, empty.
        assert!(read(dir.path(), SLAT).is_empty());
    }

    #[test]
    fn averaged_windows_give_the_mean_or_the_maximum_and_the_rate() {
        let dir = tempfile::tempdir().unwrap();
        for max in [false, true] {
            let plan = Arc::new(plan(dir.path(), &[IOPS, LAT], |p| {
                p.avg_msec = 100;
                p.max_value = max;
            }));
            let mut log = IoLog::new(&plan, 0).unwrap();
            log.start(0);
            for i in 0..20u64 {
                // One I/O each 10 ms, of i ms.
                let at = (i + 1) * 10 * MS;
                log.io(at - i * MS, 0, at, Direction::Read, 4096, 0, 0);
            }
            log.finish(200 * MS);
            drop(log);
            let lat = read(dir.path(), LAT);
            // Windows close at the first I/O at or past 100 ms, then at 200 ms.
            assert_eq!(lat[0][0], "100");
            let first: Vec<u64> = (0..10).map(|i| i * MS).collect();
            let want = if max {
                *first.last().unwrap()
            } else {
                first.iter().sum::<u64>() / 10
            };
            assert_eq!(lat[0][1], want.to_string(), "max {max}");
            assert_eq!(&lat[0][2..], ["0", "0", "0"]);
            let iops = read(dir.path(), IOPS);
            assert_eq!(iops[0], ["100", "100", "0", "0", "0"]);
            assert_eq!(iops.len(), 2);
        }
    }

    #[test]
    fn hist_lines_hold_the_window_s_counts_coarsened() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Arc::new(plan(dir.path(), &[HIST], |p| {
            p.hist_msec = 50;
            p.hist_coarseness = 2;
        }));
        let mut log = IoLog::new(&plan, 0).unwrap();
        log.start(0);
        for i in 1..=12u64 {
            log.io(
                i * 10 * MS - 5000,
                0,
                i * 10 * MS,
                Direction::Write,
                512,
                0,
                0,
            );
        }
        log.finish(130 * MS);
        drop(log);
        let rows = read(dir.path(), HIST);
        // First sample at 10 ms: windows end at 60 and 110 ms; the tail is not written (fio's).
        assert_eq!(rows.len(), 2);
        assert_eq!(&rows[0][..3], ["60", "1", "512"]);
        assert_eq!(rows[0].len(), 3 + PLAT_NR as usize / 4);
        let counts: Vec<u64> = rows
            .iter()
            .map(|r| r[3..].iter().map(|c| c.parse::<u64>().unwrap()).sum())
            .collect();
        assert_eq!(counts, [6, 5]);
    }

    #[test]
    fn clones_sharing_a_file_append_and_an_earlier_log_is_emptied_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared");
        std::fs::write(&path, "1, 1, 0, 4096, 0\n").unwrap();
        let file = Arc::new(
            LogFile::new(
                std::fs::OpenOptions::new().write(true).open(&path).unwrap(),
                true,
            )
            .unwrap(),
        );
        let mut files: [Option<Arc<LogFile>>; 6] = Default::default();
        files[IOPS] = Some(file.clone());
        let plan = Arc::new(IoLogPlan {
            clones: vec![files.clone(), files],
            ..IoLogPlan::default()
        });
        for worker in 0..2 {
            let mut log = IoLog::new(&plan, worker).unwrap();
            log.start(0);
            log.io(0, 0, 7 * MS, Direction::Read, 4096, 0, 0);
            log.finish(8 * MS);
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "7, 1, 0, 4096, 0\n7, 1, 0, 4096, 0\n");
        assert!(file.error().is_none());
    }
}
