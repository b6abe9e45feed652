//! Move-ordering memory: killer moves per ply, a history score per (colour, point) and a
//! counter move per (colour, previous opponent move).

use crate::game::geometry::GRID;
use crate::game::{Color, Pos};

use super::params::{HISTORY_BONUS_MAX, MAX_PLY, ONE_PLY};

const HISTORY_MAX: i32 = 1 << 14;

pub(crate) struct History {
    killers: [[Pos; 2]; MAX_PLY],
    scores: Vec<[i32; GRID]>,
    counters: Vec<[Pos; GRID]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            killers: [[Pos::NONE; 2]; MAX_PLY],
            scores: vec![[0; GRID]; 2],
            counters: vec![[Pos::NONE; GRID]; 2],
        }
    }
}

impl History {
    pub(crate) fn clear(&mut self) {
        *self = History::default();
    }

    pub(crate) fn killers(&self, ply: usize) -> [Pos; 2] {
        self.killers[ply.min(MAX_PLY - 1)]
    }

    /// `c`'s usual answer to the opponent's move `previous`.
    pub(crate) fn counter(&self, c: Color, previous: Pos) -> Pos {
        self.counters[c.index()][previous.index()]
    }

    #[inline]
    pub(crate) fn score(&self, c: Color, p: Pos) -> i32 {
        self.scores[c.index()][p.index()]
    }

    /// A quiet move caused a cutoff: remember it as a killer and as the answer to
    /// `previous`, reward it, punish the quiet moves tried before it (`depth` in `ONE_PLY`
    /// units).
    pub(crate) fn on_cutoff(&mut self, c: Color, best: Pos, previous: Pos, tried: &[Pos], depth: i32, ply: usize) {
        let k = &mut self.killers[ply.min(MAX_PLY - 1)];
        if k[0] != best {
            k[1] = k[0];
            k[0] = best;
        }
        if !previous.is_none() {
            self.counters[c.index()][previous.index()] = best;
        }
        let bonus = (depth * depth / (ONE_PLY * ONE_PLY)).min(HISTORY_BONUS_MAX);
        self.update(c, best, bonus);
        for &p in tried {
            if p != best {
                self.update(c, p, -bonus);
            }
        }
    }

    fn update(&mut self, c: Color, p: Pos, bonus: i32) {
        // Gravity: scores stay within ±HISTORY_MAX.
        let h = &mut self.scores[c.index()][p.index()];
        *h += bonus - *h * bonus.abs() / HISTORY_MAX;
    }

    /// Age the table between moves so old information fades.
    pub(crate) fn age(&mut self) {
        for side in self.scores.iter_mut() {
            for h in side.iter_mut() {
                *h /= 2;
            }
        }
        self.killers = [[Pos::NONE; 2]; MAX_PLY];
    }
}
