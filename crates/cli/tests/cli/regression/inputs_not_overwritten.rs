//! Nothing a command reads or runs is written over: its capture or
//! analyses, the rank files and machine of `merge`, the CSV `--save-csv`
//! keeps, the ncu it runs, the roofline binary itself; under another
//! spelling of the name, through a hard link, or as a side table of
//! `-o FILE.csv`.

use std::path::Path;

use crate::support::{fixture, fixture as data, model_json, roofline, run, run_in, s, script, two_analyses};

/// Hardening (issue 16), item 1.
#[test]
fn import_refuses_to_overwrite_its_own_capture() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("cap.csv");
    std::fs::copy(fixture("h200_seed000_metrics.csv"), &cap).unwrap();
    let before = std::fs::read(&cap).unwrap();
    let (code, _, err) = run(&["import", s(&cap), "-o", s(&cap)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cap.csv") && err.contains("input"), "{err}");
    assert_eq!(std::fs::read(&cap).unwrap(), before, "the capture was overwritten");
    // Through another spelling of the same file, and through a hard link.
    let link = dir.path().join("same.csv");
    std::fs::hard_link(&cap, &link).unwrap();
    let (code, _, _) = run(&["import", s(&cap), "-o", s(&link)]);
    assert_eq!(code, 2);
    let dotted = format!("{}/./cap.csv", dir.path().display());
    assert_eq!(run(&["import", s(&cap), "-o", &dotted]).0, 2);
    assert_eq!(std::fs::read(&cap).unwrap(), before);
}

/// Hardening (issue 16), item 1.
#[test]
fn commands_refuse_to_overwrite_their_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let a = model_json(dir.path(), "a.json", &["k: flops=1 bytes=12 time=1us"]);
    let b = model_json(dir.path(), "b.json", &["k: flops=1 bytes=12 time=2us"]);
    let before = std::fs::read(&a).unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["report", s(&a), "-o", s(&a)],
        vec!["check", s(&a), "--min-pct-of-roof", "1", "-o", s(&a)],
        vec!["check", s(&b), "--baseline", s(&a), "--max-regression", "10", "-o", s(&a)],
        vec!["diff", s(&a), s(&b), "-o", s(&a)],
        vec!["model", "--machine", s(&a), "--kernel", "k: flops=1 bytes=12", "-o", s(&a)],
    ];
    for args in cases {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(std::fs::read(&a).unwrap(), before, "{args:?} overwrote its input");
    }
}

/// Adversarial pass 2, F1.
#[test]
fn merge_refuses_to_overwrite_a_rank_file_or_its_machine() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_analyses(dir.path());
    let before = std::fs::read(&b).unwrap();
    // `merge job.rank*.json -o job.rank1.json`, spelled several ways.
    for target in ["b.json", "./b.json", b.to_str().unwrap()] {
        let (code, _, err) = run_in(dir.path(), &["merge", "a.json", "b.json", "-q", "-o", target]);
        assert_eq!(code, 2, "-o {target}: {err}");
        assert!(err.contains("also an input") && err.contains("RANK_FILE"), "{err}");
        assert_eq!(std::fs::read(&b).unwrap(), before, "-o {target} replaced a rank");
    }
    let (code, _, err) = run_in(dir.path(), &["peaks", "--gpu", "h200", "-q", "-o", "m.json"]);
    assert_eq!(code, 0, "{err}");
    let machine = std::fs::read(dir.path().join("m.json")).unwrap();
    let (code, _, err) =
        run_in(dir.path(), &["merge", "a.json", "b.json", "--machine", "m.json", "-q", "-o", "m.json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--machine"), "{err}");
    assert_eq!(std::fs::read(dir.path().join("m.json")).unwrap(), machine);
    let _ = a;
}

