//! Snapshots of every panel and of whole frames (80x24, 160x50) with fixed data, plus the
//! rules that hold for every size: no panic, only ASCII/box-drawing/braille, 16 colours.

use ratatui::Frame;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;

use super::sample;
use crate::tui::view::View;

fn draw_with(w: u16, h: u16, draw: impl FnOnce(&mut Frame)) -> Terminal<TestBackend> {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    term.draw(draw).expect("draw");
    term
}

fn frame(view: &View, w: u16, h: u16) -> Terminal<TestBackend> {
    draw_with(w, h, |f| super::render(f, view))
}

fn panel(
    view: &View,
    w: u16,
    h: u16,
    render: fn(&mut Frame, Rect, &View),
) -> Terminal<TestBackend> {
    draw_with(w, h, |f| render(f, f.area(), view))
}

fn allowed(c: char) -> bool {
    c.is_ascii_graphic()
        || c == ' '
        || ('\u{2500}'..='\u{257f}').contains(&c)
        || ('\u{2800}'..='\u{28ff}').contains(&c)
}

fn check_cells(buf: &Buffer, color: bool) {
    for cell in &buf.content {
        for c in cell.symbol().chars() {
            assert!(
                allowed(c),
                "{c:?} ({:#x}) is not ASCII, box drawing or braille",
                c as u32
            );
        }
        for col in [cell.fg, cell.bg] {
            if color {
                assert!(
                    !matches!(col, Color::Rgb(..) | Color::Indexed(_)),
                    "{col:?} is not one of the 16 named colours"
                );
            } else {
                assert_eq!(col, Color::Reset, "NO_COLOR but a colour was set");
            }
        }
    }
}

#[test]
fn whole_frames() {
    let cases = [
        ("bench", sample::bench()),
        ("bench_warnings", sample::bench_warnings()),
        ("bench_paced", sample::bench_paced()),
        ("bench_trim", sample::bench_trim()),
        ("bench_verify", sample::bench_verify()),
        ("monitor", sample::monitor()),
        ("show", sample::show()),
        ("bench_no_device", sample::bench_no_device()),
        ("bench_traced", sample::bench_traced()),
    ];
    for (name, view) in &cases {
        for (w, h) in [(80, 24), (160, 50)] {
            let term = frame(view, w, h);
            check_cells(term.backend().buffer(), true);
            insta::assert_snapshot!(format!("frame_{name}_{w}x{h}"), term.backend());
        }
    }
}

