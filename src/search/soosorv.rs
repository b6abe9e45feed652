//! Soosorv-8, renju's opening rule, one step at a time as Yixin-Board asks for it
//! (`YXSOOSORVSTEP1..6`); each decision from searches in the step's time.
//!
//! The rule: the first player puts one of the 26 openings (black in the centre, white
//! next to it, black within the centre's 5×5); the second may swap. White plays the
//! fourth stone and says how many fifth moves (1 to `MAX_FIFTHS`) black must offer; the
//! other player may swap again. Black offers that many fifth moves, no two alike under a
//! symmetry of the position, white keeps one of them and plays on.
//!
//! Black's value with `n` offers is that of its `n`-th best fifth move (white keeps the
//! offer worst for black), so the decisions read the ranked fifth moves:
//! 1. `Open`: black's second stone where black's searched score is nearest even, for
//!    white next to the centre straight or diagonally (one of the most even, at random,
//!    as in swap2).
//! 2. `SwapAfterThree`: we take black when white stands worse.
//! 3. `Fourth`: white's best fourth stone, and the `n` whose `n`-th best fifth move for
//!    black is nearest even (fewer offers on a tie), so that a swap gains the opponent
//!    least.
//! 4. `SwapAfterFour`: we are black and take white when black's `n`-th best fifth move
//!    still leaves black worse.
//! 5. `Offer`: our `n` best fifth moves.
//! 6. `Choose`: the offer after which black's searched score is lowest.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::game::geometry::{symmetric, symmetry_count};
use crate::game::{Board, Color, Pos, PosSet};

use super::{Limits, SearchEvent, SearchResult, Searcher};

/// The most fifth moves white may ask for (the "8" of Soosorv-8).
pub const MAX_FIFTHS: usize = 8;

/// The step asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoosorvStep {
    /// Empty board: propose the opening.
    Open,
    /// Three stones: swap or not.
    SwapAfterThree,
    /// Three stones, we are white: the fourth stone and the number of fifth moves.
    Fourth,
    /// Four stones, we are black, `fifths` asked for: swap or not.
    SwapAfterFour { fifths: usize },
    /// Four stones, we are black: offer `fifths` fifth moves.
    Offer { fifths: usize },
    /// Four stones and black's offers (`Pos::NONE` after the last), we are white: keep one.
    Choose { offers: [Pos; MAX_FIFTHS] },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SoosorvAnswer {
    /// Black, white, black.
    Opening([Pos; 3]),
    /// Take the other colour (`true`) or keep ours.
    Swap(bool),
    /// White's fourth stone and the number of fifth moves black must offer.
    Fourth(Pos, usize),
    /// Black's fifth-move offers, best first.
    Offers(Vec<Pos>),
    /// The offer white keeps.
    Choice(Pos),
}

