//! The monitor source: every disk from `/proc/diskstats` each interval, the `iostat -x` columns
//! between samples, a bounded history per disk and the selected disk's queue settings.
//!
//! Like sysstat without `-p`: whole devices only (`/sys/block`), hiding those that never
//! completed a request. The first frame shows averages since boot, like iostat's first report.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, SystemTime};

use tokio::time::{Interval, MissedTickBehavior};

use crate::monitor::diskstats::DiskstatsSample;
use crate::monitor::info::all_disks;
use crate::monitor::iostat::{self, IostatRow};
use crate::monitor::sample_trace;
use crate::monitor::sampler::Sampler;
use crate::monitor::sysfs::QueueSettings;
use crate::record::monitor::{MonitorHeader, MonitorSample, RecordedDisk};
use crate::record::monitor_writer::{MonitorRecorder, RecordTo, RecorderStatus};
use crate::trace::{DeviceId, Tracer};
use crate::tui::app::{App, Intent};
use crate::tui::event::Source;
use crate::tui::view::from_trace::{self, TraceHistory};
use crate::tui::view::{
    DeviceView, DeviceWindow, DiskRow, Header, Mode, QueueView, RunState, ThroughputView, View,
    Warning, WarningKind,
};
use crate::tui::view::{LatencyView, TopView, from_monitor};

/// Samples kept per disk: ten minutes at the default 1 s.
pub const HISTORY: usize = 600;

/// One disk's samples: seconds since the monitor started, and the row.
type History = VecDeque<(f64, IostatRow)>;

pub struct MonitorSource {
    sampler: Sampler,
    ticker: Interval,
    interval: Duration,
    started: Option<Duration>,
    /// Rows of the last sample; `true` marks a device gone since the sample before.
    rows: Vec<(IostatRow, bool)>,
    history: HashMap<String, History>,
    queues: HashMap<String, QueueSettings>,
    /// Whole disks (`/sys/block`) and every name seen in /proc/diskstats when it was listed.
    whole: HashSet<String>,
    known: HashSet<String>,
    host: String,
    kernel: String,
    error: Option<String>,
    /// The whole disk under the current directory, selected first.
    home_disk: Option<String>,
    /// Show disks that never completed a request too (`-a`).
    show_idle: bool,
    /// `--record`: every sample of the shown disks goes there.
    recorder: Option<MonitorRecorder>,
    record_path: Option<std::path::PathBuf>,
    /// `--trace`: the block tracer of the disks shown when it started, and what it saw of
    /// each, window by window (taken with each sample).
    tracer: Option<Tracer>,
    traces: HashMap<String, TraceHistory>,
    /// What `--trace` has to say (unavailable, or a dead run's instance removed).
    trace_note: Option<String>,
}

impl MonitorSource {
    /// Opens `/proc/diskstats` and takes the first sample.
    ///
    /// # Errors
    /// `/proc/diskstats` cannot be opened.
    pub fn open(interval: Duration, show_idle: bool) -> anyhow::Result<Self> {
        let sampler = Sampler::open()?;
        // The first tick one interval after the first sample: `tokio::time::interval` fires at
        // once, which made a sample over a few microseconds (all zeros) the chart's first point.
        let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let (host, kernel) = from_monitor::host_and_kernel();
        let mut source = Self {
            sampler,
            ticker,
            interval,
            started: None,
            rows: Vec::new(),
            history: HashMap::new(),
            queues: HashMap::new(),
            whole: HashSet::new(),
            known: HashSet::new(),
            host,
            kernel,
            error: None,
            home_disk: crate::monitor::device::resolve(std::path::Path::new("."))
                .ok()
                .map(|chain| chain.disk),
            show_idle,
            recorder: None,
            record_path: None,
            tracer: None,
            traces: HashMap::new(),
            trace_note: None,
        };
        source.sample();
        Ok(source)
    }

