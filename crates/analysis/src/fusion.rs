//! Program-level opportunities: kernels that one change would remove or
//! merge, with the time that change would save.
//!
//! The largest savings in framework programs are rarely inside one kernel.
//! A foreach optimizer re-reads every parameter and state tensor once per
//! elementary op; autocast casts weights every step; cuDNN transposes NCHW
//! tensors around each convolution; an activation re-reads a GEMM's whole
//! output; a chain of elementwise kernels writes and re-reads each
//! intermediate. Each group's saving is estimated from the bytes the change
//! would no longer move, at the bandwidth the group's kernels reached:
//!
//! - optimizer chain -> fused optimizer: PyTorch's foreach Adam/AdamW step
//!   makes about 20 passes over parameter-sized data (lerp, mul, addcmul,
//!   weight decay, sqrt, div, add, addcdiv), a fused step 7 (read parameter,
//!   gradient and two moments, write three); a foreach SGD-momentum step
//!   about 11, a fused one 5;
//! - casts, layout transposes, activations a GEMM epilogue absorbs: the
//!   kernels go away, so their whole time;
//! - elementwise kernels -> fused into the kernel that produces their input
//!   (torch.compile, a norm or a GEMM epilogue): that input is written once
//!   and read once today; fused, neither happens. Each kernel saves twice one
//!   operand's bytes as a share of its own: 2/N of its time for N operands
//!   (PyTorch names them, `std::array<char *, N>`), all of it for a unary
//!   op; without the name, twice its written bytes over its bytes. Only
//!   launches whose input a fusable kernel made count (a chain's head, fed
//!   from outside the capture, saves nothing). An activation that follows a
//!   norm joins the norm's fusion, not a GEMM's epilogue. PyTorch's
//!   reductions that wait on latency or on their launch join the same group
//!   (torch.compile fuses them, a CUDA graph launches them for free); a
//!   launch-bound kernel saves all its time, even at the head of a chain
//!   when the next kernel reads its output (fused, its launch goes). A
//!   PyTorch reduction under the diagonal joins as well, for the gap to the
//!   bandwidth roof a compiled split reduction streams at. A kernel right
//!   after a layout transpose counts as fed by the convolution before it
//!   (channels_last removes the transpose). A PyTorch gather (advanced
//!   indexing, `index_select`) whose result an elementwise kernel reads
//!   next joins too: compiled, the gather becomes that kernel's indirect
//!   loads, so the gather saves its written share and its reader the read
//!   (1/N). Scatters, embedding lookups and cats never do: they are data
//!   movement of another kind (a cat's own move is to let its producers
//!   write into its output).
//! - CuPy array expressions, by launch order: a multiply feeding an add, a
//!   subtract or a sum is a scaled temporary a fused pass keeps in
//!   registers (2/N of its launch for N operands: the write booked on the
//!   multiply, the read on its reader); any other ufunc launched
//!   right after a ufunc over arrays of its size is a link of the same
//!   expression (2/N of its launch), and a CuPy or CUB reduction right after
//!   one reduces values a ReductionKernel would reduce where they are made
//!   (all its launch); a cuBLAS dot or norm of a vector the kernel before it
//!   wrote reads at least one operand fewer when accumulated in the update
//!   (half its launch). The head of an expression, fed from outside it,
//!   saves nothing, as a PyTorch chain's head does.
//! - gathers and scatter-adds, by launch order: a gather of rows by an index
//!   then, within a few launches and no layer between, a scatter-add of
//!   rows by another is message passing; one sparse matrix product over the
//!   adjacency writes no per-edge rows (the gather's written share and the
//!   scatter-add's read share of their launches).
//!
//! - library-call internals, by launch order: CuPy integer kernels next to
//!   a library call's own kernels (argpartition's select, cuRAND's
//!   generator), with only integer work between, are that call's
//!   bookkeeping, not the program's expression: a call that needs none (a
//!   top-k, a Generator's bounded integers) saves their whole time;
//! - gradient clipping: clip_grad_norm_'s foreach norms and the scale by its
//!   coefficient are not the optimizer's (a fused optimizer does not clip);
//!   compiled with the step, the norms are one full-grid reduction and the
//!   scale goes into the update;
//! - XLA intermediates, by launch order: a fusion whose next launch, another
//!   fusion, reads about what it wrote saves its written share, the reader
//!   the array's share of its bytes (one fusion, or a Pallas kernel).
//!
//! In a training step (backward or optimizer kernels in the capture) a
//! larger batch is a training choice, not a per-step saving: the library
//! kernels' larger-problem move becomes evidence.
//!
//! Triton's copies that only reorder views (clone, transpose, select, with
//! a cast or bias add), in a program with fused attention, are the q, k, v
//! reorderings that strided views into attention remove: their whole time.
//!
//! An activation is a GEMM's epilogue only when a GEMM or convolution ran
//! just before it; after anything else it is a link of the elementwise
//! chain. Kernels already fused contribute nothing. The groups' savings are then
//! shared out over their kernels' moves ([`apply`]), so that every view
//! ranks the same seconds.

use serde::{Deserialize, Serialize};

use crate::facts::KernelFacts;
use crate::findings::{Advice, LibraryCall, Move, Position};
use crate::kernel_analysis::KernelAnalysis;
use crate::origin::{origin, Library, Role};

/// What one change would remove or merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FusionKind {
    /// A foreach optimizer chain -> a fused optimizer.
    OptimizerChain,
    /// dtype casts -> weights kept in the compute dtype.
    Casts,
    /// NCHW <-> NHWC transposes -> channels_last.
    LayoutTransposes,
    /// Activations after GEMMs -> the GEMM's epilogue.
    Epilogue,
    /// Elementwise chains -> one fused kernel (torch.compile).
    ElementwiseChain,
    /// Generated copies that reorder q, k, v beside fused attention ->
    /// strided views into attention.
    AttentionLayout,
    /// CuPy elementwise and cuBLAS level-1 kernels over the same vectors ->
    /// one fused pass (cupy.fuse, ElementwiseKernel, ReductionKernel).
    ArrayExpressions,
    /// A gather of rows then a scatter-add of them (message passing) ->
    /// one sparse matrix product.
    SparseAggregation,
    /// The integer bookkeeping of cupy.argpartition over its index array
    /// -> a top-k, which builds none.
    SelectionInternals,
    /// The integer passes of cupy.random.randint after cuRAND's generator
    /// -> a Generator's integers, bounded in one kernel.
    RandomIntegerInternals,
    /// clip_grad_norm_'s foreach norms and scale -> compiled with the step.
    GradientClipping,
    /// An XLA fusion's result read back by the next fusion -> one fusion.
    XlaIntermediates,
}

impl FusionKind {
    /// The change, in words.
    pub fn label(self) -> &'static str {
        match self {
            FusionKind::OptimizerChain => "use a fused optimizer",
            FusionKind::Casts => "remove dtype casts",
            FusionKind::LayoutTransposes => "use channels_last",
            FusionKind::Epilogue => "fuse activations into GEMM epilogues",
            FusionKind::ElementwiseChain => "fuse elementwise chains (torch.compile)",
            FusionKind::AttentionLayout => "feed attention strided views",
            FusionKind::ArrayExpressions => "fuse CuPy array expressions (cupy.fuse, ElementwiseKernel)",
            FusionKind::SparseAggregation => "aggregate with a sparse matrix product (torch.sparse.mm, SparseTensor)",
            FusionKind::SelectionInternals => "replace cupy.argpartition by a top-k",
            FusionKind::RandomIntegerInternals => "draw integers with cupy.random.default_rng()",
            FusionKind::GradientClipping => "compile gradient clipping with the optimizer step",
            FusionKind::XlaIntermediates => "fuse XLA intermediates into their readers",
        }
    }

    fn advice(self) -> Advice {
        match self {
            FusionKind::OptimizerChain => Advice::FusedOptimizer,
            FusionKind::Casts => Advice::RemoveCasts,
            FusionKind::LayoutTransposes => Advice::ChannelsLast,
            FusionKind::Epilogue => Advice::EpilogueFusion,
            FusionKind::ElementwiseChain => Advice::FuseElementwise,
            FusionKind::AttentionLayout => Advice::AttentionLayout,
            FusionKind::ArrayExpressions => Advice::FuseArrayOps,
            FusionKind::SparseAggregation => Advice::SparseAggregation,
            FusionKind::SelectionInternals => Advice::LibraryCallInternals { call: LibraryCall::Selection },
            FusionKind::RandomIntegerInternals => Advice::LibraryCallInternals { call: LibraryCall::RandomIntegers },
            FusionKind::GradientClipping => Advice::CompileClipping,
            FusionKind::XlaIntermediates => Advice::FuseXlaIntermediate,
        }
    }
}

/// One program-level opportunity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fusion {
    /// The change.
    pub kind: FusionKind,
    /// The kernels it concerns (IDs).
    pub kernels: Vec<String>,
    /// Their GPU time, seconds.
    pub seconds: f64,
    /// Seconds the change would save (estimated from bytes).
    pub saved_s: f64,
    /// What the estimate rests on.
    pub rests_on: String,
    /// Each kernel's share of `saved_s`, in the order of `kernels`, when the
    /// kernels do not save alike (empty: in proportion to their time).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub saved_per_kernel_s: Vec<f64>,
}

