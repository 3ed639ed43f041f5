//! A table's columns as the writers for people lay them out, each value column
//! with its provenance columns; shared by those writers, so below them.

use crate::view::text::{cell_text, clock_text, origin_text};
use crate::view::{spread_text, Audience, Cell, Column, ColumnKind, Table, Value};

/// A column as a people's writer lays it out: the value itself, or one of
/// the provenance columns a value column brings with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The column's own cells.
    Main(usize),
    /// The origin of its values.
    Origin(usize),
    /// The spread of its values.
    Spread(usize),
    /// The clock of its values.
    Clock(usize),
}

impl Slot {
    /// The column the slot belongs to.
    pub(crate) fn column(self) -> usize {
        match self {
            Slot::Main(i) | Slot::Origin(i) | Slot::Spread(i) | Slot::Clock(i) => i,
        }
    }

    /// The heading of the slot.
    pub(crate) fn label(self, columns: &[Column]) -> String {
        match self {
            Slot::Main(i) => columns[i].label.clone(),
            Slot::Origin(_) => "origin".into(),
            Slot::Spread(_) => "spread".into(),
            Slot::Clock(_) => "clock".into(),
        }
    }
}

/// The slots of a table for people: columns the audience sees, with no
/// column whose every cell is empty, each provenance column followed by the
/// origin, spread and clock its values have.
pub(crate) fn slots(t: &Table, audience: Audience) -> Vec<Slot> {
    let mut out = Vec::new();
    for (i, c) in t.columns.iter().enumerate() {
        if !c.show.shown_to(audience) || t.rows.iter().all(|r| r.cells[i].is_empty()) {
            continue;
        }
        out.push(Slot::Main(i));
        if let ColumnKind::Value { provenance: true, .. } = c.kind {
            let values: Vec<&Value> = t
                .rows
                .iter()
                .filter_map(|r| match &r.cells[i] {
                    Cell::Value(v) => Some(v),
                    _ => None,
                })
                .collect();
            for (slot, known) in [
                (Slot::Origin(i), values.iter().any(|v| v.basis.origin.is_some())),
                (Slot::Spread(i), values.iter().any(|v| v.basis.spread.is_some())),
                (
                    Slot::Clock(i),
                    values.iter().any(|v| v.basis.clock.as_ref().is_some_and(|c| !c.describe().is_empty())),
                ),
            ] {
                if known {
                    out.push(slot);
                }
            }
        }
    }
    out
}

/// The text of a slot of a cell for people; `name` renders a name cell.
pub(crate) fn slot_text(slot: Slot, cell: &Cell, name: &dyn Fn(&str, &str) -> String) -> String {
    match (slot, cell) {
        (Slot::Main(_), c) => cell_text(c, name),
        (Slot::Origin(_), Cell::Value(v)) => origin_text(v),
        (Slot::Spread(_), Cell::Value(v)) => spread_text(v.basis.spread.as_deref(), v.unit),
        (Slot::Clock(_), Cell::Value(v)) => clock_text(v),
        _ => "-".into(),
    }
}
