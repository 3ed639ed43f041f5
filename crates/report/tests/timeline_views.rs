//! The timeline document (`roofline timeline`) through the shared writers:
//! snapshots of every view of the recorded H200 timeline of
//! examples/pytorch/train_gpt.py (tests/fixtures/timeline), and what
//! `--color always` colours.

use roofline_report::{csv_tables, render, Format, RenderOptions, TerminalOptions, TimelineView};
use roofline_timeline::read_timeline;
use roofline_timeline::TimelineDocument;

const FIXTURE: &str = "tests/fixtures/timeline/train_gpt_h200.timeline.json.gz";

/// The fixture, decompressed by the system's gzip (no compression crate in
/// the workspace); a machine without gzip fails here with the reason.
fn train_gpt() -> TimelineDocument {
    let path = format!("{}/../../{FIXTURE}", env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("gzip")
        .args(["-dc", &path])
        .output()
        .unwrap_or_else(|e| panic!("gzip is needed to read {FIXTURE}: {e}"));
    assert!(out.status.success(), "gzip -dc {path}: {}", String::from_utf8_lossy(&out.stderr));
    read_timeline(std::str::from_utf8(&out.stdout).unwrap(), FIXTURE).unwrap()
}

fn opts(wide: bool, color: bool) -> RenderOptions {
    RenderOptions {
        terminal: TerminalOptions { wide, color, ..TerminalOptions::default() },
        ..RenderOptions::default()
    }
}

fn html_main(html: &str) -> String {
    html[html.find("<main>").unwrap()..html.find("</main>").unwrap()].to_string()
}

#[test]
fn timeline_views_of_the_h200_training_run() {
    let doc = train_gpt();
    let view = TimelineView { doc: &doc, top: 10 };
    insta::assert_snapshot!("timeline_terminal", render(&view, Format::Table, &opts(false, false)).unwrap());
    insta::assert_snapshot!("timeline_wide", render(&view, Format::Table, &opts(true, false)).unwrap());
    insta::assert_snapshot!("timeline_markdown", render(&view, Format::Markdown, &opts(false, false)).unwrap());
    insta::assert_snapshot!("timeline_html", html_main(&render(&view, Format::Html, &opts(false, false)).unwrap()));
    let csv: Vec<String> = csv_tables(&view)
        .unwrap()
        .into_iter()
        .map(|t| format!("## {}\n{}", t.name, t.text.lines().take(6).collect::<Vec<_>>().join("\n")))
        .collect();
    insta::assert_snapshot!("timeline_csv_heads", csv.join("\n"));
}

#[test]
fn csv_and_json_hold_every_kernel_while_people_get_the_top() {
    let doc = train_gpt();
    let view = TimelineView { doc: &doc, top: 3 };
    let tables = csv_tables(&view).unwrap();
    let all = tables.iter().find(|t| t.name == "kernel").expect("a kernel table");
    assert_eq!(all.text.lines().count(), 1 + doc.summary.kernels.len(), "every kernel in the CSV");
    let terminal = render(&view, Format::Table, &opts(false, false)).unwrap();
    assert!(terminal.contains(&format!("{} more kernels", doc.summary.kernels.len() - 3)), "{terminal}");
    let json: serde_json::Value =
        serde_json::from_str(&render(&view, Format::Json, &opts(false, false)).unwrap()).unwrap();
    assert_eq!(json["schema"], "roofline.timeline/v1");
    assert_eq!(json["summary"]["kernel_launches"], 28038);
}

#[test]
fn color_always_colours_the_busy_share_and_the_ending() {
    let mut doc = train_gpt();
    let plain = render(&TimelineView::new(&doc), Format::Table, &opts(false, false)).unwrap();
    assert!(!plain.contains('\u{1b}'), "no colour unless asked");
    let coloured = render(&TimelineView::new(&doc), Format::Table, &opts(false, true)).unwrap();
    // The busy share's cell is coloured (the training run keeps the GPU 14% busy: red).
    let busy_row = coloured.lines().find(|l| l.contains("the program's wall time")).expect("a busy row");
    assert!(busy_row.contains('\u{1b}'), "{busy_row}");
    assert!(doc.summary.busy[0].busy_share < 0.5, "the fixture's GPU mostly waits on Python");
    assert!(coloured.contains("\u{1b}[1;32mexit status 0"), "a clean exit in green: {coloured}");
    doc.run.ended_by = "interrupted".into();
    doc.run.exit_code = Some(130);
    let stopped = render(&TimelineView::new(&doc), Format::Table, &opts(false, true)).unwrap();
    assert!(stopped.contains("\u{1b}[1;31minterrupted"), "an interrupted run in red: {stopped}");
}
