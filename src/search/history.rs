//! Search memory kept from one search to the next (the killers are the search stack's,
//! `alphabeta`): a history score per (colour, point), a counter move per (colour,
//! previous opponent move), and a correction of the static evaluation per (colour to
//! move, threat signature) learned from the searches' results.

use crate::game::geometry::GRID;
use crate::game::{Color, Pos};

use super::params::{
    CORRECTION_FULL_STEP_PLIES, CORRECTION_LIMIT, CORRECTION_MAX_STEP, CORRECTION_SCALE, HISTORY_BONUS_MAX, ONE_PLY,
};

const HISTORY_MAX: i32 = 1 << 14;

pub(crate) struct History {
    scores: Vec<[i32; GRID]>,
    counters: Vec<[Pos; GRID]>,
    /// `corrections[colour to move][signature]`, in 1/`CORRECTION_SCALE` evaluation units.
    corrections: Vec<i32>,
}

/// Threat signatures (`alphabeta::threat_signature`): 8 bits per side.
pub(crate) const THREAT_SIGNATURES: usize = 1 << 16;

impl Default for History {
    fn default() -> Self {
        History {
            scores: vec![[0; GRID]; 2],
            counters: vec![[Pos::NONE; GRID]; 2],
            corrections: vec![0; 2 * THREAT_SIGNATURES],
        }
    }
}

impl History {
    pub(crate) fn clear(&mut self) {
        *self = History::default();
    }

    /// `c`'s usual answer to the opponent's move `previous`.
    pub(crate) fn counter(&self, c: Color, previous: Pos) -> Pos {
        self.counters[c.index()][previous.index()]
    }

    #[inline]
    pub(crate) fn score(&self, c: Color, p: Pos) -> i32 {
        self.scores[c.index()][p.index()]
    }

    /// A quiet move caused a cutoff: remember it as the answer to `previous`, reward it,
    /// punish the quiet moves tried before it (`depth` in `ONE_PLY` units).
    pub(crate) fn on_cutoff(&mut self, c: Color, best: Pos, previous: Pos, tried: &[Pos], depth: i32) {
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

    /// What the searches have found the static evaluation to miss, on average, in
    /// positions of `signature` with `c` to move (evaluation units).
    #[inline]
    pub(crate) fn correction(&self, c: Color, signature: usize) -> i32 {
        self.corrections[c.index() * THREAT_SIGNATURES + signature] / CORRECTION_SCALE
    }

    /// A search to `depth` (`ONE_PLY` units) found `error` = score − corrected evaluation:
    /// move the correction towards it, more for deeper searches (as Stockfish's
    /// correction history).
    pub(crate) fn update_correction(&mut self, c: Color, signature: usize, error: i32, depth: i32) {
        let bonus = (error * CORRECTION_SCALE * depth / (CORRECTION_FULL_STEP_PLIES * ONE_PLY))
            .clamp(-CORRECTION_MAX_STEP, CORRECTION_MAX_STEP);
        let h = &mut self.corrections[c.index() * THREAT_SIGNATURES + signature];
        *h += bonus - *h * bonus.abs() / CORRECTION_LIMIT;
    }

    /// Age the table between moves so old information fades.
    pub(crate) fn age(&mut self) {
        for side in self.scores.iter_mut() {
            for h in side.iter_mut() {
                *h /= 2;
            }
        }
        for h in self.corrections.iter_mut() {
            *h /= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_correction_follows_the_searches_and_stays_bounded() {
        let mut h = History::default();
        let (c, key) = (Color::Black, 0x0102);
        assert_eq!(h.correction(c, key), 0);
        // Searches keep finding the evaluation 100 too low: the correction rises towards
        // it, never beyond its limit, and only for this colour and signature.
        for _ in 0..200 {
            let error = 100 - h.correction(c, key);
            h.update_correction(c, key, error, 8 * ONE_PLY);
        }
        let learned = h.correction(c, key);
        assert!((90..=100).contains(&learned), "{learned}");
        assert_eq!(h.correction(Color::White, key), 0);
        assert_eq!(h.correction(c, key + 1), 0);
        for _ in 0..200 {
            h.update_correction(c, key, 10_000, 40 * ONE_PLY);
        }
        assert!(h.correction(c, key) <= CORRECTION_LIMIT / CORRECTION_SCALE);
        // Between moves it fades.
        let before = h.correction(c, key);
        h.age();
        assert!(h.correction(c, key).abs() < before.abs());
    }
}