fn text(term: &Terminal<TestBackend>) -> String {
    let buf = term.backend().buffer();
    let width = usize::from(buf.area.width.max(1));
    buf.content
        .chunks(width)
        .map(|row| {
            row.iter()
                .map(ratatui::buffer::Cell::symbol)
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `--trace`: at both sizes the band names its disk and window, takes the app's mean apart
/// with the CPU wait measured and `unexplained` the rest, and puts the device's and the whole
/// request's percentiles beside the app's; the device panel keeps its metrics.
#[test]
fn the_trace_band_takes_the_mean_apart_at_both_sizes() {
    let view = sample::bench_traced();
    for (w, h) in [(80, 24), (160, 50)] {
        let screen = text(&frame(&view, w, h));
        let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        for want in [
            "loop0, last 1s: mean: app 3.6",
            "= device 37",
            "+ waiting for a CPU 2.10 ms",
            "+ unexplained ",
            "p50 p99 p99.9, last 1s:",
            "app 3.",
            "device 3",
            "whole 3",
            "r/s",
            "%util",
        ] {
            assert!(flat.contains(want), "no {want:?} at {w}x{h}:\n{screen}");
        }
    }
}

/// Steady state: the line under the header says the criterion, the window, the value against
/// the limit and the state at both sizes; the sustained-write chart and its cliff at 160x50.
#[test]
fn steady_state_and_the_write_cliff() {
    for keep_going in [false, true] {
        let view = sample::bench_steady(keep_going);
        for (w, h) in [(80, 24), (160, 50)] {
            let term = frame(&view, w, h);
            let screen = text(&term);
            let want = match (keep_going, w) {
                (true, 80) => "ss iops_slope:1%/10s 1.12% >= 1.00% LEFT x2 since 35.0s",
                (true, _) => {
                    "steady state iops_slope:1% over 10s  now 1.12% >= 1.00%  LEFT: 2 samples \
                     out since attained at 35.0s"
                }
                (false, 80) => "ss iops_slope:1%/10s 0.95% < 1.00% ATTAINED 35.0s, stopping",
                (false, _) => {
                    "steady state iops_slope:1% over 10s  now 0.95% < 1.00%  ATTAINED at 35.0s, \
                     stopping"
                }
            };
            let row = screen.lines().nth(2).unwrap_or_default();
            assert!(row.contains(want), "{w}x{h}: {row}\n{screen}");
            if w == 160 {
                assert!(
                    screen.contains("sustained writes: MiB/s against GiB written, cliff at 6.01 GiB: 1.20 GiB/s -> 217 MiB/s"),
                    "{screen}"
                );
            }
            check_cells(term.backend().buffer(), true);
            let name = if keep_going { "left" } else { "attained" };
            insta::assert_snapshot!(format!("frame_bench_steady_{name}_{w}x{h}"), term.backend());
        }
    }
}

/// After a stop the device panel's numbers are the step's last interval and the table's are
/// now; another disk picked in the table takes the device panel, the reconciliation stays the
/// target's. Each says which it is.
#[test]
fn frames_say_what_window_each_number_covers() {
    for (w, h) in [(80, 24), (160, 50)] {
        let term = frame(&sample::bench_stopped(), w, h);
        let screen = text(&term);
        assert!(
            screen.contains("device vda (iostat -x) last 1s of seg 2, stopped"),
            "{screen}"
        );
        assert!(
            screen.contains("seg 2 (30s): app 1,462,118 I/Os"),
            "{screen}"
        );
        if w == 160 {
            assert!(screen.contains("disks, sorted by %util descending, now: last 1s"));
        }
        check_cells(term.backend().buffer(), true);
        insta::assert_snapshot!(format!("frame_bench_stopped_{w}x{h}"), term.backend());

        let term = frame(&sample::bench_other_disk(), w, h);
        let screen = text(&term);
        assert!(
            screen.contains("device vdb (iostat -x) now, last 1s"),
            "{screen}"
        );
        assert!(screen.contains("target vda, seg 1 (30s): app"), "{screen}");
        check_cells(term.backend().buffer(), true);
        insta::assert_snapshot!(format!("frame_bench_other_disk_{w}x{h}"), term.backend());
    }
}

/// At 80x24 and 160x50 nothing is cut with `~`: the header keeps the target and its disk two
/// columns from the state, the footer's message is whole, the reconciliation verdict and the
/// scheduler list wrap, notes and warnings wrap in the device panel.
/// After the process or the machine was frozen, the latest sample's window is far longer than
/// the interval: the titles that said "last 1s" say its real length and a stall mark.
#[test]
fn a_frozen_window_is_labelled_with_its_length_and_a_stall_mark() {
    let mut view = sample::bench_other_disk();
    assert_eq!(
        view.header.interval,
        Some(std::time::Duration::from_secs(1))
    );
    // A window 20% long is jitter, not a stall.
    view.header.window = Some(std::time::Duration::from_millis(1200));
    let screen = text(&frame(&view, 160, 50));
    assert!(
        screen.contains("device vdb (iostat -x) now, last 1s "),
        "{screen}"
    );
    assert!(screen.contains("now: last 1s "), "{screen}");
    assert!(!screen.contains("STALLED"), "{screen}");
    view.header.window = Some(std::time::Duration::from_millis(20_300));
    for (w, h) in [(80, 24), (160, 50)] {
        let term = frame(&view, w, h);
        let screen = text(&term);
        assert!(
            screen.contains("device vdb (iostat -x) now, last 20.3s, STALLED"),
            "{screen}"
        );
        if w == 160 {
            assert!(
                screen.contains("disks, sorted by %util descending, now: last 20.3s, STALLED"),
                "{screen}"
            );
        }
        check_cells(term.backend().buffer(), true);
    }
}

#[test]
fn nothing_important_is_cut() {
    let views = [
        ("bench", sample::bench()),
        ("bench_stopped", sample::bench_stopped()),
        ("bench_other_disk", sample::bench_other_disk()),
        ("monitor", sample::monitor()),
        ("show", sample::show()),
    ];
    for (name, view) in &views {
        for (w, h) in [(80, 24), (160, 50)] {
            let screen = text(&frame(view, w, h));
            assert!(!screen.contains('~'), "{name} {w}x{h}:\n{screen}");
            let top = screen.lines().next().unwrap_or("");
            if let Some(target) = &view.header.target {
                assert!(top.contains(&format!("{target} (vda)  ")), "{top}");
            }
            if let Some(message) = &view.ui.message {
                assert!(
                    screen.contains(message.as_str()),
                    "{name} {w}x{h}:\n{screen}"
                );
            }
            if w == 160
                && view
                    .device
                    .as_ref()
                    .is_some_and(|d| d.reconciliation.is_some())
            {
                assert!(screen.contains("match: vda completed every I/O of the run, once"));
            }
        }
    }
    let screen = text(&frame(&sample::bench(), 80, 24));
    assert!(
        screen.contains("! wrote the 256M working set with data first"),
        "{screen}"
    );
}

#[test]
fn help_overlay() {
    let mut view = sample::bench();
    view.ui.help = true;
    insta::assert_snapshot!(frame(&view, 80, 24).backend());
    let mut view = sample::monitor();
    view.ui.help = true;
    insta::assert_snapshot!("help_monitor", frame(&view, 80, 24).backend());
}

#[test]
fn header_panel() {
    let view = sample::bench();
    insta::assert_snapshot!(panel(&view, 110, 2, super::header::render).backend());
    let failed = sample::bench_warnings();
    insta::assert_snapshot!(
        "header_failed",
        panel(&failed, 110, 2, super::header::render).backend()
    );
    let monitor = sample::monitor();
    insta::assert_snapshot!(
        "header_monitor",
        panel(&monitor, 80, 2, super::header::render).backend()
    );
}

#[test]
fn throughput_panel() {
    let mut view = sample::bench();
    insta::assert_snapshot!(
        "throughput_tall",
        panel(&view, 80, 18, super::throughput::render).backend()
    );
    insta::assert_snapshot!(
        "throughput_wide",
        panel(&view, 110, 10, super::throughput::render).backend()
    );
    view.ui.log_scale = true;
    insta::assert_snapshot!(
        "throughput_small_log",
        panel(&view, 60, 9, super::throughput::render).backend()
    );
}

#[test]
fn latency_panel() {
    let mut view = sample::bench();
    insta::assert_snapshot!(
        "latency_wide",
        panel(&view, 80, 14, super::latency::render).backend()
    );
    insta::assert_snapshot!(
        "latency_narrow",
        panel(&view, 40, 18, super::latency::render).backend()
    );
    let mut recorded = sample::show();
    if let Some(lat) = &mut recorded.latency {
        lat.buckets.clear();
    }
    insta::assert_snapshot!(
        "latency_percentiles_only",
        panel(&recorded, 80, 10, super::latency::render).backend()
    );
    view.ui.log_scale = true;
    if let Some(lat) = &mut view.latency {
        lat.rows.push(crate::tui::view::LatencyRow {
            dir: crate::tui::view::Direction::Write,
            interval: None,
            total: lat.rows[0].total,
            from_schedule: false,
        });
    }
    insta::assert_snapshot!(
        "latency_mixed_log",
        panel(&view, 90, 12, super::latency::render).backend()
    );
    // Reads and writes in the half of an 80-column screen: one span per direction.
    insta::assert_snapshot!(
        "latency_mixed_narrow",
        panel(&view, 38, 16, super::latency::render).backend()
    );
}

#[test]
fn device_panel() {
    let view = sample::bench();
    insta::assert_snapshot!(
        "device_tall",
        panel(&view, 80, 12, super::device::render).backend()
    );
    insta::assert_snapshot!(
        "device_compact",
        panel(&view, 80, 8, super::device::render).backend()
    );
    let none = sample::bench_no_device();
    insta::assert_snapshot!(
        "device_absent",
        panel(&none, 80, 6, super::device::render).backend()
    );
    let warn = sample::bench_warnings();
    insta::assert_snapshot!(
        "device_warnings",
        panel(&warn, 90, 11, super::device::render).backend()
    );
}

#[test]
fn queue_and_table_panels() {
    let view = sample::bench();
    insta::assert_snapshot!(
        "queue",
        panel(&view, 40, 11, super::queue::render).backend()
    );
    insta::assert_snapshot!(
        "table_wide",
        panel(&view, 110, 7, super::table::render).backend()
    );
    let monitor = sample::monitor();
    insta::assert_snapshot!(
        "table_narrow_focused",
        panel(&monitor, 50, 7, super::table::render).backend()
    );
    let warn = sample::bench_warnings();
    insta::assert_snapshot!(
        "table_vanished",
        panel(&warn, 80, 7, super::table::render).backend()
    );
}

#[test]
fn footer_panel() {
    let view = sample::bench();
    insta::assert_snapshot!(
        "footer_bench",
        panel(&view, 100, 1, super::footer::render).backend()
    );
    insta::assert_snapshot!(
        "footer_narrow",
        panel(&view, 40, 1, super::footer::render).backend()
    );
}

/// After the run has ended the footer lists only the keys that still do something.
#[test]
fn an_ended_run_s_footer_lists_only_the_keys_that_still_work() {
    use crate::tui::view::RunState;
    let text = |view: &View| {
        let term = panel(view, 160, 1, super::footer::render);
        let buf = term.backend().buffer();
        buf.content.iter().map(|c| c.symbol()).collect::<String>()
    };
    let mut view = sample::bench();
    assert!(text(&view).contains("space pause"), "{}", text(&view));
    for state in [
        RunState::Finished,
        RunState::Interrupted,
        RunState::Failed("EIO".into()),
    ] {
        view.header.state = Some(state);
        view.ui.message = Some("the run has ended: q quits".into());
        let footer = text(&view);
        assert!(footer.contains("q quit"), "{footer}");
        assert!(footer.contains("l log"), "{footer}");
        assert!(footer.contains("the run has ended: q quits"), "{footer}");
        for gone in [
            "space pause",
            "s stop",
            "+/- iodepth",
            "]/[ jobs",
            "b/B bs",
            "m rw",
        ] {
            assert!(!footer.contains(gone), "{gone} in {footer}");
        }
    }
}

#[test]
fn tiny_frames() {
    insta::assert_snapshot!("tiny_20x5", frame(&sample::bench(), 20, 5).backend());
    insta::assert_snapshot!("tiny_1x1", frame(&sample::bench(), 1, 1).backend());
}

#[test]
fn no_size_panics_and_every_cell_is_allowed() {
    let mut views = vec![
        sample::bench(),
        sample::bench_warnings(),
        sample::monitor(),
        sample::show(),
    ];
    let mut help = sample::bench();
    help.ui.help = true;
    views.push(help);
    let mut empty = sample::bench();
    empty.throughput = Some(crate::tui::view::ThroughputView::default());
    empty.latency = Some(crate::tui::view::LatencyView::default());
    empty.disks = Some(crate::tui::view::DiskTableView::default());
    views.push(empty);
    views.push(sample::fleet(None));
    views.push(sample::fleet(Some(2)));
    let mut fleet_help = sample::fleet(None);
    fleet_help.ui.help = true;
    views.push(fleet_help);
    // A fleet before any host has said anything.
    let names = ["a-host-with-a-long-name".to_string(), "b".to_string()];
    views.push(crate::tui::view::from_fleet::view(
        &crate::fleet::live::LiveFleet::new(&names, &["bench".into()], None),
        None,
        crate::tui::view::UiState::default(),
        std::time::Duration::ZERO,
    ));
    for view in &views {
        for w in (0..=70).step_by(3).chain([1, 2, 80, 120, 200, 300]) {
            for h in (0..=30).step_by(2).chain([1, 3, 24, 50, 90]) {
                let term = frame(view, w, h);
                check_cells(term.backend().buffer(), true);
            }
        }
    }
}

#[test]
fn no_color_sets_no_colour() {
    for mut view in [sample::bench(), sample::bench_warnings(), sample::monitor()] {
        view.ui.color = false;
        view.ui.help = true;
        for (w, h) in [(80, 24), (160, 50)] {
            check_cells(frame(&view, w, h).backend().buffer(), false);
        }
    }
}

/// A step of four jobs: the jobs table with the step total, step 1/3 in the header, both disks
/// in the device panel; the charts show the step total until a job is picked.
#[test]
fn a_step_of_four_jobs() {
    let view = sample::plan(None);
    for (w, h) in [(80, 24), (160, 50)] {
        let term = frame(&view, w, h);
        check_cells(term.backend().buffer(), true);
        let screen = text(&term);
        for name in ["write128", "randread128", "write256", "randread256"] {
            assert!(screen.contains(&format!(" {name} ")), "{screen}");
        }
        assert!(screen.contains(">step total"), "{screen}");
        assert!(screen.contains("RUNNING step 1/3"), "{screen}");
        assert!(screen.contains("step total: latency"), "{screen}");
        assert!(
            screen.contains("step total: throughput and IOPS"),
            "{screen}"
        );
        assert!(!screen.contains('~'), "{w}x{h}:\n{screen}");
        // The device panel at both sizes, as bench's: each disk's throughput and %util.
        assert!(
            screen.contains("devices (iostat -x) now, last 1s"),
            "{w}x{h}:\n{screen}"
        );
        for column in ["r/s", "w/s", "rMiB/s", "wMiB/s", "%util"] {
            assert!(screen.contains(column), "no {column} at {w}x{h}:\n{screen}");
        }
        assert!(screen.lines().any(|l| l.contains("│vdb ")), "{screen}");
        insta::assert_snapshot!(format!("frame_plan_{w}x{h}"), term.backend());
    }
}

/// `tab` walks the jobs then the step total; the highlight, the chart's and the latency
/// panel's titles follow; the arrows stop at the ends.
#[test]
fn tab_and_arrows_pick_the_job_the_charts_show() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use crate::tui::app::{Action, App};
    use crate::tui::view::Mode;

    let snap = sample::plan::snapshot();
    let mut app = App::new(Mode::Bench, true);
    app.set_jobs(snap.jobs.iter().map(|j| j.name.as_str()));
    let screen_of = |app: &App| {
        let selected = crate::tui::view::from_snapshot::job_index(&snap, app.job.as_deref());
        text(&frame(&sample::plan::view(&snap, selected), 80, 24))
    };
    let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
    let names = ["write128", "randread128", "write256", "randread256"];
    for name in names {
        assert_eq!(app.on_key(key(KeyCode::Tab), &[]), Action::Redraw);
        let screen = screen_of(&app);
        assert!(screen.contains(&format!(">{name} ")), "{screen}");
        assert!(screen.contains(&format!("{name}: latency")), "{screen}");
        assert!(
            screen.contains(&format!("{name}: throughput and IOPS")),
            "{screen}"
        );
    }
    app.on_key(key(KeyCode::Tab), &[]);
    assert_eq!(app.job, None);
    assert!(screen_of(&app).contains(">step total"));
    app.on_key(key(KeyCode::BackTab), &[]);
    assert_eq!(app.job.as_deref(), Some("randread256"));
    app.on_key(key(KeyCode::Up), &[]);
    app.on_key(key(KeyCode::Up), &[]);
    let screen = screen_of(&app);
    assert!(screen.contains(">randread128 "), "{screen}");
    assert!(screen.contains("randread128: latency"), "{screen}");
    for _ in 0..3 {
        app.on_key(key(KeyCode::Up), &[]);
    }
    assert_eq!(app.job.as_deref(), Some("write128"));
    assert_eq!(app.on_key(key(KeyCode::Up), &[]), Action::None);
    for _ in 0..6 {
        app.on_key(key(KeyCode::Down), &[]);
    }
    assert_eq!(app.job, None);
    insta::assert_snapshot!(
        "frame_plan_randread128_80x24",
        frame(&sample::plan(Some(1)), 80, 24).backend()
    );
}

/// A fleet of three hosts, one failed: a row per host over the same interval with its state,
/// the failed host's error and no numbers, the fleet row (selected first) with the hosts'
/// rates summed; the charts show the fleet until a host is picked.
#[test]
fn a_fleet_of_three_hosts_one_failed() {
    let view = sample::fleet(None);
    for (w, h) in [(80, 24), (160, 50)] {
        let term = frame(&view, w, h);
        check_cells(term.backend().buffer(), true);
        let screen = text(&term);
        assert!(screen.contains("fleet of 3 hosts"), "{screen}");
        assert!(screen.contains("RUNNING"), "{screen}");
        assert!(screen.contains("interval 30"), "{screen}");
        for line in ["db-01 running", "db-02 running", "db-03 failed"] {
            assert!(screen.contains(line), "{line}:\n{screen}");
        }
        let failed = screen.lines().find(|l| l.contains("db-03 failed")).unwrap();
        assert!(failed.contains("dropped mid-run"), "{failed}");
        assert!(screen.contains(">fleet 2 of 3"), "{screen}");
        assert!(screen.contains("fleet: throughput and IOPS"), "{screen}");
        assert!(screen.contains("fleet: latency"), "{screen}");
        if w == 160 {
            // The whole error where there is room (at 80 columns it is cut).
            assert!(failed.contains("closed by remote host."), "{failed}");
            assert!(!screen.contains('~'), "{w}x{h}:\n{screen}");
        }
        insta::assert_snapshot!(format!("frame_fleet_{w}x{h}"), term.backend());
    }
}

/// The fleet's help names its keys and leaves out those of the disks table it does not have.
#[test]
fn the_fleet_help_names_its_keys() {
    let mut view = sample::fleet(None);
    view.ui.help = true;
    let screen = text(&frame(&view, 80, 24));
    assert!(
        screen.contains("tab, S-tab next / previous host, then the fleet"),
        "{screen}"
    );
    assert!(
        screen.contains("q, Ctrl-C  stop every host, record, quit"),
        "{screen}"
    );
    assert!(!screen.contains("sort column"), "{screen}");
    assert!(!screen.contains("select a disk"), "{screen}");
}

/// `tab` walks the hosts then the fleet; the charts' titles follow.
#[test]
fn tab_picks_the_host_the_fleet_charts_show() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use crate::tui::app::{Action, App};
    use crate::tui::view::Mode;

    let live = sample::fleet::live();
    let mut app = App::new(Mode::Fleet, true);
    app.set_jobs(live.hosts.iter().map(|h| h.name.as_str()));
    let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
    for (i, name) in ["db-01", "db-02", "db-03"].iter().enumerate() {
        assert_eq!(app.on_key(key(KeyCode::Tab), &[]), Action::Redraw);
        assert_eq!(app.job.as_deref(), Some(*name));
        let screen = text(&frame(&sample::fleet(Some(i)), 80, 24));
        assert!(screen.contains(&format!(">{name} ")), "{screen}");
        assert!(
            screen.contains(&format!("{name}: throughput and IOPS")),
            "{screen}"
        );
        assert!(screen.contains(&format!("{name}: latency")), "{screen}");
    }
    app.on_key(key(KeyCode::Tab), &[]);
    assert_eq!(app.job, None);
    assert_eq!(
        app.on_key(key(KeyCode::Char('+')), &[]),
        Action::None,
        "no live changes"
    );
}

/// A size-based step says how far it is and when it ends at the rate so far, not a time left.
#[test]
fn a_size_based_step_shows_its_progress() {
    let mut snap = sample::plan::snapshot();
    // 43% in 30 s: the rest at that rate takes about 40 s.
    snap.plan.bytes = Some((430 << 20, 1000 << 20));
    let view = sample::plan::view(&snap, None);
    let screen = text(&panel(&view, 110, 2, super::header::render));
    assert!(
        screen.contains("elapsed 30s  size-based: 43% (ETA 39s)"),
        "{screen}"
    );
    assert!(!screen.contains("remaining"), "{screen}");
    let screen = text(&frame(&view, 80, 24));
    assert!(screen.contains("size-based: 43% (ETA 39s)"), "{screen}");
}

/// A block-size sweep, five points finished and the sixth running: the plan line, a row per
/// point (the running one highlighted, the one cut short marked), the running point's
/// throughput; at 160x50 the chart of MB/s against the block size and the device panel too.
#[test]
fn a_sweep_fills_its_results_in() {
    let view = sample::sweep();
    for (w, h) in [(80, 24), (160, 50)] {
        let term = frame(&view, w, h);
        check_cells(term.backend().buffer(), true);
        let screen = text(&term);
        assert!(
            screen.contains("sweep: point 6 of 8  elapsed 2m33s  ETA 1m22s"),
            "{screen}"
        );
        assert!(screen.contains("RUNNING step 6/8"), "{screen}");
        assert!(screen.contains("throughput and IOPS"), "{screen}");
        for row in [
            "  write 1M      -    393       -   412.0",
            "! write 8M      -     57",
            "  read  1M    570      -   598.0",
            "> read  2M    315      -   660.6",
        ] {
            assert!(screen.contains(row), "{row:?} in {w}x{h}:\n{screen}");
        }
        assert!(
            screen
                .lines()
                .any(|l| l.trim_end_matches(['│', ' ']).ends_with("read  8M"))
        );
        assert!(screen.contains("n next point"), "{screen}");
        assert!(!screen.contains("+/- iodepth"), "{screen}");
        assert!(!screen.contains('~'), "{w}x{h}:\n{screen}");
        if w == 160 {
            assert!(screen.contains("sweep: MB/s against bs"), "{screen}");
            assert!(screen.contains("-- rw=write  -- rw=read"), "{screen}");
            assert!(screen.contains("%util aqu-sz"), "{screen}");
            assert!(screen.contains("device vda"), "{screen}");
        } else {
            assert!(!screen.contains("against bs"), "{screen}");
        }
        insta::assert_snapshot!(format!("frame_sweep_{w}x{h}"), term.backend());
    }
}

/// `diskdash mark` is a plan of points too: its tests fill the same results panel, a row per
/// test named as CrystalDiskMark names them, the running one highlighted; at 160x50 the chart
/// of MB/s against the test, a line per measure.
#[test]
fn a_mark_fills_its_tests_in_as_a_sweep_does() {
    let view = sample::mark::view(&sample::mark::snapshot());
    for (w, h) in [(80, 24), (160, 50)] {
        let term = frame(&view, w, h);
        check_cells(term.backend().buffer(), true);
        let screen = text(&term);
        assert!(screen.contains("mark: test 6 of 8"), "{screen}");
        assert!(screen.contains("measure test"), "{screen}");
        for row in [
            "  read    SEQ1M Q8T1   3.25k      -  3412.0",
            "  read    RND4K Q1T1   14.2k      -    58.3",
            "  write   SEQ1M Q8T1       -  2.74k       -  2870.0",
            "> write   SEQ1M Q1T1",
        ] {
            assert!(screen.contains(row), "{row:?} in {w}x{h}:\n{screen}");
        }
        assert!(
            screen.lines().any(|l| l
                .trim_end_matches(['│', ' '])
                .ends_with("write   RND4K Q1T1")),
            "{screen}"
        );
        assert!(screen.contains("n next point"), "{screen}");
        if w == 160 {
            assert!(screen.contains("MB/s against test"), "{screen}");
            assert!(
                screen.contains("-- measure=read  -- measure=write"),
                "{screen}"
            );
        }
        insta::assert_snapshot!(format!("frame_mark_{w}x{h}"), term.backend());
    }
}

/// The running point's row is the highlighted one, pending points are dimmed, finished ones
/// plain; with `NO_COLOR` too.
#[test]
fn the_running_point_is_highlighted() {
    use ratatui::style::Modifier;

    for color in [true, false] {
        let mut view = sample::sweep();
        view.ui.color = color;
        let term = frame(&view, 80, 24);
        let buf = term.backend().buffer();
        let screen = text(&term);
        let row_of = |needle: &str| {
            screen
                .lines()
                .position(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("{needle:?} not in\n{screen}"))
        };
        // A cell inside the row's parameters (`rw` column).
        let cell = |y: usize| &buf[(3, u16::try_from(y).unwrap_or(0))];
        let running = cell(row_of("> read  2M"));
        assert!(running.modifier.contains(Modifier::REVERSED), "{running:?}");
        for done in ["  write 1M", "! write 8M", "  read  1M"] {
            let c = cell(row_of(done));
            assert!(!c.modifier.contains(Modifier::REVERSED), "{done}: {c:?}");
            assert_ne!(c.fg, Color::DarkGray, "{done}");
        }
        let pending = cell(row_of("  read  4M"));
        assert!(!pending.modifier.contains(Modifier::REVERSED));
        if color {
            assert_eq!(pending.fg, Color::DarkGray);
        } else {
            assert!(pending.modifier.contains(Modifier::DIM));
        }
        check_cells(buf, color);
    }
}

/// `v` walks the chart through IOPS, mean latency (with the p99), p99 and back to MB/s.
#[test]
fn v_cycles_the_sweep_chart() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use crate::tui::app::{Action, App};
    use crate::tui::view::Mode;

    let snap = sample::sweep::snapshot();
    let mut app = App::new(Mode::Bench, true);
    app.sweep = true;
    let v = KeyEvent::new(KeyCode::Char('v'), KeyModifiers::NONE);
    let expected = [
        ("sweep: IOPS against bs", "627"),
        (
            "sweep: mean latency (and p99) against bs",
            "(upper line: p99)",
        ),
        ("sweep: p99 latency against bs", "ms"),
        ("sweep: MB/s against bs", "MB/s"),
    ];
    for (title, label) in expected {
        assert_eq!(app.on_key(v, &[]), Action::Redraw);
        let view = sample::sweep::view(&snap, app.ui.sweep_metric);
        let term = frame(&view, 160, 50);
        let screen = text(&term);
        let chart: Vec<&str> = screen
            .lines()
            .skip_while(|l| !l.contains(title))
            .take(16)
            .collect();
        assert!(!chart.is_empty(), "{title:?} not in\n{screen}");
        assert!(
            chart.iter().any(|l| l.contains(label)),
            "{label:?}: {chart:#?}"
        );
        check_cells(term.backend().buffer(), true);
    }
    let mut view = sample::sweep::view(&snap, crate::tui::view::SweepMetric::Bandwidth);
    view.ui.log_scale = true;
    let screen = text(&frame(&view, 160, 50));
    assert!(screen.contains("sweep: MB/s against bs, log"), "{screen}");
    insta::assert_snapshot!(
        "sweep_chart_latency",
        panel(
            &sample::sweep::view(&snap, crate::tui::view::SweepMetric::MeanLatency),
            90,
            16,
            super::sweep_chart::render
        )
        .backend()
    );
}

