//! The one `/proc/diskstats` sampler that `diskdash iostat`, the monitor dashboard and a
//! benchmark session share: the reader (its fd kept open), the previous sample, and the
//! `iostat -x` rows between the two (paired by position, else by name; a device that appeared
//! in between counts from zero, as sysstat does).

use std::time::Duration;

use crate::monitor::diskstats::{DiskstatsReader, DiskstatsSample};
use crate::monitor::iostat::{IostatRow, rows_between};

/// Samples `/proc/diskstats` and remembers the previous sample.
#[derive(Debug)]
pub struct Sampler {
    reader: DiskstatsReader,
    prev: Option<DiskstatsSample>,
    cur: Option<DiskstatsSample>,
}

/// One sample and the one before it.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    pub cur: &'a DiskstatsSample,
    /// `None` for the first sample.
    pub prev: Option<&'a DiskstatsSample>,
}

impl Step<'_> {
    /// One row per device of the sample over the interval since the previous one, in the
    /// order of `cur.disks`; `None` for the first sample.
    #[must_use]
    pub fn rows(&self) -> Option<Vec<IostatRow>> {
        self.prev.map(|prev| rows_between(prev, self.cur))
    }

    /// Time since the previous sample (zero for the first).
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        self.prev
            .map_or(Duration::ZERO, |prev| self.cur.at.saturating_sub(prev.at))
    }
}

impl Sampler {
    /// Opens `/proc/diskstats`.
    ///
    /// # Errors
    /// The file cannot be opened (no procfs).
    pub fn open() -> anyhow::Result<Self> {
        Ok(Self::with_reader(DiskstatsReader::open()?))
    }

    /// Samples another reader (a fixture).
    #[must_use]
    pub fn with_reader(reader: DiskstatsReader) -> Self {
        Self {
            reader,
            prev: None,
            cur: None,
        }
    }

    /// Reads the counters now; the sample before becomes the previous one.
    ///
    /// # Errors
    /// A read or parse error (the previous samples are kept).
    pub fn sample(&mut self) -> anyhow::Result<Step<'_>> {
        let sample = self.reader.sample()?;
        self.prev = self.cur.take();
        Ok(Step {
            cur: self.cur.insert(sample),
            prev: self.prev.as_ref(),
        })
    }

    /// The last sample and the one before, without reading.
    #[must_use]
    pub fn last(&self) -> Option<Step<'_>> {
        self.cur.as_ref().map(|cur| Step {
            cur,
            prev: self.prev.as_ref(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_pair_each_sample_with_the_one_before() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("diskstats");
        let line = |reads: u64| {
            format!(
                "   8       0 sda {reads} 0 {} 10 0 0 0 0 0 10 10 0 0 0 0 0 0\n",
                reads * 8
            )
        };
        std::fs::write(&path, line(100)).unwrap();
        let mut sampler = Sampler::with_reader(DiskstatsReader::open_path(&path).unwrap());
        let first = sampler.sample().unwrap();
        assert!(first.rows().is_none());
        assert_eq!(first.elapsed(), Duration::ZERO);
        std::fs::write(&path, line(150)).unwrap();
        let second = sampler.sample().unwrap();
        let rows = second.rows().unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].device, "sda");
        assert!(rows[0].reads_per_s > 0.0);
        assert_eq!(second.prev.unwrap().disks[0].reads, 100);
        assert_eq!(sampler.last().unwrap().cur.disks[0].reads, 150);
    }
}
