//! Real H200 captures, read as tables that a test can alter the way a
//! different kernel would have filled them.

#![allow(dead_code)]

use std::path::PathBuf;

use roofline_analysis::{analyze_capture, CaptureAnalysis};
use roofline_model::Machine;
use roofline_ncu::{read_capture, ByteConvention, RawCapture};

/// What the tests read a capture with: its byte convention and launches,
/// and the machine its kernels are judged against (their own counter
/// roofs without one).
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub convention: ByteConvention,
    pub per_launch: bool,
    pub machine: Option<Machine>,
}

pub type Analysis = CaptureAnalysis;

/// The capture as `roofline import` places it: roofline_ncu's RawCapture, then
/// roofline_analysis; its kernels in the capture's order (the analysis lists
/// them by GPU time, and these tests name kernels by their place in the capture).
pub fn analyse(cap: &RawCapture, opts: &Options) -> Analysis {
    let ncu = roofline_ncu::Options { convention: opts.convention, per_launch: opts.per_launch };
    let mut a = analyze_capture(&roofline_ncu::capture(cap, &ncu), opts.machine.as_ref());
    a.kernels.sort_by_key(|k| k.kernel.capture_order);
    a
}

pub fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu").join(name)
}

pub fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(fixture_path(name)).unwrap()
}

/// Preamble, header, units and rows of a capture.
pub struct Table {
    pub preamble: String,
    pub header: Vec<String>,
    pub units: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn load(name: &str) -> Table {
        Table::parse(&fixture_text(name))
    }

    pub fn parse(text: &str) -> Table {
        let start = text.find("\"ID\"").unwrap();
        let mut r = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(&text.as_bytes()[start..]);
        let mut recs = r.records().map(|r| r.unwrap().iter().map(str::to_string).collect::<Vec<_>>());
        let header = recs.next().unwrap();
        let units = recs.next().unwrap();
        Table { preamble: text[..start].to_string(), header, units, rows: recs.collect() }
    }

    pub fn col(&self, name: &str) -> usize {
        self.header.iter().position(|c| c == name).unwrap_or_else(|| panic!("no {name}"))
    }

    /// The rows of one kernel.
    pub fn rows_of(&self, kernel: &str) -> Vec<usize> {
        let k = self.col("Kernel Name");
        (0..self.rows.len()).filter(|&i| self.rows[i][k] == kernel).collect()
    }

    pub fn num(&self, row: usize, name: &str) -> f64 {
        self.rows[row][self.col(name)].replace(',', "").parse().unwrap()
    }

    pub fn set(&mut self, row: usize, name: &str, value: f64) {
        let c = self.col(name);
        self.rows[row][c] = format!("{value}");
    }

    /// Adds a column with one value for every row.
    pub fn add_column(&mut self, name: &str, unit: &str, value: impl Fn(&Table, usize) -> f64) {
        let values: Vec<f64> = (0..self.rows.len()).map(|r| value(self, r)).collect();
        self.header.push(name.into());
        self.units.push(unit.into());
        for (r, v) in self.rows.iter_mut().zip(values) {
            r.push(format!("{v}"));
        }
    }

    /// Sets a column in every row of a kernel.
    pub fn set_kernel(&mut self, kernel: &str, name: &str, value: f64) {
        for r in self.rows_of(kernel) {
            self.set(r, name, value);
        }
    }

    pub fn text(&self) -> String {
        let mut w = csv::WriterBuilder::new().quote_style(csv::QuoteStyle::Always).from_writer(Vec::new());
        w.write_record(&self.header).unwrap();
        w.write_record(&self.units).unwrap();
        for r in &self.rows {
            w.write_record(r).unwrap();
        }
        format!("{}{}", self.preamble, String::from_utf8(w.into_inner().unwrap()).unwrap())
    }

    pub fn capture(&self) -> RawCapture {
        read_capture(self.text().as_bytes(), "altered.csv").unwrap()
    }

    pub fn analyse(&self, opts: &Options) -> Analysis {
        analyse(&self.capture(), opts)
    }
}

pub fn capture(name: &str) -> RawCapture {
    read_capture(std::fs::File::open(fixture_path(name)).unwrap(), name).unwrap()
}

/// The machine `roofline tour` bundles: measured on the H200 (bench --quick).
pub fn bundled_h200() -> roofline_model::Machine {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tour/machine.json");
    roofline_documents::read_machine(&std::fs::read_to_string(p).unwrap(), "machine.json").unwrap().machine
}
