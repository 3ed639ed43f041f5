//! One module per subcommand; each has `Args` and `run`.

pub mod bench;
pub mod check;
pub mod diff;
pub mod import;
pub mod merge;
pub mod model;
pub mod occupancy;
pub mod peaks;
pub mod profile;
pub mod report;
pub mod sol;
pub mod timeline;
pub mod tour;
