//! What the wires allow: the theoretical link roofs of a machine from its
//! PCIe generation and width and its NVLinks (generation and count), per
//! the conventions of `roofline_model::Link` (one way, both ways, NCCL's
//! bus bandwidth).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use roofline_model::{format_si, Ceiling, ClockBasis, CollectiveOp, Engine, Link, Origin, Provenance, Resource, Unit};

/// A PCIe link's generation and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pcie {
    /// PCIe generation (1 to 6).
    pub generation: u32,
    /// Lanes (x1 to x16).
    pub lanes: u32,
}

impl Pcie {
    /// Bytes per second one way: transfer rate per lane x lanes x the line
    /// code's efficiency / 8. Gen 1-2 use 8b/10b, gen 3-5 128b/130b, gen 6
    /// FLIT mode (242 data bytes of 256).
    pub fn bytes_per_s(self) -> Option<f64> {
        let (gt_per_s, efficiency) = match self.generation {
            1 => (2.5e9, 0.8),
            2 => (5.0e9, 0.8),
            3 => (8.0e9, 128.0 / 130.0),
            4 => (16.0e9, 128.0 / 130.0),
            5 => (32.0e9, 128.0 / 130.0),
            6 => (64.0e9, 242.0 / 256.0),
            _ => return None,
        };
        (self.lanes > 0).then(|| gt_per_s * self.lanes as f64 * efficiency / 8.0)
    }

    /// "PCIe Gen5 x16".
    pub fn describe(self) -> String {
        format!("PCIe Gen{} x{}", self.generation, self.lanes)
    }
}

/// Bytes per second one NVLink carries one way, by NVLink version (NVML's
/// `nvmlDeviceGetNvLinkVersion`): 20 GB/s for NVLink 1 (P100), 25 GB/s for
/// NVLink 2 to 4 (V100, A100, H100/H200), 50 GB/s for NVLink 5 (B200).
/// The NVLink generation behind NVML's version code
/// (`nvmlDeviceGetNvLinkVersion` returns `NVML_NVLINK_VERSION_*`, an enum:
/// 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0, 7 = 5.0, 8 = 6.0),
/// not the generation itself: an H200 answers 6, NVLink 4.
pub fn nvlink_generation_from_nvml(code: u32) -> Option<u32> {
    match code {
        1 => Some(1),
        2 | 3 => Some(2),
        4 | 5 => Some(3),
        6 => Some(4),
        7 => Some(5),
        8 => Some(6),
        _ => None,
    }
}

/// Bytes per second one way of one NVLink of generation `version`
/// (20 GB/s for 1, 25 GB/s for 2 to 4, 50 GB/s for 5); `None` for
/// generations the table does not know.
pub fn nvlink_bytes_per_s(version: u32) -> Option<f64> {
    match version {
        1 => Some(20e9),
        2..=4 => Some(25e9),
        5 => Some(50e9),
        _ => None,
    }
}

/// A GPU's NVLinks as NVML reports them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NvLinks {
    /// NVLink generation (converted from NVML's version code with
    /// [`nvlink_generation_from_nvml`]; 0 when unknown).
    pub version: u32,
    /// Links in the active state.
    pub active: u32,
    /// Active links whose far end is another GPU of this machine, by its
    /// CUDA ordinal (direct GPU-to-GPU topologies).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub to_gpu: BTreeMap<u8, u32>,
    /// Active links whose far end is an NVSwitch: every peer behind the
    /// switches is reachable over all of them.
    #[serde(default)]
    pub to_switch: u32,
}

/// What a GPU's links are, for the theoretical link roofs.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GpuLinks {
    /// CUDA device ordinal.
    pub gpu: u8,
    /// The link to the host at its maximum generation and width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie: Option<Pcie>,
    /// Its NVLinks, when it has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvlink: Option<NvLinks>,
}

