//! The reader, the summary, selection and the Chrome trace on synthetic
//! record files written the way the injection library writes them:
//! several processes, several streams, CUDA graphs, nested and
//! cross-thread NVTX ranges, and files cut short by a crash.

use roofline_documents::Producer;
use roofline_records::{ClockPair, MarkerFlag, Record};
use roofline_timeline::summarize;
use roofline_timeline::ActivityKind;
use roofline_timeline::{group_by_nvtx, select_instance, windows, Pattern};
use roofline_timeline::{
    read_sources, read_timeline, read_timeline_digest, read_timeline_digest_from, RunInfo, TimelineDocument, UnixSpan,
};
use roofline_timeline::{to_trace_string, Annotations};

/// Lines of one process's record file.
struct File {
    lines: Vec<Record>,
    pid: u32,
}

const CUPTI_BASE: u64 = 1_000_000_000;
const UNIX_BASE: u64 = 1_700_000_000_000_000_000;

impl File {
    fn new(pid: u32) -> File {
        let h = Record::header(
            pid,
            1,
            "/usr/bin/python3".into(),
            vec!["python3".into(), "train.py".into()],
            ClockPair { cupti_ns: CUPTI_BASE, unix_ns: UNIX_BASE },
        );
        File { lines: vec![h], pid }
    }
    fn name(&mut self, id: u32, s: &str) -> &mut Self {
        self.lines.push(Record::Name { id, s: s.into() });
        self
    }
    #[allow(clippy::too_many_arguments)]
    fn kernel(
        &mut self,
        name: u32,
        start: u64,
        end: u64,
        stream: u32,
        corr: u32,
        graph: Option<(u32, u64)>,
    ) -> &mut Self {
        self.lines.push(Record::Kernel {
            name,
            start: CUPTI_BASE + start,
            end: CUPTI_BASE + end,
            dev: 0,
            ctx: 1,
            stream,
            corr,
            grid: [128, 1, 1],
            block: [256, 1, 1],
            regs: 32,
            smem_static: 0,
            smem_dynamic: 1024,
            graph: graph.map(|g| g.0),
            node: graph.map(|g| g.1),
        });
        self
    }
    fn api(&mut self, corr: u32, tid: u32, at: u64) -> &mut Self {
        self.lines.push(Record::Api { name: 99, start: CUPTI_BASE + at, end: CUPTI_BASE + at + 2, tid, corr });
        self
    }
    fn range(&mut self, id: u32, name: u32, tid: u32, start: u64, end: Option<u64>) -> &mut Self {
        let pid = self.pid;
        self.lines.push(Record::Marker {
            id,
            flag: MarkerFlag::Start,
            ts: CUPTI_BASE + start,
            pid,
            tid,
            name: Some(name),
            domain: None,
        });
        if let Some(e) = end {
            self.lines.push(Record::Marker {
                id,
                flag: MarkerFlag::End,
                ts: CUPTI_BASE + e,
                pid,
                tid,
                name: None,
                domain: None,
            });
        }
        self
    }
    fn end(&mut self) -> &mut Self {
        let n = self.lines.len() as u64;
        self.lines.push(Record::End { reason: "exit".into(), records: n });
        self
    }
    fn text(&self) -> String {
        self.lines.iter().map(Record::to_line).collect()
    }
}

fn read(files: Vec<(&str, String)>, program: Option<UnixSpan>) -> roofline_timeline::Timeline {
    read_sources(
        files.into_iter().map(|(n, t)| (n.to_string(), std::io::Cursor::new(t.into_bytes()))).collect(),
        program,
    )
}

