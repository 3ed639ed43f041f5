//! `import --per-launch` of a raw CSV, streamed: one point per launch
//! without holding every launch's placed kernel (21 KB each: 6 GB at
//! 300,000 launches).
//!
//! Each launch is placed as it is read (`roofline_analysis::CaptureStream`)
//! and its `KernelAnalysis` spilled as JSON to a temporary file (serde_json
//! reads its floats back exactly: `float_roundtrip`); a few hundred bytes a
//! launch stay in memory for the steps that need the whole capture (names,
//! sort by time, program-level groups, warnings, program view). The
//! document is then written in its order: its header, the kernels read back
//! one by one in time order, each completed and checked as it goes, then
//! the warnings and the program view. It is written into a second
//! temporary file first, so that a number out of range (found only as the
//! kernels go by) leaves stdout and `-o` untouched as the whole-capture
//! path does; then copied to `-o` (atomic, `report::output_file`) and
//! stdout. Standard input, read once, goes through the same spill. Both
//! temporary files are unnamed (`tempfile::tempfile`): the system removes
//! them however the process ends.
//!
//! Only the JSON document streams (`--format json`, `-o` JSON or none),
//! with the flops view and no `--kernels`: the other formats and views are
//! made from the whole document, as before. The bytes are those of the
//! whole-capture path (`analysis_document`): the oracle test below
//! compares them on every committed capture.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use anyhow::Context;
use serde::ser::{Error as _, SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use roofline_analysis::{CaptureStream, GroupBy, KernelAnalysis, ProgramOptions, ProgramView, StreamedCapture};
use roofline_documents::{AnalysisCheck, AnalysisDocument, AnalysisSource, Producer};
use roofline_model::{Machine, Warning};
use roofline_ncu::{Kernels, Options};
use roofline_report::Format;

use super::args::Args;
use super::source::{read_csv_with, SourceKind};
use crate::output::{unplaceable, Body, JsonDocument, Output, ViewArg};

/// Whether this `import` streams: one point per launch of a raw CSV (or
/// stdin), the flops view, no `--kernels`, and JSON on stdout and in `-o`
/// (if any).
pub(super) fn streams(args: &Args, kind: SourceKind, filtered: bool, out: &Output) -> bool {
    args.analysis.per_launch
        && kind == SourceKind::NcuCsv
        && !filtered
        && args.analysis.view == ViewArg::Flops
        && out.format == Format::Json
        && (out.file.is_none() || out.file_format() == Some(Format::Json))
}

/// `import FILE --per-launch --format json [-o FILE.json]`, streamed.
pub(super) fn run(args: &Args, out: &Output) -> anyhow::Result<()> {
    let machine = args.analysis.machine.resolve()?;
    let input = args.file.display().to_string();
    let command = format!("roofline import {input}");
    let group_by = args.group.by().unwrap_or_default();
    let doc = document(&args.file, &args.analysis.options(), machine.as_ref(), &command, &input, group_by, &mut |w| {
        out.warn(&w.to_string())
    })?;
    out.info(&format!("{} launch(es) of {} kernel(s) analysed", doc.launches, doc.kernels));
    let files = match (&out.file, out.file_format()) {
        (Some(path), Some(Format::Json)) => vec![(path.clone(), Body::Json(&doc))],
        _ => Vec::new(),
    };
    out.deliver(&files, &Body::Json(&doc))
}

/// The document, written whole into an unnamed temporary file.
pub(super) struct Spooled {
    file: File,
    /// Launches read.
    pub launches: u64,
    /// Kernels in the document.
    pub kernels: usize,
}

impl JsonDocument for Spooled {
    fn write_json(&self, w: &mut dyn Write) -> std::io::Result<()> {
        let mut f = &self.file;
        f.seek(SeekFrom::Start(0))?;
        std::io::copy(&mut f, w)?;
        Ok(())
    }
}

/// Reads the capture at `path`, places it a launch at a time and writes its
/// analysis document into a [`Spooled`] file: the bytes
/// `analysis_document` and `write_json` make of the whole capture, with
/// the program view grouped by `group_by`. `warn` gets each warning once
/// the capture is read, before the document is written.
pub(super) fn document(
    path: &Path,
    opts: &Options,
    machine: Option<&Machine>,
    command: &str,
    detail: &str,
    group_by: GroupBy,
    warn: &mut dyn FnMut(&Warning),
) -> anyhow::Result<Spooled> {
    let mut kernels = Kernels::new(opts);
    let mut stream = CaptureStream::new(machine);
    let mut spill = Spill::new()?;
    let mut spill_error = None;
    let read = read_csv_with(path, |l| {
        let c = kernels.add_launch(&l);
        let a = stream.add(c.kernel, &c.roofs.unwrap_or_default());
        if spill_error.is_none() {
            spill_error = spill.push(a).err();
        }
    })?;
    if let Some(e) = spill_error {
        return Err(anyhow::Error::new(e).context("the temporary file of the per-launch analyses could not be written"));
    }
    let launches = kernels.launches();
    let (capture, names) = kernels.streamed_capture(&read);
    let mut placed = stream.finish(names.into_iter().map(|n| (n.id, n.display_name)), &capture);
    for w in &placed.warnings {
        warn(w);
    }
    let mut producer = Producer::new(command);
    producer.created = None;
    let mut shell = AnalysisDocument::new(
        producer,
        AnalysisSource::of(&capture.source, detail),
        placed.machine.clone(),
        Vec::new(),
    );
    let mut check = AnalysisCheck::new("the analysis to write");
    check.shell(&shell).map_err(unplaceable)?;
    shell.warnings = std::mem::take(&mut placed.warnings);
    let count = placed.len();

    let spool = tempfile::tempfile().context("a temporary file for the document could not be made")?;
    let opts = ProgramOptions { group_by, ..ProgramOptions::default() };
    let doc = Streamed {
        shell: &shell,
        state: RefCell::new(Writing {
            placed: &mut placed,
            spill: spill.reader()?,
            check: &mut check,
            opts,
            error: None,
            program: None,
        }),
    };
    let mut w = BufWriter::with_capacity(1 << 20, &spool);
    let written = serde_json::to_writer_pretty(&mut w, &doc);
    let mut state = doc.state.into_inner();
    if let Some(e) = state.error.take() {
        return Err(e);
    }
    written.context("the document could not be written to its temporary file")?;
    w.write_all(b"\n").and_then(|()| w.flush()).context("the document could not be written to its temporary file")?;
    drop(w);
    // The whole-capture path checks the view of the default grouping (it
    // groups again after its check).
    shell.program = match state.opts.group_by {
        GroupBy::Name => state.program.take(),
        _ => state.placed.program(&ProgramOptions::default()),
    };
    check.finish(&shell).map_err(unplaceable)?;
    Ok(Spooled { file: spool, launches, kernels: count })
}

/// The placed kernels, in capture order, as JSON in an unnamed temporary
/// file; a kernel with a number a document may not hold (which JSON could
/// not carry back: infinities, NaN) is held in memory instead, for the
/// check to name it as the whole-capture path does.
struct Spill {
    w: BufWriter<File>,
    at: u64,
    /// Each kernel's start and length in the file (length 0: held).
    places: Vec<(u64, u32)>,
    held: HashMap<usize, KernelAnalysis>,
    buf: Vec<u8>,
}

impl Spill {
    fn new() -> anyhow::Result<Spill> {
        let file = tempfile::tempfile().context("a temporary file for the per-launch analyses could not be made")?;
        Ok(Spill {
            w: BufWriter::with_capacity(1 << 20, file),
            at: 0,
            places: Vec::new(),
            held: HashMap::new(),
            buf: Vec::new(),
        })
    }

    fn push(&mut self, a: KernelAnalysis) -> std::io::Result<()> {
        if roofline_model::check_numbers(&a).is_err() {
            self.held.insert(self.places.len(), a);
            self.places.push((self.at, 0));
            return Ok(());
        }
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, &a)?;
        let len = u32::try_from(self.buf.len()).map_err(std::io::Error::other)?;
        self.w.write_all(&self.buf)?;
        self.places.push((self.at, len));
        self.at += len as u64;
        Ok(())
    }

    fn reader(self) -> anyhow::Result<SpillReader> {
        let file =
            self.w.into_inner().map_err(|e| e.into_error()).context("the per-launch analyses could not be written")?;
        Ok(SpillReader { file, places: self.places, held: self.held, buf: self.buf })
    }
}

