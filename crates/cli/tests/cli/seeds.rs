//! The seeds' worked examples, digit for digit, through the real binary.

use serde_json::Value;

use crate::support::{bare_roofline as roofline, repo};

fn json(args: &[&str]) -> Value {
    let out = roofline().args(args).args(["--format", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (name, intensity, attainable GFLOP/s, bound) of every kernel.
fn rows(doc: &Value) -> Vec<(String, f64, f64, String)> {
    doc["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let dram = k["levels"].as_array().unwrap().iter().find(|l| l["level"] == "dram").unwrap();
            (
                k["kernel"]["name"].as_str().unwrap().to_string(),
                dram["intensity"].as_f64().unwrap(),
                k["attainable_flops_per_s"].as_f64().unwrap() / 1e9,
                k["bound"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn compute_peak(doc: &Value) -> f64 {
    doc["kernels"][0]["compute_roof_flops_per_s"].as_f64().unwrap() / 1e9
}

#[test]
fn seed_000_peaks_cu_t4() {
    let out = roofline().args(["peaks", "--gpu", "t4"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("8141 GFLOP/s"), "{text}");
    assert!(text.contains("320 GB/s"), "{text}");
    assert!(text.contains("DRAM 25.4 FLOP/B"), "{text}");
}

#[test]
fn seed_000_peaks_h200_with_tensor_roofs() {
    let doc = json(&["peaks", "--gpu", "h200"]);
    let ceilings = doc["machine"]["ceilings"].as_array().unwrap();
    let get = |name: &str| {
        ceilings.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("{name}"))["rate"].as_f64().unwrap()
    };
    assert_eq!(format!("{:.1}", get("FP32") / 1e12), "66.9");
    assert_eq!(format!("{:.1}", get("FP64") / 1e12), "33.5");
    assert_eq!(format!("{:.0}", get("BF16 tensor (dense)") / 1e12), "989");
    assert_eq!(format!("{:.1}", get("FP64 tensor (dense)") / 1e12), "66.9");
    let dram = ceilings.iter().find(|b| b["resource"]["which"] == "dram").unwrap()["rate"].as_f64().unwrap();
    assert_eq!(format!("{:.0}", dram / 1e9), "4814");
}

/// oi.py: OI 0.125 / 40, 0.083 / 27, 0.167 / 53, 4096 / 8141.
#[test]
fn seed_000_oi_table_on_the_t4() {
    let doc = json(&["model", &repo("examples/seeds/seed000_t4.toml")]);
    let r = rows(&doc);
    let expect = [
        ("y = a * x", "0.125", "40", "memory"),
        ("c = a + b", "0.083", "27", "memory"),
        ("y = a * x + y", "0.167", "53", "memory"),
        ("fma loop, 4096 x 4", "4096.000", "8141", "compute"),
    ];
    assert_eq!(r.len(), expect.len());
    for ((name, oi, roof, bound), (en, eoi, eroof, ebound)) in r.iter().zip(expect) {
        assert_eq!(name, en);
        assert_eq!(format!("{oi:.3}"), eoi, "{name}");
        assert_eq!(format!("{roof:.0}"), eroof, "{name}");
        assert_eq!(bound, ebound, "{name}");
    }
}

/// Seed 001: ridge 10; SAXPY at 17 GFLOP/s = 1.7% of peak; the four-kernel table.
#[test]
fn seed_001_saxpy_and_its_table() {
    let doc = json(&["model", &repo("examples/seeds/seed001_saxpy.toml")]);
    let peak = compute_peak(&doc);
    assert_eq!(peak, 1000.0);
    let m = &doc["machine"];
    let ridge = m["ceilings"][0]["rate"].as_f64().unwrap() / m["ceilings"][1]["rate"].as_f64().unwrap();
    assert_eq!(ridge, 10.0);
    let expect = [
        ("SAXPY (a*x+y)", "0.17", "17", "1.7", "memory"),
        ("stencil / blur", "0.50", "50", "5.0", "memory"),
        ("sparse matvec", "0.25", "25", "2.5", "memory"),
        ("dense matmul (blocked)", "40.00", "1000", "100.0", "compute"),
    ];
    for ((name, oi, roof, bound), (en, eoi, eroof, epct, ebound)) in rows(&doc).iter().zip(expect) {
        assert_eq!(name, en);
        assert_eq!(format!("{oi:.2}"), eoi);
        assert_eq!(format!("{roof:.0}"), eroof);
        assert_eq!(format!("{:.1}", 100.0 * roof / peak), epct);
        assert_eq!(bound, ebound);
    }
    // The same SAXPY from the command line, and the table says 1.7%.
    let out = roofline()
        .args(["model", "--peak", "1000 GFLOP/s", "--bandwidth", "100 GB/s", "--kernel", "saxpy: flops=2 bytes=12"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // Words in order; line breaks and indentation are the layout's.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("1.7%")
            && text.contains("16.7 GFLOP/s")
            && words.contains("ridge points: FP32: DRAM 10.0 FLOP/B"),
        "{text}"
    );
}

/// Seed 002: ridge 20; vector add roof 83 GFLOP/s = 0.4% of peak; stencil; matmul.
#[test]
fn seed_002_calculator() {
    let doc = json(&["model", &repo("examples/seeds/seed002_calculator.toml")]);
    let peak = compute_peak(&doc);
    assert_eq!(peak, 20000.0);
    let expect = [
        ("vector add c=a+b", "0.08", "83", "0.4", "memory"),
        ("7-point stencil", "1.625", "1625", "8.1", "memory"),
        ("tiled matmul (128)", "128.00", "20000", "100.0", "compute"),
    ];
    for ((name, oi, roof, bound), (en, eoi, eroof, epct, ebound)) in rows(&doc).iter().zip(expect) {
        assert_eq!(name, en);
        let digits = eoi.split('.').nth(1).map_or(0, str::len);
        assert_eq!(format!("{oi:.digits$}"), eoi);
        assert_eq!(format!("{roof:.0}"), eroof);
        assert_eq!(format!("{:.1}", 100.0 * roof / peak), epct);
        assert_eq!(bound, ebound);
    }
}
