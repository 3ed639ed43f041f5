//! A trace's kernels with their estimates, as a [`Capture`] the analysis
//! places like any other: FLOPs and DRAM bytes marked
//! [`Origin::Estimated`], durations from the trace.
//!
//! Each operator's [`Part`]s go to its kernels: a part with name hints to
//! the kernel whose name matches (a convolution's `dgrad` and `wgrad`, a
//! norm's input and weight gradients), the rest to the longest remaining
//! kernels; layout transforms and preprocessing kernels (`nchwToNhwc`,
//! attention's `dot_do_o`) are helpers whose work the estimate does not
//! split out. A kernel without an estimate keeps its time and is listed.

use std::collections::BTreeMap;

use roofline_model::{
    format_percent, format_seconds, Capture, CaptureSource, CapturedKernel, FlopKind, Kernel, MemLevel, Origin, Warning,
};

use crate::args::{Arg, Tensor};
use crate::catalogue::{estimate, Estimate, OpClass, Unaligned};
use crate::dtype::Dtype;
use crate::trace::Trace;

/// The estimate one launch got.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchEstimate {
    /// Its operator's family.
    pub class: OpClass,
    /// Its operator.
    pub op: String,
    /// The parts of the operator's work it does ("forward", "data gradient").
    pub parts: Vec<&'static str>,
    /// FLOP kind.
    pub kind: FlopKind,
    /// Useful FLOPs.
    pub useful_flops: f64,
    /// Issued FLOPs.
    pub issued_flops: f64,
    /// Compulsory DRAM bytes.
    pub bytes: f64,
    /// The written share of `bytes`; 0 when the estimate cannot tell
    /// outputs from inputs (an inductor kernel's arguments).
    pub written_bytes: f64,
    /// How the operator's kernels shared its work.
    pub mapping: Mapping,
    /// The formula with its numbers.
    pub formula: String,
    /// A GEMM cuBLAS runs as an unaligned fallback (its shapes say so).
    pub unaligned: Option<Unaligned>,
}

/// How an operator's work met its kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mapping {
    /// One kernel did the whole operator.
    OneKernel,
    /// The operator ran several kernels; this one did the parts named.
    SeveralKernels,
    /// The kernel fuses several operators (an inductor kernel whose name lists more than one).
    Fused,
}

/// One launch of the trace, with its estimate or why it has none.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// The kernel's name.
    pub name: String,
    /// Duration, seconds.
    pub duration_s: f64,
    /// Blocks in the grid.
    pub grid_blocks: Option<u64>,
    /// Threads per block.
    pub block_threads: Option<u64>,
    /// Its operator's name, when linked.
    pub op: Option<String>,
    /// The estimate, or why there is none.
    pub estimate: Result<LaunchEstimate, String>,
}

/// Launches without an estimate, grouped by operator and reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Unestimated {
    /// The operator ("aten::_foreach_mul_"), or "(no operator)".
    pub op: String,
    /// Why ("not in the catalogue", "tensor lists recorded without shapes").
    pub reason: String,
    /// Launches.
    pub launches: u64,
    /// Their GPU time, seconds.
    pub time_s: f64,
}

/// A trace read into a capture, with every launch's estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapesCapture {
    /// Kernels (aggregated by name) for the analysis.
    pub capture: Capture,
    /// Every launch in trace order.
    pub launches: Vec<Launch>,
    /// Launches without an estimate, most time first.
    pub unestimated: Vec<Unestimated>,
}

/// Kernels that move an operator's data around its main kernel (layout
/// transforms, workspace set-up, split-K and attention pre/post-processing).
const HELPERS: [&str; 10] = [
    "nchwtonhwc",
    "nhwctonchw",
    "compute_dot_do_o",
    "dot_do_o",
    "splitkreduce",
    "convert_",
    "reduce_wgrad",
    "init_device_workspace",
    "philox",
    "_helper",
];

fn is_helper(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    HELPERS.iter().any(|h| n.contains(h))
}

