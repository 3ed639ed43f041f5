//! `roofline model`: paper estimates. Kernels described by their FLOPs and
//! bytes (on the command line or in TOML files) are placed under a
//! machine's roofs: intensity, attainable FLOP/s, bound, and for kernels
//! given a time, the % of the roof they reached.

use std::path::PathBuf;
use std::process::ExitCode;

use roofline_analysis::analyze;
use roofline_documents::{parse_kernel_spec, parse_kernels_file};
use roofline_documents::{AnalysisDocument, AnalysisSource, Producer};
use roofline_model::{Kernel, Machine};

use crate::error::bad_input;
use crate::input_file::read_text;
use crate::machine_args::{machine_from_spec, MachineArgs};
use crate::output::Output;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline model --gpu t4 --kernel \"c = a + b: flops=1 bytes=12\"
  roofline model --peak \"1000 GFLOP/s\" --bandwidth \"100 GB/s\" --kernel \"saxpy: flops=2 bytes=12\"
  roofline model examples/seeds/seed001_saxpy.toml

Kernel fields: flops=F bytes=B (DRAM; or dram= l2= l1=) kind=fp32|fp64|fp16|tensor_bf16|...
elements=N (multiplies flops and bytes) time=1.5ms (makes it a measured point).
A TOML file holds [[kernel]] tables with the same fields and may name its
machine in a [machine] table (gpu = \"t4\", or peak and bandwidth).")]
pub struct Args {
    /// TOML files of [[kernel]] tables.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// A kernel: "NAME: flops=F bytes=B [kind=fp32] [elements=N] [time=T]".
    #[arg(short, long = "kernel", value_name = "SPEC")]
    pub kernels: Vec<String>,

    #[command(flatten)]
    pub machine: MachineArgs,
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    let mut inputs: Vec<(&str, &std::path::Path)> = args.files.iter().map(|f| ("FILE", f.as_path())).collect();
    inputs.extend(args.machine.machine.iter().map(|m| ("--machine", m.as_path())));
    out.protect_inputs(&[], &inputs)?;
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut file_machine: Option<Machine> = None;
    for path in &args.files {
        let input = path.display().to_string();
        let text = read_text(path, "a TOML file of [[kernel]] tables")?;
        let file = parse_kernels_file(&text, &input)?;
        if let (Some(spec), None) = (&file.machine, &file_machine) {
            file_machine = Some(machine_from_spec(spec, &input)?);
        }
        kernels.extend(file.kernels);
    }
    for spec in &args.kernels {
        kernels.push(parse_kernel_spec(spec)?);
    }
    if kernels.is_empty() {
        return Err(bad_input(
            "no kernels: give --kernel \"NAME: flops=F bytes=B\" or a TOML file of [[kernel]] tables (see --help)",
        ));
    }
    let machine =
        match (args.machine.resolve()?, file_machine) {
            (Some(m), _) => m,
            (None, Some(m)) => m,
            (None, None) => return Err(bad_input(
                "no machine: give --gpu NAME (see `roofline peaks --list`), --peak and --bandwidth, or --machine FILE",
            )),
        };
    let analyses = analyze(&machine, &kernels);
    let detail = args.files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    let doc = AnalysisDocument::new(
        Producer::new("roofline model"),
        AnalysisSource { kind: "model".into(), detail, byte_convention: Some("bytes as estimated by the user".into()) },
        machine,
        analyses,
    );
    out.check_analysis(&doc)?;
    out.document(&doc)?;
    Ok(ExitCode::SUCCESS)
}
