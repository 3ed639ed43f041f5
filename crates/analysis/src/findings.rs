//! What a diagnosis says, as data: where a kernel landed ([`Position`]), the
//! evidence it rests on ([`Finding`]) and the next moves ([`Advice`]), each
//! a code with its numbers; the English is made here, when rendering, so
//! every view words a verdict the same way and tests match codes.

use serde::{Deserialize, Serialize};

use roofline_model::{format_percent, format_si, LevelCaveat, MemLevel, Pipe, Unit};

use crate::origin::{Library, Origin, Role};
use crate::thresholds::*;
use crate::unit::{Basis, Unit as HwUnit};

/// Where a kernel landed against its roofs (see the module's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Position {
    /// Memory-bound, at or above [`ON_ROOF_PCT`] of its roof.
    OnDiagonal,
    /// Memory-bound, below [`ON_ROOF_PCT`] of its roof.
    UnderDiagonal,
    /// Compute-bound, at or above [`ON_ROOF_PCT`] of its roof.
    OnRoof,
    /// Compute-bound, below [`ON_ROOF_PCT`] of its roof.
    UnderFlatRoof,
    /// Below its FLOP/byte roof, held by one of the SM's pipes.
    PipeBound,
    /// Below [`LATENCY_PCT`] of its roof, of every bandwidth and of every pipe.
    LatencyBound,
    /// The issue slots are the busiest unit: too many instructions per result.
    IssueBound,
    /// Launches too short, or grids too small, for any unit to get busy:
    /// the cost is launching, ramping up and draining.
    LaunchBound,
}

impl Position {
    /// The words reports print ("on the diagonal", "latency-bound").
    pub fn label(self) -> &'static str {
        match self {
            Position::OnDiagonal => "on the diagonal",
            Position::UnderDiagonal => "under the diagonal",
            Position::OnRoof => "on the roof",
            Position::UnderFlatRoof => "under the flat roof",
            Position::PipeBound => "pipe-bound",
            Position::LatencyBound => "latency-bound",
            Position::IssueBound => "issue-bound",
            Position::LaunchBound => "launch-bound",
        }
    }
}

/// Loads or stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Global loads.
    Load,
    /// Global stores.
    Store,
}

impl Access {
    /// "load" or "store".
    pub fn label(self) -> &'static str {
        match self {
            Access::Load => "load",
            Access::Store => "store",
        }
    }
}

/// One warp-stall reason with its cycles per issued instruction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stall {
    /// The stall reason as Nsight Compute names it ("long_scoreboard").
    pub reason: String,
    /// Cycles stalled for it per issued instruction (counter).
    pub cycles_per_instruction: f64,
}

/// One fact behind a verdict: a code with its numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum Finding {
    /// The binding limiter: the busiest unit against its own roof, and the
    /// next busiest.
    Binding {
        /// The busiest unit.
        unit: HwUnit,
        /// Its utilisation, % of its roof over the elapsed time.
        pct: f64,
        /// Counter (profiler's utilisation) or roof (rate against the machine's roof).
        basis: Basis,
        /// The next busiest unit and its %, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        runner_up: Option<(HwUnit, f64)>,
    },
    /// Where the kernel comes from (a library, generated code, the user's source).
    KernelOrigin {
        /// The origin read off its name.
        origin: Origin,
    },
    /// The kernel ran at several launch shapes: judged by the shape that
    /// took the most time.
    ShapeGroups {
        /// Distinct (grid, block) shapes.
        shapes: u32,
        /// Share of the kernel's time in the dominant shape, %.
        dominant_pct: f64,
    },
    /// A cause the counters show but that cannot save more than a few
    /// percent of the kernel's time: evidence, not a move.
    SmallCause {
        /// The move it would have been.
        advice: Box<Advice>,
        /// Seconds it could save.
        saving_s: f64,
    },
    /// A larger batch would fill the GPU, but the program is a training
    /// step, whose batch size is a hyperparameter: evidence, not a move.
    BatchIsTrainingChoice {
        /// Seconds a larger problem per launch would have saved.
        saving_s: f64,
    },
    /// % of the roof that applies (`roof`: its name, "DRAM bandwidth", "FP32").
    PctOfRoof {
        /// % of that roof reached.
        pct: f64,
        /// The roof's name.
        roof: String,
    },
    /// % of what streaming with the kernel's DRAM read:write mix reaches.
    PctOfMixRoof {
        /// % of the mix roof reached.
        pct: f64,
        /// The mix roof, bytes/s (interpolated between two streaming benchmarks).
        bytes_per_s: f64,
        /// The kernel's DRAM bytes read as % of its DRAM bytes.
        read_share_pct: f64,
        /// The streaming benchmark below the mix ("dram.copy").
        lower: String,
        /// The streaming benchmark above it.
        upper: String,
    },
    /// Nsight Compute's speed of light, % of peak.
    DramThroughput {
        /// DRAM throughput, % of peak (Nsight Compute).
        pct: f64,
    },
    /// Nsight Compute's SM speed of light, % of peak.
    SmThroughput {
        /// SM throughput, % of peak (Nsight Compute).
        pct: f64,
    },
    /// Occupancy: theoretical, achieved and what limits it.
    Occupancy {
        /// Theoretical occupancy, % of the SM's warp slots.
        theoretical_pct: f64,
        /// Achieved occupancy, %, when counted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        achieved_pct: Option<f64>,
        /// What limits the theoretical figure ("registers", "shared memory").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limiter: Option<String>,
    },
    /// % of the roof at the profiler's own peaks and clocks.
    CounterPctOfRoof {
        /// % of the roof (counter peaks and clocks).
        pct: f64,
    },
    /// The two main stall reasons.
    Stalls {
        /// The reasons, most cycles first.
        top: Vec<Stall>,
    },
    /// Useful bytes per 32-byte sector of global loads or stores, and the
    /// share of the kernel's global sectors those accesses waste.
    SectorUse {
        /// Loads or stores.
        access: Access,
        /// Useful bytes per 32-byte sector (32: every byte used).
        bytes_per_sector: f64,
        /// Share of the kernel's global sectors these accesses waste, %.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wasted_share_pct: Option<f64>,
    },
    /// Nsight Compute's count of L2 sectors beyond what coalesced accesses
    /// need, and their share of the global sectors.
    ExcessSectors {
        /// Excess L2 sectors (counter).
        sectors: f64,
        /// Their share of the global sectors, %.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        share_pct: Option<f64>,
    },
    /// Shared-memory bank conflicts as a share of shared-memory wavefronts.
    BankConflicts {
        /// Bank conflicts (counter).
        conflicts: f64,
        /// Their share of the shared-memory wavefronts, %.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        share_pct: Option<f64>,
    },
    /// The grid fills less than one wave: `blocks` of `slots` (SMs x blocks
    /// resident per SM).
    GridBelowOneWave {
        /// Blocks in the grid.
        blocks: f64,
        /// Block slots: SMs x blocks resident per SM.
        slots: f64,
        /// Share of the slots left idle, %.
        idle_pct: f64,
    },
    /// The last wave keeps `last_wave_pct` of the slots busy; `idle_pct` of
    /// the slot time is idle over the kernel.
    TailWave {
        /// The grid in waves (blocks / slots).
        waves: f64,
        /// Share of the slots the last wave keeps busy, %.
        last_wave_pct: f64,
        /// Share of the slot time idle over the kernel, %.
        idle_pct: f64,
    },
    /// The average SM was active only this share of the elapsed cycles
    /// (measured: the tail and the grid as they were, not as computed).
    SmsIdle {
        /// Average SM active cycles as % of elapsed cycles (counter).
        active_pct: f64,
    },
    /// A launch too short for memory traffic to ramp up.
    ShortLaunch {
        /// Duration of one launch, seconds.
        seconds_per_launch: f64,
    },
    /// The SM clock was below the GPU's maximum: `loss_pct` of the max-clock
    /// roof is out of reach; `gap_share_pct` of the kernel's gap to that roof.
    ClockBelowMax {
        /// SM clock the kernel ran at, Hz (counter).
        clock_hz: f64,
        /// The GPU's maximum SM clock, Hz.
        max_hz: f64,
        /// Share of the max-clock roof out of reach at that clock, %.
        loss_pct: f64,
        /// Share of the kernel's gap to that roof the clock explains, %.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gap_share_pct: Option<f64>,
    },
    /// The busiest pipe and its % of its roof (`of_counter`: the profiler's
    /// utilisation over active cycles, not a rate against a roof).
    BusyPipe {
        /// The pipe.
        pipe: Pipe,
        /// Its % of its roof, or of the profiler's utilisation (`of_counter`).
        pct: f64,
        /// True when `pct` is the profiler's utilisation over active cycles.
        of_counter: bool,
    },
    /// The warp schedulers' issue slots were this busy.
    IssueBusy {
        /// Issue slots used, % (counter).
        pct: f64,
    },
    /// The counters cannot tell packed half2 from scalar half instructions:
    /// the FP16 FLOPs lie between the two counts (the roof uses packed).
    Fp16PackingUnknown {
        /// FP16 FLOPs with every half instruction packed (what the roof uses).
        packed_flops: f64,
        /// FP16 FLOPs with every half instruction scalar (half as many).
        scalar_flops: f64,
    },
    /// HFMA instructions that move constants (HFMA2.MMA), left out of the
    /// FLOPs: "FP16 pipe: constant moves".
    Fp16ConstantMoves {
        /// HFMA thread instructions taken for constant moves.
        thread_instructions: f64,
        /// The FLOPs Nsight Compute's convention would have counted for them.
        flops_as_counted: f64,
    },
    /// A level whose point does not measure its traffic.
    LevelNotMeasured {
        /// The level.
        level: MemLevel,
        /// Why its counter misses traffic.
        caveat: LevelCaveat,
    },
    /// An FP32 GEMM or convolution on the CUDA cores (FFMA, no tensor-core
    /// instructions): one FFMA is 2 FLOPs and one issue slot, so the issue
    /// slots follow the FP32 pipe, whose roof is the FLOP roof.
    CudaCoreGemm {
        /// The FP32 (FMA) pipe's utilisation, %.
        fma_pct: f64,
        /// The issue slots' utilisation, %, when counted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        issue_pct: Option<f64>,
    },
    /// Text from a document written before findings were typed.
    Legacy {
        /// The finding's text as the old document had it.
        text: String,
    },
}

