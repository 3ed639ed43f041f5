//! Where results go: a document rendered on stdout in the chosen format, an
//! optional file (format from its extension) written atomically, messages
//! on stderr (plain when NO_COLOR is set or stderr is not a terminal).
//!
//! Commands build their document and hand it to [`Output::document`]; they
//! never format by hand. An analysis or a machine is checked before
//! anything is written ([`Output::check_analysis`]: every number finite and
//! in bounds, so that it reads back), and an `-o` file that cannot be
//! written does not cost the data on stdout: stdout is still written, and
//! the file's error (which says nothing was written to it, and why) is the
//! one returned. A JSON document that goes both to `-o` and to stdout is
//! serialised once for both ([`Tee`]): for an import of 100,000 launches,
//! serialising it was a tenth of the run, done twice.

use std::ffi::OsStr;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use roofline_documents::{AnalysisDocument, MachineDocument};
use roofline_report::{
    csv_tables, render, write_atomic_with, write_json, AnalysisView, ChartOptions, ColorChoice, Describe, ExportError,
    Format, InstructionView, RenderOptions, TerminalOptions,
};
use roofline_report::{
    is_special_file, not_a_plain_file, refuse_overwriting_inputs, same_file, write_set, Links, SetFile,
};
use serde::Serialize;

use crate::error::bad_input;
use crate::streams;

/// What a file or stdout gets: text already made, or a document written
/// as JSON while it is serialized. A merged job or a timeline of a million
/// launches is a gigabyte of JSON: held as text, it would double the
/// memory the command needs.
pub enum Body<'a> {
    Text(String),
    Json(&'a dyn JsonDocument),
}

impl From<String> for Body<'_> {
    fn from(text: String) -> Self {
        Body::Text(text)
    }
}

/// A document that can be written as JSON into any writer (object-safe,
/// so that [`Body`] can hold any of them).
pub trait JsonDocument {
    fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()>;
}

impl<T: Serialize> JsonDocument for T {
    fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        write_json(self, w)
    }
}

impl Body<'_> {
    fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        match self {
            Body::Text(text) => w.write_all(text.as_bytes()),
            Body::Json(doc) => doc.write_json(w),
        }
    }
}

/// One writer into two, for one serialisation of a document that a file
/// and stdout both get. An error on one side stops that side alone, and
/// is kept: the other still gets every byte, as it would have written
/// alone. The writes fail only once both sides have.
struct Tee<'a> {
    file: &'a mut dyn std::io::Write,
    out: &'a mut dyn std::io::Write,
    file_error: Option<std::io::Error>,
    out_error: Option<std::io::Error>,
}

impl Tee<'_> {
    fn each(&mut self, op: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>) -> std::io::Result<()> {
        if self.file_error.is_none() {
            self.file_error = op(self.file).err();
        }
        if self.out_error.is_none() {
            self.out_error = op(self.out).err();
        }
        if self.file_error.is_some() && self.out_error.is_some() {
            return Err(std::io::Error::other("neither the file nor standard output could be written"));
        }
        Ok(())
    }
}

impl std::io::Write for Tee<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.each(&mut |w| w.write_all(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.each(&mut |w| w.flush())
    }
}

/// Standard output as the second side of the `-o` file's JSON document
/// (`Output::deliver`), and what became of it there.
struct Teed<'a> {
    doc: &'a dyn JsonDocument,
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    /// `None` until the document was serialised.
    printed: Option<std::io::Result<()>>,
}

impl Teed<'_> {
    /// Serialises the document into `file` and stdout at once; the result
    /// is the file's, stdout's is kept.
    fn write(&mut self, file: &mut dyn std::io::Write) -> std::io::Result<()> {
        let doc = self.doc;
        let mut tee = Tee { file, out: &mut self.out, file_error: None, out_error: None };
        // The serialiser's many small writes reach the two sides in blocks.
        let mut blocks = std::io::BufWriter::with_capacity(64 << 10, &mut tee);
        let done = doc.write_json(&mut blocks).and_then(|()| std::io::Write::flush(&mut blocks));
        drop(blocks);
        let (file_error, out_error) = (tee.file_error, tee.out_error);
        // A failure of the serialiser itself fails both sides.
        let again = |e: &std::io::Error| std::io::Error::new(e.kind(), e.to_string());
        let printed = match (out_error, &done) {
            (Some(e), _) => Err(e),
            (None, Err(e)) if file_error.is_none() => Err(again(e)),
            (None, _) => std::io::Write::flush(&mut self.out),
        };
        self.printed = Some(printed);
        match (file_error, done) {
            (Some(e), _) => Err(e),
            (None, done) => done,
        }
    }
}

