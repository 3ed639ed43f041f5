//! `roofline merge RANK_FILES... -o job.json`: the analyses a job's ranks
//! wrote (one per rank, from `roofline profile` under torchrun, mpirun or
//! srun) as one document with a rank dimension (`roofline.merged/v1`):
//! each rank's GPU time split into compute, memory and communication, each
//! kernel's spread over the ranks and its slowest rank, and the job as one
//! analysis that `report`, `check` and `diff` take like any other.
//!
//! Files are read and parsed on every core (at most 8), each into the few
//! numbers per entry the merge adds up, and folded in one at a time in the
//! order given, so memory follows the number of distinct kernels times
//! ranks and the parsing threads' files, not the files' total size.
//!
//! Timelines (`roofline timeline -o tl.{rank}.json` under a launcher) merge
//! too: they have no counters, so each kernel brings its measured time and
//! launches only. NCCL kernels are still told apart by name, so the job's
//! time splits into communication and the rest (not placed: no counters)
//! per rank, and stragglers show, without any replay. A timeline is read
//! as it streams in, its per-kernel summary kept and its per-launch arrays
//! skipped: a rank of a million launches costs the memory of its distinct
//! kernels, not of its gigabyte of JSON.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use roofline_documents::{parse_in_order, parse_threads, read_rank, skim_rank_bytes, MergeError, Merger, ParsedRank};
use roofline_documents::{read_machine, Producer, ANALYSIS_SCHEMA};
use roofline_model::Kernel;
use roofline_model::Warning;
use roofline_model::{Machine, Origin};
use roofline_timeline::{
    read_timeline_digest, read_timeline_digest_from, ActivityKind, TimelineDigest, TIMELINE_SCHEMA,
};

use crate::error::bad_input;
use crate::output::Output;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  torchrun --nproc_per_node 2 --no-python roofline profile -o job.rank{rank}.json -- python3 train.py
  roofline merge job.rank*.json -o job.json
  roofline report job.json -o job.html
  roofline check job.json --min-pct-of-roof 50

Each file's rank comes from the document (written under a launcher), else
from its name (job.rank3.json), else from its place on the command line.
Two files of one rank (a pass without the collectives and a pass of the
collectives alone) are joined into that rank.")]
pub struct Args {
    /// The ranks' analyses (roofline.analysis/v2 JSON from `profile`), or
    /// their timelines (roofline.timeline/v1 JSON from `timeline`).
    #[arg(value_name = "RANK_FILE", required = true)]
    pub files: Vec<PathBuf>,

    /// Judge the job against this machine (a machine JSON from `roofline
    /// bench -o`) instead of the first rank's.
    #[arg(long, value_name = "FILE")]
    pub machine: Option<PathBuf>,
}

/// Bounded: `/dev/zero` or a stream that never ends is refused, not read
/// until memory runs out.
fn read_text(path: &std::path::Path, what: &str) -> anyhow::Result<String> {
    crate::input_file::read_text(path, what)
}

/// The same file named twice (`a.json a.json`, `./a.json a.json`, a hard
/// link, a symbolic link to it) would count its rank's time twice: refused,
/// naming both arguments. Different files of one rank are still joined.
fn refuse_a_file_given_twice(files: &[PathBuf]) -> anyhow::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let mut seen: HashMap<(u64, u64), &PathBuf> = HashMap::new();
    for f in files {
        // Only regular files: a FIFO or device is read once as it comes, and a
        // missing file is reported when it is read.
        let Ok(meta) = std::fs::metadata(f) else { continue };
        if !meta.is_file() {
            continue;
        }
        if let Some(first) = seen.insert((meta.dev(), meta.ino()), f) {
            return Err(bad_input(format!(
                "RANK_FILE {} and {} are the same file, given twice: its rank's time would be counted twice; give each file once",
                first.display(),
                f.display()
            )));
        }
    }
    Ok(())
}

