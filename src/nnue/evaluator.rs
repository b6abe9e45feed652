//! The network bound to one search: every cell's accumulator for the position it was
//! last brought to, caught up lazily when a node is evaluated.
//!
//! Each cell's accumulator is the bias plus one table row per input: its four line
//! shapes and, while it is empty, its pair of threat classes. The evaluator keeps the
//! inputs each accumulator holds. To evaluate another position of the search it finds
//! the moves the two have in common; a stone played or taken back since can change only
//! the shape of the cells on its four lines within `REACH` in that line's direction, and
//! the threat pair of the cells on them within the rule's pattern reach (and everything
//! of its own cell). Only those inputs are read again, and an input that changed costs
//! one row out and one in (Stockfish's and Rapfi's incremental update); the board sum of
//! the features is corrected by the changed cells' difference. A make followed by its
//! undo, and the threat solvers' probes, cost nothing.

use std::sync::Arc;

use crate::game::geometry::{DIRS, GRID, WALL};
use crate::game::{Board, Color, Pos};

use super::shape::{board_shape, board_threat_pair, REACH};
#[cfg(target_arch = "x86_64")]
use super::simd::Avx2Ops;
use super::simd::{Kernel, Ops, ScalarOps};
use super::{Network, Row, CHANNELS, LOGIT_ONE, QA, QW};

/// A cell's inputs: its shape ids in the four directions, then its threat pair.
type Inputs = [u16; 5];
/// The index of the threat pair in `Inputs`.
const THREAT_INPUT: usize = 4;
/// No input (the threat pair of an occupied cell).
const NO_INPUT: u16 = u16::MAX;
/// A cell's mark in a catch-up: one bit per input to read again.
const ALL_INPUTS: u8 = 0b1_1111;

pub struct NetEvaluator {
    net: Arc<Network>,
    kernel: Kernel,
    /// `acc[cell]` for the on-board cells that are not blocked.
    acc: Vec<Row>,
    /// `inputs[cell]`: the table rows `acc[cell]` holds.
    inputs: Vec<Inputs>,
    /// The sum over those cells of their features.
    sum: [i32; CHANNELS],
    cells: i32,
    /// How far a stone changes other cells' threat classes: the rule's pattern reach
    /// (`PatternTables::reach`), at least the shapes' `REACH`.
    reach: isize,
    /// The moves of the position the accumulators hold.
    synced: Vec<(Pos, Color)>,
    /// The inputs to read again in the catch-up under way (`marks[cell]`, valid while
    /// `stamps[cell] == epoch`).
    marks: Vec<u8>,
    stamps: Vec<u32>,
    epoch: u32,
    touched: Vec<Pos>,
}

impl NetEvaluator {
    pub fn new(board: &Board, net: Arc<Network>) -> NetEvaluator {
        NetEvaluator::with_kernel(board, net, Kernel::detect())
    }

    /// `new` with the arithmetic of `kernel` (the tests compare them).
    pub fn with_kernel(board: &Board, net: Arc<Network>, kernel: Kernel) -> NetEvaluator {
        let reach = board.tables().reach().max(REACH) as isize;
        let mut e = NetEvaluator {
            net,
            kernel,
            acc: vec![[0; CHANNELS]; GRID],
            inputs: vec![[NO_INPUT; 5]; GRID],
            sum: [0; CHANNELS],
            cells: 0,
            reach,
            synced: board.moves().to_vec(),
            marks: vec![0; GRID],
            stamps: vec![0; GRID],
            epoch: 0,
            touched: Vec::with_capacity(256),
        };
        // Every cell starts as the bias with no inputs, marked to read them all.
        e.epoch = 1;
        let bias_features = {
            let mut f = [0; CHANNELS];
            super::simd::scalar::feature_delta(&mut f, &[0; CHANNELS], &e.net.bias);
            f
        };
        for p in board.points().filter(|&p| board.cell_code(p) != WALL) {
            e.acc[p.index()] = e.net.bias;
            for (s, f) in e.sum.iter_mut().zip(bias_features) {
                *s += f;
            }
            e.cells += 1;
            e.mark(board, p, ALL_INPUTS);
        }
        e.update_marked(board);
        e
    }

    /// The table row of input `i` (a direction's shape, or the threat pair) with id `id`.
    #[inline]
    fn row(&self, i: usize, id: u16) -> &Row {
        if i == THREAT_INPUT {
            &self.net.threats[id as usize]
        } else {
            &self.net.shapes[id as usize]
        }
    }

    /// Mark input bits `bits` of cell `q` to be read again.
    #[inline]
    fn mark(&mut self, board: &Board, q: Pos, bits: u8) {
        let i = q.index();
        if self.stamps[i] != self.epoch {
            if board.cell_code(q) == WALL {
                return;
            }
            self.stamps[i] = self.epoch;
            self.marks[i] = 0;
            self.touched.push(q);
        }
        self.marks[i] |= bits;
    }

