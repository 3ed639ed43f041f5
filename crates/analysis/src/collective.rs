//! Collectives on the roofline: NCCL's kernels recognised by name, the bytes
//! they moved over the links, and how close they came to the interconnect
//! roof of their kind.
//!
//! A collective does no FLOPs worth plotting, so the arithmetic-intensity
//! chart has no place for it; but its time is real and it has a roof: the
//! bus bandwidth `roofline bench` measured for the same collective (or, when
//! there is none, the peer link). Its traffic comes from the NVLink counters
//! Nsight Compute offers on multi-GPU machines (`nvltx__bytes`, the bytes
//! this GPU sent) or, when a timeline knows the message size, from the size
//! and nccl-tests' bus-bandwidth convention ([`CollectiveOp::bus_factor`]).
//! Either way the figure is bus bytes per second, the unit of the roof.
//!
//! NCCL names its kernels `ncclDevKernel_<Op>[_<RedOp>_<type>]_<ALGO>_<PROTO>`
//! (2.19 and later) and `ncclKernel_<Op>_<ALGO>_<PROTO>_<RedOp>_<type>`
//! before; [`NcclKernel::parse`] reads both (and RCCL's), by token, so a new
//! algorithm or type shows up as an unknown part rather than a miss.

use serde::{Deserialize, Serialize};

use roofline_model::{Ceiling, CollectiveOp, Kernel, Link, Machine, Origin, Resource};

/// NCCL's algorithm, from the kernel name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// Ring: data passes around a ring of the ranks.
    Ring,
    /// Tree: reduce up and broadcast down a tree.
    Tree,
    /// NVLink SHARP (multicast); never used by this tool's own benchmarks.
    Nvls,
    /// NVLink SHARP within a node, a tree between nodes.
    NvlsTree,
    /// CollNet (network SHARP), direct.
    CollnetDirect,
    /// CollNet (network SHARP), chain.
    CollnetChain,
    /// PAT (parallel aggregated trees).
    Pat,
}

/// NCCL's protocol, from the kernel name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// Low latency: 8-byte stores of 4 data bytes and a flag.
    Ll,
    /// 128-byte lines with 8 flag bytes.
    Ll128,
    /// Whole buffers with one flag per chunk, no per-line flags (large
    /// messages).
    Simple,
}

/// What a kernel name says about an NCCL kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NcclKernel {
    /// `None` for NCCL's generic kernels (`ncclDevKernel_Generic_4`), which
    /// run whatever work they are handed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<CollectiveOp>,
    /// "sum", "max", "premulsum".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduction: Option<String>,
    /// "f32", "bf16", "i8" (old names are normalised: float -> f32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datatype: Option<String>,
    /// The algorithm (ring, tree, ...), when the name says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<Algorithm>,
    /// The protocol (LL, LL128, Simple), when the name says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<Protocol>,
    /// Parts of the name not understood, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other: Vec<String>,
}

const REDUCTIONS: [&str; 7] = ["sum", "prod", "min", "max", "premulsum", "sumpostdiv", "avg"];
const DATATYPES: [&str; 12] = ["i8", "u8", "i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64", "f8e4m3", "f8e5m2"];
/// Old (pre-2.19) and RCCL type spellings, longest first where one contains another.
const TYPE_SPELLINGS: [(&str, &str); 14] = [
    ("__nv_fp8_e4m3", "f8e4m3"),
    ("__nv_fp8_e5m2", "f8e5m2"),
    ("__nv_bfloat16", "bf16"),
    ("rccl_bfloat16", "bf16"),
    ("uint8_t", "u8"),
    ("uint32_t", "u32"),
    ("uint64_t", "u64"),
    ("int8_t", "i8"),
    ("int32_t", "i32"),
    ("int64_t", "i64"),
    ("double", "f64"),
    ("float", "f32"),
    ("half", "f16"),
    ("bfloat16", "bf16"),
];

