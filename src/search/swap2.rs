//! Swap2 opening decisions, each from searches in the swap2 step's time.
//!
//! 1. Empty board: we propose three stones (black, white, black): black in the centre,
//!    white at one of `WHITE_OFFSETS` from it, and for each black's second stone anywhere
//!    on the board where black's searched score is nearest even (`search_balanced`); one
//!    of the most even is proposed (any within `OPENING_TIE` of the best, at random, so
//!    that a match is not one game over and over).
//! 2. Three stones, white to move: the position is searched for white. Clearly worse for
//!    white: we take black (`Swap`); clearly better: we stay white and play the move.
//!    Within `PUT_TWO_WITHIN` of even neither colour is worth taking: we place white's
//!    and black's next stones so that the position stays as even as our search finds
//!    (`search_balanced`) and leave the colour to the opponent, if that pair is no
//!    farther from even than the position given; else the better colour by the score.
//! 3. Five stones (after our three and the opponent's two): searched for white; we take
//!    black if white stands worse, else stay white and play the move.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::game::{Board, Color, Pos};

use super::params::PUT_TWO_WITHIN;
use super::{Limits, SearchEvent, Searcher};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Swap2Answer {
    /// The first three stones: black, white, black.
    Opening([Pos; 3]),
    /// Take black.
    Swap,
    /// Stay white and play this move.
    Move(Pos),
    /// Place white's fourth and black's fifth stone; the opponent chooses the colour.
    Two([Pos; 2]),
}

pub(crate) fn decide(
    searcher: &mut Searcher,
    board: &Board,
    limits: &Limits,
    stop: &AtomicBool,
    start: Instant,
    report: &mut dyn FnMut(SearchEvent),
) -> Swap2Answer {
    match board.stone_count() {
        0 => choose_opening(searcher, board, limits, stop),
        3 => choose_colour_or_two(searcher, board, limits, stop, start, report),
        _ => {
            let result = searcher.search(board, Color::White, limits, stop, start, report);
            if result.score < 0 {
                Swap2Answer::Swap
            } else {
                Swap2Answer::Move(result.best)
            }
        }
    }
}

/// Where white's first stone may go, as offsets from black's in the centre: next to it,
/// diagonal, a knight's move and two points away.
const WHITE_OFFSETS: [(i32, i32); 4] = [(1, 0), (1, 1), (2, 1), (2, 0)];

fn choose_opening(searcher: &mut Searcher, board: &Board, limits: &Limits, stop: &AtomicBool) -> Swap2Answer {
    let (cx, cy) = ((board.width() / 2) as i32, (board.height() / 2) as i32);
    let whites: Vec<Pos> = WHITE_OFFSETS
        .iter()
        .filter(|&&(dx, dy)| board.contains_xy((cx + dx) as i64, (cy + dy) as i64))
        .map(|&(dx, dy)| Pos::new((cx + dx) as usize, (cy + dy) as usize))
        .collect();
    Swap2Answer::Opening(searcher.balanced_opening(board, &whites, limits, stop))
}

fn choose_colour_or_two(
    searcher: &mut Searcher,
    board: &Board,
    limits: &Limits,
    stop: &AtomicBool,
    start: Instant,
    report: &mut dyn FnMut(SearchEvent),
) -> Swap2Answer {
    // Half the time for the position as given, the rest (from `start`) for the pair.
    let first = Limits {
        budget: limits.budget.map(|b| b.split(2)),
        ..*limits
    };
    let result = searcher.search(board, Color::White, &first, stop, start, report);
    let white = result.score;
    if white.saturating_abs() <= PUT_TWO_WITHIN {
        let pair = searcher.search_balanced(board, Color::White, limits, stop, start, 2, 0, report);
        if let [fourth, fifth] = pair.stones[..] {
            if pair.score.saturating_abs() <= white.saturating_abs() {
                return Swap2Answer::Two([fourth, fifth]);
            }
        }
    }
    if white < 0 {
        Swap2Answer::Swap
    } else {
        Swap2Answer::Move(result.best)
    }
}
