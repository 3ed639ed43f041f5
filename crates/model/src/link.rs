//! Links: what an interconnect roof bounds, and what the wires allow.
//!
//! A job that outgrows one GPU spends part of its time moving bytes between
//! GPUs (NVLink or PCIe peer to peer, NCCL collectives) and between the host
//! and a GPU (PCIe). Each of those paths gets a roof in bytes per second, as
//! a memory level does: a theoretical one from the wires (lanes x rate per
//! lane, links x rate per link) and measured ones from `roofline bench`
//! (copy engine or SM copies, one way or both ways, and NCCL's bus bandwidth
//! per collective and GPU count).
//!
//! Conventions, so that every figure compares with the tools people know:
//! - one way: bytes moved from one end to the other per second;
//! - both ways: the bytes moved in both directions together per second
//!   (nvbandwidth's "Total" of its bidirectional tests);
//! - collectives: NCCL's bus bandwidth as nccl-tests computes it
//!   ([`crate::link::CollectiveOp::bus_factor`]), which a ring
//!   algorithm can bring up to one GPU's one-way link bandwidth.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What moves the bytes of a peer-to-peer transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// The link itself: a theoretical roof from its lanes and rate.
    Wire,
    /// The GPU's DMA copy engines (`cudaMemcpyPeerAsync`).
    CopyEngine,
    /// A kernel's loads and stores through peer access.
    Sm,
}

impl Engine {
    /// How the engine reads in a table ("copy engine").
    pub fn label(self) -> &'static str {
        match self {
            Engine::Wire => "link",
            Engine::CopyEngine => "copy engine",
            Engine::Sm => "SM copy",
        }
    }
}

/// One path bytes take between the host and GPUs, or a collective over GPUs.
///
/// GPU numbers are CUDA device ordinals of the machine that measured them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Link {
    /// Pinned host memory to GPU `gpu`.
    HostToDevice {
        /// CUDA ordinal of the receiving GPU.
        gpu: u8,
    },
    /// GPU `gpu` to pinned host memory.
    DeviceToHost {
        /// CUDA ordinal of the sending GPU.
        gpu: u8,
    },
    /// GPU `from` to GPU `to`; with `both_ways`, both directions at once
    /// (the rate is then the sum of the two).
    Peer {
        /// CUDA ordinal of the sending GPU.
        from: u8,
        /// CUDA ordinal of the receiving GPU.
        to: u8,
        /// The wire itself, the copy engines or SM loads and stores.
        engine: Engine,
        /// Both directions at once.
        both_ways: bool,
    },
    /// NCCL's bus bandwidth of one collective over `gpus` GPUs.
    Collective {
        /// The collective.
        op: CollectiveOp,
        /// GPUs taking part, one rank each.
        gpus: u8,
    },
}

impl Link {
    /// "host to device", "peer copy engine", "all-reduce bus".
    pub fn label(self) -> &'static str {
        match self {
            Link::HostToDevice { .. } => "host to device",
            Link::DeviceToHost { .. } => "device to host",
            Link::Peer { engine: Engine::Wire, .. } => "peer link",
            Link::Peer { engine: Engine::CopyEngine, .. } => "peer copy engine",
            Link::Peer { engine: Engine::Sm, .. } => "peer SM copy",
            Link::Collective { op, .. } => op.bus_label(),
        }
    }

    /// The name in JSON tables and on the command line: "h2d", "p2p_ce".
    pub fn key(self) -> &'static str {
        match self {
            Link::HostToDevice { .. } => "h2d",
            Link::DeviceToHost { .. } => "d2h",
            Link::Peer { engine: Engine::Wire, .. } => "p2p_link",
            Link::Peer { engine: Engine::CopyEngine, .. } => "p2p_ce",
            Link::Peer { engine: Engine::Sm, .. } => "p2p_sm",
            Link::Collective { op, .. } => op.key(),
        }
    }

    /// "GPU 0 -> GPU 1", "GPU 0 <-> GPU 1", "host -> GPU 0", "2 GPUs".
    pub fn path(self) -> String {
        match self {
            Link::HostToDevice { gpu } => format!("host -> GPU {gpu}"),
            Link::DeviceToHost { gpu } => format!("GPU {gpu} -> host"),
            Link::Peer { from, to, both_ways: false, .. } => format!("GPU {from} -> GPU {to}"),
            Link::Peer { from, to, both_ways: true, .. } => format!("GPU {from} <-> GPU {to}"),
            Link::Collective { gpus, .. } => format!("{gpus} GPUs"),
        }
    }

    /// Whether GPU `gpu` is an end of this path (collectives involve every GPU).
    pub fn involves(self, gpu: u8) -> bool {
        match self {
            Link::HostToDevice { gpu: g } | Link::DeviceToHost { gpu: g } => g == gpu,
            Link::Peer { from, to, .. } => from == gpu || to == gpu,
            Link::Collective { .. } => true,
        }
    }

    /// The wire this path runs on: the link whose theoretical roof bounds
    /// it (itself for host links; the [`Engine::Wire`] of the same pair and
    /// direction for peer copies). Collectives have none: their bound is a
    /// GPU's one-way link bandwidth ([`theoretical_links`]).
    pub fn wire(self) -> Option<Link> {
        match self {
            Link::HostToDevice { .. } | Link::DeviceToHost { .. } => Some(self),
            Link::Peer { from, to, both_ways, .. } => Some(Link::Peer { from, to, engine: Engine::Wire, both_ways }),
            Link::Collective { .. } => None,
        }
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.label(), self.path())
    }
}

