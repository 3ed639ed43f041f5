//! Ranks: one analysis per process of a multi-process job, merged into one
//! document with a rank dimension.
//!
//! Under torchrun, `mpirun` or `srun` every rank profiles itself and writes
//! its own analysis, named by its rank from the launcher's environment
//! ([`RankInfo::from_env`], [`expand_rank`]). `roofline merge` reads each
//! file into a [`ParsedRank`] (the few numbers per entry that the merge adds
//! up; the rest of the text is skipped while parsing), on as many threads as
//! there are cores ([`parse_in_order`]), and folds them one at a time, in the
//! order given, into a [`Merger`] (so memory grows with the number of
//! distinct kernels times ranks, not with the files' size, and the document
//! is the same bits whatever the threads). It produces a
//! [`MergedDocument`]:
//! - per kernel and rank, the GPU time; per kernel, its spread over the
//!   ranks that ran it and the slowest rank (the straggler) with how far
//!   behind the median it is;
//! - per rank, its GPU time split into compute-bound, memory-bound,
//!   communication (NCCL collectives) and not placed;
//! - the job as one analysis: every kernel's FLOPs, bytes, launches and time
//!   summed over the ranks and placed under the machine's roofs, so that
//!   `report`, `check` and `diff` judge the job as they judge one process.
//!
//! Two files that name the same rank (a pass over the compute kernels and a
//! pass over the collectives, say) are joined into that rank.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::ranks::{rank_from_file_name, RankInfo};
use crate::schema::{schema_at_head, AnalysisDocument, AnalysisSource, DocumentError, Producer};
use roofline_analysis::analyze;
use roofline_analysis::{time_class, TimeClass};
use roofline_model::Spread;
use roofline_model::Warning;
use roofline_model::{Evidence, EvidenceBox, Kernel};
use roofline_model::{FlopKind, Machine, MemLevel, Origin};

/// The `schema` string of a merged document.
pub const MERGED_SCHEMA: &str = "roofline.merged/v1";

/// GPU seconds per class, for one rank.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct TimeSplit {
    /// Compute-bound kernels.
    pub compute_s: f64,
    /// Memory-bound kernels.
    pub memory_s: f64,
    /// Collectives.
    pub communication_s: f64,
    /// Kernels with no roof or no duration to place them by.
    pub unplaced_s: f64,
}

impl TimeSplit {
    /// All four classes together, seconds.
    pub fn total(&self) -> f64 {
        self.compute_s + self.memory_s + self.communication_s + self.unplaced_s
    }

    /// Seconds of class `c`.
    pub fn get(&self, c: TimeClass) -> f64 {
        match c {
            TimeClass::Compute => self.compute_s,
            TimeClass::Memory => self.memory_s,
            TimeClass::Communication => self.communication_s,
            TimeClass::Unplaced => self.unplaced_s,
        }
    }

    fn add(&mut self, c: TimeClass, s: f64) {
        match c {
            TimeClass::Compute => self.compute_s += s,
            TimeClass::Memory => self.memory_s += s,
            TimeClass::Communication => self.communication_s += s,
            TimeClass::Unplaced => self.unplaced_s += s,
        }
    }
}

/// One rank of the job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankSummary {
    /// Global rank.
    pub rank: u32,
    /// The file(s) it came from.
    pub inputs: Vec<String>,
    /// What the launcher said, when the rank file recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<RankInfo>,
    /// The machine its kernels were judged against.
    pub machine: String,
    /// Distinct kernels it ran.
    pub kernels: usize,
    /// Kernel launches, all kernels.
    pub launches: u64,
    /// Summed duration of its kernels, seconds.
    pub time_s: f64,
    /// Its seconds per class.
    pub split: TimeSplit,
}

/// One kernel across the ranks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedKernel {
    /// Short stable ID (a hash of the full name).
    pub id: String,
    /// Full name.
    pub name: String,
    /// Short name for tables.
    pub display_name: String,
    /// Compute, memory, communication or not placed, in the job's analysis.
    pub class: TimeClass,
    /// Seconds per rank, in the order of [`MergedDocument::ranks`]; `None`
    /// where the rank did not run it (or ran it untimed).
    pub time_s: Vec<Option<f64>>,
    /// Over the ranks that ran it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
    /// The rank that took longest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slowest_rank: Option<u32>,
    /// How much longer the slowest rank took than the median rank, in %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind_median_pct: Option<f64>,
}

/// `roofline.merged/v1`: the ranks of a job in one document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedDocument {
    /// Always [`MERGED_SCHEMA`] when written.
    pub schema: String,
    /// The program that wrote it.
    pub producer: Producer,
    /// One summary per rank, by rank.
    pub ranks: Vec<RankSummary>,
    /// Every kernel, most GPU time (over all ranks) first.
    pub kernels: Vec<MergedKernel>,
    /// The job as one analysis (kernels summed over the ranks).
    pub job: AnalysisDocument,
    /// What the reader must know (ranks joined, machines differ, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[serde(serialize_with = "roofline_model::serialize_with_text")]
    pub warnings: Vec<Warning>,
}

/// A rank file that cannot be merged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MergeError {
    /// No files were given.
    #[error("no rank files to merge; give the files the ranks wrote, for example `roofline merge job.rank*.json -o job.json`")]
    Empty,
    /// No rank file has a kernel.
    #[error("{input}: no kernels in any of them; merge the profiles or timelines of ranks that ran kernels")]
    NoKernels {
        /// The files.
        input: String,
    },
}

/// One rank file as the merge keeps it: its machine and rank, its distinct
/// kernels (first appearance first) and, per entry of the file (a kernel,
/// or one launch of it in a `--per-launch` profile), the numbers the merge
/// adds up, in the file's order. It owns what it holds, so the file's text
/// can go (or be reused for the next file) as soon as it is read, on any
/// thread; [`Merger::add_parsed`] then folds entries in the same order as
/// if they had been read one by one, so the sums come out to the same bits.
#[derive(Debug, Clone)]
pub struct ParsedRank {
    machine: Machine,
    rank: Option<RankInfo>,
    kernels: Vec<KernelHead>,
    entries: Vec<Entry>,
}

impl ParsedRank {
    /// Entries read (kernels, or launches in a per-launch profile).
    pub fn entries(&self) -> usize {
        self.entries.len()
    }
}

/// A kernel's identity, from its first entry in the file.
#[derive(Debug, Clone)]
struct KernelHead {
    id: String,
    name: String,
    display_name: String,
    origin: Origin,
}

/// What one entry adds to its kernel and its rank.
#[derive(Debug, Clone)]
struct Entry {
    /// Index in [`ParsedRank::kernels`].
    kernel: u32,
    class: TimeClass,
    /// Seconds, when finite and positive.
    duration_s: Option<f64>,
    launches: u64,
    /// FLOPs per kind, in [`FlopKind::ALL`] order (NaN: none).
    flops: [f64; 9],
    /// Bytes per level, in [`MemLevel::ALL`] order (NaN: none).
    bytes: [f64; 3],
    /// NVLink bytes received and sent (collectives only).
    nvlink: (Option<f64>, Option<f64>),
    /// The entry's evidence, kept only when the entry took longer than every
    /// earlier entry of its kernel in this file: only such an entry can be
    /// the job's longest of its kernel, whose evidence the merge keeps
    /// (boxed only when there is some: a timeline's kernels have none).
    evidence: Option<EvidenceBox>,
}

/// Builds a [`ParsedRank`] entry by entry (from text or from a document).
struct RankBuilder<'n> {
    rank: ParsedRank,
    by_name: FastMap<Cow<'n, str>, u32>,
    /// Per kernel, the longest entry so far in this file (-1 before any).
    longest: Vec<f64>,
}

impl<'n> RankBuilder<'n> {
    fn new(machine: Machine) -> Self {
        RankBuilder {
            rank: ParsedRank { machine, rank: None, kernels: Vec::new(), entries: Vec::new() },
            by_name: FastMap::default(),
            longest: Vec::new(),
        }
    }

    /// Adds one entry of the kernel `name` (`head` gives its identity
    /// when it is new to the file); `evidence` is called only when the
    /// entry's evidence is kept.
    fn push(
        &mut self,
        name: Cow<'n, str>,
        head: impl FnOnce(&str) -> KernelHead,
        mut entry: Entry,
        evidence: impl FnOnce() -> Evidence,
    ) {
        let kernel = match self.by_name.get(name.as_ref()) {
            Some(&i) => i,
            None => {
                let i = self.rank.kernels.len() as u32;
                self.rank.kernels.push(head(&name));
                self.by_name.insert(name, i);
                self.longest.push(-1.0);
                i
            }
        };
        entry.kernel = kernel;
        entry.duration_s = entry.duration_s.filter(|d| d.is_finite() && *d > 0.0);
        let weight = entry.duration_s.unwrap_or(0.0);
        let longest = &mut self.longest[kernel as usize];
        if weight > *longest {
            *longest = weight;
            entry.evidence = Some(evidence().into());
        }
        self.rank.entries.push(entry);
    }
}

/// One entry of a rank file's `kernels`, as the merge reads it: the kernel
/// and where it landed (the side of the ridge, or a collective). Names are
/// borrowed from the text where they have no escapes, and the rest of the
/// entry (levels, diagnosis) is skipped while parsing.
#[derive(Deserialize)]
struct EntryText<'a> {
    #[serde(borrow)]
    kernel: KernelText<'a>,
    #[serde(default)]
    bound: Option<roofline_analysis::Bound>,
    /// Present for collectives (its content is recomputed for the job).
    #[serde(default)]
    collective: Option<serde::de::IgnoredAny>,
}

