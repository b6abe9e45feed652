//! The main search: principal-variation alpha-beta over a staged move picker, with a
//! transposition table, quick wins and forced replies read from the board, pruning and
//! reductions (each named in `params`), and a VCF quiescence search at the leaves.
//!
//! Mate scores come only from the board: a five made, a five that cannot be stopped, a
//! win the board proves (`Board::quick_win`), or a position in which every answer the
//! board lists against an open four or a real four-three was searched and lost (every
//! other move loses by force: see `game::tactics`). Forced moves cost no depth: the
//! block of a five is searched at the same depth.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::eval::{Evaluator, Weights};
use crate::game::geometry::related;
use crate::game::zobrist::Zobrist;
use crate::game::{Board, Color, Pos, Threat};
use crate::nnue::{NetEvaluator, Network, SCORE_PER_LOGIT};
use crate::score::{is_decisive, loss_in, win_in, INFINITY, WIN_THRESHOLD};

use super::history::History;
use super::movepick::{attack_class, move_value, sort_moves, MovePicker, ScoredMove};
use super::params::*;
use super::time::Budget;
use super::tt::{Bound, TranspositionTable};

/// Counters reported by analysis output: where the search spent and saved its work.
#[derive(Clone, Copy, Default, Debug)]
pub struct SearchStats {
    pub nodes: u64,
    pub qnodes: u64,
    pub tt_hits: u64,
    pub tt_cutoffs: u64,
    pub beta_cutoffs: u64,
    pub first_move_cutoffs: u64,
    pub lmr_reductions: u64,
    pub lmr_researches: u64,
    pub futility_prunes: u64,
    pub move_count_prunes: u64,
    /// Root moves dropped because they leave the opponent a VCT.
    pub vct_filtered: u64,
    pub forced_replies: u64,
    pub defend_nodes: u64,
    pub quick_wins: u64,
    pub max_ply: u32,
}

/// The threat signature of the position for `us` to move (the key of the evaluation's
/// correction): per side, how many points make a three, a four, a blocked three and a two,
/// each counted up to 3.
#[inline]
fn threat_signature(board: &Board, us: Color) -> usize {
    let side = |c: Color| {
        let n = |ts: &[Threat]| {
            ts.iter()
                .map(|&t| board.threat_count(c, t) as usize)
                .sum::<usize>()
                .min(3)
        };
        n(&[Threat::Three, Threat::ThreePlus, Threat::DoubleThree])
            | n(&[Threat::Four, Threat::FourPlus]) << 2
            | n(&[Threat::BlockedThree, Threat::BlockedThreePlus]) << 4
            | n(&[Threat::Two, Threat::DoubleTwo]) << 6
    };
    side(us) | side(us.opposite()) << 8
}

/// Is a move tactical (reduced less, move-count pruned later)? Ours a three, or a double
/// two that prepares one (the quiet first move of many threat sequences), or a block of
/// the opponent's three; `attack` and `block` are the move's threat classes for the mover
/// and the opponent. Inside the tree every answer to a threat is tactical too.
#[inline]
pub(super) fn is_tactical(attack: Threat, block: Threat) -> bool {
    attack >= Threat::DoubleTwo || block >= Threat::Three
}

/// Nodes between two looks at the stop flag and the clock. Few: a node is usually well
/// under a microsecond, but the first writes to a new table's pages are page faults that
/// the kernel answers by zeroing the page (about 1.6 ms per 2 MiB page here), so 1024
/// slow nodes in a row kept a stop waiting 0.4 s. A look costs about 25 ns.
const STOP_POLL_NODES: u64 = 64;
/// Nodes between two looks at the node limit: node-limited searches stop where they
/// always did (a multiple of this).
const NODE_LIMIT_POLL_NODES: u64 = 1024;

/// What the late-move reduction of a move depends on besides its depth.
#[derive(Clone, Copy, Debug)]
pub struct LateMove {
    /// The move's place in its node's order, from 1.
    pub move_count: usize,
    pub pv_node: bool,
    /// An expected cut-node.
    pub cut_node: bool,
    /// The static evaluation is above that of two plies before.
    pub improving: bool,
    /// A three, double two, block of a three or an answer to a threat (`is_tactical`).
    pub tactical: bool,
    /// A killer, the counter move or a three after our own three.
    pub special: bool,
}

/// When a search must stop: the stop flag, the clock and the node limit.
pub struct Control<'a> {
    pub stop: &'a AtomicBool,
    pub start: Instant,
    pub budget: Option<Budget>,
    pub max_nodes: u64,
}

/// What a search reads and the lazy SMP helpers share with the main thread: the table,
/// the evaluation (the tables' weights, and the network where one is loaded for the
/// rule) and the tunables.
#[derive(Clone, Copy)]
pub struct Shared<'a> {
    pub tt: &'a TranspositionTable,
    pub weights: &'a Weights,
    pub net: Option<&'a Arc<Network>>,
    /// What the network does: the static evaluation, the move order, or both.
    pub net_use: NetUse,
    pub tunables: &'a Tunables,
}

/// What the network is used for (`INFO nnue_use`: off, value, policy, both, gated,
/// gated-both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetUse {
    pub value: bool,
    pub policy: bool,
    /// The value only where the tables' value lies within `NET_GATE_MARGIN` of the
    /// window (Rapfi's gate): elsewhere the tables decide alone.
    pub gated: bool,
}

impl Default for NetUse {
    /// Gated: behind the gate the embedded network beats the tables on 15x15 at 0.2 s
    /// (+124.8 ± 62.6 Elo) and at 1 s a move (+84.6 ± 51.2); as the whole evaluation it
    /// halves the nodes/s (docs/experiments/nnue.md). Without a network: the tables.
    fn default() -> NetUse {
        NetUse::parse("gated").expect("a use")
    }
}

