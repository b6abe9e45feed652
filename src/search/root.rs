//! The root: the answers that need no search, and the moves the search chooses from.
//!
//! Before iterative deepening the root looks, in this order, for: a five to make; a five
//! to block; a win the board proves (open four, real four-three); a VCF; a short VCT (when
//! the opponent has no winning threat). Then it lists the root moves (the answers the
//! board gives against an open four or four-three, else every legal move), drops the
//! excluded ones, and, when the opponent would have a VCT if it were their move, keeps
//! only the moves after which they have none. One move left: it is played, after a short
//! search for its score when the turn sets the time (`score_the_only_move`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::game::{Board, Color, Pos};
use crate::score::{loss_in, win_in};

use super::alphabeta::Context;
use super::movepick::{legal_moves, move_value, sort_moves, ScoredMove};
use super::params::{
    THREAT_MAX_NODES, THREAT_MIN_NODES, THREAT_NODES_PER_MS, THREAT_UNTIMED_NODES, VCF_MAX_NODES, VCF_MIN_NODES,
    VCF_NODES_PER_MS, VCF_UNTIMED_NODES,
};
use super::threats::{win_plies, Effort, Proof, VcfSolver, VctSolver};
use super::{Decision, Limits, SearchResult};

/// Attacker moves in the root VCT checks.
const VCT_MOVES: u32 = 10;
/// The longest VCF the root looks for, in fours.
const VCF_FOURS: u32 = 128;

/// A result decided without the main search.
pub(super) fn quick(best: Pos, score: i32, decision: Decision, ctx: &Context) -> SearchResult {
    SearchResult {
        best,
        score,
        depth: 0,
        nodes: ctx.stats.nodes,
        elapsed_ms: ctx.elapsed_ms(),
        pv: vec![best],
        decision,
        stats: ctx.stats,
        root_moves: vec![(best, score)],
    }
}

/// Nodes the up-front VCF check may spend: a small share of what the move allows.
fn vcf_budget(limits: &Limits) -> u64 {
    let by_time = match limits.budget {
        Some(b) => (b.soft.as_millis() as u64)
            .saturating_mul(VCF_NODES_PER_MS)
            .clamp(VCF_MIN_NODES, VCF_MAX_NODES),
        None => VCF_UNTIMED_NODES,
    };
    if limits.max_nodes > 0 {
        by_time.min(limits.max_nodes / 4 + 1)
    } else {
        by_time
    }
}

/// What a root VCT check is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum VctPurpose {
    /// Does the opponent threaten a win? (Any win will do.)
    Threat,
    /// A win to play: its shortest form (see `VctSolver::shortest_first`).
    Win,
    /// A win to play that is shorter than one already known: also with its first threat
    /// anywhere (see `VctSolver::first_threat_anywhere`).
    ShorterWin,
}

/// Nodes for one root threat check, `share` eighths of the soft time at
/// `THREAT_NODES_PER_MS`.
fn threat_budget(limits: &Limits, share: u32) -> u64 {
    let by_time = match limits.budget {
        Some(b) => (b.soft.as_millis() as u64 * THREAT_NODES_PER_MS * share as u64 / 8)
            .clamp(THREAT_MIN_NODES, THREAT_MAX_NODES),
        None => THREAT_UNTIMED_NODES,
    };
    if limits.max_nodes > 0 {
        by_time.min(limits.max_nodes / 8 + 1)
    } else {
        by_time
    }
}

