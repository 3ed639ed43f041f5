//! The speed of light of an operation on a machine: the least time its
//! FLOPs and compulsory bytes can take under the machine's roofs,
//! `max(FLOPs_kind / peak_kind for each kind, DRAM bytes / DRAM bandwidth)`,
//! and the roof that sets it.
//!
//! An operation is written as a spec ("gemm m=4096 n=4096 k=4096 bf16"),
//! turned into the aten call it names and estimated by the catalogue, so
//! `sol` and `import` of a trace share one formula per operator.

use std::collections::BTreeMap;

use roofline_model::{FlopKind, Machine, MemLevel, Provenance, Resource};

use crate::args::{Arg, Tensor};
use crate::catalogue::{elementwise_flops, estimate, Estimate};
use crate::dtype::Dtype;

/// A lower bound on a time.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// The least time, seconds.
    pub time_s: f64,
    /// The roof that sets it.
    pub set_by: Resource,
    /// That roof's name ("BF16 tensor", "DRAM").
    pub roof: String,
    /// That roof's rate (FLOP/s or B/s).
    pub rate: f64,
    /// Where the rate came from.
    pub provenance: Provenance,
    /// Each roof's own time, seconds, in the order considered.
    pub terms: Vec<(Resource, String, f64)>,
}

/// The lower bound of work `flops` (per kind) and `dram_bytes` on `machine`;
/// an error names the roof the machine lacks.
pub fn bound(flops: &BTreeMap<FlopKind, f64>, dram_bytes: f64, machine: &Machine) -> Result<Bound, String> {
    let mut terms = Vec::new();
    let mut best: Option<(f64, Resource, String, f64, Provenance)> = None;
    let mut consider = |r: Resource, amount: f64| -> Result<(), String> {
        if amount <= 0.0 {
            return Ok(());
        }
        let c = machine.roof(r).ok_or_else(|| {
            format!(
                "{} has no {} roof, which {} of this work need",
                machine.name,
                r.label(),
                if r.mem_level().is_some() { "the bytes" } else { "the FLOPs" }
            )
        })?;
        let t = amount / c.rate;
        terms.push((r, c.name.clone(), t));
        if best.as_ref().is_none_or(|b| t > b.0) {
            best = Some((t, r, c.name.clone(), c.rate, c.provenance.clone()));
        }
        Ok(())
    };
    for (k, f) in flops {
        consider(Resource::Compute(*k), *f)?;
    }
    consider(Resource::Memory(MemLevel::Dram), dram_bytes)?;
    let (time_s, set_by, roof, rate, provenance) =
        best.ok_or_else(|| "the operation has no FLOPs and no bytes".to_string())?;
    Ok(Bound { time_s, set_by, roof, rate, provenance, terms })
}

/// A parsed spec: the operator and the inputs the catalogue reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The aten operator it stands for.
    pub op: String,
    /// Its inputs.
    pub args: Vec<Arg>,
}

/// The operation words a spec may start with, for help and errors.
pub const SPEC_HELP: &str = "gemm|mm m= n= k= [b=]; addmm/linear m= n= k=; scaled_mm (fp8) / int_mm (int8) m= n= k=; \
conv n= c= h= w= k= [r=3 s=3 stride=1 pad=0 dilation=1 groups=1] [backward]; \
attention b= h= l= [s=l] e= [ev=e] [causal] [backward]; \
layer_norm|rms_norm rows= cols= [backward]; batch_norm n= c= h= w= [eval] [backward]; group_norm n= c= h= w= groups=; \
softmax|log_softmax rows= cols= [backward]; cross_entropy rows= classes=; \
ELEMENTWISE n= (add, mul, gelu, relu, addcmul, ...); cast n= FROM TO; copy n=; \
sum|mean|amax n= [rows=]; embedding vocab= dim= tokens=; gather n=; cat n= parts=; adam|adamw|sgd params=; \
and a dtype word (bf16, fp16, fp32, fp64, fp8, int8; default bf16)";

