//! One module per document: how each describes itself as sections.
//!
//! The machine and analysis documents are `roofline-core`'s own; the others
//! are defined here around what their commands computed. A new document
//! (a timeline, a program view, merged ranks) gets a module here with an
//! `impl Describe`, and every writer renders it.

pub(crate) mod analysis;
pub(crate) mod bench;
pub(crate) mod check;
pub(crate) mod collectives;
pub(crate) mod diff;
pub(crate) mod gpus;
pub(crate) mod instructions;
pub(crate) mod machine;
pub(crate) mod merged;
pub(crate) mod occupancy;
pub(crate) mod program;
pub(crate) mod shapes;
pub(crate) mod timeline;
pub(crate) mod tour;