fn bytes<K: KernelFacts>(a: &K) -> f64 {
    a.dram_bytes().unwrap_or(0.0)
}

fn writes<K: KernelFacts>(a: &K) -> f64 {
    a.dram_write_bytes().unwrap_or(bytes(a) / 3.0)
}

/// The operands of a PyTorch TensorIterator kernel (inputs and its one
/// output), from `std::array<char *, N>` in its name.
fn operands(name: &str) -> Option<u32> {
    let at = name.find("array<char *, ").or_else(|| name.find("array<char*, "))?;
    let rest = &name[at..];
    let digits: String = rest[rest.find(", ")? + 2..].chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok().filter(|n| *n >= 2)
}

/// The share of an elementwise kernel's time that fusing it into the kernel
/// producing its input saves: one operand no longer written and read back.
/// A launch-bound kernel's time is its launch: fused, all of it goes. A
/// PyTorch kernel whose name does not count its operands is taken for a
/// binary op (unary functors are named so).
fn fused_share<K: KernelFacts>(a: &K, order: &CaptureOrder<K>) -> f64 {
    if a.position() == Some(Position::LaunchBound) {
        return 1.0;
    }
    let o = order.origin(a);
    match operands(a.name()) {
        Some(n) => (2.0 / n as f64).min(1.0),
        None if o.library == Library::PyTorch => {
            if a.name().contains("UnaryFunctor") && !a.name().contains("BUnaryFunctor") {
                1.0
            } else {
                2.0 / 3.0
            }
        }
        None if bytes(a) > 0.0 => (2.0 * writes(a) / bytes(a)).min(1.0),
        None => 0.0,
    }
}

/// PyTorch's gather of rows or elements by an index tensor (advanced
/// indexing `x[idx]`, `index_select`, `torch.gather`'s vectorised path).
/// Fused with the elementwise kernel that reads its result (torch.compile
/// turns the gather into indirect loads of that kernel), its output is
/// never written: the write is booked on the gather, the read on its reader.
fn pytorch_gather<K: KernelFacts>(a: &K, order: &CaptureOrder<K>) -> bool {
    let o = order.origin(a);
    let n = a.name();
    o.library == Library::PyTorch
        && o.role == Role::Indexing
        && (n.contains("index_kernel_impl") || n.contains("vectorized_gather_kernel") || n.contains("indexSelect"))
        && !n.contains("index_put")
}

/// The share of a gather's launches whose next kernel reads elementwise
/// (by launch IDs; without them, whether the kernel after its last launch
/// does).
fn gather_launches_read<K: KernelFacts>(a: &K, order: &CaptureOrder<K>, reads: impl Fn(Role) -> bool) -> f64 {
    let around = order.around_launches(a);
    if around.is_empty() {
        return if order.successor(a).is_some_and(reads) { 1.0 } else { 0.0 };
    }
    let read = around.iter().filter(|(_, next)| next.is_some_and(|k| reads(order.origin(k).role))).count();
    read as f64 / around.len() as f64
}

/// Framework glue a compiler fuses or a graph launches for free: PyTorch's
/// reductions that wait on latency or on their launch. Gathers, scatters,
/// embedding lookups and cats move data of their own (rows picked by an
/// index, inputs copied into one output): no elementwise chain.
fn framework_glue<K: KernelFacts>(a: &K, order: &CaptureOrder<K>) -> bool {
    let o = order.origin(a);
    o.library == Library::PyTorch
        && o.role == Role::Reduction
        && a.position().is_some_and(|p| {
            matches!(p, Position::LaunchBound | Position::LatencyBound) || under_diagonal_reduction(a, order)
        })
}

/// A PyTorch reduction under the diagonal: it streams its input below the
/// bandwidth roof, and a compiled (split) reduction streams it at the roof.
fn under_diagonal_reduction<K: KernelFacts>(a: &K, order: &CaptureOrder<K>) -> bool {
    order.origin(a).role == Role::Reduction && a.position() == Some(Position::UnderDiagonal)
}

/// The share of a memory-bound reduction's time a pass at the bandwidth
/// roof saves: the gap from its busiest memory level to the roof.
fn reduction_gap_share<K: KernelFacts>(a: &K) -> f64 {
    let pct = a.binding_pct().unwrap_or(100.0);
    (1.0 - pct / crate::thresholds::ON_ROOF_PCT).clamp(0.0, 1.0)
}

/// The kernels in capture order, to find the kernel that ran just before
/// another without searching the whole list for each: by Nsight Compute's
/// launch IDs where the capture has them (a GEMM launched many times is
/// found before each of its activations), else by first launch. And each
/// kernel name's origin, found once: [`origin`] tries dozens of patterns
/// on the name, and the groups ask it of every kernel many times (a
/// tenth of `import`'s time at 8,000 kernels).
struct CaptureOrder<'a, K> {
    first_launch: std::collections::HashMap<u64, &'a K>,
    by_launch_id: std::collections::HashMap<u64, &'a K>,
    origins: std::collections::HashMap<&'a str, crate::origin::Origin>,
}

impl<'a, K: KernelFacts> CaptureOrder<'a, K> {
    fn of(kernels: &'a [K]) -> Self {
        let mut first_launch = std::collections::HashMap::new();
        let mut by_launch_id = std::collections::HashMap::new();
        let mut origins = std::collections::HashMap::new();
        for k in kernels {
            origins.entry(k.name()).or_insert_with(|| origin(k.name()));
            if let Some(o) = k.capture_order() {
                first_launch.entry(o).or_insert(k);
            }
            for id in k.launch_ids().iter().filter_map(|i| i.parse::<u64>().ok()) {
                by_launch_id.entry(id).or_insert(k);
            }
        }
        CaptureOrder { first_launch, by_launch_id, origins }
    }

    /// The origin of `a`, one of the kernels it was made of.
    fn origin(&self, a: &K) -> crate::origin::Origin {
        self.origins.get(a.name()).copied().unwrap_or_else(|| origin(a.name()))
    }

    /// The role of the kernel that ran just before `a`'s first launch.
    fn predecessor(&self, a: &K) -> Option<Role> {
        self.predecessor_kernel(a).map(|k| self.origin(k).role)
    }

    /// The kernel that ran just before `a`'s first launch.
    fn predecessor_kernel(&self, a: &K) -> Option<&'a K> {
        let first_id = a.launch_ids().first().and_then(|i| i.parse::<u64>().ok());
        let before = match first_id {
            Some(0) => return None,
            Some(id) => self.by_launch_id.get(&(id - 1)).copied(),
            None => None,
        };
        before.or_else(|| {
            let o = a.capture_order().filter(|o| *o > 1)?;
            self.first_launch.get(&(o - 1)).copied()
        })
    }

    /// The role of the kernel that ran just after `a`'s last launch.
    fn successor(&self, a: &K) -> Option<Role> {
        let last_id = a.launch_ids().last().and_then(|i| i.parse::<u64>().ok());
        let after = match last_id {
            Some(id) => self.by_launch_id.get(&(id + 1)).copied(),
            None => a.capture_order().and_then(|o| self.first_launch.get(&(o + 1)).copied()),
        };
        after.map(|k| self.origin(k).role)
    }

    /// How many of `a`'s launches pass over a GEMM's output: walking back
    /// over CuPy elementwise launches, vector reductions and launches that
    /// move under 1% of its bytes (at most [`GEMM_EXPRESSION_DEPTH`])
    /// reaches a cuBLAS GEMM launch, and the launch moves at least as many
    /// DRAM bytes as that GEMM wrote. Only with launch IDs.
    fn passes_over_gemm_output(&self, a: &K) -> usize {
        let moved = bytes(a) / a.launches().max(1) as f64;
        a.launch_ids()
            .iter()
            .filter_map(|i| i.parse::<u64>().ok())
            .filter(|&id| {
                let mut at = id;
                for _ in 0..GEMM_EXPRESSION_DEPTH {
                    let Some(before) = at.checked_sub(1).and_then(|b| self.by_launch_id.get(&b).copied()) else {
                        return false;
                    };
                    let o = self.origin(before);
                    if o.role == Role::Gemm {
                        let written = writes(before) / before.launches().max(1) as f64;
                        return written > 0.0 && moved >= written;
                    }
                    // Small side work (a norm of the centroids) leaves the
                    // pass's input where the GEMM wrote it.
                    let small = bytes(before) / (before.launches().max(1) as f64) < moved / 100.0;
                    if !(o.library == Library::Cupy && o.role.is_elementwise() || vector_reduction(before) || small) {
                        return false;
                    }
                    at -= 1;
                }
                false
            })
            .count()
    }

    /// The kernels launched just before and just after each of `a`'s
    /// launches, by Nsight Compute's launch IDs (none without them).
    fn around_launches(&self, a: &K) -> Vec<(Option<&'a K>, Option<&'a K>)> {
        a.launch_ids()
            .iter()
            .filter_map(|i| i.parse::<u64>().ok())
            .map(|id| {
                let before = id.checked_sub(1).and_then(|b| self.by_launch_id.get(&b).copied());
                (before, self.by_launch_id.get(&(id + 1)).copied())
            })
            .collect()
    }
}

