//! Quantities with units ("4.8 TB/s", "1.57 ms"), ncu's unit names, the
//! one number grammar, and kernel names: no panic, and every value accepted
//! is within the input range; a number is never read from a decimal comma;
//! kernel names are shortened in bounded time (libFuzzer's -timeout).
#![no_main]

use libfuzzer_sys::fuzz_target;
use roofline_model::{display_names, format_number, format_si, input_in_range, parse_number, parse_quantity, Unit};
use roofline_ncu::{ncu_unit, parse_value, read_number};

/// Whether every comma in `text` sits between groups of three digits after
/// a first group of one to three (a thousands separator).
fn commas_are_thousands(text: &[u8]) -> bool {
    let end = text.iter().position(|&b| matches!(b, b'.' | b'e' | b'E')).unwrap_or(text.len());
    if text[end..].contains(&b',') {
        return false;
    }
    let int = &text[..end];
    let int = int.strip_prefix(b"-").or_else(|| int.strip_prefix(b"+")).unwrap_or(int);
    let groups: Vec<&[u8]> = int.split(|&b| b == b',').collect();
    groups.len() == 1 || ((1..=3).contains(&groups[0].len()) && groups[1..].iter().all(|g| g.len() == 3))
}

fuzz_target!(|data: &[u8]| {
    let _ = parse_value(data);
    match parse_number(data) {
        Ok(v) => {
            assert!(v.is_finite(), "{data:?} gave {v}");
            assert!(
                commas_are_thousands(data),
                "{:?}: a comma that is not a thousands separator was read",
                String::from_utf8_lossy(data)
            );
            assert!(format_number(v).len() <= 24, "{v} echoed as {}", format_number(v));
        }
        Err(_) => {}
    }
    if let Ok(Some(v)) = read_number(data) {
        assert!(v.is_finite(), "{data:?} gave {v}");
    }
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
    // Names: two siblings (the input, and the input with one more level of nesting).
    let nested = format!("void k<{text}>(int)");
    let names = display_names(&[text, &nested]);
    assert_eq!(names.len(), 2);
    assert!(names.iter().all(|n| !n.is_empty() || text.trim().is_empty()), "{names:?}");
});
