//! The searcher: iterative deepening over the alpha-beta search, with quick exits for
//! forced positions (a five to make, a five to block, a VCF to play, a single legal move).
//!
//! The searcher knows nothing of the protocol: it takes a board, the side to move and
//! limits, reports each finished iteration through a callback and returns its choice.

pub mod alphabeta;
pub mod dfpn;
pub mod history;
pub mod movepick;
pub mod score;
pub mod swap2;
pub mod threats;
pub mod time;
pub mod tt;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::eval::Weights;
use crate::game::{Board, Color, Pos, PosSet, Threat};

use alphabeta::{Context, Control, SearchStats};
use history::History;
use movepick::{find_five_point, generate, generate_all, has_strong_threat, sort_moves, ScoredMove};
use score::{is_decisive, loss_in, win_in, INFINITY, WIN};
use threats::{Effort, Proof, VcfSolver, VctSolver};
use time::Budget;
use tt::TranspositionTable;

pub const DEFAULT_MAX_DEPTH: i32 = 64;

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Thinking time; `None` means only depth/node limits apply.
    pub budget: Option<Budget>,
    /// Deepest iteration (`INFO max_depth`).
    pub max_depth: i32,
    /// Node limit, 0 = none (`INFO max_node`).
    pub max_nodes: u64,
    /// Root moves not to choose (Yixin-Board's YXBLOCK, the earlier picks of YXNBEST).
    /// Ignored when every legal move is excluded.
    pub excluded: PosSet,
}

impl Limits {
    pub fn depth(depth: i32) -> Limits {
        Limits {
            budget: None,
            max_depth: depth,
            max_nodes: 0,
            excluded: PosSet::default(),
        }
    }
}

/// One finished iteration, for `MESSAGE` lines and analysis.
pub struct IterationInfo<'a> {
    pub depth: i32,
    pub seldepth: u32,
    pub score: i32,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub best: Pos,
    pub pv: &'a [Pos],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// We complete a five.
    WinNow,
    /// The opponent threatens a five: the block is the only move.
    ForcedBlock,
    /// A VCF was proven before the main search.
    Vcf,
    /// A VCT was proven before the main search.
    Vct,
    /// Only one legal move (or one defence).
    OnlyMove,
    /// The result of the iterative deepening search.
    Search,
}

#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Pos,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub pv: Vec<Pos>,
    pub decision: Decision,
    pub stats: SearchStats,
    /// Root moves with their last known score (exact for the best one only).
    pub root_moves: Vec<(Pos, i32)>,
}

pub struct Searcher {
    tt: TranspositionTable,
    history: History,
    /// Evaluation weights (the defaults unless a tuning run set others).
    pub weights: Weights,
    /// Search threads (`INFO thread_num`); 1 keeps node counts deterministic.
    pub threads: usize,
}

impl Searcher {
    pub fn new(tt_bytes: usize) -> Searcher {
        Searcher {
            tt: TranspositionTable::new(tt_bytes),
            history: History::default(),
            weights: Weights::default(),
            threads: 1,
        }
    }

    pub fn tt_bytes(&self) -> usize {
        self.tt.size_bytes()
    }

    pub fn resize_tt(&mut self, bytes: usize) {
        if bytes != self.tt.size_bytes() {
            self.tt = TranspositionTable::new(bytes);
        }
    }

