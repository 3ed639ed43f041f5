//! The PyTorch profiler's Chrome trace (`export_chrome_trace`, plain or
//! gzipped): GPU kernels with their durations, and the aten operators that
//! launched them with the shapes `record_shapes=True` recorded.
//!
//! A kernel event carries the "External id" of the operator whose launch
//! it is (the innermost `cpu_op` open when the runtime call was made, on
//! the autograd thread for backward operators); when it lacks one, its
//! "correlation" names the `cuda_runtime`/`cuda_driver` call, which does.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use serde_json::Value;

use crate::args::{Arg, Tensor};
use crate::dtype::Dtype;

/// Why a trace cannot be read; each message names the input, what was
/// expected and the fix.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened or read.
    #[error("{input}: cannot read it ({source}); expected a PyTorch profiler trace (export_chrome_trace, .json or .json.gz)")]
    Io {
        /// The file.
        input: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// Not a trace the reader understands.
    #[error("{input}: {problem}; expected the Chrome trace JSON that torch.profiler's export_chrome_trace writes (.json or .json.gz)")]
    Format {
        /// The file.
        input: String,
        /// What is wrong.
        problem: String,
    },
    /// A trace without shapes.
    #[error("{input}: no operator in the trace has recorded input shapes; record it with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True)")]
    NoShapes {
        /// The file.
        input: String,
    },
    /// A trace without GPU kernels.
    #[error("{input}: the trace has no GPU kernel; record it with ProfilerActivity.CUDA among the activities, around the steps that run on the GPU")]
    NoKernels {
        /// The file.
        input: String,
    },
}

/// One operator call (a `cpu_op` event).
#[derive(Debug, Clone, PartialEq)]
pub struct TraceOp {
    /// "aten::mm", or an inductor kernel's name.
    pub name: String,
    /// Its inputs.
    pub args: Vec<Arg>,
    /// Its External id.
    pub external_id: i64,
    /// The thread it ran on (the autograd engine's for backward operators).
    pub thread: i64,
}

/// One GPU kernel launch.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceKernel {
    /// The kernel's name as CUPTI gave it.
    pub name: String,
    /// Start, µs on the trace's clock.
    pub start_us: f64,
    /// Duration, seconds.
    pub duration_s: f64,
    /// Blocks in the grid, when recorded.
    pub grid_blocks: Option<u64>,
    /// Threads per block, when recorded.
    pub block_threads: Option<u64>,
    /// The grid's x, y and z, when recorded.
    pub grid: Option<[u64; 3]>,
    /// Index into [`Trace::ops`] of the operator that launched it.
    pub op: Option<usize>,
}

/// What a trace holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trace {
    /// The GPU's name from `deviceProperties` ("NVIDIA H200").
    pub device_name: Option<String>,
    /// The kernels, in start order.
    pub kernels: Vec<TraceKernel>,
    /// The operators that launched kernels.
    pub ops: Vec<TraceOp>,
    /// Kernels whose operator the links do not name.
    pub unlinked: usize,
}

/// Reads a trace file, gzipped or not (by its first bytes).
pub fn read_trace_file(path: &Path) -> Result<Trace, TraceError> {
    let input = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| TraceError::Io { input: input.clone(), source })?;
    read_trace(&bytes, &input)
}

