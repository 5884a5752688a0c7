//! The one escaping rule for text a user, a record, a job file or the kernel supplies, before it
//! reaches a terminal (or a text file someone will `cat`): every control character (C0, DEL,
//! C1) and every bidirectional-text control is written as its Rust escape (`\u{1b}`, `\n`,
//! `\u{202e}`), so a directory named `ev\e]0;PWNED\a` or a job name carrying an OSC 52
//! clipboard write shows as text and does nothing. Printable text, any script, passes unchanged.
//!
//! [`escape`] is the rule for one value; [`escape_layout`] applies the same rule to a whole
//! rendered report, keeping only the line breaks and tabs that lay the report out. Every text
//! writer's output passes through the latter on its way out, so a value that a renderer forgot
//! to escape still cannot reach the terminal raw. JSON needs neither: serde escapes controls.
//! The dashboard's cells drop control characters already (ratatui's buffer).

use std::borrow::Cow;
use std::io::{self, Write};

/// Bidirectional-text controls (Unicode 15, UAX #9): they reorder what follows on screen, so
/// a name could display as something else ("Trojan Source", CVE-2021-42574).
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// Whether `c` must be escaped before a terminal sees it.
fn needs_escape(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// `text` with every character that `keep` does not spare and [`needs_escape`] escaped.
fn escape_except(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let must = |c: char| needs_escape(c) && !keep(c);
    if !text.chars().any(must) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if must(c) {
            // `\n`, `\t`, `\r`, `\0` by name, everything else as `\u{..}`.
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One value (a path, a job name, a hostname, a note) made safe to print: every control and
/// bidi character escaped, line breaks and tabs included, so the value stays on its line.
#[must_use]
pub fn escape(value: &str) -> Cow<'_, str> {
    escape_except(value, |_| false)
}

/// A rendered report made safe to print: the rule of [`escape`], keeping `\n` and `\t`.
#[must_use]
pub fn escape_layout(text: &str) -> Cow<'_, str> {
    escape_except(text, |c| c == '\n' || c == '\t')
}

/// A writer that passes everything written through it by [`escape_layout`]: for status lines
/// written piece by piece (`writeln!`), where each piece is a whole `str`. A sequence diskdash
/// itself means (the progress line's `\r` and erase) goes to [`Escaped::raw`].
pub struct Escaped<W: Write>(pub W);

impl<W: Write> Escaped<W> {
    /// The writer underneath, for diskdash's own control sequences.
    pub fn raw(&mut self) -> &mut W {
        &mut self.0
    }
}

impl<W: Write> Write for Escaped<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // `write_fmt` and `write_all` of a `str` hand over whole characters; a byte string that
        // is not UTF-8 shows its bad bytes as U+FFFD, never raw (a lone 0x9b is CSI to some
        // terminals).
        self.0
            .write_all(escape_layout(&String::from_utf8_lossy(buf)).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a terminal must never receive from a value: C0 but `\n` `\t`, DEL, C1, bidi.
    fn dangerous(c: char) -> bool {
        (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
    }

    #[test]
    fn escape_sequences_show_as_text() {
        assert_eq!(
            escape("ev\u{1b}]0;PWNED\u{7}\u{1b}[2Jdir"),
            "ev\\u{1b}]0;PWNED\\u{7}\\u{1b}[2Jdir"
        );
        assert_eq!(escape("a\nb\tc\r"), "a\\nb\\tc\\r");
        assert_eq!(escape("csi\u{9b}2J del\u{7f}"), "csi\\u{9b}2J del\\u{7f}");
        assert_eq!(escape("abc\u{202e}fdp.exe"), "abc\\u{202e}fdp.exe");
        assert_eq!(
            escape_layout("row\tone\nrow\u{1b}[31m\n"),
            "row\tone\nrow\\u{1b}[31m\n"
        );
    }

    #[test]
    fn the_writer_escapes_what_passes_and_not_what_goes_raw() {
        let mut out = Escaped(Vec::new());
        let name = "a\u{1b}]52;c;ZXZpbA==\u{7}";
        writeln!(out, "job {name}: {}", 3).unwrap();
        out.write_all(b"bad \x9b2J\n").unwrap();
        out.raw().write_all(b"\r\x1b[K").unwrap();
        assert_eq!(
            String::from_utf8(out.0).unwrap(),
            "job a\\u{1b}]52;c;ZXZpbA==\\u{7}: 3\nbad \u{fffd}2J\n\r\u{1b}[K"
        );
    }

    #[test]
    fn printable_text_is_borrowed_unchanged() {
        for text in ["", "/dev/loop0", "Größe ⣿ 読み 🙂 \\u{1b}", "q32t1 \"seq\""] {
            assert!(matches!(escape(text), Cow::Borrowed(t) if t == text));
            assert!(matches!(escape_layout(text), Cow::Borrowed(t) if t == text));
        }
    }

    proptest! {
        #[test]
        fn no_control_character_survives(text in any::<String>()) {
            let value = escape(&text);
            prop_assert!(!value.chars().any(|c| dangerous(c) || c == '\n' || c == '\t'));
            prop_assert!(!escape_layout(&text).chars().any(dangerous));
        }

        #[test]
        fn printable_input_is_unchanged(text in "[^\\p{Cc}\\p{Cf}]*") {
            prop_assert_eq!(escape(&text), text.as_str());
            prop_assert_eq!(escape_layout(&text), text.as_str());
        }

        #[test]
        fn layout_keeps_its_line_breaks_and_tabs_only(text in any::<String>()) {
            let shown = escape_layout(&text);
            prop_assert_eq!(shown.matches('\n').count(), text.matches('\n').count());
            prop_assert_eq!(shown.matches('\t').count(), text.matches('\t').count());
        }
    }
}
