//! A monitor recording replayed (`diskdash show REC.jsonl`): the live monitor's panels at one
//! recorded sample, moved by keys (left/right one sample, shift ten, PgUp/PgDn sixty, Home/End,
//! `g`/`t` a typed time). Nothing changes unless a key asks, so nothing is redrawn meanwhile.
//!
//! At sample `i` the table is that sample's rows, and the charts the selected disk's samples up
//! to `i` (at most [`HISTORY`], as live), each over the window it was recorded for.

use std::time::Duration;

use crate::monitor::sysfs::QueueSettings;
use crate::record::monitor::{MonitorSample, Recording};
use crate::tui::app::{App, Intent, JumpTarget};
use crate::tui::event::Source;
use crate::tui::source::monitor::{DiskPanels, HISTORY, disk_panels};
use crate::tui::view::from_trace::{self, TraceHistory};
use crate::tui::view::{Header, Mode, RunState, View};
use crate::tui::view::{LatencyView, TopView, from_monitor};

const NS_PER_S: u64 = 1_000_000_000;

pub struct ReplaySource {
    rec: Recording,
    /// The sample shown.
    at: usize,
    /// A sample carries `block_trace` (`--trace`): the device-time columns and panels show.
    traced: bool,
}

impl ReplaySource {
    /// Starts at the last sample, so the charts hold the recording's last minutes; Home goes
    /// to the first.
    ///
    /// # Panics
    /// Never: [`crate::record::load_recording`] refuses a recording without samples.
    #[must_use]
    pub fn new(rec: Recording) -> Self {
        let at = rec.samples.len().saturating_sub(1);
        let traced = rec
            .samples
            .iter()
            .any(|s| s.disks.iter().any(|d| d.block_trace.is_some()));
        Self { rec, at, traced }
    }

    /// `--trace`'s latency panel and processes of `disk` at the sample shown: its windows
    /// since the recording's start (the heatmap the last [`HISTORY`]).
    fn traced_panels(
        &self,
        disk: &str,
        window: Duration,
    ) -> (Option<LatencyView>, Option<TopView>) {
        if !self.traced {
            return (None, None);
        }
        let mut history = TraceHistory::new(disk, HISTORY);
        for s in &self.rec.samples[..=self.at] {
            let rec = s.disks.iter().find(|d| d.name == disk);
            if let Some(trace) = rec.and_then(|d| d.block_trace.clone()) {
                history.push(self.offset_s(s), trace);
            }
        }
        let now = self.sample().disks.iter().find(|d| d.name == disk);
        let top = match now.and_then(|d| d.block_trace.as_ref()) {
            Some(rec) => from_trace::top_view(disk, rec, window),
            None => from_trace::untraced_top(disk, "not traced in this sample"),
        };
        let latency = history.last().is_some().then(|| history.latency_view());
        (latency, Some(top))
    }

    fn sample(&self) -> &MonitorSample {
        &self.rec.samples[self.at]
    }

    /// Seconds from the first sample to `s` (wall clock: comparable across restarts).
    fn offset_s(&self, s: &MonitorSample) -> f64 {
        let first = self.rec.samples[0].unix_ns;
        s.unix_ns.saturating_sub(first) as f64 / 1e9
    }

    /// The first sample at or after `unix_ns`, else the last.
    fn index_at(&self, unix_ns: u64) -> usize {
        let i = self.rec.samples.partition_point(|s| s.unix_ns < unix_ns);
        i.min(self.rec.samples.len() - 1)
    }

    fn jump(&mut self, target: JumpTarget) -> Option<String> {
        let first = self.rec.samples[0].unix_ns;
        let last = self.rec.samples[self.rec.samples.len() - 1].unix_ns;
        let unix_ns = match target {
            JumpTarget::TimeOfDay(secs) => {
                // That time on the day of the sample shown.
                let now = self.sample().unix_ns;
                now - now % (86_400 * NS_PER_S) + u64::from(secs) * NS_PER_S
            }
            JumpTarget::Offset {
                seconds,
                from_end: false,
            } => first.saturating_add(seconds.saturating_mul(NS_PER_S)),
            JumpTarget::Offset {
                seconds,
                from_end: true,
            } => last.saturating_sub(seconds.saturating_mul(NS_PER_S)),
        };
        self.at = self.index_at(unix_ns);
        let edge = if unix_ns < first {
            " (before the recording: its first sample)"
        } else if unix_ns > last {
            " (after the recording: its last sample)"
        } else {
            ""
        };
        Some(format!("at {}{edge}", clock(self.sample())))
    }
}

