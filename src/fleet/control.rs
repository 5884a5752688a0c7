//! The fleet controller as a fold: every host's [`Host`] state, the start together, the stop,
//! the tables and the record. Pure: the edge (`cmd::fleet`, which runs ssh) hands in what each
//! host's ssh did ([`Control::on`]) and the time, and calls [`Control::step`] once per turn of
//! its loop; it carries out the [`Action`]s that come back, in order.
//!
//! ```text
//!   a turn:  events in (on) -> step: settle, ready, interrupt, start, watch, intervals
//!            -> (the dashboard's copy) -> expire: the stop's grace -> done?
//! ```

use std::time::{Duration, Instant, SystemTime};

use super::host::{self, Event, Host, Phase};
use super::live::{FleetState, HostState};
use super::merge::{Rates, merge_direction, merge_sync, p50_p99};
use super::plan::{FleetPlan, Watch};
use super::table::Row;
use crate::record::{
    DirectionRecord, FLEET_FORMAT, FORMAT_VERSION, FleetAggregate, FleetHostRecord, FleetRecord,
    HostStatus, IntervalRecord, RunStatus, SyncRecord, rfc3339_utc,
};

/// Intervals a host may be ahead of a silent one before its tables are shown without it.
pub const MAX_PENDING: usize = 8;

/// How the controller ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Finished,
    Interrupted,
    /// `--all-or-nothing` and a host was not ready.
    NotAllReady,
}

/// What the edge does.
#[derive(Debug, Clone)]
pub enum Action {
    /// Write the word and a newline to host `i`'s ssh.
    Write(usize, &'static str),
    /// Close host `i`'s stdin.
    CloseInput(usize),
    /// Kill host `i`'s ssh.
    Kill(usize),
    /// A status line: on stderr when headless, the dashboard's footer line otherwise.
    Show(String),
    /// The hosts were told to start at this time.
    Started(Instant),
    /// One interval of the fleet: each host's of that index (`(host, interval)`, the hosts that
    /// sent it), for a table ([`Control::interval_table`]) or the dashboard.
    Intervals(Vec<(usize, IntervalRecord)>),
}

impl Action {
    fn of(i: usize, action: host::Action) -> Self {
        match action {
            host::Action::Write(word) => Self::Write(i, word),
            host::Action::CloseInput => Self::CloseInput(i),
            host::Action::Kill => Self::Kill(i),
            host::Action::Show(line) => Self::Show(line),
        }
    }
}

/// The fleet's hosts and where the run is.
#[derive(Debug)]
pub struct Control {
    pub hosts: Vec<Host>,
    /// When the hosts not ready are left out.
    ready_by: Instant,
    ready_timeout: Duration,
    watch: Watch,
    planned: Option<Duration>,
    all_or_nothing: bool,
    started: bool,
    ending: Ending,
    shown_ready: Vec<bool>,
}

impl Control {
    /// The fleet of `plan`, its hosts' ssh started at `now`.
    #[must_use]
    pub fn new(plan: &FleetPlan, all_or_nothing: bool, now: Instant) -> Self {
        Self {
            hosts: plan
                .hosts
                .iter()
                .map(|name| Host::new(name.clone(), now))
                .collect(),
            ready_by: now + plan.ready_timeout,
            ready_timeout: plan.ready_timeout,
            watch: plan.watch,
            planned: plan.planned,
            all_or_nothing,
            started: false,
            ending: Ending::Finished,
            shown_ready: vec![false; plan.hosts.len()],
        }
    }

    #[cfg(test)]
    #[must_use]
    pub fn ending(&self) -> Ending {
        self.ending
    }

    /// Takes in what came from host `i`'s ssh at `now`.
    pub fn on(&mut self, i: usize, event: Event, now: Instant) -> Vec<Action> {
        let actions = self.hosts[i].on(event, now);
        actions.into_iter().map(|a| Action::of(i, a)).collect()
    }