impl GpuLinks {
    /// NVLinks from this GPU to GPU `peer`, and whether through switches.
    fn nvlinks_to(&self, peer: u8) -> Option<(u32, u32, bool)> {
        let n = self.nvlink.as_ref()?;
        if let Some(&direct) = n.to_gpu.get(&peer).filter(|c| **c > 0) {
            return Some((direct, n.version, false));
        }
        (n.to_switch > 0).then_some((n.to_switch, n.version, true))
    }

    /// One-way bytes/s over all of the GPU's NVLinks, and how that was counted.
    fn nvlink_total(&self) -> Option<(f64, String)> {
        let n = self.nvlink.as_ref()?;
        let rate = nvlink_bytes_per_s(n.version)?;
        (n.active > 0).then(|| {
            (
                n.active as f64 * rate,
                format!(
                    "{} active NVLink {} links x {} one way",
                    n.active,
                    n.version,
                    format_si(rate, Unit::BytePerSecond)
                ),
            )
        })
    }
}

fn wire_clock(basis: String) -> ClockBasis {
    ClockBasis { sm_mhz: None, mem_mhz: None, basis }
}

/// The theoretical link roofs of a machine: host links from PCIe, peer
/// links from NVLink (or PCIe between the two GPUs' host links when they
/// share no NVLink), and for each collective over all GPUs the one-way link
/// bandwidth of the GPU with the least of it (the most a ring's bus
/// bandwidth can reach).
pub fn theoretical_links(gpus: &[GpuLinks]) -> Vec<Ceiling> {
    let mut out = Vec::new();
    let theo = |source: String| Provenance::new(Origin::Theoretical, source);
    for g in gpus {
        let Some(pcie) = g.pcie else { continue };
        let Some(rate) = pcie.bytes_per_s() else { continue };
        let source = format!(
            "{}: {} lanes x {} GT/s x line code / 8 = {} one way (unconfirmed: a Grace Hopper's NVLink-C2C host link is faster)",
            pcie.describe(),
            pcie.lanes,
            pcie_gts(pcie.generation),
            format_si(rate, Unit::BytePerSecond)
        );
        for link in [Link::HostToDevice { gpu: g.gpu }, Link::DeviceToHost { gpu: g.gpu }] {
            out.push(
                Ceiling::new(
                    Resource::Link(link),
                    format!("{} ({})", link.path(), pcie.describe()),
                    rate,
                    theo(source.clone()).unconfirmed(),
                )
                .with_clock(wire_clock(pcie.describe())),
            );
        }
    }
    for a in gpus {
        for b in gpus.iter().filter(|b| b.gpu != a.gpu) {
            let (rate, source, basis) = match a.nvlinks_to(b.gpu) {
                Some((links, version, switched)) => {
                    let Some(per) = nvlink_bytes_per_s(version) else { continue };
                    let rate = links as f64 * per;
                    let via = if switched { " through NVSwitch" } else { "" };
                    (
                        rate,
                        format!(
                            "{links} NVLink {version} links{via} x {} one way = {}",
                            format_si(per, Unit::BytePerSecond),
                            format_si(rate, Unit::BytePerSecond)
                        ),
                        format!("NVLink {version} x{links}"),
                    )
                }
                None => {
                    let (Some(pa), Some(pb)) = (a.pcie, b.pcie) else { continue };
                    let (Some(ra), Some(rb)) = (pa.bytes_per_s(), pb.bytes_per_s()) else { continue };
                    let rate = ra.min(rb);
                    (
                        rate,
                        format!(
                            "no NVLink between them: the slower host link ({}) = {}",
                            if ra <= rb { pa.describe() } else { pb.describe() },
                            format_si(rate, Unit::BytePerSecond)
                        ),
                        "PCIe".to_string(),
                    )
                }
            };
            for both_ways in [false, true] {
                if both_ways && a.gpu > b.gpu {
                    continue;
                }
                let link = Link::Peer { from: a.gpu, to: b.gpu, engine: Engine::Wire, both_ways };
                let (r, s) =
                    if both_ways { (2.0 * rate, format!("{source}, both ways: x 2")) } else { (rate, source.clone()) };
                out.push(
                    Ceiling::new(Resource::Link(link), format!("{} ({basis})", link.path()), r, theo(s))
                        .with_clock(wire_clock(basis.clone())),
                );
            }
        }
    }
    if gpus.len() > 1 {
        let totals: Vec<(f64, String, u8)> = gpus
            .iter()
            .filter_map(|g| {
                g.nvlink_total()
                    .or_else(|| g.pcie.and_then(|p| p.bytes_per_s().map(|r| (r, format!("{} one way", p.describe())))))
                    .map(|(r, s)| (r, s, g.gpu))
            })
            .collect();
        if totals.len() == gpus.len() {
            if let Some((rate, how, gpu)) = totals.into_iter().min_by(|a, b| a.0.total_cmp(&b.0)) {
                let n = gpus.len() as u8;
                for op in CollectiveOp::BENCHED {
                    let link = Link::Collective { op, gpus: n };
                    let source = format!(
                        "bus bandwidth cannot exceed one GPU's one-way link bandwidth: GPU {gpu}: {how} = {}",
                        format_si(rate, Unit::BytePerSecond)
                    );
                    out.push(
                        Ceiling::new(
                            Resource::Link(link),
                            format!("{} over {n} GPUs", op.bus_label()),
                            rate,
                            theo(source),
                        )
                        .with_clock(wire_clock("link rate".into())),
                    );
                }
            }
        }
    }
    out
}