/// The spill read back, a kernel at a time, in any order.
struct SpillReader {
    file: File,
    places: Vec<(u64, u32)>,
    held: HashMap<usize, KernelAnalysis>,
    buf: Vec<u8>,
}

impl SpillReader {
    /// The kernel `at`th in capture order.
    fn read(&mut self, at: usize) -> anyhow::Result<KernelAnalysis> {
        if let Some(a) = self.held.remove(&at) {
            return Ok(a);
        }
        let (start, len) = self.places[at];
        self.buf.resize(len as usize, 0);
        self.file.seek(SeekFrom::Start(start))?;
        self.file.read_exact(&mut self.buf).context("the per-launch analyses could not be read back")?;
        serde_json::from_slice(&self.buf).context("a per-launch analysis did not read back")
    }
}

/// What writing the document needs as it goes.
struct Writing<'a> {
    placed: &'a mut StreamedCapture,
    spill: SpillReader,
    check: &'a mut AnalysisCheck,
    opts: ProgramOptions,
    /// Why the kernels stopped, when they did (serde's error only says so).
    error: Option<anyhow::Error>,
    /// The program view, made once the kernels are written.
    program: Option<ProgramView>,
}

impl Writing<'_> {
    /// The document's `i`th kernel, read back, completed and checked.
    fn kernel(&mut self, i: usize) -> anyhow::Result<KernelAnalysis> {
        let mut a = self.spill.read(self.placed.capture_index(i))?;
        self.placed.place(i, &mut a);
        self.check.kernel(i, &a).map_err(unplaceable)?;
        Ok(a)
    }
}

