//! Lines from a host, read with a cap: a host that sends a line without end (a broken remote,
//! a binary stream) costs the controller at most the cap, never all its memory.

use std::io::{BufRead, ErrorKind};

/// The longest line of the fleet protocol a host may send: its run record, with every
/// step's histograms, is far below it.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// What one read gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// A line (without its `\n`) is in the buffer; the last one may lack the `\n`.
    Line,
    /// The line is longer than the cap: its first `cap` bytes are in the buffer, the rest is
    /// unread (`skip_rest` passes over it).
    TooLong,
    /// The stream ended.
    End,
}

/// Reads one line of at most `cap` bytes into `buf` (cleared first).
///
/// # Errors
/// The reader's own errors (interruptions are retried).
pub fn read_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Read> {
    buf.clear();
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            return Ok(if buf.is_empty() {
                Read::End
            } else {
                Read::Line
            });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let chunk = &available[..newline.unwrap_or(available.len())];
        let room = cap - buf.len();
        if chunk.len() > room {
            buf.extend_from_slice(&chunk[..room]);
            reader.consume(room);
            return Ok(Read::TooLong);
        }
        buf.extend_from_slice(chunk);
        let used = newline.map_or(chunk.len(), |at| at + 1);
        reader.consume(used);
        if newline.is_some() {
            return Ok(Read::Line);
        }
    }
}

/// Passes over the rest of the current line, its `\n` included, without keeping it.
///
/// # Errors
/// The reader's own errors.
pub fn skip_rest(reader: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            return Ok(());
        }
        match available.iter().position(|&b| b == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(());
            }
            None => {
                let all = available.len();
                reader.consume(all);
            }
        }
    }
}

/// `text` as one printable line: escaped by the one rule for text from outside
/// ([`crate::text::escape`]), cut to its first `max` characters (`...` says it was cut). What a
/// host sends is shown through this only.
#[must_use]
pub fn shown(text: &str, max: usize) -> String {
    let kept: String = text.chars().take(max).collect();
    let mut out = crate::text::escape(&kept).into_owned();
    if kept.len() < text.len() {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every read of `input` through a reader that hands out `chunk` bytes at a time.
    fn all(input: &[u8], chunk: usize, cap: usize) -> Vec<(Read, Vec<u8>)> {
        let mut reader = std::io::BufReader::with_capacity(chunk, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let read = read_line(&mut reader, &mut buf, cap).unwrap();
            if read == Read::End {
                return out;
            }
            if read == Read::TooLong {
                skip_rest(&mut reader).unwrap();
            }
            out.push((read, buf.clone()));
        }
    }

    #[test]
    fn a_line_over_the_cap_is_cut_and_the_next_line_reads_whole() {
        let mut input = vec![b'a'; 100];
        input.extend_from_slice(b"\nok\nlast");
        let reads = all(&input, 7, 10);
        assert_eq!(
            reads,
            [
                (Read::TooLong, vec![b'a'; 10]),
                (Read::Line, b"ok".to_vec()),
                (Read::Line, b"last".to_vec()),
            ]
        );
        // Exactly the cap is a line.
        assert_eq!(
            all(b"0123456789\n", 4, 10),
            [(Read::Line, b"0123456789".to_vec())]
        );
        assert_eq!(all(b"", 4, 10), []);
    }

    #[test]
    fn shown_escapes_control_characters_and_cuts() {
        assert_eq!(shown("a\u{1b}]0;x\u{7}b", 80), "a\\u{1b}]0;x\\u{7}b");
        assert_eq!(shown("abcdef", 3), "abc...");
        assert_eq!(shown("abc", 3), "abc");
    }

    proptest! {
        /// Whatever the bytes and the chunking, the lines are those of a split at `\n`, each
        /// cut to the cap, and nothing read is ever longer than the cap.
        #[test]
        fn lines_are_the_split_cut_to_the_cap(
            input in proptest::collection::vec(prop_oneof![Just(b'\n'), any::<u8>()], 0..400),
            chunk in 1usize..64,
            cap in 1usize..40,
        ) {
            let reads = all(&input, chunk, cap);
            let mut want: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
            if input.last() == Some(&b'\n') || input.is_empty() {
                want.pop();
            }
            prop_assert_eq!(reads.len(), want.len());
            for ((read, got), line) in reads.iter().zip(want) {
                prop_assert!(got.len() <= cap);
                if line.len() > cap {
                    prop_assert_eq!(*read, Read::TooLong);
                    prop_assert_eq!(got.as_slice(), &line[..cap]);
                } else {
                    prop_assert_eq!(*read, Read::Line);
                    prop_assert_eq!(got.as_slice(), line);
                }
            }
        }
    }
}