/// Tensor lists carry no dtypes in a trace: take them from the launching
/// kernel's template arguments (`CatArrayBatchedCopy<OpaqueType<2u>, ...>`
/// moves 2-byte elements, `multi_tensor_apply_kernel<..., c10::BFloat16>`),
/// FP32 when the name does not say.
fn with_list_dtypes(args: &[Arg], kernel: &str) -> Vec<Arg> {
    if !args.iter().any(|a| matches!(a, Arg::TensorList(l) if !l.is_empty())) {
        return args.to_vec();
    }
    let d = if kernel.contains("OpaqueType<2") {
        Dtype::Bf16
    } else if kernel.contains("OpaqueType<4") {
        Dtype::Fp32
    } else if kernel.contains("OpaqueType<8") {
        Dtype::Fp64
    } else if kernel.contains("OpaqueType<1") {
        Dtype::Int8
    } else if kernel.contains("BFloat16") || kernel.contains("bfloat16") {
        Dtype::Bf16
    } else if kernel.contains("c10::Half") || kernel.contains("__half") {
        Dtype::Fp16
    } else if kernel.contains("double") {
        Dtype::Fp64
    } else {
        Dtype::Fp32
    };
    args.iter()
        .map(|a| match a {
            Arg::TensorList(l) => Arg::TensorList(l.iter().map(|t| Tensor { dtype: d, ..t.clone() }).collect()),
            a => a.clone(),
        })
        .collect()
}

/// A layout transform an operator's kernels run (cuDNN's `nchwToNhwc` and
/// `nhwcToNchw`): it reads one tensor in one layout and writes it in the
/// other. Which tensor, its launch grid says: 32x32 tiles of a `[Z, C, HW]`
/// tensor, grid `(ceil(HW/32), ceil(C/32), Z)`; the operator's tensor of that
/// shape is the one moved.
struct Transform {
    bytes: f64,
    which: usize,
    dims: Vec<u64>,
}

impl Transform {
    fn on(&self, op: &str) -> LaunchEstimate {
        LaunchEstimate {
            class: OpClass::Copy,
            op: op.to_string(),
            parts: vec!["layout transform"],
            kind: roofline_model::FlopKind::Fp32,
            useful_flops: 0.0,
            issued_flops: 0.0,
            bytes: 2.0 * self.bytes,
            written_bytes: self.bytes,
            mapping: Mapping::SeveralKernels,
            formula: format!(
                "layout transform of input {} {:?} (matched by its launch grid): read once, written once",
                self.which, self.dims
            ),
            unaligned: None,
        }
    }
}

fn layout_transform(k: &crate::trace::TraceKernel, args: &[Arg]) -> Option<Transform> {
    let n = k.name.to_ascii_lowercase();
    if !(n.contains("nchwtonhwc") || n.contains("nhwctonchw")) {
        return None;
    }
    let [gx, gy, gz] = k.grid?;
    args.iter().enumerate().find_map(|(i, a)| {
        let t = a.tensor()?;
        if t.dims.len() < 3 {
            return None;
        }
        let hw: u64 = t.dims[2..].iter().product();
        let fits = t.dims[0] == gz && t.dims[1].div_ceil(32) == gy && hw.div_ceil(32) == gx;
        fits.then(|| Transform { bytes: t.numel() * t.dtype.size(), which: i, dims: t.dims.clone() })
    })
}

