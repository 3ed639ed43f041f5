//! An analysis read from a stream of bytes, one kernel at a time.
//!
//! Why: `report`, `check` and `diff` read analyses of 100,000 kernels and
//! more (1.4 GB of JSON). Read whole, the text alone is more than a
//! gigabyte in memory, and the document built from it another one. Here
//! the text passes through a buffer of a few megabytes: each kernel of
//! `kernels[]` is cut out of it by [`crate::scan`] (its brackets counted 64
//! bytes at a time), checked as UTF-8, parsed by serde_json and handed to
//! the caller, who keeps what its view needs (a placement, the kernels
//! with the most time) and lets the rest go. Memory follows what the view
//! keeps, not the document.
//!
//! The whole-document readers ([`crate::read_analysis`],
//! [`crate::read_analysis_placements`]) stay the reference: a streamed read
//! answers only when it is sure to give what they give. It checks what they
//! check, every kernel as it passes (numbers in range, durations positive,
//! FLOPs and bytes not negative, derived figures recomputed) and, at the
//! end, what needs all of them (shares of time, the program view's
//! opportunities). Anything else makes it answer `None`, and the caller
//! reads the document whole, which gives the same document or the error,
//! worded as always (the input, what was expected, the fix): an older
//! version (upgraded there), another kind of document, a key out of the
//! order roofline writes (`schema` first), an escaped key, a duplicate
//! field, English diagnoses of early v2 files, a value out of range, an
//! inconsistent figure, a truncated file. A bad document is thus read twice,
//! the second time whole; a good one once, in bounded memory.

use std::collections::HashSet;
use std::io::Read;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::value::RawValue;

use crate::consistency::{check_kernel_at, check_opportunities, check_shares, ProgramFigures, ShareFacts};
use crate::placements::PlacedKernel;
use crate::ranks::RankInfo;
use crate::scan::Scan;
use crate::schema::{AnalysisDocument, AnalysisSource, Producer, ANALYSIS_SCHEMA};
use roofline_analysis::{KernelAnalysis, ProgramView};
use roofline_model::{Machine, Warning};

/// The least read from the stream at a time; a value longer than what is
/// buffered doubles the read, so a long value is scanned a few times, not
/// once per chunk.
const CHUNK: usize = 4 << 20;

/// The text not yet parsed, a window onto the stream.
struct Window<R> {
    reader: R,
    /// The least to read at a time ([`CHUNK`]; less in tests, to cut values
    /// anywhere).
    chunk: usize,
    buf: Vec<u8>,
    /// Where the next step starts in `buf`.
    pos: usize,
    eof: bool,
}

impl<R: Read> Window<R> {
    fn new(reader: R, chunk: usize) -> Self {
        Window { reader, chunk: chunk.max(1), buf: Vec::new(), pos: 0, eof: false }
    }

