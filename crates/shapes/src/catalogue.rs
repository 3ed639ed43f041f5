//! The catalogue: FLOPs and bytes of an operator from its inputs' shapes,
//! dtypes and strides.
//!
//! Conventions: a multiply-add is two FLOPs; bytes are the compulsory
//! traffic to DRAM, every input read once and every output written once, at
//! its footprint (a broadcast or strided view counts the memory its strides
//! span, not its element count). `s` is an element's size in bytes.
//!
//! | family | operators | FLOPs | bytes |
//! |---|---|---|---|
//! | matrix product | `mm`, `addmm`, `bmm`, `baddbmm`, `linear`, `matmul`, `_scaled_mm` (FP8), `_int_mm` (INT8), `_addmm_activation` | 2·b·m·n·k on the inputs' tensor kind (FP32 on the CUDA cores) | A + B (+ C) + m·n·s |
//! | convolution | `convolution`, `_convolution`, `conv1d/2d/3d`, `cudnn_convolution`, `convolution_backward` | 2·N·K·∏out·(C/g)·∏kernel per pass; backward: data and weight passes as the output mask asks | input + weight + output per pass (backward: grad_out + weight + grad_in; grad_out + input + grad_weight) |
//! | attention | `scaled_dot_product_attention`, `_scaled_dot_product_{flash,efficient,cudnn}_attention[_backward]`, `_flash_attention_*`, `_efficient_attention_*`, `_cudnn_attention_*` | forward 2·B·H·L·S·(E+Ev) issued; backward 2.5x; causal: useful = issued x (L·S − L(L−1)/2)/(L·S) | q + k + v + out (+ logsumexp); backward q, k, v, out, dout read, dq, dk, dv written |
//! | normalisation | `native_layer_norm`, `layer_norm`, `rms_norm`, `_fused_rms_norm`, `native_batch_norm`, `_native_batch_norm_legit*`, `cudnn_batch_norm`, `native_group_norm`, and their backward | 8 per element forward, 12 backward (FP32) | x read, y written, per-feature weights, per-row statistics; batch norm in training reads x twice (statistics, then transform: two parts) |
//! | softmax, losses | `_softmax`, `_log_softmax`, their `_backward_data`, `nll_loss_forward/backward`, `nll_loss2d_*`, `cross_entropy_loss` | 4 per element (softmax), 1 per row (nll) | x + y (backward: grad + output + grad_in); nll reads one element per row and the targets |
//! | elementwise | unary (`relu`, `gelu`, `tanh`, `exp`, `sigmoid`, `silu`, ... and their `_backward`s), binary (`add`, `mul`, `div`, `sub`, `pow`, `where`, `threshold_backward`, comparisons), ternary (`addcmul`, `addcdiv`, `lerp`, `where`), `native_dropout[_backward]`, `fill_`, `zero_` | the op's FLOPs per output element (1 for a binary op, 2 for ternary ones, 0 for moves) | every tensor input at its footprint + output at the promoted dtype (in place: the first input is the output) |
//! | casts and copies | `copy_`, `_to_copy`, `clone`, `contiguous`, `to` | 0 | source read + destination written (the destination's dtype) |
//! | reductions | `sum`, `mean`, `amax`, `amin`, `max`, `min`, `prod`, `norm`, `var`, `std`, `argmax`, `argmin`, `logsumexp` | one per input element | input + output |
//! | embedding, indexing | `embedding`, `embedding_dense_backward`, `index_select`, `index`, `gather`, `scatter[_add]`, `index_add_`, `index_put_` | 0 (1 per element for scatter-adds) | indices + the rows or elements moved, read and written (dense backward also writes the whole table) |
//! | cat | `cat`, `stack` | 0 | 2 x the inputs |
//! | optimizer | `_foreach_*` (each list element as its elementwise op), `_fused_adam[w]_` (7 x params x s, 16 FLOPs per parameter), `_fused_sgd_` | as elementwise, summed over the lists | as elementwise, summed over the lists |
//! | inductor fusion | `triton_*` kernels | one per element of the largest tensor per fused arithmetic op the name lists | every tensor argument once |
//!
//! An operator with several kernels (split GEMMs, attention's preprocessing,
//! a convolution's layout transforms, a norm's two backward passes) gets its
//! [`Part`]s placed on the kernels whose names match, the rest on its longest
//! kernels; a kernel that fuses several operators (an inductor kernel) says
//! which ([`Estimate::fused`]).

use std::fmt;

use roofline_model::FlopKind;

use crate::args::{tensors, Arg, Tensor};
use crate::dtype::Dtype;

/// The family of an operator, for the per-class error figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpClass {
    /// GEMMs.
    Matmul,
    /// Convolutions, forward and backward.
    Convolution,
    /// Scaled dot-product attention.
    Attention,
    /// Layer, RMS, batch and group norm.
    Normalisation,
    /// Softmax, log-softmax and the losses on them.
    SoftmaxLoss,
    /// Elementwise arithmetic.
    Elementwise,
    /// Casts and copies.
    Copy,
    /// Reductions.
    Reduction,
    /// Embedding and indexing.
    Indexing,
    /// Concatenation.
    Cat,
    /// Optimizer steps (foreach and fused).
    Optimizer,
    /// A kernel that fuses several operators (TorchInductor).
    Fused,
    /// Pooling.
    Pooling,
}

impl OpClass {
    /// Its name in tables ("matmul").
    pub fn label(self) -> &'static str {
        match self {
            OpClass::Matmul => "matmul",
            OpClass::Convolution => "convolution",
            OpClass::Attention => "attention",
            OpClass::Normalisation => "normalisation",
            OpClass::SoftmaxLoss => "softmax/loss",
            OpClass::Elementwise => "elementwise",
            OpClass::Copy => "cast/copy",
            OpClass::Reduction => "reduction",
            OpClass::Indexing => "embedding/index",
            OpClass::Cat => "cat",
            OpClass::Optimizer => "optimizer",
            OpClass::Fused => "fused (inductor)",
            OpClass::Pooling => "pooling",
        }
    }
}

impl fmt::Display for OpClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One part of an operator's work, which one kernel does.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// What it is ("forward", "data gradient").
    pub label: &'static str,
    /// FLOPs that contribute to the result (causal masking removed).
    pub useful_flops: f64,
    /// FLOPs a kernel that computes every element issues.
    pub issued_flops: f64,
    /// Compulsory bytes, read and written.
    pub bytes: f64,
    /// The written share of [`Part::bytes`] (the outputs).
    pub written_bytes: f64,
    /// Substrings of the kernel name that do this part (case-insensitive).
    pub hints: &'static [&'static str],
}

impl Part {
    fn new(label: &'static str, flops: f64, bytes: f64) -> Part {
        Part { label, useful_flops: flops, issued_flops: flops, bytes, written_bytes: 0.0, hints: &[] }
    }

    fn writes(mut self, written: f64) -> Part {
        self.written_bytes = written;
        self
    }

    fn issues(mut self, issued: f64) -> Part {
        self.issued_flops = issued;
        self
    }

    fn hinted(mut self, hints: &'static [&'static str]) -> Part {
        self.hints = hints;
        self
    }
}

/// The work of one operator call.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// The operator ("aten::mm").
    pub op: String,
    /// Its family.
    pub class: OpClass,
    /// The kind of its FLOPs.
    pub kind: FlopKind,
    /// Its parts, one per kernel it is expected to run (at least one).
    pub parts: Vec<Part>,
    /// The formula with its numbers ("2·m·n·k, m=4096 n=768 k=3072").
    pub formula: String,
    /// The operators a fused kernel does (an inductor kernel's name).
    pub fused: Vec<String>,
    /// A matrix product whose operands cuBLAS cannot load in 16-byte
    /// vectors ([`Unaligned`]).
    pub unaligned: Option<Unaligned>,
}

