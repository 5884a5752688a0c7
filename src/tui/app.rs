//! Dashboard state that belongs to the screen (focus, scales, sort, selection) and the keys
//! that change it. Pure: a key in, an [`Action`] out, so every binding is unit-tested.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::tui::view::{DiskRow, DiskTableView, Focus, Mode, SortKey, UiState, sort_rows};

/// A change the user asked of the running benchmark; the session turns it into a control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    PauseResume,
    StopStart,
    IodepthUp,
    IodepthDown,
    NumjobsUp,
    NumjobsDown,
    BlockSizeUp,
    BlockSizeDown,
    NextRw,
    /// A sweep's `n`: end the running point, go on with the next.
    NextPoint,
    /// A replay (`diskdash show REC.jsonl`): move by this many samples.
    Seek(i32),
    /// A replay: to the first or the last sample.
    SeekFirst,
    SeekLast,
    /// A replay: to the sample at a time typed after `g` or `t`.
    JumpTo(JumpTarget),
}

/// Where `g`/`t` jumps in a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JumpTarget {
    /// `HH:MM` or `HH:MM:SS`, UTC like every time diskdash shows: seconds since midnight.
    TimeOfDay(u32),
    /// `+90`, `+2m`, `-30s`, `1h`: from the first sample (`-`: back from the last).
    Offset { seconds: u64, from_end: bool },
}

impl JumpTarget {
    /// Parses what was typed after `g`/`t`, or says what to type.
    ///
    /// # Errors
    /// The text is neither a time of day nor an offset.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        let bad =
            || format!("{t:?} is no time: type HH:MM:SS (UTC) or an offset like +90s, +5m, -1h");
        if t.contains(':') {
            let parts: Vec<u32> = t
                .split(':')
                .map(|p| p.parse::<u32>().map_err(|_| bad()))
                .collect::<Result<_, _>>()?;
            let (h, m, sec) = match parts[..] {
                [h, m] => (h, m, 0),
                [h, m, sec] => (h, m, sec),
                _ => return Err(bad()),
            };
            if h > 23 || m > 59 || sec > 59 {
                return Err(bad());
            }
            return Ok(Self::TimeOfDay(h * 3600 + m * 60 + sec));
        }
        let (from_end, rest) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let (number, scale) = match rest.char_indices().last() {
            Some((i, 's')) => (&rest[..i], 1),
            Some((i, 'm')) => (&rest[..i], 60),
            Some((i, 'h')) => (&rest[..i], 3600),
            _ => (rest, 1),
        };
        let seconds = number
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(scale))
            .ok_or_else(bad)?;
        Ok(Self::Offset { seconds, from_end })
    }
}

/// Rows PgUp/PgDn move a sweep's results: most of the panel at 80x24.
const SWEEP_PAGE: i32 = 5;

/// What the loop does after a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Nothing changed.
    None,
    /// Only the screen changed.
    Redraw,
    /// Send this to the session, then redraw.
    Control(Intent),
    /// Stop cleanly and leave (`q`).
    Quit,
    /// Ctrl-C: in raw mode a key, not SIGINT, and the same ending as SIGINT.
    Interrupt,
}

/// Screen state kept across frames.
#[derive(Debug, Clone)]
pub struct App {
    pub mode: Mode,
    pub ui: UiState,
    pub sort: SortKey,
    pub descending: bool,
    /// The selected disk by name, so the selection survives re-sorting and hot-plug.
    pub selected: Option<String>,
    /// The running step's jobs by name when it runs several (else empty): then `tab` and the
    /// arrows pick the job the charts follow instead of moving focus and the disk.
    pub jobs: Vec<String>,
    /// The job the charts follow, by name; `None`: the step total.
    pub job: Option<String>,
    /// A sweep runs: `n` skips to its next point and `v` cycles its chart's metric.
    pub sweep: bool,
    /// The sweep's points: how far PgUp/PgDn/Home scroll its results.
    pub sweep_points: usize,
    /// A monitor recording is replayed: the arrows, PgUp/PgDn, Home/End and `g`/`t` move in it.
    pub replay: bool,
    /// What is typed after `g`/`t` so far (a replay's jump), until Enter or Esc.
    pub prompt: Option<String>,
    /// A disk of the table has discarded since the dashboard opened: its discard columns stay,
    /// rather than come and go with every sample.
    pub discards_seen: bool,
}