    /// One turn after the events: the hosts that ended without a record failed, the ready ones
    /// said, the interrupt (`interrupted`: Ctrl-C, or the dashboard left) stops every host, the
    /// start once every host is ready or the ready timeout passed, the running ones watched,
    /// the intervals every host sent.
    pub fn step(&mut self, now: Instant, interrupted: bool) -> Vec<Action> {
        let mut out = Vec::new();
        self.each(&mut out, |host, out| host.settle(now, out));
        for (i, host) in self.hosts.iter().enumerate() {
            if host.phase == Phase::Ready && !self.shown_ready[i] {
                self.shown_ready[i] = true;
                out.push(Action::Show(format!("  {}: ready", host.name)));
            }
        }
        if interrupted && self.ending != Ending::Interrupted {
            self.ending = Ending::Interrupted;
            out.push(Action::Show(
                "stopping every host (their records are being written)".into(),
            ));
            self.each(&mut out, |host, out| host.stop(now, out));
        }
        if !self.started && self.ending == Ending::Finished {
            self.start(now, &mut out);
        }
        let (watch, planned) = (self.watch, self.planned);
        self.each(&mut out, |host, out| host.watch(&watch, planned, now, out));
        out.extend(self.intervals(now, false));
        out
    }

    /// Starts the ready hosts together once none is preparing or the ready timeout passed,
    /// leaving out the others; with `--all-or-nothing` a host that failed or was not ready
    /// ends the fleet instead.
    fn start(&mut self, now: Instant, out: &mut Vec<Action>) {
        let waiting = self.hosts.iter().any(|h| h.phase == Phase::Preparing);
        let failed_early = self.hosts.iter().any(|h| h.phase == Phase::Exited);
        if self.all_or_nothing && failed_early {
            self.ending = Ending::NotAllReady;
            self.each(out, |host, out| host.stop(now, out));
            return;
        }
        if waiting && now < self.ready_by {
            return;
        }
        let why = format!(
            "not ready within --ready-timeout {}",
            crate::units::format_duration(self.ready_timeout)
        );
        self.each(out, |host, out| {
            if host.phase == Phase::Preparing {
                host.leave_out(why.clone(), now, out);
            }
        });
        if self.all_or_nothing && waiting {
            self.ending = Ending::NotAllReady;
            self.each(out, |host, out| host.stop(now, out));
            return;
        }
        self.started = true;
        let ready = self
            .hosts
            .iter()
            .filter(|h| h.phase == Phase::Ready)
            .count();
        if ready > 0 {
            out.push(Action::Show(format!(
                "start: {ready} of {} hosts at once",
                self.hosts.len()
            )));
            out.push(Action::Started(now));
        }
        for (i, host) in self.hosts.iter_mut().enumerate() {
            if host.phase == Phase::Ready {
                out.extend(host.start(now).into_iter().map(|a| Action::of(i, a)));
            }
        }
    }

    /// After the dashboard's copy is made: the hosts stopped more than the grace ago are
    /// killed.
    pub fn expire(&mut self, now: Instant) -> Vec<Action> {
        let mut out = Vec::new();
        self.each(&mut out, |host, out| host.expire(now, out));
        out
    }

    /// Every host's ssh has exited and its pipes are read.
    #[must_use]
    pub fn done(&self, now: Instant) -> bool {
        self.hosts.iter().all(|h| h.done(now))
    }

    /// At the end: the intervals not every host sent.
    pub fn finish(&mut self, now: Instant) -> Vec<Action> {
        self.intervals(now, true)
    }

    /// `f` on each host, its actions as the fleet's.
    fn each(
        &mut self,
        out: &mut Vec<Action>,
        mut f: impl FnMut(&mut Host, &mut Vec<host::Action>),
    ) {
        for (i, host) in self.hosts.iter_mut().enumerate() {
            let mut actions = Vec::new();
            f(host, &mut actions);
            out.extend(actions.into_iter().map(|a| Action::of(i, a)));
        }
    }

    /// Each interval every host still running has sent (`flush`: also the incomplete ones at
    /// the end), oldest first.
    fn intervals(&mut self, now: Instant, flush: bool) -> Vec<Action> {
        let mut out = Vec::new();
        loop {
            let live = |h: &Host| !h.done(now) && h.verdict.is_none();
            let any = self.hosts.iter().any(|h| !h.pending.is_empty());
            let complete = self.hosts.iter().all(|h| !h.pending.is_empty() || !live(h));
            // A host that stopped sending without dropping holds the others' tables back only
            // so long: memory stays bounded, and the late host's rows show as they come.
            let held_back = self.hosts.iter().any(|h| h.pending.len() > MAX_PENDING);
            if !any || !(complete || flush || held_back) {
                return out;
            }
            let fronts: Vec<(usize, IntervalRecord)> = self
                .hosts
                .iter_mut()
                .enumerate()
                .filter_map(|(i, h)| h.pending.pop_front().map(|r| (i, r)))
                .collect();
            out.push(Action::Intervals(fronts));
        }
    }

