//! Command-line tools built on the engine: bench, solve, analysis.

pub mod bench;
pub mod positions;
