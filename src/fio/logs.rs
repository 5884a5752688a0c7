//! fio's log files (`write_bw_log`, `write_iops_log`, `write_lat_log`, `write_hist_log`):
//! their names, made before anything runs (so a bad name fails first, and a run refused
//! later leaves none), and their settings for the workers, which write them
//! (`bench::iolog`: formats, windows, per-I/O lines).
//!
//! Names are fio's: `PREFIX_bw.N.log`, `PREFIX_iops.N.log`, `PREFIX_lat.N.log`,
//! `PREFIX_clat.N.log`, `PREFIX_slat.N.log`, `PREFIX_clat_hist.N.log`, one set per clone, N its
//! thread number (fio numbers every clone of every job from 1); with `per_job_logs=0` a job's
//! clones share `PREFIX_bw.log` (and the others), each adding its lines.

use std::path::PathBuf;
use std::sync::Arc;

use crate::bench::iolog::{IoLogPlan, KINDS, LogFile};
use crate::fio::GivenOptions;
use crate::plan::Plan;
use crate::record::output::Guard;
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
    /// `log_offset`, `log_max_value`, `log_prio`.
    pub offset: bool,
    pub max_value: bool,
    pub prio: bool,
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
                "per_job_logs" => out.per_job_logs = flag(value),
                "log_offset" => out.offset = flag(value),
                "log_max_value" => out.max_value = flag(value),
                "log_prio" => out.prio = flag(value),
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

/// A boolean option's value: set unless `0` or `false` (bare: set).
fn flag(value: &str) -> bool {
    !matches!(value.trim(), "0" | "false")
}

/// fio's log files of a run.
pub struct LogWriter {
    files: Vec<Arc<LogFile>>,
    /// Every file's name.
    pub paths: Vec<PathBuf>,
    /// Files this run made: removed when the command fails before the run starts.
    made: Vec<crate::record::output::Made>,
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
    /// Opens every clone's logs (before anything runs, so a bad name fails first) and gives
    /// each job its [`IoLogPlan`]. `None`: no job asks for a log.
    ///
    /// # Errors
    /// A usage error: a bad number, a file that cannot be made or may not be replaced.
    pub fn open(
        plan: &mut Plan,
        given: &GivenOptions,
        mut gate: LogGuard<'_>,
    ) -> anyhow::Result<Option<Self>> {
        let mut writer = Self {
            files: Vec::new(),
            paths: Vec::new(),
            made: Vec::new(),
        };
        let mut thread = 1u64;
        for job in plan.steps.iter_mut().flat_map(|s| &mut s.jobs) {
            let first_thread = thread;
            thread += u64::from(job.spec.numjobs);
            let options = LogOptions::of(&given.global, given.job(&job.name))?;
            if !options.any() {
                continue;
            }
            let prefixes = [
                &options.bw,
                &options.iops,
                &options.lat,
                &options.lat,
                &options.lat,
                &options.hist,
            ];
            let mut clones = Vec::new();
            for clone in 0..u64::from(job.spec.numjobs) {
                let mut files: [Option<Arc<LogFile>>; 6] = Default::default();
                for (kind, prefix) in prefixes.iter().enumerate() {
                    let Some(prefix) = prefix else { continue };
                    if !options.per_job_logs && clone > 0 {
                        // fio's per_job_logs=0: the clones share the first one's file.
                        files[kind] = clones
                            .first()
                            .and_then(|first: &[Option<Arc<LogFile>>; 6]| first[kind].clone());
                        continue;
                    }
                    let prefix = if prefix.is_empty() {
                        job.name.as_str()
                    } else {
                        prefix.as_str()
                    };
                    let path = PathBuf::from(if options.per_job_logs {
                        format!("{prefix}_{}.{}.log", KINDS[kind], first_thread + clone)
                    } else {
                        format!("{prefix}_{}.log", KINDS[kind])
                    });
                    let what = format!("job {}'s {} log", job.name, KINDS[kind]);
                    files[kind] = Some(writer.open_one(&mut gate, path, what)?);
                }
                clones.push(files);
            }
            job.spec.io_log = Some(Arc::new(IoLogPlan {
                avg_msec: options.avg_msec.unwrap_or(0),
                hist_msec: options.hist_msec.unwrap_or(0),
                hist_coarseness: options.hist_coarseness,
                offset: options.offset,
                max_value: options.max_value,
                prio: options.prio,
                // The engines that time their submit call apart (`Engine::times_submit`)
                // fill the _slat log; a synchronous engine's stays empty, as fio's.
                slat: matches!(
                    job.spec.ioengine,
                    crate::bench::spec::EngineKind::IoUring
                        | crate::bench::spec::EngineKind::Libaio
                        | crate::bench::spec::EngineKind::Null
                ),
                clones,
            }));
        }
        Ok((!writer.files.is_empty()).then_some(writer))
    }

    /// One log file, through the output gate.
    fn open_one(
        &mut self,
        gate: &mut LogGuard<'_>,
        path: PathBuf,
        what: String,
    ) -> anyhow::Result<Arc<LogFile>> {
        if let Some((other, _)) = gate
            .claimed
            .iter()
            .find(|(_, other)| crate::record::output::same_place(&path, other))
        {
            return Err(crate::error::usage!(
                "log file {} is also {other}; give the log another name",
                crate::text::escape(&path.display().to_string())
            ));
        }
        let (file, _, replacing) = crate::record::output::open_log(&path, gate.guard, gate.inputs)?;
        let earlier = match replacing {
            crate::record::output::Replacing::Made(made) => {
                self.made.push(made);
                false
            }
            crate::record::output::Replacing::Existing => true,
        };
        let file = LogFile::new(file, earlier)
            .map_err(|e| crate::error::usage!("log file {}: {e}", path.display()))?;
        let file = Arc::new(file);
        gate.claimed.push((what, path.clone()));
        self.files.push(file.clone());
        self.paths.push(path);
        Ok(file)
    }

    /// The run has ended (its workers have written their lines): the files it made stay, an
    /// earlier log no line replaced is emptied (as fio's). `Err` names the first write that
    /// failed.
    ///
    /// # Errors
    /// The first failed write.
    pub fn finish(&mut self) -> Result<(), String> {
        self.made
            .drain(..)
            .for_each(crate::record::output::Made::keep);
        let mut first = None;
        for file in &self.files {
            file.start();
            if first.is_none() {
                first = file.error();
            }
        }
        first.map_or(Ok(()), Err)
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
