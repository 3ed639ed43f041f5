//! The one way every command chooses a machine: a built-in GPU (`--gpu`),
//! a machine JSON (`--machine`, what `peaks`/`bench` write), or explicit
//! roofs (`--peak`, `--bandwidth`). Flags are validated here, once, so the
//! commands only ever see a complete `Machine`.

use std::path::PathBuf;

use anyhow::Context;
use roofline_documents::MachineSpec;

use roofline_documents::read_machine;
use roofline_hw::theoretical_machine;
use roofline_model::{parse_quantity, Unit};
use roofline_model::{FlopKind, Machine};

use crate::error::bad_input;
use crate::input_file::read_text;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct MachineArgs {
    /// A GPU from the built-in table (t4, v100, a100-40gb, a100-80gb, h100-sxm, h100-pcie, h200, l4, l40s, rtx4090, b200).
    #[arg(long, value_name = "NAME")]
    pub gpu: Option<String>,

    /// A machine JSON written by `roofline peaks -o` or `roofline bench -o`
    /// (measured roofs), or an analysis JSON (its machine is used).
    #[arg(long, value_name = "FILE")]
    pub machine: Option<PathBuf>,

    /// A compute roof, for example "1000 GFLOP/s" or "20 TFLOP/s".
    #[arg(long, value_name = "RATE", requires = "bandwidth")]
    pub peak: Option<String>,

    /// A bandwidth roof, for example "100 GB/s" or "4.8 TB/s".
    #[arg(long, value_name = "RATE", requires = "peak")]
    pub bandwidth: Option<String>,

    /// The FLOP kind of --peak: fp64, fp32, fp16, tensor_bf16, ...
    #[arg(long, value_name = "KIND", default_value = "fp32", requires = "peak")]
    pub peak_kind: String,
}

/// Resolves a GPU name from the built-in table, with a suggestion on a miss.
pub fn known_gpu_machine(name: &str) -> anyhow::Result<Machine> {
    match roofline_hw::find(name) {
        Some(g) => Ok(theoretical_machine(&g.attributes())?),
        None => {
            let hint = roofline_hw::closest(name).map(|c| format!("did you mean {c:?}? ")).unwrap_or_default();
            Err(bad_input(format!(
                "--gpu {name:?}: not a GPU the tool knows; {hint}known names: {}; for another GPU give --peak and --bandwidth, or a machine JSON with --machine",
                roofline_hw::known_keys().join(", ")
            )))
        }
    }
}

fn explicit(name: &str, peak: &str, bandwidth: &str, kind: &str, what: &str) -> anyhow::Result<Machine> {
    let kind = FlopKind::from_key(kind).ok_or_else(|| {
        bad_input(format!(
            "{what} kind {kind:?}: unknown; use one of {}",
            FlopKind::ALL.iter().map(|k| k.key()).collect::<Vec<_>>().join(", ")
        ))
    })?;
    // A roof without its unit is ambiguous (FLOP/s? GFLOP/s? TFLOP/s?): never guessed.
    for (flag, text, example) in [("peak", peak, "100TFLOP/s"), ("bandwidth", bandwidth, "4.8TB/s")] {
        let t = text.trim();
        if !t.is_empty()
            && t.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '_' | 'e' | 'E' | '+' | '-'))
        {
            let fix =
                if what.starts_with("--") { format!("--{flag} {example}") } else { format!("{flag} = \"{example}\"") };
            return Err(bad_input(format!(
                "{what} {flag} {t:?}: a rate needs its unit, which is never guessed; write it with one, e.g. {fix}"
            )));
        }
    }
    let pi = parse_quantity(peak, Unit::FlopPerSecond).map_err(|e| bad_input(format!("{what} peak: {e}")))?;
    let beta =
        parse_quantity(bandwidth, Unit::BytePerSecond).map_err(|e| bad_input(format!("{what} bandwidth: {e}")))?;
    if pi <= 0.0 || beta <= 0.0 {
        return Err(bad_input(format!(
            "{what}: peak and bandwidth must be greater than zero (got {peak:?}, {bandwidth:?})"
        )));
    }
    Ok(Machine::simple(name, kind, pi, beta))
}

impl MachineArgs {
    /// The machine the flags describe, or `None` when none was given.
    pub fn resolve(&self) -> anyhow::Result<Option<Machine>> {
        let count = [self.gpu.is_some(), self.machine.is_some(), self.peak.is_some()].iter().filter(|x| **x).count();
        if count > 1 {
            return Err(bad_input("give one of --gpu, --machine or --peak/--bandwidth, not several"));
        }
        if let Some(name) = &self.gpu {
            return known_gpu_machine(name).map(Some);
        }
        if let Some(path) = &self.machine {
            return load_machine(path).map(Some);
        }
        if let (Some(p), Some(b)) = (&self.peak, &self.bandwidth) {
            let name = format!("{} peak, {} bandwidth", p.trim(), b.trim());
            return explicit(&name, p, b, &self.peak_kind, "--peak/--bandwidth").map(Some);
        }
        Ok(None)
    }
}

/// Reads a machine (or analysis) JSON file.
pub fn load_machine(path: &std::path::Path) -> anyhow::Result<Machine> {
    let text = read_text(path, "a machine JSON from `roofline bench -o FILE` or `roofline peaks -o FILE`")
        .with_context(|| format!("--machine {}", path.display()))?;
    Ok(read_machine(&text, &path.display().to_string())?.machine)
}

/// The machine a kernels file names in its `[machine]` table.
pub fn machine_from_spec(spec: &MachineSpec, input: &str) -> anyhow::Result<Machine> {
    if let Some(g) = &spec.gpu {
        return known_gpu_machine(g).with_context(|| format!("{input}: [machine] gpu"));
    }
    match (&spec.peak, &spec.bandwidth) {
        (Some(p), Some(b)) => {
            let name = spec.name.clone().unwrap_or_else(|| format!("{} peak, {} bandwidth", p.trim(), b.trim()));
            explicit(&name, p, b, spec.kind.as_deref().unwrap_or("fp32"), &format!("{input}: [machine]"))
        }
        _ => Err(bad_input(format!("{input}: [machine] needs gpu = \"NAME\", or both peak and bandwidth"))),
    }
}
