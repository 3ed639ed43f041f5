//! The roofline chart in three layers, so each is small and testable on
//! its own:
//!
//! - [`model`]: what to draw, in data units: the roofs (those of the
//!   precisions present and the one each kernel is judged against), one
//!   mark per kernel with a stable identity (colour, unique label, rank by
//!   time), precision tabs, views fitted to the data; every number checked
//!   by [`scale::plottable`] first;
//! - [`layout`]: where each label goes, in pixels, with no overlaps and a
//!   bounded amount of work;
//! - renderers over them: [`svg`] (deterministic, snapshot-tested, with the
//!   data attributes the HTML page zooms and links by) and [`terminal`]
//!   (braille dots, for work over SSH).
//!
//! The instruction roofline ([`instructions`]) is another [`model::Model`]
//! over the same renderers.
//!
//! The diff chart (`crate::diff`) draws with the same axes, roofs, legend
//! and layout.

pub mod instructions;
pub mod layout;
pub mod model;
pub mod scale;
pub mod svg;
pub mod terminal;

/// Size and title of a chart, in CSS pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartOptions {
    /// Width of the whole chart.
    pub width: f64,
    /// Height of the plot area; the legend, key and notes add to it.
    pub plot_height: f64,
    /// The chart's title (default: one naming the machine).
    pub title: Option<String>,
    /// Write the chart's notes under it (the HTML page shows them as the
    /// page's notes instead).
    pub notes: bool,
    /// At most this many kernels in the key under the chart; the rest are
    /// counted ("and 21 more kernels: see the table").
    pub key_entries: usize,
}

/// The key's entries of a chart on its own (an SVG file).
pub const KEY_ENTRIES: usize = 60;

impl Default for ChartOptions {
    fn default() -> Self {
        ChartOptions { width: 960.0, plot_height: 540.0, title: None, notes: true, key_entries: KEY_ENTRIES }
    }
}
