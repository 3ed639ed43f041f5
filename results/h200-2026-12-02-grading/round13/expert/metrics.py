"""Per-launch and per-kernel figures from the ncu raw captures (stdlib only).

Formulas (see NOTES.md):
  time        = gpu__time_duration.sum (ns)
  clock       = sm__cycles_elapsed.avg.per_second (Hz)
  FP32 FLOP   = fadd + fmul + 2*ffma      (smsp__sass_thread_inst_executed_op_*_pred_on.sum)
  FP16 FLOP   = 2*hadd + 2*hmul + 4*hfma
  FP64 FLOP   = dadd + dmul + 2*dfma
  tensor FLOP = sum sm__ops_path_tensor_src_{fp16,bf16_dst_fp32,tf32_dst_fp32,fp8,int8,fp64,int1}.sum
  DRAM bytes  = dram__bytes.sum ; L2 bytes = lts__t_bytes.sum ; L1 bytes = l1tex__t_bytes.sum
  L2->SM bytes (ncu chart) = 32 * lts__lts2xbar_cycles_active.sum
"""
from collections import OrderedDict
import load

N = load.num
P = "smsp__sass_thread_inst_executed_op_%s_pred_on.sum"
TENSOR = ["fp16", "bf16_dst_fp32", "tf32_dst_fp32", "fp8", "int8", "fp64", "int1"]
STALLS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "gmma", "imc_miss", "lg_throttle",
          "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction",
          "not_selected", "selected", "short_scoreboard", "sleeping", "tex_throttle", "wait"]
PIPES = ["alu", "fma", "fma_type_fp16", "fp64", "lsu", "tensor_op_gmma", "tensor_op_hmma", "tex", "uniform", "xu", "adu", "cbu", "tma"]

# measured roofs (measured-roofs.txt), all measured at 1980 MHz SM clock unless noted
R = {
    "dram_read": 4.53e12, "dram_write": 4.702e12, "dram_copy": 4.282e12, "dram_triad": 4.401e12,
    "l2": 9.978e12, "l1": 3.337e13,
    "fp32": 6.602e13, "fp16": 1.302e14, "fp64": 3.339e13,
    "tensor_fp16": 8.026e14, "tensor_bf16": 8.506e14, "tensor_tf32": 3.834e14 * 1980 / 1635,
    "issue": 1.032e12,  # warp instructions / s, whole GPU
}
RCLK = 1980e6


def g(r, k, d=0.0):
    v = N(r.get(k))
    return d if v is None else v


def dram_roof(read_frac):
    """Measured DRAM roof for a kernel's read/write mix (piecewise-linear through
    write-only 0.0, copy 0.5, triad 2/3, read-only 1.0)."""
    pts = [(0.0, R["dram_write"]), (0.5, R["dram_copy"]), (2 / 3, R["dram_triad"]), (1.0, R["dram_read"])]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if read_frac <= x1:
            return y0 + (y1 - y0) * (read_frac - x0) / (x1 - x0)
    return pts[-1][1]