/// What to do when a document about to be written breaks the range checks.
const UNPLACEABLE: &str = "nothing was written: the input values behind this number are too large, too small or zero where they cannot be (see the warnings above); correct them";

/// The error of an analysis about to be written that breaks the range
/// checks (`check_analysis`, or `AnalysisCheck` of a streamed one).
pub fn unplaceable(e: roofline_documents::DocumentError) -> anyhow::Error {
    bad_input(format!("{e}; {UNPLACEABLE}"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// Tables fitted to the width: COLUMNS, else the terminal's, else 100 columns (check: whole lines).
    Table,
    /// The versioned document (docs/schema.md).
    Json,
    /// The first table, raw numbers in base SI units (-o FILE.csv writes every table).
    Csv,
    /// For CI job summaries, pull requests and READMEs.
    Markdown,
    /// A self-contained page.
    Html,
    /// Chrome trace-event JSON (Perfetto, chrome://tracing).
    Trace,
    /// The chart drawn in the terminal (braille dots and a key).
    #[value(alias = "terminal")]
    Chart,
}

/// The formats every document has.
const DOCUMENT_FORMATS: [FormatArg; 5] =
    [FormatArg::Table, FormatArg::Json, FormatArg::Csv, FormatArg::Markdown, FormatArg::Html];

impl FormatArg {
    /// The formats a subcommand writes on stdout: every document has a
    /// table, JSON, CSV, Markdown and a page; those with a roofline chart
    /// (analyses, merged jobs, the tour) draw it in the terminal too, and
    /// only `timeline` writes a Chrome trace. `--help` and the value
    /// parser of each subcommand offer these and no other.
    pub fn of_command(command: &str) -> Vec<FormatArg> {
        let mut formats = DOCUMENT_FORMATS.to_vec();
        match command {
            "tour" | "model" | "profile" | "import" | "report" | "merge" => formats.push(FormatArg::Chart),
            "timeline" => formats.push(FormatArg::Trace),
            _ => {}
        }
        formats
    }

    /// Its name on the command line.
    pub fn name(self) -> String {
        use clap::ValueEnum;
        self.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
    }
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Table => Format::Table,
            FormatArg::Json => Format::Json,
            FormatArg::Csv => Format::Csv,
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Html => Format::Html,
            // Only `timeline` writes traces (main refuses it elsewhere); its
            // document, where one is asked for, is JSON.
            FormatArg::Trace => Format::Json,
            FormatArg::Chart => Format::Chart,
        }
    }
}

/// Which roofline an analysis is shown on (`--view`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ViewArg {
    /// The FLOP roofline.
    #[default]
    Flops,
    /// The instruction roofline: each kernel's binding pipe against its roof.
    Instructions,
    /// The FLOP roofline, then the instruction roofline of the kernels FLOPs do not explain.
    Auto,
}

impl From<ViewArg> for AnalysisView {
    fn from(v: ViewArg) -> AnalysisView {
        match v {
            ViewArg::Flops => AnalysisView::Flops,
            ViewArg::Instructions => AnalysisView::Instructions,
            ViewArg::Auto => AnalysisView::Auto,
        }
    }
}

