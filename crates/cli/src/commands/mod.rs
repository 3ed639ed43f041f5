//! One module per subcommand; each has `Args` and `run`.

pub mod check;
pub mod diff;
pub mod model;
pub mod occupancy;
pub mod peaks;
pub mod report;
