//! Quantities with units, parsed and printed the way GPU vendors write them.
//!
//! Everything inside the model is a plain `f64` in base SI units (FLOP, byte,
//! second, FLOP/s, byte/s). This module is the only place that turns such a
//! number into text ("4814 GB/s", "66.9 TFLOP/s") or back, so that every
//! command prints the same way and every input is read the same way.
//!
//! Prefixes are SI powers of ten (k = 1e3, G = 1e9); the binary ones (KiB,
//! MiB, GiB) are accepted on input for byte sizes only.

use std::fmt;

/// What a number measures. Decides the unit symbol and which suffixes parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Floating-point operations (a count).
    Flop,
    /// Bytes (a count).
    Byte,
    /// Seconds.
    Second,
    /// FLOP per second.
    FlopPerSecond,
    /// Integer operations per second (INT8 tensor cores).
    OpPerSecond,
    /// Bytes per second.
    BytePerSecond,
    /// FLOP per byte (arithmetic intensity).
    FlopPerByte,
    /// Warp-level instructions per second (the instruction roofline's
    /// y axis: one warp instruction is 32 thread instructions).
    InstPerSecond,
}

impl Unit {
    /// Every unit, in declaration order.
    pub const ALL: [Unit; 8] = [
        Unit::Flop,
        Unit::Byte,
        Unit::Second,
        Unit::FlopPerSecond,
        Unit::OpPerSecond,
        Unit::BytePerSecond,
        Unit::FlopPerByte,
        Unit::InstPerSecond,
    ];

    /// The symbol printed after the prefix.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Flop => "FLOP",
            Unit::Byte => "B",
            Unit::Second => "s",
            Unit::FlopPerSecond => "FLOP/s",
            Unit::OpPerSecond => "OP/s",
            Unit::BytePerSecond => "B/s",
            Unit::FlopPerByte => "FLOP/B",
            Unit::InstPerSecond => "inst/s",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Unit::Flop => "a FLOP count such as \"2.1 GFLOP\" or \"4096\"",
            Unit::Byte => "a byte count such as \"12\", \"64 MB\" or \"4 GiB\"",
            Unit::Second => "a duration such as \"1.57 ms\", \"830 us\" or \"0.002 s\"",
            Unit::FlopPerSecond => "a rate such as \"66.9 TFLOP/s\" or \"8141 GFLOP/s\"",
            Unit::OpPerSecond => "a rate such as \"1979 TOP/s\"",
            Unit::BytePerSecond => "a bandwidth such as \"4.8 TB/s\" or \"320 GB/s\"",
            Unit::FlopPerByte => "an intensity such as \"0.083\" or \"25.4 FLOP/B\"",
            Unit::InstPerSecond => "a warp-instruction rate such as \"528 Ginst/s\"",
        }
    }
}

/// A value could not be read as a quantity of the expected unit.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("cannot read {input:?} as {expected}: {reason}")]
pub struct ParseQuantityError {
    /// The text given.
    pub input: String,
    /// What it should have been ("a bandwidth such as 4.8 TB/s ...").
    pub expected: &'static str,
    /// Why it could not be read.
    pub reason: String,
}

const SI: [(&str, f64); 7] = [("", 1.0), ("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12), ("P", 1e15), ("E", 1e18)];

/// Formats `value` (in base units) with the largest SI prefix that keeps the
/// mantissa at 10 or more, the way datasheets write GPU figures: "8141 GFLOP/s",
/// "66.9 TFLOP/s", "4814 GB/s", "320 GB/s", "989 TFLOP/s".
///
/// Mantissas of 100 and more print with no decimals, 10 to 100 with one,
/// below 10 with two (that only happens with no prefix left to drop to).
pub fn format_si(value: f64, unit: Unit) -> String {
    if !value.is_finite() {
        return format!("n/a {}", unit.symbol());
    }
    if unit == Unit::Second {
        return format_seconds(value);
    }
    if unit == Unit::FlopPerByte {
        return format!("{} {}", format_plain(value), unit.symbol());
    }
    let magnitude = value.abs();
    let mut chosen = SI[0];
    for &(prefix, scale) in SI.iter() {
        if magnitude / scale >= 10.0 || scale == 1.0 {
            chosen = (prefix, scale);
        }
    }
    let mantissa = value / chosen.1;
    if chosen.1 == 1.0 && matches!(unit, Unit::Flop | Unit::Byte) && mantissa.fract() == 0.0 {
        return format!("{} {}", fixed(mantissa, 0), unit.symbol());
    }
    format!("{} {}{}", format_mantissa(mantissa), chosen.0, unit.symbol())
}

/// Formats a duration with the unit a kernel writer expects: ns, us, ms or s.
pub fn format_seconds(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "n/a s".into();
    }
    let s = seconds.abs();
    if s == 0.0 {
        return "0 s".into();
    }
    let (scale, symbol) = if s >= 1.0 {
        (1.0, "s")
    } else if s >= 1e-3 {
        (1e-3, "ms")
    } else if s >= 1e-6 {
        (1e-6, "us")
    } else {
        (1e-9, "ns")
    };
    let v = seconds / scale;
    let text = if v.abs() >= 100.0 {
        fixed(v, 1)
    } else if v.abs() >= 10.0 {
        fixed(v, 2)
    } else {
        fixed(v, 3)
    };
    format!("{text} {symbol}")
}

fn format_mantissa(m: f64) -> String {
    let a = m.abs();
    if a >= 100.0 {
        fixed(m, 0)
    } else if a >= 10.0 {
        fixed(m, 1)
    } else {
        fixed(m, 2)
    }
}

/// `v` with `decimals` decimals; a number that rounds to zero prints without
/// a sign, so "-0.0" never reaches a reader.
pub fn fixed(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => s,
    }
}