    /// Forget everything learned (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.history.clear();
    }

    /// Choose a move for `us` on `board`. `start` is when the command arrived; time
    /// budgets count from it.
    pub fn search(
        &mut self,
        board: &Board,
        us: Color,
        limits: &Limits,
        stop: &AtomicBool,
        start: Instant,
        report: &mut dyn FnMut(&IterationInfo),
    ) -> SearchResult {
        self.tt.new_search();
        self.history.age();
        let control = Control {
            stop,
            start,
            budget: limits.budget,
            max_nodes: limits.max_nodes,
        };
        let mut ctx = Context::new(board.clone(), us, (&self.tt, &self.weights), &mut self.history, control);
        // The quick answers may pick any move; with excluded moves everything is searched.
        if limits.excluded.is_empty() {
            if let Some(r) = forced_answer(&mut ctx, limits, start) {
                return r;
            }
        }
        let mut root = root_moves(&mut ctx.board, us, &limits.excluded);
        if root.len() > 1 {
            drop_moves_that_allow_a_vct(&mut ctx, &mut root, limits, start);
        }
        if root.len() == 1 {
            return quick(root[0].pos, 0, Decision::OnlyMove, &ctx);
        }

        let threads = self.threads.max(1);
        if threads == 1 {
            let it = iterate(&mut ctx, &mut root, limits, report);
            return it.into_result(&ctx, &root);
        }
        // Lazy SMP: helper threads search the same root with their own history, sharing
        // the transposition table; the main thread's result is the answer.
        let helpers_stop = AtomicBool::new(false);
        let (tt, weights) = (&self.tt, &self.weights);
        let (it, helper_nodes) = std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for _ in 1..threads {
                let (board, mut helper_root, stop_ref) = (ctx.board.clone(), root.clone(), &helpers_stop);
                let helper_limits = Limits {
                    max_nodes: 0,
                    ..*limits
                };
                let work = move || {
                    let mut history = History::default();
                    let control = Control {
                        stop: stop_ref,
                        start,
                        budget: helper_limits.budget,
                        max_nodes: 0,
                    };
                    let mut helper = Context::new(board, us, (tt, weights), &mut history, control);
                    iterate(&mut helper, &mut helper_root, &helper_limits, &mut |_| {});
                    helper.stats.nodes
                };
                match std::thread::Builder::new()
                    .stack_size(64 << 20)
                    .spawn_scoped(scope, work)
                {
                    Ok(h) => handles.push(h),
                    Err(e) => log::warn!("cannot start a search helper: {e}"),
                }
            }
            let it = iterate(&mut ctx, &mut root, limits, report);
            helpers_stop.store(true, std::sync::atomic::Ordering::Relaxed);
            let helper_nodes: u64 = handles.into_iter().map(|h| h.join().unwrap_or(0)).sum();
            (it, helper_nodes)
        });
        let mut result = it.into_result(&ctx, &root);
        result.nodes += helper_nodes;
        result
    }
}

impl Searcher {
    /// The `n` best moves (YXNBEST): one search per rank, each excluding the moves ranked
    /// before it and taking an equal share of the time; `on_rank` hears each rank as it is
    /// found. Fewer ranks when the legal moves run out or the stop flag is raised. Returns
    /// the first.
    #[allow(clippy::too_many_arguments)]
    pub fn search_ranked(
        &mut self,
        board: &Board,
        us: Color,
        limits: &Limits,
        stop: &AtomicBool,
        n: usize,
        report: &mut dyn FnMut(&IterationInfo),
        on_rank: &mut dyn FnMut(usize, &SearchResult),
    ) -> SearchResult {
        let mut part = *limits;
        part.budget = limits.budget.map(|b| b.split(n as u32));
        let mut first: Option<SearchResult> = None;
        for rank in 1..=n.max(1) {
            let r = self.search(board, us, &part, stop, Instant::now(), report);
            if rank > 1 && part.excluded.contains(r.best) {
                break; // every legal move is ranked already
            }
            on_rank(rank, &r);
            part.excluded.insert(r.best);
            first.get_or_insert(r);
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
        }
        first.expect("the first rank is always searched")
    }
}

/// What iterative deepening found.
struct Iterated {
    best: Pos,
    score: i32,
    depth: i32,
    pv: Vec<Pos>,
    root_scores: Vec<i32>,
}

