//! The game rules: which rows of stones win.
//!
//! The win conditions follow the Gomocup referees (GomocupJudge `ai_match.py`, Piskvork
//! `game.cpp`; see protocol.md §6):
//! - freestyle: five or more in a row;
//! - standard: exactly five, for both colours;
//! - renju: exactly five for black (black's overline is forbidden), five or more for white;
//! - caro (8): five or more, but an exact five blocked at both ends by opponent stones does
//!   not count; the board edge is not a block;
//! - caro exact (9): exactly five, not blocked at both ends by opponent stones.

use super::geometry::{Color, WALL};

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Rule {
    Freestyle,
    Standard,
    Renju,
    Caro,
    CaroExact,
}

impl Rule {
    /// Every rule, in the order of `index`.
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::Standard,
        Rule::Renju,
        Rule::Caro,
        Rule::CaroExact,
    ];

    /// Decode the `INFO rule` value. Bits: 1 exact five, 2 continuous (ignored), 4 renju,
    /// 8 caro. A bare 2 means renju, as in the Yixin protocol and Rapfi.
    pub(crate) fn from_info(value: i64) -> Option<Rule> {
        if !(0..=15).contains(&value) {
            return None;
        }
        if value == 2 {
            return Some(Rule::Renju);
        }
        let v = value & !2;
        Some(if v & 8 != 0 {
            if v & 1 != 0 {
                Rule::CaroExact
            } else {
                Rule::Caro
            }
        } else if v & 4 != 0 {
            Rule::Renju
        } else if v & 1 != 0 {
            Rule::Standard
        } else {
            Rule::Freestyle
        })
    }

    /// The value a manager sends for this rule.
    pub fn info_value(self) -> i64 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
            Rule::Caro => 8,
            Rule::CaroExact => 9,
        }
    }

    /// The position of the rule in `Rule::ALL` (for tables kept per rule).
    #[inline]
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The rule whose `info_value` is `value` (the rule byte of weight and data files).
    pub(crate) fn from_info_value(value: i64) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.info_value() == value)
    }

    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
            Rule::Caro => "caro",
            Rule::CaroExact => "caro-exact",
        }
    }

    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(name))
            .or_else(|| name.parse::<i64>().ok().and_then(Rule::from_info))
    }

    /// Does black have forbidden moves?
    pub(crate) fn has_forbidden(self) -> bool {
        self == Rule::Renju
    }

    /// Is a row of `len` stones of colour `c` a win, given the two cells beyond its ends?
    /// `len` counts the whole run, `before`/`after` are the 2-bit codes of the cells just
    /// outside it (`WALL` for the board edge).
    pub(crate) fn run_wins(self, c: Color, len: usize, before: u8, after: u8) -> bool {
        let opponent = c.opposite().cell();
        let blocked_both = before == opponent && after == opponent;
        match self {
            Rule::Freestyle => len >= 5,
            Rule::Standard => len == 5,
            Rule::Renju => {
                if c == Color::Black {
                    len == 5
                } else {
                    len >= 5
                }
            }
            Rule::Caro => len >= 6 || (len == 5 && !blocked_both),
            Rule::CaroExact => len == 5 && !blocked_both,
        }
    }

    /// Is a run of `len >= 6` stones an overline that never wins for `c` (and so, for
    /// black in renju, a forbidden shape)?
    pub(crate) fn overline_is_dead(self, c: Color) -> bool {
        match self {
            Rule::Freestyle | Rule::Caro => false,
            Rule::Standard | Rule::CaroExact => true,
            Rule::Renju => c == Color::Black,
        }
    }
}

/// First and last index of the run of `c` through `centre` (which must hold `c`).
fn run_bounds(c: Color, cells: &[u8], centre: usize) -> (usize, usize) {
    let me = c.cell();
    debug_assert_eq!(cells[centre], me);
    let mut l = centre;
    while l > 0 && cells[l - 1] == me {
        l -= 1;
    }
    let mut r = centre;
    while r + 1 < cells.len() && cells[r + 1] == me {
        r += 1;
    }
    (l, r)
}

/// Win check on one line of cells through `centre`, which must hold a stone of `c`.
/// Cells outside the slice count as walls.
pub(crate) fn line_wins(rule: Rule, c: Color, cells: &[u8], centre: usize) -> bool {
    let (l, r) = run_bounds(c, cells, centre);
    let before = if l > 0 { cells[l - 1] } else { WALL };
    let after = if r + 1 < cells.len() { cells[r + 1] } else { WALL };
    rule.run_wins(c, r - l + 1, before, after)
}

/// Length of the run of `c` through `centre` (the centre must hold `c`).
pub(crate) fn run_length(c: Color, cells: &[u8], centre: usize) -> usize {
    let (l, r) = run_bounds(c, cells, centre);
    r - l + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::geometry::{BLACK, EMPTY, WHITE};

    #[test]
    fn info_values() {
        assert_eq!(Rule::from_info(0), Some(Rule::Freestyle));
        assert_eq!(Rule::from_info(1), Some(Rule::Standard));
        assert_eq!(Rule::from_info(2), Some(Rule::Renju));
        assert_eq!(Rule::from_info(4), Some(Rule::Renju));
        assert_eq!(Rule::from_info(6), Some(Rule::Renju));
        assert_eq!(Rule::from_info(8), Some(Rule::Caro));
        assert_eq!(Rule::from_info(9), Some(Rule::CaroExact));
        assert_eq!(Rule::from_info(3), Some(Rule::Standard));
        assert_eq!(Rule::from_info(-1), None);
        assert_eq!(Rule::from_info(16), None);
        for r in Rule::ALL {
            assert_eq!(Rule::from_info(r.info_value()), Some(r));
            assert_eq!(Rule::from_name(r.name()), Some(r));
        }
    }

    #[test]
    fn runs() {
        let b = Color::Black;
        let five = [EMPTY, BLACK, BLACK, BLACK, BLACK, BLACK, EMPTY];
        let six = [BLACK, BLACK, BLACK, BLACK, BLACK, BLACK, EMPTY];
        let capped = [WHITE, BLACK, BLACK, BLACK, BLACK, BLACK, WHITE];
        let edge = [BLACK, BLACK, BLACK, BLACK, BLACK, WHITE];
        for rule in Rule::ALL {
            assert!(line_wins(rule, b, &five, 3), "{rule:?}");
            assert!(line_wins(rule, b, &edge, 0), "{rule:?}: the edge is not a block");
        }
        assert!(line_wins(Rule::Freestyle, b, &six, 3));
        assert!(!line_wins(Rule::Standard, b, &six, 3));
        assert!(!line_wins(Rule::Renju, b, &six, 3));
        assert!(line_wins(
            Rule::Renju,
            Color::White,
            &six.map(|c| if c == BLACK { WHITE } else { c }),
            3
        ));
        assert!(line_wins(Rule::Caro, b, &six, 3));
        assert!(!line_wins(Rule::CaroExact, b, &six, 3));
        assert!(!line_wins(Rule::Caro, b, &capped, 3));
        assert!(!line_wins(Rule::CaroExact, b, &capped, 3));
        assert!(line_wins(Rule::Standard, b, &capped, 3));
    }
}
