//! One module per subcommand; each has `Args` and `run`.

pub mod import;
pub mod model;
pub mod peaks;
pub mod profile;
