//! Command-line tools built on the engine: bench, solve, analysis, and the evaluation's
//! training pipeline (selfplay, train, evalcheck, evalfile).

pub mod analyze;
pub mod bench;
pub mod dataset;
pub mod evalfile;
pub mod positions;
pub mod selfplay;
pub mod solve;
pub mod train;