/// Splits an operator's estimate over its kernels (indices into `names`
/// with `durations`): for each kernel, the part indices it does.
fn assign(e: &Estimate, names: &[&str], durations: &[f64]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    let helpers: Vec<bool> = names.iter().map(|n| is_helper(n)).collect();
    let workers = helpers.iter().filter(|h| !**h).count();
    let eligible = |i: usize| workers == 0 || !helpers[i];
    let mut taken = vec![false; names.len()];
    let mut left = Vec::new();
    if e.parts.len() > 1 {
        for (p, part) in e.parts.iter().enumerate() {
            let hit = (0..names.len())
                .filter(|&i| {
                    !taken[i]
                        && eligible(i)
                        && part.hints.iter().any(|h| names[i].to_ascii_lowercase().contains(&h.to_ascii_lowercase()))
                })
                // The longest of the kernels that match: the one doing the work.
                .max_by(|&a, &b| durations[a].total_cmp(&durations[b]));
            match hit {
                Some(i) => {
                    taken[i] = true;
                    out[i].push(p);
                }
                None => left.push(p),
            }
        }
    } else {
        left.push(0);
    }
    let mut by_time: Vec<usize> = (0..names.len()).filter(|&i| !taken[i] && eligible(i)).collect();
    by_time.sort_by(|&a, &b| durations[b].total_cmp(&durations[a]));
    let mut next = by_time.into_iter();
    let mut last = out.iter().position(|p| !p.is_empty());
    for p in left {
        match next.next() {
            Some(i) => {
                out[i].push(p);
                last = Some(i);
            }
            // More parts than kernels: the last kernel does the rest too.
            None => {
                if let Some(i) = last.or((0..names.len()).find(|&i| eligible(i))) {
                    out[i].push(p);
                }
            }
        }
    }
    out
}

/// The capture of a trace, its kernels' FLOPs and bytes estimated from
/// their operators' shapes. `input` names the trace in warnings.
pub fn estimate_capture(trace: &Trace, input: &str) -> ShapesCapture {
    let mut launches: Vec<Launch> = trace
        .kernels
        .iter()
        .map(|k| Launch {
            name: k.name.clone(),
            duration_s: k.duration_s,
            grid_blocks: k.grid_blocks,
            block_threads: k.block_threads,
            op: k.op.map(|i| trace.ops[i].name.clone()),
            estimate: Err("no operator is linked to it (no External id or correlation)".into()),
        })
        .collect();
    // Launches per operator call, in order.
    let mut by_op: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, k) in trace.kernels.iter().enumerate() {
        if let Some(o) = k.op {
            by_op.entry(o).or_default().push(i);
        }
    }
    for (o, ks) in &by_op {
        let op = &trace.ops[*o];
        let args = with_list_dtypes(&op.args, &trace.kernels[ks[0]].name);
        match estimate(&op.name, &args) {
            Err(why) => {
                for &i in ks {
                    launches[i].estimate = Err(why.to_string());
                }
            }
            Ok(e) => {
                let names: Vec<&str> = ks.iter().map(|&i| trace.kernels[i].name.as_str()).collect();
                let durations: Vec<f64> = ks.iter().map(|&i| trace.kernels[i].duration_s).collect();
                let parts = assign(&e, &names, &durations);
                let worker = parts.iter().position(|p| !p.is_empty());
                for (j, &i) in ks.iter().enumerate() {
                    if parts[j].is_empty() {
                        if let Some(t) = layout_transform(&trace.kernels[i], &args) {
                            launches[i].estimate = Ok(t.on(&op.name));
                            continue;
                        }
                        let on = worker.map(|w| names[w]).unwrap_or("another kernel");
                        launches[i].estimate = Err(format!(
                            "helper kernel of {} (its work is counted on {})",
                            op.name,
                            roofline_model::display_name(on)
                        ));
                        continue;
                    }
                    let sel: Vec<_> = parts[j].iter().map(|&p| &e.parts[p]).collect();
                    let mapping = if e.fused.len() > 1 {
                        Mapping::Fused
                    } else if ks.len() == 1 {
                        Mapping::OneKernel
                    } else {
                        Mapping::SeveralKernels
                    };
                    launches[i].estimate = Ok(LaunchEstimate {
                        class: e.class,
                        op: op.name.clone(),
                        parts: sel.iter().map(|p| p.label).collect(),
                        kind: e.kind,
                        useful_flops: sel.iter().map(|p| p.useful_flops).sum(),
                        issued_flops: sel.iter().map(|p| p.issued_flops).sum(),
                        bytes: sel.iter().map(|p| p.bytes).sum(),
                        written_bytes: sel.iter().map(|p| p.written_bytes).sum(),
                        mapping,
                        formula: e.formula.clone(),
                        unaligned: e.unaligned,
                    });
                }
            }
        }
    }
    let capture = to_capture(&launches, input);
    let unestimated = unestimated(&launches);
    let mut sc = ShapesCapture { capture, launches, unestimated };
    sc.capture.warnings = warnings(&sc, trace, input);
    sc
}

