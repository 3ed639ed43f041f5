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

pub(crate) mod text;

pub use text::{spread_text, value_text};

use roofline_analysis::SweepAxis;
use roofline_model::Spread;
use roofline_model::Unit;
use roofline_model::{ClockBasis, Origin};

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

    /// The rows of its table `table` made by [`Table::deferred`], in order,
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

/// Which writers show a section, a column or a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Show {
    /// Every writer.
    #[default]
    Everywhere,
    /// Every writer but the default (narrow) terminal view: Markdown, HTML,
    /// CSV and the wide terminal view.
    Wide,
    /// The writers for people (terminal, Markdown, HTML), not CSV: a
    /// summary sentence, a column that joins what CSV keeps apart.
    Readers,
    /// CSV only: the raw columns scripts want (full names, per-level bytes).
    Data,
    /// The default (narrow) terminal view only: what fits a screen at a
    /// glance (the top kernels by time, the next moves of the top three),
    /// where the other writers show the whole of it.
    Glance,
    /// The pages (Markdown and HTML) only: what the terminal says another
    /// way (a banner that goes to stderr there).
    Pages,
}

/// What a writer is, for [`Show`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Audience {
    /// The terminal; `wide` when asked for everything.
    Terminal {
        /// Everything, as for a page.
        wide: bool,
    },
    /// Markdown and HTML.
    Page,
    /// CSV.
    Data,
}

impl Show {
    /// Whether a writer for `audience` shows this.
    pub(crate) fn shown_to(self, audience: Audience) -> bool {
        match (self, audience) {
            (Show::Everywhere, _) => true,
            (Show::Wide, Audience::Terminal { wide }) => wide,
            (Show::Wide, _) => true,
            (Show::Readers, a) => a != Audience::Data,
            (Show::Data, a) => a == Audience::Data,
            (Show::Glance, a) => a == Audience::Terminal { wide: false },
            (Show::Pages, a) => a == Audience::Page,
        }
    }
}

/// A part of a document under one heading.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// A stable identifier: the HTML anchor, and the suffix of the side
    /// files CSV writes ("kernels", "roofs").
    pub id: String,
    /// The heading; empty for none.
    pub title: String,
    /// Which writers show it.
    pub show: Show,
    /// What it holds, in order.
    pub blocks: Vec<Block>,
}

impl Section {
    /// An empty section shown everywhere.
    pub fn new(id: impl Into<String>, title: impl Into<String>) -> Section {
        Section { id: id.into(), title: title.into(), show: Show::Everywhere, blocks: Vec::new() }
    }

    /// Sets who sees it.
    pub fn show(mut self, show: Show) -> Section {
        self.show = show;
        self
    }

    /// Adds a block.
    pub fn with(mut self, block: impl Into<Block>) -> Section {
        self.blocks.push(block.into());
        self
    }

    /// Adds a block when there is one.
    pub fn with_some(mut self, block: Option<impl Into<Block>>) -> Section {
        if let Some(b) = block {
            self.blocks.push(b.into());
        }
        self
    }
}

/// One block of a section.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Rows under typed columns.
    Table(Table),
    /// Labelled values ("SMs: 132").
    Facts(Vec<Fact>),
    /// Sentences a reader must see: information, notes, warnings.
    Notes(Vec<Note>),
    /// Entries with a heading and lines under it (a diagnosis per kernel).
    Items(Vec<Item>),
    /// A chart the document draws ([`Describe::chart_svg`]).
    Chart(ChartRef),
}

impl From<Table> for Block {
    fn from(t: Table) -> Block {
        Block::Table(t)
    }
}

impl From<Vec<Fact>> for Block {
    fn from(f: Vec<Fact>) -> Block {
        Block::Facts(f)
    }
}

impl From<Vec<Note>> for Block {
    fn from(n: Vec<Note>) -> Block {
        Block::Notes(n)
    }
}

