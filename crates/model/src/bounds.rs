//! The range every number must keep to enter a document or a chart.
//!
//! JSON has no NaN or infinity: serde writes them as `null`, and a required
//! field that reads `null` makes the document unreadable by the next
//! command. Huge or tiny magnitudes (1e308, 1e-320) are finite but
//! overflow or underflow the moment a rate, a ratio or a chart scale is
//! computed from them. So there are two ranges:
//!
//! - an **input** (a counter read from a CSV, a figure given on the command
//!   line or in a file) is 0 or has a magnitude in
//!   [[`MIN_INPUT`], [`MAX_INPUT`]]; no GPU quantity comes near either end
//!   (1e30 bytes is a million times all the memory ever made);
//! - a **document** number (inputs and what is derived from them: rates,
//!   intensities, percentages) is 0 or has a magnitude in
//!   [[`MIN_DOCUMENT`], [`MAX_DOCUMENT`]], which a few products and
//!   quotients of inputs cannot leave.
//!
//! [`check_numbers`] walks any serialisable value and names the first
//! number out of range by its path (`kernels[3].kernel.flops.fp32`).

use serde::ser::{self, Serialize};

/// Largest magnitude of an input quantity.
pub const MAX_INPUT: f64 = 1e30;
/// Smallest non-zero magnitude of an input quantity.
pub const MIN_INPUT: f64 = 1e-30;
/// Largest magnitude of any number in a document.
pub const MAX_DOCUMENT: f64 = 1e100;
/// Smallest non-zero magnitude of any number in a document.
pub const MIN_DOCUMENT: f64 = 1e-100;

fn within(v: f64, min: f64, max: f64) -> bool {
    v.is_finite() && (v == 0.0 || (v.abs() >= min && v.abs() <= max))
}

/// An input quantity: finite, and 0 or within [`MIN_INPUT`, `MAX_INPUT`].
// Inlined: the capture reader checks every value it reads.
#[inline]
pub fn input_in_range(v: f64) -> bool {
    within(v, MIN_INPUT, MAX_INPUT)
}

/// A document number: finite, and 0 or within [`MIN_DOCUMENT`, `MAX_DOCUMENT`].
pub fn document_in_range(v: f64) -> bool {
    within(v, MIN_DOCUMENT, MAX_DOCUMENT)
}

/// Says why an input quantity is out of range, for messages.
pub fn input_range_problem(v: f64) -> Option<String> {
    if input_in_range(v) {
        None
    } else if !v.is_finite() {
        Some("it is not a finite number".into())
    } else if v.abs() > MAX_INPUT {
        Some(format!("its magnitude is above {MAX_INPUT:e}, the largest this tool accepts"))
    } else {
        Some(format!("its magnitude is below {MIN_INPUT:e}, the smallest non-zero value this tool accepts"))
    }
}

/// A number of a document outside the document range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path} = {value}: {}", describe(*value))]
pub struct OutOfRange {
    /// Where it is: `kernels[0].total_flops`.
    pub path: String,
    /// The value found there.
    pub value: f64,
}

fn describe(v: f64) -> String {
    if !v.is_finite() {
        "not a finite number (an input value too large or too small overflowed)".into()
    } else {
        format!("outside the range a document may hold (0, or a magnitude from {MIN_DOCUMENT:e} to {MAX_DOCUMENT:e})")
    }
}

/// Checks every floating-point number in `value` against the document
/// range; the error names the first one out of range by its path.
pub fn check_numbers<T: Serialize + ?Sized>(value: &T) -> Result<(), OutOfRange> {
    let mut w = Walker { path: Vec::new(), found: None };
    let _ = value.serialize(&mut w);
    match w.found {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

enum Step {
    Field(&'static str),
    Index(usize),
    Key(String),
}

struct Walker {
    path: Vec<Step>,
    found: Option<OutOfRange>,
}

impl Walker {
    fn path(&self) -> String {
        let mut s = String::new();
        for step in &self.path {
            match step {
                Step::Field(f) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(f);
                }
                Step::Index(i) => s.push_str(&format!("[{i}]")),
                Step::Key(k) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(k);
                }
            }
        }
        if s.is_empty() {
            "(value)".into()
        } else {
            s
        }
    }

    fn number(&mut self, v: f64) -> Result<(), Stop> {
        if document_in_range(v) {
            Ok(())
        } else {
            self.found = Some(OutOfRange { path: self.path(), value: v });
            Err(Stop)
        }
    }
}

/// Ends the walk at the first number out of range.
#[derive(Debug)]
struct Stop;

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stop")
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Stop
    }
}

/// Map keys as text, for paths (`flops.fp32`).
struct KeyText(String);

macro_rules! key_scalar {
    ($($name:ident: $t:ty),*) => {
        $(fn $name(self, v: $t) -> Result<(), Stop> {
            self.0 = v.to_string();
            Ok(())
        })*
    };
}