fn num(kv: &BTreeMap<String, f64>, key: &str, spec: &str) -> Result<u64, String> {
    let v = kv.get(key).copied().ok_or_else(|| format!("{spec:?}: {key}= is missing; write it as {key}=N"))?;
    if v < 1.0 || v.fract() != 0.0 {
        return Err(format!("{spec:?}: {key}={v} must be a whole number of at least 1"));
    }
    Ok(v as u64)
}

fn opt(kv: &BTreeMap<String, f64>, key: &str, default: u64) -> u64 {
    kv.get(key).map(|v| *v as u64).unwrap_or(default)
}

fn sl(v: u64) -> Arg {
    Arg::ScalarList(format!("[{v}, {v}]"))
}

fn sc(v: impl ToString) -> Arg {
    Arg::Scalar(v.to_string())
}

/// Parses a spec ("gemm m=4096 n=4096 k=4096 bf16"); an error says what
/// was expected.
pub fn parse_spec(spec: &str) -> Result<Spec, String> {
    let mut words = spec.split_whitespace();
    let head =
        words.next().ok_or_else(|| format!("an empty operation; expected one of: {SPEC_HELP}"))?.to_ascii_lowercase();
    let mut kv = BTreeMap::new();
    let mut flags = Vec::new();
    let mut dtypes = Vec::new();
    for w in words {
        if let Some((k, v)) = w.split_once('=') {
            let n: f64 = v
                .replace('_', "")
                .parse()
                .ok()
                .filter(|n: &f64| n.is_finite())
                .ok_or_else(|| format!("{spec:?}: {k}={v}: not a number; write sizes as whole numbers (m=4096)"))?;
            kv.insert(k.to_ascii_lowercase(), n);
        } else if let Some(d) = Dtype::parse(w) {
            dtypes.push(d);
        } else {
            flags.push(w.to_ascii_lowercase());
        }
    }
    let has = |f: &str| flags.iter().any(|x| x == f);
    let backward = has("backward") || has("bwd");
    let d = dtypes.first().copied().unwrap_or(Dtype::Bf16);
    let ten = |dims: &[u64]| Arg::Tensor(Tensor::new(dims, d));
    let known = ["causal", "backward", "bwd", "eval"];
    if let Some(f) = flags.iter().find(|f| !known.contains(&f.as_str())) {
        return Err(format!("{spec:?}: {f:?} is not a word the spec knows; write sizes as key=N, a dtype (bf16, fp16, fp32, fp8, int8), or one of causal, backward, eval"));
    }
    let (op, args) = match head.as_str() {
        "gemm" | "mm" | "matmul" | "bmm" => {
            let (m, n, k) = (num(&kv, "m", spec)?, num(&kv, "n", spec)?, num(&kv, "k", spec)?);
            match kv.get("b").or(kv.get("batch")) {
                Some(&b) => ("aten::bmm", vec![ten(&[b as u64, m, k]), ten(&[b as u64, k, n])]),
                None => ("aten::mm", vec![ten(&[m, k]), ten(&[k, n])]),
            }
        }
        "addmm" | "linear" => {
            let (m, n, k) = (num(&kv, "m", spec)?, num(&kv, "n", spec)?, num(&kv, "k", spec)?);
            ("aten::addmm", vec![ten(&[n]), ten(&[m, k]), ten(&[k, n])])
        }
        "scaled_mm" | "fp8_gemm" | "int_mm" | "int8_gemm" => {
            let (m, n, k) = (num(&kv, "m", spec)?, num(&kv, "n", spec)?, num(&kv, "k", spec)?);
            let int = head.starts_with("int");
            let dt = if int { Dtype::Int8 } else { Dtype::Fp8 };
            let a = Arg::Tensor(Tensor::new(&[m, k], dt));
            let b = Arg::Tensor(Tensor::new(&[k, n], dt));
            if int {
                ("aten::_int_mm", vec![a, b])
            } else {
                let s = Arg::Tensor(Tensor::new(&[1], Dtype::Fp32));
                ("aten::_scaled_mm", vec![a, b, s.clone(), s])
            }
        }
        "conv" | "conv2d" | "convolution" => {
            let (n, c, h, w, k) = (
                num(&kv, "n", spec)?,
                num(&kv, "c", spec)?,
                num(&kv, "h", spec)?,
                num(&kv, "w", spec)?,
                num(&kv, "k", spec)?,
            );
            let (r, s) = (opt(&kv, "r", 3), opt(&kv, "s", opt(&kv, "r", 3)));
            let g = opt(&kv, "groups", 1);
            let (stride, pad, dil) = (opt(&kv, "stride", 1), opt(&kv, "pad", 0), opt(&kv, "dilation", 1));
            let input = ten(&[n, c, h, w]);
            let weight = ten(&[k, c / g.max(1), r, s]);
            if backward {
                let oh = (h + 2 * pad - dil * (r - 1) - 1) / stride + 1;
                let ow = (w + 2 * pad - dil * (s - 1) - 1) / stride + 1;
                let grad = ten(&[n, k, oh, ow]);
                (
                    "aten::convolution_backward",
                    vec![
                        grad,
                        input,
                        weight,
                        Arg::ScalarList("[0]".into()),
                        sl(stride),
                        sl(pad),
                        sl(dil),
                        sc("False"),
                        sl(0),
                        sc(g),
                        Arg::ScalarList("[True, True, False]".into()),
                    ],
                )
            } else {
                (
                    "aten::convolution",
                    vec![input, weight, Arg::None, sl(stride), sl(pad), sl(dil), sc("False"), sl(0), sc(g)],
                )
            }
        }
        "attention" | "sdpa" | "flash" | "flash_attention" => {
            let (b, h, l, e) = (num(&kv, "b", spec)?, num(&kv, "h", spec)?, num(&kv, "l", spec)?, num(&kv, "e", spec)?);
            let s = opt(&kv, "s", l);
            let ev = opt(&kv, "ev", e);
            let (q, k, v) = (ten(&[b, h, l, e]), ten(&[b, h, s, e]), ten(&[b, h, s, ev]));
            let causal = sc(if has("causal") { "True" } else { "False" });
            if backward {
                let out = ten(&[b, h, l, ev]);
                let lse = Arg::Tensor(Tensor::new(&[b, h, l], Dtype::Fp32));
                let mut a = vec![out.clone(), q, k, v, out, lse, Arg::None, Arg::None, sc(l), sc(s), sc(0), causal];
                a.extend([Arg::None, Arg::None, Arg::None]);
                ("aten::_scaled_dot_product_flash_attention_backward", a)
            } else {
                ("aten::_scaled_dot_product_flash_attention", vec![q, k, v, sc(0), causal])
            }
        }
        "layer_norm" | "layernorm" | "rms_norm" | "rmsnorm" => {
            let (rows, cols) = (num(&kv, "rows", spec)?, num(&kv, "cols", spec)?);
            let rms = head.starts_with("rms");
            let x = ten(&[rows, cols]);
            let w = ten(&[cols]);
            let stats = Arg::Tensor(Tensor::new(&[rows, 1], Dtype::Fp32));
            match (backward, rms) {
                (false, false) => {
                    ("aten::native_layer_norm", vec![x, Arg::ScalarList(format!("[{cols}]")), w.clone(), w, sc(1e-5)])
                }
                (false, true) => ("aten::_fused_rms_norm", vec![x, Arg::ScalarList(format!("[{cols}]")), w, sc(1e-5)]),
                (true, false) => (
                    "aten::native_layer_norm_backward",
                    vec![
                        x.clone(),
                        x,
                        Arg::ScalarList(format!("[{cols}]")),
                        stats.clone(),
                        stats,
                        w.clone(),
                        w,
                        Arg::ScalarList("[True, True, True]".into()),
                    ],
                ),
                (true, true) => (
                    "aten::_fused_rms_norm_backward",
                    vec![
                        x.clone(),
                        x,
                        Arg::ScalarList(format!("[{cols}]")),
                        stats.clone(),
                        stats,
                        w,
                        Arg::None,
                        Arg::ScalarList("[True, True]".into()),
                    ],
                ),
            }
        }
        "batch_norm" | "batchnorm" => {
            let (n, c, h, w) = (num(&kv, "n", spec)?, num(&kv, "c", spec)?, num(&kv, "h", spec)?, num(&kv, "w", spec)?);
            let x = ten(&[n, c, h, w]);
            let p = Arg::Tensor(Tensor::new(&[c], Dtype::Fp32));
            if backward {
                (
                    "aten::native_batch_norm_backward",
                    vec![x.clone(), x, p.clone(), p.clone(), p.clone(), p.clone(), p, sc("True"), sc(1e-5)],
                )
            } else {
                (
                    "aten::native_batch_norm",
                    vec![
                        x,
                        p.clone(),
                        p.clone(),
                        p.clone(),
                        p,
                        sc(if has("eval") { "False" } else { "True" }),
                        sc(0.1),
                        sc(1e-5),
                    ],
                )
            }
        }
        "group_norm" | "groupnorm" => {
            let (n, c, h, w, g) = (
                num(&kv, "n", spec)?,
                num(&kv, "c", spec)?,
                num(&kv, "h", spec)?,
                num(&kv, "w", spec)?,
                num(&kv, "groups", spec)?,
            );
            let x = ten(&[n, c, h, w]);
            let p = ten(&[c]);
            let stats = Arg::Tensor(Tensor::new(&[n, g], Dtype::Fp32));
            if backward {
                (
                    "aten::native_group_norm_backward",
                    vec![
                        x.clone(),
                        x,
                        stats.clone(),
                        stats,
                        p,
                        sc(n),
                        sc(c),
                        sc(h * w),
                        sc(g),
                        Arg::ScalarList("[True, True, True]".into()),
                    ],
                )
            } else {
                ("aten::native_group_norm", vec![x, p.clone(), p, sc(n), sc(c), sc(h * w), sc(g), sc(1e-5)])
            }
        }
        "softmax" | "log_softmax" => {
            let (rows, cols) = (num(&kv, "rows", spec)?, num(&kv, "cols", spec)?);
            let x = ten(&[rows, cols]);
            let name = if head == "softmax" { "softmax" } else { "log_softmax" };
            if backward {
                (
                    if name == "softmax" { "aten::_softmax_backward_data" } else { "aten::_log_softmax_backward_data" },
                    vec![x.clone(), x, sc(1), sc(6)],
                )
            } else {
                (if name == "softmax" { "aten::_softmax" } else { "aten::_log_softmax" }, vec![x, sc(1), sc("False")])
            }
        }
        "cross_entropy" => {
            let (rows, classes) = (num(&kv, "rows", spec)?, num(&kv, "classes", spec)?);
            ("aten::cross_entropy_loss", vec![ten(&[rows, classes]), Arg::Tensor(Tensor::new(&[rows], Dtype::Int64))])
        }
        "cast" | "to" => {
            let n = num(&kv, "n", spec)?;
            let (from, to) = match dtypes.as_slice() {
                [a, b, ..] => (*a, *b),
                _ => {
                    return Err(format!(
                        "{spec:?}: a cast names two dtypes, the source's and the result's: cast n=N bf16 fp32"
                    ))
                }
            };
            ("aten::copy_", vec![Arg::Tensor(Tensor::new(&[n], to)), Arg::Tensor(Tensor::new(&[n], from))])
        }
        "copy" => {
            let n = num(&kv, "n", spec)?;
            ("aten::copy_", vec![ten(&[n]), ten(&[n])])
        }
        "sum" | "mean" | "amax" | "amin" | "prod" | "norm" | "var" | "std" | "argmax" => {
            let n = num(&kv, "n", spec)?;
            let rows = opt(&kv, "rows", 1);
            let op = format!("aten::{head}");
            return Ok(Spec {
                op,
                args: vec![
                    ten(&[rows, n / rows.max(1)]),
                    Arg::ScalarList(if rows > 1 { "[1]".into() } else { "[]".into() }),
                ],
            });
        }
        "embedding" => {
            let (v, dim, t) = (num(&kv, "vocab", spec)?, num(&kv, "dim", spec)?, num(&kv, "tokens", spec)?);
            if backward {
                (
                    "aten::embedding_dense_backward",
                    vec![ten(&[t, dim]), Arg::Tensor(Tensor::new(&[t], Dtype::Int64)), sc(v)],
                )
            } else {
                ("aten::embedding", vec![ten(&[v, dim]), Arg::Tensor(Tensor::new(&[t], Dtype::Int64))])
            }
        }
        "gather" => {
            let n = num(&kv, "n", spec)?;
            ("aten::gather", vec![ten(&[n]), sc(0), Arg::Tensor(Tensor::new(&[n], Dtype::Int64))])
        }
        "cat" => {
            let (n, parts) = (num(&kv, "n", spec)?, opt(&kv, "parts", 2).max(1));
            ("aten::cat", vec![Arg::TensorList((0..parts).map(|_| Tensor::new(&[n / parts], d)).collect()), sc(0)])
        }
        "adam" | "adamw" | "sgd" => {
            let p = num(&kv, "params", spec)?;
            let d = dtypes.first().copied().unwrap_or(Dtype::Fp32);
            let list = Arg::TensorList(vec![Tensor::new(&[p], d)]);
            let op = match head.as_str() {
                "adam" => "aten::_fused_adam_",
                "adamw" => "aten::_fused_adamw_",
                _ => "aten::_fused_sgd_",
            };
            (op, vec![list.clone(), list.clone(), list.clone(), list])
        }
        other => match elementwise_flops(other) {
            Some(_) => {
                let n = num(&kv, "n", spec)?;
                let arity = match other.trim_end_matches('_') {
                    "addcmul" | "addcdiv" | "lerp" | "where" => 3,
                    "add" | "sub" | "mul" | "div" | "pow" | "maximum" | "minimum" | "eq" | "ne" | "lt" | "le"
                    | "gt" | "ge" | "atan2" | "fmod" | "remainder" | "rsub" | "copysign" | "xlogy" | "floor_divide"
                    | "logical_and" | "logical_or" => 2,
                    b if b.ends_with("_backward") => 2,
                    _ => 1,
                };
                let op = format!("aten::{other}");
                return Ok(Spec { op, args: (0..arity).map(|_| ten(&[n])).collect() });
            }
            None => {
                return Err(format!(
                    "{spec:?}: {other:?} is not an operation the catalogue knows; expected one of: {SPEC_HELP}"
                ))
            }
        },
    };
    Ok(Spec { op: op.to_string(), args })
}

