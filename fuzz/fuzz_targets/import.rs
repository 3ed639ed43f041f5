//! `roofline import`'s whole path: the raw ncu CSV reader, the analysis of
//! what it reads, and the document it writes: no panic, no hang, bounded
//! memory, and every analysis it would write reads back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use roofline_analysis::analyze_capture;
use roofline_ncu::{capture, read_capture, ByteConvention, Options};

fuzz_target!(|data: &[u8]| {
    let Ok(cap) = read_capture(data, "fuzz.csv") else { return };
    assert!(!cap.launches.is_empty());
    // One analysis per execution; the input's length picks the options.
    let per_launch = data.len() % 2 == 1;
    let convention = if data.len() % 4 >= 2 { ByteConvention::Nersc } else { ByteConvention::Ncu };
    let a = analyze_capture(&capture(&cap, &Options { convention, per_launch }), None);
    let doc = roofline_fuzz::document("ncu", a.machine, a.kernels);
    roofline_fuzz::written_reads_back(&doc);
});