/// `v` with a sign and `decimals` decimals ("+3.2", "-1.0"); zero, or a
/// number that rounds to it, has no sign.
pub fn signed(v: f64, decimals: usize) -> String {
    let s = fixed(v, decimals);
    if s.starts_with('-') || s.chars().all(|c| c == '0' || c == '.') {
        s
    } else {
        format!("+{s}")
    }
}

/// A plain number with about three significant digits, for ratios and
/// intensities: 0.083, 0.125, 25.4, 4096.
pub fn format_plain(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 100.0 {
        fixed(v, 0)
    } else if a >= 10.0 {
        fixed(v, 1)
    } else if a >= 1.0 {
        fixed(v, 2)
    } else if a >= 0.01 {
        fixed(v, 3)
    } else {
        format!("{v:.2e}")
    }
}

/// A number echoed in a message exactly but compactly: as Rust writes it
/// (`150.5`, `0.001`) while that is short, else in exponent form (`1e308`,
/// never its 309 digits; `1.5e-300`). Infinities and NaN as `inf`, `NaN`.
pub fn format_number(v: f64) -> String {
    let plain = v.to_string();
    if plain.len() <= 16 || !v.is_finite() {
        plain
    } else {
        format!("{v:e}")
    }
}

/// Formats a percentage: one decimal below 10%, none above 100%.
pub fn format_percent(p: f64) -> String {
    if !p.is_finite() {
        return "n/a".into();
    }
    if p.abs() < 10.0 {
        format!("{}%", fixed(p, 1))
    } else {
        format!("{}%", fixed(p, 0))
    }
}

/// Why a field that starts like a number is not one ([`parse_number`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NumberProblem {
    /// A comma that cannot be a thousands separator (`58784,5`, `1.234,5`):
    /// a decimal comma, from a locale that writes one.
    DecimalComma,
    /// Digits, signs, points or exponents out of place (`1.2.3`, `12abc`).
    Malformed,
    /// A number too large for a double (`1e400`).
    Overflow,
}

impl NumberProblem {
    /// What is wrong, and the fix, in words.
    pub fn explain(&self) -> &'static str {
        match self {
            NumberProblem::DecimalComma => {
                "a comma that is not a thousands separator (groups of three digits): exported with a decimal comma? use LC_NUMERIC=C (export again with `LC_NUMERIC=C ncu --import REPORT --csv --page raw --print-units base`)"
            }
            NumberProblem::Malformed => {
                "not a number as ncu writes them (digits, thousands commas in groups of three, one decimal point, an exponent)"
            }
            NumberProblem::Overflow => "out of range: larger than any value a counter can hold",
        }
    }
}