/// The share of a kernel's launches whose input comes from a kernel a
/// fusion can absorb it into (elementwise work, a norm, a reduction, a GEMM
/// or convolution epilogue): all of them when the kernel captured before
/// it is one; otherwise every launch but its first (the head of a chain,
/// whose input the capture did not make, saves nothing).
fn fusable_launches<K: KernelFacts>(a: &K, order: &CaptureOrder<K>) -> f64 {
    // A layout transpose after a convolution goes with channels_last, and
    // the convolution's output is then the kernel's input.
    let absorbs = |r: Role| {
        r.is_elementwise()
            || matches!(
                r,
                Role::Norm | Role::Reduction | Role::Gemm | Role::Convolution | Role::Fusion | Role::LayoutTranspose
            )
    };
    if order.predecessor(a).is_some_and(absorbs) {
        return 1.0;
    }
    // A launch-bound head whose output the next kernel of the chain reads:
    // fused, its launch goes, which is all its time.
    let launch_bound = a.position() == Some(Position::LaunchBound);
    let chain = |r: Role| r.is_elementwise() || r == Role::Reduction;
    if launch_bound && order.successor(a).is_some_and(chain) {
        return 1.0;
    }
    let n = a.launches().max(1) as f64;
    (n - 1.0) / n
}

/// The operands of a CuPy generated kernel, from the dtypes its name lists
/// (`cupy_multiply__float64_float64_float64`: two inputs and the output).
fn cupy_operands(name: &str) -> Option<u32> {
    let dtypes = name.split("__").nth(1)?;
    let n = dtypes.split('_').filter(|w| !w.is_empty()).count() as u32;
    (n >= 2).then_some(n)
}

/// A CuPy ufunc kernel (`cupy_<op>__<dtypes>`): one operation of an array
/// expression, as the user wrote it.
fn cupy_ufunc<K: KernelFacts>(k: &K) -> bool {
    let o = origin(k.name());
    o.library == Library::Cupy && o.role == Role::Elementwise && cupy_operands(k.name()).is_some()
}

/// The share of a launch that fusing it with the ufunc launched before it
/// saves: 2/N of a ufunc of N operands (the intermediate no longer written
/// and read back); all of a CuPy or CUB reduction (a ReductionKernel
/// reduces the values where they are made, and the reduction's pass over
/// them goes). None for anything else.
fn link_share<K: KernelFacts>(a: &K) -> Option<f64> {
    if cupy_ufunc(a) {
        cupy_operands(a.name()).map(|n| (2.0 / n as f64).min(1.0))
    } else if vector_reduction(a) && !blas1_reduction(a.name()) {
        Some(1.0)
    } else {
        None
    }
}

/// Whether `a` reads what the ufunc launch `before` wrote, as far as the
/// counters can tell: `before` is a CuPy ufunc and the two move DRAM bytes
/// per launch within [`LINK_SIZE_RATIO`] of each other (arrays of one size;
/// a reduction reads one array of the N its producer moved).
fn expression_link<K: KernelFacts>(before: &K, a: &K, reduction: bool) -> bool {
    if !cupy_ufunc(before) {
        return false;
    }
    let per_launch = |k: &K| bytes(k) / k.launches().max(1) as f64;
    let (b, x) = (per_launch(before), per_launch(a));
    let ratio =
        if reduction { LINK_SIZE_RATIO * cupy_operands(before.name()).unwrap_or(3) as f64 } else { LINK_SIZE_RATIO };
    b > 0.0 && x > 0.0 && x <= b * ratio && b <= x * ratio
}

/// How far apart two launches' DRAM bytes may be for one to read the
/// other's result: arrays of one size, give or take operands (a ternary
/// `where` beside a unary `abs`) and what the L2 held back.
const LINK_SIZE_RATIO: f64 = 4.0;

/// A reduction over a vector: CuPy's and CUB's reductions, cuBLAS's dot
/// and norm (level 1).
fn vector_reduction<K: KernelFacts>(a: &K) -> bool {
    let o = origin(a.name());
    matches!(o.library, Library::Cupy | Library::Cub) && o.role == Role::Reduction || blas1_reduction(a.name())
}

fn blas1_reduction(name: &str) -> bool {
    o_blas(name) && (name.contains("dot_kernel") || name.contains("nrm2"))
}

fn o_blas(name: &str) -> bool {
    origin(name).library == Library::Cublas
}

/// Launches walked back from an elementwise pass to find the GEMM whose
/// output it reads: `x2 - 2*(x @ c.T) + (c*c).sum(1)` launches the GEMM, a
/// multiply, a subtract, a small multiply and its sum, then the add.
const GEMM_EXPRESSION_DEPTH: usize = 6;

/// CuPy's array expressions, kernel by kernel in launch order: a CuPy
/// multiply whose next launch is a CuPy add or subtract (`x + a*y` as two
/// kernels) or a reduction (`sum(x*x)`) writes a temporary the next kernel
/// reads back; fused into one pass it stays in registers: 2/N of the
/// multiply's launch for N operands, its write booked on the multiply and
/// its read on the reader, half each. Any
/// other ufunc or reduction whose launch follows a ufunc's over arrays of
/// its size is a link ([`link_share`], [`expression_link`]). A
/// cuBLAS dot or norm right after a CuPy elementwise kernel re-reads the
/// vector that kernel just wrote; accumulated in the update pass, at least
/// one of its two operands is not read again: half the launch's time.
/// Without launch IDs nothing is claimed (the order of launches is the evidence).
fn array_expressions<K: KernelFacts>(
    kernels: &[K],
    order: &CaptureOrder<K>,
    internal: &std::collections::HashSet<String>,
) -> Option<Fusion> {
    let cupy_elementwise = |k: &K| {
        let o = origin(k.name());
        o.library == Library::Cupy && o.role == Role::Elementwise
    };
    let mut ks = Vec::new();
    let mut per_kernel = Vec::new();
    for a in kernels.iter().filter(|a| a.duration_s().is_some_and(|d| d > 0.0 && d.is_finite())) {
        if internal.contains(a.id()) {
            continue;
        }
        let t = a.duration_s().unwrap_or(0.0);
        let around = order.around_launches(a);
        if around.is_empty() {
            continue;
        }
        let per_launch = t / around.len() as f64;
        let name = a.name();
        // Launches that pass over a GEMM's output: the whole expression
        // folds into the GEMM (its epilogue, or columns that augment it).
        let over_gemm = if cupy_elementwise(a) { order.passes_over_gemm_output(a) } else { 0 };
        // The kernels that read a multiply's product: its temporary is
        // booked on the multiply, never again on them.
        let reads_product = |k: &K| {
            cupy_elementwise(k) && (k.name().starts_with("cupy_add") || k.name().starts_with("cupy_subtract"))
                || vector_reduction(k)
        };
        let saved: f64 = if over_gemm > 0 {
            over_gemm as f64 * per_launch
        } else if name.starts_with("cupy_multiply") {
            let share = cupy_operands(name).map_or(2.0 / 3.0, |n| 2.0 / n as f64);
            // Its product, when an add, a subtract or a sum reads it (a
            // scaled temporary: `x + a*y`, where the launch before is
            // another statement as often as not): the write, half of the
            // temporary's round trip (the reader books the read); else the
            // launch before it, when it is a link of a longer expression.
            around
                .iter()
                .map(|(before, next)| {
                    if next.is_some_and(reads_product) {
                        share / 2.0
                    } else if before.is_some_and(|b| expression_link(b, a, false)) {
                        share
                    } else {
                        0.0
                    }
                })
                .sum::<f64>()
                * per_launch
        } else if blas1_reduction(name) {
            around.iter().filter(|(before, _)| before.is_some_and(cupy_elementwise)).count() as f64 * per_launch * 0.5
        } else if let Some(share) = link_share(a) {
            // A link of a longer expression (`u[2:] + u[:-2] - 4*u[1:-1]`,
            // `abs(a - b).max()`): the launch before it is a CuPy ufunc
            // over arrays of its size, whose result it reads back.
            // After a multiply whose product it reads, it books the read of
            // that temporary: the other half of the multiply's round trip.
            let after_product = |b: &K| b.name().starts_with("cupy_multiply") && reads_product(a);
            around
                .iter()
                .map(|(before, _)| match before {
                    Some(b) if after_product(b) => {
                        let b_launch = b.duration_s().unwrap_or(0.0) / b.launch_ids().len().max(1) as f64;
                        b_launch * cupy_operands(b.name()).map_or(2.0 / 3.0, |n| 2.0 / n as f64) / 2.0
                    }
                    Some(b) if expression_link(*b, a, vector_reduction(a)) => per_launch * share,
                    _ => 0.0,
                })
                .sum()
        } else {
            0.0
        };
        if saved > 0.0 {
            ks.push(a);
            per_kernel.push(saved);
        }
    }
    if ks.is_empty() {
        return None;
    }
    let seconds = ks.iter().filter_map(|a| a.duration_s()).sum::<f64>();
    Some(Fusion {
        kind: FusionKind::ArrayExpressions,
        kernels: ks.iter().map(|a| a.id().to_string()).collect(),
        seconds,
        saved_s: per_kernel.iter().sum(),
        rests_on: "by launch order: an elementwise pass over a GEMM's output (a GEMM launch before it, with only CuPy elementwise work between, and at least that output's bytes moved) folds into the GEMM, its whole launch; a scaled temporary (a multiply feeding an add, a subtract or a sum) is no longer written and read back, 2/N of the multiply's launch for N operands, half booked on the multiply (the write) and half on its reader (the read); a ufunc launched right after a ufunc over arrays of its size (DRAM bytes within 4x) reads that result back, 2/N of its launch, and a reduction right after one is folded into it, its whole launch; a dot or norm of a vector the kernel before it wrote reads at least one operand fewer, half its launch".into(),
        saved_per_kernel_s: per_kernel,
    })
}

