//! Paper estimates: `model --kernel "NAME: flops=F bytes=B ..."` and TOML
//! files of [[kernel]] tables. No panic; every accepted kernel is placed
//! and the analysis reads back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use roofline_documents::{parse_kernel_spec, parse_kernels_file};
use roofline_model::FlopKind;
use roofline_analysis::analyze;
use roofline_model::Machine;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut kernels = Vec::new();
    if let Ok(k) = parse_kernel_spec(text) {
        kernels.push(k);
    }
    if let Ok(f) = parse_kernels_file(text, "fuzz.toml") {
        kernels.extend(f.kernels);
    }
    if kernels.is_empty() {
        return;
    }
    for machine in
        [Machine::simple("m", FlopKind::Fp32, 1e12, 1e11), Machine::simple("tiny", FlopKind::Fp64, 1e-30, 1e30)]
    {
        let doc = roofline_fuzz::document("model", machine.clone(), analyze(&machine, &kernels));
        roofline_fuzz::written_reads_back(&doc);
    }
});
