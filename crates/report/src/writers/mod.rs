//! One writer per format, each rendering any [`Describe`](crate::Describe) document from its
//! sections: the terminal table, Markdown, CSV and the HTML page; JSON is
//! the document itself through serde; SVG is the document's chart.
//!
//! [`Format`] and [`Format::from_path`] are the one place a format is named
//! and an extension mapped to it.

pub(crate) mod csv;
mod escape;
mod format;
pub(crate) mod html;
mod lists;
pub(crate) mod markdown;
mod slots;
pub(crate) mod terminal;
mod visible;

pub use self::csv::CsvTable;
pub(crate) use self::escape::clean;
pub use self::format::{csv_tables, render, write_json, Format, RenderOptions};
pub use self::terminal::{ColorChoice, TerminalOptions, MIN_WIDTH, PIPE_WIDTH};