/// A training-like process: main thread 100 pushes `step 0` and `step 1`,
/// with `forward` nested inside; backward kernels are launched from
/// autograd thread 200 with a `backward` range of its own in step 0 only;
/// the optimizer runs as a CUDA graph on stream 14.
fn training_process(pid: u32) -> File {
    let mut f = File::new(pid);
    f.name(1, "_Z6vecaddPKfS0_Pfi")
        .name(2, "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, T2)")
        .name(3, "ampere_sgemm_128x64_nn")
        .name(10, "step 0")
        .name(11, "forward")
        .name(12, "step 1")
        .name(13, "backward")
        .name(99, "cudaLaunchKernel_v7000");
    // step 0: [0, 10_000] on thread 100; forward [100, 3_000].
    f.range(1, 10, 100, 0, Some(10_000)).range(2, 11, 100, 100, Some(3_000));
    f.api(1, 100, 200).kernel(1, 1_000, 2_000, 7, 1, None); // forward, stream 7
    f.api(2, 100, 300).kernel(3, 1_500, 4_000, 13, 2, None); // forward, stream 13 overlaps
    f.range(3, 13, 200, 4_000, Some(8_000));
    f.api(3, 200, 4_100).kernel(1, 5_000, 6_000, 7, 3, None); // backward on thread 200
    f.api(4, 100, 9_000).kernel(2, 9_500, 9_600, 14, 4, Some((5, 1))); // graph node 1
    f.kernel(2, 9_600, 9_700, 14, 4, Some((5, 2))); // graph node 2, same launch
                                                    // step 1: [10_000, 20_000]; backward from thread 200 without a range.
    f.range(4, 12, 100, 10_000, Some(20_000));
    f.api(5, 100, 10_100).kernel(1, 11_000, 12_000, 7, 5, None);
    f.api(6, 200, 12_500).kernel(3, 13_000, 15_000, 7, 6, None);
    f.lines.push(Record::Memcpy {
        copy: "HtoD".into(),
        bytes: 4096,
        start: CUPTI_BASE + 500,
        end: CUPTI_BASE + 900,
        dev: 0,
        ctx: 1,
        stream: 7,
        corr: 7,
        src_dev: None,
        dst_dev: None,
        graph: None,
        node: None,
    });
    f
}

#[test]
fn several_processes_streams_graphs_and_cut_short_files_are_read() {
    let mut a = training_process(4242);
    a.end();
    let mut b = File::new(4343);
    b.name(1, "_Z6vecaddPKfS0_Pfi").kernel(1, 100, 300, 7, 1, None).kernel(1, 400, 700, 7, 2, None);
    // b was killed mid-write: its last line stops halfway.
    let mut b_text = b.text();
    let half = Record::Kernel {
        name: 1,
        start: CUPTI_BASE + 800,
        end: CUPTI_BASE + 900,
        dev: 0,
        ctx: 1,
        stream: 7,
        corr: 3,
        grid: [1, 1, 1],
        block: [1, 1, 1],
        regs: 0,
        smem_static: 0,
        smem_dynamic: 0,
        graph: None,
        node: None,
    }
    .to_line();
    b_text.push_str(&half[..half.len() / 2]);
    let tl = read(vec![("4242.jsonl", a.text()), ("4343.jsonl", b_text)], None);

    assert_eq!(tl.processes.len(), 2);
    let pa = tl.processes.iter().find(|p| p.pid == 4242).unwrap();
    let pb = tl.processes.iter().find(|p| p.pid == 4343).unwrap();
    assert!(pa.complete && !pa.cut_short);
    assert!(!pb.complete && pb.cut_short, "the half line is dropped and noted");
    assert_eq!(pb.kernels, 2);
    assert_eq!(tl.kernel_count(), 7 + 2);
    assert!(tl.activities.windows(2).all(|w| w[0].start_ns <= w[1].start_ns), "sorted by start");

    // Names are demangled once and shared across processes.
    let vecadd = tl.names.iter().position(|n| n.name == "vecadd(float const*, float const*, float*, int)").unwrap();
    assert_eq!(tl.names[vecadd].mangled.as_deref(), Some("_Z6vecaddPKfS0_Pfi"));
    assert_eq!(tl.names[vecadd].display_name, "vecadd");
    assert_eq!(tl.activities.iter().filter(|a| a.name == vecadd as u32).count(), 3 + 2);

    // Graph kernels keep their graph and node, and share the launch call.
    let graph: Vec<_> = tl.activities.iter().filter(|a| a.graph == Some(5)).collect();
    assert_eq!(graph.len(), 2);
    assert_eq!(graph.iter().map(|a| a.graph_node.unwrap()).collect::<Vec<_>>(), [1, 2]);
    assert!(graph.iter().all(|a| a.launch.map(|l| l.tid) == Some(100)));

    // Several streams.
    let streams: std::collections::BTreeSet<u32> =
        tl.activities.iter().filter(|a| a.pid == 4242).map(|a| a.stream).collect();
    assert_eq!(streams.into_iter().collect::<Vec<_>>(), [7, 13, 14]);

    // The memcpy has the nsys-style name and its bytes.
    let copy = tl.activities.iter().find(|a| a.kind == ActivityKind::Memcpy).unwrap();
    assert_eq!(tl.name(copy).name, "[CUDA memcpy Host-to-Device]");
    assert_eq!(copy.bytes, Some(4096));
}