impl From<Vec<Item>> for Block {
    fn from(i: Vec<Item>) -> Block {
        Block::Items(i)
    }
}

impl From<ChartRef> for Block {
    fn from(c: ChartRef) -> Block {
        Block::Chart(c)
    }
}

/// The charts documents draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    /// The roofline of an analysis: roofs and one point per kernel and level.
    Roofline,
    /// The instruction roofline of an analysis: pipe roofs, memory
    /// diagonals in transactions/s, one point per kernel and level.
    Instructions,
    /// Before and after: an arrow per kernel.
    Diff,
    /// Occupancy against one launch parameter.
    Occupancy(SweepAxis),
}

/// A chart in a section, with what a reader should know to read it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartRef {
    /// Which chart.
    pub kind: ChartKind,
    /// How to read it ("hover a point for its numbers").
    pub hint: String,
}

/// A table: typed columns, rows of cells in the same order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// A short name: the HTML table's id (`NAME-table`) and the CSV file's.
    pub name: String,
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows; each has one cell per column.
    pub rows: Vec<Row>,
    /// When `Some(count)`, the document makes its `count` rows as they are
    /// written ([`Describe::deferred_rows`]), and `rows` is empty.
    pub deferred: Option<usize>,
}

impl Table {
    /// A table with no rows yet.
    pub fn new(name: impl Into<String>, columns: Vec<Column>) -> Table {
        Table { name: name.into(), columns, rows: Vec::new(), deferred: None }
    }

    /// A table of `count` rows that the document makes one at a time as a
    /// writer reaches them ([`Describe::deferred_rows`]): a table of one row
    /// per kernel, whose cells for 100,000 kernels took half a gigabyte
    /// when made all at once. The CSV writer writes each row as it is made;
    /// the other writers show pages of at most a few thousand rows and have
    /// them made first.
    pub fn deferred(name: impl Into<String>, columns: Vec<Column>, count: usize) -> Table {
        Table { deferred: Some(count), ..Table::new(name, columns) }
    }

    /// Adds a row of cells.
    pub fn push(&mut self, cells: Vec<Cell>) -> &mut Row {
        debug_assert_eq!(cells.len(), self.columns.len(), "table {}: a row of the wrong width", self.name);
        self.rows.push(Row { cells, tone: None, link: None });
        self.rows.last_mut().expect("just pushed")
    }
}

/// One row of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// One cell per column.
    pub cells: Vec<Cell>,
    /// How the whole row may be coloured.
    pub tone: Option<Tone>,
    /// Ties the row to the chart's points on the HTML page: an attribute
    /// name and its value (`data-k="3"`).
    pub link: Option<(&'static str, String)>,
}

/// What a column holds, for alignment, sorting and CSV headers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ColumnKind {
    /// Text (names, words).
    Text,
    /// Numbers. `unit` is the quantity of every cell, or `None` when it
    /// varies by row (FLOP/s or OP/s), in which case CSV adds a unit column.
    /// With `provenance`, the writers show each value's origin, spread and
    /// clock in columns of their own.
    Value {
        /// The quantity every cell has, if one.
        unit: Option<Quantity>,
        /// Show origin, spread and clock beside the value.
        provenance: bool,
    },
    /// Before -> after, with a change in another quantity.
    Change {
        /// The quantity before and after.
        unit: Quantity,
        /// The quantity of the change (a percentage, a ratio).
        delta: Quantity,
    },
}

/// A column of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The CSV name, snake case, without the unit ("time", "achieved").
    pub key: String,
    /// The heading for people ("time", "% of roof").
    pub label: String,
    /// A longer explanation (the HTML header's tooltip).
    pub help: String,
    /// What its cells are.
    pub kind: ColumnKind,
    /// Which writers show it.
    pub show: Show,
    /// Long text a page shows on a line of its own under the row (the next
    /// move), so the table keeps to the page's width.
    pub under: bool,
}

