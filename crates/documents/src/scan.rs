//! A skimming reader of JSON text: it walks objects and arrays and finds
//! where each value ends without building it, so that a reader that needs a
//! few fields of a large document hands only those to serde_json and steps
//! over the rest.
//!
//! Why: `roofline merge` reads hundreds of rank files of which it needs
//! about a fifth of each entry (the kernel's sums, its bound); serde_json
//! spent most of the merge's time checking, byte by byte, the text it then
//! threw away (levels, diagnoses). Here a skipped object or array is
//! checked for its structure only, 64 bytes at a time: brackets that
//! balance outside strings, strings that close. What stands between them
//! is not parsed (a misspelt `tru` in a skipped diagnosis, or in the
//! evidence of a launch whose evidence the merge does not keep, goes
//! unnoticed, as it would with any reader that does not need it; `report`
//! or `check` of that file refuses it). The values that are used are
//! parsed whole: by serde_json, or by hand as serde_json reads them (the
//! merge's kernel objects, with `Scan::number` and `Scan::plain_string`,
//! which decline anything it might read another way). Anything this reader
//! does not expect (an escaped key, a duplicate field, a truncated file)
//! makes it answer `None`, and the caller reads the document with
//! serde_json instead, which gives the error with its line and column. So
//! does a NUL byte anywhere the reader passes (binary data): a caller that
//! skims a document it has not checked for NULs may rely on that, and leave
//! the message to its reader of last resort.

/// What a byte outside a string can be, for [`Scan::skip_value`].
const OTHER: u8 = 0;
const QUOTE: u8 = 1;
const OPEN: u8 = 2;
const CLOSE: u8 = 3;
const BAD: u8 = 4;

/// Per byte: [`OTHER`] for what may stand between a value's brackets and
/// strings (white space, digits, signs, points, letters of `true`, `false`,
/// `null` and exponents, commas, colons), else its class.
static CLASS: [u8; 256] = {
    let mut t = [BAD; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || matches!(c, b' ' | b'\n' | b'\r' | b'\t' | b'-' | b'+' | b'.' | b',' | b':') {
            t[b] = OTHER;
        }
        b += 1;
    }
    t[b'"' as usize] = QUOTE;
    t[b'{' as usize] = OPEN;
    t[b'[' as usize] = OPEN;
    t[b'}' as usize] = CLOSE;
    t[b']' as usize] = CLOSE;
    t
};

/// Per byte of a block of 64: where the quotes, backslashes, opening
/// brackets (`{`, `[`), closing brackets (`}`, `]`) and NULs are, one bit
/// each.
#[cfg(target_arch = "x86_64")]
fn block_masks(block: &[u8; 64]) -> [u64; 5] {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
    let mut out = [0u64; 5];
    // SAFETY: SSE2 is part of every x86_64 processor; each load reads 16
    // bytes inside `block`, unaligned loads being allowed.
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let backslash = _mm_set1_epi8(b'\\' as i8);
        // `[` and `]` are `{` and `}` without the 0x20 bit, and no other
        // byte becomes `{` or `}` with it set.
        let bit = _mm_set1_epi8(0x20);
        let open = _mm_set1_epi8(b'{' as i8);
        let close = _mm_set1_epi8(b'}' as i8);
        let nul = _mm_set1_epi8(0);
        for k in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k) as *const __m128i);
            let folded = _mm_or_si128(v, bit);
            let bits = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16) << (16 * k);
            out[0] |= bits(_mm_cmpeq_epi8(v, quote));
            out[1] |= bits(_mm_cmpeq_epi8(v, backslash));
            out[2] |= bits(_mm_cmpeq_epi8(folded, open));
            out[3] |= bits(_mm_cmpeq_epi8(folded, close));
            out[4] |= bits(_mm_cmpeq_epi8(v, nul));
        }
    }
    out
}

