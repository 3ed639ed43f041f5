//! Every document in every format from the one path (document -> sections
//! -> writer): snapshots, the same units in every format, escaping of
//! hostile names, and the promises of each view.

use std::collections::BTreeSet;

use roofline_analysis::analyze;
use roofline_analysis::{calculate, limits, max_potential_block_size, sweep, Launch, SweepAxis};
use roofline_documents::{check, Rules};
use roofline_documents::{diff, Pairing};
use roofline_documents::{read_analysis, read_machine, AnalysisDocument, MachineDocument, Producer};
use roofline_model::Kernel;
use roofline_model::Origin;
use roofline_report::{
    csv_tables, render, BenchDocument, CheckDocument, Describe, DiffDocument, Format, KnownGpus, OccupancyDocument,
    RenderOptions, TerminalOptions, TourDocument,
};
use serde::Serialize;

mod samples;

const BUNDLED_MACHINE: &str = include_str!("../../../tests/fixtures/tour/machine.json");

fn bundled_machine() -> MachineDocument {
    read_machine(BUNDLED_MACHINE, "tests/fixtures/tour/machine.json").unwrap()
}

fn opts(wide: bool) -> RenderOptions {
    RenderOptions { terminal: TerminalOptions { wide, ..TerminalOptions::default() }, ..RenderOptions::default() }
}

/// The HTML page from `<main>` to `</main>`, with the SVG charts and the
/// embedded data left out (the charts have their own snapshots).
fn html_body(html: &str) -> String {
    let start = html.find("<main>").unwrap();
    let end = html.find("</main>").unwrap();
    let mut s = html[start..end].to_string();
    while let (Some(a), Some(b)) = (s.find("<svg"), s.find("</svg>")) {
        s.replace_range(a..b + 6, "[svg]");
    }
    s
}

/// Every CSV table of a document, each under its name.
fn all_csv<D: Describe>(doc: &D) -> String {
    csv_tables(doc).unwrap().into_iter().map(|t| format!("## {}\n{}", t.name, t.text)).collect::<Vec<_>>().join("\n")
}

struct Rendered {
    terminal: String,
    wide: String,
    markdown: String,
    csv: String,
    html: String,
    json: String,
}

fn all<D: Describe + Serialize>(doc: &D) -> Rendered {
    let html = render(doc, Format::Html, &opts(false)).unwrap();
    Rendered {
        terminal: render(doc, Format::Table, &opts(false)).unwrap(),
        wide: render(doc, Format::Table, &opts(true)).unwrap(),
        markdown: render(doc, Format::Markdown, &opts(false)).unwrap(),
        csv: all_csv(doc),
        html: html_body(&html),
        json: render(doc, Format::Json, &opts(false)).unwrap(),
    }
}

/// How a document's JSON is checked: snapshotted when this crate defines
/// it, read back when it is one of `roofline-core`'s versioned documents
/// (whose readers check every field).
enum Json {
    Snapshot,
    ReadsBackAs(fn(&str) -> bool),
}

/// Whether `doc`, read from `json`, writes the same JSON again: no field
/// lost or changed on the way (numbers compared as JSON reads them).
fn same_json<T: Serialize>(json: &str, doc: &T) -> bool {
    let a: serde_json::Value = serde_json::from_str(json).unwrap();
    let b: serde_json::Value = serde_json::from_str(&serde_json::to_string(doc).unwrap()).unwrap();
    a == b
}

fn snapshots<D: Describe + Serialize>(name: &str, doc: &D, json: Json) {
    let r = all(doc);
    insta::assert_snapshot!(format!("{name}_terminal"), r.terminal);
    insta::assert_snapshot!(format!("{name}_markdown"), r.markdown);
    insta::assert_snapshot!(format!("{name}_csv"), r.csv);
    insta::assert_snapshot!(format!("{name}_html"), r.html);
    match json {
        Json::Snapshot => insta::assert_snapshot!(format!("{name}_json"), r.json),
        Json::ReadsBackAs(same) => assert!(same(&r.json), "{name}: the JSON does not read back as the document"),
    }
}