/// A library call whose internal kernels the program view groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LibraryCall {
    /// `cupy.argpartition` or `cupy.partition`.
    Selection,
    /// A random integer draw on cuRAND's generator (`cupy.random.randint`).
    RandomIntegers,
}

/// One next move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum Advice {
    /// cuBLAS or cuDNN chose a kernel for unaligned operands: pad the shape.
    PadShape {
        /// The operand alignment the kernel handles, elements (8 is the
        /// aligned case for 16-bit types).
        align: u32,
    },
    /// A GEMM or convolution on TF32 tensor cores: BF16 inputs (autocast)
    /// run at twice the tensor rate and move half the bytes.
    LowerPrecision,
    /// A foreach optimizer chain: use the fused optimizer.
    FusedOptimizer,
    /// Autocast's or the model's dtype casts: keep the tensors in the
    /// compute dtype.
    RemoveCasts,
    /// NCHW <-> NHWC transposes around convolutions: use channels_last.
    ChannelsLast,
    /// An activation after a GEMM: fuse it into the GEMM's epilogue.
    EpilogueFusion,
    /// A chain of elementwise kernels: fuse them (torch.compile).
    FuseElementwise,
    /// A framework norm kernel well below the bandwidth roof: fuse it with
    /// its neighbours (the residual add, the activation) or compile it.
    FuseNorm,
    /// A library kernel with no move of its own: its time goes with its
    /// shape and the operations around it.
    LibraryKernel {
        /// The library.
        library: Library,
        /// What it does.
        role: Role,
    },
    /// PyTorch's cat copies its inputs into a new tensor: let the kernels
    /// that make the inputs write into the output.
    CatInPlace,
    /// PyTorch's same-dtype copy (a permute or transpose made contiguous):
    /// the kernel that writes or reads it takes the permuted order.
    FoldLayoutCopy,
    /// A CSR sparse matrix-vector product at the memory side: a format or
    /// operator that moves fewer bytes per nonzero.
    SparseFormat {
        /// The column indices' share of the kernel's DRAM bytes, % (none for
        /// CSR's partition pass).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        index_share_pct: Option<f64>,
    },
    /// CuPy elementwise and cuBLAS level-1 kernels, one after another over
    /// the same vectors: fuse them into one pass.
    FuseArrayOps,
    /// A library kernel whose grid is too small or short for the GPU:
    /// larger batches, or fewer, larger operations.
    LargerProblem,
    /// Neither memory nor arithmetic is busy: read occupancy and stalls.
    WaitOnLatency,
    /// Occupancy is limited by a resource (with the calculator's hint).
    OccupancyLimited {
        /// The limiting resource ("registers", "shared memory", "warps", ...).
        limiter: String,
        /// The occupancy calculator's advice for it, when it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hint: Option<String>,
    },
    /// More independent work per thread, or more blocks.
    MoreIndependentWork,
    /// At the DRAM roof: raise intensity.
    RaiseIntensity,
    /// A closer level's bandwidth is the limit.
    CloserLevel {
        /// The level whose bandwidth holds the kernel.
        level: MemLevel,
    },
    /// Wasted sectors are a large share of the traffic: coalesce.
    Coalesce {
        /// Loads or stores.
        access: Access,
        /// Useful bytes per 32-byte sector.
        bytes_per_sector: f64,
        /// Share of the global sectors wasted, %.
        wasted_share_pct: f64,
    },
    /// Some accesses waste sectors but the capture does not say their share.
    CheckCoalescing {
        /// Loads or stores.
        access: Access,
        /// Useful bytes per 32-byte sector.
        bytes_per_sector: f64,
    },
    /// Bank conflicts are a large share of shared-memory wavefronts.
    AvoidBankConflicts {
        /// Conflicts as a share of shared-memory wavefronts, %.
        share_pct: f64,
    },
    /// The grid leaves block slots idle: more, smaller blocks.
    FillTheGpu {
        /// Blocks in the grid.
        blocks: f64,
        /// Block slots of the GPU (SMs x blocks per SM).
        slots: f64,
    },
    /// The tail wave leaves slots idle.
    BalanceWaves {
        /// The grid in waves.
        waves: f64,
        /// Share of the slot time idle, %.
        idle_pct: f64,
    },
    /// Launches too short for memory traffic to ramp up.
    LongerLaunches {
        /// Duration of one launch, seconds.
        seconds_per_launch: f64,
    },
    /// Low occupancy: fewer loads in flight.
    LowOccupancy {
        /// Theoretical occupancy, %.
        occupancy_pct: f64,
    },
    /// The catch-all when the counters name no cause.
    MoreBytesInFlight,
    /// On the compute roof.
    AtTheRoof,
    /// A tensor-core kernel below its peak.
    FeedTensorCores,
    /// Compute-bound below the peak with no busy pipe named.
    InstructionMix,
    /// The SM is busy with non-FLOP work (no pipe counters to say which).
    SmBusyNotFlops {
        /// SM throughput, % of peak (counter).
        pct: f64,
    },
    /// A pipe is busy: advice that fits it.
    PipeWork {
        /// The busy pipe.
        pipe: Pipe,
        /// Its utilisation, %.
        pct: f64,
    },
    /// Matrix-shaped FP32/FP16 work could use tensor cores.
    UseTensorCores,
    /// An FP32 GEMM or convolution on the CUDA cores of a GPU with TF32
    /// tensor cores: allow TF32 (or run it in bf16).
    AllowTf32 {
        /// A GEMM or a convolution (which switch applies).
        role: Role,
        /// The array library the program calls cuBLAS through, where the
        /// capture shows it is not PyTorch (CuPy has a switch of its own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        caller: Option<Library>,
    },
    /// Several launches of an embedding lookup, one per table: one batched
    /// lookup over every table.
    BatchEmbeddings {
        /// Launches of the lookup in the capture.
        launches: u64,
    },
    /// A 16-bit convolution the library runs on the CUDA cores (no tensor
    /// instructions): a shape its tensor-core kernels do not take. Padded
    /// channels, a patchify convolution as one GEMM, or a 1x1 convolution
    /// on a 1x1 input as nn.Linear run on the tensor cores.
    ConvAsGemm,
    /// A generic array library's kernel (CuPy's, PyTorch's TensorIterator)
    /// held by its own instruction issue while its DRAM bytes move far
    /// below the roof: a kernel written for the operation streams them.
    SpecificKernel {
        /// The library whose generic kernel it is.
        library: Library,
        /// The issue slots' utilisation, %.
        issue_pct: f64,
        /// DRAM's utilisation against its roof, %.
        dram_pct: f64,
    },
    /// Global atomics that queue at their addresses: the warps wait for them
    /// to drain. Aggregate per warp or block first.
    AggregateAtomics {
        /// The stall the warps wait in (`drain`, `lg_throttle`).
        stall: String,
        /// Its cycles per issued instruction.
        cycles_per_instruction: f64,
    },
    /// The user's own FP32 dense product fed from L1 or shared memory:
    /// the library's product runs the same FLOPs near the FP32 roof.
    LibraryProduct {
        /// FLOPs per DRAM byte.
        intensity: f64,
    },
    /// Copies that reorder a projection's output (clone, transpose, select)
    /// in a program with fused attention: attention reads strided views.
    AttentionLayout,
    /// A library kernel that ran long on a few blocks: the library's
    /// serial path for this call; the operation built from its parallel
    /// routines instead.
    SerialLibraryCall {
        /// The library.
        library: Library,
        /// Blocks in the grid.
        blocks: f64,
        /// Block slots of the GPU.
        slots: f64,
    },
    /// Rows gathered by an index, then scatter-added by another (message
    /// passing): one sparse matrix product, without the per-row tensor.
    SparseAggregation,
    /// A library GEMM with a few terms per output element (a distance or
    /// kernel matrix): its time is writing the matrix; computed where it is
    /// read, the matrix is written once or never.
    OuterProduct {
        /// Multiply-adds per output element (K).
        terms: f64,
        /// Bytes of the matrix it writes (its L2 write sectors x 32).
        written_bytes: f64,
    },
    /// An FFT launched several times, each launch at the launch floor:
    /// transform the arrays in one batched call.
    BatchTransforms {
        /// Launches of the transform in the capture.
        launches: u64,
    },
    /// PyTorch's own depthwise convolution kernel (NCHW) held by its
    /// instructions: in channels_last, cuDNN's NHWC depthwise kernels run it.
    DepthwiseChannelsLast {
        /// The issue slots' utilisation, %.
        issue_pct: f64,
    },
    /// A selection (CuPy's argpartition or partition) that passes over its
    /// data many times through L2: a top-k routine selects in a few.
    TopK {
        /// Passes of the kernel's data through L2 (L2 bytes over DRAM
        /// reads); none for the merge tree's kernels.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        passes: Option<f64>,
    },
    /// Integer bookkeeping a library call runs over arrays of its own (the
    /// index array of an argpartition, the mask and casts of a random
    /// integer draw): the kernels go with a call that does not need them.
    LibraryCallInternals {
        /// The call they belong to.
        call: LibraryCall,
    },
    /// `clip_grad_norm_`'s foreach norms and scaling: compiled with the
    /// optimizer step, one reduction on a full grid and the scale in the
    /// update.
    CompileClipping,
    /// An XLA fusion that writes an array the next fusion reads back: one
    /// fusion (or a Pallas kernel) never writes it.
    FuseXlaIntermediate,
    /// The clock costs a share of the roof.
    Clock {
        /// Share of the roof the clock costs, %.
        loss_pct: f64,
    },
    /// Text from a document written before advice was typed.
    Legacy {
        /// The advice's text as the old document had it.
        text: String,
    },
}

