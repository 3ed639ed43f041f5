//! The [`Describe`] trait every writer takes, with the chart controls and hover
//! details a document may add; out of `view/mod.rs`, which only declares and re-exports.

use super::section::{ChartKind, Row, Section};
use crate::chart::ChartOptions;

/// A document that can be shown: the one trait every writer takes.
///
/// Implement it for a new document (a timeline, a program view, merged
/// ranks) and every format follows; add `serde::Serialize` for JSON.
pub trait Describe {
    /// The document's title: the HTML page's heading and `<title>`, the
    /// Markdown heading. The terminal does not print it.
    fn title(&self) -> String;

    /// A line under the title on the HTML page; may be empty.
    fn subtitle(&self) -> String {
        String::new()
    }

    /// The document, once, as sections of typed cells, in reading order.
    fn sections(&self) -> Vec<Section>;

    /// The rows of its table `table` made by [`Table::deferred`](crate::Table::deferred), in order,
    /// each handed to `row`. A document whose sections hold such a table
    /// makes them here; one that shows another's sections passes this on.
    fn deferred_rows(&self, _table: &str, _row: &mut dyn FnMut(Row)) {}

    /// The name of the table scripts want first (CSV on stdout, and the
    /// `-o FILE.csv` file itself), when it is not the first in reading
    /// order: an analysis leads with its summary, but its CSV with kernels.
    fn main_table(&self) -> Option<&'static str> {
        None
    }

    /// The SVG of a chart one of its sections refers to.
    fn chart_svg(&self, _chart: ChartKind, _opts: &ChartOptions) -> Option<String> {
        None
    }

    /// A chart one of its sections refers to, drawn for a terminal of
    /// `width` columns (ANSI colour when `color`).
    fn chart_text(&self, _chart: ChartKind, _width: usize, _color: bool) -> Option<String> {
        None
    }

    /// The controls the HTML page puts over a chart (precision tabs, the
    /// roofs it can add, zoom); none by default.
    fn chart_controls(&self, _chart: ChartKind) -> ChartControls {
        ChartControls::default()
    }

    /// Hover details of the points of its charts, keyed by the points'
    /// `data-tip` attribute, for the HTML page's script.
    fn point_details(&self) -> Vec<PointDetail> {
        Vec::new()
    }
}

/// What the HTML page offers over a chart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartControls {
    /// Precision tabs, "all" first; empty for none.
    pub tabs: Vec<ChartTab>,
    /// Roofs drawn only when the reader asks for every roof.
    pub extra_roofs: usize,
    /// Whether the chart zooms and pans (the roofline does).
    pub zoom: bool,
}

/// A precision tab over a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartTab {
    /// "all" or a FLOP kind's key (`data-tabs` of the chart's elements).
    pub key: String,
    /// "All", "FP32", "BF16 tensor".
    pub label: String,
    /// Kernels in it.
    pub count: usize,
    /// Its view fitted to its kernels: "lx0 lx1 ly0 ly1" (log10).
    pub view: String,
    /// Its view of the whole roofline.
    pub full: String,
}

/// The hover text of one chart point on the HTML page.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PointDetail {
    /// The point's `data-tip` key.
    #[serde(skip)]
    pub key: String,
    /// First line, in bold.
    pub title: String,
    /// One fact per line.
    pub lines: Vec<String>,
}
