//! The HTML report in a real browser. Headless Chromium loads each page at
//! 1400 px with a harness (`tests/browser/harness.js`) injected after the
//! page's own script; the harness points at what a reader would point at
//! (`elementFromPoint`), hovers, clicks, wheels, drags and presses keys,
//! measures the rendered DOM, and leaves its findings in the page, which
//! Chromium dumps. The test asserts:
//!
//! - hover details on every point a pointer can reach (full name, ID,
//!   launches, FLOP mix), and no script error or console message;
//! - the key, the chart and the table tied together (hover, keyboard
//!   focus, a click that pins a kernel and opens its detail panel);
//! - sorting of every column both ways, each row keeping the line under it;
//! - zoom with the wheel and a box, pan with shift+drag and the arrow keys,
//!   reset and "whole roofline", precision tabs and "show all roofs", the
//!   points drawn where each view puts them;
//! - no two labels overlapping (rotated ones measured as rotated), each
//!   inside the plot, no two kernels with one label, at every step above;
//! - the page without JavaScript: no promise of sorting, the chart, its
//!   hover titles, the CSS tabs and the detail panels still there;
//! - a kernel named `</script><!--` cannot break the embedded JSON.
//!
//! In CI (`ROOFLINE_CI` or `CI` set; `.ci/run` installs Debian's chromium)
//! a missing or broken browser fails the test. Elsewhere it skips, saying
//! so. `ROOFLINE_CHROMIUM` names another browser binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use roofline_documents::AnalysisDocument;
use roofline_documents::{diff, Pairing};
use roofline_model::Kernel;
use roofline_model::Origin;
use roofline_report::{render, DiffDocument, Format, RenderOptions, TourDocument};

mod samples;

const HARNESS: &str = include_str!("browser/harness.js");

fn html<D: roofline_report::Describe + serde::Serialize>(doc: &D) -> String {
    render(doc, Format::Html, &RenderOptions::default()).unwrap()
}

fn in_ci() -> bool {
    ["ROOFLINE_CI", "CI"].iter().any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty() && x != "0" && x != "false"))
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

