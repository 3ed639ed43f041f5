//! What `-o FILE` writes: the format its extension names, and beside a CSV
//! file every other table of the document.

use assert_cmd::Command;

use crate::support::stdout_in as run;

#[test]
fn a_csv_file_gets_every_table_of_the_document() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), &["peaks", "--gpu", "h200", "-o", "h200.csv"]);
    let main = std::fs::read_to_string(dir.path().join("h200.csv")).unwrap();
    assert!(main.starts_with("ceiling,rate,rate_unit,"), "{main}");
    let facts = std::fs::read_to_string(dir.path().join("h200.facts.csv")).unwrap();
    assert!(facts.starts_with("section,field,part,value,unit,origin") && facts.contains("ridge,fp32,DRAM,"), "{facts}");
}

#[test]
fn every_format_of_a_small_document_is_what_its_extension_says() {
    let dir = tempfile::tempdir().unwrap();
    for (file, starts) in [("m.json", "{"), ("m.md", "## "), ("m.html", "<!DOCTYPE html>"), ("m.txt", "Roofs of")] {
        run(dir.path(), &["peaks", "--gpu", "t4", "-o", file]);
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        assert!(text.starts_with(starts), "{file}: {}", &text[..text.len().min(80)]);
    }
    // A machine has no chart: SVG is refused, and nothing is written.
    let out = Command::cargo_bin("roofline")
        .unwrap()
        .current_dir(dir.path())
        .args(["peaks", "--gpu", "t4", "-o", "m.svg"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no chart"));
    assert!(!dir.path().join("m.svg").exists());
}

/// A JSON document that goes to `-o` and to stdout is serialised once for
/// both: the same bytes on each, and a file that fails half way (`/dev/full`)
/// leaves stdout the whole document, with the file's error.
#[test]
fn a_json_document_in_the_file_and_on_stdout_is_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let capture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu/h200_seed000_metrics.csv");
    let capture = capture.to_str().unwrap();
    let printed = run(dir.path(), &["import", capture, "--format", "json", "-o", "a.json"]);
    let saved = std::fs::read_to_string(dir.path().join("a.json")).unwrap();
    assert!(printed.starts_with('{') && printed.len() > 10_000, "{}", &printed[..printed.len().min(200)]);
    assert_eq!(printed, saved);
    let peaks = run(dir.path(), &["peaks", "--gpu", "h200", "--format", "json", "-o", "m.json"]);
    assert_eq!(peaks, std::fs::read_to_string(dir.path().join("m.json")).unwrap());
    if std::path::Path::new("/dev/full").exists() {
        let out = Command::cargo_bin("roofline")
            .unwrap()
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .args(["import", capture, "--format", "json", "-o", "/dev/full"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("/dev/full") && stderr.contains("results went to standard output"), "{stderr}");
        assert_eq!(String::from_utf8(out.stdout).unwrap(), printed);
    }
}