fn pcie_gts(generation: u32) -> &'static str {
    match generation {
        1 => "2.5",
        2 => "5",
        3 => "8",
        4 => "16",
        5 => "32",
        6 => "64",
        _ => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvml_version_codes_are_generations_only_after_translation() {
        // The H200 pair of the x2 machine answered 6 (results/h200-x2-2026-11-30-multigpu):
        // NVLink 4, 25 GB/s per link one way, 18 links = 450 GB/s.
        assert_eq!(nvlink_generation_from_nvml(6), Some(4));
        assert_eq!(nvlink_bytes_per_s(nvlink_generation_from_nvml(6).unwrap()), Some(25e9));
        assert_eq!(nvlink_generation_from_nvml(7), Some(5));
        assert_eq!(nvlink_generation_from_nvml(3), Some(2));
        assert_eq!(nvlink_generation_from_nvml(0), None);
    }

    fn h200_pair() -> Vec<GpuLinks> {
        (0..2)
            .map(|gpu| GpuLinks {
                gpu,
                pcie: Some(Pcie { generation: 5, lanes: 16 }),
                nvlink: Some(NvLinks { version: 4, active: 18, to_gpu: BTreeMap::new(), to_switch: 18 }),
            })
            .collect()
    }

    #[test]
    fn pcie_gen5_x16_is_63_gb_per_s_one_way() {
        let r = Pcie { generation: 5, lanes: 16 }.bytes_per_s().unwrap();
        assert!((r - 63.015e9).abs() < 1e7, "{r}");
        assert_eq!(Pcie { generation: 3, lanes: 16 }.bytes_per_s().map(|r| (r / 1e6).round()), Some(15754.0));
        assert_eq!(Pcie { generation: 9, lanes: 16 }.bytes_per_s(), None);
        assert_eq!(Pcie { generation: 4, lanes: 0 }.bytes_per_s(), None);
    }

    #[test]
    fn hopper_nvlink_is_25_gb_per_s_per_link_one_way() {
        assert_eq!(nvlink_bytes_per_s(4), Some(25e9));
        assert_eq!(nvlink_bytes_per_s(5), Some(50e9));
        assert_eq!(nvlink_bytes_per_s(0), None);
    }

    #[test]
    fn two_h200s_behind_nvswitch_get_450_gb_per_s_each_way() {
        let c = theoretical_links(&h200_pair());
        let find = |l: Link| c.iter().find(|x| x.resource == Resource::Link(l)).map(|x| x.rate);
        let one = find(Link::Peer { from: 0, to: 1, engine: Engine::Wire, both_ways: false }).unwrap();
        assert_eq!(one, 450e9);
        assert_eq!(find(Link::Peer { from: 1, to: 0, engine: Engine::Wire, both_ways: false }), Some(450e9));
        assert_eq!(find(Link::Peer { from: 0, to: 1, engine: Engine::Wire, both_ways: true }), Some(900e9));
        assert_eq!(find(Link::Peer { from: 1, to: 0, engine: Engine::Wire, both_ways: true }), None, "one per pair");
        assert!((find(Link::HostToDevice { gpu: 1 }).unwrap() - 63.015e9).abs() < 1e7);
        assert_eq!(find(Link::Collective { op: CollectiveOp::AllReduce, gpus: 2 }), Some(450e9));
        assert!(c.iter().all(|x| x.provenance.origin == Origin::Theoretical && !x.provenance.source.is_empty()));
        // PCIe may not be the host link (NVLink-C2C): a figure above it is a warning, not a rejection.
        let h2d = c.iter().find(|x| x.resource == Resource::Link(Link::HostToDevice { gpu: 0 })).unwrap();
        assert!(!h2d.provenance.confirmed);
        assert!(c
            .iter()
            .filter(|x| matches!(x.resource, Resource::Link(Link::Peer { .. })))
            .all(|x| x.provenance.confirmed));
    }

    #[test]
    fn direct_links_count_only_the_links_to_that_peer() {
        let mut g = h200_pair();
        for (i, x) in g.iter_mut().enumerate() {
            let n = x.nvlink.as_mut().unwrap();
            n.to_switch = 0;
            n.active = 4;
            n.to_gpu.insert(1 - i as u8, 4);
        }
        let c = theoretical_links(&g);
        let p = c.iter().find(|x| {
            x.resource == Resource::Link(Link::Peer { from: 0, to: 1, engine: Engine::Wire, both_ways: false })
        });
        assert_eq!(p.map(|x| x.rate), Some(100e9));
    }

    #[test]
    fn without_nvlink_a_peer_pair_is_bound_by_the_slower_host_link() {
        let g = vec![
            GpuLinks { gpu: 0, pcie: Some(Pcie { generation: 4, lanes: 16 }), nvlink: None },
            GpuLinks { gpu: 1, pcie: Some(Pcie { generation: 3, lanes: 16 }), nvlink: None },
        ];
        let c = theoretical_links(&g);
        let p = c
            .iter()
            .find(|x| {
                x.resource == Resource::Link(Link::Peer { from: 1, to: 0, engine: Engine::Wire, both_ways: false })
            })
            .unwrap();
        assert_eq!(p.rate, Pcie { generation: 3, lanes: 16 }.bytes_per_s().unwrap());
        assert!(p.provenance.source.contains("PCIe Gen3 x16"), "{}", p.provenance.source);
    }

    #[test]
    fn one_gpu_has_host_links_only() {
        let c = theoretical_links(&h200_pair()[..1]);
        assert_eq!(c.len(), 2);
        assert!(c
            .iter()
            .all(|x| matches!(x.resource, Resource::Link(Link::HostToDevice { .. } | Link::DeviceToHost { .. }))));
    }

    #[test]
    fn a_peer_copy_is_bound_by_its_wire() {
        let l = Link::Peer { from: 0, to: 1, engine: Engine::Sm, both_ways: true };
        assert_eq!(l.wire(), Some(Link::Peer { from: 0, to: 1, engine: Engine::Wire, both_ways: true }));
        assert_eq!(Link::HostToDevice { gpu: 0 }.wire(), Some(Link::HostToDevice { gpu: 0 }));
        assert_eq!(l.to_string(), "peer SM copy GPU 0 <-> GPU 1");
        let json = serde_json::to_string(&Resource::Link(l)).unwrap();
        assert_eq!(json, r#"{"type":"link","which":{"kind":"peer","from":0,"to":1,"engine":"sm","both_ways":true}}"#);
        assert_eq!(serde_json::from_str::<Resource>(&json).unwrap(), Resource::Link(l));
    }
}
