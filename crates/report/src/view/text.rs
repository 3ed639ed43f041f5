//! Cells as words: the one place a number becomes text for people, so the
//! terminal, Markdown and HTML print the same digits and units.
//!
//! Writers escape what these functions return; nothing here is escaped.

use roofline_model::Spread;
use roofline_model::{fixed, format_percent, format_plain, format_si, signed};

use super::cell::{Cell, Quantity, Value};

/// A number of a quantity, without its note: "66.9 TFLOP/s", "75%",
/// "1.50x faster". Negative zero prints as zero.
pub fn quantity_text(v: f64, unit: Quantity) -> String {
    let v = if v == 0.0 { 0.0 } else { v };
    match unit {
        Quantity::Si(u) => format_si(v, u),
        Quantity::Percent => format_percent(v),
        Quantity::PercentPoints => format!("{} pt", signed(v, 1)),
        Quantity::Change => format!("{}%", signed(v, 1)),
        Quantity::Count => fixed(v, 0),
        Quantity::Ratio => format_plain(v),
        Quantity::Factor => format!("x{}", format_plain(v)),
        Quantity::Speedup if v >= 1.0 => format!("{v:.2}x faster"),
        Quantity::Speedup if v > 0.0 => format!("{:.2}x slower", 1.0 / v),
        Quantity::Speedup => "n/a".into(),
        Quantity::Megahertz => format!("{} MHz", fixed(v, 0)),
    }
}

/// A value as people read it, with its note: "16.7 GFLOP/s (DRAM bandwidth)".
pub fn value_text(v: &Value) -> String {
    let base = quantity_text(v.value, v.unit);
    match &v.note {
        Some(n) if !n.is_empty() => format!("{base} ({n})"),
        _ => base,
    }
}

/// "min..max (n=20, ±1.2%)" for a measured figure, "one sample (x)" for a
/// single one, "-" for none.
pub fn spread_text(spread: Option<&Spread>, unit: Quantity) -> String {
    match spread {
        Some(s) if s.samples > 1 => format!(
            "{}..{} (n={}, ±{})",
            quantity_text(s.min, unit),
            quantity_text(s.max, unit),
            s.samples,
            format_percent(100.0 * s.stddev / s.median.abs().max(f64::MIN_POSITIVE))
        ),
        Some(s) => format!("one sample ({})", quantity_text(s.median, unit)),
        None => "-".into(),
    }
}

/// "measured", "theoretical, unconfirmed", or "-".
pub(crate) fn origin_text(v: &Value) -> String {
    match v.basis.origin {
        Some(o) if v.basis.confirmed => o.label().to_string(),
        Some(o) => format!("{}, unconfirmed", o.label()),
        None => "-".into(),
    }
}

/// "SM 1980 MHz (boost clock)", or "-".
pub(crate) fn clock_text(v: &Value) -> String {
    v.basis.clock.as_ref().map(|c| c.describe()).filter(|s| !s.is_empty()).unwrap_or_else(|| "-".into())
}

/// One line on a value's provenance, for a hover: "measured; 4.3..4.4 TB/s
/// (n=20, ±0.4%); SM 1980 MHz". Empty when nothing is known.
pub(crate) fn provenance_line(v: &Value) -> String {
    let mut parts = Vec::new();
    if v.basis.origin.is_some() {
        parts.push(origin_text(v));
    }
    if v.basis.spread.is_some() {
        parts.push(spread_text(v.basis.spread.as_deref(), v.unit));
    }
    if v.basis.clock.is_some() {
        parts.push(clock_text(v));
    }
    parts.join("; ")
}

/// A cell as one piece of plain text; `name` renders a [`Cell::Name`].
pub(crate) fn cell_text(cell: &Cell, name: &dyn Fn(&str, &str) -> String) -> String {
    match cell {
        Cell::Empty => "-".into(),
        Cell::Text { text, .. } => text.clone(),
        Cell::Name { name: n, id, .. } => name(n, id),
        Cell::Value(v) => value_text(v),
        Cell::Values(vs) => values_text(vs),
        Cell::Change { before, after, delta } => {
            let mut s = format!("{} -> {}", cell_text(before, name), cell_text(after, name));
            if let Some(d) = delta {
                s.push_str(&format!(" ({})", value_text(d)));
            }
            s
        }
    }
}

/// "DRAM 25.4 FLOP/B, L2 4.1 FLOP/B"; a value with an origin says it:
/// "FP32 60.8 TFLOP/s (measured)".
pub(crate) fn values_text(vs: &[(String, Value)]) -> String {
    vs.iter()
        .map(|(label, v)| {
            let mut s = if label.is_empty() { value_text(v) } else { format!("{label} {}", value_text(v)) };
            if v.basis.origin.is_some() {
                s.push_str(&format!(" ({})", origin_text(v)));
            }
            s
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use roofline_model::Unit;

    #[test]
    fn negative_zero_never_prints() {
        assert_eq!(quantity_text(-0.0, Quantity::Si(Unit::FlopPerSecond)), "0.00 FLOP/s");
        assert_eq!(quantity_text(-0.0, Quantity::Percent), "0.0%");
        assert_eq!(quantity_text(-0.004, Quantity::PercentPoints), "0.0 pt");
        assert_eq!(quantity_text(-0.04, Quantity::Change), "0.0%");
        assert_eq!(quantity_text(-0.2, Quantity::Count), "0");
    }

    #[test]
    fn speedups_read_both_ways() {
        assert_eq!(quantity_text(1.5, Quantity::Speedup), "1.50x faster");
        assert_eq!(quantity_text(0.8, Quantity::Speedup), "1.25x slower");
    }
}