/// The one grammar of numbers the tool reads, in captures, flags and files
/// (as `ncu --csv` writes them, in the C locale):
///
/// ```text
/// number   = sign? ( int | int? "." digits ) exponent?
/// int      = digits | d{1,3} ( "," d{3} )+          (thousands separators)
/// exponent = ("e" | "E") sign? digits
/// ```
///
/// A comma that cannot be a thousands separator (`58784,5`, `1.234,5`) is a
/// decimal comma, never read as something else; a number too large for a
/// double (`1e400`) is out of range, as any other too large is.
pub fn parse_number(field: &[u8]) -> Result<f64, NumberProblem> {
    let mut i = 0;
    if matches!(field.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    // The integer part, with its thousands separators.
    let int_start = i;
    while i < field.len() && field[i].is_ascii_digit() {
        i += 1;
    }
    let first_group = i - int_start;
    let mut grouped = false;
    while i < field.len() && field[i] == b',' {
        let group = field[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if first_group == 0 || first_group > 3 || group != 3 {
            return Err(NumberProblem::DecimalComma);
        }
        grouped = true;
        i += 1 + group;
    }
    if grouped && field.get(i).is_some_and(u8::is_ascii_digit) {
        return Err(NumberProblem::DecimalComma);
    }
    let mut digits = i > int_start;
    if field.get(i) == Some(&b'.') {
        i += 1;
        let frac = field[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        i += frac;
        digits |= frac > 0;
        if field.get(i) == Some(&b',') {
            return Err(NumberProblem::DecimalComma);
        }
    }
    if !digits {
        return Err(NumberProblem::Malformed);
    }
    if matches!(field.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(field.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = field[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        if exp == 0 {
            return Err(NumberProblem::Malformed);
        }
        i += exp;
    }
    if i != field.len() {
        return Err(if field[i..].contains(&b',') { NumberProblem::DecimalComma } else { NumberProblem::Malformed });
    }
    // The number without its separators (commas appear here only as
    // thousands separators), on the stack when it fits; every byte is ASCII.
    let mut buf = [0u8; 64];
    let owned: Vec<u8>;
    let bytes: &[u8] = if !grouped {
        field
    } else if field.len() <= buf.len() {
        let mut n = 0;
        for &b in field.iter().filter(|&&b| b != b',') {
            buf[n] = b;
            n += 1;
        }
        &buf[..n]
    } else {
        owned = field.iter().copied().filter(|&b| b != b',').collect();
        &owned
    };
    let text = std::str::from_utf8(bytes).map_err(|_| NumberProblem::Malformed)?;
    let v: f64 = text.parse().map_err(|_| NumberProblem::Malformed)?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(NumberProblem::Overflow)
    }
}

/// Parses a quantity such as "4.8 TB/s", "66.9 TFLOP/s", "12", "64 MiB",
/// "1.57 ms" into base units. A bare number is taken in base units. The
/// result is 0 or within the input range of [`crate::bounds`].
pub fn parse_quantity(input: &str, unit: Unit) -> Result<f64, ParseQuantityError> {
    let err = |reason: String| ParseQuantityError { input: input.to_string(), expected: unit.describe(), reason };
    let text = input.trim().replace('_', "");
    if text.is_empty() {
        return Err(err("it is empty".into()));
    }
    let split = text
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == ','
                || ((c == 'e' || c == 'E')
                    && text[i + 1..].chars().next().is_some_and(|n| n.is_ascii_digit() || n == '-' || n == '+'))
                || ((c == '-' || c == '+') && (i == 0 || matches!(text.as_bytes()[i - 1], b'e' | b'E'))))
        })
        .map(|(i, _)| i)
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let value = parse_number(number.as_bytes()).map_err(|p| {
        err(match p {
            NumberProblem::DecimalComma => format!(
                "{number:?} has a comma that is not a thousands separator (groups of three digits): write the decimal point as a point (1.5, not 1,5)"
            ),
            NumberProblem::Malformed => format!("{number:?} is not a number"),
            NumberProblem::Overflow => format!("{number:?} is out of range (larger than any quantity)"),
        })
    })?;
    let suffix = suffix.trim();
    let scale = if suffix.is_empty() {
        1.0
    } else {
        suffix_scale(suffix, unit)
            .ok_or_else(|| err(format!("unknown unit {suffix:?}; write e.g. {}", example_suffixes(unit))))?
    };
    let v = value * scale;
    match crate::bounds::input_range_problem(v) {
        None => Ok(v),
        Some(problem) => Err(err(problem)),
    }
}

fn example_suffixes(unit: Unit) -> &'static str {
    match unit {
        Unit::Flop => "FLOP, kFLOP, MFLOP, GFLOP, TFLOP",
        Unit::Byte => "B, kB, MB, GB, TB, KiB, MiB, GiB",
        Unit::Second => "ns, us, ms, s",
        Unit::FlopPerSecond => "FLOP/s, GFLOP/s, TFLOP/s (or GFLOPS)",
        Unit::OpPerSecond => "OP/s, TOP/s (or TOPS)",
        Unit::BytePerSecond => "B/s, GB/s, TB/s",
        Unit::FlopPerByte => "FLOP/B",
        Unit::InstPerSecond => "inst/s, Ginst/s, Tinst/s",
    }
}

