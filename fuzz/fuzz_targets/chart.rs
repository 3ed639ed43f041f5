//! The chart layout (issue 16, item 3): every analysis the tool accepts is
//! drawn by every chart renderer of `roofline-report` without a panic, in
//! bounded time (libFuzzer's `-timeout`) and with output whose size is
//! bounded by the number of kernels and the length of their names.
//!
//! Two kinds of input share one corpus:
//!
//! - text starting with `{`: an analysis document as `roofline report`
//!   reads it (`read_analysis`: the tool refuses what fails its checks,
//!   exit 2), seeded with the analyses `roofline import` and `model` write
//!   from the real H200 captures;
//! - anything else: kernels built from raw bytes (a name, a FLOP kind, and
//!   FLOPs, bytes per level and a duration as raw `f64` bits, so that 0,
//!   subnormals and ~1e307 come up at once), analysed on the bundled H200
//!   measurement or on a two-roof machine whose rates are fuzzed too, and
//!   kept when they pass `check_analysis`, as `roofline model` keeps them.
//!
//! Each is drawn, at sizes the input chooses (a hash of its bytes), as:
//! the SVG roofline (`roofline_svg`, `--width` 480 to 4000), the terminal
//! chart (`Format::Chart`, 1 to 400 columns, colour or not) of the FLOP,
//! auto or instruction view, the instruction roofline as SVG when a kernel
//! is on it, and either the HTML page (documents of a few kernels, one
//! input in four) or the diff chart against itself. Drawing every
//! renderer at every size on each input cost ~45 ms an execution; the
//! choice keeps the campaign's reach and runs several times faster.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use roofline_documents::diff;
use roofline_model::Kernel;
use roofline_model::{FlopKind, Machine, MemLevel, Origin};
use roofline_documents::{check_analysis, read_analysis, read_machine, AnalysisDocument};
use roofline_report::{
    diff_svg, page_view, render, roofline_svg, AnalysisView, ChartOptions, Format, InstructionView, RenderOptions,
    TerminalOptions,
};

/// The H200 as the tool measured it (L2 and L1 roofs, every precision).
fn h200() -> &'static Machine {
    static M: OnceLock<Machine> = OnceLock::new();
    M.get_or_init(|| {
        read_machine(include_str!("../../data/h200/tour/machine.json"), "machine.json")
            .expect("the bundled H200 machine reads")
            .machine
    })
}

/// Reads raw input as bytes, then zeros.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn f64(&mut self) -> f64 {
        let mut b = [0u8; 8];
        for x in &mut b {
            *x = self.u8();
        }
        f64::from_le_bytes(b)
    }
    fn text(&mut self, max: usize) -> String {
        let n = (self.u8() as usize).min(max).min(self.0.len());
        let (s, rest) = self.0.split_at(n);
        self.0 = rest;
        String::from_utf8_lossy(s).into_owned()
    }
}

/// At most this many kernels from raw bytes: the chart's work per kernel
/// is what is fuzzed, not its scale (the scale benchmark owns that).
const MAX_RAW_KERNELS: usize = 64;

/// An analysis of kernels read from raw bytes, `None` when it is one the
/// tool would refuse (a number out of range: exit 2, the field named).
fn from_bytes(data: &[u8]) -> Option<AnalysisDocument> {
    let mut b = Bytes(data);
    let flags = b.u8();
    let machine = if flags & 1 == 0 {
        h200().clone()
    } else {
        let kind = FlopKind::ALL[b.u8() as usize % FlopKind::ALL.len()];
        Machine::simple("fuzzed", kind, b.f64().abs(), b.f64().abs())
    };
    let mut kernels = Vec::new();
    while !b.0.is_empty() && kernels.len() < MAX_RAW_KERNELS {
        let name = b.text(200);
        let mut k = Kernel::named(&name, Origin::Counter);
        let present = b.u8();
        let kind = FlopKind::ALL[(present >> 4) as usize % FlopKind::ALL.len()];
        if present & 1 != 0 {
            k.flops.insert(kind, b.f64());
        }
        for (bit, level) in [(2, MemLevel::Dram), (4, MemLevel::L2), (8, MemLevel::L1)] {
            if present & bit != 0 {
                k.bytes.insert(level, b.f64());
            }
        }
        k.duration_s = (present & 0x80 == 0).then(|| b.f64());
        k.launches = 1 + u64::from(b.u8());
        kernels.push(k);
    }
    let analysed = roofline_analysis::analyze(&machine, &kernels);
    let doc = roofline_fuzz::document("model", machine, analysed);
    check_analysis(&doc, "fuzz").is_ok().then_some(doc)
}