/// A next move with the time it would save and what that rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Move {
    /// The move.
    #[serde(flatten)]
    pub advice: Advice,
    /// Seconds it would save over the kernel's launches (estimated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saving_s: Option<f64>,
    /// What the estimate rests on, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rests_on: Option<String>,
}

impl From<Advice> for Move {
    fn from(advice: Advice) -> Move {
        Move { advice, saving_s: None, rests_on: None }
    }
}

impl Move {
    /// A move with its estimated saving.
    pub fn saving(advice: Advice, saving_s: f64, rests_on: impl Into<String>) -> Move {
        Move { advice, saving_s: Some(saving_s.max(0.0)), rests_on: Some(rests_on.into()) }
    }

    /// The move in English, with its saving.
    pub fn text(&self) -> String {
        let mut t = self.advice.text();
        if let Some(s) = self.saving_s {
            t.push_str(&format!(" (could save {}", format_si(s, Unit::Second)));
            if let Some(r) = &self.rests_on {
                t.push_str(&format!(", estimated: {r}"));
            }
            t.push(')');
        }
        t
    }

    /// The move's code.
    pub fn code(&self) -> String {
        self.advice.code()
    }
}

/// A verdict with its evidence and the next moves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// Where the kernel landed.
    pub position: Position,
    /// What the numbers say, one fact per entry (written with its `text`).
    #[serde(serialize_with = "with_text")]
    pub evidence: Vec<Finding>,
    /// What to try next, the largest saving first (written with its `text`).
    #[serde(serialize_with = "with_text")]
    pub next_moves: Vec<Move>,
}