/// A CuPy kernel of integer bookkeeping: a ufunc whose dtypes are all
/// integers or booleans (`cupy_remainder__int64_int_int64`,
/// `cupy_less__int64_int_bool`), or a boolean reduction (`cupy_cub_any`).
fn integer_bookkeeping<K: KernelFacts>(k: &K) -> bool {
    let n = k.name();
    let integer = |t: &str| t == "bool" || t.starts_with("int") || t.starts_with("uint") || t == "long";
    if cupy_ufunc(k) {
        return n.split("__").nth(1).is_some_and(|d| d.split('_').filter(|t| !t.is_empty()).all(integer));
    }
    origin(n).library == Library::Cupy && (n.starts_with("cupy_cub_any") || n.starts_with("cupy_cub_all"))
}

/// The library call a kernel is the heart of, when its integer
/// bookkeeping runs beside it: CuPy's selection, or cuRAND's generator
/// (whose integers `cupy.random.randint` masks and casts after it).
fn library_call<K: KernelFacts>(k: &K) -> Option<LibraryCall> {
    if crate::origin::cupy_selection(k.name()) {
        Some(LibraryCall::Selection)
    } else if origin(k.name()).library == Library::Curand {
        Some(LibraryCall::RandomIntegers)
    } else {
        None
    }
}

/// Launches walked from integer bookkeeping to the call it serves:
/// argpartition's checks and unravelling run five launches after its last
/// merge.
const INTERNALS_DEPTH: u64 = 8;

/// Integer bookkeeping kernels of a library call, by launch order: a run of
/// CuPy integer kernels ([`integer_bookkeeping`]) that touches a call's own
/// kernel ([`library_call`]) at either end, within [`INTERNALS_DEPTH`]
/// launches, serves that call (the index array argpartition builds, checks
/// and unravels; the mask, cast and offset of randint after cuRAND). They
/// are not an expression of the program, so no fusion of the user's
/// reaches them; a call that needs none (a top-k, a Generator's bounded
/// integers) saves their whole time. Only with launch IDs.
fn library_call_internals<K: KernelFacts>(kernels: &[K], order: &CaptureOrder<K>) -> Vec<Fusion> {
    let call_of = |id: u64| -> Option<LibraryCall> {
        for step in [-1i64, 1] {
            let mut at = id as i64;
            for _ in 0..INTERNALS_DEPTH {
                at += step;
                let Some(k) = u64::try_from(at).ok().and_then(|i| order.by_launch_id.get(&i).copied()) else { break };
                if let Some(call) = library_call(k) {
                    return Some(call);
                }
                if !integer_bookkeeping(k) {
                    break;
                }
            }
        }
        None
    };
    let mut groups: Vec<(LibraryCall, Vec<&K>)> = Vec::new();
    for a in kernels.iter().filter(|a| a.duration_s().is_some_and(|d| d > 0.0 && d.is_finite())) {
        if !integer_bookkeeping(a) {
            continue;
        }
        let Some(call) = a.launch_ids().iter().filter_map(|i| i.parse::<u64>().ok()).find_map(call_of) else {
            continue;
        };
        match groups.iter_mut().find(|(c, _)| *c == call) {
            Some((_, ks)) => ks.push(a),
            None => groups.push((call, vec![a])),
        }
    }
    groups
        .into_iter()
        .map(|(call, ks)| {
            let seconds = ks.iter().filter_map(|a| a.duration_s()).sum::<f64>();
            Fusion {
                kind: match call {
                    LibraryCall::Selection => FusionKind::SelectionInternals,
                    LibraryCall::RandomIntegers => FusionKind::RandomIntegerInternals,
                },
                kernels: ks.iter().map(|a| a.id().to_string()).collect(),
                seconds,
                saved_s: seconds,
                rests_on: "by launch order: CuPy integer kernels launched next to the call's own kernels, with only integer work between, are its bookkeeping; a call that needs none saves their whole time".into(),
                saved_per_kernel_s: Vec::new(),
            }
        })
        .collect()
}

/// The time a compiled gradient norm keeps: one split reduction over all
/// gradients on a full grid is a launch or two at the launch floor (about
/// 2.4 us on the H200: round 12's `lpnorm_cleanup`, a launch of 13 blocks).
const COMPILED_NORM_S: f64 = 3e-6;

/// `clip_grad_norm_`'s foreach kernels ([`crate::origin::gradient_norm`];
/// the scale by the clip coefficient where the capture has the norms):
/// compiled with the optimizer step, the per-tensor norms become one
/// reduction on a full grid (their time less [`COMPILED_NORM_S`] a
/// launch), and the cleanup and the scale go into it and into the update
/// (their whole time).
fn gradient_clipping<K: KernelFacts>(kernels: &[K], order: &CaptureOrder<K>) -> Option<Fusion> {
    let timed = |a: &&K| a.duration_s().is_some_and(|d| d > 0.0 && d.is_finite());
    let pytorch = |a: &&K| order.origin(a).library == Library::PyTorch;
    let norms: Vec<&K> =
        kernels.iter().filter(timed).filter(pytorch).filter(|a| crate::origin::gradient_norm(a.name())).collect();
    if norms.is_empty() {
        return None;
    }
    let scales =
        kernels.iter().filter(timed).filter(pytorch).filter(|a| crate::origin::scaled_by_device_scalar(a.name()));
    let ks: Vec<&K> = norms.into_iter().chain(scales).collect();
    let per_kernel: Vec<f64> = ks
        .iter()
        .map(|a| {
            let t = a.duration_s().unwrap_or(0.0);
            if a.name().contains("LpNormFunctor") {
                (t - a.launches() as f64 * COMPILED_NORM_S).max(0.0)
            } else {
                t
            }
        })
        .collect();
    Some(Fusion {
        kind: FusionKind::GradientClipping,
        kernels: ks.iter().map(|a| a.id().to_string()).collect(),
        seconds: ks.iter().filter_map(|a| a.duration_s()).sum(),
        saved_s: per_kernel.iter().sum(),
        rests_on: format!(
            "compiled with the step, the per-tensor norms are one reduction on a full grid ({} a launch kept), and the cleanup and the scale by the clip coefficient go into it and into the update (their whole time)",
            roofline_model::format_si(COMPILED_NORM_S, roofline_model::Unit::Second)
        ),
        saved_per_kernel_s: per_kernel,
    })
}

/// XLA fusions whose result the next fusion reads back, by launch order: a
/// fusion that is not launch-bound, whose next launch is an XLA fusion
/// moving DRAM bytes within [`LINK_SIZE_RATIO`] of what it wrote. Fused (a
/// reduction of the expression itself, or one Pallas kernel), the array is
/// never written: the producer saves its written share of the launch, the
/// reader the share of its bytes that the array was. Only with launch IDs.
fn xla_intermediates<K: KernelFacts>(kernels: &[K], order: &CaptureOrder<K>) -> Option<Fusion> {
    let xla = |k: &K| {
        let o = order.origin(k);
        o.library == Library::Xla && k.position() != Some(Position::LaunchBound)
    };
    let mut saved: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
    let mut ks: Vec<&K> = Vec::new();
    for a in kernels.iter().filter(|a| a.duration_s().is_some_and(|d| d > 0.0 && d.is_finite())) {
        if !xla(a) {
            continue;
        }
        let around = order.around_launches(a);
        let n = around.len().max(1) as f64;
        let per_launch = a.duration_s().unwrap_or(0.0) / n;
        let written = writes(a) / n;
        let write_share = if bytes(a) > 0.0 { (writes(a) / bytes(a)).min(1.0) } else { 0.0 };
        for (_, next) in around {
            let Some(reader) = next.filter(|r| xla(r) && r.id() != a.id()) else { continue };
            let r_launches = reader.launch_ids().len().max(1) as f64;
            let r_bytes = bytes(reader) / r_launches;
            if written <= 0.0
                || r_bytes <= 0.0
                || r_bytes > written * LINK_SIZE_RATIO
                || written > r_bytes * LINK_SIZE_RATIO
            {
                continue;
            }
            let r_launch = reader.duration_s().unwrap_or(0.0) / r_launches;
            for (k, s) in [(a, per_launch * write_share), (reader, r_launch * (written / r_bytes).min(1.0))] {
                if !ks.iter().any(|x| x.id() == k.id()) {
                    ks.push(k);
                }
                let cap = k.duration_s().unwrap_or(0.0);
                let e = saved.entry(k.id()).or_insert(0.0);
                *e = (*e + s).min(cap);
            }
        }
    }
    if ks.is_empty() {
        return None;
    }
    let per_kernel: Vec<f64> = ks.iter().map(|k| saved.get(k.id()).copied().unwrap_or(0.0)).collect();
    Some(Fusion {
        kind: FusionKind::XlaIntermediates,
        kernels: ks.iter().map(|a| a.id().to_string()).collect(),
        seconds: ks.iter().filter_map(|a| a.duration_s()).sum(),
        saved_s: per_kernel.iter().sum(),
        rests_on: format!("by launch order: an XLA fusion whose next launch is an XLA fusion moving DRAM bytes within {LINK_SIZE_RATIO}x of what it wrote reads that array back; fused, it is never written: the writer saves its written share of the launch, the reader the array's share of its bytes"),
        saved_per_kernel_s: per_kernel,
    })
}

