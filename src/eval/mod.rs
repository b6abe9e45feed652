//! Static evaluation from the board's pattern state.
//!
//! Every empty point has, for each colour, the unordered combination of its four line
//! patterns (`game::board::pattern_combo`, 2380 combinations). The evaluation is a table
//! lookup per point: for each rule, colour and side (to move or not) a value per
//! combination, summed over the empty points (an `Evaluator` bound to the search keeps
//! the sums of its line and brings them up to date lazily from the cells the moves
//! changed), plus a small table over the threat situation of both sides
//! (`threat_level`). Stones' own cells count nothing.
//!
//! The default tables are the hand-set weights below expressed per combination (a
//! point's value is `OWN` or `OPP` of its threat class plus `LINE` of each of its four
//! line patterns): the score is exactly that of the hand-set formula
//! (`evaluate_hand_set`). Integer arithmetic only, so every machine scores alike.

mod accumulator;
pub mod file;

pub(crate) use accumulator::Evaluator;

use std::sync::Arc;

use crate::game::board::{pattern_combo, PATTERN_COMBOS};
use crate::game::pattern::combine;
use crate::game::{Board, Color, LinePattern, Rule, Threat};

/// Values summed over the empty points: `values[colour][side][combo]`, side 0 when that
/// colour is to move and 1 when it is not, combo the point's `pattern_combo` for that
/// colour.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct PointValues {
    pub(crate) values: [[[i32; PATTERN_COMBOS]; 2]; 2],
}

impl Default for PointValues {
    fn default() -> Self {
        PointValues {
            values: [[[0; PATTERN_COMBOS]; 2]; 2],
        }
    }
}

/// Weights per threat class (index = `Threat as usize`), for the side to move.
pub(crate) const OWN: [i32; Threat::COUNT] = [
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
pub(crate) const OPP: [i32; Threat::COUNT] = [
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
pub(crate) const LINE: [i32; LinePattern::COUNT] = [
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

/// Threat levels of one side (`threat_level`): none, an open three, a four, a four-three
/// or open four, a five to make.
pub(crate) const LEVELS: usize = 5;

/// The threat level of `c` on `board`: 4 a five to make, 3 an open four or four-three to
/// make, 2 a four, 1 an open three, 0 none of these.
#[inline]
pub(crate) fn threat_level(board: &Board, c: Color) -> usize {
    let n = |t| board.threat_count(c, t);
    if n(Threat::Five) > 0 {
        4
    } else if n(Threat::OpenFour) + n(Threat::FourThree) > 0 {
        3
    } else if n(Threat::Four) + n(Threat::FourPlus) > 0 {
        2
    } else if n(Threat::Three) + n(Threat::ThreePlus) + n(Threat::DoubleThree) > 0 {
        1
    } else {
        0
    }
}

/// The evaluation of one rule: point values per colour, side and pattern combination,
/// and the threat table `threat[level of the side to move][level of the other]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct RuleTables {
    pub(crate) rule: Rule,
    pub(crate) points: Arc<PointValues>,
    pub(crate) threat: [[i32; LEVELS]; LEVELS],
    /// The point values follow the initiative (`point_sides`) rather than the turn.
    pub(crate) by_initiative: bool,
}

/// What the point values follow, in words: "initiative" or "turn".
pub(crate) fn point_basis(by_initiative: bool) -> &'static str {
    if by_initiative {
        "initiative"
    } else {
        "turn"
    }
}

/// Which point values count for the side to move and for the other (`PointValues`' side
/// index, 0 "to move" and 1 "not"). By the turn: 0 for the side to move. By the
/// initiative: the same, unless the side to move must answer an open-four or four-three
/// point of the opponent's and has none (nor a five) itself; then the opponent keeps the
/// initiative after the answer, and its points count as those of the side with the move.
#[inline]
pub(crate) fn point_sides(board: &Board, us: Color, by_initiative: bool) -> (usize, usize) {
    let winning = |c: Color| board.threat_count(c, Threat::OpenFour) + board.threat_count(c, Threat::FourThree);
    if by_initiative && winning(us.opposite()) > 0 && winning(us) == 0 && board.threat_count(us, Threat::Five) == 0 {
        (1, 0)
    } else {
        (0, 1)
    }
}

impl RuleTables {
    /// All zero.
    #[cfg(feature = "train")]
    pub(crate) fn zero(rule: Rule) -> RuleTables {
        RuleTables {
            rule,
            points: Arc::new(PointValues::default()),
            threat: [[0; LEVELS]; LEVELS],
            by_initiative: false,
        }
    }

    /// The hand-set formula (`own`, `opp`, `line`) as tables: a point's value for the
    /// side to move is `own[threat class] + Σ line[pattern]` over its four directions,
    /// for the other side `opp[threat class] + Σ line[pattern]`.
    pub(crate) fn from_hand_set(
        rule: Rule,
        own: &[i32; Threat::COUNT],
        opp: &[i32; Threat::COUNT],
        line: &[i32; LinePattern::COUNT],
    ) -> RuleTables {
        let mut points = PointValues::default();
        for c in [Color::Black, Color::White] {
            let renju_black = rule.has_forbidden() && c == Color::Black;
            for pats in all_combos() {
                let combo = pattern_combo(pats);
                let t = combine(pats, renju_black) as usize;
                let lines: i32 = pats.iter().map(|&lp| line[lp as usize]).sum();
                points.values[c.index()][0][combo] = own[t] + lines;
                points.values[c.index()][1][combo] = opp[t] + lines;
            }
        }
        RuleTables {
            rule,
            points: Arc::new(points),
            threat: [[0; LEVELS]; LEVELS],
            by_initiative: false,
        }
    }
}

/// One representative (sorted) of every pattern combination, in no particular order.
pub(crate) fn all_combos() -> impl Iterator<Item = [LinePattern; 4]> {
    let n = LinePattern::COUNT as u8;
    (0..n).flat_map(move |a| {
        (a..n).flat_map(move |b| (b..n).flat_map(move |c| (c..n).map(move |d| [a, b, c, d].map(LinePattern::from_u8))))
    })
}

/// The evaluation's weights: the tables of every rule, and the hand-set weights they
/// were made from (the defaults above, or a set under test: `INFO eval_own`, `eval_opp`,
/// `eval_line` while tuning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    pub(crate) own: [i32; Threat::COUNT],
    pub(crate) opp: [i32; Threat::COUNT],
    pub(crate) line: [i32; LinePattern::COUNT],
    tables: [Arc<RuleTables>; 5],
}