/// Reads a trace from its bytes (gzip detected by its magic number).
pub fn read_trace(bytes: &[u8], input: &str) -> Result<Trace, TraceError> {
    let text: Vec<u8>;
    let data = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut out).map_err(|e| TraceError::Format {
            input: input.into(),
            problem: format!("not a readable gzip file ({e})"),
        })?;
        text = out;
        &text[..]
    } else {
        bytes
    };
    let root: Value = serde_json::from_slice(data)
        .map_err(|e| TraceError::Format { input: input.into(), problem: format!("not JSON ({e})") })?;
    let events = match &root {
        Value::Object(o) => o.get("traceEvents").and_then(Value::as_array),
        Value::Array(a) => Some(a),
        _ => None,
    }
    .ok_or_else(|| TraceError::Format { input: input.into(), problem: "no \"traceEvents\" list".into() })?;
    let device_name = root
        .get("deviceProperties")
        .and_then(Value::as_array)
        .and_then(|d| d.first())
        .and_then(|d| d.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string);

    let mut ops_by_ext: HashMap<i64, (f64, usize)> = HashMap::new();
    let mut ops = Vec::new();
    let mut any_shapes = false;
    let mut runtime_ext: HashMap<i64, i64> = HashMap::new();
    for e in events {
        let cat = e.get("cat").and_then(Value::as_str).unwrap_or("");
        let args = e.get("args");
        let ext = args.and_then(|a| a.get("External id")).and_then(Value::as_i64);
        match cat {
            "cpu_op" => {
                let (Some(ext), Some(a)) = (ext, args) else { continue };
                let parsed = parse_args(a);
                any_shapes |= a.get("Input Dims").is_some();
                let dur = e.get("dur").and_then(Value::as_f64).unwrap_or(0.0);
                let op = TraceOp {
                    name: e.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
                    args: parsed,
                    external_id: ext,
                    thread: e.get("tid").and_then(Value::as_i64).unwrap_or(0),
                };
                // Several operators with one id: the innermost (shortest) launched.
                match ops_by_ext.get(&ext) {
                    Some(&(d, _)) if d <= dur => {}
                    _ => {
                        ops_by_ext.insert(ext, (dur, ops.len()));
                    }
                }
                ops.push(op);
            }
            "cuda_runtime" | "cuda_driver" => {
                let corr = args.and_then(|a| a.get("correlation")).and_then(Value::as_i64);
                if let (Some(c), Some(x)) = (corr, ext) {
                    runtime_ext.insert(c, x);
                }
            }
            _ => {}
        }
    }
    let mut kernels = Vec::new();
    let mut unlinked = 0;
    for e in events {
        if e.get("cat").and_then(Value::as_str) != Some("kernel") {
            continue;
        }
        let args = e.get("args");
        let ext = args.and_then(|a| a.get("External id")).and_then(Value::as_i64).or_else(|| {
            let c = args.and_then(|a| a.get("correlation")).and_then(Value::as_i64)?;
            runtime_ext.get(&c).copied()
        });
        let op = ext.and_then(|x| ops_by_ext.get(&x)).map(|&(_, i)| i);
        if op.is_none() {
            unlinked += 1;
        }
        let dims = |key: &str| -> Option<u64> {
            let v = args?.get(key)?.as_array()?;
            Some(v.iter().map(|d| d.as_u64().unwrap_or(1)).product())
        };
        let dur_us = e.get("dur").and_then(Value::as_f64).unwrap_or(0.0);
        kernels.push(TraceKernel {
            name: e.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
            start_us: e.get("ts").and_then(Value::as_f64).unwrap_or(0.0),
            duration_s: dur_us.max(0.0) * 1e-6,
            grid_blocks: dims("grid"),
            block_threads: dims("block"),
            grid: args.and_then(|a| a.get("grid")).and_then(Value::as_array).and_then(|g| {
                let v: Vec<u64> = g.iter().filter_map(Value::as_u64).collect();
                (v.len() == 3).then(|| [v[0], v[1], v[2]])
            }),
            op,
        });
    }
    if kernels.is_empty() {
        return Err(TraceError::NoKernels { input: input.into() });
    }
    if !any_shapes {
        return Err(TraceError::NoShapes { input: input.into() });
    }
    kernels.sort_by(|a, b| a.start_us.total_cmp(&b.start_us));
    Ok(Trace { device_name, kernels, ops, unlinked })
}