impl NcclKernel {
    /// Reads an NCCL kernel name (mangled names are expected demangled, as
    /// Nsight Compute prints them; a leading `void ` and the argument list
    /// are ignored). `None` when the name is not an NCCL kernel: its first
    /// part must start with `nccl` and end with `Kernel` (`ncclDevKernel`,
    /// `ncclKernel`, and the symmetric-memory kernels' prefixes).
    pub fn parse(name: &str) -> Option<NcclKernel> {
        let name = name.trim();
        let name = name.strip_prefix("void ").unwrap_or(name).trim_start();
        let base = name.split(['(', '<', ' ']).next().unwrap_or(name);
        let (prefix, rest) = base.split_once('_')?;
        if !(prefix.starts_with("nccl") && prefix.ends_with("Kernel")) {
            return None;
        }
        let mut rest = rest.to_string();
        for (from, to) in TYPE_SPELLINGS {
            // Whole tokens only: "float" but not "floatx".
            let padded = format!("_{rest}_");
            let needle = format!("_{from}_");
            if padded.contains(&needle) {
                rest = padded.replace(&needle, &format!("_{to}_")).trim_matches('_').to_string();
            }
        }
        let tokens: Vec<&str> = rest.split('_').filter(|t| !t.is_empty()).collect();
        let mut k = NcclKernel {
            op: None,
            reduction: None,
            datatype: None,
            algorithm: None,
            protocol: None,
            other: Vec::new(),
        };
        let mut i = 0;
        while i < tokens.len() {
            let t = tokens[i];
            let next = tokens.get(i + 1).copied();
            let lower = t.to_ascii_lowercase();
            let two = |a: &str, b: &str| lower == a && next.is_some_and(|n| n.eq_ignore_ascii_case(b));
            if k.op.is_none() && i == 0 {
                if let Some(op) = CollectiveOp::ALL.into_iter().find(|o| o.nccl_name().eq_ignore_ascii_case(t)) {
                    k.op = Some(op);
                    i += 1;
                    continue;
                }
                if lower == "generic" {
                    i += 1;
                    // `Generic_4`: the number is its unroll, not a part to report.
                    if next.is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())) {
                        i += 1;
                    }
                    continue;
                }
            }
            if two("nvls", "tree") {
                k.algorithm = Some(Algorithm::NvlsTree);
                i += 2;
                continue;
            }
            if two("collnet", "direct") || two("collnet", "chain") {
                let chain = next.is_some_and(|n| n.eq_ignore_ascii_case("chain"));
                k.algorithm = Some(if chain { Algorithm::CollnetChain } else { Algorithm::CollnetDirect });
                i += 2;
                continue;
            }
            match lower.as_str() {
                "ring" => k.algorithm = Some(Algorithm::Ring),
                "tree" => k.algorithm = Some(Algorithm::Tree),
                "nvls" => k.algorithm = Some(Algorithm::Nvls),
                "pat" => k.algorithm = Some(Algorithm::Pat),
                "ll" => k.protocol = Some(Protocol::Ll),
                "ll128" => k.protocol = Some(Protocol::Ll128),
                "simple" => k.protocol = Some(Protocol::Simple),
                r if k.reduction.is_none() && REDUCTIONS.contains(&r) => k.reduction = Some(r.to_string()),
                d if k.datatype.is_none() && DATATYPES.contains(&d) => k.datatype = Some(d.to_string()),
                _ => k.other.push(t.to_string()),
            }
            i += 1;
        }
        Some(k)
    }

    /// "all-reduce sum f32, ring LL".
    pub fn describe(&self) -> String {
        let mut head = self.op.map(|o| o.label().to_string()).unwrap_or_else(|| "NCCL kernel".into());
        for part in [&self.reduction, &self.datatype].into_iter().flatten() {
            head.push(' ');
            head.push_str(part);
        }
        let algo = self.algorithm.map(|a| match a {
            Algorithm::Ring => "ring",
            Algorithm::Tree => "tree",
            Algorithm::Nvls => "NVLS",
            Algorithm::NvlsTree => "NVLS tree",
            Algorithm::CollnetDirect => "CollNet direct",
            Algorithm::CollnetChain => "CollNet chain",
            Algorithm::Pat => "PAT",
        });
        let proto = self.protocol.map(|p| match p {
            Protocol::Ll => "LL",
            Protocol::Ll128 => "LL128",
            Protocol::Simple => "Simple",
        });
        let tail: Vec<&str> = [algo, proto].into_iter().flatten().collect();
        if tail.is_empty() {
            head
        } else {
            format!("{head}, {}", tail.join(" "))
        }
    }
}

