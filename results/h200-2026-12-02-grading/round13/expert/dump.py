"""Human-readable per-kernel dump (for the analyst): python3 dump.py [stem]"""
import sys
import load, metrics

def fmt(a):
    L = []
    L.append("### %s  n=%d  T=%.1f us  share=%.1f%%  clk=%.0f MHz" % (a["name"][:160], a["n"], a["t"] * 1e6, a["share"], a["clk"] / 1e6))
    L.append("  DRAM %.2f MB (rd %.2f wr %.2f) %.2f TB/s = %.0f%% of %.2f (ncu dram%% %.0f) | L2 %.2f MB %.2f TB/s = %.0f%% (lts%% %.0f, hit %.0f%%) | L1 %.2f MB %.2f TB/s = %.0f%% (l1tex%% %.0f)" % (
        a["dram"] / 1e6, a["dram_rd"] / 1e6, a["dram_wr"] / 1e6, a["bw_dram"] / 1e12, a["u_dram"], a["roof_dram"] / 1e12, a["pct_dram"],
        a["l2"] / 1e6, a["bw_l2"] / 1e12, a["u_l2"], a["pct_l2"], a["l2_hit"], a["l1"] / 1e6, a["bw_l1"] / 1e12, a["u_l1"], a["pct_l1"]))
    L.append("  SM->L2 rd %.2f MB wr %.2f MB | effective stream bytes %.2f MB -> %.2f TB/s = %.0f%% of %.2f | inst/warp-launch %.3g" % (a["tex_rd"]/1e6, a["tex_wr"]/1e6, a["eff_bytes"]/1e6, a["eff_bytes"]/a["t"]/1e12, a["u_eff"], a["roof_eff"]/1e12, a["inst"]))
    L.append("  FLOP fp32 %.3g (%.1f%%) fp16 %.3g (%.1f%%) tensor %.3g %s (%.1f%% of %.0f TF) | AI_dram %.2f AI_l2 %.2f | sm%% %.0f mem%% %.0f issue %.0f%% (u_issue %.0f) tensor_pipe %.0f%%" % (
        a["fp32"], a["u_fp32"], a["fp16"], a["u_fp16"], a["tensor"], a["tensor_kind"], a["u_tensor"], a["roof_tensor"] / 1e12,
        a["ai_dram"], a["ai_l2"], a["pct_sm"], a["pct_mem"], a["pct_issue"], a["u_issue"], a["pct_tensor_pipe"]))
    L.append("  pipes%%: " + " ".join("%s %.0f" % (p, a["pipe_" + p]) for p in metrics.PIPES if a["pipe_" + p] >= 1) +
             " | fma_cyc %.0f alu_cyc %.0f shared_pipe %.0f lsu_wf %.0f" % (a["pipe_fma_cyc"], a["pipe_alu_cyc"], a["pct_shared_pipe"], a["pct_lsu_wavefronts"]))
    L.append("  occ theo %.0f ach %.0f smactive %.2f waves %.2f | ld B/sector %.1f st %.1f | stalls: %s" % (
        a["occ_theo"], a["occ_ach"], a["sm_active_frac"], a["waves"], a["ld_bytes_per_sector"], a["st_bytes_per_sector"], metrics.top_stalls(a, 4)))
    for x in a["launches"]:
        L.append("    id %s %s x %s t=%.2fus clk=%.0f regs %d smem %d waves %.2f occ %.0f/%.0f dram %.2fMB l2 %.2fMB l1 %.2fMB dram%% %.0f lts%% %.0f sm%% %.0f issue %.0f fp32 %.3g tensor %.3g" % (
            x["id"], x["block"], x["grid"], x["t"] * 1e6, x["clk"] / 1e6, x["regs"], x["smem"], x["waves"], x["occ_theo"], x["occ_ach"],
            x["dram"] / 1e6, x["l2"] / 1e6, x["l1"] / 1e6, x["pct_dram"], x["pct_l2"], x["pct_sm"], x["pct_issue"], x["fp32"], x["tensor"]))
    return "\n".join(L)

if __name__ == "__main__":
    for s in (sys.argv[1:] or load.stems()):
        gs, tot = metrics.groups(s)
        print("=" * 20, s, "total %.1f us" % (tot * 1e6))
        for a in gs:
            if a["share"] >= 0.5:
                print(fmt(a))
