//! Forcing facts read straight from the board's threat tables: where a five is made or
//! must be blocked, which fours may be played, the wins that need no search, and where a
//! side must play against the opponent's open-four and four-three threats.
//!
//! These are the one home of that logic: the main search, the quiescence search, the
//! VCF/VCT solvers and the root all ask the board here.
//!
//! A four-three is only a threat when it wins by force: after the attacker's stone the
//! defender's block of the four must not make a four for the defender (a "false"
//! four-three), and in renju black's three must really become an open four. Every answer
//! below is exact or errs on the safe side: `defence` may list a move that does not
//! defend, never leave out one that does, so a position in which every listed move loses
//! is lost.

use super::bitset::PosSet;
use super::board::Board;
use super::geometry::{Color, Pos, DIRS};
use super::pattern::{offset_slot, LinePattern, Threat, ThreatGroup, HALF};

/// What the side to move must answer: the opponent's open-four and real four-three points.
#[derive(Clone, Debug)]
pub struct Defence {
    /// The moves worth searching (defences and our own fours): every other move loses.
    pub(crate) moves: PosSet,
    /// The moves that stop the threat itself (the rest of `moves` are our fours).
    pub(crate) blocks: PosSet,
    /// A move outside `moves` loses within this many plies (the opponent's five included).
    pub(crate) loss_plies: i32,
}

impl Board {
    /// The first point (in index order) where `c` completes a five.
    #[inline]
    pub(crate) fn five_point(&self, c: Color) -> Option<Pos> {
        self.threat_points(c, ThreatGroup::Five).first()
    }

    /// How many points complete a five for `c`.
    #[inline]
    pub(crate) fn five_count(&self, c: Color) -> u16 {
        self.threat_count(c, Threat::Five)
    }

    /// Has `c` a point that makes an open four or a four-three (by the patterns alone:
    /// the four-three may be false)?
    #[inline]
    pub(crate) fn has_winning_threat(&self, c: Color) -> bool {
        self.threat_count(c, Threat::OpenFour) + self.threat_count(c, Threat::FourThree) > 0
    }

    /// Does a stone of `c` on `p` make a four (or a five) that `c` may play? In renju a
    /// black point classed `Forbidden` is still a legal four when its double three is false.
    pub(crate) fn is_legal_four(&mut self, p: Pos, c: Color) -> bool {
        let t = self.threat(p, c);
        if t.is_four() {
            return true;
        }
        t == Threat::Forbidden && (0..4).any(|d| self.line_pattern(p, c, d).is_four()) && !self.is_forbidden(p)
    }

    /// Every point where `c` may play a four (fives not included).
    pub(crate) fn legal_fours(&mut self, c: Color) -> PosSet {
        let mut fours = *self.threat_points(c, ThreatGroup::Four);
        if c == Color::Black && self.rule().has_forbidden() {
            let maybe = *self.threat_points(c, ThreatGroup::Forbidden);
            for p in maybe.iter() {
                if self.is_legal_four(p, c) {
                    fours.insert(p);
                }
            }
        }
        fours
    }

    /// With `c` to move and no five point for the opponent: does `c` win without search?
    /// The number of plies to the five (`c`'s five included) and the first move. An open
    /// four (or double four) wins in three; a real four-three in five (three when the
    /// block is forbidden for black); in renju a white four whose block is forbidden for
    /// black in three.
    pub(crate) fn quick_win(&mut self, c: Color) -> Option<(i32, Pos)> {
        debug_assert_eq!(self.five_count(c.opposite()), 0);
        let fours = *self.threat_points(c, ThreatGroup::Four);
        if self.threat_count(c, Threat::OpenFour) > 0 {
            let p = fours.iter().find(|&p| self.threat(p, c) == Threat::OpenFour);
            return p.map(|p| (3, p));
        }
        let renju_white = c == Color::White && self.rule().has_forbidden();
        if self.threat_count(c, Threat::FourThree) == 0 && !renju_white {
            return None;
        }
        let mut best = None;
        for p in fours.iter() {
            let t = self.threat(p, c);
            if t == Threat::FourThree {
                match self.four_three_result(p, c) {
                    FourThree::Wins => {
                        best = best.or(Some((5, p)));
                    }
                    FourThree::BlockForbidden => return Some((3, p)),
                    FourThree::False => {}
                }
            } else if renju_white && self.block_is_forbidden(p) {
                return Some((3, p));
            }
        }
        best
    }

