//! Reading a text input (a JSON document, a TOML file) with bounded memory.
//!
//! `std::fs::read_to_string` on `/dev/zero` or a FIFO that never ends
//! grows memory until the process aborts. Inputs are read in chunks here:
//! a NUL byte (binary data) stops the read with a message naming the input
//! and what was expected. A regular file is read whole, whatever its size
//! (its size bounds it: a document the tool wrote always reads back); an
//! input of no known size (a FIFO, a device) or a gzipped one, whose text
//! can be any size, stops past [`MAX_STREAM_BYTES`]. A gzipped input is
//! read as the text it holds ([`maybe_gunzip`]).

use std::io::Read;
use std::path::Path;

use crate::error::bad_input;

/// The most text read from an input of no known size (a FIFO, a device)
/// or from a gzipped one, bytes: an analysis of 160,000 `--set full`
/// kernels is 2.3 GB of JSON, and a plain file has no such bound.
pub const MAX_STREAM_BYTES: u64 = 32 << 30;

/// `reader` as it is, or decompressed when it starts as gzip does
/// (`1f 8b`): a `.json.gz` or `.csv.gz` reads like the file it holds, and
/// the bounds on text apply to what it holds.
pub fn maybe_gunzip<R: Read + 'static>(reader: R) -> Box<dyn Read> {
    gunzipped(reader).0
}

/// [`maybe_gunzip`], and whether the input was gzipped.
fn gunzipped<R: Read + 'static>(reader: R) -> (Box<dyn Read>, bool) {
    use std::io::BufRead;
    let mut buffered = std::io::BufReader::new(reader);
    let gzip = matches!(buffered.fill_buf(), Ok(head) if head.starts_with(&[0x1f, 0x8b]));
    if gzip {
        (Box::new(flate2::bufread::MultiGzDecoder::new(buffered)), true)
    } else {
        (Box::new(buffered), false)
    }
}

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
    open_text(path, expected)?.read_rest(Vec::new())
}

/// A text input opened to be read as a stream (a document parsed as it is
/// read), with the bounds of [`read_bytes`]: a NUL byte, or more than
/// [`MAX_STREAM_BYTES`] from an input of no known size, is a read error
/// that names the input.
pub struct TextStream {
    reader: Box<dyn Read>,
    /// The most bytes read (`None`: a plain file, bounded by its size).
    limit: Option<u64>,
    size: u64,
    read: u64,
    input: String,
    expected: String,
}

/// Opens a text input; a folder or a file that cannot be opened is bad
/// input (exit code 2), named with what was expected.
pub fn open_text(path: &Path, expected: &str) -> anyhow::Result<TextStream> {
    let input = path.display().to_string();
    let cannot = |e: std::io::Error| bad_input(format!("{input}: cannot read it ({e}); expected {expected}"));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if meta.is_dir() {
        return Err(bad_input(format!("{input}: is a folder; expected {expected}")));
    }
    let (reader, gzip) = gunzipped(file);
    let limit = (gzip || !meta.is_file()).then_some(MAX_STREAM_BYTES);
    Ok(TextStream {
        reader: match limit {
            Some(l) => Box::new(reader.take(l + 1)),
            None => reader,
        },
        limit,
        size: meta.len(),
        read: 0,
        input,
        expected: expected.to_string(),
    })
}

impl std::io::Read for TextStream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.reader.read(buf)?;
        self.read += n as u64;
        let refuse = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidData, why);
        if memchr::memchr(0, &buf[..n]).is_some() {
            return Err(refuse(format!("binary data (NUL bytes), not text; expected {}", self.expected)));
        }
        if let Some(limit) = self.limit.filter(|l| self.read > *l) {
            return Err(refuse(format!(
                "more than {} GiB of text (a gzipped file or a stream); expected {}",
                limit >> 30,
                self.expected
            )));
        }
        Ok(n)
    }
}

impl TextStream {
    /// The first bytes (up to `n`), to tell what kind of document it is
    /// before reading the rest; give them back to [`TextStream::read_rest`]
    /// or read on from here.
    pub fn head(&mut self, n: usize) -> anyhow::Result<Vec<u8>> {
        let mut head = Vec::with_capacity(n);
        let input = self.input.clone();
        let expected = self.expected.clone();
        self.take(n as u64).read_to_end(&mut head).map_err(|e| read_error(&input, &expected, e))?;
        Ok(head)
    }

    /// Everything not read yet, after `start` (what was read so far), in
    /// one buffer sized from the file.
    pub fn read_rest(mut self, start: Vec<u8>) -> anyhow::Result<Vec<u8>> {
        let mut bytes = start;
        self.read_rest_into(&mut bytes)?;
        Ok(bytes)
    }

    /// Everything not read yet, appended to `bytes`, which grows to the
    /// file's size at most once: a buffer used again for the next file
    /// (the merge's, one per thread) is not allocated and faulted in anew
    /// for each of hundreds of ranks.
    pub fn read_rest_into(&mut self, bytes: &mut Vec<u8>) -> anyhow::Result<()> {
        let input = self.input.clone();
        let expected = self.expected.clone();
        bytes.reserve(self.size.min(self.limit.unwrap_or(u64::MAX)).saturating_sub(bytes.len() as u64) as usize + 1);
        loop {
            match (&mut *self).take(1 << 20).read_to_end(bytes) {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(read_error(&input, &expected, e)),
            }
        }
    }
}

