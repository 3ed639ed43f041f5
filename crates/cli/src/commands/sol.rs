//! `roofline sol "OPERATION" --gpu NAME`: the speed of light of an
//! operation (a catalogue operator with its sizes and dtype): the least
//! time its FLOPs and compulsory bytes take under the machine's roofs, and
//! the roof that sets it (roofline_shapes::sol).

use std::process::ExitCode;

use roofline_report::SolDocument;
use roofline_shapes::sol::{speed_of_light, SPEC_HELP};

use crate::error::bad_input;
use crate::machine_args::MachineArgs;
use crate::output::Output;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  roofline sol \"gemm m=4096 n=4096 k=4096 bf16\" --gpu h200
  roofline sol \"attention b=8 h=16 l=4096 e=128 bf16 causal\" --gpu h200
  roofline sol \"conv n=32 c=64 h=56 w=56 k=64 r=3 s=3 pad=1 bf16 backward\" --machine h200.json
  roofline sol \"layer_norm rows=4096 cols=768 fp32\" --gpu h100-sxm --format json

Operations: gemm|mm m= n= k= [b=]; addmm/linear m= n= k=; scaled_mm (FP8) and int_mm
(INT8) m= n= k=; conv n= c= h= w= k= [r= s= stride= pad= dilation= groups=]
[backward]; attention b= h= l= [s=] e= [ev=] [causal] [backward]; layer_norm and
rms_norm rows= cols=; batch_norm n= c= h= w= [eval]; group_norm n= c= h= w= groups=;
softmax and log_softmax rows= cols=; cross_entropy rows= classes=; any elementwise
operator (add, mul, gelu, relu, addcmul, ...) n=; cast n= FROM TO; copy n=; sum,
mean, amax n= [rows=]; embedding vocab= dim= tokens= [backward]; gather n=; cat n=
parts=; adam, adamw, sgd params=. A dtype word (bf16, fp16, fp32, fp64, fp8, int8)
sets the element type (default bf16).")]
pub struct Args {
    /// The operation and its sizes, for example \"gemm m=4096 n=4096 k=4096 bf16\".
    #[arg(value_name = "OPERATION")]
    pub spec: String,

    /// The machine whose roofs bound it (--gpu NAME, --machine FILE, or --peak/--bandwidth).
    #[command(flatten)]
    pub machine: MachineArgs,
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    if let Some(m) = &args.machine.machine {
        out.protect_inputs(&[], &[("--machine", m.as_path())])?;
    }
    let machine = args.machine.resolve()?.ok_or_else(|| {
        bad_input(format!(
            "sol {:?}: no machine to bound it on; give --gpu NAME (for example --gpu h200), --machine FILE (from `roofline bench -o`) or --peak and --bandwidth",
            args.spec
        ))
    })?;
    let (spec, estimate, bound) =
        speed_of_light(&args.spec, &machine).map_err(|e| bad_input(format!("sol: {e}\n  operations: {SPEC_HELP}")))?;
    out.document(&SolDocument::new(&args.spec, &spec, &estimate, &bound, &machine))?;
    Ok(ExitCode::SUCCESS)
}
