//! Why the engine refused a command. Every refusal leaves the state exactly as it was;
//! the protocol (or a tool) words the reply, the engine only says what was wrong.

use std::fmt;

use crate::game::geometry::{MAX_SIZE, MIN_SIZE};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// No game yet: START (or RECTSTART) first.
    NoGame,
    /// A board size outside `MIN_SIZE..=MAX_SIZE`.
    BoardSize { width: i64, height: i64 },
    /// A point outside the board of the game.
    OffBoard {
        x: i64,
        y: i64,
        width: usize,
        height: usize,
    },
    /// A point that holds a stone (or is blocked).
    Occupied { x: i64, y: i64 },
    /// The same point twice in one position.
    Repeated { x: i64, y: i64 },
    /// A BOARD field other than 1 (ours), 2 (theirs) or 3 (blocked).
    Field { x: i64, y: i64, field: i64 },
    /// Black may not play there (renju).
    Forbidden { x: i64, y: i64 },
    /// TAKEBACK of a point without a stone.
    NoStone { x: i64, y: i64 },
    /// BEGIN on a board that has stones.
    NotEmpty,
    /// No empty point is left for our move.
    BoardFull,
    /// The opponent's stone would fill the last empty point, leaving us no move.
    LastPoint { x: i64, y: i64 },
    /// SWAP2BOARD with a number of stones other than 0, 3 or 5.
    Swap2Stones(usize),
    /// YXSWAP2STEPn on a position without its stones (0, 3, 5; black first).
    Swap2Step { step: u8, stones: usize },
    /// YXSOOSORVSTEPn with a move path it cannot be played on.
    Soosorv(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EngineError::NoGame => write!(f, "no game started: send START first"),
            EngineError::BoardSize { width, height } => write!(
                f,
                "unsupported board size {width}x{height}: {MIN_SIZE} to {MAX_SIZE} are supported"
            ),
            EngineError::OffBoard { x, y, width, height } => write!(f, "{x},{y} is outside the {width}x{height} board"),
            EngineError::Occupied { x, y } => write!(f, "{x},{y} is not empty"),
            EngineError::Repeated { x, y } => write!(f, "{x},{y} appears twice"),
            EngineError::Field { x, y, field } => write!(f, "field {field} at {x},{y} is not 1, 2 or 3"),
            EngineError::Forbidden { x, y } => write!(f, "{x},{y} is forbidden for black"),
            EngineError::NoStone { x, y } => write!(f, "no stone on {x},{y}"),
            EngineError::NotEmpty => write!(f, "the board is not empty"),
            EngineError::BoardFull => write!(f, "the board has no empty point"),
            EngineError::LastPoint { x, y } => write!(f, "{x},{y} fills the board: no move would be left"),
            EngineError::Swap2Stones(n) => write!(f, "{n} stones: expected 0, 3 or 5"),
            EngineError::Soosorv(ref problem) => write!(f, "{problem}"),
            EngineError::Swap2Step { step, stones } => write!(
                f,
                "step {step} is played on {} stones in turn, black first (the board has {stones})",
                [0, 3, 5][usize::from(step.clamp(1, 3)) - 1]
            ),
        }
    }
}

impl std::error::Error for EngineError {}