pub fn run(args: &Args, out: &Output) -> anyhow::Result<ExitCode> {
    // `merge job.rank*.json -o job.rank1.json` must not destroy a rank.
    let mut inputs: Vec<(&str, &std::path::Path)> = args.files.iter().map(|f| ("RANK_FILE", f.as_path())).collect();
    inputs.extend(args.machine.iter().map(|m| ("--machine", m.as_path())));
    out.protect_inputs(&[], &inputs)?;
    refuse_a_file_given_twice(&args.files)?;
    let machine = match &args.machine {
        Some(p) => {
            let input = p.display().to_string();
            Some(read_machine(&read_text(p, "a machine JSON from `roofline bench -o`")?, &input)?.machine)
        }
        None => None,
    };
    let mut merger = Merger::new(machine.clone());
    let mut timelines = Vec::new();
    // Files are read and parsed on every core and folded in the order
    // given, one at a time: the same document as a loop over the files.
    let parse = |i: usize| -> anyhow::Result<(String, ParsedRank, bool)> {
        let path = &args.files[i];
        let input = path.display().to_string();
        let expected = format!("a {ANALYSIS_SCHEMA} or {TIMELINE_SCHEMA} file a rank wrote");
        // A large rank file is skimmed where it lies in the page cache; a
        // timeline, or a rank the skimming reader leaves to serde_json, is
        // read as any other file. Its bytes are not searched for NULs first:
        // the skimming reader declines at a NUL, and the stream names it.
        if let Some(map) = crate::input_file::Mapped::of(path) {
            let text = map.bytes();
            if !timeline_at_head(&text[..text.len().min(HEAD_BYTES)]) {
                if let Some(parsed) = skim_rank_bytes(text) {
                    return Ok((input, parsed, false));
                }
            }
        }
        let mut stream = crate::input_file::open_text(path, &expected)?;
        let head = stream.head(HEAD_BYTES)?;
        // A timeline (roofline writes its schema first) is parsed as it is
        // read, its per-launch arrays skipped: never held as text.
        if timeline_at_head(&head) {
            let tl =
                read_timeline_digest_from(std::io::BufReader::new(std::io::Cursor::new(head).chain(stream)), &input)?;
            return Ok((input, timeline_rank(tl, machine.as_ref()), true));
        }
        // Most ranks are current analyses, read from their bytes, into this
        // thread's buffer; the rest (timelines written by hand, older
        // documents, errors) as text.
        let skimmed = RANK_BYTES.with_borrow_mut(|bytes| -> anyhow::Result<_> {
            bytes.clear();
            bytes.extend_from_slice(&head);
            stream.read_rest_into(bytes)?;
            Ok(skim_rank_bytes(bytes).ok_or_else(|| std::mem::take(bytes)))
        })?;
        let bytes = match skimmed {
            Ok(parsed) => return Ok((input, parsed, false)),
            Err(bytes) => bytes,
        };
        let text = crate::input_file::text_of(bytes, path, &expected)?;
        if is_timeline(&text) {
            let tl = read_timeline_digest(&text, &input)?;
            drop(text);
            Ok((input, timeline_rank(tl, machine.as_ref()), true))
        } else {
            let parsed = read_rank(&text, &input)?;
            Ok((input, parsed, false))
        }
    };
    parse_in_order(args.files.len(), parse_threads(), parse, |i, (input, parsed, timeline)| {
        merger.add_parsed(parsed, &input, i as u32).map_err(bad_input)?;
        if timeline {
            timelines.push(input);
        }
        Ok(())
    })?;
    let mut producer = Producer::new(&format!("roofline merge ({} files)", args.files.len()));
    producer.created = Some(super::bench::now_rfc3339());
    let mut doc = merger.finish(producer).map_err(|e: MergeError| bad_input(e))?;
    if !timelines.is_empty() {
        let w = Warning::Capture {
            message: format!(
                "{} of the files are timelines ({}): kernel times and launches only, no counters, so only collectives are placed (against the link roofs); profile the ranks with `roofline profile` to place the rest",
                timelines.len(),
                roofline_model::bounded(&timelines, ", ")
            ),
        };
        doc.job.warnings.push(w.clone());
        doc.warnings.push(w);
    }
    for w in &doc.warnings {
        out.warn(&w.text());
    }
    out.info(&format!("{} rank(s), {} kernel(s) merged", doc.ranks.len(), doc.kernels.len()));
    out.document(&doc)?;
    Ok(ExitCode::SUCCESS)
}

thread_local! {
    /// The bytes of the rank a parsing thread reads: one buffer for all of
    /// its files. A fresh one of 58 MB for each of 256 ranks was faulted in
    /// and zeroed by the kernel page by page: half the merge's CPU time.
    static RANK_BYTES: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How much of a file is read to tell a timeline from an analysis.
const HEAD_BYTES: usize = 512;

/// Whether a file's first bytes are those of a timeline document as
/// roofline writes it: `{`, then `"schema": "roofline.timeline/v1"`.
fn timeline_at_head(head: &[u8]) -> bool {
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // A multibyte character cut at the end of the head.
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    roofline_documents::schema_at_head(text) == Some(TIMELINE_SCHEMA)
}

/// Whether a document is a timeline: its schema, looked for near the start
/// (roofline writes it first), else anywhere in the text.
fn is_timeline(text: &str) -> bool {
    let mut end = text.len().min(HEAD_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let needle = format!("\"{TIMELINE_SCHEMA}\"");
    head.contains(&needle) || (!head.contains("\"schema\"") && text.contains(&needle))
}

/// A rank's timeline as the merge reads a rank: each kernel with its
/// measured time and launches, no counters, placed one at a time (only
/// collectives are placed, against the link roofs). The machine is
/// `machine`, else the built-in one of the GPU the timeline names, else an
/// empty one with that name.
fn timeline_rank(tl: TimelineDigest, machine: Option<&Machine>) -> ParsedRank {
    let device = tl.devices.first().map(|d| d.name.clone());
    let machine = match machine {
        Some(m) => m.clone(),
        None => device
            .as_deref()
            .and_then(roofline_hw::find_by_device_name)
            .and_then(|g| roofline_hw::theoretical_machine(&g.attributes()).ok())
            .unwrap_or_else(|| Machine {
                name: device.clone().unwrap_or_else(|| "unknown GPU".into()),
                ..Machine::default()
            }),
    };
    let kernels = tl.kernels.into_iter().filter(|r| r.kind == ActivityKind::Kernel).map(|r| {
        let mut k = Kernel::named(&r.name, Origin::Measured);
        if !r.display_name.is_empty() {
            k.display_name = r.display_name;
        }
        k.launches = r.instances;
        k.duration_s = Some(r.total_ns as f64 * 1e-9);
        k
    });
    ParsedRank::from_kernels(machine, kernels)
}