/// The parts of a [`Kernel`] the merge sums.
#[derive(Deserialize)]
struct KernelText<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    display_name: Cow<'a, str>,
    #[serde(default = "no_flops", deserialize_with = "flop_array")]
    flops: [f64; 9],
    #[serde(default = "no_bytes", deserialize_with = "byte_array")]
    bytes: [f64; 3],
    #[serde(default)]
    duration_s: Option<f64>,
    #[serde(default = "roofline_model::one_launch")]
    launches: u64,
    origin: Origin,
    /// The evidence as written, parsed only if kept (or for a
    /// collective's NVLink bytes).
    #[serde(borrow, default, deserialize_with = "raw_bytes")]
    evidence: Option<&'a [u8]>,
}

/// A value's text as written, checked by serde_json.
fn raw_bytes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de [u8]>, D::Error> {
    let raw: Option<&'de serde_json::value::RawValue> = Deserialize::deserialize(d)?;
    Ok(raw.map(|r| r.get().as_bytes()))
}

/// A unit variant (an origin, a bound) by its serde name, as serde_json
/// reads it from a string without escapes.
fn by_serde_name<'a, T: Deserialize<'a>>(name: &'a str) -> Option<T> {
    use serde::de::value::{BorrowedStrDeserializer, Error};
    T::deserialize(BorrowedStrDeserializer::<Error>::new(name)).ok()
}

/// The next value when it is a number serde_json reads as this `f64`: not
/// negative (left to serde_json, which reads `-0` its own way), finite.
fn float(s: &mut crate::scan::Scan<'_>) -> Option<f64> {
    let (digits, _) = s.number()?;
    if digits[0] == b'-' {
        return None;
    }
    // Correctly rounded, as serde_json's `float_roundtrip` reads it; an
    // integer that fits a u64 is exact either way or rounded to the
    // nearest, as serde_json's `u64 as f64`.
    let v: f64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    v.is_finite().then_some(v)
}

/// A collective's NVLink bytes read from its evidence by hand; `None` for
/// anything [`NvlinkOnly`]'s serde reading might read otherwise (a
/// duplicate, a negative number, an escaped key), which then reads it.
fn nvlink_by_hand(raw: &[u8]) -> Option<NvlinkOnly> {
    let mut s = crate::scan::Scan::new(raw);
    let (mut rx, mut tx) = (None, None);
    s.fields(|key, s| {
        let slot = match key {
            b"nvlink_rx_bytes" => &mut rx,
            b"nvlink_tx_bytes" => &mut tx,
            _ => {
                s.skip_value()?;
                return Some(());
            }
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(if s.null() { None } else { Some(float(s)?) });
        Some(())
    })?;
    s.at_end().then_some(NvlinkOnly { nvlink_rx_bytes: rx.flatten(), nvlink_tx_bytes: tx.flatten() })
}

/// An entry's kernel object read by the skimming reader without
/// serde_json: its names borrowed, its numbers parsed as serde_json parses
/// them (correctly rounded, as `str::parse`), its kinds and levels and
/// origin by their serde names, its evidence stepped over (checked only if
/// kept, [`push_text`]) like any member the merge does not read. `None`,
/// with the scan left anywhere, for whatever serde_json might read another
/// way or refuse (an escape, a negative or out of range number, an unknown
/// kind, a duplicate or missing field): the caller seeks back and hands the
/// object's text to serde_json.
fn skim_kernel<'a>(s: &mut crate::scan::Scan<'a>) -> Option<KernelText<'a>> {
    use serde::de::value::Error;
    fn text<'a>(s: &mut crate::scan::Scan<'a>) -> Option<&'a str> {
        std::str::from_utf8(s.plain_string()?).ok()
    }
    fn map<K: serde::de::DeserializeOwned, const N: usize>(
        s: &mut crate::scan::Scan<'_>,
        index: fn(K) -> usize,
    ) -> Option<[f64; N]> {
        use serde::de::value::StrDeserializer;
        let mut out = [f64::NAN; N];
        s.fields(|key, s| {
            let key = K::deserialize(StrDeserializer::<Error>::new(std::str::from_utf8(key).ok()?)).ok()?;
            let i = index(key);
            let v = float(s)?;
            out[i] = if out[i].is_nan() { v } else { out[i] + v };
            Some(())
        })?;
        Some(out)
    }
    let (mut id, mut name, mut display_name, mut origin) = (None, None, None, None);
    let (mut flops, mut bytes, mut duration_s, mut launches, mut evidence) = (None, None, None, None, None);
    s.fields(|key, s| {
        match key {
            b"id" if id.is_none() => id = Some(text(s)?),
            b"name" if name.is_none() => name = Some(text(s)?),
            b"display_name" if display_name.is_none() => display_name = Some(text(s)?),
            b"origin" if origin.is_none() => origin = Some(by_serde_name::<Origin>(text(s)?)?),
            b"flops" if flops.is_none() => flops = Some(map(s, flop_index)?),
            b"bytes" if bytes.is_none() => bytes = Some(map(s, byte_index)?),
            b"duration_s" if duration_s.is_none() => duration_s = Some(if s.null() { None } else { Some(float(s)?) }),
            b"launches" if launches.is_none() => {
                let (digits, integer) = s.number()?;
                launches =
                    Some(if integer { std::str::from_utf8(digits).ok()?.parse::<u64>().ok()? } else { return None });
            }
            b"evidence" if evidence.is_none() => {
                evidence = Some(if s.null() { None } else { Some(s.skip_value()?) });
            }
            b"id" | b"name" | b"display_name" | b"origin" | b"flops" | b"bytes" | b"duration_s" | b"launches"
            | b"evidence" => return None,
            _ => {
                s.skip_value()?;
            }
        }
        Some(())
    })?;
    Some(KernelText {
        id: Cow::Borrowed(id?),
        name: Cow::Borrowed(name?),
        display_name: Cow::Borrowed(display_name.unwrap_or_default()),
        flops: flops.unwrap_or_else(no_flops),
        bytes: bytes.unwrap_or_else(no_bytes),
        duration_s: duration_s.flatten(),
        launches: launches.unwrap_or_else(roofline_model::one_launch),
        origin: origin?,
        evidence: evidence.flatten(),
    })
}

fn no_flops() -> [f64; 9] {
    [f64::NAN; 9]
}

fn no_bytes() -> [f64; 3] {
    [f64::NAN; 3]
}

/// A map keyed by `K` read into an array indexed by `index(K)`, without
/// allocating: the merge reads two such maps per launch.
fn keyed_array<'de, D, K, const N: usize>(d: D, index: fn(K) -> usize) -> Result<[f64; N], D::Error>
where
    D: serde::Deserializer<'de>,
    K: Deserialize<'de>,
{
    struct V<K, const N: usize>(fn(K) -> usize);
    impl<'de, K: Deserialize<'de>, const N: usize> serde::de::Visitor<'de> for V<K, N> {
        type Value = [f64; N];
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of numbers")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<[f64; N], A::Error> {
            let mut out = [f64::NAN; N];
            while let Some((k, v)) = m.next_entry::<K, f64>()? {
                let i = (self.0)(k);
                out[i] = if out[i].is_nan() { v } else { out[i] + v };
            }
            Ok(out)
        }
    }
    d.deserialize_map(V::<K, N>(index))
}

fn flop_index(k: FlopKind) -> usize {
    FlopKind::ALL.iter().position(|x| *x == k).unwrap_or(0)
}

fn byte_index(l: MemLevel) -> usize {
    MemLevel::ALL.iter().position(|x| *x == l).unwrap_or(0)
}

fn flop_array<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[f64; 9], D::Error> {
    keyed_array(d, flop_index)
}

fn byte_array<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[f64; 3], D::Error> {
    keyed_array(d, byte_index)
}

fn to_array<K: Copy + Ord, const N: usize>(m: &BTreeMap<K, f64>, all: &[K; N]) -> [f64; N] {
    let mut out = [f64::NAN; N];
    for (i, k) in all.iter().enumerate() {
        if let Some(v) = m.get(k) {
            out[i] = *v;
        }
    }
    out
}

/// The two evidence fields a collective's launches add up.
#[derive(Deserialize, Default)]
struct NvlinkOnly {
    #[serde(default)]
    nvlink_rx_bytes: Option<f64>,
    #[serde(default)]
    nvlink_tx_bytes: Option<f64>,
}

fn class_of(collective: bool, bound: Option<roofline_analysis::Bound>) -> TimeClass {
    match (collective, bound) {
        (true, _) => TimeClass::Communication,
        (false, Some(roofline_analysis::Bound::Compute)) => TimeClass::Compute,
        (false, Some(roofline_analysis::Bound::Memory)) => TimeClass::Memory,
        (false, None) => TimeClass::Unplaced,
    }
}

impl From<AnalysisDocument> for ParsedRank {
    fn from(d: AnalysisDocument) -> ParsedRank {
        let mut b = RankBuilder::new(d.machine);
        b.rank.rank = d.rank;
        for a in d.kernels {
            push_analysis(&mut b, a);
        }
        b.rank
    }
}

impl ParsedRank {
    /// A rank of kernels that come with no analysis (a timeline's: times
    /// and launches, no counters), each placed as [`analyze`] places it
    /// and folded in at once: the rank never holds its analyses all
    /// together, which for a million kernels is most of a merge's memory.
    pub fn from_kernels(machine: Machine, kernels: impl IntoIterator<Item = Kernel>) -> ParsedRank {
        let mut b = RankBuilder::new(machine);
        for k in kernels {
            let a = roofline_analysis::analyze_kernel(&b.rank.machine, &k);
            push_analysis(&mut b, a);
        }
        b.rank
    }
}