    /// Bring the accumulators to `board`'s position.
    pub fn sync(&mut self, board: &Board) {
        let moves = board.moves();
        let common = self.synced.iter().zip(moves).take_while(|(a, b)| a == b).count();
        if common == self.synced.len() && common == moves.len() {
            return;
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamps.fill(0);
            self.epoch = 1;
        }
        self.touched.clear();
        self.mark_changes(board, common);
        self.update_marked(board);
        self.synced.truncate(common);
        self.synced.extend_from_slice(&moves[common..]);
    }

    /// Mark the inputs the moves since the last sync (from `common` on) can have changed.
    fn mark_changes(&mut self, board: &Board, common: usize) {
        let moves = board.moves();
        let stones = self.synced.len() - common + moves.len() - common;
        for j in 0..stones {
            let p = if common + j < self.synced.len() {
                self.synced[common + j].0
            } else {
                moves[common + j - (self.synced.len() - common)].0
            };
            self.mark(board, p, ALL_INPUTS);
            for (d, &step) in DIRS.iter().enumerate() {
                for k in 1..=self.reach {
                    let bits = if k <= REACH as isize {
                        1 << d | 1 << THREAT_INPUT
                    } else {
                        1 << THREAT_INPUT
                    };
                    self.mark(board, p.step(k * step), bits);
                    self.mark(board, p.step(-k * step), bits);
                }
            }
        }
    }

