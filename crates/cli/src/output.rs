//! Where results go: data on stdout in the chosen format, an optional file
//! written atomically, messages on stderr (plain when NO_COLOR is set or
//! stderr is not a terminal).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Context;
use roofline_core::schema::{AnalysisDocument, MachineDocument};
use roofline_report::{exporter, write_atomic, Format};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    Table,
    Json,
    Csv,
    Markdown,
    /// Chrome trace-event JSON (Perfetto, chrome://tracing): `timeline` only.
    Trace,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Table => Format::Table,
            FormatArg::Json => Format::Json,
            FormatArg::Csv => Format::Csv,
            FormatArg::Markdown => Format::Markdown,
            // Only `timeline` writes traces (main refuses it elsewhere); its
            // document, where one is asked for, is JSON.
            FormatArg::Trace => Format::Json,
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
            eprintln!("{msg}");
        }
    }

    /// A warning on stderr, always shown.
    pub fn warn(&self, msg: &str) {
        if self.color {
            eprintln!("\x1b[33mwarning:\x1b[0m {msg}");
        } else {
            eprintln!("warning: {msg}");
        }
    }

    pub fn stdout(&self, text: &str) -> anyhow::Result<()> {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()?;
        Ok(())
    }

    fn save(&self, text: impl FnOnce(Format) -> anyhow::Result<String>) -> anyhow::Result<()> {
        if let Some(path) = &self.file {
            let body = text(self.file_format())?;
            write_atomic(path, body.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
            self.info(&format!("wrote {}", path.display()));
        }
        Ok(())
    }

    pub fn machine(&self, doc: &MachineDocument) -> anyhow::Result<()> {
        self.save(|f| Ok(exporter(f).machine(doc)?))?;
        self.stdout(&exporter(self.format).machine(doc)?)
    }

    /// Any document with its own renderer: the `-o` file, then stdout.
    pub fn document(&self, render: impl Fn(Format) -> anyhow::Result<String>) -> anyhow::Result<()> {
        self.save(&render)?;
        self.stdout(&render(self.format)?)
    }

    pub fn analysis(&self, doc: &AnalysisDocument) -> anyhow::Result<()> {
        self.save(|f| Ok(exporter(f).analysis(doc)?))?;
        self.stdout(&exporter(self.format).analysis(doc)?)
    }
}