    /// With `us` to move and no five point for the opponent: the answers to the
    /// opponent's winning threats (open fours, real four-threes), or `None` when there are
    /// none and any move may be played.
    pub(crate) fn defence(&mut self, us: Color) -> Option<Defence> {
        let them = us.opposite();
        debug_assert_eq!(self.five_count(them), 0);
        if self.threat_count(them, Threat::OpenFour) == 0 && self.threat_count(them, Threat::FourThree) == 0 {
            return None;
        }
        let points = *self.threat_points(them, ThreatGroup::Four);
        let mut area: Option<PosSet> = None;
        let mut loss_plies = 0;
        for p in points.iter() {
            let t = self.threat(p, them);
            let answers = match t {
                Threat::OpenFour => {
                    loss_plies = loss_plies.max(4);
                    self.weakening_points(p, them, Threat::OpenFour)
                }
                Threat::FourThree => {
                    let Some(block) = self.four_three_block(p, them) else {
                        continue; // a false four-three: no threat
                    };
                    loss_plies = loss_plies.max(6);
                    let mut a = self.weakening_points(p, them, Threat::FourThree);
                    self.add_four_makers(block, us, &mut a);
                    a
                }
                _ => continue,
            };
            area = Some(match area {
                None => answers,
                Some(a) => a.intersection(&answers),
            });
        }
        let area = area?;
        let mut moves = self.legal_fours(us);
        let mut blocks = PosSet::default();
        let renju_black = us == Color::Black && self.rule().has_forbidden();
        for q in area.iter() {
            if self.is_empty(q) && !(renju_black && self.is_forbidden(q)) {
                moves.insert(q);
                blocks.insert(q);
            }
        }
        Some(Defence {
            moves,
            blocks,
            loss_plies,
        })
    }

    /// The point `p` and the empty points on its lines where a stone of the opponent of
    /// `c` lowers `c`'s threat class on `p` below `level`.
    fn weakening_points(&self, p: Pos, c: Color, level: Threat) -> PosSet {
        let mut out = PosSet::default();
        out.insert(p);
        let blocker = c.opposite().cell() as u32;
        let pats = [0, 1, 2, 3].map(|d| self.line_pattern(p, c, d));
        for d in 0..4 {
            // Only fours and open threes make the classes at and above four-three.
            if pats[d] < LinePattern::F3 {
                continue;
            }
            let key = self.line_key(p, d);
            for k in -(HALF as isize)..=HALF as isize {
                let q = p.step(k * DIRS[d]);
                if k == 0 || !self.is_empty(q) {
                    continue;
                }
                let lowered = self.tables().line(key | blocker << (2 * offset_slot(k)), c);
                if lowered == pats[d] {
                    continue;
                }
                let mut after = pats;
                after[d] = lowered;
                if self.tables().threat_of(c, after) < level {
                    out.insert(q);
                }
            }
        }
        out
    }

    /// Add to `out` the empty points where a stone of `c` makes `block` a four for `c`
    /// (so that blocking there answers with a four). Errs on the safe side: the
    /// attacker's stone next to `block` is not taken into account.
    fn add_four_makers(&self, block: Pos, c: Color, out: &mut PosSet) {
        let me = c.cell() as u32;
        for (d, &step) in DIRS.iter().enumerate() {
            let key = self.line_key(block, d);
            for k in -(HALF as isize)..=HALF as isize {
                let q = block.step(k * step);
                if k != 0 && self.is_empty(q) && self.tables().line(key | me << (2 * offset_slot(k)), c).is_four() {
                    out.insert(q);
                }
            }
        }
    }

