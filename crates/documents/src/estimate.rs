//! Paper estimates: kernels described by their FLOPs and bytes, before they
//! ever run (seed 000's `oi.py`, seed 001's and 002's calculators).
//!
//! Two spellings, one meaning:
//!
//! ```text
//! --kernel "c = a + b: flops=1 bytes=12"
//! --kernel "dgemm: flops=2e9 bytes=24e6 kind=fp64 time=1.2ms"
//! ```
//!
//! ```toml
//! [[kernel]]
//! name = "c = a + b"
//! flops = 1          # per element, or in total
//! bytes = 12         # DRAM bytes; or bytes = { dram = 12, l2 = 24 }
//! kind = "fp32"      # optional, default fp32
//! elements = 33554432 # optional: multiplies flops and bytes
//! time = "1.57 ms"   # optional: makes the kernel a measured point
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

use roofline_model::Kernel;
use roofline_model::{parse_quantity, Unit};
use roofline_model::{FlopKind, MemLevel, Origin};

/// A kernel description could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EstimateError {
    #[error("kernel {spec:?}: {problem}; write it as \"NAME: flops=F bytes=B [kind=fp32] [time=1.5ms] [elements=N]\"")]
    /// A `--kernel` argument that does not parse.
    Spec {
        /// The argument.
        spec: String,
        /// What is wrong with it.
        problem: String,
    },
    #[error("{input}: {message}")]
    /// A kernels file that is not valid TOML of the expected shape.
    Toml {
        /// The file.
        input: String,
        /// The TOML reader's message.
        message: String,
    },
    #[error("{input}: kernel {name:?}: {problem}")]
    /// A kernel of a file with a bad field.
    Field {
        /// The file.
        input: String,
        /// The kernel's name.
        name: String,
        /// What is wrong.
        problem: String,
    },
}

/// Parses one `--kernel` argument.
pub fn parse_kernel_spec(spec: &str) -> Result<Kernel, EstimateError> {
    let fail = |problem: String| EstimateError::Spec { spec: spec.to_string(), problem };
    let (name, rest) = spec.rsplit_once(':').ok_or_else(|| fail("no ':' between the name and the figures".into()))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(fail("the name before ':' is empty".into()));
    }
    let mut fields = BTreeMap::new();
    for pair in rest.split_whitespace() {
        let (k, v) = pair.split_once('=').ok_or_else(|| fail(format!("{pair:?} is not key=value")))?;
        // A key given twice would silently win one way or the other.
        if let Some(old) = fields.insert(k.trim().to_ascii_lowercase(), v.trim().to_string()) {
            return Err(fail(format!("{k} is given twice ({k}={old} and {pair}); give it once")));
        }
    }
    for (a, b) in [("kind", "precision"), ("bytes", "dram"), ("elements", "n"), ("time", "duration")] {
        if fields.contains_key(a) && fields.contains_key(b) {
            return Err(fail(format!("{a}= and {b}= are two names for one figure; give one of them")));
        }
    }
    let get = |k: &str| fields.get(k).map(String::as_str);
    let kind = match get("kind").or(get("precision")) {
        Some(s) => FlopKind::from_key(s).ok_or_else(|| fail(format!("unknown kind {s:?}; known: {}", kinds())))?,
        None => FlopKind::Fp32,
    };
    let flops = get("flops").ok_or_else(|| fail("flops=... is missing".into()))?;
    let flops = positive(parse_quantity(flops, Unit::Flop).map_err(|e| fail(e.to_string()))?, "flops").map_err(fail)?;
    let mut bytes = BTreeMap::new();
    for (key, level) in
        [("bytes", MemLevel::Dram), ("dram", MemLevel::Dram), ("l2", MemLevel::L2), ("l1", MemLevel::L1)]
    {
        if let Some(v) = get(key) {
            let b = parse_quantity(v, Unit::Byte).map_err(|e| fail(e.to_string()))?;
            bytes.insert(level, positive(b, key).map_err(fail)?);
        }
    }
    if bytes.is_empty() {
        return Err(fail("bytes=... is missing".into()));
    }
    let elements = match get("elements").or(get("n")) {
        Some(v) => {
            positive(parse_quantity(v, Unit::Flop).map_err(|e| fail(e.to_string()))?, "elements").map_err(fail)?
        }
        None => 1.0,
    };
    let time = match get("time").or(get("duration")) {
        Some(v) => {
            Some(positive(parse_quantity(v, Unit::Second).map_err(|e| fail(e.to_string()))?, "time").map_err(fail)?)
        }
        None => None,
    };
    for k in fields.keys() {
        if !["kind", "precision", "flops", "bytes", "dram", "l2", "l1", "elements", "n", "time", "duration"]
            .contains(&k.as_str())
        {
            return Err(fail(format!("unknown key {k:?}")));
        }
    }
    let flops = times_elements(flops, elements, "flops").map_err(fail)?;
    let mut total_bytes = BTreeMap::new();
    for (level, b) in bytes {
        total_bytes.insert(level, times_elements(b, elements, level.key()).map_err(fail)?);
    }
    Ok(build(name, kind, flops, total_bytes, time))
}

