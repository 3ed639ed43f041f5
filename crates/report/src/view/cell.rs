//! Typed cells ([`Cell`], [`Value`], [`Quantity`], [`Tone`]), in a module below
//! both the sections and `text`, which read them, so that `text` need not import `view`.

use roofline_model::Spread;
use roofline_model::Unit;
use roofline_model::{ClockBasis, Origin};

/// How a writer may colour a cell or a row: a verdict, or the side of the
/// ridge (the chart's colours).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// On the roof, a check that passed.
    Good,
    /// Room to gain.
    Fair,
    /// Far from the roof, a check that failed.
    Poor,
    /// Memory-bound (the chart's blue).
    Memory,
    /// Compute-bound (the chart's orange).
    Compute,
}

impl Tone {
    /// The word writers use for it (an HTML class suffix).
    pub fn key(self) -> &'static str {
        match self {
            Tone::Good => "good",
            Tone::Fair => "fair",
            Tone::Poor => "poor",
            Tone::Memory => "memory",
            Tone::Compute => "compute",
        }
    }
}

/// One cell.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Cell {
    /// Nothing known.
    #[default]
    Empty,
    /// Words.
    Text {
        /// The words (escaped by each writer).
        text: String,
        /// How it may be coloured.
        tone: Option<Tone>,
    },
    /// A kernel or other named thing: short name, stable ID, full name.
    Name {
        /// The short name shown.
        name: String,
        /// A stable identifier shown beside it.
        id: String,
        /// The full name (a hover on the HTML page).
        full: String,
    },
    /// A number with its unit and provenance.
    Value(Value),
    /// Several labelled values on one line ("DRAM 25.4 FLOP/B, L2 4.1 FLOP/B").
    Values(Vec<(String, Value)>),
    /// Before -> after, with the change.
    Change {
        /// Before (a value or text), or empty.
        before: Box<Cell>,
        /// After, or empty.
        after: Box<Cell>,
        /// The change, when both are numbers.
        delta: Option<Value>,
    },
}

impl Cell {
    /// A text cell.
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text { text: s.into(), tone: None }
    }

    /// A text cell with a tone.
    pub fn toned(s: impl Into<String>, tone: Option<Tone>) -> Cell {
        Cell::Text { text: s.into(), tone }
    }

    /// A value, or empty when unknown or not finite.
    pub fn value(v: Option<f64>, unit: Quantity) -> Cell {
        match v.filter(|x| x.is_finite()) {
            Some(x) => Cell::Value(Value::new(x, unit)),
            None => Cell::Empty,
        }
    }

    /// A text cell, or empty for empty text.
    pub fn opt_text(s: Option<impl Into<String>>) -> Cell {
        match s.map(Into::into) {
            Some(t) if !t.is_empty() => Cell::text(t),
            _ => Cell::Empty,
        }
    }

    /// Whether the cell says nothing.
    pub fn is_empty(&self) -> bool {
        matches!(self, Cell::Empty)
    }

    /// The tone of the cell, if any.
    pub fn tone(&self) -> Option<Tone> {
        match self {
            Cell::Text { tone, .. } => *tone,
            Cell::Value(v) => v.tone,
            _ => None,
        }
    }
}

/// A number in base SI units with what it measures and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// The number, in the quantity's base unit (seconds, FLOP/s, percent).
    pub value: f64,
    /// What it measures.
    pub unit: Quantity,
    /// Where it came from, when the reader needs to know.
    pub basis: Basis,
    /// A few words after it ("DRAM bandwidth" after a roof).
    pub note: Option<String>,
    /// How it may be coloured.
    pub tone: Option<Tone>,
}

