//! The root: the answers that need no search, the moves the search chooses from, and
//! the time plan of the checks between them.
//!
//! Before iterative deepening the root looks, in this order, for: a five to make; a five
//! to block; a win the board proves (open four, real four-three); a VCF; a short VCT (when
//! the opponent has no winning threat). Then it lists the root moves (the answers the
//! board gives against an open four or four-three, else every legal move), drops the
//! excluded ones, and, when the opponent would have a VCT if it were their move, keeps
//! only the moves after which they have none. `Searcher::decide` reads the steps top to
//! bottom.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::game::{Board, Color, Pos, PosSet, ThreatGroup};

use super::alphabeta::Context;
use super::movepick::{legal_moves, move_value, sort_moves, ScoredMove};
use super::params::*;
use super::threats::{win_plies, Effort, Proof, VcfSolver, VctSolver};
use super::time::Budget;
use super::{Decision, Limits};

/// How the root spends one move's time, in one place. The threat checks before the
/// search end at fixed shares of the soft time, counted from the start of the move (the
/// VCF check at `VCF_CHECK_EIGHTHS`, the short VCT at `VCT_CHECK_EIGHTHS`, the VCT filter
/// at `VCT_FILTER_EIGHTHS`), each also bounded by nodes; the main search then has the
/// move's budget (`Budget`: no new iteration after the soft time, abort at the hard
/// one); a short search inside the move takes `1 / SHORT_SEARCH_SHARE` of the soft and
/// hard time from when it begins. A move without a time limit (a depth or node search)
/// gives the checks fixed node budgets, within a share of the node limit.
pub(super) struct TimePlan<'a> {
    limits: Limits,
    start: Instant,
    stop: &'a AtomicBool,
}

impl<'a> TimePlan<'a> {
    pub(super) fn new(limits: &Limits, start: Instant, stop: &'a AtomicBool) -> TimePlan<'a> {
        TimePlan {
            limits: *limits,
            start,
            stop,
        }
    }

    /// `eighths` of the soft time from the start of the move, if the move is timed.
    fn deadline(&self, eighths: u32) -> Option<Instant> {
        self.limits.budget.map(|b| self.start + b.soft * eighths / 8)
    }

    /// Nodes for a check: `per_ms` of the soft time within `min..=max`, else `untimed`;
    /// within a `share` of the node limit, if any.
    fn nodes(&self, per_ms: u64, min: u64, max: u64, untimed: u64, share: u64) -> u64 {
        let by_time = match self.limits.budget {
            Some(b) => (b.soft.as_millis() as u64).saturating_mul(per_ms).clamp(min, max),
            None => untimed,
        };
        match self.limits.max_nodes {
            0 => by_time,
            limit => by_time.min(limit / share + 1),
        }
    }

    /// The up-front VCF check: a quick VCF beats any search.
    fn vcf_check(&self) -> Effort<'a> {
        let nodes = self.nodes(
            VCF_NODES_PER_MS,
            VCF_MIN_NODES,
            VCF_MAX_NODES,
            VCF_UNTIMED_NODES,
            VCF_CHECK_NODE_SHARE,
        );
        Effort::new(nodes, Some(self.stop), self.deadline(VCF_CHECK_EIGHTHS))
    }

    /// Nodes for one VCT check.
    fn vct_nodes(&self) -> u64 {
        self.nodes(
            THREAT_NODES_PER_MS,
            THREAT_MIN_NODES,
            THREAT_MAX_NODES,
            THREAT_UNTIMED_NODES,
            VCT_CHECK_NODE_SHARE,
        )
    }

    /// The short VCT check for a win to play. Its deadline comes before the VCF check's:
    /// when the VCF check ran past it, no VCT is looked for.
    fn vct_check(&self) -> Effort<'a> {
        Effort::new(self.vct_nodes(), Some(self.stop), self.deadline(VCT_CHECK_EIGHTHS))
    }

    /// When the VCT filter of the root moves ends.
    fn vct_filter_deadline(&self) -> Option<Instant> {
        self.deadline(VCT_FILTER_EIGHTHS)
    }

    /// Does the opponent threaten a VCT at all (the filter's first check)?
    fn vct_filter(&self) -> Effort<'a> {
        Effort::new(self.vct_nodes(), Some(self.stop), self.vct_filter_deadline())
    }

    /// The filter's check of one root move.
    fn vct_filter_move(&self) -> Effort<'a> {
        let nodes = self.vct_nodes() / VCT_FILTER_MOVE_SHARE + VCT_FILTER_MOVE_EXTRA_NODES;
        Effort::new(nodes, Some(self.stop), self.vct_filter_deadline())
    }

    /// Does the match clock set this move's time (so that time spent now is taken from
    /// later moves)?
    pub(super) fn on_match_clock(&self) -> bool {
        self.limits.budget.is_some_and(|b| b.match_clock)
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The limits of a short search that begins `spent` into the move: a share of its
    /// soft and hard time from now (within its hard limit), at most `max_depth`, and when
    /// neither time nor nodes bound it (a depth-limited analysis) at most
    /// `SHORT_SEARCH_MAX_DEPTH`.
    pub(super) fn short_search(&self, spent: Duration, max_depth: i32) -> Limits {
        let limits = &self.limits;
        let budget = limits.budget.map(|b| {
            Budget::fixed(
                (spent + b.soft / SHORT_SEARCH_SHARE).min(b.hard),
                (spent + b.hard / SHORT_SEARCH_SHARE).min(b.hard),
            )
        });
        let unbounded = budget.is_none() && limits.max_nodes == 0;
        Limits {
            budget,
            max_depth: limits
                .max_depth
                .min(max_depth)
                .min(if unbounded { SHORT_SEARCH_MAX_DEPTH } else { i32::MAX }),
            ..*limits
        }
    }
}

