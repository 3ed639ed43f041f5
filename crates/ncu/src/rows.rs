//! The records of a raw capture, read at the speed of the data.
//!
//! `ncu --csv` quotes every field and puts no quote, comma or line break
//! inside one, so a launch row is `"f1","f2",...,"fn"` and its fields can
//! be cut out by finding its quotes alone (eight bytes at a time) instead
//! of running a CSV state machine over every byte of its ~2,200 columns.
//! A line of any other shape (a field with a quote in it, a line break in a
//! quoted field, `\r\n`, unquoted fields, a byte-order mark) goes through
//! `csv_core`, the same parser the `csv` crate runs, so every record comes
//! out exactly as `csv::Reader` (no headers, flexible) would give it, with
//! the same positions (tested against it in `tests`).

use std::io::Read;

/// One record: its fields as byte ranges of one buffer, and the line it
/// starts on (`csv::Position::line`'s count).
#[derive(Debug, Clone, Default)]
pub struct Record {
    data: Vec<u8>,
    bounds: Vec<(u32, u32)>,
    line: u64,
}

impl Record {
    /// An empty record.
    pub fn new() -> Record {
        Record::default()
    }

    fn clear(&mut self) {
        self.data.clear();
        self.bounds.clear();
    }

    /// Field `i`, when the record has one.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        self.bounds.get(i).map(|&(a, b)| &self.data[a as usize..b as usize])
    }

    /// Its number of fields.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Its fields in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.bounds.iter().map(|&(a, b)| &self.data[a as usize..b as usize])
    }

    /// Its fields' bytes one after another (`csv::ByteRecord::as_slice`).
    pub fn concat(&self) -> Vec<u8> {
        self.iter().flatten().copied().collect()
    }

    /// The line it starts on, counted from 1.
    pub fn line(&self) -> u64 {
        self.line
    }
}

/// Reads records from `inner`.
pub struct Rows<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    core: csv_core::Reader,
    /// Bytes consumed so far.
    byte: u64,
    /// csv_core's output for the records it parses.
    out: Vec<u8>,
    ends: Vec<usize>,
    /// No record read yet: the first goes through csv_core, which strips a
    /// byte-order mark at the start of the input only.
    first: bool,
    done: bool,
}

const BUFFER: usize = 1 << 20;

impl<R: Read> Rows<R> {
    /// Records of `inner`.
    pub fn new(inner: R) -> Rows<R> {
        Rows {
            inner,
            buf: vec![0; BUFFER],
            start: 0,
            end: 0,
            eof: false,
            core: csv_core::Reader::new(),
            byte: 0,
            out: vec![0; 64 << 10],
            ends: vec![0; 1024],
            first: true,
            done: false,
        }
    }

    /// Bytes consumed so far (`csv::Reader::position().byte()`).
    pub fn byte(&self) -> u64 {
        self.byte
    }

    /// Reads more input after what is buffered; false at the end.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            let len = self.buf.len() * 2;
            self.buf.resize(len, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The next record into `rec`; false at the end of the input.
    pub fn read(&mut self, rec: &mut Record) -> std::io::Result<bool> {
        rec.clear();
        rec.line = self.core.line();
        if self.done {
            return Ok(false);
        }
        if !self.first && self.fast(rec)? {
            return Ok(true);
        }
        self.first = false;
        self.slow(rec)
    }

    /// A whole line of quoted fields, cut at its quotes; false (nothing
    /// consumed) for a line of any other shape.
    fn fast(&mut self, rec: &mut Record) -> std::io::Result<bool> {
        if self.start == self.end && !self.fill()? {
            return Ok(false);
        }
        if self.buf[self.start] != b'"' {
            return Ok(false);
        }
        let mut searched = self.start;
        let newline = loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[searched..self.end]) {
                break searched + i;
            }
            let before = self.start;
            searched = self.end;
            if !self.fill()? {
                return Ok(false);
            }
            searched -= before - self.start;
        };
        if !split_quoted(&self.buf[self.start..newline], rec) {
            rec.clear();
            return Ok(false);
        }
        self.byte += (newline + 1 - self.start) as u64;
        self.start = newline + 1;
        self.core.set_line(self.core.line() + 1);
        Ok(true)
    }

    /// A record through csv_core, as `csv::Reader` reads it.
    fn slow(&mut self, rec: &mut Record) -> std::io::Result<bool> {
        use csv_core::ReadRecordResult::*;
        let (mut outlen, mut endlen) = (0, 0);
        loop {
            if self.start == self.end {
                self.fill()?;
            }
            let input = &self.buf[self.start..self.end];
            let (res, nin, nout, nend) =
                self.core.read_record(input, &mut self.out[outlen..], &mut self.ends[endlen..]);
            self.start += nin;
            self.byte += nin as u64;
            outlen += nout;
            endlen += nend;
            match res {
                InputEmpty => continue,
                OutputFull => {
                    let len = self.out.len() * 2;
                    self.out.resize(len, 0);
                }
                OutputEndsFull => {
                    let len = self.ends.len() * 2;
                    self.ends.resize(len, 0);
                }
                Record => {
                    rec.data.extend_from_slice(&self.out[..outlen]);
                    let mut from = 0;
                    for &e in &self.ends[..endlen] {
                        rec.bounds.push((from as u32, e as u32));
                        from = e;
                    }
                    return Ok(true);
                }
                End => {
                    self.done = true;
                    return Ok(false);
                }
            }
        }
    }
}

