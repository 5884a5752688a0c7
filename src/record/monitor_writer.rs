//! Writes a monitor recording from its own thread (`record-writer`), so a slow or stalled disk
//! under the recording never delays a sample or a frame: the sampler hands each sample over a
//! bounded queue and goes on. A sample that finds the queue full (the disk stalled for
//! [`QUEUE`] samples) is dropped and counted; its `seq` is missing from the file, which the
//! reader reports as a gap.
//!
//! A file system that fills up (or a quota reached) pauses the recording instead of ending it:
//! the line that did not fit is cut back (the file ends with a whole line), samples are counted
//! as not recorded, and writing is tried again with the first sample after a growing delay
//! ([`RETRY_FIRST`] to [`RETRY_MAX`]), rotating first when that removes the oldest file. The
//! try writes a `gap` note (the samples and the time not recorded) and that sample in one
//! write, both or neither, so the gap closes exactly where the samples go on. Any other write
//! error stops the recording.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use anyhow::Context;

use super::monitor::{
    GapReason, MonitorHeader, MonitorSample, NoteLine, RecordingGap, RecordingNote,
    is_monitor_recording,
};
use super::rotate::{RotatingLog, Rotation};

/// The first wait before writing again after a write found no space; doubled each time it
/// finds none again, up to [`RETRY_MAX`].
pub const RETRY_FIRST: Duration = Duration::from_millis(100);
/// The longest wait between tries on a full file system.
pub const RETRY_MAX: Duration = Duration::from_secs(5);
/// Notices kept for the front ends to say once each; more are not kept.
const MAX_NOTICES: usize = 64;

/// Samples waiting for the disk before new ones are dropped: about 4 minutes at 1 s, a few
/// hundred KiB.
pub const QUEUE: usize = 256;

/// How the recording is going, for the dashboard's footer and the headless exit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecorderStatus {
    pub written: u64,
    /// Samples dropped because the queue was full.
    pub dropped: u64,
    pub rotations: u64,
    /// A write failed: the recording stopped here.
    pub error: Option<String>,
    /// The last failed rotation (lines went on into the current file).
    pub rotation_error: Option<String>,
    /// The rotation held back now by a file that is not the recording's own.
    pub rotation_blocked: Option<super::rotate::RotationBlocked>,
    /// While the file system is full: the samples not recorded so far (the gap being made).
    pub paused: Option<RecordingGap>,
    /// Times the recording paused for space, this run.
    pub pauses: u64,
    /// What happened to the recording, in order, each to be said once (a held-back rotation,
    /// a gap once closed); at most 64.
    pub notices: Vec<RecordingNote>,
    /// Serializing and writing one sample, on the writer thread: total and worst.
    pub write_total: Duration,
    pub write_max: Duration,
}

/// Where and how to record, validated (`--record`, `--record-max`, `--record-keep`, `--force`).
#[derive(Debug, Clone)]
pub struct RecordTo {
    pub path: std::path::PathBuf,
    pub rotation: Rotation,
    pub force: bool,
    /// What the block layer stacks on a file (see [`super::output::InUse`]).
    pub in_use: super::output::InUse,
}

/// The sampler's end of a recording.
pub struct MonitorRecorder {
    tx: Option<SyncSender<MonitorSample>>,
    thread: Option<JoinHandle<()>>,
    status: Arc<Mutex<RecorderStatus>>,
    seq: u64,
}

impl MonitorRecorder {
    /// Opens `path` (`--record`, checked and appended to or refused as [`RotatingLog::open`]
    /// says), writes `header` and starts the writer thread.
    ///
    /// # Errors
    /// The path is refused (usage error) or the header cannot be written.
    pub fn start(to: &RecordTo, header: &MonitorHeader) -> anyhow::Result<Self> {
        let header = serde_json::to_string(header)?;
        let mut log = RotatingLog::open(
            "--record",
            &to.path,
            to.force,
            to.rotation,
            header,
            is_monitor_recording,
            to.in_use,
        )?;
        let status = Arc::new(Mutex::new(RecorderStatus {
            rotations: log.rotations,
            ..RecorderStatus::default()
        }));
        let (tx, rx) = sync_channel::<MonitorSample>(QUEUE);
        let shared = Arc::clone(&status);
        let thread = std::thread::Builder::new()
            .name("record-writer".into())
            .spawn(move || write_samples(&mut log, &rx, &shared))
            .context("starting the recording's writer thread")?;
        Ok(Self {
            tx: Some(tx),
            thread: Some(thread),
            status,
            seq: 0,
        })
    }

