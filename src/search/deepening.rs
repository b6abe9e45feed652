//! Iterative deepening over the root moves: aspiration windows around the last score,
//! one PVS iteration of the root per depth, and lazy SMP helpers beside it.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::game::{Color, Pos, Threat};
use crate::score::{is_decisive, win_in, INFINITY, WIN};

use super::alphabeta::{is_tactical, Context, Control, LateMove, Shared};
use super::history::History;
use super::movepick::{attack_class, ScoredMove};
use super::params::{ASPIRATION_MAX_DELTA, ASPIRATION_MIN_DEPTH, ONE_PLY};
use super::time::Stability;
use super::{Decision, IterationInfo, Limits, SearchEvent, SearchResult};

/// What an iterative deepening found.
pub(super) struct Iterated {
    pub(super) best: Pos,
    pub(super) score: i32,
    pub(super) depth: i32,
    pub(super) pv: Vec<Pos>,
    root_scores: Vec<i32>,
}

impl Iterated {
    pub(super) fn into_result(self, ctx: &Context, root: &[ScoredMove]) -> SearchResult {
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

/// The main search on `threads` threads (lazy SMP): helper threads search the same root
/// with their own board and history, sharing the transposition table; the main thread's
/// result is the answer, with every thread's nodes. A helper ends on its own soft limit,
/// unscaled, or when the main thread stops it. One thread keeps node counts
/// deterministic.
pub(super) fn search_threads(
    ctx: &mut Context,
    root: &mut [ScoredMove],
    limits: &Limits,
    previous_score: Option<i32>,
    threads: usize,
    shared: Shared,
    report: &mut dyn FnMut(SearchEvent),
) -> SearchResult {
    if threads <= 1 {
        let it = iterate(ctx, root, limits, previous_score, report);
        return it.into_result(ctx, root);
    }
    let helpers_stop = AtomicBool::new(false);
    let (us, start) = (ctx.root_side, ctx.start());
    let (it, helper_nodes) = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for _ in 1..threads {
            let (board, mut helper_root, stop_ref) = (ctx.board.clone(), root.to_vec(), &helpers_stop);
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
                let mut helper = Context::new(board, us, shared, &mut history, control);
                iterate(
                    &mut helper,
                    &mut helper_root,
                    &helper_limits,
                    previous_score,
                    &mut |_| {},
                );
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
        let it = iterate(ctx, root, limits, previous_score, report);
        helpers_stop.store(true, Ordering::Relaxed);
        let helper_nodes: u64 = handles.into_iter().map(|h| h.join().unwrap_or(0)).sum();
        (it, helper_nodes)
    });
    let mut result = it.into_result(ctx, root);
    result.nodes += helper_nodes;
    result
}

/// Iterative deepening over the root moves until a limit, a proven result or the soft
/// time (scaled by the best move's stability, see `time::Stability`) ends it.
/// `previous_score`: the score of our last searched move.
pub(super) fn iterate(
    ctx: &mut Context,
    root: &mut [ScoredMove],
    limits: &Limits,
    previous_score: Option<i32>,
    report: &mut dyn FnMut(SearchEvent),
) -> Iterated {
    let mut stability = Stability::new(previous_score);
    let mut best = root[0].pos;
    let mut best_score = -INFINITY;
    let mut best_depth = 0;
    let mut pv: Vec<Pos> = vec![best];
    let mut root_scores: Vec<i32> = vec![-INFINITY; root.len()];
    for depth in 1..=limits.max_depth.max(1) {
        let (score, completed, improved) =
            search_root_with_aspiration(ctx, root, &mut root_scores, depth, best_score, report);
        if completed {
            best = root[0].pos;
            best_score = score;
            best_depth = depth;
            pv = ctx.pv().to_vec();
            if pv.first() != Some(&best) {
                pv = vec![best];
            }
            stability.record(depth, best, score);
            report(SearchEvent::Iteration(&IterationInfo {
                depth,
                seldepth: ctx.stats.max_ply,
                score,
                nodes: ctx.stats.nodes,
                elapsed_ms: ctx.elapsed_ms(),
                best,
                pv: &pv,
            }));
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
            if ctx.elapsed() >= b.soft_scaled(stability.per_mille()) {
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

/// Iterative-deepening step with an aspiration window around the previous score.
/// Returns (score, completed, improved): `improved` when a move other than the first
/// raised alpha (it is then at the front of `root`, even if the iteration was cut short).
fn search_root_with_aspiration(
    ctx: &mut Context,
    root: &mut [ScoredMove],
    root_scores: &mut [i32],
    depth: i32,
    previous: i32,
    report: &mut dyn FnMut(SearchEvent),
) -> (i32, bool, bool) {
    let mut delta = ctx.tunables().aspiration_delta;
    let (mut alpha, mut beta) = if depth >= ASPIRATION_MIN_DEPTH && !is_decisive(previous) && previous > -INFINITY {
        (previous - delta, previous + delta)
    } else {
        (-INFINITY, INFINITY)
    };
    loop {
        let (score, improved) = search_root(ctx, root, root_scores, depth, (alpha, beta), report);
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
        if delta > ASPIRATION_MAX_DELTA {
            alpha = -INFINITY;
            beta = INFINITY;
        }
    }
}

/// One root iteration: a PV node whose moves are searched as every node's are
/// (`Context::search_child`). The last move that raised alpha moves to the front of
/// `root`; returns (best score, whether a move other than the first raised alpha).
fn search_root(
    ctx: &mut Context,
    root: &mut [ScoredMove],
    root_scores: &mut [i32],
    depth: i32,
    (mut alpha, beta): (i32, i32),
    report: &mut dyn FnMut(SearchEvent),
) -> (i32, bool) {
    let us: Color = ctx.root_side;
    let child = (depth - 1) * ONE_PLY;
    let mut best = -INFINITY;
    let mut raised: Option<usize> = None;
    for s in root_scores.iter_mut() {
        *s = -INFINITY;
    }
    for i in 0..root.len() {
        let m = root[i].pos;
        let five = ctx.board.threat(m, us) == Threat::Five;
        // A move's reduction, from its threat classes on the board before it (none for the
        // first moves and for fours: `reduction` decides).
        let attack = attack_class(&ctx.board, m, us);
        let block = ctx.board.threat(m, us.opposite());
        // The root is a PV node; `improving` has no effect there.
        let late = LateMove {
            move_count: i + 1,
            pv_node: true,
            cut_node: false,
            improving: true,
            tactical: is_tactical(attack, block),
            special: false,
        };
        let reduction = ctx.reduction(m, us, child, late);
        report(SearchEvent::RootMoveStarted {
            pos: m,
            depth,
            elapsed_ms: ctx.elapsed_ms(),
        });
        ctx.make(m, us);
        let score = if five {
            win_in(1)
        } else {
            // The root is a PV node, so its re-searches run as cut-nodes as inside the
            // tree: +9.1 +- 15.0 Elo over 1,599 games at 100,000 nodes (SPRT H1; the
            // record, reductions.md).
            ctx.search_child::<true>(i == 0, child, reduction, alpha, beta, 1, false)
        };
        ctx.board.undo();
        if ctx.aborted {
            break;
        }
        root_scores[i] = score;
        report(SearchEvent::RootMoveSearched {
            pos: m,
            depth,
            score,
            best: score > alpha,
            elapsed_ms: ctx.elapsed_ms(),
        });
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