/// Folds one kernel's analysis into the builder.
fn push_analysis(b: &mut RankBuilder<'_>, a: roofline_analysis::KernelAnalysis) {
    let class = class_of(a.collective.is_some(), a.bound);
    let k = a.kernel;
    let entry = Entry {
        kernel: 0,
        class,
        duration_s: k.duration_s,
        launches: k.launches,
        flops: to_array(&k.flops, &FlopKind::ALL),
        bytes: to_array(&k.bytes, &MemLevel::ALL),
        nvlink: match class {
            TimeClass::Communication => (k.evidence.nvlink_rx_bytes, k.evidence.nvlink_tx_bytes),
            _ => (None, None),
        },
        evidence: None,
    };
    let (id, display_name, origin, evidence) = (k.id, k.display_name, k.origin, k.evidence);
    b.push(
        Cow::Owned(k.name),
        |name| KernelHead { id, name: name.to_string(), display_name, origin },
        entry,
        || evidence.into_inner(),
    );
}

/// A rank's analysis read straight into a [`ParsedRank`]: the entries of
/// `kernels` are folded into the builder as they are parsed, one at a time.
struct RankSeed;

impl<'de> serde::de::DeserializeSeed<'de> for RankSeed {
    type Value = ParsedRank;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<ParsedRank, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for RankSeed {
    type Value = ParsedRank;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a roofline analysis")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<ParsedRank, A::Error> {
        use serde::de::Error;
        // Fields in any order: the entries are read into a builder of their
        // own, and the machine and rank put in beside them at the end.
        let mut machine: Option<Machine> = None;
        let mut built: Option<RankBuilder<'de>> = None;
        let mut rank: Option<RankInfo> = None;
        let mut schema = false;
        while let Some(key) = m.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "schema" => {
                    m.next_value::<Cow<'de, str>>()?;
                    schema = true;
                }
                "machine" if machine.is_some() => return Err(A::Error::duplicate_field("machine")),
                "machine" => machine = Some(m.next_value()?),
                "kernels" if built.is_some() => return Err(A::Error::duplicate_field("kernels")),
                "kernels" => built = Some(m.next_value_seed(EntriesSeed)?),
                "rank" => rank = m.next_value()?,
                _ => {
                    m.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        if !schema {
            return Err(A::Error::missing_field("schema"));
        }
        let machine = machine.ok_or_else(|| A::Error::missing_field("machine"))?;
        let mut b = built.ok_or_else(|| A::Error::missing_field("kernels"))?;
        b.rank.machine = machine;
        b.rank.rank = rank;
        Ok(b.rank)
    }
}

/// The `kernels` array, each entry pushed into a builder as it is read.
struct EntriesSeed;

impl<'de> serde::de::DeserializeSeed<'de> for EntriesSeed {
    type Value = RankBuilder<'de>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<RankBuilder<'de>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for EntriesSeed {
    type Value = RankBuilder<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of analysed kernels")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<RankBuilder<'de>, A::Error> {
        let mut b = RankBuilder::new(Machine::default());
        while let Some(e) = s.next_element::<EntryText<'de>>()? {
            // serde_json has read the evidence whole: it is JSON.
            push_text(&mut b, e).ok_or_else(|| serde::de::Error::custom("evidence that is not JSON"))?;
        }
        Ok(b)
    }
}

/// Folds one entry as read from the text into the builder. `None` when
/// evidence it reads is not JSON: a kept entry's, checked whole; a
/// collective's, its NVLink members checked (the whole when they are left
/// to serde_json). The skimming reader steps over evidence, so this is
/// where it is checked; evidence of an entry that is neither is checked
/// for its structure only, as levels and diagnoses are ([`crate::scan`]).
fn push_text<'a>(b: &mut RankBuilder<'a>, e: EntryText<'a>) -> Option<()> {
    fn checked(raw: &[u8]) -> Option<&str> {
        let text = std::str::from_utf8(raw).ok()?;
        serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
        Some(text)
    }
    let class = class_of(e.collective.is_some(), e.bound);
    let k = e.kernel;
    let raw = k.evidence;
    let nvlink = match class {
        TimeClass::Communication => {
            let n: NvlinkOnly = match raw {
                Some(r) => match nvlink_by_hand(r) {
                    Some(n) => n,
                    None => serde_json::from_str(checked(r)?).unwrap_or_default(),
                },
                None => NvlinkOnly::default(),
            };
            (n.nvlink_rx_bytes, n.nvlink_tx_bytes)
        }
        _ => (None, None),
    };
    let entry = Entry {
        kernel: 0,
        class,
        duration_s: k.duration_s,
        launches: k.launches,
        flops: k.flops,
        bytes: k.bytes,
        nvlink,
        evidence: None,
    };
    let (id, display_name, origin) = (k.id, k.display_name, k.origin);
    let mut bad = false;
    b.push(
        k.name,
        |name| KernelHead {
            id: id.into_owned(),
            name: name.to_string(),
            display_name: display_name.into_owned(),
            origin,
        },
        entry,
        || match raw.map(checked) {
            Some(Some(text)) => serde_json::from_str(text).unwrap_or_default(),
            Some(None) => {
                bad = true;
                Evidence::default()
            }
            None => Evidence::default(),
        },
    );
    (!bad).then_some(())
}

/// A rank's analysis read from raw bytes by the skimming reader, when it
/// is a current analysis document that reader takes ([`skim_rank`]);
/// `None` otherwise (another schema, an older document, anything
/// unexpected or broken): then read it as text with [`read_rank`], which
/// upgrades or names the error. The bytes are not checked as UTF-8 as a
/// whole: the strings the merge keeps are, by serde_json.
pub fn skim_rank_bytes(bytes: &[u8]) -> Option<ParsedRank> {
    let head = &bytes[..bytes.len().min(512)];
    let head = match std::str::from_utf8(head) {
        Ok(h) => h,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    if schema_at_head(head)? != crate::schema::ANALYSIS_SCHEMA {
        return None;
    }
    skim_rank(bytes)
}

/// A current rank document read with the skimming reader
/// ([`crate::scan`]): the machine and the rank go through serde_json, each
/// entry's kernel and bound are read by hand ([`skim_kernel`]; what it
/// declines, serde_json), the rest (levels, diagnoses, collectives, the
/// evidence [`push_text`] does not read, producer, source) is stepped
/// over. `None` for anything it does not expect; the caller then reads the
/// text with serde_json ([`RankSeed`]), which takes the same fields (so
/// gives the same rank) or names the error. One difference: serde_json
/// refuses broken JSON anywhere, this reader only where it reads.
fn skim_rank(text: &[u8]) -> Option<ParsedRank> {
    let mut s = crate::scan::Scan::new(text);
    let mut machine: Option<Machine> = None;
    let mut built: Option<RankBuilder<'_>> = None;
    let mut rank: Option<RankInfo> = None;
    let mut schema = false;
    s.fields(|key, s| {
        match key {
            b"schema" => {
                let _: Cow<'_, str> = serde_json::from_slice(s.skip_value()?).ok()?;
                schema = true;
            }
            b"machine" if machine.is_some() => return None,
            b"machine" => machine = Some(serde_json::from_slice(s.skip_value()?).ok()?),
            b"kernels" if built.is_some() => return None,
            b"kernels" => built = Some(skim_entries(s)?),
            b"rank" => rank = serde_json::from_slice(s.skip_value()?).ok()?,
            _ => {
                s.skip_value()?;
            }
        }
        Some(())
    })?;
    if !s.at_end() || !schema {
        return None;
    }
    let mut b = built?;
    b.rank.machine = machine?;
    b.rank.rank = rank;
    Some(b.rank)
}

/// The `kernels` array for [`skim_rank`], each entry folded in as read.
fn skim_entries<'a>(s: &mut crate::scan::Scan<'a>) -> Option<RankBuilder<'a>> {
    s.eat(b'[')?;
    let mut b = RankBuilder::new(Machine::default());
    if s.peek()? == b']' {
        s.eat(b']')?;
        return Some(b);
    }
    loop {
        let mut kernel: Option<KernelText<'a>> = None;
        let (mut bound, mut collective) = (None, None);
        let (mut seen_bound, mut seen_collective) = (false, false);
        s.fields(|key, s| {
            match key {
                b"kernel" if kernel.is_some() => return None,
                b"kernel" => {
                    let at = s.position();
                    kernel = match skim_kernel(s) {
                        Some(k) => Some(k),
                        None => {
                            s.seek(at);
                            Some(serde_json::from_slice(s.skip_value()?).ok()?)
                        }
                    };
                }
                b"bound" if seen_bound => return None,
                b"bound" => {
                    let at = s.position();
                    bound = if s.null() {
                        None
                    } else if let Some(b) = s.plain_string().and_then(|t| by_serde_name(std::str::from_utf8(t).ok()?)) {
                        Some(b)
                    } else {
                        s.seek(at);
                        serde_json::from_slice(s.skip_value()?).ok()?
                    };
                    seen_bound = true;
                }
                b"collective" if seen_collective => return None,
                b"collective" => {
                    // Only whether there is one: stepped over as the levels are.
                    collective = (s.skip_value()? != b"null").then_some(serde::de::IgnoredAny);
                    seen_collective = true;
                }
                _ => {
                    s.skip_value()?;
                }
            }
            Some(())
        })?;
        push_text(&mut b, EntryText { kernel: kernel?, bound, collective })?;
        if !s.more(b']')? {
            break;
        }
    }
    Some(b)
}