/// [`block_masks`] with AVX2: two loads of 32 bytes, not four of 16.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn block_masks_avx2(block: &[u8; 64]) -> [u64; 5] {
    use std::arch::x86_64::_mm256_set1_epi8;
    use std::arch::x86_64::{__m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256};
    let mut out = [0u64; 5];
    // SAFETY: each load reads 32 bytes inside `block`, unaligned loads
    // being allowed; AVX2 is enabled for this function, which is called
    // only where the processor has it.
    unsafe {
        let quote = _mm256_set1_epi8(b'"' as i8);
        let backslash = _mm256_set1_epi8(b'\\' as i8);
        let bit = _mm256_set1_epi8(0x20);
        let open = _mm256_set1_epi8(b'{' as i8);
        let close = _mm256_set1_epi8(b'}' as i8);
        let nul = _mm256_set1_epi8(0);
        for k in 0..2 {
            let v = _mm256_loadu_si256(block.as_ptr().add(32 * k) as *const __m256i);
            let folded = _mm256_or_si256(v, bit);
            let bits = |m: __m256i| u64::from(_mm256_movemask_epi8(m) as u32) << (32 * k);
            out[0] |= bits(_mm256_cmpeq_epi8(v, quote));
            out[1] |= bits(_mm256_cmpeq_epi8(v, backslash));
            out[2] |= bits(_mm256_cmpeq_epi8(folded, open));
            out[3] |= bits(_mm256_cmpeq_epi8(folded, close));
            out[4] |= bits(_mm256_cmpeq_epi8(v, nul));
        }
    }
    out
}

/// [`block_masks`] a byte at a time, where there is no SSE2.
#[cfg(not(target_arch = "x86_64"))]
fn block_masks(block: &[u8; 64]) -> [u64; 5] {
    let mut out = [0u64; 5];
    for (i, &c) in block.iter().enumerate() {
        let k = match c | 0x20 {
            _ if c == b'"' => 0,
            _ if c == b'\\' => 1,
            _ if c == 0 => 4,
            b'{' => 2,
            b'}' => 3,
            _ => continue,
        };
        out[k] |= 1 << i;
    }
    out
}

/// Bit i set where an odd number of bits 0..=i of `x` are: with the
/// quotes' bits, the bytes inside strings (from the opening quote on).
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// The length of the object or array that `text` starts with (its first
/// byte is `{` or `[`), its brackets counted 64 bytes at a time outside
/// strings; `None` when it does not close, or when a NUL is in a block it
/// looks at (binary data: the caller's reader names it). A block with a
/// backslash is walked a byte at a time. Which kind of bracket closes which
/// is not checked here, nor what stands between them.
///
/// Where the processor has them, with AVX2 and the POPCNT instruction
/// (the build targets x86-64 without either, where counting a mask's bits
/// takes a dozen instructions): the same walk, compiled for them.
fn brackets_end(text: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
        // SAFETY: the processor has the features the function is compiled for.
        return unsafe { brackets_end_avx2(text) };
    }
    brackets_end_with(text, block_masks)
}

/// [`brackets_end`] compiled for AVX2 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn brackets_end_avx2(text: &[u8]) -> Option<usize> {
    brackets_end_with(text, |b| block_masks_avx2(b))
}

/// [`brackets_end`]'s walk, with `block_masks` for each block of 64 bytes.
#[inline(always)]
fn brackets_end_with(text: &[u8], block_masks: impl Fn(&[u8; 64]) -> [u64; 5]) -> Option<usize> {
    let mut depth: u64 = 0;
    let mut in_string = false;
    let mut escaped = false;
    let mut at = 0;
    while at < text.len() {
        let block: [u8; 64] = match text.get(at..at + 64) {
            Some(b) => b.try_into().ok()?,
            None => {
                // The last bytes, padded with spaces.
                let mut b = [b' '; 64];
                b[..text.len() - at].copy_from_slice(&text[at..]);
                b
            }
        };
        let [quotes, backslashes, opens, closes, nuls] = block_masks(&block);
        if nuls != 0 {
            return None;
        }
        if backslashes != 0 || escaped {
            for (i, &c) in block.iter().enumerate() {
                if escaped {
                    escaped = false;
                } else if in_string {
                    match c {
                        b'\\' => escaped = true,
                        b'"' => in_string = false,
                        _ => {}
                    }
                } else {
                    match c {
                        b'"' => in_string = true,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.checked_sub(1)?;
                            if depth == 0 {
                                return Some(at + i + 1);
                            }
                        }
                        _ => {}
                    }
                }
            }
        } else {
            let strings = prefix_xor(quotes) ^ if in_string { u64::MAX } else { 0 };
            in_string = strings >> 63 == 1;
            let (opens, closes) = (opens & !strings, closes & !strings);
            if u64::from(closes.count_ones()) < depth {
                // Cannot come back to depth 0 inside this block.
                depth = depth + u64::from(opens.count_ones()) - u64::from(closes.count_ones());
            } else {
                let mut both = opens | closes;
                while both != 0 {
                    let i = both.trailing_zeros();
                    both &= both - 1;
                    if opens >> i & 1 == 1 {
                        depth += 1;
                    } else {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(at + i as usize + 1);
                        }
                    }
                }
            }
        }
        at += 64;
    }
    None
}

