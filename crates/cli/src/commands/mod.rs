//! One module per subcommand; each has `Args` and `run`.

pub mod model;
pub mod occupancy;
pub mod peaks;