fn kinds() -> String {
    FlopKind::ALL.iter().map(|k| k.key()).collect::<Vec<_>>().join(", ")
}

fn positive(v: f64, what: &str) -> Result<f64, String> {
    if !(v > 0.0 && v.is_finite()) {
        return Err(format!("{what} must be greater than zero, got {}", roofline_model::format_number(v)));
    }
    match roofline_model::input_range_problem(v) {
        None => Ok(v),
        Some(problem) => Err(format!("{what} = {}: {problem}", roofline_model::format_number(v))),
    }
}

/// A per-element figure times the element count, still within range.
fn times_elements(v: f64, elements: f64, what: &str) -> Result<f64, String> {
    let total = v * elements;
    match roofline_model::input_range_problem(total) {
        None => Ok(total),
        Some(problem) => Err(format!("{what} x elements = {v:e} x {elements:e} = {total:e}: {problem}")),
    }
}

fn build(name: &str, kind: FlopKind, flops: f64, bytes: BTreeMap<MemLevel, f64>, time: Option<f64>) -> Kernel {
    let mut k = Kernel::named(name, Origin::User);
    k.flops.insert(kind, flops);
    k.bytes = bytes;
    k.duration_s = time;
    k
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlFile {
    #[serde(default)]
    machine: Option<MachineSpec>,
    #[serde(default)]
    kernel: Vec<TomlKernel>,
}

/// An optional `[machine]` table in a kernels file, so that a file of
/// estimates can say which machine it was written for:
/// `gpu = "t4"`, or `peak = "1000 GFLOP/s"` and `bandwidth = "100 GB/s"`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    /// Name for the machine in reports, with `peak` and `bandwidth`
    /// (default: the two figures in words).
    #[serde(default)]
    pub name: Option<String>,
    /// A GPU of the built-in table (`--gpu` key or alias, "h200").
    #[serde(default)]
    pub gpu: Option<String>,
    /// Compute peak as text ("1000 GFLOP/s").
    #[serde(default)]
    pub peak: Option<String>,
    /// DRAM bandwidth as text ("100 GB/s").
    #[serde(default)]
    pub bandwidth: Option<String>,
    /// The FLOP kind of `peak` (default fp32).
    #[serde(default)]
    pub kind: Option<String>,
}

/// The kernels of a file and the machine it names, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelsFile {
    /// The `[machine]` table, when the file has one.
    pub machine: Option<MachineSpec>,
    /// The kernels, in file order.
    pub kernels: Vec<Kernel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlKernel {
    name: String,
    flops: toml::Value,
    bytes: toml::Value,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    elements: Option<toml::Value>,
    #[serde(default)]
    time: Option<toml::Value>,
}

fn number(v: &toml::Value, unit: Unit) -> Result<f64, String> {
    match v {
        toml::Value::Integer(i) => Ok(*i as f64),
        toml::Value::Float(f) => Ok(*f),
        toml::Value::String(s) => parse_quantity(s, unit).map_err(|e| e.to_string()),
        other => Err(format!("expected a number or a string with a unit, got {}", other.type_str())),
    }
}

/// Parses a TOML file of `[[kernel]]` tables. `input` names the file in errors.
#[cfg(test)]
fn parse_kernels_toml(text: &str, input: &str) -> Result<Vec<Kernel>, EstimateError> {
    parse_kernels_file(text, input).map(|f| f.kernels)
}