impl Column {
    /// A text column.
    pub fn text(key: &str, label: &str) -> Column {
        Column {
            key: key.into(),
            label: label.into(),
            help: String::new(),
            kind: ColumnKind::Text,
            show: Show::Everywhere,
            under: false,
        }
    }

    /// Text columns from (key, label) pairs.
    pub fn texts(pairs: &[(&str, &str)]) -> Vec<Column> {
        pairs.iter().map(|(k, l)| Column::text(k, l)).collect()
    }

    /// A column of values of one quantity.
    pub fn value(key: &str, label: &str, unit: Quantity) -> Column {
        Column { kind: ColumnKind::Value { unit: Some(unit), provenance: false }, ..Column::text(key, label) }
    }

    /// A column of values whose unit varies by row.
    pub fn mixed(key: &str, label: &str) -> Column {
        Column { kind: ColumnKind::Value { unit: None, provenance: false }, ..Column::text(key, label) }
    }

    /// A column of values shown with their origin, spread and clock.
    pub fn with_provenance(key: &str, label: &str, unit: Option<Quantity>) -> Column {
        Column { kind: ColumnKind::Value { unit, provenance: true }, ..Column::text(key, label) }
    }

    /// A before -> after column.
    pub fn change(key: &str, label: &str, unit: Quantity, delta: Quantity) -> Column {
        Column { kind: ColumnKind::Change { unit, delta }, ..Column::text(key, label) }
    }

    /// Sets who sees it.
    pub fn show(mut self, show: Show) -> Column {
        self.show = show;
        self
    }

    /// Shown under its row on a page.
    pub fn under(mut self) -> Column {
        self.under = true;
        self
    }

    /// Sets the explanation.
    pub fn help(mut self, help: &str) -> Column {
        self.help = help.into();
        self
    }

    /// Whether its cells are numbers (right-aligned, sorted as numbers).
    pub fn numeric(&self) -> bool {
        !matches!(self.kind, ColumnKind::Text)
    }
}

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

/// A labelled value.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// The CSV name.
    pub key: String,
    /// The label for people.
    pub label: String,
    /// The value.
    pub cell: Cell,
    /// Which writers show it.
    pub show: Show,
}

impl Fact {
    /// A fact shown everywhere.
    pub fn new(key: &str, label: impl Into<String>, cell: Cell) -> Fact {
        Fact { key: key.into(), label: label.into(), cell, show: Show::Everywhere }
    }

    /// Sets who sees it.
    pub fn show(mut self, show: Show) -> Fact {
        self.show = show;
        self
    }
}

/// How much a note matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// A sentence of the document (a banner, a summary).
    Info,
    /// Worth knowing.
    Note,
    /// The reader must know it to trust the numbers.
    Warning,
}

/// A sentence a reader must see.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// How much it matters.
    pub kind: NoteKind,
    /// The sentence.
    pub text: String,
}

impl Note {
    /// A plain sentence.
    pub fn info(text: impl Into<String>) -> Note {
        Note { kind: NoteKind::Info, text: text.into() }
    }
    /// A note: worth knowing, printed "note: ...".
    pub fn remark(text: impl Into<String>) -> Note {
        Note { kind: NoteKind::Note, text: text.into() }
    }
    /// A warning.
    pub fn warning(text: impl Into<String>) -> Note {
        Note { kind: NoteKind::Warning, text: text.into() }
    }
}

/// An entry with a heading and lines under it.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// What the entry is about (a kernel).
    pub head: Cell,
    /// The verdict after the heading.
    pub verdict: Cell,
    /// One fact per line.
    pub lines: Vec<String>,
    /// The line that says what to do, set apart.
    pub action: Option<String>,
    /// Ties the entry to a table row and chart points on the HTML page
    /// (the row's [`Row::link`]): the page links the row's name to it.
    pub link: Option<(&'static str, String)>,
    /// How each number was obtained (formulas with their values), for
    /// readers who want to check: the HTML page's detail panel.
    pub workings: Vec<String>,
}
