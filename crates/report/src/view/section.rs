//! Sections and their blocks (tables, facts, notes, items, chart references)
//! and who sees them: between the trait that returns them and the cells they hold.

use roofline_analysis::SweepAxis;

use super::cell::{Cell, Quantity, Tone};

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
    /// A chart the document draws ([`Describe::chart_svg`](crate::Describe::chart_svg)).
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
    /// written ([`Describe::deferred_rows`](crate::Describe::deferred_rows)), and `rows` is empty.
    pub deferred: Option<usize>,
}

impl Table {
    /// A table with no rows yet.
    pub fn new(name: impl Into<String>, columns: Vec<Column>) -> Table {
        Table { name: name.into(), columns, rows: Vec::new(), deferred: None }
    }

    /// A table of `count` rows that the document makes one at a time as a
    /// writer reaches them ([`Describe::deferred_rows`](crate::Describe::deferred_rows)): a table of one row
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
    /// A narrow terminal never drops it: a table whose essential columns
    /// cannot fit side by side is written as one block per row instead (a
    /// CI log shows each check failure's rule, kernel, value and limit
    /// whatever its width).
    pub essential: bool,
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
            essential: false,
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

    /// Never dropped by a narrow terminal (see [`Column::essential`]).
    pub fn essential(mut self) -> Column {
        self.essential = true;
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