#[test]
fn nested_and_cross_thread_nvtx_ranges() {
    let mut a = training_process(4242);
    a.end();
    let tl = read(vec![("4242.jsonl", a.text())], None);
    assert_eq!(tl.ranges.len(), 4);
    let by_corr = |c: u32| tl.activities.iter().find(|a| a.correlation == c && a.kind == ActivityKind::Kernel).unwrap();
    let path = |c: u32| tl.enclosing_ranges(by_corr(c)).iter().map(|r| r.name.clone()).collect::<Vec<_>>();
    assert_eq!(path(1), ["forward", "step 0"], "innermost first");
    assert_eq!(path(2), ["forward", "step 0"]);
    assert_eq!(path(3), ["backward"], "thread 200's own range; step 0 is on thread 100");
    assert_eq!(path(4), ["step 0"]);
    assert!(path(6).is_empty(), "thread 200 has no range in step 1");
    let forward = tl.ranges.iter().find(|r| r.name == "forward").unwrap();
    assert_eq!(forward.depth, 1);

    // Selecting a step by its window catches the other thread's launches.
    let steps = windows(&tl, &Pattern::new("step *"));
    assert_eq!(steps.iter().map(|w| w.name.as_str()).collect::<Vec<_>>(), ["step 0", "step 1"]);
    let corr = |w: &roofline_timeline::RangeWindow| {
        let mut c: Vec<u32> = w
            .activities
            .iter()
            .map(|&i| &tl.activities[i as usize])
            .filter(|a| a.kind == ActivityKind::Kernel)
            .map(|a| a.correlation)
            .collect();
        c.sort();
        c.dedup();
        c
    };
    assert_eq!(corr(&steps[0]), [1, 2, 3, 4]);
    assert_eq!(corr(&steps[1]), [5, 6], "kernel 6 was launched from thread 200, outside any range of its own");
    assert_eq!(steps[1].kernel_ns, 1_000 + 2_000);
    let step1 = select_instance(&tl, &Pattern::new("step *"), 1).unwrap();
    assert_eq!(step1.len(), 2);

    // Grouping: thread ranges first, then the window on another thread.
    let groups = group_by_nvtx(&tl, &tl.activities);
    let g = |k: &str| groups.iter().find(|g| g.key == k).unwrap_or_else(|| panic!("no group {k}: {groups:?}"));
    assert_eq!(g("forward").kernels, 2);
    assert_eq!(g("backward").kernels, 1);
    assert_eq!(g("step 1").kernels, 2);
    assert_eq!(g("step 1").by_window, 1, "kernel 6 placed through the main thread's step range");
    assert_eq!(g("step 0").kernels, 2, "the two graph kernels");
}