impl ser::Serializer for &mut KeyText {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = ser::Impossible<(), Stop>;
    type SerializeTuple = ser::Impossible<(), Stop>;
    type SerializeTupleStruct = ser::Impossible<(), Stop>;
    type SerializeTupleVariant = ser::Impossible<(), Stop>;
    type SerializeMap = ser::Impossible<(), Stop>;
    type SerializeStruct = ser::Impossible<(), Stop>;
    type SerializeStructVariant = ser::Impossible<(), Stop>;
    key_scalar!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_f32: f32,
        serialize_f64: f64, serialize_char: char, serialize_str: &str);
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Stop> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Stop> {
        self.0 = variant.to_string();
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<(), Stop> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        self.0 = variant.to_string();
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Stop> {
        Err(Stop)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Stop> {
        Err(Stop)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Stop> {
        Err(Stop)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Stop> {
        Err(Stop)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Stop> {
        Err(Stop)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Stop> {
        Err(Stop)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Stop> {
        Err(Stop)
    }
}

macro_rules! ignore_scalar {
    ($($name:ident: $t:ty),*) => {
        $(fn $name(self, _: $t) -> Result<(), Stop> {
            Ok(())
        })*
    };
}

impl<'a> ser::Serializer for &'a mut Walker {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Map<'a>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;
    ignore_scalar!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
        serialize_char: char, serialize_str: &str, serialize_bytes: &[u8]);
    /// Not a format people read: a document's English (a diagnosis's
    /// `text`, made from its codes and numbers when written) is left out,
    /// since it holds no number of its own and making it for 100,000
    /// kernels costs seconds.
    fn is_human_readable(&self) -> bool {
        false
    }
    fn serialize_f32(self, v: f32) -> Result<(), Stop> {
        self.number(v as f64)
    }
    fn serialize_f64(self, v: f64) -> Result<(), Stop> {
        self.number(v)
    }
    fn serialize_none(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Stop> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<(), Stop> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Stop> {
        self.path.push(Step::Field(variant));
        v.serialize(&mut *self)?;
        self.path.pop();
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'a>, Stop> {
        Ok(Seq { w: self, index: 0 })
    }
    fn serialize_tuple(self, _: usize) -> Result<Seq<'a>, Stop> {
        Ok(Seq { w: self, index: 0 })
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Seq<'a>, Stop> {
        Ok(Seq { w: self, index: 0 })
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Seq<'a>, Stop> {
        Ok(Seq { w: self, index: 0 })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Map<'a>, Stop> {
        Ok(Map { w: self, key: String::new() })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
}

struct Seq<'a> {
    w: &'a mut Walker,
    index: usize,
}

impl Seq<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Stop> {
        self.w.path.push(Step::Index(self.index));
        self.index += 1;
        v.serialize(&mut *self.w)?;
        self.w.path.pop();
        Ok(())
    }
}

impl ser::SerializeSeq for Seq<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Stop> {
        self.element(v)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeTuple for Seq<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Stop> {
        self.element(v)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for Seq<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Stop> {
        self.element(v)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeTupleVariant for Seq<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Stop> {
        self.element(v)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

struct Map<'a> {
    w: &'a mut Walker,
    key: String,
}

impl ser::SerializeMap for Map<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Stop> {
        let mut text = KeyText(String::new());
        let _ = k.serialize(&mut text);
        self.key = text.0;
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Stop> {
        self.w.path.push(Step::Key(std::mem::take(&mut self.key)));
        v.serialize(&mut *self.w)?;
        self.w.path.pop();
        Ok(())
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

fn field<T: Serialize + ?Sized>(w: &mut Walker, key: &'static str, v: &T) -> Result<(), Stop> {
    w.path.push(Step::Field(key));
    v.serialize(&mut *w)?;
    w.path.pop();
    Ok(())
}

impl ser::SerializeStruct for &mut Walker {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), Stop> {
        field(self, key, v)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeStructVariant for &mut Walker {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), Stop> {
        field(self, key, v)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;

    use super::*;

    #[derive(Serialize)]
    struct Inner {
        xs: Vec<f64>,
        m: BTreeMap<String, f64>,
        o: Option<f64>,
    }

    #[derive(Serialize)]
    struct Outer {
        name: String,
        inner: Vec<Inner>,
    }

    fn doc(x: f64) -> Outer {
        Outer {
            name: "n".into(),
            inner: vec![
                Inner { xs: vec![1.0], m: BTreeMap::new(), o: None },
                Inner { xs: vec![0.0, 2.0], m: [("fp32".to_string(), x)].into(), o: Some(1.0) },
            ],
        }
    }

    #[test]
    fn the_first_number_out_of_range_is_named_by_its_path() {
        assert!(check_numbers(&doc(1e12)).is_ok());
        assert!(check_numbers(&doc(0.0)).is_ok());
        for bad in [f64::NAN, f64::INFINITY, 1e308, -1e200, 1e-320] {
            let e = check_numbers(&doc(bad)).unwrap_err();
            assert_eq!(e.path, "inner[1].m.fp32", "{bad}");
        }
    }

    #[test]
    fn input_range() {
        assert!(input_in_range(0.0) && input_in_range(1e30) && input_in_range(-1e-30));
        assert!(!input_in_range(1e31) && !input_in_range(1e-31) && !input_in_range(f64::NAN));
        assert!(input_range_problem(1e308).unwrap().contains("above"));
        assert!(input_range_problem(1e-320).unwrap().contains("below"));
    }
}