    /// Drops what was parsed and reads on: at least [`CHUNK`], or as much
    /// again as is buffered. `None` on a read error (the whole reader
    /// reports it).
    fn fill(&mut self) -> Option<()> {
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        let start = self.buf.len();
        let want = self.chunk.max(start);
        self.buf.resize(start + want, 0);
        let mut got = 0;
        while got < want {
            match self.reader.read(&mut self.buf[start + got..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        self.buf.truncate(start + got);
        Some(())
    }

    /// Runs `step` on the text from `pos`; when it fails, or ends where the
    /// buffer does (a number or a value may go on), with more to read, reads
    /// more and runs it again. Gives its answer and where it started.
    fn step<T>(&mut self, mut step: impl FnMut(&mut Scan<'_>) -> Option<T>) -> Option<(T, usize)> {
        loop {
            let rest = &self.buf[self.pos..];
            let mut s = Scan::new(rest);
            let answer = step(&mut s);
            let used = s.position();
            match answer {
                Some(v) if self.eof || used < rest.len() => {
                    let start = self.pos;
                    self.pos += used;
                    return Some((v, start));
                }
                None if self.eof => return None,
                _ => self.fill()?,
            }
        }
    }

    /// The text of the next value (valid until the next step), stepped
    /// over and checked as UTF-8.
    fn value_text(&mut self) -> Option<&str> {
        let ((from, to), start) = self.step(|s| {
            s.space();
            let from = s.position();
            s.skip_value()?;
            Some((from, s.position()))
        })?;
        std::str::from_utf8(&self.buf[start + from..start + to]).ok()
    }

    /// The next value, parsed as `T`.
    fn value<T: DeserializeOwned>(&mut self) -> Option<T> {
        serde_json::from_str(self.value_text()?).ok()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.step(|s| s.eat(byte)).map(|_| ())
    }

    fn peek(&mut self) -> Option<u8> {
        self.step(|s| s.peek()).map(|(b, _)| b)
    }

    fn more(&mut self, close: u8) -> Option<bool> {
        self.step(|s| s.more(close)).map(|(m, _)| m)
    }

    fn key(&mut self) -> Option<Vec<u8>> {
        self.step(|s| s.key().map(<[u8]>::to_vec)).map(|(k, _)| k)
    }
}

/// Everything of an analysis but its kernels, `program` left as text for
/// the reader to take as it needs (the view whole, or the figures the
/// shares are checked against).
struct Head {
    pub schema: String,
    pub producer: Producer,
    pub source: AnalysisSource,
    pub machine: Machine,
    pub warnings: Vec<Warning>,
    pub program: Option<Box<RawValue>>,
    pub rank: Option<RankInfo>,
    /// How many kernels `kernels[]` holds.
    pub kernels: usize,
}

/// Walks an analysis of [`ANALYSIS_SCHEMA`] whose keys come as roofline
/// writes them (`schema` first), each kernel's text given to `kernel` with
/// its index. `None` as soon as anything is not as expected, or `kernel`
/// says so.
fn walk<R: Read>(reader: R, chunk: usize, mut kernel: impl FnMut(usize, &str) -> Option<()>) -> Option<Head> {
    let mut w = Window::new(reader, chunk);
    w.eat(b'{')?;
    // Another kind or version of document is left at its first key.
    if w.key()? != b"schema" || w.value::<String>()? != ANALYSIS_SCHEMA {
        return None;
    }
    let (mut producer, mut source, mut machine, mut warnings, mut program, mut rank) =
        (None, None, None, None, None, None);
    let mut count = None;
    while w.more(b'}')? {
        let key = w.key()?;
        // A field given twice is an error of serde's; unknown ones are ignored.
        let fresh = |seen: bool| (!seen).then_some(());
        match key.as_slice() {
            b"schema" => return None,
            b"producer" => producer = Some(w.value::<Producer>().filter(|_| producer.is_none())?),
            b"source" => source = Some(w.value::<AnalysisSource>().filter(|_| source.is_none())?),
            b"machine" => machine = Some(w.value::<Machine>().filter(|_| machine.is_none())?),
            b"warnings" => warnings = Some(w.value::<Vec<Warning>>().filter(|_| warnings.is_none())?),
            b"program" => {
                fresh(program.is_some())?;
                program = Some(w.value::<Option<Box<RawValue>>>()?);
            }
            b"rank" => {
                fresh(rank.is_some())?;
                rank = Some(w.value::<Option<RankInfo>>()?);
            }
            b"kernels" => {
                fresh(count.is_some())?;
                w.eat(b'[')?;
                let mut n = 0;
                if w.peek()? == b']' {
                    w.eat(b']')?;
                } else {
                    loop {
                        kernel(n, w.value_text()?)?;
                        n += 1;
                        if !w.more(b']')? {
                            break;
                        }
                    }
                }
                count = Some(n);
            }
            _ => {
                w.value::<IgnoredAny>()?;
            }
        }
    }
    w.step(|s| s.at_end().then_some(()))?;
    Some(Head {
        schema: ANALYSIS_SCHEMA.into(),
        producer: producer?,
        source: source?,
        machine: machine?,
        warnings: warnings.unwrap_or_default(),
        program: program.flatten(),
        rank: rank.flatten(),
        kernels: count?,
    })
}

/// The checks of [`crate::check_analysis`] on one kernel, then its derived
/// figures; what the shares of time are checked with is kept.
fn checked(i: usize, k: &KernelAnalysis, facts: &mut Vec<ShareFacts>) -> Option<()> {
    roofline_model::check_numbers(k).ok()?;
    let kernel = &k.kernel;
    if kernel.duration_s.is_some_and(|d| d <= 0.0)
        || kernel.flops.values().any(|v| *v < 0.0)
        || kernel.bytes.values().any(|v| *v < 0.0)
    {
        return None;
    }
    check_kernel_at(k, i).ok()?;
    facts.push(ShareFacts::of(k));
    Some(())
}

/// The checks that need every kernel, and those of the parts around them.
fn finish(head: &Head, program: Option<&ProgramFigures>, facts: &[ShareFacts]) -> Option<()> {
    roofline_model::check_numbers(&head.machine).ok()?;
    roofline_model::check_numbers(&head.warnings).ok()?;
    roofline_model::check_numbers(&head.rank).ok()?;
    if head.machine.ceilings.iter().any(|c| c.rate <= 0.0) {
        return None;
    }
    let ids: HashSet<&str> = facts.iter().map(|f| f.id.as_str()).collect();
    check_opportunities(program, |id| ids.contains(id)).ok()?;
    check_shares(facts, program).ok()
}

/// The document around the kernels, with none.
fn shell(head: Head, program: Option<ProgramView>) -> AnalysisDocument {
    AnalysisDocument {
        schema: head.schema,
        producer: head.producer,
        source: head.source,
        machine: head.machine,
        kernels: Vec::new(),
        warnings: head.warnings,
        program,
        rank: head.rank,
    }
}

/// Reads an analysis from `reader` kernel by kernel, as [`crate::read_analysis`]
/// reads it whole: each kernel, checked, is given to `keep` with its index in
/// `kernels[]`, and the document comes back without its kernels (`kernels`
/// empty), with how many it has.
///
/// `None`: read the document whole instead, with [`crate::read_analysis`],
/// which gives it or says what is wrong (what `keep` was given is then to be
/// dropped). So is a document without a program view, which that reader
/// derives from every kernel.
pub fn stream_analysis<R: Read>(
    reader: R,
    keep: impl FnMut(usize, KernelAnalysis),
) -> Option<(AnalysisDocument, usize)> {
    analysis_in(reader, CHUNK, keep)
}

fn analysis_in<R: Read>(
    reader: R,
    chunk: usize,
    mut keep: impl FnMut(usize, KernelAnalysis),
) -> Option<(AnalysisDocument, usize)> {
    let mut facts = Vec::new();
    let head = walk(reader, chunk, |i, text| {
        let k: KernelAnalysis = serde_json::from_str(text).ok()?;
        checked(i, &k, &mut facts)?;
        keep(i, k);
        Some(())
    })?;
    let view = view_checked(&head, &facts)?;
    let n = head.kernels;
    Some((shell(head, Some(view)), n))
}

/// The program view, its numbers checked, then what needs every kernel.
fn view_checked(head: &Head, facts: &[ShareFacts]) -> Option<ProgramView> {
    let view: ProgramView = serde_json::from_str(head.program.as_ref()?.get()).ok()?;
    roofline_model::check_numbers(&view).ok()?;
    let figures = ProgramFigures {
        total_s: view.total_s,
        from_timeline: view.from_timeline,
        opportunities: view
            .opportunities
            .iter()
            .map(|o| crate::consistency::OpportunityFigures {
                id: o.id.clone(),
                seconds: o.seconds,
                saved_s: o.saved_s,
            })
            .collect(),
        by_verdict: view
            .by_verdict
            .iter()
            .map(|v| crate::consistency::VerdictSeconds { verdict: v.verdict, seconds: v.seconds })
            .collect(),
    };
    finish(head, Some(&figures), facts)?;
    Some(view)
}

/// [`stream_analysis`], reading the document from `open()` and, as it goes,
/// writing it as `report --format json` would write it back (through serde,
/// [`crate::StreamedAnalysis`]'s fields) and comparing that with the text
/// (from a second `open()`). The answer says whether they are the same
/// bytes: then the document can be written out by copying its text, not by
/// parsing it a second time.
pub fn stream_analysis_as_written<R: Read>(
    open: impl Fn() -> Option<R>,
    keep: impl FnMut(usize, KernelAnalysis),
) -> Option<(AnalysisDocument, usize, bool)> {
    written_in(&open, CHUNK, keep)
}

fn written_in<R: Read>(
    open: &dyn Fn() -> Option<R>,
    chunk: usize,
    keep: impl FnMut(usize, KernelAnalysis),
) -> Option<(AnalysisDocument, usize, bool)> {
    use serde::Serialize;
    let before = head_before_kernels(open()?, chunk)?;
    let echo = Echo {
        before: &before,
        open,
        chunk,
        keep: std::cell::RefCell::new(keep),
        facts: Default::default(),
        after: Default::default(),
    };
    let mut same = Same { text: open()?, same: true, theirs: Vec::new() };
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut same);
        let mut ser = serde_json::Serializer::with_formatter(&mut w, serde_json::ser::PrettyFormatter::new());
        echo.serialize(&mut ser).ok()?;
        std::io::Write::write_all(&mut w, b"\n").ok()?;
        std::io::Write::flush(&mut w).ok()?;
    }
    // Nothing after what was written.
    let at_end = same.same && matches!(same.text.read(&mut [0u8; 1]), Ok(0));
    let (head, view) = echo.after.into_inner()?;
    let n = head.kernels;
    Some((shell(head, Some(view)), n, at_end))
}

/// The fields before `kernels`, as roofline writes them.
fn head_before_kernels<R: Read>(reader: R, chunk: usize) -> Option<(Producer, AnalysisSource, Machine)> {
    let mut w = Window::new(reader, chunk);
    w.eat(b'{')?;
    if w.key()? != b"schema" || w.value::<String>()? != ANALYSIS_SCHEMA {
        return None;
    }
    let (mut producer, mut source, mut machine) = (None, None, None);
    while w.more(b'}')? {
        match w.key()?.as_slice() {
            b"producer" if producer.is_none() => producer = Some(w.value()?),
            b"source" if source.is_none() => source = Some(w.value()?),
            b"machine" if machine.is_none() => machine = Some(w.value()?),
            b"kernels" => return Some((producer?, source?, machine?)),
            _ => return None,
        }
    }
    None
}

/// A writer that compares what it is given with `text`, read as it comes.
struct Same<R> {
    text: R,
    same: bool,
    theirs: Vec<u8>,
}

impl<R: Read> std::io::Write for Same<R> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.same {
            self.theirs.resize(buf.len(), 0);
            self.same = self.text.read_exact(&mut self.theirs).is_ok() && self.theirs == buf;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The document as [`crate::StreamedAnalysis`] writes it, its kernels parsed,
/// checked and kept as they are written.
struct Echo<'a, R, K> {
    before: &'a (Producer, AnalysisSource, Machine),
    open: &'a dyn Fn() -> Option<R>,
    chunk: usize,
    keep: std::cell::RefCell<K>,
    facts: std::cell::RefCell<Vec<ShareFacts>>,
    /// What follows the kernels, once they are read.
    after: std::cell::RefCell<Option<(Head, ProgramView)>>,
}

impl<R: Read, K: FnMut(usize, KernelAnalysis)> serde::Serialize for Echo<'_, R, K> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq, SerializeStruct};
        struct Kernels<'b, 'a, R, K>(&'b Echo<'a, R, K>);
        impl<R: Read, K: FnMut(usize, KernelAnalysis)> serde::Serialize for Kernels<'_, '_, R, K> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let echo = self.0;
                let not_streamed = || S::Error::custom("not streamed");
                let reader = (echo.open)().ok_or_else(not_streamed)?;
                // Written with no length: serde_json writes the same bytes.
                let mut seq = s.serialize_seq(None)?;
                let mut failed = None;
                let mut facts = echo.facts.borrow_mut();
                let mut keep = echo.keep.borrow_mut();
                let head = walk(reader, echo.chunk, |i, text| {
                    let k: KernelAnalysis = serde_json::from_str(text).ok()?;
                    checked(i, &k, &mut facts)?;
                    if let Err(e) = seq.serialize_element(&k) {
                        failed = Some(e);
                        return None;
                    }
                    keep(i, k);
                    Some(())
                });
                if let Some(e) = failed {
                    return Err(e);
                }
                let head = head.ok_or_else(not_streamed)?;
                let (p, so, m) = echo.before;
                if (&head.producer, &head.source, &head.machine) != (p, so, m) {
                    return Err(not_streamed());
                }
                let view = view_checked(&head, &facts).ok_or_else(not_streamed)?;
                *echo.after.borrow_mut() = Some((head, view));
                seq.end()
            }
        }
        let (producer, source, machine) = self.before;
        let mut st = s.serialize_struct("AnalysisDocument", 8)?;
        st.serialize_field("schema", ANALYSIS_SCHEMA)?;
        st.serialize_field("producer", producer)?;
        st.serialize_field("source", source)?;
        st.serialize_field("machine", machine)?;
        st.serialize_field("kernels", &Kernels(self))?;
        let after = self.after.borrow();
        let (head, view) = after.as_ref().ok_or_else(|| S::Error::custom("not streamed"))?;
        if head.warnings.is_empty() {
            st.skip_field("warnings")?;
        } else {
            st.serialize_field("warnings", &WithText(&head.warnings))?;
        }
        st.serialize_field("program", view)?;
        match &head.rank {
            Some(r) => st.serialize_field("rank", r)?,
            None => st.skip_field("rank")?,
        }
        st.end()
    }
}