/// A PyTorch kernel that gathers rows by an index (`index_select`,
/// `x[index]`, `torch.gather`): a gather kernel or an index-select one.
fn row_gather<K: KernelFacts>(k: &K) -> bool {
    let n = k.name();
    origin(n).library == Library::PyTorch
        && (n.contains("gather_kernel") || n.contains("indexSelectLargeIndex") || n.contains("indexSelectSmallIndex"))
        && !n.contains("ReduceAdd")
}

/// A PyTorch kernel that adds rows into an output by an index
/// (`scatter_add_`, `index_add_`, `index_put_(accumulate=True)`).
fn row_scatter_add<K: KernelFacts>(k: &K) -> bool {
    let n = k.name();
    origin(n).library == Library::PyTorch
        && n.contains("ReduceAdd")
        && (n.contains("scatter_gather") || n.contains("indexFunc") || n.contains("index_put"))
}

/// Launches walked back from a scatter-add to the gather whose rows it
/// adds: a mean aggregation launches the gather, the scatter-add, and its
/// count and division between forward and backward; a GEMM, convolution
/// or attention between them is a layer (a mixture of experts' MLP), not
/// an aggregation.
const AGGREGATION_DEPTH: u64 = 4;

/// Gathers followed by scatter-adds, by launch order: message passing,
/// whose per-edge tensor the gather writes and the scatter-add reads back.
/// One sparse matrix product over the adjacency reads the source rows and
/// writes the destination rows, so the gather saves its written share of
/// its launch (its DRAM writes over its DRAM bytes: the rows it wrote) and
/// the scatter-add its read share (the rows it read back). Each gather
/// launch pairs with one scatter-add at most. Only with launch IDs.
fn sparse_aggregation<K: KernelFacts>(kernels: &[K], order: &CaptureOrder<K>) -> Option<Fusion> {
    let layer = |k: &K| matches!(order.origin(k).role, Role::Gemm | Role::Convolution | Role::Attention);
    let share = |k: &K, written: bool| {
        let b = bytes(k);
        if b <= 0.0 {
            return 0.0;
        }
        let w = (writes(k) / b).clamp(0.0, 1.0);
        if written {
            w
        } else {
            1.0 - w
        }
    };
    let mut saved_by_id: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
    let mut paired = std::collections::HashSet::new();
    for a in kernels.iter().filter(|a| row_scatter_add(*a) && a.duration_s().is_some_and(|d| d > 0.0)) {
        let per_launch = a.duration_s().unwrap_or(0.0) / a.launch_ids().len().max(1) as f64;
        for id in a.launch_ids().iter().filter_map(|i| i.parse::<u64>().ok()) {
            let gather = (1..=AGGREGATION_DEPTH.min(id))
                .map(|back| (id - back, order.by_launch_id.get(&(id - back)).copied()))
                .take_while(|(_, k)| k.is_some_and(|k| !layer(k)))
                .find_map(|(at, k)| k.filter(|k| row_gather(*k)).map(|k| (at, k)));
            let Some((at, g)) = gather else { continue };
            if !paired.insert(at) {
                continue;
            }
            let g_launch = g.duration_s().unwrap_or(0.0) / g.launch_ids().len().max(1) as f64;
            *saved_by_id.entry(g.id()).or_default() += g_launch * share(g, true);
            *saved_by_id.entry(a.id()).or_default() += per_launch * share(a, false);
        }
    }
    let ks: Vec<&K> = kernels.iter().filter(|k| saved_by_id.contains_key(k.id())).collect();
    if ks.is_empty() {
        return None;
    }
    let per_kernel: Vec<f64> = ks.iter().map(|k| saved_by_id[k.id()]).collect();
    Some(Fusion {
        kind: FusionKind::SparseAggregation,
        kernels: ks.iter().map(|k| k.id().to_string()).collect(),
        seconds: ks.iter().filter_map(|k| k.duration_s()).sum(),
        saved_s: per_kernel.iter().sum(),
        rests_on: "by launch order: a scatter-add launched within 4 launches after a gather, no GEMM, convolution or attention between, adds the rows the gather wrote; a sparse product writes no per-edge rows, so the gather saves the share of its DRAM bytes it wrote and the scatter-add the share it read, each of its launch; the product's own reads of the source rows and writes of the destinations stay".into(),
        saved_per_kernel_s: per_kernel,
    })
}

/// Whether the capture is of a training step: backward kernels (a
/// convolution's data or weight gradient, `*_backward`) or an optimizer's.
pub(crate) fn training_step<K: KernelFacts>(kernels: &[K]) -> bool {
    kernels.iter().any(|a| {
        let o = origin(a.name());
        let lower = a.name().to_ascii_lowercase();
        matches!(o.role, Role::Foreach | Role::FusedOptimizer)
            || ["dgrad", "wgrad", "backward"].iter().any(|w| lower.contains(w))
    })
}

/// The program-level opportunities of an analysis, largest saving first.
pub fn fusions<K: KernelFacts>(kernels: &[K]) -> Vec<Fusion> {
    let timed = |a: &&K| a.duration_s().is_some_and(|d| d > 0.0 && d.is_finite());
    // CuPy's generated kernels are mostly the internals of its functions
    // (a sort's copy, a bincount's checks): no fusion the user controls.
    let order = CaptureOrder::of(kernels);
    let of_role = |roles: &[Role]| -> Vec<&K> {
        kernels
            .iter()
            .filter(timed)
            .filter(|a| {
                let o = order.origin(a);
                roles.contains(&o.role) && o.library != Library::Cupy
            })
            .collect()
    };
    let secs = |ks: &[&K]| ks.iter().filter_map(|a| a.duration_s()).sum::<f64>();
    let ids = |ks: &[&K]| ks.iter().map(|a| a.id().to_string()).collect::<Vec<_>>();
    let mut out = Vec::new();
    let clipping = gradient_clipping(kernels, &order);
    let clipped = |a: &&K| clipping.as_ref().is_some_and(|f| f.kernels.iter().any(|id| id == a.id()));
    let chain: Vec<&K> = of_role(&[Role::Foreach]).into_iter().filter(|a| !clipped(a)).collect();
    out.extend(clipping);
    if !chain.is_empty() {
        let adam = chain.iter().any(|a| {
            let n = a.name().to_ascii_lowercase();
            ["lerp", "addcdiv", "addcmul", "sqrt"].iter().any(|f| n.contains(f))
        });
        let (passes, fused) = if adam { (20.0, 7.0) } else { (11.0, 5.0) };
        let t = secs(&chain);
        out.push(Fusion {
            kind: FusionKind::OptimizerChain,
            kernels: ids(&chain),
            seconds: t,
            saved_s: t * (1.0 - fused / passes),
            rests_on: format!(
                "a foreach {} step makes about {passes:.0} passes over parameter-sized data, a fused one {fused:.0}, at the bandwidth these kernels reached",
                if adam { "Adam/AdamW" } else { "SGD" }
            ),
            saved_per_kernel_s: Vec::new(),
        });
    }
    for (kind, roles, basis) in [
        (FusionKind::Casts, &[Role::Cast][..], "the casts' whole time: the kernels go away"),
        (FusionKind::LayoutTransposes, &[Role::LayoutTranspose][..], "the transposes' whole time: the kernels go away"),
    ] {
        let ks = of_role(roles);
        if !ks.is_empty() {
            let t = secs(&ks);
            out.push(Fusion {
                kind,
                kernels: ids(&ks),
                seconds: t,
                saved_s: t,
                rests_on: basis.into(),
                saved_per_kernel_s: Vec::new(),
            });
        }
    }
    // Triton's layout copies (clone, transpose, select of views) in a
    // program with fused attention: the q, k, v reorderings attention can
    // read as strided views; the copies go away.
    if kernels.iter().any(|a| order.origin(a).role == Role::Attention) {
        let ks: Vec<&K> =
            of_role(&[Role::Copy]).into_iter().filter(|a| order.origin(a).library == Library::Triton).collect();
        if !ks.is_empty() {
            let t = secs(&ks);
            out.push(Fusion {
                kind: FusionKind::AttentionLayout,
                kernels: ids(&ks),
                seconds: t,
                saved_s: t,
                rests_on: "the copies' whole time: attention reads the projection's output in place".into(),
                saved_per_kernel_s: Vec::new(),
            });
        }
    }
    let internals = library_call_internals(kernels, &order);
    let internal: std::collections::HashSet<String> = internals.iter().flat_map(|f| f.kernels.clone()).collect();
    out.extend(array_expressions(kernels, &order, &internal));
    out.extend(internals);
    out.extend(xla_intermediates(kernels, &order));
    out.extend(sparse_aggregation(kernels, &order));
    let gemms = kernels.iter().any(|a| matches!(order.origin(a).role, Role::Gemm));
    // An epilogue takes the activation of the GEMM or convolution that
    // produced its input; after a norm or elementwise work it is a link of
    // the chain instead.
    let (acts, after_other): (Vec<&K>, Vec<&K>) = of_role(&[Role::Activation])
        .into_iter()
        .partition(|a| matches!(order.predecessor(a), None | Some(Role::Gemm | Role::Convolution)));
    if gemms && !acts.is_empty() {
        let t = secs(&acts);
        out.push(Fusion {
            kind: FusionKind::Epilogue,
            kernels: ids(&acts),
            seconds: t,
            saved_s: t,
            rests_on: "the activations' whole time: an epilogue applies them while the GEMM writes its output".into(),
            saved_per_kernel_s: Vec::new(),
        });
    }
    // Without a GEMM to absorb them, activations are links of the chain;
    // so are those that follow a norm. Triton's kernels are already fused.
    let chain_roles: &[Role] =
        if gemms { &[Role::Elementwise, Role::Copy] } else { &[Role::Elementwise, Role::Copy, Role::Activation] };
    let mut elementwise = of_role(chain_roles);
    if gemms {
        elementwise.extend(after_other);
    }
    elementwise.extend(kernels.iter().filter(timed).filter(|a| framework_glue(*a, &order)));
    // A gather whose result an elementwise kernel reads next joins the
    // chain with its write.
    let read_elementwise = |r: Role| r.is_elementwise() || matches!(r, Role::Copy | Role::Activation);
    elementwise.extend(
        kernels
            .iter()
            .filter(timed)
            .filter(|a| pytorch_gather(*a, &order) && gather_launches_read(*a, &order, read_elementwise) > 0.0),
    );
    elementwise.retain(|a| order.origin(a).library != Library::Triton);
    if !elementwise.is_empty() {
        let per_kernel: Vec<f64> = elementwise
            .iter()
            .map(|&a| {
                let t = a.duration_s().unwrap_or(0.0);
                if under_diagonal_reduction(a, &order) {
                    t * reduction_gap_share(a)
                } else if pytorch_gather(a, &order) {
                    let read = gather_launches_read(a, &order, read_elementwise);
                    if bytes(a) > 0.0 {
                        t * (writes(a) / bytes(a)).min(1.0) * read
                    } else {
                        0.0
                    }
                } else if order.predecessor_kernel(a).is_some_and(|g| pytorch_gather(g, &order)) {
                    // Fed by a gather, which books the write: only the
                    // read, on the launches a gather fed.
                    let around = order.around_launches(a);
                    let fed = around.iter().filter(|(b, _)| b.is_some_and(|g| pytorch_gather(g, &order))).count();
                    let fed = if around.is_empty() { 1.0 } else { fed as f64 / around.len() as f64 };
                    t * fused_share(a, &order) * (1.0 - fed / 2.0)
                } else {
                    t * fused_share(a, &order) * fusable_launches(a, &order)
                }
            })
            .collect();
        let t = secs(&elementwise);
        let saved: f64 = per_kernel.iter().sum();
        if saved > 0.0 {
            out.push(Fusion {
                kind: FusionKind::ElementwiseChain,
                kernels: ids(&elementwise),
                seconds: t,
                saved_s: saved,
                rests_on: format!(
                    "fused into the kernel that produces its input, each no longer has one operand written and read back{}: {:.0}% of these kernels' time",
                    if elementwise.iter().any(|&a| under_diagonal_reduction(a, &order)) {
                        "; a reduction under the diagonal, compiled, streams its input at the bandwidth roof"
                    } else {
                        ""
                    },
                    100.0 * saved / t
                ),
                saved_per_kernel_s: per_kernel,
            });
        }
    }
    out.sort_by(|a, b| b.saved_s.total_cmp(&a.saved_s));
    out
}