/// Launches aggregated by kernel name (launches without an estimate apart,
/// so that an estimate never covers only part of a kernel's time).
fn to_capture(launches: &[Launch], input: &str) -> Capture {
    let mut order: Vec<(String, bool)> = Vec::new();
    let mut kernels: BTreeMap<(String, bool), Kernel> = BTreeMap::new();
    for l in launches {
        let estimated = l.estimate.is_ok();
        let key = (l.name.clone(), estimated);
        let k = kernels.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            let mut k = Kernel::named(&l.name, Origin::Estimated);
            k.display_name = roofline_model::display_name(&l.name);
            if !estimated {
                k.id = roofline_model::short_id(&format!("{} (no estimate)", l.name));
                k.display_name.push_str(" (no estimate)");
            }
            k.launches = 0;
            k.duration_s = Some(0.0);
            k
        });
        k.launches += 1;
        k.duration_s = Some(k.duration_s.unwrap_or(0.0) + l.duration_s);
        if let Ok(e) = &l.estimate {
            // Issued FLOPs: what the hardware ran, as counters would count it.
            if e.issued_flops > 0.0 {
                *k.flops.entry(e.kind).or_insert(0.0) += e.issued_flops;
            }
            *k.bytes.entry(MemLevel::Dram).or_insert(0.0) += e.bytes;
        }
    }
    let _ = input;
    Capture {
        source: CaptureSource {
            kind: "pytorch_trace".into(),
            byte_convention: Some("estimated from shapes: compulsory DRAM bytes".into()),
        },
        kernels: order
            .iter()
            .map(|key| {
                let mut kernel = kernels[key].clone();
                // A trace that gives no positive duration gives no time, not a zero one.
                kernel.duration_s = kernel.duration_s.filter(|d| *d > 0.0);
                CapturedKernel { kernel, roofs: None }
            })
            .collect(),
        roofs: None,
        warnings: Vec::new(),
        launches: launches.len() as u64,
    }
}

fn unestimated(launches: &[Launch]) -> Vec<Unestimated> {
    let mut groups: BTreeMap<(String, String), Unestimated> = BTreeMap::new();
    for l in launches {
        if let Err(why) = &l.estimate {
            let op = l.op.clone().unwrap_or_else(|| "(no operator)".into());
            // Helpers name their kernel; group them by operator alone.
            let reason = if why.starts_with("helper kernel") {
                "helper kernels (layout transforms, preprocessing)".to_string()
            } else {
                why.clone()
            };
            let g = groups.entry((op.clone(), reason.clone())).or_insert(Unestimated {
                op,
                reason,
                launches: 0,
                time_s: 0.0,
            });
            g.launches += 1;
            g.time_s += l.duration_s;
        }
    }
    let mut v: Vec<_> = groups.into_values().collect();
    v.sort_by(|a, b| b.time_s.total_cmp(&a.time_s));
    v
}

