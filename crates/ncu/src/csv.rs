//! The reader of `ncu --csv --page raw` output: streaming, tolerant, and
//! exact about what is missing.
//!
//! A raw capture is one row per kernel launch after a header and a units
//! row, preceded by ncu's `==PROF==`/`==WARNING==`/`==ERROR==` lines and
//! whatever the profiled program printed. Only the columns the roofline needs
//! are converted (a `--set full` row has ~2,200); values are scaled to base
//! SI units from the units row, whether ncu printed base units or scaled ones
//! (`Kbyte`, `usecond`, `Ghz`), with or without thousands separators.
//! Garbled rows, `n/a` values, non-UTF-8 bytes and a file cut short are
//! warnings, never a failure: every launch that can be read is kept.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Read};
use std::sync::Arc;

use roofline_model::FlopKind;
pub use roofline_model::NumberProblem;

use crate::metrics::{
    Slot, Via, COLUMNS, PIPE_COUNT_SUFFIX, PIPE_CYCLES_PREFIX, PIPE_CYCLES_SUFFIX, PIPE_PCT_SUFFIX, PIPE_PREFIX,
    SLOT_COUNT, STALL_PREFIX, STALL_SUFFIX, TENSOR_PREFIX,
};
use crate::rows::{Columns, Row};

/// One kernel launch as ncu reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// ncu's `ID` column (the launch's index in the capture).
    pub id: String,
    /// The profiled process's pid: launches of different processes are
    /// different kernels even under one name.
    pub process_id: Arc<str>,
    /// The profiled process's name, for messages.
    pub process_name: Arc<str>,
    /// The host ncu ran on (a capture may merge several).
    pub host: Arc<str>,
    /// The name as ncu printed it (demangled by default).
    pub kernel_name: Arc<str>,
    /// CUDA context id: with the process, device and stream, part of the key
    /// that groups launches into one kernel.
    pub context: Arc<str>,
    /// CUDA stream id (part of the grouping key).
    pub stream: Arc<str>,
    /// ncu's device index (part of the grouping key).
    pub device: Arc<str>,
    /// Compute capability, "9.0".
    pub cc: Arc<str>,
    /// The GPU's product name (`device__attribute_display_name`, "NVIDIA
    /// H200"), empty when the capture lacks it.
    pub device_name: Arc<str>,
    /// Block size as ncu printed it, "(256, 1, 1)": the launch shape the
    /// diagnosis checks.
    pub block: Arc<str>,
    /// Grid size as ncu printed it, "(1024, 1, 1)".
    pub grid: Arc<str>,
    /// Values in base SI units (seconds, bytes, Hz), NaN when the column is
    /// missing or the value is `n/a` (every value read is finite, so NaN is
    /// free to mean none; half the memory of `Option<f64>`): read through
    /// [`Launch::get`].
    pub(crate) values: [f64; SLOT_COUNT],
    /// Tensor-core operations per kind and the counters' per-cycle peak.
    pub tensor: BTreeMap<FlopKind, TensorCount>,
    /// Stall reasons: warp cycles stalled per issued instruction.
    pub stalls: NameMap<f64>,
    /// Per Nsight Compute pipe the instruction roofline reads ("alu",
    /// "fma_type_fp16", "tensor_op_gmma"): utilisation and warp instructions.
    pub pipes: NameMap<PipeCount>,
    /// Line of the row in the input (1-based), for messages.
    pub line: u64,
}

/// Tensor-core operations of one kind in one launch.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TensorCount {
    /// Operations counted (each an MMA's FLOPs as ncu defines its `ops`).
    pub ops: f64,
    /// Operations per cycle over the whole GPU (`.sum.peak_sustained`).
    pub peak_per_cycle: Option<f64>,
}

/// One pipe's counters in one launch.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PipeCount {
    /// % of the pipe's peak over the SMs' active cycles.
    pub pct_of_peak: Option<f64>,
    /// Warp instructions.
    pub warp_instructions: Option<f64>,
    /// % of the SMs' active cycles the pipe was busy.
    pub cycles_pct: Option<f64>,
}

/// A small map from names shared by every launch of a capture (stall
/// reasons, pipes) to values, sorted by name: a launch holds a few dozen
/// of them, and a `BTreeMap` of owned strings per launch cost more memory
/// than the values.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NameMap<V>(Vec<(Arc<str>, V)>);

impl<V> NameMap<V> {
    /// An empty map.
    pub fn new() -> NameMap<V> {
        NameMap(Vec::new())
    }

    /// The value under `name`.
    pub fn get(&self, name: &str) -> Option<&V> {
        self.0.binary_search_by(|e| (*e.0).cmp(name)).ok().map(|i| &self.0[i].1)
    }

    /// Sets the value under `name` (replacing one there).
    pub fn insert(&mut self, name: Arc<str>, value: V) {
        match self.0.binary_search_by(|e| e.0.cmp(&name)) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (name, value)),
        }
    }

    /// Names and values, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&Arc<str>, &V)> + '_ {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// How many names it holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a, V> IntoIterator for &'a NameMap<V> {
    type Item = (&'a Arc<str>, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (Arc<str>, V)>, fn(&'a (Arc<str>, V)) -> (&'a Arc<str>, &'a V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

/// Text fields of a capture's rows, each distinct value kept once: a
/// capture repeats its process, device, stream, kernel names and launch
/// shapes over every launch.
#[derive(Default)]
struct Interner {
    values: HashMap<Box<[u8]>, Arc<str>>,
    /// Per text column, its last value: most columns (process, device,
    /// stream, host) repeat the row above, and comparing with it costs
    /// less than hashing.
    last: Vec<(Vec<u8>, Arc<str>)>,
}

impl Interner {
    /// The value of text column number `column` (any small index the
    /// caller keeps for it).
    fn get_column(&mut self, column: usize, raw: &[u8]) -> Arc<str> {
        if let Some((bytes, v)) = self.last.get(column) {
            if bytes.as_slice() == raw {
                return v.clone();
            }
        }
        let v = self.get(raw);
        if self.last.len() <= column {
            self.last.resize_with(column + 1, || (Vec::new(), Arc::from("")));
        }
        let last = &mut self.last[column];
        last.0.clear();
        last.0.extend_from_slice(raw);
        last.1 = v.clone();
        v
    }

    fn get(&mut self, raw: &[u8]) -> Arc<str> {
        if let Some(v) = self.values.get(raw) {
            return v.clone();
        }
        let v: Arc<str> = String::from_utf8_lossy(raw).trim().into();
        // Bounded by the distinct values, but a capture of launches that all
        // differ (unique names) would keep every one: cleared past a limit.
        if self.values.len() >= 1 << 16 {
            self.values.clear();
        }
        self.values.insert(raw.into(), v.clone());
        v
    }
}

impl Launch {
    /// The value of one slot in base SI units, `None` when the capture has
    /// no such column or the value was `n/a`.
    pub fn get(&self, slot: Slot) -> Option<f64> {
        let v = self.values[slot as usize];
        (!v.is_nan()).then_some(v)
    }

    /// Every slot's value the capture gave, in base SI units.
    pub fn present(&self) -> impl Iterator<Item = f64> + '_ {
        self.values.iter().copied().filter(|v| !v.is_nan())
    }
}

/// A slot no column of the header could fill.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingMetric {
    /// What the roofline could not fill.
    pub slot: Slot,
    /// The column(s) that would have filled it.
    pub metrics: Vec<&'static str>,
    /// What it blocks.
    pub blocks: &'static str,
}

/// Everything read from one capture.
#[derive(Debug, Clone, Default)]
pub struct RawCapture {
    /// Every launch that could be read, in file order.
    pub launches: Vec<Launch>,
    /// Metrics the header lacks, each with what it blocks: said once, not
    /// once per launch.
    pub missing: Vec<MissingMetric>,
    /// What was skipped or repaired while reading (garbled rows, a cut-off
    /// file), so that a partial capture is never taken for a whole one.
    pub warnings: Vec<String>,
    /// `==ERROR==` lines of the preamble or the end of the file.
    pub errors: Vec<String>,
    /// ncu's own lines before the header (`==PROF==`, `==WARNING==`).
    pub preamble: Vec<String>,
    /// Bytes read.
    pub bytes: u64,
    /// The profiled program stopped early (set by the runner).
    pub program_exit: Option<ProgramExit>,
}

/// How a profiled program ended when it did not succeed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProgramExit {
    /// The program as the user gave it.
    pub program: String,
    /// Its exit status, when it exited.
    pub status: Option<i32>,
    /// The signal that stopped it, when one did.
    pub signal: Option<String>,
    /// "--timeout" or the signal the tool received, when the tool stopped it.
    pub stopped_by: Option<String>,
}

