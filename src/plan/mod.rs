//! What a session runs: a [`Plan`] is a list of [`Step`]s run one after another; a step is a
//! set of [`Job`]s that run at the same time and share one device window; a job is a name, a
//! validated [`JobSpec`] and its own target.
//!
//! A plain `diskdash bench` is a plan of one step of one job; a live change in the dashboard
//! appends a step (the record calls each step a step). fio's `stonewall`, sweeps and loops
//! compile to steps too; jobs that share a step arrive with job files. Plans are data: built
//! and checked before anything runs, then handed to `Session::start`.

pub(crate) mod mark;

use std::path::PathBuf;

use crate::bench::memory::JobSteps;
use crate::bench::spec::JobSpec;

/// A step's point as it is shown: `bs=2M rw=write`.
pub(crate) use crate::values::describe_point as describe;

/// One job: what runs, on what.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// fio's section name; `bench` for a plain `diskdash bench`.
    pub name: String,
    pub spec: JobSpec,
    /// Block device, file or directory; `None`: a scratch file in the current directory.
    pub target: Option<PathBuf>,
    /// What to do when `target` names a file that does not exist.
    pub missing: Missing,
    /// fio's reporting group (`new_group`, `stonewall` start a new one); 0 for `bench`.
    pub group: u32,
    /// The files of clones 1, 2, ... of a `numjobs` job whose clones each run on a file of
    /// their own (fio's `$jobnum`), opened as `target` (clone 0's) is; empty: every clone
    /// runs on `target`.
    pub clones: Vec<PathBuf>,
    /// Each sequential clone sweeps the whole working set, as fio's clones of one job do
    /// (each from its `offset`, moved by `offset_increment`); false: the clones of a shared
    /// file split it into equal parts (`bench --numjobs`). A verifying job always splits a
    /// shared file, so that no two clones write one block.
    pub whole: bool,
}

impl Job {
    /// A job as `diskdash bench` makes it: an existing target (or a scratch file), group 0.
    #[must_use]
    pub fn bench(name: impl Into<String>, spec: JobSpec, target: Option<PathBuf>) -> Self {
        Self {
            name: name.into(),
            spec,
            target,
            missing: Missing::Refuse,
            group: 0,
            clones: Vec::new(),
            whole: false,
        }
    }
}

/// A job's target file that does not exist yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// An error (`diskdash bench`: the target must exist).
    Refuse,
    /// Create it (`O_EXCL`, `size` bytes) as fio does; `unlink`: remove it when the run ends
    /// (fio's `unlink=1`), else leave it in place like fio. Only a file the run created is
    /// ever removed.
    Create { unlink: bool },
}

/// Jobs that run at the same time.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub jobs: Vec<Job>,
    /// A sweep's point: the swept options and their values here, as written (`bs`, `2M`);
    /// empty for steps of other plans.
    pub point: Vec<(String, String)>,
    /// What the step runs otherwise than the user's values say, one line each (a sweep's
    /// batching value capped to its point's depth); empty for most steps.
    pub notes: Vec<String>,
}

impl Step {
    /// A step of one job.
    #[must_use]
    pub fn single(job: Job) -> Self {
        Self {
            jobs: vec![job],
            point: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// Steps run one after another.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub steps: Vec<Step>,
}

impl Plan {
    /// One step of one job: `diskdash bench`.
    #[must_use]
    pub fn single(job: Job) -> Self {
        Self {
            steps: vec![Step::single(job)],
        }
    }

    /// The job of a plan whose every step runs one job on one target, as the session runs
    /// today (a live change appends a step with another spec, same target); `None` otherwise,
    /// naming what does not fit.
    ///
    /// # Errors
    /// A usage error naming the step that runs several jobs, or the step whose target differs.
    pub(crate) fn single_target_job(&self) -> anyhow::Result<&Job> {
        let first = self
            .steps
            .first()
            .and_then(|s| s.jobs.first())
            .ok_or_else(|| crate::error::usage!("the plan has no job; give at least one"))?;
        for (i, step) in self.steps.iter().enumerate() {
            if step.jobs.len() != 1 {
                return Err(crate::error::usage!(
                    "step {} runs {} jobs at once; this session runs one job per step",
                    i + 1,
                    step.jobs.len()
                ));
            }
            if step.jobs[0].target != first.target {
                return Err(crate::error::usage!(
                    "step {} runs on another target than step 1; one session runs on one target",
                    i + 1
                ));
            }
        }
        Ok(first)
    }
}

/// What the memory check reads of a plan: each step's jobs' specs.
impl JobSteps for Plan {
    fn job_steps(&self) -> Vec<Vec<&JobSpec>> {
        self.steps
            .iter()
            .map(|step| step.jobs.iter().map(|job| &job.spec).collect())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, target: Option<&str>) -> Job {
        Job::bench(name, JobSpec::default(), target.map(PathBuf::from))
    }

    #[test]
    fn a_bench_is_one_step_of_one_job() {
        let plan = Plan::single(job("bench", Some("/data")));
        assert_eq!(plan.steps.len(), 1);
        assert_eq!(plan.single_target_job().unwrap().name, "bench");
    }

    #[test]
    fn what_one_session_cannot_run_is_named() {
        let two_at_once = Plan {
            steps: vec![Step {
                jobs: vec![job("a", None), job("b", None)],
                point: Vec::new(),
                notes: Vec::new(),
            }],
        };
        assert_eq!(
            two_at_once.single_target_job().unwrap_err().to_string(),
            "step 1 runs 2 jobs at once; this session runs one job per step"
        );
        let moved = Plan {
            steps: vec![
                Step::single(job("a", Some("/a"))),
                Step::single(job("a", Some("/b"))),
            ],
        };
        assert!(moved.single_target_job().is_err());
        assert!(Plan { steps: vec![] }.single_target_job().is_err());
    }
}