    /// Starts recording every later sample of the disks shown (`--record`); the header lists
    /// the disks shown now with their queue settings.
    ///
    /// # Errors
    /// The file is refused or cannot be written.
    pub fn record_to(&mut self, to: &RecordTo) -> anyhow::Result<()> {
        let disks = self
            .rows
            .iter()
            .map(|(row, _)| RecordedDisk {
                name: row.device.clone(),
                queue: Some(QueueSettings::read(&row.device)),
            })
            .collect();
        let header = MonitorHeader::new("monitor", self.interval, disks);
        self.recorder = Some(MonitorRecorder::start(to, &header)?);
        self.record_path = Some(to.path.clone());
        Ok(())
    }

    /// Starts tracing every whole disk there is now (`--trace`; one idle costs nothing, and
    /// it is traced from its first I/O); where it cannot, one note on screen and the monitor
    /// goes on as without it.
    pub fn trace(&mut self) {
        let mut names: Vec<&String> = self.whole.iter().collect();
        names.sort();
        let disks: Vec<DeviceId> = names
            .into_iter()
            .map(|disk| DeviceId { disk: disk.clone() })
            .collect();
        match Tracer::start(&disks) {
            Ok(tracer) => {
                self.trace_note = tracer.notes.first().cloned();
                for d in &disks {
                    self.traces
                        .insert(d.disk.clone(), TraceHistory::new(&d.disk, HISTORY));
                }
                // The first traced interval starts once the tracer is on: a baseline read
                // now, its events dropped. From the read before, the tracer would have seen
                // only the end of the interval (11% of a busy vda's requests were missing).
                tracer.hold();
                if let Ok(step) = self.sampler.sample() {
                    let _ = tracer.take_until(Some(crate::record::nanos(step.cur.at)));
                }
                self.tracer = Some(tracer);
            }
            Err(e) => self.trace_note = Some(e.to_string()),
        }
    }

    fn sample(&mut self) {
        if let Some(tracer) = &self.tracer {
            tracer.hold();
        }
        let step = match self.sampler.sample() {
            Ok(step) => step,
            Err(e) => {
                self.error = Some(format!("{e:#}"));
                return;
            }
        };
        self.error = None;
        let cur = step.cur;
        // /sys/block is listed again only when /proc/diskstats names a new device.
        if cur.disks.iter().any(|d| !self.known.contains(&d.name)) {
            self.whole = all_disks().into_iter().collect();
            self.known = cur.disks.iter().map(|d| d.name.clone()).collect();
        }
        let whole = &self.whole;
        let show_idle = self.show_idle;
        let started = *self.started.get_or_insert(cur.at);
        let t_s = cur.at.saturating_sub(started).as_secs_f64();
        // The block layer's window ends where the sample's does: split at the instant
        // /proc/diskstats was read (the same clock), so both count the same requests.
        let take = self
            .tracer
            .as_ref()
            .map(|tracer| tracer.take_until(Some(crate::record::nanos(cur.at))));
        if let Some(take) = &take {
            for t in &take.disks {
                if let Some(h) = self.traces.get_mut(&t.disk) {
                    h.push(t_s, sample_trace(t, Some(&take.cost)));
                }
            }
        }
        if let (Some(recorder), Some(prev)) = (&mut self.recorder, step.prev) {
            let seq = recorder.next_seq();
            let mut sample = MonitorSample::between(seq, SystemTime::now(), prev, cur, |d| {
                whole.contains(&d.name) && (show_idle || d.ever_used())
            });
            if let Some(take) = &take {
                sample.attach_traces(take);
            }
            recorder.record(sample);
        }
        let mut rows = Vec::new();
        for row in rows_for(step.prev, cur, whole, self.show_idle) {
            if step.prev.is_some() {
                let h = self.history.entry(row.device.clone()).or_default();
                if h.len() == HISTORY {
                    h.pop_front();
                }
                h.push_back((t_s, row.clone()));
            }
            rows.push((row, false));
        }
        // Devices shown last time and gone now stay one more interval, marked.
        for (row, gone) in &self.rows {
            if !gone && cur.get(&row.device).is_none() {
                rows.push((IostatRow::idle(&row.device), true));
                self.history.remove(&row.device);
                self.queues.remove(&row.device);
            }
        }
        self.rows = rows;
    }
}

