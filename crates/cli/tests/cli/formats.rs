//! Each command's `--format` offers the formats that command writes, and no
//! other (issue 28): its `--help` lists exactly those, and any other is
//! refused with exit 2 and the same message naming the command's formats,
//! whether `--format` comes after the subcommand or before it. `-o`'s help speaks of ranks only where they apply.

use crate::support::run;

const ALL: [&str; 7] = ["table", "json", "csv", "markdown", "html", "trace", "chart"];

const COMMANDS: [&str; 13] = [
    "tour",
    "peaks",
    "bench",
    "model",
    "sol",
    "profile",
    "import",
    "report",
    "check",
    "diff",
    "occupancy",
    "merge",
    "timeline",
];

/// What each command writes: every document a table, JSON, CSV, Markdown
/// and a page; a roofline chart in the terminal where the document has
/// one; a Chrome trace from `timeline` alone.
fn formats_of(command: &str) -> Vec<&'static str> {
    let mut f = vec!["table", "json", "csv", "markdown", "html"];
    match command {
        "tour" | "model" | "profile" | "import" | "report" | "merge" => f.push("chart"),
        "timeline" => f.push("trace"),
        _ => {}
    }
    f
}

/// The values `--help` lists under `--format`.
fn listed_formats(help: &str) -> Vec<String> {
    let mut lines = help.lines().skip_while(|l| !l.trim_start().starts_with("--format <FORMAT>")).skip(1);
    let mut found = Vec::new();
    for l in lines.by_ref() {
        if l.starts_with("  -") {
            break;
        }
        if let Some(v) = l.trim().strip_prefix("- ") {
            found.push(v.split(':').next().unwrap_or(v).trim().to_string());
        }
    }
    found
}

#[test]
fn each_commands_help_lists_exactly_its_formats() {
    for command in COMMANDS {
        let (code, help, err) = run(&[command, "--help"]);
        assert_eq!(code, 0, "{command}: {err}");
        assert_eq!(listed_formats(&help), formats_of(command), "`roofline {command} --help`:\n{help}");
    }
    // The top level lists them all, and says each command's help has its own.
    let (_, help, _) = run(&["--help"]);
    assert_eq!(listed_formats(&help), ALL);
    assert!(help.contains("each command's --help lists the formats"), "{help}");
}

#[test]
fn a_format_the_command_does_not_write_exits_2_naming_its_formats() {
    for command in COMMANDS {
        let formats = formats_of(command);
        for format in ALL.iter().filter(|f| !formats.contains(f)) {
            let (code, out, err) = run(&[command, "--format", format]);
            assert_eq!(code, 2, "{command} --format {format}: {out}{err}");
            let said = format!("--format {format}: `roofline {command}` does not write it");
            assert!(err.contains(&said), "{command}: {err}");
            assert!(err.contains(&format!("its formats are {}", formats.join(", "))), "{command}: {err}");
        }
    }
    // A word that is no format at all: the command's own list, as clap says it.
    let (code, _, err) = run(&["peaks", "--format", "svg"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value 'svg' for '--format <FORMAT>'"), "{err}");
    assert!(err.contains("[possible values: table, json, csv, markdown, html]"), "{err}");
    // Before the subcommand, the same words.
    let analysis = crate::support::repo("tests/fixtures/documents/check_recipe.json.gz");
    for (args, format) in [
        (vec!["--format", "chart", "peaks", "--gpu", "h200"], "chart"),
        (vec!["--format", "trace", "import", "capture.csv"], "trace"),
        (vec!["--format", "chart", "check", analysis.as_str(), "--min-pct-of-roof", "1"], "chart"),
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        let command = args[2];
        assert!(err.contains(&format!("--format {format}: `roofline {command}` does not write it")), "{err}");
        assert!(err.contains(&formats_of(command).join(", ")), "{err}");
        assert!(out.is_empty(), "nothing is written: {out}");
    }
}

#[test]
fn output_help_speaks_of_ranks_and_svg_only_where_they_apply() {
    let help = |c: &str| run(&[c, "--help"]).1;
    let output = |h: &str| {
        let start = h.find("-o, --output <FILE>").expect("-o is documented");
        let rest = &h[start..];
        rest[..rest[20..].find("\n  -").map(|i| i + 20).unwrap_or(rest.len())].to_string()
    };
    for command in ["peaks", "bench", "sol", "check", "timeline"] {
        let o = output(&help(command));
        assert!(!o.contains("torchrun") && !o.contains("{rank}"), "{command}: {o}");
        assert!(!o.contains(".svg"), "{command} draws no chart: {o}");
    }
    for command in ["report", "diff", "tour", "occupancy", "merge", "model"] {
        let o = output(&help(command));
        assert!(!o.contains("torchrun"), "{command}: {o}");
        assert!(o.contains(".svg"), "{command}: {o}");
    }
    for command in ["profile", "import"] {
        assert!(output(&help(command)).contains("torchrun"), "{command}");
    }
}
