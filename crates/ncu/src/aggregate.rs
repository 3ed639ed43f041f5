//! Launches of one kernel, summed into one roofline point per kernel as
//! they are read.
//!
//! A kernel is a name in one process, on one device, context and stream:
//! two processes (or two GPUs) running the same kernel stay apart, because
//! their points can differ and a reader must be able to tell them apart.
//! FLOPs, bytes and durations add up; percentages are duration-weighted.
//!
//! [`Kernels`] takes launches one at a time and keeps only their sums per
//! kernel (and per launch shape of a kernel), never the launches: a capture
//! of 300,000 launches of 8,000 kernels is held as 8,000 sets of sums. The
//! names, IDs and warnings that need the whole capture (several processes?
//! which display names collide?) are made at the end, from what the sums
//! kept.
//!
//! With one point per launch, [`Kernels::add_launch`] hands each launch's
//! point back as it is made instead of keeping it: `import --per-launch`
//! analyses and spills it at once, and [`Kernels::streamed_capture`] then
//! gives the names and warnings from what each launch left (about 130
//! bytes), the same the held points would have had.

use std::collections::HashMap;
use std::sync::Arc;

use roofline_model::{display_names, short_id, Capture, CaptureSource, CapturedKernel, Kernel, Machine};
use roofline_model::{MissingMetric, PartlyTimedKernel, ShortLaunch, Warning};

use crate::csv::{Launch, RawCapture};
use crate::metrics::{self, Slot};
use crate::points::{self, duration, ByteConvention, KernelSums, MachineSums};
use crate::Options;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    process: Arc<str>,
    device: Arc<str>,
    context: Arc<str>,
    stream: Arc<str>,
    name: Arc<str>,
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

/// How many launches a warning names by line.
const EXAMPLES: usize = 3;

/// One kernel's launches, summed. Rates divide FLOPs and bytes by time, so
/// both must come from the same launches: when some launches of a kernel
/// have a usable duration and others do not (zero, `n/a`, missing), its
/// point is made of the timed ones alone, and the others are reported.
/// With no timed launch at all, the point keeps every launch's FLOPs and
/// bytes and has no time (no rates). So the timed and the untimed launches
/// are summed apart, and the end says which sums make the point.
#[derive(Debug)]
struct Group {
    key: Key,
    /// ncu's ID of the first launch (a kernel per launch is named by it).
    first_id: String,
    timed: Option<Box<KernelSums>>,
    untimed: Option<Box<KernelSums>>,
    /// Launches with a usable duration, and without.
    timed_launches: u64,
    untimed_launches: u64,
    /// The counter roofs of all its launches.
    machine: MachineSums,
    /// Launches with a positive duration below the floor, and the first few.
    short: u64,
    short_examples: Vec<(u64, f64)>,
    /// Lines of the first few untimed launches.
    untimed_lines: Vec<u64>,
    /// With one kernel per launch: its point and roofs, made at once.
    done: Option<(Kernel, Machine)>,
}

impl Group {
    fn new(l: &Launch) -> Group {
        Group {
            key: key(l),
            first_id: l.id.clone(),
            timed: None,
            untimed: None,
            timed_launches: 0,
            untimed_launches: 0,
            machine: MachineSums::default(),
            short: 0,
            short_examples: Vec::new(),
            untimed_lines: Vec::new(),
            done: None,
        }
    }

    fn add(&mut self, l: &Launch, conv: ByteConvention) {
        if let Some(d) = points::duration_below_floor(l) {
            self.short += 1;
            if self.short_examples.len() < EXAMPLES {
                self.short_examples.push((l.line, d));
            }
        }
        let sums = if duration(l).is_some() {
            self.timed_launches += 1;
            &mut self.timed
        } else {
            self.untimed_launches += 1;
            if self.untimed_lines.len() < EXAMPLES {
                self.untimed_lines.push(l.line);
            }
            &mut self.untimed
        };
        sums.get_or_insert_with(Box::default).add(l, conv);
        self.machine.add(l);
    }

