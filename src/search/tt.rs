//! Transposition table: buckets of four 16-byte entries (one cache line), shared by all
//! search threads without locks. Each entry stores `key ^ data` next to `data`, so a torn
//! write by another thread fails the key check instead of returning garbage.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::game::Pos;

use crate::score::{from_tt, to_tt};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    Upper = 1,
    Lower = 2,
    Exact = 3,
}

#[derive(Copy, Clone, Debug)]
pub struct TtHit {
    pub best: Pos,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

#[repr(C)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

/// `n` zeroed entries from zeroed memory: the pages are mapped lazily, so a large table
/// costs no time to allocate and no memory until it is used.
fn zeroed_entries(n: usize) -> Vec<Entry> {
    let mut words = std::mem::ManuallyDrop::new(vec![0u64; 2 * n]);
    // SAFETY: `Entry` is `repr(C)` of two `AtomicU64`, which have the size, alignment and
    // bit validity of `u64`; the allocation of 2n u64 is exactly the layout of n entries,
    // and ownership moves from the forgotten Vec to the new one.
    unsafe { Vec::from_raw_parts(words.as_mut_ptr() as *mut Entry, n, n) }
}

const BUCKET: usize = 4;
pub const ENTRY_BYTES: usize = 16;

pub struct TranspositionTable {
    entries: Vec<Entry>,
    buckets: usize,
    generation: u8,
}

// data layout: move 16 | score 16 | eval 16 | depth 8 | bound 2 | generation 6
fn pack(best: Pos, score: i32, eval: i32, depth: i32, bound: Bound, generation: u8) -> u64 {
    (best.index() as u64)
        | ((score as i16 as u16 as u64) << 16)
        | ((eval as i16 as u16 as u64) << 32)
        | (((depth.clamp(-100, 127) as i8) as u8 as u64) << 48)
        | ((bound as u64) << 56)
        | (((generation & 63) as u64) << 58)
}

fn unpack_depth(data: u64) -> i32 {
    (data >> 48) as u8 as i8 as i32
}

fn unpack_generation(data: u64) -> u8 {
    (data >> 58) as u8 & 63
}

impl TranspositionTable {
    /// A table of about `bytes` bytes (at least one bucket).
    pub fn new(bytes: usize) -> TranspositionTable {
        let buckets = (bytes / (ENTRY_BYTES * BUCKET)).max(1);
        TranspositionTable {
            entries: zeroed_entries(buckets * BUCKET),
            buckets,
            generation: 0,
        }
    }

    pub fn size_bytes(&self) -> usize {
        self.entries.len() * ENTRY_BYTES
    }

    /// Forget everything. A fresh allocation: faster than writing zeros, and the memory
    /// is returned until used again.
    pub fn clear(&mut self) {
        self.entries = Vec::new();
        self.entries = zeroed_entries(self.buckets * BUCKET);
        self.generation = 0;
    }

    /// Start a new search: older entries become preferred victims.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[Entry] {
        let b = ((key as u128 * self.buckets as u128) >> 64) as usize;
        &self.entries[b * BUCKET..(b + 1) * BUCKET]
    }

    pub fn probe(&self, key: u64, ply: i32) -> Option<TtHit> {
        for e in self.bucket(key) {
            let data = e.data.load(Ordering::Relaxed);
            if data != 0 && e.check.load(Ordering::Relaxed) ^ data == key {
                let bound = match (data >> 56) & 3 {
                    1 => Bound::Upper,
                    2 => Bound::Lower,
                    3 => Bound::Exact,
                    _ => return None,
                };
                return Some(TtHit {
                    best: Pos::from_index((data & 0xFFFF) as usize),
                    score: from_tt((data >> 16) as u16 as i16 as i32, ply),
                    eval: (data >> 32) as u16 as i16 as i32,
                    depth: unpack_depth(data),
                    bound,
                });
            }
        }
        None
    }

    #[allow(clippy::too_many_arguments)]
    pub fn store(&self, key: u64, ply: i32, best: Pos, score: i32, eval: i32, depth: i32, bound: Bound) {
        let bucket = self.bucket(key);
        // Same key first; otherwise the entry with the lowest depth, older generations first.
        let mut victim = 0;
        let mut victim_value = i32::MAX;
        for (i, e) in bucket.iter().enumerate() {
            let data = e.data.load(Ordering::Relaxed);
            if data == 0 || e.check.load(Ordering::Relaxed) ^ data == key {
                if data != 0 && bound != Bound::Exact && depth + 2 < unpack_depth(data) {
                    return; // keep the deeper result for the same position
                }
                victim = i;
                break;
            }
            let age = (self.generation.wrapping_sub(unpack_generation(data)) & 63) as i32;
            let value = unpack_depth(data) - 4 * age;
            if value < victim_value {
                victim_value = value;
                victim = i;
            }
        }
        let data = pack(best, to_tt(score, ply), eval, depth, bound, self.generation);
        bucket[victim].data.store(data, Ordering::Relaxed);
        bucket[victim].check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of the first 1000 entries used in the current search (for info lines).
    pub fn hashfull(&self) -> u32 {
        let n = self.entries.len().min(1000);
        let used = self.entries[..n]
            .iter()
            .filter(|e| {
                let d = e.data.load(Ordering::Relaxed);
                d != 0 && unpack_generation(d) == self.generation
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::WIN;

    #[test]
    fn store_and_probe_roundtrip() {
        let tt = TranspositionTable::new(1 << 16);
        let p = Pos::new(7, 8);
        tt.store(0xDEAD_BEEF_1234, 3, p, -123, 45, 9, Bound::Lower);
        let hit = tt.probe(0xDEAD_BEEF_1234, 3).expect("hit");
        assert_eq!(
            (hit.best, hit.score, hit.eval, hit.depth, hit.bound),
            (p, -123, 45, 9, Bound::Lower)
        );
        assert!(tt.probe(0xDEAD_BEEF_1235, 3).is_none());
        // Mate scores are stored relative to the node and restored at another ply.
        tt.store(42, 4, p, WIN - 10, 0, -3, Bound::Exact);
        let hit = tt.probe(42, 6).expect("hit");
        assert_eq!(hit.score, WIN - 12);
        assert_eq!(hit.depth, -3);
    }
}
