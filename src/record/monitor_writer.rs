//! Writes a monitor recording from its own thread (`record-writer`), so a slow or stalled disk
//! under the recording never delays a sample or a frame: the sampler hands each sample over a
//! bounded queue and goes on. A sample that finds the queue full (the disk stalled for
//! [`QUEUE`] samples) is dropped and counted; its `seq` is missing from the file, which the
//! reader reports as a gap.

use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Context;

use super::monitor::{MonitorHeader, MonitorSample, is_monitor_recording};
use super::rotate::{RotatingLog, Rotation};

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
            .spawn(move || {
                for sample in rx {
                    let began = Instant::now();
                    let written = serde_json::to_string(&sample)
                        .map_err(anyhow::Error::from)
                        .and_then(|line| log.write_line(&line));
                    let took = began.elapsed();
                    let mut s = shared.lock().unwrap_or_else(PoisonError::into_inner);
                    s.rotations = log.rotations;
                    s.rotation_error.clone_from(&log.rotation_error);
                    if let Err(err) = written {
                        s.error = Some(format!("{err:#}"));
                        return;
                    }
                    s.written += 1;
                    s.write_total += took;
                    s.write_max = s.write_max.max(took);
                }
            })
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

impl Drop for MonitorRecorder {
    /// Writes what is queued first. No time limit: a write blocked on a frozen or hung
    /// filesystem cannot be abandoned anyway (the kernel holds the process until it returns),
    /// and a slow disk that still moves gets every sample. The dashboard restores the terminal
    /// before this runs.
    fn drop(&mut self) {
        self.stop();
    }
}

impl RecorderStatus {
    /// The footer's words when something is wrong, else `None`.
    #[must_use]
    pub fn problem(&self) -> Option<String> {
        if let Some(err) = &self.error {
            return Some(format!("recording stopped: {err}"));
        }
        if let Some(err) = &self.rotation_error {
            return Some(format!("recording: {err}"));
        }
        (self.dropped > 0).then(|| {
            format!(
                "recording: {} samples dropped while the disk it goes to stalled (gaps in seq)",
                self.dropped
            )
        })
    }
}
