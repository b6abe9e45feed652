//! YXBALANCEONE / YXBALANCETWO: the stone, or the pair of stones (ours, then the
//! opponent's), after which the searched score of the position is nearest a target, for
//! the side to move now (what an opening maker asks for: "balanced at 0").
//!
//! Iterative deepening over the choices, nearest first. Each choice is searched with a
//! window of the best distance so far around the target (as Rapfi's balance mode narrows
//! its root window), so a choice that cannot come nearer fails fast; only one inside the
//! window has an exact score and may become the new nearest.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::game::{Board, Color, Pos, Threat};
use crate::score::INFINITY;

use super::alphabeta::Context;
use super::movepick::{legal_moves, ScoredMove};
use super::params::{ONE_PLY, OPENING_TIE};
use super::{IterationInfo, Limits, SearchEvent, Searcher};

/// What a balance search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Balanced {
    /// One stone (ours) or two (ours, then the opponent's); empty when there is no legal
    /// choice.
    pub stones: Vec<Pos>,
    /// The searched score after them, for us.
    pub score: i32,
    /// The last depth completed.
    pub depth: i32,
}

/// One choice and how far from the target it was last found (a lower bound when its
/// search failed outside the window).
#[derive(Clone, Copy)]
struct Choice {
    stones: [Pos; 2],
    distance: i32,
    score: i32,
}

impl Searcher {
    /// An opening of three stones for an opening rule (swap2, soosorv): black in the
    /// centre, white on one of `whites`, and black's second stone where black's searched
    /// score is nearest even (never on `limits.excluded`), the time shared between the
    /// white places. One of the most even (within `OPENING_TIE`) at random, so that a
    /// match is not one game over and over. On a board too small for any, its first
    /// three points.
    pub(crate) fn balanced_opening(
        &mut self,
        board: &Board,
        whites: &[Pos],
        limits: &Limits,
        stop: &AtomicBool,
    ) -> [Pos; 3] {
        let centre = Pos::new(board.width() / 2, board.height() / 2);
        let share = limits.budget.map(|b| b.split(whites.len() as u32));
        let mut scored = Vec::new();
        for &white in whites {
            let mut b = board.clone();
            b.make(centre, Color::Black);
            b.make(white, Color::White);
            let part = Limits {
                budget: share,
                ..*limits
            };
            let found = self.search_balanced(&b, Color::Black, &part, stop, Instant::now(), 1, 0, &mut |_| {});
            if let [third] = found.stones[..] {
                scored.push((found.score.saturating_abs(), [centre, white, third]));
            }
        }
        let Some(best) = scored.iter().map(|s| s.0).min() else {
            let pts: Vec<Pos> = board.points().take(3).collect();
            return [pts[0], pts[1], pts[2]];
        };
        let even: Vec<[Pos; 3]> = scored
            .iter()
            .filter(|s| s.0 <= best.saturating_add(OPENING_TIE))
            .map(|s| s.1)
            .collect();
        // The process's random hash keys pick one: no search depends on it.
        let pick = std::collections::hash_map::RandomState::new().build_hasher().finish();
        even[(pick % even.len() as u64) as usize]
    }

