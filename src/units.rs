//! Sizes and durations as fio users write them (`4k`, `1MiB`, `512`, `500ms`, `2m`), and their
//! human-readable forms. Sizes are binary (`k` = 1024), as fio's default `kb_base=1024`.

use std::time::Duration;

/// Parses a size in bytes: a positive integer with an optional binary suffix
/// (`k`, `m`, `g`, `t`, optionally followed by `b` or `ib`, any case). Returns `None` when the
/// text is not a size or overflows; zero is returned as `Some(0)` for the caller to reject.
#[must_use]
pub fn parse_size_bytes(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    if digits_end == 0 {
        return None;
    }
    let number: u64 = text[..digits_end].parse().ok()?;
    let shift = match text[digits_end..].to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    number.checked_mul(1u64 << shift)
}

/// Why a text is not a duration (see [`parse_duration`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DurationError {
    /// Not a whole number with a known unit (`soon`, `1.5s`, `-1`, `5d`).
    NotADuration,
    /// Written correctly but larger than any `Duration` or `u64` count of its unit can hold
    /// (`99999999999999999999s`): too long for anything, not a typo.
    TooLong,
}

/// Parses a duration: an integer with a unit (`us`, `ms`, `s`, `m`, `h`); a bare number is
/// seconds, as in fio. Callers bound the result (see `bench::spec`): a parsed value can be far
/// longer than any run.
///
/// # Errors
/// [`DurationError::NotADuration`] when the text is not a duration, [`DurationError::TooLong`]
/// when it is one but the number overflows.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let text = text.trim();
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    if digits_end == 0 {
        return Err(DurationError::NotADuration);
    }
    let seconds_per_unit = match &text[digits_end..] {
        "us" | "ms" | "" | "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        _ => return Err(DurationError::NotADuration),
    };
    let number: u64 = text[..digits_end]
        .parse()
        .map_err(|_| DurationError::TooLong)?;
    Ok(match &text[digits_end..] {
        "us" => Duration::from_micros(number),
        "ms" => Duration::from_millis(number),
        _ => Duration::from_secs(
            number
                .checked_mul(seconds_per_unit)
                .ok_or(DurationError::TooLong)?,
        ),
    })
}

/// The shortest sampling, status or record interval, everywhere one is taken.
pub const MIN_INTERVAL: Duration = Duration::from_millis(10);
/// The longest interval: a day.
pub const MAX_INTERVAL: Duration = Duration::from_secs(24 * 3600);

/// A sampling, status or record interval: [`MIN_INTERVAL`] to [`MAX_INTERVAL`], the one rule of
/// `bench`/`sweep`/`mark --interval`, fio's `--status-interval`, iostat's INTERVAL and the
/// monitor's `--interval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Interval(Duration);

/// Why a text is not an [`Interval`]; its `Display` is the rest of the sentence after the
/// option's name and value (`--interval "1ms" is too short; use 10ms to 24h, e.g. 1s`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalError {
    /// Not a number with a known unit (`soon`, `-1s`, `1e3`, `5d`).
    NotADuration,
    /// Under [`MIN_INTERVAL`], zero included.
    TooShort,
    /// Over [`MAX_INTERVAL`], however many digits.
    TooLong,
}

impl std::fmt::Display for IntervalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::NotADuration => "is not an interval; use 10ms to 24h, e.g. 1s, 500ms or 2m",
            Self::TooShort => "is too short; use 10ms to 24h, e.g. 1s",
            Self::TooLong => "is too long; use 10ms to 24h, e.g. 1s",
        })
    }
}

impl std::error::Error for IntervalError {}

impl Interval {
    /// Parses an interval: a whole or decimal number with a unit (`us`, `ms`, `s`, `m`/`min`,
    /// `h`); a bare number is seconds, as in fio and sysstat's iostat (`0.5`, `1.5s`, `1h`).
    /// Decimals are exact to the nanosecond (`0.3` is 300 ms), digits past it are dropped.
    ///
    /// # Errors
    /// [`IntervalError`] when the text is no duration or lies outside 10 ms to 24 h.
    pub fn parse(text: &str) -> Result<Self, IntervalError> {
        let text = text.trim();
        let number_end = text
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(text.len());
        let (number, unit) = text.split_at(number_end);
        let nanos_per_unit: u128 = match unit {
            "us" => 1_000,
            "ms" => 1_000_000,
            "" | "s" => 1_000_000_000,
            "m" | "min" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(IntervalError::NotADuration),
        };
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if whole.is_empty() && fraction.is_empty() || fraction.contains('.') {
            return Err(IntervalError::NotADuration);
        }
        let whole_nanos = whole
            .bytes()
            .try_fold(0u128, |n, d| {
                n.checked_mul(10)?.checked_add(u128::from(d - b'0'))
            })
            .and_then(|n| n.checked_mul(nanos_per_unit))
            .ok_or(IntervalError::TooLong)?;
        // 18 digits of a fraction times at most 3.6e12 ns stay inside u128; later digits are
        // below a nanosecond for every unit.
        let digits = &fraction[..fraction.len().min(18)];
        let scale = 10u128.pow(u32::try_from(digits.len()).unwrap_or(18));
        let fraction_value = digits
            .bytes()
            .fold(0u128, |n, d| n * 10 + u128::from(d - b'0'));
        let nanos = whole_nanos.saturating_add(fraction_value * nanos_per_unit / scale);
        if nanos > MAX_INTERVAL.as_nanos() {
            return Err(IntervalError::TooLong);
        }
        // At most a day in nanoseconds: well inside u64.
        Self::new(Duration::from_nanos(
            u64::try_from(nanos).map_err(|_| IntervalError::TooLong)?,
        ))
    }