/// `17:20:05` (UTC) of a sample.
fn clock(s: &MonitorSample) -> String {
    s.time
        .get(11..19)
        .map_or_else(|| s.time.clone(), str::to_owned)
}

impl Source for ReplaySource {
    async fn next(&mut self) {
        std::future::pending::<()>().await;
    }

    fn view(&mut self, app: &mut App) -> View {
        app.replay = true;
        let sample = self.sample();
        let header = &self.rec.headers[self.rec.header_of[self.at]];
        let window = Duration::from_nanos(sample.window_ns);
        if app.selected.is_none() {
            app.selected = sample
                .disks
                .iter()
                .max_by(|a, b| {
                    (a.iostat.reads_per_s + a.iostat.writes_per_s)
                        .total_cmp(&(b.iostat.reads_per_s + b.iostat.writes_per_s))
                })
                .map(|d| d.name.clone());
        }
        let rows = sample
            .disks
            .iter()
            .map(|d| {
                let mut row = from_monitor::disk_row(&d.iostat, false);
                row.device_time = d.block_trace.as_ref().and_then(from_trace::device_times);
                row
            })
            .collect();
        let mut table = app.disk_table(rows);
        table.traced = self.traced;
        let selected = table.selected.map(|i| table.rows[i].clone());
        let (latency, top) = selected
            .as_ref()
            .map_or((None, None), |s| self.traced_panels(&s.name, window));
        let panels = selected.as_ref().map(|disk| {
            let from = self.at.saturating_sub(HISTORY - 1);
            let history: Vec<_> = self.rec.samples[from..=self.at]
                .iter()
                .filter_map(|s| {
                    let d = s.disks.iter().find(|d| d.name == disk.name)?;
                    Some((self.offset_s(s), &d.iostat))
                })
                .collect();
            let now = sample.disks.iter().find(|d| d.name == disk.name);
            let queue = header
                .disks
                .iter()
                .find(|d| d.name == disk.name)
                .and_then(|d| d.queue.clone())
                .unwrap_or_else(QueueSettings::default);
            disk_panels(disk, &queue, now.map(|d| &d.iostat), &history, window)
        });
        let (device, queue, throughput) = match panels {
            Some(DiskPanels {
                device,
                queue,
                throughput,
            }) => (Some(device), Some(queue), Some(throughput)),
            None => (None, None, None),
        };
        let mut ui = app.ui.clone();
        if ui.message.is_none() {
            ui.message = self.rec.notes.first().cloned();
        }
        let date = sample.time.get(..10).unwrap_or_default();
        View {
            mode: Mode::Monitor,
            header: Header {
                host: header.host.hostname.clone(),
                kernel: header.host.kernel.clone(),
                disk: selected.map(|s| s.name),
                state: Some(RunState::Recorded),
                elapsed: Duration::from_secs_f64(self.offset_s(sample)),
                interval: Some(Duration::from_nanos(header.interval_ns)),
                window: Some(window),
                note: Some(format!(
                    "recorded {date} {} UTC  window {:.2} s  sample {}/{}",
                    clock(sample),
                    window.as_secs_f64(),
                    self.at + 1,
                    self.rec.samples.len()
                )),
                ..Header::default()
            },
            throughput,
            latency,
            device,
            queue,
            disks: Some(table),
            jobs: None,
            sweep: None,
            steady: None,
            sustained: None,
            verify: None,
            top,
            trace: None,
            ui,
        }
    }

