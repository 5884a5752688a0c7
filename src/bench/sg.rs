//! fio's sg engine on a block device: each `sg_write_mode` as the reads and writes with the
//! same effect on the medium and on the result, since diskdash sends no SCSI commands. The
//! job's buffers are prepared once (fio's `buffer_pattern`; the first logical block repeated
//! for `write_same`; zeros for `write_same_ndob`), and a verifying mode compares what it reads
//! with them: a difference fails the job as the device's MISCOMPARE fails fio's command.

use std::os::fd::RawFd;

use crate::bench::buffer::{AlignedBuffers, Pages};
use crate::bench::spec::{JobSpec, SgMode, fill_pattern, sg_mismatch};

/// What an sg job checks after each I/O.
/// The errno of a failed compare: fio's sg engine reads the device's CHECK CONDITION
/// (MISCOMPARE) as EIO on the command's direction, a write (the verifying modes go out on
/// `rw=write`), so `continue_on_error=write`, `io` or `all` pass it and `verify` does not.
pub const MISCOMPARE_ERRNO: i32 = libc::EIO;

pub struct SgData {
    mode: SgMode,
    /// The job's buffer as it was before any I/O: what a compare expects.
    expect: Vec<u8>,
    /// The device's logical block size: `verify_bytchk_11` compares each such block.
    logical_bytes: usize,
    /// Where `write_and_verify` reads back a block (aligned for O_DIRECT).
    scratch: Option<AlignedBuffers>,
}

/// Fills every slot of `buffers` (`block_bytes` each) as the job's data says: the
/// `buffer_pattern`, then for an sg job its mode's data. Returns the sg job's checks.
///
/// # Errors
/// The scratch buffer of `write_and_verify` could not be allocated.
pub fn prepare(
    spec: &JobSpec,
    buffers: &mut AlignedBuffers,
    block_bytes: usize,
    logical_bytes: usize,
) -> anyhow::Result<Option<SgData>> {
    for slot in 0..buffers.slots() {
        // SAFETY: each slot holds at least `block_bytes` bytes, `&mut buffers` gives exclusive
        // access, and no I/O has been issued on them yet.
        let block = unsafe { std::slice::from_raw_parts_mut(buffers.slot_ptr(slot), block_bytes) };
        if let Some(pattern) = &spec.buffer_pattern {
            fill_pattern(block, pattern);
        }
        match spec.sg {
            Some(SgMode::Same) => repeat_first(block, logical_bytes),
            Some(SgMode::SameNdob) => block.fill(0),
            _ => {}
        }
    }
    let Some(mode) = spec.sg else {
        return Ok(None);
    };
    // SAFETY: as above; slot 0 holds `block_bytes` bytes and nothing is in flight.
    let first = unsafe { std::slice::from_raw_parts(buffers.slot_ptr(0), block_bytes) };
    let scratch = if mode == SgMode::WriteAndVerify {
        Some(AlignedBuffers::new_zeroed(1, block_bytes, Pages::Plain)?)
    } else {
        None
    };
    Ok(Some(SgData {
        mode,
        expect: first.to_vec(),
        logical_bytes: logical_bytes.max(1),
        scratch,
    }))
}

/// The first `logical_bytes` of `block` over the rest of it, as WRITE SAME writes one block
/// over the range.
fn repeat_first(block: &mut [u8], logical_bytes: usize) {
    if logical_bytes == 0 || logical_bytes >= block.len() {
        return;
    }
    let (first, rest) = block.split_at_mut(logical_bytes);
    for chunk in rest.chunks_mut(logical_bytes) {
        chunk.copy_from_slice(&first[..chunk.len()]);
    }
}

impl SgData {
    /// Checks a completed read of `block` at `offset`: `Err` names the first byte that
    /// differs from the job's buffer (`verify_bytchk_01`, `verify_bytchk_11`).
    pub fn check_read(&self, block: &[u8], offset: u64) -> Result<(), String> {
        let each = match self.mode {
            SgMode::VerifyCompare => None,
            SgMode::VerifyEachBlock => Some(self.logical_bytes),
            _ => return Ok(()),
        };
        match sg_mismatch(block, &self.expect, each) {
            None => Ok(()),
            Some(at) => Err(self.miscompare(block[at], at, offset)),
        }
    }