/// A GEMM operand whose leading dimension is not a multiple of 16 bytes.
///
/// cuBLAS's fast kernels load their tiles with TMA (Hopper) or 16-byte
/// `cp.async`/`LDG.128`; both need every row of an operand to start on a
/// 16-byte boundary, so a leading dimension of a multiple of 8 elements at
/// 16 bits (4 at FP32, 16 at 8 bits). Otherwise cuBLAS falls back to a
/// kernel that loads as many elements per access as the dimension allows,
/// one for an odd one (`align1`), each through the L1 as its own access.
/// Such a kernel is held by its load path, not by DRAM (its tiles re-read
/// the operands from L2) nor by the tensor pipe: its position is on or under
/// the L1 diagonal. Whether on or under, the shapes cannot say: that is the
/// share of the L1's throughput the fallback's thread map reaches, which
/// differs by layout (the H200 fixtures' three `align1` kernels of one shape
/// ran at 96%, 69% and 68% of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unaligned {
    /// Which operand ("A", "B", "C").
    pub operand: &'static str,
    /// Its leading dimension, elements.
    pub leading: u64,
    /// The multiple a 16-byte row start needs, elements.
    pub multiple: u64,
}

impl Unaligned {
    /// Elements per 16 bytes at `dtype`.
    pub fn multiple_of(dtype: Dtype) -> u64 {
        (16.0 / dtype.size()).max(1.0) as u64
    }

    /// The first operand of `operands` whose leading dimension breaks the
    /// 16-byte rule.
    pub fn find(operands: &[(&'static str, u64, Dtype)]) -> Option<Unaligned> {
        operands.iter().find_map(|&(operand, leading, dtype)| {
            let multiple = Unaligned::multiple_of(dtype);
            (leading > 1 && leading % multiple != 0).then_some(Unaligned { operand, leading, multiple })
        })
    }
}

impl fmt::Display for Unaligned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "operand {}'s leading dimension {} is not a multiple of {} elements (16 bytes): cuBLAS runs an unaligned fallback, bound on its L1 load path",
            self.operand, self.leading, self.multiple
        )
    }
}

/// The leading dimension of a row-major matrix operand (its last two
/// dimensions): the larger of their strides when recorded (a transposed
/// view's is its first), else its last size.
fn leading_dim(t: &Tensor) -> u64 {
    let n = t.dims.len();
    if n < 2 {
        return t.dim(1);
    }
    if t.strides.len() == n {
        let (a, b) = (t.strides[n - 2].unsigned_abs(), t.strides[n - 1].unsigned_abs());
        // A size-1 dimension's stride says nothing.
        let a = if t.dims[n - 2] <= 1 { 0 } else { a };
        let b = if t.dims[n - 1] <= 1 { 0 } else { b };
        let ld = a.max(b);
        if ld > 0 {
            return ld;
        }
    }
    t.dims[n - 1]
}

impl Estimate {
    /// Useful FLOPs of all parts.
    pub fn useful_flops(&self) -> f64 {
        self.parts.iter().map(|p| p.useful_flops).sum()
    }

    /// Issued FLOPs of all parts.
    pub fn issued_flops(&self) -> f64 {
        self.parts.iter().map(|p| p.issued_flops).sum()
    }

    /// Bytes of all parts.
    pub fn bytes(&self) -> f64 {
        self.parts.iter().map(|p| p.bytes).sum()
    }

    /// Written bytes of all parts (the outputs).
    pub fn written_bytes(&self) -> f64 {
        self.parts.iter().map(|p| p.written_bytes).sum()
    }

    /// Sets the written share of a one-part estimate.
    fn writes(mut self, written: f64) -> Estimate {
        self.parts[0].written_bytes = written;
        self
    }

    fn one(op: &str, class: OpClass, kind: FlopKind, flops: f64, bytes: f64, formula: String) -> Estimate {
        Estimate {
            op: op.into(),
            class,
            kind,
            parts: vec![Part::new("whole", flops, bytes)],
            formula,
            fused: Vec::new(),
            unaligned: None,
        }
    }
}

/// Why an operator has no estimate.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NoEstimate {
    /// The catalogue has no formula for it.
    Unknown,
    /// The inputs it needs were not recorded (tensor lists without shapes,
    /// a missing dimension).
    Unrecorded(String),
}

impl fmt::Display for NoEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoEstimate::Unknown => f.write_str("not in the catalogue"),
            NoEstimate::Unrecorded(what) => write!(f, "{what}"),
        }
    }
}

fn t<'a>(args: &'a [Arg], i: usize, what: &str) -> Result<&'a Tensor, NoEstimate> {
    args.get(i)
        .and_then(Arg::tensor)
        .ok_or_else(|| NoEstimate::Unrecorded(format!("input {i} ({what}) is not a recorded tensor")))
}

fn opt_t(args: &[Arg], i: usize) -> Option<&Tensor> {
    args.get(i).and_then(Arg::tensor)
}

fn flag(args: &[Arg], i: usize) -> bool {
    args.get(i).and_then(Arg::flag).unwrap_or(false)
}

/// The estimate for operator `op` ("aten::mm" or "mm") called with `args`.
pub fn estimate(op: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let name = op.strip_prefix("aten::").unwrap_or(op);
    if name.starts_with("triton_") {
        return fused_inductor(op, name, args);
    }
    match name {
        "mm" | "matmul" | "bmm" | "addmm" | "baddbmm" | "linear" | "_scaled_mm" | "_int_mm" | "_addmm_activation"
        | "addbmm" => matmul(op, name, args),
        "convolution"
        | "_convolution"
        | "conv1d"
        | "conv2d"
        | "conv3d"
        | "cudnn_convolution"
        | "convolution_overrideable"
        | "_conv_depthwise2d"
        | "cudnn_convolution_relu" => conv_forward(op, name, args),
        "convolution_backward" | "convolution_backward_overrideable" => conv_backward(op, args),
        n if is_attention(n) => attention(op, n, args),
        "native_layer_norm" | "layer_norm" | "rms_norm" | "_fused_rms_norm" | "native_group_norm" | "group_norm" => {
            norm_forward(op, name, args)
        }
        "native_layer_norm_backward" | "_fused_rms_norm_backward" | "native_group_norm_backward" => {
            norm_backward(op, name, args)
        }
        "native_batch_norm"
        | "_native_batch_norm_legit"
        | "_native_batch_norm_legit_no_training"
        | "cudnn_batch_norm"
        | "batch_norm" => batch_norm(op, name, args),
        "native_batch_norm_backward" | "cudnn_batch_norm_backward" => batch_norm_backward(op, args),
        "_softmax" | "_log_softmax" | "softmax" | "log_softmax" => softmax(op, args, false),
        "_softmax_backward_data" | "_log_softmax_backward_data" => softmax(op, args, true),
        "nll_loss_forward" | "nll_loss2d_forward" | "nll_loss" => nll(op, args, false),
        "nll_loss_backward" | "nll_loss2d_backward" => nll(op, args, true),
        "cross_entropy_loss" => cross_entropy(op, args),
        "copy_" | "_to_copy" | "clone" | "contiguous" | "to" | "_copy_from" | "_copy_from_and_resize" => {
            copy(op, name, args)
        }
        "sum" | "mean" | "amax" | "amin" | "max" | "min" | "prod" | "norm" | "linalg_vector_norm" | "var" | "std"
        | "argmax" | "argmin" | "logsumexp" | "var_mean" | "std_mean" | "any" | "all" => reduction(op, args),
        "embedding" => embedding(op, args),
        "embedding_dense_backward" => embedding_backward(op, args),
        "index_select" | "index" | "gather" | "take_along_dim" => gather(op, name, args),
        "scatter" | "scatter_" | "scatter_add" | "scatter_add_" | "index_add_" | "index_add" | "index_put_"
        | "index_put" | "_index_put_impl_" | "scatter_reduce" | "scatter_reduce_" => scatter(op, name, args),
        "cat" | "stack" | "_cat" => cat(op, args),
        "max_pool2d_with_indices"
        | "max_pool2d"
        | "avg_pool2d"
        | "adaptive_avg_pool2d"
        | "_adaptive_avg_pool2d"
        | "max_pool2d_with_indices_backward"
        | "avg_pool2d_backward"
        | "_adaptive_avg_pool2d_backward" => pooling(op, args),
        "_fused_adam_" | "_fused_adamw_" | "_fused_adam" | "_fused_adamw" | "_fused_sgd_" | "_fused_sgd"
        | "_fused_adagrad_" => fused_optimizer(op, name, args),
        n if n.starts_with("_foreach_") => foreach(op, n, args),
        n => match elementwise_flops(n) {
            Some(f) => elementwise(op, n, args, f),
            None => Err(NoEstimate::Unknown),
        },
    }
}

