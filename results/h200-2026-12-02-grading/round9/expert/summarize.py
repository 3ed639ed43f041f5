#!/usr/bin/env python3
"""Per-capture, per-kernel summary of the counters behind each verdict.

usage: python3 summarize.py [capture_stem ...]   (default: all six)
Writes summary_<stem>.txt beside this script and prints it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_parse import load, group, DRAM_MEAS, L2_MEAS  # noqa: E402

CAP = "/work/grading9/packet/captures"
STEMS = ["qwen2_train", "neox_prefill_infer", "pyg_sage_train", "vae_train", "cupy_heat", "cupy_user_kernels"]


def s(x, d=1):
    return f"{x:.{d}f}"


def summarize(stem):
    _, _, rows = load(os.path.join(CAP, stem + ".full.csv"))
    g = group(rows)
    total = sum(m["dur_ns"] for ms in g.values() for m in ms)
    out = [f"##### {stem}: {len(rows)} launches, {len(g)} kernels, total {total/1e3:.1f} us"]
    order = sorted(g.items(), key=lambda kv: -sum(m["dur_ns"] for m in kv[1]))
    for name, ms in order:
        t = sum(m["dur_ns"] for m in ms)
        sh = 100 * t / total
        out.append("")
        out.append(f"=== [{sh:.2f}%] {t/1e3:.2f} us x{len(ms)} :: {name[:300]}")
        for m in ms:
            d = m["dur_ns"] * 1e-9
            out.append(
                f"  id{m['id']} dur {m['dur_ns']/1e3:.2f}us clk {m['clk']/1e6:.0f}MHz grid {m['grid']:.0f} blk {m['block']:.0f} "
                f"regs {m['regs']:.0f} smem {m['smem']:.0f} waves {m['waves']:.2f} occ theo {m['occ_theo']:.1f} ach {m['occ_ach']:.1f} "
                f"lim(r/s/w/b) {m['lim_registers']:.0f}/{m['lim_shared_mem']:.0f}/{m['lim_warps']:.0f}/{m['lim_blocks']:.0f} smact {m['sm_active_frac']:.2f}")
            out.append(
                f"    FLOP fp32 {m['fp32']:.3e} fp16 {m['fp16']:.3e} fp64 {m['fp64']:.3e} tensor {m['tensor']:.3e} "
                f"(bf16 {m['t_bf16_dst_fp32']:.2e} fp16 {m['t_fp16']:.2e} tf32 {m['t_tf32_dst_fp32']:.2e}) "
                f"tensor%dense {m.get('tensor_pct_dense',0):.1f} fp32%peak {m.get('fp32_pct',0):.2f}")
            out.append(
                f"    DRAM {m['dram']/1e6:.2f}MB (r {m['dram_rd']/1e6:.2f} w {m['dram_wr']/1e6:.2f}) {m.get('dram_bw',0)/1e9:.0f}GB/s "
                f"= {100*m.get('dram_bw',0)/DRAM_MEAS:.1f}% of 4530 | L2 t {m['l2_t']/1e6:.2f}MB x {m['l2_x']/1e6:.2f}MB "
                f"{m.get('l2_bw',0)/1e9:.0f}GB/s hit {m['l2_hit']:.1f}% | L1 t {m['l1_t']/1e6:.2f}MB wb {m['l1_wb']/1e6:.2f}MB hit {m['l1_hit']:.1f}% "
                f"| AI_dram {m['flops']/max(m['dram'],1):.2f} AI_l2 {m['flops']/max(m['l2_t'],1):.2f}")
            out.append(
                f"    SOL% dram {s(m['pct_dram'])} l2 {s(m['pct_l2'])} l1 {s(m['pct_l1'])} sm {s(m['pct_sm'])} mem {s(m['pct_mem'])} "
                f"issue {s(m['pct_issue'])} ipc/smsp-act {m['issue_per_active']:.2f} | pipes tensor {s(m['pct_tensor_pipe'])} "
                f"fma {s(m['pct_fma_pipe'])} fmaH {s(m['pct_fmaheavy'])} alu {s(m['pct_alu_pipe'])} fp64 {s(m['pct_fp64_pipe'])} shared {s(m['pct_shared_pipe'])} "
                f"lsu {s(m['pi_lsu'])} xu {s(m['pi_xu'])} gmma {s(m['pi_tensor_op_gmma'])} hmma {s(m['pi_tensor_op_hmma'])} uni {s(m['pi_uniform'])} lsu_wf {s(m['pct_lsu_wf'])}")
            top = sorted(m["stalls"].items(), key=lambda kv: -kv[1])[:5]
            out.append(
                f"    warps act/smsp {m['warps_active_smsp']:.2f} elig {m['warps_elig']:.2f} | stalls/issue "
                + " ".join(f"{k}={v:.2f}" for k, v in top)
                + f" | ld B/sector {m['ld_bps']:.1f} st {m['st_bps']:.1f} bank ld/st {m['bank_ld']:.0f}/{m['bank_st']:.0f} "
                f"shared_wf {m['shared_wf']:.0f} red_sect {m['red_sect']:.0f} atom_sect {m['atom_sect']:.0f} red_req {m['red_req']:.0f} "
                f"l2atomic% {m['l2_atomic_pct']:.1f} spill {m['local_spill']:.0f} inst {m['inst']:.3e}")
    return "\n".join(out)


if __name__ == "__main__":
    stems = sys.argv[1:] or STEMS
    for st in stems:
        txt = summarize(st)
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), f"summary_{st}.txt"), "w") as f:
            f.write(txt + "\n")
        print(txt)
