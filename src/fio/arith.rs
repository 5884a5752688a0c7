//! fio's arithmetic in option values, as fio 3.33 does it (HOWTO "Reserved keywords" and
//! "Arithmetic"), two mechanisms:
//!
//! - **Keywords**: `$pagesize`, `$mb_memory` and `$ncpus` are replaced in any value by the
//!   machine's page size (bytes), physical memory (MiB) and CPUs. When one was replaced and
//!   the value holds `+`, `-`, `*` or `/`, fio hands the whole value to `bc`: integer
//!   arithmetic (`scale=0`, so `/` truncates), `^` a power, `%` the remainder, no suffixes.
//!   `size=$mb_memory/2` is half the memory's MiB count, in bytes, as in fio.
//! - **Expressions**: a number written in parentheses, `(1+2)*3` or `(4k*3)`, goes through
//!   fio's expression parser: `+ - * / % ^`, unary minus, decimals, `0x` hex, and a suffix
//!   after a number or a parenthesis multiplying it with fio's own table (`k`/`kb` 1024, `m`/`mb`
//!   MiB, `g`, `t`, `p` binary; fio's `kib`/`mib`/`gib` are 1000, 1000², 1000³ and its `pib`
//!   1000⁴, as its lexer has them). A `#`, `:` or `,` ends the expression, as in fio. Time
//!   suffixes are refused: write times without arithmetic.
//!
//! Both give an integer, written back as the option's value in plain digits.

/// What the keywords stand for on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    pub pagesize: u64,
    pub mb_memory: u64,
    pub ncpus: u64,
}

impl Facts {
    /// This machine's page size, its physical memory in MiB and the CPUs this process may
    /// run on (fio counts the CPUs online; they differ only under an affinity mask).
    #[must_use]
    pub fn of(machine: &crate::bench::spec::MachineLimits) -> Self {
        let pagesize = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
            .ok()
            .flatten()
            .and_then(|p| u64::try_from(p).ok())
            .unwrap_or(4096);
        Self {
            pagesize,
            mb_memory: machine.memory_bytes >> 20,
            ncpus: machine.available_cpus.len() as u64,
        }
    }
}

/// `text` with fio's keywords replaced and its arithmetic done; `Ok(None)` when it holds
/// neither (the value stays as written).
///
/// # Errors
/// What is wrong with the arithmetic, in words (the caller names the option).
pub fn evaluate(text: &str, facts: &Facts) -> Result<Option<String>, String> {
    let mut replaced = text.to_string();
    for (word, value) in [
        ("$pagesize", facts.pagesize),
        ("$mb_memory", facts.mb_memory),
        ("$ncpus", facts.ncpus),
    ] {
        replaced = replaced.replace(word, &value.to_string());
    }
    let trimmed = replaced.trim();
    if replaced != text {
        if trimmed.contains(['+', '-', '*', '/']) {
            let value = Parser::new(trimmed, false).whole()?;
            return Ok(Some(value.to_string()));
        }
        return Ok(Some(replaced));
    }
    if trimmed.starts_with('(') {
        let value = Parser::new(trimmed, true).whole()?;
        return Ok(Some(value.to_string()));
    }
    Ok(None)
}

/// How deep parentheses, unary minus and `^` may nest together: every level is a frame of the
/// recursive descent, and a value is text anyone can hand us (a job file, a command line).
const MAX_DEPTH: usize = 64;

/// A recursive-descent parser over one value: `expr := term (('+'|'-') term)*`,
/// `term := power (('*'|'/'|'%') power)*`, `power := unary ('^' power)?`,
/// `unary := '-' unary | atom suffix?`, `atom := number | '(' expr ')'`.
struct Parser<'a> {
    text: &'a [u8],
    at: usize,
    /// fio's expression parser (suffixes, decimals, hex); else `bc` (integers only).
    fio: bool,
}

/// Integers while they stay whole; a decimal makes the rest decimal (fio keeps both).
#[derive(Debug, Clone, Copy)]
enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    fn float(self) -> f64 {
        match self {
            Self::Int(i) => i as f64,
            Self::Float(f) => f,
        }
    }
}

const TOO_BIG: &str = "is out of range";

impl<'a> Parser<'a> {
    fn new(text: &'a str, fio: bool) -> Self {
        // fio's lexer ignores everything after '#', ':' or ','.
        let end = if fio {
            text.find(['#', ':', ',']).unwrap_or(text.len())
        } else {
            text.len()
        };
        Self {
            text: &text.as_bytes()[..end],
            at: 0,
            fio,
        }
    }