// ---- matrix products ----------------------------------------------------

fn matmul(op: &str, name: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    // (batch, m, n, k), A, B, C (the added matrix), out dtype.
    let (a, b, c) = match name {
        "addmm" | "baddbmm" | "_addmm_activation" | "addbmm" => {
            (t(args, 1, "mat1")?, t(args, 2, "mat2")?, opt_t(args, 0))
        }
        "linear" => (t(args, 0, "input")?, t(args, 1, "weight")?, opt_t(args, 2)),
        _ => (t(args, 0, "self")?, t(args, 1, "mat2")?, None),
    };
    let (batch, m, k, n) = if name == "linear" {
        // y = x W^T: W is [n, k].
        let k = a.dim(1);
        (1.0, a.numel() / k.max(1) as f64, k as f64, b.dims.first().copied().unwrap_or(1) as f64)
    } else {
        let (m, k) = if a.dims.len() >= 2 { (a.dim(2), a.dim(1)) } else { (1, a.dim(1)) };
        let n = if b.dims.len() >= 2 { b.dim(1) } else { 1 };
        let batch_a: f64 = a.dims.iter().rev().skip(2).map(|&d| d as f64).product();
        let batch_b: f64 = b.dims.iter().rev().skip(2).map(|&d| d as f64).product();
        (batch_a.max(batch_b), m as f64, k as f64, n as f64)
    };
    let in_dtype = a.dtype;
    let out_dtype = match name {
        "_int_mm" => Dtype::Int32,
        "_scaled_mm" => Dtype::Bf16,
        _ => in_dtype,
    };
    let flops = 2.0 * batch * m * n * k;
    let out = batch * m * n * out_dtype.size();
    let scales: f64 =
        if name == "_scaled_mm" { tensors(&args[2.min(args.len())..]).iter().map(|t| t.bytes()).sum() } else { 0.0 };
    let bytes = a.bytes() + b.bytes() + c.map_or(0.0, Tensor::bytes) + out + scales;
    let kind = in_dtype.matmul_kind();
    let formula = format!(
        "2·b·m·n·k = 2·{batch}·{m}·{n}·{k} ({}); bytes = A + B{} + C",
        in_dtype.key(),
        if c.is_some() { " + bias" } else { "" }
    );
    let mut e = Estimate::one(op, OpClass::Matmul, kind, flops, bytes, formula).writes(out);
    // Matrix products only (a vector operand runs a GEMV); the output is
    // written contiguous, its leading dimension n.
    if a.dims.len() >= 2 && b.dims.len() >= 2 {
        e.unaligned = Unaligned::find(&[
            ("A", leading_dim(a), a.dtype),
            ("B", leading_dim(b), b.dtype),
            ("C", n as u64, out_dtype),
        ]);
        if let Some(u) = e.unaligned {
            e.formula = format!("{}; {u}", e.formula);
        }
    }
    Ok(e)
}

// ---- convolution --------------------------------------------------------

/// Stride, padding and dilation positions per operator signature.
fn conv_params(name: &str) -> (usize, usize, usize, Option<usize>) {
    match name {
        // cudnn_convolution(input, weight, padding, stride, dilation, groups, ...)
        "cudnn_convolution" | "cudnn_convolution_relu" => (3, 2, 4, Some(5)),
        // conv2d(input, weight, bias, stride, padding, dilation, groups)
        "conv1d" | "conv2d" | "conv3d" => (3, 4, 5, Some(6)),
        "_conv_depthwise2d" => (4, 5, 6, None),
        // convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
        _ => (3, 4, 5, Some(8)),
    }
}

struct ConvShape {
    n: f64,
    c: f64,
    k: f64,
    groups: f64,
    kernel: f64,
    out_spatial: f64,
}

impl ConvShape {
    fn flops(&self) -> f64 {
        2.0 * self.n * self.k * self.out_spatial * (self.c / self.groups) * self.kernel
    }

    /// The FLOPs a tensor-core kernel issues: cuDNN's implicit GEMMs load
    /// channels in 16-byte vectors, so input channels (per group) and
    /// output channels not a multiple of `multiple` (8 at 16 bits, 16 at 8
    /// bits; [`Unaligned::multiple_of`]) are padded up to it with zeros,
    /// and the padded products are issued. Grouped convolutions are left
    /// as they are (their kernels do not run one implicit GEMM).
    fn issued_flops(&self, multiple: Option<u64>) -> f64 {
        let Some(m) = multiple.filter(|_| self.groups == 1.0).map(|m| m as f64) else {
            return self.flops();
        };
        let up = |x: f64| (x / m).ceil() * m;
        2.0 * self.n * up(self.k) * self.out_spatial * up(self.c) * self.kernel
    }

    /// "; issued with channels padded to 8: C 3 -> 8" when they are.
    fn padding_note(&self, multiple: Option<u64>) -> String {
        if self.issued_flops(multiple) == self.flops() {
            return String::new();
        }
        let m = multiple.unwrap_or(1) as f64;
        let up = |x: f64| (x / m).ceil() * m;
        format!(
            "; issued with channels padded to a multiple of {m} (16-byte tensor-core rows): C {} -> {}, K {} -> {}",
            self.c,
            up(self.c),
            self.k,
            up(self.k)
        )
    }
}

/// The channel multiple a convolution of `dtype` on `kind` pads to: the
/// tensor cores' 16-byte rows; none on the CUDA cores.
fn channel_multiple(dtype: Dtype, kind: FlopKind) -> Option<u64> {
    kind.is_tensor().then(|| Unaligned::multiple_of(dtype))
}