    /// `duration` as an interval.
    ///
    /// # Errors
    /// [`IntervalError::TooShort`] or [`IntervalError::TooLong`] outside 10 ms to 24 h.
    pub fn new(duration: Duration) -> Result<Self, IntervalError> {
        if duration < MIN_INTERVAL {
            Err(IntervalError::TooShort)
        } else if duration > MAX_INTERVAL {
            Err(IntervalError::TooLong)
        } else {
            Ok(Self(duration))
        }
    }

    /// The interval's length.
    #[must_use]
    pub const fn get(self) -> Duration {
        self.0
    }
}

/// `bytes` in the largest binary unit it reaches: `(1.5, "MiB")` for 1.5 MiB, `(512.0, "B")`.
/// Negative and non-finite values count as zero. The one place bytes are scaled; each caller
/// lays the number out for its own space (`format_bytes` for reports and messages, the
/// dashboard's width-limited `tui::ui::fmt::bytes`).
#[must_use]
pub fn binary_scale(bytes: f64) -> (f64, &'static str) {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = if bytes.is_finite() {
        bytes.max(0.0)
    } else {
        0.0
    };
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    (value, UNITS[unit])
}

/// `4 KiB`, `1.5 MiB`, `512 B`: binary units; exact multiples without decimals, others with
/// one (so a rounded value shows that it is rounded: `931.0 GiB`).
#[must_use]
pub fn format_bytes(bytes: u64) -> String {
    let (value, unit) = binary_scale(bytes as f64);
    if unit == "B" || value.fract() == 0.0 {
        format!("{value:.0} {unit}")
    } else {
        format!("{value:.1} {unit}")
    }
}

/// A compact size for job descriptions: `4k`, `1M`, `1536` (exact, fio style).
#[must_use]
pub fn format_size_short(bytes: u64) -> String {
    for (shift, suffix) in [(40, "T"), (30, "G"), (20, "M"), (10, "k")] {
        if bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return format!("{}{suffix}", bytes >> shift);
        }
    }
    bytes.to_string()
}