impl Protocol {
    /// Data bytes per byte on the wire: LL stores 4 data bytes with a 4-byte
    /// flag, LL128 120 data bytes per 128-byte line, Simple data alone.
    pub fn efficiency(self) -> f64 {
        match self {
            Protocol::Ll => 0.5,
            Protocol::Ll128 => 120.0 / 128.0,
            Protocol::Simple => 1.0,
        }
    }
}

/// Where a collective's byte count came from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum Traffic {
    /// Nsight Compute's NVLink counters: bytes this GPU received and sent.
    /// The larger of the two, less the flags of the kernel's protocol
    /// ([`Protocol::efficiency`]), is the kernel's bus bytes.
    NvlinkCounters {
        /// Bytes received over NVLink.
        rx: f64,
        /// Bytes sent over NVLink.
        tx: f64,
    },
    /// The message size a timeline recorded, times the bus factor for
    /// `ranks` ranks.
    MessageSize {
        /// The message size, bytes.
        message_bytes: f64,
        /// Ranks in the communicator.
        ranks: u32,
    },
}

impl Traffic {
    /// Data bytes one GPU's links carried one way (bus bytes).
    pub fn bus_bytes(self, op: Option<CollectiveOp>, protocol: Option<Protocol>) -> Option<f64> {
        match self {
            Traffic::NvlinkCounters { rx, tx } => {
                Some(rx.max(tx) * protocol.map(Protocol::efficiency).unwrap_or(1.0)).filter(|b| *b > 0.0)
            }
            Traffic::MessageSize { message_bytes, ranks } => {
                op.map(|o| message_bytes * o.bus_factor(ranks)).filter(|b| *b > 0.0)
            }
        }
    }

    /// How the figure was obtained, for provenance.
    pub fn origin(self) -> Origin {
        match self {
            Traffic::NvlinkCounters { .. } => Origin::Counter,
            Traffic::MessageSize { .. } => Origin::Derived,
        }
    }
}

/// A collective kernel placed against its interconnect roof.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectivePlacement {
    /// What the kernel name says (operation, type, algorithm, protocol).
    pub nccl: NcclKernel,
    /// Where the byte count came from; `None` when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<Traffic>,
    /// Bus bytes: what one GPU's links carried one way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus_bytes: Option<f64>,
    /// Bus bytes per second over the kernel's duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub achieved_bytes_per_s: Option<f64>,
    /// The roof it is judged against ("all-reduce bus 2 GPUs (measured)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roof_name: Option<String>,
    /// That roof's rate, B/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roof_bytes_per_s: Option<f64>,
    /// Whether that roof is measured or theoretical.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roof_origin: Option<Origin>,
    /// `achieved_bytes_per_s` as a share of the roof, %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_of_roof: Option<f64>,
}