    /// The sums the point is made of: the timed launches', else all.
    fn point(&self) -> &KernelSums {
        self.timed.as_deref().or(self.untimed.as_deref()).expect("a group has a launch")
    }

    /// Its point under `id` and `display`, and its roofs.
    fn finish(&self, conv: ByteConvention, id: String, display: String) -> (Kernel, Machine) {
        (self.point().kernel(conv, &self.key.name, id, display), self.machine.machine(conv))
    }
}

/// What the end needs of a launch whose point was handed on
/// ([`Kernels::add_launch`]): its kernel's key and ID for the names, and
/// what the warnings count.
#[derive(Debug)]
struct Launched {
    key: Key,
    first_id: Box<str>,
    /// The launch's line and duration, when below the floor.
    short: Option<(u64, f64)>,
    /// Whether its point has no duration.
    no_duration: bool,
}

/// A kernel's ID and display name, as the end of a capture gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelNames {
    /// [`Kernel::id`].
    pub id: String,
    /// [`Kernel::display_name`].
    pub display_name: String,
}

/// The kernels of a capture, summed as its launches are read ([`Kernels::add`]),
/// then made into the capture's [`Capture`] ([`Kernels::capture`]).
#[derive(Debug)]
pub struct Kernels {
    opts: Options,
    groups: Vec<Group>,
    /// Launches whose points were handed on ([`Kernels::add_launch`]).
    launched: Vec<Launched>,
    index: HashMap<Key, usize>,
    /// The counter roofs of the whole capture.
    overall: MachineSums,
    /// Launches whose SM, DRAM, L2 and L1 clocks read 0.
    stopped_clocks: [u64; 4],
    launches: u64,
}

/// The clocks a launch may read 0 for, and their metrics, in the order the
/// warnings name them.
const CLOCKS: [(Slot, &str); 4] = [
    (Slot::SmClock, "sm__cycles_elapsed.avg.per_second"),
    (Slot::DramClock, "dram__cycles_elapsed.avg.per_second"),
    (Slot::LtsClock, "lts__cycles_elapsed.avg.per_second"),
    (Slot::L1Clock, "l1tex__cycles_elapsed.avg.per_second"),
];

impl Kernels {
    /// No launch yet; the counters will be read as `opts` says.
    pub fn new(opts: &Options) -> Kernels {
        Kernels {
            opts: opts.clone(),
            groups: Vec::new(),
            launched: Vec::new(),
            index: HashMap::new(),
            overall: MachineSums::default(),
            stopped_clocks: [0; 4],
            launches: 0,
        }
    }

    /// Adds one launch to its kernel (or, one point per launch, makes its
    /// point at once).
    pub fn add(&mut self, l: &Launch) {
        debug_assert!(self.launched.is_empty(), "add and add_launch do not mix");
        self.count(l);
        let conv = self.opts.convention;
        if self.opts.per_launch {
            let mut g = Group::new(l);
            g.add(l, conv);
            g.done = Some(g.finish(conv, String::new(), String::new()));
            // Its point is made: the sums are not needed any more.
            (g.timed, g.untimed, g.machine) = (None, None, MachineSums::default());
            self.groups.push(g);
            return;
        }
        let at = match self.index.get(&key(l)) {
            Some(&at) => at,
            None => {
                self.index.insert(key(l), self.groups.len());
                self.groups.push(Group::new(l));
                self.groups.len() - 1
            }
        };
        self.groups[at].add(l, conv);
    }

    /// One point per launch, handed back as it is made rather than kept
    /// (its ID and display name empty: they need the whole capture, and
    /// [`Kernels::streamed_capture`] gives them). Only with
    /// `Options::per_launch`; not to be mixed with [`Kernels::add`].
    pub fn add_launch(&mut self, l: &Launch) -> CapturedKernel {
        debug_assert!(self.opts.per_launch && self.groups.is_empty(), "add_launch is for one point per launch");
        self.count(l);
        let conv = self.opts.convention;
        let mut g = Group::new(l);
        g.add(l, conv);
        let (kernel, roofs) = g.finish(conv, String::new(), String::new());
        self.launched.push(Launched {
            key: g.key,
            first_id: g.first_id.into_boxed_str(),
            short: g.short_examples.first().copied(),
            no_duration: kernel.duration_s.is_none(),
        });
        CapturedKernel { kernel, roofs: Some(roofs) }
    }

