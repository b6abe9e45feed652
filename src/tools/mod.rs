//! Command-line tools built on the engine: bench, solve, analysis.

pub mod analyze;
pub mod bench;
pub mod positions;
pub mod solve;