impl Default for Weights {
    /// The embedded weight files (the hand-set weights, see `file`).
    fn default() -> Self {
        Weights {
            own: OWN,
            opp: OPP,
            line: LINE,
            tables: Rule::ALL.map(|r| Arc::new(embedded_tables(r))),
        }
    }
}

/// The tables of the weight file compiled in for `rule`.
pub(crate) fn embedded_tables(rule: Rule) -> RuleTables {
    file::from_bytes(file::embedded(rule), Some(rule)).expect("the embedded weight files are valid")
}

impl Weights {
    /// Set one table from a comma-separated list of exactly its length.
    pub(crate) fn set(&mut self, table: &str, values: &str) -> Result<(), String> {
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
        self.rebuild_hand_set();
        Ok(())
    }

    /// Every rule's tables from the hand-set weights `OWN`, `OPP`, `LINE` (the reference
    /// of the tests; the embedded files of the rules not yet trained hold the same).
    #[cfg(test)]
    pub(crate) fn hand_set() -> Weights {
        let mut w = Weights::default();
        w.rebuild_hand_set();
        w
    }

    /// Every rule's tables from the hand-set weights.
    fn rebuild_hand_set(&mut self) {
        self.tables = Rule::ALL.map(|r| Arc::new(RuleTables::from_hand_set(r, &self.own, &self.opp, &self.line)));
    }

    /// The tables of `rule`.
    #[inline]
    pub(crate) fn tables(&self, rule: Rule) -> &RuleTables {
        &self.tables[rule.index()]
    }

    /// Go back to the embedded tables for `rule`.
    pub(crate) fn reset(&mut self, rule: Rule) {
        self.tables[rule.index()] = Arc::new(embedded_tables(rule));
    }

    /// Read a weight file and use it for its rule, which is returned.
    pub(crate) fn load_file(&mut self, path: &str) -> Result<Rule, String> {
        let t = file::load(path, None)?;
        let rule = t.rule;
        self.set_tables(t);
        Ok(rule)
    }