/// Shares each group's saving over its kernels' moves (in proportion to
/// their time), then ranks every kernel's moves again.
pub fn apply(kernels: &mut [KernelAnalysis], fusions: &[Fusion]) {
    let members = Members::of(kernels, fusions);
    let program = ProgramFacts::of(kernels);
    for (i, a) in kernels.iter_mut().enumerate() {
        apply_one(a, members.of_kernel(i), fusions, program);
    }
}

/// What the whole capture says about each kernel's moves, found once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProgramFacts {
    /// A training step ([`training_step`]): a larger batch is a training
    /// choice, not a saving per step, so the library's larger-problem move
    /// becomes evidence.
    training: bool,
    /// The array library the program calls cuBLAS through, when it is not
    /// PyTorch: CuPy's kernels and none of PyTorch's (TF32 then has CuPy's
    /// switch, not PyTorch's).
    caller: Option<Library>,
}

impl ProgramFacts {
    pub(crate) fn of<K: KernelFacts>(kernels: &[K]) -> ProgramFacts {
        let has = |l: Library| kernels.iter().any(|k| origin(k.name()).library == l);
        let caller = (has(Library::Cupy) && !has(Library::PyTorch)).then_some(Library::Cupy);
        ProgramFacts { training: training_step(kernels), caller }
    }
}

/// Each kernel's places in the groups: (kernel's index, group's index,
/// the kernel's first place in the group's list), sorted. Found once: a
/// search of every group's list for every kernel grew with their product
/// (160k kernels).
#[derive(Debug)]
pub(crate) struct Members(Vec<(usize, usize, usize)>);

impl Members {
    pub(crate) fn of<K: KernelFacts>(kernels: &[K], fusions: &[Fusion]) -> Members {
        let mut by_id: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
        for (i, a) in kernels.iter().enumerate() {
            by_id.entry(a.id()).or_default().push(i);
        }
        let mut m = Vec::new();
        for (g, f) in fusions.iter().enumerate() {
            for (at, id) in f.kernels.iter().enumerate() {
                m.extend(by_id.get(id.as_str()).into_iter().flatten().map(|&i| (i, g, at)));
            }
        }
        m.sort_unstable();
        m.dedup_by_key(|x| (x.0, x.1));
        Members(m)
    }

    /// The places of the `i`th kernel, in the groups' order.
    pub(crate) fn of_kernel(&self, i: usize) -> &[(usize, usize, usize)] {
        let from = self.0.partition_point(|m| m.0 < i);
        let to = self.0.partition_point(|m| m.0 <= i);
        &self.0[from..to]
    }
}