fn conv_shape(input: &Tensor, weight: &Tensor, args: &[Arg], pos: (usize, usize, usize, Option<usize>)) -> ConvShape {
    let spatial = input.dims.len().saturating_sub(2);
    let list = |i: usize, default: i64| -> Vec<i64> {
        let v = args.get(i).and_then(Arg::ints).unwrap_or_default();
        (0..spatial).map(|d| if v.is_empty() { default } else { v[d.min(v.len() - 1)] }).collect()
    };
    let (stride, padding, dilation) = (list(pos.0, 1), list(pos.1, 0), list(pos.2, 1));
    let groups = pos.3.and_then(|g| args.get(g)).and_then(Arg::number).filter(|g| *g >= 1.0).unwrap_or(1.0);
    let mut out_spatial = 1.0;
    for d in 0..spatial {
        let h = input.dims[2 + d] as i64;
        let r = weight.dims.get(2 + d).copied().unwrap_or(1) as i64;
        let o = (h + 2 * padding[d] - dilation[d] * (r - 1) - 1) / stride[d].max(1) + 1;
        out_spatial *= o.max(0) as f64;
    }
    ConvShape {
        n: input.dims.first().copied().unwrap_or(1) as f64,
        c: input.dims.get(1).copied().unwrap_or(1) as f64,
        k: weight.dims.first().copied().unwrap_or(1) as f64,
        groups,
        kernel: weight.dims.iter().skip(2).map(|&d| d as f64).product(),
        out_spatial,
    }
}

fn conv_forward(op: &str, name: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let input = t(args, 0, "input")?;
    let weight = t(args, 1, "weight")?;
    let s = conv_shape(input, weight, args, conv_params(name));
    let out = s.n * s.k * s.out_spatial * input.dtype.size();
    let bias = if matches!(name, "cudnn_convolution" | "cudnn_convolution_relu") { None } else { opt_t(args, 2) };
    let bytes = input.bytes() + weight.bytes() + out + bias.map_or(0.0, Tensor::bytes);
    let formula = format!(
        "2·N·K·∏out·(C/g)·∏kernel = 2·{}·{}·{}·{}·{}; bytes = input + weight + output",
        s.n,
        s.k,
        s.out_spatial,
        s.c / s.groups,
        s.kernel
    );
    let kind = input.dtype.matmul_kind();
    let mut e = Estimate::one(op, OpClass::Convolution, kind, s.flops(), bytes, formula).writes(out);
    e.parts[0].issued_flops = s.issued_flops(channel_multiple(input.dtype, kind));
    e.formula.push_str(&s.padding_note(channel_multiple(input.dtype, kind)));
    e.parts[0].label = "forward";
    e.parts[0].hints = &["fprop", "conv", "gemm", "nvjet", "xmma", "cutlass"];
    Ok(e)
}

fn conv_backward(op: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    // convolution_backward(grad_output, input, weight, bias_sizes, stride,
    // padding, dilation, transposed, output_padding, groups, output_mask)
    let grad_out = t(args, 0, "grad_output")?;
    let input = t(args, 1, "input")?;
    let weight = t(args, 2, "weight")?;
    let s = conv_shape(input, weight, args, (4, 5, 6, Some(9)));
    let mask = args.get(10).and_then(Arg::ints).unwrap_or_else(|| vec![1, 1, 0]);
    let want = |i: usize| mask.get(i).copied().unwrap_or(0) != 0;
    let issued = s.issued_flops(channel_multiple(input.dtype, input.dtype.matmul_kind()));
    let mut parts = Vec::new();
    if want(0) {
        parts.push(
            Part::new(
                "data gradient",
                s.flops(),
                grad_out.bytes() + weight.bytes() + input.numel() * input.dtype.size(),
            )
            .writes(input.numel() * input.dtype.size())
            .issues(issued)
            .hinted(&["dgrad"]),
        );
    }
    if want(1) {
        parts.push(
            Part::new(
                "weight gradient",
                s.flops(),
                grad_out.bytes() + input.bytes() + weight.numel() * weight.dtype.size(),
            )
            .writes(weight.numel() * weight.dtype.size())
            .issues(issued)
            .hinted(&["wgrad"]),
        );
    }
    if want(2) {
        parts.push(
            Part::new("bias gradient", grad_out.numel(), grad_out.bytes() + s.k * grad_out.dtype.size())
                .writes(s.k * grad_out.dtype.size()),
        );
    }
    if parts.is_empty() {
        return Err(NoEstimate::Unrecorded("the output mask asks for no gradient".into()));
    }
    let formula = format!(
        "per gradient 2·N·K·∏out·(C/g)·∏kernel = 2·{}·{}·{}·{}·{}; {} pass(es)",
        s.n,
        s.k,
        s.out_spatial,
        s.c / s.groups,
        s.kernel,
        parts.len()
    ) + &s.padding_note(channel_multiple(input.dtype, input.dtype.matmul_kind()));
    Ok(Estimate {
        op: op.into(),
        class: OpClass::Convolution,
        kind: input.dtype.matmul_kind(),
        parts,
        formula,
        fused: Vec::new(),
        unaligned: None,
    })
}

// ---- attention ----------------------------------------------------------

fn is_attention(n: &str) -> bool {
    n == "scaled_dot_product_attention"
        || n.starts_with("_scaled_dot_product_")
        || n.starts_with("_flash_attention_")
        || n.starts_with("_efficient_attention_")
        || n.starts_with("_cudnn_attention_")
}

/// (first tensor index of q, causal flag index, layout B·L·H·E?, causal as mask type?)
fn attention_signature(n: &str) -> (usize, Option<usize>, bool, bool) {
    let backward = n.ends_with("_backward");
    match n {
        "scaled_dot_product_attention" => (0, Some(5), false, false),
        "_scaled_dot_product_flash_attention" | "_scaled_dot_product_flash_attention_for_cpu" => {
            (0, Some(4), false, false)
        }
        "_scaled_dot_product_efficient_attention" | "_scaled_dot_product_cudnn_attention" => (0, Some(6), false, false),
        "_scaled_dot_product_flash_attention_backward" | "_scaled_dot_product_efficient_attention_backward" => {
            (1, Some(11), false, false)
        }
        "_scaled_dot_product_cudnn_attention_backward" | "_cudnn_attention_backward" => (1, Some(14), false, false),
        "_cudnn_attention_forward" => (0, Some(10), false, false),
        "_flash_attention_forward" => (0, Some(8), true, false),
        "_flash_attention_backward" => (1, Some(11), true, false),
        "_efficient_attention_forward" => (0, Some(9), true, true),
        "_efficient_attention_backward" => (1, Some(14), true, true),
        _ => (usize::from(backward), None, false, false),
    }
}

/// The query and key tile of flash-style attention kernels (FlashAttention
/// 2/3, cuDNN's fused SDPA and PyTorch's efficient attention on sm80+ all
/// work in 64- or 128-row tiles; 128 x 128 on Hopper).
pub const ATTENTION_TILE: f64 = 128.0;

/// The score tiles a tiled kernel computes: L and S padded to whole tiles,
/// and with a causal mask only the tiles that hold an unmasked score.
pub fn attention_tiles(l: f64, s: f64, causal: bool) -> f64 {
    let lt = (l / ATTENTION_TILE).ceil();
    let st = (s / ATTENTION_TILE).ceil();
    if !causal {
        return lt * st;
    }
    // Query tile i holds queries i·T..(i+1)·T-1, which see keys up to (i+1)·T-1.
    (0..lt as u64).map(|i| ((i + 1) as f64).min(st)).sum()
}

