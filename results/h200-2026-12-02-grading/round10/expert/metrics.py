"""Per-launch roofline figures from the packet's captures.
Roofs: measured DRAM (4.53e12 read, 4.70e12 write, 4.40e12 triad -> mixed roof chosen by read/write mix),
measured L2 9.978e12 B/s, L1/shared 128 B/clk/SM at the launch's clock; FP32 = 256 FLOP/clk/SM at the
launch's SM clock; dense tensor: BF16/FP16 4096 FLOP/clk/SM, TF32 2048 FLOP/clk/SM at the launch clock.
"""
import sys
from ncu_parse import load, raw, CAPTURES

SMS = 132
DRAM_RD, DRAM_WR, DRAM_TRIAD, DRAM_COPY = 4.53e12, 4.702e12, 4.401e12, 4.282e12
L2_MEAS = 9.978e12

def g(r, k, default=0.0):
    v = r.get(k)
    return default if v is None else v

def dram_roof(rd, wr):
    """Measured DRAM roof for this read/write mix: read-only 4.53, write-only 4.70, copy (1:1) 4.28,
    triad (2:1) 4.40 TB/s; interpolate on the write fraction."""
    tot = rd + wr
    if tot <= 0:
        return DRAM_RD
    w = wr / tot
    pts = [(0.0, DRAM_RD), (1/3, DRAM_TRIAD), (0.5, DRAM_COPY), (1.0, DRAM_WR)]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if x0 <= w <= x1:
            return y0 + (y1 - y0) * (w - x0) / (x1 - x0)
    return DRAM_RD

