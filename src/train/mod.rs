//! The training pipeline (the `train` feature; `scripts/package-gomocup.sh` builds the
//! tournament engine without it): self-play data (`selfplay`, written as `dataset` lines
//! or `games`), the fitting of the evaluation tables and their check (`tables`), the
//! network's training (`nnue`). Floating point lives here only; the engine plays on integers.

pub mod dataset;
pub mod games;
pub mod nnue;
pub mod selfplay;
pub mod tables;
