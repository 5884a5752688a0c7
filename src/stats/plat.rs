//! fio's `plat` latency buckets (fio's `stat.h`/`stat.c`: `FIO_IO_U_PLAT_BITS`,
//! `plat_val_to_idx`, `plat_idx_to_val`): the layout of json+'s `bins` and of fio's histogram
//! logs. The arithmetic is fio's, written from its description.

/// Bits of a value kept exact in each power of two (fio's `FIO_IO_U_PLAT_BITS`).
const PLAT_BITS: u32 = 6;
/// Buckets per power of two (fio's `FIO_IO_U_PLAT_VAL`).
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// Powers of two covered (fio's `FIO_IO_U_PLAT_GROUP_NR`); the last bucket takes the rest.
const PLAT_GROUPS: u64 = 29;
/// Buckets in all (fio's `FIO_IO_U_PLAT_NR`).
pub const PLAT_NR: u64 = PLAT_GROUPS * PLAT_VAL;

/// fio's bucket index of a latency in ns: values below `2 * PLAT_VAL` are their own bucket;
/// above, the power of two `[2^m, 2^(m+1))` is cut into `PLAT_VAL` buckets.
#[must_use]
pub fn plat_index(ns: u64) -> u64 {
    let msb = if ns == 0 {
        0
    } else {
        u64::BITS - 1 - ns.leading_zeros()
    };
    if msb <= PLAT_BITS {
        return ns;
    }
    let error_bits = msb - PLAT_BITS;
    let base = u64::from(error_bits + 1) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (ns >> error_bits);
    (base + offset).min(PLAT_NR - 1)
}

/// The value fio prints for bucket `index`: the middle of its range (fio's `plat_idx_to_val`,
/// truncated as fio's integer conversion does).
#[must_use]
pub fn plat_value(index: u64) -> u64 {
    if index < (PLAT_VAL << 1) {
        return index;
    }
    let error_bits = (index >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + u64::from(PLAT_BITS));
    let k = index % PLAT_VAL;
    // (k + 0.5) * 2^error_bits, in integers: the half is 2^(error_bits - 1), error_bits >= 1.
    base + (k << error_bits) + (1u64 << (error_bits - 1))
}
