//! Theoretical roofs from device attributes, the way seed 000's `peaks.cu`
//! computes them:
//!
//! - compute: SMs x results per clock per SM x 2 (an FMA is two FLOPs) x clock;
//! - DRAM: 2 (double data rate) x memory clock x bus width / 8;
//! - L1/shared: 128 bytes per clock per SM x SMs x clock.
//!
//! The same function serves a live GPU (attributes read through the driver)
//! and a GPU from the built-in table (attributes from its datasheet), so the
//! two paths cannot disagree.

use serde::{Deserialize, Serialize};

use crate::arch::ArchRates;
use roofline_model::ComputeCapability;
use roofline_model::{Ceiling, ClockBasis, FlopKind, GpuFacts, Machine, MemLevel, Origin, Provenance, Resource};

/// What the roofs are computed from. Clocks in kHz, as CUDA reports them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceAttributes {
    /// Product name.
    pub name: String,
    /// Serialised as `cc_major` and `cc_minor`, as documents always had it.
    #[serde(flatten, with = "roofline_model::cc_fields")]
    pub cc: ComputeCapability,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Peak (boost) SM clock, kHz (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`).
    pub clock_khz: u32,
    /// Peak memory clock, kHz (`CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE`).
    pub mem_clock_khz: u32,
    /// Memory bus width, bits (`CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH`).
    pub bus_width_bits: u32,
    /// L2 cache size, bytes, when known.
    #[serde(default)]
    pub l2_bytes: Option<u64>,
    /// Device memory, bytes, when known.
    #[serde(default)]
    pub memory_bytes: Option<u64>,
    /// The clock vendors quote tensor peaks at, when it differs from the
    /// boost clock (H100/H200: 1830 MHz). `None`: the boost clock.
    #[serde(default)]
    pub tensor_clock_khz: Option<u32>,
    /// Where these attributes came from ("CUDA driver, device 0",
    /// "built-in table: NVIDIA H200 datasheet").
    pub source: String,
    /// Attributes that are estimates.
    #[serde(default)]
    pub unconfirmed: Vec<String>,
}

/// Why no roofs can be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PeaksError {
    #[error("compute capability {major}.{minor} is not in the tool's tables (known: {known}); give the roofs with --peak and --bandwidth, or a machine JSON")]
    /// The compute capability is in none of the tool's tables.
    UnknownCapability {
        /// Major version.
        major: u32,
        /// Minor version.
        minor: u32,
        /// The capabilities the tables hold, comma separated.
        known: String,
    },
}

/// The theoretical machine for a set of attributes.
pub fn theoretical_machine(attrs: &DeviceAttributes) -> Result<Machine, PeaksError> {
    let rates = crate::arch::rates_for(attrs.cc).ok_or_else(|| PeaksError::UnknownCapability {
        major: attrs.cc.major,
        minor: attrs.cc.minor,
        known: crate::arch::known_capabilities().join(", "),
    })?;
    Ok(build(attrs, &rates))
}

fn build(attrs: &DeviceAttributes, rates: &ArchRates) -> Machine {
    let mhz = attrs.clock_khz as f64 / 1e3;
    let tensor_mhz = attrs.tensor_clock_khz.map(|k| k as f64 / 1e3).unwrap_or(mhz);
    let sms = attrs.sms as f64;
    let unconfirmed = |what: &str| attrs.unconfirmed.iter().any(|u| u == what);
    let clock_unconfirmed = unconfirmed("clock");
    let mut compute = Vec::new();
    for rate in &rates.rates {
        // Hopper's and Ampere's FP64 tensor peaks are quoted at the boost
        // clock; the 16-bit and smaller tensor paths at the tensor clock.
        let uses_tensor_clock = rate.kind.is_tensor() && rate.kind != FlopKind::TensorFp64;
        let (clock, clock_name) = if uses_tensor_clock && attrs.tensor_clock_khz.is_some() {
            (tensor_mhz, "vendor tensor clock")
        } else {
            (mhz, "boost clock")
        };
        let flops = sms * rate.fma_per_clock_per_sm * 2.0 * clock * 1e6;
        let lanes = if rate.kind.is_tensor() { "FMA/clk" } else { "lanes" };
        let mut provenance = Provenance::new(
            Origin::Theoretical,
            format!(
                "{}: {} SMs x {} {} x 2 x {:.0} MHz ({} {}.{} table)",
                attrs.source,
                attrs.sms,
                rate.fma_per_clock_per_sm,
                lanes,
                clock,
                rates.family,
                rates.major,
                rates.minor
            ),
        );
        let estimate = !rate.confirmed
            || clock_unconfirmed
            || (uses_tensor_clock && unconfirmed("tensor_clock"))
            || unconfirmed(rate.kind.key());
        let confirmed = !estimate;
        if !confirmed {
            provenance = provenance.unconfirmed();
        }
        let name = if rate.kind.is_tensor() {
            format!("{} (dense)", rate.kind.label())
        } else {
            rate.kind.label().to_string()
        };
        compute.push(
            Ceiling::new(Resource::Compute(rate.kind), name, flops, provenance.clone())
                .with_clock(ClockBasis::sm(clock, clock_name)),
        );
        // Lower ceilings drawn under the main ones (seed 001: "compute roofs
        // with and without vectorization"): without FMA a CUDA core does
        // one FLOP per instruction, without half2 an FP16 lane does one.
        if matches!(rate.kind, FlopKind::Fp32 | FlopKind::Fp64) {
            let source = format!("half of {}: one FLOP per instruction without FMA", rate.kind.label());
            compute.push(
                Ceiling::new(
                    Resource::Compute(rate.kind),
                    format!("{} (no FMA)", rate.kind.label()),
                    flops / 2.0,
                    Provenance { origin: Origin::Derived, source, confirmed },
                )
                .with_clock(ClockBasis::sm(clock, clock_name))
                .secondary(),
            );
        }
        if rate.kind == FlopKind::Fp16 {
            let source = "half of FP16: scalar half instructions instead of half2".to_string();
            compute.push(
                Ceiling::new(
                    Resource::Compute(rate.kind),
                    "FP16 (no half2)",
                    flops / 2.0,
                    Provenance { origin: Origin::Derived, source, confirmed },
                )
                .with_clock(ClockBasis::sm(clock, clock_name))
                .secondary(),
            );
        }
    }

    let instruction = instruction_ceilings(attrs, rates, mhz, clock_unconfirmed);

    let mem_mhz = attrs.mem_clock_khz as f64 / 1e3;
    let dram = 2.0 * mem_mhz * 1e6 * attrs.bus_width_bits as f64 / 8.0;
    let mut dram_prov = Provenance::new(
        Origin::Theoretical,
        format!("{}: 2 x {:.0} MHz x {} bits / 8", attrs.source, mem_mhz, attrs.bus_width_bits),
    );
    if unconfirmed("memory") {
        dram_prov = dram_prov.unconfirmed();
    }
    let l1 = rates.l1_bytes_per_clock_per_sm * sms * mhz * 1e6;
    let mut l1_prov = Provenance::new(
        Origin::Theoretical,
        format!("{}: {} B/clk/SM x {} SMs x {:.0} MHz", attrs.source, rates.l1_bytes_per_clock_per_sm, attrs.sms, mhz),
    );
    if clock_unconfirmed {
        l1_prov = l1_prov.unconfirmed();
    }
    let bandwidth = vec![
        Ceiling::new(Resource::Memory(MemLevel::Dram), "DRAM", dram, dram_prov)
            .with_clock(ClockBasis::mem(mem_mhz, "peak memory clock")),
        Ceiling::new(Resource::Memory(MemLevel::L1), "L1/shared", l1, l1_prov)
            .with_clock(ClockBasis::sm(mhz, "boost clock")),
    ];
    let mut notes = vec![
        "L2 bandwidth has no theoretical formula from device attributes: `roofline bench` measures it".to_string(),
    ];
    if attrs.tensor_clock_khz.is_none() && rates.rates.iter().any(|r| r.kind.is_tensor()) {
        notes.push("tensor roofs use the boost clock; vendors may quote them at a lower tensor clock".into());
    }
    if compute.iter().any(|c| !c.provenance.confirmed) || !dram_prov_confirmed(&bandwidth) {
        notes.push("figures marked unconfirmed are estimates: measure them with `roofline bench`".into());
    }
    Machine {
        name: attrs.name.clone(),
        gpu: GpuFacts {
            name: Some(attrs.name.clone()),
            compute_capability: Some(attrs.cc.to_string()),
            sms: Some(attrs.sms),
            sm_clock_mhz: Some(mhz),
            mem_clock_mhz: Some(mem_mhz),
            bus_width_bits: Some(attrs.bus_width_bits),
            l2_bytes: attrs.l2_bytes,
            memory_bytes: attrs.memory_bytes,
            driver: None,
            uuid: None,
        },
        ceilings: compute.into_iter().chain(instruction).chain(bandwidth).collect(),
        notes,
    }
}

/// One ceiling per instruction the architecture table gives a rate for, in
/// warp instructions per second: SMs x rate per SM and clock x boost clock.
/// The fastest instruction of each pipe is its primary roof; the others
/// (IMAD beside FFMA, LDS.128 beside LDS.32) are secondary.
fn instruction_ceilings(
    attrs: &DeviceAttributes,
    rates: &ArchRates,
    mhz: f64,
    clock_unconfirmed: bool,
) -> Vec<Ceiling> {
    let table = crate::arch::pipe_rates(ComputeCapability::new(rates.major, rates.minor));
    let mut out = Vec::new();
    for (i, r) in table.iter().enumerate() {
        let pipe = r.op.pipe();
        let beaten = table.iter().enumerate().any(|(j, o)| {
            o.op.pipe() == pipe
                && (o.warp_inst_per_clock_per_sm > r.warp_inst_per_clock_per_sm
                    || (o.warp_inst_per_clock_per_sm == r.warp_inst_per_clock_per_sm && j < i))
        });
        let mut provenance = Provenance::new(
            Origin::Theoretical,
            format!(
                "{}: {} SMs x {} warp instructions/clk x {:.0} MHz ({})",
                attrs.source, attrs.sms, r.warp_inst_per_clock_per_sm, mhz, r.source
            ),
        );
        if !r.confirmed || clock_unconfirmed {
            provenance = provenance.unconfirmed();
        }
        let rate = attrs.sms as f64 * r.warp_inst_per_clock_per_sm * mhz * 1e6;
        let mut c = Ceiling::new(Resource::Instruction(pipe), r.op.mnemonic(), rate, provenance)
            .with_clock(ClockBasis::sm(mhz, "boost clock"));
        c.secondary = beaten;
        out.push(c);
    }
    out
}

fn dram_prov_confirmed(b: &[Ceiling]) -> bool {
    b.iter().all(|c| c.provenance.confirmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t4() -> DeviceAttributes {
        DeviceAttributes {
            name: "Tesla T4".into(),
            cc: ComputeCapability::new(7, 5),
            sms: 40,
            clock_khz: 1_590_000,
            mem_clock_khz: 5_001_000,
            bus_width_bits: 256,
            l2_bytes: None,
            memory_bytes: None,
            tensor_clock_khz: None,
            source: "test".into(),
            unconfirmed: vec![],
        }
    }

    #[test]
    fn seed_000_peaks_cu_on_the_t4() {
        let m = theoretical_machine(&t4()).unwrap();
        let fp32 = m.compute_roof(FlopKind::Fp32).unwrap().rate;
        let dram = m.bandwidth_roof(MemLevel::Dram).unwrap().rate;
        assert_eq!(format!("{:.0}", fp32 / 1e9), "8141");
        assert_eq!(format!("{:.0}", dram / 1e9), "320");
        assert_eq!(format!("{:.1}", fp32 / dram), "25.4");
    }

    #[test]
    fn h200_instruction_roofs_from_the_architecture_table() {
        let h200 = crate::gpus::find("h200").unwrap().attributes();
        let m = theoretical_machine(&h200).unwrap();
        let roof = |p: roofline_model::Pipe| m.roof(Resource::Instruction(p)).unwrap();
        use roofline_model::Pipe;
        // 132 SMs x 1980 MHz x warp instructions per clock and SM.
        let g = 132.0 * 1980e6;
        assert_eq!(roof(Pipe::Alu).rate, 2.0 * g);
        assert_eq!(roof(Pipe::Fma).rate, 4.0 * g);
        assert_eq!(roof(Pipe::Fma).name, "FFMA");
        assert_eq!(roof(Pipe::Xu).rate, 0.5 * g);
        assert_eq!(roof(Pipe::Shared).rate, g);
        assert_eq!(roof(Pipe::Issue).rate, 4.0 * g);
        let imad = m.instruction().find(|c| c.name == "IMAD").unwrap();
        assert!(imad.secondary && imad.rate == 2.0 * g);
        let lds128 = m.instruction().find(|c| c.name == "LDS.128").unwrap();
        assert!(lds128.secondary && lds128.rate == 0.25 * g);
        assert!(!m.instruction().find(|c| c.name == "LDG.32").unwrap().provenance.confirmed);
        assert!(m.instruction().all(|c| c.provenance.origin == Origin::Theoretical && c.clock.sm_mhz == Some(1980.0)));
    }

    fn h200(unconfirmed: &[&str]) -> DeviceAttributes {
        let mut a = crate::gpus::find("h200").unwrap().attributes();
        a.unconfirmed = unconfirmed.iter().map(|s| s.to_string()).collect();
        a
    }

    fn ceiling<'a>(m: &'a Machine, name: &str) -> &'a Ceiling {
        m.ceilings.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no ceiling {name}"))
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs()
    }

    /// reference/h200.md: 132 SMs at 1980 MHz; L1 128 B/clk/SM -> 33.4 TB/s,
    /// FP16 half2 132 x 256 x 2 x 1.98 GHz = 133.8 TFLOP/s.
    #[test]
    fn h200_l1_fp16_and_the_lower_ceilings_follow_the_datasheet_formulas() {
        let m = theoretical_machine(&h200(&[])).unwrap();
        let l1 = m.bandwidth_roof(MemLevel::L1).unwrap();
        assert!(close(l1.rate, 128.0 * 132.0 * 1980e6), "{}", l1.rate);
        assert_eq!(format!("{:.1}", l1.rate / 1e12), "33.5");
        assert_eq!(l1.clock, ClockBasis::sm(1980.0, "boost clock"));
        let dram = m.bandwidth_roof(MemLevel::Dram).unwrap();
        assert_eq!(dram.clock, ClockBasis::mem(3201.0, "peak memory clock"));
        let fp16 = m.compute_roof(FlopKind::Fp16).unwrap();
        assert!(close(fp16.rate, 132.0 * 256.0 * 2.0 * 1980e6), "{}", fp16.rate);
        // Without FMA (FP32, FP64) or half2 (FP16): half the main roof,
        // derived, drawn but never the roof.
        for (lower, main) in
            [("FP32 (no FMA)", FlopKind::Fp32), ("FP64 (no FMA)", FlopKind::Fp64), ("FP16 (no half2)", FlopKind::Fp16)]
        {
            let c = ceiling(&m, lower);
            let roof = m.compute_roof(main).unwrap();
            assert_eq!(c.resource, Resource::Compute(main));
            assert_eq!(c.rate, roof.rate / 2.0, "{lower}");
            assert!(c.secondary && !roof.secondary, "{lower}");
            assert_eq!(c.provenance.origin, Origin::Derived);
            assert_eq!(c.clock, ClockBasis::sm(1980.0, "boost clock"));
        }
        // Exactly those three: tensor kinds have no lower ceiling here.
        assert_eq!(m.compute().filter(|c| c.secondary).count(), 3);
        assert_eq!(ceiling(&m, "BF16 tensor (dense)").clock, ClockBasis::sm(1830.0, "vendor tensor clock"));
    }

    #[test]
    fn the_fastest_instruction_of_a_pipe_is_its_roof_and_the_first_of_a_tie() {
        let m = theoretical_machine(&h200(&[])).unwrap();
        let pipes: std::collections::BTreeSet<_> = m.instruction().map(|c| c.resource).collect();
        for p in pipes {
            assert_eq!(m.instruction().filter(|c| c.resource == p && !c.secondary).count(), 1, "{p:?}");
        }
        // IADD3 and LOP3 share the ALU rate, LDS.32 and STS.32 the shared one:
        // the table's first is the roof.
        assert_eq!(m.roof(Resource::Instruction(roofline_model::Pipe::Alu)).unwrap().name, "IADD3");
        assert!(ceiling(&m, "LOP3").secondary);
        assert_eq!(m.roof(Resource::Instruction(roofline_model::Pipe::Shared)).unwrap().name, "LDS.32");
        assert!(ceiling(&m, "STS.32").secondary);
    }

    #[test]
    fn estimates_are_marked_unconfirmed_and_noted() {
        let l2_note = "L2 bandwidth has no theoretical formula from device attributes: `roofline bench` measures it";
        let estimates_note = "figures marked unconfirmed are estimates: measure them with `roofline bench`";
        // Every attribute and table row confirmed: nothing marked.
        let m = theoretical_machine(&h200(&[])).unwrap();
        assert!(m.compute().all(|c| c.provenance.confirmed), "{:?}", m.compute().collect::<Vec<_>>());
        assert!(m.bandwidth().all(|c| c.provenance.confirmed));
        assert!(ceiling(&m, "FFMA").provenance.confirmed);
        assert_eq!(m.notes, vec![l2_note.to_string()], "a vendor tensor clock needs no note");
        // The tensor clock: the 16-bit and smaller tensor roofs only (FP64
        // tensor runs at the boost clock).
        let m = theoretical_machine(&h200(&["tensor_clock"])).unwrap();
        assert!(!ceiling(&m, "BF16 tensor (dense)").provenance.confirmed);
        assert!(ceiling(&m, "FP64 tensor (dense)").provenance.confirmed);
        assert!(ceiling(&m, "FP32").provenance.confirmed && ceiling(&m, "FP32 (no FMA)").provenance.confirmed);
        assert!(m.notes.contains(&estimates_note.to_string()));
        // The SM clock: every roof that follows it.
        let m = theoretical_machine(&h200(&["clock"])).unwrap();
        assert!(m.compute().all(|c| !c.provenance.confirmed));
        assert!(m.instruction().all(|c| !c.provenance.confirmed));
        assert!(!m.bandwidth_roof(MemLevel::L1).unwrap().provenance.confirmed);
        assert!(m.bandwidth_roof(MemLevel::Dram).unwrap().provenance.confirmed);
        // The memory clock: DRAM alone, and the note says so.
        let m = theoretical_machine(&h200(&["memory"])).unwrap();
        assert!(!m.bandwidth_roof(MemLevel::Dram).unwrap().provenance.confirmed);
        assert!(m.compute().all(|c| c.provenance.confirmed));
        assert!(m.notes.contains(&estimates_note.to_string()));
        // One kind by its key, with its lower ceiling.
        let m = theoretical_machine(&h200(&["fp32"])).unwrap();
        assert!(!ceiling(&m, "FP32").provenance.confirmed && !ceiling(&m, "FP32 (no FMA)").provenance.confirmed);
        assert!(ceiling(&m, "FP64").provenance.confirmed);
        // A table row that is an estimate (FP16 on cc 10.0).
        let mut b200 = h200(&[]);
        b200.cc = ComputeCapability::new(10, 0);
        let m = theoretical_machine(&b200).unwrap();
        assert!(!ceiling(&m, "FP16").provenance.confirmed && ceiling(&m, "FP32").provenance.confirmed);
    }

    #[test]
    fn tensor_roofs_at_the_boost_clock_are_noted() {
        let note = "tensor roofs use the boost clock; vendors may quote them at a lower tensor clock";
        // The T4 has tensor cores and no vendor tensor clock in its attributes.
        assert!(theoretical_machine(&t4()).unwrap().notes.contains(&note.to_string()));
        // cc 8.7's table has no tensor row: nothing to note.
        let mut a = t4();
        a.cc = ComputeCapability::new(8, 7);
        assert!(!theoretical_machine(&a).unwrap().notes.contains(&note.to_string()));
        // cc 8.6 has tensor rows since its descriptor took the A40 datasheet's (issue 24).
        a.cc = ComputeCapability::new(8, 6);
        assert!(theoretical_machine(&a).unwrap().notes.contains(&note.to_string()));
    }

    #[test]
    fn unknown_capability_lists_known_ones() {
        let mut a = t4();
        a.cc = ComputeCapability::new(3, 5);
        let e = theoretical_machine(&a).unwrap_err().to_string();
        assert!(e.contains("3.5") && e.contains("9.0"), "{e}");
    }
}