/// Chromium's dump of the page's DOM after its scripts ran, and its log.
fn dump(browser: &Path, page: &Path, extra: &[&str]) -> (String, String) {
    let profile = page.with_extension(format!("profile{}", extra.len()));
    let _ = std::fs::remove_dir_all(&profile);
    let (out, log) = (page.with_extension("dom"), page.with_extension("log"));
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
            "--hide-scrollbars",
            "--window-size=1400,1000",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .args(extra)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", page.display()))
        // Files, not pipes: the DOM outgrows a pipe's buffer while we wait.
        .stdout(Stdio::from(std::fs::File::create(&out).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", browser.display()));
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish {} within 120 s", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = std::fs::remove_dir_all(&profile);
    (std::fs::read_to_string(out).unwrap_or_default(), std::fs::read_to_string(log).unwrap_or_default())
}

fn write_page(name: &str, html: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-check");
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join(name);
    std::fs::write(&page, html).unwrap();
    page
}

/// Runs the harness on a page; returns what it counted.
fn check_page(browser: &Path, name: &str, html: &str) -> serde_json::Value {
    let with_harness = html.replace("</body>", &format!("<script>\n{HARNESS}\n</script>\n</body>"));
    let page = write_page(name, &with_harness);
    let (dom, log) = dump(browser, &page, &[]);
    let marker = "id=\"harness-result\">HARNESS ";
    let start = dom.find(marker).unwrap_or_else(|| panic!("{name}: the harness left no result; browser log:\n{log}"));
    let end = start + dom[start..].find("</pre>").expect("end of the result");
    let json = dom[start + marker.len()..end].replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    let r: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{name}: {e}: {json}"));
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught")).collect();
    assert!(console.is_empty(), "{name}: console output: {console:?}");
    assert_eq!(r["failures"], serde_json::json!([]), "{name}: {:#}", r["failures"]);
    eprintln!("{name}: passed: {}", r["counts"]);
    r["counts"].clone()
}

/// The page with its scripts taken out (as a browser with JavaScript off
/// shows it: this page has no `<noscript>`; Chromium cannot dump the DOM
/// with scripting off).
pub fn without_scripts(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        let tag_end = start + rest[start..].find('>').expect("end of the tag");
        let end = tag_end + rest[tag_end..].find("</script>").expect("end of the script") + "</script>".len();
        out.push_str(&rest[..start]);
        if rest[start..tag_end].contains("application/json") {
            out.push_str(&rest[start..end]);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The page with scripts off: what it must still say, and must not promise.
fn check_without_javascript(browser: &Path, name: &str, html: &str) {
    let page = write_page(&format!("nojs-{name}"), &without_scripts(html));
    let (dom, log) = dump(browser, &page, &[]);
    assert!(dom.contains("<main>"), "{name}: no page without JavaScript; log:\n{log}");
    let html_tag = &dom[dom.find("<html").unwrap()..];
    let html_tag = &html_tag[..html_tag.find('>').unwrap()];
    assert!(!html_tag.contains("js"), "{name}: the script ran: {html_tag}");
    assert!(!dom.contains("Click a column header to sort"), "{name}: promises sorting without a script");
    assert!(
        !dom.contains("<th><button") && !dom.contains("\"><button type=\"button\">"),
        "{name}: sort buttons without a script"
    );
    assert!(!dom.contains("id=\"harness-result\""));
    assert!(dom.contains("class=\"roofline-chart\"") && dom.contains("class=\"klabel\""), "{name}: no chart");
    assert!(dom.matches("<title>").count() > 3, "{name}: the points lost their hover titles");
    assert!(dom.contains("<details class=\"detail\""), "{name}: no detail panels");
    // The zoom buttons belong to the script: hidden by the stylesheet until it runs.
    assert!(dom.contains("class=\"zoom-tools js-only\"") && html.contains("html.js .js-only"), "{name}");
}

fn tour() -> TourDocument {
    let iters = [1, 4, 16, 64, 256, 1024, 4096];
    samples::tour(samples::tour_capture(), &iters, "No GPU here (a test): showing the bundled data of an H200.")
}

/// A kernel whose name would end the embedded script and open a comment.
fn hostile() -> AnalysisDocument {
    let mut doc = samples::seed_000_before();
    for (i, a) in doc.kernels.iter_mut().enumerate() {
        let name = format!("k{i}</script><!--<script>alert({i})</script>-->");
        a.kernel = Kernel { name: name.clone(), display_name: name, ..a.kernel.clone() };
    }
    doc.source.detail = "<!-- a comment that never ends".into();
    doc.kernels[0].kernel.origin = Origin::User;
    doc
}

#[test]
fn html_report_works_in_chromium() {
    let Some(browser) = chromium() else {
        assert!(
            !in_ci(),
            "no chromium in CI: .ci/run installs Debian's chromium; set ROOFLINE_CHROMIUM to another browser"
        );
        let _ = std::io::Write::write_fmt(
            &mut std::io::stderr(),
            format_args!("SKIPPED: no chromium found (install Debian's `chromium` package or set ROOFLINE_CHROMIUM); the browser test of the HTML report did not run\n"),
        );
        return;
    };
    let babel = check_page(&browser, "babelstream.html", &html(&samples::babelstream()));
    assert!(babel["pointsHovered"].as_u64().unwrap() >= 8 && babel["zoomChecks"] == 1, "{babel}");
    let torch = check_page(&browser, "pytorch.html", &html(&samples::pytorch()));
    assert!(torch["tabsChecked"].as_u64().unwrap() >= 3, "the PyTorch capture mixes precisions: {torch}");
    assert!(torch["roofSwitch"] == 1 && torch["columnsSorted"].as_u64().unwrap() >= 10, "{torch}");
    let t = check_page(&browser, "tour.html", &html(&tour()));
    assert!(t["keyEntriesLinked"].as_u64().unwrap() >= 10 && t["pinned"] == 1, "{t}");
    check_page(&browser, "hierarchical.html", &html(&samples::hierarchical_h200()));
    let (b, a) = (samples::seed_000_before(), samples::seed_000_after());
    let d = diff(&b, &a, &[Pairing::parse("scale+add=fused").unwrap()]).unwrap();
    check_page(&browser, "fusion-diff.html", &html(&DiffDocument { before: &b, after: &a, diff: &d }));
    // Issue 16, item 12: `<!--` and `</script>` in names keep the data and the script alive.
    let h = check_page(&browser, "hostile.html", &html(&hostile()));
    assert!(h["pointsHovered"].as_u64().unwrap() >= 2, "{h}");
    check_without_javascript(&browser, "pytorch.html", &html(&samples::pytorch()));
    check_without_javascript(&browser, "tour.html", &html(&tour()));
}
