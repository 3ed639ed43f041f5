//! Reading a text input (a JSON document, a TOML file) with bounded memory.
//!
//! `std::fs::read_to_string` on `/dev/zero` or a FIFO that never ends
//! grows memory until the process aborts. Inputs are read in chunks here:
//! a NUL byte (binary data) or more than [`MAX_TEXT_BYTES`] stops the read
//! with a message naming the input and what was expected.

use std::io::Read;
use std::path::Path;

use crate::error::bad_input;

/// The largest text input, bytes: an analysis of 100,000 kernels is a few
/// hundred megabytes of JSON.
pub const MAX_TEXT_BYTES: u64 = 2 << 30;

/// Reads a text file; `expected` says what it should be ("a
/// roofline.analysis/v1 JSON file, as written by ..."). Every failure is
/// bad input (exit code 2).
pub fn read_text(path: &Path, expected: &str) -> anyhow::Result<String> {
    let bytes = read_bytes(path, expected)?;
    text_of(bytes, path, expected)
}

/// [`read_text`] without the UTF-8 check, for a reader that checks the
/// strings it keeps itself (the merge's); [`text_of`] does the check.
/// Read straight into one buffer sized from the file.
pub fn read_bytes(path: &Path, expected: &str) -> anyhow::Result<Vec<u8>> {
    let input = path.display().to_string();
    let cannot = |e: std::io::Error| bad_input(format!("{input}: cannot read it ({e}); expected {expected}"));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if meta.is_dir() {
        return Err(bad_input(format!("{input}: is a folder; expected {expected}")));
    }
    let mut reader = file.take(MAX_TEXT_BYTES + 1);
    let mut bytes = Vec::with_capacity(meta.len().min(MAX_TEXT_BYTES) as usize + 1);
    loop {
        let start = bytes.len();
        let n = match (&mut reader).take(1 << 20).read_to_end(&mut bytes) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(cannot(e)),
        };
        if bytes[start..start + n].contains(&0) {
            return Err(bad_input(format!("{input}: binary data (NUL bytes), not text; expected {expected}")));
        }
        if bytes.len() as u64 > MAX_TEXT_BYTES {
            return Err(bad_input(format!("{input}: larger than {} GiB; expected {expected}", MAX_TEXT_BYTES >> 30)));
        }
    }
    Ok(bytes)
}

/// The text of bytes [`read_bytes`] read, or the error that they are not UTF-8.
pub fn text_of(bytes: Vec<u8>, path: &Path, expected: &str) -> anyhow::Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        bad_input(format!(
            "{}: not UTF-8 text (byte {}); expected {expected}",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}