/// A typed entry that has its English.
trait Text {
    fn english(&self) -> String;
}

impl Text for Finding {
    fn english(&self) -> String {
        self.text()
    }
}

impl Text for Move {
    fn english(&self) -> String {
        self.text()
    }
}

/// Each entry's code and numbers, plus `text`, its English, for readers of
/// the JSON that do not render codes (the Python package, `jq`); reading
/// ignores `text` and makes the English again from the code.
///
/// A serializer that is not for people (the range check of
/// [`roofline_model::check_numbers`]) gets the codes and numbers alone.
fn with_text<T: Serialize + Text, S: serde::Serializer>(items: &[T], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::{Error, SerializeSeq};
    if !s.is_human_readable() {
        return items.serialize(s);
    }
    let mut seq = s.serialize_seq(Some(items.len()))?;
    for item in items {
        let mut v = serde_json::to_value(item).map_err(S::Error::custom)?;
        if let Some(m) = v.as_object_mut() {
            m.insert("text".into(), item.english().into());
        }
        seq.serialize_element(&v)?;
    }
    seq.end()
}

impl Diagnosis {
    /// The evidence in English, one fact per line, for every view.
    pub fn evidence_lines(&self) -> Vec<String> {
        self.evidence.iter().map(Finding::text).collect()
    }

    /// The next moves in English, for every view.
    pub fn next_move_text(&self) -> String {
        self.next_moves.iter().map(Move::text).collect::<Vec<_>>().join("; ")
    }

    /// Whether the evidence holds a finding with this code.
    pub fn has(&self, code: &str) -> bool {
        self.evidence.iter().any(|f| f.code() == code)
    }

    /// Whether the next moves hold an advice with this code.
    pub fn advises(&self, code: &str) -> bool {
        self.next_moves.iter().any(|a| a.code() == code)
    }

    /// The largest saving any next move estimates, seconds.
    pub fn best_saving_s(&self) -> Option<f64> {
        self.next_moves.iter().filter_map(|m| m.saving_s).reduce(f64::max)
    }

    /// The binding limiter, when the diagnosis named one.
    pub fn binding(&self) -> Option<(HwUnit, f64)> {
        self.evidence.iter().find_map(|f| match f {
            Finding::Binding { unit, pct, .. } => Some((*unit, *pct)),
            _ => None,
        })
    }
}

/// "1 block", "3 blocks".
pub(crate) fn plural(n: f64, noun: &str) -> String {
    if (n - 1.0).abs() < 1e-9 {
        format!("1 {noun}")
    } else {
        format!("{n:.0} {noun}s")
    }
}

pub(crate) fn pct(x: f64) -> String {
    format_percent(x)
}

/// A share of traffic or time: small ones keep two significant digits
/// ("0.010%"), so that a tiny share does not read as zero.
pub(crate) fn share(x: f64) -> String {
    if x > 0.0 && x < 0.1 {
        let digits = (1.0 - x.log10().floor()) as usize;
        format!("{x:.digits$}%")
    } else {
        format_percent(x)
    }
}

pub(crate) fn code_of<T: Serialize>(t: &T) -> String {
    serde_json::to_value(t)
        .ok()
        .and_then(|v| v.get("code").and_then(|c| c.as_str()).map(str::to_string))
        .unwrap_or_default()
}

impl Finding {
    /// The finding's code as JSON names it ("sector_use").
    pub fn code(&self) -> String {
        code_of(self)
    }

