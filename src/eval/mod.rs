//! Static evaluation from the board's pattern state.
//!
//! The board keeps, for both colours, how many empty points have each threat class
//! (what a stone there would make). The evaluation weighs those counts, with separate
//! tables for the side to move (whose threats are one tempo closer) and for the side that
//! just moved. Integer arithmetic only, so every machine scores alike.

use crate::game::{Board, Color, LinePattern, Threat};
use crate::search::score::MAX_EVAL;

/// Weights per threat class (index = `Threat as usize`), for the side to move.
pub const OWN: [i32; Threat::COUNT] = [
    0,    // None
    0,    // Forbidden
    2,    // One
    12,   // Two
    9,    // BlockedThree
    30,   // DoubleTwo
    40,   // BlockedThreePlus
    60,   // Three
    90,   // ThreePlus
    600,  // DoubleThree
    30,   // Four
    90,   // FourPlus
    1500, // FourThree
    2500, // OpenFour
    5000, // Five
];

/// Weights per threat class for the side that just moved.
pub const OPP: [i32; Threat::COUNT] = [
    0,    // None
    0,    // Forbidden
    2,    // One
    10,   // Two
    7,    // BlockedThree
    24,   // DoubleTwo
    30,   // BlockedThreePlus
    40,   // Three
    60,   // ThreePlus
    200,  // DoubleThree
    20,   // Four
    50,   // FourPlus
    250,  // FourThree
    400,  // OpenFour
    2000, // Five
];

/// Small per-line weights that separate quiet positions (index = `LinePattern as usize`).
pub const LINE: [i32; LinePattern::COUNT] = [
    0, // Dead
    0, // Overline
    0, // DoubleFour
    1, // B1
    2, // F1
    2, // B2
    4, // F2
    5, // F2x
    3, // B3
    6, // F3
    7, // F3x
    4, // B4
    8, // F4
    0, // Five
];

/// The score of `board` for `us`, the side to move.
pub fn evaluate(board: &Board, us: Color) -> i32 {
    let them = us.opposite();
    let mut score = 0;
    for t in Threat::ALL {
        let i = t as usize;
        score += OWN[i] * board.threat_count(us, t) as i32 - OPP[i] * board.threat_count(them, t) as i32;
    }
    for (i, &weight) in LINE.iter().enumerate() {
        let lp = LinePattern::from_u8(i as u8);
        score += weight * (board.pattern_count(us, lp) as i32 - board.pattern_count(them, lp) as i32);
    }
    score.clamp(-MAX_EVAL, MAX_EVAL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Pos, Rule};

    #[test]
    fn symmetric_and_prefers_threats() {
        let mut b = Board::new(15, 15, Rule::Freestyle);
        assert_eq!(evaluate(&b, Color::Black), 0);
        b.make(Pos::new(7, 7), Color::Black);
        b.make(Pos::new(0, 0), Color::White);
        b.make(Pos::new(8, 7), Color::Black);
        // Black has an open two in the centre, white a corner stone: black is better.
        assert!(evaluate(&b, Color::Black) > 0);
        assert!(evaluate(&b, Color::White) < 0);
    }
}