/// Longest physical line of a capture, bytes. A `--set full` header is
/// about 130 kB and C++ kernel names run to tens of kB; a longer line is
/// not ncu's (`/dev/zero`, a binary file), and reading it would grow
/// memory without bound.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// A capture that cannot be analysed at all.
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    /// The file could not be opened or read.
    #[error("{input}: cannot read it ({source})")]
    Io {
        /// The file as the user named it.
        input: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// ncu ran without permission to read counters: the capture has no
    /// data, and the fix is a system setting, which the message gives.
    #[error("{input}: Nsight Compute was not allowed to read the GPU's performance counters (ERR_NVGPUCTRPERM). Fix: run as root or with sudo, or allow profiling for all users: `echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' | sudo tee /etc/modprobe.d/ncu-counters.conf`, then reboot (or reload the nvidia module); details: https://developer.nvidia.com/ERR_NVGPUCTRPERM")]
    CounterPermission {
        /// The file as the user named it.
        input: String,
    },
    /// A details-page export: the right tool, the wrong page.
    #[error("{input}: this is Nsight Compute's details page (one row per metric); expected the raw page (one row per launch). Export it again with `ncu --import REPORT.ncu-rep --csv --page raw --print-units base`, or profile with `--page raw`")]
    DetailsPage {
        /// The file as the user named it.
        input: String,
    },
    /// A header without the kernel's name: every launch would be one
    /// nameless kernel.
    #[error("{input}: the header has no `Kernel Name` column, so no launch says which kernel it was; expected the CSV written by `ncu --csv --page raw` (which always has it). Export it again with `ncu --import REPORT.ncu-rep --csv --page raw --print-units base`, or add the column")]
    NoKernelName {
        /// The file as the user named it.
        input: String,
    },
    /// A `--print-summary` export: statistics per kernel, not launches.
    #[error("{input}: this is Nsight Compute's summary (`--print-summary`: one row per kernel and metric, with minimum, maximum and average); expected the raw page (one row per launch). Export it again without --print-summary: `ncu --import REPORT.ncu-rep --csv --page raw --print-units base`, or profile with `ncu --csv --page raw --print-units base`")]
    SummaryPage {
        /// The file as the user named it.
        input: String,
    },
    /// Another column separator than ncu's comma (a spreadsheet's export).
    #[error("{input}: the columns are separated by {delimiter:?}, expected ',' as `ncu --csv` writes them (a spreadsheet saved it with another separator?). Export it again with `ncu --import REPORT.ncu-rep --csv --page raw --print-units base`, or save it as comma-separated")]
    Delimiter {
        /// The file as the user named it.
        input: String,
        /// The separator found.
        delimiter: char,
    },
    /// NUL bytes: a binary file (a .ncu-rep given as CSV), never text.
    #[error("{input}: line {line}: binary data (NUL bytes), not text; expected the CSV written by `ncu --csv --page raw` (for a .ncu-rep report, give a file name ending in .ncu-rep)")]
    Binary {
        /// The file as the user named it.
        input: String,
        /// The first line holding them.
        line: u64,
    },
    /// A line past the reader's limit: not a CSV, and memory is protected.
    #[error("{input}: line {line} is longer than {max} bytes with no line break; expected the CSV written by `ncu --csv --page raw`", max = MAX_LINE_BYTES)]
    LineTooLong {
        /// The file as the user named it.
        input: String,
        /// The line that runs on.
        line: u64,
    },
    /// A launch row whose field count is not the header's, before the last
    /// row: a row broken by a newline or a pasted line, whose values would
    /// land in the wrong columns (a phantom kernel).
    #[error("{input}: line {line}: a launch row with {found} columns where the header has {expected} (a row broken by a line break, or a line pasted into the capture); its values would land in the wrong columns. Join or delete that row, or capture again (`roofline profile -- ./program`, or `ncu --csv --page raw --print-units base`)")]
    RowWidth {
        /// The file as the user named it.
        input: String,
        /// The row's line.
        line: u64,
        /// Its fields.
        found: usize,
        /// The header's fields.
        expected: usize,
    },
    /// A unit of the wrong kind or unknown: values would be off by a scale nobody sees.
    #[error("{input}: column {column} has unit {unit:?}, {problem}; expected {expected}. Fix the units row (the row under the header), or export the capture again with `--print-units base`")]
    Unit {
        /// The file as the user named it.
        input: String,
        /// The metric's column.
        column: String,
        /// The unit in the units row.
        unit: String,
        /// What is wrong with it.
        problem: String,
        /// The kind of unit that column needs.
        expected: &'static str,
    },
    /// A value that cannot be a counter (negative, out of range, not a number).
    #[error("{input}: line {line}: {column} = {raw:?}: {problem}; correct or delete that row, or capture again")]
    Value {
        /// The file as the user named it.
        input: String,
        /// The launch's line.
        line: u64,
        /// The metric's column.
        column: String,
        /// The text as written.
        raw: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A field that starts like a number and is not one in the reader's
    /// grammar ([`read_number`]): a decimal comma, a malformed or an
    /// overflowing number.
    #[error("{input}: line {line}, column {column_number} ({column}): {raw:?}: {problem}")]
    Number {
        /// The file as the user named it.
        input: String,
        /// The launch's line.
        line: u64,
        /// The column, counted from 1.
        column_number: usize,
        /// The metric's column.
        column: String,
        /// The text as written (at most 40 characters).
        raw: String,
        /// What is wrong with it, and the fix.
        problem: &'static str,
    },
    /// A column the reader uses, twice in the header.
    #[error("{input}: line {line}: column {column} appears twice in the header (columns {first} and {second}); which one holds the counter is ambiguous. Delete one of them, or export the capture again (`ncu --import REPORT --csv --page raw --print-units base`)")]
    DuplicateColumn {
        /// The file as the user named it.
        input: String,
        /// The header's line.
        line: u64,
        /// The column's name.
        column: String,
        /// Its first position, from 1.
        first: usize,
        /// Its second position.
        second: usize,
    },
    /// Nothing that looks like a launch row.
    #[error("{input}: no kernel launches in it{detail}; expected the output of `ncu --csv --page raw` (a header row starting with \"ID\", one row per launch). {hint}")]
    NoLaunches {
        /// The file as the user named it.
        input: String,
        /// What was found instead (", only ncu's own lines"), or empty.
        detail: String,
        /// The likely fix for what was found.
        hint: String,
    },
}

/// What a unit measures, as far as the reader cares: the columns it scales
/// must be of the right kind, or the numbers are off by a factor nobody sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    /// `ns`, `usecond`, `second`, ...
    Time,
    /// `hz`, `Ghz`, `cycle/nsecond`.
    Frequency,
    /// Something per unit of time other than cycles: `byte/second`.
    Rate,
    /// Counts, bytes, cycles, percentages, ratios, per-cycle figures.
    Plain,
}

impl Dimension {
    fn expected(self) -> &'static str {
        match self {
            Dimension::Time => "a time unit (ns, nsecond, usecond, msecond, second)",
            Dimension::Frequency => "a frequency (hz, Khz, Mhz, Ghz, or cycle/second)",
            Dimension::Rate => "a rate per unit of time (byte/second, Gbyte/second, hz)",
            Dimension::Plain => {
                "a count, bytes, cycles, a ratio or a percentage (inst, Kinst, byte, Mbyte, cycle, inst/cycle, %)"
            }
        }
    }
}

/// A unit as ncu prints it, read: its scale to base SI units (bytes,
/// seconds, Hz, counts) and what it measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NcuUnit {
    /// The factor to base SI units (bytes, seconds, Hz, counts).
    pub scale: f64,
    /// What the unit measures.
    pub dimension: Dimension,
}

#[derive(Clone, Copy, PartialEq)]
enum Word {
    Time,
    Hz,
    Cycle,
    Count,
    Percent,
}

fn time_word(w: &str) -> Option<f64> {
    Some(match w {
        "s" | "sec" | "second" | "seconds" => 1.0,
        "ms" | "msec" | "msecond" => 1e-3,
        "us" | "usec" | "usecond" | "\u{b5}s" => 1e-6,
        "ns" | "nsec" | "nsecond" => 1e-9,
        "ps" | "psec" | "psecond" => 1e-12,
        _ => return None,
    })
}

/// The base words ncu prints after an optional K/M/G/T/P prefix.
const COUNT_WORDS: [&str; 30] = [
    "byte",
    "bytes",
    "inst",
    "cycle",
    "cycles",
    "sector",
    "sectors",
    "request",
    "requests",
    "warp",
    "warps",
    "thread",
    "threads",
    "block",
    "blocks",
    "op",
    "ops",
    "flop",
    "register",
    "registers",
    "SM",
    "pass",
    "passes",
    "cluster",
    "clusters",
    "branch",
    "branches",
    "sample",
    "samples",
    "wavefront",
];

fn word(w: &str) -> Option<(f64, Word)> {
    let w = w.trim();
    if w.is_empty() {
        return Some((1.0, Word::Count));
    }
    if w == "%" {
        return Some((1.0, Word::Percent));
    }
    if let Some(s) = time_word(w) {
        return Some((s, Word::Time));
    }
    let lower = w.to_ascii_lowercase();
    if let Some(prefix) = lower.strip_suffix("hz") {
        let s = match prefix {
            "" => 1.0,
            "k" => 1e3,
            "m" => 1e6,
            "g" => 1e9,
            "t" => 1e12,
            _ => return None,
        };
        return Some((s, Word::Hz));
    }
    let (scale, base) = match w.chars().next() {
        Some('K' | 'k') => (1e3, &w[1..]),
        Some('M') => (1e6, &w[1..]),
        Some('G') => (1e9, &w[1..]),
        Some('T') => (1e12, &w[1..]),
        Some('P') => (1e15, &w[1..]),
        _ => (1.0, w),
    };
    for (s, b) in [(scale, base), (1.0, w)] {
        if COUNT_WORDS.contains(&b) {
            let kind = if b.starts_with("cycle") { Word::Cycle } else { Word::Count };
            return Some((s, kind));
        }
    }
    None
}

