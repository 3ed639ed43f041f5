//! Synthetic rank documents: deterministic stand-ins for what `roofline
//! profile` writes on each rank of a data-parallel job, for the merge's
//! tests and scale benchmark and for the committed example job that merges
//! and renders on machines without GPUs.
//!
//! Nothing here is a measurement: the machine is named "(synthetic)", the
//! source kind is "synthetic", and every figure follows from the formulas
//! below. Each rank runs the same kernels: GEMMs (tensor-core bound), element-wise and
//! normalisation kernels (memory-bound) and NCCL collectives with NVLink
//! byte counts; the last rank is 30% slower in its GEMMs (a straggler), and
//! every launch's time varies by a few percent with a hash of (rank, launch).

use crate::ranks::RankInfo;
use crate::schema::{AnalysisDocument, AnalysisSource, Producer};
use roofline_analysis::analyze;
use roofline_hw::{theoretical_links, GpuLinks, NvLinks, Pcie};
use roofline_model::Kernel;
use roofline_model::{FlopKind, Machine, MemLevel, Origin};

/// The collectives of the synthetic job.
pub const COLLECTIVES: [&str; 4] = [
    "ncclDevKernel_AllReduce_Sum_f32_RING_SIMPLE(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL128(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE(ncclDevKernelArgsStorage<4096ul>)",
];

/// The theoretical roofs of an H200 with `gpus` GPUs behind NVSwitch.
pub fn machine(gpus: u32) -> Machine {
    let attrs = roofline_hw::find("h200").map(|g| g.attributes());
    let mut m = attrs.and_then(|a| roofline_hw::theoretical_machine(&a).ok()).unwrap_or_default();
    m.name = format!("NVIDIA H200 x{gpus} (synthetic)");
    let links: Vec<GpuLinks> = (0..gpus.min(255) as u8)
        .map(|gpu| GpuLinks {
            gpu,
            pcie: Some(Pcie { generation: 5, lanes: 16 }),
            nvlink: Some(NvLinks { version: 4, active: 18, to_gpu: Default::default(), to_switch: 18 }),
        })
        .collect();
    // GPU 0's links and the collectives: what rank 0's machine holds.
    m.ceilings.extend(theoretical_links(&links).into_iter().filter(|c| match c.resource {
        roofline_model::Resource::Link(l) => l.involves(0),
        _ => true,
    }));
    m
}

fn jitter(rank: u32, launch: u64) -> f64 {
    let mut x = (rank as u64) << 32 ^ launch;
    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    1.0 + 0.04 * ((x % 1000) as f64 / 1000.0 - 0.5)
}

/// The `i`-th distinct kernel of the job (`kinds` of them): its name and,
/// for one launch on rank `rank` of `ranks`, its work and time.
fn launch(i: usize, rank: u32, ranks: u32, launch: u64) -> Kernel {
    let k = i % 8;
    let j = jitter(rank, launch);
    let straggler = if rank + 1 == ranks && ranks > 1 { 1.3 } else { 1.0 };
    let mut kernel = match k {
        0..=2 => {
            let mut g = Kernel::named(&format!("sm90_xmma_gemm_bf16bf16_bf16f32_{i}"), Origin::Counter);
            let flops = 2.0 * 4096.0 * 4096.0 * (1024.0 * (k as f64 + 1.0));
            g.flops.insert(FlopKind::TensorBf16, flops);
            g.bytes.insert(MemLevel::Dram, 3.0 * 4096.0 * 4096.0 * 2.0);
            // 70% of an H200's 990 TFLOP/s.
            g.duration_s = Some(flops / 693e12 * j * straggler);
            g
        }
        3..=5 => {
            let name = if k == 3 { "vectorized_elementwise_kernel" } else { "layer_norm_kernel" };
            let mut e = Kernel::named(&format!("{name}_{i}"), Origin::Counter);
            let bytes = 64e6 * (k as f64 - 2.0);
            e.flops.insert(FlopKind::Fp32, bytes / 8.0);
            e.bytes.insert(MemLevel::Dram, bytes);
            // 80% of 4.8 TB/s.
            e.duration_s = Some(bytes / 3.84e12 * j);
            e
        }
        _ => {
            let name = COLLECTIVES[(i / 8 + k) % COLLECTIVES.len()];
            let mut c = Kernel::named(name, Origin::Counter);
            let bus = 25e6;
            c.bytes.insert(MemLevel::Dram, 3.0 * bus);
            // 300 GB/s of bus bandwidth; LL128 and LL send their flags too.
            c.duration_s = Some(bus / 300e9 * j);
            let wire = if name.contains("LL128") {
                bus * 128.0 / 120.0
            } else if name.contains("_LL(") {
                2.0 * bus
            } else {
                bus
            };
            c.evidence.nvlink_tx_bytes = Some(wire);
            c.evidence.nvlink_rx_bytes = Some(wire * 0.98);
            c
        }
    };
    kernel.id = roofline_model::short_id(&kernel.name);
    // As Nsight Compute's display names: without the argument list.
    kernel.display_name = kernel.name.split('(').next().unwrap_or(&kernel.name).to_string();
    kernel
}