impl App {
    #[must_use]
    pub fn new(mode: Mode, color: bool) -> Self {
        Self {
            mode,
            ui: UiState {
                color,
                focus: if mode == Mode::Monitor {
                    Focus::Disks
                } else {
                    Focus::Charts
                },
                ..UiState::default()
            },
            sort: SortKey::Name,
            descending: false,
            selected: None,
            jobs: Vec::new(),
            job: None,
            sweep: false,
            sweep_points: 0,
            replay: false,
            prompt: None,
            discards_seen: false,
        }
    }

    /// Takes the running step's job names (several, or none); a selected job that is not among
    /// them gives way to the step total.
    pub fn set_jobs<'a>(&mut self, names: impl Iterator<Item = &'a str> + Clone) {
        let count = names.clone().count();
        let count = if count < 2 { 0 } else { count };
        if self.jobs.len() == count && self.jobs.iter().zip(names.clone()).all(|(a, b)| a == b) {
            return;
        }
        self.jobs = if count == 0 {
            Vec::new()
        } else {
            names.map(str::to_string).collect()
        };
        if self
            .job
            .as_ref()
            .is_some_and(|name| !self.jobs.contains(name))
        {
            self.job = None;
        }
    }

    /// Handles one key; `disks` are the table's names in display order.
    pub fn on_key(&mut self, key: KeyEvent, disks: &[String]) -> Action {
        if key.kind == KeyEventKind::Release {
            return Action::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c' | 'C')) {
            return Action::Interrupt;
        }
        if self.ui.help {
            // Any key closes the help; `q` still quits.
            self.ui.help = false;
            return if key.code == KeyCode::Char('q') {
                Action::Quit
            } else {
                Action::Redraw
            };
        }
        if self.replay
            && let Some(action) = self.replay_key(key)
        {
            return action;
        }
        let bench = self.mode == Mode::Bench;
        if !self.jobs.is_empty() {
            match key.code {
                KeyCode::Tab => return self.pick_job(1, true),
                KeyCode::BackTab => return self.pick_job(-1, true),
                KeyCode::Up | KeyCode::Char('k') => return self.pick_job(-1, false),
                KeyCode::Down | KeyCode::Char('j') => return self.pick_job(1, false),
                _ => {}
            }
        }
        match key.code {
            KeyCode::Char('q' | 'Q') => Action::Quit,
            KeyCode::Char('?') => {
                self.ui.help = true;
                Action::Redraw
            }
            KeyCode::Tab | KeyCode::BackTab => {
                self.ui.focus = match self.ui.focus {
                    Focus::Charts => Focus::Disks,
                    Focus::Disks => Focus::Charts,
                };
                Action::Redraw
            }
            KeyCode::Char('l') => {
                self.ui.log_scale = !self.ui.log_scale;
                Action::Redraw
            }
            KeyCode::Char('h') => {
                self.ui.histogram = !self.ui.histogram;
                Action::Redraw
            }
            KeyCode::Up | KeyCode::Char('k') => self.step(disks, -1),
            KeyCode::Down | KeyCode::Char('j') => self.step(disks, 1),
            KeyCode::Char('o') => {
                self.sort = self.sort.next();
                // Names read best ascending, rates descending.
                self.descending = self.sort != SortKey::Name;
                Action::Redraw
            }
            KeyCode::Char('O') => {
                self.descending = !self.descending;
                Action::Redraw
            }
            KeyCode::Char('n') if bench && self.sweep => Action::Control(Intent::NextPoint),
            KeyCode::PageUp | KeyCode::PageDown | KeyCode::Home | KeyCode::End if self.sweep => {
                self.scroll_sweep(key.code)
            }
            KeyCode::Char('v') if self.sweep => {
                self.ui.sweep_metric = self.ui.sweep_metric.next();
                Action::Redraw
            }
            KeyCode::Char(c) if bench => match c {
                ' ' => Action::Control(Intent::PauseResume),
                's' => Action::Control(Intent::StopStart),
                '+' | '=' => Action::Control(Intent::IodepthUp),
                '-' | '_' => Action::Control(Intent::IodepthDown),
                ']' => Action::Control(Intent::NumjobsUp),
                '[' => Action::Control(Intent::NumjobsDown),
                'b' => Action::Control(Intent::BlockSizeUp),
                'B' => Action::Control(Intent::BlockSizeDown),
                'm' => Action::Control(Intent::NextRw),
                _ => Action::None,
            },
            _ => Action::None,
        }
    }

    /// PgUp/PgDn move the sweep's results a page of rows, Home to the first point, End back
    /// to following the running one.
    fn scroll_sweep(&mut self, code: KeyCode) -> Action {
        let most = i32::try_from(self.sweep_points).unwrap_or(i32::MAX);
        let scroll = match code {
            KeyCode::PageUp => self.ui.sweep_scroll - SWEEP_PAGE,
            KeyCode::PageDown => self.ui.sweep_scroll + SWEEP_PAGE,
            KeyCode::Home => -most,
            _ => 0,
        }
        .clamp(-most, most);
        if scroll == self.ui.sweep_scroll {
            return Action::None;
        }
        self.ui.sweep_scroll = scroll;
        Action::Redraw
    }

    /// A replay's keys: moving in time, and the `g`/`t` prompt. `None`: not one of them.
    fn replay_key(&mut self, key: KeyEvent) -> Option<Action> {
        if let Some(text) = &mut self.prompt {
            match key.code {
                KeyCode::Esc => {
                    self.prompt = None;
                    self.ui.message = None;
                }
                KeyCode::Enter => {
                    let typed = self.prompt.take().unwrap_or_default();
                    return Some(match JumpTarget::parse(&typed) {
                        Ok(target) => Action::Control(Intent::JumpTo(target)),
                        Err(why) => {
                            self.ui.message = Some(why);
                            Action::Redraw
                        }
                    });
                }
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Char(c) if c.is_ascii_alphanumeric() || ":+-".contains(c) => {
                    if text.len() < 16 {
                        text.push(c);
                    }
                }
                _ => return Some(Action::None),
            }
            if let Some(text) = &self.prompt {
                self.ui.message = Some(format!("jump to (HH:MM:SS UTC or +offset): {text}_"));
            }
            return Some(Action::Redraw);
        }
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let intent = match key.code {
            KeyCode::Left if shift => Intent::Seek(-10),
            KeyCode::Right if shift => Intent::Seek(10),
            KeyCode::Left => Intent::Seek(-1),
            KeyCode::Right => Intent::Seek(1),
            KeyCode::PageUp => Intent::Seek(-60),
            KeyCode::PageDown => Intent::Seek(60),
            KeyCode::Home => Intent::SeekFirst,
            KeyCode::End => Intent::SeekLast,
            KeyCode::Char('g' | 't') => {
                self.prompt = Some(String::new());
                self.ui.message = Some("jump to (HH:MM:SS UTC or +offset): _".into());
                return Some(Action::Redraw);
            }
            _ => return None,
        };
        Some(Action::Control(intent))
    }

    /// Moves the job selection by one row of the jobs table (the jobs, then the step total):
    /// `tab` wraps around, the arrows stop at the ends.
    fn pick_job(&mut self, by: isize, wrap: bool) -> Action {
        let rows = self.jobs.len() + 1;
        let at = self
            .job
            .as_ref()
            .and_then(|name| self.jobs.iter().position(|j| j == name))
            .unwrap_or(rows - 1);
        let next = if wrap {
            (at + rows).saturating_add_signed(by) % rows
        } else {
            at.saturating_add_signed(by).min(rows - 1)
        };
        if next == at {
            return Action::None;
        }
        self.job = self.jobs.get(next).cloned();
        Action::Redraw
    }

    fn step(&mut self, disks: &[String], by: isize) -> Action {
        if disks.is_empty() {
            return Action::None;
        }
        let at = self
            .selected
            .as_ref()
            .and_then(|s| disks.iter().position(|d| d == s));
        let next = match at {
            None => 0,
            Some(i) => i.saturating_add_signed(by).min(disks.len() - 1),
        };
        self.selected = Some(disks[next].clone());
        self.ui.focus = Focus::Disks;
        Action::Redraw
    }

    /// Sorts `rows` as the user asked and marks the selection (the first row if none yet).
    pub fn disk_table(&mut self, mut rows: Vec<DiskRow>) -> DiskTableView {
        sort_rows(&mut rows, self.sort, self.descending);
        let mut selected = self
            .selected
            .as_ref()
            .and_then(|s| rows.iter().position(|r| &r.name == s));
        // Nothing picked yet: the first row. A disk picked (or the benchmark's target) that is
        // not in the table (not sampled yet, or idle) stays picked: it is not replaced by
        // whichever disk sorts first.
        if self.selected.is_none() && !rows.is_empty() {
            selected = Some(0);
            self.selected = Some(rows[0].name.clone());
        }
        self.discards_seen |= rows.iter().any(|r| r.d_s > 0.0);
        DiskTableView {
            rows,
            selected,
            sort: self.sort,
            descending: self.descending,
            discards: self.discards_seen,
            traced: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn names() -> Vec<String> {
        vec!["loop0".into(), "vda".into(), "vdb".into()]
    }

    #[test]
    fn bench_keys_become_intents() {
        let mut app = App::new(Mode::Bench, true);
        let cases = [
            (' ', Intent::PauseResume),
            ('s', Intent::StopStart),
            ('+', Intent::IodepthUp),
            ('-', Intent::IodepthDown),
            (']', Intent::NumjobsUp),
            ('[', Intent::NumjobsDown),
            ('b', Intent::BlockSizeUp),
            ('B', Intent::BlockSizeDown),
            ('m', Intent::NextRw),
        ];
        for (c, intent) in cases {
            assert_eq!(
                app.on_key(key(KeyCode::Char(c)), &[]),
                Action::Control(intent)
            );
        }
    }

    #[test]
    fn in_a_sweep_n_skips_to_the_next_point_and_v_cycles_the_chart() {
        use crate::tui::view::SweepMetric;

        let mut app = App::new(Mode::Bench, true);
        assert_eq!(app.on_key(key(KeyCode::Char('n')), &[]), Action::None);
        assert_eq!(app.on_key(key(KeyCode::Char('v')), &[]), Action::None);
        app.sweep = true;
        assert_eq!(
            app.on_key(key(KeyCode::Char('n')), &[]),
            Action::Control(Intent::NextPoint)
        );
        assert_eq!(
            app.on_key(key(KeyCode::Char('s')), &[]),
            Action::Control(Intent::StopStart)
        );
        let mut seen = Vec::new();
        for _ in 0..4 {
            assert_eq!(app.on_key(key(KeyCode::Char('v')), &[]), Action::Redraw);
            seen.push(app.ui.sweep_metric);
        }
        assert_eq!(
            seen,
            [
                SweepMetric::Iops,
                SweepMetric::MeanLatency,
                SweepMetric::P99Latency,
                SweepMetric::Bandwidth
            ]
        );
    }

    #[test]
    fn a_replay_moves_in_time_and_jumps_to_what_is_typed() {
        let mut app = App::new(Mode::Monitor, true);
        assert_eq!(
            app.on_key(key(KeyCode::Right), &[]),
            Action::None,
            "live: no time"
        );
        app.replay = true;
        let shift = |code| KeyEvent::new(code, KeyModifiers::SHIFT);
        for (k, intent) in [
            (key(KeyCode::Right), Intent::Seek(1)),
            (key(KeyCode::Left), Intent::Seek(-1)),
            (shift(KeyCode::Right), Intent::Seek(10)),
            (shift(KeyCode::Left), Intent::Seek(-10)),
            (key(KeyCode::PageDown), Intent::Seek(60)),
            (key(KeyCode::PageUp), Intent::Seek(-60)),
            (key(KeyCode::Home), Intent::SeekFirst),
            (key(KeyCode::End), Intent::SeekLast),
        ] {
            assert_eq!(app.on_key(k, &[]), Action::Control(intent));
        }
        // The disk keys still work.
        assert_eq!(app.on_key(key(KeyCode::Down), &names()), Action::Redraw);
        for c in "g12:0x".chars() {
            app.on_key(key(KeyCode::Char(c)), &[]);
        }
        app.on_key(key(KeyCode::Backspace), &[]);
        app.on_key(key(KeyCode::Char('5')), &[]);
        assert_eq!(
            app.ui.message.as_deref(),
            Some("jump to (HH:MM:SS UTC or +offset): 12:05_")
        );
        assert_eq!(
            app.on_key(key(KeyCode::Enter), &[]),
            Action::Control(Intent::JumpTo(JumpTarget::TimeOfDay(12 * 3600 + 5 * 60)))
        );
        assert_eq!(app.prompt, None);
        app.on_key(key(KeyCode::Char('t')), &[]);
        app.on_key(key(KeyCode::Char('q')), &[]);
        assert_eq!(app.on_key(key(KeyCode::Enter), &[]), Action::Redraw);
        assert_eq!(
            app.ui.message.as_deref(),
            Some("\"q\" is no time: type HH:MM:SS (UTC) or an offset like +90s, +5m, -1h")
        );
        app.on_key(key(KeyCode::Char('g')), &[]);
        assert_eq!(app.on_key(key(KeyCode::Esc), &[]), Action::Redraw);
        assert_eq!(app.prompt, None);
    }

    #[test]
    fn jump_targets_parse() {
        use JumpTarget::{Offset, TimeOfDay};
        let off = |seconds, from_end| Offset { seconds, from_end };
        for (text, want) in [
            ("17:20:05", TimeOfDay(17 * 3600 + 20 * 60 + 5)),
            ("0:01", TimeOfDay(60)),
            ("+90", off(90, false)),
            ("90s", off(90, false)),
            ("+5m", off(300, false)),
            ("-1h", off(3600, true)),
        ] {
            assert_eq!(JumpTarget::parse(text), Ok(want), "{text}");
        }
        for bad in ["", "24:00", "12:60", "1:2:3:4", "+x", "5d", "-", "12:"] {
            assert!(JumpTarget::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_monitor_ignores_bench_keys() {
        let mut app = App::new(Mode::Monitor, true);
        assert_eq!(app.on_key(key(KeyCode::Char('+')), &[]), Action::None);
        assert_eq!(app.on_key(key(KeyCode::Char(' ')), &[]), Action::None);
    }

    #[test]
    fn ctrl_c_and_q_quit_even_from_help() {
        let mut app = App::new(Mode::Bench, true);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(app.on_key(ctrl_c, &[]), Action::Interrupt);
        app.ui.help = true;
        assert_eq!(app.on_key(ctrl_c, &[]), Action::Interrupt);
        app.ui.help = true;
        assert_eq!(app.on_key(key(KeyCode::Char('x')), &[]), Action::Redraw);
        assert!(!app.ui.help);
        assert_eq!(app.on_key(key(KeyCode::Char('q')), &[]), Action::Quit);
    }

    #[test]
    fn arrows_walk_the_disks_and_stop_at_the_ends() {
        let mut app = App::new(Mode::Monitor, true);
        let names = names();
        app.on_key(key(KeyCode::Down), &names);
        assert_eq!(app.selected.as_deref(), Some("loop0"));
        app.on_key(key(KeyCode::Down), &names);
        app.on_key(key(KeyCode::Down), &names);
        app.on_key(key(KeyCode::Down), &names);
        assert_eq!(app.selected.as_deref(), Some("vdb"));
        app.on_key(key(KeyCode::Up), &names);
        assert_eq!(app.selected.as_deref(), Some("vda"));
        assert_eq!(app.on_key(key(KeyCode::Up), &[]), Action::None);
    }

    #[test]
    fn toggles_and_sorting() {
        let mut app = App::new(Mode::Monitor, true);
        app.on_key(key(KeyCode::Char('l')), &[]);
        assert!(app.ui.log_scale);
        assert!(!app.ui.histogram);
        assert_eq!(app.on_key(key(KeyCode::Char('h')), &[]), Action::Redraw);
        assert!(app.ui.histogram);
        app.on_key(key(KeyCode::Tab), &[]);
        assert_eq!(app.ui.focus, Focus::Charts);
        app.on_key(key(KeyCode::Char('o')), &[]);
        assert_eq!((app.sort, app.descending), (SortKey::ReadIops, true));
        app.on_key(key(KeyCode::Char('O')), &[]);
        assert!(!app.descending);
    }

    #[test]
    fn the_selection_follows_the_name_across_sorts() {
        let mut app = App::new(Mode::Monitor, true);
        let row = |name: &str, util| DiskRow {
            name: name.into(),
            util,
            ..DiskRow::default()
        };
        let rows = vec![row("vda", 10.0), row("loop0", 50.0)];
        let t = app.disk_table(rows.clone());
        assert_eq!(t.selected, Some(0));
        assert_eq!(app.selected.as_deref(), Some("loop0"));
        app.sort = SortKey::Util;
        app.selected = Some("vda".into());
        let t = app.disk_table(rows);
        assert_eq!(t.rows[t.selected.unwrap()].name, "vda");
    }

    /// A benchmark's target disk that the table has not listed yet (a loop device attached a
    /// moment ago) stays the pick; the first row does not take its place.
    #[test]
    fn a_pick_not_in_the_table_yet_stays_picked() {
        let mut app = App::new(Mode::Bench, true);
        app.selected = Some("loop172272".into());
        let row = |name: &str| DiskRow {
            name: name.into(),
            ..DiskRow::default()
        };
        let t = app.disk_table(vec![row("loop1"), row("vda")]);
        assert_eq!(t.selected, None);
        assert_eq!(app.selected.as_deref(), Some("loop172272"));
        let t = app.disk_table(vec![row("loop1"), row("loop172272"), row("vda")]);
        assert_eq!(t.rows[t.selected.unwrap()].name, "loop172272");
    }

    /// The discard columns come with the first discard and stay when a sample has none.
    #[test]
    fn discard_columns_stay_once_a_disk_has_discarded() {
        let mut app = App::new(Mode::Monitor, true);
        let row = |d_s: f64| DiskRow {
            name: "vda".into(),
            d_s,
            ..DiskRow::default()
        };
        assert!(!app.disk_table(vec![row(0.0)]).discards);
        assert!(app.disk_table(vec![row(12.0)]).discards);
        assert!(app.disk_table(vec![row(0.0)]).discards);
    }

    #[test]
    fn with_several_jobs_tab_and_arrows_pick_the_job() {
        let mut app = App::new(Mode::Bench, true);
        app.set_jobs(["a"].into_iter());
        assert!(app.jobs.is_empty(), "one job: no jobs table");
        assert_eq!(app.on_key(key(KeyCode::Tab), &[]), Action::Redraw);
        assert_eq!(app.ui.focus, Focus::Disks);
        app.ui.focus = Focus::Charts;

        app.set_jobs(["a", "b"].into_iter());
        app.on_key(key(KeyCode::Tab), &[]);
        assert_eq!(
            (app.job.as_deref(), app.ui.focus),
            (Some("a"), Focus::Charts)
        );
        app.on_key(key(KeyCode::Down), &names());
        assert_eq!(app.job.as_deref(), Some("b"));
        assert_eq!(app.selected, None, "the arrows leave the disk alone");
        app.on_key(key(KeyCode::Down), &names());
        assert_eq!(app.job, None);
        assert_eq!(app.on_key(key(KeyCode::Down), &names()), Action::None);
        app.on_key(key(KeyCode::BackTab), &[]);
        assert_eq!(app.job.as_deref(), Some("b"));
        // The next step's jobs: a name that is gone gives way to the step total.
        app.set_jobs(["c", "d"].into_iter());
        assert_eq!(app.job, None);
        app.set_jobs(std::iter::empty());
        assert!(app.jobs.is_empty());
    }
}