    fn whole(mut self) -> Result<u64, String> {
        let value = self.expr(0)?;
        self.skip_blanks();
        if self.at < self.text.len() {
            return Err(format!(
                "has {:?} where an operator or the end belongs",
                char::from(self.text[self.at])
            ));
        }
        let whole = match value {
            Num::Int(i) => i,
            Num::Float(f) if f.is_finite() && f.abs() < 1e30 => f.trunc() as i128,
            Num::Float(_) => return Err(TOO_BIG.to_string()),
        };
        u64::try_from(whole).map_err(|_| {
            if whole < 0 {
                format!("comes to {whole}, below 0")
            } else {
                TOO_BIG.to_string()
            }
        })
    }

    fn skip_blanks(&mut self) {
        while self.at < self.text.len() && matches!(self.text[self.at], b' ' | b'\t') {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_blanks();
        self.text.get(self.at).copied()
    }

    fn expr(&mut self, depth: usize) -> Result<Num, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nests parentheses deeper than {MAX_DEPTH}"));
        }
        let mut left = self.term(depth)?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.at += 1;
            let right = self.term(depth)?;
            left = apply(op, left, right)?;
        }
        Ok(left)
    }

    fn term(&mut self, depth: usize) -> Result<Num, String> {
        let mut left = self.power(depth)?;
        while let Some(op @ (b'*' | b'/' | b'%')) = self.peek() {
            self.at += 1;
            let right = self.power(depth)?;
            left = apply(op, left, right)?;
        }
        Ok(left)
    }

    fn power(&mut self, depth: usize) -> Result<Num, String> {
        if depth > MAX_DEPTH {
            return Err(format!("chains '^' or unary '-' deeper than {MAX_DEPTH}"));
        }
        let base = self.unary(depth)?;
        if self.peek() == Some(b'^') {
            self.at += 1;
            let exponent = self.power(depth + 1)?;
            return apply(b'^', base, exponent);
        }
        Ok(base)
    }

    fn unary(&mut self, depth: usize) -> Result<Num, String> {
        if depth > MAX_DEPTH {
            return Err(format!("chains '^' or unary '-' deeper than {MAX_DEPTH}"));
        }
        if self.peek() == Some(b'-') {
            self.at += 1;
            return match self.unary(depth + 1)? {
                Num::Int(i) => Ok(Num::Int(-i)),
                Num::Float(f) => Ok(Num::Float(-f)),
            };
        }
        let value = self.atom(depth)?;
        if self.fio {
            if let Some(mult) = self.suffix()? {
                return apply(b'*', value, Num::Int(mult));
            }
        }
        Ok(value)
    }

    fn atom(&mut self, depth: usize) -> Result<Num, String> {
        match self.peek() {
            Some(b'(') => {
                self.at += 1;
                let value = self.expr(depth + 1)?;
                match self.peek() {
                    Some(b')') => {}
                    Some(other) => {
                        return Err(format!(
                            "has {:?} where an operator or ')' belongs",
                            char::from(other)
                        ));
                    }
                    None => return Err("has a '(' without its ')'".to_string()),
                }
                self.at += 1;
                Ok(value)
            }
            Some(b'0'..=b'9' | b'.') => self.number(),
            Some(other) => Err(format!(
                "has {:?} where a number belongs",
                char::from(other)
            )),
            None => Err("ends where a number belongs".to_string()),
        }
    }

    fn number(&mut self) -> Result<Num, String> {
        let rest = &self.text[self.at..];
        if self.fio && rest.len() > 2 && rest[0] == b'0' && matches!(rest[1], b'x' | b'X') {
            let digits = rest[2..]
                .iter()
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
            let hex = std::str::from_utf8(&rest[2..2 + digits]).unwrap_or("");
            self.at += 2 + digits;
            return i128::from_str_radix(hex, 16)
                .map(Num::Int)
                .map_err(|_| "has a bad hex number".to_string());
        }
        let mut len = rest
            .iter()
            .take_while(|b| b.is_ascii_digit() || (self.fio && **b == b'.'))
            .count();
        // An exponent, fio's lexer: 1e3, 2.5E-1.
        if self.fio && len > 0 && matches!(rest.get(len), Some(b'e' | b'E')) {
            let mut end = len + 1;
            while matches!(rest.get(end), Some(b'+' | b'-')) {
                end += 1;
            }
            let digits = rest[end..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits > 0 {
                len = end + digits;
            }
        }
        let text = std::str::from_utf8(&rest[..len]).unwrap_or("");
        self.at += len;
        if let Ok(i) = text.parse::<i128>() {
            return Ok(Num::Int(i));
        }
        text.parse::<f64>()
            .map(Num::Float)
            .map_err(|_| format!("has a bad number {text:?}"))
    }

    /// fio's expression suffixes (its lexer's table, `kib` = 1000 included).
    fn suffix(&mut self) -> Result<Option<i128>, String> {
        self.skip_blanks();
        let rest = &self.text[self.at..];
        let letters = rest.iter().take_while(|b| b.is_ascii_alphabetic()).count();
        if letters == 0 {
            return Ok(None);
        }
        let word = std::str::from_utf8(&rest[..letters])
            .unwrap_or("")
            .to_ascii_lowercase();
        let mult: i128 = match word.as_str() {
            "k" | "kb" => 1 << 10,
            "m" | "mb" => 1 << 20,
            "g" | "gb" => 1 << 30,
            "t" | "tb" => 1 << 40,
            "p" | "pb" => 1 << 50,
            "kib" => 1_000,
            "mib" => 1_000_000,
            "gib" => 1_000_000_000,
            "pib" => 1_000_000_000_000,
            "s" | "ms" | "us" | "h" | "d" => {
                return Err(format!(
                    "has the time suffix {word:?}; write the time without arithmetic"
                ));
            }
            _ => return Err(format!("has {word:?}, not a size suffix")),
        };
        self.at += letters;
        Ok(Some(mult))
    }
}

