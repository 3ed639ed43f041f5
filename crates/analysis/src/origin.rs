//! Where a kernel comes from, read off its name: a vendor library, a
//! framework's generated code or the user's own source.
//!
//! The advice a user can act on depends on it. Nobody edits a cuBLAS GEMM or
//! a cuDNN convolution: for those the moves are the shapes, dtypes, layouts
//! and library options the caller chooses, so the diagnosis must know the
//! origin before it advises. The patterns are the libraries' naming schemes
//! (cuBLAS's `nvjet`/`xmma`/`cutlass` GEMMs and their alignment tags, cuDNN's
//! engines and layout transposes, PyTorch's TensorIterator, foreach and norm
//! kernels, Triton's and XLA's generated names, CUB, cuFFT, cuSPARSE,
//! cuSOLVER, NCCL, CuPy's generated kernels), never one program's kernels.

use serde::{Deserialize, Serialize};

/// The library or code generator a kernel comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Library {
    /// cuBLAS / cuBLASLt (nvjet, xmma and CUTLASS GEMM kernels it ships).
    Cublas,
    /// cuDNN (convolution engines, its layout transposes, fused attention).
    Cudnn,
    /// CUTLASS compiled into the program (not through cuBLAS).
    Cutlass,
    /// FlashAttention's own kernels.
    FlashAttention,
    /// PyTorch's own CUDA kernels (TensorIterator, foreach, norms, ...).
    PyTorch,
    /// Kernels Triton generated (torch.compile's Inductor among others).
    Triton,
    /// XLA's fusions (JAX, TensorFlow).
    Xla,
    /// CUB or Thrust.
    Cub,
    /// cuFFT.
    Cufft,
    /// cuSPARSE.
    Cusparse,
    /// cuSOLVER.
    Cusolver,
    /// cuRAND's generators.
    Curand,
    /// NCCL collectives.
    Nccl,
    /// CuPy's generated elementwise and reduction kernels.
    Cupy,
    /// Nothing recognised: the user's own code, which the user can edit.
    User,
}

impl Library {
    /// The library's name as users know it.
    pub fn label(self) -> &'static str {
        match self {
            Library::Cublas => "cuBLAS",
            Library::Cudnn => "cuDNN",
            Library::Cutlass => "CUTLASS",
            Library::FlashAttention => "FlashAttention",
            Library::PyTorch => "PyTorch",
            Library::Triton => "Triton",
            Library::Xla => "XLA",
            Library::Cub => "CUB/Thrust",
            Library::Cufft => "cuFFT",
            Library::Cusparse => "cuSPARSE",
            Library::Cusolver => "cuSOLVER",
            Library::Curand => "cuRAND",
            Library::Nccl => "NCCL",
            Library::Cupy => "CuPy",
            Library::User => "user code",
        }
    }

    /// Whether the user cannot edit the kernel's source (a vendor library
    /// or generated code): its moves are the caller's choices.
    pub fn is_vendor(self) -> bool {
        self != Library::User
    }
}

/// What a kernel does, as far as its name says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A matrix product.
    Gemm,
    /// A convolution (forward, data or weight gradient).
    Convolution,
    /// Attention (fused scaled dot-product).
    Attention,
    /// A layout transpose (NCHW <-> NHWC) around a convolution.
    LayoutTranspose,
    /// A dtype conversion (autocast's casts among them).
    Cast,
    /// A plain copy (contiguous, strided).
    Copy,
    /// An activation (GELU, ReLU, SiLU, ...), which a GEMM epilogue can absorb.
    Activation,
    /// Other elementwise work (add, mul, where, ...).
    Elementwise,
    /// A foreach (multi-tensor) kernel: an optimizer's chain.
    Foreach,
    /// An already fused optimizer step.
    FusedOptimizer,
    /// Batch, layer, group or RMS normalisation.
    Norm,
    /// Softmax or log-softmax.
    Softmax,
    /// A reduction (sum, mean, max, norm).
    Reduction,
    /// A loss (cross-entropy, NLL).
    Loss,
    /// Gather, scatter, index, embedding, cat.
    Indexing,
    /// A sort, scan or histogram.
    Sort,
    /// A fast Fourier transform.
    Fft,
    /// Sparse linear algebra.
    Sparse,
    /// A dense solver or factorisation.
    Solver,
    /// A collective.
    Collective,
    /// A generated fusion of several operations.
    Fusion,
    /// Not known.
    Other,
}

