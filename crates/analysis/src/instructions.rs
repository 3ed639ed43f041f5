//! The instruction roofline (Ding and Williams): warp instructions per
//! second against instructions per 32-byte transaction, under the roofs of
//! the SM's pipes, for kernels whose time FLOPs and bytes do not explain.

use serde::{Deserialize, Serialize};

use roofline_model::{Kernel, Machine, MemLevel, Origin, Pipe, Resource};

use crate::levels::LevelPoint;
use crate::thresholds::ON_ROOF_PCT;

/// The instruction roofline of one kernel (Ding and Williams, "An
/// Instruction Roofline Model for GPUs"): warp instructions per second
/// against warp instructions per 32-byte transaction at each memory level,
/// under one flat roof per pipe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionAnalysis {
    /// Warp instructions, all pipes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warp_instructions: Option<f64>,
    /// Warp instructions per second over the kernel's duration, all pipes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warp_inst_per_s: Option<f64>,
    /// Per measured memory level: instructions per transaction and the
    /// slanted roof there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<InstructionLevel>,
    /// Per pipe the kernel used: its rate against its roof.
    pub pipes: Vec<PipePoint>,
    /// The pipe closest to its roof (the issue slots are reported apart, and
    /// tensor work is judged on the FLOP roofline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<Pipe>,
    /// True when the FLOP roofline does not explain the kernel's time (no
    /// FLOPs, or below the roof while a pipe is busier than that): views
    /// show this roofline by default then.
    pub show_by_default: bool,
}

impl InstructionAnalysis {
    /// The point of one pipe.
    pub fn pipe(&self, pipe: Pipe) -> Option<&PipePoint> {
        self.pipes.iter().find(|p| p.pipe == pipe)
    }

    /// The binding pipe's point.
    pub fn binding_point(&self) -> Option<&PipePoint> {
        self.binding.and_then(|p| self.pipe(p))
    }
}

/// A kernel's instruction intensity at one memory level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionLevel {
    /// The memory level.
    pub level: MemLevel,
    /// 32-byte transactions: the level's bytes / 32.
    pub transactions: f64,
    /// Warp instructions per transaction.
    pub intensity: f64,
    /// Warp instructions/s this level's bandwidth allows at that intensity
    /// (intensity x bandwidth / 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roof_inst_per_s: Option<f64>,
}

/// One pipe on the instruction roofline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PipePoint {
    /// The pipe.
    pub pipe: Pipe,
    /// Warp instructions it executed (counter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warp_instructions: Option<f64>,
    /// Its warp instructions per second over the kernel's duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warp_inst_per_s: Option<f64>,
    /// The pipe's roof, warp instructions/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roof: Option<PipeRoof>,
    /// `warp_inst_per_s` as % of the roof.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_of_roof: Option<f64>,
    /// The profiler's own utilisation (% of the pipe's peak over the SMs'
    /// active cycles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter_pct: Option<f64>,
}

impl PipePoint {
    /// How busy the pipe was: the larger of its % of roof and the
    /// profiler's figure (which counts busy cycles, so an instruction that
    /// holds a pipe for two cycles, IMAD on Hopper's FMA-heavy half, shows).
    pub fn utilisation(&self) -> Option<f64> {
        match (self.pct_of_roof, self.counter_pct) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }
}

/// A pipe's roof and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PipeRoof {
    /// Warp instructions per second.
    pub rate: f64,
    /// Measured (`bench`) or theoretical (architecture table).
    pub origin: Origin,
    /// Where the figure comes from, in words.
    pub source: String,
    /// False for estimates (rates not from a vendor table).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub confirmed: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// The roof of one pipe: the machine's ceiling for it (measured by `bench`
/// when it has one), else the architecture's issue rate per SM x the SMs x
/// the SM clock of the machine.
pub fn pipe_roof(machine: &Machine, pipe: Pipe) -> Option<PipeRoof> {
    if let Some(c) = machine.roof(Resource::Instruction(pipe)) {
        return Some(PipeRoof {
            rate: c.rate,
            origin: c.provenance.origin,
            source: c.provenance.source.clone(),
            confirmed: c.provenance.confirmed,
        });
    }
    let (major, minor) = roofline_hw::parse_capability(machine.gpu.compute_capability.as_deref()?)?;
    let sms = machine.gpu.sms? as f64;
    let mhz = machine.gpu.sm_clock_mhz?;
    let r = roofline_hw::pipe_rate(roofline_model::ComputeCapability::new(major, minor), pipe)?;
    Some(PipeRoof {
        rate: r.warp_inst_per_clock_per_sm * sms * mhz * 1e6,
        origin: Origin::Theoretical,
        source: format!(
            "{} warp instructions/clock/SM ({}) x {} SMs x {mhz:.0} MHz",
            r.warp_inst_per_clock_per_sm, r.source, sms
        ),
        confirmed: r.confirmed,
    })
}

/// The instruction roofline of a placed kernel, from its instruction
/// counters (`None` without any): `levels` are its points at each memory
/// level and `judged_pct` the % of roof its position is judged by.
pub(crate) fn instruction_analysis(
    machine: &Machine,
    kernel: &Kernel,
    levels: &[LevelPoint],
    judged_pct: Option<f64>,
    total_flops: f64,
) -> Option<InstructionAnalysis> {
    let ev = &kernel.evidence;
    if ev.pipes.is_empty() && ev.warp_instructions.is_none() {
        return None;
    }
    let duration = kernel.duration_s.filter(|d| *d > 0.0 && d.is_finite());
    let rate = |n: Option<f64>| n.zip(duration).map(|(n, d)| n / d);
    let mut pipes = Vec::new();
    for (&pipe, u) in &ev.pipes {
        let roof = pipe_roof(machine, pipe);
        let per_s = rate(u.warp_instructions);
        let pct_of_roof = match (per_s, &roof) {
            (Some(x), Some(r)) if r.rate > 0.0 => Some(100.0 * x / r.rate),
            _ => None,
        };
        pipes.push(PipePoint {
            pipe,
            warp_instructions: u.warp_instructions,
            warp_inst_per_s: per_s,
            roof,
            pct_of_roof,
            counter_pct: u.pct_of_peak,
        });
    }
    // The issue slots are reported apart; the tensor pipe's instruction
    // rate says little (one HGMMA is a whole tile of FLOPs): tensor work is
    // judged on the FLOP roofline.
    let binding = pipes
        .iter()
        .filter(|p| p.pipe != Pipe::Issue && p.pipe != Pipe::Tensor)
        .filter_map(|p| p.utilisation().map(|u| (p.pipe, u)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(p, _)| p);
    let warp_instructions = ev.warp_instructions;
    let levels = warp_instructions
        .map(|n| {
            levels
                .iter()
                .filter(|p| p.measured() && p.bytes > 0.0)
                .map(|p| {
                    let transactions = p.bytes / 32.0;
                    let intensity = n / transactions;
                    InstructionLevel {
                        level: p.level,
                        transactions,
                        intensity,
                        roof_inst_per_s: p.bandwidth.map(|b| intensity * b / 32.0),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let busiest = binding.and_then(|b| pipes.iter().find(|p| p.pipe == b)).and_then(PipePoint::utilisation);
    let show_by_default = total_flops <= 0.0
        || match (judged_pct, busiest) {
            (Some(j), Some(b)) => j < ON_ROOF_PCT && b > j,
            (None, Some(_)) => true,
            _ => false,
        };
    Some(InstructionAnalysis {
        warp_instructions,
        warp_inst_per_s: rate(warp_instructions),
        levels,
        pipes,
        binding,
        show_by_default,
    })
}
