//! The old grouping: launch indexes per kernel, summed per group.

use roofline_analysis::level_caveats;
use roofline_model::{short_id, Kernel};
use roofline_model::{FlopKind, Origin};

use super::points::{bytes, duration, evidence, flops, fp16_accounting};
use crate::csv::{Launch, RawCapture};
use crate::points::ByteConvention;
use roofline_model::display_names;

/// Launches that belong to one kernel.
#[derive(Debug, Clone)]
pub struct Group {
    /// Indexes into `RawCapture::launches`, in capture order.
    pub launches: Vec<usize>,
    /// Their counters summed (durations added, clocks duration-weighted).
    pub kernel: Kernel,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key {
    process: std::sync::Arc<str>,
    device: std::sync::Arc<str>,
    context: std::sync::Arc<str>,
    stream: std::sync::Arc<str>,
    name: std::sync::Arc<str>,
}

fn key(l: &Launch) -> Key {
    Key {
        process: l.process_id.clone(),
        device: l.device.clone(),
        context: l.context.clone(),
        stream: l.stream.clone(),
        name: l.kernel_name.clone(),
    }
}

/// The launches a kernel's point is made of. Rates divide FLOPs and bytes
/// by time, so both must come from the same launches: when some launches of
/// a kernel have a usable duration and others do not (zero, `n/a`,
/// missing), the point is made of the timed ones alone; the others are
/// returned to be reported. With no timed launch at all, the point keeps
/// every launch's FLOPs and bytes and has no time (no rates).
pub fn timed_launches<'a>(launches: &[&'a Launch]) -> (Vec<&'a Launch>, Vec<&'a Launch>) {
    let (timed, untimed): (Vec<&Launch>, Vec<&Launch>) = launches.iter().partition(|l| duration(l).is_some());
    if timed.is_empty() {
        (untimed, Vec::new())
    } else {
        (timed, untimed)
    }
}

/// A kernel made of `launches` (FLOPs, bytes and time summed), or of its
/// timed launches alone when only some are timed ([`timed_launches`]).
pub fn kernel_of(launches: &[&Launch], conv: ByteConvention, name: &str, id: String, display: String) -> Kernel {
    let (launches, _) = timed_launches(launches);
    let launches = &launches[..];
    let mut k = Kernel::named(name, Origin::Counter);
    k.id = id;
    k.display_name = display;
    k.launches = launches.len() as u64;
    let mut time = 0.0;
    let mut timed = false;
    for l in launches {
        for (kind, v) in flops(l) {
            *k.flops.entry(kind).or_insert(0.0) += v;
        }
        for (level, v) in bytes(l, conv) {
            *k.bytes.entry(level).or_insert(0.0) += v;
        }
        if let Some(d) = duration(l) {
            time += d;
            timed = true;
        }
    }
    k.duration_s = timed.then_some(time);
    k.evidence = evidence(launches).into();
    k.evidence.fp16 = fp16_accounting(launches, &k.flops);
    if k.evidence.fp16.as_ref().is_some_and(|f| f.constant_moves.is_some()) {
        k.flops.remove(&FlopKind::Fp16);
    }
    k.unmeasured = level_caveats(&k.bytes, &k.evidence, conv == ByteConvention::Nersc);
    k
}

/// Groups launches per kernel, in order of first appearance. Names get a
/// `[pid ..., dev ..., stream ...]` suffix only where the capture has
/// several processes, devices, contexts or streams.
pub fn group(cap: &RawCapture, conv: ByteConvention, per_launch: bool) -> Vec<Group> {
    let distinct = |f: fn(&Launch) -> &str| {
        let mut v: Vec<&str> = cap.launches.iter().map(f).collect();
        v.sort();
        v.dedup();
        v.len() > 1
    };
    let many_proc = distinct(|l| &l.process_id);
    let many_dev = distinct(|l| &l.device);
    let many_ctx = distinct(|l| &l.context);
    let many_stream = distinct(|l| &l.stream);
    let mut launch_ids: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut order: Vec<(Key, Vec<usize>)> = Vec::new();
    let mut index: std::collections::HashMap<Key, usize> = std::collections::HashMap::new();
    for (i, l) in cap.launches.iter().enumerate() {
        if per_launch {
            order.push((key(l), vec![i]));
            continue;
        }
        let k = key(l);
        match index.get(&k) {
            Some(&g) => order[g].1.push(i),
            None => {
                index.insert(k.clone(), order.len());
                order.push((k, vec![i]));
            }
        }
    }
    let all_names: Vec<&str> = order.iter().map(|(k, _)| &*k.name).collect();
    let displays = display_names(&all_names);
    order
        .into_iter()
        .zip(displays)
        .map(|((k, idx), display)| {
            let mut tags = Vec::new();
            if many_proc {
                tags.push(format!("pid {}", k.process));
            }
            if many_dev {
                tags.push(format!("dev {}", k.device));
            }
            if many_ctx {
                tags.push(format!("ctx {}", k.context));
            }
            if many_stream {
                tags.push(format!("stream {}", k.stream));
            }
            let mut display = display;
            let mut id_source = k.name.to_string();
            if !tags.is_empty() {
                display = format!("{display} [{}]", tags.join(", "));
                id_source = format!("{id_source}\u{1f}{}", tags.join(","));
            }
            let mut id = short_id(&id_source);
            if per_launch {
                let l = &cap.launches[idx[0]];
                display = format!("{display} #{}", l.id);
                id = format!("{id}-{}", l.id);
                // Captures joined together repeat launch IDs; kernel IDs stay unique.
                let seen = launch_ids.entry(id.clone()).or_insert(0);
                *seen += 1;
                if *seen > 1 {
                    id = format!("{id}.{seen}");
                    display = format!("{display}.{seen}");
                }
            }
            let launches: Vec<&Launch> = idx.iter().map(|&i| &cap.launches[i]).collect();
            let kernel = kernel_of(&launches, conv, &k.name, id, display);
            Group { launches: idx, kernel }
        })
        .collect()
}
