//! A capture placed one kernel at a time, for captures too large to hold
//! placed: `import --per-launch` of 300,000 launches held 21 KB per launch
//! as whole [`KernelAnalysis`] records. [`CaptureStream::add`] places each
//! kernel as it is read and hands it back (the caller keeps it on disk); it
//! keeps only what the whole-capture steps read of it, about 400 bytes
//! ([`KernelFacts`]). [`CaptureStream::finish`] then does those steps as
//! [`crate::analyze_capture`] does them, from the lean records: the
//! program-level groups (in capture order), the sort by time, the warnings
//! that name kernels. [`StreamedCapture::place`] completes each kernel read
//! back, in the document's order (its ID, display name, share of time and
//! group moves), and [`StreamedCapture::program`] makes the program view
//! once every kernel is placed. The kernels and warnings are the bits
//! `analyze_capture` gives (the CLI's oracle test compares the documents).

use std::collections::HashSet;
use std::sync::Arc;

use roofline_model::{Capture, Kernel, Machine, Warning};

use crate::capture::{kernel_warnings_of, scope_warnings, sort_by_time, WarningFacts};
use crate::facts::KernelFacts;
use crate::findings::Position;
use crate::fusion::{apply_one, fusions, Fusion, Members, ProgramFacts};
use crate::kernel_analysis::KernelAnalysis;
use crate::levels::Bound;
use crate::placement::analyze_kernel;
use crate::program::{ProgramOptions, ProgramView};

/// What the whole-capture steps read of one placed kernel.
#[derive(Debug, Clone)]
struct LeanKernel {
    id: String,
    name: Arc<str>,
    display_name: String,
    duration_s: Option<f64>,
    launches: u64,
    capture_order: u64,
    launch_ids: Vec<String>,
    dram_bytes: Option<f64>,
    dram_write_bytes: Option<f64>,
    position: Option<Position>,
    binding_pct: Option<f64>,
    best_saving_s: Option<f64>,
    pct_of_roof: Option<f64>,
    bound: Option<Bound>,
    collective: bool,
    /// Whether it has FLOPs or bytes to place.
    work: bool,
    warnings: WarningFacts,
}

impl KernelFacts for LeanKernel {
    fn id(&self) -> &str {
        &self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn display_name(&self) -> &str {
        &self.display_name
    }
    fn duration_s(&self) -> Option<f64> {
        self.duration_s
    }
    fn launches(&self) -> u64 {
        self.launches
    }
    fn capture_order(&self) -> Option<u64> {
        Some(self.capture_order)
    }
    fn launch_ids(&self) -> &[String] {
        &self.launch_ids
    }
    fn dram_bytes(&self) -> Option<f64> {
        self.dram_bytes
    }
    fn dram_write_bytes(&self) -> Option<f64> {
        self.dram_write_bytes
    }
    fn position(&self) -> Option<Position> {
        self.position
    }
    fn binding_pct(&self) -> Option<f64> {
        self.binding_pct
    }
    fn best_saving_s(&self) -> Option<f64> {
        self.best_saving_s
    }
    fn pct_of_roof(&self) -> Option<f64> {
        self.pct_of_roof
    }
    fn bound(&self) -> Option<Bound> {
        self.bound
    }
    fn is_collective(&self) -> bool {
        self.collective
    }
}

/// A capture's kernels placed as they come ([`CaptureStream::add`]), then
/// finished as a whole ([`CaptureStream::finish`]).
#[derive(Debug)]
pub struct CaptureStream {
    machine: Option<Machine>,
    kernels: Vec<LeanKernel>,
    names: HashSet<Arc<str>>,
    /// The capture's summed durations, added in capture order as
    /// `analyze_capture` sums them.
    total_time: f64,
}

impl CaptureStream {
    /// No kernel yet; each will be judged against `machine` when given.
    pub fn new(machine: Option<&Machine>) -> CaptureStream {
        CaptureStream {
            machine: machine.cloned(),
            kernels: Vec::new(),
            names: HashSet::new(),
            // The sum of no durations, as `Iterator::sum` starts it.
            total_time: std::iter::empty::<f64>().sum(),
        }
    }