    /// What every launch adds to the capture's own sums.
    fn count(&mut self, l: &Launch) {
        self.launches += 1;
        self.overall.add(l);
        for (n, (slot, _)) in self.stopped_clocks.iter_mut().zip(CLOCKS) {
            if l.get(slot) == Some(0.0) {
                *n += 1;
            }
        }
    }

    /// Launches added so far.
    pub fn launches(&self) -> u64 {
        self.launches
    }

    /// The [`Capture`] of the launches added: its kernels (launches summed,
    /// or one per launch) in order of first appearance, the counter roofs
    /// of each kernel's own launches and of the whole capture, and the
    /// warnings about what was read (`read`: the capture's warnings,
    /// errors, missing metrics and program exit; its launches are not
    /// read) and what is missing. Names get a `[pid ..., dev ..., stream
    /// ...]` suffix only where the capture has several processes, devices,
    /// contexts or streams.
    pub fn capture(self, read: &RawCapture) -> Capture {
        debug_assert!(self.launched.is_empty(), "launches handed on: streamed_capture");
        let conv = self.opts.convention;
        let mut warnings = self.read_warnings(read);
        let mut namer = Namer::of(self.groups.iter().map(|g| &g.key), self.opts.per_launch);
        let mut kernels = Vec::with_capacity(self.groups.len());
        let mut counts = Counts::default();
        // Each group is consumed as its kernel is made: a point made per
        // launch moves into the capture, never copied.
        for (i, mut g) in self.groups.into_iter().enumerate() {
            let KernelNames { id, display_name: display } = namer.name(i, &g.key, &g.first_id);
            let (kernel, roofs) = match g.done.take() {
                Some((mut kernel, roofs)) => {
                    kernel.id = id;
                    kernel.display_name = display;
                    (kernel, roofs)
                }
                None => g.finish(conv, id, display),
            };
            for &(line, duration_s) in &g.short_examples {
                counts.short_example(&kernel.display_name, line, duration_s);
            }
            counts.short += g.short;
            let (timed, untimed) = (g.timed_launches, g.untimed_launches);
            if timed > 0 && untimed > 0 {
                counts.partly_timed.push(PartlyTimedKernel {
                    kernel: kernel.display_name.clone(),
                    left_out: untimed,
                    launches: timed + untimed,
                    lines: g.untimed_lines.clone(),
                });
            } else if kernel.duration_s.is_none() {
                counts.untimed_launches += timed + untimed;
            }
            kernels.push(CapturedKernel { kernel, roofs: Some(roofs) });
        }
        counts.warnings(&mut warnings);
        Capture {
            source: CaptureSource { kind: "ncu".into(), byte_convention: Some(conv.describe().into()) },
            kernels,
            roofs: Some(overall_roofs(&self.overall, conv)),
            warnings,
            launches: self.launches,
        }
    }