/// A proven win found before the main search: a VCF or a VCT, its line from the root and
/// its length in plies.
pub(super) struct ThreatWin {
    pub(super) decision: Decision,
    pub(super) line: Vec<Pos>,
    pub(super) plies: i32,
}

/// A move that needs no main search to be chosen.
pub(super) enum Forced {
    /// Our five.
    Five(Pos),
    /// The block of the opponent's single five: the only move.
    Block(Pos),
    /// Lost: the opponent has two fives, or black's only block is forbidden (renju). The
    /// most useful legal move, if there is one.
    Lost(Pos),
    /// A win the board proves (an open four, a real four-three) in `plies` (3 or 5),
    /// which no search shortens.
    BoardWin { best: Pos, plies: i32 },
    /// A VCF or a short VCT.
    ThreatWin(ThreatWin),
}

/// What a root VCT check is for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum VctPurpose {
    /// Does the opponent threaten a win? (Any win will do.)
    Threat,
    /// A win to play: its shortest form (see `VctSolver::shortest_first`).
    Win,
    /// A win to play that is shorter than one already known: also with its first threat
    /// anywhere (see `VctSolver::first_threat_anywhere`).
    ShorterWin,
}

/// A VCT of at most `max_moves` attacker moves for `attacker`, and the nodes spent. The
/// iterative-deepening solver, not the proof-number one: with small budgets it finds the
/// short wins sooner, and in self-play at 1 s/move the proof-number root checks lost
/// (-43 ± 48 Elo over 200 games).
pub(super) fn find_vct(
    board: &mut Board,
    attacker: Color,
    effort: Effort,
    max_moves: u32,
    purpose: VctPurpose,
) -> (Proof, u64) {
    let mut solver = VctSolver::new(board, attacker, effort);
    if purpose != VctPurpose::Threat {
        solver = solver.shortest_first();
    }
    if purpose == VctPurpose::ShorterWin {
        solver = solver.first_threat_anywhere();
    }
    let proof = solver.solve(max_moves);
    (proof, solver.effort.nodes)
}

/// A proof's line as a win to play, with its length: only a line that replays as a win is
/// played as one (and its length is the mate).
fn replayed_win(board: &Board, us: Color, proof: Proof) -> Option<(Vec<Pos>, i32)> {
    let Proof::Win(line) = proof else { return None };
    match win_plies(board, us, &line) {
        Ok(plies) => Some((line, plies)),
        Err(e) => {
            debug_assert!(false, "a threat line does not replay: {e} {line:?}");
            None
        }
    }
}

/// The answers that need no search: our five, the block of the opponent's five, a win
/// the board proves, a VCF, a short VCT.
pub(super) fn forced_answer(ctx: &mut Context, plan: &TimePlan) -> Option<Forced> {
    let us = ctx.root_side;
    let them = us.opposite();
    if let Some(five) = ctx.board.five_point(us) {
        return Some(Forced::Five(five));
    }
    let opponent_fives = ctx.board.five_count(them);
    if opponent_fives > 0 {
        // The block is the only move (with two five points, one of them; lost anyway).
        let block = ctx.board.five_point(them).expect("counted five point");
        if ctx.board.is_legal(block, us) {
            return Some(if opponent_fives >= 2 {
                Forced::Lost(block)
            } else {
                Forced::Block(block)
            });
        }
        // Renju: black's only block is forbidden. Lost; play the most useful legal move.
        let mut moves = Vec::new();
        legal_moves(&mut ctx.board, us, &mut moves);
        sort_moves(&mut moves);
        return moves.first().map(|m| Forced::Lost(m.pos));
    }
    if let Some((plies, best)) = ctx.board.quick_win(us) {
        return Some(Forced::BoardWin { best, plies });
    }

    let mut solver = VcfSolver::new(&mut ctx.board, us, plan.vcf_check()).shortest_first();
    let proof = solver.solve(ROOT_VCF_FOURS);
    ctx.stats.nodes += solver.effort.nodes;
    let vcf = replayed_win(&ctx.board, us, proof);
    // Then a short VCT (threes and fours), unless the opponent already threatens to win;
    // after a VCF only one with fewer plies (m attacker moves take at least 2m - 1), so
    // that the mate announced on the previous move is kept.
    let vct_moves = vcf.as_ref().map_or(ROOT_VCT_MOVES, |v| ((v.1 - 1) / 2) as u32);
    if vct_moves > 0 && ctx.board.defence(us).is_none() && !plan.stopped() {
        let purpose = if vcf.is_some() {
            VctPurpose::ShorterWin
        } else {
            VctPurpose::Win
        };
        let (proof, nodes) = find_vct(&mut ctx.board, us, plan.vct_check(), vct_moves, purpose);
        ctx.stats.nodes += nodes;
        if let Some((line, plies)) = replayed_win(&ctx.board, us, proof) {
            if vcf.as_ref().is_none_or(|v| plies < v.1) {
                return Some(Forced::ThreatWin(ThreatWin {
                    decision: Decision::Vct,
                    line,
                    plies,
                }));
            }
        }
    }
    vcf.map(|(line, plies)| {
        Forced::ThreatWin(ThreatWin {
            decision: Decision::Vcf,
            line,
            plies,
        })
    })
}

