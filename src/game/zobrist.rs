//! Zobrist keys: fixed pseudo-random numbers, the same on every machine and every run.

use std::sync::OnceLock;

use super::geometry::{Color, Pos, GRID};

pub(crate) struct Zobrist {
    stones: [[u64; GRID]; 2],
    /// XORed in when white is to move (used by the search, not the board).
    pub(crate) white_to_move: u64,
}

/// SplitMix64: a small, well-mixed generator; fixed seed so hashes are reproducible.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Zobrist {
    pub(crate) fn get() -> &'static Zobrist {
        static KEYS: OnceLock<Box<Zobrist>> = OnceLock::new();
        KEYS.get_or_init(|| {
            let mut state = 0x5E17E_u64;
            let mut stones = [[0u64; GRID]; 2];
            for side in stones.iter_mut() {
                for k in side.iter_mut() {
                    *k = splitmix64(&mut state);
                }
            }
            let white_to_move = splitmix64(&mut state);
            Box::new(Zobrist { stones, white_to_move })
        })
    }

    #[inline]
    pub(crate) fn stone(&self, c: Color, p: Pos) -> u64 {
        self.stones[c.index()][p.index()]
    }
}
