//! fio's log files (`write_bw_log`, `write_iops_log`, `write_lat_log`, `write_hist_log`), in
//! fio 3.33's formats and names, written from the session's interval records (never from the
//! workers: nothing is done per I/O).
//!
//! Each line of a bw/iops/lat log is `time (ms), value, data direction, block size, priority`
//! (fio's averaged entries: block size and priority 0); direction 0 read, 1 write, 2 trim.
//! bw is KiB/s, iops per second, latencies in ns: the mean over the window. A window is
//! `log_avg_msec` (the job's interval is set to it); without it, the job's interval, since
//! diskdash keeps no per-I/O entries. A hist log line is `time, direction, block size`, then the
//! window's completion-latency counts in fio's `plat` layout (1856 bins, fewer with
//! `log_hist_coarseness`), over `log_hist_msec` windows. Names are fio's:
//! `PREFIX_bw.N.log`, `PREFIX_iops.N.log`, `PREFIX_lat.N.log`, `PREFIX_clat.N.log`,
//! `PREFIX_slat.N.log`, `PREFIX_clat_hist.N.log`, N the job's first thread number (fio numbers
//! every worker of every job from 1); `per_job_logs=0` drops `.N`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use crate::fio::GivenOptions;
use crate::plan::Plan;
use crate::record::output::Guard;
use crate::record::{DirectionRecord, IntervalRecord};
use crate::stats::fine_bucket_ge_ns;
use crate::stats::plat::{PLAT_NR, plat_index};

/// One job's log settings, from its options as given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogOptions {
    pub bw: Option<String>,
    pub iops: Option<String>,
    pub lat: Option<String>,
    pub hist: Option<String>,
    pub avg_msec: Option<u64>,
    pub hist_msec: Option<u64>,
    pub hist_coarseness: u32,
    pub per_job_logs: bool,
}

impl LogOptions {
    /// The job's settings: `[global]` options, then its own (later wins).
    ///
    /// # Errors
    /// A usage error naming a value that is not a number.
    pub fn of(global: &[(String, String)], own: &[(String, String)]) -> anyhow::Result<Self> {
        let mut out = Self {
            per_job_logs: true,
            ..Self::default()
        };
        for (name, value) in global.iter().chain(own) {
            let number = |what: &str| -> anyhow::Result<u64> {
                value.trim().parse::<u64>().map_err(|_| {
                    crate::error::usage!(
                        "{what}={value}: not a number of milliseconds; write e.g. {what}=1000"
                    )
                })
            };
            match name.as_str() {
                "write_bw_log" => out.bw = Some(value.clone()),
                "write_iops_log" => out.iops = Some(value.clone()),
                "write_lat_log" => out.lat = Some(value.clone()),
                "write_hist_log" => out.hist = Some(value.clone()),
                "log_avg_msec" => out.avg_msec = Some(number("log_avg_msec")?).filter(|&n| n > 0),
                "log_hist_msec" => {
                    out.hist_msec = Some(number("log_hist_msec")?).filter(|&n| n > 0);
                }
                "log_hist_coarseness" => {
                    out.hist_coarseness = u32::try_from(number("log_hist_coarseness")?)
                        .unwrap_or(u32::MAX)
                        .min(6);
                }
                "per_job_logs" => out.per_job_logs = !matches!(value.trim(), "0" | "false"),
                _ => {}
            }
        }
        Ok(out)
    }

    /// Whether any log is asked for.
    #[must_use]
    pub fn any(&self) -> bool {
        self.bw.is_some() || self.iops.is_some() || self.lat.is_some() || self.hist.is_some()
    }
}

/// What one window has gathered for one direction.
#[derive(Debug, Clone, Default)]
struct Window {
    bytes: u64,
    ios: u64,
    lat_sum: f64,
    lat_n: u64,
    duration_ns: u64,
}

/// One job's open logs and windows.
struct JobLogs {
    segment: u32,
    /// Its place in its step; `None` when it ran alone (the interval's totals are its own).
    place: Option<usize>,
    directions: [bool; 3],
    block_size: u64,
    avg_every: u64,
    hist_every: u64,
    coarseness: u32,
    bw: Option<BufWriter<File>>,
    iops: Option<BufWriter<File>>,
    lat: Option<BufWriter<File>>,
    clat: Option<BufWriter<File>>,
    hist: Option<BufWriter<File>>,
    avg_seen: u64,
    hist_seen: u64,
    windows: [Window; 3],
    bins: [Vec<u64>; 3],
}

