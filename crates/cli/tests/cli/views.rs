//! The commands' output in every format on the bundled H200 data, through
//! the real binary: snapshots of the tour and of the analysis of the
//! bundled Nsight Compute capture.

use crate::support::{repo, stdout_in as run};

/// The tour's wall-clock time is the one thing that changes between runs.
fn without_time(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("done in") {
            Some(i) => format!("{}done in: [seconds]", &l[..i]),
            None if l.starts_with("files,seconds,") => "files,seconds,,[seconds],s,".into(),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The page from `<main>` to `</main>`, without its SVG (snapshotted in
/// the report crate).
fn page_body(html: &str) -> String {
    let mut s = html[html.find("<main>").unwrap()..html.find("</main>").unwrap()].to_string();
    while let (Some(a), Some(b)) = (s.find("<svg"), s.find("</svg>")) {
        s.replace_range(a..b + 6, "[svg]");
    }
    s
}

#[test]
fn snapshot_tour_bundled_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let tour = |format: &str| run(dir.path(), &["tour", "--bundled", "--out-dir", "out", "--format", format]);
    insta::assert_snapshot!("tour_terminal", without_time(&tour("table")));
    insta::assert_snapshot!("tour_markdown", without_time(&tour("markdown")));
    insta::assert_snapshot!("tour_csv", tour("csv"));
    let json: serde_json::Value = serde_json::from_str(&tour("json")).unwrap();
    assert_eq!(json["schema"], "roofline.tour/v1");
    assert!(json["seconds"].as_f64().unwrap() > 0.0);
    // The machine and the analysis inside are the versioned documents.
    let analysis = roofline_documents::read_analysis(&json["analysis"].to_string(), "tour JSON").unwrap();
    let machine = roofline_documents::read_machine(&json["machine"].to_string(), "tour JSON").unwrap();
    assert_eq!(analysis.machine, machine.machine);
    assert!(
        json["fusion"]["after"][1].as_f64().unwrap() > 0.0 && json["intensity_steps"].as_array().unwrap().len() == 7
    );
    let html = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    insta::assert_snapshot!("tour_html", without_time(&page_body(&html)));
}

#[test]
fn snapshot_import_of_the_bundled_capture_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    // Copied next to the run so that the source line the output names is the
    // same on every checkout.
    for file in ["examples.ncu.csv", "machine.json"] {
        std::fs::copy(repo(&format!("tests/fixtures/tour/{file}")), dir.path().join(file)).unwrap();
    }
    let import = |format: &str| {
        run(dir.path(), &["import", "examples.ncu.csv", "--machine", "machine.json", "--format", format])
    };
    insta::assert_snapshot!("import_terminal", import("table"));
    insta::assert_snapshot!("import_markdown", import("markdown"));
    insta::assert_snapshot!("import_csv", import("csv"));
    insta::assert_snapshot!("import_html", page_body(&import("html")));
    let doc = roofline_documents::read_analysis(&import("json"), "import JSON").unwrap();
    assert_eq!(doc.kernels.len(), 17);
    assert_eq!(doc.machine.name, "NVIDIA H200");
}
