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

use std::collections::BTreeMap;
use std::io::{BufRead, Read};

use roofline_core::machine::FlopKind;

use crate::metrics::{
    Slot, Via, COLUMNS, PIPE_COUNT_SUFFIX, PIPE_CYCLES_PREFIX, PIPE_CYCLES_SUFFIX, PIPE_PCT_SUFFIX, PIPE_PREFIX,
    SLOT_COUNT, STALL_PREFIX, STALL_SUFFIX, TENSOR_PREFIX,
};

/// One kernel launch as ncu reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// ncu's `ID` column (the launch's index in the capture).
    pub id: String,
    /// The profiled process's pid: launches of different processes are
    /// different kernels even under one name.
    pub process_id: String,
    /// The profiled process's name, for messages.
    pub process_name: String,
    /// The host ncu ran on (a capture may merge several).
    pub host: String,
    /// The name as ncu printed it (demangled by default).
    pub kernel_name: String,
    /// CUDA context id: with the process, device and stream, part of the key
    /// that groups launches into one kernel.
    pub context: String,
    /// CUDA stream id (part of the grouping key).
    pub stream: String,
    /// ncu's device index (part of the grouping key).
    pub device: String,
    /// Compute capability, "9.0".
    pub cc: String,
    /// Block size as ncu printed it, "(256, 1, 1)": the launch shape the
    /// diagnosis checks.
    pub block: String,
    /// Grid size as ncu printed it, "(1024, 1, 1)".
    pub grid: String,
    /// Values in base SI units (seconds, bytes, Hz), `None` when the column
    /// is missing or the value is `n/a`.
    pub values: [Option<f64>; SLOT_COUNT],
    /// Tensor-core operations per kind and the counters' per-cycle peak.
    pub tensor: BTreeMap<FlopKind, TensorCount>,
    /// Stall reasons: warp cycles stalled per issued instruction.
    pub stalls: BTreeMap<String, f64>,
    /// Per Nsight Compute pipe name ("alu", "fma_type_fp16",
    /// "tensor_op_gmma"): utilisation and warp instructions.
    pub pipes: BTreeMap<String, PipeCount>,
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