impl Role {
    /// What the role is, in words.
    pub fn label(self) -> &'static str {
        match self {
            Role::Gemm => "GEMM",
            Role::Convolution => "convolution",
            Role::Attention => "attention",
            Role::LayoutTranspose => "layout transpose",
            Role::Cast => "dtype cast",
            Role::Copy => "copy",
            Role::Activation => "activation",
            Role::Elementwise => "elementwise",
            Role::Foreach => "foreach (optimizer) kernel",
            Role::FusedOptimizer => "fused optimizer",
            Role::Norm => "normalisation",
            Role::Softmax => "softmax",
            Role::Reduction => "reduction",
            Role::Loss => "loss",
            Role::Indexing => "indexing",
            Role::Sort => "sort/scan/histogram",
            Role::Fft => "FFT",
            Role::Sparse => "sparse",
            Role::Solver => "solver",
            Role::Collective => "collective",
            Role::Fusion => "fusion",
            Role::Other => "kernel",
        }
    }

    /// Elementwise work a fusion (torch.compile, an epilogue) would absorb.
    pub fn is_elementwise(self) -> bool {
        matches!(self, Role::Cast | Role::Copy | Role::Activation | Role::Elementwise)
    }
}

/// A kernel's origin: library, role, and for GEMMs whether cuBLAS fell back
/// to a kernel for unaligned shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The library or generator.
    pub library: Library,
    /// What the kernel does.
    pub role: Role,
    /// A GEMM or convolution kernel for operands aligned to fewer than 8
    /// elements (`align1`, `align2`, `align4` in 16-bit types): some
    /// dimension is not a multiple of 8.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unaligned: bool,
}

impl Origin {
    /// "cuBLAS GEMM", "PyTorch dtype cast".
    pub fn label(&self) -> String {
        format!("{} {}", self.library.label(), self.role.label())
    }
}

fn has(name: &str, parts: &[&str]) -> bool {
    parts.iter().any(|p| name.contains(p))
}

/// The bytes of one operand element of a GEMM or convolution kernel, from
/// its name: 16-bit types 2, FP64 (`dgemm`) 8, FP32/TF32 (`sgemm`,
/// `s1688gemm`, `tf32`) 4, else the 16-bit types of tensor-core kernels.
fn operand_bytes(lower: &str) -> u32 {
    if ["bf16", "bfloat16", "f16_", "h1688", "h16816", "fp16", "half"].iter().any(|t| lower.contains(t)) {
        2
    } else if ["dgemm", "d884", "f64f64"].iter().any(|t| lower.contains(t)) {
        8
    } else if ["sgemm", "s1688gemm", "tf32", "f32f32_f32f32"].iter().any(|t| lower.contains(t)) {
        4
    } else {
        2
    }
}

/// Whether a GEMM or convolution kernel's name says its operands are FP32
/// and its math is not TF32 (`sgemm`, `f32f32_f32f32` without `tf32`): the
/// kernels cuBLAS and cuDNN run on the CUDA cores (FFMA) when TF32 is off.
pub(crate) fn fp32_operands(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    operand_bytes(&lower) == 4 && !lower.contains("tf32") && !lower.contains("s1688") && !lower.contains("tensorop")
}