/// Reads a unit as ncu prints it: `byte`, `Kbyte`, `ns`, `usecond`,
/// `Ghz`, `cycle/nsecond`, `inst/cycle`, `%`, or nothing. `None` for a unit
/// this reader does not know: the caller names it, never guesses.
pub fn ncu_unit(unit: &str) -> Option<NcuUnit> {
    let unit = unit.trim();
    let mut parts = unit.splitn(2, '/');
    let (n, num) = word(parts.next().unwrap_or(""))?;
    let Some(den) = parts.next() else {
        let dimension = match num {
            Word::Time => Dimension::Time,
            Word::Hz => Dimension::Frequency,
            _ => Dimension::Plain,
        };
        return Some(NcuUnit { scale: n, dimension });
    };
    if den.trim().is_empty() || den.contains('/') || unit.starts_with('/') {
        return None;
    }
    let (d, den_kind) = word(den)?;
    // Exact inverses: 1 / 1e-9 is not 1e9 in floating point.
    let scale = match (den_kind, den.trim()) {
        (Word::Time, "ms" | "msec" | "msecond") => n * 1e3,
        (Word::Time, "us" | "usec" | "usecond") => n * 1e6,
        (Word::Time, "ns" | "nsec" | "nsecond") => n * 1e9,
        (Word::Time, "ps" | "psec" | "psecond") => n * 1e12,
        _ => n / d,
    };
    let dimension = match (num, den_kind) {
        (Word::Cycle, Word::Time) => Dimension::Frequency,
        (Word::Count | Word::Percent, Word::Time) => Dimension::Rate,
        (_, Word::Time | Word::Hz) | (Word::Time | Word::Hz, _) => return None,
        _ => Dimension::Plain,
    };
    Some(NcuUnit { scale, dimension })
}

/// Scale from a unit as ncu prints it to base SI (bytes, seconds, Hz,
/// counts); 1 for a unit [`ncu_unit`] does not know.
#[cfg(test)]
fn unit_scale(unit: &str) -> f64 {
    ncu_unit(unit).map_or(1.0, |u| u.scale)
}

/// A value as ncu prints it: `"3,209,127,424"`, `"945408"`, `"70.54"`,
/// `n/a`, empty. `None` for anything that is not a finite number (see
/// [`read_number`], the grammar itself).
pub fn parse_value(raw: &[u8]) -> Option<f64> {
    read_number(raw).ok().flatten()
}

/// Reads a field with the one grammar of numbers the reader accepts, as
/// `ncu --csv` writes them (in the C locale):
///
/// ```text
/// field    = ws* ( absent | number ) ws*
/// absent   = anything with no digit ("", "n/a", "NaN", "inf") or with a
///            character no number has ("PolicySpread", "100 (100)", "12#4")
/// number   = sign? ( int | int? "." digits ) exponent?
/// int      = digits | d{1,3} ( "," d{3} )+          (thousands separators)
/// exponent = ("e" | "E") sign? digits
/// ```
///
/// `Ok(None)`: absent. A field of number characters that does not fit is an error
/// (never silently something else: `58784,5` is not 587,845); so is one
/// too large for a double (`1e400` is out of range, as `1e31` is).
// Inlined, the grammar's whole reading apart: the reader of a capture reads
// every value with it, and nearly all are plain numbers.
#[inline]
pub fn read_number(raw: &[u8]) -> Result<Option<f64>, NumberProblem> {
    match plain_number(raw) {
        Some(v) => Ok(Some(v)),
        None => read_other_number(raw),
    }
}

/// [`read_number`] of a field that is not a plain number.
#[inline(never)]
fn read_other_number(raw: &[u8]) -> Result<Option<f64>, NumberProblem> {
    let trimmed = raw.trim_ascii();
    let field = trimmed.strip_prefix(b"\"").and_then(|f| f.strip_suffix(b"\"")).unwrap_or(trimmed).trim_ascii();
    // Words and ncu's other notations (`n/a`, `PolicySpread`, `100 (100)`,
    // lists in parentheses) hold no number: absent (the reader warns).
    let numeric = |b: &u8| b.is_ascii_digit() || matches!(b, b',' | b'.' | b'e' | b'E' | b'+' | b'-' | b' ');
    if !field.iter().any(u8::is_ascii_digit) || !field.iter().all(numeric) {
        return Ok(None);
    }
    roofline_model::parse_number(field).map(Some)
}

/// The bulk of a capture's fields, read without the grammar's checks:
/// digits, with or without thousands separators, and an optional point and
/// digits (`945408`, `3,209,127,424`, `70.54`, `3,942,250.67`): the value
/// the grammar gives them. Anything else: `None`, for [`read_number`]'s
/// whole reading.
#[inline]
fn plain_number(raw: &[u8]) -> Option<f64> {
    // The integer part: digits, or 1 to 3 digits and groups of ",ddd". The
    // mantissa wraps past 19 digits (2^64), where it is not used.
    let digit = |i: usize| raw.get(i).map(|b| u64::from(b.wrapping_sub(b'0'))).filter(|d| *d < 10);
    let (mut mantissa, mut i) = (0u64, 0usize);
    while let Some(d) = digit(i) {
        mantissa = mantissa.wrapping_mul(10).wrapping_add(d);
        i += 1;
    }
    let mut digits = i;
    if digits == 0 {
        return None;
    }
    if raw.get(i) == Some(&b',') {
        if digits > 3 {
            return None;
        }
        while raw.get(i) == Some(&b',') {
            let (Some(a), Some(b), Some(c)) = (digit(i + 1), digit(i + 2), digit(i + 3)) else { return None };
            mantissa = mantissa.wrapping_mul(1000).wrapping_add(a * 100 + b * 10 + c);
            digits += 3;
            i += 4;
        }
        if digit(i).is_some() {
            // A group of more than three digits.
            return None;
        }
    }
    let Some(&point) = raw.get(i) else {
        // Up to 15 digits an integer is below 2^53: exactly the double
        // the decimal reading gives.
        return (i <= 20 && digits <= 15).then_some(mantissa as f64);
    };
    let f = &raw[i + 1..];
    if point != b'.' || f.is_empty() || raw.len() > 64 {
        return None;
    }
    // The fraction's digits, read into the mantissa as they are checked.
    let mut m = mantissa;
    for &b in f {
        let d = b.wrapping_sub(b'0');
        if d >= 10 {
            return None;
        }
        m = m.wrapping_mul(10).wrapping_add(u64::from(d));
    }
    // Clinger's fast path: a mantissa of at most 2^53 and a power of ten
    // of at most 1e22 are both exact doubles, so their quotient, rounded
    // once by the division, is the correctly rounded value that the
    // decimal reading gives.
    if digits + f.len() <= 19 && f.len() < POW10.len() && m <= 1 << 53 {
        return Some(m as f64 / POW10[f.len()]);
    }
    // The number without its separators, as the grammar reads it.
    let mut buf = [0u8; 64];
    let mut n = 0;
    for &b in raw[..i].iter().filter(|&&b| b != b',').chain(b".").chain(f) {
        buf[n] = b;
        n += 1;
    }
    std::str::from_utf8(&buf[..n]).ok()?.parse().ok().filter(|v: &f64| v.is_finite())
}

/// The powers of ten a double holds exactly: 1e0 to 1e22.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// The tensor kind of `sm__ops_path_tensor_src_<suffix>.sum`, if it is one
/// we count (sparsity breakdowns repeat the same total and are skipped).
pub fn tensor_kind(suffix: &str) -> Option<FlopKind> {
    if suffix.contains("sparsity") {
        return None;
    }
    let src = suffix.split("_dst_").next().unwrap_or(suffix);
    match src {
        "fp64" => Some(FlopKind::TensorFp64),
        "tf32" => Some(FlopKind::TensorTf32),
        "bf16" => Some(FlopKind::TensorBf16),
        "fp16" => Some(FlopKind::TensorFp16),
        "fp8" => Some(FlopKind::TensorFp8),
        "int8" => Some(FlopKind::TensorInt8),
        _ => None,
    }
}

/// One column that fills a slot: where, how, its unit's scale.
#[derive(Debug, Clone, Copy)]
struct SlotColumn {
    col: usize,
    via: Via,
    scale: f64,
}

/// Which figure of a pipe a column holds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum PipeColumn {
    Pct,
    Count,
    Cycles,
}

/// Where each needed value sits in a row.
struct Plan {
    names: Vec<String>,
    process_id: Option<usize>,
    process_name: Option<usize>,
    host: Option<usize>,
    kernel: Option<usize>,
    context: Option<usize>,
    stream: Option<usize>,
    device: Option<usize>,
    cc: Option<usize>,
    device_name: Option<usize>,
    block: Option<usize>,
    grid: Option<usize>,
    slots: Vec<Option<SlotColumn>>,
    /// Tensor kinds: (kind, ops column, peak column, unit scale); where a
    /// kind has a total column (`src_fp16`) its per-destination ones are
    /// left out.
    tensor: Vec<(FlopKind, usize, Option<usize>, f64)>,
    /// Stall columns: (reason, column, the reason's place among `stall_names`).
    stalls: Vec<(String, usize, usize)>,
    /// The stall reasons, sorted, each once.
    stall_names: Vec<Arc<str>>,
    /// Pipe columns: (pipe, column, which figure, the pipe's place among `pipe_names`).
    pipes: Vec<(String, usize, PipeColumn, usize)>,
    /// The pipes, sorted, each once.
    pipe_names: Vec<Arc<str>>,
    width: usize,
}