    /// The finding in English.
    pub fn text(&self) -> String {
        match self {
            Finding::Binding { unit, pct: p, basis, runner_up } => {
                let of = match basis {
                    Basis::Counter => "of its peak over the elapsed time, at the kernel's own clock (counter)",
                    Basis::Roof => "of its roof (rate against the machine's roof)",
                    Basis::MeasuredGemm => "of what the measured GEMM (bench) reaches at the kernel's own clock (tensor-pipe busy cycles, counter)",
                };
                let next =
                    runner_up.map(|(u, q)| format!("; next: {} at {}", u.label(), pct(q))).unwrap_or_default();
                format!("bound by the {}: {} {of}{next}", unit.label(), pct(*p))
            }
            Finding::KernelOrigin { origin } => {
                let mut s = match (origin.library, origin.role) {
                    (Library::User, Role::Other) => "a kernel of the user's own code".to_string(),
                    (Library::User, role) => format!("a {} kernel of the user's own code", role.label()),
                    _ => format!("a {} kernel", origin.label()),
                };
                if origin.unaligned {
                    s.push_str(" for unaligned operands");
                }
                if origin.library.is_vendor() {
                    s.push_str(": its source is not the user's to edit; the moves are the caller's");
                }
                s
            }
            Finding::ShapeGroups { shapes, dominant_pct } => format!(
                "{shapes} launch shapes; judged by the one that took {} of the kernel's time",
                pct(*dominant_pct)
            ),
            Finding::SmallCause { advice, saving_s } => format!(
                "minor: {} (at most {}, a few percent of the kernel: not a move)",
                advice.text(),
                format_si(*saving_s, Unit::Second)
            ),
            Finding::BatchIsTrainingChoice { saving_s } => format!(
                "the launch leaves the GPU mostly idle, and a larger batch would fill it (up to {} of this kernel's time), but the capture is of a training step (backward or optimizer kernels), where the batch size is a training choice, not a per-step saving: no move",
                format_si(*saving_s, Unit::Second)
            ),
            Finding::PctOfRoof { pct: p, roof } => format!("{} of the {roof} roof", pct(*p)),
            Finding::PctOfMixRoof { pct: p, bytes_per_s, read_share_pct, lower, upper } => {
                let between = if lower == upper {
                    format!("the {lower} benchmark")
                } else {
                    format!("interpolated between the {lower} and {upper} benchmarks")
                };
                format!(
                    "{} of what streaming with this kernel's mix ({} reads) reaches: {}, {between}",
                    pct(*p),
                    pct(*read_share_pct),
                    format_si(*bytes_per_s, Unit::BytePerSecond)
                )
            }
            Finding::DramThroughput { pct: p } => format!("DRAM throughput {} of peak (ncu)", pct(*p)),
            Finding::SmThroughput { pct: p } => format!("SM throughput {} of peak (ncu)", pct(*p)),
            Finding::Occupancy { theoretical_pct, achieved_pct, limiter } => {
                let mut s = format!("theoretical occupancy {}", pct(*theoretical_pct));
                if let Some(a) = achieved_pct {
                    s.push_str(&format!(", achieved {}", pct(*a)));
                }
                if let Some(l) = limiter {
                    s.push_str(&format!(", limited by {l}"));
                }
                s
            }
            Finding::CounterPctOfRoof { pct: p } => {
                format!("{} of the roof at the profiler's own peaks and clocks", pct(*p))
            }
            Finding::Stalls { top } => {
                let parts: Vec<String> = top
                    .iter()
                    .map(|s| format!("{} {:.1}", s.reason.replace('_', " "), s.cycles_per_instruction))
                    .collect();
                format!("top stalls (cycles per issued instruction): {}", parts.join(", "))
            }
            Finding::SectorUse { access, bytes_per_sector, wasted_share_pct } => {
                let share = match wasted_share_pct {
                    Some(s) => format!("; the unused bytes are {} of the global sectors", share(*s)),
                    None => "; whether that waste reaches L2 is not in this capture (collect derived__memory_l2_theoretical_sectors_global_excessive)".to_string(),
                };
                format!("{} {bytes_per_sector:.1} of 32 bytes used per sector{share}", access.label())
            }
            Finding::ExcessSectors { sectors, share_pct } => {
                let of = share_pct.map(|s| format!(", {} of the global sectors", share(s))).unwrap_or_default();
                format!(
                    "{sectors:.0} excess L2 sectors ({}) from uncoalesced global accesses{of}",
                    format_si(32.0 * sectors, Unit::Byte)
                )
            }
            Finding::BankConflicts { conflicts, share_pct } => {
                let of = share_pct.map(|s| format!(", {} of shared-memory wavefronts", share(s))).unwrap_or_default();
                format!("{conflicts:.0} shared-memory bank conflicts{of}")
            }
            Finding::GridBelowOneWave { blocks, slots, idle_pct } => format!(
                "grid of {} under one wave of {slots:.0} block slots (SMs x resident blocks per SM): {} of the slots idle",
                plural(*blocks, "block"),
                pct(*idle_pct)
            ),
            Finding::TailWave { waves, last_wave_pct, idle_pct } => format!(
                "{waves:.2} waves: the last one keeps {} of the block slots busy, {} of the slot time is idle",
                pct(*last_wave_pct),
                pct(*idle_pct)
            ),
            Finding::SmsIdle { active_pct } => format!(
                "the SMs were active {} of the elapsed time, idle the rest (ncu: sm__cycles_active / sm__cycles_elapsed)",
                pct(*active_pct)
            ),
            Finding::ShortLaunch { seconds_per_launch } => format!(
                "{} per launch: too short for memory traffic to ramp up (under {})",
                format_si(*seconds_per_launch, Unit::Second),
                format_si(SHORT_LAUNCH_S, Unit::Second)
            ),
            Finding::ClockBelowMax { clock_hz, max_hz, loss_pct, gap_share_pct } => {
                let gap = gap_share_pct.map(|g| format!(" ({} of the gap to it)", pct(g))).unwrap_or_default();
                format!(
                    "SM clock {:.2} GHz, below the {:.2} GHz maximum: the clock alone costs {} of the max-clock roof{gap}",
                    clock_hz / 1e9,
                    max_hz / 1e9,
                    pct(*loss_pct)
                )
            }
            Finding::BusyPipe { pipe, pct: p, of_counter } => {
                let of = if *of_counter { "of its peak over active cycles (ncu)" } else { "of its roof" };
                format!("busiest pipe: {} at {} {of}", pipe.label(), pct(*p))
            }
            Finding::IssueBusy { pct: p } => format!("instruction issue slots {} busy", pct(*p)),
            Finding::Fp16PackingUnknown { packed_flops, scalar_flops } => format!(
                "FP16 counted as packed half2 ({}); if the half instructions were scalar it is {}: the counters cannot tell",
                format_si(*packed_flops, Unit::Flop),
                format_si(*scalar_flops, Unit::Flop)
            ),
            Finding::Fp16ConstantMoves { thread_instructions, flops_as_counted } => format!(
                "FP16 pipe: constant moves ({thread_instructions:.0} HFMA2.MMA thread instructions, {} as ncu counts them), not counted as FLOPs",
                format_si(*flops_as_counted, Unit::Flop)
            ),
            Finding::LevelNotMeasured { level, caveat } => format!("{}: {}", level.label(), caveat.text()),
            Finding::CudaCoreGemm { fma_pct, issue_pct } => {
                let issue = issue_pct.map(|i| format!(" (issue slots {})", pct(i))).unwrap_or_default();
                format!(
                    "an FP32 GEMM on the CUDA cores (FFMA, no tensor-core instructions): each FFMA is 2 FLOPs and one issue slot, so the issue slots follow the FP32 pipe{issue}; the FLOP roof is the FP32 pipe's, {} busy",
                    pct(*fma_pct)
                )
            }
            Finding::Legacy { text } => text.clone(),
        }
    }
}