/// The rows of the whole disks in `cur` that ever completed a request (every whole disk with
/// `show_idle`, like sysstat's `-a`): since boot for the
/// first sample, else over the interval since `prev` exactly as `diskdash iostat` reports it
/// (`iostat::rows_between`: paired by position, else by name; a device that appeared in the
/// interval is measured from zero, so the I/O it did in its first interval shows).
fn rows_for(
    prev: Option<&DiskstatsSample>,
    cur: &DiskstatsSample,
    whole: &HashSet<String>,
    show_idle: bool,
) -> Vec<IostatRow> {
    let shown = |d: &&crate::monitor::diskstats::DiskCounters| {
        whole.contains(&d.name) && (show_idle || d.ever_used())
    };
    match prev {
        None => cur
            .disks
            .iter()
            .filter(shown)
            .map(|d| IostatRow::since_boot(d, cur.at))
            .collect(),
        Some(prev) => iostat::rows_between(prev, cur)
            .into_iter()
            .zip(&cur.disks)
            .filter(|(_, d)| shown(d))
            .map(|(row, _)| row)
            .collect(),
    }
}

impl MonitorSource {
    /// The all-disks table rows of the last sample (unsorted).
    #[must_use]
    pub fn table_rows(&self) -> Vec<crate::tui::view::DiskRow> {
        self.rows
            .iter()
            .map(|(row, gone)| {
                let mut out = from_monitor::disk_row(row, *gone);
                out.device_time = self
                    .traces
                    .get(&row.device)
                    .and_then(TraceHistory::last)
                    .and_then(from_trace::device_times);
                out
            })
            .collect()
    }
}

/// The panels of one disk of the table, live: its rates and history, queue settings, chart.
pub struct DiskPanels {
    pub device: DeviceView,
    pub queue: QueueView,
    pub throughput: ThroughputView,
}

impl MonitorSource {
    /// The device, queue and chart panels of `disk` (a row of the table), its queue settings
    /// read once and kept.
    pub fn disk_panels(&mut self, disk: &DiskRow) -> DiskPanels {
        let q = self
            .queues
            .entry(disk.name.clone())
            .or_insert_with(|| QueueSettings::read(&disk.name));
        let now = self
            .rows
            .iter()
            .find(|(r, _)| r.device == disk.name)
            .map(|(r, _)| r);
        let history: Vec<(f64, &IostatRow)> = self
            .history
            .get(&disk.name)
            .map(|h| h.iter().map(|(t, r)| (*t, r)).collect())
            .unwrap_or_default();
        disk_panels(disk, q, now, &history, self.interval)
    }
}

/// The device, queue and chart panels of `disk`: its row `now` over the last `interval`, its
/// `history` (seconds since the start, row), its queue settings. Live and replayed alike.
#[must_use]
pub fn disk_panels(
    disk: &DiskRow,
    q: &QueueSettings,
    now: Option<&IostatRow>,
    history: &[(f64, &IostatRow)],
    interval: Duration,
) -> DiskPanels {
    let mut warnings = Vec::new();
    if disk.vanished {
        warnings.push(Warning::new(
            WarningKind::DeviceGone,
            format!("{} vanished from /proc/diskstats", disk.name),
        ));
    }
    if let Some(note) = from_monitor::util_caveat(q) {
        warnings.push(Warning::new(WarningKind::UtilCaveat, note));
    }
    let device = DeviceView {
        name: disk.name.clone(),
        now: now.map(from_monitor::device_rates).unwrap_or_default(),
        window: DeviceWindow::Now { interval },
        history: history
            .iter()
            .map(|(_, r)| from_monitor::device_rates(r))
            .collect(),
        warnings,
        ..DeviceView::default()
    };
    DiskPanels {
        device,
        queue: from_monitor::queue_view(&disk.name, q),
        throughput: ThroughputView {
            source: disk.name.clone(),
            pace: None,
            points: history
                .iter()
                .map(|(t, r)| from_monitor::rate_point(*t, r))
                .collect(),
            steps: Vec::new(),
            headline: None,
        },
    }
}

