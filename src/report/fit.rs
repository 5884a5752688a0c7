//! Headless text fitted to a terminal narrower than its lines: a line that would wrap is split
//! at spaces into continuation lines indented under its label (`  device  `, `note: `,
//! `[    3.0s] `), so each stays within the width and the labels still line up. Text for a
//! pipe or a file is never fitted: scripts parse it as it is.

use std::io::{self, IsTerminal, Write};

/// The width of the terminal `stream` writes to; `None` when it is no terminal.
#[must_use]
pub fn terminal_width(stream: &impl IsTerminal) -> Option<usize> {
    if !stream.is_terminal() {
        return None;
    }
    crossterm::terminal::size()
        .ok()
        .map(|(columns, _)| usize::from(columns))
        .filter(|&w| w > 0)
}

/// Where a continuation line of `line` starts: after a `[...]` prefix, after the label that
/// ends in `: ` or in a run of two spaces near the line's start, or under its indentation.
fn continuation_indent(line: &str, width: usize) -> usize {
    let chars: Vec<char> = line.chars().collect();
    let lead = chars.iter().take_while(|&&c| c == ' ').count();
    let after_spaces = |mut at: usize| {
        while chars.get(at) == Some(&' ') {
            at += 1;
        }
        at
    };
    // Labels are short: `  status  `, `WARNING: `, `diskdash bench: `, `[    3.0s over 1.2s] `.
    let reach = (lead + 28).min(chars.len());
    let label_end = if chars.get(lead) == Some(&'[') {
        chars[lead..reach]
            .iter()
            .position(|&c| c == ']')
            .map(|end| after_spaces(lead + end + 1))
    } else {
        let first_end = chars[lead..]
            .iter()
            .position(|&c| c == ' ')
            .map(|at| lead + at);
        match first_end {
            // `  device  vda ...`: one word, then the padding that aligns the values.
            Some(end) if chars.get(end + 1) == Some(&' ') => Some(after_spaces(end)),
            // `note: ...`, `diskdash bench: ...`.
            _ => (lead + 1..reach)
                .find(|&i| chars[i] == ' ' && chars[i - 1] == ':')
                .map(after_spaces),
        }
    };
    let indent = label_end.filter(|&at| at < chars.len()).unwrap_or(lead);
    // A continuation keeps at least half the width for its text.
    if indent > width / 2 {
        lead.min(width / 2)
    } else {
        indent
    }
}

/// Units stay on the line of their number: `7.97 ms` never breaks before `ms`.
const UNITS: [&str; 17] = [
    "ns", "us", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB", "B/s", "KiB/s", "MiB/s", "GiB/s",
    "TiB/s", "IOPS", "%", "calls",
];

/// `wkB/s 111226.3`, `%util 45.6`: a number stays on the line of the name before it.
fn names(name: &str, word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_digit())
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.ends_with(|c: char| c.is_alphabetic())
}

/// `line` (no line break in it) as lines of at most `width` characters: unchanged when it
/// fits; else first without the padding after its label (runs of spaces that align columns),
/// then split at spaces, each continuation indented under the label; a word longer than a
/// whole continuation is cut.
#[must_use]
pub fn line(line: &str, width: usize) -> Vec<String> {
    if line.chars().count() <= width || width == 0 {
        return vec![line.to_owned()];
    }
    let indent = continuation_indent(line, width);
    let label_bytes = line
        .char_indices()
        .nth(indent)
        .map_or(line.len(), |(at, _)| at);
    let (label, rest) = line.split_at(label_bytes);
    let squeezed = format!(
        "{label}{}",
        rest.split(' ')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    );
    if squeezed.chars().count() <= width {
        return vec![squeezed];
    }
    let line = squeezed.as_str();
    let lead = line.len() - line.trim_start_matches(' ').len();
    let mut words: Vec<String> = Vec::new();
    for word in line[lead..].split(' ') {
        match words.last_mut() {
            Some(last) if !last.is_empty() && (UNITS.contains(&word) || names(last, word)) => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_owned()),
        }
    }
    let mut lines = Vec::new();
    let mut current = " ".repeat(lead);
    let mut current_len = lead;
    // No word on the current line yet: spaces there would only push the text right.
    let mut fresh = true;
    // An empty word is one more space of a run of them: kept inside a line, dropped at a break.
    for (at, word) in words.iter().enumerate() {
        let len = word.chars().count();
        // `| write ...` moves to a line of its own rather than split when it fits on one.
        let part = if word == "|" {
            words[at..]
                .iter()
                .enumerate()
                .take_while(|(i, w)| *i == 0 || *w != "|")
                .map(|(_, w)| w.chars().count() + 1)
                .sum::<usize>()
                - 1
        } else {
            len
        };
        if !fresh
            && (current_len + 1 + len > width
                || (current_len + 1 + part > width && indent + part <= width))
        {
            lines.push(current.trim_end().to_owned());
            current = " ".repeat(indent);
            current_len = indent;
            fresh = true;
        }
        if fresh && word.is_empty() {
            continue;
        }
        if !fresh {
            current.push(' ');
            current_len += 1;
        }
        // A word wider than a whole line is cut where the line ends.
        let mut rest: Vec<char> = word.chars().collect();
        while current_len + rest.len() > width {
            let room = width.saturating_sub(current_len).max(1).min(rest.len());
            current.extend(rest.drain(..room));
            lines.push(current.trim_end().to_owned());
            current = " ".repeat(indent);
            current_len = indent;
        }
        current_len += rest.len();
        current.extend(rest);
        fresh = false;
    }
    if !current.trim().is_empty() {
        lines.push(current.trim_end().to_owned());
    }
    lines
}

