//! Issue 10's rules on real H200 rows (tests/fixtures/ncu), one test per
//! rule: the counters each rule reads, and what it concludes. Where no
//! captured kernel shows a case (a store-only waste, an XU-bound kernel), a
//! real row is altered the way such a kernel would have filled it.

mod common;

use common::{analyse, Analysis, Options};
use common::{bundled_h200, capture, Table};
use roofline_analysis::KernelAnalysis;
use roofline_analysis::{mix_roof, Limiter};
use roofline_analysis::{Access, Advice, Finding, Position};
use roofline_model::Warning;
use roofline_model::{BypassPath, LevelCaveat};
use roofline_model::{FlopKind, MemLevel, Pipe};
use roofline_ncu::ByteConvention;

fn kernel<'a>(a: &'a Analysis, name: &str) -> &'a KernelAnalysis {
    a.kernels.iter().find(|k| k.kernel.name == name).unwrap_or_else(|| panic!("no kernel {name}"))
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

#[test]
fn strided_loads_waste_the_share_of_sectors_ncu_counts_as_excess() {
    let cap = capture("h200_seed000_full.csv");
    let t = Table::load("h200_seed000_full.csv");
    let a = analyse(&cap, &Options::default());
    let k = kernel(&a, "strided_copy");
    let d = k.diagnosis.as_ref().unwrap();
    let rows = t.rows_of("strided_copy");
    let sum = |c: &str| rows.iter().map(|&r| t.num(r, c)).sum::<f64>();
    let sectors =
        sum("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") + sum("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    let ncu_share = 100.0 * sum("derived__memory_l2_theoretical_sectors_global_excessive") / sectors;
    let share = d
        .next_moves
        .iter()
        .find_map(|m| match &m.advice {
            Advice::Coalesce { access: Access::Load, bytes_per_sector, wasted_share_pct } => {
                assert_eq!(*bytes_per_sector, 4.0);
                Some(*wasted_share_pct)
            }
            _ => None,
        })
        .expect("coalescing advice");
    assert!(close(share, ncu_share, 1e-9), "{share} vs ncu's {ncu_share}");
}

#[test]
fn a_wasteful_store_that_is_a_sliver_of_the_traffic_gets_no_coalescing_advice() {
    // BabelStream's dot: one 8-byte store per block beside full-sector loads.
    let mut t = Table::load("h200_seed000_full.csv");
    let ld = t.num(t.rows_of("vecadd")[0], "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    t.set_kernel("vecadd", "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", 8.0);
    let st = (ld / 10_000.0).round();
    t.set_kernel("vecadd", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", st);
    // ncu counts 3 of every 4 such store sectors as excess.
    t.set_kernel("vecadd", "derived__memory_l2_theoretical_sectors_global_excessive", 0.75 * st);
    let a = t.analyse(&Options::default());
    let d = kernel(&a, "vecadd").diagnosis.as_ref().unwrap();
    // 3/4 of 1/10,001 of the sectors are excess: far under the 10% that
    // could cost time at L2.
    assert!(!d.advises("coalesce") && !d.advises("check_coalescing"), "{d:?}");
}

#[test]
fn streaming_kernels_are_judged_against_the_mix_they_stream() {
    let machine = bundled_h200();
    let cap = capture("h200_seed000_full.csv");
    let t = Table::load("h200_seed000_full.csv");
    let a = analyse(&cap, &Options { machine: Some(machine.clone()), ..Options::default() });
    for name in ["vecadd", "scale", "add", "fused"] {
        let k = kernel(&a, name);
        let rows = t.rows_of(name);
        let sum = |c: &str| rows.iter().map(|&r| t.num(r, c)).sum::<f64>();
        let (r, w) = (sum("dram__sectors_read.sum"), sum("dram__sectors_write.sum"));
        let expect = mix_roof(&machine, r / (r + w)).unwrap();
        // Between add/triad (2:1, whichever streamed faster) and read-only, as the mixes are.
        assert!(["dram.add", "dram.triad"].contains(&expect.lower.benchmark.as_str()), "{name}: {expect:?}");
        assert_eq!(expect.upper.benchmark, "dram.read", "{name}");
        let dram = k.level(MemLevel::Dram).unwrap();
        let want = 100.0 * dram.achieved_bytes_per_s.unwrap() / expect.bytes_per_s;
        assert!(close(k.pct_of_mix_roof.unwrap(), want, 1e-12), "{name}");
        assert!(k.pct_of_mix_roof.unwrap() > k.pct_of_roof.unwrap());
        let d = k.diagnosis.as_ref().unwrap();
        assert!(d.has("pct_of_mix_roof"), "{name}: {d:?}");
        // The chart keeps the highest roof as the ceiling.
        assert_eq!(dram.bandwidth, machine.bandwidth_roof(MemLevel::Dram).map(|c| c.rate));
    }
}

#[test]
fn a_latency_test_of_one_block_per_sm_fills_three_percent_of_a_wave() {
    let a = analyse(&capture("h200_seed000_full.csv"), &Options::default());
    let d = kernel(&a, "pointer_chase").diagnosis.as_ref().unwrap();
    assert_eq!(d.position, Position::LatencyBound);
    // 132 blocks of 32 threads: 32 resident per SM (the block limit) x 132 SMs.
    let grid = d.evidence.iter().find_map(|f| match f {
        Finding::GridBelowOneWave { blocks, slots, idle_pct } => Some((*blocks, *slots, *idle_pct)),
        _ => None,
    });
    let (blocks, slots, idle) = grid.expect("the grid finding");
    assert_eq!((blocks, slots), (132.0, 132.0 * 32.0));
    assert!(close(idle, 100.0 * (1.0 - 1.0 / 32.0), 1e-12));
    assert!(d.advises("fill_the_gpu"));
    // The streaming kernels' 62 waves leave no tail worth naming.
    assert!(!kernel(&a, "vecadd").diagnosis.as_ref().unwrap().has("tail_wave"));
}

#[test]
fn fp32_kernels_are_judged_against_fp32_alone_their_hfma_are_constant_moves() {
    let cap = capture("h200_seed000_metrics.csv");
    let t = Table::load("h200_seed000_metrics.csv");
    let a = analyse(&cap, &Options::default());
    for name in ["fma_loop", "matmul_tiled", "matmul_naive"] {
        let k = kernel(&a, name);
        assert!(!k.kernel.flops.contains_key(&FlopKind::Fp16), "{name}");
        assert_eq!(k.compute_roof_name.as_deref(), Some("FP32"), "{name}");
        let hfma: f64 =
            t.rows_of(name).iter().map(|&r| t.num(r, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum")).sum();
        let moves = k.kernel.evidence.fp16.as_ref().unwrap().constant_moves.as_ref().unwrap();
        assert_eq!(moves.thread_instructions, hfma, "{name}");
        assert_eq!(moves.flops_as_counted, 4.0 * hfma);
        assert!(k.diagnosis.as_ref().unwrap().has("fp16_constant_moves"));
    }
    let names = a.warnings.iter().find_map(|w| match w {
        Warning::Fp16ConstantMoves { kernels } => Some(kernels.clone()),
        _ => None,
    });
    // Named in the analysis's order: most GPU time first.
    assert_eq!(names.unwrap(), ["matmul_naive", "fma_loop", "matmul_tiled"]);
}

#[test]
fn hfma_are_taken_for_constant_moves_only_under_5_percent_of_the_flops() {
    let mut t = Table::load("h200_seed000_metrics.csv");
    let p = "smsp__sass_thread_inst_executed_op_";
    let r = t.rows_of("matmul_tiled")[0];
    let fp32 = t.num(r, &format!("{p}fadd_pred_on.sum"))
        + t.num(r, &format!("{p}fmul_pred_on.sum"))
        + 2.0 * t.num(r, &format!("{p}ffma_pred_on.sum"));
    // FP16 = 4 x HFMA is x% of FP16 + FP32 when HFMA = x / (100 - x) x FP32 / 4.
    let hfma_for = |x: f64| (x / (100.0 - x) * fp32 / 4.0).round();
    let moves = |t: &Table| {
        let a = t.analyse(&Options::default());
        let k = &a.kernels.iter().find(|k| k.kernel.name == "matmul_tiled").unwrap().kernel;
        k.evidence.fp16.as_ref().unwrap().constant_moves.is_some()
    };
    for r in t.rows_of("matmul_tiled") {
        t.set(r, &format!("{p}hfma_pred_on.sum"), hfma_for(4.9));
    }
    assert!(moves(&t));
    for r in t.rows_of("matmul_tiled") {
        t.set(r, &format!("{p}hfma_pred_on.sum"), hfma_for(5.1));
    }
    assert!(!moves(&t));
    // One HADD beside them: FP16 work, not moves.
    for r in t.rows_of("matmul_tiled") {
        t.set(r, &format!("{p}hfma_pred_on.sum"), hfma_for(1.0));
        t.set(r, &format!("{p}hadd_pred_on.sum"), 1.0);
    }
    assert!(!moves(&t));
}

#[test]
fn with_pipe_counters_hfma_that_never_reach_the_fma_pipe_are_constant_moves() {
    use roofline_model::MoveDetection;
    let a = analyse(&capture("h200_seed000_full.csv"), &Options::default());
    let moves = |a: &Analysis| {
        kernel(a, "fma_loop").kernel.evidence.fp16.as_ref().unwrap().constant_moves.as_ref().map(|m| m.detected_by)
    };
    assert_eq!(moves(&a), Some(MoveDetection::PipeCounters));
    // The same HFMA with FP16 instructions on the FMA pipe are FP16 work.
    let mut t = Table::load("h200_seed000_full.csv");
    t.set_kernel("fma_loop", "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active", 0.5);
    let a = t.analyse(&Options::default());
    assert_eq!(moves(&a), None);
    assert!(kernel(&a, "fma_loop").kernel.flops.contains_key(&FlopKind::Fp16));
}

#[test]
fn fp16_is_counted_in_the_roofs_unit_with_both_bounds_said_once() {
    let mut t = Table::load("h200_seed000_metrics.csv");
    let p = "smsp__sass_thread_inst_executed_op_";
    for (c, v) in [("hfma", 1000.0), ("hadd", 10.0), ("hmul", 20.0)] {
        t.set_kernel("vecadd", &format!("{p}{c}_pred_on.sum"), v);
    }
    let a = t.analyse(&Options::default());
    let k = kernel(&a, "vecadd");
    // Per launch: 4 per HFMA (a half2 pair of FMAs), 2 per HADD and HMUL.
    let launches = k.kernel.launches as f64;
    assert_eq!(k.kernel.flops[&FlopKind::Fp16], launches * (4.0 * 1000.0 + 2.0 * 10.0 + 2.0 * 20.0));
    let fp16 = k.kernel.evidence.fp16.as_ref().unwrap();
    assert_eq!(fp16.scalar_flops, fp16.packed_flops / 2.0);
    assert!(k.diagnosis.as_ref().unwrap().has("fp16_packing_unknown"));
    // The roof counts a half2 FMA as 4 FLOPs too: 4 x the HFMA peak.
    let own = roofline_ncu::counter_machine(&[&a_launch(&t, "vecadd")], ByteConvention::Ncu);
    let fp16_roof = own.compute_roof(FlopKind::Fp16).unwrap().rate;
    let r = t.rows_of("vecadd")[0];
    let peak = t.num(r, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained");
    assert!(close(fp16_roof, 4.0 * peak * t.num(r, "sm__cycles_elapsed.avg.per_second"), 1e-12));
    let said: Vec<_> = a.warnings.iter().filter(|w| matches!(w, Warning::Fp16PackingUnknown { .. })).collect();
    assert_eq!(said.len(), 1);
}

fn a_launch(t: &Table, name: &str) -> roofline_ncu::Launch {
    let cap = t.capture();
    cap.launches.into_iter().find(|l| &*l.kernel_name == name).unwrap()
}

#[test]
fn a_gemm_below_the_maximum_clock_says_what_the_clock_costs() {
    let t = Table::load("h200_gemms_full.csv");
    let a = analyse(&capture("h200_gemms_full.csv"), &Options::default());
    let k = &a.kernels[0];
    assert_eq!(k.kernel.dominant_kind(), Some(FlopKind::TensorBf16));
    let clock = t.num(0, "sm__cycles_elapsed.avg.per_second");
    let max = 1e3 * t.num(0, "device__attribute_max_gpu_frequency_khz");
    let d = k.diagnosis.as_ref().unwrap();
    let loss = d.evidence.iter().find_map(|f| match f {
        Finding::ClockBelowMax { clock_hz, max_hz, loss_pct, .. } => {
            assert_eq!((*clock_hz, *max_hz), (clock, max));
            Some(*loss_pct)
        }
        _ => None,
    });
    assert!(close(loss.expect("the clock finding"), 100.0 * (1.0 - clock / max), 1e-12));
    // A clock under the power cap is evidence, never a move (and never a
    // cooling problem): the utilisation figures are at the kernel's clock.
    assert!(!d.advises("clock"), "{d:?}");
}

#[test]
fn tma_and_async_copy_gemms_have_no_l1_point() {
    let a = analyse(&capture("h200_gemms_full.csv"), &Options::default());
    let via = |i: usize| match a.kernels[i].level(MemLevel::L1).and_then(|p| p.caveat.clone()) {
        Some(LevelCaveat::L1Bypassed { via, .. }) => via,
        other => panic!("{}: {other:?}", a.kernels[i].kernel.display_name),
    };
    assert_eq!(via(0), [BypassPath::Tma, BypassPath::Wgmma]);
    assert_eq!(via(2), [BypassPath::AsyncCopy]);
    for k in &a.kernels {
        assert!(!k.level(MemLevel::L1).unwrap().measured());
        assert_ne!(k.limiter, Some(Limiter::Bandwidth(MemLevel::L1)));
    }
}

#[test]
fn writes_the_l2_chart_convention_misses_keep_the_l2_point_off_the_chart() {
    let cap = capture("h200_seed000_full.csv");
    let a = analyse(&cap, &Options::default());
    let k = kernel(&a, "vecadd");
    // c = a + b: one write per two reads.
    assert_eq!(
        k.level(MemLevel::L2).unwrap().caveat,
        Some(LevelCaveat::L2WritesNotCounted { write_share_pct: 100.0 / 3.0 })
    );
    // NERSC's lts__t_bytes counts both directions (--set full does not
    // export it: give it the sectors the SMs read and wrote).
    let mut t = Table::load("h200_seed000_full.csv");
    t.add_column("lts__t_bytes.sum", "byte", |t, r| {
        32.0 * (t.num(r, "lts__t_sectors_srcunit_tex_op_read.sum")
            + t.num(r, "lts__t_sectors_srcunit_tex_op_write.sum"))
    });
    let nersc = t.analyse(&Options { convention: ByteConvention::Nersc, ..Options::default() });
    assert!(kernel(&nersc, "vecadd").level(MemLevel::L2).unwrap().measured());
}

#[test]
fn the_busy_pipe_of_a_set_full_capture_agrees_with_ncus_utilisation() {
    let t = Table::load("h200_seed000_full.csv");
    let a = analyse(&capture("h200_seed000_full.csv"), &Options::default());
    let k = kernel(&a, "matmul_tiled");
    let d = k.diagnosis.as_ref().unwrap();
    // The shared-memory tiles keep L1/shared busy: that, not FP32, binds.
    assert_eq!(d.binding().map(|b| b.0), Some(roofline_analysis::Unit::Memory(MemLevel::L1)), "{d:?}");
    assert!(d.binding().unwrap().1 > 75.0, "{d:?}");
    assert_eq!(d.position, Position::OnDiagonal);
    // A hand-written FP32 product at the L1 roof: the library runs its FLOPs
    // near the FP32 roof.
    assert!(d.advises("library_product"), "{d:?}");
    // Ours is over the elapsed time at the table's 1 instruction/clock/SM,
    // ncu's over the SMs' active cycles: they differ by the active share.
    let lsu = k.instructions.as_ref().unwrap().pipe(Pipe::Lsu).unwrap();
    let rows = t.rows_of("matmul_tiled");
    let active: f64 =
        rows.iter().map(|&r| t.num(r, "sm__cycles_active.avg") / t.num(r, "sm__cycles_elapsed.avg")).sum::<f64>()
            / rows.len() as f64;
    assert!(close(lsu.pct_of_roof.unwrap(), lsu.counter_pct.unwrap() * active, 0.01), "{lsu:?} active {active}");
}

#[test]
fn a_kernel_busy_on_the_special_function_unit_is_pipe_bound() {
    // The random-number case: little DRAM traffic, the XU pipe saturated.
    let mut t = Table::load("h200_seed000_full.csv");
    t.set_kernel("vecadd", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", 88.0);
    t.set_kernel("vecadd", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed", 88.0);
    let a = t.analyse(&Options::default());
    let k = kernel(&a, "vecadd");
    let d = k.diagnosis.as_ref().unwrap();
    assert_eq!(d.position, Position::PipeBound);
    assert!(matches!(d.next_moves[0].advice, Advice::PipeWork { pipe: Pipe::Xu, .. }), "{d:?}");
    assert!(k.instructions.as_ref().unwrap().show_by_default);
}

#[test]
fn no_two_different_kernels_share_a_display_name_in_any_fixture() {
    for file in [
        "h200_seed000_full.csv",
        "h200_seed000_metrics.csv",
        "h200_gemms_full.csv",
        "h200_gemms_metrics.csv",
        "h200_probe_add_copy.csv",
    ] {
        let a = analyse(&capture(file), &Options::default());
        for (i, x) in a.kernels.iter().enumerate() {
            for y in &a.kernels[i + 1..] {
                assert!(
                    x.kernel.name == y.kernel.name || x.kernel.display_name != y.kernel.display_name,
                    "{file}: {} and {} are both {}",
                    x.kernel.name,
                    y.kernel.name,
                    x.kernel.display_name
                );
            }
        }
    }
}