fn attention(op: &str, n: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let backward = n.ends_with("_backward");
    let (qi, causal_at, blhe, mask_type) = attention_signature(n);
    let q = t(args, qi, "query")?;
    let k = t(args, qi + 1, "key")?;
    let v = t(args, qi + 2, "value")?;
    if q.dims.len() != 4 || k.dims.len() != 4 || v.dims.len() != 4 {
        return Err(NoEstimate::Unrecorded("query, key and value are not 4-D".into()));
    }
    let (b, h, l, e) =
        if blhe { (q.dims[0], q.dims[2], q.dims[1], q.dims[3]) } else { (q.dims[0], q.dims[1], q.dims[2], q.dims[3]) };
    let s = if blhe { k.dims[1] } else { k.dims[2] };
    let ev = v.dims[3];
    let causal = causal_at.is_some_and(|i| match mask_type {
        true => args.get(i).and_then(Arg::number).is_some_and(|m| m >= 1.0),
        false => flag(args, i),
    });
    let (b, h, l, s, e, ev) = (b as f64, h as f64, l as f64, s as f64, e as f64, ev as f64);
    let pass = if backward { 2.5 } else { 1.0 };
    // Causal, aligned to the top left: query i sees keys 0..=i (when S >= L).
    let kept = if causal { (l * s - l * (l - 1.0) / 2.0).max(0.0) / (l * s) } else { 1.0 };
    let useful = pass * 2.0 * b * h * l * s * (e + ev) * kept;
    let tiles = attention_tiles(l, s, causal);
    let issued = pass * 2.0 * b * h * ATTENTION_TILE * ATTENTION_TILE * tiles * (e + ev);
    let lse = b * h * l * 4.0;
    let out = b * h * l * ev * q.dtype.size();
    let bytes = if backward {
        // grad_out, q, k, v, out, logsumexp read; dq, dk, dv written.
        let grad_out = t(args, 0, "grad_out")?;
        let grads = (q.numel() + k.numel() + v.numel()) * q.dtype.size();
        grad_out.bytes() + q.bytes() + k.bytes() + v.bytes() + out + lse + grads
    } else {
        q.bytes() + k.bytes() + v.bytes() + out + lse
    };
    let written = if backward { (q.numel() + k.numel() + v.numel()) * q.dtype.size() } else { out + lse };
    let part = Part {
        label: if backward { "backward" } else { "forward" },
        useful_flops: useful,
        issued_flops: issued,
        bytes,
        written_bytes: written,
        hints: if backward {
            &["bprop", "bwd", "backward", "dq", "dkdv"]
        } else {
            &["fprop", "fwd", "forward", "flash", "attention", "sdpa"]
        },
    };
    let formula = format!(
        "useful {}2·B·H·L·S·(E+Ev) = {}2·{b}·{h}·{l}·{s}·({e}+{ev}){}; issued: {tiles} tiles of {ATTENTION_TILE}x{ATTENTION_TILE} (L and S padded to the tile{})",
        if backward { "2.5·" } else { "" },
        if backward { "2.5·" } else { "" },
        if causal { format!(" x {kept:.4} (causal: the scores above the diagonal are masked)") } else { String::new() },
        if causal { ", only the tiles on or below the diagonal" } else { "" }
    );
    Ok(Estimate {
        op: op.into(),
        class: OpClass::Attention,
        kind: q.dtype.matmul_kind(),
        parts: vec![part],
        formula,
        fused: Vec::new(),
        unaligned: None,
    })
}

// ---- normalisation ------------------------------------------------------

const NORM_FWD_FLOPS: f64 = 8.0;
const NORM_BWD_FLOPS: f64 = 12.0;

fn norm_forward(op: &str, name: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let x = t(args, 0, "input")?;
    let (w, bias, rows) = match name {
        // native_group_norm(input, weight, bias, N, C, HxW, group, eps)
        "native_group_norm" | "group_norm" => {
            let groups = args.get(if name == "group_norm" { 1 } else { 6 }).and_then(Arg::number).unwrap_or(1.0);
            let (w, b) =
                if name == "group_norm" { (opt_t(args, 2), opt_t(args, 3)) } else { (opt_t(args, 1), opt_t(args, 2)) };
            (w, b, x.dims.first().copied().unwrap_or(1) as f64 * groups)
        }
        // native_layer_norm(input, normalized_shape, weight, bias, eps); rms_norm(input, normalized_shape, weight, eps)
        _ => {
            let shape = args.get(1).and_then(Arg::ints).unwrap_or_default();
            let inner: f64 = shape.iter().map(|&d| d.max(1) as f64).product::<f64>().max(1.0);
            (opt_t(args, 2), if name.contains("rms") { None } else { opt_t(args, 3) }, x.numel() / inner)
        }
    };
    let stats = if name == "layer_norm" || name == "rms_norm" || name == "group_norm" { 0.0 } else { 2.0 * rows * 4.0 };
    let bytes = 2.0 * x.bytes() + w.map_or(0.0, Tensor::bytes) + bias.map_or(0.0, Tensor::bytes) + stats;
    let formula = format!(
        "{NORM_FWD_FLOPS}·elements = {NORM_FWD_FLOPS}·{}; bytes = x + y + weights + statistics of {rows} rows",
        x.numel()
    );
    let mut e =
        Estimate::one(op, OpClass::Normalisation, x.dtype.vector_kind(), NORM_FWD_FLOPS * x.numel(), bytes, formula)
            .writes(x.numel() * x.dtype.size() + stats / 2.0);
    e.parts[0].label = "forward";
    Ok(e)
}

fn norm_backward(op: &str, name: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    // native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
    // native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask)
    let grad = t(args, 0, "grad_out")?;
    let x = t(args, 1, "input")?;
    let (mean, rstd, w) = if name == "native_group_norm_backward" {
        (opt_t(args, 2), opt_t(args, 3), opt_t(args, 4))
    } else {
        (opt_t(args, 3), opt_t(args, 4), opt_t(args, 5))
    };
    let stats = mean.map_or(0.0, Tensor::bytes) + rstd.map_or(0.0, Tensor::bytes);
    let wb = w.map_or(0.0, Tensor::bytes);
    let mask_at = if name == "native_group_norm_backward" { 9 } else { 7 };
    let mask = args.get(mask_at).and_then(Arg::ints).unwrap_or_else(|| vec![1, 1, 1]);
    let mut parts = vec![Part::new(
        "input gradient",
        NORM_BWD_FLOPS * x.numel(),
        grad.bytes() + x.bytes() + stats + wb + x.numel() * x.dtype.size(),
    )
    .writes(x.numel() * x.dtype.size())
    .hinted(&["grad_input", "backward_input", "cuComputeGradInput", "compute_internal_gradients"])];
    if mask.get(1).copied().unwrap_or(0) != 0 || mask.get(2).copied().unwrap_or(0) != 0 {
        let wgrads = 2.0 * wb;
        parts.push(
            Part::new("weight gradients", 4.0 * x.numel(), grad.bytes() + x.bytes() + stats + wgrads)
                .writes(wgrads)
                .hinted(&["gammabeta", "gamma_beta", "cuComputePartGradGammaBeta", "weight"]),
        );
    }
    let formula =
        format!("{NORM_BWD_FLOPS}·elements (input gradient) + 4·elements (weights), elements = {}", x.numel());
    Ok(Estimate {
        op: op.into(),
        class: OpClass::Normalisation,
        kind: x.dtype.vector_kind(),
        parts,
        formula,
        fused: Vec::new(),
        unaligned: None,
    })
}