impl Advice {
    /// The advice's code as JSON names it ("coalesce").
    pub fn code(&self) -> String {
        code_of(self)
    }

    /// The advice in English.
    pub fn text(&self) -> String {
        match self {
            Advice::WaitOnLatency => "neither memory nor arithmetic is busy: the SMs wait on latency. Read occupancy and stall reasons first".into(),
            Advice::OccupancyLimited { limiter, hint } => match hint {
                Some(h) => format!("occupancy is limited by {limiter}: {h}"),
                None => format!("occupancy is limited by {limiter}"),
            },
            Advice::MoreIndependentWork => "give each thread more independent work (unroll, several loads in flight), or launch more blocks if the grid does not fill the GPU".into(),
            Advice::RaiseIntensity => "bytes move as fast as this GPU allows: raise intensity by fusing kernels, tiling into shared memory or reusing data in registers, or use smaller types".into(),
            Advice::CloserLevel { level } => format!(
                "{} bandwidth is the limit: keep reused data in registers or a closer level, or cut the traffic to {}",
                level.label(),
                level.label()
            ),
            Advice::Coalesce { access, bytes_per_sector, wasted_share_pct } => format!(
                "{}s use only {bytes_per_sector:.1} of every 32-byte sector, wasting {} of the global sectors: Coalesce them (consecutive threads on consecutive addresses), change the layout (structure of arrays), or stage through shared memory",
                access.label(),
                pct(*wasted_share_pct)
            ),
            Advice::CheckCoalescing { access, bytes_per_sector } => format!(
                "{}s use only {bytes_per_sector:.1} of every 32-byte sector; this capture does not say what share of the traffic they are (collect l1tex__t_sectors_pipe_lsu_mem_global_op_ld/st.sum): if they are a large share, coalesce them",
                access.label()
            ),
            Advice::AvoidBankConflicts { share_pct } => format!(
                "bank conflicts replay {} of the shared-memory wavefronts: pad shared arrays or change the access stride so that a warp hits 32 different banks",
                pct(*share_pct)
            ),
            Advice::FillTheGpu { blocks, slots } => format!(
                "the grid ({}) does not fill the GPU's {slots:.0} block slots: split the work into more blocks (smaller tiles, split-K, or several problems per launch)",
                plural(*blocks, "block")
            ),
            Advice::BalanceWaves { waves, idle_pct } => format!(
                "the tail of {waves:.2} waves leaves {} of the slot time idle: size the grid to a whole number of waves (or persistent blocks that loop over the work)",
                pct(*idle_pct)
            ),
            Advice::LongerLaunches { seconds_per_launch } => format!(
                "launches of {} are too short to reach full bandwidth: give each launch more work (batch or fuse kernels, CUDA graphs for the launch overhead)",
                format_si(*seconds_per_launch, Unit::Second)
            ),
            Advice::LowOccupancy { occupancy_pct } => {
                format!("occupancy is only {}, so fewer loads are in flight", pct(*occupancy_pct))
            }
            Advice::MoreBytesInFlight => "memory-bound but below the bandwidth a streaming kernel reaches, and the counters name no waste or launch-shape cause: put more bytes in flight (wider loads, several independent loads per thread)".into(),
            Advice::AtTheRoof => "at the compute ceiling for this precision: only a different algorithm, a lower precision or different hardware goes further".into(),
            Advice::FeedTensorCores => "a tensor-core kernel below its peak: feed the tensor cores faster (larger tiles, deeper shared-memory pipelines, asynchronous copies; wgmma on Hopper), and check that the problem shape fills every SM (tile and wave quantization)".into(),
            Advice::InstructionMix => "enough intensity to be compute-bound but below the peak: improve the instruction mix (FMA instead of separate multiply and add, fewer index and conversion instructions), add independent chains per thread".into(),
            Advice::SmBusyNotFlops { pct: p } => format!(
                "the SM is busy ({} of its peak) with work that is not FLOPs, and this capture has no pipe counters to say which: collect sm__inst_executed_pipe_*",
                pct(*p)
            ),
            Advice::PipeWork { pipe, pct: p } => pipe_advice(*pipe, *p),
            Advice::UseTensorCores => "move matrix-shaped work onto tensor cores (TF32, BF16, FP16)".into(),
            Advice::Clock { loss_pct } => format!(
                "the GPU ran {} below its maximum clock (the power cap under load is normal; NVML's throttle reasons tell a cap from a thermal slowdown): the roofs here are quoted at the kernel's own clock",
                pct(*loss_pct)
            ),
            Advice::PadShape { align } => format!(
                "the library picked its kernel for operands aligned to {} (a dimension or stride is not a multiple of 8): pad the dimension (a vocabulary, hidden or batch size) to a multiple of 8, better 64; for a convolution run as GEMMs on NCHW tensors, channels_last gives aligned strides",
                plural(f64::from(*align), "element")
            ),
            Advice::LowerPrecision => "a GEMM or convolution on TF32 tensor cores (fp32 tensors): run it in bf16 (torch.autocast(dtype=torch.bfloat16), or bf16 weights and inputs), which doubles the tensor roof and halves the operand bytes".into(),
            Advice::FusedOptimizer => "a foreach optimizer chain re-reads and re-writes every parameter and state tensor once per step of the update: use the fused optimizer (torch.optim's fused=True, or apex's FusedAdam), which moves each tensor once".into(),
            Advice::RemoveCasts => "dtype casts: autocast casts each fp32 weight once per step and each fp32 activation once per use (a norm's output is cast again for every layer that reads it, as q, k and v do), and explicit .to() calls cast where they stand. Keep the weights in the compute dtype (bf16/fp16, with fp32 master weights in the optimizer), and let the producer of an activation write the compute dtype (torch.compile fuses the cast into the norm and casts once for all its readers; a fused norm that emits bf16)".into(),
            Advice::ChannelsLast => "NCHW <-> NHWC transposes around convolutions: run the model and its input in channels_last (model.to(memory_format=torch.channels_last)), so cuDNN needs no layout change".into(),
            Advice::EpilogueFusion => "an activation that reads and writes a whole GEMM output again: fuse it into the GEMM's epilogue (cuBLASLt's GELU/ReLU epilogues, torch._addmm_activation, or torch.compile; where torch.compile already generated it, mode=\"max-autotune\" lets Inductor's GEMM templates apply it as the epilogue)".into(),
            Advice::FuseNorm => "a normalisation kernel far below the bandwidth roof: compile it with its neighbours (torch.compile fuses the norm with the residual add and the activation into one pass), or use a fused norm (apex, Transformer Engine)".into(),
            Advice::FuseElementwise => "a chain of elementwise kernels writes and re-reads each intermediate: fuse them into one kernel (torch.compile, a custom fused kernel, or in-place ops)".into(),
            Advice::LibraryKernel { library, role } => format!(
                "a {} {} that is not the user's to edit, and no cause the counters show is worth a move here: its time goes with the problem's shape, dtype and the operations fused around it",
                library.label(),
                role.label()
            ),
            Advice::FoldLayoutCopy => "a layout copy (a permute or transpose made contiguous, the dtype unchanged) computes nothing: keep the layout the next kernel reads (channels_last for a convolution's input, q, k and v in the layout attention takes), or compile the block (torch.compile folds the permute into the kernel that writes or reads it)".into(),
            Advice::CatInPlace => "a torch.cat copies every input into a new tensor: let the kernels that make the inputs write into slices of one preallocated output (torch.cat's inputs computed with out= into views of it), or compile the block (torch.compile writes the producers' results into the cat's output)".into(),
            Advice::SparseFormat { index_share_pct } => match index_share_pct {
                Some(p) => format!(
                    "a CSR sparse matrix-vector product at the memory side reads a value and a column index per nonzero, the indices {} of its bytes: use a format or operator that moves fewer bytes per nonzero (a diagonal or banded format for a banded matrix, a matrix-free operator such as a stencil in a cupy.ElementwiseKernel behind a LinearOperator, or smaller index and value types)",
                    pct(*p)
                ),
                None => "cuSPARSE's CSR partition pass, run before every SpMV to split the rows among blocks: a format or operator without CSR rows (see the SpMV's move) needs no partition".into(),
            },
            Advice::FuseArrayOps => "CuPy elementwise, reduction and cuBLAS level-1 kernels over the same arrays, one after another, each writing an array the next one reads: fuse the expression into one pass (cupy.fuse or a cupy.ElementwiseKernel for x + a*y, a cupy.ReductionKernel for a reduction of an expression such as abs(a - b).max() or the dot or norm of the vector it updates, a cupy.RawKernel for a stencil over shifted slices), so the temporaries stay in registers".into(),
            Advice::LargerProblem => "a library kernel whose launch leaves the GPU mostly idle: give it more work per launch (a larger batch, several small operations batched into one, CUDA graphs for the launch cost)".into(),
            Advice::AllowTf32 { caller: Some(Library::Cupy), .. } => "an FP32 GEMM on the CUDA cores (FFMA, no tensor-core instructions) on a GPU with TF32 tensor cores, called from CuPy, which computes FP32 matmuls in full precision by default: allow TF32 (CUPY_TF32=1 in the environment before cupy is imported), or compute the product in float16 or bfloat16".into(),
            Advice::AllowTf32 { role, .. } => match role {
                Role::Convolution => "an FP32 convolution on the CUDA cores (FFMA, no tensor-core instructions) on a GPU with TF32 tensor cores: allow TF32 for cuDNN (torch.backends.cudnn.allow_tf32 = True, PyTorch's default; check that nothing turned it off), or run it in bf16 under torch.autocast".into(),
                _ => "an FP32 GEMM on the CUDA cores (FFMA, no tensor-core instructions) on a GPU with TF32 tensor cores: allow TF32 (torch.set_float32_matmul_precision('high'), or torch.backends.cuda.matmul.allow_tf32 = True), or run it in bf16 under torch.autocast".into(),
            },
            Advice::BatchEmbeddings { launches } => format!(
                "{launches} launches of one embedding lookup, one per table, each leaving block slots idle: look every table up in one launch (a table-batched embedding such as FBGEMM's, or one concatenated table with offsets)"
            ),
            Advice::ConvAsGemm => "a 16-bit convolution that the library runs on the CUDA cores (no tensor-core instructions): a shape its tensor-core kernels do not take, and no batch or graph fixes that. Give it one they take: input channels padded with zeros to a multiple of 8 (an RGB stem's 3); a patchify convolution (kernel size = stride, as a vision transformer's patch embedding) as a reshape of the input into patches and one nn.Linear or torch.matmul; a 1x1 convolution on a 1x1 input (a squeeze-excitation block's) as nn.Linear on the flattened tensor. cuBLAS serves those GEMMs on the tensor cores".into(),
            Advice::SpecificKernel { library, issue_pct, dram_pct } => format!(
                "a generic {} kernel held by its own instructions (issue slots {} busy: index arithmetic and boundary handling for every element) while its DRAM bytes move at {} of the roof: write the operation as a kernel of its own that computes its indices once per tile and keeps the data it reuses in shared memory or registers ({}), so that it streams its bytes at the bandwidth roof",
                library.label(),
                pct(*issue_pct),
                pct(*dram_pct),
                match library {
                    Library::PyTorch => "torch.compile, or a Triton kernel",
                    _ => "a cupy.RawKernel or cupy.ElementwiseKernel, a separable pass where the operation is separable, or a library built for the operation",
                }
            ),
            Advice::AggregateAtomics { stall, cycles_per_instruction } => format!(
                "global atomics queue at their addresses: the warps wait {cycles_per_instruction:.0} cycles per issued instruction in {} for them to finish, the sign of many atomics on few addresses (a histogram's bins, a counter). Aggregate first: per warp (warp reductions, __match_any_sync) or per block in shared memory (a shared-memory histogram), then one global atomic per block and address; or sort or segment the keys",
                stall.replace('_', " ")
            ),
            Advice::LibraryProduct { intensity } => format!(
                "FP32 multiply-adds fed from L1 or shared memory, at {intensity:.0} FLOP per DRAM byte, as a dense product's: if it is a matrix product or a convolution, the library's (cuBLAS through cupy.matmul, torch.matmul or cublasSgemm; cuDNN) runs its FLOPs near the FP32 roof, and on TF32 or BF16 tensor cores faster still. Written by hand, it needs register tiling (several outputs per thread) to leave L1"
            ),
            Advice::SerialLibraryCall { library, blocks, slots } => format!(
                "a {} kernel that ran on {} of the GPU's {} block slots for a problem that is not small: the library took a serial path for this call. Write the operation with the library's parallel routines instead ({}), so that it streams its bytes at the bandwidth roof",
                library.label(),
                plural(*blocks, "block"),
                slots,
                match library {
                    Library::Curand => "a counter-based generator, whose states are cheap enough for a thread per output: Philox4_32_10, as cupy.random.RandomState(method=cupy.cuda.curand.CURAND_RNG_PSEUDO_PHILOX4_32_10) or torch's CUDA generator, instead of XORWOW's fixed set of states",
                    Library::Cupy => "a reduction of a whole array in one block, as CuPy's var and std run: ((x - x.mean())**2).mean(), whose sum and mean run on CUB across the GPU, or a cupy.ReductionKernel; a reduction over an axis the library splits",
                    _ => "a reduction over an axis the library splits, the operation batched, or a library built for it",
                }
            ),
            Advice::OuterProduct { terms, written_bytes } => format!(
                "a GEMM with about {terms:.0} multiply-adds per output element: an outer product (a distance or kernel matrix) whose time is writing its {} matrix, not its math. Compute the matrix where it is read: torch.compile(mode=\"max-autotune\") of the expression writes it once from a Triton GEMM with the elementwise ops that read it (exp, scale, clamp) as the epilogue; KeOps' LazyTensor (GPyTorch's keops kernels) never writes it",
                format_si(*written_bytes, Unit::Byte)
            ),
            Advice::BatchTransforms { launches } => format!(
                "{launches} launches of one FFT kernel, each too short to fill the GPU: where the transforms do not wait on each other (the same step's several arrays, not one layer's output feeding the next), stack the arrays and transform them in one batched call (jnp.fft or torch.fft over a leading batch axis, a cuFFT or cupyx.scipy.fft plan with a batch), so that one launch streams what the launches moved apart"
            ),
            Advice::DepthwiseChannelsLast { issue_pct } => format!(
                "PyTorch's own depthwise convolution kernel, which it runs on NCHW tensors, held by its index arithmetic (issue slots {} busy) while its bytes move far below the roof: run the model and its input in channels_last (model.to(memory_format=torch.channels_last)), and PyTorch hands depthwise convolutions to cuDNN's NHWC kernels, which stream them",
                pct(*issue_pct)
            ),
            Advice::TopK { passes } => format!(
                "cupy.argpartition (or partition) sorts fixed-size segments of every row with a bitonic network and merges them pairwise{}: for the k smallest or largest of each row, a top-k selects in a few streaming passes and returns only k indices a row, with no full-size index array (torch.topk on the array through DLPack: torch.from_dlpack(a).topk(k, dim=1, largest=False); for nearest neighbours, a fused k-NN such as cuVS's brute-force search)",
                match passes {
                    Some(p) => format!(", its data passing {p:.0} times through L2"),
                    None => String::new(),
                }
            ),
            Advice::LibraryCallInternals { call } => match call {
                LibraryCall::Selection => "integer bookkeeping of cupy.argpartition over its full-size index array (the array built, checked and unravelled into row and column), not an expression of the program: cupy.fuse cannot reach it. A top-k that returns column indices directly (torch.topk through DLPack) builds none of it".into(),
                LibraryCall::RandomIntegers => "integer passes of cupy.random.randint after cuRAND's generator (the bound's mask, the cast to int64, the offset), not an expression of the program: cupy.fuse cannot reach them. Draw with cupy.random.default_rng().integers(low, high, size, dtype=cupy.int32), which bounds and writes the integers in its own kernel".into(),
            },
            Advice::CompileClipping => "gradient clipping (clip_grad_norm_) on its foreach path: a norm per tensor on one block each, their cleanup, and a second pass that scales every gradient. A fused optimizer does not clip. Compile the clipping with the optimizer step (torch.compile of a function that calls clip_grad_norm_ and optimizer.step()), so that the norm is one reduction over all gradients on a full grid and the scale is applied in the update".into(),
            Advice::FuseXlaIntermediate => "XLA wrote a fusion's result to memory for the next fusion to read back: write the computation so that XLA fuses it into the fusion that consumes it (reduce the expression itself, without materialising the broadcast array it builds), or write the pair as one kernel (jax.experimental.pallas) that keeps the values in registers".into(),
            Advice::SparseAggregation => "rows gathered by an index and then scatter-added by another (message passing over a graph's edges, a mean or sum aggregation) write one row per edge and read it back: aggregate with one sparse matrix product instead, over a sparse adjacency (torch.sparse_csr_tensor with torch.sparse.mm, or torch_sparse.SparseTensor, which torch_geometric's layers take as adj_t through T.ToSparseTensor), which reads each source row and writes each destination row with no per-edge tensor, forward and backward".into(),
            Advice::AttentionLayout => "copies that reorder a projection's output (clone, transpose, select of q, k, v) beside fused attention: give attention strided views of the packed projection instead (nn.MultiheadAttention with batch_first=True and need_weights=False takes the fast path to scaled_dot_product_attention; or call F.scaled_dot_product_attention on views of the QKV output)".into(),
            Advice::Legacy { text } => text.clone(),
        }
    }
}

