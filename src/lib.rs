//! Sente: a Gomoku / Renju engine.
//!
//! Data flows one way (see ARCHITECTURE.md): `protocol` parses commands and drives an
//! `engine::Engine` (game, settings, search control); `search` finds moves on a
//! `game::Board`, scored by `eval`; `tools` holds the bench, solve and analysis commands;
//! `train` (the `train` feature, left out of the tournament build) the training pipeline.

pub mod engine;
pub mod eval;
pub mod game;
pub mod nnue;
pub mod protocol;
pub mod score;
pub mod search;
pub mod tools;
#[cfg(feature = "train")]
pub mod train;