    /// After a completed write of `len` bytes at `offset` (`write_and_verify`): reads them
    /// back and compares them with the job's buffer. `Err((errno, detail))`.
    pub fn check_write(&mut self, fd: RawFd, offset: u64, len: usize) -> Result<(), (i32, String)> {
        let Some(scratch) = &self.scratch else {
            return Ok(());
        };
        let len = len.min(self.expect.len());
        let mut done = 0usize;
        while done < len {
            // SAFETY: the scratch slot holds `expect.len()` >= len bytes; done < len keeps the
            // range inside, and nothing else uses the scratch buffer.
            let rc = unsafe {
                libc::pread(
                    fd,
                    scratch.slot_ptr(0).add(done).cast(),
                    len - done,
                    libc::off_t::try_from(offset + done as u64).unwrap_or(libc::off_t::MAX),
                )
            };
            if rc < 0 {
                let errno = std::io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO);
                if errno == libc::EINTR || errno == libc::EAGAIN {
                    continue;
                }
                return Err((
                    errno,
                    "reading back the block written (write_and_verify)".into(),
                ));
            }
            if rc == 0 {
                return Err((0, "the device ended before the block written".into()));
            }
            done += rc.unsigned_abs();
        }
        // SAFETY: `len` bytes were just read into the scratch slot, which holds at least that.
        let got = unsafe { std::slice::from_raw_parts(scratch.slot_ptr(0), len) };
        match sg_mismatch(got, &self.expect, None) {
            None => Ok(()),
            Some(at) => Err((MISCOMPARE_ERRNO, self.miscompare(got[at], at, offset))),
        }
    }

    fn miscompare(&self, got: u8, at: usize, offset: u64) -> String {
        let want = match self.mode {
            SgMode::VerifyEachBlock => self.expect[at % self.logical_bytes],
            _ => self.expect[at],
        };
        format!(
            "sg_write_mode={}: byte {at} of the block (offset {}) reads {got:#04x} where the \
             job's buffer holds {want:#04x} (a SCSI MISCOMPARE in fio)",
            self.mode.as_str(),
            offset + at as u64
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_same_repeats_the_first_logical_block() {
        let mut block: Vec<u8> = (0..16).collect();
        repeat_first(&mut block, 4);
        assert_eq!(block, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]);
        let mut short: Vec<u8> = (0..6).collect();
        repeat_first(&mut short, 4);
        assert_eq!(short, [0, 1, 2, 3, 0, 1]);
    }

    #[test]
    fn a_mismatch_is_found_at_its_byte_whole_or_block_by_block() {
        let expect = [1u8, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(sg_mismatch(&expect, &expect, None), None);
        assert_eq!(
            sg_mismatch(&[1, 2, 3, 9, 5, 6, 7, 8], &expect, None),
            Some(3)
        );
        // Each 4-byte block against the first 4 bytes: the second block equals the first.
        assert_eq!(
            sg_mismatch(&[1, 2, 3, 4, 1, 2, 3, 4], &expect, Some(4)),
            None
        );
        assert_eq!(
            sg_mismatch(&[1, 2, 3, 4, 1, 2, 0, 4], &expect, Some(4)),
            Some(6)
        );
        // Whole-buffer compare of the same data fails at the second block.
        assert_eq!(
            sg_mismatch(&[1, 2, 3, 4, 1, 2, 3, 4], &expect, None),
            Some(4)
        );
    }

    #[test]
    fn a_miscompare_names_the_mode_and_the_offset() {
        let data = SgData {
            mode: SgMode::VerifyEachBlock,
            expect: vec![1; 8],
            logical_bytes: 4,
            scratch: None,
        };
        assert_eq!(data.check_read(&[1; 8], 512), Ok(()));
        assert_eq!(
            data.check_read(&[1, 1, 1, 1, 1, 0, 1, 1], 512).unwrap_err(),
            "sg_write_mode=verify_bytchk_11: byte 5 of the block (offset 517) reads 0x00 where \
             the job's buffer holds 0x01 (a SCSI MISCOMPARE in fio)"
        );
    }
}