/// Warnings as an analysis writes them, each with its English.
struct WithText<'b>(&'b [Warning]);

impl serde::Serialize for WithText<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        roofline_model::serialize_with_text(self.0, s)
    }
}

/// [`crate::read_analysis_placements`] from a stream: every kernel cut to its
/// placement as it is read. `None`: read it whole with that function.
pub fn stream_placements<R: Read>(reader: R) -> Option<AnalysisDocument> {
    placements_in(reader, CHUNK)
}

fn placements_in<R: Read>(reader: R, chunk: usize) -> Option<AnalysisDocument> {
    let mut facts = Vec::new();
    let mut kernels = Vec::new();
    let head = walk(reader, chunk, |i, text| {
        let k = serde_json::from_str::<PlacedKernel>(text).ok()?.into_analysis();
        checked(i, &k, &mut facts)?;
        kernels.push(k);
        Some(())
    })?;
    let figures = match &head.program {
        Some(p) => Some(serde_json::from_str::<ProgramFigures>(p.get()).ok()?),
        None => None,
    };
    finish(&head, figures.as_ref(), &facts)?;
    let mut doc = shell(head, None);
    doc.kernels = kernels;
    Some(doc)
}

/// The kernels of an analysis read again from `reader`, each given to
/// `each` as it is parsed (for writing a document out as it is read). The
/// document is expected to have passed [`stream_analysis`]; `None` when it
/// no longer reads as it did.
pub fn reread_kernels<R: Read>(reader: R, mut each: impl FnMut(usize, KernelAnalysis) -> Option<()>) -> Option<usize> {
    let head = walk(reader, CHUNK, |i, text| each(i, serde_json::from_str(text).ok()?))?;
    Some(head.kernels)
}