/// Names sorted, each once.
fn sorted_names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<Arc<str>> {
    let mut v: Vec<&str> = names.collect();
    v.sort_unstable();
    v.dedup();
    v.into_iter().map(Arc::from).collect()
}

/// What a slot's column must measure for its unit to make sense.
fn expected_dimension(slot: Slot, via: Via) -> Dimension {
    match (slot, via) {
        (_, Via::PerSecond(_)) => Dimension::Rate,
        (Slot::Duration, _) => Dimension::Time,
        (Slot::SmClock | Slot::DramClock | Slot::LtsClock | Slot::L1Clock, _) => Dimension::Frequency,
        _ => Dimension::Plain,
    }
}

/// Whether a column counts bytes: a `.sum` of a metric named `..bytes..`
/// (`dram__bytes.sum`, `lts__t_bytes.sum`), read as it is. Its unit must be
/// a byte unit: the reader's count dimension also takes sectors,
/// instructions and cycles, which would pass silently.
fn holds_bytes(column: &str, via: Via) -> bool {
    matches!(via, Via::Direct(_))
        && column.strip_suffix(".sum").is_some_and(|metric| metric.contains("bytes") && !metric.contains('.'))
}

/// What a counter column counts, from its metric's name: instructions,
/// cycles, sectors or a percentage. Its unit must count the same thing
/// (with an SI prefix, or none): `Kbyte` on an instruction counter would
/// multiply its FLOPs by 1,000.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CountKind {
    Percent,
    Instructions,
    Cycles,
    Sectors,
}

fn count_kind(column: &str) -> Option<CountKind> {
    let metric = column.split('.').next().unwrap_or(column);
    let tail = &column[metric.len()..];
    if tail.contains("pct") || metric.ends_with("_pct") {
        Some(CountKind::Percent)
    } else if metric.contains("_per_") || tail.contains("ratio") {
        // A ratio of two counts (`warps_active_per_inst_executed`): in the unit of neither.
        None
    } else if metric.contains("inst_executed") || metric.ends_with("_inst") {
        Some(CountKind::Instructions)
    } else if metric.ends_with("cycles_elapsed") || metric.ends_with("cycles_active") {
        Some(CountKind::Cycles)
    } else if metric.ends_with("sectors") || metric.contains("_sectors_") {
        Some(CountKind::Sectors)
    } else {
        None
    }
}

impl CountKind {
    fn words(self) -> &'static [&'static str] {
        match self {
            CountKind::Percent => &["%"],
            CountKind::Instructions => &["inst", "warp", "thread"],
            CountKind::Cycles => &["cycle", "cycles"],
            CountKind::Sectors => &["sector", "sectors"],
        }
    }

    fn what(self) -> &'static str {
        match self {
            CountKind::Percent => "a percentage",
            CountKind::Instructions => "instructions",
            CountKind::Cycles => "cycles",
            CountKind::Sectors => "sectors",
        }
    }

    fn expected(self) -> &'static str {
        match self {
            CountKind::Percent => "% (or no unit)",
            CountKind::Instructions => "inst, Kinst, Minst, ... or inst/cycle (or no unit)",
            CountKind::Cycles => "cycle, Kcycle, Mcycle, ... (or no unit)",
            CountKind::Sectors => "sector, Ksector, Msector, ... (or no unit)",
        }
    }

    /// Whether `unit` counts this (its numerator, for a per-cycle rate).
    fn takes(self, unit: &str) -> bool {
        let num = unit.split('/').next().unwrap_or("").trim();
        if num.is_empty() {
            return true;
        }
        let words = self.words();
        let base = num.strip_prefix(['K', 'k', 'M', 'G', 'T', 'P']).filter(|b| !b.is_empty()).unwrap_or(num);
        words.contains(&num) || (self != CountKind::Percent && words.contains(&base))
    }
}

/// `byte`, `bytes` with an SI prefix (`Kbyte`, `Mbyte`, ...), or no unit
/// (ncu's base unit, bytes).
fn is_byte_unit(unit: &str) -> bool {
    let u = unit.trim();
    let base = u.strip_prefix(['K', 'k', 'M', 'G', 'T', 'P']).unwrap_or(u);
    u.is_empty() || matches!(base, "byte" | "bytes") || matches!(u, "byte" | "bytes")
}

/// ncu's base units (`--print-units base`), for a capture without a
/// units row: nanoseconds for durations, everything else in base SI.
fn base_scale(slot: Slot, via: Via) -> f64 {
    if expected_dimension(slot, via) == Dimension::Time {
        1e-9
    } else {
        1.0
    }
}