fn batch_norm(op: &str, name: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    // native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
    let x = t(args, 0, "input")?;
    let params: f64 = (1..5).filter_map(|i| opt_t(args, i)).map(Tensor::bytes).sum();
    let training = match name {
        "_native_batch_norm_legit_no_training" => false,
        "_native_batch_norm_legit" => flag(args, 5),
        "batch_norm" => flag(args, 5),
        _ => flag(args, 5),
    };
    let c = x.dims.get(1).copied().unwrap_or(1) as f64;
    let out = x.numel() * x.dtype.size();
    let transform = Part::new("transform", 4.0 * x.numel(), x.bytes() + out + params)
        .writes(out)
        .hinted(&["transform_input", "transform"]);
    let parts = if training {
        vec![
            // Mean and inverse deviation per channel, FP32.
            Part::new("statistics", 4.0 * x.numel(), x.bytes() + 2.0 * c * 4.0)
                .writes(2.0 * c * 4.0)
                .hinted(&["collect_statistics", "reduce_statistics"]),
            // Running mean and variance: read, updated, written.
            Part::new("running statistics", 6.0 * c, 6.0 * c * 4.0)
                .writes(2.0 * c * 4.0)
                .hinted(&["multi_output", "elementwise"]),
            transform,
        ]
    } else {
        vec![transform]
    };
    let formula = format!(
        "{}elements = {}; bytes: {}x + y",
        if training { "statistics 4·elements + transform 4·" } else { "4·" },
        x.numel(),
        if training { "x (statistics) + " } else { "" }
    );
    Ok(Estimate {
        op: op.into(),
        class: OpClass::Normalisation,
        kind: x.dtype.vector_kind(),
        parts,
        formula,
        fused: Vec::new(),
        unaligned: None,
    })
}

fn batch_norm_backward(op: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    // native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, output_mask)
    let grad = t(args, 0, "grad_out")?;
    let x = t(args, 1, "input")?;
    let params: f64 = (2..7).filter_map(|i| opt_t(args, i)).map(Tensor::bytes).sum();
    let bytes = grad.bytes() + x.bytes() + x.numel() * x.dtype.size() + params;
    let formula = format!("{NORM_BWD_FLOPS}·elements = {NORM_BWD_FLOPS}·{}; bytes = grad_out + x + grad_in", x.numel());
    let mut e =
        Estimate::one(op, OpClass::Normalisation, x.dtype.vector_kind(), NORM_BWD_FLOPS * x.numel(), bytes, formula)
            .writes(x.numel() * x.dtype.size());
    e.parts[0].label = "backward";
    Ok(e)
}

// ---- softmax and losses -------------------------------------------------

fn softmax(op: &str, args: &[Arg], backward: bool) -> Result<Estimate, NoEstimate> {
    let x = t(args, 0, if backward { "grad_output" } else { "input" })?;
    let (reads, flops) = if backward {
        let y = t(args, 1, "output")?;
        (x.bytes() + y.bytes(), 3.0 * x.numel())
    } else {
        (x.bytes(), 4.0 * x.numel())
    };
    let half_to_float = !backward && flag(args, 2);
    let out_size = if half_to_float { 4.0 } else { x.dtype.size() };
    let written = x.numel() * out_size;
    let bytes = reads + written;
    let formula = format!(
        "{}·elements = {}·{}; bytes = {} + output",
        if backward { 3 } else { 4 },
        if backward { 3 } else { 4 },
        x.numel(),
        if backward { "grad + output" } else { "input" }
    );
    Ok(Estimate::one(op, OpClass::SoftmaxLoss, x.dtype.vector_kind(), flops, bytes, formula).writes(written))
}

fn nll(op: &str, args: &[Arg], backward: bool) -> Result<Estimate, NoEstimate> {
    // nll_loss_forward(self, target, weight, reduction, ignore_index)
    // nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight)
    let (x, target) = if backward {
        (t(args, 1, "self")?, t(args, 2, "target")?)
    } else {
        (t(args, 0, "self")?, t(args, 1, "target")?)
    };
    let rows = target.numel();
    let bytes = target.bytes() + rows * x.dtype.size() + if backward { 0.0 } else { 2.0 * x.dtype.size() };
    let formula = format!("one element per row of {rows} rows; bytes = targets + the picked (or written) elements");
    let written = if backward { rows * x.dtype.size() } else { 2.0 * x.dtype.size() };
    Ok(Estimate::one(op, OpClass::SoftmaxLoss, x.dtype.vector_kind(), rows, bytes, formula).writes(written))
}

fn cross_entropy(op: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let x = t(args, 0, "input")?;
    let target = t(args, 1, "target")?;
    let bytes = 2.0 * x.bytes() + target.bytes();
    Ok(Estimate::one(
        op,
        OpClass::SoftmaxLoss,
        x.dtype.vector_kind(),
        5.0 * x.numel(),
        bytes,
        "log_softmax + nll: 5·elements; bytes = 2·input + targets".into(),
    )
    .writes(x.bytes()))
}

// ---- elementwise, casts, copies ------------------------------------------

/// FLOPs per output element of an elementwise operator (in-place forms and
/// `_backward` forms included); `None` when the name is not elementwise.
pub fn elementwise_flops(name: &str) -> Option<f64> {
    let base = name.trim_end_matches('_');
    Some(match base {
        "fill" | "zero" | "zeros_like" | "ones_like" | "full" | "empty" | "arange" | "masked_fill" | "where"
        | "_masked_scale" => {
            if base == "where" || base == "masked_fill" || base == "_masked_scale" {
                1.0
            } else {
                0.0
            }
        }
        "neg" | "abs" | "relu" | "clamp" | "clamp_min" | "clamp_max" | "threshold" | "sign" | "floor" | "ceil"
        | "round" | "trunc" | "exp" | "exp2" | "expm1" | "log" | "log2" | "log1p" | "log10" | "sqrt" | "rsqrt"
        | "reciprocal" | "sin" | "cos" | "tanh" | "sigmoid" | "erf" | "erfinv" | "bitwise_not" | "logical_not"
        | "square" | "hardtanh" | "leaky_relu" | "elu" | "nan_to_num" | "isnan" | "isinf" => 1.0,
        "gelu" | "silu" | "mish" | "softplus" | "hardswish" | "hardsigmoid" | "_log_sigmoid" => 4.0,
        "add"
        | "sub"
        | "rsub"
        | "mul"
        | "div"
        | "pow"
        | "maximum"
        | "minimum"
        | "fmod"
        | "remainder"
        | "eq"
        | "ne"
        | "lt"
        | "le"
        | "gt"
        | "ge"
        | "logical_and"
        | "logical_or"
        | "bitwise_and"
        | "bitwise_or"
        | "bitwise_xor"
        | "atan2"
        | "threshold_backward"
        | "tanh_backward"
        | "sigmoid_backward"
        | "hardtanh_backward"
        | "leaky_relu_backward"
        | "copysign"
        | "xlogy"
        | "floor_divide" => 1.0,
        "gelu_backward" | "silu_backward" | "mish_backward" | "softplus_backward" | "elu_backward"
        | "hardswish_backward" => 5.0,
        "addcmul" | "addcdiv" | "lerp" | "clamp_tensor" => 2.0,
        "native_dropout" | "dropout" | "native_dropout_backward" => 2.0,
        _ => return None,
    })
}

fn broadcast(shapes: &[&Tensor]) -> Vec<u64> {
    let rank = shapes.iter().map(|t| t.dims.len()).max().unwrap_or(0);
    (0..rank).map(|i| shapes.iter().map(|t| t.dim(rank - i)).filter(|&d| d != 1).max().unwrap_or(1)).collect()
}