/// [`apply`] to one kernel: `members` are its places in `fusions`
/// ([`Members::of_kernel`]), `program` what all the capture's kernels say
/// ([`ProgramFacts::of`]).
pub(crate) fn apply_one(
    a: &mut KernelAnalysis,
    members: &[(usize, usize, usize)],
    fusions: &[Fusion],
    program: ProgramFacts,
) {
    if let (Some(c), Some(d)) = (program.caller, a.diagnosis.as_mut()) {
        for m in &mut d.next_moves {
            if let Advice::AllowTf32 { caller, .. } = &mut m.advice {
                *caller = Some(c);
            }
        }
    }
    for &(_, g, at) in members {
        let f = &fusions[g];
        let frac = if f.seconds > 0.0 { f.saved_s / f.seconds } else { 0.0 };
        let advice = f.kind.advice();
        let Some(t) = a.kernel.duration_s else { continue };
        let Some(d) = a.diagnosis.as_mut() else { continue };
        let saved = f.saved_per_kernel_s.get(at).copied().unwrap_or(t * frac);
        let m = Move::saving(advice.clone(), saved, format!("{} (program view): {}", f.kind.label(), f.rests_on));
        match d.next_moves.iter_mut().find(|m| m.advice == advice) {
            Some(old) => *old = m,
            None => d.next_moves.push(m),
        }
        // A group move is the kernel's move: the catch-all goes.
        d.next_moves.retain(|m| !matches!(m.advice, Advice::LibraryKernel { .. } | Advice::WaitOnLatency));
        crate::diagnosis::rank_moves(&mut d.next_moves, t, &mut d.evidence);
    }
    if program.training {
        if let Some(d) = a.diagnosis.as_mut() {
            if let Some(at) = d.next_moves.iter().position(|m| m.advice == Advice::LargerProblem) {
                let m = d.next_moves.remove(at);
                d.evidence
                    .push(crate::findings::Finding::BatchIsTrainingChoice { saving_s: m.saving_s.unwrap_or(0.0) });
                if d.next_moves.is_empty() {
                    let binding = d.binding().map(|(u, _)| u);
                    d.next_moves.push(crate::diagnosis::no_cause_move(d.position, origin(&a.kernel.name), binding));
                }
            }
        }
    }
    // Group moves with no group (a lone elementwise kernel) have no estimate: drop them.
    if let Some(d) = a.diagnosis.as_mut() {
        let before = d.next_moves.len();
        d.next_moves.retain(|m| {
            m.saving_s.is_some()
                || !matches!(m.advice, Advice::FusedOptimizer | Advice::FuseElementwise | Advice::EpilogueFusion)
        });
        if d.next_moves.is_empty() && (before > 0 || !d.evidence.is_empty()) {
            let binding = d.binding().map(|(u, _)| u);
            d.next_moves.push(crate::diagnosis::no_cause_move(d.position, origin(&a.kernel.name), binding));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::analyze;
    use roofline_model::{FlopKind, Kernel, Machine, MemLevel, Origin};

    const ADD: &str = "void at::vectorized_elementwise_kernel<8, at::CUDAFunctor_add<c10::BFloat16>, std::array<char *, 3>>(int, T2, T3)";
    const RELU: &str = "void at::vectorized_elementwise_kernel<8, at::<unnamed>::launch_clamp_scalar(at::TensorIteratorBase &, c10::Scalar, c10::Scalar, detail::ClampLimits)::[lambda(c10::BFloat16) (instance 1)], std::array<char *, 2>>(int, T2, T3)";
    const BN: &str = "void at::batch_norm_transform_input_kernel<c10::BFloat16, float, float, 1, int>(int)";
    const GEMM: &str = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_execute_kernel__5x_cublas";

    fn timed(name: &str, seconds: f64, order: u64) -> Kernel {
        let mut k = Kernel::named(name, Origin::Counter);
        k.flops.insert(FlopKind::Fp32, 1e3);
        k.bytes.insert(MemLevel::Dram, 1e8);
        k.duration_s = Some(seconds);
        k.capture_order = Some(order);
        k
    }

    fn group(fs: &[Fusion], kind: FusionKind) -> Option<&Fusion> {
        fs.iter().find(|f| f.kind == kind)
    }

    #[test]
    fn a_lone_elementwise_kernel_saves_one_operands_round_trip_per_operand_count() {
        assert_eq!((operands(ADD), operands(RELU), operands(GEMM)), (Some(3), Some(2), None));
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        // A residual add (2 inputs, 1 output) beside a GEMM: fused, one input
        // is no longer written and read back, 2/3 of its time.
        let ks = analyze(&m, &[timed(GEMM, 1e-3, 1), timed(ADD, 30e-6, 2)]);
        let f = fusions(&ks);
        let chain = group(&f, FusionKind::ElementwiseChain).expect("the add is an opportunity");
        assert!((chain.saved_s - 20e-6).abs() < 1e-12, "{chain:?}");
        assert_eq!(chain.saved_per_kernel_s.len(), 1);
    }

    #[test]
    fn the_head_of_a_chain_fed_from_outside_the_capture_saves_nothing() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        // add (first in the capture) -> ReLU: only the ReLU's input round trip goes.
        let ks = analyze(&m, &[timed(ADD, 30e-6, 1), timed(RELU, 15e-6, 2)]);
        let chain = group(&fusions(&ks), FusionKind::ElementwiseChain).cloned().unwrap();
        assert!((chain.saved_s - 15e-6).abs() < 1e-12, "{chain:?}");
        // Launched twice, its second launch follows the ReLU: half of it counts.
        let mut add = timed(ADD, 30e-6, 1);
        add.launches = 2;
        let ks = analyze(&m, &[add, timed(RELU, 15e-6, 2)]);
        let chain = group(&fusions(&ks), FusionKind::ElementwiseChain).cloned().unwrap();
        assert!((chain.saved_s - (15e-6 + 10e-6)).abs() < 1e-12, "{chain:?}");
    }

    #[test]
    fn launch_bound_framework_glue_joins_the_compile_group_with_its_whole_time() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        let mean = "void at::reduce_kernel<512, 1, at::ReduceOp<float, at::MeanOps<float, float, float, float>, unsigned int, float, 4, 4>>(T3)";
        let mut r = timed(mean, 3e-6, 2);
        r.bytes.insert(MemLevel::Dram, 1e3);
        let ks = analyze(&m, &[timed(GEMM, 1e-3, 1), r]);
        assert_eq!(ks[1].diagnosis.as_ref().unwrap().position, Position::LaunchBound);
        let chain = group(&fusions(&ks), FusionKind::ElementwiseChain).cloned().expect("the glue is an opportunity");
        assert!((chain.saved_s - 3e-6).abs() < 1e-15, "{chain:?}");
    }

    #[test]
    fn a_kernel_at_a_roof_whose_fusion_has_no_estimate_is_never_told_it_waits_on_latency() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        // The user's own copy, first in the capture (no producer to fuse
        // into), with L2 at 92%: its fusion move goes, and fewer L2 bytes is left.
        let mut copy = timed("strided_copy", 1e-3, 1);
        copy.evidence.level_busy_pct.insert(MemLevel::L2, 92.0);
        let mut ks = analyze(&m, &[copy]);
        let f = fusions(&ks);
        apply(&mut ks, &f);
        let d = ks[0].diagnosis.as_ref().unwrap();
        assert_eq!(d.position, Position::OnDiagonal);
        let codes: Vec<String> = d.next_moves.iter().map(|m| m.code()).collect();
        assert_eq!(codes, ["closer_level"], "{d:?}");
    }

    #[test]
    fn an_activation_after_a_norm_joins_the_norms_fusion_not_a_gemm_epilogue() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        let ks = analyze(&m, &[timed(GEMM, 1e-3, 1), timed(BN, 40e-6, 2), timed(RELU, 15e-6, 3)]);
        let f = fusions(&ks);
        assert!(group(&f, FusionKind::Epilogue).is_none(), "{f:?}");
        let chain = group(&f, FusionKind::ElementwiseChain).expect("the ReLU fuses with the norm");
        // Unary: the whole time.
        assert!((chain.saved_s - 15e-6).abs() < 1e-12, "{chain:?}");
        // Right after the GEMM instead, it is the GEMM's epilogue.
        let ks = analyze(&m, &[timed(BN, 40e-6, 1), timed(GEMM, 1e-3, 2), timed(RELU, 15e-6, 3)]);
        let f = fusions(&ks);
        assert!(group(&f, FusionKind::Epilogue).is_some_and(|e| (e.saved_s - 15e-6).abs() < 1e-12), "{f:?}");
    }

    #[test]
    fn an_activation_after_elementwise_work_is_a_link_of_the_chain_not_an_epilogue() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        // GEMM -> add -> ReLU: no GEMM wrote the ReLU's input.
        let ks = analyze(&m, &[timed(GEMM, 1e-3, 1), timed(ADD, 30e-6, 2), timed(RELU, 15e-6, 3)]);
        let f = fusions(&ks);
        assert!(group(&f, FusionKind::Epilogue).is_none(), "{f:?}");
        let chain = group(&f, FusionKind::ElementwiseChain).expect("the ReLU fuses with the add");
        assert!(chain.kernels.iter().any(|id| ks[2].kernel.id == *id), "{chain:?}");
    }

    #[test]
    fn the_kernel_before_an_activation_is_found_by_launch_id_when_the_capture_has_them() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        // GEMM (launches 0 and 2), a norm (launch 1), the ReLU (launch 3):
        // by first launch the norm precedes the ReLU, by launch the GEMM does.
        let with_ids = |mut k: Kernel, ids: &[&str]| {
            k.evidence.ncu_launch_ids = ids.iter().map(|s| s.to_string()).collect();
            k
        };
        let ks = analyze(
            &m,
            &[
                with_ids(timed(GEMM, 1e-3, 1), &["0", "2"]),
                with_ids(timed(BN, 40e-6, 2), &["1"]),
                with_ids(timed(RELU, 15e-6, 3), &["3"]),
            ],
        );
        let f = fusions(&ks);
        assert!(group(&f, FusionKind::Epilogue).is_some_and(|e| e.kernels == [ks[2].kernel.id.clone()]), "{f:?}");
        // Without the IDs, the first-launch order decides: the norm's fusion.
        let ks = analyze(&m, &[timed(GEMM, 1e-3, 1), timed(BN, 40e-6, 2), timed(RELU, 15e-6, 3)]);
        assert!(group(&fusions(&ks), FusionKind::Epilogue).is_none());
    }

    #[test]
    fn each_kernel_of_a_group_gets_its_own_share_of_the_saving() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        let mut ks =
            analyze(&m, &[timed(GEMM, 1e-3, 1), timed(ADD, 30e-6, 2), timed(BN, 40e-6, 3), timed(RELU, 15e-6, 4)]);
        let f = fusions(&ks);
        apply(&mut ks, &f);
        let saving = |name: &str| {
            let a = ks.iter().find(|a| a.kernel.name == name).unwrap();
            a.diagnosis
                .as_ref()
                .unwrap()
                .next_moves
                .iter()
                .find(|m| m.advice == Advice::FuseElementwise)
                .and_then(|m| m.saving_s)
        };
        assert!(saving(ADD).is_some_and(|s| (s - 20e-6).abs() < 1e-12));
        assert!(saving(RELU).is_some_and(|s| (s - 15e-6).abs() < 1e-12));
    }

    #[test]
    fn a_launch_bound_head_whose_output_the_next_kernel_reads_saves_its_whole_launch() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        let pow = "void at::vectorized_elementwise_kernel<4, void at::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase &, T2)::[lambda(float) (instance 1)], std::array<char *, 2>>(int, T2, T3)";
        let mean = "void at::reduce_kernel<512, 1, at::ReduceOp<float, at::MeanOps<float, float, float, float>, unsigned int, float, 4, 4>>(T3)";
        let small = |name: &str, order: u64| {
            let mut k = timed(name, 3e-6, order);
            k.bytes.insert(MemLevel::Dram, 1e3);
            k
        };
        let ks = analyze(&m, &[small(pow, 1), small(mean, 2)]);
        assert_eq!(ks[0].diagnosis.as_ref().unwrap().position, Position::LaunchBound);
        let chain = group(&fusions(&ks), FusionKind::ElementwiseChain).cloned().unwrap();
        assert!((chain.saved_s - 6e-6).abs() < 1e-15, "{chain:?}");
        // Alone, nothing reads its output in the capture: no saving.
        let ks = analyze(&m, &[small(pow, 1)]);
        assert!(group(&fusions(&ks), FusionKind::ElementwiseChain).is_none());
    }

    #[test]
    fn a_kernel_after_a_layout_transpose_counts_as_fed_by_the_convolution_before_it() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        let back = "void cudnn::nhwcToNchwKernel<__nv_bfloat16, __nv_bfloat16, float, 1, 0, 0>(cudnn::nhwc2nchw_params_t<T3>, const T1 *, T2 *)";
        let ks = analyze(&m, &[timed(back, 30e-6, 1), timed(ADD, 30e-6, 2)]);
        let chain = group(&fusions(&ks), FusionKind::ElementwiseChain).cloned().unwrap();
        assert!((chain.saved_s - 20e-6).abs() < 1e-12, "{chain:?}");
    }

    #[test]
    fn a_cupy_multiply_feeding_an_add_is_a_temporary_only_where_launch_ids_say_so() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        let ids = |mut k: Kernel, ids: &[&str]| {
            k.evidence.ncu_launch_ids = ids.iter().map(|s| s.to_string()).collect();
            k
        };
        let mul = "cupy_multiply__float64_float64_float64";
        let add = "cupy_add__float64_float64_float64";
        let ks = analyze(&m, &[ids(timed(mul, 30e-6, 1), &["0"]), ids(timed(add, 30e-6, 2), &["1"])]);
        let f = group(&fusions(&ks), FusionKind::ArrayExpressions).cloned().expect("a scaled temporary");
        // 2 of its 3 operands: the temporary written (booked on the
        // multiply) and read back (booked on the add).
        assert!((f.saved_s - 20e-6).abs() < 1e-12, "{f:?}");
        assert_eq!(f.kernels, [ks[0].kernel.id.clone(), ks[1].kernel.id.clone()]);
        for got in &f.saved_per_kernel_s {
            assert!((got - 10e-6).abs() < 1e-12, "{f:?}");
        }
        // The add first, the multiply after: nothing reads the product, and
        // the multiply is a link that reads the sum back (2 of its 3
        // operands), booked once.
        let ks = analyze(&m, &[ids(timed(add, 30e-6, 1), &["0"]), ids(timed(mul, 30e-6, 2), &["1"])]);
        let f = group(&fusions(&ks), FusionKind::ArrayExpressions).cloned().expect("a link");
        assert_eq!(f.kernels, [ks[1].kernel.id.clone()]);
        assert!((f.saved_s - 20e-6).abs() < 1e-12, "{f:?}");
        // Without launch IDs the order is no evidence.
        let ks = analyze(&m, &[timed(mul, 30e-6, 1), timed(add, 30e-6, 2)]);
        assert!(group(&fusions(&ks), FusionKind::ArrayExpressions).is_none());
    }

    #[test]
    fn each_link_of_a_cupy_expression_saves_its_intermediate_and_a_reduction_after_one_its_whole_launch() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        let launch = |name: &str, order: u64, bytes: f64| {
            let mut k = timed(name, 30e-6, order);
            k.bytes.insert(MemLevel::Dram, bytes);
            k.evidence.ncu_launch_ids = vec![(order - 1).to_string()];
            k
        };
        let add = "cupy_add__float32_float32_float32";
        let sub = "cupy_subtract__float32_float32_float32";
        let abs = "cupy_absolute__float32_float32";
        let max = "void cub::DeviceReduceKernel<cub::policy_hub<float, unsigned int, nan_handling_max<float>>::Policy1000, float *, unsigned int, nan_handling_max<float>, float, cuda::identity>(T2, T5 *, T3, cub::GridEvenShare<T3>, T4, T6)";
        // `abs(a + b - c).max()`: the add is the head (fed from outside);
        // the subtract reads the sum (2 of 3 operands), abs the difference
        // (2 of 2), and the max reads abs's result: all its launch.
        let ks = analyze(&m, &[launch(add, 1, 3e8), launch(sub, 2, 3e8), launch(abs, 3, 2e8), launch(max, 4, 1e8)]);
        let f = group(&fusions(&ks), FusionKind::ArrayExpressions).cloned().expect("an expression");
        let ids: Vec<String> = ks[1..].iter().map(|k| k.kernel.id.clone()).collect();
        assert_eq!(f.kernels, ids);
        for (got, want) in f.saved_per_kernel_s.iter().zip([20e-6, 30e-6, 30e-6]) {
            assert!((got - want).abs() < 1e-12, "{f:?}");
        }
        // Arrays of other sizes (DRAM bytes over 4x apart): no evidence that
        // one reads the other's result.
        let ks = analyze(&m, &[launch(add, 1, 3e8), launch(sub, 2, 3e6)]);
        assert!(group(&fusions(&ks), FusionKind::ArrayExpressions).is_none());
        let ks = analyze(&m, &[launch(add, 1, 3e8), launch(sub, 2, 1.3e9)]);
        assert!(group(&fusions(&ks), FusionKind::ArrayExpressions).is_none());
        let ks = analyze(&m, &[launch(add, 1, 3e8), launch(sub, 2, 1.1e9)]);
        assert!(group(&fusions(&ks), FusionKind::ArrayExpressions).is_some());
    }

    #[test]
    fn a_gather_then_a_scatter_add_is_one_sparse_product_unless_a_layer_runs_between() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        let gather =
            "void at::vectorized_gather_kernel<16, long>(char *, char *, T2 *, int, long, long, long, long, bool)";
        let scatter = "void at::_scatter_gather_elementwise_kernel<128, 8, void at::_cuda_scatter_gather_internal_kernel<1, float, long>::operator ()<at::ReduceAdd>(at::TensorIterator &, long, long, long, const T1 &)::[lambda(int) (instance 1)]>(int, T3)";
        let index_add = "void at::indexFuncLargeIndex<float, long, unsigned int, 2, 2, (int)-2, 1, at::<unnamed>::ReduceAdd>(cuda::TensorInfo<T1, T3>, cuda::TensorInfo<const T1, T3>, cuda::TensorInfo<const T2, T3>, int, int, T3, T3, long, long, const T8 &, T1)";
        let launch = |name: &str, order: u64, written: f64| {
            let mut k = timed(name, 100e-6, order);
            k.evidence.dram_write_bytes = Some(written);
            k.evidence.ncu_launch_ids = vec![(order - 1).to_string()];
            k
        };
        // The gather writes 80% of its 1e8 DRAM bytes (the per-edge rows),
        // the scatter-add reads 90% of its bytes (those rows back), the
        // index-add (the gather's backward) 70%.
        let ks = analyze(
            &m,
            &[launch(gather, 1, 8e7), launch(ADD, 2, 3e7), launch(scatter, 3, 1e7), launch(index_add, 4, 3e7)],
        );
        let f = group(&fusions(&ks), FusionKind::SparseAggregation).cloned().expect("an aggregation");
        assert_eq!(f.kernels, [ks[0].kernel.id.clone(), ks[2].kernel.id.clone()], "one gather pairs once: {f:?}");
        for (got, want) in f.saved_per_kernel_s.iter().zip([80e-6, 90e-6]) {
            assert!((got - want).abs() < 1e-9, "{f:?}");
        }
        // Shared out, it is the gather's first move.
        let mut ks = ks;
        apply(&mut ks, std::slice::from_ref(&f));
        let first = ks[0].diagnosis.as_ref().and_then(|d| d.next_moves.first()).map(|m| m.advice.clone());
        assert_eq!(first, Some(Advice::SparseAggregation));
        // A mixture of experts: tokens gathered, an expert's GEMM, then
        // added back by index: a layer, not an aggregation.
        let ks = analyze(&m, &[launch(gather, 1, 8e7), launch(GEMM, 2, 1e7), launch(index_add, 3, 1e7)]);
        assert!(group(&fusions(&ks), FusionKind::SparseAggregation).is_none());
        // Too far apart (5 launches back) or without launch IDs: no pair.
        let far: Vec<Kernel> = std::iter::once(launch(gather, 1, 8e7))
            .chain((2..=5).map(|o| launch(ADD, o, 3e7)))
            .chain(std::iter::once(launch(scatter, 6, 1e7)))
            .collect();
        assert!(group(&fusions(&analyze(&m, &far)), FusionKind::SparseAggregation).is_none());
        let near: Vec<Kernel> = std::iter::once(launch(gather, 1, 8e7))
            .chain((2..=4).map(|o| launch(ADD, o, 3e7)))
            .chain(std::iter::once(launch(scatter, 5, 1e7)))
            .collect();
        assert!(group(&fusions(&analyze(&m, &near)), FusionKind::SparseAggregation).is_some(), "4 launches back");
        let ks = analyze(&m, &[timed(gather, 1e-4, 1), timed(scatter, 1e-4, 2)]);
        assert!(group(&fusions(&ks), FusionKind::SparseAggregation).is_none());
    }

    #[test]
    fn backward_or_optimizer_kernels_make_a_capture_a_training_step() {
        let m = Machine::simple("m", FlopKind::Fp32, 1e12, 1e12);
        let foreach = "void at::native::<unnamed>::multi_tensor_apply_kernel<at::native::<unnamed>::TensorListMetadata<3>>(T1, T2, T3...)";
        let dgrad = "sm90_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64";
        assert!(training_step(&analyze(&m, &[timed(GEMM, 1e-3, 1), timed(foreach, 1e-4, 2)])));
        assert!(training_step(&analyze(&m, &[timed(dgrad, 1e-3, 1)])));
        assert!(!training_step(&analyze(&m, &[timed(GEMM, 1e-3, 1), timed(ADD, 30e-6, 2)])));
    }
}
