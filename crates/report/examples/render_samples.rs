//! Writes the sample analyses (seed 000's fusion, the hierarchical H200
//! example) as analysis JSON, SVG charts and HTML pages into a folder, for
//! looking at them. (The screenshots of real captures come from
//! `scripts/screenshots-html.sh`.)
//!
//! `cargo run -p roofline-report --example render_samples -- OUT_DIR`

use std::path::PathBuf;

use roofline_documents::{diff, Pairing};
use roofline_report::{
    diff_svg, render, roofline_svg, write_atomic, ChartOptions, DiffDocument, Format, RenderOptions,
};

#[path = "../tests/samples/mod.rs"]
mod samples;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "out/samples".into()));
    std::fs::create_dir_all(&dir)?;
    let opts = ChartOptions::default();
    let hier = samples::hierarchical_h200();
    let (before, after) = (samples::seed_000_before(), samples::seed_000_after());
    for (name, doc) in [("hierarchical", &hier), ("fusion-before", &before), ("fusion-after", &after)] {
        write_atomic(&dir.join(format!("{name}.json")), serde_json::to_string_pretty(doc)?.as_bytes())?;
        write_atomic(&dir.join(format!("{name}.svg")), roofline_svg(doc, &opts).as_bytes())?;
        write_atomic(
            &dir.join(format!("{name}.html")),
            render(doc, Format::Html, &RenderOptions::default())?.as_bytes(),
        )?;
    }
    let d = diff(&before, &after, &[Pairing::parse("scale+add=fused")?])?;
    write_atomic(&dir.join("fusion-diff.svg"), diff_svg(&before, &after, &d, &opts).as_bytes())?;
    let page =
        render(&DiffDocument { before: &before, after: &after, diff: &d }, Format::Html, &RenderOptions::default())?;
    write_atomic(&dir.join("fusion-diff.html"), page.as_bytes())?;
    eprintln!("wrote samples to {}", dir.display());
    Ok(())
}