fn elementwise(op: &str, name: &str, args: &[Arg], per_element: f64) -> Result<Estimate, NoEstimate> {
    let ins = tensors(args);
    if ins.is_empty() {
        return Err(NoEstimate::Unrecorded("no tensor input was recorded".into()));
    }
    let in_place = name.ends_with('_') && !name.starts_with('_') || name == "_masked_scale_";
    let base = name.trim_end_matches('_');
    let out_dims = broadcast(&ins);
    let out_numel: f64 = out_dims.iter().map(|&d| d as f64).product();
    let compare = matches!(
        base,
        "eq" | "ne" | "lt" | "le" | "gt" | "ge" | "isnan" | "isinf" | "logical_and" | "logical_or" | "logical_not"
    );
    let out_dtype = if compare {
        Dtype::Bool
    } else if in_place {
        ins[0].dtype
    } else {
        // A 0-dim tensor takes part in promotion like a scalar: not at all
        // when a dimensioned tensor is there (`x * torch.tensor(2.0, dtype=float64)` stays x's type).
        let dimensioned: Vec<&&Tensor> = ins.iter().filter(|t| !t.dims.is_empty()).collect();
        let pool: Vec<Dtype> = if dimensioned.is_empty() {
            ins.iter().map(|t| t.dtype).collect()
        } else {
            dimensioned.iter().map(|t| t.dtype).collect()
        };
        pool.into_iter().filter(|d| *d != Dtype::Bool).reduce(Dtype::promote).unwrap_or(ins[0].dtype)
    };
    let write_only = matches!(base, "fill" | "zero");
    let reads: f64 = if write_only { 0.0 } else { ins.iter().map(|t| t.bytes()).sum() };
    let mut writes = out_numel * out_dtype.size();
    if base == "native_dropout" {
        writes += out_numel; // the boolean mask
    }
    let bytes = reads + writes;
    let written = writes;
    let arity = ins.len();
    let class = OpClass::Elementwise;
    let formula = format!(
        "{per_element}·{out_numel} output elements; bytes = {} + output ({}){}",
        if write_only { "nothing read".to_string() } else { format!("{arity} input(s) at their footprint") },
        out_dtype.key(),
        if in_place { ", in place" } else { "" }
    );
    Ok(Estimate::one(op, class, out_dtype.vector_kind(), per_element * out_numel, bytes, formula).writes(written))
}

fn copy(op: &str, name: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let (src, dst_dtype) = match name {
        // copy_(self = destination, src, non_blocking)
        "copy_" | "_copy_from" | "_copy_from_and_resize" => {
            let (dst, src) = if name == "copy_" {
                (t(args, 0, "self")?, t(args, 1, "src")?)
            } else {
                (t(args, 1, "dst")?, t(args, 0, "self")?)
            };
            (src, dst.dtype)
        }
        _ => {
            let src = t(args, 0, "self")?;
            (src, dtype_arg(args).unwrap_or(src.dtype))
        }
    };
    let bytes = src.bytes() + src.numel() * dst_dtype.size();
    let formula =
        format!("0 FLOPs; bytes = source ({}, footprint) + destination ({})", src.dtype.key(), dst_dtype.key());
    Ok(Estimate::one(op, OpClass::Copy, src.dtype.vector_kind(), 0.0, bytes, formula)
        .writes(src.numel() * dst_dtype.size()))
}

/// A `dtype=` argument of `_to_copy`/`to`, recorded as a ScalarType code.
fn dtype_arg(args: &[Arg]) -> Option<Dtype> {
    let code = args.get(1).and_then(Arg::number)?;
    Some(match code as i64 {
        0 => Dtype::Int8,
        1 => Dtype::Int8,
        2 => Dtype::Int16,
        3 => Dtype::Int32,
        4 => Dtype::Int64,
        5 => Dtype::Fp16,
        6 => Dtype::Fp32,
        7 => Dtype::Fp64,
        11 => Dtype::Bool,
        15 => Dtype::Bf16,
        23 | 24 => Dtype::Fp8,
        _ => return None,
    })
}

// ---- reductions -----------------------------------------------------------

fn reduction(op: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let x = t(args, 0, "input")?;
    let dims = args.get(1).and_then(Arg::ints).unwrap_or_default();
    let rank = x.dims.len() as i64;
    let reduced: f64 = if dims.is_empty() {
        x.numel()
    } else {
        dims.iter()
            .map(|&d| {
                x.dims.get(((d % rank.max(1)) + rank.max(1)) as usize % x.dims.len().max(1)).copied().unwrap_or(1)
                    as f64
            })
            .product()
    };
    let out = (x.numel() / reduced.max(1.0)) * x.dtype.size();
    let bytes = x.bytes() + out;
    let formula = format!(
        "one per input element ({}); bytes = input + output ({} elements)",
        x.numel(),
        x.numel() / reduced.max(1.0)
    );
    Ok(Estimate::one(op, OpClass::Reduction, x.dtype.vector_kind(), x.numel(), bytes, formula).writes(out))
}

// ---- embedding, indexing --------------------------------------------------

fn embedding(op: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let w = t(args, 0, "weight")?;
    let idx = t(args, 1, "indices")?;
    let row = w.dim(1) as f64;
    let moved = idx.numel() * row * w.dtype.size();
    let formula = format!("0 FLOPs; bytes = indices + 2·{}·{row} elements (rows read, output written)", idx.numel());
    Ok(Estimate::one(op, OpClass::Indexing, w.dtype.vector_kind(), 0.0, idx.bytes() + 2.0 * moved, formula)
        .writes(moved))
}

fn embedding_backward(op: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    // embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    // the table is zeroed by a fill of its own (an operator of its own in
    // the trace); this operator sorts the indices and accumulates each
    // token's gradient row into the table's row (read, added, written).
    let grad = t(args, 0, "grad_output")?;
    let idx = t(args, 1, "indices")?;
    let rows = args.get(2).and_then(Arg::number).unwrap_or(f64::INFINITY);
    let d = grad.dim(1) as f64;
    let touched = idx.numel().min(rows) * d * grad.dtype.size();
    let formula = format!(
        "one add per gradient element ({}); bytes = grad + indices (sorted: read twice) + up to {} rows of {d} read and written",
        grad.numel(),
        idx.numel().min(rows)
    );
    Ok(Estimate::one(
        op,
        OpClass::Indexing,
        grad.dtype.vector_kind(),
        grad.numel(),
        grad.bytes() + 2.0 * idx.bytes() + 2.0 * touched,
        formula,
    )
    .writes(touched))
}

fn gather(op: &str, name: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let x = t(args, 0, "self")?;
    let (idx, out_numel) = match name {
        // gather(self, dim, index): out has index's shape.
        "gather" | "take_along_dim" => {
            let idx = args
                .iter()
                .skip(1)
                .find_map(Arg::tensor)
                .ok_or_else(|| NoEstimate::Unrecorded("no index tensor".into()))?;
            (idx.bytes(), idx.numel())
        }
        // index_select(self, dim, index): index's length rows of self.
        "index_select" => {
            let idx = t(args, 2, "index")?;
            let dim = args.get(1).and_then(Arg::number).unwrap_or(0.0) as usize;
            let sel = x.dims.get(dim).copied().unwrap_or(1).max(1) as f64;
            (idx.bytes(), x.numel() / sel * idx.numel())
        }
        // index(self, indices): the indices' elements times the rest of a row.
        _ => {
            let ids = tensors(&args[1.min(args.len())..]);
            let n: f64 = ids.first().map(|t| t.numel()).unwrap_or(1.0);
            let rest: f64 = x.dims.iter().skip(ids.len()).map(|&d| d as f64).product();
            (ids.iter().map(|t| t.bytes()).sum(), n * rest)
        }
    };
    let moved = out_numel * x.dtype.size();
    let formula = format!("0 FLOPs; bytes = indices + 2·{out_numel} elements (read, written)");
    Ok(Estimate::one(op, OpClass::Indexing, x.dtype.vector_kind(), 0.0, idx + 2.0 * moved, formula).writes(moved))
}