fn seed_000_diff() -> (AnalysisDocument, AnalysisDocument, roofline_documents::Diff) {
    let (b, a) = (samples::seed_000_before(), samples::seed_000_after());
    let d = diff(&b, &a, &[Pairing::parse("scale+add=fused").unwrap()]).unwrap();
    (b, a, d)
}

fn check_report() -> roofline_documents::CheckReport {
    let rules = Rules::from_toml("min_pct_of_roof = 60\nmin_time_share_pct = 5\n", "test").unwrap();
    check(&samples::hierarchical_h200(), &rules, None)
}

fn occupancy() -> OccupancyDocument {
    let l = limits(9, 0).unwrap();
    let x = Launch::new(256, 40);
    let o = calculate(&l, &x).unwrap();
    OccupancyDocument::new(
        Some("h200".into()),
        o,
        max_potential_block_size(&l, &x),
        vec![sweep(&l, &x, SweepAxis::BlockSize)],
    )
}

fn tour() -> TourDocument {
    samples::tour(samples::tour_kernels(), &[1, 16, 256], "No GPU here (a test): showing sample data.")
}

#[test]
fn snapshot_machine_bundled_h200() {
    snapshots(
        "machine_h200",
        &bundled_machine(),
        Json::ReadsBackAs(|j| read_machine(j, "json").unwrap() == bundled_machine()),
    );
}

#[test]
fn snapshot_analyses() {
    for (name, doc) in [
        ("analysis_hierarchical_h200", samples::hierarchical_h200()),
        ("analysis_seed_000_before", samples::seed_000_before()),
    ] {
        snapshots(name, &doc, Json::ReadsBackAs(|j| same_json(j, &read_analysis(j, "json").unwrap())));
    }
}

#[test]
fn snapshot_instruction_view_pytorch_full_a() {
    use roofline_report::{AnalysisView, InstructionView};
    let doc = samples::pytorch_instructions();
    let view = InstructionView::new(&doc, AnalysisView::Instructions, "pytorch_full_a.csv").unwrap();
    snapshots(
        "instructions_pytorch_full_a",
        &view,
        Json::ReadsBackAs(|j| same_json(j, &samples::pytorch_instructions())),
    );
    let chart = render(&view, Format::Chart, &opts(false)).unwrap();
    insta::assert_snapshot!("instructions_pytorch_full_a_chart", chart);
    // `auto` adds the instruction roofline of the kernels FLOPs do not explain, after the FLOP one.
    let auto = InstructionView::new(&doc, AnalysisView::Auto, "pytorch_full_a.csv").unwrap();
    let wanted: Vec<usize> = (0..doc.kernels.len())
        .filter(|&i| doc.kernels[i].instructions.as_ref().is_some_and(|ia| ia.show_by_default))
        .collect();
    assert_eq!(auto.kernels, wanted);
    assert!(!wanted.is_empty(), "the fixture has a kernel FLOPs do not explain");
    let md = render(&auto, Format::Markdown, &opts(false)).unwrap();
    let (flop, inst) = (md.find("Roofline").unwrap(), md.find("Instruction roofline of the 1 kernel").unwrap());
    assert!(flop < inst, "the FLOP view comes first");
}

#[test]
fn instruction_view_is_refused_without_instruction_counters() {
    use roofline_report::{AnalysisView, InstructionView};
    let mut doc = samples::pytorch_instructions();
    for a in &mut doc.kernels {
        a.instructions = None;
    }
    let e = InstructionView::new(&doc, AnalysisView::Instructions, "a.json").unwrap_err().to_string();
    assert!(e.contains("a.json") && e.contains("smsp__inst_executed.sum") && e.contains("roofline profile"), "{e}");
    // `auto` falls back to the FLOP view.
    assert!(InstructionView::new(&doc, AnalysisView::Auto, "a.json").unwrap().kernels.is_empty());
}