impl Plan {
    fn new(header: &Row) -> Plan {
        let names: Vec<String> = header
            .iter()
            .map(|f| String::from_utf8_lossy(f).trim().trim_start_matches('\u{feff}').to_string())
            .collect();
        // Each name's first column, found once: a `--set full` header has
        // ~2,200 columns and the reader looks ~170 names up in it (and
        // again at every header of a joined capture).
        let mut first_column: HashMap<&str, usize> = HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            first_column.entry(n.as_str()).or_insert(i);
        }
        let find = |n: &str| first_column.get(n).copied();
        let mut slots: Vec<Option<SlotColumn>> = vec![None; SLOT_COUNT];
        for &(slot, col, via) in COLUMNS {
            if slots[slot as usize].is_none() {
                if let Some(i) = find(col) {
                    slots[slot as usize] = Some(SlotColumn { col: i, via, scale: base_scale(slot, via) });
                }
            }
        }
        // Some ncu versions list the NVLink counters under a prefix
        // ("NVLTX.TriageCompute.nvltx__bytes"): the same counter by its tail.
        for (slot, tail) in crate::metrics::NVLINK_TAILS {
            if slots[slot as usize].is_none() {
                let dotted = format!(".{tail}");
                if let Some(i) = names.iter().position(|c| c.ends_with(&dotted)) {
                    slots[slot as usize] =
                        Some(SlotColumn { col: i, via: Via::Direct(1.0), scale: base_scale(slot, Via::Direct(1.0)) });
                }
            }
        }
        let mut by_kind: BTreeMap<FlopKind, Vec<(String, usize)>> = BTreeMap::new();
        let mut stalls = Vec::new();
        let mut pipes = Vec::new();
        for (i, n) in names.iter().enumerate() {
            if let Some(rest) = n.strip_prefix(PIPE_PREFIX) {
                if let Some(pipe) = rest.strip_suffix(PIPE_PCT_SUFFIX) {
                    pipes.push((pipe.to_string(), i, PipeColumn::Pct, 0));
                } else if let Some(pipe) = rest.strip_suffix(PIPE_COUNT_SUFFIX).filter(|p| !p.contains('.')) {
                    pipes.push((pipe.to_string(), i, PipeColumn::Count, 0));
                }
                continue;
            }
            if let Some(pipe) = n.strip_prefix(PIPE_CYCLES_PREFIX).and_then(|r| r.strip_suffix(PIPE_CYCLES_SUFFIX)) {
                pipes.push((pipe.to_string(), i, PipeColumn::Cycles, 0));
                continue;
            }
            if let Some(rest) = n.strip_prefix(TENSOR_PREFIX) {
                if let Some(suffix) = rest.strip_suffix(".sum") {
                    if let Some(kind) = tensor_kind(suffix) {
                        by_kind.entry(kind).or_default().push((suffix.to_string(), i));
                    }
                }
            } else if let Some(rest) = n.strip_prefix(STALL_PREFIX) {
                if let Some(reason) = rest.strip_suffix(STALL_SUFFIX) {
                    stalls.push((reason.to_string(), i, 0));
                }
            }
        }
        let mut tensor = Vec::new();
        for (kind, cols) in by_kind {
            // `src_fp16` is the total of `src_fp16_dst_fp16` and `_dst_fp32`.
            let total: Vec<&(String, usize)> = cols.iter().filter(|(s, _)| !s.contains("_dst_")).collect();
            let chosen: Vec<&(String, usize)> =
                if !total.is_empty() && kind == FlopKind::TensorFp16 { total } else { cols.iter().collect() };
            for (suffix, i) in chosen {
                let peak = find(&format!("{TENSOR_PREFIX}{suffix}.sum.peak_sustained"));
                tensor.push((kind, *i, peak, 1.0));
            }
        }
        let stall_names = sorted_names(stalls.iter().map(|s| s.0.as_str()));
        for s in &mut stalls {
            s.2 = stall_names.binary_search_by(|n| (**n).cmp(s.0.as_str())).expect("listed");
        }
        // Only the pipes the roofline reads are converted (a `--set full`
        // row has ~240 pipe columns and the instruction roofline uses ten).
        pipes.retain(|p| crate::metrics::PIPES.iter().any(|(name, _)| *name == p.0));
        let pipe_names = sorted_names(pipes.iter().map(|p| p.0.as_str()));
        for p in &mut pipes {
            p.3 = pipe_names.binary_search_by(|n| (**n).cmp(p.0.as_str())).expect("listed");
        }
        Plan {
            process_id: find("Process ID"),
            process_name: find("Process Name"),
            host: find("Host Name"),
            kernel: find("Kernel Name"),
            context: find("Context"),
            stream: find("Stream"),
            device: find("Device"),
            cc: find("CC"),
            device_name: find("device__attribute_display_name"),
            block: find("Block Size"),
            grid: find("Grid Size"),
            slots,
            tensor,
            stalls,
            stall_names,
            pipes,
            pipe_names,
            width: names.len(),
            names,
        }
    }

    /// Reads the units row: each column the reader scales gets its unit's
    /// scale; a unit it does not know, or of the wrong kind (`MB` on a
    /// duration), is an error naming the unit and the column.
    fn apply_units(&mut self, units: &Row, input: &str, warnings: &mut Vec<String>) -> Result<(), CsvError> {
        let unit_of =
            |c: usize| units.get(c).map(|u| String::from_utf8_lossy(u).trim().to_string()).unwrap_or_default();
        let mut defaulted = Vec::new();
        for (slot_index, s) in self.slots.iter_mut().enumerate() {
            let Some(s) = s else { continue };
            let slot = COLUMNS.iter().find(|c| c.0 as usize == slot_index).map(|c| c.0).unwrap_or(Slot::Duration);
            let expected = expected_dimension(slot, s.via);
            let unit = unit_of(s.col);
            if unit.is_empty() && matches!(expected, Dimension::Time | Dimension::Frequency) {
                s.scale = base_scale(slot, s.via);
                defaulted.push(self.names[s.col].clone());
                continue;
            }
            let column = self.names[s.col].clone();
            let parsed = ncu_unit(&unit).ok_or_else(|| CsvError::Unit {
                input: input.into(),
                column: column.clone(),
                unit: unit.clone(),
                problem: "which this reader does not know".into(),
                expected: expected.expected(),
            })?;
            // ncu labels some derived rates with the unit of their numerator
            // (`derived__lts__lts2xbar_bytes.sum.per_second` in "byte").
            let fits =
                parsed.dimension == expected || (expected == Dimension::Rate && parsed.dimension != Dimension::Time);
            if !fits {
                return Err(CsvError::Unit {
                    input: input.into(),
                    column,
                    unit,
                    problem: "which does not measure what this column holds".into(),
                    expected: expected.expected(),
                });
            }
            if let Some(kind) = count_kind(&column).filter(|_| expected == Dimension::Plain) {
                if !kind.takes(&unit) {
                    return Err(CsvError::Unit {
                        input: input.into(),
                        column,
                        unit,
                        problem: format!(
                            "which does not count {} (a counter read in another unit would be scaled by it)",
                            kind.what()
                        ),
                        expected: kind.expected(),
                    });
                }
            }
            if holds_bytes(&column, s.via) && !is_byte_unit(&unit) {
                return Err(CsvError::Unit {
                    input: input.into(),
                    column,
                    unit,
                    problem: "which is not a byte unit (a byte column read in sectors or another count would be off by that unit's size)".into(),
                    expected: "a byte unit (byte, Kbyte, Mbyte, Gbyte, Tbyte)",
                });
            }
            s.scale = parsed.scale;
        }
        for t in &mut self.tensor {
            let unit = unit_of(t.1);
            match ncu_unit(&unit) {
                Some(u) if u.dimension == Dimension::Plain => t.3 = u.scale,
                _ => {
                    return Err(CsvError::Unit {
                        input: input.into(),
                        column: self.names[t.1].clone(),
                        unit,
                        problem: "which is not a count".into(),
                        expected: Dimension::Plain.expected(),
                    })
                }
            }
        }
        if !defaulted.is_empty() {
            warnings.push(format!(
                "{input}: no unit for {} in the units row: read in ncu's base units (nanoseconds, Hz)",
                defaulted.join(", ")
            ));
        }
        Ok(())
    }

    /// A column the reader uses that the header holds twice: which one
    /// holds the counter is ambiguous, and taking either silently could
    /// take the wrong one. (name, first column, second column, from 1.)
    fn duplicate(&self) -> Option<(String, usize, usize)> {
        let mut used: Vec<usize> = self.slots.iter().flatten().map(|s| s.col).collect();
        used.extend(self.tensor.iter().map(|t| t.1));
        used.extend(self.stalls.iter().map(|s| s.1));
        used.extend(self.pipes.iter().map(|p| p.1));
        used.extend([self.kernel, self.process_id, self.device, self.cc].into_iter().flatten());
        used.sort_unstable();
        used.dedup();
        let mut at: HashMap<&str, usize> = HashMap::with_capacity(self.names.len());
        let mut found: Option<(String, usize, usize)> = None;
        for (i, n) in self.names.iter().enumerate() {
            if n.is_empty() {
                continue;
            }
            match at.get(n.as_str()) {
                Some(&first) if used.binary_search(&first).is_ok() => {
                    if found.as_ref().is_none_or(|f| first + 1 < f.1) {
                        found = Some((n.clone(), first + 1, i + 1));
                    }
                }
                Some(_) => {}
                None => {
                    at.insert(n, i);
                }
            }
        }
        found
    }

    /// Every column a launch row is read for.
    fn columns(&self) -> Columns {
        let text = [
            self.process_id,
            self.process_name,
            self.host,
            self.kernel,
            self.context,
            self.stream,
            self.device,
            self.cc,
            self.device_name,
            self.block,
            self.grid,
        ];
        let slots = self.slots.iter().flatten().map(|s| s.col);
        let tensor = self.tensor.iter().flat_map(|t| [Some(t.1), t.2]).flatten();
        let stalls = self.stalls.iter().map(|s| s.1);
        let pipes = self.pipes.iter().map(|p| p.1);
        Columns::of(text.into_iter().flatten().chain([0]).chain(slots).chain(tensor).chain(stalls).chain(pipes))
    }

    fn missing(&self) -> Vec<MissingMetric> {
        // The columns of each slot, in one pass over COLUMNS (this runs at
        // every header of a capture).
        let mut columns: Vec<Vec<&'static str>> = vec![Vec::new(); SLOT_COUNT];
        for &(slot, col, _) in COLUMNS {
            columns[slot as usize].push(col);
        }
        let mut out = Vec::new();
        for &(slot, _, _) in COLUMNS {
            let metrics = &mut columns[slot as usize];
            if self.slots[slot as usize].is_none() && !metrics.is_empty() {
                out.push(MissingMetric {
                    slot,
                    metrics: std::mem::take(metrics),
                    blocks: crate::metrics::blocks(slot),
                });
            }
        }
        out
    }
}

fn intern(interner: &mut Interner, rec: &Row, i: Option<usize>, column: usize) -> Arc<str> {
    interner.get_column(column, i.and_then(|i| rec.get(i)).unwrap_or(b""))
}

fn strip_bom(line: &[u8]) -> &[u8] {
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

fn is_header(line: &[u8]) -> bool {
    let l = strip_bom(line);
    l.starts_with(b"\"ID\"") || l.starts_with(b"ID,") || l.starts_with(b"ID;") || l.starts_with(b"ID\t")
}

/// Nsight Compute's `--print-summary` CSV: one row per kernel and metric,
/// with minimum, maximum and average columns.
fn is_summary(fields: &[&[u8]]) -> bool {
    let has = |n: &[u8]| fields.iter().any(|f| strip_bom(f) == n);
    has(b"Metric Name") && (has(b"Invocations") || has(b"Average") || has(b"Minimum"))
}

fn csv_fields(line: &[u8]) -> Vec<Vec<u8>> {
    let mut r = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(line);
    let mut rec = csv::ByteRecord::new();
    match r.read_byte_record(&mut rec) {
        Ok(true) => rec.iter().map(|f| f.to_vec()).collect(),
        _ => Vec::new(),
    }
}

/// A read that stopped at something that is not a text capture.
#[derive(Debug, Clone, Copy, thiserror::Error)]
enum Guarded {
    #[error("binary data (NUL bytes) at line {0}")]
    Binary(u64),
    #[error("line {0}, longer than {MAX_LINE_BYTES} bytes")]
    LineTooLong(u64),
}

/// Passes a capture through, stopping at a NUL byte (a binary file,
/// `/dev/zero`) or a line longer than [`MAX_LINE_BYTES`]: memory stays
/// bounded whatever the input.
struct Guard<R> {
    inner: R,
    /// Lines completed so far.
    lines: u64,
    since_newline: usize,
    pending: Option<Guarded>,
}

impl<R: Read> Read for Guard<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(g) = self.pending.take() {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, g));
        }
        let n = self.inner.read(buf)?;
        // One pass over the bytes: NULs and newlines found together.
        let mut good = n;
        let mut bad = false;
        let mut open = self.since_newline;
        let mut last_newline: Option<usize> = None;
        for i in memchr::memchr2_iter(0, b'\n', &buf[..n]) {
            if buf[i] == 0 {
                good = i;
                bad = true;
                break;
            }
            // The line open before this newline ends here.
            let len = open + (i - last_newline.map_or(0, |l| l + 1));
            if len > MAX_LINE_BYTES {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, Guarded::LineTooLong(self.lines + 1)));
            }
            open = 0;
            last_newline = Some(i);
            self.lines += 1;
        }
        self.since_newline = open + (good - last_newline.map_or(0, |l| l + 1));
        if self.since_newline > MAX_LINE_BYTES {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, Guarded::LineTooLong(self.lines + 1)));
        }
        if bad {
            let g = Guarded::Binary(self.lines + 1);
            if good == 0 {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, g));
            }
            self.pending = Some(g);
        }
        Ok(good)
    }
}