impl Output {
    /// Renders an analysis on the roofline `view` asks for (refused, exit
    /// 2, when it asks the instruction roofline of an analysis with no
    /// instruction counters); `page`: a shorter one for the formats people
    /// read, as in [`Output::document_for_people`].
    pub fn analysis(
        &self,
        doc: &AnalysisDocument,
        page: Option<&AnalysisDocument>,
        view: ViewArg,
        input: &str,
    ) -> anyhow::Result<()> {
        if view == ViewArg::Flops {
            return self.document_for_people(doc, page);
        }
        let whole = InstructionView::new(doc, view.into(), input).map_err(bad_input)?;
        match page {
            Some(p) => {
                let page = InstructionView::new(p, view.into(), input).map_err(bad_input)?;
                self.document_for_people(&whole, Some(&page))
            }
            None => self.document(&whole),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

impl From<ColorArg> for ColorChoice {
    fn from(c: ColorArg) -> ColorChoice {
        match c {
            ColorArg::Auto => ColorChoice::Auto,
            ColorArg::Always => ColorChoice::Always,
            ColorArg::Never => ColorChoice::Never,
        }
    }
}

/// The output settings every command receives.
#[derive(Debug, Clone)]
pub struct Output {
    /// The format on stdout.
    pub format: Format,
    /// Whether `--format` was given: a command whose natural output is a
    /// page (`report`) keeps an explicit `--format table`.
    format_given: bool,
    /// The `-o` file.
    pub file: Option<PathBuf>,
    pub quiet: bool,
    /// Colour on stderr.
    pub color: bool,
    /// The format of a `-o` file whose extension names none, when the
    /// stdout format is the terminal table.
    pub file_default: Format,
    pub render: RenderOptions,
    /// The inputs and other outputs [`Output::protect_inputs`] was given
    /// (shared by the copies of these settings): the side tables of `-o
    /// FILE.csv`, whose names are only known once the document is
    /// rendered, are checked against them before anything is written.
    inputs: Arc<Mutex<Vec<(String, PathBuf)>>>,
    /// A file name the tool chose itself, not `-o` (`report`'s
    /// `roofline-report.html` on a terminal): written under the rules of
    /// the side tables ([`Output::write`]).
    implicit: Option<PathBuf>,
}

impl Output {
    /// The settings of `--format` (`None`: not given, the terminal table or
    /// the command's page), `-o` and `--quiet`.
    pub fn new(format: Option<FormatArg>, file: Option<PathBuf>, quiet: bool) -> Output {
        let color = ColorChoice::Auto.enabled(std::io::stderr().is_terminal());
        let terminal = TerminalOptions { quiet, ..TerminalOptions::detect(ColorChoice::Auto) };
        Output {
            format: format.unwrap_or(FormatArg::Table).into(),
            format_given: format.is_some(),
            file,
            quiet,
            color,
            file_default: Format::Json,
            render: RenderOptions { terminal, chart: ChartOptions::default() },
            inputs: Arc::default(),
            implicit: None,
        }
    }

    /// Colour as `choice` says, on stdout's table and on stderr.
    pub fn colored(mut self, choice: ColorChoice) -> Output {
        self.color = choice.enabled(std::io::stderr().is_terminal());
        self.render.terminal.color = choice.enabled(std::io::stdout().is_terminal());
        self
    }

    /// The wide terminal table (`--wide`), refused when nothing this run
    /// writes is a terminal table: every other format has every column.
    /// `page` says the command puts a page on stdout by default (`report`).
    pub fn wide(mut self, wide: bool, page: bool) -> anyhow::Result<Output> {
        if !wide {
            return Ok(self);
        }
        let table_out = self.format == Format::Table && !page;
        if !table_out && Format::from_path(self.file.as_deref().unwrap_or(Path::new(""))) != Some(Format::Table) {
            return Err(bad_input(
                "--wide lays out the terminal table, which this command does not print here: --format json, csv, markdown and html already hold every column",
            ));
        }
        self.render.terminal.wide = true;
        Ok(self)
    }

    /// Whether this run draws a chart: an HTML or SVG page on stdout or in
    /// the `-o` file. Flags that only shape the chart (`--title`,
    /// `--width`) are refused otherwise, rather than ignored.
    pub fn draws_chart(&self) -> bool {
        let chart = |f: Option<Format>| matches!(f, Some(Format::Html | Format::Svg));
        chart(Some(self.format)) || chart(self.file_format())
    }

    /// The same settings, `path` being a name the tool chose for a file the
    /// user did not name (see [`Output::write`]).
    pub fn with_implicit_file(&self, path: &Path) -> Output {
        Output { implicit: Some(path.to_path_buf()), ..self.clone() }
    }

    /// The same settings writing to another file (one per GPU).
    pub fn with_file(&self, file: Option<PathBuf>) -> Output {
        Output { file, ..self.clone() }
    }

    /// For a command whose natural output is a page (`report`): the
    /// terminal table means HTML, on stdout and for files.
    pub fn preferring(&self, format: Format) -> Output {
        let stdout = if self.format == Format::Table && !self.format_given { format } else { self.format };
        Output { format: stdout, file_default: format, ..self.clone() }
    }

    /// The format of the `-o` file: its extension's (.json, .csv, .md,
    /// .html, .svg, .txt), else --format, else the command's default.
    pub fn file_format(&self) -> Option<Format> {
        let path = self.file.as_ref()?;
        Some(Format::from_path(path).unwrap_or(if self.format == Format::Table {
            self.file_default
        } else {
            self.format
        }))
    }

    /// A message for the user on stderr.
    pub fn info(&self, msg: &str) {
        if !self.quiet {
            streams::message(msg);
        }
    }

    /// Whether stdout is a terminal that gets the terminal table, which
    /// shows a document's warnings itself: those are then not printed on
    /// stderr too, on the same screen. Into a pipe or a file, stderr still
    /// says them (it is then what the user sees).
    pub fn table_on_stdout(&self) -> bool {
        self.format == Format::Table && std::io::stdout().is_terminal()
    }

    /// A warning on stderr, unless `-q`.
    pub fn warn(&self, msg: &str) {
        if self.quiet {
            return;
        }
        if self.color {
            streams::styled("\x1b[33mwarning:\x1b[0m ", msg);
        } else {
            streams::message(&format!("warning: {msg}"));
        }
    }

    pub fn stdout(&self, text: &str) -> anyhow::Result<()> {
        streams::data(text)
    }

    pub fn stdout_body(&self, body: &Body) -> anyhow::Result<()> {
        match body {
            Body::Text(text) => streams::data(text),
            Body::Json(_) => streams::data_with(&mut |w| body.write_to(w)),
        }
    }

    /// Refuses, before any work, to let `-o` or another output (`("--svg",
    /// path)`) write over an input of the run (`("FILE", capture)`), or two
    /// outputs over each other.
    pub fn protect_inputs(&self, outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> anyhow::Result<()> {
        let mut all: Vec<(&str, &Path)> = self.file.iter().map(|f| ("-o", f.as_path())).collect();
        all.extend_from_slice(outputs);
        refuse_overwriting_inputs(&all, inputs).map_err(bad_input)?;
        let mut kept = self.inputs.lock().unwrap_or_else(|e| e.into_inner());
        kept.extend(inputs.iter().map(|(flag, path)| (flag.to_string(), path.to_path_buf())));
        // Other outputs (`--save-csv`) are not to be replaced by a side table either.
        kept.extend(outputs.iter().map(|(flag, path)| (format!("output {flag}"), path.to_path_buf())));
        Ok(())
    }

    /// Writes an output file other than `-o` (`--svg`, `--save-csv`), and says so.
    pub fn write_file(&self, flag: &str, path: &Path, body: &[u8]) -> anyhow::Result<()> {
        self.write_with(flag, path, &mut |w| w.write_all(body))
    }

    /// As [`Output::write_file`], the contents made by `body` as they are written.
    fn write_with(
        &self,
        flag: &str,
        path: &Path,
        body: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> anyhow::Result<()> {
        write_atomic_with(path, body).with_context(|| format!("{flag} {}: nothing was written", path.display()))?;
        self.info(&format!("wrote {}", path.display()));
        Ok(())
    }

    /// The document in a format.
    pub fn rendered<D: Describe + Serialize>(&self, doc: &D, format: Format) -> anyhow::Result<String> {
        let mut opts = self.render.clone();
        if format != self.format {
            opts.terminal = self.file_terminal();
        }
        self.render_with(doc, format, &opts)
    }

    /// Files get plain text at the pipe width (wide when asked).
    fn file_terminal(&self) -> TerminalOptions {
        TerminalOptions { wide: self.render.terminal.wide, quiet: self.quiet, ..TerminalOptions::default() }
    }

    fn render_with<D: Describe + Serialize>(
        &self,
        doc: &D,
        format: Format,
        opts: &RenderOptions,
    ) -> anyhow::Result<String> {
        render(doc, format, opts).map_err(|e| match e {
            // Asking a chart of a document that draws none is the user's to fix.
            ExportError::NoChart(_) => bad_input(format!("{e}")),
            e => e.into(),
        })
    }

    /// The files a document makes in a format: a CSV file gets the
    /// document's first table and its other tables go beside it
    /// (`NAME.TABLE.csv`); other formats make one file.
    pub fn files<'a, D: Describe + Serialize>(
        &self,
        doc: &'a D,
        path: &Path,
        format: Format,
    ) -> anyhow::Result<Vec<(PathBuf, Body<'a>)>> {
        if format == Format::Json {
            return Ok(vec![(path.to_path_buf(), Body::Json(doc))]);
        }
        if format != Format::Csv {
            let opts = RenderOptions { terminal: self.file_terminal(), ..self.render.clone() };
            return Ok(vec![(path.to_path_buf(), self.render_with(doc, format, &opts)?.into())]);
        }
        let mut tables = csv_tables(doc)?;
        // Beside a device, a FIFO or /dev/stdout there is no folder of
        // files: `/dev/stdout.roof.csv` would be a new file in /dev.
        if tables.len() > 1 && is_special_file(path) {
            let others: Vec<String> = tables.drain(1..).map(|t| t.name).collect();
            self.info(&format!(
                "{} is not a regular file: it gets the first table; the other {} ({}) are written beside a FILE.csv only",
                path.display(),
                others.len(),
                others.join(", ")
            ));
        }
        Ok(tables
            .into_iter()
            .enumerate()
            .map(|(i, t)| (if i == 0 { path.to_path_buf() } else { beside(path, &t.name) }, t.text.into()))
            .collect())
    }

    /// Writes rendered files, each whole or not at all.
    ///
    /// Names the user never typed (a side table `FILE.roof.csv` beside `-o
    /// FILE.csv`, `report`'s default `roofline-report.html`) are held to
    /// stricter rules than `-o`, and checked before any file is written
    /// (exit 2, the file and the fix named):
    /// - never through a symbolic link (followed, it would write wherever
    ///   the link points, out of the folder), never into a folder or a
    ///   device;
    /// - never over an input or another output of the run;
    /// - an existing regular file is replaced only when roofline wrote it:
    ///   a CSV table whose first line is the header of the table about to
    ///   be written, a page with roofline's `generator` tag, or an empty
    ///   file. Anything else is the user's: the run is refused and says to
    ///   remove it or give `-o` another name.
    pub fn write(&self, files: &[(PathBuf, Body)]) -> anyhow::Result<()> {
        self.write_teed(files, None)
    }

    /// [`Output::write`], the one `-o` file's JSON document serialised for
    /// stdout at the same time when `teed` is given.
    fn write_teed(&self, files: &[(PathBuf, Body)], teed: Option<&mut Teed>) -> anyhow::Result<()> {
        // The tool's own binary is never an output (it would replace the
        // program that is running, and the next run would be the analysis).
        if let Ok(exe) = std::env::current_exe() {
            if let Some((path, _)) = files.iter().find(|(path, _)| same_file(path, &exe)) {
                return Err(bad_input(format!(
                    "{}: is this roofline program itself ({}); give -o another file",
                    path.display(),
                    exe.display()
                )));
            }
        }
        for (path, _) in files.iter().filter(|(path, _)| self.tool_named(path)) {
            let what = self.tool_named_what(path);
            if let Some(why) = not_a_plain_file(path) {
                return Err(bad_input(format!(
                    "{}: {what} is {why}; files the tool names itself are written only as plain files, never through a link: remove it or {}",
                    path.display(),
                    self.tool_named_fix(path)
                )));
            }
        }
        {
            let inputs = self.inputs.lock().unwrap_or_else(|e| e.into_inner());
            let inputs: Vec<(&str, &Path)> = inputs.iter().map(|(f, p)| (f.as_str(), p.as_path())).collect();
            let sides: Vec<(&str, &Path)> = files
                .iter()
                .filter(|(path, _)| self.is_side_table(path))
                .map(|(path, _)| ("a table beside -o", path.as_path()))
                .collect();
            refuse_overwriting_inputs(&sides, &inputs).map_err(bad_input)?;
        }
        for (path, body) in files.iter().filter(|(path, _)| self.tool_named(path)) {
            if let Some(why) = not_written_by_roofline(path, body) {
                return Err(bad_input(format!(
                    "{}: {} exists and was not written by roofline ({why}); it is not replaced: remove or rename it, or {}",
                    path.display(),
                    self.tool_named_what(path),
                    self.tool_named_fix(path)
                )));
            }
        }
        if let [(path, body)] = files {
            if !self.tool_named(path) {
                let flag = if self.file.as_deref() == Some(path.as_path()) { "-o" } else { "output file" };
                return match teed {
                    Some(teed) => self.write_with(flag, path, &mut |w| teed.write(w)),
                    None => self.write_with(flag, path, &mut |w| body.write_to(w)),
                };
            }
        }
        // A CSV and the tables beside it belong together: all or none.
        let mut writers: Vec<_> =
            files.iter().map(|(_, body)| move |w: &mut dyn std::io::Write| body.write_to(w)).collect();
        let mut set: Vec<SetFile> = files
            .iter()
            .zip(writers.iter_mut())
            .map(|((path, _), w)| {
                let links = if self.tool_named(path) { Links::Refuse } else { Links::Follow };
                (path.as_path(), links, w as &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>)
            })
            .collect();
        write_set(&mut set).with_context(|| {
            let names: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
            format!("nothing was written to any of {}", names.join(", "))
        })?;
        for (path, _) in files {
            self.info(&format!("wrote {}", path.display()));
        }
        Ok(())
    }

    /// Whether `path` is a name the tool made, not one the user typed.
    fn tool_named(&self, path: &Path) -> bool {
        self.is_side_table(path) || self.implicit.as_deref() == Some(path)
    }

    fn tool_named_what(&self, path: &Path) -> String {
        if self.implicit.as_deref() == Some(path) {
            "the default output file (no -o was given)".into()
        } else {
            format!("this table beside -o {}", self.file.as_deref().unwrap_or(Path::new("")).display())
        }
    }

    fn tool_named_fix(&self, path: &Path) -> &'static str {
        if self.implicit.as_deref() == Some(path) {
            "give -o FILE (or redirect stdout)"
        } else {
            "give -o another name"
        }
    }

    /// Refuses, before any work, an output file (`--save-csv`) at a name
    /// that the tables beside `-o FILE.csv` may take (`FILE.TABLE.csv`):
    /// found only once the run is over, the clash would cost the run.
    pub fn refuse_side_table_names(&self, flag: &str, path: &Path) -> anyhow::Result<()> {
        if self.is_side_table(path) {
            return Err(bad_input(format!(
                "{flag} {}: the tables beside -o {} take names of the form {}.TABLE.csv, and this may be one of them; give {flag} another name",
                path.display(),
                self.file.as_deref().unwrap_or(Path::new("")).display(),
                self.file.as_deref().and_then(Path::file_stem).unwrap_or_default().to_string_lossy()
            )));
        }
        Ok(())
    }

    /// Whether `path` is one of the tables [`Output::files`] writes beside
    /// `-o FILE.csv` (`FILE.TABLE.csv`), rather than a file named on the
    /// command line.
    fn is_side_table(&self, path: &Path) -> bool {
        let Some(file) = self.file.as_deref() else { return false };
        if self.file_format() != Some(Format::Csv) || path == file {
            return false;
        }
        let mut prefix = file.file_stem().unwrap_or(OsStr::new("out")).to_os_string();
        prefix.push(".");
        path.parent() == file.parent()
            && path.file_name().is_some_and(|n| {
                let n = n.as_encoded_bytes();
                n.starts_with(prefix.as_encoded_bytes()) && n.ends_with(b".csv")
            })
    }

    /// Refuses an analysis with a number out of range (exit 2, the field
    /// named), before anything is written: every document the tool writes,
    /// it reads back.
    pub fn check_analysis(&self, doc: &AnalysisDocument) -> anyhow::Result<()> {
        roofline_documents::check_analysis(doc, "the analysis to write").map_err(unplaceable)
    }

    /// As [`Output::check_analysis`], for a machine.
    pub fn check_machine(&self, doc: &MachineDocument) -> anyhow::Result<()> {
        roofline_documents::check_machine(doc, "the machine to write")
            .map_err(|e| bad_input(format!("{e}; {UNPLACEABLE}")))
    }

    /// The `-o` files, then stdout; stdout is written even when a file
    /// cannot be, and the file's error is the one returned.
    pub fn deliver(&self, files: &[(PathBuf, Body)], stdout: &Body) -> anyhow::Result<()> {
        // The one file's JSON document, and the same document on stdout:
        // serialised once, for both.
        let mut teed = match (files, stdout) {
            ([(path, Body::Json(doc))], Body::Json(same))
                if std::ptr::addr_eq(*doc as *const dyn JsonDocument, *same as *const dyn JsonDocument)
                    && !self.tool_named(path)
                    && !streams::stdout_was_closed() =>
            {
                let out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
                Some(Teed { doc: *doc, out, printed: None })
            }
            _ => None,
        };
        let saved = self.write_teed(files, teed.as_mut());
        let printed = match teed.and_then(|t| t.printed) {
            Some(printed) => printed.context("standard output: the results could not be written whole"),
            // Not teed, or the file failed before its document was begun.
            None => self.stdout_body(stdout),
        };
        match saved {
            Err(e) => {
                if printed.is_ok() {
                    self.warn("the -o file was not written; the results went to standard output");
                }
                Err(e)
            }
            Ok(()) => printed,
        }
    }

    /// As [`Output::document`], with a shorter version of the document for
    /// the formats people read (terminal, Markdown, HTML, SVG) when there is
    /// one (`page`: the kernels with the most time of a huge analysis); JSON
    /// and CSV get the whole of it.
    pub fn document_for_people<D: Describe + Serialize, P: Describe + Serialize>(
        &self,
        doc: &D,
        page: Option<&P>,
    ) -> anyhow::Result<()> {
        let Some(page) = page else { return self.document(doc) };
        let whole = |f: Format| matches!(f, Format::Json | Format::Csv);
        let files = match (&self.file, self.file_format()) {
            (Some(path), Some(f)) if whole(f) => self.files(doc, path, f)?,
            (Some(path), Some(f)) => self.files(page, path, f)?,
            _ => Vec::new(),
        };
        let text = match self.format {
            Format::Json => Body::Json(doc),
            f if whole(f) => self.rendered(doc, f)?.into(),
            f => self.rendered(page, f)?.into(),
        };
        self.deliver(&files, &text)
    }

    /// Renders the document for the `-o` file and for stdout, then writes
    /// the file and prints.
    pub fn document<D: Describe + Serialize>(&self, doc: &D) -> anyhow::Result<()> {
        let files = match (&self.file, self.file_format()) {
            (Some(path), Some(format)) => self.files(doc, path, format)?,
            _ => Vec::new(),
        };
        let text = if self.format == Format::Csv && self.file_format() != Some(Format::Csv) {
            // The tables are made once: stdout gets the first, the message
            // names the others.
            let mut tables = csv_tables(doc)?.into_iter();
            let text = tables.next().map(|t| t.text).unwrap_or_default();
            let more: Vec<String> = tables.map(|t| t.name).collect();
            if !more.is_empty() {
                self.info(&format!(
                    "stdout has the first table; {} more ({}) are written beside it with -o FILE.csv",
                    more.len(),
                    more.join(", ")
                ));
            }
            text.into()
        } else if self.format == Format::Json {
            Body::Json(doc)
        } else {
            self.rendered(doc, self.format)?.into()
        };
        self.deliver(&files, &text)
    }
}

/// Makes sure `dir` (given with `flag`) is a folder, creating it when
/// missing. A file, device or FIFO there is the user's to fix (exit 2).
pub fn ensure_folder(flag: &str, dir: &Path) -> anyhow::Result<()> {
    if let Ok(m) = std::fs::metadata(dir) {
        if !m.is_dir() {
            let what = if m.is_file() { "a file" } else { "a device, FIFO or socket" };
            return Err(bad_input(format!(
                "{flag} {}: is {what}, not a folder; give a folder (it is created when missing)",
                dir.display()
            )));
        }
        return Ok(());
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| bad_input(format!("{flag} {}: cannot create the folder ({e})", dir.display())))
}

/// Refuses (exit 2), before anything is written, a name the tool makes
/// itself in a folder (`--svg-dir`'s charts) that is a symbolic link or not
/// a regular file: written through, a planted link would send the write
/// out of the folder.
pub fn refuse_odd_names(flag: &str, paths: &[PathBuf]) -> anyhow::Result<()> {
    for path in paths {
        if let Some(why) = not_a_plain_file(path) {
            return Err(bad_input(format!(
                "{flag}: {} is {why}; the tool writes its own files there only as plain files, never through a link: remove it or give another {flag}",
                path.display()
            )));
        }
    }
    Ok(())
}

/// "out/a.csv" and "roof" -> "out/a.roof.csv", the stem byte for byte.
fn beside(path: &Path, name: &str) -> PathBuf {
    let mut file = path.file_stem().unwrap_or(OsStr::new("out")).to_os_string();
    file.push(format!(".{name}.csv"));
    path.with_file_name(file)
}

/// How much of an existing file is read to tell whether roofline wrote it.
const HEAD_READ: usize = 4096;

/// Why the regular file at `path` is not one roofline wrote in the form
/// `body` has (`None`: it is, or there is nothing to lose: no file, or an
/// empty one). A CSV table is recognised by its header line (the first
/// line of `body`), a page by roofline's `<meta name="generator">` tag.
fn not_written_by_roofline(path: &Path, body: &Body) -> Option<String> {
    use std::io::Read;
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() == 0 {
        return None;
    }
    let mut head = Vec::with_capacity(HEAD_READ);
    let read = std::fs::File::open(path).and_then(|f| f.take(HEAD_READ as u64).read_to_end(&mut head));
    if let Err(e) = read {
        return Some(format!("it cannot be read to tell: {e}"));
    }
    let head = String::from_utf8_lossy(&head);
    let Body::Text(new) = body else {
        return Some("roofline recognises only its own tables and pages there".into());
    };
    if new.trim_start().starts_with("<!DOCTYPE html>") {
        return (!head.contains("<meta name=\"generator\" content=\"roofline "))
            .then(|| "it has no roofline generator tag".into());
    }
    let first = |t: &str| t.lines().next().unwrap_or("").trim_end_matches('\r').to_string();
    (first(&head) != first(new)).then(|| format!("its first line is not the table's header {}", first(new)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that takes `left` bytes, then fails.
    struct Full {
        got: Vec<u8>,
        left: usize,
    }

    impl std::io::Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if buf.len() > self.left {
                return Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "full"));
            }
            self.left -= buf.len();
            self.got.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_tee_gives_both_sides_every_byte_until_one_fails_and_the_other_still_all() {
        use std::io::Write;
        let doc = serde_json::json!({"kernels": (0..2000).map(|i| format!("k{i}")).collect::<Vec<_>>(), "x": 1.5});
        let mut whole = Vec::new();
        doc.write_json(&mut whole).unwrap();
        for (file_left, out_left) in [(usize::MAX, usize::MAX), (100, usize::MAX), (usize::MAX, 5), (0, 0), (10, 20)] {
            let (mut file, mut out) =
                (Full { got: Vec::new(), left: file_left }, Full { got: Vec::new(), left: out_left });
            let mut tee = Tee { file: &mut file, out: &mut out, file_error: None, out_error: None };
            let done = doc.write_json(&mut tee).and_then(|()| tee.flush());
            let (file_failed, out_failed) = (tee.file_error.is_some(), tee.out_error.is_some());
            assert_eq!(file_failed, file_left < whole.len(), "{file_left} {out_left}");
            assert_eq!(out_failed, out_left < whole.len(), "{file_left} {out_left}");
            assert_eq!(done.is_err(), file_failed && out_failed);
            for (side, failed) in [(&file.got, file_failed), (&out.got, out_failed)] {
                if failed {
                    assert!(whole.starts_with(side) && side.len() < whole.len());
                } else {
                    assert_eq!(side, &whole);
                }
            }
        }
    }

    #[test]
    fn side_tables_go_beside_the_file() {
        assert_eq!(beside(Path::new("out/a.csv"), "roof"), PathBuf::from("out/a.roof.csv"));
    }

    #[test]
    fn file_format_follows_the_extension_then_the_flag() {
        let out = |format, file: &str| Output::new(Some(format), Some(PathBuf::from(file)), true);
        assert_eq!(out(FormatArg::Table, "a.md").file_format(), Some(Format::Markdown));
        assert_eq!(out(FormatArg::Table, "a.out").file_format(), Some(Format::Json));
        assert_eq!(out(FormatArg::Csv, "a.out").file_format(), Some(Format::Csv));
        assert_eq!(out(FormatArg::Table, "a.out").preferring(Format::Html).file_format(), Some(Format::Html));
        assert_eq!(out(FormatArg::Json, "a.html").file_format(), Some(Format::Html));
    }

    #[test]
    fn a_page_replaces_the_table_only_when_no_format_was_given() {
        let given = Output::new(Some(FormatArg::Table), None, true).preferring(Format::Html);
        assert_eq!(given.format, Format::Table);
        let default = Output::new(None, None, true).preferring(Format::Html);
        assert_eq!(default.format, Format::Html);
    }
}