    /// The point where `c`'s four from `p` would have its five (`p` must make exactly
    /// one four for `c`).
    fn five_after(&self, p: Pos, c: Color) -> Option<Pos> {
        let me = c.cell() as u32;
        let d = (0..4).find(|&d| self.line_pattern(p, c, d) == LinePattern::B4)?;
        let key = self.line_key(p, d);
        (-(HALF as isize)..=HALF as isize)
            .filter(|&k| k != 0)
            .map(|k| (k, p.step(k * DIRS[d])))
            .find(|&(k, q)| {
                self.is_empty(q) && self.tables().line(key | me << (2 * offset_slot(k)), c) == LinePattern::Five
            })
            .map(|(_, q)| q)
    }

    /// The defender's block of a four-three on `p` by `c`, if the four-three wins by
    /// force (see `four_three_result`).
    fn four_three_block(&mut self, p: Pos, c: Color) -> Option<Pos> {
        match self.four_three_result(p, c) {
            FourThree::False => None,
            _ => self.five_after(p, c),
        }
    }

    /// Does the four-three of `c` on `p` win by force?
    fn four_three_result(&mut self, p: Pos, c: Color) -> FourThree {
        let Some(block) = self.five_after(p, c) else {
            return FourThree::False;
        };
        let defender = c.opposite();
        if self.rule().has_forbidden() {
            // Forbidden points on either side: play it out exactly.
            self.make(p, c);
            let result = if defender == Color::Black && self.is_forbidden(block) {
                FourThree::BlockForbidden
            } else {
                self.make(block, defender);
                let wins = self.five_count(defender) == 0 && self.has_open_four_point_through(p, c);
                self.undo();
                if wins {
                    FourThree::Wins
                } else {
                    FourThree::False
                }
            };
            self.undo();
            return result;
        }
        // The defender's lines through the block, with the attacker's stone on `p`.
        let mut pats = [0, 1, 2, 3].map(|d| self.line_pattern(block, defender, d));
        let d = (0..4)
            .find(|&d| {
                let k = offset_between(block, p, DIRS[d]);
                k.is_some()
            })
            .expect("the block is on the four's line");
        let k = offset_between(block, p, DIRS[d]).expect("on the line");
        pats[d] = self.tables().line(
            self.line_key(block, d) | (c.cell() as u32) << (2 * offset_slot(k)),
            defender,
        );
        if pats.iter().any(|lp| lp.is_four() || *lp == LinePattern::Five) {
            FourThree::False
        } else {
            FourThree::Wins
        }
    }

