//! The vocabulary the runner's modules share: a scheduled game, its record, its result
//! and faults. One module, so that the referee, the records, the report and the main
//! loop need not import each other.

use std::time::Duration;

use sente::game::Color;

use crate::openings::Opening;

/// Kinds of fault. Every one but `HangOnEnd` and `IgnoredLine` loses the game for the
/// engine at fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FaultKind {
    Timeout,
    Crash,
    /// A line that is not a move, MESSAGE or DEBUG, under `--strict`.
    NotAMove,
    Occupied,
    OffBoard,
    Forbidden,
    NoStartOk,
    /// The unique set size of the engine's process tree went over `max_memory`.
    Memory,
    HangOnEnd,
    /// A line that is not a move, MESSAGE or DEBUG, ignored as the Gomocup judge does.
    IgnoredLine,
}

impl FaultKind {
    pub const ALL: [FaultKind; 10] = [
        FaultKind::Timeout,
        FaultKind::Crash,
        FaultKind::NotAMove,
        FaultKind::Occupied,
        FaultKind::OffBoard,
        FaultKind::Forbidden,
        FaultKind::NoStartOk,
        FaultKind::Memory,
        FaultKind::HangOnEnd,
        FaultKind::IgnoredLine,
    ];

    /// Does this fault lose the game?
    pub fn loses(self) -> bool {
        !matches!(self, FaultKind::HangOnEnd | FaultKind::IgnoredLine)
    }

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Timeout => "timeout",
            FaultKind::Crash => "crash",
            FaultKind::NotAMove => "not-a-move",
            FaultKind::Occupied => "occupied",
            FaultKind::OffBoard => "off-board",
            FaultKind::Forbidden => "forbidden",
            FaultKind::NoStartOk => "no-start-ok",
            FaultKind::Memory => "memory",
            FaultKind::HangOnEnd => "hang-on-end",
            FaultKind::IgnoredLine => "ignored-line",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Fault {
    pub engine: usize,
    pub color: Color,
    pub kind: FaultKind,
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win(Color),
    Draw,
    Aborted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    Five,
    Fault(FaultKind),
    BothFaulted,
    BoardFull,
    MoveLimit,
    Aborted,
}

impl Reason {
    pub fn name(self) -> &'static str {
        match self {
            Reason::Five => "five",
            Reason::Fault(k) => k.name(),
            Reason::BothFaulted => "both-faulted",
            Reason::BoardFull => "board-full",
            Reason::MoveLimit => "move-limit",
            Reason::Aborted => "aborted",
        }
    }
}

#[derive(Clone, Debug)]
pub struct MoveRecord {
    pub x: usize,
    pub y: usize,
    pub color: Color,
    pub ms: u64,
    pub messages: Vec<String>,
}

/// What to play: filled in by the scheduler.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// 1-based game number in the match.
    pub number: usize,
    /// Engine indices, black then white.
    pub black: usize,
    pub white: usize,
    /// The opening as played (symmetry applied).
    pub opening: Opening,
    pub symmetry: usize,
    /// The game pair (0-based): the two games of a pair of engines with one round number
    /// play one opening with colours swapped.
    pub round: usize,
}

#[derive(Clone, Debug)]
pub struct GameRecord {
    pub spec: GameSpec,
    pub moves: Vec<MoveRecord>,
    pub outcome: Outcome,
    pub reason: Reason,
    pub faults: Vec<Fault>,
    pub duration: Duration,
    /// The largest unique set size of each side's process tree (black, white), in bytes;
    /// 0 where it could not be measured.
    pub peak_uss: [u64; 2],
}

impl GameRecord {
    /// The engine index playing `c`.
    pub fn engine(&self, c: Color) -> usize {
        match c {
            Color::Black => self.spec.black,
            Color::White => self.spec.white,
        }
    }
}

pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}