fn si_prefix(p: &str) -> Option<f64> {
    match p {
        "" => Some(1.0),
        "k" | "K" => Some(1e3),
        "M" => Some(1e6),
        "G" | "g" => Some(1e9),
        "T" | "t" => Some(1e12),
        "P" | "p" => Some(1e15),
        "E" => Some(1e18),
        _ => None,
    }
}

fn suffix_scale(suffix: &str, unit: Unit) -> Option<f64> {
    match unit {
        Unit::Second => match suffix {
            "s" | "sec" | "second" | "seconds" => Some(1.0),
            "ms" | "msec" | "msecond" => Some(1e-3),
            "us" | "µs" | "usec" | "usecond" => Some(1e-6),
            "ns" | "nsec" | "nsecond" => Some(1e-9),
            _ => None,
        },
        Unit::Byte => {
            for (b, scale) in
                [("KiB", 1024.0), ("MiB", 1024.0f64.powi(2)), ("GiB", 1024.0f64.powi(3)), ("TiB", 1024.0f64.powi(4))]
            {
                if suffix == b {
                    return Some(scale);
                }
            }
            let stem = suffix
                .strip_suffix("bytes")
                .or_else(|| suffix.strip_suffix("byte"))
                .or_else(|| suffix.strip_suffix('B'))?;
            si_prefix(stem)
        }
        Unit::BytePerSecond => {
            let stem = suffix
                .strip_suffix("B/s")
                .or_else(|| suffix.strip_suffix("byte/s"))
                .or_else(|| suffix.strip_suffix("Bps"))?;
            si_prefix(stem)
        }
        Unit::Flop | Unit::FlopPerSecond => {
            let lower = suffix.to_ascii_lowercase();
            let stem_len = if unit == Unit::Flop {
                ["flops", "flop"].iter().find_map(|s| lower.strip_suffix(s).map(str::len))
            } else {
                ["flop/s", "flops"].iter().find_map(|s| lower.strip_suffix(s).map(str::len))
            }?;
            si_prefix(&suffix[..stem_len])
        }
        Unit::OpPerSecond => {
            let lower = suffix.to_ascii_lowercase();
            let stem_len = ["op/s", "ops"].iter().find_map(|s| lower.strip_suffix(s).map(str::len))?;
            si_prefix(&suffix[..stem_len])
        }
        Unit::InstPerSecond => {
            let lower = suffix.to_ascii_lowercase();
            let stem_len = ["inst/s", "ips"].iter().find_map(|s| lower.strip_suffix(s).map(str::len))?;
            si_prefix(&suffix[..stem_len])
        }
        Unit::FlopPerByte => match suffix.to_ascii_lowercase().as_str() {
            "flop/b" | "flop/byte" | "flops/byte" | "flop per byte" => Some(1.0),
            _ => None,
        },
    }
}

/// A quantity and its unit, printed with [`format_si`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    /// The number, in the base unit (bytes or FLOP/s, never GB or TFLOP/s).
    pub value: f64,
    /// Its unit.
    pub unit: Unit,
}

