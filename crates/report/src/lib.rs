//! `roofline-report`: everything the tool shows, from one path:
//! **document -> sections of typed cells -> writer**.
//!
//! Each document (a machine, an analysis, a diff, a check, an occupancy
//! calculation, benchmark results, the tour) describes itself once through
//! [`Describe`], as [`Section`]s of tables, facts, notes, diagnoses and
//! chart references whose cells are typed: a [`Value`] carries its
//! [`Quantity`] (unit) and its origin, spread and clock. One writer per
//! [`Format`] renders any document from those sections: the terminal table
//! (to a given width, colour optional), Markdown, CSV (one file per table,
//! formula cells neutralised) and the self-contained HTML page with the
//! charts; JSON is the document itself through serde. So a unit, a rounding
//! or an escape is decided once for every document and every format.
//!
//! ```
//! use roofline_model::{FlopKind, Machine};
//! use roofline_documents::{MachineDocument, Producer};
//! use roofline_report::{render, Format, RenderOptions};
//!
//! let machine = Machine::simple("my GPU", FlopKind::Fp32, 1000e9, 100e9);
//! let doc = MachineDocument::new(machine, Producer::new("example"));
//! let text = render(&doc, Format::Table, &RenderOptions::default()).unwrap();
//! assert!(text.contains("1000 GFLOP/s") && text.contains("DRAM 10.0 FLOP/B"));
//! let md = render(&doc, Format::Markdown, &RenderOptions::default()).unwrap();
//! assert!(md.contains("| FP32 | 1000 GFLOP/s | user |"));
//! let csv = render(&doc, Format::Csv, &RenderOptions::default()).unwrap();
//! assert!(csv.starts_with("ceiling,rate,rate_unit,"));
//! ```
//!
//! A new document (a timeline, a program view, merged ranks) implements
//! [`Describe`] (and `serde::Serialize` for JSON) and gets every format.
//! The charts are SVG drawn by hand ([`roofline_svg`], [`diff_svg`],
//! [`sweep_svg`]); the roofline is a model, a label layout and renderers
//! in [`chart`] (also drawn in a terminal, [`Format::Chart`]);
//! [`write_atomic`] ([`output_file`]) writes a file whole or not at all,
//! without replacing devices, symlinks, owners, modes or the run's inputs.

#![deny(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod chart;
mod diff;
mod documents;
mod occupancy_chart;
mod output_file;
mod view;
mod writers;

pub use chart::instructions::build as instruction_chart_model;
pub use chart::layout::{Quad, Rect};
pub use chart::model::{
    build as chart_model, chart_notes, roofs as chart_roofs, unique_labels, Axes, Model as ChartModel,
    Roof as ChartRoof, RoofKind, ALWAYS_LABELLED,
};
pub use chart::svg::{draw as draw_chart, roofline_chart, roofline_svg};
pub use chart::terminal::render as terminal_chart;
pub use chart::ChartOptions;
pub use diff::{diff_chart, diff_svg};
pub use documents::analysis::{page_view, PageKernels, Paged, PAGE_KERNELS};
pub use documents::bench::{BenchDocument, BenchResults, BenchRow, IntensitySweep, MeasuredRidge, SweepStep};
pub use documents::check::{CheckDocument, CHECK_SCHEMA};
pub use documents::diff::{page_diff, DiffDocument};
pub use documents::gpus::KnownGpus;
pub use documents::instructions::{AnalysisView, InstructionView, NoInstructionData, INSTRUCTION_COUNTERS};
pub use documents::occupancy::{OccupancyDocument, OCCUPANCY_SCHEMA};
pub use documents::shapes::{ComparisonDocument, SolDocument, SHAPES_VS_COUNTERS_SCHEMA, SOL_SCHEMA};
pub use documents::timeline::{TimelineView, DEFAULT_TOP as TIMELINE_TOP};
pub use documents::tour::{Fusion, IntensityStep, TourDocument, TOUR_SCHEMA};
pub use occupancy_chart::sweep_svg;
pub use output_file::{
    is_special_file, not_a_plain_file, refuse_overwriting_inputs, same_file, write_atomic, write_atomic_no_follow,
    write_atomic_with, write_set, Links, OverwritesInput, SetFile,
};
pub use view::{
    spread_text, value_text, Basis, Block, Cell, ChartControls, ChartKind, ChartRef, ChartTab, Column, ColumnKind,
    Describe, Fact, Item, Note, NoteKind, PointDetail, Quantity, Row, Section, Show, Table, Tone, Value,
};
pub use writers::{
    csv_tables, render, write_json, ColorChoice, CsvTable, Format, RenderOptions, TerminalOptions, MIN_WIDTH,
    PIPE_WIDTH,
};

/// An output could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The document could not be serialised.
    #[error("could not serialise to JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A CSV table could not be written.
    #[error("could not write CSV: {0}")]
    Csv(#[from] ::csv::Error),
    /// SVG was asked of a document that draws no chart.
    #[error("{0} has no chart to draw (as SVG or in the terminal); write .html, .md, .json or .csv instead")]
    NoChart(String),
    /// A file could not be written.
    #[error("could not write {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