/// The root moves, best first: our fives, else the answers to the opponent's winning
/// threats, else every legal move, without the excluded ones. When no answer is left (lost, but the
/// opponent may not know it) every legal move is searched; when every candidate is
/// excluded, every other legal point of the board; only when every legal point is
/// excluded is the exclusion ignored. Empty only when there is no legal move at all.
pub(super) fn root_moves(board: &mut Board, us: Color, excluded: &PosSet) -> Vec<ScoredMove> {
    let mut root = Vec::new();
    let fives = *board.threat_points(us, ThreatGroup::Five);
    root.extend(fives.iter().map(|p| ScoredMove {
        pos: p,
        score: move_value(board, p, us),
    }));
    root.retain(|m| !excluded.contains(m.pos));
    if root.is_empty() && fives.is_empty() && board.five_count(us.opposite()) == 0 {
        if let Some(d) = board.defence(us) {
            root = d
                .moves
                .iter()
                .map(|p| ScoredMove {
                    pos: p,
                    score: move_value(board, p, us),
                })
                .collect();
        }
    }
    root.retain(|m| !excluded.contains(m.pos));
    if root.is_empty() {
        legal_moves(board, us, &mut root);
        let mut allowed: Vec<ScoredMove> = root.iter().copied().filter(|m| !excluded.contains(m.pos)).collect();
        if allowed.is_empty() {
            // Every candidate is excluded (a YXBLOCK round the stones, or of the centre
            // on an empty board): any other legal point, before an excluded one.
            let renju_black = board.rule().has_forbidden() && us == Color::Black;
            let empties = *board.empty_points();
            for p in empties.iter() {
                if !(excluded.contains(p) || renju_black && board.is_forbidden(p)) {
                    let score = move_value(board, p, us);
                    allowed.push(ScoredMove { pos: p, score });
                }
            }
        }
        if !allowed.is_empty() {
            root = allowed;
        }
    }
    sort_moves(&mut root);
    root
}

/// If the opponent would have a VCT were it their move, keep only the root moves after
/// which they have none (unless none is left: then every move stays, and the search
/// picks the most stubborn). Moves not checked in time stay too; the stop flag ends the
/// check at once.
pub(super) fn drop_moves_that_allow_a_vct(ctx: &mut Context, root: &mut Vec<ScoredMove>, plan: &TimePlan) {
    let us = ctx.root_side;
    let them = us.opposite();
    let (proof, nodes) = find_vct(
        &mut ctx.board,
        them,
        plan.vct_filter(),
        ROOT_VCT_MOVES,
        VctPurpose::Threat,
    );
    ctx.stats.nodes += nodes;
    if !matches!(proof, Proof::Win(_)) {
        return;
    }
    let deadline = plan.vct_filter_deadline();
    let mut safe = Vec::with_capacity(root.len());
    for (i, m) in root.iter().enumerate() {
        if deadline.is_some_and(|d| Instant::now() >= d) || plan.stopped() {
            safe.extend_from_slice(&root[i..]);
            break;
        }
        ctx.board.make(m.pos, us);
        let (proof, nodes) = find_vct(
            &mut ctx.board,
            them,
            plan.vct_filter_move(),
            ROOT_VCT_MOVES,
            VctPurpose::Threat,
        );
        let loses = matches!(proof, Proof::Win(_));
        ctx.stats.nodes += nodes;
        ctx.board.undo();
        if !loses {
            safe.push(*m);
        }
    }
    ctx.stats.vct_filtered += (root.len() - safe.len()) as u64;
    if !safe.is_empty() {
        *root = safe;
    }
}
