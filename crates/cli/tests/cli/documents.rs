//! Every JSON document the binary writes from the committed fixtures keeps
//! its bytes: `tests/fixtures/documents/cases.txt` lists the commands, and
//! `NAME.json.gz` beside it is what the binary of before the ground-floor
//! split wrote (issue 24; `make.sh` there wrote them). A refactor that
//! changes one byte of a document fails here, naming the case and the
//! first line that differs.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Splits a case's arguments as the shell would for plain words and
/// double-quoted ones (all that cases.txt uses).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    assert!(!quoted, "unclosed quote in {line:?}");
    if any {
        out.push(cur);
    }
    out
}

/// The two clock-dependent values, as make.sh writes them: every
/// `"created"` time and the tour's closing `"seconds"`.
fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let indent = body.len() - body.trim_start().len();
        let rest = &body[indent..];
        if rest.starts_with("\"created\": \"") {
            out.push_str(&body[..indent]);
            out.push_str("\"created\": \"0\"");
            out.push_str(if rest.ends_with(',') { ",\n" } else { "\n" });
        } else if indent == 2 && rest.starts_with("\"seconds\": ") && !rest.ends_with('{') {
            out.push_str("  \"seconds\": 0\n");
        } else {
            out.push_str(line);
        }
    }
    out
}

fn golden(name: &str) -> String {
    let path = root().join(format!("tests/fixtures/documents/{name}.json.gz"));
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file).read_to_string(&mut text).unwrap();
    text
}

#[test]
fn every_document_keeps_its_bytes() {
    let cases = std::fs::read_to_string(root().join("tests/fixtures/documents/cases.txt")).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in cases.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let (name, rest) = line.split_once(' ').unwrap();
        // The tour's --out-dir is under target/, which git ignores.
        let args = words(rest);
        let out = Command::new(env!("CARGO_BIN_EXE_roofline"))
            .current_dir(root())
            .args(&args)
            .args(["--format", "json"])
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{name}: roofline {rest} exited {:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let got = normalise(std::str::from_utf8(&out.stdout).unwrap());
        let want = golden(name);
        if got != want {
            let (n, (g, w)) = got
                .lines()
                .zip(want.lines())
                .enumerate()
                .find(|(_, (g, w))| g != w)
                .unwrap_or((got.lines().count().min(want.lines().count()), ("(end)", "(end)")));
            failures.push(format!("{name}: line {}: now {g:?}, was {w:?}", n + 1));
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} cases read from cases.txt");
    assert!(failures.is_empty(), "documents changed:\n{}", failures.join("\n"));
}

#[test]
fn cases_are_split_and_clock_values_normalised_as_make_sh_does() {
    assert!(words(r#"tour --bundled --out-dir "a b""#) == ["tour", "--bundled", "--out-dir", "a b"]);
    assert_eq!(normalise("  \"seconds\": 0.0036\n"), "  \"seconds\": 0\n");
    assert_eq!(normalise("    \"created\": \"2026-12-01T21:18:58Z\"\n"), "    \"created\": \"0\"\n");
    assert_eq!(normalise("  \"seconds\": {\n"), "  \"seconds\": {\n");
}