/// Adversarial pass 2, F2.
#[test]
fn csv_side_tables_of_the_output_do_not_overwrite_an_input() {
    let dir = tempfile::tempdir().unwrap();
    // The capture happens to be named like the roofs table of `-o x.csv`.
    let capture = dir.path().join("x.roof.csv");
    std::fs::copy(data("h200_seed000_profile.csv"), &capture).unwrap();
    let before = std::fs::read(&capture).unwrap();
    let (code, _, err) = run_in(dir.path(), &["import", "x.roof.csv", "-q", "-o", "x.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("x.roof.csv") && err.contains("also an input"), "{err}");
    assert_eq!(std::fs::read(&capture).unwrap(), before, "the capture was replaced by a table");
    assert!(!dir.path().join("x.csv").exists(), "a file was written before the refusal");
    // An analysis named like the facts table, through report.
    let (a, _) = two_analyses(dir.path());
    std::fs::rename(&a, dir.path().join("y.facts.csv")).unwrap();
    let before = std::fs::read(dir.path().join("y.facts.csv")).unwrap();
    let (code, _, err) = run_in(dir.path(), &["report", "y.facts.csv", "-q", "-o", "y.csv"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read(dir.path().join("y.facts.csv")).unwrap(), before);
    // Side tables that are not inputs are still written.
    let (code, _, err) = run_in(dir.path(), &["report", "y.facts.csv", "-q", "-o", "z.csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(dir.path().join("z.roof.csv").exists());
}

/// Adversarial pass 2, F2.
#[test]
fn csv_side_tables_of_the_output_do_not_overwrite_the_saved_ncu_csv() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let capture = data("h200_seed000_profile.csv");
    // A stand-in ncu: copies the capture to its --log-file.
    let ncu = dir.path().join("ncu");
    let script = format!(
        "#!/bin/sh\n[ \"$1\" = \"--query-metrics\" ] && exit 1\nwhile [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && cp \"{}\" \"$2\"; shift; done\n",
        capture.display()
    );
    std::fs::write(&ncu, script).unwrap();
    std::fs::set_permissions(&ncu, std::fs::Permissions::from_mode(0o755)).unwrap();
    // `--save-csv x.roof.csv -o x.csv`: the roofs table of x.csv is x.roof.csv.
    let (code, out, err) = run_in(
        dir.path(),
        &[
            "profile",
            "--ncu",
            ncu.to_str().unwrap(),
            "--one-pass",
            "--save-csv",
            "x.roof.csv",
            "-o",
            "x.csv",
            "--",
            "/bin/true",
        ],
    );
    // Refused before anything runs (issue 27: it was noticed only after
    // profiling): nothing is profiled, written or replaced.
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("x.roof.csv") && err.contains("--save-csv"), "{err}");
    assert!(!dir.path().join("x.roof.csv").exists() && !dir.path().join("x.csv").exists(), "{out}{err}");
}

/// Adversarial pass 4.
/// O3: `--save-csv` (or `-o`) naming the ncu executable replaced it.
#[test]
fn profile_refuses_to_write_over_the_ncu_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = script(dir.path(), "ncu", "exit 0");
    let before = std::fs::read(&ncu).unwrap();
    for flag in ["--save-csv", "-o"] {
        let out = roofline()
            .args(["profile", "--one-pass", "--ncu"])
            .arg(&ncu)
            .arg(flag)
            .arg(&ncu)
            .args(["--", "/bin/true"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains("--ncu"), "{flag}");
        assert_eq!(std::fs::read(&ncu).unwrap(), before, "{flag}: ncu was replaced");
    }
}

/// Adversarial pass 5.
/// F19: `-o` naming the roofline binary itself replaced the running
/// program with the analysis (the next command run was a JSON file).
#[test]
fn the_tool_refuses_to_write_over_its_own_binary() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("roofline");
    std::fs::copy(assert_cmd::cargo::cargo_bin("roofline"), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let capture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu/h200_seed000_profile.csv");
    let out = std::process::Command::new(&copy).args(["import", "-q", "-o"]).arg(&copy).arg(&capture).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("this roofline program itself"), "{err}");
    assert!(std::fs::read(&copy).unwrap() == before, "the binary was replaced");
}