    /// Can `c` make an open four (two five points) on a line through `p`? In renju black's
    /// point must be legal. An open-four point on another line belongs to another threat,
    /// which has answers of its own: counting it here made a false four-three look real
    /// and dropped the moves that stop that other threat from the defence.
    fn has_open_four_point_through(&mut self, p: Pos, c: Color) -> bool {
        let renju_black = c == Color::Black && self.rule().has_forbidden();
        for (d, &step) in DIRS.iter().enumerate() {
            for k in 1..=HALF as isize {
                for q in [p.step(k * step), p.step(-k * step)] {
                    // Walls are not empty: no bounds check needed (the padding is wider).
                    if self.is_empty(q)
                        && self.line_pattern(q, c, d) == LinePattern::F4
                        && !(renju_black && self.is_forbidden(q))
                    {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Renju, white to move: does white's four on `p` have its five on a point that is
    /// forbidden for black (so black cannot block)?
    fn block_is_forbidden(&mut self, p: Pos) -> bool {
        let Some(block) = self.five_after(p, Color::White) else {
            return false;
        };
        if self.threat(block, Color::Black) != Threat::Forbidden {
            // Only a point whose patterns make it a candidate can be forbidden, and white's
            // stone takes black patterns away, never adds them.
            return false;
        }
        self.make(p, Color::White);
        let forbidden = self.is_forbidden(block);
        self.undo();
        forbidden
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum FourThree {
    /// The block gives the defender a four (or the three is not real): no forced win.
    False,
    /// Block, open four, five.
    Wins,
    /// Renju: black cannot block the four.
    BlockForbidden,
}

/// `Some(k)` when `to == from + k·step` for some `k` within the pattern window.
fn offset_between(from: Pos, to: Pos, step: isize) -> Option<isize> {
    (-(HALF as isize)..=HALF as isize).find(|&k| k != 0 && from.step(k * step) == to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::geometry::parse_pos_token;
    use crate::game::Rule;
    use crate::tools::positions::moves_from_pos_string;

    fn at(name: &str) -> Pos {
        let (x, y) = parse_pos_token(name).expect("a point");
        Pos::new(x, y)
    }

    /// A 15×15 board from "b:h8 w:i9 ..." (the order of the stones does not matter here).
    fn board(rule: Rule, stones: &str) -> Board {
        let moves: Vec<(Pos, Color)> = stones
            .split_whitespace()
            .map(|t| {
                let (c, p) = t.split_once(':').expect("colour:point");
                (at(p), if c == "b" { Color::Black } else { Color::White })
            })
            .collect();
        Board::from_moves(15, 15, rule, &moves)
    }

    #[test]
    fn open_four_point_wins_in_three() {
        let mut b = board(Rule::Freestyle, "b:d8 b:e8 b:f8 w:a1 w:a3 w:o15");
        let (plies, p) = b.quick_win(Color::Black).expect("an open four to make");
        assert_eq!(plies, 3);
        assert!(p == at("c8") || p == at("g8"), "{p}");
        // White to move must answer it: only the points that spoil the open four.
        let d = b.defence(Color::White).expect("a threat to answer");
        assert_eq!(d.loss_plies, 4);
        for p in ["c8", "g8"] {
            assert!(d.moves.contains(at(p)), "{p}");
        }
        assert!(!d.moves.contains(at("h12")));
    }

    #[test]
    fn our_fours_answer_a_threat_but_do_not_block_it() {
        // Black's open three d8 e8 f8; white's j3 j4 j5 (j2 black) can make a four at j6.
        let mut b = board(Rule::Freestyle, "b:d8 b:e8 b:f8 b:j2 w:j3 w:j4 w:j5 w:a1 w:o15");
        let d = b.defence(Color::White).expect("a threat to answer");
        for p in ["c8", "g8"] {
            assert!(d.blocks.contains(at(p)) && d.moves.contains(at(p)), "{p} blocks");
        }
        assert!(d.moves.contains(at("j6")), "a four delays the threat");
        assert!(!d.blocks.contains(at("j6")), "but does not block it");
        assert!(d.blocks.iter().all(|p| d.moves.contains(p)));
    }

    #[test]
    fn four_three_wins_unless_the_block_makes_a_four() {
        // g8: a four on row 8 (c8 is white; the five point is h8) and an open three on g.
        let real = "b:d8 b:e8 b:f8 b:g9 b:g10 w:c8 w:a1 w:o15";
        let mut b = board(Rule::Freestyle, real);
        assert_eq!(b.threat(at("g8"), Color::Black), Threat::FourThree);
        assert_eq!(b.quick_win(Color::Black), Some((5, at("g8"))));
        // White's h5 h6 h7 (h4 black): blocking on h8 makes a four, so the four-three is
        // false and neither a quick win nor a threat white must answer.
        let mut b = board(Rule::Freestyle, &format!("{real} w:h5 w:h6 w:h7 b:h4"));
        assert_eq!(b.threat(at("g8"), Color::Black), Threat::FourThree);
        assert_eq!(b.quick_win(Color::Black), None);
        assert!(b.defence(Color::White).is_none());
    }

    #[test]
    fn defences_include_moves_that_turn_the_block_into_a_four() {
        // The real four-three of g8, and white's h5 h6 (h4 black): white h7 makes the
        // block on h8 a four, so h7 answers the threat although it is far from g8's lines.
        let mut b = board(
            Rule::Freestyle,
            "b:d8 b:e8 b:f8 b:g9 b:g10 w:c8 w:a1 w:o15 w:h5 w:h6 b:h4",
        );
        assert_eq!(b.quick_win(Color::Black), Some((5, at("g8"))));
        let d = b.defence(Color::White).expect("a threat to answer");
        assert_eq!(d.loss_plies, 6);
        for p in ["g8", "h8", "h7", "g11", "g7"] {
            assert!(d.moves.contains(at(p)), "{p} answers the four-three");
        }
        // The answer really works: after h7 black's four-three is false.
        b.make(at("h7"), Color::White);
        assert_eq!(b.quick_win(Color::Black), None);
    }

    #[test]
    fn renju_white_four_with_a_forbidden_block_wins() {
        // White j9 makes g9..j9 a four whose five point k9 would give black an overline.
        let mut b = board(
            Rule::Renju,
            "w:g9 w:h9 w:i9 b:f9 b:k5 b:k6 b:k7 b:k8 b:k10 w:k4 w:a1 w:c1 w:o15",
        );
        assert_eq!(b.quick_win(Color::White), Some((3, at("j9"))));
        // Without forbidden points the same block is an ordinary move (under standard,
        // where k9 makes black six, not a five: `quick_win` asks for no five point of the
        // opponent's).
        let mut b = board(
            Rule::Standard,
            "w:g9 w:h9 w:i9 b:f9 b:k5 b:k6 b:k7 b:k8 b:k10 w:k4 w:a1 w:c1 w:o15",
        );
        assert_eq!(b.quick_win(Color::White), None);
    }

    #[test]
    fn legal_fours_and_five_points() {
        let mut b = board(Rule::Freestyle, "b:d8 b:e8 b:f8 b:g8 w:c8 w:a1 w:a2 w:o15");
        assert_eq!(b.five_point(Color::Black), Some(at("h8")));
        assert_eq!(b.five_count(Color::Black), 1);
        assert!(b.legal_fours(Color::White).is_empty());
        let fours = b.legal_fours(Color::Black);
        assert!(!fours.contains(at("h8")), "a five is not counted as a four");
    }

    #[test]
    fn renju_four_three_needs_its_own_open_four() {
        // Sente vs Rapfi, renju, black to move after d14 (ply 87): black's d14 makes an
        // open-four point on e13 (d14 f12 g11), and c6 and c7 make a four and a three whose
        // open-four points are forbidden or blocked. After c6's block black's only open
        // four is e13, another threat's: c6 is not a real four-three, and white's e13,
        // which stops the one real threat, must be among the answers. Sente took the
        // answers for lost, announced +M13 and lost the game.
        let game = "h8i8j8i7i6i9i10j7k6h7g7j6j9l7k7k5l4j4j3h5l6h4h3g5i5i3m5n4j2n6f4e6f6e5\
                    f5f7e8h11e4g10i2h2g1g4k4h1e9f8f11i12j13n3n5g12e11e10f3f2d3c2c4g2g11d11\
                    g3e3m6l5d4b4d5f9g8d6f10e7c5h12g9d12d2d1f12d10d9f13d14";
        let moves = moves_from_pos_string(game, 15).expect("a game");
        let mut b = Board::from_moves(15, 15, Rule::Renju, &moves);
        let d = b.defence(Color::White).expect("the open-four point e13 is a threat");
        for p in ["e13", "c15", "h10"] {
            assert!(d.blocks.contains(at(p)), "{p} stops the three");
        }
        b.make(at("e13"), Color::White);
        assert_eq!(b.quick_win(Color::Black), None, "e13 answers every threat");
    }
}