    /// Read the marked inputs again and bring those cells' accumulators and the features'
    /// sum up to date, with this evaluator's arithmetic.
    fn update_marked(&mut self, board: &Board) {
        match self.kernel {
            Kernel::Scalar => self.update_marked_with::<ScalarOps>(board),
            // SAFETY: `Avx2` is only chosen where the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { self.update_marked_avx2(board) },
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn update_marked_avx2(&mut self, board: &Board) {
        self.update_marked_with::<Avx2Ops>(board)
    }

    #[inline(always)]
    fn update_marked_with<O: Ops>(&mut self, board: &Board) {
        for t in 0..self.touched.len() {
            let q = self.touched[t];
            let (i, bits) = (q.index(), self.marks[q.index()]);
            let before = self.acc[i];
            let mut acc = before;
            let mut changed = false;
            for input in 0..5 {
                if bits & (1 << input) == 0 {
                    continue;
                }
                let old = self.inputs[i][input];
                let new = if input == THREAT_INPUT {
                    board_threat_pair(board, q).map_or(NO_INPUT, |id| id as u16)
                } else {
                    board_shape(board, q, input) as u16
                };
                if new == old {
                    continue;
                }
                match (old, new) {
                    (NO_INPUT, _) => O::add(&mut acc, self.row(input, new)),
                    (_, NO_INPUT) => O::replace(&mut acc, self.row(input, old), &[0; CHANNELS]),
                    _ => O::replace(&mut acc, self.row(input, old), self.row(input, new)),
                }
                self.inputs[i][input] = new;
                changed = true;
            }
            if changed {
                O::feature_delta(&mut self.sum, &before, &acc);
                self.acc[i] = acc;
            }
        }
    }

    /// The value logit for `us` to move (`LOGIT_ONE` units).
    pub fn value(&mut self, board: &Board, us: Color) -> i32 {
        self.sync(board);
        let head = self.net.head(us);
        let dot = |w: &Row| -> i64 { w.iter().zip(&self.sum).map(|(&w, &s)| w as i64 * s as i64).sum() };
        // The sum's part: LOGIT_ONE·QA per unit of weight × feature, to LOGIT_ONE.
        let mut out = head.out_bias as i64 + dot(&head.cell) / QA as i64;
        // The mean's part, through the hidden units.
        let scale = self.cells as i64 * QA as i64;
        for (j, w) in head.hidden.iter().enumerate() {
            let z = dot(w) / scale.max(1) + head.hidden_bias[j] as i64;
            out += head.out[j] as i64 * z.clamp(0, QW as i64);
        }
        out.clamp(i32::MIN as i64, i32::MAX as i64) as i32
    }

    /// The policy logit of the empty point `p` for `us` to move (any units: only their
    /// order and differences count), for the position of the last `value` or `sync`.
    pub fn policy(&mut self, board: &Board, us: Color, p: Pos) -> i32 {
        self.sync(board);
        self.policy_synced(us, p)
    }

    /// `policy` for the position of the last `sync` (the caller has synced).
    pub fn policy_synced(&self, us: Color, p: Pos) -> i32 {
        self.kernel
            .dot_features(&self.net.head(us).policy, &self.acc[p.index()])
    }

    /// The score of the value logit on the search's scale: `score_per_logit` points for a
    /// logit of 1.
    pub fn evaluate(&mut self, board: &Board, us: Color, score_per_logit: i32) -> i32 {
        let logit = self.value(board, us) as i64;
        let max = crate::score::MAX_EVAL as i64;
        (logit * score_per_logit as i64 / LOGIT_ONE as i64).clamp(-max, max) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::zobrist::splitmix64;
    use crate::game::Rule;

    /// A network of random small values.
    fn random_network(rule: Rule, seed: u64) -> Network {
        let mut rng = seed;
        let mut small = |range: u64| (splitmix64(&mut rng) % (2 * range + 1)) as i16 - range as i16;
        let mut n = Network::zero(rule);
        for row in n
            .shapes
            .iter_mut()
            .chain(n.threats.iter_mut())
            .chain(std::iter::once(&mut n.bias))
        {
            for v in row.iter_mut() {
                *v = small(90);
            }
        }
        for h in n.heads.iter_mut() {
            for row in h.hidden.iter_mut() {
                for v in row.iter_mut() {
                    *v = small(64);
                }
            }
            for v in h
                .hidden_bias
                .iter_mut()
                .chain(h.out.iter_mut())
                .chain(h.policy.iter_mut())
            {
                *v = small(64);
            }
            h.out_bias = small(500);
            for v in h.cell.iter_mut() {
                *v = small(8);
            }
        }
        n
    }

    /// Every cell's accumulator and the features' sum, the plain way: the bias plus the
    /// rows of the cell's four shapes and threat pair, read from the board.
    fn reference(board: &Board, net: &Network) -> (Vec<Row>, [i32; CHANNELS]) {
        let mut acc = vec![[0; CHANNELS]; GRID];
        let mut sum = [0; CHANNELS];
        for p in board.points().filter(|&p| board.cell_code(p) != WALL) {
            let a = &mut acc[p.index()];
            *a = net.bias;
            for d in 0..4 {
                super::super::simd::scalar::add(a, &net.shapes[board_shape(board, p, d)]);
            }
            if let Some(pair) = board_threat_pair(board, p) {
                super::super::simd::scalar::add(a, &net.threats[pair]);
            }
            for c in 0..CHANNELS {
                sum[c] += super::super::simd::scalar::feature(a[c]);
            }
        }
        (acc, sum)
    }

    #[test]
    fn the_lazy_accumulators_equal_a_full_recompute() {
        // One evaluator follows random games with undos on boards of every kind,
        // evaluating now and then; every value and policy equals that of an evaluator
        // built for the position from scratch.
        for rule in Rule::ALL {
            let net = Arc::new(random_network(rule, 7 + rule as u64));
            let mut rng = 11 + rule as u64;
            for (width, height) in [(5, 5), (15, 15), (20, 20), (32, 32), (17, 9)] {
                let mut b = Board::new(width, height, rule);
                if width == 15 {
                    b.block(Pos::new(4, 4));
                }
                // The lazy evaluator of every arithmetic path, checked against a fresh
                // one of the scalar reference.
                let mut lazies: Vec<NetEvaluator> = Kernel::available()
                    .into_iter()
                    .map(|k| NetEvaluator::with_kernel(&b, Arc::clone(&net), k))
                    .collect();
                let mut checked = 0;
                for _ in 0..200 {
                    let r = splitmix64(&mut rng);
                    if b.is_full() || (r.is_multiple_of(4) && b.stone_count() > 0) {
                        b.undo();
                    } else {
                        let pool: Vec<Pos> = b.empty_points().iter().collect();
                        let p = pool[(r >> 8) as usize % pool.len()];
                        b.make(p, b.side_to_move());
                    }
                    if (r >> 32).is_multiple_of(3) {
                        let want = reference(&b, &net);
                        let mut fresh = NetEvaluator::with_kernel(&b, Arc::clone(&net), Kernel::Scalar);
                        assert_eq!((&fresh.acc, fresh.sum), (&want.0, want.1));
                        for lazy in lazies.iter_mut() {
                            for us in [Color::Black, Color::White] {
                                assert_eq!(lazy.value(&b, us), fresh.value(&b, us), "{rule:?} {width}x{height}");
                                for p in b.empty_points().iter().take(20) {
                                    assert_eq!(lazy.policy(&b, us, p), fresh.policy(&b, us, p));
                                }
                            }
                            assert_eq!((&lazy.acc, lazy.sum), (&want.0, want.1));
                        }
                        checked += 1;
                    }
                }
                assert!(checked > 30, "{checked}");
            }
        }
    }

    #[test]
    fn a_zero_network_scores_nothing() {
        let b = Board::new(15, 15, Rule::Freestyle);
        let mut e = NetEvaluator::new(&b, Arc::new(Network::zero(Rule::Freestyle)));
        assert_eq!(e.evaluate(&b, Color::Black, 300), 0);
        assert_eq!(e.policy(&b, Color::White, Pos::new(7, 7)), 0);
    }
}