impl Iterated {
    fn into_result(self, ctx: &Context, root: &[ScoredMove]) -> SearchResult {
        SearchResult {
            best: self.best,
            score: self.score,
            depth: self.depth,
            nodes: ctx.stats.nodes,
            elapsed_ms: ctx.elapsed_ms(),
            pv: self.pv,
            decision: Decision::Search,
            stats: ctx.stats,
            root_moves: root.iter().zip(&self.root_scores).map(|(m, &s)| (m.pos, s)).collect(),
        }
    }
}

/// Iterative deepening over the root moves until a limit, a proven result or the soft
/// time ends it.
fn iterate(
    ctx: &mut Context,
    root: &mut [ScoredMove],
    limits: &Limits,
    report: &mut dyn FnMut(&IterationInfo),
) -> Iterated {
    let mut best = root[0].pos;
    let mut best_score = -INFINITY;
    let mut best_depth = 0;
    let mut pv: Vec<Pos> = vec![best];
    let mut root_scores: Vec<i32> = vec![-INFINITY; root.len()];
    for depth in 1..=limits.max_depth.max(1) {
        let (score, completed, improved) = search_root_with_aspiration(ctx, root, &mut root_scores, depth, best_score);
        if completed {
            best = root[0].pos;
            best_score = score;
            best_depth = depth;
            pv = ctx.pv().to_vec();
            if pv.first() != Some(&best) {
                pv = vec![best];
            }
            report(&IterationInfo {
                depth,
                seldepth: ctx.stats.max_ply,
                score,
                nodes: ctx.stats.nodes,
                elapsed_ms: ctx.elapsed_ms(),
                best,
                pv: &pv,
            });
        } else if ctx.aborted {
            // A move that beat the first move in this unfinished iteration is better.
            if improved && root[0].pos != best {
                best = root[0].pos;
                best_score = root_scores[0];
                pv = vec![best];
            }
            break;
        }
        if ctx.aborted {
            break;
        }
        if is_decisive(best_score) && WIN - best_score.abs() <= depth {
            break; // proven within the horizon: deeper search cannot change it
        }
        if let Some(b) = limits.budget {
            if ctx.elapsed() >= b.soft {
                break;
            }
        }
    }
    Iterated {
        best,
        score: best_score,
        depth: best_depth,
        pv,
        root_scores,
    }
}

/// Nodes the up-front VCF check may spend: a small share of what the move allows.
fn vcf_budget(limits: &Limits) -> u64 {
    let by_time = match limits.budget {
        Some(b) => (b.soft.as_millis() as u64).saturating_mul(100).clamp(2_000, 400_000),
        None => 200_000,
    };
    if limits.max_nodes > 0 {
        by_time.min(limits.max_nodes / 4 + 1)
    } else {
        by_time
    }
}

/// Attacker moves in the root VCT checks.
const VCT_MOVES: u32 = 10;

/// A VCT of at most `VCT_MOVES` attacker moves for `attacker`, and the nodes spent. The
/// iterative-deepening solver, not the proof-number one: with small budgets it finds the
/// short wins sooner, and in self-play at 1 s/move the proof-number root checks lost
/// (-43 ± 48 Elo over 200 games).
fn find_vct(board: &mut Board, attacker: Color, effort: Effort) -> (Proof, u64) {
    let mut solver = VctSolver::new(board, attacker, effort);
    let proof = solver.solve(VCT_MOVES);
    (proof, solver.effort.nodes)
}

/// Nodes for one root threat check, `share` eighths of the soft time at ~40 nodes/ms.
fn threat_budget(limits: &Limits, share: u32) -> u64 {
    let by_time = match limits.budget {
        Some(b) => (b.soft.as_millis() as u64 * 40 * share as u64 / 8).clamp(500, 100_000),
        None => 20_000,
    };
    if limits.max_nodes > 0 {
        by_time.min(limits.max_nodes / 8 + 1)
    } else {
        by_time
    }
}

