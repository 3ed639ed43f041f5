//! `roofline peaks`: the theoretical roofs of a named GPU (built-in table)
//! or of the local one (device attributes).

use std::process::ExitCode;

use roofline_documents::{MachineDocument, Producer};

use roofline_gpu::{device, nvml, GpuError};
use roofline_report::KnownGpus;

use crate::error::bad_input;
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

    /// The local GPU to read (CUDA device index).
    #[arg(long, value_name = "N", default_value_t = 0, conflicts_with_all = ["all_devices", "gpu"])]
    pub device: usize,

    /// Every local GPU.
    #[arg(long, conflicts_with = "gpu")]
    pub all_devices: bool,
}

/// The theoretical machine of one local GPU, from its live attributes, with
/// NVML's clocks, temperature, power and throttle reasons as notes, and its
/// link roofs (PCIe to the host, NVLink or PCIe to the other GPUs).
fn live_machine(d: usize) -> Result<roofline_model::Machine, GpuError> {
    let info = device::query(d)?;
    let mut m = device::theoretical(&info)?;
    match nvml::init().map_err(|e| e.to_string()).and_then(|n| nvml::info(&n, &info.uuid)) {
        Ok(n) => {
            m.gpu.driver = Some(format!("{} (CUDA {})", n.driver_version, info.cuda_driver_version));
            let mut line = format!(
                "NVML: maximum clocks SM {} MHz, memory {} MHz; now SM {} MHz, memory {} MHz",
                n.max_sm_mhz, n.max_mem_mhz, n.sm_mhz, n.mem_mhz
            );
            if let Some(t) = n.temp_c {
                line.push_str(&format!(", {t} °C"));
            }
            if let Some(p) = n.power_w {
                line.push_str(&format!(", {p:.0} W"));
            }
            if !n.throttle.is_empty() {
                line.push_str(&format!("; throttling now: {}", n.throttle.join(", ")));
            }
            m.notes.push(line);
            if n.other_processes > 0 {
                m.notes.push(format!("{} other process(es) use this GPU", n.other_processes));
            }
        }
        Err(e) => m.notes.push(e),
    }
    let (links, notes) = device::link_roofs(d);
    m.ceilings.extend(links);
    m.notes.extend(notes);
    Ok(m)
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    if args.list {
        out.document(&KnownGpus::default())?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(name) = &args.gpu {
        let machine = known_gpu_machine(name)?;
        let doc = MachineDocument::new(machine, Producer::new(&format!("roofline peaks --gpu {name}")));
        out.check_machine(&doc)?;
        out.document(&doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    let devices: Result<Vec<usize>, GpuError> = if args.all_devices {
        device::device_count().map(|n| (0..n).collect())
    } else {
        device::check_index(args.device).map(|_| vec![args.device])
    };
    let devices = match devices {
        Ok(d) => d,
        Err(e @ GpuError::DeviceOutOfRange { .. }) => return Err(bad_input(e)),
        Err(e @ (GpuError::NoDriver | GpuError::NoDevice(_))) => {
            out.warn(&format!(
                "no GPU found on this machine ({e}); name one with --gpu: {}",
                roofline_hw::known_keys().join(", ")
            ));
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(e.into()),
    };
    for &d in &devices {
        let machine = live_machine(d)?;
        let doc = MachineDocument::new(machine, Producer::new(&format!("roofline peaks --device {d}")));
        let file =
            out.file
                .as_ref()
                .map(|f| if devices.len() > 1 { crate::commands::bench::per_device(f, d) } else { f.clone() });
        out.check_machine(&doc)?;
        out.with_file(file).document(&doc)?;
    }
    Ok(ExitCode::SUCCESS)
}