#[derive(Deserialize)]
struct SchemaOnly {
    #[serde(default)]
    schema: Option<String>,
}

/// Reads a rank's analysis for merging: the schema is checked first; a
/// current document is parsed straight into a [`ParsedRank`] (entries
/// folded in as they are read, the rest of each entry skipped), an older
/// one through the full reader (which upgrades it).
pub fn read_rank(text: &str, input: &str) -> Result<ParsedRank, DocumentError> {
    use crate::schema::ANALYSIS_SCHEMA;
    let expected = ANALYSIS_SCHEMA;
    // roofline writes the schema first: read it from the head of the text
    // rather than scanning the whole document twice.
    let schema = match schema_at_head(text) {
        Some(s) => Some(s.to_string()),
        None => {
            let head: SchemaOnly = serde_json::from_str(text).map_err(|source| DocumentError::Json {
                input: input.into(),
                expected,
                source,
            })?;
            head.schema
        }
    };
    match schema.as_deref() {
        Some(s) if s == ANALYSIS_SCHEMA => {
            if let Some(rank) = skim_rank(text.as_bytes()) {
                return Ok(rank);
            }
            use serde::de::DeserializeSeed;
            let mut de = serde_json::Deserializer::from_str(text);
            RankSeed.deserialize(&mut de).and_then(|r| de.end().map(|()| r)).map_err(|source| DocumentError::Fields {
                input: input.into(),
                expected,
                source,
            })
        }
        _ => crate::schema::read_analysis(text, input).map(ParsedRank::from),
    }
}

/// Parses `count` files on `threads` threads and folds them in their
/// order, one at a time, on the calling thread: `parse(i)` reads and parses
/// file `i`, `fold(i, parsed)` takes the results in the order 0, 1, 2, ....
/// The first error in that order is returned, as a loop over the files
/// would; at most two parsed files per thread wait to be folded. With the
/// merge's files this nearly halves the wall time on two cores: parsing is
/// nearly all of it, folding little.
pub fn parse_in_order<T: Send, E: Send>(
    count: usize,
    threads: usize,
    parse: impl Fn(usize) -> Result<T, E> + Sync,
    mut fold: impl FnMut(usize, T) -> Result<(), E>,
) -> Result<(), E> {
    let threads = threads.clamp(1, count.max(1));
    if threads == 1 {
        for i in 0..count {
            fold(i, parse(i)?)?;
        }
        return Ok(());
    }
    std::thread::scope(|scope| {
        let parse = &parse;
        let results: Vec<_> = (0..threads)
            .map(|t| {
                let (send, results) = std::sync::mpsc::sync_channel::<Result<T, E>>(1);
                scope.spawn(move || {
                    for i in (t..count).step_by(threads) {
                        let parsed = parse(i);
                        let failed = parsed.is_err();
                        // The receiver is gone when an earlier file failed.
                        if send.send(parsed).is_err() || failed {
                            break;
                        }
                    }
                });
                results
            })
            .collect();
        for i in 0..count {
            // A thread that stops sending has panicked: the scope's end
            // passes its panic on.
            let Ok(parsed) = results[i % threads].recv() else { break };
            fold(i, parsed?)?;
        }
        Ok(())
    })
}

/// The threads [`parse_in_order`] is worth running on here: the cores
/// available, at most 8 (each holds a file's text while parsing it).
pub fn parse_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(8)
}

/// What one kernel added up to, in one rank and over the job.
#[derive(Debug, Clone)]
struct Acc {
    name: String,
    id: String,
    display_name: String,
    origin: Origin,
    /// Seconds per rank slot (NaN where not run).
    per_rank: Vec<f64>,
    /// FLOPs per kind in [`FlopKind::ALL`] order, where `has_flops` says
    /// a kind was seen.
    flops: [f64; 9],
    has_flops: [bool; 9],
    bytes: [f64; 3],
    has_bytes: [bool; 3],
    launches: u64,
    time: f64,
    timed: bool,
    /// Evidence of the rank that spent the most time in it.
    evidence: EvidenceBox,
    evidence_time: f64,
    nvlink_rx: Option<f64>,
    nvlink_tx: Option<f64>,
}

/// Adds `add`'s numbers (NaN: none) into `sum`, as a map from kind to
/// number would: a kind seen starts at 0.
fn add_present<const N: usize>(sum: &mut [f64; N], seen: &mut [bool; N], add: &[f64; N]) {
    for i in 0..N {
        if !add[i].is_nan() {
            if !seen[i] {
                seen[i] = true;
                sum[i] = 0.0;
            }
            sum[i] += add[i];
        }
    }
}

/// The kinds seen, as a map.
fn present_map<K: Copy + Ord, const N: usize>(sum: &[f64; N], seen: &[bool; N], all: &[K; N]) -> BTreeMap<K, f64> {
    all.iter().zip(sum.iter().zip(seen)).filter(|(_, (_, s))| **s).map(|(k, (v, _))| (*k, *v)).collect()
}

struct RankAcc {
    summary: RankSummary,
    /// Whether this rank ran each kernel (by index).
    seen: Vec<bool>,
    distinct: usize,
}

/// FNV-1a: kernel names are hashed once per launch of every rank, and
/// need no protection against crafted collisions here.
#[derive(Default)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for b in bytes {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fnv>>;

/// Folds rank documents, one at a time, into a [`MergedDocument`].
pub struct Merger {
    machine: Option<Machine>,
    ranks: Vec<RankAcc>,
    slot_of_rank: HashMap<u32, usize>,
    kernels: Vec<Acc>,
    by_name: FastMap<String, usize>,
    warnings: Vec<Warning>,
    machines: Vec<String>,
}

fn add_opt(a: &mut Option<f64>, b: Option<f64>) {
    if let Some(b) = b {
        *a = Some(a.unwrap_or(0.0) + b);
    }
}

impl Merger {
    /// A merger judging the job against `machine`, or against the first
    /// rank's machine when `None`.
    pub fn new(machine: Option<Machine>) -> Merger {
        Merger {
            machine,
            ranks: Vec::new(),
            slot_of_rank: HashMap::new(),
            kernels: Vec::new(),
            by_name: FastMap::default(),
            warnings: Vec::new(),
            machines: Vec::new(),
        }
    }

    /// Adds one rank's analysis. Its rank is the document's own
    /// ([`AnalysisDocument::rank`]), else the file name's, else `fallback`.
    pub fn add(&mut self, doc: AnalysisDocument, input: &str, fallback: u32) -> Result<(), MergeError> {
        self.add_parsed(ParsedRank::from(doc), input, fallback)
    }

    /// Adds one rank as [`read_rank`] read it (see [`Merger::add`]).
    pub fn add_parsed(&mut self, doc: ParsedRank, input: &str, fallback: u32) -> Result<(), MergeError> {
        let rank = doc.rank.as_ref().map(|r| r.rank).or_else(|| rank_from_file_name(input)).unwrap_or(fallback);
        if doc.entries.is_empty() {
            // A rank that ran no kernel (an idle rank, a rank that failed
            // early) is part of the job: merged with no GPU time, and said.
            self.warnings.push(Warning::Capture {
                message: format!("{input}: rank {rank} has no kernel; it is merged with no GPU time"),
            });
        }
        if self.machine.is_none() {
            self.machine = Some(doc.machine.clone());
        }
        if !self.machines.contains(&doc.machine.name) {
            self.machines.push(doc.machine.name.clone());
        }
        let slot = match self.slot_of_rank.get(&rank) {
            Some(&s) => {
                let mut inputs = self.ranks[s].summary.inputs.clone();
                inputs.push(input.to_string());
                self.warnings.push(Warning::RanksJoined { rank, inputs });
                self.ranks[s].summary.inputs.push(input.to_string());
                s
            }
            None => {
                let s = self.ranks.len();
                self.slot_of_rank.insert(rank, s);
                self.ranks.push(RankAcc {
                    summary: RankSummary {
                        rank,
                        inputs: vec![input.to_string()],
                        info: doc.rank.clone(),
                        machine: doc.machine.name.clone(),
                        kernels: 0,
                        launches: 0,
                        time_s: 0.0,
                        split: TimeSplit::default(),
                    },
                    seen: Vec::new(),
                    distinct: 0,
                });
                for k in &mut self.kernels {
                    k.per_rank.push(f64::NAN);
                }
                s
            }
        };
        let n_slots = self.ranks.len();
        // The job's index of each of this file's kernels, found at its first
        // entry (so new kernels join the job in the order they appear).
        let mut job_index: Vec<Option<usize>> = vec![None; doc.kernels.len()];
        for e in doc.entries {
            let idx = match job_index[e.kernel as usize] {
                Some(i) => i,
                None => {
                    let head = &doc.kernels[e.kernel as usize];
                    let i = match self.by_name.get(head.name.as_str()) {
                        Some(&i) => i,
                        None => {
                            let i = self.kernels.len();
                            self.by_name.insert(head.name.clone(), i);
                            self.kernels.push(Acc {
                                name: head.name.clone(),
                                id: head.id.clone(),
                                display_name: head.display_name.clone(),
                                origin: head.origin,
                                per_rank: vec![f64::NAN; n_slots],
                                flops: [0.0; 9],
                                has_flops: [false; 9],
                                bytes: [0.0; 3],
                                has_bytes: [false; 3],
                                launches: 0,
                                time: 0.0,
                                timed: false,
                                evidence: EvidenceBox::default(),
                                evidence_time: -1.0,
                                nvlink_rx: None,
                                nvlink_tx: None,
                            });
                            i
                        }
                    };
                    job_index[e.kernel as usize] = Some(i);
                    i
                }
            };
            let class = e.class;
            let d = e.duration_s;
            let r = &mut self.ranks[slot];
            if r.seen.len() <= idx {
                r.seen.resize(idx + 1, false);
            }
            if !r.seen[idx] {
                r.seen[idx] = true;
                r.distinct += 1;
            }
            r.summary.kernels = r.distinct;
            r.summary.launches += e.launches;
            if let Some(d) = d {
                r.summary.time_s += d;
                r.summary.split.add(class, d);
            }
            let acc = &mut self.kernels[idx];
            add_present(&mut acc.flops, &mut acc.has_flops, &e.flops);
            add_present(&mut acc.bytes, &mut acc.has_bytes, &e.bytes);
            acc.launches += e.launches;
            if let Some(d) = d {
                acc.time += d;
                acc.timed = true;
                let cell = &mut acc.per_rank[slot];
                *cell = if cell.is_nan() { d } else { *cell + d };
            }
            // NVLink bytes add up over every launch; the rest of the
            // evidence is the longest launch's.
            if class == TimeClass::Communication {
                add_opt(&mut acc.nvlink_rx, e.nvlink.0);
                add_opt(&mut acc.nvlink_tx, e.nvlink.1);
            }
            let weight = d.unwrap_or(0.0);
            if weight > acc.evidence_time {
                // Kept by the reader: longer than its file's earlier ones.
                debug_assert!(e.evidence.is_some(), "the longest entry's evidence was kept");
                acc.evidence = e.evidence.unwrap_or_default();
                acc.evidence_time = weight;
            }
        }
        Ok(())
    }

