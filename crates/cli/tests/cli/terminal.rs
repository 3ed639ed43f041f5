//! The terminal as a person sees it (issue 13): `roofline tour` at 80 and
//! 120 columns (COLUMNS, as a terminal of that width sets it) keeps every
//! line within the width, leads with the program summary, and shows the
//! first kernel verdict within the first screen (24 lines). Colour only
//! when asked, and never "-0".

use assert_cmd::Command;

const VERDICTS: [&str; 4] = ["memory-bound", "compute-bound", "latency-bound", "no counters"];

fn tour(columns: &str, extra: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("roofline")
        .unwrap()
        .env("COLUMNS", columns)
        .env_remove("NO_COLOR")
        .args(["tour", "--bundled", "--out-dir"])
        .arg(dir.path())
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn tour_at_80_columns_never_wraps_and_shows_a_kernel_verdict_on_the_first_screen() {
    let (stdout, _) = tour("80", &[]);
    for (i, l) in stdout.lines().enumerate() {
        assert!(l.chars().count() <= 80, "line {} is {} columns: {l}", i + 1, l.chars().count());
    }
    let first_screen: Vec<&str> = stdout.lines().take(24).collect();
    // The kernel table's first row: a kernel ID in brackets and a verdict word.
    let kernel_row =
        first_screen.iter().position(|l| l.contains(" [k") && VERDICTS.iter().any(|v| l.trim_end().ends_with(v)));
    assert!(kernel_row.is_some(), "no kernel verdict in the first 24 lines:\n{}", first_screen.join("\n"));
    // It leads with the summary: the GPU, whether the data is bundled, time by verdict, the top 3.
    assert_eq!(first_screen[0], "Where the GPU time goes");
    assert!(first_screen.iter().any(|l| l.starts_with("GPU: NVIDIA H200")), "{first_screen:#?}");
    assert!(first_screen.iter().any(|l| l.starts_with("data: bundled")), "{first_screen:#?}");
    assert!(first_screen.iter().any(|l| l.starts_with("Top 3 opportunities")), "{first_screen:#?}");
    for v in VERDICTS {
        assert!(first_screen.iter().any(|l| l.starts_with(v)), "{v} missing from the verdict split");
    }
}

#[test]
fn tour_at_120_columns_fits_and_the_wide_view_keeps_every_column() {
    let (stdout, _) = tour("120", &[]);
    assert!(stdout.lines().all(|l| l.chars().count() <= 120));
    let (wide, _) = tour("120", &["--wide"]);
    for l in wide.lines() {
        assert!(l.chars().count() <= 120, "{l}");
    }
    for column in ["AI L2", "achieved", "next:", "spread", "clock"] {
        assert!(wide.contains(column), "--wide lacks {column}");
    }
    assert!(wide.contains("\ndiagnosis:") && wide.contains("How the numbers were obtained"));
}

#[test]
fn the_roofs_are_printed_once_and_ridge_points_only_for_precisions_in_use() {
    let (stdout, _) = tour("100", &[]);
    assert_eq!(stdout.matches("FP8 tensor").count(), 1, "{stdout}");
    assert!(!stdout.contains("ridge points"), "the tour shows its measured ridge instead");
    let dir = tempfile::tempdir().unwrap();
    let capture = format!("{}/../../tests/fixtures/tour/examples.ncu.csv", env!("CARGO_MANIFEST_DIR"));
    let out =
        Command::cargo_bin("roofline").unwrap().current_dir(dir.path()).args(["import", &capture]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let ridge = &text[text.find("ridge points:").expect("ridge points")..];
    let ridge: Vec<&str> = ridge.lines().skip(1).take_while(|l| l.starts_with("  ")).collect();
    // The example kernels do FP32 and FP64 work (their HFMA instructions are
    // constant moves, not FP16 FLOPs): no FP16 and no tensor ridge.
    assert_eq!(ridge.len(), 2, "{ridge:#?}");
    assert!(ridge[0].starts_with("  FP64:") && ridge[1].starts_with("  FP32:"), "{ridge:#?}");
    assert!(ridge.iter().all(|l| !l.contains("tensor")), "{ridge:#?}");
}

#[test]
fn colour_only_on_request_or_a_terminal() {
    let (plain, _) = tour("100", &[]);
    assert!(!plain.contains('\u{1b}'), "a pipe gets no colour");
    let (forced, _) = tour("100", &["--color", "always"]);
    assert!(forced.contains("\u{1b}["), "--color always colours a pipe");
    let (never, _) = tour("100", &["--color", "never"]);
    assert!(!never.contains('\u{1b}'));
}

#[test]
fn no_negative_zero_in_any_format() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["table", "markdown", "csv", "html"] {
        let out = Command::cargo_bin("roofline")
            .unwrap()
            .args(["tour", "--bundled", "--wide", "--out-dir"])
            .arg(dir.path())
            .args(["--format", format])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let bytes = text.as_bytes();
        for (i, _) in text.match_indices("-0") {
            let before = if i == 0 { b' ' } else { bytes[i - 1] };
            let rest: String = text[i + 1..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
            let zero = rest.chars().all(|c| c == '0' || c == '.');
            // "-0.00", "-0" as a number (not "x86-64", "k1-0", a date or an ID).
            let number = !before.is_ascii_alphanumeric() && before != b'-';
            assert!(!(number && zero), "{format}: {}", &text[i.saturating_sub(30)..(i + 20).min(text.len())]);
        }
    }
}

/// Hardening (issue 27), item 5: bidirectional controls in a kernel name
/// (U+202E, the isolates U+2066-2069, the marks) reached the terminal raw,
/// and a name could visually rewrite its row.
#[test]
fn bidirectional_controls_in_kernel_names_never_reach_the_terminal_or_markdown() {
    const BIDI: [char; 12] = [
        '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        '\u{200E}', '\u{200F}', '\u{061C}',
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut c = crate::support::Capture::load("h200_seed000_metrics.csv");
    let name: String = format!("evil{}kernel", BIDI.iter().collect::<String>());
    c.set(0, "Kernel Name", &name);
    let cap = dir.path().join("cap.csv");
    c.write(&cap);
    let a = dir.path().join("a.json");
    let (code, _, err) = crate::support::run(&["import", crate::support::s(&cap), "-q", "-o", crate::support::s(&a)]);
    assert_eq!(code, 0, "{err}");
    for format in ["table", "markdown", "chart"] {
        let (code, out, err) = crate::support::run(&["report", crate::support::s(&a), "--format", format]);
        assert_eq!(code, 0, "{format}: {err}");
        assert!(out.contains("evil"), "{format}: the kernel is shown");
        for text in [&out, &err] {
            let raw: Vec<String> =
                BIDI.iter().filter(|b| text.contains(**b)).map(|b| format!("U+{:04X}", *b as u32)).collect();
            assert!(raw.is_empty(), "{format} shows {raw:?} raw");
        }
    }
    // Messages too (stderr): an error naming an input whose name holds them.
    let missing = dir.path().join(format!("cap{}.csv", BIDI.iter().collect::<String>()));
    let (code, _, err) = crate::support::run(&["import", crate::support::s(&missing)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cap\u{FFFD}"), "the name is shown, escaped: {err}");
    for b in BIDI {
        assert!(!err.contains(b), "a message shows U+{:04X} raw: {err}", b as u32);
    }
}