impl Launch {
    /// The value of one slot in base SI units, `None` when the capture has
    /// no such column or the value was `n/a`.
    pub fn get(&self, slot: Slot) -> Option<f64> {
        self.values[slot as usize]
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
pub struct Capture {
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
    /// Nothing that looks like a launch row: not ncu's raw CSV at all, or a
    /// run that launched no kernel.
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

/// Scale from a unit as ncu prints it to base SI (bytes, seconds, Hz, ...).
/// Unknown units are dimensionless counts: factor 1.
pub fn unit_scale(unit: &str) -> f64 {
    let unit = unit.trim();
    if unit.is_empty() || unit == "%" {
        return 1.0;
    }
    let mut parts = unit.splitn(2, '/');
    let num = parts.next().unwrap_or("");
    let den = parts.next();
    let n = word_scale(num);
    match den {
        // Exact inverses: 1 / 1e-9 is not 1e9 in floating point.
        Some(d) => match d.trim() {
            "ms" | "msecond" => n * 1e3,
            "us" | "usecond" => n * 1e6,
            "ns" | "nsecond" => n * 1e9,
            d => n / word_scale(d),
        },
        None => n,
    }
}

fn word_scale(word: &str) -> f64 {
    let w = word.trim();
    let time = match w {
        "s" | "second" | "sec" => Some(1.0),
        "ms" | "msecond" => Some(1e-3),
        "us" | "usecond" => Some(1e-6),
        "ns" | "nsecond" => Some(1e-9),
        _ => None,
    };
    if let Some(t) = time {
        return t;
    }
    let lower = w.to_ascii_lowercase();
    if lower.ends_with("hz") {
        return match &lower[..lower.len() - 2] {
            "k" => 1e3,
            "m" => 1e6,
            "g" => 1e9,
            "t" => 1e12,
            _ => 1.0,
        };
    }
    const BASES: [&str; 10] = ["byte", "inst", "cycle", "sector", "request", "warp", "thread", "block", "op", "flop"];
    let mut chars = w.chars();
    if let Some(first) = chars.next() {
        let rest = chars.as_str();
        let factor = match first {
            'K' | 'k' => Some(1e3),
            'M' => Some(1e6),
            'G' => Some(1e9),
            'T' => Some(1e12),
            'P' => Some(1e15),
            _ => None,
        };
        if let Some(f) = factor {
            if BASES.contains(&rest) {
                return f;
            }
        }
    }
    1.0
}

/// A value as ncu prints it: `"3,209,127,424"`, `"945408"`, `"70.54"`,
/// `n/a`, empty. `None` for anything that is not a finite number.
pub fn parse_value(raw: &[u8]) -> Option<f64> {
    let mut buf = [0u8; 64];
    let mut len = 0;
    for &b in raw {
        match b {
            b',' | b' ' | b'"' => {}
            _ => {
                if len == buf.len() {
                    return None;
                }
                buf[len] = b;
                len += 1;
            }
        }
    }
    if len == 0 {
        return None;
    }
    let s = std::str::from_utf8(&buf[..len]).ok()?;
    let v: f64 = s.parse().ok()?;
    v.is_finite().then_some(v)
}

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

/// Which figure of a pipe a column holds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum PipeColumn {
    Pct,
    Count,
    Cycles,
}

/// Where each needed value sits in a row.
struct Plan {
    id: Option<usize>,
    process_id: Option<usize>,
    process_name: Option<usize>,
    host: Option<usize>,
    kernel: Option<usize>,
    context: Option<usize>,
    stream: Option<usize>,
    device: Option<usize>,
    cc: Option<usize>,
    block: Option<usize>,
    grid: Option<usize>,
    /// Per slot: column, how, unit scale.
    slots: Vec<Option<(usize, Via, f64)>>,
    /// Tensor kinds: (kind, ops column, peak column, scale), where a kind
    /// has a total column (`src_fp16`) its per-destination ones are left out.
    tensor: Vec<(FlopKind, usize, Option<usize>)>,
    stalls: Vec<(String, usize)>,
    /// Pipe columns: (pipe, column, which figure).
    pipes: Vec<(String, usize, PipeColumn)>,
    width: usize,
}

impl Plan {
    fn new(header: &csv::ByteRecord) -> Plan {
        let names: Vec<String> = header.iter().map(|f| String::from_utf8_lossy(f).trim().to_string()).collect();
        let find = |n: &str| names.iter().position(|c| c == n);
        let mut slots: Vec<Option<(usize, Via, f64)>> = vec![None; SLOT_COUNT];
        for &(slot, col, via) in COLUMNS {
            if slots[slot as usize].is_none() {
                if let Some(i) = find(col) {
                    slots[slot as usize] = Some((i, via, 1.0));
                }
            }
        }
        let mut by_kind: BTreeMap<FlopKind, Vec<(String, usize)>> = BTreeMap::new();
        let mut stalls = Vec::new();
        let mut pipes = Vec::new();
        for (i, n) in names.iter().enumerate() {
            if let Some(rest) = n.strip_prefix(PIPE_PREFIX) {
                if let Some(pipe) = rest.strip_suffix(PIPE_PCT_SUFFIX) {
                    pipes.push((pipe.to_string(), i, PipeColumn::Pct));
                } else if let Some(pipe) = rest.strip_suffix(PIPE_COUNT_SUFFIX).filter(|p| !p.contains('.')) {
                    pipes.push((pipe.to_string(), i, PipeColumn::Count));
                }
                continue;
            }
            if let Some(pipe) = n.strip_prefix(PIPE_CYCLES_PREFIX).and_then(|r| r.strip_suffix(PIPE_CYCLES_SUFFIX)) {
                pipes.push((pipe.to_string(), i, PipeColumn::Cycles));
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
                    stalls.push((reason.to_string(), i));
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
                tensor.push((kind, *i, peak));
            }
        }
        Plan {
            id: find("ID"),
            process_id: find("Process ID"),
            process_name: find("Process Name"),
            host: find("Host Name"),
            kernel: find("Kernel Name"),
            context: find("Context"),
            stream: find("Stream"),
            device: find("Device"),
            cc: find("CC"),
            block: find("Block Size"),
            grid: find("Grid Size"),
            slots,
            tensor,
            stalls,
            pipes,
            width: names.len(),
        }
    }

    fn apply_units(&mut self, units: &csv::ByteRecord) {
        for s in self.slots.iter_mut().flatten() {
            let u = units.get(s.0).map(|u| String::from_utf8_lossy(u).to_string()).unwrap_or_default();
            s.2 = unit_scale(&u);
        }
    }

    fn missing(&self) -> Vec<MissingMetric> {
        let mut out = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for &(slot, _, _) in COLUMNS {
            if self.slots[slot as usize].is_none() && seen.insert(slot) {
                out.push(MissingMetric {
                    slot,
                    metrics: COLUMNS.iter().filter(|c| c.0 == slot).map(|c| c.1).collect(),
                    blocks: crate::metrics::blocks(slot),
                });
            }
        }
        out
    }
}

fn text(rec: &csv::ByteRecord, i: Option<usize>) -> String {
    i.and_then(|i| rec.get(i)).map(|f| String::from_utf8_lossy(f).trim().to_string()).unwrap_or_default()
}

fn is_header(line: &[u8]) -> bool {
    let l = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    l.starts_with(b"\"ID\"") || l.starts_with(b"ID,")
}

/// Reads a capture from any reader, streaming: memory use grows with the
/// number of launches, not the size of the file.
pub fn read_capture<R: Read>(reader: R, input: &str) -> Result<Capture, CsvError> {
    let mut reader = std::io::BufReader::with_capacity(1 << 20, reader);
    let mut cap = Capture::default();
    let mut line = Vec::new();
    let mut lines: u64 = 0;
    let mut program_output = 0usize;
    // The preamble, up to the header row.
    let header_line = loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(|source| CsvError::Io { input: input.into(), source })?;
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
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(1 << 20)
        .from_reader(std::io::Cursor::new(header_line).chain(reader));
    let mut rec = csv::ByteRecord::new();
    let read_err = |e: csv::Error, cap: &mut Capture| {
        cap.warnings.push(format!("{input}: stopped reading at a malformed record ({e}); launches before it are kept"));
    };
    match rdr.read_byte_record(&mut rec) {
        Ok(true) => {}
        Ok(false) => unreachable!("the header line was found"),
        Err(e) => {
            read_err(e, &mut cap);
            return Err(CsvError::NoLaunches { input: input.into(), detail: String::new(), hint: String::new() });
        }
    }
    if rec.iter().any(|f| f == b"Metric Name") && rec.iter().any(|f| f == b"Metric Value") {
        return Err(CsvError::DetailsPage { input: input.into() });
    }
    let mut plan = Plan::new(&rec);
    cap.missing = plan.missing();
    if plan.slots.iter().flatten().any(|s| matches!(s.1, Via::PerCycle(_))) {
        cap.warnings.push(format!(
            "{input}: instruction counts come from per-cycle rates printed with two decimals (a --set full export): FLOPs are accurate to about 1e-5, not exact; collect the .sum counters (`roofline profile`) for exact counts"
        ));
    }
    let mut units_seen = false;
    let mut bad_values: BTreeMap<&'static str, (u64, String)> = BTreeMap::new();
    let mut short_rows = 0u64;
    loop {
        match rdr.read_byte_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                read_err(e, &mut cap);
                break;
            }
        }
        let line_no = header_lines + rec.position().map(|p| p.line()).unwrap_or(0).saturating_sub(1);
        let first = rec.get(0).unwrap_or(b"");
        if first.starts_with(b"==") {
            let t = String::from_utf8_lossy(&rec.as_slice()[..rec.as_slice().len().min(500)]).to_string();
            if t.contains("ERR_NVGPUCTRPERM") {
                return Err(CsvError::CounterPermission { input: input.into() });
            }
            if first.starts_with(b"==ERROR==") {
                cap.errors.push(t);
            }
            continue;
        }
        if !units_seen {
            units_seen = true;
            // The units row has an empty ID; a capture without one (hand
            // edited) is read as base units.
            if first.is_empty() {
                plan.apply_units(&rec);
                continue;
            }
        }
        if rec.len() == 1 && first.is_empty() {
            continue;
        }
        if rec.len() < plan.width {
            short_rows += 1;
        }
        let mut values = [None; SLOT_COUNT];
        let mut per_second = Vec::new();
        for (slot_index, s) in plan.slots.iter().enumerate() {
            let Some((col, via, scale)) = *s else { continue };
            let Some(raw) = rec.get(col) else { continue };
            let v = parse_value(raw);
            if v.is_none() && !raw.is_empty() && raw != b"n/a" {
                let name = COLUMNS.iter().find(|c| c.0 as usize == slot_index).map(|c| c.1).unwrap_or("?");
                bad_values.entry(name).or_insert((line_no, String::from_utf8_lossy(raw).chars().take(40).collect()));
            }
            match via {
                Via::Direct(f) => values[slot_index] = v.map(|v| v * f * scale),
                Via::PerSecond(f) => per_second.push((slot_index, v.map(|v| v * f * scale), Slot::Duration)),
                Via::PerCycle(f) => per_second.push((slot_index, v.map(|v| v * f * scale), Slot::Cycles)),
            }
        }
        for (slot_index, v, base) in per_second {
            values[slot_index] = match (v, values[base as usize]) {
                (Some(v), Some(d)) => Some(v * d),
                _ => None,
            };
        }
        let mut tensor: BTreeMap<FlopKind, TensorCount> = BTreeMap::new();
        for &(kind, col, peak) in &plan.tensor {
            let Some(ops) = rec.get(col).and_then(parse_value) else { continue };
            let e = tensor.entry(kind).or_default();
            e.ops += ops;
            if let Some(p) = peak.and_then(|p| rec.get(p)).and_then(parse_value) {
                e.peak_per_cycle = Some(e.peak_per_cycle.map_or(p, |q: f64| q.max(p)));
            }
        }
        let mut stalls = BTreeMap::new();
        for (reason, col) in &plan.stalls {
            if let Some(v) = rec.get(*col).and_then(parse_value) {
                stalls.insert(reason.clone(), v);
            }
        }
        let mut pipes: BTreeMap<String, PipeCount> = BTreeMap::new();
        for (pipe, col, which) in &plan.pipes {
            if let Some(v) = rec.get(*col).and_then(parse_value) {
                let e = pipes.entry(pipe.clone()).or_default();
                match which {
                    PipeColumn::Pct => e.pct_of_peak = Some(v),
                    PipeColumn::Count => e.warp_instructions = Some(v),
                    PipeColumn::Cycles => e.cycles_pct = Some(v),
                }
            }
        }
        cap.launches.push(Launch {
            id: text(&rec, plan.id),
            process_id: text(&rec, plan.process_id),
            process_name: text(&rec, plan.process_name),
            host: text(&rec, plan.host),
            kernel_name: text(&rec, plan.kernel),
            context: text(&rec, plan.context),
            stream: text(&rec, plan.stream),
            device: text(&rec, plan.device),
            cc: text(&rec, plan.cc),
            block: text(&rec, plan.block),
            grid: text(&rec, plan.grid),
            values,
            tensor,
            stalls,
            pipes,
            line: line_no,
        });
    }
    cap.bytes = rdr.position().byte().max(cap.bytes);
    if short_rows > 0 {
        cap.warnings.push(format!(
            "{input}: {short_rows} row(s) have fewer columns than the header (file cut short or garbled); their missing values are treated as absent"
        ));
    }
    for (name, (line, raw)) in bad_values {
        cap.warnings.push(format!("{input}: line {line}: {name} = {raw:?} is not a number; treated as absent"));
    }
    if cap.launches.is_empty() {
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
