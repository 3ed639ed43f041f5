//! Where results go: data on stdout in the chosen format, an optional file
//! written atomically, messages on stderr (plain when NO_COLOR is set or
//! stderr is not a terminal). A document is checked before anything is
//! written (every number finite and in bounds, so that it reads back), and
//! an `-o` file that cannot be written does not cost the data on stdout.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Context;
use roofline_core::schema::{check_analysis, check_machine, AnalysisDocument, MachineDocument};
use roofline_report::output_file::refuse_overwriting_inputs;
use roofline_report::{exporter, write_atomic, Format};

use crate::error::bad_input;
use crate::streams;

/// What to do when a document about to be written breaks the range checks.
const UNPLACEABLE: &str = "nothing was written: the input values behind this number are too large, too small or zero where they cannot be (see the warnings above); correct them";

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    Table,
    Json,
    Csv,
    Markdown,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Table => Format::Table,
            FormatArg::Json => Format::Json,
            FormatArg::Csv => Format::Csv,
            FormatArg::Markdown => Format::Markdown,
        }
    }
}

/// The output settings every command receives.
pub struct Output {
    pub format: Format,
    pub file: Option<PathBuf>,
    pub quiet: bool,
    pub color: bool,
}

impl Output {
    pub fn new(format: FormatArg, file: Option<PathBuf>, quiet: bool) -> Output {
        let color = std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal();
        Output { format: format.into(), file, quiet, color }
    }

    /// The format for the `-o` file: JSON for .json, CSV for .csv, Markdown
    /// for .md, otherwise JSON unless --format asked for something else.
    fn file_format(&self) -> Format {
        let ext = self.file.as_ref().and_then(|p| p.extension()).map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("json") => Format::Json,
            Some("csv") => Format::Csv,
            Some("md") | Some("markdown") => Format::Markdown,
            _ if self.format == Format::Table => Format::Json,
            _ => self.format,
        }
    }

    /// A message for the user on stderr.
    pub fn info(&self, msg: &str) {
        if !self.quiet {
            streams::message(msg);
        }
    }

    /// A warning on stderr, always shown.
    pub fn warn(&self, msg: &str) {
        if self.color {
            streams::message(&format!("\x1b[33mwarning:\x1b[0m {msg}"));
        } else {
            streams::message(&format!("warning: {msg}"));
        }
    }

    pub fn stdout(&self, text: &str) -> anyhow::Result<()> {
        streams::data(text)
    }

    /// Refuses, before any work, to let `-o` or another output (`("--svg",
    /// path)`) write over an input of the run (`("FILE", capture)`), or two
    /// outputs over each other.
    pub fn protect_inputs(&self, outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> anyhow::Result<()> {
        let mut all: Vec<(&str, &Path)> = self.file.iter().map(|f| ("-o", f.as_path())).collect();
        all.extend_from_slice(outputs);
        refuse_overwriting_inputs(&all, inputs).map_err(bad_input)
    }

    /// Writes an output file other than `-o` (`--svg`, `--save-csv`), and says so.
    pub fn write_file(&self, flag: &str, path: &Path, body: &[u8]) -> anyhow::Result<()> {
        write_atomic(path, body).with_context(|| format!("{flag} {}: nothing was written", path.display()))?;
        self.info(&format!("wrote {}", path.display()));
        Ok(())
    }

    fn save(&self, text: impl FnOnce(Format) -> anyhow::Result<String>) -> anyhow::Result<()> {
        if let Some(path) = &self.file {
            let body = text(self.file_format())?;
            self.write_file("-o", path, body.as_bytes())?;
        }
        Ok(())
    }

    /// The `-o` file, then stdout; stdout is written even when the file
    /// cannot be, and the file's error is the one returned.
    fn emit(
        &self,
        file: impl FnOnce(Format) -> anyhow::Result<String>,
        stdout: impl FnOnce() -> anyhow::Result<String>,
    ) -> anyhow::Result<()> {
        let saved = self.save(file);
        let printed = stdout().and_then(|text| self.stdout(&text));
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

    pub fn machine(&self, doc: &MachineDocument) -> anyhow::Result<()> {
        check_machine(doc, "the machine to write").map_err(|e| bad_input(format!("{e}; {UNPLACEABLE}")))?;
        self.emit(|f| Ok(exporter(f).machine(doc)?), || Ok(exporter(self.format).machine(doc)?))
    }

    /// Any document with its own renderer: the `-o` file, then stdout.
    pub fn document(&self, render: impl Fn(Format) -> anyhow::Result<String>) -> anyhow::Result<()> {
        self.emit(&render, || render(self.format))
    }

    pub fn analysis(&self, doc: &AnalysisDocument) -> anyhow::Result<()> {
        check_analysis(doc, "the analysis to write").map_err(|e| bad_input(format!("{e}; {UNPLACEABLE}")))?;
        self.emit(|f| Ok(exporter(f).analysis(doc)?), || Ok(exporter(self.format).analysis(doc)?))
    }
}
