//! The GPUs of the built-in table, for `roofline peaks --list`.

use roofline_hw::{KnownGpu, KNOWN_GPUS};
use serde::{Serialize, Serializer};

use crate::view::{Cell, Column, Describe, Section, Table};

/// The built-in table of GPUs. JSON is one object per GPU: key, name,
/// compute capability and source.
#[derive(Debug, Clone, Copy)]
pub struct KnownGpus(pub &'static [KnownGpu]);

impl Default for KnownGpus {
    fn default() -> Self {
        KnownGpus(KNOWN_GPUS)
    }
}

impl Serialize for KnownGpus {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Entry<'a> {
            key: &'a str,
            name: &'a str,
            compute_capability: String,
            source: &'a str,
        }
        s.collect_seq(self.0.iter().map(|g| Entry {
            key: g.key,
            name: g.name,
            compute_capability: g.cc.to_string(),
            source: g.source,
        }))
    }
}

impl Describe for KnownGpus {
    fn title(&self) -> String {
        "GPUs in the built-in table (use with --gpu)".into()
    }

    fn sections(&self) -> Vec<Section> {
        let columns =
            [("key", "--gpu"), ("name", "name"), ("compute_capability", "compute capability"), ("source", "source")];
        let mut t = Table::new("gpus", Column::texts(&columns));
        for g in self.0 {
            t.push(vec![Cell::text(g.key), Cell::text(g.name), Cell::text(g.cc.to_string()), Cell::text(g.source)]);
        }
        vec![Section::new("gpus", self.title()).with(t)]
    }
}
