//! Error kinds that decide the exit code: usage errors exit 2, runtime failures exit 1.

use std::fmt;

/// A mistake in what the user asked for (a bad value, a refused target). Exit code 2.
///
/// The message names the value and the fix, on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Shorthand: `return Err(usage!("--bs {bs:?} is not a size; use e.g. 4k or 1M"))`, with
/// `use crate::error::usage;` (or `crate::error::usage!(...)`): the macro lives here, beside the
/// error it makes, so naming it is no arrow to the crate root.
macro_rules! usage {
    ($($arg:tt)*) => {
        anyhow::Error::new($crate::error::UsageError(format!($($arg)*)))
    };
}
pub(crate) use usage;

/// Exit code of a run interrupted by Ctrl-C (128 + SIGINT, as shells report it); other
/// signals give 128 + their number (`session::signals::interrupted_exit_code`).
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

/// The process exit code for an error: 2 when any cause is a [`UsageError`], else 1.
#[must_use]
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if err.chain().any(|cause| cause.is::<UsageError>()) {
        2
    } else {
        1
    }
}

/// `text` on one line: its non-blank lines, trimmed, joined with `; `; other control characters
/// escaped (`crate::text::escape`). Every error the process prints goes through this, so a newline in a value (a file
/// name, an argument) cannot break the one-line promise.
#[must_use]
pub fn one_line(text: &str) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    crate::text::escape(&joined).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_folded_into_one_line() {
        assert_eq!(
            one_line("bad value\n\n  tip: use 4k\r\n"),
            "bad value; tip: use 4k"
        );
        assert_eq!(one_line("a\tb\u{1b}[31m"), "a\\tb\\u{1b}[31m");
        assert_eq!(one_line("plain"), "plain");
    }

    #[test]
    fn usage_errors_exit_2_even_when_wrapped() {
        let err = usage!("--bs {:?} is not a size", "4kk").context("parsing the job");
        assert_eq!(exit_code(&err), 2);
        assert_eq!(exit_code(&anyhow::anyhow!("EIO at offset 0")), 1);
    }
}