/// The estimate and the bound of a spec on a machine.
pub fn speed_of_light(spec: &str, machine: &Machine) -> Result<(Spec, Estimate, Bound), String> {
    let s = parse_spec(spec)?;
    let e = estimate(&s.op, &s.args).map_err(|why| format!("{spec:?}: no estimate for {}: {why}", s.op))?;
    let mut flops = BTreeMap::new();
    if e.useful_flops() > 0.0 {
        flops.insert(e.kind, e.useful_flops());
    }
    let b = bound(&flops, e.bytes(), machine)
        .map_err(|m| format!("{spec:?}: {m}; give a machine that has it (--machine FILE)"))?;
    Ok((s, e, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use roofline_model::{Ceiling, Origin};

    /// A machine with round roofs: 1000 TFLOP/s BF16, 50 TFLOP/s FP32, 4 TB/s DRAM.
    fn machine() -> Machine {
        let p = Provenance::new(Origin::Theoretical, "test");
        Machine {
            name: "test GPU".into(),
            ceilings: vec![
                Ceiling::new(Resource::Compute(FlopKind::TensorBf16), "BF16 tensor", 1e15, p.clone()),
                Ceiling::new(Resource::Compute(FlopKind::Fp32), "FP32", 5e13, p.clone()),
                Ceiling::new(Resource::Memory(MemLevel::Dram), "DRAM", 4e12, p),
            ],
            ..Machine::default()
        }
    }

    #[test]
    fn a_square_gemm_is_bound_by_the_tensor_roof() {
        // 2·4096³ = 137.44 GFLOP at 1000 TFLOP/s = 137.4 µs; bytes 3·4096²·2 = 100.7 MB at 4 TB/s = 25.2 µs.
        let (_, e, b) = speed_of_light("gemm m=4096 n=4096 k=4096 bf16", &machine()).unwrap();
        assert_eq!(e.useful_flops(), 2.0 * 4096f64.powi(3));
        assert_eq!(e.bytes(), 3.0 * 4096.0 * 4096.0 * 2.0);
        assert_eq!(b.set_by, Resource::Compute(FlopKind::TensorBf16));
        assert!((b.time_s - 137.438953472e-6).abs() < 1e-12, "{}", b.time_s);
    }

    #[test]
    fn an_elementwise_add_is_bound_by_dram() {
        // 3 x 2^28 x 2 bytes = 1.61 GB at 4 TB/s = 402.7 µs.
        let (_, e, b) = speed_of_light("add n=268435456 bf16", &machine()).unwrap();
        assert_eq!(e.bytes(), 3.0 * 268435456.0 * 2.0);
        assert_eq!(b.set_by, Resource::Memory(MemLevel::Dram));
        assert!((b.time_s - 3.0 * 268435456.0 * 2.0 / 4e12).abs() < 1e-15);
    }

    #[test]
    fn causal_attention_halves_the_useful_work() {
        let (_, full, _) = speed_of_light("attention b=8 h=16 l=4096 e=128 bf16", &machine()).unwrap();
        let (_, causal, _) = speed_of_light("attention b=8 h=16 l=4096 e=128 bf16 causal", &machine()).unwrap();
        // 4·B·H·L²·E without a mask; L = 4096 is 32 whole tiles of 128.
        assert_eq!(full.issued_flops(), 4.0 * 8.0 * 16.0 * 4096f64.powi(2) * 128.0);
        assert_eq!(full.useful_flops(), full.issued_flops());
        // Causal: the 32·33/2 = 528 tiles on or below the diagonal of 32·32 run.
        assert_eq!(causal.issued_flops(), full.issued_flops() * 528.0 / 1024.0);
        // (L² - L(L-1)/2) / L² = (L+1)/(2L).
        let kept = 4097.0 / 8192.0;
        assert!((causal.useful_flops() / full.useful_flops() - kept).abs() < 1e-12);
    }

    #[test]
    fn padded_attention_issues_whole_tiles() {
        // ViT-B/16: L = S = 197 pads to 256 (two tiles): issued = 4·B·H·256²·E, useful 4·B·H·197²·E.
        let (_, e, _) = speed_of_light("attention b=64 h=12 l=197 e=64 fp16", &machine_fp16()).unwrap();
        assert_eq!(e.useful_flops(), 4.0 * 64.0 * 12.0 * 197.0 * 197.0 * 64.0);
        assert_eq!(e.issued_flops(), 4.0 * 64.0 * 12.0 * 256.0 * 256.0 * 64.0);
        // The backward pass: five matrix products to the forward's two.
        let (_, b, _) = speed_of_light("attention b=64 h=12 l=197 e=64 fp16 backward", &machine_fp16()).unwrap();
        assert_eq!(b.useful_flops(), 2.5 * e.useful_flops());
    }

    fn machine_fp16() -> Machine {
        let mut m = machine();
        let p = Provenance::new(Origin::Theoretical, "test");
        m.ceilings.push(Ceiling::new(Resource::Compute(FlopKind::TensorFp16), "FP16 tensor", 1e15, p));
        m
    }

    #[test]
    fn bad_specs_say_what_was_expected() {
        let e = parse_spec("gemm m=4096 n=4096 bf16").unwrap_err();
        assert!(e.contains("k= is missing"), "{e}");
        let e = parse_spec("frobnicate n=3").unwrap_err();
        assert!(e.contains("not an operation the catalogue knows"), "{e}");
        let e = speed_of_light("scaled_mm m=16 n=16 k=16", &machine()).unwrap_err();
        assert!(e.contains("no FP8 tensor roof"), "{e}");
    }
}