/// Per byte of a block of 64: where its quotes and its commas are, one bit
/// each.
#[cfg(target_arch = "x86_64")]
fn block_masks(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
    let (mut quotes, mut commas) = (0u64, 0u64);
    // SAFETY: SSE2 is part of every x86_64 processor; each load reads 16
    // bytes inside `block`, unaligned loads being allowed.
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let comma = _mm_set1_epi8(b',' as i8);
        for k in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k) as *const __m128i);
            quotes |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) as u16) << (16 * k);
            commas |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)) as u16) << (16 * k);
        }
    }
    (quotes, commas)
}

/// [`block_masks`] a byte at a time, where there is no SSE2.
#[cfg(not(target_arch = "x86_64"))]
fn block_masks(block: &[u8; 64]) -> (u64, u64) {
    let (mut quotes, mut commas) = (0u64, 0u64);
    for (i, &c) in block.iter().enumerate() {
        quotes |= u64::from(c == b'"') << i;
        commas |= u64::from(c == b',') << i;
    }
    (quotes, commas)
}

/// Bit i set where an odd number of bits 0..=i of `x` are: with the
/// quotes' bits, the bytes inside fields (from the opening quote on).
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Cuts `"f1","f2",...,"fn"` (no `\n`; no quote inside a field) into its
/// fields; false, with `rec` partly filled, for any other shape.
///
/// The line is looked at 64 bytes at a time, as bit masks of its quotes
/// and commas. Counting quotes from the start tells the bytes inside a
/// field (an opening quote and what follows it) from the closing quotes
/// and the bytes between fields. The shape holds when every byte between
/// fields is a comma that follows a closing quote and precedes an opening
/// one, the line opens with a quote and ends on a closing one.
fn split_quoted(line: &[u8], rec: &mut Record) -> bool {
    let n = line.len();
    if n < 2 || line[0] != b'"' || line[n - 1] != b'"' {
        return false;
    }
    rec.data.extend_from_slice(line);
    // Carried from one block to the next: inside a field at its last byte,
    // a closing quote there, a byte between fields there.
    let (mut inside, mut closed, mut between) = (0u64, 0u64, 0u64);
    // Fields opened and closed so far: the bounds' starts and ends are
    // written apart, each from its own mask.
    let (mut opened, mut ended) = (0usize, 0usize);
    let mut base = 0usize;
    while base < n {
        let left = n - base;
        let (quotes, commas) = match line.get(base..base + 64) {
            Some(b) => block_masks(b.try_into().expect("64 bytes")),
            None => {
                // The last bytes, padded with spaces (neither quote nor comma).
                let mut b = [b' '; 64];
                b[..left].copy_from_slice(&line[base..]);
                block_masks(&b)
            }
        };
        let valid = if left >= 64 { u64::MAX } else { (1u64 << left) - 1 };
        let fields = prefix_xor(quotes) ^ inside;
        let opening = quotes & fields;
        let closing = quotes & !fields;
        let outside = !fields & !quotes & valid;
        let after_close = ((closing << 1) | closed) & valid;
        let after_between = ((outside << 1) | between | u64::from(base == 0)) & valid;
        if outside & !commas != 0 || outside != after_close || opening != after_between {
            return false;
        }
        let need = opened + opening.count_ones() as usize;
        if rec.bounds.len() < need {
            rec.bounds.resize(need, (0, 0));
        }
        let mut m = opening;
        while m != 0 {
            rec.bounds[opened].0 = (base + m.trailing_zeros() as usize + 1) as u32;
            opened += 1;
            m &= m - 1;
        }
        let mut m = closing;
        while m != 0 {
            // A field closes after it opens, so its start is written.
            rec.bounds[ended].1 = (base + m.trailing_zeros() as usize) as u32;
            ended += 1;
            m &= m - 1;
        }
        inside = if fields >> 63 == 1 { u64::MAX } else { 0 };
        closed = closing >> 63;
        between = outside >> 63;
        base += 64;
    }
    inside == 0 && opened == ended
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn with_rows(input: &[u8]) -> Vec<(Vec<Vec<u8>>, u64, u64)> {
        let mut rows = Rows::new(input);
        let mut rec = Record::new();
        let mut out = Vec::new();
        loop {
            let byte = rows.byte();
            if !rows.read(&mut rec).unwrap() {
                break;
            }
            assert_eq!(rec.concat(), rec.iter().flatten().copied().collect::<Vec<u8>>());
            out.push((rec.iter().map(|f| f.to_vec()).collect(), rec.line(), byte));
        }
        out.push((Vec::new(), rows.byte(), 0));
        out
    }

    fn with_csv(input: &[u8]) -> Vec<(Vec<Vec<u8>>, u64, u64)> {
        let mut rdr = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(input);
        let mut rec = csv::ByteRecord::new();
        let mut out = Vec::new();
        while rdr.read_byte_record(&mut rec).unwrap() {
            let p = rec.position().unwrap();
            out.push((rec.iter().map(|f| f.to_vec()).collect(), p.line(), p.byte()));
        }
        out.push((Vec::new(), rdr.position().byte(), 0));
        out
    }

    #[test]
    fn quoted_rows_are_cut_at_their_quotes() {
        let input = b"\"ID\",\"Kernel Name\"\n\"\",\"\"\n\"0\",\"k<int, 2>(float*)\"\n\"1\",\"a,b\"\n";
        assert_eq!(with_rows(input), with_csv(input));
        let mut rec = Record::new();
        assert!(split_quoted(b"\"0\",\"saxpy\",\"1,024\",\"\"", &mut rec));
        assert_eq!(rec.iter().collect::<Vec<_>>(), [&b"0"[..], b"saxpy", b"1,024", b""]);
        assert_eq!(rec.concat(), b"0saxpy1,024");
    }

    #[test]
    fn other_shapes_read_as_the_csv_crate_reads_them() {
        for input in [
            &b"a,b\n\"x\"\"y\",\"z\"\n"[..],
            b"\"a\",\"b\"\r\n\"c\",\"d\"\r\n",
            b"\"a\"\n\n\n\"b\",\"c\"",
            b"\"a\nb\",\"c\"\n\"d\"\n",
            b"\xef\xbb\xbf\"ID\",\"x\"\n\"0\",\"1\"\n",
            b"\"a\"x,\"b\"\n\"c\" ,\"d\"\n",
            b"\"unterminated,\"b\"\n",
            b"",
            b"\n\n",
        ] {
            assert_eq!(with_rows(input), with_csv(input), "{:?}", String::from_utf8_lossy(input));
        }
    }

    #[test]
    fn a_row_longer_than_the_buffer_is_read_whole() {
        let field = "x".repeat(BUFFER / 3);
        let input = format!("\"h\"\n\"{field}\",\"{field}\",\"{field}\",\"{field}\"\n\"0\"\n");
        assert_eq!(with_rows(input.as_bytes()), with_csv(input.as_bytes()));
    }

    /// Bytes of `w` equal to `"`: 0x80 in each such byte, exactly.
    fn quotes(w: u64) -> u64 {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let x = w ^ 0x2222_2222_2222_2222;
        !(((x & LOW7) + LOW7) | x | LOW7)
    }

    /// The cutter before the bit masks (a quote at a time), the oracle of
    /// [`split_quoted`]: it cuts `"f1","f2",...,"fn"` (no `\n`; no quote inside a field) into its
    /// fields; false, with `rec` partly filled, for any other shape.
    fn split_quoted_bytewise(line: &[u8], rec: &mut Record) -> bool {
        let n = line.len();
        if n < 2 || line[n - 1] != b'"' {
            return false;
        }
        rec.data.extend_from_slice(line);
        // Quotes alternate, opening at `next_open` (0, then two past each
        // closing quote, which a comma follows unless it ends the line).
        let mut expect_open = true;
        let mut next_open = 0usize;
        let mut open = 0usize;
        let mut at = |i: usize| -> bool {
            if expect_open {
                if i != next_open {
                    return false;
                }
                open = i;
            } else {
                rec.bounds.push((open as u32 + 1, i as u32));
                if i + 1 < n && line[i + 1] != b',' {
                    return false;
                }
                next_open = i + 2;
            }
            expect_open = !expect_open;
            true
        };
        let words = n / 8;
        for w in 0..words {
            let word = u64::from_le_bytes(line[w * 8..w * 8 + 8].try_into().expect("eight bytes"));
            let mut m = quotes(word);
            while m != 0 {
                if !at(w * 8 + (m.trailing_zeros() / 8) as usize) {
                    return false;
                }
                m &= m - 1;
            }
        }
        for (i, &b) in line.iter().enumerate().skip(words * 8) {
            if b == b'"' && !at(i) {
                return false;
            }
        }
        expect_open && next_open == n + 1
    }

    /// A line of `"` `,` and a few letters, long enough for several blocks.
    fn line_of(parts: &[u8]) -> Vec<u8> {
        parts.iter().map(|&p| b"\",ab \"\"\",\"x\""[p as usize % 11]).collect()
    }

    #[test]
    fn quoted_rows_across_blocks_are_cut_as_byte_by_byte() {
        // Fields ending and starting on every side of a 64-byte edge.
        for width in 0..140 {
            let field = "x".repeat(width);
            let line = format!("\"{field}\",\"\",\"{field},{field}\",\"1\"");
            let (mut fast, mut slow) = (Record::new(), Record::new());
            assert!(split_quoted(line.as_bytes(), &mut fast), "{line}");
            assert!(split_quoted_bytewise(line.as_bytes(), &mut slow));
            assert_eq!(fast.bounds, slow.bounds);
            for bad in
                [format!("{line},"), format!("{line}\"\""), format!("{line} "), format!("\"{field}\"\"{field}\"")]
            {
                assert!(!split_quoted(bad.as_bytes(), &mut Record::new()), "{bad}");
            }
        }
    }

    proptest! {
        #[test]
        fn quoted_lines_are_cut_as_byte_by_byte(parts in proptest::collection::vec(any::<u8>(), 0..400)) {
            let line = line_of(&parts);
            let (mut fast, mut slow) = (Record::new(), Record::new());
            let ok = split_quoted(&line, &mut fast);
            prop_assert_eq!(ok, split_quoted_bytewise(&line, &mut slow), "{}", String::from_utf8_lossy(&line));
            if ok {
                prop_assert_eq!(fast.bounds, slow.bounds);
            }
        }

        #[test]
        fn well_formed_lines_are_cut_as_byte_by_byte(fields in proptest::collection::vec("[a-z, ]{0,90}", 1..30)) {
            let line: Vec<u8> = fields.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(",").into_bytes();
            let (mut fast, mut slow) = (Record::new(), Record::new());
            prop_assert!(split_quoted(&line, &mut fast));
            prop_assert!(split_quoted_bytewise(&line, &mut slow));
            prop_assert_eq!(fast.bounds, slow.bounds);
        }

        #[test]
        fn any_input_reads_as_the_csv_crate_reads_it(
            parts in proptest::collection::vec(prop_oneof![
                Just("\"".to_string()), Just(",".to_string()), Just("\n".to_string()),
                Just("\r".to_string()), Just("\"a\",".to_string()), Just("\"b\"\n".to_string()),
                "[a-c ]{0,3}",
            ], 0..40)
        ) {
            let input = parts.concat();
            prop_assert_eq!(with_rows(input.as_bytes()), with_csv(input.as_bytes()));
        }
    }
}