    /// The merged document.
    pub fn finish(self, producer: Producer) -> Result<MergedDocument, MergeError> {
        if self.ranks.is_empty() {
            return Err(MergeError::Empty);
        }
        if self.kernels.is_empty() {
            let inputs: Vec<&str> =
                self.ranks.iter().flat_map(|r| r.summary.inputs.iter().map(String::as_str)).collect();
            return Err(MergeError::NoKernels { input: abbreviate(&inputs, 5) });
        }
        let mut warnings = self.warnings;
        if self.machines.len() > 1 {
            warnings.push(Warning::MachinesDiffer {
                machines: self.machines.clone(),
                judged_against: self.machine.as_ref().map(|m| m.name.clone()).unwrap_or_default(),
            });
        }
        let machine = self.machine.unwrap_or_default();
        // Ranks in order of their number; per-kernel columns follow.
        let mut order: Vec<usize> = (0..self.ranks.len()).collect();
        order.sort_by_key(|&s| self.ranks[s].summary.rank);
        let ranks: Vec<RankSummary> = order.iter().map(|&s| self.ranks[s].summary.clone()).collect();
        let mut job_kernels = Vec::with_capacity(self.kernels.len());
        let mut per_rank = Vec::with_capacity(self.kernels.len());
        for acc in self.kernels {
            let mut k = Kernel::named(&acc.name, acc.origin);
            k.id = acc.id;
            k.display_name = acc.display_name;
            k.flops = present_map(&acc.flops, &acc.has_flops, &FlopKind::ALL);
            k.bytes = present_map(&acc.bytes, &acc.has_bytes, &MemLevel::ALL);
            k.launches = acc.launches;
            k.duration_s = acc.timed.then_some(acc.time);
            k.evidence = acc.evidence;
            if acc.nvlink_rx.is_some() || acc.nvlink_tx.is_some() {
                // Collectives: every launch's NVLink bytes.
                k.evidence.nvlink_rx_bytes = acc.nvlink_rx;
                k.evidence.nvlink_tx_bytes = acc.nvlink_tx;
            }
            job_kernels.push(k);
            per_rank.push(acc.per_rank);
        }
        let analysed = analyze(&machine, &job_kernels);
        let mut kernels: Vec<MergedKernel> = analysed
            .iter()
            .zip(per_rank)
            .map(|(a, times)| {
                let time_s: Vec<Option<f64>> =
                    order.iter().map(|&s| times.get(s).copied().filter(|t| !t.is_nan())).collect();
                let present: Vec<(u32, f64)> =
                    time_s.iter().zip(&ranks).filter_map(|(t, r)| t.map(|t| (r.rank, t))).collect();
                let samples: Vec<f64> = present.iter().map(|p| p.1).collect();
                let spread = Spread::from_samples(&samples).ok();
                let slowest = present.iter().max_by(|a, b| a.1.total_cmp(&b.1)).copied();
                let behind = match (spread, slowest) {
                    (Some(s), Some((_, t))) if s.median > 0.0 && present.len() > 1 => {
                        Some(100.0 * (t - s.median) / s.median)
                    }
                    _ => None,
                };
                MergedKernel {
                    id: a.kernel.id.clone(),
                    name: a.kernel.name.clone(),
                    display_name: a.kernel.display_name.clone(),
                    class: time_class(a),
                    time_s,
                    spread,
                    slowest_rank: slowest.filter(|_| present.len() > 1).map(|s| s.0),
                    behind_median_pct: behind,
                }
            })
            .collect();
        let total_time = |k: &MergedKernel| k.time_s.iter().flatten().sum::<f64>();
        kernels.sort_by(|a, b| total_time(b).total_cmp(&total_time(a)));
        let inputs: Vec<&str> = ranks.iter().flat_map(|r| r.inputs.iter().map(String::as_str)).collect();
        let detail = format!("{} rank(s): {}", ranks.len(), abbreviate(&inputs, 6));
        let mut job = AnalysisDocument::new(
            producer.clone(),
            AnalysisSource { kind: "merged".into(), detail, byte_convention: None },
            machine,
            analysed,
        );
        job.warnings = warnings.clone();
        Ok(MergedDocument { schema: MERGED_SCHEMA.into(), producer, ranks, kernels, job, warnings })
    }
}

/// "a, b, c and 7 more".
fn abbreviate(items: &[&str], keep: usize) -> String {
    if items.len() <= keep {
        items.join(", ")
    } else {
        format!("{} and {} more", items[..keep].join(", "), items.len() - keep)
    }
}

