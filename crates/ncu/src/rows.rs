//! The records of a raw capture, read at the speed of the data.
//!
//! `ncu --csv` quotes every field and puts no quote, comma or line break
//! inside one, so a launch row is `"f1","f2",...,"fn"` and its fields can
//! be cut out by finding its quotes alone (64 bytes at a time) instead
//! of running a CSV state machine over every byte of its ~2,200 columns.
//! A line of any other shape (a field with a quote in it, a line break in a
//! quoted field, `\r\n`, unquoted fields, a byte-order mark) goes through
//! `csv_core`, the same parser the `csv` crate runs, so every record comes
//! out exactly as `csv::Reader` (no headers, flexible) would give it, with
//! the same positions (tested against it in `tests`).
//!
//! A record is read where it lies in the reader's buffer, not copied. The
//! reader of a capture reads a few dozen of a launch row's hundreds of
//! columns, so once it knows them ([`Rows::want`]) a line cut at its
//! quotes gets the bounds of those fields alone: the others are counted
//! 64 at a time, and found again only if asked for.

use std::io::Read;

/// Columns by their index: those whose fields a caller reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Columns(Vec<u64>);

impl Columns {
    /// The set of `columns`.
    pub fn of(columns: impl IntoIterator<Item = usize>) -> Columns {
        let mut bits = Vec::new();
        for c in columns {
            if bits.len() <= c / 64 {
                bits.resize(c / 64 + 1, 0u64);
            }
            bits[c / 64] |= 1 << (c % 64);
        }
        Columns(bits)
    }

    /// Whether column `i` is one of them.
    pub fn has(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Columns `from..from + n` (`n` at most 64), bit 0 for `from`.
    fn window(&self, from: usize, n: u32) -> u64 {
        let (w, s) = (from / 64, from % 64);
        let low = self.0.get(w).map_or(0, |b| b >> s);
        let high = if s == 0 { 0 } else { self.0.get(w + 1).map_or(0, |b| b << (64 - s)) };
        let bits = low | high;
        if n >= 64 {
            bits
        } else {
            bits & ((1u64 << n) - 1)
        }
    }
}

/// One record, where it lies in the reader's buffer: its fields, and the
/// line it starts on (`csv::Position::line`'s count). It lives until the
/// next read.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    data: &'a [u8],
    bounds: &'a [(u32, u32)],
    /// The columns whose bounds were written, when not all were (a launch
    /// row, cut for the columns the reader reads): any other field is found
    /// again in `data`, which is then the line itself, every field quoted
    /// and no quote inside one.
    sparse: Option<&'a Columns>,
    line: u64,
}

impl<'a> Row<'a> {
    /// Field `i`, when the record has one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        let &(a, b) = self.bounds.get(i)?;
        match self.sparse {
            Some(wanted) if !wanted.has(i) => quoted_fields(self.data).nth(i),
            _ => Some(&self.data[a as usize..b as usize]),
        }
    }

    /// Its number of fields.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Its fields in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let (data, bounds, sparse) = (self.data, self.bounds, self.sparse.is_some());
        let cut = (!sparse).then(|| bounds.iter().map(move |&(a, b)| &data[a as usize..b as usize]));
        let found = sparse.then(|| quoted_fields(data));
        cut.into_iter().flatten().chain(found.into_iter().flatten())
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

/// The fields of a line of quoted fields with no quote inside one (one
/// [`split_quoted`] took), found a quote at a time.
fn quoted_fields(line: &[u8]) -> impl Iterator<Item = &[u8]> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let open = at + memchr::memchr(b'"', line.get(at..)?)? + 1;
        let close = open + memchr::memchr(b'"', &line[open..])?;
        at = close + 1;
        Some(&line[open..close])
    })
}