/// The document as `AnalysisDocument`'s `Serialize` writes it, its
/// kernels and program view made as they are written.
struct Streamed<'a> {
    /// The document without its kernels and program view.
    shell: &'a AnalysisDocument,
    state: RefCell<Writing<'a>>,
}

impl Serialize for Streamed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.shell;
        let mut st = s.serialize_struct("AnalysisDocument", 8)?;
        st.serialize_field("schema", &d.schema)?;
        st.serialize_field("producer", &d.producer)?;
        st.serialize_field("source", &d.source)?;
        st.serialize_field("machine", &d.machine)?;
        st.serialize_field("kernels", &StreamedKernels(&self.state))?;
        if !d.warnings.is_empty() {
            st.serialize_field("warnings", &WithText(&d.warnings))?;
        }
        let program = {
            let w = self.state.borrow();
            w.placed.program(&w.opts)
        };
        if let Some(p) = &program {
            st.serialize_field("program", p)?;
        }
        self.state.borrow_mut().program = program;
        if let Some(r) = &d.rank {
            st.serialize_field("rank", r)?;
        }
        st.end()
    }
}

struct StreamedKernels<'a, 'b>(&'a RefCell<Writing<'b>>);

impl Serialize for StreamedKernels<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut w = self.0.borrow_mut();
        let n = w.placed.len();
        let mut seq = s.serialize_seq(Some(n))?;
        for i in 0..n {
            match w.kernel(i) {
                Ok(a) => seq.serialize_element(&a)?,
                Err(e) => {
                    w.error = Some(e);
                    return Err(S::Error::custom("the kernels stopped"));
                }
            }
        }
        seq.end()
    }
}

/// The warnings as `AnalysisDocument` writes them (with their text).
struct WithText<'a>(&'a [Warning]);

