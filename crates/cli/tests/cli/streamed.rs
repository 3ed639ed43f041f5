//! `report`, `check` and `diff` read an analysis as a stream, kernel by
//! kernel (`roofline_documents::stream_analysis`): what they print must be
//! what the whole-document readers make of the same analysis, and a
//! document those refuse is refused with their message.

use std::path::{Path, PathBuf};

use crate::support::*;

/// More kernels than a page shows (`roofline_report::PAGE_KERNELS`), so
/// that the page, the CSV and the JSON are each made their own way.
fn large() -> roofline_documents::AnalysisDocument {
    roofline_documents::synthetic::rank(0, 2, 2300, 2300, true)
}

/// `doc` in folder `name`: as roofline writes it ("written"), compact with
/// the keys in roofline's order ("compact", which the stream reads but
/// does not copy), or with its keys sorted ("sorted", which only the whole
/// reader takes).
fn write(dir: &Path, name: &str, doc: &roofline_documents::AnalysisDocument) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let text = match name {
        "written" => format!("{}\n", serde_json::to_string_pretty(doc).unwrap()),
        "compact" => serde_json::to_string(doc).unwrap(),
        _ => serde_json::to_value(doc).unwrap().to_string(),
    };
    std::fs::write(folder.join("doc.json"), text).unwrap();
    folder
}

/// Exit code, stdout and stderr of `args` run in `dir`.
fn output(dir: &Path, args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = roofline().current_dir(dir).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), out.stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_large_analysis_streamed_prints_what_it_prints_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let doc = large();
    let folders: Vec<PathBuf> = ["written", "compact", "sorted"].iter().map(|n| write(dir.path(), n, &doc)).collect();
    let commands: [&[&str]; 8] = [
        &["report", "doc.json", "--format", "json"],
        &["report", "doc.json", "--format", "csv"],
        &["report", "doc.json", "--format", "table"],
        &["report", "doc.json", "--format", "markdown"],
        &["report", "doc.json", "--format", "csv", "-o", "out.csv"],
        &["report", "doc.json", "--format", "json", "-o", "out.json"],
        &["check", "doc.json", "--min-pct-of-roof", "1"],
        &["diff", "doc.json", "doc.json", "--format", "csv"],
    ];
    for args in commands {
        let runs: Vec<(i32, Vec<u8>, String)> = folders.iter().map(|f| output(f, args)).collect();
        let (code, stdout, stderr) = &runs[2];
        assert!(*code == 0 || (args[0] == "check" && *code == 1), "{args:?}: {code} {stderr}");
        for (f, run) in folders.iter().zip(&runs).take(2) {
            assert_eq!(run, &runs[2], "{args:?} in {}", f.display());
        }
        if args.contains(&"-o") {
            let name = args.last().unwrap();
            let whole = std::fs::read(folders[2].join(name)).unwrap();
            assert!(whole.len() > 100_000, "{args:?}: every kernel is written");
            for f in &folders[..2] {
                assert_eq!(std::fs::read(f.join(name)).unwrap(), whole, "{args:?} in {}", f.display());
            }
        } else {
            assert!(!stdout.is_empty(), "{args:?}");
        }
    }
    // The JSON is the document as written, whichever way it was made.
    let json = std::fs::read(folders[0].join("out.json")).unwrap();
    assert_eq!(json, std::fs::read(folders[0].join("doc.json")).unwrap());
}

#[test]
fn an_inconsistent_analysis_in_roofline_order_is_refused_as_when_read_whole() {
    // The stream checks what the whole reader checks; what it refuses is
    // read whole again, for the message: the input, the field, the fix.
    let dir = tempfile::tempdir().unwrap();
    let mut doc = large();
    doc.kernels[1700].time_share = Some(-0.5);
    let folders: Vec<PathBuf> = ["written", "sorted"].iter().map(|n| write(dir.path(), n, &doc)).collect();
    for args in [
        &["report", "doc.json", "--format", "csv"][..],
        &["report", "doc.json", "--format", "json", "-o", "out.json"],
        &["report", "doc.json"],
        &["check", "doc.json", "--min-pct-of-roof", "1"],
        &["diff", "doc.json", "doc.json"],
    ] {
        let streamed = output(&folders[0], args);
        let whole = output(&folders[1], args);
        assert_eq!(streamed, whole, "{args:?}");
        let (code, stdout, stderr) = streamed;
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}");
        assert!(
            stderr.contains("doc.json") && stderr.contains("kernels[1700].time_share") && stderr.contains("0..1"),
            "{args:?}: {stderr}"
        );
        assert!(!folders[0].join("out.json").exists(), "{args:?}: nothing written");
    }
}
