//! The network bound to one search: every cell's accumulator for the position it was
//! last brought to, caught up lazily when a node is evaluated.
//!
//! The evaluator remembers the moves of the position its accumulators hold. To evaluate
//! another position of the search it finds the moves the two have in common; only the
//! cells within reach of a stone played or taken back since can have other inputs, so
//! their accumulators are computed again from the board and the board mean of the
//! features is corrected by the difference. A make followed by its undo, and the threat
//! solvers' probes, cost it nothing.

use std::sync::Arc;

use crate::game::geometry::{DIRS, GRID, WALL};
use crate::game::{Board, Color, Pos};

use super::shape::{board_shape, board_threat_pair};
use super::{Network, Row, CHANNELS, LOGIT_ONE, QA, QW};

/// The features of an accumulator: clipped to 0..=QA.
#[inline]
fn features(acc: &Row) -> Row {
    std::array::from_fn(|c| acc[c].clamp(0, QA as i16))
}

#[inline]
fn add_row(acc: &mut Row, row: &Row) {
    for (a, &r) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(r);
    }
}

pub struct NetEvaluator {
    net: Arc<Network>,
    /// `acc[cell]` for the on-board cells that are not blocked.
    acc: Vec<Row>,
    /// The sum over those cells of their features.
    sum: [i32; CHANNELS],
    cells: i32,
    /// How far a stone changes other cells' inputs: the line shapes look 4 cells out,
    /// the threat classes as far as the rule's patterns (`PatternTables::reach`).
    reach: isize,
    /// The moves of the position the accumulators hold.
    synced: Vec<(Pos, Color)>,
    /// Cells already taken in the catch-up under way (`stamps[cell] == epoch`).
    stamps: Vec<u32>,
    epoch: u32,
    touched: Vec<Pos>,
}

impl NetEvaluator {
    pub fn new(board: &Board, net: Arc<Network>) -> NetEvaluator {
        let reach = board.tables().reach().max(super::shape::REACH) as isize;
        let mut e = NetEvaluator {
            net,
            acc: vec![[0; CHANNELS]; GRID],
            sum: [0; CHANNELS],
            cells: 0,
            reach,
            synced: board.moves().to_vec(),
            stamps: vec![0; GRID],
            epoch: 0,
            touched: Vec::with_capacity(256),
        };
        for p in board
            .points()
            .filter(|&p| board.cell_code(p) != WALL)
            .collect::<Vec<_>>()
        {
            let acc = e.accumulator(board, p);
            for (s, f) in e.sum.iter_mut().zip(features(&acc)) {
                *s += f as i32;
            }
            e.acc[p.index()] = acc;
            e.cells += 1;
        }
        e
    }

    /// A cell's accumulator from the board, from scratch.
    #[inline]
    fn accumulator(&self, board: &Board, p: Pos) -> Row {
        let net = &*self.net;
        let mut acc = net.bias;
        for d in 0..4 {
            add_row(&mut acc, &net.shapes[board_shape(board, p, d)]);
        }
        if let Some(pair) = board_threat_pair(board, p) {
            add_row(&mut acc, &net.threats[pair]);
        }
        acc
    }

    /// Bring the accumulators to `board`'s position.
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
        let (epoch, reach) = (self.epoch, self.reach);
        for &(p, _) in self.synced[common..].iter().chain(&moves[common..]) {
            let take = |q: Pos, stamps: &mut Vec<u32>, touched: &mut Vec<Pos>| {
                if board.cell_code(q) != WALL && stamps[q.index()] != epoch {
                    stamps[q.index()] = epoch;
                    touched.push(q);
                }
            };
            take(p, &mut self.stamps, &mut self.touched);
            for step in DIRS {
                for k in 1..=reach {
                    take(p.step(k * step), &mut self.stamps, &mut self.touched);
                    take(p.step(-k * step), &mut self.stamps, &mut self.touched);
                }
            }
        }
        for i in 0..self.touched.len() {
            let p = self.touched[i];
            let new = self.accumulator(board, p);
            let (was, now) = (features(&self.acc[p.index()]), features(&new));
            for c in 0..CHANNELS {
                self.sum[c] += now[c] as i32 - was[c] as i32;
            }
            self.acc[p.index()] = new;
        }
        self.synced.truncate(common);
        self.synced.extend_from_slice(&moves[common..]);
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
        let h = features(&self.acc[p.index()]);
        self.net
            .head(us)
            .policy
            .iter()
            .zip(&h)
            .map(|(&w, &f)| w as i32 * f as i32)
            .sum()
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
                let mut lazy = NetEvaluator::new(&b, Arc::clone(&net));
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
                        let mut fresh = NetEvaluator::new(&b, Arc::clone(&net));
                        for us in [Color::Black, Color::White] {
                            assert_eq!(lazy.value(&b, us), fresh.value(&b, us), "{rule:?} {width}x{height}");
                            for p in b.empty_points().iter().take(20) {
                                assert_eq!(lazy.policy(&b, us, p), fresh.policy(&b, us, p));
                            }
                        }
                        assert_eq!(lazy.sum, fresh.sum);
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
