//! Static evaluation from the board's pattern state.
//!
//! The board keeps, for both colours, how many empty points have each threat class
//! (what a stone there would make). The evaluation weighs those counts, with separate
//! tables for the side to move (whose threats are one tempo closer) and for the side that
//! just moved. Integer arithmetic only, so every machine scores alike.

use crate::game::{Board, Color, LinePattern, Threat};
use crate::score::MAX_EVAL;

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

/// The evaluation's weights: the defaults above, or a set under test (`INFO eval_own`,
/// `eval_opp`, `eval_line` while tuning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    pub own: [i32; Threat::COUNT],
    pub opp: [i32; Threat::COUNT],
    pub line: [i32; LinePattern::COUNT],
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            own: OWN,
            opp: OPP,
            line: LINE,
        }
    }
}

impl Weights {
    /// Set one table from a comma-separated list of exactly its length.
    pub fn set(&mut self, table: &str, values: &str) -> Result<(), String> {
        let parsed: Result<Vec<i32>, _> = values.split(',').map(|v| v.trim().parse::<i32>()).collect();
        let parsed = parsed.map_err(|_| format!("'{values}' is not a list of integers"))?;
        let target: &mut [i32] = match table {
            "own" => &mut self.own,
            "opp" => &mut self.opp,
            "line" => &mut self.line,
            _ => return Err(format!("no weight table '{table}'")),
        };
        if parsed.len() != target.len() {
            return Err(format!("{table} needs {} values, got {}", target.len(), parsed.len()));
        }
        target.copy_from_slice(&parsed);
        Ok(())
    }
}

/// The score of `board` for `us`, the side to move.
pub fn evaluate(board: &Board, us: Color, w: &Weights) -> i32 {
    let them = us.opposite();
    let mut score = 0;
    for t in Threat::ALL {
        let i = t as usize;
        score += w.own[i] * board.threat_count(us, t) as i32 - w.opp[i] * board.threat_count(them, t) as i32;
    }
    for (i, &weight) in w.line.iter().enumerate() {
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
        let w = Weights::default();
        assert_eq!(evaluate(&b, Color::Black, &w), 0);
        b.make(Pos::new(7, 7), Color::Black);
        b.make(Pos::new(0, 0), Color::White);
        b.make(Pos::new(8, 7), Color::Black);
        // Black has an open two in the centre, white a corner stone: black is better.
        assert!(evaluate(&b, Color::Black, &w) > 0);
        assert!(evaluate(&b, Color::White, &w) < 0);
    }

    #[test]
    fn weights_from_text() {
        let mut w = Weights::default();
        assert!(w.set("own", "1,2,3").is_err());
        assert!(w.set("bad", "1").is_err());
        let list = (0..Threat::COUNT).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
        w.set("opp", &list).unwrap();
        assert_eq!(w.opp[14], 14);
        assert_eq!(w.own, OWN);
    }
}