/// `text`'s lines each fitted to `width` ([`line`]); `None` (no terminal) leaves it as it is.
#[must_use]
pub fn text(text: &str, width: Option<usize>) -> String {
    let Some(width) = width else {
        return text.to_owned();
    };
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while !rest.is_empty() {
        let (one, newline, after) = match rest.find('\n') {
            Some(at) => (&rest[..at], true, &rest[at + 1..]),
            None => (rest, false, ""),
        };
        let fitted = line(one, width).join("\n");
        out.push_str(&fitted);
        if newline {
            out.push('\n');
        }
        rest = after;
    }
    out
}

/// A writer that fits each whole line written through it to `width` ([`text`]); with no
/// width it passes everything through as it comes. A line not yet ended waits for its end, or
/// for [`Lines::raw`], the flush or the drop.
pub struct Lines<W: Write> {
    inner: W,
    width: Option<usize>,
    pending: String,
}

impl<W: Write> Lines<W> {
    pub fn new(inner: W, width: Option<usize>) -> Self {
        Self {
            inner,
            width,
            pending: String::new(),
        }
    }

    /// The writer underneath, for text that must not be fitted (a `\r` progress line), after
    /// what is pending.
    pub fn raw(&mut self) -> &mut W {
        let _ = self.write_pending();
        &mut self.inner
    }

    fn write_pending(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        self.inner.write_all(text(&pending, self.width).as_bytes())
    }
}