impl NetUse {
    pub const OFF: NetUse = NetUse {
        value: false,
        policy: false,
        gated: false,
    };

    pub const VALUE: NetUse = NetUse {
        value: true,
        policy: false,
        gated: false,
    };

    /// Neither value nor policy.
    pub fn is_off(self) -> bool {
        !self.value && !self.policy
    }

    /// `off`, `value`, `policy`, `both`, `gated` or `gated-both`.
    pub fn parse(s: &str) -> Option<NetUse> {
        match s {
            "off" => Some(NetUse::OFF),
            "value" => Some(NetUse::VALUE),
            "policy" => Some(NetUse {
                value: false,
                policy: true,
                gated: false,
            }),
            "both" => Some(NetUse {
                value: true,
                policy: true,
                gated: false,
            }),
            "gated" => Some(NetUse {
                value: true,
                policy: false,
                gated: true,
            }),
            "gated-both" => Some(NetUse {
                value: true,
                policy: true,
                gated: true,
            }),
            _ => None,
        }
    }
}

/// The static evaluation bound to one search's board: the pattern tables, or the
/// network (its value on the search's scale, `SCORE_PER_LOGIT` points a logit).
enum StaticEval {
    Tables(Evaluator),
    Net(Box<NetEvaluator>),
    /// The network where the tables' value is near the window, the tables elsewhere.
    Gated(Evaluator, Box<NetEvaluator>, TablesOffset),
}

/// What the tables' value gains for the side to move on this board over a 15x15 one (the
/// network's reference board): each empty point adds a little to the side to move (0.8
/// a point), so on 20x20 the tables score every position about 135 higher than on 15x15,
/// where the network sees every board as 15x15. Behind the gate the two values are mixed,
/// so the tables' is brought to the network's scale.
#[derive(Clone, Copy)]
struct TablesOffset(i32);

impl TablesOffset {
    fn new(board: &Board, weights: &Weights) -> TablesOffset {
        let empty_value = |w: usize, h: usize| {
            let empty = Board::new(w, h, board.rule());
            Evaluator::new(&empty, weights).evaluate(&empty, Color::Black)
        };
        let reference = crate::nnue::REFERENCE_SIDE;
        if (board.width(), board.height()) == (reference, reference) {
            return TablesOffset(0);
        }
        TablesOffset(empty_value(board.width(), board.height()) - empty_value(reference, reference))
    }
}

/// Where the picker's move policy comes from: no network, one of its own (the tables
/// evaluate), or the static evaluation's network (one evaluator for value and policy).
enum PolicyNet {
    Off,
    Own(Box<NetEvaluator>),
    Shared,
}

impl PolicyNet {
    /// The network evaluator whose policy orders the moves, if any.
    #[inline]
    fn get<'b>(&'b mut self, evaluator: &'b mut StaticEval) -> Option<&'b mut NetEvaluator> {
        match (self, evaluator) {
            (PolicyNet::Own(net), _) | (PolicyNet::Shared, StaticEval::Net(net) | StaticEval::Gated(_, net, _)) => {
                Some(net)
            }
            _ => None,
        }
    }
}

impl StaticEval {
    /// The static value for `us`, for a node searched with the window `alpha..beta`.
    #[inline]
    fn evaluate(&mut self, board: &Board, us: Color, alpha: i32, beta: i32) -> i32 {
        match self {
            StaticEval::Tables(e) => e.evaluate(board, us),
            StaticEval::Net(net) => net.evaluate(board, us, SCORE_PER_LOGIT),
            StaticEval::Gated(tables, net, offset) => {
                let t = tables.evaluate(board, us) - offset.0;
                if t.saturating_add(NET_GATE_MARGIN) < alpha || t.saturating_sub(NET_GATE_MARGIN) > beta {
                    t
                } else {
                    net.evaluate(board, us, SCORE_PER_LOGIT)
                }
            }
        }
    }
}

pub struct Context<'a> {
    pub board: Board,
    /// The static evaluation, bound to this search's board.
    evaluator: StaticEval,
    /// The search's tunable numbers (the constants of `params` unless a tuning run set
    /// others).
    tun: Tunables,
    pub tt: &'a TranspositionTable,
    pub history: &'a mut History,
    control: Control<'a>,
    pub aborted: bool,
    pub root_side: Color,
    pub stats: SearchStats,
    /// The state of each ply of the current line (`stack[0]` is the root).
    stack: Vec<Ply>,
    /// The network whose policy joins the move order, if one is used so.
    policy: PolicyNet,
}

/// The search's state at one ply of the current line, as Rapfi's `SearchStack`.
struct Ply {
    /// The principal variation found from this ply: `pv[ply..pv_len]` (a triangular PV
    /// table, one row a ply).
    pv: [Pos; MAX_PLY],
    pv_len: usize,
    /// The corrected static evaluation (`NO_EVAL` at forced nodes and quiescence), for
    /// the "improving" flag.
    static_eval: i32,
    /// Quiet moves that caused a cut-off at this ply in this search.
    killers: [Pos; 2],
    /// The move buffer of this ply's picker (kept, so that no node allocates).
    moves: Vec<ScoredMove>,
}

impl Ply {
    fn new() -> Ply {
        Ply {
            pv: [Pos::NONE; MAX_PLY],
            pv_len: 0,
            static_eval: NO_EVAL,
            killers: [Pos::NONE; 2],
            moves: Vec::with_capacity(256),
        }
    }