/// Where the last record's bytes are.
#[derive(Debug, Clone, Copy)]
enum Held {
    /// `buf[from..to]`, a line cut at its quotes.
    Line(usize, usize),
    /// `out[..len]`, csv_core's output.
    Parsed(usize),
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
    /// The last record: its bytes, its fields' bounds (at least as many as
    /// it has fields; only its own are read), its number of fields, its line.
    held: Held,
    bounds: Vec<(u32, u32)>,
    fields: usize,
    line: u64,
    /// The columns a line cut at its quotes gets bounds for (`None`: all).
    wanted: Option<Columns>,
    /// Whether the processor has AVX2, POPCNT and BMI2.
    fast_cpu: bool,
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
            held: Held::Parsed(0),
            bounds: Vec::new(),
            fields: 0,
            line: 0,
            wanted: None,
            fast_cpu: fast_cpu(),
            first: true,
            done: false,
        }
    }

    /// Bytes consumed so far (`csv::Reader::position().byte()`).
    pub fn byte(&self) -> u64 {
        self.byte
    }

    /// From the next record on, the bounds of the fields of `columns` alone
    /// are written where a line is cut at its quotes (the other fields are
    /// found again when asked for): a launch row has hundreds of columns
    /// and the reader reads a few dozen. `None`: every field's.
    pub fn want(&mut self, columns: Option<Columns>) {
        self.wanted = columns;
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

    /// The next record; `None` at the end of the input.
    pub fn read(&mut self) -> std::io::Result<Option<Row<'_>>> {
        self.line = self.core.line();
        if self.done {
            return Ok(None);
        }
        let cut = !self.first && self.fast()?;
        self.first = false;
        if !cut && !self.slow()? {
            return Ok(None);
        }
        let data = match self.held {
            Held::Line(from, to) => &self.buf[from..to],
            Held::Parsed(len) => &self.out[..len],
        };
        let sparse = match self.held {
            Held::Line(..) => self.wanted.as_ref(),
            Held::Parsed(_) => None,
        };
        Ok(Some(Row { data, bounds: &self.bounds[..self.fields], sparse, line: self.line }))
    }

    /// A whole line of quoted fields, cut at its quotes; false (nothing
    /// consumed) for a line of any other shape.
    fn fast(&mut self) -> std::io::Result<bool> {
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
        let line = &self.buf[self.start..newline];
        let Some(fields) = split_quoted(line, self.wanted.as_ref(), &mut self.bounds, self.fast_cpu) else {
            return Ok(false);
        };
        self.held = Held::Line(self.start, newline);
        self.fields = fields;
        self.byte += (newline + 1 - self.start) as u64;
        self.start = newline + 1;
        self.core.set_line(self.core.line() + 1);
        Ok(true)
    }

    /// A record through csv_core, as `csv::Reader` reads it; false at the end.
    fn slow(&mut self) -> std::io::Result<bool> {
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
                    if self.bounds.len() < endlen {
                        self.bounds.resize(endlen, (0, 0));
                    }
                    let mut from = 0;
                    for (b, &e) in self.bounds.iter_mut().zip(&self.ends[..endlen]) {
                        *b = (from as u32, e as u32);
                        from = e;
                    }
                    self.held = Held::Parsed(outlen);
                    self.fields = endlen;
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

/// Whether the processor has what [`split_quoted_fast_cpu`] is compiled for.
fn fast_cpu() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
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

/// [`block_masks`] with AVX2: two loads of 32 bytes, not four of 16.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn block_masks_avx2(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::{__m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8};
    let (mut quotes, mut commas) = (0u64, 0u64);
    // SAFETY: each load reads 32 bytes inside `block`, unaligned loads
    // being allowed; AVX2 is enabled for this function, which is called
    // only where the processor has it.
    unsafe {
        let quote = _mm256_set1_epi8(b'"' as i8);
        let comma = _mm256_set1_epi8(b',' as i8);
        for k in 0..2 {
            let v = _mm256_loadu_si256(block.as_ptr().add(32 * k) as *const __m256i);
            quotes |= u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, quote)) as u32) << (32 * k);
            commas |= u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, comma)) as u32) << (32 * k);
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

/// The place of the `j`-th set bit of `m` (from 0), which has more than `j`.
fn select(mut m: u64, j: u32) -> u32 {
    for _ in 0..j {
        m &= m - 1;
    }
    m.trailing_zeros()
}

/// [`select`] with BMI2's bit deposit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn select_bmi2(m: u64, j: u32) -> u32 {
    std::arch::x86_64::_pdep_u64(1 << j, m).trailing_zeros()
}