fn guarded(e: &std::io::Error) -> Option<Guarded> {
    e.get_ref().and_then(|inner| inner.downcast_ref::<Guarded>()).copied()
}

fn guard_error(g: Guarded, input: &str) -> CsvError {
    match g {
        Guarded::Binary(line) => CsvError::Binary { input: input.into(), line },
        Guarded::LineTooLong(line) => CsvError::LineTooLong { input: input.into(), line },
    }
}

/// Why a value of a launch row is refused, before the error that names
/// its line and column is made (out of line: [`Refused::error`]).
#[derive(Debug, Clone)]
enum Refused {
    /// Not a number in the grammar ([`read_number`]).
    Number(NumberProblem),
    /// Negative or out of range ([`in_range`]).
    Range(f64),
    /// A clock outside its range ([`physical`]).
    Clock(Slot, f64),
}

impl Refused {
    /// The error for the value `raw` of column `col` (named `column`).
    #[cold]
    fn error(self, raw: &[u8], line: u64, col: usize, column: &str, input: &str) -> CsvError {
        match self {
            Refused::Number(p) => number_error(p, raw, line, col, column, input),
            Refused::Range(v) => match out_of_range(v, raw, line, column, input) {
                Err(e) => e,
                Ok(_) => unreachable!("a value refused as out of range has a problem"),
            },
            Refused::Clock(slot, hz) => match physical(slot, hz, raw, line, column, input) {
                Err(e) => e,
                Ok(()) => unreachable!("a clock refused is outside its range"),
            },
        }
    }
}

/// A field read with [`read_number`].
#[inline]
fn number_value(raw: &[u8]) -> Result<Option<f64>, Refused> {
    read_number(raw).map_err(Refused::Number)
}

/// A value read from a column, checked: negative or out of range is bad input.
#[inline]
fn in_range(v: f64) -> Result<f64, Refused> {
    if v >= 0.0 && roofline_model::input_in_range(v) {
        Ok(v)
    } else {
        Err(Refused::Range(v))
    }
}

/// A field read as a number and checked, as it is.
#[inline]
fn value(raw: &[u8]) -> Result<Option<f64>, Refused> {
    number_value(raw)?.map(in_range).transpose()
}

/// A slot's field: read, checked, times the column's factor `f` and its
/// unit's `scale` and checked again, and, for a clock, checked against
/// its range.
#[inline]
fn slot_value(raw: &[u8], f: f64, scale: f64, slot: Option<Slot>) -> Result<Option<f64>, Refused> {
    let Some(v) = value(raw)? else { return Ok(None) };
    let v = in_range(v * f * scale)?;
    if let Some((lo, hi, _)) = slot.and_then(clock_range) {
        if !(v == 0.0 || (lo..=hi).contains(&v)) {
            return Err(Refused::Clock(slot.expect("a clock's slot"), v));
        }
    }
    Ok(Some(v))
}

/// The error for a field of a launch row that is not a number in
/// [`read_number`]'s grammar, naming line, column and value.
#[cold]
fn number_error(p: NumberProblem, raw: &[u8], line: u64, col: usize, column: &str, input: &str) -> CsvError {
    CsvError::Number {
        input: input.into(),
        line,
        column_number: col + 1,
        column: column.into(),
        raw: String::from_utf8_lossy(raw).chars().take(40).collect(),
        problem: p.explain(),
    }
}

/// The range a clock can physically be in, Hz, and its name: a value
/// outside it is a unit that does not match the numbers (a `khz` column
/// holding Hz made a 1,977 GHz SM clock, and roofs 1,000 times too high).
pub fn clock_range(slot: Slot) -> Option<(f64, f64, &'static str)> {
    match slot {
        Slot::SmClock | Slot::MaxSmClock | Slot::L1Clock => Some((100e6, 5e9, "an SM clock")),
        Slot::LtsClock => Some((100e6, 5e9, "an L2 clock")),
        // HBM and GDDR memory clocks as ncu counts their cycles.
        Slot::DramClock => Some((100e6, 30e9, "a DRAM clock")),
        _ => None,
    }
}

/// A clock for a message: `1.98 GHz`, `800 MHz`, `1.98e+03 GHz`.
fn clock(hz: f64) -> String {
    if hz >= 1e9 {
        format!("{} GHz", roofline_model::format_plain(hz / 1e9))
    } else {
        format!("{} MHz", roofline_model::format_plain(hz / 1e6))
    }
}

/// Refuses a clock outside [`clock_range`] (zero is left to the checks
/// of the points: no reading).
#[inline]
fn physical(slot: Slot, hz: f64, raw: &[u8], line: u64, column: &str, input: &str) -> Result<(), CsvError> {
    let Some((lo, hi, what)) = clock_range(slot) else { return Ok(()) };
    if hz == 0.0 || (lo..=hi).contains(&hz) {
        return Ok(());
    }
    Err(unphysical(hz, (lo, hi, what), raw, line, column, input))
}

#[cold]
fn unphysical(hz: f64, (lo, hi, what): (f64, f64, &str), raw: &[u8], line: u64, column: &str, input: &str) -> CsvError {
    CsvError::Value {
        input: input.into(),
        line,
        column: column.into(),
        raw: String::from_utf8_lossy(raw).chars().take(40).collect(),
        problem: format!(
            "read as {}, which cannot be {what} ({} to {}): is the unit in the units row the one the values are in (Hz values under khz?)",
            clock(hz),
            clock(lo),
            clock(hi)
        ),
    }
}

/// The error for a value read from a column that is negative or out of
/// range (bad input, named by line and column).
#[cold]
fn out_of_range(v: f64, raw: &[u8], line: u64, column: &str, input: &str) -> Result<f64, CsvError> {
    let problem =
        if v < 0.0 { Some("a counter cannot be negative".to_string()) } else { roofline_model::input_range_problem(v) };
    match problem {
        None => Ok(v),
        Some(problem) => Err(CsvError::Value {
            input: input.into(),
            line,
            column: column.into(),
            raw: String::from_utf8_lossy(raw).chars().take(40).collect(),
            problem,
        }),
    }
}

/// Lines inside a capture that are not launch rows (program output, a line
/// a script appended), reported together.
#[derive(Default)]
struct Skipped {
    count: u64,
    examples: Vec<String>,
}

impl Skipped {
    fn add(&mut self, line: u64, rec: &Row, why: &str) {
        self.count += 1;
        if self.examples.len() < 3 {
            let raw: Vec<String> = rec.iter().map(|f| String::from_utf8_lossy(f).to_string()).collect();
            let mut text: String = raw.join(",").chars().take(60).collect();
            if text.chars().count() == 60 {
                text.push('…');
            }
            self.examples.push(format!("line {line} ({text:?}: {why})"));
        }
    }
}

/// The warning for a last row of the wrong width (line, found, expected).
fn cut_short(input: &str, (line, found, expected): (u64, usize, usize)) -> String {
    let fewer = if found < expected { "fewer" } else { "more" };
    format!(
        "{input}: line {line}: the last row has {fewer} columns than the header ({found}, not {expected}): the capture was cut short; that row is dropped and the launches before it are kept"
    )
}

/// Reads a capture from any reader, streaming, and keeps its launches:
/// memory use grows with the number of launches, not the size of the file.
pub fn read_capture<R: Read>(reader: R, input: &str) -> Result<RawCapture, CsvError> {
    let mut launches = Vec::new();
    let mut cap = read_capture_with(reader, input, |l| launches.push(l))?;
    cap.launches = launches;
    Ok(cap)
}

