//! A set of grid points, one bit per `Pos` index.

use super::geometry::{Pos, GRID};

const WORDS: usize = GRID.div_ceil(64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PosSet {
    words: [u64; WORDS],
}

impl Default for PosSet {
    fn default() -> Self {
        PosSet { words: [0; WORDS] }
    }
}

impl PosSet {
    #[inline]
    pub fn insert(&mut self, p: Pos) {
        let i = p.index();
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Insert the points `start + k` for every bit `k` set in `bits` (fewer than 64 bits
    /// wide): a row of points in one or two word operations.
    #[inline]
    pub(crate) fn insert_run(&mut self, start: usize, bits: u64) {
        let (w, shift) = (start / 64, start % 64);
        self.words[w] |= bits << shift;
        if shift > 0 {
            let high = bits >> (64 - shift);
            if high != 0 {
                self.words[w + 1] |= high;
            }
        }
    }

    #[inline]
    pub fn remove(&mut self, p: Pos) {
        let i = p.index();
        self.words[i / 64] &= !(1 << (i % 64));
    }

    #[inline]
    pub fn contains(&self, p: Pos) -> bool {
        let i = p.index();
        self.words[i / 64] >> (i % 64) & 1 != 0
    }

    pub(crate) fn intersection(&self, other: &PosSet) -> PosSet {
        let mut out = *self;
        for (a, b) in out.words.iter_mut().zip(&other.words) {
            *a &= b;
        }
        out
    }

    /// The point with the lowest index, if any.
    #[inline]
    pub(crate) fn first(&self) -> Option<Pos> {
        self.words
            .iter()
            .enumerate()
            .find(|(_, &w)| w != 0)
            .map(|(i, &w)| Pos::from_index(i * 64 + w.trailing_zeros() as usize))
    }

    /// Every point in either set.
    pub(crate) fn union(&self, other: &PosSet) -> PosSet {
        let mut out = *self;
        for (a, b) in out.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
        out
    }

    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// Points in index order (the engine's move tie-break order).
    pub fn iter(&self) -> impl Iterator<Item = Pos> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut bits = w;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(Pos::from_index(wi * 64 + b))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_inserted_across_a_word_boundary() {
        for start in [0, 60, 61, 64, 100, GRID - 8] {
            let mut set = PosSet::default();
            set.insert_run(start, 0b1010011);
            let got: Vec<usize> = set.iter().map(|p| p.index()).collect();
            assert_eq!(got, vec![start, start + 1, start + 4, start + 6], "start {start}");
        }
    }

    #[test]
    fn insert_remove_iterate() {
        let mut s = PosSet::default();
        let pts = [Pos::new(0, 0), Pos::new(31, 31), Pos::new(7, 7), Pos::new(8, 7)];
        for p in pts {
            s.insert(p);
        }
        assert_eq!(s.len(), 4);
        let got: Vec<Pos> = s.iter().collect();
        let mut want = pts.to_vec();
        want.sort();
        assert_eq!(got, want);
        s.remove(Pos::new(7, 7));
        assert!(!s.contains(Pos::new(7, 7)));
        assert!(s.contains(Pos::new(8, 7)));
    }
}