    fn control(&mut self, intent: Intent) -> Option<String> {
        let last = self.rec.samples.len() - 1;
        let to = match intent {
            Intent::Seek(by) => self
                .at
                .saturating_add_signed(isize::try_from(by).unwrap_or(0))
                .min(last),
            Intent::SeekFirst => 0,
            Intent::SeekLast => last,
            Intent::JumpTo(target) => return self.jump(target),
            _ => return Some("a recording: nothing to change, only to look at".into()),
        };
        let edge = match (to, intent) {
            (0, Intent::Seek(by)) if by < 0 && self.at == 0 => Some("the first sample"),
            (t, Intent::Seek(by)) if by > 0 && t == last && self.at == last => {
                Some("the last sample")
            }
            _ => None,
        };
        self.at = to;
        edge.map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::diskstats::{DiskCounters, DiskstatsSample};
    use crate::record::monitor::{MonitorHeader, RecordedDisk};
    use std::time::UNIX_EPOCH;

    /// `n` one-second samples of `vda` from 2027-01-15T08:00:00Z, sample i doing 10*i reads.
    fn recording(n: u64) -> Recording {
        let header = MonitorHeader::new(
            "monitor",
            Duration::from_secs(1),
            vec![RecordedDisk {
                name: "vda".into(),
                queue: None,
            }],
        );
        let mut text = serde_json::to_string(&header).unwrap();
        let mut total = 0;
        for i in 0..n {
            let at = |t: u64, reads: u64| {
                let mut c = DiskCounters::zeroed("vda");
                c.reads = reads;
                DiskstatsSample {
                    at: Duration::from_secs(t),
                    disks: vec![c],
                }
            };
            let (prev, cur) = (at(i, total), at(i + 1, total + 10 * i));
            total += 10 * i;
            let wall = UNIX_EPOCH + Duration::from_secs(1_800_000_000 + i);
            let s = MonitorSample::between(i + 1, wall, &prev, &cur, |_| true);
            text.push('\n');
            text.push_str(&serde_json::to_string(&s).unwrap());
        }
        let mut rec = Recording::default();
        rec.add_file("r", text.as_bytes()).unwrap();
        rec
    }

    #[test]
    fn keys_move_through_the_samples_and_the_view_follows() {
        let mut source = ReplaySource::new(recording(120));
        let mut app = App::new(Mode::Monitor, false);
        let view = source.view(&mut app);
        assert!(app.replay);
        assert_eq!(view.header.state, Some(RunState::Recorded));
        assert_eq!(
            view.header.note.as_deref(),
            Some("recorded 2027-01-15 08:01:59 UTC  window 1.00 s  sample 120/120")
        );
        assert_eq!(view.device.as_ref().unwrap().now.r_s, 1190.0);
        // The chart holds every sample up to the one shown.
        assert_eq!(view.throughput.unwrap().points.len(), 120);
        assert_eq!(
            source.control(Intent::Seek(1)).as_deref(),
            Some("the last sample")
        );
        assert_eq!(source.control(Intent::Seek(-1)), None);
        assert_eq!(source.control(Intent::Seek(-60)), None);
        assert_eq!(source.at, 58);
        let view = source.view(&mut app);
        assert_eq!(view.device.as_ref().unwrap().now.r_s, 580.0);
        assert_eq!(view.throughput.unwrap().points.len(), 59);
        assert_eq!(source.control(Intent::SeekFirst), None);
        assert_eq!(
            source.control(Intent::Seek(-1)).as_deref(),
            Some("the first sample")
        );
        source.control(Intent::SeekLast);
        assert_eq!(source.at, 119);
    }

    #[test]
    fn jumps_land_on_the_first_sample_at_or_after_the_time() {
        let mut source = ReplaySource::new(recording(120));
        let jump = |s: &mut ReplaySource, t| s.control(Intent::JumpTo(t));
        assert_eq!(
            jump(&mut source, JumpTarget::TimeOfDay(8 * 3600 + 30)).as_deref(),
            Some("at 08:00:30")
        );
        assert_eq!(source.at, 30);
        let off = |seconds, from_end| JumpTarget::Offset { seconds, from_end };
        jump(&mut source, off(90, false));
        assert_eq!(source.at, 90);
        jump(&mut source, off(10, true));
        assert_eq!(source.at, 109);
        assert_eq!(
            jump(&mut source, off(3600, false)).as_deref(),
            Some("at 08:01:59 (after the recording: its last sample)")
        );
        assert_eq!(
            jump(&mut source, JumpTarget::TimeOfDay(7 * 3600)).as_deref(),
            Some("at 08:00:00 (before the recording: its first sample)")
        );
    }
}