    /// Use `tables` for their rule.
    pub(crate) fn set_tables(&mut self, tables: RuleTables) {
        let i = tables.rule.index();
        self.tables[i] = Arc::new(tables);
    }
}

/// The same score from scratch, point by point (for tests and training; any board).
#[cfg(any(test, feature = "train"))]
pub(crate) fn evaluate_from_scratch(board: &Board, us: Color, t: &RuleTables) -> i32 {
    let them = us.opposite();
    let (ours, theirs) = point_sides(board, us, t.by_initiative);
    let mut score = t.threat[threat_level(board, us)][threat_level(board, them)];
    for p in board.empty_points().iter() {
        for (c, side, sign) in [(us, ours, 1), (them, theirs, -1)] {
            let pats = [0, 1, 2, 3].map(|d| board.line_pattern(p, c, d));
            score += sign * t.points.values[c.index()][side][pattern_combo(pats)];
        }
    }
    score.clamp(-crate::score::MAX_EVAL, crate::score::MAX_EVAL)
}

/// The hand-set formula itself, from the board's counts per threat class and each empty
/// point's line patterns (the reference the default tables are tested against).
#[cfg(test)]
pub(crate) fn evaluate_hand_set(board: &Board, us: Color, w: &Weights) -> i32 {
    let them = us.opposite();
    let mut score = 0;
    for t in Threat::ALL {
        let i = t as usize;
        score += w.own[i] * board.threat_count(us, t) as i32 - w.opp[i] * board.threat_count(them, t) as i32;
    }
    for p in board.empty_points().iter() {
        for d in 0..4 {
            score += w.line[board.line_pattern(p, us, d) as usize] - w.line[board.line_pattern(p, them, d) as usize];
        }
    }
    score.clamp(-crate::score::MAX_EVAL, crate::score::MAX_EVAL)
}