/// fio's log files of a run, written as intervals close.
pub struct LogWriter {
    jobs: Vec<JobLogs>,
    /// The first write that failed; later lines are dropped.
    error: Option<String>,
    /// Every file made.
    pub files: Vec<PathBuf>,
    /// Files this run made: removed when the command fails before writing them.
    made: Vec<crate::record::output::Made>,
    /// Earlier logs at the names, emptied at the first write (a run refused before it starts
    /// leaves them as they were).
    to_empty: Vec<File>,
}

/// What fio's logs must not clobber: the checks every output gets ([`Guard`]: targets,
/// `--output`, loop backing files, `--force`), the run's job files, and the places the run
/// writes by name (its targets, made or not yet; its other outputs), each with what it is.
pub struct LogGuard<'a> {
    pub guard: Guard<'a>,
    pub inputs: &'a [crate::pinned::FileId],
    pub claimed: Vec<(String, PathBuf)>,
}

impl LogWriter {
    /// Opens every job's logs (before anything runs, so a bad name fails first) and sets the
    /// interval of a job with `log_avg_msec` (else `log_hist_msec`) to it, unless `fixed`
    /// (`--status-interval`) fixes it. Returns the writer and notes on what differs from fio.
    ///
    /// # Errors
    /// A usage error: a bad number, a file that cannot be made.
    pub fn open(
        plan: &mut Plan,
        given: &GivenOptions,
        fixed: bool,
        mut gate: LogGuard<'_>,
    ) -> anyhow::Result<(Option<Self>, Vec<String>)> {
        let mut jobs = Vec::new();
        let mut files = Vec::new();
        let mut made = Vec::new();
        let mut to_empty = Vec::new();
        let mut notes = Vec::new();
        let mut thread = 1u64;
        for (segment, step) in plan.steps.iter_mut().enumerate() {
            let alone = step.jobs.len() == 1;
            for (place, job) in step.jobs.iter_mut().enumerate() {
                let first_thread = thread;
                thread += u64::from(job.spec.numjobs);
                let options = LogOptions::of(&given.global, given.job(&job.name))?;
                if !options.any() {
                    continue;
                }
                if !fixed && let Some(ms) = options.avg_msec.or(options.hist_msec) {
                    job.spec.interval = std::time::Duration::from_millis(ms.max(100));
                    if ms < 100 {
                        notes.push(format!(
                            "job {}: log windows of {ms} ms are taken as 100 ms, diskdash's shortest interval",
                            job.name
                        ));
                    }
                }
                let interval_ms = u64::try_from(job.spec.interval.as_millis())
                    .unwrap_or(u64::MAX)
                    .max(1);
                if options.avg_msec.is_none()
                    && (options.bw.is_some() || options.iops.is_some() || options.lat.is_some())
                {
                    notes.push(format!(
                        "job {}: without log_avg_msec fio logs every I/O; diskdash logs each {interval_ms} ms window's average",
                        job.name
                    ));
                }
                if job.spec.numjobs > 1 {
                    notes.push(format!(
                        "job {}: one log for its {} workers together, named after the first's thread number {first_thread}",
                        job.name, job.spec.numjobs
                    ));
                }
                let every = |ms: Option<u64>| {
                    ms.map_or(1, |ms| (ms + interval_ms / 2) / interval_ms)
                        .max(1)
                };
                let name = |prefix: &str, kind: &str| {
                    let prefix = if prefix.is_empty() {
                        job.name.as_str()
                    } else {
                        prefix
                    };
                    PathBuf::from(if options.per_job_logs {
                        format!("{prefix}_{kind}.{first_thread}.log")
                    } else {
                        format!("{prefix}_{kind}.log")
                    })
                };
                let mut open = |prefix: &Option<String>,
                                kind: &str|
                 -> anyhow::Result<Option<BufWriter<File>>> {
                    let Some(prefix) = prefix else {
                        return Ok(None);
                    };
                    let path = name(prefix, kind);
                    if let Some((what, _)) = gate
                        .claimed
                        .iter()
                        .find(|(_, other)| crate::record::output::same_place(&path, other))
                    {
                        return Err(crate::error::usage!(
                            "log file {} is also {what}; give the log another name",
                            crate::text::escape(&path.display().to_string())
                        ));
                    }
                    let (file, _, replacing) =
                        crate::record::output::open_log(&path, gate.guard, gate.inputs)?;
                    match replacing {
                        crate::record::output::Replacing::Made(m) => made.push(m),
                        crate::record::output::Replacing::Existing => {
                            to_empty.push(file.try_clone().map_err(|e| {
                                crate::error::usage!("log file {}: {e}", path.display())
                            })?);
                        }
                    }
                    gate.claimed
                        .push((format!("job {}'s {kind} log", job.name), path.clone()));
                    files.push(path);
                    Ok(Some(BufWriter::new(file)))
                };
                let bw = open(&options.bw, "bw")?;
                let iops = open(&options.iops, "iops")?;
                let lat = open(&options.lat, "lat")?;
                let clat = open(&options.lat, "clat")?;
                if let Some(slat) = open(&options.lat, "slat")? {
                    drop(slat);
                    notes.push(format!(
                        "job {}: its _slat log is empty, as fio's for a synchronous engine: diskdash measures submission to completion, written as _lat and _clat",
                        job.name
                    ));
                }
                if options.hist.is_some() && options.hist_msec.is_none() {
                    notes.push(format!(
                        "job {}: write_hist_log without log_hist_msec: histograms of each {interval_ms} ms window",
                        job.name
                    ));
                }
                let hist = open(&options.hist, "clat_hist")?;
                let spec = &job.spec;
                jobs.push(JobLogs {
                    segment: u32::try_from(segment).unwrap_or(u32::MAX),
                    place: (!alone).then_some(place),
                    directions: [spec.reads(), spec.writes_data(), spec.rw.trims()],
                    block_size: spec.block_size_bytes,
                    avg_every: every(options.avg_msec),
                    hist_every: every(options.hist_msec),
                    coarseness: options.hist_coarseness,
                    bw,
                    iops,
                    lat,
                    clat,
                    hist,
                    avg_seen: 0,
                    hist_seen: 0,
                    windows: Default::default(),
                    bins: Default::default(),
                });
            }
        }
        if jobs.is_empty() {
            return Ok((None, notes));
        }
        Ok((
            Some(Self {
                jobs,
                error: None,
                files,
                made,
                to_empty,
            }),
            notes,
        ))
    }

