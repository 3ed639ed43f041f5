//! The neutral view model: what a document says, before any format.
//!
//! Every document the tool prints describes itself once, through
//! [`Describe`], as a list of [`Section`]s. A section holds blocks: a
//! [`Table`] with typed columns, [`Fact`]s, [`Note`]s, a list of [`Item`]s
//! (a diagnosis per kernel) or a reference to a chart. Cells are typed: a
//! number is a [`Value`] with its [`Quantity`] (unit), its origin
//! (theoretical, measured, counter, user, derived) and, where measured, its
//! spread and clock; text is text; a [`Tone`] says how a writer may colour a
//! cell or row. The writers (terminal, Markdown, CSV, HTML) turn sections
//! into text and never look at the documents themselves, so a unit, a
//! rounding or an escape rule is decided in one place for every document.

mod cell;
mod describe;
mod section;
pub(crate) mod text;

pub use cell::{Basis, Cell, Quantity, Tone, Value};
pub use describe::{ChartControls, ChartTab, Describe, PointDetail};
pub(crate) use section::Audience;
pub use section::{
    Block, ChartKind, ChartRef, Column, ColumnKind, Fact, Item, Note, NoteKind, Row, Section, Show, Table,
};
pub use text::{spread_text, value_text};
