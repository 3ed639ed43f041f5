//! The sections and rows a writer for an audience shows (deferred tables made
//! on the way), shared by every writer and so in a module below them.

use crate::view::{Audience, Block, Describe, Row, Section, Table};

/// The sections a writer for `audience` shows, each table with its rows
/// (a deferred table's are made here).
pub(crate) fn visible<D: Describe + ?Sized>(doc: &D, audience: Audience) -> Vec<Section> {
    let mut sections = shown(doc, audience);
    for s in &mut sections {
        for b in &mut s.blocks {
            if let Block::Table(t) = b {
                if t.deferred.is_some() {
                    let mut rows = Vec::new();
                    deferred_rows(doc, t, &mut |r| rows.push(r));
                    t.rows = rows;
                    t.deferred = None;
                }
            }
        }
    }
    sections
}

/// The sections a writer for `audience` shows, deferred tables left to
/// [`each_row`].
pub(crate) fn shown<D: Describe + ?Sized>(doc: &D, audience: Audience) -> Vec<Section> {
    doc.sections().into_iter().filter(|s| s.show.shown_to(audience)).collect()
}

/// Each row of `t` in order, made by the document if the table is deferred.
pub(crate) fn each_row<D: Describe + ?Sized>(doc: &D, t: &Table, row: &mut dyn FnMut(&Row)) {
    match t.deferred {
        None => t.rows.iter().for_each(row),
        Some(_) => deferred_rows(doc, t, &mut |r| row(&r)),
    }
}

fn deferred_rows<D: Describe + ?Sized>(doc: &D, t: &Table, row: &mut dyn FnMut(Row)) {
    let mut made = 0;
    doc.deferred_rows(&t.name, &mut |r| {
        debug_assert_eq!(r.cells.len(), t.columns.len(), "table {}: a row of the wrong width", t.name);
        made += 1;
        row(r)
    });
    debug_assert_eq!(Some(made), t.deferred, "table {}: rows made against rows announced", t.name);
}
