//! Command-line tools built on the engine: bench, solve, analysis, the weight files
//! (evalfile). The training pipeline is `crate::train` (the `train` feature).

pub mod analyze;
pub mod bench;
pub mod evalfile;
pub mod positions;
pub mod solve;