/// Parses a TOML file of `[[kernel]]` tables and its optional `[machine]`.
pub fn parse_kernels_file(text: &str, input: &str) -> Result<KernelsFile, EstimateError> {
    let file: TomlFile = toml::from_str(text).map_err(|e| EstimateError::Toml {
        input: input.into(),
        message: format!("{}expected [[kernel]] tables with name, flops, bytes (see `roofline model --help`)", e),
    })?;
    if file.kernel.is_empty() {
        return Err(EstimateError::Toml {
            input: input.into(),
            message: "no [[kernel]] table found; add one with name, flops and bytes".into(),
        });
    }
    let mut out = Vec::new();
    for k in file.kernel {
        let fail = |problem: String| EstimateError::Field { input: input.into(), name: k.name.clone(), problem };
        let kind = match &k.kind {
            Some(s) => FlopKind::from_key(s).ok_or_else(|| fail(format!("unknown kind {s:?}; known: {}", kinds())))?,
            None => FlopKind::Fp32,
        };
        let flops =
            positive(number(&k.flops, Unit::Flop).map_err(|e| fail(format!("flops: {e}")))?, "flops").map_err(&fail)?;
        let mut bytes = BTreeMap::new();
        match &k.bytes {
            toml::Value::Table(t) => {
                for (key, v) in t {
                    let level = MemLevel::from_key(key)
                        .ok_or_else(|| fail(format!("bytes: unknown level {key:?}; use dram, l2, l1")))?;
                    let b = number(v, Unit::Byte).map_err(|e| fail(format!("bytes.{key}: {e}")))?;
                    bytes.insert(level, positive(b, &format!("bytes.{key}")).map_err(&fail)?);
                }
            }
            v => {
                let b = number(v, Unit::Byte).map_err(|e| fail(format!("bytes: {e}")))?;
                bytes.insert(MemLevel::Dram, positive(b, "bytes").map_err(&fail)?);
            }
        }
        if bytes.is_empty() {
            return Err(fail("bytes is empty".into()));
        }
        let elements = match &k.elements {
            Some(v) => positive(number(v, Unit::Flop).map_err(|e| fail(format!("elements: {e}")))?, "elements")
                .map_err(&fail)?,
            None => 1.0,
        };
        let time = match &k.time {
            Some(v) => Some(
                positive(number(v, Unit::Second).map_err(|e| fail(format!("time: {e}")))?, "time").map_err(&fail)?,
            ),
            None => None,
        };
        let flops = times_elements(flops, elements, "flops").map_err(&fail)?;
        let mut total_bytes = BTreeMap::new();
        for (level, b) in bytes {
            total_bytes.insert(level, times_elements(b, elements, &format!("bytes.{}", level.key())).map_err(&fail)?);
        }
        out.push(build(&k.name, kind, flops, total_bytes, time));
    }
    Ok(KernelsFile { machine: file.machine, kernels: out })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_spec_key_given_twice_is_refused_not_silently_chosen() {
        for spec in [
            "k: flops=1 bytes=1 flops=2",
            "k: flops=1 bytes=1 time=1ms time=2ms",
            "k: flops=1 bytes=1 dram=2",
            "k: flops=1 bytes=1 time=1ms duration=2ms",
        ] {
            let e = parse_kernel_spec(spec).unwrap_err().to_string();
            assert!(e.contains("twice") || e.contains("two names"), "{spec}: {e}");
        }
        assert!(parse_kernel_spec("k: flops=1 bytes=1 l2=2 time=1ms").is_ok());
    }

    #[test]
    fn cli_spec() {
        let k = parse_kernel_spec("c = a + b: flops=1 bytes=12").unwrap();
        assert_eq!(k.name, "c = a + b");
        assert_eq!(k.flops[&FlopKind::Fp32], 1.0);
        assert_eq!(k.bytes[&MemLevel::Dram], 12.0);
        let k = parse_kernel_spec("d: flops=2 GFLOP bytes=1GB kind=fp64 time=1ms").unwrap_err();
        // "2 GFLOP" with a space splits into two words: the error says so.
        assert!(k.to_string().contains("not key=value"), "{k}");
        let k = parse_kernel_spec("d: flops=2GFLOP bytes=1GB kind=fp64 time=1ms").unwrap();
        assert_eq!(k.flops[&FlopKind::Fp64], 2e9);
        assert_eq!(k.duration_s, Some(1e-3));
    }

    #[test]
    fn zero_and_negative_are_refused() {
        assert!(parse_kernel_spec("k: flops=0 bytes=12").unwrap_err().to_string().contains("greater than zero"));
        assert!(parse_kernel_spec("k: flops=1 bytes=-12").is_err());
    }

    #[test]
    fn flops_times_elements_that_overflow_are_refused() {
        let e = parse_kernel_spec("k: flops=1e300 bytes=1 elements=1e300").unwrap_err().to_string();
        assert!(e.contains("flops"), "{e}");
        let e = parse_kernel_spec("k: flops=1e20 bytes=1 elements=1e20").unwrap_err().to_string();
        assert!(e.contains("flops x elements") && e.contains("above"), "{e}");
        let e = parse_kernels_toml("[[kernel]]\nname = \"x\"\nflops = 1e20\nbytes = 1e20\nelements = 1e20\n", "k.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("k.toml") && e.contains("x elements"), "{e}");
        assert!(parse_kernels_toml("[[kernel]]\nname = \"x\"\nflops = 1e308\nbytes = 1\n", "k.toml").is_err());
    }

    #[test]
    fn toml_errors_have_line_and_column() {
        let e = parse_kernels_toml("[[kernel]]\nname = \"x\"\nflops = = 1\n", "k.toml").unwrap_err().to_string();
        assert!(e.contains("k.toml") && e.contains("line 3"), "{e}");
    }

    #[test]
    fn toml_levels() {
        let ks = parse_kernels_toml(
            "[[kernel]]\nname = \"s\"\nflops = 13\nbytes = { dram = 8, l2 = \"16 B\" }\nelements = 2\n",
            "k.toml",
        )
        .unwrap();
        assert_eq!(ks[0].flops[&FlopKind::Fp32], 26.0);
        assert_eq!(ks[0].bytes[&MemLevel::L2], 32.0);
    }
}