impl Quantity {
    /// A quantity of `value` `unit`.
    pub fn new(value: f64, unit: Unit) -> Self {
        Quantity { value, unit }
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_si(self.value, self.unit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_datasheets() {
        assert_eq!(format_si(8140.8e9, Unit::FlopPerSecond), "8141 GFLOP/s");
        assert_eq!(format_si(66.9e12, Unit::FlopPerSecond), "66.9 TFLOP/s");
        assert_eq!(format_si(4814.3e9, Unit::BytePerSecond), "4814 GB/s");
        assert_eq!(format_si(320.064e9, Unit::BytePerSecond), "320 GB/s");
        assert_eq!(format_si(989.4e12, Unit::FlopPerSecond), "989 TFLOP/s");
        assert_eq!(format_si(40e9, Unit::FlopPerSecond), "40.0 GFLOP/s");
        assert_eq!(format_si(12.0, Unit::Byte), "12 B");
        assert_eq!(format_si(2.5, Unit::Flop), "2.50 FLOP");
    }

    #[test]
    fn parses_vendor_spellings() {
        let tbs = parse_quantity("4.8 TB/s", Unit::BytePerSecond).unwrap();
        assert!((tbs - 4.8e12).abs() < 1.0);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
        assert!(close(parse_quantity("66.9 TFLOP/s", Unit::FlopPerSecond).unwrap(), 66.9e12));
        assert_eq!(parse_quantity("20 Tflop/s", Unit::FlopPerSecond).unwrap(), 20e12);
        assert_eq!(parse_quantity("1000 GFLOPS", Unit::FlopPerSecond).unwrap(), 1e12);
        assert_eq!(parse_quantity("100GB/s", Unit::BytePerSecond).unwrap(), 100e9);
        assert_eq!(parse_quantity("1979 TOP/s", Unit::OpPerSecond).unwrap(), 1979e12);
        assert_eq!(format_si(1979e12, Unit::OpPerSecond), "1979 TOP/s");
        assert_eq!(parse_quantity("528 Ginst/s", Unit::InstPerSecond).unwrap(), 528e9);
        assert_eq!(format_si(528e9, Unit::InstPerSecond), "528 Ginst/s");
        assert_eq!(parse_quantity("12", Unit::Byte).unwrap(), 12.0);
        assert_eq!(parse_quantity("64 MiB", Unit::Byte).unwrap(), 64.0 * 1024.0 * 1024.0);
        assert_eq!(parse_quantity("3,209,127,424", Unit::Byte).unwrap(), 3209127424.0);
        assert_eq!(parse_quantity("1.57 ms", Unit::Second).unwrap(), 1.57e-3);
        assert_eq!(parse_quantity("2e9", Unit::Flop).unwrap(), 2e9);
        assert_eq!(parse_quantity("2 GFLOP", Unit::Flop).unwrap(), 2e9);
    }

    #[test]
    fn negative_zero_never_prints() {
        for v in [-0.0, -1e-9, -0.0004, -1e-300] {
            for text in [
                format_si(v, Unit::FlopPerSecond),
                format_si(v, Unit::Byte),
                format_si(v, Unit::FlopPerByte),
                format_seconds(v),
                format_percent(v),
                format_plain(v),
                fixed(v, 1),
                signed(v, 1),
            ] {
                let number = text.split(' ').next().unwrap().trim_end_matches('%');
                let zero = number.trim_start_matches('-').chars().all(|c| c == '0' || c == '.');
                assert!(!(number.starts_with('-') && zero), "{v} printed as {text:?}");
            }
        }
        assert_eq!(signed(3.21, 1), "+3.2");
        assert_eq!(signed(-1.04, 1), "-1.0");
        assert_eq!(signed(-0.01, 1), "0.0");
    }

    #[test]
    fn rejects_garbage_with_a_reason() {
        let e = parse_quantity("4.8 TX/s", Unit::BytePerSecond).unwrap_err();
        assert!(e.to_string().contains("unknown unit \"TX/s\""), "{e}");
        assert!(parse_quantity("fast", Unit::FlopPerSecond).is_err());
        assert!(parse_quantity("", Unit::Byte).is_err());
    }

    #[test]
    fn quantities_outside_the_input_range_are_refused() {
        let e = parse_quantity("1e307", Unit::Flop).unwrap_err().to_string();
        assert!(e.contains("\"1e307\"") && e.contains("above"), "{e}");
        assert!(parse_quantity("1e-320 s", Unit::Second).is_err());
        assert!(parse_quantity("1e28 TB/s", Unit::BytePerSecond).is_err());
        assert_eq!(parse_quantity("0", Unit::Byte).unwrap(), 0.0);
    }

    #[test]
    fn format_si_takes_the_largest_prefix_that_keeps_the_mantissa_at_ten_or_more() {
        assert_eq!(format_si(10e9, Unit::FlopPerSecond), "10.0 GFLOP/s");
        assert_eq!(format_si(9.99e9, Unit::FlopPerSecond), "9990 MFLOP/s");
        assert_eq!(format_si(100e9, Unit::FlopPerSecond), "100 GFLOP/s");
        assert_eq!(format_si(99.5e9, Unit::FlopPerSecond), "99.5 GFLOP/s");
        assert_eq!(format_si(20e18, Unit::FlopPerSecond), "20.0 EFLOP/s");
        assert_eq!(format_si(20e21, Unit::FlopPerSecond), "20000 EFLOP/s");
        assert_eq!(format_si(9.5, Unit::FlopPerSecond), "9.50 FLOP/s");
        assert_eq!(format_si(-150e9, Unit::BytePerSecond), "-150 GB/s");
        assert_eq!(format_si(-15e9, Unit::BytePerSecond), "-15.0 GB/s");
        // Whole counts under ten print as integers; rates and larger counts
        // keep their decimals.
        assert_eq!(format_si(3.0, Unit::Byte), "3 B");
        assert_eq!(format_si(3.0, Unit::Flop), "3 FLOP");
        assert_eq!(format_si(3.0, Unit::FlopPerSecond), "3.00 FLOP/s");
        assert_eq!(format_si(1.5, Unit::Byte), "1.50 B");
        assert_eq!(format_si(12e9, Unit::Byte), "12.0 GB");
        assert_eq!(format_si(f64::INFINITY, Unit::FlopPerSecond), "n/a FLOP/s");
        assert_eq!(format_si(f64::NAN, Unit::BytePerSecond), "n/a B/s");
        // Durations and intensities have their own forms.
        assert_eq!(format_si(1.5e-3, Unit::Second), "1.500 ms");
        assert_eq!(format_si(25.4, Unit::FlopPerByte), "25.4 FLOP/B");
        assert_eq!(format_si(4096.0, Unit::FlopPerByte), "4096 FLOP/B");
        assert_eq!(Quantity::new(4.8e12, Unit::BytePerSecond).to_string(), "4800 GB/s");
        assert_eq!(Quantity::new(2e9, Unit::Flop).to_string(), "2000 MFLOP");
    }

    #[test]
    fn every_unit_prints_its_symbol() {
        let symbols: Vec<&str> = Unit::ALL.iter().map(|u| u.symbol()).collect();
        assert_eq!(symbols, ["FLOP", "B", "s", "FLOP/s", "OP/s", "B/s", "FLOP/B", "inst/s"]);
    }

    #[test]
    fn durations_print_in_the_unit_a_kernel_writer_expects() {
        assert_eq!(format_seconds(2.0), "2.000 s");
        assert_eq!(format_seconds(150.0), "150.0 s");
        assert_eq!(format_seconds(1.5e-3), "1.500 ms");
        assert_eq!(format_seconds(15e-3), "15.00 ms");
        assert_eq!(format_seconds(150e-3), "150.0 ms");
        assert_eq!(format_seconds(830e-6), "830.0 us");
        assert_eq!(format_seconds(2e-6), "2.000 us");
        assert_eq!(format_seconds(5e-9), "5.000 ns");
        assert_eq!(format_seconds(-2e-3), "-2.000 ms");
        assert_eq!(format_seconds(-150e-3), "-150.0 ms");
        assert_eq!(format_seconds(-15e-3), "-15.00 ms");
        assert_eq!(format_seconds(0.0), "0 s");
        assert_eq!(format_seconds(f64::INFINITY), "n/a s");
        assert_eq!(format_seconds(f64::NAN), "n/a s");
    }

    #[test]
    fn plain_numbers_keep_about_three_significant_digits() {
        assert_eq!(format_plain(0.0), "0");
        assert_eq!(format_plain(4096.0), "4096");
        assert_eq!(format_plain(25.4), "25.4");
        assert_eq!(format_plain(2.5), "2.50");
        assert_eq!(format_plain(0.083), "0.083");
        assert_eq!(format_plain(0.005), "5.00e-3");
        assert_eq!(format_plain(-4096.0), "-4096");
        assert_eq!(format_plain(-25.4), "-25.4");
        assert_eq!(format_plain(-2.5), "-2.50");
        assert_eq!(format_plain(-0.083), "-0.083");
        assert_eq!(format_plain(f64::INFINITY), "n/a");
        assert_eq!(format_plain(f64::NAN), "n/a");
    }

    #[test]
    fn percentages_have_one_decimal_below_ten_and_none_from_ten() {
        assert_eq!(format_percent(9.5), "9.5%");
        assert_eq!(format_percent(10.0), "10%");
        assert_eq!(format_percent(99.6), "100%");
        assert_eq!(format_percent(-5.0), "-5.0%");
        assert_eq!(format_percent(-50.0), "-50%");
        assert_eq!(format_percent(f64::NAN), "n/a");
        assert_eq!(format_percent(f64::INFINITY), "n/a");
    }

    #[test]
    fn fixed_and_signed_keep_the_sign_of_what_does_not_round_to_zero() {
        assert_eq!(fixed(2.345, 1), "2.3");
        assert_eq!(fixed(-2.345, 1), "-2.3");
        assert_eq!(fixed(-0.04, 1), "0.0");
        assert_eq!(fixed(-10.0, 0), "-10");
        assert_eq!(signed(0.0, 1), "0.0");
        assert_eq!(signed(0.04, 1), "0.0");
        assert_eq!(signed(10.0, 0), "+10");
        assert_eq!(signed(-10.0, 0), "-10");
    }

    #[test]
    fn every_suffix_of_each_unit_parses_to_its_scale() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
        let cases: &[(&str, Unit, f64)] = &[
            ("2 s", Unit::Second, 2.0),
            ("2 sec", Unit::Second, 2.0),
            ("2 seconds", Unit::Second, 2.0),
            ("3 ms", Unit::Second, 3e-3),
            ("3 msec", Unit::Second, 3e-3),
            ("830 us", Unit::Second, 830e-6),
            ("830 µs", Unit::Second, 830e-6),
            ("830 usec", Unit::Second, 830e-6),
            ("5 ns", Unit::Second, 5e-9),
            ("5 nsec", Unit::Second, 5e-9),
            ("1 KiB", Unit::Byte, 1024.0),
            ("4 GiB", Unit::Byte, 4.0 * 1024.0 * 1024.0 * 1024.0),
            ("2 TiB", Unit::Byte, 2.0 * 1024f64.powi(4)),
            ("3 kB", Unit::Byte, 3e3),
            ("3 KB", Unit::Byte, 3e3),
            ("2 MB", Unit::Byte, 2e6),
            ("2 TB", Unit::Byte, 2e12),
            ("2 PB", Unit::Byte, 2e15),
            ("2 EB", Unit::Byte, 2e18),
            ("5 bytes", Unit::Byte, 5.0),
            ("5 byte", Unit::Byte, 5.0),
            ("5 B", Unit::Byte, 5.0),
            ("320 GB/s", Unit::BytePerSecond, 320e9),
            ("1 Gbyte/s", Unit::BytePerSecond, 1e9),
            ("2 GBps", Unit::BytePerSecond, 2e9),
            ("7 B/s", Unit::BytePerSecond, 7.0),
            ("2 GFLOP", Unit::Flop, 2e9),
            ("3 kflops", Unit::Flop, 3e3),
            ("3 Mflop", Unit::Flop, 3e6),
            ("5 GFLOPS", Unit::FlopPerSecond, 5e9),
            ("5 gflop/s", Unit::FlopPerSecond, 5e9),
            ("5 tflop/s", Unit::FlopPerSecond, 5e12),
            ("5 pflop/s", Unit::FlopPerSecond, 5e15),
            ("1979 TOPS", Unit::OpPerSecond, 1979e12),
            ("3 Gop/s", Unit::OpPerSecond, 3e9),
            ("5 Gips", Unit::InstPerSecond, 5e9),
            ("2 Tinst/s", Unit::InstPerSecond, 2e12),
            ("25.4 FLOP/B", Unit::FlopPerByte, 25.4),
            ("3 flop/byte", Unit::FlopPerByte, 3.0),
            ("3 flops/byte", Unit::FlopPerByte, 3.0),
            ("2 flop per byte", Unit::FlopPerByte, 2.0),
        ];
        for &(text, unit, want) in cases {
            let got = parse_quantity(text, unit).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!(close(got, want), "{text}: {got} (want {want})");
        }
        for (text, unit) in [
            ("2 min", Unit::Second),
            ("2 KIB", Unit::Byte),
            ("2 XB", Unit::Byte),
            ("2 GB", Unit::BytePerSecond),
            ("2 GB/s", Unit::FlopPerSecond),
            ("2 GFLOP/s", Unit::Flop),
            ("2 GFLOP", Unit::FlopPerSecond),
            ("2 Xflop", Unit::Flop),
            ("2 Top", Unit::OpPerSecond),
            ("2 Ginst", Unit::InstPerSecond),
            ("2 FLOP/s", Unit::FlopPerByte),
        ] {
            assert!(parse_quantity(text, unit).is_err(), "{text} read as {unit:?}");
        }
    }

    #[test]
    fn numbers_with_exponents_signs_and_separators_parse() {
        assert_eq!(parse_quantity("1.5e-3 s", Unit::Second).unwrap(), 1.5e-3);
        assert_eq!(parse_quantity("2E+3", Unit::Flop).unwrap(), 2e3);
        assert_eq!(parse_quantity("2e3GB", Unit::Byte).unwrap(), 2e12);
        // An E followed by a letter is the exa prefix, not an exponent.
        assert_eq!(parse_quantity("2EFLOP/s", Unit::FlopPerSecond).unwrap(), 2e18);
        assert_eq!(parse_quantity("-5", Unit::Flop).unwrap(), -5.0);
        assert_eq!(parse_quantity("+5", Unit::Flop).unwrap(), 5.0);
        assert_eq!(parse_quantity("1_000", Unit::Flop).unwrap(), 1000.0);
        assert_eq!(parse_quantity("1,000.5", Unit::Flop).unwrap(), 1000.5);
        assert_eq!(parse_quantity(" 12 ", Unit::Byte).unwrap(), 12.0);
        // A sign inside the number ends it: the rest is read as the unit.
        let e = parse_quantity("5-3", Unit::Flop).unwrap_err();
        assert!(e.reason.starts_with("unknown unit \"-3\""), "{}", e.reason);
    }

    #[test]
    fn a_refused_quantity_names_the_input_what_was_expected_and_why() {
        let e = parse_quantity("1e999 GB/s", Unit::BytePerSecond).unwrap_err();
        assert_eq!(e.input, "1e999 GB/s");
        assert_eq!(e.expected, "a bandwidth such as \"4.8 TB/s\" or \"320 GB/s\"");
        assert_eq!(e.reason, "\"1e999\" is out of range (larger than any quantity)");
        let e = parse_quantity("1.2.3", Unit::Flop).unwrap_err();
        assert_eq!(e.reason, "\"1.2.3\" is not a number");
        assert_eq!(e.expected, "a FLOP count such as \"2.1 GFLOP\" or \"4096\"");
        let e = parse_quantity("   ", Unit::Second).unwrap_err();
        assert_eq!(e.reason, "it is empty");
        let e = parse_quantity("3 XB/s", Unit::BytePerSecond).unwrap_err();
        assert_eq!(e.reason, "unknown unit \"XB/s\"; write e.g. B/s, GB/s, TB/s");
        let e = parse_quantity("3 lightyears", Unit::Byte).unwrap_err();
        assert_eq!(e.reason, "unknown unit \"lightyears\"; write e.g. B, kB, MB, GB, TB, KiB, MiB, GiB");
        assert!(e.to_string().starts_with("cannot read \"3 lightyears\" as a byte count such as"), "{e}");
    }

    /// Hardening (issue 27), item 3: one grammar of numbers; a comma is a
    /// thousands separator only between groups of three digits.
    #[test]
    fn numbers_have_one_grammar() {
        for (text, v) in
            [("3,209,127,424", 3209127424.0), ("1,000.5", 1000.5), ("-12", -12.0), (".5", 0.5), ("1e3", 1e3)]
        {
            assert_eq!(parse_number(text.as_bytes()), Ok(v), "{text}");
        }
        for text in ["58784,5", "1.234,5", "0,5", "1,00", "1234,567", ",5", "1,000,00"] {
            assert_eq!(parse_number(text.as_bytes()), Err(NumberProblem::DecimalComma), "{text}");
        }
        for text in ["1.2.3", "1e", "e5", "+", ".", "1 2"] {
            assert_eq!(parse_number(text.as_bytes()), Err(NumberProblem::Malformed), "{text}");
        }
        assert_eq!(parse_number(b"1e400"), Err(NumberProblem::Overflow));
        let e = parse_quantity("1,5 TB/s", Unit::BytePerSecond).unwrap_err();
        assert!(e.reason.contains("comma"), "{}", e.reason);
        assert_eq!(parse_quantity("1,500 GB/s", Unit::BytePerSecond).unwrap(), 1.5e12);
    }

    proptest::proptest! {
        /// Every finite number written plainly, in exponent form or with
        /// thousands separators reads back as itself; a decimal comma
        /// never reads as a number.
        #[test]
        fn the_number_grammar_reads_what_is_written(v in -1e300f64..1e300, n in 0u64..u64::MAX / 2, frac in 1u32..99) {
            proptest::prop_assert_eq!(parse_number(v.to_string().as_bytes()), Ok(v));
            proptest::prop_assert_eq!(parse_number(format!("{v:e}").as_bytes()), Ok(v));
            let digits = n.to_string();
            let mut grouped = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i) % 3 == 0 {
                    grouped.push(',');
                }
                grouped.push(c);
            }
            proptest::prop_assert_eq!(parse_number(grouped.as_bytes()), Ok(n as f64));
            // One or two digits after a comma: a decimal comma, refused.
            let comma = format!("{n},{frac}");
            proptest::prop_assert_eq!(parse_number(comma.as_bytes()), Err(NumberProblem::DecimalComma));
        }
    }
}
