//! Move generation and ordering.
//!
//! Moves are the board's candidates (empty points near stones), scored by what a stone
//! there makes for us (attack) and what it takes from the opponent (defence). When the
//! opponent threatens a four-three or an open four, only our fours and the points that
//! remove every such threat are generated. Ties break on point index: a total order.

use crate::game::geometry::DIRS;
use crate::game::{Board, Color, Pos, PosSet, Threat};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ScoredMove {
    pub pos: Pos,
    pub score: i32,
}

/// Ordering value of the threat class a move makes for the mover.
pub const ATTACK: [i32; Threat::COUNT] = [
    0,     // None
    0,     // Forbidden (legal only when the double three is false; see `move_value`)
    4,     // One
    20,    // Two
    14,    // BlockedThree
    45,    // DoubleTwo
    55,    // BlockedThreePlus
    80,    // Three
    110,   // ThreePlus
    450,   // DoubleThree
    40,    // Four
    130,   // FourPlus
    1000,  // FourThree
    1800,  // OpenFour
    20000, // Five
];

/// Ordering value of the threat class a move takes away from the opponent.
pub const DEFEND: [i32; Threat::COUNT] = [
    0,    // None
    0,    // Forbidden: black cannot play there anyway
    2,    // One
    12,   // Two
    8,    // BlockedThree
    28,   // DoubleTwo
    32,   // BlockedThreePlus
    45,   // Three
    65,   // ThreePlus
    260,  // DoubleThree
    25,   // Four
    75,   // FourPlus
    550,  // FourThree
    900,  // OpenFour
    8000, // Five
];

/// Static ordering value of `p` for `us`.
#[inline]
pub fn move_value(board: &Board, p: Pos, us: Color) -> i32 {
    let mut attack = board.threat(p, us);
    if attack == Threat::Forbidden {
        // Generated only when legal: a false double three still makes threes.
        attack = Threat::ThreePlus;
    }
    ATTACK[attack as usize] + DEFEND[board.threat(p, us.opposite()) as usize]
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GenKind {
    /// Every candidate point.
    All,
    /// The opponent threatens to win by a four-three or open four: only our fours and
    /// full defences. Empty means no defence exists.
    Defend,
}

/// Does `them` threaten a four-three or an open four (a win unless answered)?
#[inline]
pub fn has_strong_threat(board: &Board, them: Color) -> bool {
    board.count_at_least(them, Threat::FourThree) > 0
}

/// Does a stone of `c` on `p` make a four (or a five) that `c` may play? In renju a
/// black point classed `Forbidden` is still a legal four when its double three is false.
pub fn is_legal_four(board: &mut Board, p: Pos, c: Color) -> bool {
    let t = board.threat(p, c);
    if t.is_four() {
        return true;
    }
    t == Threat::Forbidden && (0..4).any(|d| board.line_pattern(p, c, d).is_four()) && !board.is_forbidden(p)
}

/// Generate and score the moves for `us` into `out` (unsorted).
pub fn generate(board: &mut Board, us: Color, out: &mut Vec<ScoredMove>) -> GenKind {
    out.clear();
    let them = us.opposite();
    let candidates = board.candidates();
    if candidates.is_empty() && board.stone_count() == 0 {
        let centre = Pos::new(board.width() / 2, board.height() / 2);
        out.push(ScoredMove { pos: centre, score: 0 });
        return GenKind::All;
    }
    if has_strong_threat(board, them) {
        generate_defences(board, us, &candidates, out);
        return GenKind::Defend;
    }
    generate_all(board, us, out);
    GenKind::All
}

/// Every legal candidate move, scored (the opponent's threats are not considered).
pub fn generate_all(board: &mut Board, us: Color, out: &mut Vec<ScoredMove>) {
    out.clear();
    let renju_black = board.rule().has_forbidden() && us == Color::Black;
    for p in board.candidates().iter() {
        if renju_black && board.threat(p, us) == Threat::Forbidden && board.is_forbidden(p) {
            continue;
        }
        out.push(ScoredMove {
            pos: p,
            score: move_value(board, p, us),
        });
    }
    if out.is_empty() {
        // Only far points are left (or every near point is forbidden): take any legal one.
        let empties = *board.empty_points();
        for p in empties.iter() {
            if !(renju_black && board.is_forbidden(p)) {
                out.push(ScoredMove { pos: p, score: 0 });
            }
        }
    }
}

fn generate_defences(board: &mut Board, us: Color, candidates: &PosSet, out: &mut Vec<ScoredMove>) {
    let them = us.opposite();
    let renju_black = board.rule().has_forbidden() && us == Color::Black;
    let mut area = PosSet::default();
    for p in candidates.iter() {
        let attack = board.threat(p, us);
        if attack.is_four() && attack != Threat::Forbidden {
            out.push(ScoredMove {
                pos: p,
                score: move_value(board, p, us),
            });
        }
        if board.threat(p, them) >= Threat::FourThree {
            area.insert(p);
            for step in DIRS {
                for k in 1..=5 {
                    for q in [p.step(k * step), p.step(-k * step)] {
                        if board.is_empty(q) {
                            area.insert(q);
                        }
                    }
                }
            }
        }
    }
    for q in area.iter() {
        if candidates.contains(q) && is_legal_four(board, q, us) {
            continue; // already generated as our four
        }
        if renju_black && board.threat(q, us) == Threat::Forbidden && board.is_forbidden(q) {
            continue;
        }
        board.make(q, us);
        let defended = !has_strong_threat(board, them);
        board.undo();
        if defended {
            out.push(ScoredMove {
                pos: q,
                score: move_value(board, q, us),
            });
        }
    }
}

/// Sort best first; equal scores in point order.
pub fn sort_moves(moves: &mut [ScoredMove]) {
    moves.sort_unstable_by(|a, b| b.score.cmp(&a.score).then(a.pos.cmp(&b.pos)));
}

/// Find the empty point where `c` completes a five (any, in point order).
pub fn find_five_point(board: &Board, c: Color) -> Option<Pos> {
    if let Some((last, _)) = board.last_move() {
        if let Some(p) = board.five_point_near(last, c) {
            return Some(p);
        }
    }
    board.candidates().iter().find(|&p| board.threat(p, c) == Threat::Five)
}