    /// As [`Kernels::capture`], for launches whose points were handed on
    /// ([`Kernels::add_launch`]): the capture without its kernels, and each
    /// kernel's ID and display name in capture order, as `capture` would
    /// have given them to the held points.
    pub fn streamed_capture(self, read: &RawCapture) -> (Capture, Vec<KernelNames>) {
        debug_assert!(self.groups.is_empty(), "launches summed: capture");
        let conv = self.opts.convention;
        let mut warnings = self.read_warnings(read);
        let mut namer = Namer::of(self.launched.iter().map(|l| &l.key), true);
        let mut names = Vec::with_capacity(self.launched.len());
        let mut counts = Counts::default();
        for (i, l) in self.launched.into_iter().enumerate() {
            let n = namer.name(i, &l.key, &l.first_id);
            if let Some((line, duration_s)) = l.short {
                counts.short_example(&n.display_name, line, duration_s);
                counts.short += 1;
            }
            // One launch: timed or not, never partly.
            if l.no_duration {
                counts.untimed_launches += 1;
            }
            names.push(n);
        }
        counts.warnings(&mut warnings);
        let cap = Capture {
            source: CaptureSource { kind: "ncu".into(), byte_convention: Some(conv.describe().into()) },
            kernels: Vec::new(),
            roofs: Some(overall_roofs(&self.overall, conv)),
            warnings,
            launches: self.launches,
        };
        (cap, names)
    }

    /// The warnings about what was read, missing metrics and stopped clocks.
    fn read_warnings(&self, read: &RawCapture) -> Vec<Warning> {
        let mut warnings: Vec<Warning> =
            read.warnings.iter().map(|m| Warning::Capture { message: m.clone() }).collect();
        for e in &read.errors {
            warnings.push(Warning::Profiler { message: e.clone() });
        }
        if let Some(exit) = &read.program_exit {
            warnings.push(Warning::ProgramFailed {
                program: exit.program.clone(),
                status: exit.status,
                signal: exit.signal.clone(),
                stopped_by: exit.stopped_by.clone(),
                launches_analysed: self.launches,
            });
        }
        let mut missing: Vec<MissingMetric> = Vec::new();
        for m in read.missing.iter().filter(|m| metrics::reported_when_missing(m.slot)) {
            let entry = MissingMetric {
                metrics: m.metrics.iter().map(|s| s.to_string()).collect(),
                blocks: m.blocks.to_string(),
            };
            if !missing.contains(&entry) {
                missing.push(entry);
            }
        }
        if !missing.is_empty() {
            warnings.push(Warning::MissingMetrics { missing });
        }
        for (&zero, (_, metric)) in self.stopped_clocks.iter().zip(CLOCKS) {
            if zero > 0 {
                warnings.push(Warning::ClockStopped { metric: metric.into(), launches: zero });
            }
        }
        warnings
    }
}

/// The counter roofs of the whole capture.
fn overall_roofs(overall: &MachineSums, conv: ByteConvention) -> Machine {
    let mut roofs = overall.machine(conv);
    roofs.notes.push(
        "each kernel is judged against these peaks at its own clocks (its launches' duration-weighted SM, L2, L1 and DRAM clocks); the clocks above are the capture's average".into(),
    );
    roofs
}

/// Kernels' IDs and display names. Names get a `[pid ..., dev ...,
/// stream ...]` suffix only where the capture has several processes,
/// devices, contexts or streams; with one point per launch, the launch's
/// ID too (and `.2`, `.3` where joined captures repeat it).
struct Namer {
    many: [bool; 4],
    displays: Vec<String>,
    per_launch: bool,
    launch_ids: HashMap<String, usize>,
}

impl Namer {
    fn of<'a>(keys: impl Iterator<Item = &'a Key> + Clone, per_launch: bool) -> Namer {
        let distinct = |f: fn(&Key) -> &Arc<str>| {
            let mut v: Vec<&str> = keys.clone().map(|k| &**f(k)).collect();
            v.sort_unstable();
            v.dedup();
            v.len() > 1
        };
        let many =
            [distinct(|k| &k.process), distinct(|k| &k.device), distinct(|k| &k.context), distinct(|k| &k.stream)];
        let displays = display_names(&keys.map(|k| &*k.name).collect::<Vec<&str>>());
        Namer { many, displays, per_launch, launch_ids: HashMap::new() }
    }

    /// The names of the `i`th kernel, of key `k` and first launch `first_id`.
    fn name(&mut self, i: usize, k: &Key, first_id: &str) -> KernelNames {
        let [many_proc, many_dev, many_ctx, many_stream] = self.many;
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
        let mut display = std::mem::take(&mut self.displays[i]);
        let mut id_source = k.name.to_string();
        if !tags.is_empty() {
            display = format!("{display} [{}]", tags.join(", "));
            id_source = format!("{id_source}\u{1f}{}", tags.join(","));
        }
        let mut id = short_id(&id_source);
        if self.per_launch {
            display = format!("{display} #{first_id}");
            id = format!("{id}-{first_id}");
            // Captures joined together repeat launch IDs; kernel IDs stay unique.
            let seen = self.launch_ids.entry(id.clone()).or_insert(0);
            *seen += 1;
            if *seen > 1 {
                id = format!("{id}.{seen}");
                display = format!("{display}.{seen}");
            }
        }
        KernelNames { id, display_name: display }
    }
}