/// Reads a merged document (schema checked first).
pub fn read_merged(text: &str, input: &str) -> Result<MergedDocument, DocumentError> {
    crate::schema::read(text, input, MERGED_SCHEMA)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranks::*;
    use roofline_analysis::analyze;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    /// The skimming reader must give exactly what the full reader gives, or
    /// decline: committed rank files, synthetic ranks per kernel and per
    /// launch, pretty-printed, and members in another order.
    #[test]
    fn the_skimming_reader_gives_the_same_rank_as_the_full_reader() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ranks/synthetic-2gpu");
        let mut texts: Vec<String> = ["job.rank0.json", "job.rank1.json"]
            .iter()
            .map(|f| std::fs::read_to_string(root.join(f)).unwrap())
            .collect();
        for per_launch in [false, true] {
            let doc = crate::synthetic::rank(1, 4, 300, 7, per_launch);
            texts.push(serde_json::to_string(&doc).unwrap());
            texts.push(serde_json::to_string_pretty(&doc).unwrap());
            // The schema first (the skimmer looks for it at the head), the
            // other members in reverse order.
            let v: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&texts[texts.len() - 1]).unwrap();
            let mut members: Vec<(&String, &serde_json::Value)> = v.iter().rev().collect();
            members.sort_by_key(|(k, _)| k.as_str() != "schema");
            let members: Vec<String> =
                members.iter().map(|(k, val)| format!("{}:{}", serde_json::to_string(k).unwrap(), val)).collect();
            texts.push(format!("{{{}}}", members.join(",")));
        }
        for (i, text) in texts.iter().enumerate() {
            let skimmed = skim_rank_bytes(text.as_bytes()).unwrap_or_else(|| panic!("text {i} was not skimmed"));
            let full = read_rank(text, "rank").unwrap();
            assert_eq!(format!("{skimmed:?}"), format!("{full:?}"), "text {i}");
        }
        // What the skimmer does not expect, it declines (the full reader then names the error).
        assert!(skim_rank_bytes(texts[0].replacen("\"kernels\"", "\"kern\\u0065ls\"", 1).as_bytes()).is_none());
        assert!(skim_rank_bytes(&texts[0].as_bytes()[..texts[0].len() / 2]).is_none());
    }

    /// A rank as serde_json alone reads it (what the skimming reader
    /// declines goes here).
    fn seed_rank(text: &str) -> ParsedRank {
        use serde::de::DeserializeSeed;
        let mut de = serde_json::Deserializer::from_str(text);
        let rank = RankSeed.deserialize(&mut de).unwrap();
        de.end().unwrap();
        rank
    }

    /// The kernels read by hand (issue 30) give the rank serde_json gives:
    /// a committed per-launch document whose kernels carry evidence, the
    /// synthetic ranks, collectives among them, pretty and compact.
    #[test]
    fn kernels_read_by_hand_give_the_rank_serde_json_gives() {
        use std::io::Read;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/documents");
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(root.join("import_seed000_per_launch.json.gz")).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        let mut texts = vec![text];
        for per_launch in [false, true] {
            let doc = crate::synthetic::rank(2, 4, 400, 9, per_launch);
            texts.push(serde_json::to_string(&doc).unwrap());
            texts.push(serde_json::to_string_pretty(&doc).unwrap());
        }
        for (i, text) in texts.iter().enumerate() {
            let skimmed = skim_rank_bytes(text.as_bytes()).unwrap_or_else(|| panic!("text {i} was not skimmed"));
            assert!(skimmed.entries() > 0);
            assert_eq!(format!("{skimmed:?}"), format!("{:?}", seed_rank(text)), "text {i}");
        }
        // Evidence that is kept but is not JSON: the skimming reader steps
        // over it, then declines when it reads it.
        let broken = texts[0].replacen("\"evidence\": {", "\"evidence\": {\"x\": tru, ", 1);
        assert!(serde_json::from_str::<serde_json::Value>(&broken).is_err());
        assert!(skim_rank_bytes(broken.as_bytes()).is_none());
        // Evidence that is not kept (the second launch of the first kernel,
        // shorter than the first) is checked for its structure only, as a
        // diagnosis is: the rank is the one its mended text gives, where
        // serde_json alone refuses the text (scan's module doc).
        let second = texts[0].match_indices("\"evidence\": {").nth(1).unwrap().0 + "\"evidence\": {".len();
        let with = |member: &str| format!("{}{member}{}", &texts[0][..second], &texts[0][second..]);
        let (broken, mended) = (with("\"x\": tru, "), with("\"x\": true, "));
        assert!(serde_json::from_str::<serde_json::Value>(&broken).is_err());
        let skimmed = skim_rank_bytes(broken.as_bytes()).expect("unkept evidence is stepped over");
        assert_eq!(format!("{skimmed:?}"), format!("{:?}", seed_rank(&mended)));
    }

    /// The merge skims mapped files without searching them for NULs first
    /// (issue 30): a NUL at any byte makes the skimming reader decline.
    #[test]
    fn a_nul_anywhere_makes_the_skimming_reader_decline() {
        // One launch of each of the three kinds: every member a rank file
        // holds, once (each byte costs a whole skim, so the file is small).
        let mut doc = crate::synthetic::rank(0, 2, 3, 3, true);
        doc.kernels[1].kernel.evidence.stalls.insert("wait".into(), 1.0);
        for text in [serde_json::to_string(&doc).unwrap(), serde_json::to_string_pretty(&doc).unwrap()] {
            let mut bytes = format!("{text}\n").into_bytes();
            assert!(skim_rank_bytes(&bytes).is_some());
            for at in 0..bytes.len() {
                let was = std::mem::replace(&mut bytes[at], 0);
                assert!(skim_rank_bytes(&bytes).is_none(), "NUL at {at} of {}", bytes.len());
                bytes[at] = was;
            }
        }
    }

    /// A kernel's fields as both readers give them, bit for bit.
    fn kernel_fields(k: &KernelText<'_>) -> String {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {} {:?} {:?}",
            k.id,
            k.name,
            k.display_name,
            bits(&k.flops),
            bits(&k.bytes),
            k.duration_s.map(f64::to_bits),
            k.launches,
            k.origin,
            k.evidence.map(String::from_utf8_lossy)
        )
    }

    proptest::proptest! {
        /// The hand reader of a kernel object takes only what serde_json
        /// takes, and gives what it gives: names with escapes, control
        /// characters and other scripts; numbers in every form JSON writes
        /// and some it does not; unknown kinds; duplicate, missing and
        /// unknown members; evidence or none.
        #[test]
        fn a_kernel_read_by_hand_is_what_serde_json_reads_or_declined(
            base in proptest::bool::ANY,
            members in proptest::collection::vec((0usize..10, 0usize..14, 0usize..14), 0..10),
        ) {
            const STRINGS: [&str; 14] = [
                "\"k1\"", "\"gemm<float>\"", "\"a\\\"b\"", "\"tab\tin\"", "\"\u{e9}t\u{e9}\"", "\"\"", "\"x\\u0041\"",
                "\"counter\"", "\"measured\"", "\"nope\"", "null", "1", "\"k2 #3\"", "\"a/b\"",
            ];
            const NUMBERS: [&str; 14] = [
                "1", "0", "25", "1.5", "4.8589529005252525e-05", "1e16", "1E+3", "-2.5", "-0", "01", "1.", "1e400",
                "18446744073709551616", "null",
            ];
            const MAPS: [&str; 14] = [
                "{}", "{\"fp32\": 1.5}", "{\"dram\": 2e9, \"l2\": 3.0}", "{\"tensor_bf16\": 34359738368.0}",
                "{\"fp64\": 1, \"fp64\": 2.25}", "{\"l1\": 7}", "{\"bogus\": 1}", "{\"fp16\": null}", "[]", "null",
                "{\"dram\": -1.0}", "{\"fp32\": 1e308, \"fp32\": 1e308}", "{\"f\\u0070\": 1}", "{\"dram\": 0.1}",
            ];
            let names = ["id", "name", "display_name", "origin", "flops", "bytes", "duration_s", "launches", "evidence", "capture_order"];
            let mut fields = Vec::new();
            let mut keys: Vec<usize> = Vec::new();
            if base {
                fields.extend(["\"id\": \"k0\"", "\"name\": \"n\"", "\"origin\": \"counter\""].map(String::from));
                keys.extend([0, 1, 3]);
            }
            for (key, a, b) in members {
                // Mostly members not drawn before; a duplicate now and then.
                if keys.contains(&key) && a % 4 != 0 {
                    continue;
                }
                keys.push(key);
                let value = match names[key] {
                    "id" | "name" | "display_name" | "origin" => STRINGS[a].to_string(),
                    "flops" | "bytes" => MAPS[a].to_string(),
                    "duration_s" | "launches" => NUMBERS[a].to_string(),
                    "evidence" => ["null", "{}", "{\"nvlink_rx_bytes\": 5.0, \"stalls\": {\"wait\": 1}}", "[1, \"]\"]"][b % 4].to_string(),
                    _ => NUMBERS[b % 7].to_string(),
                };
                fields.push(format!("\"{}\": {value}", names[key]));
            }
            let text = format!("{{{}}}", fields.join(", "));
            let by_serde = serde_json::from_str::<KernelText<'_>>(&text).ok().map(|k| kernel_fields(&k));
            let mut s = crate::scan::Scan::new(text.as_bytes());
            let by_hand = skim_kernel(&mut s);
            if let Some(k) = by_hand {
                proptest::prop_assert!(s.at_end(), "{}", text);
                proptest::prop_assert_eq!(Some(kernel_fields(&k)), by_serde, "{}", text);
            }
        }

        /// A well-formed kernel object is always read by hand.
        #[test]
        fn a_well_formed_kernel_is_read_by_hand(
            duration in proptest::num::f64::POSITIVE | proptest::num::f64::NORMAL,
            flops in proptest::num::f64::POSITIVE,
            launches in 0u64..u64::MAX,
            pretty in proptest::bool::ANY,
        ) {
            let v = serde_json::json!({
                "id": "k1", "name": "void gemm<float, 128>(int)", "display_name": "gemm",
                "flops": {"fp32": flops, "tensor_fp16": flops},
                "bytes": {"dram": flops, "l1": 3.0}, "duration_s": duration.abs(),
                "launches": launches, "origin": "counter",
                "evidence": {"stalls": {"wait": 1.5}, "ncu_launch_ids": ["3"]},
            });
            let text = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }.unwrap();
            let by_serde = kernel_fields(&serde_json::from_str::<KernelText<'_>>(&text).unwrap());
            let k = skim_kernel(&mut crate::scan::Scan::new(text.as_bytes()));
            proptest::prop_assert_eq!(k.map(|k| kernel_fields(&k)), Some(by_serde), "{}", text);
        }
    }

    /// Hardening (issue 27), an earlier harness: `RANK=3 WORLD_SIZE=2` was
    /// accepted, and rank 3's file name taken by a job of two.
    #[test]
    fn a_rank_outside_its_world_size_is_refused() {
        let e = RankInfo::from_env(env(&[("RANK", "3"), ("WORLD_SIZE", "2")])).unwrap_err().to_string();
        assert!(e.contains("RANK=\"3\"") && e.contains("WORLD_SIZE=2") && e.contains("0 to 1"), "{e}");
        let e = RankInfo::from_env(env(&[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "0")])).unwrap_err().to_string();
        assert!(e.contains("SLURM_NTASKS") && e.contains("at least one"), "{e}");
        assert!(RankInfo::from_env(env(&[("RANK", "1"), ("WORLD_SIZE", "2")])).unwrap().is_some());
    }

    #[test]
    fn every_launcher_names_the_rank() {
        let t = RankInfo::from_env(env(&[("RANK", "3"), ("LOCAL_RANK", "1"), ("WORLD_SIZE", "4")])).unwrap().unwrap();
        assert_eq!((t.rank, t.local_rank, t.world_size, t.launcher.as_str()), (3, Some(1), Some(4), "torchrun"));
        let o =
            RankInfo::from_env(env(&[("OMPI_COMM_WORLD_RANK", "5"), ("OMPI_COMM_WORLD_SIZE", "8")])).unwrap().unwrap();
        assert_eq!((o.rank, o.world_size, o.variable.as_str()), (5, Some(8), "OMPI_COMM_WORLD_RANK"));
        let p = RankInfo::from_env(env(&[("PMI_RANK", "2"), ("PMI_SIZE", "4")])).unwrap().unwrap();
        assert_eq!((p.rank, p.launcher.as_str()), (2, "PMI"));
        let s = RankInfo::from_env(env(&[("SLURM_PROCID", "7"), ("SLURM_NTASKS", "16"), ("SLURM_LOCALID", "3")]))
            .unwrap()
            .unwrap();
        assert_eq!((s.rank, s.local_rank, s.launcher.as_str()), (7, Some(3), "Slurm"));
        // torchrun inside srun: torch's rank wins.
        let both = RankInfo::from_env(env(&[("SLURM_PROCID", "0"), ("RANK", "6")])).unwrap().unwrap();
        assert_eq!(both.rank, 6);
        assert_eq!(RankInfo::from_env(env(&[])).unwrap(), None);
        let bad = RankInfo::from_env(env(&[("RANK", "first")])).unwrap_err();
        assert!(bad.to_string().contains("RANK=\"first\""), "{bad}");
    }

    #[test]
    fn rank_placeholders_and_automatic_suffix() {
        let info = RankInfo::from_env(env(&[("RANK", "1"), ("WORLD_SIZE", "2"), ("LOCAL_RANK", "1")])).unwrap();
        assert_eq!(expand_rank("out/job.rank{rank}.json", info.as_ref()), ("out/job.rank1.json".into(), None));
        assert_eq!(expand_rank("r{local_rank}of{world_size}.json", info.as_ref()).0, "r1of2.json");
        let (name, note) = expand_rank("out/job.json", info.as_ref());
        assert_eq!(name, "out/job.rank1.json");
        assert!(note.unwrap().contains("{rank}"));
        assert_eq!(expand_rank("job.json", None), ("job.json".into(), None));
        let (zero, note) = expand_rank("job.rank{rank}.json", None);
        assert_eq!(zero, "job.rank0.json");
        assert!(note.is_some());
        let single = RankInfo::from_env(env(&[("RANK", "0"), ("WORLD_SIZE", "1")])).unwrap();
        assert_eq!(expand_rank("job.json", single.as_ref()).0, "job.json", "a job of one rank keeps its name");
    }

    #[test]
    fn the_schema_is_read_from_the_head_when_it_comes_first() {
        assert_eq!(schema_at_head("{\n  \"schema\": \"roofline.analysis/v2\",\n"), Some("roofline.analysis/v2"));
        assert_eq!(schema_at_head("{\"producer\": {}, \"schema\": \"x\"}"), None, "elsewhere: the full reader");
        assert_eq!(schema_at_head("[1, 2]"), None);
        // A document of another schema is refused by name either way.
        let e = read_rank("{\"schema\": \"roofline.machine/v2\", \"machine\": {}}", "m.json").unwrap_err().to_string();
        assert!(e.contains("roofline.machine/v2") && e.contains("m.json"), "{e}");
    }

    #[test]
    fn rank_from_file_names() {
        assert_eq!(rank_from_file_name("runs/job.rank12.json"), Some(12));
        assert_eq!(rank_from_file_name("rank_3.json"), Some(3));
        assert_eq!(rank_from_file_name("RANK-0.json"), Some(0));
        assert_eq!(rank_from_file_name("job.json"), None);
        assert_eq!(rank_from_file_name("out/tl.1.json"), Some(1), "-o tl.{{rank}}.json");
        assert_eq!(rank_from_file_name("v2.json"), None);
        assert_eq!(rank_from_file_name("2.json"), None, "a bare number is not taken for a rank");
    }

    fn machine() -> Machine {
        Machine::simple("m", FlopKind::Fp32, 100e12, 4e12)
    }

    /// A rank: (name, FLOPs, DRAM bytes, seconds) per kernel.
    fn rank_doc(rank: u32, kernels: &[(&str, f64, f64, f64)]) -> AnalysisDocument {
        let ks: Vec<Kernel> = kernels
            .iter()
            .map(|(n, f, b, t)| {
                let mut k = Kernel::named(n, Origin::Counter);
                if *f > 0.0 {
                    k.flops.insert(FlopKind::Fp32, *f);
                }
                k.bytes.insert(MemLevel::Dram, *b);
                k.duration_s = Some(*t);
                k
            })
            .collect();
        let m = machine();
        let mut d = AnalysisDocument::new(
            Producer::new("test"),
            AnalysisSource { kind: "ncu".into(), detail: String::new(), byte_convention: None },
            m.clone(),
            analyze(&m, &ks),
        );
        d.rank = Some(RankInfo {
            rank,
            local_rank: Some(rank),
            world_size: Some(2),
            variable: "RANK".into(),
            launcher: "torchrun".into(),
            host: None,
        });
        d
    }

    /// One kernel launched with the given seconds, one entry per launch,
    /// each launch's block size its place in the file (to tell whose
    /// evidence the job keeps).
    fn per_launch_doc(rank: u32, seconds: &[f64]) -> AnalysisDocument {
        let launches: Vec<(&str, f64, f64, f64)> = seconds.iter().map(|s| ("k", 1e9, 1e9, *s)).collect();
        let mut d = rank_doc(rank, &launches);
        for (i, a) in d.kernels.iter_mut().enumerate() {
            a.kernel.evidence.block_size = Some(i as f64);
        }
        d
    }

    /// Merges documents through their JSON text, as `roofline merge` reads files.
    fn merge_texts(docs: &[AnalysisDocument], threads: usize) -> MergedDocument {
        let texts: Vec<String> = docs.iter().map(|d| serde_json::to_string_pretty(d).unwrap()).collect();
        let mut m = Merger::new(None);
        parse_in_order(
            texts.len(),
            threads,
            |i| read_rank(&texts[i], &format!("f{i}.json")),
            |i, p| {
                m.add_parsed(p, &format!("f{i}.json"), i as u32).unwrap();
                Ok(())
            },
        )
        .unwrap();
        m.finish(Producer::new("t")).unwrap()
    }

    fn merge_docs(docs: &[AnalysisDocument]) -> MergedDocument {
        let mut m = Merger::new(None);
        for (i, d) in docs.iter().enumerate() {
            m.add(d.clone(), &format!("f{i}.json"), i as u32).unwrap();
        }
        m.finish(Producer::new("t")).unwrap()
    }

    #[test]
    fn kernels_placed_one_at_a_time_merge_as_their_whole_analysis_does() {
        // `merge` places a timeline's kernels one by one (M1: the whole
        // analysis of a million kernels was most of its memory); the job
        // must come out as from the analysis of all of them at once.
        let mut ks: Vec<Kernel> = rank_doc(0, &[("gemm", 1e12, 1e9, 0.02), ("copy", 0.0, 4e9, 0.003)])
            .kernels
            .into_iter()
            .map(|a| a.kernel)
            .collect();
        let mut nccl = Kernel::named("ncclDevKernel_AllReduce_Sum_f32_RING_LL", Origin::Measured);
        nccl.duration_s = Some(0.01);
        nccl.launches = 4;
        nccl.evidence.nvlink_rx_bytes = Some(1e9);
        ks.push(nccl);
        let mut untimed = Kernel::named("untimed", Origin::Measured);
        untimed.evidence.block_size = Some(256.0);
        ks.push(untimed);
        let m = machine();
        let whole = AnalysisDocument::new(
            Producer::new("t"),
            AnalysisSource { kind: "timeline".into(), detail: String::new(), byte_convention: None },
            m.clone(),
            analyze(&m, &ks),
        );
        let merged = |rank: ParsedRank| {
            let mut g = Merger::new(None);
            g.add_parsed(rank, "tl.0.json", 0).unwrap();
            g.add_parsed(ParsedRank::from(rank_doc(1, &[("gemm", 1e12, 1e9, 0.03)])), "f1.json", 1).unwrap();
            serde_json::to_value(g.finish(Producer::new("t")).unwrap()).unwrap()
        };
        let one_by_one = merged(ParsedRank::from_kernels(m, ks));
        assert_eq!(one_by_one, merged(ParsedRank::from(whole)));
        assert!(
            one_by_one["ranks"][0]["split"]["communication_s"].as_f64().unwrap() > 0.0,
            "{}",
            one_by_one["ranks"][0]
        );
        let untimed =
            one_by_one["job"]["kernels"].as_array().unwrap().iter().find(|k| k["kernel"]["name"] == "untimed");
        assert!(untimed.is_some(), "a kernel without a time is still in the job");
        let nccl =
            one_by_one["job"]["kernels"].as_array().unwrap().iter().find(|k| k["collective"].is_object()).unwrap();
        assert_eq!(nccl["kernel"]["evidence"]["nvlink_rx_bytes"], 1e9, "a collective's NVLink bytes are kept");
    }

    #[test]
    fn the_longest_launch_of_the_job_keeps_its_evidence_when_launches_are_folded_per_file() {
        // File 0: launches of 1, 3 and 2 s; file 1: 2.5 s (shorter than
        // file 0's longest, though longer than its first) then 4 s.
        let docs = [per_launch_doc(0, &[1.0, 3.0, 2.0]), per_launch_doc(1, &[2.5, 4.0])];
        for doc in [merge_texts(&docs, 1), merge_texts(&docs, 2), merge_docs(&docs)] {
            let k = &doc.job.kernels[0].kernel;
            assert_eq!(k.evidence.block_size, Some(1.0), "file 1's second launch (4 s) is the longest");
            assert_eq!(k.launches, 5);
            assert_eq!(doc.kernels[0].time_s, vec![Some(6.0), Some(6.5)]);
        }
        // Without the 4 s launch, file 0's 3 s launch stays the longest.
        let docs = [per_launch_doc(0, &[1.0, 3.0, 2.0]), per_launch_doc(1, &[2.5])];
        for doc in [merge_texts(&docs, 1), merge_docs(&docs)] {
            assert_eq!(doc.job.kernels[0].kernel.evidence.block_size, Some(1.0), "file 0's second launch");
        }
    }

    #[test]
    fn texts_and_documents_merge_to_the_same_bits_on_any_number_of_threads() {
        // Per-launch synthetic ranks: repeated names, collectives with
        // NVLink bytes, a straggler; sums whose order shows in the last bit.
        let docs: Vec<AnalysisDocument> = (0..5).map(|r| crate::synthetic::rank(r, 5, 300, 24, true)).collect();
        let json = |d: &MergedDocument| serde_json::to_string(d).unwrap();
        let expected = json(&merge_docs(&docs));
        for threads in [1, 2, 3, 8] {
            assert_eq!(json(&merge_texts(&docs, threads)), expected, "{threads} thread(s)");
        }
    }

    #[test]
    fn parse_in_order_returns_the_first_error_in_file_order() {
        for threads in [1, 2, 4] {
            let mut folded = Vec::new();
            let r = parse_in_order(
                6,
                threads,
                |i| {
                    // File 1 fails late, file 3 early.
                    if i == 1 {
                        std::thread::sleep(std::time::Duration::from_millis(50));
                    }
                    if i == 1 || i == 3 {
                        Err(format!("file {i}"))
                    } else {
                        Ok(i)
                    }
                },
                |_, i| {
                    folded.push(i);
                    Ok(())
                },
            );
            assert_eq!(r, Err("file 1".to_string()), "{threads} thread(s)");
            assert_eq!(folded, vec![0], "nothing after the failing file is folded");
            let mut order = Vec::new();
            parse_in_order(7, threads, Ok::<_, String>, |i, v| {
                order.push((i, v));
                if i == 4 {
                    Err("fold 4".into())
                } else {
                    Ok(())
                }
            })
            .unwrap_err();
            assert_eq!(order, (0..5).map(|i| (i, i)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_multibyte_character_across_the_head_does_not_panic() {
        // The head is the first 512 bytes: here a two-byte character
        // straddles byte 512 (in the producer's command).
        let mut d = rank_doc(0, &[("k", 1e9, 1e9, 1.0)]);
        let text = serde_json::to_string_pretty(&d).unwrap();
        let at = text.find("\"command\": \"").unwrap() + 12;
        d.producer.command = format!("{}é", "x".repeat(511 - at));
        let text = serde_json::to_string_pretty(&d).unwrap();
        assert!(!text.is_char_boundary(512), "the test puts a character across byte 512");
        assert_eq!(read_rank(&text, "r.json").unwrap().entries(), 1);
    }

    #[test]
    fn merge_sums_the_job_and_finds_the_straggler() {
        // gemm: compute-bound (1e12 FLOP on 1e9 B: intensity 1000 > ridge 25).
        // copy: memory-bound. allreduce: communication.
        let r0 = rank_doc(
            0,
            &[
                ("gemm", 1e12, 1e9, 0.010),
                ("copy", 0.0, 4e9, 0.002),
                ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0.0, 1e6, 0.004),
            ],
        );
        let r1 = rank_doc(
            1,
            &[
                ("gemm", 1e12, 1e9, 0.016),
                ("copy", 0.0, 4e9, 0.002),
                ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0.0, 1e6, 0.001),
            ],
        );
        let mut m = Merger::new(None);
        // Files in reverse order: ranks come out sorted.
        m.add(r1, "job.rank1.json", 9).unwrap();
        m.add(r0, "job.rank0.json", 9).unwrap();
        let doc = m.finish(Producer::new("roofline merge")).unwrap();
        assert_eq!(doc.schema, MERGED_SCHEMA);
        assert_eq!(doc.ranks.iter().map(|r| r.rank).collect::<Vec<_>>(), vec![0, 1]);
        let r0 = &doc.ranks[0];
        assert_eq!(r0.split.compute_s, 0.010);
        assert_eq!(r0.split.memory_s, 0.002);
        assert_eq!(r0.split.communication_s, 0.004);
        assert!((r0.time_s - 0.016).abs() < 1e-15);
        assert_eq!(doc.ranks[1].split.compute_s, 0.016);
        let gemm = doc.kernels.iter().find(|k| k.name == "gemm").unwrap();
        assert_eq!(gemm.time_s, vec![Some(0.010), Some(0.016)]);
        assert_eq!(gemm.slowest_rank, Some(1));
        // Median of 10 and 16 ms is 13 ms; 16 is 23.08% behind it.
        assert!((gemm.behind_median_pct.unwrap() - 100.0 * 3.0 / 13.0).abs() < 1e-9);
        assert_eq!(gemm.class, TimeClass::Compute);
        assert_eq!(doc.kernels[0].name, "gemm", "most time first");
        let ar = doc.kernels.iter().find(|k| k.name.starts_with("nccl")).unwrap();
        assert_eq!((ar.class, ar.slowest_rank), (TimeClass::Communication, Some(0)));
        // The job: summed over ranks.
        let job_gemm = doc.job.kernels.iter().find(|a| a.kernel.name == "gemm").unwrap();
        assert_eq!(job_gemm.kernel.flops[&FlopKind::Fp32], 2e12);
        assert!((job_gemm.kernel.duration_s.unwrap() - 0.026).abs() < 1e-15);
        assert_eq!(job_gemm.kernel.launches, 2);
        let shares: f64 = doc.job.kernels.iter().filter_map(|a| a.time_share).sum();
        assert!((shares - 1.0).abs() < 1e-12);
        // Round trip through JSON (floats to within serde_json's parsing).
        let text = serde_json::to_string(&doc).unwrap();
        let back = read_merged(&text, "job.json").unwrap();
        assert_eq!((back.ranks, back.kernels.len(), back.job.kernels.len()), (doc.ranks.clone(), 3, 3));
        assert_eq!(back.kernels[0].time_s, doc.kernels[0].time_s);
        let e = read_merged(&serde_json::to_string(&doc.job).unwrap(), "a.json").unwrap_err().to_string();
        assert!(e.contains("roofline.analysis/v2") && e.contains(MERGED_SCHEMA), "{e}");
    }

    #[test]
    fn two_files_of_one_rank_are_joined_and_a_missing_kernel_is_none() {
        let compute = rank_doc(0, &[("gemm", 1e12, 1e9, 0.010)]);
        let comm = rank_doc(0, &[("ncclDevKernel_AllGather_RING_LL", 0.0, 1e6, 0.003)]);
        let other = rank_doc(1, &[("gemm", 1e12, 1e9, 0.011)]);
        let mut m = Merger::new(None);
        m.add(compute, "c.rank0.json", 0).unwrap();
        m.add(comm, "n.rank0.json", 0).unwrap();
        m.add(other, "c.rank1.json", 1).unwrap();
        let doc = m.finish(Producer::new("t")).unwrap();
        assert_eq!(doc.ranks.len(), 2);
        assert_eq!(doc.ranks[0].inputs, vec!["c.rank0.json".to_string(), "n.rank0.json".to_string()]);
        assert_eq!(doc.ranks[0].split.communication_s, 0.003);
        assert!(doc.warnings.iter().any(|w| matches!(w, Warning::RanksJoined { rank: 0, .. })), "{:?}", doc.warnings);
        let ag = doc.kernels.iter().find(|k| k.name.contains("AllGather")).unwrap();
        assert_eq!(ag.time_s, vec![Some(0.003), None]);
        assert_eq!((ag.slowest_rank, ag.behind_median_pct), (None, None), "one rank: no straggler");
    }

    #[test]
    fn nothing_to_merge_and_empty_ranks_are_errors() {
        assert_eq!(Merger::new(None).finish(Producer::new("t")).unwrap_err(), MergeError::Empty);
        let mut empty = rank_doc(0, &[]);
        empty.kernels.clear();
        let mut m = Merger::new(None);
        m.add(empty.clone(), "r0.json", 0).unwrap();
        let e = m.finish(Producer::new("t")).unwrap_err();
        assert!(e.to_string().contains("r0.json") && e.to_string().contains("no kernels"), "{e}");
        // Fifth adversarial pass (F10): one idle rank blocked the whole job's merge.
        let mut m = Merger::new(None);
        empty.rank.as_mut().unwrap().rank = 1;
        m.add(rank_doc(0, &[("k", 1e9, 1e9, 1.0)]), "r0.json", 0).unwrap();
        m.add(empty, "r1.json", 1).unwrap();
        let doc = m.finish(Producer::new("t")).unwrap();
        assert_eq!(doc.ranks.len(), 2);
        assert_eq!((doc.ranks[1].rank, doc.ranks[1].kernels, doc.ranks[1].time_s), (1, 0, 0.0));
        assert!(doc.warnings.iter().any(|w| w.text().contains("r1.json: rank 1 has no kernel")), "{:?}", doc.warnings);
    }

    #[test]
    fn rank_comes_from_the_file_name_then_the_order() {
        let mut a = rank_doc(0, &[("k", 0.0, 1.0, 1.0)]);
        a.rank = None;
        let mut b = a.clone();
        b.kernels[0].kernel.duration_s = Some(2.0);
        let mut m = Merger::new(None);
        m.add(a, "x/rank_5.json", 0).unwrap();
        m.add(b, "other.json", 7).unwrap();
        let doc = m.finish(Producer::new("t")).unwrap();
        assert_eq!(doc.ranks.iter().map(|r| r.rank).collect::<Vec<_>>(), vec![5, 7]);
    }
}