/// Narrow, the results drop columns by importance: the rates and the p99 stay longest.
#[test]
fn the_results_table_drops_columns_when_narrow() {
    let view = sample::sweep();
    let screen = text(&panel(&view, 60, 12, super::sweep::render));
    assert!(
        screen.contains("rIOPS  wIOPS   rMB/s   wMB/s   r p99   w p99"),
        "{screen}"
    );
    let header = screen.lines().nth(1).unwrap_or_default();
    assert!(!header.contains("%util"), "{screen}");
    assert!(!header.contains("MiB/s"), "{screen}");
    assert!(
        screen.contains("+6 columns: rMiB/s wMiB/s r mean w mean %util aqu-sz"),
        "{screen}"
    );
    let screen = text(&panel(&view, 40, 12, super::sweep::render));
    assert!(screen.contains("> read  2M"), "{screen}");
}

/// In a sweep the help lists `n` and `v`, not the live changes a sweep refuses.
#[test]
fn the_help_of_a_sweep() {
    let mut view = sample::sweep();
    view.ui.help = true;
    let screen = text(&frame(&view, 80, 24));
    assert!(
        screen.contains("end this point, go on with the next"),
        "{screen}"
    );
    assert!(
        screen.contains("chart: MB/s, IOPS, mean latency, p99"),
        "{screen}"
    );
    assert!(!screen.contains("iodepth up / down"), "{screen}");
    assert!(
        screen.contains("stop the sweep, keep what finished"),
        "{screen}"
    );
}

/// Once over, the numbers above the charts are the last step's totals: the title says so
/// where the run had several steps (the summary's figure is the whole run's).
#[test]
fn the_finished_headline_names_the_step_it_shows() {
    let mut view = sample::bench();
    view.header.state = Some(crate::tui::view::RunState::Finished);
    if let Some(tp) = &mut view.throughput {
        tp.headline = tp.points.last().copied();
    }
    let title = |view: &View| {
        let term = panel(view, 110, 10, super::throughput::render);
        text(&term).lines().next().unwrap_or_default().to_string()
    };
    view.header.record_step = Some((1, 1));
    assert!(
        title(&view).contains("throughput and IOPS, totals "),
        "{}",
        title(&view)
    );
    view.header.record_step = Some((3, 3));
    assert!(
        title(&view).contains("throughput and IOPS, seg 3 totals "),
        "{}",
        title(&view)
    );
    view.header.state = Some(crate::tui::view::RunState::Running);
    assert!(!title(&view).contains("totals"), "{}", title(&view));
}