#[test]
fn snapshot_diff_seed_000_fusion() {
    let (b, a, d) = seed_000_diff();
    snapshots("diff_seed_000", &DiffDocument { before: &b, after: &a, diff: &d }, Json::Snapshot);
}

#[test]
fn snapshot_check() {
    snapshots("check_hierarchical", &CheckDocument::new(&check_report()), Json::Snapshot);
}

#[test]
fn snapshot_occupancy_seed_002() {
    snapshots("occupancy_seed_002", &occupancy(), Json::Snapshot);
}

#[test]
fn snapshot_bench_results() {
    let m = bundled_machine();
    // JSON is the machine document, raw runs included.
    let same = |j: &str| same_json(j, &read_machine(j, "json").unwrap()) && j.contains("\"measurements\"");
    snapshots(
        "bench_results",
        &BenchDocument { machine: &m, results: &samples::bench_results() },
        Json::ReadsBackAs(same),
    );
}

#[test]
fn snapshot_tour() {
    snapshots("tour_samples", &tour(), Json::Snapshot);
}

/// Two synthetic ranks merged: GEMMs, memory-bound kernels and NCCL
/// collectives with NVLink bytes, the last rank slower in its GEMMs.
fn merged_job() -> roofline_documents::MergedDocument {
    let mut m = roofline_documents::Merger::new(None);
    for r in 0..2 {
        let doc = roofline_documents::synthetic::rank(r, 2, 64, 8, false);
        m.add(doc, &format!("job.rank{r}.json"), r).unwrap();
    }
    m.finish(Producer::new("samples")).unwrap()
}

/// A machine with interconnect roofs: the synthetic pair's theoretical
/// links and a measured all-reduce bus bandwidth beside them.
fn machine_with_links() -> MachineDocument {
    use roofline_model::CollectiveOp;
    use roofline_model::Spread;
    use roofline_model::{Ceiling, ClockBasis, Provenance, Resource};
    use roofline_model::{Engine, Link};
    let mut m = roofline_documents::synthetic::machine(2);
    let measured = |link: Link, rate: f64, name: &str| {
        Ceiling::new(Resource::Link(link), name, rate, Provenance::new(Origin::Measured, "sample"))
            .with_spread(Spread::from_samples(&[rate * 0.99, rate, rate * 1.01]).ok())
            .with_clock(ClockBasis::sm(1980.0, "sample"))
    };
    m.ceilings.push(measured(
        Link::Peer { from: 0, to: 1, engine: Engine::CopyEngine, both_ways: false },
        372e9,
        "GPU 0 -> GPU 1 copy engine, write (measured)",
    ));
    m.ceilings.push(measured(
        Link::Collective { op: CollectiveOp::AllReduce, gpus: 2 },
        361e9,
        "all-reduce bus over 2 GPUs (measured)",
    ));
    MachineDocument::new(m, Producer::new("samples"))
}

#[test]
fn snapshot_merged_job() {
    let job = merged_job();
    let same = |j: &str| {
        let back = roofline_documents::read_merged(j, "json").unwrap();
        back.ranks.len() == 2 && back.kernels.len() == merged_job().kernels.len()
    };
    snapshots("merged_job", &job, Json::ReadsBackAs(same));
    assert_same_units("merged", &job);
}

#[test]
fn snapshot_machine_with_links() {
    let m = machine_with_links();
    snapshots("machine_links", &m, Json::ReadsBackAs(|j| same_json(j, &read_machine(j, "json").unwrap())));
    assert_same_units("machine with links", &m);
    let text = render(&m, Format::Table, &opts(true)).unwrap();
    // The measured copy beside its wire: 372 of 450 GB/s.
    assert!(text.contains("83%"), "{text}");
}

#[test]
fn snapshot_known_gpus() {
    snapshots("known_gpus", &KnownGpus::default(), Json::Snapshot);
}

