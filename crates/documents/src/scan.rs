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
//! is not parsed (a misspelt `tru` in a skipped diagnosis goes unnoticed,
//! as it would with any reader that does not need it). The values that are
//! used go through serde_json whole. Anything this reader does not expect
//! (an escaped key, a duplicate field, a truncated file) makes it answer
//! `None`, and the caller reads the document with serde_json instead, which
//! gives the error with its line and column.

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
/// brackets (`{`, `[`) and closing brackets (`}`, `]`) are, one bit each.
#[cfg(target_arch = "x86_64")]
fn block_masks(block: &[u8; 64]) -> [u64; 4] {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
    let mut out = [0u64; 4];
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
        for k in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k) as *const __m128i);
            let folded = _mm_or_si128(v, bit);
            let bits = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16) << (16 * k);
            out[0] |= bits(_mm_cmpeq_epi8(v, quote));
            out[1] |= bits(_mm_cmpeq_epi8(v, backslash));
            out[2] |= bits(_mm_cmpeq_epi8(folded, open));
            out[3] |= bits(_mm_cmpeq_epi8(folded, close));
        }
    }
    out
}

/// [`block_masks`] a byte at a time, where there is no SSE2.
#[cfg(not(target_arch = "x86_64"))]
fn block_masks(block: &[u8; 64]) -> [u64; 4] {
    let mut out = [0u64; 4];
    for (i, &c) in block.iter().enumerate() {
        let k = match c | 0x20 {
            _ if c == b'"' => 0,
            _ if c == b'\\' => 1,
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
/// strings; `None` when it does not close. A block with a backslash is
/// walked a byte at a time. Which kind of bracket closes which is not
/// checked here, nor what stands between them.
fn brackets_end(text: &[u8]) -> Option<usize> {
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
        let [quotes, backslashes, opens, closes] = block_masks(&block);
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

    /// Steps over white space.
    pub(crate) fn space(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.text.get(self.at) {
            self.at += 1;
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
    pub(crate) fn key(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.at;
        let end = start + memchr::memchr2(b'"', b'\\', &self.text[start..])?;
        if self.text[end] != b'"' {
            return None;
        }
        self.at = end + 1;
        self.eat(b':')?;
        Some(&self.text[start..end])
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
                _ => from += 1,
            }
        }
        loop {
            let i = from + memchr::memchr2(b'"', b'\\', t.get(from..)?)?;
            if t[i] == b'"' {
                return Some(i + 1);
            }
            from = i + 2;
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