    /// The `seq` of the next sample (1, 2, ...), counting dropped ones.
    pub fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Hands `sample` to the writer without waiting.
    pub fn record(&mut self, sample: MonitorSample) {
        let Some(tx) = &self.tx else { return };
        match tx.try_send(sample) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                self.lock().dropped += 1;
            }
            // The writer stopped on an error, which its status holds.
            Err(TrySendError::Disconnected(_)) => self.tx = None,
        }
    }

    #[must_use]
    pub fn status(&self) -> RecorderStatus {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RecorderStatus> {
        self.status.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes what is queued, however long the disk takes, and stops the writer.
    ///
    /// # Errors
    /// A write failed (the recording ends at the last whole line).
    pub fn finish(mut self) -> anyhow::Result<RecorderStatus> {
        self.stop();
        let status = self.status();
        match &status.error {
            Some(err) => Err(anyhow::anyhow!("--record: {err}")),
            None => Ok(status),
        }
    }

    fn stop(&mut self) {
        self.tx = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Samples not written since a write found no space.
struct Outage {
    gap: RecordingGap,
    retry_at: Instant,
    backoff: Duration,
}

impl Outage {
    fn new(sample: &MonitorSample, reason: GapReason) -> Self {
        let from_unix_ns = sample.unix_ns.saturating_sub(sample.window_ns);
        Self {
            gap: RecordingGap {
                first_seq: sample.seq,
                last_seq: sample.seq,
                samples: 1,
                from: super::rfc3339_utc(
                    SystemTime::UNIX_EPOCH + Duration::from_nanos(from_unix_ns),
                ),
                from_unix_ns,
                to: sample.time.clone(),
                to_unix_ns: sample.unix_ns,
                gap_ns: sample.unix_ns - from_unix_ns,
                reason,
            },
            retry_at: Instant::now() + RETRY_FIRST,
            backoff: RETRY_FIRST,
        }
    }

    fn add(&mut self, sample: &MonitorSample) {
        let gap = &mut self.gap;
        gap.last_seq = sample.seq;
        gap.samples += 1;
        gap.to.clone_from(&sample.time);
        gap.to_unix_ns = sample.unix_ns.max(gap.from_unix_ns);
        gap.gap_ns = gap.to_unix_ns - gap.from_unix_ns;
    }

    fn wait_longer(&mut self) {
        self.backoff = (self.backoff * 2).min(RETRY_MAX);
        self.retry_at = Instant::now() + self.backoff;
    }
}

/// Why a failed write is worth trying again: the file system had no space (or the quota was
/// reached), which may come back. Any other error ends the recording.
fn space_error(err: &anyhow::Error) -> Option<GapReason> {
    err.chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .find_map(|e| match e.raw_os_error() {
            Some(libc::ENOSPC) => Some(GapReason::NoSpace),
            Some(libc::EDQUOT) => Some(GapReason::Quota),
            _ => None,
        })
}

/// The writer thread: every sample from `rx` into `log`, pausing while there is no space.
fn write_samples(
    log: &mut RotatingLog,
    rx: &Receiver<MonitorSample>,
    shared: &Mutex<RecorderStatus>,
) {
    let lock = || shared.lock().unwrap_or_else(PoisonError::into_inner);
    let notice = |s: &mut RecorderStatus, note: RecordingNote| {
        if s.notices.len() < MAX_NOTICES {
            s.notices.push(note);
        }
    };
    let mut outage: Option<Outage> = None;
    loop {
        let Ok(sample) = rx.recv() else {
            // The end: the gap alone, if it fits now.
            if let Some(o) = &outage {
                log.make_room();
                let note = RecordingNote::Gap(o.gap.clone());
                let written = serde_json::to_string(&NoteLine { note: note.clone() })
                    .map_err(anyhow::Error::from)
                    .and_then(|line| log.write_line(&line));
                let mut s = lock();
                if written.is_ok() {
                    s.paused = None;
                    notice(&mut s, note);
                }
            }
            return;
        };
        let began = Instant::now();
        let line = match serde_json::to_string(&sample) {
            Ok(line) => line,
            Err(err) => {
                lock().error = Some(format!("{err:#}"));
                return;
            }
        };
        // While there is no space, samples before the next try are not recorded; the first
        // after it goes in with the gap before it, in one write, both or neither.
        let gap = match &mut outage {
            Some(o) if Instant::now() < o.retry_at => {
                o.add(&sample);
                lock().paused = Some(o.gap.clone());
                continue;
            }
            Some(o) => {
                log.make_room();
                Some(RecordingNote::Gap(o.gap.clone()))
            }
            None => None,
        };
        let written = match &gap {
            Some(note) => serde_json::to_string(&NoteLine { note: note.clone() })
                .map_err(anyhow::Error::from)
                .and_then(|gap_line| log.write_lines(&[&gap_line, &line])),
            None => log.write_line(&line),
        };
        let took = began.elapsed();
        let warning = log.take_warning();
        if let Some(blocked) = &warning {
            // Into the recording too, where it holds the lines past the limit; best effort.
            let note = RecordingNote::RotationBlocked(blocked.clone());
            if let Ok(line) = serde_json::to_string(&NoteLine { note }) {
                let _ = log.write_line(&line);
            }
        }
        let mut s = lock();
        s.rotations = log.rotations;
        s.rotation_error.clone_from(&log.rotation_error);
        s.rotation_blocked.clone_from(&log.rotation_blocked);
        if let Some(blocked) = warning {
            notice(&mut s, RecordingNote::RotationBlocked(blocked));
        }
        match written {
            Ok(()) => {
                s.written += 1;
                s.write_total += took;
                s.write_max = s.write_max.max(took);
                if let Some(note) = gap {
                    s.paused = None;
                    notice(&mut s, note);
                    outage = None;
                }
            }
            Err(err) => match (space_error(&err), &mut outage) {
                (Some(_), Some(o)) => {
                    o.add(&sample);
                    o.wait_longer();
                    s.paused = Some(o.gap.clone());
                }
                (Some(reason), None) => {
                    let o = Outage::new(&sample, reason);
                    s.paused = Some(o.gap.clone());
                    s.pauses += 1;
                    outage = Some(o);
                }
                (None, _) => {
                    s.paused = None;
                    s.error = Some(format!("{err:#}"));
                    return;
                }
            },
        }
    }
}

impl Drop for MonitorRecorder {
    /// Writes what is queued first. No time limit: a write blocked on a frozen or hung
    /// filesystem cannot be abandoned anyway (the kernel holds the process until it returns),
    /// and a slow disk that still moves gets every sample. The dashboard restores the terminal
    /// before this runs.
    fn drop(&mut self) {
        self.stop();
    }
}

/// How much of a [`RecorderStatus`] was said already (stderr says each thing once).
#[derive(Debug, Clone, Copy, Default)]
pub struct Told {
    notices: usize,
    pauses: u64,
}

impl RecorderStatus {
    /// What happened since `told`, one sentence each, to say once: a pause for space as it
    /// begins, the gap it left once the recording resumed, a held-back rotation.
    pub fn untold(&self, told: &mut Told) -> Vec<String> {
        let mut news = Vec::new();
        if self.pauses > told.pauses {
            told.pauses = self.pauses;
            if let Some(gap) = &self.paused {
                news.push(format!(
                    "recording paused: {}; retrying, samples are not recorded meanwhile",
                    gap.reason
                ));
            }
        }
        for note in self.notices.iter().skip(told.notices) {
            news.push(match note {
                RecordingNote::Gap(gap) => format!("recording resumed: {gap}, marked as a gap"),
                RecordingNote::RotationBlocked(blocked) => format!("recording: {blocked}"),
            });
        }
        told.notices = self.notices.len();
        news
    }

    /// What to say when the recording ended, besides what [`RecorderStatus::untold`] said:
    /// samples never recorded, a failed rotation, samples dropped.
    #[must_use]
    pub fn end_note(&self) -> Option<String> {
        if let Some(gap) = &self.paused {
            return Some(format!(
                "recording: the last {gap}; the file system had no space until the end"
            ));
        }
        self.rotation_error
            .as_ref()
            .map(|err| format!("recording: {err}"))
            .or_else(|| self.dropped_note())
    }

    fn dropped_note(&self) -> Option<String> {
        (self.dropped > 0).then(|| {
            format!(
                "recording: {} samples dropped while the disk it goes to stalled (gaps in seq)",
                self.dropped
            )
        })
    }

    /// The footer's words when something is wrong, else `None`.
    #[must_use]
    pub fn problem(&self) -> Option<String> {
        if let Some(err) = &self.error {
            return Some(format!("recording stopped: {err}"));
        }
        if let Some(gap) = &self.paused {
            return Some(format!("recording paused, retrying: {gap}"));
        }
        if let Some(blocked) = &self.rotation_blocked {
            return Some(format!("recording: {blocked}"));
        }
        if let Some(err) = &self.rotation_error {
            return Some(format!("recording: {err}"));
        }
        self.dropped_note()
    }
}