    /// The hosts' states for the dashboard.
    #[must_use]
    pub fn live_states(&self) -> Vec<(HostState, Option<String>)> {
        self.hosts.iter().map(Host::live_state).collect()
    }

    /// The fleet's state for the dashboard while it runs.
    #[must_use]
    pub fn live_state(&self) -> FleetState {
        if self.ending != Ending::Finished || self.hosts.iter().any(|h| h.stopped_at.is_some()) {
            FleetState::Stopping
        } else if self.started {
            FleetState::Running
        } else {
            FleetState::Starting
        }
    }

    /// How the run ended, for the dashboard's header: the record's status (completed only when
    /// every host completed).
    #[must_use]
    pub fn final_state(&self) -> FleetState {
        let failed = self
            .hosts
            .iter()
            .filter(|h| {
                h.verdict.is_some()
                    || h.record
                        .as_ref()
                        .is_none_or(|r| r.status != RunStatus::Completed)
            })
            .count();
        match self.ending {
            Ending::Interrupted => FleetState::Interrupted,
            Ending::NotAllReady => {
                FleetState::Failed("not every host was ready (--all-or-nothing)".into())
            }
            Ending::Finished if failed == 0 => FleetState::Finished,
            Ending::Finished => {
                FleetState::Failed(format!("{failed} of {} hosts failed", self.hosts.len()))
            }
        }
    }

    /// One interval's table: each host's row (from its interval, when it sent one) and the
    /// fleet's.
    #[must_use]
    pub fn interval_table(&self, fronts: &[(usize, IntervalRecord)]) -> (String, Vec<Row>, Row) {
        interval_table(&self.hosts, fronts)
    }

