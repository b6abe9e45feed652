//! The network bound to one search: every cell's accumulator for the position it was
//! last brought to, caught up lazily when a node is evaluated.
//!
//! Each cell's accumulator is the bias plus one table row per input: its four line
//! shapes and, while it is empty, its pair of threat classes. The evaluator keeps the
//! inputs each accumulator holds. To evaluate another position of the search it finds
//! the moves the two have in common; a stone played or taken back since can change only
//! the shape of the cells on its four lines within `REACH` in that line's direction, the
//! threat pair of the cells on them within the rule's pattern reach, and everything of
//! its own cell. Those inputs are read again from the board, and one that changed costs
//! a row out and a row in (Stockfish's and Rapfi's incremental update) and corrects the
//! board sum of the features by that cell's difference. Reading an input twice (two
//! stones near each other) finds it the second time unchanged, so no cell is marked or
//! listed first. A make followed by its undo, and the threat solvers' probes, cost
//! nothing.

use std::sync::Arc;

use crate::game::geometry::{DIRS, GRID, WALL};
use crate::game::{Board, Color, Pos};

use super::shape::{board_shape, board_threat_pair, REACH};
#[cfg(all(target_arch = "x86_64", not(sente_portable)))]
use super::simd::Avx2Ops;
use super::simd::{Kernel, Ops, ScalarOps};
use super::{Network, Row, CHANNELS, LOGIT_ONE, QA, QW, REFERENCE_SIDE};

/// A cell's inputs: its shape ids in the four directions, then its threat pair.
type Inputs = [u16; 5];
/// The index of the threat pair in `Inputs`.
const THREAT_INPUT: usize = 4;
/// No input (the threat pair of an occupied cell).
const NO_INPUT: u16 = u16::MAX;
/// Every input of a cell.
const ALL_INPUTS: u8 = 0b1_1111;
/// Steps of a mean feature per unit of `QA` (a sum of at most 255 · 1,024 cells times
/// `mean_factor` stays below 2^31).
const MEAN_STEPS: i32 = 8;

/// The sum of the features over an empty board of `width`×`height` (the plain way).
fn empty_board_sum(net: &Network, width: usize, height: usize) -> [i32; CHANNELS] {
    let board = Board::new(width, height, net.rule);
    let mut sum = [0; CHANNELS];
    for p in board.points() {
        let mut acc = net.bias;
        for d in 0..4 {
            super::simd::scalar::add(&mut acc, &net.shapes[board_shape(&board, p, d)]);
        }
        if let Some(t) = board_threat_pair(&board, p) {
            super::simd::scalar::add(&mut acc, &net.threats[t]);
        }
        super::simd::scalar::feature_delta(&mut sum, &[0; CHANNELS], &acc);
    }
    sum
}

pub struct NetEvaluator {
    net: Arc<Network>,
    kernel: Kernel,
    /// `acc[cell]` for the on-board cells that are not blocked.
    acc: Vec<Row>,
    /// `inputs[cell]`: the table rows `acc[cell]` holds.
    inputs: Vec<Inputs>,
    /// The sum over those cells of their features.
    sum: [i32; CHANNELS],
    /// What the heads add to `sum`: an empty board of the reference size's sum less an
    /// empty board of this size's, so that they see a board of the reference size.
    background: [i32; CHANNELS],
    /// `MEAN_STEPS · 2^16 / REFERENCE_SIDE²`: a mean feature is `sum · mean_factor >> 16`.
    mean_factor: i32,
    /// How far a stone changes other cells' threat classes: the rule's pattern reach
    /// (`PatternTables::reach`), at least the shapes' `REACH`.
    reach: usize,
    /// The moves of the position the accumulators hold.
    synced: Vec<(Pos, Color)>,
    /// The stones played or taken back since the last sync (a buffer).
    stones: Vec<Pos>,
}

impl NetEvaluator {
    pub fn new(board: &Board, net: Arc<Network>) -> NetEvaluator {
        NetEvaluator::with_kernel(board, net, Kernel::detect())
    }