    /// One interval's record: adds it to each of its jobs' windows and writes the windows it
    /// closes.
    /// The run has started: the files it made stay.
    pub fn keep_made(&mut self) {
        self.made
            .drain(..)
            .for_each(crate::record::output::Made::keep);
    }

    /// Empties the earlier logs at the names, once, before the first line.
    fn empty_earlier(&mut self) {
        for file in self.to_empty.drain(..) {
            if let Err(err) = file.set_len(0)
                && self.error.is_none()
            {
                self.error = Some(err.to_string());
            }
        }
    }

    pub fn interval(&mut self, record: &IntervalRecord) {
        self.empty_earlier();
        let mut failed = None;
        for job in self.jobs.iter_mut().filter(|j| j.segment == record.segment) {
            let parts = match job.place {
                None => [&record.read, &record.write, &record.trim],
                Some(at) => match record.jobs.get(at) {
                    Some(part) => [&part.read, &part.write, &part.trim],
                    None => continue,
                },
            };
            if let Err(err) = job.add(parts, record.t_ns, record.duration_ns) {
                failed = Some(err.to_string());
            }
        }
        if self.error.is_none() {
            self.error = failed;
        }
    }

    /// Flushes every log. `Err` names the first write that failed.
    ///
    /// # Errors
    /// The first failed write or flush.
    pub fn finish(&mut self) -> Result<(), String> {
        self.empty_earlier();
        self.keep_made();
        for job in &mut self.jobs {
            for file in [
                &mut job.bw,
                &mut job.iops,
                &mut job.lat,
                &mut job.clat,
                &mut job.hist,
            ]
            .into_iter()
            .flatten()
            {
                if let Err(err) = file.flush()
                    && self.error.is_none()
                {
                    self.error = Some(err.to_string());
                }
            }
        }
        self.error.take().map_or(Ok(()), Err)
    }
}