    /// The fleet record; the hosts' run records are moved into it.
    pub fn record(
        &mut self,
        plan: &FleetPlan,
        started_at: SystemTime,
        ended_at: SystemTime,
    ) -> FleetRecord {
        let hosts: Vec<FleetHostRecord> = self.hosts.iter_mut().map(Host::take_record).collect();
        let measured: Vec<&FleetHostRecord> = hosts
            .iter()
            .filter(|h| h.record.is_some() || h.partial)
            .collect();
        let reads: Vec<&DirectionRecord> = measured.iter().map(|h| &h.read).collect();
        let writes: Vec<&DirectionRecord> = measured.iter().map(|h| &h.write).collect();
        let trims: Vec<&DirectionRecord> = measured.iter().map(|h| &h.trim).collect();
        let syncs: Vec<&SyncRecord> = measured.iter().map(|h| &h.sync).collect();
        let aggregate = FleetAggregate {
            hosts: u32::try_from(measured.len()).unwrap_or(u32::MAX),
            elapsed_ns: measured.iter().map(|h| h.elapsed_ns).max().unwrap_or(0),
            read: merge_direction(&reads, Rates::Summed),
            write: merge_direction(&writes, Rates::Summed),
            trim: merge_direction(&trims, Rates::Summed),
            sync: merge_sync(&syncs),
        };
        let status = match self.ending {
            Ending::Interrupted => RunStatus::Interrupted,
            Ending::NotAllReady => RunStatus::Failed,
            Ending::Finished if hosts.iter().all(|h| h.status == HostStatus::Completed) => {
                RunStatus::Completed
            }
            Ending::Finished => RunStatus::Failed,
        };
        FleetRecord {
            format: FLEET_FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            diskdash_version: env!("CARGO_PKG_VERSION").to_string(),
            status,
            started_at: rfc3339_utc(started_at),
            ended_at: rfc3339_utc(ended_at),
            command: plan.command.clone(),
            ready_timeout_ns: crate::record::nanos(plan.ready_timeout),
            all_or_nothing: self.all_or_nothing,
            hosts,
            aggregate,
        }
    }
}

/// One interval's table: each host's row (from its interval, when it sent one) and the fleet's.
fn interval_table(hosts: &[Host], fronts: &[(usize, IntervalRecord)]) -> (String, Vec<Row>, Row) {
    let mut rows = Vec::with_capacity(hosts.len());
    for (i, host) in hosts.iter().enumerate() {
        let mut row = Row {
            name: host.name.clone(),
            state: host.state_word().into(),
            error: host.verdict.as_ref().map(|(_, why)| why.clone()),
            ..Row::default()
        };
        if let Some((_, r)) = fronts.iter().find(|(at, _)| *at == i) {
            row.measured = true;
            row.iops = r.read.iops + r.write.iops + r.trim.iops;
            let bw = (r.read.bw_bytes + r.write.bw_bytes + r.trim.bw_bytes) as f64;
            row.bw_bytes_per_s = bw;
            (row.p50_ns, row.p99_ns) = p50_p99(&[&r.read, &r.write, &r.trim]);
            row.util_pct = r.device.as_ref().map(|d| d.util_pct);
        }
        rows.push(row);
    }
    let parts: Vec<&DirectionRecord> = fronts
        .iter()
        .flat_map(|(_, r)| [&r.read, &r.write, &r.trim])
        .collect();
    let (p50_ns, p99_ns) = p50_p99(&parts);
    let fleet = Row {
        name: "fleet".into(),
        state: format!("{} of {}", fronts.len(), hosts.len()),
        measured: !fronts.is_empty(),
        iops: fronts
            .iter()
            .map(|(_, r)| r.read.iops + r.write.iops + r.trim.iops)
            .sum(),
        bw_bytes_per_s: fronts
            .iter()
            .map(|(_, r)| (r.read.bw_bytes + r.write.bw_bytes + r.trim.bw_bytes) as f64)
            .sum(),
        p50_ns,
        p99_ns,
        util_pct: fronts
            .iter()
            .filter_map(|(_, r)| r.device.as_ref().map(|d| d.util_pct))
            .reduce(f64::max),
        error: None,
    };
    let title = match fronts.first() {
        Some((_, r)) => format!(
            "[{:>7.1}s] {}interval {} (rates over each host's interval; fleet %util: the \
             busiest)",
            r.t_ns as f64 / 1e9,
            if fronts.iter().any(|(_, f)| f.step > 0) {
                format!("step {} ", r.step + 1)
            } else {
                String::new()
            },
            r.index + 1
        ),
        None => String::new(),
    };
    (title, rows, fleet)
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    use super::*;
    use crate::fleet::host::STOP_GRACE;
    use crate::fleet::protocol::Line;

    const SECOND: Duration = Duration::from_secs(1);

    /// By what they print: interval records have no equality of their own.
    impl PartialEq for Action {
        fn eq(&self, other: &Self) -> bool {
            format!("{self:?}") == format!("{other:?}")
        }
    }

    fn plan(hosts: &[&str]) -> FleetPlan {
        FleetPlan {
            hosts: hosts.iter().map(|h| (*h).to_string()).collect(),
            command: vec!["bench".into(), "/data".into()],
            destructive: false,
            ready_timeout: 5 * SECOND,
            ssh: super::super::ssh::SshOptions::default(),
            planned: Some(10 * SECOND),
            watch: Watch {
                interval: SECOND,
                ramp: Duration::ZERO,
                heartbeat: true,
                deadline: Some(40 * SECOND),
            },
        }
    }

    fn interval(index: u64) -> Box<IntervalRecord> {
        let mut stats = crate::stats::DirectionStats::new();
        stats.record(4096, 100_000);
        Box::new(crate::stats::fixture::read_interval(0, index, &stats))
    }

    fn line(control: &mut Control, i: usize, line: Line, at: Instant) -> Vec<Action> {
        control.on(i, Event::Line(line), at)
    }

    /// Host `i`'s run ends on its own at `at`: its pipes end and its ssh exits with `code`.
    fn ends(control: &mut Control, i: usize, code: i32, at: Instant) {
        control.on(i, Event::End, at);
        control.on(i, Event::ErrEnd, at);
        control.on(i, Event::Exited(ExitStatus::from_raw(code << 8)), at);
    }

    fn shown(actions: &[Action]) -> Vec<&str> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Show(line) => Some(line.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_normal_run_starts_together_shows_each_interval_and_completes() {
        let t0 = Instant::now();
        let mut control = Control::new(&plan(&["a", "b"]), false, t0);
        assert_eq!(control.live_state(), FleetState::Starting);
        line(&mut control, 0, Line::Ready, t0 + SECOND);
        let out = control.step(t0 + SECOND, false);
        assert_eq!(out, [Action::Show("  a: ready".into())]);
        line(&mut control, 1, Line::Ready, t0 + 2 * SECOND);
        let t1 = t0 + 2 * SECOND;
        assert_eq!(
            control.step(t1, false),
            [
                Action::Show("  b: ready".into()),
                Action::Show("start: 2 of 2 hosts at once".into()),
                Action::Started(t1),
                Action::Write(0, "start"),
                Action::Write(1, "start"),
            ]
        );
        assert_eq!(control.live_state(), FleetState::Running);
        // A table once every host sent the interval.
        line(&mut control, 0, Line::Interval(interval(0)), t1 + SECOND);
        assert!(control.step(t1 + SECOND, false).is_empty());
        line(&mut control, 1, Line::Interval(interval(0)), t1 + SECOND);
        let out = control.step(t1 + SECOND, false);
        let [Action::Intervals(fronts)] = out.as_slice() else {
            panic!("{out:?}");
        };
        let (title, rows, fleet) = control.interval_table(fronts);
        assert!(title.starts_with("[    1.0s] interval 1 "), "{title}");
        assert_eq!(
            rows.iter().map(|r| r.state.as_str()).collect::<Vec<_>>(),
            ["running"; 2]
        );
        assert_eq!((fleet.state.as_str(), fleet.iops), ("2 of 2", 2.0));
        for i in 0..2 {
            let record = Box::new(crate::stats::fixture::record());
            line(&mut control, i, Line::Record(record), t1 + 2 * SECOND);
            ends(&mut control, i, 0, t1 + 2 * SECOND);
        }
        let t2 = t1 + 2 * SECOND;
        assert!(control.step(t2, false).is_empty());
        assert!(control.expire(t2).is_empty());
        assert!(control.done(t2));
        assert!(control.finish(t2).is_empty());
        assert_eq!(control.final_state(), FleetState::Finished);
        let record = control.record(&plan(&["a", "b"]), SystemTime::now(), SystemTime::now());
        assert_eq!(record.status, RunStatus::Completed);
        assert_eq!(record.aggregate.hosts, 2);
        assert!(
            record
                .hosts
                .iter()
                .all(|h| h.status == HostStatus::Completed)
        );
    }

    #[test]
    fn a_host_not_ready_in_time_is_left_out_or_ends_an_all_or_nothing_fleet() {
        let t0 = Instant::now();
        for all_or_nothing in [false, true] {
            let mut control = Control::new(&plan(&["a", "b"]), all_or_nothing, t0);
            line(&mut control, 0, Line::Ready, t0);
            control.step(t0, false);
            assert!(
                control
                    .step(t0 + 5 * SECOND - Duration::from_millis(1), false)
                    .is_empty(),
                "waits to the timeout"
            );
            let out = control.step(t0 + 5 * SECOND, false);
            let left_out = [
                Action::Write(1, "stop"),
                Action::CloseInput(1),
                Action::Kill(1),
            ];
            assert_eq!(out[..3], left_out);
            let why = "not ready within --ready-timeout 5s";
            assert_eq!(
                control.hosts[1].verdict,
                Some((HostStatus::NotReady, why.into()))
            );
            assert_eq!(
                control.live_states()[1],
                (HostState::LeftOut, Some(why.into()))
            );
            if all_or_nothing {
                assert_eq!(out[3..], [Action::Write(0, "stop"), Action::CloseInput(0)]);
                assert_eq!(control.ending(), Ending::NotAllReady);
                assert_eq!(
                    control.final_state(),
                    FleetState::Failed("not every host was ready (--all-or-nothing)".into())
                );
            } else {
                assert_eq!(
                    out[3..],
                    [
                        Action::Show("start: 1 of 2 hosts at once".into()),
                        Action::Started(t0 + 5 * SECOND),
                        Action::Write(0, "start")
                    ]
                );
                assert_eq!(control.ending(), Ending::Finished);
            }
        }
    }

    #[test]
    fn all_or_nothing_ends_at_once_when_a_host_fails_before_it_is_ready() {
        let t0 = Instant::now();
        let mut control = Control::new(&plan(&["a", "b"]), true, t0);
        line(&mut control, 0, Line::Ready, t0);
        control.on(
            1,
            Event::ErrLine("ssh: connect to host b port 22: Connection refused".into()),
            t0,
        );
        ends(&mut control, 1, 255, t0);
        let out = control.step(t0 + SECOND, false);
        assert_eq!(
            shown(&out),
            [
                "  b: failed: ssh: connect to host b port 22: Connection refused",
                "  a: ready"
            ]
        );
        assert!(out.contains(&Action::Write(0, "stop")));
        assert!(!out.contains(&Action::Write(0, "start")));
        assert_eq!(control.ending(), Ending::NotAllReady);
        let record = control.record(&plan(&["a", "b"]), SystemTime::now(), SystemTime::now());
        assert_eq!(record.status, RunStatus::Failed);
        assert!(record.all_or_nothing);
    }

    #[test]
    fn an_interrupt_stops_every_host_and_the_grace_kills_the_late_ones() {
        let t0 = Instant::now();
        let mut control = Control::new(&plan(&["a", "b"]), false, t0);
        line(&mut control, 0, Line::Ready, t0);
        line(&mut control, 1, Line::Ready, t0);
        control.step(t0, false);
        let t1 = t0 + 3 * SECOND;
        let out = control.step(t1, true);
        assert_eq!(
            out,
            [
                Action::Show("stopping every host (their records are being written)".into()),
                Action::Write(0, "stop"),
                Action::CloseInput(0),
                Action::Write(1, "stop"),
                Action::CloseInput(1),
            ]
        );
        assert_eq!(control.live_state(), FleetState::Stopping);
        assert!(control.step(t1, true).is_empty(), "said once");
        // a sends its record and exits; b does not.
        line(
            &mut control,
            0,
            Line::Record(Box::new(crate::stats::fixture::record())),
            t1,
        );
        ends(&mut control, 0, 0, t1);
        assert!(control.expire(t1 + STOP_GRACE).is_empty());
        let late = t1 + STOP_GRACE + Duration::from_millis(1);
        assert_eq!(control.expire(late), [Action::Kill(1)]);
        ends(&mut control, 1, 255, late);
        assert!(control.done(late));
        assert_eq!(control.final_state(), FleetState::Interrupted);
        let record = control.record(&plan(&["a", "b"]), SystemTime::now(), SystemTime::now());
        assert_eq!(record.status, RunStatus::Interrupted);
        assert_eq!(
            record.hosts[1].error.as_deref(),
            Some("sent no record within 2s of the stop: its ssh was killed")
        );
    }

    #[test]
    fn a_silent_running_host_is_cut_off_and_the_others_tables_go_on_without_it() {
        let t0 = Instant::now();
        let mut control = Control::new(&plan(&["a", "b"]), false, t0);
        line(&mut control, 0, Line::Ready, t0);
        line(&mut control, 1, Line::Ready, t0);
        control.step(t0, false);
        // b sends nothing: a's tables are held back only so long.
        for index in 0..=u64::try_from(MAX_PENDING).unwrap() {
            line(
                &mut control,
                0,
                Line::Interval(interval(index)),
                t0 + SECOND,
            );
        }
        let out = control.step(t0 + SECOND, false);
        assert!(
            matches!(&out[..], [Action::Intervals(f)] if f.len() == 1),
            "{out:?}"
        );
        let quiet = t0 + 10 * SECOND + Duration::from_millis(1);
        control.on(0, Event::ErrLine("alive".into()), quiet);
        let out = control.step(quiet, false);
        let why = "sent nothing for 10.0 s while running (the limit: 10 intervals of 1s, at \
                   least 5s); its ssh was killed";
        assert_eq!(shown(&out), [format!("  b: failed: {why}")]);
        assert_eq!(
            &out[1..4],
            [
                Action::Write(1, "stop"),
                Action::CloseInput(1),
                Action::Kill(1)
            ]
        );
        // Its verdict frees a's intervals: one table each.
        assert_eq!(out.len(), 4 + MAX_PENDING);
        let Action::Intervals(fronts) = &out[4] else {
            panic!("{out:?}");
        };
        let (_, rows, fleet) = control.interval_table(fronts);
        assert_eq!(rows[1].state, "failed");
        assert_eq!(rows[1].error.as_deref(), Some(why));
        assert_eq!(fleet.state, "1 of 2");
    }
}