/// The launches the warnings at the end of a capture count.
#[derive(Default)]
struct Counts {
    short: u64,
    short_examples: Vec<ShortLaunch>,
    partly_timed: Vec<PartlyTimedKernel>,
    untimed_launches: u64,
}

impl Counts {
    fn short_example(&mut self, kernel: &str, line: u64, duration_s: f64) {
        if self.short_examples.len() < EXAMPLES {
            self.short_examples.push(ShortLaunch { kernel: kernel.to_string(), line, duration_s });
        }
    }

    fn warnings(self, warnings: &mut Vec<Warning>) {
        if self.short > 0 {
            warnings.push(Warning::DurationBelowFloor {
                metric: "gpu__time_duration.sum".into(),
                floor_s: points::MIN_PLAUSIBLE_DURATION_S,
                launches: self.short,
                examples: self.short_examples,
            });
        }
        if !self.partly_timed.is_empty() {
            warnings.push(Warning::PartlyTimed { kernels: self.partly_timed });
        }
        if self.untimed_launches > 0 {
            warnings.push(Warning::NoDuration { launches: self.untimed_launches });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use roofline_model::FlopKind;

    use super::*;
    use crate::csv::{NameMap, PipeCount, TensorCount};
    use crate::metrics::{PIPES, SLOT_COUNT};

    /// splitmix64: the launches of a random capture from one seed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn pick<T: Clone>(&mut self, from: &[T]) -> T {
            from[(self.next() % from.len() as u64) as usize].clone()
        }

        fn chance(&mut self, pct: u64) -> bool {
            self.next() % 100 < pct
        }

        /// A counter value: often absent, sometimes zero, tiny, huge or a
        /// clock in kHz, else anything in between.
        fn value(&mut self) -> f64 {
            match self.next() % 10 {
                0..=3 => f64::NAN,
                4 => 0.0,
                5 => 1.0,
                6 => self.pick(&[5e-10, 1.98e12, 1e15, 100.0, 99.97]),
                _ => (self.next() % 1_000_000) as f64 / 7.0,
            }
        }
    }

