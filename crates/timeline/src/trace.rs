//! The timeline as a Chrome trace (the trace-event JSON format that
//! Perfetto's UI and chrome://tracing open).
//!
//! One trace process per GPU of each program process (`GPU 0 · python3
//! (pid 4242)`), one track per stream; kernels, copies and memsets are
//! complete events (`ph: "X"`) whose arguments carry the full name, grid,
//! block, correlation id, graph and node, the launching thread and the NVTX
//! path. NVTX ranges get their own trace process per program process, one
//! track per thread. Times are microseconds from the start of the run (the
//! program's start when known), with nanosecond decimals; `otherData` keeps
//! the origin on the CUPTI clock. Events are written one by one, so a large
//! timeline never sits in memory as a JSON tree.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::{ActivityKind, Timeline};

/// Extra arguments per activity name (index into `Timeline::names`), for
/// example a kernel's verdict and % of roof once its point is known.
pub type Annotations = HashMap<u32, Map<String, Value>>;

#[derive(Serialize)]
struct Event<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    cat: &'a str,
    ph: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: u32,
    tid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Value>,
}

fn us(ns: u64, origin: u64) -> f64 {
    (ns as i128 - origin as i128) as f64 / 1000.0
}

/// Writes the trace. `annotations` adds arguments to the events of the
/// named activities.
pub fn write_trace<W: Write>(tl: &Timeline, annotations: &Annotations, mut w: W) -> std::io::Result<()> {
    let origin = tl.program.map(|p| p.start_ns).unwrap_or_else(|| tl.first_ns());
    let open_end = tl.last_ns();
    let exe_of: HashMap<u32, String> = tl
        .processes
        .iter()
        .map(|p| {
            let exe = p.cmdline.first().cloned().unwrap_or_else(|| p.exe.clone());
            let base = exe.rsplit('/').next().unwrap_or("").to_string();
            (p.pid, if base.is_empty() { "process".into() } else { base })
        })
        .collect();
    let gpu_name: HashMap<(u32, u32), &str> = tl.devices.iter().map(|d| ((d.pid, d.id), d.name.as_str())).collect();

    // Trace pids: GPUs first (by process, device), then hosts with NVTX.
    let mut gpu_pids: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    for a in &tl.activities {
        gpu_pids.entry((a.pid, a.device)).or_insert(0);
    }
    let mut next = 1u32;
    for v in gpu_pids.values_mut() {
        *v = next;
        next += 1;
    }
    let mut host_pids: BTreeMap<u32, u32> = BTreeMap::new();
    for r in &tl.ranges {
        host_pids.entry(r.pid).or_insert(0);
    }
    for v in host_pids.values_mut() {
        *v = next;
        next += 1;
    }

    w.write_all(b"{\"traceEvents\":[\n")?;
    let mut first = true;
    let mut emit = |w: &mut W, e: &Event| -> std::io::Result<()> {
        if !first {
            w.write_all(b",\n")?;
        }
        first = false;
        serde_json::to_writer(&mut *w, e).map_err(std::io::Error::other)
    };
    let meta = |name: &'static str, pid: u32, tid: u32, args: Value| Event {
        name,
        cat: "",
        ph: "M",
        ts: None,
        dur: None,
        pid,
        tid,
        args: Some(args),
    };
    for (&(pid, dev), &tpid) in &gpu_pids {
        let exe = exe_of.get(&pid).map(String::as_str).unwrap_or("process");
        let label = match gpu_name.get(&(pid, dev)) {
            Some(n) => format!("GPU {dev} ({n}) · {exe} (pid {pid})"),
            None => format!("GPU {dev} · {exe} (pid {pid})"),
        };
        emit(&mut w, &meta("process_name", tpid, 0, serde_json::json!({ "name": label })))?;
        emit(&mut w, &meta("process_sort_index", tpid, 0, serde_json::json!({ "sort_index": tpid })))?;
    }
    for (&pid, &tpid) in &host_pids {
        let exe = exe_of.get(&pid).map(String::as_str).unwrap_or("process");
        let label = format!("NVTX · {exe} (pid {pid})");
        emit(&mut w, &meta("process_name", tpid, 0, serde_json::json!({ "name": label })))?;
        emit(&mut w, &meta("process_sort_index", tpid, 0, serde_json::json!({ "sort_index": tpid })))?;
    }
    let mut streams: BTreeMap<(u32, u32), ()> = BTreeMap::new();
    for a in &tl.activities {
        streams.insert((gpu_pids[&(a.pid, a.device)], a.stream), ());
    }
    for &(tpid, stream) in streams.keys() {
        emit(&mut w, &meta("thread_name", tpid, stream, serde_json::json!({ "name": format!("stream {stream}") })))?;
    }
    let mut threads: BTreeMap<(u32, u32), ()> = BTreeMap::new();
    for r in &tl.ranges {
        threads.insert((host_pids[&r.pid], r.tid), ());
    }
    for &(tpid, tid) in threads.keys() {
        emit(&mut w, &meta("thread_name", tpid, tid, serde_json::json!({ "name": format!("thread {tid}") })))?;
    }

    for a in &tl.activities {
        let name = &tl.names[a.name as usize];
        let mut args = Map::new();
        args.insert("name".into(), name.name.clone().into());
        if let Some(m) = &name.mangled {
            args.insert("mangled".into(), m.clone().into());
        }
        args.insert("correlation".into(), a.correlation.into());
        args.insert("device".into(), a.device.into());
        args.insert("context".into(), a.context.into());
        args.insert("stream".into(), a.stream.into());
        args.insert("process".into(), a.pid.into());
        args.insert("duration_ns".into(), a.duration_ns().into());
        if let Some(g) = a.grid {
            args.insert("grid".into(), serde_json::json!(g));
        }
        if let Some(b) = a.block {
            args.insert("block".into(), serde_json::json!(b));
        }
        if let Some(r) = a.registers {
            args.insert("registers_per_thread".into(), r.into());
        }
        if let Some(s) = a.shared_static {
            args.insert("shared_static_bytes".into(), s.into());
        }
        if let Some(s) = a.shared_dynamic {
            args.insert("shared_dynamic_bytes".into(), s.into());
        }
        if let Some(b) = a.bytes {
            args.insert("bytes".into(), b.into());
        }
        if let Some(g) = a.graph {
            args.insert("graph".into(), g.into());
        }
        if let Some(n) = a.graph_node {
            args.insert("graph_node".into(), n.into());
        }
        if let Some(l) = a.launch {
            args.insert("launch_thread".into(), l.tid.into());
            args.insert("launch_us".into(), us(l.start_ns, origin).into());
        }
        let path = tl.enclosing_ranges(a);
        if !path.is_empty() {
            let p: Vec<&str> = path.iter().rev().map(|r| r.name.as_str()).collect();
            args.insert("nvtx".into(), p.join(" > ").into());
        }
        if let Some(extra) = annotations.get(&a.name) {
            for (k, v) in extra {
                args.insert(k.clone(), v.clone());
            }
        }
        let cat = match a.kind {
            ActivityKind::Kernel => "kernel",
            ActivityKind::Memcpy => "memcpy",
            ActivityKind::Memset => "memset",
        };
        emit(
            &mut w,
            &Event {
                name: &name.display_name,
                cat,
                ph: "X",
                ts: Some(us(a.start_ns, origin)),
                dur: Some(a.duration_ns() as f64 / 1000.0),
                pid: gpu_pids[&(a.pid, a.device)],
                tid: a.stream,
                args: Some(Value::Object(args)),
            },
        )?;
    }
    for r in &tl.ranges {
        let span = r.span(open_end);
        let mut args = Map::new();
        if let Some(d) = &r.domain {
            args.insert("domain".into(), d.clone().into());
        }
        args.insert("depth".into(), r.depth.into());
        if r.end_ns.is_none() {
            args.insert("unfinished".into(), true.into());
        }
        emit(
            &mut w,
            &Event {
                name: &r.name,
                cat: "nvtx",
                ph: "X",
                ts: Some(us(span.start_ns, origin)),
                dur: Some(span.duration_ns() as f64 / 1000.0),
                pid: host_pids[&r.pid],
                tid: r.tid,
                args: Some(Value::Object(args)),
            },
        )?;
    }
    let other = serde_json::json!({
        "tool": "roofline",
        "version": env!("CARGO_PKG_VERSION"),
        "clock": "CUPTI timestamps; ts in microseconds from origin_ns",
        "origin_ns": origin,
    });
    write!(w, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{other}}}\n")?;
    Ok(())
}

/// The trace as a string.
pub fn to_trace_string(tl: &Timeline, annotations: &Annotations) -> String {
    let mut buf = Vec::new();
    write_trace(tl, annotations, &mut buf).expect("writing to memory does not fail");
    String::from_utf8(buf).expect("serde_json writes UTF-8")
}