/// Advice that fits the pipe that is busy.
pub(crate) fn pipe_advice(pipe: Pipe, p: f64) -> String {
    let busy = format!("the {} is {} busy", pipe.label(), pct(p));
    let what = match pipe {
        Pipe::Alu => "integer and logic work (index arithmetic, hashing, comparisons, bit manipulation) holds the kernel: strength-reduce index math, hoist it out of loops, use 32-bit indices, and let IMAD on the FMA pipe take multiply-adds",
        Pipe::Fma => "FP32 and IMAD work holds the kernel: if it is FLOPs, fuse multiply and add into FMA and consider tensor cores; if it is IMAD index math, hoist it out of loops",
        Pipe::Fp64 => "FP64 work holds the kernel: lower the precision where accuracy allows, or use FP64 tensor cores (DMMA) for matrix-shaped work",
        Pipe::Fp16 => "half-precision work holds the kernel: use packed half2 instructions, and tensor cores for matrix-shaped work",
        Pipe::Xu => "special functions (exp, log, sin, rsqrt) and conversions hold the kernel: use fast intrinsics (__expf, __logf), fewer type conversions, or polynomial approximations on the FMA pipe",
        Pipe::Lsu => "load/store instructions hold the kernel: fewer, wider accesses (128-bit vector loads), register tiling so each loaded value serves several results, and index gathers batched per warp",
        Pipe::Shared => "shared-memory instructions hold the kernel: register tiling (several outputs per thread), 128-bit shared loads or ldmatrix, and no bank conflicts",
        Pipe::GlobalAtomic => "global atomics hold the kernel: aggregate per warp or per block first (warp reductions, shared-memory histograms), then one global atomic per block; sort or segment keys to cut contention",
        Pipe::SharedAtomic => "shared-memory atomics hold the kernel: privatise per warp (replicated counters), reduce with warp shuffles, then combine",
        Pipe::Tensor => "the tensor pipe holds the kernel: it is at its matrix-instruction rate; only a lower precision or sparsity goes further",
        Pipe::Issue => "instruction issue holds the kernel: fewer instructions per result (vector loads, unrolling, fewer predicated and branch instructions)",
    };
    format!("{busy}: {what}")
}