/// A collective operation (or point-to-point transfer) of NCCL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CollectiveOp {
    /// Every rank ends with the reduction of all ranks' buffers.
    AllReduce,
    /// Every rank ends with every rank's buffer, concatenated.
    AllGather,
    /// Each rank ends with its share of the reduction.
    ReduceScatter,
    /// One rank's buffer copied to every rank.
    Broadcast,
    /// The reduction of all ranks' buffers on one rank.
    Reduce,
    /// Send and receive, paired (NCCL's `SendRecv` kernel, all-to-all).
    SendRecv,
    /// Each rank sends a distinct share to every other rank.
    AllToAll,
}

impl CollectiveOp {
    /// The collectives `roofline bench` measures.
    pub const BENCHED: [CollectiveOp; 3] =
        [CollectiveOp::AllReduce, CollectiveOp::AllGather, CollectiveOp::ReduceScatter];

    /// Every operation.
    pub const ALL: [CollectiveOp; 7] = [
        CollectiveOp::AllReduce,
        CollectiveOp::AllGather,
        CollectiveOp::ReduceScatter,
        CollectiveOp::Broadcast,
        CollectiveOp::Reduce,
        CollectiveOp::SendRecv,
        CollectiveOp::AllToAll,
    ];

    /// "all-reduce".
    pub fn label(self) -> &'static str {
        match self {
            CollectiveOp::AllReduce => "all-reduce",
            CollectiveOp::AllGather => "all-gather",
            CollectiveOp::ReduceScatter => "reduce-scatter",
            CollectiveOp::Broadcast => "broadcast",
            CollectiveOp::Reduce => "reduce",
            CollectiveOp::SendRecv => "send/receive",
            CollectiveOp::AllToAll => "all-to-all",
        }
    }

    /// "all-reduce bus": the label of its roof.
    pub fn bus_label(self) -> &'static str {
        match self {
            CollectiveOp::AllReduce => "all-reduce bus",
            CollectiveOp::AllGather => "all-gather bus",
            CollectiveOp::ReduceScatter => "reduce-scatter bus",
            CollectiveOp::Broadcast => "broadcast bus",
            CollectiveOp::Reduce => "reduce bus",
            CollectiveOp::SendRecv => "send/receive bus",
            CollectiveOp::AllToAll => "all-to-all bus",
        }
    }

    /// The name in JSON and on the command line: "all_reduce".
    pub fn key(self) -> &'static str {
        match self {
            CollectiveOp::AllReduce => "all_reduce",
            CollectiveOp::AllGather => "all_gather",
            CollectiveOp::ReduceScatter => "reduce_scatter",
            CollectiveOp::Broadcast => "broadcast",
            CollectiveOp::Reduce => "reduce",
            CollectiveOp::SendRecv => "send_recv",
            CollectiveOp::AllToAll => "all_to_all",
        }
    }

    /// NCCL's name in kernel names and nccl-tests' program names.
    pub fn nccl_name(self) -> &'static str {
        match self {
            CollectiveOp::AllReduce => "AllReduce",
            CollectiveOp::AllGather => "AllGather",
            CollectiveOp::ReduceScatter => "ReduceScatter",
            CollectiveOp::Broadcast => "Broadcast",
            CollectiveOp::Reduce => "Reduce",
            CollectiveOp::SendRecv => "SendRecv",
            CollectiveOp::AllToAll => "AllToAll",
        }
    }

    /// nccl-tests' factor from algorithm bandwidth (message bytes / time) to
    /// bus bandwidth over `n` ranks: 2(n-1)/n for all-reduce, (n-1)/n for
    /// all-gather, reduce-scatter and all-to-all, 1 for broadcast, reduce
    /// and point-to-point. Bus bandwidth is what one rank's links carry, so
    /// it compares with the hardware's one-way link bandwidth whatever n is.
    /// For all-gather and reduce-scatter the message is the full (gathered)
    /// buffer, as nccl-tests counts it.
    pub fn bus_factor(self, n: u32) -> f64 {
        if n == 0 {
            return 0.0;
        }
        let n = n as f64;
        match self {
            CollectiveOp::AllReduce => 2.0 * (n - 1.0) / n,
            CollectiveOp::AllGather | CollectiveOp::ReduceScatter | CollectiveOp::AllToAll => (n - 1.0) / n,
            CollectiveOp::Broadcast | CollectiveOp::Reduce | CollectiveOp::SendRecv => 1.0,
        }
    }
}
