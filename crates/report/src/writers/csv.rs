//! CSV: one file per table, raw numbers in base SI units with the unit in
//! the column name (`time_s`, `achieved_flop_per_s`) or, where it varies
//! by row, in a column of its own (`achieved_unit`); a value with
//! provenance brings its origin, spread and clock as columns. The facts of
//! a document make one more table (`section,field,part,value,unit,origin`;
//! a fact of several values has one row per part).
//!
//! Text that a spreadsheet would run as a formula (starting with `=`, `+`,
//! `-`, `@`, a tab or a carriage return) is prefixed with `'`, as OWASP
//! recommends against CSV injection. Control characters other than tab and
//! line breaks (ESC, BEL, C1 controls, which `cat x.csv` would replay on a
//! terminal) become U+FFFD; the JSON keeps a name exactly.

use crate::view::text::cell_text;
use crate::view::{Audience, Block, Cell, ColumnKind, Describe, Quantity, Table, Value};
use crate::ExportError;

use super::visible::{each_row, shown};

/// One CSV file of a document.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvTable {
    /// The table's name ("kernel", "roof", "facts"): the suffix of its file.
    pub name: String,
    /// The CSV text, header first.
    pub text: String,
}

/// Text as a spreadsheet cannot run it and a terminal cannot obey.
pub(crate) fn neutralise(s: &str) -> String {
    let s: String =
        s.chars().map(|c| if c.is_control() && !matches!(c, '\t' | '\r' | '\n') { '\u{FFFD}' } else { c }).collect();
    match s.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{s}"),
        _ => s,
    }
}

fn number(v: f64) -> String {
    if v.is_finite() {
        // No "-0" in data either.
        format!("{}", if v == 0.0 { 0.0 } else { v })
    } else {
        String::new()
    }
}

fn with_slug(key: &str, unit: Quantity) -> String {
    match unit.slug() {
        "" => key.to_string(),
        slug => format!("{key}_{slug}"),
    }
}

fn text(cell: &Cell) -> String {
    match cell {
        Cell::Empty => String::new(),
        Cell::Name { name, .. } => neutralise(name),
        Cell::Value(v) => number(v.value),
        // Raw numbers, "label=value" when labelled; the unit is in its column.
        Cell::Values(vs) => neutralise(
            &vs.iter()
                .map(|(l, v)| if l.is_empty() { number(v.value) } else { format!("{l}={}", number(v.value)) })
                .collect::<Vec<_>>()
                .join(";"),
        ),
        c => neutralise(&cell_text(c, &|n, _| n.to_string())),
    }
}

/// The first value in a cell, for its unit and provenance.
fn first_value(cell: &Cell) -> Option<&Value> {
    match cell {
        Cell::Value(v) => Some(v),
        Cell::Values(vs) => vs.first().map(|(_, v)| v),
        Cell::Change { after, before, .. } => first_value(after).or_else(|| first_value(before)),
        _ => None,
    }
}

fn header(t: &Table) -> Vec<String> {
    let mut h = Vec::new();
    for c in t.columns.iter().filter(|c| c.show.shown_to(Audience::Data)) {
        match c.kind {
            ColumnKind::Text => h.push(c.key.clone()),
            ColumnKind::Value { unit, provenance } => {
                match unit {
                    Some(u) => h.push(with_slug(&c.key, u)),
                    None => h.extend([c.key.clone(), format!("{}_unit", c.key)]),
                }
                if provenance {
                    for part in [
                        "origin",
                        "confirmed",
                        "spread_median",
                        "spread_min",
                        "spread_max",
                        "spread_samples",
                        "sm_mhz",
                        "mem_mhz",
                        "clock_basis",
                    ] {
                        h.push(format!("{}_{part}", c.key));
                    }
                }
            }
            ColumnKind::Change { unit, delta } => h.extend([
                with_slug(&format!("{}_before", c.key), unit),
                with_slug(&format!("{}_after", c.key), unit),
                with_slug(&format!("{}_change", c.key), delta),
            ]),
        }
    }
    h
}

fn row(t: &Table, cells: &[Cell]) -> Vec<String> {
    let mut r = Vec::new();
    for (c, cell) in t.columns.iter().zip(cells).filter(|(c, _)| c.show.shown_to(Audience::Data)) {
        match c.kind {
            ColumnKind::Text => r.push(text(cell)),
            ColumnKind::Value { unit, provenance } => {
                r.push(text(cell));
                let v = first_value(cell);
                if unit.is_none() {
                    r.push(v.map(|v| v.unit.symbol().to_string()).unwrap_or_default());
                }
                if provenance {
                    let spread = v.and_then(|v| v.basis.spread.as_deref().copied());
                    let clock = v.and_then(|v| v.basis.clock.as_deref());
                    r.extend([
                        v.and_then(|v| v.basis.origin).map(|o| o.label().to_string()).unwrap_or_default(),
                        v.map(|v| v.basis.confirmed.to_string()).unwrap_or_default(),
                        spread.map(|s| number(s.median)).unwrap_or_default(),
                        spread.map(|s| number(s.min)).unwrap_or_default(),
                        spread.map(|s| number(s.max)).unwrap_or_default(),
                        spread.map(|s| s.samples.to_string()).unwrap_or_default(),
                        clock.and_then(|c| c.sm_mhz).map(number).unwrap_or_default(),
                        clock.and_then(|c| c.mem_mhz).map(number).unwrap_or_default(),
                        clock.map(|c| neutralise(&c.basis)).unwrap_or_default(),
                    ]);
                }
            }
            ColumnKind::Change { .. } => match cell {
                Cell::Change { before, after, delta } => {
                    r.extend([text(before), text(after), delta.as_ref().map(|d| number(d.value)).unwrap_or_default()])
                }
                other => r.extend([String::new(), text(other), String::new()]),
            },
        }
    }
    r
}