    /// A quiet move caused a cut-off here.
    fn add_killer(&mut self, m: Pos) {
        if self.killers[0] != m {
            self.killers[1] = self.killers[0];
            self.killers[0] = m;
        }
    }
}

/// Stands for "no static evaluation at this ply".
const NO_EVAL: i32 = i32::MIN;

/// The table key of a position: its stones' hash and the side to move.
#[inline]
fn table_key(stones_hash: u64, to_move: Color) -> u64 {
    if to_move == Color::White {
        stones_hash ^ Zobrist::get().white_to_move
    } else {
        stones_hash
    }
}

impl<'a> Context<'a> {
    pub fn new(
        board: Board,
        root_side: Color,
        shared: Shared<'a>,
        history: &'a mut History,
        control: Control<'a>,
    ) -> Context<'a> {
        let net = shared.net.filter(|net| net.rule == board.rule());
        let (evaluator, policy) = match net {
            Some(net) if shared.net_use.value => (
                if shared.net_use.gated {
                    StaticEval::Gated(
                        Evaluator::new(&board, shared.weights),
                        Box::new(NetEvaluator::new(&board, Arc::clone(net))),
                        TablesOffset::new(&board, shared.weights),
                    )
                } else {
                    StaticEval::Net(Box::new(NetEvaluator::new(&board, Arc::clone(net))))
                },
                if shared.net_use.policy {
                    PolicyNet::Shared
                } else {
                    PolicyNet::Off
                },
            ),
            Some(net) if shared.net_use.policy => (
                StaticEval::Tables(Evaluator::new(&board, shared.weights)),
                PolicyNet::Own(Box::new(NetEvaluator::new(&board, Arc::clone(net)))),
            ),
            _ => (
                StaticEval::Tables(Evaluator::new(&board, shared.weights)),
                PolicyNet::Off,
            ),
        };
        Context {
            evaluator,
            board,
            tun: *shared.tunables,
            tt: shared.tt,
            history,
            control,
            aborted: false,
            root_side,
            stats: SearchStats::default(),
            stack: (0..MAX_PLY).map(|_| Ply::new()).collect(),
            policy,
        }
    }

    /// The search's tunable numbers.
    pub fn tunables(&self) -> &Tunables {
        &self.tun
    }

    /// The side to move at `ply` (the root is ply 0).
    #[inline]
    pub fn side(&self, ply: i32) -> Color {
        if ply % 2 == 0 {
            self.root_side
        } else {
            self.root_side.opposite()
        }
    }

    #[inline]
    fn key(&self, us: Color) -> u64 {
        table_key(self.board.hash(), us)
    }

    /// Play `m` for `us`. The table bucket of the new position is fetched into the cache
    /// first: the child probes it next, and `make` takes long enough to hide the wait.
    #[inline]
    pub(super) fn make(&mut self, m: Pos, us: Color) {
        let child = self.board.hash() ^ Zobrist::get().stone(us, m);
        self.tt.prefetch(table_key(child, us.opposite()));
        self.board.make(m, us);
    }

    /// When the move began (time budgets count from it).
    pub fn start(&self) -> Instant {
        self.control.start
    }

    pub fn elapsed_ms(&self) -> u64 {
        self.control.start.elapsed().as_millis() as u64
    }

    /// Abort at `budget.hard` (counted from the start) from now on.
    pub fn set_budget(&mut self, budget: Option<Budget>) {
        self.control.budget = budget;
    }

    pub fn elapsed(&self) -> std::time::Duration {
        self.control.start.elapsed()
    }

    /// Count a node; every `STOP_POLL_NODES` nodes look at the stop flag and the clock,
    /// every `NODE_LIMIT_POLL_NODES` at the node limit.
    #[inline]
    fn tick(&mut self) -> bool {
        self.stats.nodes += 1;
        let nodes = self.stats.nodes;
        if nodes.is_multiple_of(STOP_POLL_NODES) {
            let c = &self.control;
            let over_nodes = c.max_nodes > 0 && nodes.is_multiple_of(NODE_LIMIT_POLL_NODES) && nodes >= c.max_nodes;
            if c.stop.load(Ordering::Relaxed) || over_nodes || c.budget.is_some_and(|b| c.start.elapsed() >= b.hard) {
                self.aborted = true;
            }
        }
        self.aborted
    }

    pub fn pv(&self) -> &[Pos] {
        &self.stack[0].pv[..self.stack[0].pv_len]
    }

    /// `m` is the best move at `ply`: its line is `m` and the line found after it.
    pub fn update_pv(&mut self, ply: usize, m: Pos) {
        let child_len = if ply + 1 < MAX_PLY {
            self.stack[ply + 1].pv_len.max(ply + 1)
        } else {
            ply + 1
        };
        let (here, below) = self.stack.split_at_mut(ply + 1);
        let row = &mut here[ply];
        row.pv[ply] = m;
        if let Some(child) = below.first() {
            row.pv[ply + 1..child_len].copy_from_slice(&child.pv[ply + 1..child_len]);
        }
        row.pv_len = child_len;
    }

    /// The forcing facts of a node, in the order every node looks at them: our five, the
    /// opponent's five (to block), a win the board proves. `Err(score)` ends the node.
    fn forcing(&mut self, us: Color, ply: i32) -> Result<Option<Pos>, i32> {
        let them = us.opposite();
        if self.board.five_count(us) > 0 {
            return Err(win_in(ply + 1));
        }
        match self.board.five_count(them) {
            0 => {}
            1 => {
                let block = self.board.five_point(them).expect("counted five point");
                if !self.board.is_legal(block, us) {
                    return Err(loss_in(ply + 2)); // renju: black's only block is forbidden
                }
                return Ok(Some(block));
            }
            _ => return Err(loss_in(ply + 2)),
        }
        if let Some((plies, _)) = self.board.quick_win(us) {
            self.stats.quick_wins += 1;
            return Err(win_in(ply + plies));
        }
        Ok(None)
    }

    /// The alpha-beta search of the current position to `depth` (in `ONE_PLY` units), side
    /// to move from `ply`. `PV`: a node on the principal variation, searched with a full
    /// window; every other node searches a null window. `cut_node`: a non-PV node
    /// expected to fail high (the first child of an all-node, or a reduced or null-window
    /// child); at a PV node it is set only on the child of a forced block (step 2).
    ///
    /// The steps are numbered as in Rapfi's and Stockfish's searches; each names what was
    /// measured for it (SPRTs at 0.2 s a move, 15×15 freestyle, against the search before;
    /// the record is in `docs/experiments/`).
    pub fn negamax<const PV: bool>(&mut self, depth: i32, mut alpha: i32, beta: i32, ply: i32, cut_node: bool) -> i32 {
        debug_assert!(alpha < beta, "an empty window {alpha}..{beta}");
        debug_assert!(
            PV || alpha + 1 == beta,
            "a non-PV node has a null window, not {alpha}..{beta}"
        );
        let plyu = ply as usize;
        self.stack[plyu].pv_len = plyu;
        self.stack[plyu].static_eval = NO_EVAL;

        // Step 1. Count the node; now and then look at the stop flag, clock and node limit.
        if self.tick() {
            return 0;
        }
        self.stats.max_ply = self.stats.max_ply.max(ply as u32);
        let us = self.side(ply);

        // Step 2. The forcing facts: our five wins, a win the board proves (open four,
        // real four-three) is scored as proven, the opponent's five must be blocked. The
        // block is the only move and costs no depth (in the first search, 299ff1b). Its
        // child keeps the node type and flips `cut_node`, so the child of a PV node's
        // block is a PV node marked cut: its late moves are reduced by `lmr_cut_node` as
        // well as less by `lmr_pv_node`, about as off the PV. A plain PV child there lost:
        // −19.6 ± 18.1 Elo, 1,046 games at 100,000 nodes a move, seed 851, H0 (2026-12-02).
        match self.forcing(us, ply) {
            Err(score) => return score,
            Ok(Some(block)) => {
                self.stats.forced_replies += 1;
                if plyu + 1 >= MAX_PLY {
                    return self.evaluator.evaluate(&self.board, us, alpha, beta);
                }
                self.make(block, us);
                let score = -self.negamax::<PV>(depth, -beta, -alpha, ply + 1, !cut_node);
                self.board.undo();
                self.update_pv(plyu, block);
                return score;
            }
            Ok(None) => {}
        }
        if self.board.is_full() {
            return 0;
        }
        if plyu + 2 >= MAX_PLY {
            return self.evaluator.evaluate(&self.board, us, alpha, beta);
        }

        // Step 3. The horizon. An opponent's open three or four-three with up to
        // `HORIZON_DEFENCES` answers is searched at depth 0 (no depth spent for
        // `FEW_DEFENCES` or fewer), so that the attacker gets a VCF look after every
        // answer and an attack whose last quiet threat falls on the horizon is seen; every
        // other node stands pat in the VCF quiescence search. Up to 3 answers +54.4 ± 39.6
        // (277 games, 520f883); up to 8 +38.6 ± 31.4 (443 games, seed 95, 3c1fc4d).
        let mut horizon_defence = None;
        if depth <= 0 {
            match self.board.defence(us) {
                Some(d) if d.moves.len() <= HORIZON_DEFENCES && plyu < MAX_PLY / 2 => horizon_defence = Some(d),
                _ => return self.quiescence(alpha, beta, ply, 0),
            }
        }
        let depth = depth.max(0);

        // Step 4. Mate-distance pruning: no line from here is shorter than a win now.
        let alpha0 = alpha.max(loss_in(ply));
        let beta = beta.min(win_in(ply + 1));
        if alpha0 >= beta {
            return alpha0;
        }
        alpha = alpha0;

        // Step 5. The transposition table: its move, and off the PV a cut-off by a deep
        // enough entry whose bound decides.
        let key = self.key(us);
        let tt_hit = self.tt.probe(key, ply);
        let mut tt_move = Pos::NONE;
        let raw_eval;
        if let Some(hit) = tt_hit {
            self.stats.tt_hits += 1;
            tt_move = hit.best;
            if !PV && hit.depth >= depth {
                let cut = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => hit.score >= beta,
                    Bound::Upper => hit.score <= alpha,
                };
                if cut {
                    self.stats.tt_cutoffs += 1;
                    return hit.score;
                }
            }
            raw_eval = hit.eval;
        } else {
            raw_eval = self.evaluator.evaluate(&self.board, us, alpha, beta);
        }

        // Step 6. The static evaluation, corrected by what this game's searches of
        // positions with the same threat signature found it to miss (the table keeps the
        // raw one): +33.9 ± 27.1 (575 games, seed 175, a84e0b7).
        let signature = threat_signature(&self.board, us);
        let static_eval = raw_eval + self.history.correction(us, signature);
        self.stack[plyu].static_eval = static_eval;
        // Is our position better than two plies ago (a reason to prune less)?
        let improving = plyu >= 2 && {
            let before = self.stack[plyu - 2].static_eval;
            before != NO_EVAL && static_eval > before
        };
        // The pruning below trusts a searched score over the static one when its bound
        // says the true value lies beyond the evaluation (as Stockfish and PentaZen; with
        // counter-four pruning, step 11b, +38.2 ± 30.2, 484 games).
        let prune_eval = match tt_hit {
            Some(h) if !is_decisive(h.score) => match h.bound {
                Bound::Lower if h.score > static_eval => h.score,
                Bound::Upper if h.score < static_eval => h.score,
                Bound::Exact => h.score,
                _ => static_eval,
            },
            _ => static_eval,
        };

        // Step 7. A threat to answer: against an open four or a real four-three only the
        // board's answers are moves (`game::tactics`); none left is a proven loss.
        let them = us.opposite();
        let defence = if depth > 0 {
            self.board.defence(us)
        } else {
            horizon_defence
        };
        if let Some(d) = &defence {
            self.stats.defend_nodes += 1;
            if d.moves.is_empty() {
                // No answer stops the open four or four-three, and we have no four.
                return loss_in(ply + d.loss_plies);
            }
        }

        // Step 8. Static-evaluation pruning of the node (reverse futility): at a shallow
        // non-PV node far above beta, with nothing of the opponent's to answer, the side
        // to move keeps its advantage. +146 Elo by the game count (103 games, 502d1b9).
        if !PV && defence.is_none() && !is_decisive(beta) {
            if let Some(margin) = self.tun.static_eval_margin(depth, improving) {
                if prune_eval - margin >= beta {
                    self.stats.futility_prunes += 1;
                    return prune_eval;
                }
            }
        }

        // Step 9. Internal iterative reduction: a node the table knows nothing about is
        // likely ordered badly and is searched one ply shallower (the next iteration finds
        // its TT move). With move-count pruning of threes +34.7 ± 27.6 (553 games, d8d5d5e).
        let depth = if tt_move.is_none() && defence.is_none() && depth >= IIR_MIN_DEPTH * ONE_PLY {
            depth - ONE_PLY
        } else {
            depth
        };

        // Step 10. Extension and fail-high reduction. A defence with few answers is
        // nearly forced: like the block of a four, it costs no depth (bounded by the ply
        // limit; 4 answers instead of 3 lost, −39.0 ± 46.0). A cut-node far above beta
        // will most likely fail high with any reasonable move, so its non-four moves get
        // a ply less (Rapfi's `failHighMargin`; with the continued attack of step 11d
        // +58.2 ± 41.0, 259 games, seed 122, f88fd43).
        let answers = defence.as_ref().map(|d| d.moves.len()).unwrap_or(usize::MAX);
        let extension = ONE_PLY * i32::from(answers <= FEW_DEFENCES && plyu < MAX_PLY / 2);
        let new_depth = depth - ONE_PLY + extension;
        let likely_fail_high = !PV && cut_node && defence.is_none() && !is_decisive(beta) && {
            let opponent_four = self.board.count_at_least(them, Threat::Four) > 0;
            prune_eval >= beta + self.tun.fail_high_margin(depth, opponent_four)
        };

        // Step 11. The moves, from the staged picker (`movepick`).
        // A continued attack: our last move was a three or better, so a new three of ours
        // builds on it.
        let attacking = self
            .own_last_move()
            .is_some_and(|p| attack_class(&self.board, p, us) >= Threat::Three);
        let killers = self.stack[plyu].killers;
        let previous = self.board.last_move().map_or(Pos::NONE, |m| m.0);
        let counter = if previous.is_none() {
            Pos::NONE
        } else {
            self.history.counter(us, previous)
        };
        // Move-count pruning's limits: quiet moves from `quiet_limit` on, and from
        // `prune_all_from` on every move of at most a four.
        let (quiet_limit, prune_all_from) = self.tun.late_move_limits(depth / ONE_PLY);
        let buffer = std::mem::take(&mut self.stack[plyu].moves);
        let mut picker = MovePicker::new(
            us,
            tt_move,
            [killers[0], killers[1], counter],
            defence.as_ref().map(|d| &d.moves),
            buffer,
            if defence.is_some() { usize::MAX } else { prune_all_from },
        );
        let mut best = -INFINITY;
        let mut best_move = Pos::NONE;
        let mut quiets_tried: arrayvec::ArrayVec<Pos, 64> = arrayvec::ArrayVec::new();
        let mut move_count = 0usize;
        let use_policy = depth >= POLICY_MIN_DEPTH * ONE_PLY;
        while let Some(m) = picker.next(
            &mut self.board,
            self.history,
            if use_policy {
                self.policy.get(&mut self.evaluator)
            } else {
                None
            },
        ) {
            let i = move_count;
            move_count += 1;
            let attack = attack_class(&self.board, m, us);
            let block = self.board.threat(m, them);
            let tactical = is_tactical(attack, block) || defence.is_some();
            // Step 11a. Move-count pruning: at shallow nodes, PV nodes too (as Rapfi and
            // PentaZen), once a move that does not lose is known, late moves are not tried
            // at all; tactical moves and plain fours only after `LATE_TACTICAL_FACTOR`
            // times as many; richer fours and answers to a threat never. At PV nodes too
            // +47.9 ± 35.2 (358 games); plain fours +77.4 ± 50.7 (178 games, seed 85).
            if defence.is_none()
                && attack <= Threat::Four
                && best > -WIN_THRESHOLD
                && i >= if tactical { prune_all_from } else { quiet_limit }
            {
                // Once the attacks are given, every move still to come is one this rule
                // prunes as well: stop taking them (same tree, 7.9 % faster, 51ea883).
                if picker.attacks_done() && i >= prune_all_from {
                    self.stats.move_count_prunes += 1 + picker.remaining() as u64;
                    break;
                }
                self.stats.move_count_prunes += 1;
                continue;
            }
            // Step 11b. Counter-four pruning: at a defence node our fours that do not block
            // only delay the threat; once a move that does not lose is known, those beyond
            // the move-count limit are not tried (a four-three is, as it may win first). No
            // mate score rests on it: the node already has a move that does not lose.
            if defence.as_ref().is_some_and(|d| !d.blocks.contains(m))
                && best > -WIN_THRESHOLD
                && attack < Threat::FourThree
                && i >= quiet_limit
            {
                self.stats.move_count_prunes += 1;
                continue;
            }
            // Step 11c. Futility: near the leaves, quiet moves cannot lift a hopeless score
            // (in the first search, 299ff1b; to depth 4 or for blocks too: not kept).
            if !PV && i > 0 && !tactical && !is_decisive(alpha) && best > -WIN_THRESHOLD {
                if let Some(margin) = self.tun.futility_margin_at(depth) {
                    if prune_eval + margin <= alpha {
                        self.stats.futility_prunes += 1;
                        continue;
                    }
                }
            }
            let new_depth = new_depth - ONE_PLY * i32::from(likely_fail_high && attack < Threat::Four);
            // Step 11d. Late-move reduction, from the move's threat classes before it is made
            // (as at the root): +73.6 ± 45.1 (230 games, b59cca1); fractional, kept on a
            // non-regression test (seed 139, 64fed97); more where not improving, off the
            // PV, 1,293 games +13.7 ± 17.9 (seeds 235-237).
            let special = m == killers[0] || m == killers[1] || m == counter || (attacking && attack >= Threat::Three);
            let late = LateMove {
                move_count,
                pv_node: PV,
                cut_node,
                improving,
                tactical,
                special,
            };
            let reduction = self.reduction(m, us, new_depth, late);
            // Step 11e. The child search (PVS).
            self.make(m, us);
            let score = self.search_child::<PV>(i == 0, new_depth, reduction, alpha, beta, ply + 1, cut_node);
            self.board.undo();
            if self.aborted {
                self.stack[plyu].moves = picker.into_buffer();
                return 0;
            }
            if score > best {
                best = score;
                best_move = m;
                if score > alpha {
                    alpha = score;
                    if PV {
                        self.update_pv(plyu, m);
                    }
                    if alpha >= beta {
                        self.stats.beta_cutoffs += 1;
                        if i == 0 {
                            self.stats.first_move_cutoffs += 1;
                        }
                        if attack < Threat::Four {
                            self.stack[plyu].add_killer(m);
                            self.history.on_cutoff(us, m, previous, &quiets_tried, depth);
                        }
                        break;
                    }
                }
            }
            if attack < Threat::Four && !quiets_tried.is_full() {
                quiets_tried.push(m);
            }
        }
        self.stack[plyu].moves = picker.into_buffer();

        // Step 12. The result: its bound, what it teaches the correction, the table entry.
        if move_count == 0 {
            return 0; // no legal move (renju: every point forbidden): nothing to win or lose
        }
        if let Some(d) = &defence {
            // Every move outside the answers loses too, perhaps later than the best answer.
            best = best.max(loss_in(ply + d.loss_plies));
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if PV && best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // Teach the correction what this search found, where its bound says something
        // about the evaluation (a fail-low above it or a fail-high below it does not).
        if defence.is_none()
            && !best_move.is_none()
            && self.board.threat(best_move, us) < Threat::Four
            && !is_decisive(best)
            && !(bound == Bound::Lower && best <= static_eval)
            && !(bound == Bound::Upper && best >= static_eval)
        {
            self.history.update_correction(us, signature, best - static_eval, depth);
        }
        self.tt.store(key, ply, best_move, best, raw_eval, depth, bound);
        best
    }

    /// The score of the move just made, the first of its node (`first`) or a later one,
    /// for a node of type `PV` with window `alpha..beta` whose child searches at
    /// `new_depth` less `reduction` from `child_ply` (PVS, as at the root). The first move
    /// gets the node's window, and a PV node's first child is a PV node. A later move gets
    /// a null window at the reduced depth as an expected cut-node; if it beats alpha
    /// reduced, again at full depth, as a cut-node unless this node is one (the child of
    /// an expected cut-node is an expected all-node); at a PV node, a move inside the
    /// window once more with the full window, as a PV node.
    #[allow(clippy::too_many_arguments)]
    pub fn search_child<const PV: bool>(
        &mut self,
        first: bool,
        new_depth: i32,
        reduction: i32,
        alpha: i32,
        beta: i32,
        child_ply: i32,
        cut_node: bool,
    ) -> i32 {
        if first {
            return -self.negamax::<PV>(new_depth, -beta, -alpha, child_ply, !PV && !cut_node);
        }
        if reduction > 0 {
            self.stats.lmr_reductions += 1;
        }
        let mut score = -self.negamax::<false>(new_depth - reduction, -alpha - 1, -alpha, child_ply, true);
        if score > alpha && reduction > 0 && !self.aborted {
            self.stats.lmr_researches += 1;
            score = -self.negamax::<false>(new_depth, -alpha - 1, -alpha, child_ply, !cut_node);
        }
        if PV && score > alpha && score < beta && !self.aborted {
            score = -self.negamax::<true>(new_depth, -beta, -alpha, child_ply, false);
        }
        score
    }

    /// Late-move reduction, in `ONE_PLY` units (to the quarter ply), of the move `m` (not
    /// yet made) described by `late`; `new_depth` is the child's depth without reduction.
    /// Every move but fours (their reply is forced) is reduced: less for tactical moves
    /// (threes, double twos, blocks of threes), special moves (killers, the counter move,
    /// a three after our own three) and at PV nodes; more at expected cut-nodes and, off
    /// the PV, where the position is not improving.
    pub fn reduction(&self, m: Pos, us: Color, new_depth: i32, late: LateMove) -> i32 {
        let depth = new_depth + ONE_PLY;
        if depth < LMR_MIN_DEPTH * ONE_PLY
            || late.move_count <= LMR_MIN_MOVES + 2 * usize::from(late.pv_node)
            || self.board.threat(m, us) >= Threat::Four
        {
            return 0;
        }
        let t = &self.tun;
        let mut r = t.late_move_reduction(depth / ONE_PLY, late.move_count);
        // A position that is no better than two plies ago is less likely to hold a move
        // that lifts it above alpha (as Stockfish and Rapfi).
        if !late.pv_node && !late.improving && r > ONE_PLY {
            r += t.lmr_not_improving;
        }
        if late.cut_node {
            r += t.lmr_cut_node;
        }
        if late.pv_node {
            r -= t.lmr_pv_node;
        }
        if late.tactical {
            r -= t.lmr_tactical;
        }
        if late.special {
            r -= t.lmr_special;
        }
        r.clamp(0, (new_depth - ONE_PLY).max(0))
    }

    /// The side to move's previous stone (two plies back).
    fn own_last_move(&self) -> Option<Pos> {
        let moves = self.board.moves();
        moves.len().checked_sub(2).map(|i| moves[i].0)
    }

    /// The quiescence search: a VCF search for the side to move. Stand pat on the
    /// evaluation, or make a four (the reply is forced) and look again. Results are kept
    /// in the transposition table at depth 0.
    pub fn quiescence(&mut self, mut alpha: i32, beta: i32, ply: i32, fours: i32) -> i32 {
        let plyu = ply as usize;
        self.stack[plyu].pv_len = plyu;
        if self.tick() {
            return 0;
        }
        self.stats.qnodes += 1;
        self.stats.max_ply = self.stats.max_ply.max(ply as u32);
        let us = self.side(ply);
        match self.forcing(us, ply) {
            Err(score) => return score,
            Ok(Some(block)) => {
                if plyu + 1 >= MAX_PLY {
                    return self.evaluator.evaluate(&self.board, us, alpha, beta);
                }
                self.make(block, us);
                let score = -self.quiescence(-beta, -alpha, ply + 1, fours);
                self.board.undo();
                return score;
            }
            Ok(None) => {}
        }
        let key = self.key(us);
        let hit = self.tt.probe(key, ply);
        if let Some(h) = hit {
            let cut = match h.bound {
                Bound::Exact => true,
                Bound::Lower => h.score >= beta,
                Bound::Upper => h.score <= alpha,
            };
            if cut && h.depth >= 0 {
                return h.score;
            }
        }
        let raw_stand = match hit {
            Some(h) => h.eval,
            None => self.evaluator.evaluate(&self.board, us, alpha, beta),
        };
        let stand = raw_stand + self.history.correction(us, threat_signature(&self.board, us));
        if stand >= beta || fours >= QUIESCENCE_MAX_FOURS || plyu + 2 >= MAX_PLY {
            return stand;
        }
        alpha = alpha.max(stand);
        if self.board.count_at_least(us, Threat::Four) == 0 && self.board.threat_count(us, Threat::Forbidden) == 0 {
            return stand;
        }
        // After the first four, continue only near our previous four (a VCF builds on
        // its own stones), except for fours that make a four-three.
        let anchor = if fours > 0 { self.own_last_move() } else { None };
        let mut moves = std::mem::take(&mut self.stack[plyu].moves);
        moves.clear();
        for p in self.board.legal_fours(us).iter() {
            let t = self.board.threat(p, us);
            // Deep in the sequence a plain four must also make something.
            let rich = fours < QUIESCENCE_PLAIN_FOURS || t >= Threat::FourPlus || t == Threat::Forbidden;
            if t >= Threat::FourThree || (rich && anchor.is_none_or(|a| related(a, p))) {
                moves.push(ScoredMove {
                    pos: p,
                    score: move_value(&self.board, p, us),
                });
            }
        }
        sort_moves(&mut moves);
        let mut best = stand;
        let mut best_move = Pos::NONE;
        for m in moves.iter() {
            self.make(m.pos, us);
            let score = -self.quiescence(-beta, -alpha, ply + 1, fours + 1);
            self.board.undo();
            if self.aborted {
                self.stack[plyu].moves = moves;
                return 0;
            }
            if score > best {
                best = score;
                best_move = m.pos;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.stack[plyu].moves = moves;
        // Standing pat makes every quiescence value a bound, never exact.
        let bound = if best >= beta { Bound::Lower } else { Bound::Upper };
        self.tt.store(key, ply, best_move, best, raw_stand, 0, bound);
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rule;
    use crate::tools::positions::board_from_stones;

    /// A search with no time or node limit, stopped only by `stop`.
    fn unlimited(stop: &AtomicBool) -> Control<'_> {
        Control {
            stop,
            start: Instant::now(),
            budget: None,
            max_nodes: 0,
        }
    }

    #[test]
    fn a_network_of_the_game_s_rule_is_the_static_evaluation() {
        // A network whose value is a logit of 1 for black to move and -1/2 for white,
        // whatever the position: 300 and -150 on the search's scale. A network of
        // another rule is not used (the tables' score differs).
        let board = board_from_stones(Rule::Freestyle, 15, "b:h8 w:i9 b:j8").unwrap();
        let mut net = Network::zero(Rule::Freestyle);
        net.heads[0].out_bias = crate::nnue::LOGIT_ONE as i16;
        net.heads[1].out_bias = -(crate::nnue::LOGIT_ONE as i16) / 2;
        let tt = TranspositionTable::new(1 << 16);
        let weights = Weights::default();
        let mut history = History::default();
        let stop = AtomicBool::new(false);
        for (rule, expected) in [(Rule::Freestyle, Some([300, -150])), (Rule::Standard, None)] {
            let net = Arc::new(Network { rule, ..net.clone() });
            let shared = Shared {
                tt: &tt,
                weights: &weights,
                net: Some(&net),
                net_use: NetUse::VALUE,
                tunables: &Tunables::DEFAULT,
            };
            let control = unlimited(&stop);
            let mut ctx = Context::new(board.clone(), Color::White, shared, &mut history, control);
            let scores =
                [Color::Black, Color::White].map(|c| ctx.evaluator.evaluate(&ctx.board, c, -INFINITY, INFINITY));
            match expected {
                Some(e) => assert_eq!(scores, e),
                None => assert!(matches!(ctx.evaluator, StaticEval::Tables(_))),
            }
        }
    }

    #[test]
    fn behind_the_gate_the_tables_score_a_larger_board_as_15x15() {
        // The same stones far from every edge on 15x15 and on 20x20: the tables alone
        // score 20x20 higher for the side to move; behind the gate, where the window is
        // far from their value and the tables decide, they score both alike.
        let stones = "b:h8 w:i9 b:j8 w:h10 b:g9";
        let tt = TranspositionTable::new(1 << 16);
        let weights = Weights::default();
        let net = Arc::new(Network::zero(Rule::Freestyle));
        let stop = AtomicBool::new(false);
        let value = |size: usize, net_use: NetUse| {
            let board = board_from_stones(Rule::Freestyle, size, stones).unwrap();
            let mut history = History::default();
            let shared = Shared {
                tt: &tt,
                weights: &weights,
                net: Some(&net),
                net_use,
                tunables: &Tunables::DEFAULT,
            };
            let control = unlimited(&stop);
            let mut ctx = Context::new(board, Color::White, shared, &mut history, control);
            let far = WIN_THRESHOLD / 2;
            ctx.evaluator.evaluate(&ctx.board, Color::White, far, far + 1)
        };
        let tables = [15, 20].map(|size| value(size, NetUse::OFF));
        assert!(tables[1] - tables[0] > 100, "the tables alone: {tables:?}");
        let gated = NetUse::parse("gated").unwrap();
        let behind_gate = [15, 20].map(|size| value(size, gated));
        assert_eq!(behind_gate[0], tables[0]);
        assert!(
            (behind_gate[1] - behind_gate[0]).abs() <= 10,
            "behind the gate: {behind_gate:?}"
        );
    }

    /// The score of `negamax` at `depth` for `us`, from a fresh context.
    fn negamax_score(board: &Board, us: Color, depth: i32) -> i32 {
        let tt = TranspositionTable::new(1 << 20);
        let weights = Weights::default();
        let mut history = History::default();
        let stop = AtomicBool::new(false);
        let control = unlimited(&stop);
        let shared = Shared {
            tt: &tt,
            weights: &weights,
            net: None,
            net_use: NetUse::VALUE,
            tunables: &Tunables::DEFAULT,
        };
        let mut ctx = Context::new(board.clone(), us, shared, &mut history, control);
        ctx.negamax::<true>(depth, -INFINITY, INFINITY, 0, false)
    }

    /// White's open three h8-j8 has two answers, g8 and k8; after either, the other end
    /// makes a four and a column three (g9 g10 or k9 k10): a four-three. Black, to move
    /// with nothing of its own, is lost.
    const LOST_TO_AN_OPEN_THREE: &str = "w:h8 w:i8 w:j8 w:g9 w:g10 w:k9 w:k10 b:a1 b:a6 b:a11 b:f1 b:f15 b:o1 b:o15";

    #[test]
    fn a_threat_at_the_horizon_is_answered_and_the_win_behind_it_seen() {
        // Even a depth-0 search must see the loss.
        let stones = LOST_TO_AN_OPEN_THREE;
        let board = board_from_stones(Rule::Freestyle, 15, stones).unwrap();
        for depth in [0, 1, 2] {
            let score = negamax_score(&board, Color::Black, depth);
            assert!(score <= -WIN_THRESHOLD, "depth {depth}: {score}");
        }
        // Without the three (j8 moved away) nothing is lost.
        let quiet = stones.replace("w:j8", "w:n4");
        let board = board_from_stones(Rule::Freestyle, 15, &quiet).unwrap();
        assert!(negamax_score(&board, Color::Black, 0) > -WIN_THRESHOLD);
    }

    #[test]
    fn counter_fours_do_not_hide_a_threat_at_the_horizon() {
        // `LOST_TO_AN_OPEN_THREE`, and Black has two blocked threes at the edge (c13-c15,
        // n13-n15): four counter-fours besides the blocks g8 and k8, six answers in all.
        // Each counter-four only delays, so Black is still lost, and a depth-0 search must
        // not stand pat on it.
        let stones = format!("{LOST_TO_AN_OPEN_THREE} b:c13 b:c14 b:c15 b:n13 b:n14 b:n15");
        let mut board = board_from_stones(Rule::Freestyle, 15, &stones).unwrap();
        let answers = board.defence(Color::Black).expect("White threatens to win").moves.len();
        assert!(
            answers > FEW_DEFENCES && answers <= HORIZON_DEFENCES,
            "{answers} answers"
        );
        for depth in [0, 1] {
            let score = negamax_score(&board, Color::Black, depth);
            assert!(score <= -WIN_THRESHOLD, "depth {depth}: {score}");
        }
    }
}