impl Searcher {
    /// The answer to one soosorv step on `board` (its stones black first), within
    /// `limits`.
    pub fn soosorv(
        &mut self,
        board: &Board,
        step: SoosorvStep,
        limits: &Limits,
        stop: &AtomicBool,
        start: Instant,
        report: &mut dyn FnMut(SearchEvent),
    ) -> SoosorvAnswer {
        match step {
            SoosorvStep::Open => self.soosorv_opening(board, limits, stop),
            SoosorvStep::SwapAfterThree => {
                let r = self.search(board, Color::White, limits, stop, start, report);
                SoosorvAnswer::Swap(r.score < 0)
            }
            SoosorvStep::Fourth => {
                let first = Limits {
                    budget: limits.budget.map(|b| b.split(2)),
                    ..*limits
                };
                let r = self.search(board, Color::White, &first, stop, start, report);
                let mut b = board.clone();
                b.make(r.best, Color::White);
                let fifths = self.ranked_fifths(&b, limits, stop, start, MAX_FIFTHS, PosSet::default(), report);
                // The offers' scores are black's, best first: n offers are worth the n-th.
                let n = (1..=fifths.len())
                    .min_by_key(|&n| (fifths[n - 1].1.saturating_abs(), n))
                    .unwrap_or(1);
                SoosorvAnswer::Fourth(r.best, n)
            }
            SoosorvStep::SwapAfterFour { fifths } => {
                let ranked = self.ranked_fifths(board, limits, stop, start, fifths, PosSet::default(), report);
                SoosorvAnswer::Swap(ranked.last().is_some_and(|&(_, score)| score < 0))
            }
            SoosorvStep::Offer { fifths } => {
                let ranked = self.ranked_fifths(board, limits, stop, start, fifths, PosSet::default(), report);
                SoosorvAnswer::Offers(ranked.iter().map(|r| r.0).collect())
            }
            SoosorvStep::Choose { offers } => {
                let mut given = PosSet::default();
                offers.iter().filter(|p| !p.is_none()).for_each(|&p| given.insert(p));
                let offers = given;
                let ranked = self.ranked_fifths(board, limits, stop, start, offers.len(), offers, report);
                // Each rank is black's best of the offers left, so the last is black's
                // worst of those ranked, and one no search reached (the time ran out) is
                // worse still by the searches' judgement.
                let choice = offers
                    .iter()
                    .find(|&p| !ranked.iter().any(|r| r.0 == p))
                    .or(ranked.last().map(|r| r.0));
                SoosorvAnswer::Choice(
                    choice.unwrap_or_else(|| board.points().find(|&p| board.is_empty(p)).expect("an empty point")),
                )
            }
        }
    }

    /// Black's `n` best fifth moves with their scores, best first (`search_ranked`, the
    /// time left from `start` shared), none the image of an earlier one under a symmetry
    /// of the position; only among `among` when it is not empty (offers given, each its
    /// own choice). Fewer when the moves or the time run out.
    #[allow(clippy::too_many_arguments)]
    fn ranked_fifths(
        &mut self,
        board: &Board,
        limits: &Limits,
        stop: &AtomicBool,
        start: Instant,
        n: usize,
        among: PosSet,
        report: &mut dyn FnMut(SearchEvent),
    ) -> Vec<(Pos, i32)> {
        let symmetries = if among.is_empty() {
            position_symmetries(board)
        } else {
            Vec::new()
        };
        let (w, h) = (board.width(), board.height());
        let images = |p: Pos| {
            let mut out = PosSet::default();
            symmetries.iter().for_each(|&s| out.insert(symmetric(p, s, w, h)));
            out
        };
        let mut part = *limits;
        if !among.is_empty() {
            board
                .points()
                .filter(|&p| !among.contains(p))
                .for_each(|p| part.excluded.insert(p));
        }
        let mut out: Vec<(Pos, i32)> = Vec::new();
        let mut on_rank = |_: usize, r: &SearchResult| {
            // A search falls back on an excluded move once every allowed one is ranked.
            if !part.excluded.contains(r.best) {
                out.push((r.best, r.score));
            }
        };
        self.search_ranked(
            board,
            Color::Black,
            &part,
            stop,
            start,
            n,
            &images,
            report,
            &mut on_rank,
        );
        out
    }

    fn soosorv_opening(&mut self, board: &Board, limits: &Limits, stop: &AtomicBool) -> SoosorvAnswer {
        let (w, h) = (board.width(), board.height());
        let (cx, cy) = (w / 2, h / 2);
        // Black's second stone only in the centre's 5×5: that makes the 26 openings.
        let mut inside = *limits;
        for p in board.points() {
            if p.x().abs_diff(cx) > 2 || p.y().abs_diff(cy) > 2 {
                inside.excluded.insert(p);
            }
        }
        let whites: Vec<Pos> = [(1, 0), (1, 1)]
            .iter()
            .filter(|&&(dx, dy)| cx + dx < w && cy + dy < h)
            .map(|&(dx, dy)| Pos::new(cx + dx, cy + dy))
            .collect();
        SoosorvAnswer::Opening(self.balanced_opening(board, &whites, &inside, stop))
    }
}