/// Reads a capture from any reader, streaming, and hands each launch to
/// `each` as it is read, in file order; the capture returned holds
/// everything else (warnings, errors, missing metrics), no launch. A
/// launch handed over before an error is read further on is of no use: the
/// error is the answer.
pub fn read_capture_with<R: Read>(
    reader: R,
    input: &str,
    mut each: impl FnMut(Launch),
) -> Result<RawCapture, CsvError> {
    let guard = Guard { inner: reader, lines: 0, since_newline: 0, pending: None };
    let mut reader = std::io::BufReader::with_capacity(64 << 10, guard);
    let io_err = |source: std::io::Error| match guarded(&source) {
        Some(g) => guard_error(g, input),
        None => CsvError::Io { input: input.into(), source },
    };
    let mut cap = RawCapture::default();
    let mut line = Vec::new();
    let mut lines: u64 = 0;
    let mut program_output = 0usize;
    // The preamble, up to the header row.
    let header_line = loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(io_err)?;
        if n == 0 {
            break None;
        }
        cap.bytes += n as u64;
        lines += 1;
        if is_header(&line) {
            break Some(std::mem::take(&mut line));
        }
        let text = String::from_utf8_lossy(&line).trim_end().to_string();
        if text.contains("ERR_NVGPUCTRPERM") {
            return Err(CsvError::CounterPermission { input: input.into() });
        }
        if text.contains("Metric Name") {
            let fields = csv_fields(&line);
            let fields: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
            if is_summary(&fields) {
                return Err(CsvError::SummaryPage { input: input.into() });
            }
        }
        if text.starts_with("==ERROR==") {
            cap.errors.push(text);
        } else if text.starts_with("==") {
            cap.preamble.push(text);
        } else if !text.is_empty() {
            program_output += 1;
        }
    };
    let Some(header_line) = header_line else {
        let detail =
            if cap.errors.is_empty() { String::new() } else { format!(" (ncu said: {})", cap.errors.join(" | ")) };
        let hint = if cap.bytes == 0 {
            "The file is empty.".to_string()
        } else if program_output > 0 && cap.preamble.iter().any(|p| p.contains("Connected")) {
            "ncu connected to the program but profiled no kernel: check the kernel filters (-k, -c, --launch-skip, NVTX ranges) and that the program launches kernels.".to_string()
        } else {
            "Capture one with `ncu --csv --page raw --print-units base ./program > capture.csv` or `roofline profile -- ./program`.".to_string()
        };
        return Err(CsvError::NoLaunches { input: input.into(), detail, hint });
    };
    let header_lines = lines;
    let mut rdr = crate::rows::Rows::new(std::io::Cursor::new(header_line.clone()).chain(reader));
    let rec = match rdr.read() {
        Ok(Some(rec)) => rec,
        Ok(None) => unreachable!("the header line was found"),
        Err(e) => {
            if let Some(g) = guarded(&e) {
                return Err(guard_error(g, input));
            }
            return Err(CsvError::NoLaunches {
                input: input.into(),
                detail: format!(" (the header row is malformed: {e})"),
                hint: String::new(),
            });
        }
    };
    if rec.len() == 1 {
        for delimiter in [';', '\t', '|'] {
            if header_line.contains(&(delimiter as u8)) {
                return Err(CsvError::Delimiter { input: input.into(), delimiter });
            }
        }
    }
    let header_fields: Vec<&[u8]> = rec.iter().collect();
    if is_summary(&header_fields) {
        return Err(CsvError::SummaryPage { input: input.into() });
    }
    if rec.iter().any(|f| f == b"Metric Name") && rec.iter().any(|f| f == b"Metric Value") {
        return Err(CsvError::DetailsPage { input: input.into() });
    }
    let mut plan = Plan::new(&rec);
    if plan.kernel.is_none() {
        return Err(CsvError::NoKernelName { input: input.into() });
    }
    if let Some((column, first, second)) = plan.duplicate() {
        return Err(CsvError::DuplicateColumn { input: input.into(), line: header_lines, column, first, second });
    }
    cap.missing = plan.missing();
    rdr.want(Some(plan.columns()));
    if plan.slots.iter().flatten().any(|s| matches!(s.via, Via::PerCycle(_))) {
        cap.warnings.push(format!(
            "{input}: instruction counts come from per-cycle rates printed with two decimals (a --set full export): FLOPs are accurate to about 1e-5, not exact; collect the .sum counters (`roofline profile`) for exact counts"
        ));
    }
    // The units row comes right after each header.
    let mut expect_units = true;
    let mut bad_values: BTreeMap<String, (u64, String)> = BTreeMap::new();
    // A row of the wrong width, held until the next launch row: dropped
    // with a warning when it is the last (a capture cut short), refused
    // otherwise (RowWidth).
    let mut odd_row: Option<(u64, usize, usize)> = None;
    let mut skipped = Skipped::default();
    let mut stopped: Option<String> = None;
    let mut interner = Interner::default();
    let mut per_second: Vec<(usize, Option<f64>, Slot, usize)> = Vec::new();
    // Each slot index's slot, found once (not once per launch).
    let slot_of: Vec<Option<Slot>> =
        (0..SLOT_COUNT).map(|i| COLUMNS.iter().find(|c| c.0 as usize == i).map(|c| c.0)).collect();
    let mut stall_values: Vec<Option<f64>> = Vec::new();
    let mut pipe_values: Vec<Option<PipeCount>> = Vec::new();
    let mut launches: u64 = 0;
    loop {
        let rec = match rdr.read() {
            Ok(Some(rec)) => rec,
            Ok(None) => break,
            Err(e) => {
                let why = match guarded(&e) {
                    Some(g) if launches == 0 => return Err(guard_error(g, input)),
                    Some(g) => g.to_string(),
                    None => e.to_string(),
                };
                stopped = Some(why);
                break;
            }
        };
        let line_no = header_lines + rec.line().saturating_sub(1);
        let first = rec.get(0).unwrap_or(b"");
        if first.starts_with(b"==") {
            let all = rec.concat();
            let t = String::from_utf8_lossy(&all[..all.len().min(500)]).to_string();
            if t.contains("ERR_NVGPUCTRPERM") {
                return Err(CsvError::CounterPermission { input: input.into() });
            }
            if first.starts_with(b"==ERROR==") {
                cap.errors.push(t);
            }
            continue;
        }
        if rec.len() == 1 && first.is_empty() {
            continue;
        }
        if strip_bom(first) == b"ID" {
            // Another capture after this one (`cat a.csv b.csv`).
            let fields: Vec<&[u8]> = rec.iter().collect();
            if is_summary(&fields) {
                return Err(CsvError::SummaryPage { input: input.into() });
            }
            if let Some(odd) = odd_row.take() {
                // The last row of the capture before this one.
                cap.warnings.push(cut_short(input, odd));
            }
            cap.warnings.push(format!(
                "{input}: line {line_no}: a second header: the file holds several captures one after another (joined with cat?); each is read with its own header and units"
            ));
            plan = Plan::new(&rec);
            if plan.kernel.is_none() {
                return Err(CsvError::NoKernelName { input: input.into() });
            }
            if let Some((column, first, second)) = plan.duplicate() {
                return Err(CsvError::DuplicateColumn { input: input.into(), line: line_no, column, first, second });
            }
            for m in plan.missing() {
                if !cap.missing.iter().any(|x| x.slot == m.slot) {
                    cap.missing.push(m);
                }
            }
            rdr.want(Some(plan.columns()));
            expect_units = true;
            continue;
        }
        if expect_units {
            expect_units = false;
            // The units row has an empty ID.
            if first.is_empty() {
                plan.apply_units(&rec, input, &mut cap.warnings)?;
                continue;
            }
            cap.warnings.push(format!(
                "{input}: line {line_no}: no units row under the header (ncu writes one): values are read in ncu's base units (--print-units base: gpu__time_duration.sum in nanoseconds, bytes, Hz); if the capture was exported with other units, export it again with `ncu --import REPORT --csv --page raw --print-units base`"
            ));
        }
        let id = String::from_utf8_lossy(first).trim().to_string();
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            skipped.add(line_no, &rec, "not a launch row: no numeric ID");
            continue;
        }
        // A name of white space only, read as the text columns are (a
        // name that is not UTF-8 is never empty).
        let no_name = plan
            .kernel
            .and_then(|i| rec.get(i))
            .is_none_or(|f| std::str::from_utf8(f).is_ok_and(|t| t.trim().is_empty()));
        if plan.kernel.is_some() && no_name {
            skipped.add(line_no, &rec, "no kernel name: cut short?");
            continue;
        }
        if let Some((line, found, expected)) = odd_row {
            return Err(CsvError::RowWidth { input: input.into(), line, found, expected });
        }
        if rec.len() != plan.width {
            odd_row = Some((line_no, rec.len(), plan.width));
            continue;
        }
        let mut values = [None; SLOT_COUNT];
        per_second.clear();
        // Each value is read and checked by the inlined `value` and
        // `in_range`; the error that names it is made out of line.
        let refused =
            |r: Refused, col: usize| r.error(rec.get(col).unwrap_or(b""), line_no, col, &plan.names[col], input);
        for (slot_index, s) in plan.slots.iter().enumerate() {
            let Some(SlotColumn { col, via, scale }) = *s else { continue };
            let Some(raw) = rec.get(col) else { continue };
            let f = match via {
                Via::Direct(f) | Via::PerSecond(f) | Via::PerCycle(f) => f,
            };
            let v = slot_value(raw, f, scale, slot_of[slot_index]).map_err(|r| refused(r, col))?;
            if v.is_none() && !raw.trim_ascii().is_empty() && raw.trim_ascii() != b"n/a" {
                bad_values
                    .entry(plan.names[col].clone())
                    .or_insert((line_no, String::from_utf8_lossy(raw).chars().take(40).collect()));
            }
            match via {
                Via::Direct(_) => values[slot_index] = v,
                Via::PerSecond(_) => per_second.push((slot_index, v, Slot::Duration, col)),
                Via::PerCycle(_) => per_second.push((slot_index, v, Slot::Cycles, col)),
            }
        }
        for &(slot_index, v, base, col) in &per_second {
            values[slot_index] = match (v, values[base as usize]) {
                (Some(v), Some(d)) => Some(in_range(v * d).map_err(|r| refused(r, col))?),
                _ => None,
            };
        }
        let mut tensor: BTreeMap<FlopKind, TensorCount> = BTreeMap::new();
        for &(kind, col, peak, scale) in &plan.tensor {
            let raw = rec.get(col).unwrap_or(b"");
            let Some(ops) = number_value(raw).map_err(|r| refused(r, col))? else { continue };
            let ops = in_range(ops * scale).map_err(|r| refused(r, col))?;
            let e = tensor.entry(kind).or_default();
            e.ops += ops;
            if let Some((p, raw)) = peak.and_then(|p| rec.get(p).map(|raw| (p, raw))) {
                if let Some(v) = value(raw).map_err(|r| refused(r, p))? {
                    e.peak_per_cycle = Some(e.peak_per_cycle.map_or(v, |q: f64| q.max(v)));
                }
            }
        }
        // Read in column order (the first bad value is the one named), kept
        // by name; a later column of the same name replaces an earlier one.
        stall_values.clear();
        stall_values.resize(plan.stall_names.len(), None);
        for &(_, col, at) in &plan.stalls {
            let raw = rec.get(col).unwrap_or(b"");
            if let Some(v) = value(raw).map_err(|r| refused(r, col))? {
                stall_values[at] = Some(v);
            }
        }
        let stalls = NameMap(
            plan.stall_names.iter().zip(&stall_values).filter_map(|(n, v)| v.map(|v| (n.clone(), v))).collect(),
        );
        pipe_values.clear();
        pipe_values.resize(plan.pipe_names.len(), None);
        for &(_, col, which, at) in &plan.pipes {
            let raw = rec.get(col).unwrap_or(b"");
            if let Some(v) = value(raw).map_err(|r| refused(r, col))? {
                let e = pipe_values[at].get_or_insert_with(PipeCount::default);
                match which {
                    PipeColumn::Pct => e.pct_of_peak = Some(v),
                    PipeColumn::Count => e.warp_instructions = Some(v),
                    PipeColumn::Cycles => e.cycles_pct = Some(v),
                }
            }
        }
        let pipes =
            NameMap(plan.pipe_names.iter().zip(&pipe_values).filter_map(|(n, v)| v.map(|v| (n.clone(), v))).collect());
        launches += 1;
        each(Launch {
            id,
            process_id: intern(&mut interner, &rec, plan.process_id, 0),
            process_name: intern(&mut interner, &rec, plan.process_name, 1),
            host: intern(&mut interner, &rec, plan.host, 2),
            kernel_name: intern(&mut interner, &rec, plan.kernel, 3),
            context: intern(&mut interner, &rec, plan.context, 4),
            stream: intern(&mut interner, &rec, plan.stream, 5),
            device: intern(&mut interner, &rec, plan.device, 6),
            cc: intern(&mut interner, &rec, plan.cc, 7),
            device_name: intern(&mut interner, &rec, plan.device_name, 8),
            block: intern(&mut interner, &rec, plan.block, 9),
            grid: intern(&mut interner, &rec, plan.grid, 10),
            values: values.map(|v| v.unwrap_or(f64::NAN)),
            tensor,
            stalls,
            pipes,
            line: line_no,
        });
    }
    cap.bytes = rdr.byte().max(cap.bytes);
    if let Some(why) = stopped {
        cap.warnings.push(format!("{input}: stopped reading at {why}; the launches before it are kept"));
    }
    if skipped.count > 0 {
        cap.warnings.push(format!(
            "{input}: {} line(s) that are not launch rows were skipped: {}; program output or lines a script added to the capture? Launch rows start with ncu's numeric ID",
            skipped.count,
            skipped.examples.join(", ")
        ));
    }
    if let Some(odd) = odd_row {
        cap.warnings.push(cut_short(input, odd));
    }
    for (name, (line, raw)) in bad_values {
        cap.warnings.push(format!("{input}: line {line}: {name} = {raw:?} is not a number; treated as absent"));
    }
    if launches == 0 {
        let detail =
            if cap.errors.is_empty() { String::new() } else { format!(" (ncu said: {})", cap.errors.join(" | ")) };
        return Err(CsvError::NoLaunches {
            input: input.into(),
            detail,
            hint: "The header is there but no launch row follows: the program launched no kernel that matched the filters, or the file was cut short.".into(),
        });
    }
    Ok(cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The short cut for plain digits reads every field as the grammar does.
        #[test]
        fn plain_numbers_read_as_the_grammar_reads_them(field in "[0-9]{0,20}(\\.[0-9]{0,20})?|[0-9]{1,4}(,[0-9]{2,4}){0,6}(\\.[0-9]{0,6})?|[0-9]{0,5}(,[0-9]{0,5}){0,4}[.,]?[0-9a]{0,4}|[0-9.,e+-]{0,8}") {
            let grammar = roofline_model::parse_number(field.as_bytes()).ok();
            if let Some(v) = plain_number(field.as_bytes()) {
                proptest::prop_assert_eq!(Some(v.to_bits()), grammar.map(f64::to_bits), "{}", field);
            }
            proptest::prop_assert_eq!(
                read_number(field.as_bytes()).ok().flatten().map(f64::to_bits),
                grammar.filter(|_| field.bytes().any(|b| b.is_ascii_digit())).map(f64::to_bits)
            );
        }
    }

    /// Decimals short enough for an exact mantissa and power of ten are
    /// divided, the rest parsed: both give the grammar's bits, at the
    /// edges of the short path too (2^53, 19 digits, 1e22).
    #[test]
    fn decimal_fields_read_as_the_grammar_reads_them_on_both_sides_of_the_short_path() {
        for field in [
            "0.1",
            "70.54",
            "3,942,250.67",
            "9007199254740992.0",
            "900719925474099.3",
            "900719925474099.5",
            "0.9007199254740993",
            "1234567890123456789.5",
            "0.0000000000000000000001",
            "0.00000000000000000000001",
            "1.0000000000000000001",
            "000000000000000001.5",
        ] {
            let grammar = roofline_model::parse_number(field.as_bytes()).ok().map(f64::to_bits);
            assert_eq!(plain_number(field.as_bytes()).map(f64::to_bits), grammar, "{field}");
        }
    }

    #[test]
    fn units_scale_to_base() {
        assert_eq!(unit_scale("byte"), 1.0);
        assert_eq!(unit_scale("Kbyte"), 1e3);
        assert_eq!(unit_scale("Mbyte"), 1e6);
        assert_eq!(unit_scale("Gbyte"), 1e9);
        assert_eq!(unit_scale("ns"), 1e-9);
        assert_eq!(unit_scale("nsecond"), 1e-9);
        assert_eq!(unit_scale("usecond"), 1e-6);
        assert_eq!(unit_scale("msecond"), 1e-3);
        assert_eq!(unit_scale("Ghz"), 1e9);
        assert_eq!(unit_scale("Mhz"), 1e6);
        assert_eq!(unit_scale("hz"), 1.0);
        assert_eq!(unit_scale("cycle/nsecond"), 1e9);
        assert_eq!(unit_scale("Gbyte/second"), 1e9);
        assert_eq!(unit_scale("Tbyte/s"), 1e12);
        assert_eq!(unit_scale("inst/cycle"), 1.0);
        assert_eq!(unit_scale("Kinst"), 1e3);
        assert_eq!(unit_scale("%"), 1.0);
        assert_eq!(unit_scale("register/thread"), 1.0);
        assert_eq!(unit_scale("byte/sector"), 1.0);
    }

    #[test]
    fn units_know_what_they_measure() {
        let u = |s: &str| ncu_unit(s).unwrap();
        assert_eq!(u("ns").dimension, Dimension::Time);
        assert_eq!(u("psecond").scale, 1e-12);
        assert_eq!(u("Ghz").dimension, Dimension::Frequency);
        assert_eq!(u("cycle/nsecond"), NcuUnit { scale: 1e9, dimension: Dimension::Frequency });
        assert_eq!(u("byte/s").dimension, Dimension::Rate);
        assert_eq!(u("Gbyte/second"), NcuUnit { scale: 1e9, dimension: Dimension::Rate });
        assert_eq!(u("inst/cycle").dimension, Dimension::Plain);
        assert_eq!(u("Gcycle"), NcuUnit { scale: 1e9, dimension: Dimension::Plain });
        assert_eq!(u("%").dimension, Dimension::Plain);
        assert_eq!(u("").dimension, Dimension::Plain);
    }

    #[test]
    fn unknown_units_are_not_guessed() {
        for unit in ["minute", "MB", "fortnight", "byte/", "/s", "s/byte", "byte/cycle/s", "Xbyte", "mbyte"] {
            assert_eq!(ncu_unit(unit), None, "{unit}");
        }
    }

    #[test]
    fn values_with_separators_and_na() {
        assert_eq!(parse_value(b"3,209,127,424"), Some(3209127424.0));
        assert_eq!(parse_value(b"70.54"), Some(70.54));
        assert_eq!(parse_value(b"n/a"), None);
        assert_eq!(parse_value(b""), None);
        assert_eq!(parse_value(b"inf"), None);
        assert_eq!(parse_value(b"NaN"), None);
        assert_eq!(parse_value(b"PolicySpread"), None);
    }

    #[test]
    fn tensor_kinds() {
        assert_eq!(tensor_kind("bf16_dst_fp32"), Some(FlopKind::TensorBf16));
        assert_eq!(tensor_kind("fp16"), Some(FlopKind::TensorFp16));
        assert_eq!(tensor_kind("fp16_dst_fp32"), Some(FlopKind::TensorFp16));
        assert_eq!(tensor_kind("tf32_dst_fp32"), Some(FlopKind::TensorTf32));
        assert_eq!(tensor_kind("fp8_sparsity_on"), None);
        assert_eq!(tensor_kind("int1"), None);
    }
}