/// A plain file's bytes, mapped read-only into memory instead of read.
///
/// Why: `merge` reads hundreds of rank files of tens of MB; copying each
/// out of the page cache (`read`) into a buffer took a third of its CPU
/// time, more than the parse. A mapping hands the cached pages over as
/// they are (`MAP_POPULATE` maps them all at once, not a fault per page).
/// As with ripgrep, which maps the large files it searches, a file cut
/// short by another program while it is mapped ends the process (SIGBUS);
/// a file changed in place is read as it then is.
pub struct Mapped {
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is read-only and owned; nothing aliases it mutably.
unsafe impl Send for Mapped {}
// SAFETY: as above; shared references only read it.
unsafe impl Sync for Mapped {}

/// Files smaller than this are read: mapping one costs more than copying it.
const MAP_AT_LEAST: u64 = 1 << 20;

impl Mapped {
    /// `path` mapped when it is a plain file of at least a MiB that is not
    /// gzipped; `None` for anything else (a pipe, a small or gzipped file, a
    /// file that cannot be mapped), which the caller reads as before. A file
    /// that cannot be opened is `None` too: the reader names the problem.
    pub fn of(path: &Path) -> Option<Mapped> {
        use std::os::fd::AsRawFd;
        let file = std::fs::File::open(path).ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() < MAP_AT_LEAST {
            return None;
        }
        let len = usize::try_from(meta.len()).ok()?;
        // SAFETY: a fresh read-only private mapping of `len` bytes of an
        // open file; the result is checked before use.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_POPULATE,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return None;
        }
        let m = Mapped { ptr, len };
        // gzip's magic: the stream reader unpacks it.
        (!m.bytes().starts_with(&[0x1f, 0x8b])).then_some(m)
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes for the life of `self`.
        unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: `ptr` and `len` are the mapping made in `of`, unmapped once.
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}

/// A read error of a [`TextStream`] as bad input: the bounds' own messages
/// as they are, other errors as "cannot read it".
fn read_error(input: &str, expected: &str, e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::InvalidData {
        bad_input(format!("{input}: {e}"))
    } else {
        bad_input(format!("{input}: cannot read it ({e}); expected {expected}"))
    }
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

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn a_large_plain_file_is_mapped_as_its_bytes_and_nothing_else_is() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.json");
        let text: Vec<u8> = (0..300_000).flat_map(|i: u32| format!("{i},").into_bytes()).collect();
        assert!(text.len() as u64 >= MAP_AT_LEAST);
        std::fs::write(&big, &text).unwrap();
        let map = Mapped::of(&big).expect("mapped");
        assert_eq!(map.bytes(), &text[..]);
        // Small, gzipped, a folder, missing: read by the stream instead.
        let small = dir.path().join("small.json");
        std::fs::write(&small, b"{}").unwrap();
        assert!(Mapped::of(&small).is_none());
        let gz = dir.path().join("big.json.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut e, &text).unwrap();
        let packed = e.finish().unwrap();
        std::fs::write(&gz, [packed.as_slice(), &vec![b' '; MAP_AT_LEAST as usize]].concat()).unwrap();
        assert!(Mapped::of(&gz).is_none());
        assert!(Mapped::of(dir.path()).is_none());
        assert!(Mapped::of(&dir.path().join("absent.json")).is_none());
    }

    #[test]
    fn the_head_and_the_rest_are_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.json");
        let text: String = (0..5000).map(|i| format!("{i},")).collect();
        std::fs::write(&path, &text).unwrap();
        let mut s = open_text(&path, "a document").unwrap();
        let head = s.head(512).unwrap();
        assert_eq!(head, text.as_bytes()[..512]);
        assert_eq!(s.read_rest(head).unwrap(), text.as_bytes());
        // Read as a stream instead: the same bytes.
        let mut s = open_text(&path, "a document").unwrap();
        let head = s.head(7).unwrap();
        let mut streamed = head;
        s.read_to_end(&mut streamed).unwrap();
        assert_eq!(streamed, text.as_bytes());
        assert_eq!(read_bytes(&path, "a document").unwrap(), text.as_bytes());
    }

    #[test]
    fn a_document_larger_than_the_old_2_gib_limit_reads_back() {
        // A plain file is bounded by its size alone (a 2.27 GB analysis of
        // 160k kernels was refused as larger than 2 GiB); a gzipped one or
        // a stream keeps a bound on the text it may hold.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.json");
        std::fs::write(&path, "{}").unwrap();
        assert_eq!(open_text(&path, "a document").unwrap().limit, None);
        let gz = dir.path().join("doc.json.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut e, b"{}").unwrap();
        std::fs::write(&gz, e.finish().unwrap()).unwrap();
        let s = open_text(&gz, "a document").unwrap();
        assert_eq!(s.limit, Some(MAX_STREAM_BYTES));
        const { assert!(MAX_STREAM_BYTES > 2_270_000_000) };
        assert_eq!(s.read_rest(Vec::new()).unwrap(), b"{}");
    }

    #[test]
    fn binary_data_past_the_head_is_refused_by_the_stream_too() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.json");
        let mut bytes = vec![b' '; 100_000];
        bytes[90_000] = 0;
        std::fs::write(&path, &bytes).unwrap();
        let mut s = open_text(&path, "a timeline").unwrap();
        assert_eq!(s.head(512).unwrap().len(), 512);
        let e = std::io::copy(&mut s, &mut std::io::sink()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("binary data") && e.to_string().contains("a timeline"), "{e}");
        let e = read_bytes(&path, "a timeline").unwrap_err().to_string();
        assert!(e.contains("doc.json: binary data"), "{e}");
        let e = open_text(dir.path(), "a timeline").err().unwrap().to_string();
        assert!(e.contains("is a folder") && e.contains("a timeline"), "{e}");
    }
}