fn scatter(op: &str, name: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let x = t(args, 0, "self")?;
    let ins = tensors(&args[1.min(args.len())..]);
    let src = ins.iter().copied().max_by(|a, b| a.numel().total_cmp(&b.numel()));
    let n = src.map_or(0.0, |s| s.numel());
    let idx: f64 = ins.iter().filter(|t| matches!(t.dtype, Dtype::Int64 | Dtype::Int32)).map(|t| t.bytes()).sum();
    let add = name.contains("add") || name.contains("reduce") || name.contains("put");
    // Read the source elements, read-modify-write the destination's.
    let bytes = idx + n * x.dtype.size() * if add { 3.0 } else { 2.0 };
    let formula = format!(
        "{} FLOPs per element of {n}; bytes = indices + source + destination elements",
        if add { 1 } else { 0 }
    );
    Ok(Estimate::one(op, OpClass::Indexing, x.dtype.vector_kind(), if add { n } else { 0.0 }, bytes, formula)
        .writes(n * x.dtype.size()))
}

fn cat(op: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let ins = tensors(args);
    if ins.is_empty() {
        return Err(NoEstimate::Unrecorded("the tensor list was recorded without shapes".into()));
    }
    let read: f64 = ins.iter().map(|t| t.bytes()).sum();
    let out: f64 = ins.iter().map(|t| t.numel() * t.dtype.size()).sum();
    let formula = format!("0 FLOPs; bytes = {} inputs read + the output written", ins.len());
    Ok(Estimate::one(op, OpClass::Cat, ins[0].dtype.vector_kind(), 0.0, read + out, formula).writes(out))
}

fn pooling(op: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let ins = tensors(args);
    let first = ins.first().ok_or_else(|| NoEstimate::Unrecorded("no tensor input".into()))?;
    let backward = op.ends_with("_backward");
    // Forward: input read, output (with indices) written, output from the
    // kernel size and stride; backward: grad (and indices) read, grad_in written.
    let (bytes, written) = if backward {
        let grad_in = ins.get(1).map_or(0.0, |t| t.numel() * t.dtype.size());
        (ins.iter().map(|t| t.bytes()).sum::<f64>() - ins.get(1).map_or(0.0, |t| t.bytes()) + grad_in, grad_in)
    } else {
        let k = args.get(1).and_then(Arg::ints).unwrap_or_default();
        let s = args.get(2).and_then(Arg::ints).filter(|s| !s.is_empty()).unwrap_or_else(|| k.clone());
        let shrink: f64 = s.iter().map(|&x| x.max(1) as f64).product::<f64>().max(1.0);
        let out = first.numel() / shrink;
        let indices = if op.contains("with_indices") { out * 8.0 } else { 0.0 };
        (first.bytes() + out * first.dtype.size() + indices, out * first.dtype.size() + indices)
    };
    let formula = "one per input element; bytes = input + output (+ indices)".to_string();
    Ok(Estimate::one(op, OpClass::Pooling, first.dtype.vector_kind(), first.numel(), bytes, formula).writes(written))
}

// ---- optimizers -----------------------------------------------------------

fn foreach(op: &str, name: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let base = name.trim_start_matches("_foreach_");
    let per = elementwise_flops(base).ok_or(NoEstimate::Unknown)?;
    let lists: Vec<&Vec<Tensor>> =
        args.iter().filter_map(|a| if let Arg::TensorList(l) = a { Some(l) } else { None }).collect();
    let first = lists.first().ok_or_else(|| NoEstimate::Unrecorded("no tensor list".into()))?;
    if first.is_empty() {
        return Err(NoEstimate::Unrecorded("the tensor lists were recorded without shapes".into()));
    }
    let numel: f64 = first.iter().map(Tensor::numel).sum();
    let reads: f64 = lists.iter().flat_map(|l| l.iter()).map(Tensor::bytes).sum::<f64>()
        + tensors(args).len().saturating_sub(lists.iter().map(|l| l.len()).sum()) as f64 * 4.0;
    let writes: f64 = first.iter().map(|t| t.numel() * t.dtype.size()).sum();
    let formula =
        format!("{per}·{numel} elements over {} tensors; bytes = the lists read + the result written", first.len());
    Ok(Estimate::one(op, OpClass::Optimizer, first[0].dtype.vector_kind(), per * numel, reads + writes, formula)
        .writes(writes))
}

fn fused_optimizer(op: &str, name: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let params = match args.first() {
        Some(Arg::TensorList(l)) if !l.is_empty() => l,
        _ => return Err(NoEstimate::Unrecorded("the parameter list was recorded without shapes".into())),
    };
    let numel: f64 = params.iter().map(Tensor::numel).sum();
    let s = params[0].dtype.size();
    // Adam(W): p, g, m, v read, p, m, v written; SGD: p, g (and momentum) read, p (and momentum) written.
    let (moves, flops) = if name.contains("sgd") {
        (3.0, 2.0)
    } else if name.contains("adagrad") {
        (5.0, 6.0)
    } else {
        (7.0, 16.0)
    };
    let formula = format!("{flops}·{numel} parameters; bytes = {moves}·params·{s}");
    let written = if name.contains("sgd") { numel * s } else { 3.0 * numel * s };
    Ok(Estimate::one(op, OpClass::Optimizer, params[0].dtype.vector_kind(), flops * numel, moves * numel * s, formula)
        .writes(written))
}

// ---- inductor fusions -------------------------------------------------------

fn fused_inductor(op: &str, name: &str, args: &[Arg]) -> Result<Estimate, NoEstimate> {
    let ins = tensors(args);
    if ins.is_empty() {
        return Err(NoEstimate::Unrecorded("the kernel's tensor arguments were not recorded".into()));
    }
    // "triton_poi_fused__to_copy_add_native_layer_norm_7": the operators
    // between "fused_" and the trailing number.
    let body = name.split_once("fused_").map(|(_, b)| b).unwrap_or("");
    let body =
        body.rsplit_once('_').filter(|(_, n)| n.chars().all(|c| c.is_ascii_digit())).map(|(b, _)| b).unwrap_or(body);
    let fused = split_fused(body);
    let arithmetic =
        fused.iter().filter(|o| !matches!(o.as_str(), "_to_copy" | "clone" | "view" | "cat" | "copy")).count();
    let largest = ins.iter().map(|t| t.numel()).fold(0.0, f64::max);
    let bytes: f64 = ins.iter().map(|t| t.bytes()).sum();
    let formula = format!(
        "{arithmetic} fused arithmetic op(s) x {largest} elements; bytes = {} tensor arguments, each once",
        ins.len()
    );
    let dtype = ins.iter().map(|t| t.dtype).reduce(Dtype::promote).unwrap_or(Dtype::Fp32);
    let mut e = Estimate::one(op, OpClass::Fused, dtype.vector_kind(), arithmetic as f64 * largest, bytes, formula);
    e.fused = fused;
    Ok(e)
}

/// The aten names a fused kernel's name lists, longest match first.
fn split_fused(body: &str) -> Vec<String> {
    const KNOWN: [&str; 16] = [
        "native_layer_norm_backward",
        "native_layer_norm",
        "native_batch_norm_backward",
        "gelu_backward",
        "silu_backward",
        "threshold_backward",
        "_log_softmax",
        "_softmax",
        "_to_copy",
        "embedding",
        "addmm",
        "clone",
        "where",
        "relu",
        "gelu",
        "silu",
    ];
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        rest = rest.trim_start_matches('_');
        if rest.is_empty() {
            break;
        }
        // The aten name as it is spelt ("_to_copy"), matched without its
        // leading underscore (the separator ate it).
        if let Some(k) = KNOWN.iter().find(|k| rest.starts_with(k.trim_start_matches('_'))) {
            out.push(k.to_string());
            rest = &rest[k.trim_start_matches('_').len()..];
        } else {
            let (w, r) = rest.split_once('_').unwrap_or((rest, ""));
            out.push(w.to_string());
            rest = r;
        }
    }
    out
}