/// Cuts `"f1","f2",...,"fn"` (no `\n`; no quote inside a field) into its
/// fields: their number, the bounds of every field in `bounds` (grown to
/// at least that many) or, with `wanted`, those of its columns alone;
/// `None` for any other shape.
///
/// The line is looked at 64 bytes at a time, as bit masks of its quotes
/// and commas. Counting quotes from the start tells the bytes inside a
/// field (an opening quote and what follows it) from the closing quotes
/// and the bytes between fields. The shape holds when every byte between
/// fields is a comma that follows a closing quote and precedes an opening
/// one, the line opens with a quote and ends on a closing one. A block's
/// quotes are counted, and only the fields wanted among them are placed.
///
/// Where the processor has them, with AVX2, POPCNT and BMI2 (`fast_cpu`;
/// the build targets x86-64 without them, where counting a mask's bits
/// takes a dozen instructions): the same cut, compiled for them.
fn split_quoted(line: &[u8], wanted: Option<&Columns>, bounds: &mut Vec<(u32, u32)>, fast_cpu: bool) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if fast_cpu {
        // SAFETY: `fast_cpu` says the processor has the features the
        // function is compiled for.
        return unsafe { split_quoted_fast_cpu(line, wanted, bounds) };
    }
    let _ = fast_cpu;
    split_quoted_with(line, wanted, bounds, block_masks, select)
}

/// [`split_quoted`] compiled for AVX2, POPCNT and BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi2")]
fn split_quoted_fast_cpu(line: &[u8], wanted: Option<&Columns>, bounds: &mut Vec<(u32, u32)>) -> Option<usize> {
    split_quoted_with(line, wanted, bounds, |b| block_masks_avx2(b), |m, j| select_bmi2(m, j))
}