/// The alignment tag of a CUTLASS/cuBLAS kernel name ("..._align1"), in
/// elements: under 16 bytes of operands (8 16-bit or 4 32-bit elements)
/// means an unaligned dimension.
pub(crate) fn alignment(name: &str) -> Option<u32> {
    let at = name.find("align")?;
    let digits: String = name[at + 5..].chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// CuPy's selection kernels, which `cupy.partition` and `cupy.argpartition`
/// launch (`argpartition_kernel`, then a tree of `argpartition_merge_kernel`
/// launches): a bitonic select of fixed-size segments of each row, merged
/// pairwise.
pub(crate) fn cupy_selection(name: &str) -> bool {
    ["argpartition_", "partition_"].iter().any(|p| name.starts_with(p)) && name.ends_with("kernel")
}

/// The norms of `torch.nn.utils.clip_grad_norm_` on its foreach path
/// (`torch._foreach_norm`): the per-tensor norms (`LpNormFunctor`) and
/// their cleanup (`lpnorm_cleanup`). They run beside the optimizer's foreach
/// kernels but are not the optimizer's: a fused optimizer does not clip.
pub(crate) fn gradient_norm(name: &str) -> bool {
    name.contains("lpnorm_cleanup") || name.contains("multi_tensor_apply_kernel") && name.contains("LpNormFunctor")
}

/// A foreach kernel that scales a list of tensors by one device scalar
/// (`torch._foreach_mul_(grads, clip_coef)`, `BinaryOpScalarTensorFunctor`):
/// clipping's scale where the capture also has its norms.
pub(crate) fn scaled_by_device_scalar(name: &str) -> bool {
    name.contains("multi_tensor_apply_kernel") && name.contains("BinaryOpScalarTensorFunctor")
}

/// What a Triton kernel Inductor named `triton_{poi,per,red,tem}_fused_<ops>_<n>`
/// does: a template is a GEMM; a fusion of norms is a norm; a pointwise
/// fusion of activations (with at most the adds and multiplies around
/// them) is an activation a GEMM epilogue could absorb.
fn triton_role(n: &str) -> Role {
    if n.contains("_tem_") {
        return Role::Gemm;
    }
    let Some(ops) = n.split("_fused_").nth(1) else { return Role::Fusion };
    let ops = ops.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_');
    if ops.contains("_norm") {
        return Role::Norm;
    }
    let words: Vec<&str> = ops.split('_').filter(|w| !w.is_empty()).collect();
    let act = |w: &str| ["gelu", "relu", "silu", "sigmoid", "tanh", "erf"].contains(&w);
    // Views reshape without moving bytes: a fusion of them and an activation
    // is the activation.
    let view = |w: &str| ["view", "unsafe", "reshape", "squeeze", "unsqueeze", "expand"].contains(&w);
    if n.contains("triton_poi_")
        && words.iter().any(|w| act(w))
        && words.iter().all(|w| act(w) || view(w) || ["add", "mul", "to", "copy"].contains(w))
    {
        return Role::Activation;
    }
    // A clone, transpose or select of views (with a cast and a bias add at
    // most): a layout copy, as attention's q, k, v reorderings are.
    let layout = |w: &str| ["clone", "transpose", "permute", "select"].contains(&w);
    if n.contains("triton_poi_")
        && words.iter().any(|w| layout(w))
        && words.iter().all(|w| layout(w) || view(w) || ["to", "copy", "add"].contains(w))
    {
        return Role::Copy;
    }
    // `_to_copy` alone (with views or a transpose `t`): a dtype cast, as
    // eager's `bfloat16_copy` is.
    if n.contains("triton_poi_")
        && words.contains(&"to")
        && words.contains(&"copy")
        && words.iter().all(|w| view(w) || ["to", "copy", "t"].contains(w))
    {
        return Role::Cast;
    }
    Role::Fusion
}

/// The origin of a kernel from its (demangled) name.
///
/// Remembered per name on each thread: an import asks for each kernel's
/// origin several times (the fusion groups, the program view, the moves),
/// and finding it is dozens of substring searches on the lowered name (6%
/// of an import of 100k targeted launches). It is a function of the name
/// alone, so what is remembered is what would be found again.
pub fn origin(name: &str) -> Origin {
    use std::cell::RefCell;
    use std::collections::HashMap;
    /// Names remembered at most; past it the memory starts again.
    const REMEMBERED: usize = 1 << 16;
    thread_local! {
        static SEEN: RefCell<HashMap<Box<str>, Origin>> = RefCell::new(HashMap::new());
    }
    if let Some(o) = SEEN.with_borrow(|seen| seen.get(name).copied()) {
        return o;
    }
    let o = origin_of(name);
    SEEN.with_borrow_mut(|seen| {
        if seen.len() >= REMEMBERED {
            seen.clear();
        }
        seen.insert(name.into(), o);
    });
    o
}

/// [`origin`], found.
fn origin_of(name: &str) -> Origin {
    // A timeline (CUPTI) records names mangled, ncu prints them demangled:
    // the patterns are the demangled spellings (`at::native::`, `cunn_`).
    let demangled;
    let n = if name.trim_start().starts_with("_Z") {
        demangled = roofline_model::demangle(name);
        demangled.as_str()
    } else {
        name
    };
    let lower = n.to_ascii_lowercase();
    let of = |library, role| Origin { library, role, unaligned: false };
    // Collectives and solvers first: their names also hold "reduce", "copy".
    if has(n, &["ncclDevKernel", "ncclKernel", "nccl"]) {
        return of(Library::Nccl, Role::Collective);
    }
    // cuSOLVER's factorizations and their helpers (LAPACK names: sytrd for
    // eigh's tridiagonal reduction, lansy for its norm, xxtrf's info flags).
    if has(
        &lower,
        &[
            "cusolver",
            "potrf",
            "getrf",
            "geqrf",
            "syevd",
            "gesvd",
            "sytrd",
            "ormtr",
            "orgtr",
            "syevj",
            "stedc",
            "sterf",
            "larft",
            "larfb",
            "lansy",
            "laswp",
            "getrs",
            "potrs",
            "xxtrf",
            "ipiv_",
            "set_info_ker",
            "copy_info_kernel",
        ],
    ) {
        return of(Library::Cusolver, Role::Solver);
    }
    if lower.contains("curand") {
        return of(Library::Curand, Role::Other);
    }
    // cuBLAS's BLAS-3 kernels beyond GEMM, and cuBLASLt's matrix transform.
    if has(&lower, &["kernel_trsm", "trsm_", "syr2k", "syrk_", "region_transform"]) {
        let role = if lower.contains("region_transform") { Role::Other } else { Role::Gemm };
        return of(Library::Cublas, role);
    }
    // cuDNN's kernels that are not convolutions: batch norm, RNN cells.
    if n.contains("cudnn") && has(&lower, &["batchnorm", "bn_fw", "bn_bw"]) {
        return of(Library::Cudnn, Role::Norm);
    }
    if has(n, &["elemWiseRNN", "RNN_", "LSTM_", "GRU_", "cudnnRNN"]) {
        return of(Library::Cudnn, Role::Other);
    }
    // PyTorch's RNG seed unpacking for cuDNN (dropout, attention).
    if n.contains("philox::") {
        return of(Library::PyTorch, Role::Other);
    }
    if has(n, &["cusparse"]) {
        return of(Library::Cusparse, Role::Sparse);
    }
    if n.starts_with("triton_") || n.contains(" triton_") {
        return of(Library::Triton, triton_role(n));
    }
    if cupy_selection(n) {
        return of(Library::Cupy, Role::Sort);
    }
    // cupy.unique's own kernel, named without CuPy's prefix.
    if n.starts_with("_unique_") {
        return of(Library::Cupy, Role::Other);
    }
    if n.starts_with("cupy_") || n.starts_with("cupyx_") {
        return of(
            Library::Cupy,
            if lower.contains("reduce") || lower.contains("cub") { Role::Reduction } else { Role::Elementwise },
        );
    }
    if has(n, &["nchwToNhwc", "nhwcToNchw", "nchwToNchw", "nhwcToNhwc"])
        || lower.contains("transpose") && n.contains("cudnn")
    {
        return of(Library::Cudnn, Role::LayoutTranspose);
    }
    if has(&lower, &["sdpa", "fmha", "flash_fwd", "flash_bwd", "flash_attn", "attention"]) {
        let lib = if n.contains("cudnn") {
            Library::Cudnn
        } else if has(&lower, &["flash_fwd", "flash_bwd", "flash_attn"]) && !n.contains("pytorch_flash") {
            Library::FlashAttention
        } else {
            Library::PyTorch
        };
        return of(lib, Role::Attention);
    }
    let unaligned = alignment(n).is_some_and(|a| a * operand_bytes(&lower) < 16);
    if has(&lower, &["fprop", "dgrad", "wgrad", "implicit_convolve", "convolve_", "conv2d", "implicit_gemm"])
        || n.contains("cudnn") && !lower.contains("gemm")
    {
        return Origin { library: Library::Cudnn, role: Role::Convolution, unaligned };
    }
    if n.starts_with("nvjet") || has(&lower, &["xmma_gemm", "gemm", "gemv", "splitkreduce", "cublas"]) {
        let library = if n.contains("cutlass") && !n.contains("cutlass_") && !n.starts_with("nvjet") {
            Library::Cutlass
        } else {
            Library::Cublas
        };
        return Origin { library, role: Role::Gemm, unaligned };
    }
    if has(
        n,
        &[
            "cub::",
            "thrust::",
            "DeviceRadixSort",
            "DeviceReduce",
            "DeviceHistogram",
            "DeviceScan",
            "DeviceSegmented",
            "DeviceSelect",
            "onesweep",
        ],
    ) {
        let role = if has(n, &["Reduce"]) && !has(n, &["Sort", "Histogram"]) { Role::Reduction } else { Role::Sort };
        return of(Library::Cub, role);
    }
    if has(n, &["regular_fft", "vector_fft", "fft_", "_fft"]) {
        return of(Library::Cufft, Role::Fft);
    }
    if has(n, &["multi_tensor_apply_kernel"]) {
        return of(Library::PyTorch, Role::Foreach);
    }
    if has(&lower, &["fused_adam", "fusedadam", "fused_sgd", "adam_kernel", "_fused_adamw", "fused_optim"]) {
        return of(Library::PyTorch, Role::FusedOptimizer);
    }
    if has(&lower, &["fusion"]) && !n.contains("::") {
        return of(Library::Xla, Role::Fusion);
    }
    let torch = n.contains("at::")
        || n.contains("native::")
        || n.contains("at_cuda_detail")
        || n.contains("c10::")
        || n.contains("TensorIterator")
        // PyTorch's own kernels as demanglers print them without a namespace
        // (`unnamed>::EmbeddingBag_updateOutputKernel...`), and ATen's
        // kernel templates as some ncu captures name them, every namespace
        // dropped (`void vectorized_gather_kernel<16, long>(...)`,
        // `void indexFuncLargeIndex<float, long, ...>::ReduceAdd>(...)`).
        || has(
            n,
            &[
                "EmbeddingBag_",
                "CatArrayBatchedCopy",
                "indexSelectLargeIndex",
                "indexSelectSmallIndex",
                "indexFuncLargeIndex<",
                "indexFuncSmallIndex<",
                "vectorized_elementwise_kernel<",
                "unrolled_elementwise_kernel<",
                "gpu_kernel_impl",
                "vectorized_gather_kernel<",
                "index_elementwise_kernel<",
                "_scatter_gather_elementwise_kernel<",
                "ReduceOp<",
                "conv_depthwise2d_",
                "softmax_warp_forward<",
                "softmax_warp_backward<",
            ],
        );
    let library = if torch { Library::PyTorch } else { Library::User };
    let role = if has(&lower, &["batch_norm", "layer_norm", "group_norm", "rms_norm", "layernorm", "rmsnorm", "groupnorm"])
            // PyTorch's GroupNorm statistics and the scale and shift it folds
            // them into: the norm's own kernels.
            || has(n, &["RowwiseMomentsCUDAKernel", "ComputeFusedParamsCUDAKernel"])
    {
        Role::Norm
    } else if lower.contains("softmax") {
        Role::Softmax
    } else if has(&lower, &["cross_entropy", "nll_loss"]) {
        Role::Loss
    } else if has(&lower, &["embedding", "index", "gather", "scatter", "catarraybatchedcopy"]) {
        Role::Indexing
    } else if has(&lower, &["reduce_kernel", "reduction"]) {
        Role::Reduction
    } else if has(&lower, &["gelu", "silu", "relu", "sigmoid", "tanh", "hardswish", "mish", "elu_", "clamp_scalar"])
        && !has(&lower, &["backward", "threshold"])
    {
        // Forward activations; their backward (PyTorch's ReLU backward is
        // `threshold`) follows a norm's or a GEMM's backward, not a GEMM.
        Role::Activation
    } else if has(&lower, &["bfloat16_copy", "float16_copy", "half_copy", "_to_copy", "float_copy", "copy_kernel_cuda"])
        && !lower.contains("direct_copy")
    {
        Role::Cast
    } else if lower.contains("copy") {
        Role::Copy
    } else if lower.contains("elementwise") || lower.contains("functor") {
        Role::Elementwise
    } else {
        Role::Other
    };
    Origin { library, role, unaligned: false }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Remembered origins are the ones found (issue 30), asked in any
    /// order and again, across the memory's limit.
    #[test]
    fn a_remembered_origin_is_the_one_found() {
        let names = [
            "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
            "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_",
            "triton_poi_fused__to_copy_0",
            "vecadd_0",
            "",
        ];
        for round in 0..3 {
            for n in names.iter().chain(names.iter().rev()) {
                assert_eq!(origin(n), origin_of(n), "{n}, round {round}");
            }
        }
        // Past the limit the memory starts again, and still answers.
        for i in 0..(1 << 16) + 10 {
            let n = format!("k{i}_gemm");
            assert_eq!(origin(&n), origin_of(&n));
        }
        for n in names {
            assert_eq!(origin(n), origin_of(n), "{n}");
        }
    }

    /// ATen's kernels with every namespace dropped, as a capture of the
    /// round-10 pairs named them, are still PyTorch's: a sparse
    /// aggregation of a gather and an `index_add_` went unseen (issue 25).
    #[test]
    fn aten_kernels_without_their_namespace_are_pytorch() {
        for n in [
            "void vectorized_gather_kernel<16, long>(char *, char *, T2 *, int, long, long, long, long, bool)",
            "void indexFuncLargeIndex<float, long, unsigned int, 2, 2, (int)-2, 1, unnamed>::ReduceAdd>(cuda::TensorInfo<T1, T3>)",
            "void vectorized_elementwise_kernel<4, FillFunctor<float>, std::array<char *, 1>>(int, T2, T3)",
            "void elementwise_kernel<128, 2, void gpu_kernel_impl_nocast<BinaryFunctor<float, float, float, binary_internal::MulFunctor<float>>>(TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)",
            "void reduce_kernel<512, 1, ReduceOp<float, MeanOps<float, float, float, float>, unsigned int, float, 4, 4>>(T3)",
            "void unnamed>::conv_depthwise2d_forward_kernel<3, float, int>(GenericPackedTensorAccessor<float, 4, DefaultPtrTraits, int>)",
            // Round 13's LeViT: PyTorch's persistent softmax, taken for the user's.
            "void <unnamed>::softmax_warp_forward<float, float, float, 6, 0, 0>(T2 *, const T1 *, int, int, int, const bool *, int, bool)",
        ] {
            assert_eq!(origin(n).library, Library::PyTorch, "{n}");
        }
        assert_eq!(origin("void vectorized_gather_kernel<16, long>(char *)").role, Role::Indexing);
        // A user's kernel of a similar word is still the user's.
        assert_eq!(origin("my_elementwise_kernel(float*, int)").library, Library::User);
    }

    /// Round 13's cupy.unique launched a mask kernel named without CuPy's
    /// prefix; taken for the user's, it was told to use wider loads.
    #[test]
    fn cupys_own_kernels_without_its_prefix_are_cupys() {
        assert_eq!(origin("_unique_update_mask_equal_nan").library, Library::Cupy);
        assert_eq!(origin("argpartition_merge_kernel"), of_cupy_sort());
        assert_eq!(origin("my_unique_kernel").library, Library::User);
    }

    fn of_cupy_sort() -> Origin {
        Origin { library: Library::Cupy, role: Role::Sort, unaligned: false }
    }

    #[test]
    fn vendor_gemms_and_their_alignment_fallback() {
        let o =
            origin("void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_32x1_nn_align1>(T1::Params)");
        assert_eq!((o.library, o.role, o.unaligned), (Library::Cublas, Role::Gemm, true));
        let o = origin(
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_nn_align8>(T1::Params)",
        );
        assert_eq!((o.library, o.role, o.unaligned), (Library::Cublas, Role::Gemm, false));
        // align4 of 32-bit operands is 16 bytes: aligned; of 16-bit ones, not.
        let tf32 = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>(T1::Params)";
        assert!(!origin(tf32).unaligned);
        assert!(
            origin(
                "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x5_tn_align4>(T1::Params)"
            )
            .unaligned
        );
        assert!(origin("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>(T1::Params)").unaligned);
        assert!(
            origin("void cutlass::Kernel2<cutlass_80_tensorop_h16816gemm_64x64_64x5_tn_align4>(T1::Params)").unaligned
        );
        assert_eq!(origin("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT").role, Role::Gemm);
        assert!(origin("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT").library.is_vendor());
    }

    #[test]
    fn cudnn_convolutions_transposes_and_attention() {
        let conv = origin("sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64");
        assert_eq!((conv.library, conv.role), (Library::Cudnn, Role::Convolution));
        assert_eq!(
            origin("void cudnn::nchwToNhwcKernel<__nv_bfloat16, __nv_bfloat16, float, 0, 1>(...)").role,
            Role::LayoutTranspose
        );
        let sdpa = origin("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x128x128_4x1x1");
        assert_eq!((sdpa.library, sdpa.role), (Library::Cudnn, Role::Attention));
    }

    #[test]
    fn pytorch_kernels_by_what_they_do() {
        let cast = "void at::native::vectorized_elementwise_kernel<8, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 1)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, 2>>(int, T2, T3)";
        assert_eq!(origin(cast).role, Role::Cast);
        let gelu = "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase &, at::native::GeluType)::[lambda() (instance 2)]>(int, T2, T3)";
        assert_eq!(origin(gelu).role, Role::Activation);
        let foreach = "void at::native::<unnamed>::multi_tensor_apply_kernel<at::native::<unnamed>::TensorListMetadata<3>, at::native::<unnamed>::BinaryOpListAlphaFunctor<float, 3, 2, 0>, std::plus<float>, float>(T1, T2, T3...)";
        assert_eq!((origin(foreach).library, origin(foreach).role), (Library::PyTorch, Role::Foreach));
        assert_eq!(
            origin("void at::native::batch_norm_backward_kernel<c10::BFloat16, float, float, int>(...)").role,
            Role::Norm
        );
        assert_eq!(origin("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>>(T3)").role, Role::Reduction);
    }

    #[test]
    fn a_timelines_mangled_names_have_the_origin_of_their_demangled_spelling() {
        // `roofline profile`'s kernels are named as CUPTI records them,
        // mangled: PyTorch's log-softmax and fill were taken for user code.
        let softmax = "_ZN2at6native43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6319cunn_SoftMaxForwardILi4EfffNS1_25LogSoftMaxForwardEpilogueEEEvPT2_PKT0_i";
        assert_eq!((origin(softmax).library, origin(softmax).role), (Library::PyTorch, Role::Softmax));
        let fill = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_";
        assert_eq!(origin(fill).library, Library::PyTorch);
        let cast = "_ZN2at6native29vectorized_elementwise_kernelILi8EZZZNS0_25bfloat16_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE_clEvENKUlvE_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_";
        assert_eq!(origin(cast), origin(&roofline_model::demangle(cast)));
    }

    #[test]
    fn solver_random_blas3_and_cudnn_kernels_that_are_not_convolutions() {
        let lib = |n: &str| (origin(n).library, origin(n).role);
        assert_eq!(
            lib("void sytrd4_gpu<sytrd_params<float, 32, 8, 2048, 32, 16, 1, 2>>(int, T1::data_type *)"),
            (Library::Cusolver, Role::Solver)
        );
        assert_eq!(
            lib("void transpose<sytrd_params<float, 32, 8, 512, 32, 16, 1, 2>, 128, 0, 1>(int, int)"),
            (Library::Cusolver, Role::Solver)
        );
        assert_eq!(
            lib("void lansy_M_stage1<float, float, 8>(long, const T1 *, unsigned long, T2 *, int)"),
            (Library::Cusolver, Role::Solver)
        );
        assert_eq!(lib("void execute_dist<standard_normal_float_functor, curand_pseudo_state<curandStateXORWOW>, float, >(long)"), (Library::Curand, Role::Other));
        assert_eq!(
            lib("void kernel_trsm_l_mul32<float, 8, 0, 0, 0, 1>(int, int, const T1 *)"),
            (Library::Cublas, Role::Gemm)
        );
        assert_eq!(
            lib("void internal::region_transform_ABC_val<int, 32, 32, 0, internal::TransformParamsABC<float>>(T1)"),
            (Library::Cublas, Role::Other)
        );
        assert_eq!(lib("void cudnn::batchnorm_fwtr_nhwc_semiPersist<__half, float, __half, 512, 16, 5, 4, 1, 1, 0, 0, 1, 2>(cudnn::NhwcBatchNormFwdParams)"), (Library::Cudnn, Role::Norm));
        assert_eq!(
            lib("void elemWiseRNNcell<float, float, float, 2, 2>(int, int, int, int, int, bool, const T1 *)"),
            (Library::Cudnn, Role::Other)
        );
        assert_eq!(lib("_Z20LSTM_elementWise_bp1IfffEviiPT_S1_S1_S1_S1_S1_S1_PT0_S3_ii18cudnnRNNClipMode_t21cudnnNanPropagation_tff"), (Library::Cudnn, Role::Other));
        assert_eq!(lib("philox::unpack_cudnn(at::PhiloxCudaState, long *, long *)"), (Library::PyTorch, Role::Other));
        assert_eq!(origin("cupyx_scipy_ndimage_correlate_2d_reflect_w1_25").library, Library::Cupy);
    }

    #[test]
    fn generated_and_other_libraries() {
        assert_eq!(origin("triton_poi_fused_gelu_3").library, Library::Triton);
        assert_eq!(origin("triton_poi_fused_gelu_3").role, Role::Activation);
        assert_eq!(origin("triton_per_fused__to_copy_add_native_layer_norm_5").role, Role::Norm);
        assert_eq!(origin("triton_red_fused_sum_1").role, Role::Fusion);
        // Views move no bytes: an activation with them is the activation.
        assert_eq!(origin("triton_poi_fused_gelu_view_11").role, Role::Activation);
        // Inductor's `_to_copy` alone is a cast, as eager's is.
        assert_eq!(origin("triton_poi_fused__to_copy_9").role, Role::Cast);
        assert_eq!(origin("triton_poi_fused__to_copy_t_1").role, Role::Cast);
        assert_eq!(origin("triton_poi_fused__to_copy_add_clone_transpose_3").role, Role::Copy);
        assert_eq!(origin("triton_poi_fused__to_copy_add_clone_mul_transpose_3").role, Role::Fusion);
        // GroupNorm's statistics are the norm's.
        assert_eq!(
            origin("void at::<unnamed>::RowwiseMomentsCUDAKernel<float>(long, T1, const T1 *, T1 *, T1 *)").role,
            Role::Norm
        );
        // PyTorch's kernels as some demanglers print them, without `at::`.
        let n = "void native::unrolled_elementwise_kernel<native::direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]>(int, T1, T2)";
        assert_eq!((origin(n).library, origin(n).role), (Library::PyTorch, Role::Copy));
        // ReLU's backward is not an activation a GEMM epilogue absorbs.
        assert_eq!(origin("void at::native::vectorized_elementwise_kernel<4, at::native::threshold_kernel_impl<float>>(int, T2, T3)").role, Role::Elementwise);
        assert_eq!(origin("loop_add_fusion_2").library, Library::Xla);
        assert_eq!(origin("input_reduce_fusion").library, Library::Xla);
        assert_eq!(origin("cupy_copy__float32_float32").library, Library::Cupy);
        assert_eq!(origin("void cub::DeviceRadixSortOnesweepKernel<...>(...)").library, Library::Cub);
        assert_eq!(origin("void regular_fft_factor<4096, EPT<16>, 4, 0, 14, 0, 2, 1, unsigned int, float, HostConfigPlaceholder>(kernel_arguments_t<T9>)").library, Library::Cufft);
        assert_eq!(origin("void cusparse::csrmv_v3_kernel<...>(...)").library, Library::Cusparse);
        assert_eq!(
            origin("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096>)").role,
            Role::Collective
        );
        // PyTorch's embedding bag and cat without a namespace are still PyTorch's.
        let bag = "void unnamed>::EmbeddingBag_updateOutputKernel_sum_mean<float, long>(const T2 *, const T2 *)";
        assert_eq!((origin(bag).library, origin(bag).role), (Library::PyTorch, Role::Indexing));
        let cat =
            "void unnamed>::CatArrayBatchedCopy_vectorized<unnamed>::OpaqueType<4>, unsigned int, 2, 128, 1>(T1 *)";
        assert_eq!((origin(cat).library, origin(cat).role), (Library::PyTorch, Role::Indexing));
        // The user's own kernels stay editable.
        let own = origin("fma_loop(float *, int)");
        assert_eq!(own.library, Library::User);
        assert!(!own.library.is_vendor());
    }
}
