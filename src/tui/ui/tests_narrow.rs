//! An SSH session's default terminal, 80x24: the sweep's results keep their key columns, say
//! which they left out and scroll to every point; mark keeps both directions' p99; the
//! monitor's throughput chart keeps rows enough to read.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

use super::sample;
use crate::tui::view::View;
use crate::tui::view::sweep::{PointState, SweepRow};

fn screen(view: &View, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    term.draw(|f| super::render(f, view)).expect("draw");
    let buf = term.backend().buffer();
    buf.content
        .chunks(usize::from(w))
        .map(|row| row.iter().map(ratatui::buffer::Cell::symbol).collect())
        .collect::<Vec<String>>()
        .join("\n")
}

/// The sample sweep with two more points (`read 16M`, `read 32M`, pending): ten rows.
fn ten_points() -> View {
    let mut view = sample::sweep();
    let sweep = view.sweep.as_mut().expect("a sweep");
    for bs in ["16M", "32M"] {
        sweep.rows.push(SweepRow {
            values: vec!["read".into(), bs.into()],
            state: PointState::Pending,
            read: None,
            write: None,
            util_pct: None,
            aqu_sz: None,
            notes: Vec::new(),
        });
    }
    sweep.point.1 = 10;
    view
}

/// The results panel's header line (it starts with the swept parameters).
fn results_header(screen: &str) -> &str {
    screen
        .lines()
        .find(|l| l.contains(" rw ") && l.contains("bs"))
        .unwrap_or_default()
}

/// The rows of the results panel on screen, by their parameters (`write 1M`).
fn rows_on(screen: &str) -> Vec<String> {
    screen
        .lines()
        .filter_map(|l| {
            let body = l.trim_start_matches('│').get(1..)?;
            let mut words = body.split_whitespace();
            let (rw, bs) = (words.next()?, words.next()?);
            (["read", "write"].contains(&rw) && bs.ends_with('M')).then(|| format!("{rw} {bs}"))
        })
        .collect()
}

#[test]
fn sweep_results_at_80x24_keep_the_key_columns_and_name_the_rest() {
    let view = ten_points();
    let screen = screen(&view, 80, 24);
    let header = results_header(&screen);
    for kept in [
        "rIOPS", "wIOPS", "rMB/s", "wMB/s", "r p99", "w p99", "%util", "aqu-sz",
    ] {
        assert!(header.contains(kept), "{kept} in {header:?}:\n{screen}");
    }
    for left in ["rMiB/s", "wMiB/s", "r mean", "w mean"] {
        assert!(!header.contains(left), "{left} in {header:?}");
    }
    assert!(
        screen.contains("+4 columns: rMiB/s wMiB/s r mean w mean"),
        "{screen}"
    );
    insta::assert_snapshot!("narrow_sweep_80x24", screen);
}

#[test]
fn sweep_results_at_80x24_scroll_to_every_point() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use crate::tui::app::{Action, App};
    use crate::tui::view::Mode;

    let mut view = ten_points();
    let all: Vec<String> = view
        .sweep
        .as_ref()
        .map(|s| s.rows.iter().map(|r| r.values.join(" ")).collect())
        .unwrap_or_default();
    assert_eq!(all.len(), 10);
    let first = screen(&view, 80, 24);
    let shown = rows_on(&first);
    assert!(shown.len() < 10, "all ten fit: nothing to scroll\n{first}");
    // The running point (the sixth) is in view, and the border says which rows are.
    assert!(shown.contains(&"read 2M".to_string()), "{first}");
    assert!(first.contains(" of 10: PgUp/PgDn"), "{first}");

    let mut app = App::new(Mode::Bench, true);
    app.sweep = true;
    app.sweep_points = 10;
    let mut seen: Vec<String> = shown;
    for code in [
        KeyCode::Home,
        KeyCode::PageDown,
        KeyCode::PageDown,
        KeyCode::PageDown,
    ] {
        let key = KeyEvent::new(code, KeyModifiers::NONE);
        let action = app.on_key(key, &[]);
        view.ui = app.ui.clone();
        let now = screen(&view, 80, 24);
        if action == Action::Redraw {
            seen.extend(rows_on(&now));
        }
        if code == KeyCode::Home {
            assert_eq!(
                rows_on(&now).first().map(String::as_str),
                Some("write 1M"),
                "{now}"
            );
            assert!(now.contains("rows 1-"), "{now}");
        }
    }
    let last = screen(&view, 80, 24);
    assert_eq!(
        rows_on(&last).last().map(String::as_str),
        Some("read 32M"),
        "{last}"
    );
    for row in &all {
        assert!(seen.contains(row), "{row} never on screen");
    }
    // End follows the running point again.
    app.on_key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE), &[]);
    assert_eq!(app.ui.sweep_scroll, 0);
    // The footer names the keys.
    assert!(first.contains("PgUp/PgDn rows"), "{first}");
}

#[test]
fn mark_at_80x24_keeps_both_directions_p99() {
    let view = sample::mark::view(&sample::mark::snapshot());
    let screen = screen(&view, 80, 24);
    let header = screen
        .lines()
        .find(|l| l.contains("measure") && l.contains("test"))
        .unwrap_or_default();
    for kept in ["rIOPS", "wIOPS", "rMB/s", "wMB/s", "r p99", "w p99"] {
        assert!(header.contains(kept), "{kept} in {header:?}:\n{screen}");
    }
    assert!(screen.contains("columns:"), "{screen}");
}