    fn random_launch(rng: &mut Rng, line: u64) -> Launch {
        let mut values = [f64::NAN; SLOT_COUNT];
        for v in values.iter_mut() {
            *v = rng.value();
        }
        values[Slot::Duration as usize] = match rng.next() % 6 {
            0 => f64::NAN,
            1 => 0.0,
            2 => 5e-10,
            _ => (1 + rng.next() % 5000) as f64 * 1e-7,
        };
        let mut tensor = BTreeMap::new();
        for kind in [FlopKind::TensorBf16, FlopKind::TensorFp64, FlopKind::TensorFp16] {
            if rng.chance(30) {
                let peak = rng.chance(70).then(|| rng.pick(&[0.0, 1024.0, 8192.0 * 132.0]));
                tensor.insert(kind, TensorCount { ops: rng.pick(&[0.0, 1e6, 3e9]), peak_per_cycle: peak });
            }
        }
        let mut stalls = NameMap::new();
        for name in ["barrier", "long_scoreboard", "wait"] {
            if rng.chance(50) {
                stalls.insert(name.into(), rng.pick(&[0.0, 0.5, 12.25]));
            }
        }
        let mut pipes = NameMap::new();
        for &(name, _) in PIPES {
            if rng.chance(40) {
                let mut opt = || rng.chance(60).then(|| rng.pick(&[0.0, 20.0, 37.5, 1e6]));
                let p = PipeCount { pct_of_peak: opt(), warp_instructions: opt(), cycles_pct: opt() };
                pipes.insert(name.into(), p);
            }
        }
        let shape =
            rng.pick(&[("(1, 1, 1)", "(32, 1, 1)"), ("(1024, 1, 1)", "(256, 1, 1)"), ("(8, 8, 1)", "(128, 1, 1)")]);
        Launch {
            id: rng.pick(&["", "0", "7", "42"]).to_string(),
            process_id: rng.pick(&["100", "100", "200"]).into(),
            process_name: "p".into(),
            host: "h".into(),
            kernel_name: rng.pick(&["ampere_sgemm_128x64_nn", "void k<float>(int)", "void k<double>(int)"]).into(),
            context: rng.pick(&["1", "1", "2"]).into(),
            stream: rng.pick(&["7", "7", "13"]).into(),
            device: rng.pick(&["0", "0", "1"]).into(),
            cc: rng.pick(&["9.0", "9.0", "8.0", "", "x"]).into(),
            device_name: rng.pick(&["", " NVIDIA H200 "]).into(),
            grid: shape.0.into(),
            block: shape.1.into(),
            values,
            tensor,
            stalls,
            pipes,
            line,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The oracle is the path that held every launch and grouped them
        /// at the end; the streaming sums must give the same capture, bit
        /// for bit (`Debug` prints every float so that it reads back).
        #[test]
        fn streaming_sums_give_the_capture_that_grouping_held_launches_gave(
            seed in any::<u64>(),
            n in 1usize..60,
            per_launch in any::<bool>(),
            nersc in any::<bool>(),
        ) {
            let mut rng = Rng(seed);
            let mut cap = RawCapture {
                launches: (0..n).map(|i| random_launch(&mut rng, i as u64 + 3)).collect(),
                warnings: vec!["a warning".into()],
                ..RawCapture::default()
            };
            if rng.chance(20) {
                cap.program_exit = Some(crate::csv::ProgramExit { program: "./app".into(), status: Some(1), ..Default::default() });
            }
            let convention = if nersc { ByteConvention::Nersc } else { ByteConvention::Ncu };
            let opts = Options { convention, per_launch };
            let held = crate::oracle::capture(&cap, &opts);
            let streamed = crate::capture(&cap, &opts);
            prop_assert_eq!(format!("{held:?}"), format!("{streamed:?}"));
        }

        /// Points handed on as they are made (`import --per-launch`,
        /// streamed), named at the end, make the capture the held points
        /// make, bit for bit.
        #[test]
        fn points_handed_on_and_named_at_the_end_give_the_capture_held_points_gave(
            seed in any::<u64>(),
            n in 0usize..60,
            nersc in any::<bool>(),
        ) {
            let mut rng = Rng(seed);
            let cap = RawCapture {
                launches: (0..n).map(|i| random_launch(&mut rng, i as u64 + 3)).collect(),
                warnings: vec!["a warning".into()],
                ..RawCapture::default()
            };
            let convention = if nersc { ByteConvention::Nersc } else { ByteConvention::Ncu };
            let opts = Options { convention, per_launch: true };
            let held = crate::capture(&cap, &opts);
            let mut kernels = Kernels::new(&opts);
            let points: Vec<CapturedKernel> = cap.launches.iter().map(|l| kernels.add_launch(l)).collect();
            let (mut streamed, names) = kernels.streamed_capture(&cap);
            prop_assert_eq!(names.len(), points.len());
            for (mut c, n) in points.into_iter().zip(names) {
                c.kernel.id = n.id;
                c.kernel.display_name = n.display_name;
                streamed.kernels.push(c);
            }
            prop_assert_eq!(format!("{held:?}"), format!("{streamed:?}"));
        }
    }
}
