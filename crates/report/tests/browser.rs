//! The HTML report in a real browser: headless Chromium loads the page
//! with `#selftest`, the page's own script hovers every point and sorts
//! every sortable column, and the test reads the result from the dumped DOM
//! and checks the browser's console log for errors.
//!
//! Skips, saying so, when no Chromium is installed (set ROOFLINE_CHROMIUM
//! to a browser binary, or install Debian's `chromium` package).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use roofline_core::diff::{diff, Pairing};
use roofline_report::{render, DiffDocument, Format, RenderOptions};

mod samples;

fn html<D: roofline_report::Describe + serde::Serialize>(doc: &D) -> String {
    render(doc, Format::Html, &RenderOptions::default()).unwrap()
}

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ROOFLINE_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Runs the page's self-test; returns its JSON and the browser's stderr.
fn self_test(browser: &Path, page: &Path) -> (serde_json::Value, String) {
    let profile = page.with_extension("profile");
    let _ = std::fs::remove_dir_all(&profile);
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}#selftest", page.display()))
        // Files, not pipes: the DOM outgrows a pipe's buffer while we wait.
        .stdout(Stdio::from(std::fs::File::create(page.with_extension("dom")).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(page.with_extension("log")).unwrap()))
        .spawn()
        .expect("start chromium");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = std::fs::remove_dir_all(&profile);
    let dom = std::fs::read_to_string(page.with_extension("dom")).unwrap_or_default();
    let stderr = std::fs::read_to_string(page.with_extension("log")).unwrap_or_default();
    let marker = "ROOFLINE-SELFTEST ";
    let start =
        dom.find(marker).unwrap_or_else(|| panic!("no self-test result in the DOM; stderr:\n{stderr}")) + marker.len();
    let end = start + dom[start..].find("</pre>").expect("end of self-test");
    let json = dom[start..end].replace("&quot;", "\"").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">");
    (serde_json::from_str(&json).expect("self-test JSON"), stderr)
}

fn check_page(browser: &Path, name: &str, html: &str) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-check");
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join(name);
    std::fs::write(&page, html).unwrap();
    let (r, stderr) = self_test(browser, &page);
    let console: Vec<&str> = stderr.lines().filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught")).collect();
    assert!(console.is_empty(), "{name}: console output: {console:?}");
    assert_eq!(r["errors"], serde_json::json!([]), "{name}: {r}");
    let points = r["points"].as_u64().unwrap();
    assert!(points > 0, "{name}: no points: {r}");
    assert_eq!(r["pointsWithDetails"].as_u64().unwrap(), points, "{name}: points without details: {r}");
    assert!(r["sortable"].as_u64().unwrap() >= 6, "{name}: {r}");
    assert_eq!(r["sortOk"], true, "{name}: {r}");
    eprintln!(
        "{name}: {points} points with hover details, {} sortable columns sorted both ways, no console errors",
        r["sortable"]
    );
}

#[test]
fn html_report_loads_hovers_and_sorts_in_chromium() {
    let Some(browser) = chromium() else {
        {
            let _ = std::io::Write::write_fmt(&mut std::io::stderr(), format_args!("SKIPPED: no chromium found (install Debian's `chromium` package or set ROOFLINE_CHROMIUM); the browser check of the HTML report did not run\n"));
        }
        return;
    };
    check_page(&browser, "hierarchical.html", &html(&samples::hierarchical_h200()));
    let (b, a) = (samples::seed_000_before(), samples::seed_000_after());
    check_page(&browser, "fusion-before.html", &html(&b));
    let d = diff(&b, &a, &[]).unwrap();
    check_page(&browser, "fusion-diff.html", &html(&DiffDocument { before: &b, after: &a, diff: &d }));
    let d = diff(&b, &a, &[Pairing::parse("scale+add=fused").unwrap()]).unwrap();
    check_page(&browser, "fusion-diff-paired.html", &html(&DiffDocument { before: &b, after: &a, diff: &d }));
}