/// The roof a collective is judged against: the machine's bus-bandwidth
/// roof of the same collective (`gpus` of them when known, else the one
/// over the most GPUs), else the best one-way peer roof (a ring's bus
/// bandwidth cannot beat one link direction). Measured roofs are preferred.
pub fn collective_roof(machine: &Machine, op: Option<CollectiveOp>, gpus: Option<u8>) -> Option<&Ceiling> {
    let links = || {
        machine.ceilings.iter().filter_map(|c| match c.resource {
            Resource::Link(l) if !c.secondary => Some((l, c)),
            _ => None,
        })
    };
    if let Some(op) = op {
        let mut counts: Vec<u8> = links()
            .filter_map(|(l, _)| match l {
                Link::Collective { op: o, gpus } if o == op => Some(gpus),
                _ => None,
            })
            .collect();
        counts.sort_unstable();
        let n = match gpus {
            Some(g) if counts.contains(&g) => Some(g),
            _ => counts.last().copied(),
        };
        if let Some(n) = n {
            if let Some(c) = machine.roof(Resource::Link(Link::Collective { op, gpus: n })) {
                return Some(c);
            }
        }
    }
    let peers: Vec<&Ceiling> =
        links().filter(|(l, _)| matches!(l, Link::Peer { both_ways: false, .. })).map(|(_, c)| c).collect();
    let measured =
        peers.iter().filter(|c| c.provenance.origin == Origin::Measured).max_by(|a, b| a.rate.total_cmp(&b.rate));
    measured.or_else(|| peers.iter().max_by(|a, b| a.rate.total_cmp(&b.rate))).copied()
}

/// Places a kernel against the interconnect when its name is an NCCL
/// kernel's; `None` for every other kernel.
pub fn place(machine: &Machine, kernel: &Kernel) -> Option<CollectivePlacement> {
    let nccl = NcclKernel::parse(&kernel.name)?;
    let e = &kernel.evidence;
    let traffic = match (e.nvlink_rx_bytes, e.nvlink_tx_bytes) {
        (None, None) => None,
        (rx, tx) => Some(Traffic::NvlinkCounters { rx: rx.unwrap_or(0.0), tx: tx.unwrap_or(0.0) }),
    };
    Some(placement(machine, nccl, traffic, kernel.duration_s, None))
}

