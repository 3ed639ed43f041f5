//! The binding limiter: of every unit the counters see, the busiest against
//! its own roof.
//!
//! A kernel's time is set by whichever unit is closest to its ceiling:
//! DRAM, L2 or L1 bandwidth, the issue slots, one of the SM's pipes (FP32
//! and FP16 FMA apart, ALU, XU, LSU, tensor, FP64), shared-memory
//! wavefronts or its atomics. Work on different units overlaps, so the
//! kernel is bounded by the busiest one, not by a sum. Each unit's figure
//! is its utilisation over the kernel's elapsed time at the kernel's own
//! clock (Nsight Compute's `pct_of_peak_sustained_elapsed`), so a power
//! cap lowers the roof and the utilisation together, and SMs left idle by a
//! small grid count against every SM unit. DRAM is judged against what
//! streaming with the kernel's own read:write mix reaches, when the machine
//! measured it.
//!
//! Without those counters (estimates, older captures) the units fall back
//! to the placement's % of each level's bandwidth and the instruction
//! roofline's pipe utilisation, scaled by the SMs' active share.

use roofline_model::{FlopKind, Machine, MemLevel, Origin, Pipe, Resource};

use crate::kernel_analysis::KernelAnalysis;
pub use crate::unit::{Basis, Unit, UnitUse};

/// The share of the tensor pipe's peak at its own clock that the machine's
/// measured GEMM of this kind reached: measured rate per MHz over the
/// theoretical rate per MHz. `None` without both ceilings and their clocks.
pub fn measured_tensor_efficiency(machine: &Machine, kind: FlopKind) -> Option<f64> {
    let per_mhz = |origin: Origin| {
        machine
            .ceilings
            .iter()
            .filter(|c| c.resource == Resource::Compute(kind) && c.provenance.origin == origin && !c.secondary)
            .find_map(|c| c.clock.sm_mhz.filter(|m| *m > 0.0).map(|m| c.rate / m))
    };
    let e = per_mhz(Origin::Measured)? / per_mhz(Origin::Theoretical)?;
    (e.is_finite() && e > 0.0).then(|| e.min(1.0))
}

/// Every unit's utilisation, busiest first.
pub fn units(machine: &Machine, a: &KernelAnalysis) -> Vec<UnitUse> {
    let ev = &a.kernel.evidence;
    let mut out: Vec<UnitUse> = Vec::new();
    fn put(out: &mut Vec<UnitUse>, unit: Unit, pct: f64, basis: Basis) {
        if pct.is_finite() && pct >= 0.0 {
            match out.iter_mut().find(|u| u.unit == unit) {
                Some(u) if u.pct < pct => *u = UnitUse { unit, pct, basis },
                Some(_) => {}
                None => out.push(UnitUse { unit, pct, basis }),
            }
        }
    }
    for p in &a.levels {
        if !p.measured() {
            continue;
        }
        // DRAM: % of the streaming rate for the kernel's own mix when measured.
        let roof_pct =
            if p.level == MemLevel::Dram { a.pct_of_mix_roof.or(p.pct_of_bandwidth) } else { p.pct_of_bandwidth };
        let counter = ev.level_busy_pct.get(&p.level).copied();
        match (p.level, counter, roof_pct) {
            // The DRAM counter is against the theoretical peak; the mix roof
            // is what streaming reaches: the larger is the honest figure.
            (MemLevel::Dram, Some(c), Some(r)) => {
                put(&mut out, Unit::Memory(p.level), c.max(r), if r >= c { Basis::Roof } else { Basis::Counter })
            }
            (_, Some(c), _) => put(&mut out, Unit::Memory(p.level), c, Basis::Counter),
            (_, None, Some(r)) => put(&mut out, Unit::Memory(p.level), r, Basis::Roof),
            _ => {}
        }
    }
    for (level, c) in &ev.level_busy_pct {
        // The profiler's throughput counter holds whatever the chart
        // convention's byte count misses (L2 writes among them).
        if !out.iter().any(|u| u.unit == Unit::Memory(*level)) {
            put(&mut out, Unit::Memory(*level), *c, Basis::Counter);
        }
    }
    let gemm_efficiency =
        a.kernel.dominant_kind().filter(|k| k.is_tensor()).and_then(|k| measured_tensor_efficiency(machine, k));
    if !ev.pipe_busy_pct.is_empty() {
        for (pipe, c) in &ev.pipe_busy_pct {
            match (pipe, gemm_efficiency) {
                (Pipe::Tensor, Some(e)) => put(&mut out, Unit::Pipe(*pipe), c / e, Basis::MeasuredGemm),
                _ => put(&mut out, Unit::Pipe(*pipe), *c, Basis::Counter),
            }
        }
    } else if let Some(ia) = &a.instructions {
        // Active-cycle figures: scale to the elapsed time.
        let active = ev.sm_active_pct.map(|s| (s / 100.0).clamp(0.0, 1.0)).unwrap_or(1.0);
        for p in &ia.pipes {
            if let Some(u) = p.utilisation() {
                put(
                    &mut out,
                    Unit::Pipe(p.pipe),
                    u * active,
                    if p.pct_of_roof.is_some() { Basis::Roof } else { Basis::Counter },
                );
            }
        }
    }
    // FLOPs against the roof of their kind, when no pipe counter says.
    if let (Some(x), Some(r), Some(kind)) =
        (a.achieved_flops_per_s, a.compute_roof_flops_per_s, a.kernel.dominant_kind())
    {
        let pipe = match kind {
            FlopKind::Fp32 => Pipe::Fma,
            FlopKind::Fp16 => Pipe::Fp16,
            FlopKind::Fp64 => Pipe::Fp64,
            _ => Pipe::Tensor,
        };
        if r > 0.0 && !out.iter().any(|u| u.unit == Unit::Pipe(pipe)) {
            put(&mut out, Unit::Pipe(pipe), 100.0 * x / r, Basis::Roof);
        }
    }
    out.sort_by(|a, b| b.pct.total_cmp(&a.pct).then(a.unit.cmp(&b.unit)));
    out
}

/// The busiest unit, if any unit is known.
pub fn binding(units: &[UnitUse]) -> Option<UnitUse> {
    units.first().copied()
}