#[test]
fn unfinished_ranges_and_garbage_lines_are_reported_not_fatal() {
    let mut f = File::new(7);
    f.name(1, "k").name(2, "step 0").range(1, 2, 7, 0, None);
    f.api(1, 7, 10).kernel(1, 20, 30, 7, 1, None);
    let mut text = f.text();
    text.push_str("this is not json\n");
    text.push_str("{\"t\":\"from_the_future\",\"x\":1}\n");
    text.push_str(
        &Record::Kernel {
            name: 1,
            start: CUPTI_BASE + 40,
            end: CUPTI_BASE + 45,
            dev: 0,
            ctx: 1,
            stream: 7,
            corr: 2,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            regs: 0,
            smem_static: 0,
            smem_dynamic: 0,
            graph: None,
            node: None,
        }
        .to_line(),
    );
    // An activity CUPTI could not time (0 and 0) is left out, with a note.
    text.push_str(
        &Record::Memset {
            bytes: 8,
            value: 0,
            start: 0,
            end: 0,
            dev: 0,
            ctx: 1,
            stream: 7,
            corr: 9,
            graph: None,
            node: None,
        }
        .to_line(),
    );
    let not_records = "{\"cheese\":1}\nxx\n".to_string();
    let tl = read(vec![("7.jsonl", text), ("junk.jsonl", not_records)], None);
    assert_eq!(tl.processes.len(), 1, "junk.jsonl has no header and is left out");
    assert!(tl.warnings.iter().any(|w| w.contains("junk.jsonl") && w.contains("header")), "{:?}", tl.warnings);
    assert!(tl.warnings.iter().any(|w| w.contains("7.jsonl: line") && w.contains("not a record")), "{:?}", tl.warnings);
    assert!(tl.processes[0].notes.iter().any(|n| n.contains("kinds this version does not know")));
    assert!(tl.processes[0].notes.iter().any(|n| n.contains("without timestamps")), "{:?}", tl.processes[0].notes);
    assert!(tl.activities.iter().all(|a| a.start_ns > 0), "the untimed memset is left out");
    assert_eq!(tl.kernel_count(), 2, "lines after the bad ones are still read");
    assert_eq!(tl.ranges.len(), 1);
    assert_eq!(tl.ranges[0].end_ns, None);
    let w = windows(&tl, &Pattern::new("step 0"));
    assert_eq!(w[0].activities.len(), 2, "an unfinished range runs to the end of the recording");
}

#[test]
fn program_window_sets_wall_time_from_the_header_clock() {
    let mut f = File::new(9);
    f.name(1, "k").kernel(1, 1_000, 2_000, 7, 1, None).end();
    // The tool saw the program run from 500 ns before the CUPTI base to 5 us after it.
    let program = UnixSpan { start_ns: UNIX_BASE - 500, end_ns: UNIX_BASE + 5_000 };
    let tl = read(vec![("9.jsonl", f.text())], Some(program));
    let p = tl.program.unwrap();
    assert_eq!((p.start_ns, p.end_ns), (CUPTI_BASE - 500, CUPTI_BASE + 5_000));
    let doc = TimelineDocument::new(
        Producer::new("test"),
        RunInfo {
            command: vec!["x".into()],
            wall_s: Some(5.5e-6),
            exit_code: Some(0),
            signal: None,
            ended_by: "exit".into(),
        },
        tl,
        5,
    );
    let b = &doc.summary.busy[0];
    assert_eq!(b.wall_basis, "program");
    assert_eq!(b.wall_ns, 5_500);
    assert_eq!(b.busy_ns, 1_000);
    assert_eq!(b.gap_count, 2);
}

#[test]
fn a_program_window_on_another_clock_is_dropped_with_a_warning() {
    let mut f = File::new(9);
    f.name(1, "k").kernel(1, 1_000, 2_000, 7, 1, None).end();
    // The tool's window is an hour away from the activities on CUPTI's clock.
    let program = UnixSpan { start_ns: UNIX_BASE + 3_600_000_000_000, end_ns: UNIX_BASE + 3_601_000_000_000 };
    let tl = read(vec![("9.jsonl", f.text())], Some(program));
    assert_eq!(tl.program, None);
    assert!(tl.warnings.iter().any(|w| w.contains("could not be placed on CUPTI's clock")), "{:?}", tl.warnings);
}