/// Rank `rank` of a job of `ranks`: `launches` launches over `kinds`
/// kernel slots (a quarter of them collectives, which share NCCL's four
/// names), one entry per launch (as `profile --per-launch`
/// writes) or one per kernel with the launches summed.
pub fn rank(rank: u32, ranks: u32, launches: u64, kinds: usize, per_launch: bool) -> AnalysisDocument {
    let m = machine(ranks);
    let kinds = kinds.max(1);
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for l in 0..launches {
        let k = launch((l % kinds as u64) as usize, rank, ranks, l);
        if per_launch {
            kernels.push(k);
        } else if let Some(agg) = index.get(&k.name).map(|&i| &mut kernels[i]) {
            for (kind, f) in k.flops {
                *agg.flops.entry(kind).or_insert(0.0) += f;
            }
            for (level, b) in k.bytes {
                *agg.bytes.entry(level).or_insert(0.0) += b;
            }
            agg.duration_s = Some(agg.duration_s.unwrap_or(0.0) + k.duration_s.unwrap_or(0.0));
            agg.launches += 1;
            let e = &mut *agg.evidence;
            for (a, b) in [
                (&mut e.nvlink_tx_bytes, k.evidence.nvlink_tx_bytes),
                (&mut e.nvlink_rx_bytes, k.evidence.nvlink_rx_bytes),
            ] {
                if let Some(b) = b {
                    *a = Some(a.unwrap_or(0.0) + b);
                }
            }
        } else {
            index.insert(k.name.clone(), kernels.len());
            kernels.push(k);
        }
    }
    let mut doc = AnalysisDocument::new(
        Producer::new("synthetic rank (crate::synthetic)"),
        AnalysisSource {
            kind: "synthetic".into(),
            detail: format!("rank {rank} of {ranks}: {launches} launches of {kinds} kernels, generated"),
            byte_convention: None,
        },
        m.clone(),
        analyze(&m, &kernels),
    );
    doc.rank = Some(RankInfo {
        rank,
        local_rank: Some(rank % 8),
        world_size: Some(ranks),
        variable: "RANK".into(),
        launcher: "torchrun".into(),
        host: Some(format!("node{}", rank / 8)),
    });
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use roofline_analysis::TimeClass;

    #[test]
    fn a_synthetic_rank_has_every_class_and_a_straggler() {
        let r0 = rank(0, 2, 64, 16, false);
        let r1 = rank(1, 2, 64, 16, false);
        // 12 GEMM and memory kernels; the 4 collective slots share 3 of NCCL's names.
        assert_eq!(r0.kernels.len(), 15);
        assert!(r0.machine.name.contains("synthetic") && r0.source.kind == "synthetic");
        let classes: Vec<TimeClass> = r0.kernels.iter().map(roofline_analysis::time_class).collect();
        for c in [TimeClass::Compute, TimeClass::Memory, TimeClass::Communication] {
            assert!(classes.contains(&c), "{c:?}");
        }
        let gemm = |d: &AnalysisDocument| {
            d.kernels.iter().find(|a| a.kernel.name.ends_with("_0")).unwrap().kernel.duration_s.unwrap()
        };
        assert!(gemm(&r1) > 1.1 * gemm(&r0), "the last rank is slower in its GEMMs");
        let ar = r0.kernels.iter().find(|a| a.collective.is_some()).unwrap();
        assert!(ar.collective.as_ref().unwrap().pct_of_roof.is_some(), "judged against the all-reduce roof");
        assert_eq!(rank(1, 2, 64, 16, true).kernels.len(), 64, "one entry per launch");
    }
}
