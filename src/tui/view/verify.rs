//! The verification line, as the dashboard shows it: from the session's job views (live, also
//! while a write job reads back after its measured window) or from a record's job (`show`).

use crate::record::StepJobRecord;
use crate::session::JobView;

/// Where a job is with `--verify`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyLine {
    /// The job's name when the step runs several.
    pub job: Option<String>,
    /// `crc32c`, `xxhash`, `sha256` or `pattern`.
    pub kind: String,
    pub checked: u64,
    pub failed: u64,
    /// A write job's read-back: blocks checked of blocks to check, once it has started.
    pub pass: Option<(u64, u64)>,
    /// The lowest offset that failed.
    pub first_failed: Option<u64>,
    /// The job writes (its blocks are checked when read back), else it reads written blocks.
    pub writes: bool,
    /// `--verify-fatal`: the first failure stops the run.
    pub fatal: bool,
    /// The job has ended: the counts are final.
    pub finished: bool,
}

/// The line of a running job that verifies.
#[must_use]
pub fn live(job: &JobView, several: bool, finished: bool) -> Option<VerifyLine> {
    let spec = job.spec.verify?;
    let live = job.verify.unwrap_or_default();
    Some(VerifyLine {
        job: several.then(|| job.name.clone()),
        kind: spec.kind.as_str().to_string(),
        checked: live.checked,
        failed: live.failed,
        pass: live.pass,
        first_failed: live.first_failed,
        writes: job.spec.writes_data() && !spec.only,
        fatal: spec.fatal,
        finished,
    })
}

/// The line of a recorded job that verified.
#[must_use]
pub fn recorded(job: &StepJobRecord, several: bool) -> Option<VerifyLine> {
    let v = job.verify.as_ref()?;
    Some(VerifyLine {
        job: several.then(|| job.name.clone()),
        kind: v.kind.clone(),
        checked: v.blocks_checked,
        failed: v.blocks_failed,
        pass: None,
        first_failed: v.failures.iter().map(|f| f.offset_bytes).min(),
        writes: job.write.total_ios > 0,
        fatal: false,
        finished: true,
    })
}