    /// Places the capture's next kernel, against the machine given or else
    /// `own` (its own counter roofs), as [`crate::analyze_capture`] does;
    /// its share of time, ID and display name wait for
    /// [`StreamedCapture::place`].
    pub fn add(&mut self, mut kernel: Kernel, own: &Machine) -> KernelAnalysis {
        if let Some(d) = kernel.duration_s {
            self.total_time += d;
        }
        let counter = analyze_kernel(own, &kernel);
        let mut a = match &self.machine {
            Some(m) => {
                kernel.evidence.counter_pct_of_roof = counter.pct_of_roof;
                analyze_kernel(m, &kernel)
            }
            None => counter,
        };
        a.kernel.capture_order = Some(self.kernels.len() as u64 + 1);
        let name = match self.names.get(a.kernel.name.as_str()) {
            Some(n) => n.clone(),
            None => {
                let n: Arc<str> = a.kernel.name.as_str().into();
                self.names.insert(n.clone());
                n
            }
        };
        self.kernels.push(LeanKernel {
            id: String::new(),
            name,
            display_name: String::new(),
            duration_s: a.kernel.duration_s,
            launches: a.kernel.launches,
            capture_order: self.kernels.len() as u64 + 1,
            launch_ids: a.kernel.evidence.ncu_launch_ids.clone(),
            dram_bytes: a.dram_bytes(),
            dram_write_bytes: a.dram_write_bytes(),
            position: a.position(),
            binding_pct: a.binding_pct(),
            best_saving_s: a.best_saving_s(),
            pct_of_roof: a.pct_of_roof,
            bound: a.bound,
            collective: a.collective.is_some(),
            work: !a.kernel.flops.is_empty() || !a.kernel.bytes.is_empty(),
            warnings: WarningFacts::of(&a),
        });
        a
    }

    /// Kernels added so far.
    pub fn len(&self) -> usize {
        self.kernels.len()
    }

    /// Whether no kernel was added.
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty()
    }

    /// The capture's whole-capture steps, once every kernel is added:
    /// `names` are the kernels' IDs and display names in capture order,
    /// `capture` the capture without its kernels (its warnings and roofs).
    pub fn finish(mut self, names: impl IntoIterator<Item = (String, String)>, capture: &Capture) -> StreamedCapture {
        for (k, (id, display)) in self.kernels.iter_mut().zip(names) {
            k.id = id;
            k.display_name = display;
        }
        self.names = HashSet::new();
        let mut warnings = capture.warnings.clone();
        let groups = fusions(&self.kernels);
        let members = Members::of(&self.kernels, &groups);
        let program = ProgramFacts::of(&self.kernels);
        sort_by_time(&mut self.kernels);
        let kernels = self.kernels;
        warnings.extend(kernel_warnings_of(kernels.iter().map(|k| (k.display_name.as_str(), &k.warnings))));
        warnings.extend(scope_warnings(kernels.iter().map(|k| &*k.name)));
        let machine = match self.machine {
            Some(m) => m,
            None => capture.roofs.clone().unwrap_or_default(),
        };
        if machine.ceilings.is_empty() && kernels.iter().any(|k| k.work) {
            warnings.push(Warning::NoRoofs);
        }
        StreamedCapture { machine, warnings, kernels, fusions: groups, members, program, total_time: self.total_time }
    }
}

/// A streamed capture with its whole-capture steps done: the kernels in
/// the document's order (most time first), each to be completed as it is
/// read back ([`StreamedCapture::place`]).
#[derive(Debug)]
pub struct StreamedCapture {
    /// The machine of the document: the given one, or the capture's own
    /// roofs.
    pub machine: Machine,
    /// The capture's warnings, then those about the kernels as placed.
    pub warnings: Vec<Warning>,
    kernels: Vec<LeanKernel>,
    fusions: Vec<Fusion>,
    /// Each kernel's places in the groups, by capture order.
    members: Members,
    /// What all the kernels say about each one's moves.
    program: ProgramFacts,
    total_time: f64,
}

impl StreamedCapture {
    /// Kernels in the document.
    pub fn len(&self) -> usize {
        self.kernels.len()
    }

    /// Whether the document has no kernel.
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty()
    }

    /// The place in the capture (from 0, the order of
    /// [`CaptureStream::add`]) of the document's `i`th kernel.
    pub fn capture_index(&self, i: usize) -> usize {
        self.kernels[i].capture_order as usize - 1
    }

    /// Completes the document's `i`th kernel, `a` being what
    /// [`CaptureStream::add`] gave for it: its ID, display name, share of
    /// the time and the moves of the groups it is in, as
    /// `analyze_capture` gives them.
    pub fn place(&mut self, i: usize, a: &mut KernelAnalysis) {
        let at = self.capture_index(i);
        let k = &mut self.kernels[i];
        a.kernel.id = k.id.clone();
        a.kernel.display_name = k.display_name.clone();
        if self.total_time > 0.0 {
            a.time_share = a.kernel.duration_s.filter(|d| *d > 0.0).map(|d| d / self.total_time);
        }
        apply_one(a, self.members.of_kernel(at), &self.fusions, self.program);
        // The program view reads the kernel as its groups left it.
        k.position = a.position();
        k.binding_pct = a.binding_pct();
        k.best_saving_s = a.best_saving_s();
    }

    /// The program view of the document, once every kernel is placed
    /// (`None` when no kernel has a duration), as
    /// `AnalysisDocument::set_program` derives it.
    pub fn program(&self, opts: &ProgramOptions) -> Option<ProgramView> {
        let view = ProgramView::from_kernels(&self.kernels, opts);
        view.is_timed().then_some(view)
    }
}