/// The symmetries of the board (`geometry::symmetric`'s numbers, the identity first) that
/// map every stone onto a stone of its colour.
fn position_symmetries(board: &Board) -> Vec<u32> {
    let (w, h) = (board.width(), board.height());
    (0..symmetry_count(w, h))
        .filter(|&s| {
            board
                .moves()
                .iter()
                .all(|&(p, c)| board.stone(symmetric(p, s, w, h)) == Some(c))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rule;
    use crate::tools::positions::board_from_stones;

    fn limits() -> Limits {
        Limits::depth(4)
    }

    fn search(board: &Board, step: SoosorvStep) -> SoosorvAnswer {
        let mut s = Searcher::new(1 << 20);
        s.soosorv(
            board,
            step,
            &limits(),
            &AtomicBool::new(false),
            Instant::now(),
            &mut |_| {},
        )
    }

    #[test]
    fn the_opening_is_one_of_the_26() {
        let b = Board::new(15, 15, Rule::Renju);
        let SoosorvAnswer::Opening([black, white, third]) = search(&b, SoosorvStep::Open) else {
            panic!("an opening")
        };
        assert_eq!(black, Pos::new(7, 7));
        assert!([Pos::new(8, 7), Pos::new(8, 8)].contains(&white));
        assert!(third.x().abs_diff(7) <= 2 && third.y().abs_diff(7) <= 2, "{third}");
        assert!(![black, white].contains(&third));
    }

    #[test]
    fn offers_are_distinct_under_the_position_s_symmetries() {
        // Four stones on column h: the position is its own mirror image about the column,
        // so g9 and j9, say, are one offer.
        let b = board_from_stones(Rule::Renju, 15, "b:h8 w:h9 b:h10 w:h11").unwrap();
        let syms = position_symmetries(&b);
        assert_eq!(syms[0], 0, "the identity first");
        let SoosorvAnswer::Offers(offers) = search(&b, SoosorvStep::Offer { fifths: 5 }) else {
            panic!("offers")
        };
        assert_eq!(offers.len(), 5);
        for (i, &a) in offers.iter().enumerate() {
            assert!(b.is_empty(a));
            for &c in &offers[..i] {
                for &s in &syms {
                    assert_ne!(symmetric(a, s, 15, 15), c, "{a} is {c} mirrored");
                }
            }
        }
    }

    #[test]
    fn a_position_with_a_mirror_has_two_symmetries() {
        let b = board_from_stones(Rule::Renju, 15, "b:h8 w:h9 b:h10").unwrap();
        assert_eq!(position_symmetries(&b).len(), 2, "the identity and the column's mirror");
        let b = board_from_stones(Rule::Renju, 15, "b:h8 w:i9 b:k8").unwrap();
        assert_eq!(position_symmetries(&b), vec![0]);
    }

    #[test]
    fn white_keeps_one_of_the_offers_and_asks_for_one_to_eight() {
        let b = board_from_stones(Rule::Renju, 15, "b:h8 w:i9 b:j8 w:i7").unwrap();
        let mut offers = [Pos::NONE; MAX_FIFTHS];
        for (i, s) in ["g8", "h7", "k8"].iter().enumerate() {
            offers[i] = board_from_stones(Rule::Renju, 15, &format!("b:{s}")).unwrap().moves()[0].0;
        }
        let SoosorvAnswer::Choice(p) = search(&b, SoosorvStep::Choose { offers }) else {
            panic!("a choice")
        };
        assert!(offers[..3].contains(&p), "{p}");
        let three = board_from_stones(Rule::Renju, 15, "b:h8 w:i9 b:j8").unwrap();
        let SoosorvAnswer::Fourth(fourth, n) = search(&three, SoosorvStep::Fourth) else {
            panic!("a fourth stone")
        };
        assert!(three.is_empty(fourth));
        assert!((1..=MAX_FIFTHS).contains(&n), "{n}");
    }
}