fn warnings(sc: &ShapesCapture, trace: &Trace, input: &str) -> Vec<Warning> {
    let total: f64 = sc.launches.iter().map(|l| l.duration_s).sum();
    let mut w = vec![Warning::Capture {
        message: format!(
            "{input}: FLOPs and bytes are estimated from the operators' recorded shapes, dtypes and strides, not counted (bytes: each input read and each output written once, at DRAM); durations are the trace's"
        ),
    }];
    let count = |m: Mapping| sc.launches.iter().filter(|l| l.estimate.as_ref().is_ok_and(|e| e.mapping == m)).count();
    let fused: Vec<String> = {
        let mut v: Vec<String> = sc
            .launches
            .iter()
            .filter_map(|l| l.estimate.as_ref().ok().filter(|e| e.mapping == Mapping::Fused).map(|e| e.op.clone()))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    w.push(Warning::Capture {
        message: format!(
            "{input}: how operators met kernels: {} launch(es) did a whole operator each; {} were one of several kernels of an operator (its parts placed by kernel name, the rest on its longest kernels); {} fused several operators each{}",
            count(Mapping::OneKernel),
            count(Mapping::SeveralKernels),
            count(Mapping::Fused),
            if fused.is_empty() { String::new() } else { format!(" ({} inductor kernels)", fused.len()) }
        ),
    });
    // Useful against issued FLOPs, per kernel name, where they differ.
    let mut differ: BTreeMap<String, (f64, f64, String)> = BTreeMap::new();
    for l in &sc.launches {
        if let Ok(e) = &l.estimate {
            if e.issued_flops > 0.0 && (e.issued_flops - e.useful_flops).abs() > 1e-9 * e.issued_flops {
                let d = differ.entry(roofline_model::display_name(&l.name)).or_insert((0.0, 0.0, e.op.clone()));
                d.0 += e.useful_flops;
                d.1 += e.issued_flops;
            }
        }
    }
    if !differ.is_empty() {
        let list: Vec<String> = differ
            .iter()
            .map(|(name, (useful, issued, op))| {
                format!(
                    "{name} ({op}): {} useful of {} issued ({})",
                    roofline_model::format_si(*useful, roofline_model::Unit::Flop),
                    roofline_model::format_si(*issued, roofline_model::Unit::Flop),
                    format_percent(100.0 * useful / issued)
                )
            })
            .collect();
        w.push(Warning::Capture {
            message: format!(
                "{input}: kernels are placed by their issued FLOPs; where a causal mask or padding to whole tiles makes the useful ones fewer: {}",
                list.join("; ")
            ),
        });
    }
    // GEMMs the shapes say run as unaligned fallbacks, per kernel name:
    // their place from DRAM bytes and FLOPs is not where they are.
    let mut unaligned: BTreeMap<(String, &str, u64, u64), (u64, f64)> = BTreeMap::new();
    for l in &sc.launches {
        if let Some(u) = l.estimate.as_ref().ok().and_then(|e| e.unaligned) {
            let key = (roofline_model::display_name(&l.name), u.operand, u.leading, u.multiple);
            let d = unaligned.entry(key).or_insert((0, 0.0));
            d.0 += 1;
            d.1 += l.duration_s;
        }
    }
    if !unaligned.is_empty() {
        let t: f64 = unaligned.values().map(|v| v.1).sum();
        let list: Vec<String> = unaligned
            .iter()
            .map(|((name, operand, leading, multiple), (n, time))| {
                format!(
                    "{name} x{n} ({}; operand {operand}'s leading dimension {leading}, not a multiple of {multiple})",
                    format_seconds(*time)
                )
            })
            .collect();
        w.push(Warning::Capture {
            message: format!(
                "{input}: {} of GPU time ({}) is GEMMs whose shapes put an operand's rows off the 16-byte grid: cuBLAS runs them as unaligned fallbacks held by their L1 load path, on or under the L1 diagonal (which, the shapes cannot say), not where their DRAM bytes and FLOPs place them: {}",
                format_seconds(t),
                format_percent(100.0 * t / total.max(f64::MIN_POSITIVE)),
                list.join("; ")
            ),
        });
    }
    if trace.unlinked > 0 {
        w.push(Warning::Capture {
            message: format!(
                "{input}: {} kernel launch(es) carry no link to an operator (no External id or correlation)",
                trace.unlinked
            ),
        });
    }
    if !sc.unestimated.is_empty() {
        let n: u64 = sc.unestimated.iter().map(|u| u.launches).sum();
        let t: f64 = sc.unestimated.iter().map(|u| u.time_s).sum();
        let list: Vec<String> = sc
            .unestimated
            .iter()
            .take(12)
            .map(|u| format!("{} x{} ({}, {})", u.op, u.launches, format_seconds(u.time_s), u.reason))
            .collect();
        let more = sc.unestimated.len().saturating_sub(12);
        w.push(Warning::Capture {
            message: format!(
                "{input}: {n} of {} launch(es) ({}, {} of GPU time) have no estimate and keep their time only: {}{}",
                sc.launches.len(),
                format_seconds(t),
                format_percent(100.0 * t / total.max(f64::MIN_POSITIVE)),
                list.join("; "),
                if more > 0 { format!("; and {more} more") } else { String::new() }
            ),
        });
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::read_trace;

    fn op(ext: i64, name: &str, dims: &str, types: &str, concrete: &str) -> String {
        format!(
            r#"{{"ph":"X","cat":"cpu_op","name":"{name}","pid":1,"tid":1,"ts":{ext},"dur":1,"args":{{"External id":{ext},"Input Dims":{dims},"Input type":{types},"Concrete Inputs":{concrete}}}}}"#
        )
    }

    fn kernel(ext: i64, name: &str, ts: f64, dur: f64) -> String {
        format!(
            r#"{{"ph":"X","cat":"kernel","name":"{name}","pid":0,"tid":7,"ts":{ts},"dur":{dur},"args":{{"External id":{ext}}}}}"#
        )
    }

    #[test]
    fn a_layout_transform_moves_the_tensor_its_grid_names() {
        // cudnn_convolution(x[8,4,10,10], w[16,4,3,3]): nchwToNhwc of x runs
        // 32x32 tiles of [Z=8, C=4, HW=100]: grid (4, 1, 8).
        let conv = op(
            1,
            "aten::cudnn_convolution",
            "[[8,4,10,10],[16,4,3,3],[],[],[],[]]",
            r#"["c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","Scalar"]"#,
            r#"["","","[1, 1]","[1, 1]","[1, 1]","1"]"#,
        );
        let transform = r#"{"ph":"X","cat":"kernel","name":"void cudnn::engines_precompiled::nchwToNhwcKernel<__nv_bfloat16>","pid":0,"tid":7,"ts":5,"dur":1,"args":{"External id":1,"grid":[4,1,8],"block":[256,1,1]}}"#;
        let text =
            format!(r#"{{"traceEvents":[{conv},{transform},{}]}}"#, kernel(1, "sm90_xmma_fprop_kernel", 6.0, 3.0));
        let sc = estimate_capture(&read_trace(text.as_bytes(), "t.json").unwrap(), "t.json");
        let t = sc.launches[0].estimate.as_ref().unwrap();
        assert_eq!((t.class, t.parts.as_slice()), (OpClass::Copy, &["layout transform"][..]));
        // x: 8·4·100 elements of 2 bytes, read and written.
        assert_eq!((t.bytes, t.written_bytes), (12_800.0, 6_400.0));
        assert_eq!(sc.launches[1].estimate.as_ref().unwrap().parts, vec!["forward"]);
    }

    #[test]
    fn parts_go_to_the_kernels_that_do_them_and_helpers_are_listed() {
        let events = [
            op(1, "aten::mm", "[[128,64],[64,32]]", r#"["c10::BFloat16","c10::BFloat16"]"#, r#"["",""]"#),
            kernel(1, "nvjet_gemm", 10.0, 5.0),
            op(
                2,
                "aten::convolution_backward",
                "[[8,16,10,10],[8,4,10,10],[16,4,3,3],[],[],[],[],[],[],[],[]]",
                r#"["c10::BFloat16","c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar","ScalarList"]"#,
                r#"["","","","[0]","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1","[True, True, False]"]"#,
            ),
            kernel(2, "nchwToNhwcKernel", 20.0, 1.0),
            kernel(2, "sm90_xmma_wgrad_kernel", 21.0, 3.0),
            kernel(2, "sm90_xmma_dgrad_kernel", 25.0, 2.0),
            op(3, "aten::_foreach_mul_", "[[],[]]", r#"["TensorList","Scalar"]"#, r#"["","0.9"]"#),
            kernel(3, "multi_tensor_apply_kernel", 30.0, 4.0),
        ];
        let text = format!(r#"{{"traceEvents":[{}]}}"#, events.join(","));
        let t = read_trace(text.as_bytes(), "t.json").unwrap();
        let sc = estimate_capture(&t, "t.json");
        let l = &sc.launches;
        let mm = l[0].estimate.as_ref().unwrap();
        assert_eq!(mm.useful_flops, 2.0 * 128.0 * 64.0 * 32.0);
        assert_eq!(mm.mapping, Mapping::OneKernel);
        assert!(l[1].estimate.as_ref().unwrap_err().starts_with("helper kernel of aten::convolution_backward"));
        // 2·N·K·∏out·C·∏kernel = 2·8·16·100·4·9 per gradient.
        let per = 2.0 * 8.0 * 16.0 * 100.0 * 4.0 * 9.0;
        let wgrad = l[2].estimate.as_ref().unwrap();
        assert_eq!((wgrad.parts.as_slice(), wgrad.useful_flops), (&["weight gradient"][..], per));
        assert_eq!(wgrad.mapping, Mapping::SeveralKernels);
        let dgrad = l[3].estimate.as_ref().unwrap();
        assert_eq!(dgrad.parts, vec!["data gradient"]);
        assert!(l[4].estimate.as_ref().unwrap_err().contains("without shapes"));
        // The unestimated launches keep their time, listed by operator.
        assert_eq!(sc.unestimated.len(), 2);
        assert_eq!(sc.unestimated[0].op, "aten::_foreach_mul_");
        assert!((sc.unestimated[0].time_s - 4e-6).abs() < 1e-12);
        let total: f64 = sc.capture.kernels.iter().filter_map(|k| k.kernel.duration_s).sum();
        assert!((total - 15e-6).abs() < 1e-12);
        assert!(sc.capture.kernels.iter().all(|k| k.kernel.origin == Origin::Estimated));
        assert!(sc.capture.warnings.iter().any(|w| w.to_string().contains("have no estimate")));
        let how = sc
            .capture
            .warnings
            .iter()
            .map(|w| w.to_string())
            .find(|w| w.contains("how operators met kernels"))
            .unwrap();
        assert!(how.contains("1 launch(es) did a whole operator each; 2 were one of several kernels"), "{how}");
        // n = 32 is on the 16-byte grid: no fallback is claimed.
        assert!(!sc.capture.warnings.iter().any(|w| w.to_string().contains("unaligned fallbacks")));
    }

    #[test]
    fn a_gemm_off_the_sixteen_byte_grid_is_named_in_the_warnings() {
        // A vocabulary of 50257 (not a multiple of 8 at bf16): B's rows (and C's).
        let events = [
            op(1, "aten::mm", "[[64,768],[768,50257]]", r#"["c10::BFloat16","c10::BFloat16"]"#, r#"["",""]"#),
            kernel(1, "cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1", 10.0, 30.0),
        ];
        let text = format!(r#"{{"traceEvents":[{}]}}"#, events.join(","));
        let t = read_trace(text.as_bytes(), "t.json").unwrap();
        let sc = estimate_capture(&t, "t.json");
        let u = sc.launches[0].estimate.as_ref().unwrap().unaligned.unwrap();
        assert_eq!((u.operand, u.leading, u.multiple), ("B", 50257, 8));
        let w = sc.capture.warnings.iter().map(|w| w.to_string()).find(|w| w.contains("unaligned fallbacks")).unwrap();
        assert!(w.contains("on or under the L1 diagonal") && w.contains("leading dimension 50257"), "{w}");
    }
}