    /// `new` with the arithmetic of `kernel` (the tests compare them).
    pub fn with_kernel(board: &Board, net: Arc<Network>, kernel: Kernel) -> NetEvaluator {
        let reach = board.tables().reach().max(REACH);
        let mut e = NetEvaluator {
            net,
            kernel,
            acc: vec![[0; CHANNELS]; GRID],
            inputs: vec![[NO_INPUT; 5]; GRID],
            sum: [0; CHANNELS],
            background: [0; CHANNELS],
            mean_factor: (MEAN_STEPS << 16) / (REFERENCE_SIDE * REFERENCE_SIDE) as i32,
            reach,
            synced: board.moves().to_vec(),
            stones: Vec::with_capacity(64),
        };
        // Every cell starts as the bias with no inputs; then all its inputs are read.
        let bias_features = {
            let mut f = [0; CHANNELS];
            super::simd::scalar::feature_delta(&mut f, &[0; CHANNELS], &e.net.bias);
            f
        };
        let cells: Vec<Pos> = board.points().filter(|&p| board.cell_code(p) != WALL).collect();
        for &p in &cells {
            e.acc[p.index()] = e.net.bias;
            for (s, f) in e.sum.iter_mut().zip(bias_features) {
                *s += f;
            }
        }
        if (board.width(), board.height()) != (REFERENCE_SIDE, REFERENCE_SIDE) {
            let reference = empty_board_sum(&e.net, REFERENCE_SIDE, REFERENCE_SIDE);
            let empty = empty_board_sum(&e.net, board.width(), board.height());
            e.background = std::array::from_fn(|c| reference[c] - empty[c]);
        }
        e.stones = cells;
        e.catch_up(board, ALL_INPUTS, 0);
        e.stones.clear();
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

    /// Bring the accumulators to `board`'s position.
    pub fn sync(&mut self, board: &Board) {
        let moves = board.moves();
        let common = self.synced.iter().zip(moves).take_while(|(a, b)| a == b).count();
        if common == self.synced.len() && common == moves.len() {
            return;
        }
        self.stones.clear();
        self.stones.extend(self.synced[common..].iter().map(|m| m.0));
        self.stones.extend(moves[common..].iter().map(|m| m.0));
        self.catch_up(board, ALL_INPUTS, self.reach);
        self.synced.truncate(common);
        self.synced.extend_from_slice(&moves[common..]);
    }

    /// Read again, for each of `stones`, the inputs `own` of its cell, and the inputs a
    /// stone there changes of the cells within `reach` on its lines; with this
    /// evaluator's arithmetic.
    fn catch_up(&mut self, board: &Board, own: u8, reach: usize) {
        match self.kernel {
            Kernel::Scalar => self.catch_up_with::<ScalarOps>(board, own, reach),
            // SAFETY: `Avx2` is only chosen where the CPU has AVX2.
            #[cfg(all(target_arch = "x86_64", not(sente_portable)))]
            Kernel::Avx2 => unsafe { self.catch_up_avx2(board, own, reach) },
        }
    }

    #[cfg(all(target_arch = "x86_64", not(sente_portable)))]
    #[target_feature(enable = "avx2")]
    unsafe fn catch_up_avx2(&mut self, board: &Board, own: u8, reach: usize) {
        self.catch_up_with::<Avx2Ops>(board, own, reach)
    }

    #[inline(always)]
    fn catch_up_with<O: Ops>(&mut self, board: &Board, own: u8, reach: usize) {
        let mut sum = O::load_sum(&self.sum);
        for s in 0..self.stones.len() {
            let p = self.stones[s];
            sum = self.refresh::<O>(board, p, own, sum);
            for (d, &step) in DIRS.iter().enumerate() {
                for k in 1..=reach as isize {
                    // A line's shapes reach `REACH`, the patterns behind the threats
                    // `reach`.
                    let bits = if k <= REACH as isize {
                        1 << d | 1 << THREAT_INPUT
                    } else {
                        1 << THREAT_INPUT
                    };
                    for q in [p.step(k * step), p.step(-k * step)] {
                        if board.cell_code(q) != WALL {
                            sum = self.refresh::<O>(board, q, bits, sum);
                        }
                    }
                }
            }
        }
        O::store_sum(sum, &mut self.sum);
    }

    /// Read inputs `bits` of the cell `q` again; if any changed, bring its accumulator and
    /// the features' sum up to date.
    #[inline(always)]
    fn refresh<O: Ops>(&mut self, board: &Board, q: Pos, mut bits: u8, sum: O::Sum) -> O::Sum {
        let i = q.index();
        let old = self.inputs[i];
        let mut new = old;
        while bits != 0 {
            let input = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            new[input] = if input == THREAT_INPUT {
                board_threat_pair(board, q).map_or(NO_INPUT, |id| id as u16)
            } else {
                board_shape(board, q, input) as u16
            };
        }
        if new == old {
            return sum;
        }
        let before = O::load(&self.acc[i]);
        let mut acc = before;
        for input in 0..5 {
            let (o, n) = (old[input], new[input]);
            if o != n {
                if o != NO_INPUT {
                    acc = O::sub(acc, self.row(input, o));
                }
                if n != NO_INPUT {
                    acc = O::add(acc, self.row(input, n));
                }
            }
        }
        O::store(acc, &mut self.acc[i]);
        self.inputs[i] = new;
        O::feature_delta(sum, before, acc)
    }

    /// The value logit for `us` to move (`LOGIT_ONE` units).
    pub fn value(&mut self, board: &Board, us: Color) -> i32 {
        self.sync(board);
        let head = self.net.head(us);
        let sum: [i32; CHANNELS] = std::array::from_fn(|c| self.sum[c] + self.background[c]);
        // The sum's part: LOGIT_ONE·QA per unit of weight × feature, to LOGIT_ONE.
        let cell: i64 = head.cell.iter().zip(&sum).map(|(&w, &s)| w as i64 * s as i64).sum();
        let mut out = head.out_bias as i64 + cell / QA as i64;
        // The mean's part, through the hidden units: the mean features in units of
        // 1/(QA·MEAN_STEPS) by the reciprocal, then i16 products that fit an i32
        // (32 × 32,768 × 2,040 < 2^31).
        let mean: [i16; CHANNELS] = std::array::from_fn(|c| ((sum[c] * self.mean_factor) >> 16) as i16);
        for (j, w) in head.hidden.iter().enumerate() {
            let dot: i32 = w.iter().zip(&mean).map(|(&w, &m)| w as i32 * m as i32).sum();
            let z = dot / (QA * MEAN_STEPS) + head.hidden_bias[j] as i32;
            out += head.out[j] as i64 * z.clamp(0, QW) as i64;
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
                // On 20x20 the game starts from a board built from moves.
                let floor = if width == 20 {
                    let moves = [(3, 3), (4, 4), (5, 3), (6, 6), (3, 5)]
                        .map(|(x, y)| Pos::new(x, y))
                        .into_iter()
                        .zip([Color::Black, Color::White].into_iter().cycle());
                    b = Board::from_moves(width, height, rule, &moves.collect::<Vec<_>>());
                    b.stone_count()
                } else {
                    0
                };
                // The lazy evaluator of every arithmetic path, checked against a fresh
                // one of the scalar reference.
                let mut lazies: Vec<NetEvaluator> = Kernel::available()
                    .into_iter()
                    .map(|k| NetEvaluator::with_kernel(&b, Arc::clone(&net), k))
                    .collect();
                let mut checked = 0;
                for _ in 0..200 {
                    let r = splitmix64(&mut rng);
                    if b.is_full() || (r.is_multiple_of(4) && b.stone_count() > floor) {
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
    fn an_evaluator_moved_between_unrelated_positions_equals_a_fresh_one() {
        // Boards built from moves, sharing only their first moves, and a line played on
        // one of them.
        let net = Arc::new(random_network(Rule::Renju, 5));
        let xy = |v: &[(usize, usize)]| -> Vec<(Pos, Color)> {
            v.iter()
                .map(|&(x, y)| Pos::new(x, y))
                .zip([Color::Black, Color::White].into_iter().cycle())
                .collect()
        };
        let a = Board::from_moves(15, 15, Rule::Renju, &xy(&[(7, 7), (8, 8), (6, 7), (9, 9), (5, 7)]));
        let b = Board::from_moves(
            15,
            15,
            Rule::Renju,
            &xy(&[(7, 7), (8, 8), (7, 6), (7, 8), (6, 6), (9, 9)]),
        );
        let mut played = b.clone();
        played.make(Pos::new(8, 7), Color::Black);
        let mut e = NetEvaluator::new(&a, Arc::clone(&net));
        for board in [&b, &a, &played, &b, &played, &a] {
            let mut fresh = NetEvaluator::with_kernel(board, Arc::clone(&net), Kernel::Scalar);
            assert_eq!(e.value(board, Color::White), fresh.value(board, Color::White));
            assert_eq!((&e.acc, e.sum), (&fresh.acc, fresh.sum));
        }
    }

    #[test]
    fn a_position_far_from_the_edges_has_one_value_on_every_board_size() {
        // Stones farther from every edge than a pattern sees: the heads see what the
        // stones change, not the board's area.
        let centred = |width: usize, height: usize, offsets: &[(i32, i32)]| -> Board {
            let (cx, cy) = (width as i32 / 2, height as i32 / 2);
            let moves: Vec<(Pos, Color)> = offsets
                .iter()
                .map(|&(dx, dy)| Pos::new((cx + dx) as usize, (cy + dy) as usize))
                .zip([Color::Black, Color::White].into_iter().cycle())
                .collect();
            Board::from_moves(width, height, Rule::Freestyle, &moves)
        };
        let stones = [(0, 0), (1, 1), (0, 1), (-1, 0), (1, -1)];
        let net = Arc::new(random_network(Rule::Freestyle, 3));
        for n in 0..=stones.len() {
            let values: Vec<i32> = [(24, 24), (32, 32), (29, 25)]
                .into_iter()
                .map(|(w, h)| {
                    let b = centred(w, h, &stones[..n]);
                    NetEvaluator::new(&b, Arc::clone(&net)).value(&b, b.side_to_move())
                })
                .collect();
            assert!(values.iter().all(|&v| v == values[0]), "{n} stones: {values:?}");
        }
        // The embedded network, on the common sizes: a centre opening's value on 20x20
        // is its value on 15x15, the size it was trained on.
        let net = crate::nnue::embedded(Rule::Freestyle).expect("freestyle's network");
        for n in 1..=4 {
            let small = centred(15, 15, &stones[..n]);
            let large = centred(20, 20, &stones[..n]);
            let us = small.side_to_move();
            assert_eq!(
                NetEvaluator::new(&small, Arc::clone(&net)).value(&small, us),
                NetEvaluator::new(&large, Arc::clone(&net)).value(&large, us),
                "{n} stones"
            );
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