/// [`split_quoted`]'s cut, with `block_masks` for each block of 64 bytes
/// and `select` for the place of a mask's `j`-th bit.
#[inline(always)]
fn split_quoted_with(
    line: &[u8],
    wanted: Option<&Columns>,
    bounds: &mut Vec<(u32, u32)>,
    block_masks: impl Fn(&[u8; 64]) -> (u64, u64),
    select: impl Fn(u64, u32) -> u32,
) -> Option<usize> {
    let n = line.len();
    if n < 2 || line[0] != b'"' || line[n - 1] != b'"' {
        return None;
    }
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
            return None;
        }
        let (opens, closes) = (opening.count_ones(), closing.count_ones());
        let need = opened + opens as usize;
        if bounds.len() < need {
            bounds.resize(need, (0, 0));
        }
        match wanted {
            None => {
                let mut m = opening;
                while m != 0 {
                    bounds[opened].0 = (base + m.trailing_zeros() as usize + 1) as u32;
                    opened += 1;
                    m &= m - 1;
                }
                let mut m = closing;
                while m != 0 {
                    // A field closes after it opens, so its start is written.
                    bounds[ended].1 = (base + m.trailing_zeros() as usize) as u32;
                    ended += 1;
                    m &= m - 1;
                }
            }
            Some(wanted) => {
                // Bit j of a window: the block's j-th opening (closing)
                // quote is a wanted field's.
                let mut w = wanted.window(opened, opens);
                while w != 0 {
                    let j = w.trailing_zeros();
                    bounds[opened + j as usize].0 = (base + select(opening, j) as usize + 1) as u32;
                    w &= w - 1;
                }
                let mut w = wanted.window(ended, closes);
                while w != 0 {
                    let j = w.trailing_zeros();
                    bounds[ended + j as usize].1 = (base + select(closing, j) as usize) as u32;
                    w &= w - 1;
                }
                opened += opens as usize;
                ended += closes as usize;
            }
        }
        inside = if fields >> 63 == 1 { u64::MAX } else { 0 };
        closed = closing >> 63;
        between = outside >> 63;
        base += 64;
    }
    (inside == 0 && opened == ended).then_some(opened)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every record of `input` (its fields, line and starting byte) read
    /// by [`Rows`], with `wanted` set after the first.
    fn with_rows_wanting(input: &[u8], wanted: Option<Columns>) -> Vec<(Vec<Vec<u8>>, u64, u64)> {
        let mut rows = Rows::new(input);
        let mut out = Vec::new();
        loop {
            let byte = rows.byte();
            let Some(rec) = rows.read().unwrap() else { break };
            assert_eq!(rec.concat(), rec.iter().flatten().copied().collect::<Vec<u8>>());
            let by_index: Vec<&[u8]> = (0..rec.len()).map(|i| rec.get(i).expect("a field")).collect();
            assert_eq!(rec.iter().collect::<Vec<_>>(), by_index);
            assert_eq!(rec.get(rec.len()), None);
            out.push((rec.iter().map(|f| f.to_vec()).collect(), rec.line(), byte));
            if out.len() == 1 {
                rows.want(wanted.clone());
            }
        }
        out.push((Vec::new(), rows.byte(), 0));
        out
    }

    fn with_rows(input: &[u8]) -> Vec<(Vec<Vec<u8>>, u64, u64)> {
        with_rows_wanting(input, None)
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

    /// [`split_quoted`]'s bounds, of the fields it cut: every field's, or
    /// with `wanted` those of its columns (and 0s for the others).
    fn cut(line: &[u8], wanted: Option<&Columns>, fast_cpu: bool) -> Option<Vec<(u32, u32)>> {
        let mut bounds = Vec::new();
        let n = split_quoted(line, wanted, &mut bounds, fast_cpu)?;
        bounds.truncate(n);
        if let Some(w) = wanted {
            for (i, b) in bounds.iter_mut().enumerate() {
                if !w.has(i) {
                    *b = (0, 0);
                }
            }
        }
        Some(bounds)
    }

    /// What the processor lets the tests compare: the portable cut, and
    /// the fast one where it runs.
    fn cpus() -> Vec<bool> {
        if fast_cpu() {
            vec![false, true]
        } else {
            vec![false]
        }
    }

    #[test]
    fn quoted_rows_are_cut_at_their_quotes() {
        let input = b"\"ID\",\"Kernel Name\"\n\"\",\"\"\n\"0\",\"k<int, 2>(float*)\"\n\"1\",\"a,b\"\n";
        assert_eq!(with_rows(input), with_csv(input));
        let line = b"\"0\",\"saxpy\",\"1,024\",\"\"";
        for fast_cpu in cpus() {
            assert_eq!(cut(line, None, fast_cpu), Some(vec![(1, 2), (5, 10), (13, 18), (21, 21)]));
            assert_eq!(cut(line, Some(&Columns::of([1, 3])), fast_cpu), Some(vec![(0, 0), (5, 10), (0, 0), (21, 21)]));
        }
        assert_eq!(quoted_fields(line).collect::<Vec<_>>(), [&b"0"[..], b"saxpy", b"1,024", b""]);
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
            assert_eq!(with_rows_wanting(input, Some(Columns::of([1]))), with_csv(input));
        }
    }

    #[test]
    fn a_row_longer_than_the_buffer_is_read_whole() {
        let field = "x".repeat(BUFFER / 3);
        let input = format!("\"h\"\n\"{field}\",\"{field}\",\"{field}\",\"{field}\"\n\"0\"\n");
        assert_eq!(with_rows(input.as_bytes()), with_csv(input.as_bytes()));
        assert_eq!(with_rows_wanting(input.as_bytes(), Some(Columns::of([2]))), with_csv(input.as_bytes()));
    }

    #[test]
    fn a_window_of_columns_is_their_bits() {
        let columns: Vec<usize> = vec![0, 3, 63, 64, 65, 127, 128, 200];
        let set = Columns::of(columns.iter().copied());
        for from in 0..260 {
            for n in [0, 1, 5, 31, 63, 64] {
                let bits = (0..n).filter(|&j| columns.contains(&(from + j as usize))).fold(0u64, |b, j| b | 1 << j);
                assert_eq!(set.window(from, n), bits, "{from} {n}");
            }
        }
        assert!((0..300).all(|i| set.has(i) == columns.contains(&i)));
        assert_eq!(Columns::of([]).window(0, 64), 0);
    }

    /// Bytes of `w` equal to `"`: 0x80 in each such byte, exactly.
    fn quotes(w: u64) -> u64 {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let x = w ^ 0x2222_2222_2222_2222;
        !(((x & LOW7) + LOW7) | x | LOW7)
    }

    /// The cutter before the bit masks (a quote at a time), the oracle of
    /// [`split_quoted`]: it cuts `"f1","f2",...,"fn"` (no `\n`; no quote
    /// inside a field) into its fields' bounds; `None` for any other shape.
    fn split_quoted_bytewise(line: &[u8]) -> Option<Vec<(u32, u32)>> {
        let n = line.len();
        if n < 2 || line[n - 1] != b'"' {
            return None;
        }
        let mut bounds = Vec::new();
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
                bounds.push((open as u32 + 1, i as u32));
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
                    return None;
                }
                m &= m - 1;
            }
        }
        for (i, &b) in line.iter().enumerate().skip(words * 8) {
            if b == b'"' && !at(i) {
                return None;
            }
        }
        (expect_open && next_open == n + 1).then_some(bounds)
    }

    /// `bounds` with those of the columns not in `wanted` made 0s.
    fn only(bounds: Option<Vec<(u32, u32)>>, wanted: &Columns) -> Option<Vec<(u32, u32)>> {
        bounds.map(|b| b.into_iter().enumerate().map(|(i, b)| if wanted.has(i) { b } else { (0, 0) }).collect())
    }

    /// A line of `"` `,` and a few letters, long enough for several blocks.
    fn line_of(parts: &[u8]) -> Vec<u8> {
        parts.iter().map(|&p| b"\",ab \"\"\",\"x\""[p as usize % 11]).collect()
    }

    #[test]
    fn quoted_rows_across_blocks_are_cut_as_byte_by_byte() {
        // Fields ending and starting on every side of a 64-byte edge.
        let wanted = Columns::of([1, 3]);
        for width in 0..140 {
            let field = "x".repeat(width);
            let line = format!("\"{field}\",\"\",\"{field},{field}\",\"1\"");
            let oracle = split_quoted_bytewise(line.as_bytes());
            assert!(oracle.is_some(), "{line}");
            for fast_cpu in cpus() {
                assert_eq!(cut(line.as_bytes(), None, fast_cpu), oracle, "{line}");
                assert_eq!(cut(line.as_bytes(), Some(&wanted), fast_cpu), only(oracle.clone(), &wanted));
                for bad in
                    [format!("{line},"), format!("{line}\"\""), format!("{line} "), format!("\"{field}\"\"{field}\"")]
                {
                    assert_eq!(cut(bad.as_bytes(), None, fast_cpu), None, "{bad}");
                    assert_eq!(cut(bad.as_bytes(), Some(&wanted), fast_cpu), None, "{bad}");
                }
            }
        }
    }

    proptest! {
        #[test]
        fn quoted_lines_are_cut_as_byte_by_byte(
            parts in proptest::collection::vec(any::<u8>(), 0..400),
            wanted in proptest::collection::vec(0usize..80, 0..20),
        ) {
            let line = line_of(&parts);
            let wanted = Columns::of(wanted);
            let oracle = split_quoted_bytewise(&line);
            for fast_cpu in cpus() {
                prop_assert_eq!(cut(&line, None, fast_cpu), oracle.clone(), "{}", String::from_utf8_lossy(&line));
                prop_assert_eq!(cut(&line, Some(&wanted), fast_cpu), only(oracle.clone(), &wanted));
            }
        }

        #[test]
        fn well_formed_lines_are_cut_as_byte_by_byte(
            fields in proptest::collection::vec("[a-z, ]{0,90}", 1..60),
            wanted in proptest::collection::vec(0usize..70, 0..30),
        ) {
            let line: Vec<u8> = fields.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(",").into_bytes();
            let wanted = Columns::of(wanted);
            let oracle = split_quoted_bytewise(&line);
            prop_assert!(oracle.is_some());
            for fast_cpu in cpus() {
                prop_assert_eq!(cut(&line, None, fast_cpu), oracle.clone());
                prop_assert_eq!(cut(&line, Some(&wanted), fast_cpu), only(oracle.clone(), &wanted));
            }
        }

        /// Rows cut for a few columns give every field, asked by index or
        /// in order, as the whole cut does.
        #[test]
        fn rows_cut_for_some_columns_give_every_field(
            rows in proptest::collection::vec(proptest::collection::vec("[a-z, ]{0,30}", 1..90), 1..6),
            wanted in proptest::collection::vec(0usize..100, 0..30),
        ) {
            let mut input = String::from("\"header\"\n");
            for r in &rows {
                input += &r.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(",");
                input.push('\n');
            }
            prop_assert_eq!(with_rows_wanting(input.as_bytes(), Some(Columns::of(wanted))), with_csv(input.as_bytes()));
        }

        #[test]
        fn any_input_reads_as_the_csv_crate_reads_it(
            parts in proptest::collection::vec(prop_oneof![
                Just("\"".to_string()), Just(",".to_string()), Just("\n".to_string()),
                Just("\r".to_string()), Just("\"a\",".to_string()), Just("\"b\"\n".to_string()),
                "[a-c ]{0,3}",
            ], 0..40),
            wanted in proptest::collection::vec(0usize..8, 0..4),
        ) {
            let input = parts.concat();
            prop_assert_eq!(with_rows(input.as_bytes()), with_csv(input.as_bytes()));
            prop_assert_eq!(with_rows_wanting(input.as_bytes(), Some(Columns::of(wanted))), with_csv(input.as_bytes()));
        }
    }
}
