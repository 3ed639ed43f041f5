//! The JSON documents the tool reads (analysis, machine) and the check
//! rules: no panic; what reads also checks, diffs and reads back unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use roofline_documents::{check, Rules};
use roofline_documents::diff;
use roofline_documents::{read_analysis, read_machine};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(doc) = read_analysis(text, "fuzz.json") {
        roofline_fuzz::written_reads_back(&doc);
        let rules = Rules {
            min_pct_of_roof: Some(50.0),
            baseline: Some("self".into()),
            max_regression_pct: Some(10.0),
            ..Rules::default()
        };
        let _ = check(&doc, &rules, Some(&doc));
        let _ = diff(&doc, &doc, &[]);
        let again =
            roofline_analysis::analyze(&doc.machine, &doc.kernels.iter().map(|k| k.kernel.clone()).collect::<Vec<_>>());
        roofline_fuzz::written_reads_back(&roofline_fuzz::document("model", doc.machine.clone(), again));
    }
    if let Ok(m) = read_machine(text, "fuzz.json") {
        let json = serde_json::to_string(&m).unwrap();
        read_machine(&json, "fuzz.json").expect("a machine that was read reads back");
    }
    let _ = Rules::from_toml(text, "fuzz.toml").map(|r| r.validate("fuzz.toml"));
    let _ = Rules::parse_kernel_flag(text);
});
