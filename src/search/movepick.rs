//! Move ordering: a staged move picker, in the manner of Stockfish's `movepick.cpp`.
//!
//! A node's moves come out in stages, so that a cut-off by an early move costs nothing
//! for the rest: the transposition-table move (before anything is generated); then,
//! when the opponent threatens an open four or a four-three, exactly the board's answers
//! (`Board::defence`), best first; otherwise the attacks (moves whose static value says
//! they make or stop a three or more), the killers and the counter move, and last the
//! quiet moves, sorted only when they are reached. Values come from the threat class a
//! stone makes for each side plus the history; ties break on point index, so the order
//! is total and every machine searches the same tree.

use crate::game::{Board, Color, Pos, PosSet, Threat};

use super::history::History;
use super::params::{ATTACK_ORDER_MIN, HISTORY_ORDER_DIV, ORDER_BY_ATTACK, ORDER_BY_DEFENCE, POLICY_ORDER_PER_LOGIT};
use crate::nnue::{NetEvaluator, QA, QW};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct ScoredMove {
    pub pos: Pos,
    pub score: i32,
}

/// The threat class a stone of `us` on `p` makes (an occupied point keeps the class it
/// had while empty), for ordering, pruning and reductions. In renju a black point classed
/// `Forbidden` is searched only when legal, and a false double three still makes threes:
/// it counts as `ThreePlus` (Rapfi reduces such moves less, ~6 Elo there).
#[inline]
pub(crate) fn attack_class(board: &Board, p: Pos, us: Color) -> Threat {
    match board.threat(p, us) {
        Threat::Forbidden => Threat::ThreePlus,
        t => t,
    }
}

/// Static ordering value of `p` for `us`.
#[inline]
pub(crate) fn move_value(board: &Board, p: Pos, us: Color) -> i32 {
    ORDER_BY_ATTACK[attack_class(board, p, us) as usize] + ORDER_BY_DEFENCE[board.threat(p, us.opposite()) as usize]
}

/// Sort best first; equal scores in point order.
pub(crate) fn sort_moves(moves: &mut [ScoredMove]) {
    moves.sort_unstable_by(move_order);
}

/// Best first, ties by point: a total order, so every sort gives the same sequence.
fn move_order(a: &ScoredMove, b: &ScoredMove) -> std::cmp::Ordering {
    b.score.cmp(&a.score).then(a.pos.cmp(&b.pos))
}

/// Put the best `count` moves first, in order, and leave the rest after them unordered
/// (all worse): the same sequence as `sort_moves` for those, at linear cost for the rest.
fn sort_best(moves: &mut [ScoredMove], count: usize) {
    if count < moves.len() {
        moves.select_nth_unstable_by(count, move_order);
        moves[..count].sort_unstable_by(move_order);
    } else {
        sort_moves(moves);
    }
}

/// Every legal move of `us` near the stones, scored by `move_value` (unsorted). With no
/// stone on the board, the centre; when no near point is legal, every legal point.
pub(crate) fn legal_moves(board: &mut Board, us: Color, out: &mut Vec<ScoredMove>) {
    out.clear();
    if board.stone_count() == 0 {
        let centre = Pos::new(board.width() / 2, board.height() / 2);
        if board.is_empty(centre) {
            out.push(ScoredMove { pos: centre, score: 0 });
            return;
        }
    }
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
        let empties = *board.empty_points();
        for p in empties.iter() {
            if !(renju_black && board.is_forbidden(p)) {
                out.push(ScoredMove { pos: p, score: 0 });
            }
        }
    }
}

/// Added to the ordering value of attacks, which come out in their own stage.
const ATTACK_MARK: i32 = 1 << 20;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Stage {
    TtMove,
    Generate,
    Attacks,
    Killers,
    SortQuiets,
    Quiets,
    Done,
}