/// An operator's recorded inputs: "Input type", "Input Dims",
/// "Input Strides" and "Concrete Inputs", one entry per input.
fn parse_args(a: &Value) -> Vec<Arg> {
    let list = |k: &str| a.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
    let (types, dims, strides, concrete) =
        (list("Input type"), list("Input Dims"), list("Input Strides"), list("Concrete Inputs"));
    let n = types.len().max(dims.len());
    (0..n)
        .map(|i| {
            let ty = types.get(i).and_then(Value::as_str).unwrap_or("");
            let d = dims.get(i);
            let s = strides.get(i);
            let value = concrete.get(i).and_then(Value::as_str).unwrap_or("").to_string();
            match (ty, Dtype::parse(ty)) {
                (_, Some(dtype)) => match ints(d) {
                    Some(dims) => Arg::Tensor(Tensor { strides: ints_i(s).unwrap_or_default(), dims, dtype }),
                    None => Arg::None,
                },
                ("TensorList", _) => {
                    // Shapes of a list, when recorded: [[..], [..]]; dtypes are not.
                    let shapes = d.and_then(Value::as_array).cloned().unwrap_or_default();
                    let strides = s.and_then(Value::as_array).cloned().unwrap_or_default();
                    Arg::TensorList(
                        shapes
                            .iter()
                            .enumerate()
                            .filter_map(|(j, sh)| {
                                Some(Tensor {
                                    dims: ints(Some(sh))?,
                                    strides: ints_i(strides.get(j)).unwrap_or_default(),
                                    dtype: Dtype::Fp32,
                                })
                            })
                            .collect(),
                    )
                }
                ("ScalarList", _) => Arg::ScalarList(value),
                ("Scalar", _) => Arg::Scalar(value),
                _ if !value.is_empty() => Arg::Scalar(value),
                _ => Arg::None,
            }
        })
        .collect()
}

fn ints(v: Option<&Value>) -> Option<Vec<u64>> {
    v?.as_array()?.iter().map(Value::as_u64).collect()
}

fn ints_i(v: Option<&Value>) -> Option<Vec<i64>> {
    v?.as_array()?.iter().map(Value::as_i64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = r#"{"deviceProperties":[{"name":"NVIDIA H200"}],"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":10,"dur":50,
       "args":{"External id":7,"Input Dims":[[64,32],[32,16]],"Input Strides":[[32,1],[16,1]],
               "Input type":["c10::BFloat16","c10::BFloat16"],"Concrete Inputs":["",""]}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":20,"dur":5,
       "args":{"External id":7,"correlation":99}},
      {"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":100,"dur":12.5,
       "args":{"correlation":99,"grid":[4,2,1],"block":[128,1,1]}},
      {"ph":"X","cat":"kernel","name":"orphan","pid":0,"tid":7,"ts":200,"dur":1,"args":{"correlation":5}}
    ]}"#;

    #[test]
    fn a_kernel_finds_its_operator_through_the_runtime_call() {
        let t = read_trace(TRACE.as_bytes(), "t.json").unwrap();
        assert_eq!(t.device_name.as_deref(), Some("NVIDIA H200"));
        assert_eq!(t.kernels.len(), 2);
        let k = &t.kernels[0];
        assert_eq!(k.grid_blocks, Some(8));
        assert_eq!(k.grid, Some([4, 2, 1]));
        assert_eq!(k.block_threads, Some(128));
        assert!((k.duration_s - 12.5e-6).abs() < 1e-15);
        let op = &t.ops[k.op.unwrap()];
        assert_eq!(op.name, "aten::mm");
        assert_eq!(op.args[0], Arg::Tensor(Tensor { dims: vec![64, 32], strides: vec![32, 1], dtype: Dtype::Bf16 }));
        assert_eq!(t.unlinked, 1);
    }

    #[test]
    fn gzip_is_read_and_bad_input_is_named() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(TRACE.as_bytes()).unwrap();
        let t = read_trace(&gz.finish().unwrap(), "t.json.gz").unwrap();
        assert_eq!(t.kernels.len(), 2);
        let e = read_trace(b"{\"a\":1}", "x.json").unwrap_err().to_string();
        assert!(e.starts_with("x.json: no \"traceEvents\" list"), "{e}");
        let no_shapes = TRACE.replace("Input Dims", "Dims");
        let e = read_trace(no_shapes.as_bytes(), "y.json").unwrap_err().to_string();
        assert!(e.contains("record_shapes=True"), "{e}");
    }
}