fn apply(op: u8, left: Num, right: Num) -> Result<Num, String> {
    let too_big = || TOO_BIG.to_string();
    if let (Num::Int(a), Num::Int(b)) = (left, right) {
        return match op {
            b'+' => a.checked_add(b).map(Num::Int).ok_or_else(too_big),
            b'-' => a.checked_sub(b).map(Num::Int).ok_or_else(too_big),
            b'*' => a.checked_mul(b).map(Num::Int).ok_or_else(too_big),
            b'/' | b'%' if b == 0 => Err("divides by zero".to_string()),
            b'/' => Ok(Num::Int(a / b)),
            b'%' => Ok(Num::Int(a % b)),
            _ => {
                let exp = u32::try_from(b).map_err(|_| too_big())?;
                a.checked_pow(exp).map(Num::Int).ok_or_else(too_big)
            }
        };
    }
    let (a, b) = (left.float(), right.float());
    let value = match op {
        b'+' => a + b,
        b'-' => a - b,
        b'*' => a * b,
        b'/' | b'%' if b == 0.0 => return Err("divides by zero".to_string()),
        b'/' => a / b,
        b'%' => a % b,
        _ => a.powf(b),
    };
    if value.is_finite() {
        Ok(Num::Float(value))
    } else {
        Err(too_big())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FACTS: Facts = Facts {
        pagesize: 4096,
        mb_memory: 8000,
        ncpus: 16,
    };

    fn eval(text: &str) -> Result<Option<String>, String> {
        evaluate(text, &FACTS)
    }

    #[test]
    fn keywords_are_replaced_and_computed_as_bc_does() {
        assert_eq!(eval("$mb_memory/2").unwrap().as_deref(), Some("4000"));
        assert_eq!(eval("8*$mb_memory").unwrap().as_deref(), Some("64000"));
        assert_eq!(eval("$ncpus").unwrap().as_deref(), Some("16"));
        assert_eq!(
            eval("$ncpus/3").unwrap().as_deref(),
            Some("5"),
            "bc truncates"
        );
        assert_eq!(eval("$pagesize").unwrap().as_deref(), Some("4096"));
        assert_eq!(eval("2^10+$ncpus").unwrap().as_deref(), Some("1040"));
        // No operator: the replaced text stays as it is (a suffix may follow).
        assert_eq!(
            eval("${x}$pagesize k").unwrap().as_deref(),
            Some("${x}4096 k")
        );
    }

    #[test]
    fn parenthesised_values_go_through_fios_expression_parser() {
        assert_eq!(eval("(1+2)*3").unwrap().as_deref(), Some("9"));
        assert_eq!(eval("(4k*3)").unwrap().as_deref(), Some("12288"));
        assert_eq!(eval("(1m/2)").unwrap().as_deref(), Some("524288"));
        assert_eq!(eval("(2+3)k").unwrap().as_deref(), Some("5120"));
        assert_eq!(
            eval("(1kib)").unwrap().as_deref(),
            Some("1000"),
            "fio's own table"
        );
        assert_eq!(eval("(0x10*2)").unwrap().as_deref(), Some("32"));
        assert_eq!(eval("(1.5*1024)").unwrap().as_deref(), Some("1536"));
        assert_eq!(
            eval("(10-2-3)").unwrap().as_deref(),
            Some("5"),
            "left to right"
        );
        assert_eq!(
            eval("(2^3^2)").unwrap().as_deref(),
            Some("512"),
            "right to left"
        );
        assert_eq!(eval("(-2*-3)").unwrap().as_deref(), Some("6"));
        assert_eq!(eval("(7%4) # rest").unwrap().as_deref(), Some("3"));
    }

    #[test]
    fn long_chains_of_operators_are_refused_not_recursed_into() {
        // Each would take a stack frame per operator: 50,000 of them overflowed the stack.
        let minus = format!("({}1)", "-".repeat(50_000));
        assert_eq!(
            eval(&minus).unwrap_err(),
            "chains '^' or unary '-' deeper than 64"
        );
        let power = format!("({}1)", "1^".repeat(50_000));
        assert_eq!(
            eval(&power).unwrap_err(),
            "chains '^' or unary '-' deeper than 64"
        );
        let bc = format!("$ncpus+{}1", "-".repeat(50_000));
        assert!(eval(&bc).unwrap_err().contains("deeper than 64"));
        // Within the cap they still compute.
        assert_eq!(
            eval(&format!("({}1)", "-".repeat(10))).unwrap().as_deref(),
            Some("1")
        );
    }

    #[test]
    fn plain_values_are_left_alone() {
        for text in ["4k", "randread", "1-2", "zoned:50/5:50/95", ""] {
            assert_eq!(eval(text).unwrap(), None, "{text}");
        }
    }

    #[test]
    fn bad_arithmetic_says_what_is_wrong() {
        assert_eq!(eval("(1+2").unwrap_err(), "has a '(' without its ')'");
        assert_eq!(eval("(1/0)").unwrap_err(), "divides by zero");
        assert_eq!(
            eval("(1)2").unwrap_err(),
            "has '2' where an operator or the end belongs"
        );
        assert_eq!(eval("(1-2)").unwrap_err(), "comes to -1, below 0");
        assert_eq!(eval("(2^200)").unwrap_err(), "is out of range");
        // Past u64 but inside i128: still too big for a size.
        assert_eq!(
            eval("(4294967296 * 4294967296)").unwrap_err(),
            "is out of range"
        );
        assert_eq!(eval("(3x)").unwrap_err(), "has \"x\", not a size suffix");
        assert_eq!(
            eval("(1s)").unwrap_err(),
            "has the time suffix \"s\"; write the time without arithmetic"
        );
        assert_eq!(
            eval("$ncpus/k").unwrap_err(),
            "has 'k' where a number belongs"
        );
        assert_eq!(
            eval("(1 2)").unwrap_err(),
            "has '2' where an operator or ')' belongs"
        );
    }

    /// A random expression over small integers and its value by an independent reckoning
    /// (`None` where it leaves i128).
    fn expression() -> impl Strategy<Value = (String, Option<i128>)> {
        let leaf = (0i128..1000).prop_map(|n| (n.to_string(), Some(n)));
        leaf.prop_recursive(4, 32, 2, |inner| {
            (
                inner.clone(),
                prop::sample::select(vec!['+', '*', '-']),
                inner,
            )
                .prop_map(|((a, x), op, (b, y))| {
                    let value = x.zip(y).and_then(|(x, y)| match op {
                        '+' => x.checked_add(y),
                        '*' => x.checked_mul(y),
                        _ => x.checked_sub(y),
                    });
                    (format!("({a} {op} {b})"), value)
                })
        })
    }

    proptest! {
        #[test]
        fn expressions_compute_what_they_say((text, value) in expression()) {
            let got = eval(&format!("({text})"));
            // A size is a u64: below 0 or above 2^64-1 is an error, as is what left i128.
            match value.map(u64::try_from) {
                Some(Ok(value)) => prop_assert_eq!(got, Ok(Some(value.to_string()))),
                _ => prop_assert!(got.is_err(), "{:?}", got),
            }
        }

        #[test]
        fn a_suffix_multiplies_by_fios_table(n in 0u64..1_000_000, s in 0usize..5) {
            let (suffix, mult) = [("k", 1u64 << 10), ("m", 1 << 20), ("g", 1 << 30), ("KB", 1 << 10), ("kib", 1000)][s];
            prop_assert_eq!(eval(&format!("({n}{suffix})")), Ok(Some((n * mult).to_string())));
        }

        #[test]
        fn keyword_division_truncates_like_bc(d in 1u64..10_000) {
            prop_assert_eq!(eval(&format!("$mb_memory/{d}")), Ok(Some((8000 / d).to_string())));
        }

        #[test]
        fn any_text_gives_a_value_or_an_error_without_panicking(text in "\\PC{0,40}") {
            let _ = eval(&text);
            let _ = eval(&format!("({text}"));
        }
    }
}