impl MonitorSource {
    /// The real length of the latest sample's window (`None` before the second sample).
    #[must_use]
    pub fn window(&self) -> Option<Duration> {
        self.sampler
            .last()
            .filter(|step| step.prev.is_some())
            .map(|step| step.elapsed())
    }

    /// `rec FILE (N)`: where the samples go and how many are written.
    fn recording_note(&self, status: Option<&RecorderStatus>) -> Option<String> {
        let status = status?;
        let path = self.record_path.as_deref()?;
        Some(format!("rec {} ({})", path.display(), status.written))
    }
}

impl MonitorSource {
    /// `--trace`'s latency panel and processes of `disk`: none untraced.
    fn traced_panels(&self, disk: Option<&str>) -> (Option<LatencyView>, Option<TopView>) {
        let (Some(_), Some(disk)) = (&self.tracer, disk) else {
            return (None, None);
        };
        let Some(history) = self.traces.get(disk) else {
            let mut top =
                from_trace::untraced_top(disk, "not traced: it came after --trace started");
            top.window = self.window().unwrap_or(self.interval);
            return (None, Some(top));
        };
        let window = self.window().unwrap_or(self.interval);
        let top = history.last().map_or_else(
            || from_trace::untraced_top(disk, "tracing: the first window is not over yet"),
            |rec| from_trace::top_view(disk, rec, window),
        );
        (Some(history.latency_view()), Some(top))
    }
}

impl Source for MonitorSource {
    async fn next(&mut self) {
        self.ticker.tick().await;
        self.sample();
    }