impl<W: Write> Write for Lines<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.width.is_none() {
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        self.pending.push_str(&String::from_utf8_lossy(buf));
        if let Some(end) = self.pending.rfind('\n') {
            let rest = self.pending.split_off(end + 1);
            let whole = std::mem::replace(&mut self.pending, rest);
            self.inner.write_all(text(&whole, self.width).as_bytes())?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_pending()?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for Lines<W> {
    fn drop(&mut self) {
        let _ = self.write_pending();
        let _ = self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DEVICE: &str = "  device  vda (mq-deadline): r/s 34733.2 w/s 0.0 rkB/s 141713.9 wkB/s 0.0 \
                          r_await 0.23 w_await 0.00 aqu-sz 7.97 %util 24.6";
    const NOTE: &str = "note: wrote the 4M working set with data first (0.1 s): reads measure the \
                        device, writes overwrite allocated blocks";

    #[test]
    fn a_long_device_line_continues_under_its_value_at_80_columns() {
        assert_eq!(
            line(DEVICE, 80),
            [
                "  device  vda (mq-deadline): r/s 34733.2 w/s 0.0 rkB/s 141713.9 wkB/s 0.0",
                "          r_await 0.23 w_await 0.00 aqu-sz 7.97 %util 24.6",
            ]
        );
        assert_eq!(
            line(&DEVICE.replace("wkB/s 0.0", "wkB/s 111226333.3"), 80),
            [
                "  device  vda (mq-deadline): r/s 34733.2 w/s 0.0 rkB/s 141713.9",
                "          wkB/s 111226333.3 r_await 0.23 w_await 0.00 aqu-sz 7.97 %util 24.6",
            ]
        );
    }

    #[test]
    fn a_long_note_continues_under_its_text_at_80_columns() {
        assert_eq!(
            line(NOTE, 80),
            [
                "note: wrote the 4M working set with data first (0.1 s): reads measure the",
                "      device, writes overwrite allocated blocks",
            ]
        );
    }

    #[test]
    fn a_status_line_continues_after_its_time() {
        let read =
            "[    0.3s over 300.1ms] read  43.2k IOPS   168.9 MiB/s lat  675.5 us p99   7.97 ms";
        assert_eq!(read.len(), 82);
        assert_eq!(
            line(read, 80),
            ["[    0.3s over 300.1ms] read 43.2k IOPS 168.9 MiB/s lat 675.5 us p99 7.97 ms"]
        );
        let both = "[    1.0s] read  21.6k IOPS    84.4 MiB/s lat   1.35 ms p99   7.97 ms | write  \
                    21.6k IOPS    84.4 MiB/s lat   1.35 ms p99   7.97 ms | sync 1.2 ms";
        assert_eq!(
            line(both, 80),
            [
                "[    1.0s] read 21.6k IOPS 84.4 MiB/s lat 1.35 ms p99 7.97 ms",
                "           | write 21.6k IOPS 84.4 MiB/s lat 1.35 ms p99 7.97 ms | sync 1.2 ms",
            ]
        );
    }

    #[test]
    fn a_summary_fits_80_columns_and_a_pipe_gets_it_unchanged() {
        let summary = format!(
            "diskdash bench: randread bs=4k iodepth=32 numjobs=1 io_uring direct\n{DEVICE}\n\
             {NOTE}\n          12989 reads + 0 writes by the device for 12977 + 0 by the run: \
             vda did 102% of the run's bytes: other activity on the disk\n"
        );
        let fitted = text(&summary, Some(80));
        assert!(fitted.lines().all(|l| l.chars().count() <= 80), "{fitted}");
        assert_eq!(fitted.lines().count(), 7, "{fitted}");
        assert!(fitted.ends_with('\n'));
        assert!(
            fitted.contains("\n          did 102% of the run's bytes"),
            "{fitted}"
        );
        assert_eq!(text(&summary, None), summary);
    }

    #[test]
    fn a_word_wider_than_the_line_is_cut() {
        let path = format!("  target  /{} (scratch)", "d".repeat(100));
        let lines = line(&path, 40);
        assert!(lines.iter().all(|l| l.chars().count() <= 40), "{lines:?}");
        let squeezed: String = lines.concat().split_whitespace().collect();
        assert_eq!(squeezed, path.split_whitespace().collect::<String>());
    }

    #[test]
    fn the_writer_fits_whole_lines_and_passes_raw_text() {
        let mut out = Lines::new(Vec::new(), Some(80));
        write!(out, "{NOTE}").unwrap();
        writeln!(out).unwrap();
        out.raw().write_all(b"\rprogress\x1b[K").unwrap();
        writeln!(out, "short").unwrap();
        let inner = std::mem::take(&mut out.inner);
        assert_eq!(
            String::from_utf8(inner).unwrap(),
            format!("{}\n\rprogress\x1b[Kshort\n", line(NOTE, 80).join("\n"))
        );
        let mut piped = Lines::new(Vec::new(), None);
        writeln!(piped, "{NOTE}").unwrap();
        assert_eq!(
            std::mem::take(&mut piped.inner),
            format!("{NOTE}\n").into_bytes()
        );
    }

    proptest! {
        #[test]
        fn every_line_fits_and_no_word_is_lost(
            words in proptest::collection::vec("[a-z:\\[\\]]{0,30}", 0..40),
            width in 20usize..120,
        ) {
            let text_in = words.join(" ");
            let lines = line(&text_in, width);
            for l in &lines {
                prop_assert!(l.chars().count() <= width, "{:?} over {}", l, width);
            }
            let squeeze = |s: &str| s.chars().filter(|c| *c != ' ').collect::<String>();
            prop_assert_eq!(squeeze(&lines.concat()), squeeze(&text_in));
        }
    }
}
