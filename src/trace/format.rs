//! A tracepoint's `format` file (`events/<system>/<event>/format`): its id and where each
//! field lies in the event's record. Read at run time, so a kernel that moves or resizes a
//! field still decodes right; values are read in the machine's byte order, as the kernel wrote
//! them.

/// Where one field lies in an event's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub offset: usize,
    pub size: usize,
    pub signed: bool,
}

impl Field {
    /// The field as an unsigned number (1, 2, 4 or 8 bytes; a signed one sign-extended);
    /// `None` when the record is too short or the size is not a number's.
    #[inline(always)]
    #[must_use]
    pub fn read(&self, record: &[u8]) -> Option<u64> {
        let value = read_ne(record, self.offset, self.size)?;
        if self.signed && self.size < 8 {
            let shift = 64 - 8 * self.size as u32;
            return Some((((value << shift) as i64) >> shift) as u64);
        }
        Some(value)
    }
}

/// The number of `size` bytes (1, 2, 4 or 8) at `at` in `bytes`, in the machine's byte order;
/// `None` when they run past the end or the size is not a number's. Every event's fields go
/// through here, so it is written with plain indexing and shifts, no calls: the test suite's
/// unoptimised build would otherwise spend most of the reader's time in the slice and
/// conversion helpers (`get`, `try_into`, `from_ne_bytes`).
#[inline(always)]
#[must_use]
pub fn read_ne(bytes: &[u8], at: usize, size: usize) -> Option<u64> {
    if !matches!(size, 1 | 2 | 4 | 8) || at > bytes.len() || bytes.len() - at < size {
        return None;
    }
    let mut value = 0u64;
    let mut i = 0;
    while i < size {
        let byte = bytes[at + i] as u64;
        if cfg!(target_endian = "little") {
            value |= byte << (8 * i);
        } else {
            value = (value << 8) | byte;
        }
        i += 1;
    }
    Some(value)
}

/// A tracepoint's id (the record's `common_type`) and its fields by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventFormat {
    pub name: String,
    pub id: u16,
    fields: Vec<(String, Field)>,
}

impl EventFormat {
    /// Parses a `format` file. Lines that are not `name:`, `ID:` or `field:` (the `print fmt`)
    /// are skipped.
    ///
    /// # Errors
    /// No name, no id, or a `field:` line without a numeric offset and size, said in words.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut name = None;
        let mut id = None;
        let mut fields = Vec::new();
        for line in text.lines() {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("name:") {
                name = Some(rest.trim().to_string());
            } else if let Some(rest) = line.strip_prefix("ID:") {
                id = Some(
                    rest.trim()
                        .parse::<u16>()
                        .map_err(|_| format!("ID `{}` is not a number", rest.trim()))?,
                );
            } else if line.starts_with("field:") {
                fields.push(parse_field(line)?);
            }
        }
        Ok(Self {
            name: name.ok_or("no `name:` line")?,
            id: id.ok_or("no `ID:` line")?,
            fields,
        })
    }

    /// The field called `name`.
    #[must_use]
    pub fn field(&self, name: &str) -> Option<Field> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, field)| *field)
    }
}

/// One `field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;` line.
fn parse_field(line: &str) -> Result<(String, Field), String> {
    let mut parts = line.split(';').map(str::trim);
    let declaration = parts
        .next()
        .and_then(|d| d.strip_prefix("field:"))
        .ok_or_else(|| format!("`{line}`: no declaration"))?;
    // The name is the declaration's last word, an array's brackets cut off
    // (`char rwbs[10]`, `__data_loc char[] cmd`).
    let last = declaration
        .split_whitespace()
        .last()
        .ok_or_else(|| format!("`{line}`: no field name"))?;
    let name = last.split('[').next().unwrap_or(last).to_string();
    let (mut offset, mut size, mut signed) = (None, None, false);
    for part in parts {
        if let Some((key, value)) = part.split_once(':') {
            let number = value.trim().parse::<usize>().ok();
            match key.trim() {
                "offset" => offset = number,
                "size" => size = number,
                "signed" => signed = number == Some(1),
                _ => {}
            }
        }
    }
    match (offset, size) {
        (Some(offset), Some(size)) => Ok((
            name,
            Field {
                offset,
                size,
                signed,
            },
        )),
        _ => Err(format!("`{line}`: no numeric offset and size")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `block_rq_issue` of Linux 6.18.
    const ISSUE: &str = "name: block_rq_issue
ID: 2104
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;
\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;
\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;
\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;
\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;
\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;
\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;
\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;

print fmt: \"%d,%d %s %u (%s) %llu + %u %s,%u,%u [%s]\", ((unsigned int) ((REC->dev) >> 20))
";

    /// The same event as an imagined kernel lays it out: `sector` first, `dev` widened to
    /// 8 bytes after it, `rwbs` moved to the end.
    const MOVED: &str = "name: block_rq_issue
ID: 77
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;
\tfield:sector_t sector;\toffset:8;\tsize:8;\tsigned:0;
\tfield:u64 dev;\toffset:16;\tsize:8;\tsigned:0;
\tfield:unsigned int bytes;\toffset:24;\tsize:4;\tsigned:0;
\tfield:char rwbs[8];\toffset:28;\tsize:8;\tsigned:0;
";

    #[test]
    fn the_fields_of_a_real_format_file_are_where_it_says() {
        let format = EventFormat::parse(ISSUE).unwrap();
        assert_eq!(format.name, "block_rq_issue");
        assert_eq!(format.id, 2104);
        assert_eq!(
            format.field("sector"),
            Some(Field {
                offset: 16,
                size: 8,
                signed: false
            })
        );
        assert_eq!(format.field("rwbs").unwrap().size, 10);
        assert_eq!(format.field("cmd").unwrap().offset, 60);
        assert!(format.field("common_pid").unwrap().signed);
        assert_eq!(format.field("nosuch"), None);
    }

    #[test]
    fn a_format_with_moved_fields_reads_the_values_from_where_they_moved() {
        let format = EventFormat::parse(MOVED).unwrap();
        let mut record = vec![0u8; 36];
        record[0..2].copy_from_slice(&77u16.to_ne_bytes());
        record[4..8].copy_from_slice(&(-5i32).to_ne_bytes());
        record[8..16].copy_from_slice(&123_456u64.to_ne_bytes());
        record[16..24].copy_from_slice(&((8u64 << 20) | 16).to_ne_bytes());
        record[24..28].copy_from_slice(&4096u32.to_ne_bytes());
        record[28..30].copy_from_slice(b"WS");
        let read = |name: &str| format.field(name).unwrap().read(&record);
        assert_eq!(read("sector"), Some(123_456));
        assert_eq!(read("dev"), Some((8 << 20) | 16));
        assert_eq!(read("bytes"), Some(4096));
        assert_eq!(read("common_pid"), Some(-5i64 as u64));
        let rwbs = format.field("rwbs").unwrap();
        assert_eq!(
            &record[rwbs.offset..rwbs.offset + rwbs.size],
            &b"WS\0\0\0\0\0\0"[..]
        );
        // A record cut short reads nothing rather than garbage.
        assert_eq!(format.field("bytes").unwrap().read(&record[..26]), None);
    }

    #[test]
    fn a_file_without_an_id_or_with_a_broken_field_is_refused() {
        assert!(EventFormat::parse("name: x\n").is_err());
        assert!(
            EventFormat::parse("name: x\nID: 3\n\tfield:int a;\toffset:zz;\tsize:4;\n").is_err()
        );
        assert!(EventFormat::parse("name: x\nID: nope\n").is_err());
    }
}