impl Serialize for WithText<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        roofline_model::serialize_with_text(self.0, s)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use clap::Parser;

    use super::*;
    use crate::commands::import::{analysis_document, read_csv, AnalysisArgs};

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        analysis: AnalysisArgs,
    }

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    /// Every ncu capture committed under tests/fixtures.
    fn captures() -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else { return };
            for e in entries.flatten() {
                let p = e.path();
                let name = p.file_name().unwrap().to_string_lossy().to_string();
                if p.is_dir() {
                    walk(&p, out);
                } else if name.ends_with(".csv") || name.ends_with(".csv.gz") {
                    out.push(p);
                }
            }
        }
        let mut out = Vec::new();
        for dir in ["tests/fixtures/ncu", "tests/fixtures/external", "tests/fixtures/tour"] {
            walk(&root().join(dir), &mut out);
        }
        out.sort();
        out
    }

    /// The whole-capture path's bytes: what `report_with` writes as JSON.
    fn whole(path: &Path, a: &AnalysisArgs, group_by: GroupBy) -> anyhow::Result<Vec<u8>> {
        let cap = read_csv(path, &a.options())?;
        let machine = a.machine.resolve()?;
        let input = path.display().to_string();
        let mut doc =
            analysis_document(&cap, machine.as_ref(), &format!("roofline import {input}"), &input, None, None);
        roofline_documents::check_analysis(&doc, "the analysis to write").map_err(unplaceable)?;
        if group_by != GroupBy::Name {
            doc.set_program(&ProgramOptions { group_by, ..ProgramOptions::default() });
        }
        let mut bytes = Vec::new();
        roofline_report::write_json(&doc, &mut bytes)?;
        Ok(bytes)
    }

    fn streamed(path: &Path, a: &AnalysisArgs, group_by: GroupBy) -> anyhow::Result<(Vec<u8>, Vec<String>)> {
        let machine = a.machine.resolve()?;
        let input = path.display().to_string();
        let mut warned = Vec::new();
        let doc = document(
            path,
            &a.options(),
            machine.as_ref(),
            &format!("roofline import {input}"),
            &input,
            group_by,
            &mut |w| warned.push(w.to_string()),
        )?;
        let mut bytes = Vec::new();
        doc.write_json(&mut bytes)?;
        Ok((bytes, warned))
    }

    /// The oracle: on every committed capture the streamed per-launch
    /// document is the whole-capture path's, byte for byte (and its warnings
    /// are the document's). The captures take the roofs (the counters' own,
    /// a named GPU, a measured machine), the byte conventions and the
    /// groupings in turn, each capture one of them: every one of the 94
    /// captures under all five flag sets took 277 s of a 2-core CI run.
    #[test]
    fn streamed_per_launch_documents_are_the_bytes_of_the_whole_capture_path() {
        let measured = root().join("tests/fixtures/machines/h200-measured.machine.json");
        let measured = measured.to_str().unwrap();
        let flag_sets: [&[&str]; 5] = [
            &[],
            &["--gpu", "h200"],
            &["--machine", measured],
            &["--gpu", "h200", "--bytes", "nersc"],
            &["--machine", measured, "--bytes", "nersc"],
        ];
        let mut compared = 0;
        for (i, path) in captures().into_iter().enumerate() {
            {
                let flags = flag_sets[i % flag_sets.len()];
                let mut argv = vec!["t", "--per-launch"];
                argv.extend_from_slice(flags);
                let a = Flags::parse_from(argv).analysis;
                let by = [GroupBy::Name, GroupBy::Library, GroupBy::Origin][i % 3];
                let want = whole(&path, &a, by);
                let got = streamed(&path, &a, by);
                match (want, got) {
                    (Ok(want), Ok((got, warned))) => {
                        if want != got {
                            let (w, g) = (String::from_utf8_lossy(&want), String::from_utf8_lossy(&got));
                            let (line, (w, g)) = w
                                .lines()
                                .zip(g.lines())
                                .enumerate()
                                .find(|(_, (w, g))| w != g)
                                .unwrap_or((0, ("(length)", "(length)")));
                            panic!("{} {flags:?}: line {}: whole {w:?}, streamed {g:?}", path.display(), line + 1);
                        }
                        let doc: serde_json::Value = serde_json::from_slice(&got).unwrap();
                        let texts = doc["warnings"].as_array().map(|ws| ws.len()).unwrap_or(0);
                        assert_eq!(warned.len(), texts, "{}", path.display());
                        compared += 1;
                    }
                    (Err(w), Err(g)) => assert_eq!(format!("{w:#}"), format!("{g:#}"), "{}", path.display()),
                    (w, g) => panic!("{}: whole {:?}, streamed {:?}", path.display(), w.map(|_| ()), g.map(|_| ())),
                }
            }
        }
        assert!(compared >= 80, "only {compared} documents compared");
    }
}
