//! The verification line: one row, no border, under the header (below the steady-state line
//! when there is one).
//! ```text
//! verify crc32c  every block written carries a header and checksum; read back after the run
//! verify crc32c  reading back 4,096 of 8,192 written blocks  none failed
//! verify crc32c  8,192 blocks checked  3 FAILED, the first at offset 1048576 (0x100000)
//! verify crc32c 4,096/8,192 read back, 0 failed             (when the long form does not fit)
//! ```

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::fmt;
use super::theme::Theme;
use crate::tui::view::View;
use crate::tui::view::verify::VerifyLine;

pub fn render(f: &mut Frame, area: Rect, view: &View) {
    let Some(line) = &view.verify else {
        return;
    };
    let theme = Theme::new(view.ui.color);
    fmt::render_long_or_short(f, area, |short| spans(line, theme, short));
}

fn spans(line: &VerifyLine, theme: Theme, short: bool) -> Line<'static> {
    let gap = if short { " " } else { "  " };
    let mut out = vec![Span::styled("verify ", theme.label())];
    if let Some(job) = &line.job {
        out.push(Span::styled(format!("{job}: "), theme.label()));
    }
    out.push(Span::styled(format!("{}{gap}", line.kind), theme.value()));
    match line.pass {
        Some((done, total)) if !line.finished && done < total => {
            out.push(Span::raw(if short {
                format!("{}/{} read back", fmt::count(done), fmt::count(total))
            } else {
                format!(
                    "reading back {} of {} written blocks",
                    fmt::count(done),
                    fmt::count(total)
                )
            }));
        }
        _ if line.checked == 0 && line.writes && !line.finished => {
            out.push(Span::styled(
                if short {
                    "read back after the run"
                } else {
                    "every block written carries a header and checksum; read back after the run"
                },
                theme.dim(),
            ));
            return Line::from(out);
        }
        _ => out.push(Span::raw(format!(
            "{} {}",
            fmt::count(line.checked),
            if short { "checked" } else { "blocks checked" }
        ))),
    }
    out.push(Span::raw(if short { ", " } else { gap }));
    if line.failed == 0 {
        out.push(Span::styled(
            if line.checked == 0 {
                "0 failed"
            } else {
                "none failed"
            },
            if line.checked == 0 {
                theme.dim()
            } else {
                theme.good()
            },
        ));
        return Line::from(out);
    }
    let mut failed = format!("{} FAILED", fmt::count(line.failed));
    if let Some(offset) = line.first_failed {
        if short {
            failed.push_str(&format!(" @{offset}"));
        } else {
            failed.push_str(&format!(", the first at offset {offset} ({offset:#x})"));
        }
    }
    if line.fatal && !short {
        failed.push_str(": --verify-fatal stops the run");
    }
    out.push(Span::styled(failed, theme.error()));
    Line::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line() -> VerifyLine {
        VerifyLine {
            job: None,
            kind: "crc32c".into(),
            checked: 0,
            failed: 0,
            pass: None,
            first_failed: None,
            writes: true,
            fatal: false,
            finished: false,
        }
    }

    fn text(line: &VerifyLine, short: bool) -> String {
        spans(line, Theme::new(false), short)
            .spans
            .iter()
            .map(|s| s.content.to_string())
            .collect()
    }

    #[test]
    fn each_phase_says_what_the_counts_show() {
        let mut l = line();
        assert_eq!(
            text(&l, false),
            "verify crc32c  every block written carries a header and checksum; read back after \
             the run"
        );
        l.pass = Some((4096, 8192));
        l.checked = 4096;
        assert_eq!(
            text(&l, false),
            "verify crc32c  reading back 4,096 of 8,192 written blocks  none failed"
        );
        assert_eq!(
            text(&l, true),
            "verify crc32c 4,096/8,192 read back, none failed"
        );
        l.pass = Some((8192, 8192));
        l.checked = 8192;
        l.failed = 3;
        l.first_failed = Some(1 << 20);
        l.finished = true;
        assert_eq!(
            text(&l, false),
            "verify crc32c  8,192 blocks checked  3 FAILED, the first at offset 1048576 \
             (0x100000)"
        );
        assert_eq!(
            text(&l, true),
            "verify crc32c 8,192 checked, 3 FAILED @1048576"
        );
    }

    #[test]
    fn a_reading_job_counts_as_it_goes_and_names_itself_in_a_step() {
        let mut l = line();
        l.writes = false;
        l.job = Some("check".into());
        assert_eq!(
            text(&l, false),
            "verify check: crc32c  0 blocks checked  0 failed"
        );
        l.checked = 12;
        l.failed = 1;
        l.first_failed = Some(4096);
        l.fatal = true;
        assert_eq!(
            text(&l, false),
            "verify check: crc32c  12 blocks checked  1 FAILED, the first at offset 4096 \
             (0x1000): --verify-fatal stops the run"
        );
    }
}