/// The units a text shows after its numbers: "66.9 TFLOP/s" gives FLOP/s,
/// "75%" gives %.
fn units_in_text(text: &str) -> BTreeSet<String> {
    const SYMBOLS: [&str; 10] = ["FLOP/s", "OP/s", "inst/s", "B/s", "FLOP/B", "FLOP", "B", "MHz", "s", "%"];
    let mut out = BTreeSet::new();
    let words: Vec<&str> = text.split(|c: char| c.is_whitespace()).collect();
    for w in words.windows(2) {
        let number = w[0].trim_start_matches(['(', '[', '>', '|', '+', '-']);
        if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit() || c == '.') {
            continue;
        }
        let unit = w[1].trim_end_matches([',', ';', ')', ']', '|', '.', ':']);
        let unit = unit.split('<').next().unwrap_or_default();
        for sym in SYMBOLS {
            let prefixed =
                ["", "k", "M", "G", "T", "P", "E", "m", "u", "n"].iter().any(|p| unit == format!("{p}{sym}"));
            if prefixed {
                out.insert(if sym == "s" { "s".into() } else { sym.to_string() });
                break;
            }
        }
    }
    for w in text.split(|c: char| c.is_whitespace() || c == '(' || c == '>') {
        let w = w.trim_end_matches([',', ';', ')', '|', '<']);
        // "±0.4%" is a spread's relative deviation, which CSV gives as its
        // median, min and max; it is not a quantity of its own.
        if let Some(n) = w.strip_suffix('%') {
            if !n.is_empty() && n.trim_start_matches(['+', '-']).chars().all(|c| c.is_ascii_digit() || c == '.') {
                out.insert("%".into());
            }
        }
    }
    out
}

/// The units of a document's CSV tables: the suffixes of their column
/// names (of columns with a value), their unit columns, and the units in
/// their sentences.
fn units_in_csv<D: Describe>(doc: &D) -> BTreeSet<String> {
    let slugs = [
        ("_flop_per_s", "FLOP/s"),
        ("_op_per_s", "OP/s"),
        ("_inst_per_s", "inst/s"),
        ("_bytes_per_s", "B/s"),
        ("_flop_per_byte", "FLOP/B"),
        ("_flop", "FLOP"),
        ("_bytes", "B"),
        ("_mhz", "MHz"),
        ("_s", "s"),
        ("_pct", "%"),
    ];
    let mut out = BTreeSet::new();
    for table in csv_tables(doc).unwrap() {
        let mut r = ::csv::Reader::from_reader(table.text.as_bytes());
        let cols: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
        let rows: Vec<::csv::StringRecord> = r.records().map(Result::unwrap).collect();
        for (i, c) in cols.iter().enumerate() {
            let values: Vec<&str> = rows.iter().filter_map(|r| r.get(i)).filter(|v| !v.is_empty()).collect();
            if values.is_empty() {
                continue;
            }
            if c.ends_with("_unit") || c == "unit" {
                out.extend(values.iter().map(|u| u.to_string()));
            } else if let Some((_, sym)) = slugs.iter().find(|(slug, _)| c.ends_with(slug)) {
                out.insert(sym.to_string());
            }
            // Sentences (sources, notes) say their units as the pages do.
            for v in values.iter().filter(|v| v.parse::<f64>().is_err()) {
                out.extend(units_in_text(v));
            }
        }
    }
    out
}

/// Units CSV has beyond the pages: its data-only columns (FLOPs per kind,
/// bytes and bandwidth per level, spreads and clocks of every value).
const CSV_ONLY: [&str; 4] = ["FLOP", "B", "B/s", "MHz"];

