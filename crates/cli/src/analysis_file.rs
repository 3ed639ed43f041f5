//! Reading the analysis documents that `report`, `check` and `diff` take:
//! the schema is checked first, and an analysis with no kernels (an empty
//! profile) is refused, so no command draws or judges nothing. A merged
//! job (`roofline.merged/v1`, from `roofline merge`) is read too: `report`
//! shows it whole (ranks, stragglers, the job's analysis); `check` and
//! `diff` judge the job's analysis, every rank's kernels summed.

use std::path::Path;

use roofline_documents::read_analysis_placements;
use roofline_documents::{read_analysis, AnalysisDocument, DocumentError, ANALYSIS_SCHEMA};
use roofline_documents::{read_merged, MergedDocument, MERGED_SCHEMA};

use crate::error::bad_input;
use crate::input_file::{open_text, read_text, TextStream};

/// One process's analysis or a job of several ranks.
#[derive(Debug, Clone)]
pub enum AnalysisInput {
    One(Box<AnalysisDocument>),
    Job(Box<MergedDocument>),
}

impl AnalysisInput {
    /// The analysis to judge: the document itself, or the job's.
    pub fn analysis(&self) -> &AnalysisDocument {
        match self {
            AnalysisInput::One(a) => a,
            AnalysisInput::Job(j) => &j.job,
        }
    }

    pub fn into_analysis(self) -> AnalysisDocument {
        match self {
            AnalysisInput::One(a) => *a,
            AnalysisInput::Job(j) => j.job,
        }
    }
}

/// Reads an analysis or a merged job; every failure is bad input (exit code 2).
pub fn read_input(path: &Path) -> anyhow::Result<AnalysisInput> {
    read_with(path, read_analysis)
}

/// Reads an analysis with `read` (the whole of it, or its placements) or
/// a merged job.
fn read_with(
    path: &Path,
    read: fn(&str, &str) -> Result<AnalysisDocument, DocumentError>,
) -> anyhow::Result<AnalysisInput> {
    let input = path.display().to_string();
    let text = read_text(path, &expected())?;
    let doc = match read(&text, &input) {
        Ok(a) => AnalysisInput::One(Box::new(a)),
        Err(DocumentError::WrongSchema { found, .. }) if found == MERGED_SCHEMA => {
            AnalysisInput::Job(Box::new(read_merged(&text, &input)?))
        }
        Err(e) => return Err(e.into()),
    };
    if doc.analysis().kernels.is_empty() {
        return Err(no_kernels(path));
    }
    Ok(doc)
}

/// What an analysis input should be, for messages.
fn expected() -> String {
    format!("a {ANALYSIS_SCHEMA} JSON file, as written by `roofline model --format json -o FILE.json`, or a {MERGED_SCHEMA} file from `roofline merge`")
}

/// The refusal of an analysis with no kernels to show or judge.
pub fn no_kernels(path: &Path) -> anyhow::Error {
    bad_input(format!(
        "{}: the analysis has no kernels (an empty profile?); profile or model at least one kernel and write it again",
        path.display()
    ))
}

/// An analysis file read as a stream by `read` (one of
/// `roofline_documents`' streaming readers), in the memory of what `read`
/// keeps. `None` when `read` answers none (the caller reads the file whole,
/// which gives the document or the error), or when the file is not a plain
/// file, which could not be read a second time.
pub fn streamed<T>(path: &Path, read: impl FnOnce(TextStream) -> Option<T>) -> Option<T> {
    read(reopenable(path)?()?)
}

/// The file opened from its start at each call, when it is a plain file
/// (which reads the same twice, unlike a pipe).
pub fn reopenable(path: &Path) -> Option<impl Fn() -> Option<TextStream> + '_> {
    std::fs::metadata(path).is_ok_and(|m| m.is_file()).then_some(move || open_text(path, &expected()).ok())
}

/// Reads where the kernels of an analysis (or of a merged job) sit, for
/// `check` and `diff`, which compare placements: each kernel without its
/// diagnosis, evidence and instruction view
/// ([`roofline_documents`]).
pub fn read_placements_file(path: &Path) -> anyhow::Result<AnalysisDocument> {
    // Kernel by kernel, without the text in memory; anything the stream
    // does not read as expected is read whole, for its error.
    if let Some(doc) = streamed(path, roofline_documents::stream_placements) {
        if doc.kernels.is_empty() {
            return Err(no_kernels(path));
        }
        return Ok(doc);
    }
    read_with(path, read_analysis_placements).map(AnalysisInput::into_analysis)
}
