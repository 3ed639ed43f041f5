//! Progress events of a benchmark run, in a module of their own because both
//! the loop ([`super::runner`]) and [`super::run()`] send them.

/// Progress, for a progress bar.
#[derive(Debug, Clone)]
pub enum Event {
    /// The suite is about to run `total` benchmarks on a device.
    Start {
        /// CUDA ordinal of the device.
        device: usize,
        /// Its product name.
        name: String,
        /// Benchmarks to run.
        total: usize,
    },
    /// A benchmark starts.
    Begin {
        /// Its id ("dram.copy").
        id: String,
        /// Its label.
        label: String,
    },
    /// A benchmark finished, or was skipped (the summary says why).
    Done {
        /// Its id.
        id: String,
        /// One line: the measured rate with its unit, or why it was skipped.
        summary: String,
    },
    /// A benchmark failed; the suite goes on.
    Failed {
        /// Its id.
        id: String,
        /// The error, in words.
        error: String,
    },
    /// Something the reader should know (low clocks, a small array, ...).
    Warning(String),
}