/// The text of an HTML fragment: tags left out, entities read.
/// The words of a page, without its tags, and without the formulas of its
/// detail panels (`<ul class="workings">`: intermediate FLOPs, bytes and
/// seconds that only the page spells out; their results are the table's).
fn html_text(html: &str) -> String {
    let mut html = html.to_string();
    while let Some(start) = html.find("<ul class=\"workings\">") {
        let end = start + html[start..].find("</ul>").expect("end of the workings");
        html.replace_range(start..end + 5, "");
    }
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&gt;", ">").replace("&lt;", "<").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

fn assert_same_units<D: Describe + Serialize>(name: &str, doc: &D) {
    let r = all(doc);
    let terminal = units_in_text(&r.wide);
    let markdown = units_in_text(&r.markdown);
    let html = units_in_text(&html_text(&r.html));
    let csv = units_in_csv(doc);
    assert_eq!(terminal, markdown, "{name}: terminal vs Markdown\n{}", r.wide);
    assert_eq!(markdown, html, "{name}: Markdown vs HTML\n{}", r.html);
    assert!(csv.is_superset(&markdown), "{name}: CSV {csv:?} lacks some of {markdown:?}\n{}", r.csv);
    let extra: Vec<&String> = csv.difference(&markdown).filter(|u| !CSV_ONLY.contains(&u.as_str())).collect();
    assert!(extra.is_empty(), "{name}: CSV has units no page shows: {extra:?}\n{}", r.csv);
}

#[test]
fn every_document_shows_the_same_units_in_every_format() {
    assert_same_units("machine", &bundled_machine());
    assert_same_units("hierarchical", &samples::hierarchical_h200());
    assert_same_units("int8", &samples::int8_h200());
    assert_same_units("seed 000", &samples::seed_000_before());
    let (b, a, d) = seed_000_diff();
    assert_same_units("diff", &DiffDocument { before: &b, after: &a, diff: &d });
    assert_same_units("check", &CheckDocument::new(&check_report()));
    assert_same_units("occupancy", &occupancy());
    let m = bundled_machine();
    assert_same_units("bench", &BenchDocument { machine: &m, results: &samples::bench_results() });
    assert_same_units("tour", &tour());
}

#[test]
fn int8_work_is_in_op_per_second_everywhere() {
    let doc = samples::int8_h200();
    let r = all(&doc);
    for (format, text) in [("terminal", &r.wide), ("markdown", &r.markdown), ("html", &r.html)] {
        assert!(text.contains("TOP/s"), "{format}: no TOP/s\n{text}");
        let units = units_in_text(text);
        assert!(units.contains("OP/s") && units.contains("FLOP/s"), "{format}: {units:?}");
    }
    assert!(r.csv.contains(",OP/s,"), "{}", r.csv);
    // The INT8 kernel's own rates are OP/s; the FP32 one's FLOP/s.
    let kernels = csv_tables(&doc).unwrap().remove(0).text;
    let igemm = kernels.lines().find(|l| l.contains("igemm")).unwrap();
    let vecadd = kernels.lines().find(|l| l.contains("vecadd")).unwrap();
    assert!(igemm.contains(",OP/s,") && !igemm.contains("FLOP/s"), "{igemm}");
    assert!(vecadd.contains(",FLOP/s,") && !vecadd.contains(",OP/s,"), "{vecadd}");
    let svg = roofline_report::roofline_svg(&doc, &roofline_report::ChartOptions::default());
    assert!(svg.contains("TOP/s"), "the chart labels the INT8 roof in OP/s");
}

/// A kernel whose name tries to break every format.
fn hostile() -> AnalysisDocument {
    let name = "=HYPERLINK(\"http://x\")|pipe\n<script>alert(1)</script>\u{1b}[31mred\u{1b}[0m *bold* `code`";
    let mut k = Kernel::named(name, Origin::User);
    k.display_name = name.to_string();
    k.flops.insert(roofline_model::FlopKind::Fp32, 1e9);
    k.bytes.insert(roofline_model::MemLevel::Dram, 1e9);
    k.duration_s = Some(1e-3);
    let m = samples::known_machine("t4");
    let mut doc = AnalysisDocument::new(
        Producer::new("test"),
        roofline_documents::AnalysisSource { kind: "model".into(), detail: name.into(), byte_convention: None },
        m.clone(),
        analyze(&m, &[k]),
    );
    doc.warnings.push(roofline_model::Warning::Profiler { message: format!("a warning about {name}") });
    doc
}

#[test]
fn hostile_kernel_names_are_escaped_in_every_format() {
    let doc = hostile();
    let r = all(&doc);
    // Terminal: no escape sequence or carriage return gets through.
    for text in [&r.terminal, &r.wide] {
        assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
    }
    // Markdown: every table row has as many unescaped pipes as its header,
    // and no raw HTML.
    for table in r.markdown.split("\n\n").filter(|b| b.starts_with('|')) {
        let pipes = |l: &str| {
            let b = l.as_bytes();
            (0..b.len()).filter(|&i| b[i] == b'|' && (i == 0 || b[i - 1] != b'\\')).count()
        };
        let lines: Vec<&str> = table.lines().collect();
        for l in &lines {
            assert_eq!(pipes(l), pipes(lines[0]), "{l}");
        }
    }
    assert!(!r.markdown.contains("<script>") && !r.markdown.contains('\u{1b}'), "{}", r.markdown);
    // HTML: no tag from the name, and the embedded JSON cannot close its script.
    let page = render(&doc, Format::Html, &opts(false)).unwrap();
    assert!(!page.contains("<script>alert"), "raw script in the page");
    let data = &page[page.find("id=\"roofline-data\">").unwrap()..];
    let data = &data[..data.find("</script>").unwrap()];
    assert!(!data.contains("</") && !data.contains("<!--"));
    // CSV: the formula is neutralised.
    let kernels = csv_tables(&doc).unwrap().remove(0).text;
    let mut rows = ::csv::Reader::from_reader(kernels.as_bytes());
    let headers = rows.headers().unwrap().clone();
    let rec = rows.records().next().unwrap().unwrap();
    let name = rec.get(headers.iter().position(|h| h == "name").unwrap()).unwrap();
    assert!(name.starts_with("'=HYPERLINK"), "{name}");
}

#[test]
fn analysis_page_is_self_contained_with_details_for_every_point() {
    let doc = samples::hierarchical_h200();
    let html = render(&doc, Format::Html, &opts(false)).unwrap();
    for bad in ["http://", "https://", "src=", "@import", "url(http", "{{"] {
        let hits: Vec<_> =
            html.match_indices(bad).map(|(i, _)| &html[i.saturating_sub(40)..(i + 60).min(html.len())]).collect();
        let hits: Vec<_> = hits.into_iter().filter(|h| !h.contains("www.w3.org/2000/svg")).collect();
        assert!(hits.is_empty(), "{bad}: {hits:?}");
    }
    let page = &html[..html.find("<script type=\"application/json\"").unwrap()];
    let tips: Vec<&str> = page.split("data-tip=\"").skip(1).map(|s| &s[..s.find('"').unwrap()]).collect();
    let levels: usize = doc.kernels.iter().map(|a| a.levels.iter().filter(|p| p.intensity.is_some()).count()).sum();
    assert_eq!(tips.len(), levels);
    let start = html.find("id=\"roofline-data\">").unwrap();
    let json = &html[start + 19..];
    let json = &json[..json.find("</script>").unwrap()];
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(v["document"]["schema"], "roofline.analysis/v2");
    for t in tips {
        let p = &v["points"][t];
        assert!(
            p["title"].as_str().is_some_and(|s| !s.is_empty()) && p["lines"].as_array().is_some_and(|l| !l.is_empty()),
            "{t}"
        );
    }
    // One row group (the row and its next move under it) per kernel, each
    // linked to its detail panel.
    assert_eq!(html.matches("<tbody class=\"group\" data-k=").count(), doc.kernels.len());
    assert_eq!(html.matches("<details class=\"detail\" id=\"detail-k-").count(), doc.kernels.len());
    assert!(html.contains("id=\"kernel-table\"") && html.contains("id=\"roof-table\""));
}

#[test]
fn occupancy_shows_seed_002_example_with_origin_and_hint() {
    let r = all(&occupancy());
    assert!(r.terminal.contains("48 of 64 warps/SM: occupancy 75"), "{}", r.terminal);
    assert!(r.terminal.contains("registers (limiter)"), "{}", r.terminal);
    assert!(r.terminal.contains("8 fewer registers"), "{}", r.terminal);
    assert!(r.terminal.contains("theoretical"), "{}", r.terminal);
    let j: serde_json::Value = serde_json::from_str(&r.json).unwrap();
    assert_eq!(j["schema"], "roofline.occupancy/v1");
    assert_eq!(j["occupancy"]["resident_blocks"], 6);
    assert!(r.markdown.contains("| resource |"), "{}", r.markdown);
}

#[test]
fn occupancy_csv_is_every_sweep_point_or_one_summary_row() {
    let l = limits(9, 0).unwrap();
    let x = Launch::new(256, 40);
    let o = calculate(&l, &x).unwrap();
    let best = max_potential_block_size(&l, &x);
    let plain = OccupancyDocument::new(None, o.clone(), best.clone(), vec![]);
    let csv = render(&plain, Format::Csv, &opts(false)).unwrap();
    assert_eq!(csv.lines().count(), 2, "{csv}");
    assert!(csv.starts_with("compute_capability,threads_per_block,"), "{csv}");
    let swept = OccupancyDocument::new(None, o, best, vec![sweep(&l, &x, SweepAxis::Registers)]);
    let csv = render(&swept, Format::Csv, &opts(false)).unwrap();
    assert_eq!(csv.lines().count(), 256, "{csv}");
    assert!(csv.starts_with("axis,value,resident_blocks,resident_warps,occupancy_pct,"), "{csv}");
}

#[test]
fn svg_of_a_document_without_a_chart_is_an_error() {
    let e = render(&CheckDocument::new(&check_report()), Format::Svg, &opts(false)).unwrap_err();
    assert!(e.to_string().contains("no chart"), "{e}");
    assert!(render(&samples::seed_000_before(), Format::Svg, &opts(false)).unwrap().starts_with("<svg"));
}

#[test]
fn the_narrow_terminal_leaves_out_what_only_pages_show() {
    let doc = samples::hierarchical_h200();
    let narrow = render(&doc, Format::Table, &opts(false)).unwrap();
    let wide = render(&doc, Format::Table, &opts(true)).unwrap();
    assert!(!narrow.contains("How the numbers were obtained") && wide.contains("How the numbers were obtained"));
    // At a glance: the next moves of the top opportunities, not every diagnosis with its evidence.
    assert!(narrow.contains("next moves for the top") && !narrow.contains("\ndiagnosis:"), "{narrow}");
    assert!(wide.contains("\ndiagnosis:") && !wide.contains("next moves for the top"), "{wide}");
    // Data-only columns never reach people.
    assert!(!wide.contains("display name") && !wide.contains("bytes DRAM"), "{wide}");
}

#[test]
fn colour_only_when_asked() {
    let doc = samples::hierarchical_h200();
    let plain = render(&doc, Format::Table, &opts(false)).unwrap();
    assert!(!plain.contains('\u{1b}'));
    let coloured =
        RenderOptions { terminal: TerminalOptions { color: true, ..TerminalOptions::default() }, ..opts(false) };
    assert!(render(&doc, Format::Table, &coloured).unwrap().contains("\u{1b}["));
}

#[test]
fn the_terminal_fits_the_width_it_is_given() {
    let report = check_report();
    let doc = CheckDocument::new(&report);
    for width in [80u16, 120] {
        let o = RenderOptions { terminal: TerminalOptions { width, ..TerminalOptions::default() }, ..opts(false) };
        let text = render(&doc, Format::Table, &o).unwrap();
        for l in text.lines() {
            assert!(l.chars().count() <= width as usize, "{width}: {l}");
        }
    }
}
