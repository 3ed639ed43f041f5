#!/usr/bin/env python3
"""Parse `ncu --csv --page raw --print-units base` captures (standard library only).

load(path) -> (header, units, rows) where rows are dicts of raw strings.
num(row, col) -> float (thousands separators stripped; n/a/empty -> 0.0).
launch_metrics(row) -> dict of derived per-launch quantities (FLOPs with FMA x2,
bytes per memory level, utilisations, occupancy, stalls).
"""
import csv
import math

# Measured H200 roofs (measured-roofs.txt) and theoretical per-clock figures.
SMS = 132
DRAM_MEAS = 4.53e12        # DRAM read-only stream (measured); copy 4.28, triad 4.40, write 4.70
DRAM_COPY = 4.282e12
DRAM_THEO = 4.814e12
L2_MEAS = 9.978e12         # at 1980 MHz
L1_MEAS = 3.337e13         # at 1980 MHz (128 B/clk/SM)
FP32_PER_CLK = SMS * 128 * 2          # FLOP/clk
FP64_PER_CLK = SMS * 64 * 2
FP16_PER_CLK = SMS * 256 * 2
TENSOR16_DENSE_PER_CLK = SMS * 4096   # FLOP/clk dense BF16/FP16 (ncu peak 8192 is sparse)
TF32_DENSE_PER_CLK = SMS * 2048
BF16_MEAS = 8.506e14       # at 1980 MHz bursts; 7.28e14 at 1530 MHz sustained
FP16_MEAS = 8.026e14


def load(path):
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
    rdr = list(csv.reader(lines[start:]))
    header, units = rdr[0], rdr[1]
    rows = [dict(zip(header, r)) for r in rdr[2:] if len(r) == len(header)]
    return header, units, rows


def num(row, col, default=0.0):
    v = row.get(col, "")
    if v is None:
        return default
    v = v.replace(",", "").strip()
    if v in ("", "n/a", "N/A"):
        return default
    try:
        return float(v)
    except ValueError:
        return default


STALLS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "gmma", "imc_miss", "lg_throttle",
          "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction",
          "not_selected", "selected", "short_scoreboard", "sleeping", "tex_throttle", "wait"]

PIPES = ["alu", "fma", "fma_type_fp16", "fp64", "lsu", "xu", "tensor_op_gmma", "tensor_op_hmma", "uniform", "cbu", "adu", "tex", "tma"]

TENSOR_SRC = ["fp16", "bf16_dst_fp32", "tf32_dst_fp32", "fp8", "int8", "fp64", "int1"]