/// The staged picker of one node. The move list lives in a buffer the caller lends
/// (one per ply, so nothing is allocated during the search).
pub(crate) struct MovePicker<'d> {
    stage: Stage,
    us: Color,
    tt_move: Pos,
    /// Killers and counter move, tried after the attacks.
    specials: [Pos; 3],
    special_next: usize,
    /// Only these moves when the opponent threatens to win (`Board::defence`).
    defence: Option<&'d PosSet>,
    moves: Vec<ScoredMove>,
    next: usize,
    /// How many quiet moves the caller expects to take at most (move-count pruning ends
    /// the rest): only those are sorted until more are asked for.
    quiets_expected: usize,
    /// The end of the sorted part of `moves`.
    sorted_end: usize,
}

impl<'d> MovePicker<'d> {
    pub(crate) fn new(
        us: Color,
        tt_move: Pos,
        specials: [Pos; 3],
        defence: Option<&'d PosSet>,
        buffer: Vec<ScoredMove>,
        quiets_expected: usize,
    ) -> MovePicker<'d> {
        MovePicker {
            stage: Stage::TtMove,
            us,
            tt_move,
            specials,
            special_next: 0,
            defence,
            moves: buffer,
            next: 0,
            quiets_expected,
            sorted_end: 0,
        }
    }

    /// Have the attacks (every move valued at `ATTACK_ORDER_MIN` or more) all been
    /// given? The moves still to come are then killers and quiet moves.
    pub(crate) fn attacks_done(&self) -> bool {
        matches!(
            self.stage,
            Stage::Killers | Stage::SortQuiets | Stage::Quiets | Stage::Done
        )
    }

    /// Moves not given yet (the killers among them included).
    pub(crate) fn remaining(&self) -> usize {
        self.moves.len() - self.next
    }

    /// Give the move buffer back (for the next node at this ply).
    pub(crate) fn into_buffer(self) -> Vec<ScoredMove> {
        self.moves
    }

    /// The next move, or `None` when every move has come out.
    /// `policy`: a network whose move policy joins the order (`POLICY_ORDER_PER_LOGIT`).
    pub(crate) fn next(
        &mut self,
        board: &mut Board,
        history: &History,
        mut policy: Option<&mut NetEvaluator>,
    ) -> Option<Pos> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::Generate;
                    if self.tt_move_is_playable(board) {
                        return Some(self.tt_move);
                    }
                }
                Stage::Generate => {
                    self.generate(board, history);
                    self.stage = if self.defence.is_some() {
                        Stage::SortQuiets
                    } else {
                        Stage::Attacks
                    };
                }
                Stage::Attacks => match self.select_best(|m| m.score >= ATTACK_MARK) {
                    Some(p) => return Some(p),
                    None => self.stage = Stage::Killers,
                },
                Stage::Killers => {
                    while self.special_next < self.specials.len() {
                        let k = self.specials[self.special_next];
                        self.special_next += 1;
                        if k.is_none() || self.specials[..self.special_next - 1].contains(&k) {
                            continue;
                        }
                        if let Some(i) = self.moves[self.next..].iter().position(|m| m.pos == k) {
                            self.moves.swap(self.next, self.next + i);
                            self.next += 1;
                            return Some(k);
                        }
                    }
                    self.stage = Stage::SortQuiets;
                }
                Stage::SortQuiets => {
                    if let Some(net) = policy.take() {
                        self.add_policy(board, net);
                    }
                    sort_best(&mut self.moves[self.next..], self.quiets_expected);
                    self.sorted_end = self.moves.len().min(self.next.saturating_add(self.quiets_expected));
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    if self.next < self.moves.len() {
                        if self.next == self.sorted_end {
                            sort_moves(&mut self.moves[self.next..]);
                            self.sorted_end = self.moves.len();
                        }
                        self.next += 1;
                        return Some(self.moves[self.next - 1].pos);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    fn tt_move_is_playable(&self, board: &mut Board) -> bool {
        let p = self.tt_move;
        if p.is_none() || !board.contains(p) || !board.is_empty(p) {
            return false;
        }
        match self.defence {
            Some(d) => d.contains(p),
            None => board.candidates().contains(p) && board.is_legal(p, self.us),
        }
    }

    fn generate(&mut self, board: &mut Board, history: &History) {
        self.moves.clear();
        self.next = 0;
        let us = self.us;
        match self.defence {
            Some(defence) => {
                for p in defence.iter() {
                    self.moves.push(ScoredMove {
                        pos: p,
                        score: move_value(board, p, us),
                    });
                }
            }
            None => legal_moves(board, us, &mut self.moves),
        }
        let tt = self.tt_move;
        self.moves.retain(|m| m.pos != tt);
        for m in self.moves.iter_mut() {
            let attack = if m.score >= ATTACK_ORDER_MIN { ATTACK_MARK } else { 0 };
            m.score += attack + history.score(us, m.pos) / HISTORY_ORDER_DIV;
        }
    }

    /// Add the network's policy to the values of the moves still to come (the quiet
    /// moves, or every answer to a threat): only a node that gets past its table move,
    /// attacks and killers pays for the network's catch-up.
    fn add_policy(&mut self, board: &Board, net: &mut NetEvaluator) {
        net.sync(board);
        // The policy's integer logits are in units of QA·QW.
        let unit = (QA * QW) as i64;
        let us = self.us;
        for m in self.moves[self.next..].iter_mut() {
            let logit = net.policy_synced(us, m.pos) as i64;
            m.score += (logit * POLICY_ORDER_PER_LOGIT as i64 / unit) as i32;
        }
    }

    /// Take the best remaining move that passes `filter` (selection, so only what is
    /// taken is ordered).
    fn select_best(&mut self, filter: impl Fn(&ScoredMove) -> bool) -> Option<Pos> {
        let rest = &self.moves[self.next..];
        let mut best: Option<usize> = None;
        for (i, m) in rest.iter().enumerate() {
            if !filter(m) {
                continue;
            }
            if best.is_none_or(|b| {
                let bm = &rest[b];
                m.score > bm.score || (m.score == bm.score && m.pos < bm.pos)
            }) {
                best = Some(i);
            }
        }
        let i = best?;
        self.moves.swap(self.next, self.next + i);
        self.next += 1;
        Some(self.moves[self.next - 1].pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::zobrist::splitmix64;

    #[test]
    fn a_false_double_three_counts_as_a_three() {
        use crate::game::Rule;
        use crate::tools::positions::{board_from_stones, parse_stones};
        // Renju: h8 looks like a double three (f8 g8 h8, h6 h7 h8), but the column three is
        // false (its only straight-four point h9 would be forbidden), so h8 is legal and
        // makes a three (tests/rules.rs, `renju_false_double_three_is_recursive`).
        let stones = "b:f8 b:g8 b:h6 b:h7 b:j9 b:k9 b:i10 w:h4 w:a1 w:c1 w:e1";
        let mut board = board_from_stones(Rule::Renju, 15, stones).unwrap();
        let h8 = parse_stones("b:h8", 15).unwrap()[0].0;
        assert_eq!(board.threat(h8, Color::Black), Threat::Forbidden);
        assert!(board.is_legal(h8, Color::Black));
        assert_eq!(attack_class(&board, h8, Color::Black), Threat::ThreePlus);
        assert!(crate::search::alphabeta::is_tactical(
            attack_class(&board, h8, Color::Black),
            board.threat(h8, Color::White)
        ));
        // White's classes are its own.
        assert_eq!(attack_class(&board, h8, Color::White), board.threat(h8, Color::White));
    }

    #[test]
    fn sorting_only_the_best_gives_the_full_sort_sequence() {
        let mut rng = 7u64;
        for len in [0usize, 1, 2, 5, 40, 120] {
            // Few distinct scores, so that ties (broken by point) are common.
            let moves: Vec<ScoredMove> = (0..len)
                .map(|i| {
                    let r = splitmix64(&mut rng);
                    ScoredMove {
                        pos: Pos::from_index(i * 7 % 225),
                        score: (r % 9) as i32,
                    }
                })
                .collect();
            let mut full = moves.clone();
            sort_moves(&mut full);
            for count in [0usize, 1, 3, 8, len, len + 5] {
                let mut part = moves.clone();
                sort_best(&mut part, count);
                let sorted = count.min(len);
                assert_eq!(part[..sorted], full[..sorted], "len {len} count {count}");
                // The rest, sorted later, continues the same sequence.
                sort_moves(&mut part[sorted..]);
                assert_eq!(part, full, "len {len} count {count}");
            }
        }
    }
}