    fn view(&mut self, app: &mut App) -> View {
        // Start on the disk of the current directory, else the busiest one (since boot on the
        // first frame), not the first by name.
        if app.selected.is_none() {
            app.selected = self
                .home_disk
                .clone()
                .filter(|d| self.rows.iter().any(|(r, _)| &r.device == d))
                .or_else(|| {
                    self.rows
                        .iter()
                        .max_by(|(a, _), (b, _)| {
                            (a.reads_per_s + a.writes_per_s)
                                .total_cmp(&(b.reads_per_s + b.writes_per_s))
                        })
                        .map(|(r, _)| r.device.clone())
                });
        }
        let mut table = app.disk_table(self.table_rows());
        table.traced = self.tracer.is_some();
        let selected = table.selected.map(|i| table.rows[i].clone());
        let (latency, top) = self.traced_panels(selected.as_ref().map(|s| s.name.as_str()));
        let panels = selected.as_ref().map(|sel| self.disk_panels(sel));
        let (device, queue, throughput) = match panels {
            Some(p) => (Some(p.device), Some(p.queue), Some(p.throughput)),
            None => (None, None, None),
        };
        let elapsed = match (self.sampler.last(), self.started) {
            (Some(step), Some(s)) => step.cur.at.saturating_sub(s),
            _ => Duration::ZERO,
        };
        let mut ui = app.ui.clone();
        let recording = self.recorder.as_ref().map(MonitorRecorder::status);
        if let Some(err) = &self.error {
            ui.message = Some(format!("error: {err}"));
        } else if let Some(problem) = recording.as_ref().and_then(|s| s.problem()) {
            ui.message = Some(problem);
        } else if self.rows.is_empty() {
            ui.message = Some("no disk has completed any I/O".into());
        } else if ui.message.is_none() {
            ui.message.clone_from(&self.trace_note);
        }
        View {
            mode: Mode::Monitor,
            header: Header {
                host: self.host.clone(),
                kernel: self.kernel.clone(),
                disk: selected.map(|s| s.name),
                state: Some(RunState::Monitoring),
                note: self.recording_note(recording.as_ref()),
                elapsed,
                interval: Some(self.interval),
                window: self.window(),
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

    fn control(&mut self, _intent: Intent) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str, at_s: u64) -> DiskstatsSample {
        let path = format!(
            "{}/tests/fixtures/diskstats/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut disks = Vec::new();
        crate::monitor::diskstats::parse_diskstats(&std::fs::read(path).unwrap(), &mut disks)
            .unwrap();
        DiskstatsSample {
            at: Duration::from_secs(at_s),
            disks,
        }
    }

    #[test]
    fn a_device_that_appears_shows_its_first_interval_like_iostat() {
        // loop7 vanishes, sdb appears with 120 reads done within the 2 s.
        let (a, b) = (fixture("hotplug-a.txt", 100), fixture("hotplug-b.txt", 102));
        let whole: HashSet<String> = ["vda", "sdb", "loop7"].map(String::from).into();
        let rows = rows_for(Some(&a), &b, &whole, false);
        assert_eq!(rows, iostat::rows_between(&a, &b));
        let names: Vec<&str> = rows.iter().map(|r| r.device.as_str()).collect();
        assert_eq!(names, ["vda", "sdb"]);
        assert_eq!(rows[1].reads_per_s, 60.0);
        assert_eq!(rows[1].read_kb_per_s, 240.0);
        // Only whole disks that ever completed a request are rows.
        let only_vda: HashSet<String> = ["vda"].map(String::from).into();
        let rows = rows_for(Some(&a), &b, &only_vda, false);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].writes_per_s, 64.0);
        // The first sample: since boot.
        let first = rows_for(None, &a, &whole, false);
        assert_eq!(first.len(), 2);
        assert_eq!(first[1], IostatRow::since_boot(&a.disks[1], a.at));
    }

    #[test]
    fn disks_that_never_did_io_are_hidden_unless_asked() {
        // Eight loop devices, most never used (size 0), beside vda and zram0.
        let (a, b) = (
            fixture("linux-6.18-vm-a.txt", 100),
            fixture("linux-6.18-vm-b.txt", 101),
        );
        let whole: HashSet<String> = a.disks.iter().map(|d| d.name.clone()).collect();
        let never_used = a.disks.iter().filter(|d| !d.ever_used()).count();
        assert!(never_used > 0);
        for prev in [None, Some(&a)] {
            let used = rows_for(prev, &b, &whole, false);
            assert!(
                used.iter()
                    .all(|r| b.get(&r.device).is_some_and(|d| d.ever_used())),
                "an idle disk shown without -a"
            );
            let all = rows_for(prev, &b, &whole, true);
            assert_eq!(all.len(), b.disks.len(), "-a shows every whole disk");
            assert!(all.len() > used.len());
        }
    }

    #[test]
    fn the_first_point_of_a_history_covers_a_whole_interval() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let interval = Duration::from_millis(100);
            let mut source = MonitorSource::open(interval, false).unwrap();
            source.next().await;
            let first = source
                .history
                .values()
                .filter_map(|h| h.front())
                .map(|(t_s, _)| *t_s)
                .fold(f64::INFINITY, f64::min);
            // Not a sample taken microseconds after the first one, drawn as a ramp from zero.
            assert!(first >= 0.09, "first point at {first} s");
        });
    }

    #[test]
    fn the_monitor_reads_this_machines_disks() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut source = MonitorSource::open(Duration::from_millis(20), false).unwrap();
            source.next().await;
            source.next().await;
            let mut app = App::new(Mode::Monitor, false);
            let view = source.view(&mut app);
            let table = view.disks.expect("a disk table");
            // This machine boots from a disk that has completed I/O.
            assert!(!table.rows.is_empty(), "no disks in /proc/diskstats");
            let selected = &table.rows[table.selected.expect("a selection")];
            assert_eq!(view.device.unwrap().name, selected.name);
            assert!(view.throughput.unwrap().points.len() >= 2);
        });
    }
}