const _: () = assert!(PATTERN_COMBOS == 2380);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Pos, Rule};

    /// The score of `b` for `us` by an evaluator made for it.
    fn evaluate(b: &Board, us: Color, w: &Weights) -> i32 {
        Evaluator::new(b, w).evaluate(b, us)
    }

    #[test]
    fn symmetric_and_prefers_threats() {
        for (name, w) in [("hand-set", Weights::hand_set()), ("embedded", Weights::default())] {
            let mut b = Board::new(15, 15, Rule::Freestyle);
            if name == "hand-set" {
                // No tempo term by hand (a learned table may give the side to move one).
                assert_eq!(evaluate(&b, Color::Black, &w), 0);
            }
            b.make(Pos::new(7, 7), Color::Black);
            b.make(Pos::new(0, 0), Color::White);
            b.make(Pos::new(8, 7), Color::Black);
            // Black has an open two in the centre, white a corner stone: black is better.
            assert!(evaluate(&b, Color::Black, &w) > 0, "{name}");
            assert!(evaluate(&b, Color::White, &w) < 0, "{name}");
        }
    }

    use crate::game::zobrist::splitmix64;

    /// Random games (with random takebacks) on boards of several sizes: after every move
    /// and undo, call `check` on the board.
    fn random_positions(rule: Rule, seed: u64, mut check: impl FnMut(&Board)) {
        let mut rng = seed;
        for (game, size) in [15usize, 9, 20, 15, 6].into_iter().enumerate() {
            let mut b = Board::new(size, size, rule);
            if game == 3 {
                b.block(Pos::new(7, 7));
                b.block(Pos::new(3, 9));
            }
            check(&b);
            for _ in 0..120 {
                if b.is_full() {
                    break;
                }
                let r = splitmix64(&mut rng);
                if r.is_multiple_of(7) && b.stone_count() > 0 {
                    b.undo();
                } else {
                    play_random(&mut b, r);
                }
                check(&b);
            }
        }
    }

    /// A move by the side to move on a point drawn by `r`: mostly near the stones,
    /// sometimes anywhere.
    fn play_random(b: &mut Board, r: u64) {
        let pool: Vec<Pos> = if (r >> 20).is_multiple_of(5) || b.candidates().is_empty() {
            b.empty_points().iter().collect()
        } else {
            b.candidates().iter().collect()
        };
        let p = pool[(r >> 8) as usize % pool.len()];
        b.make(p, b.side_to_move());
    }

    fn random_weights(seed: u64) -> Weights {
        let mut rng = seed;
        let mut list = |n: usize, max: u64| {
            (0..n)
                .map(|_| (splitmix64(&mut rng) % max).to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let (own, opp, line) = (
            list(Threat::COUNT, 3000),
            list(Threat::COUNT, 3000),
            list(LinePattern::COUNT, 40),
        );
        let mut w = Weights::default();
        w.set("own", &own).unwrap();
        w.set("opp", &opp).unwrap();
        w.set("line", &line).unwrap();
        w
    }

    #[test]
    fn tables_reproduce_the_hand_set_formula() {
        for rule in Rule::ALL {
            for (i, w) in [Weights::hand_set(), random_weights(rule as u64 + 1)]
                .iter()
                .enumerate()
            {
                let mut checked = 0;
                random_positions(rule, 77 + i as u64, |b| {
                    for us in [Color::Black, Color::White] {
                        let hand = evaluate_hand_set(b, us, w);
                        assert_eq!(evaluate(b, us, w), hand, "{rule:?} weights {i} {us:?}\n{}", b.picture());
                        assert_eq!(evaluate_from_scratch(b, us, w.tables(rule)), hand, "{rule:?}");
                    }
                    checked += 1;
                });
                assert!(checked > 400, "{checked}");
            }
        }
    }

    #[test]
    fn the_lazy_evaluator_equals_a_full_recompute() {
        // One evaluator follows each random game from its first position and evaluates
        // only now and then, so that it catches up over several moves and undos; every
        // score equals the one from scratch. Boards of 5, 15, 20, 32 and a rectangle.
        let w = random_weights(5);
        for rule in Rule::ALL {
            let mut rng = 3 + rule as u64;
            for (width, height) in [(5, 5), (15, 15), (20, 20), (32, 32), (17, 9)] {
                let mut b = Board::new(width, height, rule);
                let mut evaluator = Evaluator::new(&b, &w);
                let mut evaluated = 0;
                for _ in 0..300 {
                    let r = splitmix64(&mut rng);
                    if b.is_full() || (r.is_multiple_of(5) && b.stone_count() > 0) {
                        b.undo();
                    } else {
                        play_random(&mut b, r);
                    }
                    if (r >> 40).is_multiple_of(3) {
                        for us in [Color::Black, Color::White] {
                            let expected = evaluate_from_scratch(&b, us, w.tables(rule));
                            assert_eq!(evaluator.evaluate(&b, us), expected, "{rule:?} {width}x{height}");
                        }
                        evaluated += 1;
                    }
                }
                assert!(evaluated > 50, "{evaluated}");
            }
        }
    }

    /// The position with every stone's colour swapped.
    fn swapped(b: &Board) -> Board {
        let moves: Vec<_> = b.moves().iter().map(|&(p, c)| (p, c.opposite())).collect();
        Board::from_moves(b.width(), b.height(), b.rule(), &moves)
    }

    #[test]
    fn colour_symmetry() {
        // Rules that treat both colours alike: swapping every stone's colour (and the side
        // to move) keeps the score of the side to move; the score of a side is the
        // negation of its opponent's when both sides' tables agree.
        let sym = {
            let mut w = random_weights(9);
            let t = w.tables(Rule::Freestyle).clone();
            let mut points = (*t.points).clone();
            for c in 0..2 {
                points.values[c][1] = points.values[c][0];
            }
            let mut threat = t.threat;
            for (a, row) in threat.iter_mut().enumerate() {
                for (b, v) in row.iter_mut().enumerate() {
                    *v = (a as i32 - b as i32) * 100;
                }
            }
            w.set_tables(RuleTables {
                rule: Rule::Freestyle,
                points: Arc::new(points),
                threat,
                by_initiative: false,
            });
            w
        };
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Caro, Rule::CaroExact] {
            let w = random_weights(rule as u64 + 11);
            random_positions(rule, 21, |b| {
                if b.width() == 15 && b.empty_points().len() != 225 - b.stone_count() {
                    return; // the board with blocked points: from_moves cannot rebuild it
                }
                let s = swapped(b);
                for us in [Color::Black, Color::White] {
                    assert_eq!(evaluate(b, us, &w), evaluate(&s, us.opposite(), &w), "{rule:?}");
                }
            });
        }
        // The embedded weights, learned ones included (the trainer shares one table between
        // the colours outside renju).
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Caro, Rule::CaroExact] {
            let w = Weights::default();
            random_positions(rule, 23, |b| {
                if b.width() == 15 && b.empty_points().len() != 225 - b.stone_count() {
                    return;
                }
                let s = swapped(b);
                for us in [Color::Black, Color::White] {
                    assert_eq!(
                        evaluate(b, us, &w),
                        evaluate(&s, us.opposite(), &w),
                        "embedded {rule:?}"
                    );
                }
            });
        }
        random_positions(Rule::Freestyle, 5, |b| {
            assert_eq!(evaluate(b, Color::Black, &sym), -evaluate(b, Color::White, &sym));
        });
        // Renju is not symmetric: in the hand-set tables black's forbidden points are worth
        // nothing to black (the learned renju tables keep black and white apart too).
        let learned = Weights::default();
        let values = &learned.tables(Rule::Renju).points.values;
        assert_ne!(values[Color::Black.index()], values[Color::White.index()]);
        let t = RuleTables::from_hand_set(Rule::Renju, &OWN, &OPP, &LINE);
        let forbidden_combo = pattern_combo([LinePattern::F3, LinePattern::F3, LinePattern::Dead, LinePattern::Dead]);
        assert_eq!(
            t.points.values[Color::Black.index()][0][forbidden_combo],
            2 * LINE[LinePattern::F3 as usize]
        );
        assert_eq!(
            t.points.values[Color::White.index()][0][forbidden_combo],
            OWN[Threat::DoubleThree as usize] + 2 * LINE[LinePattern::F3 as usize]
        );
    }

    #[test]
    fn the_initiative_swaps_the_point_values_of_a_side_that_must_answer() {
        // The learned freestyle values (hand-set or random ones reach the clamp here).
        let mut w = Weights::default();
        let t = RuleTables {
            by_initiative: true,
            ..w.tables(Rule::Freestyle).clone()
        };
        w.set_tables(t.clone());
        let board = |stones: &str| {
            let mut b = Board::new(15, 15, Rule::Freestyle);
            for (p, c) in crate::tools::positions::parse_stones(stones, 15).expect("stones") {
                b.make(p, c);
            }
            b
        };
        // The score with the point values of the side to move and of the other taken from
        // these sides of the table.
        let score = |b: &Board, us: Color, (ours, theirs): (usize, usize)| {
            let them = us.opposite();
            let sum = |c: Color, side: usize| -> i32 {
                b.empty_points()
                    .iter()
                    .map(|p| t.points.values[c.index()][side][b.pattern_combos(p)[c.index()]])
                    .sum()
            };
            sum(us, ours) - sum(them, theirs) + t.threat[threat_level(b, us)][threat_level(b, them)]
        };
        // White's open three: black, with nothing of its own, must answer it.
        let b = board("w:h8 w:i8 w:j8 b:a1 b:a3 b:o15");
        assert_eq!(point_sides(&b, Color::Black, true), (1, 0));
        assert_eq!(point_sides(&b, Color::Black, false), (0, 1));
        assert_eq!(point_sides(&b, Color::White, true), (0, 1));
        assert_eq!(evaluate(&b, Color::Black, &w), score(&b, Color::Black, (1, 0)));
        assert_eq!(
            evaluate_from_scratch(&b, Color::Black, &t),
            score(&b, Color::Black, (1, 0))
        );
        assert_ne!(evaluate(&b, Color::Black, &w), score(&b, Color::Black, (0, 1)));
        // With an open three of its own, black makes an open four first: its turn counts.
        let b = board("w:h8 w:i8 w:j8 b:c3 b:d3 b:e3");
        assert_eq!(point_sides(&b, Color::Black, true), (0, 1));
        assert_eq!(evaluate(&b, Color::Black, &w), score(&b, Color::Black, (0, 1)));
    }

    #[test]
    fn combos_are_numbered_densely() {
        let mut seen = vec![false; PATTERN_COMBOS];
        for pats in all_combos() {
            let i = pattern_combo(pats);
            assert!(!seen[i], "{pats:?}");
            seen[i] = true;
            let mut rev = pats;
            rev.reverse();
            assert_eq!(pattern_combo(rev), i, "order does not matter");
            assert_eq!(pattern_combo([pats[2], pats[0], pats[3], pats[1]]), i);
        }
        assert!(seen.iter().all(|&s| s));
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