impl JobLogs {
    fn add(
        &mut self,
        parts: [&DirectionRecord; 3],
        t_ns: u64,
        duration_ns: u64,
    ) -> std::io::Result<()> {
        let time_ms = t_ns / 1_000_000;
        for (d, part) in parts.iter().enumerate() {
            let w = &mut self.windows[d];
            w.bytes += part.io_bytes;
            w.ios += part.total_ios;
            w.lat_sum += part.lat_ns.mean * part.lat_ns.n as f64;
            w.lat_n += part.lat_ns.n;
            w.duration_ns += duration_ns;
            if self.hist.is_some() {
                let bins = &mut self.bins[d];
                if bins.is_empty() {
                    *bins = vec![0; PLAT_NR as usize];
                }
                if let Some(h) = &part.lat_ns.histogram {
                    let bits = h.sub_bucket_bits.unwrap_or(0);
                    for (&le, &count) in h.le_ns.iter().zip(&h.count) {
                        let at = plat_index(fine_bucket_ge_ns(le, bits));
                        bins[usize::try_from(at).unwrap_or(0)] += count;
                    }
                }
            }
        }
        self.avg_seen += 1;
        self.hist_seen += 1;
        if self.avg_seen >= self.avg_every {
            self.avg_seen = 0;
            for d in 0..3 {
                let w = std::mem::take(&mut self.windows[d]);
                if !self.directions[d] && w.ios == 0 {
                    continue;
                }
                let per_s = |n: f64| {
                    if w.duration_ns == 0 {
                        0
                    } else {
                        (n * 1e9 / w.duration_ns as f64).round() as u64
                    }
                };
                if let Some(f) = &mut self.bw {
                    writeln!(
                        f,
                        "{time_ms}, {}, {d}, 0, 0",
                        per_s(w.bytes as f64 / 1024.0)
                    )?;
                }
                if let Some(f) = &mut self.iops {
                    writeln!(f, "{time_ms}, {}, {d}, 0, 0", per_s(w.ios as f64))?;
                }
                if w.lat_n > 0 {
                    let mean = (w.lat_sum / w.lat_n as f64).round() as u64;
                    for f in [&mut self.lat, &mut self.clat].into_iter().flatten() {
                        writeln!(f, "{time_ms}, {mean}, {d}, 0, 0")?;
                    }
                }
            }
        }
        if self.hist_seen >= self.hist_every
            && let Some(f) = &mut self.hist
        {
            self.hist_seen = 0;
            for d in 0..3 {
                let bins = &mut self.bins[d];
                let any = bins.iter().any(|&c| c > 0);
                if !self.directions[d] && !any {
                    bins.iter_mut().for_each(|c| *c = 0);
                    continue;
                }
                let mut line = format!("{time_ms}, {d}, {}", self.block_size);
                for group in bins.chunks(1 << self.coarseness) {
                    line.push_str(", ");
                    line.push_str(&group.iter().sum::<u64>().to_string());
                }
                writeln!(f, "{line}")?;
                bins.iter_mut().for_each(|c| *c = 0);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
            .collect()
    }

    #[test]
    fn a_job_s_own_options_win_over_global_ones() {
        let global = opts(&[("write_bw_log", "g"), ("log_avg_msec", "500")]);
        let own = opts(&[("write_bw_log", "mine"), ("per_job_logs", "0")]);
        let o = LogOptions::of(&global, &own).unwrap();
        assert_eq!(o.bw.as_deref(), Some("mine"));
        assert_eq!(o.avg_msec, Some(500));
        assert!(!o.per_job_logs);
        assert!(o.any());
        assert!(
            !LogOptions::of(&[], &opts(&[("log_avg_msec", "10")]))
                .unwrap()
                .any()
        );
    }

    #[test]
    fn a_window_that_is_not_a_number_is_a_usage_error() {
        let err = LogOptions::of(&[], &opts(&[("log_avg_msec", "1s")])).unwrap_err();
        assert!(err.to_string().contains("log_avg_msec=1s"), "{err}");
    }
}
