#!/usr/bin/env python3
"""Pass 3, timeline part: a stand-in program writes hostile roofline.records/v1
files into $ROOFLINE_TIMELINE_DIR (docs/timeline.md documents the format); the
injection library is a harmless .so (libm) so no CUDA is needed.
Usage: pass3_timeline.py BIN OUTDIR"""
import json, os, subprocess, sys, shutil, signal, time
BIN, OUT = sys.argv[1], sys.argv[2]
os.makedirs(OUT, exist_ok=True)
LIBM = "/lib/x86_64-linux-gnu/libm.so.6"
H = '{"t":"header","format":"roofline.records/v1","pid":4242,"clock":{"cupti_ns":5000000000,"unix_ns":1764480000000000000}}'
N = '{"t":"name","id":1,"s":"_Z6vecaddPKfS0_Pfi"}'
def K(**kw):
    d = {"t": "kernel", "name": 1, "start": 5000100000, "end": 5000101000, "dev": 0, "ctx": 1, "stream": 7, "corr": 1,
         "grid": [64, 1, 1], "block": [256, 1, 1]}
    d.update(kw)
    return json.dumps(d)
E = '{"t":"end","reason":"exit","records":3}'
CASES = {
    "minimal": [H, N, K(), E],
    "end before start": [H, N, K(start=5000101000, end=5000100000), E],
    "u64 max times": [H, N, K(start=18446744073709551615, end=18446744073709551615), E],
    "over u64": [H, N, K(start=1, end=18446744073709551616), E],
    "negative times": [H, N, K(start=-5, end=-1), E],
    "float times 1e308": [H, N, K(start=1e308, end=1.5e308), E],
    "zero-length": [H, N, K(start=5, end=5), E],
    "missing name id": [H, K(name=99), E],
    "name id huge": [H, N, K(name=18446744073709551615), E],
    "grid huge": [H, N, K(grid=[4294967295, 4294967295, 65535], block=[1024, 1024, 64]), E],
    "grid wrong shape": [H, N, K(grid=[1], block="x"), E],
    "no header": [N, K(), E],
    "two headers": [H, H, N, K(), E],
    "format v999": [H.replace("v1", "v999"), N, K(), E],
    "clock huge": [H.replace("1764480000000000000", "18446744073709551615"), N, K(), E],
    "clock 0": [H.replace("5000000000", "0").replace("1764480000000000000", "0"), N, K(), E],
    "unbalanced nvtx": [H, N, '{"t":"name","id":2,"s":"step"}', '{"t":"marker","id":1,"flag":"end","ts":5000000001,"pid":4242,"tid":1,"name":2}', K(), E],
    "nvtx 20000 nested": [H, N, '{"t":"name","id":2,"s":"r"}'] + [json.dumps({"t": "marker", "id": i, "flag": "start", "ts": 5000000000 + i, "pid": 4242, "tid": 1, "name": 2}) for i in range(20000)] + [K(), E],
    "deep json line": [H, N, "[" * 100000 + "]" * 100000, K(), E],
    "100k kernels": [H, N] + [K(start=5000000000 + 10 * i, end=5000000000 + 10 * i + 5, corr=i) for i in range(100000)] + [E],
    "hostile name": [H, '{"t":"name","id":1,"s":"\\u001b]0;pwn\\u0007<!--</script>=HYPERLINK(1)\\n|x|"}', K(), E],
    "memcpy huge bytes": [H, json.dumps({"t": "memcpy", "copy": "HtoD", "bytes": 18446744073709551615, "start": 5, "end": 6, "dev": 0, "ctx": 1, "stream": 1, "corr": 1}), E],
    "memcpy unknown kind": [H, json.dumps({"t": "memcpy", "copy": "Zz", "bytes": 1, "start": 5, "end": 6, "dev": 0, "ctx": 1, "stream": 1, "corr": 1}), E],
    "dropped huge": [H, '{"t":"dropped","count":18446744073709551615}', E],
    "binary garbage": None,
    "cut mid-line": [H, N, K()[:30]],
    "device hostile": [H, '{"t":"device","id":0,"name":"\\u001b[2J<!--","cc":"99.9","sms":0}', N, K(), E],
}
results = []
for name, lines in list(CASES.items()) + [("fifo record file", "FIFO"), ("dir record file", "DIR"),
                                          ("symlink to /dev/zero", "ZERO"), ("symlink out of the folder", "SYMOUT")]:
    sb = os.path.join(OUT, "tl-" + "".join(c if c.isalnum() else "_" for c in name))
    shutil.rmtree(sb, ignore_errors=True)
    os.makedirs(sb)
    tmpd = os.path.join(sb, "tmp")
    os.makedirs(tmpd)
    if lines is None:
        open(f"{sb}/rec.src", "wb").write(os.urandom(100000))
    elif isinstance(lines, list):
        open(f"{sb}/rec.src", "w").write("\n".join(lines) + "\n")
    open(f"{sb}/victim.txt", "w").write("precious\n")
    prog = {"FIFO": 'mkfifo "$ROOFLINE_TIMELINE_DIR/$$.jsonl"',
            "DIR": 'mkdir "$ROOFLINE_TIMELINE_DIR/$$.jsonl"',
            "ZERO": 'ln -s /dev/zero "$ROOFLINE_TIMELINE_DIR/$$.jsonl"',
            "SYMOUT": f'ln -s {sb}/victim.txt "$ROOFLINE_TIMELINE_DIR/$$.jsonl"'}.get(lines if isinstance(lines, str) else "", 'cp rec.src "$ROOFLINE_TIMELINE_DIR/$$.jsonl"')
    for extra in ([], ["--format", "trace"], ["-o", "tl.json"], ["-o", "tl.html"], ["--records", "recs"]):
        env = dict(os.environ, TMPDIR=tmpd, NO_COLOR="1")
        t0 = time.time()
        try:
            r = subprocess.run(["nice", "-n", "10", BIN, "timeline", "--inject-lib", LIBM] + extra + ["--", "sh", "-c", prog],
                               cwd=sb, capture_output=True, env=env, timeout=60)
            rc, se, so = r.returncode, r.stderr.decode("utf-8", "replace"), r.stdout
        except subprocess.TimeoutExpired:
            rc, se, so = "HANG", "", b""
        probs = []
        if rc == "HANG":
            probs.append("hang")
        elif rc not in (0, 1, 2):
            probs.append(f"exit {rc}")
        if "panicked" in se:
            probs.append("panic")
        if os.listdir(tmpd):
            probs.append(f"tmp left: {os.listdir(tmpd)}")
        if open(f"{sb}/victim.txt").read() != "precious\n":
            probs.append("victim changed")
        for f in ("tl.json",):
            if os.path.exists(f"{sb}/{f}"):
                try:
                    json.loads(open(f"{sb}/{f}").read(), parse_constant=lambda x: (_ for _ in ()).throw(ValueError(x)))
                except Exception as e:
                    probs.append(f"tl.json not strict JSON: {e}")
                os.remove(f"{sb}/{f}")
        if "--format" in extra and rc == 0:
            try:
                json.loads(so)
            except Exception as e:
                probs.append(f"trace not JSON: {e}")
        shutil.rmtree(f"{sb}/recs", ignore_errors=True)
        results.append(dict(name=name, extra=extra, rc=rc, secs=round(time.time() - t0, 2), problems=probs, stderr=se[-300:]))
        print(f"{name:28s} {' '.join(extra):16s} rc={rc} {results[-1]['secs']}s {probs} {se.strip().splitlines()[-1][:150] if se.strip() else ''}", flush=True)
json.dump(results, open(os.path.join(OUT, "timeline-results.json"), "w"), indent=1)
print(f"{len(results)} runs, {sum(1 for r in results if r['problems'])} flagged")