/// One CSV file: the header, then each row written as `rows` makes it (a
/// table of 100,000 kernels is never held as cells or strings).
fn write(
    name: &str,
    header: Vec<String>,
    rows: impl FnOnce(&mut dyn FnMut(Vec<String>)),
) -> Result<CsvTable, ExportError> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(&header)?;
    let mut failed = None;
    rows(&mut |r| {
        if failed.is_none() {
            failed = w.write_record(&r).err();
        }
    });
    if let Some(e) = failed {
        return Err(e.into());
    }
    let bytes = w.into_inner().map_err(|e| ExportError::Csv(e.into_error().into()))?;
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    Ok(CsvTable { name: name.to_string(), text })
}

/// Every table of the document, then its facts.
pub(crate) fn render<D: Describe + ?Sized>(doc: &D) -> Result<Vec<CsvTable>, ExportError> {
    let mut out = Vec::new();
    // The section of each table in `out`, to tell apart tables of one name.
    let mut sections = Vec::new();
    let mut facts = Vec::new();
    // Each section is dropped once written: its cells and its CSV text are
    // never all held at once.
    for mut section in shown(doc, Audience::Data) {
        for b in std::mem::take(&mut section.blocks) {
            match b {
                Block::Table(t) => {
                    out.push(write(&t.name, header(&t), |put| each_row(doc, &t, &mut |r| put(row(&t, &r.cells))))?);
                    sections.push(section.id.clone());
                }
                Block::Facts(fs) => {
                    for f in fs.iter().filter(|f| f.show.shown_to(Audience::Data)) {
                        let row = |part: &str, value: String, v: Option<&Value>| {
                            vec![
                                section.id.clone(),
                                f.key.clone(),
                                neutralise(part),
                                value,
                                v.map(|v| v.unit.symbol().to_string()).unwrap_or_default(),
                                v.and_then(|v| v.basis.origin).map(|o| o.label().to_string()).unwrap_or_default(),
                            ]
                        };
                        match &f.cell {
                            Cell::Values(vs) => {
                                facts.extend(vs.iter().map(|(label, v)| row(label, number(v.value), Some(v))))
                            }
                            Cell::Value(v) => facts.push(row("", number(v.value), Some(v))),
                            c => facts.push(row("", text(c), None)),
                        }
                    }
                }
                _ => {}
            }
        }
    }
    if !facts.is_empty() {
        let header = ["section", "field", "part", "value", "unit", "origin"].map(String::from).to_vec();
        out.push(write("facts", header, |put| facts.into_iter().for_each(put))?);
    }
    unique_names(&mut out, &sections);
    if let Some(i) = doc.main_table().and_then(|name| out.iter().position(|t| t.name == name)) {
        let main = out.remove(i);
        out.insert(0, main);
    }
    Ok(out)
}

/// Each table names its own file (`-o x.csv` writes `x.NAME.csv`): two
/// tables of one name (the roofs of two machines in a diff) would be
/// written to one file, the second replacing the first. Such tables are
/// named after their section too (`machine-before.roof`), then numbered.
fn unique_names(tables: &mut [CsvTable], sections: &[String]) {
    let count = |tables: &[CsvTable], name: &str| tables.iter().filter(|t| t.name == name).count();
    let shared: Vec<bool> = tables.iter().map(|t| count(tables, &t.name) > 1).collect();
    for (i, t) in tables.iter_mut().enumerate() {
        if shared[i] {
            if let Some(section) = sections.get(i).filter(|s| !s.is_empty()) {
                t.name = format!("{section}.{}", t.name);
            }
        }
    }
    for i in 0..tables.len() {
        let mut n = 2;
        let base = tables[i].name.clone();
        while tables[..i].iter().any(|t| t.name == tables[i].name) {
            tables[i].name = format!("{base}-{n}");
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_tables_of_one_name_get_two_files() {
        let table = |name: &str, text: &str| CsvTable { name: name.into(), text: text.into() };
        let mut tables =
            vec![table("changes", "c"), table("roof", "after"), table("roof", "before"), table("facts", "f")];
        let sections: Vec<String> = ["changes", "machine-after", "machine-before"].map(String::from).to_vec();
        unique_names(&mut tables, &sections);
        let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["changes", "machine-after.roof", "machine-before.roof", "facts"]);
        // Same section twice: numbered.
        let mut tables = vec![table("roof", "a"), table("roof", "b")];
        unique_names(&mut tables, &["m".to_string(), "m".to_string()]);
        assert_eq!(tables[0].name, "m.roof");
        assert_eq!(tables[1].name, "m.roof-2");
    }

    #[test]
    fn formulas_are_neutralised_but_numbers_are_not() {
        for bad in ["=1+2", "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx"] {
            assert!(neutralise(bad).starts_with('\''), "{bad}");
        }
        assert_eq!(neutralise("vecadd"), "vecadd");
    }

    #[test]
    fn escape_sequences_in_kernel_names_do_not_reach_a_terminal_through_csv() {
        for bad in ["k\u{1b}[2Jx", "k\u{7}\u{8}", "k\u{9b}31m", "\u{1b}]0;title\u{7}"] {
            let n = neutralise(bad);
            assert!(!n.chars().any(|c| c.is_control()), "{bad:?} -> {n:?}");
            assert!(n.contains('\u{FFFD}'));
        }
        assert_eq!(neutralise("a\tb"), "a\tb");
        assert_eq!(number(-0.25), "-0.25");
        assert_eq!(number(-0.0), "0");
    }
}
