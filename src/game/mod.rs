//! The rules of Gomoku: geometry, the incremental pattern board, rules and renju
//! forbidden points. Nothing here knows about search or the protocol.

pub mod bitset;
pub mod board;
pub mod forbidden;
pub mod geometry;
pub mod pattern;
pub mod rule;
pub mod tactics;
pub mod zobrist;

pub use bitset::PosSet;
pub use board::Board;
pub use geometry::{Color, Pos};
pub use pattern::{LinePattern, Threat, ThreatGroup};
pub use rule::Rule;
pub use tactics::Defence;
