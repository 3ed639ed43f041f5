//! `roofline peaks`: the theoretical roofs of a named GPU (built-in table)
//! or of the local one (device attributes).

use std::process::ExitCode;

use roofline_core::gpus;
use roofline_core::schema::{MachineDocument, Producer};

use crate::machine_args::known_gpu_machine;
use crate::output::Output;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A GPU from the built-in table instead of the local one.
    #[arg(long, value_name = "NAME")]
    pub gpu: Option<String>,

    /// List the GPUs of the built-in table.
    #[arg(long)]
    pub list: bool,
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    if args.list {
        let mut s = String::from("GPUs in the built-in table (use with --gpu):\n");
        for g in gpus::KNOWN_GPUS {
            s.push_str(&format!(
                "  {:<10} {} (compute capability {}.{}; {})\n",
                g.key, g.name, g.cc.0, g.cc.1, g.source
            ));
        }
        out.stdout(&s)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(name) = &args.gpu {
        let machine = known_gpu_machine(name)?;
        let doc = MachineDocument::new(machine, Producer::new(&format!("roofline peaks --gpu {name}")));
        out.machine(&doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    out.warn(&format!(
        "no GPU found on this machine (this build reads the local GPU once the live device path is present); name one with --gpu: {}",
        gpus::known_keys().join(", ")
    ));
    Ok(ExitCode::from(1))
}
