//! Quantities with units ("4.8 TB/s", "1.57 ms") and ncu's unit names:
//! no panic, and every value accepted is within the input range.
#![no_main]

use libfuzzer_sys::fuzz_target;
use roofline_model::input_in_range;
use roofline_model::{format_si, parse_quantity, Unit};
use roofline_ncu::{ncu_unit, parse_value};

fuzz_target!(|data: &[u8]| {
    let _ = parse_value(data);
    let Ok(text) = std::str::from_utf8(data) else { return };
    for unit in Unit::ALL {
        if let Ok(v) = parse_quantity(text, unit) {
            assert!(input_in_range(v), "{text:?} as {unit:?} gave {v}");
            let _ = format_si(v, unit);
        }
    }
    if let Some(u) = ncu_unit(text) {
        assert!(u.scale.is_finite() && u.scale > 0.0, "{text:?}: {u:?}");
    }
});
