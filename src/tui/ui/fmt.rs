//! Number formatting and braille drawing shared by the panels. ASCII and braille only.

use std::time::Duration;

/// A count per second in at most 6 characters: `950`, `12.3k`, `1.23M`.
///
/// Apart from the reports' `crate::units::format_rate` on purpose: dashboard cells hold three
/// significant digits in 6 characters at every magnitude (`9.5`, `1.23k`), where the text report
/// prints whole numbers below 1000.
#[must_use]
pub fn rate(v: f64) -> String {
    let v = if v.is_finite() { v.max(0.0) } else { 0.0 };
    if v < 10.0 {
        format!("{v:.1}")
    } else if v < 1_000.0 {
        format!("{v:.0}")
    } else if v < 10_000.0 {
        format!("{:.2}k", v / 1e3)
    } else if v < 1_000_000.0 {
        format!("{:.1}k", v / 1e3)
    } else if v < 1e9 {
        format!("{:.2}M", v / 1e6)
    } else {
        format!("{:.2}G", v / 1e9)
    }
}

/// The top of a log axis (values drawn as log10(1 + v)) over a scaled `peak`: the next
/// whole power of ten, made even so that the middle label is a power of ten too.
#[must_use]
pub fn log_axis_top(peak: f64) -> f64 {
    let top = if peak.is_finite() { peak.ceil() } else { 0.0 }.max(2.0);
    top + top % 2.0
}

/// A log axis's label at its scaled height `y` (a whole power of ten on [`log_axis_top`]'s
/// axes): `0` at the bottom, else 10^y in SI prefixes, `1`, `10`, `100`, `1k`, ... `1M`, with
/// `unit` after (`1MB/s`). The axis draws log10(1 + v), so the label is 10^y - 1 rounded to
/// the power: never `999` or `1000.0k`.
#[must_use]
pub fn log_tick(y: f64, unit: &str) -> String {
    if !y.is_finite() || y <= 0.0 {
        return format!("0{unit}");
    }
    let exp = y.round() as i32;
    let (prefix, rest) = match exp {
        ..=2 => ("", exp),
        3..=5 => ("k", exp - 3),
        6..=8 => ("M", exp - 6),
        9..=11 => ("G", exp - 9),
        12..=14 => ("T", exp - 12),
        _ => ("P", exp - 15),
    };
    format!("{}{prefix}{unit}", 10u64.pow(rest.clamp(0, 18) as u32))
}

/// Bytes per second in binary units: `812KiB/s`, `97.6MiB/s`, `1.20GiB/s`.
#[must_use]
pub fn bytes_rate(v: f64) -> String {
    format!("{}/s", bytes(v))
}

/// Bytes in binary units: `512B`, `4.0KiB`, `97.6MiB`.
///
/// Scaled by `crate::units::binary_scale` like the reports' `format_bytes`, but laid out for
/// table cells on purpose: no space and a fixed width (one decimal below 100, none above), so
/// a changing value does not make a column jump; `format_bytes` drops the decimal of exact
/// values instead, which reads better in sentences and reports.
#[must_use]
pub fn bytes(v: f64) -> String {
    let (v, unit) = crate::units::binary_scale(v);
    if unit == "B" || v >= 100.0 {
        format!("{v:.0}{unit}")
    } else {
        format!("{v:.1}{unit}")
    }
}

/// A latency in at most 7 characters: `850ns`, `12.3us`, `1.23ms`, `1.20s`.
///
/// Apart from the reports' `crate::units::format_latency_ns` on purpose: no space and three
/// significant digits, so it fits the latency panel's columns; the report keeps `12.3 us`.
#[must_use]
pub fn latency_ns(ns: u64) -> String {
    let v = ns as f64;
    if ns < 1_000 {
        format!("{ns}ns")
    } else if ns < 10_000 {
        format!("{:.2}us", v / 1e3)
    } else if ns < 1_000_000 {
        format!("{:.1}us", v / 1e3)
    } else if ns < 10_000_000 {
        format!("{:.2}ms", v / 1e6)
    } else if ns < 1_000_000_000 {
        format!("{:.1}ms", v / 1e6)
    } else {
        format!("{:.2}s", v / 1e9)
    }
}

/// Elapsed time: `42s`, `3m07s`, `1h02m`.
#[must_use]
pub fn duration(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    }
}

/// A time left, as [`duration`] but rounded up: shown beside an elapsed time (rounded down)
/// the two add up to the whole run, as `elapsed 12s  remaining 18s` of 30 s at 12.6 s.
#[must_use]
pub fn duration_up(d: Duration) -> String {
    let whole = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    duration(Duration::from_secs(whole))
}