/// An analysis that passed [`stream_analysis`], to be written out (as JSON,
/// through serde) without holding its kernels: it serialises as the
/// [`AnalysisDocument`] it was read as, `head` around the kernels, which are
/// read again from `open()` and written one by one as they are parsed.
pub struct StreamedAnalysis<'a, F> {
    /// The document without its kernels, as [`stream_analysis`] gave it.
    pub head: &'a AnalysisDocument,
    /// How many kernels it has.
    pub kernels: usize,
    /// The stream the document was read from, opened again from its start.
    pub open: F,
}

impl<R: Read, F: Fn() -> Option<R>> serde::Serialize for StreamedAnalysis<'_, F> {
    /// Field for field what `#[derive(Serialize)]` of [`AnalysisDocument`] writes.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        struct Kernels<'b, F>(&'b StreamedAnalysis<'b, F>);
        impl<R: Read, F: Fn() -> Option<R>> serde::Serialize for Kernels<'_, F> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::{Error, SerializeSeq};
                let changed = || S::Error::custom("the analysis changed while it was read: run the command again");
                let reader = (self.0.open)().ok_or_else(changed)?;
                let mut seq = s.serialize_seq(Some(self.0.kernels))?;
                let mut failed = None;
                let read = reread_kernels(reader, |i, k| {
                    if i >= self.0.kernels {
                        return None;
                    }
                    seq.serialize_element(&k).map_err(|e| failed = Some(e)).ok()
                });
                if let Some(e) = failed {
                    return Err(e);
                }
                if read != Some(self.0.kernels) {
                    return Err(changed());
                }
                seq.end()
            }
        }
        let h = self.head;
        let fields =
            5 + usize::from(!h.warnings.is_empty()) + usize::from(h.program.is_some()) + usize::from(h.rank.is_some());
        let mut st = s.serialize_struct("AnalysisDocument", fields)?;
        st.serialize_field("schema", &h.schema)?;
        st.serialize_field("producer", &h.producer)?;
        st.serialize_field("source", &h.source)?;
        st.serialize_field("machine", &h.machine)?;
        st.serialize_field("kernels", &Kernels(self))?;
        if h.warnings.is_empty() {
            st.skip_field("warnings")?;
        } else {
            st.serialize_field("warnings", &WithText(&h.warnings))?;
        }
        match &h.program {
            Some(p) => st.serialize_field("program", p)?,
            None => st.skip_field("program")?,
        }
        match &h.rank {
            Some(r) => st.serialize_field("rank", r)?,
            None => st.skip_field("rank")?,
        }
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placements::read_analysis_placements;
    use crate::schema::read_analysis;
    use proptest::prelude::*;

    /// The analysis streamed with reads of `chunk` bytes, its kernels put back.
    fn streamed(text: &str, chunk: usize) -> Option<AnalysisDocument> {
        let mut kernels = Vec::new();
        let (mut doc, n) = analysis_in(text.as_bytes(), chunk, |i, k| {
            assert_eq!(i, kernels.len(), "in document order");
            kernels.push(k);
        })?;
        assert_eq!(n, kernels.len());
        doc.kernels = kernels;
        Some(doc)
    }

    /// The document written back as `report --format json` writes it,
    /// its kernels read again from `text`.
    fn rewritten(text: &str) -> String {
        let (head, kernels) = stream_analysis(text.as_bytes(), |_, _| {}).expect("streams");
        let doc = StreamedAnalysis { head: &head, kernels, open: || Some(text.as_bytes()) };
        serde_json::to_string_pretty(&doc).unwrap()
    }

    /// Every way a stream is read gives what the whole readers give.
    fn same_as_whole(text: &str, chunks: &[usize]) {
        let whole = read_analysis(text, "a.json").expect("reads whole");
        let placed = read_analysis_placements(text, "a.json").expect("reads whole");
        let written = format!("{}\n", serde_json::to_string_pretty(&whole).unwrap());
        for &chunk in chunks {
            assert_eq!(streamed(text, chunk).as_ref(), Some(&whole), "chunk {chunk}");
            assert_eq!(placements_in(text.as_bytes(), chunk).as_ref(), Some(&placed), "chunk {chunk}");
            let mut kernels = Vec::new();
            let (mut doc, n, same) =
                written_in(&|| Some(text.as_bytes()), chunk, |_, k| kernels.push(k)).expect("streams");
            assert_eq!(n, kernels.len());
            doc.kernels = kernels;
            assert_eq!(doc, whole, "chunk {chunk}");
            assert_eq!(same, text == written, "the text is what would be written, chunk {chunk}");
        }
        assert_eq!(rewritten(text), serde_json::to_string_pretty(&whole).unwrap());
    }

    fn fixture(name: &str) -> String {
        let path = format!("{}/../../tests/fixtures/documents/{name}", env!("CARGO_MANIFEST_DIR"));
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap()).read_to_string(&mut text).unwrap();
        text
    }

    #[test]
    fn imported_analyses_stream_as_they_read_whole() {
        // Full-set imports (evidence, diagnoses, instruction views,
        // collectives' neighbours), a per-launch one and a profile's timeline.
        for name in [
            "import_pytorch_full_a.json.gz",
            "import_seed000_full.json.gz",
            "import_seed000_per_launch.json.gz",
            "import_pytorch_profile.json.gz",
        ] {
            let text = fixture(name);
            assert_eq!(schema_of_head(&text), Some(ANALYSIS_SCHEMA), "{name}");
            let whole = read_analysis(&text, name).unwrap();
            assert_eq!(text, format!("{}\n", serde_json::to_string_pretty(&whole).unwrap()), "{name}: as written");
            same_as_whole(&text, &[1, 7, 64, 1000, CHUNK]);
        }
    }

    fn schema_of_head(text: &str) -> Option<&str> {
        crate::schema::schema_at_head(text)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn synthetic_ranks_stream_as_they_read_whole(
            launches in 1u64..200, kinds in 1usize..40, per_launch: bool, chunk in 1usize..3000
        ) {
            let doc = crate::synthetic::rank(1, 4, launches, kinds, per_launch);
            let text = serde_json::to_string_pretty(&doc).unwrap();
            same_as_whole(&text, &[chunk]);
            same_as_whole(&format!("{text}\n"), &[chunk]);
            // Compact text too.
            let compact = serde_json::to_string(&doc).unwrap();
            same_as_whole(&compact, &[chunk]);
        }
    }

    /// A document written in roofline's own key order, edited by `edit`.
    fn edited(edit: impl Fn(&mut AnalysisDocument)) -> String {
        let mut doc = crate::synthetic::rank(0, 2, 64, 16, false);
        edit(&mut doc);
        serde_json::to_string_pretty(&doc).unwrap()
    }

    /// A document the whole readers refuse is not streamed either: the
    /// caller reads it whole, for the error.
    fn refused_whole_and_not_streamed(text: &str, what: &str) {
        assert!(read_analysis(text, "a.json").is_err(), "{what}: refused whole");
        assert!(read_analysis_placements(text, "a.json").is_err(), "{what}: refused whole");
        for chunk in [5, CHUNK] {
            assert!(streamed(text, chunk).is_none(), "{what}: streamed");
            assert!(written_in(&|| Some(text.as_bytes()), chunk, |_, _| {}).is_none(), "{what}: streamed");
            assert!(placements_in(text.as_bytes(), chunk).is_none(), "{what}: streamed");
        }
    }

    #[test]
    fn what_the_whole_readers_refuse_is_never_streamed() {
        type Edit = Box<dyn Fn(&mut AnalysisDocument)>;
        let cases: Vec<(&str, Edit)> = vec![
            ("a negative share", Box::new(|d| d.kernels[3].time_share = Some(-1.0))),
            ("shares over 1", Box::new(|d| d.kernels.iter_mut().for_each(|k| k.time_share = Some(0.5)))),
            ("a zero duration", Box::new(|d| d.kernels[2].kernel.duration_s = Some(0.0))),
            ("negative FLOPs", Box::new(|d| d.kernels[0].kernel.flops.values_mut().for_each(|f| *f = -1.0))),
            ("% of roof edited", Box::new(|d| d.kernels[5].pct_of_roof = Some(99.0))),
            ("a number out of range", Box::new(|d| d.kernels[1].achieved_flops_per_s = Some(1e200))),
            ("a roof of zero", Box::new(|d| d.machine.ceilings[0].rate = 0.0)),
            (
                "an opportunity of a removed kernel",
                Box::new(|d| {
                    let id = d.program.as_ref().unwrap().opportunities[0].id.clone();
                    d.kernels.retain(|k| k.kernel.id != id);
                }),
            ),
        ];
        for (what, edit) in cases {
            refused_whole_and_not_streamed(&edited(edit), what);
        }
        let text = edited(|_| {});
        same_as_whole(&text, &[5, CHUNK]);
        // Cut short anywhere, or something after the end.
        for cut in [1, text.len() / 3, text.len() - 2] {
            refused_whole_and_not_streamed(&text[..cut], "truncated");
        }
        refused_whole_and_not_streamed(&format!("{text} {{}}"), "trailing text");
    }

    #[test]
    fn what_is_read_whole_instead_reads_there() {
        // Keys in another order (a document rewritten by another tool), an
        // older version to upgrade, no program view to derive: not streamed,
        // but the whole reader reads them.
        let doc = crate::synthetic::rank(0, 2, 64, 16, false);
        let sorted = serde_json::to_value(&doc).unwrap().to_string();
        assert!(!sorted.starts_with("{\"schema\""), "serde_json's Value sorts keys");
        assert!(streamed(&sorted, CHUNK).is_none() && placements_in(sorted.as_bytes(), CHUNK).is_none());
        assert_eq!(read_analysis(&sorted, "a.json").unwrap(), doc);
        let v1 = edited(|d| d.schema = "roofline.analysis/v1".into());
        assert!(streamed(&v1, CHUNK).is_none() && placements_in(v1.as_bytes(), CHUNK).is_none());
        assert!(read_analysis(&v1, "a.json").is_ok());
        let no_view = edited(|d| d.program = None);
        assert!(streamed(&no_view, CHUNK).is_none(), "the view is derived from every kernel");
        assert!(read_analysis(&no_view, "a.json").unwrap().program.is_some());
        // A field twice: the whole reader takes the last one (as a JSON tree).
        let text = edited(|_| {});
        let twice = text.replacen("\"source\": {", "\"source\": {\"kind\": \"x\"}, \"source\": {", 1);
        assert!(streamed(&twice, CHUNK).is_none() && placements_in(twice.as_bytes(), CHUNK).is_none());
        assert_eq!(read_analysis(&twice, "a.json").unwrap(), read_analysis(&text, "a.json").unwrap());
        // check and diff need no view: streamed.
        assert_eq!(placements_in(no_view.as_bytes(), 9), Some(read_analysis_placements(&no_view, "a.json").unwrap()));
    }

    #[test]
    fn a_document_changed_between_the_reads_is_not_written() {
        let text = edited(|_| {});
        let (head, kernels) = stream_analysis(text.as_bytes(), |_, _| {}).unwrap();
        let shorter = edited(|d| {
            d.kernels.pop();
        });
        let doc = StreamedAnalysis { head: &head, kernels, open: || Some(shorter.as_bytes()) };
        let e = serde_json::to_string(&doc).unwrap_err().to_string();
        assert!(e.contains("changed while it was read"), "{e}");
    }
}