/// A VCT of at most `max_moves` attacker moves for `attacker`, and the nodes spent. The
/// iterative-deepening solver, not the proof-number one: with small budgets it finds the
/// short wins sooner, and in self-play at 1 s/move the proof-number root checks lost
/// (-43 ± 48 Elo over 200 games).
fn find_vct(board: &mut Board, attacker: Color, effort: Effort, max_moves: u32, purpose: VctPurpose) -> (Proof, u64) {
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

/// The answers that need no search: our five, the block of the opponent's five, a win
/// the board proves, a VCF, a short VCT.
pub(super) fn forced_answer(ctx: &mut Context, limits: &Limits, start: Instant) -> Option<SearchResult> {
    let us = ctx.root_side;
    let them = us.opposite();
    if let Some(five) = ctx.board.five_point(us) {
        return Some(quick(five, win_in(1), Decision::WinNow, ctx));
    }
    let opponent_fives = ctx.board.five_count(them);
    if opponent_fives > 0 {
        // The block is the only move (with two five points, one of them; lost anyway).
        let block = ctx.board.five_point(them).expect("counted five point");
        let score = if opponent_fives >= 2 { loss_in(2) } else { 0 };
        if ctx.board.is_legal(block, us) {
            return Some(quick(block, score, Decision::ForcedBlock, ctx));
        }
        // Renju: black's only block is forbidden. Lost; play the most useful legal move.
        let mut moves = Vec::new();
        legal_moves(&mut ctx.board, us, &mut moves);
        sort_moves(&mut moves);
        let first = moves.first()?;
        return Some(quick(first.pos, loss_in(2), Decision::ForcedBlock, ctx));
    }
    if let Some((plies, p)) = ctx.board.quick_win(us) {
        return Some(quick(p, win_in(plies), Decision::Vcf, ctx));
    }

    // A small share of the move: a quick VCF beats any search.
    let stop = ctx.stop_flag();
    let deadline = limits.budget.map(|b| start + b.soft / 4);
    let mut solver = VcfSolver::new(
        &mut ctx.board,
        us,
        Effort::new(vcf_budget(limits), Some(stop), deadline),
    )
    .shortest_first();
    let proof = solver.solve(VCF_FOURS);
    ctx.stats.nodes += solver.effort.nodes;
    // Only a line that replays as a win is played as one (and its length is the mate).
    let vcf = match proof {
        Proof::Win(line) => match win_plies(&ctx.board, us, &line) {
            Ok(plies) => Some((line, plies)),
            Err(e) => {
                debug_assert!(false, "VCF line does not replay: {e} {line:?}");
                None
            }
        },
        _ => None,
    };
    // Then a short VCT (threes and fours), unless the opponent already threatens to win;
    // after a VCF only one with fewer plies (m attacker moves take at least 2m - 1), so
    // that the mate announced on the previous move is kept.
    let vct_moves = vcf.as_ref().map_or(VCT_MOVES, |v| ((v.1 - 1) / 2) as u32);
    if vct_moves > 0 && ctx.board.defence(us).is_none() && !stop.load(Ordering::Relaxed) {
        let deadline = limits.budget.map(|b| start + b.soft / 8);
        let (proof, nodes) = find_vct(
            &mut ctx.board,
            us,
            Effort::new(threat_budget(limits, 1), Some(stop), deadline),
            vct_moves,
            if vcf.is_some() {
                VctPurpose::ShorterWin
            } else {
                VctPurpose::Win
            },
        );
        ctx.stats.nodes += nodes;
        if let Proof::Win(line) = proof {
            match win_plies(&ctx.board, us, &line) {
                Ok(plies) if vcf.as_ref().is_none_or(|v| plies < v.1) => {
                    let mut r = quick(line[0], win_in(plies), Decision::Vct, ctx);
                    r.pv = line;
                    return Some(r);
                }
                Ok(_) => {}
                Err(e) => debug_assert!(false, "VCT line does not replay: {e} {line:?}"),
            }
        }
    }
    if let Some((line, plies)) = vcf {
        let mut r = quick(line[0], win_in(plies), Decision::Vcf, ctx);
        r.pv = line;
        return Some(r);
    }
    None
}

/// The root moves, best first: our fives, else the answers to the opponent's winning
/// threats, else every legal move, without the excluded ones. When no answer is left (lost, but the
/// opponent may not know it) every legal move is searched; when every legal move is
/// excluded, the exclusion is ignored. Empty only when there is no legal move at all.
pub(super) fn root_moves(board: &mut Board, us: Color, excluded: &crate::game::PosSet) -> Vec<ScoredMove> {
    let mut root = Vec::new();
    let fives = *board.threat_points(us, crate::game::ThreatGroup::Five);
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
        let allowed: Vec<ScoredMove> = root.iter().copied().filter(|m| !excluded.contains(m.pos)).collect();
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
pub(super) fn drop_moves_that_allow_a_vct(
    ctx: &mut Context,
    root: &mut Vec<ScoredMove>,
    limits: &Limits,
    start: Instant,
) {
    let us = ctx.root_side;
    let them = us.opposite();
    let stop: &AtomicBool = ctx.stop_flag();
    let deadline = limits.budget.map(|b| start + b.soft * 3 / 8);
    let (proof, nodes) = find_vct(
        &mut ctx.board,
        them,
        Effort::new(threat_budget(limits, 1), Some(stop), deadline),
        VCT_MOVES,
        VctPurpose::Threat,
    );
    ctx.stats.nodes += nodes;
    if !matches!(proof, Proof::Win(_)) {
        return;
    }
    let per_move = threat_budget(limits, 1) / 4 + 200;
    let mut safe = Vec::with_capacity(root.len());
    for (i, m) in root.iter().enumerate() {
        if deadline.is_some_and(|d| Instant::now() >= d) || stop.load(Ordering::Relaxed) {
            safe.extend_from_slice(&root[i..]);
            break;
        }
        ctx.board.make(m.pos, us);
        let (proof, nodes) = find_vct(
            &mut ctx.board,
            them,
            Effort::new(per_move, Some(stop), deadline),
            VCT_MOVES,
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
