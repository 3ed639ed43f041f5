//! `import`'s command line: the file, and the analysis options it shares
//! with `profile`. Apart from the command so that its streamed path
//! (`per_launch`) reads the same arguments without reaching back into it.

use std::path::PathBuf;

use roofline_ncu::{ByteConvention, Options};

use crate::machine_args::MachineArgs;
use crate::output::ViewArg;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BytesArg {
    /// Nsight Compute's chart: L2 = 32 B x lts2xbar cycles, L1 = 128 B x LSU writeback cycles.
    Ncu,
    /// NERSC's hierarchical roofline: lts__t_bytes and l1tex__t_bytes.
    Nersc,
}

/// Options shared by `import` and `profile`.
#[derive(clap::Args, Debug, Clone)]
pub struct AnalysisArgs {
    /// Judge kernels against these roofs too (a machine JSON from `roofline
    /// bench -o`, or --gpu NAME); the counters' own peaks are always used.
    #[command(flatten)]
    pub machine: MachineArgs,

    /// How bytes at L2 and L1 are counted.
    #[arg(long, value_enum, default_value_t = BytesArg::Ncu)]
    pub bytes: BytesArg,

    /// One point per launch instead of one per kernel.
    #[arg(long)]
    pub per_launch: bool,

    /// The roofline to show: flops, instructions (each kernel's binding
    /// pipe against its roof; needs instruction counters), or auto (the
    /// instruction roofline too, for the kernels FLOPs do not explain).
    #[arg(long, value_enum, default_value_t = ViewArg::Flops)]
    pub view: ViewArg,
}

impl AnalysisArgs {
    /// How the counters are read.
    pub fn options(&self) -> Options {
        Options {
            convention: match self.bytes {
                BytesArg::Ncu => ByteConvention::Ncu,
                BytesArg::Nersc => ByteConvention::Nersc,
            },
            per_launch: self.per_launch,
        }
    }
}

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  ncu --csv --page raw --print-units base --clock-control none ./app > app.csv
  roofline import app.csv
  roofline import app.csv --machine h200.json --format json -o app-analysis.json
  roofline import report.ncu-rep            (needs ncu to read the report)
  roofline import step.trace.json.gz        (a torch.profiler trace with record_shapes=True:
                                             FLOPs and bytes estimated from shapes, no counters)
  roofline import step.trace.json.gz --with-counters step.csv
                                            (the estimates against an ncu capture of the same program)")]
pub struct Args {
    /// A raw CSV written by `ncu --csv --page raw` ("-" for stdin), a .ncu-rep report, or a
    /// PyTorch profiler trace (.json or .json.gz, recorded with record_shapes=True).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// With a PyTorch trace: compare its estimated FLOPs and bytes with the
    /// counters of an ncu capture (raw CSV) of the same program, per kernel
    /// and per operator family, instead of printing the analysis.
    #[arg(long, value_name = "CAPTURE")]
    pub with_counters: Option<PathBuf>,

    /// Nsight Compute to read a .ncu-rep with (default: PATH, $CUDA_HOME/bin).
    #[arg(long, value_name = "PATH")]
    pub ncu: Option<PathBuf>,

    #[command(flatten)]
    pub analysis: AnalysisArgs,

    #[command(flatten)]
    pub filter: crate::kernel_filter::KernelFilterArgs,

    #[command(flatten)]
    pub group: crate::kernel_filter::GroupByArgs,
}
