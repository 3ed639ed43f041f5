//! The raw ncu CSV reader alone (`read_capture`): no panic, no hang,
//! bounded memory, and what it accepts keeps its contract: at least one
//! launch, numeric launch IDs, every value finite, not negative and within
//! the input range; every clock within its physical range (issue 27).
#![no_main]

use libfuzzer_sys::fuzz_target;
use roofline_model::input_in_range;
use roofline_ncu::{clock_range, read_capture, Slot};

fn ok(v: f64) -> bool {
    v >= 0.0 && input_in_range(v)
}

fuzz_target!(|data: &[u8]| {
    match read_capture(data, "fuzz.csv") {
        Ok(cap) => {
            assert!(!cap.launches.is_empty());
            for l in &cap.launches {
                assert!(!l.id.is_empty() && l.id.bytes().all(|b| b.is_ascii_digit()), "launch ID {:?}", l.id);
                for v in l.present() {
                    assert!(ok(v), "line {}: value {v}", l.line);
                }
                for slot in [Slot::SmClock, Slot::MaxSmClock, Slot::L1Clock, Slot::LtsClock, Slot::DramClock] {
                    let (lo, hi, what) = clock_range(slot).expect("a clock");
                    if let Some(hz) = l.get(slot) {
                        assert!(hz == 0.0 || (lo..=hi).contains(&hz), "line {}: {what} of {hz} Hz", l.line);
                    }
                }
                for t in l.tensor.values() {
                    assert!(t.ops.is_finite() && t.ops >= 0.0, "line {}: tensor ops {}", l.line, t.ops);
                    assert!(t.peak_per_cycle.is_none_or(ok), "line {}: tensor peak {:?}", l.line, t.peak_per_cycle);
                }
                for (_, v) in l.stalls.iter() {
                    assert!(ok(*v), "line {}: stall {v}", l.line);
                }
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