def launch(r):
    t = g(r, "gpu__time_duration.sum") * 1e-9
    clk = g(r, "sm__cycles_elapsed.avg.per_second")
    d = OrderedDict()
    d["name"] = r["Kernel Name"]
    d["id"] = r["ID"]
    d["t"] = t
    d["clk"] = clk
    d["block"] = r["Block Size"]
    d["grid"] = r["Grid Size"]
    d["threads_per_block"] = g(r, "launch__block_size")
    d["blocks"] = g(r, "launch__grid_size")
    d["waves"] = g(r, "launch__waves_per_multiprocessor")
    d["regs"] = g(r, "launch__registers_per_thread")
    d["smem"] = g(r, "launch__shared_mem_per_block")
    d["occ_theo"] = g(r, "sm__maximum_warps_per_active_cycle_pct")
    d["occ_ach"] = g(r, "sm__warps_active.avg.pct_of_peak_sustained_active")
    d["sm_active_frac"] = g(r, "sm__cycles_active.avg") / max(g(r, "sm__cycles_elapsed.avg"), 1)
    d["fp32"] = g(r, P % "fadd") + g(r, P % "fmul") + 2 * g(r, P % "ffma")
    d["fp16"] = 2 * g(r, P % "hadd") + 2 * g(r, P % "hmul") + 4 * g(r, P % "hfma")
    d["fp64"] = g(r, P % "dadd") + g(r, P % "dmul") + 2 * g(r, P % "dfma")
    tens = {k: g(r, "sm__ops_path_tensor_src_%s.sum" % k) for k in TENSOR}
    d["tensor"] = sum(tens.values())
    d["tensor_kind"] = max(tens, key=tens.get) if d["tensor"] > 0 else ""
    d["dram"] = g(r, "dram__bytes.sum")
    d["dram_rd"] = g(r, "dram__bytes_read.sum")
    d["dram_wr"] = g(r, "dram__bytes_write.sum")
    d["l2"] = g(r, "lts__t_bytes.sum")
    d["l2x"] = 32 * g(r, "lts__lts2xbar_cycles_active.sum")
    d["l1"] = g(r, "l1tex__t_bytes.sum")
    d["l1wb"] = 128 * g(r, "l1tex__lsu_writeback_active_mem_lgds.sum")
    d["tex_rd"] = 32 * g(r, "lts__t_sectors_srcunit_tex_op_read.sum")
    d["tex_wr"] = 32 * g(r, "lts__t_sectors_srcunit_tex_op_write.sum")
    d["l2_hit"] = g(r, "lts__t_sector_hit_rate.pct")
    d["pct_dram"] = g(r, "dram__throughput.avg.pct_of_peak_sustained_elapsed")
    d["pct_l2"] = g(r, "lts__throughput.avg.pct_of_peak_sustained_elapsed")
    d["pct_l1"] = g(r, "l1tex__throughput.avg.pct_of_peak_sustained_elapsed")
    d["pct_sm"] = g(r, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
    d["pct_mem"] = g(r, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
    d["pct_issue"] = g(r, "smsp__issue_active.avg.pct_of_peak_sustained_active")
    d["pct_tensor_pipe"] = g(r, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed")
    d["pct_shared_pipe"] = g(r, "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed")
    d["pct_lsu_wavefronts"] = g(r, "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed")
    for p in PIPES:
        d["pipe_" + p] = g(r, "sm__inst_executed_pipe_%s.avg.pct_of_peak_sustained_active" % p)
    d["pipe_fma_cyc"] = g(r, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active")
    d["pipe_alu_cyc"] = g(r, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active")
    d["inst"] = g(r, "smsp__inst_executed.sum")
    d["stalls"] = {s: g(r, "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % s) for s in STALLS}
    d["ld_bytes_per_sector"] = g(r, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio")
    d["st_bytes_per_sector"] = g(r, "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio")
    d["bank_conf_ld"] = g(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
    d["bank_conf_st"] = g(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
    d["excess_l2_sectors"] = g(r, "derived__memory_l2_theoretical_sectors_global_excessive")
    d["atom_global"] = g(r, "smsp__inst_executed_op_global_red.sum") + g(r, "smsp__inst_executed_op_generic_atom_dot_alu.sum")
    return d


SUMS = ["t", "fp32", "fp16", "fp64", "tensor", "dram", "dram_rd", "dram_wr", "tex_rd", "tex_wr", "l2", "l2x", "l1", "l1wb", "inst"]


def groups(stem):
    h, u, recs = load.load(stem)
    L = [launch(r) for r in recs]
    total = sum(x["t"] for x in L)
    G = OrderedDict()
    for x in L:
        G.setdefault(x["name"], []).append(x)
    out = []
    for name, ls in G.items():
        a = OrderedDict()
        a["name"] = name
        a["n"] = len(ls)
        for k in SUMS:
            a[k] = sum(x[k] for x in ls)
        T = a["t"]
        w = lambda k: sum(x[k] * x["t"] for x in ls) / T if T else 0.0
        for k in ["clk", "occ_theo", "occ_ach", "sm_active_frac", "pct_dram", "pct_l2", "pct_l1", "pct_sm", "pct_mem",
                  "pct_issue", "pct_tensor_pipe", "pct_shared_pipe", "pct_lsu_wavefronts", "pipe_fma_cyc", "pipe_alu_cyc",
                  "waves", "l2_hit", "ld_bytes_per_sector", "st_bytes_per_sector"] + ["pipe_" + p for p in PIPES]:
            a[k] = w(k)
        a["stalls"] = {s: sum(x["stalls"][s] * x["t"] for x in ls) / T for s in STALLS}
        a["tensor_kind"] = next((x["tensor_kind"] for x in ls if x["tensor_kind"]), "")
        a["launches"] = ls
        a["share"] = 100 * T / total
        sc = a["clk"] / RCLK
        a["sc"] = sc
        rf = a["dram_rd"] / a["dram"] if a["dram"] else 1.0
        a["roof_dram"] = dram_roof(rf)
        a["roof_l2"] = R["l2"] * sc
        a["roof_l1"] = R["l1"] * sc
        # achieved rates
        a["bw_dram"] = a["dram"] / T
        a["bw_l2"] = a["l2"] / T
        a["bw_l1"] = a["l1"] / T
        a["u_dram"] = 100 * a["bw_dram"] / a["roof_dram"]
        # streaming efficiency: DRAM reads plus the writes the SMs sent to L2 (which
        # under ncu's cache flush mostly stay in the 60 MiB L2 until after the kernel)
        a["eff_bytes"] = a["dram_rd"] + max(a["dram_wr"], a["tex_wr"])
        ef = a["dram_rd"] / a["eff_bytes"] if a["eff_bytes"] else 1.0
        a["roof_eff"] = dram_roof(ef)
        a["u_eff"] = 100 * a["eff_bytes"] / T / a["roof_eff"]
        a["u_l2"] = 100 * a["bw_l2"] / a["roof_l2"]
        a["u_l1"] = 100 * a["bw_l1"] / a["roof_l1"]
        a["r_fp32"] = a["fp32"] / T
        a["r_fp16"] = a["fp16"] / T
        a["r_tensor"] = a["tensor"] / T
        a["u_fp32"] = 100 * a["r_fp32"] / (R["fp32"] * sc)
        a["u_fp16"] = 100 * a["r_fp16"] / (R["fp16"] * sc)
        tk = {"fp16": "tensor_fp16", "bf16_dst_fp32": "tensor_bf16", "tf32_dst_fp32": "tensor_tf32"}.get(a["tensor_kind"], "tensor_fp16")
        a["roof_tensor"] = R[tk] * sc
        a["u_tensor"] = 100 * a["r_tensor"] / a["roof_tensor"] if a["tensor"] else 0.0
        a["u_issue"] = 100 * (a["inst"] / T) / (R["issue"] * sc)
        flops = a["fp32"] + a["fp16"] + a["fp64"] + a["tensor"]
        a["flops"] = flops
        a["ai_dram"] = flops / a["dram"] if a["dram"] else float("inf")
        a["ai_l2"] = flops / a["l2"] if a["l2"] else float("inf")
        out.append(a)
    out.sort(key=lambda a: -a["t"])
    return out, total


def top_stalls(a, k=3):
    s = sorted(a["stalls"].items(), key=lambda kv: -kv[1])
    return ", ".join("%s %.1f" % (n, v) for n, v in s[:k])
