//! The training pipeline (the `train` feature; `scripts/package-gomocup.sh` builds the
//! tournament engine without it): self-play data, fitting of the evaluation tables and
//! their check. Floating point lives here only; the engine plays on integers.

pub mod dataset;
pub mod games;
pub mod selfplay;
pub mod tables;
