//! The three classic graphs of the occupancy spreadsheet as small,
//! deterministic SVG: occupancy (%) against block size, registers per thread
//! or shared memory per block, drawn as steps, with the launch's own value
//! marked.

use roofline_analysis::{Sweep, SweepAxis};

const W: f64 = 640.0;
const H: f64 = 360.0;
const LEFT: f64 = 60.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 52.0;
const BOTTOM: f64 = 50.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A "nice" tick step giving about `n` ticks over `span`.
fn tick_step(span: f64, n: f64) -> f64 {
    let raw = (span / n).max(1.0);
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag)
}

/// The current launch's value on the sweep's axis.
fn current_value(s: &Sweep) -> u64 {
    match s.axis {
        SweepAxis::BlockSize => s.launch.threads_per_block as u64,
        SweepAxis::Registers => s.launch.registers_per_thread as u64,
        SweepAxis::SharedMemory => s.launch.smem_total(),
    }
}

/// The inputs a sweep holds fixed, for the subtitle.
fn held_fixed(s: &Sweep) -> String {
    let l = &s.launch;
    let mut parts = Vec::new();
    if s.axis != SweepAxis::BlockSize {
        parts.push(format!("{} threads/block", l.threads_per_block));
    }
    if s.axis != SweepAxis::Registers {
        parts.push(format!("{} registers/thread", l.registers_per_thread));
    }
    if s.axis != SweepAxis::SharedMemory {
        parts.push(format!("{} B shared memory/block", l.smem_total()));
    }
    parts.join(", ")
}

/// The chart of one sweep.
pub fn sweep_svg(s: &Sweep, gpu: Option<&str>) -> String {
    let xmin = s.points.first().map(|p| p.value).unwrap_or(0) as f64;
    let xmax = (s.points.last().map(|p| p.value).unwrap_or(1) as f64).max(xmin + 1.0);
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let x = |v: f64| LEFT + (v - xmin) / (xmax - xmin) * pw;
    let y = |pct: f64| TOP + (1.0 - pct / 100.0) * ph;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"12\">\n"
    );
    out.push_str(&format!("<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>\n"));
    let title = format!("Occupancy against {}", s.axis.label());
    let subtitle = format!(
        "{}compute capability {}; {}; theoretical",
        gpu.map(|g| format!("{g}, ")).unwrap_or_default(),
        s.compute_capability,
        held_fixed(s)
    );
    out.push_str(&format!(
        "<text x=\"{0}\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">{1}</text>\n<text x=\"{0}\" y=\"38\" text-anchor=\"middle\" font-size=\"11\" fill=\"#555\">{2}</text>\n",
        W / 2.0,
        esc(&title),
        esc(&subtitle)
    ));
    for pct in [0.0, 25.0, 50.0, 75.0, 100.0] {
        out.push_str(&format!(
            "<line x1=\"{LEFT}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"#ddd\"/>\n<text x=\"{2}\" y=\"{3:.1}\" text-anchor=\"end\">{pct}%</text>\n",
            y(pct),
            W - RIGHT,
            LEFT - 6.0,
            y(pct) + 4.0
        ));
    }
    let step = tick_step(xmax - xmin, 8.0);
    let mut t = (xmin / step).ceil() * step;
    while t <= xmax + 1e-9 {
        out.push_str(&format!(
            "<line x1=\"{0:.1}\" y1=\"{1}\" x2=\"{0:.1}\" y2=\"{2}\" stroke=\"#999\"/>\n<text x=\"{0:.1}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
            x(t),
            TOP + ph,
            TOP + ph + 5.0,
            TOP + ph + 18.0,
            t
        ));
        t += step;
    }
    out.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n<text x=\"16\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {})\">occupancy (% of max warps/SM)</text>\n",
        LEFT + pw / 2.0,
        H - 12.0,
        esc(s.axis.label()),
        TOP + ph / 2.0,
        TOP + ph / 2.0
    ));
    out.push_str(&format!(
        "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#333\"/>\n"
    ));
    let mut path = String::new();
    for (i, p) in s.points.iter().enumerate() {
        let px = x(p.value as f64);
        let py = y(p.occupancy_pct);
        if i == 0 {
            path.push_str(&format!("M{px:.1},{py:.1}"));
        } else {
            path.push_str(&format!(" H{px:.1} V{py:.1}"));
        }
    }
    out.push_str(&format!("<path d=\"{path}\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n"));
    let cur = current_value(s);
    if let Some(p) = s.points.iter().rev().find(|p| p.value <= cur) {
        let cx = x(cur as f64);
        out.push_str(&format!(
            "<line x1=\"{cx:.1}\" y1=\"{TOP}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>\n<circle cx=\"{cx:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"#d62728\"><title>this launch: {} -> {:.1}%</title></circle>\n",
            TOP + ph,
            y(p.occupancy_pct),
            cur,
            p.occupancy_pct
        ));
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use roofline_analysis::{limits, sweep, Launch};

    #[test]
    fn chart_is_deterministic_svg_with_the_launch_marked() {
        let l = limits(9, 0).unwrap();
        let s = sweep(&l, &Launch::new(256, 40), SweepAxis::Registers);
        let a = sweep_svg(&s, Some("h200"));
        assert_eq!(a, sweep_svg(&s, Some("h200")));
        assert!(a.starts_with("<svg") && a.ends_with("</svg>\n"));
        assert!(a.contains("this launch: 40 -&gt; 75.0%") || a.contains("this launch: 40 -> 75.0%"));
        assert!(a.contains("registers per thread"));
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(1024.0, 8.0), 200.0);
        assert_eq!(tick_step(255.0, 8.0), 50.0);
    }
}