/// What a value rests on: its origin and, for a measured one, the spread of
/// its samples and the clock it ran at.
#[derive(Debug, Clone, PartialEq)]
pub struct Basis {
    /// Theoretical, measured, counter, user or derived; `None` when the
    /// document does not say.
    pub origin: Option<Origin>,
    /// False for an unconfirmed (estimated) figure.
    pub confirmed: bool,
    /// The spread of repeated measurements (boxed, as the clock: most
    /// values have neither, and a table of 100,000 rows holds millions of
    /// values).
    pub spread: Option<Box<Spread>>,
    /// The clock it assumes or ran at.
    pub clock: Option<Box<ClockBasis>>,
}

impl Default for Basis {
    fn default() -> Self {
        Basis { origin: None, confirmed: true, spread: None, clock: None }
    }
}

impl Value {
    /// A bare value.
    pub fn new(value: f64, unit: Quantity) -> Value {
        Value { value, unit, basis: Basis::default(), note: None, tone: None }
    }

    /// With its origin.
    pub fn origin(mut self, origin: Origin) -> Value {
        self.basis.origin = Some(origin);
        self
    }

    /// With the spread of its samples.
    pub fn spread(mut self, spread: Option<Spread>) -> Value {
        self.basis.spread = spread.map(Box::new);
        self
    }

    /// With the clock it assumes or ran at.
    pub fn clock(mut self, clock: Option<ClockBasis>) -> Value {
        self.basis.clock = clock.map(Box::new);
        self
    }

    /// Marked as an estimate when `confirmed` is false.
    pub fn confirmed(mut self, confirmed: bool) -> Value {
        self.basis.confirmed = confirmed;
        self
    }

    /// With a note after it.
    pub fn note(mut self, note: impl Into<String>) -> Value {
        self.note = Some(note.into());
        self
    }

    /// With a tone.
    pub fn tone(mut self, tone: Option<Tone>) -> Value {
        self.tone = tone;
        self
    }

    /// As a cell.
    pub fn cell(self) -> Cell {
        Cell::Value(self)
    }
}

/// What a number measures: a unit of `roofline_model`, or one of the
/// plain quantities tables need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// FLOP, B, s, FLOP/s, OP/s, B/s, FLOP/B, inst/s, with SI prefixes.
    Si(Unit),
    /// A percentage ("75%").
    Percent,
    /// A difference of percentages ("+3.2 pt").
    PercentPoints,
    /// A signed relative change ("+33.8%").
    Change,
    /// A whole count.
    Count,
    /// A plain ratio with three significant digits.
    Ratio,
    /// A factor ("x1.50").
    Factor,
    /// Speed-up, before time / after time ("1.50x faster", "1.25x slower").
    Speedup,
    /// A clock frequency ("1980 MHz").
    Megahertz,
}

impl Quantity {
    /// The unit symbol people read, empty for plain numbers.
    pub fn symbol(self) -> &'static str {
        match self {
            Quantity::Si(u) => u.symbol(),
            Quantity::Percent | Quantity::Change => "%",
            Quantity::PercentPoints => "pt",
            Quantity::Megahertz => "MHz",
            Quantity::Count | Quantity::Ratio | Quantity::Factor | Quantity::Speedup => "",
        }
    }

    /// The suffix of a CSV column name in this quantity ("flop_per_s");
    /// empty for plain numbers.
    pub fn slug(self) -> &'static str {
        match self {
            Quantity::Si(Unit::Flop) => "flop",
            Quantity::Si(Unit::Byte) => "bytes",
            Quantity::Si(Unit::Second) => "s",
            Quantity::Si(Unit::FlopPerSecond) => "flop_per_s",
            Quantity::Si(Unit::OpPerSecond) => "op_per_s",
            Quantity::Si(Unit::BytePerSecond) => "bytes_per_s",
            Quantity::Si(Unit::FlopPerByte) => "flop_per_byte",
            Quantity::Si(Unit::InstPerSecond) => "inst_per_s",
            Quantity::Percent | Quantity::Change => "pct",
            Quantity::PercentPoints => "pt",
            Quantity::Megahertz => "mhz",
            Quantity::Factor | Quantity::Speedup => "x",
            Quantity::Count | Quantity::Ratio => "",
        }
    }
}