    /// The `stones` (1 or 2) whose searched score is nearest `target` for `us`, within
    /// `limits` (the soft time ends the deepening, the hard time a search; excluded
    /// points are never chosen). Each finished depth is reported as an iteration.
    #[allow(clippy::too_many_arguments)]
    pub fn search_balanced(
        &mut self,
        board: &Board,
        us: Color,
        limits: &Limits,
        stop: &AtomicBool,
        start: Instant,
        stones: usize,
        target: i32,
        report: &mut dyn FnMut(SearchEvent),
    ) -> Balanced {
        let (mut ctx, _) = self.begin(board, us, limits, stop, start);
        let mut choices = choices(&mut ctx.board, us, limits, stones == 2);
        let mut found = Balanced {
            stones: Vec::new(),
            score: 0,
            depth: 0,
        };
        if choices.is_empty() {
            return found;
        }
        for depth in 1..=limits.max_depth.max(1) {
            let Some(nearest) = balance_iteration(&mut ctx, &mut choices, depth, target) else {
                break; // aborted: the last finished depth stands
            };
            let pv: Vec<Pos> = nearest.stones.iter().copied().filter(|p| !p.is_none()).collect();
            report(SearchEvent::Iteration(&IterationInfo {
                depth,
                seldepth: ctx.stats.max_ply,
                score: nearest.score,
                nodes: ctx.stats.nodes,
                elapsed_ms: ctx.elapsed_ms(),
                best: pv[0],
                pv: &pv,
            }));
            found = Balanced {
                stones: pv,
                score: nearest.score,
                depth,
            };
            if limits.budget.is_some_and(|b| ctx.elapsed() >= b.soft) {
                break;
            }
        }
        if found.stones.is_empty() {
            // Not one depth finished: the first choice, unsearched.
            found.stones = choices[0].stones.iter().copied().filter(|p| !p.is_none()).collect();
        }
        found
    }
}

/// Every choice of stones: our legal moves (every empty point on an empty board), and
/// with `pairs` each followed by every legal reply of the opponent's. No stone is an
/// excluded point, and none makes a five (the game would be over).
fn choices(board: &mut Board, us: Color, limits: &Limits, pairs: bool) -> Vec<Choice> {
    let allowed = |board: &mut Board, p: Pos, c: Color| {
        !limits.excluded.contains(p) && board.threat(p, c) != Threat::Five && board.is_legal(p, c)
    };
    let firsts: Vec<Pos> = if board.stone_count() == 0 {
        let empties = *board.empty_points();
        empties.iter().collect()
    } else {
        let mut moves = Vec::new();
        legal_moves(board, us, &mut moves);
        moves.iter().map(|m| m.pos).collect()
    };
    let mut out = Vec::new();
    let mut replies: Vec<ScoredMove> = Vec::new();
    for first in firsts {
        if !allowed(board, first, us) {
            continue;
        }
        let choice = |second| Choice {
            stones: [first, second],
            distance: INFINITY,
            score: 0,
        };
        if !pairs {
            out.push(choice(Pos::NONE));
            continue;
        }
        board.make(first, us);
        legal_moves(board, us.opposite(), &mut replies);
        for r in &replies {
            if allowed(board, r.pos, us.opposite()) {
                out.push(choice(r.pos));
            }
        }
        board.undo();
    }
    out
}

/// One depth over every choice, the nearest of the last depth first; then the choices
/// sorted by distance (stable: ties keep their order). The nearest, or `None` if the
/// search was aborted.
fn balance_iteration(ctx: &mut Context, choices: &mut [Choice], depth: i32, target: i32) -> Option<Choice> {
    let us = ctx.root_side;
    let child = (depth - 1) * ONE_PLY;
    let mut nearest: Option<usize> = None;
    let mut best = INFINITY;
    for (i, c) in choices.iter_mut().enumerate() {
        let [first, second] = c.stones;
        let (lo, hi) = ((target - best).max(-INFINITY), (target + best).min(INFINITY));
        ctx.make(first, us);
        let score = if second.is_none() {
            -ctx.negamax::<true>(child, -hi, -lo, 1, false)
        } else {
            ctx.make(second, us.opposite());
            let s = ctx.negamax::<true>(child, lo, hi, 2, false);
            ctx.board.undo();
            s
        };
        ctx.board.undo();
        if ctx.aborted {
            return None;
        }
        if score > lo && score < hi {
            c.distance = (score - target).abs();
            c.score = score;
            if c.distance < best {
                best = c.distance;
                nearest = Some(i);
            }
        } else {
            c.distance = best.saturating_add(1); // farther than the nearest: after it
        }
    }
    let nearest = choices[nearest?];
    choices.sort_by_key(|c| c.distance);
    Some(nearest)
}