def launch_figures(r):
    f = {}
    f["id"] = raw(r, "ID")
    f["name"] = raw(r, "Kernel Name")
    f["grid"] = raw(r, "Grid Size"); f["block"] = raw(r, "Block Size")
    dur = g(r, "gpu__time_duration.sum") * 1e-9
    clk = g(r, "sm__cycles_elapsed.avg.per_second")
    f["dur_us"] = dur * 1e6; f["clk_mhz"] = clk / 1e6
    fp32 = g(r, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum") + g(r, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum") + 2 * g(r, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum")
    fp16 = 2 * g(r, "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum") + 2 * g(r, "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum") + 4 * g(r, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum")
    fp64 = g(r, "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum") + g(r, "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum") + 2 * g(r, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum")
    t_bf16 = g(r, "sm__ops_path_tensor_src_bf16_dst_fp32.sum")
    t_fp16 = g(r, "sm__ops_path_tensor_src_fp16.sum")
    t_tf32 = g(r, "sm__ops_path_tensor_src_tf32_dst_fp32.sum")
    f["fp32_flop"] = fp32; f["fp16_flop"] = fp16; f["fp64_flop"] = fp64
    f["tc_bf16"] = t_bf16; f["tc_fp16"] = t_fp16; f["tc_tf32"] = t_tf32
    f["fp32_tflops"] = fp32 / dur / 1e12
    f["fp32_pct"] = 100 * fp32 / dur / (SMS * 256 * clk)
    tc16 = t_bf16 + t_fp16
    f["tc16_tflops"] = tc16 / dur / 1e12
    f["tc16_pct_dense"] = 100 * tc16 / dur / (SMS * 4096 * clk)
    f["tf32_tflops"] = t_tf32 / dur / 1e12
    f["tf32_pct_dense"] = 100 * t_tf32 / dur / (SMS * 2048 * clk)
    rd = g(r, "dram__bytes_read.sum"); wr = g(r, "dram__bytes_write.sum")
    f["dram_rd_MB"] = rd / 1e6; f["dram_wr_MB"] = wr / 1e6
    f["dram_GBs"] = (rd + wr) / dur / 1e9
    f["dram_roof_GBs"] = dram_roof(rd, wr) / 1e9
    f["dram_pct_meas"] = 100 * f["dram_GBs"] / f["dram_roof_GBs"]
    f["dram_pct_ncu"] = g(r, "dram__throughput.avg.pct_of_peak_sustained_elapsed")
    l2b = g(r, "lts__t_bytes.sum")
    f["l2_MB"] = l2b / 1e6; f["l2_GBs"] = l2b / dur / 1e9; f["l2_pct_meas"] = 100 * l2b / dur / L2_MEAS
    f["l2_pct_ncu"] = g(r, "lts__throughput.avg.pct_of_peak_sustained_elapsed")
    f["l2_hit"] = g(r, "lts__t_sector_hit_rate.pct")
    l1b = g(r, "l1tex__t_bytes.sum")
    f["l1_MB"] = l1b / 1e6; f["l1_pct_theo"] = 100 * l1b / dur / (SMS * 128 * clk)
    f["l1_pct_ncu"] = g(r, "l1tex__throughput.avg.pct_of_peak_sustained_elapsed")
    f["sm_pct"] = g(r, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
    f["issue_pct"] = g(r, "sm__issue_active.avg.pct_of_peak_sustained_elapsed")
    f["smsp_issue_active"] = g(r, "smsp__issue_active.avg.pct_of_peak_sustained_active")
    f["inst"] = g(r, "smsp__inst_executed.sum")
    f["occ_theo"] = g(r, "sm__maximum_warps_per_active_cycle_pct")
    f["occ_ach"] = g(r, "sm__warps_active.avg.pct_of_peak_sustained_active")
    f["regs"] = g(r, "launch__registers_per_thread")
    f["smem_blk"] = g(r, "launch__shared_mem_per_block")
    f["waves"] = g(r, "launch__waves_per_multiprocessor")
    f["sm_active_frac"] = 100 * g(r, "sm__cycles_active.avg") / max(1.0, g(r, "sm__cycles_elapsed.avg"))
    for p in ["alu", "fma", "fmaheavy", "fp64", "shared", "tensor", "tma"]:
        f["pipe_" + p] = g(r, "sm__pipe_%s_cycles_active.avg.pct_of_peak_sustained_active" % p, None) if p not in ("fmaheavy",) else g(r, "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed")
    for p in ["alu", "fma", "lsu", "xu", "uniform", "adu", "cbu", "tensor_op_hmma", "tensor_op_gmma"]:
        f["inst_" + p] = g(r, "sm__inst_executed_pipe_%s.avg.pct_of_peak_sustained_active" % p)
    f["ld_B_per_sector"] = g(r, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio")
    f["st_B_per_sector"] = g(r, "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio")
    f["bank_conf_ld"] = g(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
    f["bank_conf_st"] = g(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
    f["excess_sectors"] = g(r, "derived__memory_l2_theoretical_sectors_global_excessive")
    # stalls (per issue)
    st = {}
    for k in r:
        if k.startswith("smsp__average_warps_issue_stalled_") and k.endswith("_per_issue_active.ratio"):
            st[k[len("smsp__average_warps_issue_stalled_"):-len("_per_issue_active.ratio")]] = g(r, k)
    f["stalls"] = dict(sorted(st.items(), key=lambda kv: -kv[1])[:4])
    return f

def all_launches():
    out = {}
    for c in CAPTURES:
        h, u, rows = load(c)
        out[c] = [launch_figures(r) for r in rows]
    return out

if __name__ == "__main__":
    caps = all_launches()
    keys = ["dur_us", "clk_mhz", "dram_GBs", "dram_pct_meas", "dram_pct_ncu", "l2_pct_meas", "l2_pct_ncu", "l2_hit", "l1_pct_ncu",
            "sm_pct", "issue_pct", "fp32_pct", "tc16_pct_dense", "tf32_pct_dense", "occ_theo", "occ_ach", "regs", "waves", "sm_active_frac"]
    for c, L in caps.items():
        print("=" * 20, c)
        for f in L:
            print(f["id"], f["name"][:90], f["grid"], f["block"])
            print("   " + " ".join("%s=%.4g" % (k, f[k]) for k in keys))
            print("   pipes: " + " ".join("%s=%.3g" % (k, f[k]) for k in f if (k.startswith("pipe_") or k.startswith("inst_")) and f[k] is not None))
            print("   mem: rdMB=%.2f wrMB=%.2f l2MB=%.2f l1MB=%.2f ldB/sec=%.1f stB/sec=%.1f bankc=%g/%g excess=%g fp32=%.3g tcbf16=%.3g tctf32=%.3g" % (
                f["dram_rd_MB"], f["dram_wr_MB"], f["l2_MB"], f["l1_MB"], f["ld_B_per_sector"], f["st_B_per_sector"], f["bank_conf_ld"], f["bank_conf_st"], f["excess_sectors"], f["fp32_flop"], f["tc_bf16"] + f["tc_fp16"], f["tc_tf32"]))
            print("   stalls: " + " ".join("%s=%.2f" % kv for kv in f["stalls"].items()))
