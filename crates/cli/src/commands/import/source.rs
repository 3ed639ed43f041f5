//! What kind of file `import` was given, and the raw CSV read a launch at
//! a time: shared by the whole-capture path and the streamed one.

use std::path::Path;

use roofline_ncu::{read_capture_with, CsvError, Launch, RawCapture};

use crate::error::bad_input;

/// The kinds of file `import` reads. A profiler's data is one source
/// crate that yields a `roofline_model::Capture`, and one arm here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SourceKind {
    /// `ncu --csv --page raw` output (or stdin).
    NcuCsv,
    /// An Nsight Compute report, read back through `ncu --import`.
    NcuReport,
    /// A PyTorch profiler Chrome trace (`.json`, `.json.gz`): FLOPs and
    /// bytes estimated from shapes.
    PytorchTrace,
}

impl SourceKind {
    pub(super) fn of(path: &Path) -> SourceKind {
        let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        if path.extension().is_some_and(|e| e == "ncu-rep") {
            SourceKind::NcuReport
        } else if name.ends_with(".json")
            || name.ends_with(".json.gz")
            || name.ends_with(".gz") && !name.ends_with(".csv.gz") && gzipped_json(path)
        {
            SourceKind::PytorchTrace
        } else {
            SourceKind::NcuCsv
        }
    }
}

/// Whether a gzipped file of no telling name holds JSON (a trace) rather
/// than a CSV: its first character that is not white space opens an object
/// or an array. Unreadable: no (the CSV reader says what is wrong).
fn gzipped_json(path: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(path) else { return false };
    let mut head = [0u8; 256];
    let n = flate2::read::GzDecoder::new(file).read(&mut head).unwrap_or(0);
    head[..n].iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|b| *b == b'{' || *b == b'[')
}

/// Reads a CSV capture from a file or stdin, gzipped or not, handing each
/// launch to `each` as it is read.
pub(super) fn read_csv_with(path: &Path, each: impl FnMut(Launch)) -> anyhow::Result<RawCapture> {
    let input = path.display().to_string();
    let result = if input == "-" {
        read_capture_with(crate::input_file::maybe_gunzip(std::io::stdin().lock()), "stdin", each)
    } else {
        let f = std::fs::File::open(path).map_err(|e| {
            bad_input(format!("{input}: cannot open it ({e}); expected a CSV written by `ncu --csv --page raw`"))
        })?;
        read_capture_with(crate::input_file::maybe_gunzip(f), &input, each)
    };
    result.map_err(|e: CsvError| bad_input(e))
}