/// `850 ns`, `12.3 us`, `4.56 ms`, `1.20 s`.
#[must_use]
pub fn format_latency_ns(ns: f64) -> String {
    if ns < 1_000.0 {
        format!("{ns:.0} ns")
    } else if ns < 1_000_000.0 {
        format!("{:.1} us", ns / 1e3)
    } else if ns < 1_000_000_000.0 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// `950`, `12.3k`, `1.25M` operations per second.
#[must_use]
pub fn format_rate(per_s: f64) -> String {
    if per_s < 1_000.0 {
        format!("{per_s:.0}")
    } else if per_s < 1_000_000.0 {
        format!("{:.1}k", per_s / 1e3)
    } else {
        format!("{:.2}M", per_s / 1e6)
    }
}

/// `2m`, `10s`, `500ms`, `1500us`: the shortest exact form for a whole number of microseconds
/// (what [`parse_duration`] reads back); finer parts are dropped.
#[must_use]
pub fn format_duration(duration: Duration) -> String {
    let us = duration.as_micros();
    if us % 1000 != 0 || us == 0 {
        format!("{us}us")
    } else if us % 60_000_000 == 0 {
        format!("{}m", us / 60_000_000)
    } else if us % 1_000_000 == 0 {
        format!("{}s", us / 1_000_000)
    } else {
        format!("{}ms", us / 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_like_fio() {
        let cases = [
            ("4k", Some(4096)),
            ("4K", Some(4096)),
            ("1M", Some(1 << 20)),
            ("1MiB", Some(1 << 20)),
            ("1mb", Some(1 << 20)),
            ("512", Some(512)),
            ("512b", Some(512)),
            ("2G", Some(2 << 30)),
            ("1t", Some(1 << 40)),
            ("0", Some(0)),
            ("4kk", None),
            ("-1", None),
            ("k", None),
            ("", None),
            ("1.5M", None),
            ("soon", None),
            ("99999999999999999999", None),
            ("16777216T", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_size_bytes(text), want, "{text:?}");
        }
    }

    #[test]
    fn durations_parse_with_units_and_bare_seconds() {
        let cases = [
            ("500ms", Some(Duration::from_millis(500))),
            ("10s", Some(Duration::from_secs(10))),
            ("2m", Some(Duration::from_secs(120))),
            ("1h", Some(Duration::from_secs(3600))),
            ("250us", Some(Duration::from_micros(250))),
            ("30", Some(Duration::from_secs(30))),
            ("0", Some(Duration::ZERO)),
            ("soon", None),
            ("-1", None),
            ("1.5s", None),
            ("10 s", None),
            ("5d", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text).ok(), want, "{text:?}");
        }
        for (text, want) in [
            ("soon", DurationError::NotADuration),
            ("99999999999999999999", DurationError::TooLong),
            ("99999999999999999999x", DurationError::NotADuration),
            ("18446744073709551615h", DurationError::TooLong),
            ("307445734561825861m", DurationError::TooLong),
        ] {
            assert_eq!(parse_duration(text), Err(want), "{text:?}");
        }
    }

    #[test]
    fn intervals_parse_with_units_decimals_and_bare_seconds() {
        let ok = [
            ("1s", Duration::from_secs(1)),
            ("500ms", Duration::from_millis(500)),
            ("2m", Duration::from_secs(120)),
            ("2min", Duration::from_secs(120)),
            ("1h", Duration::from_secs(3600)),
            ("24h", MAX_INTERVAL),
            ("10ms", MIN_INTERVAL),
            ("10000us", MIN_INTERVAL),
            ("0.01", MIN_INTERVAL),
            ("86400", MAX_INTERVAL),
            ("2", Duration::from_secs(2)),
            ("1.5s", Duration::from_millis(1500)),
            ("0.3", Duration::from_millis(300)),
            (".5", Duration::from_millis(500)),
            ("1.", Duration::from_secs(1)),
            (" 1s ", Duration::from_secs(1)),
            (
                "0.0166666666666666666666666m",
                Duration::from_nanos(999_999_999),
            ),
        ];
        for (text, want) in ok {
            assert_eq!(
                Interval::parse(text).map(Interval::get),
                Ok(want),
                "{text:?}"
            );
        }
        let bad = [
            ("1ms", IntervalError::TooShort),
            ("9999us", IntervalError::TooShort),
            ("0.009", IntervalError::TooShort),
            ("0", IntervalError::TooShort),
            ("0s", IntervalError::TooShort),
            ("25h", IntervalError::TooLong),
            ("86400.000001", IntervalError::TooLong),
            ("1441m", IntervalError::TooLong),
            ("99999999999999999999ms", IntervalError::TooLong),
            ("", IntervalError::NotADuration),
            (".", IntervalError::NotADuration),
            ("1.2.3", IntervalError::NotADuration),
            ("-1s", IntervalError::NotADuration),
            ("soon", IntervalError::NotADuration),
            ("1e3", IntervalError::NotADuration),
            ("nan", IntervalError::NotADuration),
            ("5d", IntervalError::NotADuration),
            ("1 s", IntervalError::NotADuration),
        ];
        for (text, want) in bad {
            assert_eq!(Interval::parse(text), Err(want), "{text:?}");
        }
        assert_eq!(
            Interval::parse(&"9".repeat(60)),
            Err(IntervalError::TooLong)
        );
        assert_eq!(
            IntervalError::TooShort.to_string(),
            "is too short; use 10ms to 24h, e.g. 1s"
        );
    }

    #[test]
    fn formats_are_compact_and_exact() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(4096), "4 KiB");
        assert_eq!(format_bytes(1536 * 1024), "1.5 MiB");
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(3 << 50), "3 PiB");
        assert_eq!(binary_scale(-1.0), (0.0, "B"));
        assert_eq!(binary_scale(f64::NAN), (0.0, "B"));
        assert_eq!(binary_scale(1536.0), (1.5, "KiB"));
        assert_eq!(format_size_short(4096), "4k");
        assert_eq!(format_size_short(1 << 30), "1G");
        assert_eq!(format_size_short(1536), "1536");
        assert_eq!(format_latency_ns(850.0), "850 ns");
        assert_eq!(format_latency_ns(12_345.0), "12.3 us");
        assert_eq!(format_latency_ns(4_560_000.0), "4.56 ms");
        assert_eq!(format_rate(12_345.0), "12.3k");
        assert_eq!(format_duration(Duration::from_millis(500)), "500ms");
        assert_eq!(format_duration(Duration::from_secs(120)), "2m");
        assert_eq!(format_duration(Duration::from_secs(30)), "30s");
        assert_eq!(format_duration(Duration::from_micros(1500)), "1500us");
        assert_eq!(format_duration(Duration::ZERO), "0us");
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        const SIZE_SUFFIXES: [(&str, u32); 13] = [
            ("", 0),
            ("b", 0),
            ("k", 10),
            ("K", 10),
            ("kb", 10),
            ("KiB", 10),
            ("m", 20),
            ("MB", 20),
            ("mib", 20),
            ("g", 30),
            ("GiB", 30),
            ("t", 40),
            ("TB", 40),
        ];
        const DURATION_UNITS: [(&str, u64); 7] = [
            ("us", 1),
            ("ms", 1_000),
            ("", 1_000_000),
            ("s", 1_000_000),
            ("m", 60_000_000),
            ("min", 60_000_000),
            ("h", 3_600_000_000),
        ];

        proptest! {
            #[test]
            fn any_text_is_a_size_or_none_never_a_panic(text in "\\PC{0,24}") {
                let _ = parse_size_bytes(&text);
            }

            #[test]
            fn a_number_with_a_suffix_is_that_many_units_or_none_on_overflow(
                number in any::<u64>(), suffix in 0..SIZE_SUFFIXES.len()
            ) {
                let (unit, shift) = SIZE_SUFFIXES[suffix];
                let want = number.checked_mul(1 << shift);
                prop_assert_eq!(parse_size_bytes(&format!("{number}{unit}")), want);
            }

            #[test]
            fn a_formatted_size_parses_back(bytes in any::<u64>(), shift in 0u32..41) {
                let bytes = bytes >> shift << shift;
                prop_assert_eq!(parse_size_bytes(&format_size_short(bytes)), Some(bytes));
            }

            #[test]
            fn any_text_is_a_duration_or_an_error_never_a_panic(text in "\\PC{0,24}") {
                let _ = parse_duration(&text);
            }

            #[test]
            fn a_number_with_a_unit_is_that_long_or_too_long(
                number in any::<u64>(), unit in 0..DURATION_UNITS.len()
            ) {
                let (suffix, us_per_unit) = DURATION_UNITS[unit];
                let want = u128::from(number) * u128::from(us_per_unit);
                match parse_duration(&format!("{number}{suffix}")) {
                    Ok(duration) => prop_assert_eq!(duration.as_micros(), want),
                    Err(e) => {
                        prop_assert_eq!(e, DurationError::TooLong);
                        // Too long exactly when the seconds overflow u64.
                        prop_assert!(want / 1_000_000 > u128::from(u64::MAX));
                    }
                }
            }

            #[test]
            fn any_text_is_an_interval_in_bounds_or_an_error(text in "\\PC{0,24}") {
                if let Ok(interval) = Interval::parse(&text) {
                    prop_assert!((MIN_INTERVAL..=MAX_INTERVAL).contains(&interval.get()));
                }
            }

            #[test]
            fn a_number_with_a_unit_is_that_interval_or_out_of_bounds(
                number in 0u64..200_000_000_000, unit in 0..DURATION_UNITS.len()
            ) {
                let (suffix, us_per_unit) = DURATION_UNITS[unit];
                let us = u128::from(number) * u128::from(us_per_unit);
                let want = if us < MIN_INTERVAL.as_micros() {
                    Err(IntervalError::TooShort)
                } else if us > MAX_INTERVAL.as_micros() {
                    Err(IntervalError::TooLong)
                } else {
                    Ok(us)
                };
                let got = Interval::parse(&format!("{number}{suffix}")).map(|i| i.get().as_micros());
                prop_assert_eq!(got, want);
            }

            #[test]
            fn decimal_seconds_are_exact_to_the_nanosecond(
                whole in 0u64..86_400, nanos in 0u32..1_000_000_000
            ) {
                let want = Duration::new(whole, nanos);
                let got = Interval::parse(&format!("{whole}.{nanos:09}")).map(Interval::get);
                prop_assert_eq!(got, Interval::new(want).map(Interval::get));
            }

            #[test]
            fn a_formatted_interval_parses_back(micros in 10_000u64..=86_400_000_000) {
                let duration = Duration::from_micros(micros);
                let text = format_duration(duration);
                prop_assert_eq!(Interval::parse(&text).map(Interval::get), Ok(duration), "{}", text);
            }

            #[test]
            fn a_formatted_duration_parses_back(micros in 0u64..(400 * 24 * 3_600_000_000)) {
                let duration = Duration::from_micros(micros);
                let text = format_duration(duration);
                prop_assert_eq!(parse_duration(&text), Ok(duration), "{}", text);
            }
        }
    }
}