#[test]
fn document_round_trips_and_refuses_other_schemas() {
    let mut a = training_process(4242);
    a.end();
    let tl = read(vec![("4242.jsonl", a.text())], None);
    let doc = TimelineDocument::new(
        Producer::new("roofline timeline -- python3 train.py"),
        RunInfo {
            command: vec!["python3".into()],
            wall_s: Some(1.0),
            exit_code: Some(0),
            signal: None,
            ended_by: "exit".into(),
        },
        tl,
        10,
    );
    assert_eq!(doc.summary.kernel_launches, 7);
    assert_eq!(doc.summary.memory_operations, 1);
    assert_eq!(doc.summary.kernels[0].name, "ampere_sgemm_128x64_nn", "largest total first");
    assert!(!doc.summary.nvtx.is_empty());
    let text = serde_json::to_string_pretty(&doc).unwrap();
    let back = read_timeline(&text, "t.json").unwrap();
    assert_eq!(back, doc);
    let e = read_timeline(r#"{"schema":"roofline.analysis/v1"}"#, "a.json").unwrap_err().to_string();
    assert!(e.contains("a.json") && e.contains("roofline.timeline/v1"), "{e}");
    let e = read_timeline(r#"{"schema":"roofline.timeline/v9"}"#, "new.json").unwrap_err().to_string();
    assert!(e.contains("record the run again"), "{e}");
}

/// Issue 16 (M1): `merge` of two timelines of 10^6 launches held both
/// documents whole (a JSON tree, then every activity) and peaked at
/// 6.7 GB. What it reads now is the digest, which never builds the
/// per-launch arrays: here they are not even activities, and the digest
/// is still read, from text and from a stream alike.
#[test]
fn the_digest_of_a_timeline_skips_its_per_launch_arrays() {
    let mut a = training_process(4242);
    a.end();
    let tl = read(vec![("4242.jsonl", a.text())], None);
    let run = RunInfo {
        command: vec!["python3".into()],
        wall_s: None,
        exit_code: Some(0),
        signal: None,
        ended_by: "exit".into(),
    };
    let doc = TimelineDocument::new(Producer::new("roofline timeline -- python3 train.py"), run, tl, 10);
    let mut v = serde_json::to_value(&doc).unwrap();
    for key in ["activities", "ranges", "names", "processes"] {
        v["timeline"][key] = serde_json::json!([{"not": "an entry"}, 7, null]);
    }
    let text = serde_json::to_string_pretty(&v).unwrap();
    assert!(read_timeline(&text, "t.json").is_err(), "the full reader builds the arrays");
    let digest = read_timeline_digest(&text, "t.json").unwrap();
    assert_eq!(digest.kernels, doc.summary.kernels);
    assert_eq!((digest.run, digest.producer), (doc.run.clone(), doc.producer.clone()));
    assert_eq!(read_timeline_digest_from(text.as_bytes(), "t.json").unwrap().kernels, doc.summary.kernels);
    // Other schemas are refused by name either way.
    for reader in [read_timeline_digest, |t: &str, i: &str| read_timeline_digest_from(t.as_bytes(), i)] {
        let other = text.replacen("roofline.timeline/v1", "roofline.timeline/v9", 1);
        let e = reader(&other, "new.json").unwrap_err().to_string();
        assert!(e.contains("new.json") && e.contains("record the run again"), "{e}");
        let e = reader(&text[..text.len() / 2], "cut.json").unwrap_err().to_string();
        assert!(e.contains("cut.json") && e.contains("not valid JSON"), "{e}");
        // Valid JSON with a field of the wrong type is a bad field, not bad JSON.
        let wrong = text.replacen("\"total_ns\": ", "\"total_ns\": \"many\", \"x\": ", 1);
        let e = reader(&wrong, "typed.json").unwrap_err().to_string();
        assert!(e.contains("typed.json") && e.contains("bad field") && !e.contains("not valid JSON"), "{e}");
    }
}

#[test]
fn summary_of_a_selection_only_counts_the_selection() {
    let mut a = training_process(4242);
    a.end();
    let tl = read(vec![("4242.jsonl", a.text())], None);
    let step1 = select_instance(&tl, &Pattern::new("step 1"), 0).unwrap();
    let rows = summarize(&tl, ActivityKind::Kernel, step1);
    let total: u64 = rows.iter().map(|r| r.total_ns).sum();
    assert_eq!(total, 3_000);
    assert!((rows.iter().map(|r| r.time_share).sum::<f64>() - 1.0).abs() < 1e-12);
}

/// Chrome's trace-event format: every event has `ph`, `pid`, `tid`, `name`;
/// complete events have `ts` and a non-negative `dur`; metadata names every
/// process and thread that events use.
#[test]
fn chrome_trace_parses_back_with_the_required_fields() {
    let mut a = training_process(4242);
    a.end();
    let mut b = File::new(4343);
    b.name(1, "k").kernel(1, 100, 300, 7, 1, None).end();
    let tl = read(vec![("4242.jsonl", a.text()), ("4343.jsonl", b.text())], None);
    let mut ann = Annotations::new();
    let sgemm = tl.names.iter().position(|n| n.name == "ampere_sgemm_128x64_nn").unwrap() as u32;
    let mut extra = serde_json::Map::new();
    extra.insert("verdict".into(), "memory-bound".into());
    extra.insert("pct_of_roof".into(), 71.5.into());
    ann.insert(sgemm, extra);
    let text = to_trace_string(&tl, &ann);
    let v: serde_json::Value = serde_json::from_str(&text).expect("the trace is JSON");
    let events = v["traceEvents"].as_array().expect("traceEvents");
    let mut named_processes = std::collections::HashSet::new();
    let mut named_threads = std::collections::HashSet::new();
    let mut complete = 0;
    for e in events {
        for k in ["ph", "pid", "tid", "name"] {
            assert!(e.get(k).is_some(), "missing {k}: {e}");
        }
        match e["ph"].as_str().unwrap() {
            "M" => {
                let key = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
                match e["name"].as_str().unwrap() {
                    "process_name" => {
                        named_processes.insert(key.0);
                    }
                    "thread_name" => {
                        named_threads.insert(key);
                    }
                    _ => {}
                }
                assert!(e["args"].is_object());
            }
            "X" => {
                complete += 1;
                assert!(e["ts"].as_f64().unwrap() >= 0.0, "{e}");
                assert!(e["dur"].as_f64().unwrap() >= 0.0, "{e}");
                let key = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
                assert!(named_processes.contains(&key.0) && named_threads.contains(&key), "unnamed track {key:?}");
            }
            other => panic!("unexpected phase {other}"),
        }
    }
    assert_eq!(complete, 9 + 4, "every activity (8 + 1) and every range (4)");
    assert_eq!(named_processes.len(), 3, "GPU 0 of each process, and NVTX of 4242");
    let sg = events.iter().find(|e| e["args"]["name"] == "ampere_sgemm_128x64_nn").unwrap();
    assert_eq!(sg["args"]["verdict"], "memory-bound");
    assert_eq!(sg["args"]["grid"], serde_json::json!([128, 1, 1]));
    assert_eq!(sg["args"]["correlation"], 2);
    assert_eq!(sg["args"]["nvtx"], "step 0 > forward");
    assert_eq!(sg["cat"], "kernel");
    // 1.5 us after the origin (the first event, the step 0 range at 0), 2.5 us long.
    assert_eq!(sg["ts"].as_f64().unwrap(), 1.5);
    assert_eq!(sg["dur"].as_f64().unwrap(), 2.5);
    assert_eq!(v["displayTimeUnit"], "ns");
}

/// The timeline document of two training processes keeps its bytes across
/// refactors (issue 24: byte-identical JSON before and after the
/// ground-floor split). `tests/fixtures/two_processes.timeline.json` was
/// written by the code before the split; set `ROOFLINE_BLESS=1` to write it
/// again after a change that means to alter the document.
#[test]
fn the_timeline_document_keeps_its_bytes() {
    let mut a = training_process(4242);
    a.end();
    let mut b = training_process(4343);
    b.end();
    let tl = read(vec![("4242.jsonl", a.text()), ("4343.jsonl", b.text())], None);
    let doc = TimelineDocument::new(
        Producer::new("roofline timeline -- python3 train.py"),
        RunInfo {
            command: vec!["python3".into(), "train.py".into()],
            wall_s: Some(1.5),
            exit_code: Some(0),
            signal: None,
            ended_by: "exit".into(),
        },
        tl,
        10,
    );
    let text = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/two_processes.timeline.json");
    if std::env::var_os("ROOFLINE_BLESS").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, &text).unwrap();
    }
    let want = std::fs::read_to_string(&golden).unwrap();
    assert!(text == want, "the timeline document changed; compare with {}", golden.display());
}
