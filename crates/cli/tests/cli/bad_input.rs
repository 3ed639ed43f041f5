//! Bad input: every case names the input, what was expected and the fix,
//! and exits with code 2.

use assert_cmd::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("roofline").unwrap().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn unknown_gpu_name_suggests_the_closest() {
    let (code, stdout, err) = run(&["peaks", "--gpu", "h2000"]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(err.contains("\"h2000\"") && err.contains("did you mean \"h200\"") && err.contains("t4"), "{err}");
}

#[test]
fn zero_bytes_are_refused() {
    let (code, _, err) = run(&["model", "--gpu", "t4", "--kernel", "k: flops=1 bytes=0"]);
    assert_eq!(code, 2);
    assert!(err.contains("bytes must be greater than zero"), "{err}");
}

#[test]
fn negative_flops_are_refused() {
    let (code, _, err) = run(&["model", "--gpu", "t4", "--kernel", "k: flops=-1 bytes=12"]);
    assert_eq!(code, 2);
    assert!(err.contains("flops must be greater than zero"), "{err}");
}

#[test]
fn unparsable_units_name_the_value_and_the_spellings() {
    let (code, _, err) =
        run(&["model", "--peak", "1000 GFLOPZ", "--bandwidth", "100 GB/s", "--kernel", "k: flops=1 bytes=12"]);
    assert_eq!(code, 2);
    assert!(err.contains("\"1000 GFLOPZ\"") && err.contains("TFLOP/s"), "{err}");
}

#[test]
fn malformed_toml_gives_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, "[[kernel]]\nname = \"x\"\nflops = 1\nbytes = [oops\n").unwrap();
    let (code, _, err) = run(&["model", "--gpu", "t4", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.toml") && err.contains("line 4") && err.contains("column"), "{err}");
}

#[test]
fn toml_with_an_unknown_key_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.toml");
    std::fs::write(&path, "[[kernel]]\nname = \"x\"\nflops = 1\nbytes = 12\nflop = 2\n").unwrap();
    let (code, _, err) = run(&["model", "--gpu", "t4", path.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown field `flop`"), "{err}");
}

#[test]
fn machine_json_of_another_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.json");
    std::fs::write(&path, r#"{"schema": "roofline.machine/v0", "machine": {"name": "x"}}"#).unwrap();
    let (code, _, err) = run(&["model", "--machine", path.to_str().unwrap(), "--kernel", "k: flops=1 bytes=12"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("old.json") && err.contains("roofline.machine/v0") && err.contains("roofline.machine/v2"),
        "{err}"
    );
}

#[test]
fn missing_machine_file_is_named() {
    let (code, _, err) = run(&["model", "--machine", "/nonexistent/m.json", "--kernel", "k: flops=1 bytes=12"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/m.json") && err.contains("roofline bench -o"), "{err}");
}

#[test]
fn no_machine_says_how_to_give_one() {
    let (code, _, err) = run(&["model", "--kernel", "k: flops=1 bytes=12"]);
    assert_eq!(code, 2);
    assert!(err.contains("--gpu") && err.contains("--peak"), "{err}");
}

#[test]
fn bad_flag_is_usage_error() {
    let (code, _, _) = run(&["model", "--no-such-flag"]);
    assert_eq!(code, 2);
}

#[test]
fn machine_json_round_trips_between_commands() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t4.json");
    let (code, _, _) = run(&["peaks", "--gpu", "t4", "-o", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    let (code, stdout, err) =
        run(&["model", "--machine", path.to_str().unwrap(), "--kernel", "c = a + b: flops=1 bytes=12"]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("26.7 GFLOP/s"), "{stdout}");
    // No temporary file is left beside the output.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn csv_and_markdown_formats() {
    let (code, stdout, _) =
        run(&["model", "--gpu", "t4", "--kernel", "c = a + b: flops=1 bytes=12", "--format", "csv"]);
    assert_eq!(code, 0);
    let mut lines = stdout.lines();
    assert!(lines.next().unwrap().starts_with("id,name,display_name"));
    assert!(lines.next().unwrap().contains("c = a + b"));
    let (code, stdout, _) = run(&["peaks", "--gpu", "h200", "--format", "markdown"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("| FP32 | 66.9 TFLOP/s | theoretical"), "{stdout}");
}