/// The most any renderer may write for `doc`: a fixed part (axes, roofs,
/// legend, notes, the page's script and style) and a part per kernel that
/// grows with its name, which labels, tooltips and tables repeat.
fn output_bound(doc: &AnalysisDocument) -> usize {
    let names: usize = doc.kernels.iter().map(|k| k.kernel.name.len() + k.kernel.display_name.len()).sum();
    let per_kernel = 8 << 10;
    (512 << 10) + doc.kernels.len() * per_kernel + names * 64
}

fn bounded(what: &str, text: &str, bound: usize) {
    assert!(text.len() <= bound, "{what}: {} bytes, above the bound of {bound}", text.len());
}

/// Documents of up to this many kernels may also go through the HTML
/// page (it embeds the SVG and the tables: about as costly as both).
const HTML_KERNELS: usize = 8;

/// Which renderers draw an input, and at which sizes: chosen by the input
/// (the fuzzer's to vary), so that each execution draws a few charts and
/// the campaign draws them all, at every width.
#[derive(Clone, Copy)]
struct Choice(u32);

impl Choice {
    /// For a document: a hash of its bytes (a JSON document has no spare
    /// byte to choose with; any edit changes the choice).
    fn of(data: &[u8]) -> Choice {
        Choice(data.iter().fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(*b)).wrapping_mul(0x0100_0193)))
    }
    fn bits(self, shift: u32, n: u32) -> u32 {
        (self.0 >> shift) % n
    }
    /// `--width`: 480 to 4000 pixels, the ends and the default often.
    fn svg_width(self) -> f64 {
        match self.bits(0, 8) {
            0 => 480.0,
            1 => 4000.0,
            2 | 3 => 960.0,
            _ => 480.0 + f64::from(self.bits(3, 3521)),
        }
    }
    /// Terminal columns: 1 to 400 (the chart clamps to 40..300).
    fn columns(self) -> u16 {
        match self.bits(16, 8) {
            0 => 40,
            1 => 80,
            2 => 120,
            3 => 300,
            _ => 1 + self.bits(19, 400) as u16,
        }
    }
    fn view(self) -> AnalysisView {
        [AnalysisView::Flops, AnalysisView::Auto, AnalysisView::Instructions][self.bits(28, 3) as usize]
    }
    fn colour(self) -> bool {
        self.0 & (1 << 30) != 0
    }
    fn html(self) -> bool {
        self.bits(24, 4) == 0
    }
}

fn draw(whole: &AnalysisDocument, choice: Choice) {
    let page = page_view(whole);
    let doc = page.as_ref().unwrap_or(whole);
    let bound = output_bound(doc);
    let svg = roofline_svg(doc, &ChartOptions { width: choice.svg_width(), ..ChartOptions::default() });
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "not one SVG element");
    bounded("roofline_svg", &svg, bound);

    let view = choice.view();
    let v = match InstructionView::new(doc, view, "fuzz.json") {
        Ok(v) => v,
        Err(_) => {
            assert_eq!(view, AnalysisView::Instructions, "only the instruction view may be refused");
            assert!(doc.kernels.iter().all(|k| k.instructions.is_none()), "refused with instruction counters");
            InstructionView::new(doc, AnalysisView::Flops, "fuzz.json").expect("the FLOP view is never refused")
        }
    };
    let width = choice.columns();
    let opts = RenderOptions {
        terminal: TerminalOptions { width, color: choice.colour(), wide: false, quiet: false },
        chart: ChartOptions { width: choice.svg_width(), ..ChartOptions::default() },
    };
    let text = render(&v, Format::Chart, &opts).expect("an analysis has a chart");
    bounded("terminal chart", &text, bound);
    if !v.kernels.is_empty() {
        let svg = render(&v, Format::Svg, &opts).expect("an analysis has a chart");
        bounded("instruction SVG", &svg, bound);
    }
    if choice.html() && doc.kernels.len() <= HTML_KERNELS {
        let html = render(&v, Format::Html, &opts).expect("the page renders");
        bounded("HTML page", &html, 2 * bound);
    } else if let Ok(d) = diff(doc, doc, &[]) {
        let svg = diff_svg(doc, doc, &d, &opts.chart);
        bounded("diff_svg", &svg, bound);
    }
}

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'{') {
        let Ok(text) = std::str::from_utf8(data) else { return };
        let Ok(doc) = read_analysis(text, "fuzz.json") else { return };
        if doc.kernels.is_empty() {
            return; // `report` refuses an analysis without kernels (exit 2).
        }
        draw(&doc, Choice::of(data));
    } else if let Some(doc) = from_bytes(data) {
        if !doc.kernels.is_empty() {
            draw(&doc, Choice::of(data));
        }
    }
});
