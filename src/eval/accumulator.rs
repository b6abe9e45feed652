//! The table evaluation bound to one search: the point-value sums of the positions on
//! the search's current line, kept apart from the board and brought up to date only when
//! a node is evaluated (as Stockfish's accumulator stack and Rapfi's lazy net updates).
//!
//! `Board::make` only records which cells a move changed (`Board::changes_since`); the
//! evaluator keeps one entry per stone count of the line, and an evaluation starts from
//! the nearest position of the line it has summed and applies the pattern changes made
//! since. A make followed by its undo, or a probe of the
//! threat solvers, costs the evaluation nothing.

use std::sync::Arc;

use crate::game::zobrist::Zobrist;
use crate::game::{Board, Color};
use crate::score::MAX_EVAL;

use super::{point_sides, threat_level, PointValues, RuleTables, Weights};

/// The point-value sums over the empty points, `[colour][side]` (side 0: that colour is
/// to move, 1: it is not).
type Sums = [[i32; 2]; 2];

/// The sums of one position of the line.
#[derive(Clone, Copy, Default)]
struct Entry {
    /// The position's stones (`Board::hash`); meaningful when `filled`.
    hash: u64,
    filled: bool,
    sums: Sums,
}

pub(crate) struct Evaluator {
    tables: Arc<RuleTables>,
    /// `line[n]`: the sums of the position of the current line with `n` stones, if known.
    line: Vec<Entry>,
    /// The hashes of the positions between the one caught up from and this one.
    hashes: Vec<u64>,
}

impl Evaluator {
    /// The evaluation of `board`'s rule with `weights`, starting at `board`.
    pub(crate) fn new(board: &Board, weights: &Weights) -> Evaluator {
        let tables = Arc::new(weights.tables(board.rule()).clone());
        let mut e = Evaluator {
            tables,
            line: vec![Entry::default(); board.width() * board.height() + 1],
            hashes: Vec::with_capacity(64),
        };
        let root = board.stone_count();
        e.line[root] = Entry {
            hash: board.hash(),
            filled: true,
            sums: sums_from_scratch(board, &e.tables.points),
        };
        e
    }

    /// The score of `board` for `us`, the side to move.
    #[inline]
    pub(crate) fn evaluate(&mut self, board: &Board, us: Color) -> i32 {
        let sums = self.sums(board);
        let t = &*self.tables;
        let them = us.opposite();
        let (ours, theirs) = point_sides(board, us, t.by_initiative);
        let score = sums[us.index()][ours] - sums[them.index()][theirs]
            + t.threat[threat_level(board, us)][threat_level(board, them)];
        score.clamp(-MAX_EVAL, MAX_EVAL)
    }

    /// The sums of `board`'s position, from those of the nearest position of its line
    /// summed before (its own, if it was), through each move since; the positions on the
    /// way are kept too, so that their other children start from them.
    fn sums(&mut self, board: &Board) -> Sums {
        let n = board.stone_count();
        let moves = board.moves();
        let zobrist = Zobrist::get();
        // The line's positions back from this one, by their stones' hashes.
        self.hashes.clear();
        let mut hash = board.hash();
        let mut from = n;
        loop {
            let e = self.line[from];
            if e.filled && e.hash == hash {
                break;
            }
            if from == 0 {
                return self.store(n, board.hash(), sums_from_scratch(board, &self.tables.points));
            }
            self.hashes.push(hash);
            from -= 1;
            let (p, c) = moves[from];
            hash ^= zobrist.stone(c, p);
        }
        let mut sums = self.line[from].sums;
        for (m, &(stone, _)) in moves.iter().enumerate().take(n).skip(from) {
            let Some(changes) = board.changes_of_move(m) else {
                return self.store(n, board.hash(), sums_from_scratch(board, &self.tables.points));
            };
            let values = &self.tables.points;
            // The stone's cell no longer counts, with the patterns it had when played
            // (which it keeps); every pattern change of the move, in the colours it changed.
            add(&mut sums, values, board.pattern_combos(stone), -1);
            for change in changes {
                for ((colour_sums, colour_values), (&before, &after)) in sums
                    .iter_mut()
                    .zip(&values.values)
                    .zip(change.before.iter().zip(&change.after))
                {
                    if before != after {
                        for (sum, side) in colour_sums.iter_mut().zip(colour_values) {
                            *sum += side[after] - side[before];
                        }
                    }
                }
            }
            let hash = self.hashes[n - 1 - m];
            self.store(m + 1, hash, sums);
        }
        sums
    }

    fn store(&mut self, n: usize, hash: u64, sums: Sums) -> Sums {
        self.line[n] = Entry {
            hash,
            filled: true,
            sums,
        };
        sums
    }
}

/// Add (`sign` 1) or take away (−1) the values of a cell with these pattern combinations.
#[inline]
fn add(sums: &mut Sums, values: &PointValues, combos: [usize; 2], sign: i32) {
    for (c, &combo) in combos.iter().enumerate() {
        for (sum, side) in sums[c].iter_mut().zip(&values.values[c]) {
            *sum += sign * side[combo];
        }
    }
}

/// The sums of `board`'s position, point by point.
fn sums_from_scratch(board: &Board, values: &PointValues) -> Sums {
    let mut sums = Sums::default();
    for p in board.empty_points().iter() {
        add(&mut sums, values, board.pattern_combos(p), 1);
    }
    sums
}