/// If the opponent would have a VCT were it their move, keep only the root moves after
/// which they have none (unless none is left: then every move stays, and the search
/// picks the most stubborn). Moves not checked in time stay too.
fn drop_moves_that_allow_a_vct(ctx: &mut Context, root: &mut Vec<ScoredMove>, limits: &Limits, start: Instant) {
    let us = ctx.root_side;
    let them = us.opposite();
    let stop = ctx.stop_flag();
    let deadline = limits.budget.map(|b| start + b.soft * 3 / 8);
    let (proof, nodes) = find_vct(
        &mut ctx.board,
        them,
        Effort::new(threat_budget(limits, 1), Some(stop), deadline),
    );
    ctx.stats.nodes += nodes;
    if !matches!(proof, Proof::Win(_)) {
        return;
    }
    let per_move = threat_budget(limits, 1) / 4 + 200;
    let mut safe = Vec::with_capacity(root.len());
    for (i, m) in root.iter().enumerate() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            safe.extend_from_slice(&root[i..]);
            break;
        }
        ctx.board.make(m.pos, us);
        let (proof, nodes) = find_vct(&mut ctx.board, them, Effort::new(per_move, Some(stop), deadline));
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

/// A result decided without the main search.
fn quick(best: Pos, score: i32, decision: Decision, ctx: &Context) -> SearchResult {
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

/// The answers that need no search: our five, the block of the opponent's five, a VCF,
/// a short VCT.
fn forced_answer(ctx: &mut Context, limits: &Limits, start: Instant) -> Option<SearchResult> {
    let us = ctx.root_side;
    let them = us.opposite();
    if ctx.board.threat_count(us, Threat::Five) > 0 {
        let five = find_five_point(&ctx.board, us).expect("counted five point");
        return Some(quick(five, win_in(1), Decision::WinNow, ctx));
    }
    let opponent_fives = ctx.board.threat_count(them, Threat::Five);
    if opponent_fives > 0 {
        // The block is the only move (with two five points, one of them; lost anyway).
        let block = find_five_point(&ctx.board, them).expect("counted five point");
        let score = if opponent_fives >= 2 { loss_in(2) } else { 0 };
        if ctx.board.is_legal(block, us) {
            return Some(quick(block, score, Decision::ForcedBlock, ctx));
        }
        // Renju: black's only block is forbidden. Lost; play the most useful legal move.
        let mut moves = Vec::new();
        generate_all(&mut ctx.board, us, &mut moves);
        sort_moves(&mut moves);
        let fallback = moves
            .first()
            .map_or_else(|| legal_fallback(&mut ctx.board, us)[0].pos, |m| m.pos);
        return Some(quick(fallback, loss_in(2), Decision::ForcedBlock, ctx));
    }

    // A small share of the move: a quick VCF beats any search.
    let stop = ctx.stop_flag();
    let deadline = limits.budget.map(|b| start + b.soft / 4);
    let mut solver = VcfSolver::new(
        &mut ctx.board,
        us,
        Effort::new(vcf_budget(limits), Some(stop), deadline),
    );
    let proof = solver.solve(128);
    ctx.stats.nodes += solver.effort.nodes;
    if let Proof::Win(line) = proof {
        let mut r = quick(line[0], win_in(line.len() as i32), Decision::Vcf, ctx);
        r.pv = line;
        return Some(r);
    }
    // Then a short VCT (threes and fours), unless the opponent already threatens.
    if !has_strong_threat(&ctx.board, them) {
        let deadline = limits.budget.map(|b| start + b.soft / 8);
        let (proof, nodes) = find_vct(
            &mut ctx.board,
            us,
            Effort::new(threat_budget(limits, 1), Some(stop), deadline),
        );
        ctx.stats.nodes += nodes;
        if let Proof::Win(line) = proof {
            let mut r = quick(line[0], win_in(line.len() as i32), Decision::Vct, ctx);
            r.pv = line;
            return Some(r);
        }
    }
    None
}

/// The root moves, best first: our moves (only defences and fours when the opponent
/// threatens to win), without the excluded ones. With no defence left (lost, but the
/// opponent may not know it) every move is searched; if every legal move is excluded,
/// the exclusion is ignored.
fn root_moves(board: &mut Board, us: Color, excluded: &PosSet) -> Vec<ScoredMove> {
    let mut root = Vec::new();
    generate(board, us, &mut root);
    root.retain(|m| !excluded.contains(m.pos));
    if root.is_empty() {
        generate_all(board, us, &mut root);
        root.retain(|m| !excluded.contains(m.pos));
    }
    if root.is_empty() {
        root = legal_fallback(board, us);
        let allowed: Vec<ScoredMove> = root.iter().copied().filter(|m| !excluded.contains(m.pos)).collect();
        if !allowed.is_empty() {
            root = allowed;
        }
    }
    sort_moves(&mut root);
    root
}

/// Every legal move, unscored (for hopeless positions).
fn legal_fallback(board: &mut Board, us: Color) -> Vec<ScoredMove> {
    let mut out = Vec::new();
    let points: Vec<Pos> = board.empty_points().iter().collect();
    for p in points {
        if board.is_legal(p, us) {
            out.push(ScoredMove { pos: p, score: 0 });
        }
    }
    out
}

/// Iterative-deepening step with an aspiration window around the previous score.
/// Returns (score, completed, improved): `improved` when a move other than the first
/// raised alpha (it is then at the front of `root`, even if the iteration was cut short).
fn search_root_with_aspiration(
    ctx: &mut Context,
    root: &mut [ScoredMove],
    root_scores: &mut [i32],
    depth: i32,
    previous: i32,
) -> (i32, bool, bool) {
    let mut delta = 40;
    let (mut alpha, mut beta) = if depth >= 4 && !is_decisive(previous) && previous > -INFINITY {
        (previous - delta, previous + delta)
    } else {
        (-INFINITY, INFINITY)
    };
    loop {
        let (score, improved) = search_root(ctx, root, root_scores, depth, alpha, beta);
        if ctx.aborted {
            return (score, false, improved);
        }
        if score <= alpha && alpha > -INFINITY {
            alpha = (alpha - delta).max(-INFINITY);
        } else if score >= beta && beta < INFINITY {
            beta = (beta + delta).min(INFINITY);
        } else {
            return (score, true, improved);
        }
        delta *= 3;
        if delta > 2000 {
            alpha = -INFINITY;
            beta = INFINITY;
        }
    }
}

/// One root iteration (PVS). The last move that raised alpha moves to the front of
/// `root`; returns (best score, whether a move other than the first raised alpha).
fn search_root(
    ctx: &mut Context,
    root: &mut [ScoredMove],
    root_scores: &mut [i32],
    depth: i32,
    mut alpha: i32,
    beta: i32,
) -> (i32, bool) {
    let us = ctx.root_side;
    let mut best = -INFINITY;
    let mut raised: Option<usize> = None;
    for s in root_scores.iter_mut() {
        *s = -INFINITY;
    }
    for i in 0..root.len() {
        let m = root[i].pos;
        ctx.board.make(m, us);
        let mut score;
        if i == 0 {
            score = -ctx.negamax(depth - 1, -beta, -alpha, 1, true);
        } else {
            score = -ctx.negamax(depth - 1, -alpha - 1, -alpha, 1, false);
            if score > alpha && score < beta && !ctx.aborted {
                score = -ctx.negamax(depth - 1, -beta, -alpha, 1, true);
            }
        }
        ctx.board.undo();
        if ctx.aborted {
            break;
        }
        root_scores[i] = score;
        best = best.max(score);
        if score > alpha {
            alpha = score;
            raised = Some(i);
            ctx.update_pv(0, m);
            if alpha >= beta {
                break;
            }
        }
    }
    // Best move first, the others keep their order (a stable, total order).
    if let Some(i) = raised {
        root[..=i].rotate_right(1);
        root_scores[..=i].rotate_right(1);
    }
    (best, raised.is_some_and(|i| i > 0))
}