/// A collective with known traffic and duration, against `machine`.
pub fn placement(
    machine: &Machine,
    nccl: NcclKernel,
    traffic: Option<Traffic>,
    duration_s: Option<f64>,
    gpus: Option<u8>,
) -> CollectivePlacement {
    let bus_bytes = traffic.and_then(|t| t.bus_bytes(nccl.op, nccl.protocol));
    let duration = duration_s.filter(|d| *d > 0.0 && d.is_finite());
    let achieved = match (bus_bytes, duration) {
        (Some(b), Some(d)) => Some(b / d),
        _ => None,
    };
    let gpus = gpus.or(match traffic {
        Some(Traffic::MessageSize { ranks, .. }) => u8::try_from(ranks).ok(),
        _ => None,
    });
    let roof = collective_roof(machine, nccl.op, gpus);
    let pct = match (achieved, roof) {
        (Some(a), Some(r)) if r.rate > 0.0 => Some(100.0 * a / r.rate),
        _ => None,
    };
    CollectivePlacement {
        nccl,
        traffic,
        bus_bytes,
        achieved_bytes_per_s: achieved,
        roof_name: roof.map(|r| r.name.clone()),
        roof_bytes_per_s: roof.map(|r| r.rate),
        roof_origin: roof.map(|r| r.provenance.origin),
        pct_of_roof: pct,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roofline_model::Engine;
    use roofline_model::{Provenance, Resource};

    fn parse(name: &str) -> NcclKernel {
        NcclKernel::parse(name).unwrap_or_else(|| panic!("{name} is an NCCL kernel"))
    }

    #[test]
    fn nccl_2_19_names_give_op_reduction_type_algorithm_and_protocol() {
        let k = parse("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
        assert_eq!(k.op, Some(CollectiveOp::AllReduce));
        assert_eq!((k.reduction.as_deref(), k.datatype.as_deref()), (Some("sum"), Some("f32")));
        assert_eq!((k.algorithm, k.protocol), (Some(Algorithm::Ring), Some(Protocol::Ll)));
        assert!(k.other.is_empty(), "{:?}", k.other);
        assert_eq!(k.describe(), "all-reduce sum f32, ring LL");
        let rs = parse("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL");
        assert_eq!((rs.op, rs.datatype.as_deref()), (Some(CollectiveOp::ReduceScatter), Some("bf16")));
        let ag = parse("ncclDevKernel_AllGather_RING_LL");
        assert_eq!((ag.op, ag.reduction, ag.protocol), (Some(CollectiveOp::AllGather), None, Some(Protocol::Ll)));
        let simple = parse("ncclDevKernel_AllReduce_Sum_f32_RING_SIMPLE");
        assert_eq!(simple.protocol, Some(Protocol::Simple));
        let nvls = parse("ncclDevKernel_AllReduce_Sum_bf16_NVLS_TREE_SIMPLE");
        assert_eq!(nvls.algorithm, Some(Algorithm::NvlsTree));
        let sr = parse("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)");
        assert_eq!((sr.op, sr.algorithm), (Some(CollectiveOp::SendRecv), None));
    }

    #[test]
    fn pre_2_19_names_put_the_type_last_and_spell_it_in_c() {
        let k = parse("void ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)");
        assert_eq!(k.op, Some(CollectiveOp::AllReduce));
        assert_eq!((k.reduction.as_deref(), k.datatype.as_deref()), (Some("sum"), Some("f32")));
        assert_eq!((k.algorithm, k.protocol), (Some(Algorithm::Ring), Some(Protocol::Ll)));
        let i8 = parse("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
        assert_eq!((i8.op, i8.datatype.as_deref()), (Some(CollectiveOp::SendRecv), Some("i8")));
        let u8 = parse("ncclKernel_AllGather_RING_LL128_Sum_uint8_t");
        assert_eq!((u8.datatype.as_deref(), u8.protocol), (Some("u8"), Some(Protocol::Ll128)));
        let bf = parse("ncclKernel_ReduceScatter_RING_SIMPLE_Sum___nv_bfloat16");
        assert_eq!(bf.datatype.as_deref(), Some("bf16"));
    }

    #[test]
    fn generic_and_unknown_parts_are_kept_not_guessed() {
        let g = parse("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)");
        assert_eq!(g.op, None);
        assert!(g.other.is_empty(), "{:?}", g.other);
        assert_eq!(g.describe(), "NCCL kernel");
        let future = parse("ncclDevKernel_AllReduce_Sum_f4e2m1_WARP_LL");
        assert_eq!(future.op, Some(CollectiveOp::AllReduce));
        assert_eq!(future.other, vec!["f4e2m1".to_string(), "WARP".to_string()]);
        assert_eq!(future.protocol, Some(Protocol::Ll));
    }

    #[test]
    fn other_kernels_are_not_nccl() {
        for name in [
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, float*)",
            "nccl_like_reduce",
            "ncclFooBar_AllReduce",
            "my_ncclDevKernel_AllReduce",
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64",
            "",
        ] {
            assert_eq!(NcclKernel::parse(name), None, "{name}");
        }
    }

    #[test]
    fn bus_factors_follow_nccl_tests() {
        assert_eq!(CollectiveOp::AllReduce.bus_factor(2), 1.0);
        assert_eq!(CollectiveOp::AllReduce.bus_factor(8), 1.75);
        assert_eq!(CollectiveOp::AllGather.bus_factor(2), 0.5);
        assert_eq!(CollectiveOp::ReduceScatter.bus_factor(4), 0.75);
        assert_eq!(CollectiveOp::Broadcast.bus_factor(8), 1.0);
        assert_eq!(CollectiveOp::AllReduce.bus_factor(0), 0.0);
    }

    fn machine_with(roofs: &[(Link, f64, Origin)]) -> Machine {
        let mut m = Machine::default();
        for (l, r, o) in roofs {
            m.ceilings.push(Ceiling::new(Resource::Link(*l), l.to_string(), *r, Provenance::new(*o, "test")));
        }
        m
    }

    #[test]
    fn an_all_reduce_is_judged_against_the_measured_all_reduce_roof() {
        let ar = Link::Collective { op: CollectiveOp::AllReduce, gpus: 2 };
        let m = machine_with(&[
            (ar, 450e9, Origin::Theoretical),
            (ar, 360e9, Origin::Measured),
            (Link::Peer { from: 0, to: 1, engine: Engine::CopyEngine, both_ways: false }, 380e9, Origin::Measured),
        ]);
        let mut k = Kernel::named(
            "ncclDevKernel_AllReduce_Sum_f32_RING_SIMPLE(ncclDevKernelArgsStorage<4096ul>)",
            Origin::Counter,
        );
        k.duration_s = Some(1e-3);
        k.evidence.nvlink_tx_bytes = Some(180e6);
        k.evidence.nvlink_rx_bytes = Some(170e6);
        let p = place(&m, &k).unwrap();
        assert_eq!(p.bus_bytes, Some(180e6));
        assert_eq!(p.achieved_bytes_per_s, Some(180e9));
        assert_eq!(p.roof_bytes_per_s, Some(360e9));
        assert_eq!(p.roof_origin, Some(Origin::Measured));
        assert_eq!(p.pct_of_roof, Some(50.0));
        // LL sends a 4-byte flag with every 4 data bytes: half the wire is data.
        k.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)".into();
        let ll = place(&m, &k).unwrap();
        assert_eq!((ll.bus_bytes, ll.pct_of_roof), (Some(90e6), Some(25.0)));
        k.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL128".into();
        assert_eq!(place(&m, &k).unwrap().bus_bytes, Some(180e6 * 120.0 / 128.0));
    }

    #[test]
    fn without_its_own_roof_a_collective_falls_back_to_the_best_measured_peer_link() {
        let m = machine_with(&[
            (Link::Peer { from: 0, to: 1, engine: Engine::Wire, both_ways: false }, 450e9, Origin::Theoretical),
            (Link::Peer { from: 0, to: 1, engine: Engine::Sm, both_ways: false }, 300e9, Origin::Measured),
            (Link::Peer { from: 0, to: 1, engine: Engine::CopyEngine, both_ways: false }, 380e9, Origin::Measured),
            (Link::Peer { from: 0, to: 1, engine: Engine::CopyEngine, both_ways: true }, 700e9, Origin::Measured),
        ]);
        let r = collective_roof(&m, Some(CollectiveOp::SendRecv), None).unwrap();
        assert_eq!(r.rate, 380e9);
        assert!(collective_roof(&Machine::default(), Some(CollectiveOp::AllReduce), None).is_none());
    }

    #[test]
    fn message_size_gives_bus_bytes_by_the_bus_factor() {
        let t = Traffic::MessageSize { message_bytes: 100e6, ranks: 4 };
        assert_eq!(t.bus_bytes(Some(CollectiveOp::AllReduce), None), Some(150e6));
        assert_eq!(t.bus_bytes(None, None), None, "no op, no factor");
        let ag = Link::Collective { op: CollectiveOp::AllGather, gpus: 4 };
        let m = machine_with(&[
            (ag, 300e9, Origin::Measured),
            (Link::Collective { op: CollectiveOp::AllGather, gpus: 2 }, 350e9, Origin::Measured),
        ]);
        let nccl = parse("ncclDevKernel_AllGather_RING_LL");
        let p = placement(&m, nccl, Some(Traffic::MessageSize { message_bytes: 400e6, ranks: 4 }), Some(1e-3), None);
        assert_eq!(p.bus_bytes, Some(300e6));
        assert_eq!(p.roof_bytes_per_s, Some(300e9), "the roof of the same GPU count");
        assert_eq!(p.pct_of_roof, Some(100.0));
    }

    #[test]
    fn zero_duration_or_no_counters_leave_no_rate() {
        let m = machine_with(&[]);
        let mut k = Kernel::named("ncclDevKernel_AllGather_RING_LL", Origin::Counter);
        k.duration_s = Some(0.0);
        k.evidence.nvlink_tx_bytes = Some(1e6);
        let p = place(&m, &k).unwrap();
        assert_eq!((p.achieved_bytes_per_s, p.pct_of_roof), (None, None));
        k.duration_s = Some(1e-3);
        k.evidence.nvlink_tx_bytes = None;
        assert_eq!(place(&m, &k).unwrap().traffic, None);
        assert!(place(&m, &Kernel::named("gemm", Origin::Counter)).is_none());
    }
}