#[test]
fn the_monitors_throughput_chart_keeps_rows_to_read_at_80x24() {
    let view = sample::monitor();
    let plan = super::layout::plan(Rect::new(0, 0, 80, 24), &view);
    let chart = plan.throughput.expect("the throughput chart at 80x24");
    assert!(chart.height >= 8, "{chart:?}");
    assert!(plan.table.is_some() && plan.device.is_some(), "{plan:?}");
}

/// Two notes, one holding a comma, as a sweep words its capped batching values.
const CAPPED: &str = "iodepth_batch_complete_min 8 -> 1, iodepth_low 4 -> 1 at iodepth 1";
const OTHER: &str = "iodepth_batch 2 -> 1 at iodepth 1";

/// The sample sweep with notes in its plan: two on the first point (finished), one on the
/// last (pending), as a session publishes them.
fn with_notes() -> View {
    let mut snap = sample::sweep::snapshot();
    let mut notes = vec![Vec::new(); snap.plan_points.len()];
    notes[0] = vec![CAPPED.to_string(), OTHER.to_string()];
    let last = notes.len() - 1;
    notes[last] = vec![OTHER.to_string()];
    snap.plan_notes = std::sync::Arc::new(notes);
    sample::sweep::view(&snap, crate::tui::view::SweepMetric::Bandwidth)
}

/// The line of the results panel whose point is `rw bs`.
fn row_of<'a>(screen: &'a str, point: &str) -> &'a str {
    let (rw, bs) = point.split_once(' ').unwrap();
    screen
        .lines()
        .find(|l| {
            let mut words = l
                .trim_start_matches('│')
                .get(1..)
                .unwrap_or_default()
                .split_whitespace();
            words.next() == Some(rw) && words.next() == Some(bs)
        })
        .unwrap_or_else(|| panic!("no row {point}:\n{screen}"))
}

#[test]
fn a_points_notes_end_its_row_in_full_where_the_panel_is_wide() {
    let view = with_notes();
    let screen = screen(&view, 240, 50);
    assert!(results_header(&screen).contains(" notes"), "{screen}");
    let first = row_of(&screen, "write 1M");
    assert!(
        first
            .trim_end_matches('│')
            .trim_end()
            .ends_with(&format!("{CAPPED}; {OTHER}")),
        "{first}"
    );
    // A pending point's notes are the plan's: shown before it runs.
    let last = row_of(&screen, "read 8M");
    assert!(
        last.trim_end_matches('│').trim_end().ends_with(OTHER),
        "{last}"
    );
    // A point without notes has none, and every number column still fits.
    assert!(!row_of(&screen, "write 2M").contains("iodepth"), "{screen}");
    assert!(!screen.contains("columns:"), "{screen}");
}

#[test]
fn a_points_notes_are_cut_with_an_ellipsis_where_the_panel_is_narrow() {
    let view = with_notes();
    let screen = screen(&view, 80, 24);
    let first = row_of(&screen, "write 1M");
    let body = first.trim_end_matches('│').trim_end();
    assert!(body.ends_with('…'), "{first}");
    let at = body
        .find("iodepth")
        .unwrap_or_else(|| panic!("no note in {first}"));
    let cut = body[at..].trim_end_matches('…');
    assert!(
        cut.len() >= 8 && CAPPED.starts_with(cut),
        "{cut:?} of {first}"
    );
    // The panel keeps its border: no line runs past the screen.
    assert!(screen.lines().all(|l| l.chars().count() == 80), "{screen}");
    assert!(first.ends_with('│'), "{first}");
    // The key columns stay.
    let header = results_header(&screen);
    for kept in ["rIOPS", "wIOPS", "rMB/s", "wMB/s", "r p99", "w p99"] {
        assert!(header.contains(kept), "{kept} in {header:?}:\n{screen}");
    }
}

/// The device panel of a discarding disk with two notes, in the rows an 80x24 frame gives it
/// and fewer: throughput and `%util` stay; the notes that do not fit are counted, never cut.
#[test]
fn the_device_panel_keeps_util_and_throughput_before_notes() {
    let mut view = sample::bench_trim();
    if let Some(dev) = &mut view.device {
        dev.warnings.push(crate::tui::view::Warning::new(
            crate::tui::view::WarningKind::UtilCaveat,
            "%util is not saturation here (non-rotational, 2 hw queues); watch aqu-sz and the \
             awaits instead",
        ));
    }
    let full = screen(&view, 80, 24);
    for label in [
        "r/s", "w/s", "d/s", "rMiB/s", "wMiB/s", "dMiB/s", "%util", "aqu-sz", "r_await",
    ] {
        assert!(full.contains(label), "{label}:\n{full}");
    }
    assert!(full.contains("! 2 more notes"), "{full}");
    assert!(!full.contains('~'), "{full}");
    for h in [6, 7, 8] {
        let mut term = Terminal::new(TestBackend::new(80, h)).expect("test backend");
        term.draw(|f| super::device::render(f, f.area(), &view))
            .expect("draw");
        let text: String = term
            .backend()
            .buffer()
            .content
            .iter()
            .map(ratatui::buffer::Cell::symbol)
            .collect();
        for label in ["w/s", "d/s", "rMiB/s", "wMiB/s", "dMiB/s", "%util"] {
            assert!(text.contains(label), "80x{h}: {label}:\n{text}");
        }
        assert!(!text.contains('~'), "80x{h}: {text}");
    }
}
