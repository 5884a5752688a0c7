//! The small value types the bench modules share, below all of them: a direction, the
//! random step, CPU lists. A leaf: it names no other module of `bench`, so the option modules
//! (rate, prio, buffer, fileset) that `spec` builds on need not name `spec` or `workload`.

/// Direction of one I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Read,
    Write,
    /// A discard: the range's data is dropped (BLKDISCARD, or a hole punched in a file).
    Trim,
}

/// The most CPUs `--cpus` may name: Linux's largest `CONFIG_NR_CPUS`.
pub const MAX_CPUS: usize = 8192;

/// Why a text is not a CPU list (see [`parse_cpu_list`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuListError {
    /// Not `N`, `N-M` (N <= M) or a comma-separated list of those.
    Syntax,
    /// A CPU at or above [`MAX_CPUS`], which no Linux kernel has.
    OutOfRange(usize),
}

/// Parses a CPU list as in `taskset -c` and `/sys/devices/system/cpu/online`: `0-3,6`, spaces
/// around numbers allowed. Returns the CPUs sorted, without repeats. Memory is bounded by
/// [`MAX_CPUS`] whatever the text (`0-8191` repeated a thousand times is one set).
///
/// # Errors
/// [`CpuListError`]: a word that is not a number or range, a range that runs backwards, or a
/// CPU of [`MAX_CPUS`] or more.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, CpuListError> {
    let mut wanted = vec![false; MAX_CPUS];
    for part in text.split(',') {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<usize>(), b.trim().parse::<usize>()),
            None => (part.trim().parse::<usize>(), part.trim().parse::<usize>()),
        };
        let (Ok(first), Ok(last)) = (first, last) else {
            return Err(CpuListError::Syntax);
        };
        if first > last {
            return Err(CpuListError::Syntax);
        }
        if last >= MAX_CPUS {
            return Err(CpuListError::OutOfRange(last));
        }
        wanted[first..=last].fill(true);
    }
    Ok((0..MAX_CPUS).filter(|&cpu| wanted[cpu]).collect())
}

/// `0-3,6` from a sorted list.
#[must_use]
pub fn format_cpu_list(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// splitmix64 (Steele, Lea, Flood 2014): one multiply-xorshift step per draw.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