/// A position in JSON text.
pub(crate) struct Scan<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    pub(crate) fn new(text: &'a [u8]) -> Self {
        Scan { text, at: 0 }
    }

    /// Steps over white space; runs of spaces (a pretty document's
    /// indentation) eight bytes at a time.
    pub(crate) fn space(&mut self) {
        const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
        let t = self.text;
        loop {
            match t.get(self.at) {
                Some(b' ') => {
                    self.at += 1;
                    while let Some(word) = t.get(self.at..self.at + 8) {
                        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
                        let run = ((word ^ SPACES).trailing_zeros() / 8) as usize;
                        self.at += run;
                        if run < 8 {
                            break;
                        }
                    }
                }
                Some(b'\n' | b'\r' | b'\t') => self.at += 1,
                _ => return,
            }
        }
    }

    /// The next byte after white space, not taken.
    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.space();
        self.text.get(self.at).copied()
    }

    /// Takes `byte` after white space.
    pub(crate) fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// After a member or an element: `Some(true)` on a comma (another
    /// follows), `Some(false)` on `close` (the end), `None` otherwise.
    pub(crate) fn more(&mut self, close: u8) -> Option<bool> {
        match self.peek()? {
            b',' => {
                self.at += 1;
                Some(true)
            }
            c if c == close => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// Walks one object: `{`, then each member's key given to `member`
    /// (which takes the value), then `}`. `None` as soon as the structure
    /// or `member` says so.
    pub(crate) fn fields(&mut self, mut member: impl FnMut(&[u8], &mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            return self.eat(b'}');
        }
        loop {
            let key = self.key()?;
            member(key, self)?;
            if !self.more(b'}')? {
                return Some(());
            }
        }
    }

    /// An object's key and its colon; `None` for a key with an escape.
    /// Keys are short: their first bytes are looked at one by one, the
    /// rest searched for.
    pub(crate) fn key(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.at;
        let t = self.text;
        let near = t.len().min(start + 32);
        let mut end = start;
        while end < near && !matches!(t[end], b'"' | b'\\' | 0) {
            end += 1;
        }
        if end == near {
            end += memchr::memchr3(b'"', b'\\', 0, &t[end..])?;
        }
        if t[end] != b'"' {
            return None;
        }
        self.at = end + 1;
        self.eat(b':')?;
        Some(&t[start..end])
    }

    /// The index just past the string whose opening quote is before `from`:
    /// its first bytes looked at one by one (most strings here are keys of
    /// a few letters), the rest searched for.
    fn string_end(&self, mut from: usize) -> Option<usize> {
        let t = self.text;
        let near = t.len().min(from + 24);
        while from < near {
            match t[from] {
                b'"' => return Some(from + 1),
                b'\\' => from += 2,
                0 => return None,
                _ => from += 1,
            }
        }
        loop {
            let i = from + memchr::memchr3(b'"', b'\\', 0, t.get(from..)?)?;
            match t[i] {
                b'"' => return Some(i + 1),
                0 => return None,
                _ => from = i + 2,
            }
        }
    }

    /// The text of the next value, stepped over: its structure checked,
    /// its content not parsed.
    pub(crate) fn skip_value(&mut self) -> Option<&'a [u8]> {
        self.space();
        let start = self.at;
        let t = self.text;
        let first = *t.get(start)?;
        match CLASS[first as usize] {
            QUOTE => self.at = self.string_end(start + 1)?,
            OPEN => self.at = start + brackets_end(&t[start..])?,
            OTHER => {
                // A number or a literal.
                let mut i = start;
                while i < t.len() && (t[i].is_ascii_alphanumeric() || matches!(t[i], b'-' | b'+' | b'.')) {
                    i += 1;
                }
                if i == start {
                    return None;
                }
                self.at = i;
            }
            _ => return None,
        }
        Some(&t[start..self.at])
    }

    /// How far into the text it is.
    pub(crate) fn position(&self) -> usize {
        self.at
    }

    /// Back (or on) to `at`, a position this scan was at: for a reader that
    /// declines a value it began, and hands the value's text to serde_json.
    pub(crate) fn seek(&mut self, at: usize) {
        self.at = at.min(self.text.len());
    }

    /// The bytes between the quotes of the next value when it is a string
    /// serde_json would borrow as it stands: no escape, no control
    /// character. `None` for any other value or string (not taken; the
    /// caller seeks back). The bytes are not checked as UTF-8.
    pub(crate) fn plain_string(&mut self) -> Option<&'a [u8]> {
        self.space();
        let t = self.text;
        if t.get(self.at) != Some(&b'"') {
            return None;
        }
        let start = self.at + 1;
        let mut i = start;
        loop {
            match *t.get(i)? {
                b'"' => break,
                b'\\' | 0..=0x1f => return None,
                _ => i += 1,
            }
        }
        self.at = i + 1;
        Some(&t[start..i])
    }

    /// The next value when it is a number as JSON writes it
    /// (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, the grammar
    /// serde_json takes): its text, and whether it is an integer (no
    /// fraction, no exponent). `None` for anything else.
    pub(crate) fn number(&mut self) -> Option<(&'a [u8], bool)> {
        self.space();
        let t = self.text;
        let start = self.at;
        let digits = |mut i: usize| {
            while t.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let mut i = start + usize::from(t.get(start) == Some(&b'-'));
        match t.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits(i + 1),
            _ => return None,
        }
        let mut integer = true;
        if t.get(i) == Some(&b'.') {
            let end = digits(i + 1);
            if end == i + 1 {
                return None;
            }
            (i, integer) = (end, false);
        }
        if let Some(b'e' | b'E') = t.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = t.get(i) {
                i += 1;
            }
            let end = digits(i);
            if end == i {
                return None;
            }
            (i, integer) = (end, false);
        }
        // A number runs on into no letter, digit or point (`01`, `1x`).
        if t.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'.') {
            return None;
        }
        self.at = i;
        Some((&t[start..i], integer))
    }

    /// Takes `null` when it comes next.
    pub(crate) fn null(&mut self) -> bool {
        self.space();
        let null = self.text[self.at..].starts_with(b"null");
        if null {
            self.at += 4;
        }
        null
    }

    /// Whether only white space is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.space();
        self.at == self.text.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_nested_values_and_strings_with_brackets_and_escapes() {
        let text = br#"{"a": [1, {"b": "x}]\"y"}, -2.5e3], "c": true}"#;
        let mut s = Scan::new(text);
        s.eat(b'{').unwrap();
        assert_eq!(s.key(), Some(&b"a"[..]));
        assert_eq!(s.skip_value(), Some(&br#"[1, {"b": "x}]\"y"}, -2.5e3]"#[..]));
        assert_eq!(s.more(b'}'), Some(true));
        assert_eq!(s.key(), Some(&b"c"[..]));
        assert_eq!(s.skip_value(), Some(&b"true"[..]));
        assert_eq!(s.more(b'}'), Some(false));
        assert!(s.at_end());
    }

    #[test]
    fn finds_the_end_across_blocks_escapes_and_strings() {
        // Long enough for several 64-byte blocks, with brackets inside
        // strings, escaped quotes and backslashes at block edges.
        for escapes in [true, false] {
            let mut text = String::from("{");
            for i in 0..50 {
                if escapes {
                    text.push_str(&format!("\"k{i}\": [\"a]}}{{\\\\\", \"q\\\"]\", {{\"n\": [{i}, {{}}]}}], "));
                } else {
                    text.push_str(&format!("\"k{i}\": [\"a]}}{{\", \"q]\", {{\"n\": [{i}, {{}}]}}], "));
                }
            }
            text.push_str("\"end\": true}");
            assert!(serde_json::from_str::<serde_json::Value>(&text).unwrap().is_object());
            let whole = format!("{text} , 7");
            for shift in 0..70 {
                let padded = format!("{}{whole}", " ".repeat(shift));
                let mut s = Scan::new(padded.as_bytes());
                assert_eq!(s.skip_value(), Some(text.as_bytes()), "shifted by {shift}, escapes {escapes}");
                // Cut short anywhere inside, it does not close.
                let cut = &padded.as_bytes()[..shift + text.len() - 1 - shift % 7];
                assert_eq!(Scan::new(cut).skip_value(), None, "cut, shifted by {shift}");
            }
        }
    }

    proptest::proptest! {
        /// The AVX2 walk finds the end the SSE2 walk finds, and its masks
        /// are the same bits: blocks of quotes, backslashes, brackets and
        /// letters, cut anywhere.
        #[test]
        fn the_avx2_walk_is_the_sse2_walk(bytes in proptest::collection::vec(proptest::sample::select(&b"{}[]\"\\ a,:"[..]), 0..300)) {
            let mut text = b"{".to_vec();
            text.extend_from_slice(&bytes);
            let sse2 = brackets_end_with(&text, block_masks);
            proptest::prop_assert_eq!(brackets_end(&text), sse2);
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
                // SAFETY: the processor has the features.
                proptest::prop_assert_eq!(unsafe { brackets_end_avx2(&text) }, sse2);
                for block in text.chunks_exact(64) {
                    let block: &[u8; 64] = block.try_into().unwrap();
                    // SAFETY: as above.
                    proptest::prop_assert_eq!(unsafe { block_masks_avx2(block) }, block_masks(block));
                }
            }
        }
    }

    #[test]
    fn plain_strings_and_numbers_are_taken_as_serde_json_takes_them() {
        for (text, want) in [
            (&br#" "abc" "#[..], Some(&b"abc"[..])),
            (br#""""#, Some(b"")),
            (br#""a\"b""#, None),
            (b"\"a\tb\"", None),
            (br#""open"#, None),
            (b"12", None),
        ] {
            assert_eq!(Scan::new(text).plain_string(), want, "{}", String::from_utf8_lossy(text));
        }
        for (text, want) in [
            (&b"0"[..], Some((&b"0"[..], true))),
            (b" 12,", Some((b"12", true))),
            (b"-3.25e-7}", Some((b"-3.25e-7", false))),
            (b"1E+3]", Some((b"1E+3", false))),
            (b"01", None),
            (b"1.", None),
            (b".5", None),
            (b"+1", None),
            (b"1e", None),
            (b"1x", None),
            (b"-", None),
            (b"null", None),
        ] {
            assert_eq!(Scan::new(text).number(), want, "{}", String::from_utf8_lossy(text));
            if let Some((digits, _)) = want {
                // serde_json takes it as a number of the same text.
                let v: serde_json::Value = serde_json::from_slice(digits).unwrap();
                assert!(v.is_number());
            }
        }
        let mut s = Scan::new(b" null, nul");
        assert!(s.null());
        assert_eq!(s.more(b'}'), Some(true));
        assert!(!s.null());
    }

    #[test]
    fn refuses_broken_structure() {
        for bad in [&b"[1, 2"[..], b"{\"a\": [}", b"\"open", b"[\"]\"", b"]", b";", b""] {
            assert_eq!(Scan::new(bad).skip_value(), None, "{}", String::from_utf8_lossy(bad));
        }
        // An escaped key is left to serde_json.
        let mut s = Scan::new(br#"{"sch\u0065ma": 1}"#);
        s.eat(b'{').unwrap();
        assert_eq!(s.key(), None);
    }
}