/// A sampling interval: `1s`, `500ms`, `2.5s`.
#[must_use]
pub fn interval(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// Whether a sample's real `window` ran much longer than the `interval` asked for (half as
/// long again): the process or the machine was frozen, and its numbers are averages over all
/// of it.
#[must_use]
pub fn stalled(interval: Duration, window: Duration) -> bool {
    window > interval + interval / 2
}

/// What the latest sample covers, for a title: `last 1s`, or, when its real `window` ran much
/// longer than the `interval` (see [`stalled`]), its real length with a stall mark:
/// `last 20.3s, STALLED`.
#[must_use]
pub fn last_window(interval: Duration, window: Option<Duration>) -> String {
    match window {
        Some(w) if stalled(interval, w) => format!("last {}, STALLED", self::interval(w)),
        _ => format!("last {}", self::interval(interval)),
    }
}

/// A thousands-separated integer: `12,345,678`.
#[must_use]
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A one-row line with a long and a short form: the long one when it fits `area`, else the short.
pub fn render_long_or_short(
    f: &mut ratatui::Frame,
    area: ratatui::layout::Rect,
    form: impl Fn(bool) -> ratatui::text::Line<'static>,
) {
    let long = form(false);
    let text = if long.width() <= usize::from(area.width) {
        long
    } else {
        form(true)
    };
    f.render_widget(ratatui::widgets::Paragraph::new(text), area);
}

/// Cuts `s` to `width` characters, marking the cut with `~`.
#[must_use]
pub fn fit(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(width - 1).collect();
    out.push('~');
    out
}

/// Splits `s` into lines of at most `width` characters at spaces; a word longer than a line
/// is split where the line ends. Nothing is dropped.
#[must_use]
pub fn wrap(s: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in s.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let used = line.chars().count();
            let gap = usize::from(used > 0);
            if used + gap + word.len() <= width {
                if gap == 1 {
                    line.push(' ');
                }
                line.extend(word.iter());
                break;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            let rest = word.split_off(width);
            lines.push(word.iter().collect());
            word = rest;
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Braille dot bits by column (left, right) and level from the bottom (0..4).
const DOTS: [[u8; 4]; 2] = [[0x40, 0x04, 0x02, 0x01], [0x80, 0x20, 0x10, 0x08]];

fn braille(bits: u8) -> char {
    char::from_u32(0x2800 + u32::from(bits)).unwrap_or(' ')
}

/// A one-row braille sparkline of the last `2 * width` values, scaled to `max` (4 levels).
/// Zero draws nothing; any non-zero value draws at least one dot.
#[must_use]
pub fn sparkline(values: &[f64], width: usize, max: f64) -> String {
    let take = values.len().min(width * 2);
    let values = &values[values.len() - take..];
    let level = |v: f64| -> usize {
        if !(v.is_finite() && v > 0.0 && max > 0.0) {
            return 0;
        }
        let l = ((v / max) * 4.0).ceil() as usize;
        l.clamp(1, 4)
    };
    // Right-align: pad on the left when there are fewer values than dots.
    let pad = width * 2 - take;
    let mut out = String::with_capacity(width * 3);
    for cell in 0..width {
        let mut bits = 0u8;
        for (col, dots) in DOTS.iter().enumerate() {
            let idx = cell * 2 + col;
            if idx < pad {
                continue;
            }
            for dot in dots.iter().take(level(values[idx - pad])) {
                bits |= dot;
            }
        }
        // An empty cell is a space, so short histories do not fill the line with blank dots.
        out.push(if bits == 0 { ' ' } else { braille(bits) });
    }
    out
}

/// A one-row braille sparkline over all of `width` cells: the last `2 * width` values one per
/// dot, or, with fewer values, each stretched over an equal share of the dots, so the oldest
/// sample starts at the left edge and the newest ends at the right (no blank band).
#[must_use]
pub fn sparkline_fill(values: &[f64], width: usize, max: f64) -> String {
    let dots = width * 2;
    if values.is_empty() || values.len() >= dots {
        return sparkline(values, width, max);
    }
    let stretched: Vec<f64> = (0..dots)
        .map(|dot| values[dot * values.len() / dots])
        .collect();
    sparkline(&stretched, width, max)
}

/// A horizontal braille bar of `fraction` (0..=1) of `width` cells, in half-cell steps.
#[must_use]
pub fn bar(fraction: f64, width: usize) -> String {
    let fraction = if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let halves = (fraction * (width * 2) as f64).round() as usize;
    let mut out = String::with_capacity(width * 3);
    out.extend(std::iter::repeat_n('\u{28ff}', halves / 2));
    if halves % 2 == 1 {
        out.push('\u{2847}');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn a_window_much_longer_than_its_interval_is_a_stall() {
        let s = Duration::from_secs(1);
        assert_eq!(last_window(s, None), "last 1s");
        assert_eq!(last_window(s, Some(Duration::from_millis(1003))), "last 1s");
        assert_eq!(last_window(s, Some(Duration::from_millis(1500))), "last 1s");
        assert_eq!(
            last_window(s, Some(Duration::from_millis(20_300))),
            "last 20.3s, STALLED"
        );
        assert!(stalled(
            Duration::from_millis(500),
            Duration::from_millis(751)
        ));
        assert!(!stalled(
            Duration::from_millis(500),
            Duration::from_millis(750)
        ));
    }

    #[test]
    fn rates_stay_short() {
        assert_eq!(rate(0.0), "0.0");
        assert_eq!(rate(950.4), "950");
        assert_eq!(rate(12_345.0), "12.3k");
        assert_eq!(rate(1_234_567.0), "1.23M");
        assert_eq!(rate(f64::NAN), "0.0");
    }

    #[test]
    fn latencies_pick_a_unit() {
        assert_eq!(latency_ns(850), "850ns");
        assert_eq!(latency_ns(12_345), "12.3us");
        assert_eq!(latency_ns(1_234_567), "1.23ms");
        assert_eq!(latency_ns(1_200_000_000), "1.20s");
    }

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(bytes(512.0), "512B");
        assert_eq!(bytes(4096.0), "4.0KiB");
        assert_eq!(bytes_rate(100.0 * 1024.0 * 1024.0), "100MiB/s");
    }

    #[test]
    fn counts_and_durations() {
        assert_eq!(count(0), "0");
        assert_eq!(count(1234), "1,234");
        assert_eq!(count(12_345_678), "12,345,678");
        assert_eq!(duration(Duration::from_secs(187)), "3m07s");
        assert_eq!(duration(Duration::from_secs(3720)), "1h02m");
        assert_eq!(fit("abcdef", 4), "abc~");
        assert_eq!(fit("abc", 4), "abc");
        assert_eq!(fit("abc", 0), "");
    }

    #[test]
    fn wrapping_keeps_every_word() {
        assert_eq!(
            wrap("none [mq-deadline] kyber bfq", 14),
            ["none", "[mq-deadline]", "kyber bfq"]
        );
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(wrap("a b", 0), ["a", "b"]);
    }

    #[test]
    fn sparkline_scales_and_right_aligns() {
        assert_eq!(sparkline(&[], 2, 1.0), "  ");
        // One full value at the right edge: right column all four dots.
        assert_eq!(sparkline(&[4.0], 1, 4.0), "\u{28b8}");
        // Tiny non-zero values still show one dot.
        assert_eq!(sparkline(&[0.001, 0.0], 1, 100.0), "\u{2840}");
        assert_eq!(sparkline(&[1.0; 10], 3, 1.0).chars().count(), 3);
    }

    #[test]
    fn a_filled_sparkline_spans_its_width_from_the_first_sample() {
        // Two samples over three cells: the first half empty (zero), the second half full.
        assert_eq!(sparkline_fill(&[0.0, 4.0], 3, 4.0), " \u{28b8}\u{28ff}");
        assert_eq!(sparkline_fill(&[4.0], 2, 4.0), "\u{28ff}\u{28ff}");
        // Enough values: the same as `sparkline`, the newest at the right.
        let many: Vec<f64> = (0..10).map(f64::from).collect();
        assert_eq!(sparkline_fill(&many, 3, 9.0), sparkline(&many, 3, 9.0));
        assert_eq!(sparkline_fill(&[], 2, 1.0), "  ");
    }

    #[test]
    fn bars_are_half_cell_exact() {
        assert_eq!(bar(1.0, 3), "\u{28ff}\u{28ff}\u{28ff}");
        assert_eq!(bar(0.5, 3), "\u{28ff}\u{2847}");
        assert_eq!(bar(0.0, 3), "");
        assert_eq!(bar(f64::NAN, 3), "");
    }

    #[test]
    fn log_ticks_are_powers_of_ten_never_999_or_1000k() {
        let labels: Vec<String> = (0..=9).map(|e| log_tick(f64::from(e), "")).collect();
        assert_eq!(
            labels,
            [
                "0", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M", "1G"
            ]
        );
        assert_eq!(log_tick(6.0, "B/s"), "1MB/s");
        assert_eq!(log_tick(f64::NAN, ""), "0");
        // A peak of 999,999 (log10 of a million): the top is 10^6, the middle 10^3.
        let top = log_axis_top((1.0f64 + 999_999.0).log10());
        assert_eq!(top, 6.0);
        assert_eq!(
            [
                log_tick(0.0, ""),
                log_tick(top / 2.0, ""),
                log_tick(top, "")
            ],
            ["0", "1k", "1M"]
        );
        // An odd power is rounded up to an even one so the middle is a power too.
        assert_eq!(log_axis_top(4.2), 6.0);
        assert_eq!(log_axis_top(0.3), 2.0);
        assert_eq!(log_axis_top(f64::INFINITY), 2.0);
    }

    #[test]
    fn elapsed_and_remaining_add_up_to_the_runtime() {
        let runtime = Duration::from_secs(30);
        for ms in [0, 1, 400, 999, 12_600, 29_001, 29_999, 30_000] {
            let elapsed = Duration::from_millis(ms);
            let secs = |s: String| s.trim_end_matches('s').parse::<u64>().unwrap();
            assert_eq!(
                secs(duration(elapsed)) + secs(duration_up(runtime - elapsed)),
                30,
                "{ms} ms"
            );
        }
        assert_eq!(duration_up(Duration::from_millis(59_001)), "1m00s");
    }
}