def launch_metrics(r):
    m = {}
    m["name"] = r["Kernel Name"]
    m["id"] = int(num(r, "ID"))
    m["dur_ns"] = num(r, "gpu__time_duration.sum")
    m["clk"] = num(r, "sm__cycles_elapsed.avg.per_second")
    m["dram_clk"] = num(r, "dram__cycles_elapsed.avg.per_second")
    m["grid"] = num(r, "launch__grid_size")
    m["block"] = num(r, "launch__block_size")
    m["regs"] = num(r, "launch__registers_per_thread")
    m["smem"] = num(r, "launch__shared_mem_per_block")
    m["waves"] = num(r, "launch__waves_per_multiprocessor")
    m["occ_theo"] = num(r, "sm__maximum_warps_per_active_cycle_pct")
    m["occ_ach"] = num(r, "sm__warps_active.avg.pct_of_peak_sustained_active")
    for k in ("registers", "shared_mem", "warps", "blocks", "barriers"):
        m["lim_" + k] = num(r, "launch__occupancy_limit_" + k)
    m["sm_active_frac"] = num(r, "sm__cycles_active.avg") / max(num(r, "sm__cycles_elapsed.avg"), 1)
    # FLOPs
    P = "smsp__sass_thread_inst_executed_op_%s_pred_on.sum"
    m["fp32"] = num(r, P % "fadd") + num(r, P % "fmul") + 2 * num(r, P % "ffma")
    m["ffma"] = num(r, P % "ffma")
    m["fp64"] = num(r, P % "dadd") + num(r, P % "dmul") + 2 * num(r, P % "dfma")
    m["fp16"] = 2 * num(r, P % "hadd") + 2 * num(r, P % "hmul") + 4 * num(r, P % "hfma")
    m["tensor"] = 0.0
    for s in TENSOR_SRC:
        v = num(r, "sm__ops_path_tensor_src_%s.sum" % s)
        m["t_" + s] = v
        m["tensor"] += v
    m["flops"] = m["fp32"] + m["fp64"] + m["fp16"] + m["tensor"]
    # bytes
    m["dram"] = num(r, "dram__bytes.sum")
    m["dram_rd"] = num(r, "dram__bytes_read.sum")
    m["dram_wr"] = num(r, "dram__bytes_write.sum")
    m["l2_t"] = num(r, "lts__t_bytes.sum")
    m["l2_x"] = 32 * num(r, "lts__lts2xbar_cycles_active.sum")
    m["l1_t"] = num(r, "l1tex__t_bytes.sum")
    m["l1_wb"] = 128 * num(r, "l1tex__lsu_writeback_active_mem_lgds.sum")
    m["l2_hit"] = num(r, "lts__t_sector_hit_rate.pct")
    m["l1_hit"] = num(r, "l1tex__t_sector_hit_rate.pct")
    m["ld_bps"] = num(r, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio")
    m["st_bps"] = num(r, "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio")
    m["bank_ld"] = num(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
    m["bank_st"] = num(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
    m["shared_wf"] = num(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
    m["red_sect"] = num(r, "lts__t_sectors_srcunit_tex_op_red.sum")
    m["atom_sect"] = num(r, "lts__t_sectors_srcunit_tex_op_atom.sum")
    m["red_req"] = num(r, "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum")
    m["atom_req"] = num(r, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum")
    m["red_pct"] = num(r, "lts__t_sectors_srcunit_tex_op_red.sum.pct_of_peak_sustained_elapsed")
    m["l2_atomic_pct"] = num(r, "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed")
    m["local_spill"] = num(r, "derived__local_spilling_requests")
    # speed of light %
    m["pct_dram"] = num(r, "dram__throughput.avg.pct_of_peak_sustained_elapsed")
    m["pct_l2"] = num(r, "lts__throughput.avg.pct_of_peak_sustained_elapsed")
    m["pct_l1"] = num(r, "l1tex__throughput.avg.pct_of_peak_sustained_elapsed")
    m["pct_sm"] = num(r, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
    m["pct_mem"] = num(r, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
    m["pct_issue"] = num(r, "sm__inst_issued.avg.pct_of_peak_sustained_elapsed")
    m["issue_per_active"] = num(r, "smsp__issue_active.avg.per_cycle_active")
    m["pct_tensor_pipe"] = num(r, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed")
    if m["pct_tensor_pipe"] == 0:
        m["pct_tensor_pipe"] = num(r, "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_sustained_elapsed")
    m["pct_fma_pipe"] = num(r, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed")
    m["pct_fmaheavy"] = num(r, "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed")
    m["pct_alu_pipe"] = num(r, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed")
    m["pct_shared_pipe"] = num(r, "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed")
    m["pct_fp64_pipe"] = num(r, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed")
    for p in PIPES:
        m["pi_" + p] = num(r, "sm__inst_executed_pipe_%s.avg.pct_of_peak_sustained_elapsed" % p)
    m["pct_lsu_wf"] = num(r, "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed")
    m["pct_l1_bank_rd"] = num(r, "l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed")
    m["inst"] = num(r, "smsp__inst_executed.sum")
    m["warps_elig"] = num(r, "smsp__warps_eligible.avg.per_cycle_active")
    m["warps_active_smsp"] = num(r, "smsp__warps_active.avg.per_cycle_active")
    st = {}
    for s in STALLS:
        st[s] = num(r, "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % s)
    m["stalls"] = st
    # derived rates
    d = m["dur_ns"] * 1e-9
    if d > 0:
        m["dram_bw"] = m["dram"] / d
        m["l2_bw"] = m["l2_t"] / d
        m["l1_bw"] = m["l1_t"] / d
        m["flops_rate"] = m["flops"] / d
        m["tensor_rate"] = m["tensor"] / d
        clk = m["clk"] or 1.98e9
        m["tensor_pct_dense"] = 100 * m["tensor"] / d / (TENSOR16_DENSE_PER_CLK * clk) if m["tensor"] else 0
        m["fp32_pct"] = 100 * m["fp32"] / d / (FP32_PER_CLK * clk)
        m["l2_pct_meas"] = 100 * m["l2_t"] / d / (L2_MEAS * clk / 1.98e9)
        m["dram_pct_meas"] = 100 * m["dram_bw"] / DRAM_MEAS
    return m


def group(rows):
    """Group launches by exact Kernel Name; keep order of first appearance."""
    out = {}
    for r in rows:
        m = launch_metrics(r)
        out.setdefault(m["name"], []).append(m)
    return out
