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
