//! Swap2 opening decisions.
//!
//! With an empty board we propose three stones (black, white, black) that our search
//! finds closest to balanced. With three or five stones on the board, white is to move:
//! we search the position for white and take black (`Swap`) when white stands worse,
//! otherwise we stay white and play the move.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::game::{Board, Color, Pos};

use super::{Limits, SearchEvent, Searcher};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Swap2Answer {
    /// The first three stones: black, white, black.
    Opening([Pos; 3]),
    /// Take black.
    Swap,
    /// Stay white and play this move.
    Move(Pos),
}

/// Candidate openings as offsets from the centre (black, white, black).
const OPENINGS: [[(i32, i32); 3]; 6] = [
    [(0, 0), (1, 1), (3, -1)],
    [(0, 0), (1, 0), (-2, 3)],
    [(0, 0), (1, 1), (-2, 2)],
    [(0, 0), (2, 1), (3, -2)],
    [(0, 0), (1, 0), (3, 3)],
    [(0, 0), (-1, 1), (3, 2)],
];

/// White's score below this (from white's view) makes us take black.
const SWAP_BELOW: i32 = -30;

pub(crate) fn decide(
    searcher: &mut Searcher,
    board: &Board,
    limits: &Limits,
    stop: &AtomicBool,
    start: Instant,
    report: &mut dyn FnMut(SearchEvent),
) -> Swap2Answer {
    if board.stone_count() == 0 {
        return choose_opening(searcher, board, limits, stop);
    }
    let result = searcher.search(board, Color::White, limits, stop, start, report);
    if result.score < SWAP_BELOW {
        Swap2Answer::Swap
    } else {
        Swap2Answer::Move(result.best)
    }
}

fn choose_opening(searcher: &mut Searcher, board: &Board, limits: &Limits, stop: &AtomicBool) -> Swap2Answer {
    let (cx, cy) = ((board.width() / 2) as i32, (board.height() / 2) as i32);
    let fits = |o: &[(i32, i32); 3]| {
        o.iter()
            .all(|&(dx, dy)| board.contains_xy((cx + dx) as i64, (cy + dy) as i64))
    };
    let candidates: Vec<[Pos; 3]> = OPENINGS
        .iter()
        .filter(|o| fits(o))
        .map(|o| o.map(|(dx, dy)| Pos::new((cx + dx) as usize, (cy + dy) as usize)))
        .collect();
    let Some(&first) = candidates.first() else {
        // A tiny board: the first three points in order.
        let pts: Vec<Pos> = board.points().take(3).collect();
        return Swap2Answer::Opening([pts[0], pts[1], pts[2]]);
    };
    // Share the time between the candidates.
    let share = limits.budget.map(|b| b.split(candidates.len() as u32));
    let mut best = first;
    let mut best_balance = i32::MAX;
    for opening in &candidates {
        let mut b = board.clone();
        b.make(opening[0], Color::Black);
        b.make(opening[1], Color::White);
        b.make(opening[2], Color::Black);
        let part = Limits {
            budget: share,
            max_depth: limits.max_depth.min(12),
            ..*limits
        };
        let r = searcher.search(&b, Color::White, &part, stop, Instant::now(), &mut |_| {});
        if r.score.abs() < best_balance {
            best_balance = r.score.abs();
            best = *opening;
        }
    }
    Swap2Answer::Opening(best)
}
